/*
 * pingpong - two threads passing one byte back and forth over two pipes:
 * nearly all of their time is spent blocked, switched out in read().
 *
 * Usage: pingpong [N]   (default 100000 round trips)
 *
 * Guarantees:
 *  - main starts one pthread (ponger) and then, N times, writes a byte
 *    to the first pipe in ping_send and reads the answer from the second
 *    in ping_wait; ponger reads each byte in pong_wait and writes it back
 *    in pong_send.  The four are noinline, noclone functions, so off-CPU
 *    time is charged under ping_wait and pong_wait (each read blocks until
 *    the other thread writes).
 *  - each round trip blocks each thread once: 2N switches out (and 2N
 *    in) at least, whatever the CPUs; on 2 CPUs well over 50 000 switches
 *    a second.
 *  - prints "N round trips in S s, R switches/s" on stderr (R counts the
 *    2N switches out), exits 0; errors go to stderr, exit 1.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];
static long rounds = 100000;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

__attribute__((noinline, noclone)) void ping_send(char c)
{
	if (write(ping[1], &c, 1) != 1)
		die("write");
}

__attribute__((noinline, noclone)) char ping_wait(void)
{
	char c;

	if (read(pong[0], &c, 1) != 1)
		die("read");
	return c;
}

__attribute__((noinline, noclone)) char pong_wait(void)
{
	char c;

	if (read(ping[0], &c, 1) != 1)
		die("read");
	return c;
}

__attribute__((noinline, noclone)) void pong_send(char c)
{
	if (write(pong[1], &c, 1) != 1)
		die("write");
}

static void *ponger(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < rounds; i++)
		pong_send(pong_wait());
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	pthread_t t;
	double t0, s;
	long i;

	if (argc > 1)
		rounds = strtol(argv[1], NULL, 10);
	if (rounds < 1) {
		fprintf(stderr, "usage: pingpong [N]\n");
		return 1;
	}
	if (pipe(ping) || pipe(pong))
		die("pipe");
	if (pthread_create(&t, NULL, ponger, NULL)) {
		fprintf(stderr, "pthread_create failed\n");
		return 1;
	}
	t0 = now();
	for (i = 0; i < rounds; i++) {
		ping_send((char)i);
		if (ping_wait() != (char)i) {
			fprintf(stderr, "pingpong: out of order\n");
			return 1;
		}
	}
	s = now() - t0;
	pthread_join(t, NULL);
	fprintf(stderr, "%ld round trips in %.3f s, %.0f switches/s\n",
		rounds, s, 2.0 * rounds / s);
	return 0;
}
