/* SPDX-License-Identifier: MIT */
/*
 * profile_merge(): the sum of two profiles of the same program, with the
 * checks that make the sum mean something (profile.h).  Entities are
 * matched by key, as a profile.proto merge does: objects by build-id (or
 * kind and path when either has none), statistics by what was measured
 * and how often, frames by (object, offset), stacks by their frames and
 * end.  Figures keyed the same are summed.  profile_read_sum(): the
 * files of -i A -i B and --merge read and added up that way (merge.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "merge.h"
#include "profile.h"

static const char *name_or(const char *name, const char *dflt)
{
	return name && *name ? name : dflt;
}

/* What the statistic is: equal keys count the same events. */
static int same_event(const struct prof_stat *a, const struct prof_stat *b)
{
	return !strcmp(a->name, b->name) && a->type == b->type &&
	       a->config == b->config && a->modes == b->modes &&
	       a->flags == b->flags;
}

/* "every 1000000 ns", "every 10007 events" or "at 4000 Hz". */
static void describe_rate(char *buf, size_t n, const struct prof_stat *s)
{
	int clock = !strcmp(s->name, "cpu-clock") ||
		    !strcmp(s->name, "task-clock");

	if (s->freq)
		snprintf(buf, n, "at %" PRIu64 " Hz", s->freq);
	else
		snprintf(buf, n, "every %" PRIu64 " %s", s->period,
			 clock ? "ns" : "events");
}

/* "cpu-clock:uk, page-faults:u" (with their modes, perf's modifiers;
 * truncated to fit). */
static void list_stats(char *buf, size_t n, const struct profile *p)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < p->nstats && used < n; i++) {
		unsigned m = p->stats[i].modes;
		int w = snprintf(buf + used, n - used, "%s%s:%s%s%s",
				 i ? ", " : "", p->stats[i].name,
				 m & 1 ? "u" : "", m & 2 ? "k" : "",
				 m & 4 ? "h" : "");

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* The kernel's _text in p's kernel symbols, or 0. */
static uint64_t kernel_text(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nksyms; i++)
		if (!p->ksyms[i].module && !strcmp(p->ksyms[i].name, "_text"))
			return p->ksyms[i].start;
	return 0;
}

/* A counting profile (--count): totals, no samples. */
static int counting(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nstats; i++)
		if (p->stats[i].flags & PROF_STAT_COUNTING)
			return 1;
	return 0;
}

/*
 * Whether src may be added to dst; remap[i] is then the statistic of dst
 * src's statistic i adds to.  A refusal is -PROF_EINVAL with the reason.
 */
static int check_mergeable(const struct profile *dst, const struct profile *src,
			   const char *dn, const char *sn, uint32_t *remap)
{
	char a[256], b[256];
	uint64_t ta, tb;
	size_t i, j;

	/* A perf.data is whichever tool's reads it. */
	if (!dst->recorded_by && !src->recorded_by &&
	    strcmp(name_or(dst->tool, "?"), name_or(src->tool, "?")))
		return prof_fail(PROF_EINVAL, "'%s' is a %s profile, '%s' a "
				 "%s profile: not comparable", dn,
				 name_or(dst->tool, "?"), sn,
				 name_or(src->tool, "?"));
	if (counting(dst) != counting(src))
		return prof_fail(PROF_EINVAL, "'%s' %s, '%s' %s: not "
				 "comparable", dn, counting(dst) ? "counts" :
				 "samples", sn, counting(src) ? "counts" :
				 "samples");
	for (i = 0; i < src->nstats; i++) {
		const struct prof_stat *s = &src->stats[i];

		for (j = 0; j < dst->nstats; j++)
			if (same_event(&dst->stats[j], s))
				break;
		if (j == dst->nstats || dst->nstats != src->nstats)
			goto different;
		if (dst->stats[j].period != s->period ||
		    dst->stats[j].freq != s->freq) {
			describe_rate(a, sizeof(a), &dst->stats[j]);
			describe_rate(b, sizeof(b), s);
			return prof_fail(PROF_EINVAL, "'%s' samples %s %s, "
					 "'%s' %s: not comparable", dn,
					 s->name, a, sn, b);
		}
		/* Two statistics of src on one of dst (the same name
		 * twice) would sum what the file keeps apart. */
		for (size_t k = 0; k < i; k++)
			if (remap[k] == j)
				goto different;
		remap[i] = (uint32_t)j;
	}
	if (dst->nstats != src->nstats)
		goto different;
	ta = kernel_text(dst);
	tb = kernel_text(src);
	if (ta && tb && ta != tb)
		return prof_fail(PROF_EINVAL, "'%s' and '%s' were taken in "
				 "different boots (the kernel is at another "
				 "address): their kernel addresses are not "
				 "comparable", dn, sn);
	return 0;
different:
	list_stats(a, sizeof(a), dst);
	list_stats(b, sizeof(b), src);
	return prof_fail(PROF_EINVAL, "'%s' has statistics %s, '%s' has %s: "
			 "different statistics are not comparable", dn, a, sn,
			 b);
}


/* ---- hash sets of indices, for frames and stacks ---------------------- */

struct iset {
	uint32_t *slot;		/* index + 1, 0: empty */
	size_t mask;
};

static int iset_init(struct iset *s, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n + 16)
		cap *= 2;
	s->slot = calloc(cap, sizeof(*s->slot));
	s->mask = cap - 1;
	return s->slot ? 0 : -PROF_ENOMEM;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t frame_hash(const struct prof_frame *f)
{
	return mix(mix(0, f->obj), f->offset);
}

static uint64_t stack_hash(const uint32_t *fr, uint32_t n, uint32_t end)
{
	uint64_t h = mix(0, end);
	uint32_t i;

	for (i = 0; i < n; i++)
		h = mix(h, fr[i]);
	return h;
}

/* The slot of the entry for which eq(ctx, entry) holds, or the empty
 * slot where such an entry goes. */
static size_t iset_find(const struct iset *s, uint64_t hash,
			int (*eq)(const void *ctx, uint32_t entry),
			const void *ctx)
{
	size_t at = (size_t)hash & s->mask;

	while (s->slot[at] && !eq(ctx, s->slot[at] - 1))
		at = (at + 1) & s->mask;
	return at;
}

/* ---- the merge ---------------------------------------------------------- */

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Add src's counts (objects and statistics remapped), then sum the
 * entries of the same (object, statistic, offset). */
static int merge_counts(struct profile *dst, const struct profile *src,
			const uint32_t *objs, const uint32_t *stats)
{
	size_t i, n;

	for (i = 0; i < src->ncounts; i++) {
		struct prof_count c = src->counts[i];

		c.obj = objs[c.obj];
		c.stat = stats[c.stat];
		if (profile_add_count(dst, &c) < 0)
			return -PROF_ENOMEM;
	}
	profile_sort_counts(dst);
	for (i = n = 0; i < dst->ncounts; i++) {
		struct prof_count *c = &dst->counts[i];

		if (n && !profile_count_cmp(&dst->counts[n - 1], c)) {
			dst->counts[n - 1].samples += c->samples;
			dst->counts[n - 1].weight += c->weight;
		} else {
			dst->counts[n++] = *c;
		}
	}
	dst->ncounts = n;
	return 0;
}

struct frame_key {
	const struct profile *p;
	const struct prof_frame *f;
};

static int frame_eq(const void *ctx, uint32_t i)
{
	const struct frame_key *k = ctx;

	return k->p->frames[i].obj == k->f->obj &&
	       k->p->frames[i].offset == k->f->offset;
}

static int merge_frames(struct profile *dst, const struct profile *src,
			const uint32_t *objs, uint32_t *remap)
{
	struct iset set;
	size_t i, at;
	int err = iset_init(&set, dst->nframes + src->nframes);

	if (err)
		return err;
	for (i = 0; i < dst->nframes; i++) {
		struct frame_key k = { dst, &dst->frames[i] };

		at = iset_find(&set, frame_hash(k.f), frame_eq, &k);
		if (!set.slot[at])
			set.slot[at] = (uint32_t)i + 1;
	}
	for (i = 0; i < src->nframes; i++) {
		struct prof_frame f = src->frames[i];
		struct frame_key k = { dst, &f };
		int idx;

		f.obj = objs[f.obj];
		at = iset_find(&set, frame_hash(&f), frame_eq, &k);
		if (set.slot[at]) {
			remap[i] = set.slot[at] - 1;
			continue;
		}
		idx = profile_add_frame(dst, &f);
		if (idx < 0) {
			err = idx;
			break;
		}
		set.slot[at] = (uint32_t)idx + 1;
		remap[i] = (uint32_t)idx;
	}
	free(set.slot);
	return err;
}

struct stack_key {
	const struct profile *p;
	const uint32_t *fr;
	uint32_t n, end;
};

static int stack_eq(const void *ctx, uint32_t i)
{
	const struct stack_key *k = ctx;
	const struct prof_stack *st = &k->p->stacks[i];

	return st->nframes == k->n && st->end == k->end &&
	       !memcmp(k->p->stack_frames + st->first, k->fr,
		       k->n * sizeof(*k->fr));
}

static int merge_stacks(struct profile *dst, const struct profile *src,
			const uint32_t *frames, uint32_t *remap)
{
	struct iset set;
	uint32_t *fr = NULL;
	size_t i, at, alloc = 0;
	int err = iset_init(&set, dst->nstacks + src->nstacks);

	if (err)
		return err;
	for (i = 0; i < dst->nstacks; i++) {
		const struct prof_stack *st = &dst->stacks[i];
		struct stack_key k = { dst, dst->stack_frames + st->first,
				       st->nframes, st->end };

		at = iset_find(&set, stack_hash(k.fr, k.n, k.end), stack_eq,
			       &k);
		if (!set.slot[at])
			set.slot[at] = (uint32_t)i + 1;
	}
	for (i = 0; i < src->nstacks && !err; i++) {
		const struct prof_stack *st = &src->stacks[i];
		struct stack_key k = { dst, NULL, st->nframes, st->end };
		uint32_t j;
		int idx;

		if (ALLOC_GROW(fr, st->nframes, alloc)) {
			err = -PROF_ENOMEM;
			break;
		}
		for (j = 0; j < st->nframes; j++)
			fr[j] = frames[src->stack_frames[st->first + j]];
		k.fr = fr;
		at = iset_find(&set, stack_hash(fr, k.n, k.end), stack_eq, &k);
		if (set.slot[at]) {
			remap[i] = set.slot[at] - 1;
			continue;
		}
		idx = profile_add_stack(dst, fr, st->nframes,
					(enum prof_stack_end)st->end);
		if (idx < 0) {
			err = idx;
			break;
		}
		set.slot[at] = (uint32_t)idx + 1;
		remap[i] = (uint32_t)idx;
	}
	free(fr);
	free(set.slot);
	return err;
}

static int merge_stack_counts(struct profile *dst, const struct profile *src,
			      const uint32_t *stacks, const uint32_t *stats)
{
	size_t i, n;

	for (i = 0; i < src->nstack_counts; i++) {
		struct prof_stack_count c = src->stack_counts[i];

		c.stack = stacks[c.stack];
		c.stat = stats[c.stat];
		if (profile_add_stack_count(dst, &c) < 0)
			return -PROF_ENOMEM;
	}
	profile_sort_stack_counts(dst);
	for (i = n = 0; i < dst->nstack_counts; i++) {
		struct prof_stack_count *c = &dst->stack_counts[i];
		struct prof_stack_count *last = n ? &dst->stack_counts[n - 1] :
					       NULL;

		if (last && last->stack == c->stack && last->stat == c->stat) {
			last->samples += c->samples;
			last->weight += c->weight;
		} else {
			dst->stack_counts[n++] = *c;
		}
	}
	dst->nstack_counts = n;
	return 0;
}

static int merge_modes(struct profile *dst, const struct profile *src)
{
	size_t i, j;
	int m;

	for (i = 0; i < src->nmodes; i++) {
		for (j = 0; j < dst->nmodes; j++)
			if (dst->modes[j].cpu == src->modes[i].cpu)
				break;
		if (j == dst->nmodes) {
			if (ALLOC_GROW(dst->modes, dst->nmodes + 1,
				       dst->alloc_modes))
				return -PROF_ENOMEM;
			memset(&dst->modes[j], 0, sizeof(dst->modes[j]));
			dst->modes[j].cpu = src->modes[i].cpu;
			dst->nmodes++;
		}
		for (m = 0; m < PROF_NMODES; m++)
			dst->modes[j].n[m] += src->modes[i].n[m];
	}
	return 0;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct prof_ksym *x = a, *y = b;

	return cmp_u64(x->start, y->start);
}

/* The union, sorted by address: both profiles come from one boot (the
 * check compares _text), so a symbol at one address is the same. */
static int merge_ksyms(struct profile *dst, const struct profile *src)
{
	size_t i, n = dst->nksyms;

	for (i = 0; i < src->nksyms; i++) {
		const struct prof_ksym *k = &src->ksyms[i], *hit;

		hit = n ? bsearch(k, dst->ksyms, n, sizeof(*k), cmp_ksym) :
			  NULL;
		if (!hit && profile_add_ksym(dst, k) < 0)
			return -PROF_ENOMEM;
	}
	if (dst->nksyms > 1)
		qsort(dst->ksyms, dst->nksyms, sizeof(*dst->ksyms), cmp_ksym);
	return 0;
}

/* The union, sorted and apart: a symbol of src that overlaps one dst
 * already has for the same object is left out (dst's name stays); one
 * whose code would take the sum over PROF_JIT_CODE_TOTAL_MAX comes
 * without its code. */
static int merge_jitsyms(struct profile *dst, const struct profile *src,
			 const uint32_t *objs)
{
	size_t i, j, n = dst->njitsyms;
	uint64_t code = 0;

	for (i = 0; i < n; i++)
		if (dst->jitsyms[i].code)
			code += dst->jitsyms[i].end - dst->jitsyms[i].start;
	for (i = 0; i < src->njitsyms; i++) {
		struct prof_jitsym k = src->jitsyms[i];

		k.obj = objs[k.obj];
		for (j = 0; j < n; j++)
			if (dst->jitsyms[j].obj == k.obj &&
			    dst->jitsyms[j].start < k.end &&
			    k.start < dst->jitsyms[j].end)
				break;
		if (j < n)
			continue;
		if (k.code && k.end - k.start > PROF_JIT_CODE_TOTAL_MAX - code)
			k.code = NULL;
		else if (k.code)
			code += k.end - k.start;
		if (profile_add_jitsym(dst, &k) < 0)
			return -PROF_ENOMEM;
	}
	profile_sort_jitsyms(dst);
	return 0;
}

/* An archive's files: the union (one per kind, path and build-id). */
static int merge_files(struct profile *dst, const struct profile *src)
{
	size_t i, j, n = dst->nfiles;

	for (i = 0; i < src->nfiles; i++) {
		const struct prof_file *f = &src->files[i];
		struct prof_file *d;

		for (j = 0; j < n; j++)
			if (dst->files[j].kind == f->kind &&
			    dst->files[j].build_id_len == f->build_id_len &&
			    !memcmp(dst->files[j].build_id, f->build_id,
				    f->build_id_len) &&
			    !strcmp(dst->files[j].path, f->path))
				break;
		if (j < n)
			continue;
		if (ALLOC_GROW(dst->files, dst->nfiles + 1, dst->alloc_files))
			return -PROF_ENOMEM;
		d = &dst->files[dst->nfiles];
		*d = *f;
		d->path = strdup(f->path);
		d->zdata = malloc(f->zlen ? f->zlen : 1);
		if (!d->path || !d->zdata) {
			free(d->path);
			free(d->zdata);
			return -PROF_ENOMEM;
		}
		memcpy(d->zdata, f->zdata, f->zlen);
		dst->nfiles++;
	}
	return 0;
}

static void merge_meta(struct profile *dst, const struct profile *src,
		       const uint32_t *stats)
{
	size_t i;

	for (i = 0; i < src->nstats; i++) {
		struct prof_stat *d = &dst->stats[stats[i]];
		const struct prof_stat *s = &src->stats[i];

		d->samples += s->samples;
		d->lost += s->lost;
		d->value += s->value;
		d->time_enabled += s->time_enabled;
		d->time_running += s->time_running;
	}
	if (src->start_time_ns &&
	    (!dst->start_time_ns || src->start_time_ns < dst->start_time_ns))
		dst->start_time_ns = src->start_time_ns;
	dst->duration_ns += src->duration_ns;
	if (dst->pid != src->pid)
		dst->pid = -1;
	if (dst->cpu != src->cpu)
		dst->cpu = -1;
	if (src->ncpus > dst->ncpus)
		dst->ncpus = src->ncpus;
	if (dst->exit_status != src->exit_status)
		dst->exit_status = -1;
	dst->ra_moved += src->ra_moved;
	if (dst->call_graph == PROF_CG_NONE)
		dst->call_graph = src->call_graph;
	if (src->stack_dump > dst->stack_dump)
		dst->stack_dump = src->stack_dump;
}

static int cmp_task_count(const void *a, const void *b)
{
	const struct prof_task_count *x = a, *y = b;

	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->stat != y->stat)
		return x->stat < y->stat ? -1 : 1;
	return cmp_u64(x->offset, y->offset);
}

/* Forget the tasks: the sum holds counts no task accounts for. */
static void drop_tasks(struct profile *p)
{
	size_t i;

	for (i = 0; i < p->ntasks; i++)
		free(p->tasks[i].comm);
	p->ntasks = p->ntask_counts = 0;
}

/*
 * Tasks: the same (pid, tid, command name) is one task, and the task
 * counts of the same (task, cpu, object, statistic, offset) add up.  When
 * one profile has counts but no tasks (taken before tasks were recorded),
 * the sum has none: -by then says so instead of splitting part of it.
 */
static int merge_tasks(struct profile *dst, const struct profile *src,
		       const uint32_t *objs, const uint32_t *stats,
		       int dst_had_tasks)
{
	uint32_t *remap;
	size_t i, j, n;

	if (!dst_had_tasks ||
	    (!src->ntasks && src->ncounts)) {
		drop_tasks(dst);
		return 0;
	}
	remap = calloc(src->ntasks + 1, sizeof(*remap));
	if (!remap)
		return -PROF_ENOMEM;
	for (i = 0; i < src->ntasks; i++) {
		const struct prof_task *t = &src->tasks[i];
		int idx;

		for (j = 0; j < dst->ntasks; j++)
			if (dst->tasks[j].pid == t->pid &&
			    dst->tasks[j].tid == t->tid &&
			    !strcmp(dst->tasks[j].comm, t->comm))
				break;
		if (j == dst->ntasks) {
			idx = profile_add_task(dst, t->pid, t->tid, t->comm);
			if (idx < 0) {
				free(remap);
				return -PROF_ENOMEM;
			}
			j = (size_t)idx;
		}
		remap[i] = (uint32_t)j;
	}
	for (i = 0; i < src->ntask_counts; i++) {
		struct prof_task_count c = src->task_counts[i];

		c.task = remap[c.task];
		c.obj = objs[c.obj];
		c.stat = stats[c.stat];
		if (profile_add_task_count(dst, &c) < 0) {
			free(remap);
			return -PROF_ENOMEM;
		}
	}
	free(remap);
	if (dst->ntask_counts > 1)
		qsort(dst->task_counts, dst->ntask_counts,
		      sizeof(*dst->task_counts), cmp_task_count);
	for (i = n = 0; i < dst->ntask_counts; i++) {
		struct prof_task_count *c = &dst->task_counts[i];

		if (n && !cmp_task_count(&dst->task_counts[n - 1], c)) {
			dst->task_counts[n - 1].samples += c->samples;
			dst->task_counts[n - 1].weight += c->weight;
		} else {
			dst->task_counts[n++] = *c;
		}
	}
	dst->ntask_counts = n;
	return 0;
}

int profile_merge(struct profile *dst, const struct profile *src,
		  const char *dst_name, const char *src_name)
{
	const char *dn = name_or(dst_name, "the first profile");
	const char *sn = name_or(src_name, "the second profile");
	uint32_t *stats, *objs = NULL, *frames = NULL, *stacks = NULL;
	/* a profile that was empty takes src's tasks */
	int had_tasks = dst->ntasks > 0 || !dst->ncounts;
	int err;

	stats = calloc(src->nstats + 1, sizeof(*stats));
	if (!stats)
		return -PROF_ENOMEM;
	err = check_mergeable(dst, src, dn, sn, stats);
	if (err)
		goto out;
	err = -PROF_ENOMEM;
	objs = calloc(src->nobjects + 1, sizeof(*objs));
	frames = calloc(src->nframes + 1, sizeof(*frames));
	stacks = calloc(src->nstacks + 1, sizeof(*stacks));
	if (!objs || !frames || !stacks)
		goto out;
	err = profile_map_objects(dst, src, objs);
	if (!err)
		err = merge_counts(dst, src, objs, stats);
	if (!err)
		err = merge_tasks(dst, src, objs, stats, had_tasks);
	if (!err)
		err = merge_frames(dst, src, objs, frames);
	if (!err)
		err = merge_stacks(dst, src, frames, stacks);
	if (!err)
		err = merge_stack_counts(dst, src, stacks, stats);
	if (!err)
		err = merge_modes(dst, src);
	if (!err)
		err = merge_ksyms(dst, src);
	if (!err)
		err = merge_jitsyms(dst, src, objs);
	if (!err)
		err = merge_files(dst, src);
	if (!err)
		merge_meta(dst, src, stats);
	if (!err) {
		/* Each run has its own clock: the sum has no timeline. */
		free(dst->events);
		dst->events = NULL;
		dst->nevents = dst->alloc_events = 0;
		dst->timeline = PROF_TIMELINE_MERGED;
	}
out:
	free(stats);
	free(objs);
	free(frames);
	free(stacks);
	return err;
}

int profile_read_window(const char *path, const char *time,
			const struct profile_import *imp,
			struct profile **out)
{
	struct prof_range *r = NULL;
	struct profile *p;
	size_t nr = 0;
	char why[512];
	int err;

	*out = NULL;
	err = profile_read_from(path, imp, &p);
	if (err || !time) {
		*out = p;
		return err;
	}
	if (p->timeline != PROF_TIMELINE_KEPT) {
		err = prof_fail(PROF_EINVAL, "cannot use --time on '%s': it "
				"has no timeline: %s", path,
				profile_timeline_missing(p));
		profile_free(p);
		return err;
	}
	err = profile_time_parse(time, profile_time_span(p), &r, &nr);
	if (err == -PROF_EINVAL) {
		snprintf(why, sizeof(why), "%s", prof_error(err));
		err = prof_fail(PROF_EINVAL, "'%s': %s", path, why);
	}
	if (!err)
		err = profile_window(p, r, nr);
	free(r);
	if (err) {
		profile_free(p);
		return err;
	}
	*out = p;
	return 0;
}

int profile_read_sum(const char *const *files, size_t n, const char *time,
		     const struct profile_import *imp, struct profile **out)
{
	struct profile *sum = NULL, *p;
	size_t i;
	int err;

	*out = NULL;
	if (!n)
		return prof_fail(PROF_EINVAL, "no profile to read");
	err = profile_read_window(files[0], time, imp, &sum);
	for (i = 1; !err && i < n; i++) {
		err = profile_read_window(files[i], time, imp, &p);
		if (err)
			break;
		err = profile_merge(sum, p, files[0], files[i]);
		profile_free(p);
		if (err == -PROF_EINVAL) {
			char why[512];

			snprintf(why, sizeof(why), "%s", prof_error(err));
			err = prof_fail(PROF_EINVAL, "cannot add up the "
					"profiles: %s", why);
		}
	}
	if (err) {
		profile_free(sum);
		return err;
	}
	*out = sum;
	return 0;
}

char *profile_sum_name(const char *const *files, size_t n)
{
	size_t i, len = 1;
	char *s;

	for (i = 0; i < n; i++)
		len += strlen(files[i]) + 3;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			strcat(s, " + ");
		strcat(s, files[i]);
	}
	return s;
}
