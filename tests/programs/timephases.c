/*
 * timephases - three phases one after another in wall-clock time, a
 * workload for -timeline: which procedure is hot when.
 *
 * Usage: timephases [MILLISECONDS]   (default 400, per phase)
 *
 * Guarantees:
 *  - phase_a, then phase_b, then phase_c each spin until MILLISECONDS of
 *    CLOCK_MONOTONIC (wall time, not CPU time) have passed since it
 *    started and it has had an eighth of that in CPU time of its own
 *    (CLOCK_THREAD_CPUTIME_ID).  So on a machine that gives the program
 *    an eighth of a CPU or more, the three take equal thirds of its run
 *    in time, in this order, and whatever CPU time the program gets in a
 *    third is spent in that third's phase (clock reads aside: under 1%
 *    of the samples, in libc or the vDSO); on a machine that gives it
 *    less, each phase still has its samples, in this order.
 *  - the three are distinct, non-inlined, non-cloned global functions;
 *    single-threaded, no children, touches no new memory, exits 0,
 *    prints nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define CHUNK 12000 /* busy iterations between clock reads */
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })

volatile uint64_t timephases_sink;

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A macro, not a function: the time must be each phase's own (an
 * inlined helper would be reported as itself).  Until ms of wall time
 * and ms / 8 of the thread's CPU time. */
#define SPIN(ms, seed) do { \
	uint64_t end_ = clock_ns(CLOCK_MONOTONIC) + (ms) * 1000000ull; \
	uint64_t cpu_ = clock_ns(CLOCK_THREAD_CPUTIME_ID) + \
			(ms) * 1000000ull / 8, x_ = (seed); \
	do \
		for (int i_ = 0; i_ < CHUNK; i_++) \
			x_ = BARRIER(x_) * 6364136223846793005ull + 1; \
	while (clock_ns(CLOCK_MONOTONIC) < end_ || \
	       clock_ns(CLOCK_THREAD_CPUTIME_ID) < cpu_); \
	timephases_sink = x_; \
} while (0)

__attribute__((noinline, noclone)) void phase_a(unsigned ms)
{
	SPIN(ms, 1);
}

__attribute__((noinline, noclone)) void phase_b(unsigned ms)
{
	SPIN(ms, 2);
}

__attribute__((noinline, noclone)) void phase_c(unsigned ms)
{
	SPIN(ms, 3);
}

int main(int argc, char **argv)
{
	unsigned ms = argc > 1 ? (unsigned)atoi(argv[1]) : 400;

	phase_a(ms);
	phase_b(ms);
	phase_c(ms);
	return 0;
}
