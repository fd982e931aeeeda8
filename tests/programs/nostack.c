/*
 * nostack - a thread that spins with its stack pointer in no mapping,
 * so that its samples carry its registers but no copy of its stack.
 *
 * Usage: nostack MS
 *
 * Guarantees:
 *  - a second thread runs off_stack, which sets its stack pointer to
 *    0x1000 (below every mapping Linux allows: vm.mmap_min_addr) and
 *    spins there on two instructions, touching no memory;
 *  - the main thread sleeps MS ms, then ends the process with _exit(0)
 *    (the spinning thread cannot return);
 *  - a bad argument prints usage on stderr and exits 1.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline, noclone)) void *off_stack(void *arg)
{
	(void)arg;
#if defined(__x86_64__)
	__asm__ volatile("mov $0x1000, %%rsp\n"
			 "1: pause\n"
			 "jmp 1b" ::: "memory");
#endif
	for (;;)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	long ms = argc == 2 ? strtol(argv[1], NULL, 10) : 0;
	struct timespec ts;
	pthread_t t;

	if (ms < 1) {
		fprintf(stderr, "usage: nostack MS\n");
		return 1;
	}
	if (pthread_create(&t, NULL, off_stack, NULL))
		return 1;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = ms % 1000 * 1000000;
	nanosleep(&ts, NULL);
	_exit(0);
}
