/*
 * deepwait - a thread that switches out at a known depth of its user
 * stack, for the size of the stack copy taken at each switch out.
 *
 * Usage: deepwait KIB [N]   (N: 200 waits)
 *
 * Guarantees:
 *  - main calls descend(KIB); each of the KIB noinline, noclone levels
 *    of descend holds a 1 KiB buffer it writes and reads after the
 *    call below it returns, so no call is a tail call and no frame is
 *    smaller than 1 KiB: at the bottom, more than KIB KiB of stack lie
 *    between the stack pointer and main's frame;
 *  - at the bottom, wait_here sleeps 1 ms, N times (nanosleep): every
 *    switch out of the run but the process's first and last is there,
 *    under KIB frames of descend;
 *  - exits 0; a bad argument prints usage on stderr and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long waits = 200;

__attribute__((noinline, noclone)) void wait_here(void)
{
	struct timespec ts = { 0, 1000000 };
	long i;

	for (i = 0; i < waits; i++)
		nanosleep(&ts, NULL);
}

__attribute__((noinline, noclone)) int descend(int kib)
{
	volatile char buf[1024];
	int sum = 0, i;

	for (i = 0; i < (int)sizeof(buf); i += 64)
		buf[i] = (char)kib;
	if (kib > 1)
		sum = descend(kib - 1);
	else
		wait_here();
	for (i = 0; i < (int)sizeof(buf); i += 64)
		sum += buf[i];
	return sum;
}

int main(int argc, char **argv)
{
	int kib = argc > 1 ? atoi(argv[1]) : 0;

	if (argc > 2)
		waits = strtol(argv[2], NULL, 10);
	if (kib < 1 || kib > 4096 || waits < 1) {
		fprintf(stderr, "usage: deepwait KIB [N]\n");
		return 1;
	}
	return descend(kib) == -1;
}
