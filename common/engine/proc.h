/* SPDX-License-Identifier: MIT */
/*
 * Processes that exist before a run (/proc): the executable mappings the
 * collector needs to place their samples, the threads of -p PID, and
 * whether attaching to PID can give samples at all.
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

/*
 * The file pid mapped at [start, end) from path, opened so that nothing
 * the process controls can make it another file: its live mapping
 * (/proc/PID/map_files, by overlap when it was split since), else path
 * resolved inside the process's root (openat2 RESOLVE_IN_ROOT, no magic
 * links) or, in our root, as it is; a file opened by path must be the
 * recorded device and inode.  Returns the descriptor (a regular file),
 * or -1 when no such file could be opened (id unknown, replaced, gone).
 * *foreign: the process sees another file at path than we do (another
 * mount namespace or root, and path here is not that file): the file
 * must then be read through the descriptor, never by path.
 */
int proc_mapped_file(pid_t pid, uint64_t start, uint64_t end,
		     const char *path, const struct collect_file_id *id,
		     bool *foreign);

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
