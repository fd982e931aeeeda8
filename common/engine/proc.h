/* SPDX-License-Identifier: MIT */
/*
 * Processes that exist before a run (/proc): the executable mappings the
 * collector needs to place their samples, the threads of -p PID, and
 * whether attaching to PID can give samples at all.
 */
#ifndef COMMON_ENGINE_PROC_H
#define COMMON_ENGINE_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct collector;

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

/*
 * Containers: a file pid mapped at [start, end) from path, when path in
 * our mount namespace is not that file (the process lives in another
 * mount namespace, or a chroot, where path names another file or none).
 * Returns a descriptor of the file as the process sees it (its
 * /proc/PID/map_files/START-END entry, else /proc/PID/root/PATH), to be
 * read when the run ends; -1 when path here is the same file (or pid is
 * in our mount namespace, or nothing could be opened).
 */
int proc_foreign_file(pid_t pid, uint64_t start, uint64_t end,
		      const char *path);

/* The threads of pid, in a new array; -PROF_ENOENT when there is no
 * such process. */
int proc_list_tids(pid_t pid, pid_t **tids, size_t *n);

/*
 * Can sampling -p PID give samples?  Fails (prof_fail, one sentence)
 * for no process and a zombie; when attach (the tool samples PID's
 * tasks) also for a kernel thread, the profiler itself and a process
 * the kernel refuses this user.  tool names the profiler in messages;
 * modes are the run's; the kernel is asked only when probe is set
 * (--dry-run opens nothing).
 */
int proc_check_attach(pid_t pid, const char *tool, int attach,
		      unsigned modes, int probe);

#endif
