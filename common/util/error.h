/* SPDX-License-Identifier: MIT */
/*
 * Errors of the common layer.  Library functions never print or exit: they
 * return a negative PROF_E* code and record one line of detail (the subject
 * quoted, e.g. "cannot open 'umon.out': Permission denied") that the front
 * end prints.  prof_error() returns the detail of the last failure, or the
 * generic text of the code when none was recorded.
 */
#ifndef COMMON_ERROR_H
#define COMMON_ERROR_H

#define PROF_ERRORS \
	E(OK,        "success") \
	E(NOMEM,     "out of memory") \
	E(IO,        "input/output error") \
	E(FORMAT,    "not a valid profile file") \
	E(VERSION,   "unsupported profile file version") \
	E(NOSTAT,    "unknown statistic") \
	E(UNAVAIL,   "statistic not available on this machine") \
	E(PERM,      "not permitted") \
	E(PERF,      "performance event error") \
	E(NOENT,     "not found") \
	E(NOEXEC,    "cannot execute") \
	E(INVAL,     "invalid argument")

enum prof_err {
#define E(name, text) PROF_E##name,
	PROF_ERRORS
#undef E
	PROF_NERRORS
};

const char *prof_strerror(int err);

/* Record detail for the current failure; returns -err for convenience. */
int prof_fail(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The detail of the last prof_fail() when it failed with err's code,
 * else prof_strerror(err): an error returned without a detail (a bare
 * -PROF_ENOMEM) does not show an older failure of another code. */
const char *prof_error(int err);

#endif
