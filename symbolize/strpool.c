// SPDX-License-Identifier: MIT
/*
 * The string pool every string the symbolizer hands out lives in
 * (contract in symbolize_int.h).  A leaf of symbolize/: it uses nothing
 * else of the directory.
 */
#include <stdlib.h>
#include <string.h>

#include "symbolize_int.h"

#define POOL_CHUNK 65536

void strpool_init(struct strpool *sp)
{
	memset(sp, 0, sizeof(*sp));
}

void strpool_release(struct strpool *sp)
{
	char *c = sp->chunk;

	while (c) {
		char *next;

		memcpy(&next, c, sizeof(next));
		free(c);
		c = next;
	}
	free(sp->slots);
	memset(sp, 0, sizeof(*sp));
}

size_t strpool_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return (size_t)(h ^ (h >> 29));
}

/* Chunks are linked through a pointer stored in their first bytes. */
static char *pool_alloc(struct strpool *sp, size_t len)
{
	char *c, *p;
	size_t size;

	if (sp->chunk && sp->size - sp->used >= len) {
		p = sp->chunk + sp->used;
		sp->used += len;
		return p;
	}
	size = len + sizeof(char *) > POOL_CHUNK ? len + sizeof(char *) :
						   POOL_CHUNK;
	c = malloc(size);
	if (!c)
		return NULL;
	memcpy(c, &sp->chunk, sizeof(sp->chunk));
	sp->chunk = c;
	sp->size = size;
	sp->used = sizeof(char *) + len;
	return c + sizeof(char *);
}

static int pool_rehash(struct strpool *sp)
{
	size_t n = sp->nslots ? sp->nslots * 2 : 4096, i, mask = n - 1;
	const char **slots = calloc(n, sizeof(*slots));

	if (!slots)
		return SYM_ENOMEM;
	for (i = 0; i < sp->nslots; i++) {
		const char *s = sp->slots[i];
		size_t j;

		if (!s)
			continue;
		for (j = strpool_hash(s, strlen(s)) & mask; slots[j];
		     j = (j + 1) & mask)
			;
		slots[j] = s;
	}
	free(sp->slots);
	sp->slots = slots;
	sp->nslots = n;
	return SYM_OK;
}

const char *strpool_intern(struct strpool *sp, const char *s, size_t len)
{
	size_t i, mask;
	char *p;

	if ((sp->nused + 1) * 4 > sp->nslots * 3 && pool_rehash(sp))
		return NULL;
	mask = sp->nslots - 1;
	for (i = strpool_hash(s, len) & mask; sp->slots[i]; i = (i + 1) & mask) {
		const char *t = sp->slots[i];

		if (!strncmp(t, s, len) && !t[len])
			return t;
	}
	p = pool_alloc(sp, len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	sp->slots[i] = p;
	sp->nused++;
	return p;
}

const char *strpool_add(struct strpool *sp, const char *s)
{
	return strpool_intern(sp, s, strlen(s));
}
