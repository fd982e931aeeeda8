/* SPDX-License-Identifier: MIT */
/* The open-addressing index of hash.h. */
#include <stdlib.h>

#include "error.h"
#include "hash.h"

size_t hashmap_find(const struct hashmap *m, uint64_t hash,
		    hashmap_eq_fn *eq, const void *ctx)
{
	size_t mask, i;

	if (!m->cap)
		return SIZE_MAX;
	mask = m->cap - 1;
	for (i = hash_mix64(hash) & mask; m->slots[i].entry;
	     i = (i + 1) & mask)
		if (m->slots[i].hash == hash && eq(ctx, m->slots[i].entry - 1))
			return m->slots[i].entry - 1;
	return SIZE_MAX;
}

static void put(struct hashmap_slot *slots, size_t mask, uint64_t hash,
		size_t entry1)
{
	size_t i;

	for (i = hash_mix64(hash) & mask; slots[i].entry; i = (i + 1) & mask)
		;
	slots[i].hash = hash;
	slots[i].entry = entry1;
}

/* Twice the slots (256 at first), every entry placed again. */
static int grow(struct hashmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256, i;
	struct hashmap_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -PROF_ENOMEM;
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].entry)
			put(slots, cap - 1, m->slots[i].hash,
			    m->slots[i].entry);
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int hashmap_add(struct hashmap *m, uint64_t hash, size_t entry)
{
	if ((m->n + 1) * 2 > m->cap && grow(m))
		return -PROF_ENOMEM;
	put(m->slots, m->cap - 1, hash, entry + 1);
	m->n++;
	return 0;
}

void hashmap_release(struct hashmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}
