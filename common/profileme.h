/* SPDX-License-Identifier: MIT */
/*
 * Profile-me statistics: what an instruction-sampling PMU (the Alpha's
 * ProfileMe; today AMD IBS op sampling, Intel PEBS, Arm SPE) records about
 * one sampled instruction.  The engine decodes each hardware sample into a
 * struct pm_sample; the statistics table maps user-visible names (retire,
 * mispredict, dtb_miss, ...) to these indices.
 *
 * The first block is the originals' 31 base statistics (their 11 *_per_ret
 * ratios and freq are derived at report time, never collected).  Later
 * entries are what modern hardware records and the Alpha did not.
 */
#ifndef COMMON_PROFILEME_H
#define COMMON_PROFILEME_H

#include <stdint.h>

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
	PM_NSTATS
};

/*
 * What one sampled instruction met.  v[i] is the increment of statistic i
 * for this sample: 0 or 1 for events, a cycle count for PM_CYCLES,
 * PM_DELAY and PM_LOAD_LATENCY.  valid[i] says whether the hardware
 * reports statistic i at all (a CPU that cannot tell a DTB miss leaves it
 * 0, and the statistic must then not be offered).
 */
struct pm_sample {
	uint64_t ip;		/* the sampled instruction */
	uint64_t data_addr;	/* linear data address, 0 if none */
	uint64_t v[PM_NSTATS];
	uint8_t valid[PM_NSTATS];
};

#endif
