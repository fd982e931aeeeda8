/* SPDX-License-Identifier: MIT */
/*
 * The asm view's rows of one procedure (listing.c makes them a procedure
 * at a time): its heading row (its totals) before its instructions in
 * address order; the source line each run of instructions starts, read
 * from the source file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/regfile.h"
#include "symbolize/symbolize.h"
#include "build.h"

static int cmp_asm(const void *a, const void *b)
{
	const struct report_row *x = a, *y = b;
	int c;

	if ((c = report_cmp_str0(x->object, y->object)))
		return c;
	if ((c = report_cmp_str0(x->procedure, y->procedure)))
		return c;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->address < y->address ? -1 : x->address > y->address;
}

/* cmp_asm() on rows[*a], rows[*b] (ctx is rows), stable. */
static int cmp_asm_at(const void *a, const void *b, void *ctx)
{
	const struct report_row *rows = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = cmp_asm(&rows[x], &rows[y]);

	if (c)
		return c;
	return x < y ? -1 : x > y;
}

/* The heading of the procedure whose rows are all[idx[start .. end)]:
 * its totals (h has its arrays). */
static void make_heading(const struct report *r, struct report_row *h,
			 const struct report_row *all, const size_t *idx,
			 size_t start, size_t end)
{
	const struct report_row *first = &all[idx[start]];
	double freq = 0, execs = 0;
	int any_freq = 0, any_execs = 0;
	size_t j, s;

	h->kind = ROW_PROCEDURE;
	h->by.pid = h->by.tid = h->by.cpu = -1;	/* the whole procedure */
	h->procedure = first->procedure;
	h->object = first->object;
	h->module = first->module;
	h->address = first->address;
	h->start = first->start;
	h->end = all[idx[end - 1]].end;
	for (j = start; j < end; j++) {
		const struct report_row *row = &all[idx[j]];

		for (s = 0; s < r->nstats; s++) {
			h->samples[s] += row->samples[s];
			h->weight[s] += row->weight[s];
			h->percent[s] += row->percent[s];
		}
		if (!isnan(row->freq)) {
			freq += row->freq;
			any_freq = 1;
		}
		if (!isnan(row->execs)) {
			execs += row->execs;
			any_execs = 1;
		}
	}
	h->freq = any_freq ? freq : NAN;
	h->execs = any_execs ? execs : NAN;
	report_row_derived(r, h);
}

/* order[]: the n headings, hottest first, from the order it has
 * (insertion sort: stable, and there are few). */
static void order_headings(const struct report *r,
			   const struct report_row *heads, size_t *order,
			   size_t n)
{
	size_t i;

	for (i = 1; i < n; i++) {
		size_t x = order[i], k = i;

		while (k > 0 &&
		       report_row_hotter(&heads[x], &heads[order[k - 1]],
					 r->nstats) < 0) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = x;
	}
}

/* Two procedures of one name (a JIT's function compiled again, two
 * static functions) are two, as in the procedures view. */
static int same_proc(const struct report_row *x, const struct report_row *y)
{
	return !report_cmp_str0(x->object, y->object) &&
	       !report_cmp_str0(x->procedure, y->procedure) &&
	       x->start == y->start;
}

/*
 * idx[] (0 .. n - 1) in cmp_asm_at() order.  Rows come in runs of a
 * procedure already in that order (its instructions by address): the runs
 * are sorted by their first rows; the rows of a procedure whose runs then
 * overlap (two procedures of one name, a sampled address that is no
 * instruction) are sorted again among themselves.  1 when out of memory
 * (idx[] untouched).
 */
static int sort_runs(struct report_row *rows, size_t *idx, size_t n)
{
	/* first leads: cmp_asm_at() reads it as a row index. */
	struct row_run { size_t first, len, at; } *run;
	size_t nruns = 0, i, k, g, o = 0;

	run = malloc(n * sizeof(*run));
	if (!run)
		return 1;
	for (i = 0; i < n; i++) {
		if (!i || !same_proc(&rows[i - 1], &rows[i]) ||
		    cmp_asm_at(&idx[i - 1], &idx[i], rows) > 0)
			run[nruns++] = (struct row_run){ .first = i };
		run[nruns - 1].len++;
	}
	/* Runs are few. */
	qsort_r(run, nruns, sizeof(*run), cmp_asm_at, rows);
	for (k = 0; k < nruns; k++) {
		run[k].at = o;
		for (i = 0; i < run[k].len; i++)
			idx[o++] = run[k].first + i;
	}
	for (k = 0; k < nruns; k++) {
		int sorted = 1;

		for (g = k; k + 1 < nruns &&
			    same_proc(&rows[run[k + 1].first],
				      &rows[run[g].first]); k++)
			if (cmp_asm_at(&idx[run[k + 1].at - 1],
				       &idx[run[k + 1].at], rows) > 0)
				sorted = 0;
		if (!sorted)
			qsort_r(idx + run[g].at, run[k].at + run[k].len -
				run[g].at, sizeof(*idx), cmp_asm_at, rows);
	}
	free(run);
	return 0;
}

void report_asm_order(const struct report *r, const struct report_row *heads,
		      size_t *order, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		order[i] = i;
	if (n > 1)
		qsort_r(order, n, sizeof(*order), cmp_asm_at, (void *)heads);
	order_headings(r, heads, order, n);
}

/*
 * Insert a heading row (kind ROW_PROCEDURE, the procedure's totals)
 * before each procedure's instructions, procedures hottest first.  The
 * listing calls it on one procedure's rows at a time.
 */
int report_asm_arrange(struct report *r)
{
	struct report_row *rows = r->rows, *heads = NULL, *out = NULL;
	size_t n = r->nrows, nprocs = 0, i, k, o = 0;
	size_t *idx = NULL, *starts = NULL, *order = NULL;
	int err = -PROF_ENOMEM;

	idx = malloc((n + 1) * sizeof(*idx));
	starts = malloc((n + 1) * sizeof(*starts));
	if (!idx || !starts)
		goto out;
	for (i = 0; i < n; i++)
		idx[i] = i;
	if (n > 1 && sort_runs(rows, idx, n))
		qsort_r(idx, n, sizeof(*idx), cmp_asm_at, rows);
	for (i = 0; i < n; i++)
		if (!i || !same_proc(&rows[idx[i]], &rows[idx[i - 1]]))
			starts[nprocs++] = i;
	starts[nprocs] = n;
	heads = calloc(nprocs ? nprocs : 1, sizeof(*heads));
	order = malloc((nprocs ? nprocs : 1) * sizeof(*order));
	out = malloc((n + nprocs + 1) * sizeof(*out));
	if (!heads || !order || !out || report_row_arrays(r, heads, nprocs))
		goto out;
	for (i = 0; i < nprocs; i++) {
		make_heading(r, &heads[i], rows, idx, starts[i], starts[i + 1]);
		order[i] = i;
	}
	order_headings(r, heads, order, nprocs);
	for (i = 0; i < nprocs; i++) {
		size_t p = order[i];

		out[o++] = heads[p];
		for (k = starts[p]; k < starts[p + 1]; k++)
			out[o++] = rows[idx[k]];
	}
	free(rows);
	r->rows = out;
	r->nrows = o;
	out = NULL;
	err = 0;
out:
	free(idx);
	free(starts);
	free(heads);
	free(order);
	free(out);
	return err;
}

/* Read the lines of src from f (up to 64 MiB; what cannot be read
 * leaves src with fewer lines, or none). */
static void read_lines(struct source *src, FILE *f)
{
	size_t alloc = 0;
	char *s, *e;
	long len;

	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0 ||
	    len >= (64 << 20) || fseek(f, 0, SEEK_SET))
		return;
	src->text = malloc((size_t)len + 1);
	if (!src->text || fread(src->text, 1, (size_t)len, f) != (size_t)len)
		return;
	src->text[len] = 0;
	for (s = src->text;;) {
		if (ALLOC_GROW(src->lines, src->nlines + 1, alloc))
			break;
		src->lines[src->nlines++] = s;
		e = strchr(s, '\n');
		if (!e)
			break;
		*e = 0;
		s = e + 1;
		if (!*s)
			break;
	}
}

/* Name a source file that cannot be opened (once; paths are the
 * symbolizer's, unique per file, but compared by content all the same). */
static void note_missing(struct report *r, struct priv *pv, const char *path)
{
	const char *kept;

	if (report_note_has(r, REPORT_NOTE_MISSING_SOURCE, path))
		return;
	/* Out of memory only loses the note. */
	kept = strpool_add(&pv->pool, path);
	if (kept)
		report_note_add(r, REPORT_NOTE_MISSING_SOURCE, kept, NULL);
}

/*
 * The place of the object at path (its first file object): DWARF names
 * the source files, and an object from an archive, a container or a
 * debuginfod server names them as it likes; sym_object_info() says
 * where they may be read.  Objects that are not files (the kernel's
 * vmlinux is found on this machine): here.
 */
struct source_place report_asm_place(struct report *r,
				     struct symbolizer *sym, const char *path)
{
	struct source_place place = { "/", 0, 0, 0, NULL };
	struct sym_object_info info;
	struct stat st;
	size_t i;

	for (i = 0; path && i < r->prof->nobjects; i++) {
		const struct prof_object *o = &r->prof->objects[i];
		struct sym_object so = report_sym_obj(r->prof, (uint32_t)i);

		if (o->kind != PROF_OBJ_FILE || strcmp(o->path, path))
			continue;
		if (sym_object_info(sym, &so, &info) != SYM_OK)
			break;
		place.root = info.source_root;
		place.here = info.source_here;
		place.object = o->path;
		if (!geteuid() && info.file && !stat(info.file, &st) &&
		    st.st_uid) {
			place.as_owner = 1;
			place.owner = st.st_uid;
		}
		if (!place.root && info.source_why &&
		    !report_note_has(r, REPORT_NOTE_SOURCE_NOT_READ, path))
			report_note_add(r, REPORT_NOTE_SOURCE_NOT_READ,
					report_pool_dup(r, path),
					report_pool_dup(r, info.source_why));
		break;
	}
	return place;
}

/* The file at path inside the place's root (then, where allowed, at
 * path itself). */
static FILE *open_source(const struct source_place *place, const char *path,
			 struct stat *st)
{
	FILE *f = regfile_fopen_in(place->root, path, st);

	if (!f && place->here && (errno == ENOENT || errno == ELOOP))
		f = regfile_fopen(path, st);
	return f;
}

/* Whether place's object may show src: see struct source_place. */
static int shows(const struct source_place *place, const struct source *src)
{
	return !place->as_owner || src->uid == place->owner ||
	       (src->mode & S_IROTH);
}

/* shows(), noted when not. */
static int may_show(struct report *r, const struct source_place *place,
		    const struct source *src)
{
	char why[96];

	if (shows(place, src))
		return 1;
	snprintf(why, sizeof(why), "its owner, uid %u, could not read "
		 "some of them", (unsigned)place->owner);
	if (place->object &&
	    !report_note_has(r, REPORT_NOTE_SOURCE_NOT_READ, place->object))
		report_note_add(r, REPORT_NOTE_SOURCE_NOT_READ,
				report_pool_dup(r, place->object),
				report_pool_dup(r, why));
	return 0;
}

/* The source file read for path at place, or NULL. */
static struct source *find_source(const struct priv *pv,
				  const struct source_place *place,
				  const char *path)
{
	size_t i;

	for (i = 0; i < pv->nsources; i++)
		if (pv->sources[i].root == place->root &&
		    (pv->sources[i].path == path ||
		     !strcmp(pv->sources[i].path, path)))
			return &pv->sources[i];
	return NULL;
}

/* Line line of path at place: the file read the first time, with the
 * notes of what could not be read or shown. */
static const char *source_line(struct report *r, struct priv *pv,
			       const struct source_place *place,
			       const char *path, unsigned line)
{
	struct source *src;

	if (!path || !line || !place->root)
		return NULL;
	src = find_source(pv, place, path);
	if (!src) {
		struct stat st;
		FILE *f;

		if (ALLOC_GROW(pv->sources, pv->nsources + 1,
			       pv->alloc_sources))
			return NULL;
		src = &pv->sources[pv->nsources++];
		memset(src, 0, sizeof(*src));
		src->path = path;
		src->root = place->root;
		/* DWARF names the file: it may be a FIFO, which a plain
		 * fopen() would wait on forever. */
		f = open_source(place, path, &st);
		if (!f) {
			if (errno == EINVAL && st.st_mode)
				report_note_skipped(r, path,
						    regfile_kind(st.st_mode));
			else
				note_missing(r, pv, path);
			return NULL;
		}
		src->uid = st.st_uid;
		src->mode = st.st_mode;
		read_lines(src, f);
		fclose(f);
	}
	if (line > src->nlines || !may_show(r, place, src))
		return NULL;
	return src->lines[line - 1];
}

void report_asm_read_source(struct report *r, const struct source_place *place,
			    const char *path, unsigned line)
{
	source_line(r, r->priv, place, path, line);
}

void report_asm_line_starts(const struct report *r,
			    const struct source_place *place,
			    struct report_row *rows, size_t n)
{
	const char *last_file = NULL;
	unsigned last_line = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		struct report_row *row = &rows[i];
		const struct source *src;

		if (row->file && row->line &&
		    (row->line != last_line ||
		     !report_same_str(row->file, last_file))) {
			row->line_start = 1;
			src = place->root ? find_source(r->priv, place,
							row->file) : NULL;
			if (src && row->line <= src->nlines &&
			    shows(place, src))
				row->source = src->lines[row->line - 1];
		}
		last_file = row->file;
		last_line = row->line;
	}
}

void report_asm_release(struct priv *pv)
{
	size_t i;

	for (i = 0; i < pv->nsources; i++) {
		free(pv->sources[i].text);
		free(pv->sources[i].lines);
	}
	free(pv->sources);
}
