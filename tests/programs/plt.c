/*
 * plt - call stacks through a shared library and its PLT, built with
 * frame pointers (plt, linked with libplt.so) and without (plt-nofp,
 * linked with libplt-nofp.so), both -O2.
 *
 * Usage: plt [MILLISECONDS]   (default 2000, total CPU time)
 *
 * main runs MILLISECONDS/10 rounds (at least one) of 10 ms of thread CPU
 * time each; every call below goes from one object to the other through
 * the caller's PLT (noinline, noclone, no tail calls):
 *
 *   main -> via_a -> lib_spin (libplt)          1 ms   10%
 *   main -> via_b -> lib_spin (libplt)          3 ms   30%
 *     so lib_spin's callers are via_a 25%, via_b 75% of its samples.
 *   main -> tiny_caller -> lib_tiny@plt (plt) -> lib_tiny (libplt)
 *                                               3 ms   30%
 *     tiny_caller calls lib_tiny millions of times, so samples land in
 *     tiny_caller, in the PLT stub lib_tiny@plt (a jump, no frame) and in
 *     lib_tiny (no frame either): the caller of both is tiny_caller.
 *   main -> apply_caller -> lib_apply (libplt) -> cb_work (plt)
 *                                               3 ms   30%
 *     a callback from the library back into the executable.
 *
 * Time is spent as in spin2 (busy chunks of ~20 us between reads of the
 * thread CPU clock).  Single-threaded, exits 0, prints nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define CHUNK 12000 /* busy iterations between clock reads */
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })
#define NOINLINE __attribute__((noinline, noclone))

uint64_t lib_spin(uint64_t ns);			/* libplt.so */
uint64_t lib_tiny(uint64_t x);
void lib_apply(void (*fn)(uint64_t), uint64_t ns);

volatile uint64_t plt_sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The volatile store after each call keeps it from being a tail call. */
NOINLINE void via_a(uint64_t ns)
{
	plt_sink += lib_spin(ns);
}

NOINLINE void via_b(uint64_t ns)
{
	plt_sink += lib_spin(ns);
}

NOINLINE void tiny_caller(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;
	uint64_t x = 5;

	do {
		for (int i = 0; i < CHUNK / 4; i++)
			x = lib_tiny(x);
	} while (cpu_ns() < end);
	plt_sink = x;
}

NOINLINE void cb_work(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;
	uint64_t x = 2;

	do {
		for (int i = 0; i < CHUNK; i++)
			x = x * 2862933555777941757ull + 3, BARRIER(x);
	} while (cpu_ns() < end);
	plt_sink = x;
}

NOINLINE void apply_caller(uint64_t ns)
{
	lib_apply(cb_work, ns);
	plt_sink++;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 2000;
	long rounds = ms / 10 > 0 ? ms / 10 : 1;
	const uint64_t ms_ns = 1000000u;

	for (long r = 0; r < rounds; r++) {
		via_a(1 * ms_ns);
		via_b(3 * ms_ns);
		tiny_caller(3 * ms_ns);
		apply_caller(3 * ms_ns);
	}
	return 0;
}
