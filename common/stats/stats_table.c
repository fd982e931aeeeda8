/* SPDX-License-Identifier: MIT */
/*
 * The statistics table (contract in stats.h; docs/statistics.md explains
 * every row).  Data only: stats.c looks names up and resolves them.
 */
#include <linux/perf_event.h>
#include <stddef.h>

#include "stats.h"

/* PERF_TYPE_HW_CACHE config: cache id, operation, result. */
#define HWC(id, op, res) \
	((PERF_COUNT_HW_CACHE_##id) | (PERF_COUNT_HW_CACHE_OP_##op << 8) | \
	 (PERF_COUNT_HW_CACHE_RESULT_##res << 16))

/*
 * The originals' names first (retinst, mispredict, bcachemisses), perf's
 * names as aliases.  Where perf has a generic event it comes first: the
 * kernel keeps its meaning right per CPU model.  The natives are what
 * docs/statistics.md argues is closest per family; a row's note says why
 * a family has none.  Only "cycles" has a substitute: it is the default
 * statistic, and a time-based sample is its honest stand-in.
 */
const struct stat_def stat_table[] = {
	/* Aggregate hardware counters (the originals' aggregate mode). */
	{ .name = "cycles", .aliases = "cpu-cycles",
	  .desc = "processor cycles (the default)",
	  .kind = STAT_HW, .generic = 1, .type = PERF_TYPE_HARDWARE,
	  .config = PERF_COUNT_HW_CPU_CYCLES,
	  .native = {
		[STAT_FAM_INTEL] = "CPU_CLK_UNHALTED:THREAD_P",
		[STAT_FAM_AMD] = "CYCLES_NOT_IN_HALT",
		[STAT_FAM_ARM] = "CPU_CYCLES",
	  },
	  .substitute = "cpu-clock" },
	{ .name = "retinst", .aliases = "instructions",
	  .desc = "retired instructions",
	  .kind = STAT_HW, .generic = 1, .type = PERF_TYPE_HARDWARE,
	  .config = PERF_COUNT_HW_INSTRUCTIONS,
	  .native = {
		[STAT_FAM_INTEL] = "INST_RETIRED:ANY_P",
		[STAT_FAM_AMD] = "RETIRED_INSTRUCTIONS",
		[STAT_FAM_ARM] = "INST_RETIRED",
	  },
	  .sim = { .index = 0, .aliases = "instructions",
		   .desc = "instructions executed",
		   .events = "Ir" } },
	{ .name = "issues",
	  .desc = "instructions (micro-ops) issued, including speculative "
		  "ones",
	  .kind = STAT_HW,
	  .native = {
		[STAT_FAM_INTEL] = "UOPS_ISSUED:ANY",
		[STAT_FAM_AMD] = "OPS_SOURCE_DISPATCHED_FROM_DECODER:"
				 "X86DECODER_DISPATCHED:OPCACHE_DISPATCHED",
		[STAT_FAM_ARM] = "INST_SPEC",
	  },
	  .note = "AMD: Zen 3 only in libpfm4 (ops dispatched)" },
	{ .name = "loads", .aliases = "L1-dcache-loads",
	  .desc = "load instructions",
	  .kind = STAT_HW, .generic = 1, .type = PERF_TYPE_HW_CACHE,
	  .config = HWC(L1D, READ, ACCESS),
	  .native = {
		[STAT_FAM_INTEL] = "MEM_INST_RETIRED:ALL_LOADS",
		[STAT_FAM_AMD] = "LS_DISPATCH:LD_DISPATCH",
		[STAT_FAM_ARM] = "LD_RETIRED|LD_SPEC",
	  },
	  .note = "AMD and most Arm cores count dispatched (speculative) "
		  "loads",
	  .sim = { .index = 1,
		   .desc = "data reads (loads)",
		   .events = "Dr" } },
	{ .name = "stores", .aliases = "L1-dcache-stores",
	  .desc = "store instructions",
	  .kind = STAT_HW, .generic = 1, .type = PERF_TYPE_HW_CACHE,
	  .config = HWC(L1D, WRITE, ACCESS),
	  .native = {
		[STAT_FAM_INTEL] = "MEM_INST_RETIRED:ALL_STORES",
		[STAT_FAM_AMD] = "LS_DISPATCH:STORE_DISPATCH",
		[STAT_FAM_ARM] = "ST_RETIRED|ST_SPEC",
	  },
	  .note = "AMD and most Arm cores count dispatched (speculative) "
		  "stores",
	  .sim = { .index = 2,
		   .desc = "data writes (stores)",
		   .events = "Dw" } },
	{ .name = "branches", .aliases = "branch-instructions",
	  .desc = "retired branch instructions",
	  .kind = STAT_HW, .generic = 1, .type = PERF_TYPE_HARDWARE,
	  .config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	  .native = {
		[STAT_FAM_INTEL] = "BR_INST_RETIRED:ALL_BRANCHES",
		[STAT_FAM_AMD] = "RETIRED_BRANCH_INSTRUCTIONS",
		[STAT_FAM_ARM] = "BR_RETIRED",
	  } },
	{ .name = "condbranches", .aliases = "retcondbranches",
	  .desc = "retired conditional branches",
	  .kind = STAT_HW,
	  .native = {
		[STAT_FAM_INTEL] =
			"BR_INST_RETIRED:COND|BR_INST_RETIRED:CONDITIONAL",
		[STAT_FAM_AMD] = "RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS",
	  },
	  .note = "Arm: PMUv3 has no conditional-branch event (only "
		  "BR_IMMED_SPEC, all immediate branches)",
	  .sim = { .index = 6,
		   .desc = "conditional branches executed",
		   .events = "Bc" } },
	{ .name = "indbranches",
	  .desc = "retired indirect branches",
	  .kind = STAT_HW,
	  .native = {
		[STAT_FAM_INTEL] = "BR_INST_RETIRED:INDIRECT",
		[STAT_FAM_AMD] = "RETIRED_INDIRECT_BRANCH_INSTRUCTIONS",
		[STAT_FAM_ARM] = "BR_INDIRECT_SPEC",
	  },
	  .note = "Intel: Ice Lake and later; AMD: Zen 3 and later; Arm "
		  "counts speculatively executed ones",
	  .sim = { .index = 7,
		   .desc = "indirect branches executed (jumps and calls "
			   "through a register or memory; not returns)",
		   .events = "Bi" } },
	{ .name = "mispredict",
	  .aliases = "branch-misses,mispredicts,branchmispredicts",
	  .desc = "mispredicted branches",
	  .kind = STAT_HW, .generic = 1, .type = PERF_TYPE_HARDWARE,
	  .config = PERF_COUNT_HW_BRANCH_MISSES,
	  .native = {
		[STAT_FAM_INTEL] = "BR_MISP_RETIRED:ALL_BRANCHES",
		[STAT_FAM_AMD] = "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED",
		[STAT_FAM_ARM] = "BR_MIS_PRED_RETIRED",
	  },
	  .sim = { .index = 8, .aliases = "branch-misses",
		   .desc = "mispredicted conditional and indirect branches "
			   "(simulated predictor)",
		   .events = "Bcm+Bim" } },
	{ .name = "condmispredict",
	  .desc = "mispredicted conditional branches",
	  .kind = STAT_HW,
	  .native = {
		[STAT_FAM_INTEL] =
			"BR_MISP_RETIRED:COND|BR_MISP_RETIRED:CONDITIONAL",
		[STAT_FAM_AMD] =
			"RETIRED_BRANCH_MISPREDICTED_DIRECTION_MISMATCH",
	  },
	  .note = "Arm: PMUv3 does not split mispredicts by branch kind",
	  .sim = { .index = 9,
		   .desc = "mispredicted conditional branches (simulated "
			   "predictor)",
		   .events = "Bcm" } },
	{ .name = "indmispredict",
	  .desc = "mispredicted indirect branches",
	  .kind = STAT_HW,
	  .native = {
		[STAT_FAM_INTEL] = "BR_MISP_RETIRED:INDIRECT",
		[STAT_FAM_AMD] =
			"RETIRED_INDIRECT_BRANCH_INSTRUCTIONS_MISPREDICTED",
	  },
	  .note = "Intel: Ice Lake and later; Arm: PMUv3 does not split "
		  "mispredicts by branch kind",
	  .sim = { .index = 10,
		   .desc = "mispredicted indirect branches (simulated "
			   "predictor)",
		   .events = "Bim" } },
	{ .name = "icachemisses", .aliases = "L1-icache-load-misses,icache",
	  .desc = "instruction cache misses",
	  .kind = STAT_HW, .generic = 1, .type = PERF_TYPE_HW_CACHE,
	  .config = HWC(L1I, READ, MISS),
	  .native = {
		[STAT_FAM_INTEL] = "ICACHE_64B:IFTAG_MISS",
		[STAT_FAM_AMD] = "IC_TAG_HIT_MISS:IC_MISS",
		[STAT_FAM_ARM] = "L1I_CACHE_REFILL",
	  },
	  .sim = { .index = 3,
		   .desc = "first-level instruction cache misses (simulated)",
		   .events = "I1mr" } },
	{ .name = "dcachemisses", .aliases = "L1-dcache-load-misses,dcache",
	  .desc = "data cache load misses",
	  .kind = STAT_HW, .generic = 1, .type = PERF_TYPE_HW_CACHE,
	  .config = HWC(L1D, READ, MISS),
	  .native = {
		[STAT_FAM_INTEL] = "MEM_LOAD_RETIRED:L1_MISS|L1D:REPLACEMENT",
		[STAT_FAM_ARM] = "L1D_CACHE_REFILL",
	  },
	  .note = "AMD: no single core event in libpfm4; the kernel's "
		  "generic L1-dcache-load-misses is used",
	  .sim = { .index = 4,
		   .desc = "first-level data cache misses, reads and writes "
			   "(simulated)",
		   .events = "D1mr+D1mw" } },
	{ .name = "bcache", .aliases = "cache-references,bcacheaccesses",
	  .desc = "last-level (the originals' board-level) cache accesses",
	  .kind = STAT_HW, .generic = 1, .type = PERF_TYPE_HARDWARE,
	  .config = PERF_COUNT_HW_CACHE_REFERENCES,
	  .native = {
		[STAT_FAM_INTEL] = "LONGEST_LAT_CACHE:REFERENCE",
		[STAT_FAM_ARM] = "LL_CACHE_RD",
	  },
	  .note = "AMD: the L3 has its own PMU that cannot count per task; "
		  "the kernel's generic cache-references is used" },
	{ .name = "bcachemisses", .aliases = "cache-misses",
	  .desc = "last-level (the originals' board-level) cache misses",
	  .kind = STAT_HW, .generic = 1, .type = PERF_TYPE_HARDWARE,
	  .config = PERF_COUNT_HW_CACHE_MISSES,
	  .native = {
		[STAT_FAM_INTEL] = "LONGEST_LAT_CACHE:MISS",
		[STAT_FAM_ARM] = "LL_CACHE_MISS_RD",
	  },
	  .note = "AMD: the L3 has its own PMU that cannot count per task; "
		  "the kernel's generic cache-misses is used",
	  .sim = { .index = 5, .aliases = "cache-misses",
		   .desc = "last-level cache misses, instructions and data "
			   "(simulated)",
		   .events = "ILmr+DLmr+DLmw" } },
	{ .name = "scache", .aliases = "scacheaccesses",
	  .desc = "second-level cache accesses",
	  .kind = STAT_HW,
	  .native = {
		[STAT_FAM_INTEL] =
			"L2_RQSTS:REFERENCES|L2_RQSTS:ALL_DEMAND_REFERENCES",
		[STAT_FAM_AMD] = "REQUESTS_TO_L2_GROUP1:RD_BLK_L:RD_BLK_X:"
				 "LS_RD_BLK_C_S:CACHEABLE_IC_READ:"
				 "CHANGE_TO_X:PREFETCH_L2_CMD",
		[STAT_FAM_ARM] = "L2D_CACHE|L2D_CACHE_ACCESS",
	  } },
	{ .name = "scachemisses",
	  .desc = "second-level cache misses",
	  .kind = STAT_HW,
	  .native = {
		[STAT_FAM_INTEL] = "L2_RQSTS:MISS|L2_RQSTS:ALL_DEMAND_MISS",
		[STAT_FAM_AMD] = "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:"
				 "LS_RD_BLK_C:IC_FILL_MISS",
		[STAT_FAM_ARM] = "L2D_CACHE_REFILL",
	  } },
	{ .name = "dtbmisses", .aliases = "dTLB-load-misses,dtbmiss",
	  .desc = "data TLB misses that walk the page table",
	  .kind = STAT_HW, .generic = 1, .type = PERF_TYPE_HW_CACHE,
	  .config = HWC(DTLB, READ, MISS),
	  .native = {
		[STAT_FAM_INTEL] = "DTLB_LOAD_MISSES:WALK_COMPLETED",
		[STAT_FAM_AMD] = "L1_DTLB_MISS:TLB_RELOAD_4K_L2_MISS:"
				 "TLB_RELOAD_2M_L2_MISS:"
				 "TLB_RELOAD_1G_L2_MISS:"
				 "TLB_RELOAD_COALESCED_PAGE_MISS",
		[STAT_FAM_ARM] = "DTLB_WALK",
	  } },
	{ .name = "itbmisses", .aliases = "iTLB-load-misses,itbmiss",
	  .desc = "instruction TLB misses that walk the page table",
	  .kind = STAT_HW, .generic = 1, .type = PERF_TYPE_HW_CACHE,
	  .config = HWC(ITLB, READ, MISS),
	  .native = {
		[STAT_FAM_INTEL] = "ITLB_MISSES:WALK_COMPLETED",
		[STAT_FAM_AMD] = "L1_ITLB_MISS_L2_ITLB_MISS:IF1G:IF2M:IF4K:"
				 "COALESCED4K|L1_ITLB_MISS_L2_ITLB_MISS:IF1G:"
				 "IF2M:IF4K",
		[STAT_FAM_ARM] = "ITLB_WALK",
	  } },
	{ .name = "unaligntraps", .aliases = "retunaligntraps,unaligned",
	  .desc = "unaligned loads and stores (the originals trapped on them)",
	  .kind = STAT_HW,
	  .native = {
		[STAT_FAM_INTEL] = "MEM_INST_RETIRED:SPLIT_LOADS",
		[STAT_FAM_AMD] = "MISALIGNED_LOADS|MISALIGNED_LOADS:MA4K:MA64",
		[STAT_FAM_ARM] = "UNALIGNED_LDST_RETIRED|UNALIGNED_LDST_SPEC",
	  },
	  .note = "x86 and AArch64 do not trap: these count accesses that "
		  "cross a cache line (Intel) or are misaligned; the "
		  "kernel's fix-ups are the software statistic "
		  "alignment-faults" },
	{ .name = "replay_trap",
	  .aliases = "replay,replays,replaytrap,machine-clears",
	  .desc = "pipeline flushes and restarts (Alpha replay traps)",
	  .kind = STAT_HW,
	  .native = {
		[STAT_FAM_INTEL] = "MACHINE_CLEARS:MEMORY_ORDERING",
		[STAT_FAM_AMD] = "RESYNCS",
	  },
	  .note = "AMD: Zen 4 and later (RESYNCS); Arm: PMUv3 has no "
		  "architected pipeline-flush event" },
	{ .name = "longstalls", .aliases = "longstall",
	  .desc = "cycles stalled on a long-latency (memory) operation",
	  .kind = STAT_HW,
	  .native = {
		[STAT_FAM_INTEL] = "CYCLE_ACTIVITY:STALLS_L3_MISS",
		[STAT_FAM_AMD] = "CYCLES_NO_RETIRE:NOT_COMPLETE_MISSING_LOAD",
		[STAT_FAM_ARM] = "STALL_BACKEND_MEM",
	  },
	  .note = "AMD: Zen 4 and later; Arm: STALL_BACKEND_MEM is Armv8.7 "
		  "and later cores" },
	{ .name = "pipedry", .aliases = "stalled-cycles-frontend",
	  .desc = "cycles nothing issued for want of instructions (front end)",
	  .kind = STAT_HW, .generic = 1, .type = PERF_TYPE_HARDWARE,
	  .config = PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
	  .native = {
		[STAT_FAM_INTEL] =
			"IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE",
		[STAT_FAM_AMD] = "DISPATCH_STALLS_1:FE_NO_OPS",
		[STAT_FAM_ARM] = "STALL_FRONTEND",
	  },
	  .note = "AMD: Zen 4 and later" },
	{ .name = "pipefrozen", .aliases = "stalled-cycles-backend",
	  .desc = "cycles nothing issued for want of resources (back end)",
	  .kind = STAT_HW, .generic = 1, .type = PERF_TYPE_HARDWARE,
	  .config = PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
	  .native = {
		[STAT_FAM_INTEL] =
			"RESOURCE_STALLS:ANY|CYCLE_ACTIVITY:STALLS_TOTAL",
		[STAT_FAM_AMD] = "DISPATCH_STALLS_1:BE_STALLS",
		[STAT_FAM_ARM] = "STALL_BACKEND",
	  },
	  .note = "AMD: Zen 4 and later" },

	/* Profile-me: the originals' 31 base statistics, then modern ones. */
	{ .name = "abort",
	  .desc = "the sampled instruction was aborted",
	  .kind = STAT_PROFILEME, .pm = PM_ABORT,
	  .pm_src = {
		[STAT_PM_SPE] = "not retired (Events bit 1 clear)",
	  },
	  .note = "IBS and PEBS report only retired instructions" },
	{ .name = "arith_trap",
	  .desc = "the sampled instruction raised an arithmetic trap",
	  .kind = STAT_PROFILEME, .pm = PM_ARITH_TRAP,
	  .note = "no sampling PMU flags arithmetic exceptions (x86 and Arm "
		  "mask FP exceptions by default)" },
	{ .name = "cbr_taken",
	  .desc = "the sampled instruction was a taken conditional branch",
	  .kind = STAT_PROFILEME, .pm = PM_CBR_TAKEN,
	  .pm_src = {
		[STAT_PM_IBS] = "IbsOpBrnTaken (any kind of branch)",
		[STAT_PM_PEBS] = "BR_INST_RETIRED:COND_TAKEN",
		[STAT_PM_SPE] =
			"conditional branch, Events bit 6 (not taken) clear",
	  },
	  .note = "IBS does not tell conditional branches from others; PEBS: "
		  "Ice Lake and later" },
	{ .name = "cycles",
	  .desc = "cycles the sampled instruction was in flight",
	  .kind = STAT_PROFILEME, .pm = PM_CYCLES,
	  .pm_src = {
		[STAT_PM_IBS] = "IbsTagToRetCtr (tag to retire)",
		[STAT_PM_SPE] = "total latency (dispatch to complete)",
	  },
	  .note = "PEBS records a latency only for loads (load_latency)" },
	{ .name = "delay",
	  .desc = "retire delay of the sampled instruction",
	  .kind = STAT_PROFILEME, .pm = PM_DELAY,
	  .pm_src = {
		[STAT_PM_IBS] = "IbsCompToRetCtr (completion to retire)",
		[STAT_PM_PEBS] = "retire latency (Sapphire Rapids and later)",
	  },
	  .note = "SPE records no retire time" },
	{ .name = "dstream_fault",
	  .desc = "the sampled instruction took a data page fault",
	  .kind = STAT_PROFILEME, .pm = PM_DSTREAM_FAULT,
	  .note = "page faults are kernel events, not in samples: use the "
		  "software statistic page-faults" },
	{ .name = "dtb_miss",
	  .desc = "the sampled instruction missed the data TLB and walked "
		  "the page table",
	  .kind = STAT_PROFILEME, .pm = PM_DTB_MISS,
	  .pm_src = {
		[STAT_PM_IBS] = "IbsDcL2TlbMiss",
		[STAT_PM_PEBS] = "MEM_INST_RETIRED:STLB_MISS_LOADS",
		[STAT_PM_SPE] = "Events bit 5 (TLB walk)",
	  } },
	{ .name = "dtb_miss3",
	  .desc = "DTB double miss, 3-level page table",
	  .kind = STAT_PROFILEME, .pm = PM_DTB_MISS3,
	  .note = "no PMU reports the depth of a page walk" },
	{ .name = "dtb_miss4",
	  .desc = "DTB double miss, 4-level page table",
	  .kind = STAT_PROFILEME, .pm = PM_DTB_MISS4,
	  .note = "no PMU reports the depth of a page walk" },
	{ .name = "early_kill",
	  .desc = "the sampled instruction was killed early in the pipeline",
	  .kind = STAT_PROFILEME, .pm = PM_EARLY_KILL,
	  .note = "SPE sees instructions that do not retire (abort) but not "
		  "how early they died; IBS and PEBS see only retired ones" },
	{ .name = "fp_disabled",
	  .desc = "the sampled instruction took an FP disabled trap",
	  .kind = STAT_PROFILEME, .pm = PM_FP_DISABLED,
	  .note = "Linux no longer switches FP state lazily: there is no "
		  "such trap to sample" },
	{ .name = "icache_miss",
	  .desc = "the sampled instruction missed the instruction cache",
	  .kind = STAT_PROFILEME, .pm = PM_ICACHE_MISS,
	  .pm_src = {
		[STAT_PM_IBS] = "fetch:IbsIcMiss",
		[STAT_PM_PEBS] = "FRONTEND_RETIRED:L1I_MISS",
	  },
	  .note = "SPE samples operations after decode, not fetches" },
	{ .name = "icache_parity",
	  .desc = "instruction cache parity error",
	  .kind = STAT_PROFILEME, .pm = PM_ICACHE_PARITY,
	  .note = "cache parity errors are machine checks (RAS: EDAC, "
		  "mcelog), never in samples" },
	{ .name = "inflt_bcache_miss",
	  .desc = "cache misses while the sampled instruction was in flight",
	  .kind = STAT_PROFILEME, .pm = PM_INFLT_BCACHE_MISS,
	  .note = "no current PMU counts other events in a sample's window" },
	{ .name = "inflt_replays",
	  .desc = "replay traps while the sampled instruction was in flight",
	  .kind = STAT_PROFILEME, .pm = PM_INFLT_REPLAYS,
	  .note = "no current PMU counts other events in a sample's window" },
	{ .name = "inflt_retires",
	  .desc = "instructions retired while the sampled instruction was in "
		  "flight",
	  .kind = STAT_PROFILEME, .pm = PM_INFLT_RETIRES,
	  .note = "no current PMU counts other events in a sample's window" },
	{ .name = "interrupt",
	  .desc = "the sampled instruction was pre-empted by an interrupt",
	  .kind = STAT_PROFILEME, .pm = PM_INTERRUPT,
	  .note = "no PMU marks a sample as interrupted" },
	{ .name = "istream_accvio",
	  .desc = "the sampled instruction took an instruction access "
		  "violation",
	  .kind = STAT_PROFILEME, .pm = PM_ISTREAM_ACCVIO,
	  .note = "instruction faults are kernel events, not in samples" },
	{ .name = "itb_miss",
	  .desc = "the sampled instruction missed the instruction TLB",
	  .kind = STAT_PROFILEME, .pm = PM_ITB_MISS,
	  .pm_src = {
		[STAT_PM_IBS] = "fetch:IbsL2TlbMiss",
		[STAT_PM_PEBS] = "FRONTEND_RETIRED:STLB_MISS",
	  },
	  .note = "SPE samples operations after decode, not fetches" },
	{ .name = "ldst_align_trap",
	  .desc = "the sampled load or store was unaligned",
	  .kind = STAT_PROFILEME, .pm = PM_LDST_ALIGN_TRAP,
	  .pm_src = {
		[STAT_PM_IBS] = "IbsDcMisAcc",
		[STAT_PM_PEBS] = "MEM_INST_RETIRED:SPLIT_LOADS",
		[STAT_PM_SPE] = "Events bit 11 (misaligned, SPEv1p1)",
	  },
	  .note = "x86 and AArch64 do not trap; PEBS sees accesses that "
		  "cross a cache line" },
	{ .name = "ldst_order_trap",
	  .desc = "the sampled instruction caused a load-store order trap",
	  .kind = STAT_PROFILEME, .pm = PM_LDST_ORDER_TRAP,
	  .note = "ordering flushes are counted (replay_trap) but not "
		  "attributed to a sample" },
	{ .name = "map_stall",
	  .desc = "the sampled instruction stalled before register mapping",
	  .kind = STAT_PROFILEME, .pm = PM_MAP_STALL,
	  .note = "no PMU reports a rename stall per instruction" },
	{ .name = "mchk_trap",
	  .desc = "the sampled instruction took a machine check",
	  .kind = STAT_PROFILEME, .pm = PM_MCHK_TRAP,
	  .note = "machine checks go to RAS (mcelog, EDAC), never into "
		  "samples" },
	{ .name = "mispredict",
	  .desc = "the sampled branch was mispredicted",
	  .kind = STAT_PROFILEME, .pm = PM_MISPREDICT,
	  .pm_src = {
		[STAT_PM_IBS] = "IbsOpBrnMisp",
		[STAT_PM_PEBS] = "BR_MISP_RETIRED:ALL_BRANCHES",
		[STAT_PM_SPE] = "Events bit 7 (mispredicted)",
	  } },
	{ .name = "mt_fpcr_trap",
	  .desc = "the sampled MT_FPCR instruction trapped",
	  .kind = STAT_PROFILEME, .pm = PM_MT_FPCR_TRAP,
	  .note = "an Alpha instruction: x86 and Arm have no counterpart" },
	{ .name = "opcdec_trap",
	  .desc = "the sampled instruction was a reserved opcode",
	  .kind = STAT_PROFILEME, .pm = PM_OPCDEC_TRAP,
	  .note = "illegal instructions raise SIGILL; no PMU flags them in "
		  "samples" },
	{ .name = "replay_trap",
	  .desc = "the sampled instruction caused a replay trap",
	  .kind = STAT_PROFILEME, .pm = PM_REPLAY_TRAP,
	  .note = "IBS, PEBS and SPE do not flag replays: the aggregate "
		  "replay_trap counts them" },
	{ .name = "reset",
	  .desc = "listed by the originals without a description",
	  .kind = STAT_PROFILEME, .pm = PM_RESET,
	  .note = "pfm(7) gives it no meaning to reproduce" },
	{ .name = "retire", .aliases = "retired",
	  .desc = "the sampled instruction retired",
	  .kind = STAT_PROFILEME, .pm = PM_RETIRE,
	  .pm_src = {
		[STAT_PM_IBS] =
			"every IBS op sample (IBS reports retired ops)",
		[STAT_PM_PEBS] = "INST_RETIRED:PREC_DIST",
		[STAT_PM_SPE] = "Events bit 1 (retired)",
	  } },
	{ .name = "trap",
	  .desc = "the sampled instruction trapped",
	  .kind = STAT_PROFILEME, .pm = PM_TRAP,
	  .pm_src = {
		[STAT_PM_SPE] = "Events bit 0 (generated exception)",
	  },
	  .note = "IBS and PEBS do not flag exceptions" },
	{ .name = "valid",
	  .desc = "the sample is a valid instruction",
	  .kind = STAT_PROFILEME, .pm = PM_VALID,
	  .pm_src = {
		[STAT_PM_IBS] = "IbsOpRipInvalid clear",
		[STAT_PM_PEBS] = "every PEBS record",
		[STAT_PM_SPE] = "every record",
	  } },
	{ .name = "dcache_miss",
	  .desc = "the sampled load or store missed the L1 data cache",
	  .kind = STAT_PROFILEME, .pm = PM_DCACHE_MISS,
	  .pm_src = {
		[STAT_PM_IBS] = "IbsDcMiss",
		[STAT_PM_PEBS] = "MEM_LOAD_RETIRED:L1_MISS",
		[STAT_PM_SPE] = "Events bit 3 (L1D refill)",
	  } },
	{ .name = "load_latency",
	  .desc = "cycles from the sampled load's issue to its data",
	  .kind = STAT_PROFILEME, .pm = PM_LOAD_LATENCY,
	  .pm_src = {
		[STAT_PM_IBS] = "IbsDcMissLat (misses only)",
		[STAT_PM_PEBS] = "MEM_TRANS_RETIRED:LOAD_LATENCY",
		[STAT_PM_SPE] = "total latency of loads",
	  } },
	{ .name = "loads",
	  .desc = "the sampled instruction was a load",
	  .kind = STAT_PROFILEME, .pm = PM_LOADS,
	  .pm_src = {
		[STAT_PM_IBS] = "IbsLdOp",
		[STAT_PM_PEBS] = "MEM_INST_RETIRED:ALL_LOADS",
		[STAT_PM_SPE] = "operation type: load",
	  } },
	{ .name = "stores",
	  .desc = "the sampled instruction was a store",
	  .kind = STAT_PROFILEME, .pm = PM_STORES,
	  .pm_src = {
		[STAT_PM_IBS] = "IbsStOp",
		[STAT_PM_PEBS] = "MEM_INST_RETIRED:ALL_STORES",
		[STAT_PM_SPE] = "operation type: store",
	  } },
	{ .name = "branches",
	  .desc = "the sampled instruction was a branch",
	  .kind = STAT_PROFILEME, .pm = PM_BRANCH,
	  .pm_src = {
		[STAT_PM_IBS] = "IbsOpBrnRet",
		[STAT_PM_PEBS] = "BR_INST_RETIRED:ALL_BRANCHES",
		[STAT_PM_SPE] = "operation type: branch",
	  } },

	/* Kernel software events. */
	{ .name = "cpu-clock",
	  .desc = "CPU time, sampled by a high-resolution timer",
	  .kind = STAT_SW, .generic = 1, .type = PERF_TYPE_SOFTWARE,
	  .config = PERF_COUNT_SW_CPU_CLOCK },
	{ .name = "task-clock",
	  .desc = "CPU time of the profiled tasks",
	  .kind = STAT_SW, .generic = 1, .type = PERF_TYPE_SOFTWARE,
	  .config = PERF_COUNT_SW_TASK_CLOCK },
	{ .name = "offcpu", .aliases = "off-cpu",
	  .desc = "time threads spent switched out (asleep, waiting for I/O "
		  "or preempted), in ns, charged to where each waited",
	  .kind = STAT_SW, .generic = 1, .type = PERF_TYPE_SOFTWARE,
	  .config = PERF_COUNT_SW_DUMMY, .offcpu = STAT_OFFCPU_TIME },
	{ .name = "wall", .aliases = "wall-clock",
	  .desc = "elapsed time, in ns: CPU time sampled by a timer, plus "
		  "the time switched out",
	  .kind = STAT_SW, .generic = 1, .type = PERF_TYPE_SOFTWARE,
	  .config = PERF_COUNT_SW_CPU_CLOCK, .offcpu = STAT_OFFCPU_WALL },
	{ .name = "page-faults", .aliases = "faults",
	  .desc = "page faults",
	  .kind = STAT_SW, .generic = 1, .type = PERF_TYPE_SOFTWARE,
	  .config = PERF_COUNT_SW_PAGE_FAULTS },
	{ .name = "minor-faults",
	  .desc = "page faults served without I/O",
	  .kind = STAT_SW, .generic = 1, .type = PERF_TYPE_SOFTWARE,
	  .config = PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ .name = "major-faults",
	  .desc = "page faults that needed I/O",
	  .kind = STAT_SW, .generic = 1, .type = PERF_TYPE_SOFTWARE,
	  .config = PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ .name = "context-switches", .aliases = "cs",
	  .desc = "context switches",
	  .kind = STAT_SW, .generic = 1, .type = PERF_TYPE_SOFTWARE,
	  .config = PERF_COUNT_SW_CONTEXT_SWITCHES,
	  .kernel_only = 1 },
	{ .name = "cpu-migrations", .aliases = "migrations",
	  .desc = "moves of a task to another CPU",
	  .kind = STAT_SW, .generic = 1, .type = PERF_TYPE_SOFTWARE,
	  .config = PERF_COUNT_SW_CPU_MIGRATIONS,
	  .kernel_only = 1 },
	{ .name = "alignment-faults",
	  .desc = "unaligned accesses the kernel fixed up (where the CPU "
		  "traps)",
	  .kind = STAT_SW, .generic = 1, .type = PERF_TYPE_SOFTWARE,
	  .config = PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ .name = "emulation-faults",
	  .desc = "instructions the kernel emulated",
	  .kind = STAT_SW, .generic = 1, .type = PERF_TYPE_SOFTWARE,
	  .config = PERF_COUNT_SW_EMULATION_FAULTS },

	/* Derived at report time from profile-me counts (pfm(7)). */
	{ .name = "abort_per_ret",
	  .desc = "100 * abort / retire: abort per 100 retired instructions",
	  .kind = STAT_DERIVED, .num = "abort", .den = "retire",
	  .scale = 100 },
	{ .name = "cbr_taken_per_ret",
	  .desc = "100 * cbr_taken / retire: cbr_taken per 100 retired "
		  "instructions",
	  .kind = STAT_DERIVED, .num = "cbr_taken", .den = "retire",
	  .scale = 100 },
	{ .name = "cycles_per_ret",
	  .desc = "cycles / retire: average cycles per retired instruction",
	  .kind = STAT_DERIVED, .num = "cycles", .den = "retire", .scale = 1 },
	{ .name = "delay_per_ret",
	  .desc = "100 * delay / retire: delay per 100 retired instructions",
	  .kind = STAT_DERIVED, .num = "delay", .den = "retire",
	  .scale = 100 },
	{ .name = "dtb_miss_per_ret",
	  .desc = "100 * dtb_miss / retire: dtb_miss per 100 retired "
		  "instructions",
	  .kind = STAT_DERIVED, .num = "dtb_miss", .den = "retire",
	  .scale = 100 },
	{ .name = "early_kill_per_ret",
	  .desc = "100 * early_kill / retire: early_kill per 100 retired "
		  "instructions",
	  .kind = STAT_DERIVED, .num = "early_kill", .den = "retire",
	  .scale = 100 },
	{ .name = "icache_miss_per_ret",
	  .desc = "100 * icache_miss / retire: icache_miss per 100 retired "
		  "instructions",
	  .kind = STAT_DERIVED, .num = "icache_miss", .den = "retire",
	  .scale = 100 },
	{ .name = "map_stall_per_ret",
	  .desc = "100 * map_stall / retire: map_stall per 100 retired "
		  "instructions",
	  .kind = STAT_DERIVED, .num = "map_stall", .den = "retire",
	  .scale = 100 },
	{ .name = "mispredict_per_ret",
	  .desc = "100 * mispredict / retire: mispredict per 100 retired "
		  "instructions",
	  .kind = STAT_DERIVED, .num = "mispredict", .den = "retire",
	  .scale = 100 },
	{ .name = "replay_trap_per_ret",
	  .desc = "100 * replay_trap / retire: replay_trap per 100 retired "
		  "instructions",
	  .kind = STAT_DERIVED, .num = "replay_trap", .den = "retire",
	  .scale = 100 },
	{ .name = "trap_per_ret",
	  .desc = "100 * trap / retire: trap per 100 retired instructions",
	  .kind = STAT_DERIVED, .num = "trap", .den = "retire", .scale = 100 },
	{ .name = "freq",
	  .desc = "retire averaged over each basic block: execution "
		  "frequency",
	  .kind = STAT_DERIVED, .num = "retire", .scale = 1, .average = 1 },
};

const size_t stat_table_len = sizeof(stat_table) / sizeof(stat_table[0]);
