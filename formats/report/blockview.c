/* SPDX-License-Identifier: MIT */
/*
 * The blocks view without freq, a procedure at a time: as each sampled
 * procedure is decoded, its sites are given their instructions, the
 * instructions of its blocks with counts become sites (the other blocks
 * cannot make a row with data), and, in an object without DWARF, the
 * others are resolved for the notes on objects there and then and the
 * procedure's instructions let go (sym_code_release()): the view never
 * holds every procedure's instructions at once.  Objects with DWARF keep
 * theirs for name_sites() (model.c), which resolves the instructions left
 * out after the sites, in the order that lookup errors stick in.
 */
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "build.h"
#include "symbolize/symbolize.h"

struct blockview {
	struct build *b;
	struct site *add;		/* the instructions made sites */
	size_t nadd, alloc_add;
	uint8_t *early;			/* per object: what resolving the
					 * instructions left out told */
	/* The procedures kept for name_sites() (b->left_*). */
	const struct sym_code **codes;
	uint32_t *obj;
	unsigned char **marks;
	size_t n, alloc_codes, alloc_obj, alloc_marks;
};

int report_block_wanted(const struct sym_code *code, const unsigned char *mark,
			size_t x)
{
	return !mark || mark[code->insns[x].block];
}

int report_block_marks(const struct build *b, const struct sym_code *c,
		       uint32_t obj, unsigned char **out)
{
	size_t lo = 0, hi = b->nsites, i;
	unsigned char *mark = calloc(c->nblocks ? c->nblocks : 1, 1);

	*out = mark;
	if (!mark)
		return -PROF_ENOMEM;
	/* The first site at or after the procedure's start. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct site *s = &b->sites[mid];

		if (s->obj < obj || (s->obj == obj && s->offset < c->start))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < b->nsites && b->sites[i].obj == obj &&
		     b->sites[i].offset < c->end; i++) {
		size_t a = report_insn_at(c, b->sites[i].offset);

		if (a != SIZE_MAX)
			mark[c->insns[a].block] = 1;
	}
	return 0;
}

int report_obj_without_dwarf(const struct build *b, uint32_t obj)
{
	const struct profile *p = b->r->prof;
	struct sym_object so = report_sym_obj(p, obj);
	struct sym_object_info info;

	return p->objects[obj].kind == PROF_OBJ_FILE &&
	       !sym_object_info(b->sym, &so, &info) && !info.dwarf;
}

int report_blockview_start(struct build *b, struct blockview **out)
{
	struct blockview *v = calloc(1, sizeof(*v));

	*out = v;
	if (!v)
		return -PROF_ENOMEM;
	v->b = b;
	v->early = calloc(b->r->prof->nobjects + 1, 1);
	return v->early ? 0 : -PROF_ENOMEM;
}

/* The sites of code in sites[first .. end): their instructions (an
 * address inside one, or in bytes that did not decode, has none). */
static void attach_run(struct blockview *v, const struct sym_code *code,
		       size_t first, size_t end)
{
	size_t i, k;

	for (i = first; i < end; i++) {
		struct site *s = &v->b->sites[i];

		if (s->code != code)
			continue;
		k = report_insn_at(code, s->offset);
		if (k != SIZE_MAX)
			report_site_attach(s, code, k);
		else
			s->code = NULL;
	}
}

/* The instructions of the blocks mark wants, sites of object obj. */
static int add_wanted(struct blockview *v, const struct sym_code *code,
		      uint32_t obj, const unsigned char *mark)
{
	size_t i;

	for (i = 0; i < code->ninsns; i++) {
		struct site *s;

		if (!report_block_wanted(code, mark, i))
			continue;
		if (ALLOC_GROW(v->add, v->nadd + 1, v->alloc_add))
			return -PROF_ENOMEM;
		s = &v->add[v->nadd++];
		memset(s, 0, sizeof(*s));
		s->obj = obj;
		s->offset = code->insns[i].offset;
		report_site_attach(s, code, i);
	}
	return 0;
}

/*
 * The instructions left out of an object without DWARF, resolved for
 * its note: there resolving finds no error the sites do not, and the
 * note changes with nothing more once some code there is anonymous.
 */
static void resolve_left(struct blockview *v, const struct sym_code *code,
			 uint32_t obj, const unsigned char *mark)
{
	size_t i;

	for (i = 0; i < code->ninsns && !(v->early[obj] & OBJ_ANONYMOUS);
	     i++) {
		struct sym_result res;

		if (report_block_wanted(code, mark, i))
			continue;
		report_resolve(v->b->r->prof, v->b->sym, obj,
			       code->insns[i].offset, &res, v->early);
	}
}

/* Keep code and its marks for name_sites(). */
static int keep_left(struct blockview *v, const struct sym_code *code,
		     uint32_t obj, unsigned char *mark)
{
	if (ALLOC_GROW(v->codes, v->n + 1, v->alloc_codes) ||
	    ALLOC_GROW(v->obj, v->n + 1, v->alloc_obj) ||
	    ALLOC_GROW(v->marks, v->n + 1, v->alloc_marks))
		return -PROF_ENOMEM;
	v->codes[v->n] = code;
	v->obj[v->n] = obj;
	v->marks[v->n++] = mark;
	return 0;
}

int report_blockview_code(struct blockview *v, const struct sym_code *code,
			  uint32_t obj, size_t first, size_t end)
{
	struct build *b = v->b;
	unsigned char *mark;
	int err = report_block_marks(b, code, obj, &mark);

	if (!err)
		err = add_wanted(v, code, obj, mark);
	attach_run(v, code, first, end);
	if (err || !report_obj_without_dwarf(b, obj)) {
		if (!err)
			err = keep_left(v, code, obj, mark);
		if (err)
			free(mark);
		return err;
	}
	resolve_left(v, code, obj, mark);
	free(mark);
	sym_code_release(b->sym, code);
	return 0;
}

/* Whether sites[0 .. n) are in order, each (object, offset) once. */
static int sites_sorted(const struct site *sites, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (report_site_cmp(&sites[i - 1], &sites[i]) >= 0)
			return 0;
	return 1;
}

/* b->sites and v->add merged, each (object, offset) once: the sampled
 * site kept where both have it. */
static int merge(struct blockview *v)
{
	struct build *b = v->b;
	struct site *m = malloc((b->nsites + v->nadd + 1) * sizeof(*m));
	size_t i = 0, k = 0, n = 0;

	if (!m)
		return -PROF_ENOMEM;
	while (i < b->nsites || k < v->nadd) {
		int c = i == b->nsites ? 1 : k == v->nadd ? -1 :
			report_site_cmp(&b->sites[i], &v->add[k]);

		m[n++] = c <= 0 ? b->sites[i] : v->add[k];
		i += c <= 0;
		k += c >= 0;
	}
	free(b->sites);
	b->alloc_sites = b->nsites + v->nadd + 1;	/* m's room */
	b->sites = m;
	b->nsites = n;
	return 0;
}

int report_blockview_finish(struct blockview *v, int err)
{
	struct build *b;

	if (!v)
		return err;
	b = v->b;
	b->state_early = v->early;
	b->left_codes = v->codes;
	b->left_obj = v->obj;
	b->left_marks = v->marks;
	b->nleft = v->n;
	if (err) {
		/* as it is */
	} else if (sites_sorted(v->add, v->nadd)) {
		err = merge(v);
	} else if (ALLOC_GROW(b->sites, b->nsites + v->nadd, b->alloc_sites)) {
		err = -PROF_ENOMEM;
	} else {
		memcpy(b->sites + b->nsites, v->add, v->nadd * sizeof(*v->add));
		b->nsites += v->nadd;
		report_sites_sort_unique(b->sites, &b->nsites);
	}
	free(v->add);
	free(v);
	return err;
}
