/* SPDX-License-Identifier: MIT */
/*
 * The time stream's section (events.c), for the encoder and the decoder.
 */
#ifndef COMMON_PROFILE_EVENTS_H
#define COMMON_PROFILE_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* Section 15 of p's events, their task counts given in the file's order
 * (file_tc[i]: the file index of p's task count i), in *out (malloc'd,
 * *outlen bytes).  0 or -PROF_ENOMEM. */
int profile_events_encode(const struct profile *p, const uint32_t *file_tc,
			  uint8_t **out, size_t *outlen);
/* Section 15's n bytes at d into p (its task counts and stacks read):
 * 0 (p->timeline KEPT), -PROF_EFORMAT with *why a phrase, -PROF_ENOMEM
 * (a distinct code: -1 is -PROF_ENOMEM). */
int profile_events_decode(struct profile *p, const uint8_t *d, size_t n,
			  const char **why);

#endif
