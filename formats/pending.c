/* SPDX-License-Identifier: MIT */
/* Exports being written (removed as each lands in its own file). */
#include "common/util/error.h"
#include "formats/report/report.h"

static int pending(const char *name)
{
	return prof_fail(PROF_EINVAL, "--format %s is not available yet",
			 name);
}

int report_pprof(FILE *f, const struct report *r)
{
	(void)f, (void)r;
	return pending("pprof");
}

int report_flamegraph(FILE *f, const struct report *r)
{
	(void)f, (void)r;
	return pending("flamegraph");
}
