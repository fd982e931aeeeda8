// SPDX-License-Identifier: MIT
/*
 * A CU's functions: each subprogram and inlined instance with its name
 * (C++ qualified and demangled), its call site and its address ranges,
 * and the ranges flattened into segments labelled with the function
 * addr2line would name there (the rules: dwarf.c; the layout:
 * dwarf_int.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_int.h"

static int add_range(struct dwinfo *c, uint64_t lo, uint64_t hi, int32_t fn)
{
	struct frange *r;

	if (hi <= lo)
		return SYM_OK;
	if (ALLOC_GROW(c->ranges, c->nranges + 1, c->aranges))
		return SYM_ENOMEM;
	r = &c->ranges[c->nranges++];
	r->lo = lo;
	r->hi = hi;
	r->fn = fn;
	return SYM_OK;
}

static int ranges_v5(struct dwinfo *c, Dwarf_Attribute attr, int32_t fn,
		     bool *any)
{
	Dwarf_Error err = NULL;
	Dwarf_Half form;
	Dwarf_Unsigned val, count, goff, i;
	Dwarf_Rnglists_Head head;
	int ret = SYM_OK;

	if (dwarf_whatform(attr, &form, &err) != DW_DLV_OK)
		goto bad;
	if (form == DW_FORM_rnglistx) {
		if (dwarf_formudata(attr, &val, &err) != DW_DLV_OK)
			goto bad;
	} else if (dwarf_global_formref(attr, &val, &err) != DW_DLV_OK) {
		goto bad;
	}
	if (dwarf_rnglists_get_rle_head(attr, form, val, &head, &count, &goff,
					&err) != DW_DLV_OK)
		goto bad;
	for (i = 0; i < count && ret == SYM_OK; i++) {
		unsigned len, code;
		Dwarf_Unsigned raw1, raw2, lo, hi;
		Dwarf_Bool unavail = 0;

		if (dwarf_get_rnglists_entry_fields_a(head, i, &len, &code,
						      &raw1, &raw2, &unavail,
						      &lo, &hi, &err) !=
		    DW_DLV_OK) {
			drop_error(c, &err);
			break;
		}
		if (code == DW_RLE_end_of_list)
			break;
		if (code == DW_RLE_base_address ||
		    code == DW_RLE_base_addressx || unavail)
			continue;
		if (hi > lo)
			*any = true;
		ret = add_range(c, lo, hi, fn);
	}
	dwarf_dealloc_rnglists_head(head);
	return ret;
bad:
	drop_error(c, &err);
	return SYM_OK;
}

static int ranges_v4(struct dwinfo *c, Dwarf_Die die, Dwarf_Attribute attr,
		     int32_t fn, bool *any)
{
	Dwarf_Error err = NULL;
	Dwarf_Off off, realoff;
	Dwarf_Unsigned uoff, bytes;
	Dwarf_Ranges *rv;
	Dwarf_Signed n, i;
	Dwarf_Addr base = c->cu_base;
	int ret = SYM_OK;

	if (dwarf_formudata(attr, &uoff, &err) == DW_DLV_OK) {
		off = uoff;
	} else {
		drop_error(c, &err);
		if (dwarf_global_formref(attr, &off, &err) != DW_DLV_OK) {
			drop_error(c, &err);
			return SYM_OK;
		}
	}
	if (dwarf_get_ranges_b(c->dbg, off, die, &realoff, &rv, &n, &bytes,
			       &err) != DW_DLV_OK) {
		drop_error(c, &err);
		return SYM_OK;
	}
	for (i = 0; i < n && ret == SYM_OK; i++) {
		if (rv[i].dwr_type == DW_RANGES_END)
			break;
		if (rv[i].dwr_type == DW_RANGES_ADDRESS_SELECTION) {
			base = rv[i].dwr_addr2;
			continue;
		}
		if (rv[i].dwr_addr2 > rv[i].dwr_addr1)
			*any = true;
		ret = add_range(c, base + rv[i].dwr_addr1,
				base + rv[i].dwr_addr2, fn);
	}
	dwarf_ranges_dealloc(c->dbg, rv, n);
	return ret;
}

/* The DW_AT_ranges of a DIE, recorded for function fn. */
int dwinfo_attr_ranges(struct dwinfo *c, Dwarf_Die die, int32_t fn,
		       bool *any)
{
	Dwarf_Error err = NULL;
	Dwarf_Attribute attr;
	int ret;

	*any = false;
	if (dwarf_attr(die, DW_AT_ranges, &attr, &err) != DW_DLV_OK) {
		drop_error(c, &err);
		return SYM_OK;
	}
	if (c->version >= 5)
		ret = ranges_v5(c, attr, fn, any);
	else
		ret = ranges_v4(c, die, attr, fn, any);
	dwarf_dealloc_attribute(attr);
	return ret;
}

/*
 * Ranges of a DIE, recorded for function fn.  *any tells whether there
 * was at least one non-empty range.
 */
int dwinfo_die_ranges(struct dwinfo *c, Dwarf_Die die, int32_t fn,
		      bool *any)
{
	Dwarf_Error err = NULL;
	Dwarf_Addr lo, hi;
	Dwarf_Half form;
	enum Dwarf_Form_Class cls;

	*any = false;
	if (dwarf_lowpc(die, &lo, &err) == DW_DLV_OK) {
		if (dwarf_highpc_b(die, &hi, &form, &cls, &err) !=
		    DW_DLV_OK) {
			drop_error(c, &err);
			return SYM_OK;
		}
		if (cls == DW_FORM_CLASS_CONSTANT)
			hi += lo;
		*any = hi > lo;
		return add_range(c, lo, hi, fn);
	}
	drop_error(c, &err);
	return dwinfo_attr_ranges(c, die, fn, any);
}

static bool attr_udata(struct dwinfo *c, Dwarf_Die die, Dwarf_Half at,
		       Dwarf_Unsigned *val)
{
	Dwarf_Error err = NULL;
	Dwarf_Attribute attr;
	int ret;

	if (dwarf_attr(die, at, &attr, &err) != DW_DLV_OK) {
		drop_error(c, &err);
		return false;
	}
	ret = dwarf_formudata(attr, val, &err);
	drop_error(c, &err);
	if (ret == DW_DLV_ERROR) {
		/* libdwarf refuses DW_FORM_implicit_const here. */
		Dwarf_Signed sv;

		ret = dwarf_formsdata(attr, &sv, &err);
		drop_error(c, &err);
		if (ret == DW_DLV_OK && sv < 0)
			ret = DW_DLV_NO_ENTRY;
		*val = (Dwarf_Unsigned)sv;
	}
	dwarf_dealloc_attribute(attr);
	return ret == DW_DLV_OK;
}

static bool attr_ref(struct dwinfo *c, Dwarf_Die die, Dwarf_Half at,
		     Dwarf_Off *off)
{
	Dwarf_Error err = NULL;
	Dwarf_Attribute attr;
	int ret;

	if (dwarf_attr(die, at, &attr, &err) != DW_DLV_OK) {
		drop_error(c, &err);
		return false;
	}
	ret = dwarf_global_formref(attr, off, &err);
	drop_error(c, &err);
	dwarf_dealloc_attribute(attr);
	return ret == DW_DLV_OK;
}

static size_t nc_hash(Dwarf_Off off, size_t mask)
{
	return (size_t)((off * 0x9e3779b97f4a7c15ull) >> 20) & mask;
}

static const char **nc_find(struct namecache *nc, Dwarf_Off off, bool *found)
{
	size_t mask = nc->nslots - 1, i;

	for (i = nc_hash(off, mask);; i = (i + 1) & mask) {
		if (nc->keys[i] == off + 1) {
			*found = true;
			return &nc->vals[i];
		}
		if (!nc->keys[i]) {
			*found = false;
			return &nc->vals[i];
		}
	}
}

static int nc_put(struct namecache *nc, Dwarf_Off off, const char *name)
{
	const char **slot;
	bool found;

	if ((nc->nused + 1) * 2 > nc->nslots) {
		struct namecache big;
		size_t i;

		big.nslots = nc->nslots ? nc->nslots * 2 : 1024;
		big.nused = nc->nused;
		big.keys = calloc(big.nslots, sizeof(*big.keys));
		big.vals = calloc(big.nslots, sizeof(*big.vals));
		if (!big.keys || !big.vals) {
			free(big.keys);
			free(big.vals);
			return SYM_ENOMEM;
		}
		for (i = 0; i < nc->nslots; i++) {
			if (!nc->keys[i])
				continue;
			slot = nc_find(&big, nc->keys[i] - 1, &found);
			big.keys[slot - big.vals] = nc->keys[i];
			*slot = nc->vals[i];
		}
		free(nc->keys);
		free(nc->vals);
		*nc = big;
	}
	slot = nc_find(nc, off, &found);
	if (!found) {
		nc->keys[slot - nc->vals] = off + 1;
		nc->nused++;
	}
	*slot = name;
	return SYM_OK;
}

/* Where a DIE's linkage name is: DWARF 4+, and gcc's older spelling. */
static const Dwarf_Half linkage_ats[] = {
	DW_AT_linkage_name, DW_AT_MIPS_linkage_name,
};

/* The DIE's linkage name (C++: mangled), demangled; NULL if none. */
static const char *die_linkage_name(struct dwinfo *c, Dwarf_Die die)
{
	Dwarf_Error err = NULL;
	Dwarf_Attribute attr;
	const char *s = NULL;
	char *str;
	size_t i;

	for (i = 0; i < sizeof(linkage_ats) / sizeof(linkage_ats[0]) && !s;
	     i++) {
		if (dwarf_attr(die, linkage_ats[i], &attr, &err) != DW_DLV_OK) {
			drop_error(c, &err);
			continue;
		}
		if (dwarf_formstring(attr, &str, &err) == DW_DLV_OK)
			s = sym_demangle(c->sp, str);
		else
			drop_error(c, &err);
		dwarf_dealloc_attribute(attr);
	}
	return s;
}

/*
 * The DIE's name: its linkage name demangled (C++: qualified, as the
 * symbol table's names are shown), else DW_AT_name;
 * else that of what its DW_AT_abstract_origin or DW_AT_specification
 * points to (possibly in another CU), recursively.
 */
static const char *die_name(struct dwinfo *c, Dwarf_Die die, int depth)
{
	static const Dwarf_Half refs[] = {
		DW_AT_abstract_origin, DW_AT_specification,
	};
	Dwarf_Error err = NULL;
	char *name;
	const char *linkage;
	size_t i;

	if ((linkage = die_linkage_name(c, die)) != NULL)
		return linkage;
	if (depth == 0 && c->nc.nslots) {
		/* Qualified by qualify_scope, for internal-linkage C++. */
		Dwarf_Off own;
		const char **slot;
		bool found = false;

		if (dwarf_dieoffset(die, &own, &err) == DW_DLV_OK) {
			slot = nc_find(&c->nc, own, &found);
			if (found && *slot)
				return *slot;
		} else {
			drop_error(c, &err);
		}
	}
	if (dwarf_diename(die, &name, &err) == DW_DLV_OK) {
		const char *s = strpool_add(c->sp, name);

		if (!s)
			c->oom = true;
		return s;
	}
	drop_error(c, &err);
	if (depth > 8)
		return NULL;
	for (i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		Dwarf_Off off;
		Dwarf_Die target;
		const char *s, **slot;
		bool found = false;

		if (!attr_ref(c, die, refs[i], &off))
			continue;
		if (c->nc.nslots) {
			slot = nc_find(&c->nc, off, &found);
			if (found)
				return *slot;
		}
		if (dwarf_offdie_b(c->dbg, off, 1, &target, &err) !=
		    DW_DLV_OK) {
			drop_error(c, &err);
			continue;
		}
		s = die_name(c, target, depth + 1);
		dwarf_dealloc_die(target);
		if (nc_put(&c->nc, off, s))
			c->oom = true;
		if (s)
			return s;
	}
	return NULL;
}

static bool descend_tag(Dwarf_Half tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_entry_point:
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_with_stmt:
	case DW_TAG_common_block:
		return true;
	default:
		return false;
	}
}

static int walk(struct dwinfo *c, Dwarf_Die first, int32_t parent);

static int visit(struct dwinfo *c, Dwarf_Die die, int32_t parent)
{
	Dwarf_Error err = NULL;
	Dwarf_Half tag;
	Dwarf_Die child;
	int32_t fn = parent;
	int ret;

	if (dwarf_tag(die, &tag, &err) != DW_DLV_OK) {
		drop_error(c, &err);
		return SYM_OK;
	}
	if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	    tag == DW_TAG_entry_point) {
		int32_t idx = (int32_t)c->nfuncs;
		size_t nr = c->nranges;
		bool any;

		ret = dwinfo_die_ranges(c, die, idx, &any);
		if (ret)
			return ret;
		if (any) {
			struct dwfunc *f;
			Dwarf_Unsigned v;
			size_t i;

			if (ALLOC_GROW(c->funcs, c->nfuncs + 1, c->afuncs))
				return SYM_ENOMEM;
			f = &c->funcs[c->nfuncs++];
			memset(f, 0, sizeof(*f));
			f->name = die_name(c, die, 0);
			f->parent = parent;
			f->inlined = tag == DW_TAG_inlined_subroutine;
			f->entry = UINT64_MAX;
			for (i = nr; i < c->nranges; i++)
				if (c->ranges[i].lo < f->entry)
					f->entry = c->ranges[i].lo;
			if (f->inlined) {
				if (attr_udata(c, die, DW_AT_call_file, &v))
					f->call_file = dwinfo_cu_file(c, v);
				if (attr_udata(c, die, DW_AT_call_line, &v) &&
				    v <= UINT32_MAX)
					f->call_line = (uint32_t)v;
			}
			fn = idx;
		} else {
			c->nranges = nr;
		}
	} else if (!descend_tag(tag)) {
		return SYM_OK;
	}
	if (c->oom)
		return SYM_ENOMEM;
	ret = dwarf_child(die, &child, &err);
	if (ret == DW_DLV_ERROR)
		drop_error(c, &err);
	if (ret != DW_DLV_OK)
		return SYM_OK;
	return walk(c, child, fn);
}

/* Visit first and its siblings; consumes first. */
/* The DIE after die (NULL at the end); die is freed. */
static Dwarf_Die next_sibling(struct dwinfo *c, Dwarf_Die die)
{
	Dwarf_Error err = NULL;
	Dwarf_Die next = NULL;

	if (dwarf_siblingof_b(c->dbg, die, 1, &next, &err) == DW_DLV_ERROR)
		drop_error(c, &err);
	dwarf_dealloc_die(die);
	return next;
}

static int walk(struct dwinfo *c, Dwarf_Die first, int32_t parent)
{
	Dwarf_Die die = first;
	int ret = SYM_OK;

	while (die) {
		ret = visit(c, die, parent);
		if (ret)
			break;
		die = next_sibling(c, die);
	}
	if (die)
		dwarf_dealloc_die(die);
	return ret;
}

static bool is_cplusplus(struct dwinfo *c, Dwarf_Die cu)
{
	Dwarf_Unsigned lang;

	return attr_udata(c, cu, DW_AT_language, &lang) &&
	       (lang == DW_LANG_C_plus_plus ||
		lang == DW_LANG_C_plus_plus_03 ||
		lang == DW_LANG_C_plus_plus_11 ||
		lang == DW_LANG_C_plus_plus_14);
}

static bool has_linkage_name(struct dwinfo *c, Dwarf_Die die)
{
	size_t i;

	for (i = 0; i < sizeof(linkage_ats) / sizeof(linkage_ats[0]); i++) {
		Dwarf_Error err = NULL;
		Dwarf_Bool has = 0;

		if (dwarf_hasattr(die, linkage_ats[i], &has, &err) !=
		    DW_DLV_OK)
			drop_error(c, &err);
		else if (has)
			return true;
	}
	return false;
}

/*
 * C++: gcc gives no linkage name to internal-linkage functions (static,
 * in an anonymous namespace), so their DW_AT_name is bare.  Before the
 * CU's functions are named, each function DIE in a namespace or class
 * that has no linkage name gets its qualified name in the name cache
 * ("ns::helper", "(anonymous namespace)::Foo::bar"), where die_name finds
 * it for the DIE itself and for what refers to it.
 */
static void qualify_scope(struct dwinfo *c, Dwarf_Die first,
			  const char *prefix, int depth)
{
	Dwarf_Error err = NULL;
	Dwarf_Die die = first, child;
	Dwarf_Half tag;
	Dwarf_Off off;
	char *name, *q;

	while (die && !c->oom) {
		if (dwarf_tag(die, &tag, &err) != DW_DLV_OK) {
			drop_error(c, &err);
			tag = 0;
		}
		if (dwarf_diename(die, &name, &err) != DW_DLV_OK) {
			drop_error(c, &err);
			name = NULL;
		}
		if (!name && tag == DW_TAG_namespace)
			name = (char *)"(anonymous namespace)";
		q = NULL;
		if (name && (tag == DW_TAG_namespace ||
			     tag == DW_TAG_class_type ||
			     tag == DW_TAG_structure_type ||
			     tag == DW_TAG_union_type) && depth < 16 &&
		    asprintf(&q, "%s%s::", prefix, name) >= 0) {
			if (dwarf_child(die, &child, &err) == DW_DLV_OK)
				qualify_scope(c, child, q, depth + 1);
			else
				drop_error(c, &err);
		} else if (name && *prefix && tag == DW_TAG_subprogram &&
			   !has_linkage_name(c, die) &&
			   dwarf_dieoffset(die, &off, &err) == DW_DLV_OK &&
			   asprintf(&q, "%s%s", prefix, name) >= 0) {
			const char *pooled = strpool_add(c->sp, q);

			if (!pooled || nc_put(&c->nc, off, pooled))
				c->oom = true;
		} else {
			drop_error(c, &err);
		}
		free(q);
		die = next_sibling(c, die);
	}
	if (die)
		dwarf_dealloc_die(die);
}

int dwinfo_funcs_read(struct dwinfo *c, Dwarf_Die cu)
{
	Dwarf_Error err = NULL;
	Dwarf_Die child;
	int ret;

	if (is_cplusplus(c, cu)) {
		ret = dwarf_child(cu, &child, &err);
		if (ret == DW_DLV_OK)
			qualify_scope(c, child, "", 0);
		else if (ret == DW_DLV_ERROR)
			drop_error(c, &err);
		if (c->oom)
			return SYM_ENOMEM;
	}
	ret = dwarf_child(cu, &child, &err);
	if (ret == DW_DLV_ERROR)
		drop_error(c, &err);
	if (ret != DW_DLV_OK)
		return SYM_OK;
	return walk(c, child, -1);
}

static int frange_cmp(const void *a, const void *b)
{
	const struct frange *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* Heap order: shortest range first, then the later DIE. */
static bool heap_better(const struct frange *r, int32_t a, int32_t b)
{
	uint64_t la = r[a].hi - r[a].lo, lb = r[b].hi - r[b].lo;

	if (la != lb)
		return la < lb;
	return r[a].fn > r[b].fn;
}

static void heap_push(int32_t *h, size_t *n, const struct frange *r,
		      int32_t x)
{
	size_t i = (*n)++;

	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!heap_better(r, x, h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

static void heap_pop(int32_t *h, size_t *n, const struct frange *r)
{
	int32_t x = h[--(*n)];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, best = l;

		if (l >= *n)
			break;
		if (l + 1 < *n && heap_better(r, h[l + 1], h[l]))
			best = l + 1;
		if (!heap_better(r, h[best], x))
			break;
		h[i] = h[best];
		i = best;
	}
	if (*n)
		h[i] = x;
}

static int emit_seg(struct dwinfo *c, uint64_t lo, int32_t fn,
		    uint64_t len)
{
	struct dwseg *last = c->nsegs ? &c->segs[c->nsegs - 1] : NULL;

	if (last && last->fn == fn && last->len == len)
		return SYM_OK;
	if (last && last->lo == lo) {
		last->fn = fn;
		last->len = len;
		return SYM_OK;
	}
	if (ALLOC_GROW(c->segs, c->nsegs + 1, c->asegs))
		return SYM_ENOMEM;
	c->segs[c->nsegs].lo = lo;
	c->segs[c->nsegs].len = len;
	c->segs[c->nsegs].fn = fn;
	c->nsegs++;
	return SYM_OK;
}

/*
 * Flatten the function ranges of the CU into disjoint segments, each
 * labelled with the best function (shortest containing range), by
 * sweeping over all range boundaries with a heap of the ranges open at
 * that point.
 */
int dwinfo_funcs_segs(struct dwinfo *c)
{
	struct frange *r = c->ranges;
	size_t n = c->nranges, nb = 0, i, j = 0, hn = 0;
	uint64_t *b;
	int32_t *heap;
	int ret = SYM_OK;

	if (!n)
		return SYM_OK;
	if (n > INT32_MAX)
		return SYM_ENOMEM;
	qsort(r, n, sizeof(*r), frange_cmp);
	b = malloc(2 * n * sizeof(*b));
	heap = malloc(n * sizeof(*heap));
	if (!b || !heap) {
		ret = SYM_ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		b[nb++] = r[i].lo;
		b[nb++] = r[i].hi;
	}
	qsort(b, nb, sizeof(*b), u64_cmp);
	for (i = 0; i < nb && ret == SYM_OK; i++) {
		uint64_t p = b[i];

		if (i && b[i - 1] == p)
			continue;
		while (j < n && r[j].lo <= p)
			heap_push(heap, &hn, r, (int32_t)j++);
		while (hn && r[heap[0]].hi <= p)
			heap_pop(heap, &hn, r);
		if (hn)
			ret = emit_seg(c, p, r[heap[0]].fn,
				       r[heap[0]].hi - r[heap[0]].lo);
		else
			ret = emit_seg(c, p, -1, 0);
	}
out:
	free(b);
	free(heap);
	return ret;
}
