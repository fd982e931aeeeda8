/* SPDX-License-Identifier: MIT */
/*
 * The framing of .eh_frame, read in place: DW_EH_PE_* pointer encodings,
 * and the headers of CIEs and FDEs (the System V AMD64 psABI and the
 * Linux Standard Base's .eh_frame description).  The one reader of
 * both, for the symbolizer's procedure extents (symbolize/procs.c) and
 * the unwinder's rows (common/unwind/ehframe.c); interpreting the call
 * frame instructions that follow a header is the unwinder's job.
 *
 * Everything is read through a struct bytes (bytes.h), so nothing is
 * read past the bounds a caller gives.  Only the 32-bit format (4-byte
 * lengths and ids) is parsed: no compiler writes .eh_frame in the 64-bit
 * one, and the unwinder leaves such entries to libdwarf.
 */
#ifndef COMMON_CFI_H
#define COMMON_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"

/* DW_EH_PE_*: the low nibble is the value's format, 0x70 its base. */
enum {
	CFI_PE_ABSPTR = 0x00, CFI_PE_ULEB128 = 0x01, CFI_PE_UDATA2 = 0x02,
	CFI_PE_UDATA4 = 0x03, CFI_PE_UDATA8 = 0x04, CFI_PE_SLEB128 = 0x09,
	CFI_PE_SDATA2 = 0x0a, CFI_PE_SDATA4 = 0x0b, CFI_PE_SDATA8 = 0x0c,
	CFI_PE_PCREL = 0x10, CFI_PE_DATAREL = 0x30, CFI_PE_INDIRECT = 0x80,
	CFI_PE_OMIT = 0xff,
};

/*
 * What a pointer's base is relative to.  A pcrel pointer is relative to
 * its own address: at_vaddr + (its byte - at), so at is any byte of the
 * buffer whose link-time address is known.  A datarel one is relative to
 * data, and refused unless has_data (.eh_frame_hdr's base is its own
 * start; FDEs have none on x86-64 or AArch64).
 */
struct cfi_bases {
	const uint8_t *at;
	uint64_t at_vaddr;
	uint64_t data;
	bool has_data;
};

/*
 * The value of a pointer in format enc & 0x0f, without its base: what an
 * FDE's address range is, and how a CIE's personality pointer is
 * skipped.  An unknown format sets c->bad.
 */
uint64_t cfi_read_value(struct bytes *c, uint8_t enc);

/*
 * A pointer in encoding enc, its base applied (b).  Sets c->bad for an
 * unknown format, DW_EH_PE_omit, an indirect pointer (the address of a
 * GOT slot, not of code), and the bases .eh_frame does not use (textrel,
 * funcrel, aligned) or a datarel one without b->has_data.
 */
uint64_t cfi_read_ptr(struct bytes *c, uint8_t enc, const struct cfi_bases *b);

/*
 * The length field of the CIE or FDE at c->p: returns 1 with c->p past
 * it, *end the end of the entry and *wide set for the 64-bit format
 * (then only *end is of use: cfi_cie_read() and cfi_fde_read() refuse
 * it); 0 at the terminator (a zero length); -1 when the entry does not
 * fit before c->end or c is bad.
 */
int cfi_entry(struct bytes *c, const uint8_t **end, bool *wide);

/* A CIE: what its FDEs share. */
struct cfi_cie {
	uint64_t caf;		/* code alignment factor, never 0 */
	int64_t daf;		/* data alignment factor */
	uint64_t ra;		/* return address column */
	uint8_t fde_enc;	/* its FDEs' pointers ('R'), else absptr */
	bool aug_z;		/* its FDEs have augmentation data */
	bool signal;		/* its FDEs are signal frames ('S') */
	const uint8_t *insns, *end;	/* its initial instructions */
};

/*
 * The CIE whose length field is at at, in a buffer that ends at end.
 * 0, or -1 when it is malformed or not one this reader follows: the
 * 64-bit format, a version other than 1 or 3, an augmentation other
 * than "z" followed by R, L, P, S, B (AArch64 BTI) or G (MTE) (an empty
 * one is fine), a zero code alignment factor.
 */
int cfi_cie_read(const uint8_t *at, const uint8_t *end, struct cfi_cie *cie);

/* An FDE's header and its CIE. */
struct cfi_fde {
	struct cfi_cie cie;
	uint64_t start;		/* the first address it covers */
	uint64_t range;		/* how many bytes from there */
	/* Its instructions, past its augmentation data; insns NULL when
	 * that data does not fit (the header is still of use). */
	const uint8_t *insns, *end;
};

/*
 * The FDE whose length field is at at, in a buffer [start, end) that
 * holds its CIE too (its CIE pointer counts back from the pointer's own
 * byte, no further than start); b gives the bases of its pointers.
 * Returns 1 filled, 0 when the entry is a CIE, -1 when it is malformed,
 * its CIE is refused (cfi_cie_read()) or its pointers cannot be read.
 */
int cfi_fde_read(const uint8_t *start, const uint8_t *at, const uint8_t *end,
		 const struct cfi_bases *b, struct cfi_fde *fde);

#endif
