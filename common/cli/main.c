/* SPDX-License-Identifier: MIT */
/*
 * fe_main() (frontend.h): parse the whole command line, then do the one
 * action it asks for: -l, the completion helper, -i's report, or a run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli_int.h"
#include "common/util/error.h"

/* One event per CPU, statistic and (with -p) thread: raise the
 * descriptor limit to what we may. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static size_t table_len(const struct argp_option *o)
{
	size_t n = 0;

	while (o && (o[n].name || o[n].key || o[n].doc))
		n++;
	return n;
}

/* Whether a tool's option belongs under a shared group's heading. */
static int in_shared_group(const struct argp_option *o)
{
	return o->group >= FE_GROUP_FIRST &&
	       o->group < FE_GROUP_FIRST + FE_NGROUPS;
}

/*
 * A shared group's table with the tool's options of that group appended,
 * so that --help shows -p under "What to profile:" and kprofile's -k
 * under "Symbols and debug information:" in the tool that has them, and
 * nowhere else.  The group's parser (fe_parse_shared) parses them.
 */
static struct argp_option *group_table(const struct argp_option *shared,
				       const struct fe_tool *tool)
{
	size_t ns = table_len(shared), nt = table_len(tool->options), n = ns;
	struct argp_option *v = calloc(ns + nt + 1, sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	memcpy(v, shared, ns * sizeof(*v));
	for (i = 0; i < nt; i++)
		if (tool->options[i].group == shared[0].group)
			v[n++] = tool->options[i];
	return v;
}

/* The tool's table without what group_table() moved, in *v, and the
 * heading of argp's own options (--help, --usage, --version: group -1),
 * which the man pages list under "Help" too.  Returns -1 when out of
 * memory. */
static int root_table(const struct fe_tool *tool, struct argp_option **v)
{
	size_t nt = table_len(tool->options), n = 0, i;

	*v = calloc(nt + 2, sizeof(**v));
	if (!*v)
		return -1;
	for (i = 0; i < nt; i++)
		if (!in_shared_group(&tool->options[i]))
			(*v)[n++] = tool->options[i];
	(*v)[n] = (struct argp_option){ NULL, 0, NULL, 0, "Help:", -1 };
	return 0;
}

static int act(struct fe_args *a)
{
	struct run_config *c = &a->cfg;

	switch (fe_action(a)) {
	case FE_ACTION_COMPLETION:
		fe_print_completion(a->tool);
		return fflush(stdout) ? RUN_EXIT_FAIL : 0;
	case FE_ACTION_LIST:
		return run_list_statistics(c);
	case FE_ACTION_REPORT:
		if (c->vmlinux && access(c->vmlinux, R_OK))
			break;
		return run_report_file(c, (const char *const *)a->inputs,
				       a->ninputs);
	case FE_ACTION_MERGE:
		return run_merge_files(c, a->merge_out,
				       (const char *const *)a->inputs,
				       a->ninputs);
	case FE_ACTION_ARCHIVE:
		return run_archive_file(c, a->archive_out, a->inputs[0]);
	case FE_ACTION_DIFF:
		if (c->vmlinux && access(c->vmlinux, R_OK))
			break;
		return run_diff_files(c, a->inputs[0], a->inputs[1]);
	case FE_ACTION_RUN:
		if (c->vmlinux && access(c->vmlinux, R_OK))
			break;
		raise_fd_limit();
		return run_profile(c);
	}
	fprintf(stderr, "%s: cannot read kernel image '%s': %s\n",
		a->tool->run.name, c->vmlinux, strerror(errno));
	return RUN_EXIT_FAIL;
}

int fe_main(const struct fe_tool *tool, int argc, char **argv)
{
	/* argp keeps the pointer for --version: it must outlive us. */
	static char version[64];
	const struct argp_option *const *shared = fe_option_tables;
	enum { NGROUPS = FE_NGROUPS };
	struct argp groups[NGROUPS];
	struct argp_child children[NGROUPS + 1];
	struct argp_option *tables[NGROUPS + 1];
	struct argp argp = {
		.parser = fe_parse_root,
		.args_doc = tool->args_doc,
		.doc = tool->doc,
		.children = children,
	};
	struct fe_args a = {
		.tool = tool,
		.cfg = { .tool = &tool->run, .report.stride = -1,
			 .fail_above = -1 },
		.ngroups = NGROUPS,
	};
	int code = RUN_EXIT_FAIL, oom = 0;
	size_t g;

	memset(children, 0, sizeof(children));
	for (g = 0; g < NGROUPS; g++) {
		tables[g] = group_table(shared[g], tool);
		oom |= !tables[g];
		groups[g] = (struct argp){ .options = tables[g],
					   .parser = fe_parse_shared };
		children[g] = (struct argp_child){ &groups[g], 0, NULL,
						   shared[g][0].group };
	}
	oom |= root_table(tool, &tables[NGROUPS]) < 0;
	argp.options = tables[NGROUPS];
	snprintf(version, sizeof(version), "%s %s", tool->run.name,
		 PROF_VERSION);
	argp_program_version = version;
	argp_err_exit_status = RUN_EXIT_FAIL;
	setvbuf(stderr, NULL, _IOLBF, 0);
	/* Messages from argp and getopt name the tool, not its path. */
	argv[0] = (char *)tool->run.name;
	if (oom)
		fprintf(stderr, "%s: out of memory\n", tool->run.name);
	else if (!argp_parse(&argp, argc, argv,
			     ARGP_LONG_ONLY | ARGP_IN_ORDER, NULL, &a)) {
		/* -stride on its own: the bucket view. */
		if (a.cfg.report.stride >= 0 &&
		    a.cfg.report.view == REPORT_PROCEDURES)
			a.cfg.report.view = REPORT_BUCKETS;
		code = act(&a);
	}
	for (g = 0; g <= NGROUPS; g++)
		free(tables[g]);
	free(a.cfg.stats);
	free(a.inputs);
	free((void *)a.cfg.report.only);
	free((void *)a.cfg.report.exclude);
	free((void *)a.cfg.ra);
	free((void *)a.cfg.debug_dirs);
	return code;
}
