// SPDX-License-Identifier: MIT
/*
 * fuzz_stats: what users type as option values: statistic names with
 * modifiers ("cycles:u", "r01c2", "INST_RETIRED:ANY_P", "pm_retire"),
 * resolved as --dry-run does (no probe: nothing is opened), the lookups
 * beside it (profile-me statistics, families, the sim engine's names,
 * name lists), and the number parsers every numeric option goes through
 * (common/util/parse.h).
 *
 * The input is split at newlines; each line is one value.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/parse.h"
#include "common/stats/pmstat.h"
#include "common/stats/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const unsigned modes[] = {
	STAT_MODE_USER, STAT_MODE_KERNEL, STAT_MODE_USER | STAT_MODE_KERNEL,
	STAT_MODE_USER | STAT_MODE_KERNEL | STAT_MODE_HV,
};

static void one(const char *s, size_t i)
{
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
