/* SPDX-License-Identifier: MIT */
/*
 * Reading the little-endian byte formats of ELF and DWARF data (.eh_frame,
 * CFI expressions): fixed-size words and LEB128 numbers from a cursor that
 * never reads past its end.  A read that does not fit sets bad and returns
 * 0; once bad, every read returns 0, so a parser checks bad once after a
 * run of reads.
 */
#ifndef COMMON_BYTES_H
#define COMMON_BYTES_H

#include <stdint.h>

struct bytes {
	const uint8_t *p, *end;
	int bad;
};

/* An n-byte (n <= 8) little-endian unsigned word. */
uint64_t bytes_u(struct bytes *b, unsigned n);
uint64_t bytes_uleb(struct bytes *b);
int64_t bytes_sleb(struct bytes *b);

#endif
