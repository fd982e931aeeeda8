/* SPDX-License-Identifier: MIT */
/*
 * The call-stack side of the report model (report.h, struct
 * report_stacks): each frame symbolized once through report_resolve()
 * and expanded into its inline chain, each stack turned into a list of
 * procedures root first, then the rows' inclusive percentages, the
 * completeness summary, -callers/-callees, -tree, the folded stacks and
 * report-time -ra.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "common/util/path.h"
#include "report.h"
#include "report_int.h"
#include "symbolize/symbolize.h"

/* A procedure of an expanded stack: an interned name and its object
 * (UINT32_MAX for the truncation marker), and the entry of the
 * out-of-line procedure its frame is in (symbol_start: what tells two
 * procedures of one name apart, as the rows do). */
struct xframe {
	uint32_t name;
	uint32_t obj;
	uint64_t start;
	unsigned char inlined;
};

struct report_sbuild {
	/* Interned procedure names: names[id], indexed by their hash. */
	const char **names;
	size_t nnames, alloc_names;
	struct hashmap name_index;
	/* Each prof frame's procedures, outermost first: xf[xf_first[i]],
	 * xf_n[i] of them. */
	struct xframe *xf;
	size_t nxf, alloc_xf;
	uint32_t *xf_first, *xf_n;
	/* Each stack, expanded root first: sx[sx_first[k]], sx_n[k]. */
	struct xframe *sx;
	size_t nsx, alloc_sx;
	uint32_t *sx_first, *sx_n;
	unsigned char *complete;	/* per stack */
	const char **reason;		/* per stack: why truncated, or NULL */
	const char **last_obj;		/* per stack: base name */
	/* The stack statistic's samples and weight per stack. */
	uint64_t *samples, *weight;
	uint32_t *canon;		/* per object: first one of its path */
	/* Per stack: the frame its samples are counted at (the leaf, or
	 * the caller report-time -ra charged them to). */
	uint32_t *charged;
};

/* find_name()'s lookup: whether name id is the name. */
struct name_lookup {
	const struct report_sbuild *sb;
	const char *name;
};

static int name_at(const void *ctx, size_t id)
{
	const struct name_lookup *l = ctx;

	return !strcmp(l->sb->names[id], l->name);
}

/* The id of name, or -1 when it was never interned. */
static long find_name(const struct report_sbuild *sb, const char *name)
{
	struct name_lookup l = { .sb = sb, .name = name };
	size_t id = hashmap_find(&sb->name_index,
				 hash_str(HASH_STR_SEED, name), name_at, &l);

	return id == SIZE_MAX ? -1 : (long)id;
}

/* Intern name (copied into the report); its id, or a negative error. */
static long intern(struct report *r, struct report_sbuild *sb,
		   const char *name)
{
	long id = find_name(sb, name);
	const char *copy;

	if (id >= 0)
		return id;
	copy = report_pool_dup(r, name);
	if (!copy || ALLOC_GROW(sb->names, sb->nnames + 1, sb->alloc_names) ||
	    hashmap_add(&sb->name_index, hash_str(HASH_STR_SEED, name),
			sb->nnames))
		return -PROF_ENOMEM;
	sb->names[sb->nnames] = copy;
	return (long)sb->nnames++;
}

static int add_xf(struct xframe **v, size_t *n, size_t *alloc,
		  uint32_t name, uint32_t obj, uint64_t start, int inlined)
{
	if (ALLOC_GROW(*v, *n + 1, *alloc))
		return -PROF_ENOMEM;
	(*v)[*n].name = name;
	(*v)[*n].obj = obj;
	(*v)[*n].start = start;
	(*v)[*n].inlined = (unsigned char)inlined;
	(*n)++;
	return 0;
}

/* Each frame's inline chain, outermost first: the out-of-line function,
 * then the ones inlined into it.  A function inlined into a clone of
 * itself is that function once (as the rows name it). */
static int symbolize_frames(struct report *r, struct symbolizer *sym,
			    struct report_sbuild *sb)
{
	const struct profile *p = r->prof;
	size_t i;

	sb->xf_first = calloc(p->nframes + 1, sizeof(*sb->xf_first));
	sb->xf_n = calloc(p->nframes + 1, sizeof(*sb->xf_n));
	if (!sb->xf_first || !sb->xf_n)
		return -PROF_ENOMEM;
	for (i = 0; i < p->nframes; i++) {
		const struct prof_frame *f = &p->frames[i];
		struct sym_result res;
		const char *last = NULL;
		unsigned k;

		report_resolve(p, sym, f->obj, f->offset, &res, NULL);
		sb->xf_first[i] = (uint32_t)sb->nxf;
		for (k = res.nframes; k-- > 0;) {
			const char *fn = res.frames[k].function;
			long id;

			if (!fn || (last && !strcmp(last, fn)))
				continue;
			id = intern(r, sb, fn);
			if (id < 0 || add_xf(&sb->xf, &sb->nxf, &sb->alloc_xf,
					     (uint32_t)id, f->obj,
					     res.symbol_start, last != NULL))
				return -PROF_ENOMEM;
			last = fn;
		}
		sb->xf_n[i] = (uint32_t)(sb->nxf - sb->xf_first[i]);
	}
	return 0;
}

/* Outermost functions that mean a frame-pointer walk reached the entry
 * of the process or of a thread. */
static int entry_function(const char *name)
{
	static const char *const entries[] = {
		"_start", "__libc_start_main", "__libc_start_call_main",
		"main", "clone", "clone3", "__clone", "__clone3",
		"start_thread",
	};
	size_t i;

	for (i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (!strcmp(name, entries[i]))
			return 1;
	return 0;
}

/* Why a stack ends where it does, without the "truncated: " prefix of
 * profile_stack_end_name(). */
static const char *end_reason(enum prof_stack_end end)
{
	const char *s = profile_stack_end_name(end);

	return strncmp(s, "truncated: ", 11) ? s : s + 11;
}

const char *report_stack_truncated(const struct prof_stack *st,
				   const char *outer_fn)
{
	switch (st->end) {
	case PROF_STACK_COMPLETE:
	case PROF_STACK_KERNEL:
		return NULL;
	case PROF_STACK_FP:
		return outer_fn && entry_function(outer_fn) ? NULL :
			"frame-pointer chain ended";
	default:
		return end_reason(st->end);
	}
}

/* Each stack root first, with a marker frame when it is truncated. */
static int expand_stacks(struct report *r, struct report_sbuild *sb)
{
	const struct profile *p = r->prof;
	size_t k;
	char buf[512];

	sb->sx_first = calloc(p->nstacks + 1, sizeof(*sb->sx_first));
	sb->sx_n = calloc(p->nstacks + 1, sizeof(*sb->sx_n));
	sb->complete = calloc(p->nstacks + 1, 1);
	sb->reason = calloc(p->nstacks + 1, sizeof(*sb->reason));
	sb->last_obj = calloc(p->nstacks + 1, sizeof(*sb->last_obj));
	if (!sb->sx_first || !sb->sx_n || !sb->complete || !sb->reason ||
	    !sb->last_obj)
		return -PROF_ENOMEM;
	for (k = 0; k < p->nstacks; k++) {
		const struct prof_stack *st = &p->stacks[k];
		uint32_t outer, j;
		const struct prof_frame *of;

		sb->sx_first[k] = (uint32_t)sb->nsx;
		if (!st->nframes) {	/* never read from a file */
			sb->complete[k] = 1;
			continue;
		}
		outer = p->stack_frames[st->first + st->nframes - 1];
		of = &p->frames[outer];
		sb->last_obj[k] = path_base(p->objects[of->obj].path);
		sb->reason[k] = report_stack_truncated(st, sb->xf_n[outer] ?
			sb->names[sb->xf[sb->xf_first[outer]].name] : NULL);
		sb->complete[k] = !sb->reason[k];
		if (sb->reason[k]) {
			long id;

			snprintf(buf, sizeof(buf), REPORT_TRUNCATED_FMT,
				 sb->reason[k], sb->last_obj[k]);
			id = intern(r, sb, buf);
			if (id < 0 || add_xf(&sb->sx, &sb->nsx, &sb->alloc_sx,
					     (uint32_t)id, UINT32_MAX, 0, 0))
				return -PROF_ENOMEM;
		}
		for (j = st->nframes; j-- > 0;) {
			uint32_t fi = p->stack_frames[st->first + j];
			uint32_t x;

			for (x = 0; x < sb->xf_n[fi]; x++) {
				const struct xframe *e =
					&sb->xf[sb->xf_first[fi] + x];

				if (add_xf(&sb->sx, &sb->nsx, &sb->alloc_sx,
					   e->name, e->obj, e->start,
					   e->inlined))
					return -PROF_ENOMEM;
			}
		}
		sb->sx_n[k] = (uint32_t)(sb->nsx - sb->sx_first[k]);
	}
	return 0;
}

/* The stack statistic's samples and weight per stack. */
static int stack_figures(struct report *r, struct report_sbuild *sb,
			 size_t stat)
{
	const struct profile *p = r->prof;
	size_t i;

	sb->samples = calloc(p->nstacks + 1, sizeof(*sb->samples));
	sb->weight = calloc(p->nstacks + 1, sizeof(*sb->weight));
	sb->canon = calloc(p->nobjects + 1, sizeof(*sb->canon));
	sb->charged = calloc(p->nstacks + 1, sizeof(*sb->charged));
	if (!sb->samples || !sb->weight || !sb->canon || !sb->charged)
		return -PROF_ENOMEM;
	for (i = 0; i < p->nstacks; i++)
		sb->charged[i] = p->stacks[i].nframes ?
			p->stack_frames[p->stacks[i].first] : UINT32_MAX;
	for (i = 0; i < p->nstack_counts; i++) {
		const struct prof_stack_count *c = &p->stack_counts[i];

		if (c->stat != stat)
			continue;
		sb->samples[c->stack] += c->samples;
		sb->weight[c->stack] += c->weight;
	}
	/* Objects of one path are one object to the rows. */
	for (i = 0; i < p->nobjects; i++) {
		size_t j;

		sb->canon[i] = (uint32_t)i;
		for (j = 0; j < i; j++)
			if (!strcmp(p->objects[j].path, p->objects[i].path)) {
				sb->canon[i] = (uint32_t)j;
				break;
			}
	}
	return 0;
}

/* ---- report-time -ra ---------------------------------------------- */

/* Whether any procedure of prof frame fi (its inline chain) matches. */
static int frame_matches(const struct report *r,
			 const struct report_sbuild *sb, uint32_t fi)
{
	uint32_t x;

	for (x = 0; x < sb->xf_n[fi]; x++)
		if (report_name_matches(r->opt.ra, r->opt.nra,
				 sb->names[sb->xf[sb->xf_first[fi] + x].name]))
			return 1;
	return 0;
}

static struct prof_count *find_count(struct prof_count *v, size_t n,
				     uint32_t obj, uint32_t stat,
				     uint64_t offset)
{
	struct prof_count key = { .obj = obj, .stat = stat, .offset = offset };

	return bsearch(&key, v, n, sizeof(*v), profile_count_cmp);
}

/* The patterns as one string, for the heading. */
static char *join_patterns(const char *const *pats, size_t n)
{
	size_t len = 1, i;
	char *s;

	for (i = 0; i < n; i++)
		len += strlen(pats[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	*s = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, pats[i]);
	}
	return s;
}

/* The counts sorted, the same keys summed, the empty ones left out. */
static size_t merge_counts(struct prof_count *v, size_t n)
{
	size_t i, k = 0;

	if (n > 1)
		qsort(v, n, sizeof(*v), profile_count_cmp);
	for (i = 0; i < n; i++) {
		if (k && !profile_count_cmp(&v[k - 1], &v[i])) {
			v[k - 1].samples += v[i].samples;
			v[k - 1].weight += v[i].weight;
		} else {
			v[k++] = v[i];
		}
	}
	for (i = n = 0; i < k; i++)
		if (v[i].samples || v[i].weight)
			v[n++] = v[i];
	return n;
}

/*
 * Report-time -ra: a copy of the profile whose counts have each stack's
 * samples moved from its leaf frame, when a procedure there matches, to
 * the first frame out from it that matches none (the call in that
 * caller).  A stack all of whose frames match stays where it is.
 */
static int charge_callers(struct report *r, struct report_sbuild *sb)
{
	const struct profile *p = r->prof;
	struct profile *q = malloc(sizeof(*q));
	struct prof_count *v = NULL;
	size_t n = p->ncounts, nv = n, alloc = 0, i, j;
	uint64_t moved = 0;

	if (!q || ALLOC_GROW(v, n + 1, alloc)) {
		free(q);
		return -PROF_ENOMEM;
	}
	*q = *p;
	if (n)
		memcpy(v, p->counts, n * sizeof(*v));
	q->counts = v;
	q->ncounts = n;
	profile_sort_counts(q);
	q->ra_routines = join_patterns(r->opt.ra, r->opt.nra);
	report_own_profile(r, q);
	if (!q->ra_routines)
		return -PROF_ENOMEM;
	for (i = 0; i < p->nstack_counts; i++) {
		const struct prof_stack_count *c = &p->stack_counts[i];
		const struct prof_stack *st = &p->stacks[c->stack];
		const struct prof_frame *leaf, *to;
		struct prof_count *from;
		uint64_t ns, nw;

		if (!st->nframes ||
		    !frame_matches(r, sb, p->stack_frames[st->first]))
			continue;
		for (j = 1; j < st->nframes; j++)
			if (!frame_matches(r, sb,
					   p->stack_frames[st->first + j]))
				break;
		if (j == st->nframes)
			continue;
		leaf = &p->frames[p->stack_frames[st->first]];
		to = &p->frames[p->stack_frames[st->first + j]];
		sb->charged[c->stack] = p->stack_frames[st->first + j];
		/* The first n stay sorted: additions go after them. */
		from = find_count(v, n, leaf->obj, c->stat, leaf->offset);
		if (!from)
			continue;
		ns = c->samples < from->samples ? c->samples : from->samples;
		nw = c->weight < from->weight ? c->weight : from->weight;
		from->samples -= ns;
		from->weight -= nw;
		if (ALLOC_GROW(v, nv + 1, alloc)) {
			q->counts = v;
			return -PROF_ENOMEM;
		}
		q->counts = v;
		memset(&v[nv], 0, sizeof(v[nv]));
		v[nv].obj = to->obj;
		v[nv].stat = c->stat;
		v[nv].offset = to->offset;
		v[nv].samples = ns;
		v[nv].weight = nw;
		nv++;
		moved += ns;
	}
	q->ncounts = merge_counts(v, nv);
	q->alloc_counts = alloc;
	q->ra_moved = (p->ra_routines ? p->ra_moved : 0) + moved;
	r->ra_from_stacks = 1;
	return 0;
}

/* ---- the views ----------------------------------------------------- */

static double percent_of(uint64_t w, uint64_t total)
{
	return total ? 100.0 * (double)w / (double)total : 0;
}

/* Completeness: of the samples with a stack, how many reached an entry,
 * how many have kernel frames only, and where the others stopped (by
 * reason and object). */
static int completeness(struct report *r, struct report_sbuild *sb)
{
	const struct profile *p = r->prof;
	struct report_stacks *rs = r->stacks;
	size_t k, t, alloc = 0;
	struct report_truncation *v = NULL;

	for (k = 0; k < p->nstacks; k++) {
		if (!sb->samples[k])
			continue;
		rs->samples += sb->samples[k];
		rs->weight += sb->weight[k];
		if (sb->complete[k]) {
			if (p->stacks[k].end == PROF_STACK_KERNEL)
				rs->kernel_only += sb->samples[k];
			else
				rs->complete += sb->samples[k];
			continue;
		}
		for (t = 0; t < rs->ntrunc; t++)
			if (!strcmp(v[t].reason, sb->reason[k]) &&
			    !strcmp(v[t].object, sb->last_obj[k]))
				break;
		if (t == rs->ntrunc) {
			if (ALLOC_GROW(v, rs->ntrunc + 1, alloc)) {
				free(v);
				return -PROF_ENOMEM;
			}
			memset(&v[t], 0, sizeof(v[t]));
			v[t].reason = sb->reason[k];
			v[t].object = report_pool_dup(r, sb->last_obj[k]);
			rs->ntrunc++;
		}
		v[t].samples += sb->samples[k];
	}
	rs->trunc = report_alloc(r, rs->ntrunc, sizeof(*rs->trunc));
	if (!rs->trunc) {
		free(v);
		return -PROF_ENOMEM;
	}
	for (t = 0; t < rs->ntrunc; t++) {
		v[t].percent = percent_of(v[t].samples, rs->samples);
		/* Most samples first; by name for a stable order. */
		for (k = t; k > 0 && (rs->trunc[k - 1].samples < v[t].samples ||
				      (rs->trunc[k - 1].samples ==
				       v[t].samples &&
				       strcmp(rs->trunc[k - 1].reason,
					      v[t].reason) > 0)); k--)
			rs->trunc[k] = rs->trunc[k - 1];
		rs->trunc[k] = v[t];
	}
	free(v);
	rs->complete_percent = percent_of(rs->complete, rs->samples);
	rs->kernel_only_percent = percent_of(rs->kernel_only, rs->samples);
	rs->truncated_percent = percent_of(rs->samples - rs->complete -
					   rs->kernel_only, rs->samples);
	return 0;
}

/* Per (object, name, procedure entry): the weight of the stacks that
 * contain it, once per stack, and of those whose samples are counted in
 * it (their leaf, or where -ra charged them).  An open-addressing table
 * keyed by canonical object, name and the entry of the out-of-line
 * procedure (two of one name are two rows). */
struct incl_key {
	uint64_t start;
	uint32_t obj;		/* canonical object + 1; 0: empty slot */
	uint32_t name;
};

struct incl {
	struct incl_key *keys;
	uint64_t *weight, *leaf;
	uint32_t *stamp;	/* last stack counted + 1 */
	size_t cap;
};

static size_t incl_slot(const struct incl *t, const struct incl_key *k)
{
	uint64_t h = hash_mix64(((uint64_t)k->obj << 32 | k->name) ^
				hash_mix64(k->start));
	size_t i = (size_t)h & (t->cap - 1);

	while (t->keys[i].obj &&
	       (t->keys[i].obj != k->obj || t->keys[i].name != k->name ||
		t->keys[i].start != k->start))
		i = (i + 1) & (t->cap - 1);
	return i;
}

static struct incl_key incl_key(const struct report_sbuild *sb,
				uint32_t obj, uint32_t name, uint64_t start)
{
	struct incl_key k = {
		.start = start, .obj = sb->canon[obj] + 1, .name = name,
	};

	return k;
}

/* The slot of e's key, taken for it. */
static size_t incl_take(struct incl *t, const struct report_sbuild *sb,
			const struct xframe *e)
{
	struct incl_key k = incl_key(sb, e->obj, e->name, e->start);
	size_t s = incl_slot(t, &k);

	t->keys[s] = k;
	return s;
}

static void incl_count(struct incl *t, const struct report_sbuild *sb,
		       size_t k, int inline_split)
{
	const struct xframe *e;
	uint32_t fi = sb->charged[k];
	size_t x, s;

	for (x = 0; x < sb->sx_n[k]; x++) {
		e = &sb->sx[sb->sx_first[k] + x];
		if (e->obj == UINT32_MAX)
			continue;
		s = incl_take(t, sb, e);
		if (t->stamp[s] == k + 1)
			continue;	/* recursion: once */
		t->stamp[s] = (uint32_t)k + 1;
		t->weight[s] += sb->weight[k];
	}
	if (fi == UINT32_MAX || !sb->xf_n[fi])
		return;
	/* The procedure of the frame the samples are at, as the rows name
	 * it: the innermost one with -inline, else the out-of-line one. */
	e = &sb->xf[sb->xf_first[fi] + (inline_split ? sb->xf_n[fi] - 1 : 0)];
	t->leaf[incl_take(t, sb, e)] += sb->weight[k];
}

/*
 * The rows' total (inclusive) percentages: a procedure's is the weight of
 * the stacks that contain it at least once, plus its own samples that
 * came without a stack (its self weight less that of the stacks counted
 * in it), so that total >= self.
 */
static int row_totals(struct report *r, struct report_sbuild *sb)
{
	const struct profile *p = r->prof;
	size_t stat = r->stacks->stat, k, i, x;
	struct incl t = { 0 };
	int err = -PROF_ENOMEM;

	/* A row split by task is not one procedure's whole. */
	if (r->opt.view != REPORT_PROCEDURES || !r->nrows ||
	    (r->opt.by & REPORT_BY_TASK))
		return 0;
	for (t.cap = 64; t.cap < 2 * (sb->nxf + 1); t.cap *= 2)
		;
	t.keys = calloc(t.cap, sizeof(*t.keys));
	t.weight = calloc(t.cap, sizeof(*t.weight));
	t.leaf = calloc(t.cap, sizeof(*t.leaf));
	t.stamp = calloc(t.cap, sizeof(*t.stamp));
	if (!t.keys || !t.weight || !t.leaf || !t.stamp)
		goto out;
	for (k = 0; k < p->nstacks; k++)
		if (sb->weight[k])
			incl_count(&t, sb, k, r->opt.inline_split);
	for (i = 0; i < r->nrows; i++) {
		struct report_row *row = &r->rows[i];
		struct incl_key key;
		long id = find_name(sb, row->procedure);
		uint64_t w = row->weight[stat];
		size_t o;

		row->total_percent = percent_of(w, r->total_weight[stat]);
		if (id < 0)
			continue;
		for (o = 0; o < p->nobjects; o++)
			if (p->objects[o].path == row->object)
				break;
		if (o == p->nobjects)
			continue;
		key = incl_key(sb, (uint32_t)o, (uint32_t)id, row->start);
		x = incl_slot(&t, &key);
		if (!t.keys[x].obj)
			continue;
		w = t.weight[x] + (w > t.leaf[x] ? w - t.leaf[x] : 0);
		row->total_percent = percent_of(w, r->total_weight[stat]);
	}
	err = 0;
out:
	free(t.keys);
	free(t.weight);
	free(t.leaf);
	free(t.stamp);
	return err;
}

/* Hottest first, then by name, inlined last. */
static int cmp_call(const void *a, const void *b)
{
	const struct report_call *x = a, *y = b;
	int c;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	if (x->recursive != y->recursive)
		return x->recursive - y->recursive;
	c = strcmp(x->f.name, y->f.name);
	return c ? c : x->f.inlined - y->f.inlined;
}

/* The entry of calls for (name, inlined), added when missing. */
static struct report_call *call_entry(struct report_call **v, size_t *n,
				      size_t *alloc, const char *name,
				      int inlined, int recursive)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i].f.name == name && (*v)[i].f.inlined == inlined &&
		    (*v)[i].recursive == recursive)
			return &(*v)[i];
	if (ALLOC_GROW(*v, *n + 1, *alloc))
		return NULL;
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].f.name = name;
	(*v)[*n].f.inlined = inlined;
	(*v)[*n].recursive = recursive;
	return &(*v)[(*n)++];
}

/*
 * One procedure's callers (or callees).  A stack counts once: its caller
 * is the one of the procedure's outermost occurrence, its callee the one
 * of its innermost (nothing: self), so the shares add up to the
 * procedure's total; a stack where it calls itself also counts in a
 * "recursive" entry, shown apart.
 */
static int focus_one(struct report *r, struct report_sbuild *sb,
		     uint32_t name, struct report_focus *fo)
{
	const struct profile *p = r->prof;
	int callers = r->opt.stack_view == REPORT_CALLERS;
	uint64_t total = r->total_weight[r->stacks->stat];
	struct report_call *v = NULL, *e;
	size_t n = 0, alloc = 0, k, x;

	fo->name = sb->names[name];
	for (k = 0; k < p->nstacks; k++) {
		const struct xframe *s = &sb->sx[sb->sx_first[k]];
		size_t first = SIZE_MAX, last = 0, count = 0;

		if (!sb->weight[k] && !sb->samples[k])
			continue;
		for (x = 0; x < sb->sx_n[k]; x++)
			if (s[x].name == name && s[x].obj != UINT32_MAX) {
				if (first == SIZE_MAX)
					first = x;
				last = x;
				count++;
			}
		if (!count)
			continue;
		fo->samples += sb->samples[k];
		fo->weight += sb->weight[k];
		if (last + 1 == sb->sx_n[k]) {
			fo->self_samples += sb->samples[k];
			fo->self_weight += sb->weight[k];
		}
		e = NULL;
		if (callers && first > 0)
			e = call_entry(&v, &n, &alloc,
				       sb->names[s[first - 1].name],
				       s[first - 1].inlined, 0);
		else if (!callers && last + 1 < sb->sx_n[k])
			e = call_entry(&v, &n, &alloc,
				       sb->names[s[last + 1].name],
				       s[last + 1].inlined, 0);
		if ((callers && first > 0) ||
		    (!callers && last + 1 < sb->sx_n[k])) {
			if (!e)
				goto nomem;
			e->samples += sb->samples[k];
			e->weight += sb->weight[k];
		}
		if (count > 1) {
			e = call_entry(&v, &n, &alloc, fo->name, 0, 1);
			if (!e)
				goto nomem;
			e->samples += sb->samples[k];
			e->weight += sb->weight[k];
		}
	}
	fo->percent = percent_of(fo->weight, total);
	fo->self_percent = percent_of(fo->self_weight, total);
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_call);
	fo->calls = report_alloc(r, n, sizeof(*v));
	if (!fo->calls)
		goto nomem;
	for (k = 0; k < n; k++) {
		v[k].percent = percent_of(v[k].weight, total);
		v[k].share = percent_of(v[k].weight, fo->weight);
		fo->calls[k] = v[k];
	}
	fo->ncalls = n;
	free(v);
	return 0;
nomem:
	free(v);
	return -PROF_ENOMEM;
}

static int cmp_focus(const void *a, const void *b)
{
	const struct report_focus *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* -callers/-callees: every procedure in the stacks the glob matches. */
static int focus(struct report *r, struct report_sbuild *sb)
{
	struct report_stacks *rs = r->stacks;
	unsigned char *seen = calloc(sb->nnames + 1, 1);
	size_t i, n = 0;
	int err = 0;

	if (!seen)
		return -PROF_ENOMEM;
	for (i = 0; i < sb->nsx; i++)
		if (sb->sx[i].obj != UINT32_MAX)
			seen[sb->sx[i].name] = 1;
	for (i = 0; i < sb->nnames; i++)
		if (seen[i] && !fnmatch(r->opt.focus, sb->names[i], 0))
			n++;
	if (!n) {
		free(seen);
		return prof_fail(PROF_EINVAL, "%s '%s': no procedure in the "
				 "call stacks matches",
				 r->opt.stack_view == REPORT_CALLERS ?
				 "-callers" : "-callees", r->opt.focus);
	}
	rs->focus = report_alloc(r, n, sizeof(*rs->focus));
	if (!rs->focus) {
		free(seen);
		return -PROF_ENOMEM;
	}
	for (i = 0; i < sb->nnames && !err; i++)
		if (seen[i] && !fnmatch(r->opt.focus, sb->names[i], 0))
			err = focus_one(r, sb, (uint32_t)i,
					&rs->focus[rs->nfocus++]);
	free(seen);
	if (!err && rs->nfocus > 1)
		qsort(rs->focus, rs->nfocus, sizeof(*rs->focus), cmp_focus);
	return err;
}

/* The call tree while it is built: children as linked lists. */
struct tnode {
	uint32_t name;
	unsigned char inlined;
	uint64_t samples, weight, self_samples, self_weight;
	size_t child, next;	/* indices + 1; 0: none */
};

/* The report's node from tree node i and its children, pruned. */
static int tree_out(struct report *r, const struct report_sbuild *sb,
		    const struct tnode *t, size_t i, struct report_call *out)
{
	uint64_t total = r->total_weight[r->stacks->stat];
	double min = r->stacks->tree_min;
	size_t c, n = 0, k;

	out->f.name = sb->names[t[i].name];
	out->f.inlined = t[i].inlined;
	out->samples = t[i].samples;
	out->weight = t[i].weight;
	out->self_samples = t[i].self_samples;
	out->self_weight = t[i].self_weight;
	out->percent = percent_of(t[i].weight, total);
	out->self_percent = percent_of(t[i].self_weight, total);
	for (c = t[i].child; c; c = t[c - 1].next) {
		out->nchildren_all++;
		if (percent_of(t[c - 1].weight, total) >= min)
			n++;
	}
	out->children = report_alloc(r, n, sizeof(*out->children));
	if (!out->children)
		return -PROF_ENOMEM;
	for (c = t[i].child, k = 0; c; c = t[c - 1].next) {
		int err;

		if (percent_of(t[c - 1].weight, total) < min)
			continue;
		err = tree_out(r, sb, t, c - 1, &out->children[k++]);
		if (err)
			return err;
	}
	if (n > 1)
		qsort(out->children, n, sizeof(*out->children), cmp_call);
	/* -quit N: N children per node (its percent prunes instead). */
	for (k = 0; k < n && !report_quit_reached(r->opt.quit_rows, 0, k,
						  NULL); k++)
		;
	out->nchildren = k;
	return 0;
}

/* -tree: the stacks merged from their roots. */
static int tree(struct report *r, struct report_sbuild *sb)
{
	const struct profile *p = r->prof;
	struct report_stacks *rs = r->stacks;
	struct tnode *t = NULL;
	size_t n = 1, alloc = 0, k, x;
	int err;

	rs->tree_min = r->opt.quit_percent > 0 ? r->opt.quit_percent :
		       REPORT_TREE_MIN_PERCENT;
	if (ALLOC_GROW(t, 1, alloc))
		return -PROF_ENOMEM;
	memset(t, 0, sizeof(*t));
	t[0].name = UINT32_MAX;
	for (k = 0; k < p->nstacks; k++) {
		size_t at = 0;

		if (!sb->weight[k] && !sb->samples[k])
			continue;
		t[0].samples += sb->samples[k];
		t[0].weight += sb->weight[k];
		for (x = 0; x < sb->sx_n[k]; x++) {
			const struct xframe *e = &sb->sx[sb->sx_first[k] + x];
			size_t c;

			for (c = t[at].child; c; c = t[c - 1].next)
				if (t[c - 1].name == e->name &&
				    t[c - 1].inlined == e->inlined)
					break;
			if (!c) {
				if (ALLOC_GROW(t, n + 1, alloc)) {
					free(t);
					return -PROF_ENOMEM;
				}
				memset(&t[n], 0, sizeof(t[n]));
				t[n].name = e->name;
				t[n].inlined = e->inlined;
				t[n].next = t[at].child;
				t[at].child = n + 1;
				c = ++n;
			}
			at = c - 1;
			t[at].samples += sb->samples[k];
			t[at].weight += sb->weight[k];
		}
		t[at].self_samples += sb->samples[k];
		t[at].self_weight += sb->weight[k];
	}
	/* The root is no procedure: only its children are shown. */
	{
		const char *none = "";
		long id = intern(r, sb, none);

		if (id < 0) {
			free(t);
			return -PROF_ENOMEM;
		}
		t[0].name = (uint32_t)id;
	}
	err = tree_out(r, sb, t, 0, &rs->tree);
	free(t);
	return err;
}

/* ---- the phases ---------------------------------------------------- */

/* What needs stacks: a view, or -ra (unless collection applied it). */
static const char *stack_views_needing(const struct report_options *o,
				       const struct profile *p)
{
	switch (o->stack_view) {
	case REPORT_CALLERS: return "-callers";
	case REPORT_CALLEES: return "-callees";
	case REPORT_TREE: return "-tree";
	case REPORT_STACKS_NONE: break;
	}
	if (o->folded)
		return "--format folded";
	if (o->nra && !p->ra_routines)
		return "-ra at report time";
	return NULL;
}

int report_stacks_prepare(struct report *r, struct symbolizer *sym,
			  struct report_sbuild **out)
{
	const struct profile *p = r->prof;
	const char *need = stack_views_needing(&r->opt, p);
	struct report_sbuild *sb;
	int err;

	*out = NULL;
	if (r->opt.no_stacks)
		return 0;
	if (!p->nstacks) {
		if (!need)
			return 0;
		return prof_fail(PROF_EINVAL, "'%s' has no call stacks "
				 "(profile with -g): %s needs them",
				 r->opt.file ? r->opt.file : "profile", need);
	}
	sb = calloc(1, sizeof(*sb));
	r->stacks = report_alloc(r, 1, sizeof(*r->stacks));
	if (!sb || !r->stacks) {
		free(sb);
		return prof_fail(PROF_ENOMEM, "out of memory");
	}
	*out = sb;
	r->stacks->stat = report_stack_stat(p);
	err = symbolize_frames(r, sym, sb);
	if (!err)
		err = expand_stacks(r, sb);
	if (!err)
		err = stack_figures(r, sb, r->stacks->stat);
	if (!err && r->opt.nra && !p->ra_routines)
		err = charge_callers(r, sb);
	if (err)
		return prof_fail(-err, "cannot build report: %s",
				 prof_strerror(-err));
	return 0;
}

int report_stacks_finish(struct report *r, struct report_sbuild *sb)
{
	int err;

	if (!sb)
		return 0;
	err = completeness(r, sb);
	if (!err)
		err = row_totals(r, sb);
	if (!err && (r->opt.stack_view == REPORT_CALLERS ||
		     r->opt.stack_view == REPORT_CALLEES))
		err = focus(r, sb);
	if (!err && r->opt.stack_view == REPORT_TREE)
		err = tree(r, sb);
	return err;
}

void report_stacks_release(struct report_sbuild *sb)
{
	if (!sb)
		return;
	free(sb->names);
	hashmap_release(&sb->name_index);
	free(sb->xf);
	free(sb->xf_first);
	free(sb->xf_n);
	free(sb->sx);
	free(sb->sx_first);
	free(sb->sx_n);
	free(sb->complete);
	free(sb->reason);
	free(sb->last_obj);
	free(sb->samples);
	free(sb->weight);
	free(sb->canon);
	free(sb->charged);
	free(sb);
}
