// SPDX-License-Identifier: MIT
/*
 * decodecheck: every instruction sym_code() decodes in the executable
 * sections of an object, one a line, for a comparison with objdump -d
 * (tests/1210-decode-vs-objdump.bats, tests/tools/objdump-compare.py).
 *
 *   decodecheck [--oom] OBJECT
 *
 * Each section is walked procedure by procedure: sym_code() at the
 * section's start, then at the end of the procedure it gave, and so on;
 * bytes in no procedure (padding between functions) are stepped over.
 * Output (stdout):
 *
 *   VADDR LEN FLAGS TEXT
 *
 * VADDR in hexadecimal without 0x, LEN in bytes, FLAGS as blockcheck
 * --dump writes them (d data, u unknown instruction, ...).  Last, on
 * stderr, "procedures=N skipped_bytes=M".  Exit status: 0, 2 when the
 * object cannot be read.
 *
 * --oom: instead, each procedure is decoded again as many times as
 * decoding it allocates memory, in a symbolizer of its own that found
 * it (sym_code_extent()) but did not decode it, with the k-th allocation
 * of the library's code (malloc, calloc, realloc: the link wraps them)
 * failing on the k-th time; decoding must then say SYM_ENOMEM.  Output:
 * "VADDR: lost out of memory at allocation K of N (sym_code() said S)"
 * for each one that does not, then "procedures=N allocations=M" on
 * stderr; exit status 1 when any was lost.
 */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/symbolize.h"
#include "insn_flags.h"

struct seg {
	uint64_t vaddr, off, filesz;
};

/* --oom: the allocation that fails (0: none), counted from 1 when set,
 * and whether it was made. */
static size_t fail_at, nallocs;
static bool failed;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

static bool fail_now(void)
{
	if (!fail_at || ++nallocs != fail_at)
		return false;
	failed = true;
	return true;
}

void *__wrap_malloc(size_t n)
{
	return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __real_realloc(p, n);
}

/*
 * --oom on the procedure at off: decoded with allocation 1, 2, ...
 * failing until one decoding makes no allocation fail.  The number of
 * allocations it makes; *lost: whether one failed without SYM_ENOMEM.
 */
static size_t oom_decode(const struct sym_object *so, uint64_t va,
			 uint64_t off, bool *lost)
{
	size_t k;

	for (k = 1;; k++) {
		struct symbolizer *t = symbolizer_new(NULL);
		const struct sym_code *code;
		int ret;

		if (!t || sym_code_extent(t, so, off, &code) != SYM_OK) {
			symbolizer_free(t);
			return 0;
		}
		nallocs = 0;
		failed = false;
		fail_at = k;
		ret = sym_code(t, so, off, &code);
		fail_at = 0;
		symbolizer_free(t);
		if (!failed)
			return k - 1;
		if (ret != SYM_ENOMEM) {
			printf("%" PRIx64 ": lost out of memory at allocation "
			       "%zu (sym_code() said %s)\n", va, k,
			       sym_strerror(ret));
			*lost = true;
		}
	}
}

static bool to_off(const struct seg *segs, size_t n, uint64_t va,
		   uint64_t *off)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (va >= segs[i].vaddr && va - segs[i].vaddr < segs[i].filesz) {
			*off = va - segs[i].vaddr + segs[i].off;
			return true;
		}
	return false;
}

/* What a walk does with each procedure (--oom), and what it found. */
struct walk {
	bool oom, lost;
	size_t nprocs, nallocs;
};

/* Every procedure of [lo, hi); the number of bytes in none. */
static uint64_t walk(struct symbolizer *s, const struct sym_object *so,
		     const struct seg *segs, size_t nsegs, uint64_t lo,
		     uint64_t hi, struct walk *w)
{
	uint64_t va = lo, off, skipped = 0;
	char fl[16];

	while (va < hi) {
		const struct sym_code *code;
		uint64_t end = va + 1;
		size_t i;

		if (to_off(segs, nsegs, va, &off) &&
		    sym_code(s, so, off, &code) == SYM_OK) {
			w->nprocs++;
			if (w->oom)
				w->nallocs += oom_decode(so, va, off, &w->lost);
			for (i = 0; i < code->ninsns; i++) {
				const struct sym_insn *in = &code->insns[i];
				uint64_t iva = sym_insn_vaddr(code, in);

				if (iva < va || iva >= hi)
					continue;
				if (!w->oom)
					printf("%" PRIx64 " %u %s %s\n",
					       iva, in->len,
					       insn_flag_letters(in->flags,
								 fl),
					       sym_insn_plain_text(s, code,
								   i));
				if (iva + in->len > end)
					end = iva + in->len;
			}
		} else {
			skipped++;
		}
		va = end;
	}
	return skipped;
}

int main(int argc, char **argv)
{
	struct symbolizer *s;
	struct sym_object so = { .kind = SYM_OBJ_FILE };
	struct seg *segs = NULL;
	size_t nsegs = 0, nph, i, shstrndx;
	uint64_t skipped = 0;
	struct walk w = { 0 };
	Elf_Scn *scn = NULL;
	Elf *elf;
	int fd;

	w.oom = argc == 3 && !strcmp(argv[1], "--oom");
	if (argc != 2 + w.oom) {
		fprintf(stderr, "usage: decodecheck [--oom] OBJECT\n");
		return 2;
	}
	so.path = argv[1 + w.oom];
	elf_version(EV_CURRENT);
	fd = open(so.path, O_RDONLY);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &nph) ||
	    elf_getshdrstrndx(elf, &shstrndx)) {
		fprintf(stderr, "decodecheck: cannot read '%s'\n", so.path);
		return 2;
	}
	segs = calloc(nph ? nph : 1, sizeof(*segs));
	for (i = 0; segs && i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			segs[nsegs++] = (struct seg){
				ph.p_vaddr, ph.p_offset, ph.p_filesz,
			};
	}
	s = symbolizer_new(NULL);
	if (!segs || !s) {
		fprintf(stderr, "decodecheck: out of memory\n");
		return 2;
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		skipped += walk(s, &so, segs, nsegs, sh.sh_addr,
				sh.sh_addr + sh.sh_size, &w);
	}
	if (w.oom)
		fprintf(stderr, "procedures=%zu allocations=%zu\n", w.nprocs,
			w.nallocs);
	else
		fprintf(stderr, "procedures=%zu skipped_bytes=%" PRIu64 "\n",
			w.nprocs, skipped);
	symbolizer_free(s);
	elf_end(elf);
	close(fd);
	free(segs);
	return w.lost;
}
