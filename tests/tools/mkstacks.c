/* SPDX-License-Identifier: MIT */
/*
 * mkstacks - write a profile with call stacks known by construction, and
 * print the stacks of any profile, for tests of the file format
 * (docs/profile-format.md, sections 7-9) before any collector makes them.
 *
 *   mkstacks write FILE [fp|dwarf|auto]
 *                         a profile of two objects and two statistics
 *                         with frames, stacks and stack counts (below),
 *                         taken with that call-graph mode (dwarf)
 *   mkstacks flat FILE    the same profile without stacks
 *   mkstacks timed FILE [flat]
 *                         the write profile (dwarf; flat: without
 *                         stacks) with two tasks and a time stream
 *                         (sections 10, 11 and 15), below
 *   mkstacks print FILE   read FILE; print its call-graph metadata,
 *                         frames, stacks and stack counts, and its
 *                         events if it has any
 *
 * The stack counts are added out of order: the file must have them
 * sorted.  Exit status 0, or 1 with a message (the reader's, one line).
 *
 * The timed profile's run lasts 10 ms.  cpu-clock samples every 1 ms at
 * 0.5, 1.5, ..., 9.5 ms: prog+0x1010 from 0.5 to 6.5 ms (6.5 with
 * stack 2, the others stack 0), libc+0x2200 at 7.5, 8.5, 9.5 (stack 1);
 * task-clock at 1, 2, 3, 4 ms in prog+0x1010 (stack 0) and 8, 9 ms in
 * libc+0x2200 (stack 1); and one off-CPU interval of task-clock
 * (blocked) in libc+0x2300 from 4.5 to 7.5 ms (3 ms, no stack).  Task
 * 100/100 "prog" (process 100) on CPU 0 takes everything before 5 ms,
 * task 200/200 "worker" (process 200) on CPU 1 everything after, the
 * interval included.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/util/error.h"
#include "common/profile/profile.h"

static const char *const call_graphs[] = { "none", "fp", "dwarf", "auto" };

static int build(struct profile *p, int cg)
{
	static const struct prof_object objs[] = {
		{ .path = "/nonexistent/prog", .kind = PROF_OBJ_FILE,
		  .start = 0x400000, .end = 0x401000, .pgoff = 0x1000 },
		{ .path = "/nonexistent/libc.so.6", .kind = PROF_OBJ_FILE,
		  .start = 0x7f0000000000, .end = 0x7f0000100000 },
	};
	static const struct prof_stat stats[] = {
		{ .name = "cpu-clock", .type = 1, .config = 0, .modes = 1,
		  .period = 1000000, .samples = 10 },
		{ .name = "task-clock", .type = 1, .config = 1, .modes = 1,
		  .period = 1000000, .samples = 6 },
	};
	static const struct prof_count counts[] = {
		{ .obj = 0, .stat = 0, .offset = 0x1010, .samples = 7,
		  .weight = 7000000 },
		{ .obj = 0, .stat = 1, .offset = 0x1010, .samples = 4,
		  .weight = 4000000 },
		{ .obj = 1, .stat = 0, .offset = 0x2200, .samples = 3,
		  .weight = 3000000 },
		{ .obj = 1, .stat = 1, .offset = 0x2200, .samples = 2,
		  .weight = 2000000 },
	};
	/* leaf 0x1010 in prog, leaf 0x2200 in libc; callers 0x1100 (the
	 * call in the middle) and 0x1200 (main's call) */
	static const struct prof_frame frames[] = {
		{ .obj = 0, .offset = 0x1010 }, { .obj = 0, .offset = 0x1100 },
		{ .obj = 1, .offset = 0x2200 }, { .obj = 0, .offset = 0x1200 },
	};
	static const uint32_t s0[] = { 0, 1, 3 }, s1[] = { 2, 1, 3 },
			      s2[] = { 0 };
	static const struct prof_stack_count sc[] = {
		{ .stack = 1, .stat = 1, .samples = 2, .weight = 2000000 },
		{ .stack = 2, .stat = 0, .samples = 1, .weight = 1000000 },
		{ .stack = 0, .stat = 0, .samples = 6, .weight = 6000000 },
		{ .stack = 0, .stat = 1, .samples = 4, .weight = 4000000 },
		{ .stack = 1, .stat = 0, .samples = 3, .weight = 3000000 },
	};
	size_t i;

	p->tool = strdup("uprofile");
	if (!p->tool || profile_set_argv(p, 1, (char *const[]){ "prog" }))
		return -1;
	p->exit_status = 0;
	p->duration_ns = 10000000;
	p->call_graph = (uint32_t)cg;
	p->stack_dump = cg == PROF_CG_FP ? 0 : 8192;
	for (i = 0; i < sizeof(objs) / sizeof(*objs); i++)
		if (profile_add_object(p, &objs[i]) < 0)
			return -1;
	for (i = 0; i < sizeof(stats) / sizeof(*stats); i++)
		if (profile_add_stat(p, &stats[i]) < 0)
			return -1;
	for (i = 0; i < sizeof(counts) / sizeof(*counts); i++)
		if (profile_add_count(p, &counts[i]) < 0)
			return -1;
	if (cg == PROF_CG_NONE)
		return 0;
	for (i = 0; i < sizeof(frames) / sizeof(*frames); i++)
		if (profile_add_frame(p, &frames[i]) < 0)
			return -1;
	if (profile_add_stack(p, s0, 3, PROF_STACK_COMPLETE) < 0 ||
	    profile_add_stack(p, s1, 3, PROF_STACK_COMPLETE) < 0 ||
	    profile_add_stack(p, s2, 1, PROF_STACK_TRUNC_NO_CFI) < 0)
		return -1;
	for (i = 0; i < sizeof(sc) / sizeof(*sc); i++)
		if (profile_add_stack_count(p, &sc[i]) < 0)
			return -1;
	return 0;
}

/* The time stream of the timed profile (above), on build()'s dwarf
 * profile. */
static int add_time(struct profile *p)
{
	/* time ns, task, count index in build()'s order (4: the interval's),
	 * stack + 1 */
	static const struct { uint64_t t; uint32_t task, count, stack; } ev[] = {
		{ 500000, 0, 0, 1 }, { 1000000, 0, 1, 1 }, { 1500000, 0, 0, 1 },
		{ 2000000, 0, 1, 1 }, { 2500000, 0, 0, 1 }, { 3000000, 0, 1, 1 },
		{ 3500000, 0, 0, 1 }, { 4000000, 0, 1, 1 }, { 4500000, 0, 0, 1 },
		{ 4500000, 1, 4, 0 }, { 5500000, 1, 0, 1 }, { 6500000, 1, 0, 3 },
		{ 7500000, 1, 2, 2 }, { 8000000, 1, 3, 2 }, { 8500000, 1, 2, 2 },
		{ 9000000, 1, 3, 2 }, { 9500000, 1, 2, 2 },
	};
	static const struct prof_count interval = {
		.obj = 1, .stat = 1, .offset = 0x2300, .samples = 1,
		.weight = 3000000,
	};
	int tc[5][2];
	size_t i;

	if (profile_add_count(p, &interval) < 0 ||
	    profile_add_task(p, 100, 100, "prog") < 0 ||
	    profile_add_task(p, 200, 200, "worker") < 0)
		return -1;
	p->stats[1].samples++;
	/* One task count per (count, task) that has events. */
	memset(tc, 0xff, sizeof(tc));
	for (i = 0; i < sizeof(ev) / sizeof(*ev); i++) {
		const struct prof_count *c = &p->counts[ev[i].count];
		struct prof_task_count k = {
			.task = ev[i].task, .cpu = ev[i].task, .obj = c->obj,
			.stat = c->stat, .offset = c->offset,
			.state = ev[i].count == 4 ? PROF_STATE_BLOCKED :
				 PROF_STATE_RUNNING,
		};
		int *at = &tc[ev[i].count][ev[i].task];

		if (*at < 0 && (*at = profile_add_task_count(p, &k)) < 0)
			return -1;
	}
	for (i = 0; i < sizeof(ev) / sizeof(*ev); i++) {
		struct prof_task_count *k =
			&p->task_counts[tc[ev[i].count][ev[i].task]];
		struct prof_event e = {
			.time = ev[i].t, .tcount = (uint32_t)(k - p->task_counts),
			.stack = p->nstacks ? ev[i].stack : 0,
			.weight = ev[i].count == 4 ? 3000000 : 1000000,
		};

		k->samples++;
		k->weight += e.weight;
		if (profile_add_event(p, &e) < 0)
			return -1;
	}
	p->timeline = PROF_TIMELINE_KEPT;
	return 0;
}

static void print(const struct profile *p)
{
	size_t i, j;

	printf("call_graph %s\n", p->call_graph < 4 ?
	       call_graphs[p->call_graph] : "?");
	printf("stack_dump %" PRIu32 "\n", p->stack_dump);
	for (i = 0; i < p->nframes; i++)
		printf("frame %zu: %s+0x%" PRIx64 "\n", i,
		       p->objects[p->frames[i].obj].path, p->frames[i].offset);
	for (i = 0; i < p->nstacks; i++) {
		const struct prof_stack *st = &p->stacks[i];

		printf("stack %zu:", i);
		for (j = 0; j < st->nframes; j++)
			printf(" %" PRIu32, p->stack_frames[st->first + j]);
		printf(" (%s)\n", profile_stack_end_name(st->end));
	}
	for (i = 0; i < p->nstack_counts; i++) {
		const struct prof_stack_count *c = &p->stack_counts[i];

		printf("count %s stack %" PRIu32 ": %" PRIu64 " samples, "
		       "weight %" PRIu64 "\n", p->stats[c->stat].name,
		       c->stack, c->samples, c->weight);
	}
	for (i = 0; i < p->nevents; i++) {
		const struct prof_event *e = &p->events[i];
		const struct prof_task_count *k = &p->task_counts[e->tcount];

		printf("event %" PRIu64 " ns: tid %" PRIu32 " cpu %" PRIu32
		       " %s %s %s+0x%" PRIx64 " weight %" PRIu64, e->time,
		       p->tasks[k->task].tid, k->cpu,
		       profile_state_name(k->state), p->stats[k->stat].name,
		       p->objects[k->obj].path, k->offset, e->weight);
		if (e->stack)
			printf(" stack %" PRIu32, e->stack - 1);
		putchar('\n');
	}
}

int main(int argc, char **argv)
{
	struct profile *p = NULL;
	int cg = PROF_CG_DWARF, err;

	if (argc == 4 && !strcmp(argv[1], "write")) {
		for (cg = 1; cg < 4; cg++)
			if (!strcmp(argv[3], call_graphs[cg]))
				break;
	} else if (argc == 4 && !strcmp(argv[1], "timed")) {
		cg = strcmp(argv[3], "flat") ? 4 : PROF_CG_NONE;
	} else if (argc != 3 || (strcmp(argv[1], "write") &&
				 strcmp(argv[1], "flat") &&
				 strcmp(argv[1], "timed") &&
				 strcmp(argv[1], "print"))) {
		cg = 4;
	}
	if (cg == 4) {
		fprintf(stderr, "usage: mkstacks write FILE [fp|dwarf|auto]\n"
				"       mkstacks timed FILE [flat]\n"
				"       mkstacks flat|timed|print FILE\n");
		return 1;
	}
	if (strcmp(argv[1], "print")) {
		p = profile_new();
		if (!p || build(p, strcmp(argv[1], "flat") ? cg : PROF_CG_NONE) ||
		    (!strcmp(argv[1], "timed") && add_time(p))) {
			fprintf(stderr, "mkstacks: out of memory\n");
			profile_free(p);
			return 1;
		}
		err = profile_write(p, argv[2]);
	} else {
		err = profile_read(argv[2], &p);
		if (!err)
			print(p);
	}
	profile_free(p);
	if (err) {
		fprintf(stderr, "mkstacks: %s\n", prof_error(err));
		return 1;
	}
	return 0;
}
