/* SPDX-License-Identifier: MIT */
/*
 * The profile model: building a struct profile up (profile_add_*()),
 * its orders, and the host it describes.  Its file is written by
 * encode.c and read by decode.c, an archive's files are kept by files.c,
 * profiles are added up by merge.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "profile_int.h"

struct profile *profile_new(void)
{
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->exit_status = -1;
	p->pid = -1;
	p->cpu = -1;
	p->start_after_ns = -1;
	return p;
}

/* Free a NULL-terminated array of strings and the array. */
static void jitsym_release(struct prof_jitsym *j);

static void free_argv(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void profile_free(struct profile *p)
{
	size_t i;

	if (!p)
		return;
	free(p->tool);
	free(p->tool_version);
	free(p->recorded_by);
	free_argv(p->argv);
	free(p->hostname);
	free(p->sysname);
	free(p->release);
	free(p->machine);
	free(p->cpu_model);
	free(p->ra_routines);
	free(p->start_after);
	for (i = 0; i < p->nobjects; i++)
		free(p->objects[i].path);
	free(p->objects);
	for (i = 0; i < p->nstats; i++) {
		free(p->stats[i].name);
		free(p->stats[i].requested);
	}
	free(p->stats);
	free(p->counts);
	free(p->modes);
	free(p->frames);
	free(p->stack_frames);
	free(p->stacks);
	free(p->stack_counts);
	for (i = 0; i < p->ntasks; i++)
		free(p->tasks[i].comm);
	free(p->tasks);
	free(p->task_counts);
	free(p->events);
	free(p->window);
	for (i = 0; i < p->nksyms; i++) {
		free(p->ksyms[i].name);
		free(p->ksyms[i].module);
	}
	free(p->ksyms);
	for (i = 0; i < p->njitsyms; i++)
		jitsym_release(&p->jitsyms[i]);
	free(p->jitsyms);
	for (i = 0; i < p->nfiles; i++) {
		free(p->files[i].path);
		free(p->files[i].zdata);
	}
	free(p->files);
	for (i = 0; i < p->nfiles_left_out; i++)
		free(p->files_left_out[i]);
	free(p->files_left_out);
	free(p);
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

int profile_add_object(struct profile *p, const struct prof_object *o)
{
	struct prof_object *n;

	if (ALLOC_GROW(p->objects, p->nobjects + 1, p->alloc_objects))
		return -PROF_ENOMEM;
	n = &p->objects[p->nobjects];
	*n = *o;
	if (n->build_id_len > sizeof(n->build_id))
		n->build_id_len = sizeof(n->build_id);
	n->path = dup_or_empty(o->path);
	if (!n->path)
		return -PROF_ENOMEM;
	return (int)p->nobjects++;
}

int profile_add_stat(struct profile *p, const struct prof_stat *s)
{
	struct prof_stat *n;

	if (ALLOC_GROW(p->stats, p->nstats + 1, p->alloc_stats))
		return -PROF_ENOMEM;
	n = &p->stats[p->nstats];
	*n = *s;
	n->name = dup_or_empty(s->name);
	n->requested = dup_or_empty(s->requested ? s->requested : s->name);
	if (!n->name || !n->requested) {
		free(n->name);
		free(n->requested);
		return -PROF_ENOMEM;
	}
	return (int)p->nstats++;
}

int profile_add_count(struct profile *p, const struct prof_count *c)
{
	if (ALLOC_GROW(p->counts, p->ncounts + 1, p->alloc_counts))
		return -PROF_ENOMEM;
	p->counts[p->ncounts] = *c;
	return (int)p->ncounts++;
}

int profile_add_frame(struct profile *p, const struct prof_frame *f)
{
	if (ALLOC_GROW(p->frames, p->nframes + 1, p->alloc_frames))
		return -PROF_ENOMEM;
	p->frames[p->nframes] = *f;
	p->frames[p->nframes].reserved = 0;
	return (int)p->nframes++;
}

int profile_add_stack(struct profile *p, const uint32_t *frames,
		      uint32_t nframes, enum prof_stack_end end)
{
	struct prof_stack *st;

	if (!nframes || nframes > UINT32_MAX - p->nstack_frames ||
	    ALLOC_GROW(p->stack_frames, p->nstack_frames + nframes,
		       p->alloc_stack_frames) ||
	    ALLOC_GROW(p->stacks, p->nstacks + 1, p->alloc_stacks))
		return -PROF_ENOMEM;
	memcpy(p->stack_frames + p->nstack_frames, frames,
	       nframes * sizeof(*frames));
	st = &p->stacks[p->nstacks];
	st->first = (uint32_t)p->nstack_frames;
	st->nframes = nframes;
	st->end = end;
	st->reserved = 0;
	p->nstack_frames += nframes;
	return (int)p->nstacks++;
}

int profile_add_stack_count(struct profile *p,
			    const struct prof_stack_count *c)
{
	if (ALLOC_GROW(p->stack_counts, p->nstack_counts + 1,
		       p->alloc_stack_counts))
		return -PROF_ENOMEM;
	p->stack_counts[p->nstack_counts] = *c;
	return (int)p->nstack_counts++;
}

int profile_stack_count_cmp(const void *a, const void *b)
{
	const struct prof_stack_count *x = a, *y = b;

	if (x->stat != y->stat)
		return x->stat < y->stat ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return 0;
}

void profile_sort_stack_counts(struct profile *p)
{
	if (p->nstack_counts > 1)
		qsort(p->stack_counts, p->nstack_counts,
		      sizeof(*p->stack_counts), profile_stack_count_cmp);
}

/* ---- tasks ------------------------------------------------------------ */

int profile_add_task(struct profile *p, uint32_t pid, uint32_t tid,
		     const char *comm)
{
	struct prof_task *t;

	if (ALLOC_GROW(p->tasks, p->ntasks + 1, p->alloc_tasks))
		return -PROF_ENOMEM;
	t = &p->tasks[p->ntasks];
	t->pid = pid;
	t->tid = tid;
	t->comm = dup_or_empty(comm);
	if (!t->comm)
		return -PROF_ENOMEM;
	return (int)p->ntasks++;
}

int profile_add_task_count(struct profile *p,
			   const struct prof_task_count *c)
{
	if (ALLOC_GROW(p->task_counts, p->ntask_counts + 1,
		       p->alloc_task_counts))
		return -PROF_ENOMEM;
	p->task_counts[p->ntask_counts] = *c;
	return (int)p->ntask_counts++;
}

int profile_add_event(struct profile *p, const struct prof_event *e)
{
	if (ALLOC_GROW(p->events, p->nevents + 1, p->alloc_events))
		return -PROF_ENOMEM;
	p->events[p->nevents] = *e;
	return (int)p->nevents++;
}

int profile_task_entry_cmp(const void *a, const void *b)
{
	const struct task_entry *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->state < y->state ? -1 : x->state > y->state;
}

static int cmp_count_at(const void *a, const void *b, void *ctx)
{
	const struct prof_count *counts = ctx;

	return profile_count_cmp(&counts[*(const uint32_t *)a],
				 &counts[*(const uint32_t *)b]);
}

/* The index of the count at (obj, stat, offset), through byidx (count
 * indices in profile_count_cmp() order), or -1. */
static long count_index(const struct profile *p, const uint32_t *byidx,
			const struct prof_task_count *tc)
{
	struct prof_count key = { .obj = tc->obj, .stat = tc->stat,
				  .offset = tc->offset };
	size_t lo = 0, hi = p->ncounts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = profile_count_cmp(&key, &p->counts[byidx[mid]]);

		if (!c)
			return byidx[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

int profile_task_entries(const struct profile *p, struct task_entry **out)
{
	size_t n = p->ntask_counts, i, j;
	uint32_t *byidx = malloc((p->ncounts ? p->ncounts : 1) *
				 sizeof(*byidx));
	struct task_entry *e = malloc((n ? n : 1) * sizeof(*e));
	int ok = 1;

	*out = NULL;
	if (!byidx || !e) {
		free(byidx);
		free(e);
		return -PROF_ENOMEM;
	}
	for (i = 0; i < p->ncounts; i++)
		byidx[i] = (uint32_t)i;
	qsort_r(byidx, p->ncounts, sizeof(*byidx), cmp_count_at,
		p->counts);
	for (i = 0; i < n && ok; i++) {
		const struct prof_task_count *tc = &p->task_counts[i];
		long k = count_index(p, byidx, tc);

		ok = k >= 0 && tc->task < p->ntasks;
		e[i] = (struct task_entry){ .count = (uint32_t)k,
			.task = tc->task, .cpu = tc->cpu, .state = tc->state,
			.src = (uint32_t)i,
			.samples = tc->samples, .weight = tc->weight };
	}
	free(byidx);
	if (ok && n > 1)
		qsort(e, n, sizeof(*e), profile_task_entry_cmp);
	/* One entry per (count, task, cpu, state); each count's add up. */
	for (i = 0; ok && i < n; i = j) {
		uint64_t s = 0, w = 0;

		for (j = i; j < n && e[j].count == e[i].count; j++) {
			if (j > i && !profile_task_entry_cmp(&e[j - 1], &e[j]))
				ok = 0;
			s += e[j].samples;
			w += e[j].weight;
		}
		ok = ok && s == p->counts[e[i].count].samples &&
		     w == p->counts[e[i].count].weight;
	}
	if (!ok) {
		free(e);
		return 0;
	}
	*out = e;
	return 1;
}

int profile_tasks_consistent(const struct profile *p)
{
	struct task_entry *e;
	int r = profile_task_entries(p, &e);

	free(e);
	return r;
}

const char *profile_stack_end_name(enum prof_stack_end end)
{
	static const char *const names[PROF_STACK_NEND] = {
		[PROF_STACK_COMPLETE] = "complete",
		[PROF_STACK_FP] = "frame-pointer chain",
		[PROF_STACK_TRUNC_DUMP] = "truncated: stack copy too small",
		[PROF_STACK_TRUNC_NO_CFI] = "truncated: no unwind information",
		[PROF_STACK_TRUNC_NO_MAP] = "truncated: address in no mapping",
		[PROF_STACK_TRUNC_DEPTH] = "truncated: frame limit",
		[PROF_STACK_TRUNC_BAD] = "truncated: bad unwind step",
		[PROF_STACK_KERNEL] = "kernel frames only",
		[PROF_STACK_TRUNC_SWITCH] = "truncated: stack switch",
		[PROF_STACK_TRUNC_COMPAT] = "truncated: 32-bit task",
		[PROF_STACK_TRUNC_NO_COPY] = "truncated: no stack copied",
	};

	return (unsigned)end < PROF_STACK_NEND ? names[end] : "unknown";
}

int profile_add_ksym(struct profile *p, const struct prof_ksym *k)
{
	struct prof_ksym *n;

	if (ALLOC_GROW(p->ksyms, p->nksyms + 1, p->alloc_ksyms))
		return -PROF_ENOMEM;
	n = &p->ksyms[p->nksyms];
	n->start = k->start;
	n->end = k->end;
	n->name = dup_or_empty(k->name);
	n->module = k->module && *k->module ? strdup(k->module) : NULL;
	if (!n->name || (k->module && *k->module && !n->module)) {
		free(n->name);
		free(n->module);
		return -PROF_ENOMEM;
	}
	return (int)p->nksyms++;
}

static int cmp_jitsym(const void *a, const void *b)
{
	const struct prof_jitsym *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

void profile_sort_jitsyms(struct profile *p)
{
	if (p->njitsyms > 1)
		qsort(p->jitsyms, p->njitsyms, sizeof(*p->jitsyms),
		      cmp_jitsym);
}

/* n's code, lines and files: copies of j's.  0 or -1 (out of memory). */
static int copy_jitcode(struct prof_jitsym *n, const struct prof_jitsym *j)
{
	size_t i;

	n->code = NULL;
	n->lines = NULL;
	n->files = NULL;
	n->nlines = n->nfiles = 0;
	if (j->code && !(n->code = malloc(j->end - j->start)))
		return -1;
	if (j->code)
		memcpy(n->code, j->code, j->end - j->start);
	if (j->nlines && !(n->lines = malloc(j->nlines * sizeof(*n->lines))))
		return -1;
	if (j->nlines)
		memcpy(n->lines, j->lines, j->nlines * sizeof(*n->lines));
	n->nlines = j->nlines;
	if (j->nfiles && !(n->files = calloc(j->nfiles, sizeof(*n->files))))
		return -1;
	n->nfiles = j->nfiles;
	for (i = 0; i < j->nfiles; i++)
		if (!(n->files[i] = strdup(j->files[i])))
			return -1;
	return 0;
}

static void jitsym_release(struct prof_jitsym *j)
{
	size_t i;

	free(j->name);
	free(j->code);
	free(j->lines);
	for (i = 0; i < j->nfiles; i++)
		free(j->files[i]);
	free(j->files);
}

int profile_add_jitsym(struct profile *p, const struct prof_jitsym *j)
{
	struct prof_jitsym *n;

	if (ALLOC_GROW(p->jitsyms, p->njitsyms + 1, p->alloc_jitsyms))
		return -PROF_ENOMEM;
	n = &p->jitsyms[p->njitsyms];
	*n = *j;
	n->name = strdup(j->name ? j->name : "");
	if (!n->name || copy_jitcode(n, j)) {
		if (n->name)
			jitsym_release(n);
		return -PROF_ENOMEM;
	}
	return (int)p->njitsyms++;
}

/* Replace p's command line with a copy of argv[0..argc). */
int profile_set_argv(struct profile *p, int argc, char *const *argv)
{
	char **v = calloc(argc + 1, sizeof(*v));
	int i;

	if (!v)
		return -PROF_ENOMEM;
	for (i = 0; i < argc; i++) {
		v[i] = strdup(argv[i]);
		if (!v[i]) {
			free_argv(v);
			return -PROF_ENOMEM;
		}
	}
	free_argv(p->argv);
	p->argv = v;
	p->argc = argc;
	return 0;
}

static char *read_cpu_model(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	char *model = NULL;

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon || strncmp(line, "model name", 10))
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		model = strdup(colon);
		break;
	}
	fclose(f);
	return model;
}

void profile_identify_host(struct profile *p)
{
	struct utsname u;

	if (uname(&u) == 0) {
		p->hostname = strdup(u.nodename);
		p->sysname = strdup(u.sysname);
		p->release = strdup(u.release);
		p->machine = strdup(u.machine);
	}
	p->cpu_model = read_cpu_model();
	p->ncpus = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
}

int profile_count_cmp(const void *a, const void *b)
{
	const struct prof_count *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->stat != y->stat)
		return x->stat < y->stat ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

void profile_sort_counts(struct profile *p)
{
	if (p->ncounts > 1)
		qsort(p->counts, p->ncounts, sizeof(*p->counts),
		      profile_count_cmp);
}

/* One object in both: the same build-id when both have one (a file
 * may have moved), else the same path; and the same kind. */
static int same_object(const struct prof_object *a,
		       const struct prof_object *b)
{
	if (a->kind != b->kind)
		return 0;
	if (a->build_id_len && b->build_id_len)
		return a->build_id_len == b->build_id_len &&
		       !memcmp(a->build_id, b->build_id, a->build_id_len);
	return !strcmp(a->path, b->path);
}

int profile_map_objects(struct profile *dst, const struct profile *src,
			uint32_t *remap)
{
	size_t i, j;

	for (i = 0; i < src->nobjects; i++) {
		for (j = 0; j < dst->nobjects; j++)
			if (same_object(&dst->objects[j], &src->objects[i]))
				break;
		if (j == dst->nobjects) {
			int idx = profile_add_object(dst, &src->objects[i]);

			if (idx < 0)
				return idx;
			j = (size_t)idx;
		} else if (memcmp(&dst->objects[j].id, &src->objects[i].id,
				  sizeof(struct prof_identity))) {
			/* Two files under one name: neither is "the" file,
			 * and one that must not be read stays so. */
			uint64_t unread = (dst->objects[j].id.flags |
					   src->objects[i].id.flags) &
					  PROF_ID_UNREAD;

			memset(&dst->objects[j].id, 0,
			       sizeof(struct prof_identity));
			dst->objects[j].id.flags = unread;
		}
		remap[i] = (uint32_t)j;
	}
	return 0;
}

int profile_append(struct profile *dst, const struct profile *src)
{
	uint32_t *remap, first = (uint32_t)dst->nstats;
	size_t i;
	int err = 0;

	for (i = 0; i < src->nstats; i++)
		if (profile_add_stat(dst, &src->stats[i]) < 0)
			return -PROF_ENOMEM;
	remap = malloc((src->nobjects ? src->nobjects : 1) * sizeof(*remap));
	if (!remap)
		return -PROF_ENOMEM;
	err = profile_map_objects(dst, src, remap);
	for (i = 0; i < src->ncounts && !err; i++) {
		struct prof_count c = src->counts[i];

		c.obj = remap[c.obj];
		c.stat += first;
		if (profile_add_count(dst, &c) < 0) {
			err = -PROF_ENOMEM;
			goto out;
		}
	}
	if (dst->ncounts > 1)
		profile_sort_counts(dst);
out:
	free(remap);
	return err;
}

int profile_drop_stats(struct profile *p, const unsigned char *drop)
{
	uint32_t *smap = malloc((p->nstats + 1) * sizeof(*smap));
	uint32_t *tmap = malloc((p->ntask_counts + 1) * sizeof(*tmap));
	size_t i, k;

	if (!smap || !tmap) {
		free(smap);
		free(tmap);
		return -PROF_ENOMEM;
	}
	for (i = k = 0; i < p->nstats; i++) {
		smap[i] = drop[i] ? UINT32_MAX : (uint32_t)k;
		if (drop[i]) {
			free(p->stats[i].name);
			free(p->stats[i].requested);
			continue;
		}
		p->stats[k++] = p->stats[i];
	}
	p->nstats = k;
	/* The same order within (object, statistic, offset): still sorted. */
	for (i = k = 0; i < p->ncounts; i++)
		if (smap[p->counts[i].stat] != UINT32_MAX) {
			p->counts[k] = p->counts[i];
			p->counts[k++].stat = smap[p->counts[i].stat];
		}
	p->ncounts = k;
	for (i = k = 0; i < p->nstack_counts; i++)
		if (smap[p->stack_counts[i].stat] != UINT32_MAX) {
			p->stack_counts[k] = p->stack_counts[i];
			p->stack_counts[k++].stat =
				smap[p->stack_counts[i].stat];
		}
	p->nstack_counts = k;
	for (i = k = 0; i < p->ntask_counts; i++) {
		tmap[i] = smap[p->task_counts[i].stat] == UINT32_MAX ?
			  UINT32_MAX : (uint32_t)k;
		if (tmap[i] == UINT32_MAX)
			continue;
		p->task_counts[k] = p->task_counts[i];
		p->task_counts[k++].stat = smap[p->task_counts[i].stat];
	}
	p->ntask_counts = k;
	for (i = k = 0; i < p->nevents; i++)
		if (tmap[p->events[i].tcount] != UINT32_MAX) {
			p->events[k] = p->events[i];
			p->events[k++].tcount = tmap[p->events[i].tcount];
		}
	p->nevents = k;
	free(smap);
	free(tmap);
	return 0;
}
