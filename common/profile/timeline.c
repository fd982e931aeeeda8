/* SPDX-License-Identifier: MIT */
/*
 * Time windows over a profile's time stream: --time's ranges parsed, and
 * a profile cut down to what happened in them (profile_window()), after
 * which it is a profile like any other: every view, export, merge and
 * diff works on the window unchanged.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "profile_int.h"

uint64_t profile_time_span(const struct profile *p)
{
	uint64_t span = p->duration_ns;
	size_t i;

	/* Intervals end after they start: the last to end may be any
	 * one of them. */
	for (i = 0; i < p->nevents; i++) {
		const struct prof_event *e = &p->events[i];

		if (e->time + e->weight > span &&
		    p->task_counts[e->tcount].state != PROF_STATE_RUNNING)
			span = e->time + e->weight;
		if (e->time >= span)
			span = e->time + 1;
	}
	return span;
}

/* The units an end of a range may have. */
static const struct {
	const char *name;
	double ns;		/* 0: percent of the run */
} units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "%", 0 },
};

/* One end of a range: a decimal number (no sign, exponent or hex) in
 * *v and its unit in *unit (an index of units[], -1: none given); NULL
 * when s does not start with one. */
static const char *parse_end(const char *s, double *v, int *unit)
{
	const char *p = s, *digits;
	char *end;
	size_t i;

	while (*p >= '0' && *p <= '9')
		p++;
	digits = p;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (digits == s && p <= s + 1)
		return NULL;
	*v = strtod(s, &end);
	if (end != p || !isfinite(*v))
		return NULL;
	*unit = -1;
	for (i = 0; i < sizeof(units) / sizeof(*units); i++) {
		size_t n = strlen(units[i].name);

		if (!strncmp(p, units[i].name, n)) {
			*unit = (int)i;
			return p + n;
		}
	}
	return p;
}

/* An end in ns from the run's start: v in unit (-1: seconds), percent
 * of run_ns; -1 when past what a profile can hold. */
static int end_ns(double v, int unit, uint64_t run_ns, uint64_t *out)
{
	double ns;

	if (unit >= 0 && !units[unit].ns) {
		if (v > 100)
			return -1;
		ns = v / 100 * (double)run_ns;
	} else {
		ns = v * (unit >= 0 ? units[unit].ns : 1e9);
	}
	if (ns >= 1.8e19)
		return -1;
	*out = (uint64_t)llround(ns);
	return 0;
}

/* Seconds to the millisecond, or to the digit a finer time needs (up
 * to the nanosecond). */
static void fmt_s(char *b, size_t n, uint64_t ns)
{
	int digits = 3;
	uint64_t unit = 1000000;

	while (digits < 9 && ns % unit) {
		digits += 3;
		unit /= 1000;
	}
	snprintf(b, n, "%.*fs", digits, (double)ns / 1e9);
}

int profile_time_parse(const char *s, uint64_t run_ns,
		       struct prof_range **out, size_t *n)
{
	struct prof_range *r = NULL;
	size_t nr = 0, alloc = 0;
	const char *at = s;
	char a[32], b[32];

	*out = NULL;
	*n = 0;
	for (;;) {
		struct prof_range x = { 0, UINT64_MAX };
		const char *q = at;
		double from = 0, to = 0;
		int ufrom = -1, uto = -1, has_from = *q != '-', has_to;

		if (has_from && !(q = parse_end(q, &from, &ufrom)))
			goto bad;
		if (*q != '-')
			goto bad;
		q++;
		has_to = *q && *q != ',';
		if (has_to && !(q = parse_end(q, &to, &uto)))
			goto bad;
		if (*q && *q != ',')
			goto bad;
		/* A unit given at one end only is both's: 90-100% is
		 * 90%-100%, 250-500ms 250ms-500ms. */
		if (ufrom < 0)
			ufrom = uto;
		if (uto < 0)
			uto = ufrom;
		if ((has_from && end_ns(from, ufrom, run_ns, &x.from)) ||
		    (has_to && end_ns(to, uto, run_ns, &x.to)))
			goto bad;
		if (x.to <= x.from) {
			free(r);
			return prof_fail(PROF_EINVAL, "time range '%.*s' is "
					 "empty: it must end after it starts",
					 (int)(q - at), at);
		}
		if (x.from >= run_ns) {
			free(r);
			fmt_s(a, sizeof(a), x.from);
			fmt_s(b, sizeof(b), run_ns);
			return prof_fail(PROF_EINVAL, "time range '%.*s' "
					 "starts at %s, after the run's end: "
					 "the run lasted %s", (int)(q - at),
					 at, a, b);
		}
		if (nr && x.from < r[nr - 1].to) {
			free(r);
			return prof_fail(PROF_EINVAL, "time ranges '%s' "
					 "overlap or are out of order: give "
					 "them in order, apart", s);
		}
		/* The run's end is in its last range. */
		if (x.to >= run_ns)
			x.to = UINT64_MAX;
		if (ALLOC_GROW(r, nr + 1, alloc)) {
			free(r);
			return -PROF_ENOMEM;
		}
		r[nr++] = x;
		if (!*q)
			break;
		at = q + 1;
	}
	*out = r;
	*n = nr;
	return 0;
bad:
	free(r);
	return prof_fail(PROF_EINVAL, "bad time range '%s': expected FROM-TO "
			 "in seconds (2.5-4, 250ms-1s) or percent of the run "
			 "(10%%-20%%), either end left out for the run's, "
			 "several separated by commas", s);
}

char *profile_time_format(const struct prof_range *r, size_t n)
{
	char *s = NULL, a[32], b[32];
	size_t len = 0, alloc = 0, i;

	for (i = 0; i < n; i++) {
		char part[80];
		int k;

		fmt_s(a, sizeof(a), r[i].from);
		if (r[i].to == UINT64_MAX)
			snprintf(b, sizeof(b), "end");
		else
			fmt_s(b, sizeof(b), r[i].to);
		k = snprintf(part, sizeof(part), "%s%s-%s", i ? ", " : "", a,
			     b);
		if (ALLOC_GROW(s, len + (size_t)k + 1, alloc)) {
			free(s);
			return NULL;
		}
		memcpy(s + len, part, (size_t)k + 1);
		len += (size_t)k;
	}
	return s ? s : strdup("");
}

/* How much of [t, t + w) the window holds (an interval), or w when the
 * window holds t (a sample: w is its period); 0: outside. *at: where the
 * kept part starts. */
static uint64_t in_window(const struct prof_range *r, size_t n, uint64_t t,
			  uint64_t w, int interval, uint64_t *at)
{
	uint64_t sum = 0;
	size_t i;

	*at = t;
	for (i = 0; i < n; i++) {
		uint64_t from = r[i].from > t ? r[i].from : t;
		uint64_t to = r[i].to < t + w ? r[i].to : t + w;

		if (!interval) {
			if (t >= r[i].from && t < r[i].to)
				return w;
			continue;
		}
		if (to > from) {
			if (!sum)
				*at = from;
			sum += to - from;
		}
	}
	return sum;
}

static int exact_stat(const struct profile *p, uint32_t stat)
{
	return (p->stats[stat].flags &
		(PROF_STAT_SIMULATED | PROF_STAT_COUNTING)) != 0;
}

static int cmp_sc(const void *k, const void *e)
{
	const struct prof_stack_count *x = k, *y = e;

	if (x->stat != y->stat)
		return x->stat < y->stat ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

int profile_window(struct profile *p, const struct prof_range *r, size_t n)
{
	struct task_entry *te = NULL;
	uint32_t *count_of = NULL, *tmap = NULL;
	size_t i, j, kept;
	uint64_t total = 0, span = profile_time_span(p);
	int err = -PROF_ENOMEM;

	if (p->timeline != PROF_TIMELINE_KEPT)
		return prof_fail(PROF_EINVAL, "%s",
				 profile_timeline_missing(p));
	if (profile_task_entries(p, &te) <= 0)
		return err;
	count_of = malloc((p->ntask_counts + 1) * sizeof(*count_of));
	tmap = malloc((p->ntask_counts + 1) * sizeof(*tmap));
	if (!count_of || !tmap)
		goto out;
	for (i = 0; i < p->ntask_counts; i++)
		count_of[te[i].src] = te[i].count;

	/* Everything the events add up to, emptied... */
	for (i = 0; i < p->ntask_counts; i++) {
		if (exact_stat(p, p->task_counts[i].stat))
			continue;
		p->task_counts[i].samples = p->task_counts[i].weight = 0;
	}
	for (i = 0; i < p->ncounts; i++) {
		if (exact_stat(p, p->counts[i].stat))
			continue;
		p->counts[i].samples = p->counts[i].weight = 0;
	}
	for (i = 0; i < p->nstack_counts; i++) {
		if (p->stack_counts[i].stat < p->nstats &&
		    exact_stat(p, p->stack_counts[i].stat))
			continue;
		p->stack_counts[i].samples = p->stack_counts[i].weight = 0;
	}
	for (i = 0; i < p->nstats; i++)
		if (!exact_stat(p, (uint32_t)i))
			p->stats[i].samples = 0;

	/* ... and filled again from the events in the window. */
	for (i = kept = 0; i < p->nevents; i++) {
		struct prof_event e = p->events[i];
		struct prof_task_count *tc = &p->task_counts[e.tcount];
		struct prof_count *c = &p->counts[count_of[e.tcount]];
		uint64_t at, w = in_window(r, n, e.time, e.weight,
					   tc->state != PROF_STATE_RUNNING,
					   &at);

		if (!w)
			continue;
		e.time = at;
		e.weight = w;
		tc->samples++;
		tc->weight += w;
		c->samples++;
		c->weight += w;
		p->stats[tc->stat].samples++;
		if (e.stack) {
			struct prof_stack_count key = { .stack = e.stack - 1,
							.stat = tc->stat };
			struct prof_stack_count *sc = bsearch(&key,
				p->stack_counts, p->nstack_counts,
				sizeof(key), cmp_sc);

			if (sc) {
				sc->samples++;
				sc->weight += w;
			}
		}
		p->events[kept++] = e;
	}
	p->nevents = kept;

	/* Empty entries go; the events follow their task counts. */
	for (i = j = 0; i < p->ntask_counts; i++) {
		tmap[i] = (uint32_t)j;
		if (p->task_counts[i].samples ||
		    exact_stat(p, p->task_counts[i].stat))
			p->task_counts[j++] = p->task_counts[i];
	}
	p->ntask_counts = j;
	for (i = 0; i < p->nevents; i++)
		p->events[i].tcount = tmap[p->events[i].tcount];
	for (i = j = 0; i < p->ncounts; i++)
		if (p->counts[i].samples)
			p->counts[j++] = p->counts[i];
	p->ncounts = j;
	for (i = j = 0; i < p->nstack_counts; i++)
		if (p->stack_counts[i].samples)
			p->stack_counts[j++] = p->stack_counts[i];
	p->nstack_counts = j;

	free(p->window);
	p->window = malloc(n * sizeof(*r) + 1);
	if (!p->window)
		goto out;
	memcpy(p->window, r, n * sizeof(*r));
	p->nwindow = n;
	for (i = 0; i < n; i++) {
		uint64_t to = r[i].to < span ? r[i].to : span;

		if (to > r[i].from)
			total += to - r[i].from;
	}
	p->window_ns = total;
	err = 0;
out:
	free(te);
	free(count_of);
	free(tmap);
	return err;
}
