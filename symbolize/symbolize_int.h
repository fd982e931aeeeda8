/* SPDX-License-Identifier: MIT */
/*
 * Private declarations shared by the files of symbolize/.  Nothing here is
 * part of the public contract (symbolize.h); third-party types (libelf,
 * libdwarf) stay inside the .c files that need them.
 */
#ifndef SYMBOLIZE_INT_H
#define SYMBOLIZE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "array.h"		/* ALLOC_GROW: the one checked grow helper */
#include "symbolize.h"

/*
 * String pool: every string handed to callers lives here, deduplicated,
 * until the symbolizer is freed.  Parsed objects copy their names in so
 * that ELF and DWARF handles can be closed right after parsing.
 */
struct strpool {
	char *chunk;		/* current chunk, linked through its head */
	size_t used, size;	/* bytes used / usable in chunk */
	const char **slots;	/* open-addressing hash set */
	size_t nslots, nused;
};

void strpool_init(struct strpool *sp);
void strpool_release(struct strpool *sp);
/* NULL on out of memory. */
const char *strpool_intern(struct strpool *sp, const char *s, size_t len);
const char *strpool_add(struct strpool *sp, const char *s);

/* A PT_LOAD segment, for file offset <-> virtual address conversion. */
struct loadseg {
	uint64_t off, filesz, vaddr;
};

/* One entry of the merged ELF symbol index. */
struct esym {
	uint64_t addr;
	uint64_t size;
	uint64_t sec_end;	/* end of the symbol's section */
	const char *name;
	size_t order;		/* position in the symbol tables */
	uint8_t rank;		/* higher is better at equal address */
};

struct symindex {
	struct esym *v;
	size_t n, alloc;
	uint64_t *maxend;	/* prefix maximum of addr + size */
	/* Kernel images: where _text is, to measure the KASLR shift. */
	uint64_t text_addr;
	bool has_text;
};

/* Result of a symbol-table lookup. */
struct symhit {
	const char *name;
	uint64_t addr;
	bool covered;		/* the symbol's extent contains the address */
	bool stretched;		/* a sized symbol that ends before the
				 * address: only line information may
				 * vouch that the address belongs to it */
};

/*
 * Add every code-like symbol of the ELF handle's .symtab and .dynsym.
 * The handle is a libelf Elf *, passed as void * to keep libelf out of
 * this header.
 */
int symindex_add_elf(struct symindex *si, struct strpool *sp, void *elf);
int symindex_finish(struct symindex *si);
bool symindex_lookup(const struct symindex *si, uint64_t addr,
		     struct symhit *hit);
void symindex_release(struct symindex *si);

/* Line table row; file == LROW_END marks the end of a sequence. */
#define LROW_END UINT32_MAX
struct lrow {
	uint64_t addr;
	uint32_t file;		/* index into dwinfo.files */
	uint32_t line;
};

/* A subprogram or inlined instance. */
struct dwfunc {
	const char *name;	/* may be NULL */
	const char *call_file;	/* inlined only: where it was inlined */
	uint32_t call_line;
	int32_t parent;		/* enclosing function, -1 for none */
	uint64_t entry;		/* lowest address, for grouping */
	bool inlined;
};

/* [lo, next lo) is covered best by function fn (-1: none). */
struct dwseg {
	uint64_t lo;
	int32_t fn;
};

struct dwinfo {
	struct lrow *rows;
	size_t nrows, arows;
	const char **files;
	size_t nfiles, afiles;
	struct dwfunc *funcs;
	size_t nfuncs, afuncs;
	struct dwseg *segs;
	size_t nsegs, asegs;
};

/*
 * Read line tables and the function/inline tree of the DWARF in the file
 * at path.  Returns SYM_OK (also when the file simply has no DWARF; then
 * dw stays empty), or a negative code.
 */
int dwinfo_load(struct dwinfo *dw, struct strpool *sp, const char *path);
/* Row covering addr, or NULL. */
const struct lrow *dwinfo_line(const struct dwinfo *dw, uint64_t addr);
/* Innermost function covering addr (addr2line's choice), or -1. */
int32_t dwinfo_func(const struct dwinfo *dw, uint64_t addr);
void dwinfo_release(struct dwinfo *dw);

/* What an ELF file says about itself, for finding its debug file. */
struct elfmeta {
	uint8_t build_id[64];
	size_t build_id_len;
	char *debuglink;	/* malloc'ed, or NULL */
	uint32_t debuglink_crc;
	bool has_dwarf;		/* .debug_info present with contents */
	bool has_symtab;
};

/*
 * Find a separate debug file for the object at path (NULL for an image
 * in memory: build-id only).  Returns a malloc'ed path or NULL.
 */
char *debuginfo_find(const char *path, const struct elfmeta *meta,
		     const char *debug_root);

/* Kernel symbols from a kallsyms file. */
struct ksym {
	uint64_t addr;
	uint64_t end;		/* 0: up to the next symbol */
	const char *name;
	const char *module;	/* NULL for the kernel proper */
	size_t order;		/* line number, for stable alias choice */
	uint8_t rank;		/* higher wins among aliases */
};

struct kallsyms {
	struct ksym *v;
	size_t n, alloc;
};

int kallsyms_load(struct kallsyms *ks, struct strpool *sp,
		  const char *path);
const struct ksym *kallsyms_lookup(const struct kallsyms *ks, uint64_t addr);
/* End of k's extent: its own end, else the next symbol (same image). */
uint64_t kallsyms_end(const struct kallsyms *ks, const struct ksym *k);
/* Replace the table with a copy of v (strings interned into sp). */
int kallsyms_set(struct kallsyms *ks, struct strpool *sp,
		 const struct sym_ksym *v, size_t n);
void kallsyms_release(struct kallsyms *ks);

/* elfsym.c helpers on an open libelf handle (void * = Elf *). */
int elf_read_meta(void *elf, struct elfmeta *meta);
int elf_read_loads(void *elf, struct loadseg **loads, size_t *nloads);
int elf_build_id(void *elf, uint8_t *buf, size_t len);

#endif
