/* SPDX-License-Identifier: MIT */
/*
 * CPython call stacks read from outside the process (pyframes.h): a
 * thread's state found (and remembered), its frames walked through
 * process_vm_readv, a window of memory and the code objects' headers
 * read in as few calls as may be.  The interpreter is found in
 * pyimage.c, the structs' layouts are pylayout.c's, the reads pymem.c's,
 * the code objects' names and lines pycode.c's.
 */
#include <inttypes.h>
#include <string.h>
#include <sys/uio.h>

#include "pyframes_int.h"
#include "common/util/error.h"
#include "bpf/sample_bpf.h"

/* ------------------------------------------------------------------ */
/* Reads in one call, and the window of memory around frames */

/* Add the read of len bytes at addr into buf to b: its index. */
static size_t batch_add(struct batch *b, void *buf, uint64_t addr,
			size_t len)
{
	b->local[b->n] = (struct iovec){ buf, len };
	b->remote[b->n] = (struct iovec){ (void *)(uintptr_t)addr, len };
	return b->n++;
}

/*
 * Do b's reads in one system call: how many of them, from the first,
 * were read whole.  Failures are not told apart here: a caller that
 * needs a read that was not done does it alone with py_mem_read(), which says
 * why it fails (or reads it, the process having moved on).
 */
static size_t batch_read(struct py_proc *p, const struct batch *b)
{
	ssize_t got;
	size_t i, k;

	/* First those the sample's copy of its frames holds. */
	for (k = 0; k < b->n; k++) {
		const uint8_t *snap = py_snap_find(p, (uintptr_t)
						   b->remote[k].iov_base,
						   b->remote[k].iov_len);

		if (!snap)
			break;
		memcpy(b->local[k].iov_base, snap, b->local[k].iov_len);
	}
	if (p->exited || p->copy_only || k == b->n)
		return k;
	got = process_vm_readv(p->info.pid, b->local + k, b->n - k,
			       b->remote + k, b->n - k, 0);
	for (i = k; got > 0 && i < b->n; i++) {
		if ((size_t)got < b->local[i].iov_len)
			break;
		got -= (ssize_t)b->local[i].iov_len;
	}
	return got < 0 ? k : i;
}

/*
 * Add to b the reads of the window [lo, hi) around addr (at most WIN_LEN
 * bytes, cut below) into p->win: the part in addr's page first, the rest
 * (another page, which may not be mapped) second.  win_set() then says
 * what was read.  Returns the index of the first read.
 */
static size_t win_add(struct py_proc *p, struct batch *b, uint64_t lo,
		      uint64_t hi, uint64_t addr)
{
	uint64_t page = addr & ~(uint64_t)(WIN_PAGE - 1);
	uint64_t a, z;
	size_t first;

	if (hi - lo > WIN_LEN)
		lo = hi - WIN_LEN;
	a = lo > page ? lo : page;
	z = hi < page + WIN_PAGE ? hi : page + WIN_PAGE;

	p->win_base = lo;
	p->win_lo = p->win_hi = 0;
	first = batch_add(b, p->win + (a - lo), a, z - a);
	p->win_reads = 1 + (lo < a || z < hi);
	if (lo < a)
		batch_add(b, p->win, lo, a - lo);
	else if (z < hi)
		batch_add(b, p->win + (z - lo), z, hi - z);
	return first;
}

/* What of the window added at b's read first was read: whole reads. */
static void win_set(struct py_proc *p, const struct batch *b, size_t first,
		    size_t whole)
{
	size_t i;

	for (i = first; i < whole && i < first + p->win_reads; i++) {
		uint64_t a = (uint64_t)(uintptr_t)b->remote[i].iov_base;
		uint64_t z = a + b->remote[i].iov_len;

		if (i == first) {
			p->win_lo = a;
			p->win_hi = z;
		} else if (z == p->win_lo) {
			p->win_lo = a;
		} else if (a == p->win_hi) {
			p->win_hi = z;
		}
	}
}

/* Whether the window holds [addr, addr + len). */
static bool in_win(const struct py_proc *p, uint64_t addr, size_t len)
{
	return addr >= p->win_lo && addr < p->win_hi &&
	       len <= p->win_hi - addr;
}

/* ------------------------------------------------------------------ */
/* Thread states and frames */

/* The 8 bytes at addr as the walk's sample copied them, into buf:
 * whether the copy holds them. */
static bool copy_word(const struct py_proc *p, uint64_t addr, uint8_t *buf)
{
	const struct py_stack_copy *c = p->copy;

	if (!c || addr < c->sp || addr - c->sp > c->len ||
	    c->len - (addr - c->sp) < 8)
		return false;
	memcpy(buf, c->data + (addr - c->sp), 8);
	return true;
}

/* The innermost frame of the thread state whose ts_len bytes are t in
 * *frame (0: none): the thread state's own pointer (3.13), else its C
 * frame's.  0, or why it cannot be read. */
static int tstate_frame(struct py_proc *p, const uint8_t *t, uint64_t *frame)
{
	const struct layout *l = p->l;
	uint64_t at = py_word(t, p->ts_len, l->ts_frame, 8);
	uint8_t c[8];
	int rc;

	*frame = 0;
	if (l->cf_current_frame == NONE || !at) {
		*frame = at;
		return 0;
	}
	if (!py_ptr_ok(at))
		return prof_fail(PROF_EFORMAT, "C frame at %#" PRIx64 ": not "
				 "a pointer", at);
	/* On the C stack: as the sample found it, if it copied it. */
	rc = copy_word(p, at + l->cf_current_frame, c) ? 0 :
		py_mem_read(p, at + l->cf_current_frame, c, 8, "a C frame");
	if (!rc)
		*frame = py_word(c, 8, 0, 8);
	return rc;
}

/* The innermost frame of native thread tid in *frame: that of its first
 * thread state with a frame (a thread may have one per interpreter),
 * else 0.  Where it was found goes to *s. */
static int find_tstate(struct py_proc *p, pid_t tid, uint64_t *frame,
		       struct ts_slot *s)
{
	const struct layout *l = p->l;
	uint8_t buf[8], t[HEADER_MAX];
	size_t ts_len = p->ts_len;
	uint64_t interp, ts;
	unsigned ninterps = 0, nts = 0;
	pid_t ttid;
	bool found = false;
	int rc, first_rc = 0;

	*frame = 0;
	rc = py_mem_read(p, p->info.runtime + l->rt_interp_head, buf, 8,
		"_PyRuntime.interpreters.head");
	if (rc)
		return rc;
	for (interp = py_word(buf, 8, 0, 8); interp && !*frame;
	     interp = py_word(buf, 8, 0, 8)) {
		if (++ninterps > MAX_INTERPS)
			return prof_fail(PROF_EFORMAT, "more than %d "
					 "interpreters", MAX_INTERPS);
		if (!py_ptr_ok(interp))
			return prof_fail(PROF_EFORMAT, "interpreter at %#"
					 PRIx64 ": not a pointer", interp);
		rc = py_mem_read(p, interp + l->is_threads_head, buf, 8,
			"an interpreter state");
		if (rc)
			return rc;
		for (ts = py_word(buf, 8, 0, 8); ts && !*frame;
		     ts = py_word(t, ts_len, l->ts_next, 8)) {
			if (++nts > MAX_TSTATES)
				return prof_fail(PROF_EFORMAT, "more than %d "
						 "thread states", MAX_TSTATES);
			if (!py_ptr_ok(ts))
				return prof_fail(PROF_EFORMAT, "thread state "
						 "at %#" PRIx64 ": not a "
						 "pointer", ts);
			rc = py_mem_read(p, ts, t, ts_len, "a thread state");
			if (rc)
				return rc;
			if (py_word(t, ts_len, l->ts_interp, 8) != interp)
				return prof_fail(PROF_EFORMAT, "thread state "
						 "at %#" PRIx64 " is not of the "
						 "interpreter that lists it "
						 "(changing?)", ts);
			rc = py_tstate_tid(p, t, &ttid);
			if (rc)
				return rc;
			if (ttid != tid)
				continue;
			/* A thread has a state per interpreter it entered:
			 * the one running Python is the one with a frame. */
			rc = tstate_frame(p, t, frame);
			if (!found)
				first_rc = rc;
			found = true;
			if (*frame)
				*s = (struct ts_slot){ .tid = tid, .ts = ts,
					.interp = interp, .frame = *frame,
					.cframe = py_word(t, ts_len, l->ts_frame,
						       8),
					.pthread = l->ts_thread_id == NONE ? 0 :
						py_word(t, ts_len,
							l->ts_thread_id, 8) };
		}
		if (!*frame) {
			rc = py_mem_read(p, interp + l->is_next, buf, 8,
				"an interpreter state");
			if (rc)
				return rc;
		}
	}
	if (p->exited)
		return prof_fail(PROF_ENOENT, "process %d has exited",
				 (int)p->info.pid);
	if (!found)
		return prof_fail(PROF_ENOENT, "thread %d of process %d runs "
				 "no Python (no thread state has its id)",
				 (int)tid, (int)p->info.pid);
	return *frame ? 0 : first_rc;
}

/* Whether the thread state whose bytes are t, read in a batch whose
 * first whole reads were whole, is still thread tid's (s: where it was
 * found; tb: its pthread_t's thread id, read at index tw, 3.9 and 3.10). */
static bool still_tid(const struct py_proc *p, const uint8_t *t,
		      const struct ts_slot *s, pid_t tid, const uint8_t *tb,
		      size_t tw, size_t whole)
{
	const struct layout *l = p->l;

	if (!whole || py_word(t, p->ts_len, l->ts_interp, 8) != s->interp)
		return false;
	if (l->ts_native_tid != NONE)
		return py_word(t, p->ts_len, l->ts_native_tid, 8) ==
		       (uint64_t)tid;
	return tw < whole &&
	       py_word(t, p->ts_len, l->ts_thread_id, 8) == s->pthread &&
	       py_word(tb, 4, 0, 4) == (uint32_t)tid;
}

/*
 * The innermost frame of thread tid through the thread state it was
 * last found in (s): 0 with *frame, or 1 when that does not tell (none
 * kept, that state is no longer this thread's, or has no frame: the
 * lists are walked then).  One read: the thread state (3.9, 3.10: and
 * the thread id in its pthread_t), the current frame of its C frame
 * where that is the one seen last (3.11, 3.12), the headers of the code
 * objects of its last walk, and the window where its frames were then
 * (3.9, 3.10: those frames): those of the next walk, most often.
 */
static int cached_tstate(struct py_proc *p, pid_t tid, struct ts_slot *s,
			 uint64_t *frame)
{
	const struct layout *l = p->l;
	uint8_t t[HEADER_MAX], cf[8], tb[4];
	size_t whole, c = SIZE_MAX, w = SIZE_MAX, tw = SIZE_MAX, i, codes;
	size_t frames;
	bool copied = false;
	struct batch b;
	uint64_t at;

	*frame = 0;
	if (s->tid != tid || s->frame < WIN_LEN)
		return 1;
	b.n = 0;
	batch_add(&b, t, s->ts, p->ts_len);
	if (l->ts_native_tid == NONE && p->tid_off != NONE && s->pthread)
		tw = batch_add(&b, tb, s->pthread + p->tid_off, sizeof(tb));
	if (l->cf_current_frame != NONE && s->cframe)
		copied = copy_word(p, s->cframe + l->cf_current_frame, cf);
	if (l->cf_current_frame != NONE && s->cframe && !copied)
		c = batch_add(&b, cf, s->cframe + l->cf_current_frame, 8);
	/* What the last walk found, read on speculation: not with the
	 * sample's copy of its frames, which holds this walk's. */
	codes = b.n;
	for (i = 0; i < s->ncodes && !p->nsnap; i++)
		batch_add(&b, p->spec[i], s->codes[i], p->code_hdr_len);
	frames = b.n;
	for (i = 0; i < s->nframes && !p->nsnap; i++)
		batch_add(&b, p->spec_frame[i], s->frames[i], p->frame_len);
	if (s->frame && !l->frame_objects && !p->nsnap)
		w = win_add(p, &b, (s->low < s->frame ? s->low : s->frame) -
			    WIN_SLACK, s->frame + WIN_ABOVE, s->frame);
	whole = batch_read(p, &b);
	if (w != SIZE_MAX)
		win_set(p, &b, w, whole);
	for (i = 0; i < s->ncodes && codes + i < whole; i++)
		p->spec_code[p->nspec++] = s->codes[i];
	for (i = 0; i < s->nframes && frames + i < whole; i++)
		p->spec_frame_at[p->nspec_frames++] = s->frames[i];
	if (!still_tid(p, t, s, tid, tb, tw, whole))
		return 1;
	at = py_word(t, p->ts_len, l->ts_frame, 8);
	if (l->cf_current_frame == NONE)
		*frame = at;
	else if (at && at == s->cframe && (copied || c < whole))
		*frame = py_word(cf, 8, 0, 8);
	else if (tstate_frame(p, t, frame))
		return 1;
	s->cframe = at;
	return *frame ? 0 : 1;
}

/* The innermost frame of native thread tid: find_tstate()'s, through
 * the thread state kept for tid while it is still that thread's. */
static int find_frame(struct py_proc *p, pid_t tid, uint64_t *frame)
{
	struct ts_slot *s = &p->threads[(unsigned)tid % TS_CACHE];
	int rc;

	if (!cached_tstate(p, tid, s, frame))
		return 0;
	if (s->tid == tid)
		s->tid = 0;
	rc = find_tstate(p, tid, frame, s);
	return rc;
}

/* Whether frame f (read_frame()'s) is a shim: a frame an eval loop call
 * puts on the C stack under the frames it runs (3.12-), no Python's. */
static bool is_shim(const struct py_proc *p, const struct py_frame *f)
{
	return p->l->owner_cstack != NONE && f->owner == p->l->owner_cstack;
}

/* The frame_len bytes of the frame at addr: from those read with the
 * thread state, else from the window, which is read around addr when it
 * does not hold them. */
static int frame_bytes(struct py_proc *p, uint64_t addr, const uint8_t **fb)
{
	size_t flen = p->frame_len, i;

	*fb = py_snap_find(p, addr, flen);
	if (*fb)
		return 0;
	for (i = 0; i < p->nspec_frames; i++)
		if (p->spec_frame_at[i] == addr) {
			*fb = p->spec_frame[i];
			return 0;
		}

	if (!in_win(p, addr, flen)) {
		struct batch b;
		size_t first;

		b.n = 0;
		first = win_add(p, &b, addr > WIN_BELOW ? addr - WIN_BELOW : 0,
				addr + flen, addr);
		win_set(p, &b, first, batch_read(p, &b));
	}
	if (!in_win(p, addr, flen)) {
		/* Alone, for the reason it cannot be read. */
		int rc = py_mem_read(p, addr, p->win, flen, "a frame");

		if (rc)
			return rc;
		p->win_base = p->win_lo = addr;
		p->win_hi = addr + flen;
	}
	*fb = p->win + (addr - p->win_base);
	return 0;
}

/* One frame at addr read into *f but for what its code object tells
 * (frame_code()): *prev is the next one out, *pi its instruction
 * pointer (3.9, 3.10: its f_lasti).  0, or an error whose detail is the
 * reason the walk stops. */
static int read_frame(struct py_proc *p, uint64_t addr, struct py_frame *f,
		      uint64_t *prev, uint64_t *pi)
{
	const struct layout *l = p->l;
	size_t flen = p->frame_len;
	const uint8_t *fb;
	unsigned max_owner = l->owner_cstack != NONE ? l->owner_cstack :
			     l->owner_frame_object;
	int rc;

	if (!py_ptr_ok(addr))
		return prof_fail(PROF_EFORMAT, "frame at %#" PRIx64 ": not a "
				 "pointer", addr);
	rc = frame_bytes(p, addr, &fb);
	if (rc)
		return rc;
	memset(f, 0, sizeof(*f));
	f->frame = addr;
	f->code = py_word(fb, flen, l->fr_code, 8);
	*prev = py_word(fb, flen, l->fr_previous, 8);
	if (l->frame_objects) {
		/* Each run by a C call of the eval loop of its own. */
		f->is_entry = true;
		*pi = py_word(fb, flen, l->fr_instr, 4);
		if (py_word(fb, flen, l->ob_type, 8) != p->frame_type)
			return prof_fail(PROF_EFORMAT, "frame at %#" PRIx64
					 " is not a frame object", addr);
		/* A freed frame keeps its type (a code object's zombie
		 * frame, the free list, whose f_back links free frames). */
		if (!py_refs_live(fb, flen))
			return prof_fail(PROF_EFORMAT, "frame at %#" PRIx64
					 " is freed", addr);
	} else {
		f->is_entry = l->fr_is_entry != NONE &&
			      py_word(fb, flen, l->fr_is_entry, 1) != 0;
		f->owner = (uint8_t)py_word(fb, flen, l->fr_owner, 1);
		*pi = py_word(fb, flen, l->fr_instr, 8);
	}
	if (!l->frame_objects && f->owner > max_owner)
		return prof_fail(PROF_EFORMAT, "frame at %#" PRIx64 ": owner "
				 "%u is none of CPython 3.%u's", addr, f->owner,
				 l->minor);
	if (is_shim(p, f)) {
		/* Its code (3.12: a trampoline; 3.13: None) is not read. */
		f->code = 0;
		f->instr = -1;
		f->incomplete = true;
		return 0;
	}
	if (!f->code)
		return prof_fail(PROF_EFORMAT, "frame at %#" PRIx64 ": no "
				 "code object (NULL)", addr);
	return 0;
}

/* The instruction of frame f (3.9, 3.10) from its f_lasti: -1 before
 * the first, in bytes (3.9) or code units (3.10).  The code object's
 * length is not known here: pycode.c's line of an instruction past it
 * is none. */
static int frame_lasti(const struct py_proc *p, struct py_frame *f,
		       uint64_t lasti)
{
	int32_t v = (int32_t)(uint32_t)lasti;
	unsigned unit = p->l->lasti_bytes ? p->l->codeunit_size : 1;

	if (v < -1 || (v >= 0 && v % (int32_t)unit) ||
	    v / (int32_t)unit >= (int32_t)MAX_CODE_UNITS)
		return prof_fail(PROF_EFORMAT, "frame at %#" PRIx64 ": "
				 "f_lasti %" PRId32 " is no instruction's",
				 f->frame, v);
	f->instr = v < 0 ? -1 : v / (int32_t)unit;
	return 0;
}

/* The rest of frame f (read_frame()'s, instruction pointer pi), from
 * its code object's header cb: its instruction, whether it has started. */
static int frame_code(const struct py_proc *p, struct py_frame *f,
		      uint64_t pi, const uint8_t *cb)
{
	const struct layout *l = p->l;
	size_t hdr_len = p->code_hdr_len;
	int64_t nunits, trace;
	uint64_t first, limit;

	if (l->frame_objects)
		return frame_lasti(p, f, pi);
	nunits = (int64_t)py_word(cb, hdr_len, l->ob_size, 8);
	trace = (int32_t)py_word(cb, hdr_len, l->co_firsttraceable, 4);
	if (nunits <= 0 || nunits > MAX_CODE_UNITS || trace < 0 ||
	    trace > nunits)
		return prof_fail(PROF_EFORMAT, "code object at %#" PRIx64
				 ": %" PRId64 " code units, first traceable "
				 "%" PRId64, f->code, nunits, trace);
	first = f->code + l->co_code;
	limit = first + (uint64_t)nunits * l->codeunit_size;
	/* _PyFrame_IsIncomplete(): not at its first traceable
	 * instruction yet (a generator's frame always is). */
	f->incomplete = f->owner != l->owner_generator &&
		pi < first + (uint64_t)trace * l->codeunit_size;
	if (pi >= first && pi < limit && !((pi - first) % l->codeunit_size))
		f->instr = (int32_t)((pi - first) / l->codeunit_size);
	else if (f->incomplete)
		f->instr = -1;
	else
		return prof_fail(PROF_EFORMAT, "frame at %#" PRIx64 ": "
				 "instruction %#" PRIx64 " outside its code "
				 "[%#" PRIx64 ", %#" PRIx64 ")", f->frame, pi,
				 first, limit);
	return 0;
}

/*
 * The code objects of frames f[0..m) (read_frame()'s, instruction
 * pointers pi[]), their headers read in one go: frame_code() on each in
 * turn.  *k of them are good; the error, if any, is the next one's.
 */
static int chunk_codes(struct py_proc *p, struct py_frame *f,
		       const uint64_t *pi, size_t m, size_t *k)
{
	size_t at[WALK_CHUNK], whole, i, j;
	uint8_t *hb[WALK_CHUNK];
	struct batch b;
	int rc;

	b.n = 0;
	for (i = 0; i < m; i++) {
		at[i] = SIZE_MAX;
		hb[i] = p->headers[i];
		if (is_shim(p, &f[i]) || !py_ptr_ok(f[i].code))
			continue;
		/* Read with the thread state? */
		for (j = 0; j < p->nspec && p->spec_code[j] != f[i].code; j++)
			;
		if (j < p->nspec)
			hb[i] = p->spec[j];
		else
			at[i] = batch_add(&b, hb[i], f[i].code,
					  p->code_hdr_len);
	}
	whole = batch_read(p, &b);
	for (*k = 0; *k < m; (*k)++) {
		i = *k;
		if (is_shim(p, &f[i]))
			continue;
		if (at[i] < whole || hb[i] != p->headers[i])
			rc = py_code_type_ok(p, f[i].code, hb[i]);
		else
			rc = py_read_code_header(p, f[i].code, hb[i]);
		if (!rc)
			rc = frame_code(p, &f[i], pi[i], hb[i]);
		if (rc)
			return rc;
		py_code_checked(p, f[i].code, hb[i]);
	}
	return 0;
}

/* Frame f to out[*n] if it is kept (complete, or an entry frame). */
static int keep_frame(const struct py_frame *f, struct py_frame *out,
		      size_t max, size_t *n)
{
	if (f->incomplete && !f->is_entry)
		return 0;
	if (*n == max)
		return prof_fail(PROF_EFORMAT, "more than %zu frames: the "
				 "outer ones are not read", max);
	out[(*n)++] = *f;
	return 0;
}

/* What a walk keeps of its frames: 3.12-, the frame before a shim is
 * the first of its eval loop call, known as such at the shim: each
 * frame is held until the next one is read. */
struct keeper {
	struct py_frame *out;
	size_t max, *n;
	struct py_frame held;
	bool holding;
	bool first;		/* no frame seen yet */
};

static int keeper_add(struct py_proc *p, struct keeper *kp,
		      struct py_frame *f)
{
	int rc = 0;

	if (is_shim(p, f)) {
		if (kp->holding) {
			kp->held.is_entry = true;
			rc = keep_frame(&kp->held, kp->out, kp->max, kp->n);
		} else if (kp->first) {
			/* The innermost: a call of the eval loop entering
			 * or leaving, none of its frames on the chain; the
			 * shim stands for them (code 0). */
			f->is_entry = true;
			rc = keep_frame(f, kp->out, kp->max, kp->n);
		}
		kp->holding = false;
	} else {
		rc = kp->holding ? keep_frame(&kp->held, kp->out, kp->max,
					      kp->n) : 0;
		kp->held = *f;
		kp->holding = true;
	}
	kp->first = false;
	return rc;
}

static int keeper_end(struct keeper *kp)
{
	if (!kp->holding)
		return 0;
	kp->holding = false;
	return keep_frame(&kp->held, kp->out, kp->max, kp->n);
}

/* Where a walk is: the next frame, what its cycle check holds, the
 * frames it has seen. */
struct walk {
	uint64_t frame, seen;
	unsigned walked, power, steps;
	uint64_t first, low;	/* the innermost frame; the outermost near
				 * it (a window's length below) */
};

/*
 * Up to WALK_CHUNK frames from w->frame on (read_frame(): from the
 * window around them, read as needed) into f[] and pi[], *m of them,
 * w->frame the next one out: 0, or the reason the walk ends after them.
 * Brent's cycle check: a frame seen at a power of two steps back comes
 * again only in a loop.
 */
static int walk_chunk(struct py_proc *p, struct walk *w, struct py_frame *f,
		      uint64_t *pi, size_t *m)
{
	uint64_t prev = 0;
	int rc;

	for (*m = 0; w->frame && *m < WALK_CHUNK; w->frame = prev) {
		if (++w->walked > PY_MAX_WALK)
			return prof_fail(PROF_EFORMAT, "more than %d frames",
					 PY_MAX_WALK);
		rc = read_frame(p, w->frame, &f[*m], &prev, &pi[*m]);
		if (rc)
			return rc;
		(*m)++;
		if (w->frame < w->low &&
		    w->first - w->frame <= WIN_LEN - WIN_ABOVE - WIN_SLACK)
			w->low = w->frame;
		if (prev == w->seen)
			return prof_fail(PROF_EFORMAT, "the frames loop (frame "
					 "at %#" PRIx64 " comes again)", prev);
		if (++w->steps == w->power) {
			w->seen = prev;
			w->power *= 2;
			w->steps = 0;
		}
	}
	return 0;
}

/* One walk of thread tid's frames (py_thread_stack()). */
static int walk_thread(struct py_proc *p, pid_t tid, struct keeper *kp)
{
	struct py_frame f[WALK_CHUNK];
	uint64_t pi[WALK_CHUNK];
	struct walk w = { 0, 0, 0, 1, 0, 0, 0 };
	struct ts_slot *s = &p->threads[(unsigned)tid % TS_CACHE];
	uint64_t codes[SPEC_CODES], frames[SPEC_FRAMES];
	size_t m, k, i, ncodes = 0, nframes = 0;
	int rc, stop = 0;

	p->walks++;
	p->win_lo = p->win_hi = 0;
	p->nspec = p->nspec_frames = 0;
	rc = find_frame(p, tid, &w.frame);
	if (rc)
		return rc;
	w.seen = w.first = w.low = w.frame;
	while (w.frame && !stop) {
		stop = walk_chunk(p, &w, f, pi, &m);
		rc = chunk_codes(p, f, pi, m, &k);
		for (i = 0; i < k; i++) {
			int r = keeper_add(p, kp, &f[i]);

			if (r)
				return r;
			if (f[i].code && ncodes < SPEC_CODES &&
			    !(ncodes && codes[ncodes - 1] == f[i].code))
				codes[ncodes++] = f[i].code;
			if (p->l->frame_objects && nframes < SPEC_FRAMES)
				frames[nframes++] = f[i].frame;
		}
		if (rc) {
			stop = rc;
			break;
		}
	}
	if (s->tid == tid) {
		s->frame = w.first;
		s->low = w.low;
		memcpy(s->codes, codes, ncodes * sizeof(codes[0]));
		s->ncodes = ncodes;
		memcpy(s->frames, frames, nframes * sizeof(frames[0]));
		s->nframes = nframes;
	}
	rc = keeper_end(kp);
	return rc ? rc : stop;
}

/* Times a walk that fails at its innermost frame is done again: the
 * thread was pushing or popping it as it was read. */
#define WALK_RETRIES 2

int py_sample_stack(struct py_proc *p, pid_t tid,
		    const struct py_stack_copy *copy, struct py_frame *out,
		    size_t max, size_t *n)
{
	struct keeper kp;
	int rc, tries = 0;

	p->copy = copy;
	py_snap_set(p);
	do {
		*n = 0;
		kp = (struct keeper){ .out = out, .max = max, .n = n,
				      .first = true };
		rc = walk_thread(p, tid, &kp);
		/* Again from now: the copy's frame may have been popped. */
		p->copy = NULL;
		py_snap_clear(p);
	} while (rc == -PROF_EFORMAT && !*n && tries++ < WALK_RETRIES &&
		 !p->exited);
	return rc;
}

int py_thread_stack(struct py_proc *p, pid_t tid, struct py_frame *out,
		    size_t max, size_t *n)
{
	return py_sample_stack(p, tid, NULL, out, max, n);
}


/* ------------------------------------------------------------------ */
/* What a BPF program copies at each sample (perfbpf.h) */

void py_copy_only(struct py_proc *p, bool on)
{
	p->copy_only = on;
}

void py_bpf_proc_of(const struct py_proc *p, struct sbpf_proc *out)
{
	const struct layout *l = p->l;

	memset(out, 0, sizeof(*out));
	out->ts_len = (uint32_t)p->ts_len;
	out->ts_frame = l->ts_frame;
	out->cf_frame = l->cf_current_frame == NONE ? SBPF_NONE :
			l->cf_current_frame;
	out->frame_len = (uint32_t)p->frame_len;
	out->fr_code = l->fr_code;
	out->fr_previous = l->fr_previous;
	out->code_len = (uint32_t)p->code_hdr_len;
}

int py_bpf_thread_of(const struct py_proc *p, pid_t tid,
		  struct sbpf_thread *out)
{
	const struct ts_slot *s = &p->threads[(unsigned)tid % TS_CACHE];

	memset(out, 0, sizeof(*out));
	if (s->tid != tid || !s->ts)
		return 0;
	out->ts = s->ts;
	if (p->l->ts_native_tid == NONE && p->tid_off != NONE && s->pthread) {
		out->extra = s->pthread + p->tid_off;
		out->extra_len = 4;
	}
	return 1;
}
