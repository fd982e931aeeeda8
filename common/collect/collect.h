/* SPDX-License-Identifier: MIT */
/*
 * The collector: where samples are aggregated.
 *
 * An engine feeds it the records it drains, in time order within a drain
 * round: mappings (MMAP2), process events (COMM/FORK/EXIT), samples and
 * lost-sample counts.  The collector keeps one address-space map per
 * process, with each mapping valid over a time interval (so a sample is
 * attributed to the image that was mapped when it was taken, across exec
 * and munmap), and aggregates every sample at once into a hash table keyed
 * by (object, offset, statistic, task, cpu[, pid or cpu of the split]),
 * where a task is a thread under one name (COMM records).  Nothing per
 * sample is kept.  A sample whose process or mapping is not known yet (records of
 * another CPU's buffer not drained yet) is parked and retried after the
 * round; what stays unknown at the end is charged to "[unknown]".
 *
 * Memory is owned by the collector; collector_free(NULL) is a no-op.
 */
#ifndef COMMON_COLLECT_H
#define COMMON_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/profile/profile.h"

enum collect_split {
	COLLECT_SPLIT_NONE,	/* one profile */
	COLLECT_SPLIT_PID,	/* one profile per process (-pids) */
	COLLECT_SPLIT_CPU,	/* one profile per CPU (-each) */
};

/* What the engine knows about one sample. */
struct collect_sample {
	uint32_t stat;		/* index of the statistic */
	uint32_t pid, tid, cpu;
	uint64_t ip;
	uint64_t period;
	uint64_t time;
	unsigned cpumode;	/* PERF_RECORD_MISC_CPUMODE_* */
	/* The call chain the kernel walked (PERF_SAMPLE_CALLCHAIN, 8-byte
	 * aligned, context markers included), or NULL: kernel frames, and
	 * with --call-graph=fp the user frames too. */
	const uint64_t *chain;
	uint64_t nchain;
	/* --call-graph=dwarf|auto: the user registers at the sample (in
	 * perf's order, the bits of uregs_mask) and the copy of the user
	 * stack from its stack pointer up; NULL when the sample has none
	 * (a kernel thread). */
	const uint64_t *uregs;
	uint64_t uregs_mask;
	int compat;		/* uregs are a 32-bit task's (perf's
				 * PERF_SAMPLE_REGS_ABI_32) */
	const uint8_t *ustack;
	uint64_t ustack_len;
	/* Its thread's Python frames (npy 0: none, not Python), and where
	 * the interpreter's eval loop is ([py_eval_lo, py_eval_hi)): in
	 * its call stack each native frame there gives way to the Python
	 * frames it ran, and the interpreter's own frames between them
	 * and above the innermost go (a C extension's stay). */
	const struct collect_pyframe *py;
	uint32_t npy;
	uint64_t py_eval_lo, py_eval_hi;
};

struct collector;
struct unw_object;

/*
 * A Python frame of a sample (the engine reads them from the interpreter,
 * innermost first): the function's frame as collector_python_function()
 * gave it (obj, offset); entry: the first frame of one C call of the
 * interpreter's eval loop (what one native eval frame runs ends there);
 * obj NO_PY_FRAME: only that mark (a frame not started yet).
 */
struct collect_pyframe {
	uint32_t obj;
	uint64_t offset;
	int entry;
};
#define NO_PY_FRAME UINT32_MAX

struct collector *collector_new(enum collect_split split, size_t nstats);
void collector_free(struct collector *c);

/*
 * Modes whose samples become profile rows (STAT_MODE_*); samples of other
 * modes only count in the mode histogram.  Default: all.
 */
void collector_set_modes(struct collector *c, uint32_t stat, unsigned modes);

/*
 * Statistic stat counts every event (the sim engine): a sample of period
 * N stands for N events, so it adds N to samples as well as to weight.
 */
void collector_set_exact(struct collector *c, uint32_t stat);

/*
 * Keep the time stream: every sample's time (ns of the engine's clock,
 * time: its reading at the run's start), task, CPU and stack, in the
 * profiles' events (section 15), so that reports can cut windows out of
 * the run and lay it out in time.  Without it (the sim engine) there is
 * none.
 */
void collector_set_time_base(struct collector *c, uint64_t time);

/* A CPU being profiled: the mode histogram has a row for it even if it
 * is never sampled (an idle, tickless CPU). */
int collector_add_cpu(struct collector *c, uint32_t cpu);

/* Make sure a profile exists for this pid/cpu even if it gets no sample
 * (-each writes one file per CPU). */
int collector_expect_split(struct collector *c, uint32_t split);

/*
 * Charge samples that land in [start, end) ranges (kernel utility routines)
 * to the first caller outside every range, using the sample's kernel call
 * chain (-ra).  The ranges are copied.
 */
struct collect_range {
	uint64_t start, end;
};
int collector_set_caller_ranges(struct collector *c,
				const struct collect_range *r, size_t n);
/* Samples moved to a caller so far. */
uint64_t collector_moved(const struct collector *c);

/*
 * Collect call stacks (-g): mode PROF_CG_FP takes them from the samples'
 * call chains, PROF_CG_DWARF unwinds the user stack copies with the CFI
 * of each object, PROF_CG_AUTO too, through frame pointers where an
 * object has no CFI.  Each distinct stack is kept once with a count per
 * statistic; collector_build() puts them in the profiles.
 */
int collector_set_call_graph(struct collector *c, enum prof_call_graph mode);

/*
 * Where else an object's file may be when its path holds another build-id
 * or nothing (a recording read later, or elsewhere: --symfs, perf's
 * build-id cache): find(arg, path, build_id, len, i) gives the i-th other
 * path to try (malloc'd), NULL past the last.  Used for unwinding: a file
 * found is taken only if its build-id is the object's.
 */
typedef char *(*collect_find_fn)(void *arg, const char *path,
				 const uint8_t *build_id, size_t len,
				 unsigned i);
void collector_set_find(struct collector *c, collect_find_fn find, void *arg);

/* How the frames of the i-th object were unwound, for -v: 0 and its path,
 * source (".eh_frame", ".debug_frame", "frame pointers", "no CFI..."),
 * unwind steps taken in it and rows of its CFI read (each read once);
 * 1 when i is past the last object; -1 when object i was never unwound
 * through. */
int collector_unwind_info(const struct collector *c, size_t i,
			  const char **path, const char **source,
			  uint64_t *steps, uint64_t *rows);

/* Stacks so far, by how they ended (enum prof_stack_end). */
uint64_t collector_stack_ends(const struct collector *c,
			      enum prof_stack_end end);

void collector_mmap(struct collector *c, uint32_t pid, uint64_t start,
		    uint64_t len, uint64_t pgoff, const char *path,
		    const uint8_t *build_id, size_t build_id_len,
		    uint64_t time);
/* A thread's name (exec: it also replaced the address space); also for
 * the threads that exist before collection, from /proc (time 0).  Samples
 * are split by (process, thread, name) for reports' -by. */
/* A file mapping as the kernel recorded it: device and inode (ino 0:
 * unknown). */
struct collect_file_id {
	uint32_t maj, min;
	uint64_t ino;
};

/*
 * A mapping of a file that the engine could check (PERF_RECORD_MMAP2,
 * /proc/PID/maps): rid is its recorded identity; fd (taken: closed by
 * the collector; -1: none) the mapped file itself, opened so that it is
 * that file (proc_mapped_file()): its build-id and identity are read
 * from it, never from the path.  foreign: path here is not the file the
 * process saw (a container's): fd's bytes go into the profile (its
 * report reads them, like an archive's).  unread (fd -1): no file could
 * be checked and the path must not be read: a report names its code by
 * address (PROF_ID_UNREAD).  Neither, with fd -1: the path is read as
 * it is, build-id included, when the run ends (a user's own run).
 */
void collector_mmap_file(struct collector *c, uint32_t pid, uint64_t start,
			 uint64_t len, uint64_t pgoff, const char *path,
			 uint64_t time, const struct collect_file_id *rid,
			 int fd, bool foreign, bool unread);
/* Whether a mapping of path with identity rid is of an object known
 * already (checked, nothing more to open for it). */
bool collector_file_known(const struct collector *c, const char *path,
			  const struct collect_file_id *rid);
/* Process pid's owner, noted while it runs (set once per exec); the
 * owner noted, or -1 when none was. */
bool collector_owner_wanted(const struct collector *c, uint32_t pid);
void collector_set_owner(struct collector *c, uint32_t pid, uint32_t uid);
int collector_owner(const struct collector *c, uint32_t pid, uint32_t *uid);
void collector_comm(struct collector *c, uint32_t pid, uint32_t tid,
		    const char *comm, int exec, uint64_t time);
/* A thread's name read from /proc as collection starts: kept unless a
 * record (COMM, FORK) named the thread already. */
void collector_comm_scanned(struct collector *c, uint32_t pid, uint32_t tid,
			    const char *comm);
/* The command line of process pid (its arguments, each ended by NUL, len
 * bytes in all), read by the engine when it exec'd or from /proc for a
 * process that existed before; or, with collector_next_exec(), the
 * arguments its next exec will have (the program the run starts, whose
 * exec may end before /proc is read).  -pids files show each its own. */
void collector_next_exec(struct collector *c, uint32_t pid, const char *buf,
			 size_t len);
void collector_cmdline(struct collector *c, uint32_t pid, const char *buf,
		       size_t len);
/* A new process (pid != ppid) or thread, tid, made by ptid: it has its
 * maker's name. */
void collector_fork(struct collector *c, uint32_t pid, uint32_t ppid,
		    uint32_t tid, uint32_t ptid, uint64_t time);
void collector_exit(struct collector *c, uint32_t pid, uint32_t tid,
		    uint64_t time);
void collector_sample(struct collector *c, const struct collect_sample *s);
void collector_lost(struct collector *c, uint32_t stat, uint64_t n);
/*
 * Off-CPU time (offcpu.c).  Statistic stat is the time threads spend
 * switched out (COLLECT_OFFCPU), or wall-clock time: its own on-CPU
 * samples plus that (COLLECT_WALL); both are charged per interval, in ns.
 */
enum collect_offcpu_kind { COLLECT_OFFCPU = 1, COLLECT_WALL = 2 };
void collector_set_offcpu(struct collector *c, uint32_t stat,
			  enum collect_offcpu_kind kind);
/* The scheduler's kernel routines: a switch out is charged to the first
 * kernel frame outside them (the ranges are copied).  0 or -PROF_ENOMEM. */
int collector_set_wait_ranges(struct collector *c,
			      const struct collect_range *r, size_t n);
/* Thread tid switched out (preempt: while runnable) or in. */
void collector_switch(struct collector *c, uint32_t pid, uint32_t tid,
		      uint32_t cpu, uint64_t time, bool out, bool preempt);
/* The sample taken as a thread switched out (its kernel chain, user
 * registers and stack copy); letter: the state it sleeps in, as
 * sched_switch's prev_state prints it ('S', 'D', 'R'), 0 unknown. */
void collector_switch_sample(struct collector *c,
			     const struct collect_sample *s, char letter);
/* A thread found off CPU as collection started (an attached process):
 * since time, in state letter, waiting at user_pc (0: unknown). */
void collector_switch_asleep(struct collector *c, uint32_t pid, uint32_t tid,
			     uint64_t time, char letter, uint64_t user_pc);
/* Thread tid exited: a switch out after it opens nothing. */
void collector_switch_exit(struct collector *c, uint32_t pid, uint32_t tid,
			   uint64_t time);
/* Collection ended at time: threads still off CPU are charged to it. */
void collector_switch_end(struct collector *c, uint64_t time);

/*
 * The frame of a Python function, for collect_pyframe: its object is its
 * file (PROF_OBJ_PYTHON, made when new), its offset (function <<
 * PROF_PY_LINE_BITS) | line; the profile names the function (qualname,
 * which starts at firstlineno in file).  0 or -PROF_ENOMEM.
 */
int collector_python_function(struct collector *c, const char *file,
			      const char *qualname, int firstlineno,
			      uint32_t *obj, uint64_t *function);

/* Called by the engine after each drain round. */
void collector_round_end(struct collector *c);

/* Totals so far (for the summary line). */
uint64_t collector_samples(const struct collector *c, uint32_t stat);
uint64_t collector_lost_total(const struct collector *c, uint32_t stat);

/*
 * JIT code.  The processes that mapped anonymous executable memory, each
 * once, in *pids (malloc'd, the caller frees it): their runtimes may have
 * written a perf map.  Returns their number or -PROF_ENOMEM.
 */
int collector_anon_pids(const struct collector *c, uint32_t **pids);
/*
 * The jitdump file pid's runtime mapped (jit-PID.dump, perf's marker
 * mapping), NULL if none; *fd: that file open, for a process of another
 * mount namespace (-1: open it by its path).  Both stay the collector's.
 */
const char *collector_jitdump(const struct collector *c, uint32_t pid, int *fd);
/*
 * Name pid's anonymous code after map, read from path: its samples and
 * frames then belong to one JIT object (path, PROF_OBJ_JIT) whose
 * symbols are the map's entries that name them.  The collector takes the
 * map (and clears *map).  Returns 0 or -PROF_ENOMEM.
 */
int collector_set_jit_map(struct collector *c, uint32_t pid, const char *path,
			  struct prof_jitmap *map);

/*
 * Build the aggregated profiles: one with COLLECT_SPLIT_NONE, else one per
 * pid/cpu seen (sorted).  Statistics (with everything but samples and
 * lost, which the collector fills) come from the caller in template, which
 * also provides the metadata copied into each.  Returns the number of
 * profiles in *out (an array the caller frees with its profiles), or a
 * negative PROF_E* code.
 */
int collector_build(struct collector *c, const struct profile *template,
		    struct profile ***out);

#endif
