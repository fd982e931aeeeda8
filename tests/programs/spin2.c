/*
 * spin2 - two hot procedures with a known 75/25 split of CPU time.
 *
 * Usage: spin2 [MILLISECONDS]     (default 1000, total CPU time)
 *
 * Guarantees:
 *  - hot_a and hot_b are distinct, non-inlined, non-cloned global
 *    functions; together they use > 95% of the process's CPU time.
 *  - hot_a uses 75% and hot_b 25% of that time: main alternates
 *    hot_a(3 ms) and hot_b(1 ms) of thread CPU time, MILLISECONDS/4
 *    rounds (at least one), so the ratio holds throughout the run.
 *  - the time is spent in each function's own instructions: a busy
 *    arithmetic loop runs a few thousand iterations (~20 us) between two
 *    reads of the CPU clock, so clock_gettime (libc/vdso/kernel) gets
 *    only a few percent of the samples.
 *  - the hot lines are the two lines marked "HOT": line 45 (hot_a, ~75%)
 *    and line 57 (hot_b, ~25%), each a whole inner loop (see there).
 *  - single-threaded, no children, exits 0, prints nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define CHUNK 12000 /* busy iterations between clock reads */
/* An expression that keeps the compiler from folding the busy loop. */
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })

volatile uint64_t spin2_sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline, noclone)) void hot_a(unsigned ms)
{
	uint64_t end = cpu_ns() + ms * 1000000ull;
	uint64_t x = 1;

	do {
		/* One line: where samples land in a loop varies by CPU. */
		for (int i = 0; i < CHUNK; i++) x = x * 6364136223846793005ull + 1, BARRIER(x); /* HOT */
	} while (cpu_ns() < end);
	spin2_sink = x;
}

__attribute__((noinline, noclone)) void hot_b(unsigned ms)
{
	uint64_t end = cpu_ns() + ms * 1000000ull;
	uint64_t x = 2;

	do {
		/* One line: where samples land in a loop varies by CPU. */
		for (int i = 0; i < CHUNK; i++) x = x * 2862933555777941757ull + 3, BARRIER(x); /* HOT */
	} while (cpu_ns() < end);
	spin2_sink = x;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	long rounds = ms / 4 > 0 ? ms / 4 : 1;

	for (long r = 0; r < rounds; r++) {
		hot_a(3);
		hot_b(1);
	}
	return 0;
}
