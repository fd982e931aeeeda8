/* SPDX-License-Identifier: MIT */
/*
 * The samples model (report.h, struct report_samples): the profile as
 * stacks of symbolized locations with one value per statistic, what the
 * exports that keep every address lay out (pprof, callgrind, the flame
 * graph).  Built by report_build() when report_options.samples is set.
 *
 * - A location is one (object, offset) of the profile: a sampled address
 *   or a stack frame, symbolized once by report_resolve() with its inline
 *   chain, so it is named as the rows and the stack views name it.
 * - A sample is a profile stack with its counts per statistic, leaf
 *   first; a truncated stack gets the marker location the folded view
 *   shows ("[truncated: REASON in OBJECT]", no object).
 * - Samples taken without a stack (no -g, or a sample whose stack could
 *   not be taken) are flat samples of one location: per (object, offset,
 *   statistic), the count minus what the stacks ending there hold.  So
 *   every statistic's samples and weights add up to the report's totals,
 *   exactly.
 * - The way back: each profile stack's sample (stack_sample) and each
 *   address's location (report_samples_loc()), for an export that walks
 *   the profile's time stream and lays out each event as the model
 *   symbolized it (speedscope, firefox; through streams.c).
 */
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/path.h"
#include "common/util/hash.h"
#include "report_int.h"
#include "symbolize/symbolize.h"

/* Open-addressing map from a 64-bit key to an index, for locations
 * ((object, offset)) and functions (names). */
struct imap {
	uint64_t *keys;
	uint32_t *vals;		/* index + 1; 0: empty slot */
	size_t cap;
};

static int imap_grow(struct imap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 1024, i;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	uint32_t *vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -PROF_ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		size_t s;

		if (!m->vals[i])
			continue;
		for (s = hash_mix64(m->keys[i]) & (cap - 1); vals[s];
		     s = (s + 1) & (cap - 1))
			;
		keys[s] = m->keys[i];
		vals[s] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

/* The slot of key: where it is, or the empty slot where it would go.
 * eq(ctx, index) tells keys that hash alike apart (NULL: the key is the
 * whole identity). */
static size_t imap_slot(const struct imap *m, uint64_t key,
			int (*eq)(const void *, uint32_t), const void *ctx)
{
	size_t s;

	for (s = hash_mix64(key) & (m->cap - 1); m->vals[s];
	     s = (s + 1) & (m->cap - 1))
		if (m->keys[s] == key &&
		    (!eq || eq(ctx, m->vals[s] - 1)))
			break;
	return s;
}

static void imap_free(struct imap *m)
{
	free(m->keys);
	free(m->vals);
}

struct sbuild {
	struct report *r;
	struct report_samples *s;
	struct symbolizer *sym;
	struct imap locmap, funcmap;
	size_t alloc_funcs, alloc_lines, alloc_locs, alloc_slocs,
	       alloc_samples;
	/* function and marker lookups compare this */
	const char *want_name;
	/* location lookups */
	uint32_t want_obj;
	uint64_t want_offset;
};

static int func_eq(const void *ctx, uint32_t i)
{
	const struct sbuild *b = ctx;
	const struct report_sfunc *f = &b->s->funcs[i];

	return !strcmp(f->name, b->want_name);
}

static int loc_eq(const void *ctx, uint32_t i)
{
	const struct sbuild *b = ctx;
	const struct report_sloc *l = &b->s->locs[i];

	if (l->obj != b->want_obj || l->offset != b->want_offset)
		return 0;
	/* A marker's offset is its name's hash. */
	return l->obj != UINT32_MAX ||
	       !strcmp(b->s->funcs[b->s->lines[l->first_line].func].name,
		       b->want_name);
}

/*
 * The function named name, added when new.  A function is its name, as a
 * row is: its file is the first source file seen in it (file: where a
 * line of it is, NULL when unknown).
 */
static long func_id(struct sbuild *b, const char *name, const char *file)
{
	struct report_samples *s = b->s;
	uint64_t key = hash_str(HASH_STR_SEED, name);
	size_t slot;

	if ((s->nfuncs + 1) * 2 > b->funcmap.cap && imap_grow(&b->funcmap))
		return -PROF_ENOMEM;
	b->want_name = name;
	slot = imap_slot(&b->funcmap, key, func_eq, b);
	if (b->funcmap.vals[slot]) {
		struct report_sfunc *f = &s->funcs[b->funcmap.vals[slot] - 1];

		if (!f->file && file) {
			f->file = report_pool_dup(b->r, file);
			if (!f->file)
				return -PROF_ENOMEM;
		}
		return (long)b->funcmap.vals[slot] - 1;
	}
	if (ALLOC_GROW(s->funcs, s->nfuncs + 1, b->alloc_funcs))
		return -PROF_ENOMEM;
	s->funcs[s->nfuncs].name = report_pool_dup(b->r, name);
	s->funcs[s->nfuncs].file = file ? report_pool_dup(b->r, file) : NULL;
	if (!s->funcs[s->nfuncs].name || (file && !s->funcs[s->nfuncs].file))
		return -PROF_ENOMEM;
	b->funcmap.keys[slot] = key;
	b->funcmap.vals[slot] = (uint32_t)s->nfuncs + 1;
	return (long)s->nfuncs++;
}

static int add_line(struct sbuild *b, long func, const char *file,
		    unsigned line)
{
	struct report_samples *s = b->s;
	struct report_sline *l;

	if (func < 0 || ALLOC_GROW(s->lines, s->nlines + 1, b->alloc_lines))
		return -PROF_ENOMEM;
	l = &s->lines[s->nlines++];
	l->func = (uint32_t)func;
	l->line = line;
	l->file = file ? report_pool_dup(b->r, file) : NULL;
	return file && !l->file ? -PROF_ENOMEM : 0;
}

/*
 * The location of (obj, offset), symbolized when new; obj UINT32_MAX is
 * a marker with the name given.  Its index, or a negative error.
 */
static long loc_id(struct sbuild *b, uint32_t obj, uint64_t offset,
		   const char *marker)
{
	struct report_samples *s = b->s;
	struct report_sloc *l;
	uint64_t key;
	size_t slot;

	if ((s->nlocs + 1) * 2 > b->locmap.cap && imap_grow(&b->locmap))
		return -PROF_ENOMEM;
	if (obj == UINT32_MAX)
		offset = hash_str(HASH_STR_SEED, marker);
	b->want_obj = obj;
	b->want_offset = offset;
	b->want_name = marker;
	key = hash_mix64(obj) ^ offset;
	slot = imap_slot(&b->locmap, key, loc_eq, b);
	if (b->locmap.vals[slot])
		return (long)b->locmap.vals[slot] - 1;
	if (ALLOC_GROW(s->locs, s->nlocs + 1, b->alloc_locs))
		return -PROF_ENOMEM;
	l = &s->locs[s->nlocs];
	memset(l, 0, sizeof(*l));
	l->obj = obj;
	l->offset = offset;
	l->address = offset;
	l->first_line = (uint32_t)s->nlines;
	if (obj == UINT32_MAX) {
		if (add_line(b, func_id(b, marker, NULL), NULL, 0))
			return -PROF_ENOMEM;
	} else {
		struct sym_result res;
		unsigned k;

		report_resolve(b->r->prof, b->sym, obj, offset, &res, NULL);
		l->address = res.vaddr;
		/* Innermost first; a function inlined into a clone of
		 * itself is that function once, as the rows name it. */
		for (k = 0; k < res.nframes; k++) {
			const struct sym_frame *f = &res.frames[k];

			if (k + 1 < res.nframes && f->function &&
			    res.frames[k + 1].function &&
			    !strcmp(f->function, res.frames[k + 1].function))
				continue;
			if (add_line(b, func_id(b, f->function, f->file),
				     f->file, f->line))
				return -PROF_ENOMEM;
		}
	}
	l->nlines = (uint32_t)(s->nlines - l->first_line);
	b->locmap.keys[slot] = key;
	b->locmap.vals[slot] = (uint32_t)s->nlocs + 1;
	return (long)s->nlocs++;
}

/* A new sample of n locations (appended to sample_locs by the caller),
 * with zeroed values. */
static struct report_ssample *new_sample(struct sbuild *b, uint32_t end)
{
	struct report_samples *s = b->s;
	struct report_ssample *x;

	if (ALLOC_GROW(s->samples, s->nsamples + 1, b->alloc_samples))
		return NULL;
	x = &s->samples[s->nsamples];
	memset(x, 0, sizeof(*x));
	x->first = (uint32_t)s->nsample_locs;
	x->end = end;
	x->samples = report_alloc(b->r, s->nstats, sizeof(*x->samples));
	x->weight = report_alloc(b->r, s->nstats, sizeof(*x->weight));
	if (!x->samples || !x->weight)
		return NULL;
	s->nsamples++;
	return x;
}

static int push_loc(struct sbuild *b, long loc)
{
	struct report_samples *s = b->s;

	if (loc < 0 || ALLOC_GROW(s->sample_locs, s->nsample_locs + 1,
				  b->alloc_slocs))
		return -PROF_ENOMEM;
	s->sample_locs[s->nsample_locs++] = (uint32_t)loc;
	return 0;
}

/* One sample per profile stack: its frames, leaf first, and the marker
 * when it ends short.  stack_sample[k] is stack k's sample. */
static int stack_samples(struct sbuild *b, uint32_t *stack_sample)
{
	const struct profile *p = b->r->prof;
	struct report_samples *s = b->s;
	char buf[512];
	size_t k, i;

	for (k = 0; k < p->nstacks; k++) {
		const struct prof_stack *st = &p->stacks[k];
		const struct report_sloc *outer;
		struct report_ssample *x;
		const char *why;
		uint32_t j;

		stack_sample[k] = UINT32_MAX;
		if (!st->nframes)
			continue;
		x = new_sample(b, st->end);
		if (!x)
			return -PROF_ENOMEM;
		stack_sample[k] = (uint32_t)(x - s->samples);
		for (j = 0; j < st->nframes; j++) {
			const struct prof_frame *f =
				&p->frames[p->stack_frames[st->first + j]];

			if (push_loc(b, loc_id(b, f->obj, f->offset, NULL)))
				return -PROF_ENOMEM;
		}
		outer = &s->locs[s->sample_locs[s->nsample_locs - 1]];
		why = report_stack_truncated(st, s->funcs[s->lines[
			outer->first_line + outer->nlines - 1].func].name);
		if (why) {
			snprintf(buf, sizeof(buf), REPORT_TRUNCATED_FMT, why,
				 path_base(p->objects[outer->obj].path));
			if (push_loc(b, loc_id(b, UINT32_MAX, 0, buf)))
				return -PROF_ENOMEM;
		}
		x->nlocs = (uint32_t)(s->nsample_locs - x->first);
	}
	for (i = 0; i < p->nstack_counts; i++) {
		const struct prof_stack_count *c = &p->stack_counts[i];
		struct report_ssample *x;

		if (c->stack >= p->nstacks || c->stat >= s->nstats ||
		    stack_sample[c->stack] == UINT32_MAX)
			continue;
		x = &s->samples[stack_sample[c->stack]];
		x->samples[c->stat] += c->samples;
		x->weight[c->stat] += c->weight;
	}
	return 0;
}

static int cmp_count(const void *a, const void *b)
{
	const struct prof_count *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->stat < y->stat ? -1 : x->stat > y->stat;
}

/*
 * Flat samples: what the counts hold beyond the stacks that end at the
 * same address (all of it without -g), one sample per address with its
 * values for every statistic.
 */
static int flat_samples(struct sbuild *b, const uint32_t *stack_sample)
{
	const struct profile *p = b->r->prof;
	struct report_samples *s = b->s;
	struct prof_count *left = NULL;
	size_t nleft = 0, i, k;
	int err = 0;

	left = malloc((p->ncounts + p->nstack_counts + 1) * sizeof(*left));
	if (!left)
		return -PROF_ENOMEM;
	for (i = 0; i < p->ncounts; i++)
		if (p->counts[i].stat < s->nstats &&
		    (p->counts[i].samples || p->counts[i].weight))
			left[nleft++] = p->counts[i];
	qsort(left, nleft, sizeof(*left), cmp_count);
	/* Take the stacks' share off their leaf's count. */
	for (i = 0; i < p->nstack_counts; i++) {
		const struct prof_stack_count *c = &p->stack_counts[i];
		const struct prof_stack *st;
		const struct prof_frame *leaf;
		struct prof_count key, *hit;

		if (c->stack >= p->nstacks ||
		    stack_sample[c->stack] == UINT32_MAX)
			continue;
		st = &p->stacks[c->stack];
		leaf = &p->frames[p->stack_frames[st->first]];
		key.obj = leaf->obj;
		key.offset = leaf->offset;
		key.stat = c->stat;
		hit = bsearch(&key, left, nleft, sizeof(*left), cmp_count);
		if (!hit) {
			err = prof_fail(PROF_EFORMAT, "a call stack's leaf "
					"has no count in the profile");
			goto out;
		}
		if (hit->samples < c->samples || hit->weight < c->weight) {
			err = prof_fail(PROF_EFORMAT, "the call stacks hold "
					"more than the counts at an address");
			goto out;
		}
		hit->samples -= c->samples;
		hit->weight -= c->weight;
	}
	for (i = 0; i < nleft; i = k) {
		struct report_ssample *x = NULL;

		for (k = i; k < nleft && left[k].obj == left[i].obj &&
			    left[k].offset == left[i].offset; k++) {
			if (!left[k].samples && !left[k].weight)
				continue;
			if (!x) {
				x = new_sample(b, PROF_STACK_NEND);
				if (!x || push_loc(b, loc_id(b, left[k].obj,
						left[k].offset, NULL))) {
					err = -PROF_ENOMEM;
					goto out;
				}
				x->nlocs = 1;
			}
			x->samples[left[k].stat] += left[k].samples;
			x->weight[left[k].stat] += left[k].weight;
		}
	}
out:
	free(left);
	return err;
}

/* A frame's text in a folded line: no ';' (the separator) or newline,
 * inlined frames annotated "_[i]" as flame-graph tools expect. */
static int folded_frame(char **buf, size_t *len, size_t *alloc,
			const char *name, int inlined)
{
	size_t n = strlen(name), i;

	if (ALLOC_GROW(*buf, *len + n + 6, *alloc))
		return -PROF_ENOMEM;
	if (*len)
		(*buf)[(*len)++] = ';';
	for (i = 0; i < n; i++) {
		char c = name[i];

		(*buf)[(*len)++] = c == ';' ? ':' : c == '\n' ? ' ' : c;
	}
	if (inlined) {
		memcpy(*buf + *len, "_[i]", 4);
		*len += 4;
	}
	(*buf)[*len] = '\0';
	return 0;
}

static int cmp_folded(const void *a, const void *b)
{
	const struct report_folded *x = a, *y = b;

	return strcmp(x->line, y->line);
}

/*
 * --format folded: each sample of the stack statistic as a line, root
 * first, each location's inline chain outermost first.  A sample taken
 * without a stack in a profile with stacks stands on "[no stack]": its
 * callers are unknown, and it must not look like a root.
 */
static int folded_lines(struct report *r, struct report_samples *s)
{
	size_t stat = r->stacks ? r->stacks->stat :
		      report_stack_stat(r->prof);
	size_t i, k, n = 0;
	char *buf = NULL;
	size_t alloc = 0;
	int err = 0;

	s->folded = report_alloc(r, s->nsamples, sizeof(*s->folded));
	if (!s->folded)
		return -PROF_ENOMEM;
	for (i = 0; i < s->nsamples && !err; i++) {
		const struct report_ssample *x = &s->samples[i];
		size_t len = 0;
		uint32_t j;

		if (stat >= s->nstats || !x->samples[stat])
			continue;
		if (x->end == PROF_STACK_NEND && s->has_stacks)
			err = folded_frame(&buf, &len, &alloc, "[no stack]", 0);
		for (j = x->nlocs; j-- > 0 && !err;) {
			const struct report_sloc *l =
				&s->locs[s->sample_locs[x->first + j]];
			uint32_t m;

			for (m = l->nlines; m-- > 0 && !err;)
				err = folded_frame(&buf, &len, &alloc,
					s->funcs[s->lines[l->first_line + m]
						 .func].name, m + 1 < l->nlines);
		}
		if (err)
			break;
		s->folded[n].line = report_pool_dup(r, buf);
		/* Time is folded in ns: an interval is not one sample. */
		s->folded[n].samples = r->prof->stats[stat].flags &
				       PROF_STAT_TIME ? x->weight[stat] :
				       x->samples[stat];
		if (!s->folded[n++].line)
			err = -PROF_ENOMEM;
	}
	free(buf);
	if (err)
		return err;
	/* Samples distinct by address may name the same procedures. */
	if (n > 1)
		qsort(s->folded, n, sizeof(*s->folded), cmp_folded);
	for (i = k = 0; i < n; i++) {
		if (k && !strcmp(s->folded[k - 1].line, s->folded[i].line))
			s->folded[k - 1].samples += s->folded[i].samples;
		else
			s->folded[k++] = s->folded[i];
	}
	s->nfolded = k;
	return 0;
}

static int cmp_loc_at(const void *a, const void *b, void *ctx)
{
	const struct report_sloc *locs = ctx;
	const struct report_sloc *x = &locs[*(const uint32_t *)a],
				 *y = &locs[*(const uint32_t *)b];

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The locations of addresses, by (object, offset): a location is one
 * address, so each is there once. */
static int sort_locs(struct report_samples *s)
{
	size_t i, n = 0;

	s->loc_order = malloc((s->nlocs + 1) * sizeof(*s->loc_order));
	if (!s->loc_order)
		return -PROF_ENOMEM;
	for (i = 0; i < s->nlocs; i++)
		if (s->locs[i].obj != UINT32_MAX)
			s->loc_order[n++] = (uint32_t)i;
	qsort_r(s->loc_order, n, sizeof(*s->loc_order), cmp_loc_at, s->locs);
	s->nloc_order = n;
	return 0;
}

long report_samples_loc(const struct report_samples *s, uint32_t obj,
			uint64_t offset)
{
	size_t lo = 0, hi = s->nloc_order;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct report_sloc *l = &s->locs[s->loc_order[mid]];

		if (l->obj < obj || (l->obj == obj && l->offset < offset))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nloc_order && s->locs[s->loc_order[lo]].obj == obj &&
	    s->locs[s->loc_order[lo]].offset == offset)
		return (long)s->loc_order[lo];
	return -1;
}

int report_samples_build(struct report *r, struct symbolizer *sym)
{
	const struct profile *p = r->prof;
	struct sbuild b = { .r = r, .sym = sym };
	uint32_t *stack_sample;
	size_t i, k;
	int err;

	/* kprofile -ra at collection moved counts to callers the stacks do
	 * not follow: the two no longer add up address by address. */
	if (p->ra_moved && p->nstacks)
		return prof_fail(PROF_EINVAL, "'%s' was recorded with -ra: its "
				 "samples were charged to callers, so its "
				 "counts no longer match its call stacks; "
				 "export a profile recorded without -ra",
				 r->opt.file ? r->opt.file : "the profile");
	b.s = calloc(1, sizeof(*b.s));
	stack_sample = calloc(p->nstacks + 1, sizeof(*stack_sample));
	if (!b.s || !stack_sample) {
		free(b.s);
		free(stack_sample);
		return -PROF_ENOMEM;
	}
	r->samples = b.s;
	b.s->nstats = p->nstats;
	b.s->has_stacks = p->nstacks > 0;
	b.s->total_samples = report_alloc(r, p->nstats,
					  sizeof(*b.s->total_samples));
	b.s->total_weight = report_alloc(r, p->nstats,
					 sizeof(*b.s->total_weight));
	err = !b.s->total_samples || !b.s->total_weight ? -PROF_ENOMEM :
	      stack_samples(&b, stack_sample);
	if (!err)
		err = flat_samples(&b, stack_sample);
	b.s->stack_sample = stack_sample;
	b.s->nstacks = p->nstacks;
	imap_free(&b.locmap);
	imap_free(&b.funcmap);
	if (!err)
		err = sort_locs(b.s);
	if (err)
		return err;
	for (i = 0; i < b.s->nsamples; i++)
		for (k = 0; k < b.s->nstats; k++) {
			b.s->total_samples[k] += b.s->samples[i].samples[k];
			b.s->total_weight[k] += b.s->samples[i].weight[k];
		}
	return r->opt.folded ? folded_lines(r, b.s) : 0;
}

void report_samples_free(struct report_samples *s)
{
	if (!s)
		return;
	free(s->funcs);
	free(s->lines);
	free(s->locs);
	free(s->sample_locs);
	free(s->samples);
	free(s->stack_sample);
	free(s->loc_order);
	free(s);
}
