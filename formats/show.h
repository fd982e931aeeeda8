/* SPDX-License-Identifier: MIT */
/*
 * The one entry point that turns a profile into what the user reads:
 * the run's summary and report and -i's report all come through here.
 * It builds the report model (formats/report/) for the profile, with the
 * profile's own kernel symbols, and hands it to the writer the options
 * name.  A new output format is a new writer and a new case here.
 */
#ifndef FORMATS_SHOW_H
#define FORMATS_SHOW_H

#include <stdio.h>

#include "formats/report/report.h"

struct profile;
struct sym_config;

enum report_show_format {
	REPORT_SHOW_TEXT,
	REPORT_SHOW_JSON,
	REPORT_SHOW_SUMMARY,	/* the few lines after a run (text) */
	REPORT_SHOW_FOLDED,	/* the call stacks, folded (needs them) */
	REPORT_SHOW_PPROF,	/* exports of the whole profile ... */
	REPORT_SHOW_FLAMEGRAPH,
	REPORT_SHOW_CALLGRIND,
	REPORT_SHOW_SPEEDSCOPE,
	REPORT_SHOW_FIREFOX,
	REPORT_SHOW_CSV,	/* the rows of the view, as CSV */
};

struct report_show {
	struct report_options opt;	/* view and row selection; ignored
					 * by the summary */
	enum report_show_format format;
	const char *vmlinux;		/* -k: kernel image, or NULL */
	const struct sym_config *lookup;	/* where objects and debug
						 * info are found (symfs,
						 * debug dirs, debuginfod);
						 * NULL: the defaults */
};

/* Writes p's report to out and flushes it.  A counting profile (no
 * rows) shows its totals whatever the view.  Returns 0 or a negative
 * PROF_E* error (prof_error() has the detail). */
int report_show(FILE *out, const struct profile *p,
		const struct report_show *s);

/*
 * --diff: the diff of base and nw (report.h, struct report_diff) in the
 * view of s->opt (procedures or lines; -only and -exclude apply), as
 * text or JSON (s->format), to out.  *worse gets one line per row that
 * got worse beyond dopt->fail_above with significance ("b: 12.50% ->
 * 37.51% (+25.01 points, Holm p 1.2e-30)"), *nworse their number; the
 * caller frees each line and the array (also on error).  Returns 0 or a
 * negative PROF_E* error; -PROF_EINVAL when the profiles cannot be
 * compared (prof_error() says why).
 */
int report_show_diff(FILE *out, const struct profile *base,
		     const struct profile *nw, const struct report_show *s,
		     const struct report_diff_options *dopt, char ***worse,
		     size_t *nworse);

/* A symbolizer for reporting p, configured by sc (NULL: defaults), that
 * knows p's own kernel symbols (kernel addresses change every boot).
 * NULL when out of memory. */
struct symbolizer *report_symbolizer_new(const struct profile *p,
					 const struct sym_config *sc);

#endif
