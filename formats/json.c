/* SPDX-License-Identifier: MIT */
/*
 * The JSON report (schema in docs/json-report.md, versioned by
 * "schema_version").  Layout only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "report.h"
#include "stats.h"

static void jstr(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void jnum(FILE *f, double v)
{
	fprintf(f, "%.4f", v);
}

static const char *view_key(enum report_view v)
{
	switch (v) {
	case REPORT_LINES: return "lines";
	case REPORT_HEAVY: return "heavy";
	default: return "procedures";
	}
}

static void per_stat_u64(FILE *f, const struct report *r, const uint64_t *v)
{
	size_t s;

	fputc('{', f);
	for (s = 0; s < r->nstats; s++) {
		if (s)
			fputs(", ", f);
		jstr(f, r->prof->stats[s].name);
		fprintf(f, ": %" PRIu64, v[s]);
	}
	fputc('}', f);
}

int report_json(FILE *f, const struct report *r)
{
	static const char *const mode_names[PROF_NMODES] = {
		"user", "kernel", "idle", "guest", "hypervisor"
	};
	const struct profile *p = r->prof;
	size_t i, s;
	int a, m;

	fprintf(f, "{\n  \"schema_version\": %d,\n  \"tool\": ",
		REPORT_JSON_VERSION);
	jstr(f, p->tool);
	fputs(",\n  \"file\": ", f);
	jstr(f, r->opt.file);
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
		fprintf(f, ", \"simulated\": %s",
			st->flags & PROF_STAT_SIMULATED ? "true" : "false");
		fprintf(f, ", \"substitute\": %s, \"modes\": \"%s\", "
			"\"period\": %" PRIu64 ", \"frequency\": %" PRIu64
			", \"samples\": %" PRIu64 ", \"lost\": %" PRIu64
			", \"weight\": %" PRIu64 ", \"value\": %" PRIu64
			", \"time_enabled_ns\": %" PRIu64
			", \"time_running_ns\": %" PRIu64 "}",
			st->flags & PROF_STAT_SUBSTITUTE ? "true" : "false",
			stat_modes_text(st->modes), st->period, st->freq,
			r->total_samples[s], st->lost, r->total_weight[s],
			st->value, st->time_enabled, st->time_running);
	}
	fputs(r->nstats ? "\n  ],\n" : "],\n", f);
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
	fputs("],\n", f);
	fputs("  \"rows\": [", f);
	for (i = 0; i < r->nrows; i++) {
		const struct report_row *row = &r->rows[i];

		fputs(i ? ",\n    {" : "\n    {", f);
		fputs("\"procedure\": ", f);
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
		fputs(", \"samples\": ", f);
		per_stat_u64(f, r, row->samples);
		fputs(", \"weight\": ", f);
		per_stat_u64(f, r, row->weight);
		fputs(", \"percent\": {", f);
		for (s = 0; s < r->nstats; s++) {
			if (s)
				fputs(", ", f);
			jstr(f, p->stats[s].name);
			fputs(": ", f);
			jnum(f, row->percent[s]);
		}
		fputs("}, \"cumulative_percent\": ", f);
		jnum(f, row->cum_percent);
		fputc('}', f);
	}
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
