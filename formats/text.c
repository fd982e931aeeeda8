/* SPDX-License-Identifier: MIT */
/*
 * The prof-style text report.  Layout only: every figure comes from the
 * report model.
 */
#include <inttypes.h>
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
		if (st->flags & PROF_STAT_SIMULATED)
			fputs(" (simulated)", f);
		if (st->flags & PROF_STAT_SUBSTITUTE)
			fprintf(f, " (substitute for %s)", st->requested);
		else if (strcmp(st->name, st->requested))
			fprintf(f, " (as %s)", st->requested);
		fprintf(f, ", %s mode, ", stat_modes_text(st->modes));
		print_rate(f, st);
		fprintf(f, ": %" PRIu64 " samples, %" PRIu64 " lost\n",
			r->total_samples[s], st->lost);
	}
	fprintf(f, "  %.2f s", (double)p->duration_ns / 1e9);
	if (p->exit_status >= 0)
		fprintf(f, ", exit status %d", p->exit_status);
	if (p->hostname && *p->hostname)
		fprintf(f, ", on %s (%s %s)", p->hostname,
			p->sysname ? p->sysname : "", p->release ? p->release : "");
	fputc('\n', f);
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
