// SPDX-License-Identifier: MIT
/*
 * fuzz_kallsyms: a kernel symbol list in /proc/kallsyms form ("ADDR TYPE
 * NAME [MODULE]" lines; the module column is the kernel's module list as
 * kallsyms shows it), read through the symbolizer's kallsyms override the
 * way kprofile reads it, then kernel and module addresses resolved.
 *
 * The input is written to a file in a private directory under $TMPDIR.
 * The addresses asked about are those the lines start with (and their
 * neighbours), so seeds need no separate list.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input_file.h"
#include "symbolize/symbolize.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ADDRS 16

static const char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	path = input_file_init("fuzz_kallsyms", "kallsyms");
	return 0;
}

/* The hexadecimal number each line starts with. */
static size_t line_addrs(const uint8_t *data, size_t size, uint64_t *v)
{
	size_t n = 0, i = 0;

	while (i < size && n < MAX_ADDRS) {
		uint64_t a = 0;
		int digits = 0;

		for (; i < size && digits < 16; i++, digits++) {
			unsigned c = data[i];

			if (c >= '0' && c <= '9')
				a = a << 4 | (c - '0');
			else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
				a = a << 4 | ((c | 0x20) - 'a' + 10);
			else
				break;
		}
		if (digits)
			v[n++] = a;
		while (i < size && data[i] != '\n')
			i++;
		i++;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const patterns[] = { "*lock*", "[a-f]*", "?" };
	struct sym_config cfg = {
		.debug_root = "/nonexistent-debug-root",
		.kallsyms = path,
	};
	uint64_t addr[MAX_ADDRS];
	struct symbolizer *s;
	struct sym_ksym k, *all;
	size_t n, i;
	int got;

	n = line_addrs(data, size, addr);
	input_file_write(data, size);
	s = symbolizer_new(&cfg);
	if (!s)
		abort();
	sym_kernel_symbol_by_name(s, "_text", &k);
	got = sym_kernel_matching(s, patterns, 3, &all);
	if (got > 0)
		free(all);
	for (i = 0; i < n; i++) {
		static const int64_t delta[] = { 0, 1, -1, 0x10000 };
		size_t d;

		for (d = 0; d < sizeof(delta) / sizeof(delta[0]); d++) {
			uint64_t a = addr[i] + (uint64_t)delta[d];
			struct sym_object kobj = { .kind = SYM_OBJ_KERNEL };
			struct sym_result res;

			if (sym_kernel_symbol(s, a, &k) == SYM_OK && k.module) {
				struct sym_object mobj = {
					.kind = SYM_OBJ_MODULE,
					.path = k.module,
				};

				sym_resolve(s, &mobj, a, &res);
				sym_kernel_symbol_by_name(s, k.name, &k);
			}
			sym_resolve(s, &kobj, a, &res);
		}
	}
	symbolizer_free(s);
	return 0;
}
