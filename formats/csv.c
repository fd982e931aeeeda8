/* SPDX-License-Identifier: MIT */
/*
 * --format csv: the rows of the report's view as RFC 4180 CSV, for
 * spreadsheets and data frames.  Layout only: a header row, then one
 * record per row of the report in its order, every record with the same
 * fields.  A field's name is the path of the same figure in the JSON
 * report (docs/json-report.md), its members joined by '.':
 * "samples.cpu-clock", "ratios.mispredict_per_ret.value".
 *
 * - An absent value (a null in JSON, NaN, an unknown line) is an empty
 *   field; addresses are hexadecimal ("0x1139"), booleans true/false,
 *   figures with as many decimals as in JSON.
 * - Fields with a comma, a double quote or a line break are quoted,
 *   quotes doubled; records end with CRLF (RFC 4180).
 * - Names and source text come from outside (symbols, DWARF, paths,
 *   sources): bytes that are control characters (but tab) or not UTF-8
 *   are written as \xNN, and a text field
 *   that starts with = + - or @ gets a leading apostrophe, so that a
 *   spreadsheet reads a name as text, never as a formula.
 * - The asm view's instructions are records of kind "instruction" after
 *   their procedure's record (JSON nests them in "instructions").
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util/error.h"
#include "escape.h"
#include "formats/report/report.h"
#include "writers.h"

/* Decimals of percentages and other figures, as in the JSON report. */
#define FIGURE_DECIMALS 4

struct csv {
	FILE *f;
	int first;		/* no field written yet in this record */
};

static void sep(struct csv *c)
{
	if (!c->first)
		putc(',', c->f);
	c->first = 0;
}

static void end_record(struct csv *c)
{
	fputs("\r\n", c->f);
	c->first = 1;
}

/* Control bytes but tab, which a record may hold. */
static int control(unsigned char ch)
{
	return (ch < 0x20 && ch != '\t') || ch == 0x7f;
}

/* A text field, NULL: empty. */
static void put_text(struct csv *c, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t n, i = 0;
	int quote;

	sep(c);
	if (!s)
		return;
	n = strlen(text);
	quote = strpbrk(text, ",\"") != NULL;
	if (quote)
		putc('"', c->f);
	if (*s && strchr("=+-@", *s))
		putc('\'', c->f);
	while (i < n) {
		int len = esc_utf8_seq_len(s + i, n - i);

		if (len <= 0 || (len == 1 && control(s[i]))) {
			fprintf(c->f, "\\x%02x", s[i++]);
			continue;
		}
		if (s[i] == '"')
			putc('"', c->f);
		fwrite(s + i, 1, (size_t)len, c->f);
		i += (size_t)len;
	}
	if (quote)
		putc('"', c->f);
}

static void put_uint(struct csv *c, uint64_t v)
{
	sep(c);
	fprintf(c->f, "%" PRIu64, v);
}

static void put_double(struct csv *c, double v)
{
	sep(c);
	if (!isnan(v) && !isinf(v))
		fprintf(c->f, "%.*f", FIGURE_DECIMALS, v);
}

static void put_bool(struct csv *c, int v)
{
	sep(c);
	fputs(v ? "true" : "false", c->f);
}

static void put_address(struct csv *c, uint64_t a)
{
	sep(c);
	fprintf(c->f, "0x%" PRIx64, a);
}

static void put_empty(struct csv *c)
{
	sep(c);
}

/* What fields a report's records have. */
struct layout {
	int extent;		/* blocks, buckets, instructions */
	int insn;		/* instructions */
	int average;
	int total;		/* total_percent: procedures with stacks */
};

static void header_stats(struct csv *c, const struct report *r,
			 const char *prefix)
{
	char name[256], buf[160];
	size_t s;

	for (s = 0; s < r->nstats; s++) {
		if (!report_stat_counted(&r->prof->stats[s]))
			continue;
		snprintf(name, sizeof(name), "%s.%s", prefix,
			 report_stat_key(r->prof, s, buf, sizeof(buf)));
		put_text(c, name);
	}
}

static void header(struct csv *c, const struct report *r,
		   const struct layout *l)
{
	static const char *const fixed[] = {
		"kind", "procedure", "inlined_into", "object", "module",
		"file", "line", "address",
	};
	char name[256];
	size_t i;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		put_text(c, fixed[i]);
	if (l->extent) {
		put_text(c, "end");
		put_text(c, "last_line");
		put_text(c, "block");
	}
	if (l->insn) {
		put_text(c, "text");
		put_text(c, "block_start");
		put_text(c, "source");
	}
	header_stats(c, r, "samples");
	header_stats(c, r, "weight");
	header_stats(c, r, "percent");
	for (i = 0; i < r->nratios; i++) {
		snprintf(name, sizeof(name), "ratios.%s.value",
			 r->ratios[i].name);
		put_text(c, name);
		snprintf(name, sizeof(name), "ratios.%s.low",
			 r->ratios[i].name);
		put_text(c, name);
	}
	put_text(c, "freq");
	put_text(c, "executions");
	if (l->average)
		header_stats(c, r, "average");
	put_text(c, "cumulative_percent");
	if (l->total)
		put_text(c, "total_percent");
	end_record(c);
}

static void row_stats(struct csv *c, const struct report *r,
		      const uint64_t *u, const double *d)
{
	size_t s;

	for (s = 0; s < r->nstats; s++) {
		if (!report_stat_counted(&r->prof->stats[s]))
			continue;
		if (u)
			put_uint(c, u[s]);
		else if (d)
			put_double(c, d[s]);
		else
			put_empty(c);
	}
}

static void record(struct csv *c, const struct report *r,
		   const struct layout *l, const struct report_row *row)
{
	int extent = row->kind == ROW_BLOCK || row->kind == ROW_BUCKET ||
		     row->kind == ROW_INSN;
	size_t i;

	put_text(c, report_row_kind_key(row->kind));
	put_text(c, row->procedure);
	put_text(c, row->inlined_into);
	put_text(c, row->object);
	put_text(c, row->module);
	put_text(c, row->file);
	if (row->line)
		put_uint(c, row->line);
	else
		put_empty(c);
	put_address(c, row->address);
	if (l->extent) {
		if (extent)
			put_address(c, row->end);
		else
			put_empty(c);
		if (extent && row->last_line)
			put_uint(c, row->last_line);
		else
			put_empty(c);
		if (extent)
			put_uint(c, row->block);
		else
			put_empty(c);
	}
	if (l->insn) {
		int insn = row->kind == ROW_INSN;

		put_text(c, insn ? row->text : NULL);
		if (insn)
			put_bool(c, row->block_start);
		else
			put_empty(c);
		put_text(c, insn ? row->source : NULL);
	}
	row_stats(c, r, row->samples, NULL);
	row_stats(c, r, row->weight, NULL);
	row_stats(c, r, NULL, row->percent);
	for (i = 0; i < r->nratios; i++) {
		put_double(c, row->ratio[i]);
		put_bool(c, row->ratio_low[i]);
	}
	put_double(c, row->freq);
	put_double(c, row->execs);
	if (l->average)
		row_stats(c, r, NULL, row->average);
	put_double(c, row->cum_percent);
	if (l->total)
		put_double(c, row->total_percent);
	end_record(c);
}

int fmt_csv(FILE *f, const struct report *r)
{
	struct csv c = { .f = f, .first = 1 };
	struct layout l = { 0 };
	size_t i;

	for (i = 0; i < r->nrows; i++) {
		const struct report_row *row = &r->rows[i];

		l.extent |= row->kind == ROW_BLOCK ||
			    row->kind == ROW_BUCKET || row->kind == ROW_INSN;
		l.insn |= row->kind == ROW_INSN;
		l.average |= row->average != NULL;
		l.total |= !isnan(row->total_percent);
	}
	/* The fields follow the view, not the rows that -quit or -only
	 * happened to keep. */
	l.extent |= r->opt.view == REPORT_BLOCKS || r->opt.view == REPORT_ASM ||
		    r->opt.view == REPORT_BUCKETS || r->opt.stride >= 0;
	l.insn |= r->opt.view == REPORT_ASM;
	l.average |= r->opt.average;
	l.total |= r->stacks && r->opt.view == REPORT_PROCEDURES;
	header(&c, r, &l);
	for (i = 0; i < r->nrows; i++) {
		const struct report_row *ins;
		size_t n, first, j;
		int err;

		record(&c, r, &l, &r->rows[i]);
		if (r->opt.view != REPORT_ASM)
			continue;
		/* The asm view's instructions, a procedure at a time. */
		err = report_asm_rows(r, i, &ins, &n, &first);
		if (err)
			return err;
		for (j = 0; j < n; j++)
			record(&c, r, &l, &ins[j]);
	}
	return ferror(f) ? -PROF_EIO : 0;
}
