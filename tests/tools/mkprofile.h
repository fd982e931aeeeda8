/* SPDX-License-Identifier: MIT */
/*
 * For the test tools that drive a collector by hand (mkswitches,
 * mkrename): build its one profile from template tpl, write it to out,
 * and free them all.  0, or 1 after a message naming tool.
 */
#ifndef TESTS_TOOLS_MKPROFILE_H
#define TESTS_TOOLS_MKPROFILE_H

#include <stdio.h>
#include <stdlib.h>

#include "common/collect/collect.h"
#include "common/profile/profile.h"
#include "common/util/error.h"

static inline int mk_write_one(const char *tool, struct collector *c,
			       struct profile *tpl, const char *out)
{
	struct profile **ps = NULL;
	int n = collector_build(c, tpl, &ps), err;

	err = n != 1 ? (n < 0 ? n : -PROF_EFORMAT) : profile_write(ps[0], out);
	if (n > 0)
		profile_free(ps[0]);
	free(ps);
	profile_free(tpl);
	collector_free(c);
	if (err) {
		fprintf(stderr, "%s: %s\n", tool, prof_error(err));
		return 1;
	}
	return 0;
}

#endif
