/* SPDX-License-Identifier: MIT */
/*
 * Hashing for the open-addressing tables of the report and the exports:
 * one mixer and one string hash, so every table spreads its keys alike.
 */
#ifndef COMMON_UTIL_HASH_H
#define COMMON_UTIL_HASH_H

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

/* FNV-1a of s (NULL: nothing) continuing from h; start from
 * HASH_STR_SEED. */
static inline uint64_t hash_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

#endif
