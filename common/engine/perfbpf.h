/* SPDX-License-Identifier: MIT */
/*
 * What a sample needs beyond what the kernel copies into it, copied at
 * the sample by a BPF program (bpf/sample.bpf.c, built into the tools;
 * bpf/sample_bpf.h says what it writes): loaded for a run with call
 * stacks where the kernel and our privileges allow it (CAP_BPF and
 * CAP_PERFMON, or root; uprofile in the initial PID namespace), attached
 * to each sampling event (not the switch event of off-CPU statistics, a
 * tracepoint's, on which it would run for every task of the machine), in
 * the sampled thread, it writes into the sample ring just before the
 * sample (perf.c lists them at its time):
 *
 *  - Python frames: the bytes a walk of a thread's frames reads, for a
 *    thread whose Python thread state it was told of
 *    (perf_bpf_set_thread()) in a process it was told is a CPython
 *    (perf_bpf_set_proc()); pysample.c gives them to the walk with the
 *    sample.  A sample of a process or thread it was not told of writes
 *    a wake-up record instead, which wakes the drainer at once to read
 *    that thread's frames itself and tell it.  Without the program (not
 *    allowed, an older kernel, --python=read), and for off-CPU samples,
 *    frames are read from the process as samples are drained, which
 *    needs the drainer woken soon after each sample (perf.c).
 *  - The rest of a deep stack: once a process's sample fills the
 *    kernel's copy of its stack (64 KiB at most, the size of a record),
 *    its samples get up to 192 KiB more (perf_bpf_set_deep()), which
 *    perf.c joins to the kernel's copy before the stack is unwound.
 *
 * The maps hold at most 4096 processes and 8192 threads (the least
 * recently used go, and a wake-up tells them again).
 *
 * Errors follow common/util/error.h; nothing prints (libbpf's own
 * messages are kept from stderr).
 */
#ifndef COMMON_ENGINE_PERFBPF_H
#define COMMON_ENGINE_PERFBPF_H

#include <stddef.h>
#include <stdint.h>

struct perf_bpf;
struct sbpf_proc;
struct sbpf_thread;

/* Load the program: *out, or -PROF_EUNAVAIL with the reason in one
 * line. */
int perf_bpf_open(struct perf_bpf **out);
void perf_bpf_close(struct perf_bpf *b);
/* Attach the program to sampling event fd (not a tracepoint's: a
 * tracepoint's programs run for every task on the machine). */
int perf_bpf_attach(struct perf_bpf *b, int fd);
/* Open the output events of cpu, writing into the ring of ring_fd: the
 * frames' in *fd, and in *wake_fd the one whose records (a sample of a
 * thread not told of yet) wake the drainer; the caller closes them. */
int perf_bpf_output(struct perf_bpf *b, int cpu, int ring_fd,
		  uint64_t sample_type, int clockid, int *fd, int *wake_fd);
/* What to copy of process pid's threads (p->ts_len 0: it is no CPython
 * read, nothing); NULL: forget it (its next sample wakes the drainer). */
int perf_bpf_set_proc(struct perf_bpf *b, uint32_t pid,
		    const struct sbpf_proc *p);
/* Where thread tid's state is (th->ts 0: it had none; wake the drainer
 * for its samples from th->retry_ns on). */
int perf_bpf_set_thread(struct perf_bpf *b, uint32_t tid,
		      const struct sbpf_thread *th);

/* One region of a record the program wrote: len bytes of the sampled
 * thread's memory at addr, at data (in the record). */
struct perf_bpf_region {
	uint64_t addr;
	size_t len;
	const uint8_t *data;
};
/*
 * The regions of the record rec of len bytes (sample_bpf.h's head, then
 * regions, each padded to 8) whose head has magic, into out[] (max):
 * how many, every one checked to lie in the record (0: not such a
 * record).  The bytes are the process's: untrusted, as a read of it.
 */
size_t perf_bpf_regions(const uint8_t *rec, size_t len, uint32_t magic,
			struct perf_bpf_region *out, size_t max);

/* Whether the program copies Python frames (else it only completes deep
 * stacks). */
int perf_bpf_python(struct perf_bpf *b, int on);
/* Process pid's stacks outgrew the kernel's copy of from bytes: copy up
 * to len bytes more at each of its samples (sample_bpf.h's
 * sbpf_deep). */
int perf_bpf_set_deep(struct perf_bpf *b, uint32_t pid, uint32_t from,
		    uint32_t len);

#endif
