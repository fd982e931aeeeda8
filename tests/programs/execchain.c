/*
 * execchain - a make-like chain of forks and execs whose every procedure
 * of interest has an exact instruction count known by construction (for
 * the sim engine: each process image counted once, nothing lost at exec,
 * nothing repeated after fork).
 *
 * Usage: execchain [N]        (default 1000, at least 1)
 *
 * Built twice from this source: execchain (dynamic) and execchain-static
 * (-static); execchain-static-stripped is the static one without a symbol
 * table.  The roles, by argv[1]:
 *
 *   execchain N           "top": top_before(N); fork; the child runs
 *                         top_child(2N), then execs "MID mid N" (MID
 *                         below); the parent runs top_after(3N), waits.
 *   MID mid N             top_child's image replaced: mid_before(4N);
 *                         fork; the child runs mid_child(5N), then execs
 *                         "LEAF leaf N" (LEAF below); the parent runs
 *                         mid_after(6N) and waits.
 *   LEAF leaf N           leaf_before(7N); fork; the child runs
 *                         leaf_child(8N) and exits; the parent runs
 *                         leaf_after(9N) and waits.
 *
 * So one pid (top's child) runs top_child, is replaced by mid, which forks
 * again: it dumps before its exec and again before mid's fork.  The leaf
 * program is static, forking without the dynamic libc.
 *
 * Every procedure named *_before, *_child, *_after is one naked loop
 * written in assembly (x86-64), so the compiler adds nothing to it:
 *
 *   1: dec %rdi; jnz 1b; ret      per call with n: 2n+1 instructions
 *
 * and each is called once, in one process, with the n above: top_before
 * 2N+1, top_child 4N+1, top_after 6N+1, mid_before 8N+1, mid_child 10N+1,
 * mid_after 12N+1, leaf_before 14N+1, leaf_child 16N+1, leaf_after 18N+1.
 *
 * MID and LEAF: the programs exec'd by top and mid, in this program's
 * directory: the names in the environment variables EXECCHAIN_MID and
 * EXECCHAIN_LEAF, or execchain and execchain-static.
 * EXECCHAIN_LINGER_MS: each process image sleeps that long (wall time)
 * before its first loop, so that it lives long enough for a profiler to
 * read its arguments; its loops' counts stay the same.
 * Exits 0 when every process of the chain exited 0, else 1 with a message
 * on stderr.  Prints nothing on success.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LOOP(name) \
	__attribute__((naked, noinline)) void name(long n) \
	{ \
		__asm__("1: dec %rdi\n" \
			"jnz 1b\n" \
			"ret\n"); \
	}

LOOP(top_before)
LOOP(top_child)
LOOP(top_after)
LOOP(mid_before)
LOOP(mid_child)
LOOP(mid_after)
LOOP(leaf_before)
LOOP(leaf_child)
LOOP(leaf_after)

/* Wait for child pid; 0 if it exited 0. */
static int reap(pid_t pid, const char *what)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("execchain: waitpid");
			return 1;
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "execchain: %s failed (status 0x%x)\n", what,
			status);
		return 1;
	}
	return 0;
}

/* Path of NAME in the directory of this program (from /proc/self/exe). */
static void sibling(const char *name, char *buf, size_t size)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n < 0)
		n = 0;
	self[n] = '\0';
	slash = strrchr(self, '/');
	snprintf(buf, size, "%.*s/%s", slash ? (int)(slash - self) : 1,
		 slash ? self : ".", name);
}

int main(int argc, char **argv)
{
	const char *role = argc > 2 ? argv[1] : "top";
	const char *linger = getenv("EXECCHAIN_LINGER_MS");
	long n = argc > 1 ? atol(argv[argc > 2 ? 2 : 1]) : 1000;
	char path[4200], arg[32];
	void (*before)(long), (*child)(long), (*after)(long);
	long k;
	pid_t pid;

	if (n < 1)
		n = 1;
	snprintf(arg, sizeof(arg), "%ld", n);
	if (!strcmp(role, "top")) {
		const char *mid = getenv("EXECCHAIN_MID");

		before = top_before, child = top_child, after = top_after;
		k = 1;
		sibling(mid && *mid ? mid : "execchain", path, sizeof(path));
	} else if (!strcmp(role, "mid")) {
		const char *leaf = getenv("EXECCHAIN_LEAF");

		before = mid_before, child = mid_child, after = mid_after;
		k = 4;
		sibling(leaf && *leaf ? leaf : "execchain-static", path,
			sizeof(path));
	} else if (!strcmp(role, "leaf")) {
		before = leaf_before, child = leaf_child, after = leaf_after;
		k = 7;
	} else {
		fprintf(stderr, "execchain: unknown role '%s'\n", role);
		return 2;
	}
	if (linger && atol(linger) > 0)
		usleep((useconds_t)atol(linger) * 1000);
	before(k * n);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("execchain: fork");
		return 1;
	}
	if (pid == 0) {
		child((k + 1) * n);
		if (k == 7)
			_exit(0);
		execl(path, path, k == 1 ? "mid" : "leaf", arg, (char *)NULL);
		fprintf(stderr, "execchain: exec %s: %s\n", path,
			strerror(errno));
		_exit(127);
	}
	after((k + 2) * n);
	return reap(pid, k == 1 ? "mid" : k == 4 ? "leaf" : "leaf's child");
}
