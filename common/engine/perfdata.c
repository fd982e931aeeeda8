/* SPDX-License-Identifier: MIT */
/*
 * The perf.data reader (perfdata.h).  Layout facts: perf's
 * Documentation/perf.data-file-format.txt, <linux/perf_event.h> and
 * perf_event_open(2); the notes in docs/perf-data.md say what is read.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "common/collect/collect.h"
#include "common/util/array.h"
#include "common/util/bytes.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "perfdata.h"
#include "profileme.h"

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

/* ---- small helpers ------------------------------------------------------ */

static uint64_t u64(struct bytes *b)
{
	return bytes_uo(b, 8, BYTES_HOST_BIG);
}

static uint32_t u32(struct bytes *b)
{
	return (uint32_t)bytes_uo(b, 4, BYTES_HOST_BIG);
}

static int bad(const struct perfdata *pd, const char *what)
{
	return prof_fail(PROF_EFORMAT, "'%s' is not a valid perf.data: %s",
			 pd->name, what);
}

static int note(struct perfdata *pd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int note(struct perfdata *pd, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (ALLOC_GROW(pd->notes, pd->nnotes + 1, pd->alloc_notes))
		return -PROF_ENOMEM;
	pd->notes[pd->nnotes] = strdup(line);
	if (!pd->notes[pd->nnotes])
		return -PROF_ENOMEM;
	pd->nnotes++;
	return 0;
}

/* Read exactly len bytes at off of the file. */
static int pread_all(struct perfdata *pd, void *dst, size_t len, uint64_t off)
{
	size_t done = 0;

	if (off > pd->file_size || len > pd->file_size - off)
		return bad(pd, "a section lies beyond the end of the file");
	while (done < len) {
		ssize_t r = pread(pd->fd, (uint8_t *)dst + done, len - done,
				  (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return prof_fail(PROF_EIO, "cannot read '%s': %s",
					 pd->name, r ? strerror(errno) :
					 "the file shrank while it was read");
		done += (size_t)r;
	}
	return 0;
}

/* A section of the file, whole, into a new buffer (len <= cap). */
static int read_section(struct perfdata *pd, uint64_t off, uint64_t len,
			uint64_t cap, uint8_t **out)
{
	int err;

	*out = NULL;
	if (len > cap)
		return bad(pd, "a section is larger than any perf writes");
	*out = malloc(len ? (size_t)len : 1);
	if (!*out)
		return prof_fail(PROF_ENOMEM, "out of memory");
	err = pread_all(pd, *out, (size_t)len, off);
	if (err) {
		free(*out);
		*out = NULL;
	}
	return err;
}

/* ---- the stream ----------------------------------------------------------- */

/* Make n bytes available at buf + bpos; fewer only at the end. */
static int fill(struct perfdata *pd, size_t n)
{
	if (pd->blen - pd->bpos >= n)
		return 0;
	if (pd->bpos) {
		memmove(pd->buf, pd->buf + pd->bpos, pd->blen - pd->bpos);
		pd->blen -= pd->bpos;
		pd->bpos = 0;
	}
	while (pd->blen < n && !pd->eof) {
		size_t want = n - pd->blen < READ_CHUNK ? READ_CHUNK :
			      n - pd->blen;
		ssize_t r;

		if (ALLOC_GROW(pd->buf, pd->blen + want, pd->balloc))
			return prof_fail(PROF_ENOMEM, "out of memory");
		if (pd->seekable) {
			if (want > pd->end - pd->pos)
				want = (size_t)(pd->end - pd->pos);
			if (!want) {
				pd->eof = true;
				break;
			}
			r = pread(pd->fd, pd->buf + pd->blen, want,
				  (off_t)pd->pos);
		} else {
			r = read(pd->fd, pd->buf + pd->blen, want);
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return prof_fail(PROF_EIO, "cannot read '%s': %s",
					 pd->name, strerror(errno));
		if (r == 0) {
			if (!pd->pipe && !pd->unfinished)
				return bad(pd, "the file is shorter than its "
					   "data section");
			pd->eof = true;
			break;
		}
		pd->pos += (uint64_t)r;
		pd->blen += (size_t)r;
	}
	return 0;
}

/* Skip n bytes of the stream. */
static int skip(struct perfdata *pd, uint64_t n)
{
	while (n) {
		size_t have = pd->blen - pd->bpos;
		int err;

		if (!have) {
			err = fill(pd, n < READ_CHUNK ? (size_t)n : READ_CHUNK);
			if (err)
				return err;
			have = pd->blen - pd->bpos;
			if (!have)
				return bad(pd, "a record runs past the end "
					   "of the data");
		}
		if (have > n)
			have = (size_t)n;
		pd->bpos += have;
		n -= have;
	}
	return 0;
}

/* A stream that ends inside a record: said (an unfinished file's note
 * says it already). */
static int cut_short(struct perfdata *pd)
{
	size_t left = pd->blen - pd->bpos;

	pd->bpos = pd->blen;
	if (pd->unfinished)
		return 0;
	return note(pd, "it ends inside a record (perf was stopped while "
		    "writing?): its last %zu bytes are not read", left);
}

/*
 * The next record of the stream: *rec points at its header, *size its
 * length; *size 0 at the end.  The record stays valid until the next
 * call.
 */
static int next_record(struct perfdata *pd, const uint8_t **rec,
		       size_t *size)
{
	struct perf_event_header h;
	int err;

	*size = 0;
	err = fill(pd, sizeof(h));
	if (err)
		return err;
	if (pd->blen - pd->bpos < sizeof(h)) {
		if (pd->blen != pd->bpos && !pd->pipe && !pd->unfinished)
			return bad(pd, "the data section ends inside a "
				   "record");
		return pd->blen != pd->bpos ? cut_short(pd) : 0;
	}
	memcpy(&h, pd->buf + pd->bpos, sizeof(h));
	if (h.size < sizeof(h))
		return bad(pd, "a record is shorter than its header");
	err = fill(pd, h.size);
	if (err)
		return err;
	if (pd->blen - pd->bpos < h.size) {
		if (pd->pipe || pd->unfinished)
			return cut_short(pd);	/* what came is read */
		return bad(pd, "a record runs past the end of the data "
			   "section");
	}
	*rec = pd->buf + pd->bpos;
	*size = h.size;
	pd->bpos += h.size;
	return 0;
}

/* ---- events and ids ---------------------------------------------------- */

struct id_key {
	const struct idmap *ids;
	uint64_t id;
};

static int id_eq(const void *ctx, size_t entry)
{
	const struct id_key *k = ctx;

	return k->ids[entry].id == k->id;
}

static int add_id(struct perfdata *pd, uint64_t id, uint32_t ev)
{
	if (pd->nids >= MAX_IDS)
		return bad(pd, "more event ids than any recording has");
	if (ALLOC_GROW(pd->ids, pd->nids + 1, pd->alloc_ids) ||
	    hashmap_add(&pd->id_map, id, pd->nids))
		return prof_fail(PROF_ENOMEM, "out of memory");
	pd->ids[pd->nids].id = id;
	pd->ids[pd->nids].ev = ev;
	pd->ids[pd->nids].last = 0;
	pd->nids++;
	return 0;
}

/* The entry of id, or NULL. */
static struct idmap *find_id(struct perfdata *pd, uint64_t id)
{
	struct id_key k = { pd->ids, id };
	size_t i = hashmap_find(&pd->id_map, id, id_eq, &k);

	return i == SIZE_MAX ? NULL : &pd->ids[i];
}

/* The event of id, or -1. */
static long event_of_id(struct perfdata *pd, uint64_t id)
{
	const struct idmap *m = find_id(pd, id);

	return m ? (long)m->ev : -1;
}

/* An attribute of size len (perf_event_attr, as long as its writer's);
 * its ids follow elsewhere. */
static int add_event(struct perfdata *pd, const uint8_t *p, size_t len)
{
	struct perf_event_attr a;
	struct bytes b = bytes_of(p, len);
	struct event *e;
	uint32_t size;

	if (pd->nev >= MAX_EVENTS)
		return bad(pd, "more events than any recording has");
	if (len < 64)
		return bad(pd, "an event's attribute is too short");
	bytes_skip(&b, 4);
	size = u32(&b);
	if (size && size < 64)
		return bad(pd, "an event's attribute is too short");
	memset(&a, 0, sizeof(a));
	memcpy(&a, p, len < sizeof(a) ? len : sizeof(a));
	if (ALLOC_GROW(pd->ev, pd->nev + 1, pd->alloc_ev))
		return prof_fail(PROF_ENOMEM, "out of memory");
	e = &pd->ev[pd->nev++];
	memset(e, 0, sizeof(*e));
	e->pub.type = a.type;
	e->pub.config = a.config;
	e->pub.sample_type = a.sample_type;
	if (a.freq)
		e->pub.freq = a.sample_freq;
	else
		e->pub.period = a.sample_period;
	e->pub.regs_user = a.sample_regs_user;
	e->pub.stack_user = a.sample_stack_user;
	e->pub.exclude_user = a.exclude_user;
	e->pub.exclude_kernel = a.exclude_kernel;
	e->pub.exclude_hv = a.exclude_hv;
	e->pub.callchain_user = (a.sample_type & PERF_SAMPLE_CALLCHAIN) &&
				!a.exclude_callchain_user;
	e->pub.context_switch = a.context_switch;
	e->read_format = a.read_format;
	e->branch_type = a.branch_sample_type;
	e->sample_id_all = a.sample_id_all;
	return 0;
}

/* Where records carry their event's id, from the first event (perf
 * gives every event of a recording the same places). */
static void id_places(struct perfdata *pd)
{
	uint64_t st;
	int at = 0;

	pd->sample_id_at = -1;
	if (!pd->nev)
		return;
	st = pd->ev[0].pub.sample_type;
	pd->trailer_type = st;
	pd->trailers = pd->ev[0].sample_id_all;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		pd->sample_id_at = 0;
		return;
	}
	if (!(st & PERF_SAMPLE_ID))
		return;
	at += !!(st & PERF_SAMPLE_IP);
	at += !!(st & PERF_SAMPLE_TID);
	at += !!(st & PERF_SAMPLE_TIME);
	at += !!(st & PERF_SAMPLE_ADDR);
	pd->sample_id_at = at;
}

/* ---- features ------------------------------------------------------------ */

/* perf_header_string: u32 len, then len bytes holding a NUL. */
static char *feat_string(struct bytes *b)
{
	uint32_t len = u32(b);
	const uint8_t *s;

	if (b->bad || len > MAX_STRING || len > bytes_left(b)) {
		b->bad = 1;
		return NULL;
	}
	s = bytes_get(b, len);
	return s ? strndup((const char *)s, len) : NULL;
}

static void set_string(char **dst, struct bytes *b)
{
	char *s = feat_string(b);

	if (!s)
		return;
	free(*dst);
	*dst = s;
}

struct bid_key {
	const struct bid *bids;
	const char *path;
};

static int bid_eq(const void *ctx, size_t entry)
{
	const struct bid_key *k = ctx;

	return !strcmp(k->bids[entry].path, k->path);
}

/* The entry of path's build-id, or SIZE_MAX. */
static size_t bid_of(const struct perfdata *pd, const char *path)
{
	struct bid_key k = { pd->bids, path };

	return hashmap_find(&pd->bid_map, hash_str(HASH_STR_SEED, path),
			    bid_eq, &k);
}

static int add_build_id(struct perfdata *pd, struct bytes *b, size_t size)
{
	const uint8_t *p;
	struct bid *d;
	uint16_t misc;
	const uint8_t *id;
	size_t n, i;

	/* header, pid, build_id[24], filename[] */
	if (size < 8 + 4 + 24 + 1)
		return bad(pd, "a build-id entry is too short");
	p = bytes_get(b, size);
	if (!p)
		return bad(pd, "a build-id entry runs past its section");
	memcpy(&misc, p + 4, 2);
	id = p + 12;
	n = (misc & MISC_BUILD_ID_SIZE) && id[20] <= 20 ? id[20] : 20;
	if (ALLOC_GROW(pd->bids, pd->nbids + 1, pd->alloc_bids))
		return prof_fail(PROF_ENOMEM, "out of memory");
	d = &pd->bids[pd->nbids];
	d->path = strndup((const char *)p + 36, size - 36);
	if (!d->path)
		return prof_fail(PROF_ENOMEM, "out of memory");
	/* A path recorded again: its last build-id is its build-id. */
	i = bid_of(pd, d->path);
	if (i != SIZE_MAX) {
		free(d->path);
		d = &pd->bids[i];
	} else if (hashmap_add(&pd->bid_map, hash_str(HASH_STR_SEED, d->path),
			       pd->nbids)) {
		free(d->path);
		return prof_fail(PROF_ENOMEM, "out of memory");
	} else {
		pd->nbids++;
	}
	memcpy(d->id, id, 20);
	d->len = (uint8_t)n;
	return 0;
}

static int feat_build_ids(struct perfdata *pd, struct bytes *b)
{
	while (bytes_left(b) >= 8) {
		struct bytes h = *b;
		int err;

		bytes_skip(&h, 6);
		err = add_build_id(pd, b, (size_t)bytes_u(&h, 2));
		if (err)
			return err;
	}
	return 0;
}

static int feat_event_desc(struct perfdata *pd, struct bytes *b)
{
	uint32_t nr = u32(b), asize = u32(b), i, j;

	if (b->bad || nr > MAX_EVENTS || asize < 64)
		return bad(pd, "the event descriptions are damaged");
	for (i = 0; i < nr; i++) {
		const uint8_t *attr = bytes_get(b, asize);
		uint32_t nids = u32(b);
		char *name = feat_string(b);
		long ev = -1;

		if (b->bad || !attr || nids > bytes_left(b) / 8) {
			free(name);
			return bad(pd, "the event descriptions are damaged");
		}
		for (j = 0; j < nids; j++) {
			uint64_t id = u64(b);

			if (ev < 0)
				ev = event_of_id(pd, id);
		}
		/* Without ids (one event, none recorded): in order. */
		if (ev < 0 && !nids && i < pd->nev)
			ev = i;
		if (ev < 0 && pd->nev == nr)
			ev = i;
		if (ev >= 0 && name && !strncmp(name, "ibs_op", 6) &&
		    pd->ev[ev].pub.type >= PERF_TYPE_MAX)
			pd->ev[ev].pub.ibs_op = 1;
		if (ev >= 0 && !pd->ev[ev].pub.name) {
			pd->ev[ev].pub.name = name;
			name = NULL;
		}
		free(name);
	}
	return 0;
}

static int feat_cmdline(struct perfdata *pd, struct bytes *b)
{
	uint32_t nr = u32(b), i;

	if (b->bad || nr > 4096)
		return bad(pd, "the command line is damaged");
	pd->meta.cmdline = calloc(nr + 1, sizeof(char *));
	if (!pd->meta.cmdline)
		return prof_fail(PROF_ENOMEM, "out of memory");
	for (i = 0; i < nr; i++) {
		pd->meta.cmdline[i] = feat_string(b);
		if (!pd->meta.cmdline[i])
			break;
		pd->meta.ncmdline++;
	}
	return 0;
}

/* PMU_MAPPINGS: u32 nr, then {u32 type; string name}: events of the
 * ibs_op PMU are decoded. */
static int feat_pmu_mappings(struct perfdata *pd, struct bytes *b)
{
	uint32_t nr = u32(b), i;
	size_t k;

	if (b->bad || nr > MAX_EVENTS)
		return bad(pd, "the PMU mappings are damaged");
	for (i = 0; i < nr; i++) {
		uint32_t type = u32(b);
		char *name = feat_string(b);

		if (!name)
			return bad(pd, "the PMU mappings are damaged");
		for (k = 0; k < pd->nev; k++)
			if (pd->ev[k].pub.type == type && !strcmp(name, "ibs_op"))
				pd->ev[k].pub.ibs_op = 1;
		free(name);
	}
	return 0;
}

static const char *const feature_names[F_LAST_KNOWN + 1] = {
	[1] = "TRACING_DATA", [2] = "BUILD_ID", [3] = "HOSTNAME",
	[4] = "OSRELEASE", [5] = "VERSION", [6] = "ARCH", [7] = "NRCPUS",
	[8] = "CPUDESC", [9] = "CPUID", [10] = "TOTAL_MEM", [11] = "CMDLINE",
	[12] = "EVENT_DESC", [13] = "CPU_TOPOLOGY", [14] = "NUMA_TOPOLOGY",
	[15] = "BRANCH_STACK", [16] = "PMU_MAPPINGS", [17] = "GROUP_DESC",
	[18] = "AUXTRACE", [19] = "STAT", [20] = "CACHE",
	[21] = "SAMPLE_TIME", [22] = "MEM_TOPOLOGY", [23] = "CLOCKID",
	[24] = "DIR_FORMAT", [25] = "BPF_PROG_INFO", [26] = "BPF_BTF",
	[27] = "COMPRESSED", [28] = "CPU_PMU_CAPS", [29] = "CLOCK_DATA",
	[30] = "HYBRID_TOPOLOGY", [31] = "PMU_CAPS", [32] = "CPU_DOMAIN_INFO",
};

/* One feature section; bits whose data a report could miss are noted. */
static int feature(struct perfdata *pd, unsigned bit, const uint8_t *p,
		   size_t len)
{
	struct bytes b = bytes_of(p, len);
	int err = 0;

	switch (bit) {
	case F_BUILD_ID:
		err = feat_build_ids(pd, &b);
		break;
	case F_HOSTNAME:
		set_string(&pd->meta.hostname, &b);
		break;
	case F_OSRELEASE:
		set_string(&pd->meta.osrelease, &b);
		break;
	case F_VERSION:
		set_string(&pd->meta.version, &b);
		break;
	case F_ARCH:
		set_string(&pd->meta.arch, &b);
		break;
	case F_CPUDESC:
		set_string(&pd->meta.cpudesc, &b);
		break;
	case F_CPUID:
		set_string(&pd->meta.cpuid, &b);
		break;
	case F_NRCPUS:
		pd->meta.nr_cpus_avail = u32(&b);
		pd->meta.nr_cpus_online = u32(&b);
		break;
	case F_CMDLINE:
		if (!pd->meta.cmdline)
			err = feat_cmdline(pd, &b);
		break;
	case F_EVENT_DESC:
		err = feat_event_desc(pd, &b);
		break;
	case F_PMU_MAPPINGS:
		err = feat_pmu_mappings(pd, &b);
		break;
	case F_SAMPLE_TIME:
		pd->meta.first_time = u64(&b);
		pd->meta.last_time = u64(&b);
		break;
	case F_COMPRESSED:
		bytes_skip(&b, 4);	/* version */
		if (u32(&b) != 1)	/* PERF_COMP_ZSTD */
			return bad(pd, "its records are compressed with "
				   "other than zstd");
		pd->meta.compressed = 1;
		break;
	case F_TRACING_DATA:
		return note(pd, "feature TRACING_DATA: tracepoint formats "
			    "(their raw fields are not shown)");
	case F_BRANCH_STACK:
		return note(pd, "feature BRANCH_STACK: branch records "
			    "(perf record -b) are not used");
	case F_AUXTRACE:
	case F_STAT:
		return note(pd, "feature %s: not read", feature_names[bit]);
	case F_DIR_FORMAT:
		return bad(pd, "it is part of a perf.data directory (perf "
			   "record --threads): read the directory as perf "
			   "inject -i DIR -o - | ... -i -");
	default:
		if (bit > F_LAST_KNOWN)
			return note(pd, "feature bit %u: unknown, not read",
				    bit);
		break;
	}
	return err;
}

static int read_features(struct perfdata *pd, const uint8_t *bits)
{
	uint64_t at = pd->data_off + pd->data_size, n = 0;
	uint8_t *table = NULL, *sec;
	unsigned bit;
	int err = 0;

	for (bit = 0; bit < 256; bit++)
		n += (bits[bit / 8] >> (bit % 8)) & 1;
	if (!n)
		return 0;
	err = read_section(pd, at, n * 16, MAX_FEATURE, &table);
	for (bit = 0, n = 0; !err && bit < 256; bit++) {
		struct bytes t;
		uint64_t off, len;

		if (!((bits[bit / 8] >> (bit % 8)) & 1))
			continue;
		t = bytes_of(table + 16 * n++, 16);
		off = u64(&t);
		len = u64(&t);
		err = read_section(pd, off, len, MAX_FEATURE, &sec);
		if (!err) {
			err = feature(pd, bit, sec, (size_t)len);
			free(sec);
		}
	}
	free(table);
	return err;
}

/* ---- opening ------------------------------------------------------------- */

static int open_file(struct perfdata *pd)
{
	uint8_t h[HEADER_SIZE], bits[32] = { 0 };
	struct bytes b;
	uint64_t size, attr_size, a_off, a_len, i;
	uint8_t *attrs = NULL;
	int err;

	if (pd->file_size < HEADER_SIZE_OLD)
		return bad(pd, "the file is shorter than its header");
	err = pread_all(pd, h, pd->file_size < HEADER_SIZE ?
			(size_t)pd->file_size : HEADER_SIZE, 0);
	if (err)
		return err;
	b = bytes_of(h + 8, HEADER_SIZE - 8);
	size = u64(&b);
	attr_size = u64(&b);
	a_off = u64(&b);
	a_len = u64(&b);
	pd->data_off = u64(&b);
	pd->data_size = u64(&b);
	bytes_skip(&b, 16);	/* event_types: unused by perf since 2012 */
	if (size > pd->file_size)
		return bad(pd, "the file is shorter than its header");
	if (size == HEADER_SIZE)
		memcpy(bits, h + 72, 32);
	else if (size != HEADER_SIZE_OLD)
		return bad(pd, "its header has an unknown size");
	if (attr_size <= 16 || attr_size > 4096)
		return bad(pd, "its events have an impossible size");
	if (a_len % attr_size || a_len / attr_size > MAX_EVENTS)
		return bad(pd, "its event section is damaged");
	if (pd->data_off > pd->file_size ||
	    pd->data_size > pd->file_size - pd->data_off)
		return bad(pd, "its data section lies beyond the end of "
			   "the file");
	if (!pd->data_size) {
		/* perf record did not finish the file: read what is there,
		 * as perf report does; there are no features. */
		pd->unfinished = true;
		pd->data_size = pd->file_size - pd->data_off;
		memset(bits, 0, sizeof(bits));
		err = note(pd, "the recording was not finished (perf record "
			   "was killed?): read up to the end of the file");
		if (err)
			return err;
	}
	err = read_section(pd, a_off, a_len, (uint64_t)MAX_EVENTS * 4096,
			   &attrs);
	for (i = 0; !err && i < a_len / attr_size; i++) {
		const uint8_t *a = attrs + i * attr_size;
		struct bytes ids = bytes_of(a + attr_size - 16, 16);
		uint64_t ioff = u64(&ids), ilen = u64(&ids), k;
		uint8_t *iv;

		err = add_event(pd, a, (size_t)(attr_size - 16));
		if (!err && ilen % 8)
			err = bad(pd, "an event's ids are damaged");
		if (!err)
			err = read_section(pd, ioff, ilen, (uint64_t)MAX_IDS * 8,
					   &iv);
		for (k = 0; !err && k < ilen / 8; k++) {
			struct bytes v = bytes_of(iv + 8 * k, 8);

			err = add_id(pd, u64(&v), (uint32_t)i);
		}
		if (!err)
			free(iv);
	}
	free(attrs);
	if (err)
		return err;
	if (!pd->nev)
		return bad(pd, "it records no event");
	id_places(pd);
	err = read_features(pd, bits);
	/* The stream is the data section now. */
	pd->blen = pd->bpos = 0;
	pd->pos = pd->data_off;
	pd->end = pd->data_off + pd->data_size;
	return err;
}

/* A pipe's attribute record: the attribute, then its ids. */
static int header_attr(struct perfdata *pd, const uint8_t *rec, size_t size)
{
	struct bytes b = bytes_of(rec + 8, size - 8), s;
	uint32_t asize;
	uint64_t k;
	int err;

	s = b;
	bytes_skip(&s, 4);
	asize = u32(&s);
	if (s.bad || asize < 64 || asize > size - 8 || (size - 8 - asize) % 8)
		return bad(pd, "an event record is damaged");
	err = add_event(pd, rec + 8, asize);
	bytes_skip(&b, asize);
	for (k = 0; !err && bytes_left(&b) >= 8; k++)
		err = add_id(pd, u64(&b), (uint32_t)(pd->nev - 1));
	return err;
}

/* A pipe's feature record: its id, then the section's bytes. */
static int header_feature(struct perfdata *pd, const uint8_t *rec,
			  size_t size)
{
	struct bytes b = bytes_of(rec + 8, size - 8);
	uint64_t bit = u64(&b);

	if (b.bad)
		return bad(pd, "a feature record is damaged");
	if (bit >= 256 || bit == F_LAST_KNOWN)	/* perf's end marker */
		return 0;
	return feature(pd, (unsigned)bit, b.p, bytes_left(&b));
}

static int open_pipe(struct perfdata *pd)
{
	const uint8_t *rec;
	size_t size;
	int err = 0;

	pd->bpos = PIPE_HEADER_SIZE;
	for (;;) {
		uint32_t type;

		err = next_record(pd, &rec, &size);
		if (err || !size)
			break;
		memcpy(&type, rec, 4);
		if (type == PD_HEADER_ATTR) {
			err = header_attr(pd, rec, size);
		} else if (type == PD_HEADER_FEATURE) {
			err = header_feature(pd, rec, size);
		} else {
			pd->pending = malloc(size);
			if (!pd->pending)
				return prof_fail(PROF_ENOMEM, "out of memory");
			memcpy(pd->pending, rec, size);
			break;
		}
		if (err)
			return err;
	}
	if (err)
		return err;
	if (!pd->nev)
		return bad(pd, "it records no event");
	id_places(pd);
	return 0;
}

int perf_data_open(int fd, const char *name, struct perfdata **out)
{
	struct perfdata *pd = calloc(1, sizeof(*pd));
	uint8_t magic[8];
	struct stat st;
	int err;

	*out = NULL;
	if (!pd)
		return prof_fail(PROF_ENOMEM, "out of memory");
	pd->fd = fd;
	pd->switch_stat = UINT32_MAX;
	pd->name = strdup(name);
	if (!pd->name) {
		free(pd);
		return prof_fail(PROF_ENOMEM, "out of memory");
	}
	pd->seekable = !fstat(fd, &st) && S_ISREG(st.st_mode);
	if (pd->seekable) {
		pd->file_size = (uint64_t)st.st_size;
		pd->end = pd->file_size;
	}
	/* Magic and size: 16 for perf's pipe format (a stream, or a file
	 * it was saved to), the header's size for a file. */
	err = fill(pd, PIPE_HEADER_SIZE);
	if (!err && pd->blen < PIPE_HEADER_SIZE)
		err = bad(pd, "it is shorter than its header");
	if (!err) {
		struct bytes b = bytes_of(pd->buf + 8, 8);

		memcpy(magic, pd->buf, sizeof(magic));
		pd->pipe = u64(&b) == PIPE_HEADER_SIZE;
	}
	pd->meta.pipe = pd->pipe;
	if (!err && !memcmp(magic, "2ELIFREP", 8))
		err = prof_fail(PROF_EFORMAT, "'%s' was recorded on a machine "
				"of the other byte order: not read", name);
	else if (!err && memcmp(magic, PERFDATA_MAGIC, 8) && !strcmp(name, "-"))
		err = prof_fail(PROF_EFORMAT, "standard input is not perf's "
				"pipe format (perf record -o -): give a "
				"profile file by its name");
	else if (!err && memcmp(magic, PERFDATA_MAGIC, 8))
		err = bad(pd, "no PERFILE2 magic (an old perf's file?)");
	else if (!err && !pd->pipe && !pd->seekable)
		err = prof_fail(PROF_EINVAL, "'%s' is a perf.data file, not "
				"perf's pipe format: give its path, not a "
				"pipe", name);
	if (!err)
		err = pd->pipe ? open_pipe(pd) : open_file(pd);
	if (err) {
		perf_data_free(pd);
		return err;
	}
	*out = pd;
	return 0;
}

void perf_data_free(struct perfdata *pd)
{
	size_t i;

	if (!pd)
		return;
	for (i = 0; i < pd->nev; i++)
		free(pd->ev[i].pub.name);
	free(pd->ev);
	free(pd->ids);
	hashmap_release(&pd->id_map);
	for (i = 0; i < pd->nbids; i++)
		free(pd->bids[i].path);
	free(pd->bids);
	hashmap_release(&pd->bid_map);
	free(pd->meta.hostname);
	free(pd->meta.osrelease);
	free(pd->meta.version);
	free(pd->meta.arch);
	free(pd->meta.cpudesc);
	free(pd->meta.cpuid);
	for (i = 0; pd->meta.cmdline && pd->meta.cmdline[i]; i++)
		free(pd->meta.cmdline[i]);
	free(pd->meta.cmdline);
	free(pd->buf);
	free(pd->pending);
	if (pd->zs)
		ZSTD_freeDStream(pd->zs);
	free(pd->zbuf);
	free(pd->arena);
	free(pd->recs);
	for (i = 0; i < pd->nnotes; i++)
		free(pd->notes[i]);
	free(pd->notes);
	free(pd->name);
	free(pd);
}

size_t perf_data_nevents(const struct perfdata *pd)
{
	return pd->nev;
}

const struct perf_data_event *perf_data_event(const struct perfdata *pd,
					    size_t i)
{
	return i < pd->nev ? &pd->ev[i].pub : NULL;
}

const struct perf_data_meta *perf_data_meta(const struct perfdata *pd)
{
	return &pd->meta;
}

size_t perf_data_build_id(const struct perfdata *pd, const char *path,
			 uint8_t *out, size_t len)
{
	size_t i = bid_of(pd, path);

	if (i == SIZE_MAX || pd->bids[i].len > len)
		return 0;
	memcpy(out, pd->bids[i].id, pd->bids[i].len);
	return pd->bids[i].len;
}

const char *perf_data_note(const struct perfdata *pd, size_t i)
{
	return i < pd->nnotes ? pd->notes[i] : NULL;
}

/* ---- records --------------------------------------------------------------- */

/* A kernel record's sample_id trailer (sample_id_all). */
struct trailer {
	uint32_t pid, tid, cpu;
	uint64_t time, id;
	bool have_id, have_tid;
};

/* The trailer at the end of [b, b + n), *n shortened to the body. */
static int split_trailer(const struct perfdata *pd, const uint8_t *b,
			 size_t *n, struct trailer *t)
{
	uint64_t st = pd->trailer_type;
	size_t len = 0;
	struct bytes r;

	memset(t, 0, sizeof(*t));
	t->cpu = PROF_CPU_UNKNOWN;
	if (!pd->trailers)
		return 0;
	len += (st & PERF_SAMPLE_TID) ? 8 : 0;
	len += (st & PERF_SAMPLE_TIME) ? 8 : 0;
	len += (st & PERF_SAMPLE_ID) ? 8 : 0;
	len += (st & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
	len += (st & PERF_SAMPLE_CPU) ? 8 : 0;
	len += (st & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	if (len > *n)
		return -1;
	*n -= len;
	r = bytes_of(b + *n, len);
	if (st & PERF_SAMPLE_TID) {
		t->pid = u32(&r);
		t->tid = u32(&r);
		t->have_tid = true;
	}
	if (st & PERF_SAMPLE_TIME)
		t->time = u64(&r);
	if (st & PERF_SAMPLE_ID) {
		t->id = u64(&r);
		t->have_id = true;
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		bytes_skip(&r, 8);
	if (st & PERF_SAMPLE_CPU) {
		t->cpu = u32(&r);
		bytes_skip(&r, 4);
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		t->id = u64(&r);
		t->have_id = true;
	}
	return 0;
}

/* The event a sample [b, b + n) belongs to, or -1. */
static long sample_event(struct perfdata *pd, const uint8_t *b, size_t n)
{
	struct bytes r;

	if (pd->nev == 1)
		return 0;
	if (pd->sample_id_at < 0 || (size_t)pd->sample_id_at * 8 + 8 > n)
		return -1;
	r = bytes_of(b + (size_t)pd->sample_id_at * 8, 8);
	return event_of_id(pd, u64(&r));
}

/* When a record happened, for the round's order: 0 when it says not. */
static uint64_t record_time(struct perfdata *pd, const uint8_t *rec,
			    size_t size)
{
	struct perf_event_header h;
	struct trailer t;
	size_t n = size - 8;
	long ev;
	struct bytes r;
	uint64_t st;

	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_SAMPLE) {
		ev = sample_event(pd, rec + 8, n);
		if (ev < 0)
			return 0;
		st = pd->ev[ev].pub.sample_type;
		if (!(st & PERF_SAMPLE_TIME))
			return 0;
		r = bytes_of(rec + 8, n);
		bytes_skip(&r, 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) +
				    !!(st & PERF_SAMPLE_IP) +
				    !!(st & PERF_SAMPLE_TID)));
		return r.bad ? 0 : u64(&r);
	}
	if (h.type == PERF_RECORD_FORK || h.type == PERF_RECORD_EXIT) {
		r = bytes_of(rec + 8, n);
		bytes_skip(&r, 16);
		return r.bad ? 0 : u64(&r);
	}
	if (split_trailer(pd, rec + 8, &n, &t))
		return 0;
	return t.time;
}

/*
 * A group leader's sample with its members' counts (perf record -e
 * '{A,B}:S'): each member that does not sample itself is charged what it
 * counted since the last read of that counter, at the leader's sample,
 * as perf report does.
 */
static void group_members(struct perfdata *pd, long ev,
			  const struct group_read *gr,
			  const struct collect_sample *leader)
{
	struct collect_sample cs = *leader;
	size_t k;

	for (k = 0; k < gr->n; k++) {
		struct idmap *m = find_id(pd, gr->id[k]);
		uint64_t delta;

		if (!m || (long)m->ev == ev || pd->stat_of[m->ev] == UINT32_MAX ||
		    pd->ev[m->ev].pub.period || pd->ev[m->ev].pub.freq)
			continue;
		delta = gr->value[k] >= m->last ? gr->value[k] - m->last : 0;
		m->last = gr->value[k];
		if (!delta)
			continue;
		cs.stat = pd->stat_of[m->ev];
		cs.period = delta;
		pd->ev[m->ev].pub.samples++;
		collector_sample(pd->col, &cs);
	}
}

/*
 * An IBS op sample: the raw MSR images decoded, each profile-me
 * statistic it met charged its value times the sample period (as the
 * live engine does), at the instruction IBS tagged.
 */
static void ibs_op_sample(struct perfdata *pd, long ev, const uint8_t *raw,
			  uint32_t len, struct collect_sample *cs,
			  uint64_t period)
{
	struct pm_sample ps;
	size_t i;

	if (!raw || !pd->pm_of || pm_decode_ibs_op(raw, len, &ps)) {
		pd->pm_dropped++;
		return;
	}
	if (ps.ip)
		cs->ip = ps.ip;
	for (i = 0; i < PM_NSTATS; i++) {
		uint32_t stat = pd->pm_of[(size_t)ev * PM_NSTATS + i];

		if (stat == UINT32_MAX || !ps.valid[i] || !ps.v[i])
			continue;
		cs->stat = stat;
		cs->period = ps.v[i] * (period ? period : 1);
		collector_sample(pd->col, cs);
	}
}

/* A sample: its fields in sample_type's order (perf_event_open(2)). */
static void deliver_sample(struct perfdata *pd, const uint8_t *rec,
			   size_t size)
{
	struct perf_event_header h;
	const uint8_t *b = rec + 8;
	struct bytes r = bytes_of(b, size - 8);
	struct collect_sample cs;
	struct group_read gr;
	const uint8_t *raw = NULL;
	uint32_t raw_len = 0;
	const struct event *e;
	uint64_t st, period = 0;
	long ev = sample_event(pd, b, size - 8);

	memcpy(&h, rec, sizeof(h));
	if (ev < 0) {
		pd->unknown_id++;
		return;
	}
	e = &pd->ev[ev];
	st = e->pub.sample_type;
	memset(&cs, 0, sizeof(cs));
	if (st & PERF_SAMPLE_IDENTIFIER)
		bytes_skip(&r, 8);
	if (st & PERF_SAMPLE_IP)
		cs.ip = u64(&r);
	if (st & PERF_SAMPLE_TID) {
		cs.pid = u32(&r);
		cs.tid = u32(&r);
	}
	if (st & PERF_SAMPLE_TIME)
		cs.time = u64(&r);
	if (st & PERF_SAMPLE_ADDR)
		bytes_skip(&r, 8);
	if (st & PERF_SAMPLE_ID)
		bytes_skip(&r, 8);
	if (st & PERF_SAMPLE_STREAM_ID)
		bytes_skip(&r, 8);
	cs.cpu = PROF_CPU_UNKNOWN;
	if (st & PERF_SAMPLE_CPU) {
		cs.cpu = u32(&r);
		bytes_skip(&r, 4);
	}
	if (st & PERF_SAMPLE_PERIOD)
		period = u64(&r);
	gr.n = 0;
	if (st & PERF_SAMPLE_READ) {
		uint64_t rf = e->read_format, per = 1, nr = 1, k;

		per += !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
		if (rf & PERF_FORMAT_GROUP)
			nr = u64(&r);
		bytes_skip(&r, 8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
				    !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING)));
		if (r.bad || nr > bytes_left(&r) / 8 / per)
			goto malformed;
		if (!(rf & PERF_FORMAT_GROUP) || !(rf & PERF_FORMAT_ID)) {
			bytes_skip(&r, (size_t)(nr * per * 8));
		} else {
			for (k = 0; k < nr; k++) {
				uint64_t v = u64(&r), id = u64(&r);

				if (rf & PERF_FORMAT_LOST)
					bytes_skip(&r, 8);
				if (gr.n < MAX_GROUP) {
					gr.value[gr.n] = v;
					gr.id[gr.n++] = id;
				}
			}
		}
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = u64(&r);

		if (r.bad || nr > bytes_left(&r) / 8)
			goto malformed;
		cs.chain = (const uint64_t *)bytes_get(&r, (size_t)nr * 8);
		cs.nchain = nr;
		if ((uintptr_t)cs.chain % 8)
			goto malformed;
	}
	if (st & PERF_SAMPLE_RAW) {
		raw_len = u32(&r);
		raw = bytes_get(&r, raw_len);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr = u64(&r);

		if (e->branch_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			bytes_skip(&r, 8);
		if (r.bad || nr > bytes_left(&r) / 24)
			goto malformed;
		bytes_skip(&r, (size_t)nr * 24);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		uint64_t abi = u64(&r);
		size_t nregs = (size_t)__builtin_popcountll(e->pub.regs_user);

		if (abi) {
			const uint8_t *regs = bytes_get(&r, nregs * 8);

			/* A 32-bit task's are not what the x86-64
			 * unwinder reads. */
			if (regs && abi == PERF_REGS_ABI_64 &&
			    !((uintptr_t)regs % 8)) {
				cs.uregs = (const uint64_t *)regs;
				cs.uregs_mask = e->pub.regs_user;
			}
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t len = u64(&r), dyn;
		const uint8_t *stack;

		if (r.bad || len > bytes_left(&r))
			goto malformed;
		if (len) {
			stack = bytes_get(&r, (size_t)len);
			dyn = u64(&r);
			if (cs.uregs && !r.bad) {
				cs.ustack = stack;
				cs.ustack_len = dyn < len ? dyn : len;
			}
		}
	}
	if (r.bad)
		goto malformed;
	pd->ev[ev].pub.samples++;
	cs.cpumode = h.misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (cs.time) {
		if (!pd->first || cs.time < pd->first)
			pd->first = cs.time;
		if (cs.time > pd->last)
			pd->last = cs.time;
	}
	if (e->pub.ibs_op) {
		ibs_op_sample(pd, ev, raw, raw_len, &cs,
			      (st & PERF_SAMPLE_PERIOD) ? period :
			      e->pub.period);
		return;
	}
	if (pd->stat_of[ev] == UINT32_MAX) {
		pd->left_out++;
		return;
	}
	cs.stat = pd->stat_of[ev];
	cs.period = (st & PERF_SAMPLE_PERIOD) ? period : e->pub.period;
	if (!cs.period)
		cs.period = 1;
	/* In a group read the leader's own count says its period too. */
	for (size_t k = 0; k < gr.n; k++) {
		struct idmap *m = find_id(pd, gr.id[k]);

		if (m && (long)m->ev == ev) {
			cs.period = gr.value[k] >= m->last ?
				    gr.value[k] - m->last : 0;
			m->last = gr.value[k];
		}
	}
	if (cs.period)
		collector_sample(pd->col, &cs);
	group_members(pd, ev, &gr, &cs);
	return;
malformed:
	pd->malformed++;
}

/* MMAP or MMAP2: a mapping of code (data mappings are left out). */
static void deliver_mmap(struct perfdata *pd, const uint8_t *rec, size_t size)
{
	struct perf_event_header h;
	struct trailer t;
	size_t n = size - 8;
	struct bytes r;
	uint32_t pid, prot = PROT_EXEC;
	uint64_t addr, len, pgoff, ino = 0;
	struct stat st;
	uint8_t bid[20];
	size_t bidlen = 0;
	const char *path;

	memcpy(&h, rec, sizeof(h));
	if (split_trailer(pd, rec + 8, &n, &t)) {
		pd->malformed++;
		return;
	}
	r = bytes_of(rec + 8, n);
	pid = u32(&r);
	bytes_skip(&r, 4);	/* tid */
	addr = u64(&r);
	len = u64(&r);
	pgoff = u64(&r);
	if (h.type == PERF_RECORD_MMAP2) {
		if (h.misc & MISC_MMAP_BUILD_ID) {
			const uint8_t *id;
			uint8_t idlen = (uint8_t)bytes_u(&r, 1);

			bytes_skip(&r, 3);
			id = bytes_get(&r, 20);
			if (id && idlen <= 20) {
				memcpy(bid, id, idlen);
				bidlen = idlen;
			}
		} else {
			bytes_skip(&r, 8);	/* maj, min */
			ino = u64(&r);
			bytes_skip(&r, 8);	/* ino_generation */
		}
		prot = u32(&r);
		bytes_skip(&r, 4);	/* flags */
	} else if (h.misc & MISC_MMAP_DATA) {
		prot = 0;
	}
	path = bytes_str(&r);
	if (r.bad || !path) {
		pd->malformed++;
		return;
	}
	if (pid == UINT32_MAX && !strncmp(path, "[kernel.kallsyms]", 17))
		pd->meta.kernel_text = addr;
	/* The kernel's and its modules' maps: kernel samples are the
	 * kernel's object's, by address. */
	if (!(prot & PROT_EXEC) ||
	    (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
	    PERF_RECORD_MISC_KERNEL || pid == UINT32_MAX)
		return;
	if (!bidlen)
		bidlen = perf_data_build_id(pd, path, bid, sizeof(bid));
	if (!bidlen && pd->distrust && path[0] == '/') {
		pd->distrusted++;
		collector_mmap_file(pd->col, pid, addr, len, pgoff, path,
				    t.time, NULL, -1, false, true);
		return;
	}
	/* No build-id to check it by: the file at its path now is another
	 * (rebuilt: a new inode) than the one mapped. */
	if (!bidlen && ino && path[0] == '/' && !stat(path, &st) &&
	    S_ISREG(st.st_mode) && (uint64_t)st.st_ino != ino) {
		pd->replaced++;
		collector_mmap_file(pd->col, pid, addr, len, pgoff, path,
				    t.time, NULL, -1, false, true);
		return;
	}
	collector_mmap(pd->col, pid, addr, len, pgoff, path,
		       bidlen ? bid : NULL, bidlen, t.time);
}

void perf_data_distrust(struct perfdata *pd)
{
	pd->distrust = true;
}

static void deliver(struct perfdata *pd, const uint8_t *rec, size_t size)
{
	struct perf_event_header h;
	struct trailer t;
	size_t n = size - 8;
	struct bytes r = bytes_of(rec + 8, n);
	uint32_t pid, ppid, tid, ptid;
	uint64_t time, id;
	const char *name;
	long ev;

	memcpy(&h, rec, sizeof(h));
	switch (h.type) {
	case PERF_RECORD_SAMPLE:
		deliver_sample(pd, rec, size);
		return;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		deliver_mmap(pd, rec, size);
		return;
	case PERF_RECORD_COMM:
		if (split_trailer(pd, rec + 8, &n, &t))
			break;
		r = bytes_of(rec + 8, n);
		pid = u32(&r);
		tid = u32(&r);
		name = bytes_str(&r);
		if (!name)
			break;
		collector_comm(pd->col, pid, tid, name,
			       !!(h.misc & PERF_RECORD_MISC_COMM_EXEC), t.time);
		return;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		pid = u32(&r);
		ppid = u32(&r);
		tid = u32(&r);
		ptid = u32(&r);
		time = u64(&r);
		if (r.bad)
			break;
		if (h.type == PERF_RECORD_FORK) {
			collector_fork(pd->col, pid, ppid, tid, ptid, time);
		} else {
			collector_exit(pd->col, pid, tid, time);
			if (pd->switch_stat != UINT32_MAX)
				collector_switch_exit(pd->col, pid, tid, time);
		}
		return;
	case PERF_RECORD_LOST:
		id = u64(&r);
		time = u64(&r);	/* the number lost */
		if (r.bad)
			break;
		ev = pd->nev == 1 ? 0 : event_of_id(pd, id);
		if (ev >= 0)
			pd->ev[ev].lost_rec += time;
		return;
	case PERF_RECORD_LOST_SAMPLES:
		if (split_trailer(pd, rec + 8, &n, &t))
			break;
		r = bytes_of(rec + 8, n);
		time = u64(&r);
		ev = pd->nev == 1 ? 0 : t.have_id ? event_of_id(pd, t.id) : -1;
		if (!r.bad && ev >= 0)
			pd->ev[ev].lost_samples += time;
		return;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (split_trailer(pd, rec + 8, &n, &t) || !t.have_tid)
			break;
		if (pd->switch_stat != UINT32_MAX)
			collector_switch(pd->col, t.pid, t.tid, t.cpu, t.time,
					 !!(h.misc & PERF_RECORD_MISC_SWITCH_OUT),
					 !!(h.misc &
					    PERF_RECORD_MISC_SWITCH_OUT_PREEMPT));
		return;
	default:
		return;
	}
	pd->malformed++;
}

static int cmp_prec(const void *a, const void *b)
{
	const struct prec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Deliver the round in time order. */
static void flush_round(struct perfdata *pd)
{
	size_t i;

	if (!pd->nrecs)
		return;
	qsort(pd->recs, pd->nrecs, sizeof(*pd->recs), cmp_prec);
	for (i = 0; i < pd->nrecs; i++) {
		const uint8_t *rec = pd->arena + pd->recs[i].off;
		struct perf_event_header h;

		memcpy(&h, rec, sizeof(h));
		deliver(pd, rec, h.size);
	}
	collector_round_end(pd->col);
	pd->nrecs = 0;
	pd->alen = 0;
}

/* A record for the round: copied, 8-byte aligned. */
static int keep(struct perfdata *pd, const uint8_t *rec, size_t size)
{
	size_t at = (pd->alen + 7) & ~(size_t)7;

	if (at + size > ROUND_MAX)
		flush_round(pd);
	at = (pd->alen + 7) & ~(size_t)7;
	if (ALLOC_GROW(pd->arena, at + size, pd->aalloc) ||
	    ALLOC_GROW(pd->recs, pd->nrecs + 1, pd->alloc_recs))
		return prof_fail(PROF_ENOMEM, "out of memory");
	memcpy(pd->arena + at, rec, size);
	pd->recs[pd->nrecs].off = at;
	pd->recs[pd->nrecs].time = record_time(pd, pd->arena + at, size);
	pd->recs[pd->nrecs].seq = pd->seq++;
	pd->nrecs++;
	pd->alen = at + size;
	return 0;
}

static int record(struct perfdata *pd, const uint8_t *rec, size_t size,
		  bool inflated);

/* COMPRESSED: zstd data whose output is records, the last one possibly
 * continued in the next COMPRESSED record's. */
static int inflate(struct perfdata *pd, const uint8_t *data, size_t len)
{
	ZSTD_inBuffer in = { data, len, 0 };
	size_t at = 0;
	int err = 0;

	if (!pd->zs) {
		pd->zs = ZSTD_createDStream();
		if (!pd->zs || ZSTD_isError(ZSTD_initDStream(pd->zs)))
			return prof_fail(PROF_ENOMEM, "out of memory");
	}
	pd->zin += len;
	for (;;) {
		ZSTD_outBuffer out;
		size_t r;

		if (ALLOC_GROW(pd->zbuf, pd->zlen + READ_CHUNK, pd->zalloc))
			return prof_fail(PROF_ENOMEM, "out of memory");
		out.dst = pd->zbuf;
		out.size = pd->zlen + READ_CHUNK;
		out.pos = pd->zlen;
		r = ZSTD_decompressStream(pd->zs, &out, &in);
		if (ZSTD_isError(r))
			return bad(pd, "a compressed record is damaged");
		pd->zlen = out.pos;
		/* Deliver the whole records inflated so far. */
		at = 0;
		while (pd->zlen - at >= 8) {
			uint16_t size;

			memcpy(&size, pd->zbuf + at + 6, 2);
			if (size < 8)
				return bad(pd, "a compressed record holds a "
					   "record shorter than its header");
			if (pd->zlen - at < size)
				break;
			if (++pd->zrecs > pd->zin * ZSTD_MAX_RECS_PER_BYTE +
			    ZSTD_RECS_SLACK)
				return bad(pd, "compressed records inflate to "
					   "more records than perf's hold");
			err = record(pd, pd->zbuf + at, size, true);
			if (err)
				return err;
			at += size;
		}
		memmove(pd->zbuf, pd->zbuf + at, pd->zlen - at);
		pd->zlen -= at;
		/* Done when the input is used up and the output did not
		 * fill (nothing is left inside the decoder). */
		if (in.pos >= in.size && out.pos < out.size)
			break;
	}
	return 0;
}

static const char *const type_names[PD_NTYPES] = {
	[PERF_RECORD_THROTTLE] = "THROTTLE",
	[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PERF_RECORD_READ] = "READ",
	[PERF_RECORD_AUX] = "AUX",
	[PERF_RECORD_ITRACE_START] = "ITRACE_START",
	[PERF_RECORD_NAMESPACES] = "NAMESPACES",
	[PERF_RECORD_KSYMBOL] = "KSYMBOL",
	[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
	[PERF_RECORD_CGROUP] = "CGROUP",
	[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
	[PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	[PD_HEADER_EVENT_TYPE] = "HEADER_EVENT_TYPE",
	[PD_HEADER_TRACING_DATA] = "HEADER_TRACING_DATA",
	[PD_AUXTRACE_INFO] = "AUXTRACE_INFO",
	[PD_AUXTRACE] = "AUXTRACE",
	[PD_AUXTRACE_ERROR] = "AUXTRACE_ERROR",
	[PD_STAT_CONFIG] = "STAT_CONFIG",
	[PD_STAT] = "STAT",
	[PD_STAT_ROUND] = "STAT_ROUND",
};

/* What a record type adds to a report that we leave out, for the note:
 * NULL for those read, and for the bookkeeping that adds nothing. */
static const char *type_unused(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_THROTTLE:
		return "(the kernel throttled sampling)";
	case PERF_RECORD_KSYMBOL:
	case PERF_RECORD_BPF_EVENT:
		return "(BPF and other kernel code loaded: its samples "
		       "show as kernel addresses)";
	case PERF_RECORD_AUX:
	case PERF_RECORD_ITRACE_START:
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
	case PD_AUXTRACE_INFO:
	case PD_AUXTRACE:
	case PD_AUXTRACE_ERROR:
		return "(hardware trace data)";
	case PERF_RECORD_READ:
	case PD_STAT_CONFIG:
	case PD_STAT:
	case PD_STAT_ROUND:
		return "(counter readings)";
	case PD_HEADER_TRACING_DATA:
	case PD_HEADER_EVENT_TYPE:
		return "(tracepoint descriptions)";
	case PERF_RECORD_NAMESPACES:
	case PERF_RECORD_CGROUP:
	case PERF_RECORD_TEXT_POKE:
		return "";
	case PERF_RECORD_SAMPLE:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
	case PERF_RECORD_UNTHROTTLE:
	case PD_HEADER_ATTR:
	case PD_HEADER_BUILD_ID:
	case PD_FINISHED_ROUND:
	case PD_ID_INDEX:
	case PD_THREAD_MAP:
	case PD_CPU_MAP:
	case PD_EVENT_UPDATE:
	case PD_TIME_CONV:
	case PD_HEADER_FEATURE:
	case PD_COMPRESSED:
	case PD_COMPRESSED2:
	case PD_FINISHED_INIT:
		return NULL;
	default:
		return "(unknown)";
	}
}

static int id_index(struct perfdata *pd, const uint8_t *rec, size_t size)
{
	struct bytes r = bytes_of(rec + 8, size - 8);
	uint64_t nr = u64(&r), i;
	int err = 0;

	if (r.bad || nr > bytes_left(&r) / 32)
		return bad(pd, "an ID_INDEX record is damaged");
	for (i = 0; !err && i < nr; i++) {
		uint64_t id = u64(&r), idx = u64(&r);

		bytes_skip(&r, 16);	/* cpu, tid */
		if (idx < pd->nev && event_of_id(pd, id) < 0)
			err = add_id(pd, id, (uint32_t)idx);
	}
	return err;
}

static int record(struct perfdata *pd, const uint8_t *rec, size_t size,
		  bool inflated)
{
	struct perf_event_header h;
	struct bytes r;

	memcpy(&h, rec, sizeof(h));
	pd->types[h.type < PD_NTYPES ? h.type : PD_NTYPES]++;
	switch (h.type) {
	case PERF_RECORD_SAMPLE:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		return keep(pd, rec, size);
	case PD_FINISHED_ROUND:
		flush_round(pd);
		return 0;
	case PD_ID_INDEX:
		return id_index(pd, rec, size);
	case PD_HEADER_BUILD_ID:
		r = bytes_of(rec, size);
		return add_build_id(pd, &r, size);
	case PD_HEADER_ATTR:
		/* An event added on the way: its samples are left out. */
		return pd->stat_of ? 0 : header_attr(pd, rec, size);
	case PD_HEADER_FEATURE:
		return header_feature(pd, rec, size);
	case PD_COMPRESSED:
	case PD_COMPRESSED2:
		if (inflated)
			return bad(pd, "a compressed record inside another");
		r = bytes_of(rec + 8, size - 8);
		if (h.type == PD_COMPRESSED2) {
			uint64_t len = u64(&r);

			if (r.bad || len > bytes_left(&r))
				return bad(pd, "a compressed record is "
					   "damaged");
			return inflate(pd, r.p, (size_t)len);
		}
		return inflate(pd, r.p, bytes_left(&r));
	default:
		return 0;
	}
}

/* After a record, the bytes some types carry beyond their size. */
static int skip_payload(struct perfdata *pd, const uint8_t *rec, size_t size)
{
	struct perf_event_header h;
	struct bytes r = bytes_of(rec + 8, size - 8);

	memcpy(&h, rec, sizeof(h));
	if (h.type == PD_AUXTRACE)
		return skip(pd, u64(&r));
	if (h.type == PD_HEADER_TRACING_DATA && pd->pipe)
		return skip(pd, u32(&r));
	return 0;
}

static int unused_notes(struct perfdata *pd)
{
	size_t t;
	int err = 0;

	for (t = 0; !err && t <= PD_NTYPES; t++) {
		const char *why = t < PD_NTYPES ? type_unused((uint32_t)t) :
						  "(unknown)";

		if (!pd->types[t] || !why)
			continue;
		if (t < PD_NTYPES && type_names[t])
			err = note(pd, "%" PRIu64 " %s records not used%s%s",
				   pd->types[t], type_names[t], *why ? " " : "",
				   why);
		else
			err = note(pd, "%" PRIu64 " records of type %s%zu not "
				   "read%s%s", pd->types[t],
				   t < PD_NTYPES ? "" : ">= ", t, *why ? " " : "",
				   why);
	}
	if (!err && pd->unknown_id)
		err = note(pd, "%" PRIu64 " samples of no recorded event "
			   "left out", pd->unknown_id);
	if (!err && pd->malformed)
		err = note(pd, "%" PRIu64 " malformed records left out",
			   pd->malformed);
	if (!err && pd->pm_dropped)
		err = note(pd, "%" PRIu64 " IBS op samples without a valid "
			   "instruction (or their raw data: record with -R) "
			   "left out", pd->pm_dropped);
	if (!err && pd->distrusted)
		err = note(pd, "another user's recording: %" PRIu64 " mappings "
			   "without a recorded build-id are not read by their "
			   "paths (their rows are addresses)", pd->distrusted);
	if (!err && pd->replaced)
		err = note(pd, "%" PRIu64 " mappings of files replaced since "
			   "the recording (another inode at their path, no "
			   "build-id recorded) are not read (their rows are "
			   "addresses)", pd->replaced);
	if (!err && pd->left_out)
		err = note(pd, "%" PRIu64 " samples of events not reported "
			   "left out", pd->left_out);
	return err;
}

int perf_data_replay(struct perfdata *pd, struct collector *c,
		    const uint32_t *stat_of, const uint32_t *pm_of,
		    uint32_t switch_stat, uint64_t *first, uint64_t *last)
{
	const uint8_t *rec;
	size_t size;
	int err = 0;

	pd->col = c;
	pd->stat_of = stat_of;
	pd->pm_of = pm_of;
	pd->switch_stat = switch_stat;
	if (pd->pending) {
		uint16_t s16;

		memcpy(&s16, pd->pending + 6, 2);
		size = s16;
		err = record(pd, pd->pending, size, false);
		free(pd->pending);
		pd->pending = NULL;
	}
	while (!err) {
		err = next_record(pd, &rec, &size);
		if (err || !size)
			break;
		err = record(pd, rec, size, false);
		if (!err)
			err = skip_payload(pd, rec, size);
	}
	flush_round(pd);
	for (size_t i = 0; i < pd->nev; i++) {
		const struct event *e = &pd->ev[i];
		uint64_t n = e->lost_rec ? e->lost_rec : e->lost_samples;

		if (n && stat_of[i] != UINT32_MAX)
			collector_lost(c, stat_of[i], n);
	}
	if (switch_stat != UINT32_MAX)
		collector_switch_end(c, pd->last);
	*first = pd->first;
	*last = pd->last;
	if (!pd->noted) {
		int e = unused_notes(pd);

		pd->noted = true;
		if (!err)
			err = e;
	}
	return err;
}
