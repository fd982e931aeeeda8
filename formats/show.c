/* SPDX-License-Identifier: MIT */
/*
 * report_show(): from a profile to its report in the format asked for
 * (show.h).
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "show.h"
#include "common/profile/profile.h"
#include "common/util/error.h"
#include "symbolize/symbolize.h"
#include "writers.h"

/* Procedures the summary after a run shows. */
#define SUMMARY_ROWS 5

/* The ELF machine of the profiled machine's code (uname's name). */
static uint16_t jit_machine(const struct profile *p)
{
	if (p->machine && !strcmp(p->machine, "x86_64"))
		return EM_X86_64;
	if (p->machine && !strcmp(p->machine, "aarch64"))
		return EM_AARCH64;
	return EM_NONE;
}

/* j's lines for the symbolizer, from *at on in v (room for them). */
static void jit_lines(const struct prof_jitsym *j, struct sym_jitline *v,
		      size_t *at)
{
	size_t k;

	for (k = 0; k < j->nlines; k++)
		v[*at + k] = (struct sym_jitline){
			.addr = j->lines[k].addr,
			.file = j->files[j->lines[k].file],
			.line = j->lines[k].line,
		};
	*at += j->nlines;
}

/* The JIT symbols p carries, each object's table to sym. */
static int set_jit_symbols(struct symbolizer *sym, const struct profile *p)
{
	struct sym_jitsym *v;
	struct sym_jitline *lines;
	size_t i, j, n, nlines = 0, at;
	int err = SYM_OK;

	if (!p->njitsyms)
		return SYM_OK;
	for (i = 0; i < p->njitsyms; i++)
		nlines += p->jitsyms[i].nlines;
	v = calloc(p->njitsyms, sizeof(*v));
	lines = calloc(nlines ? nlines : 1, sizeof(*lines));
	if (!v || !lines) {
		free(v);
		free(lines);
		return SYM_ENOMEM;
	}
	/* Sorted by (object, start): one run per object. */
	for (i = 0; i < p->njitsyms && !err; i = j) {
		for (j = i, n = 0, at = 0; j < p->njitsyms &&
		     p->jitsyms[j].obj == p->jitsyms[i].obj; j++, n++) {
			const struct prof_jitsym *s = &p->jitsyms[j];

			v[n] = (struct sym_jitsym){
				.start = s->start, .end = s->end,
				.name = s->name, .code = s->code,
				.lines = lines + at, .nlines = s->nlines,
			};
			jit_lines(s, lines, &at);
		}
		err = sym_set_jit_symbols(sym,
					  p->objects[p->jitsyms[i].obj].path,
					  jit_machine(p), v, n);
	}
	free(v);
	free(lines);
	return err;
}

struct symbolizer *report_symbolizer_new(const struct profile *p,
					 const struct sym_config *cfg)
{
	struct sym_config sc = *cfg;
	struct symbolizer *sym;

	/* perf's build-id cache holds what perf recorded: the objects of
	 * its recordings, not of our runs (whose portable form is an
	 * archive). */
	if (!p->recorded_by || strncmp(p->recorded_by, "perf", 4))
		sc.buildid_cache = NULL;
	sym = symbolizer_new(&sc);
	struct sym_ksym *v;
	size_t i;

	if (!sym)
		return NULL;
	if (set_jit_symbols(sym, p) == SYM_ENOMEM) {
		symbolizer_free(sym);
		return NULL;
	}
	/* A recording of another boot carries none: its addresses are
	 * not this kernel's (no fallback to /proc/kallsyms). */
	if (!p->nksyms && p->recorded_by &&
	    sym_set_kernel_symbols(sym, NULL, 0) == SYM_ENOMEM) {
		symbolizer_free(sym);
		return NULL;
	}
	if (!p->nksyms)
		return sym;
	v = calloc(p->nksyms, sizeof(*v));
	if (!v) {
		symbolizer_free(sym);
		return NULL;
	}
	for (i = 0; i < p->nksyms; i++) {
		v[i].start = p->ksyms[i].start;
		v[i].end = p->ksyms[i].end;
		v[i].name = p->ksyms[i].name;
		v[i].module = p->ksyms[i].module;
	}
	if (sym_set_kernel_symbols(sym, v, p->nksyms) == SYM_ENOMEM) {
		symbolizer_free(sym);
		sym = NULL;
	}
	free(v);
	return sym;
}

/* A counting profile: totals and ratios, no rows.  Its summary is the
 * whole text report: it is a few lines. */
static int show_counts(FILE *out, const struct profile *p,
		       const struct report_show *s)
{
	struct report_counts *rc;
	int err = report_counts_build(p, s->opt.file, &rc);

	if (err)
		return err;
	if (s->format == REPORT_SHOW_FOLDED)
		err = prof_fail(PROF_EINVAL, "'%s' is a counting profile: "
				"it has no call stacks to fold",
				s->opt.file ? s->opt.file : "profile");
	else if (s->format != REPORT_SHOW_TEXT &&
		 s->format != REPORT_SHOW_JSON &&
		 s->format != REPORT_SHOW_SUMMARY)
		err = prof_fail(PROF_EINVAL, "'%s' is a counting profile: "
				"it has totals, no samples to export (use "
				"--format text or json)",
				s->opt.file ? s->opt.file : "profile");
	else if (s->format == REPORT_SHOW_JSON)
		err = fmt_counts_json(out, rc);
	else
		err = fmt_counts_text(out, rc);
	report_counts_free(rc);
	return err;
}

/* The symbolizer's configuration: s's lookup with -k's vmlinux. */
static struct sym_config show_sym_config(const struct report_show *s)
{
	struct sym_config sc = { 0 };

	if (s->lookup)
		sc = *s->lookup;
	sc.vmlinux = s->vmlinux;
	return sc;
}

static int show_rows(FILE *out, const struct profile *p,
		     const struct report_show *s)
{
	struct sym_config sc = show_sym_config(s);
	struct symbolizer *sym = report_symbolizer_new(p, &sc);
	struct report_options ro = s->opt;
	struct report *r;
	int err;

	if (!sym)
		return prof_fail(PROF_ENOMEM, "out of memory");
	if (s->format == REPORT_SHOW_SUMMARY) {
		ro = (struct report_options){
			.view = REPORT_PROCEDURES,
			.numbers = s->opt.numbers,
			.file = s->opt.file,
			.stride = -1,
			.no_stacks = 1,
		};
	}
	if (s->format == REPORT_SHOW_FOLDED)
		ro.folded = ro.samples = 1;
	if (s->format == REPORT_SHOW_PPROF ||
	    s->format == REPORT_SHOW_FLAMEGRAPH ||
	    s->format == REPORT_SHOW_CALLGRIND ||
	    s->format == REPORT_SHOW_SPEEDSCOPE ||
	    s->format == REPORT_SHOW_FIREFOX)
		ro.samples = 1;
	err = report_build(p, sym, &ro, &r);
	if (err) {
		symbolizer_free(sym);
		return err;
	}
	switch (s->format) {
	case REPORT_SHOW_SUMMARY:
		err = fmt_summary(out, r, SUMMARY_ROWS);
		break;
	case REPORT_SHOW_JSON:
		err = fmt_json(out, r);
		break;
	case REPORT_SHOW_TEXT:
		err = fmt_text(out, r);
		break;
	case REPORT_SHOW_FOLDED:
		err = fmt_folded(out, r);
		break;
	case REPORT_SHOW_PPROF:
		err = fmt_pprof(out, r);
		break;
	case REPORT_SHOW_FLAMEGRAPH:
		err = fmt_flamegraph(out, r);
		break;
	case REPORT_SHOW_CALLGRIND:
		err = fmt_callgrind(out, r);
		break;
	case REPORT_SHOW_SPEEDSCOPE:
		err = fmt_speedscope(out, r);
		break;
	case REPORT_SHOW_FIREFOX:
		err = fmt_firefox(out, r);
		break;
	case REPORT_SHOW_CSV:
		err = fmt_csv(out, r);
		break;
	}
	report_free(r);
	symbolizer_free(sym);
	return err;
}

/* The report of one side of a diff: all rows of the view. */
static int diff_side(const struct profile *p, const struct report_show *s,
		     const char *file, struct symbolizer **sym,
		     struct report **r)
{
	struct sym_config sc = show_sym_config(s);
	struct report_options ro = s->opt;

	*r = NULL;
	if (report_is_counting(p))
		return prof_fail(PROF_EINVAL, "'%s' is a counting profile: "
				 "it has no rows to compare", file);
	*sym = report_symbolizer_new(p, &sc);
	if (!*sym)
		return prof_fail(PROF_ENOMEM, "out of memory");
	ro.file = file;
	ro.quit_rows = 0;
	ro.quit_percent = 0;
	ro.no_stacks = 1;
	return report_build(p, *sym, &ro, r);
}

/* "b: 12.50% -> 37.51% (+25.01 points, p 1.2e-30)" per worse row. */
static int list_worse(const struct report_diff *d, char ***worse,
		      size_t *nworse)
{
	size_t i, n = 0;

	*worse = calloc(d->nworse + 1, sizeof(**worse));
	if (!*worse)
		return -PROF_ENOMEM;
	for (i = 0; i < d->nrows; i++) {
		const struct report_diff_row *dr = &d->rows[i];

		if (!dr->worse)
			continue;
		if (asprintf(&(*worse)[n], "%s: %.2f%% -> %.2f%% (%+.2f "
			     "points, Holm p %.2g)", dr->row->procedure,
			     dr->base_percent, dr->new_percent, dr->change,
			     dr->p_holm) < 0) {
			(*worse)[n] = NULL;
			break;
		}
		n++;
	}
	*nworse = n;
	return n == d->nworse ? 0 : -PROF_ENOMEM;
}

int report_show_diff(FILE *out, const struct profile *base,
		     const struct profile *nw, const struct report_show *s,
		     const struct report_diff_options *dopt, char ***worse,
		     size_t *nworse)
{
	struct symbolizer *sa = NULL, *sb = NULL;
	struct report *ra = NULL, *rb = NULL;
	struct report_diff *d = NULL;
	int err;

	*worse = NULL;
	*nworse = 0;
	err = diff_side(base, s, dopt->base_file, &sa, &ra);
	if (!err)
		err = diff_side(nw, s, dopt->new_file, &sb, &rb);
	if (!err)
		err = report_diff_build(ra, rb, dopt, &d);
	if (!err)
		err = s->format == REPORT_SHOW_JSON ? fmt_diff_json(out, d) :
		      fmt_diff_text(out, d);
	if (!err && fflush(out))
		err = prof_fail(PROF_EIO, "cannot write report: %s",
				strerror(errno));
	if (!err)
		err = list_worse(d, worse, nworse);
	report_diff_free(d);
	report_free(ra);
	report_free(rb);
	symbolizer_free(sa);
	symbolizer_free(sb);
	return err;
}

int report_show(FILE *out, const struct profile *p,
		const struct report_show *s)
{
	int err = report_is_counting(p) ? show_counts(out, p, s) :
		  show_rows(out, p, s);

	if (!err && fflush(out))
		err = prof_fail(PROF_EIO, "cannot write report: %s",
				strerror(errno));
	return err;
}
