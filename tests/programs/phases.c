/*
 * phases - a CPU phase, a page-fault burst, another CPU phase: a workload
 * for --start-after (statistic B counted or sampled only after A occurred
 * N times).
 *
 * Usage: phases [PAGES [MILLISECONDS]]   (default 2000 pages, 300 ms)
 *
 * Guarantees:
 *  - phase_one spins MILLISECONDS of thread CPU time and touches no new
 *    memory; then fault_pages writes one byte to each of PAGES new
 *    anonymous pages (at least PAGES minor page faults, in user mode,
 *    nothing else of the program faults as much); then phase_two spins
 *    MILLISECONDS of thread CPU time.
 *  - So with --start-after page-faults:N (N <= PAGES), nothing of
 *    phase_one is counted or sampled, and page-faults counted are about
 *    the program's total minus N.
 *  - phase_one, fault_pages and phase_two are distinct, non-inlined,
 *    non-cloned global functions; single-threaded, no children, exits 0,
 *    prints nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 12000
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })

volatile uint64_t phases_sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A macro, not a function: the time must be phase_one's and phase_two's
 * own (an inlined helper would be reported as itself). */
#define SPIN(ms) do { \
	uint64_t end_ = cpu_ns() + (ms) * 1000000ull, x_ = 1; \
	while (cpu_ns() < end_) \
		for (int i_ = 0; i_ < CHUNK; i_++) \
			x_ = BARRIER(x_) * 2862933555777941757ull + 3037000493ull; \
	phases_sink = x_; \
} while (0)

__attribute__((noinline, noclone)) void phase_one(unsigned ms)
{
	SPIN(ms);
}

__attribute__((noinline, noclone)) void fault_pages(long pages)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(pages * pg), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	for (long i = 0; i < pages; i++)
		p[i * pg] = 1;
}

__attribute__((noinline, noclone)) void phase_two(unsigned ms)
{
	SPIN(ms);
}

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 2000;
	unsigned ms = argc > 2 ? (unsigned)atoi(argv[2]) : 300;

	phase_one(ms);
	fault_pages(pages);
	phase_two(ms);
	return 0;
}
