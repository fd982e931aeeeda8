/* SPDX-License-Identifier: MIT */
/*
 * The sim engine: exact per-instruction counts from valgrind (callgrind,
 * with cache or branch simulation when a statistic needs it) instead of
 * sampled hardware events.
 *
 * sim_start() runs the program under valgrind, with every descendant
 * (--trace-children), in a private temporary directory that sim_free()
 * removes.  The program keeps the caller's stdin, stdout and stderr;
 * valgrind's own messages go to log files there.  The caller waits for
 * the child (struct launch, so signals are handled as with the perf
 * engine), then sim_collect() reads callgrind's per-instruction output and
 * feeds the collector exactly what the perf engine would: one synthesized
 * mapping per executable segment of each object (at valgrind's load
 * address, so the collector keys it as (object, file offset)) and one
 * sample per (instruction, statistic) whose period is the exact count.
 * The caller marks those statistics exact (collector_set_exact), so
 * samples == weight == events.
 *
 * Coverage and limits (see README.md):
 * - every process image of the tree has its own callgrind files; a fork
 *   and an exec are preceded by a dump (--dump-before the libc functions
 *   that do them), so a forked child starts from zero instead of
 *   repeating its parent's counts, and what an image ran until its exec
 *   is written before valgrind starts afresh;
 * - where a program forks or execs without those functions (raw system
 *   calls, a stripped static program), sim_result.gaps says which
 *   process's counts are missing or repeated;
 * - user mode only; valgrind's own objects (vgpreload_*.so, the tool)
 *   never become rows: their events are counted as skipped.
 *
 * The statistics it provides are the statistics table's rows with a sim
 * part (stat_sim_def, stat_sim_resolve), each a sum of callgrind events;
 * they are passed by their sim index.
 *
 * Functions return 0 or a negative PROF_E* code with a one-line detail
 * (prof_error).  sim_free(NULL) is a no-op.
 */
#ifndef COMMON_SIM_H
#define COMMON_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "launch.h"

struct collector;

/* prof_stat.type of a simulated statistic; config is its sim index
 * (struct stat_sim in common/stats/stats.h). */
#define SIM_STAT_TYPE 0xffff0000u

/* valgrind's path on PATH (malloc'd), or -PROF_ENOENT with the message
 * the user sees. */
int sim_find_valgrind(char **path);

struct sim_run;

/* Print the valgrind command sim_start() would run, on one line
 * (--dry-run); TMPDIR stands for the private directory. */
void sim_describe(FILE *f, const char *valgrind, const char *path,
		  char *const argv[], const size_t *idx, size_t nidx);

/* What valgrind simulates for statistics idx[0..n), for -v. */
const char *sim_what(const size_t *idx, size_t n);

/*
 * Start program path with argv under valgrind (found with
 * sim_find_valgrind).  On success *out owns the run and out->child is
 * started but held: launch_release() lets it exec, as with the perf
 * engine.  idx[0..nidx) are the statistics (stat_sim_def indices) to be collected:
 * valgrind simulates caches and branches only when one of them needs it.
 */
int sim_start(struct sim_run **out, const char *valgrind, const char *path,
	      char *const argv[], const size_t *idx, size_t nidx);
struct launch *sim_child(struct sim_run *s);
/*
 * While the program runs: valgrind's files are renamed as they are
 * written, so that an image that replaces another by exec does not
 * overwrite them.  sim_watch_fd() is readable when there is work for
 * sim_service(), which never blocks; sim_collect() does the rest.
 */
int sim_watch_fd(const struct sim_run *s);
void sim_service(struct sim_run *s);

/* What sim_collect() saw. */
struct sim_result {
	size_t processes;	/* callgrind files read (one per process part) */
	uint64_t skipped;	/* events in valgrind's own objects */
	/* What is missing or counted twice, one line each (a fork or exec
	 * valgrind could not dump at, a dump overwritten): the run says so. */
	char **gaps;
	size_t ngaps, alloc_gaps;
};

/* Free res's lines (sim_collect() fills res, even when it fails). */
void sim_result_release(struct sim_result *res);

/*
 * After the child exited: feed the collector.  stats[i] (sim indices,
 * stat_sim_def) goes to collector statistic first_stat + i.  -PROF_EIO when
 * valgrind produced nothing (it failed to start): the detail quotes the
 * end of its log.
 */
int sim_collect(struct sim_run *s, struct collector *c, const size_t *stats,
		size_t nstats, uint32_t first_stat, struct sim_result *res);

/* Remove the temporary directory and free. */
void sim_free(struct sim_run *s);

#endif
