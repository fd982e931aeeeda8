/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <elf.h>
#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util/array.h"
#include "common/util/bytes.h"
#include "common/util/regfile.h"
#include "unwind_int.h"

/* PCs remembered with their row, by address (return addresses repeat:
 * most lookups end here, before the binary search). */
#define RECENT_BITS 10
#define RECENT_SLOTS (1u << RECENT_BITS)

/* Bytes from an object's entry point counted as its entry code. */
#define ENTRY_STUB 64

/* ---- rules and rows ----------------------------------------------------- */

struct unw_object {
	char *path;
	const char *source;
	int fd;
	uint8_t *ehimage;	/* .eh_frame_hdr and .eh_frame's bytes */
	struct unw_seg ehseg;	/* where they lie: offset 0 of ehimage */
	uint64_t ehframe_lo, ehframe_hi;	/* .eh_frame's addresses,
						 * from its section header */
	Dwarf_Debug dbg;
	Dwarf_Cie *cies;
	Dwarf_Fde *fdes;
	Dwarf_Signed ncies, nfdes;
	int eh;			/* fdes from .eh_frame */
	uint64_t entry;		/* e_entry, 0 none */

	struct unw_seg *segs;
	size_t nsegs, alloc_segs;
	/* PLT sections (.plt, .plt.sec, .plt.got, .iplt) and their bytes:
	 * a static program's have no CFI, and their stubs' shape is known. */
	struct plt {
		uint64_t vaddr, size;
		uint8_t *bytes;
		int lazy0;	/* starts with the lazy PLT0 (push GOT+8) */
	} plt[4];
	size_t nplt;
	struct unw_go go;	/* a Go program's runtime functions */
	struct ehframe ehf;	/* .eh_frame read in place, if ehf_ok */
	int ehf_ok;
	int dwarf_tried;	/* libdwarf opened (the fallback) */
	uint64_t fallbacks;	/* rows the own reader left to libdwarf */

	struct row *rows;	/* in the order read */
	size_t nrows, alloc_rows;
	struct span {		/* the rows' ranges: sorted, disjoint */
		uint64_t lo, hi;
		uint32_t row;
	} *spans;
	size_t nspans, alloc_spans;
	struct recent {		/* PCs seen lately: vaddr + 1 (0: none) */
		uint64_t key;
		uint32_t row;
	} recent[RECENT_SLOTS];
	uint64_t hits, misses;
};

int unw_supported(void)
{
#if defined(__x86_64__)
	return 1;
#else
	return 0;
#endif
}

/* perf's x86-64 registers: AX BX CX DX SI DI BP SP IP (0-8), R8-R15
 * (16-23); their DWARF numbers, in the same order. */
static const uint8_t perf_to_dwarf[24] = {
	0, 3, 2, 1, 4, 5, 6, 7, 16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	8, 9, 10, 11, 12, 13, 14, 15,
};

uint64_t unw_perf_regs_mask(void)
{
	return 0xff01ffULL;
}

/* ---- objects ------------------------------------------------------------ */

/* The PLT sections' addresses and bytes (at most PLT_MAX each), and a
 * Go program's runtime functions; none read is no loss but the stubs'
 * steps, or Go's stack switches. */
#define PLT_MAX (1u << 20)

static void read_sections(struct unw_object *o, const Elf64_Ehdr *eh)
{
	Elf64_Shdr *sh = NULL, *names;
	char *str = NULL;
	size_t i;

	/* The stubs' shapes are x86-64's. */
	if (eh->e_machine != EM_X86_64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || !eh->e_shnum ||
	    eh->e_shstrndx >= eh->e_shnum)
		return;
	sh = calloc(eh->e_shnum, sizeof(*sh));
	if (!sh || regfile_pread(o->fd, sh, eh->e_shnum * sizeof(*sh),
			     eh->e_shoff))
		goto out;
	names = &sh[eh->e_shstrndx];
	if (names->sh_size > PLT_MAX)
		goto out;
	str = malloc(names->sh_size + 1);
	if (!str || regfile_pread(o->fd, str, names->sh_size, names->sh_offset))
		goto out;
	str[names->sh_size] = '\0';
	for (i = 0; i < eh->e_shnum && o->nplt < 4; i++) {
		const Elf64_Shdr *s = &sh[i];
		const char *name = s->sh_name < names->sh_size ?
				   str + s->sh_name : "";
		struct plt *p = &o->plt[o->nplt];

		if (!strcmp(name, ".eh_frame") && s->sh_addr &&
		    s->sh_addr + s->sh_size > s->sh_addr) {
			o->ehframe_lo = s->sh_addr;
			o->ehframe_hi = s->sh_addr + s->sh_size;
		}
		if (s->sh_type != SHT_PROGBITS ||
		    !(s->sh_flags & SHF_EXECINSTR) || !s->sh_size ||
		    s->sh_size > PLT_MAX || (strcmp(name, ".plt") &&
		    strcmp(name, ".plt.sec") && strcmp(name, ".plt.got") &&
		    strcmp(name, ".iplt")))
			continue;
		p->bytes = malloc(s->sh_size);
		if (!p->bytes)
			break;
		if (regfile_pread(o->fd, p->bytes, s->sh_size, s->sh_offset)) {
			free(p->bytes);
			p->bytes = NULL;
			continue;
		}
		p->vaddr = s->sh_addr;
		p->size = s->sh_size;
		/* pushq GOT+8(%rip), after an endbr64 or not */
		p->lazy0 = !strcmp(name, ".plt") &&
			   ((p->size >= 2 && p->bytes[0] == 0xff &&
			     p->bytes[1] == 0x35) ||
			    (p->size >= 6 && !memcmp(p->bytes,
			     "\xf3\x0f\x1e\xfa\xff\x35", 6)));
		o->nplt++;
	}
	unw_go_read(&o->go, o->fd, sh, eh->e_shnum, str, names->sh_size);
out:
	free(str);
	free(sh);
}

/*
 * Copy, from the load segment ld, .eh_frame_hdr (hdr) and .eh_frame: only
 * the bytes from the first to the end of the last when the section
 * headers place .eh_frame in ld, else the whole segment.  The first
 * sample of a large program is unwound while the sample buffers fill:
 * node's segment is 50 MB, its two tables 3.4 MB.
 */
static int copy_eh(struct unw_object *o, const Elf64_Phdr *ld,
		   const Elf64_Phdr *hdr)
{
	uint64_t lo = ld->p_vaddr, hi = ld->p_vaddr + ld->p_filesz;

	if (o->ehframe_lo >= lo && o->ehframe_hi <= hi &&
	    o->ehframe_lo < o->ehframe_hi) {
		lo = hdr->p_vaddr < o->ehframe_lo ? hdr->p_vaddr :
		     o->ehframe_lo;
		hi = hdr->p_vaddr + hdr->p_filesz > o->ehframe_hi ?
		     hdr->p_vaddr + hdr->p_filesz : o->ehframe_hi;
		if (hi > ld->p_vaddr + ld->p_filesz)
			hi = ld->p_vaddr + ld->p_filesz;
	}
	/* At most 256 MiB: .eh_frame of the largest programs is tens. */
	if (hi - lo > (256u << 20))
		return -1;
	o->ehimage = malloc(hi > lo ? hi - lo : 1);
	if (!o->ehimage ||
	    regfile_pread(o->fd, o->ehimage, hi - lo,
			  ld->p_offset + (lo - ld->p_vaddr)))
		return -1;
	o->ehseg.offset = 0;
	o->ehseg.vaddr = lo;
	o->ehseg.filesz = hi - lo;
	return 0;
}

/*
 * The PT_LOAD segments, the entry point, and .eh_frame_hdr's segment
 * (PT_GNU_EH_FRAME) if the file has one this reader handles.  The
 * load segment holding .eh_frame_hdr and .eh_frame is copied, not
 * mapped: a file the profiled program truncates must not be a SIGBUS
 * here.  A 64-bit little-endian ELF only (x86-64).
 */
static int read_segments(struct unw_object *o)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL, hdr = { .p_type = PT_NULL };
	const Elf64_Phdr *ld = NULL;
	size_t i;
	int ret = -1;

	if (regfile_pread(o->fd, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || !eh.e_phnum)
		return -1;
	o->entry = eh.e_entry;
	read_sections(o, &eh);
	ph = calloc(eh.e_phnum, sizeof(*ph));
	if (!ph || regfile_pread(o->fd, ph, eh.e_phnum * sizeof(*ph), eh.e_phoff))
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_GNU_EH_FRAME)
			hdr = ph[i];
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ALLOC_GROW(o->segs, o->nsegs + 1, o->alloc_segs))
			goto out;
		o->segs[o->nsegs].offset = ph[i].p_offset;
		o->segs[o->nsegs].vaddr = ph[i].p_vaddr;
		o->segs[o->nsegs].filesz = ph[i].p_filesz;
		o->nsegs++;
	}
	ret = 0;
	for (i = 0; hdr.p_type == PT_GNU_EH_FRAME && i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_LOAD &&
		    hdr.p_vaddr >= ph[i].p_vaddr &&
		    hdr.p_vaddr - ph[i].p_vaddr < ph[i].p_filesz)
			ld = &ph[i];
	if (ld && !copy_eh(o, ld, &hdr) &&
	    !unw_ehf_init(&o->ehf, o->ehimage, o->ehseg.filesz, &o->ehseg, 1,
			  hdr.p_vaddr - o->ehseg.vaddr, hdr.p_vaddr)) {
		o->ehf_ok = 1;
		o->source = ".eh_frame";
	}
out:
	free(ph);
	return ret;
}

/* Whether fd is a 32-bit ELF file (i386's: its CFI is not read). */
static int is_elf32(int fd)
{
	unsigned char id[EI_NIDENT];

	return !regfile_pread(fd, id, sizeof(id), 0) &&
	       !memcmp(id, ELFMAG, SELFMAG) && id[EI_CLASS] == ELFCLASS32;
}

/* libdwarf: the fallback when .eh_frame_hdr is missing or a row is
 * one the own reader does not follow; it lists every FDE first. */
static void open_cfi(struct unw_object *o)
{
	Dwarf_Error err = NULL;
	int res;

	if (o->dwarf_tried)
		return;
	o->dwarf_tried = 1;

	res = dwarf_init_b(o->fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL,
			   &o->dbg, &err);
	if (res != DW_DLV_OK) {
		if (res == DW_DLV_ERROR && err)
			dwarf_dealloc_error(o->dbg, err);
		o->dbg = NULL;
		if (!o->ehf_ok)
			o->source = "no CFI";
		return;
	}
	/* Registers no rule mentions keep their value (callee-saved). */
	dwarf_set_frame_rule_initial_value(o->dbg, DW_FRAME_SAME_VAL);
	res = dwarf_get_fde_list_eh(o->dbg, &o->cies, &o->ncies, &o->fdes,
				    &o->nfdes, &err);
	if (res == DW_DLV_OK && o->nfdes > 0) {
		o->eh = 1;
		if (!o->ehf_ok)
			o->source = ".eh_frame";
		return;
	}
	if (res == DW_DLV_ERROR && err) {
		dwarf_dealloc_error(o->dbg, err);
		err = NULL;
	}
	o->fdes = NULL;
	o->cies = NULL;
	res = dwarf_get_fde_list(o->dbg, &o->cies, &o->ncies, &o->fdes,
				 &o->nfdes, &err);
	if (res == DW_DLV_OK && o->nfdes > 0) {
		if (!o->ehf_ok)
			o->source = ".debug_frame";
		return;
	}
	if (res == DW_DLV_ERROR && err)
		dwarf_dealloc_error(o->dbg, err);
	o->fdes = NULL;
	o->cies = NULL;
	o->nfdes = 0;
	if (!o->ehf_ok)
		o->source = "no CFI";
}

struct unw_object *unw_object_open(const char *path, int fd)
{
	struct unw_object *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->path = strdup(path ? path : "");
	if (!o->path) {
		free(o);
		return NULL;
	}
	o->fd = fd >= 0 ? dup(fd) :
		fd == -1 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (o->fd < 0) {
		o->source = "no CFI: cannot open";
		return o;
	}
	if (read_segments(o)) {
		o->source = is_elf32(o->fd) ? "no CFI: a 32-bit ELF file" :
			    "no CFI: not an ELF file";
		return o;
	}
	if (!o->ehf_ok)
		open_cfi(o);
	return o;
}

void unw_object_free(struct unw_object *o)
{
	if (!o)
		return;
	if (o->dbg) {
		if (o->fdes)
			dwarf_fde_cie_list_dealloc(o->dbg, o->cies, o->ncies,
						   o->fdes, o->nfdes);
		dwarf_finish(o->dbg, NULL);
	}
	free(o->ehimage);
	while (o->nplt)
		free(o->plt[--o->nplt].bytes);
	if (o->fd >= 0)
		close(o->fd);
	free(o->segs);
	free(o->rows);
	free(o->spans);
	free(o->path);
	free(o);
}

const char *unw_object_source(const struct unw_object *o)
{
	return o->source;
}

int unw_object_has_cfi(const struct unw_object *o)
{
	return o->ehf_ok || o->nfdes > 0;
}

int unw_object_vaddr(const struct unw_object *o, uint64_t file_offset,
		     uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < o->nsegs; i++) {
		const struct unw_seg *s = &o->segs[i];

		if (file_offset >= s->offset &&
		    file_offset - s->offset < s->filesz) {
			*vaddr = file_offset - s->offset + s->vaddr;
			return 0;
		}
	}
	return -1;
}

size_t unw_object_cfi_bytes(const struct unw_object *o)
{
	return o->ehf_ok ? (size_t)o->ehseg.filesz : 0;
}

void unw_object_stats(const struct unw_object *o, uint64_t *hits,
		      uint64_t *misses)
{
	*hits = o->hits;
	*misses = o->misses;
}

/* ---- reading the CFI ---------------------------------------------------- */

/* A libdwarf answer for one column as a rule; -1 for what we cannot use. */
static int make_rule(struct rule *r, Dwarf_Small type, Dwarf_Signed offrel,
		     Dwarf_Signed reg, Dwarf_Signed off, Dwarf_Ptr block,
		     int cfa)
{
	memset(r, 0, sizeof(*r));
	switch (type) {
	case DW_EXPR_OFFSET:
		if (cfa) {
			if (!offrel || reg < 0 || reg >= UNW_NREGS)
				return -1;
			r->kind = R_CFA_REG;
			r->reg = (uint8_t)reg;
			r->off = off;
			return 0;
		}
		if (reg == DW_FRAME_UNDEFINED_VAL) {
			r->kind = R_UNDEF;
		} else if (reg == DW_FRAME_SAME_VAL) {
			r->kind = R_SAME;
		} else if (offrel && reg == DW_FRAME_CFA_COL3) {
			r->kind = R_OFFSET;
			r->off = off;
		} else if (!offrel && reg >= 0 && reg < UNW_NREGS) {
			r->kind = R_REG;
			r->reg = (uint8_t)reg;
		} else {
			return -1;
		}
		return 0;
	case DW_EXPR_VAL_OFFSET:
		if (cfa)
			return -1;
		r->kind = R_VAL_OFFSET;
		r->off = off;
		return 0;
	case DW_EXPR_EXPRESSION:
	case DW_EXPR_VAL_EXPRESSION:
		if (!block || off <= 0 || off > UINT16_MAX)
			return -1;
		r->kind = cfa ? R_CFA_EXPR :
			  type == DW_EXPR_EXPRESSION ? R_EXPR : R_VAL_EXPR;
		r->len = (uint16_t)off;
		r->expr = block;
		return 0;
	default:
		return -1;
	}
}

/* Ask libdwarf for the row at vaddr (has_cfi 0 when no FDE covers it). */
static void query_row_dwarf(struct unw_object *o, uint64_t vaddr,
			    struct row *row)
{
	Dwarf_Error err = NULL;
	Dwarf_Fde fde;
	Dwarf_Cie cie;
	Dwarf_Addr lo, hi, row_pc, next_pc;
	Dwarf_Small type;
	Dwarf_Signed offrel, reg, off;
	Dwarf_Ptr block;
	Dwarf_Bool more;
	char *aug = NULL;
	Dwarf_Unsigned bytes, ilen, caf;
	Dwarf_Signed daf;
	Dwarf_Small version;
	Dwarf_Half ra, offsize;
	Dwarf_Ptr init;
	unsigned col;

	memset(row, 0, sizeof(*row));
	row->lo = vaddr;
	row->hi = vaddr + 1;
	if (!o->nfdes)
		return;
	if (dwarf_get_fde_at_pc(o->fdes, vaddr, &fde, &lo, &hi, &err) !=
	    DW_DLV_OK)
		goto none;
	if (dwarf_get_fde_info_for_cfa_reg3_b(fde, vaddr, &type, &offrel, &reg,
					      &off, &block, &row_pc, &more,
					      &next_pc, &err) != DW_DLV_OK ||
	    make_rule(&row->cfa, type, offrel, reg, off, block, 1))
		goto none;
	row->lo = row_pc;
	row->hi = more && next_pc > vaddr ? next_pc : hi;
	for (col = 0; col < UNW_NREGS; col++) {
		Dwarf_Addr rpc, npc;

		if (dwarf_get_fde_info_for_reg3_b(fde, (Dwarf_Half)col, vaddr,
						  &type, &offrel, &reg, &off,
						  &block, &rpc, &more, &npc,
						  &err) != DW_DLV_OK ||
		    make_rule(&row->reg[col], type, offrel, reg, off, block, 0))
			goto none;
		/* Every column of the row shares its range; narrow to the
		 * smallest so the cached row is exact. */
		if (rpc > row->lo && rpc <= vaddr)
			row->lo = rpc;
		if (more && npc > vaddr && npc < row->hi)
			row->hi = npc;
	}
	if (dwarf_get_cie_of_fde(fde, &cie, &err) == DW_DLV_OK &&
	    dwarf_get_cie_info_b(cie, &bytes, &version, &aug, &caf, &daf, &ra,
				 &init, &ilen, &offsize, &err) == DW_DLV_OK &&
	    aug && strchr(aug, 'S'))
		row->signal = 1;
	if (row->lo > vaddr || row->hi <= vaddr) {
		row->lo = vaddr;
		row->hi = vaddr + 1;
	}
	row->has_cfi = 1;
	return;
none:
	if (err)
		dwarf_dealloc_error(o->dbg, err);
	memset(row, 0, sizeof(*row));
	row->lo = vaddr;
	row->hi = vaddr + 1;
}

/* The row at vaddr: from .eh_frame in place, else from libdwarf. */
static void query_row(struct unw_object *o, uint64_t vaddr, struct row *row)
{
	if (o->ehf_ok) {
		int r = unw_ehf_row(&o->ehf, vaddr, row);

		if (r == 1)
			return;
		if (r == 0) {
			memset(row, 0, sizeof(*row));
			row->lo = vaddr;
			row->hi = vaddr + 1;
			return;
		}
		o->fallbacks++;
		open_cfi(o);
	}
	query_row_dwarf(o, vaddr, row);
}

void unw_object_use_libdwarf(struct unw_object *o)
{
	o->ehf_ok = 0;
	o->nrows = 0;
	o->nspans = 0;
	memset(o->recent, 0, sizeof(o->recent));
	open_cfi(o);
}

/* The row for vaddr: kept, or read and kept.  The pointer is valid
 * until the next call. */
static const struct row *find_row(struct unw_object *o, uint64_t vaddr)
{
	struct recent *rc = &o->recent[(vaddr * 0x9e3779b97f4a7c15ULL) >>
				       (64 - RECENT_BITS)];
	size_t lo = 0, hi = o->nspans;
	struct row row;

	if (rc->key == vaddr + 1 && vaddr != UINT64_MAX) {
		o->hits++;
		return &o->rows[rc->row];
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->spans[mid].hi <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < o->nspans && o->spans[lo].lo <= vaddr) {
		o->hits++;
		rc->key = vaddr + 1;
		rc->row = o->spans[lo].row;
		return &o->rows[rc->row];
	}
	o->misses++;
	query_row(o, vaddr, &row);
	/* Keep the ranges disjoint: clip to the neighbours. */
	if (lo > 0 && o->spans[lo - 1].hi > row.lo)
		row.lo = o->spans[lo - 1].hi;
	if (lo < o->nspans && o->spans[lo].lo < row.hi)
		row.hi = o->spans[lo].lo;
	if (row.lo > vaddr || row.hi <= vaddr || o->nrows >= UINT32_MAX)
		return NULL;	/* cannot happen: vaddr is in no row */
	if (ALLOC_GROW(o->rows, o->nrows + 1, o->alloc_rows) ||
	    ALLOC_GROW(o->spans, o->nspans + 1, o->alloc_spans))
		return NULL;
	o->rows[o->nrows] = row;
	memmove(&o->spans[lo + 1], &o->spans[lo],
		(o->nspans - lo) * sizeof(*o->spans));
	o->spans[lo].lo = row.lo;
	o->spans[lo].hi = row.hi;
	o->spans[lo].row = (uint32_t)o->nrows;
	o->nspans++;
	rc->key = vaddr + 1;
	rc->row = (uint32_t)o->nrows;
	return &o->rows[o->nrows++];
}

/* ---- walking ------------------------------------------------------------ */

int unw_init(struct unw_state *st, const uint64_t *regs, uint64_t mask,
	     const uint8_t *stack, size_t len)
{
	unsigned bit, k = 0;

	memset(st, 0, sizeof(*st));
	for (bit = 0; bit < 64; bit++) {
		if (!(mask & (1ULL << bit)))
			continue;
		if (bit < sizeof(perf_to_dwarf) && perf_to_dwarf[bit] != 0xff) {
			st->r[perf_to_dwarf[bit]] = regs[k];
			st->valid |= 1u << perf_to_dwarf[bit];
		}
		k++;
	}
	if (!(st->valid & (1u << UNW_REG_IP)) ||
	    !(st->valid & (1u << UNW_REG_SP)))
		return -1;
	st->sp0 = st->r[UNW_REG_SP];
	st->stack = stack;
	st->len = len;
	st->first = 1;
	st->exact = 1;
	st->word = 8;
	return 0;
}

int unw_init_compat(struct unw_state *st, const uint64_t *regs,
		    uint64_t mask, const uint8_t *stack, size_t len)
{
	unsigned i;

	if (unw_init(st, regs, mask, stack, len))
		return -1;
	for (i = 0; i < UNW_NREGS; i++)
		st->r[i] &= 0xffffffffu;
	st->sp0 = st->r[UNW_REG_SP];
	st->word = 4;
	return 0;
}

static int read_stack(const struct unw_state *st, uint64_t addr,
		      uint64_t *v)
{
	return unw_stack_word(st, addr, v);
}

/* A fixed-size operand, sign-extended when sgn; -1 past the end. */
static int fixed(struct bytes *c, unsigned n, int sgn, uint64_t *v)
{
	uint64_t r = bytes_u(c, n);

	if (c->bad)
		return -1;
	if (sgn && n < 8 && (r & (1ULL << (8 * n - 1))))
		r |= ~0ULL << (8 * n);
	*v = r;
	return 0;
}

static int uleb(struct bytes *c, uint64_t *v)
{
	*v = bytes_uleb(c);
	return c->bad ? -1 : 0;
}

static int sleb(struct bytes *c, int64_t *v)
{
	*v = bytes_sleb(c);
	return c->bad ? -1 : 0;
}

enum { EVAL_OK, EVAL_DUMP, EVAL_BAD };

/*
 * Evaluate a DWARF expression of a CFI rule: the operators a compiler or
 * an assembler writes there (registers, constants, arithmetic, compare,
 * branch, deref).  With push, start with the CFA on the stack.
 */
static int eval(const struct unw_state *st, const struct rule *r, int push,
		uint64_t cfa, uint64_t *out)
{
	struct bytes c = { r->expr, r->expr + r->len, 0 };
	uint64_t s[16], a, b;
	int n = 0, steps = 0;

#define NEED(k) do { if (n < (k)) return EVAL_BAD; } while (0)
#define PUSH(v) do { \
	uint64_t v_ = (v); \
	if (n >= 16) \
		return EVAL_BAD; \
	s[n++] = v_; \
} while (0)
	if (push)
		PUSH(cfa);
	while (c.p < c.end) {
		uint8_t op = *c.p++;
		int64_t sv;
		uint64_t uv;

		if (++steps > 256)
			return EVAL_BAD;
		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			PUSH((uint64_t)(op - DW_OP_lit0));
			continue;
		}
		if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			unsigned reg = op - DW_OP_breg0;

			if (sleb(&c, &sv) || reg >= UNW_NREGS ||
			    !(st->valid & (1u << reg)))
				return EVAL_BAD;
			PUSH(st->r[reg] + (uint64_t)sv);
			continue;
		}
		switch (op) {
		case DW_OP_bregx:
			if (uleb(&c, &uv) || sleb(&c, &sv) ||
			    uv >= UNW_NREGS || !(st->valid & (1u << uv)))
				return EVAL_BAD;
			PUSH(st->r[uv] + (uint64_t)sv);
			break;
		case DW_OP_const1u: case DW_OP_const1s:
		case DW_OP_const2u: case DW_OP_const2s:
		case DW_OP_const4u: case DW_OP_const4s:
		case DW_OP_const8u: case DW_OP_const8s: {
			static const unsigned size[] = { 1, 1, 2, 2, 4, 4,
							 8, 8 };
			unsigned k = op - DW_OP_const1u;

			if (fixed(&c, size[k], k & 1, &uv))
				return EVAL_BAD;
			PUSH(uv);
			break;
		}
		case DW_OP_constu:
			if (uleb(&c, &uv))
				return EVAL_BAD;
			PUSH(uv);
			break;
		case DW_OP_consts:
			if (sleb(&c, &sv))
				return EVAL_BAD;
			PUSH((uint64_t)sv);
			break;
		case DW_OP_dup: NEED(1); PUSH(s[n - 1]); break;
		case DW_OP_drop: NEED(1); n--; break;
		case DW_OP_over: NEED(2); PUSH(s[n - 2]); break;
		case DW_OP_pick:
			if (fixed(&c, 1, 0, &uv) || uv >= (uint64_t)n)
				return EVAL_BAD;
			PUSH(s[n - 1 - uv]);
			break;
		case DW_OP_swap:
			NEED(2);
			a = s[n - 1]; s[n - 1] = s[n - 2]; s[n - 2] = a;
			break;
		case DW_OP_rot:
			NEED(3);
			a = s[n - 1]; s[n - 1] = s[n - 2]; s[n - 2] = s[n - 3];
			s[n - 3] = a;
			break;
		case DW_OP_deref:
			NEED(1);
			if (read_stack(st, s[n - 1], &s[n - 1]))
				return EVAL_DUMP;
			break;
		case DW_OP_abs:
			NEED(1);
			if ((int64_t)s[n - 1] < 0)
				s[n - 1] = -s[n - 1];
			break;
		case DW_OP_neg: NEED(1); s[n - 1] = -s[n - 1]; break;
		case DW_OP_not: NEED(1); s[n - 1] = ~s[n - 1]; break;
		case DW_OP_plus_uconst:
			NEED(1);
			if (uleb(&c, &uv))
				return EVAL_BAD;
			s[n - 1] += uv;
			break;
		case DW_OP_and: case DW_OP_div: case DW_OP_minus:
		case DW_OP_mod: case DW_OP_mul: case DW_OP_or:
		case DW_OP_plus: case DW_OP_shl: case DW_OP_shr:
		case DW_OP_shra: case DW_OP_xor: case DW_OP_eq:
		case DW_OP_ge: case DW_OP_gt: case DW_OP_le: case DW_OP_lt:
		case DW_OP_ne:
			NEED(2);
			b = s[--n];
			a = s[n - 1];
			switch (op) {
			case DW_OP_and: a &= b; break;
			case DW_OP_div:
				if (!b)
					return EVAL_BAD;
				/* INT64_MIN / -1 would trap. */
				a = b == UINT64_MAX ? -a :
				    (uint64_t)((int64_t)a / (int64_t)b);
				break;
			case DW_OP_minus: a -= b; break;
			case DW_OP_mod:
				if (!b)
					return EVAL_BAD;
				a %= b;
				break;
			case DW_OP_mul: a *= b; break;
			case DW_OP_or: a |= b; break;
			case DW_OP_plus: a += b; break;
			case DW_OP_shl: a = b < 64 ? a << b : 0; break;
			case DW_OP_shr: a = b < 64 ? a >> b : 0; break;
			case DW_OP_shra:
				a = (uint64_t)((int64_t)a >> (b < 63 ? b : 63));
				break;
			case DW_OP_xor: a ^= b; break;
			case DW_OP_eq: a = (int64_t)a == (int64_t)b; break;
			case DW_OP_ge: a = (int64_t)a >= (int64_t)b; break;
			case DW_OP_gt: a = (int64_t)a > (int64_t)b; break;
			case DW_OP_le: a = (int64_t)a <= (int64_t)b; break;
			case DW_OP_lt: a = (int64_t)a < (int64_t)b; break;
			default: a = (int64_t)a != (int64_t)b; break;
			}
			s[n - 1] = a;
			break;
		case DW_OP_skip:
		case DW_OP_bra:
			if (fixed(&c, 2, 1, &uv))
				return EVAL_BAD;
			if (op == DW_OP_bra) {
				NEED(1);
				if (!s[--n])
					break;
			}
			sv = (int64_t)uv;
			if ((sv < 0 && -sv > c.p - r->expr) || sv > c.end - c.p)
				return EVAL_BAD;
			c.p += sv;
			break;
		case DW_OP_nop:
			break;
		default:
			return EVAL_BAD;
		}
	}
	NEED(1);
	*out = s[n - 1];
	return EVAL_OK;
#undef NEED
#undef PUSH
}

static enum unw_result eval_result(int e)
{
	return e == EVAL_DUMP ? UNW_TRUNC_DUMP : UNW_TRUNC_BAD;
}

/* The frame-pointer step: the caller's frame is [rbp] = its rbp,
 * [rbp + w] = the return address (w: a stack word). */
static enum unw_result fp_step(struct unw_state *st)
{
	uint64_t bp = st->r[UNW_REG_BP], nbp, ra, w = st->word;

	if (!(st->valid & (1u << UNW_REG_BP)))
		return UNW_TRUNC_NO_CFI;
	if (!bp)
		return UNW_END;
	if (bp < st->r[UNW_REG_SP])
		return UNW_TRUNC_BAD;
	if (read_stack(st, bp, &nbp) || read_stack(st, bp + w, &ra))
		return UNW_TRUNC_DUMP;
	if (!ra)
		return UNW_END;
	st->r[UNW_REG_BP] = nbp;
	st->r[UNW_REG_SP] = bp + 2 * w;
	st->r[UNW_REG_IP] = ra;
	/* Only the callee-saved survive a call, and FP says nothing of
	 * them but rbp. */
	st->valid = (1u << UNW_REG_BP) | (1u << UNW_REG_SP) |
		    (1u << UNW_REG_IP);
	st->first = 0;
	st->exact = 0;
	return UNW_STEPPED;
}

/*
 * The sampled frame in a PLT stub without CFI: a stub is jumps around
 * one push, so where the return address is follows from the instruction
 * at the PC.  At the stub's jmp *GOT (after an endbr64 or not, bnd or
 * not) or its push, nothing is pushed yet: [sp]; at the jmp after the
 * push (a lazy stub's way to PLT0): [sp + 8].  In a lazy PLT's PLT0,
 * entered with the index pushed: [sp + 8] at its push of GOT+8, [sp +
 * 16] at its jmp.  Registers are all the caller's.  -1 where this does
 * not apply (other code): the caller tries frame pointers.
 */
static int plt_step(struct unw_state *st, const struct unw_object *o,
		    uint64_t vaddr)
{
	const struct plt *p = NULL;
	const uint8_t *b;
	uint64_t left, pushed, ra;
	size_t i, k = 0;

	for (i = 0; i < o->nplt && !p; i++)
		if (vaddr >= o->plt[i].vaddr &&
		    vaddr - o->plt[i].vaddr < o->plt[i].size)
			p = &o->plt[i];
	if (!p || !st->exact)
		return -1;
	b = p->bytes + (vaddr - p->vaddr);
	left = p->size - (vaddr - p->vaddr);
	if (b[0] == 0xf2)			/* bnd prefix */
		k = 1;
	if (p->lazy0 && vaddr - p->vaddr < 16) {
		/* PLT0: [endbr64] push GOT+8(%rip); [bnd] jmp *GOT+16 */
		if (!k && left >= 4 && !memcmp(b, "\xf3\x0f\x1e\xfa", 4))
			pushed = 8;
		else if (!k && left >= 2 && b[0] == 0xff && b[1] == 0x35)
			pushed = 8;
		else if (left > k + 1 && b[k] == 0xff && b[k + 1] == 0x25)
			pushed = 16;
		else
			return -1;
	} else if (!k && left >= 4 && !memcmp(b, "\xf3\x0f\x1e\xfa", 4))
		pushed = 0;			/* endbr64 */
	else if (left > k + 1 && b[k] == 0xff && b[k + 1] == 0x25)
		pushed = 0;			/* jmp *GOT(%rip) */
	else if (!k && (b[0] == 0x68 || b[0] == 0x6a))
		pushed = 0;			/* push $index */
	else if (left > k && (b[k] == 0xe9 || b[k] == 0xeb))
		pushed = 8;			/* jmp PLT0, index pushed */
	else
		return -1;
	if (read_stack(st, st->r[UNW_REG_SP] + pushed, &ra))
		return UNW_TRUNC_DUMP;
	if (!ra)
		return UNW_END;
	st->r[UNW_REG_SP] += pushed + 8;
	st->r[UNW_REG_IP] = ra;
	st->first = 0;
	st->exact = 0;
	return UNW_STEPPED;
}

static enum unw_result step(struct unw_state *st, struct unw_object *o,
			    uint64_t vaddr, int fp_fallback)
{
	const struct row *row = o ? find_row(o, vaddr) : NULL;
	uint64_t cfa, nr[UNW_NREGS];
	uint32_t nvalid = 0;
	unsigned col;
	int e;

	if (!row || !row->has_cfi) {
		/* The entry point's few instructions (the dynamic loader's
		 * _start has no CFI) are where a process begins. */
		if (o && o->entry && vaddr >= o->entry &&
		    vaddr - o->entry < ENTRY_STUB)
			return UNW_END;
		if (o && (e = plt_step(st, o, vaddr)) >= 0)
			return (enum unw_result)e;
		return fp_fallback ? fp_step(st) : UNW_TRUNC_NO_CFI;
	}
	if (row->cfa.kind == R_CFA_REG) {
		if (!(st->valid & (1u << row->cfa.reg)))
			return UNW_TRUNC_BAD;
		cfa = st->r[row->cfa.reg] + (uint64_t)row->cfa.off;
	} else {
		e = eval(st, &row->cfa, 0, 0, &cfa);
		if (e != EVAL_OK)
			return eval_result(e);
	}
	if (row->reg[UNW_REG_IP].kind == R_UNDEF)
		return UNW_END;
	for (col = 0; col < UNW_NREGS; col++) {
		const struct rule *r = &row->reg[col];
		uint64_t addr, v = 0;

		switch (r->kind) {
		case R_SAME:
			/* The return address column has no "same": its
			 * value would be this frame's PC. */
			if (col == UNW_REG_IP || !(st->valid & (1u << col)))
				continue;
			v = st->r[col];
			break;
		case R_UNDEF:
			continue;
		case R_OFFSET:
			addr = cfa + (uint64_t)r->off;
			if (read_stack(st, addr, &v)) {
				/* In the sampled frame, a register saved
				 * below the stack pointer (an epilogue that
				 * popped it) still holds its value. */
				if (st->first && addr < st->sp0 &&
				    col != UNW_REG_IP &&
				    (st->valid & (1u << col))) {
					v = st->r[col];
					break;
				}
				return UNW_TRUNC_DUMP;
			}
			break;
		case R_VAL_OFFSET:
			v = cfa + (uint64_t)r->off;
			break;
		case R_REG:
			if (!(st->valid & (1u << r->reg)))
				continue;
			v = st->r[r->reg];
			break;
		case R_EXPR:
		case R_VAL_EXPR:
			e = eval(st, r, 1, cfa, &addr);
			if (e != EVAL_OK)
				return eval_result(e);
			if (r->kind == R_EXPR && read_stack(st, addr, &addr))
				return UNW_TRUNC_DUMP;
			v = addr;
			break;
		default:
			return UNW_TRUNC_BAD;
		}
		nr[col] = v;
		nvalid |= 1u << col;
	}
	if (!(nvalid & (1u << UNW_REG_IP)))
		return UNW_TRUNC_BAD;
	/* The stack grows down: a caller's frame lies above.  A signal
	 * frame's registers come from the interrupted context, which may
	 * lie anywhere.  Only the sampled frame may have none of its own,
	 * its return address in a register (vfork pops it off the stack
	 * the child shares): that step moves the PC, the next ones the
	 * stack. */
	if (!row->signal &&
	    (cfa < st->r[UNW_REG_SP] ||
	     (cfa == st->r[UNW_REG_SP] &&
	      (!st->first || row->reg[UNW_REG_IP].kind != R_REG))))
		return UNW_TRUNC_BAD;
	if (!nr[UNW_REG_IP])
		return UNW_END;
	/* The caller's stack pointer is the CFA unless a rule says
	 * otherwise (a signal frame restores it from the context). */
	if (!(nvalid & (1u << UNW_REG_SP)) ||
	    row->reg[UNW_REG_SP].kind == R_SAME)
		nr[UNW_REG_SP] = cfa;
	nvalid |= 1u << UNW_REG_SP;
	for (col = 0; col < UNW_NREGS; col++)
		if (nvalid & (1u << col))
			st->r[col] = nr[col];
	st->valid = nvalid;
	st->first = 0;
	st->exact = row->signal;
	return UNW_STEPPED;
}

enum unw_result unw_step(struct unw_state *st, struct unw_object *o,
			 uint64_t vaddr, int fp_fallback)
{
	const struct go_fn *g = o && o->go.n ? unw_go_find(&o->go, vaddr) :
				NULL;
	/* Where the object is loaded: the looked-up PC less its link-time
	 * address. */
	uint64_t bias = st->r[UNW_REG_IP] - !st->exact - vaddr;
	int r;

	if (st->word == 4)
		return fp_fallback ? fp_step(st) : UNW_TRUNC_COMPAT;
	r = g ? unw_go_step(st, g, vaddr) : -1;
	if (r < 0)
		r = step(st, o, vaddr, fp_fallback);
	/* The kernel pushed the Go restorer's address for sigtramp to
	 * return to: the frame is at it, not at the byte before. */
	if (r == UNW_STEPPED && o && o->go.n &&
	    (g = unw_go_find(&o->go, st->r[UNW_REG_IP] - bias)) &&
	    g->kind == GO_SIGRETURN && st->r[UNW_REG_IP] - bias == g->lo)
		st->exact = 1;
	/* Past a signal frame whose stack the copy does not hold, the
	 * walk did not run out of copy: it is on another stack. */
	if (r == UNW_TRUNC_DUMP && st->elsewhere)
		r = UNW_TRUNC_SWITCH;
	return (enum unw_result)r;
}

static int rule_text(char *buf, size_t len, const char *name,
		     const struct rule *r)
{
	static const char *const kinds[] = {
		[R_SAME] = "same", [R_UNDEF] = "undef", [R_OFFSET] = "cfa",
		[R_VAL_OFFSET] = "val(cfa", [R_REG] = "r", [R_EXPR] = "expr",
		[R_VAL_EXPR] = "valexpr", [R_CFA_REG] = "r",
		[R_CFA_EXPR] = "expr",
	};
	int n = snprintf(buf, len, " %s=%s", name, kinds[r->kind]);
	uint16_t i;

	switch (r->kind) {
	case R_OFFSET:
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0,
			      "%+" PRId64, r->off);
		break;
	case R_VAL_OFFSET:
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0,
			      "%+" PRId64 ")", r->off);
		break;
	case R_REG:
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0, "%u",
			      r->reg);
		break;
	case R_CFA_REG:
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0,
			      "%u%+" PRId64, r->reg, r->off);
		break;
	case R_EXPR:
	case R_VAL_EXPR:
	case R_CFA_EXPR:
		for (i = 0; i < r->len; i++)
			n += snprintf(buf + n, len > (size_t)n ? len - n : 0,
				      "%c%02x", i ? ' ' : '(', r->expr[i]);
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0, ")");
		break;
	}
	return n;
}

int unw_object_row_text(struct unw_object *o, uint64_t vaddr, char *buf,
			size_t len)
{
	const struct row *row = find_row(o, vaddr);
	char name[8];
	unsigned col;
	int n;

	if (!row || !row->has_cfi)
		return -1;
	n = rule_text(buf, len, "cfa", &row->cfa);
	for (col = 0; col < UNW_NREGS; col++) {
		if (row->reg[col].kind == R_SAME)
			continue;
		snprintf(name, sizeof(name), "r%u", col);
		n += rule_text(buf + n, len > (size_t)n ? len - n : 0, name,
			       &row->reg[col]);
	}
	if (row->signal)
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0,
			      " signal");
	return n;
}
