/* SPDX-License-Identifier: MIT */
/*
 * The profile: what collection produces and reporting consumes, in memory
 * and on disk (umon.out / kmon.out; layout in docs/profile-format.md).
 *
 * - A profile owns all its strings and arrays; profile_free() releases
 *   them.  profile_free(NULL) is a no-op.
 * - Counts are aggregated: one entry per (object, offset, statistic), never
 *   one per sample, so the file grows with the code touched, not with time.
 * - Offsets of file-backed objects are file offsets; kernel and anonymous
 *   objects use absolute addresses (see symbolize.h).
 * - profile_write() is atomic and follows no planted link (outfile.h):
 *   on any failure the previous file is untouched.
 * - profile_read() validates every length, index and offset and the
 *   checksum; a damaged file is -PROF_EFORMAT with a detail, never a crash.
 *   It reads only regular files, and checks the header (magic, version,
 *   declared size against the file's size, section table) before anything
 *   else, so a large file that is not a profile costs 32 bytes of reading;
 *   then the file is read into memory (not mapped: a file truncated
 *   meanwhile is an error, not SIGBUS).
 */
#ifndef COMMON_PROFILE_H
#define COMMON_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Version 2 added call stacks (sections 7-9); version-1 files are read
 * as profiles without stacks.  Version 3 added the time stream (section
 * 15) and the state of a task count; files of versions 1 and 2 are read
 * as profiles without a timeline. */
#define PROF_FILE_VERSION 3

enum prof_obj_kind {	/* same values as enum sym_obj_kind (asserted where
			 * a report converts them: formats/report/sites.c) */
	PROF_OBJ_FILE = 0,
	PROF_OBJ_VDSO = 1,
	PROF_OBJ_ANON = 2,
	PROF_OBJ_KERNEL = 3,
	PROF_OBJ_MODULE = 4,
	/* Code a JIT compiler generated in one process, named by the
	 * runtime's perf map (/tmp/perf-PID.map, its path): offsets are
	 * absolute addresses, names are the profile's jitsyms. */
	PROF_OBJ_JIT = 5,
	/* A Python source file (path: the code's co_filename): its
	 * functions' frames, read from the interpreter while it ran.  An
	 * offset is (function << PROF_PY_LINE_BITS) | line; the profile's
	 * jitsyms name each function over [function << PROF_PY_LINE_BITS,
	 * (function + 1) << PROF_PY_LINE_BITS) ("Class.method"). */
	PROF_OBJ_PYTHON = 6,
};
#define PROF_PY_LINE_BITS 24

/*
 * What a file object was when it was profiled: fstat of the mapped file
 * itself (section 14).  --archive takes a file without a build-id only
 * if the file at its path is still this one, so a profiled user cannot
 * swap in another file (a link to a root-only one) after the run.
 * ino 0: unknown (an older profile, or the file could not be checked).
 */
struct prof_identity {
	uint64_t dev, ino, size, mtime_ns;
	uint64_t flags;		/* PROF_ID_* */
};

/* The file could not be checked while it ran (the process was gone, or
 * its path led to another file) and root collected it: its path may lead
 * anywhere the process chose, so reports never read it by path (ino 0,
 * dev, size, mtime 0). */
#define PROF_ID_UNREAD 0x1

/* The object of off-CPU intervals no sample placed (a switch out whose
 * sample was lost, or a user who may not sample the kernel): one row per
 * thread, not code. */
#define PROF_OBJ_OFFCPU_PATH "[off-cpu]"

struct prof_object {
	char *path;
	uint32_t kind;
	uint32_t build_id_len;
	uint8_t build_id[20];
	uint64_t start, end, pgoff;	/* first executable mapping seen */
	struct prof_identity id;
};

struct prof_stat {
	char *name;		/* statistic measured, e.g. "cpu-clock" */
	char *requested;	/* what the user asked for, e.g. "cycles" */
	uint32_t type;		/* PERF_TYPE_* */
	uint32_t modes;		/* STAT_MODE_* */
	uint32_t flags;		/* PROF_STAT_* */
	uint64_t config;
	uint64_t period;	/* events per sample, 0 with freq */
	uint64_t freq;		/* samples per second, 0 with period */
	uint64_t samples;	/* samples received */
	uint64_t lost;		/* samples the kernel dropped */
	uint64_t value;		/* counter total (all tasks, all CPUs) */
	uint64_t time_enabled, time_running;	/* ns */
};

/* The statistic stands in for the one requested (no PMU: cycles is
 * sampled as cpu-clock). */
#define PROF_STAT_SUBSTITUTE 0x1
/* Exact counts from the sim engine (valgrind) or -pixie: every event
 * counted, samples == weight == events. */
#define PROF_STAT_SIMULATED 0x2
/* Counting mode: value/time_enabled/time_running only, no counts. */
#define PROF_STAT_COUNTING 0x4
/* A ratio the user asked for (mispredict_per_ret): no counts of its own,
 * computed by the report from its inputs. */
#define PROF_STAT_DERIVED 0x8
/* An instruction-sampling (profile-me) statistic: IBS, PEBS or SPE. */
#define PROF_STAT_PROFILEME 0x10
/* Time, in ns, charged per switch (offcpu) or also sampled on CPU
 * (wall): its weights are shown as seconds, exported as nanoseconds; its
 * samples count intervals as well as samples. */
#define PROF_STAT_TIME 0x20

struct prof_count {
	uint32_t obj;		/* index into objects */
	uint32_t stat;		/* index into stats */
	uint64_t offset;
	uint64_t samples;
	uint64_t weight;	/* sum of sample periods */
};

/* Sample modes of the mode histogram. */
enum prof_mode {
	PROF_MODE_USER, PROF_MODE_KERNEL, PROF_MODE_IDLE, PROF_MODE_GUEST,
	PROF_MODE_HV, PROF_NMODES
};

/* The CPU of a task count or mode histogram row that no record said (a
 * perf.data recorded without PERF_SAMPLE_CPU). */
#define PROF_CPU_UNKNOWN UINT32_MAX

struct prof_modes {
	uint32_t cpu;		/* or PROF_CPU_UNKNOWN */
	uint64_t n[PROF_NMODES];
};

/* A kernel symbol carried in the profile (kernel addresses differ per
 * boot with KASLR, so reports do not rely on this machine's kallsyms). */
struct prof_ksym {
	uint64_t start, end;
	char *name;
	char *module;		/* NULL for the kernel proper */
};

/* A name a JIT runtime gave to its code [start, end) in a JIT object,
 * carried in the profile (the perf map is gone when the report is read
 * elsewhere or later).  Only the symbols that name sampled addresses are
 * kept; those of one object never overlap. */
struct prof_jitsym {
	uint32_t obj;		/* index into objects, kind PROF_OBJ_JIT */
	uint64_t start, end;
	char *name;
	/* What a jitdump told of the code (section 16), for -asm and
	 * -lines: its bytes [start, end) as loaded, or NULL; its source
	 * lines, sorted by addr, each in [start, end) and naming one of
	 * files[]. */
	uint8_t *code;
	struct prof_jitline *lines;
	size_t nlines;
	char **files;
	size_t nfiles;
};

/* The code of a JIT symbol from addr on (up to the next line) comes from
 * line of files[file]. */
struct prof_jitline {
	uint64_t addr;
	uint32_t file, line;
};

/*
 * Caps on the JIT code a profile carries: the bytes of one symbol (a
 * larger one keeps its name and lines, not its bytes), the bytes of all,
 * and the lines of one symbol.  Writers keep only the code of sampled
 * symbols, within these; readers refuse a profile over them.
 */
#define PROF_JIT_CODE_MAX ((uint64_t)1 << 20)
#define PROF_JIT_CODE_TOTAL_MAX ((uint64_t)64 << 20)
#define PROF_JIT_LINES_MAX 65536u

/* A file an archive (--archive) carries: an object the profile sampled,
 * or its separate debug file, compressed (zlib). */
enum prof_file_kind {
	PROF_FILE_OBJECT = 0,	/* path: the object's path as recorded */
	PROF_FILE_DEBUG = 1,	/* path: the object's, whose debug file it is */
};

/*
 * Caps on the files a profile carries.  The writer leaves out a file over
 * them (profile_add_file_fd(): -PROF_EINVAL); the reader refuses a
 * profile over them (-PROF_EFORMAT naming the file and the cap) while it
 * decodes, before any reader has unpacked a byte.  A report unpacks the
 * files to disk, so a hostile profile must not be able to declare more
 * than it could plausibly hold:
 * - one file, uncompressed: 1 GiB (the largest debug files seen are a few
 *   hundred MB);
 * - all the files of one profile, uncompressed: 4 GiB;
 * - declared size over compressed size: 200, plus 4 KiB.  zlib reaches
 *   about 1032:1 on runs of zeros (a sparse file); real ELF and debug
 *   files compress 2-10x, and even one mostly padding stays far below
 *   200.  The 4 KiB of slack lets a tiny file of zeros through (its
 *   stream has a fixed size), while a declared size still costs a byte of
 *   profile per 200 bytes written.
 */
#define PROF_FILE_MAX ((uint64_t)1 << 30)
#define PROF_FILES_TOTAL_MAX ((uint64_t)1 << 32)
#define PROF_FILE_RATIO_MAX 200
#define PROF_FILE_RATIO_SLACK 4096

struct prof_file {
	uint32_t kind;		/* enum prof_file_kind */
	char *path;
	uint32_t build_id_len;
	uint8_t build_id[20];	/* the object's */
	uint64_t size;		/* uncompressed */
	uint8_t *zdata;		/* zlib stream */
	uint64_t zlen;
};

/*
 * Call stacks (-g / --call-graph).  A frame is an address in an object in
 * the same terms as prof_count.offset.  The leaf frame is the sampled PC;
 * a caller frame is its return address minus one (an address inside the
 * call instruction), so it symbolizes to the calling line and inline
 * chain; a frame interrupted by a signal keeps its exact PC.  Frames are
 * unique in the profile (one entry per (object, offset)); a stack is a
 * run of frame indices in stack_frames, leaf first, and is unique too.
 */
struct prof_frame {
	uint32_t obj;		/* index into objects */
	uint32_t reserved;	/* 0 */
	uint64_t offset;
};

/* How a stack ends, i.e. why the walk stopped beyond its last frame. */
enum prof_stack_end {
	/* Complete: reached the process's or thread's entry (the unwind
	 * rules say the return address is undefined: _start, clone). */
	PROF_STACK_COMPLETE = 0,
	/* A frame-pointer chain the kernel walked: where it ends says
	 * nothing about completeness; reports judge by the last frame. */
	PROF_STACK_FP = 1,
	/* Truncated: the next read fell outside the copied user stack. */
	PROF_STACK_TRUNC_DUMP = 2,
	/* Truncated: no unwind information (CFI) for the last frame's PC. */
	PROF_STACK_TRUNC_NO_CFI = 3,
	/* Truncated: the next PC is in no known mapping (a bad return
	 * address, or JIT code). */
	PROF_STACK_TRUNC_NO_MAP = 4,
	/* Truncated: the frame limit was reached. */
	PROF_STACK_TRUNC_DEPTH = 5,
	/* Truncated: the unwind rules gave an impossible step (stack
	 * pointer not moving up, unsupported expression). */
	PROF_STACK_TRUNC_BAD = 6,
	/* Kernel frames only: a kernel thread's sample, or the user part
	 * was not asked for (kprofile -g). */
	PROF_STACK_KERNEL = 7,
	/* Truncated: the caller's frame is on another stack than the one
	 * walked (the Go runtime's switches between a goroutine's stack and
	 * its thread's), which the sample holds no way to, or no copy of. */
	PROF_STACK_TRUNC_SWITCH = 8,
	/* Truncated: a 32-bit task's stack (x86-64's compat mode), which
	 * the unwinder walks by frame pointers only: not at all in the
	 * CFI-only mode, the sampled PC alone. */
	PROF_STACK_TRUNC_COMPAT = 9,
	/* Truncated: the sample holds none of the user stack (no copy, or
	 * the kernel copied nothing: the stack pointer in no readable
	 * memory, as in an exec that had replaced the address space), the
	 * sampled PC alone. */
	PROF_STACK_TRUNC_NO_COPY = 10,
	PROF_STACK_NEND
};

struct prof_stack {
	uint32_t first;		/* index into stack_frames of the leaf */
	uint32_t nframes;	/* >= 1 */
	uint32_t end;		/* enum prof_stack_end */
	uint32_t reserved;	/* 0 */
};

struct prof_stack_count {
	uint32_t stack;		/* index into stacks */
	uint32_t stat;		/* index into stats */
	uint64_t samples;
	uint64_t weight;	/* sum of sample periods */
};

/*
 * Tasks (sections 10-11): what reports split rows by with -by comm, pid,
 * tid or cpu.  A task is one (process, thread, command name): a thread
 * that changes its name (exec, prctl(PR_SET_NAME)) becomes a new task.
 * A task count is the share of one count (obj, stat, offset) taken while
 * one task ran on one CPU.  The task counts of a count add up to its
 * samples and weight exactly, or the count has none (a statistic -pixie
 * added); profiles taken before tasks were recorded have no tasks.
 */
struct prof_task {
	uint32_t pid, tid;
	char *comm;		/* the command name then, "" unknown */
};

/*
 * What a thread was doing when a task count was taken: running (a
 * sample), or off CPU (an off-CPU statistic's interval, its weight in
 * nanoseconds): asleep (S, or a sleep the kernel did not say which),
 * asleep uninterruptibly (D, usually waiting for I/O), or runnable but
 * switched out (preempted, waiting for a CPU).
 */
enum prof_state {
	PROF_STATE_RUNNING = 0,
	PROF_STATE_BLOCKED = 1,
	PROF_STATE_IO = 2,
	PROF_STATE_PREEMPTED = 3,
	PROF_NSTATES
};

/* "running", "blocked", "blocked-io", "preempted" (-by state, JSON). */
const char *profile_state_name(uint32_t state);

struct prof_task_count {
	uint32_t task;		/* index into tasks */
	uint32_t state;		/* enum prof_state */
	uint32_t cpu;
	uint32_t obj;		/* the count's: index into objects */
	uint32_t stat;		/* index into stats */
	uint64_t offset;
	uint64_t samples;
	uint64_t weight;	/* sum of sample periods */
};

/*
 * The time stream (section 15): every sample (and every off-CPU
 * interval) of the task counts, in time order, so that a report can cut
 * a window out of the run (--time) or lay it out over time (-timeline,
 * speedscope, firefox).  The events of a task count add up to its
 * samples (one each) and weight exactly, and those with a stack to that
 * stack's counts; a statistic whose counts are exact (the sim engine,
 * -pixie) or that counts (--count) has none.
 */
struct prof_event {
	uint64_t time;		/* ns from the run's start (start_time_ns) */
	uint64_t weight;	/* the sample's period; an interval's length
				 * in ns: [time, time + weight) */
	uint32_t tcount;	/* index into task_counts: what was charged,
				 * by which task, on which CPU, in which
				 * state (not PROF_STATE_RUNNING: an
				 * interval) */
	uint32_t stack;		/* index into stacks + 1; 0: none */
};

/* Whether the profile has a timeline, or why not (profile.timeline). */
enum prof_timeline {
	PROF_TIMELINE_NONE = 0,		/* its writer kept none */
	PROF_TIMELINE_KEPT = 1,		/* events are the run's */
	PROF_TIMELINE_OLD = 2,		/* written before version 3 */
	PROF_TIMELINE_MERGED = 3,	/* profiles of several runs added up */
	PROF_TIMELINE_EXACT = 4,	/* exact counts or counting: no times */
	PROF_TIMELINE_DROPPED = 5,	/* its counts were changed without it
					 * (-exclude-idle) */
	PROF_NTIMELINES
};


/* Call-graph modes (profile.call_graph). */
enum prof_call_graph {
	PROF_CG_NONE = 0, PROF_CG_FP = 1, PROF_CG_DWARF = 2, PROF_CG_AUTO = 3,
};

struct profile {
	char *tool;		/* "uprofile" or "kprofile" */
	char *tool_version;	/* the writer's version (the VERSION file's),
				 * NULL in files written before it was kept */
	char *recorded_by;	/* another tool's recording it was read from
				 * ("perf 6.1.187": a perf.data), NULL: our
				 * own run */
	char **argv;		/* profiled command line, NULL-terminated */
	int argc;
	char *hostname, *sysname, *release, *machine, *cpu_model;
	uint64_t start_time_ns;	/* wall clock at start, Unix epoch */
	uint64_t duration_ns;
	int32_t exit_status;	/* profiled command's status, -1 if none */
	int32_t pid;		/* with -pids: the process, else -1 */
	int32_t cpu;		/* with -each: the CPU, else -1 */
	uint32_t ncpus;
	char *ra_routines;	/* -ra patterns, comma-separated, or NULL */
	uint64_t ra_moved;	/* samples charged to callers by -ra */
	char *start_after;	/* --start-after "A:N", or NULL */
	int64_t start_after_ns;	/* when A's N-th event started the
				 * statistics, from start_time; -1 never */
	uint64_t start_after_latency_ns;	/* signal to enabled */

	struct prof_object *objects;
	size_t nobjects, alloc_objects;
	struct prof_stat *stats;
	size_t nstats, alloc_stats;
	struct prof_count *counts;
	size_t ncounts, alloc_counts;
	struct prof_modes *modes;
	size_t nmodes, alloc_modes;
	struct prof_ksym *ksyms;
	size_t nksyms, alloc_ksyms;
	struct prof_jitsym *jitsyms;	/* sorted by (obj, start) */
	size_t njitsyms, alloc_jitsyms;
	struct prof_file *files;	/* an archive's files, or none */
	size_t nfiles, alloc_files;
	/* One line per file profile_add_file_fd() left out, over the caps
	 * (its -PROF_EINVAL detail), for the writer of the profile to say;
	 * not in the file. */
	char **files_left_out;
	size_t nfiles_left_out, alloc_files_left_out;

	/* Call stacks; all empty without -g.  Each stack's counts sum, per
	 * statistic, to at most that statistic's samples (a sample whose
	 * stack could not be taken has counts but no stack). */
	uint32_t call_graph;		/* enum prof_call_graph */
	uint32_t stack_dump;		/* user stack bytes copied per sample */
	struct prof_frame *frames;
	size_t nframes, alloc_frames;
	uint32_t *stack_frames;
	size_t nstack_frames, alloc_stack_frames;
	struct prof_stack *stacks;
	size_t nstacks, alloc_stacks;
	struct prof_stack_count *stack_counts;
	size_t nstack_counts, alloc_stack_counts;

	/* Samples of statistic 0 that profile_drop_idle() took out (not
	 * written: a report says so). */
	uint64_t idle_dropped;
	int idle_excluded;		/* profile_drop_idle() was applied */

	/* Tasks; empty in profiles taken before they were recorded. */
	struct prof_task *tasks;
	size_t ntasks, alloc_tasks;
	struct prof_task_count *task_counts;
	size_t ntask_counts, alloc_task_counts;

	/* The time stream, in time order (section 15), and whether the
	 * profile has one (enum prof_timeline). */
	uint32_t timeline;
	struct prof_event *events;
	size_t nevents, alloc_events;
	/* The window a report cut (profile_window()): its ranges in ns
	 * from the start, and its total length; nwindow 0: the whole
	 * run.  Not in the file. */
	struct prof_range *window;
	size_t nwindow;
	uint64_t window_ns;
};

struct profile *profile_new(void);
void profile_free(struct profile *p);

/* Append; the profile takes copies of the strings.  Return the index, or
 * a negative PROF_E* code. */
int profile_add_object(struct profile *p, const struct prof_object *o);
int profile_add_stat(struct profile *p, const struct prof_stat *s);
int profile_add_count(struct profile *p, const struct prof_count *c);
int profile_add_ksym(struct profile *p, const struct prof_ksym *k);
/* Append a JIT symbol, its name, code and lines copied; the caller
 * keeps them sorted and apart (the collector does, through
 * profile_jitmap_keep()). */
int profile_add_jitsym(struct profile *p, const struct prof_jitsym *j);
/* Add a file to the archive: the regular file open at fd, read from its
 * start and compressed as it is read (memory: the compressed bytes and a
 * small buffer), for the object at path.  Returns its index;
 * -PROF_EINVAL with a detail naming path when the file is over a cap
 * (PROF_FILE_MAX...: it is left out, the detail added to
 * p->files_left_out, nothing else changed); -PROF_EIO with a
 * detail when it cannot be read; -PROF_ENOMEM. */
/* Note (a copy of) line in p->files_left_out: a file that was meant to
 * be carried and is not; 0 or -PROF_ENOMEM. */
int profile_file_left_out(struct profile *p, const char *line);
int profile_add_file_fd(struct profile *p, uint32_t kind, const char *path,
			const uint8_t *build_id, uint32_t build_id_len,
			int fd);
/* The file's bytes written to fd, decompressed in chunks: never more
 * than f->size bytes.  Returns 0, -PROF_EFORMAT when the stream is
 * damaged (or holds more or fewer bytes than declared), -PROF_EIO with
 * write's error in a detail, or -PROF_ENOMEM. */
int profile_file_write(const struct prof_file *f, int fd);
/* Sort the JIT symbols by (object, start). */
void profile_sort_jitsyms(struct profile *p);
/* Call stacks: the caller keeps frames and stacks unique (the collector
 * interns them); frames[] are indices returned by profile_add_frame(). */
int profile_add_frame(struct profile *p, const struct prof_frame *f);
int profile_add_stack(struct profile *p, const uint32_t *frames,
		      uint32_t nframes, enum prof_stack_end end);
int profile_add_stack_count(struct profile *p,
			    const struct prof_stack_count *c);
/* Sort stack counts by (statistic, stack). */
void profile_sort_stack_counts(struct profile *p);
/* Name of a stack end ("complete", "truncated: no CFI", ...). */
const char *profile_stack_end_name(enum prof_stack_end end);
int profile_set_argv(struct profile *p, int argc, char *const *argv);

/* Tasks: the caller keeps them unique (the collector does). */
int profile_add_task(struct profile *p, uint32_t pid, uint32_t tid,
		     const char *comm);
int profile_add_task_count(struct profile *p,
			   const struct prof_task_count *c);
/* Append an event; the caller keeps them in time order and consistent
 * with the task and stack counts (the collector does). */
int profile_add_event(struct profile *p, const struct prof_event *e);
/* Why a profile has no timeline, a phrase ("it adds up several runs,
 * each with its own clock"); NULL when it has one. */
const char *profile_timeline_missing(const struct profile *p);

/*
 * Time windows (timeline.c).  A range is [from, to) in ns from the run's
 * start; a window is ranges in order, apart.
 */
struct prof_range {
	uint64_t from, to;
};

/*
 * Parse RANGE[,RANGE...] as --time takes it, for a run of run_ns: each
 * RANGE is FROM-TO in seconds ("2.5-4"; a unit may follow a number: ns,
 * us, ms, s) or in percent of the run ("10%-20%"); a unit given at one
 * end only is the other's too ("90-100%", "250-500ms"); numbers are
 * decimal; either end may be left out ("-4", "30%-").  *out (malloc'd)
 * gets the ranges in ns, *n their
 * number.  -PROF_EINVAL with a one-line detail: a malformed range,
 * ranges out of order or overlapping, an empty range, or one starting at
 * or after the run's end (the detail names the run's length).
 */
int profile_time_parse(const char *s, uint64_t run_ns,
		       struct prof_range **out, size_t *n);
/* A window's ranges as the heading shows them ("2.500s-4.000s, ..."),
 * malloc'd, or NULL. */
char *profile_time_format(const struct prof_range *r, size_t n);

/*
 * Keep only what happened in the window r[0..n): the task counts, counts,
 * stack counts and statistics' samples are rebuilt from the events in it
 * (an interval counts for the part inside, its samples where it starts,
 * or the window's start if it started before), entries left empty go,
 * and so do the events outside.  The window is recorded in p->window.
 * Refused with -PROF_EINVAL and a one-line reason
 * (profile_timeline_missing()) when p has no timeline.  0 or
 * -PROF_ENOMEM (p is then unusable).
 */
int profile_window(struct profile *p, const struct prof_range *r, size_t n);
/* The run's length as a window needs it: the duration, or the end of
 * the last event if later. */
uint64_t profile_time_span(const struct profile *p);
/* Whether the task counts are whole: each one's (obj, stat, offset) is a
 * count and those of a count add up to its samples and weight.
 * profile_write() writes the tasks only then: a profile whose counts
 * were changed without its task counts loses them, never its counts. */
int profile_tasks_consistent(const struct profile *p);
/*
 * Take the statistics whose drop[i] is set out of p, with their counts,
 * stack counts, task counts and events; the others keep their order
 * (indices move down).  For a reader that made a statistic for all a
 * recording's event could give (IBS's) and keeps those it gave.  0 or
 * -PROF_ENOMEM (p unchanged).
 */
int profile_drop_stats(struct profile *p, const unsigned char *drop);
/* Fill host, kernel and CPU identification from this machine. */
void profile_identify_host(struct profile *p);

/*
 * Append src's statistics and their counts to dst (-pixie: a simulated
 * run's exact counts join the sampled profile).  Objects are matched as
 * profile_map_objects() does, and added when dst has none; counts stay
 * sorted.  dst's call stacks (frames, stacks, stack counts, call_graph,
 * stack_dump) are left untouched and src's are not copied: the new
 * statistics have no stacks.  Returns 0 or -PROF_ENOMEM (dst may then
 * hold part of src).
 */
int profile_append(struct profile *dst, const struct profile *src);

/* remap[i] = the index in dst of src's object i, added to dst when it has
 * none: objects are one when their kinds match and their build-ids do
 * (both known), else their paths.  0 or -PROF_ENOMEM. */
int profile_map_objects(struct profile *dst, const struct profile *src,
			uint32_t *remap);

/*
 * Add src to dst: the sum of two profiles of the same program (merge.c).
 * Objects are matched by build-id when both have one (a rebuilt binary
 * at the same path stays another object), else by kind and path;
 * statistics by what they measure (name, type, config, modes); frames by
 * (object, offset) and stacks by their frames and end, so both stay
 * unique.  Counts, stack counts, samples, lost samples, counter values,
 * mode histograms and durations are summed; the start time is the
 * earliest; the command line, host and -ra/--start-after settings are
 * dst's; pid, cpu and exit status become -1 when they differ; kernel
 * symbols are united.
 * Refused with -PROF_EINVAL and a one-line reason naming dst_name and
 * src_name (file names, for the message only): different tools, counting
 * and sampling, different sets of statistics, one statistic sampled at
 * another period or frequency, kernel symbols of different boots.  A
 * refusal leaves dst unchanged; -PROF_ENOMEM may leave part of src in
 * it.
 */
int profile_merge(struct profile *dst, const struct profile *src,
		  const char *dst_name, const char *src_name);

/* Sort counts by (object, statistic, offset), the order the file has;
 * profile_count_cmp() is that order, for qsort() and bsearch(). */
int profile_count_cmp(const void *a, const void *b);
void profile_sort_counts(struct profile *p);

/*
 * Take the samples of the idle task (pid 0) out of p's counts, statistics
 * and task counts (idle.c).  *dropped: how many, of statistic 0.  Refused
 * with -PROF_EINVAL and a one-line reason when p has no tasks or has call
 * stacks (not split by task).
 */
int profile_drop_idle(struct profile *p, uint64_t *dropped);

int profile_write(const struct profile *p, const char *path);
int profile_read(const char *path, struct profile **out);
/*
 * A reader of another tool's recording (perf.data, whose first bytes are
 * magic, or a stream on standard input when path is "-"): called with the
 * file open at fd (the caller closes it) to make a profile of it.  The
 * profile layer only asks whether the first bytes are the reader's
 * (claims); the reader (run/import.c, through engine/perfdata.c) does
 * the rest.
 */
struct profile_import {
	/* Whether the first len bytes of a file say it is one. */
	int (*claims)(const uint8_t *head, size_t len);
	int (*read)(void *arg, int fd, const char *path, struct profile **out);
	void *arg;
	/* A directory that is a recording: the file in it that says so
	 * (perf record --threads: "data"), and what to do instead. */
	const char *dir_file, *dir_advice;
};
/* profile_read(), or imp's reader when the file is imp's (imp NULL:
 * profiles only). */
int profile_read_from(const char *path, const struct profile_import *imp,
		      struct profile **out);
/* Decode an in-memory image (what profile_read uses); for tests/fuzzing. */
int profile_decode(const void *buf, size_t len, struct profile **out);

/*
 * A JIT runtime's perf map (/tmp/perf-PID.map, written by node
 * --perf-basic-prof, python -X perf, perf-map-agent): one line per piece
 * of generated code, "START SIZE NAME" (hexadecimal, NAME to the end of
 * the line).  Code moves and memory is reused, so entries may overlap;
 * an address is named by the last line written that covers it.
 */
struct prof_jitmap_entry {
	uint64_t start, end;
	uint32_t line;		/* 1-based line or record: later ones win */
	char *name;
	/* A jitdump's code load (NULL for a perf map's lines): its bytes
	 * (end - start of them), and the debug record written for it
	 * (debug_len bytes, NULL: none) of the code when it was at
	 * debug_base; both point into the bytes the map was read from. */
	const uint8_t *code;
	const uint8_t *debug;
	size_t debug_len;
	uint64_t debug_base;
};

struct prof_jitmap {
	struct prof_jitmap_entry *v;	/* sorted by start */
	size_t n, alloc;
	uint64_t *max_end;	/* max_end[i]: the largest end of v[0..i] */
	size_t bad_lines;	/* lines (records) that could not be used */
	uint32_t last_line;	/* lines (records) read */
	size_t bad_debug;	/* a jitdump's debug records not read */
	int cut;		/* a jitdump ends in a record cut short */
	/* The jitdump's bytes the entries point into, when the map owns
	 * them (freed with it), or NULL. */
	uint8_t *buf;
	/* What the writer adds to its debug entries' addresses: V8 writes
	 * them 0x40 past the code they describe (its ELF header's size:
	 * where perf inject once placed the code). */
	uint64_t debug_skew;
};

/* Parse a perf map's text.  Returns 0 or -PROF_ENOMEM. */
int profile_jitmap_parse(struct prof_jitmap *m, const char *text, size_t len);
void profile_jitmap_free(struct prof_jitmap *m);
/* Building a map another way (jitdump.c): add [start, end) NAME as the
 * next line, then finish (sort) before lookups.  -PROF_ENOMEM or 0. */
int profile_jitmap_add(struct prof_jitmap *m, uint64_t start, uint64_t end,
		       const char *name, size_t nlen);
int profile_jitmap_finish(struct prof_jitmap *m);
/* Move from's entries into a finished map, after its own lines (so
 * they win where both name an address); from's bytes too when into has
 * none, else from's entries lose their code.  -PROF_ENOMEM or 0. */
int profile_jitmap_merge(struct prof_jitmap *into, struct prof_jitmap *from);

/*
 * A jitdump file (jit-PID.dump, perf's binary format for JIT runtimes:
 * node --perf-prof, the JVM's and .NET's agents, wasmtime): its code
 * load records name code, code move records name it again where it
 * moved; a load keeps its code's bytes and the debug record written
 * before it for the same address (entries point into buf, which must
 * outlive m: give it to m->buf).  Unwinding records are skipped.
 * Fills m (finished), and *why when the file is not a jitdump this
 * reader knows (then m is empty): "is not a jitdump", "has a header of a
 * wrong size", ...  Returns 0 or
 * -PROF_ENOMEM.
 */
int profile_jitdump_parse(struct prof_jitmap *m, const unsigned char *buf,
			  size_t len, const char **why);
/* The entry naming addr (the last written that covers it), or NULL. */
const struct prof_jitmap_entry *
profile_jitmap_lookup(const struct prof_jitmap *m, uint64_t addr);
/*
 * Add to p, as JIT symbols of object obj, the entries of m that name the
 * addresses addrs[0..n) (sorted, unique), made not to overlap: where an
 * entry kept for one address overlaps one kept for another, the earlier
 * one ends where the later one starts.  Returns the number of addresses
 * named, or -PROF_ENOMEM.
 */
int profile_jitmap_keep(struct profile *p, uint32_t obj,
			const struct prof_jitmap *m, const uint64_t *addrs,
			size_t n);
/*
 * The source lines of e's debug record (a jitdump's DEBUG_INFO, see
 * jitdebug.c) that fall in j's [start, end), the line in force at start
 * first, into j's lines and files (malloc'd: free them with
 * profile_jitlines_free()).  A record that cannot be read gives no
 * lines.  0 or -PROF_ENOMEM.
 */
int profile_jitdump_lines(const struct prof_jitmap *m,
			  const struct prof_jitmap_entry *e,
			  struct prof_jitsym *j);
void profile_jitlines_free(struct prof_jitsym *j);
/* Whether the debug record rec (len bytes, its prefix included) holds
 * its entries, one way or the other profile_jitdump_lines() reads. */
int profile_jitdebug_fits(const uint8_t *rec, size_t len);

#endif
