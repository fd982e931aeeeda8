/* SPDX-License-Identifier: MIT */
/*
 * CPython's struct layouts (pyframes_int.h): the table per minor version
 * and machine, the offsets 3.13 publishes read from the process, and how
 * much of each struct a walk reads.
 */

#include <gelf.h>
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "pyframes_int.h"
#include "common/util/error.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/*
 * What 3.9 and 3.10 on x86-64 share, from their headers (Include/internal/
 * included; tests/tools/pyoffsets.c prints them): all but the size of
 * _PyRuntimeState and the place of PyFrameObject.f_lasti.
 */
#define FRAME_OBJECTS_X86_64 \
	.machine = EM_X86_64, \
	.frame_objects = true, \
	.rt_interp_head = 32, \
	.rt_main_thread = 72, \
	.is_next = 0, \
	.is_threads_head = 8, \
	.ts_next = 8, \
	.ts_interp = 16, \
	.ts_native_tid = NONE, \
	.ts_thread_id = 176, \
	.ts_frame = 24, \
	.cf_current_frame = NONE, \
	.fr_code = 32, \
	.fr_previous = 24, \
	.fr_is_entry = NONE, \
	.fr_owner = NONE, \
	.owner_generator = NONE, \
	.owner_frame_object = NONE, \
	.owner_cstack = NONE, \
	.ob_type = 8, \
	.ob_size = 16, \
	.co_firstlineno = 40, \
	.co_filename = 104, \
	.co_name = 112, \
	.co_qualname = NONE, \
	.co_linetable = 120, \
	.co_firsttraceable = NONE, \
	.co_code = NONE, \
	.co_code_obj = 48, \
	.codeunit_size = 2, \
	.str_length = 16, \
	.str_state = 32, \
	.str_kind = 0x1c, \
	.str_compact = 0x20, \
	.str_ascii = 0x40, \
	.str_ready = 0x80, \
	.str_ascii_size = 48, \
	.str_compact_size = 72, \
	.bytes_data = 32

static const struct layout layouts[] = {
	{
		/* CPython 3.9 on x86-64 (3.9.18). */
		FRAME_OBJECTS_X86_64,
		.minor = 9,
		.lasti_bytes = true,
		.lines = PY_LINES_LNOTAB,
		.runtime_size = 656,
		.fr_instr = 104,
	},
	{
		/* CPython 3.10 on x86-64 (3.10.13). */
		FRAME_OBJECTS_X86_64,
		.minor = 10,
		.lines = PY_LINES_PAIRS,
		.runtime_size = 672,
		.fr_instr = 96,
	},
	{
		/* CPython 3.11 on x86-64 (3.11.2 and 3.11.7 alike). */
		.minor = 11,
		.machine = EM_X86_64,
		.lines = PY_LINES_LOCATIONS,
		.runtime_size = 166688,
		.rt_interp_head = 40,
		.rt_main_thread = NONE,
		.is_next = 0,
		.is_threads_head = 16,
		.ts_next = 8,
		.ts_interp = 16,
		.ts_native_tid = 160,
		.ts_thread_id = NONE,
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
		.co_code_obj = NONE,
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
		.lines = PY_LINES_LOCATIONS,
		.runtime_size = 459944,
		.rt_interp_head = 40,
		.rt_main_thread = NONE,
		.is_next = 0,
		.is_threads_head = 72,
		.ts_next = 8,
		.ts_interp = 16,
		.ts_native_tid = 144,
		.ts_thread_id = NONE,
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
		.co_code_obj = NONE,
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
		.lines = PY_LINES_LOCATIONS,
		.runtime_size = 283320,
		.rt_interp_head = 632,
		.rt_main_thread = NONE,
		.is_next = 7264,
		.is_threads_head = 7344,
		.ts_next = 8,
		.ts_interp = 16,
		.ts_native_tid = 160,
		.ts_thread_id = NONE,
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
		.co_code_obj = NONE,
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
	LN(rt_main_thread, "_PyRuntimeState.main_thread", 9, 10),
	LN(is_next, "PyInterpreterState.next", ALL),
	LN(is_threads_head, "PyInterpreterState.tstate_head", 9, 10),
	LN(is_threads_head, "PyInterpreterState.threads.head", 11, 99),
	LN(ts_next, "PyThreadState.next", ALL),
	LN(ts_interp, "PyThreadState.interp", ALL),
	LN(ts_thread_id, "PyThreadState.thread_id", 9, 10),
	LN(ts_native_tid, "PyThreadState.native_thread_id", 11, 99),
	LN(ts_frame, "PyThreadState.frame", 9, 10),
	LN(ts_frame, "PyThreadState.cframe", 11, 12),
	LN(ts_frame, "PyThreadState.current_frame", 13, 99),
	LN(cf_current_frame, "_PyCFrame.current_frame", 11, 12),
	LN(fr_code, "PyFrameObject.f_code", 9, 10),
	LN(fr_code, "_PyInterpreterFrame.f_code", 11, 12),
	LN(fr_code, "_PyInterpreterFrame.f_executable", 13, 99),
	LN(fr_previous, "PyFrameObject.f_back", 9, 10),
	LN(fr_previous, "_PyInterpreterFrame.previous", 11, 99),
	LN(fr_instr, "PyFrameObject.f_lasti", 9, 10),
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
	LN(co_linetable, "PyCodeObject.co_lnotab", 9, 9),
	LN(co_linetable, "PyCodeObject.co_linetable", 10, 99),
	LN(co_firsttraceable, "PyCodeObject._co_firsttraceable", 11, 99),
	LN(co_code_obj, "PyCodeObject.co_code", 9, 10),
	LN(co_code, "PyCodeObject.co_code_adaptive", 11, 99),
	LN(codeunit_size, "sizeof(_Py_CODEUNIT)", ALL),
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

const struct layout *py_layout_of(unsigned minor)
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
	const struct layout *l = py_layout_of(minor);

	return l ? layout_values(l, out, max) : 0;
}

size_t py_proc_layout_values(const struct py_proc *p,
			     struct py_layout_value *out, size_t max)
{
	return layout_values(p->l, out, max);
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
int py_set_extents(struct py_proc *p, const struct layout *l)
{
	const uint32_t ts[] = { l->ts_next + 8, l->ts_interp + 8,
				l->ts_frame + 8, end_of(l->ts_native_tid, 8),
				end_of(l->ts_thread_id, 8) };
	const uint32_t fr[] = { l->ob_type + 8, l->fr_code + 8,
				l->fr_previous + 8,
				l->fr_instr + (l->frame_objects ? 4 : 8),
				end_of(l->fr_is_entry, 1),
				end_of(l->fr_owner, 1) };
	const uint32_t co[] = { l->ob_type + 8, l->ob_size + 8,
				end_of(l->co_firsttraceable, 4) };
	const uint32_t ci[] = { l->ob_type + 8, l->ob_size + 8,
				l->co_firstlineno + 4, l->co_filename + 8,
				l->co_name + 8, end_of(l->co_qualname, 8),
				l->co_linetable + 8,
				end_of(l->co_code_obj, 8) };
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
int py_read_debug_offsets(struct py_proc *p, uint64_t runtime,
			      uint32_t hex, const char *v)
{
	struct layout *l = &p->lay;
	const struct layout *table = py_layout_of(l->minor);
	uint8_t d[DEBUG_LEN];
	uint64_t version;
	size_t i;
	int rc;

	rc = py_mem_read(p, runtime, d, sizeof(d), "_PyRuntime.debug_offsets");
	if (rc)
		return rc;
	if (memcmp(d, DEBUG_COOKIE, 8))
		return prof_fail(PROF_EUNAVAIL, "CPython %s: _PyRuntime does "
				 "not start with its debug offsets (no cookie; "
				 "process %d)", v, (int)p->info.pid);
	version = py_word(d, sizeof(d), DEBUG_VERSION, 8);
	if (hex && version != hex)
		return prof_fail(PROF_EUNAVAIL, "CPython %s: its debug offsets "
				 "are of version %#" PRIx64 " (process %d)", v,
				 version, (int)p->info.pid);
	if (py_word(d, sizeof(d), DEBUG_FREE_THREADED, 8))
		return prof_fail(PROF_EUNAVAIL, "CPython %s built "
				 "free-threaded: layout not known (process %d)",
				 v, (int)p->info.pid);
	for (i = 0; i < NELEM(debug_fields); i++) {
		uint64_t val = py_word(d, sizeof(d), debug_fields[i].at, 8);
		uint64_t size = debug_fields[i].size_at == NONE ? val :
			py_word(d, sizeof(d), debug_fields[i].size_at, 8);

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
