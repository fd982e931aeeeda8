// SPDX-License-Identifier: MIT
/*
 * DWARF side of the symbolizer (libdwarf), read lazily per compilation
 * unit.  Opening an object only builds an address -> CU index, from
 * .debug_aranges when the file has it, else from the address ranges of
 * each CU's top DIE.  The first query that falls into a CU reads that
 * CU's line table and its subprogram / inlined-subroutine ranges into
 * sorted arrays; later queries are binary searches.  A report that has a
 * few samples in a big library thus reads a few CUs of it, not all of its
 * debug information.  The libdwarf handle stays open until
 * dwinfo_free().
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
 * These rules are applied as if all CUs were one table: when several CUs
 * claim an address, each answers from its own tables and the answers are
 * merged in CU order (see dwinfo_lookup()).
 */
#include <fcntl.h>
#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util/regfile.h"
#include "symbolize_int.h"

/* Line table row; file == LROW_END marks the end of a sequence. */
#define LROW_END UINT32_MAX
struct lrow {
	uint64_t addr;
	uint32_t file;		/* index into the CU's files */
	uint32_t line;
};

/* [lo, next lo) is covered best by function fn (-1: none), whose range
 * containing it is len bytes long. */
struct dwseg {
	uint64_t lo;
	uint64_t len;
	int32_t fn;
};

/* A function range before it is flattened into segments. */
struct frange {
	uint64_t lo, hi;
	int32_t fn;
};

/* One compilation unit; its tables are read on first use. */
struct dwcu {
	Dwarf_Off off;		/* offset of the CU DIE in .debug_info */
	bool loaded;
	bool unknown;		/* no address ranges known: must be read */
	struct lrow *rows;
	size_t nrows;
	const char **files;
	size_t nfiles;
	struct dwfunc *funcs;
	size_t nfuncs;
	struct dwseg *segs;
	size_t nsegs;
};

/* [lo, hi) belongs to the CU whose DIE is at off (cus[cu]). */
struct cuivl {
	uint64_t lo, hi;
	Dwarf_Off off;
	size_t cu;
};

/* DIE offset -> resolved name, for abstract origins shared by inlines. */
struct namecache {
	Dwarf_Off *keys;	/* key + 1, so that 0 means empty */
	const char **vals;
	size_t nslots, nused;
};

struct dwinfo {
	Dwarf_Debug dbg;
	int fd;			/* open until dwinfo_free() */
	struct strpool *sp;
	struct namecache nc;	/* kept across CUs */

	/* The CU being read, built here and then copied to its dwcu. */
	struct frange *ranges;
	size_t nranges, aranges;
	struct lrow *rows;
	size_t nrows, arows;
	const char **files;
	size_t nfiles, afiles;
	struct dwfunc *funcs;
	size_t nfuncs, afuncs;
	struct dwseg *segs;
	size_t nsegs, asegs;
	Dwarf_Half version;
	Dwarf_Addr cu_base;
	Dwarf_Signed fbase, fend;	/* raw file indexes [fbase, fend) */
	bool oom;

	/* Address -> CU index. */
	struct dwcu *cus;	/* sorted by off up to nsorted */
	size_t ncus, acus, nsorted;
	struct cuivl *ivls;	/* sorted by lo unless dirty */
	size_t nivls, aivls;
	uint64_t *maxend;	/* prefix maximum of ivls[].hi */
	size_t *claims;		/* lookup: the CUs claiming an address */
	size_t aclaims;
	bool dirty;		/* ivls changed: sort and remap */
	bool complete;		/* cus has every CU of .debug_info */
	bool pending;		/* unknown CUs not read yet */
	int err;		/* sticky out-of-memory */
};

static void drop_error(struct dwinfo *c, Dwarf_Error *err)
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
static const char *join_file(struct dwinfo *c, const char *comp_dir,
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

static const char *cu_file(const struct dwinfo *c, Dwarf_Unsigned raw)
{
	if ((Dwarf_Signed)raw < c->fbase || (Dwarf_Signed)raw >= c->fend)
		return NULL;
	return c->files[(size_t)(raw - (Dwarf_Unsigned)c->fbase)];
}

static int load_files(struct dwinfo *c, Dwarf_Line_Context lc)
{
	Dwarf_Error err = NULL;
	const char *comp_dir = NULL;
	Dwarf_Signed i, count;

	c->fbase = c->fend = 0;
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
	if (ALLOC_GROW(c->files, c->nfiles + (size_t)(c->fend - c->fbase),
		       c->afiles))
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
		c->files[c->nfiles++] = full;
	}
	return SYM_OK;
}

static int load_lines(struct dwinfo *c, Dwarf_Die cu)
{
	Dwarf_Error err = NULL;
	Dwarf_Unsigned lversion;
	Dwarf_Small tcount;
	Dwarf_Line_Context lc;
	Dwarf_Line *lines;
	Dwarf_Signed nlines, i;
	size_t first = c->nrows;
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
	if (ALLOC_GROW(c->rows, c->nrows + (size_t)nlines, c->arows)) {
		ret = SYM_ENOMEM;
		goto out;
	}
	for (i = 0; i < nlines; i++) {
		Dwarf_Addr addr;
		Dwarf_Unsigned lineno = 0, fileno = 0;
		Dwarf_Bool end = 0;
		struct lrow *r = &c->rows[c->nrows];

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
			while (c->nrows > first &&
			       c->rows[c->nrows - 1].addr == addr &&
			       c->rows[c->nrows - 1].file != LROW_END)
				c->nrows--;
			r = &c->rows[c->nrows];
			r->addr = addr;
			r->file = LROW_END;
			r->line = 0;
			c->nrows++;
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
			r->file = (uint32_t)(fileno -
					     (Dwarf_Unsigned)c->fbase);
		else
			r->file = LROW_END - 1;	/* unknown file */
		r->line = lineno > UINT32_MAX ? 0 : (uint32_t)lineno;
		c->nrows++;
	}
out:
	dwarf_srclines_dealloc_b(lc);
	return ret;
}

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
static int attr_ranges(struct dwinfo *c, Dwarf_Die die, int32_t fn, bool *any)
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
static int die_ranges(struct dwinfo *c, Dwarf_Die die, int32_t fn, bool *any)
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
	return attr_ranges(c, die, fn, any);
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

		ret = die_ranges(c, die, idx, &any);
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

static int load_cu(struct dwinfo *c, Dwarf_Die cu)
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

static int finish_rows(struct dwinfo *c)
{
	struct lrow *tmp;
	size_t i, n = 0;

	if (!c->nrows)
		return SYM_OK;
	tmp = malloc(c->nrows * sizeof(*tmp));
	if (!tmp)
		return SYM_ENOMEM;
	merge_sort(c->rows, tmp, c->nrows);
	free(tmp);
	/* Of rows at one address only the last is ever found. */
	for (i = 0; i < c->nrows; i++) {
		if (n && c->rows[n - 1].addr == c->rows[i].addr)
			n--;
		c->rows[n++] = c->rows[i];
	}
	c->nrows = n;
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
static int build_segs(struct dwinfo *c)
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

/* ---- one CU ---- */

static void *memdup(const void *p, size_t size)
{
	void *d;

	if (!size)
		return NULL;
	d = malloc(size);
	if (d)
		memcpy(d, p, size);
	return d;
}

static void cu_clear(struct dwcu *cu)
{
	free(cu->rows);
	free(cu->files);
	free(cu->funcs);
	free(cu->segs);
	cu->rows = NULL;
	cu->files = NULL;
	cu->funcs = NULL;
	cu->segs = NULL;
	cu->nrows = cu->nfiles = cu->nfuncs = cu->nsegs = 0;
}

/* Move the tables just built to cu, at their exact size. */
static int cu_keep(struct dwinfo *c, struct dwcu *cu)
{
	cu->rows = memdup(c->rows, c->nrows * sizeof(*c->rows));
	cu->files = memdup(c->files, c->nfiles * sizeof(*c->files));
	cu->funcs = memdup(c->funcs, c->nfuncs * sizeof(*c->funcs));
	cu->segs = memdup(c->segs, c->nsegs * sizeof(*c->segs));
	cu->nrows = c->nrows;
	cu->nfiles = c->nfiles;
	cu->nfuncs = c->nfuncs;
	cu->nsegs = c->nsegs;
	if ((c->nrows && !cu->rows) || (c->nfiles && !cu->files) ||
	    (c->nfuncs && !cu->funcs) || (c->nsegs && !cu->segs)) {
		cu_clear(cu);
		return SYM_ENOMEM;
	}
	return SYM_OK;
}

static int add_ivl(struct dwinfo *c, uint64_t lo, uint64_t hi, Dwarf_Off off)
{
	struct cuivl *v;

	if (hi <= lo)
		return SYM_OK;
	if (ALLOC_GROW(c->ivls, c->nivls + 1, c->aivls))
		return SYM_ENOMEM;
	v = &c->ivls[c->nivls++];
	v->lo = lo;
	v->hi = hi;
	v->off = off;
	v->cu = 0;
	c->dirty = true;
	return SYM_OK;
}

/*
 * A CU whose DIE gave no address ranges claims, once read, the span of
 * its rows and function ranges.
 */
static int claim_span(struct dwinfo *c, Dwarf_Off off)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		if (c->rows[i].addr < lo)
			lo = c->rows[i].addr;
		if (c->rows[i].addr >= hi)
			hi = c->rows[i].addr + 1;
	}
	for (i = 0; i < c->nranges; i++) {
		if (c->ranges[i].lo < lo)
			lo = c->ranges[i].lo;
		if (c->ranges[i].hi > hi)
			hi = c->ranges[i].hi;
	}
	if (!hi)
		hi = UINT64_MAX;	/* a row at the top address */
	return lo < hi ? add_ivl(c, lo, hi, off) : SYM_OK;
}

/* Read the line table and function tree of one CU, once. */
static int cu_load(struct dwinfo *c, struct dwcu *cu)
{
	Dwarf_Error err = NULL;
	Dwarf_Die die = NULL;
	Dwarf_Half ver = 0, osize = 0;
	int ret;

	cu->loaded = true;
	c->nrows = c->nfiles = c->nfuncs = c->nsegs = c->nranges = 0;
	c->oom = false;
	if (dwarf_offdie_b(c->dbg, cu->off, 1, &die, &err) != DW_DLV_OK) {
		drop_error(c, &err);
		return SYM_OK;
	}
	if (dwarf_get_version_of_die(die, &ver, &osize) != DW_DLV_OK)
		ver = 0;
	c->version = ver;
	ret = load_cu(c, die);
	dwarf_dealloc_die(die);
	if (ret == SYM_OK)
		ret = finish_rows(c);
	if (ret == SYM_OK)
		ret = build_segs(c);
	if (ret == SYM_OK && cu->unknown)
		ret = claim_span(c, cu->off);
	if (ret == SYM_OK)
		ret = cu_keep(c, cu);
	return ret;
}

/* ---- the address -> CU index ---- */

static int cu_cmp(const void *a, const void *b)
{
	const struct dwcu *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static int ivl_cmp(const void *a, const void *b)
{
	const struct cuivl *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Index of the CU whose DIE is at off among the first n, or n. */
static size_t cu_find(const struct dwinfo *c, size_t n, Dwarf_Off off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->cus[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && c->cus[lo].off == off ? lo : n;
}

/* Append a CU (or find it among the sorted ones); NULL: out of memory. */
static struct dwcu *cu_add(struct dwinfo *c, Dwarf_Off off)
{
	size_t i = cu_find(c, c->nsorted, off);
	struct dwcu *cu;

	if (i < c->nsorted)
		return &c->cus[i];
	if (c->ncus && c->cus[c->ncus - 1].off == off)
		return &c->cus[c->ncus - 1];
	if (ALLOC_GROW(c->cus, c->ncus + 1, c->acus))
		return NULL;
	cu = &c->cus[c->ncus++];
	memset(cu, 0, sizeof(*cu));
	cu->off = off;
	c->dirty = true;
	return cu;
}

/* Sort what was added, and point the intervals at their CUs. */
static int index_build(struct dwinfo *c)
{
	size_t i, j, n = 0;
	uint64_t *m;

	if (!c->dirty)
		return SYM_OK;
	if (c->nsorted != c->ncus && c->ncus) {
		qsort(c->cus, c->ncus, sizeof(*c->cus), cu_cmp);
		/* aranges may name a CU twice when it is not sorted */
		for (i = 0; i < c->ncus; i++) {
			if (n && c->cus[n - 1].off == c->cus[i].off) {
				c->cus[n - 1].unknown &= c->cus[i].unknown;
				continue;
			}
			c->cus[n++] = c->cus[i];
		}
		c->ncus = c->nsorted = n;
	}
	if (c->nivls)
		qsort(c->ivls, c->nivls, sizeof(*c->ivls), ivl_cmp);
	m = realloc(c->maxend, (c->nivls ? c->nivls : 1) * sizeof(*m));
	if (!m)
		return SYM_ENOMEM;
	c->maxend = m;
	for (i = 0; i < c->nivls; i++) {
		j = cu_find(c, c->ncus, c->ivls[i].off);
		c->ivls[i].cu = j;	/* j == ncus cannot happen */
		m[i] = i && m[i - 1] > c->ivls[i].hi ? m[i - 1] :
						       c->ivls[i].hi;
	}
	c->dirty = false;
	return SYM_OK;
}

/* The ranges of a CU DIE become index intervals; none: unknown. */
static int index_cu_die(struct dwinfo *c, Dwarf_Die die, Dwarf_Half ver)
{
	Dwarf_Error err = NULL;
	Dwarf_Off off;
	Dwarf_Addr base;
	struct dwcu *cu;
	bool any = false;
	size_t i, n0 = c->ncus;
	int ret;

	if (dwarf_dieoffset(die, &off, &err) != DW_DLV_OK) {
		drop_error(c, &err);
		return SYM_OK;
	}
	if (cu_find(c, c->nsorted, off) < c->nsorted)
		return SYM_OK;	/* known from .debug_aranges */
	cu = cu_add(c, off);
	if (!cu)
		return SYM_ENOMEM;
	if (c->ncus == n0)
		return SYM_OK;	/* seen already */
	c->version = ver;
	c->cu_base = 0;
	if (dwarf_lowpc(die, &base, &err) == DW_DLV_OK)
		c->cu_base = base;
	drop_error(c, &err);
	c->nranges = 0;
	/* A CU DIE with DW_AT_ranges has a DW_AT_low_pc too: the base. */
	ret = attr_ranges(c, die, -1, &any);
	if (ret == SYM_OK && !any && !c->nranges)
		ret = die_ranges(c, die, -1, &any);
	for (i = 0; i < c->nranges && ret == SYM_OK; i++)
		ret = add_ivl(c, c->ranges[i].lo, c->ranges[i].hi, off);
	c->nranges = 0;
	if (!any) {
		cu->unknown = true;
		c->pending = true;
	}
	return ret;
}

/*
 * Walk every CU header and top DIE (no children, no line table) and
 * index the CUs not known yet.  *ncu and *nbad count CUs and the ones
 * that could not be read.
 */
static int index_walk(struct dwinfo *c, size_t *ncu, size_t *nbad)
{
	Dwarf_Error err = NULL;
	Dwarf_Unsigned hlen, next, toff, first = 0, here = 0;
	Dwarf_Half ver, asz, lsz, esz, cutype;
	Dwarf_Off aoff;
	Dwarf_Sig8 sig;
	bool started = false, wrapped = false;
	int ret = SYM_OK, res;

	*ncu = *nbad = 0;
	c->complete = true;
	for (;;) {
		Dwarf_Die die = NULL;
		Dwarf_Off hoff, hsize;

		res = dwarf_next_cu_header_d(c->dbg, 1, &hlen, &ver, &aoff,
					     &asz, &lsz, &esz, &sig, &toff,
					     &next, &cutype, &err);
		if (res == DW_DLV_ERROR) {
			drop_error(c, &err);
			(*nbad)++;
			break;	/* cannot find the next header either */
		}
		if (res != DW_DLV_OK) {
			/* The walk starts where libdwarf's cursor was. */
			if (started && first && !wrapped) {
				wrapped = true;
				here = 0;
				continue;
			}
			break;
		}
		if (dwarf_siblingof_b(c->dbg, NULL, 1, &die, &err) ==
		    DW_DLV_OK &&
		    dwarf_die_CU_offset_range(die, &hoff, &hsize, &err) ==
		    DW_DLV_OK)
			here = hoff;
		drop_error(c, &err);
		if (!started) {
			started = true;
			first = here;
		} else if (wrapped && here >= first) {
			if (die)
				dwarf_dealloc_die(die);
			break;
		}
		here = next;
		(*ncu)++;
		if (!die) {
			(*nbad)++;
			continue;
		}
		ret = index_cu_die(c, die, ver);
		dwarf_dealloc_die(die);
		if (ret)
			break;
	}
	return ret;
}

/* The CUs .debug_aranges names, with their address ranges. */
static int index_aranges(struct dwinfo *c, bool *have)
{
	Dwarf_Error err = NULL;
	Dwarf_Arange *ar = NULL;
	Dwarf_Signed n = 0, i;
	int ret = SYM_OK, res;

	*have = false;
	res = dwarf_get_aranges(c->dbg, &ar, &n, &err);
	if (res != DW_DLV_OK) {
		drop_error(c, &err);
		return SYM_OK;
	}
	for (i = 0; i < n; i++) {
		Dwarf_Unsigned seg, segsz, len;
		Dwarf_Addr start;
		Dwarf_Off off;

		if (ret == SYM_OK &&
		    dwarf_get_arange_info_b(ar[i], &seg, &segsz, &start, &len,
					    &off, &err) == DW_DLV_OK) {
			if (!c->ncus || c->cus[c->ncus - 1].off != off) {
				if (ALLOC_GROW(c->cus, c->ncus + 1, c->acus))
					ret = SYM_ENOMEM;
				else
					memset(&c->cus[c->ncus++], 0,
					       sizeof(*c->cus));
				if (ret == SYM_OK)
					c->cus[c->ncus - 1].off = off;
			}
			if (ret == SYM_OK && len &&
			    start + len > start)
				ret = add_ivl(c, start, start + len, off);
		}
		drop_error(c, &err);
		dwarf_dealloc(c->dbg, ar[i], DW_DLA_ARANGE);
	}
	dwarf_dealloc(c->dbg, ar, DW_DLA_LIST);
	if (ret == SYM_OK && c->ncus) {
		*have = true;
		c->dirty = true;
		c->nsorted = 0;
	}
	return ret;
}

/* Read the CUs that had no ranges, so they claim what they cover. */
static int load_pending(struct dwinfo *c)
{
	size_t i;
	int ret = SYM_OK;

	c->pending = false;
	for (i = 0; i < c->ncus && ret == SYM_OK; i++)
		if (c->cus[i].unknown && !c->cus[i].loaded)
			ret = cu_load(c, &c->cus[i]);
	return ret;
}

static int index_ready(struct dwinfo *c)
{
	int ret = index_build(c);

	if (ret == SYM_OK && c->pending) {
		ret = load_pending(c);
		if (ret == SYM_OK)
			ret = index_build(c);
	}
	return ret;
}

int dwinfo_open(struct dwinfo **out, struct strpool *sp, const char *path)
{
	struct dwinfo *c;
	Dwarf_Error err = NULL;
	size_t ncu = 0, nbad = 0;
	bool have = false;
	int ret, res;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return SYM_ENOMEM;
	c->sp = sp;
	/*
	 * Every libdwarf object this file gets is given back explicitly, so
	 * libdwarf need not track them all for dwarf_finish() (a search tree
	 * that costs a sixth of the time of reading a whole object).
	 */
	dwarf_set_de_alloc_flag(0);
	/* Our descriptor, not libdwarf's: it must not leak into children,
	 * and a FIFO put in place of the file must not block us. */
	c->fd = regfile_open(path, NULL);
	if (c->fd < 0) {
		free(c);
		return SYM_EDWARF;
	}
	/* A damaged list section can make libdwarf abort the process. */
	ret = dwcheck_fd(c->fd);
	if (ret) {
		close(c->fd);
		free(c);
		return ret == SYM_ENOMEM ? ret : SYM_EDWARF;
	}
	res = dwarf_init_b(c->fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL,
			   &c->dbg, &err);
	if (res != DW_DLV_OK) {
		if (res == DW_DLV_ERROR && err)
			dwarf_dealloc_error(c->dbg, err);
		close(c->fd);
		free(c);
		/* No DWARF at all is not an error. */
		return res == DW_DLV_NO_ENTRY ? SYM_OK : SYM_EDWARF;
	}
	ret = index_aranges(c, &have);
	if (ret == SYM_OK && !have)
		ret = index_walk(c, &ncu, &nbad);
	if (ret == SYM_OK)
		ret = index_build(c);
	if (ret) {
		dwinfo_free(c);
		return ret;
	}
	*out = c;
	if (nbad && nbad >= ncu)
		return SYM_EDWARF;
	return SYM_OK;
}

/* Add CU index cu to the claims of this lookup, once. */
static int claim(struct dwinfo *c, size_t *nclaims, size_t cu)
{
	size_t k;

	for (k = 0; k < *nclaims; k++)
		if (c->claims[k] == cu)
			return SYM_OK;
	if (ALLOC_GROW(c->claims, *nclaims + 1, c->aclaims))
		return SYM_ENOMEM;
	c->claims[(*nclaims)++] = cu;
	return SYM_OK;
}

/* Last row of cu at or before addr, or NULL. */
static const struct lrow *cu_row(const struct dwcu *cu, uint64_t addr)
{
	size_t lo = 0, hi = cu->nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cu->rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &cu->rows[lo - 1] : NULL;
}

static const struct dwseg *cu_seg(const struct dwcu *cu, uint64_t addr)
{
	size_t lo = 0, hi = cu->nsegs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cu->segs[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && cu->segs[lo - 1].fn >= 0 ? &cu->segs[lo - 1] : NULL;
}

/*
 * Is row a (of CU ca) found rather than row b (of CU cb) when all CUs'
 * rows are sorted together, stably in CU order with ends of sequences
 * first, and only the last row at an address is kept?
 */
static bool row_wins(const struct lrow *a, const struct dwcu *ca,
		     const struct lrow *b, const struct dwcu *cb)
{
	bool aend = a->file == LROW_END, bend = b->file == LROW_END;

	if (a->addr != b->addr)
		return a->addr > b->addr;
	if (aend != bend)
		return bend;
	return ca->off > cb->off;
}

int dwinfo_lookup(struct dwinfo *c, uint64_t addr, struct dwhit *hit)
{
	size_t nclaims, lo, hi, i, k;
	const struct lrow *brow = NULL;
	const struct dwcu *browcu = NULL, *bfncu = NULL;
	const struct dwseg *bseg = NULL;
	int ret;

	memset(hit, 0, sizeof(*hit));
	if (!c || c->err)
		return c ? c->err : SYM_OK;
again:
	nclaims = 0;
	ret = index_ready(c);
	if (ret)
		goto fail;
	lo = 0;
	hi = c->nivls;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->ivls[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Every interval containing addr, nearest first. */
	for (i = lo; i-- > 0 && c->maxend[i] > addr && ret == SYM_OK;)
		if (c->ivls[i].hi > addr)
			ret = claim(c, &nclaims, c->ivls[i].cu);
	if (ret)
		goto fail;
	if (!nclaims && !c->complete) {
		/* .debug_aranges may leave out CUs (other compilers). */
		size_t ncu, nbad;

		ret = index_walk(c, &ncu, &nbad);
		if (ret)
			goto fail;
		goto again;
	}
	/*
	 * In a gap between the ranges a CU claims, the rows of the CU that
	 * ends last below it may still cover it: a line sequence spans the
	 * padding between the functions of one section, whose ranges
	 * .debug_aranges and DW_AT_ranges list one by one.
	 */
	if (!nclaims && lo) {
		uint64_t m = c->maxend[lo - 1];

		for (i = lo; i-- > 0 && c->maxend[i] == m && ret == SYM_OK;)
			if (c->ivls[i].hi == m)
				ret = claim(c, &nclaims, c->ivls[i].cu);
		if (ret)
			goto fail;
	}
	for (k = 0; k < nclaims; k++) {
		struct dwcu *cu = &c->cus[c->claims[k]];
		const struct lrow *r;
		const struct dwseg *s;

		if (!cu->loaded) {
			ret = cu_load(c, cu);
			if (ret)
				goto fail;
		}
		r = cu_row(cu, addr);
		if (r && (!brow || row_wins(r, cu, brow, browcu))) {
			brow = r;
			browcu = cu;
		}
		s = cu_seg(cu, addr);
		if (s && (!bseg || s->len < bseg->len ||
			  (s->len == bseg->len && cu->off > bfncu->off))) {
			bseg = s;
			bfncu = cu;
		}
	}
	/* The last row of a sequence only bounds it. */
	if (brow && brow->file != LROW_END &&
	    brow != &browcu->rows[browcu->nrows - 1]) {
		hit->has_line = true;
		hit->file = brow->file < browcu->nfiles ?
			    browcu->files[brow->file] : NULL;
		hit->line = brow->line;
	}
	if (bseg) {
		hit->fn = &bfncu->funcs[bseg->fn];
		hit->funcs = bfncu->funcs;
	}
	return SYM_OK;
fail:
	/* Out of memory: no more DWARF answers from this object. */
	c->err = ret;
	memset(hit, 0, sizeof(*hit));
	return ret;
}

void dwinfo_free(struct dwinfo *c)
{
	Dwarf_Error err = NULL;
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->ncus; i++)
		cu_clear(&c->cus[i]);
	free(c->cus);
	free(c->ivls);
	free(c->maxend);
	free(c->claims);
	free(c->ranges);
	free(c->rows);
	free(c->files);
	free(c->funcs);
	free(c->segs);
	free(c->nc.keys);
	free(c->nc.vals);
	dwarf_finish(c->dbg, &err);
	close(c->fd);
	free(c);
}
