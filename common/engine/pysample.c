/* SPDX-License-Identifier: MIT */
/*
 * The Python frames of samples (pysample.h): each process is looked at
 * once (py_open(): a CPython whose layout is known, or not Python), and
 * each sample of a Python process gets its thread's Python frames, read
 * as the sample is drained (pyframes.c, pycode.c), as the collector's frames.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/collect/collect.h"
#include "common/profile/profile.h"
#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "common/unwind/unwind.h"
#include "perfbpf.h"
#include "pyframes.h"
#include "pysample.h"
#include "bpf/sample_bpf.h"

/* Frames of one sample read at most (a deeper stack keeps its inner
 * ones: the walk stops there with a reason). */
#define PY_SAMPLE_FRAMES 512

struct pyproc {
	uint32_t pid;
	struct py_proc *p;	/* NULL: not a Python we can read */
	int open_err;		/* py_open()'s, when it failed */
	uint32_t version;	/* what it found (kept after py_close) */
	char image[256];
	char why[160];		/* its detail */
	uint64_t samples, with_python;
	uint64_t at_sample;	/* of with_python: frames copied at the
				 * sample (perfbpf.h) */
};

/* A CPU's copy of Python frames, waiting for its sample (the next of
 * that CPU's thread: the program writes it just before). */
struct pending {
	uint32_t pid, tid;	/* tid 0: none */
	uint64_t time;
	uint8_t *buf;
	size_t len, alloc;
};

/* Where the BPF program was told a thread's state is (a cache keyed by
 * tid: a thread not found or moved is told again). */
#define TOLD_SLOTS 1024
struct told {
	uint32_t tid;		/* 0: none */
	bool told;		/* th is what the program was told */
	struct sbpf_thread th;	/* th.ts 0: runs no Python (was told so) */
	uint64_t missing;	/* since when its walks find no state */
};
/* How long a thread that ran no Python is not looked at again. */
#define RETRY_NS 10000000ULL
/* How long a thread whose walks find no state has its samples wake the
 * drainer before the program is told it runs no Python: a thread's state
 * comes a moment after the thread (the interpreter's start, a new thread
 * binding the state its creator made), and its first Python samples
 * would go without frames for RETRY_NS. */
#define GRACE_NS 50000000ULL

struct py_samples {
	struct pyproc *procs;
	size_t nprocs, alloc_procs;
	struct hashmap index;	/* by pid: a run may see thousands */
	size_t nactive;		/* CPythons being read */
	size_t last;		/* the process of the last sample */
	struct py_frame frames[PY_SAMPLE_FRAMES];
	struct collect_pyframe out[PY_SAMPLE_FRAMES];
	struct perf_bpf *bpf;	/* frames copied at the sample, or NULL */
	struct pending *pend;	/* by CPU */
	size_t npend;
	struct told told[TOLD_SLOTS];
	uint64_t read_since;	/* py_samples_read_since()'s */
};

struct py_samples *py_samples_new(void)
{
	return calloc(1, sizeof(struct py_samples));
}

void py_samples_free(struct py_samples *ps)
{
	size_t i;

	if (!ps)
		return;
	for (i = 0; i < ps->nprocs; i++)
		py_close(ps->procs[i].p);
	for (i = 0; i < ps->npend; i++)
		free(ps->pend[i].buf);
	free(ps->pend);
	free(ps->procs);
	hashmap_release(&ps->index);
	free(ps);
}

struct pid_key {
	const struct py_samples *ps;
	uint32_t pid;
};

static int pid_eq(const void *ctx, size_t entry)
{
	const struct pid_key *k = ctx;

	return k->ps->procs[entry].pid == k->pid;
}

/* Tell the program what process pp is: a CPython's layout, or none to
 * read (its samples then need no wake-up). */
static void tell_proc(struct py_samples *ps, const struct pyproc *pp)
{
	struct sbpf_proc cfg;

	if (!ps->bpf)
		return;
	memset(&cfg, 0, sizeof(cfg));
	if (pp->p)
		py_bpf_proc_of(pp->p, &cfg);
	perf_bpf_set_proc(ps->bpf, pp->pid, &cfg);
}

/* pid's entry, looked at when first met; NULL when out of memory. */
static struct pyproc *proc_of(struct py_samples *ps, uint32_t pid)
{
	struct pid_key k = { ps, pid };
	struct pyproc *pp;
	size_t i;

	if (ps->last < ps->nprocs && ps->procs[ps->last].pid == pid)
		return &ps->procs[ps->last];
	i = hashmap_find(&ps->index, pid, pid_eq, &k);
	if (i != SIZE_MAX) {
		ps->last = i;
		return &ps->procs[i];
	}
	if (ALLOC_GROW(ps->procs, ps->nprocs + 1, ps->alloc_procs) ||
	    hashmap_add(&ps->index, pid, ps->nprocs))
		return NULL;
	pp = &ps->procs[ps->nprocs];
	memset(pp, 0, sizeof(*pp));
	pp->pid = pid;
	pp->open_err = py_open((pid_t)pid, &pp->p);
	if (pp->open_err)
		snprintf(pp->why, sizeof(pp->why), "%s",
			 prof_error(pp->open_err));
	tell_proc(ps, pp);
	if (pp->p) {
		ps->nactive++;
		pp->version = py_info(pp->p)->version;
		snprintf(pp->image, sizeof(pp->image), "%s",
			 py_info(pp->p)->image);
	}
	ps->last = ps->nprocs++;
	return pp;
}

int py_samples_active(const struct py_samples *ps)
{
	return ps->nactive > 0;
}

void py_samples_mapped(struct py_samples *ps, uint32_t pid, const char *path)
{
	const char *base = strrchr(path, '/');
	struct pid_key k = { ps, pid };
	size_t i;

	base = base ? base + 1 : path;
	if (strncmp(base, "libpython", 9))
		return;
	i = hashmap_find(&ps->index, pid, pid_eq, &k);
	/* Only a look that found no CPython: one whose layout is not
	 * known stays so, however many times it maps its libpython. */
	if (i != SIZE_MAX && !ps->procs[i].p &&
	    ps->procs[i].open_err == -PROF_ENOENT)
		py_samples_forget(ps, pid);
}

void py_samples_forget(struct py_samples *ps, uint32_t pid)
{
	size_t i;

	struct pid_key k = { ps, pid };

	if (!ps || (i = hashmap_find(&ps->index, pid, pid_eq, &k)) == SIZE_MAX)
		return;
	/* Its image is gone: kept for -v, never found again (a sample
	 * of pid after an exec looks at it anew). */
	if (ps->procs[i].p)
		ps->nactive--;
	/* Looked at anew at its next sample, which wakes us. */
	if (ps->bpf)
		perf_bpf_set_proc(ps->bpf, pid, NULL);
	py_close(ps->procs[i].p);
	ps->procs[i].p = NULL;
	ps->procs[i].pid = UINT32_MAX;
	ps->last = SIZE_MAX;
}

/* pp cannot be read after all (err): it is a process whose py_open()
 * failed with err. */
static void drop_proc(struct py_samples *ps, struct pyproc *pp, int err)
{
	snprintf(pp->why, sizeof(pp->why), "%s", prof_error(err));
	pp->open_err = err;
	pp->version = 0;
	pp->image[0] = '\0';
	py_close(pp->p);
	pp->p = NULL;
	tell_proc(ps, pp);
	ps->nactive--;
}

/* The collector's frame of Python frame f, or NO_PY_FRAME. */
static struct collect_pyframe frame_of(struct py_proc *p, struct collector *c,
				       const struct py_frame *f)
{
	struct collect_pyframe out = { NO_PY_FRAME, 0, f->is_entry };
	struct py_code code;
	uint64_t fn;
	int line;

	if (f->incomplete || py_code_info(p, f->code, f->instr, &code) ||
	    collector_python_function(c, code.filename, code.qualname,
				      code.firstlineno, &out.obj, &fn)) {
		out.obj = NO_PY_FRAME;
		return out;
	}
	line = code.line > 0 ? code.line : code.firstlineno;
	if (line < 0 || line >= 1 << PROF_PY_LINE_BITS)
		line = 0;
	out.offset = (fn << PROF_PY_LINE_BITS) | (uint64_t)line;
	return out;
}

void py_samples_use_bpf(struct py_samples *ps, struct perf_bpf *b)
{
	ps->bpf = b;
}

void py_samples_frames(struct py_samples *ps, uint32_t cpu, uint32_t pid,
		       uint32_t tid, uint64_t time, const uint8_t *raw,
		       size_t len)
{
	struct pending *pd;

	if (cpu >= 4096 || !tid ||
	    ALLOC_GROW_ZERO(ps->pend, (size_t)cpu + 1, ps->npend))
		return;
	pd = &ps->pend[cpu];
	pd->tid = 0;
	if (ALLOC_GROW(pd->buf, len, pd->alloc))
		return;
	memcpy(pd->buf, raw, len);
	pd->len = len;
	pd->time = time;
	pd->pid = pid;
	pd->tid = tid;
}

/* The copy of cs's Python frames that came just before it, or NULL: one
 * of its CPU and thread, of about its time (the program runs once a
 * sampling event's sample time is read, before a tracepoint's). */
#define COPY_SKEW_NS 1000000ULL
static const uint8_t *sample_frames(struct py_samples *ps,
				    const struct collect_sample *cs,
				    size_t *len)
{
	struct pending *pd;

	if (cs->cpu >= ps->npend)
		return NULL;
	pd = &ps->pend[cs->cpu];
	if (pd->tid != cs->tid || pd->pid != cs->pid ||
	    (pd->time > cs->time ? pd->time - cs->time :
	     cs->time - pd->time) > COPY_SKEW_NS) {
		pd->tid = 0;
		return NULL;
	}
	pd->tid = 0;
	*len = pd->len;
	return pd->buf;
}

/* cs's copy of its thread's user stack and Python frames, or NULL. */
static const struct py_stack_copy *stack_copy(struct py_samples *ps,
					      const struct collect_sample *cs,
					      struct py_stack_copy *copy)
{
	struct unw_state st;

	memset(copy, 0, sizeof(*copy));
	if (ps->bpf)
		copy->frames = sample_frames(ps, cs, &copy->frames_len);
	if (cs->ustack && cs->uregs &&
	    !unw_init(&st, cs->uregs, cs->uregs_mask, cs->ustack,
		      (size_t)cs->ustack_len)) {
		copy->sp = st.sp0;
		copy->data = cs->ustack;
		copy->len = (size_t)cs->ustack_len;
	}
	return copy->data || copy->frames ? copy : NULL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Whether frames read from the process now would be too late for sample
 * cs: with the BPF program, drains come at the ring's watermark (tens of
 * ms), and the thread has moved on. */
#define PY_STALE_NS 5000000ULL
static bool stale(const struct collect_sample *cs)
{
	uint64_t now = now_ns();

	return now > cs->time && now - cs->time > PY_STALE_NS;
}

/* A thread the program was told runs no Python, looked at less than
 * RETRY_NS ago: not walked again yet. */
static bool no_python(struct py_samples *ps, uint32_t tid)
{
	const struct told *t = &ps->told[tid % TOLD_SLOTS];

	return t->tid == tid && t->told && !t->th.ts &&
	       now_ns() < t->th.retry_ns;
}

/* Tell the program where thread tid's state is, when the walk found it
 * elsewhere than it was told (or it was never told). */
static void tell_thread(struct py_samples *ps, struct pyproc *pp,
			uint32_t tid)
{
	struct told *t = &ps->told[tid % TOLD_SLOTS];
	struct sbpf_thread th;
	uint64_t now;

	if (py_exited(pp->p))
		return;
	if (t->tid != tid) {
		memset(t, 0, sizeof(*t));
		t->tid = tid;
	}
	/* Its walk found no thread state, or one with no frame to keep:
	 * it runs no Python, so far; after GRACE_NS of that, the program
	 * need not wake us for its samples for a while.  One that ran
	 * Python keeps what it was told (a moment without its state, as at
	 * a fork, is not the end of it; a state that moved is found again
	 * by the walk of a copy that is not the thread's). */
	if (!py_bpf_thread_of(pp->p, (pid_t)tid, &th)) {
		if (t->told && t->th.ts)
			return;
		now = now_ns();
		if (!t->missing)
			t->missing = now;
		if (now - t->missing < GRACE_NS)
			return;
		memset(&th, 0, sizeof(th));
		th.retry_ns = now + RETRY_NS;
	} else {
		t->missing = 0;
	}
	if (t->told && !memcmp(&t->th, &th, sizeof(th)))
		return;
	if (perf_bpf_set_thread(ps->bpf, tid, &th))
		return;
	t->told = true;
	t->th = th;
}

void py_samples_woken(struct py_samples *ps, uint32_t pid, uint32_t tid)
{
	struct pid_key k = { ps, pid };
	size_t i;

	/* A process told of and dropped from the program's table since
	 * (the table keeps the last ones used): told again.  Not known
	 * yet: its sample, next, looks at it. */
	struct told *t = &ps->told[tid % TOLD_SLOTS];

	if (ps->bpf &&
	    (i = hashmap_find(&ps->index, pid, pid_eq, &k)) != SIZE_MAX)
		tell_proc(ps, &ps->procs[i]);
	/* Likewise a thread: told again after its sample's walk. */
	if (t->tid == tid)
		t->told = false;
}

uint64_t py_samples_read_since(struct py_samples *ps)
{
	uint64_t n = ps->read_since;

	ps->read_since = 0;
	return n;
}

void py_samples_add(struct py_samples *ps, struct collector *c,
		    struct collect_sample *cs, int at_switch)
{
	struct py_stack_copy copy;
	struct pyproc *pp = proc_of(ps, cs->pid);
	const struct py_info *info;
	size_t n = 0, i, k = 0;
	bool late;
	int err;

	cs->npy = 0;
	if (!pp || !pp->p || !cs->tid)
		return;
	pp->samples++;
	stack_copy(ps, cs, &copy);
	if (ps->bpf && !copy.frames && no_python(ps, cs->tid))
		return;
	/* With the program, drains come at the ring's watermark: a sample
	 * drained late is read from its copy alone (what is not in it,
	 * the process holds no more), or keeps its native frames.  Not a
	 * switch's: its thread's frames stay as long as it waits. */
	late = ps->bpf && !at_switch && stale(cs);
	py_copy_only(pp->p, late);
	err = py_sample_stack(pp->p, (pid_t)cs->tid,
			      copy.data || copy.frames ? &copy : NULL,
			      ps->frames, PY_SAMPLE_FRAMES, &n);
	py_copy_only(pp->p, false);
	if (ps->bpf) {
		tell_thread(ps, pp, cs->tid);
		/* Read from the process: its state was not told yet (the
		 * walk found it, for the next samples). */
		if (!copy.frames && !at_switch)
			ps->read_since++;
	}
	if (err == -PROF_EUNAVAIL) {
		/* Found at the first walk, not at py_open(): unreadable
		 * (3.9, 3.10: where its thread ids are), said as an open
		 * failure would be. */
		drop_proc(ps, pp, err);
		return;
	}
	if (err && err != -PROF_EFORMAT)
		return;		/* no Python in this thread, or gone */
	for (i = 0; i < n; i++) {
		ps->out[k] = frame_of(pp->p, c, &ps->frames[i]);
		if (ps->out[k].obj != NO_PY_FRAME || ps->out[k].entry)
			k++;
	}
	if (!k)
		return;
	info = py_info(pp->p);
	pp->with_python++;
	pp->at_sample += copy.frames != NULL;
	cs->py = ps->out;
	cs->npy = (uint32_t)k;
	cs->py_eval_lo = info->eval_start;
	cs->py_eval_hi = info->eval_end;
}

int py_samples_info(const struct py_samples *ps, size_t i,
		    struct py_samples_proc *out)
{
	const struct pyproc *pp;

	if (!ps || i >= ps->nprocs)
		return 1;
	pp = &ps->procs[i];
	memset(out, 0, sizeof(*out));
	out->pid = pp->pid;
	out->samples = pp->samples;
	out->with_python = pp->with_python;
	out->at_sample = pp->at_sample;
	/* A process that is no CPython at all needs no word. */
	out->why = pp->version || !pp->open_err ||
		   pp->open_err == -PROF_ENOENT ? NULL : pp->why;
	out->version = pp->version;
	out->image = pp->version ? pp->image : NULL;
	return 0;
}
