/* SPDX-License-Identifier: MIT */
/*
 * The diff of two profiles (--diff BASE NEW) as text and JSON.  Layout
 * only: every figure comes from the diff model (report.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util/error.h"
#include "common/util/path.h"
#include "escape.h"
#include "formats/report/report.h"
#include "writers.h"
#include "jsonw.h"

#define DIFF_DECIMALS 2

static void text_p(FILE *f, double p)
{
	if (p < 0.0001)
		fprintf(f, " %8s", "<0.0001");
	else
		fprintf(f, " %8.4f", p);
}

static void text_ratio(FILE *f, double v)
{
	if (isnan(v))
		fprintf(f, " %8s", "-");
	else
		fprintf(f, " %8.2f", v);
}

static int diff_text_body(FILE *f, const struct report_diff *d)
{
	size_t i, k;

	fprintf(f, "Diff of %s, %s: base '%s' %" PRIu64 " samples, new "
		"'%s' %" PRIu64 " samples\n", d->stat_name,
		d->view == REPORT_LINES ? "source lines" : "procedures",
		d->opt.base_file, d->base_samples, d->opt.new_file,
		d->new_samples);
	fprintf(f, "Significance: two-proportion z-test of each row's "
		"samples, Holm-corrected over %zu rows; alpha %.2g; "
		"~ marks noise\n", d->ntested, d->opt.alpha);
	fprintf(f, "\n %7s %7s %8s %8s  ", "base%", "new%", "change",
		"p(Holm)");
	for (k = 0; k < d->nratios; k++) {
		const char *name = d->base->ratios[d->ratio_base[k]].name;
		char cut[18];

		fprintf(f, " %17s", esc_cut(cut, sizeof(cut),
					   snprintf(cut, sizeof(cut), "%s",
						    name)));
	}
	fprintf(f, " %s\n", d->view == REPORT_LINES ? "line  procedure" :
		"procedure");
	for (i = 0; i < d->nrows; i++) {
		const struct report_diff_row *dr = &d->rows[i];
		const struct report_row *row = dr->row;

		if (!dr->shown)
			continue;
		fprintf(f, " %7.2f %7.2f %+8.2f", dr->base_percent,
			dr->new_percent, dr->change);
		text_p(f, dr->p_holm);
		fprintf(f, " %c", dr->significant ? ' ' : '~');
		for (k = 0; k < d->nratios; k++) {
			text_ratio(f, report_diff_ratio(d, dr, k, 0));
			text_ratio(f, report_diff_ratio(d, dr, k, 1));
		}
		if (d->view == REPORT_LINES)
			fprintf(f, " %s:%u ", row->file ?
				path_base(row->file) : "??", row->line);
		fprintf(f, " %s", row->procedure);
		if (row->inlined_into)
			fprintf(f, " [inlined into %s]", row->inlined_into);
		fprintf(f, " (%s)\n", path_base(row->object));
	}
	if (d->nratios) {
		fprintf(f, "\nRatios (*_per_ret): the base's value, then the "
			"new one.\n");
	}
	if (!d->nshown && !d->nhidden)
		fprintf(f, "\nNo rows.\n");
	else if (!d->nsignificant)
		fprintf(f, "\nNo significant change: every difference is "
			"within sampling noise.\n");
	if (d->nhidden)
		fprintf(f, "%s%zu row%s within noise not shown (-v shows "
			"them).\n", d->nsignificant ? "\n" : "", d->nhidden,
			d->nhidden == 1 ? "" : "s");
	return ferror(f) ? -PROF_EIO : 0;
}

int fmt_diff_text(FILE *out, const struct report_diff *d)
{
	FILE *f = esc_visible_stream(out);
	int err;

	if (!f)
		return -PROF_ENOMEM;
	err = diff_text_body(f, d);
	if (fclose(f) && !err)
		err = -PROF_EIO;
	return err;
}

static void json_side(struct json_writer *jw, const char *key,
		      const char *file, uint64_t samples, uint64_t weight)
{
	jw_object_begin_object(jw, key, JW_INLINE);
	jw_object_string(jw, "file", file);
	jw_object_uint(jw, "samples", samples);
	jw_object_uint(jw, "weight", weight);
	jw_end(jw);
}

static void json_row(struct json_writer *jw, const struct report_diff *d,
		     const struct report_diff_row *dr)
{
	const struct report_row *row = dr->row;
	size_t k;

	jw_object_begin(jw, JW_INLINE);
	jw_object_string(jw, "procedure", row->procedure);
	jw_object_string(jw, "inlined_into", row->inlined_into);
	jw_object_string(jw, "object", row->object);
	if (d->view == REPORT_LINES) {
		jw_object_string(jw, "file", row->file);
		jw_object_uint(jw, "line", row->line);
	}
	jw_object_uint(jw, "base_samples", dr->base_samples);
	jw_object_uint(jw, "new_samples", dr->new_samples);
	jw_object_double(jw, "base_percent", 4, dr->base_percent);
	jw_object_double(jw, "new_percent", 4, dr->new_percent);
	jw_object_double(jw, "change", 4, dr->change);
	jw_object_double_g(jw, "z", 6, dr->z);
	jw_object_double_g(jw, "p", 6, dr->p);
	jw_object_double_g(jw, "p_holm", 6, dr->p_holm);
	jw_object_bool(jw, "significant", dr->significant);
	jw_object_bool(jw, "worse", dr->worse);
	jw_object_begin_object(jw, "ratios", JW_INLINE);
	for (k = 0; k < d->nratios; k++) {
		jw_object_begin_object(jw,
				       d->base->ratios[d->ratio_base[k]].name,
				       JW_INLINE);
		jw_object_double(jw, "base", 4,
				 report_diff_ratio(d, dr, k, 0));
		jw_object_double(jw, "new", 4,
				 report_diff_ratio(d, dr, k, 1));
		jw_end(jw);
	}
	jw_end(jw);
	jw_end(jw);
}

int fmt_diff_json(FILE *out, const struct report_diff *d)
{
	struct json_writer jw;
	size_t i;
	int err;

	jw_init(&jw, out);
	jw_object_begin(&jw, JW_LINES);
	jw_object_int(&jw, "schema_version", REPORT_JSON_VERSION);
	jw_object_string(&jw, "mode", "diff");
	jw_object_string(&jw, "tool", d->base->prof->tool);
	jw_object_string(&jw, "view", d->view == REPORT_LINES ? "lines" :
			 "procedures");
	jw_object_string(&jw, "statistic", d->stat_name);
	json_side(&jw, "base", d->opt.base_file, d->base_samples,
		  d->base_weight);
	json_side(&jw, "new", d->opt.new_file, d->new_samples,
		  d->new_weight);
	jw_object_begin_object(&jw, "significance", JW_INLINE);
	jw_object_string(&jw, "test", "two-proportion z-test");
	jw_object_string(&jw, "correction", "holm");
	jw_object_double_g(&jw, "alpha", 6, d->opt.alpha);
	jw_object_uint(&jw, "rows_tested", d->ntested);
	jw_object_uint(&jw, "rows_significant", d->nsignificant);
	jw_end(&jw);
	if (d->opt.fail_above >= 0)
		jw_object_double_g(&jw, "fail_above", 6, d->opt.fail_above);
	else
		jw_object_null(&jw, "fail_above");
	jw_object_uint(&jw, "rows_worse", d->nworse);
	jw_object_uint(&jw, "rows_total", d->nrows);
	jw_object_begin_array(&jw, "rows", JW_LINES);
	for (i = 0; i < d->nrows; i++) {
		if (d->rows[i].shown)
			json_row(&jw, d, &d->rows[i]);
	}
	jw_end(&jw);
	jw_end(&jw);
	err = jw_finish(&jw);
	jw_release(&jw);
	return err;
}
