/* SPDX-License-Identifier: MIT */
/*
 * The diff of two reports (report.h, report_diff_build): rows matched by
 * name, the change of share of one statistic, and whether the sample
 * counts can tell that change from sampling noise.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/path.h"

/* What a row is across two builds: its procedure (and the function it
 * is inlined into), and in the lines view its source line.  Objects are
 * left out: a rebuilt program may live at another path. */
static int same_key(const struct report_row *a, const struct report_row *b,
		    enum report_view view)
{
	const char *ia = a->inlined_into ? a->inlined_into : "";
	const char *ib = b->inlined_into ? b->inlined_into : "";

	if (strcmp(a->procedure, b->procedure) || strcmp(ia, ib))
		return 0;
	if (view != REPORT_LINES)
		return 1;
	return a->line == b->line &&
	       !strcmp(a->file ? path_base(a->file) : "",
		       b->file ? path_base(b->file) : "");
}

static size_t find_stat(const struct profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nstats; i++)
		if (!strcmp(p->stats[i].name, name))
			return i;
	return SIZE_MAX;
}

/* Same statistic names, in any order; else -PROF_EINVAL naming one
 * statistic that only one of them has. */
static int check_stats(const struct report_diff *d)
{
	const struct profile *a = d->base->prof, *b = d->new->prof;
	const char *only = NULL, *in = NULL;
	size_t i;

	for (i = 0; i < a->nstats && !only; i++)
		if (find_stat(b, a->stats[i].name) == SIZE_MAX) {
			only = a->stats[i].name;
			in = d->opt.base_file;
		}
	for (i = 0; i < b->nstats && !only; i++)
		if (find_stat(a, b->stats[i].name) == SIZE_MAX) {
			only = b->stats[i].name;
			in = d->opt.new_file;
		}
	if (!only && a->nstats == b->nstats)
		return 0;
	return prof_fail(PROF_EINVAL, "'%s' and '%s' have different "
			 "statistics (%s%s%s): not comparable",
			 d->opt.base_file, d->opt.new_file,
			 only ? only : "a statistic twice",
			 only ? " only in " : "", only ? in : "");
}

/* The row of d matching row, adding it when there is none; NULL when
 * out of memory. */
static struct report_diff_row *row_for(struct report_diff *d,
				       const struct report_row *row,
				       size_t *alloc)
{
	struct report_diff_row *dr;
	size_t i;

	for (i = 0; i < d->nrows; i++)
		if (same_key(d->rows[i].row, row, d->view))
			return &d->rows[i];
	if (ALLOC_GROW(d->rows, d->nrows + 1, *alloc))
		return NULL;
	dr = &d->rows[d->nrows++];
	memset(dr, 0, sizeof(*dr));
	dr->row = row;
	dr->base_ratio = dr->new_ratio = -1;
	return dr;
}

/* Rows of a view over the same key are summed (a procedure in two
 * objects); the first, the hottest, gives the ratios. */
static int add_rows(struct report_diff *d, const struct report *r,
		    size_t stat, int is_new, size_t *alloc)
{
	size_t i;

	for (i = 0; i < r->nrows; i++) {
		const struct report_row *row = &r->rows[i];
		struct report_diff_row *dr = row_for(d, row, alloc);

		if (!dr)
			return -PROF_ENOMEM;
		if (is_new) {
			if (dr->new_ratio < 0)
				dr->new_ratio = (long)i;
			dr->new_samples += row->samples[stat];
			dr->new_percent += row->percent[stat];
			if (!dr->new_row)
				dr->new_row = row;
		} else {
			if (dr->base_ratio < 0)
				dr->base_ratio = (long)i;
			dr->base_samples += row->samples[stat];
			dr->base_percent += row->percent[stat];
			if (!dr->base_row)
				dr->base_row = row;
		}
	}
	return 0;
}

/*
 * Two-proportion z-test of k1 of n1 against k2 of n2 with the pooled
 * proportion; two-sided p-value.  1 when there is nothing to tell apart.
 */
static double two_proportion_p(uint64_t k1, uint64_t n1, uint64_t k2,
			       uint64_t n2, double *z)
{
	double p1, p2, pp, se;

	*z = 0;
	if (!n1 || !n2)
		return 1;
	p1 = (double)k1 / (double)n1;
	p2 = (double)k2 / (double)n2;
	pp = (double)(k1 + k2) / (double)(n1 + n2);
	se = sqrt(pp * (1 - pp) * (1 / (double)n1 + 1 / (double)n2));
	if (!(se > 0))
		return 1;
	*z = (p2 - p1) / se;
	return erfc(fabs(*z) / M_SQRT2);
}

static int cmp_p(const void *a, const void *b, void *rows)
{
	const struct report_diff_row *v = rows;
	double x = v[*(const size_t *)a].p;
	double y = v[*(const size_t *)b].p;

	return x < y ? -1 : x > y;
}

/*
 * Holm's step-down correction over the m rows tested: with p-values in
 * ascending order p(1) <= ... <= p(m), the adjusted p(i) is the largest
 * of min(1, (m - j + 1) p(j)) for j <= i.  It keeps the chance of any
 * false positive among the m rows at most alpha, whatever their
 * dependence.
 */
static int holm(struct report_diff *d)
{
	size_t *order, i, m = 0;
	double run = 0;

	order = malloc((d->nrows ? d->nrows : 1) * sizeof(*order));
	if (!order)
		return -PROF_ENOMEM;
	for (i = 0; i < d->nrows; i++) {
		d->rows[i].p_holm = 1;
		if (d->rows[i].tested)
			order[m++] = i;
	}
	qsort_r(order, m, sizeof(*order), cmp_p, d->rows);
	for (i = 0; i < m; i++) {
		struct report_diff_row *dr = &d->rows[order[i]];
		double adj = (double)(m - i) * dr->p;

		if (adj > 1)
			adj = 1;
		if (adj > run)
			run = adj;
		dr->p_holm = run;
	}
	d->ntested = m;
	free(order);
	return 0;
}

static int cmp_change(const void *a, const void *b)
{
	const struct report_diff_row *x = a, *y = b;
	double ax = fabs(x->change), ay = fabs(y->change);

	if (ax != ay)
		return ax > ay ? -1 : 1;
	return strcmp(x->row->procedure, y->row->procedure);
}

/* The ratios both reports have, by name. */
static int match_ratios(struct report_diff *d)
{
	size_t i, j;

	d->ratio_base = calloc(d->base->nratios + 1, sizeof(size_t));
	d->ratio_new = calloc(d->base->nratios + 1, sizeof(size_t));
	if (!d->ratio_base || !d->ratio_new)
		return -PROF_ENOMEM;
	for (i = 0; i < d->base->nratios; i++)
		for (j = 0; j < d->new->nratios; j++)
			if (!strcmp(d->base->ratios[i].name,
				    d->new->ratios[j].name)) {
				d->ratio_base[d->nratios] = i;
				d->ratio_new[d->nratios++] = j;
				break;
			}
	return 0;
}

double report_diff_ratio(const struct report_diff *d,
			 const struct report_diff_row *dr, size_t k,
			 int is_new)
{
	const struct report *r = is_new ? d->new : d->base;
	long i = is_new ? dr->new_ratio : dr->base_ratio;

	if (i < 0 || k >= d->nratios)
		return NAN;
	return r->rows[i].ratio[is_new ? d->ratio_new[k] : d->ratio_base[k]];
}

/* Which rows the writers list: significant ones always, noise with -v;
 * -quit N keeps the first N of them. */
static void choose_shown(struct report_diff *d)
{
	size_t i;

	for (i = 0; i < d->nrows; i++) {
		struct report_diff_row *dr = &d->rows[i];

		if (!dr->significant && !d->opt.show_noise) {
			d->nhidden++;
			continue;
		}
		if (report_quit_reached(d->opt.quit_rows, 0, d->nshown, NULL))
			continue;
		dr->shown = 1;
		d->nshown++;
	}
}

int report_diff_build(const struct report *base, const struct report *nw,
		      const struct report_diff_options *o,
		      struct report_diff **out)
{
	struct report_diff *d;
	size_t alloc = 0, i;
	int err;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return prof_fail(PROF_ENOMEM, "out of memory");
	d->base = base;
	d->new = nw;
	d->opt = *o;
	d->view = base->opt.view;
	err = check_stats(d);
	if (err)
		goto fail;
	d->stat = report_stack_stat(base->prof);
	d->stat_name = base->prof->stats[d->stat].name;
	d->new_stat = find_stat(nw->prof, d->stat_name);
	d->base_samples = base->total_samples[d->stat];
	d->new_samples = nw->total_samples[d->stat];
	d->base_weight = base->total_weight[d->stat];
	d->new_weight = nw->total_weight[d->stat];
	err = match_ratios(d);
	if (!err)
		err = add_rows(d, base, d->stat, 0, &alloc);
	if (!err)
		err = add_rows(d, nw, d->new_stat, 1, &alloc);
	if (err)
		goto fail;
	for (i = 0; i < d->nrows; i++) {
		struct report_diff_row *dr = &d->rows[i];

		dr->change = dr->new_percent - dr->base_percent;
		dr->tested = dr->base_samples + dr->new_samples > 0;
		dr->p = two_proportion_p(dr->base_samples, d->base_samples,
					 dr->new_samples, d->new_samples,
					 &dr->z);
	}
	err = holm(d);
	if (err)
		goto fail;
	for (i = 0; i < d->nrows; i++) {
		struct report_diff_row *dr = &d->rows[i];

		dr->significant = dr->tested && dr->p_holm < d->opt.alpha;
		d->nsignificant += dr->significant;
		dr->worse = dr->significant && d->opt.fail_above >= 0 &&
			    dr->change > d->opt.fail_above;
		d->nworse += dr->worse;
	}
	if (d->nrows > 1)
		qsort(d->rows, d->nrows, sizeof(*d->rows), cmp_change);
	choose_shown(d);
	*out = d;
	return 0;
fail:
	report_diff_free(d);
	return err == -PROF_ENOMEM ? prof_fail(PROF_ENOMEM, "out of memory") :
				     err;
}

void report_diff_free(struct report_diff *d)
{
	if (!d)
		return;
	free(d->rows);
	free(d->ratio_base);
	free(d->ratio_new);
	free(d);
}
