/*
 * offcpu - threads that wait off CPU in known ways for known times, and
 * one that spins, each measuring what it did (off-CPU statistics).
 *
 * Usage: offcpu OUTFILE [MILLISECONDS]   (default 400: the base time T)
 *
 * Guarantees (T = MILLISECONDS):
 *  - four threads besides main, each running, between two measurements
 *    (see OUTFILE), one noinline, noclone procedure that does one thing:
 *      wait_sleep   nanosleep() for 1.0 T (blocked, asleep in the kernel's
 *                   hrtimer_nanosleep);
 *      wait_mutex   pthread_mutex_lock() on a mutex main holds until
 *                   1.25 T after the threads start (blocked in a futex);
 *      wait_pipe    read() of a pipe main writes to 0.75 T after the
 *                   threads start (blocked in pipe_read);
 *      spin         spins on the CPU for 1.0 T of CLOCK_MONOTONIC time: no
 *                   system call, so it is never blocked, only ever
 *                   preempted (when something else wants its CPU).
 *    Each waiting procedure makes exactly one blocking call: its thread is
 *    off CPU for the length of that call (plus the time it waits for a
 *    CPU once woken).
 *  - main, between creating the threads and joining them, only sleeps
 *    (nanosleep in pace_until) and writes the pipe and unlocks the mutex.
 *  - OUTFILE gets one line per thread, after all have ended:
 *        NAME TID START END WAIT CPU RUNDELAY
 *    START and END are CLOCK_MONOTONIC ns read just before and just after
 *    the thread's procedure (its lifetime as far as it can see it), WAIT
 *    the ns the blocking call took, measured around it (0 for spin), CPU
 *    the thread's CPU time (CLOCK_THREAD_CPUTIME_ID) at END, RUNDELAY the
 *    ns it waited on a run queue (runnable, not running: the kernel's
 *    run_delay, /proc/thread-self/schedstat) between START and END, -1
 *    where the kernel does not say (no CONFIG_SCHED_INFO).  For spin,
 *    RUNDELAY is the time it was preempted; unlike END - START - CPU it
 *    leaves out the time a hypervisor took the CPU from the machine
 *    (steal), during which the thread counts as running.
 *    main's line has START at main's entry and END just before it writes
 *    the file (WAIT 0, RUNDELAY -1).
 *  - OUTFILE is created only once main runs: a run refused before the
 *    program starts leaves no file.
 *  - exits 0, prints nothing (errors go to stderr, exit 1).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct rec {
	const char *name;
	void (*fn)(struct rec *);
	long tid;
	uint64_t start, end, wait, cpu;
	long long run_delay;
};

static long T;			/* ms */
static int pfd[2];
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
volatile uint64_t offcpu_sink;

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
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

__attribute__((noinline, noclone)) void wait_sleep(struct rec *r)
{
	struct timespec ts = { T / 1000, (T % 1000) * 1000000 };
	uint64_t t = now();

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	r->wait = now() - t;
}

__attribute__((noinline, noclone)) void wait_mutex(struct rec *r)
{
	uint64_t t = now();

	if (pthread_mutex_lock(&held))
		die("pthread_mutex_lock");
	r->wait = now() - t;
	pthread_mutex_unlock(&held);
}

__attribute__((noinline, noclone)) void wait_pipe(struct rec *r)
{
	uint64_t t = now();
	char c;

	if (read(pfd[0], &c, 1) != 1)
		die("read");
	r->wait = now() - t;
}

__attribute__((noinline, noclone)) void spin(struct rec *r)
{
	uint64_t end = now() + (uint64_t)T * 1000000u, x = 1;

	do {
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ull + 1;
	} while (now() < end);
	offcpu_sink = x;
	r->wait = 0;
}

/* A thread: its procedure between the measurements. */
static void *thread_main(void *arg)
{
	struct rec *r = arg;
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	long long d0;

	r->tid = syscall(SYS_gettid);
	d0 = run_delay(fd);
	r->start = now();
	r->fn(r);
	r->end = now();
	r->cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	r->run_delay = d0 < 0 ? -1 : run_delay(fd);
	if (r->run_delay >= 0)
		r->run_delay -= d0;
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* Sleep until CLOCK_MONOTONIC time t (ns). */
__attribute__((noinline, noclone)) void pace_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000u),
			       (long)(t % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

int main(int argc, char **argv)
{
	static void (*const fn[])(struct rec *) = { wait_sleep, wait_mutex,
						    wait_pipe, spin };
	static const char *const names[] = { "wait_sleep", "wait_mutex",
					     "wait_pipe", "spin" };
	struct rec r[5];
	pthread_t th[4];
	uint64_t t0;
	FILE *f;
	int i;

	r[4].start = now();
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: offcpu OUTFILE [MILLISECONDS]\n");
		return 1;
	}
	T = argc > 2 ? atol(argv[2]) : 400;
	if (T <= 0)
		T = 400;
	if (pipe(pfd))
		die("pipe");
	pthread_mutex_lock(&held);
	t0 = now();
	for (i = 0; i < 4; i++) {
		r[i].name = names[i];
		r[i].fn = fn[i];
		if (pthread_create(&th[i], NULL, thread_main, &r[i]))
			die("pthread_create");
	}
	pace_until(t0 + (uint64_t)T * 750000u);
	if (write(pfd[1], "x", 1) != 1)
		die("write");
	pace_until(t0 + (uint64_t)T * 1250000u);
	pthread_mutex_unlock(&held);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	r[4].name = "main";
	r[4].tid = syscall(SYS_gettid);
	r[4].wait = 0;
	r[4].run_delay = -1;
	f = fopen(argv[1], "w");
	if (!f)
		die(argv[1]);
	r[4].end = now();
	r[4].cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	for (i = 0; i < 5; i++)
		fprintf(f, "%s %ld %llu %llu %llu %llu %lld\n", r[i].name,
			r[i].tid, (unsigned long long)r[i].start,
			(unsigned long long)r[i].end,
			(unsigned long long)r[i].wait,
			(unsigned long long)r[i].cpu, r[i].run_delay);
	if (fclose(f))
		die(argv[1]);
	return 0;
}
