/* SPDX-License-Identifier: MIT */
/*
 * Sites, the unit rows are grouped from (build.h): finding one, the
 * code it is in, and its identity in the view (struct rowkey), hashed
 * with common/util/hash.h.  The lowest of the files of report_build: it
 * calls none of them.
 */
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "common/util/hash.h"
#include "build.h"
#include "symbolize/symbolize.h"

int report_same_str(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

int report_cmp_str0(const char *a, const char *b)
{
	if (a == b)
		return 0;
	return strcmp(a ? a : "", b ? b : "");
}

int report_site_cmp(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

struct site *report_site_find(struct site *sites, size_t n, uint32_t obj,
			      uint64_t offset)
{
	struct site key = { .obj = obj, .offset = offset };

	return bsearch(&key, sites, n, sizeof(*sites), report_site_cmp);
}

/* The index of the instruction of c that starts at offset, or SIZE_MAX
 * (an offset inside an instruction, or in bytes that did not decode). */
size_t report_insn_at(const struct sym_code *c, uint64_t offset)
{
	size_t lo = 0, hi = c->ninsns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->insns[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->ninsns && c->insns[lo].offset == offset ? lo : SIZE_MAX;
}

/* The profile's object kinds are the symbolizer's, value for value: the
 * cast below relies on it. */
_Static_assert(PROF_OBJ_FILE == (int)SYM_OBJ_FILE &&
	       PROF_OBJ_VDSO == (int)SYM_OBJ_VDSO &&
	       PROF_OBJ_ANON == (int)SYM_OBJ_ANON &&
	       PROF_OBJ_KERNEL == (int)SYM_OBJ_KERNEL &&
	       PROF_OBJ_MODULE == (int)SYM_OBJ_MODULE &&
	       PROF_OBJ_JIT == (int)SYM_OBJ_JIT &&
	       PROF_OBJ_PYTHON == (int)SYM_OBJ_PYTHON &&
	       PROF_PY_LINE_BITS == SYM_PY_LINE_BITS,
	       "enum prof_obj_kind and enum sym_obj_kind differ");

struct sym_object report_sym_obj(const struct profile *p, uint32_t obj)
{
	const struct prof_object *o = &p->objects[obj];
	struct sym_object so = {
		.kind = (enum sym_obj_kind)o->kind,
		.path = o->path,
		.build_id = o->build_id_len ? o->build_id : NULL,
		.build_id_len = o->build_id_len,
		.no_path = !!(o->id.flags & PROF_ID_UNREAD),
	};

	return so;
}

int report_sites_sort_unique(struct site *sites, size_t *n)
{
	size_t i, k = 1;

	if (*n > 1)
		qsort(sites, *n, sizeof(*sites), report_site_cmp);
	/* Unique (object, offset): counts of several statistics share one. */
	if (*n) {
		for (i = 1; i < *n; i++)
			if (report_site_cmp(&sites[i], &sites[k - 1]))
				sites[k++] = sites[i];
		*n = k;
	}
	return 0;
}

void report_site_attach(struct site *s, const struct sym_code *code,
			size_t insn)
{
	const struct sym_insn *in = &code->insns[insn];

	s->code = code;
	s->insn = (uint32_t)insn;
	s->block = in->block;
	s->len = in->len;
	s->block_start = !insn || code->insns[insn - 1].block != in->block;
}

/* The code of site i's procedure: its predecessor's when it is in the
 * same one (sites are sorted), else from the symbolizer. */
const struct sym_code *report_site_code(const struct profile *p,
					struct symbolizer *sym,
					const struct site *sites, size_t i,
					int extent_only)
{
	struct sym_object so = report_sym_obj(p, sites[i].obj);
	const struct sym_code *code = NULL;
	int err;

	if (i && sites[i - 1].code && sites[i].obj == sites[i - 1].obj &&
	    sites[i].offset >= sites[i - 1].code->start &&
	    sites[i].offset < sites[i - 1].code->end)
		return sites[i - 1].code;
	err = extent_only ? sym_code_extent(sym, &so, sites[i].offset, &code)
			  : sym_code(sym, &so, sites[i].offset, &code);
	return err == SYM_OK ? code : NULL;
}

/* The outer (out-of-line) procedure of a site. */
const char *report_site_outer(const struct site *s)
{
	if (s->code && s->code->procedure)
		return s->code->procedure;
	return s->inl ? s->inl : s->proc;
}

void report_site_key(const struct report *r, const struct site *s,
		     struct rowkey *k)
{
	enum report_view v = r->opt.view;

	memset(k, 0, sizeof(*k));
	k->obj = s->obj;
	switch (v) {
	case REPORT_PROCEDURES:
		if (r->opt.inline_split) {
			k->proc = s->proc;
			k->inl = s->inl;
		} else {
			k->proc = report_site_outer(s);
		}
		/* Two procedures of one name (instances of a Rust generic,
		 * C++ overloads: the names have no parameters) are two
		 * rows, as two symbols are in perf. */
		k->a = s->start;
		break;
	case REPORT_LINES:
	case REPORT_HEAVY:
		k->proc = s->proc;
		k->inl = s->inl;
		k->file = s->file;
		k->line = s->line;
		break;
	case REPORT_BLOCKS:
		if (s->code) {
			k->a = s->code->start;
			k->b = s->block;
		} else {
			k->a = s->offset;
			k->b = UINT64_MAX;
		}
		break;
	case REPORT_ASM:
	case REPORT_BUCKETS:
		if (s->code && r->opt.stride >= 0) {
			k->a = s->code->start;
			k->b = r->opt.stride ? s->insn / (uint64_t)r->opt.stride
					     : 0;
		} else {
			k->a = s->offset;
			k->b = UINT64_MAX;
		}
		break;
	}
}

/* A NULL string hashes apart from "" (the separator byte). */
static uint64_t str_hash(uint64_t h, const char *s)
{
	return hash_mem(hash_str(h, s), s ? "\1" : "\2", 1);
}

uint64_t report_key_hash(const struct rowkey *k)
{
	uint64_t h = hash_mem(HASH_STR_SEED, &k->obj, sizeof(k->obj));

	h = str_hash(str_hash(str_hash(h, k->proc), k->inl), k->file);
	h = hash_mix64(h ^ k->line);
	h = hash_mix64(h ^ k->a);
	return hash_mix64(h ^ k->b);
}

/* Keys in some total order, for counting distinct ones. */
int report_key_cmp(const void *a, const void *b)
{
	const struct rowkey *x = a, *y = b;
	int c;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if ((c = report_cmp_str0(x->proc, y->proc)) ||
	    (c = report_cmp_str0(x->inl, y->inl)))
		return c;
	return report_cmp_str0(x->file, y->file);
}

int report_key_eq(const struct rowkey *x, const struct rowkey *y)
{
	return x->obj == y->obj && report_same_str(x->proc, y->proc) &&
	       report_same_str(x->inl, y->inl) &&
	       report_same_str(x->file, y->file) &&
	       x->line == y->line && x->a == y->a && x->b == y->b;
}
