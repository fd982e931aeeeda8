/* SPDX-License-Identifier: MIT */
/*
 * --format speedscope: the profile in speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json), laid out over
 * time from the profile's time stream.  docs/exports.md describes the
 * file and what the viewer shows of it.  Layout only: every frame is a
 * function of the samples model (report.h, struct report_samples), as
 * the other exports name it; each event finds its stack's sample, or its
 * address's location, through the model's way back (stack_sample,
 * report_samples_loc()).
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

/* A task count's thread: its task's (pid, tid); each CPU's idle task
 * (pid 0) is a thread of its own. */
struct ss_tkey {
	uint32_t pid, tid, cpu;		/* cpu: NONE but for pid 0 */
	uint32_t task, tcount;
};

/* A profile of the time stream: one thread's events of one statistic. */
struct ss_prof {
	uint32_t thread, stat;
	size_t first, n;		/* its events: order[first...] */
	uint64_t weight;		/* theirs, gaps not counted */
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
	uint32_t *frame_of, *func_line, *frame_func;
	uint32_t nframes_out;
	/* The profile being laid out. */
	struct ss_sample *samples;
	size_t nsamples, alloc_samples;
	uint32_t *frames;
	size_t nframes, alloc_frames;
	uint64_t total;			/* its weights, gaps included */
	/* The threads of the time stream. */
	uint32_t *tc_thread;		/* per task count */
	char **thread_name;
	size_t nthreads;
	struct ss_prof *profs;
	size_t nprofs;
	size_t *order;			/* events, by profile, in time */
	unsigned char *is_time;		/* per statistic: weights are ns */
	unsigned char *has_events;	/* per statistic */
};

static int push_frame(struct ss *w, uint32_t func)
{
	if (ALLOC_GROW(w->frames, w->nframes + 1, w->alloc_frames))
		return -PROF_ENOMEM;
	w->frames[w->nframes++] = func;
	return 0;
}

/* A location's inline chain, outermost (the out-of-line function)
 * first. */
static int push_loc(struct ss *w, uint32_t loc)
{
	const struct report_sloc *l = &w->s->locs[loc];
	uint32_t m;

	for (m = l->nlines; m-- > 0;)
		if (push_frame(w, w->s->lines[l->first_line + m].func))
			return -PROF_ENOMEM;
	return 0;
}

/* A model sample's frames, root first (its locations are leaf first). */
static int push_sample(struct ss *w, uint32_t x)
{
	const struct report_ssample *sm = &w->s->samples[x];
	uint32_t j;

	for (j = sm->nlocs; j-- > 0;)
		if (push_loc(w, w->s->sample_locs[sm->first + j]))
			return -PROF_ENOMEM;
	return 0;
}

/* An event's frames: its stack's, or, taken without one, its address's
 * (its task count's) alone. */
static int push_event(struct ss *w, const struct prof_event *e)
{
	const struct report_samples *s = w->s;
	const struct prof_task_count *tc = &w->p->task_counts[e->tcount];
	long loc;

	if (e->stack && e->stack - 1 < s->nstacks &&
	    s->stack_sample[e->stack - 1] != NONE)
		return push_sample(w, s->stack_sample[e->stack - 1]);
	loc = report_samples_loc(s, tc->obj, tc->offset);
	if (loc < 0)
		return prof_fail(PROF_EFORMAT, "an event of the time stream "
				 "is at an address the profile has no count "
				 "of");
	return push_loc(w, (uint32_t)loc);
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
static int lay_out_events(struct ss *w, const struct ss_prof *sp,
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
		const struct prof_event *e = &p->events[w->order[sp->first + i]];
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

static int cmp_tkey(const void *a, const void *b)
{
	const struct ss_tkey *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (x->task > y->task) - (x->task < y->task);
}

/* "comm (pid/tid)", the command names of its tasks in their order
 * ("sh, prog (...)" for a thread that exec'd); each CPU's idle task
 * "swapper (0/0, cpu 1)". */
static char *thread_name(const struct profile *p, const struct ss_tkey *k,
			 size_t n)
{
	char *name = NULL, *next;
	size_t i, j;
	int rc;

	for (i = 0; i < n; i++) {
		const char *comm = p->tasks[k[i].task].comm;

		if (i && k[i].task == k[i - 1].task)
			continue;
		for (j = 0; j < i; j++)
			if (!strcmp(p->tasks[k[j].task].comm, comm))
				break;
		if (j < i)
			continue;
		if (asprintf(&next, "%s%s%s", name ? name : "",
			     name ? ", " : "", *comm ? comm : "?") < 0) {
			free(name);
			return NULL;
		}
		free(name);
		name = next;
	}
	if (!name)
		return NULL;
	if (k->cpu != NONE)
		rc = asprintf(&next, "%s (%" PRIu32 "/%" PRIu32 ", cpu %" PRIu32
			      ")", name, k->pid, k->tid, k->cpu);
	else
		rc = asprintf(&next, "%s (%" PRIu32 "/%" PRIu32 ")", name,
			      k->pid, k->tid);
	free(name);
	return rc < 0 ? NULL : next;
}

/* The threads of the time stream: tc_thread and thread_name. */
static int find_threads(struct ss *w)
{
	const struct profile *p = w->p;
	struct ss_tkey *k = malloc((p->ntask_counts + 1) * sizeof(*k));
	size_t i, j, n = p->ntask_counts;

	w->tc_thread = malloc((n + 1) * sizeof(*w->tc_thread));
	w->thread_name = calloc(n + 1, sizeof(*w->thread_name));
	if (!k || !w->tc_thread || !w->thread_name) {
		free(k);
		return -PROF_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const struct prof_task_count *tc = &p->task_counts[i];
		const struct prof_task *t = &p->tasks[tc->task];

		k[i] = (struct ss_tkey){ .pid = t->pid, .tid = t->tid,
			.cpu = t->pid ? NONE : tc->cpu, .task = tc->task,
			.tcount = (uint32_t)i };
	}
	qsort(k, n, sizeof(*k), cmp_tkey);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && k[j].pid == k[i].pid &&
		     k[j].tid == k[i].tid && k[j].cpu == k[i].cpu; j++)
			w->tc_thread[k[j].tcount] = (uint32_t)w->nthreads;
		w->thread_name[w->nthreads] = thread_name(p, &k[i], j - i);
		if (!w->thread_name[w->nthreads++]) {
			free(k);
			return -PROF_ENOMEM;
		}
	}
	free(k);
	return 0;
}

/* The profiles of the time stream, by thread and statistic, and their
 * events in order. */
static int find_profiles(struct ss *w)
{
	const struct profile *p = w->p;
	size_t nstats = p->nstats, nkeys = w->nthreads * nstats, i, at = 0;
	size_t *count = calloc(nkeys + 1, sizeof(*count));
	uint32_t *prof_of = malloc((nkeys + 1) * sizeof(*prof_of));

	w->order = malloc((p->nevents + 1) * sizeof(*w->order));
	w->profs = calloc(nkeys + 1, sizeof(*w->profs));
	if (!count || !prof_of || !w->order || !w->profs) {
		free(count);
		free(prof_of);
		return -PROF_ENOMEM;
	}
	for (i = 0; i < p->nevents; i++) {
		const struct prof_task_count *tc =
			&p->task_counts[p->events[i].tcount];

		if (tc->stat >= nstats || !report_stat_counted(
			    &p->stats[tc->stat]))
			continue;
		count[w->tc_thread[p->events[i].tcount] * nstats +
		      tc->stat]++;
		w->has_events[tc->stat] = 1;
		if (tc->state != PROF_STATE_RUNNING)
			w->is_time[tc->stat] = 1;
	}
	for (i = 0; i < nkeys; i++) {
		struct ss_prof *sp = &w->profs[w->nprofs];

		prof_of[i] = NONE;
		if (!count[i])
			continue;
		sp->thread = (uint32_t)(i / nstats);
		sp->stat = (uint32_t)(i % nstats);
		sp->first = at;
		at += count[i];
		prof_of[i] = (uint32_t)w->nprofs++;
	}
	for (i = 0; i < p->nevents; i++) {
		const struct prof_event *e = &p->events[i];
		const struct prof_task_count *tc = &p->task_counts[e->tcount];
		struct ss_prof *sp;

		if (tc->stat >= nstats || !report_stat_counted(
			    &p->stats[tc->stat]))
			continue;
		sp = &w->profs[prof_of[w->tc_thread[e->tcount] * nstats +
				       tc->stat]];
		w->order[sp->first + sp->n++] = i;
		sp->weight += e->weight;
	}
	free(count);
	free(prof_of);
	return 0;
}

/* The busiest thread's profile: the most weight of the statistic the
 * report's call-stack views count, or of the first with events. */
static size_t busiest(const struct ss *w)
{
	size_t stat = w->r->stacks ? w->r->stacks->stat : w->p->nstats, i,
	       best = 0;

	if (stat >= w->p->nstats || !w->has_events[stat])
		for (stat = 0; stat < w->p->nstats &&
		     !w->has_events[stat]; stat++)
			;
	for (i = 0; i < w->nprofs; i++)
		if (w->profs[i].stat == stat &&
		    (w->profs[best].stat != stat ||
		     w->profs[i].weight > w->profs[best].weight))
			best = i;
	return best;
}

/* The profile's statistics that are exported: counted, with samples. */
static size_t stats_out(const struct ss *w)
{
	size_t i, n = 0;

	for (i = 0; i < w->p->nstats; i++)
		if (report_stat_counted(&w->p->stats[i]) &&
		    (w->has_events[i] || w->s->total_weight[i]))
			n++;
	return n;
}

static void write_events(struct ss *w, int several)
{
	const struct profile *p = w->p;
	char key[128], *name;
	size_t i;

	for (i = 0; i < w->nprofs && !w->err; i++) {
		const struct ss_prof *sp = &w->profs[i];
		uint64_t start;

		reset_layout(w);
		w->err = lay_out_events(w, sp, &start);
		if (w->err)
			break;
		if (!several)
			name = strdup(w->thread_name[sp->thread]);
		else if (asprintf(&name, "%s: %s", w->thread_name[sp->thread],
				  report_stat_key(p, sp->stat, key,
						  sizeof(key))) < 0)
			name = NULL;
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
		if (!report_stat_counted(&p->stats[i]) || w->has_events[i] ||
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

/* Per function: the lowest line of it in its own file the model holds
 * (speedscope's frames are functions: a line says where one is). */
static void function_lines(struct ss *w)
{
	const struct report_samples *s = w->s;
	size_t i;

	for (i = 0; i < s->nlines; i++) {
		const struct report_sline *l = &s->lines[i];
		const char *file = s->funcs[l->func].file;

		if (l->line && l->file && file && !strcmp(l->file, file) &&
		    (!w->func_line[l->func] || l->line < w->func_line[l->func]))
			w->func_line[l->func] = l->line;
	}
}

/* The command line, words separated by spaces. */
static char *command(const struct profile *p)
{
	size_t len = 1, i;
	char *s;

	for (i = 0; i < (size_t)p->argc; i++)
		len += strlen(p->argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	*s = '\0';
	for (i = 0; i < (size_t)p->argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, p->argv[i]);
	}
	return s;
}

static int set_up(struct ss *w)
{
	const struct profile *p = w->p;
	size_t nf = w->s->nfuncs + 1, i;

	w->frame_of = malloc(nf * sizeof(*w->frame_of));
	w->frame_func = malloc(nf * sizeof(*w->frame_func));
	w->func_line = calloc(nf, sizeof(*w->func_line));
	w->is_time = calloc(p->nstats + 1, 1);
	w->has_events = calloc(p->nstats + 1, 1);
	if (!w->frame_of || !w->frame_func || !w->func_line || !w->is_time ||
	    !w->has_events)
		return -PROF_ENOMEM;
	for (i = 0; i < nf; i++)
		w->frame_of[i] = NONE;
	function_lines(w);
	for (i = 0; i < p->nstats; i++)
		w->is_time[i] = p->stats[i].type == PERF_TYPE_SOFTWARE &&
				(p->stats[i].config == PERF_COUNT_SW_CPU_CLOCK ||
				 p->stats[i].config == PERF_COUNT_SW_TASK_CLOCK);
	if (p->timeline != PROF_TIMELINE_KEPT)
		return 0;
	return find_threads(w) ? -PROF_ENOMEM : find_profiles(w);
}

static void release(struct ss *w)
{
	size_t i;

	free(w->frame_of);
	free(w->frame_func);
	free(w->func_line);
	free(w->samples);
	free(w->frames);
	free(w->tc_thread);
	for (i = 0; w->thread_name && i < w->nthreads; i++)
		free(w->thread_name[i]);
	free(w->thread_name);
	free(w->profs);
	free(w->order);
	free(w->is_time);
	free(w->has_events);
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
		cmd = command(w.p);
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
