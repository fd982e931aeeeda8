/*
 * phasemarks - three phases one after another in time: a workload for
 * the time stream (--time windows of a profile, tests/0510).
 *
 * Usage: phasemarks [MILLISECONDS]   (default 400)
 *
 * Guarantees:
 *  - phase_a spins MILLISECONDS of thread CPU time, then phase_b does
 *    the same, then phase_c: one after another in time, each runs only
 *    during its own phase, and nothing else of the program runs during
 *    the phases but the clock reads they spin on (libc's clock_gettime,
 *    the vDSO's; 1-3% of the samples, as in the other spinning
 *    programs).
 *  - Before each phase and after the last, it prints one line to
 *    standard output, "phase_a NS", "phase_b NS", "phase_c NS", "end NS":
 *    the wall clock (CLOCK_REALTIME, ns since the Unix epoch) at that
 *    moment, so a test can place windows inside each phase from the
 *    profile's start time (start_time_ns), whatever the start-up took.
 *    Each line is written and flushed before the phase begins.
 *  - phase_a, phase_b and phase_c are distinct, non-inlined, non-cloned
 *    global functions; single-threaded, no children, exits 0.
 *
 * Phases are measured in CPU time, so each gets the same samples however
 * busy the machine is; on a busy one a phase lasts longer on the wall
 * clock, which the printed marks say.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHUNK 12000
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })

volatile uint64_t phasemarks_sink;

/* Macros, not functions: the time must be the phase's own (a helper
 * that is not inlined would be reported as itself). */
#define CLOCK_NS(id) ({ struct timespec ts_; clock_gettime((id), &ts_); \
	(uint64_t)ts_.tv_sec * 1000000000u + (uint64_t)ts_.tv_nsec; })
#define SPIN(ms) do { \
	uint64_t end_ = CLOCK_NS(CLOCK_THREAD_CPUTIME_ID) + (ms) * 1000000ull, \
		 x_ = 1; \
	while (CLOCK_NS(CLOCK_THREAD_CPUTIME_ID) < end_) \
		for (int i_ = 0; i_ < CHUNK; i_++) \
			x_ = BARRIER(x_) * 2862933555777941757ull + 3037000493ull; \
	phasemarks_sink = x_; \
} while (0)

static void mark(const char *what)
{
	printf("%s %llu\n", what,
	       (unsigned long long)CLOCK_NS(CLOCK_REALTIME));
	fflush(stdout);
}

__attribute__((noinline, noclone)) void phase_a(unsigned ms)
{
	SPIN(ms);
}

__attribute__((noinline, noclone)) void phase_b(unsigned ms)
{
	SPIN(ms);
}

__attribute__((noinline, noclone)) void phase_c(unsigned ms)
{
	SPIN(ms);
}

int main(int argc, char **argv)
{
	unsigned ms = argc > 1 ? (unsigned)atoi(argv[1]) : 400;

	mark("phase_a");
	phase_a(ms);
	mark("phase_b");
	phase_b(ms);
	mark("phase_c");
	phase_c(ms);
	mark("end");
	return 0;
}
