// SPDX-License-Identifier: MIT
/*
 * fuzz_pylines: CPython 3.11's location table (a code object's
 * co_linetable) as common/engine/pycode.c decodes it from a process it
 * reads: py_linetable_line() for every instruction the table could
 * cover, and some past it.
 *
 * Input: a first line number (int32, little-endian; missing bytes
 * zero), then the table's bytes.  Besides memory errors, a result that
 * breaks the contract aborts: a line that is neither -1 nor >= 0, an
 * instruction before the first that is not at the first line, one past
 * any table of that size (each entry byte covers at most 8 code units)
 * that has a line.
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
	return 0;
}
