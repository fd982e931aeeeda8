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
"  N      the program's exit status (0 with -p or -i on success)\n"
"  128+N  the program was killed by signal N\n"
"  125    uprofile itself failed (bad usage, statistic unavailable,\n"
"         cannot collect or attach, unreadable profile file, an output\n"
"         file that cannot be written: found before the program starts)\n"
"  126    the program was found but could not be run\n"
"  127    the program was not found\n";

int main(int argc, char **argv)
{
	static const struct fe_tool tool = {
		.name = "uprofile",
		.default_file = "umon.out",
		.scope = FE_SCOPE_TASKS,
		.default_modes = STAT_MODE_USER,
		.program_required = 1,
		.args_doc = "[STATISTIC...] PROGRAM [ARG...]\n-p PID\n-i FILE",
		.doc = doc,
	};

	return fe_main(&tool, argc, argv);
}
