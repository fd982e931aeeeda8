/* SPDX-License-Identifier: MIT */
/*
 * Private to formats/report/: what the rows (model.c) and the call-stack
 * views (stacks.c) share.  One symbolization path: every address, a
 * sampled one or a stack frame, is named by report_resolve().
 */
#ifndef FORMATS_REPORT_INT_H
#define FORMATS_REPORT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

struct symbolizer;
struct sym_result;

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

/* Memory and strings that live as long as the report r. */
/* Whether name matches one of the n globs (-only, -exclude, -ra). */
int report_name_matches(const char *const *pats, size_t n, const char *name);

void *report_alloc(struct report *r, size_t n, size_t size);
const char *report_pool_dup(struct report *r, const char *s);
/* A profile the report owns (report-time -ra): freed with the report.
 * Only its counts and ra_routines are its own; the rest is borrowed. */
void report_own_profile(struct report *r, struct profile *copy);

/* The statistic the rows sort by and the stack views count: the first
 * with counts of its own; 0 when none. */
size_t report_stack_stat(const struct profile *p);

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

/* Per-row arrays (samples, weight, percent, ratios, averages) for n
 * rows, from memory the report owns. */
int report_row_arrays(struct report *r, struct report_row *rows, size_t n);

/*
 * -by (by.c): split the rows, whose counts are filled, by the keys of
 * r->opt.by; trow[i] is the row of the profile's task count i
 * (SIZE_MAX: none shown).  Also makes r->by_totals.  report_by_check()
 * fails when the profile cannot be split so (no tasks).
 */
int report_by_check(const struct report *r);
int report_by_split(struct report *r, const size_t *trow);
/* Order of two rows' -by values (0 without -by). */
int report_by_cmp(const struct report_row *x, const struct report_row *y);

/* The file name of a path (what follows the last '/'). */
const char *report_base_name(const char *path);

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

#endif
