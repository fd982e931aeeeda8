/* SPDX-License-Identifier: MIT */
/*
 * The time stream by thread and statistic (report.h, struct
 * report_streams), for the exports that lay a profile out over time
 * (speedscope.c, firefox.c), and each event's frames as the samples
 * model symbolized them.
 *
 * - A thread is a (pid, tid): the task counts of every task with that
 *   pair, whatever command names it had (an exec, prctl), are one
 *   thread; the idle task (pid 0) is a thread per CPU.  Threads are in
 *   (pid, tid, cpu) order.
 * - A stream is one thread's events of one statistic (one with counts of
 *   its own), in the profile's order, which is time order; streams are
 *   in thread order, then statistic order.
 * - An event's frames are its stack's sample's, or, for an event taken
 *   without a stack, its task count's address's location alone: the
 *   lines (report_sline) of each location, the out-of-line function
 *   first, then what was inlined into it; root first.
 * - A function's line (report_func_lines()): the lowest line of it the
 *   model holds in its own file, for an export whose frames are
 *   functions and say where each one is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "report_int.h"

#define NONE UINT32_MAX

/* A task count, keyed by its thread. */
struct tkey {
	uint32_t pid, tid, cpu;		/* cpu: NONE but for pid 0 */
	uint32_t task, tcount;
};

static int cmp_tkey(const void *a, const void *b)
{
	const struct tkey *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (x->task > y->task) - (x->task < y->task);
}

/* The command names of a thread's tasks k[0..n), each once, in their
 * order, ", " between ("sh, prog"); "?" for one unknown. */
static char *thread_comms(const struct profile *p, const struct tkey *k,
			  size_t n)
{
	char *name = NULL, *next;
	size_t i, j;

	for (i = 0; i < n; i++) {
		const char *comm = p->tasks[k[i].task].comm;

		if (i && k[i].task == k[i - 1].task)
			continue;
		for (j = 0; j < i; j++)
			if (!strcmp(p->tasks[k[j].task].comm, comm))
				break;
		if (j < i)
			continue;
		if (asprintf(&next, "%s%s%s", name ? name : "",
			     name ? ", " : "", *comm ? comm : "?") < 0) {
			free(name);
			return NULL;
		}
		free(name);
		name = next;
	}
	return name;
}

/* The threads: st->threads and st->tc_thread. */
static int find_threads(const struct profile *p, struct report_streams *st)
{
	struct tkey *k = malloc((p->ntask_counts + 1) * sizeof(*k));
	size_t i, j, n = p->ntask_counts;

	st->tc_thread = malloc((n + 1) * sizeof(*st->tc_thread));
	st->threads = calloc(n + 1, sizeof(*st->threads));
	if (!k || !st->tc_thread || !st->threads) {
		free(k);
		return -PROF_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const struct prof_task_count *tc = &p->task_counts[i];
		const struct prof_task *t = &p->tasks[tc->task];

		k[i] = (struct tkey){ .pid = t->pid, .tid = t->tid,
			.cpu = t->pid ? NONE : tc->cpu, .task = tc->task,
			.tcount = (uint32_t)i };
	}
	qsort(k, n, sizeof(*k), cmp_tkey);
	for (i = 0; i < n; i = j) {
		struct report_sthread *t = &st->threads[st->nthreads];

		for (j = i; j < n && k[j].pid == k[i].pid &&
		     k[j].tid == k[i].tid && k[j].cpu == k[i].cpu; j++)
			st->tc_thread[k[j].tcount] = (uint32_t)st->nthreads;
		t->pid = k[i].pid;
		t->tid = k[i].tid;
		t->cpu = k[i].cpu;
		t->comms = thread_comms(p, &k[i], j - i);
		st->nthreads++;
		if (!t->comms) {
			free(k);
			return -PROF_ENOMEM;
		}
	}
	free(k);
	return 0;
}

/* Whether the events of task count tc are in a stream. */
static int counted(const struct profile *p, uint32_t tc)
{
	uint32_t stat = p->task_counts[tc].stat;

	return stat < p->nstats && report_stat_counted(&p->stats[stat]);
}

/* The streams, and their events in order. */
static int find_streams(const struct profile *p, struct report_streams *st)
{
	size_t nstats = p->nstats, nkeys = st->nthreads * nstats, i, at = 0;
	size_t *count = calloc(nkeys + 1, sizeof(*count));
	uint32_t *stream_of = malloc((nkeys + 1) * sizeof(*stream_of));

	st->order = malloc((p->nevents + 1) * sizeof(*st->order));
	st->streams = calloc(nkeys + 1, sizeof(*st->streams));
	if (!count || !stream_of || !st->order || !st->streams) {
		free(count);
		free(stream_of);
		return -PROF_ENOMEM;
	}
	for (i = 0; i < p->nevents; i++) {
		uint32_t tcount = p->events[i].tcount;
		const struct prof_task_count *tc = &p->task_counts[tcount];

		if (!counted(p, tcount))
			continue;
		count[st->tc_thread[tcount] * nstats + tc->stat]++;
		st->has_events[tc->stat] = 1;
		if (tc->state != PROF_STATE_RUNNING)
			st->has_intervals[tc->stat] = 1;
	}
	for (i = 0; i < nkeys; i++) {
		struct report_stream *sp = &st->streams[st->nstreams];

		stream_of[i] = NONE;
		if (!count[i])
			continue;
		sp->thread = (uint32_t)(i / nstats);
		sp->stat = (uint32_t)(i % nstats);
		sp->first = at;
		at += count[i];
		stream_of[i] = (uint32_t)st->nstreams++;
	}
	for (i = 0; i < p->nevents; i++) {
		const struct prof_event *e = &p->events[i];
		struct report_stream *sp;

		if (!counted(p, e->tcount))
			continue;
		sp = &st->streams[stream_of[st->tc_thread[e->tcount] * nstats +
					    p->task_counts[e->tcount].stat]];
		st->order[sp->first + sp->n++] = i;
		sp->weight += e->weight;
	}
	free(count);
	free(stream_of);
	return 0;
}

int report_streams_build(const struct profile *p,
			 struct report_streams **out)
{
	struct report_streams *st = calloc(1, sizeof(*st));
	int err;

	*out = NULL;
	if (!st)
		return -PROF_ENOMEM;
	st->has_events = calloc(p->nstats + 1, 1);
	st->has_intervals = calloc(p->nstats + 1, 1);
	err = !st->has_events || !st->has_intervals ? -PROF_ENOMEM : 0;
	if (!err && p->timeline == PROF_TIMELINE_KEPT) {
		err = find_threads(p, st);
		if (!err)
			err = find_streams(p, st);
	}
	if (err) {
		report_streams_free(st);
		return err;
	}
	*out = st;
	return 0;
}

void report_streams_free(struct report_streams *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; st->threads && i < st->nthreads; i++)
		free(st->threads[i].comms);
	free(st->threads);
	free(st->tc_thread);
	free(st->streams);
	free(st->order);
	free(st->has_events);
	free(st->has_intervals);
	free(st);
}

static int push_line(uint32_t line, uint32_t **v, size_t *n, size_t *alloc)
{
	if (ALLOC_GROW(*v, *n + 1, *alloc))
		return -PROF_ENOMEM;
	(*v)[(*n)++] = line;
	return 0;
}

/* A location's lines, outermost (the out-of-line function) first. */
static int push_loc(const struct report_samples *s, uint32_t loc,
		    uint32_t **v, size_t *n, size_t *alloc)
{
	const struct report_sloc *l = &s->locs[loc];
	uint32_t m;

	for (m = l->nlines; m-- > 0;)
		if (push_line(l->first_line + m, v, n, alloc))
			return -PROF_ENOMEM;
	return 0;
}

int report_sample_lines(const struct report_samples *s, uint32_t x,
			uint32_t **v, size_t *n, size_t *alloc)
{
	const struct report_ssample *sm = &s->samples[x];
	uint32_t j;

	/* its locations are leaf first */
	for (j = sm->nlocs; j-- > 0;)
		if (push_loc(s, s->sample_locs[sm->first + j], v, n, alloc))
			return -PROF_ENOMEM;
	return 0;
}

int report_event_lines(const struct report_samples *s,
		       const struct profile *p, const struct prof_event *e,
		       uint32_t **v, size_t *n, size_t *alloc)
{
	const struct prof_task_count *tc = &p->task_counts[e->tcount];
	long loc;

	if (e->stack && e->stack - 1 < s->nstacks &&
	    s->stack_sample[e->stack - 1] != NONE)
		return report_sample_lines(s, s->stack_sample[e->stack - 1],
					   v, n, alloc);
	loc = report_samples_loc(s, tc->obj, tc->offset);
	if (loc < 0)
		return prof_fail(PROF_EFORMAT, "an event of the time stream "
				 "is at an address the profile has no count "
				 "of");
	return push_loc(s, (uint32_t)loc, v, n, alloc);
}

void report_func_lines(const struct report_samples *s, unsigned *line)
{
	size_t i;

	for (i = 0; i < s->nfuncs; i++)
		line[i] = 0;
	for (i = 0; i < s->nlines; i++) {
		const struct report_sline *l = &s->lines[i];
		const char *file = s->funcs[l->func].file;

		if (l->line && l->file && file && !strcmp(l->file, file) &&
		    (!line[l->func] || l->line < line[l->func]))
			line[l->func] = l->line;
	}
}

char *report_command_line(const struct profile *p)
{
	size_t len = 1, i;
	char *s;

	for (i = 0; i < (size_t)p->argc; i++)
		len += strlen(p->argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	*s = '\0';
	for (i = 0; i < (size_t)p->argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, p->argv[i]);
	}
	return s;
}
