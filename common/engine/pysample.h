/* SPDX-License-Identifier: MIT */
/*
 * Python frames for the samples of a run (-g on a Python program, unless
 * --python=off): the engine calls py_samples_add() on each sample it
 * drains; a sample of a thread running CPython gets its Python frames
 * (pyframes.h: from the copy the BPF program made at the sample,
 * perfbpf.h, where it runs; else read then, the thread having moved on a
 * little since the sample was taken) as the collector's
 * (collect_pyframe), which replace the interpreter's frames in its stack.
 * With the program, py_samples_add() tells it the processes and thread
 * states it finds.
 *
 * Each process is looked at once, when its first sample comes (and again
 * after an exec: py_samples_forget()); one that is not a CPython whose
 * layout is known gets no Python frames, and py_samples_info() says why.
 */
#ifndef COMMON_ENGINE_PYSAMPLE_H
#define COMMON_ENGINE_PYSAMPLE_H

#include <stdint.h>

struct collector;
struct collect_sample;
struct py_samples;
struct perf_bpf;

struct py_samples *py_samples_new(void);
void py_samples_free(struct py_samples *ps);

/* cs's Python frames (cs->py, valid until the next call; cs->npy 0:
 * none), their functions named in c; at_switch: a sample taken as its
 * thread switched out (off-CPU), whose frames stay while it waits. */
void py_samples_add(struct py_samples *ps, struct collector *c,
		    struct collect_sample *cs, int at_switch);
/* Python frames are copied at the sample by b's program (perfbpf.h): the
 * processes found get told to it. */
void py_samples_use_bpf(struct py_samples *ps, struct perf_bpf *b);
/* A copy of the Python frames of process pid's thread tid
 * (sample_bpf.h's record, raw's len bytes) made on cpu at time: for
 * that CPU's next sample. */
void py_samples_frames(struct py_samples *ps, uint32_t cpu, uint32_t pid,
		       uint32_t tid, uint64_t time, const uint8_t *raw,
		       size_t len);
/* The program woke us for a sample of process pid's thread tid it was
 * not told of (sample_bpf.h's wake-up record). */
void py_samples_woken(struct py_samples *ps, uint32_t pid, uint32_t tid);
/* How many samples got frames read from the process, not copied at the
 * sample, since the last call (with the BPF program: threads it was
 * not told of yet; they want draining soon). */
uint64_t py_samples_read_since(struct py_samples *ps);
/* Whether a CPython is being read (its samples want draining at once). */
int py_samples_active(const struct py_samples *ps);
/* Process pid mapped the file at path: if it is a libpython and pid was
 * found no CPython before (looked at too early), it is looked at anew. */
void py_samples_mapped(struct py_samples *ps, uint32_t pid, const char *path);
/* Process pid exec'd or exited: its interpreter is no more. */
void py_samples_forget(struct py_samples *ps, uint32_t pid);

/* What the i-th process sampled was (-v): 0, or 1 past the last. */
struct py_samples_proc {
	uint32_t pid;		/* UINT32_MAX: exec'd or exited since */
	uint32_t version;	/* PY_VERSION_HEX, 0: no CPython read */
	const char *image;	/* the interpreter's file, or NULL */
	const char *why;	/* why not, or NULL (not Python at all) */
	uint64_t samples, with_python;
	uint64_t at_sample;	/* of with_python: frames copied at the
				 * sample (perfbpf.h) */
};
int py_samples_info(const struct py_samples *ps, size_t i,
		    struct py_samples_proc *out);

#endif
