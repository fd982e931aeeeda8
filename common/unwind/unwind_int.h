/* SPDX-License-Identifier: MIT */
/*
 * The unwinder's insides, shared by unwind.c (objects, rows, walking) and
 * ehframe.c (the rows of .eh_frame, found through .eh_frame_hdr).
 */
#ifndef COMMON_UNWIND_INT_H
#define COMMON_UNWIND_INT_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* The word at addr of the stack copy (st->word bytes, zero-extended):
 * 0, or -1 when it is not all in the copy. */
static inline int unw_stack_word(const struct unw_state *st, uint64_t addr,
				 uint64_t *v)
{
	uint32_t w32;

	if (addr < st->sp0 || addr - st->sp0 > st->len ||
	    st->len - (addr - st->sp0) < st->word)
		return -1;
	if (st->word == 4) {
		memcpy(&w32, st->stack + (addr - st->sp0), 4);
		*v = w32;
	} else {
		memcpy(v, st->stack + (addr - st->sp0), 8);
	}
	return 0;
}

/* ---- the Go runtime (gort.c) ---------------------------------------------- */

enum go_kind {
	GO_TOP = 1,	/* a goroutine's or thread's entry: goexit, mstart */
	GO_SWITCH,	/* switches stacks, the way back out of reach */
	GO_VDSO,	/* calls the vDSO on g0, its own SP kept in r12 */
	GO_SIGRETURN,	/* the signal handlers' sa_restorer */
};

#define UNW_GO_FUNCS 16

/* The runtime's functions of one Go program, by link-time address. */
struct unw_go {
	struct go_fn {
		uint64_t lo, hi;
		uint8_t kind;
		uint32_t frame;		/* GO_VDSO: the prologue's sub from rsp */
		uint32_t r12_at;	/* GO_VDSO: the offset past mov %rsp,%r12 */
	} fn[UNW_GO_FUNCS];
	size_t n;
};

/* Fill g from the ELF file fd's .symtab if its sections (nsh headers sh,
 * their names names[0, names_len)) are a Go program's; g->n stays 0
 * otherwise, or when the table cannot be read. */
void unw_go_read(struct unw_go *g, int fd, const Elf64_Shdr *sh, size_t nsh,
		 const char *names, size_t names_len);

/* The function of g holding vaddr, or NULL. */
const struct go_fn *unw_go_find(const struct unw_go *g, uint64_t vaddr);

/* The step from st's frame, at vaddr in f: an enum unw_result, or -1
 * when f's CFI (or frame pointers) steps it as any other. */
int unw_go_step(struct unw_state *st, const struct go_fn *f, uint64_t vaddr);

#endif
