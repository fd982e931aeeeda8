/* SPDX-License-Identifier: MIT */
/*
 * What the BPF program sample.bpf.c and its loader (perfbpf.c) share:
 * the maps' values and the records the program writes at each sample.
 *
 * At a sample of a thread whose Python thread state uprofile has found
 * (the threads map) in a process whose layout it knows (procs), the
 * program copies, from the thread's own memory, the bytes a walk of its
 * Python frames reads (pyframes.c): the thread state, the C frame's
 * current frame (3.11, 3.12), and each frame with its code object's
 * header, innermost first, as regions of the record.  The walk then
 * reads them from the record instead of from the process: the frames
 * are the sample's, and the collector need not wake at each sample to
 * read them soon after it.
 *
 * Every byte is untrusted (the process wrote them): the walk checks
 * them as it checks what it reads itself.
 */
#ifndef COMMON_ENGINE_BPF_SAMPLE_BPF_H
#define COMMON_ENGINE_BPF_SAMPLE_BPF_H

#include <linux/types.h>

#define SBPF_MAGIC 0x46425950u		/* "PYBF" */
#define SBPF_BUF 32768			/* a CPU's scratch record */
#define SBPF_ROOM 16384		/* regions start below this */
#define SBPF_REGION_MAX 512		/* bytes of a region, at most - 1 */
#define SBPF_FRAMES 64			/* frames copied, at most */
#define SBPF_NONE 0xffffffffu		/* an offset that is not there */
#define SBPF_PYTHON 1u			/* config: copy Python frames */

/* Where the frames of a process's threads are (its layout's offsets);
 * ts_len 0: a process that is not a CPython read (nothing copied). */
struct sbpf_proc {
	__u32 ts_len;		/* bytes of the thread state copied */
	__u32 ts_frame;		/* its frame (3.9, 3.10, 3.13) or C frame
				 * (3.11, 3.12) pointer */
	__u32 cf_frame;		/* the C frame's current frame, or NONE */
	__u32 frame_len;	/* bytes of a frame copied */
	__u32 fr_code;		/* a frame's code object pointer */
	__u32 fr_previous;	/* its caller's frame */
	__u32 code_len;		/* bytes of a code object's header copied */
	__u32 pad;
};

/* A thread's state, as uprofile last found it; extra: more of the
 * thread's memory to copy (3.9, 3.10: the thread id in its pthread_t).
 * ts 0: it had none (it runs no Python, or not yet): uprofile wants
 * waking for its samples from retry_ns on (CLOCK_MONOTONIC), to look
 * again. */
struct sbpf_thread {
	__u64 ts;
	__u64 extra;
	__u32 extra_len;
	__u32 pad;
	__u64 retry_ns;
};

/* The processes whose stacks outgrew the kernel's copy (the deep map):
 * the program copies up to len bytes more of the sampled thread's stack,
 * from its stack pointer + from (the kernel's copy's size) on, a page at
 * a time until one cannot be read (the stack's top), in records of
 * SBPF_STACK_PAGES pages at most, each one region (magic STACK). */
struct sbpf_deep {
	__u32 from;
	__u32 len;
};
#define SBPF_STACK_MAGIC 0x4b415453u	/* "STAK" */
#define SBPF_PAGE 4096
#define SBPF_STACK_PAGES 6		/* pages of a record, at most */
#define SBPF_STACK_RECORDS 8		/* records of a sample, at most */

/* A wake-up's record: the sampled thread's ids. */
struct sbpf_wake {
	__u32 tgid;
	__u32 tid;
};

/* The record: a head, then regions, each its bytes padded to 8. */
struct sbpf_head {
	__u32 magic;
	__u32 tid;
	__u32 len;		/* the record's, head included */
	__u32 pad;
};

struct sbpf_region {
	__u64 addr;
	__u32 len;
	__u32 pad;
};

#endif
