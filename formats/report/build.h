/* SPDX-License-Identifier: MIT */
/*
 * Private to the files of report_build (model.c and the files it drives:
 * sites.c, resolve.c, code.c, rows.c, asm.c): what its phases share.
 * The order of the files, each calling only those before it:
 *
 *   arena.c, select.c, notes.c, figures.c   (services, report_int.h)
 *   sites.c                                  (a site, its row's key)
 *   resolve.c                                (naming sites and frames)
 *   blockview.c                              (the blocks view's sites,
 *                                             a procedure at a time)
 *   code.c                                   (procedures decoded)
 *   rows.c, asm.c                            (the rows; one procedure of
 *                                             the asm view)
 *   listing.c                                (the asm view's procedures)
 *   stacks.c, timeline.c, by.c, samples.c    (report_int.h)
 *   model.c                                  (the phases, report_build)
 */
#ifndef FORMATS_REPORT_BUILD_H
#define FORMATS_REPORT_BUILD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "report_int.h"

struct sym_code;
struct sym_object;

/*
 * One unique (object, offset) with what the symbolizer said.  There is
 * one per instruction of every decoded procedure: the fields are in the
 * order that leaves no padding between them.
 */
struct site {
	uint32_t obj;
	uint32_t insn;			/* index into code->insns */
	uint32_t block;			/* and what the rows need of that
					 * instruction, kept here: the blocks
					 * view lets each procedure's go
					 * (blockview.c) */
	uint32_t len;
	uint64_t offset;
	uint64_t vaddr;
	uint64_t start;			/* its out-of-line procedure's entry
					 * (sym_result's symbol_start; 0 for
					 * "[unknown]") */
	const char *proc, *inl, *file, *module;
	const struct sym_code *code;	/* its procedure's code, or NULL */
	size_t row;
	double execs;			/* estimated executions */
	uint64_t exact;			/* exact executions (sim, -pixie) */
	unsigned line;
	unsigned char sampled;		/* some count here has samples */
	unsigned char block_start;	/* the first instruction of its
					 * block */
	unsigned char anon;		/* anonymous code nothing names */
};

/* What the phases of report_build share. */
struct build {
	struct report *r;
	struct symbolizer *sym;
	struct site *sites;		/* unique (object, offset), sorted */
	size_t nsites, alloc_sites;
	long exact_stat;		/* the exact retired statistic, or -1 */
	/*
	 * -only/-exclude applied to procedures before their code is
	 * decoded and their rows built (code.c: select_first()): the sampled
	 * sites left out, still named for the notes on objects; the rows
	 * with data there would have been without them.
	 */
	int select;
	int select_quit;		/* -quit too (asm view): the hottest
					 * procedures chosen before decoding */
	struct site *dropped;
	size_t ndropped, alloc_dropped;
	size_t nrows_all;
	/*
	 * The blocks view without freq shows only blocks with counts: the
	 * instructions of the others are no sites (blockview.c, or
	 * code.c's wanted_blocks() with -only/-exclude), but are resolved
	 * all the same, for what name_sites() (model.c) notes on objects.
	 * Per decoded procedure kept: its object, and which of its blocks
	 * have sites.
	 */
	const struct sym_code **left_codes;
	uint32_t *left_obj;
	unsigned char **left_marks;
	size_t nleft;
	uint8_t *state_early;		/* per object: what resolving the
					 * others told as they were decoded
					 * (blockview.c), or NULL */
	/*
	 * The asm view (listing.c): the sites are the sampled ones; the
	 * procedures decoded for it are codes[] (of objects code_obj[]),
	 * whose instructions become sites and rows only a procedure at a
	 * time.  state: what resolving told of each object (OBJ_*), noted
	 * once the listing's own instructions are resolved.
	 */
	int listing;
	const struct sym_code **codes;
	uint32_t *code_obj;
	size_t ncodes;
	uint8_t *state;
	struct report_sbuild *sb;	/* the call stacks' working state */
	unsigned timeline_by;		/* -timeline: -by's key, 0: per
					 * thread */
};

/* A row's identity in the view (see report_site_key). */
struct rowkey {
	uint32_t obj;
	const char *proc, *inl, *file;
	unsigned line;
	uint64_t a, b;		/* view-specific: block, bucket, address */
};

/* ---- sites.c ---- */

/* Strings equal, or both NULL. */
int report_same_str(const char *a, const char *b);
/* strcmp(), NULL as "" (and equal to itself). */
int report_cmp_str0(const char *a, const char *b);
/* Sites by (object, offset). */
int report_site_cmp(const void *a, const void *b);
/* The site (obj, offset) of the sorted sites[0 .. n), or NULL. */
struct site *report_site_find(struct site *sites, size_t n, uint32_t obj,
			      uint64_t offset);
/* Sort sites[0 .. *n) and keep each (object, offset) once. */
int report_sites_sort_unique(struct site *sites, size_t *n);
/* The index of the instruction of c that starts at offset, or SIZE_MAX
 * (an offset inside an instruction, or in bytes that did not decode). */
size_t report_insn_at(const struct sym_code *c, uint64_t offset);
/* Site s is instruction insn of code: its code, insn, block, len and
 * block_start set. */
void report_site_attach(struct site *s, const struct sym_code *code,
			size_t insn);
/* The symbolizer's description of object obj of p. */
struct sym_object report_sym_obj(const struct profile *p, uint32_t obj);
/* The code of site i's procedure: its predecessor's when it is in the
 * same one (sites are sorted), else from the symbolizer (with
 * extent_only, its extent alone, not decoded). */
const struct sym_code *report_site_code(const struct profile *p,
					struct symbolizer *sym,
					const struct site *sites, size_t i,
					int extent_only);
/* The outer (out-of-line) procedure of a site. */
const char *report_site_outer(const struct site *s);
/* The identity of the row site s belongs to in r's view, its hash, an
 * order of them, and their equality. */
void report_site_key(const struct report *r, const struct site *s,
		     struct rowkey *k);
uint64_t report_key_hash(const struct rowkey *k);
int report_key_cmp(const void *a, const void *b);
int report_key_eq(const struct rowkey *x, const struct rowkey *y);

/* ---- resolve.c ---- */

/* Name sites[0 .. n) (strings in r's pool; with borrow, the
 * symbolizer's own, for sites and rows that do not outlive it); state as
 * report_resolve(). */
int report_resolve_sites(struct report *r, struct symbolizer *sym,
			 struct site *sites, size_t n, uint8_t *state,
			 int borrow);
/* Note what resolving told of object obj (its OBJ_* state). */
int report_note_object(struct report *r, struct symbolizer *sym,
		       uint32_t obj, uint8_t state);
/* Note the -only and -exclude patterns that match no procedure of the
 * profile. */
int report_note_unmatched(struct report *r, struct symbolizer *sym);

/* ---- blockview.c: the blocks view without freq, a procedure at a
 * time ---- */

struct blockview;

/* Whether instruction x of code is made a site, its block marked in mark
 * (NULL: every block is wanted). */
int report_block_wanted(const struct sym_code *code, const unsigned char *mark,
			size_t x);
/* *out: which blocks of code have a site (a count) of object obj at one
 * of their instructions, per block. */
int report_block_marks(const struct build *b, const struct sym_code *c,
		       uint32_t obj, unsigned char **out);
/* Whether object obj is a file without DWARF: resolving its addresses
 * cannot find an error that resolving others did not. */
int report_obj_without_dwarf(const struct build *b, uint32_t obj);
/* Start the view's sites (*out, even on failure: finish it). */
int report_blockview_start(struct build *b, struct blockview **out);
/* Procedure code, decoded, for object obj, the sites b->sites[first ..
 * end) in it: its sites given their instructions, its blocks with counts
 * made sites, the rest resolved or kept (b->left_*), its instructions
 * let go where nothing needs them again. */
int report_blockview_code(struct blockview *v, const struct sym_code *code,
			  uint32_t obj, size_t first, size_t end);
/* The sites made added to b->sites (unless err), v freed; err or how the
 * adding went. */
int report_blockview_finish(struct blockview *v, int err);

/* ---- code.c ---- */

/* The phase: each sampled (object, offset) a site, and every
 * instruction of their procedures when the report needs code. */
int report_code_find_sites(struct build *b);
/* Resolve the instructions that are no sites (b->left_*) for their
 * objects' state alone. */
void report_code_resolve_left(struct build *b, uint8_t *state);
void report_code_free_marks(unsigned char **marks, size_t n);

/* ---- rows.c: the phases of the rows, in order ---- */

int report_rows_select(struct build *b);	/* -only/-exclude first */
int report_rows_executions(struct build *b);	/* freq, exact counts */
int report_rows_group(struct build *b);		/* sites into rows */
int report_rows_fill(struct build *b);		/* code, counts */
int report_rows_figures(struct build *b);	/* percentages, ratios */
/* In the view's order (not the asm view's: report_asm_arrange()). */
void report_rows_sort(struct report *r);
int report_rows_filter(struct build *b);	/* -only, -exclude */
/* Cumulative percentages, then -quit (not the asm view's). */
void report_rows_cut(struct report *r);
/* Hottest first: by the weight of each statistic in turn, then freq,
 * then name and place; < 0 when x is hotter. */
int report_row_hotter(const struct report_row *x, const struct report_row *y,
		      size_t nstats);

/* ---- asm.c ---- */

/* Insert a heading row (the procedure's totals) before each
 * procedure's instructions, procedures hottest first. */
int report_asm_arrange(struct report *r);
/* order[]: the n headings heads[] in the listing's order (by object,
 * procedure and address, then hottest first, as report_asm_arrange()
 * orders them). */
void report_asm_order(const struct report *r, const struct report_row *heads,
		      size_t *order, size_t n);

/* Where the source files of a procedure's object may be read. */
struct source_place {
	const char *root;	/* NULL: nowhere */
	int here;		/* also at the paths themselves */
	/* Root reports on a user's object: only what that user could
	 * read (its own files, or anyone's), or a #line in its DWARF would
	 * show root's files. */
	int as_owner;
	uid_t owner;
	const char *object;
};

/* The place of the object at path, noted when its sources are not read
 * (the first time). */
struct source_place report_asm_place(struct report *r,
				     struct symbolizer *sym, const char *path);
/* Read path at place, once, for line: the notes of a file that cannot be
 * read, or not shown. */
void report_asm_read_source(struct report *r, const struct source_place *place,
			    const char *path, unsigned line);
/* The instruction rows rows[0 .. n) of one procedure, in order: which
 * start a source line, and its text (read before: no note is added). */
void report_asm_line_starts(const struct report *r,
			    const struct source_place *place,
			    struct report_row *rows, size_t n);
/* Free the source files pv holds. */
void report_asm_release(struct priv *pv);

/* ---- listing.c: the asm view's procedures ---- */

/* The phase after naming the sites: each procedure's heading, from its
 * rows made once (their text aside), in the listing's order (r->rows are
 * the headings). */
int report_listing_build(struct build *b);
/* -only, -exclude: headings by name. */
void report_listing_filter(struct report *r);
/* Cumulative percentages and -quit by procedure; the source files of
 * the procedures kept read.  nprocs_all: the headings before -quit when
 * code.c chose them, else SIZE_MAX. */
int report_listing_cut(struct report *r, struct symbolizer *sym,
		       size_t nprocs_all);
void report_listing_release(struct priv *pv);

#endif
