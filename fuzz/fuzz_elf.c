// SPDX-License-Identifier: MIT
/*
 * fuzz_elf: an ELF object (symbols, PT_LOADs, .eh_frame, PLT relocations,
 * DWARF line tables, inline trees and ranges) through the symbolizer API,
 * the way a report reads the objects a profile names.
 *
 * The input is written to a file in a private directory under $TMPDIR
 * (the symbolizer takes paths) and a fresh symbolizer resolves and
 * decodes a few offsets: the entry point and the first function symbols
 * (found here with libelf, so seeds need no list of addresses), and a
 * few fixed ones.  There is no
 * debug root, so no separate debug file of this machine is ever read.
 */
#include <fcntl.h>
#include <limits.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input_file.h"
#include "symbolize/symbolize.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OFFSETS 24

static const char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	path = input_file_init("fuzz_elf", "object");
	elf_version(EV_CURRENT);
	return 0;
}

/* vaddr -> file offset through the PT_LOADs, as the kernel maps them. */
static int to_offset(Elf *elf, uint64_t vaddr, uint64_t *off)
{
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (i = 0; i < n && i < 64; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -1;
}

/* Offsets worth asking about: the entry point and function symbols. */
static size_t pick_offsets(const uint8_t *data, size_t size, uint64_t *v)
{
	Elf *elf = elf_memory((char *)data, size);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t n = 0;

	if (!elf)
		return 0;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		goto out;
	if (!to_offset(elf, eh.e_entry, &v[n]))
		n++;
	while (n < MAX_OFFSETS && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, count;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		count = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < count && n + 2 <= MAX_OFFSETS; i++) {
			GElf_Sym sym;

			if (!gelf_getsym(d, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    to_offset(elf, sym.st_value, &v[n]))
				continue;
			/* The entry, and inside (inlined code, later lines). */
			v[n + 1] = v[n] + sym.st_size / 2;
			n += 2;
		}
	}
out:
	elf_end(elf);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sym_config cfg = { .debug_root = "/nonexistent-debug-root" };
	struct sym_object obj = { .kind = SYM_OBJ_FILE, .path = path };
	uint64_t off[MAX_OFFSETS + 3];
	struct symbolizer *s;
	uint8_t *copy;
	size_t n, i;

	/* libelf may write to a memory image: give it a copy. */
	copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	n = pick_offsets(copy, size, off);
	free(copy);
	off[n++] = 0;
	off[n++] = 0x1000;
	off[n++] = size ? size - 1 : 0;

	input_file_write(data, size);
	s = symbolizer_new(&cfg);
	if (!s)
		abort();
	for (i = 0; i < n; i++) {
		struct sym_result res;
		const struct sym_code *code;

		sym_resolve(s, &obj, off[i], &res);
		if (sym_code(s, &obj, off[i], &code) == SYM_OK) {
			size_t k;

			/* The listing names call targets. */
			for (k = 0; k < code->ninsns && k < 64; k++) {
				char text[64];

				sym_insn_format(s, &obj, code, k, text,
						sizeof(text));
			}
		}
	}
	symbolizer_free(s);
	return 0;
}
