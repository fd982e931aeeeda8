/* SPDX-License-Identifier: MIT */
/*
 * What the options choose, one rule each for every view (report_int.h):
 * -only and -exclude (globs on procedure names), -quit (where a list is
 * cut).  A leaf of formats/report/: it calls nothing else of it.
 */
#include <fnmatch.h>

#include "report_int.h"

int report_name_matches(const char *const *pats, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!fnmatch(pats[i], name, 0))
			return 1;
	return 0;
}

int report_name_filtered(const struct report_options *opt, const char *name)
{
	if (opt->nonly && !report_name_matches(opt->only, opt->nonly, name))
		return 1;
	return opt->nexclude &&
	       report_name_matches(opt->exclude, opt->nexclude, name);
}

int report_quit_reached(size_t quit_rows, double quit_percent, size_t kept,
			const double *percent)
{
	if (quit_rows && kept == quit_rows)
		return 1;
	return quit_percent > 0 && percent && *percent < quit_percent;
}
