/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util/error.h"
#include "launch.h"

int launch_start(struct launch *l, const char *path, char *const argv[])
{
	int gate[2], errp[2];
	pid_t pid;

	l->pid = -1;
	l->gate_fd = l->err_fd = l->pidfd = -1;
	if (pipe2(gate, O_CLOEXEC))
		return prof_fail(PROF_EIO, "cannot create pipe: %s",
				 strerror(errno));
	if (pipe2(errp, O_CLOEXEC)) {
		close(gate[0]);
		close(gate[1]);
		return prof_fail(PROF_EIO, "cannot create pipe: %s",
				 strerror(errno));
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(gate[0]);
		close(gate[1]);
		close(errp[0]);
		close(errp[1]);
		return prof_fail(PROF_EIO, "cannot fork: %s", strerror(e));
	}
	if (pid == 0) {
		char c;
		int e;
		sigset_t none;

		close(gate[1]);
		close(errp[0]);
		/* The profiler only blocked signals (it reads them from a
		 * signalfd); dispositions, ignored SIGINT included, are what
		 * the program would have had without it. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* Wait for the profiler: EOF on the gate means go. */
		while (read(gate[0], &c, 1) < 0 && errno == EINTR)
			;
		close(gate[0]);
		execv(path, argv);
		if (errno == ENOEXEC) {
			/* A script without #!: run it as a shell would. */
			int n = 0;
			char **sh;

			while (argv[n])
				n++;
			sh = calloc((size_t)n + 2, sizeof(*sh));
			if (sh) {
				sh[0] = (char *)"/bin/sh";
				sh[1] = (char *)path;
				memcpy(sh + 2, argv + 1, sizeof(*sh) * (size_t)n);
				execv("/bin/sh", sh);
			}
			errno = ENOEXEC;
		}
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(gate[0]);
	close(errp[1]);
	l->pid = pid;
	l->gate_fd = gate[1];
	l->err_fd = errp[0];
	l->pidfd = launch_pidfd(pid);
	return 0;
}

int launch_pidfd(pid_t pid)
{
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434	/* the same number on every architecture */
#endif
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

int launch_release(struct launch *l, const char *name)
{
	int e;
	ssize_t r;

	close(l->gate_fd);
	l->gate_fd = -1;
	do
		r = read(l->err_fd, &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	close(l->err_fd);
	l->err_fd = -1;
	if (r != (ssize_t)sizeof(e))
		return 0;
	return prof_fail(e == ENOENT ? PROF_ENOENT : PROF_ENOEXEC,
			 "cannot run '%s': %s", name, strerror(e));
}

/* Shell-style status from a wait status. */
static int launch_status(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return 125;
}

int launch_wait(struct launch *l)
{
	int ws;

	while (waitpid(l->pid, &ws, 0) < 0)
		if (errno != EINTR)
			return 125;
	return launch_status(ws);
}

int launch_poll(struct launch *l, int *status)
{
	int ws;
	pid_t r = waitpid(l->pid, &ws, WNOHANG);

	if (r == l->pid) {
		*status = launch_status(ws);
		return 1;
	}
	return 0;
}

void launch_release_fds(struct launch *l)
{
	if (l->gate_fd >= 0)
		close(l->gate_fd);
	if (l->err_fd >= 0)
		close(l->err_fd);
	if (l->pidfd >= 0)
		close(l->pidfd);
	l->gate_fd = l->err_fd = l->pidfd = -1;
}
