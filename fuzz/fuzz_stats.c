// SPDX-License-Identifier: MIT
/*
 * fuzz_stats: what users type as option values: statistic names with
 * modifiers ("cycles:u", "r01c2", "INST_RETIRED:ANY_P", "pm_retire"),
 * resolved as --dry-run does (no probe: nothing is opened), the lookups
 * beside it (profile-me statistics, families, the sim engine's names,
 * name lists), the number parsers every numeric option goes through
 * (common/util/parse.h), and --time's ranges (profile_time_parse(), for
 * runs of a few lengths: what it accepts is in order, apart, not empty,
 * and starts inside the run, else abort()).
 *
 * The input is split at newlines; each line is one value.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/profile/profile.h"
#include "common/util/parse.h"
#include "common/stats/pmstat.h"
#include "common/stats/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const unsigned modes[] = {
	STAT_MODE_USER, STAT_MODE_KERNEL, STAT_MODE_USER | STAT_MODE_KERNEL,
	STAT_MODE_USER | STAT_MODE_KERNEL | STAT_MODE_HV,
};

/* --time RANGE for a run of run_ns. */
static void time_ranges(const char *s, uint64_t run_ns)
{
	struct prof_range *r;
	size_t n, j;

	if (profile_time_parse(s, run_ns, &r, &n))
		return;
	if (!n)
		abort();
	for (j = 0; j < n; j++)
		if (r[j].from >= r[j].to || r[j].from >= run_ns ||
		    (j && r[j].from < r[j - 1].to))
			abort();
	free(r);
}

static void one(const char *s, size_t i)
{
	static const uint64_t runs[] = {
		1, 1000, 10000000, 2500000000ull, UINT64_MAX / 2,
	};
	struct stat_choice c;
	char buf[256];
	uint64_t u;
	size_t sim;
	long l;
	double d;

	if (!stat_resolve(s, modes[i % 4], NULL, NULL, &c))
		stat_choice_describe(&c, buf, sizeof(buf));
	stat_lookup(s);
	stat_name_in_list(s, strlen(s), "cycles,retinst,pm_retire");
	stat_name_in_list(s, strcspn(s, ":"), s);
	stat_pm_lookup(s);
	stat_pm_family_lookup(s);
	stat_sim_lookup(s);
	stat_sim_resolve(s, &sim);
	parse_u64(s, 1, UINT64_MAX, &u);
	parse_int(s, -1, 1L << 40, &l);
	parse_double(s, 0, 1e9, &d);
	time_ranges(s, runs[i % 5]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *line, *save = NULL;
	size_t i = 0;

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = strtok_r(text, "\n", &save); line && i < 16;
	     line = strtok_r(NULL, "\n", &save), i++)
		one(line, i);
	free(text);
	return 0;
}
