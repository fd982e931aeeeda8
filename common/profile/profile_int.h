/* SPDX-License-Identifier: MIT */
/*
 * What the files of the profile layer share and nothing else sees: the
 * file format's constants (docs/profile-format.md; keep the two in step),
 * the metadata keys' one table (meta.c), and the helpers the model
 * (profile.c), the archived files (files.c), the encoder (encode.c) and
 * the decoder (decode.c) have in common.
 */
#ifndef COMMON_PROFILE_INT_H
#define COMMON_PROFILE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#define PROFILE_MAGIC "UMONPROF"	/* 8 bytes, no NUL in the file */
#define PROFILE_MAGIC_LEN 8

enum section_id {
	SEC_META = 1,
	SEC_STATS = 2,
	SEC_OBJECTS = 3,
	SEC_COUNTS = 4,
	SEC_MODES = 5,
	SEC_KSYMS = 6,		/* optional */
	SEC_FRAMES = 7,		/* optional, version 2: 7-9 together */
	SEC_STACKS = 8,
	SEC_STACK_COUNTS = 9,
	SEC_TASKS = 10,		/* optional: 10-11 together */
	SEC_TASK_COUNTS = 11,
	SEC_JITSYMS = 12,	/* optional */
	SEC_FILES = 13,		/* optional: an archive's files */
	SEC_IDENTITIES = 14,	/* optional: what file objects were */
	SEC_EVENTS = 15,	/* optional, version 3: the time stream */
	SEC_JITCODE = 16,	/* optional: JIT symbols' code and lines */
	SEC_LAST = SEC_JITCODE
};

#define HEADER_SIZE 32
#define SECTION_ENTRY_SIZE 24
#define MAX_STRING (1u << 20)
#define MAX_SECTIONS 64

/*
 * The metadata section's keys, in the order the encoder writes them.  The
 * decoder reads them in any order, the last of a key winning, and
 * ignores keys it does not know (newer writers may add some), as it
 * ignores a key of a file older than the key's version.
 */
enum profile_meta_type {
	META_STR,		/* char *: any string */
	META_ARGV,		/* the command line: NUL-terminated words */
	META_CALL_GRAPH,	/* uint32_t: enum prof_call_graph, by name */
	/* Decimal numbers in [min, max], stored in a field of the type: */
	META_U64,
	META_I64,
	META_I32,		/* (cast: the writer only writes int32_t) */
	META_U32,
};

/* A negative number reads as 0 (-1 once meant "none" there). */
#define META_NEG_IS_0 0x1

struct profile_meta_key {
	const char *name;
	enum profile_meta_type type;
	size_t off;		/* of the field in struct profile */
	int64_t min, max;	/* numbers: what the decoder accepts */
	unsigned flags;		/* META_NEG_IS_0 */
	uint32_t since;		/* file version that has the key */
	/* Whether the encoder writes the key; NULL: always. */
	int (*written)(const struct profile *p);
};

extern const struct profile_meta_key profile_meta_keys[];
extern const size_t profile_nmeta_keys;

/* The key named name in a file of version version, or NULL. */
const struct profile_meta_key *profile_meta_key(const char *name,
						uint32_t version);
/* The name of call-graph mode cg, NULL for PROF_CG_NONE (not written);
 * the mode named s, or -1. */
const char *profile_call_graph_name(uint32_t cg);
int profile_call_graph_parse(const char *s);

/* A task count as the file has it: the index of its count; src: its
 * index in memory (profile_task_entries()). */
struct task_entry {
	uint32_t count, task, cpu, state, src;
	uint64_t samples, weight;
};

/* The file's orders: task entries by (count, task, cpu, state), stack counts by
 * (statistic, stack); for qsort(). */
int profile_task_entry_cmp(const void *a, const void *b);
int profile_stack_count_cmp(const void *a, const void *b);
/*
 * The task counts as file entries, sorted by (count, task, cpu, state), in
 * *out (n = ntask_counts); 1 when they are whole (see
 * profile_tasks_consistent()), 0 when not (*out NULL), -PROF_ENOMEM.
 */
int profile_task_entries(const struct profile *p, struct task_entry **out);

/*
 * The time stream's check, for the decoder and the encoder: each event's
 * task count and stack in range, times not wrapping, and the events
 * adding up to the task counts and stack counts exactly.  0, or
 * -PROF_EFORMAT with *why a phrase; -PROF_ENOMEM.
 */
int profile_events_check(const struct profile *p, const char **why);

/* The cap on archived files that a file of size bytes, zlen compressed,
 * after total bytes of files, is over (a phrase for a message), or NULL. */
const char *profile_file_cap(uint64_t size, uint64_t zlen, uint64_t total);

/* write(2) all n bytes (EINTR retried); 0, or -1 with errno. */
int profile_write_all(int fd, const uint8_t *p, size_t n);

#endif
