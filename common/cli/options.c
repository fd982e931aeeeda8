/* SPDX-License-Identifier: MIT */
/*
 * The options uprofile and kprofile share: the argp tables, one per group
 * of --help (what to profile, statistics and sampling, output files,
 * reports, combining profiles, symbols and debug information, messages),
 * their parsers, the options a tool lists itself but whose parsing is
 * shared (FE_OPT_*), and
 * the checks between options.  Parsing only records what was asked; -l,
 * the completion helper, -i and the run are actions main.c starts once
 * the whole command line is read.  Statistic names are recognised as
 * words before PROGRAM through the run's plan (run_is_statistic).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_int.h"
#include "common/stats/pmstat.h"
#include "common/stats/stats.h"
#include "common/util/array.h"
#include "common/util/parse.h"
#include "common/util/path.h"
#include "formats/report/report.h"

enum {
	OPT_KERNEL = 1000, OPT_USER, OPT_DIRNAME, OPT_PIDS, OPT_NOPIDS,
	OPT_ALL, OPT_EACH, OPT_ONE, OPT_DISPLAY, OPT_PROCEDURES, OPT_LINES,
	OPT_HEAVY, OPT_QUIT, OPT_ONLY, OPT_EXCLUDE, OPT_NUMBERS, OPT_FORMAT,
	OPT_QUIET, OPT_COMPLETION, OPT_CONTROL, OPT_LIST, OPT_DRY_RUN,
	OPT_REPORT_FILE, OPT_PMU, OPT_COUNT, OPT_START_AFTER,
	OPT_BLOCKS, OPT_ASM, OPT_STRIDE, OPT_AVERAGE, OPT_CALLERS,
	OPT_CALLEES, OPT_TREE, OPT_CALL_GRAPH, OPT_MERGE, OPT_ARCHIVE, OPT_DIFF,
	OPT_FAIL_ABOVE, OPT_ALPHA, OPT_INLINE, OPT_BY, OPT_EXCLUDE_IDLE,
	OPT_SYMFS, OPT_DEBUG_DIR, OPT_NO_DEBUGINFOD, OPT_TIME, OPT_TIMELINE,
	OPT_PYTHON,
};

/*
 * The groups, in the order --help shows them (FE_GROUP_*, frontend.h), by
 * what the user is doing: choosing what to profile and how to sample it,
 * naming the profile files, reading a profile, combining profiles, finding
 * the objects a report reads, and how talkative the tool is.  The man
 * pages' OPTIONS sections have the same headings in the same order
 * (tests/0160-man.bats).
 */
const struct argp_option fe_target_options[] = {
	{ NULL, 0, NULL, 0, "What to profile:", FE_GROUP_TARGET },
	{ "duration", 'd', "SECONDS", 0,
	  "stop collecting after SECONDS (with -p or without PROGRAM)",
	  FE_GROUP_TARGET },
	{ "kernel", OPT_KERNEL, NULL, 0, "also sample kernel mode",
	  FE_GROUP_TARGET },
	{ "user", OPT_USER, NULL, 0, "also sample user mode",
	  FE_GROUP_TARGET },
	{ "triggered", 't', NULL, 0,
	  "set everything up but sample only when triggered: SIGUSR1 "
	  "starts, SIGUSR2 stops, or 'enable'/'disable' lines on -control",
	  FE_GROUP_TARGET },
	{ "control", OPT_CONTROL, "FIFO", 0,
	  "read 'enable' and 'disable' commands from FIFO (created if "
	  "missing, and then removed at the end)", FE_GROUP_TARGET },
	{ "start-after", OPT_START_AFTER, "STAT:N", 0,
	  "start counting or sampling only after statistic STAT has occurred "
	  "N times (the originals' cascaded counters); the hand-over takes "
	  "about 0.1 ms, events of that time are missed", FE_GROUP_TARGET },
	{ 0 }
};

const struct argp_option fe_stat_options[] = {
	{ NULL, 0, NULL, 0, "Statistics and sampling:", FE_GROUP_STATS },
	{ "event", 'e', "NAME[,NAME...]", 0,
	  "statistics to sample (default: cycles); also as words before "
	  "PROGRAM; NAME:u, :k, :h limit the modes", FE_GROUP_STATS },
	{ "freq", 'F', "HZ", 0,
	  "samples per second per statistic (default: 1000, or the "
	  "kernel's perf_event_max_sample_rate if lower; an -F above it "
	  "is refused)", FE_GROUP_STATS },
	{ "period", 'c', "N", 0,
	  "one sample every N events (instead of -F)", FE_GROUP_STATS },
	{ "list", 'l', NULL, 0,
	  "list the statistics and whether this machine has them "
	  "(UPROFILE_CPU=VENDOR:FAMILY:MODEL pins the CPU model, for "
	  "tests: docs/statistics.md)", FE_GROUP_STATS },
	{ "dry-run", OPT_DRY_RUN, NULL, 0,
	  "print the perf_event_attr of each event that would be opened, "
	  "and exit (hardware statistics are shown even without a PMU)",
	  FE_GROUP_STATS },
	{ "pmu", OPT_PMU, "FAMILY", 0,
	  "instruction sampling (profile-me): names such as retire, cycles, "
	  "delay, mispredict, dtb_miss are sampled on FAMILY: amd-ibs, "
	  "intel-pebs, arm-spe or auto (docs/profileme.md; UPROFILE_SYSFS "
	  "names another sysfs root, for --dry-run)", FE_GROUP_STATS },
	{ "count", OPT_COUNT, NULL, 0,
	  "count instead of sampling: whole-run totals of each statistic "
	  "and the ratios they give (cycles_per_ret, X_per_ret, rates); "
	  "NAME_per_ret opens its inputs as one group", FE_GROUP_STATS },
	{ NULL, 'g', NULL, 0,
	  "record call stacks: --call-graph=auto (kprofile: the kernel's "
	  "own call chains)", FE_GROUP_STATS },
	{ "call-graph", OPT_CALL_GRAPH, "MODE", 0,
	  "record call stacks: fp (frame pointers, walked by the kernel), "
	  "dwarf[,SIZE] (copy SIZE bytes of user stack per sample, default "
	  "65528, 16384 at an off-CPU statistic's switches, and unwind them "
	  "with each object's CFI while collecting) "
	  "or auto (CFI where an object has it, else frame pointers)",
	  FE_GROUP_STATS },
	{ "python", OPT_PYTHON, "on|read|off", 0,
	  "with call stacks, a CPython program's stacks in Python's words: "
	  "its functions, files and lines in place of the interpreter's "
	  "frames (default on: copied at each sample by a BPF program where "
	  "allowed, else read from the process; read: always from the "
	  "process)", FE_GROUP_STATS },
	{ 0 }
};

const struct argp_option fe_output_options[] = {
	{ NULL, 0, NULL, 0, "Output files:", FE_GROUP_OUTPUT },
	{ "output", 'o', "FILE", 0, "profile file name", FE_GROUP_OUTPUT },
	{ "dirname", OPT_DIRNAME, "DIR", 0, "directory for profile files",
	  FE_GROUP_OUTPUT },
	{ "pids", OPT_PIDS, NULL, 0,
	  "one profile per process, PID in the file name", FE_GROUP_OUTPUT },
	{ "nopids", OPT_NOPIDS, NULL, 0, "one profile for all (default)",
	  FE_GROUP_OUTPUT },
	{ "all", OPT_ALL, NULL, 0, "one profile for all CPUs (default)",
	  FE_GROUP_OUTPUT },
	{ "each", OPT_EACH, NULL, 0, "one profile per CPU: FILE.N",
	  FE_GROUP_OUTPUT },
	{ "one", OPT_ONE, NULL, 0,
	  "only the CPU the tool runs on (it pins itself there)",
	  FE_GROUP_OUTPUT },
	{ 0 }
};

const struct argp_option fe_report_options[] = {
	{ NULL, 0, NULL, 0,
	  "Reports (the views and filters imply -display; -by does not):",
	  FE_GROUP_REPORT },
	{ "input", 'i', "FILE", 0,
	  "report an existing profile FILE, or perf record's perf.data "
	  "(- : perf's pipe on stdin); run nothing (repeated: the report "
	  "of the files' sum)", FE_GROUP_REPORT },
	{ "display", OPT_DISPLAY, NULL, 0,
	  "print the report after collecting", FE_GROUP_REPORT },
	{ "procedures", OPT_PROCEDURES, NULL, 0,
	  "per procedure, hottest first (default)", FE_GROUP_REPORT },
	{ "lines", OPT_LINES, NULL, 0,
	  "per source line, in procedure and line order", FE_GROUP_REPORT },
	{ "heavy", OPT_HEAVY, NULL, 0, "per source line, hottest first",
	  FE_GROUP_REPORT },
	{ "blocks", OPT_BLOCKS, NULL, 0,
	  "per basic block, hottest first, with freq (estimated executions)",
	  FE_GROUP_REPORT },
	{ "asm", OPT_ASM, NULL, 0,
	  "each procedure's instructions with their counts, basic blocks "
	  "marked, source lines interleaved; procedures hottest first",
	  FE_GROUP_REPORT },
	{ "stride", OPT_STRIDE, "N", 0,
	  "group instructions into buckets of N (a power of two; 0: one "
	  "bucket per procedure); with -asm, list buckets", FE_GROUP_REPORT },
	{ "average", OPT_AVERAGE, NULL, 0,
	  "also show each statistic per instruction executed: the row's "
	  "weight divided by the executions of its instructions (exact "
	  "counts from -pixie or the sim engine, else freq); in -blocks, "
	  "the block's runs times its length", FE_GROUP_REPORT },
	{ "callers", OPT_CALLERS, "PROC", 0,
	  "call stacks: the callers of procedures matching PROC (a glob), "
	  "each with its share of their total", FE_GROUP_REPORT },
	{ "callees", OPT_CALLEES, "PROC", 0,
	  "call stacks: what procedures matching PROC call, with shares",
	  FE_GROUP_REPORT },
	{ "tree", OPT_TREE, NULL, 0,
	  "call stacks: the top-down call tree with total and self "
	  "percentages; nodes below 0.5% (or -quit N%) pruned, -quit N "
	  "keeps N children per node", FE_GROUP_REPORT },
	{ "timeline", OPT_TIMELINE, "N", OPTION_ARG_OPTIONAL,
	  "the run (or --time's window) in N intervals (-timeline=N or "
	  "-timeline N; default: as many as the terminal's width holds, "
	  "else 60): a row per thread (-by pid: process, comm, cpu) shaded "
	  "by its weight in each interval (with -only/-exclude: by the "
	  "share of those procedures), each interval's hottest procedure, "
	  "and the phases they make", FE_GROUP_REPORT },
	{ "quit", OPT_QUIT, "N|N%", 0,
	  "stop after N rows, or at the first row below N percent",
	  FE_GROUP_REPORT },
	{ "only", OPT_ONLY, "PROC", 0,
	  "only procedures matching PROC (a glob; repeatable)",
	  FE_GROUP_REPORT },
	{ "exclude", OPT_EXCLUDE, "PROC", 0,
	  "leave out procedures matching PROC (repeatable)", FE_GROUP_REPORT },
	{ "numbers", OPT_NUMBERS, NULL, 0, "show addresses", FE_GROUP_REPORT },
	{ "time", OPT_TIME, "RANGE", 0,
	  "report only what happened in RANGE of the run: FROM-TO in "
	  "seconds (2.5-4, 250ms-1s) or percent (10%-20%), an end left out "
	  "for the run's, several ranges separated by commas; for -i, "
	  "--merge and --diff", FE_GROUP_REPORT },
	{ "exclude-idle", OPT_EXCLUDE_IDLE, NULL, 0,
	  "leave out the samples of the idle task (pid 0, 'swapper': CPUs "
	  "with nothing to run); percentages are then of the rest",
	  FE_GROUP_REPORT },
	{ "inline", OPT_INLINE, NULL, 0,
	  "procedures view: inlined code in rows of its own, 'f [inlined "
	  "into g]' (default: part of the procedure it was inlined into)",
	  FE_GROUP_REPORT },
	{ "by", OPT_BY, "KEY[,KEY...]", 0,
	  "split each row by comm (command name), pid, tid, cpu, object or "
	  "state (running, blocked, blocked-io, preempted: off-CPU "
	  "statistics), and show the totals per value first (after a run: "
	  "in -display's report)", FE_GROUP_REPORT },
	{ "format", OPT_FORMAT, "NAME", 0,
	  "report format: text (default), json, csv (the rows); exports "
	  "of the whole profile: folded ('root;...;leaf count' lines of "
	  "the call stacks), pprof (gzipped profile.proto), flamegraph "
	  "(an SVG), callgrind (for callgrind_annotate, KCachegrind), "
	  "speedscope (each thread's samples in time order, for "
	  "speedscope), firefox (each thread's samples over time, for the "
	  "Firefox Profiler, profiler.firefox.com)", FE_GROUP_REPORT },
	{ "report-file", OPT_REPORT_FILE, "FILE", 0,
	  "write the report to FILE (default: stderr after a run, since "
	  "stdout is the program's; stdout with -i)", FE_GROUP_REPORT },
	{ "completion-helper", OPT_COMPLETION, NULL, OPTION_HIDDEN,
	  "list options for shell completion", FE_GROUP_REPORT },
	{ 0 }
};

const struct argp_option fe_combine_options[] = {
	{ NULL, 0, NULL, 0, "Combining profiles:", FE_GROUP_COMBINE },
	{ "merge", OPT_MERGE, "OUT", 0,
	  "--merge OUT IN... (or -i IN... -merge OUT): write the sum of "
	  "the profiles IN to OUT; refused, with the reason, when they do "
	  "not add up (other statistics, periods or tool)", FE_GROUP_COMBINE },
	{ "archive", OPT_ARCHIVE, "OUT", 0,
	  "--archive OUT IN (or -i IN --archive OUT): write IN to OUT with "
	  "the objects its report reads and their debug files, so that OUT "
	  "alone gives the same report on another machine", FE_GROUP_COMBINE },
	{ "diff", OPT_DIFF, NULL, 0,
	  "--diff BASE NEW: per procedure (or -lines) the change of share "
	  "from BASE to NEW, largest first, with a significance test of "
	  "the sample counts; rows within noise are hidden (-v lists them)",
	  FE_GROUP_COMBINE },
	{ "fail-above", OPT_FAIL_ABOVE, "PCT", 0,
	  "with --diff: exit status 1 when a row's share grew by more "
	  "than PCT points, significantly (a CI gate)", FE_GROUP_COMBINE },
	{ "alpha", OPT_ALPHA, "A", 0,
	  "with --diff: the significance level, Holm-corrected over the "
	  "rows (default 0.05)", FE_GROUP_COMBINE },
	{ 0 }
};

const struct argp_option fe_symbol_options[] = {
	{ NULL, 0, NULL, 0, "Symbols and debug information:",
	  FE_GROUP_SYMBOLS },
	{ "symfs", OPT_SYMFS, "DIR", 0,
	  "look for the profile's objects under DIR first (DIR/usr/bin/x "
	  "for /usr/bin/x): a copy of another machine's files; a file "
	  "with another build-id is named and not used", FE_GROUP_SYMBOLS },
	{ "debug-dir", OPT_DEBUG_DIR, "DIR", 0,
	  "look for debug files under DIR, like /usr/lib/debug "
	  "(.build-id/xx/yyyy.debug, or DIR/path/of/object/debuglink), "
	  "before it (repeatable)", FE_GROUP_SYMBOLS },
	{ "no-debuginfod", OPT_NO_DEBUGINFOD, NULL, 0,
	  "do not fetch missing objects or debug info from the debuginfod "
	  "servers of DEBUGINFOD_URLS", FE_GROUP_SYMBOLS },
	{ 0 }
};

const struct argp_option fe_message_options[] = {
	{ NULL, 0, NULL, 0, "Messages:", FE_GROUP_MESSAGES },
	{ "quiet", OPT_QUIET, NULL, 0, "no informational messages",
	  FE_GROUP_MESSAGES },
	{ "verbose", 'v', NULL, 0, "say what is profiled and how",
	  FE_GROUP_MESSAGES },
	{ 0 }
};

const struct argp_option *const fe_option_tables[FE_NGROUPS] = {
	fe_target_options, fe_stat_options, fe_output_options,
	fe_report_options, fe_combine_options, fe_symbol_options,
	fe_message_options,
};

static int add_str(char ***v, size_t *n, size_t *alloc, char *s)
{
	if (ALLOC_GROW(*v, *n + 1, *alloc))
		return -1;
	(*v)[(*n)++] = s;
	return 0;
}

static void add_stats(struct fe_args *a, char *list,
		      struct argp_state *state)
{
	char *save = NULL, *tok;

	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (add_str(&a->cfg.stats, &a->cfg.nstats, &a->alloc_stats,
			    tok))
			argp_failure(state, RUN_EXIT_FAIL, ENOMEM, "options");
}

/* "-name" (and "-k" for a short key), with "=" when a value follows
 * (an optional value only ever follows "=": none is completed). */
static void print_completion_option(const struct argp_option *o)
{
	const char *eq = o->arg && !(o->flags & OPTION_ARG_OPTIONAL) ? "=" :
			 "";

	if (o->flags & OPTION_HIDDEN)
		return;
	if (o->name)
		printf("-%s%s\n", o->name, eq);
	if (o->key > 0 && o->key < 128 && isalpha(o->key))
		printf("-%c%s\n", o->key, eq);
}

/* The options, then "stat:NAME" for each statistic and "native:NAME" for
 * each native event name of this CPU, which only -e takes. */
void fe_print_completion(const struct fe_tool *tool)
{
	size_t t;
	const struct argp_option *o;

	for (t = 0; t < FE_NGROUPS; t++)
		for (o = fe_option_tables[t]; o->name || o->key || o->doc;
		     o++)
			print_completion_option(o);
	for (o = tool->options; o && (o->name || o->key || o->doc); o++)
		print_completion_option(o);
	run_print_statistic_names(stdout, "stat:");
	run_print_native_names(stdout, "native:");
}

/* --start-after STAT:N (STAT may carry :u/:k/:h as in -e). */
static void parse_start_after(struct run_config *c, char *arg,
			      struct argp_state *state)
{
	const char *colon = strrchr(arg, ':');
	char name[64];
	uint64_t u;

	if (!colon || colon == arg)
		argp_error(state, "bad --start-after '%s': expected "
			   "STAT:N, e.g. page-faults:1000", arg);
	if (parse_u64(colon + 1, 1, UINT64_MAX / 2, &u))
		argp_error(state, "bad --start-after '%s': N must be a "
			   "positive number of events", arg);
	snprintf(name, sizeof(name), "%.*s", (int)(colon - arg), arg);
	/* A:u:1000 limits A's modes as in -e. */
	if (!stat_lookup(name) &&
	    !(strchr(name, ':') && (name[strcspn(name, ":")] = '\0',
				    stat_lookup(name))))
		argp_error(state, "bad --start-after '%s': unknown "
			   "statistic '%s' (see --list)", arg, name);
	snprintf(c->start_after_stat, sizeof(c->start_after_stat), "%.*s",
		 (int)(colon - arg), arg);
	c->start_after_n = u;
	c->start_after = arg;
}

int fe_split_list(char *arg, const char ***v, size_t *n)
{
	char *save = NULL, *tok;
	size_t alloc = 0;

	*v = NULL;
	*n = 0;
	for (tok = strtok_r(arg, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (ALLOC_GROW(*v, *n + 1, alloc)) {
			free(*v);
			*v = NULL;
			*n = 0;
			return ENOMEM;
		}
		(*v)[(*n)++] = tok;
	}
	return 0;
}

/* --call-graph=fp|dwarf[,SIZE]|auto */
static void parse_call_graph(struct run_config *c, char *arg,
			     struct argp_state *state)
{
	const char *comma = strchr(arg, ',');
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);
	uint64_t u;

	if (n == 2 && !strncmp(arg, "fp", n))
		c->call_graph = PROF_CG_FP;
	else if (n == 5 && !strncmp(arg, "dwarf", n))
		c->call_graph = PROF_CG_DWARF;
	else if (n == 4 && !strncmp(arg, "auto", n))
		c->call_graph = PROF_CG_AUTO;
	else
		argp_error(state, "bad --call-graph '%s': expected fp, "
			   "dwarf[,SIZE] or auto", arg);
	c->stack_dump = 0;
	if (!comma)
		return;
	if (c->call_graph == PROF_CG_FP)
		argp_error(state, "bad --call-graph '%s': fp copies no "
			   "stack, SIZE is for dwarf and auto", arg);
	if (parse_u64(comma + 1, 8, RUN_STACK_DUMP_MAX, &u))
		argp_error(state, "bad --call-graph size '%s': expected 8 to "
			   "%d bytes", comma + 1, RUN_STACK_DUMP_MAX);
	/* The kernel copies whole words. */
	c->stack_dump = (uint32_t)(u & ~7ULL);
}

/* "Statistics and sampling:" */
static error_t parse_stat_opt(int key, char *arg, struct argp_state *state)
{
	struct fe_args *a = state->input;
	struct run_config *c = &a->cfg;
	uint64_t u;

	switch (key) {
	case 'e':
		add_stats(a, arg, state);
		break;
	case 'F':
		if (parse_u64(arg, 1, 1000000, &u))
			argp_error(state, "bad frequency '%s': expected 1 to "
				   "1000000 samples per second", arg);
		c->freq = u;
		c->period = 0;
		break;
	case 'c':
		if (parse_u64(arg, 1, UINT64_MAX / 2, &u))
			argp_error(state, "bad period '%s': expected a "
				   "positive number of events", arg);
		c->period = u;
		c->freq = 0;
		break;
	case 'l': a->list = 1; break;
	case OPT_DRY_RUN: c->dry_run = 1; break;
	case OPT_PMU:
		if (strcmp(arg, "auto") && stat_pm_family_lookup(arg) < 0)
			argp_error(state, "--pmu: unknown family '%s' (amd-ibs,"
				   " intel-pebs, arm-spe or auto)", arg);
		c->pmu = arg;
		break;
	case OPT_COUNT: c->count = 1; break;
	case 'g': c->call_graph_g = 1; break;
	case OPT_CALL_GRAPH: parse_call_graph(c, arg, state); break;
	case OPT_PYTHON:
		if (strcmp(arg, "on") && strcmp(arg, "off") &&
		    strcmp(arg, "read"))
			argp_error(state, "--python takes on, read or off, not "
				   "'%s'", arg);
		c->python_off = !strcmp(arg, "off");
		c->python_read = !strcmp(arg, "read");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* "Output files:" */
static error_t parse_output_opt(int key, char *arg, struct argp_state *state)
{
	struct fe_args *a = state->input;
	struct run_config *c = &a->cfg;

	switch (key) {
	case 'o': c->output = arg; break;
	case OPT_DIRNAME: c->dirname = arg; break;
	case OPT_PIDS: c->pids = 1; break;
	case OPT_NOPIDS: c->pids = 0; break;
	case OPT_ALL: c->cpus = RUN_CPUS_ALL; break;
	case OPT_EACH: c->cpus = RUN_CPUS_EACH; break;
	case OPT_ONE: c->cpus = RUN_CPUS_ONE; break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* -i FILE, or a word after --merge OUT or --diff. */
static void add_input(struct fe_args *a, char *arg, struct argp_state *state)
{
	if (add_str(&a->inputs, &a->ninputs, &a->alloc_inputs, arg))
		argp_failure(state, RUN_EXIT_FAIL, ENOMEM, "options");
	a->input = a->inputs[0];
}

/* "What to profile:" */
static error_t parse_target_opt(int key, char *arg, struct argp_state *state)
{
	struct fe_args *a = state->input;
	struct run_config *c = &a->cfg;

	switch (key) {
	case 'd':
		if (parse_double(arg, 0.001, 1e7, &c->duration))
			argp_error(state, "bad duration '%s': expected "
				   "seconds, e.g. 10 or 2.5", arg);
		break;
	case OPT_KERNEL: c->add_modes |= STAT_MODE_KERNEL; break;
	case OPT_USER: c->add_modes |= STAT_MODE_USER; break;
	case 't': c->triggered = 1; break;
	case OPT_CONTROL: c->control = arg; break;
	case OPT_START_AFTER: parse_start_after(c, arg, state); break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* "Combining profiles:" */
static error_t parse_combine_opt(int key, char *arg, struct argp_state *state)
{
	struct fe_args *a = state->input;
	struct run_config *c = &a->cfg;

	switch (key) {
	case OPT_MERGE: a->merge_out = arg; break;
	case OPT_ARCHIVE: a->archive_out = arg; break;
	case OPT_DIFF: a->diff = 1; break;
	case OPT_ALPHA:
		if (parse_double(arg, 1e-12, 0.5, &c->alpha))
			argp_error(state, "bad --alpha '%s': expected a "
				   "significance level, e.g. 0.05 or 0.001",
				   arg);
		break;
	case OPT_FAIL_ABOVE:
		if (parse_double(arg, 0, 100, &c->fail_above))
			argp_error(state, "bad --fail-above '%s': expected "
				   "points of share, 0 to 100", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* "Messages:" */
static error_t parse_message_opt(int key, char *arg, struct argp_state *state)
{
	struct fe_args *a = state->input;
	struct run_config *c = &a->cfg;

	switch (key) {
	case OPT_QUIET: c->quiet = 1; break;
	case 'v': c->verbose = 1; break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* -quit N or N%. */
static void parse_quit(struct report_options *ro, char *arg,
		       struct argp_state *state)
{
	size_t n = strlen(arg);
	uint64_t u;

	if (n > 1 && arg[n - 1] == '%') {
		char num[64];

		snprintf(num, sizeof(num), "%.*s", (int)(n - 1), arg);
		if (parse_double(num, 0, 100, &ro->quit_percent))
			argp_error(state, "bad -quit '%s'", arg);
	} else if (parse_u64(arg, 1, SIZE_MAX, &u)) {
		argp_error(state, "bad -quit '%s': expected N rows or N%%",
			   arg);
	} else {
		ro->quit_rows = (size_t)u;
	}
}

/* -timeline's N: 1 to REPORT_TIMELINE_MAX intervals. */
static void parse_intervals(struct report_options *ro, const char *arg,
			    struct argp_state *state)
{
	uint64_t u;

	if (parse_u64(arg, 1, REPORT_TIMELINE_MAX, &u))
		argp_error(state, "bad -timeline '%s': expected a number of "
			   "intervals, 1 to %d", arg, REPORT_TIMELINE_MAX);
	ro->intervals = (size_t)u;
}

/* Whether s is a number (of -timeline's intervals: "-timeline 40"). */
static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* -by comm,pid,...: the keys as REPORT_BY_* bits. */
static void parse_by(struct report_options *ro, const char *arg,
		     struct argp_state *state)
{
	static const struct { const char *name; unsigned bit; } keys[] = {
		{ "comm", REPORT_BY_COMM }, { "pid", REPORT_BY_PID },
		{ "tid", REPORT_BY_TID }, { "cpu", REPORT_BY_CPU },
		{ "object", REPORT_BY_OBJECT }, { "state", REPORT_BY_STATE },
	};
	const char *p = arg;
	size_t i, n;

	ro->by = 0;
	for (;;) {
		n = strcspn(p, ",");
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strlen(keys[i].name) == n &&
			    !strncmp(keys[i].name, p, n))
				break;
		if (i == sizeof(keys) / sizeof(keys[0]))
			argp_error(state, "bad -by '%s': keys are comm, pid, "
				   "tid, cpu, object and state, separated by "
				   "commas", arg);
		ro->by |= keys[i].bit;
		if (!p[n])
			break;
		p += n + 1;
	}
}

/* "Symbols and debug information:" */
static error_t parse_symbol_opt(int key, char *arg, struct argp_state *state)
{
	struct fe_args *a = state->input;
	struct run_config *c = &a->cfg;
	struct stat st;

	errno = 0;
	switch (key) {
	case OPT_NO_DEBUGINFOD: c->no_debuginfod = 1; return 0;
	case OPT_SYMFS:
	case OPT_DEBUG_DIR:
		if (stat(arg, &st) || !S_ISDIR(st.st_mode))
			argp_error(state, "bad --%s '%s': %s", key == OPT_SYMFS ?
				   "symfs" : "debug-dir", arg, errno ?
				   strerror(errno) : "not a directory");
		if (key == OPT_SYMFS)
			c->symfs = arg;
		else if (add_str((char ***)&c->debug_dirs, &c->ndebug_dirs,
				 &a->alloc_debug_dirs, arg))
			argp_failure(state, RUN_EXIT_FAIL, ENOMEM, "options");
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

/* "Reports:" */
static error_t parse_report_opt(int key, char *arg, struct argp_state *state)
{
	struct fe_args *a = state->input;
	struct run_config *c = &a->cfg;
	struct report_options *ro = &c->report;
	uint64_t u;
	int i;

	switch (key) {
	case 'i': add_input(a, arg, state); return 0;
	case OPT_DISPLAY: c->display = 1; return 0;
	case OPT_REPORT_FILE: c->display = 1; c->report_file = arg; return 0;
	case OPT_COMPLETION: a->completion = 1; return 0;
	/* A window of the profile, not a choice of rows: every view and
	 * export takes it. */
	case OPT_TIME: c->display = 1; c->time = arg; return 0;
	case OPT_FORMAT:
		i = run_format_by_name(arg);
		if (i < 0)
			argp_error(state, "bad format '%s': use text, json, "
				   "csv, folded, pprof, flamegraph, "
				   "callgrind, speedscope or firefox", arg);
		c->format = (enum run_format)i;
		return 0;
	}
	/* The others choose or filter rows: each implies -display
	 * (-by, which splits them, does not). */
	switch (key) {
	case OPT_PROCEDURES: ro->view = REPORT_PROCEDURES; break;
	case OPT_LINES: ro->view = REPORT_LINES; break;
	case OPT_HEAVY: ro->view = REPORT_HEAVY; break;
	case OPT_BLOCKS: ro->view = REPORT_BLOCKS; break;
	case OPT_ASM: ro->view = REPORT_ASM; break;
	case OPT_AVERAGE: ro->average = 1; break;
	case OPT_CALLERS:
	case OPT_CALLEES:
		ro->stack_view = key == OPT_CALLERS ? REPORT_CALLERS :
			REPORT_CALLEES;
		ro->focus = arg;
		break;
	case OPT_TREE: ro->stack_view = REPORT_TREE; break;
	case OPT_TIMELINE:
		ro->timeline = 1;
		if (arg)
			parse_intervals(ro, arg, state);
		else
			a->timeline_next = state->next;
		break;
	case OPT_NUMBERS: ro->numbers = 1; break;
	case OPT_INLINE: ro->inline_split = 1; break;
	case OPT_EXCLUDE_IDLE: c->exclude_idle = 1; break;
	case OPT_STRIDE:
		if (parse_u64(arg, 0, 1u << 20, &u) || (u & (u - 1)))
			argp_error(state, "bad -stride '%s': expected a power "
				   "of two, or 0 for one bucket per procedure",
				   arg);
		ro->stride = (long)u;
		break;
	case OPT_QUIT: parse_quit(ro, arg, state); break;
	case OPT_BY:
		/* A split of the rows a report shows, not a view of its
		 * own: after a run the summary stays the summary, and
		 * -display (or a view) shows the rows split. */
		parse_by(ro, arg, state);
		c->row_options = 1;
		return 0;
	case OPT_ONLY:
		if (add_str((char ***)&ro->only, &ro->nonly, &a->alloc_only,
			    arg))
			argp_failure(state, RUN_EXIT_FAIL, ENOMEM, "options");
		break;
	case OPT_EXCLUDE:
		if (add_str((char ***)&ro->exclude, &ro->nexclude,
			    &a->alloc_exclude, arg))
			argp_failure(state, RUN_EXIT_FAIL, ENOMEM, "options");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	c->display = 1;
	c->row_options = 1;
	return 0;
}

/* Options a tool lists in its own table, parsed here (FE_OPT_*). */
static error_t parse_tool_opt(int key, char *arg, struct argp_state *state)
{
	struct fe_args *a = state->input;
	struct run_config *c = &a->cfg;
	long l;

	switch (key) {
	case FE_OPT_PID: {
		/* Single-dash long options: a long name the tool does not
		 * have ("-pixie" in kprofile) reaches here as -p "ixie". */
		const char *w = state->argv[state->next - 1];

		if (isalpha((unsigned char)arg[0]) && w[0] == '-' &&
		    w[1] == 'p' && !strcmp(w + 2, arg))
			argp_error(state, "unrecognized option '%s'", w);
		if (parse_int(arg, 1, INT_MAX, &l))
			argp_error(state, "bad process id '%s'", arg);
		c->attach_pid = l;
		break;
	}
	case FE_OPT_ENGINE:
		if (!strcmp(arg, "perf"))
			c->engine = RUN_ENGINE_PERF;
		else if (!strcmp(arg, "sim"))
			c->engine = RUN_ENGINE_SIM;
		else
			argp_error(state, "bad engine '%s': use perf or sim",
				   arg);
		break;
	case FE_OPT_PIXIE: c->pixie = 1; break;
	case FE_OPT_RA_LIST: {
		const char **v = NULL;
		size_t n = 0;

		if (fe_split_list(arg, &v, &n)) {
			argp_failure(state, RUN_EXIT_FAIL, ENOMEM, "-ra");
			return ENOMEM;
		}
		if (!n)
			argp_error(state, "-ra: empty list of procedures");
		free((void *)c->ra);
		c->ra = v;
		c->nra = n;
		a->ra_list = 1;
		break;
	}
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Whether key is that of one of the tool's own options. */
static int tool_has_key(const struct fe_tool *tool, int key)
{
	const struct argp_option *o;

	for (o = tool->options; key && o && (o->name || o->key || o->doc);
	     o++)
		if (o->key == key)
			return 1;
	return 0;
}

/* Each group's parser is this one: a group holds the tool's options of
 * that group too (group_table() in main.c), FE_OPT_* ones parsed here,
 * the others by the tool. */
error_t fe_parse_shared(int key, char *arg, struct argp_state *state)
{
	static error_t (*const parsers[])(int, char *, struct argp_state *) = {
		parse_target_opt, parse_stat_opt, parse_output_opt,
		parse_report_opt, parse_combine_opt, parse_symbol_opt,
		parse_message_opt, parse_tool_opt,
	};
	struct fe_args *a = state->input;
	size_t i, n = sizeof(parsers) / sizeof(parsers[0]);
	error_t e = ARGP_ERR_UNKNOWN;

	for (i = 0; e == ARGP_ERR_UNKNOWN && i < n; i++)
		e = parsers[i](key, arg, state);
	if (e == ARGP_ERR_UNKNOWN && a->tool->parse &&
	    tool_has_key(a->tool, key))
		e = a->tool->parse(key, arg, state, &a->cfg);
	return e;
}

/* Whether name is a program a run would find. */
static int on_path(const char *name)
{
	char *path = NULL;
	int err = path_find_program(name, &path);

	free(path);
	return !err;
}

/* --merge, --diff, --fail-above. */
static void check_compare(const struct fe_args *a, struct argp_state *state)
{
	const struct run_config *c = &a->cfg;
	const struct report_options *ro = &c->report;

	if ((c->fail_above >= 0 || c->alpha > 0) && !a->diff)
		argp_error(state, "--%s applies to --diff's rows: give it "
			   "with --diff BASE NEW", c->fail_above >= 0 ?
			   "fail-above" : "alpha");
	if (!!a->merge_out + !!a->diff + !!a->archive_out > 1)
		argp_error(state, "give one of --merge, --archive and --diff");
	if (a->archive_out && a->ninputs != 1)
		argp_error(state, "--archive OUT takes one profile: --archive "
			   "OUT IN or -i IN --archive OUT (%zu given)",
			   a->ninputs);
	if (a->archive_out && c->time)
		argp_error(state, "--archive copies the whole profile: --time "
			   "does not apply");
	if (a->archive_out && c->report_file)
		argp_error(state, "--archive writes a profile; -report-file "
			   "does not apply");
	if (a->merge_out && !a->ninputs)
		argp_error(state, "--merge OUT needs the profiles to add: "
			   "--merge OUT IN... or -i IN -merge OUT");
	if (a->merge_out && c->report_file)
		argp_error(state, "--merge writes a profile; -report-file "
			   "does not apply (-display reports the sum on "
			   "stdout)");
	if (!a->diff)
		return;
	if (a->ninputs != 2)
		argp_error(state, "--diff compares two profiles: --diff BASE "
			   "NEW (%zu given)", a->ninputs);
	if (c->format != RUN_FORMAT_TEXT && c->format != RUN_FORMAT_JSON)
		argp_error(state, "--diff writes text or json, not --format "
			   "%s", run_format_names[c->format]);
	if ((ro->view != REPORT_PROCEDURES && ro->view != REPORT_LINES) ||
	    ro->stack_view || ro->stride >= 0 || ro->average ||
	    ro->quit_percent > 0)
		argp_error(state, "--diff compares the rows of -procedures "
			   "or -lines (-only, -exclude and -quit N apply; "
			   "-heavy, -blocks, -asm, -stride, -average, the "
			   "call-stack views and -quit N%% do not)");
	if (c->report_file)
		argp_error(state, "--diff writes to stdout: -report-file "
			   "does not apply");
}

/* -timeline: a view of procedures over time, of one profile, as text or
 * JSON, its rows by one key. */
static void check_timeline(const struct fe_args *a, struct argp_state *state)
{
	const struct run_config *c = &a->cfg;
	const struct report_options *ro = &c->report;

	if (!ro->timeline)
		return;
	if (ro->view != REPORT_PROCEDURES || ro->stack_view ||
	    ro->stride >= 0)
		argp_error(state, "-timeline lays out procedures over time: "
			   "-lines, -heavy, -blocks, -asm, -stride and the "
			   "call-stack views do not apply");
	if (c->format != RUN_FORMAT_TEXT && c->format != RUN_FORMAT_JSON)
		argp_error(state, "-timeline applies to the text and json "
			   "reports, not to --format %s",
			   run_format_names[c->format]);
	if (a->merge_out || a->diff || a->archive_out)
		argp_error(state, "-timeline reports one run: --merge, --diff "
			   "and --archive do not apply");
	if ((ro->by & ~(unsigned)REPORT_BY_TASK) ||
	    (ro->by & (ro->by - 1)))
		argp_error(state, "-timeline has one row per value of one "
			   "key: -by comm, pid, tid or cpu");
	if (c->nra && a->input)
		argp_error(state, "-timeline shows the samples as taken: -ra "
			   "of a profile does not apply");
}

/* The options given together that make no sense together; none of them
 * apply to the actions that print and exit (-l, the completion helper). */
static void check_combinations(const struct fe_args *a,
			       struct argp_state *state)
{
	const struct run_config *c = &a->cfg;

	if (a->list || a->completion)
		return;
	check_compare(a, state);
	if (a->input && (c->cmd || c->attach_pid))
		argp_error(state, "-i reports a file; it cannot be "
			   "combined with a program or -p");
	if (c->attach_pid && c->cmd)
		argp_error(state, "give either a program or -p PID, "
			   "not both");
	if (!a->input && !c->attach_pid && !c->cmd &&
	    a->tool->program_required)
		argp_error(state, "no program to profile (give "
			   "PROGRAM, -p PID or -i FILE)");
	if (c->duration && c->cmd)
		argp_error(state, "-d applies to -p or to collection "
			   "without a program");
	if (a->input && (c->count || c->start_after))
		argp_error(state, "-i reports a file; --count and "
			   "--start-after apply to a run");
	if (c->count && (c->freq || c->period))
		argp_error(state, "--count does not sample: -F and -c "
			   "do not apply");
	if (c->count && (c->pids || c->cpus == RUN_CPUS_EACH))
		argp_error(state, "--count gives whole-run totals: "
			   "-pids and -each do not apply");
	if (c->count && c->row_options)
		argp_error(state, "--count has no rows: -procedures, "
			   "-lines, -heavy, -quit, -only, -exclude and "
			   "-numbers do not apply (use -display)");
	if (c->time && !a->input && !a->merge_out && !a->diff)
		argp_error(state, "--time cuts a window out of a profile "
			   "written before: give it with -i FILE, --merge or "
			   "--diff");
	if (a->ra_list && !a->input)
		argp_error(state, "-ra PROCS is answered from the call stacks "
			   "of a profile: give it with -i FILE");
	if (c->count && c->nra)
		argp_error(state, "--count does not sample: -ra "
			   "does not apply");
	if ((c->call_graph || c->call_graph_g) && (a->input || c->count))
		argp_error(state, "-g and --call-graph record call stacks "
			   "in a sampling run; they do not apply to %s",
			   a->input ? "-i" : "--count");
	if (c->call_graph && c->call_graph_g)
		argp_error(state, "give -g or --call-graph, not both");
	if (c->report.stack_view && (c->report.view != REPORT_PROCEDURES ||
				     c->report.stride >= 0))
		argp_error(state, "-callers, -callees and -tree show "
			   "procedures: -lines, -heavy, -blocks, -asm and "
			   "-stride do not apply");
	check_timeline(a, state);
	if (c->report.by && c->report.stack_view)
		argp_error(state, "-by splits the rows of -procedures, "
			   "-lines, -heavy, -blocks and -asm: -callers, "
			   "-callees and -tree do not apply");
	if (c->report.by && c->format != RUN_FORMAT_TEXT &&
	    c->format != RUN_FORMAT_JSON)
		argp_error(state, "-by applies to the text and json "
			   "reports, not to --format %s",
			   run_format_names[c->format]);
	if ((c->report.by & REPORT_BY_TASK) && c->nra && a->input)
		argp_error(state, "-by comm, pid, tid and cpu split the "
			   "samples as taken: -ra of a profile does not "
			   "apply");
	if (c->nra && a->input && run_format_is_export(c->format))
		argp_error(state, "-ra charges the rows' samples to callers; "
			   "--format %s exports the call stacks as taken: "
			   "give one or the other",
			   run_format_names[c->format]);
	if (c->report.stack_view && c->format == RUN_FORMAT_FOLDED)
		argp_error(state, "--format folded writes every stack: "
			   "-callers, -callees and -tree do not apply");
	if (run_format_is_export(c->format) &&
	    c->format != RUN_FORMAT_FOLDED &&
	    (c->report.stack_view || c->row_options))
		argp_error(state, "--format %s exports the whole profile: "
			   "the row and call-stack views (-procedures, "
			   "-lines, -quit, -only, -tree, ...) do not apply",
			   run_format_names[c->format]);
	if (c->format == RUN_FORMAT_CSV && c->report.stack_view)
		argp_error(state, "--format csv lays out the rows of a view: "
			   "-callers, -callees and -tree do not apply (use "
			   "--format json)");
	if (run_format_is_export(c->format) &&
	    c->format != RUN_FORMAT_FOLDED && !a->input && !c->report_file)
		argp_error(state, "--format %s after a run needs "
			   "-report-file FILE (stderr is for messages)",
			   run_format_names[c->format]);
	if (c->start_after && (c->triggered || c->control))
		argp_error(state, "--start-after and -t/-control "
			   "both decide when counting starts; give "
			   "one");
}

error_t fe_parse_root(int key, char *arg, struct argp_state *state)
{
	struct fe_args *a = state->input;
	struct run_config *c = &a->cfg;
	const struct fe_tool *t = a->tool;
	error_t e;
	size_t i;

	switch (key) {
	case ARGP_KEY_INIT:
		for (i = 0; i < a->ngroups; i++)
			state->child_inputs[i] = a;
		return 0;
	case ARGP_KEY_ARG:
		/* "-timeline 40": the number right after a -timeline
		 * without "=N" is its N (argp gives an optional value only
		 * after "="). */
		if (a->timeline_next && a->timeline_next == state->next - 1 &&
		    all_digits(arg)) {
			parse_intervals(&c->report, arg, state);
			return 0;
		}
		/* Tru64: statistics are the words before the program.  A
		 * last word that is also a program on PATH is the program
		 * (a program may be called "reset" or "trap"). */
		if (a->merge_out || a->diff || a->archive_out) {
			add_input(a, arg, state);
			return 0;
		}
		if (!c->cmd && run_is_statistic(c, arg) &&
		    (state->next < state->argc || !on_path(arg))) {
			add_stats(a, arg, state);
			return 0;
		}
		c->cmd = &state->argv[state->next - 1];
		c->ncmd = state->argc - state->next + 1;
		state->next = state->argc;
		return 0;
	case ARGP_KEY_END:
		check_combinations(a, state);
		/* then the tool's own checks */
		if (t->parse && !a->list && !a->completion) {
			e = t->parse(key, arg, state, c);
			if (e != ARGP_ERR_UNKNOWN)
				return e;
		}
		return 0;
	default:
		if (t->parse) {
			e = t->parse(key, arg, state, c);
			if (e != ARGP_ERR_UNKNOWN)
				return e;
		}
		return ARGP_ERR_UNKNOWN;
	}
}

enum fe_action fe_action(const struct fe_args *a)
{
	if (a->completion)
		return FE_ACTION_COMPLETION;
	if (a->list)
		return FE_ACTION_LIST;
	if (a->merge_out)
		return FE_ACTION_MERGE;
	if (a->archive_out)
		return FE_ACTION_ARCHIVE;
	if (a->diff)
		return FE_ACTION_DIFF;
	return a->input ? FE_ACTION_REPORT : FE_ACTION_RUN;
}
