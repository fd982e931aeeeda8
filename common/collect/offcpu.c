/* SPDX-License-Identifier: MIT */
/*
 * Off-CPU time: where switch records become off-CPU intervals.
 *
 * The engine reports each thread's switches out and in (the kernel's
 * PERF_RECORD_SWITCH records: time, and whether the thread was still
 * runnable, i.e. preempted) and, where the user may sample the kernel,
 * a sample taken as the thread switched out: the kernel's call chain,
 * the user registers at the thread's last kernel entry and its stack
 * copy, and from sched_switch the state it slept in (S, D).  A thread's
 * interval runs from its switch out to its next switch in; it is charged
 * then, once, to every off-CPU statistic (offcpu, wall), with the
 * interval's length in ns as its weight, to the place the thread waited
 * (its user PC, or the first kernel routine outside the scheduler for a
 * kernel thread or a kernel-mode statistic), its stack, and its state.
 * Nothing per switch is kept but the interval's event in the time
 * stream.
 *
 * Pairing is robust to what rings do: a switch in seen before its
 * switch out (another CPU's ring drained first) closes that switch out
 * when it comes; a switch out while off CPU means the switch in was lost
 * (the earlier interval is dropped, not stretched); the first switch in
 * of a thread whose switch out came before collection starts nothing,
 * unless the engine said where the thread slept (an attached process);
 * a thread's exit ends it (CPU-wide events see a final switch out after
 * the exit, which opens nothing).
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "common/stats/stats.h"
#include "common/unwind/unwind.h"
#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "collect_int.h"

enum { TH_UNKNOWN, TH_ON, TH_OFF, TH_GONE };

/* The place a switch out charges: taken from its sample. */
struct waitsite {
	uint64_t time;		/* of the sample; 0: none */
	uint32_t user_obj, kernel_obj;	/* NO_OBJ: none */
	uint64_t user_off, kernel_off;
	/* The collector's stack + 1 (0 none) of a user row (user frames
	 * from the PC) and of a kernel row (kernel frames from the wait,
	 * then the user's): a stack's leaf is its row's address. */
	uint32_t user_stack, kernel_stack;
	uint32_t cpu;
	char letter;		/* sched_switch's prev_state, 0 unknown */
};

struct othread {
	uint32_t tid;
	uint32_t pid;
	uint8_t st;
	uint8_t preempt;
	uint32_t cpu;		/* where it switched out */
	uint64_t t_out;
	uint64_t last_in;	/* a switch in seen while on CPU, 0 none */
	struct waitsite w;
};

struct collect_offcpu {
	unsigned char *kind;	/* per statistic: COLLECT_OFFCPU, _WALL, 0 */
	struct othread *th;	/* every thread seen */
	size_t nth, alloc_th;
	struct hashmap index;	/* of th, by tid */
	uint32_t key;		/* the tid same_tid() looks for */
	struct collect_range *ranges;	/* the scheduler's routines */
	size_t nranges;
	uint32_t obj_nostack;	/* "[off-cpu]": intervals without a sample */
};

static struct collect_offcpu *oc_get(struct collector *c)
{
	struct collect_offcpu *o = c->offcpu;

	if (o)
		return o;
	o = calloc(1, sizeof(*o));
	if (!o || !(o->kind = calloc(c->nstats ? c->nstats : 1, 1))) {
		free(o);
		c->oom = 1;
		return NULL;
	}
	o->obj_nostack = collect_add_object(c, PROF_OBJ_ANON, NO_PROC, false,
					    PROF_OBJ_OFFCPU_PATH, NULL, 0, NULL,
					    0, 0, 0);
	c->offcpu = o;
	return o;
}

void collect_offcpu_free(struct collect_offcpu *o)
{
	if (!o)
		return;
	free(o->kind);
	free(o->th);
	hashmap_release(&o->index);
	free(o->ranges);
	free(o);
}

void collector_set_offcpu(struct collector *c, uint32_t stat,
			  enum collect_offcpu_kind kind)
{
	struct collect_offcpu *o = oc_get(c);

	if (o && stat < c->nstats)
		o->kind[stat] = (unsigned char)kind;
}

static int cmp_range(const void *a, const void *b)
{
	const struct collect_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int collector_set_wait_ranges(struct collector *c,
			      const struct collect_range *r, size_t n)
{
	struct collect_offcpu *o = oc_get(c);

	if (!o)
		return -PROF_ENOMEM;
	free(o->ranges);
	o->ranges = malloc((n ? n : 1) * sizeof(*r));
	if (!o->ranges)
		return -PROF_ENOMEM;
	memcpy(o->ranges, r, n * sizeof(*r));
	qsort(o->ranges, n, sizeof(*r), cmp_range);
	o->nranges = n;
	return 0;
}

static int in_sched(const struct collect_offcpu *o, uint64_t ip)
{
	size_t lo = 0, hi = o->nranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ip < o->ranges[mid].start)
			hi = mid;
		else if (ip >= o->ranges[mid].end)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

static int same_tid(const void *ctx, size_t entry)
{
	const struct collect_offcpu *o = ctx;

	return o->th[entry].tid == o->key;
}

/* Thread tid of pid, added when new (a reused tid starts afresh); NULL
 * (c->oom set) out of memory. */
static struct othread *th_get(struct collector *c, struct collect_offcpu *o,
			      uint32_t pid, uint32_t tid)
{
	uint64_t h = hash_mix64(tid);
	size_t i;

	o->key = tid;
	i = hashmap_find(&o->index, h, same_tid, o);
	if (i != SIZE_MAX) {
		if (o->th[i].pid != pid) {
			memset(&o->th[i], 0, sizeof(o->th[i]));
			o->th[i].tid = tid;
			o->th[i].pid = pid;
		}
		return &o->th[i];
	}
	if (ALLOC_GROW(o->th, o->nth + 1, o->alloc_th) ||
	    hashmap_add(&o->index, h, o->nth)) {
		c->oom = 1;
		return NULL;
	}
	memset(&o->th[o->nth], 0, sizeof(o->th[o->nth]));
	o->th[o->nth].tid = tid;
	o->th[o->nth].pid = pid;
	return &o->th[o->nth++];
}

static uint32_t split_for(const struct collector *c, uint32_t pid,
			  uint32_t cpu)
{
	switch (c->split) {
	case COLLECT_SPLIT_PID: return pid;
	case COLLECT_SPLIT_CPU: return cpu;
	default: return 0;
	}
}

static enum prof_state state_of(const struct othread *t)
{
	if (t->preempt)
		return PROF_STATE_PREEMPTED;
	if (t->w.time && t->w.letter == 'D')
		return PROF_STATE_IO;
	return PROF_STATE_BLOCKED;
}

/* Whether statistic s's rows are where the program waited in user mode
 * (else the kernel's wait: asked with :k, kprofile's default). */
static int user_row(const struct collector *c, uint32_t s)
{
	return stat_user_rows(c->row_modes[s]);
}

/* Charge t's interval [from, to) to every off-CPU statistic. */
static void charge(struct collector *c, struct collect_offcpu *o,
		   struct othread *t, uint64_t from, uint64_t to)
{
	const struct waitsite *w = &t->w;
	uint32_t s, split = split_for(c, t->pid, t->cpu);
	/* The sample of this switch out: taken just before it (a stale
	 * one, whose switch out was lost, is not). */
	int have = w->time && w->time <= from + 1000000 &&
		   w->time + 1000000 >= from;
	/* The thread's name now, at its switch in: it could not change
	 * while it was off CPU, and a rename before its switch out (an
	 * exec) may have come in a later drain than the sample taken at
	 * the switch out (another CPU's ring), never later than this. */
	uint32_t task = collect_task_of(c, t->pid, t->tid, from);

	if (to <= from)
		return;
	for (s = 0; s < c->nstats; s++) {
		struct charge k = {
			.stat = s, .split = split, .task = task,
			.cpu = t->cpu, .state = state_of(t),
			.weight = to - from, .time = from,
			.obj = o->obj_nostack, .offset = 0,
		};

		if (!o->kind[s])
			continue;
		if (have) {
			int user = user_row(c, s) && w->user_obj != NO_OBJ;

			if (user || w->kernel_obj != NO_OBJ) {
				k.obj = user ? w->user_obj : w->kernel_obj;
				k.offset = user ? w->user_off : w->kernel_off;
				k.stack = user ? w->user_stack :
					  w->kernel_stack;
			}
			if (c->stacks)
				collect_stacks_count(c, k.stack, s, split,
						     k.weight);
		}
		c->samples[s]++;
		collect_aggregate(c, &k);
	}
}

/* Where the kernel part of s's chain leaves the scheduler: the index of
 * its first frame outside it, or 0 when it has none (or no ranges). */
static uint64_t wait_frame(const struct collect_offcpu *o,
			   const struct collect_sample *s)
{
	uint64_t i;

	if (!o->nranges || s->nchain < 2 ||
	    s->chain[0] != (uint64_t)PERF_CONTEXT_KERNEL)
		return 0;
	for (i = 1; i < s->nchain; i++) {
		uint64_t ip = s->chain[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX)
			return 0;
		/* A return address points after the call. */
		if (!in_sched(o, i == 1 ? ip : ip - 1))
			return i == 1 ? 0 : i;
	}
	return 0;
}

/* Chain buffer: the kernel context marker and the frames kept. */
#define MAX_CHAIN 512

void collector_switch_sample(struct collector *c,
			     const struct collect_sample *s, char letter)
{
	struct collect_offcpu *o = oc_get(c);
	struct othread *t;
	struct waitsite *w;
	struct unw_state us;
	uint64_t k, user_ip = 0;
	uint32_t st;
	int want_user = 0, want_kernel = 0;

	if (!o || s->tid == 0 || !(t = th_get(c, o, s->pid, s->tid)))
		return;
	w = &t->w;
	memset(w, 0, sizeof(*w));
	w->time = s->time ? s->time : 1;
	w->letter = letter;
	w->cpu = s->cpu;
	w->user_obj = w->kernel_obj = NO_OBJ;
	k = wait_frame(o, s);
	if (s->cpumode == PERF_RECORD_MISC_KERNEL) {
		w->kernel_obj = c->obj_kernel;
		w->kernel_off = k ? s->chain[k] - 1 : s->ip;
	}
	if (s->uregs && !unw_init(&us, s->uregs, s->uregs_mask, NULL, 0)) {
		uint64_t ip = us.r[UNW_REG_IP];
		const struct mapping *m = collect_find_mapping(c, s->pid, ip,
							       s->time);

		user_ip = ip;
		if (m) {
			w->user_obj = m->obj;
			w->user_off = c->objects[m->obj].kind ==
				      PROF_OBJ_ANON ? ip :
				      ip - m->start + m->pgoff;
		} else {
			w->user_obj = c->obj_unknown;
			w->user_off = ip;
		}
	}
	if (!c->stacks)
		return;
	for (st = 0; st < c->nstats; st++)
		if (o->kind[st]) {
			if (user_row(c, st) && w->user_obj != NO_OBJ)
				want_user = 1;
			else
				want_kernel = 1;
		}
	if (want_user) {
		struct collect_sample us2 = *s;

		collect_user_part(&us2, user_ip);
		w->user_stack = collect_stacks_walk(c, &us2);
		/* Python: the row is the innermost function (the stack's
		 * leaf, as collector_sample() charges it), not the
		 * interpreter's code the PC was in. */
		if (s->npy && w->user_stack)
			collect_stacks_leaf(c, w->user_stack - 1, &w->user_obj,
					    &w->user_off);
	}
	if (want_kernel) {
		struct collect_sample ks = *s;
		uint64_t buf[MAX_CHAIN], n = 0, i;

		/* From the wait on: the scheduler's frames left out, the
		 * first one kept as the return address it is (minus one,
		 * the row's address). */
		if (k && s->nchain - k + 1 <= MAX_CHAIN) {
			buf[n++] = (uint64_t)PERF_CONTEXT_KERNEL;
			buf[n++] = s->chain[k] - 1;
			for (i = k + 1; i < s->nchain; i++)
				buf[n++] = s->chain[i];
			ks.chain = buf;
			ks.nchain = n;
			ks.ip = s->chain[k] - 1;
		}
		w->kernel_stack = collect_stacks_walk(c, &ks);
	}
}

void collector_switch(struct collector *c, uint32_t pid, uint32_t tid,
		      uint32_t cpu, uint64_t time, bool out, bool preempt)
{
	struct collect_offcpu *o = oc_get(c);
	struct othread *t;

	/* The idle task switches on every CPU and never waits. */
	if (!o || tid == 0 || tid == NO_PROC ||
	    !(t = th_get(c, o, pid, tid)))
		return;
	if (t->st == TH_GONE)
		return;
	if (out) {
		/* Off CPU already: its switch in was lost, and the
		 * earlier interval is dropped, not stretched. */
		t->preempt = preempt;
		t->cpu = cpu;
		if (t->last_in && t->last_in > time) {
			/* Its switch in came first (another ring). */
			charge(c, o, t, time, t->last_in);
			t->last_in = 0;
			t->w.time = 0;
			t->st = TH_ON;
			return;
		}
		t->st = TH_OFF;
		t->t_out = time;
		t->last_in = 0;
		return;
	}
	if (t->st == TH_OFF) {
		charge(c, o, t, t->t_out, time);
		t->w.time = 0;
	} else {
		t->last_in = time;
	}
	t->st = TH_ON;
}

void collector_switch_asleep(struct collector *c, uint32_t pid, uint32_t tid,
			     uint64_t time, char letter, uint64_t user_pc)
{
	struct collect_offcpu *o = oc_get(c);
	struct othread *t;
	const struct mapping *m;

	if (!o || !(t = th_get(c, o, pid, tid)) || t->st != TH_UNKNOWN)
		return;
	t->st = TH_OFF;
	t->t_out = time;
	t->preempt = letter == 'R';
	memset(&t->w, 0, sizeof(t->w));
	t->w.user_obj = t->w.kernel_obj = NO_OBJ;
	t->w.letter = letter;
	if (!user_pc)
		return;
	t->w.time = time;
	m = collect_find_mapping(c, pid, user_pc, time);
	t->w.user_obj = m ? m->obj : c->obj_unknown;
	t->w.user_off = !m ? user_pc :
			c->objects[m->obj].kind == PROF_OBJ_ANON ? user_pc :
			user_pc - m->start + m->pgoff;
}

void collector_switch_exit(struct collector *c, uint32_t pid, uint32_t tid,
			   uint64_t time)
{
	struct collect_offcpu *o = c->offcpu;
	struct othread *t;

	if (!o || tid == 0 || !(t = th_get(c, o, pid, tid)))
		return;
	if (t->st == TH_OFF)
		charge(c, o, t, t->t_out, time);
	t->st = TH_GONE;
}

void collector_switch_end(struct collector *c, uint64_t time)
{
	struct collect_offcpu *o = c->offcpu;
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->nth; i++) {
		struct othread *t = &o->th[i];

		if (t->st != TH_OFF)
			continue;
		charge(c, o, t, t->t_out, time);
		t->st = TH_ON;
	}
}

void collect_offcpu_lost(struct collector *c, uint64_t n)
{
	size_t s;

	for (s = 0; c->offcpu && s < c->nstats; s++)
		if (c->offcpu->kind[s])
			c->lost[s] += n;
}

int collect_offcpu_entry(const struct collector *c,
			 const struct collect_sample *s, uint64_t *ip)
{
	struct unw_state us;

	if (!c->offcpu || s->stat >= c->nstats ||
	    c->offcpu->kind[s->stat] != COLLECT_WALL || !s->uregs ||
	    unw_init(&us, s->uregs, s->uregs_mask, NULL, 0))
		return 0;
	*ip = us.r[UNW_REG_IP];
	return 1;
}
