/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

int array_grow(void **ptr, size_t elem_size, size_t nr, size_t *alloc)
{
	size_t n;
	void *p;

	if (nr <= *alloc)
		return 0;
	n = *alloc ? *alloc : 16;
	while (n < nr) {
		if (n > SIZE_MAX / 2)
			return -1;
		n *= 2;
	}
	if (n > SIZE_MAX / elem_size)
		return -1;
	p = realloc(*ptr, n * elem_size);
	if (!p)
		return -1;
	*ptr = p;
	*alloc = n;
	return 0;
}

int array_grow_zero(void **ptr, size_t elem_size, size_t nr, size_t *alloc)
{
	size_t old = *alloc;

	if (array_grow(ptr, elem_size, nr, alloc))
		return -1;
	if (*alloc > old)
		memset((char *)*ptr + old * elem_size, 0,
		       (*alloc - old) * elem_size);
	return 0;
}
