/* SPDX-License-Identifier: MIT */
/*
 * The statistics' figures: totals, the derived statistics (ratios, the
 * retired statistic freq is averaged from), multiplexing, and the keys
 * and kinds the writers name them by.  A leaf of formats/report/.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "report_int.h"

static int has_name(const struct prof_stat *st, const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(st->name, name))
		return 1;
	/* "mispredict:u" was typed: the name before the modifiers. */
	return st->requested && !strncmp(st->requested, name, n) &&
	       (st->requested[n] == 0 || st->requested[n] == ':');
}

/* The first counted (not derived, not counting-mode) statistic called
 * one of names, preferring those with all of the flags in want. */
static long find_stat(const struct profile *p, const char *const *names,
		      uint32_t want)
{
	long best = -1;
	size_t i, k;

	for (k = 0; names[k]; k++) {
		for (i = 0; i < p->nstats; i++) {
			const struct prof_stat *st = &p->stats[i];

			if (!report_stat_counted(st))
				continue;
			if (!has_name(st, names[k]))
				continue;
			if ((st->flags & want) == want)
				return (long)i;
			if (best < 0)
				best = (long)i;
		}
	}
	return best;
}

static const char *const retired_names[] = {
	"retinst", "retire", "retired", "instructions", NULL
};

/* The statistic that counts retired instructions: exact counts first,
 * then the one of the same kind as the numerator. */
long report_find_retired(const struct profile *p, uint32_t kind_flags)
{
	long i = find_stat(p, retired_names, PROF_STAT_SIMULATED);

	if (i >= 0 && (p->stats[i].flags & PROF_STAT_SIMULATED))
		return i;
	return find_stat(p, retired_names, kind_flags);
}

long report_find_exact(const struct profile *p)
{
	long i = find_stat(p, retired_names, PROF_STAT_SIMULATED);

	return i >= 0 && (p->stats[i].flags & PROF_STAT_SIMULATED) ? i : -1;
}

/* X_per_ret is 100 * X / retired (per 100 instructions), except
 * cycles_per_ret, which is cycles / retired (seed 002). */
double report_per_ret_scale(const char *x)
{
	return strcmp(x, "cycles") ? 100.0 : 1.0;
}

static int setup_ratios(struct report *r)
{
	const struct profile *p = r->prof;
	size_t i;

	r->ratios = calloc(p->nstats ? p->nstats : 1, sizeof(*r->ratios));
	if (!r->ratios)
		return -PROF_ENOMEM;
	for (i = 0; i < p->nstats; i++) {
		const struct prof_stat *st = &p->stats[i];
		struct report_ratio *ra = &r->ratios[r->nratios];
		const char *suffix = "_per_ret";
		size_t len = strlen(st->name), sl = strlen(suffix);
		char num[64];
		const char *names[2] = { num, NULL };
		long n, d;

		if (!(st->flags & PROF_STAT_DERIVED) || len <= sl ||
		    strcmp(st->name + len - sl, suffix) || len - sl >= sizeof(num))
			continue;
		memcpy(num, st->name, len - sl);
		num[len - sl] = 0;
		n = find_stat(p, names, st->flags & PROF_STAT_PROFILEME);
		if (n < 0)
			continue;
		d = report_find_retired(p, p->stats[n].flags &
					PROF_STAT_PROFILEME);
		if (d < 0)
			continue;
		ra->name = st->name;
		ra->num = (size_t)n;
		ra->den = (size_t)d;
		ra->scale = report_per_ret_scale(num);
		r->nratios++;
	}
	return 0;
}

static double ratio_of(const struct report_ratio *ra, const uint64_t *w)
{
	if (!w[ra->den])
		return NAN;
	return ra->scale * (double)w[ra->num] / (double)w[ra->den];
}

static int ratio_low(const struct report *r, const struct report_ratio *ra,
		     const uint64_t *samples)
{
	const struct prof_stat *st = r->prof->stats;
	int exact_n = st[ra->num].flags & PROF_STAT_SIMULATED;
	int exact_d = st[ra->den].flags & PROF_STAT_SIMULATED;

	return (!exact_n && samples[ra->num] < REPORT_RATIO_MIN_SAMPLES) ||
	       (!exact_d && samples[ra->den] < REPORT_RATIO_MIN_SAMPLES);
}

void report_row_derived(const struct report *r, struct report_row *row)
{
	size_t s, k;

	for (k = 0; k < r->nratios; k++) {
		row->ratio[k] = ratio_of(&r->ratios[k], row->weight);
		row->ratio_low[k] = (unsigned char)ratio_low(r, &r->ratios[k],
							     row->samples);
	}
	if (row->average)
		for (s = 0; s < r->nstats; s++)
			row->average[s] = !isnan(row->execs) && row->execs > 0 ?
				(double)row->weight[s] / row->execs : NAN;
}

/* Whether the report needs the procedures' code (blocks). */
/* Whether freq was asked for (a derived statistic). */
int report_asks_freq(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nstats; i++)
		if ((p->stats[i].flags & PROF_STAT_DERIVED) &&
		    !strcmp(p->stats[i].name, "freq"))
			return 1;
	return 0;
}

/*
 * Whether statistic st of p ran only part of the time it was enabled
 * (multiplexed); *percent is 100 * running / enabled.  Only counting
 * events and kprofile's per-CPU events measure this: a per-CPU task
 * event's enabled time also runs while the task is on another CPU.
 */
int report_stat_multiplexed(const struct profile *p,
			    const struct prof_stat *st, double *percent)
{
	*percent = st->time_enabled ?
		   100.0 * (double)st->time_running /
		   (double)st->time_enabled : 100.0;
	if (!(st->flags & PROF_STAT_COUNTING) &&
	    !(p->tool && !strcmp(p->tool, "kprofile")))
		return 0;
	return st->time_running < st->time_enabled;
}

/* Per statistic: totals over the whole profile, the ratios' totals, and
 * whether the kernel multiplexed it. */
int report_count_totals(struct report *r)
{
	const struct profile *p = r->prof;
	size_t ns = p->nstats ? p->nstats : 1, i;

	r->total_samples = calloc(ns, sizeof(*r->total_samples));
	r->total_weight = calloc(ns, sizeof(*r->total_weight));
	r->multiplexed = calloc(ns, sizeof(*r->multiplexed));
	r->running_percent = calloc(ns, sizeof(*r->running_percent));
	if (!r->total_samples || !r->total_weight || !r->multiplexed ||
	    !r->running_percent || setup_ratios(r))
		return -PROF_ENOMEM;
	for (i = 0; i < p->ncounts; i++) {
		r->total_samples[p->counts[i].stat] += p->counts[i].samples;
		r->total_weight[p->counts[i].stat] += p->counts[i].weight;
	}
	for (i = 0; i < r->nratios; i++) {
		r->ratios[i].total = ratio_of(&r->ratios[i], r->total_weight);
		r->ratios[i].total_low = ratio_low(r, &r->ratios[i],
						   r->total_samples);
	}
	for (i = 0; i < p->nstats; i++)
		r->multiplexed[i] = (unsigned char)report_stat_multiplexed(
			p, &p->stats[i], &r->running_percent[i]);
	if (p->nwindow) {
		char *w = profile_time_format(p->window, p->nwindow);

		r->window = w ? report_pool_dup(r, w) : NULL;
		free(w);
		if (!r->window)
			return -PROF_ENOMEM;
		r->window_ns = p->window_ns;
	}
	return 0;
}

const char *report_row_kind_key(enum report_row_kind k)
{
	switch (k) {
	case ROW_LINE: return "line";
	case ROW_BLOCK: return "block";
	case ROW_INSN: return "instruction";
	case ROW_BUCKET: return "bucket";
	default: return "procedure";
	}
}

int report_stat_counted(const struct prof_stat *st)
{
	return !(st->flags & (PROF_STAT_DERIVED | PROF_STAT_COUNTING));
}

const char *report_stat_key(const struct profile *p, size_t s, char *buf,
			    size_t len)
{
	size_t i, n = 1;

	for (i = 0; i < s; i++)
		n += !strcmp(p->stats[i].name, p->stats[s].name);
	if (n == 1)
		return p->stats[s].name;
	snprintf(buf, len, "%s#%zu", p->stats[s].name, n);
	return buf;
}

size_t report_stack_stat(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nstats; i++)
		if (!(p->stats[i].flags & (PROF_STAT_DERIVED |
					   PROF_STAT_COUNTING)))
			return i;
	return 0;
}

int report_is_counting(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nstats; i++)
		if (!(p->stats[i].flags & PROF_STAT_COUNTING))
			return 0;
	return p->nstats > 0;
}
