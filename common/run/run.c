/* SPDX-License-Identifier: MIT */
/*
 * run_profile() (run.h): one run of the perf engine, as named phases.
 *
 *   prepare   find the program, check every output file is writable,
 *             check privileges and the -p target
 *   plan      the statistics into events (plan.c), the sample rate
 *   set_up    the collector, its CPUs, kernel symbols and -ra, signals,
 *             -control, what perf opens on (the target)
 *   start     open the session, start the program, enable sampling
 *   collect   until the program exits or a signal or -d says stop
 *             (control.c)
 *   finish    the profile template (statistics, totals, ratios), then
 *             write and report (output.c)
 *
 * The sim engine (--engine=sim) branches off after prepare (simrun.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run_int.h"
#include "common/engine/pysample.h"
#include "common/collect/collect.h"
#include "common/engine/launch.h"
#include "common/engine/perf.h"
#include "common/engine/privilege.h"
#include "common/engine/proc.h"
#include "common/engine/pyframes.h"
#include "common/engine/sim.h"
#include "common/profile/profile.h"
#include "common/stats/stats.h"
#include "common/util/clock.h"
#include "common/util/error.h"
#include "common/util/path.h"
#include "symbolize/symbolize.h"

static unsigned run_modes(const struct run_config *c)
{
	return c->tool->default_modes | c->add_modes;
}

/* The program found (126/127 when not), the outputs writable, and the
 * rights the run needs. */
static int prepare(struct run *r)
{
	struct run_config *c = r->cfg;
	int err;

	if (c->cmd) {
		err = path_find_program(c->cmd[0], &r->path);
		if (err) {
			r->code = err == -PROF_ENOENT ? RUN_EXIT_NOTFOUND :
				  err == -PROF_ENOEXEC ? RUN_EXIT_NOEXEC :
				  RUN_EXIT_FAIL;
			return err;
		}
	}
	if (!c->dry_run) {
		err = run_check_outputs(c);
		if (err)
			return err;
	}
	if (c->engine == RUN_ENGINE_SIM)
		return 0;
	if (c->pixie && !c->dry_run) {
		char *vg = NULL;

		/* Not after a long sampled run. */
		err = sim_find_valgrind(&vg);
		free(vg);
		if (!err)
			err = run_pixie_stdin(r);
		if (err)
			return err;
	}
	if (!c->dry_run) {
		struct priv_need need = {
			.system_wide = c->tool->scope == RUN_SCOPE_SYSTEM,
			.kernel = !!(run_modes(c) & STAT_MODE_KERNEL),
			.kernel_symbols = !!(run_modes(c) & STAT_MODE_KERNEL),
		};

		err = priv_check(&need);
		if (err)
			return err;
	}
	if (c->attach_pid)
		return priv_check_attach((pid_t)c->attach_pid, c->tool->name,
					 c->tool->scope == RUN_SCOPE_TASKS,
					 run_modes(c), !c->dry_run);
	return 0;
}

static int plan(struct run *r)
{
	int err = run_resolve_stats(r);

	if (!err && !r->cfg->dry_run)
		err = run_check_sample_rate(r);
	return err;
}

/* -ra: the kernel utility routines whose samples go to their callers. */
static int setup_callers(struct run *r)
{
	struct run_config *c = r->cfg;
	struct collect_range *rg;
	int n, i, err;

	if (!c->nra)
		return 0;
	n = run_kernel_ranges(r, c->ra, c->nra, &rg);
	if (n == -PROF_ENOMEM)
		return n;
	if (n < 0)
		return prof_fail(PROF_EPERM, "-ra needs the kernel's symbols: %s",
				 sym_strerror(n));
	if (n == 0)
		return prof_fail(PROF_EINVAL, "-ra: no kernel routine matches "
				 "the list ('%s'%s)", c->ra[0],
				 c->nra > 1 ? ", ..." : "");
	err = collector_set_caller_ranges(r->col, rg, (size_t)n);
	free(rg);
	for (i = 0; i < (int)r->nstats; i++)
		r->specs[i].callchain = 1;
	if (c->verbose)
		run_notice(c, "-ra: %d kernel routines charge their samples "
			   "to their callers", n);
	return err;
}

/*
 * -g / --call-graph: what each event records and how the collector turns
 * it into stacks.  -g is auto for uprofile; for kprofile it is the
 * kernel's call chains alone, a mode asked for adds user stacks.
 */
static int setup_call_graph(struct run *r)
{
	struct run_config *c = r->cfg;
	size_t i;
	int err;

	r->call_graph = c->call_graph;
	r->user_stacks = c->call_graph != PROF_CG_NONE;
	if (c->call_graph_g) {
		r->call_graph = c->tool->scope == RUN_SCOPE_SYSTEM ?
				PROF_CG_FP : PROF_CG_AUTO;
		r->user_stacks = c->tool->scope != RUN_SCOPE_SYSTEM;
	}
	if (r->call_graph == PROF_CG_NONE)
		return 0;
	err = collector_set_call_graph(r->col, r->call_graph);
	if (err)
		return err;
	if (r->call_graph != PROF_CG_FP)
		r->stack_dump = c->stack_dump ? c->stack_dump : RUN_STACK_DUMP;
	for (i = 0; i < r->nstats; i++) {
		int chain = r->user_stacks && r->call_graph == PROF_CG_FP ?
			    PERF_CHAIN_ALL : PERF_CHAIN_KERNEL;

		if (chain > r->specs[i].callchain)
			r->specs[i].callchain = chain;
		r->specs[i].stack_user = r->stack_dump;
	}
	/* A stack copy per sample: room for 63 at the default copy, 127 at
	 * 32 KiB, per CPU, so that a drain late by a few milliseconds (a
	 * loaded machine) does not lose samples. */
	if (r->stack_dump)
		r->target.ring_pages = 1024;
	return 0;
}

/* The collector, with a histogram row for every profiled CPU (and with
 * -each a file), sampled or not. */
static int setup_collector(struct run *r)
{
	struct run_config *c = r->cfg;
	enum collect_split split = c->pids ? COLLECT_SPLIT_PID :
				   c->cpus == RUN_CPUS_EACH ?
				   COLLECT_SPLIT_CPU : COLLECT_SPLIT_NONE;
	int *cpus = NULL;
	size_t ncpus = 0, i;
	int err;

	r->col = collector_new(split, r->nstats);
	if (!r->col)
		return prof_fail(PROF_ENOMEM, "out of memory");
	for (i = 0; i < r->nstats; i++)
		collector_set_modes(r->col, (uint32_t)i, r->choice[i].modes);
	if (c->cpus == RUN_CPUS_ONE)
		return collector_add_cpu(r->col, (uint32_t)r->one_cpu);
	err = perf_online_cpus(&cpus, &ncpus);
	for (i = 0; !err && i < ncpus; i++) {
		err = collector_add_cpu(r->col, (uint32_t)cpus[i]);
		if (!err && c->cpus == RUN_CPUS_EACH)
			err = collector_expect_split(r->col,
						     (uint32_t)cpus[i]);
	}
	free(cpus);
	return err;
}

/* What perf opens on: all CPUs (kprofile), -p's threads, or the program
 * (known at start); the processes that exist already, mapped. */
static int set_target(struct run *r)
{
	struct run_config *c = r->cfg;
	struct perf_target *t = &r->target;
	int err;

	t->triggered = c->triggered;
	if (c->cpus == RUN_CPUS_ONE) {
		t->cpus = &r->one_cpu;
		t->ncpus = 1;
	}
	if (c->tool->scope == RUN_SCOPE_SYSTEM) {
		t->kind = PERF_TARGET_CPUS;
		/* User-mode rows need every process's maps. */
		t->track = !c->count && (!!(run_modes(c) & STAT_MODE_USER) ||
					 r->user_stacks);
		/* Without them, the names of tasks (-by comm): the
		 * kernel's rows split by who made it busy. */
		t->track_tasks = !c->count;
		if (t->track)
			proc_synthesize_all(r->col);
		else if (t->track_tasks)
			proc_synthesize_names(r->col);
	} else if (c->attach_pid) {
		err = proc_list_tids((pid_t)c->attach_pid, &r->tids,
				     &r->ntids);
		if (err)
			return err;
		proc_synthesize_maps(r->col, (pid_t)c->attach_pid);
		t->kind = PERF_TARGET_TASKS;
		t->tids = r->tids;
		t->ntids = r->ntids;
		t->track = !c->count;
	}
	/* Counting needs no maps: there are no samples to place. */
	if (c->count)
		t->track = 0;
	if (r->have_trigger)
		t->trigger = &r->trigger;
	return 0;
}

static int set_up(struct run *r)
{
	struct run_config *c = r->cfg;
	size_t i;
	int err;

	if (c->cpus == RUN_CPUS_ONE) {
		err = run_pin_to_current_cpu(&r->one_cpu);
		if (err)
			return err;
	}
	err = setup_collector(r);
	if (!err)
		err = setup_call_graph(r);
	if (err)
		return err;
	for (i = 0; i < r->nstats; i++)
		if (r->choice[i].modes & STAT_MODE_KERNEL)
			break;
	/* Kernel symbols name samples; counting has none. */
	if (i < r->nstats && !c->count) {
		r->sym = symbolizer_new(NULL);
		if (!r->sym)
			return prof_fail(PROF_ENOMEM, "out of memory");
		err = setup_callers(r);
		if (err)
			return err;
	}
	err = run_setup_offcpu(r);
	if (!err)
		err = run_setup_signals(r);
	if (!err && c->control)
		err = run_open_control(r);
	if (!err)
		err = set_target(r);
	return err;
}

/* perf_target.python: a CPython's stacks in Python's words, where
 * stacks are taken; python3 app.py's read as promptly from its start-up
 * on (its samples wake the drainer). */
static int python_mode(const struct run *r)
{
	const struct run_config *c = r->cfg;

	if (!r->call_graph || c->python_off ||
	    c->tool->scope != RUN_SCOPE_TASKS)
		return 0;
	if (c->cmd && !strncmp(path_base(c->cmd[0]), "python", 6))
		return PERF_PYTHON_EAGER;
	return 1;
}

/* --dry-run: the events, as they would be opened. */
static int describe(struct run *r)
{
	struct run_config *c = r->cfg;
	struct perf_target t = r->target;
	int err;

	if (c->cmd && c->tool->scope == RUN_SCOPE_TASKS) {
		t.kind = PERF_TARGET_TASKS;
		t.enable_on_exec = 1;
		t.track = !c->count;
	}
	t.python = python_mode(r);
	err = perf_describe(stdout, r->specs, r->nstats, &t);
	if (err)
		return err;
	r->code = fflush(stdout) ? RUN_EXIT_FAIL : 0;
	return 0;
}

/* -v: what is sampled or counted, and how. */
static void say_plan(const struct run *r)
{
	const struct run_config *c = r->cfg;
	size_t i;

	for (i = 0; i < r->nstats; i++) {
		const struct perf_event_spec *s = &r->specs[i];
		const struct stat_choice *ch = &r->choice[i];

		if (c->count)
			run_notice(c, "counting %s (type %u, config %#" PRIx64
				   ") in %s mode%s", ch->def->name, s->type,
				   s->config, stat_modes_text(ch->modes),
				   s->group ? ", grouped" : "");
		else if (s->offcpu == PERF_OFFCPU_TIME)
			run_notice(c, "recording %s in %s mode: the time "
				   "threads spend switched out, from a record "
				   "at each switch%s", ch->def->name,
				   stat_modes_text(ch->modes),
				   r->target.sw.stacks ? " and a sample as "
				   "each switches out" : "");
		else
			run_notice(c, "sampling %s (type %u, config %#" PRIx64
				   ") in %s mode, %s %" PRIu64 "%s", ch->def->name,
				   s->type, s->config,
				   stat_modes_text(ch->modes),
				   s->period ? "every" : "at",
				   s->period ? s->period : s->freq,
				   s->period ? " events" : " samples per second");
	}
	if (c->cmd)
		run_notice(c, "running %s and its descendants", r->path);
	else if (c->attach_pid)
		run_notice(c, "attaching to process %ld (%zu threads)",
			   c->attach_pid, r->ntids);
	else
		run_notice(c, "profiling all CPUs until SIGTERM%s",
			   r->sigint_ignored ? "" : " or Ctrl-C");
}

/* Stop a program that will not be waited for by collect. */
static void kill_child(struct run *r)
{
	if (r->have_child && !r->child_done) {
		kill(r->child.pid, SIGKILL);
		launch_wait(&r->child);
		r->child_done = 1;
	}
}

/* The program's own command line, for its -pids file: the run knows it
 * before the exec, when reading it from /proc could come too late. */
static int note_command(struct run *r)
{
	char *buf, *p;
	size_t len = 0;
	char **a;

	for (a = r->cfg->cmd; *a; a++)
		len += strlen(*a) + 1;
	buf = malloc(len ? len : 1);
	if (!buf)
		return -PROF_ENOMEM;
	for (a = r->cfg->cmd, p = buf; *a; a++)
		p = stpcpy(p, *a) + 1;
	collector_next_exec(r->col, (uint32_t)r->child.pid, buf, len);
	free(buf);
	return 0;
}

/* Open the session, start the program (stopped before its exec), enable
 * sampling, and let the program go. */
static int start(struct run *r)
{
	struct run_config *c = r->cfg;
	struct perf_target *t = &r->target;
	int err;

	if (c->cmd) {
		err = launch_start(&r->child, r->path, c->cmd);
		if (err)
			return err;
		r->have_child = 1;
		err = note_command(r);
		if (err)
			return err;
		if (c->tool->scope == RUN_SCOPE_TASKS) {
			t->kind = PERF_TARGET_TASKS;
			t->tids = &r->child.pid;
			t->ntids = 1;
			t->enable_on_exec = 1;
			t->track = !c->count;
		}
	}
	if (c->verbose)
		say_plan(r);
	t->python = python_mode(r);
	t->python_read = c->python_read;
	err = perf_session_open(&r->sess, r->specs, r->nstats, t, r->col);
	if (err)
		return err;
	r->t0 = prof_clock_ns(CLOCK_MONOTONIC);
	r->t0_wall = prof_clock_ns(CLOCK_REALTIME);
	collector_set_time_base(r->col, r->t0);
	run_offcpu_started(r);
	if (c->triggered) {
		if (c->verbose)
			run_notice(c, "triggered mode: sampling starts on "
				   "SIGUSR1%s", c->control ? " or 'enable' "
				   "on the control FIFO" : "");
	} else if (!t->enable_on_exec) {
		err = perf_session_enable(r->sess);
		if (err)
			return err;
		r->sampling = 1;
	} else {
		r->sampling = 1;
	}
	if (r->have_child) {
		err = launch_release(&r->child, c->cmd[0]);
		if (err) {
			r->status = launch_wait(&r->child);
			r->child_done = 1;
			r->code = err == -PROF_ENOENT ? RUN_EXIT_NOTFOUND :
				  RUN_EXIT_NOEXEC;
			return err;
		}
	}
	return 0;
}

static int collect(struct run *r)
{
	int err = run_collect(r, &r->status);

	if (err)
		return err;
	r->child_done = 1;
	perf_session_disable(r->sess);
	perf_session_drain(r->sess);
	run_offcpu_ended(r, prof_clock_ns(CLOCK_MONOTONIC));
	return 0;
}

/* -ra's list and how many samples moved, in the profile. */
static int note_callers(const struct run_config *c, struct run *r,
			struct profile *tpl)
{
	size_t len = 1, i;

	for (i = 0; i < c->nra; i++)
		len += strlen(c->ra[i]) + 1;
	tpl->ra_routines = calloc(1, len);
	if (!tpl->ra_routines)
		return -PROF_ENOMEM;
	for (i = 0; i < c->nra; i++) {
		if (i)
			strcat(tpl->ra_routines, ",");
		strcat(tpl->ra_routines, c->ra[i]);
	}
	tpl->ra_moved = collector_moved(r->col);
	return 0;
}

/* Each statistic with its event and totals; then the ratios asked for,
 * which have no event and no counts of their own (reports compute them
 * from their inputs). */
static int add_statistics(struct run *r, struct profile *tpl)
{
	const struct run_config *c = r->cfg;
	unsigned counting = c->count ? PROF_STAT_COUNTING : 0;
	size_t i;

	for (i = 0; i < r->nstats; i++) {
		struct perf_totals tot;
		struct prof_stat s = {
			.name = (char *)r->choice[i].def->name,
			.requested = r->choice[i].requested,
			.type = r->specs[i].type,
			.modes = r->choice[i].modes,
			.flags = (r->choice[i].substitute ?
				  PROF_STAT_SUBSTITUTE : 0) |
				 (r->specs[i].pm.pmu ?
				  PROF_STAT_PROFILEME : 0) |
				 (r->specs[i].offcpu ? PROF_STAT_TIME : 0) |
				 counting,
			.config = r->specs[i].config,
			.period = r->specs[i].period,
			.freq = r->specs[i].freq,
		};

		perf_session_totals(r->sess, i, &tot);
		s.value = tot.value;
		s.time_enabled = tot.time_enabled;
		s.time_running = tot.time_running;
		if (profile_add_stat(tpl, &s) < 0)
			return -PROF_ENOMEM;
	}
	for (i = 0; i < r->nderived; i++) {
		struct prof_stat s = {
			.name = r->derived[i].name,
			.requested = r->derived[i].requested,
			.modes = r->derived[i].x == SIZE_MAX ? STAT_MODE_USER :
				 r->choice[r->derived[i].x].modes,
			.flags = PROF_STAT_DERIVED | counting,
		};

		if (profile_add_stat(tpl, &s) < 0)
			return -PROF_ENOMEM;
	}
	return 0;
}

/* -v: which processes were CPython, and how many of their samples got
 * Python frames. */
static void say_python(const struct run *r)
{
	const struct py_samples *ps = perf_session_python(r->sess);
	const char *partial;
	const char *why = perf_session_pybpf(r->sess, &partial);
	struct py_samples_proc pp;
	size_t i;
	int said = 0;

	for (i = 0; !py_samples_info(ps, i, &pp); i++) {
		char v[32];

		if (pp.version && !said++) {
			if (why)
				run_notice(r->cfg, "python: frames read from "
					   "the process as samples are drained "
					   "(not copied at the sample: %s)",
					   why);
			else
				run_notice(r->cfg, "python: frames copied at "
					   "each sample by a BPF program%s%s%s",
					   partial ? " (not on every CPU or "
					   "event: " : "",
					   partial ? partial : "",
					   partial ? ")" : "");
		}
		py_version_text(pp.version, v, sizeof(v));
		if (pp.version)
			run_notice(r->cfg, "python: CPython %s (%s): "
				   "%" PRIu64 " of %" PRIu64 " samples with "
				   "Python frames, %" PRIu64 " of them copied "
				   "at the sample", v, pp.image,
				   pp.with_python, pp.samples, pp.at_sample);
		else if (pp.why)
			run_notice(r->cfg, "python: no Python frames: %s",
				   pp.why);
	}
}

/* -v: how the stacks were unwound, object by object, and how they ended. */
static void say_stacks(const struct run *r)
{
	const struct run_config *c = r->cfg;
	const char *path, *source;
	uint64_t steps, rows, total = 0, deep;
	const char *why;
	size_t i, ndeep;
	int e;

	say_python(r);
	deep = perf_session_deep(r->sess, &ndeep, &why);
	if (ndeep)
		run_notice(c, "call stacks: %zu process%s' stacks outgrew the "
			   "kernel's copy: %" PRIu64 " samples' copies extended "
			   "by the BPF program", ndeep, ndeep == 1 ? "" : "es",
			   deep);
	else if (why && collector_stack_ends(r->col, PROF_STACK_TRUNC_DUMP))
		run_notice(c, "call stacks: stacks deeper than the kernel's "
			   "copy stay truncated (no BPF program to copy the "
			   "rest: %s)", why);
	for (i = 0; (e = collector_unwind_info(r->col, i, &path, &source,
					       &steps, &rows)) != 1; i++)
		if (e == 0)
			run_notice(c, "unwound %" PRIu64 " frames in %s: %s%s "
				   "(%" PRIu64 " CFI rows read)", steps, path,
				   *source == '.' ? "DWARF CFI from " : "",
				   source, rows);
	for (e = 0; e < PROF_STACK_NEND; e++)
		total += collector_stack_ends(r->col, e);
	for (e = 0; total && e < PROF_STACK_NEND; e++) {
		uint64_t n = collector_stack_ends(r->col, e);

		if (n)
			run_notice(c, "call stacks: %" PRIu64 " (%.2f%%) %s", n,
				   100.0 * (double)n / (double)total,
				   profile_stack_end_name(e));
	}
}

/* The profiles the collector holds, with -pixie's exact counts added;
 * written and reported. */
static int write_profiles(struct run *r)
{
	struct profile **ps = NULL;
	int n = run_read_jit_maps(r), err = 0;

	if (n < 0)
		return n;
	n = collector_build(r->col, r->tpl, &ps);
	if (n < 0)
		return n;
	if (r->cfg->pixie)
		err = run_add_pixie(r, r->tpl, ps, n);
	if (err) {
		run_free_profiles(ps, n);
		return err;
	}
	err = run_write_and_report(r, r->tpl, ps, n);
	if (!err)
		r->code = r->have_child ? r->status : 0;
	return err;
}

/* What the run was, in the profile's template; then write and report. */
static int finish(struct run *r)
{
	struct run_config *c = r->cfg;
	int err;

	r->tpl = run_new_template(c, r->t0, r->t0_wall);
	if (!r->tpl)
		return -PROF_ENOMEM;
	r->tpl->exit_status = r->have_child ? r->status : -1;
	r->tpl->call_graph = r->call_graph;
	r->tpl->stack_dump = r->stack_dump;
	if (c->verbose && r->call_graph)
		say_stacks(r);
	if (c->nra) {
		err = note_callers(c, r, r->tpl);
		if (err)
			return err;
	}
	if (c->cmd) {
		profile_set_argv(r->tpl, c->ncmd, c->cmd);
	} else if (c->attach_pid) {
		char pidtxt[32];
		char *av[] = { pidtxt, NULL };

		snprintf(pidtxt, sizeof(pidtxt), "pid:%ld", c->attach_pid);
		profile_set_argv(r->tpl, 1, av);
	}
	err = add_statistics(r, r->tpl);
	if (err)
		return err;
	if (c->verbose && perf_session_pm_dropped(r->sess))
		run_notice(c, "%" PRIu64 " instruction samples dropped (no "
			   "valid instruction address, or malformed)",
			   perf_session_pm_dropped(r->sess));
	if (c->start_after) {
		r->tpl->start_after = strdup(c->start_after);
		if (!r->tpl->start_after)
			return -PROF_ENOMEM;
		r->tpl->start_after_ns = r->fired_ns;
		r->tpl->start_after_latency_ns = r->handover_ns;
	}
	return write_profiles(r);
}

static void release(struct run *r)
{
	profile_free(r->tpl);
	perf_session_free(r->sess);
	collector_free(r->col);
	if (r->have_child)
		launch_release_fds(&r->child);
	if (r->sigfd >= 0)
		close(r->sigfd);
	run_close_control(r);
	symbolizer_free(r->sym);
	free(r->choice);
	free(r->specs);
	free(r->derived);
	free(r->pm_defs);
	free(r->tids);
	free(r->path);
}

int run_profile(struct run_config *c)
{
	struct run r = { .cfg = c, .sigfd = -1, .control_fd = -1,
			 .control_keep_fd = -1, .fired_ns = -1, .one_cpu = -1,
			 .code = RUN_EXIT_FAIL };
	int err = prepare(&r);

	if (!err && c->engine == RUN_ENGINE_SIM) {
		err = run_sim(&r);
		goto out;
	}
	if (!err)
		err = plan(&r);
	if (!err)
		err = set_up(&r);
	if (!err && c->dry_run)
		err = describe(&r);
	else if (!err)
		err = start(&r);
	if (!err && !c->dry_run)
		err = collect(&r);
	if (!err && !c->dry_run)
		err = finish(&r);
out:
	if (err) {
		kill_child(&r);
		/* Our own failure is 125 even after the program ran (unless
		 * it could not start): a script must not read success into
		 * a profile that was not written. */
		run_fail(c, err);
	}
	release(&r);
	return r.code;
}
