/* SPDX-License-Identifier: MIT */
/*
 * JIT runtimes' perf maps, read when collection ends: node
 * --perf-basic-prof, python -X perf (3.12 and later) and the JVM's
 * perf-map-agent write /tmp/perf-PID.map for their generated code.  Each
 * process that mapped anonymous executable memory gets its map read (the
 * profiled program and every descendant), so that its JIT code has names
 * in the profile, which keeps them for later reports.
 *
 * /tmp is everyone's: a map is read only when it is a regular file, not
 * a link, owned by root, by us or by the process's owner (as perf asks).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_int.h"
#include "common/collect/collect.h"
#include "common/profile/profile.h"
#include "common/util/error.h"
#include "common/util/regfile.h"

/* A map larger than this is not read (a runaway writer). */
#define JIT_MAP_MAX ((size_t)1 << 30)

/* Whether uid may have written pid's map: root, us, the process's
 * owner (while it still runs). */
static int trusted_owner(uid_t uid, uint32_t pid)
{
	char proc[32];
	struct stat st;

	if (uid == 0 || uid == geteuid())
		return 1;
	snprintf(proc, sizeof(proc), "/proc/%" PRIu32, pid);
	return !stat(proc, &st) && st.st_uid == uid;
}

/* Read pid's map into the collector; a map that cannot be used is said
 * (one line) and left out. */
static int read_map(struct run *r, uint32_t pid)
{
	const struct run_config *c = r->cfg;
	struct prof_jitmap map;
	char path[64], *text = NULL;
	struct stat st;
	size_t len;
	int fd, err;

	snprintf(path, sizeof(path), "/tmp/perf-%" PRIu32 ".map", pid);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP)
			run_notice(c, "JIT map %s is a symbolic link: not "
				   "followed, its code stays unnamed", path);
		else if (errno != ENOENT)
			run_notice(c, "cannot read JIT map %s: %s", path,
				   strerror(errno));
		return 0;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		run_notice(c, "JIT map %s is not a regular file: ignored",
			   path);
		close(fd);
		return 0;
	}
	if (!trusted_owner(st.st_uid, pid)) {
		run_notice(c, "JIT map %s belongs to uid %u, neither root, "
			   "you nor the process: ignored", path,
			   (unsigned)st.st_uid);
		close(fd);
		return 0;
	}
	err = regfile_read_all(fd, JIT_MAP_MAX, &text, &len);
	close(fd);
	if (err && errno == ENOMEM)
		return -PROF_ENOMEM;
	if (err) {
		run_notice(c, "cannot read JIT map %s: %s: ignored", path,
			   errno == EFBIG ? "larger than 1 GiB" :
			   strerror(errno));
		return 0;
	}
	err = profile_jitmap_parse(&map, text, len);
	free(text);
	if (err)
		return err;
	if (map.bad_lines)
		run_notice(c, "JIT map %s: %zu line%s not \"START SIZE "
			   "NAME\": skipped", path, map.bad_lines,
			   map.bad_lines == 1 ? " is" : "s are");
	if (c->verbose)
		run_notice(c, "JIT map %s: %zu names of process %" PRIu32,
			   path, map.n, pid);
	err = collector_set_jit_map(r->col, pid, path, &map);
	profile_jitmap_free(&map);
	return err;
}

int run_read_jit_maps(struct run *r)
{
	uint32_t *pids;
	int n = collector_anon_pids(r->col, &pids), i, err = 0;

	if (n < 0)
		return n;
	for (i = 0; i < n && !err; i++)
		err = read_map(r, pids[i]);
	free(pids);
	return err;
}
