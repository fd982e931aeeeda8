// SPDX-License-Identifier: MIT
/*
 * ELF side of the symbolizer: build-id and debuglink notes, PT_LOAD
 * segments, and one sorted index over .symtab and .dynsym.  The build-id
 * itself is read by common/util/buildid.c, which the collector uses too.
 */
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/buildid.h"
#include "common/util/bytes.h"
#include "symbolize_int.h"

/* .gnu_debuglink: the debug file's name, NUL, padding to 4 bytes, then
 * its CRC-32 in the object's byte order. */
static void read_debuglink(Elf *elf, Elf_Scn *scn, struct elfmeta *meta)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const char *ident, *name;
	struct bytes b;
	uint32_t crc;
	size_t nlen;

	if (!data || !data->d_buf || data->d_size < 5)
		return;
	b = bytes_of(data->d_buf, data->d_size);
	name = bytes_str(&b);
	nlen = name ? strlen(name) : 0;
	bytes_skip(&b, (4 - (nlen + 1) % 4) % 4);
	ident = elf_getident(elf, NULL);
	crc = (uint32_t)bytes_uo(&b, 4, ident && ident[EI_DATA] == ELFDATA2MSB);
	if (b.bad || nlen == 0)
		return;
	meta->debuglink = strndup(name, nlen);
	meta->debuglink_crc = crc;
}

int elfsym_read_meta(void *handle, struct elfmeta *meta)
{
	Elf *elf = handle;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int ret;

	memset(meta, 0, sizeof(*meta));
	if (elf_kind(elf) != ELF_K_ELF)
		return SYM_EELF;
	ret = buildid_read_elf(elf, meta->build_id, sizeof(meta->build_id));
	if (ret > 0)
		meta->build_id_len = (size_t)ret;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return SYM_OK;	/* no sections: nothing more to learn */
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			meta->has_symtab = true;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".gnu_debuglink") && !meta->debuglink)
			read_debuglink(elf, scn, meta);
		else if ((!strcmp(name, ".debug_info") ||
			  !strcmp(name, ".zdebug_info")) &&
			 sh.sh_type != SHT_NOBITS && sh.sh_size > 0)
			meta->has_dwarf = true;
	}
	return SYM_OK;
}

int elfsym_read_loads(void *handle, struct loadseg **loads, size_t *nloads)
{
	Elf *elf = handle;
	struct loadseg *v = NULL;
	size_t i, n, nv = 0, av = 0;

	*loads = NULL;
	*nloads = 0;
	if (elf_getphdrnum(elf, &n) != 0)
		return SYM_OK;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ALLOC_GROW(v, nv + 1, av)) {
			free(v);
			return SYM_ENOMEM;
		}
		v[nv].off = ph.p_offset;
		v[nv].filesz = ph.p_filesz;
		v[nv].vaddr = ph.p_vaddr;
		nv++;
	}
	*loads = v;
	*nloads = nv;
	return SYM_OK;
}

/* A PIE without an interpreter (static-pie) says it is one in its
 * dynamic section: DT_FLAGS_1 with DF_1_PIE. */
static bool flagged_pie(Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;

			if (!gelf_getdyn(data, (int)i, &dyn) ||
			    dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE))
				return true;
		}
	}
	return false;
}

bool elfsym_program_entry(void *handle, uint64_t *entry)
{
	Elf *elf = handle;
	GElf_Ehdr eh;
	size_t i, n;

	if (!gelf_getehdr(elf, &eh) || !eh.e_entry)
		return false;
	*entry = eh.e_entry;
	if (eh.e_type == ET_EXEC)
		return true;
	if (eh.e_type != ET_DYN)
		return false;
	if (elf_getphdrnum(elf, &n) == 0)
		for (i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) &&
			    ph.p_type == PT_INTERP)
				return true;
		}
	return flagged_pie(elf);
}

/* What we need of a section to decide whether a symbol can be used. */
struct secinfo {
	uint64_t addr, end;
	bool alloc;
};

/*
 * How good a name sym is for its address, of the several a symbol table
 * may give one address (higher is better): a sized symbol, then a
 * function, then a global name, then a local one, then a weak alias
 * (qsort_r is a weak alias of the local __qsort_r, the name DWARF and
 * the source give), and last a name of an old version of the symbol
 * (clock_gettime@GLIBC_2.2.5, with ver).
 */
static uint8_t sym_rank(const GElf_Sym *sym, bool old_version)
{
	uint8_t rank = 0;
	int type = GELF_ST_TYPE(sym->st_info);

	if (sym->st_size > 0)
		rank |= 16;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		rank |= 8;
	if (old_version)
		return rank;
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		rank |= 3;
		break;
	case STB_WEAK:
		rank |= 1;
		break;
	default:
		rank |= 2;
		break;
	}
	return rank;
}

static bool sym_usable(const GElf_Sym *sym, const char *name,
		       const struct secinfo *secs, size_t nsecs)
{
	int type = GELF_ST_TYPE(sym->st_info);

	if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
		return false;
	if (!name || !*name)
		return false;
	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE ||
	    sym->st_shndx >= nsecs || !secs[sym->st_shndx].alloc)
		return false;
	/*
	 * Local hidden zero-size NOTYPE symbols are annotation markers
	 * (annobin), not code; binutils ignores them too.
	 */
	if (type == STT_NOTYPE && sym->st_size == 0 &&
	    GELF_ST_BIND(sym->st_info) == STB_LOCAL &&
	    GELF_ST_VISIBILITY(sym->st_other) == STV_HIDDEN)
		return false;
	return true;
}

static int add_symtab(struct symindex *si, struct strpool *sp, Elf *elf,
		      Elf_Scn *scn, const GElf_Shdr *sh,
		      const struct secinfo *secs, size_t nsecs)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;

	if (sh->sh_type == SHT_NOBITS || !data || !data->d_buf ||
	    !sh->sh_entsize)
		return SYM_OK;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name, *at;
		struct esym *e;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!sym_usable(&sym, name, secs, nsecs))
			continue;
		if (!si->has_text && !strcmp(name, "_text")) {
			si->has_text = true;
			si->text_addr = sym.st_value;
		}
		if (ALLOC_GROW(si->v, si->n + 1, si->alloc))
			return SYM_ENOMEM;
		e = &si->v[si->n];
		/* A versioned name of a debug file's .symtab is shown as
		 * the name the program calls: __libc_start_main@@GLIBC_2.34
		 * is __libc_start_main (.dynsym's names carry no version). */
		at = strchr(name, '@');
		e->name = at ? strpool_intern(sp, name, (size_t)(at - name)) :
			  strpool_add(sp, name);
		if (!e->name)
			return SYM_ENOMEM;
		e->addr = sym.st_value;
		e->size = sym.st_size;
		e->sec_end = secs[sym.st_shndx].end;
		e->rank = sym_rank(&sym, at && at[1] != '@');
		e->ifunc = NULL;
		e->ifunc_rank = GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC ? 0 :
				GELF_ST_BIND(sym.st_info) == STB_LOCAL ? 1 : 2;
		e->order = si->n;
		si->n++;
	}
	return SYM_OK;
}

int symindex_add_elf(struct symindex *si, struct strpool *sp, void *handle)
{
	Elf *elf = handle;
	Elf_Scn *scn = NULL;
	struct secinfo *secs;
	size_t nsecs, i;
	int ret = SYM_OK;

	if (elf_getshdrnum(elf, &nsecs) != 0 || nsecs == 0)
		return SYM_OK;
	secs = calloc(nsecs, sizeof(*secs));
	if (!secs)
		return SYM_ENOMEM;
	for (i = 1; i < nsecs; i++) {
		GElf_Shdr sh;

		scn = elf_getscn(elf, i);
		if (!scn || !gelf_getshdr(scn, &sh))
			continue;
		secs[i].addr = sh.sh_addr;
		secs[i].end = sh.sh_addr + sh.sh_size;
		secs[i].alloc = (sh.sh_flags & SHF_ALLOC) != 0;
	}
	scn = NULL;
	while (ret == SYM_OK && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
			ret = add_symtab(si, sp, elf, scn, &sh, secs, nsecs);
	}
	free(secs);
	return ret;
}

static int esym_cmp(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;
	size_t ux, uy;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	/* Then the public name over internal ones (fewer leading
	 * underscores), then the first in symbol table order, as binutils
	 * does. */
	ux = strspn(x->name, "_");
	uy = strspn(y->name, "_");
	if (ux != uy)
		return ux < uy ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * Whether IFUNC symbol x names a call better than y: the name callers
 * use (exported, strnlen) over glibc's internal aliases (__GI_strnlen),
 * then fewer leading underscores, then the first.
 */
static bool ifunc_better(const struct esym *x, const struct esym *y)
{
	size_t ux, uy;

	if (x->ifunc_rank != y->ifunc_rank)
		return x->ifunc_rank > y->ifunc_rank;
	ux = strspn(x->name, "_");
	uy = strspn(y->name, "_");
	if (ux != uy)
		return ux < uy;
	return x->order < y->order;
}

/* Sort, keep the best symbol per address (and the IFUNC that names calls
 * to it), precompute the prefix max. */
int symindex_finish(struct symindex *si)
{
	size_t i, n = 0;
	uint64_t maxend = 0;
	const struct esym *best_ifunc = NULL;

	if (!si->n)
		return SYM_OK;
	qsort(si->v, si->n, sizeof(*si->v), esym_cmp);
	for (i = 0; i < si->n; i++) {
		const struct esym *e = &si->v[i];

		if (!n || si->v[n - 1].addr != e->addr) {
			best_ifunc = NULL;
			si->v[n++] = *e;
		}
		if (e->ifunc_rank &&
		    (!best_ifunc || ifunc_better(e, best_ifunc))) {
			best_ifunc = e;
			si->v[n - 1].ifunc = e->name;
		}
	}
	si->n = n;
	si->maxend = malloc(n * sizeof(*si->maxend));
	if (!si->maxend)
		return SYM_ENOMEM;
	for (i = 0; i < n; i++) {
		uint64_t end = si->v[i].addr + si->v[i].size;

		if (end > maxend)
			maxend = end;
		si->maxend[i] = maxend;
	}
	return SYM_OK;
}

/*
 * The sized symbol with the nearest start that contains addr wins.  When
 * none does, the nearest preceding symbol within its section is returned;
 * if it is sized (so it ends before addr) hit->stretched is set and the
 * caller must not trust it alone: in a stripped library the exported
 * symbols are sparse, and stretching them charges the local functions
 * between them (say libcrypto's SHA-256 code) to an unrelated export
 * (SHA1_Init).  perf does not stretch either; binutils does.
 */
bool symindex_lookup(const struct symindex *si, uint64_t addr,
		     struct symhit *hit)
{
	size_t lo = 0, hi = si->n, i;
	const struct esym *e;

	if (!si->maxend)
		return false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (si->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	for (i = lo; i-- > 0 && si->maxend[i] > addr;) {
		e = &si->v[i];
		if (e->size && addr < e->addr + e->size) {
			hit->name = e->name;
			hit->ifunc = e->ifunc;
			hit->addr = e->addr;
			hit->covered = true;
			hit->stretched = false;
			hit->end = e->addr + e->size;
			return true;
		}
	}
	e = &si->v[lo - 1];
	if (addr >= e->sec_end)
		return false;
	hit->stretched = e->size != 0;
	hit->name = e->name;
	hit->ifunc = e->ifunc;
	hit->addr = e->addr;
	hit->covered = e->addr == addr;
	hit->end = e->sec_end;
	if (lo < si->n && si->v[lo].addr < hit->end)
		hit->end = si->v[lo].addr;
	return true;
}

void symindex_release(struct symindex *si)
{
	free(si->v);
	free(si->maxend);
	memset(si, 0, sizeof(*si));
}
