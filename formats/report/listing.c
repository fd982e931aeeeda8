/* SPDX-License-Identifier: MIT */
/*
 * The asm view's procedures.  A listing has a row per instruction of
 * every procedure shown, so its rows are never all made at once: the
 * build keeps a heading per procedure (object, name) and what its rows
 * are made of (its decoded code, its sampled sites, their counts), and
 * the rows of one procedure are made by the phases every view's rows go
 * through (sites named, grouped, filled, split by -by, given their
 * figures, arranged under their heading: resolve.c, rows.c, by.c,
 * asm.c).  They are made once while building, their text aside, for the
 * heading's totals, the listing's order, and the source files their
 * lines name; then again, with their text, when a writer asks
 * (report_asm_rows()), and dropped at the next procedure.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "build.h"
#include "symbolize/symbolize.h"

/* A source file a procedure's lines name: the lowest line they start. */
struct src_ref {
	const char *path;
	unsigned line;
};

/* What a procedure's rows are made of, and what their making told. */
struct lproc {
	size_t first_code, ncodes;	/* its codes: codes[first_code...] */
	struct site *sites;		/* sampled sites at no instruction
					 * start of its codes */
	size_t nsites, alloc_sites;
	struct prof_count *counts;	/* of its sites */
	size_t ncounts, alloc_counts;
	struct prof_task_count *tcounts;
	size_t ntcounts, alloc_tcounts;
	struct src_ref *srcs;		/* in the order lines name them */
	size_t nsrcs, alloc_srcs;
	struct source_place place;	/* once cut */
	size_t nrows;			/* its rows, the heading aside */
};

struct report_listing {
	struct symbolizer *sym;
	const struct sym_code **codes;	/* procedure by procedure */
	uint32_t *code_obj;
	size_t ncodes;
	struct lproc *procs;		/* as r->rows, the headings */
	size_t nprocs;
	/* The procedure made last: a report of its own (the whole one's
	 * figures, its own counts), whose rows a writer is given. */
	struct report sub;
	struct profile subp;
	struct priv subpriv;
	char *text;			/* its instructions' texts */
	size_t ntext, alloc_text;
	size_t *text_at;		/* per site: where its text starts */
	size_t alloc_text_at;
	/* While building: the executions of the sites that have some,
	 * summed at the end in the order of every view (freq's total). */
	struct site *execs;
	size_t nexecs, alloc_execs;
};

/* Drop the rows made last. */
static void drop_made(struct report_listing *l)
{
	free(l->sub.rows);
	l->sub.rows = NULL;
	l->sub.nrows = 0;
	report_arena_release(&l->subpriv);
	memset(&l->subpriv, 0, sizeof(l->subpriv));
}

void report_listing_release(struct priv *pv)
{
	struct report_listing *l = pv->listing;
	size_t k;

	free(pv->asm_pos);
	if (!l)
		return;
	drop_made(l);
	for (k = 0; k < l->nprocs; k++) {
		free(l->procs[k].sites);
		free(l->procs[k].counts);
		free(l->procs[k].tcounts);
		free(l->procs[k].srcs);
	}
	free(l->procs);
	free(l->codes);
	free(l->code_obj);
	free(l->text);
	free(l->text_at);
	free(l->execs);
	free(l);
}

/* The sites of procedure lp: every instruction of its codes and its
 * sampled sites, in (object, offset) order as every view has them. */
static int proc_sites(const struct report_listing *l, const struct lproc *lp,
		      struct build *sb)
{
	size_t k, i, n = lp->nsites;
	struct site *s;
	int sorted = 1;

	for (k = 0; k < lp->ncodes; k++)
		n += l->codes[lp->first_code + k]->ninsns;
	sb->sites = malloc((n ? n : 1) * sizeof(*sb->sites));
	if (!sb->sites)
		return -PROF_ENOMEM;
	s = sb->sites;
	for (k = 0; k < lp->ncodes; k++) {
		const struct sym_code *c = l->codes[lp->first_code + k];

		for (i = 0; i < c->ninsns; i++, s++) {
			memset(s, 0, sizeof(*s));
			s->obj = l->code_obj[lp->first_code + k];
			s->offset = c->insns[i].offset;
			report_site_attach(s, c, i);
		}
	}
	for (i = 0; i < lp->nsites; i++, s++) {
		memset(s, 0, sizeof(*s));
		s->obj = lp->sites[i].obj;
		s->offset = lp->sites[i].offset;
		s->code = lp->sites[i].code;
		s->insn = lp->sites[i].insn;
		s->block = lp->sites[i].block;
		s->len = lp->sites[i].len;
		s->block_start = lp->sites[i].block_start;
	}
	for (i = 1; i < n && sorted; i++)
		sorted = report_site_cmp(&sb->sites[i - 1], &sb->sites[i]) < 0;
	if (!sorted)
		report_sites_sort_unique(sb->sites, &n);
	sb->nsites = n;
	return 0;
}

/* Each instruction row's text, named (sym_insn_format()), kept in
 * l->text. */
static int make_texts(struct report_listing *l, struct build *sb)
{
	const struct profile *p = sb->r->prof;
	size_t i;

	if (ALLOC_GROW(l->text_at, sb->nsites, l->alloc_text_at))
		return -PROF_ENOMEM;
	l->ntext = 0;
	for (i = 0; i < sb->nsites; i++) {
		const struct site *s = &sb->sites[i];
		struct sym_object so;
		size_t len;

		l->text_at[i] = SIZE_MAX;
		if (!s->code || sb->r->rows[s->row].kind != ROW_INSN)
			continue;
		so = report_sym_obj(p, s->obj);
		for (;;) {
			if (ALLOC_GROW(l->text, l->ntext + 128, l->alloc_text))
				return -PROF_ENOMEM;
			len = sym_insn_format(l->sym, &so, s->code, s->insn,
					      l->text + l->ntext,
					      l->alloc_text - l->ntext);
			if (len < l->alloc_text - l->ntext)
				break;
			if (ALLOC_GROW(l->text, l->ntext + len + 1,
				       l->alloc_text))
				return -PROF_ENOMEM;
		}
		l->text_at[i] = l->ntext;
		l->ntext += len + 1;
	}
	for (i = 0; i < sb->nsites; i++)
		if (l->text_at[i] != SIZE_MAX)
			sb->r->rows[sb->sites[i].row].text =
				l->text + l->text_at[i];
	return 0;
}

/* -by: the rows split by the keys, through the row of each task count's
 * site. */
static int split_rows(struct build *sb)
{
	const struct profile *p = sb->r->prof;
	size_t *trow, i;
	int err;

	if (!sb->r->opt.by)
		return 0;
	trow = malloc((p->ntask_counts ? p->ntask_counts : 1) *
		      sizeof(*trow));
	if (!trow)
		return -PROF_ENOMEM;
	for (i = 0; i < p->ntask_counts; i++) {
		const struct site *s = report_site_find(sb->sites, sb->nsites,
						 p->task_counts[i].obj,
						 p->task_counts[i].offset);

		trow[i] = s ? s->row : SIZE_MAX;
	}
	err = report_by_rows(sb->r, trow);
	free(trow);
	return err;
}

/* Keep the sites' executions that are not 0, for freq's total. */
static int keep_execs(struct report_listing *l, const struct build *sb)
{
	size_t i;

	if (sb->r->freq_stat < 0)
		return 0;
	for (i = 0; i < sb->nsites; i++) {
		if (sb->sites[i].execs == 0)
			continue;
		if (ALLOC_GROW(l->execs, l->nexecs + 1, l->alloc_execs))
			return -PROF_ENOMEM;
		l->execs[l->nexecs++] = sb->sites[i];
	}
	return 0;
}

/*
 * The rows of procedure k of r, in l->sub.rows: its heading, then its
 * instructions.  While building (state: what resolving tells of each
 * object), their executions kept for freq's total; for a writer (state
 * NULL), their text.
 */
static int make_rows(struct report_listing *l, const struct report *r,
		     size_t k, uint8_t *state)
{
	int text = !state;
	const struct lproc *lp = &l->procs[k];
	struct build sb = { .sym = l->sym, .exact_stat = -1 };
	int err;

	drop_made(l);
	l->subp = *r->prof;
	l->subp.counts = lp->counts;
	l->subp.ncounts = lp->ncounts;
	l->subp.task_counts = lp->tcounts;
	l->subp.ntask_counts = lp->ntcounts;
	l->sub = *r;
	l->sub.prof = &l->subp;
	l->sub.priv = &l->subpriv;
	l->sub.rows = NULL;
	l->sub.nrows = 0;
	l->sub.total_freq = 0;
	sb.r = &l->sub;
	err = proc_sites(l, lp, &sb);
	if (!err)
		/* The rows live as long as the symbolizer at most. */
		err = report_resolve_sites(&l->sub, l->sym, sb.sites,
					   sb.nsites, state, 1);
	if (!err)
		err = report_rows_executions(&sb);
	if (!err && !text)
		err = keep_execs(l, &sb);
	if (!err)
		err = report_rows_group(&sb);
	if (!err)
		err = report_rows_fill(&sb);
	if (!err && text)
		err = make_texts(l, &sb);
	if (!err)
		err = split_rows(&sb);
	if (!err)
		err = report_rows_figures(&sb);
	if (!err)
		err = report_asm_arrange(&l->sub);
	free(sb.sites);
	return err;
}

/* A procedure's member while grouping: a code or a sampled site. */
struct member {
	const char *object, *name;
	uint64_t start;			/* the procedure's entry */
	size_t code, site;		/* SIZE_MAX: not one */
};

/* Members of one procedure: of one object, name and entry (two of one
 * name, a JIT's function compiled again, are two, as in asm.c). */
static int cmp_proc(const struct member *x, const struct member *y)
{
	int c = report_cmp_str0(x->object, y->object);

	if (c || (c = report_cmp_str0(x->name, y->name)))
		return c;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	int c = cmp_proc(x, y);

	if (c)
		return c;
	if (x->code != y->code)
		return x->code < y->code ? -1 : 1;
	return x->site < y->site ? -1 : x->site > y->site;
}

/* A decoded procedure of an object, for finding a site's. */
struct owner {
	uint32_t obj;
	const struct sym_code *code;
	size_t k;			/* index into b->codes */
};

static int cmp_owner(const void *a, const void *b)
{
	const struct owner *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->code != y->code)
		return (uintptr_t)x->code < (uintptr_t)y->code ? -1 : 1;
	return 0;
}

/* The index into b->codes of the code site s is an instruction of, or
 * SIZE_MAX. */
static size_t owner_of(const struct owner *o, size_t n, const struct site *s)
{
	struct owner key = { .obj = s->obj, .code = s->code };
	const struct owner *at;

	if (!s->code)
		return SIZE_MAX;
	at = bsearch(&key, o, n, sizeof(*o), cmp_owner);
	return at ? at->k : SIZE_MAX;
}

/* The members of every procedure, sorted: b's codes, and the sampled
 * sites none of them has (site_code[i]: the code of site i, or
 * SIZE_MAX). */
static struct member *members(struct build *b, const size_t *site_code,
			      size_t *n)
{
	const struct profile *p = b->r->prof;
	struct member *m = malloc((b->ncodes + b->nsites + 1) * sizeof(*m));
	size_t i, k = 0;

	if (!m)
		return NULL;
	for (i = 0; i < b->ncodes; i++)
		m[k++] = (struct member){ p->objects[b->code_obj[i]].path,
					  b->codes[i]->procedure,
					  b->codes[i]->start, i, SIZE_MAX };
	for (i = 0; i < b->nsites; i++)
		if (site_code[i] == SIZE_MAX)
			m[k++] = (struct member){
				p->objects[b->sites[i].obj].path,
				report_site_outer(&b->sites[i]),
				b->sites[i].start, SIZE_MAX, i };
	if (k > 1)
		qsort(m, k, sizeof(*m), cmp_member);
	*n = k;
	return m;
}

/* The procedure of each sampled site (site_proc), from its code's or
 * its own member's. */
static int group(struct report_listing *l, struct build *b,
		 const size_t *site_code, size_t *site_proc)
{
	size_t nm = 0, i, *code_proc;
	struct member *m = members(b, site_code, &nm);
	int err = -PROF_ENOMEM;

	code_proc = malloc((b->ncodes + 1) * sizeof(*code_proc));
	l->codes = malloc((b->ncodes + 1) * sizeof(*l->codes));
	l->code_obj = malloc((b->ncodes + 1) * sizeof(*l->code_obj));
	l->procs = calloc(nm + 1, sizeof(*l->procs));
	if (!m || !code_proc || !l->codes || !l->code_obj || !l->procs)
		goto out;
	for (i = 0; i < nm; i++) {
		struct lproc *lp;

		if (!i || cmp_proc(&m[i], &m[i - 1]))
			l->procs[l->nprocs++].first_code = l->ncodes;
		lp = &l->procs[l->nprocs - 1];
		if (m[i].code != SIZE_MAX) {
			l->codes[l->ncodes] = b->codes[m[i].code];
			l->code_obj[l->ncodes++] = b->code_obj[m[i].code];
			lp->ncodes++;
			code_proc[m[i].code] = l->nprocs - 1;
			continue;
		}
		if (ALLOC_GROW(lp->sites, lp->nsites + 1, lp->alloc_sites))
			goto out;
		lp->sites[lp->nsites++] = b->sites[m[i].site];
		site_proc[m[i].site] = l->nprocs - 1;
	}
	for (i = 0; i < b->nsites; i++)
		if (site_code[i] != SIZE_MAX)
			site_proc[i] = code_proc[site_code[i]];
	err = 0;
out:
	free(m);
	free(code_proc);
	return err;
}

/* Each count and task count to the procedure of its site. */
static int share_counts(struct report_listing *l, struct build *b,
			const size_t *site_proc)
{
	const struct profile *p = b->r->prof;
	size_t i;

	for (i = 0; i < p->ncounts; i++) {
		const struct site *s = report_site_find(b->sites, b->nsites,
						 p->counts[i].obj,
						 p->counts[i].offset);
		struct lproc *lp;

		if (!s)
			continue;
		lp = &l->procs[site_proc[s - b->sites]];
		if (ALLOC_GROW(lp->counts, lp->ncounts + 1, lp->alloc_counts))
			return -PROF_ENOMEM;
		lp->counts[lp->ncounts++] = p->counts[i];
	}
	for (i = 0; i < p->ntask_counts && b->r->opt.by; i++) {
		const struct prof_task_count *tc = &p->task_counts[i];
		const struct site *s = report_site_find(b->sites, b->nsites,
							tc->obj, tc->offset);
		struct lproc *lp;

		if (!s)
			continue;
		lp = &l->procs[site_proc[s - b->sites]];
		if (ALLOC_GROW(lp->tcounts, lp->ntcounts + 1,
			       lp->alloc_tcounts))
			return -PROF_ENOMEM;
		lp->tcounts[lp->ntcounts++] = *tc;
	}
	return 0;
}

/* The procedures and what each is made of. */
static int procedures(struct report_listing *l, struct build *b)
{
	size_t *site_code, *site_proc, i;
	struct owner *o;
	int err = -PROF_ENOMEM;

	site_code = malloc((b->nsites + 1) * sizeof(*site_code));
	site_proc = malloc((b->nsites + 1) * sizeof(*site_proc));
	o = malloc((b->ncodes + 1) * sizeof(*o));
	if (!site_code || !site_proc || !o)
		goto out;
	for (i = 0; i < b->ncodes; i++)
		o[i] = (struct owner){ b->code_obj[i], b->codes[i], i };
	if (b->ncodes > 1)
		qsort(o, b->ncodes, sizeof(*o), cmp_owner);
	for (i = 0; i < b->nsites; i++)
		site_code[i] = owner_of(o, b->ncodes, &b->sites[i]);
	err = group(l, b, site_code, site_proc);
	if (!err)
		err = share_counts(l, b, site_proc);
out:
	free(site_code);
	free(site_proc);
	free(o);
	return err;
}

/* The source files procedure lp's rows name, each once, with the
 * lowest line that starts a run of them (report_asm_line_starts(), no
 * file read yet). */
static int note_sources(struct report *r, struct lproc *lp,
			struct report_row *rows, size_t n)
{
	const struct source_place nowhere = { 0 };
	size_t i, k;

	report_asm_line_starts(r, &nowhere, rows, n);
	for (i = 0; i < n; i++) {
		const struct report_row *row = &rows[i];

		if (!row->line_start)
			continue;
		for (k = 0; k < lp->nsrcs; k++)
			if (!strcmp(lp->srcs[k].path, row->file))
				break;
		if (k < lp->nsrcs) {
			if (row->line < lp->srcs[k].line)
				lp->srcs[k].line = row->line;
			continue;
		}
		if (ALLOC_GROW(lp->srcs, lp->nsrcs + 1, lp->alloc_srcs))
			return -PROF_ENOMEM;
		lp->srcs[k].path = report_pool_dup(r, row->file);
		lp->srcs[k].line = row->line;
		if (!lp->srcs[lp->nsrcs++].path)
			return -PROF_ENOMEM;
	}
	return 0;
}

/* heads[k] from the heading made: its figures in r's memory, its names
 * in r's pool. */
static int keep_heading(struct report *r, struct report_row *h,
			const struct report_row *made)
{
	size_t ns = r->nstats, nr = r->nratios;
	uint64_t *samples = h->samples, *weight = h->weight;
	double *percent = h->percent, *ratio = h->ratio, *average = h->average;
	unsigned char *low = h->ratio_low;

	*h = *made;
	h->samples = samples;
	h->weight = weight;
	h->percent = percent;
	h->ratio = ratio;
	h->ratio_low = low;
	h->average = average;
	memcpy(samples, made->samples, ns * sizeof(*samples));
	memcpy(weight, made->weight, ns * sizeof(*weight));
	memcpy(percent, made->percent, ns * sizeof(*percent));
	memcpy(ratio, made->ratio, nr * sizeof(*ratio));
	memcpy(low, made->ratio_low, nr);
	if (average)
		memcpy(average, made->average, ns * sizeof(*average));
	h->procedure = report_pool_dup(r, made->procedure);
	h->module = report_pool_dup(r, made->module);
	return h->procedure ? 0 : -PROF_ENOMEM;
}

/* freq's total: the executions summed in (object, offset) order. */
static void total_freq(struct report *r, struct report_listing *l)
{
	size_t i;

	if (r->freq_stat < 0)
		return;
	if (l->nexecs > 1)
		qsort(l->execs, l->nexecs, sizeof(*l->execs), report_site_cmp);
	for (i = 0; i < l->nexecs; i++)
		r->total_freq += l->execs[i].execs;
	free(l->execs);
	l->execs = NULL;
	l->nexecs = l->alloc_execs = 0;
}

/* The headings and procedures in the listing's order. */
static int arrange(struct report *r, struct report_listing *l,
		   struct report_row *heads)
{
	size_t n = l->nprocs, *order = malloc((n + 1) * sizeof(*order)), i;
	struct report_row *rows = malloc((n + 1) * sizeof(*rows));
	struct lproc *procs = malloc((n + 1) * sizeof(*procs));

	if (!order || !rows || !procs) {
		free(order);
		free(rows);
		free(procs);
		return -PROF_ENOMEM;
	}
	report_asm_order(r, heads, order, n);
	for (i = 0; i < n; i++) {
		rows[i] = heads[order[i]];
		procs[i] = l->procs[order[i]];
	}
	free(order);
	free(l->procs);
	l->procs = procs;
	r->rows = rows;
	r->nrows = n;
	return 0;
}

int report_listing_build(struct build *b)
{
	struct report *r = b->r;
	struct priv *pv = r->priv;
	struct report_listing *l = calloc(1, sizeof(*l));
	struct report_row *heads = NULL;
	size_t k;
	int err;

	if (!l)
		return -PROF_ENOMEM;
	pv->listing = l;
	l->sym = b->sym;
	b->exact_stat = report_find_exact(r->prof);
	r->exact_execs = b->exact_stat >= 0;
	r->freq_stat = report_find_retired(r->prof, 0);
	err = procedures(l, b);
	if (!err) {
		heads = calloc(l->nprocs + 1, sizeof(*heads));
		if (!heads)
			err = -PROF_ENOMEM;
	}
	if (!err)
		err = report_row_arrays(r, heads, l->nprocs);
	for (k = 0; k < l->nprocs && !err; k++) {
		struct lproc *lp = &l->procs[k];

		/* Their instructions resolved for the notes on objects. */
		err = make_rows(l, r, k, b->state);
		if (err)
			break;
		lp->nrows = l->sub.nrows - 1;
		err = keep_heading(r, &heads[k], &l->sub.rows[0]);
		if (!err)
			err = note_sources(r, lp, l->sub.rows + 1, lp->nrows);
	}
	drop_made(l);
	if (!err) {
		total_freq(r, l);
		err = arrange(r, l, heads);
	}
	free(heads);
	return err;
}

void report_listing_filter(struct report *r)
{
	struct report_listing *l = ((struct priv *)r->priv)->listing;
	size_t i, j = 0;

	for (i = 0; i < r->nrows; i++) {
		if (report_name_filtered(&r->opt, r->rows[i].procedure)) {
			free(l->procs[i].sites);
			free(l->procs[i].counts);
			free(l->procs[i].tcounts);
			free(l->procs[i].srcs);
			continue;
		}
		l->procs[j] = l->procs[i];
		r->rows[j++] = r->rows[i];
	}
	r->nrows = l->nprocs = j;
}

int report_listing_cut(struct report *r, struct symbolizer *sym,
		       size_t nprocs_all)
{
	const struct report_options *opt = &r->opt;
	struct priv *pv = r->priv;
	struct report_listing *l = pv->listing;
	size_t i, k, at = 0;
	double cum = 0;

	r->nrows_all = nprocs_all != SIZE_MAX ? nprocs_all : r->nrows;
	for (i = 0; i < r->nrows; i++) {
		struct report_row *row = &r->rows[i];
		struct lproc *lp = &l->procs[i];

		lp->place = report_asm_place(r, sym, row->object);
		if (r->nstats)
			cum += row->percent[0];
		row->cum_percent = cum > 100.0 ? 100.0 : cum;
		if (report_quit_reached(opt->quit_rows, opt->quit_percent, i,
					r->nstats ? &row->percent[0] : NULL))
			break;
		for (k = 0; k < lp->nsrcs; k++)
			report_asm_read_source(r, &lp->place, lp->srcs[k].path,
					       lp->srcs[k].line);
	}
	r->nrows = i;
	pv->asm_pos = malloc((r->nrows + 1) * sizeof(*pv->asm_pos));
	if (!pv->asm_pos)
		return -PROF_ENOMEM;
	for (i = 0; i < r->nrows; i++) {
		pv->asm_pos[i] = at;
		at += 1 + l->procs[i].nrows;
	}
	return 0;
}

int report_asm_rows(const struct report *r, size_t k,
		    const struct report_row **rows, size_t *n, size_t *first)
{
	const struct priv *pv = r->priv;
	struct report_listing *l = pv->listing;
	int err;

	*rows = NULL;
	*n = 0;
	*first = 0;
	if (!l || k >= r->nrows)
		return 0;
	err = make_rows(l, r, k, NULL);
	if (err) {
		drop_made(l);
		return err;
	}
	report_asm_line_starts(r, &l->procs[k].place, l->sub.rows + 1,
			       l->sub.nrows - 1);
	*rows = l->sub.rows + 1;
	*n = l->sub.nrows - 1;
	*first = pv->asm_pos[k] + 1;
	return 0;
}
