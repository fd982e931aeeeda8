/* SPDX-License-Identifier: MIT */
/*
 * The output of a run: the profiles' file names (checked writable before
 * anything runs), the profiles written after it with this boot's kernel
 * symbols, the summary or report, and the closing notice.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "run_int.h"
#include "common/collect/collect.h"
#include "common/profile/merge.h"
#include "common/profile/profile.h"
#include "common/util/array.h"
#include "common/util/clock.h"
#include "common/util/error.h"
#include "common/util/outfile.h"
#include "common/util/parse.h"
#include "formats/show.h"
#include "formats/writers.h"
#include "symbolize/symbolize.h"

/* File name for one profile of a run: per process (PID >= 0) or per CPU
 * (CPU >= 0) when the run is SPLIT. */
static char *profile_name(const struct run_config *c, int pid, int cpu,
			  int split)
{
	const char *base = c->output ? c->output : c->tool->default_file;
	char *name = NULL, *full = NULL;
	size_t n = strlen(base);
	int r;

	if (split && pid >= 0) {
		/* umon.out -> umon.1234.out, other names get .1234 */
		if (n > 4 && !strcmp(base + n - 4, ".out"))
			r = asprintf(&name, "%.*s.%d.out", (int)(n - 4), base,
				     pid);
		else
			r = asprintf(&name, "%s.%d", base, pid);
	} else if (split && cpu >= 0) {
		r = asprintf(&name, "%s.%d", base, cpu);
	} else {
		r = asprintf(&name, "%s", base);
	}
	if (r < 0)
		return NULL;
	if (!c->dirname || base[0] == '/')
		return name;
	r = asprintf(&full, "%s/%s", c->dirname, name);
	free(name);
	return r < 0 ? NULL : full;
}

static char *profile_path(const struct run_config *c, const struct profile *p,
			  int split)
{
	return profile_name(c, p->pid, p->cpu, split);
}

/* -exclude-idle on a sampled profile (counting ones have no rows). */
static int drop_idle(struct profile *p)
{
	uint64_t n;

	return report_is_counting(p) ? 0 : profile_drop_idle(p, &n);
}

/* Whether the locale's characters are UTF-8 (LC_ALL, else LC_CTYPE,
 * else LANG; none: the C locale, ASCII). */
static int locale_utf8(void)
{
	static const char *const vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };
	const char *v = NULL;
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(*vars) && !(v && *v); i++)
		v = getenv(vars[i]);
	return v && (strcasestr(v, "UTF-8") || strcasestr(v, "utf8"));
}

/* -timeline's intervals when the command line gives none: for a text
 * report, the cells the terminal's width leaves beside the labels (the
 * width COLUMNS says, else the terminal's out is, if it is one); else
 * the model's default (0). */
static size_t timeline_intervals(const struct run_config *c, FILE *out)
{
	const char *e = getenv("COLUMNS");
	struct winsize ws;
	long cols = 0;

	if (c->format != RUN_FORMAT_TEXT)
		return 0;
	if (!e || parse_int(e, 1, 1000000, &cols))
		cols = 0;
	if (!cols && out && isatty(fileno(out)) &&
	    !ioctl(fileno(out), TIOCGWINSZ, &ws) && ws.ws_col)
		cols = ws.ws_col;
	if (!cols)
		return 0;
	cols -= FMT_TIMELINE_MARGIN;
	if (cols < 10)
		return 10;
	return cols > REPORT_TIMELINE_MAX ? REPORT_TIMELINE_MAX : (size_t)cols;
}

int run_show_profile(const struct run_config *c, const struct profile *p,
		     const char *file, int summary_only, FILE *out)
{
	static const enum report_show_format formats[] = {
		[RUN_FORMAT_TEXT] = REPORT_SHOW_TEXT,
		[RUN_FORMAT_JSON] = REPORT_SHOW_JSON,
		[RUN_FORMAT_FOLDED] = REPORT_SHOW_FOLDED,
		[RUN_FORMAT_PPROF] = REPORT_SHOW_PPROF,
		[RUN_FORMAT_FLAMEGRAPH] = REPORT_SHOW_FLAMEGRAPH,
		[RUN_FORMAT_CALLGRIND] = REPORT_SHOW_CALLGRIND,
		[RUN_FORMAT_CSV] = REPORT_SHOW_CSV,
		[RUN_FORMAT_SPEEDSCOPE] = REPORT_SHOW_SPEEDSCOPE,
		[RUN_FORMAT_FIREFOX] = REPORT_SHOW_FIREFOX,
	};
	struct sym_config sc;
	struct report_show s = {
		.opt = c->report,
		.format = summary_only ? REPORT_SHOW_SUMMARY :
			  formats[c->format],
		.vmlinux = c->vmlinux,
		.lookup = &sc,
	};

	struct run_unpacked u;
	int err;

	run_sym_config(c, &sc);
	s.opt.file = file;
	s.opt.ascii = !locale_utf8();
	if (s.opt.timeline && !s.opt.intervals)
		s.opt.intervals = timeline_intervals(c, out);
	if (c->row_options && !summary_only && report_is_counting(p))
		fprintf(stderr, "%s: note: '%s' is a counting profile: it "
			"has no rows, so row options are ignored\n",
			c->tool->name, file ? file : "");
	/* Speedscope lays each thread out over time; without a timeline
	 * the export holds sums, and says so once. */
	if (c->format == RUN_FORMAT_SPEEDSCOPE && !summary_only &&
	    !report_is_counting(p) && profile_timeline_missing(p))
		run_notice(c, "note: '%s' has no timeline (%s): its speedscope "
			   "profiles are each statistic's call stacks added "
			   "up, all threads, in no time order",
			   file ? file : "the profile",
			   profile_timeline_missing(p));
	err = run_unpack(p, &u, &sc);
	if (err)
		return err;
	err = report_show(out, p, &s);
	run_unpacked_remove(&u);
	return err;
}

const char *const run_format_names[RUN_NFORMATS] = {
	[RUN_FORMAT_TEXT] = "text",
	[RUN_FORMAT_JSON] = "json",
	[RUN_FORMAT_FOLDED] = "folded",
	[RUN_FORMAT_PPROF] = "pprof",
	[RUN_FORMAT_FLAMEGRAPH] = "flamegraph",
	[RUN_FORMAT_CALLGRIND] = "callgrind",
	[RUN_FORMAT_CSV] = "csv",
	[RUN_FORMAT_SPEEDSCOPE] = "speedscope",
	[RUN_FORMAT_FIREFOX] = "firefox",
};

int run_format_by_name(const char *name)
{
	int i;

	for (i = 0; i < RUN_NFORMATS; i++)
		if (!strcmp(name, run_format_names[i]))
			return i;
	return -1;
}

int run_format_is_export(int format)
{
	return format == RUN_FORMAT_FOLDED || format == RUN_FORMAT_PPROF ||
	       format == RUN_FORMAT_FLAMEGRAPH ||
	       format == RUN_FORMAT_CALLGRIND ||
	       format == RUN_FORMAT_SPEEDSCOPE ||
	       format == RUN_FORMAT_FIREFOX;
}

/*
 * -i FILE: the report on stdout, or in -report-file (written whole or
 * not at all).  pprof is binary: never on a terminal.  Several -i: the
 * report of their sum.
 */
int run_report_file(const struct run_config *c, const char *const *files,
		    size_t nfiles)
{
	struct run_config rc = *c;
	struct profile *p;
	struct outfile rf;
	FILE *out = stdout;
	char *file;
	int err;

	if (!c->report_file && c->format == RUN_FORMAT_PPROF &&
	    isatty(STDOUT_FILENO)) {
		fprintf(stderr, "%s: --format pprof is binary: redirect "
			"stdout to a file or give -report-file FILE\n",
			c->tool->name);
		return RUN_EXIT_FAIL;
	}
	file = profile_sum_name(files, nfiles);
	if (!file)
		return run_fail(c, prof_fail(PROF_ENOMEM, "out of memory"));
	err = profile_read_sum(files, nfiles, c->time, run_importer(c), &p);
	if (err) {
		free(file);
		return run_fail(c, err);
	}
	if (c->report_file) {
		err = outfile_open(&rf, c->report_file);
		out = err ? NULL : outfile_stream(&rf);
		if (!err && !out) {
			outfile_abort(&rf);
			err = -PROF_ENOMEM;
		}
		if (err) {
			profile_free(p);
			free(file);
			return run_fail(c, err);
		}
	}
	if (c->exclude_idle) {
		err = drop_idle(p);
		if (err) {
			if (c->report_file)
				outfile_abort(&rf);
			profile_free(p);
			free(file);
			return run_fail(c, err);
		}
	}
	/* -ra of a report is answered from the profile's stacks. */
	rc.report.ra = c->ra;
	rc.report.nra = c->nra;
	err = run_show_profile(&rc, p, file, 0, out);
	if (c->report_file) {
		if (err)
			outfile_abort(&rf);
		else
			err = outfile_commit(&rf);
	}
	profile_free(p);
	free(file);
	return err ? run_fail(c, err) : 0;
}

/* The profile every run starts from: tool, host and times (started at
 * t0 on the monotonic clock, t0_wall on the wall clock). */
struct profile *run_new_template(const struct run_config *c, uint64_t t0,
				 uint64_t t0_wall)
{
	struct profile *tpl = profile_new();

	if (!tpl)
		return NULL;
	tpl->tool = strdup(c->tool->name);
	/* the one version (VERSION, as --version and the man pages) */
	tpl->tool_version = strdup(PROF_VERSION);
	if (!tpl->tool || !tpl->tool_version) {
		profile_free(tpl);
		return NULL;
	}
	profile_identify_host(tpl);
	tpl->start_time_ns = t0_wall;
	tpl->duration_ns = prof_clock_ns(CLOCK_MONOTONIC) - t0;
	return tpl;
}

/* The files a profile was meant to carry and does not (a container's
 * file over the caps, or changed since it was mapped): its rows are then
 * addresses. */
static void left_out(const struct run_config *c, const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nfiles_left_out; i++)
		run_notice(c, "%s: its rows will be addresses",
			   p->files_left_out[i]);
}

/* Write each profile of the run; *first: the first one's path. */
static int write_profiles(struct run *r, struct profile **ps, int n,
			  int split, char **first)
{
	int i, err;

	for (i = 0; i < n; i++) {
		char *path;

		if (r->sym) {
			err = run_embed_kernel_symbols(ps[i], r->sym);
			if (err)
				return err;
		}
		path = profile_path(r->cfg, ps[i], split);
		if (!path)
			return -PROF_ENOMEM;
		left_out(r->cfg, ps[i]);
		err = profile_write(ps[i], path);
		if (err) {
			free(path);
			return err;
		}
		if (!*first)
			*first = path;
		else
			free(path);
	}
	return 0;
}

/*
 * -display: each profile's report.  stdout belongs to the program that
 * just ran (it may be redirected to its data): the report goes to
 * stderr, or to -report-file, written whole or not at all.
 */
static int show_reports(const struct run_config *c, struct profile **ps,
			int n, int split)
{
	FILE *out = stderr;
	struct outfile rf;
	int i, err = 0;

	if (c->report_file) {
		err = outfile_open(&rf, c->report_file);
		if (err)
			return err;
		out = outfile_stream(&rf);
		if (!out) {
			outfile_abort(&rf);
			return -PROF_ENOMEM;
		}
	}
	for (i = 0; i < n && !err; i++) {
		char *path = profile_path(c, ps[i], split);

		err = path ? run_show_profile(c, ps[i], path, 0, out) :
			     -PROF_ENOMEM;
		free(path);
	}
	if (c->report_file) {
		if (err)
			outfile_abort(&rf);
		else
			err = outfile_commit(&rf);
	}
	return err;
}

/* The closing lines: what was sampled or counted, and where it went. */
static void closing_notice(const struct run *r, const struct profile *tpl,
			   int n, const char *first)
{
	const struct run_config *c = r->cfg;
	uint64_t samples = 0, lost = 0;
	int offcpu = 0;
	char names[256];
	size_t k, used = 0;

	for (k = 0; k < r->nstats; k++) {
		samples += collector_samples(r->col, (uint32_t)k);
		lost += collector_lost_total(r->col, (uint32_t)k);
	}
	/* (The sim engine has no perf specs.) */
	for (k = 0; r->specs && k < r->nstats; k++)
		offcpu |= r->specs[k].offcpu != PERF_OFFCPU_NONE;
	names[0] = '\0';
	for (k = 0; k < r->nstats; k++) {
		int w = snprintf(names + used, sizeof(names) - used, "%s%s",
				 k ? ", " : "", tpl->stats[k].name);
		if (w < 0 || (size_t)w >= sizeof(names) - used)
			break;
		used += (size_t)w;
	}
	if (c->count)
		run_notice(c, "counted %s; profile written to %s", names,
			   first);
	else if (c->engine == RUN_ENGINE_SIM)
		run_notice(c, "%" PRIu64 " events counted (%s, simulated by "
			   "valgrind); %d profile%s written (%s%s)", samples,
			   names, n, n == 1 ? "" : "s",
			   first ? first : "none", n > 1 ? ", ..." : "");
	else if (n == 1)
		run_notice(c, "%" PRIu64 " samples%s (%s), %" PRIu64 " lost; "
			   "profile written to %s", samples, offcpu ?
			   " and off-CPU intervals" : "", names, lost, first);
	else
		run_notice(c, "%" PRIu64 " samples%s (%s), %" PRIu64 " lost; "
			   "%d profiles written (%s%s)", samples, offcpu ?
			   " and off-CPU intervals" : "", names, lost, n,
			   first ? first : "none", n > 1 ? ", ..." : "");
	if (c->start_after && r->fired_ns < 0)
		run_notice(c, "'%s' never occurred %llu times: nothing was %s",
			   c->start_after_stat, c->start_after_n,
			   c->count ? "counted" : "sampled");
	/* Off-CPU records come at every switch: -F does not change
	 * their rate. */
	if (lost && offcpu)
		run_notice(c, "the kernel dropped %" PRIu64 " records: the "
			   "off-CPU times may be low (tasks switched faster "
			   "than they were read)%s", lost,
			   r->nstats > 1 ? "; for sampled statistics, lower "
			   "the rate with -F" : "");
	else if (lost)
		run_notice(c, "the kernel dropped %" PRIu64 " samples: lower "
			   "the rate with -F", lost);
}

void run_free_profiles(struct profile **ps, int n)
{
	int i;

	for (i = 0; i < n; i++)
		profile_free(ps[i]);
	free(ps);
}

int run_write_and_report(struct run *r, const struct profile *tpl,
			 struct profile **ps, int n)
{
	struct run_config *c = r->cfg;
	int err = 0;
	int split = c->pids || c->cpus == RUN_CPUS_EACH;
	char *first = NULL;

	/* -one: the file holds a single CPU; say which. */
	if (c->cpus == RUN_CPUS_ONE && n == 1)
		ps[0]->cpu = r->one_cpu;
	if (!err)
		err = write_profiles(r, ps, n, split, &first);
	/* -exclude-idle: the reports, not the files, leave idle out. */
	for (int i = 0; !err && c->exclude_idle && i < n; i++)
		err = drop_idle(ps[i]);
	/* A single merged profile is summarized; split runs list their
	 * files only. */
	if (!err && !c->quiet && n == 1 && !c->display)
		run_show_profile(c, ps[0], first, 1, stderr);
	if (!err && c->display)
		err = show_reports(c, ps, n, split);
	if (!err && !c->quiet)
		closing_notice(r, tpl, n, first);
	free(first);
	run_free_profiles(ps, n);
	return err;
}

/* The kernel's ceiling for pid_max (PID_MAX_LIMIT on 64-bit): no pid has
 * more digits. */
#define PID_LONGEST 4194304

/*
 * Every file a run writes must be writable before anything runs: finding
 * out after a long run, with the program's status lost, is the worst time.
 * The pids and CPUs that name the files of a split run are not known yet:
 * the longest such name is checked.
 */
int run_check_outputs(const struct run_config *c)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int split = c->pids || c->cpus == RUN_CPUS_EACH;
	char *path;
	int err;

	path = profile_name(c, c->pids ? PID_LONGEST : -1,
			    c->cpus == RUN_CPUS_EACH && ncpu > 0 ?
			    (int)(ncpu - 1) : -1, split);
	if (!path)
		return prof_fail(PROF_ENOMEM, "out of memory");
	err = outfile_check(path);
	free(path);
	if (err && split) {
		char *why = strdup(prof_error(err));

		/* The name with the made-up pid or CPU needs saying. */
		if (why) {
			err = prof_fail(PROF_EIO, "%s (the longest per-%s "
					"file name)", why,
					c->pids ? "process" : "CPU");
			free(why);
		}
	}
	if (!err && c->report_file)
		err = outfile_check(c->report_file);
	return err;
}
