/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <fcntl.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "collect.h"
#include "error.h"
#include "frontend.h"
#include "launch.h"
#include "parse.h"
#include "perf.h"
#include "privilege.h"
#include "profile.h"
#include "profileme.h"
#include "report.h"
#include "sim.h"
#include "stats.h"
#include "symbolize.h"

#define DEFAULT_FREQ 1000
#define SUMMARY_ROWS 5

enum {
	OPT_KERNEL = 1000, OPT_USER, OPT_DIRNAME, OPT_PIDS, OPT_NOPIDS,
	OPT_ALL, OPT_EACH, OPT_ONE, OPT_DISPLAY, OPT_PROCEDURES, OPT_LINES,
	OPT_HEAVY, OPT_QUIT, OPT_ONLY, OPT_EXCLUDE, OPT_NUMBERS, OPT_FORMAT,
	OPT_QUIET, OPT_COMPLETION, OPT_CONTROL, OPT_LIST, OPT_DRY_RUN,
	OPT_REPORT_FILE, OPT_PMU, OPT_COUNT, OPT_START_AFTER,
	OPT_BLOCKS, OPT_ASM, OPT_STRIDE, OPT_AVERAGE, OPT_ENGINE, OPT_PIXIE,
};

static const struct argp_option stat_options[] = {
	{ NULL, 0, NULL, 0, "Statistics and sampling:", 1 },
	{ "event", 'e', "NAME[,NAME...]", 0,
	  "statistics to sample (default: cycles); also as words before "
	  "PROGRAM; NAME:u, :k, :h limit the modes", 1 },
	{ "freq", 'F', "HZ", 0,
	  "samples per second per statistic (default: 1000)", 1 },
	{ "period", 'c', "N", 0,
	  "one sample every N events (instead of -F)", 1 },
	{ "list", 'l', NULL, 0,
	  "list the statistics and whether this machine has them", 1 },
	{ "dry-run", OPT_DRY_RUN, NULL, 0,
	  "print the perf_event_attr of each event that would be opened, "
	  "and exit (hardware statistics are shown even without a PMU)", 1 },
	{ "pmu", OPT_PMU, "FAMILY", 0,
	  "instruction sampling (profile-me): names such as retire, cycles, "
	  "delay, mispredict, dtb_miss are sampled on FAMILY: amd-ibs, "
	  "intel-pebs, arm-spe or auto (docs/profileme.md; UPROFILE_SYSFS "
	  "names another sysfs root, for --dry-run)", 1 },
	{ "count", OPT_COUNT, NULL, 0,
	  "count instead of sampling: whole-run totals of each statistic "
	  "and the ratios they give (cycles_per_ret, X_per_ret, rates); "
	  "NAME_per_ret opens its inputs as one group", 1 },
	{ "start-after", OPT_START_AFTER, "STAT:N", 0,
	  "start counting or sampling only after statistic STAT has occurred "
	  "N times (the originals' cascaded counters); the hand-over takes "
	  "about 0.1 ms, events of that time are missed", 1 },
	{ "engine", OPT_ENGINE, "perf|sim", 0,
	  "(uprofile) perf: sample with perf_event_open (default); sim: run "
	  "under "
	  "valgrind and count every event exactly (instructions, loads, "
	  "stores, branches) or by simulation (caches, mispredicts), "
	  "user mode only, deterministic (default statistic: retinst)", 1 },
	{ "pixie", OPT_PIXIE, NULL, 0,
	  "(uprofile) after the sampled run, run the program again under "
	  "valgrind "
	  "and add exact instruction counts (retinst, simulated) to the "
	  "profile; the program must behave the same in both runs (same "
	  "input, same work): a warning says when they clearly differ", 1 },
	{ "kernel", OPT_KERNEL, NULL, 0, "also sample kernel mode", 1 },
	{ "user", OPT_USER, NULL, 0, "also sample user mode", 1 },
	{ 0 }
};

static const struct argp_option output_options[] = {
	{ NULL, 0, NULL, 0, "Output:", 2 },
	{ "output", 'o', "FILE", 0, "profile file name", 2 },
	{ "dirname", OPT_DIRNAME, "DIR", 0, "directory for profile files", 2 },
	{ "pids", OPT_PIDS, NULL, 0,
	  "one profile per process, PID in the file name", 2 },
	{ "nopids", OPT_NOPIDS, NULL, 0, "one profile for all (default)", 2 },
	{ "all", OPT_ALL, NULL, 0, "one profile for all CPUs (default)", 2 },
	{ "each", OPT_EACH, NULL, 0, "one profile per CPU: FILE.N", 2 },
	{ "one", OPT_ONE, NULL, 0,
	  "only the CPU the tool runs on (it pins itself there)", 2 },
	{ "quiet", OPT_QUIET, NULL, 0, "no informational messages", 2 },
	{ "verbose", 'v', NULL, 0, "say what is profiled and how", 2 },
	{ 0 }
};

static const struct argp_option run_options[] = {
	{ NULL, 0, NULL, 0, "What to profile:", 3 },
	{ "pid", 'p', "PID", 0,
	  "attach to a running process and its threads", 3 },
	{ "duration", 'd', "SECONDS", 0,
	  "stop collecting after SECONDS (with -p or without PROGRAM)", 3 },
	{ "triggered", 't', NULL, 0,
	  "set everything up but sample only when triggered: SIGUSR1 "
	  "starts, SIGUSR2 stops, or 'enable'/'disable' lines on -control",
	  3 },
	{ "control", OPT_CONTROL, "FIFO", 0,
	  "read 'enable' and 'disable' commands from FIFO (created if "
	  "missing, and then removed at the end)", 3 },
	{ "input", 'i', "FILE", 0,
	  "report an existing profile FILE; run nothing", 3 },
	{ 0 }
};

static const struct argp_option display_options[] = {
	{ NULL, 0, NULL, 0, "Display (any of these implies -display):", 4 },
	{ "display", OPT_DISPLAY, NULL, 0,
	  "print the report after collecting", 4 },
	{ "procedures", OPT_PROCEDURES, NULL, 0,
	  "per procedure, hottest first (default)", 4 },
	{ "lines", OPT_LINES, NULL, 0,
	  "per source line, in procedure and line order", 4 },
	{ "heavy", OPT_HEAVY, NULL, 0, "per source line, hottest first", 4 },
	{ "blocks", OPT_BLOCKS, NULL, 0,
	  "per basic block, hottest first, with freq (estimated executions)",
	  4 },
	{ "asm", OPT_ASM, NULL, 0,
	  "each procedure's instructions with their counts, basic blocks "
	  "marked, source lines interleaved; procedures hottest first", 4 },
	{ "stride", OPT_STRIDE, "N", 0,
	  "group instructions into buckets of N (a power of two; 0: one "
	  "bucket per procedure); with -asm, list buckets", 4 },
	{ "average", OPT_AVERAGE, NULL, 0,
	  "also show each statistic per execution (divided by exact "
	  "counts from -pixie or the sim engine, else by freq)", 4 },
	{ "quit", OPT_QUIT, "N|N%", 0,
	  "stop after N rows, or at the first row below N percent", 4 },
	{ "only", OPT_ONLY, "PROC", 0,
	  "only procedures matching PROC (a glob; repeatable)", 4 },
	{ "exclude", OPT_EXCLUDE, "PROC", 0,
	  "leave out procedures matching PROC (repeatable)", 4 },
	{ "numbers", OPT_NUMBERS, NULL, 0, "show addresses", 4 },
	{ "format", OPT_FORMAT, "text|json", 0, "report format", 4 },
	{ "report-file", OPT_REPORT_FILE, "FILE", 0,
	  "after a run, write the report to FILE (default: stderr, since "
	  "stdout is the program's); with -i it goes to stdout", 4 },
	{ "completion-helper", OPT_COMPLETION, NULL, OPTION_HIDDEN,
	  "list options for shell completion", 4 },
	{ 0 }
};

static const struct argp_option *const all_option_tables[] = {
	stat_options, output_options, run_options, display_options,
};

static const struct fe_tool *g_tool;

static int add_str(char ***v, size_t *n, size_t *alloc, char *s)
{
	if (ALLOC_GROW(*v, *n + 1, *alloc))
		return -1;
	(*v)[(*n)++] = s;
	return 0;
}

static void add_stats(struct fe_config *c, char *list,
		      struct argp_state *state)
{
	char *save = NULL, *tok;

	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (add_str(&c->stats, &c->nstats, &c->alloc_stats, tok))
			argp_failure(state, FE_EXIT_FAIL, ENOMEM, "options");
}

/* The name -l shows: pm_NAME where the plain name is a counter's. */
static const char *list_name(const struct stat_def *d, char *buf, size_t len)
{
	const struct stat_def *plain = stat_lookup(d->name);

	if (d->kind == STAT_PROFILEME && plain != d) {
		snprintf(buf, len, "pm_%s", d->name);
		return buf;
	}
	return d->name;
}

/* "-name" (and "-k" for a short key), with "=" when a value follows. */
static void print_completion_option(const struct argp_option *o)
{
	const char *eq = o->arg ? "=" : "";

	if (o->flags & OPTION_HIDDEN)
		return;
	if (o->name)
		printf("-%s%s\n", o->name, eq);
	if (o->key > 0 && o->key < 128 && isalpha(o->key))
		printf("-%c%s\n", o->key, eq);
}

static void print_completion(void)
{
	size_t t;
	const struct argp_option *o;

	for (t = 0; t < sizeof(all_option_tables) /
		    sizeof(all_option_tables[0]); t++)
		for (o = all_option_tables[t]; o->name || o->key || o->doc;
		     o++)
			print_completion_option(o);
	for (o = g_tool->options; o && (o->name || o->key || o->doc); o++)
		print_completion_option(o);
	for (t = 0; t < stat_table_len; t++) {
		char name[40];

		printf("stat:%s\n", list_name(&stat_table[t], name,
					     sizeof(name)));
	}
	/* The sim engine's names that the table spells differently. */
	for (t = 0; t < sim_stats_len; t++)
		if (!stat_lookup(sim_stats[t].name))
			printf("stat:%s\n", sim_stats[t].name);
}


static void list_statistics(const struct fe_config *c)
{
	static const struct {
		enum stat_kind kind;
		const char *title;
	} groups[] = {
		{ STAT_HW, "Aggregate hardware events (counted by the PMU; "
		  "the originals' aggregate mode):" },
		{ STAT_PROFILEME, "Profile-me statistics (what a sampled "
		  "instruction met: AMD IBS, Intel PEBS, Arm SPE):" },
		{ STAT_SW, "Software events (counted by the kernel; always "
		  "there):" },
		{ STAT_DERIVED, "Derived statistics (computed at report time "
		  "from profile-me counts):" },
	};
	unsigned modes = g_tool->default_modes;
	char machine[512];
	size_t g, i;

	if (c->engine == FE_ENGINE_SIM) {
		printf("%-18s %-13s %-28s %s\n", "statistic", "here",
		       "other names", "description (--engine=sim)");
		for (i = 0; i < sim_stats_len; i++)
			printf("%-18s %-13s %-28s %s\n", sim_stats[i].name,
			       "simulated", sim_stats[i].aliases ?
			       sim_stats[i].aliases : "-", sim_stats[i].desc);
		return;
	}

	stat_machine_describe(machine, sizeof(machine));
	printf("%s\n", machine);
	printf("A plain name is an aggregate counter or software event; "
	       "pm_NAME is the profile-me\nstatistic NAME (pm_cycles, "
	       "pm_mispredict, pm_replay_trap, ...).  Also accepted: "
	       "libpfm4\nnative names (INST_RETIRED:ANY_P), raw rNNNN, and "
	       ":u :k :h after any name.\n");
	printf("SPE*: Arm SPE packets are decoded, but collecting them (the "
	       "AUX area) is not\nimplemented yet (docs/profileme.md).\n");
	for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		printf("\n%s\n%-19s %-24s %s\n", groups[g].title,
		       "statistic", "here", "description (other names)");
		for (i = 0; i < stat_table_len; i++) {
			const struct stat_def *d = &stat_table[i], *sub;
			const char *why;
			char here[64], name[40];

			if (d->kind != groups[g].kind)
				continue;
			why = stat_unavailable(d, modes, perf_probe, NULL,
					       &sub);
			if (why)
				snprintf(here, sizeof(here), "no: %s", why);
			else if (sub)
				snprintf(here, sizeof(here), "as %s",
					 sub->name);
			else
				snprintf(here, sizeof(here), "yes");
			printf("%-19s %-24s %s%s%s%s\n",
			       list_name(d, name, sizeof(name)), here,
			       d->desc, d->aliases ? " (" : "",
			       d->aliases ? d->aliases : "",
			       d->aliases ? ")" : "");
		}
	}
}

static error_t parse_shared(int key, char *arg, struct argp_state *state)
{
	struct fe_config *c = state->input;
	uint64_t u;
	long l;

	switch (key) {
	case 'e':
		add_stats(c, arg, state);
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
	case OPT_KERNEL: c->add_modes |= STAT_MODE_KERNEL; break;
	case OPT_USER: c->add_modes |= STAT_MODE_USER; break;
	case 'o': c->output = arg; break;
	case OPT_DIRNAME: c->dirname = arg; break;
	case OPT_PIDS: c->pids = 1; break;
	case OPT_NOPIDS: c->pids = 0; break;
	case OPT_ALL: c->cpus = FE_CPUS_ALL; break;
	case OPT_EACH: c->cpus = FE_CPUS_EACH; break;
	case OPT_ONE: c->cpus = FE_CPUS_ONE; break;
	case OPT_QUIET: c->quiet = 1; break;
	case 'v': c->verbose = 1; break;
	case 'p':
		if (parse_int(arg, 1, INT_MAX, &l))
			argp_error(state, "bad process id '%s'", arg);
		c->attach_pid = l;
		break;
	case 'd':
		if (parse_double(arg, 0.001, 1e7, &c->duration))
			argp_error(state, "bad duration '%s': expected "
				   "seconds, e.g. 10 or 2.5", arg);
		break;
	case 'i': c->input = arg; break;
	case 't': c->triggered = 1; break;
	case OPT_CONTROL: c->control = arg; break;
	case OPT_DISPLAY: c->display = 1; break;
	case OPT_PROCEDURES: c->display = 1; c->row_options = 1; c->view = REPORT_PROCEDURES;
		break;
	case OPT_LINES: c->display = 1; c->row_options = 1; c->view = REPORT_LINES; break;
	case OPT_HEAVY: c->display = 1; c->row_options = 1; c->view = REPORT_HEAVY; break;
	case OPT_BLOCKS: c->display = 1; c->row_options = 1; c->view = REPORT_BLOCKS; break;
	case OPT_ASM: c->display = 1; c->row_options = 1; c->view = REPORT_ASM; break;
	case OPT_AVERAGE: c->display = 1; c->row_options = 1; c->average = 1; break;
	case OPT_STRIDE:
		c->display = 1;
		c->row_options = 1;
		if (parse_u64(arg, 0, 1u << 20, &u) || (u & (u - 1)))
			argp_error(state, "bad -stride '%s': expected a power "
				   "of two, or 0 for one bucket per procedure",
				   arg);
		c->stride = (long)u;
		break;
	case OPT_QUIT: {
		size_t n = strlen(arg);

		c->display = 1;
		c->row_options = 1;
		if (n > 1 && arg[n - 1] == '%') {
			char num[64];

			snprintf(num, sizeof(num), "%.*s", (int)(n - 1), arg);
			if (parse_double(num, 0, 100, &c->quit_percent))
				argp_error(state, "bad -quit '%s'", arg);
		} else if (parse_u64(arg, 1, SIZE_MAX, &u)) {
			argp_error(state, "bad -quit '%s': expected N rows "
				   "or N%%", arg);
		} else {
			c->quit_rows = (size_t)u;
		}
		break;
	}
	case OPT_ONLY:
		c->display = 1;
		c->row_options = 1;
		if (add_str((char ***)&c->only, &c->nonly, &c->alloc_only,
			    arg))
			argp_failure(state, FE_EXIT_FAIL, ENOMEM, "options");
		break;
	case OPT_EXCLUDE:
		c->display = 1;
		c->row_options = 1;
		if (add_str((char ***)&c->exclude, &c->nexclude,
			    &c->alloc_exclude, arg))
			argp_failure(state, FE_EXIT_FAIL, ENOMEM, "options");
		break;
	case OPT_NUMBERS: c->display = 1; c->row_options = 1; c->numbers = 1; break;
	case OPT_REPORT_FILE: c->display = 1; c->report_file = arg; break;
	case OPT_FORMAT:
		if (!strcmp(arg, "json"))
			c->json = 1;
		else if (!strcmp(arg, "text"))
			c->json = 0;
		else
			argp_error(state, "bad format '%s': use text or json",
				   arg);
		break;
	case OPT_COMPLETION:
		print_completion();
		exit(0);
	case 'l':
		list_statistics(c);
		exit(0);
	case OPT_DRY_RUN: c->dry_run = 1; break;
	case OPT_PMU:
		if (strcmp(arg, "auto") && pm_family_lookup(arg) < 0)
			argp_error(state, "--pmu: unknown family '%s' (amd-ibs,"
				   " intel-pebs, arm-spe or auto)", arg);
		c->pmu = arg;
		break;
	case OPT_COUNT: c->count = 1; break;
	case OPT_START_AFTER: {
		const char *colon = strrchr(arg, ':');
		char name[64];

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
		snprintf(c->start_after_stat, sizeof(c->start_after_stat),
			 "%.*s", (int)(colon - arg), arg);
		c->start_after_n = u;
		c->start_after = arg;
		break;
	}
	case OPT_ENGINE:
		if (!strcmp(arg, "perf"))
			c->engine = FE_ENGINE_PERF;
		else if (!strcmp(arg, "sim"))
			c->engine = FE_ENGINE_SIM;
		else
			argp_error(state, "bad engine '%s': use perf or sim",
				   arg);
		break;
	case OPT_PIXIE: c->pixie = 1; break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

#define PER_RET "_per_ret"

/*
 * For a derived statistic "X_per_ret[:mods]", the name of X in buf;
 * NULL for any other name.  Recognised by the suffix, not the table: the
 * table lists the originals' ratios, but any statistic X has one.
 */
static const char *per_ret_input(const char *word, char *buf, size_t len)
{
	size_t n = strcspn(word, ":"), sl = strlen(PER_RET);

	if (n <= sl || strncmp(word + n - sl, PER_RET, sl) ||
	    n - sl >= len)
		return NULL;
	snprintf(buf, len, "%.*s", (int)(n - sl), word);
	return buf;
}

/* "freq[:mods]": retired instructions averaged over basic blocks. */
static int is_freq(const char *word)
{
	return !strncmp(word, "freq", 4) && (!word[4] || word[4] == ':');
}

static int looks_like_stat(const struct fe_config *c, const char *word)
{
	char name[64], in[64];

	snprintf(name, sizeof(name), "%s", word);
	name[strcspn(name, ":")] = '\0';
	if (per_ret_input(name, in, sizeof(in)))
		snprintf(name, sizeof(name), "%s", in);
	if (strchr(word, '/'))
		return 0;
	return stat_lookup(name) != NULL ||
	       (c->pmu && pm_lookup(name) >= 0) ||
	       (c->engine == FE_ENGINE_SIM && sim_stat_lookup(name));
}

/* The sim engine runs a program under valgrind: user mode, every event
 * counted; options about sampling or other targets do not apply. */
static void check_sim_options(const struct fe_config *c,
			      struct argp_state *state)
{
	const char *what = c->pixie ? "-pixie" : "--engine=sim";

	if (c->pixie && c->engine == FE_ENGINE_SIM)
		argp_error(state, "-pixie adds a sim run to a perf run; with "
			   "--engine=sim every count is already exact");
	if (g_tool->scope != FE_SCOPE_TASKS)
		argp_error(state, "%s is for programs (uprofile): valgrind "
			   "does not see the kernel", what);
	if (c->attach_pid)
		argp_error(state, "%s needs a PROGRAM to run (it cannot "
			   "attach with -p)", what);
	if (c->engine == FE_ENGINE_SIM) {
		if (c->freq || c->period)
			argp_error(state, "--engine=sim counts every event; "
				   "-F and -c do not apply");
		if (c->add_modes & STAT_MODE_KERNEL)
			argp_error(state, "--engine=sim sees user mode only; "
				   "-kernel does not apply");
	}
	if (c->triggered || c->control)
		argp_error(state, "%s counts the whole run; -t and -control "
			   "do not apply", what);
	if (c->cpus != FE_CPUS_ALL)
		argp_error(state, "%s has no CPUs to split by; -each and -one "
			   "do not apply", what);
}

/* Whether name is a program launch would find. */
static int on_path(const char *name)
{
	char *path = NULL;
	int err = launch_find(name, &path);

	free(path);
	return !err;
}

static error_t parse_root(int key, char *arg, struct argp_state *state)
{
	struct fe_config *c = state->input;
	size_t i;

	switch (key) {
	case ARGP_KEY_INIT:
		for (i = 0; i < 4; i++)
			state->child_inputs[i] = c;
		return 0;
	case ARGP_KEY_ARG:
		/* Tru64: statistics are the words before the program.  A
		 * last word that is also a program on PATH is the program
		 * (a program may be called "reset" or "trap"). */
		if (!c->cmd && looks_like_stat(c, arg) &&
		    (state->next < state->argc || !on_path(arg))) {
			add_stats(c, arg, state);
			return 0;
		}
		c->cmd = &state->argv[state->next - 1];
		c->ncmd = state->argc - state->next + 1;
		state->next = state->argc;
		return 0;
	case ARGP_KEY_END:
		if (c->input && (c->cmd || c->attach_pid))
			argp_error(state, "-i reports a file; it cannot be "
				   "combined with a program or -p");
		if (c->attach_pid && c->cmd)
			argp_error(state, "give either a program or -p PID, "
				   "not both");
		if (!c->input && !c->attach_pid && !c->cmd &&
		    g_tool->program_required)
			argp_error(state, "no program to profile (give "
				   "PROGRAM, -p PID or -i FILE)");
		if (c->duration && c->cmd)
			argp_error(state, "-d applies to -p or to collection "
				   "without a program");
		if (c->input && (c->count || c->start_after))
			argp_error(state, "-i reports a file; --count and "
				   "--start-after apply to a run");
		if (c->count && (c->freq || c->period))
			argp_error(state, "--count does not sample: -F and -c "
				   "do not apply");
		if (c->count && (c->pids || c->cpus == FE_CPUS_EACH))
			argp_error(state, "--count gives whole-run totals: "
				   "-pids and -each do not apply");
		if (c->count && c->row_options)
			argp_error(state, "--count has no rows: -procedures, "
				   "-lines, -heavy, -quit, -only, -exclude and "
				   "-numbers do not apply (use -display)");
		if (c->count && c->nra)
			argp_error(state, "--count does not sample: -ra "
				   "does not apply");
		if (c->start_after && (c->triggered || c->control))
			argp_error(state, "--start-after and -t/-control "
				   "both decide when counting starts; give "
				   "one");
		if (c->engine == FE_ENGINE_SIM || c->pixie)
			check_sim_options(c, state);
		return 0;
	default:
		if (g_tool->parse)
			return g_tool->parse(key, arg, state, c);
		return ARGP_ERR_UNKNOWN;
	}
}

/* ---- running ----------------------------------------------------------- */

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void notice(const struct fe_config *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void notice(const struct fe_config *c, const char *fmt, ...)
{
	va_list ap;

	if (c->quiet)
		return;
	fprintf(stderr, "%s: ", g_tool->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int fail(int err)
{
	fprintf(stderr, "%s: %s\n", g_tool->name, prof_error(err));
	return FE_EXIT_FAIL;
}

/* Feed the executable mappings listed in a /proc maps file; returns how
 * many there were. */
static int synthesize_from(struct collector *col, pid_t pid, const char *path)
{
	char line[4096];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		char perm[8];
		int name_at = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &lo, &hi,
			   perm, &off, &name_at) < 4 || perm[2] != 'x')
			continue;
		while (line[name_at] == ' ')
			name_at++;
		line[strcspn(line, "\n")] = '\0';
		collector_mmap(col, (uint32_t)pid, lo, hi - lo, off,
			       line + name_at, NULL, 0, 0);
		n++;
	}
	fclose(f);
	return n;
}

/*
 * Synthesize the mappings of an existing process from /proc.  A process
 * whose main thread has exited (pthread_exit) shows empty maps under its
 * pid: any live thread's view is the same address space.
 */
static void synthesize_maps(struct collector *col, pid_t pid)
{
	char path[96];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (synthesize_from(col, pid, path))
		return;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/maps",
			 (int)pid, e->d_name);
		if (synthesize_from(col, pid, path))
			break;
	}
	closedir(d);
}

static int list_tids(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	size_t alloc = 0;

	*tids = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return prof_fail(PROF_ENOENT, "no process %d", (int)pid);
	while ((e = readdir(d))) {
		long t;

		if (parse_int(e->d_name, 1, INT_MAX, &t))
			continue;
		if (ALLOC_GROW(*tids, *n + 1, alloc)) {
			closedir(d);
			return -PROF_ENOMEM;
		}
		(*tids)[(*n)++] = (pid_t)t;
	}
	closedir(d);
	return 0;
}

static void synthesize_all(struct collector *col)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		long pid;

		if (!parse_int(e->d_name, 1, INT_MAX, &pid))
			synthesize_maps(col, (pid_t)pid);
	}
	closedir(d);
}

/* File name for one profile of a run. */
static char *profile_path(const struct fe_config *c, const struct profile *p,
			  int split)
{
	const char *base = c->output ? c->output : g_tool->default_file;
	char *name = NULL, *full = NULL;
	size_t n = strlen(base);
	int r;

	if (split && p->pid >= 0) {
		/* umon.out -> umon.1234.out, other names get .1234 */
		if (n > 4 && !strcmp(base + n - 4, ".out"))
			r = asprintf(&name, "%.*s.%d.out", (int)(n - 4), base,
				     p->pid);
		else
			r = asprintf(&name, "%s.%d", base, p->pid);
	} else if (split && p->cpu >= 0) {
		r = asprintf(&name, "%s.%d", base, p->cpu);
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

static int cmp_ksym(const void *a, const void *b)
{
	const struct sym_ksym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Put the kernel symbols that cover the profile's kernel addresses into
 * the profile: with KASLR the addresses are only meaningful with this
 * boot's symbols.  _text is kept too, for -k vmlinux's relocation.
 */
static int embed_kernel_symbols(struct profile *p, struct symbolizer *sym)
{
	struct sym_ksym *v = NULL, k;
	size_t n = 0, alloc = 0, i;
	int err = 0;

	for (i = 0; i <= p->ncounts; i++) {
		int r;

		if (i < p->ncounts) {
			if (p->objects[p->counts[i].obj].kind != PROF_OBJ_KERNEL)
				continue;
			r = sym_kernel_symbol(sym, p->counts[i].offset, &k);
		} else {
			if (!n)
				break;
			r = sym_kernel_symbol_by_name(sym, "_text", &k);
		}
		if (r < 0)
			break;	/* hidden or unreadable: rows show addresses */
		if (r > 0)
			continue;
		if (n && v[n - 1].start == k.start)
			continue;
		if (ALLOC_GROW(v, n + 1, alloc)) {
			err = -PROF_ENOMEM;
			goto out;
		}
		v[n++] = k;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_ksym);
	for (i = 0; i < n; i++) {
		struct prof_ksym pk = {
			.start = v[i].start, .end = v[i].end,
			.name = (char *)v[i].name, .module = (char *)v[i].module,
		};

		if (i && v[i].start == v[i - 1].start)
			continue;
		if (profile_add_ksym(p, &pk) < 0) {
			err = -PROF_ENOMEM;
			break;
		}
	}
out:
	free(v);
	return err;
}

/* A symbolizer for reporting p: with its own kernel symbols if it has. */
static struct symbolizer *report_symbolizer(const struct fe_config *c,
					    const struct profile *p)
{
	struct sym_config sc = { .vmlinux = c->vmlinux };
	struct symbolizer *sym = symbolizer_new(&sc);
	struct sym_ksym *v;
	size_t i;

	if (!sym || !p->nksyms)
		return sym;
	v = calloc(p->nksyms, sizeof(*v));
	if (!v) {
		symbolizer_free(sym);
		return NULL;
	}
	for (i = 0; i < p->nksyms; i++) {
		v[i].start = p->ksyms[i].start;
		v[i].end = p->ksyms[i].end;
		v[i].name = p->ksyms[i].name;
		v[i].module = p->ksyms[i].module;
	}
	if (sym_set_kernel_symbols(sym, v, p->nksyms) == SYM_ENOMEM) {
		symbolizer_free(sym);
		sym = NULL;
	}
	free(v);
	return sym;
}

/* A counting profile: totals and ratios, no rows.  The summary after a
 * run is the whole text report: it is a few lines. */
static int show_counts(const struct fe_config *c, const struct profile *p,
		       const char *file, int summary_only, FILE *out)
{
	struct report_counts *rc;
	int err = report_counts_build(p, file, &rc);

	if (err)
		return err;
	if (c->row_options && !summary_only)
		fprintf(stderr, "%s: note: '%s' is a counting profile: it "
			"has no rows, so row options are ignored\n",
			g_tool->name, file ? file : "");
	if (c->json && !summary_only)
		err = report_counts_json(out, rc);
	else
		err = report_counts_text(out, rc);
	if (!err && fflush(out))
		err = prof_fail(PROF_EIO, "cannot write report: %s",
				strerror(errno));
	report_counts_free(rc);
	return err;
}

static int show_report(const struct fe_config *c, const struct profile *p,
		       const char *file, int summary_only, FILE *out)
{
	struct symbolizer *sym = report_symbolizer(c, p);
	struct report_options ro = {
		.view = (enum report_view)c->view,
		.quit_rows = c->quit_rows,
		.quit_percent = c->quit_percent,
		.only = c->only, .nonly = c->nonly,
		.exclude = c->exclude, .nexclude = c->nexclude,
		.numbers = c->numbers,
		.file = file,
		.stride = c->stride,
		.average = c->average,
	};
	struct report *r;
	int err;

	if (report_is_counting(p)) {
		symbolizer_free(sym);
		return show_counts(c, p, file, summary_only, out);
	}
	if (!sym)
		return prof_fail(PROF_ENOMEM, "out of memory");
	if (summary_only) {
		ro.view = REPORT_PROCEDURES;
		ro.nonly = ro.nexclude = 0;
		ro.quit_rows = ro.quit_percent = 0;
		ro.stride = -1;
		ro.average = 0;
	}
	err = report_build(p, sym, &ro, &r);
	if (err) {
		symbolizer_free(sym);
		return err;
	}
	if (summary_only)
		err = report_summary(out, r, SUMMARY_ROWS);
	else if (c->json)
		err = report_json(out, r);
	else
		err = report_text(out, r);
	if (!err && fflush(out))
		err = prof_fail(PROF_EIO, "cannot write report: %s",
				strerror(errno));
	report_free(r);
	symbolizer_free(sym);
	return err;
}

static int report_only(const struct fe_config *c)
{
	struct profile *p;
	int err = profile_read(c->input, &p);

	if (err)
		return fail(err);
	err = show_report(c, p, c->input, 0, stdout);
	profile_free(p);
	return err ? fail(err) : 0;
}

struct run {
	struct fe_config *cfg;
	struct stat_choice *choice;
	size_t nstats;
	struct perf_event_spec *specs;
	struct pm_pmu pmu;		/* --pmu: the family's PMU */
	struct collector *col;
	struct perf_session *sess;
	struct launch child;
	struct symbolizer *sym;		/* kernel symbols, when sampled */
	int one_cpu;			/* -one: the CPU, else -1 */
	int have_child;
	int sigfd;
	int sigint_ignored;
	int control_fd, control_keep_fd;	/* -control FIFO */
	int control_made;			/* we created the FIFO */
	int sampling;				/* events are enabled */
	const char *path;			/* the program found */
	sigset_t old_mask;
	struct derived *derived;		/* NAME_per_ret asked for */
	size_t nderived;
	struct perf_trigger trigger;		/* --start-after */
	int have_trigger;
	int64_t fired_ns;			/* trigger fired, from t0; -1 */
	uint64_t t0;				/* CLOCK_MONOTONIC at start */
	uint64_t handover_ns;			/* signal read to enabled */
};

/*
 * --pmu: names of profile-me statistics sample the family's instruction
 * sampler.  Until the statistics table has STAT_PROFILEME entries, the
 * names resolve here through pm_lookup(); the stat_def of each is made
 * up from the profile-me names.
 */
static struct stat_def pm_defs[PM_NSTATS];

static int resolve_pm(struct run *r, const char *text, unsigned modes,
		      struct stat_choice *ch)
{
	char name[64];
	const char *colon = strchr(text, ':');
	int st;

	snprintf(name, sizeof(name), "%.*s",
		 (int)(colon ? (size_t)(colon - text) : strlen(text)), text);
	st = pm_lookup(name);
	if (st < 0)
		return 0;
	if (colon) {
		const char *m;

		modes = 0;
		for (m = colon + 1; *m; m++) {
			if (*m == 'u')
				modes |= STAT_MODE_USER;
			else if (*m == 'k')
				modes |= STAT_MODE_KERNEL;
			else if (*m == 'h')
				modes |= STAT_MODE_HV;
			else
				return prof_fail(PROF_EINVAL, "statistic '%s':"
						 " unknown modifier '%c' (u, k,"
						 " h)", text, *m);
		}
		if (!modes)
			return prof_fail(PROF_EINVAL, "statistic '%s': no "
					 "mode after ':'", text);
	}
	if (!pm_family_provides(r->pmu.family, st)) {
		char avail[512] = "";
		int i;

		for (i = 0; i < PM_NSTATS; i++)
			if (pm_family_provides(r->pmu.family, i))
				snprintf(avail + strlen(avail),
					 sizeof(avail) - strlen(avail),
					 "%s%s", avail[0] ? ", " : "",
					 pm_stat_name(i));
		return prof_fail(PROF_EUNAVAIL, "'%s' is not available: %s "
				 "samples do not record it (see "
				 "docs/profileme.md), try: %s", name,
				 pm_family_name(r->pmu.family), avail);
	}
	pm_defs[st] = (struct stat_def){
		.name = pm_stat_name(st), .desc = pm_stat_desc(st),
		.kind = STAT_HW, .type = r->pmu.type, .config = (uint64_t)st,
	};
	memset(ch, 0, sizeof(*ch));
	ch->def = ch->asked = &pm_defs[st];
	ch->type = r->pmu.type;
	ch->config = (uint64_t)st;
	ch->modes = modes;
	snprintf(ch->requested, sizeof(ch->requested), "%s", text);
	return 1;
}

static int setup_pmu(struct run *r)
{
	const char *root = getenv("UPROFILE_SYSFS");
	const char *f = r->cfg->pmu;

	if (!f)
		return 0;
	if (root && !*root)
		root = NULL;
	if (!strcmp(f, "auto"))
		return pm_pmu_detect(root, &r->pmu);
	return pm_pmu_probe(pm_family_lookup(f), root, &r->pmu);
}

/* A ratio the user asked for, and the statistics it divides. */
struct derived {
	char name[80];		/* canonical: "mispredict_per_ret" */
	char requested[64];	/* as typed */
	size_t x, ret;		/* indices into run.choice */
};

/*
 * Resolve one name into r->choice/specs, or find it there already.
 * Statistics opened for a ratio (implicit) may coincide with one another
 * or with one the user named; two the user named may not.
 */
static int add_stat(struct run *r, const char *text, int implicit,
		    size_t *index)
{
	struct fe_config *c = r->cfg;
	unsigned modes = g_tool->default_modes | c->add_modes;
	struct stat_choice *ch = &r->choice[r->nstats];
	int is_pm = c->pmu ? resolve_pm(r, text, modes, ch) : 0;
	int err = is_pm < 0 ? is_pm : is_pm ? 0 :
		  stat_resolve(text, modes, c->dry_run ? NULL : perf_probe,
			       NULL, ch);
	size_t j, i = r->nstats;

	if (err)
		return err;
	if (!is_pm && ch->def->kind == STAT_PROFILEME) {
		/* The table's profile-me statistic: sampled by this
		 * machine's instruction sampler (IBS, PEBS, SPE). */
		char pmtext[96];
		const char *colon = strchr(text, ':');

		if (!r->pmu.family) {
			const char *root = getenv("UPROFILE_SYSFS");

			err = pm_pmu_detect(root && *root ? root : NULL,
					    &r->pmu);
			if (err)
				return err;
		}
		snprintf(pmtext, sizeof(pmtext), "%s%s",
			 pm_stat_name(ch->def->pm), colon ? colon : "");
		is_pm = resolve_pm(r, pmtext, modes, ch);
		if (is_pm < 0)
			return is_pm;
		if (!is_pm)
			return prof_fail(PROF_EUNAVAIL, "statistic '%s' has "
					 "no profile-me decoder", text);
	}
	if (is_pm && c->count)
		return prof_fail(PROF_EINVAL, "'%s' is a profile-me statistic:"
				 " instruction samplers sample, they do not "
				 "count (drop --count)", text);
	if (ch->asked->kind == STAT_DERIVED)
		return prof_fail(PROF_EINVAL, "'%s' is derived from other "
				 "statistics and cannot be an input", text);
	if (c->verbose) {
		char what[320];

		stat_choice_describe(ch, what, sizeof(what));
		notice(c, "%s", what);
	}
	/* perf_event_spec has no config1/2 yet: refuse rather than open a
	 * different event (OFFCORE_RESPONSE, FRONTEND_RETIRED) */
	if (ch->config1 || ch->config2)
		return prof_fail(PROF_EUNAVAIL, "statistic '%s' (%s) needs "
				 "config1/config2, which this build cannot "
				 "pass yet", ch->requested, ch->event);
	for (j = 0; j < i; j++)
		if (r->choice[j].def == ch->def &&
		    r->choice[j].modes == ch->modes) {
			if (!implicit && !r->specs[j].group)
				return prof_fail(PROF_EINVAL,
						 "statistic '%s' is given twice"
						 " (as '%s' and '%s')",
						 ch->def->name,
						 r->choice[j].requested,
						 ch->requested);
			*index = j;
			return 0;
		}
	if (ch->substitute)
		notice(c, "'%s' is not available here (no hardware "
		       "PMU); %s '%s' instead", ch->requested,
		       c->count ? "counting" : "sampling", ch->def->name);
	r->specs[i].type = ch->type;
	r->specs[i].config = ch->config;
	r->specs[i].modes = ch->modes;
	/* System-wide, every mode is sampled so the mode histogram
	 * is whole; only the modes asked for become rows. */
	if (g_tool->scope == FE_SCOPE_SYSTEM && !c->count)
		r->specs[i].modes |= STAT_MODE_USER | STAT_MODE_KERNEL;
	if (c->count) {
		r->specs[i].counting = 1;
	} else {
		r->specs[i].period = c->period;
		r->specs[i].freq = c->period ? 0 :
				   (c->freq ? c->freq : DEFAULT_FREQ);
	}
	r->specs[i].cascaded = c->start_after != NULL;
	if (is_pm) {
		r->specs[i].pm.pmu = &r->pmu;
		r->specs[i].pm.stat = (enum pm_stat)ch->config;
	}
	r->nstats++;
	*index = i;
	return 0;
}

/* A derived statistic whose input cannot be measured: say which, and
 * why, in the form every unavailable statistic has. */
static int input_failed(const char *name, const char *input, int err)
{
	char why[512];
	const char *p;

	snprintf(why, sizeof(why), "%s", prof_error(err));
	p = strstr(why, " is not available here: ");
	return prof_fail(PROF_EUNAVAIL, "statistic '%s' is not available "
			 "here: its input '%s' is not: %s", name, input,
			 p ? p + strlen(" is not available here: ") : why);
}

static int resolve_stats(struct run *r)
{
	struct fe_config *c = r->cfg;
	const char *retired;
	size_t i, n, k;
	static char *dflt[] = { (char *)"cycles" };
	char **names = c->nstats ? c->stats : dflt;

	n = c->nstats ? c->nstats : 1;
	/* A ratio opens up to two statistics. */
	r->choice = calloc(2 * n, sizeof(*r->choice));
	r->specs = calloc(2 * n, sizeof(*r->specs));
	r->derived = calloc(n, sizeof(*r->derived));
	if (!r->choice || !r->specs || !r->derived)
		return -PROF_ENOMEM;
	{
		int err = setup_pmu(r);

		if (err)
			return err;
	}
	/* Ratios divide by retired instructions: the profile-me "retire"
	 * when an instruction sampler is in use, else the counter. */
	retired = r->pmu.family ? "retire" : "retinst";
	for (i = 0; i < n; i++) {
		char x[64], text[160];
		const char *mods = strchr(names[i], ':');
		struct derived *d = &r->derived[r->nderived];
		size_t idx;
		int err;

		if (is_freq(names[i])) {
			/* freq: retired instructions, averaged over basic
			 * blocks when the report is made; -pixie's exact
			 * counts serve as they are. */
			if (c->pixie) {
				d->ret = SIZE_MAX;
			} else {
				snprintf(text, sizeof(text), "%s%s", retired,
					 mods ? mods : "");
				err = add_stat(r, text, 1, &d->ret);
				if (err)
					return input_failed(names[i], retired,
							    err);
			}
			d->x = d->ret;
			snprintf(d->name, sizeof(d->name), "freq");
			snprintf(d->requested, sizeof(d->requested), "%s",
				 names[i]);
			r->nderived++;
			continue;
		}
		if (!per_ret_input(names[i], x, sizeof(x))) {
			err = add_stat(r, names[i], 0, &idx);
			if (err)
				return err;
			/* Named by the user: no longer only a ratio's. */
			continue;
		}
		/* X_per_ret[:mods]: X and retired instructions, with the
		 * same modes, counted together. */
		snprintf(text, sizeof(text), "%s%s", x, mods ? mods : "");
		err = add_stat(r, text, 1, &d->x);
		if (err == -PROF_ENOSTAT) {
			/* The table's suggestions for the whole name. */
			struct stat_choice tmp;

			err = stat_resolve(names[i], 0, NULL, NULL, &tmp);
			return err ? err : prof_fail(PROF_ENOSTAT, "unknown "
						     "statistic '%s'", x);
		}
		if (err)
			return input_failed(names[i], x, err);
		/* A profile-me X is divided by the profile-me retire; with
		 * -pixie, a counter's X by the exact retired count. */
		if (c->pixie && !r->specs[d->x].pm.pmu) {
			d->ret = SIZE_MAX;
		} else {
			snprintf(text, sizeof(text), "%s%s",
				 r->specs[d->x].pm.pmu ? "retire" : retired,
				 mods ? mods : "");
			err = add_stat(r, text, 1, &d->ret);
			if (err)
				return input_failed(names[i], text, err);
			r->specs[d->x].group = r->specs[d->ret].group = 1;
		}
		snprintf(d->name, sizeof(d->name), "%s" PER_RET,
			 r->choice[d->x].asked ? r->choice[d->x].asked->name :
			 r->choice[d->x].def->name);
		snprintf(d->requested, sizeof(d->requested), "%s", names[i]);
		for (k = 0; k < r->nderived; k++)
			if (!strcmp(r->derived[k].name, d->name))
				break;
		if (k == r->nderived)
			r->nderived++;
	}
	/* Only derived statistics named (freq with -pixie): sample the
	 * default too, so there is something per instruction. */
	if (!r->nstats) {
		size_t idx;
		int err = add_stat(r, "cycles", 0, &idx);

		if (err)
			return err;
	}
	if (c->start_after) {
		struct stat_choice ch;
		int err = stat_resolve(c->start_after_stat,
				       g_tool->default_modes | c->add_modes,
				       c->dry_run ? NULL : perf_probe, NULL,
				       &ch);

		if (err) {
			char why[256];

			snprintf(why, sizeof(why), "%s", prof_error(err));
			return prof_fail(err, "--start-after: %s", why);
		}
		if (ch.substitute)
			notice(c, "'%s' is not available here (no hardware "
			       "PMU); starting after '%s' instead",
			       ch.requested, ch.def->name);
		r->trigger.type = ch.type;
		r->trigger.config = ch.config;
		r->trigger.modes = ch.modes;
		r->trigger.count = c->start_after_n;
		r->trigger.signo = SIGRTMIN + 2;
		r->have_trigger = 1;
	}
	return 0;
}

/* Signals become readable events, so the loop below decides what each
 * means: the terminal's Ctrl-C already reached the program. */
static int setup_signals(struct run *r)
{
	sigset_t set;
	struct sigaction old;

	sigaction(SIGINT, NULL, &old);
	r->sigint_ignored = old.sa_handler == SIG_IGN;
	sigemptyset(&set);
	if (!r->sigint_ignored)
		sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	if (r->cfg->triggered || r->cfg->control) {
		sigaddset(&set, SIGUSR1);
		sigaddset(&set, SIGUSR2);
	}
	/* Blocked before the trigger is opened: its first overflow must
	 * not find the default action (termination). */
	if (r->have_trigger)
		sigaddset(&set, r->trigger.signo);
	if (sigprocmask(SIG_BLOCK, &set, &r->old_mask))
		return prof_fail(PROF_EIO, "cannot block signals: %s",
				 strerror(errno));
	r->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (r->sigfd < 0)
		return prof_fail(PROF_EIO, "cannot watch signals: %s",
				 strerror(errno));
	return 0;
}

static int pin_to_current_cpu(int *cpu)
{
	cpu_set_t set;

	*cpu = sched_getcpu();
	if (*cpu < 0)
		return prof_fail(PROF_EIO, "cannot tell the current CPU: %s",
				 strerror(errno));
	CPU_ZERO(&set);
	CPU_SET(*cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return prof_fail(PROF_EIO, "cannot pin to CPU %d: %s", *cpu,
				 strerror(errno));
	return 0;
}

/* -ra: the kernel utility routines whose samples go to their callers. */
static int setup_callers(struct run *r)
{
	struct fe_config *c = r->cfg;
	struct sym_ksym *v = NULL;
	struct collect_range *rg;
	int n, i, err;

	if (!c->nra)
		return 0;
	n = sym_kernel_matching(r->sym, c->ra, c->nra, &v);
	if (n < 0)
		return prof_fail(PROF_EPERM, "-ra needs the kernel's symbols: %s",
				 sym_strerror(n));
	if (n == 0) {
		free(v);
		return prof_fail(PROF_EINVAL, "-ra: no kernel routine matches "
				 "the list ('%s'%s)", c->ra[0],
				 c->nra > 1 ? ", ..." : "");
	}
	rg = calloc((size_t)n, sizeof(*rg));
	if (!rg) {
		free(v);
		return -PROF_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		rg[i].start = v[i].start;
		rg[i].end = v[i].end;
	}
	err = collector_set_caller_ranges(r->col, rg, (size_t)n);
	free(rg);
	free(v);
	for (i = 0; i < (int)r->nstats; i++)
		r->specs[i].callchain = 1;
	if (c->verbose)
		notice(c, "-ra: %d kernel routines charge their samples to "
		       "their callers", n);
	return err;
}

/*
 * Collect until the program exits, the duration passes, or a signal says
 * stop.  Returns the program's status (or 0), or a negative error.
 */
static void set_sampling(struct run *r, int on)
{
	int err;

	if (r->sampling == on)
		return;
	err = on ? perf_session_enable(r->sess) :
		   perf_session_disable(r->sess);
	if (err) {
		fprintf(stderr, "%s: %s\n", g_tool->name, prof_error(err));
		return;
	}
	r->sampling = on;
	if (r->cfg->verbose)
		notice(r->cfg, "sampling %s", on ? "enabled" : "disabled");
}

/* Commands on the control FIFO, one per line. */
static void read_control(struct run *r)
{
	char buf[256];
	ssize_t n;

	while ((n = read(r->control_fd, buf, sizeof(buf) - 1)) > 0) {
		char *save = NULL, *line;

		buf[n] = '\0';
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			line[strcspn(line, "\r ")] = '\0';
			if (!strcmp(line, "enable"))
				set_sampling(r, 1);
			else if (!strcmp(line, "disable"))
				set_sampling(r, 0);
			else if (*line)
				fprintf(stderr, "%s: unknown control command "
					"'%s' (use enable or disable)\n",
					g_tool->name, line);
		}
	}
}

static int open_control(struct run *r)
{
	struct stat st;
	const char *path = r->cfg->control;

	if (stat(path, &st) == 0) {
		if (!S_ISFIFO(st.st_mode))
			return prof_fail(PROF_EINVAL, "control '%s' is not a FIFO",
					 path);
	} else if (errno != ENOENT || mkfifo(path, 0600)) {
		return prof_fail(PROF_EIO, "cannot create control FIFO '%s': %s",
				 path, strerror(errno));
	} else {
		r->control_made = 1;
	}
	r->control_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	/* Our own writer keeps the FIFO from reporting EOF between
	 * commands. */
	if (r->control_fd >= 0)
		r->control_keep_fd = open(path, O_WRONLY | O_NONBLOCK |
					  O_CLOEXEC);
	if (r->control_fd < 0 || r->control_keep_fd < 0)
		return prof_fail(PROF_EIO, "cannot open control FIFO '%s': %s",
				 path, strerror(errno));
	return 0;
}

/*
 * --start-after: A's N-th event raised the trigger's signal.  The
 * hand-over recorded is from reading the signal to every statistic
 * enabled; the kernel's part before (overflow to signal read) is
 * documented in README.md.
 */
static void start_after_fired(struct run *r)
{
	uint64_t t1 = now_ns(CLOCK_MONOTONIC), t2;
	int err = perf_session_cascade(r->sess);

	t2 = now_ns(CLOCK_MONOTONIC);
	if (err < 0) {
		fprintf(stderr, "%s: %s\n", g_tool->name, prof_error(err));
		return;
	}
	if (!err)
		return;
	r->fired_ns = (int64_t)(t1 - r->t0);
	r->handover_ns = t2 - t1;
	if (r->cfg->verbose)
		notice(r->cfg, "'%s' reached %llu after %.3f s: %s started "
		       "(hand-over %.1f us)", r->cfg->start_after_stat,
		       r->cfg->start_after_n, (double)r->fired_ns / 1e9,
		       r->cfg->count ? "counting" : "sampling",
		       (double)r->handover_ns / 1e3);
}

static int collect(struct run *r, int *status)
{
	struct fe_config *c = r->cfg;
	struct pollfd extra[3];
	size_t nextra = 0;
	uint64_t deadline = 0;
	int child_extra = -1, attach_pidfd = -1, control_extra = -1;
	int stop = 0;

	*status = 0;
	extra[nextra].fd = r->sigfd;
	extra[nextra++].events = POLLIN;
	if (r->control_fd >= 0) {
		control_extra = (int)nextra;
		extra[nextra].fd = r->control_fd;
		extra[nextra++].events = POLLIN;
	}
	if (r->have_child && r->child.pidfd >= 0) {
		child_extra = (int)nextra;
		extra[nextra].fd = r->child.pidfd;
		extra[nextra++].events = POLLIN;
	} else if (c->attach_pid) {
		attach_pidfd = launch_pidfd((pid_t)c->attach_pid);
		if (attach_pidfd >= 0) {
			child_extra = (int)nextra;
			extra[nextra].fd = attach_pidfd;
			extra[nextra++].events = POLLIN;
		}
	}
	if (c->duration > 0)
		deadline = now_ns(CLOCK_MONOTONIC) +
			   (uint64_t)(c->duration * 1e9);
	while (!stop) {
		int timeout = 100;
		struct signalfd_siginfo si;
		int err;

		if (deadline) {
			uint64_t t = now_ns(CLOCK_MONOTONIC);

			if (t >= deadline)
				break;
			if ((deadline - t) / 1000000 < 100)
				timeout = (int)((deadline - t) / 1000000) + 1;
		}
		err = perf_session_poll(r->sess, timeout, extra, nextra);
		if (err)
			return err;
		if (control_extra >= 0 && extra[control_extra].revents)
			read_control(r);
		while (read(r->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			if (r->have_trigger &&
			    (int)si.ssi_signo == r->trigger.signo) {
				start_after_fired(r);
			} else if (si.ssi_signo == SIGUSR1 ||
				   si.ssi_signo == SIGUSR2) {
				set_sampling(r, si.ssi_signo == SIGUSR1);
			} else if (r->have_child) {
				/* The terminal sent Ctrl-C to the program too;
				 * a signal sent to us alone is passed on. */
				if (si.ssi_code == SI_USER ||
				    si.ssi_code == SI_QUEUE)
					kill(r->child.pid, (int)si.ssi_signo);
			} else {
				stop = 1;
			}
		}
		if (r->have_child) {
			if ((child_extra >= 0 && extra[child_extra].revents) ||
			    child_extra < 0) {
				if (launch_poll(&r->child, status))
					break;
			}
		} else if (c->attach_pid) {
			if ((child_extra >= 0 && extra[child_extra].revents) ||
			    (child_extra < 0 && kill((pid_t)c->attach_pid, 0) &&
			     errno == ESRCH))
				break;
		}
	}
	if (attach_pidfd >= 0)
		close(attach_pidfd);
	return 0;
}

/* ---- the sim engine ---------------------------------------------------- */

/* Wait for the program under valgrind; a signal sent to us alone is
 * passed on, as in collect(). */
/* The profile every run starts from: tool, host and times (started at
 * t0 on the monotonic clock, t0_wall on the wall clock). */
static struct profile *new_template(uint64_t t0, uint64_t t0_wall)
{
	struct profile *tpl = profile_new();

	if (!tpl)
		return NULL;
	tpl->tool = strdup(g_tool->name);
	if (!tpl->tool) {
		profile_free(tpl);
		return NULL;
	}
	profile_identify_host(tpl);
	tpl->start_time_ns = t0_wall;
	tpl->duration_ns = now_ns(CLOCK_MONOTONIC) - t0;
	return tpl;
}

static int wait_sim(struct run *r, struct launch *l, int *status)
{
	struct pollfd fds[2] = {
		{ .fd = r->sigfd, .events = POLLIN },
		{ .fd = l->pidfd, .events = POLLIN },
	};

	for (;;) {
		struct signalfd_siginfo si;

		if (launch_poll(l, status))
			return 0;
		if (poll(fds, l->pidfd >= 0 ? 2 : 1, 100) < 0 && errno != EINTR)
			return prof_fail(PROF_EIO, "cannot wait for the program: "
					 "%s", strerror(errno));
		while (read(r->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			if (si.ssi_code == SI_USER || si.ssi_code == SI_QUEUE)
				kill(l->pid, (int)si.ssi_signo);
	}
}

/*
 * Run the program under valgrind and feed col: sim statistics idx[0..n)
 * become collector statistics first..first+n.  *status is the program's.
 */
static int sim_execute(struct run *r, const size_t *idx, size_t n,
		       uint32_t first, struct collector *col, int *status)
{
	struct fe_config *c = r->cfg;
	struct sim_run *sim = NULL;
	struct sim_result res;
	char *vg = NULL;
	int err;

	err = sim_find_valgrind(&vg);
	if (err)
		return err;
	err = sim_start(&sim, vg, r->path, c->cmd);
	if (err)
		goto out;
	if (c->verbose) {
		notice(c, "running %s and its descendants under valgrind "
		       "(callgrind, cache and branch simulation)", r->path);
		notice(c, "valgrind's messages go to its log files, removed "
		       "afterwards");
	}
	err = launch_release(sim_child(sim), vg);
	if (err) {
		launch_wait(sim_child(sim));
		goto out;
	}
	err = wait_sim(r, sim_child(sim), status);
	if (err) {
		kill(sim_child(sim)->pid, SIGKILL);
		launch_wait(sim_child(sim));
		goto out;
	}
	err = sim_collect(sim, col, idx, n, first, &res);
	if (!err && c->verbose)
		notice(c, "%zu valgrind output file(s) read; %" PRIu64 " events "
		       "in valgrind's own code left out", res.processes,
		       res.skipped);
out:
	if (sim)
		launch_release_fds(sim_child(sim));
	sim_free(sim);
	free(vg);
	return err;
}

static void sim_stat(struct prof_stat *s, size_t idx, const char *requested,
		     uint64_t total, uint64_t duration)
{
	memset(s, 0, sizeof(*s));
	s->name = (char *)sim_stats[idx].name;
	s->requested = (char *)requested;
	s->type = SIM_STAT_TYPE;
	s->config = idx;
	s->modes = STAT_MODE_USER;
	s->flags = PROF_STAT_SIMULATED;
	s->period = 1;		/* every event counts */
	s->value = total;
	s->time_enabled = s->time_running = duration;
}

static int has_object(struct profile *const *ps, int n, const char *path)
{
	int i;
	size_t k;

	for (i = 0; i < n; i++)
		for (k = 0; k < ps[i]->nobjects; k++)
			if (!strcmp(ps[i]->objects[k].path, path))
				return 1;
	return 0;
}

/*
 * -pixie: run the program again under valgrind and add its exact
 * instruction counts to the sampled profiles ps (per process with -pids:
 * the processes of both runs are matched in pid order).
 */
static int add_pixie(struct run *r, const struct profile *tpl,
		     struct profile **ps, int n)
{
	struct fe_config *c = r->cfg;
	struct collector *col;
	struct profile *t2 = NULL, **qs = NULL;
	struct prof_stat st;
	size_t idx;
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);
	int status = 0, m = 0, i, err;

	err = sim_stat_resolve("retinst", &idx);
	if (err)
		return err;
	col = collector_new(c->pids ? COLLECT_SPLIT_PID : COLLECT_SPLIT_NONE,
			    1);
	if (!col)
		return -PROF_ENOMEM;
	collector_set_exact(col, 0);
	collector_set_modes(col, 0, STAT_MODE_USER);
	if (c->verbose)
		notice(c, "-pixie: running the program again under valgrind");
	err = sim_execute(r, &idx, 1, 0, col, &status);
	if (err)
		goto out;
	t2 = profile_new();
	if (!t2) {
		err = -PROF_ENOMEM;
		goto out;
	}
	sim_stat(&st, idx, "pixie", collector_samples(col, 0),
		 now_ns(CLOCK_MONOTONIC) - t0);
	if (profile_add_stat(t2, &st) < 0) {
		err = -PROF_ENOMEM;
		goto out;
	}
	m = collector_build(col, t2, &qs);
	if (m < 0) {
		err = m;
		m = 0;
		goto out;
	}
	/* Warn, do not fail: the sampled profile is still right. */
	if (tpl->exit_status >= 0 && status != tpl->exit_status)
		fprintf(stderr, "%s: warning: the -pixie run diverged: the "
			"program exited %d in the sampled run and %d under "
			"valgrind; its exact counts may not match the samples\n",
			g_tool->name, tpl->exit_status, status);
	else if (m != n)
		fprintf(stderr, "%s: warning: the -pixie run diverged: %d "
			"process(es) in the sampled run, %d under valgrind\n",
			g_tool->name, n, m);
	else
		for (i = 0; i < n; i++) {
			size_t k;

			for (k = 0; k < ps[i]->nobjects; k++) {
				const struct prof_object *o = &ps[i]->objects[k];

				if (o->kind != PROF_OBJ_FILE ||
				    has_object(qs, m, o->path))
					continue;
				fprintf(stderr, "%s: warning: the -pixie run "
					"diverged: '%s' ran in the sampled run "
					"but not under valgrind\n",
					g_tool->name, o->path);
				i = n;
				break;
			}
		}
	for (i = 0; i < n && !err; i++) {
		struct profile *empty = NULL;
		const struct profile *src = i < m ? qs[i] : NULL;

		if (!src) {	/* no matching process: the statistic, no counts */
			empty = profile_new();
			if (!empty || profile_add_stat(empty, &st) < 0)
				err = -PROF_ENOMEM;
			src = empty;
		}
		if (!err)
			err = profile_append(ps[i], src);
		profile_free(empty);
	}
out:
	for (i = 0; i < m; i++)
		profile_free(qs[i]);
	free(qs);
	profile_free(t2);
	collector_free(col);
	return err;
}

static int write_and_report(struct run *r, struct profile *tpl)
{
	struct fe_config *c = r->cfg;
	struct profile **ps = NULL;
	int n, i, err = 0, split;
	char *first = NULL;
	uint64_t samples = 0, lost = 0;

	n = collector_build(r->col, tpl, &ps);
	if (n < 0)
		return n;
	if (c->pixie) {
		err = add_pixie(r, tpl, ps, n);
		if (err)
			goto out;
	}
	split = c->pids || c->cpus == FE_CPUS_EACH;
	/* -one: the file holds a single CPU; say which. */
	if (c->cpus == FE_CPUS_ONE && n == 1)
		ps[0]->cpu = r->one_cpu;
	for (i = 0; i < n; i++) {
		char *path;

		if (r->sym) {
			err = embed_kernel_symbols(ps[i], r->sym);
			if (err)
				goto out;
		}
		path = profile_path(c, ps[i], split);
		if (!path) {
			err = -PROF_ENOMEM;
			goto out;
		}
		err = profile_write(ps[i], path);
		if (err) {
			free(path);
			goto out;
		}
		if (!first)
			first = path;
		else
			free(path);
	}
	for (i = 0; i < (int)r->nstats; i++) {
		samples += collector_samples(r->col, (uint32_t)i);
		lost += collector_lost_total(r->col, (uint32_t)i);
	}
	if (!c->quiet && n > 0 && !c->display) {
		/* A single merged profile is summarized; split runs list
		 * their files only. */
		if (n == 1)
			show_report(c, ps[0], first, 1, stderr);
	}
	if (c->display) {
		/*
		 * stdout belongs to the program that just ran (it may be
		 * redirected to its data): the report goes to stderr, or to
		 * -report-file, written whole or not at all.
		 */
		FILE *out = stderr;
		char *tmp = NULL;

		if (c->report_file) {
			if (asprintf(&tmp, "%s.tmp", c->report_file) < 0) {
				err = -PROF_ENOMEM;
				goto out;
			}
			out = fopen(tmp, "w");
			if (!out) {
				err = prof_fail(PROF_EIO, "cannot write '%s': %s",
						c->report_file, strerror(errno));
				free(tmp);
				goto out;
			}
		}
		for (i = 0; i < n && !err; i++) {
			char *path = profile_path(c, ps[i], split);

			err = show_report(c, ps[i], path, 0, out);
			free(path);
		}
		if (c->report_file) {
			if (fclose(out) && !err)
				err = prof_fail(PROF_EIO, "cannot write '%s': %s",
						c->report_file, strerror(errno));
			if (!err && rename(tmp, c->report_file))
				err = prof_fail(PROF_EIO, "cannot write '%s': %s",
						c->report_file, strerror(errno));
			if (err)
				unlink(tmp);
			free(tmp);
		}
	}
	if (!c->quiet) {
		char names[256];
		size_t k, used = 0;

		names[0] = '\0';
		for (k = 0; k < r->nstats; k++) {
			int w = snprintf(names + used, sizeof(names) - used,
					 "%s%s", k ? ", " : "",
					 tpl->stats[k].name);
			if (w < 0 || (size_t)w >= sizeof(names) - used)
				break;
			used += (size_t)w;
		}
		if (c->count)
			notice(c, "counted %s; profile written to %s", names,
			       first);
		else if (c->engine == FE_ENGINE_SIM)
			notice(c, "%" PRIu64 " events counted (%s, simulated "
			       "by valgrind); %d profile%s written (%s%s)",
			       samples, names, n, n == 1 ? "" : "s",
			       first ? first : "none", n > 1 ? ", ..." : "");
		else if (n == 1)
			notice(c, "%" PRIu64 " samples (%s), %" PRIu64 " lost; "
			       "profile written to %s", samples, names, lost,
			       first);
		else
			notice(c, "%" PRIu64 " samples (%s), %" PRIu64 " lost; "
			       "%d profiles written (%s%s)", samples, names,
			       lost, n, first ? first : "none",
			       n > 1 ? ", ..." : "");
		if (c->start_after && r->fired_ns < 0)
			notice(c, "'%s' never occurred %llu times: nothing "
			       "was %s", c->start_after_stat,
			       c->start_after_n,
			       c->count ? "counted" : "sampled");
		if (lost)
			notice(c, "the kernel dropped %" PRIu64 " samples: "
			       "lower the rate with -F", lost);
	}
out:
	free(first);
	for (i = 0; i < n; i++)
		profile_free(ps[i]);
	free(ps);
	return err;
}

/*
 * Where the profiles go must be writable before anything runs: finding
 * out after a long run, with the program's status lost, is the worst time.
 */
static int check_output_dir(const struct fe_config *c)
{
	const char *out = c->output ? c->output : g_tool->default_file;
	char *dir, *path = NULL;
	struct stat st;
	int err = 0, e = 0;

	if (c->dirname && out[0] != '/')
		dir = strdup(c->dirname);
	else if (strrchr(out, '/') == out)
		dir = strdup("/");
	else if (strrchr(out, '/'))
		dir = strndup(out, (size_t)(strrchr(out, '/') - out));
	else
		dir = strdup(".");
	if (!dir)
		return -PROF_ENOMEM;
	if (stat(dir, &st))
		e = errno;
	else if (!S_ISDIR(st.st_mode))
		e = ENOTDIR;
	else if (access(dir, W_OK | X_OK))
		e = errno;
	if (e) {
		if (c->dirname && out[0] != '/' &&
		    asprintf(&path, "%s/%s", c->dirname, out) < 0)
			path = NULL;
		err = prof_fail(PROF_EIO, "cannot write '%s': directory '%s': %s",
				path ? path : out, dir, strerror(e));
	}
	free(path);
	free(dir);
	return err;
}

/* --engine=sim: the whole run under valgrind. */
/* Whether statistic k is only an input of the derived statistics. */
static int der_input(const struct derived *d, size_t n, size_t k)
{
	for (size_t i = 0; i < n; i++)
		if (d[i].x == k || d[i].ret == k)
			return 1;
	return 0;
}

static int run_sim(struct fe_config *c, const char *path)
{
	struct run r = { .cfg = c, .sigfd = -1, .control_fd = -1,
			 .control_keep_fd = -1, .one_cpu = -1, .path = path };
	static char *dflt[] = { (char *)"retinst" };
	char **asked = c->nstats ? c->stats : dflt;
	size_t nasked = c->nstats ? c->nstats : 1, n = 0, nder = 0, i, j;
	size_t *idx;
	const char **names;
	struct derived *der;
	struct profile *tpl = NULL;
	uint64_t t0, t0_wall;
	int status = 0, err, code = FE_EXIT_FAIL;

	/* A ratio or freq adds its inputs (implicit: they may repeat). */
	idx = calloc(2 * nasked, sizeof(*idx));
	names = calloc(2 * nasked, sizeof(*names));
	der = calloc(nasked, sizeof(*der));
	if (!idx || !names || !der) {
		free(idx);
		free(names);
		free(der);
		return fail(-PROF_ENOMEM);
	}
	for (i = 0; i < nasked; i++) {
		char x[64];
		const char *in[2] = { asked[i], NULL };
		int implicit = 0;

		if (is_freq(asked[i])) {
			in[0] = "retinst";
			implicit = 1;
		} else if (per_ret_input(asked[i], x, sizeof(x))) {
			in[0] = x;
			in[1] = "retinst";
			implicit = 1;
		}
		for (size_t k = 0; k < 2 && in[k]; k++) {
			size_t ix;

			err = sim_stat_resolve(in[k], &ix);
			if (err && implicit)
				err = input_failed(asked[i], in[k], err);
			for (j = 0; !err && j < n; j++)
				if (idx[j] == ix)
					break;
			if (err)
				goto fail;
			if (j < n && !implicit && !der_input(der, nder, j))
				err = prof_fail(PROF_EINVAL, "statistic '%s' is "
						"given twice (as '%s' and '%s')",
						sim_stats[ix].name, names[j],
						asked[i]);
			if (err)
				goto fail;
			if (j == n) {
				idx[n] = ix;
				names[n++] = implicit ? sim_stats[ix].name :
					     asked[i];
			}
			if (implicit)
				(k == 0 && in[1] ? &der[nder].x :
				 &der[nder].ret)[0] = j;
		}
		if (implicit) {
			if (!in[1])
				der[nder].x = der[nder].ret;
			snprintf(der[nder].name, sizeof(der[nder].name), "%s",
				 in[1] ? "" : "freq");
			if (in[1])
				snprintf(der[nder].name,
					 sizeof(der[nder].name), "%s%s",
					 sim_stats[idx[der[nder].x]].name,
					 PER_RET);
			snprintf(der[nder].requested,
				 sizeof(der[nder].requested), "%s", asked[i]);
			nder++;
		}
	}
	if (c->dry_run) {
		char *vg = NULL;

		err = sim_find_valgrind(&vg);
		if (err)
			goto fail;
		sim_describe(stdout, vg, path, c->cmd);
		free(vg);
		code = fflush(stdout) ? FE_EXIT_FAIL : 0;
		goto out;
	}
	r.nstats = n;
	r.col = collector_new(c->pids ? COLLECT_SPLIT_PID : COLLECT_SPLIT_NONE,
			      n);
	if (!r.col) {
		err = -PROF_ENOMEM;
		goto fail;
	}
	for (i = 0; i < n; i++) {
		collector_set_exact(r.col, (uint32_t)i);
		collector_set_modes(r.col, (uint32_t)i, STAT_MODE_USER);
	}
	err = setup_signals(&r);
	if (err)
		goto fail;
	t0 = now_ns(CLOCK_MONOTONIC);
	t0_wall = now_ns(CLOCK_REALTIME);
	err = sim_execute(&r, idx, n, 0, r.col, &status);
	if (err)
		goto fail;
	tpl = new_template(t0, t0_wall);
	if (!tpl) {
		err = -PROF_ENOMEM;
		goto fail;
	}
	tpl->exit_status = status;
	profile_set_argv(tpl, c->ncmd, c->cmd);
	for (i = 0; i < n; i++) {
		struct prof_stat s;

		sim_stat(&s, idx[i], names[i],
			 collector_samples(r.col, (uint32_t)i),
			 tpl->duration_ns);
		if (profile_add_stat(tpl, &s) < 0) {
			err = -PROF_ENOMEM;
			goto fail;
		}
	}
	/* Ratios and freq asked for: computed by reports from the inputs. */
	for (i = 0; i < nder; i++) {
		struct prof_stat s = {
			.name = der[i].name,
			.requested = der[i].requested,
			.modes = STAT_MODE_USER,
			.flags = PROF_STAT_DERIVED,
		};

		for (j = 0; j < i; j++)
			if (!strcmp(der[j].name, der[i].name))
				break;
		if (j == i && profile_add_stat(tpl, &s) < 0) {
			err = -PROF_ENOMEM;
			goto fail;
		}
	}
	err = write_and_report(&r, tpl);
	if (err)
		goto fail;
	code = status;
	goto out;
fail:
	fprintf(stderr, "%s: %s\n", g_tool->name, prof_error(err));
out:
	profile_free(tpl);
	collector_free(r.col);
	if (r.sigfd >= 0)
		close(r.sigfd);
	free(idx);
	free(names);
	free(der);
	return code;
}

static int run_collection(struct fe_config *c)
{
	struct run r = { .cfg = c, .sigfd = -1, .control_fd = -1,
			 .control_keep_fd = -1, .fired_ns = -1 };
	struct perf_target t = { 0 };
	struct profile *tpl = NULL;
	pid_t *tids = NULL;
	size_t ntids = 0, i;
	char *path = NULL;
	int one_cpu = -1, status = 0, err, code = FE_EXIT_FAIL;
	uint64_t t0, t0_wall;
	enum collect_split split = c->pids ? COLLECT_SPLIT_PID :
				   c->cpus == FE_CPUS_EACH ? COLLECT_SPLIT_CPU :
				   COLLECT_SPLIT_NONE;

	if (c->cmd) {
		err = launch_find(c->cmd[0], &path);
		if (err) {
			code = err == -PROF_ENOENT ? FE_EXIT_NOTFOUND :
			       err == -PROF_ENOEXEC ? FE_EXIT_NOEXEC :
			       FE_EXIT_FAIL;
			goto fail;
		}
	}
	if (!c->dry_run) {
		err = check_output_dir(c);
		if (err)
			goto fail;
	}
	if (c->engine == FE_ENGINE_SIM) {
		code = run_sim(c, path);
		free(path);
		return code;
	}
	if (c->pixie && !c->dry_run) {
		char *vg = NULL;

		/* Not after a long sampled run. */
		err = sim_find_valgrind(&vg);
		free(vg);
		if (err)
			goto fail;
	}
	r.path = path;
	if (!c->dry_run) {
		unsigned m = g_tool->default_modes | c->add_modes;
		struct priv_need need = {
			.system_wide = g_tool->scope == FE_SCOPE_SYSTEM,
			.kernel = !!(m & STAT_MODE_KERNEL),
			.kernel_symbols = !!(m & STAT_MODE_KERNEL),
		};

		err = priv_check(&need);
		if (err)
			goto fail;
	}
	err = resolve_stats(&r);
	if (err)
		goto fail;
	if (c->cpus == FE_CPUS_ONE) {
		err = pin_to_current_cpu(&one_cpu);
		if (err)
			goto fail;
		r.one_cpu = one_cpu;
		t.cpus = &one_cpu;
		t.ncpus = 1;
	}
	r.col = collector_new(split, r.nstats);
	if (!r.col) {
		err = prof_fail(PROF_ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < r.nstats; i++)
		collector_set_modes(r.col, (uint32_t)i, r.choice[i].modes);
	if (c->cpus == FE_CPUS_ONE) {
		err = collector_add_cpu(r.col, (uint32_t)one_cpu);
		if (err)
			goto fail;
	} else {
		/* Every profiled CPU gets a histogram row, and with -each a
		 * file, sampled or not. */
		int *cpus = NULL;
		size_t ncpus = 0, k;

		err = perf_online_cpus(&cpus, &ncpus);
		for (k = 0; !err && k < ncpus; k++) {
			err = collector_add_cpu(r.col, (uint32_t)cpus[k]);
			if (!err && c->cpus == FE_CPUS_EACH)
				err = collector_expect_split(r.col,
							     (uint32_t)cpus[k]);
		}
		free(cpus);
		if (err)
			goto fail;
	}
	for (i = 0; i < r.nstats; i++)
		if (r.choice[i].modes & STAT_MODE_KERNEL)
			break;
	/* Kernel symbols name samples; counting has none. */
	if (i < r.nstats && !c->count) {
		r.sym = symbolizer_new(NULL);
		if (!r.sym) {
			err = prof_fail(PROF_ENOMEM, "out of memory");
			goto fail;
		}
		err = setup_callers(&r);
		if (err)
			goto fail;
	}
	err = setup_signals(&r);
	if (err)
		goto fail;
	if (c->control) {
		err = open_control(&r);
		if (err)
			goto fail;
	}
	t.triggered = c->triggered;
	if (g_tool->scope == FE_SCOPE_SYSTEM) {
		t.kind = PERF_TARGET_CPUS;
		/* User-mode rows need every process's maps. */
		t.track = !c->count &&
			  !!((g_tool->default_modes | c->add_modes) &
			     STAT_MODE_USER);
		if (t.track)
			synthesize_all(r.col);
	} else if (c->attach_pid) {
		err = list_tids((pid_t)c->attach_pid, &tids, &ntids);
		if (err)
			goto fail;
		synthesize_maps(r.col, (pid_t)c->attach_pid);
		t.kind = PERF_TARGET_TASKS;
		t.tids = tids;
		t.ntids = ntids;
		t.track = !c->count;
	}
	/* Counting needs no maps: there are no samples to place. */
	if (c->count)
		t.track = 0;
	if (r.have_trigger)
		t.trigger = &r.trigger;
	if (c->dry_run) {
		if (c->cmd && g_tool->scope == FE_SCOPE_TASKS) {
			t.kind = PERF_TARGET_TASKS;
			t.enable_on_exec = 1;
			t.track = !c->count;
		}
		err = perf_describe(stdout, r.specs, r.nstats, &t);
		if (err)
			goto fail;
		code = fflush(stdout) ? FE_EXIT_FAIL : 0;
		goto out;
	}
	if (c->cmd) {
		err = launch_start(&r.child, path, c->cmd);
		if (err)
			goto fail;
		r.have_child = 1;
		if (g_tool->scope == FE_SCOPE_TASKS) {
			t.kind = PERF_TARGET_TASKS;
			t.tids = &r.child.pid;
			t.ntids = 1;
			t.enable_on_exec = 1;
			t.track = !c->count;
		}
	}
	if (c->verbose) {
		for (i = 0; i < r.nstats; i++)
			if (c->count)
				notice(c, "counting %s (type %u, config %#"
				       PRIx64 ") in %s mode%s",
				       r.choice[i].def->name, r.specs[i].type,
				       r.specs[i].config,
				       stat_modes_text(r.choice[i].modes),
				       r.specs[i].group ? ", grouped" : "");
			else
				notice(c, "sampling %s (type %u, config %#"
				       PRIx64 ") in %s mode, %s %" PRIu64,
				       r.choice[i].def->name,
				       r.specs[i].type, r.specs[i].config,
				       stat_modes_text(r.choice[i].modes),
				       r.specs[i].period ? "every" : "at",
				       r.specs[i].period ? r.specs[i].period :
				       r.specs[i].freq);
		if (c->cmd)
			notice(c, "running %s and its descendants", path);
		else if (c->attach_pid)
			notice(c, "attaching to process %ld (%zu threads)",
			       c->attach_pid, ntids);
		else
			notice(c, "profiling all CPUs until SIGTERM%s",
			       r.sigint_ignored ? "" : " or Ctrl-C");
	}
	err = perf_session_open(&r.sess, r.specs, r.nstats, &t, r.col);
	if (err) {
		if (r.have_child) {
			kill(r.child.pid, SIGKILL);
			launch_wait(&r.child);
			r.have_child = 0;
		}
		goto fail;
	}
	t0 = now_ns(CLOCK_MONOTONIC);
	t0_wall = now_ns(CLOCK_REALTIME);
	r.t0 = t0;
	if (c->triggered) {
		if (c->verbose)
			notice(c, "triggered mode: sampling starts on SIGUSR1%s",
			       c->control ? " or 'enable' on the control FIFO" :
			       "");
	} else if (!t.enable_on_exec) {
		err = perf_session_enable(r.sess);
		if (err)
			goto fail_child;
		r.sampling = 1;
	} else {
		r.sampling = 1;
	}
	if (r.have_child) {
		err = launch_release(&r.child, c->cmd[0]);
		if (err) {
			status = launch_wait(&r.child);
			r.have_child = 0;
			code = err == -PROF_ENOENT ? FE_EXIT_NOTFOUND :
			       FE_EXIT_NOEXEC;
			goto fail;
		}
	}
	err = collect(&r, &status);
	if (err)
		goto fail_child;
	perf_session_disable(r.sess);
	perf_session_drain(r.sess);

	tpl = new_template(t0, t0_wall);
	if (!tpl) {
		err = -PROF_ENOMEM;
		goto fail;
	}
	tpl->exit_status = r.have_child ? status : -1;
	if (c->nra) {
		size_t len = 1;

		for (i = 0; i < c->nra; i++)
			len += strlen(c->ra[i]) + 1;
		tpl->ra_routines = calloc(1, len);
		if (!tpl->ra_routines) {
			err = -PROF_ENOMEM;
			goto fail;
		}
		for (i = 0; i < c->nra; i++) {
			if (i)
				strcat(tpl->ra_routines, ",");
			strcat(tpl->ra_routines, c->ra[i]);
		}
		tpl->ra_moved = collector_moved(r.col);
	}
	if (c->cmd)
		profile_set_argv(tpl, c->ncmd, c->cmd);
	else if (c->attach_pid) {
		char pidtxt[32];
		char *av[] = { pidtxt, NULL };

		snprintf(pidtxt, sizeof(pidtxt), "pid:%ld", c->attach_pid);
		profile_set_argv(tpl, 1, av);
	}
	for (i = 0; i < r.nstats; i++) {
		struct perf_totals tot;
		struct prof_stat s = {
			.name = (char *)r.choice[i].def->name,
			.requested = r.choice[i].requested,
			.type = r.specs[i].type,
			.modes = r.choice[i].modes,
			.flags = (r.choice[i].substitute ?
				  PROF_STAT_SUBSTITUTE : 0) |
				 (r.specs[i].pm.pmu ? PROF_STAT_PROFILEME : 0) |
				 (c->count ? PROF_STAT_COUNTING : 0),
			.config = r.specs[i].config,
			.period = r.specs[i].period,
			.freq = r.specs[i].freq,
		};

		perf_session_totals(r.sess, i, &tot);
		s.value = tot.value;
		s.time_enabled = tot.time_enabled;
		s.time_running = tot.time_running;
		if (profile_add_stat(tpl, &s) < 0) {
			err = -PROF_ENOMEM;
			goto fail;
		}
	}
	if (c->verbose && perf_session_pm_dropped(r.sess))
		notice(c, "%" PRIu64 " instruction samples dropped (no valid "
		       "instruction address, or malformed)",
		       perf_session_pm_dropped(r.sess));
	/* Ratios asked for come last: no event, no counts of their own;
	 * reports compute them from their inputs. */
	for (i = 0; i < r.nderived; i++) {
		struct prof_stat s = {
			.name = r.derived[i].name,
			.requested = r.derived[i].requested,
			.modes = r.derived[i].x == SIZE_MAX ? STAT_MODE_USER :
				 r.choice[r.derived[i].x].modes,
			.flags = PROF_STAT_DERIVED |
				 (c->count ? PROF_STAT_COUNTING : 0),
		};

		if (profile_add_stat(tpl, &s) < 0) {
			err = -PROF_ENOMEM;
			goto fail;
		}
	}
	if (c->start_after) {
		tpl->start_after = strdup(c->start_after);
		if (!tpl->start_after) {
			err = -PROF_ENOMEM;
			goto fail;
		}
		tpl->start_after_ns = r.fired_ns;
		tpl->start_after_latency_ns = r.handover_ns;
	}
	err = write_and_report(&r, tpl);
	if (err)
		goto fail;
	code = r.have_child ? status : 0;
	goto out;
fail_child:
	if (r.have_child) {
		kill(r.child.pid, SIGKILL);
		launch_wait(&r.child);
	}
fail:
	/* Our own failure is 125 even after the program ran: a script
	 * must not read success into a profile that was not written. */
	fprintf(stderr, "%s: %s\n", g_tool->name, prof_error(err));
out:
	profile_free(tpl);
	perf_session_free(r.sess);
	collector_free(r.col);
	if (r.have_child)
		launch_release_fds(&r.child);
	if (r.sigfd >= 0)
		close(r.sigfd);
	if (r.control_fd >= 0)
		close(r.control_fd);
	if (r.control_keep_fd >= 0)
		close(r.control_keep_fd);
	if (r.control_made)
		unlink(c->control);
	symbolizer_free(r.sym);
	free(r.choice);
	free(r.specs);
	free(r.derived);
	free(tids);
	free(path);
	return code;
}

int fe_main(const struct fe_tool *tool, int argc, char **argv)
{
	static char version[64];
	const struct argp_child children[] = {
		{ &(struct argp){ .options = stat_options,
				  .parser = parse_shared }, 0, NULL, 1 },
		{ &(struct argp){ .options = output_options,
				  .parser = parse_shared }, 0, NULL, 2 },
		{ &(struct argp){ .options = run_options,
				  .parser = parse_shared }, 0, NULL, 3 },
		{ &(struct argp){ .options = display_options,
				  .parser = parse_shared }, 0, NULL, 4 },
		{ 0 }
	};
	struct argp argp = {
		.options = tool->options,
		.parser = parse_root,
		.args_doc = tool->args_doc,
		.doc = tool->doc,
		.children = children,
	};
	struct fe_config cfg = { .stride = -1 };
	int code;

	g_tool = tool;
	snprintf(version, sizeof(version), "%s %s", tool->name, PROF_VERSION);
	argp_program_version = version;
	argp_err_exit_status = FE_EXIT_FAIL;
	setvbuf(stderr, NULL, _IOLBF, 0);
	/* One event per CPU, statistic and (with -p) thread: raise the
	 * descriptor limit to what we may. */
	{
		struct rlimit rl;

		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	/* Messages from argp and getopt name the tool, not its path. */
	argv[0] = (char *)tool->name;
	if (argp_parse(&argp, argc, argv, ARGP_LONG_ONLY | ARGP_IN_ORDER,
		       NULL, &cfg))
		return FE_EXIT_FAIL;
	/* -stride on its own: the bucket view. */
	if (cfg.stride >= 0 && cfg.view == REPORT_PROCEDURES)
		cfg.view = REPORT_BUCKETS;
	if (cfg.vmlinux && access(cfg.vmlinux, R_OK)) {
		fprintf(stderr, "%s: cannot read kernel image '%s': %s\n",
			tool->name, cfg.vmlinux, strerror(errno));
		code = FE_EXIT_FAIL;
	} else if (cfg.input)
		code = report_only(&cfg);
	else
		code = run_collection(&cfg);
	free(cfg.stats);
	free(cfg.only);
	free(cfg.exclude);
	return code;
}
