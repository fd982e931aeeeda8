/*
 * forknamed - two child processes with their own names doing known
 * shares of the CPU work, for reports split by process (-by).
 *
 * Usage: forknamed [MILLISECONDS]   (default 400: worker_a's CPU time)
 *
 * Guarantees:
 *  - the parent (command name "forknamed") forks two children and only
 *    waits for them: it spends no CPU time of its own to speak of;
 *  - the first child names itself "worka" (prctl(PR_SET_NAME)) before
 *    any work, then spins in spin_work for MILLISECONDS of its own CPU
 *    time; the second names itself "workb" and spins in the same
 *    spin_work for 3 * MILLISECONDS: CPU time splits 1:3 between the
 *    two names (and the two processes), all of it in spin_work;
 *  - exits 0 when both children did, prints nothing (errors go to
 *    stderr, exit 1).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 12000 /* busy iterations between clock reads */
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })

volatile uint64_t forknamed_sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline, noclone)) void spin_work(long ms)
{
	uint64_t end = cpu_ns() + (uint64_t)ms * 1000000ull;
	uint64_t x = 1;

	do {
		for (int i = 0; i < CHUNK; i++)
			x = x * 6364136223846793005ull + 1, BARRIER(x);
	} while (cpu_ns() < end);
	forknamed_sink = x;
}

static pid_t worker(const char *name, long ms)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("forknamed: fork");
		exit(1);
	}
	if (pid == 0) {
		if (prctl(PR_SET_NAME, name, 0, 0, 0)) {
			perror("forknamed: prctl");
			_exit(1);
		}
		spin_work(ms);
		_exit(0);
	}
	return pid;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 400;
	int status, bad = 0, i;

	if (ms <= 0) {
		fprintf(stderr, "usage: forknamed [MILLISECONDS]\n");
		return 1;
	}
	worker("worka", ms);
	worker("workb", 3 * ms);
	for (i = 0; i < 2; i++) {
		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad = 1;
	}
	return bad;
}
