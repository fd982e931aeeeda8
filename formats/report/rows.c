/* SPDX-License-Identifier: MIT */
/*
 * The rows: sites grouped by their identity in the view, their counts,
 * executions and figures; their order, -only/-exclude and -quit (the
 * asm view's arrangement and cut are asm.c's).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "build.h"
#include "symbolize/symbolize.h"

/* Hottest first: by the weight of each of the nstats statistics in
 * turn, then freq, then name and place. */
int report_row_hotter(const struct report_row *x, const struct report_row *y,
		  size_t nstats)
{
	size_t i;
	int c;

	for (i = 0; i < nstats; i++) {
		if (x->weight[i] != y->weight[i])
			return x->weight[i] > y->weight[i] ? -1 : 1;
	}
	if (x->freq != y->freq && !isnan(x->freq) && !isnan(y->freq))
		return x->freq > y->freq ? -1 : 1;
	c = strcmp(x->procedure, y->procedure);
	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	return report_by_cmp(x, y);
}

/* report_row_hotter() for qsort_r; ctx is the report. */
static int cmp_hot(const void *a, const void *b, void *ctx)
{
	const struct report *r = ctx;

	return report_row_hotter(a, b, r->nstats);
}

static int cmp_lines(const void *a, const void *b)
{
	const struct report_row *x = a, *y = b;
	int c;

	if ((c = report_cmp_str0(x->object, y->object)))
		return c;
	if ((c = report_cmp_str0(x->procedure, y->procedure)))
		return c;
	if ((c = report_cmp_str0(x->inlined_into, y->inlined_into)))
		return c;
	if ((c = report_cmp_str0(x->file, y->file)))
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* cmp_lines(), the rows of one line (split by -by) hottest first; ctx
 * is the report. */
static int cmp_lines_hot(const void *a, const void *b, void *ctx)
{
	int c = cmp_lines(a, b);

	return c ? c : cmp_hot(a, b, ctx);
}

/* freq: the retired statistic averaged over each basic block. */
static void estimate_execs(struct site *sites, size_t n,
			   const uint64_t *site_retired)
{
	size_t i = 0;

	while (i < n) {
		const struct sym_code *code = sites[i].code;
		size_t j = i + 1;

		if (!code) {
			sites[i].execs = (double)site_retired[i];
			i++;
			continue;
		}
		/* Sites of one procedure are adjacent and in insn order. */
		while (j < n && sites[j].code == code && sites[j].obj ==
		       sites[i].obj)
			j++;
		for (size_t a = i; a < j;) {
			uint32_t blk = sites[a].block;
			size_t b = a;
			double sum = 0;

			while (b < j && sites[b].block == blk)
				sum += (double)site_retired[b++];
			/* Every instruction of the block is a site, so
			 * b - a is the block's instruction count. */
			for (size_t c = a; c < b; c++)
				sites[c].execs = sum / (double)(b - a);
			a = b;
		}
		i = j;
	}
}

/* Executions of each site: exact counts if any, else the retired
 * statistic averaged over basic blocks (freq); and freq's total. */
int report_rows_executions(struct build *b)
{
	struct report *r = b->r;
	const struct profile *p = r->prof;
	uint64_t *ret;
	size_t i;

	if (b->listing)
		return 0;
	b->exact_stat = report_find_exact(p);
	r->exact_execs = b->exact_stat >= 0;
	r->freq_stat = report_find_retired(p, 0);
	ret = calloc(b->nsites ? b->nsites : 1, sizeof(*ret));
	if (!ret)
		return -PROF_ENOMEM;
	for (i = 0; i < p->ncounts; i++) {
		const struct prof_count *c = &p->counts[i];
		struct site *s;

		if ((long)c->stat != r->freq_stat &&
		    (long)c->stat != b->exact_stat)
			continue;
		s = report_site_find(b->sites, b->nsites, c->obj, c->offset);
		if (!s)
			continue;
		if ((long)c->stat == r->freq_stat)
			ret[s - b->sites] += c->weight;
		if ((long)c->stat == b->exact_stat)
			s->exact += c->weight;
	}
	if (r->freq_stat >= 0) {
		estimate_execs(b->sites, b->nsites, ret);
		for (i = 0; i < b->nsites; i++)
			r->total_freq += b->sites[i].execs;
	}
	free(ret);
	return 0;
}

/* With b->select, the sites whose rows -only/-exclude leave out (their
 * procedures named now). */
int report_rows_select(struct build *b)
{
	size_t i, j = 0;

	if (!b->select)
		return 0;
	for (i = 0; i < b->nsites; i++)
		if (!report_name_filtered(&b->r->opt,
					  report_site_outer(&b->sites[i])))
			b->sites[j++] = b->sites[i];
	b->nsites = j;
	return 0;
}

static void init_row(const struct report *r, struct symbolizer *sym,
		     struct report_row *row,
		     const struct site *s)
{
	enum report_view v = r->opt.view;

	memset(row, 0, sizeof(*row));
	row->object = r->prof->objects[s->obj].path;
	row->module = s->module;
	row->address = s->vaddr;
	row->end = s->vaddr;
	row->freq = NAN;
	row->execs = NAN;
	row->total_percent = NAN;
	row->by.pid = row->by.tid = row->by.cpu = -1;
	switch (v) {
	case REPORT_PROCEDURES:
		row->kind = ROW_PROCEDURE;
		row->procedure = r->opt.inline_split ? s->proc :
				 report_site_outer(s);
		row->inlined_into = r->opt.inline_split ? s->inl : NULL;
		row->start = s->start;
		break;
	case REPORT_LINES:
	case REPORT_HEAVY:
		row->kind = ROW_LINE;
		row->procedure = s->proc;
		row->inlined_into = s->inl;
		row->file = s->file;
		row->line = s->line;
		break;
	case REPORT_BLOCKS:
		row->kind = ROW_BLOCK;
		row->procedure = report_site_outer(s);
		row->file = s->file;
		row->line = s->line;
		row->block = s->code ? s->block : 0;
		break;
	case REPORT_ASM:
	case REPORT_BUCKETS:
		row->kind = s->code && r->opt.stride >= 0 ? ROW_BUCKET
							  : ROW_INSN;
		row->procedure = report_site_outer(s);
		row->start = s->start;
		row->file = s->file;
		row->line = s->line;
		if (s->code) {
			/* An instruction's text comes with the listing's
			 * rows, named; a bucket shows its first plain. */
			if (row->kind == ROW_BUCKET)
				row->text = sym_insn_plain_text(sym, s->code,
								s->insn);
			row->block = s->block;
			row->block_start = s->block_start;
		}
		break;
	}
}

/* Extend a block or bucket row by a site (sites come in address order). */
static void extend_row(struct report_row *row, const struct site *s)
{
	uint64_t end = s->vaddr;

	if (s->code)
		end += s->len;
	if (s->vaddr < row->address) {
		row->address = s->vaddr;
		row->file = s->file;
		row->line = s->line;
	}
	if (end > row->end)
		row->end = end;
	if (s->file && report_same_str(s->file, row->file) &&
	    s->line > row->last_line)
		row->last_line = s->line;
}

/* report_rows_group()'s lookup: whether row entry has the key. */
struct key_lookup {
	const struct rowkey *keys, *k;
};

static int key_at(const void *ctx, size_t entry)
{
	const struct key_lookup *l = ctx;

	return report_key_eq(l->k, &l->keys[entry]);
}

/* One row per identity the view gives sites (procedure, line, block,
 * ...), found through a hash of it. */
int report_rows_group(struct build *b)
{
	struct report *r = b->r;
	struct rowkey *keys = NULL;
	struct hashmap index = HASHMAP_INIT;
	size_t alloc_rows = 0, alloc_keys = 0, i;
	int err = 0;

	if (b->listing)
		return 0;
	/* One row per instruction: sites are unique (object, offset), and
	 * so are their keys. */
	if (r->opt.view == REPORT_ASM && r->opt.stride < 0) {
		r->rows = malloc((b->nsites ? b->nsites : 1) *
				 sizeof(*r->rows));
		if (!r->rows)
			return -PROF_ENOMEM;
		for (i = 0; i < b->nsites; i++) {
			init_row(r, b->sym, &r->rows[i], &b->sites[i]);
			b->sites[i].row = i;
		}
		r->nrows = b->nsites;
		return 0;
	}
	for (i = 0; i < b->nsites; i++) {
		struct site *s = &b->sites[i];
		struct rowkey k;
		struct key_lookup l = { .k = &k };
		uint64_t h;
		size_t at;

		report_site_key(r, s, &k);
		/* The instructions of a block come in a run. */
		if (i && report_key_eq(&k, &keys[s[-1].row])) {
			s->row = s[-1].row;
			continue;
		}
		h = report_key_hash(&k);
		l.keys = keys;
		at = hashmap_find(&index, h, key_at, &l);
		if (at != SIZE_MAX) {
			s->row = at;
			continue;
		}
		if (ALLOC_GROW(r->rows, r->nrows + 1, alloc_rows) ||
		    ALLOC_GROW(keys, r->nrows + 1, alloc_keys) ||
		    hashmap_add(&index, h, r->nrows)) {
			err = -PROF_ENOMEM;
			break;
		}
		init_row(r, b->sym, &r->rows[r->nrows], s);
		keys[r->nrows] = k;
		s->row = r->nrows++;
	}
	hashmap_release(&index);
	free(keys);
	return err;
}

/* What each row gets from its sites' code: extent, disassembly,
 * executions. */
static void rows_from_code(struct build *b)
{
	struct report *r = b->r;
	size_t i;

	for (i = 0; i < b->nsites; i++) {
		const struct site *s = &b->sites[i];
		struct report_row *row = &r->rows[s->row];

		if (row->kind == ROW_BLOCK || row->kind == ROW_BUCKET) {
			extend_row(row, s);
		} else if (row->kind == ROW_INSN && s->code) {
			/* The text is the listing's (listing.c), made only
			 * for the rows a writer shows. */
			row->end = s->vaddr + s->len;
		}
		if (r->freq_stat >= 0) {
			double e = r->exact_execs ? (double)s->exact
						  : s->execs;

			row->freq = (isnan(row->freq) ? 0 : row->freq) +
				    s->execs;
			row->execs = (isnan(row->execs) ? 0 : row->execs) + e;
		}
	}
}

/* A block's freq is how often the block ran: the mean over its
 * instructions (each instruction's is the same estimate). */
static int block_freq(struct build *b)
{
	struct report *r = b->r;
	size_t *ninsns, i;

	if (r->opt.view != REPORT_BLOCKS || r->freq_stat < 0)
		return 0;
	ninsns = calloc(r->nrows ? r->nrows : 1, sizeof(*ninsns));
	if (!ninsns)
		return -PROF_ENOMEM;
	for (i = 0; i < b->nsites; i++)
		ninsns[b->sites[i].row]++;
	for (i = 0; i < r->nrows; i++)
		if (ninsns[i] && !isnan(r->rows[i].freq))
			r->rows[i].freq /= (double)ninsns[i];
	free(ninsns);
	return 0;
}

/* Each row's counts; a procedure's or line's address is its hottest
 * instruction (first statistic). */
static int count_rows(struct build *b)
{
	struct report *r = b->r;
	const struct profile *p = r->prof;
	uint64_t *best = calloc(r->nrows ? r->nrows : 1, sizeof(*best));
	size_t i;

	if (!best)
		return -PROF_ENOMEM;
	for (i = 0; i < p->ncounts; i++) {
		const struct prof_count *c = &p->counts[i];
		struct site *s = report_site_find(b->sites, b->nsites, c->obj,
					   c->offset);
		struct report_row *row;

		if (!s)
			continue;
		row = &r->rows[s->row];
		row->samples[c->stat] += c->samples;
		row->weight[c->stat] += c->weight;
		if ((row->kind == ROW_PROCEDURE || row->kind == ROW_LINE) &&
		    c->stat == 0 && c->samples > best[s->row]) {
			best[s->row] = c->samples;
			row->address = s->vaddr;
		}
	}
	free(best);
	return 0;
}

/* The rows' own figures: code, executions, counts. */
int report_rows_fill(struct build *b)
{
	int err;

	if (b->listing)
		return 0;
	err = report_row_arrays(b->r, b->r->rows, b->r->nrows);
	if (err)
		return err;
	rows_from_code(b);
	err = block_freq(b);
	return err ? err : count_rows(b);
}

static int row_has_data(const struct report *r, const struct report_row *row)
{
	size_t s;

	for (s = 0; s < r->nstats; s++)
		if (row->samples[s])
			return 1;
	return !isnan(row->freq) && row->freq > 0;
}

/*
 * Rows made only of instructions that were never sampled and never ran
 * (they were added to complete blocks) are not shown, except in the asm
 * listing of a procedure.  The others get percentages and ratios.
 */
int report_rows_figures(struct build *b)
{
	struct report *r = b->r;
	size_t i, j;

	if (b->listing)
		return 0;
	if (r->opt.view != REPORT_ASM) {
		for (i = j = 0; i < r->nrows; i++)
			if (row_has_data(r, &r->rows[i]))
				r->rows[j++] = r->rows[i];
		r->nrows = j;
	}
	for (i = 0; i < r->nrows; i++) {
		struct report_row *row = &r->rows[i];

		for (j = 0; j < r->nstats; j++)
			row->percent[j] = r->total_weight[j] ?
				100.0 * (double)row->weight[j] /
				(double)r->total_weight[j] : 0;
		report_row_derived(r, row);
	}
	return 0;
}

/* -only and -exclude select code by the out-of-line procedure it is in
 * (code inlined into f is f's), the same in every view. */
static int filtered_out(const struct report_options *opt,
			const struct report_row *row)
{
	return report_name_filtered(opt, row->inlined_into ?
				    row->inlined_into : row->procedure);
}

/* -only, -exclude; in the asm view a heading and its instructions have
 * the same procedure, so they go together. */
int report_rows_filter(struct build *b)
{
	struct report *r = b->r;
	size_t i, j = 0;

	for (i = 0; i < r->nrows; i++) {
		if (filtered_out(&r->opt, &r->rows[i]))
			continue;
		r->rows[j++] = r->rows[i];
	}
	r->nrows = j;
	return 0;
}

void report_rows_sort(struct report *r)
{
	if (r->nrows > 1 && r->opt.view == REPORT_LINES)
		qsort_r(r->rows, r->nrows, sizeof(*r->rows), cmp_lines_hot, r);
	else if (r->nrows > 1)
		qsort_r(r->rows, r->nrows, sizeof(*r->rows), cmp_hot, r);
}

void report_rows_cut(struct report *r)
{
	const struct report_options *opt = &r->opt;
	double cum = 0;
	size_t i;

	/* -lines lists a procedure's lines in order: a percentage cannot
	 * end it. */
	for (i = 0; i < r->nrows; i++) {
		const double *pc = r->nstats && opt->view != REPORT_LINES ?
				   &r->rows[i].percent[0] : NULL;

		if (r->nstats)
			cum += r->rows[i].percent[0];
		r->rows[i].cum_percent = cum > 100.0 ? 100.0 : cum;
		if (report_quit_reached(opt->quit_rows, opt->quit_percent, i,
					pc))
			break;
	}
	r->nrows = i;
}
