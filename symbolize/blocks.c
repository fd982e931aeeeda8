// SPDX-License-Identifier: MIT
/*
 * Basic blocks: a procedure of an object decoded (decode.h) and split
 * at its leaders (the rules are the contract of sym_code() in
 * symbolize.h).  Everything is cached on the object: the facts that
 * decoding needs (.eh_frame extents for stripped code, PLT stub names:
 * procs.c) are read once, and each procedure is decoded once.  The top of
 * symbolize/: it names code through sym_resolve().
 */
#include <elf.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"
#include "symbolize_int.h"

#define MAX_PROC_BYTES (64u << 20)
#define MAX_SWEEPS 8
#define MAX_TABLE 4096		/* jump table entries, at most */
#define RING 16			/* instructions remembered for jump tables */
#define NEIGHBOUR_BYTES 4096	/* scanned for jumps into a procedure */
#define MAX_INDEXED (256u << 10) /* procedure bytes indexed (insn_at) */

/*
 * A procedure found by sym_code_extent() is decoded by the first
 * sym_code() that needs its instructions: a report that leaves it out
 * never decodes it.  Its bytes stay, so that the text of an instruction
 * is made only when a listing asks for it.
 */
struct proc {
	struct sym_code code;	/* first: sym_insn_format() gets back here */
	struct sym_insn *insns;
	struct sym_block *blocks;
	const struct code_cache *c;
	uint8_t *bytes;		/* [lo, hi) */
	uint64_t lo, hi;	/* vaddrs of the procedure */
	uint64_t nlo, nhi;	/* its neighbours, scanned for jumps in */
	bool decoded;
	bool released;		/* by sym_code_release(): its code is held */
};

struct code_cache {
	int err;		/* SYM_OK once ready to decode */
	const struct procs *pr;	/* the object's PLT and unwind facts */
	int fd;			/* the object's file, -1 */
	unsigned char *mem;	/* the vdso image (a copy), or NULL */
	size_t memsize;
	struct dec *dec;	/* the object's machine's decoder */
	struct proc **procs;	/* sorted by code.start */
	size_t nprocs, aprocs;
};

/* Back to before p was decoded, its bytes not read. */
static void proc_undecode(struct proc *p)
{
	free(p->insns);
	free(p->blocks);
	free(p->bytes);
	p->insns = NULL;
	p->blocks = NULL;
	p->bytes = NULL;
	p->code.insns = NULL;
	p->code.ninsns = 0;
	p->code.blocks = NULL;
	p->code.nblocks = 0;
	p->decoded = false;
}

static void proc_free(struct proc *p)
{
	if (!p)
		return;
	proc_undecode(p);
	free(p);
}

static void code_cache_free(struct code_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nprocs; i++)
		proc_free(c->procs[i]);
	free(c->procs);
	free(c->mem);
	dec_free(c->dec);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

/* ---- reading bytes ---- */

/* File offset of an ELF virtual address, through the PT_LOAD headers. */
static bool vaddr_file_off(const struct symobj *o, uint64_t va, uint64_t len,
			   uint64_t *foff)
{
	size_t i;

	for (i = 0; i < o->nloads; i++) {
		const struct loadseg *l = &o->loads[i];

		if (va >= l->vaddr && va - l->vaddr < l->filesz &&
		    len <= l->filesz - (va - l->vaddr)) {
			*foff = va - l->vaddr + l->off;
			return true;
		}
	}
	return false;
}

/* Read len bytes at ELF virtual address va; false if not in the file. */
static bool read_vaddr(const struct code_cache *c, const struct symobj *o,
		       uint64_t va, void *buf, size_t len)
{
	uint64_t foff;
	size_t done = 0;

	if (!vaddr_file_off(o, va, len, &foff))
		return false;
	if (c->mem) {
		if (foff > c->memsize || len > c->memsize - foff)
			return false;
		memcpy(buf, c->mem + foff, len);
		return true;
	}
	while (done < len) {
		ssize_t r = pread(c->fd, (char *)buf + done, len - done,
				  (off_t)(foff + done));

		if (r <= 0)
			return false;
		done += (size_t)r;
	}
	return true;
}

/* Bytes of the PT_LOAD segment read_vaddr() takes va in for a read of
 * at least min bytes, from va on; 0 if none. */
static uint64_t vaddr_room(const struct symobj *o, uint64_t va, uint64_t min)
{
	size_t i;

	for (i = 0; i < o->nloads; i++) {
		const struct loadseg *l = &o->loads[i];

		if (va >= l->vaddr && va - l->vaddr < l->filesz &&
		    min <= l->filesz - (va - l->vaddr))
			return l->filesz - (va - l->vaddr);
	}
	return 0;
}

/*
 * A jump table's entries, read a window at a time: a read per entry was
 * a twentieth of the blocks view.  An entry reads where read_vaddr()
 * would read it alone (a window that runs past the end of the file
 * falls back to the entry).
 */
struct table_window {
	unsigned char buf[512];
	uint64_t va;		/* of buf[0] */
	size_t n;		/* bytes read */
};

static bool read_entry(const struct code_cache *c, const struct symobj *o,
		       struct table_window *w, uint64_t va, void *e,
		       size_t size)
{
	uint64_t room;

	if (va < w->va || va - w->va > w->n || w->n - (va - w->va) < size) {
		room = vaddr_room(o, va, size);
		w->va = va;
		w->n = room < sizeof(w->buf) ? (size_t)room : sizeof(w->buf);
		if (!w->n || !read_vaddr(c, o, va, w->buf, w->n)) {
			w->n = size;
			if (!read_vaddr(c, o, va, w->buf, size)) {
				w->n = 0;
				return false;
			}
		}
	}
	memcpy(e, w->buf + (va - w->va), size);
	return true;
}

/* The object's facts, decoder and bytes, once. */
static int code_cache_load(struct symbolizer *s, struct symobj *o,
			   struct code_cache *c)
{
	int ret = symobj_procs(s, o, &c->pr);

	if (ret)
		return ret;
	ret = dec_open(o->machine, &c->dec);
	if (ret)
		return ret;
	if (o->kind == SYM_OBJ_VDSO || o->kind == SYM_OBJ_JIT) {
		const void *img = o->kind == SYM_OBJ_JIT ? o->jit_mem :
				  sym_vdso_image(&c->memsize);

		if (o->kind == SYM_OBJ_JIT)
			c->memsize = o->jit_memsize;
		if (!img)
			return SYM_ENOCODE;
		c->mem = malloc(c->memsize);
		if (!c->mem)
			return SYM_ENOMEM;
		memcpy(c->mem, img, c->memsize);
	} else {
		c->fd = sym_open_input(s, o->file);
		if (c->fd < 0)
			return SYM_EOPEN;
	}
	return SYM_OK;
}

/* ---- decoding ---- */

/* What a sweep records per instruction before blocks are formed. */
struct dins {
	uint64_t va;
	uint32_t len;
	unsigned flags;
	uint64_t target;	/* vaddr, 0 none */
};

struct decoder {
	struct symbolizer *s;
	struct symobj *o;
	struct code_cache *c;
	uint64_t lo, hi;	/* procedure vaddrs */
	const uint8_t *buf;
	struct dins *v;
	size_t n, alloc;
	uint64_t *extra;	/* jump table targets: leaders */
	size_t nextra, aextra;
	uint64_t *entries;	/* ways in from outside: leaders */
	size_t nentries, aentries;
	size_t nhard;		/* entries[0 .. nhard) may force a resync;
				 * the rest (found by sweeping neighbours,
				 * which may be data) only mark leaders */
	uint64_t *forced;	/* sorted: the sweep must start here */
	size_t nforced, aforced;
	const bool *leader;	/* per instruction of v, once swept */
	uint32_t *at;		/* per byte of a procedure of at most
				 * MAX_INDEXED bytes: 1 + the index in v of
				 * the instruction starting there, or 0 */
	/* The last instructions, for jump-table patterns (x86): decoded
	 * for their flow, their operands once a jump table asks
	 * (ring_at()). */
	struct dec_insn ring[RING];
	bool ring_ops[RING];
	size_t nring;
	struct dec_insn in;	/* the one being decoded */
};

/* Each name with its length: the length tells most apart without a
 * comparison (the test runs at every call of a sweep). */
#define NR(name) { name, sizeof(name) - 1 }
static const struct {
	const char *name;
	size_t len;
} noreturn_names[] = {
	NR("exit"), NR("_exit"), NR("_Exit"), NR("quick_exit"), NR("abort"),
	NR("__stack_chk_fail"), NR("__stack_chk_fail_local"),
	NR("__fortify_fail"), NR("__chk_fail"), NR("__assert_fail"),
	NR("__assert_perror_fail"), NR("__assert"), NR("__libc_fatal"),
	NR("__malloc_assert"), NR("err"), NR("errx"), NR("verr"), NR("verrx"),
	NR("longjmp"), NR("_longjmp"), NR("siglongjmp"), NR("__longjmp_chk"),
	NR("__libc_longjmp"), NR("__libc_siglongjmp"), NR("pthread_exit"),
	NR("__pthread_unwind"), NR("__pthread_unwind_next"),
	NR("__libc_start_main"), NR("__libc_start_call_main"),
	NR("_dl_signal_error"), NR("_dl_signal_exception"),
	NR("_dl_fatal_printf"), NR("__cxa_throw"), NR("__cxa_rethrow"),
	NR("__cxa_bad_cast"), NR("__cxa_bad_typeid"), NR("__cxa_pure_virtual"),
	NR("__cxa_call_unexpected"), NR("__cxa_throw_bad_array_new_length"),
	NR("_Unwind_Resume"), NR("_ZSt9terminatev"),
};
#undef NR

static bool is_noreturn(const char *name)
{
	size_t i;
	const char *at;
	size_t len;

	if (!name)
		return false;
	if (!strncmp(name, "__GI_", 5))
		name += 5;
	/* std::__throw_bad_alloc() and friends. */
	if (!strncmp(name, "_ZSt", 4) && strstr(name, "__throw_"))
		return true;
	at = strchr(name, '@');
	len = at ? (size_t)(at - name) : strlen(name);
	for (i = 0; i < sizeof(noreturn_names) / sizeof(*noreturn_names); i++)
		if (noreturn_names[i].len == len &&
		    !memcmp(noreturn_names[i].name, name, len))
			return true;
	return false;
}

/* x86-64 "call [rip + slot]" (-fno-plt, _start): the slot's symbol. */
static const char *slot_callee(const struct decoder *d,
			       const struct dec_insn *in)
{
	if (d->o->machine != EM_X86_64 || in->nops != 1 ||
	    in->op[0].kind != DEC_OP_MEM || !in->op[0].mem.rip ||
	    in->op[0].mem.index)
		return NULL;
	return procs_got_name(d->c->pr, in->va + in->len +
				       (uint64_t)in->op[0].mem.disp);
}

static const char *callee_name(const struct decoder *d, uint64_t target)
{
	struct symhit hit;
	const char *name = procs_plt_name(d->c->pr, target);

	if (name)
		return name;
	if (symindex_lookup(&d->o->syms, target, &hit) && hit.addr == target)
		return hit.name;
	return NULL;
}

static const struct dec_insn *ring_at(struct decoder *d, size_t back)
{
	size_t k;
	struct dec_insn *in;

	if (back >= d->nring || back >= RING)
		return NULL;
	k = (d->nring - 1 - back) % RING;
	in = &d->ring[k];
	if (!d->ring_ops[k]) {
		/* It decoded in these bytes before: it does again. */
		dec_decode(d->c->dec, d->buf + (in->va - d->lo), in->len,
			   in->va, DEC_WANT_OPS, in);
		d->ring_ops[k] = true;
	}
	return in;
}

static int add_extra(struct decoder *d, uint64_t va)
{
	if (ALLOC_GROW(d->extra, d->nextra + 1, d->aextra))
		return SYM_ENOMEM;
	d->extra[d->nextra++] = va;
	return SYM_OK;
}

/*
 * The bound of a jump table: "cmp idx, N" then "ja" (N + 1 entries) or
 * "jae" (N) among the instructions before the jump.  0 if not found.
 */
static uint64_t table_bound(struct decoder *d, size_t from)
{
	size_t b;

	for (b = from; b < RING; b++) {
		const struct dec_insn *j = ring_at(d, b),
				      *cmp = ring_at(d, b + 1);

		if (!j || !cmp)
			return 0;
		if (j->id != DEC_JA && j->id != DEC_JAE)
			continue;
		if (cmp->id != DEC_CMP || cmp->nops != 2 ||
		    cmp->op[0].kind != DEC_OP_REG ||
		    cmp->op[1].kind != DEC_OP_IMM || cmp->op[1].imm < 0)
			return 0;
		return (uint64_t)cmp->op[1].imm + (j->id == DEC_JA ? 1 : 0);
	}
	return 0;
}

/*
 * Jump tables of an indirect x86-64 jump (the ring ends with it): the
 * position-independent "lea base, [rip + T]; movsxd r, [base + i*4];
 * add r, base; jmp r" (entries are offsets from T) and the absolute
 * "jmp [T + i*8]" or "mov r, [T + i*8]; jmp r".  Without a bound,
 * entries are read while they land inside the procedure.
 */
static int jump_table_x86(struct decoder *d)
{
	const struct dec_insn *jmp = ring_at(d, 0), *in;
	struct table_window w;
	uint64_t table = 0, bound, i, limit;
	unsigned r, base = 0;
	bool rel = false;
	size_t b, after = 1;

	if (jmp->nops != 1)
		return SYM_OK;
	if (jmp->op[0].kind == DEC_OP_MEM) {
		if (jmp->op[0].mem.base || jmp->op[0].mem.rip ||
		    jmp->op[0].mem.scale != 8)
			return SYM_OK;
		table = (uint64_t)jmp->op[0].mem.disp;
	} else if (jmp->op[0].kind == DEC_OP_REG) {
		r = jmp->op[0].reg;
		/* Find what last set r, walking back. */
		for (b = 1; (in = ring_at(d, b)) != NULL; b++) {
			const struct dec_op *o = in->op;

			if (in->nops != 2 || o[0].kind != DEC_OP_REG ||
			    o[0].reg != r)
				continue;
			if (in->id == DEC_ADD && !base &&
			    o[1].kind == DEC_OP_REG) {
				base = o[1].reg;
				continue;
			}
			if ((in->id == DEC_MOVSXD && base &&
			     o[1].kind == DEC_OP_MEM &&
			     o[1].mem.base == base && o[1].mem.scale == 4)) {
				rel = true;
				after = b + 1;
				break;
			}
			if (in->id == DEC_MOV && !base &&
			    o[1].kind == DEC_OP_MEM && !o[1].mem.base &&
			    !o[1].mem.rip && o[1].mem.scale == 8) {
				table = (uint64_t)o[1].mem.disp;
				after = b + 1;
				break;
			}
			return SYM_OK;
		}
		if (!in)
			return SYM_OK;
		if (rel) {
			/* base = lea [rip + T], somewhere before. */
			for (b = 1; (in = ring_at(d, b)) != NULL; b++) {
				const struct dec_op *o = in->op;

				if (in->id == DEC_LEA && in->nops == 2 &&
				    o[0].kind == DEC_OP_REG &&
				    o[0].reg == base &&
				    o[1].kind == DEC_OP_MEM && o[1].mem.rip) {
					table = in->va + in->len +
						(uint64_t)o[1].mem.disp;
					if (b + 1 > after)
						after = b + 1;
					break;
				}
			}
			if (!in)
				return SYM_OK;
		}
	} else {
		return SYM_OK;
	}
	w.va = w.n = 0;
	bound = table_bound(d, after - 1);
	limit = bound ? bound : 1024;
	if (limit > MAX_TABLE)
		return SYM_OK;
	for (i = 0; i < limit; i++) {
		unsigned char e[8];
		uint64_t t;

		if (!read_entry(d->c, d->o, &w, table + i * (rel ? 4 : 8), e,
				rel ? 4 : 8))
			break;
		if (rel) {
			int32_t v = (int32_t)((uint32_t)e[0] |
					      (uint32_t)e[1] << 8 |
					      (uint32_t)e[2] << 16 |
					      (uint32_t)e[3] << 24);

			t = table + (uint64_t)(int64_t)v;
		} else {
			memcpy(&t, e, 8);
		}
		if (t < d->lo || t >= d->hi) {
			if (!bound)
				break;
			continue;
		}
		if (add_extra(d, t))
			return SYM_ENOMEM;
	}
	return SYM_OK;
}

static int add_entry(struct decoder *d, uint64_t va)
{
	if (ALLOC_GROW(d->entries, d->nentries + 1, d->aentries))
		return SYM_ENOMEM;
	d->entries[d->nentries++] = va;
	return SYM_OK;
}

static int forced_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* First forced start > va, or hi. */
static uint64_t next_forced(const struct decoder *d, uint64_t va)
{
	size_t lo = 0, hi = d->nforced;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->forced[mid] <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nforced ? d->forced[lo] : d->hi;
}

/*
 * The next address after va where an instruction is known to start: a
 * forced start or a way in (a symbol, a PLT stub); else the end.
 */
static uint64_t next_known(const struct decoder *d, uint64_t va)
{
	uint64_t stop = next_forced(d, va);
	size_t i;

	for (i = 0; i < d->nhard; i++)
		if (d->entries[i] > va && d->entries[i] < stop)
			stop = d->entries[i];
	return stop;
}

/*
 * Bytes [va, va + len) that are no instruction of the sweep: one entry,
 * grown while runs touch.  unknown: the decoder does not know the
 * instruction there, whose length it cannot tell; else the bytes an
 * instruction would have run across a forced start.
 */
static int push_data(struct decoder *d, uint64_t va, uint64_t len,
		     bool unknown)
{
	struct dins *last = d->n ? &d->v[d->n - 1] : NULL;
	unsigned flags = SYM_INSN_DATA | (unknown ? SYM_INSN_UNKNOWN : 0);

	if (last && last->flags == flags && last->va + last->len == va &&
	    next_forced(d, last->va) > va) {
		last->len += (uint32_t)len;
	} else {
		if (ALLOC_GROW(d->v, d->n + 1, d->alloc))
			return SYM_ENOMEM;
		last = &d->v[d->n++];
		*last = (struct dins){
			.va = va, .len = (uint32_t)len, .flags = flags,
		};
	}
	return SYM_OK;
}

/* d->at for the sweep just made, when the procedure is small enough to
 * spend four bytes of index on each of its bytes (else binary search). */
static int index_insns(struct decoder *d)
{
	size_t i, size = d->hi - d->lo;

	if (size > MAX_INDEXED)
		return SYM_OK;
	if (!d->at && !(d->at = malloc(size * sizeof(*d->at))))
		return SYM_ENOMEM;
	memset(d->at, 0, size * sizeof(*d->at));
	for (i = 0; i < d->n; i++)
		d->at[d->v[i].va - d->lo] = (uint32_t)i + 1;
	return SYM_OK;
}

static int sweep(struct decoder *d)
{
	struct dec_insn *in = &d->in;
	uint64_t va = d->lo;
	int ret = SYM_OK;

	d->n = d->nextra = d->nring = 0;
	while (va < d->hi && ret == SYM_OK) {
		uint64_t stop = next_forced(d, va);
		const uint8_t *code = d->buf + (va - d->lo);
		struct dins *di;

		/* The text only when a listing asks (sym_insn_format). */
		if (!dec_decode(d->c->dec, code, stop - va, va, DEC_WANT_FLOW,
				in)) {
			uint64_t end;
			bool unknown = !dec_decode(d->c->dec, code, d->hi - va,
						   va, DEC_WANT_FLOW, in);

			/* Never a guess: an unknown instruction runs to the
			 * next start known otherwise. */
			if (!unknown)
				end = stop;
			else if (in->len)
				end = va + in->len;
			else
				end = next_known(d, va);
			if (end > d->hi || end <= va)
				end = d->hi;
			ret = push_data(d, va, end - va, unknown);
			va = end;
			continue;
		}
		if (ALLOC_GROW(d->v, d->n + 1, d->alloc)) {
			ret = SYM_ENOMEM;
			break;
		}
		di = &d->v[d->n++];
		di->va = va;
		di->len = in->len;
		di->flags = in->flags;
		di->target = in->target;
		if ((di->flags & SYM_INSN_CALL) &&
		    is_noreturn(in->target ? callee_name(d, in->target) :
				slot_callee(d, in)))
			di->flags |= SYM_INSN_NORETURN;
		if (d->o->machine == EM_X86_64) {
			/* Not the text (empty here, and most of it). */
			memcpy(&d->ring[d->nring % RING], in,
			       offsetof(struct dec_insn, text));
			d->ring_ops[d->nring % RING] =
				!!(in->flags & (SYM_INSN_BRANCH |
						SYM_INSN_CALL));
			d->nring++;
			if ((di->flags & SYM_INSN_BRANCH) &&
			    (di->flags & SYM_INSN_INDIRECT))
				ret = jump_table_x86(d);
		}
		va += in->len;
	}
	return ret ? ret : index_insns(d);
}

/* Index of the instruction starting at va, or (size_t)-1. */
static size_t insn_at(const struct decoder *d, uint64_t va)
{
	size_t lo = 0, hi = d->n;

	if (va < d->lo || va >= d->hi)
		return (size_t)-1;	/* a call elsewhere, mostly */
	if (d->at)
		return (size_t)d->at[va - d->lo] - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->v[mid].va < va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->n && d->v[lo].va == va ? lo : (size_t)-1;
}

/*
 * Targets the sweep stepped over (inside an instruction) become forced
 * starts; true when there were any, so the sweep must run again.
 */
static int resync(struct decoder *d, bool *again)
{
	size_t i;

	*again = false;
	/* Jump-table entries may be misread data: they only mark. */
	for (i = 0; i < d->n + d->nhard; i++) {
		uint64_t t = i < d->n ? d->v[i].target : d->entries[i - d->n];

		if (i < d->n && !(d->v[i].flags & SYM_INSN_BRANCH))
			continue;
		if (!t || t < d->lo || t >= d->hi ||
		    insn_at(d, t) != (size_t)-1)
			continue;
		if (ALLOC_GROW(d->forced, d->nforced + 1, d->aforced))
			return SYM_ENOMEM;
		d->forced[d->nforced++] = t;
		*again = true;
	}
	if (*again && d->nforced > 1)
		qsort(d->forced, d->nforced, sizeof(*d->forced), forced_cmp);
	return SYM_OK;
}

static void mark(const struct decoder *d, bool *leader, uint64_t va)
{
	size_t i = insn_at(d, va);

	if (i != (size_t)-1)
		leader[i] = true;
}

/*
 * The leaders of the sweep d->v (a bool per instruction in *out): its
 * first instruction, branch targets, what follows an end of flow,
 * padding runs, jump tables' entries and the ways in known so far.
 */
static int find_leaders(struct decoder *d, bool **out)
{
	bool *leader = calloc(d->n ? d->n : 1, sizeof(*leader));
	size_t i;
	const unsigned ends = SYM_INSN_BRANCH | SYM_INSN_RET | SYM_INSN_TRAP |
			      SYM_INSN_NORETURN | SYM_INSN_REP | SYM_INSN_DATA;

	*out = leader;
	if (!leader)
		return SYM_ENOMEM;
	if (d->n)
		leader[0] = true;
	for (i = 0; i < d->n; i++) {
		const struct dins *di = &d->v[i];

		if ((di->flags & (SYM_INSN_BRANCH | SYM_INSN_CALL)) &&
		    di->target)
			mark(d, leader, di->target);
		if ((di->flags & ends) && i + 1 < d->n)
			leader[i + 1] = true;
		/* Nothing falls into a trap on purpose: a call before one
		 * did not return, whatever its callee. */
		if (di->flags & (SYM_INSN_REP | SYM_INSN_DATA | SYM_INSN_TRAP))
			leader[i] = true;
		/* Padding aligns a branch target: its run is a block. */
		if ((di->flags & SYM_INSN_PAD) &&
		    (!i || !(d->v[i - 1].flags & SYM_INSN_PAD)))
			leader[i] = true;
		if ((di->flags & SYM_INSN_PAD) && i + 1 < d->n &&
		    !(d->v[i + 1].flags & SYM_INSN_PAD))
			leader[i + 1] = true;
	}
	for (i = 0; i < d->nextra; i++)
		mark(d, leader, d->extra[i]);
	for (i = 0; i < d->nentries; i++)
		mark(d, leader, d->entries[i]);
	return SYM_OK;
}

/* p's instructions and blocks: the sweep d->v split at leader[]. */
static int build_blocks(struct decoder *d, struct proc *p, uint64_t off0,
			const bool *leader)
{
	size_t i, nb = 0;

	p->insns = calloc(d->n ? d->n : 1, sizeof(*p->insns));
	if (!p->insns)
		return SYM_ENOMEM;
	for (i = 0; i < d->n; i++)
		nb += leader[i];
	/* Kept with the instructions: no room to spare. */
	p->blocks = malloc((nb ? nb : 1) * sizeof(*p->blocks));
	if (!p->blocks)
		return SYM_ENOMEM;
	nb = 0;
	for (i = 0; i < d->n; i++) {
		const struct dins *di = &d->v[i];
		struct sym_insn *si = &p->insns[i];

		if (leader[i]) {
			p->blocks[nb].start = off0 + (di->va - d->lo);
			p->blocks[nb].first = (uint32_t)i;
			p->blocks[nb].ninsns = 0;
			nb++;
		}
		si->offset = off0 + (di->va - d->lo);
		si->len = di->len;
		si->block = (uint32_t)(nb - 1);
		si->flags = di->flags;
		si->target = di->target ?
			     symobj_vaddr_to_off(d->o, di->target, 0) : 0;
		p->blocks[nb - 1].ninsns++;
		p->blocks[nb - 1].end = si->offset + si->len;
	}
	p->code.insns = p->insns;
	p->code.ninsns = d->n;
	p->code.blocks = p->blocks;
	p->code.nblocks = nb;
	return SYM_OK;
}

/*
 * Other ways into the procedure: the start of every symbol and PLT stub
 * inside it (a PLT section is one procedure of many entry points; hand
 * written assembly has several entry points per function).
 */
static int entry_points(struct decoder *d)
{
	const struct symindex *si = &d->o->syms;
	size_t lo = 0, hi = si->n, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (si->v[mid].addr <= d->lo)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < si->n && si->v[i].addr < d->hi; i++)
		if (add_entry(d, si->v[i].addr))
			return SYM_ENOMEM;
	for (i = 0; i < d->c->pr->nplt; i++)
		if (d->c->pr->plt[i].vaddr > d->lo &&
		    d->c->pr->plt[i].vaddr < d->hi &&
		    add_entry(d, d->c->pr->plt[i].vaddr))
			return SYM_ENOMEM;
	return SYM_OK;
}

/* Whether a jump to t would make a block of the procedure start there:
 * t starts one of its instructions, not a leader yet. */
static bool new_leader(void *ctx, uint64_t t)
{
	const struct decoder *d = ctx;
	size_t i = insn_at(d, t);

	return i != (size_t)-1 && !d->leader[i];
}

/*
 * Direct jumps and calls from the neighbouring code [lo, hi) into the
 * procedure: assembly functions jump into the middle of the next one
 * (glibc's mempcpy into memcpy, after computing its return value).  Only
 * the leaders they make count, so the procedure is swept first.
 */
static int neighbour_jumps(struct decoder *d, uint64_t lo, uint64_t hi)
{
	const struct dec_targets to = {
		.lo = d->lo, .hi = d->hi, .wanted = new_leader, .ctx = d,
	};
	struct dec_insn *in = &d->in;
	uint8_t *buf;
	uint64_t va, reach;
	int ret = SYM_OK;

	if (hi <= lo)
		return SYM_OK;
	buf = malloc(hi - lo);
	if (!buf)
		return SYM_ENOMEM;
	if (!read_vaddr(d->c, d->o, lo, buf, hi - lo))
		goto out;
	/* Few neighbours' bytes can hold such a jump, and then near the
	 * procedure: the decoding stops after the last that may. */
	reach = lo + dec_branch_reach(d->c->dec, buf, hi - lo, lo, &to);
	for (va = lo; va < reach && !ret;) {
		if (!dec_decode(d->c->dec, buf + (va - lo), hi - va, va,
				DEC_WANT_FLOW, in)) {
			/* Only leaders come of this: resume anywhere. */
			va += in->len ? in->len : 1;
			continue;
		}
		if ((in->flags & (SYM_INSN_BRANCH | SYM_INSN_CALL)) &&
		    in->target > d->lo && in->target < d->hi)
			ret = add_entry(d, in->target);
		va += in->len;
	}
out:
	free(buf);
	return ret;
}

/* p's instructions and blocks from its bytes. */
static int decode(struct symbolizer *s, struct symobj *o, struct code_cache *c,
		  struct proc *p)
{
	struct decoder d = {
		.s = s, .o = o, .c = c, .lo = p->lo, .hi = p->hi,
		.buf = p->bytes,
	};
	int ret, pass;
	bool again = true, *leader = NULL;
	size_t i, hard;

	ret = entry_points(&d);
	d.nhard = d.nentries;
	for (pass = 0; again && !ret && pass < MAX_SWEEPS; pass++) {
		ret = sweep(&d);
		if (!ret)
			ret = resync(&d, &again);
	}
	if (!ret && again)
		ret = sweep(&d);	/* the last forced starts, no more */
	if (!ret)
		ret = find_leaders(&d, &leader);
	d.leader = leader;
	hard = d.nentries;
	if (!ret && p->nlo < p->lo)
		ret = neighbour_jumps(&d, p->nlo, p->lo);
	if (!ret && p->nhi > p->hi)
		ret = neighbour_jumps(&d, p->hi, p->nhi);
	/* Running out of memory ends the decoding (a neighbour that cannot
	 * be read costs only its jumps). */
	if (ret)
		goto out;
	for (i = hard; i < d.nentries; i++)
		mark(&d, leader, d.entries[i]);
	ret = build_blocks(&d, p, p->code.start, leader);
out:
	free(leader);
	free(d.at);
	free(d.v);
	free(d.extra);
	free(d.entries);
	free(d.forced);
	return ret;
}

/* ---- the cache ---- */

/* Index of the first procedure with start > off. */
static size_t proc_upper(const struct code_cache *c, uint64_t off)
{
	size_t lo = 0, hi = c->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->procs[mid]->code.start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The procedure's extent in vaddrs (see sym_code in symbolize.h). */
static int proc_extent(const struct symobj *o, const struct code_cache *c,
		       uint64_t va, uint64_t *lo, uint64_t *hi)
{
	struct symhit hit;
	const struct fde_range *f;
	bool have = symindex_lookup(&o->syms, va, &hit);

	if (procs_plt_extent(c->pr, va, lo, hi)) {
		/* as set */
	} else if (have && hit.covered && !hit.stretched) {
		*lo = hit.addr;
		*hi = hit.end;
	} else if ((f = procs_fde(c->pr, va)) != NULL) {
		*lo = f->lo;
		*hi = f->hi;
	} else if (have && !hit.stretched) {
		*lo = hit.addr;
		*hi = hit.end;
	} else {
		return SYM_ENOCODE;
	}
	if (*hi <= *lo || *hi - *lo > MAX_PROC_BYTES || va >= *hi)
		return SYM_ENOCODE;
	return SYM_OK;
}

/*
 * The code around [lo, hi) scanned for jumps into it: NEIGHBOUR_BYTES each
 * side within the PT_LOAD segment, the window before starting at a symbol
 * where there is one, so that the sweep starts on an instruction.
 */
static void neighbours(const struct symobj *o, uint64_t lo, uint64_t hi,
		       uint64_t *nlo, uint64_t *nhi)
{
	const struct symindex *si = &o->syms;
	size_t i, a = 0, b = si->n;

	*nlo = lo;
	*nhi = hi;
	for (i = 0; i < o->nloads; i++) {
		const struct loadseg *l = &o->loads[i];

		if (lo < l->vaddr || hi > l->vaddr + l->filesz)
			continue;
		*nlo = lo - l->vaddr > NEIGHBOUR_BYTES ?
		       lo - NEIGHBOUR_BYTES : l->vaddr;
		*nhi = l->vaddr + l->filesz - hi > NEIGHBOUR_BYTES ?
		       hi + NEIGHBOUR_BYTES : l->vaddr + l->filesz;
		break;
	}
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (si->v[mid].addr < *nlo)
			a = mid + 1;
		else
			b = mid;
	}
	if (a < si->n && si->v[a].addr < lo)
		*nlo = si->v[a].addr;
}

/* o's code cache, read on first use.  SYM_OK or why not. */
static int code_cache_of(struct symbolizer *s, struct symobj *o,
			 struct code_cache **out)
{
	if (!o->code) {
		o->code = calloc(1, sizeof(*o->code));
		if (!o->code)
			return SYM_ENOMEM;
		o->code->fd = -1;
		o->code_free = code_cache_free;
		o->code->err = code_cache_load(s, o, o->code);
	}
	*out = o->code;
	return o->code->err;
}

/* The text of insn i of code without its target's name, in din's
 * storage or a constant. */
static const char *plain_text(const struct sym_code *code, size_t i,
			      struct dec_insn *din)
{
	const struct proc *p = (const struct proc *)code;
	const struct sym_insn *in = &code->insns[i];
	uint64_t va = sym_insn_vaddr(code, in);

	if (in->flags & SYM_INSN_UNKNOWN) {
		snprintf(din->text, sizeof(din->text),
			 "(unknown instruction: %u bytes not decoded)",
			 in->len);
		return din->text;
	}
	if ((in->flags & SYM_INSN_DATA) ||
	    !dec_decode(p->c->dec, p->bytes + (va - p->lo), in->len, va,
			DEC_WANT_TEXT, din))
		return "(bad)";
	return din->text;
}

const char *sym_insn_plain_text(struct symbolizer *s,
				const struct sym_code *code, size_t i)
{
	struct dec_insn din;
	const char *t = plain_text(code, i, &din);

	t = strpool_add(symbolizer_pool(s), t);
	return t ? t : "(bad)";
}

size_t sym_insn_format(struct symbolizer *s, const struct sym_object *obj,
		       const struct sym_code *code, size_t i, char *buf,
		       size_t size)
{
	const struct sym_insn *in = &code->insns[i];
	struct dec_insn din;
	const char *text = plain_text(code, i, &din);
	struct sym_result res;
	const char *name;
	uint64_t t = in->target;
	int len;

	if (!t || (in->flags & SYM_INSN_INDIRECT) ||
	    (!(in->flags & SYM_INSN_CALL) &&
	     (!(in->flags & SYM_INSN_BRANCH) ||
	      (t >= code->start && t < code->end))))
		return (size_t)snprintf(buf, size, "%s", text);
	sym_resolve(s, obj, t, &res);
	name = res.frames[res.nframes - 1].function;
	/* Only a real name: "prog+0xOFFSET" is a file offset, not the
	 * address the operand shows. */
	if (!name || !(res.flags & (SYM_F_SYMBOL | SYM_F_DWARF | SYM_F_PLT |
				    SYM_F_UNWIND)))
		len = snprintf(buf, size, "%s", text);
	else if (t == res.symbol_start)
		len = snprintf(buf, size, "%s <%s>", text, name);
	else
		len = snprintf(buf, size, "%s <%s+0x%" PRIx64 ">", text, name,
			       t - res.symbol_start);
	return len < 0 ? 0 : (size_t)len;
}

/* p's bytes, read (again, after sym_code_release()). */
static int proc_bytes(const struct symobj *o, struct proc *p)
{
	p->bytes = malloc(p->hi - p->lo);
	if (!p->bytes)
		return SYM_ENOMEM;
	if (!read_vaddr(p->c, o, p->lo, p->bytes, p->hi - p->lo)) {
		free(p->bytes);
		p->bytes = NULL;
		return SYM_ENOCODE;
	}
	return SYM_OK;
}

/*
 * The cached procedure covering offset in obj, found (its extent, name
 * and bytes) but maybe not decoded yet; its object and cache in *po, *pc.
 */
static int find_proc(struct symbolizer *s, const struct sym_object *obj,
		     uint64_t offset, struct proc **out, struct symobj **po,
		     struct code_cache **pc)
{
	struct sym_object vobj;
	struct symobj *o;
	struct code_cache *c;
	struct proc *p;
	struct sym_result res;
	const char *image;
	uint64_t va, lo, hi, off0;
	size_t at;
	int ret = SYM_OK;

	*out = NULL;
	if (!s || !obj)
		return SYM_EINVAL;
	switch (obj->kind) {
	case SYM_OBJ_FILE:
	case SYM_OBJ_VDSO:
	case SYM_OBJ_JIT:
		break;
	case SYM_OBJ_KERNEL:
		/* Kernel code is read from a vmlinux image: the one its
		 * lines come from (-k, else found by build-id).  A debug
		 * file without the code (NOBITS .text) gives none. */
		image = symbolizer_kernel_image(s, obj);
		if (!image)
			return SYM_ENOCODE;
		vobj = (struct sym_object){
			.kind = SYM_OBJ_KERNEL, .path = image,
		};
		break;
	default:
		return SYM_ENOCODE;
	}
	o = symobj_get(s, obj->kind == SYM_OBJ_KERNEL ? &vobj : obj, &ret);
	if (!o)
		return ret;
	if (o->err)
		return o->err;
	if (o->flags & (SYM_F_STALE | SYM_F_NOFILE))
		return SYM_ENOCODE;
	ret = code_cache_of(s, o, &c);
	if (ret)
		return ret;
	*po = o;
	*pc = c;
	at = proc_upper(c, offset);
	if (at && offset < c->procs[at - 1]->code.end) {
		*out = c->procs[at - 1];
		return SYM_OK;
	}
	if (!symobj_off_to_vaddr(o, offset, &va))
		return SYM_ENOCODE;
	ret = proc_extent(o, c, va, &lo, &hi);
	if (ret)
		return ret;
	off0 = offset - (va - lo);
	at = proc_upper(c, off0);
	if (at && c->procs[at - 1]->code.start == off0) {
		/* Same start, but the cached one ended before offset. */
		return SYM_ENOCODE;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return SYM_ENOMEM;
	p->c = c;
	p->lo = lo;
	p->hi = hi;
	ret = proc_bytes(o, p);
	if (ret) {
		proc_free(p);
		return ret;
	}
	neighbours(o, lo, hi, &p->nlo, &p->nhi);
	sym_resolve(s, obj, off0, &res);
	p->code.procedure = res.frames[res.nframes - 1].function;
	p->code.start = off0;
	p->code.end = off0 + (hi - lo);
	p->code.vaddr = lo;
	if (ALLOC_GROW(c->procs, c->nprocs + 1, c->aprocs)) {
		proc_free(p);
		return SYM_ENOMEM;
	}
	memmove(&c->procs[at + 1], &c->procs[at],
		(c->nprocs - at) * sizeof(*c->procs));
	c->procs[at] = p;
	c->nprocs++;
	*out = p;
	return SYM_OK;
}

int sym_code_extent(struct symbolizer *s, const struct sym_object *obj,
		    uint64_t offset, const struct sym_code **out)
{
	struct proc *p;
	struct symobj *o;
	struct code_cache *c;
	int ret;

	if (!out)
		return SYM_EINVAL;
	ret = find_proc(s, obj, offset, &p, &o, &c);
	*out = p ? &p->code : NULL;
	return ret;
}

int sym_code(struct symbolizer *s, const struct sym_object *obj,
	     uint64_t offset, const struct sym_code **out)
{
	struct proc *p;
	struct symobj *o;
	struct code_cache *c;
	size_t at;
	int ret;

	if (!out)
		return SYM_EINVAL;
	*out = NULL;
	ret = find_proc(s, obj, offset, &p, &o, &c);
	if (ret)
		return ret;
	if (!p->decoded) {
		ret = p->bytes ? SYM_OK : proc_bytes(o, p);
		if (!ret)
			ret = decode(s, o, c, p);
		if (ret && p->released) {
			proc_undecode(p);	/* kept: its code is held */
			return ret;
		}
		if (ret) {
			/* Not kept: the next query tries again. */
			at = proc_upper(c, p->code.start) - 1;
			memmove(&c->procs[at], &c->procs[at + 1],
				(c->nprocs - at - 1) * sizeof(*c->procs));
			c->nprocs--;
			proc_free(p);
			return ret;
		}
		p->decoded = true;
	}
	*out = &p->code;
	return SYM_OK;
}

void sym_code_release(struct symbolizer *s, const struct sym_code *code)
{
	struct proc *p = (struct proc *)code;

	(void)s;
	if (!p || !p->decoded)
		return;
	proc_undecode(p);
	p->released = true;
}
