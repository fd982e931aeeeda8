/* SPDX-License-Identifier: MIT */
/*
 * What uprofile and kprofile share above the library: the argp option
 * groups (statistics and sampling, output, CPU modes, display) and the
 * collection run (start or attach, sample, stop, write, report).  A front
 * end describes itself with a struct fe_tool and calls fe_main(); nothing
 * here is specific to one tool, so options cannot drift between them.
 *
 * Exit statuses (FE_EXIT_*) are the contract with scripts, documented in
 * --help and README.md.
 */
#ifndef COMMON_FRONTEND_H
#define COMMON_FRONTEND_H

#include <argp.h>

enum {
	FE_EXIT_FAIL = 125,	/* the profiler itself failed */
	FE_EXIT_NOEXEC = 126,	/* program found but could not run */
	FE_EXIT_NOTFOUND = 127,	/* program not found */
};

enum fe_scope {
	FE_SCOPE_TASKS,		/* a program and its descendants */
	FE_SCOPE_SYSTEM,	/* every task on the CPUs */
};

enum fe_cpus {
	FE_CPUS_ALL,		/* one merged profile (default) */
	FE_CPUS_EACH,		/* one profile per CPU: FILE.N */
	FE_CPUS_ONE,		/* only the CPU the tool runs on */
};

enum fe_engine {
	FE_ENGINE_PERF,		/* perf_event_open sampling (default) */
	FE_ENGINE_SIM,		/* exact counts under valgrind (sim.h) */
};

/* Everything the options set.  Tool-specific parsers may set the fields
 * marked (tool). */
struct fe_config {
	char **stats;			/* statistic names as typed */
	size_t nstats, alloc_stats;
	unsigned long long freq, period;
	unsigned add_modes;		/* -kernel / -user */
	const char *output;		/* -o */
	const char *dirname;
	int pids;
	enum fe_cpus cpus;
	long attach_pid;		/* -p, 0 when none */
	double duration;		/* -d seconds, 0 none */
	const char *input;		/* -i: report only */
	int display;			/* print the full report */
	int view;			/* enum report_view */
	size_t quit_rows;
	double quit_percent;
	const char **only, **exclude;
	size_t nonly, nexclude, alloc_only, alloc_exclude;
	int numbers;
	long stride;			/* -stride, -1 when not given */
	int average;			/* -average */
	int json;
	const char *report_file;	/* report after a run goes here */
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
	int row_options;		/* a per-row display option given */
	enum fe_engine engine;		/* --engine */
	int pixie;			/* -pixie: add a simulated run */
	const char *vmlinux;		/* (tool) kernel image, -k */
	const char **ra;		/* (tool) -ra routine patterns, or NULL */
	size_t nra;
};

struct fe_tool {
	const char *name;		/* "uprofile" */
	const char *default_file;	/* "umon.out" */
	enum fe_scope scope;
	unsigned default_modes;		/* STAT_MODE_* */
	int program_required;		/* else: run until a signal */
	const char *args_doc;
	const char *doc;		/* text before and after options */
	/* Tool-specific options, parsed after the shared ones, or NULL. */
	const struct argp_option *options;
	error_t (*parse)(int key, char *arg, struct argp_state *state,
			 struct fe_config *cfg);
};

int fe_main(const struct fe_tool *tool, int argc, char **argv);

#endif
