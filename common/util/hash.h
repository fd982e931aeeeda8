/* SPDX-License-Identifier: MIT */
/*
 * Hashing for the tables of the report, the exports and the symbolizer:
 * one mixer, one string (and byte) hash and one open-addressing index,
 * so every table spreads its keys alike and none grows its own.
 */
#ifndef COMMON_UTIL_HASH_H
#define COMMON_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

/* A 64-bit finalizer (MurmurHash3's fmix64): every input bit moves every
 * output bit, so the low bits that pick a slot are well spread. */
static inline uint64_t hash_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

#define HASH_STR_SEED 0xcbf29ce484222325ULL

/* FNV-1a of the len bytes at p continuing from h; start from
 * HASH_STR_SEED. */
static inline uint64_t hash_mem(uint64_t h, const void *p, size_t len)
{
	const unsigned char *s = p;

	while (len--)
		h = (h ^ *s++) * 0x100000001b3ULL;
	return h;
}

/* FNV-1a of s (NULL: nothing) continuing from h; start from
 * HASH_STR_SEED.  The same as hash_mem() over s's bytes. */
static inline uint64_t hash_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/*
 * An open-addressing index over entries the caller keeps in an array of
 * its own (in insertion order: the index never reorders them): it maps a
 * key's hash to the entry numbers with that hash, and the caller's eq
 * tells which is the key.  Linear probing, at most half full; the slot
 * is picked by hash_mix64() of the hash, so any 64-bit hash will do.
 * Zeroed (HASHMAP_INIT) is empty; hashmap_release() frees it.
 */
struct hashmap_slot {
	uint64_t hash;
	size_t entry;			/* entry number + 1; 0: empty */
};

struct hashmap {
	struct hashmap_slot *slots;
	size_t cap;			/* a power of two, or 0 */
	size_t n;			/* entries indexed */
};

#define HASHMAP_INIT { NULL, 0, 0 }

/* Whether entry is the key ctx stands for. */
typedef int hashmap_eq_fn(const void *ctx, size_t entry);

/* The entry whose hash is hash and that eq accepts, or SIZE_MAX. */
size_t hashmap_find(const struct hashmap *m, uint64_t hash,
		    hashmap_eq_fn *eq, const void *ctx);
/* Index entry under hash (not there yet: see hashmap_find()); grows the
 * table.  0, or -PROF_ENOMEM (m unchanged). */
int hashmap_add(struct hashmap *m, uint64_t hash, size_t entry);
void hashmap_release(struct hashmap *m);

#endif
