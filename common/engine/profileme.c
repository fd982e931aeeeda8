/* SPDX-License-Identifier: MIT */
/*
 * Profile-me statistics from the instruction-sampling PMUs: the decoders
 * of each family's sample, and the events to open.  Register and
 * packet layouts are the vendors' (AMD PPR "IBS Op Data" registers, Intel
 * SDM PEBS and perf's perf_mem_data_src, Arm ARM "Statistical Profiling
 * Extension" packets); docs/profileme.md maps them statistic by statistic.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/util/error.h"
#include "profileme.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t ld64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	/* Little-endian whatever the host: the images are x86 MSRs. */
	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t bits(uint64_t v, unsigned lo, unsigned width)
{
	return (v >> lo) & ((width < 64 ? (1ull << width) : 0) - 1);
}

static void set(struct pm_sample *o, enum pm_stat s, uint64_t v)
{
	o->v[s] = v;
	o->valid[s] = 1;
}

/*
 * IBS op register fields (AMD PPR for family 17h/19h, MSRC001_1033..37;
 * the same positions since family 10h's BKDG where the field exists).
 */
enum {
	IBS_OP_CTL, IBS_OP_RIP, IBS_OP_DATA, IBS_OP_DATA2, IBS_OP_DATA3,
	IBS_DC_LINAD, IBS_DC_PHYSAD, IBS_NREGS_FIXED
};
/* IbsOpCtl */
#define OPCTL_VAL		18
/* IbsOpData */
#define OPD_COMP_TO_RET		0	/* 16 bits */
#define OPD_TAG_TO_RET		16	/* 16 bits */
#define OPD_RETURN		34
#define OPD_BRN_TAKEN		35
#define OPD_BRN_MISP		36
#define OPD_BRN_RET		37
#define OPD_RIP_INVALID		38
/* IbsOpData3 */
#define OPD3_LD_OP		0
#define OPD3_ST_OP		1
#define OPD3_L1TLB_MISS		2
#define OPD3_DC_MISS		7
#define OPD3_MIS_ACC		8
#define OPD3_LIN_ADDR_VALID	17
#define OPD3_MISS_LAT		32	/* 16 bits */

int pm_decode_ibs_op(const void *raw, size_t len, struct pm_sample *out)
{
	const uint8_t *p = raw;
	uint64_t r[IBS_NREGS_FIXED], data, data3;
	uint32_t caps;
	size_t need, i;
	int ld, st;

	memset(out, 0, sizeof(*out));
	if (len < 4)
		return prof_fail(PROF_EFORMAT, "IBS op record of %zu bytes: "
				 "no capabilities word", len);
	caps = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
	need = 4 + 8 * (IBS_NREGS_FIXED + !!(caps & PM_IBS_CAPS_BRNTRGT) +
			!!(caps & PM_IBS_CAPS_OPDATA4));
	if (len < need)
		return prof_fail(PROF_EFORMAT, "IBS op record of %zu bytes, "
				 "caps %#x needs %zu", len, caps, need);
	for (i = 0; i < IBS_NREGS_FIXED; i++)
		r[i] = ld64(p + 4 + 8 * i);
	data = r[IBS_OP_DATA];
	data3 = r[IBS_OP_DATA3];
	/* The kernel only reports valid samples; a raw image that says
	 * otherwise is not one to charge. */
	if (!bits(r[IBS_OP_CTL], OPCTL_VAL, 1))
		return PM_DROPPED;
	/* IbsOpRipInvalid exists only where CPUID says so (bit 38 is
	 * reserved before). */
	if ((caps & PM_IBS_CAPS_RIPINVALIDCHK) &&
	    bits(data, OPD_RIP_INVALID, 1))
		return PM_DROPPED;

	out->ip = r[IBS_OP_RIP];
	/*
	 * IBS tags an op at dispatch and reports it when it retires; a
	 * tagged op that is flushed produces no sample.  So every sample is
	 * a retired op, and abort cannot be observed.
	 */
	set(out, PM_VALID, 1);
	set(out, PM_RETIRE, 1);
	set(out, PM_CYCLES, bits(data, OPD_TAG_TO_RET, 16));
	set(out, PM_DELAY, bits(data, OPD_COMP_TO_RET, 16));
	set(out, PM_BRANCH, bits(data, OPD_BRN_RET, 1));
	set(out, PM_MISPREDICT, bits(data, OPD_BRN_MISP, 1));
	/* IbsOpBrnTaken does not say whether the branch was conditional
	 * (a jmp or call is taken too): this is branch_taken, and
	 * cbr_taken is not offered. */
	set(out, PM_BRANCH_TAKEN, bits(data, OPD_BRN_RET, 1) &&
				  bits(data, OPD_BRN_TAKEN, 1));

	ld = (int)bits(data3, OPD3_LD_OP, 1);
	st = (int)bits(data3, OPD3_ST_OP, 1);
	set(out, PM_LOADS, (uint64_t)ld);
	set(out, PM_STORES, (uint64_t)st);
	/* The data-cache fields describe memory ops only. */
	set(out, PM_DTB_MISS, (ld || st) && bits(data3, OPD3_L1TLB_MISS, 1));
	set(out, PM_DCACHE_MISS, (ld || st) && bits(data3, OPD3_DC_MISS, 1));
	set(out, PM_LDST_ALIGN_TRAP, (ld || st) &&
				     bits(data3, OPD3_MIS_ACC, 1));
	/* IbsDcMissLat counts only for loads that missed. */
	set(out, PM_LOAD_LATENCY, ld && bits(data3, OPD3_DC_MISS, 1) ?
				  bits(data3, OPD3_MISS_LAT, 16) : 0);
	if (bits(data3, OPD3_LIN_ADDR_VALID, 1))
		out->data_addr = r[IBS_DC_LINAD];
	return 0;
}

/* perf_mem_data_src fields, by the kernel's shifts. */
static unsigned mem_field(uint64_t v, unsigned shift, unsigned width)
{
	return (unsigned)bits(v, shift, width);
}

int pm_decode_pebs(const struct pm_pebs_input *in, struct pm_sample *out)
{
	memset(out, 0, sizeof(*out));
	if ((unsigned)in->event >= PM_PEBS_NEVENTS)
		return prof_fail(PROF_EFORMAT, "unknown PEBS event %d",
				 (int)in->event);
	out->ip = in->ip;
	if (in->have & PM_PEBS_HAVE_ADDR)
		out->data_addr = in->addr;
	set(out, PM_VALID, 1);
	/* Retire latency is in the PEBS record of every event where the
	 * CPU has it; it is how long this instruction held retirement. */
	if (in->have & PM_PEBS_HAVE_RETIRE_LAT)
		set(out, PM_DELAY, in->retire_lat);
	switch (in->event) {
	case PM_PEBS_RETIRED:
		set(out, PM_RETIRE, 1);
		break;
	case PM_PEBS_MISPREDICT:
		set(out, PM_MISPREDICT, 1);
		set(out, PM_BRANCH, 1);
		break;
	case PM_PEBS_BRANCHES:
		set(out, PM_BRANCH, 1);
		break;
	case PM_PEBS_TAKEN:
		set(out, PM_BRANCH, 1);
		set(out, PM_BRANCH_TAKEN, 1);
		break;
	case PM_PEBS_LOADS:
		set(out, PM_LOADS, 1);
		if (in->have & PM_PEBS_HAVE_WEIGHT)
			set(out, PM_LOAD_LATENCY, in->weight);
		break;
	case PM_PEBS_STORES:
		set(out, PM_STORES, 1);
		break;
	default:
		break;
	}
	if ((in->event == PM_PEBS_LOADS || in->event == PM_PEBS_STORES) &&
	    (in->have & PM_PEBS_HAVE_DATA_SRC)) {
		uint64_t d = in->data_src;
		unsigned lvl = mem_field(d, PERF_MEM_LVL_SHIFT, 14);
		unsigned num = mem_field(d, PERF_MEM_LVLNUM_SHIFT, 4);
		unsigned tlb = mem_field(d, PERF_MEM_TLB_SHIFT, 7);
		int known = !(lvl & PERF_MEM_LVL_NA) ||
			    (num && num != PERF_MEM_LVLNUM_NA);
		int l1hit = (lvl & PERF_MEM_LVL_HIT) &&
			    ((lvl & PERF_MEM_LVL_L1) ||
			     num == PERF_MEM_LVLNUM_L1);

		/* A hit in the line fill buffer is a miss that found the
		 * line already on its way: still an L1 miss. */
		set(out, PM_DCACHE_MISS, known && lvl && !l1hit);
		/* Intel reports an STLB miss as TLB MISS | L2. */
		set(out, PM_DTB_MISS, !(tlb & PERF_MEM_TLB_NA) &&
				      (tlb & PERF_MEM_TLB_MISS));
	}
	return 0;
}

/* SPE packet headers (Arm ARM D10 "Statistical Profiling Extension"). */
#define SPE_PAD			0x00
#define SPE_END			0x01
#define SPE_TIMESTAMP		0x71
#define SPE_EXT_MASK		0xfc
#define SPE_EXT			0x20
#define SPE_ADDR_MASK		0xf8
#define SPE_ADDR		0xb0
#define SPE_COUNTER_MASK	0xf8
#define SPE_COUNTER		0x98
#define SPE_EVENTS_MASK		0xcf
#define SPE_EVENTS		0x42
#define SPE_OPTYPE_MASK		0xfc
#define SPE_OPTYPE		0x48
/* Address packet indices */
#define SPE_ADDR_PC		0
#define SPE_ADDR_DATA_VA	2
/* Counter packet indices */
#define SPE_CNT_TOTAL		0
#define SPE_CNT_ISSUE		1
/* Events packet bits */
#define SPE_EV_EXCEPTION	0
#define SPE_EV_RETIRED		1
#define SPE_EV_L1D_REFILL	3
#define SPE_EV_TLB_WALK		5
#define SPE_EV_NOT_TAKEN	6
#define SPE_EV_MISPRED		7
#define SPE_EV_ALIGNMENT	11
/* Operation type classes */
#define SPE_OP_OTHER		0
#define SPE_OP_LDST		1
#define SPE_OP_BRANCH		2

/* A 56-bit virtual address, the top byte made canonical. */
static uint64_t spe_va(uint64_t payload)
{
	uint64_t a = payload & ((1ull << 56) - 1);

	return (a & (1ull << 55)) ? a | 0xffull << 56 : a;
}

int pm_decode_spe(const void *buf, size_t len, size_t *used,
		  struct pm_sample *out)
{
	const uint8_t *p = buf;
	size_t at = 0;
	uint64_t events = 0, total = 0, issue = 0;
	int have_pc = 0, have_events = 0, have_total = 0, have_issue = 0;
	int op_class = -1, closed = 0;
	unsigned op = 0;

	memset(out, 0, sizeof(*out));
	*used = 0;
	while (at < len && p[at] == SPE_PAD)
		at++;
	if (at == len)
		return prof_fail(PROF_EFORMAT, "SPE buffer of %zu bytes holds "
				 "no record", len);
	while (at < len) {
		unsigned h = p[at], ext = 0, size;
		uint64_t v = 0;
		size_t i;

		if (h == SPE_PAD) {
			at++;
			continue;
		}
		if (h == SPE_END) {
			at++;
			closed = 1;
			break;
		}
		if ((h & SPE_EXT_MASK) == SPE_EXT) {
			ext = h & 3;
			if (++at == len)
				break;
			h = p[at];
		}
		size = 1u << ((h >> 4) & 3);
		if (at + 1 + size > len)
			return prof_fail(PROF_EFORMAT, "SPE packet %#x at byte "
					 "%zu runs past the %zu-byte buffer",
					 h, at, len);
		for (i = size; i > 0; i--)
			v = v << 8 | p[at + i];
		at += 1 + size;
		if (h == SPE_TIMESTAMP) {
			closed = 1;	/* the timestamp closes a record */
			break;
		}
		if ((h & SPE_ADDR_MASK) == SPE_ADDR) {
			unsigned idx = ext << 3 | (h & 7);

			if (idx == SPE_ADDR_PC) {
				out->ip = spe_va(v);
				have_pc = 1;
			} else if (idx == SPE_ADDR_DATA_VA) {
				out->data_addr = spe_va(v);
			}
		} else if ((h & SPE_COUNTER_MASK) == SPE_COUNTER) {
			unsigned idx = ext << 3 | (h & 7);

			if (idx == SPE_CNT_TOTAL) {
				total = v;
				have_total = 1;
			} else if (idx == SPE_CNT_ISSUE) {
				issue = v;
				have_issue = 1;
			}
		} else if ((h & SPE_EVENTS_MASK) == SPE_EVENTS) {
			events = v;
			have_events = 1;
		} else if ((h & SPE_OPTYPE_MASK) == SPE_OPTYPE) {
			op_class = (int)(h & 3);
			op = (unsigned)v;
		}
		/* Context, data source and later packets: not needed. */
	}
	if (!closed)
		return prof_fail(PROF_EFORMAT, "SPE record at the end of the "
				 "%zu-byte buffer has no End packet", len);
	*used = at;
	if (!have_pc)
		return PM_DROPPED;

	{
		int retired = have_events &&
			      bits(events, SPE_EV_RETIRED, 1);
		int ld = op_class == SPE_OP_LDST && !(op & 1);
		int st = op_class == SPE_OP_LDST && (op & 1);
		int br = op_class == SPE_OP_BRANCH;
		int taken = br && have_events &&
			    !bits(events, SPE_EV_NOT_TAKEN, 1);

		set(out, PM_VALID, 1);
		set(out, PM_RETIRE, (uint64_t)retired);
		/* SPE samples ops that never retire, unlike IBS. */
		set(out, PM_ABORT, (uint64_t)(have_events && !retired));
		if (have_total)
			set(out, PM_CYCLES, total);
		set(out, PM_TRAP, bits(events, SPE_EV_EXCEPTION, 1));
		set(out, PM_MISPREDICT, bits(events, SPE_EV_MISPRED, 1));
		set(out, PM_BRANCH, (uint64_t)(br && retired));
		set(out, PM_BRANCH_TAKEN, (uint64_t)(taken && retired));
		/* Operation type bit 0 of a branch is COND. */
		set(out, PM_CBR_TAKEN, (uint64_t)(taken && retired &&
						  (op & 1)));
		set(out, PM_LOADS, (uint64_t)ld);
		set(out, PM_STORES, (uint64_t)st);
		set(out, PM_DCACHE_MISS, (ld || st) &&
				 bits(events, SPE_EV_L1D_REFILL, 1));
		set(out, PM_DTB_MISS, (ld || st) &&
			      bits(events, SPE_EV_TLB_WALK, 1));
		set(out, PM_LDST_ALIGN_TRAP, (ld || st) &&
				     bits(events, SPE_EV_ALIGNMENT, 1));
		/* Total latency runs from dispatch; issue latency is the
		 * part before the load issued. */
		set(out, PM_LOAD_LATENCY, ld && have_total && total >= issue ?
				  total - (have_issue ? issue : 0) : 0);
	}
	return 0;
}

/* Read a small sysfs file below root into buf; 0 or -1. */
static int read_sys(const char *root, const char *dev, const char *file,
		    char *buf, size_t len)
{
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/%s",
		 root ? root : "/sys", dev, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int sys_type(const char *root, const char *dev, uint32_t *type)
{
	char buf[32], *end;
	unsigned long v;

	if (read_sys(root, dev, "type", buf, sizeof(buf)))
		return -1;
	v = strtoul(buf, &end, 10);
	if (end == buf || *end || v > UINT32_MAX)
		return -1;
	*type = (uint32_t)v;
	return 0;
}

static int sys_has(const char *root, const char *dev, const char *file)
{
	char buf[64];

	return !read_sys(root, dev, file, buf, sizeof(buf));
}

/* Cores whose PEBS records carry the retire latency (perf's
 * PMU_FL_RETIRE_LATENCY), by the core PMU's caps/pmu_name. */
static const char *const retire_latency_pmus[] = {
	"sapphire_rapids", "granite_rapids",
};

static int probe_pebs(const char *root, struct pm_pmu *out)
{
	static const char *const devs[] = { "cpu_core", "cpu" };
	char name[64], prec[16];
	size_t i;

	for (i = 0; i < NELEM(devs); i++) {
		if (sys_type(root, devs[i], &out->type))
			continue;
		if (read_sys(root, devs[i], "caps/pmu_name", name,
			     sizeof(name)) || !name[0] ||
		    !strncasecmp(name, "amd", 3))
			return prof_fail(PROF_EUNAVAIL, "no Intel core PMU "
					 "(caps/pmu_name of '%s')", devs[i]);
		if (!read_sys(root, devs[i], "caps/max_precise", prec,
			      sizeof(prec)) && !strcmp(prec, "0"))
			return prof_fail(PROF_EUNAVAIL, "the '%s' PMU has no "
					 "precise events (max_precise 0)",
					 name);
		for (size_t k = 0; k < NELEM(retire_latency_pmus); k++)
			if (!strcmp(name, retire_latency_pmus[k]))
				out->caps |= PM_PMU_RETIRE_LATENCY;
		return 0;
	}
	return prof_fail(PROF_EUNAVAIL, "no core PMU in sysfs (no PEBS)");
}

int pm_pmu_probe(enum pm_family f, const char *root, struct pm_pmu *out)
{
	memset(out, 0, sizeof(*out));
	out->family = f;
	switch (f) {
	case PM_FAMILY_AMD_IBS:
		if (sys_type(root, "ibs_op", &out->type))
			return prof_fail(PROF_EUNAVAIL, "no 'ibs_op' PMU "
					 "(not an AMD CPU with IBS, or a "
					 "virtual machine)");
		if (sys_has(root, "ibs_op", "format/cnt_ctl"))
			out->caps |= PM_PMU_CNT_CTL;
		if (sys_has(root, "ibs_op", "format/swfilt"))
			out->caps |= PM_PMU_SWFILT;
		return 0;
	case PM_FAMILY_ARM_SPE:
		if (sys_type(root, "arm_spe_0", &out->type))
			return prof_fail(PROF_EUNAVAIL, "no 'arm_spe_0' PMU "
					 "(no Arm SPE, or its driver is not "
					 "loaded)");
		return 0;
	case PM_FAMILY_INTEL_PEBS:
		return probe_pebs(root, out);
	default:
		return prof_fail(PROF_EUNAVAIL, "no such instruction-sampling "
				 "family");
	}
}

int pm_pmu_detect(const char *root, struct pm_pmu *out)
{
	static const enum pm_family order[] = {
		PM_FAMILY_AMD_IBS, PM_FAMILY_ARM_SPE, PM_FAMILY_INTEL_PEBS,
	};
	size_t i;

	for (i = 0; i < NELEM(order); i++)
		if (!pm_pmu_probe(order[i], root, out))
			return 0;
	return prof_fail(PROF_EUNAVAIL, "no instruction-sampling PMU here "
			 "(AMD IBS, Intel PEBS or Arm SPE)");
}

/* The PEBS event for each statistic; raw encodings are Skylake and
 * later cores' (Intel SDM vol. 3B, event select | umask << 8). */
static const struct {
	const char *name;
	uint64_t config;
	unsigned precise_ip;
} pebs_events[PM_PEBS_NEVENTS] = {
	[PM_PEBS_RETIRED] = { "INST_RETIRED.PREC_DIST", 0x01c0, 3 },
	[PM_PEBS_LOADS] = { "MEM_TRANS_RETIRED.LOAD_LATENCY", 0x01cd, 2 },
	[PM_PEBS_STORES] = { "MEM_INST_RETIRED.ALL_STORES", 0x82d0, 2 },
	[PM_PEBS_MISPREDICT] = { "BR_MISP_RETIRED.ALL_BRANCHES", 0x00c5, 2 },
	[PM_PEBS_BRANCHES] = { "BR_INST_RETIRED.ALL_BRANCHES", 0x00c4, 2 },
	[PM_PEBS_TAKEN] = { "BR_INST_RETIRED.NEAR_TAKEN", 0x20c4, 2 },
};

/* Load-latency threshold (config1, "ldlat"): loads of at least this
 * many cycles are sampled; 3 keeps nearly every load. */
#define PEBS_LDLAT 3

static int pebs_event_of(enum pm_stat s)
{
	switch (s) {
	case PM_RETIRE: case PM_VALID: case PM_DELAY:
		return PM_PEBS_RETIRED;
	case PM_LOADS: case PM_LOAD_LATENCY: case PM_DCACHE_MISS:
	case PM_DTB_MISS:
		return PM_PEBS_LOADS;
	case PM_STORES:
		return PM_PEBS_STORES;
	case PM_MISPREDICT:
		return PM_PEBS_MISPREDICT;
	case PM_BRANCH:
		return PM_PEBS_BRANCHES;
	case PM_BRANCH_TAKEN:
		return PM_PEBS_TAKEN;
	default:
		return -1;
	}
}

static int unavailable(const struct pm_pmu *pmu, enum pm_stat s,
		       const char *why)
{
	return prof_fail(PROF_EUNAVAIL, "'%s' is not available from %s: %s",
			 stat_pm_name(s), stat_pm_family_name(pmu->family), why);
}

static int plan_pebs(const struct pm_pmu *pmu, const enum pm_stat *stats,
		     size_t n, struct pm_event *ev, size_t max)
{
	int slot[PM_PEBS_NEVENTS];
	size_t i, nev = 0;

	for (i = 0; i < PM_PEBS_NEVENTS; i++)
		slot[i] = -1;
	for (i = 0; i < n; i++) {
		int k = pebs_event_of(stats[i]);
		struct pm_event *e;

		if (stats[i] == PM_DELAY &&
		    !(pmu->caps & PM_PMU_RETIRE_LATENCY))
			return unavailable(pmu, stats[i], "this core's PEBS "
					   "records have no retire latency "
					   "(Sapphire Rapids and later)");
		if (k < 0)
			return unavailable(pmu, stats[i], "no precise event "
					   "records it");
		if (slot[k] < 0) {
			if (nev == max)
				return prof_fail(PROF_EINVAL, "too many "
						 "events");
			slot[k] = (int)nev;
			e = &ev[nev++];
			memset(e, 0, sizeof(*e));
			e->name = pebs_events[k].name;
			e->family = PM_FAMILY_INTEL_PEBS;
			e->kind = k;
			e->type = pmu->type;
			e->config = pebs_events[k].config;
			e->precise_ip = pebs_events[k].precise_ip;
			e->hw_modes = 1;
			if (k == PM_PEBS_LOADS) {
				e->config1 = PEBS_LDLAT;
				e->sample_type = PERF_SAMPLE_WEIGHT_STRUCT |
						 PERF_SAMPLE_DATA_SRC |
						 PERF_SAMPLE_ADDR;
				e->have = PM_PEBS_HAVE_WEIGHT |
					  PM_PEBS_HAVE_DATA_SRC |
					  PM_PEBS_HAVE_ADDR;
			} else if (k == PM_PEBS_STORES) {
				e->sample_type = PERF_SAMPLE_DATA_SRC |
						 PERF_SAMPLE_ADDR;
				e->have = PM_PEBS_HAVE_DATA_SRC |
					  PM_PEBS_HAVE_ADDR;
			}
		}
		e = &ev[slot[k]];
		if (stats[i] == PM_DELAY) {
			e->sample_type |= PERF_SAMPLE_WEIGHT_STRUCT;
			e->have |= PM_PEBS_HAVE_RETIRE_LAT;
		}
		e->feeds[stats[i]] = 1;
	}
	return (int)nev;
}

int pm_plan(const struct pm_pmu *pmu, const enum pm_stat *stats, size_t n,
	    struct pm_event *ev, size_t max)
{
	struct pm_event *e = ev;
	size_t i;

	for (i = 0; i < n; i++)
		if (!stat_pm_family_provides(pmu->family, stats[i]))
			return unavailable(pmu, stats[i], "its samples do not "
					   "record it (docs/profileme.md)");
	if (pmu->family == PM_FAMILY_INTEL_PEBS)
		return plan_pebs(pmu, stats, n, ev, max);
	if (!max)
		return prof_fail(PROF_EINVAL, "too many events");
	/* IBS and SPE: one sampler sees everything about an op, and there
	 * is one per CPU, so every statistic comes from one event. */
	memset(e, 0, sizeof(*e));
	e->family = pmu->family;
	e->type = pmu->type;
	for (i = 0; i < n; i++)
		e->feeds[stats[i]] = 1;
	if (pmu->family == PM_FAMILY_AMD_IBS) {
		e->name = "ibs_op";
		/* IbsOpCntCtl (config:19): count dispatched ops, not
		 * cycles, so the sample is uniform over instructions. */
		if (pmu->caps & PM_PMU_CNT_CTL)
			e->config |= 1ull << 19;
		/* Without swfilt (config2:0), ibs_op refuses exclude_*:
		 * every mode is sampled and the collector keeps the asked
		 * ones by each sample's cpumode. */
		if (pmu->caps & PM_PMU_SWFILT) {
			e->config2 |= 1;
			e->hw_modes = 1;
		}
		e->sample_type = PERF_SAMPLE_RAW;
	} else {
		e->name = "arm_spe_0";
		/* ts_enable (config:0) timestamps each record, jitter
		 * (config:16) randomizes the interval. */
		e->config = 1ull << 0 | 1ull << 16;
		e->hw_modes = 1;
		e->aux = 1;
	}
	return 1;
}

int pm_check_period(enum pm_family f, uint64_t period)
{
	/* IbsOpMaxCnt has no low 4 bits: the kernel refuses such periods. */
	if (f == PM_FAMILY_AMD_IBS && period % 16)
		return prof_fail(PROF_EINVAL, "-c %llu: IBS op periods are "
				 "multiples of 16 ops (try -c %llu)",
				 (unsigned long long)period,
				 (unsigned long long)(period + 15) / 16 * 16);
	return 0;
}
