/*
 * phases2 - three CPU phases, one after the other: a workload whose
 * time order is known, for the exports that lay a profile out over time
 * (--format speedscope, --format firefox).
 *
 * Usage: phases2 [MILLISECONDS]       (default 300)
 *        phases2 -t [MILLISECONDS]    (two threads)
 *
 * Guarantees:
 *  - main calls phase_a, then phase_b, then phase_c; each spins
 *    MILLISECONDS of its thread's CPU time and returns.  They are
 *    distinct, non-inlined, non-cloned global functions, and each call is
 *    a real call (main does something after it returns), so a call stack
 *    taken in one of them is main -> phase_X.
 *  - With -t, phase_b runs in a second thread instead: main runs
 *    phase_a, starts a thread that names itself "worker" (prctl) before
 *    anything else and calls phase_b from worker_main, and sleeps in
 *    pthread_join until it ends (no CPU time of its own to speak of);
 *    then main runs phase_c.  So the main thread works, sleeps while the
 *    worker works, and works again; the worker only works, between main's
 *    two phases.
 *  - The process's only threads are these; exits 0, prints nothing
 *    (errors go to stderr, exit 1).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#define CHUNK 12000 /* busy iterations between clock reads */
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })

volatile uint64_t phases2_sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A macro, not a function: the time must be each phase's own. */
#define SPIN(ms) do { \
	uint64_t end_ = cpu_ns() + (ms) * 1000000ull, x_ = 1; \
	while (cpu_ns() < end_) \
		for (int i_ = 0; i_ < CHUNK; i_++) \
			x_ = BARRIER(x_) * 2862933555777941757ull + 3037000493ull; \
	phases2_sink += x_; \
} while (0)

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

__attribute__((noinline, noclone)) void *worker_main(void *arg)
{
	prctl(PR_SET_NAME, "worker", 0, 0, 0);
	phase_b(*(unsigned *)arg);
	phases2_sink++;
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 && !strcmp(argv[1], "-t");
	unsigned ms = argc > 1 + threads ?
		      (unsigned)atoi(argv[1 + threads]) : 300;
	pthread_t t;
	int err;

	phase_a(ms);
	phases2_sink++;
	if (threads) {
		err = pthread_create(&t, NULL, worker_main, &ms);
		if (!err)
			err = pthread_join(t, NULL);
		if (err) {
			fprintf(stderr, "phases2: %s\n", strerror(err));
			return 1;
		}
	} else {
		phase_b(ms);
	}
	phases2_sink++;
	phase_c(ms);
	phases2_sink++;
	return 0;
}
