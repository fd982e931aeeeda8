/* SPDX-License-Identifier: MIT */
/*
 * mkevents - write a profile whose time stream is known by construction,
 * for tests of -timeline: samples at given times, and off-CPU intervals
 * (task counts in a state other than running), which no collector here
 * makes yet.
 *
 *   mkevents FILE DURATION_US EVENT...
 *
 * EVENT is COMM,PID,TID,CPU,STATE,OFFSET,TIME_US,WEIGHT_US: a sample (STATE
 * running: WEIGHT_US its period, in microseconds) or an interval
 * (blocked, blocked-io, preempted: [TIME_US, TIME_US + WEIGHT_US)) of
 * thread TID of process PID named COMM on CPU, at OFFSET (hexadecimal
 * with 0x) in the one object /nonexistent/prog, so a report names each
 * offset "prog+0xOFFSET".  Events are given in time order.  The one
 * statistic is "cpu-clock", its weights in nanoseconds.  The counts, the
 * tasks and the task counts are the events' sums.  The profile is read
 * back: exit status 0 when it has the time stream, else 1 with a message.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "common/profile/profile.h"

static int state_of(const char *s)
{
	uint32_t i;

	for (i = 0; i < PROF_NSTATES; i++)
		if (!strcmp(s, profile_state_name(i)))
			return (int)i;
	return -1;
}

static int task_of(struct profile *p, const char *comm, uint32_t pid,
		   uint32_t tid)
{
	size_t i;

	for (i = 0; i < p->ntasks; i++)
		if (p->tasks[i].pid == pid && p->tasks[i].tid == tid &&
		    !strcmp(p->tasks[i].comm, comm))
			return (int)i;
	return profile_add_task(p, pid, tid, comm);
}

/* The task count of (task, state, cpu, offset), one more event of w. */
static int charge(struct profile *p, uint32_t task, uint32_t state,
		  uint32_t cpu, uint64_t off, uint64_t w)
{
	struct prof_task_count tc = { .task = task, .state = state,
				      .cpu = cpu, .offset = off };
	struct prof_count c = { .offset = off };
	size_t i;
	int at = -1;

	for (i = 0; i < p->ncounts; i++)
		if (p->counts[i].offset == off)
			break;
	if (i == p->ncounts && profile_add_count(p, &c) < 0)
		return -1;
	p->counts[i].samples++;
	p->counts[i].weight += w;
	for (i = 0; i < p->ntask_counts; i++) {
		const struct prof_task_count *t = &p->task_counts[i];

		if (t->task == task && t->state == state && t->cpu == cpu &&
		    t->offset == off)
			at = (int)i;
	}
	if (at < 0 && (at = profile_add_task_count(p, &tc)) < 0)
		return -1;
	p->task_counts[at].samples++;
	p->task_counts[at].weight += w;
	p->stats[0].samples++;
	return at;
}

int main(int argc, char **argv)
{
	static const struct prof_object obj = {
		.path = "/nonexistent/prog", .kind = PROF_OBJ_FILE,
		.start = 0x400000, .end = 0x500000,
	};
	static const struct prof_stat st = {
		.name = "cpu-clock", .requested = "cpu-clock", .type = 1,
		.config = 0, .modes = 1, .freq = 1000,
	};
	struct profile *p = profile_new(), *back = NULL;
	int i, err;

	if (argc < 3) {
		fprintf(stderr, "usage: mkevents FILE DURATION_US EVENT...\n");
		return 1;
	}
	if (!p || profile_add_object(p, &obj) < 0 ||
	    profile_add_stat(p, &st) < 0)
		return 1;
	p->tool = strdup("uprofile");
	p->duration_ns = strtoull(argv[2], NULL, 10) * 1000;
	p->exit_status = 0;
	p->timeline = PROF_TIMELINE_KEPT;
	for (i = 3; i < argc; i++) {
		char comm[17], state[16];
		unsigned pid, tid, cpu;
		unsigned long long off, t, w;
		struct prof_event e = { 0 };
		int task, s, tc;

		if (sscanf(argv[i], "%16[^,],%u,%u,%u,%15[^,],%llx,%llu,%llu",
			   comm, &pid, &tid, &cpu, state, &off, &t, &w) != 8 ||
		    (s = state_of(state)) < 0) {
			fprintf(stderr, "mkevents: bad event '%s'\n", argv[i]);
			return 1;
		}
		task = task_of(p, comm, pid, tid);
		if (task < 0)
			return 1;
		tc = charge(p, (uint32_t)task, (uint32_t)s, cpu, off,
			    w * 1000);
		if (tc < 0)
			return 1;
		e.time = t * 1000;
		e.weight = w * 1000;
		e.tcount = (uint32_t)tc;
		if (profile_add_event(p, &e) < 0)
			return 1;
	}
	profile_sort_counts(p);
	err = profile_write(p, argv[1]);
	if (!err)
		err = profile_read(argv[1], &back);
	if (err) {
		fprintf(stderr, "mkevents: %s\n", prof_error(err));
		return 1;
	}
	if (back->timeline != PROF_TIMELINE_KEPT) {
		fprintf(stderr, "mkevents: '%s' has no time stream: %s\n",
			argv[1], profile_timeline_missing(back));
		return 1;
	}
	profile_free(back);
	profile_free(p);
	return 0;
}
