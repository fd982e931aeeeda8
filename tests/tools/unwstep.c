/* SPDX-License-Identifier: MIT */
/*
 * unwstep: one step of the unwinder (common/unwind/) from a sampled PC
 * in an object, on a made-up stack: for PLT stubs without CFI, whose
 * shape says where the return address is.
 *
 *   unwstep FILE VADDR...
 *
 * For each VADDR (hexadecimal, FILE's link-time address): the sampled
 * frame's PC is VADDR, its stack pointer points at the words 0x1111,
 * 0x2222, 0x3333, 0x4444, and no frame pointer is valid; one step
 * without the frame-pointer fallback prints
 *
 *   VADDR stepped 0xRA sp+N      (the caller's PC and stack pointer)
 *   VADDR end | truncated: ...   (what the step said)
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
	};
	uint64_t words[8] = { 0x1111, 0x2222, 0x3333, 0x4444 };
	struct unw_object *o;
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: unwstep FILE VADDR...\n");
		return 2;
	}
	o = unw_object_open(argv[1], -1);
	if (!o) {
		fprintf(stderr, "unwstep: out of memory\n");
		return 1;
	}
	for (i = 2; i < argc; i++) {
		/* perf's order: AX BX CX DX SI DI BP SP IP, R8-R15 */
		uint64_t regs[17] = { 0 }, vaddr = strtoull(argv[i], NULL, 16);
		struct unw_state st;
		enum unw_result r;

		regs[7] = SP;
		regs[8] = vaddr;
		if (unw_init(&st, regs, unw_perf_regs_mask(),
			     (const uint8_t *)words, sizeof(words))) {
			fprintf(stderr, "unwstep: unw_init failed\n");
			return 1;
		}
		r = unw_step(&st, o, vaddr, 0);
		if (r == UNW_STEPPED)
			printf("%" PRIx64 " stepped 0x%" PRIx64 " sp+%" PRIu64
			       "\n", vaddr, st.r[UNW_REG_IP],
			       st.r[UNW_REG_SP] - SP);
		else
			printf("%" PRIx64 " %s\n", vaddr, why[r]);
	}
	unw_object_free(o);
	return 0;
}
