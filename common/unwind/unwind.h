/* SPDX-License-Identifier: MIT */
/*
 * The unwinder: the user call stack of one sample, walked while
 * collecting from what the sample carries (the user registers,
 * PERF_SAMPLE_REGS_USER, and a copy of the top of the user stack,
 * PERF_SAMPLE_STACK_USER) and the call-frame information (CFI) of each
 * object.
 *
 * - CFI comes from the object's .eh_frame, found through .eh_frame_hdr's
 *   sorted table and read in place (ehframe.c: only the FDE covering a
 *   PC is parsed); without that table, or for what that reader does not
 *   follow, from .eh_frame or .debug_frame through libdwarf, which lists
 *   every FDE first.  Each answer (one row of the CFI table: the rules
 *   over an address range) is kept in the object, sorted by address, so
 *   a PC seen before costs one binary search.  A PC without an FDE is
 *   remembered as such.
 * - A rule is one of: same value, undefined, saved at CFA+N, value
 *   CFA+N, in register R, or a DWARF expression (the PLT's CFA, a signal
 *   frame's saved registers); expressions are evaluated by a small stack
 *   machine, so no pattern is hard-coded.
 * - Memory is read only from the copied stack; a read outside it ends the
 *   walk (UNW_TRUNC_DUMP), it is never guessed.  In the sampled frame
 *   only, a register saved below the stack pointer (an epilogue) still
 *   holds its value and is read from the registers.
 * - Where an object has no CFI, a sampled PC in a PLT stub (a static
 *   program's .plt) is stepped by the stub's known shape (jumps around
 *   one push: the return address at [sp] or [sp + 8], by the instruction
 *   at the PC); elsewhere, with the fallback, by frame pointers.
 * - Go programs (gort.c): the runtime's functions that switch stacks
 *   (systemstack, mcall, morestack, gogo, asmcgocall: the goroutine's
 *   stack and the thread's g0 one) keep where they came from in the
 *   runtime's structures, not on the stack: a walk reaching one ends
 *   there, truncated (UNW_TRUNC_SWITCH), never with the stale words its
 *   CFI would read; where the layout does say it, the walk goes on: the
 *   functions that call the vDSO keep their own stack pointer in r12,
 *   and the runtime's signal return (its sa_restorer) has the kernel's
 *   signal frame above it.  The goroutine's and the thread's entries
 *   (goexit, mstart, rt0_go) end a walk as complete.  They are found by
 *   name in .symtab, the vDSO callers' and the restorer's shapes checked
 *   in their code.
 * - x86-64 only: the register numbering is DWARF's for x86-64.  A 32-bit
 *   task (compat mode: perf gives the x86-64 registers holding its 32-bit
 *   values, PERF_SAMPLE_REGS_ABI_32) is walked by frame pointers only,
 *   in 4-byte words, when the caller allows the fallback: its objects'
 *   CFI numbers i386's registers, which this unwinder does not read.
 *
 * An object is read once per file and shared by every process mapping it.
 */
#ifndef COMMON_UNWIND_H
#define COMMON_UNWIND_H

#include <stddef.h>
#include <stdint.h>

/* x86-64 DWARF registers 0..16: rax rdx rcx rbx rsi rdi rbp rsp r8-r15,
 * and 16, the return address column (rip). */
#define UNW_NREGS 17
#define UNW_REG_BP 6
#define UNW_REG_SP 7
#define UNW_REG_IP 16

/* Most frames a walk takes. */
#define UNW_MAX_FRAMES 512

/* Whether this build can unwind the machine's user stacks. */
int unw_supported(void);

/* The perf registers (sample_regs_user) the unwinder wants. */
uint64_t unw_perf_regs_mask(void);

struct unw_object;

/* The CFI of the ELF file at path (fd: an open file, -1 to open path,
 * -2 for none: an object without CFI, path only naming it).
 * NULL only when out of memory; an unreadable file or one without CFI
 * gives an object whose every lookup says "no CFI".  path is only kept
 * for unw_object_source(). */
struct unw_object *unw_object_open(const char *path, int fd);
void unw_object_free(struct unw_object *o);
/* ".eh_frame", ".debug_frame" or "no CFI" (why, if the file could not be
 * read: "no CFI: cannot open"). */
const char *unw_object_source(const struct unw_object *o);
int unw_object_has_cfi(const struct unw_object *o);
/* The link-time address of a file offset (through the PT_LOAD headers);
 * 0 on success, -1 when no segment holds it. */
int unw_object_vaddr(const struct unw_object *o, uint64_t file_offset,
		     uint64_t *vaddr);

/* Read every row through libdwarf, not .eh_frame in place (tests
 * compare the two readers). */
void unw_object_use_libdwarf(struct unw_object *o);

/* The rules at vaddr as text ("cfa=r7+16 r16=cfa-8 r6=cfa-16 ..."), for
 * tests; the number of bytes written (snprintf), or -1 without CFI. */
int unw_object_row_text(struct unw_object *o, uint64_t vaddr, char *buf,
			size_t len);

/* Bytes of the object's .eh_frame_hdr and .eh_frame copied in (0 when
 * they are not read in place), for tests. */
size_t unw_object_cfi_bytes(const struct unw_object *o);

/* Lookups so far: answered from the rows kept, and rows read. */
void unw_object_stats(const struct unw_object *o, uint64_t *hits,
		      uint64_t *misses);

/* One walk. */
struct unw_state {
	uint64_t r[UNW_NREGS];
	uint32_t valid;		/* bit per register of r[] */
	uint64_t sp0;		/* stack pointer of the sample */
	const uint8_t *stack;	/* the copy of [sp0, sp0 + len) */
	size_t len;
	int first;		/* the sampled frame */
	int exact;		/* r[UNW_REG_IP] is not a return address */
	int elsewhere;		/* a signal frame restored a stack pointer
				 * outside the copy: on another stack */
	unsigned word;		/* bytes of a stack word: 8, or 4 for a
				 * 32-bit task (unw_init_compat()) */
};

/* Start a walk from perf's sampled user registers (in mask order, mask a
 * subset of unw_perf_regs_mask()) and the stack copy.  -1 without the
 * instruction and stack pointers. */
int unw_init(struct unw_state *st, const uint64_t *regs, uint64_t mask,
	     const uint8_t *stack, size_t len);

/* The same for a 32-bit task's sample (perf's PERF_SAMPLE_REGS_ABI_32:
 * the x86-64 registers, holding its 32-bit values): its walk steps by
 * frame pointers only, with the fallback, and ends at once without it
 * (UNW_TRUNC_COMPAT). */
int unw_init_compat(struct unw_state *st, const uint64_t *regs,
		    uint64_t mask, const uint8_t *stack, size_t len);

enum unw_result {
	UNW_STEPPED = 0,	/* st describes the caller */
	UNW_END,		/* the rules say there is no caller */
	UNW_TRUNC_DUMP,		/* a read fell outside the stack copy */
	UNW_TRUNC_NO_CFI,	/* no CFI for the PC (and no fallback) */
	UNW_TRUNC_BAD,		/* an impossible step or expression */
	UNW_TRUNC_SWITCH,	/* the caller is on another stack, out of
				 * reach (Go's stack switches) */
	UNW_TRUNC_COMPAT,	/* a 32-bit task's frame, without the
				 * frame-pointer fallback */
};

/*
 * Step from the frame at st's PC to its caller.  o and vaddr describe the
 * PC to look up (the caller passes the PC itself when st->exact, else
 * PC - 1, translated to o's link-time address); o NULL means no CFI.
 * With fp_fallback, a PC without CFI is stepped through the frame-pointer
 * chain (the auto mode).
 */
enum unw_result unw_step(struct unw_state *st, struct unw_object *o,
			 uint64_t vaddr, int fp_fallback);

#endif
