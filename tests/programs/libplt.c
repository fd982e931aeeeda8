/*
 * libplt - shared library half of the "plt" test (built as libplt.so
 * with frame pointers and libplt-nofp.so without, -O2 -fPIC -shared;
 * plt and plt-nofp link against them with an $ORIGIN rpath).
 *
 * Guarantees (exported, noinline, noclone functions):
 *  - lib_spin(ns) spins for NS of the calling thread's CPU time in its
 *    own instructions;
 *  - lib_tiny(x) is a few instructions, for a caller to call millions of
 *    times through its PLT;
 *  - lib_apply(fn, ns) calls fn(ns) once and returns after it (not a tail
 *    call), so fn's stacks hold lib_apply between fn and lib_apply's
 *    caller.
 */
#include <stdint.h>
#include <time.h>

#define CHUNK 12000 /* busy iterations between clock reads */
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })
#define NOINLINE __attribute__((noinline, noclone))

uint64_t lib_spin(uint64_t ns);
uint64_t lib_tiny(uint64_t x);
void lib_apply(void (*fn)(uint64_t), uint64_t ns);

volatile uint64_t libplt_sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

NOINLINE uint64_t lib_spin(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;
	uint64_t x = 1;

	do {
		for (int i = 0; i < CHUNK; i++)
			x = x * 6364136223846793005ull + 1, BARRIER(x);
	} while (cpu_ns() < end);
	libplt_sink = x;
	return x;
}

NOINLINE uint64_t lib_tiny(uint64_t x)
{
	return x * 3 + 1;
}

NOINLINE void lib_apply(void (*fn)(uint64_t), uint64_t ns)
{
	fn(ns);
	libplt_sink++;
}
