/* SPDX-License-Identifier: MIT */
/*
 * Profiles written before, added up or compared: --merge OUT (the sum
 * profile_read_sum() makes, written and shown) and --diff BASE NEW
 * (run.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_int.h"
#include "common/profile/merge.h"
#include "common/profile/profile.h"
#include "common/util/error.h"
#include "formats/show.h"
#include "symbolize/symbolize.h"

int run_merge_files(const struct run_config *c, const char *out,
		    const char *const *files, size_t n)
{
	struct profile *sum;
	uint64_t samples = 0;
	size_t i;
	int err;

	err = profile_read_sum(files, n, c->time, run_importer(c), &sum);
	if (!err)
		err = profile_write(sum, out);
	if (err) {
		profile_free(sum);
		return run_fail(c, err);
	}
	for (i = 0; i < sum->nstats; i++)
		samples += sum->stats[i].samples;
	if (n == 1)	/* one file: a conversion (a perf.data) or a copy */
		run_notice(c, "%s read (%llu samples); profile written to %s",
			   files[0], (unsigned long long)samples, out);
	else
		run_notice(c, "%zu profiles added up (%llu samples); profile "
			   "written to %s", n, (unsigned long long)samples,
			   out);
	if (c->display) {
		err = run_show_profile(c, sum, out, 0, stdout);
		if (err) {
			profile_free(sum);
			return run_fail(c, err);
		}
	}
	profile_free(sum);
	return 0;
}

/* The archived files of both profiles (archives made with --archive),
 * unpacked together for the one symbolizer of the diff. */
static int unpack_both(const struct profile *a, const struct profile *b,
		       struct run_unpacked *u, struct sym_config *sc)
{
	struct profile both = { 0 };
	int err;

	both.nfiles = a->nfiles + b->nfiles;
	if (!both.nfiles)
		return run_unpack(&both, u, sc);
	both.files = malloc(both.nfiles * sizeof(*both.files));
	if (!both.files)
		return -PROF_ENOMEM;
	memcpy(both.files, a->files, a->nfiles * sizeof(*both.files));
	memcpy(both.files + a->nfiles, b->files,
	       b->nfiles * sizeof(*both.files));
	err = run_unpack(&both, u, sc);
	free(both.files);	/* the entries are a's and b's */
	return err;
}

/*
 * One side of --diff: FILE, or FILE@RANGE, a window of it (when no file
 * is named so): --diff A.umon@0-10% A.umon@90-100% compares the start
 * of a run with its end.  --time RANGE applies to both sides.
 */
static int read_side(const struct run_config *c, const char *arg,
		     struct profile **out)
{
	const char *at = strrchr(arg, '@');
	char *path;
	int err;

	if (!at || access(arg, F_OK) == 0)
		return profile_read_window(arg, c->time, run_importer(c), out);
	if (c->time)
		return prof_fail(PROF_EINVAL, "'%s': give the window with "
				 "--time or as FILE@RANGE, not both", arg);
	path = strndup(arg, (size_t)(at - arg));
	if (!path)
		return -PROF_ENOMEM;
	err = profile_read_window(path, at + 1, run_importer(c), out);
	free(path);
	return err;
}

int run_diff_files(const struct run_config *c, const char *base,
		   const char *nw)
{
	struct sym_config sc;
	struct report_show s = {
		.opt = c->report,
		.format = c->format == RUN_FORMAT_JSON ? REPORT_SHOW_JSON :
			  REPORT_SHOW_TEXT,
		.vmlinux = c->vmlinux,
		.lookup = &sc,
	};
	struct report_diff_options o = {
		.alpha = c->alpha > 0 ? c->alpha : RUN_DIFF_ALPHA,
		.fail_above = c->fail_above,
		.show_noise = c->verbose,
		.quit_rows = c->report.quit_rows,
		.base_file = base,
		.new_file = nw,
	};
	struct profile *pa = NULL, *pb = NULL;
	struct run_unpacked u = { 0 };
	char **worse = NULL;
	size_t nworse = 0, i;
	int err;

	run_sym_config(c, &sc);
	err = read_side(c, base, &pa);
	if (!err)
		err = read_side(c, nw, &pb);
	if (!err)
		err = unpack_both(pa, pb, &u, &sc);
	if (!err)
		err = report_show_diff(stdout, pa, pb, &s, &o, &worse, &nworse);
	run_unpacked_remove(&u);
	profile_free(pa);
	profile_free(pb);
	for (i = 0; i < nworse; i++)
		fprintf(stderr, "%s: worse by more than %g points: %s\n",
			c->tool->name, c->fail_above, worse[i]);
	for (i = 0; worse && worse[i]; i++)
		free(worse[i]);
	free(worse);
	if (err == -PROF_EINVAL) {
		fprintf(stderr, "%s: cannot compare: %s\n", c->tool->name,
			prof_error(err));
		return RUN_EXIT_FAIL;
	}
	if (err)
		return run_fail(c, err);
	return nworse ? RUN_EXIT_WORSE : 0;
}
