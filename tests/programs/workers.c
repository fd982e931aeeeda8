/*
 * workers - N threads busy for a given wall time, in call stacks of a few
 * shapes: a steady stream of on-CPU samples from several threads.
 *
 * Usage: workers [THREADS [SECONDS]]   (default 4 threads, 10 s)
 *
 * Guarantees:
 *  - main starts THREADS pthreads (1 to 64) and only joins them.
 *  - each thread runs until SECONDS of wall time (CLOCK_MONOTONIC) have
 *    passed since the start, calling in turn, for about 1 ms of its own
 *    CPU time each, work_leaf directly and through one, two and three
 *    levels of callers (work_1, work_2, work_3: noinline, noclone, each
 *    doing something after its call returns), so that its samples fall in
 *    four call stacks under work_loop, in about equal shares.
 *  - with more threads than CPUs, the threads share the CPUs: samples of
 *    cpu-clock come at the CPUs' rate, not the threads'.
 *  - exits 0, prints nothing (errors go to stderr, exit 1).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHUNK 12000 /* busy iterations between clock reads */
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })

volatile uint64_t workers_sink;
static double seconds = 10;
static struct timespec start;

static uint64_t ns_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline, noclone)) uint64_t work_leaf(uint64_t x)
{
	uint64_t end = ns_of(CLOCK_THREAD_CPUTIME_ID) + 1000000;
	int i;

	do {
		for (i = 0; i < CHUNK; i++) x = BARRIER(x) * 2862933555777941757ull + 3037000493ull;
	} while (ns_of(CLOCK_THREAD_CPUTIME_ID) < end);
	return x;
}

__attribute__((noinline, noclone)) uint64_t work_1(uint64_t x)
{
	return work_leaf(x) ^ 1;
}

__attribute__((noinline, noclone)) uint64_t work_2(uint64_t x)
{
	return work_1(x) ^ 2;
}

__attribute__((noinline, noclone)) uint64_t work_3(uint64_t x)
{
	return work_2(x) ^ 3;
}

__attribute__((noinline, noclone)) void *work_loop(void *arg)
{
	uint64_t end = (uint64_t)start.tv_sec * 1000000000u +
		       (uint64_t)start.tv_nsec + (uint64_t)(seconds * 1e9);
	uint64_t x = (uintptr_t)arg;
	unsigned k = 0;

	while (ns_of(CLOCK_MONOTONIC) < end) {
		switch (k++ % 4) {
		case 0: x = work_leaf(x); break;
		case 1: x = work_1(x); break;
		case 2: x = work_2(x); break;
		default: x = work_3(x); break;
		}
	}
	workers_sink = x;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	long n = 4, i;

	if (argc > 1)
		n = strtol(argv[1], NULL, 10);
	if (argc > 2)
		seconds = strtod(argv[2], NULL);
	if (n < 1 || n > 64 || !(seconds > 0)) {
		fprintf(stderr, "usage: workers [THREADS [SECONDS]]\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, work_loop, (void *)(i + 1))) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
