/*
 * exitwith - controlled exits, signals, stdio and waiting, for testing how
 * the profiler passes a program's fate and its standard streams through.
 *
 * Usage:
 *   exitwith [N]             exit with status N (default 0)
 *   exitwith -s SIG          die from signal SIG (a number, or a name such
 *                            as TERM, SIGSEGV): the handler is reset to the
 *                            default, the signal unblocked, then raised
 *   exitwith -i [N]          copy stdin to stdout, write "err\n" to
 *                            stderr, exit N
 *   exitwith -w SECS [-t] [N]  print the pid and a newline on stdout
 *                            (flushed), then sleep SECS seconds
 *                            (interruptible: SIGINT and SIGQUIT are reset
 *                            to their default actions first, as they are
 *                            ignored in background jobs of scripts)
 *                            and exit N; with -t spin the CPU in
 *                            waiting_spin for SECS seconds of wall time
 *                            instead of sleeping
 *
 * Guarantees: status 2 and a message on stderr for bad usage; with -s the
 * process never exits normally (if the signal is ignored by default, e.g.
 * CHLD, it exits 3 after the raise).  waiting_spin is a noinline, noclone
 * function whose busy loop (line 87) takes all the samples of -w -t.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 12000 /* busy iterations between clock reads */
#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })

static const struct { const char *name; int sig; } signames[] = {
	{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT },
	{ "ILL", SIGILL }, { "TRAP", SIGTRAP }, { "ABRT", SIGABRT },
	{ "BUS", SIGBUS }, { "FPE", SIGFPE }, { "KILL", SIGKILL },
	{ "USR1", SIGUSR1 }, { "SEGV", SIGSEGV }, { "USR2", SIGUSR2 },
	{ "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM },
	{ "CHLD", SIGCHLD }, { "CONT", SIGCONT }, { "STOP", SIGSTOP },
	{ "TSTP", SIGTSTP }, { "XCPU", SIGXCPU }, { "SYS", SIGSYS },
};

volatile uint64_t exitwith_sink;

static void usage(void)
{
	fprintf(stderr, "usage: exitwith [N] | -s SIG | -i [N] | "
		"-w SECS [-t] [N]\n");
	exit(2);
}

static int parse_signal(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (*s && !*end)
		return n > 0 && n < NSIG ? (int)n : -1;
	if (strncmp(s, "SIG", 3) == 0)
		s += 3;
	for (size_t i = 0; i < sizeof signames / sizeof signames[0]; i++)
		if (strcmp(s, signames[i].name) == 0)
			return signames[i].sig;
	return -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline, noclone)) void waiting_spin(double secs)
{
	double end = now() + secs;
	uint64_t x = 1;

	do {
		for (int i = 0; i < CHUNK; i++)
			x = x * 6364136223846793005ull + 1, BARRIER(x); /* HOT */
	} while (now() < end);
	exitwith_sink = x;
}

static void do_signal(int sig)
{
	sigset_t set;

	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	fflush(NULL);
	raise(sig);
	exit(3);
}

static void copy_stdin(void)
{
	char buf[65536];
	ssize_t n;

	for (;;) {
		n = read(0, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(1, buf + off, n - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				perror("exitwith: write");
				exit(1);
			}
			off += w;
		}
	}
	if (n < 0) {
		perror("exitwith: read");
		exit(1);
	}
	fputs("err\n", stderr);
}

static void wait_for(double secs, int spin)
{
	struct timespec ts;

	/* Background jobs of non-interactive shells start with SIGINT and
	 * SIGQUIT ignored; undo that so "Ctrl-C" tests behave as on a tty. */
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	printf("%ld\n", (long)getpid());
	fflush(stdout);
	if (spin) {
		waiting_spin(secs);
		return;
	}
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	/* A caught-and-returning signal interrupts the sleep early. */
	nanosleep(&ts, NULL);
}

static int parse_status(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (!*s || *end || n < 0 || n > 255)
		usage();
	return (int)n;
}

int main(int argc, char **argv)
{
	int opt, sig = 0, copy = 0, spin = 0, status = 0;
	double wait = -1;
	char *end;

	while ((opt = getopt(argc, argv, "+s:iw:t")) != -1) {
		switch (opt) {
		case 's':
			sig = parse_signal(optarg);
			if (sig < 0)
				usage();
			break;
		case 'i':
			copy = 1;
			break;
		case 'w':
			wait = strtod(optarg, &end);
			if (end == optarg || *end || wait < 0)
				usage();
			break;
		case 't':
			spin = 1;
			break;
		default:
			usage();
		}
	}
	if (optind < argc)
		status = parse_status(argv[optind++]);
	if (optind < argc || (spin && wait < 0))
		usage();
	if (sig)
		do_signal(sig);
	if (copy)
		copy_stdin();
	if (wait >= 0)
		wait_for(wait, spin);
	return status;
}
