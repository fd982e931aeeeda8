/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "input_file.h"

static char dir[PATH_MAX - 16];
static char path[PATH_MAX];

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

const char *input_file_init(const char *target, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp",
		 target);
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	atexit(cleanup);
	return path;
}

void input_file_write(const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t done = 0;

	if (fd < 0)
		abort();
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	close(fd);
}
