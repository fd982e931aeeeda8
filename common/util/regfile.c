// SPDX-License-Identifier: MIT
/* Opening only regular files (contract in regfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "regfile.h"

/* path opened inside root, as if root were / (RESOLVE_IN_ROOT: "..",
 * absolute paths and links all stay inside it; no /proc magic link is
 * followed).  NULL or "/": our own root. */
static int open_in(const char *root, const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)flags,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int dir, fd, saved;

	if (!root || !strcmp(root, "/"))
		return open(path, flags);
	dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -1;
	fd = (int)syscall(SYS_openat2, dir, path, &how, sizeof(how));
	saved = errno;
	close(dir);
	errno = saved;
	return fd;
}

int regfile_open(const char *path, struct stat *st)
{
	return regfile_open_in(NULL, path, st);
}

/* The regular file that pathfd (O_PATH) is, opened for reading: through
 * /proc/self/fd, which reopens that very inode, never a name again. */
static int reopen(int pathfd)
{
	char proc[40];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pathfd);
	return open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY);
}

int regfile_open_in(const char *root, const char *path, struct stat *st)
{
	struct stat buf;
	int pathfd, fd, saved;

	if (!st)
		st = &buf;
	st->st_mode = 0;
	/* O_PATH first: opening a device or a FIFO to look at it can have
	 * effects (a watchdog armed, a tape rewound, a reader waited for);
	 * looking at an O_PATH descriptor has none. */
	pathfd = open_in(root, path, O_PATH | O_CLOEXEC);
	if (pathfd < 0)
		return -1;
	if (fstat(pathfd, st)) {
		saved = errno;
		st->st_mode = 0;
		close(pathfd);
		errno = saved;
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		close(pathfd);
		errno = EINVAL;
		return -1;
	}
	fd = reopen(pathfd);
	saved = errno;
	close(pathfd);
	errno = saved;
	return fd;
}

FILE *regfile_fopen(const char *path, struct stat *st)
{
	return regfile_fopen_in(NULL, path, st);
}

FILE *regfile_fopen_in(const char *root, const char *path, struct stat *st)
{
	int fd = regfile_open_in(root, path, st), saved;
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

int regfile_read_all(int fd, size_t max, char **out, size_t *len)
{
	struct stat st;
	size_t size, n = 0;
	char *buf;

	*out = NULL;
	*len = 0;
	if (fstat(fd, &st))
		return -1;
	if (st.st_size < 0 || (uint64_t)st.st_size > max) {
		errno = EFBIG;
		return -1;
	}
	size = (size_t)st.st_size;
	buf = malloc(size + 1);
	if (!buf) {
		errno = ENOMEM;
		return -1;
	}
	while (n < size) {
		ssize_t r = pread(fd, buf + n, size - n, (off_t)n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (!r)
				errno = EIO;
			free(buf);
			return -1;
		}
		n += (size_t)r;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
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

int regfile_pread(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, (char *)buf + done, len - done,
				  (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (!r)
				errno = EIO;
			return -1;
		}
		done += (size_t)r;
	}
	return 0;
}
