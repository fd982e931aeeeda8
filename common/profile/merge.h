/* SPDX-License-Identifier: MIT */
/*
 * Profile files added up: what -i A -i B reports and --merge writes.
 * The sum is profile_merge()'s (profile.h), file after file, with its
 * refusals; the caller owns what is returned.
 */
#ifndef COMMON_PROFILE_MERGE_H
#define COMMON_PROFILE_MERGE_H

#include <stddef.h>

struct profile;
struct profile_import;

/*
 * Read files[0..n) (n >= 1; another tool's recording through imp, as
 * profile_read_from() reads them) and add them up into *out, the caller's to
 * profile_free(); with time (--time RANGE, else NULL), each file cut to
 * that window of its own run first (profile_read_window()).  Fails with
 * profile_read()'s error, profile_read_window()'s, or -PROF_EINVAL
 * "cannot add up the profiles: WHY" when profile_merge() refuses; *out
 * is then NULL.
 */
int profile_read_sum(const char *const *files, size_t n, const char *time,
		     const struct profile_import *imp, struct profile **out);
/*
 * Read path and keep only the window time of its run (NULL: all of
 * it).  -PROF_EINVAL with a detail naming path: a bad range, one past
 * the run's end, or a profile without a timeline (and why).  imp: as
 * profile_read_from() takes it.
 */
int profile_read_window(const char *path, const char *time,
			const struct profile_import *imp,
			struct profile **out);
/* The names of files joined by " + " (the sum's heading), malloc'd;
 * NULL when out of memory. */
char *profile_sum_name(const char *const *files, size_t n);

#endif
