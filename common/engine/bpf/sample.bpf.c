/* SPDX-License-Identifier: MIT */
/*
 * What a sample needs beyond what the kernel copies into it, copied at
 * the sample, in the kernel: a BPF program on the sampling events of a
 * run with call stacks (perfbpf.c loads and attaches it; sample_bpf.h
 * says what it writes): a Python thread's frames, and the rest of a
 * stack deeper than the kernel's copy.  It runs in the sampled thread's
 * context, before its sample is written, and reads only that thread's
 * own memory (bpf_probe_read_user()), never another process's: it runs
 * on the sampling events, whose tasks are the profile's.  A read that
 * fails (a page not in memory) leaves its region out: the walk reads it
 * from the process then, the unwinder stops there.  It always lets the
 * sample through.
 */
/*
 * Python frames copied at the sample, in the kernel: a BPF program on
 * the sampling events of a Python run (perfbpf.c loads and attaches it;
 * sample_bpf.h says what it writes).  It runs in the sampled thread's
 * context, before its sample is written, and reads only that thread's
 * own memory (bpf_probe_read_user()), never another process's: it runs
 * on the sampling events, whose tasks are the profile's.  A read
 * that fails (a page not in memory) leaves its region out: the walk
 * reads it from the process then.  It always lets the sample through.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "sample_bpf.h"

/* The processes uprofile looked at: a CPython's layout, or ts_len 0 for
 * one that is not (or not yet) a CPython it reads. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct sbpf_proc);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct sbpf_thread);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, SBPF_BUF);
} scratch SEC(".maps");

/* What the program copies: [0] its flags, SBPF_PYTHON (Python frames:
 * else it neither copies them nor wakes uprofile). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} config SEC(".maps");

/* Processes whose stacks are deeper than the kernel's copy. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct sbpf_deep);
} deep SEC(".maps");

/* One BPF output event per CPU, writing into that CPU's sample ring
 * (max_entries: set by the loader to the CPUs possible). */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} out SEC(".maps");

/* The same, for a sample of a process or thread uprofile was not told
 * of yet: its ids (struct sbpf_wake), whose event wakes uprofile, so
 * that it reads the frames itself while they are the sample's, and tells
 * the process or thread. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} wake SEC(".maps");

/* Copy len bytes at addr as a region at pos of buf: the next region's
 * place (pos again when the read fails: the region is left out). */
static __always_inline __u32 region(__u8 *buf, __u32 pos, __u64 addr,
				    __u32 len)
{
	struct sbpf_region *r;

	/* Bounds the verifier sees (the compiler would drop them as
	 * known: the barriers hide what it knows). */
	asm volatile("" : "+r"(pos));
	asm volatile("" : "+r"(len));
	pos &= SBPF_ROOM - 1;
	len &= SBPF_REGION_MAX - 1;
	r = (void *)(buf + pos);
	if (bpf_probe_read_user(buf + pos + sizeof(*r), len,
				(const void *)addr))
		return pos;
	r->addr = addr;
	r->len = len;
	r->pad = 0;
	return pos + sizeof(*r) + ((len + 7) & ~7u);
}

/* Where a walk of frames is, for step(). */
struct walk {
	__u8 *buf;
	const struct sbpf_proc *pp;
	__u64 frame;
	__u32 pos;
};

/* One frame and its code object's header copied: 0 to go on, 1 to stop
 * (bpf_loop(): the verifier checks it once, not once a frame). */
static long step(__u32 i, void *ctx)
{
	struct walk *w = ctx;
	__u64 code = 0, prev = 0;

	if (!w->frame || w->pos > SBPF_ROOM - 2 * (sizeof(struct sbpf_region) +
						    SBPF_REGION_MAX))
		return 1;
	w->pos = region(w->buf, w->pos, w->frame, w->pp->frame_len);
	bpf_probe_read_user(&code, sizeof(code),
			    (const void *)(w->frame + w->pp->fr_code));
	bpf_probe_read_user(&prev, sizeof(prev),
			    (const void *)(w->frame + w->pp->fr_previous));
	if (code && w->pp->code_len)
		w->pos = region(w->buf, w->pos, code, w->pp->code_len);
	w->frame = prev;
	return 0;
}

/* Copy the current thread's frames, if it is one uprofile was told of,
 * into its CPU's output; else wake uprofile. */
static __always_inline void copy_frames(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id, zero = 0, pos;
	struct sbpf_wake wk = { tgid, tid };
	const struct sbpf_proc *pp;
	const struct sbpf_thread *th;
	struct sbpf_head *h;
	struct walk w;
	__u64 frame = 0, cf;
	__u8 *buf;

	pp = bpf_map_lookup_elem(&procs, &tgid);
	if (!pp) {
		bpf_perf_event_output(ctx, &wake, BPF_F_CURRENT_CPU, &wk,
				      sizeof(wk));
		return;
	}
	if (!pp->ts_len)
		return;		/* not a CPython read */
	th = bpf_map_lookup_elem(&threads, &tid);
	if (!th) {
		bpf_perf_event_output(ctx, &wake, BPF_F_CURRENT_CPU, &wk,
				      sizeof(wk));
		return;
	}
	if (!th->ts) {
		/* It ran no Python when last looked at. */
		if (bpf_ktime_get_ns() >= th->retry_ns)
			bpf_perf_event_output(ctx, &wake, BPF_F_CURRENT_CPU,
					      &wk, sizeof(wk));
		return;
	}
	buf = bpf_map_lookup_elem(&scratch, &zero);
	if (!buf)
		return;
	pos = region(buf, sizeof(*h), th->ts, pp->ts_len);
	if (th->extra)
		pos = region(buf, pos, th->extra, th->extra_len);
	if (bpf_probe_read_user(&frame, sizeof(frame),
				(const void *)(th->ts + pp->ts_frame)))
		frame = 0;
	if (frame && pp->cf_frame != SBPF_NONE) {
		cf = frame + pp->cf_frame;
		pos = region(buf, pos, cf, sizeof(frame));
		if (bpf_probe_read_user(&frame, sizeof(frame),
					(const void *)cf))
			frame = 0;
	}
	w.buf = buf;
	w.pp = pp;
	w.frame = frame;
	w.pos = pos;
	bpf_loop(SBPF_FRAMES, step, &w, 0);
	pos = w.pos;
	h = (void *)buf;
	h->magic = SBPF_MAGIC;
	h->tid = tid;
	h->len = pos;
	h->pad = 0;
	asm volatile("" : "+r"(pos));
	bpf_perf_event_output(ctx, &out, BPF_F_CURRENT_CPU, buf,
			      pos & (SBPF_BUF - 1));
}

/* A record's pages of stack being copied: from base on, at
 * SBPF_STACK_DATA of buf. */
struct stack_walk {
	__u8 *buf;
	__u64 base;
	__u32 failed;
};
#define SBPF_STACK_DATA (sizeof(struct sbpf_head) + \
			  sizeof(struct sbpf_region))

/* Page i into the record: 0 to go on, 1 (failed set) when it cannot be
 * read: the stack's top.  (Nothing but failed is written: the verifier
 * checks the callback once, not once a page.) */
static long stack_step(__u32 i, void *ctx)
{
	struct stack_walk *w = ctx;
	__u64 k = i;

	asm volatile("" : "+r"(k));
	if (k >= SBPF_STACK_PAGES)
		return 1;
	if (bpf_probe_read_user(w->buf + SBPF_STACK_DATA + k * SBPF_PAGE,
				SBPF_PAGE,
				(const void *)(w->base + k * SBPF_PAGE))) {
		w->failed = 1;
		return 1;
	}
	return 0;
}

/* The rest of a deep stack, after the kernel's copy (pybpf_deep): whole
 * pages, from the one the copy ends in (its part before the copy's end
 * repeats the copy's). */
static __always_inline void copy_stack(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, zero = 0, rec;
	const struct sbpf_deep *dp;
	struct sbpf_region *r;
	struct sbpf_head *h;
	struct stack_walk w;
	__u64 end;
	long n;
	__u8 *buf;

	dp = bpf_map_lookup_elem(&deep, &tgid);
	if (!dp || !dp->len)
		return;
	buf = bpf_map_lookup_elem(&scratch, &zero);
	if (!buf)
		return;
	w.buf = buf;
	w.base = PT_REGS_SP(&ctx->regs) + dp->from;
	end = w.base + dp->len;
	w.base &= ~(__u64)(SBPF_PAGE - 1);
	for (rec = 0; rec < SBPF_STACK_RECORDS && w.base < end; rec++) {
		w.failed = 0;
		n = bpf_loop(SBPF_STACK_PAGES, stack_step, &w, 0);
		if (w.failed)
			n--;
		if (n <= 0 || n > SBPF_STACK_PAGES)
			break;
		h = (void *)buf;
		h->magic = SBPF_STACK_MAGIC;
		h->tid = (__u32)id;
		h->len = SBPF_STACK_DATA + n * SBPF_PAGE;
		h->pad = 0;
		r = (void *)(buf + sizeof(*h));
		r->addr = w.base;
		r->len = n * SBPF_PAGE;
		r->pad = 0;
		bpf_perf_event_output(ctx, &out, BPF_F_CURRENT_CPU, buf,
				      SBPF_STACK_DATA + n * SBPF_PAGE);
		if (w.failed)
			break;
		w.base += SBPF_STACK_PAGES * SBPF_PAGE;
	}
}

/* On a sampling event: it runs in the sampled thread, after the
 * sample's time is read, before the sample is written.  The program of a
 * sampling event runs for that event's tasks only: those of the
 * profile. */
SEC("perf_event")
int pyframes(struct bpf_perf_event_data *ctx)
{
	__u32 zero = 0;
	const __u32 *flags = bpf_map_lookup_elem(&config, &zero);

	if (flags && (*flags & SBPF_PYTHON))
		copy_frames(ctx);
	copy_stack(ctx);
	return 1;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
