/* SPDX-License-Identifier: MIT */
/*
 * Can this process profile what it was asked to?  Checked before the
 * program starts, so the user gets one message saying what blocks
 * collection and what to change, instead of a bare EACCES:
 * perf_event_paranoid, missing CAP_PERFMON/CAP_SYS_ADMIN, kptr_restrict
 * hiding kernel addresses, or a container refusing perf_event_open
 * altogether.  The kernel decides: an event like the run's is opened
 * first, and the sysctls only explain a refusal (what perf_event_paranoid
 * 3 or 4 forbids differs between kernels).
 */
#ifndef COMMON_PRIVILEGE_H
#define COMMON_PRIVILEGE_H

#include <sys/types.h>

struct priv_need {
	int system_wide;	/* events on CPUs, every task */
	int kernel;		/* kernel-mode samples */
	int kernel_symbols;	/* kernel addresses must be visible */
};

/* 0, or -PROF_EPERM with a one-line detail (prof_error). */
int priv_check(const struct priv_need *need);

/*
 * Can sampling -p PID give samples?  Fails (prof_fail, one sentence)
 * for no process and a zombie; when attach (the tool samples PID's
 * tasks) also for a kernel thread, the profiler itself and a process
 * the kernel refuses this user.  tool names the profiler in messages;
 * modes are the run's; the kernel is asked only when probe is set
 * (--dry-run opens nothing).
 */
int priv_check_attach(pid_t pid, const char *tool, int attach,
		      unsigned modes, int probe);

#endif
