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

#define PROF_FILE_VERSION 1

enum prof_obj_kind {	/* same values as enum sym_obj_kind */
	PROF_OBJ_FILE = 0,
	PROF_OBJ_VDSO = 1,
	PROF_OBJ_ANON = 2,
	PROF_OBJ_KERNEL = 3,
	PROF_OBJ_MODULE = 4,
};

struct prof_object {
	char *path;
	uint32_t kind;
	uint32_t build_id_len;
	uint8_t build_id[20];
	uint64_t start, end, pgoff;	/* first executable mapping seen */
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

struct prof_modes {
	uint32_t cpu;
	uint64_t n[PROF_NMODES];
};

/* A kernel symbol carried in the profile (kernel addresses differ per
 * boot with KASLR, so reports do not rely on this machine's kallsyms). */
struct prof_ksym {
	uint64_t start, end;
	char *name;
	char *module;		/* NULL for the kernel proper */
};

struct profile {
	char *tool;		/* "uprofile" or "kprofile" */
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
};

struct profile *profile_new(void);
void profile_free(struct profile *p);

/* Append; the profile takes copies of the strings.  Return the index, or
 * a negative PROF_E* code. */
int profile_add_object(struct profile *p, const struct prof_object *o);
int profile_add_stat(struct profile *p, const struct prof_stat *s);
int profile_add_count(struct profile *p, const struct prof_count *c);
int profile_add_ksym(struct profile *p, const struct prof_ksym *k);
int profile_set_argv(struct profile *p, int argc, char *const *argv);
/* Fill host, kernel and CPU identification from this machine. */
void profile_identify_host(struct profile *p);

/*
 * Append src's statistics and their counts to dst (-pixie: a simulated
 * run's exact counts join the sampled profile).  Objects are matched by
 * kind, path and build-id, and added when dst has none; counts stay
 * sorted.  Returns 0 or -PROF_ENOMEM (dst may then hold part of src).
 */
int profile_append(struct profile *dst, const struct profile *src);

/* Sort counts by (object, statistic, offset), the order the file has. */
void profile_sort_counts(struct profile *p);

/* Sum of samples / weights of one statistic over all counts. */
uint64_t profile_stat_samples(const struct profile *p, size_t stat);

int profile_write(const struct profile *p, const char *path);
int profile_read(const char *path, struct profile **out);
/* Decode an in-memory image (what profile_read uses); for tests/fuzzing. */
int profile_decode(const void *buf, size_t len, struct profile **out);

#endif
