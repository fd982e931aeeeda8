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
#include "common/util/regfile.h"
#include "perfdata_int.h"
#include "profileme.h"

/* ---- small helpers ------------------------------------------------------ */

int perf_data_bad(const struct perfdata *pd, const char *what)
{
	return prof_fail(PROF_EFORMAT, "'%s' is not a valid perf.data: %s",
			 pd->name, what);
}

int perf_data_add_note(struct perfdata *pd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int perf_data_add_note(struct perfdata *pd, const char *fmt, ...)
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
	if (off > pd->file_size || len > pd->file_size - off)
		return perf_data_bad(pd, "a section lies beyond the end of "
				     "the file");
	if (regfile_pread(pd->fd, dst, len, off))
		return prof_fail(PROF_EIO, "cannot read '%s': %s", pd->name,
				 errno == EIO ? "the file shrank while it was "
				 "read" : strerror(errno));
	return 0;
}

/* A section of the file, whole, into a new buffer (len <= cap). */
static int read_section(struct perfdata *pd, uint64_t off, uint64_t len,
			uint64_t cap, uint8_t **out)
{
	int err;

	*out = NULL;
	if (len > cap)
		return perf_data_bad(pd, "a section is larger than any perf writes");
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

/* ---- the stream ---------------------------------------------------------- */

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
				return perf_data_bad(pd, "the file is shorter than its "
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
int perf_data_skip(struct perfdata *pd, uint64_t n)
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
				return perf_data_bad(pd, "a record runs past the end "
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
	return perf_data_add_note(pd, "it ends inside a record (perf was "
				  "stopped while writing?): its last %zu "
				  "bytes are not read", left);
}

/*
 * The next record of the stream: *rec points at its header, *size its
 * length; *size 0 at the end.  The record stays valid until the next
 * call.
 */
int perf_data_next_record(struct perfdata *pd, const uint8_t **rec,
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
			return perf_data_bad(pd, "the data section ends inside a "
				   "record");
		return pd->blen != pd->bpos ? cut_short(pd) : 0;
	}
	memcpy(&h, pd->buf + pd->bpos, sizeof(h));
	if (h.size < sizeof(h))
		return perf_data_bad(pd, "a record is shorter than its header");
	err = fill(pd, h.size);
	if (err)
		return err;
	if (pd->blen - pd->bpos < h.size) {
		if (pd->pipe || pd->unfinished)
			return cut_short(pd);	/* what came is read */
		return perf_data_bad(pd, "a record runs past the end of the data "
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

int perf_data_add_id(struct perfdata *pd, uint64_t id, uint32_t ev)
{
	if (pd->nids >= MAX_IDS)
		return perf_data_bad(pd, "more event ids than any recording has");
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
struct idmap *perf_data_find_id(struct perfdata *pd, uint64_t id)
{
	struct id_key k = { pd->ids, id };
	size_t i = hashmap_find(&pd->id_map, id, id_eq, &k);

	return i == SIZE_MAX ? NULL : &pd->ids[i];
}

/* The event of id, or -1. */
long perf_data_event_of_id(struct perfdata *pd, uint64_t id)
{
	const struct idmap *m = perf_data_find_id(pd, id);

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
		return perf_data_bad(pd, "more events than any recording has");
	if (len < 64)
		return perf_data_bad(pd, "an event's attribute is too short");
	bytes_skip(&b, 4);
	size = u32(&b);
	if (size && size < 64)
		return perf_data_bad(pd, "an event's attribute is too short");
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

int perf_data_add_build_id(struct perfdata *pd, struct bytes *b, size_t size)
{
	const uint8_t *p;
	struct bid *d;
	uint16_t misc;
	const uint8_t *id;
	size_t n, i;

	/* header, pid, build_id[24], filename[] */
	if (size < 8 + 4 + 24 + 1)
		return perf_data_bad(pd, "a build-id entry is too short");
	p = bytes_get(b, size);
	if (!p)
		return perf_data_bad(pd, "a build-id entry runs past its section");
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
		err = perf_data_add_build_id(pd, b, (size_t)bytes_u(&h, 2));
		if (err)
			return err;
	}
	return 0;
}

static int feat_event_desc(struct perfdata *pd, struct bytes *b)
{
	uint32_t nr = u32(b), asize = u32(b), i, j;

	if (b->bad || nr > MAX_EVENTS || asize < 64)
		return perf_data_bad(pd, "the event descriptions are damaged");
	for (i = 0; i < nr; i++) {
		const uint8_t *attr = bytes_get(b, asize);
		uint32_t nids = u32(b);
		char *name = feat_string(b);
		long ev = -1;

		if (b->bad || !attr || nids > bytes_left(b) / 8) {
			free(name);
			return perf_data_bad(pd, "the event descriptions are damaged");
		}
		for (j = 0; j < nids; j++) {
			uint64_t id = u64(b);

			if (ev < 0)
				ev = perf_data_event_of_id(pd, id);
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
		return perf_data_bad(pd, "the command line is damaged");
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
		return perf_data_bad(pd, "the PMU mappings are damaged");
	for (i = 0; i < nr; i++) {
		uint32_t type = u32(b);
		char *name = feat_string(b);

		if (!name)
			return perf_data_bad(pd, "the PMU mappings are damaged");
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
			return perf_data_bad(pd, "its records are compressed with "
				   "other than zstd");
		pd->meta.compressed = 1;
		break;
	case F_TRACING_DATA:
		return perf_data_add_note(pd, "feature TRACING_DATA: tracepoint formats "
			    "(their raw fields are not shown)");
	case F_BRANCH_STACK:
		return perf_data_add_note(pd, "feature BRANCH_STACK: branch records "
			    "(perf record -b) are not used");
	case F_AUXTRACE:
	case F_STAT:
		return perf_data_add_note(pd, "feature %s: not read", feature_names[bit]);
	case F_DIR_FORMAT:
		return perf_data_bad(pd, "it is part of a perf.data directory (perf "
			   "record --threads): read the directory as perf "
			   "inject -i DIR -o - | ... -i -");
	default:
		if (bit > F_LAST_KNOWN)
			return perf_data_add_note(pd, "feature bit %u: unknown, not read",
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
		return perf_data_bad(pd, "the file is shorter than its header");
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
		return perf_data_bad(pd, "the file is shorter than its header");
	if (size == HEADER_SIZE)
		memcpy(bits, h + 72, 32);
	else if (size != HEADER_SIZE_OLD)
		return perf_data_bad(pd, "its header has an unknown size");
	if (attr_size <= 16 || attr_size > 4096)
		return perf_data_bad(pd, "its events have an impossible size");
	if (a_len % attr_size || a_len / attr_size > MAX_EVENTS)
		return perf_data_bad(pd, "its event section is damaged");
	if (pd->data_off > pd->file_size ||
	    pd->data_size > pd->file_size - pd->data_off)
		return perf_data_bad(pd, "its data section lies beyond the end of "
			   "the file");
	if (!pd->data_size) {
		/* perf record did not finish the file: read what is there,
		 * as perf report does; there are no features. */
		pd->unfinished = true;
		pd->data_size = pd->file_size - pd->data_off;
		memset(bits, 0, sizeof(bits));
		err = perf_data_add_note(pd, "the recording was not finished (perf record "
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
			err = perf_data_bad(pd, "an event's ids are damaged");
		if (!err)
			err = read_section(pd, ioff, ilen, (uint64_t)MAX_IDS * 8,
					   &iv);
		for (k = 0; !err && k < ilen / 8; k++) {
			struct bytes v = bytes_of(iv + 8 * k, 8);

			err = perf_data_add_id(pd, u64(&v), (uint32_t)i);
		}
		if (!err)
			free(iv);
	}
	free(attrs);
	if (err)
		return err;
	if (!pd->nev)
		return perf_data_bad(pd, "it records no event");
	id_places(pd);
	err = read_features(pd, bits);
	/* The stream is the data section now. */
	pd->blen = pd->bpos = 0;
	pd->pos = pd->data_off;
	pd->end = pd->data_off + pd->data_size;
	return err;
}

/* A pipe's attribute record: the attribute, then its ids. */
int perf_data_header_attr(struct perfdata *pd, const uint8_t *rec, size_t size)
{
	struct bytes b = bytes_of(rec + 8, size - 8), s;
	uint32_t asize;
	uint64_t k;
	int err;

	s = b;
	bytes_skip(&s, 4);
	asize = u32(&s);
	if (s.bad || asize < 64 || asize > size - 8 || (size - 8 - asize) % 8)
		return perf_data_bad(pd, "an event record is damaged");
	err = add_event(pd, rec + 8, asize);
	bytes_skip(&b, asize);
	for (k = 0; !err && bytes_left(&b) >= 8; k++)
		err = perf_data_add_id(pd, u64(&b), (uint32_t)(pd->nev - 1));
	return err;
}

/* A pipe's feature record: its id, then the section's bytes. */
int perf_data_header_feature(struct perfdata *pd, const uint8_t *rec,
			  size_t size)
{
	struct bytes b = bytes_of(rec + 8, size - 8);
	uint64_t bit = u64(&b);

	if (b.bad)
		return perf_data_bad(pd, "a feature record is damaged");
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

		err = perf_data_next_record(pd, &rec, &size);
		if (err || !size)
			break;
		memcpy(&type, rec, 4);
		if (type == PD_HEADER_ATTR) {
			err = perf_data_header_attr(pd, rec, size);
		} else if (type == PD_HEADER_FEATURE) {
			err = perf_data_header_feature(pd, rec, size);
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
		return perf_data_bad(pd, "it records no event");
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
		err = perf_data_bad(pd, "it is shorter than its header");
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
		err = perf_data_bad(pd, "no PERFILE2 magic (an old perf's file?)");
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

