/* SPDX-License-Identifier: MIT */
/*
 * mkcallstacks - write a profile with call stacks given on the command
 * line, over the functions of a real ELF file, for tests of the
 * call-stack views of a report (mkstacks makes fixed ones for the file
 * format): the stacks are known exactly, no sampling involved.
 *
 *   mkcallstacks OUT ELF STACK...
 *
 * STACK is COUNT:END:FRAME[,FRAME...], leaf first.  END is complete, fp,
 * dump, nocfi, nomap, depth, bad or kernel (enum prof_stack_end), or
 * nostack: COUNT samples at the first FRAME without a stack.  FRAME is
 * SYMBOL (its first byte + 1: inside it), SYMBOL+N (bytes), or
 * SYMBOL@inline (the first address of SYMBOL whose DWARF inline chain
 * has more than one function).  Each sample is one cpu-clock sample of
 * period 1000000.  Exit status 0, or 1 with a message.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/profile/profile.h"
#include "common/util/error.h"
#include "symbolize/symbolize.h"

#define PERIOD 1000000

static const char *const ends[] = {
	"complete", "fp", "dump", "nocfi", "nomap", "depth", "bad", "kernel",
};

struct elf_file {
	Elf *elf;
	int fd;
	const char *path;
};

/* The file offset of vaddr (the space profile offsets are in). */
static int vaddr_offset(Elf *elf, uint64_t vaddr, uint64_t *off)
{
	size_t n, i;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_memsz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -1;
}

/* SYMBOL's value and size from the symbol table. */
static int find_symbol(Elf *elf, const char *name, uint64_t *value,
		       uint64_t *size)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *sn;

			if (!gelf_getsym(d, (int)i, &s))
				continue;
			sn = elf_strptr(elf, sh.sh_link, s.st_name);
			if (sn && !strcmp(sn, name) &&
			    GELF_ST_TYPE(s.st_info) == STT_FUNC) {
				*value = s.st_value;
				*size = s.st_size;
				return 0;
			}
		}
	}
	return -1;
}

static int frame_offset(struct elf_file *ef, struct symbolizer *sym,
			const char *spec, uint64_t *off)
{
	char name[256];
	const char *plus = strchr(spec, '+'), *at = strchr(spec, '@');
	size_t len = plus ? (size_t)(plus - spec) :
		     at ? (size_t)(at - spec) : strlen(spec);
	uint64_t value, size, start, o;

	snprintf(name, sizeof(name), "%.*s", (int)len, spec);
	if (find_symbol(ef->elf, name, &value, &size) ||
	    vaddr_offset(ef->elf, value, &start)) {
		fprintf(stderr, "mkcallstacks: no function '%s' in '%s'\n", name,
			ef->path);
		return -1;
	}
	if (!at) {
		*off = start + (plus ? strtoull(plus + 1, NULL, 0) : 1);
		return 0;
	}
	for (o = start; o < start + size; o++) {
		struct sym_object so = { .kind = SYM_OBJ_FILE,
					 .path = ef->path };
		struct sym_result res;

		memset(&res, 0, sizeof(res));
		if (sym_resolve(sym, &so, o, &res) == SYM_OK &&
		    res.nframes > 1) {
			*off = o;
			return 0;
		}
	}
	fprintf(stderr, "mkcallstacks: nothing is inlined into '%s'\n", name);
	return -1;
}

static int add_stack(struct profile *p, struct elf_file *ef,
		     struct symbolizer *sym, char *spec)
{
	char *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	char *save = NULL, *tok;
	uint32_t frames[64], n = 0, i;
	unsigned long long count;
	int end = -1, e;

	if (!c2)
		return -1;
	*c1 = *c2 = '\0';
	count = strtoull(spec, NULL, 10);
	for (e = 0; e < (int)(sizeof(ends) / sizeof(ends[0])); e++)
		if (!strcmp(c1 + 1, ends[e]))
			end = e;
	if (end < 0 && strcmp(c1 + 1, "nostack"))
		return -1;
	for (tok = strtok_r(c2 + 1, ",", &save); tok && n < 64;
	     tok = strtok_r(NULL, ",", &save)) {
		struct prof_frame f = { .obj = 0 };
		int idx = -1;

		if (frame_offset(ef, sym, tok, &f.offset))
			return -1;
		for (i = 0; i < p->nframes; i++)
			if (p->frames[i].offset == f.offset)
				idx = (int)i;
		if (idx < 0)
			idx = profile_add_frame(p, &f);
		if (idx < 0)
			return -1;
		frames[n++] = (uint32_t)idx;
	}
	if (!n)
		return -1;
	{
		struct prof_count pc = {
			.obj = 0, .stat = 0,
			.offset = p->frames[frames[0]].offset,
			.samples = count, .weight = count * PERIOD,
		};

		if (profile_add_count(p, &pc) < 0)
			return -1;
	}
	if (end < 0)
		return 0;
	{
		struct prof_stack_count sc = {
			.stat = 0, .samples = count,
			.weight = count * PERIOD,
		};
		int k = -1;

		/* Stacks are unique: the same frames and end is one. */
		for (i = 0; i < p->nstacks && k < 0; i++) {
			const struct prof_stack *st = &p->stacks[i];

			if (st->nframes == n && st->end == (uint32_t)end &&
			    !memcmp(&p->stack_frames[st->first], frames,
				    n * sizeof(*frames)))
				k = (int)i;
		}
		if (k < 0)
			k = profile_add_stack(p, frames, n,
					      (enum prof_stack_end)end);
		if (k < 0)
			return -1;
		sc.stack = (uint32_t)k;
		return profile_add_stack_count(p, &sc) < 0 ? -1 : 0;
	}
}

/* Counts at one address from several STACKs are one count. */
static void merge_counts(struct profile *p)
{
	size_t i, k = 0;

	profile_sort_counts(p);
	for (i = 0; i < p->ncounts; i++) {
		if (k && p->counts[k - 1].offset == p->counts[i].offset) {
			p->counts[k - 1].samples += p->counts[i].samples;
			p->counts[k - 1].weight += p->counts[i].weight;
		} else {
			p->counts[k++] = p->counts[i];
		}
	}
	p->ncounts = k;
}

int main(int argc, char **argv)
{
	struct prof_stat st = {
		.name = "cpu-clock", .requested = "cpu-clock", .type = 1,
		.modes = 1, .period = PERIOD,
	};
	struct prof_object o = { .kind = PROF_OBJ_FILE };
	struct elf_file ef = { .fd = -1 };
	struct symbolizer *sym;
	struct profile *p;
	char *argv0[] = { NULL, NULL };
	int i, err;

	if (argc < 4) {
		fprintf(stderr, "usage: mkcallstacks OUT ELF STACK...\n");
		return 1;
	}
	elf_version(EV_CURRENT);
	ef.path = argv[2];
	ef.fd = open(ef.path, O_RDONLY);
	ef.elf = ef.fd >= 0 ? elf_begin(ef.fd, ELF_C_READ, NULL) : NULL;
	p = profile_new();
	sym = symbolizer_new(NULL);
	if (!ef.elf || !p || !sym) {
		fprintf(stderr, "mkcallstacks: cannot read '%s'\n", ef.path);
		return 1;
	}
	p->tool = strdup("uprofile");
	p->exit_status = 0;
	p->duration_ns = 1000000000;
	argv0[0] = argv[2];
	profile_set_argv(p, 1, argv0);
	o.path = argv[2];
	o.start = 0x400000;
	o.end = 0x500000;
	if (profile_add_object(p, &o) < 0 || profile_add_stat(p, &st) < 0)
		return 1;
	for (i = 3; i < argc; i++) {
		char *spec = strdup(argv[i]);

		if (!spec || add_stack(p, &ef, sym, spec)) {
			fprintf(stderr, "mkcallstacks: bad stack '%s'\n", argv[i]);
			return 1;
		}
		free(spec);
	}
	merge_counts(p);
	profile_sort_stack_counts(p);
	for (i = 0; i < (int)p->ncounts; i++)
		p->stats[0].samples += p->counts[i].samples;
	if (p->nstacks)
		p->call_graph = PROF_CG_FP;
	err = profile_write(p, argv[1]);
	if (err) {
		fprintf(stderr, "mkcallstacks: %s\n", prof_error(err));
		return 1;
	}
	profile_free(p);
	symbolizer_free(sym);
	elf_end(ef.elf);
	close(ef.fd);
	return 0;
}
