/* SPDX-License-Identifier: MIT */
/*
 * The JSON report (schema in docs/json-report.md, versioned by
 * "schema_version").  Layout only: what goes in which member, written
 * through the JSON writer (jsonw.h), which owns the syntax.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/stats/stats.h"
#include "common/util/error.h"
#include "formats/report/report.h"
#include "writers.h"
#include "jsonw.h"

/* Decimals of percentages and other figures of the report, of times in
 * seconds; significant digits of the ratios of counting profiles. */
#define FIGURE_DECIMALS 4
#define SECONDS_DECIMALS 6
#define COUNT_RATIO_DIGITS 6

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

static const char *stack_view_key(enum report_stack_view v)
{
	switch (v) {
	case REPORT_CALLERS: return "callers";
	case REPORT_CALLEES: return "callees";
	case REPORT_TREE: return "tree";
	case REPORT_STACKS_NONE: break;
	}
	return "procedures";
}

/* An address, as a string: JSON numbers lose precision above 2^53. */
static void put_address(struct json_writer *jw, const char *key, uint64_t a)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, a);
	jw_object_string(jw, key, buf);
}

/* A count that is not known when negative. */
static void put_known(struct json_writer *jw, const char *key, long v)
{
	if (v >= 0)
		jw_object_int(jw, key, v);
	else
		jw_object_null(jw, key);
}

/* Seconds from nanoseconds. */
static void put_seconds(struct json_writer *jw, const char *key, double ns)
{
	jw_object_double(jw, key, SECONDS_DECIMALS, ns / 1e9);
}

/* key: {"stat": value, ...} over the counted statistics, from u
 * (integers) or d (numbers). */
static void per_stat(struct json_writer *jw, const char *key,
		     const struct report *r, const uint64_t *u,
		     const double *d)
{
	size_t s;

	jw_object_begin_object(jw, key, JW_INLINE);
	for (s = 0; s < r->nstats; s++) {
		char buf[160];
		const char *name = report_stat_key(r->prof, s, buf,
						   sizeof(buf));

		if (!report_stat_counted(&r->prof->stats[s]))
			continue;
		if (u)
			jw_object_uint(jw, name, u[s]);
		else
			jw_object_double(jw, name, FIGURE_DECIMALS, d[s]);
	}
	jw_end(jw);
}

/* The members of a row that only some kinds of rows have. */
static void row_extent(struct json_writer *jw, const struct report_row *row)
{
	if (row->kind != ROW_BLOCK && row->kind != ROW_BUCKET &&
	    row->kind != ROW_INSN)
		return;
	put_address(jw, "end", row->end);
	if (row->last_line)
		jw_object_uint(jw, "last_line", row->last_line);
	jw_object_uint(jw, "block", row->block);
	if (row->kind != ROW_INSN)
		return;
	jw_object_string(jw, "text", row->text);
	jw_object_bool(jw, "block_start", row->block_start);
	jw_object_string(jw, "source", row->source);
}

static const char *const by_names[] = {
	"comm", "pid", "tid", "cpu", "object", "state",
};

/* -by: the values of the task keys asked for (null: not known); the
 * object key is the row's "object" (in a total, its own member). */
static void by_members(struct json_writer *jw, const struct report *r,
		       const struct report_by *v, int object)
{
	unsigned by = r->opt.by;

	if (by & REPORT_BY_COMM)
		jw_object_string(jw, "comm", v->comm);
	if (by & REPORT_BY_PID)
		put_known(jw, "pid", v->pid);
	if (by & REPORT_BY_TID)
		put_known(jw, "tid", v->tid);
	if (by & REPORT_BY_CPU)
		put_known(jw, "cpu", v->cpu);
	if (by & REPORT_BY_STATE)
		jw_object_string(jw, "state", v->state);
	if (object && (by & REPORT_BY_OBJECT))
		jw_object_string(jw, "object", v->object);
}

/* -by: the keys, and the whole profile per value of them. */
static void by_totals(struct json_writer *jw, const struct report *r)
{
	size_t i;

	if (!r->opt.by)
		return;
	jw_object_begin_array(jw, "by", JW_INLINE);
	for (i = 0; i < sizeof(by_names) / sizeof(by_names[0]); i++)
		if (r->opt.by & (1u << i))
			jw_array_string(jw, by_names[i]);
	jw_end(jw);
	jw_object_begin_array(jw, "by_totals", JW_LINES);
	for (i = 0; i < r->nby_totals; i++) {
		const struct report_by_total *t = &r->by_totals[i];

		jw_object_begin(jw, JW_INLINE);
		by_members(jw, r, &t->by, 1);
		per_stat(jw, "samples", r, t->samples, NULL);
		per_stat(jw, "weight", r, t->weight, NULL);
		per_stat(jw, "percent", r, NULL, t->percent);
		jw_end(jw);
	}
	jw_end(jw);
}

/* The members of one row (the caller opens and closes it). */
static void json_row(struct json_writer *jw, const struct report *r,
		     const struct report_row *row)
{
	size_t s;

	jw_object_string(jw, "kind", report_row_kind_key(row->kind));
	jw_object_string(jw, "procedure", row->procedure);
	jw_object_string(jw, "inlined_into", row->inlined_into);
	jw_object_string(jw, "object", row->object);
	if (r->opt.by)
		by_members(jw, r, &row->by, 0);
	jw_object_string(jw, "module", row->module);
	jw_object_string(jw, "file", row->file);
	put_known(jw, "line", row->line ? (long)row->line : -1);
	put_address(jw, "address", row->address);
	row_extent(jw, row);
	per_stat(jw, "samples", r, row->samples, NULL);
	per_stat(jw, "weight", r, row->weight, NULL);
	per_stat(jw, "percent", r, NULL, row->percent);
	jw_object_begin_object(jw, "ratios", JW_INLINE);
	for (s = 0; s < r->nratios; s++) {
		jw_object_begin_object(jw, r->ratios[s].name, JW_INLINE);
		jw_object_double(jw, "value", FIGURE_DECIMALS, row->ratio[s]);
		jw_object_bool(jw, "low", row->ratio_low[s]);
		jw_end(jw);
	}
	jw_end(jw);
	jw_object_double(jw, "freq", FIGURE_DECIMALS, row->freq);
	jw_object_double(jw, "executions", FIGURE_DECIMALS, row->execs);
	if (row->average)
		per_stat(jw, "average", r, NULL, row->average);
	jw_object_double(jw, "cumulative_percent", FIGURE_DECIMALS,
			 row->cum_percent);
	if (!isnan(row->total_percent))
		jw_object_double(jw, "total_percent", FIGURE_DECIMALS,
				 row->total_percent);
}

static void host(struct json_writer *jw, const struct profile *p)
{
	jw_object_begin_object(jw, "host", JW_INLINE);
	jw_object_string(jw, "hostname", p->hostname);
	jw_object_string(jw, "sysname", p->sysname);
	jw_object_string(jw, "release", p->release);
	jw_object_string(jw, "machine", p->machine);
	jw_object_string(jw, "cpu_model", p->cpu_model);
	jw_object_uint(jw, "ncpus", p->ncpus);
	jw_end(jw);
}

static void start_after(struct json_writer *jw, const struct profile *p)
{
	if (!p->start_after) {
		jw_object_null(jw, "start_after");
		return;
	}
	jw_object_begin_object(jw, "start_after", JW_INLINE);
	jw_object_string(jw, "condition", p->start_after);
	jw_object_bool(jw, "reached", p->start_after_ns >= 0);
	if (p->start_after_ns < 0)
		jw_object_null(jw, "seconds");
	else
		put_seconds(jw, "seconds", (double)p->start_after_ns);
	jw_object_uint(jw, "handover_ns", p->start_after_latency_ns);
	jw_end(jw);
}

/* -timeline's procedure pr (NULL: none) as members PREFIX, PREFIX_
 * inlined_into, PREFIX_object. */
static void tl_proc(struct json_writer *jw, const char *prefix,
		    const struct report_tl_proc *pr)
{
	char key[64];

	if (pr)
		jw_object_string(jw, prefix, pr->procedure);
	else
		jw_object_null(jw, prefix);
	snprintf(key, sizeof(key), "%s_inlined_into", prefix);
	jw_object_string(jw, key, pr ? pr->inlined_into : NULL);
	snprintf(key, sizeof(key), "%s_object", prefix);
	jw_object_string(jw, key, pr ? pr->object : NULL);
}

static void tl_intervals(struct json_writer *jw,
			 const struct report_timeline *tl)
{
	size_t k;

	jw_object_begin_array(jw, "intervals", JW_LINES_HUG);
	for (k = 0; k < tl->nintervals; k++) {
		const struct report_tl_interval *in = &tl->intervals[k];
		int none = in->hottest == SIZE_MAX;

		jw_object_begin(jw, JW_INLINE);
		put_seconds(jw, "start", (double)in->start);
		put_seconds(jw, "end", (double)in->end);
		jw_object_uint(jw, "samples", in->samples);
		jw_object_uint(jw, "weight", in->weight);
		tl_proc(jw, "hottest", none ? NULL : &tl->procs[in->hottest]);
		jw_object_uint(jw, "hottest_weight", in->hottest_weight);
		jw_object_double(jw, "hottest_percent", FIGURE_DECIMALS,
				 none ? NAN : in->hottest_percent);
		if (tl->selection) {
			jw_object_uint(jw, "selected_samples",
				       in->sel_samples);
			jw_object_uint(jw, "selected_weight", in->sel_weight);
			jw_object_double(jw, "selected_percent",
					 FIGURE_DECIMALS, in->sel_percent);
		}
		jw_end(jw);
	}
	jw_end(jw);
}

static void tl_uints(struct json_writer *jw, const char *key,
		     const uint64_t *v, size_t n)
{
	size_t k;

	jw_object_begin_array(jw, key, JW_INLINE);
	for (k = 0; k < n; k++)
		jw_array_uint(jw, v[k]);
	jw_end(jw);
}

static void tl_rows(struct json_writer *jw, const struct report_timeline *tl)
{
	size_t i, k, n = tl->nintervals;

	jw_object_begin_array(jw, "rows", JW_LINES_HUG);
	for (i = 0; i < tl->nrows; i++) {
		const struct report_tl_row *row = &tl->rows[i];

		jw_object_begin(jw, JW_INLINE);
		if (tl->by != REPORT_BY_CPU)
			jw_object_string(jw, "comm", row->by.comm);
		if (tl->by == REPORT_BY_PID || tl->by == REPORT_BY_TID)
			jw_object_int(jw, "pid", row->by.pid);
		if (tl->by == REPORT_BY_TID)
			jw_object_int(jw, "tid", row->by.tid);
		if (tl->by == REPORT_BY_CPU)
			jw_object_int(jw, "cpu", row->by.cpu);
		put_seconds(jw, "first_seconds", (double)row->first);
		jw_object_uint(jw, "total_samples", row->samples);
		jw_object_uint(jw, "total_weight", row->weight);
		tl_uints(jw, "samples", row->samples_at, n);
		tl_uints(jw, "weights", row->weight_at, n);
		if (tl->selection) {
			tl_uints(jw, "selected_weights", row->sel_weight_at,
				 n);
			jw_object_begin_array(jw, "selected_percent",
					      JW_INLINE);
			for (k = 0; k < n; k++)
				jw_array_double(jw, FIGURE_DECIMALS,
						row->sel_percent_at[k]);
			jw_end(jw);
		}
		jw_end(jw);
	}
	jw_end(jw);
}

static void tl_phases(struct json_writer *jw,
		      const struct report_timeline *tl)
{
	size_t i;

	jw_object_begin_array(jw, "phases", JW_LINES_HUG);
	for (i = 0; i < tl->nphases; i++) {
		const struct report_tl_phase *ph = &tl->phases[i];
		int none = ph->proc == SIZE_MAX;

		jw_object_begin(jw, JW_INLINE);
		put_seconds(jw, "start", (double)ph->start);
		put_seconds(jw, "end", (double)ph->end);
		jw_object_uint(jw, "first_interval", ph->first);
		jw_object_uint(jw, "last_interval", ph->last);
		tl_proc(jw, "procedure", none ? NULL : &tl->procs[ph->proc]);
		jw_object_uint(jw, "weight", ph->weight);
		jw_object_uint(jw, "procedure_weight", ph->proc_weight);
		jw_object_double(jw, "percent", FIGURE_DECIMALS,
				 none ? NAN : ph->percent);
		jw_end(jw);
	}
	jw_end(jw);
}

static const char *tl_by_key(unsigned by)
{
	switch (by) {
	case REPORT_BY_COMM: return "comm";
	case REPORT_BY_PID: return "pid";
	case REPORT_BY_CPU: return "cpu";
	default: return "tid";
	}
}

/* -timeline's layout, in the "timeline" member. */
static void tl_view(struct json_writer *jw, const struct report *r)
{
	const struct report_timeline *tl = r->timeline;
	size_t k;

	jw_object_string(jw, "statistic", r->prof->stats[tl->stat].name);
	jw_object_string(jw, "by", tl_by_key(tl->by));
	put_seconds(jw, "start_seconds", (double)tl->start);
	put_seconds(jw, "end_seconds", (double)tl->end);
	jw_object_uint(jw, "samples", tl->samples);
	jw_object_uint(jw, "weight", tl->weight);
	jw_object_uint(jw, "max_cell_weight", tl->max_weight);
	if (!tl->selection) {
		jw_object_null(jw, "selection");
	} else {
		jw_object_begin_object(jw, "selection", JW_INLINE);
		jw_object_begin_array(jw, "only", JW_INLINE);
		for (k = 0; k < r->opt.nonly; k++)
			jw_array_string(jw, r->opt.only[k]);
		jw_end(jw);
		jw_object_begin_array(jw, "exclude", JW_INLINE);
		for (k = 0; k < r->opt.nexclude; k++)
			jw_array_string(jw, r->opt.exclude[k]);
		jw_end(jw);
		jw_end(jw);
	}
	tl_intervals(jw, tl);
	tl_rows(jw, tl);
	tl_phases(jw, tl);
}

/* Whether the profile keeps time, or why not; --time's window; with
 * -timeline (r not NULL, r->timeline), its layout. */
static void timeline(struct json_writer *jw, const struct profile *p,
		     const struct report *r)
{
	const char *missing = profile_timeline_missing(p);
	int view = r && r->timeline;
	size_t i;

	jw_object_begin_object(jw, "timeline", view ? JW_LINES : JW_INLINE);
	jw_object_bool(jw, "kept", !missing);
	if (missing)
		jw_object_string(jw, "missing", missing);
	else
		jw_object_null(jw, "missing");
	if (!p->nwindow) {
		jw_object_null(jw, "window");
		jw_object_null(jw, "window_seconds");
		if (view)
			tl_view(jw, r);
		jw_end(jw);
		return;
	}
	jw_object_begin_array(jw, "window", JW_INLINE);
	for (i = 0; i < p->nwindow; i++) {
		jw_array_begin(jw, JW_INLINE);
		jw_array_double(jw, 6, (double)p->window[i].from / 1e9);
		if (p->window[i].to == UINT64_MAX)
			jw_array_null(jw);
		else
			jw_array_double(jw, 6, (double)p->window[i].to / 1e9);
		jw_end(jw);
	}
	jw_end(jw);
	put_seconds(jw, "window_seconds", (double)p->window_ns);
	if (view)
		tl_view(jw, r);
	jw_end(jw);
}

/* Open the document and write the members every report starts with, up
 * to "timeline" (r: a sampling report's, for -timeline; else NULL). */
static void header(struct json_writer *jw, const struct profile *p,
		   const char *file, const char *mode, const struct report *r)
{
	int a;

	jw_object_begin(jw, JW_LINES);
	jw_object_int(jw, "schema_version", REPORT_JSON_VERSION);
	jw_object_string(jw, "mode", mode);
	jw_object_string(jw, "tool", p->tool);
	if (p->tool_version)
		jw_object_string(jw, "tool_version", p->tool_version);
	else
		jw_object_null(jw, "tool_version");
	if (p->recorded_by)
		jw_object_string(jw, "recorded_by", p->recorded_by);
	else
		jw_object_null(jw, "recorded_by");
	jw_object_string(jw, "file", file);
	jw_object_begin_array(jw, "command", JW_INLINE);
	for (a = 0; a < p->argc; a++)
		jw_array_string(jw, p->argv[a]);
	jw_end(jw);
	host(jw, p);
	jw_object_uint(jw, "start_time_ns", p->start_time_ns);
	put_seconds(jw, "duration_seconds", (double)p->duration_ns);
	put_known(jw, "exit_status", p->exit_status);
	put_known(jw, "pid", p->pid);
	put_known(jw, "cpu", p->cpu);
	start_after(jw, p);
	timeline(jw, p, r);
}

/* Close the document: 0, -PROF_EIO when f has failed (the caller says
 * how), or the writer's refusal, which is a bug of this file. */
static int finish(struct json_writer *jw)
{
	int err;

	jw_end(jw);
	err = jw_finish(jw);
	if (err && err != -PROF_EIO)
		err = prof_fail(-err, "cannot write JSON report: %s",
				jw_error_text(jw));
	jw_release(jw);
	return err;
}

static void statistics(struct json_writer *jw, const struct report *r)
{
	const struct profile *p = r->prof;
	size_t s;

	jw_object_begin_array(jw, "statistics", JW_LINES);
	for (s = 0; s < r->nstats; s++) {
		const struct prof_stat *st = &p->stats[s];
		char buf[160];
		const char *key = report_stat_key(p, s, buf, sizeof(buf));

		jw_object_begin(jw, JW_INLINE);
		jw_object_string(jw, "name", st->name);
		if (key != st->name)
			jw_object_string(jw, "key", key);
		jw_object_string(jw, "requested", st->requested);
		jw_object_bool(jw, "substitute",
			       st->flags & PROF_STAT_SUBSTITUTE);
		jw_object_string(jw, "modes", stat_modes_text(st->modes));
		jw_object_uint(jw, "period", st->period);
		jw_object_uint(jw, "frequency", st->freq);
		jw_object_uint(jw, "samples", r->total_samples[s]);
		jw_object_uint(jw, "lost", st->lost);
		jw_object_uint(jw, "weight", r->total_weight[s]);
		jw_object_uint(jw, "value", st->value);
		jw_object_uint(jw, "time_enabled_ns", st->time_enabled);
		jw_object_uint(jw, "time_running_ns", st->time_running);
		jw_object_bool(jw, "simulated",
			       st->flags & PROF_STAT_SIMULATED);
		jw_object_bool(jw, "derived", st->flags & PROF_STAT_DERIVED);
		jw_object_bool(jw, "multiplexed", r->multiplexed[s]);
		jw_object_string(jw, "unit", st->flags & PROF_STAT_TIME ?
				 "nanoseconds" : "events");
		jw_end(jw);
	}
	jw_end(jw);
}

/* Where each thread's time went (time statistics), or null. */
static void threads(struct json_writer *jw, const struct report *r)
{
	size_t i;
	int st;

	if (!r->nthreads) {
		jw_object_null(jw, "threads");
		return;
	}
	jw_object_begin_object(jw, "threads", JW_LINES);
	jw_object_string(jw, "statistic",
			 r->prof->stats[r->threads_stat].name);
	jw_object_begin_array(jw, "threads", JW_LINES);
	for (i = 0; i < r->nthreads; i++) {
		const struct report_thread *t = &r->threads[i];

		jw_object_begin(jw, JW_INLINE);
		jw_object_uint(jw, "pid", t->pid);
		jw_object_uint(jw, "tid", t->tid);
		jw_object_string(jw, "comm", t->comm ? t->comm : "");
		jw_object_begin_object(jw, "seconds", JW_INLINE);
		for (st = 0; st < PROF_NSTATES; st++)
			if (st == PROF_STATE_RUNNING && !r->threads_running)
				jw_object_null(jw,
					       profile_state_name((uint32_t)st));
			else
				put_seconds(jw,
					    profile_state_name((uint32_t)st),
					    (double)t->ns[st]);
		jw_end(jw);
		jw_end(jw);
	}
	jw_end(jw);
	jw_end(jw);
}

static void ratios(struct json_writer *jw, const struct report *r)
{
	const struct profile *p = r->prof;
	size_t s;

	jw_object_begin_array(jw, "ratios", JW_LINES);
	for (s = 0; s < r->nratios; s++) {
		const struct report_ratio *ra = &r->ratios[s];

		jw_object_begin(jw, JW_INLINE);
		jw_object_string(jw, "name", ra->name);
		jw_object_string(jw, "numerator", p->stats[ra->num].name);
		jw_object_string(jw, "denominator", p->stats[ra->den].name);
		jw_object_double(jw, "scale", FIGURE_DECIMALS, ra->scale);
		jw_object_double(jw, "value", FIGURE_DECIMALS, ra->total);
		jw_object_bool(jw, "low", ra->total_low);
		jw_end(jw);
	}
	jw_end(jw);
}

static void caller_attribution(struct json_writer *jw,
			       const struct profile *p, int from_stacks)
{
	if (!p->ra_routines) {
		jw_object_null(jw, "caller_attribution");
		return;
	}
	jw_object_begin_object(jw, "caller_attribution", JW_INLINE);
	jw_object_string(jw, "routines", p->ra_routines);
	jw_object_uint(jw, "moved_samples", p->ra_moved);
	jw_object_string(jw, "from", from_stacks ? "stacks" : "collection");
	jw_end(jw);
}

static void freq(struct json_writer *jw, const struct report *r)
{
	if (r->freq_stat < 0) {
		jw_object_null(jw, "freq");
		return;
	}
	jw_object_begin_object(jw, "freq", JW_INLINE);
	jw_object_string(jw, "statistic", r->prof->stats[r->freq_stat].name);
	jw_object_bool(jw, "exact", r->exact_execs);
	jw_object_double(jw, "total", FIGURE_DECIMALS, r->total_freq);
	jw_object_uint(jw, "undecoded_procedures", r->undecoded);
	jw_end(jw);
}

/* The subjects (or, with detail, the details) of r's notes of kind. */
static void paths(struct json_writer *jw, const char *key,
		  const struct report *r, enum report_note_kind kind,
		  int detail)
{
	size_t i;

	jw_object_begin_array(jw, key, JW_INLINE);
	for (i = 0; i < r->nnotes; i++)
		if (r->notes[i].kind == kind)
			jw_array_string(jw, detail ? r->notes[i].detail :
					r->notes[i].subject);
	jw_end(jw);
}

/* The notes of kind as objects: "path", and the detail as key. */
static void path_objects(struct json_writer *jw, const char *key,
			 const struct report *r, enum report_note_kind kind,
			 const char *detail_key)
{
	size_t i;

	jw_object_begin_array(jw, key, JW_INLINE);
	for (i = 0; i < r->nnotes; i++) {
		const struct report_note *n = &r->notes[i];

		if (n->kind != kind)
			continue;
		jw_object_begin(jw, JW_INLINE);
		jw_object_string(jw, "path", n->subject);
		if (n->detail)
			jw_object_string(jw, detail_key, n->detail);
		else
			jw_object_null(jw, detail_key);
		jw_end(jw);
	}
	jw_end(jw);
}

/* What the report could not use: objects and files. */
static void damage(struct json_writer *jw, const struct report *r)
{
	jw_object_uint(jw, "unresolved_objects", r->unresolved_objects);
	path_objects(jw, "unreadable_objects", r, REPORT_NOTE_UNREADABLE,
		     "why");
	paths(jw, "stale_objects", r, REPORT_NOTE_STALE, 0);
	paths(jw, "stale_files", r, REPORT_NOTE_STALE, 1);
	paths(jw, "objects_without_symbols", r, REPORT_NOTE_NO_SYMBOLS, 0);
	paths(jw, "objects_with_exported_symbols_only", r,
	      REPORT_NOTE_EXPORTED_ONLY, 0);
	paths(jw, "objects_with_bad_dwarf", r, REPORT_NOTE_BAD_DWARF, 0);
	paths(jw, "unmatched_patterns", r, REPORT_NOTE_UNMATCHED, 0);
	jw_object_uint(jw, "idle_excluded", r->prof->idle_dropped);
	/* Every skipped file, those an unreadable note names too. */
	path_objects(jw, "skipped_files", r, REPORT_NOTE_SKIPPED, "kind");
}

/*
 * The rows.  In the asm view, a procedure's instructions are in its
 * "instructions", made a procedure at a time (report_asm_rows()).
 */
static int rows(struct json_writer *jw, const struct report *r)
{
	int asm_view = r->opt.view == REPORT_ASM, err = 0;
	size_t i, j;

	jw_object_begin_array(jw, "rows", JW_LINES);
	for (i = 0; i < r->nrows && !err; i++) {
		const struct report_row *ins;
		size_t n, first;

		jw_object_begin(jw, JW_INLINE);
		json_row(jw, r, &r->rows[i]);
		if (asm_view) {
			err = report_asm_rows(r, i, &ins, &n, &first);
			jw_object_begin_array(jw, "instructions",
					      JW_LINES_HUG);
			for (j = 0; j < n && !err; j++) {
				jw_object_begin(jw, JW_INLINE);
				json_row(jw, r, &ins[j]);
				jw_end(jw);
			}
			jw_end(jw);	/* "instructions" */
		}
		jw_end(jw);
	}
	jw_end(jw);
	return err;
}

/* ---- call stacks ---- */

static void call_stacks(struct json_writer *jw, const struct report *r)
{
	const struct report_stacks *rs = r->stacks;
	size_t t;

	if (!rs) {
		jw_object_null(jw, "call_stacks");
		return;
	}
	jw_object_begin_object(jw, "call_stacks", JW_LINES);
	jw_object_string(jw, "statistic", r->prof->stats[rs->stat].name);
	jw_object_uint(jw, "samples", rs->samples);
	jw_object_uint(jw, "samples_without_stack",
		       r->total_samples[rs->stat] > rs->samples ?
		       r->total_samples[rs->stat] - rs->samples : 0);
	jw_object_uint(jw, "complete_samples", rs->complete);
	jw_object_double(jw, "complete_percent", FIGURE_DECIMALS,
			 rs->complete_percent);
	jw_object_uint(jw, "kernel_only_samples", rs->kernel_only);
	jw_object_double(jw, "kernel_only_percent", FIGURE_DECIMALS,
			 rs->kernel_only_percent);
	jw_object_begin_array(jw, "truncated", JW_LINES_HUG);
	for (t = 0; t < rs->ntrunc; t++) {
		jw_object_begin(jw, JW_INLINE);
		jw_object_string(jw, "reason", rs->trunc[t].reason);
		jw_object_string(jw, "object", rs->trunc[t].object);
		jw_object_uint(jw, "samples", rs->trunc[t].samples);
		jw_object_double(jw, "percent", FIGURE_DECIMALS,
				 rs->trunc[t].percent);
		jw_end(jw);
	}
	jw_end(jw);
	jw_end(jw);
}

static void call_members(struct json_writer *jw, const struct report_call *c)
{
	jw_object_string(jw, "procedure", c->f.name);
	jw_object_bool(jw, "inlined", c->f.inlined);
	jw_object_uint(jw, "samples", c->samples);
	jw_object_uint(jw, "weight", c->weight);
	jw_object_double(jw, "percent", FIGURE_DECIMALS, c->percent);
}

static void focus_json(struct json_writer *jw, const struct report *r,
		       const char *key)
{
	const struct report_stacks *rs = r->stacks;
	size_t i, k;

	jw_object_begin_array(jw, key, JW_LINES);
	for (i = 0; i < rs->nfocus; i++) {
		const struct report_focus *fo = &rs->focus[i];

		jw_object_begin(jw, JW_LINES);
		jw_object_string(jw, "procedure", fo->name);
		jw_object_uint(jw, "samples", fo->samples);
		jw_object_uint(jw, "weight", fo->weight);
		jw_object_double(jw, "percent", FIGURE_DECIMALS, fo->percent);
		jw_object_uint(jw, "self_samples", fo->self_samples);
		jw_object_double(jw, "self_percent", FIGURE_DECIMALS,
				 fo->self_percent);
		jw_object_begin_array(jw, "calls", JW_LINES_HUG);
		for (k = 0; k < fo->ncalls; k++) {
			jw_object_begin(jw, JW_INLINE);
			call_members(jw, &fo->calls[k]);
			jw_object_double(jw, "share", FIGURE_DECIMALS,
					 fo->calls[k].share);
			jw_object_bool(jw, "recursive", fo->calls[k].recursive);
			jw_end(jw);
		}
		jw_end(jw);
		jw_end(jw);
	}
	jw_end(jw);
}

static void tree_json(struct json_writer *jw, const struct report_call *c)
{
	size_t i;

	call_members(jw, c);
	jw_object_uint(jw, "self_samples", c->self_samples);
	jw_object_double(jw, "self_percent", FIGURE_DECIMALS,
			 c->self_percent);
	jw_object_uint(jw, "pruned_children",
		       c->nchildren_all - c->nchildren);
	jw_object_begin_array(jw, "children", JW_LINES_HUG);
	for (i = 0; i < c->nchildren; i++) {
		jw_object_begin(jw, JW_INLINE);
		tree_json(jw, &c->children[i]);
		jw_end(jw);
	}
	jw_end(jw);
}

/* The call-stack view asked for, if any. */
static void stack_view(struct json_writer *jw, const struct report *r)
{
	const struct report_stacks *rs = r->stacks;
	size_t i;

	switch (r->opt.stack_view) {
	case REPORT_CALLERS:
		focus_json(jw, r, "callers");
		break;
	case REPORT_CALLEES:
		focus_json(jw, r, "callees");
		break;
	case REPORT_TREE:
		jw_object_begin_object(jw, "tree", JW_LINES);
		jw_object_double(jw, "threshold_percent", FIGURE_DECIMALS,
				 rs->tree_min);
		jw_object_uint(jw, "pruned_roots",
			       rs->tree.nchildren_all - rs->tree.nchildren);
		jw_object_begin_array(jw, "roots", JW_LINES);
		for (i = 0; i < rs->tree.nchildren; i++) {
			jw_object_begin(jw, JW_INLINE);
			tree_json(jw, &rs->tree.children[i]);
			jw_end(jw);
		}
		jw_end(jw);
		jw_end(jw);
		break;
	case REPORT_STACKS_NONE:
		break;
	}
}

static void cpu_modes(struct json_writer *jw, const struct profile *p)
{
	static const char *const mode_names[PROF_NMODES] = {
		"user", "kernel", "idle", "guest", "hypervisor"
	};
	size_t i;
	int m;

	jw_object_begin_array(jw, "modes", JW_LINES);
	for (i = 0; i < p->nmodes; i++) {
		jw_object_begin(jw, JW_INLINE);
		if (p->modes[i].cpu == PROF_CPU_UNKNOWN)
			jw_object_null(jw, "cpu");
		else
			jw_object_uint(jw, "cpu", p->modes[i].cpu);
		for (m = 0; m < PROF_NMODES; m++)
			jw_object_uint(jw, mode_names[m], p->modes[i].n[m]);
		jw_end(jw);
	}
	jw_end(jw);
}

int fmt_json(FILE *f, const struct report *r)
{
	struct json_writer jw;
	int err;

	jw_init(&jw, f);
	header(&jw, r->prof, r->opt.file, "sample", r);
	caller_attribution(&jw, r->prof, r->ra_from_stacks);
	statistics(&jw, r);
	threads(&jw, r);
	ratios(&jw, r);
	freq(&jw, r);
	put_known(&jw, "stride", r->opt.stride);
	jw_object_bool(&jw, "average", r->opt.average);
	jw_object_string(&jw, "view", r->timeline ? "timeline" :
			 r->opt.stack_view ?
			 stack_view_key(r->opt.stack_view) :
			 view_key(r->opt.view));
	if (r->opt.view == REPORT_PROCEDURES && !r->opt.stack_view)
		jw_object_bool(&jw, "inline_split", r->opt.inline_split);
	jw_object_uint(&jw, "rows_total", r->nrows_all);
	damage(&jw, r);
	call_stacks(&jw, r);
	stack_view(&jw, r);
	by_totals(&jw, r);
	err = rows(&jw, r);
	cpu_modes(&jw, r->prof);
	return err ? err : finish(&jw);
}

static void count_statistics(struct json_writer *jw,
			     const struct report_counts *rc)
{
	size_t i;

	jw_object_begin_array(jw, "statistics", JW_LINES);
	for (i = 0; i < rc->ncounts; i++) {
		const struct report_count *c = &rc->counts[i];
		const struct prof_stat *st = c->stat;

		jw_object_begin(jw, JW_INLINE);
		jw_object_string(jw, "name", st->name);
		jw_object_string(jw, "requested", st->requested);
		jw_object_bool(jw, "substitute",
			       st->flags & PROF_STAT_SUBSTITUTE);
		jw_object_bool(jw, "simulated",
			       st->flags & PROF_STAT_SIMULATED);
		jw_object_string(jw, "modes", stat_modes_text(st->modes));
		jw_object_uint(jw, "value", st->value);
		jw_object_double(jw, "scaled_value", 0, c->scaled);
		jw_object_uint(jw, "time_enabled_ns", st->time_enabled);
		jw_object_uint(jw, "time_running_ns", st->time_running);
		jw_object_double(jw, "running_percent", 2, c->running_percent);
		jw_object_bool(jw, "multiplexed", c->multiplexed);
		jw_end(jw);
	}
	jw_end(jw);
}

int fmt_counts_json(FILE *f, const struct report_counts *rc)
{
	struct json_writer jw;
	size_t i;

	jw_init(&jw, f);
	header(&jw, rc->prof, rc->file, "count", NULL);
	count_statistics(&jw, rc);
	jw_object_begin_array(&jw, "ratios", JW_LINES);
	for (i = 0; i < rc->nratios; i++) {
		const struct report_count_ratio *q = &rc->ratios[i];
		int k;

		jw_object_begin(&jw, JW_INLINE);
		jw_object_string(&jw, "name", q->name);
		jw_object_double_g(&jw, "value", COUNT_RATIO_DIGITS, q->value);
		jw_object_string(&jw, "formula", q->formula);
		jw_object_begin_array(&jw, "inputs", JW_INLINE);
		for (k = 0; k < 2 && q->inputs[k]; k++)
			jw_array_string(&jw, q->inputs[k]);
		jw_end(&jw);
		jw_object_bool(&jw, "requested", q->requested);
		jw_end(&jw);
	}
	jw_end(&jw);
	return finish(&jw);
}
