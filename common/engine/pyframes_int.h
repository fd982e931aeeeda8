/* SPDX-License-Identifier: MIT */
/*
 * What the files that read a CPython from outside share (pyframes.c: the
 * walk; pylayout.c: the layouts; pymem.c: reads; pyimage.c: the
 * interpreter found; pycode.c: code objects).
 */
#ifndef COMMON_ENGINE_PYFRAMES_INT_H
#define COMMON_ENGINE_PYFRAMES_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include <sys/types.h>

#include "pyframes.h"
#include "bpf/sample_bpf.h"
#include "perfbpf.h"
#include "common/util/hash.h"
#include "common/util/strpool.h"

/*
 * The layout of the structures read, per CPython minor version and
 * machine: offsets in bytes, sizes, masks of PyASCIIObject.state's bit
 * fields; NONE where a version has no such field.  Taken from CPython's
 * headers (Include/internal/ included); tests/tools/pyoffsets.c prints
 * the same values from the headers installed, and
 * tests/1540-pyframes.bats checks this table equals them (pylayout.c:
 * the table, names in layout_names[], each for the versions that spell
 * it so).
 *
 * The frames: 3.11 and 3.12 reach the innermost _PyInterpreterFrame
 * through the thread state's cframe (a _PyCFrame on the C stack), 3.13
 * from the thread state itself.  3.11 marks the first frame of each C
 * call of the eval loop (is_entry); 3.12 and 3.13 put a shim frame
 * (owner FRAME_OWNED_BY_CSTACK) on the C stack under it instead.
 *
 * 3.13 publishes most of its offsets at the start of _PyRuntime
 * (_Py_DebugOffsets, for tools that read it from outside): those are
 * read from the process (debug_fields[], checked), the table's values
 * are what its headers say, and the rest come from the table.
 */
#define NONE UINT32_MAX

/* sizeof(_Py_DebugOffsets), at the start of 3.13's _PyRuntime */
#define DEBUG_LEN 584

/* How a version's line table is written (pylines.c). */
enum py_lines {
	PY_LINES_LNOTAB,	/* 3.9: co_lnotab */
	PY_LINES_PAIRS,		/* 3.10: co_linetable */
	PY_LINES_LOCATIONS,	/* 3.11 on: co_linetable */
};

struct layout {
	unsigned minor;
	uint16_t machine;		/* e_machine of the image */
	bool debug_offsets;		/* _PyRuntime starts with them */
	/* Frames are PyFrameObjects (3.9, 3.10), and fr_instr is their
	 * f_lasti, in bytes where lasti_bytes (3.9), else in code units. */
	bool frame_objects, lasti_bytes;
	enum py_lines lines;
	uint32_t runtime_size;		/* sizeof(_PyRuntimeState) */
	uint32_t rt_interp_head;	/* _PyRuntimeState.interpreters.head */
	uint32_t rt_main_thread;	/* _PyRuntimeState.main_thread
					 * (3.9, 3.10) */
	uint32_t is_next;		/* PyInterpreterState.next */
	uint32_t is_threads_head;	/* PyInterpreterState.threads.head
					 * (3.9, 3.10: .tstate_head) */
	uint32_t ts_next;		/* PyThreadState.next */
	uint32_t ts_interp;		/* PyThreadState.interp */
	uint32_t ts_native_tid;		/* PyThreadState.native_thread_id */
	uint32_t ts_thread_id;		/* PyThreadState.thread_id (3.9,
					 * 3.10: a pthread_t) */
	/* PyThreadState.frame (3.9, 3.10), .cframe (3.11, 3.12),
	 * .current_frame (3.13) */
	uint32_t ts_frame;
	/* _PyCFrame.current_frame; NONE: ts_frame is the frame */
	uint32_t cf_current_frame;
	uint32_t fr_code;		/* _PyInterpreterFrame.f_code
					 * (3.13: f_executable; 3.9, 3.10:
					 * PyFrameObject.f_code) */
	uint32_t fr_previous;		/* .previous (3.9, 3.10: f_back) */
	uint32_t fr_instr;		/* .prev_instr (3.13: instr_ptr;
					 * 3.9, 3.10: f_lasti, an int) */
	uint32_t fr_is_entry;		/* .is_entry (bool; 3.11) */
	uint32_t fr_owner;		/* .owner (char) */
	uint32_t owner_generator;	/* FRAME_OWNED_BY_GENERATOR */
	uint32_t owner_frame_object;	/* FRAME_OWNED_BY_FRAME_OBJECT */
	uint32_t owner_cstack;		/* FRAME_OWNED_BY_CSTACK (3.12-) */
	uint32_t ob_type;		/* PyObject.ob_type */
	uint32_t ob_size;		/* PyVarObject.ob_size */
	uint32_t co_firstlineno;	/* PyCodeObject.co_firstlineno */
	uint32_t co_filename;
	uint32_t co_name;
	uint32_t co_qualname;
	uint32_t co_linetable;
	uint32_t co_firsttraceable;	/* ._co_firsttraceable */
	uint32_t co_code;		/* .co_code_adaptive: the bytecode */
	uint32_t co_code_obj;		/* .co_code (3.9, 3.10): a bytes
					 * object, the bytecode */
	uint32_t codeunit_size;		/* sizeof(_Py_CODEUNIT) */
	uint32_t str_length;		/* PyASCIIObject.length */
	uint32_t str_state;		/* PyASCIIObject.state */
	uint32_t str_kind;		/* masks in the state word */
	uint32_t str_compact;
	uint32_t str_ascii;
	uint32_t str_ready;		/* 0: no such bit (3.12-) */
	uint32_t str_ascii_size;	/* sizeof(PyASCIIObject) */
	uint32_t str_compact_size;	/* sizeof(PyCompactUnicodeObject) */
	uint32_t bytes_data;		/* PyBytesObject.ob_sval */
};

/* Caps on what a walk follows in outside memory. */
#define MAX_INTERPS 256		/* interpreters */
#define MAX_TSTATES 4096	/* thread states, all interpreters */
#define MAX_CODE_UNITS (1u << 24) /* a code object's bytecode */
#define MAX_CACHED 16384	/* code objects kept */
#define HEADER_MAX 256		/* bytes of a struct read at once */
#define TS_CACHE 64		/* threads whose thread state is kept */
#define WALK_CHUNK 64		/* frames whose code objects are read in
				 * one process_vm_readv */
/* Memory read around frames: 3.11 on push a call's frame after its
 * caller's in the thread's data stack, so a frame's callers lie below
 * it, a few hundred bytes each.  A frame not read yet is read with the
 * WIN_BELOW bytes under it; a thread's frames where they were at its
 * last walk, with WIN_SLACK bytes under them and WIN_ABOVE over its
 * innermost frame (the calls it may have made since).  A read of more
 * pages pins more: a window is at most one page long, so two pages. */
#define WIN_LEN 4096
#define WIN_BELOW 2048
#define WIN_SLACK 128
#define WIN_ABOVE 512
#define WIN_PAGE 4096		/* the smallest page of x86-64 */
#define SPEC_CODES 8		/* code objects read with a thread state */
/* Frames read with a thread state (3.9, 3.10): PyFrameObjects lie
 * anywhere in the heap, not under each other, but a function's frame is
 * most often where it was (its code object keeps the last one freed for
 * the next call), so a thread's frames of its last walk are read again. */
#define SPEC_FRAMES 16

/* A code object's strings and line table, as read (key: its address and
 * the header fields that name them). */
struct code_entry {
	uint64_t addr;
	uint64_t key[5];	/* co_filename, co_name, co_qualname,
				 * co_linetable, and ob_size (3.11 on:
				 * the code units) or co_code (3.9,
				 * 3.10) */
	int64_t nunits;
	int firstlineno;
	const char *name, *qualname, *filename;	/* in strings */
	uint8_t *linetable;
	size_t linetable_len;
	/* The walk (py_proc.walks) that last found its header unchanged:
	 * py_code_info() in that walk reads it no more. */
	uint64_t checked;
	/* The last instruction whose line was decoded, and that line. */
	int32_t last_instr;
	int last_line;
};

/* Where a thread's state was found, and what it held (a cache: each
 * use reads the thread state again and checks it is that thread's). */
struct ts_slot {
	pid_t tid;		/* 0: empty */
	uint64_t ts, interp;
	uint64_t pthread;	/* its thread_id (3.9, 3.10) */
	uint64_t cframe;	/* its C frame (3.11, 3.12) when last read */
	uint64_t frame;		/* its innermost frame when last read */
	uint64_t low;		/* its outermost frame read with it */
	/* The code objects of its frames at its last walk: likely those of
	 * the next, their headers read with the thread state. */
	uint64_t codes[SPEC_CODES];
	size_t ncodes;
	/* Its frames at its last walk (3.9, 3.10), innermost first. */
	uint64_t frames[SPEC_FRAMES];
	size_t nframes;
};

/* Regions of a sample's copy of its frames used, at most: the thread
 * state, another word of it, the C frame's word, a frame and its code
 * object's header for each of SBPF_FRAMES frames. */
#define PY_SNAP_REGIONS (3 + 2 * SBPF_FRAMES)
_Static_assert(HEADER_MAX < SBPF_REGION_MAX,
	       "a region the program copies holds every header read");

/* Reads done in one process_vm_readv: the kernel reads them in order
 * and stops at the first it cannot read whole. */
#define BATCH_MAX (WALK_CHUNK + 8)
#if BATCH_MAX < 4 + SPEC_CODES + SPEC_FRAMES
#error "a thread state's batch does not fit"
#endif
struct batch {
	struct iovec local[BATCH_MAX], remote[BATCH_MAX];
	size_t n;
};

struct py_proc {
	struct py_info info;
	bool exited;		/* a read found the process gone */
	struct layout lay;	/* the layout read by */
	const struct layout *l;	/* &lay */
	/* How much of each struct is read: up to the end of the last
	 * field used (extent()). */
	size_t ts_len, frame_len, code_len, code_info_len;
	size_t code_hdr_len;	/* what a walk reads: both of the last two */
	char *image;
	uint64_t code_type, str_type, bytes_type;	/* type objects */
	uint64_t frame_type;	/* PyFrame_Type (3.9, 3.10) */
	/* Where the C library keeps a thread's id in its pthread_t (3.9,
	 * 3.10: pytid.c); NONE until found. */
	uint32_t tid_off;
	struct strpool strings;
	struct code_entry *codes;
	size_t ncodes, codes_alloc;
	struct hashmap index;	/* code address -> codes[] */
	uint64_t walks;		/* py_thread_stack() calls */
	const struct py_stack_copy *copy;	/* the walk's sample's */
	/* The sample's copy of its frames (copy->frames: sample_bpf.h's
	 * regions), as py_snap_set() found them: reads inside one are
	 * served from it.  None between walks. */
	bool copy_only;		/* py_copy_only() */
	struct perf_bpf_region snap[PY_SNAP_REGIONS];
	size_t nsnap;
	struct ts_slot threads[TS_CACHE];	/* by tid % TS_CACHE */
	/* Memory read around a frame: win[i] is the process's byte at
	 * win_base + i, for those in [win_lo, win_hi); none between
	 * walks (the process has run since). */
	uint8_t win[WIN_LEN];
	uint64_t win_base, win_lo, win_hi;
	size_t win_reads;	/* of the window added last: 1 or 2 */
	/* The code objects' headers of a walk's chunk of frames, and those
	 * read with the thread state (spec[i] is codes[i]'s of its slot:
	 * nspec of them read). */
	uint8_t headers[WALK_CHUNK][HEADER_MAX];
	uint8_t spec[SPEC_CODES][HEADER_MAX];
	uint64_t spec_code[SPEC_CODES];
	size_t nspec;
	/* The frames read with the thread state (3.9, 3.10): spec_frame[i]
	 * holds the frame_len bytes at spec_frame_at[i], nspec_frames of
	 * them read. */
	uint8_t spec_frame[SPEC_FRAMES][HEADER_MAX];
	uint64_t spec_frame_at[SPEC_FRAMES];
	size_t nspec_frames;
};

/* pylayout.c */
/* The table's layout of CPython 3.minor, or NULL. */
const struct layout *py_layout_of(unsigned minor);
/* What is read of each struct of layout l; -1 when a part would not fit
 * the buffers (a table entered wrong). */
int py_set_extents(struct py_proc *p, const struct layout *l);
int py_read_debug_offsets(struct py_proc *p, uint64_t runtime, uint32_t hex,
			  const char *v);

/* pymem.c */
bool py_process_gone(pid_t pid);
/* Take the regions of the sample's copy of its frames (p->copy's), if
 * any, as p->snap; py_snap_clear() drops them. */
void py_snap_set(struct py_proc *p);
void py_snap_clear(struct py_proc *p);
/* The len bytes at addr in the sample's copy of its frames, or NULL. */
const uint8_t *py_snap_find(const struct py_proc *p, uint64_t addr,
			    size_t len);
int py_mem_read(struct py_proc *p, uint64_t addr, void *buf, size_t len,
		const char *what);
uint64_t py_word(const uint8_t *buf, size_t len, uint32_t off, unsigned n);
bool py_ptr_ok(uint64_t addr);
/* Whether the reference count at the start of an object's header hb
 * (PyObject.ob_refcnt) is one a live object has: not 0, not above 32
 * bits, where pymalloc's free list and CPython's own free lists leave a
 * freed object (3.12's immortal count is 2^32 - 1). */
bool py_refs_live(const uint8_t *hb, size_t len);

/* pytid.c: the native thread id of a thread state, 3.9 and 3.10 */
/* Find p->tid_off, if not yet: 0; -PROF_ENOENT when CPython has not
 * started (no main thread yet: try again later); -PROF_EUNAVAIL when
 * it cannot be told. */
int py_tid_calibrate(struct py_proc *p);
/* The native thread id of the thread state whose p->ts_len bytes are t,
 * into *tid (0: none, a thread gone): read from the thread state (3.11
 * on) or from its pthread_t. */
int py_tstate_tid(struct py_proc *p, const uint8_t *t, pid_t *tid);

/* pylines.c: the line of instruction instr (code units) in a line
 * table written the way kind says (py_linetable_line(), 3.11 on). */
int py_lines_line(enum py_lines kind, const uint8_t *table, size_t len,
		  int firstlineno, int32_t instr);

/* pycode.c */
void py_codes_clear(struct py_proc *p);
int py_code_type_ok(const struct py_proc *p, uint64_t code,
		    const uint8_t *hb);
int py_read_code_header(struct py_proc *p, uint64_t code, uint8_t *buf);
/* Header hb of the code object at code was read in this walk and found
 * unchanged: py_code_info() reads it no more in the walk. */
void py_code_checked(struct py_proc *p, uint64_t code, const uint8_t *hb);

#endif
