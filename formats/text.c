/* SPDX-License-Identifier: MIT */
/*
 * The prof-style text report.  Layout only: every figure comes from the
 * report model.  Every public writer goes through esc_visible_stream(), so
 * no name from outside reaches a terminal with its control characters.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "common/util/path.h"
#include "escape.h"
#include "formats/report/report.h"
#include "writers.h"
#include "common/stats/stats.h"

/* The object column: a file's base name, or [module] for kernel code in
 * a module (the kernel itself is [kernel.kallsyms]). */
static const char *object_name(const struct report_row *row, char *buf,
			       size_t len)
{
	if (row->module)
		return esc_cut(buf, len, snprintf(buf, len, "[%s]",
						  row->module));
	return path_base(row->object);
}

static int ratio_width(const struct report_ratio *ra)
{
	int w = (int)strlen(ra->name);

	return w < 10 ? 10 : w;
}

static const char *view_name(enum report_view v)
{
	switch (v) {
	case REPORT_LINES: return "source lines, in procedure order";
	case REPORT_HEAVY: return "source lines, heaviest first";
	case REPORT_BLOCKS: return "basic blocks, heaviest first";
	case REPORT_ASM: return "instructions, procedures heaviest first";
	case REPORT_BUCKETS: return "instruction buckets, heaviest first";
	default: return "procedures";
	}
}

static int show_freq(const struct report *r)
{
	return r->freq_shown;
}

static int cols_average(const struct report *r)
{
	return r->opt.average;
}

/* Width of statistic s's count column: its total fits (no row has more),
 * and so does its name over the two columns. */
static int is_time(const struct prof_stat *st)
{
	return (st->flags & PROF_STAT_TIME) != 0;
}

static int count_width(const struct report *r, size_t s)
{
	int time = is_time(&r->prof->stats[s]);
	uint64_t t = time ? r->total_weight[s] / 1000000000u :
		     r->total_samples[s];
	int w = time ? 5 : 1, name = (int)strlen(r->prof->stats[s].name) - 9;

	while (t >= 10) {
		t /= 10;
		w++;
	}
	if (w < name)
		w = name;
	return w > 9 ? w : 9;
}

/* Width of statistic s's -average column, headed "NAME/exec". */
static int average_width(const struct report *r, size_t s)
{
	int w = (int)strlen(r->prof->stats[s].name) + 5;

	return w > 14 ? w : 14;
}

/* Simulated statistics are exact counts, not samples; time statistics
 * show their time. */
static const char *count_label(const struct prof_stat *st)
{
	return st->flags & PROF_STAT_SIMULATED ? "count" :
	       is_time(st) ? "seconds" : "samples";
}

/* The count column of statistic s: samples, or a time's seconds. */
static void count_cell(FILE *f, const struct report *r, size_t s,
		       uint64_t samples, uint64_t weight)
{
	if (is_time(&r->prof->stats[s]))
		fprintf(f, "%*.3f ", count_width(r, s), (double)weight / 1e9);
	else
		fprintf(f, "%*" PRIu64 " ", count_width(r, s), samples);
}

/* With several statistics, a line naming each over its two columns. */
static void stat_names(FILE *f, const struct report *r, size_t shown)
{
	size_t s;
	const char *sep = "";

	if (shown < 2)
		return;
	for (s = 0; s < r->nstats; s++)
		if (report_stat_counted(&r->prof->stats[s])) {
			fprintf(f, "%s%*s", sep, 9 + count_width(r, s),
				r->prof->stats[s].name);
			sep = " ";
		}
	fputc('\n', f);
}

/* Header cells of the figures every view shows. */
static void figure_header(FILE *f, const struct report *r)
{
	const struct profile *p = r->prof;
	size_t s;
	char buf[256];

	for (s = 0; s < r->nstats; s++)
		if (report_stat_counted(&p->stats[s]))
			fprintf(f, "%8s %*s ", "%", count_width(r, s),
				count_label(&p->stats[s]));
	for (s = 0; s < r->nratios; s++)
		fprintf(f, "%*s ", ratio_width(&r->ratios[s]),
			r->ratios[s].name);
	if (show_freq(r))
		fprintf(f, "%12s ", "freq");
	if (cols_average(r))
		for (s = 0; s < r->nstats; s++)
			if (report_stat_counted(&p->stats[s])) {
				esc_cut(buf, sizeof(buf),
					snprintf(buf, sizeof(buf), "%s/exec",
						 p->stats[s].name));
				fprintf(f, "%*s ", average_width(r, s), buf);
			}
}

static void figure_cells(FILE *f, const struct report *r,
			 const struct report_row *row)
{
	const struct profile *p = r->prof;
	size_t s;

	for (s = 0; s < r->nstats; s++) {
		if (!report_stat_counted(&p->stats[s]))
			continue;
		/* An instruction nobody sampled: blank, so the hot ones
		 * stand out in the listing. */
		if (!row->samples[s] && (row->kind == ROW_INSN ||
					 row->kind == ROW_BUCKET))
			fprintf(f, "%8s %*s ", "", count_width(r, s), "");
		else {
			fprintf(f, "%8.2f ", row->percent[s]);
			count_cell(f, r, s, row->samples[s], row->weight[s]);
		}
	}
	for (s = 0; s < r->nratios; s++) {
		int w = ratio_width(&r->ratios[s]);

		if (isnan(row->ratio[s]))
			fprintf(f, "%*s ", w, "-");
		else
			fprintf(f, "%*.2f%c ", w - 1, row->ratio[s],
				row->ratio_low[s] ? '*' : ' ');
	}
	if (show_freq(r)) {
		if (isnan(row->freq))
			fprintf(f, "%12s ", "-");
		else
			fprintf(f, "%12.0f ", row->freq);
	}
	if (cols_average(r))
		for (s = 0; s < r->nstats; s++) {
			if (!report_stat_counted(&p->stats[s]))
				continue;
			if (!row->average || isnan(row->average[s]))
				fprintf(f, "%*s ", average_width(r, s), "-");
			else
				fprintf(f, "%*.4g ", average_width(r, s),
					row->average[s]);
		}
}

static void print_rate(FILE *f, const struct prof_stat *s)
{
	if (s->period)
		fprintf(f, "every %" PRIu64 " events", s->period);
	else if (s->freq)
		fprintf(f, "%" PRIu64 " Hz", s->freq);
	else	/* a member of a perf record -e '{A,B}:S' group */
		fprintf(f, "read at its group leader's samples");
}

static void start_after_line(FILE *f, const struct profile *p);

/* A time statistic's heading line, after its modes: how it was taken and
 * the time it adds up to. */
static void time_stat_line(FILE *f, const struct report *r, size_t s)
{
	const struct prof_stat *st = &r->prof->stats[s];

	if (!st->freq && !st->period) {	/* offcpu: no timer */
		fprintf(f, "time off CPU, per switch: %" PRIu64 " intervals, "
			"%.3f s", r->total_samples[s],
			(double)r->total_weight[s] / 1e9);
	} else {
		fputs("wall-clock time: ", f);
		print_rate(f, st);
		fprintf(f, " on CPU and each switch off it: %" PRIu64
			" samples and intervals, %.3f s", r->total_samples[s],
			(double)r->total_weight[s] / 1e9);
	}
	fprintf(f, ", %" PRIu64 " lost%s\n", st->lost, st->lost ?
		" (records lost: the times may be low)" : "");
}

/* Truncation reasons shown in the heading; the rest are counted. */
#define TRUNC_SHOWN 3

/* How many stacks reached the entry, how many have kernel frames only
 * (kprofile -g's, kernel threads'), and where the others stopped. */
static void completeness_line(FILE *f, const struct report *r)
{
	const struct report_stacks *rs = r->stacks;
	uint64_t all = r->total_samples[rs->stat];
	size_t t;

	fprintf(f, "  call stacks (%s): %" PRIu64 " samples",
		r->prof->stats[rs->stat].name, rs->samples);
	if (rs->complete || !rs->kernel_only)
		fprintf(f, ", %.2f%% complete (reached _start/clone/thread "
			"entry)", rs->complete_percent);
	if (rs->kernel_only)
		fprintf(f, ", %.2f%% kernel frames only (a kernel thread's, "
			"or no user part recorded)", rs->kernel_only_percent);
	if (rs->ntrunc)
		fprintf(f, ", truncated: %.2f%% (", rs->truncated_percent);
	for (t = 0; t < rs->ntrunc && t < TRUNC_SHOWN; t++)
		fprintf(f, "%s%s in %s %.2f%%", t ? ", " : "",
			rs->trunc[t].reason, rs->trunc[t].object,
			rs->trunc[t].percent);
	if (rs->ntrunc > TRUNC_SHOWN)
		fprintf(f, ", %zu more", rs->ntrunc - TRUNC_SHOWN);
	if (rs->ntrunc)
		fputc(')', f);
	if (all > rs->samples)
		fprintf(f, "; %" PRIu64 " samples without a stack",
			all - rs->samples);
	fputc('\n', f);
}

/* One note of the heading, as the model made it. */
static void note_text(FILE *f, const struct report_note *n)
{
	switch (n->kind) {
	case REPORT_NOTE_NO_FREQ:
		fputs("  note: freq needs a retired-instruction statistic "
		      "(retinst, retire) or -pixie\n", f);
		break;
	case REPORT_NOTE_NO_RATIO:
		fprintf(f, "  note: %s cannot be computed: its inputs were "
			"not measured\n", n->subject);
		break;
	case REPORT_NOTE_NO_AVERAGE:
		fprintf(f, "  note: -average has nothing to divide by: the "
			"profile has no exact execution counts (-pixie, "
			"--engine=sim) nor retired-instruction samples "
			"(-e retinst) to estimate them from\n");
		break;
	case REPORT_NOTE_UNDECODED_KERNEL:
		fprintf(f, "  note: no blocks or instructions for %" PRIu64
			" kernel procedure(s): the kernel's code is read from "
			"a vmlinux image, kprofile -k VMLINUX or the one with "
			"the profile's kernel build-id under --debug-dir, "
			"/usr/lib/debug or from debuginfod; none with their "
			"code was found\n", n->count);
		break;
	case REPORT_NOTE_UNDECODED:
		fprintf(f, "  note: the code of %" PRIu64 " procedure(s) could "
			"not be decoded: their freq is their own count\n",
			n->count);
		break;
	case REPORT_NOTE_STALE:
		if (strcmp(n->detail, n->subject))
			fprintf(f, "  note: '%s' is not the %s of the profile "
				"(its build-id differs): not used; its rows "
				"are addresses\n", n->detail,
				path_base(n->subject));
		else
			fprintf(f, "  note: %s was rebuilt since the profile "
				"was taken (its build-id differs): its rows "
				"are addresses\n", path_base(n->subject));
		break;
	case REPORT_NOTE_NO_SYMBOLS:
		fprintf(f, "  note: %s has no symbols (stripped): its "
			"procedures are named func@ADDRESS from its unwind "
			"table, other code object+offset; install its debug "
			"symbols or build it with -g\n", path_base(n->subject));
		break;
	case REPORT_NOTE_EXPORTED_ONLY:
		fprintf(f, "  note: %s has only its exported symbols (.dynsym; "
			"no .symtab, no debug file found): its other "
			"procedures are named func@ADDRESS from its unwind "
			"table; install its debug symbols or build it with "
			"-g\n", path_base(n->subject));
		break;
	case REPORT_NOTE_UNREADABLE:
		fprintf(f, "  note: cannot read '%s' (%s): its addresses "
			"are shown as object+offset\n", n->subject,
			n->detail ? n->detail : "out of memory");
		break;
	case REPORT_NOTE_SKIPPED:
		/* The unreadable note says why already. */
		if (!n->repeats)
			fprintf(f, "  note: '%s' is a %s, not a regular file: "
				"not read\n", n->subject, n->detail);
		break;
	case REPORT_NOTE_MISSING_SOURCE:
		fprintf(f, "  note: source file %s is missing: its lines are "
			"shown by location only\n", n->subject);
		break;
	case REPORT_NOTE_SOURCE_NOT_READ:
		fprintf(f, "  note: the source files of %s are not read (%s): "
			"its lines are shown by location only\n", n->subject,
			n->detail);
		break;
	case REPORT_NOTE_BAD_DWARF:
		fprintf(f, "  note: %s has malformed debug information "
			"(DWARF), not used: its procedures are named from its "
			"symbol table, without source lines\n",
			path_base(n->subject));
		break;
	case REPORT_NOTE_UNMATCHED:
		fprintf(f, "  note: %s matches no procedure of the profile "
			"(a glob on the out-of-line procedure's name)\n",
			n->subject);
		break;
	case REPORT_NOTE_ANONYMOUS:
		fprintf(f, "  note: %.1f%% is anonymous code without names "
			"([anon] rows), likely JIT code: node "
			"--perf-basic-prof (or --perf-prof), python3.12+ -X "
			"perf and Java's perf-map-agent name it in "
			"/tmp/perf-PID.map (or a jit-PID.dump), which is read "
			"when the run ends\n", n->percent);
		break;
	case REPORT_NOTE_UNRESOLVED:
		/* Objects without a path (none is expected). */
		fprintf(f, "  note: %" PRIu64 " object(s) without a path could "
			"not be read; their addresses are shown as "
			"object+offset\n", n->count);
		break;
	case REPORT_NOTE_IDLE_EXCLUDED:
		fprintf(f, "  note: -exclude-idle: %" PRIu64 " samples of the "
			"idle task (pid 0) are left out; percentages are of "
			"the rest\n", n->count);
		break;
	case REPORT_NOTE_IDLE:
		/* A system-wide profile of a quiet machine is mostly CPUs
		 * halted with nothing to run. */
		fprintf(f, "  note: %.1f%% of the samples are the idle task "
			"(pid 0: CPUs with nothing to run, halted; on a VM "
			"in the hypervisor's halt call): -exclude-idle leaves "
			"them out\n", n->percent);
		break;
	case REPORT_NOTE_IRQ_SKID:
		fprintf(f, "  note: %s re-enables interrupts: timer-driven "
			"samples (cpu-clock) that fell due while they were "
			"off are taken there; they belong to the code that "
			"ran just before it\n", n->subject);
		break;
	}
}

/* The notes of kinds first .. last, in the model's order. */
static void notes(FILE *f, const struct report *r,
		  enum report_note_kind first, enum report_note_kind last)
{
	size_t k;

	for (k = 0; k < r->nnotes; k++)
		if (r->notes[k].kind >= first && r->notes[k].kind <= last)
			note_text(f, &r->notes[k]);
}

/* "Profile FILE (TOOL): ARGV (process PID) (CPU N)"; a perf.data's:
 * "(perf VERSION, read by TOOL)" */
static void title(FILE *f, const struct report *r)
{
	const struct profile *p = r->prof;
	int i;

	fputs("Profile", f);
	if (r->opt.file)
		fprintf(f, " %s", r->opt.file);
	if (p->tool && *p->tool && p->recorded_by)
		fprintf(f, " (%s, read by %s)", p->recorded_by, p->tool);
	else if (p->tool && *p->tool)
		fprintf(f, " (%s)", p->tool);
	if (p->argc) {
		fputc(':', f);
		for (i = 0; i < p->argc; i++) {
			fputc(' ', f);
			esc_shell_word(f, p->argv[i]);
		}
	}
	if (p->pid >= 0)
		fprintf(f, " (process %d)", p->pid);
	if (p->cpu >= 0)
		fprintf(f, " (CPU %d)", p->cpu);
	fputc('\n', f);
}

/* A line per counted statistic: how it was sampled, its totals. */
static void stat_lines(FILE *f, const struct report *r)
{
	const struct profile *p = r->prof;
	size_t s;

	for (s = 0; s < r->nstats; s++) {
		const struct prof_stat *st = &p->stats[s];

		if (!report_stat_counted(st))
			continue;
		fprintf(f, "  %s", st->name);
		if (st->flags & PROF_STAT_SIMULATED) {
			fprintf(f, " (simulated%s%s), %s mode, exact counts: %"
				PRIu64 " events\n",
				strcmp(st->requested, st->name) ? ", as " : "",
				strcmp(st->requested, st->name) ?
				st->requested : "", stat_modes_text(st->modes),
				r->total_weight[s]);
			continue;
		}
		if (st->flags & PROF_STAT_SUBSTITUTE)
			fprintf(f, " (substitute for %s)", st->requested);
		else if (strcmp(st->name, st->requested))
			fprintf(f, " (as %s)", st->requested);
		fprintf(f, ", %s mode, ", stat_modes_text(st->modes));
		if (is_time(st)) {
			time_stat_line(f, r, s);
			continue;
		}
		print_rate(f, st);
		fprintf(f, ": %" PRIu64 " samples, %" PRIu64 " lost",
			r->total_samples[s], st->lost);
		if (r->multiplexed[s])
			fprintf(f, ", sampled %.1f%% of the time (multiplexed)",
				r->running_percent[s]);
		fputc('\n', f);
	}
}

/* A line per ratio: its formula and its value for the whole run. */
static void ratio_lines(FILE *f, const struct report *r)
{
	const struct profile *p = r->prof;
	size_t s;

	for (s = 0; s < r->nratios; s++) {
		const struct report_ratio *ra = &r->ratios[s];

		fprintf(f, "  %s = ", ra->name);
		if (ra->scale != 1)
			fprintf(f, "%g * ", ra->scale);
		fprintf(f, "%s / %s: ", p->stats[ra->num].name,
			p->stats[ra->den].name);
		if (isnan(ra->total))
			fputs("no retired instructions", f);
		else
			fprintf(f, "%.4g%s", ra->total,
				ra->total_low ? " (few samples)" : "");
		fputs(" for the whole run\n", f);
	}
}

/* The run: how long, how it ended, where. */
static void run_line(FILE *f, const struct report *r)
{
	const struct profile *p = r->prof;

	fprintf(f, "  %.2f s", (double)p->duration_ns / 1e9);
	if (p->exit_status >= 0)
		fprintf(f, ", exit status %d", p->exit_status);
	if (p->hostname && *p->hostname)
		fprintf(f, ", on %s (%s %s)", p->hostname,
			p->sysname ? p->sysname : "", p->release ? p->release : "");
	fputc('\n', f);
	if (r->window)
		fprintf(f, "  window %s of the run (%.3f s): the samples "
			"above are those in it\n", r->window,
			(double)r->window_ns / 1e9);
}

/* -ra: where the samples of the routines went. */
static void ra_line(FILE *f, const struct report *r)
{
	const struct profile *p = r->prof;
	const char *list = p->ra_routines;
	size_t shown = strlen(list);

	if (shown > 48) {
		/* Show whole patterns only. */
		for (shown = 48; shown && list[shown] != ','; shown--)
			;
	}
	fprintf(f, "  -ra: %" PRIu64 " samples in %s were charged "
		"to their %s (%.*s%s; %zu pattern%s)\n", p->ra_moved,
		r->ra_from_stacks ? "utility routines" :
		"kernel utility routines",
		r->ra_from_stacks ? "first caller outside them, from "
		"the call stacks" : "callers", (int)shown, list,
		list[shown] ? ",..." : "", r->ra_patterns,
			r->ra_patterns == 1 ? "" : "s");
}

static void heading(FILE *f, const struct report *r)
{
	const struct profile *p = r->prof;

	title(f, r);
	stat_lines(f, r);
	ratio_lines(f, r);
	notes(f, r, REPORT_NOTE_NO_FREQ, REPORT_NOTE_NO_RATIO);
	if (show_freq(r)) {
		fprintf(f, "  freq: %s", p->stats[r->freq_stat].name);
		fputs(r->exact_execs ? ", exact execution counts\n" :
		      " samples averaged over each basic block (estimated "
		      "executions)\n", f);
	}
	notes(f, r, REPORT_NOTE_NO_AVERAGE, REPORT_NOTE_UNDECODED);
	run_line(f, r);
	start_after_line(f, p);
	if (p->ra_routines)
		ra_line(f, r);
	if (r->stacks)
		completeness_line(f, r);
	notes(f, r, REPORT_NOTE_STALE, REPORT_NOTE_IRQ_SKID);
}

static void mode_histogram(FILE *f, const struct profile *p);

/* Threads shown in the text table; the JSON report has them all. */
#define THREADS_SHOWN 20

/* Where each thread's time went, most first. */
static void threads_table(FILE *f, const struct report *r)
{
	size_t i, n = r->nthreads < THREADS_SHOWN ? r->nthreads :
		      THREADS_SHOWN;
	int st;

	fprintf(f, "\nthreads, seconds by state (%s):\n%7s %7s %-16s",
		r->prof->stats[r->threads_stat].name, "pid", "tid", "comm");
	for (st = 0; st < PROF_NSTATES; st++)
		fprintf(f, " %10s", profile_state_name((uint32_t)st));
	fputc('\n', f);
	for (i = 0; i < n; i++) {
		const struct report_thread *t = &r->threads[i];

		fprintf(f, "%7u %7u %-16s", t->pid, t->tid,
			t->comm && *t->comm ? t->comm : "[unknown]");
		for (st = 0; st < PROF_NSTATES; st++)
			if (st == PROF_STATE_RUNNING && !r->threads_running)
				fprintf(f, " %10s", "-");
			else
				fprintf(f, " %10.3f", (double)t->ns[st] / 1e9);
		fputc('\n', f);
	}
	if (n < r->nthreads)
		fprintf(f, "  (%zu more threads: -format json lists all)\n",
			r->nthreads - n);
}

/* ---- -by: the key columns and the totals per value ---- */

#define COMM_WIDTH 16

/* The key columns of keys by, each followed by a space. */
static void by_header(FILE *f, unsigned by)
{
	if (by & REPORT_BY_COMM)
		fprintf(f, "%-*s ", COMM_WIDTH, "comm");
	if (by & REPORT_BY_PID)
		fprintf(f, "%7s ", "pid");
	if (by & REPORT_BY_TID)
		fprintf(f, "%7s ", "tid");
	if (by & REPORT_BY_CPU)
		fprintf(f, "%4s ", "cpu");
	if (by & REPORT_BY_STATE)
		fprintf(f, "%-10s ", "state");
	if (by & REPORT_BY_OBJECT)
		fprintf(f, "%s ", "object");
}

/* A number key; "-" when not known. */
static void by_number(FILE *f, int width, long v)
{
	if (v < 0)
		fprintf(f, "%*s ", width, "-");
	else
		fprintf(f, "%*ld ", width, v);
}

static void by_cells(FILE *f, unsigned by, const struct report_by *v)
{
	if (by & REPORT_BY_COMM)
		fprintf(f, "%-*s ", COMM_WIDTH, !v->comm ? "-" :
			*v->comm ? v->comm : "[unknown]");
	if (by & REPORT_BY_PID)
		by_number(f, 7, v->pid);
	if (by & REPORT_BY_TID)
		by_number(f, 7, v->tid);
	if (by & REPORT_BY_CPU)
		by_number(f, 4, v->cpu);
	if (by & REPORT_BY_STATE)
		fprintf(f, "%-10s ", v->state ? v->state : "-");
	if (by & REPORT_BY_OBJECT)
		fprintf(f, "%s ", v->object ? path_base(v->object) : "-");
}

/* Width of the key columns (not the object's). */
static int by_width(unsigned by)
{
	return (by & REPORT_BY_COMM ? COMM_WIDTH + 1 : 0) +
	       (by & REPORT_BY_PID ? 8 : 0) + (by & REPORT_BY_TID ? 8 : 0) +
	       (by & REPORT_BY_CPU ? 5 : 0) + (by & REPORT_BY_STATE ? 11 : 0);
}

/* The rows have their object column already. */
static unsigned row_keys(const struct report *r)
{
	return r->opt.by & ~(unsigned)REPORT_BY_OBJECT;
}

/* The key columns (header when v is NULL) ending a line: no space
 * after the last. */
static void by_line_end(FILE *f, unsigned by, const struct report_by *v)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);

	if (!m)
		return;
	if (v)
		by_cells(m, by, v);
	else
		by_header(m, by);
	if (fclose(m)) {
		free(buf);
		return;
	}
	while (n && buf[n - 1] == ' ')
		n--;
	fprintf(f, "%.*s\n", (int)n, buf);
	free(buf);
}

/* The whole profile per value of the keys, hottest first. */
static void by_totals(FILE *f, const struct report *r, size_t shown)
{
	const struct profile *p = r->prof;
	size_t i, s;

	fputs("\ntotals by", f);
	for (i = 0; i < 6; i++)
		if (r->opt.by & (1u << i)) {
			static const char *const names[] = {
				"comm", "pid", "tid", "cpu", "object",
				"state" };

			fprintf(f, " %s", names[i]);
		}
	fputs(":\n", f);
	stat_names(f, r, shown);
	for (s = 0; s < r->nstats; s++)
		if (report_stat_counted(&p->stats[s]))
			fprintf(f, "%8s %*s ", "%", count_width(r, s),
				count_label(&p->stats[s]));
	by_line_end(f, r->opt.by, NULL);
	for (i = 0; i < r->nby_totals; i++) {
		const struct report_by_total *t = &r->by_totals[i];

		for (s = 0; s < r->nstats; s++)
			if (report_stat_counted(&p->stats[s])) {
				fprintf(f, "%8.2f ", t->percent[s]);
				count_cell(f, r, s, t->samples[s],
					   t->weight[s]);
			}
		by_line_end(f, r->opt.by, &t->by);
	}
	if (!r->nby_totals)
		fputs("  (no samples)\n", f);
}

static void row_procedure(char *buf, size_t len, const struct report_row *row)
{
	if (row->inlined_into)
		esc_cut(buf, len, snprintf(buf, len, "%s [inlined into %s]",
					   row->procedure, row->inlined_into));
	else
		esc_cut(buf, len, snprintf(buf, len, "%s", row->procedure));
}

static void where_cell(char *buf, size_t len, const struct report_row *row)
{
	if (!row->file)
		snprintf(buf, len, "??");
	else if (row->last_line > row->line)
		esc_cut(buf, len, snprintf(buf, len, "%s:%u-%u",
					   path_base(row->file), row->line,
					   row->last_line));
	else
		esc_cut(buf, len, snprintf(buf, len, "%s:%u",
					   path_base(row->file), row->line));
}

static void range_cell(char *buf, size_t len, const struct report_row *row)
{
	if (row->end > row->address)
		snprintf(buf, len, "0x%" PRIx64 "-0x%" PRIx64, row->address,
			 row->end);
	else
		snprintf(buf, len, "0x%" PRIx64, row->address);
}

/* The width of the figure columns, for the asm view's interleaved
 * text. */
static int figures_width(const struct report *r)
{
	int indent = 0;
	size_t s;

	for (s = 0; s < r->nstats; s++)
		if (report_stat_counted(&r->prof->stats[s]))
			indent += 10 + count_width(r, s);
	for (s = 0; s < r->nratios; s++)
		indent += ratio_width(&r->ratios[s]) + 1;
	indent += show_freq(r) ? 13 : 0;
	indent += by_width(row_keys(r));
	if (cols_average(r))
		for (s = 0; s < r->nstats; s++)
			indent += report_stat_counted(&r->prof->stats[s]) ?
				  average_width(r, s) + 1 : 0;
	return indent;
}

/* A procedure's heading in the asm view. */
static void asm_heading(FILE *f, const struct report *r,
			const struct report_row *row, size_t shown)
{
	char obj[128];
	size_t s;

	fprintf(f, "\n%s (%s)", row->procedure,
		object_name(row, obj, sizeof(obj)));
	for (s = 0; s < r->nstats; s++)
		if (report_stat_counted(&r->prof->stats[s]))
			fprintf(f, ", %.2f%% of %s", row->percent[s],
				r->prof->stats[s].name);
	for (s = 0; s < r->nratios; s++)
		if (!isnan(row->ratio[s]))
			fprintf(f, ", %s %.2f%s", r->ratios[s].name,
				row->ratio[s], row->ratio_low[s] ? "*" : "");
	fputs(":\n", f);
	stat_names(f, r, shown);
	figure_header(f, r);
	by_header(f, row_keys(r));
	fprintf(f, "%-18s %s\n", "address", "instruction");
}

/*
 * What figure_cells() and the blank -by cells print for an instruction
 * nobody sampled, when no column shows anything else of it (no ratio,
 * freq or average): the same for most rows of a listing.  malloc'd;
 * NULL: print them row by row.
 */
static char *blank_cells(const struct report *r)
{
	struct report_row row = { .kind = ROW_INSN };
	uint64_t *zero;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	if (r->nratios || show_freq(r) || cols_average(r))
		return NULL;
	zero = calloc(r->nstats + 1, sizeof(*zero));
	m = zero ? open_memstream(&buf, &len) : NULL;
	if (m) {
		row.samples = zero;
		figure_cells(m, r, &row);
		fprintf(m, "%*s", by_width(row_keys(r)), "");
		if (fclose(m)) {
			free(buf);
			buf = NULL;
		}
	}
	free(zero);
	return buf;
}

/* An instruction (or bucket) row of the asm view, rows[j] of its
 * procedure's, at index at of the whole listing; blank: blank_cells(). */
static void asm_row(FILE *f, const struct report *r,
		    const struct report_row *rows, size_t j, size_t at,
		    int indent, const char *blank)
{
	const struct report_row *row = &rows[j];
	char buf[64];
	size_t s;

	if (row->block_start || (row->kind == ROW_BUCKET && j &&
				 rows[j - 1].address != row->address))
		fprintf(f, "%*s---- %s %u ----\n", indent, "",
			row->kind == ROW_BUCKET ? "bucket" : "block",
			row->kind == ROW_BUCKET ? (unsigned)at : row->block);
	/* The location stays when the text cannot be read (the heading
	 * names the missing file). */
	if (row->line_start)
		fprintf(f, "%*s%s:%u:%s%s\n", indent, "",
			path_base(row->file), row->line,
			row->source ? " " : "",
			row->source ? row->source : "");
	/* Blank, like the figures, where nothing was sampled. */
	for (s = 0; s < r->nstats && !row->samples[s]; s++)
		;
	if (s == r->nstats && blank) {
		fputs(blank, f);
	} else {
		figure_cells(f, r, row);
		if (s < r->nstats)
			by_cells(f, row_keys(r), &row->by);
		else
			fprintf(f, "%*s", by_width(row_keys(r)), "");
	}
	if (row->kind == ROW_BUCKET) {
		range_cell(buf, sizeof(buf), row);
		fprintf(f, "%-18s %s\n", buf, row->text ? row->text : "");
	} else {
		fprintf(f, "0x%-16" PRIx64 " %s\n", row->address,
			row->text ? row->text : "(not decoded)");
	}
}

/* The asm view: a heading per procedure, then its instructions in
 * address order, basic blocks separated, source lines interleaved. */
static int asm_listing(FILE *f, const struct report *r, size_t shown)
{
	int indent = figures_width(r), err = 0;
	char *blank = blank_cells(r);
	size_t i, j, n, first;

	for (i = 0; i < r->nrows && !err; i++) {
		const struct report_row *rows;

		err = report_asm_rows(r, i, &rows, &n, &first);
		if (err)
			break;
		asm_heading(f, r, &r->rows[i], shown);
		for (j = 0; j < n; j++)
			asm_row(f, r, rows, j, first + j, indent, blank);
	}
	free(blank);
	return err;
}

/* ---- call-stack views ------------------------------------------------ */

static const char *stack_view_name(const struct report *r)
{
	switch (r->opt.stack_view) {
	case REPORT_CALLERS: return "callers";
	case REPORT_CALLEES: return "callees";
	case REPORT_TREE: return "call tree from the roots";
	case REPORT_STACKS_NONE: break;
	}
	return "procedures";
}

static void frame_text(char *buf, size_t len, const struct report_call *c)
{
	esc_cut(buf, len, snprintf(buf, len, "%s%s%s", c->f.name,
				   c->f.inlined ? " [inlined]" : "",
				   c->recursive ? " [recursive]" : ""));
}

/* -callers/-callees: each procedure, then its callers or callees with
 * their share of its total. */
static void focus_text(FILE *f, const struct report *r)
{
	const struct report_stacks *rs = r->stacks;
	int callers = r->opt.stack_view == REPORT_CALLERS;
	size_t i, k;
	char name[600];

	for (i = 0; i < rs->nfocus; i++) {
		const struct report_focus *fo = &rs->focus[i];

		fprintf(f, "%s%s: total %.2f%% (%" PRIu64 " samples), self "
			"%.2f%% (%" PRIu64 " samples)\n", i ? "\n" : "",
			fo->name, fo->percent, fo->samples, fo->self_percent,
			fo->self_samples);
		fprintf(f, "  %8s %8s %10s  %s\n", "share%", "total%",
			"samples", callers ? "caller" : "callee");
		for (k = 0; k < fo->ncalls; k++) {
			const struct report_call *c = &fo->calls[k];

			frame_text(name, sizeof(name), c);
			fprintf(f, "  %8.2f %8.2f %10" PRIu64 "  %s\n",
				c->share, c->percent, c->samples, name);
		}
		if (!fo->ncalls)
			fprintf(f, "  (no %s)\n", callers ? "callers" :
				"callees");
	}
}

static void tree_node(FILE *f, const struct report_call *c, int depth)
{
	char name[600];
	size_t i;

	frame_text(name, sizeof(name), c);
	fprintf(f, "  %8.2f %8.2f %10" PRIu64 "  %*s%s", c->percent,
		c->self_percent, c->samples, 2 * depth, "", name);
	if (c->nchildren < c->nchildren_all)
		fprintf(f, "  (%zu more not shown)",
			c->nchildren_all - c->nchildren);
	fputc('\n', f);
	for (i = 0; i < c->nchildren; i++)
		tree_node(f, &c->children[i], depth + 1);
}

static void stack_view(FILE *f, const struct report *r)
{
	const struct report_stacks *rs = r->stacks;
	size_t i;

	if (r->opt.stack_view != REPORT_TREE) {
		focus_text(f, r);
		return;
	}
	fprintf(f, "  (nodes below %.2f%% pruned)\n", rs->tree_min);
	fprintf(f, "  %8s %8s %10s  %s\n", "total%", "self%", "samples",
		"procedure");
	for (i = 0; i < rs->tree.nchildren; i++)
		tree_node(f, &rs->tree.children[i], 0);
	if (rs->tree.nchildren < rs->tree.nchildren_all)
		fprintf(f, "  (%zu more roots not shown)\n",
			rs->tree.nchildren_all - rs->tree.nchildren);
	if (!rs->tree.nchildren_all)
		fputs("  (no samples)\n", f);
}

/* ---- -timeline ------------------------------------------------------- */

/* The shades of a cell's level 0 .. REPORT_TIMELINE_LEVELS: Unicode
 * blocks, or ASCII when the locale is not UTF-8. */
static const char *shade(const struct report *r, unsigned level)
{
	static const char *const blocks[REPORT_TIMELINE_LEVELS + 1] = {
		" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585",
		"\u2586", "\u2587", "\u2588",
	};
	static const char *const ascii[REPORT_TIMELINE_LEVELS + 1] = {
		" ", ".", ":", "-", "=", "+", "*", "#", "@",
	};

	if (level > REPORT_TIMELINE_LEVELS)
		level = REPORT_TIMELINE_LEVELS;
	return r->opt.ascii ? ascii[level] : blocks[level];
}

/* The letter of procedure i of the timeline's list ('*' past 52). */
static char proc_letter(size_t i)
{
	if (i < 26)
		return (char)('A' + i);
	if (i < 52)
		return (char)('a' + i - 26);
	return '*';
}

/* Seconds with as many decimals as the intervals need. */
static void tl_seconds(char *buf, size_t len,
		       const struct report_timeline *tl, uint64_t ns)
{
	uint64_t step = (tl->end - tl->start) / tl->nintervals;
	int dec = step >= 100000000 ? 2 : step >= 1000000 ? 3 : 6;

	snprintf(buf, len, "%.*f", dec, (double)ns / 1e9);
}

/* The label column of a timeline row: with the borders of the cells,
 * FMT_TIMELINE_MARGIN columns beside them. */
static void tl_label(FILE *f, const struct report_timeline *tl,
		     const struct report_by *by)
{
	char cpu[32];

	switch (tl->by) {
	case REPORT_BY_COMM:
		fprintf(f, "  %-24.24s ", by->comm ? by->comm : "");
		break;
	case REPORT_BY_CPU:
		snprintf(cpu, sizeof(cpu), "cpu %ld", by->cpu);
		fprintf(f, "  %-24s ", cpu);
		break;
	default:
		fprintf(f, "  %-16.16s %7ld ", by->comm ? by->comm : "",
			tl->by == REPORT_BY_PID ? by->pid : by->tid);
		break;
	}
}

/* The label column's heading and the times of the first interval's
 * start and the last's end above the cells. */
static void tl_scale(FILE *f, const struct report_timeline *tl)
{
	static const char *const heads[] = {
		[REPORT_BY_COMM] = "comm", [REPORT_BY_PID] = "comm pid",
		[REPORT_BY_TID] = "comm tid", [REPORT_BY_CPU] = "cpu",
	};
	char a[32], b[32];
	int n = (int)tl->nintervals, la, lb;

	tl_seconds(a, sizeof(a), tl, tl->start);
	tl_seconds(b, sizeof(b), tl, tl->end);
	la = (int)strlen(a) + 2;
	lb = (int)strlen(b) + 2;
	fprintf(f, "  %-24s  %s s", heads[tl->by], a);
	if (n >= la + lb + 1)
		fprintf(f, "%*s s", n - la - lb + (lb - 2), b);
	fputc('\n', f);
}

static void tl_rows(FILE *f, const struct report *r)
{
	const struct report_timeline *tl = r->timeline;
	size_t i, k;

	for (i = 0; i < tl->nrows; i++) {
		tl_label(f, tl, &tl->rows[i].by);
		fputc('|', f);
		for (k = 0; k < tl->nintervals; k++)
			fputs(shade(r, tl->rows[i].level[k]), f);
		fputs("|\n", f);
	}
	if (!tl->nrows)
		fputs("  (no samples)\n", f);
	if (tl->selection) {
		fprintf(f, "  %-24s |", "selected, all rows");
		for (k = 0; k < tl->nintervals; k++)
			fputs(shade(r, tl->intervals[k].sel_level), f);
		fputs("|\n", f);
	}
	fprintf(f, "  %-24s |", "hottest procedure");
	for (k = 0; k < tl->nintervals; k++)
		fputc(tl->intervals[k].hottest == SIZE_MAX ? ' ' :
		      proc_letter(tl->intervals[k].hottest), f);
	fputs("|\n", f);
}

static void tl_procedure(char *buf, size_t len, const struct report_tl_proc *p)
{
	esc_cut(buf, len, snprintf(buf, len, "%s%s%s%s", p->procedure,
				   p->inlined_into ? " [inlined into " : "",
				   p->inlined_into ? p->inlined_into : "",
				   p->inlined_into ? "]" : ""));
}

/* The hottest procedures' letters, then the phases. */
static void tl_phases(FILE *f, const struct report *r)
{
	const struct report_timeline *tl = r->timeline;
	char name[600], a[32], b[32];
	size_t i;

	for (i = 0; i < tl->nprocs && i < 52; i++) {
		const struct report_tl_proc *p = &tl->procs[i];

		tl_procedure(name, sizeof(name), p);
		fprintf(f, "    %c  %s (%s)\n", proc_letter(i), name,
			path_base(p->object ? p->object : ""));
	}
	if (tl->nprocs > 52)
		fprintf(f, "    *  %zu other procedures\n", tl->nprocs - 52);
	fprintf(f, "\nphases (consecutive intervals with the same hottest "
		"procedure), by %s:\n", r->prof->stats[tl->stat].name);
	for (i = 0; i < tl->nphases; i++) {
		const struct report_tl_phase *ph = &tl->phases[i];

		tl_seconds(a, sizeof(a), tl, ph->start);
		tl_seconds(b, sizeof(b), tl, ph->end);
		if (ph->proc == SIZE_MAX) {
			fprintf(f, "  %s-%s s  -  (no samples)\n", a, b);
			continue;
		}
		tl_procedure(name, sizeof(name), &tl->procs[ph->proc]);
		fprintf(f, "  %s-%s s  %c  %s  (%.1f%%)\n", a, b,
			proc_letter(ph->proc), name, ph->percent);
	}
}

/* -timeline: a row of cells per thread (or process, command, CPU), the
 * hottest procedure of each interval, the phases. */
static void timeline_text(FILE *f, const struct report *r)
{
	const struct report_timeline *tl = r->timeline;
	const char *stat = r->prof->stats[tl->stat].name;
	char a[32], b[32], step[32];
	size_t k;

	tl_seconds(a, sizeof(a), tl, tl->start);
	tl_seconds(b, sizeof(b), tl, tl->end);
	tl_seconds(step, sizeof(step), tl,
		   (tl->end - tl->start) / tl->nintervals);
	fprintf(f, "\ntimeline by %s, %s-%s s in %zu intervals of %s s\n",
		stat, a, b, tl->nintervals, step);
	if (tl->selection) {
		fputs("(a cell: the share in its weight of ", f);
		for (k = 0; k < r->opt.nonly; k++)
			fprintf(f, "%s-only %s", k ? ", " : "", r->opt.only[k]);
		for (k = 0; k < r->opt.nexclude; k++)
			fprintf(f, "%s-exclude %s", k || r->opt.nonly ?
				", " : "", r->opt.exclude[k]);
		fprintf(f, ", %s = 100%%):\n",
			shade(r, REPORT_TIMELINE_LEVELS));
	} else {
		fprintf(f, "(a cell: its weight against the busiest cell's, "
			"%s = %" PRIu64 "):\n",
			shade(r, REPORT_TIMELINE_LEVELS), tl->max_weight);
	}
	tl_scale(f, tl);
	tl_rows(f, r);
	tl_phases(f, r);
}

static int report_text_body(FILE *f, const struct report *r)
{
	enum report_view v = r->opt.view;
	int lines = v == REPORT_LINES || v == REPORT_HEAVY;
	int ranges = v == REPORT_BLOCKS || v == REPORT_BUCKETS;
	size_t i, s, pw = 32, shown = 0;
	char proc[512], where[512], obj[128], range[64];
	const struct prof_stat *first = NULL;
	/* Rows split by task have no inclusive figure of their own. */
	int totals = r->stacks && v == REPORT_PROCEDURES &&
		     !(r->opt.by & REPORT_BY_TASK);

	heading(f, r);
	for (s = 0; s < r->nstats; s++)
		if (report_stat_counted(&r->prof->stats[s])) {
			shown++;
			if (!first)
				first = &r->prof->stats[s];
		}
	if (r->timeline) {
		timeline_text(f, r);
		mode_histogram(f, r->prof);
		return ferror(f) ? -PROF_EIO : 0;
	}
	if (r->nthreads)
		threads_table(f, r);
	if (r->opt.by)
		by_totals(f, r, shown);
	fprintf(f, "\n%s", r->opt.stack_view ? stack_view_name(r) :
			   view_name(v));
	if (v == REPORT_PROCEDURES && !r->opt.stack_view)
		fputs(r->opt.inline_split ? " (inlined code apart)" :
		      " (incl. inlined code)", f);
	if (r->stacks && r->opt.stack_view)
		first = &r->prof->stats[r->stacks->stat];
	if (first)
		fprintf(f, ", by %s", first->name);
	if (r->nrows < r->nrows_all && v != REPORT_ASM && !r->opt.stack_view)
		fprintf(f, " (%zu of %zu rows)", r->nrows, r->nrows_all);
	fputs(":\n", f);
	if (v == REPORT_ASM) {
		int err = asm_listing(f, r, shown);

		if (err)
			return err;
		if (!r->nrows)
			fputs("  (no samples)\n", f);
		mode_histogram(f, r->prof);
		return ferror(f) ? -PROF_EIO : 0;
	}
	if (r->opt.stack_view != REPORT_STACKS_NONE) {
		stack_view(f, r);
		mode_histogram(f, r->prof);
		return ferror(f) ? -PROF_EIO : 0;
	}
	stat_names(f, r, shown);
	figure_header(f, r);
	if (totals)
		fprintf(f, "%7s ", "total%");
	fprintf(f, "%7s ", "cum%");
	by_header(f, row_keys(r));
	if (r->opt.numbers && !ranges)
		fprintf(f, "%-18s ", "address");
	if (ranges)
		fprintf(f, "%-29s ", v == REPORT_BLOCKS ? "block" : "bucket");
	if (lines || ranges)
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
	for (i = 0; i < r->nrows; i++) {
		const struct report_row *row = &r->rows[i];

		figure_cells(f, r, row);
		if (totals)
			fprintf(f, "%7.2f ", row->total_percent);
		fprintf(f, "%7.2f ", row->cum_percent);
		by_cells(f, row_keys(r), &row->by);
		if (r->opt.numbers && !ranges)
			fprintf(f, "0x%-16" PRIx64 " ", row->address);
		if (ranges) {
			range_cell(range, sizeof(range), row);
			fprintf(f, "%-29s ", range);
		}
		if (lines || ranges) {
			where_cell(where, sizeof(where), row);
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
		if (p->modes[i].cpu == PROF_CPU_UNKNOWN)	/* not said */
			snprintf(label, sizeof(label), "-");
		else
			snprintf(label, sizeof(label), "%u", p->modes[i].cpu);
		mode_row(f, label, p->modes[i].n);
	}
	if (p->nmodes > 1)
		mode_row(f, "all", all);
}

static int report_summary_body(FILE *f, const struct report *r, size_t n)
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

static int report_counts_text_body(FILE *f, const struct report_counts *rc)
{
	const struct profile *p = rc->prof;
	size_t i, w = 10;
	int a;
	char num[64];

	fputs("Counts", f);
	if (rc->file)
		fprintf(f, " %s", rc->file);
	if (p->tool && *p->tool && p->recorded_by)
		fprintf(f, " (%s, read by %s)", p->recorded_by, p->tool);
	else if (p->tool && *p->tool)
		fprintf(f, " (%s)", p->tool);
	if (p->argc) {
		fputc(':', f);
		for (a = 0; a < p->argc; a++) {
			fputc(' ', f);
			esc_shell_word(f, p->argv[a]);
		}
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
		const struct report_count_ratio *q = &rc->ratios[i];

		if (isnan(q->value))
			fprintf(f, "  %-*s %20s  %s\n", (int)w, q->name, "-",
				q->formula);
		else
			fprintf(f, "  %-*s %20.4f  %s\n", (int)w, q->name,
				q->value, q->formula);
	}
	return ferror(f) ? -PROF_EIO : 0;
}

int fmt_text(FILE *out, const struct report *r)
{
	FILE *f = esc_visible_stream(out);
	int err;

	if (!f)
		return -PROF_ENOMEM;
	err = report_text_body(f, r);
	if (fclose(f) && !err)
		err = -PROF_EIO;
	return err;
}

int fmt_summary(FILE *out, const struct report *r, size_t n)
{
	FILE *f = esc_visible_stream(out);
	int err;

	if (!f)
		return -PROF_ENOMEM;
	err = report_summary_body(f, r, n);
	if (fclose(f) && !err)
		err = -PROF_EIO;
	return err;
}

int fmt_counts_text(FILE *out, const struct report_counts *rc)
{
	FILE *f = esc_visible_stream(out);
	int err;

	if (!f)
		return -PROF_ENOMEM;
	err = report_counts_text_body(f, rc);
	if (fclose(f) && !err)
		err = -PROF_EIO;
	return err;
}
