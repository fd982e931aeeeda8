/* SPDX-License-Identifier: MIT */
/*
 * Where the sim engine runs (sim.h): --engine=sim, a whole run counted
 * exactly under valgrind, and -pixie, a second run under valgrind whose
 * exact instruction counts are added to the sampled profiles.  Its
 * options are checked by uprofile (the only tool that has them); the
 * signals (control.c), the ratios' inputs (plan.c), writing and reporting
 * (output.c) are shared with the perf-engine run.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/collect/collect.h"
#include "common/util/clock.h"
#include "common/util/error.h"
#include "run_int.h"
#include "common/engine/launch.h"
#include "common/profile/profile.h"
#include "common/engine/sim.h"
#include "common/stats/stats.h"

/* Wait for the program under valgrind, taking its files as they are
 * written (sim_service()); a signal sent to us alone is passed on, as in
 * run_collect(). */
static int wait_sim(struct run *r, struct sim_run *sim, int *status)
{
	struct launch *l = sim_child(sim);
	struct pollfd fds[3] = {
		{ .fd = r->sigfd, .events = POLLIN },
		{ .fd = sim_watch_fd(sim), .events = POLLIN },
		{ .fd = l->pidfd, .events = POLLIN },
	};

	for (;;) {
		struct signalfd_siginfo si;

		sim_service(sim);
		if (launch_poll(l, status))
			return 0;
		if (poll(fds, l->pidfd >= 0 ? 3 : 2, 100) < 0 && errno != EINTR)
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
static int run_sim_execute(struct run *r, const size_t *idx, size_t n,
			   uint32_t first, struct collector *col, int *status)
{
	struct run_config *c = r->cfg;
	struct sim_run *sim = NULL;
	struct sim_result res = { 0 };
	char *vg = NULL;
	int err;

	err = sim_find_valgrind(&vg);
	if (err)
		return err;
	err = sim_start(&sim, vg, r->path, c->cmd, idx, n);
	if (err)
		goto out;
	if (c->verbose) {
		run_notice(c, "running %s and its descendants under valgrind: "
			   "%s", r->path, sim_what(idx, n));
		run_notice(c, "valgrind's messages go to its log files, removed "
		       "afterwards");
	}
	err = launch_release(sim_child(sim), vg);
	if (err) {
		launch_wait(sim_child(sim));
		goto out;
	}
	err = wait_sim(r, sim, status);
	if (err) {
		kill(sim_child(sim)->pid, SIGKILL);
		launch_wait(sim_child(sim));
		goto out;
	}
	err = sim_collect(sim, col, idx, n, first, &res);
	if (!err && c->verbose)
		run_notice(c, "%zu valgrind output file(s) read; %" PRIu64 " events "
		       "in valgrind's own code left out", res.processes,
		       res.skipped);
	/* Not an error: every other count is still exact. */
	for (size_t i = 0; !err && i < res.ngaps; i++)
		fprintf(stderr, "%s: warning: not counted exactly: %s\n",
			c->tool->name, res.gaps[i]);
	sim_result_release(&res);
out:
	if (sim)
		launch_release_fds(sim_child(sim));
	sim_free(sim);
	free(vg);
	return err;
}

static void run_sim_stat(struct prof_stat *s, size_t idx,
			 const char *requested, uint64_t total,
			 uint64_t duration)
{
	memset(s, 0, sizeof(*s));
	s->name = (char *)stat_sim_def(idx)->name;
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

static const char *base_of(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* How well two processes' commands agree: 2 the same arguments after
 * the same program name (valgrind names the file exec'd, the sampled
 * run what argv[0] says), 1 the same program name (a command line one
 * run could not read is only its program), 0 not at all. */
static int same_command(const struct profile *a, const struct profile *b)
{
	int i;

	if (!a->argc || !b->argc || strcmp(base_of(a->argv[0]),
					   base_of(b->argv[0])))
		return 0;
	if (a->argc != b->argc)
		return 1;
	for (i = 1; i < a->argc; i++)
		if (strcmp(a->argv[i], b->argv[i]))
			return 1;
	return 2;
}

/*
 * -pixie -pids: which process of the valgrind run (qs, in pid order) is
 * each sampled one (ps, in pid order): the same command line first, then
 * the same program, then (a script the sampled run saw as its
 * interpreter, valgrind as the script) what is left; among equals in pid
 * (birth) order, which the two runs of concurrent children need not
 * share.  match[i]: an index of qs, or -1.  *guessed: the pairings by
 * birth order alone (of different programs, or of one program where
 * another of its processes could have been the one).
 * Returns how many sampled processes have none.
 */
static int pair_processes(struct profile *const *ps, int n,
			  struct profile *const *qs, int m, int *match,
			  int *guessed)
{
	char *used = calloc((size_t)(m ? m : 1), 1);
	int i, j, level, missing = 0;

	if (!used)
		return -PROF_ENOMEM;
	*guessed = 0;
	for (i = 0; i < n; i++)
		match[i] = -1;
	for (level = 2; level >= 0; level--)
		for (i = 0; i < n; i++) {
			int other = 0;

			if (match[i] >= 0)
				continue;
			for (j = 0; j < m; j++) {
				if (used[j] || same_command(ps[i], qs[j]) < level)
					continue;
				if (match[i] < 0)
					match[i] = j;
				else if (level < 2 &&
					 same_command(qs[match[i]], qs[j]) < 2)
					other = 1;	/* a different one */
			}
			if (match[i] >= 0) {
				used[match[i]] = 1;
				*guessed += other || !level;
			}
		}
	for (i = 0; i < n; i++)
		missing += match[i] < 0;
	free(used);
	return missing;
}

/* One line: the sampled processes no process of the valgrind run
 * matched, which get no exact counts. */
static void say_unpaired(const struct run_config *c,
			 struct profile *const *ps, int n, const int *match,
			 int m)
{
	int i, k = 0, said = 0;

	for (i = 0; i < n; i++)
		k += match[i] < 0;
	fprintf(stderr, "%s: warning: the -pixie run diverged (%d "
		"process(es) sampled, %d under valgrind): no process under "
		"valgrind ran the command of", c->tool->name, n, m);
	for (i = 0; i < n; i++) {
		if (match[i] >= 0)
			continue;
		if (said++ == 3) {
			fprintf(stderr, " and %d more", k - 3);
			break;
		}
		fprintf(stderr, "%s %d (%s)", said > 1 ? "," : "",
			(int)ps[i]->pid,
			ps[i]->argc ? base_of(ps[i]->argv[0]) : "?");
	}
	fprintf(stderr, ": %s no exact counts\n", k == 1 ? "it gets" :
		"they get");
}

/* A pipe given to -pixie as stdin is kept in memory up to this size. */
#define PIXIE_STDIN_MAX (256u << 20)

/*
 * Both runs of -pixie must read the same input, or the exact counts
 * are of other work (a program reading stdin would see end-of-file the
 * second time).  A regular file is rewound to where it was; a pipe or
 * socket is read whole into an anonymous memory file that becomes stdin
 * for both runs.  A terminal, /dev/null or a closed stdin are left as
 * they are: the same for both runs, or the user's to type again.
 */
int run_pixie_stdin(struct run *r)
{
	struct stat st;
	char *buf;
	size_t total = 0;
	int fd;

	r->pixie_stdin = -1;
	if (fstat(STDIN_FILENO, &st))
		return 0;
	if (S_ISREG(st.st_mode)) {
		r->pixie_stdin = lseek(STDIN_FILENO, 0, SEEK_CUR);
		return 0;
	}
	if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))
		return 0;
	fd = memfd_create("pixie-stdin", MFD_CLOEXEC);
	buf = malloc(1 << 16);
	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return prof_fail(PROF_EIO, "-pixie: cannot keep stdin for the "
				 "second run: %s", strerror(errno));
	}
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf, 1 << 16);
		int e = errno;

		if (n < 0 && e == EINTR)
			continue;
		if (!n)
			break;
		total += n > 0 ? (size_t)n : 0;
		if (n > 0 && total <= PIXIE_STDIN_MAX &&
		    write(fd, buf, (size_t)n) == n)
			continue;
		e = n < 0 || total <= PIXIE_STDIN_MAX ? errno : 0;
		free(buf);
		close(fd);
		if (!e)
			return prof_fail(PROF_EINVAL, "-pixie runs the program "
					 "twice on the same input: stdin is a "
					 "pipe of more than %u MiB; give it as "
					 "a file (< FILE)",
					 PIXIE_STDIN_MAX >> 20);
		return prof_fail(PROF_EIO, "-pixie: cannot keep stdin for "
				 "the second run: %s", strerror(e));
	}
	free(buf);
	if (dup2(fd, STDIN_FILENO) < 0) {
		close(fd);
		return prof_fail(PROF_EIO, "-pixie: cannot keep stdin for the "
				 "second run: %s", strerror(errno));
	}
	close(fd);
	lseek(STDIN_FILENO, 0, SEEK_SET);
	r->pixie_stdin = 0;
	if (r->cfg->verbose)
		run_notice(r->cfg, "-pixie: stdin (a pipe, %zu bytes) kept "
			   "for both runs", total);
	return 0;
}

/* The first file that ps[0..n) ran and no profile of qs[0..m) did. */
static const char *file_not_in(struct profile *const *ps, int n,
			       struct profile *const *qs, int m)
{
	int i;
	size_t k;

	for (i = 0; i < n; i++)
		for (k = 0; k < ps[i]->nobjects; k++) {
			const struct prof_object *o = &ps[i]->objects[k];

			if (o->kind == PROF_OBJ_FILE &&
			    !has_object(qs, m, o->path))
				return o->path;
		}
	return NULL;
}

/*
 * -pixie: run the program again under valgrind and add its exact
 * instruction counts to the sampled profiles ps (per process with -pids:
 * the processes of both runs are matched by pair_processes()).
 */
int run_add_pixie(struct run *r, const struct profile *tpl,
		  struct profile **ps, int n)
{
	struct run_config *c = r->cfg;
	struct collector *col;
	struct profile *t2 = NULL, **qs = NULL;
	struct prof_stat st;
	size_t idx;
	uint64_t t0 = prof_clock_ns(CLOCK_MONOTONIC);
	int status = 0, m = 0, i, err, missing = 0, guessed = 0;
	int *match = NULL;
	const char *gone;

	err = stat_sim_resolve("retinst", &idx);
	if (err)
		return err;
	col = collector_new(c->pids ? COLLECT_SPLIT_PID : COLLECT_SPLIT_NONE,
			    1);
	if (!col)
		return -PROF_ENOMEM;
	collector_set_exact(col, 0);
	collector_set_modes(col, 0, STAT_MODE_USER);
	if (c->verbose)
		run_notice(c, "-pixie: running the program again under valgrind");
	if (r->pixie_stdin >= 0 &&
	    lseek(STDIN_FILENO, r->pixie_stdin, SEEK_SET) < 0)
		fprintf(stderr, "%s: warning: -pixie cannot rewind stdin for "
			"the second run (%s): its input may differ\n",
			c->tool->name, strerror(errno));
	err = run_sim_execute(r, &idx, 1, 0, col, &status);
	if (err)
		goto out;
	t2 = profile_new();
	if (!t2) {
		err = -PROF_ENOMEM;
		goto out;
	}
	run_sim_stat(&st, idx, "pixie", collector_samples(col, 0),
		     prof_clock_ns(CLOCK_MONOTONIC) - t0);
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
	match = malloc((size_t)(n ? n : 1) * sizeof(*match));
	if (!match) {
		err = -PROF_ENOMEM;
		goto out;
	}
	if (c->pids) {
		missing = pair_processes(ps, n, qs, m, match, &guessed);
		if (missing < 0) {
			err = missing;
			goto out;
		}
	} else {
		for (i = 0; i < n; i++)
			match[i] = i < m ? i : -1;
	}
	/* Warn, do not fail: the sampled profile is still right. */
	if (guessed)
		fprintf(stderr, "%s: warning: -pixie -pids: %d process(es) "
			"paired with the valgrind run's by birth order, not "
			"by command line (their arguments were not read while "
			"they ran, a script showed as its interpreter, or the "
			"runs differ): their exact counts may be another "
			"process's\n", c->tool->name,
			guessed);
	if (tpl->exit_status >= 0 && status != tpl->exit_status)
		fprintf(stderr, "%s: warning: the -pixie run diverged: the "
			"program exited %d in the sampled run and %d under "
			"valgrind; its exact counts may not match the samples\n",
			c->tool->name, tpl->exit_status, status);
	else if (missing)
		say_unpaired(c, ps, n, match, m);
	else if (m != n)
		fprintf(stderr, "%s: warning: the -pixie run diverged: %d "
			"process(es) in the sampled run, %d under valgrind\n",
			c->tool->name, n, m);
	else if ((gone = file_not_in(ps, n, qs, m)))
		fprintf(stderr, "%s: warning: the -pixie run diverged: '%s' "
			"ran in the sampled run but not under valgrind\n",
			c->tool->name, gone);
	for (i = 0; i < n && !err; i++) {
		struct profile *empty = NULL;
		const struct profile *src = match[i] >= 0 ? qs[match[i]] :
					    NULL;

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
	free(match);
	profile_free(t2);
	collector_free(col);
	return err;
}

/* Whether statistic k is only an input of the derived statistics. */
static int der_input(const struct derived *d, size_t n, size_t k)
{
	for (size_t i = 0; i < n; i++)
		if (d[i].x == k || d[i].ret == k)
			return 1;
	return 0;
}

/* The sim engine's way to add a statistic to the plan (plan_engine). */
static int run_sim_add(struct run *r, const char *text, int implicit,
		       size_t *index)
{
	const struct stat_def *d;
	struct stat_choice *ch;
	size_t ix, j;
	int err = stat_sim_resolve(text, &ix);

	if (err)
		return err;
	d = stat_sim_def(ix);
	for (j = 0; j < r->nstats; j++)
		if (r->choice[j].def == d)
			break;
	if (j < r->nstats && !implicit &&
	    !der_input(r->derived, r->nderived, j))
		return prof_fail(PROF_EINVAL, "statistic '%s' is given twice "
				 "(as '%s' and '%s')", d->name,
				 r->choice[j].requested, text);
	if (j == r->nstats) {
		ch = &r->choice[r->nstats++];
		memset(ch, 0, sizeof(*ch));
		ch->def = ch->asked = d;
		ch->modes = STAT_MODE_USER;
		snprintf(ch->requested, sizeof(ch->requested), "%s",
			 implicit ? d->name : text);
	}
	*index = j;
	return 0;
}

/* Every ratio divides by the exact count of retired instructions. */
static const char *run_sim_divisor(struct run *r, size_t x)
{
	return "retinst";
}

/* --dry-run: the valgrind command line. */
static int run_sim_dry_run(struct run *r, const size_t *idx)
{
	char *vg = NULL;
	int err = sim_find_valgrind(&vg);

	if (err)
		return err;
	sim_describe(stdout, vg, r->path, r->cfg->cmd, idx, r->nstats);
	free(vg);
	r->code = fflush(stdout) ? RUN_EXIT_FAIL : 0;
	return 0;
}

/* A collector of exact user-mode counts, one per statistic. */
static int run_sim_collector(struct run *r)
{
	size_t i;

	r->col = collector_new(r->cfg->pids ? COLLECT_SPLIT_PID :
			       COLLECT_SPLIT_NONE, r->nstats);
	if (!r->col)
		return -PROF_ENOMEM;
	for (i = 0; i < r->nstats; i++) {
		collector_set_exact(r->col, (uint32_t)i);
		collector_set_modes(r->col, (uint32_t)i, STAT_MODE_USER);
	}
	return 0;
}

/* The profile template: each statistic with its total, then the ratios
 * (computed by reports from their inputs); then write and report. */
static int run_sim_finish(struct run *r)
{
	struct run_config *c = r->cfg;
	struct profile **ps = NULL;
	size_t i;
	int n, err;

	r->tpl = run_new_template(c, r->t0, r->t0_wall);
	if (!r->tpl)
		return -PROF_ENOMEM;
	r->tpl->exit_status = r->status;
	profile_set_argv(r->tpl, c->ncmd, c->cmd);
	for (i = 0; i < r->nstats; i++) {
		struct prof_stat s;

		run_sim_stat(&s, r->choice[i].def->sim.index,
			 r->choice[i].requested,
			 collector_samples(r->col, (uint32_t)i),
			 r->tpl->duration_ns);
		if (profile_add_stat(r->tpl, &s) < 0)
			return -PROF_ENOMEM;
	}
	for (i = 0; i < r->nderived; i++) {
		struct prof_stat s = {
			.name = r->derived[i].name,
			.requested = r->derived[i].requested,
			.modes = STAT_MODE_USER,
			.flags = PROF_STAT_DERIVED,
		};

		if (profile_add_stat(r->tpl, &s) < 0)
			return -PROF_ENOMEM;
	}
	n = collector_build(r->col, r->tpl, &ps);
	if (n < 0)
		return n;
	err = run_write_and_report(r, r->tpl, ps, n);
	if (!err)
		r->code = r->status;
	return err;
}

int run_sim(struct run *r)
{
	static const struct plan_engine sim = {
		.dflt = "retinst", .add = run_sim_add,
		.divisor = run_sim_divisor,
	};
	size_t *idx = NULL, i;
	int err = run_plan(r, &sim);

	if (!err) {
		idx = calloc(r->nstats + 1, sizeof(*idx));
		if (!idx)
			err = -PROF_ENOMEM;
		for (i = 0; idx && i < r->nstats; i++)
			idx[i] = r->choice[i].def->sim.index;
	}
	if (!err && r->cfg->dry_run) {
		err = run_sim_dry_run(r, idx);
		free(idx);
		return err;
	}
	if (!err)
		err = run_sim_collector(r);
	if (!err)
		err = run_setup_signals(r);
	if (!err) {
		r->t0 = prof_clock_ns(CLOCK_MONOTONIC);
		r->t0_wall = prof_clock_ns(CLOCK_REALTIME);
		err = run_sim_execute(r, idx, r->nstats, 0, r->col, &r->status);
	}
	if (!err)
		err = run_sim_finish(r);
	free(idx);
	return err;
}
