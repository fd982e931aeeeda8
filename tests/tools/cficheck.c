/* SPDX-License-Identifier: MIT */
/*
 * cficheck OBJECT < ADDRESSES: the unwind rules at each link-time address
 * (one hex number a line) as the unwinder reads them from .eh_frame in
 * place (common/unwind/ehframe.c) and as libdwarf reads them, which is
 * the oracle.  Prints each address where they differ, then a total line
 * "N addresses, M with CFI, K differ, F left to libdwarf"; exits 1 when
 * any differ.  Before it, "B bytes of CFI tables held": what the
 * unwinder copied of the object to read them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/unwind/unwind.h"

int main(int argc, char **argv)
{
	struct unw_object *own, *ref;
	char line[128], a[4096], b[4096];
	uint64_t n = 0, cfi = 0, bad = 0, hits, rows;

	if (argc != 2) {
		fprintf(stderr, "usage: cficheck OBJECT < ADDRESSES\n");
		return 2;
	}
	own = unw_object_open(argv[1], -1);
	ref = unw_object_open(argv[1], -1);
	if (!own || !ref)
		return 2;
	unw_object_use_libdwarf(ref);
	while (fgets(line, sizeof(line), stdin)) {
		uint64_t v = strtoull(line, NULL, 16);
		int x = unw_object_row_text(own, v, a, sizeof(a));
		int y = unw_object_row_text(ref, v, b, sizeof(b));

		n++;
		if (x < 0 && y < 0)
			continue;
		cfi++;
		if (x < 0 || y < 0 || strcmp(a, b)) {
			bad++;
			printf("%#" PRIx64 ":\n  own %s\n  ref %s\n", v,
			       x < 0 ? "(none)" : a, y < 0 ? "(none)" : b);
		}
	}
	unw_object_stats(own, &hits, &rows);
	printf("%zu bytes of CFI tables held\n", unw_object_cfi_bytes(own));
	printf("%" PRIu64 " addresses, %" PRIu64 " with CFI, %" PRIu64
	       " differ, %s\n", n, cfi, bad, unw_object_source(own));
	unw_object_free(own);
	unw_object_free(ref);
	return bad ? 1 : 0;
}
