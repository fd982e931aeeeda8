/* SPDX-License-Identifier: MIT */
/*
 * perf.data's records (perfdata.h, perfdata_int.h): each one parsed as
 * its event's sample_type lays it out, a round (FINISHED_ROUND) sorted
 * by time and delivered to the collector as the live engine delivers
 * its own, COMPRESSED ones inflated with zstd as they come, and what
 * was not used noted.
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
#include "perfdata_int.h"
#include "profileme.h"

/* ---- records ------------------------------------------------------------- */

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
	return perf_data_event_of_id(pd, u64(&r));
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
		struct idmap *m = perf_data_find_id(pd, gr->id[k]);
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
/* What a sample says besides struct collect_sample's fields. */
struct sample_extra {
	uint64_t period;	/* its PERIOD field, or its event's period */
	struct group_read gr;
	const uint8_t *raw;
	uint32_t raw_len;
};

/* A READ field: a group's counts, kept (with ids) for group_members(). */
static int parse_read(const struct event *e, struct bytes *r,
		      struct group_read *gr)
{
	uint64_t rf = e->read_format, per = 1, nr = 1, k;

	per += !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	if (rf & PERF_FORMAT_GROUP)
		nr = u64(r);
	bytes_skip(r, 8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			   !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING)));
	if (r->bad || nr > bytes_left(r) / 8 / per)
		return -1;
	if (!(rf & PERF_FORMAT_GROUP) || !(rf & PERF_FORMAT_ID)) {
		bytes_skip(r, (size_t)(nr * per * 8));
		return 0;
	}
	for (k = 0; k < nr; k++) {
		uint64_t v = u64(r), id = u64(r);

		if (rf & PERF_FORMAT_LOST)
			bytes_skip(r, 8);
		if (gr->n < MAX_GROUP) {
			gr->value[gr->n] = v;
			gr->id[gr->n++] = id;
		}
	}
	return 0;
}

/* The fields after RAW: branches (skipped), the user registers and the
 * stack copy (a 64-bit task's: what the x86-64 unwinder reads). */
static int parse_user(const struct event *e, struct bytes *r,
		      struct collect_sample *cs)
{
	uint64_t st = e->pub.sample_type;

	if (st & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr = u64(r);

		if (e->branch_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			bytes_skip(r, 8);
		if (r->bad || nr > bytes_left(r) / 24)
			return -1;
		bytes_skip(r, (size_t)nr * 24);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		uint64_t abi = u64(r);
		size_t nregs = (size_t)__builtin_popcountll(e->pub.regs_user);
		const uint8_t *regs = abi ? bytes_get(r, nregs * 8) : NULL;

		if (regs && (abi == PERF_REGS_ABI_64 ||
			     abi == PERF_REGS_ABI_32) &&
		    !((uintptr_t)regs % 8)) {
			cs->uregs = (const uint64_t *)regs;
			cs->uregs_mask = e->pub.regs_user;
			cs->compat = abi == PERF_REGS_ABI_32;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t len = u64(r), dyn;
		const uint8_t *stack;

		if (r->bad || len > bytes_left(r))
			return -1;
		if (len) {
			stack = bytes_get(r, (size_t)len);
			dyn = u64(r);
			if (cs->uregs && !r->bad) {
				cs->ustack = stack;
				cs->ustack_len = dyn < len ? dyn : len;
			}
		}
	}
	return r->bad ? -1 : 0;
}

/* A sample of event e, [b, end): its fields in sample_type's order
 * (perf_event_open(2)).  -1 when they do not fit. */
static int parse_sample(const struct event *e, struct bytes r,
			struct collect_sample *cs, struct sample_extra *x)
{
	uint64_t st = e->pub.sample_type;

	memset(cs, 0, sizeof(*cs));
	memset(x, 0, sizeof(*x));
	x->period = e->pub.period;
	cs->cpu = PROF_CPU_UNKNOWN;
	bytes_skip(&r, (st & PERF_SAMPLE_IDENTIFIER) ? 8 : 0);
	cs->ip = (st & PERF_SAMPLE_IP) ? u64(&r) : 0;
	if (st & PERF_SAMPLE_TID) {
		cs->pid = u32(&r);
		cs->tid = u32(&r);
	}
	cs->time = (st & PERF_SAMPLE_TIME) ? u64(&r) : 0;
	bytes_skip(&r, 8 * (!!(st & PERF_SAMPLE_ADDR) + !!(st & PERF_SAMPLE_ID) +
			    !!(st & PERF_SAMPLE_STREAM_ID)));
	if (st & PERF_SAMPLE_CPU) {
		cs->cpu = u32(&r);
		bytes_skip(&r, 4);
	}
	if (st & PERF_SAMPLE_PERIOD)
		x->period = u64(&r);
	if ((st & PERF_SAMPLE_READ) && parse_read(e, &r, &x->gr))
		return -1;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = u64(&r);

		if (r.bad || nr > bytes_left(&r) / 8)
			return -1;
		cs->chain = (const uint64_t *)bytes_get(&r, (size_t)nr * 8);
		cs->nchain = nr;
		if ((uintptr_t)cs->chain % 8)
			return -1;
	}
	if (st & PERF_SAMPLE_RAW) {
		x->raw_len = u32(&r);
		x->raw = bytes_get(&r, x->raw_len);
	}
	return parse_user(e, &r, cs);
}

/* A sample, charged to its event's statistic (or decoded: IBS). */
static void deliver_sample(struct perfdata *pd, const uint8_t *rec,
			   size_t size)
{
	struct perf_event_header h;
	struct collect_sample cs;
	struct sample_extra x;
	long ev = sample_event(pd, rec + 8, size - 8);
	size_t k;

	memcpy(&h, rec, sizeof(h));
	if (ev < 0) {
		pd->unknown_id++;
		return;
	}
	if (parse_sample(&pd->ev[ev], bytes_of(rec + 8, size - 8), &cs, &x)) {
		pd->malformed++;
		return;
	}
	pd->ev[ev].pub.samples++;
	cs.cpumode = h.misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (cs.time) {
		if (!pd->first || cs.time < pd->first)
			pd->first = cs.time;
		if (cs.time > pd->last)
			pd->last = cs.time;
	}
	if (pd->ev[ev].pub.ibs_op) {
		ibs_op_sample(pd, ev, x.raw, x.raw_len, &cs, x.period);
		return;
	}
	if (pd->stat_of[ev] == UINT32_MAX) {
		pd->left_out++;
		return;
	}
	cs.stat = pd->stat_of[ev];
	cs.period = x.period ? x.period : 1;
	/* In a group read the leader's own count says its period too. */
	for (k = 0; k < x.gr.n; k++) {
		struct idmap *m = perf_data_find_id(pd, x.gr.id[k]);

		if (m && (long)m->ev == ev) {
			cs.period = x.gr.value[k] >= m->last ?
				    x.gr.value[k] - m->last : 0;
			m->last = x.gr.value[k];
		}
	}
	if (cs.period)
		collector_sample(pd->col, &cs);
	group_members(pd, ev, &x.gr, &cs);
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
		ev = pd->nev == 1 ? 0 : perf_data_event_of_id(pd, id);
		if (ev >= 0)
			pd->ev[ev].lost_rec += time;
		return;
	case PERF_RECORD_LOST_SAMPLES:
		if (split_trailer(pd, rec + 8, &n, &t))
			break;
		r = bytes_of(rec + 8, n);
		time = u64(&r);
		ev = pd->nev == 1 ? 0 : t.have_id ? perf_data_event_of_id(pd, t.id) : -1;
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
			return perf_data_bad(pd, "a compressed record is damaged");
		pd->zlen = out.pos;
		/* Deliver the whole records inflated so far. */
		at = 0;
		while (pd->zlen - at >= 8) {
			uint16_t size;

			memcpy(&size, pd->zbuf + at + 6, 2);
			if (size < 8)
				return perf_data_bad(pd, "a compressed record holds a "
					   "record shorter than its header");
			if (pd->zlen - at < size)
				break;
			if (++pd->zrecs > pd->zin * ZSTD_MAX_RECS_PER_BYTE +
			    ZSTD_RECS_SLACK)
				return perf_data_bad(pd, "compressed records inflate to "
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
		return perf_data_bad(pd, "an ID_INDEX record is damaged");
	for (i = 0; !err && i < nr; i++) {
		uint64_t id = u64(&r), idx = u64(&r);

		bytes_skip(&r, 16);	/* cpu, tid */
		if (idx < pd->nev && perf_data_event_of_id(pd, id) < 0)
			err = perf_data_add_id(pd, id, (uint32_t)idx);
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
		return perf_data_add_build_id(pd, &r, size);
	case PD_HEADER_ATTR:
		/* An event added on the way: its samples are left out. */
		return pd->stat_of ? 0 : perf_data_header_attr(pd, rec, size);
	case PD_HEADER_FEATURE:
		return perf_data_header_feature(pd, rec, size);
	case PD_COMPRESSED:
	case PD_COMPRESSED2:
		if (inflated)
			return perf_data_bad(pd, "a compressed record inside another");
		r = bytes_of(rec + 8, size - 8);
		if (h.type == PD_COMPRESSED2) {
			uint64_t len = u64(&r);

			if (r.bad || len > bytes_left(&r))
				return perf_data_bad(pd, "a compressed record is "
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
		return perf_data_skip(pd, u64(&r));
	if (h.type == PD_HEADER_TRACING_DATA && pd->pipe)
		return perf_data_skip(pd, u32(&r));
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
			err = perf_data_add_note(pd, "%" PRIu64 " %s records not used%s%s",
				   pd->types[t], type_names[t], *why ? " " : "",
				   why);
		else
			err = perf_data_add_note(pd, "%" PRIu64 " records of type %s%zu not "
				   "read%s%s", pd->types[t],
				   t < PD_NTYPES ? "" : ">= ", t, *why ? " " : "",
				   why);
	}
	if (!err && pd->unknown_id)
		err = perf_data_add_note(pd, "%" PRIu64 " samples of no recorded event "
			   "left out", pd->unknown_id);
	if (!err && pd->malformed)
		err = perf_data_add_note(pd, "%" PRIu64 " malformed records left out",
			   pd->malformed);
	if (!err && pd->pm_dropped)
		err = perf_data_add_note(pd, "%" PRIu64 " IBS op samples without a valid "
			   "instruction (or their raw data: record with -R) "
			   "left out", pd->pm_dropped);
	if (!err && pd->distrusted)
		err = perf_data_add_note(pd, "another user's recording: %" PRIu64 " mappings "
			   "without a recorded build-id are not read by their "
			   "paths (their rows are addresses)", pd->distrusted);
	if (!err && pd->replaced)
		err = perf_data_add_note(pd, "%" PRIu64 " mappings of files replaced since "
			   "the recording (another inode at their path, no "
			   "build-id recorded) are not read (their rows are "
			   "addresses)", pd->replaced);
	if (!err && pd->left_out)
		err = perf_data_add_note(pd, "%" PRIu64 " samples of events not reported "
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
		err = perf_data_next_record(pd, &rec, &size);
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
