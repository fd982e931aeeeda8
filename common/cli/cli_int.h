/* SPDX-License-Identifier: MIT */
/*
 * Private to common/cli/: what parsing the command line fills in.
 * options.c holds the shared option tables and their parsers, main.c
 * fe_main() and the actions run after parsing.
 */
#ifndef COMMON_CLI_CLI_INT_H
#define COMMON_CLI_CLI_INT_H

#include <argp.h>
#include <stddef.h>

#include "frontend.h"

/* What the command line asks for, decided after all of it is read. */
enum fe_action {
	FE_ACTION_RUN,		/* profile a program or the system */
	FE_ACTION_REPORT,	/* -i FILE...: report a profile (a sum) */
	FE_ACTION_MERGE,	/* --merge OUT: write the sum */
	FE_ACTION_ARCHIVE,	/* --archive OUT: the profile and its files */
	FE_ACTION_DIFF,		/* --diff BASE NEW */
	FE_ACTION_LIST,		/* -l */
	FE_ACTION_COMPLETION,	/* --completion-helper */
};

struct fe_args {
	const struct fe_tool *tool;
	struct run_config cfg;
	const char *input;		/* the first -i (or input word) */
	char **inputs;			/* every -i, then the words after
					 * --merge OUT or --diff */
	size_t ninputs, alloc_inputs;
	const char *merge_out;		/* --merge OUT */
	const char *archive_out;	/* --archive OUT */
	int diff;			/* --diff */
	int list, completion;		/* -l, --completion-helper */
	int ra_list;			/* -ra PROCS (FE_OPT_RA_LIST) */
	int timeline_next;		/* the argv index after a -timeline
					 * without =N: a number there is its
					 * N; 0: none */
	size_t alloc_stats, alloc_only, alloc_exclude, alloc_debug_dirs;
	size_t ngroups;			/* shared option groups: argp
					 * children whose input this is */
};

/* The shared groups' tables (options.c), in the order of FE_GROUP_*:
 * fe_option_tables[g - FE_GROUP_FIRST] is group g's, its first entry the
 * header. */
extern const struct argp_option fe_target_options[];
extern const struct argp_option fe_stat_options[];
extern const struct argp_option fe_output_options[];
extern const struct argp_option fe_report_options[];
extern const struct argp_option fe_combine_options[];
extern const struct argp_option fe_symbol_options[];
extern const struct argp_option fe_message_options[];
extern const struct argp_option *const fe_option_tables[FE_NGROUPS];
error_t fe_parse_shared(int key, char *arg, struct argp_state *state);
error_t fe_parse_root(int key, char *arg, struct argp_state *state);
enum fe_action fe_action(const struct fe_args *a);
void fe_print_completion(const struct fe_tool *tool);

#endif
