/* SPDX-License-Identifier: MIT */
/*
 * mkcount - write a counting profile with given totals, for tests of
 * what no machine here can produce: hardware counters, multiplexing.
 *
 *   mkcount FILE DURATION_NS STAT...
 *
 * STAT is NAME:TYPE:CONFIG:VALUE:ENABLED:RUNNING (a counted statistic,
 * TYPE as PERF_TYPE_*) or NAME:derived (a ratio asked for by name).
 * Exit status 0, or 1 with a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "common/profile/profile.h"

int main(int argc, char **argv)
{
	struct profile *p;
	int i, err;

	if (argc < 3) {
		fprintf(stderr, "usage: mkcount FILE DURATION_NS STAT...\n");
		return 1;
	}
	p = profile_new();
	if (!p)
		return 1;
	p->tool = strdup("uprofile");
	p->duration_ns = strtoull(argv[2], NULL, 10);
	p->exit_status = 0;
	for (i = 3; i < argc; i++) {
		char name[64];
		unsigned type;
		unsigned long long config, value, en, run;
		struct prof_stat s = { 0 };

		if (sscanf(argv[i], "%63[^:]:%u:%lli:%llu:%llu:%llu", name,
			   &type, &config, &value, &en, &run) == 6) {
			s.type = type;
			s.config = config;
			s.value = value;
			s.time_enabled = en;
			s.time_running = run;
			s.flags = PROF_STAT_COUNTING;
		} else if (sscanf(argv[i], "%63[^:]:derived", name) == 1 &&
			   strstr(argv[i], ":derived")) {
			s.flags = PROF_STAT_COUNTING | PROF_STAT_DERIVED;
		} else {
			fprintf(stderr, "mkcount: bad statistic '%s'\n",
				argv[i]);
			return 1;
		}
		s.name = s.requested = name;
		s.modes = 1;
		if (profile_add_stat(p, &s) < 0)
			return 1;
	}
	err = profile_write(p, argv[1]);
	if (err) {
		fprintf(stderr, "mkcount: %s\n", prof_error(err));
		return 1;
	}
	profile_free(p);
	return 0;
}
