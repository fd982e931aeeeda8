/* SPDX-License-Identifier: MIT */
/*
 * Native encodings the suite carries itself (contract in stats.h), for
 * CPUs whose events libpfm4 cannot encode here.  Facts only: event names
 * and numbers as the vendors document them.
 */
#include <stddef.h>

#include "stats.h"

/*
 * AMD family 1Ah (Zen 5).  Debian 12's libpfm4 (4.13) predates it.  The
 * core PMU's raw config is the event select's low byte in bits 0-7, its
 * high nibble in bits 32-35, and the unit mask in bits 8-15 (the kernel's
 * amd core PMU format: event:0-7,32-35 umask:8-15).
 */
#define AMD_RAW(event, umask) \
	((uint64_t)((event) & 0xff) | ((uint64_t)(umask) << 8) | \
	 ((uint64_t)(((event) >> 8) & 0xf) << 32))

static const struct stat_own_event amd_zen5[] = {
	{ "cycles", "ls_not_halted_cyc", AMD_RAW(0x76, 0) },
	{ "retinst", "ex_ret_instr", AMD_RAW(0xc0, 0) },
	{ "issues", "de_src_op_disp.all", AMD_RAW(0xaa, 0x07) },
	{ "loads", "ls_dispatch.ld_dispatch", AMD_RAW(0x29, 0x01) },
	{ "stores", "ls_dispatch.store_dispatch", AMD_RAW(0x29, 0x02) },
	{ "branches", "ex_ret_brn", AMD_RAW(0xc2, 0) },
	{ "condbranches", "ex_ret_cond", AMD_RAW(0xd1, 0) },
	{ "indbranches", "ex_ret_ind_brch_instr", AMD_RAW(0xcc, 0) },
	{ "mispredict", "ex_ret_brn_misp", AMD_RAW(0xc3, 0) },
	{ "condmispredict", "ex_ret_msprd_brnch_instr_dir_msmtch",
	  AMD_RAW(0x1c7, 0) },
	{ "indmispredict", "ex_ret_brn_ind_misp", AMD_RAW(0xca, 0) },
	{ "icachemisses", "ic_tag_hit_miss.instruction_cache_miss",
	  AMD_RAW(0x18e, 0x18) },
	{ "scache", "l2_request_g1.all_no_prefetch", AMD_RAW(0x60, 0xf1) },
	{ "scachemisses", "l2_cache_req_stat.ic_dc_miss_in_l2",
	  AMD_RAW(0x64, 0x09) },
	{ "dtbmisses", "ls_l1_d_tlb_miss.all_l2_miss", AMD_RAW(0x45, 0xf0) },
	{ "itbmisses", "bp_l1_tlb_miss_l2_tlb_miss.all", AMD_RAW(0x85, 0x0f) },
	{ "unaligntraps", "ls_misal_loads.ma64+ma4k", AMD_RAW(0x47, 0x03) },
	{ "replay_trap", "bp_redirects.resync", AMD_RAW(0x9f, 0x01) },
	{ "longstalls", "ex_no_retire.load_not_complete",
	  AMD_RAW(0xd6, 0xa2) },
	{ "pipedry", "de_no_dispatch_per_slot.no_ops_from_frontend",
	  AMD_RAW(0x1a0, 0x01) },
	{ "pipefrozen", "de_no_dispatch_per_slot.backend_stalls",
	  AMD_RAW(0x1a0, 0x1e) },
};

/*
 * Arm PMUv3 common events: the architecture numbers them alike on every
 * core that implements them (the raw config is the event number).  Used
 * where libpfm4 has no tables for the core (Debian's x86 build has none
 * at all, so this is also what pinned Arm tests see).  Whether a core
 * implements an event shows in its PMCEID registers, which the kernel
 * checks when the event is opened.
 */
static const struct stat_own_event arm_pmuv3[] = {
	{ "cycles", "CPU_CYCLES", 0x11 },
	{ "retinst", "INST_RETIRED", 0x08 },
	{ "issues", "INST_SPEC", 0x1b },
	{ "loads", "LD_RETIRED", 0x06 },
	{ "stores", "ST_RETIRED", 0x07 },
	{ "branches", "BR_RETIRED", 0x21 },
	{ "indbranches", "BR_INDIRECT_SPEC", 0x7a },
	{ "mispredict", "BR_MIS_PRED_RETIRED", 0x22 },
	{ "icachemisses", "L1I_CACHE_REFILL", 0x01 },
	{ "dcachemisses", "L1D_CACHE_REFILL", 0x03 },
	{ "bcache", "LL_CACHE_RD", 0x36 },
	{ "bcachemisses", "LL_CACHE_MISS_RD", 0x37 },
	{ "scache", "L2D_CACHE", 0x16 },
	{ "scachemisses", "L2D_CACHE_REFILL", 0x17 },
	{ "dtbmisses", "DTLB_WALK", 0x34 },
	{ "itbmisses", "ITLB_WALK", 0x35 },
	{ "unaligntraps", "UNALIGNED_LDST_RETIRED", 0x0f },
	{ "longstalls", "STALL_BACKEND_MEM", 0x4005 },
	{ "pipedry", "STALL_FRONTEND", 0x23 },
	{ "pipefrozen", "STALL_BACKEND", 0x24 },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

const struct stat_own_model stat_own_models[] = {
	{
		.name = "amdzen5",
		.desc = "AMD Zen 5 (family 1Ah)",
		.source = "AMD's Processor Programming Reference for family "
			  "1Ah, as listed in the Linux kernel's perf events "
			  "(tools/perf/pmu-events/arch/x86/amdzen5)",
		.family = STAT_FAM_AMD,
		.cpu_family = 0x1a,
		.events = amd_zen5,
		.nevents = N(amd_zen5),
	},
	{
		.name = "armv8_pmuv3",
		.desc = "Arm PMUv3 common events (any Armv8 or Armv9 core)",
		.source = "the Arm Architecture Reference Manual, PMU common "
			  "architectural and microarchitectural event numbers",
		.family = STAT_FAM_ARM,
		.cpu_family = 0,
		.events = arm_pmuv3,
		.nevents = N(arm_pmuv3),
	},
};

const size_t stat_own_models_len = N(stat_own_models);
