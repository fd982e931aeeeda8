/* SPDX-License-Identifier: MIT */
/*
 * A jitdump's debug records (JIT_CODE_DEBUG_INFO): where the code of one
 * load comes from in its source, read into the lines of the JIT symbols
 * a profile keeps.
 *
 *   record: u32 id 2, u32 total_size, u64 timestamp,
 *           u64 code_addr, u64 nr_entry, then nr_entry entries:
 *   entry:  u64 addr, u32 line, u32 discrim, NAME\0 (the source file;
 *           "\xff\0": the previous entry's)
 *
 * An entry's line holds from its address up to the next entry's.  The
 * writers do not all agree on the addresses: perf and the JVM's agent
 * write the code's own, V8 writes them 0x40 further (m->debug_skew).
 *
 * Node 20's V8 writes the file name of a script from memory it has
 * already freed: the name keeps its length and its tail, but its first
 * bytes are the allocator's (NULs among them), so the entries no longer
 * parse one after the other.  Such a record is read again with the one
 * entry size that fits all its entries (its names are one script's, of
 * one length), and a damaged name is taken back from the code's own
 * name when that holds a word of the same length that ends as the
 * damaged name does for at least half of it, or for all but the first
 * 16 bytes, the two pointers glibc's malloc writes over a chunk it frees
 * ("JS:*hot /path/app.js:12:3" for "<16 bytes of garbage>ath/app.js",
 * "JS:*hot /tmp/d/w.js:1:3" for "<16 bytes>w.js").  Nothing else is
 * guessed: a record that fits neither way gives no lines.
 */
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/bytes.h"
#include "common/util/error.h"
#include "profile.h"

#define RECORD_HEAD 32u		/* prefix, code_addr, nr_entry */
#define ENTRY_HEAD 16u		/* addr, line, discrim */
#define MAX_PAD 8u		/* writers align records to 8 bytes */
#define MIN_TAIL 4u		/* undamaged bytes a repair needs, at least */
#define FREED_HEAD 16u		/* what malloc writes over a freed chunk */
#define NO_FIT 1		/* entries that do not fit their record */
#define MAX_FILE 4096u		/* a file name longer is no file's */

/* One entry as read: its file not NUL-terminated. */
struct dentry {
	uint64_t addr;
	uint32_t line;
	const char *file;
	size_t flen;
	size_t order;		/* in the record */
};

/* The entries of one record, and what they apply to. */
struct dread {
	struct dentry *v;
	size_t n, alloc;
	const struct prof_jitmap_entry *e;
	uint64_t skew;
};

static int clean(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return n > 0;
}

static int push(struct dread *d, uint64_t addr, uint32_t line,
		const char *file, size_t flen)
{
	if (!d->e)
		return 0;	/* profile_jitdebug_fits(): the frame only */
	if (flen == 1 && (unsigned char)file[0] == 0xff) {
		if (!d->n)
			return NO_FIT;
		file = d->v[d->n - 1].file;
		flen = d->v[d->n - 1].flen;
	}
	if (!clean(file, flen) || flen > MAX_FILE)
		return NO_FIT;
	if (ALLOC_GROW(d->v, d->n + 1, d->alloc))
		return -PROF_ENOMEM;
	d->v[d->n] = (struct dentry){ addr, line, file, flen, d->n };
	d->n++;
	return 0;
}

/* The entries one after the other, as the format has them: 0, NO_FIT
 * when they do not fit the record, -PROF_ENOMEM. */
static int read_plain(struct dread *d, struct bytes b, uint64_t nr)
{
	uint64_t i;
	int r;

	for (i = 0; i < nr; i++) {
		uint64_t addr = bytes_u(&b, 8);
		uint32_t line = (uint32_t)bytes_u(&b, 4);
		const char *file;

		bytes_skip(&b, 4);
		file = bytes_str(&b);
		if (!file)
			return NO_FIT;
		r = push(d, addr, line, file, strlen(file));
		if (r)
			return r;
	}
	return bytes_left(&b) < MAX_PAD ? 0 : NO_FIT;
}

/* How many bytes a and b (n each) end in alike. */
static size_t common_tail(const char *a, const char *b, size_t n)
{
	size_t k = 0;

	while (k < n && a[n - 1 - k] == b[n - 1 - k])
		k++;
	return k;
}

/*
 * A damaged name (len bytes) taken back from the code's name: the last
 * word there of the same length that ends as the name does for at least
 * half of it or past its first FREED_HEAD bytes (and MIN_TAIL at least),
 * followed by ':' or the end.  NULL when there is none.
 */
static const char *repair(const struct prof_jitmap_entry *e,
			  const char *name, size_t len)
{
	const char *code = e->name, *end = code + strlen(code), *w, *best = NULL;
	size_t tail;

	for (w = code; w + len <= end; w++) {
		if ((w > code && w[-1] != ' ') ||
		    (w[len] && w[len] != ':') || !clean(w, len))
			continue;
		tail = common_tail(w, name, len);
		if (tail >= MIN_TAIL && (tail * 2 >= len ||
					 len - tail <= FREED_HEAD))
			best = w;
	}
	return best;
}

/* The entries at size bytes each: 0, NO_FIT, -PROF_ENOMEM. */
static int read_sized(struct dread *d, struct bytes b, uint64_t nr,
		      size_t size)
{
	size_t i;
	int r;

	d->n = 0;
	for (i = 0; i < nr; i++) {
		struct bytes eb = bytes_of(b.p + i * size, size);
		uint64_t addr = bytes_u(&eb, 8);
		uint32_t line = (uint32_t)bytes_u(&eb, 4);
		const char *name;
		size_t len = size - ENTRY_HEAD - 1;

		bytes_skip(&eb, 4);
		name = (const char *)bytes_get(&eb, len + 1);
		if (!name || name[len])
			return NO_FIT;
		if (d->e && !clean(name, len) &&
		    !(len == 1 && (unsigned char)*name == 0xff))
			name = repair(d->e, name, len);
		if (!name)
			return NO_FIT;
		r = push(d, addr, line, name, len);
		if (r)
			return r;
	}
	return 0;
}

/* The entries at one size each (see the top), the record padded to 8
 * bytes: 0, NO_FIT, -PROF_ENOMEM. */
static int read_strided(struct dread *d, struct bytes b, uint64_t nr)
{
	size_t left = bytes_left(&b), pad;
	int r = NO_FIT;

	if (!nr || nr > left / (ENTRY_HEAD + 1))
		return NO_FIT;
	for (pad = 0; pad < MAX_PAD && pad < left && r == NO_FIT; pad++)
		if (!((left - pad) % nr) &&
		    (left - pad) / nr > ENTRY_HEAD)
			r = read_sized(d, b, nr, (left - pad) / nr);
	return r;
}

static int cmp_dentry(const void *a, const void *b)
{
	const struct dentry *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* What j's arrays hold room for. */
struct room {
	size_t lines, files;
};

/* The index of name in j's files, added when new; -1 out of memory. */
static long file_index(struct prof_jitsym *j, const char *name, size_t len,
		       struct room *room)
{
	size_t i;

	for (i = 0; i < j->nfiles; i++)
		if (!strncmp(j->files[i], name, len) && !j->files[i][len])
			return (long)i;
	if (ALLOC_GROW(j->files, j->nfiles + 1, room->files) ||
	    !(j->files[j->nfiles] = strndup(name, len)))
		return -1;
	return (long)j->nfiles++;
}

/* Entry k's address where e's code is now (its load may have moved),
 * or 0 with *out unset when it is outside the code. */
static int place(const struct dread *d, const struct dentry *k,
		 uint64_t *out)
{
	const struct prof_jitmap_entry *e = d->e;
	uint64_t a = k->addr - d->skew;

	if (k->addr < d->skew || a < e->debug_base ||
	    a - e->debug_base >= e->end - e->start)
		return 0;
	*out = e->start + (a - e->debug_base);
	return 1;
}

static int add_line(struct prof_jitsym *j, uint64_t addr,
		    const struct dentry *k, struct room *room)
{
	struct prof_jitline *l = j->nlines ? &j->lines[j->nlines - 1] : NULL;
	long f;

	if (l && l->addr == addr)
		j->nlines--;		/* the later entry wins */
	else if (j->nlines >= PROF_JIT_LINES_MAX)
		return 0;
	/* Files come with lines, but a replaced line leaves its file. */
	if (j->nfiles >= PROF_JIT_LINES_MAX)
		return 0;
	f = file_index(j, k->file, k->flen, room);
	if (f < 0 || ALLOC_GROW(j->lines, j->nlines + 1, room->lines))
		return -PROF_ENOMEM;
	l = j->nlines ? &j->lines[j->nlines - 1] : NULL;
	/* A line that goes on is not said again. */
	if (l && l->file == (uint32_t)f && l->line == k->line)
		return 0;
	j->lines[j->nlines++] = (struct prof_jitline){
		.addr = addr, .file = (uint32_t)f, .line = k->line };
	return 0;
}

/* The entries in j, sorted, the one in force at j->start first. */
static int keep_lines(const struct dread *d, struct prof_jitsym *j)
{
	size_t i, first = d->n;
	struct room room = { 0 };
	uint64_t a;
	int r = 0;

	for (i = 0; i < d->n; i++)
		if (place(d, &d->v[i], &a) && a <= j->start)
			first = i;
	for (i = first == d->n ? 0 : first; i < d->n && !r; i++) {
		if (!place(d, &d->v[i], &a) || a >= j->end)
			continue;
		if (a < j->start && i != first)
			continue;
		r = add_line(j, a < j->start ? j->start : a, &d->v[i],
			     &room);
	}
	return r;
}

/* The record's entries as a cursor, and their number; NULL-safe. */
static struct bytes entries_of(const uint8_t *rec, size_t len, uint64_t *nr)
{
	struct bytes b = bytes_of(rec, len);

	bytes_skip(&b, RECORD_HEAD - 8);
	*nr = bytes_u(&b, 8);
	if (*nr > bytes_left(&b) / (ENTRY_HEAD + 1))
		b.bad = 1;
	return b;
}

int profile_jitdebug_fits(const uint8_t *rec, size_t len)
{
	struct dread d = { 0 };
	uint64_t nr;
	struct bytes b = entries_of(rec, len, &nr);

	if (b.bad)
		return 0;
	return !read_plain(&d, b, nr) || !read_strided(&d, b, nr);
}

int profile_jitdump_lines(const struct prof_jitmap *m,
			  const struct prof_jitmap_entry *e,
			  struct prof_jitsym *j)
{
	struct dread d = { .e = e, .skew = m->debug_skew };
	uint64_t nr;
	struct bytes b = entries_of(e->debug, e->debug_len, &nr);
	int r;

	j->lines = NULL;
	j->files = NULL;
	j->nlines = j->nfiles = 0;
	if (b.bad)
		return 0;
	r = read_plain(&d, b, nr);
	if (r == NO_FIT)
		r = read_strided(&d, b, nr);
	if (!r) {
		qsort(d.v, d.n, sizeof(*d.v), cmp_dentry);
		r = keep_lines(&d, j);
	}
	free(d.v);
	if (r == -PROF_ENOMEM)
		return r;
	if (r)
		profile_jitlines_free(j);
	return 0;
}

void profile_jitlines_free(struct prof_jitsym *j)
{
	size_t i;

	for (i = 0; i < j->nfiles; i++)
		free(j->files[i]);
	free(j->files);
	free(j->lines);
	j->files = NULL;
	j->lines = NULL;
	j->nfiles = j->nlines = 0;
}
