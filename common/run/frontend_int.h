/* SPDX-License-Identifier: MIT */
/*
 * Private declarations shared by the files of the front end.  Nothing here
 * is part of the public interface (frontend.h).  What each file holds:
 *
 *   options.c   the option tables and parsers both tools share, the checks
 *               between options, -l and the completion helper
 *   resolve.c   where the statistics of a run are resolved: the names of
 *               a perf-engine run into events (each through stats.c),
 *               ratios (X_per_ret, freq) into their inputs
 *   simrun.c    where the sim engine runs: --engine=sim and -pixie, under
 *               valgrind
 *   frontend.c  fe_main() and the perf engine's run (start or attach,
 *               signals, -control, --start-after, collect), writing the
 *               profiles and reporting them, -i
 */
#ifndef COMMON_FRONTEND_INT_H
#define COMMON_FRONTEND_INT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/cli/frontend.h"
#include "common/engine/launch.h"
#include "common/engine/perf.h"
#include "common/engine/profileme.h"

struct collector;
struct perf_session;
struct profile;
struct stat_choice;
struct symbolizer;

#define PER_RET "_per_ret"

/* The tool fe_main() runs (frontend.c). */
extern const struct fe_tool *g_tool;

/* One run of the program (or of the system): what resolve.c resolved,
 * what collects it, and the state of the run. */
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

/* A ratio the user asked for, and the statistics it divides. */
struct derived {
	char name[80];		/* canonical: "mispredict_per_ret" */
	char requested[64];	/* as typed */
	size_t x, ret;		/* indices into run.choice */
};

/* options.c */
extern const struct argp_option stat_options[];
extern const struct argp_option output_options[];
extern const struct argp_option run_options[];
extern const struct argp_option display_options[];
error_t parse_shared(int key, char *arg, struct argp_state *state);
error_t parse_root(int key, char *arg, struct argp_state *state);

/* resolve.c */
const char *per_ret_input(const char *word, char *buf, size_t len);
int is_freq(const char *word);
int input_failed(const char *name, const char *input, int err);
int resolve_stats(struct run *r);

/* simrun.c */
int add_pixie(struct run *r, const struct profile *tpl,
	      struct profile **ps, int n);
int run_sim(struct fe_config *c, const char *path);

/* frontend.c */
uint64_t now_ns(clockid_t clk);
void notice(const struct fe_config *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int fail(int err);
int setup_signals(struct run *r);
struct profile *new_template(uint64_t t0, uint64_t t0_wall);
int write_and_report(struct run *r, struct profile *tpl);

#endif
