/* SPDX-License-Identifier: MIT */
/*
 * The perf.data reader's insides, shared by its two files, the second
 * calling only the first: perfdata.c (the file or stream: header,
 * events and their ids, features, reading records one after another)
 * and perfrec.c (the records: each parsed, a round sorted by time and
 * delivered to the collector, compressed ones inflated).
 */
#ifndef COMMON_ENGINE_PERFDATA_INT_H
#define COMMON_ENGINE_PERFDATA_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "common/util/bytes.h"
#include "common/util/hash.h"
#include "perfdata.h"

/* perf's own record types (tools/lib/perf/include/perf/event.h). */
enum {
	PD_HEADER_ATTR = 64,
	PD_HEADER_EVENT_TYPE = 65,
	PD_HEADER_TRACING_DATA = 66,
	PD_HEADER_BUILD_ID = 67,
	PD_FINISHED_ROUND = 68,
	PD_ID_INDEX = 69,
	PD_AUXTRACE_INFO = 70,
	PD_AUXTRACE = 71,
	PD_AUXTRACE_ERROR = 72,
	PD_THREAD_MAP = 73,
	PD_CPU_MAP = 74,
	PD_STAT_CONFIG = 75,
	PD_STAT = 76,
	PD_STAT_ROUND = 77,
	PD_EVENT_UPDATE = 78,
	PD_TIME_CONV = 79,
	PD_HEADER_FEATURE = 80,
	PD_COMPRESSED = 81,
	PD_FINISHED_INIT = 82,
	PD_COMPRESSED2 = 83,
	PD_NTYPES = 256,	/* counted one by one below it */
};

/* Feature bits (perf's header.h). */
enum {
	F_TRACING_DATA = 1, F_BUILD_ID = 2, F_HOSTNAME = 3, F_OSRELEASE = 4,
	F_VERSION = 5, F_ARCH = 6, F_NRCPUS = 7, F_CPUDESC = 8, F_CPUID = 9,
	F_TOTAL_MEM = 10, F_CMDLINE = 11, F_EVENT_DESC = 12,
	F_BRANCH_STACK = 15, F_PMU_MAPPINGS = 16, F_AUXTRACE = 18, F_STAT = 19,
	F_SAMPLE_TIME = 21, F_DIR_FORMAT = 24, F_COMPRESSED = 27,
	F_LAST_KNOWN = 32,
};

#define HEADER_SIZE 104
#define HEADER_SIZE_OLD 72	/* before the feature bits */
#define PIPE_HEADER_SIZE 16
/* Caps on what a file may declare (far above what perf writes). */
#define MAX_EVENTS 4096
#define MAX_IDS (1u << 20)
#define MAX_FEATURE ((uint64_t)64 << 20)
#define MAX_STRING 4096
/* A round is delivered when it holds this much even without its end. */
#define ROUND_MAX ((size_t)256 << 20)
#define READ_CHUNK ((size_t)1 << 20)
/* Records a byte of compressed data may inflate to, at most: perf's take
 * about 4 bytes each (0.23 and 0.27 records a byte measured, context
 * switches and samples every 10 us).  It bounds the work a small hostile
 * stream asks for (an 8-byte record repeated: 16 million from 33 KB). */
#define ZSTD_MAX_RECS_PER_BYTE 8
#define ZSTD_RECS_SLACK 4096

#define MISC_MMAP_DATA (1 << 13)
#define MISC_BUILD_ID_SIZE (1 << 15)
#define MISC_MMAP_BUILD_ID (1 << 14)
#define PERF_REGS_ABI_32 1
#define PERF_REGS_ABI_64 2

struct event {
	struct perf_data_event pub;
	uint64_t read_format, branch_type;
	bool sample_id_all;
	/* Samples lost, as the kernel's LOST records say, and as perf's
	 * LOST_SAMPLES (perf 6.x writes those too, at the end, for the
	 * same losses: only one of the two is counted). */
	uint64_t lost_rec, lost_samples;
};

struct idmap {
	uint64_t id;
	uint32_t ev;
	uint64_t last;		/* its count at the last group read */
};

/* Group reads (perf record -e '{A,B}:S'): each member's count at a
 * leader's sample. */
#define MAX_GROUP 64
struct group_read {
	uint64_t value[MAX_GROUP], id[MAX_GROUP];
	size_t n;
};

struct bid {
	char *path;
	uint8_t id[20];
	uint8_t len;
};

/* A record of the current round: arena offset, 8-byte aligned. */
struct prec {
	size_t off;
	uint64_t time, seq;
};

struct perfdata {
	int fd;
	char *name;
	bool seekable;		/* a regular file: read at offsets */
	bool pipe;		/* perf's pipe format: records to the end */
	uint64_t file_size;
	uint64_t data_off, data_size;
	bool unfinished;	/* data.size 0: perf record was killed */
	bool distrust;		/* another user's: perf_data_distrust() */

	struct event *ev;
	size_t nev, alloc_ev;
	struct idmap *ids;
	size_t nids, alloc_ids;
	struct hashmap id_map;	/* the entries of ids, by id */
	/* Where a record says its event (all events agree: perf's rule):
	 * the sample's u64 index of its id (-1: none), a trailer's. */
	int sample_id_at;
	uint64_t trailer_type;	/* sample_type of the trailers */
	bool trailers;

	struct perf_data_meta meta;
	struct bid *bids;
	size_t nbids, alloc_bids;
	struct hashmap bid_map;	/* the entries of bids, by path */

	/* The stream. */
	uint8_t *buf;
	size_t blen, bpos, balloc;
	uint64_t pos, end;	/* file: next offset to read, end of data */
	bool eof;
	uint8_t *pending;	/* pipe: the first data record, read by open */

	/* zstd */
	ZSTD_DStream *zs;
	uint8_t *zbuf;
	size_t zlen, zalloc;
	uint64_t zin, zrecs;	/* compressed bytes, records inflated */

	/* The round. */
	uint8_t *arena;
	size_t alen, aalloc;
	struct prec *recs;
	size_t nrecs, alloc_recs;
	uint64_t seq;

	/* Replay. */
	struct collector *col;
	const uint32_t *stat_of;
	const uint32_t *pm_of;
	uint32_t switch_stat;
	uint64_t first, last;

	uint64_t types[PD_NTYPES + 1];	/* records seen, by type */
	uint64_t unknown_id, malformed, left_out, pm_dropped, distrusted;
	uint64_t replaced;
	char **notes;
	size_t nnotes, alloc_notes;
	bool noted;
};

/* A word of a record, in this machine's order (perf.data files of the
 * other are refused). */
static inline uint64_t u64(struct bytes *b)
{
	return bytes_uo(b, 8, BYTES_HOST_BIG);
}

static inline uint32_t u32(struct bytes *b)
{
	return (uint32_t)bytes_uo(b, 4, BYTES_HOST_BIG);
}

/* perfdata.c */
/* -PROF_EFORMAT: "'NAME' is not a valid perf.data: what". */
int perf_data_bad(const struct perfdata *pd, const char *what);
/* A line for perf_data_note() (0 or -PROF_ENOMEM). */
int perf_data_add_note(struct perfdata *pd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The next record of the stream (*size 0 at its end), valid until the
 * next call; skip n bytes of it. */
int perf_data_next_record(struct perfdata *pd, const uint8_t **rec,
			  size_t *size);
int perf_data_skip(struct perfdata *pd, uint64_t n);
/* Event ids: added, found (NULL / -1 when unknown). */
int perf_data_add_id(struct perfdata *pd, uint64_t id, uint32_t ev);
struct idmap *perf_data_find_id(struct perfdata *pd, uint64_t id);
long perf_data_event_of_id(struct perfdata *pd, uint64_t id);
/* Pipe-mode records of what a file has in its header: an event with its
 * ids, a feature section, a build-id. */
int perf_data_header_attr(struct perfdata *pd, const uint8_t *rec,
			  size_t size);
int perf_data_header_feature(struct perfdata *pd, const uint8_t *rec,
			     size_t size);
int perf_data_add_build_id(struct perfdata *pd, struct bytes *b,
			   size_t size);

#endif
