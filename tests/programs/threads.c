/*
 * threads - CPU time spent in two threads, none in the main thread.
 *
 * Usage: threads [MILLISECONDS]   (default 1000, CPU time per thread)
 *
 * Guarantees:
 *  - main starts two pthreads, one running thread_work_a and one running
 *    thread_work_b (distinct noinline, noclone functions), then only
 *    joins them: it spends no CPU time of its own to speak of.
 *  - each thread spins for MILLISECONDS of its own thread CPU time inside
 *    its function (busy loops on lines 42 and 55), so the two functions
 *    get ~50% each; on 2 cores the run takes ~MILLISECONDS of wall time.
 *  - exits 0, prints nothing (errors go to stderr, exit 1).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK 12000 /* busy iterations between clock reads */
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })

volatile uint64_t threads_sink_a, threads_sink_b;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline, noclone)) void *thread_work_a(void *arg)
{
	uint64_t end = cpu_ns() + *(long *)arg * 1000000ull;
	uint64_t x = 1;

	do {
		for (int i = 0; i < CHUNK; i++)
			x = x * 6364136223846793005ull + 1, BARRIER(x); /* HOT */
	} while (cpu_ns() < end);
	threads_sink_a = x;
	return NULL;
}

__attribute__((noinline, noclone)) void *thread_work_b(void *arg)
{
	uint64_t end = cpu_ns() + *(long *)arg * 1000000ull;
	uint64_t x = 2;

	do {
		for (int i = 0; i < CHUNK; i++)
			x = x * 2862933555777941757ull + 3, BARRIER(x); /* HOT */
	} while (cpu_ns() < end);
	threads_sink_b = x;
	return NULL;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	pthread_t ta, tb;
	int err;

	if (ms < 1)
		ms = 1;
	err = pthread_create(&ta, NULL, thread_work_a, &ms);
	if (!err)
		err = pthread_create(&tb, NULL, thread_work_b, &ms);
	if (err) {
		fprintf(stderr, "threads: pthread_create: %s\n", strerror(err));
		return 1;
	}
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	return 0;
}
