/* SPDX-License-Identifier: MIT */
/*
 * The one reader of outside bytes: profile files, ELF and DWARF data
 * (.eh_frame, CFI expressions, DWARF 5 lists, .gnu_debuglink), jitdump
 * files and the kernel's perf records all go through a struct bytes, so
 * no parser computes an offset into a buffer by hand.
 *
 * Contract:
 * - A cursor is [p, end): every read takes bytes from p and moves p past
 *   them, and never reads at or past end.
 * - A read that does not fit sets bad and returns 0 (NULL for the
 *   pointer reads); once bad, every read fails the same way and p means
 *   nothing, so a parser checks bad once after a run of reads.
 * - Nothing is copied or allocated: pointers returned point into the
 *   caller's buffer, which must outlive them.
 */
#ifndef COMMON_BYTES_H
#define COMMON_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct bytes {
	const uint8_t *p, *end;
	int bad;
};

/* This machine's byte order, the kernel's (perf records): the big
 * argument of bytes_uo(). */
#define BYTES_HOST_BIG (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

/* A cursor over the len bytes at p. */
static inline struct bytes bytes_of(const void *p, size_t len)
{
	return (struct bytes){ (const uint8_t *)p, (const uint8_t *)p + len,
			       0 };
}

/* Bytes left to read (0 once bad). */
static inline size_t bytes_left(const struct bytes *b)
{
	return b->bad ? 0 : (size_t)(b->end - b->p);
}

/* An n-byte (n <= 8) unsigned word, little-endian; bytes_uo(): big-endian
 * when big (an object's own order, or BYTES_HOST_BIG). */
uint64_t bytes_u(struct bytes *b, unsigned n);
uint64_t bytes_uo(struct bytes *b, unsigned n, int big);
/* The next n bytes copied to v and moved past; zeros and bad when
 * fewer are left. */
static inline void bytes_copy(struct bytes *b, void *v, size_t n)
{
	if (b->bad || (size_t)(b->end - b->p) < n) {
		b->bad = 1;
		memset(v, 0, n);
		return;
	}
	memcpy(v, b->p, n);
	b->p += n;
}

/* bytes_uo(b, 8 or 4, BYTES_HOST_BIG). */
static inline uint64_t bytes_host64(struct bytes *b)
{
	uint64_t v;

	bytes_copy(b, &v, sizeof(v));
	return v;
}

static inline uint32_t bytes_host32(struct bytes *b)
{
	uint32_t v;

	bytes_copy(b, &v, sizeof(v));
	return v;
}

/* LEB128 numbers.  bytes_uleb() and bytes_sleb() keep the low 64 bits of
 * a number of any length; bytes_uleb64() takes only one that fits 64
 * bits (at most 10 bytes, the tenth 0 or 1), else sets bad. */
uint64_t bytes_uleb(struct bytes *b);
uint64_t bytes_uleb64(struct bytes *b);
int64_t bytes_sleb(struct bytes *b);
/* The next n bytes, moved past; NULL when fewer are left.  n == 0 gives
 * p itself (never NULL while not bad).  Inline, as the few below: a
 * perf record is read a few words a sample. */
static inline const uint8_t *bytes_get(struct bytes *b, size_t n)
{
	const uint8_t *at = b->p;

	if (b->bad || (size_t)(b->end - b->p) < n) {
		b->bad = 1;
		return NULL;
	}
	b->p += n;
	return at;
}

/* Move past n bytes: bytes_get() without the pointer. */
static inline void bytes_skip(struct bytes *b, size_t n)
{
	bytes_get(b, n);
}
/* A NUL-terminated string that ends before end, moved past with its
 * NUL; NULL when no NUL is left. */
const char *bytes_str(struct bytes *b);

#endif
