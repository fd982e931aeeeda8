/* SPDX-License-Identifier: MIT */
/*
 * JIT runtimes' names for their generated code, read when collection
 * ends, for every process that mapped anonymous executable memory (the
 * profiled program and every descendant), so that the profile keeps
 * them for later reports:
 *  - perf maps, /tmp/perf-PID.map: node --perf-basic-prof, python -X perf
 *    (3.12 and later), the JVM's perf-map-agent;
 *  - jitdump files, jit-PID.dump wherever the runtime wrote it (it maps
 *    the file, the collector notes the path): node --perf-prof, the
 *    JVM's and .NET's agents, wasmtime --profile=jitdump.
 *
 * /tmp is everyone's, a jitdump's directory the runtime's: a file is read
 * only when it is a regular file reached through no symbolic link, owned
 * by root, by us or by the process's owner (as perf asks), noted while
 * the process ran.  A container's jitdump is read through the
 * descriptor the collector kept, opened inside the container's root.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "run_int.h"
#include "common/collect/collect.h"
#include "common/profile/profile.h"
#include "common/util/error.h"
#include "common/util/regfile.h"

/* A file larger than this is not read (a runaway writer). */
#define JIT_MAP_MAX ((size_t)1 << 30)

/* Whether uid may have written pid's map: root, us, or the process's
 * owner as noted while it ran (not /proc/PID now: the process is gone,
 * or its pid is another's). */
static int trusted_owner(const struct run *r, uid_t uid, uint32_t pid)
{
	uint32_t owner;

	if (uid == 0 || uid == geteuid())
		return 1;
	return !collector_owner(r->col, pid, &owner) && owner == uid;
}

/*
 * Open path for reading with no symbolic link anywhere on the way
 * (openat2's RESOLVE_NO_SYMLINKS: a jitdump's directory is the
 * runtime's, /tmp is everyone's); where the kernel has no openat2, no
 * link as the last component.  FIFOs do not block (O_NONBLOCK).
 */
static int open_no_links(const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS,
	};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
		return fd;
	return open(path, (int)how.flags);
}

/*
 * Read the WHAT (perf map, jitdump) pid's runtime wrote at path, or
 * through fd (>= 0: a file of another mount namespace, open already).
 * Returns 0 with the bytes in *buf (malloc'd), 1 when there is nothing
 * to use (said in one line, unless the file does not exist), or
 * -PROF_ENOMEM.
 */
static int read_trusted(struct run *r, const char *what, const char *path,
			uint32_t pid, int fd, char **buf, size_t *len)
{
	const struct run_config *c = r->cfg;
	struct stat st;
	int err;

	fd = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : open_no_links(path);
	if (fd < 0) {
		if (errno == ELOOP)
			run_notice(c, "%s %s is, or is reached through, a "
				   "symbolic link: not followed, its code "
				   "stays unnamed", what, path);
		else if (errno != ENOENT)
			run_notice(c, "cannot read %s %s: %s", what, path,
				   strerror(errno));
		return 1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		run_notice(c, "%s %s is not a regular file: ignored", what,
			   path);
		close(fd);
		return 1;
	}
	if (!trusted_owner(r, st.st_uid, pid)) {
		run_notice(c, "%s %s belongs to uid %u, neither root, you "
			   "nor the process: ignored", what, path,
			   (unsigned)st.st_uid);
		close(fd);
		return 1;
	}
	err = regfile_read_all(fd, JIT_MAP_MAX, buf, len);
	close(fd);
	if (err && errno == ENOMEM)
		return -PROF_ENOMEM;
	if (err) {
		run_notice(c, "cannot read %s %s: %s: ignored", what, path,
			   errno == EFBIG ? "larger than 1 GiB" :
			   strerror(errno));
		return 1;
	}
	return 0;
}

/* pid's perf map into *map: 1 when there is one (it may name nothing),
 * 0 when not, or -PROF_ENOMEM. */
static int read_perf_map(struct run *r, uint32_t pid, char *path,
			 size_t size, struct prof_jitmap *map)
{
	char *text;
	size_t len;
	int err;

	snprintf(path, size, "/tmp/perf-%" PRIu32 ".map", pid);
	err = read_trusted(r, "JIT map", path, pid, -1, &text, &len);
	if (err)
		return err < 0 ? err : 0;
	err = profile_jitmap_parse(map, text, len);
	free(text);
	if (err)
		return err;
	if (map->bad_lines)
		run_notice(r->cfg, "JIT map %s: %zu line%s not \"START SIZE "
			   "NAME\": skipped", path, map->bad_lines,
			   map->bad_lines == 1 ? " is" : "s are");
	return 1;
}

/* pid's jitdump into *map, as read_perf_map(). */
static int read_jitdump(struct run *r, uint32_t pid, const char *path, int fd,
			struct prof_jitmap *map)
{
	const char *why;
	char *buf;
	size_t len;
	int err;

	err = read_trusted(r, "jitdump", path, pid, fd, &buf, &len);
	if (err)
		return err < 0 ? err : 0;
	err = profile_jitdump_parse(map, (const unsigned char *)buf, len,
				    &why);
	if (err) {
		free(buf);
		return err;
	}
	if (why) {
		free(buf);
		run_notice(r->cfg, "jitdump %s %s: ignored", path, why);
		return 0;
	}
	/* Its entries' code and debug records point into it. */
	map->buf = (uint8_t *)buf;
	if (map->bad_lines)
		run_notice(r->cfg, "jitdump %s: %zu code record%s not be "
			   "used (no code, or a move of code never loaded): "
			   "skipped", path, map->bad_lines,
			   map->bad_lines == 1 ? " could" : "s could");
	if (map->bad_debug)
		run_notice(r->cfg, "jitdump %s: %zu debug record%s not hold "
			   "%s entries: the code %s has no source lines",
			   path, map->bad_debug,
			   map->bad_debug == 1 ? " does" : "s do",
			   map->bad_debug == 1 ? "its" : "their",
			   map->bad_debug == 1 ? "it describes" :
			   "they describe");
	if (map->cut)
		run_notice(r->cfg, "jitdump %s ends in a record cut short "
			   "(its writer stopped while writing it, or is "
			   "still writing): that record is not read", path);
	return 1;
}

/* Name pid's JIT code after its perf map and jitdump (both when it
 * wrote both); a file that cannot be used is said and left out. */
static int read_names(struct run *r, uint32_t pid)
{
	struct prof_jitmap map, dump;
	char map_path[64];
	int fd, has_map, has_dump = 0, err;
	const char *dump_path = collector_jitdump(r->col, pid, &fd);

	memset(&map, 0, sizeof(map));
	memset(&dump, 0, sizeof(dump));
	has_map = read_perf_map(r, pid, map_path, sizeof(map_path), &map);
	if (has_map < 0)
		return has_map;
	if (dump_path)
		has_dump = read_jitdump(r, pid, dump_path, fd, &dump);
	err = has_dump < 0 ? has_dump : 0;
	if (!err && has_map && has_dump)
		err = profile_jitmap_merge(&dump, &map);
	if (!err && r->cfg->verbose && (has_map || has_dump))
		run_notice(r->cfg, "JIT names of process %" PRIu32 ": %zu "
			   "from %s%s%s", pid, has_dump ? dump.n : map.n,
			   has_dump ? dump_path : map_path,
			   has_map && has_dump ? " and " : "",
			   has_map && has_dump ? map_path : "");
	if (!err && (has_map || has_dump))
		err = collector_set_jit_map(r->col, pid,
					    has_dump ? dump_path : map_path,
					    has_dump ? &dump : &map);
	profile_jitmap_free(&map);
	profile_jitmap_free(&dump);
	return err;
}

int run_read_jit_maps(struct run *r)
{
	uint32_t *pids;
	int n = collector_anon_pids(r->col, &pids), i, err = 0;

	if (n < 0)
		return n;
	for (i = 0; i < n && !err; i++)
		err = read_names(r, pids[i]);
	free(pids);
	return err;
}
