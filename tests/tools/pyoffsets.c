/* SPDX-License-Identifier: MIT */
/*
 * pyoffsets: the layout of the CPython structures that
 * common/engine/py*.c read from outside a process, as the
 * compiler sees them in CPython's own headers (internal ones included).
 *
 * Not built by the Makefile: the suite never needs Python's headers.
 * tests/1540-pyframes.bats compiles it against the headers of each
 * CPython it finds (3.9 to 3.13), e.g.
 *
 *   cc -I/usr/include/python3.11 -o pyoffsets tests/tools/pyoffsets.c
 *
 * and checks that every line equals the table pylayout.c holds for that
 * version (pystack --layout 3.11 prints it the same way).  One line per
 * value, "NAME VALUE" in decimal, in no particular order; a bit field's
 * value is the mask of its bits in the 32-bit word that holds it.  The
 * names are those of the version's own structures: which values there
 * are depends on the version (3.9 and 3.10 chain PyFrameObjects; 3.11
 * to 3.13 chain _PyInterpreterFrames, 3.13 from the thread state
 * itself; 3.13 adds where in _Py_DebugOffsets the offsets it publishes
 * are).  The first line is "# CPython X.Y.Z" (the headers' version),
 * not compared.
 */
#define Py_BUILD_CORE 1
#include <Python.h>
#if PY_VERSION_HEX >= 0x030b0000
#include <internal/pycore_frame.h>
#else
#include <frameobject.h>
#endif
#include <internal/pycore_interp.h>
#include <internal/pycore_runtime.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define OFF(type, field) \
	printf("%s.%s %zu\n", #type, #field, offsetof(type, field))
#define SIZE(type) printf("sizeof(%s) %zu\n", #type, sizeof(type))
#define CONST(name) printf("%s %d\n", #name, (int)(name))

/* The mask of a bit field of PyASCIIObject.state: all its bits set in an
 * otherwise zero object, the word read back. */
#define STATE_MASK(field, ones)                                         \
	do {                                                            \
		PyASCIIObject o;                                        \
		uint32_t w;                                             \
		memset(&o, 0, sizeof(o));                               \
		o.state.field = (ones);                                 \
		memcpy(&w, (char *)&o + offsetof(PyASCIIObject, state), \
		       sizeof(w));                                      \
		printf("PyASCIIObject.state.%s %u\n", #field, w);       \
	} while (0)

int main(void)
{
	printf("# CPython %s\n", PY_VERSION);
	SIZE(_PyRuntimeState);
	OFF(_PyRuntimeState, interpreters.head);
	OFF(PyInterpreterState, next);
#if PY_VERSION_HEX >= 0x030b0000
	OFF(PyInterpreterState, threads.head);
#else
	OFF(PyInterpreterState, tstate_head);
#endif
	OFF(PyThreadState, next);
	OFF(PyThreadState, interp);
#if PY_VERSION_HEX >= 0x030b0000
	OFF(PyThreadState, native_thread_id);
#else
	/* No native thread id: the pthread_t, and the main thread's. */
	OFF(PyThreadState, thread_id);
	OFF(_PyRuntimeState, main_thread);
#endif
#if PY_VERSION_HEX >= 0x030d0000
	OFF(PyThreadState, current_frame);
#elif PY_VERSION_HEX >= 0x030b0000
	OFF(PyThreadState, cframe);
	OFF(_PyCFrame, current_frame);
#else
	OFF(PyThreadState, frame);
#endif
#if PY_VERSION_HEX >= 0x030b0000
#if PY_VERSION_HEX >= 0x030d0000
	OFF(_PyInterpreterFrame, f_executable);
	OFF(_PyInterpreterFrame, instr_ptr);
#else
	OFF(_PyInterpreterFrame, f_code);
	OFF(_PyInterpreterFrame, prev_instr);
#endif
	OFF(_PyInterpreterFrame, previous);
	OFF(_PyInterpreterFrame, owner);
#if PY_VERSION_HEX < 0x030c0000
	OFF(_PyInterpreterFrame, is_entry);
#else
	CONST(FRAME_OWNED_BY_CSTACK);
#endif
	CONST(FRAME_OWNED_BY_GENERATOR);
	CONST(FRAME_OWNED_BY_FRAME_OBJECT);
#else
	OFF(PyFrameObject, f_back);
	OFF(PyFrameObject, f_code);
	OFF(PyFrameObject, f_lasti);
#endif
	OFF(PyObject, ob_type);
	OFF(PyVarObject, ob_size);
	OFF(PyCodeObject, co_firstlineno);
	OFF(PyCodeObject, co_filename);
	OFF(PyCodeObject, co_name);
#if PY_VERSION_HEX >= 0x030b0000
	OFF(PyCodeObject, co_qualname);
	OFF(PyCodeObject, co_linetable);
	OFF(PyCodeObject, _co_firsttraceable);
	OFF(PyCodeObject, co_code_adaptive);
	SIZE(_Py_CODEUNIT);
#else
#if PY_VERSION_HEX >= 0x030a0000
	OFF(PyCodeObject, co_linetable);
#else
	OFF(PyCodeObject, co_lnotab);
#endif
	OFF(PyCodeObject, co_code);
	SIZE(_Py_CODEUNIT);
#endif
	OFF(PyASCIIObject, length);
	OFF(PyASCIIObject, state);
	STATE_MASK(kind, 7);
	STATE_MASK(compact, 1);
	STATE_MASK(ascii, 1);
#if PY_VERSION_HEX < 0x030c0000
	STATE_MASK(ready, 1);
#endif
	SIZE(PyASCIIObject);
	SIZE(PyCompactUnicodeObject);
	OFF(PyBytesObject, ob_sval);
#if PY_VERSION_HEX >= 0x030d0000
	/* Where the offsets the runtime publishes are. */
	SIZE(_Py_DebugOffsets);
	OFF(_Py_DebugOffsets, runtime_state.size);
	OFF(_Py_DebugOffsets, runtime_state.interpreters_head);
	OFF(_Py_DebugOffsets, interpreter_state.next);
	OFF(_Py_DebugOffsets, interpreter_state.threads_head);
	OFF(_Py_DebugOffsets, thread_state.next);
	OFF(_Py_DebugOffsets, thread_state.interp);
	OFF(_Py_DebugOffsets, thread_state.current_frame);
	OFF(_Py_DebugOffsets, thread_state.native_thread_id);
	OFF(_Py_DebugOffsets, interpreter_frame.previous);
	OFF(_Py_DebugOffsets, interpreter_frame.executable);
	OFF(_Py_DebugOffsets, interpreter_frame.instr_ptr);
	OFF(_Py_DebugOffsets, interpreter_frame.owner);
	OFF(_Py_DebugOffsets, code_object.filename);
	OFF(_Py_DebugOffsets, code_object.name);
	OFF(_Py_DebugOffsets, code_object.qualname);
	OFF(_Py_DebugOffsets, code_object.linetable);
	OFF(_Py_DebugOffsets, code_object.firstlineno);
	OFF(_Py_DebugOffsets, code_object.co_code_adaptive);
	OFF(_Py_DebugOffsets, pyobject.ob_type);
	OFF(_Py_DebugOffsets, bytes_object.ob_size);
	OFF(_Py_DebugOffsets, bytes_object.ob_sval);
	OFF(_Py_DebugOffsets, unicode_object.state);
	OFF(_Py_DebugOffsets, unicode_object.length);
	OFF(_Py_DebugOffsets, unicode_object.asciiobject_size);
#endif
	return 0;
}
