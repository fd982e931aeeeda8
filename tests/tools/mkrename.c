/* SPDX-License-Identifier: MIT */
/*
 * mkrename - drive the collector through a thread's rename whose record
 * is drained after samples taken after it (the record in one CPU's
 * ring, read before the kernel wrote it; the samples in another's), and
 * write the profile it builds.
 *
 *   mkrename OUT PROG
 *
 * Statistic 0: cpu-clock (user rows).  Process 100 ("prog") maps PROG's
 * first page at 0x400000; its threads 101 and 102 start as "prog" (at
 * 0) and name themselves "worker" at 4 ms, both records delivered after
 * the samples below up to 6 ms:
 *   101: samples at 5 and 6 ms, the rename, samples at 8 and 9 ms: all
 *        four taken after the rename (four "worker" samples, no "prog");
 *   102: a sample at 2 ms (before the rename), at 5 ms, the rename, at
 *        8 ms: the 5 ms one cannot be told from the 2 ms one once
 *        counted, and stays "prog" (two "prog", one "worker").
 * Exit status 0, or 1 with a message.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/collect/collect.h"
#include "common/profile/profile.h"
#include "common/stats/stats.h"
#include "common/util/error.h"
#include "mkprofile.h"

#define MS 1000000ull
#define PID 100

static void sample(struct collector *c, uint32_t tid, uint64_t at)
{
	struct collect_sample s = {
		.pid = PID, .tid = tid, .time = at, .period = 1,
		.cpumode = PERF_RECORD_MISC_USER, .ip = 0x400100,
	};

	collector_sample(c, &s);
}

int main(int argc, char **argv)
{
	struct prof_stat st = {
		.name = "cpu-clock", .requested = "cpu-clock",
		.type = PERF_TYPE_SOFTWARE, .modes = STAT_MODE_USER,
		.flags = PROF_STAT_TIME,
	};
	struct collector *c;
	struct profile *tpl;

	if (argc != 3) {
		fprintf(stderr, "usage: mkrename OUT PROG\n");
		return 1;
	}
	c = collector_new(COLLECT_SPLIT_NONE, 1);
	tpl = profile_new();
	if (!c || !tpl || profile_add_stat(tpl, &st) < 0) {
		fprintf(stderr, "mkrename: out of memory\n");
		return 1;
	}
	collector_set_modes(c, 0, STAT_MODE_USER);
	collector_comm(c, PID, PID, "prog", 1, 0);
	collector_mmap(c, PID, 0x400000, 0x1000, 0, argv[2], NULL, 0, 0);
	collector_fork(c, PID, PID, 101, PID, 0);
	collector_fork(c, PID, PID, 102, PID, 0);
	sample(c, 102, 2 * MS);
	sample(c, 101, 5 * MS);
	sample(c, 102, 5 * MS);
	sample(c, 101, 6 * MS);
	collector_comm(c, PID, 101, "worker", 0, 4 * MS);
	collector_comm(c, PID, 102, "worker", 0, 4 * MS);
	sample(c, 101, 8 * MS);
	sample(c, 102, 8 * MS);
	sample(c, 101, 9 * MS);
	return mk_write_one("mkrename", c, tpl, argv[1]);
}
