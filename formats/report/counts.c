/* SPDX-License-Identifier: MIT */
/*
 * Counting profiles (--count): each statistic's whole-run total, scaled
 * where the kernel multiplexed it, and the ratios the totals give.
 */
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "report_int.h"

static const struct report_count *count_named(const struct report_counts *rc,
					      const char *name)
{
	size_t i;

	for (i = 0; i < rc->ncounts; i++)
		if (!strcmp(rc->counts[i].stat->name, name) &&
		    !(rc->counts[i].stat->flags & PROF_STAT_SUBSTITUTE))
			return &rc->counts[i];
	return NULL;
}

static struct report_count_ratio *add_ratio(struct report_counts *rc,
				      size_t *alloc, const char *name)
{
	struct report_count_ratio *q;
	size_t i;

	for (i = 0; i < rc->nratios; i++)
		if (!strcmp(rc->ratios[i].name, name))
			return &rc->ratios[i];
	if (ALLOC_GROW(rc->ratios, rc->nratios + 1, *alloc))
		return NULL;
	q = &rc->ratios[rc->nratios++];
	memset(q, 0, sizeof(*q));
	snprintf(q->name, sizeof(q->name), "%s", name);
	q->value = NAN;
	return q;
}

/* Each counted statistic's total, scaled where the kernel multiplexed
 * it. */
static int scale_counts(struct report_counts *rc)
{
	const struct profile *p = rc->prof;
	size_t i;

	rc->counts = calloc(p->nstats ? p->nstats : 1, sizeof(*rc->counts));
	if (!rc->counts)
		return -PROF_ENOMEM;
	for (i = 0; i < p->nstats; i++) {
		const struct prof_stat *st = &p->stats[i];
		struct report_count *c;

		if (st->flags & PROF_STAT_DERIVED)
			continue;
		c = &rc->counts[rc->ncounts++];
		c->stat = st;
		c->multiplexed = report_stat_multiplexed(p, st,
							 &c->running_percent);
		c->scaled = !c->multiplexed ? (double)st->value :
			    st->time_running ? (double)st->value *
			    (double)st->time_enabled /
			    (double)st->time_running : 0;
	}
	return 0;
}

/* A software event's rate per second of the run or, for task-clock and
 * cpu-clock, the CPUs it used on average. */
static int rate_ratio(struct report_counts *rc, size_t *alloc,
		      const struct report_count *c)
{
	const struct prof_stat *st = c->stat;
	double secs = (double)rc->prof->duration_ns / 1e9;
	int clock = st->config == PERF_COUNT_SW_TASK_CLOCK ||
		    st->config == PERF_COUNT_SW_CPU_CLOCK;
	struct report_count_ratio *q;
	char name[96];

	snprintf(name, sizeof(name), clock ? "%s_cpus" : "%s_per_second",
		 st->name);
	q = add_ratio(rc, alloc, name);
	if (!q)
		return -PROF_ENOMEM;
	q->inputs[0] = st->name;
	snprintf(q->formula, sizeof(q->formula), clock ?
		 "%s (ns) / duration (ns): CPUs used" :
		 "%s / duration (s)", st->name);
	if (secs > 0)
		q->value = clock ? c->scaled / (secs * 1e9) : c->scaled / secs;
	return 0;
}

/* X_per_ret = 100 * X / retired (cycles_per_ret: cycles / retired). */
static int per_ret_ratio(struct report_counts *rc, size_t *alloc,
			 const struct report_count *c,
			 const struct report_count *ret)
{
	const struct prof_stat *st = c->stat;
	int cyc = report_per_ret_scale(st->name) == 1.0;
	struct report_count_ratio *q;
	char name[96];

	snprintf(name, sizeof(name), "%s_per_ret", st->name);
	q = add_ratio(rc, alloc, name);
	if (!q)
		return -PROF_ENOMEM;
	q->inputs[0] = st->name;
	q->inputs[1] = ret->stat->name;
	snprintf(q->formula, sizeof(q->formula), cyc ?
		 "%s / %s" : "100 * %s / %s", st->name, ret->stat->name);
	if (ret->scaled > 0)
		q->value = (cyc ? 1.0 : 100.0) * c->scaled / ret->scaled;
	return 0;
}

/* Ratios asked for by name, whether or not they could be made. */
static int requested_ratios(struct report_counts *rc, size_t *alloc)
{
	const struct profile *p = rc->prof;
	size_t i, sl = strlen("_per_ret");
	char name[96];

	for (i = 0; i < p->nstats; i++) {
		const struct prof_stat *st = &p->stats[i];
		const struct report_count *x;
		struct report_count_ratio *q;
		size_t n = strlen(st->name);

		if (!(st->flags & PROF_STAT_DERIVED))
			continue;
		q = add_ratio(rc, alloc, st->name);
		if (!q)
			return -PROF_ENOMEM;
		q->requested = 1;
		if (q->inputs[0] || n <= sl)
			continue;
		/* Inputs missing: say which were needed. */
		snprintf(name, sizeof(name), "%.*s", (int)(n - sl), st->name);
		x = count_named(rc, name);
		q->inputs[0] = x ? x->stat->name : NULL;
		snprintf(q->formula, sizeof(q->formula),
			 "%s%s / retinst (not counted)",
			 report_per_ret_scale(name) == 1.0 ? "" : "100 * ",
			 name);
	}
	return 0;
}

/*
 * The ratios of the originals, from whole-run totals: cycles_per_ret =
 * cycles / retinst, X_per_ret = 100 * X / retinst for every other
 * hardware statistic; for software events, rates per second of the run
 * and, from task-clock or cpu-clock, the CPUs used on average.
 */
int report_counts_build(const struct profile *p, const char *file,
			struct report_counts **out)
{
	struct report_counts *rc = calloc(1, sizeof(*rc));
	const struct report_count *ret;
	size_t i, alloc = 0;
	int err;

	*out = NULL;
	if (!rc)
		return prof_fail(PROF_ENOMEM, "out of memory");
	rc->prof = p;
	rc->file = file;
	err = scale_counts(rc);
	ret = count_named(rc, "retinst");
	for (i = 0; i < rc->ncounts && !err; i++) {
		const struct report_count *c = &rc->counts[i];

		if (c->stat->type == PERF_TYPE_SOFTWARE)
			err = rate_ratio(rc, &alloc, c);
		else if (ret && c != ret &&
			 !(c->stat->flags & PROF_STAT_SUBSTITUTE))
			err = per_ret_ratio(rc, &alloc, c, ret);
	}
	if (!err)
		err = requested_ratios(rc, &alloc);
	if (err) {
		report_counts_free(rc);
		return prof_fail(PROF_ENOMEM, "out of memory");
	}
	*out = rc;
	return 0;
}

void report_counts_free(struct report_counts *rc)
{
	if (!rc)
		return;
	free(rc->counts);
	free(rc->ratios);
	free(rc);
}
