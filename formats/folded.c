/* SPDX-License-Identifier: MIT */
/*
 * --format folded: the call stacks as "frame;frame;frame count" lines,
 * root first, one per distinct symbolized stack, the interchange format
 * flame-graph tools read (FlameGraph's flamegraph.pl, inferno,
 * speedscope).  Layout only: the lines come from the report model.
 */
#include <inttypes.h>
#include <stdio.h>

#include "common/util/error.h"
#include "escape.h"
#include "formats/report/report.h"
#include "writers.h"

int fmt_folded(FILE *out, const struct report *r)
{
	FILE *f = esc_visible_stream(out);
	size_t i;
	int err = 0;

	if (!f)
		return -PROF_ENOMEM;
	for (i = 0; r->samples && i < r->samples->nfolded; i++)
		fprintf(f, "%s %" PRIu64 "\n", r->samples->folded[i].line,
			r->samples->folded[i].samples);
	if (ferror(f))
		err = -PROF_EIO;
	if (fclose(f) && !err)
		err = -PROF_EIO;
	return err;
}
