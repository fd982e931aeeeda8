/* SPDX-License-Identifier: MIT */
/*
 * Profile-me statistics and PMU families by name, and what each family's
 * samples can say (contract in pmstat.h).
 */
#include <string.h>
#include <strings.h>

#include "pmstat.h"

static const struct {
	const char *name;
	const char *desc;
} pm_names[PM_NSTATS] = {
	[PM_ABORT] = { "abort", "the sampled instruction was aborted" },
	[PM_ARITH_TRAP] = { "arith_trap", "arithmetic trap" },
	[PM_CBR_TAKEN] = { "cbr_taken", "taken conditional branch" },
	[PM_CYCLES] = { "cycles", "cycles the instruction was in flight" },
	[PM_DELAY] = { "delay", "cycles the instruction held up retirement" },
	[PM_DSTREAM_FAULT] = { "dstream_fault", "data-stream fault" },
	[PM_DTB_MISS] = { "dtb_miss", "data TLB miss" },
	[PM_DTB_MISS3] = { "dtb_miss3", "data TLB miss, 3-level walk" },
	[PM_DTB_MISS4] = { "dtb_miss4", "data TLB miss, 4-level walk" },
	[PM_EARLY_KILL] = { "early_kill", "killed early in the pipeline" },
	[PM_FP_DISABLED] = { "fp_disabled", "floating point disabled trap" },
	[PM_ICACHE_MISS] = { "icache_miss", "instruction cache miss" },
	[PM_ICACHE_PARITY] = { "icache_parity", "instruction cache parity" },
	[PM_INFLT_BCACHE_MISS] = { "inflt_bcache_miss",
				   "board cache misses while in flight" },
	[PM_INFLT_REPLAYS] = { "inflt_replays", "replays while in flight" },
	[PM_INFLT_RETIRES] = { "inflt_retires", "retires while in flight" },
	[PM_INTERRUPT] = { "interrupt", "interrupted" },
	[PM_ISTREAM_ACCVIO] = { "istream_accvio",
				"instruction-stream access violation" },
	[PM_ITB_MISS] = { "itb_miss", "instruction TLB miss" },
	[PM_LDST_ALIGN_TRAP] = { "ldst_align_trap",
				 "misaligned load or store" },
	[PM_LDST_ORDER_TRAP] = { "ldst_order_trap",
				 "load-store order trap" },
	[PM_MAP_STALL] = { "map_stall", "stalled in the mapper" },
	[PM_MCHK_TRAP] = { "mchk_trap", "machine check" },
	[PM_MISPREDICT] = { "mispredict", "mispredicted branch" },
	[PM_MT_FPCR_TRAP] = { "mt_fpcr_trap", "FPCR write trap" },
	[PM_OPCDEC_TRAP] = { "opcdec_trap", "illegal opcode trap" },
	[PM_REPLAY_TRAP] = { "replay_trap", "replay trap" },
	[PM_RESET] = { "reset", "reset" },
	[PM_RETIRE] = { "retire", "the sampled instruction retired" },
	[PM_TRAP] = { "trap", "the instruction trapped" },
	[PM_VALID] = { "valid", "a valid sample" },
	[PM_DCACHE_MISS] = { "dcache_miss", "L1 data cache miss" },
	[PM_LOAD_LATENCY] = { "load_latency", "cycles from load issue to data" },
	[PM_LOADS] = { "loads", "the instruction was a load" },
	[PM_STORES] = { "stores", "the instruction was a store" },
	[PM_BRANCH] = { "branch", "the instruction was a retired branch" },
	[PM_BRANCH_TAKEN] = { "branch_taken",
			      "taken branch, conditional or not" },
};

int stat_pm_lookup(const char *name)
{
	int i;

	for (i = 0; i < PM_NSTATS; i++)
		if (pm_names[i].name && !strcmp(pm_names[i].name, name))
			return i;
	return -1;
}

const char *stat_pm_name(enum pm_stat s)
{
	return (unsigned)s < PM_NSTATS ? pm_names[s].name : "?";
}

const char *stat_pm_desc(enum pm_stat s)
{
	return (unsigned)s < PM_NSTATS ? pm_names[s].desc : "?";
}

static const char *const family_names[PM_NFAMILIES][2] = {
	[PM_FAMILY_NONE] = { "none", "none" },
	[PM_FAMILY_AMD_IBS] = { "amd-ibs", "ibs" },
	[PM_FAMILY_INTEL_PEBS] = { "intel-pebs", "pebs" },
	[PM_FAMILY_ARM_SPE] = { "arm-spe", "spe" },
};

int stat_pm_family_lookup(const char *name)
{
	int f;

	for (f = PM_FAMILY_AMD_IBS; f < PM_NFAMILIES; f++)
		if (!strcasecmp(name, family_names[f][0]) ||
		    !strcasecmp(name, family_names[f][1]))
			return f;
	return -1;
}

const char *stat_pm_family_name(enum pm_family f)
{
	return (unsigned)f < PM_NFAMILIES ? family_names[f][0] : "?";
}

/* What each family's samples can say; docs/profileme.md says why. */
static const enum pm_stat ibs_stats[] = {
	PM_RETIRE, PM_VALID, PM_CYCLES, PM_DELAY, PM_MISPREDICT, PM_BRANCH,
	PM_BRANCH_TAKEN, PM_LOADS, PM_STORES, PM_DTB_MISS, PM_DCACHE_MISS,
	PM_LOAD_LATENCY, PM_LDST_ALIGN_TRAP,
};
static const enum pm_stat pebs_stats[] = {
	PM_RETIRE, PM_VALID, PM_DELAY, PM_MISPREDICT, PM_BRANCH,
	PM_BRANCH_TAKEN, PM_LOADS, PM_STORES, PM_DTB_MISS, PM_DCACHE_MISS,
	PM_LOAD_LATENCY,
};
static const enum pm_stat spe_stats[] = {
	PM_RETIRE, PM_VALID, PM_ABORT, PM_CYCLES, PM_MISPREDICT, PM_BRANCH,
	PM_BRANCH_TAKEN, PM_CBR_TAKEN, PM_LOADS, PM_STORES, PM_DTB_MISS,
	PM_DCACHE_MISS, PM_LOAD_LATENCY, PM_LDST_ALIGN_TRAP, PM_TRAP,
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

int stat_pm_family_provides(enum pm_family f, enum pm_stat s)
{
	const enum pm_stat *v;
	size_t n, i;

	switch (f) {
	case PM_FAMILY_AMD_IBS: v = ibs_stats; n = NELEM(ibs_stats); break;
	case PM_FAMILY_INTEL_PEBS: v = pebs_stats; n = NELEM(pebs_stats); break;
	case PM_FAMILY_ARM_SPE: v = spe_stats; n = NELEM(spe_stats); break;
	default: return 0;
	}
	for (i = 0; i < n; i++)
		if (v[i] == s)
			return 1;
	return 0;
}
