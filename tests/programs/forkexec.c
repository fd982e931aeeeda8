/*
 * forkexec - a process tree: the profiler must follow children.
 *
 * Usage: forkexec [-n] [MILLISECONDS]   (default 1000)
 *
 * Default mode: fork; the child execs "spin2 MILLISECONDS" from the same
 * directory as this program (argv[0]'s directory, or /proc/self/exe's
 * when argv[0] has no slash); a build of this program named with a
 * suffix, forkexec-nofp, execs spin2 with the same suffix, spin2-nofp.
 * Meanwhile the parent spins for
 * MILLISECONDS/2 of its own CPU time in parent_spin, then waits.
 *   Expected CPU split over the whole tree (2 cores run both at once):
 *   hot_a 50%, hot_b 16.7% (in the child, program spin2),
 *   parent_spin 33.3% (in the parent, program forkexec).
 *
 * -n: fork without exec; the child runs child_spin for MILLISECONDS of
 * CPU time, the parent runs parent_spin for MILLISECONDS/2:
 *   child_spin 66.7%, parent_spin 33.3%, both in program forkexec.
 *
 * Guarantees: parent_spin and child_spin are distinct noinline, noclone
 * functions whose busy loops are lines 54 and 66.  The parent reaps the
 * child and exits 0 if the child exited 0, else 1 with a message on
 * stderr.  Nothing is printed on success.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 12000 /* busy iterations between clock reads */
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })

volatile uint64_t forkexec_sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline, noclone)) void parent_spin(long ms)
{
	uint64_t end = cpu_ns() + ms * 1000000ull;
	uint64_t x = 1;

	do {
		for (int i = 0; i < CHUNK; i++)
			x = x * 6364136223846793005ull + 1, BARRIER(x); /* HOT */
	} while (cpu_ns() < end);
	forkexec_sink = x;
}

__attribute__((noinline, noclone)) void child_spin(long ms)
{
	uint64_t end = cpu_ns() + ms * 1000000ull;
	uint64_t x = 2;

	do {
		for (int i = 0; i < CHUNK; i++)
			x = x * 2862933555777941757ull + 3, BARRIER(x); /* HOT */
	} while (cpu_ns() < end);
	forkexec_sink = x;
}

/* Path of "spin2" next to this program, with this program's suffix. */
static void spin2_path(const char *argv0, char *buf, size_t size)
{
	char self[4096];
	const char *dir = argv0;
	const char *slash = strrchr(argv0, '/');
	const char *suffix = "";
	ssize_t n;

	if (!slash) {
		n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n < 0)
			n = 0;
		self[n] = '\0';
		dir = self;
		slash = strrchr(self, '/');
	}
	if (strncmp(slash ? slash + 1 : dir, "forkexec", 8) == 0)
		suffix = (slash ? slash + 1 : dir) + 8;
	if (!slash)
		snprintf(buf, size, "spin2%s", suffix);
	else
		snprintf(buf, size, "%.*s/spin2%s", (int)(slash - dir), dir,
			 suffix);
}

int main(int argc, char **argv)
{
	int noexec = argc > 1 && strcmp(argv[1], "-n") == 0;
	long ms = argc > 1 + noexec ? atol(argv[1 + noexec]) : 1000;
	char path[4200], arg[32];
	int status;
	pid_t pid;

	if (ms < 1)
		ms = 1;
	spin2_path(argv[0], path, sizeof path);
	snprintf(arg, sizeof arg, "%ld", ms);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("forkexec: fork");
		return 1;
	}
	if (pid == 0) {
		if (noexec) {
			child_spin(ms);
			_exit(0);
		}
		execl(path, "spin2", arg, (char *)NULL);
		fprintf(stderr, "forkexec: exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	parent_spin(ms / 2 > 0 ? ms / 2 : 1);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("forkexec: waitpid");
			return 1;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "forkexec: child failed (status 0x%x)\n", status);
		return 1;
	}
	return 0;
}
