/* SPDX-License-Identifier: MIT */
/*
 * symbolize: turn (object, offset) pairs into procedures, source lines and
 * inline chains.
 *
 * Contract
 * --------
 * - A symbolizer owns every string it returns; they stay valid until
 *   symbolizer_free().  Callers never free them.
 * - Each object is opened and parsed at most once per symbolizer (ELF symbol
 *   tables are read into sorted indexes the first time the object is asked
 *   about; DWARF line tables and inline trees one compilation unit at a
 *   time, the first time an address in that unit is asked about, so the
 *   object's debug file stays open until symbolizer_free()).  No helper
 *   process is ever started.
 * - Offsets for file-backed objects (SYM_OBJ_FILE, SYM_OBJ_VDSO) are *file
 *   offsets* (what the kernel reports as ip - map_start + pgoff).  The
 *   symbolizer converts them to ELF virtual addresses through the PT_LOAD
 *   program headers, so PIE executables and shared libraries need no load
 *   address.  For SYM_OBJ_KERNEL and SYM_OBJ_MODULE the "offset" is the
 *   absolute kernel virtual address.  SYM_OBJ_ANON and SYM_OBJ_JIT use
 *   absolute addresses too; a JIT object's symbols are the ones
 *   sym_set_jit_symbols() gave for its path.  Anonymous code without a
 *   name is one procedure per object (SYM_F_ANON), not one per address;
 *   the kernel's stand-ins [unknown], [guest] and [hypervisor] stay per
 *   address.
 * - An object is looked up, in order: <symfs><path> when a symfs is
 *   configured, then path itself, then (with debuginfod on and a
 *   build-id known) the executable a debuginfod server has for its
 *   build-id.  The first file whose build-id matches the caller's is
 *   used (a file without a build-id, or a query without one, cannot be
 *   checked and is trusted).
 * - Debug information is looked up, in order: the object itself, then
 *   <dir>/.build-id/xx/yyyy.debug by build-id in each debug dir and
 *   then debug_root, then .gnu_debuglink next to the object, in
 *   <dir>/.debug/ and under each debug dir and debug_root as
 *   <root><dir>/ (dir: the object's directory as recorded), then (with
 *   debuginfod on) the debug file a server has for the build-id.
 *   debug_root defaults to /usr/lib/debug.
 * - Kernel addresses get source lines from a vmlinux with DWARF: the
 *   configured one, else the one whose build-id is the kernel object's,
 *   by build-id in the debug dirs and debug_root, then from debuginfod.
 * - A file that has another build-id than the caller's is never used
 *   (it was rebuilt since the profile was taken, or is another
 *   machine's); when no candidate matches, the result is the fallback,
 *   SYM_F_STALE is set and sym_object_info() names the file.
 * - Nothing here prints or exits.  Functions that can fail return a
 *   negative SYM_E* code; sym_strerror() describes it.
 * - Not thread-safe; use one symbolizer per thread.
 */
#ifndef SYMBOLIZE_H
#define SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sym_obj_kind {
	SYM_OBJ_FILE = 0,	/* executable or shared library on disk */
	SYM_OBJ_VDSO = 1,	/* the kernel's vdso image of this machine */
	SYM_OBJ_ANON = 2,	/* anonymous code, no symbols */
	SYM_OBJ_KERNEL = 3,	/* the running kernel, [kernel.kallsyms] */
	SYM_OBJ_MODULE = 4,	/* a kernel module, path is its name */
	SYM_OBJ_JIT = 5,	/* JIT code named by sym_set_jit_symbols() for
				 * its path (the perf map it was read from) */
	SYM_OBJ_PYTHON = 6,	/* Python functions of a source file (its
				 * path): named by sym_set_jit_symbols(), an
				 * offset's low SYM_PY_LINE_BITS its line */
};
#define SYM_PY_LINE_BITS 24

/* The object an offset belongs to, as recorded in a profile. */
struct sym_object {
	enum sym_obj_kind kind;
	const char *path;		/* file path, module name, or NULL */
	const uint8_t *build_id;	/* NULL when unknown */
	size_t build_id_len;
	/* Nonzero: the file is never read at path itself (a profile says
	 * root could not check it: PROF_ID_UNREAD); the symfs and
	 * debuginfod may still have it.  SYM_EUNREAD then. */
	int no_path;
};

#define SYM_MAX_FRAMES 16

/*
 * One level of an inline chain.  frames[0] is the innermost code at the
 * address: its function is the inlined function (or the real one when
 * nothing was inlined) and file/line are the source line of the address.
 * frames[i] for i > 0 is the function that frames[i-1] was inlined into;
 * its file/line are the call site (DW_AT_call_file/DW_AT_call_line).
 * The last frame is the out-of-line procedure the symbol table knows.
 * file is NULL and line 0 when there is no line information.
 */
struct sym_frame {
	const char *function;	/* never NULL; "object+0xoff" as last resort */
	const char *file;	/* full path as recorded in DWARF, or NULL */
	unsigned line;
};

#define SYM_F_SYMBOL	0x1	/* a symbol table entry covered the address */
#define SYM_F_DWARF	0x2	/* line information was found */
#define SYM_F_STALE	0x4	/* file at path has another build-id */
#define SYM_F_NOFILE	0x8	/* object could not be opened */
#define SYM_F_PLT	0x10	/* a PLT stub: named target@plt from
				 * relocations, not from a symbol */
#define SYM_F_UNWIND	0x20	/* named after the procedure the unwind
				 * table (.eh_frame) gives */
#define SYM_F_ANON	0x40	/* anonymous code without a name: one
				 * procedure for the whole object */
#define SYM_F_JIT	0x80	/* named by a JIT runtime's perf map */

struct sym_result {
	unsigned flags;
	unsigned nframes;		/* >= 1 */
	struct sym_frame frames[SYM_MAX_FRAMES];
	uint64_t symbol_start;	/* offset (same space as the query) of the
				 * outermost procedure, for grouping: its
				 * symbol, DWARF entry, PLT stub or unwind
				 * (FDE) start; the query offset when none */
	const char *module;	/* kernel module name for kernel addresses in a
				 * module, else NULL */
	uint64_t vaddr;		/* the query as an ELF virtual address (what
				 * addr2line and objdump take) for file-backed
				 * objects; the query itself otherwise */
};

/* What the symbolizer tells its caller as it happens (sym_config.event). */
enum sym_event_kind {
	SYM_EVENT_FETCHED_DEBUG,	/* debug info of object from debuginfod */
	SYM_EVENT_FETCHED_OBJECT,	/* object itself from debuginfod */
	SYM_EVENT_DEBUGINFOD_DOWN,	/* a fetch failed (reason); no more
					 * are tried by this symbolizer */
};

struct sym_event {
	enum sym_event_kind kind;
	const char *object;	/* the object's path as recorded */
	const char *file;	/* the file fetched (in the cache), or NULL */
	const char *reason;	/* DEBUGINFOD_DOWN: why, else NULL */
};

#define SYM_DEBUGINFOD_WAIT 5

struct sym_config {
	const char *debug_root;	/* NULL: /usr/lib/debug */
	const char *vmlinux;	/* NULL: kernel symbols from /proc/kallsyms */
	const char *kallsyms;	/* NULL: /proc/kallsyms (tests pass a copy) */
	const char *symfs;	/* NULL: objects only at their own paths */
	/* perf's build-id cache (~/.debug: .build-id/XX/REST/elf, or a
	 * link at .build-id/XX/REST), where an object whose path holds
	 * another build-id (rebuilt) or nothing is looked for, before
	 * debuginfod; NULL: none. */
	const char *buildid_cache;
	/* Nonzero: the symfs is an archive's files, unpacked: the source
	 * files its objects' DWARF names are not there, and never read
	 * from this machine's paths instead (they may be a container's or
	 * another machine's names for files here that they are not). */
	int symfs_archive;
	const char *const *debug_dirs;	/* searched before debug_root, in
					 * order, like it */
	size_t ndebug_dirs;
	/*
	 * Nonzero: ask the debuginfod servers of DEBUGINFOD_URLS (through
	 * libdebuginfod, with its cache) for what is not found locally.
	 * A fetch waits as long as DEBUGINFOD_TIMEOUT says, or, when that
	 * is unset, until nothing has arrived for debuginfod_wait seconds
	 * (0: SYM_DEBUGINFOD_WAIT).  After a fetch fails other than "not
	 * found", this symbolizer asks no more.
	 */
	int debuginfod;
	unsigned debuginfod_wait;
	/* Called (when not NULL) with each event, as it happens. */
	void (*event)(void *arg, const struct sym_event *ev);
	void *event_arg;
};

enum {
	SYM_OK = 0,
	SYM_ENOMEM = -1,
	SYM_EOPEN = -2,		/* object cannot be opened */
	SYM_EELF = -3,		/* not a valid ELF object */
	SYM_EDWARF = -4,	/* malformed DWARF */
	SYM_EKALLSYMS = -5,	/* kernel symbols unavailable */
	SYM_EINVAL = -6,
	SYM_ENOCODE = -7,	/* no readable code at the address */
	SYM_EUNREAD = -8,	/* not read at its path (no_path) */
};

struct symbolizer;

/* Returns NULL only when out of memory.  cfg may be NULL. */
struct symbolizer *symbolizer_new(const struct sym_config *cfg);
void symbolizer_free(struct symbolizer *s);	/* NULL is a no-op */

/*
 * Resolve one address.  Always fills *res with at least one frame.  The
 * name comes from DWARF (with the inline chain) or the symbol tables;
 * else, for code without a symbol, from what the object still tells: a
 * PLT stub is "target@plt" (SYM_F_PLT), code inside a procedure the
 * unwind table (.eh_frame) describes is "func@0xENTRY" (the FDE's start,
 * an ELF virtual address), or the symbol at that entry when its size
 * stops short, or "_start" when that entry is a program's entry point
 * (the ELF header's e_entry); when nothing is known it is "path+0xoffset" (basename of
 * path).  Returns SYM_OK, or a negative SYM_E* code describing why the
 * object could not be used (res is still filled with the fallback).
 */
int sym_resolve(struct symbolizer *s, const struct sym_object *obj,
		uint64_t offset, struct sym_result *res);

/*
 * With on, sym_resolve() answers from the symbol tables alone where a
 * symbol covers the address: one frame, the procedure, no line.  DWARF
 * is then read only for code no symbol covers.  For views that show
 * procedures and nothing inside them (default: off).
 */
void sym_set_names_only(struct symbolizer *s, bool on);

/* A kernel text symbol with its extent [start, end). */
struct sym_ksym {
	uint64_t start, end;
	const char *name;	/* owned by the symbolizer (or the caller's,
				 * for sym_set_kernel_symbols) */
	const char *module;	/* NULL for the kernel proper */
};

/*
 * The kernel symbol covering addr.  Returns SYM_OK with *out filled, 1
 * when no symbol covers it, or a negative SYM_E* code (SYM_EKALLSYMS when
 * kernel addresses are hidden).
 */
int sym_kernel_symbol(struct symbolizer *s, uint64_t addr,
		      struct sym_ksym *out);
/* Same, by name (the kernel proper only, e.g. "_text"). */
int sym_kernel_symbol_by_name(struct symbolizer *s, const char *name,
			      struct sym_ksym *out);
/*
 * Every kernel text symbol whose name matches one of the fnmatch(3)
 * patterns.  *out is malloc'd (the caller frees it); names stay owned by
 * the symbolizer.  Returns the count or a negative SYM_E* code.
 */
int sym_kernel_matching(struct symbolizer *s, const char *const *patterns,
			size_t npatterns, struct sym_ksym **out);
/*
 * Use this table instead of /proc/kallsyms: the kernel symbols a profile
 * carries, so it can be reported after a reboot or on another machine.
 * The table (strings included) is copied.
 */
int sym_set_kernel_symbols(struct symbolizer *s, const struct sym_ksym *v,
			   size_t n);

/* The code of a JIT symbol from addr on (up to the next) comes from
 * line of file. */
struct sym_jitline {
	uint64_t addr;
	const char *file;
	unsigned line;
};

/* A name a JIT runtime gave to its code [start, end), and what its
 * jitdump told of it: its bytes (end - start of them) or NULL, and its
 * source lines sorted by addr (nlines 0: none). */
struct sym_jitsym {
	uint64_t start, end;
	const char *name;
	const uint8_t *code;
	const struct sym_jitline *lines;
	size_t nlines;
};

/*
 * The symbols of the JIT object whose path is path (a profile carries
 * them): sorted by start, apart.  Their code, for a machine of ELF
 * e_machine machine, is what sym_code() decodes (EM_NONE: none is);
 * their lines are what sym_resolve() gives.  The table (strings, code
 * and lines included) is copied.  Returns SYM_OK or SYM_ENOMEM.
 */
int sym_set_jit_symbols(struct symbolizer *s, const char *path,
			uint16_t machine, const struct sym_jitsym *v,
			size_t n);

/*
 * A file the symbolizer would have read but did not because it is not a
 * regular file: a FIFO, device, socket or directory where an object or
 * its debug file should be (reading a FIFO would wait forever).
 */
struct sym_skipped {
	const char *path;
	const char *kind;	/* "fifo", "directory", ... */
};

/*
 * The files skipped so far, each once, in the order they were met; *n
 * receives their number.  Owned by the symbolizer, valid until the next
 * call into it or symbolizer_free().
 */
const struct sym_skipped *sym_skipped_files(const struct symbolizer *s,
					    size_t *n);

/*
 * Why obj could not be read: its SYM_E* code (SYM_OK when it was), and
 * in why (len bytes) a few words: for an object no file of which could
 * be opened, the system's reason for the last candidate tried ("No such
 * file or directory", "Permission denied") or "a fifo, not a regular
 * file"; else sym_strerror()'s text.  Looks the object up first if it
 * has not been.
 */
int sym_object_error(struct symbolizer *s, const struct sym_object *obj,
		     char *why, size_t len);

/*
 * Start opening obj's DWARF on a thread of the symbolizer's, when it has
 * DWARF not read yet, and reading the parts that name offs[0 .. n) (the
 * compilation units they fall in): the first answer that needs it waits
 * for it (or opens it itself if the thread has not started on it), and
 * is the same as it would be without this.  A caller about to name code
 * in several objects asks for those it will come to last, and decodes
 * the others' code meanwhile.  True if obj's DWARF is being read ahead.
 */
bool sym_read_dwarf_ahead(struct symbolizer *s, const struct sym_object *obj,
			  const uint64_t *offs, size_t n);

/* What names the code of an object has (sym_object_info()). */
enum sym_symbols {
	SYM_SYMS_FULL = 0,	/* .symtab or DWARF, its own or its debug
				 * file's: every procedure can be named */
	SYM_SYMS_EXPORTED = 1,	/* .dynsym only, no debug file found: the
				 * exported procedures alone are named */
	SYM_SYMS_NONE = 2,	/* no symbol of code and no debug file
				 * found (stripped) */
};

/* What the symbolizer chose and found for a file object.  Strings are
 * owned by the symbolizer. */
struct sym_object_info {
	const char *file;	/* the object file read, or NULL */
	const char *mismatch;	/* the first candidate passed over because
				 * its build-id differs, or NULL */
	const char *debug;	/* its separate debug file (by build-id,
				 * .gnu_debuglink or from debuginfod), or
				 * NULL when it has none */
	enum sym_symbols symbols;	/* from the file and the debug file */
	int err;		/* why it could not be used (SYM_E*), or
				 * SYM_OK; sym_object_error() says more */
	int dwarf;		/* it has DWARF (read on first use): only
				 * then may resolving one of its addresses
				 * find an error err does not have yet */
	/*
	 * Where the source files its DWARF names may be read: inside
	 * source_root (resolved there, as if it were /: "/" for this
	 * machine's own objects, the --symfs for objects found there, then
	 * also at the paths themselves when source_here), or nowhere
	 * (NULL, source_why says why: an archive's or a container's
	 * object, debug information from a debuginfod server).
	 */
	const char *source_root;
	int source_here;
	const char *source_why;
};

/*
 * Fill *info for obj, which is looked up first if it has not been.
 * Returns SYM_OK, SYM_EINVAL for an object that is not a file, or
 * SYM_ENOMEM.
 */
int sym_object_info(struct symbolizer *s, const struct sym_object *obj,
		    struct sym_object_info *info);

/* Human-readable text for a SYM_E* code. */
const char *sym_strerror(int err);

/* ---- procedures decoded into basic blocks (blocks.c) ---- */

#define SYM_INSN_BRANCH   0x1	/* conditional or unconditional jump */
#define SYM_INSN_COND     0x2	/* conditional */
#define SYM_INSN_CALL     0x4
#define SYM_INSN_RET      0x8
#define SYM_INSN_INDIRECT 0x10	/* target in a register or in memory */
#define SYM_INSN_NORETURN 0x20	/* call to a known no-return function */
#define SYM_INSN_DATA     0x40	/* bytes that do not decode (padding,
				 * data): one entry per undecodable run */
#define SYM_INSN_REP      0x80	/* x86 rep-prefixed string instruction:
				 * a block of its own (see below) */
#define SYM_INSN_TRAP     0x100	/* ud2, int3, hlt, brk: never falls through */
#define SYM_INSN_PAD      0x200	/* nop: alignment padding, its run is a
				 * block of its own */
#define SYM_INSN_UNKNOWN  0x400	/* with DATA: an instruction the decoder
				 * does not know, up to the next known
				 * start (see sym_code) */

/*
 * One decoded instruction (or run of undecodable bytes): 32 bytes, one
 * per instruction of every procedure decoded (its address is
 * sym_insn_vaddr()).
 */
struct sym_insn {
	uint64_t offset;	/* same space as sym_resolve queries */
	uint64_t target;	/* direct branch or call target (query space),
				 * 0 if none or outside every PT_LOAD */
	uint32_t len;		/* bytes */
	uint32_t block;		/* index into sym_code.blocks */
	unsigned flags;		/* SYM_INSN_* */
};

/* A basic block: instructions insns[first .. first + ninsns). */
struct sym_block {
	uint64_t start, end;	/* offsets [start, end) */
	uint32_t first, ninsns;
};

/* One procedure, decoded. */
struct sym_code {
	const char *procedure;	/* what sym_resolve() names for start */
	uint64_t start, end;	/* offsets of the procedure [start, end) */
	uint64_t vaddr;		/* ELF virtual address of start */
	const struct sym_insn *insns;
	size_t ninsns;
	const struct sym_block *blocks;
	size_t nblocks;
};

/* The ELF virtual address of instruction in of code. */
static inline uint64_t sym_insn_vaddr(const struct sym_code *code,
				      const struct sym_insn *in)
{
	return code->vaddr + (in->offset - code->start);
}

/*
 * The procedure covering offset in obj, decoded and split into basic
 * blocks.  *out and everything it points to is owned by the symbolizer and
 * stays valid until symbolizer_free() (its instructions and blocks only
 * until sym_code_release() of it: every holder of the cached code then
 * sees ninsns and nblocks 0); the result is cached per (object,
 * procedure), so a second call for any offset in it is a lookup.
 *
 * Extent of the procedure: a PLT stub (its section's entry size), or in
 * a PLT section the code between stubs; else the sized symbol covering
 * offset; else the unwind table's FDE covering it (stripped code); else
 * the unsized symbol before it, up to the next symbol or the end of its
 * section.  Code with none of these gives SYM_ENOCODE.
 *
 * Decoding: Zydis for x86-64, capstone for AArch64, with the architecture
 * taken from the ELF e_machine (anything else is SYM_ENOCODE).  The
 * procedure is swept linearly.  An instruction the decoder does not know
 * becomes one SYM_INSN_DATA | SYM_INSN_UNKNOWN entry whose text says so;
 * since its length is unknown (x86), it runs to the next address where an
 * instruction is known to start (a branch target, a symbol, a PLT stub,
 * the end), so no later boundary is guessed.  When a direct branch of the
 * procedure lands inside an instruction of the sweep (the sweep was
 * derailed by data or padding), the straddling bytes become one data
 * entry ("(bad)") and the sweep restarts at the target.
 *
 * A block starts at (leaders): the procedure entry; every direct branch
 * target inside the procedure; every target of a decodable jump table
 * (gcc/clang x86-64: a "cmp idx, N; ja" bound, then "lea base, [rip +
 * table]; movsxd r, [base + idx*4]; add r, base; jmp r", or "jmp [table
 * + idx*8]"); the instruction after a jump, a return, a trap (ud2, int3,
 * hlt, brk) or a call to a no-return function; both sides of a run of
 * data; and a rep-prefixed string instruction and the one after it.
 *
 * Calls that return do not end a block: control comes back to the next
 * instruction, so both sides execute equally often (exceptions and
 * longjmp aside).  A call is no-return when its direct target, or the PLT
 * stub it goes through (named via .rela.plt), is one of: exit, _exit,
 * _Exit, quick_exit, abort, __stack_chk_fail, __fortify_fail,
 * __chk_fail, __assert_fail, __assert_perror_fail, __assert,
 * __libc_fatal, __malloc_assert, err, errx, verr, verrx, longjmp,
 * _longjmp, siglongjmp, __longjmp_chk, pthread_exit, __libc_start_main,
 * __cxa_throw, __cxa_rethrow, __cxa_bad_cast, __cxa_bad_typeid,
 * __cxa_pure_virtual, __cxa_call_unexpected, _Unwind_Resume, or a
 * std::__throw_* helper (a "__GI_" prefix is ignored).
 *
 * A rep-prefixed string instruction (rep movsb, repne scasb, ...) is one
 * instruction that loops: exact instruction counters see it once per
 * iteration (valgrind's callgrind counts "rep movsb" run 10 times over 100
 * bytes as 1010 or so, its neighbours as 10), so it is a block of its
 * own.  For the same reason a run of nops is a block: compilers emit them
 * to align branch targets, and they run only when falling through.
 *
 * JIT code is decoded from the bytes sym_set_jit_symbols() gave, one
 * JIT symbol a procedure.
 *
 * Returns SYM_OK; SYM_ENOCODE when the code cannot be read (kernel
 * without vmlinux, modules, anonymous code, JIT code without its bytes,
 * an object rebuilt since the
 * profile, no symbol covering offset, offset outside every PT_LOAD, an
 * unsupported architecture); SYM_EOPEN, SYM_EELF, SYM_ENOMEM; SYM_EINVAL
 * for NULL arguments.  *out is NULL on failure.
 */
int sym_code(struct symbolizer *s, const struct sym_object *obj,
	     uint64_t offset, const struct sym_code **out);

/*
 * The procedure sym_code() would give for offset, without decoding it:
 * procedure, start and end are set, and insns and blocks only once some
 * sym_code() call decoded it (ninsns 0 before).  The same cache entry:
 * a later sym_code() for any offset in it returns the same pointer,
 * decoded.  A report that selects procedures by name before decoding
 * them asks this first.  Returns as sym_code(), except that failing to
 * decode (out of memory) shows only in sym_code().
 */
int sym_code_extent(struct symbolizer *s, const struct sym_object *obj,
		    uint64_t offset, const struct sym_code **out);

/*
 * Free what decoding code (from sym_code()) made, its instructions, its
 * blocks and its bytes: code stays valid, as sym_code_extent() gives it
 * (ninsns and nblocks 0), until a later sym_code() decodes it again.
 * For a report that keeps what it needs of each procedure as it goes.
 */
void sym_code_release(struct symbolizer *s, const struct sym_code *code);

/*
 * The text of code->insns[i] (code from sym_code()), made when asked:
 * "mov rax, qword ptr [rbp - 8]" (Intel syntax on x86), "(bad)" for data,
 * "(unknown instruction: N bytes not decoded)".  Owned by the
 * symbolizer; never NULL.
 */
const char *sym_insn_plain_text(struct symbolizer *s,
				const struct sym_code *code, size_t i);

/*
 * The text of code->insns[i] for a listing, snprintf()-like into
 * buf[0 .. size): sym_insn_plain_text() with a call's direct target, and
 * a jump's that leaves the procedure, named after it as objdump names it
 * ("call 0x1159 <make_text>", "jmp 0x2010 <helper+0x10>"), when a symbol,
 * DWARF, the PLT or the unwind table names it.  Returns the text's
 * length: when it is size or more, buf holds only its start (buf may be
 * NULL with size 0).  Nothing is kept: a listing of every instruction
 * of a large program costs no memory of the symbolizer's.
 */
size_t sym_insn_format(struct symbolizer *s, const struct sym_object *obj,
		       const struct sym_code *code, size_t i, char *buf,
		       size_t size);

#endif
