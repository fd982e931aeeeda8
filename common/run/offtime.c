/* SPDX-License-Identifier: MIT */
/*
 * The off-CPU statistics of a run (offcpu, wall): what this user may
 * record of them, decided before the program runs; the scheduler's
 * routines, which a switch out is charged past; the threads of an
 * attached process that sleep as collection starts; and the end of
 * collection, which closes the intervals still open.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "run_int.h"
#include "common/collect/collect.h"
#include "common/engine/perf.h"
#include "common/engine/proc.h"
#include "common/stats/stats.h"
#include "common/util/error.h"
#include "common/util/sysctl.h"
#include "symbolize/symbolize.h"

/* What a user lacking the privilege is told: how to get it. */
#define HOW_TO_GET_STACKS \
	"run as root, give the profiler CAP_PERFMON, or set " \
	"kernel.perf_event_paranoid to 1 or lower"

/* The routines of the scheduler, which every switch out passes through:
 * the wait is the first frame outside them. */
static const char *const sched_routines[] = {
	"schedule", "__schedule", "schedule_*", "preempt_schedule*",
	"__cond_resched", "_cond_resched", "__traceiter_sched_switch",
	"perf_trace_sched_switch", "perf_tp_event*", "__perf_event_task*",
};

static int offcpu_stats(const struct run *r)
{
	size_t i;
	int n = 0;

	for (i = 0; i < r->nstats; i++)
		n += r->specs[i].offcpu != PERF_OFFCPU_NONE;
	return n;
}

/* An off-CPU statistic whose rows are the kernel's wait (not
 * stat_user_rows()), or kernel threads, which have no user registers
 * and are charged at their wait whatever the mode (kprofile's target):
 * the switch samples need the kernel's call chain. */
static int kernel_rows(const struct run *r)
{
	size_t i;

	if (r->cfg->tool->scope == RUN_SCOPE_SYSTEM)
		return 1;
	for (i = 0; i < r->nstats; i++)
		if (r->specs[i].offcpu != PERF_OFFCPU_NONE &&
		    !stat_user_rows(r->choice[i].modes))
			return 1;
	return 0;
}

/* A wall statistic whose rows are user code only: its timer must sample
 * the kernel too, or the time threads run there is missing. */
static int wall_user_only(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->nstats; i++)
		if (r->specs[i].offcpu == PERF_OFFCPU_WALL &&
		    !(r->specs[i].modes & STAT_MODE_KERNEL))
			return 1;
	return 0;
}

/*
 * Rings for a stack copy at every switch: 4 MiB hold 255 switches of 16
 * KiB, a millisecond of a program switching 200 000 times a second on
 * one CPU, less than a collector waiting for a CPU on a busy machine
 * gets; 16 MiB lost a fiftieth as many records there (bench/README.md,
 * "Off-CPU time").  The kernel pins the rings of every CPU opened:
 * halved while their total is over 128 MiB, never below any run's.
 */
#define SWITCH_RING_BYTES ((size_t)16 << 20)
#define SWITCH_RINGS_MAX_BYTES ((size_t)128 << 20)

static int size_rings(struct run *r)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 1, pages;
	int *cpus = NULL;
	int err;

	if (r->cfg->cpus != RUN_CPUS_ONE) {
		err = perf_online_cpus(&cpus, &n);
		free(cpus);
		if (err)
			return err;
	}
	pages = SWITCH_RING_BYTES / page;
	while (pages > r->target.ring_pages &&
	       pages * page * n > SWITCH_RINGS_MAX_BYTES)
		pages /= 2;
	if (pages > r->target.ring_pages)
		r->target.ring_pages = pages;
	return 0;
}

static int wait_ranges(struct run *r)
{
	struct collect_range *rg;
	int n, err;

	n = run_kernel_ranges(r, sched_routines, sizeof(sched_routines) /
			      sizeof(*sched_routines), &rg);
	if (n == -PROF_ENOMEM)
		return n;
	if (n <= 0)
		return 0;	/* rows then name the scheduler itself */
	err = collector_set_wait_ranges(r->col, rg, (size_t)n);
	free(rg);
	return err;
}

int run_setup_offcpu(struct run *r)
{
	struct run_config *c = r->cfg;
	struct perf_switch *sw = &r->target.sw;
	size_t i;
	int err;

	if (!offcpu_stats(r))
		return 0;
	/* A record at every switch, whatever -F says: rings of 4 MiB per
	 * CPU hold a burst of some 10,000 switches while the profiler is
	 * not scheduled (64 pages held a few hundred). */
	if (r->target.ring_pages < 1024)
		r->target.ring_pages = 1024;
	for (i = 0; i < r->nstats; i++)
		if (r->specs[i].offcpu)
			collector_set_offcpu(r->col, (uint32_t)i,
					     r->specs[i].offcpu ==
					     PERF_OFFCPU_WALL ? COLLECT_WALL :
					     COLLECT_OFFCPU);
	/* Where each switch out waited needs a sample in the kernel. */
	sw->stacks = c->dry_run ||
		     perf_probe(PERF_TYPE_SOFTWARE,
				PERF_COUNT_SW_CONTEXT_SWITCHES,
				STAT_MODE_KERNEL, NULL) == 0;
	if (!sw->stacks) {
		long paranoid = -9;

		sysctl_read_long("perf_event_paranoid", &paranoid);
		if (r->call_graph != PROF_CG_NONE)
			return prof_fail(PROF_EPERM, "-g with an off-CPU "
					 "statistic needs a sample at each "
					 "switch, in the kernel, which this "
					 "user may not take (perf_event_paranoid"
					 " is %ld): " HOW_TO_GET_STACKS,
					 paranoid);
		run_notice(c, "off-CPU time is recorded per thread only, "
			   "not where each thread waited%s (that needs "
			   "kernel samples, perf_event_paranoid is %ld): "
			   HOW_TO_GET_STACKS, wall_user_only(r) ? ", and "
			   "wall misses the time threads run in the kernel" :
			   "", paranoid);
		return 0;
	}
	sw->kernel_chain = kernel_rows(r);
	if (r->stack_dump && !c->stack_dump)
		sw->stack_user = RUN_SWITCH_STACK_DUMP;
	if (r->stack_dump) {
		err = size_rings(r);
		if (err)
			return err;
	}
	/* wall's timer samples the kernel too: a thread's time there is
	 * charged to the user code that entered it (its registers). */
	for (i = 0; i < r->nstats; i++)
		if (r->specs[i].offcpu == PERF_OFFCPU_WALL &&
		    !(r->specs[i].modes & STAT_MODE_KERNEL)) {
			r->specs[i].modes |= STAT_MODE_KERNEL;
			r->specs[i].regs_user = 1;
		}
	/* sched_switch also says S from D; its raw data is root's. */
	if (!c->dry_run && geteuid() == 0 && perf_sched_switch_find(sw))
		sw->tp_id = 0;
	if (!sw->tp_id && c->verbose)
		run_notice(c, "off-CPU: blocked time is not split into "
			   "asleep (S) and waiting for I/O (D): %s",
			   geteuid() ? "sched:sched_switch's data needs root"
				     : prof_error(-PROF_ENOENT));
	if (!r->sym) {
		r->sym = symbolizer_new(NULL);
		if (!r->sym)
			return prof_fail(PROF_ENOMEM, "out of memory");
	}
	err = wait_ranges(r);
	return err;
}

void run_offcpu_started(struct run *r)
{
	size_t i;

	if (!offcpu_stats(r) || !r->cfg->attach_pid)
		return;
	for (i = 0; i < r->ntids; i++) {
		char state;
		uint64_t pc;

		if (proc_thread_wait((pid_t)r->cfg->attach_pid, r->tids[i],
				     &state, &pc))
			continue;
		if (state == 'S' || state == 'D' || state == 'I')
			collector_switch_asleep(r->col,
						(uint32_t)r->cfg->attach_pid,
						(uint32_t)r->tids[i], r->t0,
						state == 'D' ? 'D' : 'S', pc);
	}
}

void run_offcpu_ended(struct run *r, uint64_t now)
{
	if (offcpu_stats(r))
		collector_switch_end(r->col, now);
}
