/* SPDX-License-Identifier: MIT */
/*
 * The perf engine: the only code that calls perf_event_open(2).
 *
 * A session opens one sampling event per (statistic, CPU[, task]), shares
 * one ring buffer per CPU between them, and drains the buffers into a
 * collector, delivering the records of one drain round in time order.
 * Side-band records (MMAP2, COMM, FORK, EXIT) come from one extra dummy
 * event per buffer that is never disabled, so the collector sees each
 * once and keeps following processes while sampling is off (-t).
 *
 * Counting events (perf_event_spec.counting) have no sample period and no
 * buffer: they are read once, at the end (perf_session_totals).  On tasks
 * they are opened per task on any CPU (cpu -1) with inherit, so the
 * kernel's time enabled/running measures multiplexing only; a per-CPU task
 * event's time enabled also runs while the task is on another CPU.
 *
 * Groups: specs with the same non-zero group number are opened as one
 * perf group per (CPU, task), led by the first of them, so the kernel
 * schedules them together (a ratio's inputs count over the same time) and
 * they are read together (PERF_FORMAT_GROUP).  A group with more hardware
 * events than the PMU has counters is never scheduled: keep groups small.
 *
 * Cascade (--start-after A:N, the originals' cascaded counters): the
 * target's trigger event counts A with sample_period N; its first
 * overflow raises trigger->signo at the caller (fcntl F_SETSIG), who then
 * calls perf_session_cascade() to enable the specs marked cascaded and
 * stop the trigger.  The kernel counts N per inherited task (each child
 * counts its own A).
 *
 * Functions return 0 or a negative PROF_E* code with a one-line detail
 * (prof_error).  perf_session_free(NULL) is a no-op.
 */
#ifndef COMMON_PERF_H
#define COMMON_PERF_H

#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "profileme.h"

struct collector;

/*
 * An instruction-sampling (profile-me) statistic: samples of the family's
 * events are decoded (profileme.h) and charge the statistic stat with
 * weight value x sample period (1 x period for an event such as retire,
 * cycles x period for cycles), so ratios between statistics hold whatever
 * the period of each event.  Specs with the same pmu are planned together
 * (pm_plan): IBS and SPE open one event for all of them, PEBS one per
 * precise event; the first spec of a family gives the period, frequency
 * and call chains, and the modes of all are sampled.  The pmu is the
 * caller's and must outlive the session.
 */
struct perf_pm_spec {
	const struct pm_pmu *pmu;	/* NULL: an ordinary event */
	enum pm_stat stat;
};

/* Call chains the kernel walks for a sample (perf_event_spec.callchain). */
enum perf_chain {
	PERF_CHAIN_NONE = 0,
	PERF_CHAIN_KERNEL = 1,	/* kernel frames only */
	PERF_CHAIN_ALL = 2,	/* kernel and user (frame pointers) */
};

/* Off-CPU statistics (perf_event_spec.offcpu): charged per switch by
 * the collector (collector_switch()), from one switch event per buffer
 * (perf_target.sw); wall time also samples its type and config on CPU. */
enum perf_offcpu {
	PERF_OFFCPU_NONE = 0,
	PERF_OFFCPU_TIME = 1,	/* time switched out */
	PERF_OFFCPU_WALL = 2,	/* on-CPU samples and time switched out */
};

/*
 * The switch event of the off-CPU statistics: it carries the switch
 * records (attr.context_switch: each thread's switches out and in, at
 * any perf_event_paranoid) and, with stacks, samples every switch out:
 * the kernel's call chain, the user registers (and stack copy), and,
 * from sched:sched_switch (its id and format read from tracefs by
 * perf_sched_switch_find()), the state the thread sleeps in.
 */
struct perf_switch {
	int stacks;		/* sample switch outs: needs kernel sampling */
	int kernel_chain;	/* with the kernel's call chain: a
				 * statistic's rows are the kernel's wait */
	uint32_t stack_user;	/* bytes of user stack per switch sample
				 * when the statistic copies any; 0: the
				 * statistic's */
	uint64_t tp_id;		/* sched:sched_switch, 0: context-switches */
	uint32_t state_off, state_size;	/* prev_state in its raw data */
	uint64_t s_bits, d_bits;	/* prev_state bits of S and D */
};

/* sched:sched_switch's id and prev_state's place and letters, read from
 * tracefs (/sys/kernel/tracing, or under debugfs).  0, or -PROF_ENOENT
 * with a detail saying why it cannot be used. */
int perf_sched_switch_find(struct perf_switch *sw);

struct perf_event_spec {
	uint32_t type;		/* PERF_TYPE_* */
	uint64_t config;
	unsigned modes;		/* STAT_MODE_* */
	uint64_t period;	/* events per sample, or 0 to use freq */
	uint64_t freq;		/* samples per second */
	int callchain;		/* PERF_CHAIN_*: call chains to record */
	uint32_t stack_user;	/* bytes of user stack (and the user
				 * registers) per sample, 0 none */
	struct perf_pm_spec pm;	/* type and config come from pm_plan */
	int counting;		/* count only: no samples, read at the end */
	unsigned group;		/* 0 alone; same number: one group */
	int cascaded;		/* off until the trigger fires */
	int offcpu;		/* enum perf_offcpu */
	int regs_user;		/* the user registers, without a stack
				 * copy (wall: where a thread sampled in
				 * the kernel entered it) */
};

/* The event whose N-th occurrence starts the cascaded specs. */
struct perf_trigger {
	uint32_t type;
	uint64_t config;
	unsigned modes;
	uint64_t count;		/* N: the sample period */
	int signo;		/* raised at the caller on overflow */
};

enum perf_target_kind {
	PERF_TARGET_TASKS,	/* given tasks and their descendants */
	PERF_TARGET_CPUS,	/* everything on the given CPUs */
};

struct perf_target {
	enum perf_target_kind kind;
	const pid_t *tids;	/* TASKS: tasks to follow (inherit) */
	size_t ntids;
	const int *cpus;	/* CPUs to open on; NULL: all online */
	size_t ncpus;
	int enable_on_exec;	/* TASKS: counting starts at the task's exec */
	int triggered;		/* sampling waits for perf_session_enable() */
	int track;		/* follow mmap/comm/fork/exit (user symbols) */
	int track_tasks;	/* without track: follow comm/fork/exit only
				 * (the names of tasks, for -by) */
	size_t ring_pages;	/* data pages per buffer (power of 2), 0: 64 */
	const struct perf_trigger *trigger;	/* --start-after, or NULL */
	struct perf_switch sw;	/* with an off-CPU statistic */
	int python;		/* samples of CPython get Python frames
				 * (pysample.h): with call stacks;
				 * PERF_PYTHON_EAGER: the program is a
				 * python, drained every ms from its start
				 * (else from the first CPython found;
				 * with the BPF program, perfbpf.h, until
				 * its CPython is found) */
	int python_read;	/* read Python frames from the process only:
				 * no BPF program copies them at the
				 * sample (perfbpf.h) */
};
#define PERF_PYTHON_EAGER 2

/* Per-statistic totals read from the counters. */
struct perf_totals {
	uint64_t value, time_enabled, time_running;
};

struct perf_session;

/* 0 if (type, config) can be sampled here in modes, else -errno. */
int perf_probe(uint32_t type, uint64_t config, unsigned modes, void *unused);

/*
 * 0 if a software dummy event can be opened in modes on task pid (0: the
 * caller, -1: every task) and cpu (-1: any), else -errno: whether the
 * kernel lets this process profile that target at all (perf_event_paranoid,
 * capabilities, ptrace access to the task, a seccomp filter).
 */
int perf_probe_target(pid_t pid, int cpu, unsigned modes);

/*
 * Print the perf_event_attr of every event perf_session_open() would open
 * for these specs and target, one field per line (golden tests).  A
 * profile-me event adds its config1, config2, precise_ip and what it
 * decodes.  Returns 0, or a negative code when the specs cannot be
 * planned (a statistic the family does not record, a period it refuses).
 */
int perf_describe(FILE *f, const struct perf_event_spec *specs,
		  size_t nspecs, const struct perf_target *t);

/* Online CPUs from sysfs.  *cpus is malloc'd. */
int perf_online_cpus(int **cpus, size_t *n);

int perf_session_open(struct perf_session **out,
		      const struct perf_event_spec *specs, size_t nspecs,
		      const struct perf_target *target,
		      struct collector *collector);
/* Start or stop sampling (the tracking events keep running). */
int perf_session_enable(struct perf_session *s);
int perf_session_disable(struct perf_session *s);

/*
 * Wait up to timeout_ms (-1: forever) for ring-buffer data or for one of
 * the caller's extra descriptors, then drain what is there.  extra[i]
 * .revents is filled.  Returns 0, or a negative code on poll failure
 * other than EINTR (EINTR returns 0 with no revents).
 */
int perf_session_poll(struct perf_session *s, int timeout_ms,
		      struct pollfd *extra, size_t nextra);
/* Drain every buffer now. */
void perf_session_drain(struct perf_session *s);
/*
 * The trigger fired: enable the cascaded events, stop the trigger.
 * Returns 1 the first time, 0 when already done, or a negative code.
 */
int perf_session_cascade(struct perf_session *s);
/* Totals of statistic i over all CPUs and tasks (group reads included). */
void perf_session_totals(struct perf_session *s, size_t i,
			 struct perf_totals *t);
/* Profile-me samples dropped so far: no valid instruction address (IBS
 * RipInvalid) or a malformed record. */
uint64_t perf_session_pm_dropped(const struct perf_session *s);
void perf_session_free(struct perf_session *s);
/* The Python frames' bookkeeping (-v), NULL without them. */
struct py_samples;
const struct py_samples *perf_session_python(const struct perf_session *s);
/* Why Python frames are not copied at the sample by a BPF program
 * (perfbpf.h), one line; NULL when they are, or when no Python frames are
 * read.  *partial: why not on some event or CPU when they are, or NULL. */
const char *perf_session_pybpf(const struct perf_session *s,
			       const char **partial);
/* Deep stacks: how many samples' stack copies the BPF program extended
 * (perfbpf.h), and of how many processes whose stacks outgrew the
 * kernel's copy (*nprocs); *why: why the program is not there, or
 * NULL. */
uint64_t perf_session_deep(const struct perf_session *s, size_t *nprocs,
			   const char **why);

#endif
