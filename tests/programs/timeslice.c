/*
 * timeslice - two spinning threads that share one CPU (off-CPU statistics:
 * preempted time).
 *
 * Usage: timeslice OUTFILE CPU [MILLISECONDS]   (default 1000)
 *
 * Guarantees:
 *  - main pins itself to CPU (sched_setaffinity) before it starts two
 *    threads, which inherit the pinning: both run on CPU only.
 *  - each thread runs slice_a or slice_b (noinline, noclone), which waits
 *    for the other at a barrier (a spin on an atomic flag, no system
 *    call) and then spins without any system call until a deadline
 *    common to both, MILLISECONDS of CLOCK_MONOTONIC time after the first
 *    thread got to the barrier.  A thread that spins is never blocked:
 *    while alive it is running or waiting for the CPU (preempted), by the
 *    other thread or by anything else the machine runs there.
 *  - OUTFILE gets one line per thread once both have ended:
 *        NAME TID START END 0 CPU RUNDELAY
 *    START and END: CLOCK_MONOTONIC ns at the start and end of the
 *    thread's spinning (barrier included); CPU: its
 *    CLOCK_THREAD_CPUTIME_ID ns at END; RUNDELAY: the ns it waited on the
 *    run queue between START and END (the kernel's run_delay, from
 *    /proc/thread-self/schedstat, opened before START), -1 where the
 *    kernel does not say (the format of tests/programs/offcpu.c's
 *    lines).
 *  - exits 0, prints nothing (errors go to stderr, exit 1).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct rec {
	long tid;
	uint64_t start, end, cpu;
	long long run_delay;
};

static long ms = 1000;
static int arrived;
static uint64_t deadline;
volatile uint64_t timeslice_sink;

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The run_delay field of schedstat (open on fd), or -1. */
static long long run_delay(int fd)
{
	char buf[128];
	unsigned long long exec, delay;
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return sscanf(buf, "%llu %llu", &exec, &delay) == 2 ?
	       (long long)delay : -1;
}

static void run(struct rec *r, uint64_t x)
{
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	long long d0;

	r->tid = syscall(SYS_gettid);
	d0 = run_delay(fd);
	r->start = clock_ns(CLOCK_MONOTONIC);
	if (__atomic_fetch_add(&arrived, 1, __ATOMIC_SEQ_CST) == 0)
		__atomic_store_n(&deadline, r->start + (uint64_t)ms * 1000000u,
				 __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&arrived, __ATOMIC_SEQ_CST) < 2 ||
	       !__atomic_load_n(&deadline, __ATOMIC_SEQ_CST))
		;
	do {
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ull + 1;
	} while (clock_ns(CLOCK_MONOTONIC) < deadline);
	timeslice_sink = x;
	r->end = clock_ns(CLOCK_MONOTONIC);
	r->cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	r->run_delay = d0 < 0 ? -1 : run_delay(fd);
	if (r->run_delay >= 0)
		r->run_delay -= d0;
	if (fd >= 0)
		close(fd);
}

__attribute__((noinline, noclone)) void *slice_a(void *arg)
{
	run(arg, 1);
	return NULL;
}

__attribute__((noinline, noclone)) void *slice_b(void *arg)
{
	run(arg, 2);
	return NULL;
}

int main(int argc, char **argv)
{
	struct rec r[2];
	pthread_t a, b;
	cpu_set_t set;
	FILE *f;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: timeslice OUTFILE CPU [MILLISECONDS]\n");
		return 1;
	}
	if (argc > 3)
		ms = atol(argv[3]);
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[2]), &set);
	if (ms <= 0 || sched_setaffinity(0, sizeof(set), &set)) {
		perror("timeslice: sched_setaffinity");
		return 1;
	}
	if (pthread_create(&a, NULL, slice_a, &r[0]) ||
	    pthread_create(&b, NULL, slice_b, &r[1])) {
		fprintf(stderr, "timeslice: pthread_create failed\n");
		return 1;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	fprintf(f, "slice_a %ld %llu %llu 0 %llu %lld\n", r[0].tid,
		(unsigned long long)r[0].start, (unsigned long long)r[0].end,
		(unsigned long long)r[0].cpu, r[0].run_delay);
	fprintf(f, "slice_b %ld %llu %llu 0 %llu %lld\n", r[1].tid,
		(unsigned long long)r[1].start, (unsigned long long)r[1].end,
		(unsigned long long)r[1].cpu, r[1].run_delay);
	return fclose(f) ? 1 : 0;
}
