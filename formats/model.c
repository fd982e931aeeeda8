/* SPDX-License-Identifier: MIT */
/*
 * Building the report model: symbolize each unique address once, group
 * counts into rows, compute totals and percentages, sort, filter.
 */
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "report.h"
#include "symbolize.h"

/* Strings owned by the report (row keys are built from symbolizer strings,
 * which die with the symbolizer, so they are copied here). */
struct strpool {
	char **s;
	size_t n, alloc;
};

struct priv {
	struct strpool pool;
	uint64_t *nums;		/* backing store for per-row arrays */
	double *pcts;
	uint64_t *best;		/* per row: samples at the hottest address */
};

static const char *pool_dup(struct strpool *p, const char *s)
{
	char *d;

	if (!s)
		return NULL;
	/* Interning keeps memory bounded when many rows share a string. */
	for (size_t i = p->n; i-- > 0 && i + 64 > p->n;)
		if (!strcmp(p->s[i], s))
			return p->s[i];
	if (ALLOC_GROW(p->s, p->n + 1, p->alloc))
		return NULL;
	d = strdup(s);
	if (!d)
		return NULL;
	p->s[p->n++] = d;
	return d;
}

/* One unique (object, offset) with what the symbolizer said. */
struct site {
	uint32_t obj;
	uint64_t offset;
	uint64_t vaddr;
	const char *proc, *inl, *file, *module;
	unsigned line;
	size_t row;
};

struct row_key {
	size_t hash;
	size_t row;
};

static size_t str_hash(size_t h, const char *s)
{
	if (!s)
		return h * 31 + 7;
	while (*s)
		h = h * 131 + (unsigned char)*s++;
	return h * 31 + 1;
}

static int same_str(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

static int cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static const struct report *sort_ctx;

static int cmp_hot(const void *a, const void *b)
{
	const struct report_row *x = a, *y = b;
	size_t i;
	int c;

	for (i = 0; i < sort_ctx->nstats; i++) {
		if (x->weight[i] != y->weight[i])
			return x->weight[i] > y->weight[i] ? -1 : 1;
	}
	c = strcmp(x->procedure, y->procedure);
	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int cmp_str0(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_lines(const void *a, const void *b)
{
	const struct report_row *x = a, *y = b;
	int c;

	if ((c = cmp_str0(x->object, y->object)))
		return c;
	if ((c = cmp_str0(x->procedure, y->procedure)))
		return c;
	if ((c = cmp_str0(x->inlined_into, y->inlined_into)))
		return c;
	if ((c = cmp_str0(x->file, y->file)))
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int matches(const char *const *pats, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!fnmatch(pats[i], name, 0))
			return 1;
	return 0;
}

void report_free(struct report *r)
{
	struct priv *pv;
	size_t i;

	if (!r)
		return;
	pv = r->priv;
	if (pv) {
		for (i = 0; i < pv->pool.n; i++)
			free(pv->pool.s[i]);
		free(pv->pool.s);
		free(pv->nums);
		free(pv->pcts);
		free(pv->best);
		free(pv);
	}
	free(r->rows);
	free(r->stale);
	free(r->nosyms);
	free(r->total_samples);
	free(r->total_weight);
	free(r);
}

/* What we learnt about each object while resolving its addresses. */
#define OBJ_UNREADABLE	0x1
#define OBJ_STALE	0x2
#define OBJ_NAMED	0x4	/* some address had a symbol or a line */
#define OBJ_ANONYMOUS	0x8	/* some address had neither */

static int resolve_sites(const struct profile *p, struct symbolizer *sym,
			 struct strpool *pool, struct site **out,
			 size_t *nout, uint8_t *bad)
{
	struct site *sites = NULL;
	size_t n = 0, alloc = 0, i;

	for (i = 0; i < p->ncounts; i++) {
		if (ALLOC_GROW(sites, n + 1, alloc))
			goto oom;
		sites[n].obj = p->counts[i].obj;
		sites[n].offset = p->counts[i].offset;
		n++;
	}
	if (n > 1)
		qsort(sites, n, sizeof(*sites), cmp_site);
	/* Unique (object, offset): counts of several statistics share one. */
	if (n) {
		size_t k = 1;

		for (i = 1; i < n; i++)
			if (cmp_site(&sites[i], &sites[k - 1]))
				sites[k++] = sites[i];
		n = k;
	}
	for (i = 0; i < n; i++) {
		const struct prof_object *o = &p->objects[sites[i].obj];
		struct sym_object so = {
			.kind = (enum sym_obj_kind)o->kind,
			.path = o->path,
			.build_id = o->build_id_len ? o->build_id : NULL,
			.build_id_len = o->build_id_len,
		};
		struct sym_result res;
		const struct sym_frame *in, *out_f;
		int err;

		memset(&res, 0, sizeof(res));
		err = sym_resolve(sym, &so, sites[i].offset, &res);
		if (err)
			bad[sites[i].obj] |= OBJ_UNREADABLE;
		if (res.flags & SYM_F_STALE)
			bad[sites[i].obj] |= OBJ_STALE;
		bad[sites[i].obj] |= res.flags & (SYM_F_SYMBOL | SYM_F_DWARF) ?
				     OBJ_NAMED : OBJ_ANONYMOUS;
		if (res.nframes == 0) {
			res.nframes = 1;
			res.frames[0].function = "[unknown]";
		}
		in = &res.frames[0];
		out_f = &res.frames[res.nframes - 1];
		sites[i].proc = pool_dup(pool, in->function);
		sites[i].inl = res.nframes > 1 ?
			       pool_dup(pool, out_f->function) : NULL;
		sites[i].file = pool_dup(pool, in->file);
		sites[i].line = in->line;
		sites[i].module = pool_dup(pool, res.module);
		sites[i].vaddr = res.vaddr ? res.vaddr : sites[i].offset;
		if (!sites[i].proc)
			goto oom;
	}
	*out = sites;
	*nout = n;
	return 0;
oom:
	free(sites);
	return -PROF_ENOMEM;
}

static struct site *find_site(struct site *sites, size_t n, uint32_t obj,
			      uint64_t offset)
{
	struct site key = { .obj = obj, .offset = offset };

	return bsearch(&key, sites, n, sizeof(*sites), cmp_site);
}

int report_build(const struct profile *p, struct symbolizer *sym,
		 const struct report_options *opt, struct report **out)
{
	struct report *r;
	struct priv *pv;
	struct site *sites = NULL;
	uint8_t *objstate = NULL;
	size_t nsites = 0, i, j, ns;
	size_t *bucket = NULL, nbuckets;
	size_t alloc_rows = 0;
	int lines = opt->view != REPORT_PROCEDURES;
	int err = -PROF_ENOMEM;
	double cum = 0;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	pv = calloc(1, sizeof(*pv));
	if (!r || !pv) {
		free(r);
		free(pv);
		return prof_fail(PROF_ENOMEM, "out of memory");
	}
	r->priv = pv;
	r->prof = p;
	r->opt = *opt;
	r->nstats = ns = p->nstats;
	r->total_samples = calloc(ns ? ns : 1, sizeof(uint64_t));
	r->total_weight = calloc(ns ? ns : 1, sizeof(uint64_t));
	if (!r->total_samples || !r->total_weight)
		goto fail;
	for (i = 0; i < p->ncounts; i++) {
		r->total_samples[p->counts[i].stat] += p->counts[i].samples;
		r->total_weight[p->counts[i].stat] += p->counts[i].weight;
	}
	objstate = calloc(p->nobjects ? p->nobjects : 1, 1);
	r->stale = calloc(p->nobjects ? p->nobjects : 1, sizeof(char *));
	r->nosyms = calloc(p->nobjects ? p->nobjects : 1, sizeof(char *));
	if (!objstate || !r->stale || !r->nosyms)
		goto oom;
	err = resolve_sites(p, sym, &pv->pool, &sites, &nsites, objstate);
	if (err)
		goto fail;
	for (i = 0; i < p->nobjects; i++) {
		if (objstate[i] & OBJ_UNREADABLE)
			r->unresolved_objects++;
		else if (objstate[i] & OBJ_STALE)
			r->stale[r->nstale++] = p->objects[i].path;
		else if (p->objects[i].kind == PROF_OBJ_FILE &&
			 (objstate[i] & (OBJ_NAMED | OBJ_ANONYMOUS)) ==
			 OBJ_ANONYMOUS)
			r->nosyms[r->nnosyms++] = p->objects[i].path;
	}
	free(objstate);
	objstate = NULL;

	/* Group sites into rows through a hash of the row's identity. */
	nbuckets = 1;
	while (nbuckets < nsites * 2 + 16)
		nbuckets *= 2;
	bucket = malloc(nbuckets * sizeof(*bucket));
	if (!bucket)
		goto oom;
	for (i = 0; i < nbuckets; i++)
		bucket[i] = SIZE_MAX;
	for (i = 0; i < nsites; i++) {
		struct site *s = &sites[i];
		size_t h = str_hash(str_hash(str_hash(s->obj, s->proc),
					     s->inl), lines ? s->file : NULL);

		if (lines)
			h = h * 31 + s->line;
		h &= nbuckets - 1;
		for (;; h = (h + 1) & (nbuckets - 1)) {
			struct report_row *row;

			if (bucket[h] == SIZE_MAX) {
				if (ALLOC_GROW(r->rows, r->nrows + 1,
					       alloc_rows))
					goto oom;
				row = &r->rows[r->nrows];
				memset(row, 0, sizeof(*row));
				row->procedure = s->proc;
				row->inlined_into = s->inl;
				row->object = p->objects[s->obj].path;
				row->module = s->module;
				if (lines) {
					row->file = s->file;
					row->line = s->line;
				}
				row->address = s->vaddr;
				bucket[h] = r->nrows++;
				break;
			}
			row = &r->rows[bucket[h]];
			if (!strcmp(row->object, p->objects[s->obj].path) &&
			    same_str(row->procedure, s->proc) &&
			    same_str(row->inlined_into, s->inl) &&
			    (!lines || (same_str(row->file, s->file) &&
					row->line == s->line)))
				break;
		}
		s->row = bucket[h];
	}
	free(bucket);
	bucket = NULL;

	pv->nums = calloc((r->nrows ? r->nrows : 1) * ns * 2, sizeof(uint64_t));
	pv->pcts = calloc((r->nrows ? r->nrows : 1) * (ns ? ns : 1),
			  sizeof(double));
	pv->best = calloc(r->nrows ? r->nrows : 1, sizeof(uint64_t));
	if (!pv->nums || !pv->pcts || !pv->best)
		goto oom;
	for (i = 0; i < r->nrows; i++) {
		r->rows[i].samples = pv->nums + i * ns * 2;
		r->rows[i].weight = pv->nums + i * ns * 2 + ns;
		r->rows[i].percent = pv->pcts + i * ns;
	}
	for (i = 0; i < p->ncounts; i++) {
		const struct prof_count *c = &p->counts[i];
		struct site *s = find_site(sites, nsites, c->obj, c->offset);
		struct report_row *row;

		if (!s)
			continue;
		row = &r->rows[s->row];
		row->samples[c->stat] += c->samples;
		row->weight[c->stat] += c->weight;
		/* The row's address is its hottest instruction (first stat). */
		if (c->stat == 0 && c->samples > pv->best[s->row]) {
			pv->best[s->row] = c->samples;
			row->address = s->vaddr;
		}
	}
	free(sites);
	sites = NULL;
	for (i = 0; i < r->nrows; i++)
		for (j = 0; j < ns; j++)
			r->rows[i].percent[j] = r->total_weight[j] ?
				100.0 * (double)r->rows[i].weight[j] /
				(double)r->total_weight[j] : 0;

	sort_ctx = r;
	if (r->nrows > 1)
		qsort(r->rows, r->nrows, sizeof(*r->rows),
		      opt->view == REPORT_LINES ? cmp_lines : cmp_hot);
	r->nrows_all = r->nrows;

	/* Filters, then cumulative percentages, then -quit. */
	j = 0;
	for (i = 0; i < r->nrows; i++) {
		const struct report_row *row = &r->rows[i];

		if (opt->nonly && !matches(opt->only, opt->nonly,
					   row->procedure) &&
		    !(row->inlined_into && matches(opt->only, opt->nonly,
						   row->inlined_into)))
			continue;
		if (opt->nexclude && matches(opt->exclude, opt->nexclude,
					     row->procedure))
			continue;
		r->rows[j++] = *row;
	}
	r->nrows = j;
	for (i = 0; i < r->nrows; i++) {
		if (ns)
			cum += r->rows[i].percent[0];
		r->rows[i].cum_percent = cum > 100.0 ? 100.0 : cum;
		if (opt->quit_percent > 0 && opt->view != REPORT_LINES &&
		    ns && r->rows[i].percent[0] < opt->quit_percent)
			break;
	}
	r->nrows = i;
	if (opt->quit_rows && r->nrows > opt->quit_rows)
		r->nrows = opt->quit_rows;
	*out = r;
	return 0;
oom:
	err = -PROF_ENOMEM;
fail:
	free(bucket);
	free(sites);
	free(objstate);
	report_free(r);
	return prof_fail(err, "cannot build report: %s", prof_strerror(err));
}

/* ---- counting profiles: whole-run totals and ratios ------------------- */

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

int report_is_counting(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nstats; i++)
		if (!(p->stats[i].flags & PROF_STAT_COUNTING))
			return 0;
	return p->nstats > 0;
}

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

static struct report_ratio *add_ratio(struct report_counts *rc,
				      size_t *alloc, const char *name)
{
	struct report_ratio *q;
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
	const struct report_count *ret, *x;
	size_t i, alloc = 0;
	double secs = (double)p->duration_ns / 1e9;
	char name[96];

	*out = NULL;
	if (!rc)
		return prof_fail(PROF_ENOMEM, "out of memory");
	rc->prof = p;
	rc->file = file;
	rc->counts = calloc(p->nstats ? p->nstats : 1, sizeof(*rc->counts));
	if (!rc->counts)
		goto oom;
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
	ret = count_named(rc, "retinst");
	for (i = 0; i < rc->ncounts; i++) {
		const struct report_count *c = &rc->counts[i];
		const struct prof_stat *st = c->stat;
		struct report_ratio *q;
		int cyc = !strcmp(st->name, "cycles");

		if (st->type == PERF_TYPE_SOFTWARE) {
			int clock = st->config == PERF_COUNT_SW_TASK_CLOCK ||
				    st->config == PERF_COUNT_SW_CPU_CLOCK;

			if (clock)
				snprintf(name, sizeof(name), "%s_cpus",
					 st->name);
			else
				snprintf(name, sizeof(name), "%s_per_second",
					 st->name);
			q = add_ratio(rc, &alloc, name);
			if (!q)
				goto oom;
			q->inputs[0] = st->name;
			snprintf(q->formula, sizeof(q->formula), clock ?
				 "%s (ns) / duration (ns): CPUs used" :
				 "%s / duration (s)", st->name);
			if (secs > 0)
				q->value = clock ? c->scaled / (secs * 1e9) :
					   c->scaled / secs;
			continue;
		}
		if (!ret || c == ret || (st->flags & PROF_STAT_SUBSTITUTE))
			continue;
		snprintf(name, sizeof(name), "%s_per_ret", st->name);
		q = add_ratio(rc, &alloc, name);
		if (!q)
			goto oom;
		q->inputs[0] = st->name;
		q->inputs[1] = ret->stat->name;
		snprintf(q->formula, sizeof(q->formula), cyc ?
			 "%s / %s" : "100 * %s / %s", st->name,
			 ret->stat->name);
		if (ret->scaled > 0)
			q->value = (cyc ? 1.0 : 100.0) * c->scaled /
				   ret->scaled;
	}
	/* Ratios asked for by name, whether or not they could be made. */
	for (i = 0; i < p->nstats; i++) {
		const struct prof_stat *st = &p->stats[i];
		struct report_ratio *q;
		size_t n = strlen(st->name), sl = strlen("_per_ret");

		if (!(st->flags & PROF_STAT_DERIVED))
			continue;
		q = add_ratio(rc, &alloc, st->name);
		if (!q)
			goto oom;
		q->requested = 1;
		if (!q->inputs[0] && n > sl) {
			/* Inputs missing: say which were needed. */
			snprintf(name, sizeof(name), "%.*s", (int)(n - sl),
				 st->name);
			x = count_named(rc, name);
			q->inputs[0] = x ? x->stat->name : NULL;
			snprintf(q->formula, sizeof(q->formula),
				 "%s%s / retinst (not counted)",
				 strcmp(name, "cycles") ? "100 * " : "", name);
		}
	}
	*out = rc;
	return 0;
oom:
	report_counts_free(rc);
	return prof_fail(PROF_ENOMEM, "out of memory");
}

void report_counts_free(struct report_counts *rc)
{
	if (!rc)
		return;
	free(rc->counts);
	free(rc->ratios);
	free(rc);
}
