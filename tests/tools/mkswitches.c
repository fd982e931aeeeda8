/* SPDX-License-Identifier: MIT */
/*
 * mkswitches - drive the collector through switch samples that a live
 * run meets only rarely, and write the profile it builds, for tests of
 * the exports' invariant (every call stack's leaf is its row's address:
 * they take the stacks off the counts at their leaves).
 *
 *   mkswitches OUT PROG
 *
 * Statistics: 0 wall (user rows), 1 offcpu:k (kernel rows), DWARF call
 * stacks.  Process 100 ("prog", one thread) maps PROG's first page at
 * 0x400000 and is switched out three times, 2 ms each, with the sample
 * taken at each switch out:
 *   1 at 1 ms: its user PC (0x7f0000001234) is in no mapping known (a
 *     mapping's record not read yet), kernel chain of two frames;
 *   2 at 4 ms: a kernel sample with no call chain and no user registers;
 *   3 at 7 ms: its user PC at PROG+0x100, kernel chain of one frame.
 * The run ends at 10 ms.  Exit status 0, or 1 with a message.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/collect/collect.h"
#include "common/profile/profile.h"
#include "common/stats/stats.h"
#include "common/util/error.h"
#include "mkprofile.h"

#define MS 1000000ull
#define PID 100
#define KTEXT 0xffffffff81000000ull

/* perf's x86-64 register numbers: bp 6, sp 7, ip 8 (in that order) */
#define REGS_MASK ((1ull << 6) | (1ull << 7) | (1ull << 8))

static uint8_t stack_copy[64];

static void switch_out(struct collector *c, uint64_t at,
		       const uint64_t *chain, uint64_t nchain, uint64_t ip,
		       const uint64_t *regs)
{
	struct collect_sample s = {
		.pid = PID, .tid = PID, .time = at, .period = 1,
		.cpumode = PERF_RECORD_MISC_KERNEL, .ip = ip,
		.chain = chain, .nchain = nchain,
		.uregs = regs, .uregs_mask = regs ? REGS_MASK : 0,
		.ustack = regs ? stack_copy : NULL,
		.ustack_len = regs ? sizeof(stack_copy) : 0,
	};

	collector_switch_sample(c, &s, 'S');
	collector_switch(c, PID, PID, 0, at, true, false);
	collector_switch(c, PID, PID, 0, at + 2 * MS, false, false);
}

static int add_stat(struct profile *p, const char *name, unsigned modes)
{
	struct prof_stat s = {
		.name = (char *)name, .requested = (char *)name,
		.type = PERF_TYPE_SOFTWARE, .modes = modes,
		.flags = PROF_STAT_TIME,
	};

	return profile_add_stat(p, &s) < 0;
}

int main(int argc, char **argv)
{
	const uint64_t ctx_k = (uint64_t)PERF_CONTEXT_KERNEL,
		       ctx_u = (uint64_t)PERF_CONTEXT_USER;
	const uint64_t chain1[] = { ctx_k, KTEXT + 0x100, KTEXT + 0x200,
				    ctx_u, 0x7f0000001234 };
	const uint64_t chain3[] = { ctx_k, KTEXT + 0x400, ctx_u, 0x400100 };
	const uint64_t regs1[] = { 0, 0x7ffc00000000, 0x7f0000001234 };
	const uint64_t regs3[] = { 0, 0x7ffc00000000, 0x400100 };
	struct collector *c;
	struct profile *tpl;

	if (argc != 3) {
		fprintf(stderr, "usage: mkswitches OUT PROG\n");
		return 1;
	}
	c = collector_new(COLLECT_SPLIT_NONE, 2);
	tpl = profile_new();
	if (!c || !tpl || add_stat(tpl, "wall", STAT_MODE_USER) ||
	    add_stat(tpl, "offcpu", STAT_MODE_KERNEL) ||
	    collector_set_call_graph(c, PROF_CG_DWARF)) {
		fprintf(stderr, "mkswitches: out of memory\n");
		return 1;
	}
	tpl->call_graph = PROF_CG_DWARF;
	collector_set_modes(c, 0, STAT_MODE_USER);
	collector_set_modes(c, 1, STAT_MODE_KERNEL);
	collector_set_offcpu(c, 0, COLLECT_WALL);
	collector_set_offcpu(c, 1, COLLECT_OFFCPU);
	collector_set_time_base(c, 0);
	collector_comm(c, PID, PID, "prog", 1, 0);
	collector_mmap(c, PID, 0x400000, 0x1000, 0, argv[2], NULL, 0, 0);
	switch_out(c, 1 * MS, chain1, 5, KTEXT + 0x100, regs1);
	switch_out(c, 4 * MS, NULL, 0, KTEXT + 0x300, NULL);
	switch_out(c, 7 * MS, chain3, 4, KTEXT + 0x400, regs3);
	collector_switch_end(c, 10 * MS);
	return mk_write_one("mkswitches", c, tpl, argv[1]);
}
