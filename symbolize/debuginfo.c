// SPDX-License-Identifier: MIT
/*
 * Finding the separate debug file of an object, the way gdb and
 * binutils do: by build-id under the debug dirs and the debug root, then
 * by .gnu_debuglink next to the object, in its .debug/ directory and
 * under each of the roots.
 * Debuglink candidates are only accepted when their CRC32 matches, so a
 * stale debug file never gives wrong lines.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common/util/buildid.h"
#include "symbolize_int.h"

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static bool crc_matches(struct inputs *in, const char *path, uint32_t want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0L, Z_NULL, 0);
	ssize_t n;
	int fd = inputs_open(in, path);

	if (fd < 0)
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, (uInt)n);
	close(fd);
	return n == 0 && (uint32_t)crc == want;
}

static bool build_id_matches(struct inputs *in, const char *path,
			     const struct elfmeta *meta)
{
	uint8_t id[64];
	int n, fd = inputs_open(in, path);

	if (fd < 0)
		return false;
	n = buildid_read_fd(fd, id, sizeof(id));
	close(fd);
	return n > 0 && (size_t)n == meta->build_id_len &&
	       !memcmp(id, meta->build_id, (size_t)n);
}

static char *by_build_id(struct inputs *in, const struct elfmeta *meta,
			 const char *root)
{
	char *path = buildid_debug_path(root, meta->build_id,
					meta->build_id_len);

	if (!path)
		return NULL;
	if (access(path, R_OK) == 0 && build_id_matches(in, path, meta))
		return path;
	free(path);
	return NULL;
}

static char *try_link(struct inputs *in, const char *objpath,
		      const char *a, const char *b, const char *c,
		      const struct elfmeta *meta)
{
	char *path;

	if (asprintf(&path, "%s%s%s", a, b, c) < 0)
		return NULL;
	if (access(path, R_OK) == 0 && !same_file(path, objpath) &&
	    crc_matches(in, path, meta->debuglink_crc))
		return path;
	free(path);
	return NULL;
}

/* The directory of path with its trailing slash, in buf; NULL if none. */
static const char *dir_of(const char *path, char *buf, size_t size,
			  bool real)
{
	char *slash;

	if (!real || !realpath(path, buf)) {
		if (strlen(path) >= size)
			return NULL;
		strcpy(buf, path);
	}
	slash = strrchr(buf, '/');
	if (!slash)
		return "./";
	slash[1] = '\0';
	return buf;
}

char *debuginfo_find(struct inputs *in, const char *path,
		     const char *recorded, const struct elfmeta *meta,
		     const char *const *dirs, size_t ndirs,
		     const char *debug_root)
{
	char real[PATH_MAX], rec[PATH_MAX], *found = NULL;
	const char *dir, *rdir;
	size_t i;

	if (!debug_root)
		debug_root = "/usr/lib/debug";
	for (i = 0; i < ndirs && !found; i++)
		found = by_build_id(in, meta, dirs[i]);
	if (!found)
		found = by_build_id(in, meta, debug_root);
	if (found || !path || !meta->debuglink ||
	    strchr(meta->debuglink, '/'))
		return found;
	/* The debuglink is relative to the object's real directory. */
	dir = dir_of(path, real, sizeof(real), true);
	if (!dir)
		return NULL;
	found = try_link(in, path, dir, "", meta->debuglink, meta);
	if (!found)
		found = try_link(in, path, dir, ".debug/", meta->debuglink, meta);
	/* Under a root, the directory the profile recorded (the object
	 * may be read from a copy elsewhere, --symfs). */
	rdir = recorded && recorded != path ?
	       dir_of(recorded, rec, sizeof(rec), false) : dir;
	if (!rdir || rdir[0] != '/')
		return found;
	for (i = 0; i <= ndirs && !found; i++) {
		char *rooted;

		if (asprintf(&rooted, "%s%s", i < ndirs ? dirs[i] : debug_root,
			     rdir) < 0)
			return NULL;
		found = try_link(in, path, rooted, "", meta->debuglink, meta);
		free(rooted);
	}
	return found;
}
