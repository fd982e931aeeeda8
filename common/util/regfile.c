// SPDX-License-Identifier: MIT
/* Opening only regular files (contract in regfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "regfile.h"

int regfile_open(const char *path, struct stat *st)
{
	struct stat buf;
	int fd, flags, saved;

	if (!st)
		st = &buf;
	st->st_mode = 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, st)) {
		saved = errno;
		st->st_mode = 0;
		close(fd);
		errno = saved;
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	/* Regular files never block anyway; readers may expect the usual
	 * semantics (libelf, libdwarf, stdio). */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

FILE *regfile_fopen(const char *path, struct stat *st)
{
	int fd = regfile_open(path, st), saved;
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f) {
		saved = errno;
		close(fd);
		errno = saved;
	}
	return f;
}

const char *regfile_kind(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "fifo";
	if (S_ISDIR(mode))
		return "directory";
	if (S_ISCHR(mode))
		return "character device";
	if (S_ISBLK(mode))
		return "block device";
	if (S_ISSOCK(mode))
		return "socket";
	if (S_ISLNK(mode))
		return "symbolic link";
	return "special file";
}
