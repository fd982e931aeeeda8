/*
 * deeprec - a stack deeper than the kernel's copy of it in a sample.
 *
 * Usage: deeprec DEPTH MS
 *
 * Guarantees:
 *  - main calls rec(DEPTH), which calls rec(DEPTH - 1) ... rec(0), each
 *    with 2 KiB of locals (used, so that they stay): DEPTH 60 makes
 *    about 120 KiB of stack, past the 64 KiB a sample can copy;
 *  - rec(0) calls spin, which spins MS ms of wall time: nearly every
 *    sample is in spin (or clock_gettime) under DEPTH + 1 rec frames;
 *  - a bad argument prints usage on stderr and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

__attribute__((noinline)) static void spin(double end)
{
	while (now_ms() < end)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i;
}

__attribute__((noinline)) static void rec(int n, double end)
{
	char buf[2048];

	memset(buf, n, sizeof(buf));
	sink += (unsigned long)buf[n % 2048];
	if (n)
		rec(n - 1, end);
	else
		spin(end);
	sink += (unsigned long)buf[(n * 7) % 2048];
}

int main(int argc, char **argv)
{
	int depth = argc == 3 ? atoi(argv[1]) : -1;
	double ms = argc == 3 ? atof(argv[2]) : -1;

	if (depth < 0 || depth > 100000 || ms < 0) {
		fprintf(stderr, "usage: deeprec DEPTH MS\n");
		return 1;
	}
	rec(depth, now_ms() + ms);
	return 0;
}
