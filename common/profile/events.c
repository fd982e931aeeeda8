/* SPDX-License-Identifier: MIT */
/*
 * The time stream in the file (section 15, docs/profile-format.md): the
 * events as columns of LEB128 numbers (time deltas in the section's unit,
 * task count indices, stack indices + 1, weights), the whole compressed
 * with zlib.  A column of one kind of number compresses far better than
 * records would: a sampled thread's deltas and weights repeat.  At
 * zlib's fastest level: on these columns it packs within 2-10% of level
 * 6 in a third of the time, which each sample of a run pays at its end.
 * The decoder checks the sizes before it inflates a byte (the unpacked
 * columns are at most a fixed ratio of the packed ones) and, after, that
 * the events add up to the counts they claim (profile_events_check()).
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/util/array.h"
#include "common/util/bytes.h"
#include "common/util/error.h"
#include "events.h"
#include "profile_int.h"

/* Times are kept to the microsecond in the file. */
#define EVENT_UNIT_NS 1000
/* An event takes 4 to 40 bytes of columns; zlib inflates at most about
 * 1032:1, so a section of zlen bytes unpacks to at most this. */
#define EVENT_MAX_RATIO 1100
#define EVENT_SLACK 4096
/* Events per byte of the zlib stream, at most: real streams take 0.5 to
 * 3 bytes an event, one thread's identical samples far less, but never
 * 1/32.  It bounds the memory a small hostile section can make a reader
 * take (24 bytes an event in memory: 768 times the section). */
#define EVENT_MAX_PER_BYTE 32

const char *profile_timeline_missing(const struct profile *p)
{
	static const char *const why[PROF_NTIMELINES] = {
		[PROF_TIMELINE_NONE] = "its writer kept no times",
		[PROF_TIMELINE_OLD] = "it was written before times were kept "
				      "(profile file version 1 or 2)",
		[PROF_TIMELINE_MERGED] = "it adds up several runs, each with "
					 "its own clock",
		[PROF_TIMELINE_EXACT] = "its counts are exact or totals, "
					"not samples taken in time",
		[PROF_TIMELINE_DROPPED] = "its counts were changed without "
					  "its times (-exclude-idle)",
	};

	if (p->timeline == PROF_TIMELINE_KEPT)
		return NULL;
	return p->timeline < PROF_NTIMELINES && why[p->timeline] ?
	       why[p->timeline] : why[PROF_TIMELINE_NONE];
}

const char *profile_state_name(uint32_t state)
{
	static const char *const names[PROF_NSTATES] = {
		[PROF_STATE_RUNNING] = "running",
		[PROF_STATE_BLOCKED] = "blocked",
		[PROF_STATE_IO] = "blocked-io",
		[PROF_STATE_PREEMPTED] = "preempted",
	};

	return state < PROF_NSTATES ? names[state] : "unknown";
}

/* A stack count's key and its index: the check finds an event's stack
 * count by (statistic, stack) whatever the order of p's stack counts (a
 * file has them sorted; a profile being written need not). */
struct sc_key {
	uint32_t stat, stack;
	size_t at;
};

static int cmp_sc_key(const void *a, const void *b)
{
	const struct sc_key *x = a, *y = b;

	if (x->stat != y->stat)
		return x->stat < y->stat ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

int profile_events_check(const struct profile *p, const char **why)
{
	uint64_t *ts = NULL, *tw = NULL, *ss = NULL, *sw = NULL;
	struct sc_key *keys = NULL;
	size_t i, nsc = p->nstack_counts;
	int r = -PROF_EFORMAT;

	*why = NULL;
	ts = calloc(p->ntask_counts + 1, sizeof(*ts));
	tw = calloc(p->ntask_counts + 1, sizeof(*tw));
	ss = calloc(nsc + 1, sizeof(*ss));
	sw = calloc(nsc + 1, sizeof(*sw));
	keys = malloc((nsc + 1) * sizeof(*keys));
	if (!ts || !tw || !ss || !sw || !keys) {
		r = -PROF_ENOMEM;
		goto out;
	}
	for (i = 0; i < nsc; i++)
		keys[i] = (struct sc_key){ .stat = p->stack_counts[i].stat,
			.stack = p->stack_counts[i].stack, .at = i };
	if (nsc > 1)
		qsort(keys, nsc, sizeof(*keys), cmp_sc_key);
	for (i = 0; i < p->nevents; i++) {
		const struct prof_event *e = &p->events[i];
		const struct prof_task_count *tc;

		if (i && e->time < p->events[i - 1].time) {
			*why = "events out of time order";
			goto out;
		}
		if (e->time + e->weight < e->time) {
			*why = "an event ends past the end of time";
			goto out;
		}
		if (e->tcount >= p->ntask_counts) {
			*why = "an event's task count is out of range";
			goto out;
		}
		tc = &p->task_counts[e->tcount];
		if (p->stats[tc->stat].flags &
		    (PROF_STAT_SIMULATED | PROF_STAT_COUNTING)) {
			*why = "an event of a statistic with exact counts";
			goto out;
		}
		ts[e->tcount]++;
		tw[e->tcount] += e->weight;
		if (tw[e->tcount] < e->weight) {
			*why = "the events' weights overflow";
			goto out;
		}
		if (e->stack) {
			struct sc_key key = { .stack = e->stack - 1,
					      .stat = tc->stat };
			const struct sc_key *k;

			if (e->stack > p->nstacks ||
			    !(k = bsearch(&key, keys, nsc, sizeof(key),
					  cmp_sc_key))) {
				*why = "an event's stack is out of range";
				goto out;
			}
			ss[k->at]++;
			sw[k->at] += e->weight;
		}
	}
	for (i = 0; i < p->ntask_counts; i++) {
		const struct prof_task_count *tc = &p->task_counts[i];

		if (p->stats[tc->stat].flags &
		    (PROF_STAT_SIMULATED | PROF_STAT_COUNTING))
			continue;
		if (ts[i] != tc->samples || tw[i] != tc->weight) {
			*why = "the events do not add up to the task counts";
			goto out;
		}
	}
	for (i = 0; i < nsc; i++) {
		const struct prof_stack_count *sc = &p->stack_counts[i];

		if (sc->stat >= p->nstats || (p->stats[sc->stat].flags &
		    (PROF_STAT_SIMULATED | PROF_STAT_COUNTING)))
			continue;
		if (ss[i] != sc->samples || sw[i] != sc->weight) {
			*why = "the events do not add up to the stack counts";
			goto out;
		}
	}
	r = 0;
out:
	free(ts);
	free(tw);
	free(ss);
	free(sw);
	free(keys);
	return r;
}

/* ---- writing ------------------------------------------------------------ */

static int put_uleb(uint8_t **d, size_t *len, size_t *alloc, uint64_t v)
{
	if (ALLOC_GROW(*d, *len + 10, *alloc))
		return -1;
	do {
		uint8_t c = v & 0x7f;

		v >>= 7;
		(*d)[(*len)++] = (uint8_t)(c | (v ? 0x80 : 0));
	} while (v);
	return 0;
}

int profile_events_encode(const struct profile *p, const uint32_t *file_tc,
			  uint8_t **out, size_t *outlen)
{
	uint8_t *raw = NULL, *z = NULL, *sec;
	size_t len = 0, alloc = 0, i;
	uLongf zlen;
	uint64_t prev = 0;
	int col, r = -PROF_ENOMEM;

	*out = NULL;
	*outlen = 0;
	for (col = 0; col < 4; col++) {
		for (i = 0; i < p->nevents; i++) {
			const struct prof_event *e = &p->events[i];
			uint64_t v;

			switch (col) {
			case 0:
				v = e->time / EVENT_UNIT_NS - prev;
				prev = e->time / EVENT_UNIT_NS;
				break;
			case 1: v = file_tc[e->tcount]; break;
			case 2: v = e->stack; break;
			default: v = e->weight; break;
			}
			if (put_uleb(&raw, &len, &alloc, v))
				goto out;
		}
	}
	zlen = compressBound((uLong)len);
	z = malloc(32 + zlen);
	if (!z || compress2(z + 32, &zlen, raw ? raw : (const Bytef *)"",
			    (uLong)len, Z_BEST_SPEED) != Z_OK)
		goto out;
	sec = z;
	for (i = 0; i < 4; i++)
		sec[i] = (uint8_t)(EVENT_UNIT_NS >> (8 * i));
	memset(sec + 4, 0, 4);
	for (i = 0; i < 8; i++) {
		sec[8 + i] = (uint8_t)((uint64_t)p->nevents >> (8 * i));
		sec[16 + i] = (uint8_t)((uint64_t)len >> (8 * i));
		sec[24 + i] = (uint8_t)((uint64_t)zlen >> (8 * i));
	}
	*out = z;
	*outlen = 32 + zlen;
	z = NULL;
	r = 0;
out:
	free(raw);
	free(z);
	return r;
}

/* ---- reading ------------------------------------------------------------ */

int profile_events_decode(struct profile *p, const uint8_t *d, size_t n,
			  const char **why)
{
	struct bytes b = bytes_of(d, n), cols;
	uint64_t unit, count, rawlen, zlen, t = 0;
	uint8_t *raw = NULL;
	uLongf got;
	uLong used;
	size_t i;
	int col, r = -PROF_EFORMAT;

	*why = "the time stream is malformed";
	unit = bytes_u(&b, 4);
	bytes_u(&b, 4);		/* flags, 0 */
	count = bytes_u(&b, 8);
	rawlen = bytes_u(&b, 8);
	zlen = bytes_u(&b, 8);
	if (b.bad || zlen != bytes_left(&b))
		return -PROF_EFORMAT;
	if (unit < 1 || unit > 1000000000) {
		*why = "the time stream has a bad time unit";
		return -PROF_EFORMAT;
	}
	if (count > rawlen / 4 || rawlen > count * 40 ||
	    rawlen > zlen * EVENT_MAX_RATIO + EVENT_SLACK ||
	    count > zlen * EVENT_MAX_PER_BYTE + EVENT_SLACK) {
		*why = "the time stream's sizes do not fit its bytes";
		return -PROF_EFORMAT;
	}
	raw = malloc(rawlen ? rawlen : 1);
	p->events = calloc(count ? count : 1, sizeof(*p->events));
	if (!raw || !p->events) {
		r = -PROF_ENOMEM;
		goto out;
	}
	p->alloc_events = count ? count : 1;
	got = (uLongf)rawlen;
	used = (uLong)zlen;
	/* The stream must give rawlen bytes and end where the section
	 * does: bytes after its end are damage too. */
	if (rawlen && (uncompress2(raw, &got, bytes_get(&b, 0), &used) !=
		       Z_OK || got != rawlen || used != zlen)) {
		*why = "the time stream's compressed data is damaged";
		goto out;
	}
	cols = bytes_of(raw, (size_t)rawlen);
	for (col = 0; col < 4; col++) {
		for (i = 0; i < count; i++) {
			struct prof_event *e = &p->events[i];
			uint64_t v = bytes_uleb64(&cols);

			switch (col) {
			case 0:
				if (v > UINT64_MAX - t ||
				    t + v > UINT64_MAX / unit) {
					*why = "the time stream's times "
					       "overflow";
					goto out;
				}
				t += v;
				e->time = t * unit;
				break;
			case 1:
				if (v >= p->ntask_counts) {
					*why = "an event's task count is out "
					       "of range";
					goto out;
				}
				e->tcount = (uint32_t)v;
				break;
			case 2:
				if (v > p->nstacks) {
					*why = "an event's stack is out of "
					       "range";
					goto out;
				}
				e->stack = (uint32_t)v;
				break;
			default:
				e->weight = v;
				break;
			}
		}
	}
	if (cols.bad || bytes_left(&cols))
		goto out;
	p->nevents = (size_t)count;
	r = profile_events_check(p, why);
	if (r == -PROF_ENOMEM)
		goto out;
	if (r == 0)
		p->timeline = PROF_TIMELINE_KEPT;
out:
	free(raw);
	if (r) {
		free(p->events);
		p->events = NULL;
		p->nevents = p->alloc_events = 0;
	}
	return r;
}
