/* SPDX-License-Identifier: MIT */
/*
 * The perf.data reader: perf record's files (and its pipe mode) as one
 * more source of records in front of the collector.
 *
 * perf_data_open() reads what describes the recording: the file header,
 * the events (attributes, their ids and names) and the feature sections
 * (build-ids, host, kernel, CPU, command line, sample times); in pipe mode
 * (perf record -o -) the same arrives as the stream's first records.
 * perf_data_replay() then feeds every record of the data section to a
 * collector, one round (FINISHED_ROUND) at a time in time order, through
 * the same calls the live engine makes: mappings, COMM, FORK, EXIT,
 * samples with their call chains, user registers and stack copies, lost
 * counts, context switches.  COMPRESSED records (perf record -z) are
 * inflated with zstd as they come.
 *
 * All outside bytes go through the bounded byte cursor (bytes.h); every
 * size is checked against what holds it (the file, the section, the
 * record) before it is used, and a file that is not what it says is
 * -PROF_EFORMAT with a one-line detail.  What is read but not used, or
 * not understood (a record type, a feature), is counted and named by
 * perf_data_note(), never dropped silently.
 */
#ifndef COMMON_ENGINE_PERFDATA_H
#define COMMON_ENGINE_PERFDATA_H

#include <stddef.h>
#include <stdint.h>

struct collector;
struct perfdata;

/* perf's magic: the first 8 bytes of a file or pipe it wrote. */
#define PERFDATA_MAGIC "PERFILE2"

/* One event of the recording (an attribute). */
struct perf_data_event {
	char *name;		/* perf's name ("cycles:u"), NULL if none */
	uint32_t type;		/* PERF_TYPE_* */
	uint64_t config;
	uint64_t sample_type;
	uint64_t period;	/* sample_period, or 0 with freq */
	uint64_t freq;		/* sample_freq, or 0 with a period */
	uint64_t regs_user;	/* sample_regs_user */
	uint32_t stack_user;	/* sample_stack_user */
	unsigned exclude_user : 1, exclude_kernel : 1, exclude_hv : 1;
	unsigned callchain_user : 1;	/* its chains have the user part */
	unsigned context_switch : 1;	/* it records switches */
	unsigned ibs_op : 1;	/* AMD IBS op samples (the ibs_op PMU):
				 * decoded from their raw data */
	uint64_t samples;	/* samples of it read so far */
};

/* What the feature sections (or pipe records) said; NULL/0 when absent. */
struct perf_data_meta {
	char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	char **cmdline;		/* perf's own command line */
	int ncmdline;
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t first_time, last_time;	/* SAMPLE_TIME, perf's clock */
	uint64_t kernel_text;	/* where the kernel's text was mapped
				 * ([kernel.kallsyms]_text), 0: not said */
	int compressed;		/* zstd records (perf record -z) */
	int pipe;		/* perf record -o - */
};

/*
 * Read the header, events and features of the perf.data open at fd
 * (name: for messages; fd stays the caller's).  A regular file is read
 * at its offsets; anything else (a pipe) as a stream.  0, or -PROF_EFORMAT
 * / -PROF_EIO / -PROF_ENOMEM with a detail.
 */
int perf_data_open(int fd, const char *name, struct perfdata **out);
void perf_data_free(struct perfdata *pd);

size_t perf_data_nevents(const struct perfdata *pd);
const struct perf_data_event *perf_data_event(const struct perfdata *pd,
					    size_t i);
const struct perf_data_meta *perf_data_meta(const struct perfdata *pd);
/* The build-id recorded for path (the BUILD_ID feature, pipe-mode
 * HEADER_BUILD_ID records, MMAP2 records that carry one): its length, 0
 * when none; kernel: the running kernel's ([kernel.kallsyms]). */
size_t perf_data_build_id(const struct perfdata *pd, const char *path,
			 uint8_t *out, size_t len);

/*
 * The recording is another user's: a mapping it gives no build-id for
 * is of a file never read by its path (collector_mmap_file()'s unread:
 * its rows are addresses), as its paths are that user's to choose.
 */
void perf_data_distrust(struct perfdata *pd);

/*
 * Feed every record to c: event i's samples are statistic stat_of[i]
 * (UINT32_MAX: not wanted, counted as left out), its context switches
 * the collector's off-CPU statistic when switch_stat is not UINT32_MAX.
 * An ibs_op event's samples are decoded (pm_decode_ibs_op) and charge
 * pm_of[i * PM_NSTATS + s] for each profile-me statistic s they met
 * (pm_of may be NULL, an entry UINT32_MAX: not wanted).
 * Returns 0, or -PROF_EFORMAT / -PROF_EIO with a detail (a record
 * overrunning the data section, a damaged zstd stream); records before
 * the damage have been delivered.  *first, *last: the times of the first
 * and last sample (perf's clock; 0 without times).
 */
int perf_data_replay(struct perfdata *pd, struct collector *c,
		    const uint32_t *stat_of, const uint32_t *pm_of,
		    uint32_t switch_stat, uint64_t *first, uint64_t *last);

/*
 * What was not used, one line each ("3 AUXTRACE records (hardware
 * trace)", "feature 19 (STAT)"), in the order met: i-th line, NULL past
 * the last.
 */
const char *perf_data_note(const struct perfdata *pd, size_t i);

/* perfstats.c: the recording's events as statistics of tpl (which gets
 * them, its call graph and stack copy size, and the X_per_ret ratios of
 * what it has): stat_of[i], event i's statistic (UINT32_MAX: none, the
 * side-band event); pm_of, an IBS event's (perf_data_replay() takes
 * both); switch_stat, the off-CPU statistic of a --switch-events
 * recording, else UINT32_MAX; nstats, the statistics with counts (the
 * ratios come after).  0; -PROF_EINVAL when no event samples anything;
 * -PROF_ENOMEM. */
struct profile;
struct perf_data_stats {
	uint32_t *stat_of, *pm_of;
	uint32_t switch_stat;
	size_t nstats;
};
int perf_data_statistics(struct perfdata *pd, struct profile *tpl,
			 struct perf_data_stats *out);
void perf_data_stats_free(struct perf_data_stats *s);
/* After the build: IBS statistics no op met (no sample) go, and their
 * ratios: a column of zeros for each would bury the others. */
int perf_data_drop_unmet(struct profile *p);

#endif
