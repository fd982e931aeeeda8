/* SPDX-License-Identifier: MIT */
/*
 * The run layer: what one invocation of a front end does once its options
 * are parsed.  A struct run_config says everything about the run (filled
 * in by common/cli/, or by any other caller: nothing here knows argp) and
 * carries the tool it runs for; it is the context every function of the
 * run takes, so nothing here reads a global.
 *
 *   run_profile()           collect: start or attach, sample or count,
 *                           write the profiles, show the summary/report
 *   run_list_statistics()   -l: the statistics and whether this machine
 *                           has them
 *   run_report_file()       -i FILE: report a profile written before
 *                           (-i A -i B: their sum)
 *   run_merge_files()       --merge OUT: write the sum of profiles
 *   run_archive_file()      --archive OUT IN: the profile with its files
 *   run_diff_files()        --diff BASE NEW: compare two profiles
 *
 * Both return an exit status (RUN_EXIT_* or the program's own) and print
 * their own one-line errors, naming the tool.
 */
#ifndef COMMON_RUN_RUN_H
#define COMMON_RUN_RUN_H

#include <stddef.h>
#include <stdio.h>

#include "common/profile/profile.h"
#include "formats/report/report.h"

struct profile;

/* Exit statuses of our own (a run otherwise returns the program's): the
 * contract with scripts, documented in --help and README.md. */
enum {
	RUN_EXIT_WORSE = 1,	/* --diff --fail-above: a row got worse */
	RUN_EXIT_FAIL = 125,	/* the profiler itself failed */
	RUN_EXIT_NOEXEC = 126,	/* program found but could not run */
	RUN_EXIT_NOTFOUND = 127,	/* program not found */
};

enum run_scope {
	RUN_SCOPE_TASKS,	/* a program and its descendants */
	RUN_SCOPE_SYSTEM,	/* every task on the CPUs */
};

enum run_cpus {
	RUN_CPUS_ALL,		/* one merged profile (default) */
	RUN_CPUS_EACH,		/* one profile per CPU: FILE.N */
	RUN_CPUS_ONE,		/* only the CPU the tool runs on */
};

enum run_engine {
	RUN_ENGINE_PERF,	/* perf_event_open sampling (default) */
	RUN_ENGINE_SIM,		/* exact counts under valgrind (sim.h) */
};

/* --format: how the report is written. */
enum run_format {
	RUN_FORMAT_TEXT,
	RUN_FORMAT_JSON,
	RUN_FORMAT_FOLDED,	/* call stacks as "a;b;c count" lines */
	RUN_FORMAT_PPROF,	/* gzipped profile.proto (binary) */
	RUN_FORMAT_FLAMEGRAPH,	/* self-contained SVG flame graph */
	RUN_FORMAT_CALLGRIND,	/* callgrind profile format */
	RUN_FORMAT_CSV,		/* the rows, for spreadsheets */
	RUN_FORMAT_SPEEDSCOPE,	/* speedscope's JSON, over time */
	RUN_FORMAT_FIREFOX,	/* the Firefox Profiler's, over time */
	RUN_NFORMATS
};

/* --format's names, indexed by enum run_format. */
extern const char *const run_format_names[RUN_NFORMATS];
/* The format named name, or -1. */
int run_format_by_name(const char *name);
/* Whether the format is an export of the whole profile, not a view of
 * rows: the row options (-procedures, -quit, -only, ...) do not apply. */
int run_format_is_export(int format);

/* Bytes of user stack copied per sample for --call-graph=dwarf|auto:
 * the most the kernel copies (a sample record's size is 16 bits), since
 * compilers' deep stacks outgrow 32 KiB (bench/README.md, "Call
 * stacks"); the kernel copies no further than the stack's top, so a
 * shallow stack costs no more. */
#define RUN_STACK_DUMP_MAX 65528
#define RUN_STACK_DUMP RUN_STACK_DUMP_MAX
/* The same for the sample at each switch out (off-CPU statistics), when
 * SIZE is not given: a thread switches out in a system call or at an
 * interrupt, most often far from its deepest calls (the deepest stacks
 * of bench/README.md's programs at their switches: 9 KiB for sort, 6
 * for gcc and tar, 2 for gzip).  The kernel reserves the whole size in
 * the ring at every switch, copied or not: a quarter of the CPU
 * samples' lets the ring hold four times the switches. */
#define RUN_SWITCH_STACK_DUMP 16384

/* What a run needs to know of the tool it runs for. */
struct run_tool {
	const char *name;		/* "uprofile": messages, profiles */
	const char *default_file;	/* "umon.out" */
	enum run_scope scope;
	unsigned default_modes;		/* STAT_MODE_* */
};

/* Everything about one run.  Strings and arrays are borrowed: the caller
 * keeps them alive for the run. */
struct run_config {
	const struct run_tool *tool;
	char **stats;			/* statistic names as typed */
	size_t nstats;
	unsigned long long freq, period;
	unsigned add_modes;		/* -kernel / -user */
	const char *output;		/* -o */
	const char *dirname;
	int pids;
	enum run_cpus cpus;
	long attach_pid;		/* -p, 0 when none: uprofile attaches,
					 * kprofile runs until it exits */
	double duration;		/* -d seconds, 0 none */
	int quiet, verbose;
	char **cmd;			/* program and arguments */
	int ncmd;
	int triggered;			/* -t: start with sampling off */
	int dry_run;			/* print the events, open nothing */
	const char *pmu;		/* --pmu: instruction-sampling family
					 * for profile-me names, or NULL */
	const char *control;		/* -control FIFO */
	int count;			/* --count: totals, no sampling */
	const char *start_after;	/* --start-after A:N as given */
	char start_after_stat[64];	/* A */
	unsigned long long start_after_n;	/* N */
	enum run_engine engine;		/* --engine */
	int pixie;			/* -pixie: add a simulated run */
	const char *vmlinux;		/* kernel image, -k */
	/* Where a report finds objects and debug info (lookup.c). */
	const char *symfs;		/* --symfs DIR, or NULL */
	const char **debug_dirs;	/* --debug-dir DIR..., in order */
	size_t ndebug_dirs;
	int no_debuginfod;		/* --no-debuginfod */
	int python_off;			/* --python=off: the interpreter's
					 * frames, not Python's */
	int python_read;		/* --python=read: frames read from
					 * the process only, never copied at
					 * the sample (perfbpf.h) */
	/* -g / --call-graph: call stacks.  -g alone (call_graph_g) is
	 * auto for uprofile and kernel stacks only for kprofile. */
	enum prof_call_graph call_graph;
	int call_graph_g;
	uint32_t stack_dump;		/* dwarf/auto: user stack bytes per
					 * sample, 0: RUN_STACK_DUMP */
	const char **ra;		/* -ra routine patterns, or NULL */
	size_t nra;
	/* The report: after a run, or of -i's file. */
	struct report_options report;	/* view, -quit, -only, ... */
	int display;			/* print the full report */
	enum run_format format;		/* --format */
	const char *report_file;	/* report after a run goes here */
	int row_options;		/* a per-row display option given */
	const char *time;		/* --time RANGE, or NULL: the whole
					 * run */
	int exclude_idle;		/* -exclude-idle: reports leave the
					 * idle task (pid 0) out */
	double fail_above;		/* --diff --fail-above PCT; < 0: none */
	double alpha;			/* --diff --alpha; 0: RUN_DIFF_ALPHA */
};

/* --diff's significance level (Holm-corrected over the rows tested). */
#define RUN_DIFF_ALPHA 0.05

int run_profile(struct run_config *c);
int run_list_statistics(const struct run_config *c);
/* Report the profile file on stdout; with several files, their sum
 * (profile_merge: refused with a reason when they do not add up). */
int run_report_file(const struct run_config *c, const char *const *files,
		    size_t nfiles);
/* --archive OUT IN: write IN to OUT with the object files (and their
 * debug files) its report reads, found as a report finds them. */
int run_archive_file(const struct run_config *c, const char *out,
		     const char *in);

/* --merge OUT: write the sum of the files to OUT (atomically); with
 * -display or a row option also report it on stdout.  0 or
 * RUN_EXIT_FAIL. */
int run_merge_files(const struct run_config *c, const char *out,
		    const char *const *files, size_t nfiles);
/* --diff BASE NEW: the diff on stdout (text or json); the rows worse
 * than c->fail_above on stderr.  0, RUN_EXIT_WORSE when there are such
 * rows, or RUN_EXIT_FAIL (different statistics, unreadable files). */
int run_diff_files(const struct run_config *c, const char *base,
		   const char *nw);

/* Whether a word of the command line names a statistic this config's
 * engine knows (-e's names, X_per_ret, freq, with :u/:k/:h). */
int run_is_statistic(const struct run_config *c, const char *word);
/* Every statistic name of the table a user may type (with -e or as a word
 * before the program), other names included, one per line after prefix. */
void run_print_statistic_names(FILE *out, const char *prefix);
/* The native event names of this CPU -e accepts (stat_native_names()), one
 * per line after prefix. */
void run_print_native_names(FILE *out, const char *prefix);

/* Report profile p (read from file) to out as c asks: the summary after
 * a run when summary_only, else its -display/-i report.  Returns 0 or a
 * negative error. */
int run_show_profile(const struct run_config *c, const struct profile *p,
		     const char *file, int summary_only, FILE *out);

/* "TOOL: message" on stderr unless -quiet. */
void run_notice(const struct run_config *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "TOOL: " and the error's text on stderr; returns RUN_EXIT_FAIL. */
int run_fail(const struct run_config *c, int err);

#endif
