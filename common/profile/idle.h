/* SPDX-License-Identifier: MIT */
/* The idle task (pid 0) in a profile's task counts (idle.c). */
#ifndef COMMON_PROFILE_IDLE_H
#define COMMON_PROFILE_IDLE_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* The samples of statistic stat the idle task took (0 when the profile
 * has no task counts). */
uint64_t profile_idle_samples(const struct profile *p, size_t stat);

#endif
