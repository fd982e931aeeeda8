/* SPDX-License-Identifier: MIT */
/*
 * The rows of .eh_frame, found through .eh_frame_hdr's sorted table and
 * read in place: only the FDE that covers an address is parsed, never the
 * whole section (libdwarf lists every FDE first: 0.2 s for gcc's cc1 and
 * its 45,000 FDEs).  The format: the System V AMD64 psABI and the Linux
 * Standard Base's .eh_frame description; the instructions are DWARF 5's
 * call frame instructions (section 6.4.2).
 */
#include <libdwarf/dwarf.h>
#include <string.h>

#include "common/util/bytes.h"
#include "unwind_int.h"

/* DW_EH_PE_* pointer encodings. */
enum {
	PE_ABSPTR = 0x00, PE_ULEB128 = 0x01, PE_UDATA2 = 0x02,
	PE_UDATA4 = 0x03, PE_UDATA8 = 0x04, PE_SLEB128 = 0x09,
	PE_SDATA2 = 0x0a, PE_SDATA4 = 0x0b, PE_SDATA8 = 0x0c,
	PE_PCREL = 0x10, PE_DATAREL = 0x30, PE_INDIRECT = 0x80,
	PE_OMIT = 0xff,
};

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

/* A pointer in encoding enc; datarel is relative to base. */
static uint64_t get_ptr(const struct ehframe *e, struct bytes *c, uint8_t enc,
			uint64_t base)
{
	uint64_t field = vaddr_of(e, c->p), v;

	if (enc == PE_OMIT || (enc & PE_INDIRECT)) {
		c->bad = 1;
		return 0;
	}
	switch (enc & 0x0f) {
	case PE_ABSPTR: v = bytes_u(c, 8); break;
	case PE_ULEB128: v = bytes_uleb(c); break;
	case PE_UDATA2: v = bytes_u(c, 2); break;
	case PE_UDATA4: v = bytes_u(c, 4); break;
	case PE_UDATA8: v = bytes_u(c, 8); break;
	case PE_SLEB128: v = (uint64_t)bytes_sleb(c); break;
	case PE_SDATA2: v = (uint64_t)(int64_t)(int16_t)bytes_u(c, 2); break;
	case PE_SDATA4: v = (uint64_t)(int64_t)(int32_t)bytes_u(c, 4); break;
	case PE_SDATA8: v = bytes_u(c, 8); break;
	default: c->bad = 1; return 0;
	}
	switch (enc & 0x70) {
	case 0: return v;
	case PE_PCREL: return v + field;
	case PE_DATAREL: return v + base;
	default: c->bad = 1; return 0;
	}
}

/* Size of a fixed-size pointer encoding, 0 for a variable one. */
static unsigned enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case PE_UDATA2: case PE_SDATA2: return 2;
	case PE_UDATA4: case PE_SDATA4: return 4;
	case PE_ABSPTR: case PE_UDATA8: case PE_SDATA8: return 8;
	default: return 0;
	}
}

int unw_ehf_init(struct ehframe *e, const uint8_t *image, size_t size,
		 const struct unw_seg *segs, size_t nsegs,
		 uint64_t hdr_offset,
		 uint64_t hdr_vaddr)
{
	struct bytes c;
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
	if (bytes_u(&c, 1) != 1)		/* version */
		return -1;
	ptr_enc = (uint8_t)bytes_u(&c, 1);
	count_enc = (uint8_t)bytes_u(&c, 1);
	table_enc = (uint8_t)bytes_u(&c, 1);
	/* The table is binary-searchable only with 4-byte datarel
	 * entries, what every linker writes. */
	if (table_enc != (PE_DATAREL | PE_SDATA4) || ptr_enc == PE_OMIT ||
	    count_enc == PE_OMIT)
		return -1;
	get_ptr(e, &c, ptr_enc, hdr_vaddr);
	e->count = get_ptr(e, &c, count_enc, hdr_vaddr);
	if (c.bad || e->count > (uint64_t)(c.end - c.p) / 8)
		return -1;
	e->table = c.p;
	return 0;
}

/* ---- CIEs and FDEs ------------------------------------------------------ */

struct cie {
	uint64_t caf;		/* code alignment factor */
	int64_t daf;		/* data alignment factor */
	uint64_t ra;		/* return address column */
	uint8_t fde_enc;
	int aug_z;		/* augmentation data length present */
	int signal;
	const uint8_t *insns, *end;
};

/* The length field at *c: the end of the entry, NULL if malformed. */
static const uint8_t *entry_end(struct bytes *c)
{
	uint64_t len = bytes_u(c, 4);

	/* The 64-bit format (its ids are 8 bytes): left to libdwarf. */
	if (len == 0xffffffffu)
		return NULL;
	if (c->bad || len > (uint64_t)(c->end - c->p))
		return NULL;
	return c->p + len;
}

static int parse_cie(const struct ehframe *e, const uint8_t *at,
		     struct cie *cie)
{
	struct bytes c = { at, e->image + e->size, 0 };
	const uint8_t *end = entry_end(&c), *aug;
	uint8_t version;
	size_t augl;

	if (!end)
		return -1;
	c.end = end;
	if (bytes_u(&c, 4) != 0)		/* CIE id */
		return -1;
	version = (uint8_t)bytes_u(&c, 1);
	if (c.bad || (version != 1 && version != 3))
		return -1;
	aug = c.p;
	augl = strnlen((const char *)aug, (size_t)(end - aug));
	if (augl == (size_t)(end - aug))
		return -1;
	c.p = aug + augl + 1;
	memset(cie, 0, sizeof(*cie));
	cie->fde_enc = PE_ABSPTR;
	if (augl >= 2 && aug[0] == 'e' && aug[1] == 'h')
		return -1;		/* GCC 2's "eh": never seen since */
	cie->caf = bytes_uleb(&c);
	cie->daf = bytes_sleb(&c);
	cie->ra = version == 1 ? bytes_u(&c, 1) : bytes_uleb(&c);
	if (augl && aug[0] == 'z') {
		uint64_t dlen = bytes_uleb(&c);
		const uint8_t *dend;
		size_t i;

		if (c.bad || dlen > (uint64_t)(end - c.p))
			return -1;
		dend = c.p + dlen;
		cie->aug_z = 1;
		for (i = 1; i < augl; i++) {
			switch (aug[i]) {
			case 'R':
				cie->fde_enc = (uint8_t)bytes_u(&c, 1);
				break;
			case 'L':
				bytes_u(&c, 1);	/* LSDA encoding */
				break;
			case 'P': {
				uint8_t penc = (uint8_t)bytes_u(&c, 1);
				unsigned n = enc_size(penc);

				/* The personality routine: skipped. */
				if (n)
					bytes_u(&c, n);
				else if ((penc & 0x0f) == PE_ULEB128)
					bytes_uleb(&c);
				else if ((penc & 0x0f) == PE_SLEB128)
					bytes_sleb(&c);
				else
					return -1;
				break;
			}
			case 'S':
				cie->signal = 1;
				break;
			case 'B':		/* AArch64 BTI */
			case 'G':		/* MTE tagged frames */
				break;
			default:
				return -1;
			}
		}
		if (c.bad || c.p > dend)
			return -1;
		c.p = dend;
	} else if (augl) {
		return -1;
	}
	if (c.bad || cie->caf == 0)
		return -1;
	cie->insns = c.p;
	cie->end = end;
	return 0;
}

/* ---- the call frame instructions ---------------------------------------- */

struct state {
	struct rule cfa;
	struct rule reg[UNW_NREGS];
};

struct run {
	const struct ehframe *e;
	const struct cie *cie;
	uint64_t target, loc, lo, hi;
	struct state s, init;
	struct state stack[MAX_REMEMBER];
	int depth;
	int done;		/* loc passed the target: row complete */
	int bad;		/* an impossible location */
};

static void set_reg(struct run *r, uint64_t reg, struct rule ru)
{
	if (reg < UNW_NREGS)
		r->s.reg[reg] = ru;
	/* Other registers (vector registers) do not matter here. */
}

/* Advance the location; stop once it passes the target. */
static void advance(struct run *r, uint64_t delta)
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

/* Run instructions [p, end) until the row of the target is known.
 * -1 on what this reader cannot follow. */
static int execute(struct run *r, const uint8_t *p, const uint8_t *end,
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
			u = get_ptr(r->e, &c, r->cie->fde_enc, 0);
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
	const uint8_t *fde = find_fde(e, vaddr), *end, *cie_at;
	struct bytes c;
	struct cie cie;
	struct run r;
	uint64_t start, range;
	uint32_t cie_ptr;
	unsigned i;

	if (!fde)
		return 0;
	c.p = fde;
	c.end = e->image + e->size;
	c.bad = 0;
	end = entry_end(&c);
	if (!end)
		return -1;
	c.end = end;
	cie_ptr = (uint32_t)bytes_u(&c, 4);
	if (c.bad || !cie_ptr ||
	    cie_ptr > (uint64_t)(c.p - 4 - e->image))
		return -1;
	cie_at = c.p - 4 - cie_ptr;
	if (parse_cie(e, cie_at, &cie))
		return -1;
	start = get_ptr(e, &c, cie.fde_enc, 0);
	range = get_ptr(e, &c, cie.fde_enc & 0x0f, 0);
	if (c.bad)
		return -1;
	if (vaddr < start || vaddr - start >= range)
		return 0;
	if (cie.aug_z) {
		uint64_t dlen = bytes_uleb(&c);

		if (c.bad || dlen > (uint64_t)(c.end - c.p))
			return -1;
		c.p += dlen;
	}
	memset(&r, 0, sizeof(r));
	r.e = e;
	r.cie = &cie;
	r.target = vaddr;
	r.loc = r.lo = start;
	r.hi = start + range;
	for (i = 0; i < UNW_NREGS; i++)
		r.s.reg[i].kind = R_SAME;
	r.s.cfa.kind = R_UNDEF;
	if (execute(&r, cie.insns, cie.end, 1) || r.done)
		return -1;	/* a CIE does not advance */
	r.init = r.s;
	if (execute(&r, c.p, c.end, 0) || r.s.cfa.kind == R_UNDEF)
		return -1;
	memset(row, 0, sizeof(*row));
	row->lo = r.lo;
	row->hi = r.hi;
	row->has_cfi = 1;
	row->signal = (uint8_t)cie.signal;
	row->cfa = r.s.cfa;
	for (i = 0; i < UNW_NREGS; i++)
		row->reg[i] = r.s.reg[i];
	/* The return address column is the CIE's; only 16 on x86-64. */
	if (cie.ra != UNW_REG_IP)
		return -1;
	return 1;
}
