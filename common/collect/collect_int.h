/* SPDX-License-Identifier: MIT */
/*
 * The collector's state, shared by its files, each calling only those
 * listed before it: maps.c (objects, processes and their mappings over
 * time, where an address is looked up), stacks.c (call stacks: walking,
 * interning, counting) and collect.c (threads, aggregation, building
 * profiles).
 */
#ifndef COMMON_COLLECT_INT_H
#define COMMON_COLLECT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "collect.h"
#include "common/util/hash.h"

struct collect_stacks;
struct collect_offcpu;

#define T_INF UINT64_MAX
#define NO_PROC UINT32_MAX
#define NO_OBJ UINT32_MAX
/* A parked sample is retried this many rounds before it is given up. */
#define PENDING_ROUNDS 3

struct object {
	char *path;
	uint32_t kind;
	uint8_t build_id[20];
	uint32_t build_id_len;
	uint64_t start, end, pgoff;
	/* Anonymous code is its process's (NO_PROC for the others): a JIT
	 * runtime names it per process.  alias: the JIT object it joins
	 * when the process's perf map is read (NO_OBJ: none); jit: that
	 * JIT object's map. */
	uint32_t pid;
	uint32_t alias;
	struct prof_jitmap *jit;
	/* A file of another mount namespace (a container's), not the file
	 * at path here: fd is the file as its process saw it, read into the
	 * profile when it is built; -1 for every other object. */
	int fd;
	/* The file's device and inode as the kernel recorded the mapping
	 * (rid.ino 0: unknown, a plain MMAP record or the sim engine's),
	 * and what the mapped file itself was (id.ino 0: it could not be
	 * checked: its build-id is then unknown too). */
	struct collect_file_id rid;
	struct prof_identity id;
	/* A file the engine could not check whose path root must not read
	 * (proc.h, PROC_FILE_UNREAD): never read by path. */
	bool unread;
};

struct mapping {
	uint64_t start, end, pgoff;
	uint64_t t_from, t_to;
	uint32_t obj;
};

struct process {
	uint32_t pid;		/* NO_PROC: empty slot */
	struct mapping *maps;
	size_t nmaps, alloc_maps;
	/* The first nindexed maps in order of start (by_start: their
	 * numbers; max_end[k]: the largest end among by_start[0..k]), so
	 * an address is found in O(log n) among many (maps.c). */
	uint32_t *by_start;
	uint64_t *max_end;
	size_t nindexed, alloc_index;
	/* Its own command line (-pids files show it): arguments each
	 * ended by NUL, NULL when unknown; else the program exec'd, the
	 * first file mapped after the exec (exe_obj, NO_OBJ: none). */
	char *cmd;
	size_t cmdlen;
	uint32_t exe_obj;
	bool want_exe;		/* exec'd: the next file mapped is it */
	bool cmd_next_exec;	/* cmd is what its next exec runs */
	/* The jitdump file its JIT runtime mapped (jit-PID.dump), NULL:
	 * none; jitdump_fd: that file kept open for a process of another
	 * mount namespace, else -1 (read by its path). */
	char *jitdump;
	int jitdump_fd;
	/* Its owner while it ran (the JIT maps it may write are trusted
	 * from that user); reset by fork and exec. */
	uint32_t uid;
	bool uid_known;
};

struct agg_entry {
	uint64_t offset;
	uint32_t obj, stat, split;
	uint32_t used;
	uint32_t task, cpu;	/* the task that ran, on that CPU */
	uint32_t state;		/* enum prof_state */
	uint32_t id;		/* in the order added: what events name */
	uint64_t samples, weight;
};

/* One sample or off-CPU interval in time (the profile's time stream):
 * agg: the id of the entry it was added to; stack: the collector's
 * stack + 1, 0 none. */
struct cevent {
	uint64_t time, weight;
	uint32_t agg, stack;
};

#define NO_TASK UINT32_MAX
/* The kernel's TASK_COMM_LEN: names are at most 15 bytes. */
#define COMM_LEN 16

/* A thread and its name now (open addressing by tid). */
struct thread {
	uint32_t tid;		/* NO_PROC: empty slot */
	uint32_t pid;
	uint32_t task;		/* its task with this name, or NO_TASK */
	char comm[COMM_LEN];	/* "" unknown */
	bool recorded;		/* named by a record (COMM, FORK), not
				 * only from /proc */
};

/* What samples are charged to: a thread under one name; first: the
 * time of the earliest sample charged to it. */
struct task {
	uint32_t pid, tid;
	char comm[COMM_LEN];
	uint64_t first;
};

struct parked {
	struct collect_sample s;
	void *copy;		/* the sample's chain, registers, stack */
	uint32_t task;		/* when the sample was taken */
	unsigned rounds;
};

struct collector {
	enum collect_split split;
	size_t nstats;
	uint64_t *samples, *lost;

	struct object *objects;
	size_t nobjects, alloc_objects;
	struct hashmap object_index;	/* by kind, pid and path */
	uint32_t obj_kernel, obj_unknown, obj_guest, obj_hv;

	struct process *procs;	/* open addressing by pid */
	size_t nprocs, cap_procs;

	struct agg_entry *agg;	/* open addressing */
	size_t nagg, cap_agg;

	struct thread *threads;	/* open addressing by tid */
	size_t nthreads, cap_threads;
	struct task *tasks;
	size_t ntasks, alloc_tasks;
	uint32_t task_nobody;	/* samples of tid -1 (not in our pid
				 * namespace), or NO_TASK before any */

	struct parked *parked;
	size_t nparked, alloc_parked;

	struct prof_modes *modes;	/* indexed by cpu */
	size_t nmodes, alloc_modes;
	struct prof_modes modes_unknown;	/* PROF_CPU_UNKNOWN's */

	unsigned *row_modes;		/* per stat: STAT_MODE_* that become rows */
	unsigned char *exact;		/* per stat: samples count events */
	uint32_t *expected;		/* splits that always get a profile */
	size_t nexpected, alloc_expected;
	uint32_t *cpus;			/* CPUs profiled: histogram rows */
	size_t ncpus, alloc_cpus;
	struct collect_range *ranges;	/* -ra: sorted, merged */
	size_t nranges;
	uint64_t moved;

	struct collect_stacks *stacks;	/* -g: call stacks, or NULL */
	collect_find_fn find;		/* other places of files, or NULL */
	/* Python functions met (collector_python_function()), each named
	 * in the profile over its offsets. */
	struct pyfunc *pyfuncs;
	size_t npyfuncs, alloc_pyfuncs;
	struct hashmap pyfunc_index;
	void *find_arg;
	struct collect_offcpu *offcpu;	/* off-CPU statistics, or NULL */

	/* The time stream: kept when the engine gave a time base (the
	 * clock's reading at the run's start). */
	bool keep_time;
	uint64_t time_base;
	struct cevent *events;
	size_t nevents, alloc_events;

	int oom;
};

/* A Python function: (file's object, qualified name, first line). */
struct pyfunc {
	uint32_t obj;
	int firstlineno;
	char *name;
};

/* What one sample (or off-CPU interval) is charged to (agg.c). */
struct charge {
	uint32_t obj;
	uint64_t offset;
	uint32_t stat, split, task, cpu, state;
	uint64_t weight;	/* the period, or the interval's length */
	uint64_t time;		/* when (the engine's clock) */
	uint32_t stack;		/* the collector's stack + 1, 0 none */
};

/* maps.c */
/* The object of (kind, pid, path, build-id, recorded identity), added if
 * new.  foreign: a file of another mount namespace, matched only with
 * objects that hold such a file (fd >= 0), unless the recorded
 * identities say it is the same file; the caller gives a new one its
 * fd.  Out of memory: sets c->oom and returns 0. */
uint32_t collect_add_object(struct collector *c, uint32_t kind, uint32_t pid,
			    bool foreign, const char *path, const uint8_t *bid,
			    size_t bidlen, const struct collect_file_id *rid,
			    uint64_t start, uint64_t end, uint64_t pgoff);
/* The process pid, or NULL when unknown. */
struct process *collect_proc_find(const struct collector *c, uint32_t pid);
/* The process pid, added empty if new; NULL (c->oom set) when out of
 * memory, and NULL for NO_PROC (no pid: the empty slots' mark).  Adding may move the table: pointers from collect_proc_find()
 * are stale after it. */
struct process *collect_proc_get(struct collector *c, uint32_t pid);
/* Forget p's jitdump (its image is gone: exec, or a pid reused). */
void collect_drop_jitdump(struct process *p);
/* The mapping of pid that held ip at time, or NULL. */
const struct mapping *collect_find_mapping(struct collector *c, uint32_t pid,
					   uint64_t ip, uint64_t time);

/* stacks.c */
struct collect_stacks *collect_stacks_new(enum prof_call_graph mode);
void collect_stacks_free(struct collect_stacks *st);
/* Walk and count the stack of a sample whose leaf was charged: the
 * collector's stack + 1, 0 none (out of memory). */
uint32_t collect_stacks_charge(struct collector *c,
			       const struct collect_sample *s, uint32_t split);
/* s made the user-mode sample of its user part: its call chain from the
 * user context on (none when it has none), ip its leaf (the user PC it
 * entered the kernel from).  Every stack's leaf must be its row's
 * address: the exports take stacks off the counts at their leaves. */
void collect_user_part(struct collect_sample *s, uint64_t ip);
/* The two halves of it: the sample's stack walked and interned (its id +
 * 1, 0 none), then counted (weight: its period, or an off-CPU
 * interval's length). */
uint32_t collect_stacks_walk(struct collector *c,
			     const struct collect_sample *s);
void collect_stacks_count(struct collector *c, uint32_t stack,
			  uint32_t stat, uint32_t split, uint64_t weight);
/* The leaf frame of the collector's stack id (collect_stacks_walk()'s
 * id - 1): a Python sample is charged there, its innermost function. */
void collect_stacks_leaf(const struct collector *c, uint32_t id,
			 uint32_t *obj, uint64_t *offset);
/* A copy of what a parked sample points to; *s is redirected to it. */
void *collect_stacks_copy(struct collect_sample *s);
/* Add the stacks of split to p; remap gives profile objects for the
 * collector's (UINT32_MAX: not added yet, add_obj adds it).  *smap
 * (malloc'd): the profile's stack of each collector stack (UINT32_MAX:
 * not in p). */
int collect_stacks_build(struct collector *c, uint32_t split,
			 struct profile *p, uint32_t *remap, uint32_t **smap,
			 int (*add_obj)(struct collector *, struct profile *,
					uint32_t *, uint32_t));

/* offcpu.c */
void collect_offcpu_free(struct collect_offcpu *o);
/* n records of a ring lost, whose statistic is not known. */
void collect_offcpu_lost(struct collector *c, uint64_t n);
/* A wall sample s taken in the kernel, for user-mode rows: 1 and *ip the
 * user PC the thread entered the kernel from (its user registers), else
 * 0 (not wall, no registers: a kernel thread). */
int collect_offcpu_entry(const struct collector *c,
			 const struct collect_sample *s, uint64_t *ip);

/* agg.c */
/* The thread tid, or NULL when unknown. */
struct thread *collect_thread_find(struct collector *c, uint32_t tid);
/* The thread tid of pid, made when new; NULL (c->oom set) out of
 * memory. */
struct thread *collect_thread_get(struct collector *c, uint32_t pid,
				  uint32_t tid);
/* Name t comm: its later samples are another task's. */
void collect_thread_name(struct thread *t, const char *comm);
/* The task a sample of pid/tid is charged to: its thread under the name
 * it has now; NO_TASK out of memory. */
uint32_t collect_task_of(struct collector *c, uint32_t pid, uint32_t tid,
			 uint64_t time);
/* Add k to its entry (made when new), and to the time stream when time
 * is kept. */
void collect_aggregate(struct collector *c, const struct charge *k);

#endif
