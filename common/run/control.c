/* SPDX-License-Identifier: MIT */
/*
 * What happens while a run collects: signals become events of the loop,
 * sampling is switched on and off (-t, SIGUSR1/2, -control), the
 * --start-after trigger hands over, and the loop ends with the program,
 * the duration or a signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_int.h"
#include "common/engine/launch.h"
#include "common/engine/perf.h"
#include "common/util/clock.h"
#include "common/util/error.h"

/* Signals become readable events, so the loop below decides what each
 * means: the terminal's Ctrl-C already reached the program. */
int run_setup_signals(struct run *r)
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

int run_pin_to_current_cpu(int *cpu)
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

static void set_sampling(struct run *r, int on)
{
	int err;

	if (r->sampling == on)
		return;
	err = on ? perf_session_enable(r->sess) :
		   perf_session_disable(r->sess);
	if (err) {
		run_fail(r->cfg, err);
		return;
	}
	r->sampling = on;
	if (r->cfg->verbose)
		run_notice(r->cfg, "sampling %s", on ? "enabled" : "disabled");
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
					r->cfg->tool->name, line);
		}
	}
}

/* path's FIFO at st: ours, and nobody else may write commands to it.
 * One we just made is 0600 less the umask. */
static int check_control(const char *path, const struct stat *st)
{
	if (!S_ISFIFO(st->st_mode))
		return prof_fail(PROF_EINVAL, "control '%s' is not a FIFO",
				 path);
	if (st->st_uid != geteuid())
		return prof_fail(PROF_EINVAL, "control FIFO '%s' belongs to "
				 "uid %u, not to this user: refused", path,
				 (unsigned)st->st_uid);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return prof_fail(PROF_EINVAL, "control FIFO '%s' is writable "
				 "by others (mode %04o): refused", path,
				 (unsigned)(st->st_mode & 07777));
	return 0;
}

/* The inode at pathfd (O_PATH, checked) opened with flags: through
 * /proc/self/fd, which reopens that inode whatever the name names now;
 * without /proc, by name again and compared. */
static int reopen(int pathfd, const char *path, int flags,
		  const struct stat *want)
{
	char proc[64];
	struct stat st;
	int fd;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pathfd);
	fd = open(proc, flags | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_dev != want->st_dev ||
	    st.st_ino != want->st_ino) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	return fd;
}

/*
 * -control FIFO, created 0600 when missing.  The name is looked up once,
 * without following a link (O_PATH | O_NOFOLLOW); what it names is
 * checked on that descriptor and opened through it, so a FIFO another
 * user planted in /tmp, or a link to one, is never read or written.
 */
int run_open_control(struct run *r)
{
	const char *path = r->cfg->control;
	struct stat st;
	int pathfd, made = 0, err;

	if (!mkfifo(path, 0600))
		made = 1;
	else if (errno != EEXIST)
		return prof_fail(PROF_EIO, "cannot create control FIFO '%s': %s",
				 path, strerror(errno));
	pathfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pathfd < 0)
		return prof_fail(PROF_EIO, "cannot open control FIFO '%s': %s",
				 path, strerror(errno));
	if (fstat(pathfd, &st)) {
		err = prof_fail(PROF_EIO, "cannot open control FIFO '%s': %s",
				path, strerror(errno));
	} else if (S_ISLNK(st.st_mode)) {
		err = prof_fail(PROF_EINVAL, "control '%s' is a symbolic link: "
				"refused", path);
	} else {
		err = check_control(path, &st);
	}
	if (!err) {
		r->control_fd = reopen(pathfd, path, O_RDONLY | O_NONBLOCK, &st);
		/* Our own writer keeps the FIFO from reporting EOF
		 * between commands. */
		if (r->control_fd >= 0)
			r->control_keep_fd = reopen(pathfd, path, O_WRONLY |
						    O_NONBLOCK, &st);
		if (r->control_fd < 0 || r->control_keep_fd < 0)
			err = prof_fail(PROF_EIO, "cannot open control FIFO "
					"'%s': %s", path, strerror(errno));
	}
	close(pathfd);
	/* Ours to remove at the end only when it is the one we made. */
	r->control_made = made && !err;
	r->control_dev = st.st_dev;
	r->control_ino = st.st_ino;
	return err;
}

void run_close_control(struct run *r)
{
	struct stat st;

	if (r->control_fd >= 0)
		close(r->control_fd);
	if (r->control_keep_fd >= 0)
		close(r->control_keep_fd);
	r->control_fd = r->control_keep_fd = -1;
	/* Only if the name still names our FIFO: another file put there
	 * meanwhile is not ours to remove. */
	if (r->control_made && !lstat(r->cfg->control, &st) &&
	    S_ISFIFO(st.st_mode) && st.st_dev == r->control_dev &&
	    st.st_ino == r->control_ino)
		unlink(r->cfg->control);
	r->control_made = 0;
}

/*
 * --start-after: A's N-th event raised the trigger's signal.  The
 * hand-over recorded is from reading the signal to every statistic
 * enabled; the kernel's part before (overflow to signal read) is
 * documented in README.md.
 */
static void start_after_fired(struct run *r)
{
	uint64_t t1 = prof_clock_ns(CLOCK_MONOTONIC), t2;
	int err = perf_session_cascade(r->sess);

	t2 = prof_clock_ns(CLOCK_MONOTONIC);
	if (err < 0) {
		run_fail(r->cfg, err);
		return;
	}
	if (!err)
		return;
	r->fired_ns = (int64_t)(t1 - r->t0);
	r->handover_ns = t2 - t1;
	if (r->cfg->verbose)
		run_notice(r->cfg, "'%s' reached %llu after %.3f s: %s started "
		       "(hand-over %.1f us)", r->cfg->start_after_stat,
		       r->cfg->start_after_n, (double)r->fired_ns / 1e9,
		       r->cfg->count ? "counting" : "sampling",
		       (double)r->handover_ns / 1e3);
}

/*
 * Collect until the program exits, the duration passes, or a signal says
 * stop.  *status: the program's status (or 0).  Returns 0 or a negative
 * error.
 */
int run_collect(struct run *r, int *status)
{
	struct run_config *c = r->cfg;
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
		deadline = prof_clock_ns(CLOCK_MONOTONIC) +
			   (uint64_t)(c->duration * 1e9);
	while (!stop) {
		int timeout = 100;
		struct signalfd_siginfo si;
		int err;

		if (deadline) {
			uint64_t t = prof_clock_ns(CLOCK_MONOTONIC);

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
