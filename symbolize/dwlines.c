// SPDX-License-Identifier: MIT
/*
 * A CU's line table and file names, read through libdwarf (the reader's
 * layout: dwarf_int.h; its rules, addr2line's: dwarf.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_int.h"

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

const char *dwinfo_cu_file(const struct dwinfo *c, Dwarf_Unsigned raw)
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

int dwinfo_lines_read(struct dwinfo *c, Dwarf_Die cu)
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

int dwinfo_lines_finish(struct dwinfo *c)
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
