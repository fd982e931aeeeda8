/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/util/array.h"
#include "common/util/bytes.h"
#include "common/collect/collect.h"
#include "common/unwind/unwind.h"
#include "common/util/error.h"
#include "perf.h"
#include "proc.h"
#include "perfbpf.h"
#include "pysample.h"
#include "bpf/sample_bpf.h"
#include "common/stats/stats.h"

/* What every sample carries, in the kernel's order. */
#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
		     PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
		     PERF_SAMPLE_PERIOD)

struct ring {
	int fd;				/* owns the buffer */
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	size_t size;			/* data area, power of two */
	int hup;			/* the owning task exited: poll would
					 * return at once forever, so the ring
					 * is only drained on the timeout */
	uint64_t read_to;		/* records up to here are listed in
					 * this round: freed after delivery */
	uint64_t pyout_id;		/* its CPU's BPF program's output
					 * event (perfbpf.h), or 0 */
};

struct event_fd {
	int fd;
	uint64_t id;
	uint32_t stat;		/* NO_STAT, TRIGGER_STAT or a spec index */
	int pm;			/* index into perf_session.pm, or -1 */
	unsigned grouped:1;	/* read_format has GROUP and ID */
	unsigned member:1;	/* a group member: follows its leader */
	unsigned cascaded:1;	/* waits for the trigger */
	unsigned sw:1;		/* the off-CPU statistics' switch event */
	/* What its samples carry after PERIOD (its sample_type): events
	 * of one session differ (the switch event; wall's user registers;
	 * an off-CPU statistic's kernel chain). */
	unsigned chain:1;	/* PERF_SAMPLE_CALLCHAIN */
	unsigned raw:1;		/* PERF_SAMPLE_RAW */
	unsigned regs:1;	/* PERF_SAMPLE_REGS_USER */
	unsigned ustack:1;	/* PERF_SAMPLE_STACK_USER */
	unsigned pyout:1;	/* what the BPF program copies at the sample
				 * (perfbpf.h): its CPU's BPF output */
	unsigned pywake:1;	/* its output that wakes the drainer */
};

#define NO_STAT UINT32_MAX
/* Data pages of a ring when the target names none (perf_target). */
#define RING_PAGES 64
#define MAX_PM_EVENTS 16

/* An event's place in its group (perf_event_spec.group). */
enum ev_role { EV_ALONE, EV_LEADER, EV_MEMBER };

/* One profile-me event opened for some statistics (pm_plan). */
struct pm_open {
	struct pm_event ev;
	uint32_t stat_of[PM_NSTATS];	/* spec index, or NO_STAT */
	const struct perf_event_spec *first;	/* period, freq, chains */
	unsigned modes;			/* union over its specs */
	uint64_t sample_type;
};

/* What is opened per CPU and task, in order: the tracking dummy, the
 * ordinary specs, the profile-me events, then the start-after trigger. */
struct opener {
	const struct perf_event_spec *sp;	/* NULL: tracking or trigger */
	uint32_t stat;
	int pm;
	enum ev_role role;
	int sw;			/* the switch event (perf_switch) */
};

/* Room for the events plan_opens() lists. */
#define MAX_OPENERS(nspecs) ((nspecs) + 3 + MAX_PM_EVENTS)

/* A record of a ring, delivered in time order: in place, or copied to
 * the round's arena when it wraps around the ring's end. */
struct rec {
	uint64_t time;
	uint64_t seq;
	const uint8_t *in_ring;	/* the record in the ring, or NULL */
	size_t off;		/* else its copy in the round's arena */
};

struct perf_session {
	struct event_fd *fds;
	size_t nfds, alloc_fds;
	struct ring *rings;
	size_t nrings;
	size_t nspecs;
	uint64_t regs_mask;
	struct perf_switch sw;		/* the switch event's, if any */
	int cascade_fired;
	struct collector *col;

	uint8_t *arena;
	size_t arena_len, arena_alloc;
	struct rec *recs;
	size_t nrecs, alloc_recs;
	struct rec *merged;		/* order_round()'s other buffer */
	size_t alloc_merged;
	size_t *runs;			/* each ring's first record, then
					 * nrecs: nrings + 1 */
	uint64_t seq;

	struct pollfd *pfds;
	size_t alloc_pfds;

	struct pm_open pm[MAX_PM_EVENTS];
	size_t npm;
	uint64_t pm_dropped;
	struct py_samples *py;		/* target.python's, or NULL */
	int py_eager;			/* drain every ms from the start */
	struct perf_bpf *bpf;		/* the BPF program (perfbpf.h):
					 * Python frames and deep stacks
					 * copied at the sample; or NULL: */
	char bpf_why[160];		/* why not */
	char bpf_partial[160];	/* why not on some event or CPU */
	size_t bpf_events;		/* sampling events it rides on */
	int bpf_py;			/* it copies Python frames */
	/* Deep stacks: the processes the program copies more of
	 * (deep_pids, ndeep of them), each CPU's copy waiting for its
	 * sample, the samples whose copy was extended. */
	uint32_t *deep_pids;
	size_t ndeep, alloc_deep;
	struct stack_more *more;
	size_t nmore;
	uint8_t *deep_buf;
	size_t alloc_deep_buf;
	uint64_t deep_samples;
	uint64_t copy_full;		/* parse_tail(): the last sample's copy
					 * was full, of this size (else 0) */
};

/* The part of a thread's stack past its sample's copy, as the program
 * copied it (sample_bpf.h's STACK records): [start, end) in buf. */
struct stack_more {
	uint32_t pid, tid;	/* tid 0: none */
	uint64_t time;
	uint64_t start, end;
	uint8_t *buf;
	size_t alloc;
};

/* How much more of a deep stack the program copies: three times the
 * kernel's largest copy (SBPF_STACK_RECORDS records of
 * SBPF_STACK_PAGES pages). */
#define DEEP_MORE (3 * 65536u)
_Static_assert(DEEP_MORE ==
	       SBPF_STACK_RECORDS * SBPF_STACK_PAGES * SBPF_PAGE,
	       "the program copies what it is asked to");

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid,
				int cpu, int group_fd, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static void set_modes(struct perf_event_attr *a, unsigned modes)
{
	a->exclude_user = !(modes & STAT_MODE_USER);
	a->exclude_kernel = !(modes & STAT_MODE_KERNEL);
	a->exclude_hv = !(modes & STAT_MODE_HV);
}

/* A disabled sampling event of this process: its fd, or -errno. */
static int probe_fd(uint32_t type, uint64_t config, unsigned modes)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.sample_period = 100000;
	set_modes(&a, modes);
	fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

int perf_probe(uint32_t type, uint64_t config, unsigned modes, void *unused)
{
	int fd = probe_fd(type, config, modes);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int perf_probe_target(pid_t pid, int cpu, unsigned modes)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	set_modes(&a, modes);
	fd = sys_perf_event_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close((int)fd);
	return 0;
}

int perf_online_cpus(int **cpus, size_t *n)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	char line[4096], *p;
	int *v = NULL;
	size_t nv = 0, alloc = 0;

	*cpus = NULL;
	*n = 0;
	if (!f || !fgets(line, sizeof(line), f)) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		if (f)
			fclose(f);
		snprintf(line, sizeof(line), "0-%ld", c > 0 ? c - 1 : 0);
	} else {
		fclose(f);
	}
	for (p = line; *p && *p != '\n';) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo, c;

		if (end == p)
			break;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (c = lo; c <= hi; c++) {
			if (ALLOC_GROW(v, nv + 1, alloc)) {
				free(v);
				return prof_fail(PROF_ENOMEM, "out of memory");
			}
			v[nv++] = (int)c;
		}
		p = *end == ',' ? end + 1 : end;
	}
	*cpus = v;
	*n = nv;
	return 0;
}

static int open_error(int err, const struct perf_event_spec *spec, pid_t pid)
{
	const char *hint = "";

	if (err == EACCES || err == EPERM)
		hint = " (perf_event_paranoid or missing CAP_PERFMON)";
	else if (err == ESRCH)
		return prof_fail(PROF_ENOENT, "no process %d", (int)pid);
	else if (err == EMFILE)
		hint = " (too many open files: raise ulimit -n)";
	return prof_fail(err == EACCES || err == EPERM ? PROF_EPERM : PROF_EPERF,
			 "cannot open performance event (type %u, config %#llx): %s%s",
			 spec->type, (unsigned long long)spec->config,
			 strerror(err), hint);
}

/* Group numbers are taken modulo this (the front end uses 1). */
#define MAX_GROUPS 8
#define TRIGGER_STAT (UINT32_MAX - 1)

/*
 * The leader of spec k's group (the first spec with its group number), or
 * SIZE_MAX when k is not grouped or alone in its group.
 */
static size_t group_leader(const struct perf_event_spec *specs, size_t n,
			   size_t k)
{
	size_t i, first = SIZE_MAX, count = 0;

	/* Profile-me specs share one sampler event: never grouped. */
	if (!specs[k].group || specs[k].pm.pmu)
		return SIZE_MAX;
	for (i = 0; i < n; i++)
		if (specs[i].group == specs[k].group && !specs[i].pm.pmu) {
			if (first == SIZE_MAX)
				first = i;
			count++;
		}
	return count > 1 ? first : SIZE_MAX;
}

static enum ev_role role_of(const struct perf_event_spec *specs, size_t n,
			    size_t k)
{
	size_t l = group_leader(specs, n, k);

	return l == SIZE_MAX ? EV_ALONE : l == k ? EV_LEADER : EV_MEMBER;
}

/*
 * The attributes of one event.  sp NULL describes the tracking dummy: no
 * samples, only the side-band records, enabled from the start (or at
 * exec).  perf_describe() prints exactly these, so golden tests check what
 * would be opened on hardware this machine lacks (but for what the Python
 * frames' BPF program changes where it can be loaded: the sampling
 * events' wake-ups at the watermark, its output events: perfbpf.h).
 */
static void build_switch_attr(const struct perf_event_spec *sp,
			      const struct perf_target *t,
			      struct perf_event_attr *a);

/*
 * Without the BPF program that copies them at the sample (perfbpf.h), a
 * python's samples get their Python frames as they are drained, read
 * from the process then: the sooner the likelier they are the sample's.
 * Rather than at the buffer's watermark, the drainer wakes once a
 * buffer holds the samples of PY_WAKE_NS (the first of them is read that
 * late, the last at once), at least one; with a period, every
 * PY_WAKE_PERIOD samples.  perf_session_poll() wakes it too when a
 * buffer has held fewer for long (PY_WAKE_MS).
 */
#define PY_WAKE_NS 1000000ULL
#define PY_WAKE_MAX 16
#define PY_WAKE_PERIOD 2
#define PY_WAKE_MS 2

/*
 * Wake the drainer when a quarter of the ring is full, whichever event
 * owns it (the tracking event does, the others write into its ring):
 * bursts never fill it, and without stacks a wake-up (a poll and two
 * switches) comes once per thousand samples (at an eighth, the
 * collector took 10% more CPU at 10 kHz); a ring of stack copies (tens
 * of KiB a sample) holds a few tens of them at a quarter, where a fixed
 * size would wake at each.
 */
static void wake_at_watermark(const struct perf_target *t,
			      struct perf_event_attr *a)
{
	a->watermark = 1;
	a->wakeup_events = 0;
	a->wakeup_watermark = (uint32_t)((t->ring_pages ? t->ring_pages :
					  RING_PAGES) / 4 *
					 (size_t)sysconf(_SC_PAGESIZE));
}

static void wake_for_python(const struct perf_event_spec *sp,
			    struct perf_event_attr *a)
{
	uint64_t n = sp->period ? PY_WAKE_PERIOD :
		     1 + sp->freq * PY_WAKE_NS / 1000000000ULL;

	a->watermark = 0;
	a->wakeup_watermark = 0;
	a->wakeup_events = (uint32_t)(n < PY_WAKE_MAX ? n : PY_WAKE_MAX);
}

static void build_attr(const struct perf_event_spec *sp,
		       const struct pm_open *pm, enum ev_role role, int sw,
		       const struct perf_target *t, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_type = SAMPLE_TYPE;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
	a->inherit = t->kind == PERF_TARGET_TASKS;
	a->sample_id_all = 1;
	/* Times on the clock the run's start is read on (the time
	 * stream's base), the same on every CPU. */
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	wake_at_watermark(t, a);
	if (!sp) {
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_DUMMY;
		a->sample_period = 1;
		/* Without maps to follow, the names of tasks only. */
		a->mmap = !!t->track;
		a->mmap2 = !!t->track;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		/*
		 * No build_id: on the kernels seen here, an event asking
		 * for build-ids in MMAP2 leaves PERF_RECORD_MISC_MMAP_BUILD_ID
		 * set in the records every other event on the machine gets,
		 * over device/inode data, and perf then crashes reading its
		 * own perf.data.  Build-ids are read from the files instead.
		 */
		a->exclude_kernel = 1;
		a->disabled = t->enable_on_exec;
		a->enable_on_exec = t->enable_on_exec;
		return;
	}
	if (sw) {
		build_switch_attr(sp, t, a);
		return;
	}
	a->type = sp->type;
	a->config = sp->config;
	if (pm) {
		a->type = pm->ev.type;
		a->config = pm->ev.config;
		a->config1 = pm->ev.config1;
		a->config2 = pm->ev.config2;
		a->precise_ip = pm->ev.precise_ip & 3;
		a->sample_type |= pm->ev.sample_type;
	}
	if (sp->counting) {
		/* Read once at the end: no samples, no buffer. */
		a->sample_type = 0;
		a->sample_id_all = 0;
		a->use_clockid = 0;
		a->clockid = 0;
		a->watermark = 0;
		a->wakeup_watermark = 0;
	} else {
		if (sp->callchain) {
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
			/* An instruction-sampling event's records are
			 * walked field by field and carry no stack copy:
			 * its user frames come from the frame pointers. */
			a->exclude_callchain_user =
				sp->callchain != PERF_CHAIN_ALL &&
				!(pm && sp->stack_user);
		}
		if ((sp->stack_user || sp->regs_user) && !pm) {
			a->sample_type |= PERF_SAMPLE_REGS_USER;
			a->sample_regs_user = unw_perf_regs_mask();
		}
		if (sp->stack_user && !pm) {
			a->sample_type |= PERF_SAMPLE_STACK_USER;
			a->sample_stack_user = sp->stack_user;
		}
		if (sp->period) {
			a->sample_period = sp->period;
		} else {
			a->freq = 1;
			a->sample_freq = sp->freq;
		}
		if (t->python == PERF_PYTHON_EAGER && !pm)
			wake_for_python(sp, a);
	}
	/* A PMU that cannot filter modes samples them all; the collector
	 * keeps the asked ones (collector_set_modes). */
	if (!pm || pm->ev.hw_modes)
		set_modes(a, pm ? pm->modes : sp->modes);
	if (role != EV_ALONE)
		a->read_format |= PERF_FORMAT_ID | PERF_FORMAT_GROUP;
	if (role == EV_MEMBER) {
		/* A member counts whenever its leader does: the leader alone
		 * is switched on and off (as perf stat opens groups). */
		a->disabled = 0;
		a->enable_on_exec = 0;
		return;
	}
	a->disabled = 1;
	a->enable_on_exec = t->enable_on_exec && !t->triggered &&
			    !sp->cascaded;
}

/*
 * The switch event (perf_switch): switch records always; with stacks,
 * a sample at every switch out, in the kernel, with the user registers
 * (the place the thread waits) and what -g asked for.
 */
static void build_switch_attr(const struct perf_event_spec *sp,
			      const struct perf_target *t,
			      struct perf_event_attr *a)
{
	const struct perf_switch *sw = &t->sw;

	a->context_switch = 1;
	a->sample_period = 1;
	a->exclude_hv = 1;
	a->disabled = 1;
	a->enable_on_exec = t->enable_on_exec && !t->triggered &&
			    !sp->cascaded;
	if (!sw->stacks) {
		/* Switch records only: they come at any paranoia. */
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_DUMMY;
		a->exclude_kernel = 1;
		return;
	}
	a->type = sw->tp_id ? PERF_TYPE_TRACEPOINT : PERF_TYPE_SOFTWARE;
	a->config = sw->tp_id ? sw->tp_id : PERF_COUNT_SW_CONTEXT_SWITCHES;
	a->sample_type |= PERF_SAMPLE_REGS_USER;
	a->sample_regs_user = unw_perf_regs_mask();
	if (sw->tp_id)
		a->sample_type |= PERF_SAMPLE_RAW;
	/* The kernel's chain names the wait (do_nanosleep, pipe_read),
	 * which only kernel rows show; its walk costs the workload more
	 * than the rest of the sample (bench/README.md, "Off-CPU time").
	 * fp's user frames come from the chain too. */
	if (sw->kernel_chain || sp->callchain == PERF_CHAIN_ALL) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->exclude_callchain_kernel = !sw->kernel_chain;
		a->exclude_callchain_user = sp->callchain != PERF_CHAIN_ALL;
	}
	if (sp->stack_user) {
		a->sample_type |= PERF_SAMPLE_STACK_USER;
		a->sample_stack_user = sw->stack_user ? sw->stack_user :
				       sp->stack_user;
	}
}

/*
 * The --start-after trigger: samples A every N events, with no buffer;
 * each overflow raises a signal at the profiler (fcntl O_ASYNC), the
 * lowest-latency notice of an inherited event the kernel gives (it cannot
 * be mmapped on any CPU, and the kernel cannot enable another event
 * itself).
 */
static void build_trigger_attr(const struct perf_trigger *tr,
			       const struct perf_target *t,
			       struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = tr->type;
	a->config = tr->config;
	a->sample_period = tr->count;
	a->wakeup_events = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
	a->inherit = t->kind == PERF_TARGET_TASKS;
	set_modes(a, tr->modes);
	a->disabled = 1;
	a->enable_on_exec = t->enable_on_exec && !t->triggered;
}

/*
 * Plan the profile-me events of specs into pm[] (*npm of them) and list
 * every event to open into op[] (MAX_OPENERS(nspecs) room).
 */
static int plan_opens(const struct perf_event_spec *specs, size_t nspecs,
		      const struct perf_target *t, struct pm_open *pm,
		      size_t *npm, struct opener *op, size_t *nop)
{
	size_t i, j, n = 0;

	*npm = 0;
	if (t->track || t->track_tasks)
		op[n++] = (struct opener){ .sp = NULL, .stat = NO_STAT,
					   .pm = -1 };
	for (i = 0; i < nspecs; i++)
		if (!specs[i].pm.pmu && specs[i].offcpu != PERF_OFFCPU_TIME)
			op[n++] = (struct opener){
				.sp = &specs[i], .stat = (uint32_t)i, .pm = -1,
				.role = role_of(specs, nspecs, i) };
	/* One switch event serves every off-CPU statistic. */
	for (i = 0; i < nspecs; i++)
		if (specs[i].offcpu) {
			op[n++] = (struct opener){
				.sp = &specs[i], .stat = (uint32_t)i, .pm = -1,
				.role = EV_ALONE, .sw = 1 };
			break;
		}
	for (i = 0; i < nspecs; i++) {
		const struct pm_pmu *pmu = specs[i].pm.pmu;
		enum pm_stat stats[PM_NSTATS];
		uint32_t stat_of[PM_NSTATS];
		struct pm_event ev[MAX_PM_EVENTS];
		unsigned modes = 0;
		size_t ns = 0;
		int nev, k, done = 0;

		if (!pmu)
			continue;
		for (j = 0; j < i; j++)
			if (specs[j].pm.pmu &&
			    specs[j].pm.pmu->family == pmu->family)
				done = 1;
		if (done)
			continue;
		for (k = 0; k < PM_NSTATS; k++)
			stat_of[k] = NO_STAT;
		for (j = i; j < nspecs; j++) {
			const struct perf_pm_spec *p = &specs[j].pm;

			if (!p->pmu || p->pmu->family != pmu->family)
				continue;
			if ((unsigned)p->stat >= PM_NSTATS)
				return prof_fail(PROF_EINVAL, "profile-me "
						 "statistic %d out of range",
						 (int)p->stat);
			if (stat_of[p->stat] != NO_STAT)
				return prof_fail(PROF_EINVAL, "statistic '%s' "
						 "is given twice",
						 stat_pm_name(p->stat));
			stat_of[p->stat] = (uint32_t)j;
			stats[ns++] = p->stat;
			modes |= specs[j].modes;
		}
		if (specs[i].period) {
			int err = pm_check_period(pmu->family,
						  specs[i].period);

			if (err)
				return err;
		}
		nev = pm_plan(pmu, stats, ns, ev,
			      MAX_PM_EVENTS - *npm);
		if (nev < 0)
			return nev;
		for (k = 0; k < nev; k++) {
			struct pm_open *o = &pm[(*npm)++];
			uint32_t first = NO_STAT;
			int s2;

			o->ev = ev[k];
			o->first = &specs[i];
			o->modes = modes;
			for (s2 = 0; s2 < PM_NSTATS; s2++) {
				o->stat_of[s2] = o->ev.feeds[s2] ?
						 stat_of[s2] : NO_STAT;
				if (o->stat_of[s2] < first)
					first = o->stat_of[s2];
			}
			/* Totals of an event count for its first stat. */
			op[n++] = (struct opener){ .sp = &specs[i],
						   .stat = first,
						   .pm = (int)(o - pm) };
		}
	}
	if (t->trigger)
		op[n++] = (struct opener){ .sp = NULL, .stat = TRIGGER_STAT,
					   .pm = -1 };
	*nop = n;
	return 0;
}

static const char *target_text(const struct perf_target *t, int any_cpu)
{
	if (t->kind != PERF_TARGET_TASKS)
		return "CPUs";
	return any_cpu ? "tasks, any CPU" : "tasks, per CPU";
}

static void describe_attr(FILE *f, const struct perf_event_attr *a)
{
	fprintf(f, "  type %u\n  config %#llx\n", a->type,
		(unsigned long long)a->config);
	fprintf(f, "  sample_type %#llx\n  read_format %#llx\n",
		(unsigned long long)a->sample_type,
		(unsigned long long)a->read_format);
	fprintf(f, "  %s %llu\n", a->freq ? "sample_freq" : "sample_period",
		(unsigned long long)a->sample_period);
	fprintf(f, "  disabled %u inherit %u enable_on_exec %u\n",
		a->disabled, a->inherit, a->enable_on_exec);
	fprintf(f, "  exclude_user %u exclude_kernel %u exclude_hv %u"
		" exclude_callchain_user %u\n", a->exclude_user,
		a->exclude_kernel, a->exclude_hv, a->exclude_callchain_user);
	fprintf(f, "  mmap %u mmap2 %u comm %u comm_exec %u task %u "
		"build_id %u sample_id_all %u\n", a->mmap, a->mmap2,
		a->comm, a->comm_exec, a->task, a->build_id,
		a->sample_id_all);
	fprintf(f, "  watermark %u wakeup_watermark %u\n",
		a->watermark, a->wakeup_watermark);
	if (a->sample_type && !a->watermark && a->wakeup_events)
		fprintf(f, "  wakeup_events %u\n", a->wakeup_events);
	if (a->exclude_callchain_kernel)
		fprintf(f, "  exclude_callchain_kernel 1\n");
	if (a->context_switch)
		fprintf(f, "  context_switch 1\n");
	if (a->use_clockid)
		fprintf(f, "  use_clockid 1 clockid %d\n", a->clockid);
	if (a->sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))
		fprintf(f, "  sample_regs_user %#llx sample_stack_user %u\n",
			(unsigned long long)a->sample_regs_user,
			a->sample_stack_user);
}

int perf_describe(FILE *f, const struct perf_event_spec *specs,
		  size_t nspecs, const struct perf_target *t)
{
	struct pm_open *pm;
	struct opener *op;
	size_t k, j, nop, npm;
	int err;

	pm = calloc(MAX_PM_EVENTS, sizeof(*pm));
	op = calloc(MAX_OPENERS(nspecs), sizeof(*op));
	if (!pm || !op) {
		free(pm);
		free(op);
		return prof_fail(PROF_ENOMEM, "out of memory");
	}
	err = plan_opens(specs, nspecs, t, pm, &npm, op, &nop);
	for (k = 0; !err && k < nop; k++) {
		const struct opener *o = &op[k];
		const struct perf_event_spec *sp = o->sp;
		int tracking = !sp && o->stat != TRIGGER_STAT;
		const struct pm_open *po = o->pm >= 0 ? &pm[o->pm] : NULL;
		struct perf_event_attr a;

		if (o->stat == TRIGGER_STAT) {
			build_trigger_attr(t->trigger, t, &a);
			fprintf(f, "event %zu (start-after trigger)\n", k);
			fprintf(f, "  target %s\n", target_text(t, 1));
			fprintf(f, "  on overflow: signal to the profiler "
				"(O_ASYNC, F_SETSIG), wakeup_events %u\n",
				a.wakeup_events);
			describe_attr(f, &a);
			continue;
		}
		build_attr(sp, po, o->role, o->sw, t, &a);
		fprintf(f, "event %zu%s\n", k, tracking ? " (tracking)" :
			o->sw ? " (switches: off-CPU statistics)" : "");
		fprintf(f, "  target %s\n",
			target_text(t, sp && sp->counting));
		if (o->role == EV_LEADER) {
			size_t i, n = 0;

			for (i = 0; i < nspecs; i++)
				n += specs[i].group == sp->group &&
				     !specs[i].pm.pmu;
			fprintf(f, "  group_fd -1 (leader of a group of %zu)\n",
				n);
		} else if (o->role == EV_MEMBER) {
			size_t lead = group_leader(specs, nspecs, o->stat);

			for (j = 0; j < nop; j++)
				if (op[j].sp && op[j].stat == lead)
					break;
			fprintf(f, "  group_fd event %zu\n", j);
		}
		if (sp && sp->cascaded)
			fprintf(f, "  enabled by the start-after trigger\n");
		describe_attr(f, &a);
		if (po) {
			int s2;

			fprintf(f, "  config1 %#llx config2 %#llx "
				"precise_ip %u\n",
				(unsigned long long)a.config1,
				(unsigned long long)a.config2, a.precise_ip);
			fprintf(f, "  profile-me %s %s%s:",
				stat_pm_family_name(po->ev.family), po->ev.name,
				po->ev.aux ? " (AUX area)" : "");
			for (s2 = 0; s2 < PM_NSTATS; s2++)
				if (po->stat_of[s2] != NO_STAT)
					fprintf(f, " %s", stat_pm_name(s2));
			fprintf(f, "\n");
		}
	}
	free(pm);
	free(op);
	return err;
}

static int open_one(struct perf_session *s, const struct opener *op,
		    const struct perf_target *t, pid_t pid, int cpu,
		    int group_fd, int *fd_out)
{
	const struct perf_event_spec *sp = op->sp;
	const struct pm_open *pm = op->pm >= 0 ? &s->pm[op->pm] : NULL;
	struct perf_event_attr a;
	long fd;
	int bpf, err;

	if (pm && pm->ev.aux)
		return prof_fail(PROF_EUNAVAIL, "%s: collecting from the AUX "
				 "area is not implemented (its packets are "
				 "decoded, see docs/profileme.md)",
				 stat_pm_family_name(pm->ev.family));
	if (op->stat == TRIGGER_STAT)
		build_trigger_attr(t->trigger, t, &a);
	else
		build_attr(sp, pm, op->role, op->sw, t, &a);
	/* Python frames copied at the sample need no early drain. */
	if (s->bpf_py && sp && !pm && !op->sw && !sp->counting)
		wake_at_watermark(t, &a);
	bpf = s->bpf && sp && !pm && !sp->counting && !op->sw;
	fd = sys_perf_event_open(&a, pid, cpu, group_fd,
				 PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		struct perf_event_spec dummy = {
			.type = a.type, .config = a.config,
		};

		return open_error(errno, sp && !pm ? sp : &dummy, pid);
	}
	*fd_out = (int)fd;
	if (ALLOC_GROW(s->fds, s->nfds + 1, s->alloc_fds)) {
		close((int)fd);
		return prof_fail(PROF_ENOMEM, "out of memory");
	}
	s->fds[s->nfds].fd = (int)fd;
	s->fds[s->nfds].stat = op->stat;
	s->fds[s->nfds].pm = op->pm;
	s->fds[s->nfds].grouped = op->role != EV_ALONE;
	s->fds[s->nfds].member = op->role == EV_MEMBER;
	s->fds[s->nfds].cascaded = sp && sp->cascaded;
	s->fds[s->nfds].sw = op->sw != 0;
	s->fds[s->nfds].chain = !!(a.sample_type & PERF_SAMPLE_CALLCHAIN);
	s->fds[s->nfds].raw = !!(a.sample_type & PERF_SAMPLE_RAW);
	s->fds[s->nfds].regs = !!(a.sample_type & PERF_SAMPLE_REGS_USER);
	s->fds[s->nfds].ustack = !!(a.sample_type & PERF_SAMPLE_STACK_USER);
	s->fds[s->nfds].pyout = 0;
	s->fds[s->nfds].pywake = 0;
	if (ioctl((int)fd, PERF_EVENT_IOC_ID, &s->fds[s->nfds].id)) {
		close((int)fd);
		return prof_fail(PROF_EPERF, "cannot identify event: %s",
				 strerror(errno));
	}
	s->nfds++;
	/* The program rides on the sampling events (bpf_try() found
	 * that it can). */
	if (bpf && (err = perf_bpf_attach(s->bpf, (int)fd)))
		snprintf(s->bpf_partial, sizeof(s->bpf_partial), "%s",
			 prof_error(err));
	else if (bpf)
		s->bpf_events++;
	if (op->stat == TRIGGER_STAT &&
	    (fcntl((int)fd, F_SETOWN, getpid()) ||
	     fcntl((int)fd, F_SETSIG, t->trigger->signo) ||
	     fcntl((int)fd, F_SETFL, O_ASYNC)))
		return prof_fail(PROF_EPERF, "cannot arm the start-after "
				 "trigger: %s", strerror(errno));
	return 0;
}

static int map_ring(struct perf_session *s, struct ring *r, int fd,
		    size_t pages)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	void *m = mmap(NULL, (pages + 1) * pg, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);

	/* A large buffer (stack copies) may exceed what an unprivileged
	 * user may lock (perf_event_mlock_kb): take what is allowed, down
	 * to the default. */
	while (m == MAP_FAILED && errno == EPERM && pages > 64) {
		pages /= 2;
		m = mmap(NULL, (pages + 1) * pg, PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
	}
	if (m == MAP_FAILED)
		return prof_fail(errno == EPERM ? PROF_EPERM : PROF_EPERF,
				 "cannot map sample buffer: %s%s",
				 strerror(errno),
				 errno == EPERM ?
				 " (raise perf_event_mlock_kb)" : "");
	r->fd = fd;
	r->meta = m;
	r->data = (uint8_t *)m + pg;
	r->size = pages * pg;
	return 0;
}

static int cmp_fd_id(const void *a, const void *b)
{
	const struct event_fd *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Open, for one task (or -1) on one CPU (or -1), the events of op[] that
 * belong to one pass: the sampling pass (the tracking event and sampling
 * events, sharing the CPU's buffer *ring_fd, mapped on the first), or the
 * counting pass (counting events and the trigger, no buffer).  Group
 * members follow their leader.  Returns 1 when the task has gone before
 * its first event opened (a thread of an attached process may exit, or be
 * a zombie main thread: the others are followed), 0, or a negative code.
 */
static int open_task_events(struct perf_session *s, const struct opener *op,
			    size_t nop, const struct perf_target *t, pid_t pid,
			    int cpu, int counting_pass, int *ring_fd,
			    size_t pages)
{
	int lead[MAX_GROUPS], first = 1, err;
	size_t k;

	for (k = 0; k < MAX_GROUPS; k++)
		lead[k] = -1;
	for (k = 0; k < nop; k++) {
		const struct opener *o = &op[k];
		const struct perf_event_spec *sp = o->sp;
		int counting = (sp && sp->counting) || o->stat == TRIGGER_STAT;
		int fd = -1;

		if (counting != counting_pass)
			continue;
		err = open_one(s, o, t, pid, cpu, o->role == EV_MEMBER ?
			       lead[sp->group % MAX_GROUPS] : -1, &fd);
		if (err == -PROF_ENOENT && first &&
		    t->kind == PERF_TARGET_TASKS && t->ntids > 1)
			return 1;
		if (err)
			return err;
		first = 0;
		if (o->role == EV_LEADER)
			lead[sp->group % MAX_GROUPS] = fd;
		if (counting_pass)
			continue;
		if (*ring_fd < 0) {
			err = map_ring(s, &s->rings[s->nrings], fd, pages);
			if (err)
				return err;
			s->nrings++;
			*ring_fd = fd;
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *ring_fd)) {
			return prof_fail(PROF_EPERF, "cannot share sample "
					 "buffer: %s", strerror(errno));
		}
	}
	return 0;
}

/*
 * Python frames copied at the sample (perfbpf.h), where the kernel lets
 * us.  A failure leaves s->bpf NULL, its reason for -v: frames are
 * then read from the process as samples are drained.
 */
static void bpf_try(struct perf_session *s)
{
	int err = perf_bpf_open(&s->bpf), fd = -1;

	/* Attached to an event of our own, to see that it can be. */
	if (!err) {
		fd = probe_fd(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
			      STAT_MODE_USER);
		err = fd < 0 ? prof_fail(PROF_EUNAVAIL, "cannot open an "
					 "event to attach the BPF program to: "
					 "%s", strerror(-fd)) :
			       perf_bpf_attach(s->bpf, fd);
	}
	if (fd >= 0)
		close(fd);
	if (err) {
		snprintf(s->bpf_why, sizeof(s->bpf_why), "%s",
			 prof_error(err));
		perf_bpf_close(s->bpf);
		s->bpf = NULL;
	}
}

/* Whether a sampling event of specs copies user stacks. */
static int stack_copies(const struct perf_event_spec *specs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (specs[i].stack_user && !specs[i].counting)
			return 1;
	return 0;
}

/* List BPF output event fd (its CPU's copies, or its wake-ups)
 * with the session's events (closed with them): its id, or 0. */
static uint64_t add_bpf_fd(struct perf_session *s, int fd, int wake)
{
	struct event_fd *e;

	if (ALLOC_GROW(s->fds, s->nfds + 1, s->alloc_fds)) {
		close(fd);
		return 0;
	}
	e = &s->fds[s->nfds];
	memset(e, 0, sizeof(*e));
	e->fd = fd;
	e->stat = NO_STAT;
	e->pm = -1;
	e->raw = 1;
	e->pyout = !wake;
	e->pywake = !!wake;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &e->id)) {
		close(fd);
		return 0;
	}
	s->nfds++;
	return e->id;
}

/* cpu's outputs of Python frames, into ring r (ring_fd's). */
static void bpf_ring(struct perf_session *s, struct ring *r, int cpu,
		       int ring_fd)
{
	int fd, wake_fd, err;

	err = perf_bpf_output(s->bpf, cpu, ring_fd, SAMPLE_TYPE,
			    CLOCK_MONOTONIC, &fd, &wake_fd);
	if (err) {
		snprintf(s->bpf_partial, sizeof(s->bpf_partial), "%s",
			 prof_error(err));
		return;
	}
	r->pyout_id = add_bpf_fd(s, fd, 0);
	add_bpf_fd(s, wake_fd, 1);
}

int perf_session_open(struct perf_session **out,
		      const struct perf_event_spec *specs, size_t nspecs,
		      const struct perf_target *t, struct collector *col)
{
	struct perf_session *s;
	int *cpus = NULL;
	const int *cpu_list = t->cpus;
	size_t ncpus = t->ncpus, ci, ti, i, gone = 0;
	size_t nopen = 0;
	struct opener *op = NULL;
	size_t pages = t->ring_pages ? t->ring_pages : RING_PAGES;
	size_t ntasks = t->kind == PERF_TARGET_TASKS ? t->ntids : 1;
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return prof_fail(PROF_ENOMEM, "out of memory");
	s->col = col;
	s->py_eager = t->python == PERF_PYTHON_EAGER;
	if (t->python && !(s->py = py_samples_new())) {
		free(s);
		return prof_fail(PROF_ENOMEM, "out of memory");
	}
	s->nspecs = nspecs;
	op = calloc(MAX_OPENERS(nspecs), sizeof(*op));
	if (!op) {
		free(s);
		return prof_fail(PROF_ENOMEM, "out of memory");
	}
	err = plan_opens(specs, nspecs, t, s->pm, &s->npm, op, &nopen);
	if (err) {
		free(op);
		free(s);
		return err;
	}
	for (i = 0; i < s->npm; i++) {
		s->pm[i].sample_type = SAMPLE_TYPE | s->pm[i].ev.sample_type;
		if (s->pm[i].first->callchain)
			s->pm[i].sample_type |= PERF_SAMPLE_CALLCHAIN;
	}
	if (!cpu_list) {
		err = perf_online_cpus(&cpus, &ncpus);
		if (err) {
			free(op);
			free(s);
			return err;
		}
		cpu_list = cpus;
	}
	s->rings = calloc(ncpus ? ncpus : 1, sizeof(*s->rings));
	s->runs = calloc((ncpus ? ncpus : 1) + 1, sizeof(*s->runs));
	if (!s->rings || !s->runs) {
		err = prof_fail(PROF_ENOMEM, "out of memory");
		goto fail;
	}
	/* The BPF program (perfbpf.h), for Python frames and deep stacks. */
	if (s->py && t->python_read)
		snprintf(s->bpf_why, sizeof(s->bpf_why), "--python=read");
	if (t->kind == PERF_TARGET_TASKS &&
	    ((s->py && !t->python_read) || stack_copies(specs, nspecs))) {
		bpf_try(s);
		s->bpf_py = s->bpf && s->py && !t->python_read &&
			      !perf_bpf_python(s->bpf, 1);
		if (s->bpf_py)
			py_samples_use_bpf(s->py, s->bpf);
		else if (s->bpf && s->py && !t->python_read)
			snprintf(s->bpf_why, sizeof(s->bpf_why), "%s",
				 prof_error(-PROF_EUNAVAIL));
	}
	/*
	 * Inherited events cannot have per-task buffers, so every sampling
	 * event is opened per CPU, and the events of one CPU share its ring
	 * buffer.
	 */
	for (ci = 0; ci < ncpus; ci++) {
		int ring_fd = -1;

		for (ti = 0; ti < ntasks; ti++) {
			err = open_task_events(s, op, nopen, t,
					       t->kind == PERF_TARGET_TASKS ?
					       t->tids[ti] : -1, cpu_list[ci], 0,
					       &ring_fd, pages);
			if (err < 0)
				goto fail;
			gone += (size_t)err;
		}
		if (s->bpf && ring_fd >= 0)
			bpf_ring(s, &s->rings[s->nrings - 1], cpu_list[ci],
				   ring_fd);
	}
	/* Only off-CPU statistics: no sampling event to ride on. */
	if (s->bpf && !s->bpf_events) {
		snprintf(s->bpf_why, sizeof(s->bpf_why), "no sampling "
			 "event to run on (off-CPU samples are read from the "
			 "process)");
		if (s->py)
			py_samples_use_bpf(s->py, NULL);
		perf_bpf_close(s->bpf);
		s->bpf = NULL;
		s->bpf_py = 0;
	}
	/*
	 * Counting events and the trigger need no buffer: on tasks they
	 * follow each task on any CPU (so time enabled/running shows
	 * multiplexing only), on CPUs there is one per CPU.
	 */
	for (ci = 0; ci < (t->kind == PERF_TARGET_TASKS ? 1 : ncpus); ci++) {
		int cpu = t->kind == PERF_TARGET_TASKS ?
			  (t->cpus ? cpu_list[0] : -1) : cpu_list[ci];

		for (ti = 0; ti < ntasks; ti++) {
			err = open_task_events(s, op, nopen, t,
					       t->kind == PERF_TARGET_TASKS ?
					       t->tids[ti] : -1, cpu, 1, NULL,
					       pages);
			if (err < 0)
				goto fail;
			gone += (size_t)err;
		}
	}
	if (!s->nfds) {
		err = prof_fail(PROF_ENOENT, "no task left to follow (%zu exited)",
				gone);
		goto fail;
	}
	if (s->nfds > 1)
		qsort(s->fds, s->nfds, sizeof(*s->fds), cmp_fd_id);
	s->regs_mask = unw_perf_regs_mask();
	s->sw = t->sw;
	free(cpus);
	free(op);
	*out = s;
	return 0;
fail:
	free(cpus);
	free(op);
	perf_session_free(s);
	return err;
}

/*
 * Switch the statistics (not the tracking event) on or off.  Group
 * members follow their leaders; cascaded events wait for the trigger.
 */
static int ioctl_all(struct perf_session *s, unsigned long req)
{
	size_t i;

	for (i = 0; i < s->nfds; i++) {
		const struct event_fd *e = &s->fds[i];

		if (e->stat == NO_STAT || e->member)
			continue;
		if (req == PERF_EVENT_IOC_ENABLE &&
		    (e->cascaded ? !s->cascade_fired :
		     e->stat == TRIGGER_STAT && s->cascade_fired))
			continue;
		if (ioctl(e->fd, req, 0))
			return prof_fail(PROF_EPERF, "cannot %s events: %s",
					 req == PERF_EVENT_IOC_ENABLE ?
					 "enable" : "disable",
					 strerror(errno));
	}
	return 0;
}

int perf_session_enable(struct perf_session *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_ENABLE);
}

int perf_session_disable(struct perf_session *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_DISABLE);
}

int perf_session_cascade(struct perf_session *s)
{
	size_t i;

	if (s->cascade_fired)
		return 0;
	s->cascade_fired = 1;
	/* B first: every event of A after the N-th is one B may miss. */
	for (i = 0; i < s->nfds; i++)
		if (s->fds[i].cascaded && !s->fds[i].member &&
		    ioctl(s->fds[i].fd, PERF_EVENT_IOC_ENABLE, 0))
			return prof_fail(PROF_EPERF, "cannot start counting "
					 "after the trigger: %s",
					 strerror(errno));
	for (i = 0; i < s->nfds; i++)
		if (s->fds[i].stat == TRIGGER_STAT)
			ioctl(s->fds[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	return 1;
}

static const struct event_fd *fd_of_id(const struct perf_session *s,
				       uint64_t id)
{
	size_t lo = 0, hi = s->nfds;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->fds[mid].id == id)
			return &s->fds[mid];
		if (s->fds[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static uint32_t stat_of_id(const struct perf_session *s, uint64_t id)
{
	const struct event_fd *e = fd_of_id(s, id);

	return e ? e->stat : UINT32_MAX;
}

/* A word of a record: the kernel writes them in this machine's order. */
static uint64_t rec_u64(struct bytes *r)
{
	return bytes_host64(r);
}

static uint32_t rec_u32(struct bytes *r)
{
	return bytes_host32(r);
}

/*
 * A record other than a sample, [b, end) after its header, ends with a
 * sample_id trailer (sample_id_all, SAMPLE_TYPE): pid and tid, time,
 * cpu, identifier.  *body: the record's fields, all but the trailer's
 * last 24 bytes; *time, *id: the trailer's.  -1 when fewer than min
 * bytes are left for the fields.
 */
static int rec_split(const uint8_t *b, const uint8_t *end, size_t min,
		     struct bytes *body, uint64_t *time, uint64_t *id)
{
	struct bytes r = bytes_of(b, (size_t)(end - b));
	size_t n = bytes_left(&r);

	if (n < min + 24)
		return -1;
	*body = bytes_of(bytes_get(&r, n - 24), n - 24);
	*time = rec_u64(&r);
	bytes_skip(&r, 4 + 4);	/* cpu, reserved */
	*id = rec_u64(&r);
	return 0;
}

/* When a record was written, for the order of delivery: a sample's TIME,
 * else its trailer's; 0 when it holds neither. */
static uint64_t rec_time(const struct perf_event_header *h,
			 const uint8_t *rec)
{
	struct bytes r = bytes_of(rec, h->size), body;
	uint64_t time, id;

	if (h->type == PERF_RECORD_SAMPLE && h->size >= 40) {
		bytes_skip(&r, 32);	/* header, identifier, ip, pid/tid */
		return rec_u64(&r);
	}
	bytes_skip(&r, sizeof(*h));
	return rec_split(r.p, r.end, 0, &body, &time, &id) ? 0 : time;
}

/*
 * List every complete record of one ring.  A record stays where it is
 * (stack copies make samples tens of KiB) unless it wraps around the
 * ring's end; the ring's tail moves past them only after delivery.
 */
static void read_ring(struct perf_session *s, struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	size_t mask = r->size - 1;
	size_t frames = SIZE_MAX;	/* the first of the program's copies
					 * listed just before */

	while (tail < head) {
		struct perf_event_header h;
		size_t at = tail & mask, first;
		const uint8_t *rec;
		struct rec *rc;

		if (r->size - at >= sizeof(h)) {
			memcpy(&h, r->data + at, sizeof(h));
		} else {
			first = r->size - at;
			memcpy(&h, r->data + at, first);
			memcpy((uint8_t *)&h + first, r->data,
			       sizeof(h) - first);
		}
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (ALLOC_GROW(s->recs, s->nrecs + 1, s->alloc_recs))
			break;
		rc = &s->recs[s->nrecs];
		if (r->size - at >= h.size) {
			rec = r->data + at;
			rc->in_ring = rec;
		} else {
			uint8_t *dst;

			if (ALLOC_GROW(s->arena, s->arena_len + h.size,
				       s->arena_alloc))
				break;
			dst = s->arena + s->arena_len;
			first = r->size - at;
			memcpy(dst, r->data + at, first);
			memcpy(dst + first, r->data, h.size - first);
			rec = dst;
			rc->in_ring = NULL;
			rc->off = s->arena_len;
			s->arena_len += h.size;
		}
		s->nrecs++;
		rc->seq = s->seq++;
		rc->time = rec_time(&h, rec);
		tail += h.size;
		/* The program copies what a sample needs (Python frames,
		 * more of its stack) after the sample's time is read, and
		 * writes them before it: they are listed at its time, just
		 * before it. */
		if (r->pyout_id && h.type == PERF_RECORD_SAMPLE &&
		    h.size >= sizeof(h) + 8 &&
		    !memcmp(rec + sizeof(h), &r->pyout_id, 8)) {
			if (frames == SIZE_MAX)
				frames = s->nrecs - 1;
		} else if (frames != SIZE_MAX) {
			for (; frames < s->nrecs - 1; frames++)
				if (s->recs[frames].time > rc->time)
					s->recs[frames].time = rc->time;
			frames = SIZE_MAX;
		}
	}
	r->read_to = tail;
}

/* Time order; seq (the order listed) among records of one time. */
static int rec_before(const struct rec *x, const struct rec *y)
{
	return x->time != y->time ? x->time < y->time : x->seq < y->seq;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return rec_before(x, y) ? -1 : rec_before(y, x);
}

/* Merge the ordered runs [a, b) and [b, c) of from into to + a. */
static void merge_runs(const struct rec *from, struct rec *to, size_t a,
		       size_t b, size_t c)
{
	size_t i = a, j = b, k = a;

	while (i < b && j < c)
		to[k++] = rec_before(&from[j], &from[i]) ? from[j++] :
							    from[i++];
	while (i < b)
		to[k++] = from[i++];
	while (j < c)
		to[k++] = from[j++];
}

/*
 * Put the round's records in time order, as one sort of them all would:
 * each ring's run, listed in the order the kernel wrote it, is already
 * in time order but for rare records (sorted alone then), so the runs
 * are merged, pairwise, over log2(rings) passes.
 */
static int order_round(struct perf_session *s)
{
	size_t nruns = s->nrings, i, j, *runs = s->runs;
	struct rec *t;

	for (i = 0; i < nruns; i++) {
		for (j = runs[i] + 1; j < runs[i + 1]; j++)
			if (rec_before(&s->recs[j], &s->recs[j - 1]))
				break;
		if (j < runs[i + 1])
			qsort(s->recs + runs[i], runs[i + 1] - runs[i],
			      sizeof(*s->recs), cmp_rec);
	}
	if (nruns > 1 && ALLOC_GROW(s->merged, s->nrecs, s->alloc_merged))
		return -1;
	while (nruns > 1) {
		for (i = 0, j = 0; i < nruns; i += 2, j++) {
			size_t c = i + 2 <= nruns ? runs[i + 2] : runs[i + 1];

			if (i + 1 < nruns)
				merge_runs(s->recs, s->merged, runs[i],
					   runs[i + 1], c);
			else if (c > runs[i])
				memcpy(s->merged + runs[i], s->recs + runs[i],
				       (c - runs[i]) * sizeof(*s->recs));
			runs[j] = runs[i];
		}
		runs[j] = s->nrecs;
		nruns = j;
		t = s->recs;
		s->recs = s->merged;
		s->merged = t;
		i = s->alloc_recs;
		s->alloc_recs = s->alloc_merged;
		s->alloc_merged = i;
	}
	return 0;
}

/*
 * A profile-me sample: walk the fields its event's sample_type puts in
 * (the kernel's order), decode, and charge each statistic it met.
 */
static void deliver_pm(struct perf_session *s, struct pm_open *o,
		       const struct perf_event_header *h, const uint8_t *b,
		       const uint8_t *end)
{
	uint64_t st = o->sample_type, period;
	struct collect_sample cs;
	struct pm_sample ps;
	struct bytes r = bytes_of(b, (size_t)(end - b));
	const uint8_t *raw = NULL;
	uint32_t raw_len = 0;
	struct pm_pebs_input in;
	int err, i;

	memset(&in, 0, sizeof(in));
	memset(&cs, 0, sizeof(cs));
	bytes_skip(&r, 8);	/* identifier */
	cs.ip = rec_u64(&r);
	cs.pid = rec_u32(&r);
	cs.tid = rec_u32(&r);
	cs.time = rec_u64(&r);
	if (st & PERF_SAMPLE_ADDR)
		in.addr = rec_u64(&r);
	cs.cpu = rec_u32(&r);
	bytes_skip(&r, 4);	/* reserved */
	period = rec_u64(&r);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = rec_u64(&r);

		if (r.bad || nr > bytes_left(&r) / 8)
			goto bad;
		cs.chain = (const uint64_t *)bytes_get(&r, nr * 8);
		cs.nchain = nr;
	}
	if (st & PERF_SAMPLE_RAW) {
		raw_len = rec_u32(&r);
		raw = bytes_get(&r, raw_len);
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		uint64_t w = rec_u64(&r);

		/* var1_dw: load latency; var3_w: retire latency */
		in.weight = (st & PERF_SAMPLE_WEIGHT_STRUCT) ?
			    (uint32_t)w : w;
		in.retire_lat = (uint16_t)(w >> 48);
	}
	if (st & PERF_SAMPLE_DATA_SRC)
		in.data_src = rec_u64(&r);
	if (r.bad)
		goto bad;
	switch (o->ev.family) {
	case PM_FAMILY_AMD_IBS:
		err = raw ? pm_decode_ibs_op(raw, raw_len, &ps) :
			    -PROF_EFORMAT;
		break;
	case PM_FAMILY_INTEL_PEBS:
		in.event = (enum pm_pebs_event)o->ev.kind;
		in.have = o->ev.have;
		in.ip = cs.ip;
		err = pm_decode_pebs(&in, &ps);
		break;
	default:
		err = -PROF_EFORMAT;
		break;
	}
	if (err)
		goto bad;
	cs.ip = ps.ip;
	cs.cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	for (i = 0; i < PM_NSTATS; i++) {
		if (o->stat_of[i] == NO_STAT || !ps.valid[i] || !ps.v[i])
			continue;
		cs.stat = o->stat_of[i];
		cs.period = ps.v[i] * (period ? period : 1);
		collector_sample(s->col, &cs);
	}
	return;
bad:
	s->pm_dropped++;
}

/*
 * Deep stacks: process pid's sample filled its stack copy of size
 * bytes (the stack goes on past it): the program is told to copy more
 * of its samples' stacks, once per process.
 */
static void deep_note(struct perf_session *s, uint32_t pid, uint32_t size)
{
	size_t i;

	for (i = 0; i < s->ndeep; i++)
		if (s->deep_pids[i] == pid)
			return;
	if (ALLOC_GROW(s->deep_pids, s->ndeep + 1, s->alloc_deep))
		return;
	if (!perf_bpf_set_deep(s->bpf, pid, size, DEEP_MORE))
		s->deep_pids[s->ndeep++] = pid;
}

/* A record of the program's copy of a stack past a sample's copy (raw's
 * len bytes: a head and one region), made on cpu at time: kept for that
 * CPU's next sample, after those of the same sample before it. */
static void stack_more_add(struct perf_session *s, uint32_t cpu,
			   uint32_t pid, uint32_t tid, uint64_t time,
			   const uint8_t *raw, size_t len)
{
	struct perf_bpf_region r;
	struct stack_more *m;

	if (cpu >= 4096 ||
	    !perf_bpf_regions(raw, len, SBPF_STACK_MAGIC, &r, 1) ||
	    ALLOC_GROW_ZERO(s->more, (size_t)cpu + 1, s->nmore))
		return;
	m = &s->more[cpu];
	/* The next record of the same copy goes on where the last ended. */
	if (m->tid != tid || m->pid != pid || r.addr != m->end)
		m->tid = 0;
	if (!m->tid) {
		m->start = m->end = r.addr;
		m->pid = pid;
		m->tid = tid;
		m->time = time;
	}
	if (ALLOC_GROW(m->buf, (size_t)(m->end - m->start) + r.len,
		       m->alloc)) {
		m->tid = 0;
		return;
	}
	memcpy(m->buf + (m->end - m->start), r.data, r.len);
	m->end += r.len;
}

/*
 * cs's stack copy, when it is full and the program copied more of the
 * same thread's stack from where the copy ends (from the start of the
 * page it ends in): the two as one, in s->deep_buf.
 */
static void stack_more_join(struct perf_session *s, struct collect_sample *cs)
{
	struct stack_more *m;
	struct unw_state st;
	uint64_t end;
	size_t need;

	if (!cs->ustack || !cs->uregs || cs->cpu >= s->nmore)
		return;
	m = &s->more[cs->cpu];
	if (!m->tid)
		return;
	m->tid = 0;
	if (m->pid != cs->pid ||
	    (m->time > cs->time ? m->time - cs->time : cs->time - m->time) >
	    1000000 ||
	    unw_init(&st, cs->uregs, cs->uregs_mask, cs->ustack,
		     (size_t)cs->ustack_len))
		return;
	end = st.sp0 + cs->ustack_len;
	if (m->start > end || m->end <= end)
		return;
	need = (size_t)cs->ustack_len + (size_t)(m->end - end);
	if (ALLOC_GROW(s->deep_buf, need, s->alloc_deep_buf))
		return;
	memcpy(s->deep_buf, cs->ustack, (size_t)cs->ustack_len);
	memcpy(s->deep_buf + cs->ustack_len, m->buf + (end - m->start),
	       (size_t)(m->end - end));
	cs->ustack = s->deep_buf;
	cs->ustack_len = need;
	s->deep_samples++;
}

/*
 * The fields after PERIOD of a sample of event e, the rest of r: the call
 * chain, the raw data (*raw, *raw_len; may be NULL where e has none), the
 * user registers and the user stack copy, as e's sample_type has them.
 * -1 when they do not fit the record.
 */
static int parse_tail(struct perf_session *s, const struct event_fd *e,
		      struct bytes *r, struct collect_sample *cs,
		      const uint8_t **raw, uint32_t *raw_len)
{
	cs->chain = NULL;
	cs->nchain = 0;
	cs->py = NULL;
	cs->npy = 0;
	cs->uregs = NULL;
	cs->uregs_mask = 0;
	cs->compat = 0;
	cs->ustack = NULL;
	cs->ustack_len = 0;
	if (e->chain) {
		uint64_t nr = rec_u64(r);

		if (r->bad || nr > bytes_left(r) / 8)
			return -1;
		cs->chain = (const uint64_t *)bytes_get(r, nr * 8);
		cs->nchain = nr;
	}
	if (e->raw) {
		uint32_t len = rec_u32(r);
		const uint8_t *data = bytes_get(r, len);

		if (raw) {
			*raw = data;
			*raw_len = data ? len : 0;
		}
	}
	if (e->regs) {
		size_t nregs = (size_t)__builtin_popcountll(s->regs_mask);
		uint64_t abi = rec_u64(r);
		const uint8_t *regs;

		if (abi) {
			regs = bytes_get(r, nregs * 8);
			/* A 32-bit task's: x86-64's registers holding its
			 * 32-bit values. */
			if (regs && (abi == PERF_SAMPLE_REGS_ABI_64 ||
				     abi == PERF_SAMPLE_REGS_ABI_32)) {
				cs->uregs = (const uint64_t *)regs;
				cs->uregs_mask = s->regs_mask;
				cs->compat = abi == PERF_SAMPLE_REGS_ABI_32;
			}
		}
	}
	s->copy_full = 0;
	if (e->ustack) {
		uint64_t size = rec_u64(r), dyn;
		const uint8_t *stack;

		if (r->bad || size > bytes_left(r))
			return -1;
		if (size) {
			stack = bytes_get(r, (size_t)size);
			dyn = rec_u64(r);
			if (r->bad)
				return -1;
			if (cs->uregs) {
				cs->ustack = stack;
				cs->ustack_len = dyn < size ? dyn : size;
			}
			/* A full copy (the kernel's, of the size that fits
			 * the record): the stack may go on past it. */
			s->copy_full = dyn >= size ? size : 0;
		}
	}
	return r->bad ? -1 : 0;
}

/* The state letter of sched_switch's prev_state in raw (S, D, R). */
static char switch_letter(const struct perf_switch *sw, const uint8_t *raw,
			  uint32_t len)
{
	struct bytes r;
	uint64_t v;

	if (!raw || sw->state_off + sw->state_size > len)
		return 0;
	r = bytes_of(raw + sw->state_off, sw->state_size);
	v = bytes_uo(&r, sw->state_size, BYTES_HOST_BIG);
	if (v & sw->d_bits)
		return 'D';
	if (v & sw->s_bits)
		return 'S';
	return 'R';
}

/*
 * A sample of the switch event (build_switch_attr()), r after its
 * identifier: the thread switching out, its kernel chain, sched_switch's
 * raw data, its user registers and stack copy.
 */
static void deliver_switch_sample(struct perf_session *s,
				  const struct event_fd *e,
				  const struct perf_event_header *h,
				  struct bytes *r)
{
	struct collect_sample cs;
	const uint8_t *raw = NULL;
	uint32_t raw_len = 0;

	memset(&cs, 0, sizeof(cs));
	cs.stat = e->stat;
	cs.ip = rec_u64(r);
	cs.pid = rec_u32(r);
	cs.tid = rec_u32(r);
	cs.time = rec_u64(r);
	cs.cpu = rec_u32(r);
	bytes_skip(r, 4);	/* reserved */
	cs.period = rec_u64(r);
	cs.cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (parse_tail(s, e, r, &cs, &raw, &raw_len))
		return;
	if (s->py)
		py_samples_add(s->py, s->col, &cs, 1);
	collector_switch_sample(s->col, &cs,
				switch_letter(&s->sw, raw, raw_len));
}

/*
 * A switch record (PERF_RECORD_SWITCH, or _CPU_WIDE with the other
 * task's ids first): the thread of its sample_id trailer (pid, tid,
 * time, cpu, identifier: SAMPLE_TYPE's) switched out or in.
 */
static void deliver_switch(struct perf_session *s,
			   const struct perf_event_header *h,
			   const uint8_t *b, const uint8_t *end)
{
	struct bytes r;
	uint32_t pid, tid, cpu;
	uint64_t time;

	if (end - b < 32)
		return;
	r = bytes_of(end - 32, 32);
	pid = rec_u32(&r);
	tid = rec_u32(&r);
	time = rec_u64(&r);
	cpu = rec_u32(&r);
	collector_switch(s->col, pid, tid, cpu, time,
			 !!(h->misc & PERF_RECORD_MISC_SWITCH_OUT),
			 !!(h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT));
}

/* A copy of Python frames (perfbpf.h), r after its identifier: for the
 * next sample of its CPU. */
static void deliver_pyframes(struct perf_session *s, const struct event_fd *e,
			     struct bytes *r)
{
	struct collect_sample cs;
	const uint8_t *raw = NULL;
	uint32_t raw_len = 0;

	memset(&cs, 0, sizeof(cs));
	bytes_skip(r, 8);	/* ip */
	cs.pid = rec_u32(r);
	cs.tid = rec_u32(r);
	cs.time = rec_u64(r);
	cs.cpu = rec_u32(r);
	bytes_skip(r, 12);	/* reserved, period */
	if (parse_tail(s, e, r, &cs, &raw, &raw_len) || !raw ||
	    raw_len < sizeof(uint32_t))
		return;
	if (!memcmp(raw, &(uint32_t){ SBPF_STACK_MAGIC }, sizeof(uint32_t)))
		stack_more_add(s, cs.cpu, cs.pid, cs.tid, cs.time, raw,
			       raw_len);
	else if (s->py)
		py_samples_frames(s->py, cs.cpu, cs.pid, cs.tid, cs.time, raw,
				  raw_len);
}

/* A wake-up of the drainer for a thread not told of (perfbpf.h), r after
 * its identifier. */
static void deliver_pywake(struct perf_session *s, const struct event_fd *e,
			   struct bytes *r)
{
	struct collect_sample cs;
	const uint8_t *raw = NULL;
	uint32_t raw_len = 0;
	struct sbpf_wake wk;

	memset(&cs, 0, sizeof(cs));
	bytes_skip(r, 32);	/* ip, pid, tid, time, cpu, reserved */
	bytes_skip(r, 8);	/* period */
	if (parse_tail(s, e, r, &cs, &raw, &raw_len) || !raw ||
	    raw_len < sizeof(wk) || !s->py)
		return;
	memcpy(&wk, raw, sizeof(wk));
	py_samples_woken(s->py, wk.tgid, wk.tid);
}

/* An ordinary sample (not profile-me): [b, end) after its header. */
static void deliver_sample(struct perf_session *s,
			   const struct perf_event_header *h,
			   const uint8_t *b, const uint8_t *end)
{
	struct bytes r = bytes_of(b, (size_t)(end - b));
	const struct event_fd *e;
	struct collect_sample cs;

	if (h->size < 56)
		return;
	e = fd_of_id(s, rec_u64(&r));
	if (e && e->pm >= 0) {
		deliver_pm(s, &s->pm[e->pm], h, b, end);
		return;
	}
	if (e && e->sw) {
		deliver_switch_sample(s, e, h, &r);
		return;
	}
	if (e && e->pyout) {
		deliver_pyframes(s, e, &r);
		return;
	}
	if (e && e->pywake) {
		deliver_pywake(s, e, &r);
		return;
	}
	cs.stat = e ? e->stat : UINT32_MAX;
	cs.ip = rec_u64(&r);
	cs.pid = rec_u32(&r);
	cs.tid = rec_u32(&r);
	cs.time = rec_u64(&r);
	cs.cpu = rec_u32(&r);
	bytes_skip(&r, 4);	/* reserved */
	cs.period = rec_u64(&r);
	cs.cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (!e || parse_tail(s, e, &r, &cs, NULL, NULL))
		return;
	if (s->bpf && cs.ustack && s->copy_full &&
	    cs.ustack_len == s->copy_full) {
		deep_note(s, cs.pid, (uint32_t)s->copy_full);
		stack_more_join(s, &cs);
	}
	if (s->py)
		py_samples_add(s->py, s->col, &cs, 0);
	collector_sample(s->col, &cs);
}

/* A mapping (PERF_RECORD_MMAP2): [b, end) after its header. */
static void deliver_mmap2(struct perf_session *s, const uint8_t *b,
			  const uint8_t *end)
{
	struct collect_file_id fid = { 0 };
	uint64_t addr, len, pgoff, time, id;
	struct bytes body;
	const char *name;
	uint32_t pid;

	if (rec_split(b, end, 64, &body, &time, &id))
		return;
	pid = rec_u32(&body);
	bytes_skip(&body, 4);	/* tid */
	addr = rec_u64(&body);
	len = rec_u64(&body);
	pgoff = rec_u64(&body);
	fid.maj = rec_u32(&body);
	fid.min = rec_u32(&body);
	fid.ino = rec_u64(&body);
	bytes_skip(&body, 8);	/* ino_generation */
	/* Build-ids are never asked for (see build_attr): a set
	 * PERF_RECORD_MISC_MMAP_BUILD_ID bit is another event's and the
	 * bytes are device and inode numbers. */
	if (!(rec_u32(&body) & PROT_EXEC))
		return;
	bytes_skip(&body, 4);	/* flags */
	name = bytes_str(&body);
	if (name)
		proc_map_file(s->col, pid, addr, len, pgoff, name, time, &fid);
	/* A process looked at before it mapped its libpython (a first
	 * sample in the dynamic linker) is looked at again. */
	if (name && s->py)
		py_samples_mapped(s->py, pid, name);
}

static void deliver(struct perf_session *s, const uint8_t *p)
{
	const struct perf_event_header *h = (const void *)p;
	const uint8_t *b = p + sizeof(*h);
	const uint8_t *end = p + h->size;
	struct bytes r = bytes_of(b, (size_t)(end - b)), body;
	uint64_t addr, len, pgoff, time, id;
	uint32_t pid, ppid, tid, ptid;
	const char *name;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		deliver_sample(s, h, b, end);
		return;
	case PERF_RECORD_MMAP2:
		deliver_mmap2(s, b, end);
		return;
	case PERF_RECORD_MMAP:
		if (rec_split(b, end, 32, &body, &time, &id))
			return;
		pid = rec_u32(&body);
		bytes_skip(&body, 4);	/* tid */
		addr = rec_u64(&body);
		len = rec_u64(&body);
		pgoff = rec_u64(&body);
		name = bytes_str(&body);
		if (name)
			collector_mmap(s->col, pid, addr, len, pgoff, name,
				       NULL, 0, time);
		return;
	case PERF_RECORD_COMM:
		if (rec_split(b, end, 8, &body, &time, &id))
			return;
		pid = rec_u32(&body);
		tid = rec_u32(&body);
		name = bytes_str(&body);
		if (!name)
			return;
		collector_comm(s->col, pid, tid, name,
			       !!(h->misc & PERF_RECORD_MISC_COMM_EXEC), time);
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
			proc_read_cmdline(s->col, (pid_t)pid);
			py_samples_forget(s->py, pid);
		}
		return;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (h->size < sizeof(*h) + 24)
			return;
		pid = rec_u32(&r);
		ppid = rec_u32(&r);
		tid = rec_u32(&r);
		ptid = rec_u32(&r);
		time = rec_u64(&r);
		if (h->type == PERF_RECORD_FORK) {
			collector_fork(s->col, pid, ppid, tid, ptid, time);
		} else {
			collector_exit(s->col, pid, tid, time);
			collector_switch_exit(s->col, pid, tid, time);
			if (pid == tid)
				py_samples_forget(s->py, pid);
		}
		return;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		deliver_switch(s, h, b, end);
		return;
	case PERF_RECORD_LOST:
		if (h->size >= sizeof(*h) + 16) {
			id = rec_u64(&r);
			collector_lost(s->col, stat_of_id(s, id), rec_u64(&r));
		}
		return;
	case PERF_RECORD_LOST_SAMPLES:
		if (!rec_split(b, end, 8, &body, &time, &id))
			collector_lost(s->col, stat_of_id(s, id),
				       rec_u64(&body));
		return;
	default:
		return;
	}
}

void perf_session_drain(struct perf_session *s)
{
	size_t i;

	s->arena_len = 0;
	s->nrecs = 0;
	for (i = 0; i < s->nrings; i++) {
		s->runs[i] = s->nrecs;
		read_ring(s, &s->rings[i]);
	}
	s->runs[s->nrings] = s->nrecs;
	if (s->nrecs) {
		if (order_round(s))
			qsort(s->recs, s->nrecs, sizeof(*s->recs), cmp_rec);
		for (i = 0; i < s->nrecs; i++)
			deliver(s, s->recs[i].in_ring ? s->recs[i].in_ring :
				   s->arena + s->recs[i].off);
	}
	/* The kernel may write over what was delivered. */
	for (i = 0; i < s->nrings; i++)
		__atomic_store_n(&s->rings[i].meta->data_tail,
				 s->rings[i].read_to, __ATOMIC_RELEASE);
	if (s->nrecs)
		collector_round_end(s->col);
}

int perf_session_poll(struct perf_session *s, int timeout_ms,
		      struct pollfd *extra, size_t nextra)
{
	size_t n = s->nrings + nextra, i;
	int r, py_ms;

	if (ALLOC_GROW(s->pfds, n ? n : 1, s->alloc_pfds))
		return prof_fail(PROF_ENOMEM, "out of memory");
	for (i = 0; i < s->nrings; i++) {
		/* A negative fd is skipped by poll(2). */
		s->pfds[i].fd = s->rings[i].hup ? -1 : s->rings[i].fd;
		s->pfds[i].events = POLLIN;
		s->pfds[i].revents = 0;
	}
	for (i = 0; i < nextra; i++) {
		extra[i].revents = 0;
		s->pfds[s->nrings + i] = extra[i];
	}
	/* Python frames are read when a sample is drained: soon after it
	 * is taken, so that the thread is still in the functions it was
	 * sampled in.  A python's samples wake the drainer themselves
	 * (wake_for_python()); the timeout is for a buffer left with fewer
	 * while the program runs (the last drain had records), not to wake
	 * for nothing while it waits or waits for a CPU.  A CPython found
	 * in another program's process is drained every millisecond. */
	py_ms = s->py_eager ? PY_WAKE_MS : 1;
	if (s->py && !s->bpf_py && (s->py_eager ? s->nrecs > 0 :
				      py_samples_active(s->py)) &&
	    (timeout_ms < 0 || timeout_ms > py_ms))
		timeout_ms = py_ms;
	/* With the BPF program, only until a python's CPython is found
	 * (the program knows no process before) and while the last drain
	 * read frames from the process (threads it was not told of yet:
	 * its wake-up records wake the drainer for their first samples). */
	if (s->bpf_py && ((s->py_eager && !py_samples_active(s->py)) ||
			    py_samples_read_since(s->py)) &&
	    (timeout_ms < 0 || timeout_ms > PY_WAKE_MS))
		timeout_ms = PY_WAKE_MS;
	/* An off-CPU statistic's samples at the switches (no program
	 * there) are read from the process: every PY_WAKE_MS while a
	 * CPython is read, records or not, so that a thread that switched
	 * out is read while it still waits (a drain with no records would
	 * otherwise leave the next switch to the watermark). */
	if (s->py && s->sw.stacks && py_samples_active(s->py) &&
	    (timeout_ms < 0 || timeout_ms > PY_WAKE_MS))
		timeout_ms = PY_WAKE_MS;
	r = poll(s->pfds, n, timeout_ms);
	if (r < 0 && errno != EINTR)
		return prof_fail(PROF_EIO, "poll failed: %s", strerror(errno));
	for (i = 0; r > 0 && i < s->nrings; i++)
		if (s->pfds[i].revents & (POLLHUP | POLLERR))
			s->rings[i].hup = 1;
	for (i = 0; r > 0 && i < nextra; i++)
		extra[i].revents = s->pfds[s->nrings + i].revents;
	perf_session_drain(s);
	return 0;
}

/*
 * One event's value and times.  A group read returns the whole group
 * (nr, enabled, running, then value and id per event): pick this one.
 */
static int read_event(const struct event_fd *e, struct perf_totals *out)
{
	uint64_t v[3 + 2 * 64];
	ssize_t n;
	uint64_t nr, j;

	n = read(e->fd, v, e->grouped ? sizeof(v) : 3 * sizeof(v[0]));
	if (n < (ssize_t)(3 * sizeof(v[0])))
		return -1;
	if (!e->grouped) {
		out->value = v[0];
		out->time_enabled = v[1];
		out->time_running = v[2];
		return 0;
	}
	nr = v[0];
	for (j = 0; j < nr && (ssize_t)((5 + 2 * j) * sizeof(v[0])) <= n;
	     j++)
		if (v[4 + 2 * j] == e->id) {
			out->value = v[3 + 2 * j];
			out->time_enabled = v[1];
			out->time_running = v[2];
			return 0;
		}
	return -1;
}

void perf_session_totals(struct perf_session *s, size_t stat,
			 struct perf_totals *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < s->nfds; i++) {
		struct perf_totals one;

		if (s->fds[i].stat != stat || read_event(&s->fds[i], &one))
			continue;
		t->value += one.value;
		t->time_enabled += one.time_enabled;
		t->time_running += one.time_running;
	}
}

uint64_t perf_session_pm_dropped(const struct perf_session *s)
{
	return s->pm_dropped;
}

void perf_session_free(struct perf_session *s)
{
	size_t i, pg;

	if (!s)
		return;
	pg = (size_t)sysconf(_SC_PAGESIZE);
	for (i = 0; i < s->nrings; i++)
		munmap(s->rings[i].meta, s->rings[i].size + pg);
	for (i = 0; i < s->nfds; i++)
		close(s->fds[i].fd);
	py_samples_free(s->py);
	perf_bpf_close(s->bpf);
	for (i = 0; i < s->nmore; i++)
		free(s->more[i].buf);
	free(s->more);
	free(s->deep_pids);
	free(s->deep_buf);
	free(s->rings);
	free(s->fds);
	free(s->arena);
	free(s->recs);
	free(s->merged);
	free(s->runs);
	free(s->pfds);
	free(s);
}

const char *perf_session_pybpf(const struct perf_session *s,
			       const char **partial)
{
	*partial = s && s->bpf && s->bpf_partial[0] ? s->bpf_partial :
		   NULL;
	return !s || !s->py || s->bpf_py ? NULL : s->bpf_why;
}

uint64_t perf_session_deep(const struct perf_session *s, size_t *nprocs,
			   const char **why)
{
	*nprocs = s ? s->ndeep : 0;
	*why = !s || s->bpf ? NULL : s->bpf_why[0] ? s->bpf_why :
	       "not loaded (no stack copies)";
	return s ? s->deep_samples : 0;
}

const struct py_samples *perf_session_python(const struct perf_session *s)
{
	return s ? s->py : NULL;
}
