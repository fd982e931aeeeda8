/* SPDX-License-Identifier: MIT */
/*
 * Call stacks in the collector (-g): each sample's stack is walked when
 * the sample arrives (the kernel's call chain, and the user stack copy
 * through common/unwind/), turned into frames (object, offset), interned,
 * and counted per (stack, statistic, split).  Nothing per sample is kept:
 * memory and the profile grow with the number of distinct stacks.
 */
#include <elf.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/unwind/unwind.h"
#include "common/util/array.h"
#include "common/util/buildid.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "collect_int.h"

#define EMPTY UINT32_MAX
/* Kernel frames kept before the user part. */
#define MAX_KERNEL_FRAMES 128

struct cstack {
	uint64_t hash;
	uint32_t first, n, end;
};

struct scount {
	uint32_t stack, stat, split, used;
	uint64_t samples, weight;
};

/* How one collector object is unwound through. */
struct objunw {
	struct unw_object *unw;	/* opened at first need */
	int tried;
	uint64_t steps;
};

struct collect_stacks {
	enum prof_call_graph mode;

	struct prof_frame *frames;	/* obj: the collector's object */
	size_t nframes, alloc_frames;
	uint32_t *ftab;			/* frame ids, open addressing */
	size_t cap_ftab;

	uint32_t *sframes;
	size_t nsframes, alloc_sframes;
	struct cstack *stacks;
	size_t nstacks, alloc_stacks;
	uint32_t *stab;			/* stack ids, open addressing */
	size_t cap_stab;

	struct scount *counts;		/* open addressing */
	size_t ncounts, cap_counts;

	struct objunw *objs;		/* by collector object */
	size_t alloc_objs;

	uint64_t ends[PROF_STACK_NEND];
	uint32_t buf[MAX_KERNEL_FRAMES + UNW_MAX_FRAMES];
};

struct collect_stacks *collect_stacks_new(enum prof_call_graph mode)
{
	struct collect_stacks *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->mode = mode;
	st->cap_ftab = st->cap_stab = 1024;
	st->cap_counts = 1024;
	st->ftab = malloc(st->cap_ftab * sizeof(*st->ftab));
	st->stab = malloc(st->cap_stab * sizeof(*st->stab));
	st->counts = calloc(st->cap_counts, sizeof(*st->counts));
	if (!st->ftab || !st->stab || !st->counts) {
		collect_stacks_free(st);
		return NULL;
	}
	memset(st->ftab, 0xff, st->cap_ftab * sizeof(*st->ftab));
	memset(st->stab, 0xff, st->cap_stab * sizeof(*st->stab));
	return st;
}

void collect_stacks_free(struct collect_stacks *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->alloc_objs; i++)
		unw_object_free(st->objs[i].unw);
	free(st->objs);
	free(st->frames);
	free(st->ftab);
	free(st->sframes);
	free(st->stacks);
	free(st->stab);
	free(st->counts);
	free(st);
}

int collector_set_call_graph(struct collector *c, enum prof_call_graph mode)
{
	if (mode == PROF_CG_NONE)
		return 0;
	if ((mode == PROF_CG_DWARF || mode == PROF_CG_AUTO) &&
	    !unw_supported())
		return prof_fail(PROF_EINVAL, "--call-graph=%s: user stacks "
				 "are unwound on x86-64 only; use fp",
				 mode == PROF_CG_DWARF ? "dwarf" : "auto");
	collect_stacks_free(c->stacks);
	c->stacks = collect_stacks_new(mode);
	return c->stacks ? 0 : -PROF_ENOMEM;
}

/* ---- interning ---------------------------------------------------------- */

static int grow_table(uint32_t **tab, size_t *cap, size_t n,
		      uint64_t (*hash_of)(const struct collect_stacks *,
					  uint32_t),
		      const struct collect_stacks *st)
{
	size_t ncap = *cap * 2, i, j;
	uint32_t *t;

	if ((n + 1) * 10 <= *cap * 7)
		return 0;
	t = malloc(ncap * sizeof(*t));
	if (!t)
		return -1;
	memset(t, 0xff, ncap * sizeof(*t));
	for (i = 0; i < *cap; i++) {
		if ((*tab)[i] == EMPTY)
			continue;
		for (j = hash_of(st, (*tab)[i]) & (ncap - 1); t[j] != EMPTY;
		     j = (j + 1) & (ncap - 1))
			;
		t[j] = (*tab)[i];
	}
	free(*tab);
	*tab = t;
	*cap = ncap;
	return 0;
}

static uint64_t frame_hash(uint32_t obj, uint64_t offset)
{
	return hash_mix64(offset ^ ((uint64_t)obj << 44));
}

static uint64_t frame_hash_of(const struct collect_stacks *st, uint32_t id)
{
	return frame_hash(st->frames[id].obj, st->frames[id].offset);
}

static uint64_t stack_hash_of(const struct collect_stacks *st, uint32_t id)
{
	return st->stacks[id].hash;
}

/* The id of frame (obj, offset), added when new; EMPTY when out of
 * memory. */
static uint32_t intern_frame(struct collect_stacks *st, uint32_t obj,
			     uint64_t offset)
{
	size_t i;

	if (grow_table(&st->ftab, &st->cap_ftab, st->nframes, frame_hash_of,
		       st))
		return EMPTY;
	for (i = frame_hash(obj, offset) & (st->cap_ftab - 1);
	     st->ftab[i] != EMPTY; i = (i + 1) & (st->cap_ftab - 1)) {
		const struct prof_frame *f = &st->frames[st->ftab[i]];

		if (f->obj == obj && f->offset == offset)
			return st->ftab[i];
	}
	if (st->nframes >= EMPTY - 1 ||
	    ALLOC_GROW(st->frames, st->nframes + 1, st->alloc_frames))
		return EMPTY;
	st->frames[st->nframes].obj = obj;
	st->frames[st->nframes].reserved = 0;
	st->frames[st->nframes].offset = offset;
	st->ftab[i] = (uint32_t)st->nframes;
	return (uint32_t)st->nframes++;
}

static uint32_t intern_stack(struct collect_stacks *st, const uint32_t *f,
			     uint32_t n, uint32_t end)
{
	uint64_t h = hash_mix64(end + 0x9e3779b97f4a7c15ULL * n);
	size_t i;

	for (i = 0; i < n; i++)
		h = hash_mix64(h ^ f[i]);
	if (grow_table(&st->stab, &st->cap_stab, st->nstacks, stack_hash_of,
		       st))
		return EMPTY;
	for (i = h & (st->cap_stab - 1); st->stab[i] != EMPTY;
	     i = (i + 1) & (st->cap_stab - 1)) {
		const struct cstack *s = &st->stacks[st->stab[i]];

		if (s->hash == h && s->n == n && s->end == end &&
		    !memcmp(st->sframes + s->first, f, n * sizeof(*f)))
			return st->stab[i];
	}
	if (st->nstacks >= EMPTY - 1 ||
	    ALLOC_GROW(st->sframes, st->nsframes + n, st->alloc_sframes) ||
	    ALLOC_GROW(st->stacks, st->nstacks + 1, st->alloc_stacks))
		return EMPTY;
	memcpy(st->sframes + st->nsframes, f, n * sizeof(*f));
	st->stacks[st->nstacks] = (struct cstack){
		.hash = h, .first = (uint32_t)st->nsframes, .n = n, .end = end,
	};
	st->nsframes += n;
	st->stab[i] = (uint32_t)st->nstacks;
	return (uint32_t)st->nstacks++;
}

static int count_stack(struct collect_stacks *st, uint32_t stack,
		       uint32_t stat, uint32_t split, uint64_t samples,
		       uint64_t period)
{
	size_t mask, i;
	struct scount *e;

	if ((st->ncounts + 1) * 10 > st->cap_counts * 7) {
		size_t ncap = st->cap_counts * 2, j;
		struct scount *t = calloc(ncap, sizeof(*t));

		if (!t)
			return -1;
		for (i = 0; i < st->cap_counts; i++) {
			const struct scount *o = &st->counts[i];

			if (!o->used)
				continue;
			for (j = hash_mix64(o->stack ^ ((uint64_t)o->stat << 32) ^
				       ((uint64_t)o->split << 48)) & (ncap - 1);
			     t[j].used; j = (j + 1) & (ncap - 1))
				;
			t[j] = *o;
		}
		free(st->counts);
		st->counts = t;
		st->cap_counts = ncap;
	}
	mask = st->cap_counts - 1;
	for (i = hash_mix64(stack ^ ((uint64_t)stat << 32) ^
		       ((uint64_t)split << 48)) & mask;
	     ; i = (i + 1) & mask) {
		e = &st->counts[i];
		if (!e->used)
			break;
		if (e->stack == stack && e->stat == stat && e->split == split) {
			e->samples += samples;
			e->weight += period;
			return 0;
		}
	}
	*e = (struct scount){ .stack = stack, .stat = stat, .split = split,
			      .used = 1, .samples = samples, .weight = period };
	st->ncounts++;
	return 0;
}

/* ---- walking ------------------------------------------------------------ */

/* The vdso of this process is the one of every process (one kernel);
 * libdwarf reads files, so its image goes through a memfd. */
static struct unw_object *open_vdso(void)
{
	const unsigned char *img = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)img;
	struct unw_object *o;
	size_t len;
	int fd;

	if (!img || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return unw_object_open("[vdso]", -2);
	len = (size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (len > 1 << 20)
		return unw_object_open("[vdso]", -2);
	fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd < 0 || write(fd, img, len) != (ssize_t)len) {
		if (fd >= 0)
			close(fd);
		return unw_object_open("[vdso]", -2);
	}
	o = unw_object_open("[vdso]", fd);
	close(fd);
	return o;
}

/* Whether the file at path is o's, as far as its build-id says: a
 * recording read later (perf.data) names files that may have been
 * rebuilt since, whose CFI would walk the old code's stack wrongly. */
static bool same_build_id(const struct object *o, const char *path)
{
	uint8_t bid[20];
	int n;

	if (!o->build_id_len || o->fd >= 0 || o->unread)
		return true;
	n = buildid_read(path, bid, sizeof(bid));
	return n == (int)o->build_id_len && !memcmp(bid, o->build_id, (size_t)n);
}

/* o's file opened for unwinding: at its path, else where c->find says. */
static struct unw_object *open_file(const struct collector *c,
				    const struct object *o)
{
	struct unw_object *u = NULL;
	unsigned i;
	char *alt;

	if (same_build_id(o, o->path))
		u = unw_object_open(o->path, -1);
	if (u || !c->find || !o->build_id_len)
		return u;
	for (i = 0; !u && (alt = c->find(c->find_arg, o->path, o->build_id,
					 o->build_id_len, i)); i++) {
		if (same_build_id(o, alt))
			u = unw_object_open(alt, -1);
		free(alt);
	}
	return u;
}

static struct objunw *objunw_of(struct collector *c, uint32_t obj)
{
	struct collect_stacks *st = c->stacks;
	struct objunw *u;

	if (obj >= st->alloc_objs) {
		size_t old = st->alloc_objs;

		if (ALLOC_GROW(st->objs, (size_t)obj + 1, st->alloc_objs))
			return NULL;
		memset(st->objs + old, 0,
		       (st->alloc_objs - old) * sizeof(*st->objs));
	}
	u = &st->objs[obj];
	if (!u->tried) {
		const struct object *o = &c->objects[obj];

		u->tried = 1;
		if (o->kind == PROF_OBJ_VDSO)
			u->unw = open_vdso();
		else if (o->kind == PROF_OBJ_FILE)
			u->unw = open_file(c, o);
	}
	return u;
}

/* The frame of user address pc: the object and offset, as counts have
 * them.  -1 when no mapping holds it. */
static int user_frame(struct collector *c, const struct collect_sample *s,
		      uint64_t pc, uint32_t *obj, uint64_t *off)
{
	const struct mapping *m = collect_find_mapping(c, s->pid, pc, s->time);

	if (!m)
		return -1;
	*obj = m->obj;
	*off = c->objects[m->obj].kind == PROF_OBJ_ANON ?
	       pc : pc - m->start + m->pgoff;
	return 0;
}

static enum prof_stack_end end_of(enum unw_result r)
{
	switch (r) {
	case UNW_END: return PROF_STACK_COMPLETE;
	case UNW_TRUNC_DUMP: return PROF_STACK_TRUNC_DUMP;
	case UNW_TRUNC_NO_CFI: return PROF_STACK_TRUNC_NO_CFI;
	case UNW_TRUNC_SWITCH: return PROF_STACK_TRUNC_SWITCH;
	case UNW_TRUNC_COMPAT: return PROF_STACK_TRUNC_COMPAT;
	default: return PROF_STACK_TRUNC_BAD;
	}
}

/* How a 32-bit task's frame-pointer walk ended: where its chain stops
 * says nothing about completeness (its libc keeps no frame pointers), so
 * it is a frame-pointer chain that reports judge by its last frame, as
 * the kernel's.  Without the fallback, its own reason. */
static enum prof_stack_end end_of_compat(enum unw_result r)
{
	switch (r) {
	case UNW_END: return PROF_STACK_COMPLETE;
	case UNW_TRUNC_COMPAT: return PROF_STACK_TRUNC_COMPAT;
	default: return PROF_STACK_FP;
	}
}

/* Walk the user stack copy; append frames to buf from *n. */
static enum prof_stack_end walk_user(struct collector *c,
				     const struct collect_sample *s,
				     uint32_t *buf, uint32_t *n, uint32_t max)
{
	struct collect_stacks *st = c->stacks;
	struct unw_state us;
	enum unw_result r;
	int bad = s->compat ?
		  unw_init_compat(&us, s->uregs, s->uregs_mask, s->ustack,
				  (size_t)s->ustack_len) :
		  unw_init(&us, s->uregs, s->uregs_mask, s->ustack,
			   (size_t)s->ustack_len);

	if (bad)
		return PROF_STACK_TRUNC_BAD;
	for (;;) {
		uint64_t pc = us.r[UNW_REG_IP], look, off, vaddr;
		struct unw_object *uo = NULL;
		struct objunw *ou;
		uint32_t obj, id;

		look = us.exact ? pc : pc - 1;
		if (user_frame(c, s, look, &obj, &off))
			return s->compat ? PROF_STACK_FP :
			       PROF_STACK_TRUNC_NO_MAP;
		if (*n >= max)
			return PROF_STACK_TRUNC_DEPTH;
		id = intern_frame(st, obj, off);
		if (id == EMPTY)
			return PROF_STACK_TRUNC_BAD;
		buf[(*n)++] = id;
		ou = objunw_of(c, obj);
		if (ou && ou->unw && !unw_object_vaddr(ou->unw, off, &vaddr))
			uo = ou->unw;
		else
			vaddr = 0;
		/* JIT code has no CFI, but V8's frames and python -X
		 * perf's trampolines keep frame pointers: walked by them
		 * in every mode. */
		r = unw_step(&us, uo, vaddr, st->mode == PROF_CG_AUTO ||
			     c->objects[obj].kind == PROF_OBJ_ANON);
		if (ou)
			ou->steps++;
		if (r != UNW_STEPPED)
			break;
	}
	if (s->compat)
		return end_of_compat(r);
	/* Nothing copied (a sample with its registers but no readable
	 * stack) is no copy too small: a larger one would not help. */
	return r == UNW_TRUNC_DUMP && !s->ustack_len ?
	       PROF_STACK_TRUNC_NO_COPY : end_of(r);
}

/* Frames of the kernel's call chain: kernel ones, then (fp) user ones. */
static enum prof_stack_end walk_chain(struct collector *c,
				      const struct collect_sample *s,
				      uint32_t *buf, uint32_t *n,
				      int *user_part)
{
	struct collect_stacks *st = c->stacks;
	uint64_t ctx = 0, i;
	int first = 1;

	*user_part = 0;
	for (i = 0; i < s->nchain; i++) {
		uint64_t ip = s->chain[i], look, off;
		uint32_t obj, id;

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			/* A context's first entry is where it was left. */
			ctx = ip;
			first = 1;
			continue;
		}
		look = first ? ip : ip - 1;
		first = 0;
		if (ctx == (uint64_t)PERF_CONTEXT_KERNEL) {
			if (*n >= MAX_KERNEL_FRAMES)
				continue;
			obj = c->obj_kernel;
			off = look;
		} else if (ctx == (uint64_t)PERF_CONTEXT_USER) {
			*user_part = 1;
			if (*n >= MAX_KERNEL_FRAMES + UNW_MAX_FRAMES)
				return PROF_STACK_TRUNC_DEPTH;
			if (user_frame(c, s, look, &obj, &off))
				return PROF_STACK_TRUNC_NO_MAP;
		} else {
			continue;
		}
		id = intern_frame(st, obj, off);
		if (id == EMPTY)
			return PROF_STACK_TRUNC_BAD;
		buf[(*n)++] = id;
	}
	return PROF_STACK_FP;
}

/* Whether frame f is in the interpreter's image (eval_obj), and in its
 * eval loop ([lo, hi) there). */
struct py_splice {
	uint32_t eval_obj;
	uint64_t lo, hi;
};

/*
 * The Python frames of s in place of the interpreter's in buf[0..*n):
 * each native frame of the eval loop gives way to the Python frames it
 * runs (up to the next entry frame), the interpreter's own frames above
 * the innermost Python frame and between eval frames go, frames of other
 * objects (a C extension, libc, the kernel) stay where they are, and the
 * interpreter's frames below the outermost Python frame stay (main).
 * Python frames left over (a native walk that stopped early, or an eval
 * frame not known as one: its .cold part) go right after the last ones
 * placed (else where the interpreter's frames began, else at the end),
 * so the Python part stays one run of frames.
 */
static void splice_python(struct collector *c, const struct collect_sample *s,
			  uint32_t *buf, uint32_t *n, uint32_t max)
{
	struct collect_stacks *st = c->stacks;
	const struct mapping *m = collect_find_mapping(c, s->pid,
						       s->py_eval_lo, s->time);
	uint32_t out[MAX_KERNEL_FRAMES + UNW_MAX_FRAMES], k = 0, o = 0, i;
	uint32_t at = UINT32_MAX;	/* where leftovers go */
	struct py_splice sp = { NO_OBJ, 0, 0 };

	if (m) {
		sp.eval_obj = m->obj;
		sp.lo = s->py_eval_lo - m->start + m->pgoff;
		sp.hi = s->py_eval_hi - m->start + m->pgoff;
	}
	for (i = 0; i < *n && o < max; i++) {
		const struct prof_frame *f = &st->frames[buf[i]];
		int interp = f->obj == sp.eval_obj;

		if (interp && f->offset >= sp.lo && f->offset < sp.hi) {
			for (; k < s->npy && o < max; k++) {
				const struct collect_pyframe *p = &s->py[k];
				uint32_t id = p->obj == NO_PY_FRAME ? EMPTY :
					      intern_frame(st, p->obj,
							   p->offset);

				if (id != EMPTY)
					out[o++] = id;
				if (p->entry) {
					k++;
					break;
				}
			}
			at = o;
			continue;
		}
		if (interp && k < s->npy) {
			if (at == UINT32_MAX)
				at = o;
			continue;	/* the interpreter's own workings */
		}
		out[o++] = buf[i];
	}
	if (at == UINT32_MAX)
		at = o;
	/* The leftovers at out[at], what was after them moved out. */
	i = o;
	for (; k < s->npy && o < max; k++)
		if (s->py[k].obj != NO_PY_FRAME) {
			uint32_t id = intern_frame(st, s->py[k].obj,
						   s->py[k].offset);

			if (id != EMPTY)
				out[o++] = id;
		}
	if (o > i && at < i) {
		uint32_t moved = o - i, tail = i - at, tmp[64];

		/* rotate out[at..o) so the leftovers come first */
		while (tail) {
			uint32_t c2 = tail < 64 ? tail : 64;

			memcpy(tmp, out + i - c2, c2 * sizeof(*out));
			memmove(out + i - c2, out + i, moved * sizeof(*out));
			memcpy(out + i - c2 + moved, tmp, c2 * sizeof(*out));
			i -= c2;
			tail -= c2;
		}
	}
	memcpy(buf, out, o * sizeof(*out));
	*n = o;
}

void collect_stacks_leaf(const struct collector *c, uint32_t id,
			 uint32_t *obj, uint64_t *offset)
{
	const struct collect_stacks *st = c->stacks;
	const struct prof_frame *f;

	if (!st || id >= st->nstacks)
		return;
	f = &st->frames[st->sframes[st->stacks[id].first]];
	*obj = f->obj;
	*offset = f->offset;
}

void collect_user_part(struct collect_sample *s, uint64_t ip)
{
	uint64_t u;

	for (u = 0; u < s->nchain; u++)
		if (s->chain[u] == (uint64_t)PERF_CONTEXT_USER)
			break;
	s->chain = u < s->nchain ? s->chain + u : NULL;
	s->nchain = u < s->nchain ? s->nchain - u : 0;
	s->cpumode = PERF_RECORD_MISC_USER;
	s->ip = ip;
}

uint32_t collect_stacks_walk(struct collector *c,
			     const struct collect_sample *s)
{
	struct collect_stacks *st = c->stacks;
	enum prof_stack_end end;
	uint32_t n = 0, id;
	int user_part;

	end = walk_chain(c, s, st->buf, &n, &user_part);
	if (st->mode != PROF_CG_FP && !user_part) {
		/* (An instruction-sampling event has no stack copy: its
		 * chain has the user part, walked like fp.) */
		if (s->uregs && s->ustack && end == PROF_STACK_FP)
			end = walk_user(c, s, st->buf, &n,
					MAX_KERNEL_FRAMES + UNW_MAX_FRAMES);
		else if (end == PROF_STACK_FP)
			end = n ? PROF_STACK_KERNEL : PROF_STACK_TRUNC_NO_COPY;
	} else if (!user_part && end == PROF_STACK_FP && n) {
		end = s->cpumode == PERF_RECORD_MISC_KERNEL ?
		      PROF_STACK_KERNEL : PROF_STACK_FP;
	}
	if (s->npy)
		splice_python(c, s, st->buf, &n,
			      MAX_KERNEL_FRAMES + UNW_MAX_FRAMES);
	if (!n) {
		/* Not even the sampled PC (a user sample without registers
		 * or chain): charge its leaf alone. */
		uint32_t obj;
		uint64_t off;

		if (s->cpumode == PERF_RECORD_MISC_KERNEL) {
			obj = c->obj_kernel;
			off = s->ip;
		} else if (user_frame(c, s, s->ip, &obj, &off)) {
			obj = c->obj_unknown;
			off = s->ip;
		}
		id = intern_frame(st, obj, off);
		if (id == EMPTY) {
			c->oom = 1;
			return 0;
		}
		st->buf[n++] = id;
	}
	id = intern_stack(st, st->buf, n, end);
	if (id == EMPTY) {
		c->oom = 1;
		return 0;
	}
	st->ends[end]++;
	return id + 1;
}

void collect_stacks_count(struct collector *c, uint32_t stack,
			  uint32_t stat, uint32_t split, uint64_t weight)
{
	if (stack && count_stack(c->stacks, stack - 1, stat, split,
				 c->exact[stat] ? weight : 1, weight))
		c->oom = 1;
}

uint32_t collect_stacks_charge(struct collector *c,
			       const struct collect_sample *s, uint32_t split)
{
	uint32_t id = collect_stacks_walk(c, s);

	collect_stacks_count(c, id, s->stat, split, s->period);
	return id;
}

void *collect_stacks_copy(struct collect_sample *s)
{
	size_t nc = (size_t)s->nchain * 8,
	       nr = (size_t)__builtin_popcountll(s->uregs_mask) * 8,
	       ns = s->ustack ? (size_t)s->ustack_len : 0,
	       np = (size_t)s->npy * sizeof(*s->py);
	uint8_t *b = malloc(nc + nr + ns + np + 8);

	if (!b)
		return NULL;
	if (s->chain) {
		memcpy(b, s->chain, nc);
		s->chain = (const uint64_t *)b;
	}
	if (s->uregs) {
		memcpy(b + nc, s->uregs, nr);
		s->uregs = (const uint64_t *)(b + nc);
	}
	if (s->ustack) {
		memcpy(b + nc + nr, s->ustack, ns);
		s->ustack = b + nc + nr;
	}
	if (s->npy) {
		/* aligned for its 8-byte members */
		size_t at = (nc + nr + ns + 7) & ~(size_t)7;

		memcpy(b + at, s->py, np);
		s->py = (const struct collect_pyframe *)(b + at);
	}
	return b;
}

/* ---- reporting and building --------------------------------------------- */

int collector_unwind_info(const struct collector *c, size_t i,
			  const char **path, const char **source,
			  uint64_t *steps, uint64_t *rows)
{
	uint64_t hits;

	const struct collect_stacks *st = c->stacks;
	const struct objunw *u;

	if (!st || i >= c->nobjects)
		return 1;
	if (i >= st->alloc_objs || !st->objs[i].steps)
		return -1;
	u = &st->objs[i];
	*path = c->objects[i].path;
	*steps = u->steps;
	*rows = 0;
	if (u->unw)
		unw_object_stats(u->unw, &hits, rows);
	if (u->unw && unw_object_has_cfi(u->unw))
		*source = unw_object_source(u->unw);
	else if (st->mode == PROF_CG_AUTO)
		*source = "frame pointers (no CFI)";
	else
		*source = u->unw ? unw_object_source(u->unw) : "no CFI";
	return 0;
}

uint64_t collector_stack_ends(const struct collector *c,
			      enum prof_stack_end end)
{
	return c->stacks && (unsigned)end < PROF_STACK_NEND ?
	       c->stacks->ends[end] : 0;
}

int collect_stacks_build(struct collector *c, uint32_t split,
			 struct profile *p, uint32_t *remap, uint32_t **smap_out,
			 int (*add_obj)(struct collector *, struct profile *,
					uint32_t *, uint32_t))
{
	struct collect_stacks *st = c->stacks;
	uint32_t *fmap = NULL, *smap = NULL, *buf = NULL;
	size_t i, j;
	int r = -PROF_ENOMEM;

	p->call_graph = st->mode;
	fmap = malloc((st->nframes + 1) * sizeof(*fmap));
	smap = malloc((st->nstacks + 1) * sizeof(*smap));
	buf = malloc((MAX_KERNEL_FRAMES + UNW_MAX_FRAMES) * sizeof(*buf));
	if (!fmap || !smap || !buf)
		goto out;
	memset(fmap, 0xff, (st->nframes + 1) * sizeof(*fmap));
	memset(smap, 0xff, (st->nstacks + 1) * sizeof(*smap));
	for (i = 0; i < st->cap_counts; i++) {
		const struct scount *e = &st->counts[i];
		struct prof_stack_count pc;

		if (!e->used || e->split != split || e->stat >= p->nstats)
			continue;
		if (smap[e->stack] == EMPTY) {
			const struct cstack *cs = &st->stacks[e->stack];
			int idx;

			for (j = 0; j < cs->n; j++) {
				uint32_t f = st->sframes[cs->first + j];
				struct prof_frame pf = st->frames[f];

				if (fmap[f] == EMPTY) {
					if (remap[pf.obj] == EMPTY &&
					    (r = add_obj(c, p, remap,
							 pf.obj)) < 0)
						goto out;
					pf.obj = remap[pf.obj];
					idx = profile_add_frame(p, &pf);
					if (idx < 0) {
						r = idx;
						goto out;
					}
					fmap[f] = (uint32_t)idx;
				}
				buf[j] = fmap[f];
			}
			idx = profile_add_stack(p, buf, cs->n, cs->end);
			if (idx < 0) {
				r = idx;
				goto out;
			}
			smap[e->stack] = (uint32_t)idx;
		}
		pc.stack = smap[e->stack];
		pc.stat = e->stat;
		pc.samples = e->samples;
		pc.weight = e->weight;
		if (profile_add_stack_count(p, &pc) < 0) {
			r = -PROF_ENOMEM;
			goto out;
		}
	}
	profile_sort_stack_counts(p);
	r = 0;
out:
	free(fmap);
	if (r == 0)
		*smap_out = smap;
	else
		free(smap);
	free(buf);
	return r;
}
