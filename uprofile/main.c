/* SPDX-License-Identifier: MIT */
/*
 * uprofile: run a program, sample it and all its descendants, write an
 * aggregated profile (umon.out) and show where its events went.
 */
#include "common/cli/frontend.h"
#include "common/stats/stats.h"

static const char doc[] =
"Profile PROGRAM and all its descendants (threads, fork, exec): sample "
"statistics, write the aggregated profile to umon.out and show where the "
"events went.  Statistics are named with -e or as words before PROGRAM "
"(cycles, retinst, cpu-clock, page-faults, ...).  Where the machine has no "
"hardware PMU, cycles is sampled as cpu-clock and a notice says so."
"\v"
"Examples:\n"
"  uprofile ./prog args          profile, write umon.out, print a summary\n"
"  uprofile -display ./prog      and print the full procedure report\n"
"  uprofile -heavy -quit 10 gzip -k big.tar\n"
"                                ten hottest source lines\n"
"  uprofile -e cpu-clock,page-faults python3 script.py\n"
"  uprofile -p 1234 -d 10        attach to process 1234 for 10 seconds\n"
"  uprofile --engine=sim retinst mispredict ./prog\n"
"                                exact counts under valgrind, no PMU needed\n"
"  uprofile -pixie ./prog        samples, then exact counts from a second\n"
"                                run (the program must behave the same)\n"
"  uprofile --count -e task-clock,page-faults ./prog\n"
"                                whole-run totals and ratios, no sampling\n"
"  uprofile mispredict_per_ret ./prog\n"
"                                mispredicts per 100 retired, per row\n"
"  uprofile -i umon.out -lines   report an existing profile, run nothing\n"
"  uprofile -i umon.out -asm -quit 1\n"
"                                hottest procedure's instructions, blocks\n"
"  uprofile -pixie -average freq ./prog\n"
"                                time per execution of each row\n"
"  uprofile -i umon.out --format json\n"
"  uprofile -i umon.out -callers memcpy\n"
"                                who calls memcpy (profile taken with -g)\n"
"  uprofile -i umon.out -tree -quit 2%\n"
"                                the call tree, nodes of 2% or more\n"
"  uprofile -i umon.out --format folded >out.folded\n"
"                                stacks for flamegraph.pl, inferno, ...\n"
"  uprofile -i umon.out -ra 'memcpy*,strlen'\n"
"                                those routines' samples to their callers\n"
"  uprofile --merge all.umon run1.umon run2.umon\n"
"                                add profiles up (also -i A -i B)\n"
"  uprofile --diff main.umon head.umon --fail-above 5\n"
"                                what changed, beyond sampling noise;\n"
"                                status 1 if a share grew 5+ points\n"
"  uprofile -quiet --format json -report-file r.json ./test-suite\n"
"                                for scripts: stdout stays the program's\n"
"\n"
"After a run, reports go to stderr (stdout is the program's) or to "
"-report-file. Single-dash long options (-display, -quit 10) and --long "
"options are the same. Profile files are written atomically; an existing "
"file is replaced only when the new one is complete, and a link planted "
"at its name is replaced, never followed. Every output file is checked "
"before the program starts.\n"
"\n"
"Exit status:\n"
"  N      the program's exit status (0 with -p, -i, --merge or\n"
"         --diff on success)\n"
"  1      --diff --fail-above PCT: a procedure's share grew by more\n"
"         than PCT points, significantly (named on stderr)\n"
"  128+N  the program was killed by signal N\n"
"  125    uprofile itself failed (bad usage, statistic unavailable,\n"
"         cannot collect or attach, unreadable profile file, an output\n"
"         file that cannot be written: found before the program starts;\n"
"         a call-stack view or -ra of a profile without stacks)\n"
"  126    the program was found but could not be run\n"
"  127    the program was not found\n";

/* Options only uprofile has: -p, the engines, -pixie, -ra (parsed by the
 * shared parser: frontend.h), each under its group's heading. */
static const struct argp_option options[] = {
	{ "pid", FE_OPT_PID, "PID", 0,
	  "attach to a running process and its threads", FE_GROUP_TARGET },
	{ "engine", FE_OPT_ENGINE, "perf|sim", 0,
	  "perf: sample with perf_event_open (default); sim: run under "
	  "valgrind and count every event exactly (instructions, loads, "
	  "stores, branches) or by simulation (caches, mispredicts), "
	  "user mode only, deterministic (default statistic: retinst)",
	  FE_GROUP_STATS },
	{ "pixie", FE_OPT_PIXIE, NULL, 0,
	  "after the sampled run, run the program again under valgrind "
	  "and add exact instruction counts (retinst, simulated) to the "
	  "profile; the program must behave the same in both runs (same "
	  "input, same work): a warning says when they clearly differ",
	  FE_GROUP_STATS },
	{ "ra", FE_OPT_RA_LIST, "PROC[,PROC...]", 0,
	  "with -i: charge samples whose leaf procedure matches a PROC "
	  "(globs, e.g. memcpy*,strlen) to the first caller outside them, "
	  "from the profile's call stacks", FE_GROUP_REPORT },
	{ 0 }
};

/* The sim engine runs a program under valgrind: user mode, every event
 * counted; options about sampling or other targets do not apply. */
static void check_sim_options(const struct run_config *c,
			      struct argp_state *state)
{
	const char *what = c->pixie ? "-pixie" : "--engine=sim";

	if (c->pixie && c->engine == RUN_ENGINE_SIM)
		argp_error(state, "-pixie adds a sim run to a perf run; with "
			   "--engine=sim every count is already exact");
	if (c->attach_pid)
		argp_error(state, "%s needs a PROGRAM to run (it cannot "
			   "attach with -p)", what);
	if (c->engine == RUN_ENGINE_SIM) {
		if (c->freq || c->period)
			argp_error(state, "--engine=sim counts every event; "
				   "-F and -c do not apply");
		if (c->add_modes & STAT_MODE_KERNEL)
			argp_error(state, "--engine=sim sees user mode only; "
				   "-kernel does not apply");
		if (c->call_graph || c->call_graph_g)
			argp_error(state, "--engine=sim counts events, it takes "
				   "no stacks; -g and --call-graph do not "
				   "apply");
	}
	if (c->triggered || c->control)
		argp_error(state, "%s counts the whole run; -t and -control "
			   "do not apply", what);
	if (c->cpus != RUN_CPUS_ALL)
		argp_error(state, "%s has no CPUs to split by; -each and -one "
			   "do not apply", what);
}

static error_t parse(int key, char *arg, struct argp_state *state,
		     struct run_config *cfg)
{
	if (key == ARGP_KEY_END &&
	    (cfg->engine == RUN_ENGINE_SIM || cfg->pixie))
		check_sim_options(cfg, state);
	return ARGP_ERR_UNKNOWN;
}

int main(int argc, char **argv)
{
	static const struct fe_tool tool = {
		.run = {
			.name = "uprofile",
			.default_file = "umon.out",
			.scope = RUN_SCOPE_TASKS,
			.default_modes = STAT_MODE_USER,
		},
		.program_required = 1,
		.args_doc = "[STATISTIC...] PROGRAM [ARG...]\n-p PID\n-i FILE...\n"
			    "--merge OUT IN...\n--diff BASE NEW",
		.doc = doc,
		.options = options,
		.parse = parse,
	};

	return fe_main(&tool, argc, argv);
}
