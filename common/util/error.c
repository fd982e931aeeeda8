/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"

static const char *const texts[] = {
#define E(name, text) [PROF_E##name] = text,
	PROF_ERRORS
#undef E
};

/* The detail of the last failure, and its code: one per thread, as
 * errno is (a detail is only given back for the code it was made for). */
static _Thread_local char detail[1024];
static _Thread_local int detail_err;

const char *prof_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= PROF_NERRORS)
		return "unknown error";
	return texts[err];
}

int prof_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	detail_err = abs(err);
	return -abs(err);
}

const char *prof_error(int err)
{
	return detail[0] && detail_err == abs(err) ? detail :
	       prof_strerror(err);
}
