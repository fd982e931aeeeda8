/*
 * exports - main program of the "exports" test: its work is in
 * libexports.so (see libexports.c), found through its $ORIGIN rpath, so
 * a copy of the two in another directory runs the copy of the library.
 *
 * Usage: exports [MILLISECONDS]     (default 1000, total CPU time)
 *
 * Guarantees:
 *  - main calls exports_run(5) MILLISECONDS/5 times (at least once):
 *    nearly all CPU time is in libexports.so, ~80% in its local
 *    procedure local_work, ~20% in its export exports_run.
 *  - Single-threaded, exits 0.
 */
#include <stdint.h>
#include <stdlib.h>

uint64_t exports_run(unsigned ms); /* libexports.so */

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	long rounds = ms / 5 > 0 ? ms / 5 : 1;

	for (long r = 0; r < rounds; r++)
		exports_run(5);
	return 0;
}
