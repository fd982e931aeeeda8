/*
 * inline - a hot loop that lives in an inlined function.
 *
 * Usage: inline [MILLISECONDS]    (default 1000, total CPU time)
 *
 * Built with -O2 -g (see the Makefile), so the symbol table knows only
 * outer_driver, cold_part and main; the DWARF inline records say that
 * most of outer_driver's code came from inner_kernel.
 *
 * Guarantees:
 *  - inner_kernel is static inline always_inline: it has no symbol of its
 *    own.  It is inlined into outer_driver (noinline, noclone).
 *  - outer_driver (with its inlined inner_kernel) uses ~90% of the CPU
 *    time and cold_part (noinline, noclone) ~10%: main alternates
 *    outer_driver(9 ms) and cold_part(1 ms) of thread CPU time,
 *    MILLISECONDS/10 rounds (at least one).
 *  - the hot source lines (each busy loop is written on one line):
 *      line 45, in inner_kernel, ~90% of samples (the symbol containing
 *        those instructions is outer_driver);
 *      line 66, in cold_part, ~10%.
 *    The clock reads (cpu_ns, lines 38-39, inlined at -O2, plus libc and
 *    the kernel) take only a few percent.
 *  - single-threaded, exits 0, prints nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define CHUNK 12000 /* busy iterations between clock reads */
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })

volatile uint64_t inline_sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline __attribute__((always_inline)) uint64_t
inner_kernel(uint64_t x)
{
	for (int i = 0; i < CHUNK; i++) x = x * 6364136223846793005ull + 1, BARRIER(x); /* HOT */
	return x;
}

__attribute__((noinline, noclone)) void outer_driver(unsigned ms)
{
	uint64_t end = cpu_ns() + ms * 1000000ull;
	uint64_t x = 1;

	do
		x = inner_kernel(x);
	while (cpu_ns() < end);
	inline_sink = x;
}

__attribute__((noinline, noclone)) void cold_part(unsigned ms)
{
	uint64_t end = cpu_ns() + ms * 1000000ull;
	uint64_t x = 2;

	do {
		for (int i = 0; i < CHUNK; i++) x = x * 2862933555777941757ull + 3, BARRIER(x); /* 10% */
	} while (cpu_ns() < end);
	inline_sink = x;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	long rounds = ms / 10 > 0 ? ms / 10 : 1;

	for (long r = 0; r < rounds; r++) {
		outer_driver(9);
		cold_part(1);
	}
	return 0;
}
