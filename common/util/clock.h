/* SPDX-License-Identifier: MIT */
/* Clock readings in nanoseconds. */
#ifndef COMMON_UTIL_CLOCK_H
#define COMMON_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* clk's time in ns (CLOCK_MONOTONIC for intervals, CLOCK_REALTIME for
 * the wall clock). */
uint64_t prof_clock_ns(clockid_t clk);

#endif
