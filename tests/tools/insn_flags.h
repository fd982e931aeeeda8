/* SPDX-License-Identifier: MIT */
/* The letters blockcheck and decodecheck print for an instruction's
 * SYM_INSN_* flags (symbolize/symbolize.h); "-" for none.  buf holds at
 * least 11 bytes. */
#ifndef TESTS_TOOLS_INSN_FLAGS_H
#define TESTS_TOOLS_INSN_FLAGS_H

#include <stddef.h>

#include "symbolize/symbolize.h"

static inline const char *insn_flag_letters(unsigned f, char *buf)
{
	static const struct {
		unsigned flag;
		char c;
	} tab[] = {
		{ SYM_INSN_BRANCH, 'b' }, { SYM_INSN_COND, 'c' },
		{ SYM_INSN_CALL, 'C' }, { SYM_INSN_RET, 'r' },
		{ SYM_INSN_INDIRECT, 'i' }, { SYM_INSN_NORETURN, 'n' },
		{ SYM_INSN_DATA, 'd' }, { SYM_INSN_REP, 'R' },
		{ SYM_INSN_TRAP, 't' }, { SYM_INSN_UNKNOWN, 'u' },
	};
	size_t i, n = 0;

	for (i = 0; i < sizeof(tab) / sizeof(*tab); i++)
		if (f & tab[i].flag)
			buf[n++] = tab[i].c;
	if (!n)
		buf[n++] = '-';
	buf[n] = '\0';
	return buf;
}

#endif
