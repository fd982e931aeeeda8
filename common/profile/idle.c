// SPDX-License-Identifier: MIT
/*
 * -exclude-idle: a kernel profile less the samples of the idle task.
 *
 * What a CPU with nothing to run executes belongs to the idle task, pid 0
 * ("swapper"): the halt instruction and whatever the hypervisor makes of
 * it (pvm_safe_halt_hc, default_idle, intel_idle).  Its samples say how
 * idle the machine was, not where work went, and on a quiet machine they
 * are most of a system-wide profile.  The task counts (sections 10-11)
 * tell which samples of each count the idle task took.
 */
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "idle.h"
#include "profile.h"

/* Whether task count t is the idle task's. */
static int is_idle(const struct profile *p, const struct prof_task_count *t)
{
	return t->task < p->ntasks && p->tasks[t->task].pid == 0;
}

uint64_t profile_idle_samples(const struct profile *p, size_t stat)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->ntask_counts; i++)
		if (p->task_counts[i].stat == stat &&
		    is_idle(p, &p->task_counts[i]))
			n += p->task_counts[i].samples;
	return n;
}

int profile_drop_idle(struct profile *p, uint64_t *dropped)
{
	uint32_t *tmap;
	size_t i, j, k;

	*dropped = 0;
	if (!p->ntasks)
		return prof_fail(PROF_EINVAL, "-exclude-idle: the profile has "
				 "no per-task data (taken before tasks were "
				 "recorded): the idle task's samples cannot "
				 "be told apart");
	if (p->nstack_counts)
		return prof_fail(PROF_EINVAL, "-exclude-idle: the profile has "
				 "call stacks, which are not split by task");
	/* The events follow their task counts (UINT32_MAX: the idle
	 * task's, gone). */
	tmap = malloc((p->ntask_counts + 1) * sizeof(*tmap));
	if (!tmap)
		return -PROF_ENOMEM;
	profile_sort_counts(p);
	for (i = j = 0; i < p->ntask_counts; i++) {
		const struct prof_task_count *t = &p->task_counts[i];
		struct prof_count key = {
			.obj = t->obj, .stat = t->stat, .offset = t->offset,
		}, *c;

		tmap[i] = UINT32_MAX;
		if (!is_idle(p, t)) {
			tmap[i] = (uint32_t)j;
			p->task_counts[j++] = *t;
			continue;
		}
		c = bsearch(&key, p->counts, p->ncounts, sizeof(*c),
			    profile_count_cmp);
		if (c) {
			c->samples -= t->samples < c->samples ?
				      t->samples : c->samples;
			c->weight -= t->weight < c->weight ?
				     t->weight : c->weight;
		}
		if (t->stat < p->nstats) {
			struct prof_stat *st = &p->stats[t->stat];

			st->samples -= t->samples < st->samples ?
				       t->samples : st->samples;
			if (t->stat == 0)
				*dropped += t->samples;
		}
	}
	p->ntask_counts = j;
	for (i = k = 0; i < p->nevents; i++)
		if (tmap[p->events[i].tcount] != UINT32_MAX) {
			p->events[k] = p->events[i];
			p->events[k++].tcount = tmap[p->events[i].tcount];
		}
	p->nevents = k;
	free(tmap);
	p->idle_dropped += *dropped;
	p->idle_excluded = 1;
	/* Counts the idle task had alone are gone. */
	for (i = k = 0; i < p->ncounts; i++)
		if (p->counts[i].samples || p->counts[i].weight)
			p->counts[k++] = p->counts[i];
	p->ncounts = k;
	return 0;
}
