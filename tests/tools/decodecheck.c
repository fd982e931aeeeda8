// SPDX-License-Identifier: MIT
/*
 * decodecheck: every instruction sym_code() decodes in the executable
 * sections of an object, one a line, for a comparison with objdump -d
 * (tests/1210-decode-vs-objdump.bats, tests/tools/objdump-compare.py).
 *
 *   decodecheck OBJECT
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

/* Every procedure of [lo, hi); the number of bytes in none. */
static uint64_t walk(struct symbolizer *s, const struct sym_object *so,
		     const struct seg *segs, size_t nsegs, uint64_t lo,
		     uint64_t hi, size_t *nprocs)
{
	uint64_t va = lo, off, skipped = 0;
	char fl[16];

	while (va < hi) {
		const struct sym_code *code;
		uint64_t end = va + 1;
		size_t i;

		if (to_off(segs, nsegs, va, &off) &&
		    sym_code(s, so, off, &code) == SYM_OK) {
			(*nprocs)++;
			for (i = 0; i < code->ninsns; i++) {
				const struct sym_insn *in = &code->insns[i];

				if (in->vaddr < va || in->vaddr >= hi)
					continue;
				printf("%" PRIx64 " %u %s %s\n", in->vaddr,
				       in->len, insn_flag_letters(in->flags, fl),
				       sym_insn_plain_text(s, code, i));
				if (in->vaddr + in->len > end)
					end = in->vaddr + in->len;
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
	size_t nsegs = 0, nph, i, shstrndx, nprocs = 0;
	uint64_t skipped = 0;
	Elf_Scn *scn = NULL;
	Elf *elf;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: decodecheck OBJECT\n");
		return 2;
	}
	so.path = argv[1];
	elf_version(EV_CURRENT);
	fd = open(argv[1], O_RDONLY);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &nph) ||
	    elf_getshdrstrndx(elf, &shstrndx)) {
		fprintf(stderr, "decodecheck: cannot read '%s'\n", argv[1]);
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
				sh.sh_addr + sh.sh_size, &nprocs);
	}
	fprintf(stderr, "procedures=%zu skipped_bytes=%" PRIu64 "\n", nprocs,
		skipped);
	symbolizer_free(s);
	elf_end(elf);
	close(fd);
	free(segs);
	return 0;
}
