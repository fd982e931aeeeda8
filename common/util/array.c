/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdlib.h>

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
