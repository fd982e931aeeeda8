/* SPDX-License-Identifier: MIT */
/*
 * -by: rows split by task (command name, process, thread, CPU) and
 * object, and the whole profile's totals per value of the keys.  The
 * profile's task counts say how each count splits; a count that has none
 * (a statistic -pixie added) goes to the value "unknown".  Runs once the
 * rows have their counts and before their figures, so percentages,
 * ratios and the order are the split rows' own.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "report_int.h"

/* A row (SIZE_MAX: a total) and its values of the keys. */
struct bykey {
	size_t row;
	struct report_by by;
};

/* Keys with samples and weights per statistic, through a hash. */
struct bytable {
	size_t nstats;
	struct bykey *keys;
	size_t n, alloc_keys;
	uint64_t *vals;		/* per key: samples[], weight[] */
	size_t alloc_vals;
	struct hashmap index;		/* of keys */
};

static uint64_t key_hash(const struct bykey *k)
{
	uint64_t x = hash_mix64((uint64_t)k->row);

	x = hash_str(x, k->by.comm) ^ (k->by.comm ? 1 : 2);
	x = hash_mix64(x ^ (uint64_t)k->by.pid);
	x = hash_mix64(x ^ (uint64_t)k->by.tid);
	x = hash_mix64(x ^ (uint64_t)k->by.cpu);
	x = hash_mix64(x ^ (uint64_t)(uintptr_t)k->by.state);
	return hash_mix64(x ^ (uint64_t)(uintptr_t)k->by.object);
}

static int same_comm(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int key_eq(const struct bykey *x, const struct bykey *y)
{
	return x->row == y->row && x->by.pid == y->by.pid &&
	       x->by.tid == y->by.tid && x->by.cpu == y->by.cpu &&
	       x->by.object == y->by.object && x->by.state == y->by.state &&
	       same_comm(x->by.comm, y->by.comm);
}

/* table_add()'s lookup: whether key entry of the table is the key. */
struct key_lookup {
	const struct bytable *t;
	const struct bykey *k;
};

static int key_at(const void *ctx, size_t entry)
{
	const struct key_lookup *l = ctx;

	return key_eq(l->k, &l->t->keys[entry]);
}

/* Add samples and weight of statistic stat to key k. */
static int table_add(struct bytable *t, const struct bykey *k, size_t stat,
		     uint64_t samples, uint64_t weight)
{
	struct key_lookup l = { .t = t, .k = k };
	uint64_t h = key_hash(k);
	size_t i = hashmap_find(&t->index, h, key_at, &l);

	if (i == SIZE_MAX) {
		if (ALLOC_GROW(t->keys, t->n + 1, t->alloc_keys) ||
		    ALLOC_GROW(t->vals, (t->n + 1) * 2 * t->nstats,
			       t->alloc_vals) ||
		    hashmap_add(&t->index, h, t->n))
			return -PROF_ENOMEM;
		i = t->n++;
		t->keys[i] = *k;
		memset(t->vals + i * 2 * t->nstats, 0,
		       2 * t->nstats * sizeof(*t->vals));
	}
	t->vals[i * 2 * t->nstats + stat] += samples;
	t->vals[i * 2 * t->nstats + t->nstats + stat] += weight;
	return 0;
}

static void table_release(struct bytable *t)
{
	free(t->keys);
	free(t->vals);
	hashmap_release(&t->index);
}

static const char *const key_names[] = {
	"comm", "pid", "tid", "cpu", "object", "state",
};

int report_by_check(const struct report *r)
{
	const struct profile *p = r->prof;
	char keys[64] = "";
	size_t i;

	if (!(r->opt.by & REPORT_BY_TASK))
		return 0;
	/* Report-time -ra moves counts the task counts do not follow. */
	if (r->opt.nra)
		return prof_fail(PROF_EINVAL, "-by comm, pid, tid and cpu do "
				 "not combine with -ra at report time");
	if (p->ntasks || !p->ncounts)
		return 0;
	for (i = 0; i < sizeof(key_names) / sizeof(*key_names); i++)
		if ((r->opt.by & REPORT_BY_TASK) & (1u << i))
			snprintf(keys + strlen(keys),
				 sizeof(keys) - strlen(keys), "%s%s",
				 *keys ? "," : "", key_names[i]);
	return prof_fail(PROF_EINVAL, "'%s' has no per-task data for -by %s "
			 "(it was taken before profiles recorded tasks)",
			 r->opt.file ? r->opt.file : "the profile", keys);
}

/* The values of task t on cpu in object obj that the keys ask for. */
static struct report_by by_values(const struct report *r,
				  const struct prof_task *t, long cpu,
				  const char *object, long state)
{
	unsigned by = r->opt.by;
	struct report_by v = {
		.state = state >= 0 && (by & REPORT_BY_STATE) ?
			 profile_state_name((uint32_t)state) : NULL,
		.comm = t && (by & REPORT_BY_COMM) ? t->comm : NULL,
		.pid = t && (by & REPORT_BY_PID) ? (long)t->pid : -1,
		.tid = t && (by & REPORT_BY_TID) ? (long)t->tid : -1,
		.cpu = t && (by & REPORT_BY_CPU) && cpu != PROF_CPU_UNKNOWN ?
		       cpu : -1,
		.object = by & REPORT_BY_OBJECT ? object : NULL,
	};

	return v;
}

/* Rows split by task: the task counts, then what no task count has. */
static int split_task_rows(struct report *r, const size_t *trow,
			   struct bytable *t)
{
	const struct profile *p = r->prof;
	size_t ns = r->nstats, i, s;
	uint64_t *left = malloc((r->nrows ? r->nrows : 1) * 2 *
				(ns ? ns : 1) * sizeof(*left));
	int err = 0;

	if (!left)
		return -PROF_ENOMEM;
	for (i = 0; i < r->nrows; i++)
		for (s = 0; s < ns; s++) {
			left[i * 2 * ns + s] = r->rows[i].samples[s];
			left[i * 2 * ns + ns + s] = r->rows[i].weight[s];
		}
	for (i = 0; i < p->ntask_counts && !err; i++) {
		const struct prof_task_count *tc = &p->task_counts[i];
		const struct report_row *row;
		struct bykey k;

		if (trow[i] == SIZE_MAX || tc->stat >= ns)
			continue;
		row = &r->rows[trow[i]];
		k.row = trow[i];
		k.by = by_values(r, &p->tasks[tc->task], tc->cpu, row->object,
				 tc->state);
		err = table_add(t, &k, tc->stat, tc->samples, tc->weight);
		left[k.row * 2 * ns + tc->stat] -= tc->samples;
		left[k.row * 2 * ns + ns + tc->stat] -= tc->weight;
	}
	for (i = 0; i < r->nrows && !err; i++) {
		int any = 0;

		for (s = 0; s < ns && !err; s++) {
			uint64_t ls = left[i * 2 * ns + s];
			uint64_t lw = left[i * 2 * ns + ns + s];
			struct bykey k = { .row = i };

			any |= r->rows[i].samples[s] != 0;
			if (!ls && !lw)
				continue;
			k.by = by_values(r, NULL, -1, r->rows[i].object, -1);
			err = table_add(t, &k, s, ls, lw);
		}
		/* A row without samples stays (the asm listing shows
		 * every instruction of a procedure), under no task. */
		if (!any && !err) {
			struct bykey k = { .row = i };

			k.by = by_values(r, NULL, -1, r->rows[i].object, -1);
			err = table_add(t, &k, 0, 0, 0);
		}
	}
	free(left);
	return err;
}

/* The split rows in the order of the rows they split, each row's
 * hottest first (ctx: the table). */
static int cmp_split(const void *a, const void *b, void *ctx)
{
	const struct bytable *t = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b, s;
	const uint64_t *wx = t->vals + x * 2 * t->nstats + t->nstats;
	const uint64_t *wy = t->vals + y * 2 * t->nstats + t->nstats;

	if (t->keys[x].row != t->keys[y].row)
		return t->keys[x].row < t->keys[y].row ? -1 : 1;
	for (s = 0; s < t->nstats; s++)
		if (wx[s] != wy[s])
			return wx[s] > wy[s] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The rows the table holds replace r->rows. */
static int replace_rows(struct report *r, const struct bytable *t)
{
	size_t ns = r->nstats, i, k;
	struct report_row *rows = malloc((t->n ? t->n : 1) * sizeof(*rows));
	size_t *order = malloc((t->n ? t->n : 1) * sizeof(*order));
	int err = -PROF_ENOMEM;

	if (!rows || !order)
		goto fail;
	for (i = 0; i < t->n; i++)
		order[i] = i;
	qsort_r(order, t->n, sizeof(*order), cmp_split, (void *)t);
	for (i = 0; i < t->n; i++)
		rows[i] = r->rows[t->keys[order[i]].row];
	err = report_row_arrays(r, rows, t->n);
	if (err)
		goto fail;
	for (i = 0; i < t->n; i++) {
		struct report_row *row = &rows[i];

		k = order[i];
		memcpy(row->samples, t->vals + k * 2 * ns,
		       ns * sizeof(uint64_t));
		memcpy(row->weight, t->vals + k * 2 * ns + ns,
		       ns * sizeof(uint64_t));
		row->by = t->keys[k].by;
		/* Executions are estimated for the whole row only. */
		row->freq = NAN;
		row->execs = NAN;
		/* One block separator for the rows of one instruction. */
		if (i && t->keys[order[i - 1]].row == t->keys[k].row)
			row->block_start = 0;
	}
	free(order);
	free(r->rows);
	r->rows = rows;
	r->nrows = t->n;
	return 0;
fail:
	free(rows);
	free(order);
	return err;
}

/* The whole profile's figures per value of the keys. */
static int count_totals(const struct report *r, struct bytable *t)
{
	const struct profile *p = r->prof;
	size_t ns = r->nstats, i, s;
	uint64_t *left;
	int err = 0;

	if (!(r->opt.by & REPORT_BY_TASK)) {
		for (i = 0; i < p->ncounts && !err; i++) {
			const struct prof_count *c = &p->counts[i];
			struct bykey k = { .row = SIZE_MAX };

			if (c->stat >= ns)
				continue;
			k.by = by_values(r, NULL, -1, p->objects[c->obj].path, -1);
			err = table_add(t, &k, c->stat, c->samples, c->weight);
		}
		return err;
	}
	left = malloc(2 * (ns ? ns : 1) * sizeof(*left));
	if (!left)
		return -PROF_ENOMEM;
	for (s = 0; s < ns; s++) {
		left[s] = r->total_samples[s];
		left[ns + s] = r->total_weight[s];
	}
	for (i = 0; i < p->ntask_counts && !err; i++) {
		const struct prof_task_count *tc = &p->task_counts[i];
		struct bykey k = { .row = SIZE_MAX };

		if (tc->stat >= ns)
			continue;
		k.by = by_values(r, &p->tasks[tc->task], tc->cpu,
				 p->objects[tc->obj].path, tc->state);
		err = table_add(t, &k, tc->stat, tc->samples, tc->weight);
		left[tc->stat] -= tc->samples;
		left[ns + tc->stat] -= tc->weight;
	}
	/* What no task count has: the unknown value (by object too, that
	 * is not split further: -pixie's counts are rare). */
	for (s = 0; s < ns && !err; s++) {
		struct bykey k = { .row = SIZE_MAX };

		if (!left[s] && !left[ns + s])
			continue;
		k.by = by_values(r, NULL, -1, NULL, -1);
		err = table_add(t, &k, s, left[s], left[ns + s]);
	}
	free(left);
	return err;
}

int report_by_cmp(const struct report_row *x, const struct report_row *y)
{
	const struct report_by *a = &x->by, *b = &y->by;
	int c;

	if (!same_comm(a->comm, b->comm)) {
		if (!a->comm || !b->comm)
			return a->comm ? -1 : 1;
		if ((c = strcmp(a->comm, b->comm)))
			return c;
	}
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->object != b->object)
		return strcmp(a->object ? a->object : "",
			      b->object ? b->object : "");
	return 0;
}

/* Hottest first (weights of each statistic in turn), then by values. */
static int cmp_total(const void *a, const void *b, void *ctx)
{
	const struct report_by_total *x = a, *y = b;
	const size_t *ns = ctx;
	struct report_row rx = { .by = x->by }, ry = { .by = y->by };
	size_t s;

	for (s = 0; s < *ns; s++)
		if (x->weight[s] != y->weight[s])
			return x->weight[s] > y->weight[s] ? -1 : 1;
	return report_by_cmp(&rx, &ry);
}

static int make_totals(struct report *r, const struct bytable *t)
{
	size_t ns = r->nstats, i, s;
	struct report_by_total *tot;
	uint64_t *vals;
	double *pct;

	tot = report_alloc(r, t->n, sizeof(*tot));
	vals = report_alloc(r, t->n * 2 * ns, sizeof(*vals));
	pct = report_alloc(r, t->n * ns, sizeof(*pct));
	if (!tot || !vals || !pct)
		return -PROF_ENOMEM;
	memcpy(vals, t->vals, t->n * 2 * ns * sizeof(*vals));
	for (i = 0; i < t->n; i++) {
		tot[i].by = t->keys[i].by;
		tot[i].samples = vals + i * 2 * ns;
		tot[i].weight = vals + i * 2 * ns + ns;
		tot[i].percent = pct + i * ns;
		for (s = 0; s < ns; s++)
			tot[i].percent[s] = r->total_weight[s] ?
				100.0 * (double)tot[i].weight[s] /
				(double)r->total_weight[s] : 0;
	}
	if (t->n > 1)
		qsort_r(tot, t->n, sizeof(*tot), cmp_total, &ns);
	r->by_totals = tot;
	r->nby_totals = t->n;
	return 0;
}

int report_by_rows(struct report *r, const size_t *trow)
{
	struct bytable rows = { .nstats = r->nstats };
	size_t i;
	int err = 0;

	if (!r->opt.by || !r->nstats)
		return 0;
	if (r->opt.by & REPORT_BY_TASK) {
		err = split_task_rows(r, trow, &rows);
		if (!err)
			err = replace_rows(r, &rows);
	} else {
		/* By object only: a row is in one object already. */
		for (i = 0; i < r->nrows; i++)
			r->rows[i].by = by_values(r, NULL, -1,
						  r->rows[i].object, -1);
	}
	table_release(&rows);
	return err;
}

int report_by_totals(struct report *r)
{
	struct bytable totals = { .nstats = r->nstats };
	int err;

	if (!r->opt.by || !r->nstats)
		return 0;
	err = count_totals(r, &totals);
	if (!err)
		err = make_totals(r, &totals);
	table_release(&totals);
	return err;
}

int report_by_split(struct report *r, const size_t *trow)
{
	int err = report_by_rows(r, trow);

	return err ? err : report_by_totals(r);
}
