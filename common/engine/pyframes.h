/* SPDX-License-Identifier: MIT */
/*
 * The Python call stacks of a running CPython process, read from outside
 * it (process_vm_readv), with no change to the program: for each native
 * thread, the interpreter frames it is executing, innermost first, and
 * for each code object its names, file and the line of an instruction.
 *
 * What is read, and from where
 * ----------------------------
 * py_open() finds the CPython image among the files PID maps (a
 * libpython3.X.so, else an executable named python*), reads the address
 * of `_PyRuntime` and a few type objects from its ELF symbol table (the
 * file opened as proc_mapped_file() opens a mapped file: the mapping
 * itself, else the path inside the process's root; regular files only),
 * adds the load bias the maps give, and reads `Py_Version` from memory
 * (no such symbol before 3.11: the version is taken from the file name).
 * Only layouts this file holds a table for are read: CPython 3.9, 3.10,
 * 3.11, 3.12 and 3.13 on x86-64, the offsets taken from CPython's
 * headers and checked against them by tests/1540-pyframes.bats
 * (tests/tools/pyoffsets.c); anything else is -PROF_EUNAVAIL, one line
 * naming it ("CPython 3.14: layout not known").  3.13 publishes most of
 * its offsets at the start of _PyRuntime (_Py_DebugOffsets): those are
 * read from the process, checked (its cookie, its version, each offset
 * inside its struct), the table giving the rest.  A new version is
 * added as a table in pylayout.c (its values printed by pyoffsets.c
 * compiled against its headers), its names in layout_names[], and, where
 * its frames or line table are of another kind, the code that reads
 * them.
 *
 * py_thread_stack() walks _PyRuntime.interpreters.head -> each
 * interpreter's threads.head list -> the PyThreadState of the thread
 * (3.11 on: whose native_thread_id it is; 3.9 and 3.10 keep only the
 * pthread_t, whose thread id is read from the C library's struct
 * pthread at the place found in the main thread's: pytid.c) ->
 * cframe->current_frame (3.13: current_frame) -> the
 * _PyInterpreterFrame.previous chain (3.9, 3.10: frame -> the
 * PyFrameObject.f_back chain).  py_code_info() reads a code object's
 * co_name, co_qualname (none before 3.11: the name stands for it),
 * co_filename (compact str objects of any kind, given as UTF-8) and
 * co_firstlineno, and decodes the line of an instruction from its line
 * table (3.9: co_lnotab, 3.10: co_linetable's pairs, 3.11 on: the
 * location table); it keeps what it read per code object address.

 * Each process_vm_readv costs a system call, a ptrace access check and
 * a pinned page for each page it touches, so reads are few and done
 * together: the thread state where a thread was last found is kept
 * (read again each time and checked to be that thread's), a frame is
 * read with the memory under it (3.11 on push a call's frame after its
 * caller's: its callers are there), the code objects' headers of a
 * walk in one call, and a thread's state, its C frame's current frame,
 * its last walk's code headers and the memory where its frames were
 * then (3.9, 3.10: its frames then, heap objects that a function's
 * next call most often finds where its last left them) in one: most
 * walks of a thread whose stack moves little take one call.
 *
 * Outside memory is untrusted
 * ---------------------------
 * The process runs while it is read: every read is bounded and checked,
 * every object's type is the one expected (a code object is one whose
 * ob_type is PyCode_Type), strings and line tables are capped, chains
 * are capped, so a damaged, changing or hostile chain ends the walk with
 * a reason (the frames read before it are kept), never a crash.  A
 * process that exits is an error (-PROF_ENOENT) at any point.
 *
 * Errors follow common/util/error.h: a negative PROF_E* code with one
 * line of detail for prof_error(); nothing prints.
 *
 * Not thread-safe: one struct py_proc is used by one thread at a time.
 */
#ifndef COMMON_ENGINE_PYFRAMES_H
#define COMMON_ENGINE_PYFRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct py_proc;

/* What py_open() found of the interpreter. */
struct py_info {
	pid_t pid;
	/* PY_VERSION_HEX: 0x030b02f0 is 3.11.2; 0x030a0000 when only the
	 * minor version is known (3.10: no Py_Version before 3.11, the
	 * image's file name tells it). */
	uint32_t version;
	const char *image;	/* the file holding _PyRuntime, as mapped */
	uint64_t runtime;	/* _PyRuntime's address in the process */
	/* _PyEval_EvalFrameDefault's code in the process, [start, end);
	 * 0, 0 when the image does not export it.  Each is_entry frame
	 * (below) is the first frame of one call of it. */
	uint64_t eval_start, eval_end;
};

/*
 * Attach to the CPython of pid: *out is a new handle (free it with
 * py_close()).  -PROF_ENOENT: no such process, or no file it maps holds
 * _PyRuntime ("process N: no CPython found ..."); -PROF_EUNAVAIL: a
 * CPython whose layout is not known here (another version, another
 * machine, a version whose _PyRuntime is not the size of the layout known);
 * -PROF_EPERM: the kernel refuses to let us read its memory (reading
 * needs PTRACE_MODE_ATTACH: the same user and no Yama restriction, or
 * CAP_SYS_PTRACE); -PROF_EIO, -PROF_ENOMEM.
 */
int py_open(pid_t pid, struct py_proc **out);
void py_close(struct py_proc *p);
const struct py_info *py_info(const struct py_proc *p);
/* A py_info version as text: "3.11.2", or "3.10" when only the minor
 * version is known. */
void py_version_text(uint32_t version, char *buf, size_t len);
/* Whether a read found the process gone: every call fails since with
 * -PROF_ENOENT "process N has exited" (the one case of -PROF_ENOENT
 * that is no answer about a thread or object). */
bool py_exited(const struct py_proc *p);

/* One Python frame of a thread. */
struct py_frame {
	uint64_t frame;		/* the _PyInterpreterFrame's address */
	uint64_t code;		/* its PyCodeObject's address */
	/* The instruction: code units from the start of the bytecode to
	 * prev_instr (_PyInterpreterFrame_LASTI(): the instruction
	 * executing, or the last cache unit of a call in progress); -1 in a
	 * frame that has not started. */
	int32_t instr;
	/* The first (outermost) frame of one C call of the eval loop
	 * (_PyEval_EvalFrameDefault): walking from the innermost frame, the
	 * frames up to and including an is_entry one are what that one
	 * native frame runs.  3.9 and 3.10 run each frame in a call of
	 * its own: every frame is one.  3.11 marks such frames; 3.12 on
	 * puts a shim
	 * frame (FRAME_OWNED_BY_CSTACK) under them, which is not listed.
	 * A shim with no frame before it (the innermost: a call entering
	 * or leaving the eval loop) is listed, as an incomplete entry frame
	 * whose code is 0, so that each call still has its entry frame. */
	bool is_entry;
	/* A frame that has not reached its first instruction
	 * (_PyFrame_IsIncomplete()).  Such frames are skipped, as CPython's
	 * own walkers skip them, except an entry frame, which is kept (with
	 * this flag) so that the entry frames still count the eval loop's
	 * native frames; a listing of the Python stack leaves it out. */
	bool incomplete;
	uint8_t owner;		/* 0 thread, 1 generator, 2 frame object,
				 * 3 the C stack (a shim: code 0) */
};

/* The most frames one walk visits (skipped ones included). */
#define PY_MAX_WALK 65536

/*
 * The Python frames of native thread tid of the process, innermost
 * first, in out[0..*n) (at most max).
 *
 * 0: the whole chain was read (*n may be 0: the thread is between Python
 * calls).  -PROF_EFORMAT: the walk stopped before the chain's end, the
 * detail says why (a pointer that cannot be read, a frame that is not
 * one, more than max frames, ...): the *n frames before are good.
 * -PROF_ENOENT: no Python thread state has that native thread id (a
 * thread that runs no Python, or not yet), or the process has exited:
 * the detail says which.  -PROF_EPERM, -PROF_EIO.  A walk that stops at
 * its innermost frame (one being pushed or popped as it is read) is
 * done again, twice at most.
 */
int py_thread_stack(struct py_proc *p, pid_t tid, struct py_frame *out,
		    size_t max, size_t *n);

/* A thread's user stack as a sample copied it: len bytes from sp; and
 * its Python frames where the kernel copied them at the sample
 * (perfbpf.h): frames_len bytes at frames, or NULL. */
struct py_stack_copy {
	uint64_t sp;
	const uint8_t *data;
	size_t len;
	const uint8_t *frames;
	size_t frames_len;
};

/*
 * py_thread_stack() for a sample of thread tid whose stack copy is copy
 * (NULL: none).  3.11 and 3.12 keep the innermost frame in the eval
 * loop's C frame, on the C stack: where the copy holds it, the walk
 * starts from the frame the thread was in when the sample was taken,
 * not from the one it is in now (a thread that has called deeper since
 * is read as it was), and that read is saved.  Where the copy holds
 * the frames themselves (copy->frames), what they hold is read from
 * there, the rest from the process.  A walk that fails at its first
 * frame is done again from the thread's frames of now.
 */
int py_sample_stack(struct py_proc *p, pid_t tid,
		    const struct py_stack_copy *copy, struct py_frame *out,
		    size_t max, size_t *n);

/*
 * What a BPF program on the sampling events copies of pid's threads at
 * each sample (perfbpf.h): the layout's offsets, into *out; and where
 * thread tid's state was last found, into *out (0: tid's is not
 * known; the thread's walk finds it).  Types: sample_bpf.h's.
 */
struct sbpf_proc;
struct sbpf_thread;
void py_bpf_proc_of(const struct py_proc *p, struct sbpf_proc *out);
int py_bpf_thread_of(const struct py_proc *p, pid_t tid,
		  struct sbpf_thread *out);

/* Whether walks read only the sample's copy of its frames (the process
 * being too far past the sample): a read it does not hold fails, and
 * the walk stops there with that reason. */
void py_copy_only(struct py_proc *p, bool on);

/* What py_code_info() gives of a code object and one instruction. */
struct py_code {
	/* UTF-8, NUL-terminated, valid until py_close(); a string longer
	 * than PY_MAX_STR characters is cut there and ends in "...". */
	const char *name;	/* co_name */
	const char *qualname;	/* co_qualname: "Class.method" */
	const char *filename;	/* co_filename */
	int firstlineno;	/* co_firstlineno */
	int line;		/* the instruction's line; -1: it has none */
};

#define PY_MAX_STR 1024		/* characters of a string read */
#define PY_MAX_LINETABLE 65536	/* bytes of a line table read */

/*
 * The code object at code (a py_frame's), and the line of its
 * instruction instr (a py_frame's: -1 gives co_firstlineno, as CPython
 * does).  What was read is kept per address, and checked against the
 * object's header on each call (a freed code object's address may hold
 * another since).  0; -PROF_EFORMAT when code is not a readable code
 * object or one of its strings or its line table is not what it should
 * be (the detail says which); -PROF_ENOENT: the process has exited;
 * -PROF_ENOMEM.
 */
int py_code_info(struct py_proc *p, uint64_t code, int32_t instr,
		 struct py_code *out);

/*
 * The line of instruction instr (in code units) in a location table
 * (co_linetable, 3.11 on) of a code object whose first line is
 * firstlineno: -1 when its entry has no location or the table does not
 * reach it; firstlineno when instr < 0.  Pure: what py_code_info() runs
 * on the table it read.
 */
int py_linetable_line(const uint8_t *table, size_t len, int firstlineno,
		      int32_t instr);

/* The same in the line table of CPython 3.minor (3.9: co_lnotab, 3.10:
 * co_linetable's pairs, 3.11 on: py_linetable_line()'s); -1 for a
 * version with no layout known. */
int py_table_line(unsigned minor, const uint8_t *table, size_t len,
		  int firstlineno, int32_t instr);

/* One value of a layout table: NAME as CPython's headers spell it
 * (tests/tools/pyoffsets.c prints the same names), and its value. */
struct py_layout_value {
	const char *name;
	uint64_t value;
};

/* The layout table of CPython 3.minor, as name-value pairs in out[] (at
 * most max); returns how many values the table has, 0 when there is no
 * table for that version.  From 3.13 on, the table includes where in
 * _Py_DebugOffsets the offsets the process publishes are read from
 * ("_Py_DebugOffsets.thread_state.current_frame"). */
size_t py_layout_values(unsigned minor, struct py_layout_value *out,
			size_t max);

/* The same, of the layout py_open() found for p: the table's, with what
 * the process publishes of it (3.13 on) in place. */
size_t py_proc_layout_values(const struct py_proc *p,
			     struct py_layout_value *out, size_t max);

#endif
