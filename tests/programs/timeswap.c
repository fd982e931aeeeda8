/*
 * timeswap - two threads that take turns: the first works while the
 * second waits, then the first waits while the second works.  A workload
 * for -timeline's rows per thread.
 *
 * Usage: timeswap [MILLISECONDS]   (default 500, per turn)
 *
 * Guarantees:
 *  - main starts two threads, which name themselves "swap-one" and
 *    "swap-two" first thing (pthread_setname_np: their command names),
 *    then only joins them.
 *  - swap-one spins in work_one until MILLISECONDS of CLOCK_MONOTONIC
 *    (wall time) have passed since it started and it has had an eighth
 *    of that in CPU time, then hands over: it sets a flag under a mutex
 *    and signals a condition variable, and waits on it for the end.
 *    swap-two waits on the condition variable from its start until the
 *    hand-over (blocked: no CPU time), then spins in work_two the same
 *    way and ends.  So on a machine that gives the program an eighth of
 *    a CPU or more, the hand-over is in the middle of its run.
 *  - So by construction, however busy the machine, every sample of
 *    work_one is taken before the hand-over and every sample of work_two
 *    after it: the threads' CPU time does not overlap (apart from a few
 *    microseconds of thread start, hand-over and exit).
 *  - work_one and work_two are distinct, non-inlined, non-cloned global
 *    functions; exits 0, prints nothing (errors go to stderr, exit 1).
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK 12000 /* busy iterations between clock reads */
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })

volatile uint64_t timeswap_sink;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn = PTHREAD_COND_INITIALIZER;
static int handed_over, done;
static long ms = 500;

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A macro, not a function: the time must be each worker's own.  Until
 * ms of wall time and ms / 8 of the thread's CPU time. */
#define SPIN(ms, seed) do { \
	uint64_t end_ = clock_ns(CLOCK_MONOTONIC) + \
			(uint64_t)(ms) * 1000000ull; \
	uint64_t cpu_ = clock_ns(CLOCK_THREAD_CPUTIME_ID) + \
			(uint64_t)(ms) * 1000000ull / 8, x_ = (seed); \
	do \
		for (int i_ = 0; i_ < CHUNK; i_++) \
			x_ = BARRIER(x_) * 2862933555777941757ull + 3; \
	while (clock_ns(CLOCK_MONOTONIC) < end_ || \
	       clock_ns(CLOCK_THREAD_CPUTIME_ID) < cpu_); \
	timeswap_sink = x_; \
} while (0)

__attribute__((noinline, noclone)) void work_one(void)
{
	SPIN(ms, 1);
}

__attribute__((noinline, noclone)) void work_two(void)
{
	SPIN(ms, 2);
}

static void *first(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "swap-one");
	work_one();
	pthread_mutex_lock(&lock);
	handed_over = 1;
	pthread_cond_broadcast(&turn);
	while (!done)
		pthread_cond_wait(&turn, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *second(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "swap-two");
	pthread_mutex_lock(&lock);
	while (!handed_over)
		pthread_cond_wait(&turn, &lock);
	pthread_mutex_unlock(&lock);
	work_two();
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_broadcast(&turn);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t1, t2;
	int err;

	if (argc > 1)
		ms = atol(argv[1]);
	if (ms < 1)
		ms = 1;
	err = pthread_create(&t1, NULL, first, NULL);
	if (!err)
		err = pthread_create(&t2, NULL, second, NULL);
	if (err) {
		fprintf(stderr, "timeswap: pthread_create: %s\n",
			strerror(err));
		return 1;
	}
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	return 0;
}
