/* SPDX-License-Identifier: MIT */
/*
 * Running the profiled program.
 *
 * The program is found first (path_find_program(), common/util/path.h).
 * launch_start()
 * forks a child that waits, with everything set up, until launch_release()
 * lets it exec; so events can be attached to its pid before it runs a
 * single instruction of the program.  The child keeps stdin, stdout and
 * stderr and the signal dispositions the profiler was started with.
 */
#ifndef COMMON_LAUNCH_H
#define COMMON_LAUNCH_H

#include <sys/types.h>

struct launch {
	pid_t pid;
	int gate_fd;	/* write end: closing it releases the child */
	int err_fd;	/* read end: exec errno, or EOF on success */
	int pidfd;	/* readable when the child exits, or -1 */
};

int launch_start(struct launch *l, const char *path, char *const argv[]);
/*
 * Let the child exec.  Returns 0 when exec succeeded, or -PROF_ENOENT /
 * -PROF_ENOEXEC with a detail when it failed (the child has exited).
 */
int launch_release(struct launch *l, const char *name);
/* Wait for the child; returns its shell-style status (code, or 128+sig). */
int launch_wait(struct launch *l);
/* Non-blocking: 1 and *status when the child has exited, else 0. */
int launch_poll(struct launch *l, int *status);
void launch_release_fds(struct launch *l);

/* A pollable descriptor for any process's exit, or -1 (old kernel). */
int launch_pidfd(pid_t pid);

#endif
