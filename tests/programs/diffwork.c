/*
 * diffwork - a program built twice to test --diff: once as is
 * (diffwork) and once with -DSLOW=1 (diffwork-slow), where procedure b
 * does three times the work.  Each round spends thread CPU time
 *
 *             a      b      c
 *   base    1 ms   1 ms   2 ms     shares 25%, 25%, 50%
 *   SLOW    1 ms   3 ms   2 ms     shares 16.7%, 50%, 33.3%
 *
 * so between the two b's share grows by 25 points, a's falls by 8.33
 * and c's by 16.67 (of the samples in a, b and c; clock reads take the
 * rest, a percent or two).
 *
 * Usage: diffwork [MILLISECONDS]   (default 1000: rounds of the base
 * build's 4 ms; the slow build runs as many rounds, 6 ms each)
 *
 * The time is spent in each function's own instructions: a busy loop of
 * multiply-adds between two reads of the thread CPU clock, as in callers.
 * Single-threaded, exits 0, prints nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#ifndef SLOW
#define SLOW 0
#endif

#define CHUNK 40000 /* busy iterations between clock reads */
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })
#define NOINLINE __attribute__((noinline, noclone))

volatile uint64_t diffwork_sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define SPIN(ns, seed)							\
	do {								\
		uint64_t end_ = cpu_ns() + (ns);			\
		uint64_t x_ = (seed);					\
		do {							\
			for (int i_ = 0; i_ < CHUNK; i_++)		\
				x_ = x_ * 6364136223846793005ull + 1,	\
				BARRIER(x_);				\
		} while (cpu_ns() < end_);				\
		diffwork_sink = x_;					\
	} while (0)

NOINLINE void a(uint64_t ns)
{
	SPIN(ns, 1);
}

NOINLINE void b(uint64_t ns)
{
	SPIN((SLOW ? 3 : 1) * ns, 2);
}

NOINLINE void c(uint64_t ns)
{
	SPIN(2 * ns, 3);
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	long rounds = ms / 4 > 0 ? ms / 4 : 1;

	for (long r = 0; r < rounds; r++) {
		a(1000000);
		b(1000000);
		c(1000000);
	}
	return 0;
}
