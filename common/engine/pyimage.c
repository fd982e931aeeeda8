/* SPDX-License-Identifier: MIT */
/*
 * Finding a process's CPython (pyframes.h): its image in the maps, the
 * ELF symbols and version that give its layout, py_open() and the rest of
 * a py_proc's life.
 */

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pyframes_int.h"
#include "proc.h"
#include "common/collect/collect.h"
#include "common/util/array.h"
#include "common/util/buildid.h"
#include "common/util/error.h"

struct mapping {
	uint64_t start, end, pgoff;
	struct collect_file_id id;
	char perm[5];
	char *path;		/* NULL: anonymous */
};

struct maps {
	struct mapping *m;
	size_t n, alloc;
};

static void maps_free(struct maps *ms)
{
	size_t i;

	for (i = 0; i < ms->n; i++)
		free(ms->m[i].path);
	free(ms->m);
}

static int maps_read(pid_t pid, struct maps *ms)
{
	char path[64], line[4352];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT || errno == ESRCH ?
			prof_fail(PROF_ENOENT, "no process %d", (int)pid) :
			prof_fail(errno == EACCES ? PROF_EPERM : PROF_EIO,
				  "cannot read %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, ino;
		unsigned maj, min;
		struct mapping *m;
		char perm[8];
		int at = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu%n", &lo, &hi,
			   perm, &off, &maj, &min, &ino, &at) < 7 || hi <= lo)
			continue;
		if (ALLOC_GROW(ms->m, ms->n + 1, ms->alloc)) {
			fclose(f);
			return -PROF_ENOMEM;
		}
		m = &ms->m[ms->n++];
		memset(m, 0, sizeof(*m));
		m->start = lo;
		m->end = hi;
		m->pgoff = off;
		m->id = (struct collect_file_id){ maj, min, ino };
		snprintf(m->perm, sizeof(m->perm), "%.4s", perm);
		while (line[at] == ' ')
			at++;
		line[strcspn(line, "\n")] = '\0';
		if (ino && line[at] == '/' && !(m->path = strdup(line + at))) {
			fclose(f);
			return -PROF_ENOMEM;
		}
	}
	fclose(f);
	if (!ms->n)
		return prof_fail(py_process_gone(pid) ? PROF_ENOENT : PROF_EIO,
				 "process %d has no mappings (exited?)",
				 (int)pid);
	return 0;
}

static bool same_file(const struct mapping *a, const struct mapping *b)
{
	return a->id.maj == b->id.maj && a->id.min == b->id.min &&
	       a->id.ino == b->id.ino;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* How likely a mapped file is CPython's image: 1 a libpython, 2 a
 * python executable, 0 neither. */
static int image_rank(const struct mapping *m)
{
	const char *b;

	if (!m->path)
		return 0;
	b = base_name(m->path);
	if (!strncmp(b, "libpython", 9))
		return 1;
	return strncmp(b, "python", 6) ? 0 : 2;
}

/* The symbols read from the image (value, size; found). */
enum { S_RUNTIME, S_VERSION, S_CODE, S_STR, S_BYTES, S_EVAL, S_FRAME, S_N };
static const char *const sym_names[S_N] = {
	[S_RUNTIME] = "_PyRuntime",
	[S_VERSION] = "Py_Version",
	[S_CODE] = "PyCode_Type",
	[S_STR] = "PyUnicode_Type",
	[S_BYTES] = "PyBytes_Type",
	[S_EVAL] = "_PyEval_EvalFrameDefault",
	[S_FRAME] = "PyFrame_Type",
};

struct image {
	uint16_t machine, type;
	uint64_t value[S_N], size[S_N];
	bool found[S_N];
	/* The first PT_LOAD (lowest address): what the load bias is
	 * computed from. */
	uint64_t load_vaddr, load_offset;
	bool has_load;
};

static void scan_symbols(Elf *elf, Elf_Scn *scn, struct image *im)
{
	GElf_Shdr sh;
	Elf_Data *data;
	size_t i, n;

	if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
	    !(data = elf_getdata(scn, NULL)))
		return;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int k;

		if (!gelf_getsym(data, (int)i, &sym) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value ||
		    !(name = elf_strptr(elf, sh.sh_link, sym.st_name)))
			continue;
		for (k = 0; k < S_N; k++)
			if (!im->found[k] && !strcmp(name, sym_names[k])) {
				im->value[k] = sym.st_value;
				im->size[k] = sym.st_size;
				im->found[k] = true;
			}
	}
}

/* The symbols and first PT_LOAD of the ELF object open at fd: 0, or
 * -1 when it is no 64-bit little-endian ELF object libelf reads. */
static int read_image(int fd, struct image *im)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t i, nph;
	Elf *elf;
	int pass;

	memset(im, 0, sizeof(*im));
	buildid_elf_version();
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		elf_end(elf);
		return -1;
	}
	im->machine = eh.e_machine;
	im->type = eh.e_type;
	/* The dynamic symbols first (what the loader sees), the full table
	 * of an unstripped image after them. */
	for (pass = 0; pass < 2; pass++)
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) &&
			    sh.sh_type == (pass ? SHT_SYMTAB : SHT_DYNSYM))
				scan_symbols(elf, scn, im);
		}
	if (!elf_getphdrnum(elf, &nph))
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) ||
			    ph.p_type != PT_LOAD ||
			    (im->has_load && ph.p_vaddr >= im->load_vaddr))
				continue;
			im->load_vaddr = ph.p_vaddr;
			im->load_offset = ph.p_offset;
			im->has_load = true;
		}
	elf_end(elf);
	return 0;
}

/*
 * The load bias of the image whose mappings are those of file f: the
 * first PT_LOAD is mapped from its page-aligned file offset at its
 * page-aligned address plus the bias (its lowest such mapping).
 */
static int load_bias(const struct maps *ms, const struct mapping *f,
		     const struct image *im, uint64_t *bias)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t off = im->load_offset & ~(page - 1);
	uint64_t vaddr = im->load_vaddr & ~(page - 1);
	const struct mapping *best = NULL;
	size_t i;

	for (i = 0; i < ms->n; i++) {
		const struct mapping *m = &ms->m[i];

		if (same_file(m, f) && m->pgoff == off &&
		    (!best || m->start < best->start))
			best = m;
	}
	if (!im->has_load || !best)
		return -1;
	*bias = best->start - vaddr;
	/* An executable that is not position-independent is where it was
	 * linked. */
	return im->type == ET_EXEC && *bias ? -1 : 0;
}

/* Whether writable mappings cover [addr, addr + len) without a gap. */
static bool in_writable(const struct maps *ms, uint64_t addr, uint64_t len)
{
	uint64_t at = addr, end = addr + len;
	size_t i;

	if (end < addr)
		return false;
	while (at < end) {
		for (i = 0; i < ms->n; i++)
			if (ms->m[i].start <= at && at < ms->m[i].end &&
			    ms->m[i].perm[1] == 'w')
				break;
		if (i == ms->n)
			return false;
		at = ms->m[i].end;
	}
	return true;
}

/* The minor version in a file name "libpython3.10.so.1.0",
 * "python3.9": 0 when it says none. */
static unsigned minor_from_name(const char *path)
{
	const char *s = strstr(base_name(path), "python3.");
	unsigned minor = 0;

	if (!s)
		return 0;
	for (s += 8; *s >= '0' && *s <= '9' && minor < 1000; s++)
		minor = minor * 10 + (unsigned)(*s - '0');
	return minor;
}

/* The version of the image at bias (PY_VERSION_HEX in *hex, 0 when only
 * the name tells the minor version, in *minor). */
static int image_version(struct py_proc *p, const struct mapping *f,
			 const struct image *im, uint64_t bias,
			 uint32_t *hex, unsigned *minor)
{
	uint8_t buf[8];
	int rc;

	*hex = 0;
	*minor = 0;
	if (im->found[S_VERSION]) {
		rc = py_mem_read(p, bias + im->value[S_VERSION], buf, sizeof(buf),
			"Py_Version");
		if (rc)
			return rc;
		*hex = (uint32_t)py_word(buf, sizeof(buf), 0, 4);
		if (*hex >> 24 != 3)
			return prof_fail(PROF_EUNAVAIL, "process %d: %s: "
					 "Py_Version %#" PRIx32 " is no "
					 "CPython 3", (int)p->info.pid,
					 f->path, *hex);
		*minor = (*hex >> 16) & 0xff;
		return 0;
	}
	*minor = minor_from_name(f->path);
	if (!*minor)
		return prof_fail(PROF_EUNAVAIL, "process %d: %s: CPython of "
				 "unknown version (no Py_Version, no version "
				 "in the name)", (int)p->info.pid, f->path);
	return 0;
}

static const char *machine_name(uint16_t m)
{
	switch (m) {
	case EM_X86_64:
		return "x86-64";
	case EM_AARCH64:
		return "AArch64";
	case EM_386:
		return "i386";
	default:
		return "another machine";
	}
}

void py_version_text(uint32_t version, char *buf, size_t len)
{
	if (version & 0xf0)
		snprintf(buf, len, "3.%u.%u", (version >> 16) & 0xff,
			 (version >> 8) & 0xff);
	else
		snprintf(buf, len, "3.%u", (version >> 16) & 0xff);
}

/* Whether the image must export symbol k for layout l. */
static bool sym_needed(const struct layout *l, int k)
{
	return k == S_FRAME ? l->frame_objects : k != S_VERSION && k != S_EVAL;
}

/* Check the image's version and symbols against a layout known and fill
 * p from them. */
static int use_image(struct py_proc *p, const struct maps *ms,
		     const struct mapping *f, const struct image *im,
		     uint64_t bias)
{
	const struct layout *l;
	unsigned minor;
	uint32_t hex;
	char v[32];
	int rc, k;

	rc = image_version(p, f, im, bias, &hex, &minor);
	if (rc)
		return rc;
	p->info.version = hex ? hex : 0x03000000u | (minor << 16);
	py_version_text(p->info.version, v, sizeof(v));
	l = py_layout_of(minor);
	if (!l)
		return prof_fail(PROF_EUNAVAIL, "CPython %s: layout not known "
				 "(process %d, %s)", v, (int)p->info.pid,
				 f->path);
	if (im->machine != l->machine)
		return prof_fail(PROF_EUNAVAIL, "CPython %s for %s: layout not "
				 "known (process %d, %s)", v,
				 machine_name(im->machine), (int)p->info.pid,
				 f->path);
	p->lay = *l;
	l = p->l = &p->lay;
	if (l->debug_offsets) {
		if (!in_writable(ms, bias + im->value[S_RUNTIME], DEBUG_LEN))
			return prof_fail(PROF_EFORMAT, "process %d: _PyRuntime "
					 "at %#" PRIx64 " is in no writable "
					 "mapping (%s)", (int)p->info.pid,
					 bias + im->value[S_RUNTIME], f->path);
		rc = py_read_debug_offsets(p, bias + im->value[S_RUNTIME], hex,
					v);
		if (rc)
			return rc;
	}
	if (py_set_extents(p, l))
		return prof_fail(PROF_EUNAVAIL, "CPython %s: the layout %s is "
				 "wrong (a struct read past %d bytes)", v,
				 l->debug_offsets ? "it publishes" : "table",
				 HEADER_MAX);
	if (im->size[S_RUNTIME] != l->runtime_size)
		return prof_fail(PROF_EUNAVAIL, "CPython %s: _PyRuntime is "
				 "%" PRIu64 " bytes, not the %" PRIu32 " of the "
				 "layout known (process %d, %s)", v,
				 im->size[S_RUNTIME], l->runtime_size,
				 (int)p->info.pid, f->path);
	for (k = 0; k < S_N; k++)
		if (!im->found[k] && sym_needed(l, k))
			return prof_fail(PROF_EUNAVAIL, "CPython %s: %s does "
					 "not export %s", v, f->path,
					 sym_names[k]);
	if (!in_writable(ms, bias + im->value[S_RUNTIME], l->runtime_size))
		return prof_fail(PROF_EFORMAT, "process %d: _PyRuntime at "
				 "%#" PRIx64 " is in no writable mapping "
				 "(%s)", (int)p->info.pid,
				 bias + im->value[S_RUNTIME], f->path);
	p->info.runtime = bias + im->value[S_RUNTIME];
	if (im->found[S_EVAL]) {
		p->info.eval_start = bias + im->value[S_EVAL];
		p->info.eval_end = p->info.eval_start + im->size[S_EVAL];
	}
	p->code_type = bias + im->value[S_CODE];
	p->str_type = bias + im->value[S_STR];
	p->bytes_type = bias + im->value[S_BYTES];
	p->frame_type = bias + im->value[S_FRAME];
	if (!(p->image = strdup(f->path)))
		return -PROF_ENOMEM;
	p->info.image = p->image;
	/* 3.9, 3.10: where the thread ids are, now if CPython has
	 * started, else at the first walk. */
	rc = l->frame_objects ? py_tid_calibrate(p) : 0;
	return rc == -PROF_ENOENT ? 0 : rc;
}

/*
 * Try the file of mapping f as the image: 0 when it is a CPython whose
 * layout is known (p filled), 1 when it holds no _PyRuntime (try the
 * next), a negative error else.
 */
static int try_image(struct py_proc *p, const struct maps *ms,
		     const struct mapping *f)
{
	enum proc_file_state state;
	struct image im;
	uint64_t bias;
	int fd, rc;

	fd = proc_mapped_file(p->info.pid, f->start, f->end, f->path, &f->id,
			      &state);
	if (fd < 0)
		return 1;
	rc = read_image(fd, &im);
	close(fd);
	if (rc || !im.found[S_RUNTIME])
		return 1;
	if (load_bias(ms, f, &im, &bias))
		return prof_fail(PROF_EFORMAT, "process %d: %s: cannot tell "
				 "where it is loaded", (int)p->info.pid,
				 f->path);
	return use_image(p, ms, f, &im, bias);
}

/* Each mapped file that may be CPython's image, most likely first, until
 * one holds _PyRuntime. */
static int find_image(struct py_proc *p, const struct maps *ms)
{
	int rank, rc;
	size_t i, j;

	for (rank = 1; rank <= 2; rank++)
		for (i = 0; i < ms->n; i++) {
			const struct mapping *m = &ms->m[i];

			if (image_rank(m) != rank)
				continue;
			/* Each file once: its first mapping. */
			for (j = 0; j < i && !same_file(&ms->m[j], m); j++)
				;
			if (j < i)
				continue;
			rc = try_image(p, ms, m);
			if (rc <= 0)
				return rc;
		}
	if (py_process_gone(p->info.pid))
		return prof_fail(PROF_ENOENT, "process %d has exited",
				 (int)p->info.pid);
	return prof_fail(PROF_ENOENT, "process %d: no CPython found (no "
			 "python or libpython file it maps exports "
			 "_PyRuntime)", (int)p->info.pid);
}

int py_open(pid_t pid, struct py_proc **out)
{
	struct maps ms = { NULL, 0, 0 };
	struct py_proc *p;
	int rc;

	*out = NULL;
	if (pid <= 0)
		return prof_fail(PROF_EINVAL, "no process %d", (int)pid);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -PROF_ENOMEM;
	p->info.pid = pid;
	p->tid_off = NONE;
	strpool_init(&p->strings);
	rc = maps_read(pid, &ms);
	if (!rc)
		rc = find_image(p, &ms);
	maps_free(&ms);
	if (rc) {
		py_close(p);
		return rc;
	}
	*out = p;
	return 0;
}

void py_close(struct py_proc *p)
{
	if (!p)
		return;
	py_codes_clear(p);
	free(p->codes);
	strpool_release(&p->strings);
	free(p->image);
	free(p);
}

const struct py_info *py_info(const struct py_proc *p)
{
	return &p->info;
}

bool py_exited(const struct py_proc *p)
{
	return p->exited;
}
