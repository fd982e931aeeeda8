/*
 * kernelloop - a workload that spends most of its time in the kernel.
 *
 * Usage: kernelloop [-v] [read|syscall] [SECONDS]   (default: read 1)
 *
 *   read     read_loop: read /dev/zero in 1 MiB blocks and write each
 *            block to /dev/null, for SECONDS of wall time.  > 90% of the
 *            samples are in the kernel's /dev/zero read path (read_zero,
 *            or clear_user / read_iter_zero depending on the kernel
 *            version); /dev/null writes are nearly free.
 *   syscall  syscall_loop: call syscall(SYS_getppid) (never cached by
 *            libc) in a tight loop for SECONDS of wall time.  Samples are
 *            in the kernel's syscall entry/exit path and sys_getppid, and
 *            in libc's syscall() wrapper: about half of the samples are
 *            in kernel mode (the user share is the wrapper, the loop and
 *            the return to user mode).
 *
 * Guarantees: single process and thread, CPU-bound (no sleeping); in
 * read mode nearly all the time is in kernel mode.  read_loop and
 * syscall_loop are noinline, noclone functions.  The clock is checked
 * only every 64 blocks / 4096 calls.  Exits 0 (with -v first, prints the
 * iteration count on stderr); 2 on bad usage, 1 on I/O error.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BLOCK (1 << 20)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline, noclone)) long read_loop(double secs)
{
	static char buf[BLOCK];
	int in = open("/dev/zero", O_RDONLY);
	int out = open("/dev/null", O_WRONLY);
	double end = now() + secs;
	long blocks = 0;

	if (in < 0 || out < 0) {
		perror("kernelloop: open");
		exit(1);
	}
	do {
		for (int i = 0; i < 64; i++, blocks++) {
			if (read(in, buf, BLOCK) != BLOCK ||
			    write(out, buf, BLOCK) != BLOCK) {
				perror("kernelloop: read/write");
				exit(1);
			}
		}
	} while (now() < end);
	close(in);
	close(out);
	return blocks;
}

__attribute__((noinline, noclone)) long syscall_loop(double secs)
{
	double end = now() + secs;
	long calls = 0;

	do {
		for (int i = 0; i < 4096; i++, calls++)
			syscall(SYS_getppid);
	} while (now() < end);
	return calls;
}

int main(int argc, char **argv)
{
	int verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
	const char *mode = argc > 1 + verbose ? argv[1 + verbose] : "read";
	double secs = argc > 2 + verbose ? atof(argv[2 + verbose]) : 1.0;
	long n;

	if (strcmp(mode, "read") == 0)
		n = read_loop(secs);
	else if (strcmp(mode, "syscall") == 0)
		n = syscall_loop(secs);
	else {
		fprintf(stderr, "usage: kernelloop [-v] [read|syscall] [SECONDS]\n");
		return 2;
	}
	if (verbose)
		fprintf(stderr, "kernelloop: %s: %ld iterations\n", mode, n);
	return 0;
}
