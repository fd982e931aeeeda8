/*
 * fsyncer - a writer that waits for its disk: write and fsync in a loop.
 *
 * Usage: fsyncer FILE [MILLISECONDS]   (default 500)
 *
 * Guarantees:
 *  - one thread; for MILLISECONDS of CLOCK_MONOTONIC time it calls
 *    sync_write (noinline, noclone) over and over, which overwrites 4 KiB
 *    of FILE at a new offset (within the first 16 MiB) and fsync()s it:
 *    on a file system on a block device each fsync waits for the device
 *    (the kernel's uninterruptible sleep, state D).
 *  - prints "fsyncs N ns T" to stdout: N calls took T ns in all, measured
 *    around the calls.
 *  - FILE is left behind (the caller removes it).
 *  - exits 0 (errors go to stderr, exit 1).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline, noclone)) int sync_write(int fd, const char *buf,
						  off_t off)
{
	if (pwrite(fd, buf, 4096, off) != 4096)
		return -1;
	return fsync(fd);
}

int main(int argc, char **argv)
{
	static char buf[4096];
	uint64_t t0, end, in = 0;
	long ms = argc > 2 ? atol(argv[2]) : 500, n = 0;
	int fd;

	if (argc < 2 || argc > 3 || ms <= 0) {
		fprintf(stderr, "usage: fsyncer FILE [MILLISECONDS]\n");
		return 1;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	t0 = now();
	end = t0 + (uint64_t)ms * 1000000u;
	do {
		uint64_t t = now();

		memset(buf, (int)(n & 0xff), sizeof(buf));
		if (sync_write(fd, buf, (off_t)(n % 4096) * 4096)) {
			perror("write/fsync");
			return 1;
		}
		in += now() - t;
		n++;
	} while (now() < end);
	close(fd);
	printf("fsyncs %ld ns %llu\n", n, (unsigned long long)in);
	return 0;
}
