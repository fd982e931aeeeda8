/*
 * ifunc - a hot call through the PLT stub of a program's own IFUNC.
 *
 * Usage: ifunc [MILLISECONDS]   (default 1000, total CPU time)
 *
 * ifunc_step is a GNU indirect function: its resolver, resolve_step,
 * picks step_impl when the program starts.  Built as a PIE (ifunc) and
 * statically (ifunc-static), the call in ifunc_caller goes through a PLT
 * stub whose GOT slot is filled by an IRELATIVE relocation: that
 * relocation has no symbol, its addend is the resolver's address, and
 * objdump -d names the stub "*ABS*+0xRESOLVER@plt" (the PIE) or not at
 * all (the static program).  The IFUNC symbol at that address names it
 * ifunc_step@plt.
 *
 * Guarantees:
 *  - ifunc_caller calls ifunc_step (through the stub, one jump) a few
 *    thousand times between reads of the thread CPU clock, for
 *    MILLISECONDS of CPU time in all: its samples land in ifunc_caller,
 *    in step_impl (well above 1%) and in the stub ifunc_step@plt (a
 *    single jump: 0.06-0.8% of the samples, depending on the CPU and
 *    the machine's load).
 *  - single-threaded, no children, exits 0, prints nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define CHUNK 3000 /* calls between clock reads */
#define NOINLINE __attribute__((noinline, noclone))

volatile uint64_t ifunc_sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

NOINLINE static uint64_t step_impl(uint64_t x)
{
	return x * 2862933555777941757ull + 3;
}

typedef uint64_t step_fn(uint64_t);

/* The resolver runs before main (IRELATIVE), so it stays trivial. */
static step_fn *resolve_step(void)
{
	return step_impl;
}

uint64_t ifunc_step(uint64_t x) __attribute__((ifunc("resolve_step")));

NOINLINE void ifunc_caller(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;
	uint64_t x = 7;

	do {
		for (int i = 0; i < CHUNK; i++)
			x = ifunc_step(x);
	} while (cpu_ns() < end);
	ifunc_sink = x;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;

	ifunc_caller((uint64_t)(ms > 0 ? ms : 1) * 1000000u);
	return 0;
}
