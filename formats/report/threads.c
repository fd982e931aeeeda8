/* SPDX-License-Identifier: MIT */
/*
 * Where each thread's time went (report.h, struct report_thread): for a
 * profile with a time statistic (offcpu, wall), per thread the time it
 * ran, slept (blocked), waited uninterruptibly (blocked-io) and waited
 * for a CPU (preempted), from the task counts' states.  The time it ran
 * is wall's, or, with offcpu alone, a clock statistic's sampled in the
 * same run (cpu-clock, task-clock); without either it is unknown.
 */
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "report_int.h"

/* The time statistic the table is of (wall first), or -1. */
static long time_stat(const struct profile *p)
{
	long first = -1;
	size_t s;

	for (s = 0; s < p->nstats; s++) {
		if (!(p->stats[s].flags & PROF_STAT_TIME))
			continue;
		if (p->stats[s].freq || p->stats[s].period)
			return (long)s;		/* wall: it has running */
		if (first < 0)
			first = (long)s;
	}
	return first;
}

/* A statistic whose weight is the time threads ran, or -1. */
static long clock_stat(const struct profile *p)
{
	size_t s;

	for (s = 0; s < p->nstats; s++)
		if (p->stats[s].type == PERF_TYPE_SOFTWARE &&
		    (p->stats[s].config == PERF_COUNT_SW_CPU_CLOCK ||
		     p->stats[s].config == PERF_COUNT_SW_TASK_CLOCK) &&
		    !(p->stats[s].flags & (PROF_STAT_TIME |
					   PROF_STAT_COUNTING)))
			return (long)s;
	return -1;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct report_thread *x = a, *y = b;
	uint64_t tx = 0, ty = 0;
	int i;

	for (i = 0; i < PROF_NSTATES; i++) {
		tx += x->ns[i];
		ty += y->ns[i];
	}
	if (tx != ty)
		return tx > ty ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

int report_threads_build(struct report *r)
{
	const struct profile *p = r->prof;
	long ts = time_stat(p), cs;
	uint32_t *slot = NULL;
	size_t i, alloc = 0;

	if (ts < 0 || !p->ntasks)
		return 0;
	cs = p->stats[ts].freq || p->stats[ts].period ? ts : clock_stat(p);
	r->threads_stat = (size_t)ts;
	r->threads_running = cs >= 0;
	slot = malloc(p->ntasks * sizeof(*slot));
	if (!slot)
		return -PROF_ENOMEM;
	/* One row per thread, whatever names it had. */
	for (i = 0; i < p->ntasks; i++) {
		size_t j;

		for (j = 0; j < r->nthreads; j++)
			if (r->threads[j].tid == p->tasks[i].tid &&
			    r->threads[j].pid == p->tasks[i].pid)
				break;
		if (j == r->nthreads) {
			if (ALLOC_GROW(r->threads, r->nthreads + 1, alloc)) {
				free(slot);
				return -PROF_ENOMEM;
			}
			memset(&r->threads[j], 0, sizeof(r->threads[j]));
			r->threads[j].pid = p->tasks[i].pid;
			r->threads[j].tid = p->tasks[i].tid;
			r->nthreads++;
		}
		/* Tasks are in the order they began: a thread's last
		 * name is its name now (after an exec). */
		r->threads[j].comm = p->tasks[i].comm;
		slot[i] = (uint32_t)j;
	}
	for (i = 0; i < p->ntask_counts; i++) {
		const struct prof_task_count *tc = &p->task_counts[i];
		struct report_thread *t = &r->threads[slot[tc->task]];

		if (tc->stat == (uint32_t)ts && tc->state != PROF_STATE_RUNNING)
			t->ns[tc->state] += tc->weight;
		else if (cs >= 0 && tc->stat == (uint32_t)cs &&
			 tc->state == PROF_STATE_RUNNING)
			t->ns[PROF_STATE_RUNNING] += tc->weight;
	}
	free(slot);
	/* The idle task is not a thread that waits. */
	for (i = 0; i < r->nthreads; i++)
		if (!r->threads[i].tid) {
			r->threads[i] = r->threads[--r->nthreads];
			break;
		}
	if (r->nthreads > 1)
		qsort(r->threads, r->nthreads, sizeof(*r->threads),
		      cmp_thread);
	return 0;
}
