/* SPDX-License-Identifier: MIT */
/*
 * Private declarations shared by the files of the run layer (run.h is its
 * interface).  What each file holds:
 *
 *   run.c       run_profile(): a run as named phases (prepare, plan,
 *               set up, start, collect, finish); the sim engine's run
 *               branches off after prepare
 *   plan.c      the plan: run_plan() turns the names into statistics and
 *               ratios (X_per_ret, freq) with their inputs for either
 *               engine; the perf engine's events (each through stats/),
 *               --start-after's trigger, the sample rate checked
 *   control.c   what happens while collecting: signals, -t, -control,
 *               --start-after, the collect loop
 *   output.c    the profiles' names, checked before the run and written
 *               after it, the summary or report, the closing notice;
 *               -i's report
 *   simrun.c    the sim engine's run: --engine=sim and -pixie, under
 *               valgrind
 *   list.c      -l
 *   lookup.c    where a report finds objects and debug info
 *   jitfiles.c  the JIT runtimes' files (perf maps, jitdumps), checked
 *               and read into the collector
 *   archive.c   --archive: a profile with its files; unpacking them for
 *               a report
 *   compare.c   --merge (several profiles added up, merge.h) and --diff
 *   import.c    perf.data read as a profile (engine/perfdata.c's records
 *               through a collector), wherever a profile is read
 *   message.c   run_notice(), run_fail(): every message names the tool
 */
#ifndef COMMON_RUN_RUN_INT_H
#define COMMON_RUN_RUN_INT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "run.h"
#include "common/engine/launch.h"
#include "common/engine/perf.h"
#include "common/engine/profileme.h"

struct collector;
struct perf_session;
struct profile;
struct stat_choice;
struct symbolizer;

#define PER_RET "_per_ret"

/* One run of the program (or of the system): what plan.c resolved, what
 * collects it, and the state of the run.  Passed to every phase. */
struct run {
	struct run_config *cfg;
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
	dev_t control_dev;			/* ... and it is this one */
	ino_t control_ino;
	int sampling;				/* events are enabled */
	char *path;				/* the program found */
	sigset_t old_mask;
	struct derived *derived;		/* NAME_per_ret asked for */
	size_t nderived;
	struct perf_trigger trigger;		/* --start-after */
	int have_trigger;
	int64_t fired_ns;			/* trigger fired, from t0; -1 */
	uint64_t t0;				/* CLOCK_MONOTONIC at start */
	uint64_t handover_ns;			/* signal read to enabled */
	uint64_t t0_wall;			/* CLOCK_REALTIME at start */
	struct perf_target target;		/* what perf opens on */
	pid_t *tids;				/* -p: the threads */
	size_t ntids;
	int child_done;				/* the program was waited for */
	int status;				/* the program's exit status */
	int code;				/* the run's exit status */
	struct profile *tpl;			/* what every profile starts
						 * from */
	struct stat_def *pm_defs;		/* --pmu: made-up definitions
						 * of profile-me names */
	enum prof_call_graph call_graph;	/* -g: how stacks are taken */
	int user_stacks;			/* ... and their user part */
	uint32_t stack_dump;			/* bytes copied per sample */
	int64_t pixie_stdin;			/* -pixie: where stdin is
						 * rewound to for the replay,
						 * -1: not rewound */
};

/* A ratio the user asked for, and the statistics it divides. */
struct derived {
	char name[80];		/* canonical: "mispredict_per_ret" */
	char requested[64];	/* as typed */
	size_t x, ret;		/* indices into run.choice */
};

/* plan.c */

/*
 * How an engine measures what the plan asks for.  run_plan() turns the
 * names the user gave into r->choice (one per statistic to measure,
 * through add) and r->derived (freq and X_per_ret, with their inputs'
 * indices), the same way for every engine.
 */
struct plan_engine {
	const char *dflt;	/* the statistic when none is named */
	/* Resolve text into r->choice[*index], or find it there already.
	 * Inputs of a ratio are implicit: they may coincide with another
	 * statistic; two the user named may not. */
	int (*add)(struct run *r, const char *text, int implicit,
		   size_t *index);
	/* The retired-instructions statistic a ratio of input x divides by
	 * (x is SIZE_MAX for freq), or NULL for -pixie's exact count. */
	const char *(*divisor)(struct run *r, size_t x);
};
int run_plan(struct run *r, const struct plan_engine *e);
int run_resolve_stats(struct run *r);
int run_check_sample_rate(struct run *r);

/* simrun.c */
/* -pixie, before the first run: make stdin replayable (a regular file's
 * offset kept; a pipe's content saved in memory). */
int run_pixie_stdin(struct run *r);
int run_add_pixie(struct run *r, const struct profile *tpl,
		  struct profile **ps, int n);
/* --engine=sim: the whole run under valgrind, from after prepare.
 * Returns 0 (r->code set) or a negative error. */
int run_sim(struct run *r);

/* control.c */
int run_setup_signals(struct run *r);
int run_open_control(struct run *r);
/* Close the FIFO; remove it if we created it and its name still names
 * it. */
void run_close_control(struct run *r);
int run_pin_to_current_cpu(int *cpu);
int run_collect(struct run *r, int *status);

/* output.c */
int run_check_outputs(const struct run_config *c);
struct profile *run_new_template(const struct run_config *c, uint64_t t0,
				 uint64_t t0_wall);
/* Write the profiles ps (n of them, built from the collector with tpl;
 * freed here), then the summary or report and the closing notice. */
int run_write_and_report(struct run *r, const struct profile *tpl,
			 struct profile **ps, int n);
void run_free_profiles(struct profile **ps, int n);

/* import.c: how -i, --merge, --diff and --archive read another tool's
 * recording (perf.data, or perf's pipe on "-") as a profile; notes on
 * what it did not use go to stderr through c. */
struct profile_import;
const struct profile_import *run_importer(const struct run_config *c);

/* The symbolizer's configuration for c's reports: -k, --symfs,
 * --debug-dir, debuginfod (unless --no-debuginfod), what is fetched told
 * on stderr (unless -quiet).  sc points into c. */
struct sym_config;
void run_sym_config(const struct run_config *c, struct sym_config *sc);
/* perf's build-id cache (~/.debug), or NULL (lookup.c). */
const char *run_buildid_cache(void);

/* archive.c: a profile's archived files unpacked into a private
 * directory for a report (nothing to do when it has none), and sc made
 * to look there first; run_unpacked_remove() removes them.  A watchdog
 * process removes the directory if we die first, whatever kills us. */
struct run_unpacked {
	char *dir, *root, *debug;
	const char **dirs;
	pid_t watch_pid;	/* the watchdog, 0 when none */
	int watch_fd;		/* the write end of its pipe */
};
int run_unpack(const struct profile *p, struct run_unpacked *u,
	       struct sym_config *sc);
void run_unpacked_remove(struct run_unpacked *u);

/* jitfiles.c: the perf map (/tmp/perf-PID.map) and jitdump of every
 * process that mapped anonymous code, into the collector. */
int run_read_jit_maps(struct run *r);

struct collect_range;

/* The address ranges of the kernel routines matching patterns (globs),
 * in *out (malloc'd): their number, 0 none, a negative SYM_E* code when
 * the kernel's symbols cannot be read, or -PROF_ENOMEM (lookup.c). */
int run_kernel_ranges(struct run *r, const char *const *patterns, size_t n,
		      struct collect_range **out);
/* Put the kernel symbols that name p's kernel addresses into p (this
 * boot's: with KASLR they are only meaningful with it), _text too (for
 * -k vmlinux's relocation): a run's, or a perf.data recorded in it. */
struct symbolizer;
int run_embed_kernel_symbols(struct profile *p, struct symbolizer *sym);

/* offtime.c: the off-CPU statistics (offcpu, wall) of a run: what this
 * user may record, set up before the program runs (refused with -g when
 * switch outs cannot be sampled); the threads of an attached process
 * asleep as collection starts; the intervals still open when it ends
 * (now, on the monotonic clock). */
int run_setup_offcpu(struct run *r);
void run_offcpu_started(struct run *r);
void run_offcpu_ended(struct run *r, uint64_t now);

#endif
