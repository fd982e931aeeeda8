/*
 * libhot - shared library half of the "shlib" test (built as libhot.so,
 * -fPIC -shared; shlib links against it with an $ORIGIN rpath).
 *
 * Guarantees:
 *  - lib_hot_loop(ms) is an exported, non-inlined function that spins for
 *    MS milliseconds of the calling thread's CPU time inside its own
 *    instructions (the busy loop is line 36; clock reads are a few
 *    percent).  shlib calls it for ~80% of its CPU time.
 */
#include <stdint.h>
#include <time.h>

#define CHUNK 12000 /* busy iterations between clock reads */
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })

uint64_t lib_hot_loop(unsigned ms);

volatile uint64_t libhot_sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline, noclone)) uint64_t lib_hot_loop(unsigned ms)
{
	uint64_t end = cpu_ns() + ms * 1000000ull;
	uint64_t x = 1;

	do {
		for (int i = 0; i < CHUNK; i++)
			x = x * 6364136223846793005ull + 1, BARRIER(x); /* HOT */
	} while (cpu_ns() < end);
	libhot_sink = x;
	return x;
}
