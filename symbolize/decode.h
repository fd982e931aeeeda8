/* SPDX-License-Identifier: MIT */
/*
 * One machine instruction at a time, whatever library decodes it: the
 * length, the text for a listing, what control flow it has, and the few
 * operand facts that block discovery and the PLT reader look at.  x86-64
 * is decoded by Zydis (decode_x86.c), AArch64 by capstone
 * (decode_arm64.c); neither library's types leave those files.
 *
 * Internal to symbolize/: blocks.c and procs.c use it.
 */
#ifndef SYMBOLIZE_DECODE_H
#define SYMBOLIZE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The instructions whose operands block discovery reads, by meaning. */
enum dec_id {
	DEC_OTHER,
	DEC_JMP,	/* unconditional jump (x86 jmp, AArch64 b/br) */
	DEC_JA,		/* x86 ja / jae: a jump table's bound */
	DEC_JAE,
	DEC_CMP,
	DEC_MOV,
	DEC_MOVSXD,
	DEC_ADD,
	DEC_LEA,
	DEC_ADRP,	/* AArch64: a PLT stub's page */
	DEC_LDR,
};

enum dec_op_kind { DEC_OP_NONE, DEC_OP_REG, DEC_OP_IMM, DEC_OP_MEM };

/*
 * An operand.  Registers are the backend's numbers: compare them for
 * equality only; 0 is "no register".  A memory operand relative to the
 * instruction pointer has rip set and base 0.
 */
struct dec_op {
	enum dec_op_kind kind;
	unsigned reg;
	int64_t imm;
	struct {
		unsigned base, index;
		unsigned scale;
		int64_t disp;
		bool rip;
	} mem;
};

#define DEC_MAX_OPS 4
#define DEC_TEXT_MAX 192

/* One decoded instruction. */
struct dec_insn {
	uint64_t va;		/* where it was decoded */
	uint32_t len;		/* bytes */
	unsigned flags;		/* SYM_INSN_* of symbolize.h, except
				 * NORETURN and DATA (the caller's) */
	uint64_t target;	/* direct branch or call target, 0 none */
	enum dec_id id;
	unsigned nops;		/* visible operands, at most DEC_MAX_OPS */
	struct dec_op op[DEC_MAX_OPS];
	char text[DEC_TEXT_MAX];	/* "mov rax, qword ptr [rbp - 8]":
					 * Intel syntax on x86; "" unless
					 * asked for */
};

struct dec;

/*
 * How much of an instruction dec_decode() fills in: its length, flags,
 * target and id always; the operands of branches and calls (FLOW: all a
 * sweep needs, the others' operands cost as much again to decode), of
 * every instruction (OPS), and the text too (TEXT).
 */
enum dec_want { DEC_WANT_FLOW, DEC_WANT_OPS, DEC_WANT_TEXT };

/*
 * A decoder for ELF e_machine machine (EM_X86_64, EM_AARCH64) in *out.
 * Returns SYM_OK, SYM_ENOCODE for another machine, SYM_ENOMEM.
 */
int dec_open(uint16_t machine, struct dec **out);
void dec_free(struct dec *d);

/* Whether dec_open() would accept machine. */
bool dec_machine_ok(uint16_t machine);

/*
 * Decode the instruction at the start of buf[0 .. size), at address va,
 * into *in, as much as want asks (nops is 0 where operands were not
 * asked for; a backend may give more).  True when it decoded; false
 * when the bytes are no instruction the decoder knows (or are cut off by
 * size): then in->len is the length every instruction has on this
 * machine (4 on AArch64), or 0 where lengths vary (x86-64), where the
 * length of what is there is unknown and no later boundary can be
 * inferred from it.
 */
bool dec_decode(const struct dec *d, const uint8_t *buf, size_t size,
		uint64_t va, enum dec_want want, struct dec_insn *in);

/* Whether a direct branch or call to t is one the caller looks for. */
typedef bool dec_target_fn(void *ctx, uint64_t t);

/*
 * How far into buf[0 .. size), at address va, a direct branch or call
 * whose target t has lo < t < hi and wanted(ctx, t) may start: no
 * instruction that dec_decode() finds at buf[n] or after, whatever the
 * boundaries, is one.  0 when there is none; a cheap scan of the bytes,
 * size where the machine has none.
 */
struct dec_targets {
	uint64_t lo, hi;
	dec_target_fn *wanted;
	void *ctx;
};
size_t dec_branch_reach(const struct dec *d, const uint8_t *buf,
			size_t size, uint64_t va,
			const struct dec_targets *to);

/* The backends, behind dec_open() and dec_decode() (same contracts). */
struct dec_x86;
struct dec_x86 *dec_x86_open(void);
void dec_x86_free(struct dec_x86 *x);
bool dec_x86_decode(const struct dec_x86 *x, const uint8_t *buf, size_t size,
		    uint64_t va, enum dec_want want, struct dec_insn *in);
size_t dec_x86_branch_reach(const uint8_t *buf, size_t size, uint64_t va,
			    const struct dec_targets *to);
struct dec_arm64;
struct dec_arm64 *dec_arm64_open(void);
void dec_arm64_free(struct dec_arm64 *a);
bool dec_arm64_decode(const struct dec_arm64 *a, const uint8_t *buf,
		      size_t size, uint64_t va, enum dec_want want,
		      struct dec_insn *in);

#endif
