/* SPDX-License-Identifier: MIT */
/*
 * The report model: rows (procedure | source line | basic block |
 * instruction | stride bucket) x statistics, built from a profile and a
 * symbolizer.  All figures a report shows are computed here
 * (report_build), the notes of the heading too; the writers in formats/
 * (formats/writers.h) only lay them out, except the mode histogram,
 * which text.c sums from the profile's per-CPU mode counts as it prints
 * them.
 * Percentages are of the statistic's total in the whole profile, so
 * -only/-exclude never inflate them.
 *
 * What a row is named: the procedures view folds inlined code into the
 * out-of-line procedure it was inlined into (as perf and pprof do), unless
 * -inline (report_options.inline_split) splits it into rows "f [inlined
 * into g]".  A line row is named after the function whose source the line
 * is in, marked when that was inlined.  Blocks and instructions belong to
 * the out-of-line procedure.
 *
 * Derived figures, computed here and never stored:
 * - ratios (the profile's derived statistics): X_per_ret = 100 * X /
 *   retired and cycles_per_ret = cycles / retired, from the summed
 *   weights (events) of the row; marked low when the row has fewer than
 *   REPORT_RATIO_MIN_SAMPLES samples of either input (exact, simulated
 *   inputs are never low);
 * - freq: the execution count of each instruction estimated by averaging
 *   the retired statistic over its basic block (every instruction of a
 *   block runs equally often); a block row's freq is the block's,
 *   any other row's the sum over its instructions.  With exact counts (sim engine, -pixie) the block mean
 *   equals each instruction's own count;
 * - -average: a statistic's weight divided by the row's executions (the
 *   exact counts when the profile has them, else freq).
 *
 * A report owns its rows and strings (report_free); it points into the
 * profile it was built from, which must outlive it.
 */
#ifndef FORMATS_REPORT_H
#define FORMATS_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/profile/profile.h"

struct symbolizer;

enum report_view {
	REPORT_PROCEDURES,	/* per procedure, hottest first */
	REPORT_LINES,		/* per source line, procedure/line order */
	REPORT_HEAVY,		/* per source line, hottest first */
	REPORT_BLOCKS,		/* per basic block, hottest first */
	REPORT_ASM,		/* per instruction (or stride bucket),
				 * procedures hottest first, instructions in
				 * address order */
	REPORT_BUCKETS,		/* per stride bucket, hottest first */
};

/* The call-stack views (-callers, -callees, -tree): shown instead of the
 * rows, from the profile's stacks (stacks.c). */
enum report_stack_view {
	REPORT_STACKS_NONE,
	REPORT_CALLERS,		/* who calls the procedures named focus */
	REPORT_CALLEES,		/* what they call */
	REPORT_TREE,		/* top-down call tree from the roots */
};

/* -tree's default threshold: nodes below this percent are pruned. */
#define REPORT_TREE_MIN_PERCENT 0.5

/* Fewer samples than this in a ratio's input makes the ratio "low". */
#define REPORT_RATIO_MIN_SAMPLES 10

/*
 * -by KEYS (report_options.by, bits): each row is split into one row per
 * value of the keys, and the report gets the totals per value.  The
 * task keys need the profile's tasks (sections 10-11).
 */
#define REPORT_BY_COMM		0x1	/* the command name */
#define REPORT_BY_PID		0x2
#define REPORT_BY_TID		0x4
#define REPORT_BY_CPU		0x8
#define REPORT_BY_OBJECT	0x10
#define REPORT_BY_STATE		0x20	/* running, blocked, blocked-io,
					 * preempted (off-CPU statistics) */
#define REPORT_BY_TASK		(REPORT_BY_COMM | REPORT_BY_PID | \
				 REPORT_BY_TID | REPORT_BY_CPU | \
				 REPORT_BY_STATE)

/* The values of the -by keys a row or a total has.  A key not asked for
 * is NULL or -1; so is every key of what the profile has no task for
 * (the counts of a statistic -pixie added). */
struct report_by {
	const char *comm;		/* "" when the name was not known */
	long pid, tid, cpu;
	const char *object;		/* full path */
	const char *state;		/* profile_state_name() */
};

/* -by: the whole profile's figures for one value of the keys (-only,
 * -exclude and -quit choose rows, not these). */
struct report_by_total {
	struct report_by by;
	uint64_t *samples, *weight;	/* per statistic */
	double *percent;		/* per statistic, of its total */
};

struct report_options {
	enum report_view view;
	size_t quit_rows;		/* 0: all rows */
	double quit_percent;		/* 0: no threshold */
	const char *const *only;	/* procedure patterns (fnmatch) */
	size_t nonly;
	const char *const *exclude;
	size_t nexclude;
	int numbers;			/* show addresses */
	const char *file;		/* profile file name, for the heading */
	long stride;			/* -stride: instructions per bucket (a
					 * power of two), 0: one bucket per
					 * procedure, -1: none */
	int average;			/* -average: per execution */
	enum report_stack_view stack_view;
	const char *focus;		/* -callers/-callees NAME (a glob) */
	int folded;			/* the folded lines are wanted (with
					 * samples) */
	const char *const *ra;		/* report-time -ra: procedure globs
					 * whose samples go to their first
					 * caller outside them, from the
					 * stacks; NULL: none */
	size_t nra;
	int no_stacks;			/* leave the stacks alone (the summary
					 * after a run shows nothing of them) */
	int samples;			/* build the samples model (exports) */
	int inline_split;		/* -inline: the procedures view gives
					 * inlined code rows of its own;
					 * default: it is part of the
					 * out-of-line procedure it is in */
	unsigned by;			/* -by: REPORT_BY_* bits, 0: none;
					 * with timeline, the key of its rows
					 * (one of comm, pid, tid, cpu) and
					 * the rows are not split */
	int timeline;			/* -timeline: shown instead of the
					 * rows (report_timeline) */
	size_t intervals;		/* -timeline's intervals; 0: the
					 * default, REPORT_TIMELINE_INTERVALS */
	int ascii;			/* text: no characters beyond ASCII
					 * (the locale is not UTF-8) */
};

enum report_row_kind {
	ROW_PROCEDURE,		/* procedures view, or a procedure heading
				 * in the asm view */
	ROW_LINE,
	ROW_BLOCK,		/* [address, end) is one basic block */
	ROW_INSN,		/* one instruction */
	ROW_BUCKET,		/* [address, end): -stride instructions */
};

/* A derived statistic: scale * weight[num] / weight[den]. */
struct report_ratio {
	const char *name;		/* "mispredict_per_ret" */
	size_t num, den;		/* statistic indices */
	double scale;			/* 100, or 1 for cycles_per_ret */
	double total;			/* over the whole profile */
	int total_low;
};

struct report_row {
	const char *procedure;		/* innermost function */
	const char *inlined_into;	/* enclosing function, or NULL */
	const char *object;		/* full path of the object */
	const char *module;		/* kernel module, or NULL */
	const char *file;		/* source file, or NULL */
	unsigned line;			/* 0 when unknown */
	enum report_row_kind kind;	/* (next to line: no padding) */
	uint64_t address;		/* hottest address (ELF vaddr for files) */
	uint64_t start;			/* procedures view, instructions and
					 * their headings: the entry (object
					 * offset) of the out-of-line
					 * procedure, which tells two of one
					 * name apart; 0 for "[unknown]" */
	uint64_t *samples;		/* per statistic */
	uint64_t *weight;		/* per statistic: sum of periods */
	double *percent;		/* per statistic */
	double cum_percent;		/* of the first statistic */
	uint64_t end;			/* blocks, buckets: end address */
	unsigned last_line;		/* blocks: last source line, or 0 */
	const char *text;		/* instructions: disassembly */
	const char *source;		/* instructions: the source text of the
					 * line, on the first instruction of a
					 * run of the same line; else NULL */
	int line_start;			/* instructions: the first of a run of
					 * the same file and line (shown with
					 * its location even when source is
					 * NULL: the file is missing) */
	int block_start;		/* instructions: starts a basic block */
	unsigned block;			/* instructions, blocks: block number in
					 * the procedure */
	double freq;			/* estimated executions, NaN if none:
					 * of the instruction, of the block
					 * (blocks view), or the sum over the
					 * row's instructions (other rows) */
	double execs;			/* executions -average divides by: exact
					 * counts when the profile has them,
					 * else freq; NaN if none */
	double *ratio;			/* per report ratio, NaN if 0/0 */
	unsigned char *ratio_low;	/* per ratio: too few samples */
	double *average;		/* per statistic, with -average: weight
					 * per execution, NaN if unknown */
	double total_percent;		/* procedures view with stacks: the
					 * stack statistic's weight in stacks
					 * that contain the procedure (once,
					 * however deep the recursion), in
					 * percent of its total; NaN without
					 * (and in rows split by task) */
	struct report_by by;		/* -by: this row's share of one
					 * value of the keys; freq, executions
					 * and averages are the whole row's
					 * only, NaN in a row split by task */
};

/*
 * What the heading says besides the figures: one list of notes, computed
 * with the report (notes.c), in the order the text report gives them;
 * every writer renders the kinds it shows from it, so none recounts.
 * Where a field is not named for a kind it is NULL or 0.
 */
enum report_note_kind {
	/* Of the statistics (before the run's line). */
	REPORT_NOTE_NO_FREQ,		/* freq asked for, no retired
					 * statistic to estimate it */
	REPORT_NOTE_NO_RATIO,		/* subject: a derived statistic whose
					 * inputs were not measured */
	REPORT_NOTE_NO_AVERAGE,		/* -average with nothing to divide by */
	REPORT_NOTE_UNDECODED_KERNEL,	/* count: kernel procedures without
					 * code (a code view) */
	REPORT_NOTE_UNDECODED,		/* count: procedures whose code could
					 * not be decoded (freq shown) */
	/* Of the objects and files (after the call stacks' line). */
	REPORT_NOTE_STALE,		/* subject: an object rebuilt since the
					 * profile (build-id differs); detail:
					 * the file found (its path, or a copy
					 * under --symfs) */
	REPORT_NOTE_NO_SYMBOLS,		/* subject: a sampled object with
					 * neither symbols nor debug info */
	REPORT_NOTE_EXPORTED_ONLY,	/* subject: a sampled object with
					 * .dynsym only, sampled outside its
					 * exports */
	REPORT_NOTE_UNREADABLE,		/* subject: a sampled object that
					 * could not be read; detail: why ("No
					 * such file or directory", "not a
					 * valid ELF object"), NULL: out of
					 * memory */
	REPORT_NOTE_SKIPPED,		/* subject: an object, debug file or
					 * source file not read because it is
					 * not a regular file (a FIFO would
					 * block the report forever); detail:
					 * "fifo", "directory", ...; repeats: an
					 * UNREADABLE note names it too */
	REPORT_NOTE_MISSING_SOURCE,	/* subject: a source file of -asm's
					 * lines that cannot be opened */
	REPORT_NOTE_SOURCE_NOT_READ,	/* subject: an object whose source
					 * files are not read; detail: why
					 * (sym_object_info.source_why) */
	REPORT_NOTE_BAD_DWARF,		/* subject: a sampled object whose
					 * DWARF is malformed, not used */
	REPORT_NOTE_UNMATCHED,		/* subject: "-only 'PAT'": a pattern
					 * that matches no sampled procedure */
	REPORT_NOTE_ANONYMOUS,		/* percent: of the first statistic's
					 * weight, in anonymous code nothing
					 * names (JIT code without a perf map);
					 * 1% or more */
	REPORT_NOTE_UNRESOLVED,		/* count: objects without a path that
					 * could not be read */
	/* Of the tasks. */
	REPORT_NOTE_IDLE_EXCLUDED,	/* count: the idle task's samples
					 * -exclude-idle left out */
	REPORT_NOTE_IDLE,		/* percent: of the samples, the idle
					 * task's (10% or more) */
	REPORT_NOTE_IRQ_SKID,		/* subject: a kernel procedure among
					 * the first rows that re-enables
					 * interrupts (where skid lands) */
};

struct report_note {
	enum report_note_kind kind;
	const char *subject;		/* a path, statistic, pattern or
					 * procedure */
	const char *detail;
	uint64_t count;
	double percent;
	int repeats;
};

/*
 * A thread's time (threads.c), with a time statistic: ns[state] from its
 * task counts (running: wall's, or a clock statistic's of the same run,
 * when report.threads_running).
 */
struct report_thread {
	uint32_t pid, tid;
	const char *comm;		/* its last name */
	uint64_t ns[PROF_NSTATES];
};

struct report {
	const struct profile *prof;
	struct report_options opt;
	size_t nstats;
	uint64_t *total_samples, *total_weight;	/* per statistic */
	/*
	 * Per statistic: whether it ran only part of the time it was
	 * enabled (multiplexed), and 100 * running / enabled (100 when it
	 * never was).  Only counting events and kprofile's per-CPU events
	 * measure this: a per-CPU task event's enabled time also runs
	 * while the task is on another CPU.
	 */
	unsigned char *multiplexed;
	double *running_percent;
	struct report_row *rows;
	size_t nrows;
	size_t nrows_all;		/* before -quit/-only/-exclude */
	size_t unresolved_objects;	/* objects that could not be read */
	uint64_t anon_weight;		/* the first statistic's weight in
					 * anonymous code nothing names (JIT
					 * code without a perf map) */
	struct report_note *notes;	/* in the text report's order */
	size_t nnotes;
	struct report_ratio *ratios;	/* the profile's derived statistics */
	size_t nratios;
	int exact_execs;		/* execution counts are exact */
	long freq_stat;			/* retired statistic freq is averaged
					 * from, or -1: no freq */
	double total_freq;
	size_t undecoded;		/* procedures whose code could not be
					 * read: no blocks, freq is their own
					 * samples */
	size_t undecoded_kernel;	/* of them, the kernel's (its code is
					 * read from the vmlinux its lines
					 * come from: -k's, else found by
					 * build-id) */
	struct report_stacks *stacks;	/* NULL: the profile has no stacks */
	int ra_from_stacks;		/* prof's -ra figures are this
					 * report's, from the stacks */
	size_t ra_patterns;		/* how many globs prof's ra_routines
					 * lists (0: no -ra) */
	int freq_shown;			/* freq is one of the figures shown: a
					 * code view, or freq asked for */
	struct report_samples *samples;	/* with opt.samples, else NULL */
	struct report_by_total *by_totals;	/* -by: hottest first */
	size_t nby_totals;
	/* --time: the window shown ("2.500s-4.000s, ..."; NULL: the
	 * whole run) and its length within the run. */
	const char *window;
	uint64_t window_ns;
	/* Per thread, most time first, with a time statistic (offcpu,
	 * wall): of threads_stat; running known when threads_running. */
	struct report_thread *threads;
	size_t nthreads;
	size_t threads_stat;
	int threads_running;
	struct report_timeline *timeline;	/* -timeline, else NULL */
	void *priv;
};

/*
 * -timeline (timeline.c): the run, or --time's window (from the start of
 * its first range to the end of its last; gaps between ranges are empty
 * intervals), cut into intervals of equal length, and laid out per
 * thread (or process, command name or CPU: -by) and interval.  Figures
 * are of one statistic, the rows' sort statistic (the first with counts
 * of its own).  A sample counts in the interval its time falls in; an
 * off-CPU interval (a task count whose state is not running) counts in
 * each interval by the part of it that overlaps, its sample in the first.
 * A procedure is a row of the procedures view: every event's procedure
 * is its task count's, found once per task count.
 *
 * With -only/-exclude (a selection), each cell's figure is the share of
 * the procedures they keep in the cell's weight, and each interval's is
 * their share of the interval's; without, each cell is its weight
 * against the busiest cell's.  Either way a cell has a level: 0 (no
 * weight, or none selected) to REPORT_TIMELINE_LEVELS.
 */
#define REPORT_TIMELINE_INTERVALS 60	/* when nothing else says */
#define REPORT_TIMELINE_MAX 1000	/* -timeline N's largest N */
#define REPORT_TIMELINE_LEVELS 8

struct report_tl_interval {
	uint64_t start, end;		/* [start, end), ns from the run's start */
	uint64_t samples, weight;	/* of every row */
	size_t hottest;			/* the procedure with the most weight
					 * (index into procs); SIZE_MAX: no
					 * samples */
	uint64_t hottest_weight;
	double hottest_percent;		/* of the interval's weight */
	uint64_t sel_samples, sel_weight;	/* the selection's */
	double sel_percent;		/* of the interval's weight; NaN when
					 * it has none or there is no
					 * selection */
	unsigned char sel_level;	/* 0..LEVELS: sel_percent's */
};

struct report_tl_row {
	struct report_by by;		/* the key's value: comm and tid (by
					 * thread), comm and pid (process),
					 * comm, or cpu; the others NULL, -1 */
	uint64_t first;			/* ns: its first event's time */
	uint64_t samples, weight;	/* over all intervals */
	uint64_t *samples_at, *weight_at;	/* per interval */
	uint64_t *sel_weight_at;	/* per interval, with a selection;
					 * else NULL */
	double *sel_percent_at;		/* per interval, with a selection: of
					 * the cell's weight, NaN: no weight;
					 * else NULL */
	unsigned char *level;		/* per interval, 0..LEVELS */
};

/* A procedure that is the hottest of some interval. */
struct report_tl_proc {
	const char *procedure;		/* as the procedures view names it */
	const char *inlined_into;	/* -inline, else NULL */
	const char *object;		/* full path */
};

/* Consecutive intervals with the same hottest procedure. */
struct report_tl_phase {
	size_t first, last;		/* intervals, last included */
	uint64_t start, end;		/* ns: first's start, last's end */
	size_t proc;			/* index into procs; SIZE_MAX: no
					 * samples */
	uint64_t weight;		/* of the phase's intervals */
	uint64_t proc_weight;		/* the procedure's there */
	double percent;			/* proc_weight of weight */
};

struct report_timeline {
	size_t stat;			/* the statistic shown */
	unsigned by;			/* REPORT_BY_TID (default), _PID,
					 * _COMM or _CPU */
	int selection;			/* -only/-exclude: cells are shares */
	uint64_t start, end;		/* ns from the run's start */
	uint64_t samples, weight;	/* of the statistic in [start, end) */
	uint64_t max_weight;		/* the busiest cell's */
	struct report_tl_interval *intervals;
	size_t nintervals;
	struct report_tl_row *rows;	/* in order of first activity */
	size_t nrows;
	struct report_tl_proc *procs;	/* in order of first hottest */
	size_t nprocs;
	struct report_tl_phase *phases;
	size_t nphases;
};

/*
 * What the call-stack views show (stacks.c).  Frames are symbolized with
 * the rows' symbolizer; a frame's DWARF inline chain becomes several
 * frames, the inlined ones marked.  A truncated stack gets a synthetic
 * outermost frame "[truncated: REASON in OBJECT]".  Figures are of one
 * statistic, the stack statistic: the first with counts of its own (the
 * one the rows sort by).  Percentages are of its total weight in the
 * whole profile, like the rows'; counts are samples.
 */
struct report_frame_ref {
	const char *name;		/* procedure, or the truncation marker */
	int inlined;			/* inlined into the next frame out */
};

/* A node of the call tree, or an entry of a caller/callee list. */
struct report_call {
	struct report_frame_ref f;
	uint64_t self_samples, self_weight;	/* stacks ending here */
	uint64_t samples, weight;	/* stacks through here (total) */
	double self_percent, percent;	/* of the statistic's total */
	double share;			/* callers/callees: percent of the
					 * focus procedure's total */
	int recursive;			/* callers/callees: the procedure
					 * calls itself */
	struct report_call *children;	/* tree: hottest first */
	size_t nchildren;
	size_t nchildren_all;		/* before pruning */
};

/* -callers/-callees: one procedure matching the focus glob. */
struct report_focus {
	const char *name;
	uint64_t self_samples, self_weight, samples, weight;
	double self_percent, percent;
	struct report_call *calls;	/* callers or callees, hottest first */
	size_t ncalls;
};

/* Where truncated stacks stopped: one reason in one object. */
struct report_truncation {
	const char *reason;		/* "no unwind information", ... */
	const char *object;		/* base name of the last frame's */
	uint64_t samples;
	double percent;			/* of the samples with stacks */
};

struct report_folded {
	const char *line;		/* frames root first, ';' between */
	uint64_t samples;
};

struct report_stacks {
	size_t stat;			/* the stack statistic */
	uint64_t samples, weight;	/* its samples with a stack */
	uint64_t complete;		/* samples whose stack reached the
					 * entry of the process or thread */
	double complete_percent;	/* of samples with a stack */
	uint64_t kernel_only;		/* samples whose stack has kernel
					 * frames only (PROF_STACK_KERNEL: a
					 * kernel thread's, or no user part
					 * recorded); not truncated, and not
					 * complete either */
	double kernel_only_percent;	/* of samples with a stack */
	double truncated_percent;	/* of samples with a stack: the rest */
	struct report_truncation *trunc;	/* most samples first */
	size_t ntrunc;
	struct report_focus *focus;	/* -callers/-callees */
	size_t nfocus;
	struct report_call tree;	/* -tree: the root's children are the
					 * outermost frames */
	double tree_min;		/* pruning threshold, percent */
};

/*
 * The samples model (samples.c): the whole profile, unfiltered by -only,
 * -exclude or -quit, as samples of symbolized locations, what the
 * exports that keep addresses and every statistic lay out (pprof,
 * callgrind, the flame graph).  A sample is a call stack with its counts
 * per statistic, or, for what was sampled without a stack, one address.
 * Every statistic's samples and weights add up to the report's totals.
 */
struct report_sfunc {
	const char *name;		/* as the rows name it */
	const char *file;		/* the first source file seen in it,
					 * or NULL */
};

/* One level of a location's inline chain. */
struct report_sline {
	uint32_t func;			/* index into funcs */
	unsigned line;			/* 0: unknown */
	const char *file;		/* the line's source file, or NULL */
};

struct report_sloc {
	uint32_t obj;			/* index into the profile's objects;
					 * UINT32_MAX: a marker (the frame
					 * "[truncated: ...]"), no address */
	uint32_t first_line, nlines;	/* lines[], innermost first: the
					 * last is the out-of-line procedure,
					 * the ones before were inlined */
	uint64_t offset;		/* as in the profile's counts */
	uint64_t address;		/* ELF virtual address for files (what
					 * objdump and addr2line take), else
					 * the offset */
};

struct report_ssample {
	uint32_t first, nlocs;		/* sample_locs[first...], leaf first */
	uint32_t end;			/* enum prof_stack_end, or
					 * PROF_STACK_NEND: no stack */
	uint64_t *samples, *weight;	/* per statistic of the profile */
};

struct report_samples {
	size_t nstats;			/* the profile's; derived and counting
					 * ones have no values */
	uint64_t *total_samples, *total_weight;	/* per statistic */
	int has_stacks;
	struct report_sfunc *funcs;
	size_t nfuncs;
	struct report_sline *lines;
	size_t nlines;
	struct report_sloc *locs;
	size_t nlocs;
	uint32_t *sample_locs;		/* indices into locs */
	size_t nsample_locs;
	struct report_ssample *samples;
	size_t nsamples;
	/* With report_options.folded: the samples of the stack statistic
	 * (report_stacks.stat) as folded lines, each distinct line once,
	 * sorted; they add up to its total samples. */
	struct report_folded *folded;
	size_t nfolded;
	/* The way back from the profile, for an export that follows its
	 * time stream (each event names a stack, or an address through its
	 * task count): stack_sample[k] is the sample of the profile's
	 * stack k (nstacks of them; UINT32_MAX: an empty stack, none), and
	 * report_samples_loc() finds an address's location. */
	uint32_t *stack_sample;
	size_t nstacks;
	uint32_t *loc_order;		/* the locations of addresses (not
					 * markers) by (object, offset) */
	size_t nloc_order;
};

/* The location of (obj, offset), an address of the profile's counts or
 * frames; -1 when the model has none (no count or frame there). */
long report_samples_loc(const struct report_samples *s, uint32_t obj,
			uint64_t offset);

/*
 * The time stream by thread and statistic (streams.c), what the exports
 * over time lay out (speedscope, firefox): a thread is a (pid, tid),
 * whatever command names its tasks had, and the idle task (pid 0) a
 * thread per CPU; a stream is one thread's events of one statistic with
 * counts of its own (report_stat_counted()), in time order.  Empty (no
 * threads, no streams) when the profile has no timeline.
 */
struct report_sthread {
	uint32_t pid, tid;
	uint32_t cpu;			/* the idle task's CPU; UINT32_MAX for
					 * any other thread */
	char *comms;			/* its command names, each once, in
					 * their order: "sh, prog" */
};

struct report_stream {
	uint32_t thread, stat;		/* index into threads, statistic */
	size_t first, n;		/* its events: order[first...] */
	uint64_t weight;		/* theirs */
};

struct report_streams {
	struct report_sthread *threads;	/* in (pid, tid, cpu) order */
	size_t nthreads;
	uint32_t *tc_thread;		/* per task count: its thread */
	struct report_stream *streams;	/* by thread, then statistic */
	size_t nstreams;
	size_t *order;			/* indices into the profile's events,
					 * by stream, each in time order */
	unsigned char *has_events;	/* per statistic */
	unsigned char *has_intervals;	/* per statistic: off-CPU intervals
					 * (weights in ns) */
};

int report_streams_build(const struct profile *p,
			 struct report_streams **out);
void report_streams_free(struct report_streams *st);

/*
 * An event's frames, as the samples model symbolized them: its stack's
 * sample's, or, taken without a stack (or with an empty one), its task
 * count's address's location; appended to (*v)[*n...] (grown with
 * ALLOC_GROW, *alloc its capacity) as indices into s->lines, root first
 * and, within a location, the out-of-line function before the functions
 * inlined into it.  report_sample_lines() does the same for model
 * sample x.  0, -PROF_ENOMEM, or -PROF_EFORMAT for an event at an
 * address the model has no location of.
 */
int report_event_lines(const struct report_samples *s,
		       const struct profile *p, const struct prof_event *e,
		       uint32_t **v, size_t *n, size_t *alloc);
int report_sample_lines(const struct report_samples *s, uint32_t x,
			uint32_t **v, size_t *n, size_t *alloc);
/* Per function of s: the lowest line of it in its own file (its
 * report_sfunc.file) that the model holds, or 0 (where a function is,
 * for an export whose frames are functions); line has s->nfuncs
 * entries. */
void report_func_lines(const struct report_samples *s, unsigned *line);
/* The profiled command line, its words separated by spaces (malloc'd;
 * NULL: no memory), the title of an export's view. */
char *report_command_line(const struct profile *p);

/* A row kind's name in JSON and CSV: "procedure", "line", "block",
 * "instruction", "bucket". */
const char *report_row_kind_key(enum report_row_kind k);
/* Whether a statistic has counts of its own: not a ratio (derived), not
 * counting-mode totals.  Only these have rows' samples and weights. */
int report_stat_counted(const struct prof_stat *st);
/* The key of statistic s in per-statistic objects (JSON, CSV columns):
 * its name, unless an earlier statistic has that name too (-pixie's
 * simulated retinst next to a sampled retinst), then "NAME#N" for its
 * N-th occurrence.  Returns name or buf. */
const char *report_stat_key(const struct profile *p, size_t s, char *buf,
			    size_t len);

int report_build(const struct profile *p, struct symbolizer *sym,
		 const struct report_options *opt, struct report **out);
void report_free(struct report *r);

/*
 * The asm view's rows (report_options.view REPORT_ASM): r->rows are the
 * procedures' headings (ROW_PROCEDURE, their totals), in the listing's
 * order, and each one's instruction (or bucket) rows are made when asked,
 * from the symbolizer the report was built with, which must still be
 * there: a listing of a large program never holds more than one
 * procedure's rows.  *rows, *n: the rows of heading k, in address order
 * (valid until the next call or report_free(); the report is not
 * otherwise changed); *first: the index the first of them has in the
 * whole listing, headings and instructions counted.  0 or -PROF_ENOMEM.
 */
int report_asm_rows(const struct report *r, size_t k,
		    const struct report_row **rows, size_t *n, size_t *first);

/* The writers that render a report are in formats/writers.h. */

/*
 * Counting profiles (every statistic PROF_STAT_COUNTING): whole-run
 * totals, scaled where the kernel multiplexed the counters, and the ratios
 * they give.  Built by report_counts_build (formats/report/counts.c),
 * rendered by fmt_counts_text/_json (formats/writers.h).  Points into the
 * profile, which must outlive it; report_counts_free(NULL) is a no-op.
 */
struct report_count {
	const struct prof_stat *stat;
	double scaled;			/* value * enabled / running */
	double running_percent;		/* 100 * running / enabled */
	int multiplexed;		/* ran part of the time: scaled */
};

struct report_count_ratio {
	char name[96];			/* "cycles_per_ret" */
	char formula[160];		/* "100 * mispredict / retinst" */
	const char *inputs[2];		/* statistic names; [1] may be NULL */
	double value;			/* NAN: an input was not counted */
	int requested;			/* asked for by name (-e) */
};

struct report_counts {
	const struct profile *prof;
	const char *file;
	struct report_count *counts;	/* derived statistics left out */
	size_t ncounts;
	struct report_count_ratio *ratios;
	size_t nratios;
};

/* 1 if every statistic of p counts (PROF_STAT_COUNTING), else 0. */
int report_is_counting(const struct profile *p);
int report_counts_build(const struct profile *p, const char *file,
			struct report_counts **out);
void report_counts_free(struct report_counts *rc);

/*
 * The diff of two reports of one view (procedures or lines), BASE and
 * NEW (diff.c): rows matched by procedure name (and inlined-into, and in
 * the lines view source file base name and line; not by object, since a
 * rebuilt program may live at another path), rows of one key summed.
 * Figures are of one statistic, the rows' sort statistic (the first with
 * counts of its own); the two profiles must have the same statistics.
 *
 * Significance: a row's sample counts k1 of n1 (base) and k2 of n2
 * (new) are binomial; the two-proportion z-test with the pooled
 * proportion gives a two-sided p-value per row, and Holm's step-down
 * correction over the rows tested (those with samples in either
 * profile) keeps the chance of reporting any noise row as a change at
 * most alpha.  This measures sampling noise only: not the variation
 * between runs (other load, caches, frequency), which needs repeated runs.
 * Shares are percentages of weight, as the rows show them; the test uses
 * sample counts.
 *
 * Points into both reports, which must outlive it; report_diff_free(NULL)
 * is a no-op.
 */
struct report_diff_options {
	double alpha;			/* significance level, e.g. 0.05 */
	double fail_above;		/* worse: significant and the share
					 * grew by more points; < 0: none */
	int show_noise;			/* list rows that are not significant */
	size_t quit_rows;		/* 0: all rows */
	const char *base_file, *new_file;	/* for headings, messages */
};

struct report_diff_row {
	const struct report_row *row;	/* base's or new's: names */
	const struct report_row *base_row, *new_row;	/* NULL: absent */
	uint64_t base_samples, new_samples;
	double base_percent, new_percent;
	double change;			/* new - base, in points */
	double z, p;			/* z statistic, two-sided p-value */
	double p_holm;			/* Holm-adjusted p-value */
	int tested;			/* samples in either profile */
	int significant;		/* p_holm < alpha */
	int worse;			/* significant, change > fail_above */
	int shown;			/* listed: significant, or noise with
					 * show_noise; within quit_rows */
	long base_ratio, new_ratio;	/* private: rows giving ratios */
};

struct report_diff {
	const struct report *base, *new;
	struct report_diff_options opt;
	enum report_view view;
	size_t stat, new_stat;		/* the statistic in base, in new */
	const char *stat_name;
	uint64_t base_samples, new_samples;	/* its totals */
	uint64_t base_weight, new_weight;
	struct report_diff_row *rows;	/* by absolute change, largest first */
	size_t nrows;
	size_t ntested, nsignificant, nworse;
	size_t nshown;			/* rows shown */
	size_t nhidden;			/* noise rows not shown (without
					 * show_noise; -quit's cut aside) */
	size_t nratios;			/* ratios both have */
	size_t *ratio_base, *ratio_new;	/* their indices in each report */
};

int report_diff_build(const struct report *base, const struct report *nw,
		      const struct report_diff_options *o,
		      struct report_diff **out);
void report_diff_free(struct report_diff *d);
/* Ratio k (0 <= k < nratios) of the row in base or new: NaN if absent. */
double report_diff_ratio(const struct report_diff *d,
			 const struct report_diff_row *dr, size_t k,
			 int is_new);

#define REPORT_JSON_VERSION 1

#endif
