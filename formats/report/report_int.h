/* SPDX-License-Identifier: MIT */
/*
 * Private to formats/report/: the services every file of the model uses
 * (the report's memory, -only/-exclude/-quit, the notes, the statistics'
 * figures, resolving an address), and what report_build (model.c) asks
 * of the call-stack views (stacks.c), -timeline (timeline.c), -by
 * (by.c) and the samples model (samples.c).  The files of report_build
 * itself share build.h.  One symbolization path: every address, a
 * sampled one or a stack frame, is named by report_resolve()
 * (resolve.c).
 */
#ifndef FORMATS_REPORT_INT_H
#define FORMATS_REPORT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/util/strpool.h"
#include "report.h"

struct symbolizer;
struct sym_result;

/* ---- resolve.c ---- */

/* What report_resolve() learnt about each object (a byte per object). */
#define OBJ_UNREADABLE	0x1
#define OBJ_STALE	0x2
#define OBJ_NAMED	0x4	/* some address had a symbol or a line */
#define OBJ_ANONYMOUS	0x8	/* some address had neither */
#define OBJ_BADDWARF	0x10	/* malformed DWARF, not used: ELF names */

/*
 * Symbolize (obj, offset) of p into res: at least one frame, innermost
 * first ("[unknown]" when nothing is known).  state[obj] (state may be
 * NULL) gets the OBJ_* flags.  Strings are the symbolizer's.
 */
void report_resolve(const struct profile *p, struct symbolizer *sym,
		    uint32_t obj, uint64_t offset, struct sym_result *res,
		    uint8_t *state);

/* ---- select.c: what -only, -exclude and -quit choose ---- */

/* Whether name matches one of the n globs (-only, -exclude, -ra). */
int report_name_matches(const char *const *pats, size_t n, const char *name);
/* Whether -only/-exclude of opt leave out a procedure named name. */
int report_name_filtered(const struct report_options *opt, const char *name);
/*
 * -quit, the one cut of every list (rows, the asm view's procedures, a
 * tree node's children, the diff's rows): whether the list ends before
 * its entry that has kept entries before it and whose share of the
 * first statistic is *percent (NULL: the list is not cut by percent).
 * quit_rows 0 and quit_percent 0: no cut.
 */
int report_quit_reached(size_t quit_rows, double quit_percent, size_t kept,
			const double *percent);

/* ---- the report's own memory (r->priv) ---- */

/* A source file read for the asm view: its lines. */
struct source {
	const char *path;
	const char *root;	/* sym_object_info.source_root */
	uid_t uid;		/* the file's owner and mode */
	mode_t mode;
	char *text;
	char **lines;
	size_t nlines;
};

struct priv {
	/* Strings owned by the report (row keys are built from symbolizer
	 * strings, which die with the symbolizer, so they are copied
	 * here). */
	struct strpool pool;
	void **mem;		/* arrays the rows point into */
	size_t nmem, alloc_mem;
	struct source *sources;
	size_t nsources, alloc_sources;
	size_t alloc_notes;
	struct profile *own_prof;	/* report-time -ra's copy, or NULL */
	/* The asm view (listing.c): its procedures' rows made when a
	 * writer asks; asm_pos[k]: where heading r->rows[k] is in the
	 * whole listing (headings and instructions). */
	struct report_listing *listing;
	size_t *asm_pos;
};

/* Memory and strings that live as long as the report r. */
void *report_alloc(struct report *r, size_t n, size_t size);
/* The pool's copy of s (NULL: NULL, or out of memory). */
const char *report_pool_dup(struct report *r, const char *s);
/* A profile the report owns (report-time -ra): freed with the report.
 * Only its counts and ra_routines are its own; the rest is borrowed. */
void report_own_profile(struct report *r, struct profile *copy);

/* Per-row arrays (samples, weight, percent, ratios, averages) for n
 * rows, from memory the report owns. */
int report_row_arrays(struct report *r, struct report_row *rows, size_t n);
/* Free what pv holds (not pv, nor the asm view's sources). */
void report_arena_release(struct priv *pv);

/* ---- figures.c: the statistics' figures ---- */

/* The statistic the rows sort by and the stack views count: the first
 * with counts of its own; 0 when none. */
size_t report_stack_stat(const struct profile *p);

/* Per statistic: totals over the whole profile, the ratios (r->ratios)
 * and their totals, and whether the kernel multiplexed it. */
int report_count_totals(struct report *r);
/* The statistic that counts retired instructions: exact counts first,
 * then the one of kind_flags (PROF_STAT_PROFILEME or 0); -1: none. */
long report_find_retired(const struct profile *p, uint32_t kind_flags);
/* The exact retired statistic (simulated: -pixie, the sim engine), or
 * -1. */
long report_find_exact(const struct profile *p);
/* Whether freq was asked for (a derived statistic). */
int report_asks_freq(const struct profile *p);
/* A row's ratios (and low marks) and averages, from its counts and
 * executions. */
void report_row_derived(const struct report *r, struct report_row *row);
/* X_per_ret's scale: 100 (per 100 instructions), 1 for cycles. */
double report_per_ret_scale(const char *x);
/* Whether statistic st of p ran only part of the time it was enabled
 * (multiplexed); *percent is 100 * running / enabled. */
int report_stat_multiplexed(const struct profile *p,
			    const struct prof_stat *st, double *percent);

/* ---- notes.c ---- */

/* Add a note of kind (its other fields 0) at the end of r's list;
 * NULL: out of memory.  subject and detail must live as long as r. */
struct report_note *report_note_add(struct report *r,
				    enum report_note_kind kind,
				    const char *subject, const char *detail);
/* Note a file not read because it is not a regular file (once). */
void report_note_skipped(struct report *r, const char *path,
			 const char *kind);
/* Whether r has a note of kind about subject. */
int report_note_has(const struct report *r, enum report_note_kind kind,
		    const char *subject);
/* The last phase of report_build: the notes found while building put in
 * the text report's order (report.h), with those of the figures, once
 * the rows are final; and r->ra_patterns. */
int report_notes_finish(struct report *r);

/* ---- stacks.c, timeline.c, by.c, samples.c: what report_build asks of
 * them ---- */

/*
 * The call-stack phases of report_build (stacks.c), around the rows':
 * report_stacks_prepare() symbolizes the frames, checks that the views
 * asked for have stacks, and applies report-time -ra (r->prof becomes a
 * copy with the counts moved); report_stacks_finish() computes the
 * rows' totals and the views, once the rows exist.  *sb is freed by
 * report_stacks_release() (NULL is a no-op).
 */
struct report_sbuild;
int report_stacks_prepare(struct report *r, struct symbolizer *sym,
			  struct report_sbuild **sb);
int report_stacks_finish(struct report *r, struct report_sbuild *sb);
void report_stacks_release(struct report_sbuild *sb);

/*
 * -by (by.c): split the rows, whose counts are filled, by the keys of
 * r->opt.by; trow[i] is the row of the profile's task count i
 * (SIZE_MAX: none shown).  Also makes r->by_totals.  report_by_check()
 * fails when the profile cannot be split so (no tasks).
 */
int report_by_check(const struct report *r);
int report_by_split(struct report *r, const size_t *trow);
/* The two halves of report_by_split(): the rows (the asm view splits a
 * procedure's when they are made), the totals. */
int report_by_rows(struct report *r, const size_t *trow);
int report_by_totals(struct report *r);
/* Order of two rows' -by values (0 without -by). */
int report_by_cmp(const struct report_row *x, const struct report_row *y);

/*
 * -timeline (timeline.c).  report_timeline_check() fails, with a line
 * saying why, when r's profile cannot be laid out over time (no time
 * stream) or by the key by (REPORT_BY_* bits, 0: per thread);
 * report_timeline_build() makes r->timeline once the rows are grouped:
 * trow[i] is the row (the procedure) of the profile's task count i,
 * SIZE_MAX: none.
 */
int report_timeline_check(const struct report *r, unsigned by);
int report_timeline_build(struct report *r, const size_t *trow, unsigned by);

/* Why stack st ends short, or NULL when it is complete; outer_fn: the
 * outermost function of its last frame (a frame-pointer chain is
 * complete when it reaches an entry function). */
const char *report_stack_truncated(const struct prof_stack *st,
				   const char *outer_fn);
/* The marker frame of a truncated stack: reason, base name of the last
 * frame's object. */
#define REPORT_TRUNCATED_FMT "[truncated: %s in %s]"

/* The samples model (samples.c), when r->opt.samples: r->samples. */
int report_samples_build(struct report *r, struct symbolizer *sym);
void report_samples_free(struct report_samples *s);

/* threads.c: each thread's time by state (report.threads). */
int report_threads_build(struct report *r);

#endif
