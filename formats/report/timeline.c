/* SPDX-License-Identifier: MIT */
/*
 * -timeline: the profile's time stream laid out per thread (or process,
 * command name, CPU) and interval, with each interval's hottest
 * procedure and the phases they make (report.h: struct
 * report_timeline).  What each task count stands for (its timeline row,
 * its procedure, whether -only/-exclude keep it) is looked up once per
 * task count; an event then costs a few array reads, and an off-CPU
 * interval one step per interval it overlaps.  Procedures are the rows
 * of the procedures view (report_build found each task count's), so no
 * event is symbolized.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "report_int.h"

#define NONE UINT32_MAX

/* One procedure's weight in one interval. */
struct cellproc {
	size_t k;			/* interval */
	size_t proc;			/* report row */
	uint64_t weight;
};

struct tlbuild {
	struct report *r;
	struct report_timeline *tl;
	uint64_t span;			/* tl->end - tl->start */
	uint64_t q, rem;		/* span / intervals, span % intervals */
	uint32_t *tc_row;		/* per task count: timeline row, or
					 * NONE (another statistic's) */
	size_t *tc_proc;		/* per task count: report row */
	unsigned char *tc_sel;		/* per task count: selected */
	struct report_tl_row *rows;
	size_t nrows, alloc_rows;
	unsigned char *named_main;	/* per row (-by pid): its comm is
					 * the main thread's */
	struct hashmap row_index;
	struct cellproc *cp;
	size_t ncp, alloc_cp;
	struct hashmap cp_index;
	size_t last_cp;			/* the entry added to last, or
					 * SIZE_MAX */
};

int report_timeline_check(const struct report *r, unsigned by)
{
	const struct profile *p = r->prof;

	if ((by & ~(unsigned)REPORT_BY_TASK) || (by & (by - 1)))
		return prof_fail(PROF_EINVAL, "-timeline has one row per "
				 "value of one key: -by comm, pid, tid or "
				 "cpu");
	if (r->opt.nra)
		return prof_fail(PROF_EINVAL, "-timeline shows the samples "
				 "as taken: -ra at report time does not "
				 "apply");
	if (p->timeline != PROF_TIMELINE_KEPT)
		return prof_fail(PROF_EINVAL, "'%s' has no timeline, which "
				 "-timeline needs: %s",
				 r->opt.file ? r->opt.file : "the profile",
				 profile_timeline_missing(p));
	return 0;
}

/* ---- intervals ---- */

/* Where interval k starts: start + ceil(k * span / n), without
 * overflow (k * rem < n * n). */
static uint64_t bound(const struct tlbuild *t, size_t k)
{
	uint64_t n = t->tl->nintervals;

	return t->tl->start + k * t->q + (k * t->rem + n - 1) / n;
}

/* The interval time (start <= time < end) falls in. */
static size_t interval_of(const struct tlbuild *t, uint64_t time)
{
	size_t n = t->tl->nintervals;
	size_t k = (size_t)((double)(time - t->tl->start) * (double)n /
			    (double)t->span);

	if (k >= n)
		k = n - 1;
	while (k + 1 < n && bound(t, k + 1) <= time)
		k++;
	while (k > 0 && bound(t, k) > time)
		k--;
	return k;
}

/* The run, or the window from its first range's start to its last's
 * end, in n intervals (fewer when it is shorter than n ns). */
static int make_intervals(struct tlbuild *t)
{
	const struct profile *p = t->r->prof;
	struct report_timeline *tl = t->tl;
	uint64_t span = profile_time_span(p);
	size_t n = t->r->opt.intervals ? t->r->opt.intervals :
		   REPORT_TIMELINE_INTERVALS, k;

	tl->start = 0;
	tl->end = span;
	if (p->nwindow) {
		tl->start = p->window[0].from;
		if (p->window[p->nwindow - 1].to < span)
			tl->end = p->window[p->nwindow - 1].to;
	}
	if (tl->end <= tl->start)
		tl->end = tl->start + 1;
	t->span = tl->end - tl->start;
	if (n > REPORT_TIMELINE_MAX)
		n = REPORT_TIMELINE_MAX;
	if (n > t->span)
		n = (size_t)t->span;
	tl->nintervals = n;
	t->q = t->span / n;
	t->rem = t->span % n;
	tl->intervals = report_alloc(t->r, n, sizeof(*tl->intervals));
	if (!tl->intervals)
		return -PROF_ENOMEM;
	for (k = 0; k < n; k++) {
		tl->intervals[k].start = bound(t, k);
		tl->intervals[k].end = k + 1 < n ? bound(t, k + 1) : tl->end;
		tl->intervals[k].hottest = SIZE_MAX;
		tl->intervals[k].sel_percent = NAN;
	}
	return 0;
}

/* ---- rows: one per value of the key ---- */

static struct report_by key_of(unsigned by, const struct prof_task *task,
			       uint32_t cpu)
{
	struct report_by v = { .pid = -1, .tid = -1, .cpu = -1 };

	switch (by) {
	case REPORT_BY_PID:
		v.comm = task->comm;
		v.pid = task->pid;
		break;
	case REPORT_BY_COMM:
		v.comm = task->comm;
		break;
	case REPORT_BY_CPU:
		v.cpu = cpu == PROF_CPU_UNKNOWN ? -1 : (long)cpu;
		break;
	default:
		v.comm = task->comm;
		v.pid = task->pid;
		v.tid = task->tid;
		break;
	}
	return v;
}

/* What identifies a row: the comm only when the key is comm (a thread
 * that renames itself stays one row). */
static uint64_t key_hash(unsigned by, const struct report_by *v)
{
	uint64_t h = hash_mix64((uint64_t)v->pid ^ ((uint64_t)v->tid << 32));

	h = hash_mix64(h ^ (uint64_t)v->cpu);
	return by == REPORT_BY_COMM ? hash_str(h, v->comm) : h;
}

static int key_eq(unsigned by, const struct report_by *x,
		  const struct report_by *y)
{
	if (by == REPORT_BY_COMM)
		return !strcmp(x->comm ? x->comm : "", y->comm ? y->comm : "");
	return x->pid == y->pid && x->tid == y->tid && x->cpu == y->cpu;
}

struct row_lookup {
	const struct tlbuild *t;
	const struct report_by *v;
};

static int row_at(const void *ctx, size_t entry)
{
	const struct row_lookup *l = ctx;

	return key_eq(l->t->tl->by, l->v, &l->t->rows[entry].by);
}

/* The timeline row of task count i (a new one when its key is new). */
static int row_of(struct tlbuild *t, const struct prof_task_count *tc,
		  uint32_t *out)
{
	const struct profile *p = t->r->prof;
	struct report_by v = key_of(t->tl->by, &p->tasks[tc->task], tc->cpu);
	struct row_lookup l = { .t = t, .v = &v };
	uint64_t h = key_hash(t->tl->by, &v);
	size_t at = hashmap_find(&t->row_index, h, row_at, &l);

	if (at == SIZE_MAX) {
		if (ALLOC_GROW(t->rows, t->nrows + 1, t->alloc_rows) ||
		    hashmap_add(&t->row_index, h, t->nrows))
			return -PROF_ENOMEM;
		memset(&t->rows[t->nrows], 0, sizeof(*t->rows));
		t->rows[t->nrows].by = v;
		t->rows[t->nrows].first = UINT64_MAX;
		at = t->nrows++;
	}
	*out = (uint32_t)at;
	return 0;
}

/* -by pid: a process is named after its main thread (the task whose
 * tid is the pid), even one that has no samples of its own, when the
 * profile has it. */
static void name_processes(struct tlbuild *t)
{
	const struct profile *p = t->r->prof;
	size_t i;

	if (t->tl->by != REPORT_BY_PID)
		return;
	for (i = 0; i < p->ntasks; i++) {
		const struct prof_task *task = &p->tasks[i];
		struct report_by v = key_of(REPORT_BY_PID, task, 0);
		struct row_lookup l = { .t = t, .v = &v };
		size_t at;

		if (task->tid != task->pid)
			continue;
		at = hashmap_find(&t->row_index, key_hash(REPORT_BY_PID, &v),
				  row_at, &l);
		if (at == SIZE_MAX)
			continue;
		t->rows[at].by.comm = task->comm;
		t->named_main[at] = 1;
	}
}

/* Per task count: its row, procedure and selection; then the rows'
 * per-interval arrays. */
static int map_task_counts(struct tlbuild *t, const size_t *trow)
{
	const struct profile *p = t->r->prof;
	const struct report *r = t->r;
	size_t n = p->ntask_counts ? p->ntask_counts : 1, i;
	size_t ni = t->tl->nintervals, nr;
	uint64_t *nums;
	double *dbls;
	unsigned char *lv;
	int err;

	t->tc_row = malloc(n * sizeof(*t->tc_row));
	t->tc_proc = malloc(n * sizeof(*t->tc_proc));
	t->tc_sel = calloc(n, 1);
	if (!t->tc_row || !t->tc_proc || !t->tc_sel)
		return -PROF_ENOMEM;
	for (i = 0; i < p->ntask_counts; i++) {
		const struct prof_task_count *tc = &p->task_counts[i];
		const struct report_row *row;

		t->tc_row[i] = NONE;
		t->tc_proc[i] = trow[i];
		if (tc->stat != t->tl->stat || tc->task >= p->ntasks)
			continue;
		err = row_of(t, tc, &t->tc_row[i]);
		if (err)
			return err;
		if (trow[i] == SIZE_MAX)
			continue;
		row = &r->rows[trow[i]];
		/* -only and -exclude choose by the out-of-line procedure,
		 * as the rows do. */
		t->tc_sel[i] = !report_name_filtered(&r->opt,
			row->inlined_into ? row->inlined_into : row->procedure);
	}
	nr = t->nrows;
	t->named_main = calloc(nr ? nr : 1, 1);
	if (!t->named_main)
		return -PROF_ENOMEM;
	name_processes(t);
	nums = report_alloc(t->r, nr * ni * 3, sizeof(*nums));
	dbls = report_alloc(t->r, nr * ni, sizeof(*dbls));
	lv = report_alloc(t->r, nr * ni, 1);
	if (!nums || !dbls || !lv)
		return -PROF_ENOMEM;
	for (i = 0; i < nr; i++) {
		struct report_tl_row *row = &t->rows[i];

		row->samples_at = nums + i * ni * 3;
		row->weight_at = row->samples_at + ni;
		row->level = lv + i * ni;
		if (!t->tl->selection)
			continue;
		row->sel_weight_at = row->weight_at + ni;
		row->sel_percent_at = dbls + i * ni;
	}
	return 0;
}

/* ---- the events ---- */

struct cp_lookup {
	const struct cellproc *cp;
	size_t k, proc;
};

static int cp_at(const void *ctx, size_t entry)
{
	const struct cp_lookup *l = ctx;

	return l->cp[entry].k == l->k && l->cp[entry].proc == l->proc;
}

/* Procedure proc's weight in interval k, one more w. */
static int add_cellproc(struct tlbuild *t, size_t k, size_t proc, uint64_t w)
{
	struct cp_lookup l = { .k = k, .proc = proc };
	uint64_t h;
	size_t at;

	/* Samples come in runs of one procedure. */
	if (t->last_cp != SIZE_MAX && t->cp[t->last_cp].k == k &&
	    t->cp[t->last_cp].proc == proc) {
		t->cp[t->last_cp].weight += w;
		return 0;
	}
	h = hash_mix64(((uint64_t)k << 40) ^ (uint64_t)proc);
	l.cp = t->cp;
	at = hashmap_find(&t->cp_index, h, cp_at, &l);
	if (at == SIZE_MAX) {
		if (ALLOC_GROW(t->cp, t->ncp + 1, t->alloc_cp) ||
		    hashmap_add(&t->cp_index, h, t->ncp))
			return -PROF_ENOMEM;
		t->cp[t->ncp] = (struct cellproc){ .k = k, .proc = proc };
		at = t->ncp++;
	}
	t->cp[at].weight += w;
	t->last_cp = at;
	return 0;
}

/* Weight w (and a sample, when sample) of task count tc in interval k. */
static int add(struct tlbuild *t, uint32_t tc, size_t k, uint64_t w,
	       int sample)
{
	struct report_tl_row *row = &t->rows[t->tc_row[tc]];
	struct report_tl_interval *in = &t->tl->intervals[k];

	row->samples_at[k] += (uint64_t)sample;
	row->weight_at[k] += w;
	row->samples += (uint64_t)sample;
	row->weight += w;
	in->samples += (uint64_t)sample;
	in->weight += w;
	if (t->tl->selection && t->tc_sel[tc]) {
		row->sel_weight_at[k] += w;
		in->sel_samples += (uint64_t)sample;
		in->sel_weight += w;
	}
	if (t->tc_proc[tc] == SIZE_MAX)
		return 0;
	return add_cellproc(t, k, t->tc_proc[tc], w);
}

/* A row's command name is the one its thread had last (a thread that
 * execs or renames itself is several tasks); a process's, its main
 * thread's when it has one. */
static void name_row(struct tlbuild *t, uint32_t row,
		     const struct prof_task *task)
{
	int main_thread = task->tid == task->pid;

	if (t->tl->by == REPORT_BY_COMM || t->tl->by == REPORT_BY_CPU)
		return;
	if (t->tl->by == REPORT_BY_PID && !main_thread &&
	    t->named_main[row])
		return;
	t->rows[row].by.comm = task->comm;
	t->named_main[row] |= main_thread;
}

/* A sample in the interval of its time; an off-CPU interval in each it
 * overlaps, by the overlap, its sample in the first. */
static int add_event(struct tlbuild *t, const struct prof_event *e)
{
	const struct profile *p = t->r->prof;
	const struct prof_task_count *tc = &p->task_counts[e->tcount];
	struct report_tl_row *row = &t->rows[t->tc_row[e->tcount]];
	uint64_t from = e->time, to;
	size_t k, k0;
	int err = 0;

	if (tc->state == PROF_STATE_RUNNING) {
		if (from < t->tl->start || from >= t->tl->end)
			return 0;
		if (from < row->first)
			row->first = from;
		name_row(t, t->tc_row[e->tcount], &p->tasks[tc->task]);
		return add(t, e->tcount, interval_of(t, from), e->weight, 1);
	}
	to = e->weight > UINT64_MAX - from ? UINT64_MAX : from + e->weight;
	if (from < t->tl->start)
		from = t->tl->start;
	if (to > t->tl->end)
		to = t->tl->end;
	if (to <= from)
		return 0;
	if (from < row->first)
		row->first = from;
	name_row(t, t->tc_row[e->tcount], &p->tasks[tc->task]);
	k0 = interval_of(t, from);
	for (k = k0; k < t->tl->nintervals && !err; k++) {
		uint64_t a = t->tl->intervals[k].start;
		uint64_t b = t->tl->intervals[k].end;

		if (a >= to)
			break;
		err = add(t, e->tcount, k,
			  (to < b ? to : b) - (from > a ? from : a), k == k0);
	}
	return err;
}

static int add_events(struct tlbuild *t)
{
	const struct profile *p = t->r->prof;
	size_t i;
	int err = 0;

	t->last_cp = SIZE_MAX;
	for (i = 0; i < p->nevents && !err; i++) {
		const struct prof_event *e = &p->events[i];

		if (e->tcount >= p->ntask_counts ||
		    t->tc_row[e->tcount] == NONE)
			continue;
		err = add_event(t, e);
	}
	return err;
}

/* ---- what the events add up to ---- */

/* 0 (part 0) or 1..LEVELS: part of whole, rounded. */
static unsigned char level_of(uint64_t part, uint64_t whole)
{
	double f;

	if (!part || !whole)
		return 0;
	f = (double)part / (double)whole;
	if (f > 1)
		f = 1;
	return (unsigned char)(1 + lround((REPORT_TIMELINE_LEVELS - 1) * f));
}

/* Whether report row a is a hotter procedure than b at equal weight:
 * the first by name, then by row. */
static int before(const struct report *r, size_t a, size_t b)
{
	int c = strcmp(r->rows[a].procedure, r->rows[b].procedure);

	return c ? c < 0 : a < b;
}

/* Each interval's hottest procedure, and the list of them (procs). */
static int hottest(struct tlbuild *t)
{
	struct report_timeline *tl = t->tl;
	const struct report *r = t->r;
	size_t n = tl->nintervals, *best, *proc_of, i, k;

	best = malloc(n * sizeof(*best));
	proc_of = malloc((r->nrows ? r->nrows : 1) * sizeof(*proc_of));
	tl->procs = report_alloc(t->r, n, sizeof(*tl->procs));
	if (!best || !proc_of || !tl->procs) {
		free(best);
		free(proc_of);
		return -PROF_ENOMEM;
	}
	for (k = 0; k < n; k++)
		best[k] = SIZE_MAX;
	for (i = 0; i < r->nrows; i++)
		proc_of[i] = SIZE_MAX;
	for (i = 0; i < t->ncp; i++) {
		const struct cellproc *c = &t->cp[i];
		struct report_tl_interval *in = &tl->intervals[c->k];

		if (!c->weight)
			continue;
		if (best[c->k] == SIZE_MAX || c->weight > in->hottest_weight ||
		    (c->weight == in->hottest_weight &&
		     before(r, c->proc, best[c->k]))) {
			best[c->k] = c->proc;
			in->hottest_weight = c->weight;
		}
	}
	for (k = 0; k < n; k++) {
		struct report_tl_interval *in = &tl->intervals[k];
		size_t row = best[k];

		if (row == SIZE_MAX)
			continue;
		if (proc_of[row] == SIZE_MAX) {
			struct report_tl_proc *pr = &tl->procs[tl->nprocs];

			pr->procedure = r->rows[row].procedure;
			pr->inlined_into = r->rows[row].inlined_into;
			pr->object = r->rows[row].object;
			proc_of[row] = tl->nprocs++;
		}
		in->hottest = proc_of[row];
		in->hottest_percent = in->weight ? 100.0 *
			(double)in->hottest_weight / (double)in->weight : 0;
	}
	free(best);
	free(proc_of);
	return 0;
}

/* Consecutive intervals with the same hottest procedure. */
static int phases(struct report_timeline *tl, struct report *r)
{
	size_t k, n = 0;

	tl->phases = report_alloc(r, tl->nintervals, sizeof(*tl->phases));
	if (!tl->phases)
		return -PROF_ENOMEM;
	for (k = 0; k < tl->nintervals; k++) {
		const struct report_tl_interval *in = &tl->intervals[k];
		struct report_tl_phase *ph = &tl->phases[n ? n - 1 : 0];

		if (!n || ph->proc != in->hottest) {
			ph = &tl->phases[n++];
			ph->first = k;
			ph->start = in->start;
			ph->proc = in->hottest;
		}
		ph->last = k;
		ph->end = in->end;
		ph->weight += in->weight;
		ph->proc_weight += in->hottest_weight;
	}
	for (k = 0; k < n; k++)
		tl->phases[k].percent = tl->phases[k].weight ? 100.0 *
			(double)tl->phases[k].proc_weight /
			(double)tl->phases[k].weight : 0;
	tl->nphases = n;
	return 0;
}

/* The cells' levels and shares, the intervals' shares, the totals. */
static void figures(struct report_timeline *tl, struct report_tl_row *rows,
		    size_t nrows)
{
	size_t i, k, n = tl->nintervals;

	for (i = 0; i < nrows; i++)
		for (k = 0; k < n; k++)
			if (rows[i].weight_at[k] > tl->max_weight)
				tl->max_weight = rows[i].weight_at[k];
	for (k = 0; k < n; k++) {
		struct report_tl_interval *in = &tl->intervals[k];

		tl->samples += in->samples;
		tl->weight += in->weight;
		if (!tl->selection || !in->weight)
			continue;
		in->sel_percent = 100.0 * (double)in->sel_weight /
				  (double)in->weight;
		in->sel_level = level_of(in->sel_weight, in->weight);
	}
	for (i = 0; i < nrows; i++) {
		struct report_tl_row *row = &rows[i];

		for (k = 0; k < n; k++) {
			uint64_t w = row->weight_at[k];

			if (!tl->selection) {
				row->level[k] = level_of(w, tl->max_weight);
				continue;
			}
			row->sel_percent_at[k] = w ? 100.0 *
				(double)row->sel_weight_at[k] / (double)w : NAN;
			row->level[k] = level_of(row->sel_weight_at[k], w);
		}
	}
}

/* Rows in order of first activity, then of their key. */
static int cmp_rows(const void *a, const void *b)
{
	const struct report_tl_row *x = a, *y = b;
	int c;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	if (x->by.pid != y->by.pid)
		return x->by.pid < y->by.pid ? -1 : 1;
	if (x->by.tid != y->by.tid)
		return x->by.tid < y->by.tid ? -1 : 1;
	if (x->by.cpu != y->by.cpu)
		return x->by.cpu < y->by.cpu ? -1 : 1;
	c = strcmp(x->by.comm ? x->by.comm : "", y->by.comm ? y->by.comm : "");
	return c;
}

/* The rows with weight or samples, sorted, in the report's memory. */
static int keep_rows(struct tlbuild *t)
{
	struct report_timeline *tl = t->tl;
	size_t i, n = 0;

	tl->rows = report_alloc(t->r, t->nrows, sizeof(*tl->rows));
	if (!tl->rows)
		return -PROF_ENOMEM;
	for (i = 0; i < t->nrows; i++)
		if (t->rows[i].samples || t->rows[i].weight)
			tl->rows[n++] = t->rows[i];
	if (n > 1)
		qsort(tl->rows, n, sizeof(*tl->rows), cmp_rows);
	tl->nrows = n;
	return 0;
}

int report_timeline_build(struct report *r, const size_t *trow, unsigned by)
{
	struct tlbuild t = { .r = r, .row_index = HASHMAP_INIT,
			     .cp_index = HASHMAP_INIT };
	int err;

	t.tl = r->timeline = report_alloc(r, 1, sizeof(*r->timeline));
	if (!t.tl)
		return -PROF_ENOMEM;
	t.tl->stat = report_stack_stat(r->prof);
	t.tl->by = by ? by : REPORT_BY_TID;
	t.tl->selection = r->opt.nonly || r->opt.nexclude;
	err = make_intervals(&t);
	if (!err)
		err = map_task_counts(&t, trow);
	if (!err)
		err = add_events(&t);
	if (!err)
		err = hottest(&t);
	if (!err)
		err = phases(t.tl, r);
	if (!err) {
		figures(t.tl, t.rows, t.nrows);
		err = keep_rows(&t);
	}
	free(t.tc_row);
	free(t.tc_proc);
	free(t.tc_sel);
	free(t.named_main);
	free(t.rows);
	free(t.cp);
	hashmap_release(&t.row_index);
	hashmap_release(&t.cp_index);
	return err;
}
