/* SPDX-License-Identifier: MIT */
/*
 * Private declarations shared by the files of symbolize/.  Nothing here is
 * part of the public contract (symbolize.h); third-party types (libelf,
 * libdwarf, capstone, Zydis) stay inside the .c files that need them.
 *
 * One section per file, in the order the files build on each other: a
 * file calls only into files whose sections come before its own.
 *
 *   demangle.c, input.c, dwcheck.c,
 *   decode.c (decode_x86.c, decode_arm64.c)      (leaves)
 *   elfsym.c, dwarf.c, debuginfo.c, debuginfod.c, kallsyms.c, procs.c
 *     (dwarf.c over dwlines.c and dwfuncs.c, whose insides, libdwarf's
 *     types among them, are in dwarf_int.h, theirs alone)
 *   dwahead.c                                     (dwarf.c on a thread)
 *   symbolize.c                                   (the object cache)
 *   blocks.c                                      (decoding; calls sym_resolve)
 *
 * symbolize.c frees what blocks.c caches on an object through the
 * destructor blocks.c leaves in it (symobj.code_free), not by name.
 */
#ifndef SYMBOLIZE_INT_H
#define SYMBOLIZE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/util/array.h"		/* ALLOC_GROW: the one checked grow helper */
/* Every string handed to callers lives in the symbolizer's pool,
 * deduplicated, until the symbolizer is freed: parsed objects copy their
 * names in so that ELF handles can be closed right after parsing. */
#include "common/util/strpool.h"
#include "symbolize.h"

/* ---- demangle.c ---- */

/*
 * A C++ (Itanium ABI) mangled name demangled as perf shows it: qualified,
 * with template arguments, without parameters or return type
 * ("std::vector<int, std::allocator<int> >::push_back"), a clone suffix
 * kept ("foo::bar.cold"); a Rust one, legacy (_ZN...17h<hash>E) or v0
 * (_R...), as perf shows it too: without the hash, the crates'
 * disambiguators or a ".llvm.N" suffix ("<a::S as a::T>::add",
 * "a::f::<a::X>"); in sp.  NULL when name is not a whole mangled name,
 * or out of memory.
 */
const char *sym_demangle(struct strpool *sp, const char *name);

/* ---- input.c ---- */

/*
 * The files a symbolizer reads: objects, their debug files and the
 * candidates for those.  Only regular files are opened (regfile.h); the
 * others are noted, each path once, for sym_skipped_files().
 */
struct inputs {
	struct strpool *pool;		/* keeps the skipped paths */
	struct sym_skipped *skipped;
	size_t nskipped, alloc_skipped;
};

void inputs_init(struct inputs *in, struct strpool *pool);
void inputs_release(struct inputs *in);
/*
 * Open path read-only (regfile_open()); a file that is not regular is
 * noted.  Returns the descriptor or -1 with errno set (EINVAL for a file
 * that is not regular).
 */
int inputs_open(struct inputs *in, const char *path);

/* ---- dwcheck.c ---- */

/*
 * Is the framing of .debug_rnglists and .debug_loclists (also their
 * .dwo and compressed forms) in the ELF file open at fd sound enough to
 * hand the file to libdwarf, which reads every unit header of both the
 * first time .debug_info is used and aborts the process on some damaged
 * ones (libdwarf 20210528)?  Returns SYM_OK (also when there are no such
 * sections), SYM_EDWARF (a unit is inconsistent, or a section cannot be
 * read or decompressed), or SYM_EELF.  Reads with pread(): fd's offset
 * is kept.  libelf's version is set (dwinfo_init()).
 */
int dwcheck_fd(int fd);
/*
 * The same check of one section's bytes: true when units tile
 * [data, data + size) exactly, each a DWARF 5 list unit; ranges: also
 * walk the DW_RLE_* entries, whose indexes must fit a .debug_addr of
 * addr bytes (0: there is none; SIZE_MAX: do not check).  big: the
 * object is big-endian.
 */
bool dwcheck_lists(const void *data, size_t size, bool big, bool ranges,
		   size_t addr);

/* ---- elfsym.c ---- */

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
	const char *ifunc;	/* the IFUNC symbol at addr that callers
				 * name (exported first), or NULL */
	size_t order;		/* position in the symbol tables */
	uint8_t rank;		/* higher is better at equal address */
	uint8_t ifunc_rank;	/* 0: no IFUNC; 2 exported, 1 local */
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
	const char *ifunc;	/* the IFUNC symbol at addr, or NULL (an
				 * IFUNC's address is its resolver's) */
	uint64_t addr;
	bool covered;		/* the symbol's extent contains the address */
	bool stretched;		/* a sized symbol that ends before the
				 * address: only line information may
				 * vouch that the address belongs to it */
	uint64_t end;		/* end of the symbol's extent: start + size
				 * when sized and covering, else the next
				 * symbol or the end of the section */
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
 * What the ELF object open as elf (an Elf *) says about itself, and its
 * PT_LOAD segments (*loads malloc'ed).  SYM_OK, SYM_EELF or SYM_ENOMEM.
 */
int elfsym_read_meta(void *elf, struct elfmeta *meta);
int elfsym_read_loads(void *elf, struct loadseg **loads, size_t *nloads);
/*
 * A program's entry point (ELF e_entry) in *entry: true for a program
 * (ET_EXEC, or ET_DYN with an interpreter or flagged DF_1_PIE), false
 * for a shared library, whose e_entry, when it has one, is no _start.
 */
bool elfsym_program_entry(void *elf, uint64_t *entry);

/* ---- dwarf.c (dwlines.c, dwfuncs.c: dwarf_int.h) ---- */

/* A subprogram or inlined instance. */
struct dwfunc {
	const char *name;	/* may be NULL */
	const char *call_file;	/* inlined only: where it was inlined */
	uint32_t call_line;
	int32_t parent;		/* enclosing function (same array), -1 */
	uint64_t entry;		/* lowest address, for grouping */
	bool inlined;
};

/* What the DWARF of an object says about one address. */
struct dwhit {
	bool has_line;		/* a line row covers the address */
	const char *file;	/* its file, may be NULL */
	unsigned line;
	const struct dwfunc *fn;	/* innermost function, or NULL */
	const struct dwfunc *funcs;	/* the array fn->parent indexes */
};

/*
 * The DWARF of one object, read lazily: opening builds an address -> CU
 * index only; each CU's line table and function tree are read the first
 * time an address in it is looked up.  The libdwarf handle (and its file
 * descriptor) stays open until dwinfo_free().
 */
struct dwinfo;

/*
 * Open the DWARF in the file at path.  Returns SYM_OK with *dw NULL when
 * the file has no DWARF, SYM_OK or SYM_EDWARF (malformed, but what could
 * be read is usable) with *dw set, SYM_EDWARF with *dw NULL when a list
 * section fails dwcheck_fd() (none of its DWARF is read), or another
 * negative code.
 */
int dwinfo_open(struct dwinfo **dw, struct strpool *sp, const char *path);

/*
 * Line and innermost function at addr (addr2line's choices).  Returns
 * SYM_OK, or SYM_ENOMEM (then and from then on, *hit is empty).  dw may
 * be NULL.  Pointers in *hit stay valid until dwinfo_free().
 */
int dwinfo_lookup(struct dwinfo *dw, uint64_t addr, struct dwhit *hit);
void dwinfo_free(struct dwinfo *dw);	/* NULL is a no-op */

/*
 * Move the strings of what dw has read (its CUs' files and functions)
 * into sp, which it interns into from then on: dw was opened with a
 * pool of its own, which can then be released.  SYM_OK, or SYM_ENOMEM
 * (then dw still points into its old pool: free it).
 */
int dwinfo_adopt(struct dwinfo *dw, struct strpool *sp);

/* The globals libdwarf and libelf keep, set once (dwinfo_open() calls it;
 * a thread that opens DWARF is started after it). */
void dwinfo_init(void);

/* ---- dwahead.c ---- */

/*
 * DWARF files opened ahead, in the order added, on one thread started by
 * the first dwinfo_ahead_add() (none if it cannot be: then each job is
 * opened when taken), and the CUs of addrs[0 .. naddrs) (vaddrs) read.
 * *ahead is made on first use.  SYM_OK or SYM_ENOMEM (*job NULL).
 */
struct dwahead;
struct dwjob;
int dwinfo_ahead_add(struct dwahead **ahead, struct strpool *sp,
		     const char *path, const uint64_t *addrs, size_t naddrs,
		     struct dwjob **job);

/* What dwinfo_open() gave for job, waited for, or opened here if the
 * thread has not started it; the dwinfo is the caller's from then on,
 * its strings in sp (dwinfo_ahead_add()'s).  Once per job. */
int dwinfo_ahead_take(struct dwahead *ahead, struct dwjob *job,
		      struct dwinfo **dw);

/* Stop the thread (after the file it is opening) and free what was not
 * taken.  NULL is a no-op. */
void dwinfo_ahead_free(struct dwahead *ahead);

/* ---- debuginfo.c ---- */

/*
 * Find a separate debug file for the object file at path (NULL for an
 * image in memory: build-id only), recorded in the profile as recorded
 * (its directory is the one looked for under the roots; NULL: path).
 * The roots are searched in order: each of dirs[0..ndirs), then
 * debug_root (NULL: /usr/lib/debug).  Returns a malloc'ed path or NULL.
 * Candidates that are not regular files are noted in in and passed over.
 */
char *debuginfo_find(struct inputs *in, const char *path,
		     const char *recorded, const struct elfmeta *meta,
		     const char *const *dirs, size_t ndirs,
		     const char *debug_root);

/* ---- debuginfod.c ---- */

/* A debuginfod client of one symbolizer, started on first use. */
struct fetcher {
	bool enabled;		/* sym_config.debuginfod */
	bool down;		/* a fetch failed: ask no more */
	unsigned wait;		/* seconds without progress */
	bool watch_stall;	/* DEBUGINFOD_TIMEOUT unset: wait is ours */
	long long max_bytes;	/* DEBUGINFOD_MAXSIZE or ours; 0: no cap */
	char *cache;		/* the library's cache, checked; malloc'd */
	void *client;		/* debuginfod_client *, NULL until used */
	long last_bytes;	/* progress of the fetch under way */
	double last_time;
	bool cancelled;		/* it waited too long */
	bool cut;		/* it passed max_bytes */
	char reason[512];	/* why it went down (paths are cut) */
};

/*
 * The executable (executable true) or the debug file with build-id
 * id[0..len) from the servers of DEBUGINFOD_URLS.  Returns SYM_OK with
 * *path (malloc'ed, in the library's cache); 1 when not on, no build-id,
 * no servers, or not found; SYM_EOPEN when the fetch failed or was
 * refused (another build-id, over the size cap, a cache others can
 * write: debuginfod.c; *reason says why; f is then down), SYM_ENOMEM.
 */
int debuginfo_fetch(struct fetcher *f, bool executable, const uint8_t *id,
		    size_t len, char **path, const char **reason);
void debuginfo_fetch_release(struct fetcher *f);

/* ---- kallsyms.c ---- */

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

/* ---- procs.c ---- */

/* A range [lo, hi) of ELF virtual addresses. */
struct fde_range {
	uint64_t lo, hi;
};

struct plt_ent {
	uint64_t vaddr;		/* start of the stub */
	uint64_t size;		/* its section's entry size */
	const char *name;
};

/* A GOT slot and the symbol its relocation names. */
struct gotname {
	uint64_t got;
	const char *name;
};

/*
 * What an object tells of its procedures besides its symbols: the
 * procedures its unwind table (.eh_frame) describes, how code without
 * symbols is still told apart procedure by procedure; and its PLT stubs,
 * each named after the function it jumps to (the .rela.plt symbol of the
 * GOT slot it loads, or for an IFUNC's IRELATIVE slot the symbol at its
 * resolver).  Names live in the string pool given to
 * procs_read().  Start zeroed.
 */
struct procs {
	struct fde_range *fdes;	/* sorted by lo */
	size_t nfdes, afdes;
	struct plt_ent *plt;	/* sorted by vaddr */
	size_t nplt, aplt;
	struct fde_range pltsec[3];	/* .plt, .plt.sec, .plt.got */
	const char *pltsec_name[3];	/* their names (static strings) */
	size_t npltsec;
	struct gotname *got;	/* relocated slots, sorted by address */
	size_t ngot;
};

/*
 * Read p from an open libelf handle (an Elf *) of an object whose
 * e_machine is machine; syms (its symbol index, or NULL) names the IFUNCs
 * of IRELATIVE slots, which have no symbol of their own.  Returns SYM_OK, SYM_ENOCODE when its code is
 * not decoded (dec_machine_ok() in decode.h) (p stays empty), or SYM_ENOMEM (p holds what was read;
 * procs_release() it all the same).
 */
int procs_read(struct procs *p, struct strpool *sp, void *elf,
	       uint16_t machine, const struct symindex *syms);
void procs_release(struct procs *p);
/*
 * The function the PLT stub covering va jumps to (named from .rela.plt),
 * with the stub's start in *start; NULL when va is in no stub.
 */
const char *procs_plt_stub(const struct procs *p, uint64_t va,
			   uint64_t *start);
/*
 * Whether va lies in a procedure the unwind table describes (PLT
 * sections excepted), with the procedure's start in *start.
 */
bool procs_unwind_proc(const struct procs *p, uint64_t va, uint64_t *start);
/* The function of the PLT stub that starts exactly at va, or NULL. */
const char *procs_plt_name(const struct procs *p, uint64_t va);
/* The symbol the relocation of the GOT slot at slot names, or NULL. */
const char *procs_got_name(const struct procs *p, uint64_t slot);
/*
 * In a PLT section, each stub is a procedure of its own, and so is the
 * code between stubs: the extent [*lo, *hi) of the one covering va; false
 * when va is in no PLT section.
 */
bool procs_plt_extent(const struct procs *p, uint64_t va, uint64_t *lo,
		      uint64_t *hi);
/*
 * The PLT section holding va when va is in none of its named stubs (the
 * header that calls the lazy resolver, slots without a relocation):
 * its name (".plt"), with the start of the code between stubs that
 * covers va (procs_plt_extent()) in *start and the section's in *sec;
 * NULL elsewhere.
 */
const char *procs_plt_other(const struct procs *p, uint64_t va,
			    uint64_t *start, uint64_t *sec);
/* The unwind table's procedure (FDE) covering va, or NULL. */
const struct fde_range *procs_fde(const struct procs *p, uint64_t va);

/* ---- jit.c ---- */

/* One JIT object's symbols (sym_set_jit_symbols()): names and files in
 * the pool, code in mem, lines in lines. */
struct jittab {
	const char *path;
	uint16_t machine;
	struct sym_jitsym *v;
	size_t n;
	uint8_t *mem;		/* the code of v, one after the other */
	size_t memsize;
	struct sym_jitline *lines;	/* the lines of v, one after the other */
};

struct jittabs {
	struct jittab *v;
	size_t n, alloc;
};

int sym_jit_add(struct jittabs *t, struct strpool *sp, const char *path,
		uint16_t machine, const struct sym_jitsym *v, size_t n);
void sym_jit_release(struct jittabs *t);
/* The table of the JIT object at path, or NULL. */
const struct jittab *sym_jit_find(const struct jittabs *t, const char *path);
/* The symbol of t covering addr, or NULL (t NULL: none). */
const struct sym_jitsym *sym_jit_symbol(const struct jittab *t,
					uint64_t addr);
/* addr's source line in j: its file (NULL: none) and line in *line. */
const char *sym_jit_line(const struct sym_jitsym *j, uint64_t addr,
			 unsigned *line);

/* ---- the object cache (symbolize.c) ---- */

struct code_cache;		/* blocks.c: decoded procedures */

/* One object a symbolizer has been asked about, parsed once. */
struct symobj {
	struct symobj *next;		/* hash chain */
	enum sym_obj_kind kind;
	char *path;
	char *file;			/* the file read for path (under the
					 * symfs, fetched), or NULL */
	const char *mismatch;		/* a candidate with another build-id
					 * (in the pool), or NULL */
	uint8_t *build_id;
	size_t build_id_len;
	size_t hash;

	int err;			/* returned with every answer */
	int open_errno;			/* why the last candidate could not
					 * be opened (0: none failed) */
	unsigned flags;			/* SYM_F_STALE, SYM_F_NOFILE */
	bool no_path;			/* sym_object.no_path */
	const char *base;		/* basename for the fallback */
	bool by_vaddr;			/* offsets are addresses (vmlinux) */
	uint64_t bias;			/* vaddr = offset - bias */
	uint16_t machine;		/* ELF e_machine, EM_NONE unknown */
	bool is_program;		/* a program: entry is its _start */
	uint64_t entry;			/* ELF e_entry, a virtual address */
	struct loadseg *loads;
	size_t nloads;
	struct symindex syms;
	struct dwinfo *dw;		/* NULL: no DWARF (or not read yet) */
	char *dwpath;			/* the file with its DWARF, read on
					 * first need (symobj_dwarf()) */
	char *debug_file;		/* its separate debug file, or NULL */
	enum sym_symbols symbols;	/* what names its code (load_elf()) */
	bool dw_done;			/* dwpath has been read */
	struct dwjob *dw_job;		/* dwpath being read ahead */
	struct procs procs;		/* read on first use, symobj_procs() */
	int procs_err;
	bool procs_done;
	/*
	 * blocks.c's decoded procedures, NULL until sym_code() is used.
	 * blocks.c sets code_free with it, so that freeing the object
	 * does not call up into blocks.c.
	 */
	/* unnamed_code()'s last answer: the procedure's kind, start and
	 * name (symbolize.c). */
	int unnamed_kind;
	uint64_t unnamed_start;
	const char *unnamed_name;
	struct code_cache *code;
	void (*code_free)(struct code_cache *code);
	/* A JIT object's code (its table's mem, which outlives it): the
	 * loads give each symbol's place in it. */
	const uint8_t *jit_mem;
	size_t jit_memsize;
};

/* o, a JIT object, as a decodable one: offsets are addresses, its
 * symbols t's, its loads t's code.  SYM_OK or SYM_ENOMEM. */
int symobj_load_jit(struct symobj *o, const struct jittab *t);

/*
 * The cached object for obj, parsed on first use.  NULL only when out of
 * memory (*err set); a broken object is returned with o->err set.
 */
struct symobj *symobj_get(struct symbolizer *s, const struct sym_object *obj,
			  int *err);
/*
 * o's procs, read from its file or the vdso image the first time they are
 * asked for.  *out is set either way; returns SYM_OK or why they could
 * not be read (the same every time): SYM_ENOCODE (a machine whose code is
 * not decoded, no vdso), SYM_EOPEN, SYM_EELF, SYM_ENOMEM.
 */
int symobj_procs(struct symbolizer *s, struct symobj *o,
		 const struct procs **out);
/* Query offset <-> ELF virtual address through the PT_LOAD headers. */
bool symobj_off_to_vaddr(const struct symobj *o, uint64_t off, uint64_t *va);
uint64_t symobj_vaddr_to_off(const struct symobj *o, uint64_t va,
			     uint64_t dflt);
struct strpool *symbolizer_pool(struct symbolizer *s);
/*
 * The kernel image for obj (the kernel): -k's vmlinux, else the one with
 * obj's build-id under the debug dirs and debug root or from
 * debuginfod, looked up once; NULL when there is none.  Its lines and
 * its code (blocks.c) both come from it.
 */
const char *symbolizer_kernel_image(struct symbolizer *s,
				    const struct sym_object *obj);
/* This process's vdso image and its size; NULL when there is none. */
const void *sym_vdso_image(size_t *size);

/* Open an input of s through its inputs_open(). */
int sym_open_input(struct symbolizer *s, const char *path);

#endif
