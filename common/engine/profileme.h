/* SPDX-License-Identifier: MIT */
/*
 * Profile-me sampling: the engine decodes each hardware sample of an
 * instruction-sampling PMU (the Alpha's ProfileMe; today AMD IBS op
 * sampling, Intel PEBS, Arm SPE) into a struct pm_sample, indexed by the
 * statistics of common/stats/pmstat.h, and plans the events to open for
 * a set of them.
 */
#ifndef COMMON_PROFILEME_H
#define COMMON_PROFILEME_H

#include <stddef.h>
#include <stdint.h>

#include "common/stats/pmstat.h"

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

/*
 * Decoders.  Each fills *out (zeroed first) and returns 0, PM_DROPPED when
 * the record is well formed but carries no usable sample (the caller
 * counts these), or -PROF_EFORMAT with a detail (prof_error) when it is
 * truncated or malformed.  They never allocate.
 */
#define PM_DROPPED 1

/*
 * AMD IBS op: the PERF_SAMPLE_RAW payload of an ibs_op event, as the
 * kernel writes it (perf_ibs_handle_irq): u32 caps (CPUID Fn8000_001B
 * EAX, bit 0 forced), then the MSRs IbsOpCtl, IbsOpRip, IbsOpData,
 * IbsOpData2, IbsOpData3, IbsDcLinAd, IbsDcPhysAd, then IbsBrTarget if
 * caps has BrnTrgt (bit 5), then IbsOpData4 if caps has OpData4 (bit 10).
 * A sample whose RIP is invalid (IbsOpRipInvalid, where caps bit 7 says
 * the bit exists) or whose IbsOpVal is clear is PM_DROPPED.
 */
int pm_decode_ibs_op(const void *raw, size_t len, struct pm_sample *out);

/* IBS capability bits (CPUID Fn8000_001B EAX) the decoder reads. */
#define PM_IBS_CAPS_BRNTRGT		(1u << 5)
#define PM_IBS_CAPS_RIPINVALIDCHK	(1u << 7)
#define PM_IBS_CAPS_OPDATA4		(1u << 10)

/*
 * Intel PEBS: no raw image; the precise event that was sampled says what
 * the instruction was, and the perf sample carries the rest.
 */
enum pm_pebs_event {
	PM_PEBS_RETIRED,	/* INST_RETIRED (precise_ip 3: PREC_DIST) */
	PM_PEBS_LOADS,		/* MEM_TRANS_RETIRED.LOAD_LATENCY (ldlat) */
	PM_PEBS_STORES,		/* MEM_INST_RETIRED.ALL_STORES */
	PM_PEBS_MISPREDICT,	/* BR_MISP_RETIRED.ALL_BRANCHES */
	PM_PEBS_BRANCHES,	/* BR_INST_RETIRED.ALL_BRANCHES */
	PM_PEBS_TAKEN,		/* BR_INST_RETIRED.NEAR_TAKEN */
	PM_PEBS_NEVENTS
};

/* Which optional fields of struct pm_pebs_input are present. */
#define PM_PEBS_HAVE_WEIGHT	0x1	/* weight (PERF_SAMPLE_WEIGHT or
					 * WEIGHT_STRUCT var1_dw) */
#define PM_PEBS_HAVE_RETIRE_LAT	0x2	/* retire_lat (var3_w), SPR+ */
#define PM_PEBS_HAVE_DATA_SRC	0x4
#define PM_PEBS_HAVE_ADDR	0x8

struct pm_pebs_input {
	enum pm_pebs_event event;
	unsigned have;		/* PM_PEBS_HAVE_* */
	uint64_t ip;
	uint64_t addr;		/* PERF_SAMPLE_ADDR */
	uint64_t weight;	/* load latency in cycles */
	uint16_t retire_lat;	/* cycles since the previous retirement */
	uint64_t data_src;	/* union perf_mem_data_src .val */
};
int pm_decode_pebs(const struct pm_pebs_input *in, struct pm_sample *out);

/*
 * Arm SPE: one record from the AUX-area packet stream starting at buf
 * (leading padding is skipped); *used is set to the bytes consumed, up to
 * and including the End or Timestamp packet that closes the record.  A
 * record without a PC address packet is PM_DROPPED.
 */
int pm_decode_spe(const void *buf, size_t len, size_t *used,
		  struct pm_sample *out);

/*
 * What a family's PMU offers here, read from sysfs below root
 * (bus/event_source/devices/...; NULL: "/sys"), so tests can describe a
 * machine they are not running on.  Returns 0, or -PROF_EUNAVAIL with a
 * detail naming what is missing.
 */
#define PM_PMU_CNT_CTL		0x1	/* IBS: ops, not cycles (config:19) */
#define PM_PMU_SWFILT		0x2	/* IBS: config2:0 filters modes */
#define PM_PMU_RETIRE_LATENCY	0x4	/* PEBS: var3_w retire latency */

struct pm_pmu {
	enum pm_family family;
	uint32_t type;		/* perf_event_attr.type */
	unsigned caps;		/* PM_PMU_* */
};
int pm_pmu_probe(enum pm_family f, const char *root, struct pm_pmu *out);
/* The first family present (IBS, SPE, then PEBS on Intel), or
 * -PROF_EUNAVAIL. */
int pm_pmu_detect(const char *root, struct pm_pmu *out);

/*
 * One event to open for a set of statistics: the perf_event_attr fields
 * beyond the engine's usual ones.  The engine decodes each of its samples
 * and charges the statistics in feeds[].
 */
struct pm_event {
	const char *name;	/* "ibs_op", "INST_RETIRED.PREC_DIST", ... */
	enum pm_family family;
	int kind;		/* PEBS: enum pm_pebs_event */
	uint32_t type;
	uint64_t config, config1, config2;
	unsigned precise_ip;
	uint64_t sample_type;	/* PERF_SAMPLE_* added to the engine's */
	int hw_modes;		/* exclude_* may be set; else every mode is
				 * sampled and modes are filtered per sample
				 * by its cpumode (the collector) */
	int aux;		/* needs an AUX buffer (SPE) */
	unsigned have;		/* PEBS: PM_PEBS_HAVE_* of its samples */
	uint8_t feeds[PM_NSTATS];
};

/*
 * The events that give statistics stats[0..n) on pmu: at most max into ev.
 * Returns the number of events, or -PROF_EUNAVAIL naming the first
 * statistic the family cannot provide.
 */
int pm_plan(const struct pm_pmu *pmu, const enum pm_stat *stats, size_t n,
	    struct pm_event *ev, size_t max);

/* 0 if period (events per sample, 0: frequency mode) suits the family,
 * else -PROF_EINVAL with a detail. */
int pm_check_period(enum pm_family f, uint64_t period);

#endif
