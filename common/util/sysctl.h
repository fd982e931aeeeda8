/* SPDX-License-Identifier: MIT */
/*
 * Kernel settings the tools report and check up front
 * (perf_event_paranoid, kptr_restrict, perf_event_max_sample_rate).
 */
#ifndef COMMON_SYSCTL_H
#define COMMON_SYSCTL_H

/*
 * Read the integer sysctl kernel.NAME from /proc/sys/kernel/NAME into *v:
 * 0, or -errno (-ENOENT: this kernel has no such setting; -EINVAL: not a
 * number).  UPROFILE_PROCSYS=DIR reads DIR/NAME instead, a testing aid:
 * tests fake a perf_event_paranoid or perf_event_max_sample_rate they
 * cannot set on a shared machine.  What the kernel allows is unchanged;
 * only the values tools report and check up front come from DIR.
 */
int sysctl_read_long(const char *name, long *v);

#endif
