// SPDX-License-Identifier: MIT
/*
 * What an object tells of its procedures besides its symbols (contract
 * in symbolize_int.h): the extents its unwind table (.eh_frame) gives,
 * so that stripped code is still told apart procedure by procedure, and
 * its PLT stubs, named after the function each jumps to.  Read once per
 * object; the symbolizer names code with them and blocks.c cuts
 * procedures with them.  Below symbolize.c: it is handed an open ELF
 * handle, a string pool and the object's symbol index (which names the
 * IFUNCs of IRELATIVE slots), and calls nothing above it.
 */
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/bytes.h"
#include "common/util/cfi.h"
#include "decode.h"
#include "symbolize_int.h"

/* A PLT stub is 16 bytes on AArch64 and on x86-64 unless its section
 * says otherwise (.plt.got entries without IBT are 8). */
#define PLT_STUB_SIZE 16

void procs_release(struct procs *p)
{
	free(p->fdes);
	free(p->plt);
	free(p->got);
	memset(p, 0, sizeof(*p));
}

/* ---- .eh_frame: procedure extents of stripped code ---- */

static int fde_cmp(const void *a, const void *b)
{
	const struct fde_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Every FDE's extent, through the reader the unwinder shares (cfi.h). */
static int read_eh_frame(struct procs *pr, const unsigned char *d,
			 size_t size, uint64_t secaddr)
{
	/* FDEs here are absolute or pcrel: no data base. */
	const struct cfi_bases bases = { .at = d, .at_vaddr = secaddr };
	const unsigned char *p = d, *end = d + size;

	while ((size_t)(end - p) >= 8) {
		struct bytes r = { p, end, 0 };
		const unsigned char *next;
		struct cfi_fde f;
		bool wide;

		if (cfi_entry(&r, &next, &wide) != 1)
			break;		/* the terminator, or cut short */
		if (!wide && cfi_fde_read(d, p, end, &bases, &f) == 1 &&
		    f.start && f.range) {
			if (ALLOC_GROW(pr->fdes, pr->nfdes + 1, pr->afdes))
				return SYM_ENOMEM;
			pr->fdes[pr->nfdes].lo = f.start;
			pr->fdes[pr->nfdes].hi = f.start + f.range;
			pr->nfdes++;
		}
		p = next;
	}
	if (pr->nfdes > 1)
		qsort(pr->fdes, pr->nfdes, sizeof(*pr->fdes), fde_cmp);
	return SYM_OK;
}

const struct fde_range *procs_fde(const struct procs *p, uint64_t va)
{
	size_t lo = 0, hi = p->nfdes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->fdes[mid].lo <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Nested or overlapping FDEs do not occur in practice. */
	if (lo && va < p->fdes[lo - 1].hi)
		return &p->fdes[lo - 1];
	return NULL;
}

/* ---- PLT stubs: a call to one is named by its .rela.plt symbol ---- */

static int gotname_cmp(const void *a, const void *b)
{
	const struct gotname *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

static int plt_cmp(const void *a, const void *b)
{
	const struct plt_ent *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/*
 * The name of an IFUNC's slot: an IRELATIVE relocation has no symbol,
 * its addend is the resolver's address.  The symbol there names it (the
 * IFUNC symbol itself when there is one: strlen, not its resolver), else
 * "*ABS*+0xADDR" as objdump has it.
 */
static const char *ifunc_name(struct strpool *sp, const struct symindex *syms,
			      uint64_t resolver)
{
	struct symhit hit;
	char buf[48];

	if (syms && symindex_lookup(syms, resolver, &hit) &&
	    hit.addr == resolver)
		return strpool_add(sp, hit.ifunc ? hit.ifunc : hit.name);
	snprintf(buf, sizeof(buf), "*ABS*+0x%" PRIx64, resolver);
	return strpool_add(sp, buf);
}

static bool is_irelative(uint16_t machine, uint64_t type)
{
	return (machine == EM_X86_64 && type == R_X86_64_IRELATIVE) ||
	       (machine == EM_AARCH64 && type == R_AARCH64_IRELATIVE);
}

/*
 * GOT slot -> symbol name, from every SHT_RELA section: the symbol of
 * each relocation that has one, the IFUNC of each IRELATIVE one.
 */
static int read_relocs(Elf *elf, uint16_t machine, struct strpool *sp,
		       const struct symindex *syms, struct gotname **out,
		       size_t *nout)
{
	struct gotname *v = NULL;
	size_t n = 0, a = 0;
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh, symsh;
		Elf_Data *data, *symdata = NULL;
		Elf_Scn *symscn = NULL;
		size_t i, cnt;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		/* A static program's .rela.plt (IRELATIVE only) links to
		 * no symbol table. */
		if (sh.sh_link && (symscn = elf_getscn(elf, sh.sh_link)) &&
		    gelf_getshdr(symscn, &symsh))
			symdata = elf_getdata(symscn, NULL);
		cnt = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < cnt; i++) {
			GElf_Rela rela;
			GElf_Sym sym;
			const char *name;

			if (!gelf_getrela(data, (int)i, &rela))
				break;
			if (!GELF_R_SYM(rela.r_info) &&
			    is_irelative(machine, GELF_R_TYPE(rela.r_info))) {
				name = ifunc_name(sp, syms,
						  (uint64_t)rela.r_addend);
				if (!name) {
					free(v);
					return SYM_ENOMEM;
				}
			} else {
				if (!symdata || !GELF_R_SYM(rela.r_info) ||
				    !gelf_getsym(symdata,
						 (int)GELF_R_SYM(rela.r_info),
						 &sym))
					continue;
				name = elf_strptr(elf, symsh.sh_link,
						  sym.st_name);
				if (!name || !*name)
					continue;
				name = strpool_add(sp, name);
				if (!name) {
					free(v);
					return SYM_ENOMEM;
				}
			}
			if (ALLOC_GROW(v, n + 1, a)) {
				free(v);
				return SYM_ENOMEM;
			}
			v[n].got = rela.r_offset;
			v[n].name = name;
			n++;
		}
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), gotname_cmp);
	*out = v;
	*nout = n;
	return SYM_OK;
}

static const char *got_lookup(const struct gotname *v, size_t n, uint64_t got)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].got < got)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].got == got ? v[lo].name : NULL;
}

static int add_plt(struct procs *p, uint64_t va, uint64_t size,
		   const char *name)
{
	if (!name)
		return SYM_OK;
	if (ALLOC_GROW(p->plt, p->nplt + 1, p->aplt))
		return SYM_ENOMEM;
	p->plt[p->nplt].vaddr = va;
	p->plt[p->nplt].size = size;
	p->plt[p->nplt].name = name;
	p->nplt++;
	return SYM_OK;
}

/* Is in an x86-64 "jmp [rip + slot]", the jump of every PLT stub? */
static bool x86_slot_jump(const struct dec_insn *in)
{
	return in->id == DEC_JMP && in->nops == 1 &&
	       in->op[0].kind == DEC_OP_MEM && in->op[0].mem.rip;
}

/*
 * The stub size of an x86-64 PLT section that does not give it: a
 * static program's .plt (IFUNCs only, no header) has 8-byte stubs
 * ("jmp [rip + slot]; xchg ax, ax"), 16 with IBT.  The stubs are all
 * alike, so it is the distance between the first two jumps.
 */
static uint64_t x86_stub_size(const struct dec *dec, const unsigned char *d,
			      size_t size, uint64_t addr)
{
	struct dec_insn in;
	uint64_t va = addr, end = addr + size, first = 0;
	bool seen = false;

	while (va < end) {
		if (!dec_decode(dec, d + (va - addr), end - va, va,
				DEC_WANT_OPS, &in)) {
			va += in.len ? in.len : 1;
			continue;
		}
		if (x86_slot_jump(&in)) {
			if (seen)
				return va - first;
			first = va;
			seen = true;
		}
		va += in.len;
	}
	return PLT_STUB_SIZE;
}

/*
 * Decode a PLT section: each stub loads its target from a GOT slot
 * (x86-64 "jmp [rip + slot]", AArch64 "adrp x16, page; ldr x17, [x16,
 * off]"), and the relocation of that slot names the function.
 */
static int read_plt_section(struct procs *p, const struct dec *dec,
			    bool x86, const unsigned char *d, size_t size,
			    uint64_t addr, uint64_t entsize,
			    const struct gotname *gn, size_t ngn)
{
	struct dec_insn in;
	uint64_t va = addr, end = addr + size;
	uint64_t adrp_va = 0, adrp_page = 0;
	unsigned adrp_reg = 0;
	int ret = SYM_OK;

	if (!x86)
		entsize = PLT_STUB_SIZE;
	else if (!entsize)
		entsize = x86_stub_size(dec, d, size, addr);
	while (va < end && ret == SYM_OK) {
		const struct dec_op *o = in.op;

		if (!dec_decode(dec, d + (va - addr), end - va, va,
				DEC_WANT_OPS, &in)) {
			va += in.len ? in.len : 1;
			continue;
		}
		if (x86) {
			if (x86_slot_jump(&in)) {
				uint64_t got = va + in.len +
					       (uint64_t)o[0].mem.disp;
				uint64_t ent = addr + (va - addr) /
						      entsize * entsize;

				ret = add_plt(p, ent, entsize,
					      got_lookup(gn, ngn, got));
			}
		} else if (in.id == DEC_ADRP && in.nops == 2) {
			adrp_va = va;
			adrp_reg = o[0].reg;
			adrp_page = (uint64_t)o[1].imm;
		} else if (in.id == DEC_LDR && in.nops == 2 &&
			   o[1].kind == DEC_OP_MEM &&
			   o[1].mem.base == adrp_reg && adrp_va &&
			   va - adrp_va <= 8) {
			uint64_t got = adrp_page + (uint64_t)o[1].mem.disp;

			ret = add_plt(p, adrp_va, entsize,
				      got_lookup(gn, ngn, got));
			adrp_va = 0;
		}
		va += in.len;
	}
	return ret;
}

/* The number of PLT stubs that start at or before va (they are sorted). */
static size_t plt_index(const struct procs *p, uint64_t va)
{
	size_t lo = 0, hi = p->nplt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->plt[mid].vaddr <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const char *procs_plt_name(const struct procs *p, uint64_t va)
{
	size_t k = plt_index(p, va);

	return k && p->plt[k - 1].vaddr == va ? p->plt[k - 1].name : NULL;
}

static int read_sections(struct procs *p, const struct dec *dec,
			 uint16_t machine, struct strpool *sp,
			 const struct symindex *syms, Elf *elf)
{
	struct gotname *gn = NULL;
	size_t ngn = 0, shstrndx;
	Elf_Scn *scn = NULL;
	bool x86 = machine == EM_X86_64;
	int ret;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return SYM_OK;
	ret = read_relocs(elf, machine, sp, syms, &gn, &ngn);
	while (!ret && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (strcmp(name, ".eh_frame") && strcmp(name, ".plt") &&
		    strcmp(name, ".plt.sec") && strcmp(name, ".plt.got"))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		if (!strcmp(name, ".eh_frame"))
			ret = read_eh_frame(p, data->d_buf, data->d_size,
					    sh.sh_addr);
		else if (p->npltsec < sizeof(p->pltsec) / sizeof(p->pltsec[0])) {
			p->pltsec_name[p->npltsec] = !strcmp(name, ".plt") ?
				".plt" : !strcmp(name, ".plt.sec") ?
				".plt.sec" : ".plt.got";
			p->pltsec[p->npltsec].lo = sh.sh_addr;
			p->pltsec[p->npltsec++].hi = sh.sh_addr + sh.sh_size;
		}
		if (strcmp(name, ".eh_frame"))
			ret = read_plt_section(p, dec, x86, data->d_buf,
					       data->d_size, sh.sh_addr,
					       sh.sh_entsize, gn, ngn);
	}
	p->got = gn;
	p->ngot = ngn;
	if (!ret && p->nplt > 1)
		qsort(p->plt, p->nplt, sizeof(*p->plt), plt_cmp);
	return ret;
}

/*
 * In a PLT section, each stub is a procedure of its own (named
 * target@plt), and so is the code between stubs (the resolver call at the
 * start of .plt), although one FDE covers the whole section.
 */
bool procs_plt_extent(const struct procs *p, uint64_t va, uint64_t *lo,
		      uint64_t *hi)
{
	size_t i, k = plt_index(p, va);

	for (i = 0; i < p->npltsec; i++) {
		if (va < p->pltsec[i].lo || va >= p->pltsec[i].hi)
			continue;
		*lo = p->pltsec[i].lo;
		*hi = p->pltsec[i].hi;
		if (k) {
			const struct plt_ent *e = &p->plt[k - 1];

			if (va < e->vaddr + e->size) {
				*lo = e->vaddr;
				*hi = e->vaddr + e->size;
				return true;
			}
			if (e->vaddr + e->size > *lo)
				*lo = e->vaddr + e->size;
		}
		if (k < p->nplt && p->plt[k].vaddr < *hi)
			*hi = p->plt[k].vaddr;
		return true;
	}
	return false;
}

const char *procs_plt_other(const struct procs *p, uint64_t va,
			    uint64_t *start, uint64_t *sec)
{
	uint64_t lo, hi, stub;
	size_t i;

	if (procs_plt_stub(p, va, &stub) || !procs_plt_extent(p, va, &lo, &hi))
		return NULL;
	for (i = 0; i < p->npltsec; i++)
		if (va >= p->pltsec[i].lo && va < p->pltsec[i].hi) {
			*start = lo;
			*sec = p->pltsec[i].lo;
			return p->pltsec_name[i];
		}
	return NULL;
}

int procs_read(struct procs *p, struct strpool *sp, void *elf,
	       uint16_t machine, const struct symindex *syms)
{
	struct dec *dec;
	int ret = dec_open(machine, &dec);

	if (ret)
		return ret;
	ret = read_sections(p, dec, machine, sp, syms, elf);
	dec_free(dec);
	return ret;
}

const char *procs_got_name(const struct procs *p, uint64_t slot)
{
	return got_lookup(p->got, p->ngot, slot);
}

const char *procs_plt_stub(const struct procs *p, uint64_t va,
			   uint64_t *start)
{
	size_t k = plt_index(p, va);

	if (!k || va >= p->plt[k - 1].vaddr + p->plt[k - 1].size)
		return NULL;
	*start = p->plt[k - 1].vaddr;
	return p->plt[k - 1].name;
}

bool procs_unwind_proc(const struct procs *p, uint64_t va, uint64_t *start)
{
	const struct fde_range *f = procs_fde(p, va);
	size_t i;

	if (!f)
		return false;
	/* The PLT has FDEs too; its stubs are named target@plt, and its
	 * header or unnamed slots are no procedure. */
	for (i = 0; i < p->npltsec; i++)
		if (va >= p->pltsec[i].lo && va < p->pltsec[i].hi)
			return false;
	*start = f->lo;
	return true;
}
