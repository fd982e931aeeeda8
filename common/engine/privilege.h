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

struct priv_need {
	int system_wide;	/* events on CPUs, every task */
	int kernel;		/* kernel-mode samples */
	int kernel_symbols;	/* kernel addresses must be visible */
};

/* 0, or -PROF_EPERM with a one-line detail (prof_error). */
int priv_check(const struct priv_need *need);

/*
 * Read the integer sysctl kernel.NAME from /proc/sys/kernel/NAME into *v:
 * 0, or -errno (-ENOENT: this kernel has no such setting; -EINVAL: not a
 * number).  UPROFILE_PROCSYS=DIR reads DIR/NAME instead, a testing aid:
 * tests fake a perf_event_paranoid or perf_event_max_sample_rate they
 * cannot set on a shared machine.  What the kernel allows is unchanged;
 * only the values tools report and check up front come from DIR.
 */
int priv_sysctl(const char *name, long *v);

#endif
