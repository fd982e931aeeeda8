/* SPDX-License-Identifier: MIT */
/*
 * Statistics: the one table that turns a name a user types ("cycles",
 * "retinst", "cpu-clock:k", "mispredict_per_ret", "INST_RETIRED:ANY_P",
 * "r01c2:u") into a concrete event of this machine, or into a one-line
 * reason why this machine cannot measure it.  docs/statistics.md explains
 * every row: what is measured on Intel, AMD and Arm, and why.
 *
 * Names.  A plain name is looked up among the aggregate counters, the
 * software events and the derived statistics first, then among the
 * profile-me statistics; "pm_NAME" always means the profile-me statistic
 * NAME.  So "cycles", "mispredict" and "replay_trap", which the originals
 * had in both modes, are counters, and "pm_cycles" is the cycles a sampled
 * instruction was in flight.  A name that is in no table entry may be a
 * raw event ("r01c2") or a libpfm4 native event name ("INST_RETIRED:ANY_P",
 * "amd64_fam19h_zen4::RESYNCS").  Modifiers :u :k :h (and combinations,
 * ":uk") end any of these.  The sim engine counts some of the aggregate
 * statistics exactly; a row says so in its sim part (struct stat_sim),
 * and the sim engine's names are looked up there (stat_sim_lookup).
 *
 * Whether the event can be opened here is asked of the engine through a
 * probe callback, so this file never calls perf_event_open itself.  An
 * entry may name a substitute ("cycles" -> "cpu-clock" on a machine without
 * a PMU); the caller is told (stat_choice.substitute) and must say so.
 *
 * Errors are negative PROF_E* codes with a one-line detail (prof_error):
 * PROF_ENOSTAT for a name nobody knows (with suggestions), PROF_EUNAVAIL
 * for a known statistic this machine cannot measure (with the reason).
 */
#ifndef COMMON_STATS_H
#define COMMON_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "pmstat.h"

enum stat_kind {
	STAT_HW,	/* aggregate hardware counter: needs a PMU */
	STAT_SW,	/* kernel software event, always sampleable */
	STAT_NATIVE,	/* a raw or libpfm4 native event the user typed;
			 * never in the table (stat_choice.def is made up) */
	STAT_PROFILEME,	/* what a sampled instruction met: IBS, PEBS, SPE */
	STAT_DERIVED,	/* computed at report time from profile-me counts */
};

/* CPU families with their own native event names (libpfm4 spelling). */
enum stat_family {
	STAT_FAM_INTEL,
	STAT_FAM_AMD,
	STAT_FAM_ARM,
	STAT_NFAMILIES,
	STAT_FAM_OTHER = STAT_NFAMILIES,
};

/* Instruction-sampling mechanisms that can provide profile-me data. */
enum stat_pm_mech {
	STAT_PM_IBS,	/* AMD IBS: ibs_op PMU ("fetch:" entries: ibs_fetch) */
	STAT_PM_PEBS,	/* Intel PEBS: precise sampling of a named event */
	STAT_PM_SPE,	/* Arm Statistical Profiling Extension */
	STAT_NPM_MECHS,
};

/*
 * What the sim engine (valgrind) counts for a statistic it provides, an
 * exact count instead of samples.  It is the simulation's own account of
 * the statistic (instructions executed, not retired; a simulated predictor
 * and caches), so it has its own description, and it accepts fewer of the
 * row's names.  events is NULL in rows the simulation does not provide.
 */
struct stat_sim {
	unsigned index;		/* the sim engine's order (its list, -l
				 * with --engine=sim) and prof_stat.config
				 * in profile files: never renumber */
	const char *aliases;	/* other names sim accepts, or NULL */
	const char *desc;	/* what the simulation counts */
	const char *events;	/* callgrind events summed: "D1mr+D1mw" */
};

struct stat_def {
	const char *name;	/* canonical name */
	const char *aliases;	/* comma-separated other names, or NULL */
	const char *desc;	/* one line, for -l and errors */
	enum stat_kind kind;

	/* STAT_HW, STAT_SW: perf's generic event, when generic is set. */
	int generic;
	uint32_t type;		/* PERF_TYPE_HARDWARE, _HW_CACHE, _SOFTWARE */
	uint64_t config;
	const char *substitute;	/* used where this one is unavailable */
	/*
	 * STAT_SW: the kernel raises it only in its own code, with its own
	 * registers (a task switches or migrates inside the scheduler), so
	 * a sample outside kernel mode never happens: without :k it is
	 * refused, not silently zero.
	 */
	int kernel_only;
	/*
	 * STAT_SW: time off CPU (STAT_OFFCPU_TIME), charged per switch from
	 * the switch records, in ns; or wall-clock time (STAT_OFFCPU_WALL):
	 * type and config sampled on CPU, plus the time off it.
	 */
	int offcpu;
	/*
	 * STAT_HW: native events by family, libpfm4 spelling, tried when the
	 * generic event is missing or unsupported here; "A|B" tries A, then
	 * B (models name the same event differently).  NULL: the family has
	 * no such event, and note says why.
	 */
	const char *native[STAT_NFAMILIES];

	/*
	 * STAT_PROFILEME: the pm_sample field, and what provides it per
	 * mechanism (a field or event name, for -l and the docs); NULL: that
	 * mechanism does not record it.
	 */
	enum pm_stat pm;
	const char *pm_src[STAT_NPM_MECHS];

	/*
	 * STAT_DERIVED: num (and den) are profile-me statistics; the value
	 * is scale * num / den, or with average, num averaged over each
	 * basic block (freq).
	 */
	const char *num, *den;
	unsigned scale;
	int average;

	const char *note;	/* why some family or mechanism lacks it */

	struct stat_sim sim;	/* the sim engine's count, if it has one */
};

extern const struct stat_def stat_table[];
extern const size_t stat_table_len;

/*
 * Native encodings the suite carries itself (stats_models.c), for CPUs
 * whose events libpfm4 cannot encode here: a model Debian's libpfm4
 * predates (AMD Zen 5), and the Arm PMUv3 common events, which every Arm
 * core numbers alike.  They are tried after libpfm4, only when libpfm4
 * has no event tables for the CPU.  Each row names a stat_table entry.
 */
struct stat_own_event {
	const char *stat;	/* stat_table name */
	const char *event;	/* the vendor's name for it */
	uint64_t config;	/* PERF_TYPE_RAW config of the core PMU */
};

struct stat_own_model {
	const char *name;	/* prefix in event names: "amdzen5" */
	const char *desc;	/* "AMD Zen 5 (family 1Ah)" */
	const char *source;	/* where the encodings come from, for -l */
	enum stat_family family;
	unsigned cpu_family;	/* x86 family it covers; 0: any of family */
	const struct stat_own_event *events;
	size_t nevents;
};

extern const struct stat_own_model stat_own_models[];
extern const size_t stat_own_models_len;

/*
 * The own model used on this machine (or the CPU UPROFILE_CPU pins), or
 * NULL when libpfm4 knows the CPU or no own table covers it.
 */
const struct stat_own_model *stat_own_model_here(void);

/* stat_def.offcpu */
#define STAT_OFFCPU_TIME	1
#define STAT_OFFCPU_WALL	2

/* Modes a statistic counts in. */
#define STAT_MODE_USER		0x1
#define STAT_MODE_KERNEL	0x2
#define STAT_MODE_HV		0x4

/* Whether a statistic counting in modes has rows of user code only: an
 * off-CPU statistic's are then where the program waited in user mode,
 * else the kernel's wait (its call chain at the switch). */
static inline int stat_user_rows(unsigned modes)
{
	return (modes & STAT_MODE_USER) && !(modes & STAT_MODE_KERNEL);
}

/* A resolved statistic. */
struct stat_choice {
	const struct stat_def *def;	/* what is measured; for STAT_NATIVE
					 * a made-up entry that lives as long
					 * as the process */
	uint32_t type;			/* the event opened: PERF_TYPE_* or a
					 * dynamic PMU type */
	uint64_t config, config1, config2;
	const struct stat_def *asked;	/* what the user asked for */
	char requested[64];		/* the text the user typed */
	unsigned modes;			/* STAT_MODE_* */
	int substitute;			/* def != asked */
	char event[96];			/* what it resolved to, in words:
					 * "PERF_COUNT_HW_INSTRUCTIONS",
					 * "icl::MACHINE_CLEARS:MEMORY_ORDERING" */
	int pm_mech;			/* STAT_PROFILEME, STAT_DERIVED: the
					 * stat_pm_mech found here, else -1 */
};

/*
 * Probe: returns 0 when the event (type, config) can be sampled here in
 * the given modes, or a negative errno explaining why not.
 */
typedef int (*stat_probe_fn)(uint32_t type, uint64_t config, unsigned modes,
			     void *arg);

/*
 * Look a name up in the table (canonical or alias, "pm_" prefix for the
 * profile-me namespace, see above); NULL if unknown.  Modifiers are not
 * part of the name.
 */
const struct stat_def *stat_lookup(const char *name);

/*
 * The statistics the sim engine provides, the rows with a sim part.
 * stat_sim_def: the one whose sim.index is index, NULL past the last.
 * stat_sim_lookup: by canonical name or one of sim.aliases (no modifier),
 * NULL when the simulation does not provide it.
 */
const struct stat_def *stat_sim_def(size_t index);
const struct stat_def *stat_sim_lookup(const char *name);

/*
 * Resolve "name[:u]" for the sim engine into *index (its sim.index).  A
 * statistic the simulation cannot give (cycles, cpu-clock, ...) or a
 * kernel-mode one is -PROF_EUNAVAIL, with a detail (prof_error) naming it
 * and listing what the simulation provides.
 */
int stat_sim_resolve(const char *text, size_t *index);

/* Whether the first n bytes of name are one of the comma-separated names
 * in list (NULL: none), ignoring case, as statistic names are matched. */
int stat_name_in_list(const char *name, size_t n, const char *list);
/* Whether d is named name[0..n) or one of its aliases (case does not
 * matter), and the first entry of the table so named: pm 0 among the
 * counters, software and derived statistics, 1 among the profile-me
 * ones; NULL when none.  (stat_lookup() and the table's check use
 * these.) */
int stat_def_is_named(const struct stat_def *d, const char *name, size_t n);
const struct stat_def *stat_def_lookup(const char *name, size_t n, int pm);

/*
 * Resolve "name[:mods]" with default_modes applying when no modifier is
 * given.  probe NULL: do not ask the engine (--dry-run), take the first
 * event this CPU could have.  On failure returns -PROF_ENOSTAT or
 * -PROF_EUNAVAIL with a one-line detail (prof_error) naming the statistic,
 * the reason and what is available here.
 */
int stat_resolve(const char *text, unsigned default_modes,
		 stat_probe_fn probe, void *arg, struct stat_choice *out);

/*
 * Why def cannot be measured here, in a few words ("no hardware PMU",
 * "needs IBS, PEBS or SPE", ...) for -l: written into why (len bytes)
 * and returned; NULL when it can.  *sub is set to the substitute used
 * instead, or NULL.
 */
const char *stat_unavailable(const struct stat_def *def, unsigned modes,
			     stat_probe_fn probe, void *arg,
			     const struct stat_def **sub, char *why,
			     size_t len);

/* One line on what choice resolved to, for -v: "type 4 (raw) config
 * 0x2c3 = icl::MACHINE_CLEARS:MEMORY_ORDERING, user mode". */
void stat_choice_describe(const struct stat_choice *choice, char *buf,
			  size_t len);

/*
 * One line on this machine for -l: CPU family and libpfm4 PMU, whether
 * the kernel has a hardware PMU, which instruction-sampling PMUs exist.
 *
 * The CPU is identified from /proc/cpuinfo, or, as a testing aid, from
 * UPROFILE_CPU=VENDOR:FAMILY:MODEL (GenuineIntel:6:0x55,
 * AuthenticAMD:0x1a:0x2, ARM:0x41:0xd0c for implementer and part); with
 * UPROFILE_CPU, libpfm4's event tables are used only when LIBPFM_FORCE_PMU
 * names them too, so that a pinned test never sees the host's tables.
 */
void stat_machine_describe(char *buf, size_t len);

/*
 * The libpfm4 native event names of this CPU's core PMU, as -e accepts
 * them: each event ("INST_RETIRED") and each of its unit masks
 * ("INST_RETIRED:ANY_P"), passed to fn one by one.  None where libpfm4 has
 * no tables for the CPU (or a pinned UPROFILE_CPU without
 * LIBPFM_FORCE_PMU).  Returns how many names fn was given.
 */
typedef void (*stat_name_fn)(const char *name, void *arg);
int stat_native_names(stat_name_fn fn, void *arg);

/* Text for a mode set: "user", "kernel", "user+kernel", ... */
const char *stat_modes_text(unsigned modes);

/* "aggregate hardware", "profile-me", ... */
const char *stat_kind_text(enum stat_kind kind);

#endif
