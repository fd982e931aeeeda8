/* SPDX-License-Identifier: MIT */
/*
 * What every sample is charged to (collect_int.h): the threads and the
 * tasks they run as (a thread under one name), and the aggregation table
 * keyed by (object, offset, statistic, split, task, CPU, state), with
 * the time stream's events naming its entries.  Nothing per sample is
 * kept but, when time is kept, its event.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/hash.h"
#include "collect_int.h"

/* ---- threads and their names ------------------------------------------ */

struct thread *collect_thread_find(struct collector *c, uint32_t tid)
{
	size_t mask = c->cap_threads - 1, i = hash_mix64(tid) & mask;

	if (tid == NO_PROC)	/* the empty slots' mark: no thread */
		return NULL;
	for (;; i = (i + 1) & mask) {
		if (c->threads[i].tid == tid)
			return &c->threads[i];
		if (c->threads[i].tid == NO_PROC)
			return NULL;
	}
}

static int threads_grow(struct collector *c)
{
	size_t ncap = c->cap_threads * 2, i, j;
	struct thread *n = malloc(ncap * sizeof(*n));

	if (!n)
		return -1;
	for (i = 0; i < ncap; i++)
		n[i].tid = NO_PROC;
	for (i = 0; i < c->cap_threads; i++) {
		if (c->threads[i].tid == NO_PROC)
			continue;
		j = hash_mix64(c->threads[i].tid) & (ncap - 1);
		while (n[j].tid != NO_PROC)
			j = (j + 1) & (ncap - 1);
		n[j] = c->threads[i];
	}
	free(c->threads);
	c->threads = n;
	c->cap_threads = ncap;
	return 0;
}

/* The thread tid of pid, made when new (name unknown, but the idle
 * tasks': tid 0 on every CPU, which no record names). */
struct thread *collect_thread_get(struct collector *c, uint32_t pid,
				  uint32_t tid)
{
	struct thread *t;
	size_t mask, i;

	if (tid == NO_PROC)
		return NULL;
	t = collect_thread_find(c, tid);
	if (t) {
		if (t->pid != pid) {	/* the tid was reused */
			t->pid = pid;
			t->comm[0] = '\0';
			t->task = NO_TASK;
			t->recorded = false;
		}
		return t;
	}
	if ((c->nthreads + 1) * 4 > c->cap_threads * 3 && threads_grow(c)) {
		c->oom = 1;
		return NULL;
	}
	mask = c->cap_threads - 1;
	i = hash_mix64(tid) & mask;
	while (c->threads[i].tid != NO_PROC)
		i = (i + 1) & mask;
	t = &c->threads[i];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = pid;
	t->task = NO_TASK;
	if (tid == 0)
		strcpy(t->comm, "swapper");
	c->nthreads++;
	return t;
}

void collect_thread_name(struct thread *t, const char *comm)
{
	if (!strncmp(t->comm, comm, COMM_LEN - 1) &&
	    strlen(comm) < COMM_LEN)
		return;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->task = NO_TASK;
}

/* The task a sample of pid/tid taken at time is charged to: its thread
 * under the name it has now. */
uint32_t collect_task_of(struct collector *c, uint32_t pid, uint32_t tid,
			 uint64_t time)
{
	struct thread *t = collect_thread_get(c, pid, tid);
	uint32_t *cached = t ? &t->task : &c->task_nobody;
	struct task *k;

	if (!t && (tid != NO_PROC || c->oom))
		return NO_TASK;
	if (*cached != NO_TASK) {
		k = &c->tasks[*cached];
		if (time < k->first)
			k->first = time;
		return *cached;
	}
	if (ALLOC_GROW(c->tasks, c->ntasks + 1, c->alloc_tasks)) {
		c->oom = 1;
		return NO_TASK;
	}
	k = &c->tasks[c->ntasks];
	k->pid = pid;
	k->tid = tid;
	memset(k->comm, 0, sizeof(k->comm));
	if (t)
		memcpy(k->comm, t->comm, sizeof(k->comm));
	k->first = time;
	*cached = (uint32_t)c->ntasks++;
	return *cached;
}

static size_t agg_hash(uint32_t obj, uint64_t offset, uint32_t stat,
		       uint32_t split, uint32_t task, uint32_t cpu,
		       uint32_t state)
{
	return (size_t)hash_mix64(offset ^ ((uint64_t)obj << 40) ^
			     ((uint64_t)stat << 56) ^ ((uint64_t)split << 20) ^
			     hash_mix64(((uint64_t)task << 32) |
					(cpu ^ (uint64_t)state << 24)));
}

static int agg_grow(struct collector *c)
{
	size_t ncap = c->cap_agg * 2, i;
	struct agg_entry *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -1;
	for (i = 0; i < c->cap_agg; i++) {
		struct agg_entry *e = &c->agg[i];
		size_t j;

		if (!e->used)
			continue;
		j = agg_hash(e->obj, e->offset, e->stat, e->split, e->task,
			     e->cpu, e->state) & (ncap - 1);
		while (n[j].used)
			j = (j + 1) & (ncap - 1);
		n[j] = *e;
	}
	free(c->agg);
	c->agg = n;
	c->cap_agg = ncap;
	return 0;
}

/* The sample or interval in the time stream. */
static void keep_event(struct collector *c, const struct charge *k,
		       uint32_t id)
{
	if (!c->keep_time || c->exact[k->stat])
		return;
	if (ALLOC_GROW(c->events, c->nevents + 1, c->alloc_events)) {
		c->oom = 1;
		return;
	}
	c->events[c->nevents++] = (struct cevent){
		.time = k->time > c->time_base ? k->time - c->time_base : 0,
		.weight = k->weight, .agg = id, .stack = k->stack,
	};
}

void collect_aggregate(struct collector *c, const struct charge *k)
{
	size_t mask, i;
	struct agg_entry *e;
	uint64_t n = k->stat < c->nstats && c->exact[k->stat] ? k->weight : 1;

	if ((c->nagg + 1) * 10 > c->cap_agg * 7 && agg_grow(c)) {
		c->oom = 1;
		return;
	}
	mask = c->cap_agg - 1;
	i = agg_hash(k->obj, k->offset, k->stat, k->split, k->task, k->cpu,
		     k->state) & mask;
	for (;; i = (i + 1) & mask) {
		e = &c->agg[i];
		if (!e->used)
			break;
		if (e->offset == k->offset && e->obj == k->obj &&
		    e->stat == k->stat && e->split == k->split &&
		    e->task == k->task && e->cpu == k->cpu &&
		    e->state == k->state) {
			e->samples += n;
			e->weight += k->weight;
			keep_event(c, k, e->id);
			return;
		}
	}
	*e = (struct agg_entry){
		.used = 1, .offset = k->offset, .obj = k->obj,
		.stat = k->stat, .split = k->split, .task = k->task,
		.cpu = k->cpu, .state = k->state, .id = (uint32_t)c->nagg,
		.samples = n, .weight = k->weight,
	};
	c->nagg++;
	keep_event(c, k, e->id);
}

