/* SPDX-License-Identifier: MIT */
/*
 * Growable arrays: one checked helper instead of scattered realloc calls.
 *
 *   ALLOC_GROW(ptr, nr, alloc) makes room for at least nr elements in ptr,
 *   whose current capacity is alloc (updated).  It evaluates to 0 on
 *   success and -1 when out of memory, in which case ptr is untouched.
 *   ALLOC_GROW_ZERO() the same, the new room zeroed (a table indexed
 *   by a number, each slot valid once in it: alloc is its size).
 */
#ifndef COMMON_ARRAY_H
#define COMMON_ARRAY_H

#include <stddef.h>

int array_grow(void **ptr, size_t elem_size, size_t nr, size_t *alloc);
int array_grow_zero(void **ptr, size_t elem_size, size_t nr, size_t *alloc);

/* nr and alloc are evaluated twice: the call only when the room is short
 * (per-sample appends). */
#define ALLOC_GROW(ptr, nr, alloc) \
	((size_t)(nr) <= (alloc) ? 0 : \
	 array_grow((void **)&(ptr), sizeof(*(ptr)), (nr), &(alloc)))

#define ALLOC_GROW_ZERO(ptr, nr, alloc) \
	((size_t)(nr) <= (alloc) ? 0 : \
	 array_grow_zero((void **)&(ptr), sizeof(*(ptr)), (nr), &(alloc)))

#endif
