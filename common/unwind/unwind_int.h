/* SPDX-License-Identifier: MIT */
/*
 * The unwinder's insides, shared by unwind.c (objects, rows, walking) and
 * ehframe.c (the rows of .eh_frame, found through .eh_frame_hdr).
 */
#ifndef COMMON_UNWIND_INT_H
#define COMMON_UNWIND_INT_H

#include <stddef.h>
#include <stdint.h>

#include "unwind.h"

enum rule_kind {
	R_SAME,		/* the caller's value is this frame's */
	R_UNDEF,	/* no value (for the return address: no caller) */
	R_OFFSET,	/* saved at CFA + off */
	R_VAL_OFFSET,	/* value CFA + off */
	R_REG,		/* in register reg */
	R_EXPR,		/* saved at the address expr computes (CFA pushed) */
	R_VAL_EXPR,	/* value expr computes (CFA pushed) */
	R_CFA_REG,	/* CFA: reg + off */
	R_CFA_EXPR,	/* CFA: value of expr */
};

struct rule {
	uint8_t kind;
	uint8_t reg;
	uint16_t len;		/* expression bytes */
	int64_t off;
	const uint8_t *expr;	/* in the object's mapped image */
};

/* One row of the CFI table, valid over [lo, hi).  A row without CFI
 * (has_cfi 0) remembers that no FDE covers lo. */
struct row {
	uint64_t lo, hi;
	uint8_t has_cfi;
	uint8_t signal;		/* the CIE says signal frame ('S') */
	struct rule cfa;
	struct rule reg[UNW_NREGS];
};

/* .eh_frame through .eh_frame_hdr's sorted table, read in place. */
struct ehframe {
	const uint8_t *image;	/* the whole file */
	size_t size;
	const uint8_t *table;	/* the hdr's (initial location, FDE) pairs */
	uint64_t count;
	uint64_t hdr_vaddr;	/* datarel base of the table */
	uint64_t image_vaddr;	/* link-time address of image[0]: PIC */
	const struct unw_seg {
		uint64_t offset, vaddr, filesz;
	} *segs;
	size_t nsegs;
};

/* Set up e for the image with the given PT_LOAD segments and the
 * PT_GNU_EH_FRAME segment at hdr_offset (file offset) / hdr_vaddr.
 * -1 when the header is not one this reader handles (the caller then
 * uses libdwarf). */
int unw_ehf_init(struct ehframe *e, const uint8_t *image, size_t size,
		 const struct unw_seg *segs, size_t nsegs,
		 uint64_t hdr_offset,
		 uint64_t hdr_vaddr);

/* The row at vaddr: 1 filled, 0 no FDE covers vaddr, -1 the CFI there
 * is malformed or uses what this reader does not (the caller may ask
 * libdwarf). */
int unw_ehf_row(const struct ehframe *e, uint64_t vaddr, struct row *row);

#endif
