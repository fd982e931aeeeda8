/*
 * demo - the bundled demonstration workload: a small CPU-bound program
 * with several hot procedures of clearly different weights.
 *
 * Usage: demo [SCALE]    (default 1: about 2 seconds of CPU time;
 *                         the work is proportional to SCALE, which may
 *                         be a fraction: 0.02 is 5 rounds)
 *
 * Setup makes a 256 KiB text and two matrices; then each round
 *   matrix_multiply   multiplies two 152x152 matrices of doubles   ~34%
 *   insertion_sort    sorts 3400 integers by insertion            ~27%
 *   naive_search      counts a pattern in 256 KiB of text by       ~22%
 *                     brute force (many near-matches)
 *   crc32_buffer      bitwise CRC-32 of an 80 KiB buffer           ~16%
 *   fill_random       xorshift generator making the round's data    ~1%
 * and make_text (setup only) and main are nearly free.
 * (shares measured with -O1 -g on x86-64; they vary by a few points with
 * the CPU).  All are noinline, noclone functions.  The run is fully
 * deterministic: the summary line printed at the end is the same on
 * every run for a given SCALE.  Exits 0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 250          /* rounds per unit of SCALE */
#define MAT_N 152
#define SORT_N 3400
#define TEXT_LEN (256 * 1024)
#define CRC_LEN (80 * 1024)

#define NOINLINE __attribute__((noinline, noclone))

static uint64_t rng_state = 88172645463325252ull;

NOINLINE void fill_random(uint32_t *out, size_t n)
{
	uint64_t x = rng_state;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		out[i] = (uint32_t)x;
	}
	rng_state = x;
}

NOINLINE uint32_t crc32_buffer(const unsigned char *p, size_t len)
{
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

NOINLINE void insertion_sort(int32_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		int32_t v = a[i];
		size_t j = i;

		while (j > 0 && a[j - 1] > v) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
	}
}

NOINLINE size_t naive_search(const char *text, size_t n, const char *pat,
			     size_t m)
{
	size_t count = 0;

	for (size_t i = 0; i + m <= n; i++) {
		size_t j = 0;

		while (j < m && text[i + j] == pat[j])
			j++;
		if (j == m)
			count++;
	}
	return count;
}

NOINLINE void matrix_multiply(const double *a, const double *b, double *c,
			      int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double s = 0;

			for (int k = 0; k < n; k++)
				s += a[i * n + k] * b[k * n + j];
			c[i * n + j] = s;
		}
}

NOINLINE void make_text(char *text, size_t n, const uint32_t *rnd)
{
	/* Text over {a, b}, mostly a: many long partial matches. */
	for (size_t i = 0; i < n; i++)
		text[i] = (rnd[i / 4] >> (8 * (i % 4)) & 0xff) < 16 ? 'b' : 'a';
}

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1;
	long rounds = (long)(scale * ROUNDS);
	static uint32_t rnd[CRC_LEN / 4 + SORT_N + TEXT_LEN / 4];
	static double a[MAT_N * MAT_N], b[MAT_N * MAT_N], c[MAT_N * MAT_N];
	static int32_t arr[SORT_N];
	static char text[TEXT_LEN];
	const char pat[] = "aaaaaaab";
	uint32_t crc = 0;
	size_t found = 0;
	double trace = 0;
	long sorted_ok = 0;

	if (rounds < 1)
		rounds = 1;
	fill_random(rnd, sizeof rnd / sizeof rnd[0]);
	make_text(text, TEXT_LEN, rnd + CRC_LEN / 4 + SORT_N);
	for (int i = 0; i < MAT_N * MAT_N; i++) {
		a[i] = (double)(rnd[i] % 1000) / 1000.0;
		b[i] = (double)(rnd[MAT_N * MAT_N + i] % 1000) / 1000.0;
	}
	for (long r = 0; r < rounds; r++) {
		fill_random(rnd, CRC_LEN / 4 + SORT_N);
		crc ^= crc32_buffer((const unsigned char *)rnd, CRC_LEN);

		memcpy(arr, rnd + CRC_LEN / 4, sizeof arr);
		insertion_sort(arr, SORT_N);
		sorted_ok += arr[0] <= arr[SORT_N - 1];

		text[r % TEXT_LEN] = 'b';
		found += naive_search(text, TEXT_LEN, pat, sizeof pat - 1);

		a[r % (MAT_N * MAT_N)] += 0.001;
		matrix_multiply(a, b, c, MAT_N);
		for (int i = 0; i < MAT_N; i++)
			trace += c[i * MAT_N + i];
	}
	printf("demo: %ld rounds, crc %08x, %zu matches, %ld sorted, "
	       "trace %.3f\n", rounds, crc, found, sorted_ok, trace);
	return 0;
}
