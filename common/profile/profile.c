/* SPDX-License-Identifier: MIT */
/*
 * Profile model and its file format.  The layout is documented in
 * docs/profile-format.md; keep the two in step.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/outfile.h"
#include "profile.h"
#include "common/util/regfile.h"

static const char magic[8] = { 'U', 'M', 'O', 'N', 'P', 'R', 'O', 'F' };

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
	SEC_LAST = SEC_IDENTITIES
};

#define HEADER_SIZE 32
#define SECTION_ENTRY_SIZE 24
#define MAX_STRING (1u << 20)
#define MAX_SECTIONS 64

struct profile *profile_new(void)
{
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->exit_status = -1;
	p->pid = -1;
	p->cpu = -1;
	p->start_after_ns = -1;
	return p;
}

/* Free a NULL-terminated array of strings and the array. */
static void free_argv(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void profile_free(struct profile *p)
{
	size_t i;

	if (!p)
		return;
	free(p->tool);
	free(p->tool_version);
	free_argv(p->argv);
	free(p->hostname);
	free(p->sysname);
	free(p->release);
	free(p->machine);
	free(p->cpu_model);
	free(p->ra_routines);
	free(p->start_after);
	for (i = 0; i < p->nobjects; i++)
		free(p->objects[i].path);
	free(p->objects);
	for (i = 0; i < p->nstats; i++) {
		free(p->stats[i].name);
		free(p->stats[i].requested);
	}
	free(p->stats);
	free(p->counts);
	free(p->modes);
	free(p->frames);
	free(p->stack_frames);
	free(p->stacks);
	free(p->stack_counts);
	for (i = 0; i < p->ntasks; i++)
		free(p->tasks[i].comm);
	free(p->tasks);
	free(p->task_counts);
	for (i = 0; i < p->nksyms; i++) {
		free(p->ksyms[i].name);
		free(p->ksyms[i].module);
	}
	free(p->ksyms);
	for (i = 0; i < p->njitsyms; i++)
		free(p->jitsyms[i].name);
	free(p->jitsyms);
	for (i = 0; i < p->nfiles; i++) {
		free(p->files[i].path);
		free(p->files[i].zdata);
	}
	free(p->files);
	for (i = 0; i < p->nfiles_left_out; i++)
		free(p->files_left_out[i]);
	free(p->files_left_out);
	free(p);
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

int profile_add_object(struct profile *p, const struct prof_object *o)
{
	struct prof_object *n;

	if (ALLOC_GROW(p->objects, p->nobjects + 1, p->alloc_objects))
		return -PROF_ENOMEM;
	n = &p->objects[p->nobjects];
	*n = *o;
	if (n->build_id_len > sizeof(n->build_id))
		n->build_id_len = sizeof(n->build_id);
	n->path = dup_or_empty(o->path);
	if (!n->path)
		return -PROF_ENOMEM;
	return (int)p->nobjects++;
}

int profile_add_stat(struct profile *p, const struct prof_stat *s)
{
	struct prof_stat *n;

	if (ALLOC_GROW(p->stats, p->nstats + 1, p->alloc_stats))
		return -PROF_ENOMEM;
	n = &p->stats[p->nstats];
	*n = *s;
	n->name = dup_or_empty(s->name);
	n->requested = dup_or_empty(s->requested ? s->requested : s->name);
	if (!n->name || !n->requested) {
		free(n->name);
		free(n->requested);
		return -PROF_ENOMEM;
	}
	return (int)p->nstats++;
}

int profile_add_count(struct profile *p, const struct prof_count *c)
{
	if (ALLOC_GROW(p->counts, p->ncounts + 1, p->alloc_counts))
		return -PROF_ENOMEM;
	p->counts[p->ncounts] = *c;
	return (int)p->ncounts++;
}

int profile_add_frame(struct profile *p, const struct prof_frame *f)
{
	if (ALLOC_GROW(p->frames, p->nframes + 1, p->alloc_frames))
		return -PROF_ENOMEM;
	p->frames[p->nframes] = *f;
	p->frames[p->nframes].reserved = 0;
	return (int)p->nframes++;
}

int profile_add_stack(struct profile *p, const uint32_t *frames,
		      uint32_t nframes, enum prof_stack_end end)
{
	struct prof_stack *st;

	if (!nframes || nframes > UINT32_MAX - p->nstack_frames ||
	    ALLOC_GROW(p->stack_frames, p->nstack_frames + nframes,
		       p->alloc_stack_frames) ||
	    ALLOC_GROW(p->stacks, p->nstacks + 1, p->alloc_stacks))
		return -PROF_ENOMEM;
	memcpy(p->stack_frames + p->nstack_frames, frames,
	       nframes * sizeof(*frames));
	st = &p->stacks[p->nstacks];
	st->first = (uint32_t)p->nstack_frames;
	st->nframes = nframes;
	st->end = end;
	st->reserved = 0;
	p->nstack_frames += nframes;
	return (int)p->nstacks++;
}

int profile_add_stack_count(struct profile *p,
			    const struct prof_stack_count *c)
{
	if (ALLOC_GROW(p->stack_counts, p->nstack_counts + 1,
		       p->alloc_stack_counts))
		return -PROF_ENOMEM;
	p->stack_counts[p->nstack_counts] = *c;
	return (int)p->nstack_counts++;
}

static int cmp_stack_count(const void *a, const void *b)
{
	const struct prof_stack_count *x = a, *y = b;

	if (x->stat != y->stat)
		return x->stat < y->stat ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return 0;
}

void profile_sort_stack_counts(struct profile *p)
{
	if (p->nstack_counts > 1)
		qsort(p->stack_counts, p->nstack_counts,
		      sizeof(*p->stack_counts), cmp_stack_count);
}

/* ---- tasks ------------------------------------------------------------ */

int profile_add_task(struct profile *p, uint32_t pid, uint32_t tid,
		     const char *comm)
{
	struct prof_task *t;

	if (ALLOC_GROW(p->tasks, p->ntasks + 1, p->alloc_tasks))
		return -PROF_ENOMEM;
	t = &p->tasks[p->ntasks];
	t->pid = pid;
	t->tid = tid;
	t->comm = dup_or_empty(comm);
	if (!t->comm)
		return -PROF_ENOMEM;
	return (int)p->ntasks++;
}

int profile_add_task_count(struct profile *p,
			   const struct prof_task_count *c)
{
	if (ALLOC_GROW(p->task_counts, p->ntask_counts + 1,
		       p->alloc_task_counts))
		return -PROF_ENOMEM;
	p->task_counts[p->ntask_counts] = *c;
	return (int)p->ntask_counts++;
}

/* A task count as the file has it: the index of its count. */
struct task_entry {
	uint32_t count, task, cpu;
	uint64_t samples, weight;
};

static int cmp_task_entry(const void *a, const void *b)
{
	const struct task_entry *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static int cmp_count_at(const void *a, const void *b, void *ctx)
{
	const struct prof_count *counts = ctx;

	return profile_count_cmp(&counts[*(const uint32_t *)a],
				 &counts[*(const uint32_t *)b]);
}

/* The index of the count at (obj, stat, offset), through byidx (count
 * indices in profile_count_cmp() order), or -1. */
static long count_index(const struct profile *p, const uint32_t *byidx,
			const struct prof_task_count *tc)
{
	struct prof_count key = { .obj = tc->obj, .stat = tc->stat,
				  .offset = tc->offset };
	size_t lo = 0, hi = p->ncounts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = profile_count_cmp(&key, &p->counts[byidx[mid]]);

		if (!c)
			return byidx[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/*
 * The task counts as file entries, sorted by (count, task, cpu), in
 * *out (n = ntask_counts); 1 when they are whole (see
 * profile_tasks_consistent()), 0 when not, -PROF_ENOMEM.
 */
static int task_entries(const struct profile *p, struct task_entry **out)
{
	size_t n = p->ntask_counts, i, j;
	uint32_t *byidx = malloc((p->ncounts ? p->ncounts : 1) *
				 sizeof(*byidx));
	struct task_entry *e = malloc((n ? n : 1) * sizeof(*e));
	int ok = 1;

	*out = NULL;
	if (!byidx || !e) {
		free(byidx);
		free(e);
		return -PROF_ENOMEM;
	}
	for (i = 0; i < p->ncounts; i++)
		byidx[i] = (uint32_t)i;
	qsort_r(byidx, p->ncounts, sizeof(*byidx), cmp_count_at,
		p->counts);
	for (i = 0; i < n && ok; i++) {
		const struct prof_task_count *tc = &p->task_counts[i];
		long k = count_index(p, byidx, tc);

		ok = k >= 0 && tc->task < p->ntasks;
		e[i] = (struct task_entry){ .count = (uint32_t)k,
			.task = tc->task, .cpu = tc->cpu,
			.samples = tc->samples, .weight = tc->weight };
	}
	free(byidx);
	if (ok && n > 1)
		qsort(e, n, sizeof(*e), cmp_task_entry);
	/* One entry per (count, task, cpu); each count's add up. */
	for (i = 0; ok && i < n; i = j) {
		uint64_t s = 0, w = 0;

		for (j = i; j < n && e[j].count == e[i].count; j++) {
			if (j > i && !cmp_task_entry(&e[j - 1], &e[j]))
				ok = 0;
			s += e[j].samples;
			w += e[j].weight;
		}
		ok = ok && s == p->counts[e[i].count].samples &&
		     w == p->counts[e[i].count].weight;
	}
	if (!ok) {
		free(e);
		return 0;
	}
	*out = e;
	return 1;
}

int profile_tasks_consistent(const struct profile *p)
{
	struct task_entry *e;
	int r = task_entries(p, &e);

	free(e);
	return r;
}

const char *profile_stack_end_name(enum prof_stack_end end)
{
	static const char *const names[PROF_STACK_NEND] = {
		[PROF_STACK_COMPLETE] = "complete",
		[PROF_STACK_FP] = "frame-pointer chain",
		[PROF_STACK_TRUNC_DUMP] = "truncated: stack copy too small",
		[PROF_STACK_TRUNC_NO_CFI] = "truncated: no unwind information",
		[PROF_STACK_TRUNC_NO_MAP] = "truncated: address in no mapping",
		[PROF_STACK_TRUNC_DEPTH] = "truncated: frame limit",
		[PROF_STACK_TRUNC_BAD] = "truncated: bad unwind step",
		[PROF_STACK_KERNEL] = "kernel frames only",
	};

	return (unsigned)end < PROF_STACK_NEND ? names[end] : "unknown";
}

int profile_add_ksym(struct profile *p, const struct prof_ksym *k)
{
	struct prof_ksym *n;

	if (ALLOC_GROW(p->ksyms, p->nksyms + 1, p->alloc_ksyms))
		return -PROF_ENOMEM;
	n = &p->ksyms[p->nksyms];
	n->start = k->start;
	n->end = k->end;
	n->name = dup_or_empty(k->name);
	n->module = k->module && *k->module ? strdup(k->module) : NULL;
	if (!n->name || (k->module && *k->module && !n->module)) {
		free(n->name);
		free(n->module);
		return -PROF_ENOMEM;
	}
	return (int)p->nksyms++;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads and writes of archived files go by this much. */
#define FILE_CHUNK ((size_t)64 << 10)

/* The cap on sizes a file of size bytes after total bytes of files is
 * over (PROF_FILE_MAX, PROF_FILES_TOTAL_MAX), or NULL. */
static const char *size_cap(uint64_t size, uint64_t total)
{
	if (size > PROF_FILE_MAX)
		return "the 1 GiB cap per file";
	if (total > PROF_FILES_TOTAL_MAX ||
	    size > PROF_FILES_TOTAL_MAX - total)
		return "the 4 GiB cap on all the files of a profile";
	return NULL;
}

/* The cap a file of size bytes, zlen compressed, after total bytes of
 * files, is over, or NULL. */
static const char *file_cap(uint64_t size, uint64_t zlen, uint64_t total)
{
	const char *cap = size_cap(size, total);

	if (cap)
		return cap;
	/* zlen is at most the profile's size: no overflow */
	if (size > zlen * PROF_FILE_RATIO_MAX + PROF_FILE_RATIO_SLACK)
		return "the 200:1 cap on the compression ratio";
	return NULL;
}

int profile_file_left_out(struct profile *p, const char *line)
{
	char *copy = strdup(line);

	if (!copy || ALLOC_GROW(p->files_left_out, p->nfiles_left_out + 1,
				p->alloc_files_left_out)) {
		free(copy);
		return -PROF_ENOMEM;
	}
	p->files_left_out[p->nfiles_left_out++] = copy;
	return 0;
}

/* path left out of p, over cap: -PROF_EINVAL, the line kept in p. */
static int file_refused(struct profile *p, const char *path, uint64_t size,
			const char *cap)
{
	char *line;
	int err;

	if (asprintf(&line, "'%s' is not archived: %" PRIu64 " bytes, "
		     "over %s", path, size, cap) < 0)
		return -PROF_ENOMEM;
	err = profile_file_left_out(p, line);
	if (!err)
		err = prof_fail(PROF_EINVAL, "%s", line);
	free(line);
	return err;
}

static uint64_t files_total(const struct profile *p)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < p->nfiles; i++)
		total += p->files[i].size;
	return total;
}

/* Room for more compressed bytes in f->zdata (*alloc bytes). */
static int grow_zdata(struct prof_file *f, size_t *alloc)
{
	size_t n = *alloc ? *alloc * 2 : FILE_CHUNK;
	uint8_t *d = realloc(f->zdata, n);

	if (!d)
		return -PROF_ENOMEM;
	f->zdata = d;
	*alloc = n;
	return 0;
}

/* Deflate fd's bytes into f (zdata, zlen, size), in chunks; a file
 * over the caps on sizes (after total bytes) is refused as soon as that
 * much is read (it may have grown since its size was checked). */
static int deflate_fd(struct profile *p, int fd, const char *path,
		      uint64_t total, struct prof_file *f, uint8_t *in)
{
	z_stream z = { 0 };
	size_t alloc = 0;
	int flush = Z_NO_FLUSH, zr = Z_OK, err = 0;

	if (deflateInit(&z, 6) != Z_OK)
		return -PROF_ENOMEM;
	do {
		uInt room;

		if (!z.avail_in && flush == Z_NO_FLUSH) {
			ssize_t r = pread(fd, in, FILE_CHUNK, (off_t)f->size);

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				err = prof_fail(PROF_EIO, "cannot read '%s': %s",
						path, strerror(errno));
				break;
			}
			f->size += (uint64_t)r;
			if (size_cap(f->size, total)) {
				err = file_refused(p, path, f->size,
						   size_cap(f->size, total));
				break;
			}
			flush = r ? Z_NO_FLUSH : Z_FINISH;
			z.next_in = in;
			z.avail_in = (uInt)r;
		}
		if (f->zlen == alloc && (err = grow_zdata(f, &alloc)))
			break;
		room = (uInt)(alloc - f->zlen < UINT_MAX ? alloc - f->zlen :
			      UINT_MAX);
		z.next_out = f->zdata + f->zlen;
		z.avail_out = room;
		zr = deflate(&z, flush);
		f->zlen += room - z.avail_out;
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			err = -PROF_ENOMEM;
	} while (!err && zr != Z_STREAM_END);
	deflateEnd(&z);
	return err;
}

int profile_add_file_fd(struct profile *p, uint32_t kind, const char *path,
			const uint8_t *build_id, uint32_t build_id_len,
			int fd)
{
	uint64_t total = files_total(p);
	struct prof_file f = { 0 };
	const char *cap;
	struct stat st;
	uint8_t *in;
	int err;

	if (fstat(fd, &st))
		return prof_fail(PROF_EIO, "cannot read '%s': %s", path,
				 strerror(errno));
	if (!S_ISREG(st.st_mode))
		return prof_fail(PROF_EIO, "cannot read '%s': not a regular "
				 "file", path);
	/* Over a cap by its size: refused without reading it. */
	cap = size_cap((uint64_t)st.st_size, total);
	if (cap)
		return file_refused(p, path, (uint64_t)st.st_size, cap);
	if (build_id_len > sizeof(f.build_id) ||
	    ALLOC_GROW(p->files, p->nfiles + 1, p->alloc_files) ||
	    !(in = malloc(FILE_CHUNK)))
		return -PROF_ENOMEM;
	err = deflate_fd(p, fd, path, total, &f, in);
	free(in);
	cap = err ? NULL : file_cap(f.size, f.zlen, total);
	if (cap)
		err = file_refused(p, path, f.size, cap);
	if (!err && !(f.path = strdup(path)))
		err = -PROF_ENOMEM;
	if (err) {
		free(f.zdata);
		return err;
	}
	/* Give back what doubling took beyond the stream. */
	in = realloc(f.zdata, f.zlen ? f.zlen : 1);
	if (in)
		f.zdata = in;
	f.kind = kind;
	f.build_id_len = build_id_len;
	memcpy(f.build_id, build_id, build_id_len);
	p->files[p->nfiles] = f;
	return (int)p->nfiles++;
}

static int file_damaged(const struct prof_file *f)
{
	return prof_fail(PROF_EFORMAT, "archived file '%s' is damaged",
			 f->path);
}

/* Inflate z (f's stream) into fd until the stream ends, through out
 * (FILE_CHUNK bytes): never more than f->size bytes. */
static int inflate_to(z_stream *z, const struct prof_file *f, int fd,
		      uint8_t *out)
{
	uint64_t in_left = f->zlen, out_left = f->size;
	int zr = Z_OK;

	while (zr != Z_STREAM_END) {
		size_t n;

		if (!z->avail_in) {
			if (!in_left)
				return file_damaged(f);
			z->avail_in = in_left < UINT_MAX ? (uInt)in_left :
				      UINT_MAX;
			in_left -= z->avail_in;
		}
		z->next_out = out;
		z->avail_out = FILE_CHUNK;
		zr = inflate(z, Z_NO_FLUSH);
		if (zr == Z_MEM_ERROR)
			return -PROF_ENOMEM;
		if (zr != Z_OK && zr != Z_STREAM_END)
			return file_damaged(f);
		n = FILE_CHUNK - z->avail_out;
		if (n > out_left)
			return file_damaged(f);
		out_left -= n;
		if (write_all(fd, out, n))
			return prof_fail(PROF_EIO, "cannot unpack '%s': %s",
					 f->path, strerror(errno));
	}
	/* All the stream, no bytes after it, and the size declared. */
	return in_left || z->avail_in || out_left ? file_damaged(f) : 0;
}

int profile_file_write(const struct prof_file *f, int fd)
{
	z_stream z = { 0 };
	uint8_t *out = malloc(FILE_CHUNK);
	int err;

	if (!out || inflateInit(&z) != Z_OK) {
		free(out);
		return -PROF_ENOMEM;
	}
	z.next_in = f->zdata;
	err = inflate_to(&z, f, fd, out);
	inflateEnd(&z);
	free(out);
	return err;
}

static int cmp_jitsym(const void *a, const void *b)
{
	const struct prof_jitsym *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

void profile_sort_jitsyms(struct profile *p)
{
	if (p->njitsyms > 1)
		qsort(p->jitsyms, p->njitsyms, sizeof(*p->jitsyms),
		      cmp_jitsym);
}

int profile_add_jitsym(struct profile *p, const struct prof_jitsym *j)
{
	struct prof_jitsym *n;

	if (ALLOC_GROW(p->jitsyms, p->njitsyms + 1, p->alloc_jitsyms))
		return -PROF_ENOMEM;
	n = &p->jitsyms[p->njitsyms];
	*n = *j;
	n->name = strdup(j->name ? j->name : "");
	if (!n->name)
		return -PROF_ENOMEM;
	return (int)p->njitsyms++;
}

/* Replace p's command line with a copy of argv[0..argc). */
int profile_set_argv(struct profile *p, int argc, char *const *argv)
{
	char **v = calloc(argc + 1, sizeof(*v));
	int i;

	if (!v)
		return -PROF_ENOMEM;
	for (i = 0; i < argc; i++) {
		v[i] = strdup(argv[i]);
		if (!v[i]) {
			free_argv(v);
			return -PROF_ENOMEM;
		}
	}
	free_argv(p->argv);
	p->argv = v;
	p->argc = argc;
	return 0;
}

static char *read_cpu_model(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	char *model = NULL;

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon || strncmp(line, "model name", 10))
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		model = strdup(colon);
		break;
	}
	fclose(f);
	return model;
}

void profile_identify_host(struct profile *p)
{
	struct utsname u;

	if (uname(&u) == 0) {
		p->hostname = strdup(u.nodename);
		p->sysname = strdup(u.sysname);
		p->release = strdup(u.release);
		p->machine = strdup(u.machine);
	}
	p->cpu_model = read_cpu_model();
	p->ncpus = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
}

int profile_count_cmp(const void *a, const void *b)
{
	const struct prof_count *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->stat != y->stat)
		return x->stat < y->stat ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

void profile_sort_counts(struct profile *p)
{
	if (p->ncounts > 1)
		qsort(p->counts, p->ncounts, sizeof(*p->counts),
		      profile_count_cmp);
}

/* One object in both: the same build-id when both have one (a file
 * may have moved), else the same path; and the same kind. */
static int same_object(const struct prof_object *a,
		       const struct prof_object *b)
{
	if (a->kind != b->kind)
		return 0;
	if (a->build_id_len && b->build_id_len)
		return a->build_id_len == b->build_id_len &&
		       !memcmp(a->build_id, b->build_id, a->build_id_len);
	return !strcmp(a->path, b->path);
}

int profile_map_objects(struct profile *dst, const struct profile *src,
			uint32_t *remap)
{
	size_t i, j;

	for (i = 0; i < src->nobjects; i++) {
		for (j = 0; j < dst->nobjects; j++)
			if (same_object(&dst->objects[j], &src->objects[i]))
				break;
		if (j == dst->nobjects) {
			int idx = profile_add_object(dst, &src->objects[i]);

			if (idx < 0)
				return idx;
			j = (size_t)idx;
		} else if (memcmp(&dst->objects[j].id, &src->objects[i].id,
				  sizeof(struct prof_identity))) {
			/* Two files under one name: neither is "the" file. */
			memset(&dst->objects[j].id, 0,
			       sizeof(struct prof_identity));
		}
		remap[i] = (uint32_t)j;
	}
	return 0;
}

int profile_append(struct profile *dst, const struct profile *src)
{
	uint32_t *remap, first = (uint32_t)dst->nstats;
	size_t i;
	int err = 0;

	for (i = 0; i < src->nstats; i++)
		if (profile_add_stat(dst, &src->stats[i]) < 0)
			return -PROF_ENOMEM;
	remap = malloc((src->nobjects ? src->nobjects : 1) * sizeof(*remap));
	if (!remap)
		return -PROF_ENOMEM;
	err = profile_map_objects(dst, src, remap);
	for (i = 0; i < src->ncounts && !err; i++) {
		struct prof_count c = src->counts[i];

		c.obj = remap[c.obj];
		c.stat += first;
		if (profile_add_count(dst, &c) < 0) {
			err = -PROF_ENOMEM;
			goto out;
		}
	}
	if (dst->ncounts > 1)
		profile_sort_counts(dst);
out:
	free(remap);
	return err;
}

uint64_t profile_stat_samples(const struct profile *p, size_t stat)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->ncounts; i++)
		if (p->counts[i].stat == stat)
			n += p->counts[i].samples;
	return n;
}

/* ---- encoding ---------------------------------------------------------- */

struct buf {
	uint8_t *data;
	size_t len, alloc;
	int failed;
};

static void put(struct buf *b, const void *src, size_t n)
{
	if (b->failed || !n)
		return;
	if (ALLOC_GROW(b->data, b->len + n, b->alloc)) {
		b->failed = 1;
		return;
	}
	memcpy(b->data + b->len, src, n);
	b->len += n;
}

static void put_u32(struct buf *b, uint32_t v)
{
	uint8_t x[4];
	int i;

	for (i = 0; i < 4; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	put(b, x, 4);
}

static void put_u64(struct buf *b, uint64_t v)
{
	uint8_t x[8];
	int i;

	for (i = 0; i < 8; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	put(b, x, 8);
}

static void put_str(struct buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n > MAX_STRING)
		n = MAX_STRING;
	put_u32(b, (uint32_t)n);
	put(b, s, n);
}

static void set_u32(struct buf *b, size_t at, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		b->data[at + i] = (uint8_t)(v >> (8 * i));
}

static void set_u64(struct buf *b, size_t at, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		b->data[at + i] = (uint8_t)(v >> (8 * i));
}

static void put_kv(struct buf *b, const char *k, const char *v)
{
	put_str(b, k);
	put_str(b, v);
}

static void put_kv_num(struct buf *b, const char *k, int64_t v)
{
	char num[32];

	snprintf(num, sizeof(num), "%" PRId64, v);
	put_kv(b, k, num);
}

/* Names of enum prof_call_graph in the metadata; NONE is not written. */
static const char *const call_graph_names[] = {
	[PROF_CG_FP] = "fp", [PROF_CG_DWARF] = "dwarf", [PROF_CG_AUTO] = "auto",
};

#define NCALL_GRAPH (sizeof(call_graph_names) / sizeof(*call_graph_names))

static const char *call_graph_name(uint32_t cg)
{
	return cg < NCALL_GRAPH ? call_graph_names[cg] : NULL;
}

/* The enum prof_call_graph named s, or -1 (none is never named). */
static int call_graph_parse(const char *s)
{
	size_t i;

	for (i = 0; i < NCALL_GRAPH; i++)
		if (call_graph_names[i] && !strcmp(s, call_graph_names[i]))
			return (int)i;
	return -1;
}

static void encode_meta(struct buf *b, const struct profile *p)
{
	struct buf argv = { 0 };
	const char *cg = call_graph_name(p->call_graph);
	int i;

	for (i = 0; i < p->argc; i++)
		put(&argv, p->argv[i], strlen(p->argv[i]) + 1);
	put_u32(b, 12 + (p->tool_version ? 1 : 0) + (p->ra_routines ? 2 : 0) +
		       (p->start_after ? 3 : 0) + (cg ? 2 : 0));
	put_kv(b, "tool", p->tool);
	if (p->tool_version)
		put_kv(b, "tool_version", p->tool_version);
	put_str(b, "argv");
	put_u32(b, (uint32_t)argv.len);
	put(b, argv.data, argv.len);
	b->failed |= argv.failed;
	free(argv.data);
	put_kv(b, "hostname", p->hostname);
	put_kv(b, "sysname", p->sysname);
	put_kv(b, "release", p->release);
	put_kv(b, "machine", p->machine);
	put_kv(b, "cpu_model", p->cpu_model);
	put_kv_num(b, "start_time_ns", (int64_t)p->start_time_ns);
	put_kv_num(b, "duration_ns", (int64_t)p->duration_ns);
	put_kv_num(b, "exit_status", p->exit_status);
	put_kv_num(b, "pid", p->pid);
	put_kv_num(b, "cpu", p->cpu);
	if (p->ra_routines) {
		put_kv(b, "ra_routines", p->ra_routines);
		put_kv_num(b, "ra_moved", (int64_t)p->ra_moved);
	}
	if (p->start_after) {
		put_kv(b, "start_after", p->start_after);
		put_kv_num(b, "start_after_ns", p->start_after_ns);
		put_kv_num(b, "start_after_latency_ns",
			   (int64_t)p->start_after_latency_ns);
	}
	if (cg) {
		put_kv(b, "call_graph", cg);
		put_kv_num(b, "stack_dump", p->stack_dump);
	}
	/* ncpus travels in the MODES section header to keep META at 12. */
}

static void encode_stats(struct buf *b, const struct profile *p)
{
	size_t i;

	put_u32(b, (uint32_t)p->nstats);
	for (i = 0; i < p->nstats; i++) {
		const struct prof_stat *s = &p->stats[i];

		put_str(b, s->name);
		put_str(b, s->requested);
		put_u32(b, s->type);
		put_u32(b, s->modes);
		put_u32(b, s->flags);
		put_u64(b, s->config);
		put_u64(b, s->period);
		put_u64(b, s->freq);
		put_u64(b, s->samples);
		put_u64(b, s->lost);
		put_u64(b, s->value);
		put_u64(b, s->time_enabled);
		put_u64(b, s->time_running);
	}
}

static void encode_objects(struct buf *b, const struct profile *p)
{
	size_t i;

	put_u32(b, (uint32_t)p->nobjects);
	for (i = 0; i < p->nobjects; i++) {
		const struct prof_object *o = &p->objects[i];

		put_u32(b, o->kind);
		put_str(b, o->path);
		put_u32(b, o->build_id_len);
		put(b, o->build_id, o->build_id_len);
		put_u64(b, o->start);
		put_u64(b, o->end);
		put_u64(b, o->pgoff);
	}
}

static void encode_counts(struct buf *b, const struct profile *p)
{
	size_t i;

	put_u32(b, (uint32_t)p->ncounts);
	for (i = 0; i < p->ncounts; i++) {
		const struct prof_count *c = &p->counts[i];

		put_u32(b, c->obj);
		put_u32(b, c->stat);
		put_u64(b, c->offset);
		put_u64(b, c->samples);
		put_u64(b, c->weight);
	}
}

static void encode_modes(struct buf *b, const struct profile *p)
{
	size_t i;
	int m;

	put_u32(b, p->ncpus);
	put_u32(b, PROF_NMODES);
	put_u32(b, (uint32_t)p->nmodes);
	for (i = 0; i < p->nmodes; i++) {
		put_u32(b, p->modes[i].cpu);
		for (m = 0; m < PROF_NMODES; m++)
			put_u64(b, p->modes[i].n[m]);
	}
}

static void encode_ksyms(struct buf *b, const struct profile *p)
{
	size_t i;

	put_u32(b, (uint32_t)p->nksyms);
	for (i = 0; i < p->nksyms; i++) {
		put_u64(b, p->ksyms[i].start);
		put_u64(b, p->ksyms[i].end);
		put_str(b, p->ksyms[i].name);
		put_str(b, p->ksyms[i].module);
	}
}

static void encode_frames(struct buf *b, const struct profile *p)
{
	size_t i;

	put_u32(b, (uint32_t)p->nframes);
	for (i = 0; i < p->nframes; i++) {
		put_u32(b, p->frames[i].obj);
		put_u32(b, 0);
		put_u64(b, p->frames[i].offset);
	}
}

static void encode_stacks(struct buf *b, const struct profile *p)
{
	size_t i, j;

	put_u32(b, (uint32_t)p->nstacks);
	for (i = 0; i < p->nstacks; i++) {
		const struct prof_stack *st = &p->stacks[i];

		put_u32(b, st->end);
		put_u32(b, st->nframes);
		for (j = 0; j < st->nframes; j++)
			put_u32(b, p->stack_frames[st->first + j]);
	}
}

/* The file has them sorted whatever the order in memory. */
static void encode_stack_counts(struct buf *b, const struct profile *p)
{
	struct prof_stack_count *sc;
	size_t i, n = p->nstack_counts;

	sc = malloc((n ? n : 1) * sizeof(*sc));
	if (!sc) {
		b->failed = 1;
		return;
	}
	if (n)
		memcpy(sc, p->stack_counts, n * sizeof(*sc));
	if (n > 1)
		qsort(sc, n, sizeof(*sc), cmp_stack_count);
	put_u32(b, (uint32_t)n);
	for (i = 0; i < n; i++) {
		put_u32(b, sc[i].stack);
		put_u32(b, sc[i].stat);
		put_u64(b, sc[i].samples);
		put_u64(b, sc[i].weight);
	}
	free(sc);
}

static void encode_tasks(struct buf *b, const struct profile *p)
{
	size_t i;

	put_u32(b, (uint32_t)p->ntasks);
	for (i = 0; i < p->ntasks; i++) {
		put_u32(b, p->tasks[i].pid);
		put_u32(b, p->tasks[i].tid);
		put_str(b, p->tasks[i].comm);
	}
}

/* By count index: the file's counts are in memory order. */
static void encode_task_counts(struct buf *b, const struct profile *p)
{
	struct task_entry *e;
	size_t i;

	if (task_entries(p, &e) <= 0) {
		b->failed = 1;
		return;
	}
	put_u32(b, (uint32_t)p->ntask_counts);
	for (i = 0; i < p->ntask_counts; i++) {
		put_u32(b, e[i].count);
		put_u32(b, e[i].task);
		put_u32(b, e[i].cpu);
		put_u32(b, 0);
		put_u64(b, e[i].samples);
		put_u64(b, e[i].weight);
	}
	free(e);
}

static void encode_jitsyms(struct buf *b, const struct profile *p)
{
	size_t i;

	put_u32(b, (uint32_t)p->njitsyms);
	for (i = 0; i < p->njitsyms; i++) {
		put_u32(b, p->jitsyms[i].obj);
		put_u32(b, 0);
		put_u64(b, p->jitsyms[i].start);
		put_u64(b, p->jitsyms[i].end);
		put_str(b, p->jitsyms[i].name);
	}
}

static void encode_files(struct buf *b, const struct profile *p)
{
	size_t i;

	put_u32(b, (uint32_t)p->nfiles);
	for (i = 0; i < p->nfiles; i++) {
		const struct prof_file *f = &p->files[i];

		put_u32(b, f->kind);
		put_str(b, f->path);
		put_u32(b, f->build_id_len);
		put(b, f->build_id, f->build_id_len);
		put_u64(b, f->size);
		put_u64(b, f->zlen);
		put(b, f->zdata, f->zlen);
	}
}

static size_t count_identities(const struct profile *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nobjects; i++)
		n += p->objects[i].id.ino != 0;
	return n;
}

static void encode_identities(struct buf *b, const struct profile *p)
{
	size_t i;

	put_u32(b, (uint32_t)count_identities(p));
	for (i = 0; i < p->nobjects; i++) {
		const struct prof_identity *id = &p->objects[i].id;

		if (!id->ino)
			continue;
		put_u32(b, (uint32_t)i);
		put_u32(b, 0);
		put_u64(b, id->dev);
		put_u64(b, id->ino);
		put_u64(b, id->size);
		put_u64(b, id->mtime_ns);
	}
}

static int encode(const struct profile *p, struct buf *b)
{
	static void (*const enc[])(struct buf *, const struct profile *) = {
		[SEC_META] = encode_meta,
		[SEC_STATS] = encode_stats,
		[SEC_OBJECTS] = encode_objects,
		[SEC_COUNTS] = encode_counts,
		[SEC_MODES] = encode_modes,
		[SEC_KSYMS] = encode_ksyms,
		[SEC_FRAMES] = encode_frames,
		[SEC_STACKS] = encode_stacks,
		[SEC_STACK_COUNTS] = encode_stack_counts,
		[SEC_TASKS] = encode_tasks,
		[SEC_TASK_COUNTS] = encode_task_counts,
		[SEC_JITSYMS] = encode_jitsyms,
		[SEC_FILES] = encode_files,
		[SEC_IDENTITIES] = encode_identities,
	};
	uint32_t ids[SEC_LAST], nsec = 0, id, i;
	size_t table, start;
	uint8_t zero[SECTION_ENTRY_SIZE] = { 0 };
	int has_tasks = p->ntasks && profile_tasks_consistent(p) > 0;

	/* Optional sections only when there is something to put in them. */
	for (id = SEC_META; id <= SEC_LAST; id++) {
		if (id == SEC_KSYMS && !p->nksyms)
			continue;
		if (id >= SEC_FRAMES && id <= SEC_STACK_COUNTS &&
		    !p->nframes && !p->nstacks && !p->nstack_counts)
			continue;
		if ((id == SEC_TASKS || id == SEC_TASK_COUNTS) && !has_tasks)
			continue;
		if (id == SEC_JITSYMS && !p->njitsyms)
			continue;
		if (id == SEC_FILES && !p->nfiles)
			continue;
		if (id == SEC_IDENTITIES && !count_identities(p))
			continue;
		ids[nsec++] = id;
	}

	put(b, magic, sizeof(magic));
	put_u32(b, PROF_FILE_VERSION);
	put_u32(b, nsec);
	put_u64(b, 0);		/* file size, set below */
	put_u32(b, 0);		/* crc32, set below */
	put_u32(b, 0);
	table = b->len;
	for (i = 0; i < nsec; i++)
		put(b, zero, sizeof(zero));
	for (i = 0; i < nsec; i++) {
		size_t e = table + i * SECTION_ENTRY_SIZE;

		start = b->len;
		enc[ids[i]](b, p);
		if (b->failed)
			return -PROF_ENOMEM;
		set_u32(b, e, ids[i]);
		set_u32(b, e + 4, 0);
		set_u64(b, e + 8, start);
		set_u64(b, e + 16, b->len - start);
	}
	if (b->failed)
		return -PROF_ENOMEM;
	set_u64(b, 16, b->len);
	set_u32(b, 24, (uint32_t)crc32_z(0, b->data + HEADER_SIZE,
					 b->len - HEADER_SIZE));
	return 0;
}

/* Files over the caps (--merge adds files up) would make a profile no
 * reader accepts: refused before anything is written. */
static int files_writable(const struct profile *p, const char *path)
{
	uint64_t total = 0;
	const char *cap;
	size_t i;

	for (i = 0; i < p->nfiles; i++) {
		const struct prof_file *f = &p->files[i];

		cap = file_cap(f->size, f->zlen, total);
		if (cap)
			return prof_fail(PROF_EINVAL, "cannot write '%s': "
					 "archived file '%s' is over %s", path,
					 f->path, cap);
		total += f->size;
	}
	return 0;
}

int profile_write(const struct profile *p, const char *path)
{
	struct buf b = { 0 };
	struct outfile o;
	int err;

	err = files_writable(p, path);
	if (err)
		return err;
	err = encode(p, &b);
	if (err) {
		free(b.data);
		return prof_fail(PROF_ENOMEM, "cannot write '%s': %s", path,
				 prof_strerror(err));
	}
	/* Embedded files are copies of objects the user running the report
	 * may not be able to read: only the owner reads the profile. */
	err = outfile_open_mode(&o, path, p->nfiles ? 0600 : 0666);
	if (err) {
		free(b.data);
		return err;
	}
	if (write_all(o.fd, b.data, b.len)) {
		err = prof_fail(PROF_EIO, "cannot write '%s': %s", path,
				strerror(errno));
		outfile_abort(&o);
	} else {
		err = outfile_commit(&o);
	}
	free(b.data);
	return err;
}

/* ---- decoding ---------------------------------------------------------- */

struct cursor {
	const uint8_t *p;
	size_t len, pos;
	int bad;
	int refused;		/* bad, and a decoder said why (prof_fail) */
	uint32_t version;	/* of the file */
};

static int need(struct cursor *c, size_t n)
{
	if (c->bad || n > c->len - c->pos) {
		c->bad = 1;
		return -1;
	}
	return 0;
}

static uint32_t get_u32(struct cursor *c)
{
	uint32_t v = 0;
	int i;

	if (need(c, 4))
		return 0;
	for (i = 0; i < 4; i++)
		v |= (uint32_t)c->p[c->pos + i] << (8 * i);
	c->pos += 4;
	return v;
}

static uint64_t get_u64(struct cursor *c)
{
	uint64_t v = 0;
	int i;

	if (need(c, 8))
		return 0;
	for (i = 0; i < 8; i++)
		v |= (uint64_t)c->p[c->pos + i] << (8 * i);
	c->pos += 8;
	return v;
}

/* Returns a malloc'd NUL-terminated copy, or NULL (cursor marked bad). */
static char *get_str(struct cursor *c)
{
	uint32_t n = get_u32(c);
	char *s;

	if (n > MAX_STRING || need(c, n)) {
		c->bad = 1;
		return NULL;
	}
	if (memchr(c->p + c->pos, '\0', n)) {
		c->bad = 1;
		return NULL;
	}
	s = malloc(n + 1);
	if (!s) {
		c->bad = 1;
		return NULL;
	}
	memcpy(s, c->p + c->pos, n);
	s[n] = '\0';
	c->pos += n;
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

static int decode_argv(struct profile *p, struct cursor *c)
{
	uint32_t n = get_u32(c);
	const char *s;
	size_t i, argc = 0;

	if (n > MAX_STRING || need(c, n))
		return -1;
	s = (const char *)c->p + c->pos;
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
	c->pos += n;
	return 0;
}

static int decode_meta(struct profile *p, struct cursor *c)
{
	uint32_t n = get_u32(c), i;

	if (n > 4096)
		return -1;
	for (i = 0; i < n && !c->bad; i++) {
		char *k = get_str(c), *v = NULL;
		char **dst = NULL;
		int64_t num;

		if (!k)
			return -1;
		if (!strcmp(k, "argv")) {
			free(k);
			if (p->argv || decode_argv(p, c))
				return -1;
			continue;
		}
		v = get_str(c);
		if (!v) {
			free(k);
			return -1;
		}
		if (!strcmp(k, "tool"))
			dst = &p->tool;
		else if (!strcmp(k, "tool_version"))
			dst = &p->tool_version;
		else if (!strcmp(k, "hostname"))
			dst = &p->hostname;
		else if (!strcmp(k, "sysname"))
			dst = &p->sysname;
		else if (!strcmp(k, "release"))
			dst = &p->release;
		else if (!strcmp(k, "machine"))
			dst = &p->machine;
		else if (!strcmp(k, "cpu_model"))
			dst = &p->cpu_model;
		else if (!strcmp(k, "ra_routines"))
			dst = &p->ra_routines;
		else if (!strcmp(k, "start_after"))
			dst = &p->start_after;
		if (dst) {
			free(*dst);
			*dst = v;
			v = NULL;
		} else if (!strcmp(k, "ra_moved")) {
			if (parse_num(v, &num) || num < 0) {
				free(k);
				free(v);
				return -1;
			}
			p->ra_moved = (uint64_t)num;
		} else if (!strcmp(k, "start_after_ns") ||
			   !strcmp(k, "start_after_latency_ns")) {
			if (parse_num(v, &num) || num < -1) {
				free(k);
				free(v);
				return -1;
			}
			if (!strcmp(k, "start_after_ns"))
				p->start_after_ns = num;
			else
				p->start_after_latency_ns =
					num < 0 ? 0 : (uint64_t)num;
		} else if (c->version >= 2 && !strcmp(k, "call_graph")) {
			int cg = call_graph_parse(v);

			if (cg < 0) {
				free(k);
				free(v);
				return -1;
			}
			p->call_graph = (uint32_t)cg;
		} else if (c->version >= 2 && !strcmp(k, "stack_dump")) {
			if (parse_num(v, &num) || num < 0 || num > UINT32_MAX) {
				free(k);
				free(v);
				return -1;
			}
			p->stack_dump = (uint32_t)num;
		} else if (!strcmp(k, "start_time_ns") ||
			   !strcmp(k, "duration_ns") ||
			   !strcmp(k, "exit_status") || !strcmp(k, "pid") ||
			   !strcmp(k, "cpu")) {
			if (parse_num(v, &num)) {
				free(k);
				free(v);
				return -1;
			}
			if (k[0] == 's')
				p->start_time_ns = (uint64_t)num;
			else if (k[0] == 'd')
				p->duration_ns = (uint64_t)num;
			else if (k[0] == 'e')
				p->exit_status = (int32_t)num;
			else if (k[0] == 'p')
				p->pid = (int32_t)num;
			else
				p->cpu = (int32_t)num;
		}
		/* Unknown keys are ignored: newer writers may add some. */
		free(k);
		free(v);
	}
	return c->bad ? -1 : 0;
}

static int decode_stats(struct profile *p, struct cursor *c)
{
	uint32_t n = get_u32(c), i;

	/* Each entry is at least 84 bytes: bound n before allocating. */
	if (n > (c->len - c->pos) / 84)
		return -1;
	for (i = 0; i < n; i++) {
		struct prof_stat s = { 0 };
		int r;

		s.name = get_str(c);
		s.requested = get_str(c);
		s.type = get_u32(c);
		s.modes = get_u32(c);
		s.flags = get_u32(c);
		s.config = get_u64(c);
		s.period = get_u64(c);
		s.freq = get_u64(c);
		s.samples = get_u64(c);
		s.lost = get_u64(c);
		s.value = get_u64(c);
		s.time_enabled = get_u64(c);
		s.time_running = get_u64(c);
		r = c->bad ? -1 : profile_add_stat(p, &s);
		free(s.name);
		free(s.requested);
		if (r < 0)
			return -1;
	}
	return 0;
}

static int decode_objects(struct profile *p, struct cursor *c)
{
	uint32_t n = get_u32(c), i;

	if (n > (c->len - c->pos) / 36)
		return -1;
	for (i = 0; i < n; i++) {
		struct prof_object o = { 0 };
		int r;

		o.kind = get_u32(c);
		o.path = get_str(c);
		o.build_id_len = get_u32(c);
		if (o.kind > PROF_OBJ_JIT ||
		    o.build_id_len > sizeof(o.build_id) ||
		    need(c, o.build_id_len)) {
			free(o.path);
			return -1;
		}
		memcpy(o.build_id, c->p + c->pos, o.build_id_len);
		c->pos += o.build_id_len;
		o.start = get_u64(c);
		o.end = get_u64(c);
		o.pgoff = get_u64(c);
		r = c->bad ? -1 : profile_add_object(p, &o);
		free(o.path);
		if (r < 0)
			return -1;
	}
	return 0;
}

static int decode_counts(struct profile *p, struct cursor *c)
{
	uint32_t n = get_u32(c), i;

	if (n > (c->len - c->pos) / 32)
		return -1;
	p->counts = calloc(n ? n : 1, sizeof(*p->counts));
	if (!p->counts)
		return -1;
	p->alloc_counts = n;
	for (i = 0; i < n; i++) {
		struct prof_count *k = &p->counts[i];

		k->obj = get_u32(c);
		k->stat = get_u32(c);
		k->offset = get_u64(c);
		k->samples = get_u64(c);
		k->weight = get_u64(c);
		if (c->bad || k->obj >= p->nobjects || k->stat >= p->nstats)
			return -1;
		p->ncounts++;
	}
	return 0;
}

static int decode_modes(struct profile *p, struct cursor *c)
{
	uint32_t nmodes, n, i, m;

	p->ncpus = get_u32(c);
	nmodes = get_u32(c);
	n = get_u32(c);
	if (c->bad || nmodes < PROF_NMODES || nmodes > 64 ||
	    n > (c->len - c->pos) / (4 + 8 * (size_t)nmodes))
		return -1;
	p->modes = calloc(n ? n : 1, sizeof(*p->modes));
	if (!p->modes)
		return -1;
	p->alloc_modes = n;
	for (i = 0; i < n; i++) {
		p->modes[i].cpu = get_u32(c);
		for (m = 0; m < nmodes; m++) {
			uint64_t v = get_u64(c);

			if (m < PROF_NMODES)
				p->modes[i].n[m] = v;
		}
		p->nmodes++;
	}
	return c->bad ? -1 : 0;
}

static int decode_ksyms(struct profile *p, struct cursor *c)
{
	uint32_t n = get_u32(c), i;

	if (n > (c->len - c->pos) / 24)
		return -1;
	for (i = 0; i < n; i++) {
		struct prof_ksym k;
		int r;

		k.start = get_u64(c);
		k.end = get_u64(c);
		k.name = get_str(c);
		k.module = get_str(c);
		r = c->bad || k.end < k.start ? -1 : profile_add_ksym(p, &k);
		free(k.name);
		free(k.module);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* Identities of file objects, in increasing object order, each once. */
static int decode_identities(struct profile *p, struct cursor *c)
{
	uint32_t n = get_u32(c), i, next = 0;

	if (n > (c->len - c->pos) / 40)
		return -1;
	for (i = 0; i < n; i++) {
		struct prof_identity id;
		uint32_t obj = get_u32(c);

		if (get_u32(c))
			return -1;
		id.dev = get_u64(c);
		id.ino = get_u64(c);
		id.size = get_u64(c);
		id.mtime_ns = get_u64(c);
		if (c->bad || obj < next || obj >= p->nobjects || !id.ino ||
		    p->objects[obj].kind != PROF_OBJ_FILE)
			return -1;
		p->objects[obj].id = id;
		next = obj + 1;
	}
	return 0;
}

/* Sorted by (object, start), apart, each in a JIT object. */
static int decode_jitsyms(struct profile *p, struct cursor *c)
{
	uint32_t n = get_u32(c), i;

	if (n > (c->len - c->pos) / 28)
		return -1;
	for (i = 0; i < n; i++) {
		struct prof_jitsym j, *prev = p->njitsyms ?
			&p->jitsyms[p->njitsyms - 1] : NULL;
		int r;

		j.obj = get_u32(c);
		if (get_u32(c))
			return -1;
		j.start = get_u64(c);
		j.end = get_u64(c);
		if (c->bad || j.obj >= p->nobjects ||
		    p->objects[j.obj].kind != PROF_OBJ_JIT ||
		    j.end <= j.start ||
		    (prev && (prev->obj > j.obj ||
			      (prev->obj == j.obj && prev->end > j.start))))
			return -1;
		j.name = get_str(c);
		r = c->bad ? -1 : profile_add_jitsym(p, &j);
		free(j.name);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* f over the caps on archived files (after total bytes of files):
 * refused with the file and the cap named, before any reader unpacks. */
static int file_over_caps(struct cursor *c, const struct prof_file *f,
			  uint64_t total)
{
	const char *cap = file_cap(f->size, f->zlen, total);

	if (!cap)
		return 0;
	c->refused = 1;
	prof_fail(PROF_EFORMAT, "archived file '%s' declares %" PRIu64
		  " bytes (%" PRIu64 " compressed), over %s", f->path,
		  f->size, f->zlen, cap);
	return -1;
}

/* An archive's files: kept compressed (profile_file_write() unpacks). */
static int decode_files(struct profile *p, struct cursor *c)
{
	uint32_t n = get_u32(c), i;
	uint64_t total = 0;

	if (n > (c->len - c->pos) / 28)
		return -1;
	for (i = 0; i < n; i++) {
		struct prof_file f = { 0 };

		f.kind = get_u32(c);
		f.path = get_str(c);
		f.build_id_len = get_u32(c);
		if (c->bad || f.kind > PROF_FILE_DEBUG || !f.path[0] ||
		    f.build_id_len > sizeof(f.build_id) ||
		    need(c, f.build_id_len)) {
			free(f.path);
			return -1;
		}
		memcpy(f.build_id, c->p + c->pos, f.build_id_len);
		c->pos += f.build_id_len;
		f.size = get_u64(c);
		f.zlen = get_u64(c);
		if (c->bad || need(c, f.zlen) ||
		    file_over_caps(c, &f, total) ||
		    ALLOC_GROW(p->files, p->nfiles + 1, p->alloc_files) ||
		    !(f.zdata = malloc(f.zlen ? f.zlen : 1))) {
			free(f.path);
			return -1;
		}
		memcpy(f.zdata, c->p + c->pos, f.zlen);
		c->pos += f.zlen;
		total += f.size;
		p->files[p->nfiles++] = f;
	}
	return 0;
}

static int decode_frames(struct profile *p, struct cursor *c)
{
	uint32_t n = get_u32(c), i;

	if (n > (c->len - c->pos) / 16 || n > INT_MAX)
		return -1;
	p->frames = calloc(n ? n : 1, sizeof(*p->frames));
	if (!p->frames)
		return -1;
	p->alloc_frames = n;
	for (i = 0; i < n; i++) {
		struct prof_frame *f = &p->frames[i];

		f->obj = get_u32(c);
		get_u32(c);	/* reserved */
		f->offset = get_u64(c);
		if (c->bad || f->obj >= p->nobjects)
			return -1;
		p->nframes++;
	}
	return 0;
}

/* first and nframes in memory are the reader's, never the file's. */
static int decode_stacks(struct profile *p, struct cursor *c)
{
	uint32_t n = get_u32(c), i, j, *frames = NULL;
	size_t alloc = 0;
	int err = -1;

	/* Each stack is at least 12 bytes: end, nframes, one frame. */
	if (n > (c->len - c->pos) / 12 || n > INT_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		uint32_t end = get_u32(c), nframes = get_u32(c);

		if (c->bad || end >= PROF_STACK_NEND || !nframes ||
		    nframes > (c->len - c->pos) / 4)
			goto out;
		if (ALLOC_GROW(frames, nframes, alloc))
			goto out;
		for (j = 0; j < nframes; j++) {
			frames[j] = get_u32(c);
			if (frames[j] >= p->nframes)
				goto out;
		}
		if (c->bad || profile_add_stack(p, frames, nframes,
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
static int decode_stack_counts(struct profile *p, struct cursor *c)
{
	uint32_t n = get_u32(c), i;

	if (n > (c->len - c->pos) / 24)
		return -1;
	p->stack_counts = calloc(n ? n : 1, sizeof(*p->stack_counts));
	if (!p->stack_counts)
		return -1;
	p->alloc_stack_counts = n;
	for (i = 0; i < n; i++) {
		struct prof_stack_count *k = &p->stack_counts[i];

		k->stack = get_u32(c);
		k->stat = get_u32(c);
		k->samples = get_u64(c);
		k->weight = get_u64(c);
		if (c->bad || k->stack >= p->nstacks || k->stat >= p->nstats ||
		    (i && cmp_stack_count(k - 1, k) >= 0))
			return -1;
		p->nstack_counts++;
	}
	return 0;
}

#define MAX_COMM 256

static int decode_tasks(struct profile *p, struct cursor *c)
{
	uint32_t n = get_u32(c), i;

	if (n > (c->len - c->pos) / 12 || n > INT_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		uint32_t pid = get_u32(c), tid = get_u32(c);
		char *comm = get_str(c);
		int r = c->bad || strlen(comm) > MAX_COMM ? -1 :
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
static int decode_task_counts(struct profile *p, struct cursor *c)
{
	uint32_t n = get_u32(c), i;
	struct task_entry prev = { 0 };
	uint64_t s = 0, w = 0;

	if (n > (c->len - c->pos) / 32)
		return -1;
	p->task_counts = calloc(n ? n : 1, sizeof(*p->task_counts));
	if (!p->task_counts)
		return -1;
	p->alloc_task_counts = n;
	for (i = 0; i < n; i++) {
		struct task_entry e;
		struct prof_task_count *k = &p->task_counts[i];
		const struct prof_count *pc;

		e.count = get_u32(c);
		e.task = get_u32(c);
		e.cpu = get_u32(c);
		get_u32(c);	/* reserved */
		e.samples = get_u64(c);
		e.weight = get_u64(c);
		if (c->bad || e.count >= p->ncounts || e.task >= p->ntasks ||
		    (i && cmp_task_entry(&prev, &e) >= 0))
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

/*
 * Check what the header alone can tell: the magic, the version, that the
 * declared size is len (the whole file's size) and that the section table
 * fits.  head holds the first avail bytes of the file (all of it when
 * shorter than the header).  Returns 0 or the prof_fail() code.
 */
static int check_header(const uint8_t *head, size_t avail, uint64_t len)
{
	struct cursor h = { .p = head, .len = avail, .pos = 8 };
	uint32_t version, nsec;
	uint64_t size;

	if (memcmp(head, magic, avail < sizeof(magic) ? avail : sizeof(magic)))
		return prof_fail(PROF_EFORMAT, "not a profile file (bad magic)");
	if (avail < HEADER_SIZE)
		return prof_fail(PROF_EFORMAT, "profile file is truncated "
				 "(%zu bytes, shorter than its header)", avail);
	version = get_u32(&h);
	nsec = get_u32(&h);
	size = get_u64(&h);
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

int profile_decode(const void *data, size_t len, struct profile **out)
{
	static const char *const names[] = {
		[SEC_META] = "metadata", [SEC_STATS] = "statistics",
		[SEC_OBJECTS] = "objects", [SEC_COUNTS] = "counts",
		[SEC_MODES] = "modes", [SEC_KSYMS] = "kernel symbols",
		[SEC_FRAMES] = "frames", [SEC_STACKS] = "stacks",
		[SEC_STACK_COUNTS] = "stack counts",
		[SEC_TASKS] = "tasks", [SEC_TASK_COUNTS] = "task counts",
		[SEC_JITSYMS] = "JIT symbols", [SEC_FILES] = "archived files",
		[SEC_IDENTITIES] = "file identities",
	};
	static int (*const dec[])(struct profile *, struct cursor *) = {
		[SEC_META] = decode_meta,
		[SEC_STATS] = decode_stats,
		[SEC_OBJECTS] = decode_objects,
		[SEC_COUNTS] = decode_counts,
		[SEC_MODES] = decode_modes,
		[SEC_KSYMS] = decode_ksyms,
		[SEC_FRAMES] = decode_frames,
		[SEC_STACKS] = decode_stacks,
		[SEC_STACK_COUNTS] = decode_stack_counts,
		[SEC_TASKS] = decode_tasks,
		[SEC_TASK_COUNTS] = decode_task_counts,
		[SEC_JITSYMS] = decode_jitsyms,
		[SEC_FILES] = decode_files,
		[SEC_IDENTITIES] = decode_identities,
	};
	static const char task_secs_apart[] =
		"the tasks and task counts sections must come together";
	const int task_secs = 1 << SEC_TASKS | 1 << SEC_TASK_COUNTS;
	static const char stack_secs_apart[] =
		"the frames, stacks and stack counts sections must come "
		"together";
	const int stack_secs = 1 << SEC_FRAMES | 1 << SEC_STACKS |
			       1 << SEC_STACK_COUNTS;
	const uint8_t *d = data;
	struct cursor h = { .p = d, .len = len };
	struct profile *p;
	uint32_t version, nsec, crc, i, order, last;
	int seen = 0, err;

	*out = NULL;
	err = check_header(d, len, len);
	if (err)
		return err;
	h.pos = 8;
	version = get_u32(&h);
	nsec = get_u32(&h);
	h.pos = 24;
	crc = get_u32(&h);
	if (crc != (uint32_t)crc32_z(0, d + HEADER_SIZE, len - HEADER_SIZE))
		return prof_fail(PROF_EFORMAT,
				 "profile file is corrupt (checksum mismatch)");
	p = profile_new();
	if (!p)
		return prof_fail(PROF_ENOMEM, "out of memory");
	/* Sections are decoded in dependency order, which is the order of
	 * their ids whatever the order of the table: stats and objects
	 * before the counts that index them, frames before stacks before
	 * stack counts.  Version 1 had no stacks: ids above its last are
	 * unknown there, hence skipped. */
	last = version >= 2 ? SEC_LAST : SEC_KSYMS;
	for (order = SEC_META; order <= last; order++) {
		/* The optional sections index the required ones: a
		 * missing one is said as such. */
		if (order > SEC_MODES && (seen & 0x3e) != 0x3e)
			break;
		h.pos = HEADER_SIZE;
		for (i = 0; i < nsec; i++) {
			uint32_t id = get_u32(&h);
			uint64_t off, slen;
			struct cursor c;

			get_u32(&h);
			off = get_u64(&h);
			slen = get_u64(&h);
			if (id != order)
				continue;
			if (off < HEADER_SIZE || off > len || slen > len - off) {
				profile_free(p);
				return prof_fail(PROF_EFORMAT,
						 "%s section lies outside the file",
						 names[id]);
			}
			/* Stacks index frames, stack counts stacks. */
			if (id > SEC_FRAMES && id <= SEC_STACK_COUNTS &&
			    !(seen & 1 << (id - 1))) {
				profile_free(p);
				return prof_fail(PROF_EFORMAT, "%s",
						 stack_secs_apart);
			}
			/* Task counts index tasks. */
			if (id == SEC_TASK_COUNTS && !(seen & 1 << SEC_TASKS)) {
				profile_free(p);
				return prof_fail(PROF_EFORMAT, "%s",
						 task_secs_apart);
			}
			c = (struct cursor){ .p = d + off, .len = slen,
					     .version = version };
			if (seen & (1 << id) || dec[id](p, &c) || c.bad ||
			    c.pos != c.len) {
				profile_free(p);
				if (c.refused)
					return -PROF_EFORMAT;
				return prof_fail(PROF_EFORMAT,
						 "%s section is malformed",
						 names[id]);
			}
			seen |= 1 << id;
		}
	}
	if ((seen & 0x3e) != 0x3e) {
		profile_free(p);
		return prof_fail(PROF_EFORMAT, "a required section is missing");
	}
	if ((seen & stack_secs) && (seen & stack_secs) != stack_secs) {
		profile_free(p);
		return prof_fail(PROF_EFORMAT, "%s", stack_secs_apart);
	}
	if ((seen & task_secs) && (seen & task_secs) != task_secs) {
		profile_free(p);
		return prof_fail(PROF_EFORMAT, "%s", task_secs_apart);
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
	uint8_t head[HEADER_SIZE];
	struct stat st;
	size_t avail = 0;
	uint8_t *buf;
	int fd, err;

	*out = NULL;
	/* Not a plain open(): a FIFO given as -i would block it forever. */
	fd = regfile_open(path, &st);
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
