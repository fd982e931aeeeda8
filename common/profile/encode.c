/* SPDX-License-Identifier: MIT */
/*
 * Writing a profile file (layout: docs/profile-format.md): the whole
 * image built in memory, then written atomically (outfile.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/outfile.h"
#include "events.h"
#include "profile_int.h"

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

/* A number as the metadata has it: decimal text. */
static void put_num(struct buf *b, int64_t v)
{
	char num[32];

	snprintf(num, sizeof(num), "%" PRId64, v);
	put_str(b, num);
}

/* The value of a numeric key at f, as the writer prints it. */
static int64_t meta_num(const char *f, enum profile_meta_type type)
{
	switch (type) {
	case META_U64:
		return (int64_t)*(const uint64_t *)f;
	case META_I64:
		return *(const int64_t *)f;
	case META_I32:
		return *(const int32_t *)f;
	default:
		return *(const uint32_t *)f;
	}
}

static void encode_argv(struct buf *b, const struct profile *p)
{
	struct buf argv = { 0 };
	int i;

	for (i = 0; i < p->argc; i++)
		put(&argv, p->argv[i], strlen(p->argv[i]) + 1);
	put_u32(b, (uint32_t)argv.len);
	put(b, argv.data, argv.len);
	b->failed |= argv.failed;
	free(argv.data);
}

static void encode_meta(struct buf *b, const struct profile *p)
{
	const struct profile_meta_key *k, *end;
	uint32_t n = 0;

	end = profile_meta_keys + profile_nmeta_keys;
	for (k = profile_meta_keys; k < end; k++)
		n += !k->written || k->written(p);
	put_u32(b, n);
	for (k = profile_meta_keys; k < end; k++) {
		const char *f = (const char *)p + k->off;

		if (k->written && !k->written(p))
			continue;
		put_str(b, k->name);
		if (k->type == META_STR)
			put_str(b, *(char *const *)f);
		else if (k->type == META_ARGV)
			encode_argv(b, p);
		else if (k->type == META_CALL_GRAPH)
			put_str(b, profile_call_graph_name(p->call_graph));
		else
			put_num(b, meta_num(f, k->type));
	}
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
		qsort(sc, n, sizeof(*sc), profile_stack_count_cmp);
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

	if (profile_task_entries(p, &e) <= 0) {
		b->failed = 1;
		return;
	}
	put_u32(b, (uint32_t)p->ntask_counts);
	for (i = 0; i < p->ntask_counts; i++) {
		put_u32(b, e[i].count);
		put_u32(b, e[i].task);
		put_u32(b, e[i].cpu);
		put_u32(b, e[i].state);
		put_u64(b, e[i].samples);
		put_u64(b, e[i].weight);
	}
	free(e);
}

/* The events name task counts by their index in the file's order. */
static void encode_events(struct buf *b, const struct profile *p)
{
	struct task_entry *e = NULL;
	uint32_t *file_tc = NULL;
	uint8_t *sec = NULL;
	size_t i, len;

	if (profile_task_entries(p, &e) <= 0 ||
	    !(file_tc = malloc((p->ntask_counts + 1) * sizeof(*file_tc))))
		goto fail;
	for (i = 0; i < p->ntask_counts; i++)
		file_tc[e[i].src] = (uint32_t)i;
	if (profile_events_encode(p, file_tc, &sec, &len))
		goto fail;
	put(b, sec, len);
	goto out;
fail:
	b->failed = 1;
out:
	free(e);
	free(file_tc);
	free(sec);
}

/* Whether the time stream is written: the profile keeps one, its tasks
 * are whole and its events add up to them. */
static int has_events(const struct profile *p, int has_tasks)
{
	const char *why;
	return p->timeline == PROF_TIMELINE_KEPT && has_tasks &&
	       profile_events_check(p, &why) == 0;
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
		n += p->objects[i].id.ino || p->objects[i].id.flags;
	return n;
}

static void encode_identities(struct buf *b, const struct profile *p)
{
	size_t i;

	put_u32(b, (uint32_t)count_identities(p));
	for (i = 0; i < p->nobjects; i++) {
		const struct prof_identity *id = &p->objects[i].id;

		if (!id->ino && !id->flags)
			continue;
		put_u32(b, (uint32_t)i);
		put_u32(b, (uint32_t)id->flags);
		put_u64(b, id->dev);
		put_u64(b, id->ino);
		put_u64(b, id->size);
		put_u64(b, id->mtime_ns);
	}
}

/* Whether j has code or lines for section 16. */
static int has_jitcode(const struct prof_jitsym *j)
{
	return j->code || j->nlines;
}

static size_t count_jitcode(const struct profile *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->njitsyms; i++)
		n += has_jitcode(&p->jitsyms[i]) != 0;
	return n;
}

static void encode_jitcode(struct buf *b, const struct profile *p)
{
	size_t i, k;

	put_u32(b, (uint32_t)count_jitcode(p));
	for (i = 0; i < p->njitsyms; i++) {
		const struct prof_jitsym *j = &p->jitsyms[i];

		if (!has_jitcode(j))
			continue;
		put_u32(b, (uint32_t)i);
		put_u32(b, j->code ? 1 : 0);
		if (j->code)
			put(b, j->code, j->end - j->start);
		put_u32(b, (uint32_t)j->nfiles);
		for (k = 0; k < j->nfiles; k++)
			put_str(b, j->files[k]);
		put_u32(b, (uint32_t)j->nlines);
		for (k = 0; k < j->nlines; k++) {
			put_u64(b, j->lines[k].addr);
			put_u32(b, j->lines[k].file);
			put_u32(b, j->lines[k].line);
		}
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
		[SEC_EVENTS] = encode_events,
		[SEC_JITCODE] = encode_jitcode,
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
		if (id == SEC_EVENTS && !has_events(p, has_tasks))
			continue;
		if (id == SEC_JITCODE && !count_jitcode(p))
			continue;
		ids[nsec++] = id;
	}

	put(b, PROFILE_MAGIC, PROFILE_MAGIC_LEN);
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

		cap = profile_file_cap(f->size, f->zlen, total);
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
	if (profile_write_all(o.fd, b.data, b.len)) {
		err = prof_fail(PROF_EIO, "cannot write '%s': %s", path,
				strerror(errno));
		outfile_abort(&o);
	} else {
		err = outfile_commit(&o);
	}
	free(b.data);
	return err;
}
