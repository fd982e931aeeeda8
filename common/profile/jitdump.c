/* SPDX-License-Identifier: MIT */
/*
 * jitdump files (jit-PID.dump): the binary format perf's documentation
 * specifies for JIT runtimes (tools/perf/Documentation/
 * jitdump-specification.txt in Linux).  A runtime writes one per process
 * and maps it executable once, so that a profiler sees its path among the
 * process's mappings.  Read here into a perf map's entries (jitmap.c), so
 * that the rest of the tool treats both alike.
 *
 *   file header (40 bytes or more, its size in total_size):
 *     u32 magic 0x4A695444 ("JiTD" little-endian), u32 version,
 *     u32 total_size, u32 elf_mach, u32 pad, u32 pid, u64 timestamp,
 *     u64 flags
 *   records, each: u32 id, u32 total_size, u64 timestamp, then
 *     0 CODE_LOAD:  u32 pid, u32 tid, u64 vma, u64 code_addr,
 *                   u64 code_size, u64 code_index, NAME\0, code bytes
 *     1 CODE_MOVE:  u32 pid, u32 tid, u64 vma, u64 old_code_addr,
 *                   u64 new_code_addr, u64 code_size, u64 code_index
 *     2 DEBUG_INFO: u64 code_addr, u64 nr_entry, entries (jitdebug.c),
 *                   written before the load of the code at code_addr
 *     4 UNWINDING_INFO: skipped; 3 CODE_CLOSE: the end
 *
 * The file is the runtime's: fields are read through a cursor that ends
 * with their record (common/util/bytes.h), a record larger than the
 * bytes left (a runtime killed while writing) ends the reading (m->cut).
 * Records are taken in file order, so where code is reused the name
 * written last wins, as with a perf map's lines; a move is named by the
 * last load of its code index in the file (runtimes give each piece of
 * code an index of its own), and keeps that load's bytes and debug
 * record when it moves as many bytes.  A debug record goes with the
 * next load when that loads the code it describes; one whose entries do
 * not fit it is counted (m->bad_debug) and goes with none.  Entries
 * point into buf: no code is copied here, and only the sampled code's
 * is, later (profile_jitmap_keep()).
 */
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/bytes.h"
#include "common/util/error.h"
#include "profile.h"

#define JITDUMP_MAGIC 0x4A695444u
#define JITDUMP_HEADER 40u
#define JITDUMP_RECORD 16u

/* V8 writes its debug entries this far past the code they describe. */
#define V8_DEBUG_SKEW 0x40u

enum {
	JIT_CODE_LOAD = 0,
	JIT_CODE_MOVE = 1,
	JIT_CODE_DEBUG_INFO = 2,
	JIT_CODE_CLOSE = 3,
};

/* A code load's or move's fields, read within its record. */
struct code {
	uint64_t addr, size, index;
	const char *name;	/* a load's, not NUL-terminated */
	size_t nlen;
	const uint8_t *bytes;	/* a load's code */
	const uint8_t *debug;	/* the debug record before a load */
	size_t debug_len;
};

/* The last debug record read, until the load of its code. */
struct pending {
	const uint8_t *r;
	uint32_t size;
	uint64_t addr;
};

/* The record at r (size bytes) as a load (move 0) or a move: 0, or -1
 * when its fields do not fit in it. */
static int read_code(const unsigned char *r, uint32_t size, int move,
		     struct code *c)
{
	struct bytes b = { r + JITDUMP_RECORD, r + size, 0 };
	const uint8_t *nul;

	bytes_u(&b, 8);			/* pid, tid */
	bytes_u(&b, 8);			/* vma */
	if (move)
		bytes_u(&b, 8);		/* old_code_addr */
	c->addr = bytes_u(&b, 8);
	c->size = bytes_u(&b, 8);
	c->index = bytes_u(&b, 8);
	if (b.bad)
		return -1;
	if (move)
		return 0;
	/* the name, then the code's bytes */
	nul = memchr(b.p, '\0', (size_t)(b.end - b.p));
	if (!nul || c->size > (uint64_t)(b.end - nul - 1))
		return -1;
	c->name = (const char *)b.p;
	c->nlen = (size_t)(nul - b.p);
	c->bytes = (const uint8_t *)nul + 1;
	return 0;
}

/* Note the debug record at r (size bytes) for the next load, or count
 * it as bad when its entries do not fit it. */
static void note_debug(struct prof_jitmap *m, const unsigned char *r,
		       uint32_t size, struct pending *d)
{
	struct bytes b = { r + JITDUMP_RECORD, r + size, 0 };
	uint64_t addr = bytes_u(&b, 8);

	*d = (struct pending){ 0 };
	if (b.bad || !profile_jitdebug_fits(r, size))
		m->bad_debug++;
	else
		*d = (struct pending){ .r = r, .size = size, .addr = addr };
}

/* Whether a load's name is V8's (its JavaScript, builtins). */
static int v8_name(const char *name, size_t nlen)
{
	return (nlen > 3 && !memcmp(name, "JS:", 3)) ||
	       (nlen > 8 && !memcmp(name, "Builtin:", 8));
}

/* A code load's index, where its name, code and debug record are, for
 * the moves. */
struct load {
	uint64_t index;
	const char *name;
	size_t nlen;
	const uint8_t *bytes, *debug;
	size_t debug_len;
	uint64_t addr, size;
};

static int cmp_load(const void *a, const void *b)
{
	const struct load *x = a, *y = b;

	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	/* The same index loaded twice: the later one first. */
	return x->name > y->name ? -1 : x->name < y->name;
}

static const struct load *find_load(const struct load *v, size_t n,
				    uint64_t index)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].index == index ? &v[lo] : NULL;
}

/* A record that names no code: counted, and its place taken. */
static void bad_record(struct prof_jitmap *m)
{
	m->bad_lines++;
	m->last_line++;
}

/* [c->addr, + c->size) as an entry, with its code and debug record
 * (described at base), or counted as bad. */
static int add_code(struct prof_jitmap *m, const struct code *c,
		    uint64_t base)
{
	struct prof_jitmap_entry *e;

	if (!c->size || c->addr > UINT64_MAX - c->size || !c->nlen) {
		bad_record(m);
		return 0;
	}
	if (profile_jitmap_add(m, c->addr, c->addr + c->size, c->name,
			       c->nlen))
		return -PROF_ENOMEM;
	e = &m->v[m->n - 1];
	e->code = c->bytes;
	e->debug = c->debug;
	e->debug_len = c->debug_len;
	e->debug_base = base;
	return 0;
}

/* The loads read so far, and the debug record waiting for its load. */
struct loads {
	struct load *v;
	size_t n, alloc;
	struct pending dbg;
};

/* Pass 0: a load noted, with the debug record before it when that
 * describes its address.  0 or -PROF_ENOMEM. */
static int note_load(struct prof_jitmap *m, struct loads *ls,
		     const struct code *c)
{
	if (ALLOC_GROW(ls->v, ls->n + 1, ls->alloc))
		return -PROF_ENOMEM;
	if (ls->dbg.r && ls->dbg.addr != c->addr)
		ls->dbg.r = NULL;
	ls->v[ls->n++] = (struct load){
		.index = c->index, .name = c->name, .nlen = c->nlen,
		.bytes = c->bytes, .debug = ls->dbg.r,
		.debug_len = ls->dbg.size, .addr = c->addr, .size = c->size };
	if (v8_name(c->name, c->nlen))
		m->debug_skew = V8_DEBUG_SKEW;
	ls->dbg.r = NULL;
	return 0;
}

/* Pass 1: a load's or move's entry, named (and given its code and lines)
 * by its load's row: for a load its own (the same index loaded twice is
 * told apart by its name), for a move the last load of its index.  0 or
 * -PROF_ENOMEM. */
static int take_code(struct prof_jitmap *m, const struct loads *ls,
		     struct code *c, int move)
{
	const struct load *l, *end;

	if (!ls->n) {		/* a move of nothing loaded */
		bad_record(m);
		return 0;
	}
	l = find_load(ls->v, ls->n, c->index);
	end = ls->v + ls->n;
	while (!move && l && l < end && l->index == c->index &&
	       l->name != c->name)
		l++;
	if (!l || l >= end || l->index != c->index) {
		bad_record(m);
		return 0;
	}
	c->name = l->name;
	c->nlen = l->nlen;
	/* A move of another size moves other bytes. */
	c->bytes = c->size == l->size ? l->bytes : NULL;
	c->debug = c->bytes ? l->debug : NULL;
	c->debug_len = l->debug_len;
	return add_code(m, c, l->addr);
}

/* One pass over the records after the header (hsize bytes).  0 or
 * -PROF_ENOMEM. */
static int read_pass(struct prof_jitmap *m, struct loads *ls,
		     const unsigned char *buf, size_t len, size_t hsize,
		     int pass)
{
	size_t off;

	for (off = hsize; len - off >= JITDUMP_RECORD;) {
		struct bytes rh = { buf + off, buf + len, 0 };
		uint32_t id = (uint32_t)bytes_u(&rh, 4);
		uint32_t size = (uint32_t)bytes_u(&rh, 4);
		const unsigned char *r = buf + off;
		struct code c = { 0 };
		int err;

		if (size < JITDUMP_RECORD || size > len - off) {
			m->cut = 1;	/* cut short: the end */
			break;
		}
		off += size;
		if (id == JIT_CODE_CLOSE)
			break;
		if (id == JIT_CODE_DEBUG_INFO && !pass)
			note_debug(m, r, size, &ls->dbg);
		if (id != JIT_CODE_LOAD && (id != JIT_CODE_MOVE || !pass))
			continue;	/* debug, unwinding, ... */
		if (read_code(r, size, id == JIT_CODE_MOVE, &c)) {
			if (pass)
				bad_record(m);
			continue;
		}
		err = pass ? take_code(m, ls, &c, id == JIT_CODE_MOVE) :
		      note_load(m, ls, &c);
		if (err)
			return err;
	}
	return 0;
}

/* Why the header at buf (len bytes) is not one this reader knows, or
 * NULL with its size in *hsize. */
static const char *read_header(const unsigned char *buf, size_t len,
			       size_t *hsize)
{
	struct bytes h = { buf, buf + len, 0 };
	uint64_t magic = bytes_u(&h, 4), version = bytes_u(&h, 4);

	*hsize = (size_t)bytes_u(&h, 4);
	if (h.bad || len < JITDUMP_HEADER || magic != JITDUMP_MAGIC)
		return magic == __builtin_bswap32(JITDUMP_MAGIC) ?
		       "is written in the other byte order" :
		       "is not a jitdump";
	if (version != 1)
		return "is of a version other than 1";
	if (*hsize < JITDUMP_HEADER || *hsize > len)
		return "has a header of a wrong size";
	return NULL;
}

int profile_jitdump_parse(struct prof_jitmap *m, const unsigned char *buf,
			  size_t len, const char **why)
{
	struct loads ls = { 0 };
	size_t hsize;
	int err;

	memset(m, 0, sizeof(*m));
	/*
	 * Two passes: the loads' names by index first (a move names what
	 * a load of its index named), then the entries in file order.
	 */
	*why = read_header(buf, len, &hsize);
	err = *why ? 0 : read_pass(m, &ls, buf, len, hsize, 0);
	if (!*why && !err && ls.n > 1)
		qsort(ls.v, ls.n, sizeof(*ls.v), cmp_load);
	if (!*why && !err)
		err = read_pass(m, &ls, buf, len, hsize, 1);
	free(ls.v);
	if (!err)
		err = profile_jitmap_finish(m);
	if (err)
		profile_jitmap_free(m);
	return err;
}
