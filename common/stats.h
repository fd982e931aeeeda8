/* SPDX-License-Identifier: MIT */
/*
 * Statistics: the one table that turns a name a user types ("cycles",
 * "retinst", "cpu-clock:k") into a concrete event of this machine.
 *
 * A name resolves to a table entry plus mode modifiers.  Whether the event
 * can be opened here is asked of the engine through a probe callback, so
 * this file never touches perf_event_open itself.  An entry may name a
 * substitute ("cycles" -> "cpu-clock" on a machine without a PMU); the
 * caller is told (stat_choice.substitute) and must say so to the user.
 */
#ifndef COMMON_STATS_H
#define COMMON_STATS_H

#include <stddef.h>
#include <stdint.h>

enum stat_kind {
	STAT_HW,	/* hardware counter: needs a PMU */
	STAT_SW,	/* kernel software event, always sampleable */
	STAT_NATIVE,	/* a CPU vendor's own event, see natives */
};

/* A vendor's raw event for a statistic perf has no generic name for. */
struct stat_native {
	const char *vendor;	/* /proc/cpuinfo vendor_id */
	const char *event;	/* the vendor's name, for messages */
	uint64_t config;	/* PERF_TYPE_RAW encoding */
};

struct stat_def {
	const char *name;	/* canonical name */
	const char *aliases;	/* comma-separated other names, or NULL */
	const char *desc;	/* one line, for --help and errors */
	enum stat_kind kind;
	uint32_t type;		/* PERF_TYPE_* */
	uint64_t config;
	const char *substitute;	/* used where this one is unavailable */
	const struct stat_native *natives;	/* STAT_NATIVE: NULL-ended */
};

extern const struct stat_def stat_table[];
extern const size_t stat_table_len;

/* Modes a statistic counts in. */
#define STAT_MODE_USER		0x1
#define STAT_MODE_KERNEL	0x2
#define STAT_MODE_HV		0x4

/* A resolved statistic. */
struct stat_choice {
	const struct stat_def *def;	/* what is measured */
	uint32_t type;			/* the event opened: PERF_TYPE_* */
	uint64_t config;
	const struct stat_def *asked;	/* what the user asked for */
	char requested[64];		/* the text the user typed */
	unsigned modes;			/* STAT_MODE_* */
	int substitute;			/* def != asked */
};

/*
 * Probe: returns 0 when the event (type, config) can be sampled here in
 * the given modes, or a negative errno explaining why not.
 */
typedef int (*stat_probe_fn)(uint32_t type, uint64_t config, unsigned modes,
			     void *arg);

/* Look a name up in the table (canonical or alias); NULL if unknown. */
const struct stat_def *stat_lookup(const char *name);

/*
 * Resolve "name[:mods]" with default_modes applying when no modifier is
 * given.  On failure returns -PROF_ENOSTAT or -PROF_EUNAVAIL with a
 * one-line detail (prof_error) naming the statistic, the reason and what is
 * available here.
 */
int stat_resolve(const char *text, unsigned default_modes,
		 stat_probe_fn probe, void *arg, struct stat_choice *out);

/*
 * Write a comma-separated list of the statistics available here into buf.
 */
void stat_available(stat_probe_fn probe, void *arg, unsigned modes,
		    char *buf, size_t len);

/* Text for a mode set: "user", "kernel", "user+kernel", ... */
const char *stat_modes_text(unsigned modes);

/* Check the table: non-empty descriptions, unique names and aliases,
 * substitutes that exist.  Returns the number of problems found and writes
 * the first into buf. */
int stat_table_validate(char *buf, size_t len);

#endif
