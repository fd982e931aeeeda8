/*
 * branchy - a data-dependent branch: unpredictable on random input,
 * predictable on sorted input (the same work either way).
 *
 * Usage: branchy random|sorted [N]     (N elements, default 20000)
 *
 * Fills N bytes from a fixed linear congruential generator (the same
 * bytes every run), sorts them with "sorted", then calls count_big(),
 * which counts the bytes >= 128 with a real conditional branch (the
 * empty asm inside it keeps the compiler from turning it into a
 * conditional move), 20 times.  count_big is the hot procedure in both
 * modes and runs the same instructions in both; only the branch's
 * outcome pattern differs: with "random" about half of its executions
 * are mispredicted by any predictor, with "sorted" almost none.
 * Prints the count (N*20 times the share of bytes >= 128) and exits 0;
 * a bad mode exits 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_byte(const void *a, const void *b)
{
	return *(const unsigned char *)a - *(const unsigned char *)b;
}

__attribute__((noinline, noclone)) long count_big(const unsigned char *v,
						  long n)
{
	long big = 0;

	for (long i = 0; i < n; i++) {
		if (v[i] >= 128) {
			big++;
			__asm__ volatile("" : "+r"(big));
		}
	}
	return big;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 20000, total = 0;
	unsigned long x = 12345;
	unsigned char *v;

	if (argc < 2 || (strcmp(argv[1], "random") && strcmp(argv[1], "sorted"))) {
		fprintf(stderr, "usage: branchy random|sorted [N]\n");
		return 2;
	}
	if (n < 1)
		n = 1;
	v = malloc((size_t)n);
	if (!v)
		return 1;
	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		v[i] = (unsigned char)(x >> 56);
	}
	if (!strcmp(argv[1], "sorted"))
		qsort(v, (size_t)n, 1, cmp_byte);
	for (int r = 0; r < 20; r++)
		total += count_big(v, n);
	printf("%ld\n", total);
	free(v);
	return 0;
}
