/* SPDX-License-Identifier: MIT */
/*
 * Python frames copied at the sample by a BPF program (bpf/pyframes.bpf.c,
 * built into the tools): loaded for a run with call stacks where the
 * kernel and our privileges allow it (CAP_BPF and CAP_PERFMON, or root;
 * uprofile in the initial PID namespace), attached to each sampling
 * event (not the switch event of off-CPU statistics, a tracepoint's, on
 * which it would run for every task of the machine), it writes the
 * frames' bytes into the sample ring just before each sample of a
 * thread whose Python thread state it was told of (py_bpf_set_thread()),
 * in a process it was told is a CPython (py_bpf_set_proc()); pysample.c
 * gives them to the walk with the sample.  A sample of a process or
 * thread it was not told of writes a wake-up record instead, which wakes
 * the drainer at once to read that thread's frames itself and tell it.
 * Without the program (not allowed, an older kernel, --python=read),
 * and for off-CPU samples, frames are read from the process as samples
 * are drained, which needs the drainer woken soon after each sample
 * (perf.c).
 *
 * The maps hold at most 4096 processes and 8192 threads (the least
 * recently used go, and a wake-up tells them again).
 *
 * Errors follow common/util/error.h; nothing prints (libbpf's own
 * messages are kept from stderr).
 */
#ifndef COMMON_ENGINE_PYBPF_H
#define COMMON_ENGINE_PYBPF_H

#include <stdint.h>

struct pybpf;
struct pybpf_proc;
struct pybpf_thread;

/* Load the program: *out, or -PROF_EUNAVAIL with the reason in one
 * line. */
int py_bpf_open(struct pybpf **out);
void py_bpf_close(struct pybpf *b);
/* Attach the program to sampling event fd (not a tracepoint's: a
 * tracepoint's programs run for every task on the machine). */
int py_bpf_attach(struct pybpf *b, int fd);
/* Open the output events of cpu, writing into the ring of ring_fd: the
 * frames' in *fd, and in *wake_fd the one whose records (a sample of a
 * thread not told of yet) wake the drainer; the caller closes them. */
int py_bpf_output(struct pybpf *b, int cpu, int ring_fd,
		  uint64_t sample_type, int clockid, int *fd, int *wake_fd);
/* What to copy of process pid's threads (p->ts_len 0: it is no CPython
 * read, nothing); NULL: forget it (its next sample wakes the drainer). */
int py_bpf_set_proc(struct pybpf *b, uint32_t pid,
		    const struct pybpf_proc *p);
/* Where thread tid's state is (th->ts 0: it had none; wake the drainer
 * for its samples from th->retry_ns on). */
int py_bpf_set_thread(struct pybpf *b, uint32_t tid,
		      const struct pybpf_thread *th);

#endif
