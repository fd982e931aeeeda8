/*
 * callers - call stacks known by construction: one leaf called from three
 * callers in fixed proportions, a recursion of known depth, and a qsort
 * callback.  Built with frame pointers (callers) and without
 * (callers-nofp), both -O2.
 *
 * Usage: callers [MILLISECONDS]   (default 2000, total CPU time)
 *
 * main runs MILLISECONDS/16 rounds (at least one) of 16 ms of thread CPU
 * time each; every edge below is a real call (noinline, noclone, and no
 * tail call: each caller does something after its callee returns):
 *
 *   main -> caller_a -> leaf_work     1 ms    6.25%
 *   main -> caller_b -> leaf_work     2 ms   12.5%
 *   main -> caller_c -> leaf_work     5 ms   31.25%
 *     so leaf_work's callers are caller_a 12.5%, caller_b 25%,
 *     caller_c 62.5% of its samples (1:2:5).
 *   main -> recurse(1) -> recurse(2) -> ... -> recurse(8) -> rec_leaf
 *     each recurse level spins 0.25 ms itself (2 ms, 12.5%), rec_leaf
 *     2 ms (12.5%): every rec_leaf stack holds exactly 8 recurse frames,
 *     and recurse's own samples are spread evenly over the 8 depths
 *     (12.5% each), whose frames counted from main are 1 to 8.
 *   main -> sort_caller -> qsort (libc: qsort_r, msort_with_tmp, ...)
 *                       -> cmp_work
 *     4 ms (25%): sort_caller sorts small arrays again and again; the
 *     comparison function cmp_work does the work of each comparison
 *     (one busy chunk) until the phase's CPU time is used, so all of it
 *     lies under libc's sort, never directly under sort_caller.
 *
 * The time is spent in each function's own instructions: a busy loop of
 * a few thousand multiply-adds (~20 us) between two reads of the thread
 * CPU clock, as in spin2; clock reads (libc, vDSO, kernel) take a few
 * percent, as leaves under the same callers.
 * Single-threaded, no children, exits 0, prints nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define CHUNK 12000 /* busy iterations between clock reads */
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })
#define DEPTH 8
#define NOINLINE __attribute__((noinline, noclone))

volatile uint64_t callers_sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spin in the function that expands it, for NS of thread CPU time. */
#define SPIN(ns, seed)							\
	do {								\
		uint64_t end_ = cpu_ns() + (ns);			\
		uint64_t x_ = (seed);					\
		do {							\
			for (int i_ = 0; i_ < CHUNK; i_++)		\
				x_ = x_ * 6364136223846793005ull + 1,	\
				BARRIER(x_);				\
		} while (cpu_ns() < end_);				\
		callers_sink = x_;					\
	} while (0)

NOINLINE void leaf_work(uint64_t ns)
{
	SPIN(ns, 1);
}

/* The volatile store after each call keeps it from being a tail call,
 * which would take the caller off the stack. */
NOINLINE void caller_a(uint64_t ns)
{
	leaf_work(ns);
	callers_sink++;
}

NOINLINE void caller_b(uint64_t ns)
{
	leaf_work(ns);
	callers_sink++;
}

NOINLINE void caller_c(uint64_t ns)
{
	leaf_work(ns);
	callers_sink++;
}

NOINLINE void rec_leaf(uint64_t ns)
{
	SPIN(ns, 2);
}

NOINLINE void recurse(int level, uint64_t self_ns, uint64_t leaf_ns)
{
	SPIN(self_ns, 3);
	if (level < DEPTH)
		recurse(level + 1, self_ns, leaf_ns);
	else
		rec_leaf(leaf_ns);
	callers_sink++;
}

static uint64_t cmp_deadline;

/* One busy chunk per comparison while the phase lasts, then cheap. */
NOINLINE int cmp_work(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;

	if (cpu_ns() < cmp_deadline) {
		uint64_t x = (uint64_t)a;

		for (int i = 0; i < CHUNK; i++)
			x = x * 2862933555777941757ull + 3, BARRIER(x);
		callers_sink = x;
	}
	return (a > b) - (a < b);
}

NOINLINE void sort_caller(uint64_t ns)
{
	static uint32_t seed = 12345;
	int v[32];

	cmp_deadline = cpu_ns() + ns;
	do {
		for (int i = 0; i < 32; i++) {
			seed = seed * 1103515245u + 12345u;
			v[i] = (int)(seed >> 8);
		}
		qsort(v, 32, sizeof v[0], cmp_work);
	} while (cpu_ns() < cmp_deadline);
	callers_sink += (uint64_t)v[0];
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 2000;
	long rounds = ms / 16 > 0 ? ms / 16 : 1;
	const uint64_t ms_ns = 1000000u;

	for (long r = 0; r < rounds; r++) {
		caller_a(1 * ms_ns);
		caller_b(2 * ms_ns);
		caller_c(5 * ms_ns);
		recurse(1, ms_ns / 4, 2 * ms_ns);
		sort_caller(4 * ms_ns);
	}
	return 0;
}
