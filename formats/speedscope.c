/* SPDX-License-Identifier: MIT */
/*
 * --format speedscope: the profile in speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json), laid out over
 * time from the profile's time stream.  docs/exports.md describes the
 * file and what the viewer shows of it.  Layout only: every frame is a
 * function of the samples model (report.h, struct report_samples), as
 * the other exports name it; the threads, their events of each
 * statistic and each event's frames are the time stream's as
 * formats/report/streams.c groups and symbolizes it
 * (report_streams_build(), report_event_lines()), which firefox.c lays
 * out too.
 *
 * - A profile of the time stream is one thread's events of one
 *   statistic, "sampled", in time order, each sample its event's stack
 *   root first and weighing the event's weight.  Speedscope has no
 *   timestamps: its time order view places each sample right after the
 *   one before.  So for a statistic of time (the clocks' periods and the
 *   off-CPU intervals are nanoseconds) the time the thread spent without
 *   samples is an empty sample (no frames) of that length, which
 *   speedscope draws as a gap and counts as idle; cut out of a --time
 *   window, it is not shown.  A running sample stands for the period
 *   before its time, [time - weight, time), an interval for [time, time
 *   + weight).  Up to GAP_PERIODS periods between two running samples
 *   are within what sampling resolves and not shown (the samples are
 *   closed up: the view runs that much shorter than the clock); between
 *   intervals, which are exact, every gap is.  Consecutive samples of
 *   the same frames with nothing between them are one.
 * - startValue is where the run (or the --time window) starts, ns from
 *   the run's start, and the time before a thread's first sample is a
 *   gap: speedscope does not place a profile by its startValue (each
 *   thread's view starts at 0), so this lines the threads up on one
 *   clock.  endValue is startValue plus every weight, gaps included.
 * - Without a timeline (an older or a merged profile), and for a
 *   statistic that has no events (exact counts: -pixie), a profile is a
 *   statistic's samples of the whole profile, all threads, sorted by
 *   their frames' names: what speedscope shows of it is a flame graph,
 *   not time.
 */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "formats/report/report.h"
#include "jsonw.h"
#include "writers.h"

#define NONE UINT32_MAX
#define SCHEMA "https://www.speedscope.app/file-format-schema.json"
/* Up to this many periods without a sample are not a gap: the timer
 * behind a clock statistic may fire late and skip a period or two (an
 * overrun, common in virtual machines: seen here as a 1 ms period's
 * sample every ~2 ms, now and then), the thread running all the while. */
#define GAP_PERIODS 3

/* A sample of the profile being laid out: frames[first...], n of them
 * (0: time without samples), root first. */
struct ss_sample {
	size_t first;
	uint32_t n;
	uint64_t weight;
};

struct ss {
	const struct report *r;
	const struct profile *p;
	const struct report_samples *s;
	struct json_writer jw;
	int err;
	/* Per function: its frame's index in shared.frames (NONE: not
	 * written yet) and the lowest line of it in its own file (0:
	 * unknown); frame_func[] the other way. */
	uint32_t *frame_of, *frame_func;
	unsigned *func_line;
	uint32_t nframes_out;
	/* The profile being laid out. */
	struct ss_sample *samples;
	size_t nsamples, alloc_samples;
	uint32_t *frames;
	size_t nframes, alloc_frames;
	uint64_t total;			/* its weights, gaps included */
	/* The time stream by thread and statistic. */
	struct report_streams *st;
	unsigned char *is_time;		/* per statistic: weights are ns */
};

/* Functions from first on: the lines report_*_lines() pushed, each
 * its function (speedscope's frames are functions). */
static void lines_to_funcs(struct ss *w, size_t first)
{
	size_t k;

	for (k = first; k < w->nframes; k++)
		w->frames[k] = w->s->lines[w->frames[k]].func;
}

/* A model sample's frames, root first. */
static int push_sample(struct ss *w, uint32_t x)
{
	size_t first = w->nframes;
	int err = report_sample_lines(w->s, x, &w->frames, &w->nframes,
				      &w->alloc_frames);

	if (!err)
		lines_to_funcs(w, first);
	return err;
}

/* An event's frames: its stack's, or, taken without one, its address's
 * (its task count's) alone. */
static int push_event(struct ss *w, const struct prof_event *e)
{
	size_t first = w->nframes;
	int err = report_event_lines(w->s, w->p, e, &w->frames, &w->nframes,
				     &w->alloc_frames);

	if (!err)
		lines_to_funcs(w, first);
	return err;
}

/* The frames pushed since first as a sample of weight w; the same
 * frames right after the same frames make the sample before heavier. */
static int add_sample(struct ss *w, size_t first, uint64_t weight)
{
	uint32_t n = (uint32_t)(w->nframes - first);
	struct ss_sample *last = w->nsamples ?
				 &w->samples[w->nsamples - 1] : NULL;

	w->total += weight;
	if (last && last->n == n &&
	    !memcmp(&w->frames[last->first], &w->frames[first],
		    n * sizeof(*w->frames))) {
		last->weight += weight;
		w->nframes = first;
		return 0;
	}
	if (ALLOC_GROW(w->samples, w->nsamples + 1, w->alloc_samples))
		return -PROF_ENOMEM;
	w->samples[w->nsamples].first = first;
	w->samples[w->nsamples].n = n;
	w->samples[w->nsamples++].weight = weight;
	return 0;
}

/* How much of [from, to) the profile's --time window shows. */
static uint64_t shown(const struct profile *p, uint64_t from, uint64_t to)
{
	uint64_t sum = 0;
	size_t i;

	if (!p->nwindow)
		return to - from;
	for (i = 0; i < p->nwindow; i++) {
		uint64_t a = p->window[i].from > from ? p->window[i].from : from;
		uint64_t b = p->window[i].to < to ? p->window[i].to : to;

		if (b > a)
			sum += b - a;
	}
	return sum;
}

/*
 * One thread's events of one statistic, in time order.  A statistic of
 * time gets its gaps: *start is where its first sample starts (ns from
 * the run's start).
 */
static int lay_out_events(struct ss *w, const struct report_stream *sp,
			  uint64_t *start)
{
	const struct profile *p = w->p;
	int time = w->is_time[sp->stat], err;
	/* Every thread's view starts where the run (or the window) does,
	 * so the threads line up on one clock: time before a thread's
	 * first sample is a gap too. */
	uint64_t cursor = p->nwindow ? p->window[0].from : 0;
	size_t i;

	*start = time ? cursor : 0;
	for (i = 0; i < sp->n; i++) {
		const struct prof_event *e =
			&p->events[w->st->order[sp->first + i]];
		int interval = p->task_counts[e->tcount].state !=
			       PROF_STATE_RUNNING;
		size_t first;
		uint64_t at;

		if (!e->weight)
			continue;
		if (time) {
			at = interval ? e->time :
			     e->time > e->weight ? e->time - e->weight : 0;
			if (at > cursor) {
				uint64_t gap = shown(p, cursor, at);

				if (gap && (interval ||
					    gap > GAP_PERIODS * e->weight) &&
				    add_sample(w, w->nframes, gap))
					return -PROF_ENOMEM;
				cursor = at;
			}
			cursor += e->weight;
		}
		first = w->nframes;
		err = push_event(w, e);
		if (!err)
			err = add_sample(w, first, e->weight);
		if (err)
			return err;
	}
	return 0;
}

static int cmp_frames(const void *a, const void *b, void *ctx)
{
	const struct ss *w = ctx;
	const struct ss_sample *x = a, *y = b;
	uint32_t k;

	for (k = 0; k < x->n && k < y->n; k++) {
		uint32_t f = w->frames[x->first + k], g = w->frames[y->first + k];
		int c;

		if (f == g)
			continue;
		c = strcmp(w->s->funcs[f].name, w->s->funcs[g].name);
		if (c)
			return c;
		return f < g ? -1 : 1;
	}
	return (x->n > y->n) - (x->n < y->n);
}

/* A statistic's samples of the whole profile, without times: sorted by
 * their frames' names, the same frames once. */
static int lay_out_sums(struct ss *w, size_t stat)
{
	const struct report_samples *s = w->s;
	size_t i, k;

	for (i = 0; i < s->nsamples; i++) {
		size_t first = w->nframes;

		if (!s->samples[i].weight[stat])
			continue;
		if (push_sample(w, (uint32_t)i) ||
		    ALLOC_GROW(w->samples, w->nsamples + 1, w->alloc_samples))
			return -PROF_ENOMEM;
		w->samples[w->nsamples].first = first;
		w->samples[w->nsamples].n = (uint32_t)(w->nframes - first);
		w->samples[w->nsamples++].weight = s->samples[i].weight[stat];
		w->total += s->samples[i].weight[stat];
	}
	qsort_r(w->samples, w->nsamples, sizeof(*w->samples), cmp_frames, w);
	for (i = k = 0; i < w->nsamples; i++) {
		if (k && !cmp_frames(&w->samples[k - 1], &w->samples[i], w))
			w->samples[k - 1].weight += w->samples[i].weight;
		else
			w->samples[k++] = w->samples[i];
	}
	w->nsamples = k;
	return 0;
}

static uint32_t frame_index(struct ss *w, uint32_t func)
{
	if (w->frame_of[func] == NONE) {
		w->frame_func[w->nframes_out] = func;
		w->frame_of[func] = w->nframes_out++;
	}
	return w->frame_of[func];
}

/* The profile laid out (samples, total), as one element of profiles. */
static void write_profile(struct ss *w, const char *name, int time,
			  uint64_t start)
{
	struct json_writer *jw = &w->jw;
	size_t i;
	uint32_t k;

	jw_object_begin(jw, JW_LINES);
	jw_object_string(jw, "type", "sampled");
	jw_object_string(jw, "name", name);
	jw_object_string(jw, "unit", time ? "nanoseconds" : "none");
	jw_object_uint(jw, "startValue", start);
	jw_object_uint(jw, "endValue", start + w->total);
	jw_object_begin_array(jw, "samples", JW_LINES);
	for (i = 0; i < w->nsamples; i++) {
		const struct ss_sample *x = &w->samples[i];

		jw_array_begin(jw, JW_INLINE);
		for (k = 0; k < x->n; k++)
			jw_array_uint(jw, frame_index(w,
						      w->frames[x->first + k]));
		jw_end(jw);
	}
	jw_end(jw);
	jw_object_begin_array(jw, "weights", JW_INLINE);
	for (i = 0; i < w->nsamples; i++)
		jw_array_uint(jw, w->samples[i].weight);
	jw_end(jw);
	jw_end(jw);
}

static void reset_layout(struct ss *w)
{
	w->nsamples = w->nframes = 0;
	w->total = 0;
}

/* A thread's profile's name: "comm (pid/tid)", the idle task's
 * "swapper (0/0, cpu 1)". */
static char *thread_name(const struct report_sthread *t)
{
	char *name;
	int rc;

	if (t->cpu != NONE)
		rc = asprintf(&name, "%s (%" PRIu32 "/%" PRIu32 ", cpu %" PRIu32
			      ")", t->comms, t->pid, t->tid, t->cpu);
	else
		rc = asprintf(&name, "%s (%" PRIu32 "/%" PRIu32 ")", t->comms,
			      t->pid, t->tid);
	return rc < 0 ? NULL : name;
}

/* The busiest thread's profile: the most weight of the statistic the
 * report's call-stack views count, or of the first with events. */
static size_t busiest(const struct ss *w)
{
	size_t stat = w->r->stacks ? w->r->stacks->stat : w->p->nstats, i,
	       best = 0;

	const struct report_streams *st = w->st;

	if (stat >= w->p->nstats || !st->has_events[stat])
		for (stat = 0; stat < w->p->nstats &&
		     !st->has_events[stat]; stat++)
			;
	for (i = 0; i < st->nstreams; i++)
		if (st->streams[i].stat == stat &&
		    (st->streams[best].stat != stat ||
		     st->streams[i].weight > st->streams[best].weight))
			best = i;
	return best;
}

/* The profile's statistics that are exported: counted, with samples. */
static size_t stats_out(const struct ss *w)
{
	size_t i, n = 0;

	for (i = 0; i < w->p->nstats; i++)
		if (report_stat_counted(&w->p->stats[i]) &&
		    (w->st->has_events[i] || w->s->total_weight[i]))
			n++;
	return n;
}

static void write_events(struct ss *w, int several)
{
	const struct profile *p = w->p;
	char key[128], *name;
	size_t i;

	for (i = 0; i < w->st->nstreams && !w->err; i++) {
		const struct report_stream *sp = &w->st->streams[i];
		const struct report_sthread *t = &w->st->threads[sp->thread];
		uint64_t start;

		reset_layout(w);
		w->err = lay_out_events(w, sp, &start);
		if (w->err)
			break;
		name = thread_name(t);
		if (name && several) {
			char *tname = name;

			if (asprintf(&name, "%s: %s", tname,
				     report_stat_key(p, sp->stat, key,
						     sizeof(key))) < 0)
				name = NULL;
			free(tname);
		}
		if (!name) {
			w->err = -PROF_ENOMEM;
			break;
		}
		write_profile(w, name, w->is_time[sp->stat], start);
		free(name);
	}
}

/* The statistics without events (all of them without a timeline), each
 * a profile of its sums. */
static void write_sums(struct ss *w)
{
	const struct profile *p = w->p;
	const char *why = profile_timeline_missing(p);
	char key[128], *name;
	size_t i;

	for (i = 0; i < p->nstats && !w->err; i++) {
		if (!report_stat_counted(&p->stats[i]) ||
		    w->st->has_events[i] ||
		    !w->s->total_weight[i])
			continue;
		reset_layout(w);
		w->err = lay_out_sums(w, i);
		if (w->err)
			break;
		if (asprintf(&name, "%s: all threads, no time order (%s)",
			     report_stat_key(p, i, key, sizeof(key)),
			     why ? why : "exact counts have no times") < 0) {
			w->err = -PROF_ENOMEM;
			break;
		}
		write_profile(w, name, w->is_time[i], 0);
		free(name);
	}
}

static void write_frames(struct ss *w)
{
	struct json_writer *jw = &w->jw;
	uint32_t i;

	jw_object_begin_object(jw, "shared", JW_LINES);
	jw_object_begin_array(jw, "frames", JW_LINES);
	for (i = 0; i < w->nframes_out; i++) {
		const struct report_sfunc *f = &w->s->funcs[w->frame_func[i]];

		jw_object_begin(jw, JW_INLINE);
		jw_object_string(jw, "name", f->name);
		if (f->file)
			jw_object_string(jw, "file", f->file);
		if (f->file && w->func_line[w->frame_func[i]])
			jw_object_uint(jw, "line",
				       w->func_line[w->frame_func[i]]);
		jw_end(jw);
	}
	jw_end(jw);
	jw_end(jw);
}

static int set_up(struct ss *w)
{
	const struct profile *p = w->p;
	size_t nf = w->s->nfuncs + 1, i;
	int err;

	w->frame_of = malloc(nf * sizeof(*w->frame_of));
	w->frame_func = malloc(nf * sizeof(*w->frame_func));
	w->func_line = calloc(nf, sizeof(*w->func_line));
	w->is_time = calloc(p->nstats + 1, 1);
	if (!w->frame_of || !w->frame_func || !w->func_line || !w->is_time)
		return -PROF_ENOMEM;
	err = report_streams_build(p, &w->st);
	if (err)
		return err;
	for (i = 0; i < nf; i++)
		w->frame_of[i] = NONE;
	report_func_lines(w->s, w->func_line);
	for (i = 0; i < p->nstats; i++) {
		const struct prof_stat *st = &p->stats[i];

		w->is_time[i] = w->st->has_intervals[i] ||
				(st->type == PERF_TYPE_SOFTWARE &&
				 (st->config == PERF_COUNT_SW_CPU_CLOCK ||
				  st->config == PERF_COUNT_SW_TASK_CLOCK));
	}
	return 0;
}

static void release(struct ss *w)
{
	free(w->frame_of);
	free(w->frame_func);
	free(w->func_line);
	free(w->samples);
	free(w->frames);
	report_streams_free(w->st);
	free(w->is_time);
	jw_release(&w->jw);
}

int fmt_speedscope(FILE *f, const struct report *r)
{
	struct ss w = { .r = r, .p = r->prof, .s = r->samples };
	char *cmd = NULL, *exporter = NULL;
	int err;

	jw_init(&w.jw, f);
	if (!w.s) {
		release(&w);
		return prof_fail(PROF_EINVAL, "speedscope: no samples model");
	}
	err = set_up(&w);
	if (!err) {
		cmd = report_command_line(w.p);
		if (asprintf(&exporter, "%s %s", w.p->tool ? w.p->tool :
			     "uprofile", PROF_VERSION) < 0)
			exporter = NULL;
		if (!cmd || !exporter)
			err = -PROF_ENOMEM;
	}
	if (err) {
		free(cmd);
		free(exporter);
		release(&w);
		return err;
	}
	jw_object_begin(&w.jw, JW_LINES);
	jw_object_string(&w.jw, "$schema", SCHEMA);
	jw_object_string(&w.jw, "exporter", exporter);
	jw_object_string(&w.jw, "name", cmd);
	jw_object_uint(&w.jw, "activeProfileIndex", busiest(&w));
	jw_object_begin_array(&w.jw, "profiles", JW_LINES);
	write_events(&w, stats_out(&w) > 1);
	write_sums(&w);
	jw_end(&w.jw);
	if (!w.err)
		write_frames(&w);
	jw_end(&w.jw);
	err = w.err ? w.err : jw_finish(&w.jw);
	free(cmd);
	free(exporter);
	release(&w);
	return err;
}
