/* SPDX-License-Identifier: MIT */
/*
 * The prof-style text report.  Layout only: every figure comes from the
 * report model.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "report.h"
#include "stats.h"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* The object column: a file's base name, or [module] for kernel code in
 * a module (the kernel itself is [kernel.kallsyms]). */
static const char *object_name(const struct report_row *row, char *buf,
			       size_t len)
{
	if (row->module) {
		snprintf(buf, len, "[%s]", row->module);
		return buf;
	}
	return base_name(row->object);
}

static const char *view_name(enum report_view v)
{
	switch (v) {
	case REPORT_LINES: return "source lines, in procedure order";
	case REPORT_HEAVY: return "source lines, heaviest first";
	default: return "procedures";
	}
}

static void print_rate(FILE *f, const struct prof_stat *s)
{
	if (s->period)
		fprintf(f, "every %" PRIu64 " events", s->period);
	else
		fprintf(f, "%" PRIu64 " Hz", s->freq);
}

static void start_after_line(FILE *f, const struct profile *p);

static void heading(FILE *f, const struct report *r)
{
	const struct profile *p = r->prof;
	int i;
	size_t s;

	fputs("Profile", f);
	if (r->opt.file)
		fprintf(f, " %s", r->opt.file);
	if (p->tool && *p->tool)
		fprintf(f, " (%s)", p->tool);
	if (p->argc) {
		fputc(':', f);
		for (i = 0; i < p->argc; i++)
			fprintf(f, " %s", p->argv[i]);
	}
	if (p->pid >= 0)
		fprintf(f, " (process %d)", p->pid);
	if (p->cpu >= 0)
		fprintf(f, " (CPU %d)", p->cpu);
	fputc('\n', f);
	for (s = 0; s < r->nstats; s++) {
		const struct prof_stat *st = &p->stats[s];

		fprintf(f, "  %s", st->name);
		if (st->flags & PROF_STAT_SUBSTITUTE)
			fprintf(f, " (substitute for %s)", st->requested);
		else if (strcmp(st->name, st->requested))
			fprintf(f, " (as %s)", st->requested);
		fprintf(f, ", %s mode, ", stat_modes_text(st->modes));
		print_rate(f, st);
		fprintf(f, ": %" PRIu64 " samples, %" PRIu64 " lost",
			r->total_samples[s], st->lost);
		{
			double pct;

			if (report_stat_multiplexed(p, st, &pct))
				fprintf(f, ", sampled %.1f%% of the time "
					"(multiplexed)", pct);
		}
		fputc('\n', f);
	}
	fprintf(f, "  %.2f s", (double)p->duration_ns / 1e9);
	if (p->exit_status >= 0)
		fprintf(f, ", exit status %d", p->exit_status);
	if (p->hostname && *p->hostname)
		fprintf(f, ", on %s (%s %s)", p->hostname,
			p->sysname ? p->sysname : "", p->release ? p->release : "");
	fputc('\n', f);
	start_after_line(f, p);
	if (p->ra_routines) {
		const char *list = p->ra_routines, *c;
		size_t n = 1, shown = strlen(list);

		for (c = list; *c; c++)
			n += *c == ',';
		if (shown > 48) {
			/* Show whole patterns only. */
			for (shown = 48; shown && list[shown] != ','; shown--)
				;
		}
		fprintf(f, "  -ra: %" PRIu64 " samples in kernel utility "
			"routines were charged to their callers (%.*s%s; %zu "
			"pattern%s)\n", p->ra_moved, (int)shown, list,
			list[shown] ? ",..." : "", n, n == 1 ? "" : "s");
	}
	for (size_t k = 0; k < r->nstale; k++)
		fprintf(f, "  note: %s was rebuilt since the profile was taken "
			"(its build-id differs): its rows are addresses\n",
			base_name(r->stale[k]));
	for (size_t k = 0; k < r->nnosyms; k++)
		fprintf(f, "  note: %s has no symbols (stripped): its rows are "
			"addresses; install its debug symbols or build it with "
			"-g\n", base_name(r->nosyms[k]));
	if (r->unresolved_objects)
		fprintf(f, "  note: %zu object(s) could not be read; their "
			"addresses are shown as object+offset\n",
			r->unresolved_objects);
}

static void mode_histogram(FILE *f, const struct profile *p);

static void row_procedure(char *buf, size_t len, const struct report_row *row)
{
	if (row->inlined_into)
		snprintf(buf, len, "%s [inlined into %s]", row->procedure,
			 row->inlined_into);
	else
		snprintf(buf, len, "%s", row->procedure);
}

int report_text(FILE *f, const struct report *r)
{
	int lines = r->opt.view != REPORT_PROCEDURES;
	size_t i, s, pw = 32;
	char proc[512], where[512], obj[128];

	heading(f, r);
	fprintf(f, "\n%s", view_name(r->opt.view));
	if (r->nstats)
		fprintf(f, ", by %s", r->prof->stats[0].name);
	if (r->nrows < r->nrows_all)
		fprintf(f, " (%zu of %zu rows)", r->nrows, r->nrows_all);
	fputs(":\n", f);
	for (s = 0; s < r->nstats; s++)
		fprintf(f, "%8s %9s ", s == 0 ? "%" : "%", "samples");
	fprintf(f, "%7s ", "cum%");
	if (r->opt.numbers)
		fprintf(f, "%-18s ", "address");
	if (lines)
		fprintf(f, "%-28s ", "source line");
	/* The procedure column fits the longest name shown (up to 64). */
	for (i = 0; i < r->nrows; i++) {
		size_t w;

		row_procedure(proc, sizeof(proc), &r->rows[i]);
		w = strlen(proc);
		if (w > pw)
			pw = w > 64 ? 64 : w;
	}
	fprintf(f, "%-*s %s\n", (int)pw, "procedure", "object");
	if (r->nstats > 1) {
		fputs("  (", f);
		for (s = 0; s < r->nstats; s++)
			fprintf(f, "%s%s", s ? ", " : "",
				r->prof->stats[s].name);
		fputs(")\n", f);
	}
	for (i = 0; i < r->nrows; i++) {
		const struct report_row *row = &r->rows[i];

		for (s = 0; s < r->nstats; s++)
			fprintf(f, "%8.2f %9" PRIu64 " ", row->percent[s],
				row->samples[s]);
		fprintf(f, "%7.2f ", row->cum_percent);
		if (r->opt.numbers)
			fprintf(f, "0x%-16" PRIx64 " ", row->address);
		if (lines) {
			if (row->file)
				snprintf(where, sizeof(where), "%s:%u",
					 base_name(row->file), row->line);
			else
				snprintf(where, sizeof(where), "??");
			fprintf(f, "%-28s ", where);
		}
		row_procedure(proc, sizeof(proc), row);
		fprintf(f, "%-*s %s\n", (int)pw, proc,
			object_name(row, obj, sizeof(obj)));
	}
	if (!r->nrows)
		fputs("  (no samples)\n", f);
	mode_histogram(f, r->prof);
	return ferror(f) ? -PROF_EIO : 0;
}

static void mode_row(FILE *f, const char *label, const uint64_t *n)
{
	uint64_t tot = 0;
	int m;

	for (m = 0; m < PROF_NMODES; m++)
		tot += n[m];
	fprintf(f, "  %5s", label);
	for (m = 0; m < PROF_NMODES; m++)
		fprintf(f, " %8.2f", tot ? 100.0 * (double)n[m] / (double)tot : 0);
	fprintf(f, " %10" PRIu64 "\n", tot);
}

/* The originals' IPL histogram, made modern: where the CPUs were when
 * sampled.  Shown for kernel profiles and whenever samples span modes. */
static void mode_histogram(FILE *f, const struct profile *p)
{
	uint64_t all[PROF_NMODES] = { 0 };
	size_t i;
	int m, used = 0;
	char label[16];

	for (i = 0; i < p->nmodes; i++)
		for (m = 0; m < PROF_NMODES; m++)
			all[m] += p->modes[i].n[m];
	for (m = 0; m < PROF_NMODES; m++)
		used += all[m] != 0;
	if (!used || (used < 2 && strcmp(p->tool, "kprofile")))
		return;
	fputs("\nsample modes, percent of each CPU's samples:\n", f);
	fprintf(f, "  %5s %8s %8s %8s %8s %8s %10s\n", "cpu", "user",
		"kernel", "idle", "guest", "hv", "samples");
	for (i = 0; i < p->nmodes; i++) {
		snprintf(label, sizeof(label), "%u", p->modes[i].cpu);
		mode_row(f, label, p->modes[i].n);
	}
	if (p->nmodes > 1)
		mode_row(f, "all", all);
}

int report_summary(FILE *f, const struct report *r, size_t n)
{
	size_t i;
	char proc[512], obj[128];

	if (!r->nstats)
		return 0;
	fprintf(f, "top procedures by %s:\n", r->prof->stats[0].name);
	for (i = 0; i < r->nrows && i < n; i++) {
		const struct report_row *row = &r->rows[i];

		row_procedure(proc, sizeof(proc), row);
		fprintf(f, "  %6.2f%%  %-40s %s\n", row->percent[0], proc,
			object_name(row, obj, sizeof(obj)));
	}
	if (!r->nrows)
		fputs("  (no samples)\n", f);
	return ferror(f) ? -PROF_EIO : 0;
}

/* ---- counting profiles ------------------------------------------------ */

/* 1234567 -> "1,234,567" */
static const char *grouped(char *buf, size_t len, double v)
{
	char digits[64];
	size_t n, i, o = 0;

	snprintf(digits, sizeof(digits), "%.0f", v);
	n = strlen(digits);
	for (i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

static void start_after_line(FILE *f, const struct profile *p)
{
	if (!p->start_after)
		return;
	if (p->start_after_ns < 0)
		fprintf(f, "  started after %s: never reached, nothing was "
			"counted\n", p->start_after);
	else
		fprintf(f, "  started after %s, %.3f s into the run "
			"(hand-over %.1f us after the profiler's notice)\n",
			p->start_after, (double)p->start_after_ns / 1e9,
			(double)p->start_after_latency_ns / 1e3);
}

int report_counts_text(FILE *f, const struct report_counts *rc)
{
	const struct profile *p = rc->prof;
	size_t i, w = 10;
	int a;
	char num[64];

	fputs("Counts", f);
	if (rc->file)
		fprintf(f, " %s", rc->file);
	if (p->tool && *p->tool)
		fprintf(f, " (%s)", p->tool);
	if (p->argc) {
		fputc(':', f);
		for (a = 0; a < p->argc; a++)
			fprintf(f, " %s", p->argv[a]);
	}
	fputc('\n', f);
	fprintf(f, "  %.2f s", (double)p->duration_ns / 1e9);
	if (p->exit_status >= 0)
		fprintf(f, ", exit status %d", p->exit_status);
	if (p->hostname && *p->hostname)
		fprintf(f, ", on %s (%s %s)", p->hostname,
			p->sysname ? p->sysname : "",
			p->release ? p->release : "");
	fputc('\n', f);
	start_after_line(f, p);
	for (i = 0; i < rc->ncounts; i++)
		if (strlen(rc->counts[i].stat->name) > w)
			w = strlen(rc->counts[i].stat->name);
	for (i = 0; i < rc->nratios; i++)
		if (strlen(rc->ratios[i].name) > w)
			w = strlen(rc->ratios[i].name);
	fprintf(f, "\n%-*s %20s\n", (int)w + 2, "statistic", "total");
	for (i = 0; i < rc->ncounts; i++) {
		const struct report_count *c = &rc->counts[i];
		const struct prof_stat *st = c->stat;

		fprintf(f, "  %-*s %20s", (int)w, st->name,
			grouped(num, sizeof(num), c->scaled));
		if (st->flags & PROF_STAT_SUBSTITUTE)
			fprintf(f, "  (substitute for %s)", st->requested);
		if (!st->time_enabled && p->start_after)
			fputs("  (never started)", f);
		else if (c->multiplexed && !st->time_running)
			fputs("  (never scheduled: more events than "
			      "counters?)", f);
		else if (c->multiplexed)
			fprintf(f, "  (scaled from %.1f%% of the time)",
				c->running_percent);
		fputc('\n', f);
	}
	if (rc->nratios)
		fputs("\nratios:\n", f);
	for (i = 0; i < rc->nratios; i++) {
		const struct report_ratio *q = &rc->ratios[i];

		if (isnan(q->value))
			fprintf(f, "  %-*s %20s  %s\n", (int)w, q->name, "-",
				q->formula);
		else
			fprintf(f, "  %-*s %20.4f  %s\n", (int)w, q->name,
				q->value, q->formula);
	}
	return ferror(f) ? -PROF_EIO : 0;
}
