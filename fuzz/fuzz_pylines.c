// SPDX-License-Identifier: MIT
/*
 * fuzz_pylines: CPython's line tables (a code object's co_linetable, or
 * 3.9's co_lnotab) as common/engine/pylines.c decodes them from a
 * process it reads: for 3.11's location tables, 3.10's pairs and 3.9's
 * pairs, the line of every instruction the table could cover, and some
 * past it.
 *
 * Input: a first line number (int32, little-endian; missing bytes
 * zero), then the table's bytes, decoded as each kind.  Besides memory
 * errors, a result that breaks the contract aborts: a line that is
 * neither -1 nor >= 0, an instruction before the first that is not at
 * the first line, and, in a location table, one past any table of that
 * size (each entry byte covers at most 8 code units) that has a line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/engine/pyframes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t head[4] = { 0 };
	const uint8_t *t = data + (size < 4 ? size : 4);
	size_t len = size < 4 ? 0 : size - 4;
	int32_t first, instr, max = (int32_t)(8 * len + 8);
	unsigned minor;

	memcpy(head, data, size < 4 ? size : 4);
	first = (int32_t)((uint32_t)head[0] | (uint32_t)head[1] << 8 |
			  (uint32_t)head[2] << 16 | (uint32_t)head[3] << 24);
	if (len > PY_MAX_LINETABLE)
		return 0;
	if (py_linetable_line(t, len, first, -1) != first)
		abort();
	for (instr = 0; instr < max; instr++)
		if (py_linetable_line(t, len, first, instr) < -1)
			abort();
	if (py_linetable_line(t, len, first, max) != -1)
		abort();
	/* 3.9 and 3.10: pairs of bytes, decoded whatever they hold. */
	for (minor = 9; minor <= 10; minor++) {
		if (py_table_line(minor, t, len, first, -1) != first)
			abort();
		for (instr = 0; instr < max; instr++)
			if (py_table_line(minor, t, len, first, instr) < -1)
				abort();
	}
	return 0;
}
