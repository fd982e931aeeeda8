/* SPDX-License-Identifier: MIT */
/*
 * The JSON report (schema in docs/json-report.md, versioned by
 * "schema_version").  Layout only.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util/error.h"
#include "escape.h"
#include "formats/report/report.h"
#include "common/stats/stats.h"

/*
 * Every string of the report goes through here.  Names are bytes from
 * outside (symbols, DWARF, paths): a byte that is not well-formed UTF-8
 * becomes U+FFFD, written "\\ufffd", so the document stays valid JSON.
 */
static void jstr(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	if (!s) {
		fputs("null", f);
		return;
	}
	n = strlen(str);
	fputc('"', f);
	while (n) {
		unsigned char c = *s;
		int len = utf8_seq_len(s, n);

		if (len <= 0) {
			fputs("\\ufffd", f);
			len = 1;
		} else if (len > 1) {
			fwrite(s, 1, (size_t)len, f);
		} else if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
		} else {
			fputc(c, f);
		}
		s += len;
		n -= (size_t)len;
	}
	fputc('"', f);
}

static void jnum(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", f);
	else
		fprintf(f, "%.4f", v);
}

static const char *view_key(enum report_view v)
{
	switch (v) {
	case REPORT_LINES: return "lines";
	case REPORT_HEAVY: return "heavy";
	case REPORT_BLOCKS: return "blocks";
	case REPORT_ASM: return "asm";
	case REPORT_BUCKETS: return "buckets";
	default: return "procedures";
	}
}

/* Statistics with counts of their own (not ratios, not counting mode). */
static int counted(const struct prof_stat *st)
{
	return !(st->flags & (PROF_STAT_DERIVED | PROF_STAT_COUNTING));
}

/* {"stat": value, ...} over the counted statistics, from u (integers)
 * or d (numbers). */
static void per_stat(FILE *f, const struct report *r, const uint64_t *u,
		     const double *d)
{
	size_t s;
	int n = 0;

	fputc('{', f);
	for (s = 0; s < r->nstats; s++) {
		if (!counted(&r->prof->stats[s]))
			continue;
		if (n++)
			fputs(", ", f);
		jstr(f, r->prof->stats[s].name);
		fputs(": ", f);
		if (u)
			fprintf(f, "%" PRIu64, u[s]);
		else
			jnum(f, d[s]);
	}
	fputc('}', f);
}

static const char *kind_key(enum report_row_kind k)
{
	switch (k) {
	case ROW_LINE: return "line";
	case ROW_BLOCK: return "block";
	case ROW_INSN: return "instruction";
	case ROW_BUCKET: return "bucket";
	default: return "procedure";
	}
}

/* The fields of one row (without the closing brace). */
static void json_row(FILE *f, const struct report *r,
		     const struct report_row *row)
{
	size_t s;

	fprintf(f, "\"kind\": \"%s\", \"procedure\": ", kind_key(row->kind));
	jstr(f, row->procedure);
	fputs(", \"inlined_into\": ", f);
	jstr(f, row->inlined_into);
	fputs(", \"object\": ", f);
	jstr(f, row->object);
	fputs(", \"module\": ", f);
	jstr(f, row->module);
	fputs(", \"file\": ", f);
	jstr(f, row->file);
	if (row->line)
		fprintf(f, ", \"line\": %u", row->line);
	else
		fputs(", \"line\": null", f);
	fprintf(f, ", \"address\": \"0x%" PRIx64 "\"", row->address);
	if (row->kind == ROW_BLOCK || row->kind == ROW_BUCKET ||
	    row->kind == ROW_INSN) {
		fprintf(f, ", \"end\": \"0x%" PRIx64 "\"", row->end);
		if (row->last_line)
			fprintf(f, ", \"last_line\": %u", row->last_line);
	}
	if (row->kind == ROW_INSN || row->kind == ROW_BLOCK ||
	    row->kind == ROW_BUCKET) {
		fprintf(f, ", \"block\": %u", row->block);
	}
	if (row->kind == ROW_INSN) {
		fputs(", \"text\": ", f);
		jstr(f, row->text);
		fprintf(f, ", \"block_start\": %s",
			row->block_start ? "true" : "false");
		fputs(", \"source\": ", f);
		jstr(f, row->source);
	}
	fputs(", \"samples\": ", f);
	per_stat(f, r, row->samples, NULL);
	fputs(", \"weight\": ", f);
	per_stat(f, r, row->weight, NULL);
	fputs(", \"percent\": ", f);
	per_stat(f, r, NULL, row->percent);
	fputs(", \"ratios\": {", f);
	for (s = 0; s < r->nratios; s++) {
		if (s)
			fputs(", ", f);
		jstr(f, r->ratios[s].name);
		fputs(": {\"value\": ", f);
		jnum(f, row->ratio[s]);
		fprintf(f, ", \"low\": %s}",
			row->ratio_low[s] ? "true" : "false");
	}
	fputs("}, \"freq\": ", f);
	jnum(f, row->freq);
	fputs(", \"executions\": ", f);
	jnum(f, row->execs);
	if (row->average) {
		fputs(", \"average\": ", f);
		per_stat(f, r, NULL, row->average);
	}
	fputs(", \"cumulative_percent\": ", f);
	jnum(f, row->cum_percent);
}

/* The fields every report starts with, up to "cpu". */
static void header(FILE *f, const struct profile *p, const char *file,
		   const char *mode)
{
	int a;

	fprintf(f, "{\n  \"schema_version\": %d,\n  \"mode\": \"%s\",\n"
		"  \"tool\": ", REPORT_JSON_VERSION, mode);
	jstr(f, p->tool);
	fputs(",\n  \"file\": ", f);
	jstr(f, file);
	fputs(",\n  \"command\": [", f);
	for (a = 0; a < p->argc; a++) {
		if (a)
			fputs(", ", f);
		jstr(f, p->argv[a]);
	}
	fputs("],\n  \"host\": {\"hostname\": ", f);
	jstr(f, p->hostname);
	fputs(", \"sysname\": ", f);
	jstr(f, p->sysname);
	fputs(", \"release\": ", f);
	jstr(f, p->release);
	fputs(", \"machine\": ", f);
	jstr(f, p->machine);
	fputs(", \"cpu_model\": ", f);
	jstr(f, p->cpu_model);
	fprintf(f, ", \"ncpus\": %u},\n", p->ncpus);
	fprintf(f, "  \"start_time_ns\": %" PRIu64 ",\n", p->start_time_ns);
	fprintf(f, "  \"duration_seconds\": %.6f,\n",
		(double)p->duration_ns / 1e9);
	if (p->exit_status >= 0)
		fprintf(f, "  \"exit_status\": %d,\n", p->exit_status);
	else
		fputs("  \"exit_status\": null,\n", f);
	if (p->pid >= 0)
		fprintf(f, "  \"pid\": %d,\n", p->pid);
	else
		fputs("  \"pid\": null,\n", f);
	if (p->cpu >= 0)
		fprintf(f, "  \"cpu\": %d,\n", p->cpu);
	else
		fputs("  \"cpu\": null,\n", f);
	if (!p->start_after) {
		fputs("  \"start_after\": null,\n", f);
		return;
	}
	fputs("  \"start_after\": {\"condition\": ", f);
	jstr(f, p->start_after);
	if (p->start_after_ns < 0)
		fputs(", \"reached\": false, \"seconds\": null", f);
	else
		fprintf(f, ", \"reached\": true, \"seconds\": %.6f",
			(double)p->start_after_ns / 1e9);
	fprintf(f, ", \"handover_ns\": %" PRIu64 "},\n",
		p->start_after_latency_ns);
}

int report_json(FILE *f, const struct report *r)
{
	static const char *const mode_names[PROF_NMODES] = {
		"user", "kernel", "idle", "guest", "hypervisor"
	};
	const struct profile *p = r->prof;
	size_t i, s;
	int m;

	header(f, p, r->opt.file, "sample");
	if (p->ra_routines) {
		fputs("  \"caller_attribution\": {\"routines\": ", f);
		jstr(f, p->ra_routines);
		fprintf(f, ", \"moved_samples\": %" PRIu64 "},\n",
			p->ra_moved);
	} else {
		fputs("  \"caller_attribution\": null,\n", f);
	}
	fputs("  \"statistics\": [", f);
	for (s = 0; s < r->nstats; s++) {
		const struct prof_stat *st = &p->stats[s];

		fputs(s ? ",\n    {" : "\n    {", f);
		fputs("\"name\": ", f);
		jstr(f, st->name);
		fputs(", \"requested\": ", f);
		jstr(f, st->requested);
		fprintf(f, ", \"substitute\": %s, \"modes\": \"%s\", "
			"\"period\": %" PRIu64 ", \"frequency\": %" PRIu64
			", \"samples\": %" PRIu64 ", \"lost\": %" PRIu64
			", \"weight\": %" PRIu64 ", \"value\": %" PRIu64
			", \"time_enabled_ns\": %" PRIu64
			", \"time_running_ns\": %" PRIu64
			", \"simulated\": %s, \"derived\": %s",
			st->flags & PROF_STAT_SUBSTITUTE ? "true" : "false",
			stat_modes_text(st->modes), st->period, st->freq,
			r->total_samples[s], st->lost, r->total_weight[s],
			st->value, st->time_enabled, st->time_running,
			st->flags & PROF_STAT_SIMULATED ? "true" : "false",
			st->flags & PROF_STAT_DERIVED ? "true" : "false");
		{
			double pct;
			int mux = report_stat_multiplexed(p, st, &pct);

			fprintf(f, ", \"multiplexed\": %s}",
				mux ? "true" : "false");
		}
	}
	fputs(r->nstats ? "\n  ],\n" : "],\n", f);
	fputs("  \"ratios\": [", f);
	for (s = 0; s < r->nratios; s++) {
		const struct report_ratio *ra = &r->ratios[s];

		fputs(s ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
		jstr(f, ra->name);
		fputs(", \"numerator\": ", f);
		jstr(f, p->stats[ra->num].name);
		fputs(", \"denominator\": ", f);
		jstr(f, p->stats[ra->den].name);
		fputs(", \"scale\": ", f);
		jnum(f, ra->scale);
		fputs(", \"value\": ", f);
		jnum(f, ra->total);
		fprintf(f, ", \"low\": %s}", ra->total_low ? "true" : "false");
	}
	fputs(r->nratios ? "\n  ],\n" : "],\n", f);
	if (r->freq_stat >= 0) {
		fputs("  \"freq\": {\"statistic\": ", f);
		jstr(f, p->stats[r->freq_stat].name);
		fprintf(f, ", \"exact\": %s, \"total\": ",
			r->exact_execs ? "true" : "false");
		jnum(f, r->total_freq);
		fprintf(f, ", \"undecoded_procedures\": %zu},\n", r->undecoded);
	} else {
		fputs("  \"freq\": null,\n", f);
	}
	if (r->opt.stride >= 0)
		fprintf(f, "  \"stride\": %ld,\n", r->opt.stride);
	else
		fputs("  \"stride\": null,\n", f);
	fprintf(f, "  \"average\": %s,\n", r->opt.average ? "true" : "false");
	fprintf(f, "  \"view\": \"%s\",\n", view_key(r->opt.view));
	fprintf(f, "  \"rows_total\": %zu,\n", r->nrows_all);
	fprintf(f, "  \"unresolved_objects\": %zu,\n", r->unresolved_objects);
	fputs("  \"stale_objects\": [", f);
	for (i = 0; i < r->nstale; i++) {
		if (i)
			fputs(", ", f);
		jstr(f, r->stale[i]);
	}
	fputs("],\n  \"objects_without_symbols\": [", f);
	for (i = 0; i < r->nnosyms; i++) {
		if (i)
			fputs(", ", f);
		jstr(f, r->nosyms[i]);
	}
	fputs("],\n  \"objects_with_bad_dwarf\": [", f);
	for (i = 0; i < r->nbaddwarf; i++) {
		if (i)
			fputs(", ", f);
		jstr(f, r->baddwarf[i]);
	}
	fputs("],\n  \"skipped_files\": [", f);
	for (i = 0; i < r->nskipped; i++) {
		fputs(i ? ", {\"path\": " : "{\"path\": ", f);
		jstr(f, r->skipped[i].path);
		fputs(", \"kind\": ", f);
		jstr(f, r->skipped[i].kind);
		fputc('}', f);
	}
	fputs("],\n", f);
	fputs("  \"rows\": [", f);
	for (i = 0; i < r->nrows; i++) {
		const struct report_row *row = &r->rows[i];
		int nested = r->opt.view == REPORT_ASM &&
			     row->kind != ROW_PROCEDURE;

		if (nested) {
			/* An instruction of the asm view: inside its
			 * procedure's "instructions". */
			int first = r->rows[i - 1].kind == ROW_PROCEDURE;

			fputs(first ? "\n      {" : ",\n      {", f);
		} else {
			if (r->opt.view == REPORT_ASM && i)
				fputs("]}", f);
			fputs(i ? ",\n    {" : "\n    {", f);
		}
		json_row(f, r, row);
		if (r->opt.view == REPORT_ASM && !nested) {
			fputs(", \"instructions\": [", f);
			continue;
		}
		fputc('}', f);
	}
	if (r->opt.view == REPORT_ASM && r->nrows)
		fputs("]}", f);
	fputs(r->nrows ? "\n  ],\n" : "],\n", f);
	fputs("  \"modes\": [", f);
	for (i = 0; i < p->nmodes; i++) {
		fprintf(f, "%s{\"cpu\": %u", i ? ",\n    " : "\n    ",
			p->modes[i].cpu);
		for (m = 0; m < PROF_NMODES; m++)
			fprintf(f, ", \"%s\": %" PRIu64, mode_names[m],
				p->modes[i].n[m]);
		fputc('}', f);
	}
	fputs(p->nmodes ? "\n  ]\n}\n" : "]\n}\n", f);
	return ferror(f) ? -PROF_EIO : 0;
}

static void jratio(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", f);
	else
		fprintf(f, "%.6g", v);
}

int report_counts_json(FILE *f, const struct report_counts *rc)
{
	const struct profile *p = rc->prof;
	size_t i;

	header(f, p, rc->file, "count");
	fputs("  \"statistics\": [", f);
	for (i = 0; i < rc->ncounts; i++) {
		const struct report_count *c = &rc->counts[i];
		const struct prof_stat *st = c->stat;

		fputs(i ? ",\n    {" : "\n    {", f);
		fputs("\"name\": ", f);
		jstr(f, st->name);
		fputs(", \"requested\": ", f);
		jstr(f, st->requested);
		fprintf(f, ", \"substitute\": %s, \"simulated\": %s, "
			"\"modes\": \"%s\", \"value\": %" PRIu64
			", \"scaled_value\": %.0f"
			", \"time_enabled_ns\": %" PRIu64
			", \"time_running_ns\": %" PRIu64
			", \"running_percent\": %.2f"
			", \"multiplexed\": %s}",
			st->flags & PROF_STAT_SUBSTITUTE ? "true" : "false",
			st->flags & PROF_STAT_SIMULATED ? "true" : "false",
			stat_modes_text(st->modes), st->value, c->scaled,
			st->time_enabled, st->time_running,
			c->running_percent, c->multiplexed ? "true" : "false");
	}
	fputs(rc->ncounts ? "\n  ],\n" : "],\n", f);
	fputs("  \"ratios\": [", f);
	for (i = 0; i < rc->nratios; i++) {
		const struct report_count_ratio *q = &rc->ratios[i];
		int k;

		fputs(i ? ",\n    {" : "\n    {", f);
		fputs("\"name\": ", f);
		jstr(f, q->name);
		fputs(", \"value\": ", f);
		jratio(f, q->value);
		fputs(", \"formula\": ", f);
		jstr(f, q->formula);
		fputs(", \"inputs\": [", f);
		for (k = 0; k < 2 && q->inputs[k]; k++) {
			if (k)
				fputs(", ", f);
			jstr(f, q->inputs[k]);
		}
		fprintf(f, "], \"requested\": %s}",
			q->requested ? "true" : "false");
	}
	fputs(rc->nratios ? "\n  ]\n}\n" : "]\n}\n", f);
	return ferror(f) ? -PROF_EIO : 0;
}
