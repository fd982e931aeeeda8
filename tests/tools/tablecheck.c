/* SPDX-License-Identifier: MIT */
/*
 * tablecheck: validate the statistics table (descriptions present, names
 * and aliases unique, substitutes, native events or notes, derived inputs)
 * and check that every name the originals and other parts of the suite
 * rely on is there with the right kind.  Prints the first problem and
 * exits 1, or prints the number of entries and exits 0.
 *
 *   tablecheck           validate
 *   tablecheck --names   print every canonical name, "pm_" before a
 *                        profile-me name a counter also has, one a line
 */
#include <stdio.h>
#include <string.h>

#include "common/stats/stats.h"

/* The originals' profile-me list (pfm(7), 43 names). */
static const char *const profileme43[] = {
	"abort", "abort_per_ret", "arith_trap", "cbr_taken",
	"cbr_taken_per_ret", "cycles", "cycles_per_ret", "delay",
	"delay_per_ret", "dstream_fault", "dtb_miss", "dtb_miss_per_ret",
	"dtb_miss3", "dtb_miss4", "early_kill", "early_kill_per_ret",
	"fp_disabled", "freq", "icache_miss", "icache_miss_per_ret",
	"icache_parity", "inflt_bcache_miss", "inflt_replays",
	"inflt_retires", "interrupt", "istream_accvio", "itb_miss",
	"ldst_align_trap", "ldst_order_trap", "map_stall",
	"map_stall_per_ret", "mchk_trap", "mispredict", "mispredict_per_ret",
	"mt_fpcr_trap", "opcdec_trap", "replay_trap", "replay_trap_per_ret",
	"reset", "retire", "trap", "trap_per_ret", "valid",
};

/* Names with a fixed kind that the rest of the suite relies on. */
static const struct {
	const char *name;
	enum stat_kind kind;
	const char *canonical;
} required[] = {
	{ "cycles", STAT_HW, "cycles" },
	{ "retinst", STAT_HW, "retinst" },
	{ "instructions", STAT_HW, "retinst" },
	{ "issues", STAT_HW, "issues" },
	{ "loads", STAT_HW, "loads" },
	{ "stores", STAT_HW, "stores" },
	{ "branches", STAT_HW, "branches" },
	{ "condbranches", STAT_HW, "condbranches" },
	{ "indbranches", STAT_HW, "indbranches" },
	{ "mispredict", STAT_HW, "mispredict" },
	{ "branch-misses", STAT_HW, "mispredict" },
	{ "condmispredict", STAT_HW, "condmispredict" },
	{ "indmispredict", STAT_HW, "indmispredict" },
	{ "icachemisses", STAT_HW, "icachemisses" },
	{ "dcachemisses", STAT_HW, "dcachemisses" },
	{ "bcachemisses", STAT_HW, "bcachemisses" },
	{ "cache-misses", STAT_HW, "bcachemisses" },
	{ "bcache", STAT_HW, "bcache" },
	{ "scache", STAT_HW, "scache" },
	{ "scachemisses", STAT_HW, "scachemisses" },
	{ "dtbmisses", STAT_HW, "dtbmisses" },
	{ "itbmisses", STAT_HW, "itbmisses" },
	{ "unaligntraps", STAT_HW, "unaligntraps" },
	{ "replay_trap", STAT_HW, "replay_trap" },
	{ "longstalls", STAT_HW, "longstalls" },
	{ "pipedry", STAT_HW, "pipedry" },
	{ "pipefrozen", STAT_HW, "pipefrozen" },
	{ "L1-dcache-load-misses", STAT_HW, "dcachemisses" },
	{ "L1-icache-load-misses", STAT_HW, "icachemisses" },
	{ "dTLB-load-misses", STAT_HW, "dtbmisses" },
	{ "iTLB-load-misses", STAT_HW, "itbmisses" },
	{ "cpu-clock", STAT_SW, "cpu-clock" },
	{ "task-clock", STAT_SW, "task-clock" },
	{ "page-faults", STAT_SW, "page-faults" },
	{ "context-switches", STAT_SW, "context-switches" },
	{ "cpu-migrations", STAT_SW, "cpu-migrations" },
	{ "retire", STAT_PROFILEME, "retire" },
	{ "retired", STAT_PROFILEME, "retire" },
	{ "pm_cycles", STAT_PROFILEME, "cycles" },
	{ "pm_mispredict", STAT_PROFILEME, "mispredict" },
	{ "pm_replay_trap", STAT_PROFILEME, "replay_trap" },
	{ "freq", STAT_DERIVED, "freq" },
};

int main(int argc, char **argv)
{
	char why[256];
	size_t i;
	int n, bad = 0;

	if (argc > 1 && !strcmp(argv[1], "--names")) {
		for (i = 0; i < stat_table_len; i++) {
			const struct stat_def *d = &stat_table[i];

			printf("%s%s\n", d->kind == STAT_PROFILEME &&
			       stat_lookup(d->name) != d ? "pm_" : "",
			       d->name);
		}
		return 0;
	}
	n = stat_table_validate(why, sizeof(why));
	if (n) {
		fprintf(stderr, "tablecheck: %d problem(s); first: %s\n", n,
			why);
		return 1;
	}
	for (i = 0; i < sizeof(profileme43) / sizeof(*profileme43); i++) {
		const char *name = profileme43[i];
		size_t l = strlen(name);
		int derived = !strcmp(name, "freq") ||
			      (l > 8 && !strcmp(name + l - 8, "_per_ret"));
		char pm[64];
		const struct stat_def *d;

		snprintf(pm, sizeof(pm), "pm_%s", name);
		d = stat_lookup(derived ? name : pm);
		if (!d || d->kind != (derived ? STAT_DERIVED :
				      STAT_PROFILEME)) {
			fprintf(stderr, "tablecheck: profile-me '%s' is "
				"missing or of the wrong kind\n", name);
			bad++;
		}
	}
	for (i = 0; i < sizeof(required) / sizeof(*required); i++) {
		const struct stat_def *d = stat_lookup(required[i].name);

		if (!d || d->kind != required[i].kind ||
		    strcmp(d->name, required[i].canonical)) {
			fprintf(stderr, "tablecheck: '%s' should be %s '%s', "
				"is %s '%s'\n", required[i].name,
				stat_kind_text(required[i].kind),
				required[i].canonical,
				d ? stat_kind_text(d->kind) : "not",
				d ? d->name : "there");
			bad++;
		}
	}
	if (bad)
		return 1;
	printf("%zu statistics\n", stat_table_len);
	return 0;
}
