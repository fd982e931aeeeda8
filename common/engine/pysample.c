/* SPDX-License-Identifier: MIT */
/*
 * The Python frames of samples (pysample.h): each process is looked at
 * once (py_open(): a CPython whose layout is known, or not Python), and
 * each sample of a Python process gets its thread's Python frames, read
 * as the sample is drained (pyframes.c, pycode.c), as the collector's frames.
 */
#include <stdlib.h>
#include <string.h>

#include "common/collect/collect.h"
#include "common/profile/profile.h"
#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "common/unwind/unwind.h"
#include "pyframes.h"
#include "pysample.h"

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
};

struct py_samples {
	struct pyproc *procs;
	size_t nprocs, alloc_procs;
	struct hashmap index;	/* by pid: a run may see thousands */
	size_t nactive;		/* CPythons being read */
	size_t last;		/* the process of the last sample */
	struct py_frame frames[PY_SAMPLE_FRAMES];
	struct collect_pyframe out[PY_SAMPLE_FRAMES];
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

/* cs's copy of its thread's user stack, or NULL. */
static const struct py_stack_copy *stack_copy(const struct collect_sample *cs,
					      struct py_stack_copy *copy)
{
	struct unw_state st;

	if (!cs->ustack || !cs->uregs ||
	    unw_init(&st, cs->uregs, cs->uregs_mask, cs->ustack,
		     (size_t)cs->ustack_len))
		return NULL;
	*copy = (struct py_stack_copy){ st.sp0, cs->ustack,
					(size_t)cs->ustack_len };
	return copy;
}

void py_samples_add(struct py_samples *ps, struct collector *c,
		    struct collect_sample *cs)
{
	struct py_stack_copy copy;
	struct pyproc *pp = proc_of(ps, cs->pid);
	const struct py_info *info;
	size_t n = 0, i, k = 0;
	int err;

	cs->npy = 0;
	if (!pp || !pp->p || !cs->tid)
		return;
	pp->samples++;
	err = py_sample_stack(pp->p, (pid_t)cs->tid, stack_copy(cs, &copy),
			      ps->frames, PY_SAMPLE_FRAMES, &n);
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
	/* A process that is no CPython at all needs no word. */
	out->why = pp->version || !pp->open_err ||
		   pp->open_err == -PROF_ENOENT ? NULL : pp->why;
	out->version = pp->version;
	out->image = pp->version ? pp->image : NULL;
	return 0;
}
