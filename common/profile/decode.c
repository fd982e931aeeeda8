/* SPDX-License-Identifier: MIT */
/*
 * Reading a profile file (layout: docs/profile-format.md) and checking
 * everything in it: every length, index, offset and order, and the
 * checksum, through one bounded cursor (common/util/bytes.h), so that a
 * damaged file is -PROF_EFORMAT with a detail, never a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common/util/array.h"
#include "common/util/bytes.h"
#include "common/util/error.h"
#include "common/util/regfile.h"
#include "events.h"
#include "profile_int.h"

/* A section being decoded: its bytes, and what its decoder needs. */
struct section {
	struct bytes b;
	uint32_t version;	/* of the file */
	int refused;		/* bad, and a decoder said why (prof_fail) */
};

/* A string of the file (a u32 length, then as many bytes, no NUL), as a
 * malloc'd NUL-terminated copy; NULL when malformed (b marked bad). */
static char *get_str(struct bytes *b)
{
	uint32_t n = (uint32_t)bytes_u(b, 4);
	const uint8_t *at;
	char *s;

	if (n > MAX_STRING || !(at = bytes_get(b, n)) ||
	    memchr(at, '\0', n) || !(s = malloc(n + 1))) {
		b->bad = 1;
		return NULL;
	}
	memcpy(s, at, n);
	s[n] = '\0';
	return s;
}

static int parse_num(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int decode_argv(struct profile *p, struct bytes *b)
{
	uint32_t n = (uint32_t)bytes_u(b, 4);
	const char *s;
	size_t i, argc = 0;

	if (n > MAX_STRING || !(s = (const char *)bytes_get(b, n)))
		return -1;
	if (n && s[n - 1] != '\0')
		return -1;
	for (i = 0; i < n; i++)
		if (!s[i])
			argc++;
	p->argv = calloc(argc + 1, sizeof(char *));
	if (!p->argv)
		return -1;
	for (i = 0; i < argc; i++) {
		p->argv[i] = strdup(s);
		if (!p->argv[i])
			return -1;
		s += strlen(s) + 1;
	}
	p->argc = (int)argc;
	return 0;
}

/* Store key k's value v (taken when a string) in p; -1 when v is not a
 * value of k. */
static int set_meta(struct profile *p, const struct profile_meta_key *k,
		    char **v)
{
	char *f = (char *)p + k->off;
	int64_t num;
	int cg;

	switch (k->type) {
	case META_STR:
		free(*(char **)f);
		*(char **)f = *v;
		*v = NULL;
		return 0;
	case META_CALL_GRAPH:
		cg = profile_call_graph_parse(*v);
		if (cg < 0)
			return -1;
		*(uint32_t *)f = (uint32_t)cg;
		return 0;
	default:
		break;
	}
	if (parse_num(*v, &num) || num < k->min || num > k->max)
		return -1;
	if (num < 0 && (k->flags & META_NEG_IS_0))
		num = 0;
	if (k->type == META_U64)
		*(uint64_t *)f = (uint64_t)num;
	else if (k->type == META_I64)
		*(int64_t *)f = num;
	else if (k->type == META_I32)
		*(int32_t *)f = (int32_t)num;
	else
		*(uint32_t *)f = (uint32_t)num;
	return 0;
}

static int decode_meta(struct profile *p, struct section *sec)
{
	struct bytes *b = &sec->b;
	uint32_t n = (uint32_t)bytes_u(b, 4), i;

	if (n > 4096)
		return -1;
	for (i = 0; i < n && !b->bad; i++) {
		char *name = get_str(b), *v = NULL;
		const struct profile_meta_key *k;
		int err = 0;

		if (!name)
			return -1;
		k = profile_meta_key(name, sec->version);
		free(name);
		if (k && k->type == META_ARGV) {
			if (p->argv || decode_argv(p, b))
				return -1;
			continue;
		}
		v = get_str(b);
		if (!v)
			return -1;
		/* Unknown keys are ignored: newer writers may add some. */
		if (k)
			err = set_meta(p, k, &v);
		free(v);
		if (err)
			return -1;
	}
	return b->bad ? -1 : 0;
}

static int decode_stats(struct profile *p, struct section *sec)
{
	struct bytes *b = &sec->b;
	uint32_t n = bytes_u(b, 4), i;

	/* Each entry is at least 84 bytes: bound n before allocating. */
	if (n > bytes_left(b) / 84)
		return -1;
	for (i = 0; i < n; i++) {
		struct prof_stat s = { 0 };
		int r;

		s.name = get_str(b);
		s.requested = get_str(b);
		s.type = bytes_u(b, 4);
		s.modes = bytes_u(b, 4);
		s.flags = bytes_u(b, 4);
		s.config = bytes_u(b, 8);
		s.period = bytes_u(b, 8);
		s.freq = bytes_u(b, 8);
		s.samples = bytes_u(b, 8);
		s.lost = bytes_u(b, 8);
		s.value = bytes_u(b, 8);
		s.time_enabled = bytes_u(b, 8);
		s.time_running = bytes_u(b, 8);
		r = b->bad ? -1 : profile_add_stat(p, &s);
		free(s.name);
		free(s.requested);
		if (r < 0)
			return -1;
	}
	return 0;
}

static int decode_objects(struct profile *p, struct section *sec)
{
	struct bytes *b = &sec->b;
	uint32_t n = bytes_u(b, 4), i;

	if (n > bytes_left(b) / 36)
		return -1;
	for (i = 0; i < n; i++) {
		struct prof_object o = { 0 };
		const uint8_t *id;
		int r;

		o.kind = bytes_u(b, 4);
		o.path = get_str(b);
		o.build_id_len = bytes_u(b, 4);
		if (o.kind > PROF_OBJ_PYTHON ||
		    o.build_id_len > sizeof(o.build_id) ||
		    !(id = bytes_get(b, o.build_id_len))) {
			free(o.path);
			return -1;
		}
		memcpy(o.build_id, id, o.build_id_len);
		o.start = bytes_u(b, 8);
		o.end = bytes_u(b, 8);
		o.pgoff = bytes_u(b, 8);
		r = b->bad ? -1 : profile_add_object(p, &o);
		free(o.path);
		if (r < 0)
			return -1;
	}
	return 0;
}

static int decode_counts(struct profile *p, struct section *sec)
{
	struct bytes *b = &sec->b;
	uint32_t n = bytes_u(b, 4), i;

	if (n > bytes_left(b) / 32)
		return -1;
	p->counts = calloc(n ? n : 1, sizeof(*p->counts));
	if (!p->counts)
		return -1;
	p->alloc_counts = n;
	for (i = 0; i < n; i++) {
		struct prof_count *k = &p->counts[i];

		k->obj = bytes_u(b, 4);
		k->stat = bytes_u(b, 4);
		k->offset = bytes_u(b, 8);
		k->samples = bytes_u(b, 8);
		k->weight = bytes_u(b, 8);
		if (b->bad || k->obj >= p->nobjects || k->stat >= p->nstats)
			return -1;
		p->ncounts++;
	}
	return 0;
}

static int decode_modes(struct profile *p, struct section *sec)
{
	struct bytes *b = &sec->b;
	uint32_t nmodes, n, i, m;

	p->ncpus = bytes_u(b, 4);
	nmodes = bytes_u(b, 4);
	n = bytes_u(b, 4);
	if (b->bad || nmodes < PROF_NMODES || nmodes > 64 ||
	    n > bytes_left(b) / (4 + 8 * (size_t)nmodes))
		return -1;
	p->modes = calloc(n ? n : 1, sizeof(*p->modes));
	if (!p->modes)
		return -1;
	p->alloc_modes = n;
	for (i = 0; i < n; i++) {
		p->modes[i].cpu = bytes_u(b, 4);
		for (m = 0; m < nmodes; m++) {
			uint64_t v = bytes_u(b, 8);

			if (m < PROF_NMODES)
				p->modes[i].n[m] = v;
		}
		p->nmodes++;
	}
	return b->bad ? -1 : 0;
}

static int decode_ksyms(struct profile *p, struct section *sec)
{
	struct bytes *b = &sec->b;
	uint32_t n = bytes_u(b, 4), i;

	if (n > bytes_left(b) / 24)
		return -1;
	for (i = 0; i < n; i++) {
		struct prof_ksym k;
		int r;

		k.start = bytes_u(b, 8);
		k.end = bytes_u(b, 8);
		k.name = get_str(b);
		k.module = get_str(b);
		r = b->bad || k.end < k.start ? -1 : profile_add_ksym(p, &k);
		free(k.name);
		free(k.module);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* Identities of file objects, in increasing object order, each once. */
static int decode_identities(struct profile *p, struct section *sec)
{
	struct bytes *b = &sec->b;
	uint32_t n = bytes_u(b, 4), i, next = 0;

	if (n > bytes_left(b) / 40)
		return -1;
	for (i = 0; i < n; i++) {
		struct prof_identity id;
		uint32_t obj = bytes_u(b, 4);

		id.flags = bytes_u(b, 4);
		id.dev = bytes_u(b, 8);
		id.ino = bytes_u(b, 8);
		id.size = bytes_u(b, 8);
		id.mtime_ns = bytes_u(b, 8);
		if (b->bad || obj < next || obj >= p->nobjects ||
		    (id.flags & ~(uint64_t)PROF_ID_UNREAD) ||
		    (id.flags ? id.ino || id.dev || id.size || id.mtime_ns :
		     !id.ino) ||
		    p->objects[obj].kind != PROF_OBJ_FILE)
			return -1;
		p->objects[obj].id = id;
		next = obj + 1;
	}
	return 0;
}

/* Sorted by (object, start), apart, each in a JIT object. */
static int decode_jitsyms(struct profile *p, struct section *sec)
{
	struct bytes *b = &sec->b;
	uint32_t n = bytes_u(b, 4), i;

	if (n > bytes_left(b) / 28)
		return -1;
	for (i = 0; i < n; i++) {
		struct prof_jitsym j = { 0 }, *prev = p->njitsyms ?
			&p->jitsyms[p->njitsyms - 1] : NULL;
		int r;

		j.obj = bytes_u(b, 4);
		if (bytes_u(b, 4))
			return -1;
		j.start = bytes_u(b, 8);
		j.end = bytes_u(b, 8);
		if (b->bad || j.obj >= p->nobjects ||
		    (p->objects[j.obj].kind != PROF_OBJ_JIT &&
		     p->objects[j.obj].kind != PROF_OBJ_PYTHON) ||
		    j.end <= j.start ||
		    (prev && (prev->obj > j.obj ||
			      (prev->obj == j.obj && prev->end > j.start))))
			return -1;
		j.name = get_str(b);
		r = b->bad ? -1 : profile_add_jitsym(p, &j);
		free(j.name);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* j's source files and lines (sorted, inside j, each naming a file). */
static int decode_jitlines(struct bytes *b, struct prof_jitsym *j)
{
	uint32_t nfiles = bytes_u(b, 4), nlines, i;

	if (nfiles > bytes_left(b) / 4 || nfiles > PROF_JIT_LINES_MAX)
		return -1;
	j->files = calloc(nfiles ? nfiles : 1, sizeof(*j->files));
	if (!j->files)
		return -1;
	for (i = 0; i < nfiles; i++, j->nfiles++)
		if (!(j->files[i] = get_str(b)))
			return -1;
	nlines = bytes_u(b, 4);
	if (nlines > bytes_left(b) / 16 || nlines > PROF_JIT_LINES_MAX)
		return -1;
	j->lines = malloc((nlines ? nlines : 1) * sizeof(*j->lines));
	if (!j->lines)
		return -1;
	for (i = 0; i < nlines; i++, j->nlines++) {
		struct prof_jitline *l = &j->lines[i];

		l->addr = bytes_u(b, 8);
		l->file = bytes_u(b, 4);
		l->line = bytes_u(b, 4);
		if (b->bad || l->addr < j->start || l->addr >= j->end ||
		    l->file >= nfiles || (i && l[-1].addr >= l->addr))
			return -1;
	}
	return 0;
}

/* The code and lines of JIT symbols, in their order, within the caps. */
static int decode_jitcode(struct profile *p, struct section *sec)
{
	struct bytes *b = &sec->b;
	uint32_t n = bytes_u(b, 4), i, at, next = 0;
	uint64_t total = 0;

	if (n > p->njitsyms)
		return -1;
	for (i = 0; i < n; i++) {
		struct prof_jitsym *j;
		uint32_t flags;
		uint64_t len;
		const uint8_t *code;

		at = bytes_u(b, 4);
		flags = bytes_u(b, 4);
		if (b->bad || at < next || at >= p->njitsyms || flags > 1)
			return -1;
		next = at + 1;
		j = &p->jitsyms[at];
		len = j->end - j->start;
		if (p->objects[j->obj].kind != PROF_OBJ_JIT)
			return -1;
		if (flags) {
			if (len > PROF_JIT_CODE_MAX ||
			    (total += len) > PROF_JIT_CODE_TOTAL_MAX) {
				sec->refused = 1;
				prof_fail(PROF_EFORMAT, "the JIT code of '%s' "
					  "is over its cap (%s)", j->name,
					  len > PROF_JIT_CODE_MAX ? "1 MiB" :
					  "64 MiB in all");
				return -1;
			}
			if (!(code = bytes_get(b, len)) ||
			    !(j->code = malloc(len)))
				return -1;
			memcpy(j->code, code, len);
		}
		if (decode_jitlines(b, j) || (!flags && !j->nlines))
			return -1;
	}
	return 0;
}

/* f over the caps on archived files (after total bytes of files):
 * refused with the file and the cap named, before any reader unpacks. */
static int file_over_caps(struct section *sec, const struct prof_file *f,
			  uint64_t total)
{
	const char *cap = profile_file_cap(f->size, f->zlen, total);

	if (!cap)
		return 0;
	sec->refused = 1;
	prof_fail(PROF_EFORMAT, "archived file '%s' declares %" PRIu64
		  " bytes (%" PRIu64 " compressed), over %s", f->path,
		  f->size, f->zlen, cap);
	return -1;
}

/* An archive's files: kept compressed (profile_file_write() unpacks). */
static int decode_files(struct profile *p, struct section *sec)
{
	struct bytes *b = &sec->b;
	uint32_t n = bytes_u(b, 4), i;
	uint64_t total = 0;

	if (n > bytes_left(b) / 28)
		return -1;
	for (i = 0; i < n; i++) {
		struct prof_file f = { 0 };
		const uint8_t *at;

		f.kind = bytes_u(b, 4);
		f.path = get_str(b);
		f.build_id_len = bytes_u(b, 4);
		if (b->bad || f.kind > PROF_FILE_DEBUG || !f.path[0] ||
		    f.build_id_len > sizeof(f.build_id) ||
		    !(at = bytes_get(b, f.build_id_len))) {
			free(f.path);
			return -1;
		}
		memcpy(f.build_id, at, f.build_id_len);
		f.size = bytes_u(b, 8);
		f.zlen = bytes_u(b, 8);
		if (b->bad || f.zlen > bytes_left(b) ||
		    file_over_caps(sec, &f, total) ||
		    ALLOC_GROW(p->files, p->nfiles + 1, p->alloc_files) ||
		    !(f.zdata = malloc(f.zlen ? f.zlen : 1))) {
			free(f.path);
			return -1;
		}
		memcpy(f.zdata, bytes_get(b, f.zlen), f.zlen);
		total += f.size;
		p->files[p->nfiles++] = f;
	}
	return 0;
}

static int decode_frames(struct profile *p, struct section *sec)
{
	struct bytes *b = &sec->b;
	uint32_t n = bytes_u(b, 4), i;

	if (n > bytes_left(b) / 16 || n > INT_MAX)
		return -1;
	p->frames = calloc(n ? n : 1, sizeof(*p->frames));
	if (!p->frames)
		return -1;
	p->alloc_frames = n;
	for (i = 0; i < n; i++) {
		struct prof_frame *f = &p->frames[i];

		f->obj = bytes_u(b, 4);
		bytes_u(b, 4);	/* reserved */
		f->offset = bytes_u(b, 8);
		if (b->bad || f->obj >= p->nobjects)
			return -1;
		p->nframes++;
	}
	return 0;
}

/* first and nframes in memory are the reader's, never the file's. */
static int decode_stacks(struct profile *p, struct section *sec)
{
	struct bytes *b = &sec->b;
	uint32_t n = bytes_u(b, 4), i, j, *frames = NULL;
	size_t alloc = 0;
	int err = -1;

	/* Each stack is at least 12 bytes: end, nframes, one frame. */
	if (n > bytes_left(b) / 12 || n > INT_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		uint32_t end = bytes_u(b, 4), nframes = bytes_u(b, 4);

		if (b->bad || end >= PROF_STACK_NEND || !nframes ||
		    nframes > bytes_left(b) / 4)
			goto out;
		if (ALLOC_GROW(frames, nframes, alloc))
			goto out;
		for (j = 0; j < nframes; j++) {
			frames[j] = bytes_u(b, 4);
			if (frames[j] >= p->nframes)
				goto out;
		}
		if (b->bad || profile_add_stack(p, frames, nframes,
						(enum prof_stack_end)end) < 0)
			goto out;
	}
	err = 0;
out:
	free(frames);
	return err;
}

/* Sorted by (statistic, stack), one entry per pair: checked, so that
 * reports may merge and look them up without sorting again. */
static int decode_stack_counts(struct profile *p, struct section *sec)
{
	struct bytes *b = &sec->b;
	uint32_t n = bytes_u(b, 4), i;

	if (n > bytes_left(b) / 24)
		return -1;
	p->stack_counts = calloc(n ? n : 1, sizeof(*p->stack_counts));
	if (!p->stack_counts)
		return -1;
	p->alloc_stack_counts = n;
	for (i = 0; i < n; i++) {
		struct prof_stack_count *k = &p->stack_counts[i];

		k->stack = bytes_u(b, 4);
		k->stat = bytes_u(b, 4);
		k->samples = bytes_u(b, 8);
		k->weight = bytes_u(b, 8);
		if (b->bad || k->stack >= p->nstacks || k->stat >= p->nstats ||
		    (i && profile_stack_count_cmp(k - 1, k) >= 0))
			return -1;
		p->nstack_counts++;
	}
	return 0;
}

#define MAX_COMM 256

static int decode_tasks(struct profile *p, struct section *sec)
{
	struct bytes *b = &sec->b;
	uint32_t n = bytes_u(b, 4), i;

	if (n > bytes_left(b) / 12 || n > INT_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		uint32_t pid = bytes_u(b, 4), tid = bytes_u(b, 4);
		char *comm = get_str(b);
		int r = b->bad || strlen(comm) > MAX_COMM ? -1 :
			profile_add_task(p, pid, tid, comm);

		free(comm);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* Sorted by (count, task, cpu), one entry per triple, and those of a
 * count add up to it: checked, so that a report's rows split by task
 * add up to the rows. */
static int decode_task_counts(struct profile *p, struct section *sec)
{
	struct bytes *b = &sec->b;
	uint32_t n = bytes_u(b, 4), i;
	struct task_entry prev = { 0 };
	uint64_t s = 0, w = 0;

	if (n > bytes_left(b) / 32)
		return -1;
	p->task_counts = calloc(n ? n : 1, sizeof(*p->task_counts));
	if (!p->task_counts)
		return -1;
	p->alloc_task_counts = n;
	for (i = 0; i < n; i++) {
		struct task_entry e = { 0 };
		struct prof_task_count *k = &p->task_counts[i];
		const struct prof_count *pc;

		e.count = bytes_u(b, 4);
		e.task = bytes_u(b, 4);
		e.cpu = bytes_u(b, 4);
		/* Reserved before version 3. */
		e.state = bytes_u(b, 4);
		if (sec->version < 3)
			e.state = 0;
		if (e.state >= PROF_NSTATES)
			return -1;
		e.samples = bytes_u(b, 8);
		e.weight = bytes_u(b, 8);
		if (b->bad || e.count >= p->ncounts || e.task >= p->ntasks ||
		    (i && profile_task_entry_cmp(&prev, &e) >= 0))
			return -1;
		if (i && e.count != prev.count) {
			pc = &p->counts[prev.count];
			if (s != pc->samples || w != pc->weight)
				return -1;
			s = w = 0;
		}
		if (s + e.samples < s || w + e.weight < w)
			return -1;
		s += e.samples;
		w += e.weight;
		pc = &p->counts[e.count];
		*k = (struct prof_task_count){ .task = e.task, .cpu = e.cpu,
			.state = e.state,
			.obj = pc->obj, .stat = pc->stat,
			.offset = pc->offset, .samples = e.samples,
			.weight = e.weight };
		prev = e;
		p->ntask_counts++;
	}
	if (n && (s != p->counts[prev.count].samples ||
		  w != p->counts[prev.count].weight))
		return -1;
	return 0;
}

/* Section 15: the time stream, over the task counts and stacks. */
static int decode_events(struct profile *p, struct section *sec)
{
	const char *why;
	size_t n = bytes_left(&sec->b);
	int r;

	if (!p->ntasks && !p->ntask_counts && n) {
		sec->refused = 1;
		prof_fail(PROF_EFORMAT, "the time stream comes without task "
			  "counts");
		return -1;
	}
	r = profile_events_decode(p, bytes_get(&sec->b, n), n, &why);
	if (r == -PROF_ENOMEM)
		return -1;
	if (r) {
		sec->refused = 1;
		prof_fail(PROF_EFORMAT, "%s", why);
		return -1;
	}
	return 0;
}

/*
 * Check what the header alone can tell: the magic, the version, that the
 * declared size is len (the whole file's size) and that the section table
 * fits.  head holds the first avail bytes of the file (all of it when
 * shorter than the header).  Returns 0 or the prof_fail() code.
 */
static int check_header(const uint8_t *head, size_t avail, uint64_t len)
{
	struct bytes h;
	uint32_t version, nsec;
	uint64_t size;

	if (memcmp(head, PROFILE_MAGIC, avail < PROFILE_MAGIC_LEN ? avail :
		   PROFILE_MAGIC_LEN))
		return prof_fail(PROF_EFORMAT, "not a profile file (bad magic)");
	if (avail < HEADER_SIZE)
		return prof_fail(PROF_EFORMAT, "profile file is truncated "
				 "(%zu bytes, shorter than its header)", avail);
	h = bytes_of(head + PROFILE_MAGIC_LEN, avail - PROFILE_MAGIC_LEN);
	version = (uint32_t)bytes_u(&h, 4);
	nsec = (uint32_t)bytes_u(&h, 4);
	size = bytes_u(&h, 8);
	if (version < 1 || version > PROF_FILE_VERSION)
		return prof_fail(PROF_EVERSION,
				 "profile file version %u is not supported "
				 "(this build reads versions 1 to %u)",
				 version, PROF_FILE_VERSION);
	if (size != len)
		return prof_fail(PROF_EFORMAT,
				 "profile file is truncated or has trailing data "
				 "(%" PRIu64 " bytes, header says %" PRIu64 ")",
				 len, size);
	if (nsec == 0 || nsec > MAX_SECTIONS ||
	    HEADER_SIZE + (uint64_t)nsec * SECTION_ENTRY_SIZE > len)
		return prof_fail(PROF_EFORMAT, "bad section table");
	return 0;
}

/* Each section's name in messages and its decoder, by id. */
static const struct {
	const char *name;
	int (*decode)(struct profile *p, struct section *sec);
} sections[] = {
	[SEC_META] = { "metadata", decode_meta },
	[SEC_STATS] = { "statistics", decode_stats },
	[SEC_OBJECTS] = { "objects", decode_objects },
	[SEC_COUNTS] = { "counts", decode_counts },
	[SEC_MODES] = { "modes", decode_modes },
	[SEC_KSYMS] = { "kernel symbols", decode_ksyms },
	[SEC_FRAMES] = { "frames", decode_frames },
	[SEC_STACKS] = { "stacks", decode_stacks },
	[SEC_STACK_COUNTS] = { "stack counts", decode_stack_counts },
	[SEC_TASKS] = { "tasks", decode_tasks },
	[SEC_TASK_COUNTS] = { "task counts", decode_task_counts },
	[SEC_JITSYMS] = { "JIT symbols", decode_jitsyms },
	[SEC_FILES] = { "archived files", decode_files },
	[SEC_IDENTITIES] = { "file identities", decode_identities },
	[SEC_EVENTS] = { "time stream", decode_events },
	[SEC_JITCODE] = { "JIT code", decode_jitcode },
};

#define REQUIRED_SECS (1 << SEC_META | 1 << SEC_STATS | 1 << SEC_OBJECTS | \
		       1 << SEC_COUNTS | 1 << SEC_MODES)
#define TASK_SECS (1 << SEC_TASKS | 1 << SEC_TASK_COUNTS)
#define STACK_SECS (1 << SEC_FRAMES | 1 << SEC_STACKS | 1 << SEC_STACK_COUNTS)

static const char task_secs_apart[] =
	"the tasks and task counts sections must come together";
static const char stack_secs_apart[] =
	"the frames, stacks and stack counts sections must come together";

/*
 * Decode section id, [off, off + slen) of the file d (len bytes, of
 * version version), into p; *seen: the ids decoded so far.  Returns 0 or
 * the prof_fail() code.
 */
static int decode_section(struct profile *p, const uint8_t *d, size_t len,
			  uint32_t version, uint32_t id, uint64_t off,
			  uint64_t slen, int *seen)
{
	struct section sec = { .version = version };

	if (off < HEADER_SIZE || off > len || slen > len - off)
		return prof_fail(PROF_EFORMAT,
				 "%s section lies outside the file",
				 sections[id].name);
	/* Stacks index frames, stack counts stacks. */
	if (id > SEC_FRAMES && id <= SEC_STACK_COUNTS &&
	    !(*seen & 1 << (id - 1)))
		return prof_fail(PROF_EFORMAT, "%s", stack_secs_apart);
	/* Task counts index tasks; the time stream indexes task counts:
	 * one of the two missing is said as such. */
	if (id == SEC_TASK_COUNTS && !(*seen & 1 << SEC_TASKS))
		return prof_fail(PROF_EFORMAT, "%s", task_secs_apart);
	if (id == SEC_EVENTS && (*seen & TASK_SECS) &&
	    (*seen & TASK_SECS) != TASK_SECS)
		return prof_fail(PROF_EFORMAT, "%s", task_secs_apart);
	sec.b = bytes_of(d + off, (size_t)slen);
	if (*seen & (1 << id) || sections[id].decode(p, &sec) || sec.b.bad ||
	    bytes_left(&sec.b)) {
		if (sec.refused)
			return -PROF_EFORMAT;
		return prof_fail(PROF_EFORMAT, "%s section is malformed",
				 sections[id].name);
	}
	*seen |= 1 << id;
	return 0;
}

/* The sections of the file d (len bytes, header checked) into p. */
static int decode_sections(struct profile *p, const uint8_t *d, size_t len,
			   uint32_t version, uint32_t nsec)
{
	uint32_t i, order, last;
	int seen = 0, err;

	/* Sections are decoded in dependency order, which is the order of
	 * their ids whatever the order of the table: stats and objects
	 * before the counts that index them, frames before stacks before
	 * stack counts.  Version 1 had no stacks: ids above its last are
	 * unknown there, hence skipped. */
	last = version >= 3 ? SEC_LAST : version == 2 ? SEC_IDENTITIES :
	       SEC_KSYMS;
	for (order = SEC_META; order <= last; order++) {
		struct bytes table = bytes_of(d + HEADER_SIZE,
					      len - HEADER_SIZE);

		/* The optional sections index the required ones: a
		 * missing one is said as such. */
		if (order > SEC_MODES &&
		    (seen & REQUIRED_SECS) != REQUIRED_SECS)
			break;
		for (i = 0; i < nsec; i++) {
			uint32_t id = (uint32_t)bytes_u(&table, 4);
			uint64_t off, slen;

			bytes_skip(&table, 4);
			off = bytes_u(&table, 8);
			slen = bytes_u(&table, 8);
			if (id != order)
				continue;
			err = decode_section(p, d, len, version, id, off, slen,
					     &seen);
			if (err)
				return err;
		}
	}
	if ((seen & REQUIRED_SECS) != REQUIRED_SECS)
		return prof_fail(PROF_EFORMAT, "a required section is missing");
	if ((seen & STACK_SECS) && (seen & STACK_SECS) != STACK_SECS)
		return prof_fail(PROF_EFORMAT, "%s", stack_secs_apart);
	if ((seen & TASK_SECS) && (seen & TASK_SECS) != TASK_SECS)
		return prof_fail(PROF_EFORMAT, "%s", task_secs_apart);
	/* The metadata says why there is no time stream; one that claims
	 * a stream the file lacks lost it. */
	if (version < 3)
		p->timeline = PROF_TIMELINE_OLD;
	else if (!(seen & 1 << SEC_EVENTS) &&
		 p->timeline == PROF_TIMELINE_KEPT)
		p->timeline = PROF_TIMELINE_DROPPED;
	return 0;
}

int profile_decode(const void *data, size_t len, struct profile **out)
{
	const uint8_t *d = data;
	struct bytes h;
	struct profile *p;
	uint32_t version, nsec, crc;
	int err;

	*out = NULL;
	err = check_header(d, len, len);
	if (err)
		return err;
	h = bytes_of(d + PROFILE_MAGIC_LEN, HEADER_SIZE - PROFILE_MAGIC_LEN);
	version = (uint32_t)bytes_u(&h, 4);
	nsec = (uint32_t)bytes_u(&h, 4);
	bytes_skip(&h, 8);	/* the size, checked */
	crc = (uint32_t)bytes_u(&h, 4);
	if (crc != (uint32_t)crc32_z(0, d + HEADER_SIZE, len - HEADER_SIZE))
		return prof_fail(PROF_EFORMAT,
				 "profile file is corrupt (checksum mismatch)");
	p = profile_new();
	if (!p)
		return prof_fail(PROF_ENOMEM, "out of memory");
	err = decode_sections(p, d, len, version, nsec);
	if (err) {
		profile_free(p);
		return err;
	}
	if (!p->tool)
		p->tool = strdup("");
	if (!p->argv)
		p->argv = calloc(1, sizeof(char *));
	*out = p;
	return 0;
}

/* Fail reading path with the detail of the last prof_fail(). */
static int read_fail(int err, const char *path)
{
	char why[512];

	snprintf(why, sizeof(why), "%s", prof_error(err));
	return prof_fail(err, "cannot read '%s': %s", path, why);
}

int profile_read(const char *path, struct profile **out)
{
	return profile_read_from(path, NULL, out);
}

/* Whether directory path holds imp's dir_file, claimed by imp. */
static int is_recording_dir(const struct profile_import *imp,
			    const char *path)
{
	uint8_t head[HEADER_SIZE];
	char *file;
	ssize_t n = -1;
	int fd;

	if (asprintf(&file, "%s/%s", path, imp->dir_file) < 0)
		return 0;
	fd = regfile_open(file, NULL);
	free(file);
	if (fd >= 0) {
		n = pread(fd, head, sizeof(head), 0);
		close(fd);
	}
	return n > 0 && imp->claims(head, (size_t)n);
}

/* Hand the file open at fd to imp's reader. */
static int import(const struct profile_import *imp, int fd, const char *path,
		  struct profile **out)
{
	int err = imp->read(imp->arg, fd, path, out);

	if (fd)
		close(fd);
	return err;
}

int profile_read_from(const char *path, const struct profile_import *imp,
		      struct profile **out)
{
	uint8_t head[HEADER_SIZE];
	struct stat st;
	size_t avail = 0;
	uint8_t *buf;
	int fd, err;

	*out = NULL;
	/* Standard input: another tool's stream (perf record -o -). */
	/* Standard input: a file redirected there is read as any file; a
	 * stream is another tool's (perf record -o - | ... -i -). */
	if (imp && !strcmp(path, "-")) {
		if (fstat(0, &st) || !S_ISREG(st.st_mode) ||
		    (fd = fcntl(0, F_DUPFD_CLOEXEC, 3)) < 0)
			return import(imp, 0, path, out);
	} else {
		/* Not a plain open(): a FIFO given as -i would block it
		 * forever. */
		fd = regfile_open(path, &st);
	}
	/* ... unless it is another tool's stream (-i <(perf record -o -)). */
	if (fd < 0 && errno == EINVAL && imp && S_ISFIFO(st.st_mode)) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return import(imp, fd, path, out);
	}
	if (fd < 0 && errno == EINVAL && imp && imp->dir_file &&
	    S_ISDIR(st.st_mode) && is_recording_dir(imp, path))
		return prof_fail(PROF_EINVAL, "'%s' is a directory of "
				 "recordings: %s", path, imp->dir_advice);
	if (fd < 0 && errno == EINVAL)
		return prof_fail(PROF_EIO, "cannot read '%s': not a regular file",
				 path);
	if (fd < 0)
		return prof_fail(errno == ENOENT ? PROF_ENOENT : PROF_EIO,
				 "cannot open '%s': %s", path, strerror(errno));
	/*
	 * The header first: a file that is not a profile, or whose declared
	 * size is not its size, is rejected having read 32 bytes, whatever
	 * its size (reading all of a 2 GB file first took 2 GB of memory).
	 */
	while (avail < sizeof(head)) {
		ssize_t r = pread(fd, head + avail, sizeof(head) - avail,
				  (off_t)avail);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = prof_fail(PROF_EIO, "cannot read '%s': %s", path,
					strerror(errno));
			close(fd);
			return err;
		}
		if (r == 0)
			break;
		avail += (size_t)r;
	}
	if (imp && imp->claims(head, avail))
		return import(imp, fd, path, out);
	err = check_header(head, avail, (uint64_t)st.st_size);
	if (!err && (uint64_t)st.st_size > SIZE_MAX / 2)
		err = prof_fail(PROF_EFORMAT, "the file is too large");
	if (err) {
		close(fd);
		return read_fail(err, path);
	}
	/*
	 * Then the whole file, read into memory (its size is known good
	 * now).  Not mapped: a file truncated by someone else while it is
	 * read would kill the process with SIGBUS; a short read is an error.
	 */
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		close(fd);
		return prof_fail(PROF_ENOMEM, "cannot read '%s': out of memory",
				 path);
	}
	for (avail = 0; avail < (size_t)st.st_size;) {
		ssize_t r = pread(fd, buf + avail, (size_t)st.st_size - avail,
				  (off_t)avail);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			err = prof_fail(PROF_EIO, "cannot read '%s': %s", path,
					r ? strerror(errno) :
					"the file shrank while it was read");
			close(fd);
			free(buf);
			return err;
		}
		avail += (size_t)r;
	}
	close(fd);
	err = profile_decode(buf, (size_t)st.st_size, out);
	free(buf);
	return err ? read_fail(err, path) : 0;
}
