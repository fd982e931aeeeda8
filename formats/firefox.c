/* SPDX-License-Identifier: MIT */
/*
 * --format firefox: the profile as the Firefox Profiler's processed
 * profile (https://profiler.firefox.com; the format of its
 * src/types/profile.ts, processed version FX_VERSION), symbolicated, so
 * that the page opens it as it is, names and all, with no symbol
 * server.  docs/exports.md describes the file and how it is checked.
 * Layout only: the threads, their events of each statistic and each
 * event's frames are the time stream's as formats/report/streams.c
 * groups and symbolizes it from the samples model, as speedscope.c lays
 * them out.
 *
 * - A thread of the profiler is one stream: one thread's (pid, tid)
 *   events of one statistic, a sample each, in time order, at its time
 *   in ms from the run's start (meta.startTime is the run's, in ms of
 *   the Unix epoch; meta.profilingStartTime/EndTime the run, or the
 *   --time window, so threads line up on one clock).  A running sample
 *   is at its time (the end of its period), an off-CPU interval at its
 *   start.
 * - Its stack is its frames, each a frame of frameTable: one location's
 *   one level of inlining (inlineDepth 0 the out-of-line function), its
 *   function, address and line; stackTable is the tree of them
 *   (prefixOffset: how far back its parent is, 0 for a root).
 * - A statistic with off-CPU intervals (offcpu, wall) is weighed in time:
 *   weightType "tracing-ms", each sample's weight its period or its
 *   interval's length in ms, so the call tree is where the time went, on
 *   CPU and off.  Any other is counted in samples (weightType "samples",
 *   no weights: one each), as the report counts them.
 * - threadCPUDelta (ns, meta.sampleUnits) is the CPU time since the
 *   sample before, which the profiler draws as the activity graph's
 *   height: with intervals, the time since the sample before or the end
 *   of the last interval, whichever is later (every switch off the CPU
 *   is an interval: the thread ran in between); for a clock statistic
 *   (cpu-clock, task-clock) the sample's period, the CPU time it stands
 *   for, so a thread's CPU time is its weight in the report (a late
 *   timer, or time preempted, cannot be told apart without intervals).
 *   A counter (cycles, ...) says nothing of CPU time and has none: the
 *   profiler then draws samples at 100%.
 * - Without a timeline (a merged or old profile) the export is refused:
 *   the format is a timeline, and its sums are what speedscope, pprof
 *   and the flame graph show.
 */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "formats/report/report.h"
#include "jsonw.h"
#include "writers.h"

#define NONE UINT32_MAX
/* The processed profile version written (PROCESSED_PROFILE_VERSION of
 * the profiler's src/app-logic/constants.js) and the Gecko profile
 * version that goes with it (GECKO_PROFILE_VERSION). */
#define FX_VERSION 70
#define FX_GECKO_VERSION 36
/* Larger addresses are not exact as JavaScript's numbers. */
#define FX_MAX_ADDRESS (1ull << 53)

struct fx {
	const struct report *r;
	const struct profile *p;
	const struct report_samples *s;
	struct report_streams *st;
	struct json_writer jw;
	/* stringArray: each string once */
	const char **strs;
	size_t nstrs, alloc_strs;
	struct hashmap strmap;
	/* sources: per source its file's string; per string its source */
	uint32_t *src_str, *str_src;
	size_t nsrcs, alloc_srcs, alloc_str_src;
	/* funcTable: per model function its function (NONE: not yet), and
	 * back */
	uint32_t *func_of, *fn_func, *fn_name, *fn_src;	/* fn_src: NONE
							 * none */
	uint32_t nfns;
	unsigned *func_line;
	/* frameTable: per model line (a location's level) its frame, and
	 * back; per model line its location */
	uint32_t *frame_of, *fr_line, *line_loc;
	uint32_t nfrs;
	/* stackTable */
	uint32_t *stk_frame, *stk_prefix;	/* prefix: NONE for a root */
	size_t nstks, alloc_stk_frame, alloc_stk_prefix;
	struct hashmap stkmap;
	/* per event of the streams (st->order's positions): its stack */
	uint32_t *ev_stack;
	uint32_t *lines;			/* an event's, scratch */
	size_t nlines, alloc_lines;
	/* per statistic: weighed in time (offcpu, wall: intervals) */
	unsigned char *timed;
};

struct str_key {
	const struct fx *w;
	const char *s;
};

static int str_eq(const void *ctx, size_t entry)
{
	const struct str_key *k = ctx;

	return !strcmp(k->w->strs[entry], k->s);
}

/* The index of string s in stringArray, added when new; -1: no memory. */
static long str_index(struct fx *w, const char *s)
{
	struct str_key k = { w, s };
	uint64_t h = hash_str(HASH_STR_SEED, s);
	size_t i = hashmap_find(&w->strmap, h, str_eq, &k);

	if (i != SIZE_MAX)
		return (long)i;
	if (ALLOC_GROW(w->strs, w->nstrs + 1, w->alloc_strs) ||
	    ALLOC_GROW(w->str_src, w->nstrs + 1, w->alloc_str_src) ||
	    hashmap_add(&w->strmap, h, w->nstrs))
		return -1;
	w->strs[w->nstrs] = s;
	w->str_src[w->nstrs] = NONE;
	return (long)w->nstrs++;
}

/* The source of file, added when new; NONE: no file; -1: no memory. */
static long source_index(struct fx *w, const char *file)
{
	long str;

	if (!file)
		return NONE;
	str = str_index(w, file);
	if (str < 0)
		return -1;
	if (w->str_src[str] != NONE)
		return w->str_src[str];
	if (ALLOC_GROW(w->src_str, w->nsrcs + 1, w->alloc_srcs))
		return -1;
	w->src_str[w->nsrcs] = (uint32_t)str;
	w->str_src[str] = (uint32_t)w->nsrcs;
	return (long)w->nsrcs++;
}

/* Model function f's function, added when new; -1: no memory. */
static long func_index(struct fx *w, uint32_t f)
{
	long name, src;

	if (w->func_of[f] != NONE)
		return w->func_of[f];
	name = str_index(w, w->s->funcs[f].name);
	src = source_index(w, w->s->funcs[f].file);
	if (name < 0 || src < 0)
		return -1;
	w->fn_func[w->nfns] = f;
	w->fn_name[w->nfns] = (uint32_t)name;
	w->fn_src[w->nfns] = (uint32_t)src;
	w->func_of[f] = w->nfns;
	return w->nfns++;
}

/* Model line l's frame, added when new; -1: no memory. */
static long frame_index(struct fx *w, uint32_t l)
{
	if (w->frame_of[l] != NONE)
		return w->frame_of[l];
	if (func_index(w, w->s->lines[l].func) < 0)
		return -1;
	w->fr_line[w->nfrs] = l;
	w->frame_of[l] = w->nfrs;
	return w->nfrs++;
}

struct stk_key {
	const struct fx *w;
	uint32_t prefix, frame;
};

static int stk_eq(const void *ctx, size_t entry)
{
	const struct stk_key *k = ctx;

	return k->w->stk_prefix[entry] == k->prefix &&
	       k->w->stk_frame[entry] == k->frame;
}

/* The stack of frame on prefix (NONE: a root), added when new (after
 * its prefix, so the table is in topological order); -1: no memory. */
static long stack_index(struct fx *w, uint32_t prefix, uint32_t frame)
{
	struct stk_key k = { w, prefix, frame };
	uint64_t h = hash_mix64(((uint64_t)prefix << 32) | frame);
	size_t i = hashmap_find(&w->stkmap, h, stk_eq, &k);

	if (i != SIZE_MAX)
		return (long)i;
	if (ALLOC_GROW(w->stk_frame, w->nstks + 1, w->alloc_stk_frame) ||
	    ALLOC_GROW(w->stk_prefix, w->nstks + 1, w->alloc_stk_prefix) ||
	    hashmap_add(&w->stkmap, h, w->nstks))
		return -1;
	w->stk_frame[w->nstks] = frame;
	w->stk_prefix[w->nstks] = prefix;
	return (long)w->nstks++;
}

/* Every event's stack (ev_stack), and with them the tables. */
static int find_stacks(struct fx *w)
{
	const struct report_streams *st = w->st;
	size_t i, k;

	for (i = 0; i < st->nstreams; i++) {
		const struct report_stream *sp = &st->streams[i];

		for (k = sp->first; k < sp->first + sp->n; k++) {
			const struct prof_event *e =
				&w->p->events[st->order[k]];
			uint32_t stack = NONE;
			size_t j;
			int err;

			w->nlines = 0;
			err = report_event_lines(w->s, w->p, e, &w->lines,
						 &w->nlines, &w->alloc_lines);
			if (err)
				return err;
			for (j = 0; j < w->nlines; j++) {
				long fr = frame_index(w, w->lines[j]), sk;

				sk = fr < 0 ? -1 :
				     stack_index(w, stack, (uint32_t)fr);
				if (sk < 0)
					return -PROF_ENOMEM;
				stack = (uint32_t)sk;
			}
			w->ev_stack[k] = stack;
		}
	}
	return 0;
}

/* A time or weight in ns, as ms. */
static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* A column of indices (none_null: NONE is null). */
static void col_uint32(struct json_writer *jw, const char *key,
		       const uint32_t *v, size_t n, int none_null)
{
	size_t i;

	jw_object_begin_array(jw, key, JW_INLINE);
	for (i = 0; i < n; i++)
		if (none_null && v[i] == NONE)
			jw_array_null(jw);
		else
			jw_array_uint(jw, v[i]);
	jw_end(jw);
}

/* A column of n times the same value. */
enum fill { FILL_NULL, FILL_FALSE, FILL_MINUS1, FILL_ZERO, FILL_ONE };

static void col_fill(struct json_writer *jw, const char *key, size_t n,
		     enum fill f)
{
	size_t i;

	jw_object_begin_array(jw, key, JW_INLINE);
	for (i = 0; i < n; i++)
		switch (f) {
		case FILL_NULL:
			jw_array_null(jw);
			break;
		case FILL_FALSE:
			jw_array_bool(jw, 0);
			break;
		case FILL_MINUS1:
			jw_array_int(jw, -1);
			break;
		case FILL_ZERO:
			jw_array_uint(jw, 0);
			break;
		case FILL_ONE:
			jw_array_uint(jw, 1);
			break;
		}
	jw_end(jw);
}

/* An empty table: {"length": 0, "col": [], ...}. */
static void empty_table(struct json_writer *jw, const char *key,
			const char *const *cols)
{
	jw_object_begin_object(jw, key, JW_INLINE);
	jw_object_uint(jw, "length", 0);
	for (; *cols; cols++) {
		jw_object_begin_array(jw, *cols, JW_INLINE);
		jw_end(jw);
	}
	jw_end(jw);
}

static void write_strings(struct fx *w)
{
	struct json_writer *jw = &w->jw;
	size_t i;

	jw_object_begin_array(jw, "stringArray", JW_INLINE);
	for (i = 0; i < w->nstrs; i++)
		jw_array_string(jw, w->strs[i]);
	jw_end(jw);
}

static void write_sources(struct fx *w)
{
	struct json_writer *jw = &w->jw;

	jw_object_begin_object(jw, "sources", JW_LINES);
	jw_object_uint(jw, "length", w->nsrcs);
	col_fill(jw, "id", w->nsrcs, FILL_NULL);
	col_uint32(jw, "filename", w->src_str, w->nsrcs, 0);
	col_fill(jw, "startLine", w->nsrcs, FILL_ONE);
	col_fill(jw, "startColumn", w->nsrcs, FILL_ONE);
	col_fill(jw, "sourceMapURL", w->nsrcs, FILL_NULL);
	col_fill(jw, "content", w->nsrcs, FILL_NULL);
	jw_end(jw);
}

static void write_funcs(struct fx *w)
{
	struct json_writer *jw = &w->jw;
	uint32_t i;

	jw_object_begin_object(jw, "funcTable", JW_LINES);
	jw_object_uint(jw, "length", w->nfns);
	col_uint32(jw, "name", w->fn_name, w->nfns, 0);
	col_fill(jw, "isJS", w->nfns, FILL_FALSE);
	col_fill(jw, "relevantForJS", w->nfns, FILL_FALSE);
	col_fill(jw, "resource", w->nfns, FILL_MINUS1);
	col_uint32(jw, "source", w->fn_src, w->nfns, 1);
	jw_object_begin_array(jw, "lineNumber", JW_INLINE);
	for (i = 0; i < w->nfns; i++) {
		unsigned line = w->func_line[w->fn_func[i]];

		if (line && w->s->funcs[w->fn_func[i]].file)
			jw_array_uint(jw, line);
		else
			jw_array_null(jw);
	}
	jw_end(jw);
	col_fill(jw, "columnNumber", w->nfns, FILL_NULL);
	col_fill(jw, "originalLocation", w->nfns, FILL_NULL);
	jw_end(jw);
}

static void write_frames(struct fx *w)
{
	struct json_writer *jw = &w->jw;
	const struct report_samples *s = w->s;
	uint32_t i;

	jw_object_begin_object(jw, "frameTable", JW_LINES);
	jw_object_uint(jw, "length", w->nfrs);
	jw_object_begin_array(jw, "address", JW_INLINE);
	for (i = 0; i < w->nfrs; i++) {
		const struct report_sloc *l =
			&s->locs[w->line_loc[w->fr_line[i]]];

		if (l->obj == UINT32_MAX || l->address >= FX_MAX_ADDRESS)
			jw_array_int(jw, -1);
		else
			jw_array_uint(jw, l->address);
	}
	jw_end(jw);
	col_fill(jw, "lib", w->nfrs, FILL_MINUS1);
	/* 0 the out-of-line function, then each level inlined into it;
	 * a location's lines are innermost first */
	jw_object_begin_array(jw, "inlineDepth", JW_INLINE);
	for (i = 0; i < w->nfrs; i++) {
		uint32_t l = w->fr_line[i];
		const struct report_sloc *loc = &s->locs[w->line_loc[l]];

		jw_array_uint(jw, loc->first_line + loc->nlines - 1 - l);
	}
	jw_end(jw);
	col_fill(jw, "category", w->nfrs, FILL_ZERO);
	col_fill(jw, "subcategory", w->nfrs, FILL_ZERO);
	jw_object_begin_array(jw, "func", JW_INLINE);
	for (i = 0; i < w->nfrs; i++)
		jw_array_uint(jw, w->func_of[s->lines[w->fr_line[i]].func]);
	jw_end(jw);
	col_fill(jw, "nativeSymbol", w->nfrs, FILL_NULL);
	col_fill(jw, "innerWindowID", w->nfrs, FILL_NULL);
	jw_object_begin_array(jw, "line", JW_INLINE);
	for (i = 0; i < w->nfrs; i++)
		if (s->lines[w->fr_line[i]].line)
			jw_array_uint(jw, s->lines[w->fr_line[i]].line);
		else
			jw_array_null(jw);
	jw_end(jw);
	col_fill(jw, "column", w->nfrs, FILL_NULL);
	col_fill(jw, "originalLocation", w->nfrs, FILL_NULL);
	jw_end(jw);
}

static void write_stacks(struct fx *w)
{
	struct json_writer *jw = &w->jw;
	size_t i;

	jw_object_begin_object(jw, "stackTable", JW_LINES);
	jw_object_uint(jw, "length", w->nstks);
	col_uint32(jw, "frame", w->stk_frame, w->nstks, 0);
	jw_object_begin_array(jw, "prefixOffset", JW_INLINE);
	for (i = 0; i < w->nstks; i++)
		jw_array_uint(jw, w->stk_prefix[i] == NONE ? 0 :
				  i - w->stk_prefix[i]);
	jw_end(jw);
	jw_end(jw);
}

static void write_shared(struct fx *w)
{
	static const char *const resource_cols[] = {
		"name", "host", "type", NULL };
	static const char *const symbol_cols[] = {
		"libIndex", "address", "name", "functionSize", NULL };
	static const char *const location_cols[] = {
		"source", "line", "column", NULL };
	struct json_writer *jw = &w->jw;

	jw_object_begin_object(jw, "shared", JW_LINES);
	write_sources(w);
	write_funcs(w);
	write_frames(w);
	write_stacks(w);
	empty_table(jw, "resourceTable", resource_cols);
	empty_table(jw, "nativeSymbols", symbol_cols);
	empty_table(jw, "sourceLocationTable", location_cols);
	write_strings(w);
	jw_end(jw);
}

/* Whether statistic st's weights are CPU time: cpu-clock, task-clock. */
static int is_clock(const struct prof_stat *st)
{
	return st->type == PERF_TYPE_SOFTWARE &&
	       (st->config == PERF_COUNT_SW_CPU_CLOCK ||
		st->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* Whether stream sp's samples carry CPU deltas. */
static int has_cpu_deltas(const struct fx *w, const struct report_stream *sp)
{
	return w->timed[sp->stat] || is_clock(&w->p->stats[sp->stat]);
}

/* The stream's events, k from sp->first on. */
static const struct prof_event *event(const struct fx *w, size_t k)
{
	return &w->p->events[w->st->order[k]];
}

static int is_interval(const struct fx *w, const struct prof_event *e)
{
	return w->p->task_counts[e->tcount].state != PROF_STATE_RUNNING;
}

/*
 * threadCPUDelta: each sample's CPU time since the sample before, in ns.
 * With intervals the thread ran but while in one: the time since the
 * later of the sample before and the end of the last interval.  A clock
 * statistic's samples are a period of CPU time each.  from: where the
 * view starts.
 */
static void write_cpu_deltas(struct fx *w, const struct report_stream *sp,
			     uint64_t from)
{
	struct json_writer *jw = &w->jw;
	int timed = w->timed[sp->stat];
	uint64_t resume = from;
	size_t k;

	jw_object_begin_array(jw, "threadCPUDelta", JW_INLINE);
	for (k = sp->first; k < sp->first + sp->n; k++) {
		const struct prof_event *e = event(w, k);
		uint64_t end = is_interval(w, e) ? e->time + e->weight :
			       e->time;

		if (timed)
			jw_array_uint(jw, e->time > resume ?
					  e->time - resume : 0);
		else
			jw_array_uint(jw, e->weight);
		if (end > resume)
			resume = end;
	}
	jw_end(jw);
}

static void write_samples(struct fx *w, const struct report_stream *sp,
			  uint64_t from)
{
	struct json_writer *jw = &w->jw;
	int timed = w->timed[sp->stat];
	size_t k;

	jw_object_begin_object(jw, "samples", JW_LINES);
	jw_object_uint(jw, "length", sp->n);
	jw_object_string(jw, "weightType", timed ? "tracing-ms" : "samples");
	jw_object_begin_array(jw, "stack", JW_INLINE);
	for (k = sp->first; k < sp->first + sp->n; k++)
		if (w->ev_stack[k] == NONE)
			jw_array_null(jw);
		else
			jw_array_uint(jw, w->ev_stack[k]);
	jw_end(jw);
	jw_object_begin_array(jw, "time", JW_INLINE);
	for (k = sp->first; k < sp->first + sp->n; k++)
		jw_array_double(jw, 6, ms(event(w, k)->time));
	jw_end(jw);
	if (timed) {
		jw_object_begin_array(jw, "weight", JW_INLINE);
		for (k = sp->first; k < sp->first + sp->n; k++)
			jw_array_double(jw, 6, ms(event(w, k)->weight));
		jw_end(jw);
	} else {
		jw_object_null(jw, "weight");
	}
	if (has_cpu_deltas(w, sp))
		write_cpu_deltas(w, sp, from);
	jw_end(jw);
}

/* The name of a process: its main thread's (tid == pid) commands, or
 * its first thread's. */
static const char *process_name(const struct report_streams *st,
				const struct report_sthread *t)
{
	const struct report_sthread *first = t;

	while (first > st->threads && first[-1].pid == t->pid)
		first--;
	for (t = first; t < st->threads + st->nthreads &&
	     t->pid == first->pid; t++)
		if (t->tid == t->pid)
			return t->comms;
	return first->comms;
}

/* A thread's name: its commands ("swapper (cpu 1)" for an idle task),
 * and ": STAT" when several statistics are exported. */
static char *thread_name(const struct fx *w, const struct report_stream *sp,
			 int several)
{
	const struct report_sthread *t = &w->st->threads[sp->thread];
	char cpu[32] = "", key[128], *name;

	if (t->cpu != NONE)
		snprintf(cpu, sizeof(cpu), " (cpu %" PRIu32 ")", t->cpu);
	if (asprintf(&name, "%s%s%s%s", t->comms, cpu, several ? ": " : "",
		     several ? report_stat_key(w->p, sp->stat, key,
					       sizeof(key)) : "") < 0)
		return NULL;
	return name;
}

static void write_thread(struct fx *w, const struct report_stream *sp,
			 const char *name, int main_thread, uint64_t from)
{
	struct json_writer *jw = &w->jw;
	const struct report_sthread *t = &w->st->threads[sp->thread];
	const struct prof_event *e = event(w, sp->first);
	static const char *const marker_cols[] = {
		"data", "name", "startTime", "endTime", "phase", "category",
		NULL };
	char pid[16];

	snprintf(pid, sizeof(pid), "%" PRIu32, t->pid);
	jw_object_begin(jw, JW_LINES);
	jw_object_string(jw, "name", name);
	jw_object_string(jw, "processName", process_name(w->st, t));
	jw_object_string(jw, "processType", "default");
	jw_object_double(jw, "processStartupTime", 6, ms(from));
	jw_object_null(jw, "processShutdownTime");
	/* where its first sample's period or interval starts */
	jw_object_double(jw, "registerTime", 6, ms(
				 is_interval(w, e) || e->time < e->weight ?
				 e->time : e->time - e->weight));
	jw_object_null(jw, "unregisterTime");
	jw_object_begin_array(jw, "pausedRanges", JW_INLINE);
	jw_end(jw);
	jw_object_bool(jw, "isMainThread", main_thread);
	jw_object_string(jw, "pid", pid);
	jw_object_uint(jw, "tid", t->tid);
	write_samples(w, sp, from);
	empty_table(jw, "markers", marker_cols);
	jw_end(jw);
}

/* The statistics that have streams. */
static size_t stats_out(const struct fx *w)
{
	size_t i, n = 0;

	for (i = 0; i < w->p->nstats; i++)
		n += w->st->has_events[i] != 0;
	return n;
}

/* One thread per stream; a process's main thread is its first stream
 * of the thread whose tid is its pid. */
static int write_threads(struct fx *w, uint64_t from)
{
	const struct report_streams *st = w->st;
	int several = stats_out(w) > 1;
	uint32_t main_pid = NONE;
	size_t i;

	jw_object_begin_array(&w->jw, "threads", JW_LINES);
	for (i = 0; i < st->nstreams; i++) {
		const struct report_stream *sp = &st->streams[i];
		const struct report_sthread *t = &st->threads[sp->thread];
		int main_thread = t->tid == t->pid && t->pid != main_pid;
		char *name = thread_name(w, sp, several);

		if (!name)
			return -PROF_ENOMEM;
		if (main_thread)
			main_pid = t->pid;
		write_thread(w, sp, name, main_thread, from);
		free(name);
	}
	jw_end(&w->jw);
	return 0;
}

/* The sampling interval in ms: the first statistic's with a timer's
 * rate (a clock's, wall's), else 1. */
static double interval_ms(const struct fx *w)
{
	const struct profile *p = w->p;
	size_t i;

	for (i = 0; i < p->nstats; i++) {
		const struct prof_stat *st = &p->stats[i];

		if (!w->st->has_events[i])
			continue;
		if (st->freq && (is_clock(st) || (st->flags & PROF_STAT_TIME)))
			return 1000.0 / (double)st->freq;
		if (st->period && is_clock(st))
			return ms(st->period);
	}
	return 1;
}

static void write_meta(struct fx *w, const char *cmd, uint64_t from,
		       uint64_t to)
{
	struct json_writer *jw = &w->jw;
	const struct profile *p = w->p;
	char os[256];
	size_t i;
	int deltas = 0;

	for (i = 0; i < w->st->nstreams; i++)
		deltas |= has_cpu_deltas(w, &w->st->streams[i]);
	jw_object_begin_object(jw, "meta", JW_LINES);
	jw_object_double_g(jw, "interval", 9, interval_ms(w));
	jw_object_double(jw, "startTime", 3, ms(p->start_time_ns));
	jw_object_double(jw, "profilingStartTime", 6, ms(from));
	jw_object_double(jw, "profilingEndTime", 6, ms(to));
	jw_object_uint(jw, "processType", 0);
	jw_object_string(jw, "product", p->tool ? p->tool : "uprofile");
	jw_object_string(jw, "arguments", cmd);
	jw_object_uint(jw, "stackwalk", 1);
	jw_object_uint(jw, "version", FX_GECKO_VERSION);
	jw_object_uint(jw, "preprocessedProfileVersion", FX_VERSION);
	jw_object_bool(jw, "symbolicated", 1);
	snprintf(os, sizeof(os), "%s %s %s", p->sysname ? p->sysname : "",
		 p->release ? p->release : "", p->machine ? p->machine : "");
	jw_object_string(jw, "oscpu", os);
	if (p->cpu_model)
		jw_object_string(jw, "CPUName", p->cpu_model);
	if (p->ncpus)
		jw_object_uint(jw, "logicalCPUs", p->ncpus);
	jw_object_begin_array(jw, "markerSchema", JW_INLINE);
	jw_end(jw);
	jw_object_begin_array(jw, "categories", JW_LINES);
	jw_object_begin(jw, JW_INLINE);
	jw_object_string(jw, "name", "Other");
	jw_object_string(jw, "color", "grey");
	jw_object_begin_array(jw, "subcategories", JW_INLINE);
	jw_array_string(jw, "Other");
	jw_end(jw);
	jw_end(jw);
	jw_end(jw);
	if (deltas) {
		jw_object_begin_object(jw, "sampleUnits", JW_INLINE);
		jw_object_string(jw, "time", "ms");
		jw_object_string(jw, "eventDelay", "ms");
		jw_object_string(jw, "threadCPUDelta", "ns");
		jw_end(jw);
	}
	jw_end(jw);
}

/* The view's range, ns from the run's start: the run (or the --time
 * window), stretched over every sample (the profiler leaves out a
 * sample at or after its end). */
static void view_range(const struct fx *w, uint64_t *from, uint64_t *to)
{
	const struct profile *p = w->p;
	size_t i;

	*from = p->nwindow ? p->window[0].from : 0;
	*to = p->nwindow ? p->window[p->nwindow - 1].to : p->duration_ns;
	for (i = 0; i < w->st->nstreams; i++) {
		const struct report_stream *sp = &w->st->streams[i];
		size_t k;

		for (k = sp->first; k < sp->first + sp->n; k++) {
			uint64_t t = event(w, k)->time;

			if (t < *from)
				*from = t;
			if (t >= *to)
				*to = t + 1;
		}
	}
}

static int set_up(struct fx *w)
{
	const struct report_samples *s = w->s;
	size_t nf = s->nfuncs + 1, nl = s->nlines + 1, i;
	uint32_t m;
	int err;

	w->func_of = malloc(nf * sizeof(*w->func_of));
	w->fn_func = malloc(nf * sizeof(*w->fn_func));
	w->fn_name = malloc(nf * sizeof(*w->fn_name));
	w->fn_src = malloc(nf * sizeof(*w->fn_src));
	w->func_line = calloc(nf, sizeof(*w->func_line));
	w->frame_of = malloc(nl * sizeof(*w->frame_of));
	w->fr_line = malloc(nl * sizeof(*w->fr_line));
	w->line_loc = calloc(nl, sizeof(*w->line_loc));
	if (!w->func_of || !w->fn_func || !w->fn_name || !w->fn_src ||
	    !w->func_line || !w->frame_of ||
	    !w->fr_line || !w->line_loc)
		return -PROF_ENOMEM;
	for (i = 0; i < nf; i++)
		w->func_of[i] = NONE;
	for (i = 0; i < nl; i++)
		w->frame_of[i] = NONE;
	for (i = 0; i < s->nlocs; i++)
		for (m = 0; m < s->locs[i].nlines; m++)
			w->line_loc[s->locs[i].first_line + m] = (uint32_t)i;
	report_func_lines(s, w->func_line);
	err = report_streams_build(w->p, &w->st);
	if (err)
		return err;
	w->timed = calloc(w->p->nstats + 1, 1);
	w->ev_stack = malloc((w->p->nevents + 1) * sizeof(*w->ev_stack));
	if (!w->timed || !w->ev_stack)
		return -PROF_ENOMEM;
	for (i = 0; i < w->p->nstats; i++)
		w->timed[i] = w->st->has_intervals[i] ||
			      (w->p->stats[i].flags & PROF_STAT_TIME);
	return 0;
}

static void release(struct fx *w)
{
	free(w->strs);
	hashmap_release(&w->strmap);
	free(w->src_str);
	free(w->str_src);
	free(w->func_of);
	free(w->fn_func);
	free(w->fn_name);
	free(w->fn_src);
	free(w->func_line);
	free(w->frame_of);
	free(w->fr_line);
	free(w->line_loc);
	free(w->stk_frame);
	free(w->stk_prefix);
	hashmap_release(&w->stkmap);
	free(w->ev_stack);
	free(w->timed);
	free(w->lines);
	report_streams_free(w->st);
	jw_release(&w->jw);
}

/* Why p cannot be laid out in time, or 0. */
static int refuse(const struct report *r)
{
	const struct profile *p = r->prof;
	const char *file = r->opt.file ? r->opt.file : "the profile";

	if (profile_timeline_missing(p))
		return prof_fail(PROF_EINVAL, "'%s' has no timeline (%s): the "
				 "Firefox Profiler lays samples out in time "
				 "(--format speedscope, pprof or flamegraph "
				 "export its sums)", file,
				 profile_timeline_missing(p));
	return 0;
}

int fmt_firefox(FILE *f, const struct report *r)
{
	struct fx w = { .r = r, .p = r->prof, .s = r->samples,
			.strmap = HASHMAP_INIT, .stkmap = HASHMAP_INIT };
	uint64_t from, to;
	char *cmd = NULL;
	int err;

	jw_init(&w.jw, f);
	err = w.s ? refuse(r) :
	      prof_fail(PROF_EINVAL, "firefox: no samples model");
	if (!err)
		err = set_up(&w);
	if (!err && !w.st->nstreams)
		err = prof_fail(PROF_EINVAL, "'%s' has no samples in its time "
				"stream: nothing to lay out in time",
				r->opt.file ? r->opt.file : "the profile");
	if (!err)
		err = find_stacks(&w);
	if (!err) {
		cmd = report_command_line(w.p);
		if (!cmd)
			err = -PROF_ENOMEM;
	}
	if (err) {
		release(&w);
		return err;
	}
	view_range(&w, &from, &to);
	jw_object_begin(&w.jw, JW_LINES);
	write_meta(&w, cmd, from, to);
	jw_object_begin_array(&w.jw, "libs", JW_INLINE);
	jw_end(&w.jw);
	write_shared(&w);
	err = write_threads(&w, from);
	jw_end(&w.jw);
	if (!err)
		err = jw_finish(&w.jw);
	free(cmd);
	release(&w);
	return err;
}
