/* SPDX-License-Identifier: MIT */
/*
 * unwstep: one step of the unwinder (common/unwind/) from a PC in an
 * object, on a made-up stack: for PLT stubs without CFI, whose shape
 * says where the return address is, and for the Go runtime's stack
 * switches, known by their names and shapes.
 *
 *   unwstep [-r] [-0 WORD] [-12 OFF] [-di WORD] FILE VADDR...
 *
 * For each VADDR (hexadecimal, FILE's link-time address): the frame's
 * PC is VADDR, its stack pointer points at the words 0x1111, 0x2222,
 * 0x3333, 0x4444, then 0xaa04, 0xaa05, ... (32 words in all, the copy),
 * but for a signal frame's sigcontext at sp + 40 (a ucontext) whose rsp
 * is sp + 0x100 (past the copy) and rip 0x7777; no frame pointer is
 * valid.  Options (hexadecimal values): -r: VADDR is a return address
 * (a caller's frame, looked up at VADDR - 1), not the sampled PC; -0: the
 * word at sp is WORD; -12: r12 is sp + OFF; -di: rdi is WORD (0 without
 * it).  One step without the
 * frame-pointer fallback prints
 *
 *   VADDR stepped 0xRA sp+N [exact]  (the caller's PC and stack pointer;
 *                                     exact: the PC is no return address)
 *   VADDR end | truncated: ...       (what the step said)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/unwind/unwind.h"

#define SP 0x7ff000u

int main(int argc, char **argv)
{
	static const char *const why[] = {
		[UNW_END] = "end",
		[UNW_TRUNC_DUMP] = "truncated: stack copy",
		[UNW_TRUNC_NO_CFI] = "truncated: no CFI",
		[UNW_TRUNC_BAD] = "truncated: bad step",
		[UNW_TRUNC_SWITCH] = "truncated: stack switch",
		[UNW_TRUNC_COMPAT] = "truncated: 32-bit task",
	};
	uint64_t words[32] = { 0x1111, 0x2222, 0x3333, 0x4444 }, r12 = 0,
		 rdi = 0;
	struct unw_object *o;
	int i, ret_addr = 0, have_r12 = 0;

	for (i = 4; i < 32; i++)
		words[i] = 0xaa00 + (uint64_t)i;
	words[5 + 15] = SP + 0x100;	/* sigcontext's rsp */
	words[5 + 16] = 0x7777;		/* and rip */
	for (i = 1; i < argc - 1 && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-r")) {
			ret_addr = 1;
		} else if (!strcmp(argv[i], "-0")) {
			words[0] = strtoull(argv[++i], NULL, 16);
		} else if (!strcmp(argv[i], "-di")) {
			rdi = strtoull(argv[++i], NULL, 16);
		} else if (!strcmp(argv[i], "-12")) {
			r12 = SP + strtoull(argv[++i], NULL, 16);
			have_r12 = 1;
		} else {
			break;
		}
	}
	if (argc - i < 2) {
		fprintf(stderr, "usage: unwstep [-r] [-0 WORD] [-12 OFF] "
			"[-di WORD] FILE VADDR...\n");
		return 2;
	}
	o = unw_object_open(argv[i], -1);
	if (!o) {
		fprintf(stderr, "unwstep: out of memory\n");
		return 1;
	}
	for (i++; i < argc; i++) {
		/* perf's order: AX BX CX DX SI DI BP SP IP, R8-R15 */
		uint64_t regs[17] = { 0 }, vaddr = strtoull(argv[i], NULL, 16);
		struct unw_state st;
		enum unw_result r;

		regs[5] = rdi;
		regs[7] = SP;
		regs[8] = vaddr;
		regs[9 + 4] = r12;
		if (unw_init(&st, regs, unw_perf_regs_mask(),
			     (const uint8_t *)words, sizeof(words))) {
			fprintf(stderr, "unwstep: unw_init failed\n");
			return 1;
		}
		if (!have_r12)
			st.valid &= ~(1u << 12);
		if (ret_addr) {
			st.first = 0;
			st.exact = 0;
		}
		r = unw_step(&st, o, vaddr - (uint64_t)ret_addr, 0);
		if (r == UNW_STEPPED)
			printf("%" PRIx64 " stepped 0x%" PRIx64 " sp+%" PRIu64
			       "%s\n", vaddr, st.r[UNW_REG_IP],
			       st.r[UNW_REG_SP] - SP, st.exact ? " exact" : "");
		else
			printf("%" PRIx64 " %s\n", vaddr, why[r]);
	}
	unw_object_free(o);
	return 0;
}
