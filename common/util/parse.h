/* SPDX-License-Identifier: MIT */
/*
 * Number parsing for option values: the whole string must be a number in
 * range; "abc", "12x", "" and overflow are errors (never silently 0).
 * Each returns 0 on success and -1 on error, leaving *out untouched.
 */
#ifndef COMMON_PARSE_H
#define COMMON_PARSE_H

#include <stdint.h>

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int parse_int(const char *s, long min, long max, long *out);
/* Non-negative decimal with optional fraction, e.g. "2.5" seconds. */
int parse_double(const char *s, double min, double max, double *out);

#endif
