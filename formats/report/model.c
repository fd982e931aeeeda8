/* SPDX-License-Identifier: MIT */
/*
 * Building the report model: the phases of report_build, in order, each
 * a step of the files below it (build.h): code.c finds the sites,
 * resolve.c names them, rows.c groups them into rows and gives them
 * their figures, asm.c arranges the asm view; stacks.c, timeline.c,
 * by.c and samples.c add the call stacks, -timeline, -by's split and
 * the samples model.
 * Only this file calls them all; none calls back into it.
 */
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "build.h"
#include "symbolize/symbolize.h"

void report_free(struct report *r)
{
	if (!r)
		return;
	if (r->priv) {
		report_arena_release(r->priv);
		report_asm_release(r->priv);
		report_listing_release(r->priv);
		free(r->priv);
	}
	report_samples_free(r->samples);
	free(r->rows);
	free(r->notes);
	free(r->ratios);
	free(r->total_samples);
	free(r->total_weight);
	free(r->multiplexed);
	free(r->running_percent);
	free(r->threads);
	free(r);
}

/* Name each site, and what resolving told of the objects
 * (b->state). */
static int name_sites(struct build *b)
{
	struct report *r = b->r;
	const struct profile *p = r->prof;
	int err;

	b->state = calloc(p->nobjects ? p->nobjects : 1, 1);
	if (!b->state)
		return -PROF_ENOMEM;
	err = report_resolve_sites(r, b->sym, b->sites, b->nsites, b->state,
				   0);
	if (!err)
		err = report_resolve_sites(r, b->sym, b->dropped, b->ndropped,
					   b->state, 0);
	if (!err)
		report_code_resolve_left(b, b->state);
	return err;
}

/* The asm view's procedures, their instructions resolved too. */
static int listing(struct build *b)
{
	return b->listing ? report_listing_build(b) : 0;
}

/* Note the objects that could not be used as they are. */
static int note_objects(struct build *b)
{
	size_t i;
	int err = 0;

	for (i = 0; i < b->r->prof->nobjects && !err; i++)
		err = report_note_object(b->r, b->sym, (uint32_t)i,
					 b->state[i]);
	return err;
}

/* The first statistic's weight in anonymous code that nothing names:
 * JIT code without its runtime's perf map (the text report says how to
 * get one). */
static int note_anonymous(struct build *b)
{
	const struct profile *p = b->r->prof;
	size_t i;

	for (i = 0; i < p->ncounts; i++) {
		const struct prof_count *c = &p->counts[i];
		const struct site *s;

		/* Off-CPU time without a place is not code at all. */
		if (c->stat != 0 || !strcmp(p->objects[c->obj].path,
					    PROF_OBJ_OFFCPU_PATH))
			continue;
		s = report_site_find(b->sites, b->nsites, c->obj, c->offset);
		if (s && s->anon)
			b->r->anon_weight += c->weight;
	}
	return 0;
}

/* The row of each task count's site (SIZE_MAX: none), malloc'd; NULL:
 * out of memory. */
static size_t *task_rows(struct build *b)
{
	const struct profile *p = b->r->prof;
	size_t *trow, i;

	trow = malloc((p->ntask_counts ? p->ntask_counts : 1) *
		      sizeof(*trow));
	if (!trow)
		return NULL;
	for (i = 0; i < p->ntask_counts; i++) {
		const struct site *s = report_site_find(b->sites, b->nsites,
						 p->task_counts[i].obj,
						 p->task_counts[i].offset);

		trow[i] = s ? s->row : SIZE_MAX;
	}
	return trow;
}

/* -timeline: the time stream per thread and interval, each event's
 * procedure the row of its task count's site. */
static int timeline(struct build *b)
{
	size_t *trow;
	int err;

	if (!b->r->opt.timeline)
		return 0;
	trow = task_rows(b);
	if (!trow)
		return -PROF_ENOMEM;
	err = report_timeline_build(b->r, trow, b->timeline_by);
	free(trow);
	return err;
}

/* -by: the rows split by the keys, through the row of each task
 * count's site. */
static int split_by(struct build *b)
{
	size_t *trow;
	int err;

	if (!b->r->opt.by)
		return 0;
	/* The asm view splits a procedure's rows as it makes them. */
	if (b->listing)
		return report_by_totals(b->r);
	trow = task_rows(b);
	if (!trow)
		return -PROF_ENOMEM;
	err = report_by_split(b->r, trow);
	free(trow);
	return err;
}

/* Sites are as many as instructions: their memory goes before the asm
 * view's arrangement needs more. */
static int free_sites(struct build *b)
{
	free(b->sites);
	b->sites = NULL;
	b->nsites = b->alloc_sites = 0;
	return 0;
}

/* In the view's order: hottest first, or by procedure and line (-lines),
 * or procedures hottest first with their instructions (-asm). */
static int sort_rows(struct build *b)
{
	struct report *r = b->r;

	/* The asm view's headings are in order already. */
	if (!b->listing)
		report_rows_sort(r);
	r->nrows_all = b->select ? b->nrows_all : r->nrows;
	return 0;
}

/* -only, -exclude (in the asm view, of the headings: a procedure's
 * instructions go with it). */
static int filter_rows(struct build *b)
{
	if (b->listing)
		report_listing_filter(b->r);
	else
		report_rows_filter(b);
	return 0;
}

/* Cumulative percentages, then -quit (in the asm view, by procedure). */
static int cut_rows(struct build *b)
{
	if (b->listing)
		return report_listing_cut(b->r, b->sym, b->select_quit ?
					  b->nrows_all : SIZE_MAX);
	report_rows_cut(b->r);
	return 0;
}

/* The files the symbolizer did not read: not regular files. */
static int note_skipped_files(struct build *b)
{
	size_t nsk, i;
	const struct sym_skipped *sk = sym_skipped_files(b->sym, &nsk);

	for (i = 0; i < nsk; i++)
		report_note_skipped(b->r, sk[i].path, sk[i].kind);
	return 0;
}

/* Per statistic: totals, ratios, multiplexing. */
static int count_totals(struct build *b)
{
	return report_count_totals(b->r);
}

/* Where each thread's time went (time statistics). */
static int threads_time(struct build *b)
{
	return report_threads_build(b->r);
}

/* -only and -exclude patterns that match no procedure of the profile:
 * a typo would otherwise give an empty or unchanged report without a
 * word. */
static int note_unmatched(struct build *b)
{
	return report_note_unmatched(b->r, b->sym);
}

/* The rows' inclusive percentages and the call-stack views. */
static int finish_stacks(struct build *b)
{
	return report_stacks_finish(b->r, b->sb);
}

static int build_samples(struct build *b)
{
	return b->r->opt.samples ? report_samples_build(b->r, b->sym) : 0;
}

/* Whether freq is one of the figures shown: in the code views, or asked
 * for. */
static int freq_shown(const struct report *r)
{
	return r->freq_stat >= 0 &&
	       (r->opt.view == REPORT_BLOCKS || r->opt.view == REPORT_ASM ||
		r->opt.view == REPORT_BUCKETS || report_asks_freq(r->prof));
}

/* The notes in the text's order, with those of the figures. */
static int finish_notes(struct build *b)
{
	b->r->freq_shown = freq_shown(b->r);
	return report_notes_finish(b->r);
}

/* The phases run in this order, each on what the ones before it left in
 * struct build; the first to fail ends the build.  The call stacks are
 * prepared first: a view that needs stacks of a profile that has none
 * fails there, with its own message. */
int report_build(const struct profile *p, struct symbolizer *sym,
		 const struct report_options *opt, struct report **out)
{
	static int (*const phases[])(struct build *) = {
		count_totals,			/* per statistic */
		threads_time,			/* time per thread, state */
		report_code_find_sites,		/* addresses, procedures */
		name_sites,			/* symbolize */
		listing,			/* -asm: the procedures */
		note_objects,			/* what symbolizing told */
		note_anonymous,			/* unnamed JIT code */
		report_rows_select,		/* -only, -exclude first */
		report_rows_executions,		/* freq, exact counts */
		report_rows_group,		/* sites into rows */
		report_rows_fill,		/* code, executions, counts */
		timeline,			/* -timeline */
		split_by,			/* -by: per task, object */
		free_sites,			/* the rows have all */
		report_rows_figures,		/* percentages, ratios */
		sort_rows,
		filter_rows,			/* -only, -exclude */
		note_skipped_files,
		note_unmatched,			/* patterns matching none */
		cut_rows,			/* cumulative %, -quit */
		finish_stacks,			/* totals, call stacks */
		build_samples,			/* exports' samples model */
		finish_notes,			/* what the heading says */
	};
	struct build b = {
		.sym = sym, .exact_stat = -1,
		.listing = opt->view == REPORT_ASM,
	};
	size_t i;
	int err = 0;

	*out = NULL;
	b.r = calloc(1, sizeof(*b.r));
	if (!b.r || !(b.r->priv = calloc(1, sizeof(struct priv)))) {
		free(b.r);
		return prof_fail(PROF_ENOMEM, "out of memory");
	}
	b.r->prof = p;
	b.r->opt = *opt;
	b.r->nstats = p->nstats;
	/* -timeline's -by names its rows: the report's are not split. */
	if (opt->timeline) {
		b.timeline_by = opt->by;
		b.r->opt.by = 0;
		err = report_timeline_check(b.r, opt->by);
	}
	if (!err)
		err = report_by_check(b.r);
	if (!err)
		err = report_stacks_prepare(b.r, sym, &b.sb);
	if (err) {
		report_free(b.r);
		return err;
	}
	/* Procedures and nothing inside them: symbol tables name them all,
	 * DWARF (lines, inlined frames) is read only where they do not. */
	sym_set_names_only(sym, opt->view == REPORT_PROCEDURES &&
			   !opt->inline_split && !opt->samples &&
			   opt->stack_view == REPORT_STACKS_NONE && !opt->ra);
	for (i = 0; i < sizeof(phases) / sizeof(phases[0]) && !err; i++)
		err = phases[i](&b);
	sym_set_names_only(sym, false);
	free(b.sites);
	free(b.dropped);
	free(b.left_codes);
	free(b.left_obj);
	report_code_free_marks(b.left_marks, b.nleft);
	free(b.state_early);
	free(b.codes);
	free(b.code_obj);
	free(b.state);
	report_stacks_release(b.sb);
	if (err == -PROF_EINVAL) {
		/* A view's own complaint (-callers NAME matches none). */
		report_free(b.r);
		return err;
	}
	if (err) {
		report_free(b.r);
		return prof_fail(err, "cannot build report: %s",
				 prof_strerror(err));
	}
	*out = b.r;
	return 0;
}
