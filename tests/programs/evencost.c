/*
 * evencost - fixed work, the same cost per instruction everywhere hot:
 * sampled time shares and exact instruction shares must agree (the
 * cross-engine test).
 *
 * Usage: evencost [N]     (default 20000000 iterations in all, ~0.1 s)
 *
 * work_a runs 3N/4 and work_b N/4 iterations of the same multiply-add
 * loop (identical code, one line each, kept by an empty asm): work_a 75%
 * and work_b 25% of the instructions, and of the time on any CPU, since
 * every iteration is the same dependent multiply-add chain.  Startup
 * code is a few thousand instructions.  Prints nothing, exits 0.
 */
#include <stdint.h>
#include <stdlib.h>

#define BARRIER(v) ({ __asm__ volatile("" : "+r"(v)); (v); })

volatile uint64_t evencost_sink;

__attribute__((noinline, noclone)) void work_a(long n)
{
	uint64_t x = 1;

	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1, BARRIER(x); /* HOT */
	evencost_sink = x;
}

__attribute__((noinline, noclone)) void work_b(long n)
{
	uint64_t x = 1;

	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1, BARRIER(x); /* HOT */
	evencost_sink = x;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;

	if (n < 4)
		n = 4;
	work_a(n / 4 * 3);
	work_b(n / 4);
	return 0;
}
