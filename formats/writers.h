/* SPDX-License-Identifier: MIT */
/*
 * The writers: each renders a model of formats/report/ (struct report,
 * report_counts, report_diff) to f, and computes nothing; what a report
 * shows, its notes included, is the model's.  report_show() (show.h)
 * picks one.  Each returns 0, or -PROF_EIO (or -PROF_ENOMEM) when the
 * output could not be written whole.
 */
#ifndef FORMATS_WRITERS_H
#define FORMATS_WRITERS_H

#include <stddef.h>
#include <stdio.h>

#include "formats/report/report.h"

/* The prof-style text report, and the short summary printed after a run
 * (top n procedures): text.c. */
int fmt_text(FILE *f, const struct report *r);
/* The columns of a line of text's -timeline beside its cells (one per
 * interval): what a terminal's width leaves for them. */
#define FMT_TIMELINE_MARGIN 29
int fmt_summary(FILE *f, const struct report *r, size_t n);
/* The JSON report (json.c, docs/json-report.md). */
int fmt_json(FILE *f, const struct report *r);
/* The rows as CSV (csv.c). */
int fmt_csv(FILE *f, const struct report *r);
/* Folded stacks, "frame;frame;frame count" lines (folded.c). */
int fmt_folded(FILE *f, const struct report *r);
/* Exports of the whole profile, from r->samples (report_options.samples):
 * pprof.c, flamegraph.c, callgrind.c; over time, from the profile's time
 * stream: speedscope.c, firefox.c (the Firefox Profiler's processed
 * profile; refused without a timeline). */
int fmt_pprof(FILE *f, const struct report *r);
int fmt_flamegraph(FILE *f, const struct report *r);
int fmt_callgrind(FILE *f, const struct report *r);
int fmt_speedscope(FILE *f, const struct report *r);
int fmt_firefox(FILE *f, const struct report *r);
/* A counting profile's totals and ratios: text.c, json.c. */
int fmt_counts_text(FILE *f, const struct report_counts *rc);
int fmt_counts_json(FILE *f, const struct report_counts *rc);
/* The diff of two reports (diff.c). */
int fmt_diff_text(FILE *f, const struct report_diff *d);
int fmt_diff_json(FILE *f, const struct report_diff *d);

#endif
