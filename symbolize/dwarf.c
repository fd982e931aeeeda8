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
 *
 * This file opens the DWARF, indexes its CUs and answers lookups; a
 * CU's line table is read by dwlines.c, its functions by dwfuncs.c
 * (dwarf_int.h).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util/buildid.h"
#include "common/util/regfile.h"
#include "dwarf_int.h"

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

/* A CU's tables, built in c: its lines, then its functions. */
static int load_cu(struct dwinfo *c, Dwarf_Die cu)
{
	Dwarf_Error err = NULL;
	Dwarf_Addr base;
	int ret;

	c->cu_base = 0;
	if (dwarf_lowpc(cu, &base, &err) == DW_DLV_OK)
		c->cu_base = base;
	drop_error(c, &err);
	ret = dwinfo_lines_read(c, cu);
	if (ret)
		return ret;
	return dwinfo_funcs_read(c, cu);
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
		ret = dwinfo_lines_finish(c);
	if (ret == SYM_OK)
		ret = dwinfo_funcs_segs(c);
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
	ret = dwinfo_attr_ranges(c, die, -1, &any);
	if (ret == SYM_OK && !any && !c->nranges)
		ret = dwinfo_die_ranges(c, die, -1, &any);
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

/*
 * Every libdwarf object this file gets is given back explicitly, so
 * libdwarf need not track them all for dwarf_finish() (a search tree that
 * costs a sixth of the time of reading a whole object); and libelf's
 * version, which dwcheck_fd() needs set.
 */
static void init_once(void)
{
	dwarf_set_de_alloc_flag(0);
	buildid_elf_version();
}

void dwinfo_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, init_once);
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
	dwinfo_init();
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

/* *s (NULL stays NULL) as interned in sp; false: out of memory. */
static bool adopt(struct strpool *sp, const char **s)
{
	if (*s)
		*s = strpool_add(sp, *s);
	return *s != NULL;
}

int dwinfo_adopt(struct dwinfo *c, struct strpool *sp)
{
	bool ok = true;
	size_t i, k;

	if (!c)
		return SYM_OK;
	for (i = 0; i < c->ncus; i++) {
		struct dwcu *cu = &c->cus[i];

		for (k = 0; k < cu->nfiles; k++)
			ok &= !cu->files[k] || adopt(sp, &cu->files[k]);
		for (k = 0; k < cu->nfuncs; k++)
			ok &= (!cu->funcs[k].name ||
			       adopt(sp, &cu->funcs[k].name)) &&
			      (!cu->funcs[k].call_file ||
			       adopt(sp, &cu->funcs[k].call_file));
	}
	for (k = 0; k < c->nc.nslots; k++)
		ok &= !c->nc.keys[k] || !c->nc.vals[k] ||
		      adopt(sp, &c->nc.vals[k]);
	/* The tables of the CU read last were copied to it. */
	c->nfiles = c->nfuncs = 0;
	c->sp = sp;
	return ok ? SYM_OK : SYM_ENOMEM;
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
