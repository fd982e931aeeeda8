/* SPDX-License-Identifier: MIT */
/* The run's messages: each names the tool (run.h). */
#include <stdarg.h>
#include <stdio.h>

#include "run.h"
#include "common/util/error.h"

void run_notice(const struct run_config *c, const char *fmt, ...)
{
	va_list ap;

	if (c->quiet)
		return;
	fprintf(stderr, "%s: ", c->tool->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int run_fail(const struct run_config *c, int err)
{
	fprintf(stderr, "%s: %s\n", c->tool->name, prof_error(err));
	return RUN_EXIT_FAIL;
}
