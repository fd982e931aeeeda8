// SPDX-License-Identifier: MIT
/*
 * Basic blocks: a procedure of an object decoded with capstone and split
 * at its leaders (the rules are the contract of sym_code() in
 * symbolize.h).  Everything is cached on the object: the ELF facts that
 * decoding needs (architecture, .eh_frame extents for stripped code, PLT
 * stub names) are read once, and each procedure is decoded once.
 *
 * Capstone types stay in this file.
 */
#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize_int.h"

#define MAX_PROC_BYTES (64u << 20)
#define MAX_SWEEPS 8
#define MAX_TABLE 4096		/* jump table entries, at most */
#define RING 16
#define NEIGHBOUR_BYTES 4096	/* scanned for jumps into a procedure */			/* instructions remembered for jump tables */

struct gotname {
	uint64_t got;
	const char *name;
};

struct fde_range {
	uint64_t lo, hi;	/* vaddrs [lo, hi) */
};

struct plt_ent {
	uint64_t vaddr;		/* start of the stub */
	uint64_t size;		/* its section's entry size */
	const char *name;
};

/* A PLT stub is 16 bytes on AArch64 and on x86-64 unless its section
 * says otherwise (.plt.got entries without IBT are 8). */
#define PLT_STUB_SIZE 16

struct proc {
	struct sym_code code;
	struct sym_insn *insns;
	struct sym_block *blocks;
};

struct code_cache {
	int err;		/* SYM_OK once the ELF facts are read */
	int fd;			/* the object's file, -1 */
	unsigned char *mem;	/* the vdso image (a copy), or NULL */
	size_t memsize;
	cs_arch arch;
	cs_mode mode;
	csh cs;
	bool cs_open;
	struct fde_range *fdes;	/* sorted by lo */
	size_t nfdes, afdes;
	struct plt_ent *plt;	/* sorted by vaddr */
	size_t nplt, aplt;
	struct fde_range pltsec[3];	/* .plt, .plt.sec, .plt.got */
	size_t npltsec;
	struct gotname *got;	/* relocated slots, sorted by address */
	size_t ngot;
	struct proc **procs;	/* sorted by code.start */
	size_t nprocs, aprocs;
};

static void proc_free(struct proc *p)
{
	if (!p)
		return;
	free(p->insns);
	free(p->blocks);
	free(p);
}

void code_cache_free(struct code_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nprocs; i++)
		proc_free(c->procs[i]);
	free(c->procs);
	free(c->fdes);
	free(c->plt);
	free(c->got);
	free(c->mem);
	if (c->cs_open)
		cs_close(&c->cs);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

/* ---- reading bytes ---- */

/* File offset of an ELF virtual address, through the PT_LOAD headers. */
static bool vaddr_file_off(const struct symobj *o, uint64_t va, uint64_t len,
			   uint64_t *foff)
{
	size_t i;

	for (i = 0; i < o->nloads; i++) {
		const struct loadseg *l = &o->loads[i];

		if (va >= l->vaddr && va - l->vaddr < l->filesz &&
		    len <= l->filesz - (va - l->vaddr)) {
			*foff = va - l->vaddr + l->off;
			return true;
		}
	}
	return false;
}

/* Read len bytes at ELF virtual address va; false if not in the file. */
static bool read_vaddr(const struct code_cache *c, const struct symobj *o,
		       uint64_t va, void *buf, size_t len)
{
	uint64_t foff;
	size_t done = 0;

	if (!vaddr_file_off(o, va, len, &foff))
		return false;
	if (c->mem) {
		if (foff > c->memsize || len > c->memsize - foff)
			return false;
		memcpy(buf, c->mem + foff, len);
		return true;
	}
	while (done < len) {
		ssize_t r = pread(c->fd, (char *)buf + done, len - done,
				  (off_t)(foff + done));

		if (r <= 0)
			return false;
		done += (size_t)r;
	}
	return true;
}

/* ---- .eh_frame: procedure extents of stripped code ---- */

#define DW_EH_PE_omit 0xff
#define DW_EH_PE_absptr 0x00
#define DW_EH_PE_uleb128 0x01
#define DW_EH_PE_udata2 0x02
#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_udata8 0x04
#define DW_EH_PE_sleb128 0x09
#define DW_EH_PE_sdata2 0x0a
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_sdata8 0x0c
#define DW_EH_PE_pcrel 0x10
#define DW_EH_PE_datarel 0x30

struct rd {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (r->p < r->end) {
		unsigned char b = *r->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

static int64_t rd_sleb(struct rd *r)
{
	int64_t v = 0;
	unsigned shift = 0;
	unsigned char b = 0;

	while (r->p < r->end) {
		b = *r->p++;
		if (shift < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= -((int64_t)1 << shift);
			return v;
		}
	}
	r->bad = true;
	return 0;
}

static uint64_t rd_fixed(struct rd *r, size_t n)
{
	uint64_t v = 0;
	size_t i;

	if ((size_t)(r->end - r->p) < n) {
		r->bad = true;
		return 0;
	}
	for (i = 0; i < n; i++)	/* little-endian targets only */
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

/* A pointer in encoding enc; base is the vaddr of r->p's section start. */
static uint64_t rd_encoded(struct rd *r, unsigned enc, uint64_t secaddr,
			   const unsigned char *secstart, bool apply)
{
	uint64_t here = secaddr + (uint64_t)(r->p - secstart), v;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		v = rd_fixed(r, 8);
		break;
	case DW_EH_PE_uleb128:
		v = rd_uleb(r);
		break;
	case DW_EH_PE_udata2:
		v = rd_fixed(r, 2);
		break;
	case DW_EH_PE_sdata2:
		v = (uint64_t)(int64_t)(int16_t)rd_fixed(r, 2);
		break;
	case DW_EH_PE_udata4:
		v = rd_fixed(r, 4);
		break;
	case DW_EH_PE_sdata4:
		v = (uint64_t)(int64_t)(int32_t)rd_fixed(r, 4);
		break;
	case DW_EH_PE_sleb128:
		v = (uint64_t)rd_sleb(r);
		break;
	default:
		r->bad = true;
		return 0;
	}
	if (apply && (enc & 0x70) == DW_EH_PE_pcrel)
		v += here;
	else if (apply && (enc & 0x70) != 0)
		r->bad = true;	/* datarel etc.: not used in .eh_frame */
	return v;
}

/* The FDE pointer encoding a CIE announces ("zR" augmentation). */
static unsigned cie_fde_encoding(struct rd r, uint64_t secaddr,
				 const unsigned char *secstart)
{
	const char *aug;
	unsigned version, enc = DW_EH_PE_absptr;

	version = (unsigned)rd_fixed(&r, 1);
	aug = (const char *)r.p;
	while (r.p < r.end && *r.p)
		r.p++;
	if (r.p >= r.end)
		return DW_EH_PE_omit;
	r.p++;
	if (aug[0] != 'z')
		return DW_EH_PE_absptr;
	rd_uleb(&r);			/* code alignment */
	rd_sleb(&r);			/* data alignment */
	if (version == 1)
		rd_fixed(&r, 1);	/* return address register */
	else
		rd_uleb(&r);
	rd_uleb(&r);			/* augmentation length */
	for (aug++; *aug && !r.bad; aug++) {
		switch (*aug) {
		case 'R':
			return (unsigned)rd_fixed(&r, 1);
		case 'P': {
			unsigned penc = (unsigned)rd_fixed(&r, 1);

			rd_encoded(&r, penc, secaddr, secstart, false);
			break;
		}
		case 'L':
			rd_fixed(&r, 1);
			break;
		case 'S':
		case 'B':
			break;
		default:
			return DW_EH_PE_omit;
		}
	}
	return r.bad ? DW_EH_PE_omit : enc;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct fde_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int read_eh_frame(struct code_cache *c, const unsigned char *d,
			 size_t size, uint64_t secaddr)
{
	const unsigned char *p = d, *end = d + size;

	while ((size_t)(end - p) >= 8) {
		struct rd r = { p, end, false };
		uint64_t len = rd_fixed(&r, 4), id;
		const unsigned char *rec, *next;

		if (len == 0)
			break;		/* terminator */
		if (len == 0xffffffff)
			len = rd_fixed(&r, 8);
		if (len > (uint64_t)(end - r.p))
			break;
		next = r.p + len;
		rec = r.p;
		id = rd_fixed(&r, 4);
		if (id != 0 && id <= (uint64_t)(rec - d)) {
			/* An FDE: id is the distance back to its CIE. */
			const unsigned char *cie = rec - id;
			struct rd cr = { cie, end, false };
			uint64_t clen = rd_fixed(&cr, 4), lo, range;
			unsigned enc;

			if (clen == 0xffffffff || clen < 4 ||
			    clen > (uint64_t)(end - cr.p))
				goto skip;
			cr.end = cr.p + clen;
			cr.p += 4;	/* CIE id */
			enc = cie_fde_encoding(cr, secaddr, d);
			if (enc == DW_EH_PE_omit)
				goto skip;
			r.end = next;
			lo = rd_encoded(&r, enc, secaddr, d, true);
			range = rd_encoded(&r, enc & 0x0f, secaddr, d, false);
			if (r.bad || !range || !lo)
				goto skip;
			if (ALLOC_GROW(c->fdes, c->nfdes + 1, c->afdes))
				return SYM_ENOMEM;
			c->fdes[c->nfdes].lo = lo;
			c->fdes[c->nfdes].hi = lo + range;
			c->nfdes++;
		}
skip:
		p = next;
	}
	if (c->nfdes > 1)
		qsort(c->fdes, c->nfdes, sizeof(*c->fdes), fde_cmp);
	return SYM_OK;
}

static const struct fde_range *fde_lookup(const struct code_cache *c,
					  uint64_t va)
{
	size_t lo = 0, hi = c->nfdes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->fdes[mid].lo <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Nested or overlapping FDEs do not occur in practice. */
	if (lo && va < c->fdes[lo - 1].hi)
		return &c->fdes[lo - 1];
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

/* GOT slot -> symbol name, from every SHT_RELA section with symbols. */
static int read_relocs(Elf *elf, struct strpool *sp, struct gotname **out,
		       size_t *nout)
{
	struct gotname *v = NULL;
	size_t n = 0, a = 0;
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh, symsh;
		Elf_Data *data, *symdata;
		Elf_Scn *symscn;
		size_t i, cnt;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !sh.sh_link || !sh.sh_entsize)
			continue;
		symscn = elf_getscn(elf, sh.sh_link);
		data = elf_getdata(scn, NULL);
		if (!symscn || !gelf_getshdr(symscn, &symsh) || !data)
			continue;
		symdata = elf_getdata(symscn, NULL);
		if (!symdata)
			continue;
		cnt = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < cnt; i++) {
			GElf_Rela rela;
			GElf_Sym sym;
			const char *name;

			if (!gelf_getrela(data, (int)i, &rela))
				break;
			if (!GELF_R_SYM(rela.r_info) ||
			    !gelf_getsym(symdata, (int)GELF_R_SYM(rela.r_info),
					 &sym))
				continue;
			name = elf_strptr(elf, symsh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (ALLOC_GROW(v, n + 1, a)) {
				free(v);
				return SYM_ENOMEM;
			}
			v[n].got = rela.r_offset;
			v[n].name = strpool_add(sp, name);
			if (!v[n].name) {
				free(v);
				return SYM_ENOMEM;
			}
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

static int add_plt(struct code_cache *c, uint64_t va, uint64_t size,
		   const char *name)
{
	if (!name)
		return SYM_OK;
	if (ALLOC_GROW(c->plt, c->nplt + 1, c->aplt))
		return SYM_ENOMEM;
	c->plt[c->nplt].vaddr = va;
	c->plt[c->nplt].size = size;
	c->plt[c->nplt].name = name;
	c->nplt++;
	return SYM_OK;
}

/*
 * Decode a PLT section: each stub loads its target from a GOT slot
 * (x86-64 "jmp [rip + slot]", AArch64 "adrp x16, page; ldr x17, [x16,
 * off]"), and the relocation of that slot names the function.
 */
static int read_plt_section(struct code_cache *c, const unsigned char *d,
			    size_t size, uint64_t addr, uint64_t entsize,
			    const struct gotname *gn, size_t ngn)
{
	const uint8_t *code = d;
	uint64_t va = addr;
	cs_insn *in = cs_malloc(c->cs);
	uint64_t adrp_va = 0, adrp_page = 0;
	unsigned adrp_reg = 0;
	int ret = SYM_OK;

	if (!in)
		return SYM_ENOMEM;
	if (!entsize || c->arch != CS_ARCH_X86)
		entsize = PLT_STUB_SIZE;
	while (size && ret == SYM_OK) {
		if (!cs_disasm_iter(c->cs, &code, &size, &va, in)) {
			code++;
			size--;
			va++;
			continue;
		}
		if (c->arch == CS_ARCH_X86) {
			const cs_x86 *x = &in->detail->x86;

			if (in->id == X86_INS_JMP && x->op_count == 1 &&
			    x->operands[0].type == X86_OP_MEM &&
			    x->operands[0].mem.base == X86_REG_RIP) {
				uint64_t got = in->address + in->size +
					       (uint64_t)x->operands[0].mem.disp;
				uint64_t ent = addr + (in->address - addr) /
						      entsize * entsize;

				ret = add_plt(c, ent, entsize,
					      got_lookup(gn, ngn, got));
			}
		} else {
			const cs_arm64 *a = &in->detail->arm64;

			if (in->id == ARM64_INS_ADRP && a->op_count == 2) {
				adrp_va = in->address;
				adrp_reg = a->operands[0].reg;
				adrp_page = (uint64_t)a->operands[1].imm;
			} else if (in->id == ARM64_INS_LDR && a->op_count == 2 &&
				   a->operands[1].type == ARM64_OP_MEM &&
				   a->operands[1].mem.base == adrp_reg &&
				   adrp_va && in->address - adrp_va <= 8) {
				uint64_t got = adrp_page +
					       (uint64_t)a->operands[1].mem.disp;

				ret = add_plt(c, adrp_va, entsize,
					      got_lookup(gn, ngn, got));
				adrp_va = 0;
			}
		}
	}
	cs_free(in, 1);
	return ret;
}

/* The number of PLT stubs that start at or before va (they are sorted). */
static size_t plt_index(const struct code_cache *c, uint64_t va)
{
	size_t lo = 0, hi = c->nplt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->plt[mid].vaddr <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const char *plt_lookup(const struct code_cache *c, uint64_t va)
{
	size_t k = plt_index(c, va);

	return k && c->plt[k - 1].vaddr == va ? c->plt[k - 1].name : NULL;
}

static int read_elf_facts(struct code_cache *c, struct strpool *sp, Elf *elf)
{
	struct gotname *gn = NULL;
	size_t ngn = 0, shstrndx;
	Elf_Scn *scn = NULL;
	int ret;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return SYM_OK;
	ret = read_relocs(elf, sp, &gn, &ngn);
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
			ret = read_eh_frame(c, data->d_buf, data->d_size,
					    sh.sh_addr);
		else if (c->npltsec < sizeof(c->pltsec) / sizeof(c->pltsec[0])) {
			c->pltsec[c->npltsec].lo = sh.sh_addr;
			c->pltsec[c->npltsec++].hi = sh.sh_addr + sh.sh_size;
		}
		if (strcmp(name, ".eh_frame"))
			ret = read_plt_section(c, data->d_buf, data->d_size,
					       sh.sh_addr, sh.sh_entsize, gn,
					       ngn);
	}
	c->got = gn;
	c->ngot = ngn;
	if (!ret && c->nplt > 1)
		qsort(c->plt, c->nplt, sizeof(*c->plt), plt_cmp);
	return ret;
}

/* Open the object's bytes, capstone, and read the ELF facts, once. */
static int code_cache_load(struct symbolizer *s, struct symobj *o,
			   struct code_cache *c)
{
	Elf *elf = NULL;
	int ret;

	switch (o->machine) {
	case EM_X86_64:
		c->arch = CS_ARCH_X86;
		c->mode = CS_MODE_64;
		break;
	case EM_AARCH64:
		c->arch = CS_ARCH_ARM64;
		c->mode = CS_MODE_ARM;
		break;
	default:
		return SYM_ENOCODE;
	}
	if (cs_open(c->arch, c->mode, &c->cs) != CS_ERR_OK)
		return SYM_ENOMEM;
	c->cs_open = true;
	cs_option(c->cs, CS_OPT_DETAIL, CS_OPT_ON);
	if (o->kind == SYM_OBJ_VDSO) {
		const void *img = vdso_image(&c->memsize);

		if (!img)
			return SYM_ENOCODE;
		c->mem = malloc(c->memsize);
		if (!c->mem)
			return SYM_ENOMEM;
		memcpy(c->mem, img, c->memsize);
		elf = elf_memory((char *)c->mem, c->memsize);
	} else {
		c->fd = sym_open_input(s, o->path);
		if (c->fd < 0)
			return SYM_EOPEN;
		elf = elf_begin(c->fd, ELF_C_READ_MMAP, NULL);
	}
	if (!elf)
		return SYM_EELF;
	ret = read_elf_facts(c, symbolizer_pool(s), elf);
	elf_end(elf);
	return ret;
}

/* ---- decoding ---- */

/* What a sweep records per instruction before blocks are formed. */
struct dins {
	uint64_t va;
	uint32_t len;
	unsigned flags;
	uint64_t target;	/* vaddr, 0 none */
	const char *text;
};

struct decoder {
	struct symbolizer *s;
	struct symobj *o;
	struct code_cache *c;
	uint64_t lo, hi;	/* procedure vaddrs */
	const uint8_t *buf;
	struct dins *v;
	size_t n, alloc;
	uint64_t *extra;	/* jump table targets: leaders */
	size_t nextra, aextra;
	uint64_t *entries;	/* ways in from outside: leaders */
	size_t nentries, aentries;
	size_t nhard;		/* entries[0 .. nhard) may force a resync;
				 * the rest (found by sweeping neighbours,
				 * which may be data) only mark leaders */
	uint64_t *forced;	/* sorted: the sweep must start here */
	size_t nforced, aforced;
	/* The last instructions, for jump-table patterns (x86). */
	cs_insn ring[RING];
	cs_detail ringd[RING];
	size_t nring;
};

static const char *const noreturn_names[] = {
	"exit", "_exit", "_Exit", "quick_exit", "abort",
	"__stack_chk_fail", "__stack_chk_fail_local", "__fortify_fail",
	"__chk_fail", "__assert_fail", "__assert_perror_fail", "__assert",
	"__libc_fatal", "__malloc_assert", "err", "errx", "verr", "verrx",
	"longjmp", "_longjmp", "siglongjmp", "__longjmp_chk",
	"__libc_longjmp", "__libc_siglongjmp", "pthread_exit",
	"__pthread_unwind", "__pthread_unwind_next", "__libc_start_main",
	"__libc_start_call_main", "_dl_signal_error", "_dl_signal_exception",
	"_dl_fatal_printf", "__cxa_throw", "__cxa_rethrow", "__cxa_bad_cast",
	"__cxa_bad_typeid", "__cxa_pure_virtual", "__cxa_call_unexpected",
	"__cxa_throw_bad_array_new_length", "_Unwind_Resume",
	"_ZSt9terminatev",
};

static bool is_noreturn(const char *name)
{
	size_t i;
	const char *at;
	size_t len;

	if (!name)
		return false;
	if (!strncmp(name, "__GI_", 5))
		name += 5;
	/* std::__throw_bad_alloc() and friends. */
	if (!strncmp(name, "_ZSt", 4) && strstr(name, "__throw_"))
		return true;
	at = strchr(name, '@');
	len = at ? (size_t)(at - name) : strlen(name);
	for (i = 0; i < sizeof(noreturn_names) / sizeof(*noreturn_names); i++)
		if (strlen(noreturn_names[i]) == len &&
		    !strncmp(noreturn_names[i], name, len))
			return true;
	return false;
}

/* x86-64 "call [rip + slot]" (-fno-plt, _start): the slot's symbol. */
static const char *slot_callee(const struct decoder *d, const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	if (d->c->arch != CS_ARCH_X86 || x->op_count != 1 ||
	    x->operands[0].type != X86_OP_MEM ||
	    x->operands[0].mem.base != X86_REG_RIP ||
	    x->operands[0].mem.index != X86_REG_INVALID)
		return NULL;
	return got_lookup(d->c->got, d->c->ngot,
			  in->address + in->size +
			  (uint64_t)x->operands[0].mem.disp);
}

static const char *callee_name(const struct decoder *d, uint64_t target)
{
	struct symhit hit;
	const char *name = plt_lookup(d->c, target);

	if (name)
		return name;
	if (symindex_lookup(&d->o->syms, target, &hit) && hit.addr == target)
		return hit.name;
	return NULL;
}

static bool x86_string_op(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	uint8_t i;

	if (x->prefix[0] != X86_PREFIX_REP && x->prefix[0] != X86_PREFIX_REPNE)
		return false;
	switch (in->id) {
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD:
	case X86_INS_MOVSQ: case X86_INS_STOSB: case X86_INS_STOSW:
	case X86_INS_STOSD: case X86_INS_STOSQ: case X86_INS_LODSB:
	case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
	case X86_INS_SCASB: case X86_INS_SCASW: case X86_INS_SCASD:
	case X86_INS_SCASQ: case X86_INS_CMPSB: case X86_INS_CMPSW:
	case X86_INS_CMPSD: case X86_INS_CMPSQ: case X86_INS_INSB:
	case X86_INS_INSW: case X86_INS_INSD: case X86_INS_OUTSB:
	case X86_INS_OUTSW: case X86_INS_OUTSD:
		break;
	default:
		return false;
	}
	/* SSE movsd/cmpsd share the ids and carry an f2 prefix. */
	for (i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_REG &&
		    x->operands[i].reg >= X86_REG_XMM0 &&
		    x->operands[i].reg <= X86_REG_XMM31)
			return false;
	return true;
}

static unsigned classify_x86(csh cs, const cs_insn *in, uint64_t *target)
{
	const cs_x86 *x = &in->detail->x86;
	unsigned f = 0;

	*target = 0;
	if (cs_insn_group(cs, in, CS_GRP_JUMP)) {
		f |= SYM_INSN_BRANCH;
		if (in->id != X86_INS_JMP && in->id != X86_INS_LJMP)
			f |= SYM_INSN_COND;
	} else if (cs_insn_group(cs, in, CS_GRP_CALL)) {
		f |= SYM_INSN_CALL;
	} else if (cs_insn_group(cs, in, CS_GRP_RET) ||
		   cs_insn_group(cs, in, CS_GRP_IRET)) {
		return SYM_INSN_RET;
	}
	switch (in->id) {
	case X86_INS_UD2: case X86_INS_UD0: case X86_INS_INT3:
	case X86_INS_HLT:
		return SYM_INSN_TRAP;
	case X86_INS_NOP:
		return SYM_INSN_PAD;
	default:
		break;
	}
	if (f) {
		if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM)
			*target = (uint64_t)x->operands[0].imm;
		else
			f |= SYM_INSN_INDIRECT;
	}
	if (x86_string_op(in))
		f |= SYM_INSN_REP;
	return f;
}

static unsigned classify_arm64(const cs_insn *in, uint64_t *target)
{
	const cs_arm64 *a = &in->detail->arm64;
	unsigned f = 0;

	*target = 0;
	switch (in->id) {
	case ARM64_INS_B:
		f = SYM_INSN_BRANCH;
		if (a->cc != ARM64_CC_INVALID && a->cc != ARM64_CC_AL &&
		    a->cc != ARM64_CC_NV)
			f |= SYM_INSN_COND;
		break;
	case ARM64_INS_CBZ: case ARM64_INS_CBNZ:
	case ARM64_INS_TBZ: case ARM64_INS_TBNZ:
		f = SYM_INSN_BRANCH | SYM_INSN_COND;
		break;
	case ARM64_INS_BR:
		return SYM_INSN_BRANCH | SYM_INSN_INDIRECT;
	case ARM64_INS_BL:
		f = SYM_INSN_CALL;
		break;
	case ARM64_INS_BLR:
		return SYM_INSN_CALL | SYM_INSN_INDIRECT;
	case ARM64_INS_RET: case ARM64_INS_ERET:
		return SYM_INSN_RET;
	case ARM64_INS_BRK: case ARM64_INS_HLT:
		return SYM_INSN_TRAP;
	case ARM64_INS_NOP:
		return SYM_INSN_PAD;
	default:
		return 0;
	}
	if (a->op_count && a->operands[a->op_count - 1].type == ARM64_OP_IMM)
		*target = (uint64_t)a->operands[a->op_count - 1].imm;
	else
		f |= SYM_INSN_INDIRECT;
	return f;
}

static const cs_insn *ring_at(const struct decoder *d, size_t back)
{
	if (back >= d->nring || back >= RING)
		return NULL;
	return &d->ring[(d->nring - 1 - back) % RING];
}

static int add_extra(struct decoder *d, uint64_t va)
{
	if (ALLOC_GROW(d->extra, d->nextra + 1, d->aextra))
		return SYM_ENOMEM;
	d->extra[d->nextra++] = va;
	return SYM_OK;
}

/*
 * The bound of a jump table: "cmp idx, N" then "ja" (N + 1 entries) or
 * "jae" (N) among the instructions before the jump.  0 if not found.
 */
static uint64_t table_bound(const struct decoder *d, size_t from)
{
	size_t b;

	for (b = from; b < RING; b++) {
		const cs_insn *j = ring_at(d, b), *cmp = ring_at(d, b + 1);
		const cs_x86 *cx;

		if (!j || !cmp)
			return 0;
		if (j->id != X86_INS_JA && j->id != X86_INS_JAE)
			continue;
		cx = &cmp->detail->x86;
		if (cmp->id != X86_INS_CMP || cx->op_count != 2 ||
		    cx->operands[0].type != X86_OP_REG ||
		    cx->operands[1].type != X86_OP_IMM ||
		    cx->operands[1].imm < 0)
			return 0;
		return (uint64_t)cx->operands[1].imm +
		       (j->id == X86_INS_JA ? 1 : 0);
	}
	return 0;
}

/*
 * Jump tables of an indirect x86-64 jump (the ring ends with it): the
 * position-independent "lea base, [rip + T]; movsxd r, [base + i*4];
 * add r, base; jmp r" (entries are offsets from T) and the absolute
 * "jmp [T + i*8]" or "mov r, [T + i*8]; jmp r".  Without a bound,
 * entries are read while they land inside the procedure.
 */
static int jump_table_x86(struct decoder *d)
{
	const cs_insn *jmp = ring_at(d, 0), *in;
	const cs_x86 *x = &jmp->detail->x86;
	uint64_t table = 0, bound, i, limit;
	unsigned r, base = 0;
	bool rel = false;
	size_t b, after = 1;

	if (x->op_count != 1)
		return SYM_OK;
	if (x->operands[0].type == X86_OP_MEM) {
		const x86_op_mem *m = &x->operands[0].mem;

		if (m->base != X86_REG_INVALID || m->scale != 8)
			return SYM_OK;
		table = (uint64_t)m->disp;
	} else if (x->operands[0].type == X86_OP_REG) {
		r = x->operands[0].reg;
		/* Find what last set r, walking back. */
		for (b = 1; (in = ring_at(d, b)) != NULL; b++) {
			const cs_x86 *ix = &in->detail->x86;

			if (ix->op_count != 2 || ix->operands[0].type !=
			    X86_OP_REG || ix->operands[0].reg != r)
				continue;
			if (in->id == X86_INS_ADD && !base &&
			    ix->operands[1].type == X86_OP_REG) {
				base = ix->operands[1].reg;
				continue;
			}
			if ((in->id == X86_INS_MOVSXD && base &&
			     ix->operands[1].type == X86_OP_MEM &&
			     ix->operands[1].mem.base == base &&
			     ix->operands[1].mem.scale == 4)) {
				rel = true;
				after = b + 1;
				break;
			}
			if (in->id == X86_INS_MOV && !base &&
			    ix->operands[1].type == X86_OP_MEM &&
			    ix->operands[1].mem.base == X86_REG_INVALID &&
			    ix->operands[1].mem.scale == 8) {
				table = (uint64_t)ix->operands[1].mem.disp;
				after = b + 1;
				break;
			}
			return SYM_OK;
		}
		if (!in)
			return SYM_OK;
		if (rel) {
			/* base = lea [rip + T], somewhere before. */
			for (b = 1; (in = ring_at(d, b)) != NULL; b++) {
				const cs_x86 *ix = &in->detail->x86;

				if (in->id == X86_INS_LEA && ix->op_count == 2 &&
				    ix->operands[0].reg == base &&
				    ix->operands[1].mem.base == X86_REG_RIP) {
					table = in->address + in->size +
						(uint64_t)ix->operands[1].mem.disp;
					if (b + 1 > after)
						after = b + 1;
					break;
				}
			}
			if (!in)
				return SYM_OK;
		}
	} else {
		return SYM_OK;
	}
	bound = table_bound(d, after - 1);
	limit = bound ? bound : 1024;
	if (limit > MAX_TABLE)
		return SYM_OK;
	for (i = 0; i < limit; i++) {
		unsigned char e[8];
		uint64_t t;

		if (!read_vaddr(d->c, d->o, table + i * (rel ? 4 : 8), e,
				rel ? 4 : 8))
			break;
		if (rel) {
			int32_t v = (int32_t)((uint32_t)e[0] |
					      (uint32_t)e[1] << 8 |
					      (uint32_t)e[2] << 16 |
					      (uint32_t)e[3] << 24);

			t = table + (uint64_t)(int64_t)v;
		} else {
			memcpy(&t, e, 8);
		}
		if (t < d->lo || t >= d->hi) {
			if (!bound)
				break;
			continue;
		}
		if (add_extra(d, t))
			return SYM_ENOMEM;
	}
	return SYM_OK;
}

static int add_entry(struct decoder *d, uint64_t va)
{
	if (ALLOC_GROW(d->entries, d->nentries + 1, d->aentries))
		return SYM_ENOMEM;
	d->entries[d->nentries++] = va;
	return SYM_OK;
}

static int forced_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* First forced start > va, or hi. */
static uint64_t next_forced(const struct decoder *d, uint64_t va)
{
	size_t lo = 0, hi = d->nforced;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->forced[mid] <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nforced ? d->forced[lo] : d->hi;
}

static int push_data(struct decoder *d, uint64_t va)
{
	struct dins *last = d->n ? &d->v[d->n - 1] : NULL;

	if (last && (last->flags & SYM_INSN_DATA) &&
	    last->va + last->len == va && next_forced(d, last->va) > va) {
		last->len++;
		return SYM_OK;
	}
	if (ALLOC_GROW(d->v, d->n + 1, d->alloc))
		return SYM_ENOMEM;
	d->v[d->n++] = (struct dins){
		.va = va, .len = 1, .flags = SYM_INSN_DATA, .text = "(bad)",
	};
	return SYM_OK;
}

static int sweep(struct decoder *d)
{
	struct strpool *sp = symbolizer_pool(d->s);
	cs_insn *in = cs_malloc(d->c->cs);
	uint64_t va = d->lo;
	int ret = SYM_OK;
	char text[192];

	if (!in)
		return SYM_ENOMEM;
	d->n = d->nextra = d->nring = 0;
	while (va < d->hi && ret == SYM_OK) {
		uint64_t stop = next_forced(d, va), addr = va, target;
		const uint8_t *code = d->buf + (va - d->lo);
		size_t size = stop - va;
		struct dins *di;

		if (!cs_disasm_iter(d->c->cs, &code, &size, &addr, in)) {
			ret = push_data(d, va);
			va++;
			continue;
		}
		if (ALLOC_GROW(d->v, d->n + 1, d->alloc)) {
			ret = SYM_ENOMEM;
			break;
		}
		di = &d->v[d->n++];
		di->va = va;
		di->len = in->size;
		di->flags = d->c->arch == CS_ARCH_X86 ?
			    classify_x86(d->c->cs, in, &target) :
			    classify_arm64(in, &target);
		di->target = target;
		snprintf(text, sizeof(text), "%s%s%s", in->mnemonic,
			 in->op_str[0] ? " " : "", in->op_str);
		di->text = strpool_add(sp, text);
		if (!di->text) {
			ret = SYM_ENOMEM;
			break;
		}
		if ((di->flags & SYM_INSN_CALL) &&
		    is_noreturn(target ? callee_name(d, target) :
				slot_callee(d, in)))
			di->flags |= SYM_INSN_NORETURN;
		if (d->c->arch == CS_ARCH_X86) {
			size_t slot = d->nring % RING;

			d->ring[slot] = *in;
			d->ringd[slot] = *in->detail;
			d->ring[slot].detail = &d->ringd[slot];
			d->nring++;
			if ((di->flags & SYM_INSN_BRANCH) &&
			    (di->flags & SYM_INSN_INDIRECT))
				ret = jump_table_x86(d);
		}
		va += in->size;
	}
	cs_free(in, 1);
	return ret;
}

/* Index of the instruction starting at va, or (size_t)-1. */
static size_t insn_at(const struct decoder *d, uint64_t va)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->v[mid].va < va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->n && d->v[lo].va == va ? lo : (size_t)-1;
}

/*
 * Targets the sweep stepped over (inside an instruction) become forced
 * starts; true when there were any, so the sweep must run again.
 */
static int resync(struct decoder *d, bool *again)
{
	size_t i;

	*again = false;
	/* Jump-table entries may be misread data: they only mark. */
	for (i = 0; i < d->n + d->nhard; i++) {
		uint64_t t = i < d->n ? d->v[i].target : d->entries[i - d->n];

		if (i < d->n && !(d->v[i].flags & SYM_INSN_BRANCH))
			continue;
		if (!t || t < d->lo || t >= d->hi ||
		    insn_at(d, t) != (size_t)-1)
			continue;
		if (ALLOC_GROW(d->forced, d->nforced + 1, d->aforced))
			return SYM_ENOMEM;
		d->forced[d->nforced++] = t;
		*again = true;
	}
	if (*again && d->nforced > 1)
		qsort(d->forced, d->nforced, sizeof(*d->forced), forced_cmp);
	return SYM_OK;
}

static void mark(const struct decoder *d, bool *leader, uint64_t va)
{
	size_t i = insn_at(d, va);

	if (i != (size_t)-1)
		leader[i] = true;
}

static int build_blocks(struct decoder *d, struct proc *p, uint64_t off0)
{
	bool *leader = calloc(d->n ? d->n : 1, sizeof(*leader));
	size_t i, nb = 0, ab = 0;
	const unsigned ends = SYM_INSN_BRANCH | SYM_INSN_RET | SYM_INSN_TRAP |
			      SYM_INSN_NORETURN | SYM_INSN_REP | SYM_INSN_DATA;

	if (!leader)
		return SYM_ENOMEM;
	p->insns = calloc(d->n ? d->n : 1, sizeof(*p->insns));
	if (!p->insns) {
		free(leader);
		return SYM_ENOMEM;
	}
	if (d->n)
		leader[0] = true;
	for (i = 0; i < d->n; i++) {
		const struct dins *di = &d->v[i];

		if ((di->flags & (SYM_INSN_BRANCH | SYM_INSN_CALL)) &&
		    di->target)
			mark(d, leader, di->target);
		if ((di->flags & ends) && i + 1 < d->n)
			leader[i + 1] = true;
		/* Nothing falls into a trap on purpose: a call before one
		 * did not return, whatever its callee. */
		if (di->flags & (SYM_INSN_REP | SYM_INSN_DATA | SYM_INSN_TRAP))
			leader[i] = true;
		/* Padding aligns a branch target: its run is a block. */
		if ((di->flags & SYM_INSN_PAD) &&
		    (!i || !(d->v[i - 1].flags & SYM_INSN_PAD)))
			leader[i] = true;
		if ((di->flags & SYM_INSN_PAD) && i + 1 < d->n &&
		    !(d->v[i + 1].flags & SYM_INSN_PAD))
			leader[i + 1] = true;
	}
	for (i = 0; i < d->nextra; i++)
		mark(d, leader, d->extra[i]);
	for (i = 0; i < d->nentries; i++)
		mark(d, leader, d->entries[i]);
	for (i = 0; i < d->n; i++) {
		const struct dins *di = &d->v[i];
		struct sym_insn *si = &p->insns[i];

		if (leader[i]) {
			if (ALLOC_GROW(p->blocks, nb + 1, ab)) {
				free(leader);
				return SYM_ENOMEM;
			}
			p->blocks[nb].start = off0 + (di->va - d->lo);
			p->blocks[nb].first = (uint32_t)i;
			p->blocks[nb].ninsns = 0;
			nb++;
		}
		si->offset = off0 + (di->va - d->lo);
		si->vaddr = di->va;
		si->len = di->len;
		si->block = (uint32_t)(nb - 1);
		si->flags = di->flags;
		si->target = di->target ?
			     symobj_vaddr_to_off(d->o, di->target, 0) : 0;
		si->text = di->text;
		p->blocks[nb - 1].ninsns++;
		p->blocks[nb - 1].end = si->offset + si->len;
	}
	free(leader);
	p->code.insns = p->insns;
	p->code.ninsns = d->n;
	p->code.blocks = p->blocks;
	p->code.nblocks = nb;
	return SYM_OK;
}

/*
 * Other ways into the procedure: the start of every symbol and PLT stub
 * inside it (a PLT section is one procedure of many entry points; hand
 * written assembly has several entry points per function).
 */
static int entry_points(struct decoder *d)
{
	const struct symindex *si = &d->o->syms;
	size_t lo = 0, hi = si->n, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (si->v[mid].addr <= d->lo)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < si->n && si->v[i].addr < d->hi; i++)
		if (add_entry(d, si->v[i].addr))
			return SYM_ENOMEM;
	for (i = 0; i < d->c->nplt; i++)
		if (d->c->plt[i].vaddr > d->lo && d->c->plt[i].vaddr < d->hi &&
		    add_entry(d, d->c->plt[i].vaddr))
			return SYM_ENOMEM;
	return SYM_OK;
}

/*
 * Direct jumps and calls from the neighbouring code [lo, hi) into the
 * procedure: assembly functions jump into the middle of the next one
 * (glibc's mempcpy into memcpy, after computing its return value).
 */
static int neighbour_jumps(struct decoder *d, uint64_t lo, uint64_t hi)
{
	cs_insn *in;
	uint8_t *buf;
	const uint8_t *code;
	size_t size;
	uint64_t va = lo, target;
	int ret = SYM_OK;

	if (hi <= lo)
		return SYM_OK;
	buf = malloc(hi - lo);
	in = cs_malloc(d->c->cs);
	if (!buf || !in) {
		free(buf);
		if (in)
			cs_free(in, 1);
		return SYM_ENOMEM;
	}
	if (!read_vaddr(d->c, d->o, lo, buf, hi - lo))
		goto out;
	code = buf;
	size = hi - lo;
	va = lo;
	while (size && !ret) {
		unsigned f;

		if (!cs_disasm_iter(d->c->cs, &code, &size, &va, in)) {
			code++;
			size--;
			va++;
			continue;
		}
		f = d->c->arch == CS_ARCH_X86 ?
		    classify_x86(d->c->cs, in, &target) :
		    classify_arm64(in, &target);
		if ((f & (SYM_INSN_BRANCH | SYM_INSN_CALL)) && target > d->lo &&
		    target < d->hi)
			ret = add_entry(d, target);
	}
out:
	cs_free(in, 1);
	free(buf);
	return ret;
}

static int decode(struct symbolizer *s, struct symobj *o, struct code_cache *c,
		  uint64_t lo, uint64_t hi, uint64_t nlo, uint64_t nhi,
		  uint64_t off0, struct proc *p)
{
	struct decoder d = {
		.s = s, .o = o, .c = c, .lo = lo, .hi = hi,
	};
	uint8_t *buf;
	int ret, pass;
	bool again = true;

	buf = malloc(hi - lo);
	if (!buf)
		return SYM_ENOMEM;
	if (!read_vaddr(c, o, lo, buf, hi - lo)) {
		free(buf);
		return SYM_ENOCODE;
	}
	d.buf = buf;
	ret = entry_points(&d);
	d.nhard = d.nentries;
	if (!ret && nlo < lo)
		ret = neighbour_jumps(&d, nlo, lo);
	if (!ret && nhi > hi)
		ret = neighbour_jumps(&d, hi, nhi);
	for (pass = 0, ret = SYM_OK; again && !ret && pass < MAX_SWEEPS;
	     pass++) {
		ret = sweep(&d);
		if (!ret)
			ret = resync(&d, &again);
	}
	if (!ret && again)
		ret = sweep(&d);	/* the last forced starts, no more */
	if (!ret)
		ret = build_blocks(&d, p, off0);
	free(buf);
	free(d.v);
	free(d.extra);
	free(d.entries);
	free(d.forced);
	return ret;
}

/* ---- the cache ---- */

/* Index of the first procedure with start > off. */
static size_t proc_upper(const struct code_cache *c, uint64_t off)
{
	size_t lo = 0, hi = c->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->procs[mid]->code.start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * In a PLT section, each stub is a procedure of its own (named
 * target@plt), and so is the code between stubs (the resolver call at the
 * start of .plt), although one FDE covers the whole section.
 */
static bool plt_extent(const struct code_cache *c, uint64_t va, uint64_t *lo,
		       uint64_t *hi)
{
	size_t i, k = plt_index(c, va);

	for (i = 0; i < c->npltsec; i++) {
		if (va < c->pltsec[i].lo || va >= c->pltsec[i].hi)
			continue;
		*lo = c->pltsec[i].lo;
		*hi = c->pltsec[i].hi;
		if (k) {
			const struct plt_ent *e = &c->plt[k - 1];

			if (va < e->vaddr + e->size) {
				*lo = e->vaddr;
				*hi = e->vaddr + e->size;
				return true;
			}
			if (e->vaddr + e->size > *lo)
				*lo = e->vaddr + e->size;
		}
		if (k < c->nplt && c->plt[k].vaddr < *hi)
			*hi = c->plt[k].vaddr;
		return true;
	}
	return false;
}

/* The procedure's extent in vaddrs (see sym_code in symbolize.h). */
static int proc_extent(const struct symobj *o, const struct code_cache *c,
		       uint64_t va, uint64_t *lo, uint64_t *hi)
{
	struct symhit hit;
	const struct fde_range *f;
	bool have = symindex_lookup(&o->syms, va, &hit);

	if (plt_extent(c, va, lo, hi)) {
		/* as set */
	} else if (have && hit.covered && !hit.stretched) {
		*lo = hit.addr;
		*hi = hit.end;
	} else if ((f = fde_lookup(c, va)) != NULL) {
		*lo = f->lo;
		*hi = f->hi;
	} else if (have && !hit.stretched) {
		*lo = hit.addr;
		*hi = hit.end;
	} else {
		return SYM_ENOCODE;
	}
	if (*hi <= *lo || *hi - *lo > MAX_PROC_BYTES || va >= *hi)
		return SYM_ENOCODE;
	return SYM_OK;
}

/*
 * The code around [lo, hi) scanned for jumps into it: NEIGHBOUR_BYTES each
 * side within the PT_LOAD segment, the window before starting at a symbol
 * where there is one, so that the sweep starts on an instruction.
 */
static void neighbours(const struct symobj *o, uint64_t lo, uint64_t hi,
		       uint64_t *nlo, uint64_t *nhi)
{
	const struct symindex *si = &o->syms;
	size_t i, a = 0, b = si->n;

	*nlo = lo;
	*nhi = hi;
	for (i = 0; i < o->nloads; i++) {
		const struct loadseg *l = &o->loads[i];

		if (lo < l->vaddr || hi > l->vaddr + l->filesz)
			continue;
		*nlo = lo - l->vaddr > NEIGHBOUR_BYTES ?
		       lo - NEIGHBOUR_BYTES : l->vaddr;
		*nhi = l->vaddr + l->filesz - hi > NEIGHBOUR_BYTES ?
		       hi + NEIGHBOUR_BYTES : l->vaddr + l->filesz;
		break;
	}
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (si->v[mid].addr < *nlo)
			a = mid + 1;
		else
			b = mid;
	}
	if (a < si->n && si->v[a].addr < lo)
		*nlo = si->v[a].addr;
}

/* o's code cache, read on first use.  SYM_OK or why not. */
static int code_cache_of(struct symbolizer *s, struct symobj *o,
			 struct code_cache **out)
{
	if (!o->code) {
		o->code = calloc(1, sizeof(*o->code));
		if (!o->code)
			return SYM_ENOMEM;
		o->code->fd = -1;
		o->code->err = code_cache_load(s, o, o->code);
	}
	*out = o->code;
	return o->code->err;
}

const char *blocks_plt_stub(struct symbolizer *s, struct symobj *o,
			    uint64_t va, uint64_t *start)
{
	struct code_cache *c;
	size_t k;

	if (code_cache_of(s, o, &c))
		return NULL;
	k = plt_index(c, va);
	if (!k || va >= c->plt[k - 1].vaddr + c->plt[k - 1].size)
		return NULL;
	*start = c->plt[k - 1].vaddr;
	return c->plt[k - 1].name;
}

bool blocks_unwind_proc(struct symbolizer *s, struct symobj *o, uint64_t va,
			uint64_t *start)
{
	struct code_cache *c;
	const struct fde_range *f;

	size_t i;

	if (code_cache_of(s, o, &c) || !(f = fde_lookup(c, va)))
		return false;
	/* The PLT has FDEs too; its stubs are named target@plt, and its
	 * header or unnamed slots are no procedure. */
	for (i = 0; i < c->npltsec; i++)
		if (va >= c->pltsec[i].lo && va < c->pltsec[i].hi)
			return false;
	*start = f->lo;
	return true;
}

const char *sym_insn_text(struct symbolizer *s, const struct sym_object *obj,
			  const struct sym_code *code, size_t i)
{
	const struct sym_insn *in = &code->insns[i];
	struct sym_result res;
	const char *name;
	char *buf = NULL;
	uint64_t t = in->target;
	int len;

	if (!t || (in->flags & SYM_INSN_INDIRECT) ||
	    (!(in->flags & SYM_INSN_CALL) &&
	     (!(in->flags & SYM_INSN_BRANCH) ||
	      (t >= code->start && t < code->end))))
		return in->text;
	sym_resolve(s, obj, t, &res);
	name = res.frames[res.nframes - 1].function;
	/* Only a real name: "prog+0xOFFSET" is a file offset, not the
	 * address the operand shows. */
	if (!name || !(res.flags & (SYM_F_SYMBOL | SYM_F_DWARF | SYM_F_PLT |
				    SYM_F_UNWIND)))
		return in->text;
	if (t == res.symbol_start)
		len = asprintf(&buf, "%s <%s>", in->text, name);
	else
		len = asprintf(&buf, "%s <%s+0x%" PRIx64 ">", in->text, name,
			       t - res.symbol_start);
	if (len < 0)
		return in->text;
	name = strpool_add(symbolizer_pool(s), buf);
	free(buf);
	return name ? name : in->text;
}

int sym_code(struct symbolizer *s, const struct sym_object *obj,
	     uint64_t offset, const struct sym_code **out)
{
	struct sym_object vobj;
	struct symobj *o;
	struct code_cache *c;
	struct proc *p;
	struct sym_result res;
	uint64_t va, lo, hi, off0, nlo, nhi;
	size_t at;
	int ret = SYM_OK;

	if (!out)
		return SYM_EINVAL;
	*out = NULL;
	if (!s || !obj)
		return SYM_EINVAL;
	switch (obj->kind) {
	case SYM_OBJ_FILE:
	case SYM_OBJ_VDSO:
		break;
	case SYM_OBJ_KERNEL:
		/* Kernel code is readable only from a vmlinux image. */
		if (!symbolizer_vmlinux(s))
			return SYM_ENOCODE;
		vobj = (struct sym_object){
			.kind = SYM_OBJ_KERNEL, .path = symbolizer_vmlinux(s),
		};
		break;
	default:
		return SYM_ENOCODE;
	}
	o = symobj_get(s, obj->kind == SYM_OBJ_KERNEL ? &vobj : obj, &ret);
	if (!o)
		return ret;
	if (o->err)
		return o->err;
	if (o->flags & (SYM_F_STALE | SYM_F_NOFILE))
		return SYM_ENOCODE;
	ret = code_cache_of(s, o, &c);
	if (ret)
		return ret;
	at = proc_upper(c, offset);
	if (at && offset < c->procs[at - 1]->code.end) {
		*out = &c->procs[at - 1]->code;
		return SYM_OK;
	}
	if (!symobj_off_to_vaddr(o, offset, &va))
		return SYM_ENOCODE;
	ret = proc_extent(o, c, va, &lo, &hi);
	if (ret)
		return ret;
	off0 = offset - (va - lo);
	at = proc_upper(c, off0);
	if (at && c->procs[at - 1]->code.start == off0) {
		/* Same start, but the cached one ended before offset. */
		return SYM_ENOCODE;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return SYM_ENOMEM;
	neighbours(o, lo, hi, &nlo, &nhi);
	ret = decode(s, o, c, lo, hi, nlo, nhi, off0, p);
	if (!ret) {
		sym_resolve(s, obj, off0, &res);
		p->code.procedure = res.frames[res.nframes - 1].function;
		p->code.start = off0;
		p->code.end = off0 + (hi - lo);
	}
	if (!ret && ALLOC_GROW(c->procs, c->nprocs + 1, c->aprocs))
		ret = SYM_ENOMEM;
	if (ret) {
		proc_free(p);
		return ret;
	}
	memmove(&c->procs[at + 1], &c->procs[at],
		(c->nprocs - at) * sizeof(*c->procs));
	c->procs[at] = p;
	c->nprocs++;
	*out = &p->code;
	return SYM_OK;
}
