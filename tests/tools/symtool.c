// SPDX-License-Identifier: MIT
/*
 * symtool: test driver for symbolize/.  Resolves hex addresses in one
 * object and prints one "FUNCTION\tFILE:LINE" line per frame, innermost
 * first, so that the output can be compared with binutils'
 * "addr2line -i -f -e OBJECT ADDR...".
 *
 *   symtool [options] OBJECT ADDR...
 *     --vaddr            ADDRs are ELF virtual addresses (as addr2line
 *                        takes them), converted to file offsets here
 *     --kallsyms FILE    kernel symbols for OBJECT "[kernel]"
 *     --vmlinux FILE     kernel image for OBJECT "[kernel]"
 *     --debug-root DIR   instead of /usr/lib/debug
 *     --build-id HEX     the build-id the object is expected to have
 *     -a, --addresses    print each ADDR (0x%016x) before its frames
 *     --info             print "# flags= start= module= vaddr= ret="
 *                        after them
 *     --repeat N         resolve everything N times (timing)
 *     --dump-vdso FILE   write this process's vdso image to FILE, exit
 *
 * Without ADDRs they are read from stdin, one a line.
 *
 * OBJECT "[kernel]" means SYM_OBJ_KERNEL, "[vdso]" this process's vdso,
 * "[anon...]", "//anon..." and "[unknown]" SYM_OBJ_ANON.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "symbolize/symbolize.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: symtool [--vaddr] [--kallsyms FILE] [--vmlinux FILE]\n"
		"               [--debug-root DIR] [--build-id HEX] [-a]\n"
		"               [--info] [--repeat N] OBJECT [ADDR...]\n");
	exit(2);
}

struct seg {
	uint64_t off, filesz, vaddr;
};

/* The PT_LOAD headers of path, for --vaddr. */
static struct seg *read_loads(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct seg *v = NULL;
	Elf *elf;
	size_t i, nph;

	*n = 0;
	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_getphdrnum(elf, &nph) == 0 && nph > 0)
		v = calloc(nph, sizeof(*v));
	for (i = 0; v && i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		v[*n].off = ph.p_offset;
		v[*n].filesz = ph.p_filesz;
		v[*n].vaddr = ph.p_vaddr;
		(*n)++;
	}
	elf_end(elf);
	close(fd);
	return v;
}

static int vaddr_to_offset(const struct seg *v, size_t n, uint64_t va,
			   uint64_t *off)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (va >= v[i].vaddr && va - v[i].vaddr < v[i].filesz) {
			*off = va - v[i].vaddr + v[i].off;
			return 0;
		}
	}
	return -1;
}

/* The vdso as a file, so that addr2line can be asked about it too. */
static int dump_vdso(const char *path)
{
	const unsigned char *img = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Phdr *ph;
	size_t size, i;
	FILE *f;

	if (!img)
		return 1;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	ph = (const void *)(img + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_offset + ph[i].p_filesz > size)
			size = ph[i].p_offset + ph[i].p_filesz;
	f = fopen(path, "we");
	if (!f || fwrite(img, 1, size, f) != size) {
		if (f)
			fclose(f);
		return 1;
	}
	return fclose(f) ? 1 : 0;
}

static int parse_hex(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 16);
	return errno || end == s || *end ? -1 : 0;
}

static uint64_t *addrs;
static size_t naddrs, aaddrs;

static void add_addr(const char *s)
{
	uint64_t v;

	if (parse_hex(s, &v)) {
		fprintf(stderr, "symtool: bad address %s\n", s);
		exit(2);
	}
	if (naddrs == aaddrs) {
		uint64_t *n;

		aaddrs = aaddrs ? 2 * aaddrs : 1024;
		n = realloc(addrs, aaddrs * sizeof(*addrs));
		if (!n) {
			fprintf(stderr, "symtool: out of memory\n");
			exit(1);
		}
		addrs = n;
	}
	addrs[naddrs++] = v;
}

static size_t parse_build_id(const char *hex, uint8_t *buf, size_t len)
{
	size_t n = 0;

	while (hex[0] && hex[1] && n < len) {
		unsigned v;

		if (sscanf(hex, "%2x", &v) != 1)
			break;
		buf[n++] = (uint8_t)v;
		hex += 2;
	}
	return n;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "vaddr", no_argument, NULL, 'v' },
		{ "kallsyms", required_argument, NULL, 'k' },
		{ "vmlinux", required_argument, NULL, 'm' },
		{ "debug-root", required_argument, NULL, 'd' },
		{ "build-id", required_argument, NULL, 'b' },
		{ "addresses", no_argument, NULL, 'a' },
		{ "info", no_argument, NULL, 'i' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "dump-vdso", required_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct sym_config cfg = { 0 };
	struct sym_object obj = { 0 };
	struct symbolizer *s;
	uint8_t bid[64];
	bool vaddr = false, addresses = false, info = false;
	long repeat = 1, r;
	struct seg *loads = NULL;
	size_t nloads = 0;
	int c, i;

	while ((c = getopt_long(argc, argv, "a", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			vaddr = true;
			break;
		case 'k':
			cfg.kallsyms = optarg;
			break;
		case 'm':
			cfg.vmlinux = optarg;
			break;
		case 'd':
			cfg.debug_root = optarg;
			break;
		case 'b':
			obj.build_id_len = parse_build_id(optarg, bid,
							  sizeof(bid));
			obj.build_id = bid;
			break;
		case 'a':
			addresses = true;
			break;
		case 'i':
			info = true;
			break;
		case 'r':
			repeat = strtol(optarg, NULL, 10);
			if (repeat < 1)
				usage();
			break;
		case 'V':
			return dump_vdso(optarg);
		default:
			usage();
		}
	}
	if (argc - optind < 1)
		usage();
	obj.path = argv[optind];
	if (!strcmp(obj.path, "[kernel]"))
		obj.kind = SYM_OBJ_KERNEL;
	else if (!strcmp(obj.path, "[vdso]"))
		obj.kind = SYM_OBJ_VDSO;
	else if (!strncmp(obj.path, "[anon", 5) || !strcmp(obj.path, "[unknown]") ||
		 !strncmp(obj.path, "//anon", 6))
		obj.kind = SYM_OBJ_ANON;
	else
		obj.kind = SYM_OBJ_FILE;

	s = symbolizer_new(&cfg);
	if (!s) {
		fprintf(stderr, "symtool: out of memory\n");
		return 1;
	}
	if (vaddr && obj.kind == SYM_OBJ_FILE)
		loads = read_loads(obj.path, &nloads);
	if (argc - optind == 1) {
		/* No ADDRs: read them from stdin, one a line, as addr2line. */
		char *line = NULL;
		size_t cap = 0;
		ssize_t len;

		while ((len = getline(&line, &cap, stdin)) > 0) {
			if (line[len - 1] == '\n')
				line[len - 1] = '\0';
			add_addr(line);
		}
		free(line);
	} else {
		for (i = optind + 1; i < argc; i++)
			add_addr(argv[i]);
	}
	for (r = 0; r < repeat; r++) {
		bool print = r == repeat - 1;
		size_t k;

		for (k = 0; k < naddrs; k++) {
			struct sym_result res;
			uint64_t addr = addrs[k], off = addr;
			unsigned f;
			int ret;

			if (vaddr && obj.kind == SYM_OBJ_FILE &&
			    vaddr_to_offset(loads, nloads, addr, &off)) {
				if (print && addresses)
					printf("0x%016" PRIx64 "\n", addr);
				if (print)
					printf("??\t??:0\n");
				continue;
			}
			ret = sym_resolve(s, &obj, off, &res);
			if (!print)
				continue;
			if (addresses)
				printf("0x%016" PRIx64 "\n", addr);
			for (f = 0; f < res.nframes; f++)
				printf("%s\t%s:%u\n", res.frames[f].function,
				       res.frames[f].file ?
				       res.frames[f].file : "??",
				       res.frames[f].line);
			if (info)
				printf("# flags=0x%x start=0x%" PRIx64
				       " module=%s vaddr=0x%" PRIx64
				       " ret=%d (%s)\n", res.flags,
				       res.symbol_start,
				       res.module ? res.module : "-",
				       res.vaddr, ret, sym_strerror(ret));
		}
	}
	free(addrs);
	free(loads);
	symbolizer_free(s);
	return 0;
}
