/* SPDX-License-Identifier: MIT */
/*
 * The insides of the DWARF reader, shared by its files only (the
 * contract is dwinfo_* in symbolize_int.h): what one object's DWARF
 * holds once read, and the calls between the files, each below the
 * next:
 *   dwlines.c  a CU's line table and file names;
 *   dwfuncs.c  a CU's functions (subprograms, inlined instances), their
 *              names and address ranges, flattened into segments;
 *   dwarf.c    opening, the address -> CU index, reading a CU once, and
 *              the lookup that merges the CUs' answers.
 * libdwarf's types are here, which is why no other file includes it.
 */
#ifndef SYMBOLIZE_DWARF_INT_H
#define SYMBOLIZE_DWARF_INT_H

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>

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

/* libdwarf's errors are only ever dropped: a missing attribute or a
 * damaged one both mean "not known". */
static inline void drop_error(struct dwinfo *c, Dwarf_Error *err)
{
	if (*err) {
		dwarf_dealloc_error(c->dbg, *err);
		*err = NULL;
	}
}

/* ---- dwlines.c ---- */

/*
 * Append the line table of the CU whose DIE is cu to c->rows and its
 * file names to c->files (c->fbase, c->fend: their raw indexes).  A CU
 * without one adds nothing.  SYM_OK or SYM_ENOMEM.
 */
int dwinfo_lines_read(struct dwinfo *c, Dwarf_Die cu);
/* Sort c->rows by address (stably), keeping the last row of each
 * address.  SYM_OK or SYM_ENOMEM. */
int dwinfo_lines_finish(struct dwinfo *c);
/* The file of raw index raw (DW_AT_call_file) in the CU being read, or
 * NULL. */
const char *dwinfo_cu_file(const struct dwinfo *c, Dwarf_Unsigned raw);

/* ---- dwfuncs.c ---- */

/*
 * The ranges of a DIE (low/high pc, else DW_AT_ranges) appended to
 * c->ranges for function fn (-1: none); dwinfo_attr_ranges(): its
 * DW_AT_ranges only.  *any tells whether one was not empty.  c->version
 * and c->cu_base must be the CU's.  SYM_OK or SYM_ENOMEM.
 */
int dwinfo_die_ranges(struct dwinfo *c, Dwarf_Die die, int32_t fn,
		      bool *any);
int dwinfo_attr_ranges(struct dwinfo *c, Dwarf_Die die, int32_t fn,
		       bool *any);
/*
 * The functions of the CU whose DIE is cu into c->funcs, their ranges
 * into c->ranges; after dwinfo_lines_read() (call files are its file
 * names).  Names are kept in c->nc across CUs.  SYM_OK or SYM_ENOMEM.
 */
int dwinfo_funcs_read(struct dwinfo *c, Dwarf_Die cu);
/* Flatten c->ranges into c->segs: each address's best function (the
 * shortest range containing it).  SYM_OK or SYM_ENOMEM. */
int dwinfo_funcs_segs(struct dwinfo *c);

#endif
