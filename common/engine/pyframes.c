/* SPDX-License-Identifier: MIT */
/*
 * CPython call stacks read from outside the process (pyframes.h): the
 * interpreter found in the maps and its ELF symbols, its thread states
 * and frames walked through process_vm_readv, code objects' names and
 * lines decoded here.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pyframes.h"
#include "proc.h"
#include "common/collect/collect.h"
#include "common/util/array.h"
#include "common/util/bytes.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "common/util/strpool.h"

/*
 * The layout of the structures read, per CPython minor version and
 * machine: offsets in bytes, sizes, masks of PyASCIIObject.state's bit
 * fields; NONE where a version has no such field.  Taken from CPython's
 * headers (Include/internal/ included); tests/tools/pyoffsets.c prints
 * the same values from the headers installed, and
 * tests/1540-pyframes.bats checks this table equals them (names in
 * layout_names[], each for the versions that spell it so).
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

struct layout {
	unsigned minor;
	uint16_t machine;		/* e_machine of the image */
	bool debug_offsets;		/* _PyRuntime starts with them */
	uint32_t runtime_size;		/* sizeof(_PyRuntimeState) */
	uint32_t rt_interp_head;	/* _PyRuntimeState.interpreters.head */
	uint32_t is_next;		/* PyInterpreterState.next */
	uint32_t is_threads_head;	/* PyInterpreterState.threads.head */
	uint32_t ts_next;		/* PyThreadState.next */
	uint32_t ts_interp;		/* PyThreadState.interp */
	uint32_t ts_native_tid;		/* PyThreadState.native_thread_id */
	/* PyThreadState.cframe (3.11, 3.12), .current_frame (3.13) */
	uint32_t ts_frame;
	/* _PyCFrame.current_frame; NONE: ts_frame is the frame */
	uint32_t cf_current_frame;
	uint32_t fr_code;		/* _PyInterpreterFrame.f_code
					 * (3.13: f_executable) */
	uint32_t fr_previous;		/* .previous */
	uint32_t fr_instr;		/* .prev_instr (3.13: instr_ptr) */
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

static const struct layout layouts[] = {
	{
		/* CPython 3.11 on x86-64 (3.11.2 and 3.11.7 alike). */
		.minor = 11,
		.machine = EM_X86_64,
		.runtime_size = 166688,
		.rt_interp_head = 40,
		.is_next = 0,
		.is_threads_head = 16,
		.ts_next = 8,
		.ts_interp = 16,
		.ts_native_tid = 160,
		.ts_frame = 56,
		.cf_current_frame = 8,
		.fr_code = 32,
		.fr_previous = 48,
		.fr_instr = 56,
		.fr_is_entry = 68,
		.fr_owner = 69,
		.owner_generator = 1,
		.owner_frame_object = 2,
		.owner_cstack = NONE,
		.ob_type = 8,
		.ob_size = 16,
		.co_firstlineno = 72,
		.co_filename = 112,
		.co_name = 120,
		.co_qualname = 128,
		.co_linetable = 136,
		.co_firsttraceable = 168,
		.co_code = 184,
		.codeunit_size = 2,
		.str_length = 16,
		.str_state = 32,
		.str_kind = 0x1c,
		.str_compact = 0x20,
		.str_ascii = 0x40,
		.str_ready = 0x80,
		.str_ascii_size = 48,
		.str_compact_size = 72,
		.bytes_data = 32,
	},
	{
		/* CPython 3.12 on x86-64 (3.12.1). */
		.minor = 12,
		.machine = EM_X86_64,
		.runtime_size = 459944,
		.rt_interp_head = 40,
		.is_next = 0,
		.is_threads_head = 72,
		.ts_next = 8,
		.ts_interp = 16,
		.ts_native_tid = 144,
		.ts_frame = 56,
		.cf_current_frame = 0,
		.fr_code = 0,
		.fr_previous = 8,
		.fr_instr = 56,
		.fr_is_entry = NONE,
		.fr_owner = 70,
		.owner_generator = 1,
		.owner_frame_object = 2,
		.owner_cstack = 3,
		.ob_type = 8,
		.ob_size = 16,
		.co_firstlineno = 68,
		.co_filename = 112,
		.co_name = 120,
		.co_qualname = 128,
		.co_linetable = 136,
		.co_firsttraceable = 176,
		.co_code = 192,
		.codeunit_size = 2,
		.str_length = 16,
		.str_state = 32,
		.str_kind = 0x1c,
		.str_compact = 0x20,
		.str_ascii = 0x40,
		.str_ready = 0,
		.str_ascii_size = 40,
		.str_compact_size = 56,
		.bytes_data = 32,
	},
	{
		/* CPython 3.13 on x86-64 (3.13.0); what debug_fields[]
		 * names is read from the process. */
		.minor = 13,
		.machine = EM_X86_64,
		.debug_offsets = true,
		.runtime_size = 283320,
		.rt_interp_head = 632,
		.is_next = 7264,
		.is_threads_head = 7344,
		.ts_next = 8,
		.ts_interp = 16,
		.ts_native_tid = 160,
		.ts_frame = 72,
		.cf_current_frame = NONE,
		.fr_code = 0,
		.fr_previous = 8,
		.fr_instr = 56,
		.fr_is_entry = NONE,
		.fr_owner = 70,
		.owner_generator = 1,
		.owner_frame_object = 2,
		.owner_cstack = 3,
		.ob_type = 8,
		.ob_size = 16,
		.co_firstlineno = 68,
		.co_filename = 112,
		.co_name = 120,
		.co_qualname = 128,
		.co_linetable = 136,
		.co_firsttraceable = 184,
		.co_code = 200,
		.codeunit_size = 2,
		.str_length = 16,
		.str_state = 32,
		.str_kind = 0x1c,
		.str_compact = 0x20,
		.str_ascii = 0x40,
		.str_ready = 0,
		.str_ascii_size = 40,
		.str_compact_size = 56,
		.bytes_data = 32,
	},
};

/* The names of the values, as CPython's headers spell them in versions
 * 3.lo to 3.hi (a field a version has not is NONE in its table). */
#define LN(field, name, ...) { name, offsetof(struct layout, field), __VA_ARGS__ }
#define ALL 0, 99
static const struct {
	const char *name;
	size_t at;
	unsigned lo, hi;
} layout_names[] = {
	LN(runtime_size, "sizeof(_PyRuntimeState)", ALL),
	LN(rt_interp_head, "_PyRuntimeState.interpreters.head", ALL),
	LN(is_next, "PyInterpreterState.next", ALL),
	LN(is_threads_head, "PyInterpreterState.threads.head", ALL),
	LN(ts_next, "PyThreadState.next", ALL),
	LN(ts_interp, "PyThreadState.interp", ALL),
	LN(ts_native_tid, "PyThreadState.native_thread_id", ALL),
	LN(ts_frame, "PyThreadState.cframe", 11, 12),
	LN(ts_frame, "PyThreadState.current_frame", 13, 99),
	LN(cf_current_frame, "_PyCFrame.current_frame", 11, 12),
	LN(fr_code, "_PyInterpreterFrame.f_code", 11, 12),
	LN(fr_code, "_PyInterpreterFrame.f_executable", 13, 99),
	LN(fr_previous, "_PyInterpreterFrame.previous", 11, 99),
	LN(fr_instr, "_PyInterpreterFrame.prev_instr", 11, 12),
	LN(fr_instr, "_PyInterpreterFrame.instr_ptr", 13, 99),
	LN(fr_is_entry, "_PyInterpreterFrame.is_entry", 11, 11),
	LN(fr_owner, "_PyInterpreterFrame.owner", 11, 99),
	LN(owner_generator, "FRAME_OWNED_BY_GENERATOR", 11, 99),
	LN(owner_frame_object, "FRAME_OWNED_BY_FRAME_OBJECT", 11, 99),
	LN(owner_cstack, "FRAME_OWNED_BY_CSTACK", 12, 99),
	LN(ob_type, "PyObject.ob_type", ALL),
	LN(ob_size, "PyVarObject.ob_size", ALL),
	LN(co_firstlineno, "PyCodeObject.co_firstlineno", ALL),
	LN(co_filename, "PyCodeObject.co_filename", ALL),
	LN(co_name, "PyCodeObject.co_name", ALL),
	LN(co_qualname, "PyCodeObject.co_qualname", 11, 99),
	LN(co_linetable, "PyCodeObject.co_linetable", 11, 99),
	LN(co_firsttraceable, "PyCodeObject._co_firsttraceable", 11, 99),
	LN(co_code, "PyCodeObject.co_code_adaptive", 11, 99),
	LN(codeunit_size, "sizeof(_Py_CODEUNIT)", 11, 99),
	LN(str_length, "PyASCIIObject.length", ALL),
	LN(str_state, "PyASCIIObject.state", ALL),
	LN(str_kind, "PyASCIIObject.state.kind", ALL),
	LN(str_compact, "PyASCIIObject.state.compact", ALL),
	LN(str_ascii, "PyASCIIObject.state.ascii", ALL),
	LN(str_ready, "PyASCIIObject.state.ready", 0, 11),
	LN(str_ascii_size, "sizeof(PyASCIIObject)", ALL),
	LN(str_compact_size, "sizeof(PyCompactUnicodeObject)", ALL),
	LN(bytes_data, "PyBytesObject.ob_sval", ALL),
};
#undef LN
#undef ALL

/*
 * The offsets 3.13 publishes in _Py_DebugOffsets that are read: where
 * each is in it (at), the layout field it sets, where the size of the
 * struct that holds the field is (size_at; NONE: it is a size), and the
 * field's width (it must end inside that struct).  Positions as in 3.13's
 * Include/internal/pycore_runtime.h: a cookie, the version, whether
 * free-threaded, then per struct its size and its fields' offsets, all
 * uint64_t.
 */
#define DEBUG_COOKIE "xdebugpy"
#define DEBUG_VERSION 8			/* .version: PY_VERSION_HEX */
#define DEBUG_FREE_THREADED 16		/* .free_threaded */
#define DEBUG_LEN 584			/* sizeof(_Py_DebugOffsets) */

#define DF(name, at, field, size_at, width) \
	{ "_Py_DebugOffsets." name, at, offsetof(struct layout, field), \
	  size_at, width }
static const struct {
	const char *name;
	uint32_t at;
	size_t field;
	uint32_t size_at;
	uint32_t width;
} debug_fields[] = {
	DF("runtime_state.size", 24, runtime_size, NONE, 0),
	DF("runtime_state.interpreters_head", 40, rt_interp_head, 24, 8),
	DF("interpreter_state.next", 64, is_next, 48, 8),
	DF("interpreter_state.threads_head", 72, is_threads_head, 48, 8),
	DF("thread_state.next", 168, ts_next, 152, 8),
	DF("thread_state.interp", 176, ts_interp, 152, 8),
	DF("thread_state.current_frame", 184, ts_frame, 152, 8),
	DF("thread_state.native_thread_id", 200, ts_native_tid, 152, 8),
	DF("interpreter_frame.previous", 232, fr_previous, 224, 8),
	DF("interpreter_frame.executable", 240, fr_code, 224, 8),
	DF("interpreter_frame.instr_ptr", 248, fr_instr, 224, 8),
	DF("interpreter_frame.owner", 264, fr_owner, 224, 1),
	DF("code_object.filename", 280, co_filename, 272, 8),
	DF("code_object.name", 288, co_name, 272, 8),
	DF("code_object.qualname", 296, co_qualname, 272, 8),
	DF("code_object.linetable", 304, co_linetable, 272, 8),
	DF("code_object.firstlineno", 312, co_firstlineno, 272, 4),
	DF("code_object.co_code_adaptive", 344, co_code, 272, 0),
	DF("pyobject.ob_type", 360, ob_type, 352, 8),
	DF("bytes_object.ob_size", 520, ob_size, 512, 8),
	DF("bytes_object.ob_sval", 528, bytes_data, 512, 0),
	DF("unicode_object.state", 544, str_state, 536, 4),
	DF("unicode_object.length", 552, str_length, 536, 8),
	DF("unicode_object.asciiobject_size", 560, str_ascii_size, NONE, 0),
};
#undef DF

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const struct layout *layout_of(unsigned minor)
{
	size_t i;

	for (i = 0; i < NELEM(layouts); i++)
		if (layouts[i].minor == minor)
			return &layouts[i];
	return NULL;
}

/* The values of layout l, as name-value pairs in out[] (at most max):
 * how many there are. */
static size_t layout_values(const struct layout *l,
			    struct py_layout_value *out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < NELEM(layout_names); i++) {
		const uint32_t *v = (const uint32_t *)(const void *)
			((const char *)l + layout_names[i].at);

		if (l->minor < layout_names[i].lo ||
		    l->minor > layout_names[i].hi)
			continue;
		if (n < max) {
			out[n].name = layout_names[i].name;
			out[n].value = *v;
		}
		n++;
	}
	/* Where the offsets published are read from. */
	for (i = 0; l->debug_offsets && i < NELEM(debug_fields); i++, n++)
		if (n < max) {
			out[n].name = debug_fields[i].name;
			out[n].value = debug_fields[i].at;
		}
	if (l->debug_offsets) {
		if (n < max) {
			out[n].name = "sizeof(_Py_DebugOffsets)";
			out[n].value = DEBUG_LEN;
		}
		n++;
	}
	return n;
}

size_t py_layout_values(unsigned minor, struct py_layout_value *out,
			size_t max)
{
	const struct layout *l = layout_of(minor);

	return l ? layout_values(l, out, max) : 0;
}


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

/* A code object's strings and line table, as read (key: its address and
 * the header fields that name them). */
struct code_entry {
	uint64_t addr;
	uint64_t key[4];	/* co_filename, co_name, co_qualname,
				 * co_linetable */
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
	uint64_t cframe;	/* its C frame (3.11, 3.12) when last read */
	uint64_t frame;		/* its innermost frame when last read */
	uint64_t low;		/* its outermost frame read with it */
	/* The code objects of its frames at its last walk: likely those of
	 * the next, their headers read with the thread state. */
	uint64_t codes[SPEC_CODES];
	size_t ncodes;
};

/* Reads done in one process_vm_readv: the kernel reads them in order
 * and stops at the first it cannot read whole. */
#define BATCH_MAX (WALK_CHUNK + 8)
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
	struct strpool strings;
	struct code_entry *codes;
	size_t ncodes, codes_alloc;
	struct hashmap index;	/* code address -> codes[] */
	uint64_t walks;		/* py_thread_stack() calls */
	const struct py_stack_copy *copy;	/* the walk's sample's */
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
};

/* ------------------------------------------------------------------ */
/* Reading the process */

/* Whether pid is gone: no /proc entry, or a zombie that has no memory. */
static bool process_gone(pid_t pid)
{
	char path[64], buf[512], *rp;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	return !rp || rp[1] != ' ' || rp[2] == 'Z' || rp[2] == 'X';
}

/*
 * len bytes of the process at addr into buf: 0, or -PROF_EFORMAT
 * ("cannot read WHAT at ADDR"; a NULL, an address no mapping holds, a
 * read cut short), -PROF_ENOENT when the process has exited,
 * -PROF_EPERM when the kernel refuses.
 */
static int rd(struct py_proc *p, uint64_t addr, void *buf, size_t len,
	      const char *what)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t got;
	int err;

	if (p->exited)
		return prof_fail(PROF_ENOENT, "process %d has exited",
				 (int)p->info.pid);
	if (!addr || addr + len < addr)
		return prof_fail(PROF_EFORMAT, "%s at %#" PRIx64 ": not an "
				 "address", what, addr);
	got = process_vm_readv(p->info.pid, &local, 1, &remote, 1, 0);
	if (got == (ssize_t)len)
		return 0;
	err = got < 0 ? errno : EFAULT;
	if (err == ESRCH || process_gone(p->info.pid)) {
		p->exited = true;
		return prof_fail(PROF_ENOENT, "process %d has exited",
				 (int)p->info.pid);
	}
	if (err == EPERM || err == EACCES)
		return prof_fail(PROF_EPERM, "cannot read the memory of "
				 "process %d: %s", (int)p->info.pid,
				 strerror(err));
	if (err == ENOMEM)
		return -PROF_ENOMEM;
	return prof_fail(PROF_EFORMAT, "cannot read %s at %#" PRIx64 "%s",
			 what, addr, got >= 0 ? " (cut short)" : "");
}

/* The n-byte (1, 4 or 8) little-endian word at off of buf's len bytes;
 * 0 past the end (never: what is read of a struct is sized to hold the
 * fields used, set_extents()). */
static uint64_t word(const uint8_t *buf, size_t len, uint32_t off,
		     unsigned n)
{
	struct bytes b = bytes_of(buf, len);

	bytes_skip(&b, off);
	return bytes_u(&b, n);
}

/* Whether addr may be a pointer to a struct of the process: not NULL,
 * aligned, below the end of x86-64's user space (5-level paging's). */
static bool ptr_ok(uint64_t addr)
{
	return addr && !(addr & 7) && addr < (1ULL << 56);
}

/* Add the read of len bytes at addr into buf to b: its index. */
static size_t batch_add(struct batch *b, void *buf, uint64_t addr,
			size_t len)
{
	b->local[b->n] = (struct iovec){ buf, len };
	b->remote[b->n] = (struct iovec){ (void *)(uintptr_t)addr, len };
	return b->n++;
}

/*
 * Do b's reads in one system call: how many of them, from the first,
 * were read whole.  Failures are not told apart here: a caller that
 * needs a read that was not done does it alone with rd(), which says
 * why it fails (or reads it, the process having moved on).
 */
static size_t batch_read(struct py_proc *p, const struct batch *b)
{
	ssize_t got;
	size_t i;

	if (p->exited || !b->n)
		return 0;
	got = process_vm_readv(p->info.pid, b->local, b->n, b->remote, b->n,
			       0);
	for (i = 0; got > 0 && i < b->n; i++) {
		if ((size_t)got < b->local[i].iov_len)
			break;
		got -= (ssize_t)b->local[i].iov_len;
	}
	return got < 0 ? 0 : i;
}

/*
 * Add to b the reads of the window [lo, hi) around addr (at most WIN_LEN
 * bytes, cut below) into p->win: the part in addr's page first, the rest
 * (another page, which may not be mapped) second.  win_set() then says
 * what was read.  Returns the index of the first read.
 */
static size_t win_add(struct py_proc *p, struct batch *b, uint64_t lo,
		      uint64_t hi, uint64_t addr)
{
	uint64_t page = addr & ~(uint64_t)(WIN_PAGE - 1);
	uint64_t a, z;
	size_t first;

	if (hi - lo > WIN_LEN)
		lo = hi - WIN_LEN;
	a = lo > page ? lo : page;
	z = hi < page + WIN_PAGE ? hi : page + WIN_PAGE;

	p->win_base = lo;
	p->win_lo = p->win_hi = 0;
	first = batch_add(b, p->win + (a - lo), a, z - a);
	p->win_reads = 1 + (lo < a || z < hi);
	if (lo < a)
		batch_add(b, p->win, lo, a - lo);
	else if (z < hi)
		batch_add(b, p->win + (z - lo), z, hi - z);
	return first;
}

/* What of the window added at b's read first was read: whole reads. */
static void win_set(struct py_proc *p, const struct batch *b, size_t first,
		    size_t whole)
{
	size_t i;

	for (i = first; i < whole && i < first + p->win_reads; i++) {
		uint64_t a = (uint64_t)(uintptr_t)b->remote[i].iov_base;
		uint64_t z = a + b->remote[i].iov_len;

		if (i == first) {
			p->win_lo = a;
			p->win_hi = z;
		} else if (z == p->win_lo) {
			p->win_lo = a;
		} else if (a == p->win_hi) {
			p->win_hi = z;
		}
	}
}

/* Whether the window holds [addr, addr + len). */
static bool in_win(const struct py_proc *p, uint64_t addr, size_t len)
{
	return addr >= p->win_lo && addr < p->win_hi &&
	       len <= p->win_hi - addr;
}

/* ------------------------------------------------------------------ */
/* Finding the interpreter: the maps, the image's ELF symbols */

struct mapping {
	uint64_t start, end, pgoff;
	struct collect_file_id id;
	char perm[5];
	char *path;		/* NULL: anonymous */
};

struct maps {
	struct mapping *m;
	size_t n, alloc;
};

static void maps_free(struct maps *ms)
{
	size_t i;

	for (i = 0; i < ms->n; i++)
		free(ms->m[i].path);
	free(ms->m);
}

static int maps_read(pid_t pid, struct maps *ms)
{
	char path[64], line[4352];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT || errno == ESRCH ?
			prof_fail(PROF_ENOENT, "no process %d", (int)pid) :
			prof_fail(errno == EACCES ? PROF_EPERM : PROF_EIO,
				  "cannot read %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, ino;
		unsigned maj, min;
		struct mapping *m;
		char perm[8];
		int at = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu%n", &lo, &hi,
			   perm, &off, &maj, &min, &ino, &at) < 7 || hi <= lo)
			continue;
		if (ALLOC_GROW(ms->m, ms->n + 1, ms->alloc)) {
			fclose(f);
			return -PROF_ENOMEM;
		}
		m = &ms->m[ms->n++];
		memset(m, 0, sizeof(*m));
		m->start = lo;
		m->end = hi;
		m->pgoff = off;
		m->id = (struct collect_file_id){ maj, min, ino };
		snprintf(m->perm, sizeof(m->perm), "%.4s", perm);
		while (line[at] == ' ')
			at++;
		line[strcspn(line, "\n")] = '\0';
		if (ino && line[at] == '/' && !(m->path = strdup(line + at))) {
			fclose(f);
			return -PROF_ENOMEM;
		}
	}
	fclose(f);
	if (!ms->n)
		return prof_fail(process_gone(pid) ? PROF_ENOENT : PROF_EIO,
				 "process %d has no mappings (exited?)",
				 (int)pid);
	return 0;
}

static bool same_file(const struct mapping *a, const struct mapping *b)
{
	return a->id.maj == b->id.maj && a->id.min == b->id.min &&
	       a->id.ino == b->id.ino;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* How likely a mapped file is CPython's image: 1 a libpython, 2 a
 * python executable, 0 neither. */
static int image_rank(const struct mapping *m)
{
	const char *b;

	if (!m->path)
		return 0;
	b = base_name(m->path);
	if (!strncmp(b, "libpython", 9))
		return 1;
	return strncmp(b, "python", 6) ? 0 : 2;
}

/* The symbols read from the image (value, size; found). */
enum { S_RUNTIME, S_VERSION, S_CODE, S_STR, S_BYTES, S_EVAL, S_N };
static const char *const sym_names[S_N] = {
	[S_RUNTIME] = "_PyRuntime",
	[S_VERSION] = "Py_Version",
	[S_CODE] = "PyCode_Type",
	[S_STR] = "PyUnicode_Type",
	[S_BYTES] = "PyBytes_Type",
	[S_EVAL] = "_PyEval_EvalFrameDefault",
};

struct image {
	uint16_t machine, type;
	uint64_t value[S_N], size[S_N];
	bool found[S_N];
	/* The first PT_LOAD (lowest address): what the load bias is
	 * computed from. */
	uint64_t load_vaddr, load_offset;
	bool has_load;
};

static void scan_symbols(Elf *elf, Elf_Scn *scn, struct image *im)
{
	GElf_Shdr sh;
	Elf_Data *data;
	size_t i, n;

	if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
	    !(data = elf_getdata(scn, NULL)))
		return;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int k;

		if (!gelf_getsym(data, (int)i, &sym) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value ||
		    !(name = elf_strptr(elf, sh.sh_link, sym.st_name)))
			continue;
		for (k = 0; k < S_N; k++)
			if (!im->found[k] && !strcmp(name, sym_names[k])) {
				im->value[k] = sym.st_value;
				im->size[k] = sym.st_size;
				im->found[k] = true;
			}
	}
}

/* The symbols and first PT_LOAD of the ELF object open at fd: 0, or
 * -1 when it is no 64-bit little-endian ELF object libelf reads. */
static int read_image(int fd, struct image *im)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t i, nph;
	Elf *elf;
	int pass;

	memset(im, 0, sizeof(*im));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		elf_end(elf);
		return -1;
	}
	im->machine = eh.e_machine;
	im->type = eh.e_type;
	/* The dynamic symbols first (what the loader sees), the full table
	 * of an unstripped image after them. */
	for (pass = 0; pass < 2; pass++)
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) &&
			    sh.sh_type == (pass ? SHT_SYMTAB : SHT_DYNSYM))
				scan_symbols(elf, scn, im);
		}
	if (!elf_getphdrnum(elf, &nph))
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) ||
			    ph.p_type != PT_LOAD ||
			    (im->has_load && ph.p_vaddr >= im->load_vaddr))
				continue;
			im->load_vaddr = ph.p_vaddr;
			im->load_offset = ph.p_offset;
			im->has_load = true;
		}
	elf_end(elf);
	return 0;
}

/*
 * The load bias of the image whose mappings are those of file f: the
 * first PT_LOAD is mapped from its page-aligned file offset at its
 * page-aligned address plus the bias (its lowest such mapping).
 */
static int load_bias(const struct maps *ms, const struct mapping *f,
		     const struct image *im, uint64_t *bias)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t off = im->load_offset & ~(page - 1);
	uint64_t vaddr = im->load_vaddr & ~(page - 1);
	const struct mapping *best = NULL;
	size_t i;

	for (i = 0; i < ms->n; i++) {
		const struct mapping *m = &ms->m[i];

		if (same_file(m, f) && m->pgoff == off &&
		    (!best || m->start < best->start))
			best = m;
	}
	if (!im->has_load || !best)
		return -1;
	*bias = best->start - vaddr;
	/* An executable that is not position-independent is where it was
	 * linked. */
	return im->type == ET_EXEC && *bias ? -1 : 0;
}

/* Whether writable mappings cover [addr, addr + len) without a gap. */
static bool in_writable(const struct maps *ms, uint64_t addr, uint64_t len)
{
	uint64_t at = addr, end = addr + len;
	size_t i;

	if (end < addr)
		return false;
	while (at < end) {
		for (i = 0; i < ms->n; i++)
			if (ms->m[i].start <= at && at < ms->m[i].end &&
			    ms->m[i].perm[1] == 'w')
				break;
		if (i == ms->n)
			return false;
		at = ms->m[i].end;
	}
	return true;
}

/* The minor version in a file name "libpython3.10.so.1.0",
 * "python3.9": 0 when it says none. */
static unsigned minor_from_name(const char *path)
{
	const char *s = strstr(base_name(path), "python3.");
	unsigned minor = 0;

	if (!s)
		return 0;
	for (s += 8; *s >= '0' && *s <= '9' && minor < 1000; s++)
		minor = minor * 10 + (unsigned)(*s - '0');
	return minor;
}

/* The version of the image at bias (PY_VERSION_HEX in *hex, 0 when only
 * the name tells the minor version, in *minor). */
static int image_version(struct py_proc *p, const struct mapping *f,
			 const struct image *im, uint64_t bias,
			 uint32_t *hex, unsigned *minor)
{
	uint8_t buf[8];
	int rc;

	*hex = 0;
	*minor = 0;
	if (im->found[S_VERSION]) {
		rc = rd(p, bias + im->value[S_VERSION], buf, sizeof(buf),
			"Py_Version");
		if (rc)
			return rc;
		*hex = (uint32_t)word(buf, sizeof(buf), 0, 4);
		if (*hex >> 24 != 3)
			return prof_fail(PROF_EUNAVAIL, "process %d: %s: "
					 "Py_Version %#" PRIx32 " is no "
					 "CPython 3", (int)p->info.pid,
					 f->path, *hex);
		*minor = (*hex >> 16) & 0xff;
		return 0;
	}
	*minor = minor_from_name(f->path);
	if (!*minor)
		return prof_fail(PROF_EUNAVAIL, "process %d: %s: CPython of "
				 "unknown version (no Py_Version, no version "
				 "in the name)", (int)p->info.pid, f->path);
	return 0;
}

static const char *machine_name(uint16_t m)
{
	switch (m) {
	case EM_X86_64:
		return "x86-64";
	case EM_AARCH64:
		return "AArch64";
	case EM_386:
		return "i386";
	default:
		return "another machine";
	}
}

/* "3.11.2", or "3.10" when only the minor version is known. */
static void version_text(uint32_t hex, unsigned minor, char *buf,
			 size_t len)
{
	if (hex)
		snprintf(buf, len, "3.%u.%u", (hex >> 16) & 0xff,
			 (hex >> 8) & 0xff);
	else
		snprintf(buf, len, "3.%u", minor);
}

/* The largest of n ends of fields (offset + width): how much of a
 * struct holds them. */
static size_t extent(const uint32_t *ends, size_t n)
{
	size_t i, m = 0;

	for (i = 0; i < n; i++)
		if (ends[i] > m)
			m = ends[i];
	return m;
}

/* The end of a field of width n at off: 0 when there is none (NONE). */
static uint32_t end_of(uint32_t off, uint32_t n)
{
	return off == NONE ? 0 : off + n;
}

/* What is read of each struct of layout l; -1 when a part would not
 * fit the buffers (a table entered wrong). */
static int set_extents(struct py_proc *p, const struct layout *l)
{
	const uint32_t ts[] = { l->ts_next + 8, l->ts_interp + 8,
				l->ts_frame + 8, l->ts_native_tid + 8 };
	const uint32_t fr[] = { l->fr_code + 8, l->fr_previous + 8,
				l->fr_instr + 8, end_of(l->fr_is_entry, 1),
				l->fr_owner + 1 };
	const uint32_t co[] = { l->ob_type + 8, l->ob_size + 8,
				l->co_firsttraceable + 4 };
	const uint32_t ci[] = { l->ob_type + 8, l->ob_size + 8,
				l->co_firstlineno + 4, l->co_filename + 8,
				l->co_name + 8, l->co_qualname + 8,
				l->co_linetable + 8 };
	const uint32_t str[] = { l->ob_type + 8, l->str_length + 8,
				 l->str_state + 4 };
	const uint32_t by[] = { l->ob_type + 8, l->ob_size + 8 };

	p->ts_len = extent(ts, NELEM(ts));
	p->frame_len = extent(fr, NELEM(fr));
	p->code_len = extent(co, NELEM(co));
	p->code_info_len = extent(ci, NELEM(ci));
	p->code_hdr_len = p->code_len > p->code_info_len ? p->code_len :
			  p->code_info_len;
	return p->ts_len > HEADER_MAX ||
	       p->frame_len > HEADER_MAX || p->code_info_len > HEADER_MAX ||
	       p->code_len > HEADER_MAX ||
	       extent(str, NELEM(str)) > l->str_ascii_size ||
	       l->str_ascii_size > HEADER_MAX ||
	       extent(by, NELEM(by)) > l->bytes_data ||
	       l->bytes_data > HEADER_MAX || !l->str_kind ? -1 : 0;
}

/* The largest size of a struct published that is believed (the
 * interpreter state of 3.13 is some 100 kB). */
#define DEBUG_MAX_SIZE (1u << 24)

/*
 * 3.13 on: the offsets the process publishes at the start of _PyRuntime
 * (at runtime) into p->lay, checked: the cookie, the version (hex, as
 * Py_Version says), a build that is not free-threaded (whose objects have
 * another header), each field inside its struct.  The values it does not
 * publish keep their place relative to the nearest that it does:
 * _co_firsttraceable to co_code_adaptive, sizeof(PyCompactUnicodeObject)
 * to sizeof(PyASCIIObject).
 */
static int read_debug_offsets(struct py_proc *p, uint64_t runtime,
			      uint32_t hex, const char *v)
{
	struct layout *l = &p->lay;
	const struct layout *table = layout_of(l->minor);
	uint8_t d[DEBUG_LEN];
	uint64_t version;
	size_t i;
	int rc;

	rc = rd(p, runtime, d, sizeof(d), "_PyRuntime.debug_offsets");
	if (rc)
		return rc;
	if (memcmp(d, DEBUG_COOKIE, 8))
		return prof_fail(PROF_EUNAVAIL, "CPython %s: _PyRuntime does "
				 "not start with its debug offsets (no cookie; "
				 "process %d)", v, (int)p->info.pid);
	version = word(d, sizeof(d), DEBUG_VERSION, 8);
	if (hex && version != hex)
		return prof_fail(PROF_EUNAVAIL, "CPython %s: its debug offsets "
				 "are of version %#" PRIx64 " (process %d)", v,
				 version, (int)p->info.pid);
	if (word(d, sizeof(d), DEBUG_FREE_THREADED, 8))
		return prof_fail(PROF_EUNAVAIL, "CPython %s built "
				 "free-threaded: layout not known (process %d)",
				 v, (int)p->info.pid);
	for (i = 0; i < NELEM(debug_fields); i++) {
		uint64_t val = word(d, sizeof(d), debug_fields[i].at, 8);
		uint64_t size = debug_fields[i].size_at == NONE ? val :
			word(d, sizeof(d), debug_fields[i].size_at, 8);

		if (size > DEBUG_MAX_SIZE || !size || val > size ||
		    val + debug_fields[i].width > size)
			return prof_fail(PROF_EUNAVAIL, "CPython %s: debug "
					 "offset %s is %" PRIu64 " (in a struct "
					 "of %" PRIu64 " bytes): not believed "
					 "(process %d)", v, debug_fields[i].name,
					 val, size, (int)p->info.pid);
		*(uint32_t *)(void *)((char *)l + debug_fields[i].field) =
			(uint32_t)val;
	}
	l->co_firsttraceable = table->co_firsttraceable - table->co_code +
			       l->co_code;
	l->str_compact_size = table->str_compact_size -
			      table->str_ascii_size + l->str_ascii_size;
	return 0;
}

/* Check the image's version and symbols against a layout known and fill
 * p from them. */
static int use_image(struct py_proc *p, const struct maps *ms,
		     const struct mapping *f, const struct image *im,
		     uint64_t bias)
{
	const struct layout *l;
	unsigned minor;
	uint32_t hex;
	char v[32];
	int rc, k;

	rc = image_version(p, f, im, bias, &hex, &minor);
	if (rc)
		return rc;
	version_text(hex, minor, v, sizeof(v));
	l = layout_of(minor);
	if (!l)
		return prof_fail(PROF_EUNAVAIL, "CPython %s: layout not known "
				 "(process %d, %s)", v, (int)p->info.pid,
				 f->path);
	if (im->machine != l->machine)
		return prof_fail(PROF_EUNAVAIL, "CPython %s for %s: layout not "
				 "known (process %d, %s)", v,
				 machine_name(im->machine), (int)p->info.pid,
				 f->path);
	p->lay = *l;
	l = p->l = &p->lay;
	if (l->debug_offsets) {
		if (!in_writable(ms, bias + im->value[S_RUNTIME], DEBUG_LEN))
			return prof_fail(PROF_EFORMAT, "process %d: _PyRuntime "
					 "at %#" PRIx64 " is in no writable "
					 "mapping (%s)", (int)p->info.pid,
					 bias + im->value[S_RUNTIME], f->path);
		rc = read_debug_offsets(p, bias + im->value[S_RUNTIME], hex,
					v);
		if (rc)
			return rc;
	}
	if (set_extents(p, l))
		return prof_fail(PROF_EUNAVAIL, "CPython %s: the layout %s is "
				 "wrong (a struct read past %d bytes)", v,
				 l->debug_offsets ? "it publishes" : "table",
				 HEADER_MAX);
	if (im->size[S_RUNTIME] != l->runtime_size)
		return prof_fail(PROF_EUNAVAIL, "CPython %s: _PyRuntime is "
				 "%" PRIu64 " bytes, not the %" PRIu32 " of the "
				 "layout known (process %d, %s)", v,
				 im->size[S_RUNTIME], l->runtime_size,
				 (int)p->info.pid, f->path);
	for (k = 0; k < S_N; k++)
		if (!im->found[k] && k != S_VERSION && k != S_EVAL)
			return prof_fail(PROF_EUNAVAIL, "CPython %s: %s does "
					 "not export %s", v, f->path,
					 sym_names[k]);
	if (!in_writable(ms, bias + im->value[S_RUNTIME], l->runtime_size))
		return prof_fail(PROF_EFORMAT, "process %d: _PyRuntime at "
				 "%#" PRIx64 " is in no writable mapping "
				 "(%s)", (int)p->info.pid,
				 bias + im->value[S_RUNTIME], f->path);
	p->info.version = hex ? hex : 0x03000000u | (minor << 16);
	p->info.runtime = bias + im->value[S_RUNTIME];
	if (im->found[S_EVAL]) {
		p->info.eval_start = bias + im->value[S_EVAL];
		p->info.eval_end = p->info.eval_start + im->size[S_EVAL];
	}
	p->code_type = bias + im->value[S_CODE];
	p->str_type = bias + im->value[S_STR];
	p->bytes_type = bias + im->value[S_BYTES];
	if (!(p->image = strdup(f->path)))
		return -PROF_ENOMEM;
	p->info.image = p->image;
	return 0;
}

/*
 * Try the file of mapping f as the image: 0 when it is a CPython whose
 * layout is known (p filled), 1 when it holds no _PyRuntime (try the
 * next), a negative error else.
 */
static int try_image(struct py_proc *p, const struct maps *ms,
		     const struct mapping *f)
{
	enum proc_file_state state;
	struct image im;
	uint64_t bias;
	int fd, rc;

	fd = proc_mapped_file(p->info.pid, f->start, f->end, f->path, &f->id,
			      &state);
	if (fd < 0)
		return 1;
	rc = read_image(fd, &im);
	close(fd);
	if (rc || !im.found[S_RUNTIME])
		return 1;
	if (load_bias(ms, f, &im, &bias))
		return prof_fail(PROF_EFORMAT, "process %d: %s: cannot tell "
				 "where it is loaded", (int)p->info.pid,
				 f->path);
	return use_image(p, ms, f, &im, bias);
}

/* Each mapped file that may be CPython's image, most likely first, until
 * one holds _PyRuntime. */
static int find_image(struct py_proc *p, const struct maps *ms)
{
	int rank, rc;
	size_t i, j;

	for (rank = 1; rank <= 2; rank++)
		for (i = 0; i < ms->n; i++) {
			const struct mapping *m = &ms->m[i];

			if (image_rank(m) != rank)
				continue;
			/* Each file once: its first mapping. */
			for (j = 0; j < i && !same_file(&ms->m[j], m); j++)
				;
			if (j < i)
				continue;
			rc = try_image(p, ms, m);
			if (rc <= 0)
				return rc;
		}
	if (process_gone(p->info.pid))
		return prof_fail(PROF_ENOENT, "process %d has exited",
				 (int)p->info.pid);
	return prof_fail(PROF_ENOENT, "process %d: no CPython found (no "
			 "python or libpython file it maps exports "
			 "_PyRuntime)", (int)p->info.pid);
}

int py_open(pid_t pid, struct py_proc **out)
{
	struct maps ms = { NULL, 0, 0 };
	struct py_proc *p;
	int rc;

	*out = NULL;
	if (pid <= 0)
		return prof_fail(PROF_EINVAL, "no process %d", (int)pid);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -PROF_ENOMEM;
	p->info.pid = pid;
	strpool_init(&p->strings);
	rc = maps_read(pid, &ms);
	if (!rc)
		rc = find_image(p, &ms);
	maps_free(&ms);
	if (rc) {
		py_close(p);
		return rc;
	}
	*out = p;
	return 0;
}

static void codes_clear(struct py_proc *p)
{
	size_t i;

	for (i = 0; i < p->ncodes; i++)
		free(p->codes[i].linetable);
	p->ncodes = 0;
	hashmap_release(&p->index);
}

void py_close(struct py_proc *p)
{
	if (!p)
		return;
	codes_clear(p);
	free(p->codes);
	strpool_release(&p->strings);
	free(p->image);
	free(p);
}

const struct py_info *py_info(const struct py_proc *p)
{
	return &p->info;
}

size_t py_proc_layout_values(const struct py_proc *p,
			     struct py_layout_value *out, size_t max)
{
	return layout_values(p->l, out, max);
}

bool py_exited(const struct py_proc *p)
{
	return p->exited;
}

/* ------------------------------------------------------------------ */
/* Thread states and frames */

/* The 8 bytes at addr as the walk's sample copied them, into buf:
 * whether the copy holds them. */
static bool copy_word(const struct py_proc *p, uint64_t addr, uint8_t *buf)
{
	const struct py_stack_copy *c = p->copy;

	if (!c || addr < c->sp || addr - c->sp > c->len ||
	    c->len - (addr - c->sp) < 8)
		return false;
	memcpy(buf, c->data + (addr - c->sp), 8);
	return true;
}

/* The innermost frame of the thread state whose ts_len bytes are t in
 * *frame (0: none): the thread state's own pointer (3.13), else its C
 * frame's.  0, or why it cannot be read. */
static int tstate_frame(struct py_proc *p, const uint8_t *t, uint64_t *frame)
{
	const struct layout *l = p->l;
	uint64_t at = word(t, p->ts_len, l->ts_frame, 8);
	uint8_t c[8];
	int rc;

	*frame = 0;
	if (l->cf_current_frame == NONE || !at) {
		*frame = at;
		return 0;
	}
	if (!ptr_ok(at))
		return prof_fail(PROF_EFORMAT, "C frame at %#" PRIx64 ": not "
				 "a pointer", at);
	/* On the C stack: as the sample found it, if it copied it. */
	rc = copy_word(p, at + l->cf_current_frame, c) ? 0 :
		rd(p, at + l->cf_current_frame, c, 8, "a C frame");
	if (!rc)
		*frame = word(c, 8, 0, 8);
	return rc;
}

/* The innermost frame of native thread tid in *frame: that of its first
 * thread state with a frame (a thread may have one per interpreter),
 * else 0.  Where it was found goes to *s. */
static int find_tstate(struct py_proc *p, pid_t tid, uint64_t *frame,
		       struct ts_slot *s)
{
	const struct layout *l = p->l;
	uint8_t buf[8], t[HEADER_MAX];
	size_t ts_len = p->ts_len;
	uint64_t interp, ts;
	unsigned ninterps = 0, nts = 0;
	bool found = false;
	int rc, first_rc = 0;

	*frame = 0;
	rc = rd(p, p->info.runtime + l->rt_interp_head, buf, 8,
		"_PyRuntime.interpreters.head");
	if (rc)
		return rc;
	for (interp = word(buf, 8, 0, 8); interp && !*frame;
	     interp = word(buf, 8, 0, 8)) {
		if (++ninterps > MAX_INTERPS)
			return prof_fail(PROF_EFORMAT, "more than %d "
					 "interpreters", MAX_INTERPS);
		if (!ptr_ok(interp))
			return prof_fail(PROF_EFORMAT, "interpreter at %#"
					 PRIx64 ": not a pointer", interp);
		rc = rd(p, interp + l->is_threads_head, buf, 8,
			"an interpreter state");
		if (rc)
			return rc;
		for (ts = word(buf, 8, 0, 8); ts && !*frame;
		     ts = word(t, ts_len, l->ts_next, 8)) {
			if (++nts > MAX_TSTATES)
				return prof_fail(PROF_EFORMAT, "more than %d "
						 "thread states", MAX_TSTATES);
			if (!ptr_ok(ts))
				return prof_fail(PROF_EFORMAT, "thread state "
						 "at %#" PRIx64 ": not a "
						 "pointer", ts);
			rc = rd(p, ts, t, ts_len, "a thread state");
			if (rc)
				return rc;
			if (word(t, ts_len, l->ts_interp, 8) != interp)
				return prof_fail(PROF_EFORMAT, "thread state "
						 "at %#" PRIx64 " is not of the "
						 "interpreter that lists it "
						 "(changing?)", ts);
			if (word(t, ts_len, l->ts_native_tid, 8) !=
			    (uint64_t)tid)
				continue;
			/* A thread has a state per interpreter it entered:
			 * the one running Python is the one with a frame. */
			rc = tstate_frame(p, t, frame);
			if (!found)
				first_rc = rc;
			found = true;
			if (*frame)
				*s = (struct ts_slot){ .tid = tid, .ts = ts,
					.interp = interp, .frame = *frame,
					.cframe = word(t, ts_len, l->ts_frame,
						       8) };
		}
		if (!*frame) {
			rc = rd(p, interp + l->is_next, buf, 8,
				"an interpreter state");
			if (rc)
				return rc;
		}
	}
	if (p->exited)
		return prof_fail(PROF_ENOENT, "process %d has exited",
				 (int)p->info.pid);
	if (!found)
		return prof_fail(PROF_ENOENT, "thread %d of process %d runs "
				 "no Python (no thread state has its id)",
				 (int)tid, (int)p->info.pid);
	return *frame ? 0 : first_rc;
}

/*
 * The innermost frame of thread tid through the thread state it was
 * last found in (s): 0 with *frame, or 1 when that does not tell (none
 * kept, that state is no longer this thread's, or has no frame: the
 * lists are walked then).  One read: the thread state, the current
 * frame of its C frame where that is the one seen last (3.11, 3.12),
 * the headers of the code objects of its last walk, and the window
 * where its frames were then: those of the next walk, most often.
 */
static int cached_tstate(struct py_proc *p, pid_t tid, struct ts_slot *s,
			 uint64_t *frame)
{
	const struct layout *l = p->l;
	uint8_t t[HEADER_MAX], cf[8];
	size_t whole, c = SIZE_MAX, w = SIZE_MAX, i;
	bool copied = false;
	struct batch b;
	uint64_t at;

	*frame = 0;
	if (s->tid != tid || s->frame < WIN_LEN)
		return 1;
	b.n = 0;
	batch_add(&b, t, s->ts, p->ts_len);
	if (l->cf_current_frame != NONE && s->cframe)
		copied = copy_word(p, s->cframe + l->cf_current_frame, cf);
	if (l->cf_current_frame != NONE && s->cframe && !copied)
		c = batch_add(&b, cf, s->cframe + l->cf_current_frame, 8);
	for (i = 0; i < s->ncodes; i++)
		batch_add(&b, p->spec[i], s->codes[i], p->code_hdr_len);
	if (s->frame)
		w = win_add(p, &b, (s->low < s->frame ? s->low : s->frame) -
			    WIN_SLACK, s->frame + WIN_ABOVE, s->frame);
	whole = batch_read(p, &b);
	if (w != SIZE_MAX)
		win_set(p, &b, w, whole);
	for (i = 0; i < s->ncodes && i + 1 + (c != SIZE_MAX) < whole; i++)
		p->spec_code[p->nspec++] = s->codes[i];
	if (!whole ||
	    word(t, p->ts_len, l->ts_native_tid, 8) != (uint64_t)tid ||
	    word(t, p->ts_len, l->ts_interp, 8) != s->interp)
		return 1;
	at = word(t, p->ts_len, l->ts_frame, 8);
	if (l->cf_current_frame == NONE)
		*frame = at;
	else if (at && at == s->cframe && (copied || c < whole))
		*frame = word(cf, 8, 0, 8);
	else if (tstate_frame(p, t, frame))
		return 1;
	s->cframe = at;
	return *frame ? 0 : 1;
}

/* The innermost frame of native thread tid: find_tstate()'s, through
 * the thread state kept for tid while it is still that thread's. */
static int find_frame(struct py_proc *p, pid_t tid, uint64_t *frame)
{
	struct ts_slot *s = &p->threads[(unsigned)tid % TS_CACHE];
	int rc;

	if (!cached_tstate(p, tid, s, frame))
		return 0;
	if (s->tid == tid)
		s->tid = 0;
	rc = find_tstate(p, tid, frame, s);
	return rc;
}

/* Whether the header hb of the object at code is a code object's. */
static int code_type_ok(const struct py_proc *p, uint64_t code,
			const uint8_t *hb)
{
	if (word(hb, p->code_hdr_len, p->l->ob_type, 8) != p->code_type)
		return prof_fail(PROF_EFORMAT, "%#" PRIx64 " is not a code "
				 "object", code);
	return 0;
}

/* The header of the code object at code (p->code_hdr_len bytes), its
 * type checked. */
static int read_code_header(struct py_proc *p, uint64_t code, uint8_t *buf)
{
	int rc;

	if (!ptr_ok(code))
		return prof_fail(PROF_EFORMAT, "code object at %#" PRIx64
				 ": not a pointer", code);
	rc = rd(p, code, buf, p->code_hdr_len, "a code object");
	return rc ? rc : code_type_ok(p, code, buf);
}

/* Whether frame f (read_frame()'s) is a shim: a frame an eval loop call
 * puts on the C stack under the frames it runs (3.12-), no Python's. */
static bool is_shim(const struct py_proc *p, const struct py_frame *f)
{
	return p->l->owner_cstack != NONE && f->owner == p->l->owner_cstack;
}

/* The frame_len bytes of the frame at addr: from the window, which is
 * read around addr when it does not hold them. */
static int frame_bytes(struct py_proc *p, uint64_t addr, const uint8_t **fb)
{
	size_t flen = p->frame_len;

	if (!in_win(p, addr, flen)) {
		struct batch b;
		size_t first;

		b.n = 0;
		first = win_add(p, &b, addr > WIN_BELOW ? addr - WIN_BELOW : 0,
				addr + flen, addr);
		win_set(p, &b, first, batch_read(p, &b));
	}
	if (!in_win(p, addr, flen)) {
		/* Alone, for the reason it cannot be read. */
		int rc = rd(p, addr, p->win, flen, "a frame");

		if (rc)
			return rc;
		p->win_base = p->win_lo = addr;
		p->win_hi = addr + flen;
	}
	*fb = p->win + (addr - p->win_base);
	return 0;
}

/* One frame at addr read into *f but for what its code object tells
 * (frame_code()): *prev is the next one out, *pi its instruction
 * pointer.  0, or an error whose detail is the reason the walk stops. */
static int read_frame(struct py_proc *p, uint64_t addr, struct py_frame *f,
		      uint64_t *prev, uint64_t *pi)
{
	const struct layout *l = p->l;
	size_t flen = p->frame_len;
	const uint8_t *fb;
	unsigned max_owner = l->owner_cstack != NONE ? l->owner_cstack :
			     l->owner_frame_object;
	int rc;

	if (!ptr_ok(addr))
		return prof_fail(PROF_EFORMAT, "frame at %#" PRIx64 ": not a "
				 "pointer", addr);
	rc = frame_bytes(p, addr, &fb);
	if (rc)
		return rc;
	memset(f, 0, sizeof(*f));
	f->frame = addr;
	f->code = word(fb, flen, l->fr_code, 8);
	f->is_entry = l->fr_is_entry != NONE &&
		      word(fb, flen, l->fr_is_entry, 1) != 0;
	f->owner = (uint8_t)word(fb, flen, l->fr_owner, 1);
	*prev = word(fb, flen, l->fr_previous, 8);
	*pi = word(fb, flen, l->fr_instr, 8);
	if (f->owner > max_owner)
		return prof_fail(PROF_EFORMAT, "frame at %#" PRIx64 ": owner "
				 "%u is none of CPython 3.%u's", addr, f->owner,
				 l->minor);
	if (is_shim(p, f)) {
		/* Its code (3.12: a trampoline; 3.13: None) is not read. */
		f->code = 0;
		f->instr = -1;
		f->incomplete = true;
		return 0;
	}
	if (!f->code)
		return prof_fail(PROF_EFORMAT, "frame at %#" PRIx64 ": no "
				 "code object (NULL)", addr);
	return 0;
}

/* The rest of frame f (read_frame()'s, instruction pointer pi), from
 * its code object's header cb: its instruction, whether it has started. */
static int frame_code(const struct py_proc *p, struct py_frame *f,
		      uint64_t pi, const uint8_t *cb)
{
	const struct layout *l = p->l;
	size_t hdr_len = p->code_hdr_len;
	int64_t nunits, trace;
	uint64_t first, limit;

	nunits = (int64_t)word(cb, hdr_len, l->ob_size, 8);
	trace = (int32_t)word(cb, hdr_len, l->co_firsttraceable, 4);
	if (nunits <= 0 || nunits > MAX_CODE_UNITS || trace < 0 ||
	    trace > nunits)
		return prof_fail(PROF_EFORMAT, "code object at %#" PRIx64
				 ": %" PRId64 " code units, first traceable "
				 "%" PRId64, f->code, nunits, trace);
	first = f->code + l->co_code;
	limit = first + (uint64_t)nunits * l->codeunit_size;
	/* _PyFrame_IsIncomplete(): not at its first traceable
	 * instruction yet (a generator's frame always is). */
	f->incomplete = f->owner != l->owner_generator &&
		pi < first + (uint64_t)trace * l->codeunit_size;
	if (pi >= first && pi < limit && !((pi - first) % l->codeunit_size))
		f->instr = (int32_t)((pi - first) / l->codeunit_size);
	else if (f->incomplete)
		f->instr = -1;
	else
		return prof_fail(PROF_EFORMAT, "frame at %#" PRIx64 ": "
				 "instruction %#" PRIx64 " outside its code "
				 "[%#" PRIx64 ", %#" PRIx64 ")", f->frame, pi,
				 first, limit);
	return 0;
}

static void code_checked(struct py_proc *p, uint64_t code, const uint8_t *hb);

/*
 * The code objects of frames f[0..m) (read_frame()'s, instruction
 * pointers pi[]), their headers read in one go: frame_code() on each in
 * turn.  *k of them are good; the error, if any, is the next one's.
 */
static int chunk_codes(struct py_proc *p, struct py_frame *f,
		       const uint64_t *pi, size_t m, size_t *k)
{
	size_t at[WALK_CHUNK], whole, i, j;
	uint8_t *hb[WALK_CHUNK];
	struct batch b;
	int rc;

	b.n = 0;
	for (i = 0; i < m; i++) {
		at[i] = SIZE_MAX;
		hb[i] = p->headers[i];
		if (is_shim(p, &f[i]) || !ptr_ok(f[i].code))
			continue;
		/* Read with the thread state? */
		for (j = 0; j < p->nspec && p->spec_code[j] != f[i].code; j++)
			;
		if (j < p->nspec)
			hb[i] = p->spec[j];
		else
			at[i] = batch_add(&b, hb[i], f[i].code,
					  p->code_hdr_len);
	}
	whole = batch_read(p, &b);
	for (*k = 0; *k < m; (*k)++) {
		i = *k;
		if (is_shim(p, &f[i]))
			continue;
		if (at[i] < whole || hb[i] != p->headers[i])
			rc = code_type_ok(p, f[i].code, hb[i]);
		else
			rc = read_code_header(p, f[i].code, hb[i]);
		if (!rc)
			rc = frame_code(p, &f[i], pi[i], hb[i]);
		if (rc)
			return rc;
		code_checked(p, f[i].code, hb[i]);
	}
	return 0;
}

/* Frame f to out[*n] if it is kept (complete, or an entry frame). */
static int keep_frame(const struct py_frame *f, struct py_frame *out,
		      size_t max, size_t *n)
{
	if (f->incomplete && !f->is_entry)
		return 0;
	if (*n == max)
		return prof_fail(PROF_EFORMAT, "more than %zu frames: the "
				 "outer ones are not read", max);
	out[(*n)++] = *f;
	return 0;
}

/* What a walk keeps of its frames: 3.12-, the frame before a shim is
 * the first of its eval loop call, known as such at the shim: each
 * frame is held until the next one is read. */
struct keeper {
	struct py_frame *out;
	size_t max, *n;
	struct py_frame held;
	bool holding;
	bool first;		/* no frame seen yet */
};

static int keeper_add(struct py_proc *p, struct keeper *kp,
		      struct py_frame *f)
{
	int rc = 0;

	if (is_shim(p, f)) {
		if (kp->holding) {
			kp->held.is_entry = true;
			rc = keep_frame(&kp->held, kp->out, kp->max, kp->n);
		} else if (kp->first) {
			/* The innermost: a call of the eval loop entering
			 * or leaving, none of its frames on the chain; the
			 * shim stands for them (code 0). */
			f->is_entry = true;
			rc = keep_frame(f, kp->out, kp->max, kp->n);
		}
		kp->holding = false;
	} else {
		rc = kp->holding ? keep_frame(&kp->held, kp->out, kp->max,
					      kp->n) : 0;
		kp->held = *f;
		kp->holding = true;
	}
	kp->first = false;
	return rc;
}

static int keeper_end(struct keeper *kp)
{
	if (!kp->holding)
		return 0;
	kp->holding = false;
	return keep_frame(&kp->held, kp->out, kp->max, kp->n);
}

/* Where a walk is: the next frame, what its cycle check holds, the
 * frames it has seen. */
struct walk {
	uint64_t frame, seen;
	unsigned walked, power, steps;
	uint64_t first, low;	/* the innermost frame; the outermost near
				 * it (a window's length below) */
};

/*
 * Up to WALK_CHUNK frames from w->frame on (read_frame(): from the
 * window around them, read as needed) into f[] and pi[], *m of them,
 * w->frame the next one out: 0, or the reason the walk ends after them.
 * Brent's cycle check: a frame seen at a power of two steps back comes
 * again only in a loop.
 */
static int walk_chunk(struct py_proc *p, struct walk *w, struct py_frame *f,
		      uint64_t *pi, size_t *m)
{
	uint64_t prev = 0;
	int rc;

	for (*m = 0; w->frame && *m < WALK_CHUNK; w->frame = prev) {
		if (++w->walked > PY_MAX_WALK)
			return prof_fail(PROF_EFORMAT, "more than %d frames",
					 PY_MAX_WALK);
		rc = read_frame(p, w->frame, &f[*m], &prev, &pi[*m]);
		if (rc)
			return rc;
		(*m)++;
		if (w->frame < w->low &&
		    w->first - w->frame <= WIN_LEN - WIN_ABOVE - WIN_SLACK)
			w->low = w->frame;
		if (prev == w->seen)
			return prof_fail(PROF_EFORMAT, "the frames loop (frame "
					 "at %#" PRIx64 " comes again)", prev);
		if (++w->steps == w->power) {
			w->seen = prev;
			w->power *= 2;
			w->steps = 0;
		}
	}
	return 0;
}

/* One walk of thread tid's frames (py_thread_stack()). */
static int walk_thread(struct py_proc *p, pid_t tid, struct keeper *kp)
{
	struct py_frame f[WALK_CHUNK];
	uint64_t pi[WALK_CHUNK];
	struct walk w = { 0, 0, 0, 1, 0, 0, 0 };
	struct ts_slot *s = &p->threads[(unsigned)tid % TS_CACHE];
	uint64_t codes[SPEC_CODES];
	size_t m, k, i, ncodes = 0;
	int rc, stop = 0;

	p->walks++;
	p->win_lo = p->win_hi = 0;
	p->nspec = 0;
	rc = find_frame(p, tid, &w.frame);
	if (rc)
		return rc;
	w.seen = w.first = w.low = w.frame;
	while (w.frame && !stop) {
		stop = walk_chunk(p, &w, f, pi, &m);
		rc = chunk_codes(p, f, pi, m, &k);
		for (i = 0; i < k; i++) {
			int r = keeper_add(p, kp, &f[i]);

			if (r)
				return r;
			if (f[i].code && ncodes < SPEC_CODES &&
			    !(ncodes && codes[ncodes - 1] == f[i].code))
				codes[ncodes++] = f[i].code;
		}
		if (rc) {
			stop = rc;
			break;
		}
	}
	if (s->tid == tid) {
		s->frame = w.first;
		s->low = w.low;
		memcpy(s->codes, codes, ncodes * sizeof(codes[0]));
		s->ncodes = ncodes;
	}
	rc = keeper_end(kp);
	return rc ? rc : stop;
}

/* Times a walk that fails at its innermost frame is done again: the
 * thread was pushing or popping it as it was read. */
#define WALK_RETRIES 2

int py_sample_stack(struct py_proc *p, pid_t tid,
		    const struct py_stack_copy *copy, struct py_frame *out,
		    size_t max, size_t *n)
{
	struct keeper kp;
	int rc, tries = 0;

	p->copy = copy;
	do {
		*n = 0;
		kp = (struct keeper){ .out = out, .max = max, .n = n,
				      .first = true };
		rc = walk_thread(p, tid, &kp);
		/* Again from now: the copy's frame may have been popped. */
		p->copy = NULL;
	} while (rc == -PROF_EFORMAT && !*n && tries++ < WALK_RETRIES &&
		 !p->exited);
	return rc;
}

int py_thread_stack(struct py_proc *p, pid_t tid, struct py_frame *out,
		    size_t max, size_t *n)
{
	return py_sample_stack(p, tid, NULL, out, max, n);
}

/* ------------------------------------------------------------------ */
/* Strings, code objects, line tables */

/* Append code point c to buf as UTF-8 (at most 4 bytes); a surrogate or
 * a value past Unicode, and NUL, become U+FFFD. */
static size_t put_utf8(char *buf, uint32_t c)
{
	if (!c || (c >= 0xd800 && c < 0xe000) || c > 0x10ffff)
		c = 0xfffd;
	if (c < 0x80) {
		buf[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		buf[0] = (char)(0xc0 | c >> 6);
		buf[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		buf[0] = (char)(0xe0 | c >> 12);
		buf[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		buf[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	buf[0] = (char)(0xf0 | c >> 18);
	buf[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	buf[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	buf[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/*
 * The str object at addr (compact: its characters follow its header),
 * as UTF-8 in the pool: *out.  what names it in the reason it is not
 * one.
 */
static int read_str(struct py_proc *p, uint64_t addr, const char *what,
		    const char **out)
{
	const struct layout *l = p->l;
	uint8_t hb[HEADER_MAX], data[PY_MAX_STR * 4];
	char text[PY_MAX_STR * 4 + 4];
	uint32_t state, kind;
	uint64_t at;
	int64_t len;
	size_t n, i, t = 0;
	int rc;

	if (!ptr_ok(addr))
		return prof_fail(PROF_EFORMAT, "%s at %#" PRIx64 ": not a "
				 "pointer", what, addr);
	rc = rd(p, addr, hb, l->str_ascii_size, what);
	if (rc)
		return rc;
	if (word(hb, l->str_ascii_size, l->ob_type, 8) != p->str_type)
		return prof_fail(PROF_EFORMAT, "%s at %#" PRIx64 " is not a "
				 "str", what, addr);
	len = (int64_t)word(hb, l->str_ascii_size, l->str_length, 8);
	state = (uint32_t)word(hb, l->str_ascii_size, l->str_state, 4);
	kind = (state & l->str_kind) >> __builtin_ctz(l->str_kind);
	if (!(state & l->str_compact) ||
	    (l->str_ready && !(state & l->str_ready)) ||
	    (kind != 1 && kind != 2 && kind != 4) ||
	    ((state & l->str_ascii) && kind != 1) || len < 0)
		return prof_fail(PROF_EFORMAT, "%s at %#" PRIx64 ": not a "
				 "compact str (state %#" PRIx32 ", length %"
				 PRId64 ")", what, addr, state, len);
	at = addr + (state & l->str_ascii ? l->str_ascii_size :
		     l->str_compact_size);
	n = len > PY_MAX_STR ? PY_MAX_STR : (size_t)len;
	if (n) {
		rc = rd(p, at, data, n * kind, what);
		if (rc)
			return rc;
	}
	for (i = 0; i < n; i++) {
		struct bytes b = bytes_of(data + i * kind, kind);

		t += put_utf8(text + t, (uint32_t)bytes_u(&b, kind));
	}
	if ((size_t)len > n) {
		memcpy(text + t, "...", 3);
		t += 3;
	}
	*out = strpool_intern(&p->strings, text, t);
	return *out ? 0 : -PROF_ENOMEM;
}

/* The bytes object at addr (co_linetable) in a new buffer. */
static int read_bytes(struct py_proc *p, uint64_t addr, uint8_t **out,
		      size_t *len)
{
	const struct layout *l = p->l;
	uint8_t hb[HEADER_MAX];
	int64_t size;
	int rc;

	*out = NULL;
	*len = 0;
	if (!ptr_ok(addr))
		return prof_fail(PROF_EFORMAT, "line table at %#" PRIx64
				 ": not a pointer", addr);
	rc = rd(p, addr, hb, l->bytes_data, "a line table");
	if (rc)
		return rc;
	if (word(hb, l->bytes_data, l->ob_type, 8) != p->bytes_type)
		return prof_fail(PROF_EFORMAT, "line table at %#" PRIx64
				 " is not a bytes object", addr);
	size = (int64_t)word(hb, l->bytes_data, l->ob_size, 8);
	if (size < 0 || size > PY_MAX_LINETABLE)
		return prof_fail(PROF_EFORMAT, "line table at %#" PRIx64
				 ": %" PRId64 " bytes (at most %d read)",
				 addr, size, PY_MAX_LINETABLE);
	*out = malloc(size ? (size_t)size : 1);
	if (!*out)
		return -PROF_ENOMEM;
	rc = size ? rd(p, addr + l->bytes_data, *out, (size_t)size,
		       "a line table") : 0;
	if (rc) {
		free(*out);
		*out = NULL;
		return rc;
	}
	*len = (size_t)size;
	return 0;
}

static int code_eq(const void *ctx, size_t entry)
{
	const struct py_proc *p = ctx;

	return p->codes[entry].addr == p->codes[p->ncodes].addr;
}

/* The entry of code address addr (p->codes[p->ncodes] is the probe),
 * or SIZE_MAX. */
static size_t code_find(struct py_proc *p, uint64_t addr)
{
	if (ALLOC_GROW(p->codes, p->ncodes + 1, p->codes_alloc))
		return SIZE_MAX;
	p->codes[p->ncodes].addr = addr;
	return hashmap_find(&p->index, hash_mix64(addr), code_eq, p);
}

/* Read what the entry e keeps of the code object whose header is hb. */
static int code_fill(struct py_proc *p, const uint8_t *hb, size_t hdr_len,
		     struct code_entry *e)
{
	const struct layout *l = p->l;
	int rc;

	e->key[0] = word(hb, hdr_len, l->co_filename, 8);
	e->key[1] = word(hb, hdr_len, l->co_name, 8);
	e->key[2] = word(hb, hdr_len, l->co_qualname, 8);
	e->key[3] = word(hb, hdr_len, l->co_linetable, 8);
	e->nunits = (int64_t)word(hb, hdr_len, l->ob_size, 8);
	e->firstlineno = (int32_t)word(hb, hdr_len, l->co_firstlineno, 4);
	free(e->linetable);
	e->linetable = NULL;
	e->last_instr = INT32_MIN;
	if ((rc = read_str(p, e->key[0], "co_filename", &e->filename)) ||
	    (rc = read_str(p, e->key[1], "co_name", &e->name)) ||
	    (rc = read_str(p, e->key[2], "co_qualname", &e->qualname)))
		return rc;
	return read_bytes(p, e->key[3], &e->linetable, &e->linetable_len);
}

/* Whether e still describes the code object whose header is hb. */
static bool code_same(const struct py_proc *p, const uint8_t *hb,
		      size_t hdr_len, const struct code_entry *e)
{
	const struct layout *l = p->l;

	return e->linetable &&
	       e->key[0] == word(hb, hdr_len, l->co_filename, 8) &&
	       e->key[1] == word(hb, hdr_len, l->co_name, 8) &&
	       e->key[2] == word(hb, hdr_len, l->co_qualname, 8) &&
	       e->key[3] == word(hb, hdr_len, l->co_linetable, 8) &&
	       e->nunits == (int64_t)word(hb, hdr_len, l->ob_size, 8) &&
	       e->firstlineno ==
		       (int32_t)word(hb, hdr_len, l->co_firstlineno, 4);
}

/* The code object at code, whose header hb was read in this walk, is
 * still the one its entry describes: py_code_info() need not read it. */
static void code_checked(struct py_proc *p, uint64_t code, const uint8_t *hb)
{
	size_t i = code_find(p, code);

	if (i != SIZE_MAX && code_same(p, hb, p->code_hdr_len, &p->codes[i]))
		p->codes[i].checked = p->walks;
}

/* The line of instruction instr of e's code (the last one asked kept). */
static int code_line(struct code_entry *e, int32_t instr)
{
	if (instr >= e->nunits)
		return -1;
	if (instr != e->last_instr) {
		e->last_line = py_linetable_line(e->linetable,
						 e->linetable_len,
						 e->firstlineno, instr);
		e->last_instr = instr;
	}
	return e->last_line;
}

int py_code_info(struct py_proc *p, uint64_t code, int32_t instr,
		 struct py_code *out)
{
	size_t hdr_len = p->code_hdr_len;
	uint8_t hb[HEADER_MAX];
	struct code_entry *e;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	i = code_find(p, code);
	if (i != SIZE_MAX && p->codes[i].checked == p->walks && p->walks)
		goto found;
	rc = read_code_header(p, code, hb);
	if (rc)
		return rc;
	if (p->ncodes >= MAX_CACHED)
		codes_clear(p);
	i = code_find(p, code);
	if (i == SIZE_MAX && p->ncodes == p->codes_alloc)
		return -PROF_ENOMEM;
	if (i == SIZE_MAX) {
		e = &p->codes[p->ncodes];
		memset(e, 0, sizeof(*e));
		e->addr = code;
		if (hashmap_add(&p->index, hash_mix64(code), p->ncodes))
			return -PROF_ENOMEM;
		i = p->ncodes++;
	}
	e = &p->codes[i];
	if (!code_same(p, hb, hdr_len, e)) {
		rc = code_fill(p, hb, hdr_len, e);
		if (rc)
			return rc;
	}
found:
	e = &p->codes[i];
	out->name = e->name;
	out->qualname = e->qualname;
	out->filename = e->filename;
	out->firstlineno = e->firstlineno;
	out->line = code_line(e, instr);
	return 0;
}

/* A location table's varint: 6-bit groups, least significant first,
 * bit 6 set on all but the last; sets b->bad past 32 bits. */
static uint32_t lt_varint(struct bytes *b)
{
	uint32_t v = 0;
	unsigned shift = 0;
	uint8_t c;

	do {
		c = (uint8_t)bytes_u(b, 1);
		if (shift > 30)
			b->bad = 1;
		else
			v |= (uint32_t)(c & 0x3f) << shift;
		shift += 6;
	} while ((c & 0x40) && !b->bad);
	return v;
}

/* A signed varint: the sign in bit 0 of the magnitude's varint. */
static int64_t lt_svarint(struct bytes *b)
{
	uint32_t u = lt_varint(b);

	return u & 1 ? -(int64_t)(u >> 1) : (int64_t)(u >> 1);
}

/*
 * The location table of 3.11 on (CPython's Objects/locations.md):
 * entries, each a first byte 1CCCCLLL (code C, L + 1 code units), then by
 * code:
 * 0-9 one column byte (same line); 10-12 two column bytes, the line
 * moves by C - 10; 13 the line's move as a signed varint, no columns;
 * 14 the same, then end line, column and end column varints; 15 no
 * location (the line does not move).  Lines move from co_firstlineno.
 */
int py_linetable_line(const uint8_t *table, size_t len, int firstlineno,
		      int32_t instr)
{
	struct bytes b = bytes_of(table, len);
	int64_t line = firstlineno, at = 0;

	if (instr < 0)
		return firstlineno;
	while (bytes_left(&b)) {
		unsigned head = (unsigned)bytes_u(&b, 1);
		unsigned code = (head >> 3) & 15;
		int64_t units = (head & 7) + 1;

		if (!(head & 0x80))
			return -1;	/* not the start of an entry */
		if (code <= 9) {
			bytes_skip(&b, 1);
		} else if (code <= 12) {
			line += code - 10;
			bytes_skip(&b, 2);
		} else if (code == 13) {
			line += lt_svarint(&b);
		} else if (code == 14) {
			line += lt_svarint(&b);
			lt_varint(&b);
			lt_varint(&b);
			lt_varint(&b);
		}
		if (b.bad || line < 0 || line > INT32_MAX)
			return -1;
		if (instr < at + units)
			return code == 15 ? -1 : (int)line;
		at += units;
	}
	return -1;
}
