/* SPDX-License-Identifier: MIT */
/*
 * CPython's line tables (pyframes.h): the line of an instruction, in each
 * of the three ways a version writes them.  Pure: the tables were read
 * by pycode.c.
 */

#include "pyframes_int.h"
#include "common/util/bytes.h"

/* A location table's varint: 6-bit groups, least significant first,
 * bit 6 set on all but the last; sets b->bad past 32 bits. */
static uint32_t lt_varint(struct bytes *b)
{
	uint32_t v = 0;
	unsigned shift = 0;
	uint8_t c;

	do {
		c = (uint8_t)bytes_u(b, 1);
		if (shift > 30)
			b->bad = 1;
		else
			v |= (uint32_t)(c & 0x3f) << shift;
		shift += 6;
	} while ((c & 0x40) && !b->bad);
	return v;
}

/* A signed varint: the sign in bit 0 of the magnitude's varint. */
static int64_t lt_svarint(struct bytes *b)
{
	uint32_t u = lt_varint(b);

	return u & 1 ? -(int64_t)(u >> 1) : (int64_t)(u >> 1);
}

/*
 * The location table of 3.11 on (CPython's Objects/locations.md):
 * entries, each a first byte 1CCCCLLL (code C, L + 1 code units), then by
 * code:
 * 0-9 one column byte (same line); 10-12 two column bytes, the line
 * moves by C - 10; 13 the line's move as a signed varint, no columns;
 * 14 the same, then end line, column and end column varints; 15 no
 * location (the line does not move).  Lines move from co_firstlineno.
 */
int py_linetable_line(const uint8_t *table, size_t len, int firstlineno,
		      int32_t instr)
{
	struct bytes b = bytes_of(table, len);
	int64_t line = firstlineno, at = 0;

	if (instr < 0)
		return firstlineno;
	while (bytes_left(&b)) {
		unsigned head = (unsigned)bytes_u(&b, 1);
		unsigned code = (head >> 3) & 15;
		int64_t units = (head & 7) + 1;

		if (!(head & 0x80))
			return -1;	/* not the start of an entry */
		if (code <= 9) {
			bytes_skip(&b, 1);
		} else if (code <= 12) {
			line += code - 10;
			bytes_skip(&b, 2);
		} else if (code == 13) {
			line += lt_svarint(&b);
		} else if (code == 14) {
			line += lt_svarint(&b);
			lt_varint(&b);
			lt_varint(&b);
			lt_varint(&b);
		}
		if (b.bad || line < 0 || line > INT32_MAX)
			return -1;
		if (instr < at + units)
			return code == 15 ? -1 : (int)line;
		at += units;
	}
	return -1;
}

/*
 * 3.9's co_lnotab and 3.10's co_linetable (their Objects/lnotab_notes.txt)
 * are both pairs of bytes: a move of the bytecode offset (unsigned, in
 * bytes) and of the line (signed).  3.9's pair (ranges false) says where
 * a new line starts: an instruction's line is that of the last start at
 * or before it.  3.10's pair is a range: the move's bytes from the
 * offset, at the line moved by it (-128: the range has no line, and the
 * line does not move); a range of length 0 moves the line only (a move
 * too long for a byte).
 */
static int pairs_line(const uint8_t *table, size_t len, int firstlineno,
		      int32_t instr, bool ranges)
{
	struct bytes b = bytes_of(table, len);
	int64_t line = firstlineno, at = 0;
	int64_t addr = (int64_t)instr * 2;

	if (instr < 0)
		return firstlineno;
	while (bytes_left(&b) >= 2) {
		int64_t delta = (int64_t)bytes_u(&b, 1);
		int move = (int8_t)bytes_u(&b, 1);

		at += delta;
		if (!ranges && at > addr)
			break;
		if (!ranges || move != -128)
			line += move;
		if (line < 0 || line > INT32_MAX)
			return -1;
		if (ranges && addr < at)
			return move == -128 ? -1 : (int)line;
	}
	return ranges || line < 0 || line > INT32_MAX ? -1 : (int)line;
}

int py_lines_line(enum py_lines kind, const uint8_t *table, size_t len,
		  int firstlineno, int32_t instr)
{
	switch (kind) {
	case PY_LINES_LNOTAB:
		return pairs_line(table, len, firstlineno, instr, false);
	case PY_LINES_PAIRS:
		return pairs_line(table, len, firstlineno, instr, true);
	default:
		return py_linetable_line(table, len, firstlineno, instr);
	}
}

int py_table_line(unsigned minor, const uint8_t *table, size_t len,
		  int firstlineno, int32_t instr)
{
	const struct layout *l = py_layout_of(minor);

	return l ? py_lines_line(l->lines, table, len, firstlineno, instr) :
		   -1;
}
