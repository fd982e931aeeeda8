/*
 * shlib - main program whose hottest procedure is in a shared library.
 *
 * Usage: shlib [MILLISECONDS]     (default 1000, total CPU time)
 *
 * Guarantees:
 *  - main alternates lib_hot_loop(4 ms) from libhot.so and main_part(1 ms)
 *    in this executable (thread CPU time), MILLISECONDS/5 rounds (at
 *    least one): lib_hot_loop ~80%, main_part ~20% of the CPU time.
 *  - libhot.so is found through the executable's $ORIGIN rpath, so it is
 *    mapped at a non-zero, randomised base; symbolisation must subtract
 *    the load bias.
 *  - main_part's busy loop is line 41.  Single-threaded, exits 0.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define CHUNK 12000 /* busy iterations between clock reads */
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })

uint64_t lib_hot_loop(unsigned ms); /* libhot.so */

volatile uint64_t shlib_sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline, noclone)) void main_part(unsigned ms)
{
	uint64_t end = cpu_ns() + ms * 1000000ull;
	uint64_t x = 2;

	do {
		for (int i = 0; i < CHUNK; i++)
			x = x * 2862933555777941757ull + 3, BARRIER(x); /* HOT */
	} while (cpu_ns() < end);
	shlib_sink = x;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	long rounds = ms / 5 > 0 ? ms / 5 : 1;

	for (long r = 0; r < rounds; r++) {
		lib_hot_loop(4);
		main_part(1);
	}
	return 0;
}
