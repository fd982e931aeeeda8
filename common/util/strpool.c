// SPDX-License-Identifier: MIT
/* The string pool (strpool.h): chunks, and an open-addressing set of the
 * strings in them, hashed with hash.h's string hash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "strpool.h"

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

static size_t slot_of(const char *s, size_t len)
{
	return (size_t)hash_mix64(hash_mem(HASH_STR_SEED, s, len));
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
		return -1;
	for (i = 0; i < sp->nslots; i++) {
		const char *s = sp->slots[i];
		size_t j;

		if (!s)
			continue;
		for (j = slot_of(s, strlen(s)) & mask; slots[j];
		     j = (j + 1) & mask)
			;
		slots[j] = s;
	}
	free(sp->slots);
	sp->slots = slots;
	sp->nslots = n;
	return 0;
}

const char *strpool_intern(struct strpool *sp, const char *s, size_t len)
{
	size_t i, mask;
	char *p;

	if ((sp->nused + 1) * 4 > sp->nslots * 3 && pool_rehash(sp))
		return NULL;
	mask = sp->nslots - 1;
	for (i = slot_of(s, len) & mask; sp->slots[i]; i = (i + 1) & mask) {
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
