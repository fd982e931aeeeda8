/* SPDX-License-Identifier: MIT */
/*
 * Processes that exist before a run (/proc): the executable mappings the
 * collector needs to place their samples, the threads of -p PID, and
 * what /proc says of attaching to PID (priv_check_attach() decides).
 */
#ifndef COMMON_ENGINE_PROC_H
#define COMMON_ENGINE_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct collector;
struct collect_file_id;

/* Feed the collector the executable mappings of pid (any live thread's
 * view when its main thread has exited), or of every process. */
void proc_synthesize_maps(struct collector *col, pid_t pid);
void proc_synthesize_all(struct collector *col);
/* Only the names of the threads of every process (which maps and
 * proc_synthesize_all() give too). */
void proc_synthesize_names(struct collector *col);
/* Give the collector pid's command line from /proc (nothing when it has
 * exited already: a short-lived process keeps the program's path). */
void proc_read_cmdline(struct collector *col, pid_t pid);

/* What a mapped file's path here is. */
enum proc_file_state {
	PROC_FILE_HERE,		/* the file the process mapped */
	PROC_FILE_FOREIGN,	/* another file, or none (a container's
				 * path, a file replaced since) */
	PROC_FILE_UNREAD,	/* unknown, and root must not read it by
				 * path: the process may have made it lead
				 * to a file it could not read */
};

/*
 * The file pid mapped at [start, end) from path, opened so that nothing
 * the process controls can make it another file: its live mapping
 * (/proc/PID/map_files, by overlap when it was split since), else path
 * resolved inside the process's root (openat2 RESOLVE_IN_ROOT, no magic
 * links) while it runs, else our path; a file opened by path must be
 * the recorded device and inode.  Returns the descriptor (a regular
 * file), or -1 when no such file could be opened (id unknown, replaced,
 * gone); *state says what path here is.
 */
int proc_mapped_file(pid_t pid, uint64_t start, uint64_t end,
		     const char *path, const struct collect_file_id *id,
		     enum proc_file_state *state);

/*
 * An executable mapping of pid, id as the kernel recorded it, given to
 * the collector: for a file not known yet, the mapped file itself
 * opened by proc_mapped_file(); the process's owner noted the first
 * time it maps anything after an exec (its JIT maps are trusted from
 * that user).
 */
void proc_map_file(struct collector *col, uint32_t pid, uint64_t start,
		   uint64_t len, uint64_t pgoff, const char *path,
		   uint64_t time, const struct collect_file_id *id);

/* The threads of pid, in a new array; -PROF_ENOENT when there is no
 * such process. */
int proc_list_tids(pid_t pid, pid_t **tids, size_t *n);
/* Thread tid of pid now: its state letter (/proc/PID/task/TID/stat: R, S,
 * D, ...) and, when it waits in the kernel, the user PC it waits at
 * (its syscall file; 0 when not readable).  0, or -1 when it is gone. */
int proc_thread_wait(pid_t pid, pid_t tid, char *state, uint64_t *pc);

/* What proc_check_target() found of -p PID. */
struct proc_target {
	pid_t tid;		/* a live thread of it */
	char comm[64];		/* its name */
};

/*
 * The checks of -p PID that /proc answers (priv_check_attach() asks the
 * kernel the rest): fails (prof_fail, one sentence) for no process and
 * a zombie; when attach (the tool samples PID's tasks) also for a
 * kernel thread and the profiler itself.  tool names the profiler in
 * messages.  Fills *t when PID exists.
 */
int proc_check_target(pid_t pid, const char *tool, int attach,
		      struct proc_target *t);
/* -PROF_EPERM with a detail saying why the kernel refuses this user
 * PID (t from proc_check_target()): another user's process, or one the
 * kernel denies ptrace access to. */
int proc_refused(pid_t pid, const char *tool, const struct proc_target *t);

#endif
