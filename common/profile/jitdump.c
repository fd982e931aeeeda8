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
 *     2 DEBUG_INFO, 4 UNWINDING_INFO: skipped; 3 CODE_CLOSE: the end
 *
 * The file is the runtime's: every size is checked against the bytes
 * there are, and a record cut short (a runtime killed while writing)
 * ends the reading.  Records are taken in file order, so where code is
 * reused the name written last wins, as with a perf map's lines; a move
 * is named by the last load of its code index in the file (runtimes
 * give each piece of code an index of its own).
 */
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "profile.h"

#define JITDUMP_MAGIC 0x4A695444u
#define JITDUMP_HEADER 40u
#define JITDUMP_RECORD 16u

enum {
	JIT_CODE_LOAD = 0,
	JIT_CODE_MOVE = 1,
	JIT_CODE_CLOSE = 3,
};

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A code load's index and where its name is, for the moves. */
struct load {
	uint64_t index;
	const char *name;
	size_t nlen;
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

/* [addr, addr + size) as an entry, or counted as bad. */
static int add_code(struct prof_jitmap *m, uint64_t addr, uint64_t size,
		    const char *name, size_t nlen)
{
	if (!size || addr > UINT64_MAX - size || !nlen) {
		m->bad_lines++;
		m->last_line++;
		return 0;
	}
	return profile_jitmap_add(m, addr, addr + size, name, nlen);
}

int profile_jitdump_parse(struct prof_jitmap *m, const unsigned char *buf,
			  size_t len, const char **why)
{
	struct load *loads = NULL;
	size_t nloads = 0, alloc = 0, off, pass;
	uint32_t hsize;

	memset(m, 0, sizeof(*m));
	*why = NULL;
	if (len < JITDUMP_HEADER || rd32(buf) != JITDUMP_MAGIC) {
		*why = len >= 4 && rd32(buf) == __builtin_bswap32(JITDUMP_MAGIC) ?
		       "is written in the other byte order" :
		       "is not a jitdump";
		goto done;
	}
	if (rd32(buf + 4) != 1) {
		*why = "is of a version other than 1";
		goto done;
	}
	hsize = rd32(buf + 8);
	if (hsize < JITDUMP_HEADER || hsize > len) {
		*why = "has a header of a wrong size";
		goto done;
	}
	/*
	 * Two passes: the loads' names by index first (a move names what
	 * a load of its index named), then the entries in file order.
	 */
	for (pass = 0; pass < 2; pass++) {
		for (off = hsize; len - off >= JITDUMP_RECORD;) {
			const unsigned char *r = buf + off;
			uint32_t id = rd32(r), size = rd32(r + 4);

			if (size < JITDUMP_RECORD || size > len - off)
				break;	/* cut short: the end */
			off += size;
			if (id == JIT_CODE_CLOSE)
				break;
			if (id == JIT_CODE_LOAD) {
				const char *name = (const char *)r + 56;
				const char *nul = size > 56 ?
					memchr(name, '\0', size - 56) : NULL;
				size_t nlen = nul ? (size_t)(nul - name) : 0;

				/* the name ends inside, the code fits */
				if (!nul || rd64(r + 40) > size - 56 - nlen - 1) {
					if (pass) {
						m->bad_lines++;
						m->last_line++;
					}
					continue;
				}
				if (!pass) {
					if (ALLOC_GROW(loads, nloads + 1,
						       alloc))
						goto oom;
					loads[nloads++] = (struct load){
						.index = rd64(r + 48),
						.name = name, .nlen = nlen };
				} else if (add_code(m, rd64(r + 32),
						    rd64(r + 40), name, nlen)) {
					goto oom;
				}
			} else if (id == JIT_CODE_MOVE && pass) {
				const struct load *l = size < 64 ? NULL :
					find_load(loads, nloads,
						  rd64(r + 56));

				if (!l) {
					m->bad_lines++;
					m->last_line++;
				} else if (add_code(m, rd64(r + 40),
						    rd64(r + 48), l->name,
						    l->nlen)) {
					goto oom;
				}
			}
		}
		if (!pass && nloads > 1)
			qsort(loads, nloads, sizeof(*loads), cmp_load);
	}
done:
	free(loads);
	if (profile_jitmap_finish(m))
		goto oom_freed;
	return 0;
oom:
	free(loads);
oom_freed:
	profile_jitmap_free(m);
	return -PROF_ENOMEM;
}
