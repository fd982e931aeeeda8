/*
 * tripcount - loops whose exact instruction counts are known by
 * construction (for the sim engine's exact-count tests).
 *
 * Usage: tripcount [N]     (default 1000, at least 1)
 *
 * The two loops are naked functions written in assembly (x86-64), so the
 * compiler adds nothing to them:
 *
 *   loop_a(n): mov %rdi,%rcx; 1: mov -8(%rsp),%rax; mov %rax,-16(%rsp);
 *              dec %rcx; jnz 1b; ret
 *     per call: 4n+2 instructions, n+1 loads (the ret reads the stack),
 *     n stores, n conditional branches (valgrind does not count a ret
 *     as an indirect branch: 0 of those)
 *   loop_b(n): 1: dec %rdi; jnz 1b; ret
 *     per call: 2n+1 instructions, 1 load, 0 stores, n conditional
 *     branches
 *
 * main calls loop_a(N) 10 times and loop_b(3N) 5 times, so:
 *   loop_a: retinst 10(4N+2), loads 10(N+1), stores 10N, condbranches 10N
 *   loop_b: retinst 5(6N+1),  loads 5,       stores 0,   condbranches 15N
 * (N=1000: loop_a 40020 / 10010 / 10000 / 10000, loop_b 30005 / 5 / 0 /
 * 15000.)  Exits 0 and prints nothing.
 */
#include <stdlib.h>

__attribute__((naked, noinline)) void loop_a(long n)
{
	__asm__("mov %rdi, %rcx\n"
		"1: mov -8(%rsp), %rax\n"
		"mov %rax, -16(%rsp)\n"
		"dec %rcx\n"
		"jnz 1b\n"
		"ret\n");
}

__attribute__((naked, noinline)) void loop_b(long n)
{
	__asm__("1: dec %rdi\n"
		"jnz 1b\n"
		"ret\n");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	if (n < 1)
		n = 1;
	for (int i = 0; i < 10; i++)
		loop_a(n);
	for (int i = 0; i < 5; i++)
		loop_b(3 * n);
	return 0;
}
