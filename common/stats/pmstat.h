/* SPDX-License-Identifier: MIT */
/*
 * Profile-me statistics by number: what an instruction-sampling PMU (the
 * Alpha's ProfileMe; today AMD IBS op sampling, Intel PEBS, Arm SPE) can
 * record about one sampled instruction, the families of those PMUs, and
 * their names.  The statistics table (stats.h) maps user-visible names
 * (retire, mispredict, dtb_miss, ...) to these indices; the engine
 * (common/engine/profileme.h) decodes hardware samples into them.
 *
 * The first block is the originals' 31 base statistics (their 11 *_per_ret
 * ratios and freq are derived at report time, never collected).  Later
 * entries are what modern hardware records and the Alpha did not.
 */
#ifndef COMMON_PMSTAT_H
#define COMMON_PMSTAT_H

enum pm_stat {
	/* The originals' statistics (pfm(7), EV67 profile-me mode). */
	PM_ABORT,
	PM_ARITH_TRAP,
	PM_CBR_TAKEN,
	PM_CYCLES,		/* cycles in flight (AMD: tag to retire) */
	PM_DELAY,		/* retire delay (AMD: completion to retire) */
	PM_DSTREAM_FAULT,
	PM_DTB_MISS,
	PM_DTB_MISS3,
	PM_DTB_MISS4,
	PM_EARLY_KILL,
	PM_FP_DISABLED,
	PM_ICACHE_MISS,
	PM_ICACHE_PARITY,
	PM_INFLT_BCACHE_MISS,
	PM_INFLT_REPLAYS,
	PM_INFLT_RETIRES,
	PM_INTERRUPT,
	PM_ISTREAM_ACCVIO,
	PM_ITB_MISS,
	PM_LDST_ALIGN_TRAP,
	PM_LDST_ORDER_TRAP,
	PM_MAP_STALL,
	PM_MCHK_TRAP,
	PM_MISPREDICT,
	PM_MT_FPCR_TRAP,
	PM_OPCDEC_TRAP,
	PM_REPLAY_TRAP,
	PM_RESET,
	PM_RETIRE,
	PM_TRAP,
	PM_VALID,
	/* Modern additions. */
	PM_DCACHE_MISS,		/* the sampled load or store missed L1D */
	PM_LOAD_LATENCY,	/* cycles from load issue to data (sum) */
	PM_LOADS,		/* the sampled op was a load */
	PM_STORES,		/* the sampled op was a store */
	PM_BRANCH,		/* the sampled op was a (retired) branch */
	PM_BRANCH_TAKEN,	/* ... and it was taken (conditional or not:
				 * IBS and PEBS cannot tell cbr_taken) */
	PM_NSTATS
};

/*
 * Instruction-sampling PMU families (the engine has their decoders and
 * the events they open).  docs/profileme.md says, per statistic, which hardware field
 * provides it in each family, or why none does.
 */
enum pm_family {
	PM_FAMILY_NONE,
	PM_FAMILY_AMD_IBS,	/* ibs_op PMU, PERF_SAMPLE_RAW register images */
	PM_FAMILY_INTEL_PEBS,	/* precise events on the core PMU */
	PM_FAMILY_ARM_SPE,	/* arm_spe_0, packets in the AUX area */
	PM_NFAMILIES
};

/* "retire" -> PM_RETIRE; -1 if not a profile-me statistic name.  This is
 * what the statistics table's STAT_PROFILEME entries resolve through. */
int stat_pm_lookup(const char *name);
const char *stat_pm_name(enum pm_stat s);
const char *stat_pm_desc(enum pm_stat s);
/* "amd-ibs", "intel-pebs", "arm-spe" (and "ibs", "pebs", "spe"); -1. */
int stat_pm_family_lookup(const char *name);
const char *stat_pm_family_name(enum pm_family f);
/* Whether samples of family f can report statistic s at all. */
int stat_pm_family_provides(enum pm_family f, enum pm_stat s);

#endif
