/*
 * libexports - shared library half of the "exports" test (built as
 * libexports.so, -fPIC -shared; exports links against it with an
 * $ORIGIN rpath).  Shaped like liblzma or libbz2: a thin exported entry
 * and the work in local procedures, so that once the library is stripped
 * to its .dynsym most samples are in code no symbol names.
 *
 * Guarantees:
 *  - exports_run(ms) is the only exported procedure: it spins
 *    MS/5 milliseconds of the calling thread's CPU time in its own
 *    instructions (line 51) and calls local_work() for 4*MS/5
 *    milliseconds (line 39): exports_run ~20%, local_work ~80%.
 *  - local_work is static, not inlined, not cloned: no .dynsym entry.
 */
#include <stdint.h>
#include <time.h>

#define CHUNK 12000 /* busy iterations between clock reads */
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })

uint64_t exports_run(unsigned ms);

volatile uint64_t libexports_sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline, noclone)) static uint64_t local_work(uint64_t end)
{
	uint64_t x = 1;

	do {
		for (int i = 0; i < CHUNK; i++)
			x = x * 6364136223846793005ull + 1, BARRIER(x); /* HOT */
	} while (cpu_ns() < end);
	return x;
}

__attribute__((noinline, noclone)) uint64_t exports_run(unsigned ms)
{
	uint64_t x = local_work(cpu_ns() + ms * 800000ull);
	uint64_t end = cpu_ns() + ms * 200000ull;

	do {
		for (int i = 0; i < CHUNK; i++)
			x = x * 2862933555777941757ull + 3, BARRIER(x); /* HOT */
	} while (cpu_ns() < end);
	libexports_sink = x;
	return x;
}
