/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util/error.h"
#include "perf.h"
#include "privilege.h"
#include "proc.h"
#include "common/stats/stats.h"
#include "common/util/sysctl.h"

#define CAP_SYS_ADMIN_BIT 21
#define CAP_SYSLOG_BIT 34
#define CAP_PERFMON_BIT 38

static unsigned long long effective_caps(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long caps = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps;
}

static int has_cap(unsigned long long caps, int bit)
{
	return (caps >> bit) & 1;
}

/* Are kernel addresses in /proc/kallsyms zeroed for us? */
static int kallsyms_hidden(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];
	int n = 0, nonzero = 0;

	if (!f)
		return 1;
	while (n < 64 && fgets(line, sizeof(line), f)) {
		unsigned long long a;

		if (sscanf(line, "%llx", &a) == 1 && a)
			nonzero = 1;
		n++;
	}
	fclose(f);
	return !nonzero;
}

/* The first online CPU: where a system-wide probe is opened. */
static int first_cpu(void)
{
	int *cpus = NULL, cpu = 0;
	size_t n = 0;

	if (!perf_online_cpus(&cpus, &n) && n)
		cpu = cpus[0];
	free(cpus);
	return cpu;
}

/*
 * Why the kernel refused an event the run needs (-err from the probe), in
 * the terms of what the user can change.
 */
static int explain_refusal(const struct priv_need *need, int err, long paranoid,
			   int perfmon)
{
	int perm = (err == EACCES || err == EPERM) && !perfmon;

	/* Above 2, mainline forbids only what 2 does: blame the value
	 * alone when not even the user's own user-mode events open. */
	if (perm && paranoid > 2 &&
	    perf_probe_target(0, -1, STAT_MODE_USER))
		return prof_fail(PROF_EPERM, "performance events are refused "
				 "to this user (kernel.perf_event_paranoid=%ld: "
				 "above 2, this kernel allows them only with "
				 "CAP_PERFMON): run as root, grant CAP_PERFMON, "
				 "or set 'sysctl kernel.perf_event_paranoid=%d'",
				 paranoid, need->system_wide ? 0 :
				 need->kernel ? 1 : 2);
	if (perm && need->system_wide && paranoid > 0)
		return prof_fail(PROF_EPERM, "system-wide profiling needs "
				 "CAP_PERFMON (or CAP_SYS_ADMIN) or "
				 "kernel.perf_event_paranoid <= 0 (it is %ld): "
				 "run as root, or set "
				 "'sysctl kernel.perf_event_paranoid=0'",
				 paranoid);
	if (perm && need->kernel && paranoid > 1)
		return prof_fail(PROF_EPERM, "kernel-mode samples need "
				 "CAP_PERFMON (or CAP_SYS_ADMIN) or "
				 "kernel.perf_event_paranoid <= 1 (it is %ld): "
				 "run as root, or set "
				 "'sysctl kernel.perf_event_paranoid=1'",
				 paranoid);
	/* A container's seccomp filter answers ENOSYS or EPERM whatever
	 * the sysctls say. */
	return prof_fail(PROF_EPERM, "perf_event_open is refused here "
			 "(%s) although kernel.perf_event_paranoid=%ld "
			 "allows it: a container or seccomp policy "
			 "blocks it; allow the perf_event_open system "
			 "call (e.g. docker --cap-add PERFMON with a "
			 "seccomp profile that permits it)",
			 strerror(err), paranoid);
}

int priv_check(const struct priv_need *need)
{
	unsigned long long caps = effective_caps();
	int perfmon = has_cap(caps, CAP_PERFMON_BIT) ||
		      has_cap(caps, CAP_SYS_ADMIN_BIT);
	unsigned modes = STAT_MODE_USER | (need->kernel ? STAT_MODE_KERNEL : 0);
	long paranoid = 2, kptr = 0;
	int err;

	if (sysctl_read_long("perf_event_paranoid", &paranoid) == -ENOENT)
		return prof_fail(PROF_EPERM, "this kernel has no performance "
				 "events (no /proc/sys/kernel/"
				 "perf_event_paranoid): build it with "
				 "CONFIG_PERF_EVENTS");
	sysctl_read_long("kptr_restrict", &kptr);
	/* Ask the kernel first: above 2, perf_event_paranoid means "no
	 * events without CAP_PERFMON" on Debian's and Android's kernels and
	 * the same as 2 on mainline, and capabilities may come from a user
	 * namespace, so the values only explain a refusal. */
	err = -(need->system_wide ? perf_probe_target(-1, first_cpu(), modes) :
		perf_probe_target(0, -1, modes));
	if (err)
		return explain_refusal(need, err, paranoid, perfmon);
	if (need->kernel_symbols && kallsyms_hidden() && kptr >= 2)
		return prof_fail(PROF_EPERM, "kernel addresses are hidden from "
				 "everyone, root included "
				 "(kernel.kptr_restrict=%ld), so kernel samples "
				 "could not be named: set 'sysctl "
				 "kernel.kptr_restrict=0' (or 1 and run as "
				 "root)", kptr);
	if (need->kernel_symbols && kallsyms_hidden())
		return prof_fail(PROF_EPERM, "kernel addresses are hidden from "
				 "this user (kernel.kptr_restrict=%ld%s), so "
				 "kernel samples could not be named: run as "
				 "root, or set 'sysctl kernel.kptr_restrict=0'",
				 kptr, kptr == 1 && !has_cap(caps, CAP_SYSLOG_BIT) ?
				 ", no CAP_SYSLOG" : "");
	return 0;
}

/*
 * /proc rules out what cannot give samples; then the kernel decides, as
 * for priv_check(): a refusal of PID that this user's own process would
 * not get is explained (whose process it is), any other is left to the
 * run (perf_session_open() reports it).
 */
int priv_check_attach(pid_t pid, const char *tool, int attach,
		      unsigned modes, int probe)
{
	struct proc_target t;
	int err = proc_check_target(pid, tool, attach, &t);

	if (err || !attach)
		return err;
	err = probe ? -perf_probe_target(t.tid, -1, modes) : 0;
	if (err == ESRCH)
		return prof_fail(PROF_ENOENT, "no process %d", (int)pid);
	if ((err != EACCES && err != EPERM) ||
	    perf_probe_target(0, -1, modes))
		return 0;	/* no refusal, or not this process's own */
	return proc_refused(pid, tool, &t);
}
