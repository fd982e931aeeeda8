/* SPDX-License-Identifier: MIT */
#include "bytes.h"

uint64_t bytes_u(struct bytes *b, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	if (b->bad || n > 8 || (uint64_t)(b->end - b->p) < n) {
		b->bad = 1;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)b->p[i] << (8 * i);
	b->p += n;
	return v;
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

int64_t bytes_sleb(struct bytes *b)
{
	unsigned shift;
	uint8_t last = 0;
	uint64_t v = leb(b, &shift, &last);

	if (!b->bad && shift < 64 && (last & 0x40))
		v |= ~0ULL << shift;
	return (int64_t)v;
}
