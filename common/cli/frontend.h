/* SPDX-License-Identifier: MIT */
/*
 * What uprofile and kprofile share above the run: the argp option groups
 * (FE_GROUP_*: what a user is doing) as children of each tool's own
 * options, the checks between options, and fe_main().  A front end
 * describes itself with a struct fe_tool and calls fe_main().
 *
 * Options only one tool accepts are in that tool's own table, each with
 * the FE_GROUP_* it belongs to: --help shows it under that group's
 * heading, among the shared options.  Some of them are parsed here all
 * the same (one parser, one meaning): a tool that lists an option with a
 * key FE_OPT_* gets it parsed into the run_config by the shared parser;
 * the tool's parse gets the others.
 *
 * Parsing only records: the actions (-l, the completion helper, the run
 * or -i's report) run after the whole command line is read, so the
 * order of options never changes the result.
 */
#ifndef COMMON_CLI_FRONTEND_H
#define COMMON_CLI_FRONTEND_H

#include <argp.h>

#include "common/run/run.h"

/* Keys of options a tool may list in its own table, parsed here. */
enum {
	FE_OPT_PID = 'p',		/* -p PID (its doc is the tool's) */
	FE_OPT_ENGINE = 1900,		/* --engine=perf|sim */
	FE_OPT_PIXIE,			/* -pixie */
	FE_OPT_RA_LIST,			/* -ra GLOB[,GLOB...]: report-time,
					 * from the stacks (uprofile) */
	FE_OPT_TOOL = 2000,		/* the tool's own keys start here */
};

/*
 * The groups of options, in the order --help lists them (argp's group
 * numbers; the man pages' OPTIONS have the same headings, in this order).
 */
enum fe_group {
	FE_GROUP_TARGET = 1,	/* What to profile */
	FE_GROUP_STATS,		/* Statistics and sampling */
	FE_GROUP_OUTPUT,	/* Output files */
	FE_GROUP_REPORT,	/* Reports */
	FE_GROUP_COMBINE,	/* Combining profiles */
	FE_GROUP_SYMBOLS,	/* Symbols and debug information */
	FE_GROUP_MESSAGES,	/* Messages */
	FE_GROUP_FIRST = FE_GROUP_TARGET,
	FE_NGROUPS = FE_GROUP_MESSAGES - FE_GROUP_FIRST + 1,
};

struct fe_tool {
	struct run_tool run;		/* name, default file, scope, modes */
	int program_required;		/* else: run until a signal */
	const char *args_doc;
	const char *doc;		/* text before and after options */
	/* Tool-specific options, or NULL, each with its FE_GROUP_*; keys
	 * FE_OPT_* are parsed here, the others (FE_OPT_TOOL and up, or
	 * short keys of its own) by parse. */
	const struct argp_option *options;
	error_t (*parse)(int key, char *arg, struct argp_state *state,
			 struct run_config *cfg);
};

int fe_main(const struct fe_tool *tool, int argc, char **argv);

/* Split a comma-separated option value in place into *v (the strings
 * point into arg; only the array is the caller's to free) and *n.
 * 0, or ENOMEM. */
int fe_split_list(char *arg, const char ***v, size_t *n);

#endif
