/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "bytes.h"

uint64_t bytes_uo(struct bytes *b, unsigned n, int big)
{
	const uint8_t *at = n <= 8 ? bytes_get(b, n) : NULL;
	uint64_t v = 0;
	unsigned i;

	if (!at) {
		b->bad = 1;
		return 0;
	}
	for (i = 0; i < n; i++)
		v = v << 8 | at[big ? i : n - 1 - i];
	return v;
}

uint64_t bytes_u(struct bytes *b, unsigned n)
{
	return bytes_uo(b, n, 0);
}

const char *bytes_str(struct bytes *b)
{
	const uint8_t *nul;

	if (b->bad || !(nul = memchr(b->p, '\0', (size_t)(b->end - b->p)))) {
		b->bad = 1;
		return NULL;
	}
	return (const char *)bytes_get(b, (size_t)(nul - b->p) + 1);
}

/* The LEB128 bits of one number, and in *last its final byte. */
static uint64_t leb(struct bytes *b, unsigned *shift, uint8_t *last)
{
	uint64_t v = 0;

	*shift = 0;
	while (!b->bad && b->p < b->end) {
		uint8_t c = *b->p++;

		if (*shift < 64)
			v |= (uint64_t)(c & 0x7f) << *shift;
		*shift += 7;
		if (!(c & 0x80)) {
			*last = c;
			return v;
		}
	}
	b->bad = 1;
	return 0;
}

uint64_t bytes_uleb(struct bytes *b)
{
	unsigned shift;
	uint8_t last;

	return leb(b, &shift, &last);
}

uint64_t bytes_uleb64(struct bytes *b)
{
	uint64_t v = 0;
	unsigned n;

	for (n = 0; n < 10 && !b->bad && b->p < b->end; n++) {
		uint8_t c = *b->p++;

		if (n == 9 && c > 1)
			break;
		v |= (uint64_t)(c & 0x7f) << (7 * n);
		if (!(c & 0x80))
			return v;
	}
	b->bad = 1;
	return 0;
}

int64_t bytes_sleb(struct bytes *b)
{
	unsigned shift;
	uint8_t last = 0;
	uint64_t v = leb(b, &shift, &last);

	if (!b->bad && shift < 64 && (last & 0x40))
		v |= ~0ULL << shift;
	return (int64_t)v;
}
