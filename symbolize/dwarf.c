// SPDX-License-Identifier: MIT
/*
 * DWARF side of the symbolizer (libdwarf): every line table and every
 * subprogram / inlined-subroutine range of an object is read once into
 * sorted arrays, so that a query is two binary searches.
 *
 * The rules follow binutils' addr2line, which is our oracle:
 * - a line row covers [its address, next row's address); of several rows
 *   at one address the last one wins;
 * - the function at an address is the one whose *single* range containing
 *   the address is the shortest, ties going to the later DIE;
 * - an inlined instance's caller is the nearest enclosing subprogram or
 *   inlined instance in the DIE tree;
 * - file names are joined from comp_dir, the include directory and the
 *   file entry exactly like bfd's concat_filename().
 */
#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize_int.h"

/* A function range before it is flattened into segments. */
struct frange {
	uint64_t lo, hi;
	int32_t fn;
};

/* DIE offset -> resolved name, for abstract origins shared by inlines. */
struct namecache {
	Dwarf_Off *keys;	/* key + 1, so that 0 means empty */
	const char **vals;
	size_t nslots, nused;
};

struct dwctx {
	Dwarf_Debug dbg;
	struct dwinfo *dw;
	struct strpool *sp;
	struct namecache nc;
	struct frange *ranges;
	size_t nranges, aranges;
	/* Current CU. */
	Dwarf_Half version;
	Dwarf_Addr cu_base;
	Dwarf_Signed fbase, fend;	/* raw file indexes [fbase, fend) */
	size_t fglobal;			/* dw->files index of fbase */
	bool oom;
};

static void drop_error(struct dwctx *c, Dwarf_Error *err)
{
	if (*err) {
		dwarf_dealloc_error(c->dbg, *err);
		*err = NULL;
	}
}

static bool is_abs(const char *p)
{
	return p && p[0] == '/';
}

/* bfd's concat_filename(): comp_dir [/ include dir] / name. */
static const char *join_file(struct dwctx *c, const char *comp_dir,
			     const char *dir, const char *name)
{
	const char *dir_name = NULL;
	char *buf;
	const char *ret;
	size_t len;

	if (!name)
		return NULL;
	if (is_abs(name))
		return strpool_add(c->sp, name);
	if (!dir || !is_abs(dir))
		dir_name = comp_dir;
	if (!dir_name) {
		dir_name = dir;
		dir = NULL;
	}
	if (!dir_name)
		return strpool_add(c->sp, name);
	len = strlen(dir_name) + (dir ? strlen(dir) + 1 : 0) +
	      strlen(name) + 2;
	buf = malloc(len);
	if (!buf)
		return NULL;
	if (dir)
		snprintf(buf, len, "%s/%s/%s", dir_name, dir, name);
	else
		snprintf(buf, len, "%s/%s", dir_name, name);
	ret = strpool_add(c->sp, buf);
	free(buf);
	return ret;
}

static const char *cu_file(const struct dwctx *c, Dwarf_Unsigned raw)
{
	if ((Dwarf_Signed)raw < c->fbase || (Dwarf_Signed)raw >= c->fend)
		return NULL;
	return c->dw->files[c->fglobal + (size_t)(raw - (Dwarf_Unsigned)
						  c->fbase)];
}

static int load_files(struct dwctx *c, Dwarf_Line_Context lc)
{
	struct dwinfo *dw = c->dw;
	Dwarf_Error err = NULL;
	const char *comp_dir = NULL;
	Dwarf_Signed i, count;

	c->fbase = c->fend = 0;
	c->fglobal = dw->nfiles;
	if (dwarf_srclines_files_indexes(lc, &c->fbase, &count, &c->fend,
					 &err) != DW_DLV_OK) {
		drop_error(c, &err);
		c->fbase = c->fend = 0;
		return SYM_OK;
	}
	if (dwarf_srclines_comp_dir(lc, &comp_dir, &err) != DW_DLV_OK) {
		drop_error(c, &err);
		comp_dir = NULL;
	}
	if (c->fend < c->fbase)
		c->fend = c->fbase;
	if (ALLOC_GROW(dw->files, dw->nfiles + (size_t)(c->fend - c->fbase),
		     dw->afiles))
		return SYM_ENOMEM;
	for (i = c->fbase; i < c->fend; i++) {
		const char *name = NULL, *dir = NULL, *full = NULL;
		Dwarf_Unsigned dirindex = 0, mtime, flen;
		Dwarf_Form_Data16 *md5;

		if (dwarf_srclines_files_data_b(lc, i, &name, &dirindex,
						&mtime, &flen, &md5,
						&err) == DW_DLV_OK) {
			/*
			 * Raw directory index: DWARF 5 counts from 0 (the
			 * comp dir), DWARF 2-4 from 1 with 0 meaning the
			 * comp dir, which libdwarf reports as no entry.
			 */
			if (dwarf_srclines_include_dir_data(
				    lc, (Dwarf_Signed)dirindex, &dir,
				    &err) != DW_DLV_OK) {
				drop_error(c, &err);
				dir = NULL;
			}
			full = join_file(c, comp_dir, dir, name);
			if (!full && name)
				return SYM_ENOMEM;
		} else {
			drop_error(c, &err);
		}
		dw->files[dw->nfiles++] = full;
	}
	return SYM_OK;
}

static int load_lines(struct dwctx *c, Dwarf_Die cu)
{
	struct dwinfo *dw = c->dw;
	Dwarf_Error err = NULL;
	Dwarf_Unsigned lversion;
	Dwarf_Small tcount;
	Dwarf_Line_Context lc;
	Dwarf_Line *lines;
	Dwarf_Signed nlines, i;
	size_t first = dw->nrows;
	int ret;

	c->fbase = c->fend = 0;
	ret = dwarf_srclines_b(cu, &lversion, &tcount, &lc, &err);
	if (ret != DW_DLV_OK) {
		drop_error(c, &err);
		return SYM_OK;
	}
	ret = load_files(c, lc);
	if (ret)
		goto out;
	if (dwarf_srclines_from_linecontext(lc, &lines, &nlines, &err) !=
	    DW_DLV_OK) {
		drop_error(c, &err);
		goto out;
	}
	if (ALLOC_GROW(dw->rows, dw->nrows + (size_t)nlines, dw->arows)) {
		ret = SYM_ENOMEM;
		goto out;
	}
	for (i = 0; i < nlines; i++) {
		Dwarf_Addr addr;
		Dwarf_Unsigned lineno = 0, fileno = 0;
		Dwarf_Bool end = 0;
		struct lrow *r = &dw->rows[dw->nrows];

		if (dwarf_lineaddr(lines[i], &addr, &err) != DW_DLV_OK ||
		    dwarf_lineendsequence(lines[i], &end, &err) != DW_DLV_OK) {
			drop_error(c, &err);
			continue;
		}
		if (end) {
			/*
			 * Rows at the end address of their own sequence
			 * cover nothing; dropping them lets the end marker
			 * sort before rows of a sequence starting there.
			 */
			while (dw->nrows > first &&
			       dw->rows[dw->nrows - 1].addr == addr &&
			       dw->rows[dw->nrows - 1].file != LROW_END)
				dw->nrows--;
			r = &dw->rows[dw->nrows];
			r->addr = addr;
			r->file = LROW_END;
			r->line = 0;
			dw->nrows++;
			continue;
		}
		r->addr = addr;
		if (dwarf_lineno(lines[i], &lineno, &err) != DW_DLV_OK)
			drop_error(c, &err);
		if (dwarf_line_srcfileno(lines[i], &fileno, &err) !=
		    DW_DLV_OK)
			drop_error(c, &err);
		if ((Dwarf_Signed)fileno >= c->fbase &&
		    (Dwarf_Signed)fileno < c->fend)
			r->file = (uint32_t)(c->fglobal + (size_t)
					     (fileno - (Dwarf_Unsigned)
					      c->fbase));
		else
			r->file = LROW_END - 1;	/* unknown file */
		r->line = lineno > UINT32_MAX ? 0 : (uint32_t)lineno;
		dw->nrows++;
	}
out:
	dwarf_srclines_dealloc_b(lc);
	return ret;
}

static int add_range(struct dwctx *c, uint64_t lo, uint64_t hi, int32_t fn)
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

static int ranges_v5(struct dwctx *c, Dwarf_Attribute attr, int32_t fn,
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

static int ranges_v4(struct dwctx *c, Dwarf_Die die, Dwarf_Attribute attr,
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

/*
 * Ranges of a DIE, recorded for function fn.  *any tells whether there
 * was at least one non-empty range.
 */
static int die_ranges(struct dwctx *c, Dwarf_Die die, int32_t fn, bool *any)
{
	Dwarf_Error err = NULL;
	Dwarf_Addr lo, hi;
	Dwarf_Half form;
	enum Dwarf_Form_Class cls;
	Dwarf_Attribute attr;
	int ret;

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

static bool attr_udata(struct dwctx *c, Dwarf_Die die, Dwarf_Half at,
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

static bool attr_ref(struct dwctx *c, Dwarf_Die die, Dwarf_Half at,
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

/*
 * DW_AT_name of the DIE, else of what its DW_AT_abstract_origin or
 * DW_AT_specification points to (possibly in another CU), recursively.
 */
static const char *die_name(struct dwctx *c, Dwarf_Die die, int depth)
{
	static const Dwarf_Half refs[] = {
		DW_AT_abstract_origin, DW_AT_specification,
	};
	Dwarf_Error err = NULL;
	char *name;
	size_t i;

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

static int walk(struct dwctx *c, Dwarf_Die first, int32_t parent);

static int visit(struct dwctx *c, Dwarf_Die die, int32_t parent)
{
	struct dwinfo *dw = c->dw;
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
		int32_t idx = (int32_t)dw->nfuncs;
		size_t nr = c->nranges;
		bool any;

		ret = die_ranges(c, die, idx, &any);
		if (ret)
			return ret;
		if (any) {
			struct dwfunc *f;
			Dwarf_Unsigned v;
			size_t i;

			if (ALLOC_GROW(dw->funcs, dw->nfuncs + 1, dw->afuncs))
				return SYM_ENOMEM;
			f = &dw->funcs[dw->nfuncs++];
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
					f->call_file = cu_file(c, v);
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
static int walk(struct dwctx *c, Dwarf_Die first, int32_t parent)
{
	Dwarf_Error err = NULL;
	Dwarf_Die die = first, next;
	int ret = SYM_OK;

	while (die) {
		ret = visit(c, die, parent);
		if (ret)
			break;
		next = NULL;
		if (dwarf_siblingof_b(c->dbg, die, 1, &next, &err) ==
		    DW_DLV_ERROR)
			drop_error(c, &err);
		dwarf_dealloc_die(die);
		die = next;
	}
	if (die)
		dwarf_dealloc_die(die);
	return ret;
}

static int load_cu(struct dwctx *c, Dwarf_Die cu)
{
	Dwarf_Error err = NULL;
	Dwarf_Die child;
	Dwarf_Addr base;
	int ret;

	c->cu_base = 0;
	if (dwarf_lowpc(cu, &base, &err) == DW_DLV_OK)
		c->cu_base = base;
	drop_error(c, &err);
	ret = load_lines(c, cu);
	if (ret)
		return ret;
	ret = dwarf_child(cu, &child, &err);
	if (ret == DW_DLV_ERROR)
		drop_error(c, &err);
	if (ret != DW_DLV_OK)
		return SYM_OK;
	return walk(c, child, -1);
}

/* Stable merge sort: rows at one address must keep their order. */
static int lrow_before(const struct lrow *a, const struct lrow *b)
{
	if (a->addr != b->addr)
		return a->addr < b->addr;
	/* An end of sequence yields to a sequence starting there. */
	return a->file == LROW_END && b->file != LROW_END;
}

static void merge_sort(struct lrow *v, struct lrow *tmp, size_t n)
{
	size_t mid = n / 2, i = 0, j, k = 0;

	if (n < 2)
		return;
	merge_sort(v, tmp, mid);
	merge_sort(v + mid, tmp, n - mid);
	if (!lrow_before(&v[mid], &v[mid - 1]))
		return;		/* already in order, common case */
	j = mid;
	while (i < mid && j < n) {
		if (lrow_before(&v[j], &v[i]))
			tmp[k++] = v[j++];
		else
			tmp[k++] = v[i++];
	}
	while (i < mid)
		tmp[k++] = v[i++];
	memcpy(v, tmp, k * sizeof(*v));
}

static int finish_rows(struct dwinfo *dw)
{
	struct lrow *tmp;
	size_t i, n = 0;

	if (!dw->nrows)
		return SYM_OK;
	tmp = malloc(dw->nrows * sizeof(*tmp));
	if (!tmp)
		return SYM_ENOMEM;
	merge_sort(dw->rows, tmp, dw->nrows);
	free(tmp);
	/* Of rows at one address only the last is ever found. */
	for (i = 0; i < dw->nrows; i++) {
		if (n && dw->rows[n - 1].addr == dw->rows[i].addr)
			n--;
		dw->rows[n++] = dw->rows[i];
	}
	dw->nrows = n;
	return SYM_OK;
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

static int emit_seg(struct dwinfo *dw, uint64_t lo, int32_t fn)
{
	if (dw->nsegs && dw->segs[dw->nsegs - 1].fn == fn)
		return SYM_OK;
	if (dw->nsegs && dw->segs[dw->nsegs - 1].lo == lo) {
		dw->segs[dw->nsegs - 1].fn = fn;
		return SYM_OK;
	}
	if (ALLOC_GROW(dw->segs, dw->nsegs + 1, dw->asegs))
		return SYM_ENOMEM;
	dw->segs[dw->nsegs].lo = lo;
	dw->segs[dw->nsegs].fn = fn;
	dw->nsegs++;
	return SYM_OK;
}

/*
 * Flatten the function ranges into disjoint segments, each labelled with
 * the best function (shortest containing range), by sweeping over all
 * range boundaries with a heap of the ranges open at that point.
 */
static int build_segs(struct dwctx *c)
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
		ret = emit_seg(c->dw, p, hn ? r[heap[0]].fn : -1);
	}
out:
	free(b);
	free(heap);
	return ret;
}

int dwinfo_load(struct dwinfo *dw, struct strpool *sp, const char *path)
{
	struct dwctx c;
	Dwarf_Error err = NULL;
	Dwarf_Unsigned hlen, next, toff;
	Dwarf_Half ver, asz, lsz, esz, cutype;
	Dwarf_Off aoff;
	Dwarf_Sig8 sig;
	int ret, res;
	size_t ncu = 0, nbad = 0;

	memset(&c, 0, sizeof(c));
	c.dw = dw;
	c.sp = sp;
	res = dwarf_init_path(path, NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY,
			      NULL, NULL, &c.dbg, NULL, 0, NULL, &err);
	if (res != DW_DLV_OK) {
		if (res == DW_DLV_ERROR && err)
			dwarf_dealloc_error(c.dbg, err);
		/* No DWARF at all is not an error. */
		return res == DW_DLV_NO_ENTRY ? SYM_OK : SYM_EDWARF;
	}
	ret = SYM_OK;
	for (;;) {
		Dwarf_Die cu = NULL;

		res = dwarf_next_cu_header_d(c.dbg, 1, &hlen, &ver, &aoff,
					     &asz, &lsz, &esz, &sig, &toff,
					     &next, &cutype, &err);
		if (res == DW_DLV_ERROR) {
			drop_error(&c, &err);
			nbad++;
			break;	/* cannot find the next header either */
		}
		if (res != DW_DLV_OK)
			break;
		ncu++;
		if (dwarf_siblingof_b(c.dbg, NULL, 1, &cu, &err) !=
		    DW_DLV_OK) {
			drop_error(&c, &err);
			nbad++;
			continue;
		}
		c.version = ver;
		ret = load_cu(&c, cu);
		dwarf_dealloc_die(cu);
		if (ret)
			break;
	}
	if (ret == SYM_OK)
		ret = finish_rows(dw);
	if (ret == SYM_OK)
		ret = build_segs(&c);
	free(c.ranges);
	free(c.nc.keys);
	free(c.nc.vals);
	dwarf_finish(c.dbg, &err);
	if (ret == SYM_OK && nbad && nbad >= ncu)
		ret = SYM_EDWARF;
	return ret;
}

const struct lrow *dwinfo_line(const struct dwinfo *dw, uint64_t addr)
{
	size_t lo = 0, hi = dw->nrows;
	const struct lrow *r;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dw->rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	r = &dw->rows[lo - 1];
	/* The last row of a sequence only bounds it. */
	if (r->file == LROW_END || lo == dw->nrows)
		return NULL;
	return r;
}

int32_t dwinfo_func(const struct dwinfo *dw, uint64_t addr)
{
	size_t lo = 0, hi = dw->nsegs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dw->segs[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? dw->segs[lo - 1].fn : -1;
}

void dwinfo_release(struct dwinfo *dw)
{
	free(dw->rows);
	free(dw->files);
	free(dw->funcs);
	free(dw->segs);
	memset(dw, 0, sizeof(*dw));
}
