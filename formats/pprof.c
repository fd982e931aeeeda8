/* SPDX-License-Identifier: MIT */
/*
 * --format pprof: the samples model (report.h, struct report_samples) as
 * the gzip-compressed protobuf profile.proto that go tool pprof, Parca,
 * Pyroscope and many IDEs read.  docs/exports.md describes what is in it.
 *
 * The protobuf encoder is our own, the small one below, not protoc-c
 * generated code: profile.proto needs three wire types (varint,
 * length-delimited, packed repeated varints) and nothing of protobuf's
 * reflection or decoding.  Generated code would need the .proto file in
 * the tree, a code generator at build time and a runtime library at run
 * time, for what is here ~150 lines with no dependency but zlib, which the
 * tools link already.  Go's own runtime/pprof encodes the profile the same
 * way, by hand.
 *
 * Choices (what pprof leaves to the writer):
 * - Sample types: two per statistic S with values (not the derived and
 *   counting ones): "S_samples" (count), then "S" (its weight: nanoseconds
 *   for cpu-clock and task-clock, else events).  Count first, as
 *   profile.proto asks; the first statistic's weight is the default.
 * - Mappings: one per sampled object, the executable mapping the profile
 *   recorded (start, limit, file offset), build-id in hex; the main
 *   program first.  Every has_* flag is set: the locations are already
 *   symbolized as our report names them, so pprof must not symbolize
 *   them again (it would look for the binaries on the viewer's machine).
 * - Location addresses are run-time addresses: a file's offset moved into
 *   its mapping (start + offset - file offset), a kernel or anonymous
 *   address as it is.  The marker of a truncated stack ("[truncated:
 *   ...]") is a location of no mapping with a function of that name.
 * - IDs run 1, 2, 3... in each table (Parca rejects anything else).
 * - The string table is written last, once every string is known; the
 *   profile is streamed through deflate as it is encoded.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "common/util/path.h"
#include "formats/report/report.h"
#include "writers.h"

/* ---- protobuf encoding ------------------------------------------------ */

#define PB_VARINT 0
#define PB_BYTES 2

/* A growing buffer of encoded bytes; oom once an allocation failed (the
 * writers then do nothing, and the caller checks once at the end). */
struct pb {
	unsigned char *buf;
	size_t len, alloc;
	int oom;
};

static void pb_raw(struct pb *b, const void *p, size_t n)
{
	if (b->oom || ALLOC_GROW(b->buf, b->len + n, b->alloc)) {
		b->oom = 1;
		return;
	}
	memcpy(b->buf + b->len, p, n);
	b->len += n;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		tmp[n++] = (unsigned char)(v | 0x80);
	tmp[n++] = (unsigned char)v;
	pb_raw(b, tmp, n);
}

static void pb_tag(struct pb *b, unsigned field, unsigned wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

/* A uint64, int64 or bool field; zero is the default and left out. */
static void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	pb_tag(b, field, PB_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(struct pb *b, unsigned field, const void *p, size_t n)
{
	pb_tag(b, field, PB_BYTES);
	pb_varint(b, n);
	pb_raw(b, p, n);
}

/* A repeated varint field, packed: one length-delimited run.  Repeated
 * fields are always written, even a single zero. */
static void pb_packed(struct pb *b, struct pb *tmp, unsigned field,
		      const uint64_t *v, size_t n)
{
	size_t i;

	tmp->len = 0;
	for (i = 0; i < n; i++)
		pb_varint(tmp, v[i]);
	if (tmp->oom)
		b->oom = 1;
	else if (n)
		pb_bytes(b, field, tmp->buf, tmp->len);
}

/* A nested message, encoded in msg, as field of b. */
static void pb_message(struct pb *b, unsigned field, const struct pb *msg)
{
	if (msg->oom)
		b->oom = 1;
	else
		pb_bytes(b, field, msg->buf, msg->len);
}

/* ---- the string table ------------------------------------------------- */

/* Strings by index (strs[0] is ""), with an open-addressing index. */
struct strtab {
	char **strs;
	size_t n, alloc;
	uint32_t *slots;	/* index + 1; 0: empty */
	size_t cap;
};

static int strtab_grow(struct strtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024, i, s;
	uint32_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -PROF_ENOMEM;
	for (i = 0; i < t->n; i++) {
		for (s = hash_str(HASH_STR_SEED, t->strs[i]) & (cap - 1); slots[s];
		     s = (s + 1) & (cap - 1))
			;
		slots[s] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

/* The index of s (NULL is ""), added when new; -1 when out of memory. */
static int64_t strtab_id(struct strtab *t, const char *s)
{
	size_t slot;

	if (!s)
		s = "";
	if ((t->n + 1) * 2 > t->cap && strtab_grow(t))
		return -1;
	for (slot = hash_str(HASH_STR_SEED, s) & (t->cap - 1); t->slots[slot];
	     slot = (slot + 1) & (t->cap - 1))
		if (!strcmp(t->strs[t->slots[slot] - 1], s))
			return t->slots[slot] - 1;
	if (ALLOC_GROW(t->strs, t->n + 1, t->alloc))
		return -1;
	t->strs[t->n] = strdup(s);
	if (!t->strs[t->n])
		return -1;
	t->slots[slot] = (uint32_t)t->n + 1;
	return (int64_t)t->n++;
}

static void strtab_release(struct strtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->slots);
}

/* ---- the writer ------------------------------------------------------- */

/* profile.proto field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12, PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUETYPE_TYPE = 1, VALUETYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2,
	MAPPING_ID = 1, MAPPING_MEMORY_START = 2, MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4, MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7, MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9, MAPPING_HAS_INLINE_FRAMES = 10,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_FILENAME = 4,
};

/* Deflate's output is written in pieces of this size; the encoded
 * profile is handed to deflate whenever this much has gathered. */
#define PPROF_CHUNK 65536

struct pprof {
	FILE *f;
	const struct report *r;
	const struct report_samples *s;
	struct pb out;		/* encoded, not yet deflated */
	struct pb msg, sub, tmp;	/* scratch for nested messages */
	struct strtab strs;
	z_stream z;
	int err;
	size_t *stats;		/* statistics with values */
	size_t nstats;
	uint32_t *mapping_of;	/* per object: mapping ID, 0: none */
	uint64_t *vals;		/* one sample's values / location IDs */
};

/* The string's index, or 0 after recording out of memory. */
static uint64_t str(struct pprof *w, const char *s)
{
	int64_t id = strtab_id(&w->strs, s);

	if (id < 0) {
		w->out.oom = 1;
		return 0;
	}
	return (uint64_t)id;
}

/* Hand what is encoded to deflate (flush: Z_FINISH at the end). */
static void deflate_out(struct pprof *w, int flush)
{
	unsigned char buf[PPROF_CHUNK];
	int zr;

	if (!w->err && w->out.oom)
		w->err = -PROF_ENOMEM;
	if (w->err) {
		w->out.len = 0;	/* nothing more will be written */
		return;
	}
	w->z.next_in = w->out.buf;
	w->z.avail_in = (uInt)w->out.len;
	do {
		w->z.next_out = buf;
		w->z.avail_out = sizeof(buf);
		zr = deflate(&w->z, flush);
		if (zr == Z_STREAM_ERROR) {
			w->err = prof_fail(PROF_EIO, "cannot compress the "
					   "profile: %s", w->z.msg ?
					   w->z.msg : "zlib error");
			return;
		}
		if (fwrite(buf, 1, sizeof(buf) - w->z.avail_out, w->f) !=
		    sizeof(buf) - w->z.avail_out) {
			w->err = prof_fail(PROF_EIO, "cannot write the pprof "
					   "profile: %s", strerror(errno));
			return;
		}
	} while (w->z.avail_out == 0 ||
		 (flush == Z_FINISH && zr != Z_STREAM_END));
	w->out.len = 0;
}

/* A top-level message is complete: compress once enough has gathered. */
static void emitted(struct pprof *w)
{
	if (w->out.len >= PPROF_CHUNK)
		deflate_out(w, Z_NO_FLUSH);
}

static void value_type(struct pprof *w, unsigned field, const char *type,
		       const char *unit)
{
	w->msg.len = 0;
	pb_uint(&w->msg, VALUETYPE_TYPE, str(w, type));
	pb_uint(&w->msg, VALUETYPE_UNIT, str(w, unit));
	pb_message(&w->out, field, &w->msg);
}

static const char *weight_unit(const struct prof_stat *st)
{
	if (st->flags & PROF_STAT_TIME)
		return "nanoseconds";
	if (st->type == PERF_TYPE_SOFTWARE &&
	    (st->config == PERF_COUNT_SW_CPU_CLOCK ||
	     st->config == PERF_COUNT_SW_TASK_CLOCK))
		return "nanoseconds";
	return "events";
}

/* Statistics with values: neither derived nor counting. */
static int pick_stats(struct pprof *w)
{
	const struct profile *p = w->r->prof;
	size_t i;

	w->stats = calloc(p->nstats + 1, sizeof(*w->stats));
	if (!w->stats)
		return -PROF_ENOMEM;
	for (i = 0; i < p->nstats && i < w->s->nstats; i++)
		if (report_stat_counted(&p->stats[i]))
			w->stats[w->nstats++] = i;
	if (!w->nstats)
		return prof_fail(PROF_EINVAL, "the profile has no sampled "
				 "statistic to export");
	return 0;
}

static void sample_types(struct pprof *w)
{
	const struct profile *p = w->r->prof;
	char name[256];
	size_t i;

	for (i = 0; i < w->nstats; i++) {
		const struct prof_stat *st = &p->stats[w->stats[i]];

		snprintf(name, sizeof(name), "%s_samples", st->name);
		value_type(w, PROFILE_SAMPLE_TYPE, name, "count");
		value_type(w, PROFILE_SAMPLE_TYPE, st->name, weight_unit(st));
	}
}

/* Comments pprof prints in its header: what was run where, and which
 * statistic stands in for which. */
static void comments(struct pprof *w)
{
	const struct profile *p = w->r->prof;
	struct pb *c = &w->tmp;
	size_t i;
	int k;

	c->len = 0;
	for (k = 0; k < p->argc && p->argv && p->argv[k]; k++) {
		if (k)
			pb_raw(c, " ", 1);
		pb_raw(c, p->argv[k], strlen(p->argv[k]));
	}
	if (c->len) {
		pb_raw(c, "", 1);
		if (!c->oom)
			pb_uint(&w->out, PROFILE_COMMENT,
				str(w, (const char *)c->buf));
	}
	if (p->tool) {
		char line[256];

		snprintf(line, sizeof(line), "profiled by %s", p->tool);
		pb_uint(&w->out, PROFILE_COMMENT, str(w, line));
	}
	if (p->hostname && *p->hostname) {
		char line[512];

		snprintf(line, sizeof(line), "on %s (%s %s %s%s%s)",
			 p->hostname, p->sysname ? p->sysname : "",
			 p->release ? p->release : "",
			 p->machine ? p->machine : "",
			 p->cpu_model && *p->cpu_model ? ", " : "",
			 p->cpu_model ? p->cpu_model : "");
		pb_uint(&w->out, PROFILE_COMMENT, str(w, line));
	}
	for (i = 0; i < w->nstats; i++) {
		const struct prof_stat *st = &p->stats[w->stats[i]];
		char line[256];

		if (!(st->flags & PROF_STAT_SUBSTITUTE) || !st->requested)
			continue;
		snprintf(line, sizeof(line), "%s (substitute for %s)",
			 st->name, st->requested);
		pb_uint(&w->out, PROFILE_COMMENT, str(w, line));
	}
	if (c->oom)
		w->out.oom = 1;
}

/* Where a location is at run time: a file's offset in its mapping. */
static uint64_t loc_address(const struct profile *p,
			    const struct report_sloc *l)
{
	const struct prof_object *o;

	if (l->obj >= p->nobjects)
		return 0;
	o = &p->objects[l->obj];
	if (o->kind == PROF_OBJ_FILE || o->kind == PROF_OBJ_VDSO)
		return o->start + (l->offset - o->pgoff);
	return l->offset;
}

/* The object that is the profiled program: a file named as argv[0];
 * else (a perf.data, whose command line is perf's) the first file
 * mapped, which is the first program exec'd. */
static size_t main_object(const struct profile *p)
{
	const char *prog = p->argv && p->argc ? path_base(p->argv[0]) : "";
	size_t i;

	for (i = 0; *prog && i < p->nobjects; i++)
		if (p->objects[i].kind == PROF_OBJ_FILE &&
		    !strcmp(path_base(p->objects[i].path), prog))
			return i;
	for (i = 0; p->recorded_by && i < p->nobjects; i++)
		if (p->objects[i].kind == PROF_OBJ_FILE)
			return i;
	return SIZE_MAX;
}

/*
 * The span of object obj's locations [*lo, *hi): the extent of a mapping
 * the profile did not record (the kernel's, and anonymous code's, whose
 * addresses are absolute).
 */
static void loc_span(const struct pprof *w, size_t obj, uint64_t *lo,
		     uint64_t *hi)
{
	size_t i;

	*lo = UINT64_MAX;
	*hi = 0;
	for (i = 0; i < w->s->nlocs; i++) {
		uint64_t a;

		if (w->s->locs[i].obj != obj)
			continue;
		a = loc_address(w->r->prof, &w->s->locs[i]);
		if (a < *lo)
			*lo = a;
		if (a >= *hi)
			*hi = a + 1;
	}
	if (*lo > *hi)
		*lo = *hi = 0;
}

static void mapping(struct pprof *w, size_t obj, uint32_t id)
{
	const struct prof_object *o = &w->r->prof->objects[obj];
	uint64_t start = o->start, limit = o->end, pgoff = o->pgoff;
	struct pb *m = &w->msg;
	char hex[2 * sizeof(o->build_id) + 1];
	size_t i, n = o->build_id_len < sizeof(o->build_id) ?
		      o->build_id_len : sizeof(o->build_id);

	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", o->build_id[i]);
	hex[2 * n] = '\0';
	m->len = 0;
	pb_uint(m, MAPPING_ID, id);
	if (limit <= start) {
		loc_span(w, obj, &start, &limit);
		pgoff = 0;
	}
	pb_uint(m, MAPPING_MEMORY_START, start);
	pb_uint(m, MAPPING_MEMORY_LIMIT, limit);
	pb_uint(m, MAPPING_FILE_OFFSET, pgoff);
	pb_uint(m, MAPPING_FILENAME, str(w, o->path));
	pb_uint(m, MAPPING_BUILD_ID, str(w, hex));
	pb_uint(m, MAPPING_HAS_FUNCTIONS, 1);
	pb_uint(m, MAPPING_HAS_FILENAMES, 1);
	pb_uint(m, MAPPING_HAS_LINE_NUMBERS, 1);
	pb_uint(m, MAPPING_HAS_INLINE_FRAMES, 1);
	pb_message(&w->out, PROFILE_MAPPING, m);
	emitted(w);
}

/* One mapping per object a location is in, the main program first. */
static int mappings(struct pprof *w)
{
	const struct profile *p = w->r->prof;
	size_t i, main = main_object(p);
	uint32_t id = 0;

	w->mapping_of = calloc(p->nobjects + 1, sizeof(*w->mapping_of));
	if (!w->mapping_of)
		return -PROF_ENOMEM;
	for (i = 0; i < w->s->nlocs; i++)
		if (w->s->locs[i].obj < p->nobjects)
			w->mapping_of[w->s->locs[i].obj] = UINT32_MAX;
	if (main != SIZE_MAX && w->mapping_of[main]) {
		w->mapping_of[main] = ++id;
		mapping(w, main, id);
	}
	for (i = 0; i < p->nobjects; i++)
		if (w->mapping_of[i] == UINT32_MAX) {
			w->mapping_of[i] = ++id;
			mapping(w, i, id);
		}
	return 0;
}

static void locations(struct pprof *w)
{
	const struct report_samples *s = w->s;
	const struct profile *p = w->r->prof;
	size_t i, k;

	for (i = 0; i < s->nlocs; i++) {
		const struct report_sloc *l = &s->locs[i];

		w->msg.len = 0;
		pb_uint(&w->msg, LOCATION_ID, i + 1);
		if (l->obj < p->nobjects) {
			pb_uint(&w->msg, LOCATION_MAPPING_ID,
				w->mapping_of[l->obj]);
			pb_uint(&w->msg, LOCATION_ADDRESS,
				loc_address(p, l));
		}
		/* Innermost first, the out-of-line function last: the
		 * order profile.proto's Location.line has. */
		for (k = 0; k < l->nlines; k++) {
			const struct report_sline *ln =
				&s->lines[l->first_line + k];

			w->sub.len = 0;
			pb_uint(&w->sub, LINE_FUNCTION_ID, ln->func + 1ULL);
			pb_uint(&w->sub, LINE_LINE, ln->line);
			pb_message(&w->msg, LOCATION_LINE, &w->sub);
		}
		pb_message(&w->out, PROFILE_LOCATION, &w->msg);
		emitted(w);
	}
}

static void functions(struct pprof *w)
{
	size_t i;

	for (i = 0; i < w->s->nfuncs; i++) {
		const struct report_sfunc *fn = &w->s->funcs[i];

		w->msg.len = 0;
		pb_uint(&w->msg, FUNCTION_ID, i + 1);
		pb_uint(&w->msg, FUNCTION_NAME, str(w, fn->name));
		pb_uint(&w->msg, FUNCTION_FILENAME, str(w, fn->file));
		pb_message(&w->out, PROFILE_FUNCTION, &w->msg);
		emitted(w);
	}
}

static int samples(struct pprof *w)
{
	const struct report_samples *s = w->s;
	size_t i, k, most = 2 * w->nstats;

	for (i = 0; i < s->nsamples; i++)
		if (s->samples[i].nlocs > most)
			most = s->samples[i].nlocs;
	w->vals = calloc(most + 1, sizeof(*w->vals));
	if (!w->vals)
		return -PROF_ENOMEM;
	for (i = 0; i < s->nsamples; i++) {
		const struct report_ssample *x = &s->samples[i];
		int any = 0;

		for (k = 0; k < w->nstats; k++) {
			w->vals[2 * k] = x->samples[w->stats[k]];
			w->vals[2 * k + 1] = x->weight[w->stats[k]];
			any |= w->vals[2 * k] || w->vals[2 * k + 1];
		}
		if (!any)
			continue;
		w->msg.len = 0;
		pb_packed(&w->msg, &w->tmp, SAMPLE_VALUE, w->vals,
			  2 * w->nstats);
		for (k = 0; k < x->nlocs; k++)
			w->vals[k] = s->sample_locs[x->first + k] + 1ULL;
		pb_packed(&w->msg, &w->tmp, SAMPLE_LOCATION_ID, w->vals,
			  x->nlocs);
		pb_message(&w->out, PROFILE_SAMPLE, &w->msg);
		emitted(w);
	}
	return 0;
}

/* Time, period and the default type, from the first statistic. */
static void header(struct pprof *w)
{
	const struct profile *p = w->r->prof;
	size_t first = w->stats[0];
	const struct prof_stat *st = &p->stats[first];
	uint64_t period = st->period;

	pb_uint(&w->out, PROFILE_TIME_NANOS, p->start_time_ns);
	pb_uint(&w->out, PROFILE_DURATION_NANOS, p->duration_ns);
	value_type(w, PROFILE_PERIOD_TYPE, st->name, weight_unit(st));
	/* Sampled at a frequency: the mean period. */
	if (!period && w->s->total_samples[first])
		period = (w->s->total_weight[first] +
			  w->s->total_samples[first] / 2) /
			 w->s->total_samples[first];
	pb_uint(&w->out, PROFILE_PERIOD, period);
	pb_uint(&w->out, PROFILE_DEFAULT_SAMPLE_TYPE, str(w, st->name));
}

static void string_table(struct pprof *w)
{
	size_t i;

	for (i = 0; i < w->strs.n; i++) {
		pb_bytes(&w->out, PROFILE_STRING_TABLE, w->strs.strs[i],
			 strlen(w->strs.strs[i]));
		emitted(w);
	}
}

int fmt_pprof(FILE *f, const struct report *r)
{
	struct pprof w = { .f = f, .r = r, .s = r->samples };
	int err;

	if (!w.s)
		return prof_fail(PROF_EINVAL, "the report has no samples "
				 "model to export");
	/* windowBits 15 + 16: a gzip header and trailer, not zlib's. */
	if (deflateInit2(&w.z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -PROF_ENOMEM;
	str(&w, "");	/* string_table[0] must be "" */
	err = pick_stats(&w);
	if (!err) {
		sample_types(&w);
		header(&w);
		comments(&w);
		err = mappings(&w);
	}
	if (!err) {
		locations(&w);
		functions(&w);
		err = samples(&w);
	}
	if (!err) {
		string_table(&w);
		deflate_out(&w, Z_FINISH);
		err = w.err;
	}
	if (!err && ferror(f))
		err = -PROF_EIO;
	deflateEnd(&w.z);
	strtab_release(&w.strs);
	free(w.out.buf);
	free(w.msg.buf);
	free(w.sub.buf);
	free(w.tmp.buf);
	free(w.stats);
	free(w.mapping_of);
	free(w.vals);
	return err;
}
