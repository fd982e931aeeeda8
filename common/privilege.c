/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "perf.h"
#include "privilege.h"
#include "stats.h"

#define CAP_SYS_ADMIN_BIT 21
#define CAP_SYSLOG_BIT 34
#define CAP_PERFMON_BIT 38

static int read_int(const char *path, int *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%d", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

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

int priv_check(const struct priv_need *need)
{
	unsigned long long caps = effective_caps();
	int perfmon = has_cap(caps, CAP_PERFMON_BIT) ||
		      has_cap(caps, CAP_SYS_ADMIN_BIT);
	int paranoid = 2, kptr = 0, err = 0;

	read_int("/proc/sys/kernel/perf_event_paranoid", &paranoid);
	read_int("/proc/sys/kernel/kptr_restrict", &kptr);
	if (access("/proc/sys/kernel/perf_event_paranoid", F_OK))
		return prof_fail(PROF_EPERM, "this kernel has no performance "
				 "events (no /proc/sys/kernel/"
				 "perf_event_paranoid): build it with "
				 "CONFIG_PERF_EVENTS");
	if (!perfmon && paranoid > 2)
		return prof_fail(PROF_EPERM, "performance events are disabled "
				 "for unprivileged users "
				 "(kernel.perf_event_paranoid=%d): run as root, "
				 "grant CAP_PERFMON, or set "
				 "'sysctl kernel.perf_event_paranoid=%d'",
				 paranoid, need->system_wide ? 0 :
				 need->kernel ? 1 : 2);
	if (need->system_wide && !perfmon && paranoid > 0)
		return prof_fail(PROF_EPERM, "system-wide profiling needs "
				 "CAP_PERFMON (or CAP_SYS_ADMIN) or "
				 "kernel.perf_event_paranoid <= 0 (it is %d): "
				 "run as root, or set "
				 "'sysctl kernel.perf_event_paranoid=0'",
				 paranoid);
	if (need->kernel && !perfmon && paranoid > 1)
		return prof_fail(PROF_EPERM, "kernel-mode samples need "
				 "CAP_PERFMON (or CAP_SYS_ADMIN) or "
				 "kernel.perf_event_paranoid <= 1 (it is %d): "
				 "run as root, or set "
				 "'sysctl kernel.perf_event_paranoid=1'",
				 paranoid);
	/* Does the kernel let us open any event at all?  A container's
	 * seccomp filter answers ENOSYS or EPERM whatever the sysctls say. */
	err = -perf_probe(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY,
			  STAT_MODE_USER, NULL);
	if (err)
		return prof_fail(PROF_EPERM, "perf_event_open is refused here "
				 "(%s) although kernel.perf_event_paranoid=%d "
				 "allows it: a container or seccomp policy "
				 "blocks it; allow the perf_event_open system "
				 "call (e.g. docker --cap-add PERFMON with a "
				 "seccomp profile that permits it)",
				 strerror(err), paranoid);
	if (need->kernel_symbols && kallsyms_hidden() && kptr >= 2)
		return prof_fail(PROF_EPERM, "kernel addresses are hidden from "
				 "everyone, root included "
				 "(kernel.kptr_restrict=%d), so kernel samples "
				 "could not be named: set 'sysctl "
				 "kernel.kptr_restrict=0' (or 1 and run as "
				 "root)", kptr);
	if (need->kernel_symbols && kallsyms_hidden())
		return prof_fail(PROF_EPERM, "kernel addresses are hidden from "
				 "this user (kernel.kptr_restrict=%d%s), so "
				 "kernel samples could not be named: run as "
				 "root, or set 'sysctl kernel.kptr_restrict=0'",
				 kptr, kptr == 1 && !has_cap(caps, CAP_SYSLOG_BIT) ?
				 ", no CAP_SYSLOG" : "");
	return 0;
}
