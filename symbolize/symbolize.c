// SPDX-License-Identifier: MIT
/*
 * The symbolizer session: a cache of parsed objects keyed by kind, path
 * and build-id, and the assembly of sym_result from the ELF symbol index
 * and the DWARF tables of each object.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <libelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "common/util/buildid.h"
#include "common/util/hash.h"
#include "common/util/path.h"
#include "decode.h"
#include "symbolize_int.h"

/* ---- objects ---- */

/*
 * A name demangled, by the address of the mangled one: every name a
 * frame gets lives in the symbolizer (an object's symbols, the pool)
 * until symbolizer_free(), so an address is never another name's.  Each
 * instruction of a C++ procedure gives its name again.
 */
#define DEMANGLED 4096
struct demangled {
	const char *name, *d;
};

struct symbolizer {
	char *debug_root;
	char *vmlinux;
	char *kallsyms_path;
	char *symfs;
	char *buildid_cache;	/* sym_config.buildid_cache */
	int symfs_archive;	/* sym_config.symfs_archive */
	char **debug_dirs;
	size_t ndebug_dirs;
	struct fetcher fetch;
	char *kernel_debug;		/* vmlinux found by build-id, or NULL */
	bool kernel_looked;
	void (*event)(void *arg, const struct sym_event *ev);
	void *event_arg;
	struct strpool pool;
	struct symobj **tab;
	size_t ntab, nobj;
	struct symobj *last;		/* one-entry lookup cache */
	struct kallsyms ks;
	int ks_err;
	bool ks_loaded;
	struct inputs inputs;		/* skipped paths kept in pool */
	struct demangled *dm;		/* DEMANGLED slots, or NULL */
	bool names_only;		/* sym_set_names_only() */
	struct jittabs jit;		/* sym_set_jit_symbols() */
	struct dwahead *ahead;		/* sym_read_dwarf_ahead() */
};

static char *dup_or_null(const char *s, bool *oom)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

struct symbolizer *symbolizer_new(const struct sym_config *cfg)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	bool oom = false;

	if (!s)
		return NULL;
	buildid_elf_version();
	strpool_init(&s->pool);
	inputs_init(&s->inputs, &s->pool);
	if (cfg) {
		s->debug_root = dup_or_null(cfg->debug_root, &oom);
		s->vmlinux = dup_or_null(cfg->vmlinux, &oom);
		s->kallsyms_path = dup_or_null(cfg->kallsyms, &oom);
		s->symfs = dup_or_null(cfg->symfs, &oom);
		s->buildid_cache = dup_or_null(cfg->buildid_cache, &oom);
		s->symfs_archive = cfg->symfs_archive;
		if (cfg->ndebug_dirs) {
			s->debug_dirs = calloc(cfg->ndebug_dirs,
					       sizeof(*s->debug_dirs));
			oom |= !s->debug_dirs;
		}
		for (size_t i = 0; s->debug_dirs && i < cfg->ndebug_dirs; i++)
			s->debug_dirs[s->ndebug_dirs++] =
				dup_or_null(cfg->debug_dirs[i], &oom);
		s->fetch.enabled = cfg->debuginfod;
		s->fetch.wait = cfg->debuginfod_wait ? cfg->debuginfod_wait :
				SYM_DEBUGINFOD_WAIT;
		s->event = cfg->event;
		s->event_arg = cfg->event_arg;
	}
	if (oom) {
		symbolizer_free(s);
		return NULL;
	}
	return s;
}

int sym_open_input(struct symbolizer *s, const char *path)
{
	return inputs_open(&s->inputs, path);
}

const struct sym_skipped *sym_skipped_files(const struct symbolizer *s,
					    size_t *n)
{
	*n = s->inputs.nskipped;
	return s->inputs.skipped;
}

static void obj_free(struct symobj *o)
{
	if (o->code)
		o->code_free(o->code);
	procs_release(&o->procs);
	free(o->path);
	free(o->file);
	free(o->build_id);
	free(o->loads);
	symindex_release(&o->syms);
	dwinfo_free(o->dw);
	free(o->dwpath);
	free(o->debug_file);
	free(o);
}

void symbolizer_free(struct symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	dwinfo_ahead_free(s->ahead);
	for (i = 0; i < s->ntab; i++) {
		struct symobj *o = s->tab[i];

		while (o) {
			struct symobj *next = o->next;

			obj_free(o);
			o = next;
		}
	}
	free(s->tab);
	sym_jit_release(&s->jit);
	kallsyms_release(&s->ks);
	inputs_release(&s->inputs);
	strpool_release(&s->pool);
	free(s->dm);
	free(s->debug_root);
	free(s->vmlinux);
	free(s->kallsyms_path);
	free(s->symfs);
	free(s->buildid_cache);
	free(s->kernel_debug);
	for (i = 0; i < s->ndebug_dirs; i++)
		free(s->debug_dirs[i]);
	free(s->debug_dirs);
	debuginfo_fetch_release(&s->fetch);
	free(s);
}

struct strpool *symbolizer_pool(struct symbolizer *s)
{
	return &s->pool;
}

const char *sym_strerror(int err)
{
	switch (err) {
	case SYM_OK:
		return "success";
	case SYM_ENOMEM:
		return "out of memory";
	case SYM_EOPEN:
		return "object cannot be opened";
	case SYM_EELF:
		return "not a valid ELF object";
	case SYM_EDWARF:
		return "malformed DWARF";
	case SYM_EKALLSYMS:
		return "kernel symbols unavailable";
	case SYM_EINVAL:
		return "invalid argument";
	case SYM_ENOCODE:
		return "no readable code at the address";
	case SYM_EUNREAD:
		return "its path may lead to another file than the one "
		       "mapped, which could not be checked: not read";
	default:
		return "unknown error";
	}
}

static const char *obj_base(const struct sym_object *obj)
{
	const char *p = obj->path;

	if (!p || !*p) {
		switch (obj->kind) {
		case SYM_OBJ_VDSO:
			return "[vdso]";
		case SYM_OBJ_KERNEL:
			return "[kernel.kallsyms]";
		case SYM_OBJ_ANON:
			return "[anon]";
		default:
			return "??";
		}
	}
	return path_base(p);
}

static size_t obj_hash(const struct sym_object *obj)
{
	size_t h = (size_t)obj->kind * 0x9e3779b97f4a7c15ull;

	if (obj->path)
		h ^= hash_str(HASH_STR_SEED, obj->path);
	if (obj->build_id && obj->build_id_len)
		h ^= hash_mem(HASH_STR_SEED, obj->build_id,
			      obj->build_id_len) * 31;
	return (size_t)hash_mix64(h);
}

/* Whether o is obj (the hash of obj is o's then). */
static bool obj_same(const struct symobj *o, const struct sym_object *obj)
{
	size_t blen = obj->build_id ? obj->build_id_len : 0;

	if (o->kind != obj->kind || o->build_id_len != blen ||
	    o->no_path != !!obj->no_path)
		return false;
	if (!o->path != !obj->path || (o->path && strcmp(o->path, obj->path)))
		return false;
	return !blen || !memcmp(o->build_id, obj->build_id, blen);
}

static bool obj_matches(const struct symobj *o, const struct sym_object *obj,
			size_t hash)
{
	return o->hash == hash && obj_same(o, obj);
}

static int tab_grow(struct symbolizer *s)
{
	size_t n = s->ntab ? s->ntab * 2 : 64, i;
	struct symobj **tab = calloc(n, sizeof(*tab));

	if (!tab)
		return SYM_ENOMEM;
	for (i = 0; i < s->ntab; i++) {
		struct symobj *o = s->tab[i];

		while (o) {
			struct symobj *next = o->next;

			o->next = tab[o->hash & (n - 1)];
			tab[o->hash & (n - 1)] = o;
			o = next;
		}
	}
	free(s->tab);
	s->tab = tab;
	s->ntab = n;
	return SYM_OK;
}

/* Open an ELF file; on failure *fd tells whether open() worked. */
static Elf *open_elf(struct symbolizer *s, const char *path, int *fd)
{
	Elf *elf;

	*fd = sym_open_input(s, path);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		close(*fd);
	return elf;
}

static void close_elf(Elf *elf, int fd)
{
	elf_end(elf);
	if (fd >= 0)
		close(fd);
}

static bool build_id_stale(const struct symobj *o, const struct elfmeta *m)
{
	/* A profile without the object's build-id cannot check the file:
	 * trust it.  A file without one where the profile has one is not
	 * the object (a profiled user's link to another file, say). */
	if (!o->build_id_len)
		return false;
	if (!m->build_id_len)
		return true;
	return o->build_id_len != m->build_id_len ||
	       memcmp(o->build_id, m->build_id, m->build_id_len);
}

static void emit(struct symbolizer *s, enum sym_event_kind kind,
		 const char *object, const char *file, const char *reason)
{
	struct sym_event ev = {
		.kind = kind, .object = object, .file = file,
		.reason = reason,
	};

	if (s->event)
		s->event(s->event_arg, &ev);
}

/*
 * The object's file or its debug file from debuginfod; NULL when not
 * found (or debuginfod is off).  A failure is told once, as the fetcher
 * goes down.
 */
static char *fetch(struct symbolizer *s, const char *object, bool executable,
		   const uint8_t *id, size_t len)
{
	const char *reason;
	char *path;
	int ret = debuginfo_fetch(&s->fetch, executable, id, len, &path,
				  &reason);

	if (ret == SYM_OK)
		emit(s, executable ? SYM_EVENT_FETCHED_OBJECT :
		     SYM_EVENT_FETCHED_DEBUG, object, path, NULL);
	else if (reason)
		emit(s, SYM_EVENT_DEBUGINFOD_DOWN, object, NULL, reason);
	return ret == SYM_OK ? path : NULL;
}

/* Whether the debug file at dbg (NULL: none) has DWARF. */
static bool debug_has_dwarf(struct symbolizer *s, const char *dbg)
{
	struct elfmeta m;
	bool yes = false;
	int fd;
	Elf *elf;

	if (!dbg)
		return false;
	elf = open_elf(s, dbg, &fd);
	if (!elf)
		return false;
	if (!elfsym_read_meta(elf, &m)) {
		yes = m.has_dwarf;
		free(m.debuglink);
	}
	close_elf(elf, fd);
	return yes;
}

/*
 * Parse an ELF object read from path (its file as o->path recorded it,
 * or a copy of it): symbols of the file itself and of its debug file,
 * DWARF from whichever of the two has it.  mp is what the file says
 * of itself (the caller frees it); its build-id matches o's.
 */
static int load_elf(struct symbolizer *s, struct symobj *o, Elf *elf,
		    const char *path, const struct elfmeta *mp)
{
	char *dbg = NULL;
	const char *dwpath = NULL;
	const char *object = o->path ? o->path : o->base;
	struct elfmeta meta = *mp;
	int ret;

	{
		GElf_Ehdr eh;

		if (gelf_getehdr(elf, &eh))
			o->machine = eh.e_machine;
		o->is_program = elfsym_program_entry(elf, &o->entry);
	}
	ret = elfsym_read_loads(elf, &o->loads, &o->nloads);
	if (!ret)
		ret = symindex_add_elf(&o->syms, &s->pool, elf);
	if (ret)
		goto out;
	/* Without .symtab the index holds .dynsym's exports, if any. */
	o->symbols = meta.has_symtab || meta.has_dwarf ? SYM_SYMS_FULL :
		     o->syms.n ? SYM_SYMS_EXPORTED : SYM_SYMS_NONE;
	if (path && meta.has_dwarf)
		dwpath = path;
	/* Images without a path (the vdso) can still be found by build-id. */
	if (!meta.has_dwarf || !meta.has_symtab)
		dbg = debuginfo_find(&s->inputs, path, o->path, &meta,
				     (const char *const *)s->debug_dirs,
				     s->ndebug_dirs, s->debug_root);
	/* Lines are what a server can add; symbols alone are not worth
	 * a download. */
	if (!meta.has_dwarf && !debug_has_dwarf(s, dbg)) {
		char *got = fetch(s, object, false, meta.build_id,
				  meta.build_id_len);

		if (got) {
			free(dbg);
			dbg = got;
		}
	}
	if (dbg) {
		int dfd;
		Elf *delf = open_elf(s, dbg, &dfd);
		struct elfmeta dmeta;

		if (delf && !elfsym_read_meta(delf, &dmeta)) {
			if (!meta.has_symtab)
				ret = symindex_add_elf(&o->syms, &s->pool,
						       delf);
			if (!dwpath && dmeta.has_dwarf)
				dwpath = dbg;
			if (dmeta.has_symtab || dmeta.has_dwarf)
				o->symbols = SYM_SYMS_FULL;
			free(dmeta.debuglink);
			if (!o->debug_file && !(o->debug_file = strdup(dbg)))
				ret = SYM_ENOMEM;
		}
		if (delf)
			close_elf(delf, dfd);
		if (ret)
			goto out;
	}
	ret = symindex_finish(&o->syms);
	/* The DWARF is read when first needed: symobj_dwarf(). */
	if (!ret && dwpath && !(o->dwpath = strdup(dwpath)))
		ret = SYM_ENOMEM;
out:
	free(dbg);
	return ret;
}

/*
 * Try the candidate file at path for o: SYM_OK with o loaded from it,
 * 1 when it is not o (another build-id: noted) or cannot be opened, or
 * an error of a file that is o's but broken (o->err).
 */
static int try_file(struct symbolizer *s, struct symobj *o, const char *path)
{
	struct elfmeta meta;
	int fd, ret;
	Elf *elf = open_elf(s, path, &fd);

	if (!elf && fd >= 0)
		return o->err = SYM_EELF;
	if (!elf) {
		o->open_errno = errno;
		if (errno == ENOMEM)
			o->err = SYM_ENOMEM;
		return o->err ? o->err : 1;
	}
	if (elf_kind(elf) != ELF_K_ELF) {
		close_elf(elf, fd);
		return o->err = SYM_EELF;
	}
	ret = elfsym_read_meta(elf, &meta);
	if (ret) {
		close_elf(elf, fd);
		return o->err = ret;
	}
	if (build_id_stale(o, &meta)) {
		if (!o->mismatch)
			o->mismatch = strpool_add(&s->pool, path);
		free(meta.debuglink);
		close_elf(elf, fd);
		return 1;
	}
	o->file = strdup(path);
	o->err = o->file ? load_elf(s, o, elf, path, &meta) : SYM_ENOMEM;
	free(meta.debuglink);
	close_elf(elf, fd);
	return o->err;
}

/* o in perf's build-id cache: SYM_OK, or try_file()'s 1 or error. */
static int try_cache(struct symbolizer *s, struct symobj *o)
{
	char hex[41], *path;
	size_t i;
	int ret = 1;

	for (i = 0; i < o->build_id_len && i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", o->build_id[i]);
	/* .../elf (perf since 4.x: a directory per build-id), else the
	 * older link to the file itself. */
	for (i = 0; ret > 0 && i < 2; i++) {
		if (asprintf(&path, "%s/.build-id/%.2s/%s%s", s->buildid_cache,
			     hex, hex + 2, i ? "" : "/elf") < 0)
			return o->err = SYM_ENOMEM;
		ret = try_file(s, o, path);
		free(path);
	}
	return ret;
}

/*
 * Find and load o's file: under the symfs, at its path, in perf's
 * build-id cache, from debuginfod
 * (lookup false: at its path only, for -k's vmlinux).
 */
static void load_file(struct symbolizer *s, struct symobj *o, bool lookup)
{
	char *path;
	int ret;

	if (!o->path) {
		o->err = SYM_EINVAL;
		return;
	}
	if (lookup && s->symfs) {
		if (asprintf(&path, "%s%s%s", s->symfs,
			     o->path[0] == '/' ? "" : "/", o->path) < 0) {
			o->err = SYM_ENOMEM;
			return;
		}
		ret = try_file(s, o, path);
		free(path);
		if (ret <= 0)
			return;
	}
	ret = o->no_path ? 1 : try_file(s, o, o->path);
	if (ret <= 0)
		return;
	if (lookup && s->buildid_cache && o->build_id_len) {
		ret = try_cache(s, o);
		if (ret <= 0)
			return;
	}
	path = lookup ? fetch(s, o->path, true, o->build_id,
			      o->build_id_len) : NULL;
	if (path) {
		ret = try_file(s, o, path);
		free(path);
		if (ret <= 0)
			return;
	}
	if (o->mismatch) {
		o->flags |= SYM_F_STALE;
	} else {
		o->flags |= SYM_F_NOFILE;
		o->err = o->no_path ? SYM_EUNREAD : SYM_EOPEN;
	}
}

/* Size of an ELF image in memory, from its headers. */
static size_t image_size(const unsigned char *img)
{
	const ElfW(Ehdr) *eh = (const void *)img;
	const ElfW(Phdr) *ph;
	size_t size, i;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return 0;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	ph = (const void *)(img + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_offset + ph[i].p_filesz > size)
			size = ph[i].p_offset + ph[i].p_filesz;
	return size;
}

/*
 * The vdso of this process.  It is copied because libelf may want to
 * write to the image it reads, and the vdso is mapped read-only.
 */
const void *sym_vdso_image(size_t *size)
{
	const unsigned char *img = (const void *)getauxval(AT_SYSINFO_EHDR);

	*size = img ? image_size(img) : 0;
	return *size ? img : NULL;
}

static void load_vdso(struct symbolizer *s, struct symobj *o)
{
	size_t size;
	const unsigned char *img = sym_vdso_image(&size);
	char *copy;
	Elf *elf;

	if (!size) {
		o->flags |= SYM_F_NOFILE;
		o->err = SYM_EOPEN;
		return;
	}
	copy = malloc(size);
	if (!copy) {
		o->err = SYM_ENOMEM;
		return;
	}
	memcpy(copy, img, size);
	elf = elf_memory(copy, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		o->err = SYM_EELF;
	} else {
		struct elfmeta meta;

		o->err = elfsym_read_meta(elf, &meta);
		if (!o->err && build_id_stale(o, &meta)) {
			o->flags |= SYM_F_STALE;
			free(meta.debuglink);
		} else if (!o->err) {
			o->err = load_elf(s, o, elf, NULL, &meta);
			free(meta.debuglink);
		}
	}
	elf_end(elf);
	free(copy);
}

static int load_kallsyms(struct symbolizer *s)
{
	if (!s->ks_loaded) {
		s->ks_loaded = true;
		s->ks_err = kallsyms_load(&s->ks, &s->pool, s->kallsyms_path);
	}
	return s->ks_err;
}

/*
 * vmlinux for kernel addresses.  KASLR moves the kernel: the shift is
 * where kallsyms says _text is minus where vmlinux puts it.
 */
static void load_vmlinux(struct symbolizer *s, struct symobj *o)
{
	size_t i;

	load_file(s, o, false);
	o->by_vaddr = true;
	if (o->err || !o->syms.has_text || load_kallsyms(s))
		return;
	for (i = 0; i < s->ks.n; i++)
		if (!s->ks.v[i].module && !strcmp(s->ks.v[i].name, "_text"))
			o->bias = s->ks.v[i].addr - o->syms.text_addr;
}

struct symobj *symobj_get(struct symbolizer *s, const struct sym_object *obj,
			  int *err)
{
	size_t hash, blen;
	struct symobj *o;

	/* Most queries are of the last object: no hash of its path. */
	if (s->last && obj_same(s->last, obj))
		return s->last;
	hash = obj_hash(obj);
	if (s->ntab) {
		for (o = s->tab[hash & (s->ntab - 1)]; o; o = o->next)
			if (obj_matches(o, obj, hash))
				return s->last = o;
	}
	if ((s->nobj + 1) * 2 > s->ntab && tab_grow(s)) {
		*err = SYM_ENOMEM;
		return NULL;
	}
	o = calloc(1, sizeof(*o));
	if (!o) {
		*err = SYM_ENOMEM;
		return NULL;
	}
	o->kind = obj->kind;
	o->hash = hash;
	o->no_path = !!obj->no_path;
	blen = obj->build_id ? obj->build_id_len : 0;
	if ((obj->path && !(o->path = strdup(obj->path))) ||
	    (blen && !(o->build_id = malloc(blen)))) {
		obj_free(o);
		*err = SYM_ENOMEM;
		return NULL;
	}
	if (blen)
		memcpy(o->build_id, obj->build_id, blen);
	o->build_id_len = blen;
	o->base = strpool_add(&s->pool, obj_base(obj));
	if (!o->base) {
		obj_free(o);
		*err = SYM_ENOMEM;
		return NULL;
	}
	switch (obj->kind) {
	case SYM_OBJ_FILE:
		load_file(s, o, true);
		break;
	case SYM_OBJ_VDSO:
		load_vdso(s, o);
		break;
	case SYM_OBJ_KERNEL:
		load_vmlinux(s, o);
		break;
	case SYM_OBJ_JIT:
		o->err = symobj_load_jit(o, sym_jit_find(&s->jit, o->path));
		break;
	default:
		break;
	}
	o->next = s->tab[hash & (s->ntab - 1)];
	s->tab[hash & (s->ntab - 1)] = o;
	s->nobj++;
	return s->last = o;
}

/* Read o's procs from its file or a copy of the vdso image. */
static int read_procs(struct symbolizer *s, struct symobj *o)
{
	int fd = -1, ret;
	char *copy = NULL;
	Elf *elf;

	/* Code that is not decoded has no PLT to read either. */
	if (!dec_machine_ok(o->machine))
		return SYM_ENOCODE;
	if (o->kind == SYM_OBJ_JIT)
		return SYM_OK;		/* no PLT, no unwind table */
	if (o->kind == SYM_OBJ_VDSO) {
		size_t size;
		const void *img = sym_vdso_image(&size);

		if (!img)
			return SYM_ENOCODE;
		copy = malloc(size);
		if (!copy)
			return SYM_ENOMEM;
		memcpy(copy, img, size);
		elf = elf_memory(copy, size);
		if (!elf) {
			free(copy);
			return SYM_EELF;
		}
	} else {
		if (!o->file)
			return SYM_EOPEN;
		elf = open_elf(s, o->file, &fd);
		if (!elf)
			return fd < 0 ? SYM_EOPEN : SYM_EELF;
	}
	ret = procs_read(&o->procs, &s->pool, elf, o->machine, &o->syms);
	close_elf(elf, fd);
	free(copy);
	return ret;
}

int symobj_procs(struct symbolizer *s, struct symobj *o,
		 const struct procs **out)
{
	if (!o->procs_done) {
		o->procs_done = true;
		o->procs_err = read_procs(s, o);
	}
	*out = &o->procs;
	return o->procs_err;
}

/* ---- answers ---- */

static int fallback(struct symbolizer *s, const char *base, uint64_t off,
		    struct sym_result *res)
{
	char buf[64 + 32];
	const char *name;

	snprintf(buf, sizeof(buf), "%.64s+0x%" PRIx64, base, off);
	name = strpool_add(&s->pool, buf);
	res->nframes = 1;
	/* Out of memory still needs a non-NULL function. */
	res->frames[0].function = name ? name : base;
	res->frames[0].file = NULL;
	res->frames[0].line = 0;
	res->symbol_start = off;
	return name ? SYM_OK : SYM_ENOMEM;
}

bool symobj_off_to_vaddr(const struct symobj *o, uint64_t off, uint64_t *va)
{
	size_t i;

	if (o->by_vaddr) {
		*va = off - o->bias;
		return true;
	}
	for (i = 0; i < o->nloads; i++) {
		const struct loadseg *l = &o->loads[i];

		if (off >= l->off && off - l->off < l->filesz) {
			*va = off - l->off + l->vaddr;
			return true;
		}
	}
	return false;
}

uint64_t symobj_vaddr_to_off(const struct symobj *o, uint64_t va,
			     uint64_t dflt)
{
	size_t i;

	if (o->by_vaddr)
		return va + o->bias;
	for (i = 0; i < o->nloads; i++) {
		const struct loadseg *l = &o->loads[i];

		if (va >= l->vaddr && va - l->vaddr < l->filesz)
			return va - l->vaddr + l->off;
	}
	return dflt;
}

/*
 * Answer from an object's symbol index and DWARF; false if nothing.
 * *err is set when the DWARF could not be read (out of memory).
 */
/*
 * o's DWARF, opened the first time an answer needs it (then only an
 * address -> CU index is built; CUs are read when asked about).  An
 * error sticks in o->err, as one found while loading the object would.
 */
static void symobj_dwarf(struct symbolizer *s, struct symobj *o)
{
	int ret;

	if (o->dw_done)
		return;
	o->dw_done = true;
	if (!o->dwpath)
		return;
	if (o->dw_job)
		ret = dwinfo_ahead_take(s->ahead, o->dw_job, &o->dw);
	else
		ret = dwinfo_open(&o->dw, &s->pool, o->dwpath);
	o->dw_job = NULL;
	if (ret && !o->err)
		o->err = ret;
}

bool sym_read_dwarf_ahead(struct symbolizer *s, const struct sym_object *obj,
			  const uint64_t *offs, size_t n)
{
	struct symobj *o;
	uint64_t *va;
	size_t i, k = 0;
	int ret = SYM_OK;

	if (obj->kind != SYM_OBJ_FILE)
		return false;
	o = symobj_get(s, obj, &ret);
	if (!o || o->dw_done || !o->dwpath || o->dw_job)
		return o && o->dw_job;
	va = malloc((n ? n : 1) * sizeof(*va));
	for (i = 0; va && i < n; i++)
		k += symobj_off_to_vaddr(o, offs[i], &va[k]);
	/* Out of memory: it is read when needed, as without this. */
	if (va)
		dwinfo_ahead_add(&s->ahead, &s->pool, o->dwpath, va, k,
				 &o->dw_job);
	free(va);
	return o->dw_job != NULL;
}

void sym_set_names_only(struct symbolizer *s, bool on)
{
	if (s)
		s->names_only = on;
}

/* Is vaddr va in one of o's PLT stubs? */
static bool in_plt(struct symbolizer *s, struct symobj *o, uint64_t va)
{
	const struct procs *pr;
	uint64_t start;

	return !symobj_procs(s, o, &pr) && procs_plt_stub(pr, va, &start);
}

/*
 * Name (and, with DWARF, the inline chain and line of) off in o.  Out of
 * line, code is named by the symbol table where a symbol covers it: the
 * linkage name (demangled later) that perf, nm and gdb's backtraces show,
 * clone suffixes (.part.0, .constprop.0, .cold) included.  DWARF names
 * the inlined frames inside it, and the procedure where no symbol does.
 */
static bool resolve_elf(struct symbolizer *s, struct symobj *o, uint64_t off,
			struct sym_result *res, int *err)
{
	const struct dwfunc *f;
	struct dwhit dh;
	struct symhit hit;
	bool have_sym;
	const char *name = NULL;
	uint64_t va;
	unsigned n;

	*err = SYM_OK;
	if (!symobj_off_to_vaddr(o, off, &va))
		return false;
	if (!o->by_vaddr)
		res->vaddr = va;
	have_sym = symindex_lookup(&o->syms, va, &hit);
	if (s->names_only && have_sym && hit.covered) {
		/* All a procedure row needs, without reading DWARF. */
		res->flags |= SYM_F_SYMBOL;
		res->frames[0].function = hit.name;
		res->nframes = 1;
		res->symbol_start = symobj_vaddr_to_off(o, hit.addr, off);
		return true;
	}
	if (s->names_only && in_plt(s, o, va))
		return false;	/* unnamed_code() names it, DWARF cannot */
	symobj_dwarf(s, o);
	*err = dwinfo_lookup(o->dw, va, &dh);
	f = dh.fn;
	/* A stretched symbol counts only where a line row vouches for the
	 * address being code of a function (padding, a cold tail). */
	if (have_sym && hit.stretched && !dh.has_line)
		have_sym = false;
	if (f)
		name = f->name;
	if (have_sym && (hit.covered || !name))
		res->flags |= SYM_F_SYMBOL;
	if (!name && have_sym)
		name = hit.name;
	if (!name && !dh.has_line)
		return false;
	res->frames[0].function = name;
	if (dh.has_line) {
		res->flags |= SYM_F_DWARF;
		res->frames[0].file = dh.file;
		res->frames[0].line = dh.line;
	}
	n = 1;
	/* Walk out through the inline chain, keeping the outermost. */
	while (f && f->inlined && f->parent >= 0) {
		const struct dwfunc *p = &dh.funcs[f->parent];
		struct sym_frame *fr;

		if (n == SYM_MAX_FRAMES)
			n--;
		fr = &res->frames[n++];
		fr->function = p->name ? p->name :
			       have_sym ? hit.name : "??";
		fr->file = f->call_file;
		fr->line = f->call_line;
		f = p;
	}
	res->nframes = n;
	if (have_sym && hit.covered)
		res->frames[n - 1].function = hit.name;
	if (have_sym && (hit.covered || !f))
		res->symbol_start = symobj_vaddr_to_off(o, hit.addr, off);
	else if (f)
		res->symbol_start = symobj_vaddr_to_off(o, f->entry, off);
	return true;
}

/* The name unnamed_code() gives the code of kind (1: a PLT stub to
 * target, 2: other PLT code, 3: an unwind table's procedure) at start
 * (in the pool); NULL: out of memory. */
static const char *unnamed_name(struct symbolizer *s, struct symobj *o,
				int kind, const char *target, uint64_t start,
				uint64_t sec)
{
	const char *name, *d;
	char *buf = NULL;
	int len;

	if (kind == 1) {
		d = sym_demangle(&s->pool, target);
		len = asprintf(&buf, "%s@plt", d ? d : target);
	} else if (kind == 2) {
		/* One name for the code between stubs, whatever the
		 * address in it: ".plt" from the section's start (as
		 * objdump labels a PLT without symbols), else ".plt+0xN". */
		len = sec == start ? asprintf(&buf, "%s", target) :
		      asprintf(&buf, "%s+0x%" PRIx64, target, start - sec);
	} else {
		struct symhit hit;

		/* A symbol at the entry whose size stops short of the
		 * FDE's end (hand-written code) still names the rest. */
		if (symindex_lookup(&o->syms, start, &hit) &&
		    hit.addr == start) {
			d = sym_demangle(&s->pool, hit.name);
			len = asprintf(&buf, "%s", d ? d : hit.name);
		} else if (o->is_program && start == o->entry) {
			/* The ELF header's entry point, where every
			 * stack of the program ends: crt1's _start (the
			 * reports take it as a stack's complete end). */
			len = asprintf(&buf, "_start");
		} else {
			len = asprintf(&buf, "func@0x%" PRIx64, start);
		}
	}
	if (len < 0)
		return NULL;
	name = strpool_add(&s->pool, buf);
	free(buf);
	return name;
}

/*
 * Code without a symbol of its own, named from what the object still
 * tells of it: an address in a PLT stub is "target@plt", as perf names
 * it; one inside a procedure the unwind table (.eh_frame) describes is
 * "func@0xVADDR" after that procedure's entry (the address objdump and
 * gdb show), so that stripped programs are still reported procedure by
 * procedure instead of address by address; the one at a program's
 * entry point (e_entry) is "_start".
 */
static bool unnamed_code(struct symbolizer *s, struct symobj *o, uint64_t off,
			 struct sym_result *res)
{
	const struct procs *pr;
	uint64_t va, start, sec = 0;
	const char *target = NULL, *name;
	unsigned flags;
	int kind;

	if (!symobj_off_to_vaddr(o, off, &va) || symobj_procs(s, o, &pr))
		return false;
	if ((target = procs_plt_stub(pr, va, &start)) != NULL)
		kind = 1, flags = SYM_F_PLT;
	else if ((target = procs_plt_other(pr, va, &start, &sec)) != NULL)
		kind = 2, flags = SYM_F_PLT;
	else if (procs_unwind_proc(pr, va, &start))
		kind = 3, flags = SYM_F_UNWIND;
	else
		return false;
	/* Every instruction of a procedure asks in turn (a listing). */
	if (o->unnamed_kind == kind && o->unnamed_start == start) {
		name = o->unnamed_name;
	} else {
		name = unnamed_name(s, o, kind, target, start, sec);
		if (!name)
			return false;
		o->unnamed_kind = kind;
		o->unnamed_start = start;
		o->unnamed_name = name;
	}
	memset(res->frames, 0, sizeof(res->frames[0]));
	res->frames[0].function = name;
	res->nframes = 1;
	res->flags |= flags;
	res->flags &= ~(unsigned)(SYM_F_SYMBOL | SYM_F_DWARF);
	res->symbol_start = symobj_vaddr_to_off(o, start, off);
	return true;
}

/*
 * The kernel image for obj (the kernel), for its lines and its code:
 * -k's vmlinux, else the one whose build-id is the profile's, under the
 * debug dirs and debug root or from debuginfod; NULL when there is none.
 */
const char *symbolizer_kernel_image(struct symbolizer *s,
				    const struct sym_object *obj)
{
	struct elfmeta meta = { 0 };

	if (s->vmlinux || s->kernel_looked)
		return s->vmlinux ? s->vmlinux : s->kernel_debug;
	s->kernel_looked = true;
	if (!obj->build_id || !obj->build_id_len ||
	    obj->build_id_len > sizeof(meta.build_id))
		return NULL;
	memcpy(meta.build_id, obj->build_id, obj->build_id_len);
	meta.build_id_len = obj->build_id_len;
	s->kernel_debug = debuginfo_find(&s->inputs, NULL, NULL, &meta,
					 (const char *const *)s->debug_dirs,
					 s->ndebug_dirs, s->debug_root);
	if (!s->kernel_debug)
		s->kernel_debug = fetch(s, obj->path ? obj->path :
					"[kernel.kallsyms]", false,
					obj->build_id, obj->build_id_len);
	return s->kernel_debug;
}

static int resolve_kernel(struct symbolizer *s, const struct sym_object *obj,
			  uint64_t addr, struct sym_result *res)
{
	const struct ksym *k;
	const char *image = obj->kind == SYM_OBJ_KERNEL ?
			    symbolizer_kernel_image(s, obj) : NULL;
	int ret;

	if (image) {
		/* Only ever asked for with this path: see symobj_get(). */
		struct sym_object vobj = {
			.kind = SYM_OBJ_KERNEL, .path = image,
		};
		struct symobj *o = symobj_get(s, &vobj, &ret);
		int dret;

		if (o && !o->err && resolve_elf(s, o, addr, res, &dret))
			return dret;
	}
	ret = load_kallsyms(s);
	if (ret)
		return ret;
	k = kallsyms_lookup(&s->ks, addr);
	if (!k)
		return SYM_OK;
	res->flags |= SYM_F_SYMBOL;
	res->nframes = 1;
	res->frames[0].function = k->name;
	res->symbol_start = k->addr;
	res->module = k->module;
	return SYM_OK;
}

/*
 * Symbol-table names of C++ and Rust code are mangled (_ZN3foo3barEv,
 * _RNvCs1a_3foo3bar); show them as foo::bar, as perf does.  DWARF names
 * come demangled from their linkage names already (dwarf.c).
 */
static void demangle_frames(struct symbolizer *s, struct sym_result *res)
{
	unsigned i;

	if (!s->dm)
		s->dm = calloc(DEMANGLED, sizeof(*s->dm));
	for (i = 0; i < res->nframes; i++) {
		const char *name = res->frames[i].function, *d;
		struct demangled *slot = NULL;

		if (!name || name[0] != '_' ||
		    (name[1] != 'Z' && name[1] != 'R'))
			continue;	/* not mangled: sym_demangle() says so */
		if (s->dm) {
			slot = &s->dm[(uintptr_t)name % DEMANGLED];
			if (slot->name == name) {
				res->frames[i].function = slot->d;
				continue;
			}
		}
		d = sym_demangle(&s->pool, name);
		if (!d)
			continue;
		if (slot) {
			slot->name = name;
			slot->d = d;
		}
		res->frames[i].function = d;
	}
}

static void fill_ksym(const struct symbolizer *s, const struct ksym *k,
		      struct sym_ksym *out)
{
	out->start = k->addr;
	out->end = kallsyms_end(&s->ks, k);
	out->name = k->name;
	out->module = k->module;
}

int sym_kernel_symbol(struct symbolizer *s, uint64_t addr,
		      struct sym_ksym *out)
{
	const struct ksym *k;
	int ret = load_kallsyms(s);

	if (ret)
		return ret;
	k = kallsyms_lookup(&s->ks, addr);
	if (!k)
		return 1;
	fill_ksym(s, k, out);
	return SYM_OK;
}

int sym_kernel_symbol_by_name(struct symbolizer *s, const char *name,
			      struct sym_ksym *out)
{
	int ret = load_kallsyms(s);
	size_t i;

	if (ret)
		return ret;
	for (i = 0; i < s->ks.n; i++)
		if (!s->ks.v[i].module && !strcmp(s->ks.v[i].name, name)) {
			fill_ksym(s, &s->ks.v[i], out);
			return SYM_OK;
		}
	return 1;
}

int sym_kernel_matching(struct symbolizer *s, const char *const *patterns,
			size_t npatterns, struct sym_ksym **out)
{
	struct sym_ksym *v = NULL;
	size_t n = 0, alloc = 0, i, j;
	int ret = load_kallsyms(s);

	*out = NULL;
	if (ret)
		return ret;
	for (i = 0; i < s->ks.n; i++) {
		for (j = 0; j < npatterns; j++)
			if (!fnmatch(patterns[j], s->ks.v[i].name, 0))
				break;
		if (j == npatterns)
			continue;
		if (ALLOC_GROW(v, n + 1, alloc)) {
			free(v);
			return SYM_ENOMEM;
		}
		fill_ksym(s, &s->ks.v[i], &v[n++]);
	}
	*out = v;
	return (int)n;
}

int sym_set_kernel_symbols(struct symbolizer *s, const struct sym_ksym *v,
			   size_t n)
{
	s->ks_loaded = true;
	s->ks_err = kallsyms_set(&s->ks, &s->pool, v, n);
	if (!s->ks_err && !n)
		s->ks_err = SYM_EKALLSYMS;
	return s->ks_err;
}

int sym_set_jit_symbols(struct symbolizer *s, const char *path,
			uint16_t machine, const struct sym_jitsym *v,
			size_t n)
{
	return sym_jit_add(&s->jit, &s->pool, path, machine, v, n);
}

/* The JIT symbol of obj covering addr, or NULL. */
static const struct sym_jitsym *jit_symbol(const struct symbolizer *s,
					   const struct sym_object *obj,
					   uint64_t addr)
{
	return sym_jit_symbol(sym_jit_find(&s->jit, obj->path), addr);
}

/* The kernel's stand-ins for what it could not place: per address. */
static bool stand_in(const struct sym_object *obj)
{
	return obj->path && (!strcmp(obj->path, "[unknown]") ||
			     !strcmp(obj->path, "[guest]") ||
			     !strcmp(obj->path, "[hypervisor]"));
}

/*
 * Anonymous code nothing names: one procedure for the object ("[anon]",
 * "[anon:NAME]" as the kernel names the mapping, "[memfd:NAME]", "[JIT
 * code without a name]"), so that it is one row, not one per address.
 */
static int anon_code(struct symbolizer *s, const struct sym_object *obj,
		     struct sym_result *res)
{
	const char *p = obj->path && *obj->path ? obj->path : "//anon";
	const char *name;
	char *buf;

	if (obj->kind == SYM_OBJ_JIT)
		buf = strdup("[JIT code without a name]");
	else if (!strncmp(p, "//anon", 6))
		buf = strdup("[anon]");
	else if (asprintf(&buf, "%s%s%s", *p == '[' ? "" : "[",
			  *p == '/' ? p + 1 : p, *p == '[' ? "" : "]") < 0)
		buf = NULL;
	name = buf ? strpool_add(&s->pool, buf) : NULL;
	free(buf);
	if (!name)
		return SYM_ENOMEM;
	res->nframes = 1;
	res->frames[0].function = name;
	res->frames[0].file = NULL;
	res->frames[0].line = 0;
	res->symbol_start = 0;
	res->flags |= SYM_F_ANON;
	return SYM_OK;
}

/* Whether path is dir or under it. */
static bool under(const char *path, const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return path && n && !strncmp(path, dir, n) &&
	       (path[n] == '/' || !path[n]);
}

/* Where o's source files may be read (sym_object_info.source_root):
 * the DWARF that names them is outside input, as are the paths. */
static void source_root(const struct symbolizer *s, const struct symobj *o,
			struct sym_object_info *info)
{
	if (!o->file)
		return;
	if (under(o->file, s->fetch.cache) ||
	    under(o->debug_file, s->fetch.cache)) {
		info->source_why = "its debug information came from a "
				   "debuginfod server";
	} else if (s->symfs && under(o->file, s->symfs)) {
		if (s->symfs_archive)
			info->source_why = "it was read from the profile's "
					   "own copy, which carries no source "
					   "files";
		else {
			info->source_root = s->symfs;
			info->source_here = 1;
		}
	} else {
		info->source_root = "/";
	}
}

int sym_object_info(struct symbolizer *s, const struct sym_object *obj,
		    struct sym_object_info *info)
{
	struct symobj *o;
	int ret = SYM_OK;

	memset(info, 0, sizeof(*info));
	info->symbols = SYM_SYMS_NONE;
	if (obj->kind != SYM_OBJ_FILE)
		return SYM_EINVAL;
	o = symobj_get(s, obj, &ret);
	if (!o)
		return ret;
	info->file = o->file;
	info->mismatch = o->mismatch;
	info->debug = o->debug_file;
	info->symbols = o->symbols;
	info->err = o->err;
	info->dwarf = o->dwpath != NULL;
	source_root(s, o, info);
	return SYM_OK;
}

int sym_object_error(struct symbolizer *s, const struct sym_object *obj,
		     char *why, size_t len)
{
	struct symobj *o;
	int ret = SYM_OK;
	size_t i;

	o = symobj_get(s, obj, &ret);
	if (!o) {
		snprintf(why, len, "%s", sym_strerror(ret));
		return ret;
	}
	if (o->err != SYM_EOPEN || !o->open_errno) {
		snprintf(why, len, "%s", sym_strerror(o->err));
		return o->err;
	}
	/* inputs_open() refused it as not a regular file (and noted it). */
	for (i = 0; o->open_errno == EINVAL && i < s->inputs.nskipped; i++)
		if (!strcmp(s->inputs.skipped[i].path, o->path)) {
			snprintf(why, len, "a %s, not a regular file",
				 s->inputs.skipped[i].kind);
			return o->err;
		}
	snprintf(why, len, "%s", strerror(o->open_errno));
	return o->err;
}

int sym_resolve(struct symbolizer *s, const struct sym_object *obj,
		uint64_t offset, struct sym_result *res)
{
	struct symobj *o;
	int ret = SYM_OK, fret;

	if (!res)
		return SYM_EINVAL;
	memset(res, 0, sizeof(*res));
	res->symbol_start = offset;
	res->vaddr = offset;
	if (!s || !obj) {
		res->nframes = 1;
		res->frames[0].function = "??";
		return SYM_EINVAL;
	}
	switch (obj->kind) {
	case SYM_OBJ_FILE:
	case SYM_OBJ_VDSO:
		o = symobj_get(s, obj, &ret);
		if (!o)
			break;
		res->flags |= o->flags;
		if (!(o->flags & SYM_F_STALE)) {
			int dret;
			bool found = resolve_elf(s, o, offset, res, &dret);

			/* Running out of memory reading a CU sticks. */
			if (dret && !o->err)
				o->err = dret;
			if (found) {
				demangle_frames(s, res);
				return o->err;
			}
			if (unnamed_code(s, o, offset, res))
				return o->err;
		}
		ret = o->err;
		break;
	case SYM_OBJ_KERNEL:
	case SYM_OBJ_MODULE:
		ret = resolve_kernel(s, obj, offset, res);
		if (res->nframes)
			return ret;
		break;
	case SYM_OBJ_JIT: {
		const struct sym_jitsym *j = jit_symbol(s, obj, offset);

		if (j) {
			res->nframes = 1;
			res->frames[0].function = j->name;
			res->frames[0].file = sym_jit_line(j, offset,
						&res->frames[0].line);
			res->symbol_start = j->start;
			res->flags |= SYM_F_SYMBOL | SYM_F_JIT |
				      (res->frames[0].file ? SYM_F_DWARF : 0);
			return SYM_OK;
		}
		return anon_code(s, obj, res);
	}
	case SYM_OBJ_PYTHON: {
		const struct sym_jitsym *j = jit_symbol(s, obj, offset);
		unsigned line = (unsigned)(offset &
					   ((1u << SYM_PY_LINE_BITS) - 1));

		if (!j)
			return anon_code(s, obj, res);
		res->nframes = 1;
		res->frames[0].function = j->name;
		res->frames[0].file = obj->path;
		res->frames[0].line = line;
		res->symbol_start = j->start;
		res->flags |= SYM_F_SYMBOL | (line ? SYM_F_DWARF : 0);
		return SYM_OK;
	}
	case SYM_OBJ_ANON:
		if (!stand_in(obj))
			return anon_code(s, obj, res);
		break;
	default:
		ret = SYM_EINVAL;
		break;
	}
	res->flags &= ~(unsigned)(SYM_F_SYMBOL | SYM_F_DWARF);
	fret = fallback(s, obj_base(obj), offset, res);
	return ret ? ret : fret;
}
