/* SPDX-License-Identifier: MIT */
/*
 * A string pool: each distinct string kept once, in chunks, until the
 * pool is released, so equal strings share one pointer and many small
 * copies cost no malloc each.  The symbolizer hands out its strings from
 * one; a report keeps the strings its rows name in another.
 */
#ifndef COMMON_UTIL_STRPOOL_H
#define COMMON_UTIL_STRPOOL_H

#include <stddef.h>

struct strpool {
	char *chunk;		/* current chunk, linked through its head */
	size_t used, size;	/* bytes used / usable in chunk */
	const char **slots;	/* open-addressing hash set */
	size_t nslots, nused;
};

void strpool_init(struct strpool *sp);
/* Frees every string of the pool; a zeroed pool is released as empty. */
void strpool_release(struct strpool *sp);
/* The pool's copy of the len bytes at s (a string of them); NULL on out
 * of memory. */
const char *strpool_intern(struct strpool *sp, const char *s, size_t len);
const char *strpool_add(struct strpool *sp, const char *s);

#endif
