/* SPDX-License-Identifier: MIT */
/*
 * The rows of .eh_frame, found through .eh_frame_hdr's sorted table and
 * read in place: only the FDE that covers an address is parsed, never the
 * whole section (libdwarf lists every FDE first: 0.2 s for gcc's cc1 and
 * its 45,000 FDEs).  The format: the System V AMD64 psABI and the Linux
 * Standard Base's .eh_frame description, read by common/util/cfi.c,
 * the symbolizer's reader too; the instructions are DWARF 5's call frame
 * instructions (section 6.4.2), interpreted here.
 */
#include <libdwarf/dwarf.h>
#include <string.h>

#include "common/util/bytes.h"
#include "common/util/cfi.h"
#include "unwind_int.h"

/* Nesting of DW_CFA_remember_state this reader follows. */
#define MAX_REMEMBER 8

/* n * factor without signed overflow (hostile operands wrap, they do
 * not trap). */
static int64_t scaled(uint64_t n, int64_t factor)
{
	return (int64_t)(n * (uint64_t)factor);
}

/* The link-time address of a byte of the image. */
static uint64_t vaddr_of(const struct ehframe *e, const uint8_t *p)
{
	uint64_t off = (uint64_t)(p - e->image);
	size_t i;

	for (i = 0; i < e->nsegs; i++)
		if (off >= e->segs[i].offset &&
		    off - e->segs[i].offset < e->segs[i].filesz)
			return off - e->segs[i].offset + e->segs[i].vaddr;
	return off;
}

/* The image byte at link-time address v, or NULL. */
static const uint8_t *at_vaddr(const struct ehframe *e, uint64_t v)
{
	size_t i;

	for (i = 0; i < e->nsegs; i++)
		if (v >= e->segs[i].vaddr &&
		    v - e->segs[i].vaddr < e->segs[i].filesz &&
		    e->segs[i].offset < e->size &&
		    v - e->segs[i].vaddr < e->size - e->segs[i].offset)
			return e->image + e->segs[i].offset +
			       (v - e->segs[i].vaddr);
	return NULL;
}

/*
 * The bases of the pointers of the header or FDE at p: .eh_frame_hdr's
 * datarel base is its own start (data); an FDE's pointers are absolute
 * or pcrel, and a datarel one is taken as relative to 0 (data), as
 * libgcc's unwinder has it outside i386.
 */
static struct cfi_bases bases_at(const struct ehframe *e, const uint8_t *p,
				 uint64_t data)
{
	struct cfi_bases b = {
		.at = p, .at_vaddr = vaddr_of(e, p), .data = data,
		.has_data = true,
	};

	return b;
}

int unw_ehf_init(struct ehframe *e, const uint8_t *image, size_t size,
		 const struct unw_seg *segs, size_t nsegs,
		 uint64_t hdr_offset,
		 uint64_t hdr_vaddr)
{
	struct bytes c;
	struct cfi_bases b;
	uint8_t ptr_enc, count_enc, table_enc;

	memset(e, 0, sizeof(*e));
	e->image = image;
	e->size = size;
	e->segs = segs;
	e->nsegs = nsegs;
	e->hdr_vaddr = hdr_vaddr;
	if (hdr_offset >= size || size - hdr_offset < 4)
		return -1;
	c.p = image + hdr_offset;
	c.end = image + size;
	c.bad = 0;
	b = bases_at(e, c.p, hdr_vaddr);
	if (bytes_u(&c, 1) != 1)		/* version */
		return -1;
	ptr_enc = (uint8_t)bytes_u(&c, 1);
	count_enc = (uint8_t)bytes_u(&c, 1);
	table_enc = (uint8_t)bytes_u(&c, 1);
	/* The table is binary-searchable only with 4-byte datarel
	 * entries, what every linker writes. */
	if (table_enc != (CFI_PE_DATAREL | CFI_PE_SDATA4) ||
	    ptr_enc == CFI_PE_OMIT || count_enc == CFI_PE_OMIT)
		return -1;
	cfi_read_ptr(&c, ptr_enc, &b);
	e->count = cfi_read_ptr(&c, count_enc, &b);
	if (c.bad || e->count > (uint64_t)(c.end - c.p) / 8)
		return -1;
	e->table = c.p;
	return 0;
}

/* ---- the call frame instructions ---------------------------------------- */

struct state {
	struct rule cfa;
	struct rule reg[UNW_NREGS];
};

struct cfa_run {
	const struct ehframe *e;
	const struct cfi_cie *cie;
	struct cfi_bases bases;	/* of the FDE's pointers */
	uint64_t target, loc, lo, hi;
	struct state s, init;
	struct state stack[MAX_REMEMBER];
	int depth;
	int done;		/* loc passed the target: row complete */
	int bad;		/* an impossible location */
};

static void set_reg(struct cfa_run *r, uint64_t reg, struct rule ru)
{
	if (reg < UNW_NREGS)
		r->s.reg[reg] = ru;
	/* Other registers (vector registers) do not matter here. */
}

/* Advance the location; stop once it passes the target. */
static void advance(struct cfa_run *r, uint64_t delta)
{
	uint64_t next;

	if (delta > (UINT64_MAX - r->loc) / r->cie->caf) {
		r->bad = 1;		/* wraps: a hostile factor */
		r->done = 1;
		return;
	}
	next = r->loc + delta * r->cie->caf;
	if (next > r->target) {
		r->hi = next < r->hi ? next : r->hi;
		r->done = 1;
		return;
	}
	r->loc = next;
	r->lo = next;
}

static int expr_rule(struct bytes *c, struct rule *ru, uint8_t kind)
{
	uint64_t len = bytes_uleb(c);

	if (c->bad || len == 0 || len > UINT16_MAX ||
	    len > (uint64_t)(c->end - c->p))
		return -1;
	memset(ru, 0, sizeof(*ru));
	ru->kind = kind;
	ru->len = (uint16_t)len;
	ru->expr = c->p;
	c->p += len;
	return 0;
}

/*
 * Run instructions [p, end) until the row of the target is known.
 * -1 on what this reader cannot follow.  The one switch over every
 * DW_CFA_* opcode: the interpreter is the named exception to the limit
 * on a function's length (docs/architecture.md), since splitting the
 * cases apart would only scatter one table.
 */
static int execute(struct cfa_run *r, const uint8_t *p, const uint8_t *end,
		   int in_cie)
{
	struct bytes c = { p, end, 0 };

	while (!c.bad && c.p < c.end && !r->done) {
		uint8_t op = (uint8_t)bytes_u(&c, 1), lo6 = op & 0x3f;
		uint64_t reg, u;
		struct rule ru;

		memset(&ru, 0, sizeof(ru));
		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			advance(r, lo6);
			continue;
		case DW_CFA_offset:
			ru.kind = R_OFFSET;
			ru.off = scaled(bytes_uleb(&c), r->cie->daf);
			set_reg(r, lo6, ru);
			continue;
		case DW_CFA_restore:
			if (in_cie)
				return -1;
			if (lo6 < UNW_NREGS)
				r->s.reg[lo6] = r->init.reg[lo6];
			continue;
		}
		switch (op) {
		case DW_CFA_nop:
			break;
		case DW_CFA_set_loc:
			u = cfi_read_ptr(&c, r->cie->fde_enc, &r->bases);
			if (u < r->loc)
				return -1;
			if (u > r->target) {
				r->hi = u < r->hi ? u : r->hi;
				r->done = 1;
			} else {
				r->loc = r->lo = u;
			}
			break;
		case DW_CFA_advance_loc1: advance(r, bytes_u(&c, 1)); break;
		case DW_CFA_advance_loc2: advance(r, bytes_u(&c, 2)); break;
		case DW_CFA_advance_loc4: advance(r, bytes_u(&c, 4)); break;
		case DW_CFA_offset_extended:
			reg = bytes_uleb(&c);
			ru.kind = R_OFFSET;
			ru.off = scaled(bytes_uleb(&c), r->cie->daf);
			set_reg(r, reg, ru);
			break;
		case DW_CFA_offset_extended_sf:
			reg = bytes_uleb(&c);
			ru.kind = R_OFFSET;
			ru.off = scaled((uint64_t)bytes_sleb(&c), r->cie->daf);
			set_reg(r, reg, ru);
			break;
		case DW_CFA_GNU_negative_offset_extended:
			reg = bytes_uleb(&c);
			ru.kind = R_OFFSET;
			ru.off = (int64_t)(0 - (uint64_t)scaled(bytes_uleb(&c),
							 r->cie->daf));
			set_reg(r, reg, ru);
			break;
		case DW_CFA_restore_extended:
			reg = bytes_uleb(&c);
			if (in_cie)
				return -1;
			if (reg < UNW_NREGS)
				r->s.reg[reg] = r->init.reg[reg];
			break;
		case DW_CFA_undefined:
		case DW_CFA_same_value:
			reg = bytes_uleb(&c);
			ru.kind = op == DW_CFA_undefined ? R_UNDEF : R_SAME;
			set_reg(r, reg, ru);
			break;
		case DW_CFA_register:
			reg = bytes_uleb(&c);
			u = bytes_uleb(&c);
			if (u >= UNW_NREGS)
				return -1;
			ru.kind = R_REG;
			ru.reg = (uint8_t)u;
			set_reg(r, reg, ru);
			break;
		case DW_CFA_remember_state:
			if (r->depth >= MAX_REMEMBER)
				return -1;
			r->stack[r->depth++] = r->s;
			break;
		case DW_CFA_restore_state:
			if (!r->depth)
				return -1;
			/* The CFA rule is remembered with the rest. */
			r->s = r->stack[--r->depth];
			break;
		case DW_CFA_def_cfa:
		case DW_CFA_def_cfa_sf:
			reg = bytes_uleb(&c);
			if (reg >= UNW_NREGS)
				return -1;
			r->s.cfa.kind = R_CFA_REG;
			r->s.cfa.reg = (uint8_t)reg;
			r->s.cfa.off = op == DW_CFA_def_cfa ?
				       (int64_t)bytes_uleb(&c) :
				       scaled((uint64_t)bytes_sleb(&c),
					      r->cie->daf);
			r->s.cfa.expr = NULL;
			r->s.cfa.len = 0;
			break;
		case DW_CFA_def_cfa_register:
			reg = bytes_uleb(&c);
			if (reg >= UNW_NREGS || r->s.cfa.kind != R_CFA_REG)
				return -1;
			r->s.cfa.reg = (uint8_t)reg;
			break;
		case DW_CFA_def_cfa_offset:
		case DW_CFA_def_cfa_offset_sf:
			if (r->s.cfa.kind != R_CFA_REG)
				return -1;
			r->s.cfa.off = op == DW_CFA_def_cfa_offset ?
				       (int64_t)bytes_uleb(&c) :
				       scaled((uint64_t)bytes_sleb(&c),
					      r->cie->daf);
			break;
		case DW_CFA_def_cfa_expression:
			if (expr_rule(&c, &r->s.cfa, R_CFA_EXPR))
				return -1;
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			reg = bytes_uleb(&c);
			if (expr_rule(&c, &ru, op == DW_CFA_expression ?
				      R_EXPR : R_VAL_EXPR))
				return -1;
			set_reg(r, reg, ru);
			break;
		case DW_CFA_val_offset:
		case DW_CFA_val_offset_sf:
			reg = bytes_uleb(&c);
			ru.kind = R_VAL_OFFSET;
			ru.off = op == DW_CFA_val_offset ?
				 scaled(bytes_uleb(&c), r->cie->daf) :
				 scaled((uint64_t)bytes_sleb(&c), r->cie->daf);
			set_reg(r, reg, ru);
			break;
		case DW_CFA_GNU_args_size:
			bytes_uleb(&c);
			break;
		default:
			return -1;
		}
	}
	return c.bad || r->bad ? -1 : 0;
}

/* The FDE whose initial location is the greatest at or below vaddr. */
static const uint8_t *find_fde(const struct ehframe *e, uint64_t vaddr)
{
	uint64_t lo = 0, hi = e->count;
	const uint8_t *t = e->table;

	if (!e->count)
		return NULL;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		int32_t init;

		memcpy(&init, t + mid * 8, 4);
		if (e->hdr_vaddr + (uint64_t)(int64_t)init <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	{
		int32_t init, fde;

		memcpy(&init, t + lo * 8, 4);
		memcpy(&fde, t + lo * 8 + 4, 4);
		if (e->hdr_vaddr + (uint64_t)(int64_t)init > vaddr)
			return NULL;
		return at_vaddr(e, e->hdr_vaddr + (uint64_t)(int64_t)fde);
	}
}

int unw_ehf_row(const struct ehframe *e, uint64_t vaddr, struct row *row)
{
	const uint8_t *fde = find_fde(e, vaddr);
	struct cfi_fde f;
	struct cfa_run r;
	unsigned i;

	if (!fde)
		return 0;
	memset(&r, 0, sizeof(r));
	r.bases = bases_at(e, fde, 0);
	/* The table points at FDEs only: a CIE there is malformed too. */
	if (cfi_fde_read(e->image, fde, e->image + e->size, &r.bases, &f) != 1)
		return -1;
	if (vaddr < f.start || vaddr - f.start >= f.range)
		return 0;
	if (!f.insns)
		return -1;
	r.e = e;
	r.cie = &f.cie;
	r.target = vaddr;
	r.loc = r.lo = f.start;
	r.hi = f.start + f.range;
	for (i = 0; i < UNW_NREGS; i++)
		r.s.reg[i].kind = R_SAME;
	r.s.cfa.kind = R_UNDEF;
	if (execute(&r, f.cie.insns, f.cie.end, 1) || r.done)
		return -1;	/* a CIE does not advance */
	r.init = r.s;
	if (execute(&r, f.insns, f.end, 0) || r.s.cfa.kind == R_UNDEF)
		return -1;
	memset(row, 0, sizeof(*row));
	row->lo = r.lo;
	row->hi = r.hi;
	row->has_cfi = 1;
	row->signal = (uint8_t)f.cie.signal;
	row->cfa = r.s.cfa;
	for (i = 0; i < UNW_NREGS; i++)
		row->reg[i] = r.s.reg[i];
	/* The return address column is the CIE's; only 16 on x86-64. */
	if (f.cie.ra != UNW_REG_IP)
		return -1;
	return 1;
}
