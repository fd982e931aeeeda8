/* SPDX-License-Identifier: MIT */
/*
 * Python frames copied at the sample, in the kernel: a BPF program on
 * the sampling events of a Python run (pybpf.c loads and attaches it;
 * pyframes_bpf.h says what it writes).  It runs in the sampled thread's
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

#include "pyframes_bpf.h"

/* The processes uprofile looked at: a CPython's layout, or ts_len 0 for
 * one that is not (or not yet) a CPython it reads. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct pybpf_proc);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct pybpf_thread);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PYBPF_BUF);
} scratch SEC(".maps");

/* One BPF output event per CPU, writing into that CPU's sample ring
 * (max_entries: set by the loader to the CPUs possible). */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} out SEC(".maps");

/* The same, for a sample of a process or thread uprofile was not told
 * of yet: its ids (struct pybpf_wake), whose event wakes uprofile, so
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
	struct pybpf_region *r;

	/* Bounds the verifier sees (the compiler would drop them as
	 * known: the barriers hide what it knows). */
	asm volatile("" : "+r"(pos));
	asm volatile("" : "+r"(len));
	pos &= PYBPF_ROOM - 1;
	len &= PYBPF_REGION_MAX - 1;
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
	const struct pybpf_proc *pp;
	__u64 frame;
	__u32 pos;
};

/* One frame and its code object's header copied: 0 to go on, 1 to stop
 * (bpf_loop(): the verifier checks it once, not once a frame). */
static long step(__u32 i, void *ctx)
{
	struct walk *w = ctx;
	__u64 code = 0, prev = 0;

	if (!w->frame || w->pos > PYBPF_ROOM - 2 * (sizeof(struct pybpf_region) +
						    PYBPF_REGION_MAX))
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
	struct pybpf_wake wk = { tgid, tid };
	const struct pybpf_proc *pp;
	const struct pybpf_thread *th;
	struct pybpf_head *h;
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
	if (frame && pp->cf_frame != PYBPF_NONE) {
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
	bpf_loop(PYBPF_FRAMES, step, &w, 0);
	pos = w.pos;
	h = (void *)buf;
	h->magic = PYBPF_MAGIC;
	h->tid = tid;
	h->len = pos;
	h->pad = 0;
	asm volatile("" : "+r"(pos));
	bpf_perf_event_output(ctx, &out, BPF_F_CURRENT_CPU, buf,
			      pos & (PYBPF_BUF - 1));
}

/* On a sampling event: it runs in the sampled thread, after the
 * sample's time is read, before the sample is written.  The program of a
 * sampling event runs for that event's tasks only: those of the
 * profile. */
SEC("perf_event")
int pyframes(struct bpf_perf_event_data *ctx)
{
	copy_frames(ctx);
	return 1;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
