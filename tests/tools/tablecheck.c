/* SPDX-License-Identifier: MIT */
/*
 * tablecheck: validate the statistics table (descriptions present, names
 * and aliases unique, substitutes, native events or notes, derived inputs)
 * and check that every name the originals and other parts of the suite
 * rely on is there with the right kind.  Prints the first problem and
 * exits 1, or prints the number of entries and exits 0.  The table's
 * check is the test's own, not the library's: the tools never need it.
 *
 *   tablecheck           validate
 *   tablecheck --names   print every canonical name, "pm_" before a
 *                        profile-me name a counter also has, one a line
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/stats/stats.h"

/* The originals' profile-me list (pfm(7), 43 names). */
static const char *const profileme43[] = {
	"abort", "abort_per_ret", "arith_trap", "cbr_taken",
	"cbr_taken_per_ret", "cycles", "cycles_per_ret", "delay",
	"delay_per_ret", "dstream_fault", "dtb_miss", "dtb_miss_per_ret",
	"dtb_miss3", "dtb_miss4", "early_kill", "early_kill_per_ret",
	"fp_disabled", "freq", "icache_miss", "icache_miss_per_ret",
	"icache_parity", "inflt_bcache_miss", "inflt_replays",
	"inflt_retires", "interrupt", "istream_accvio", "itb_miss",
	"ldst_align_trap", "ldst_order_trap", "map_stall",
	"map_stall_per_ret", "mchk_trap", "mispredict", "mispredict_per_ret",
	"mt_fpcr_trap", "opcdec_trap", "replay_trap", "replay_trap_per_ret",
	"reset", "retire", "trap", "trap_per_ret", "valid",
};

/* Names with a fixed kind that the rest of the suite relies on. */
static const struct {
	const char *name;
	enum stat_kind kind;
	const char *canonical;
} required[] = {
	{ "cycles", STAT_HW, "cycles" },
	{ "retinst", STAT_HW, "retinst" },
	{ "instructions", STAT_HW, "retinst" },
	{ "issues", STAT_HW, "issues" },
	{ "loads", STAT_HW, "loads" },
	{ "stores", STAT_HW, "stores" },
	{ "branches", STAT_HW, "branches" },
	{ "condbranches", STAT_HW, "condbranches" },
	{ "indbranches", STAT_HW, "indbranches" },
	{ "mispredict", STAT_HW, "mispredict" },
	{ "branch-misses", STAT_HW, "mispredict" },
	{ "condmispredict", STAT_HW, "condmispredict" },
	{ "indmispredict", STAT_HW, "indmispredict" },
	{ "icachemisses", STAT_HW, "icachemisses" },
	{ "dcachemisses", STAT_HW, "dcachemisses" },
	{ "bcachemisses", STAT_HW, "bcachemisses" },
	{ "cache-misses", STAT_HW, "bcachemisses" },
	{ "bcache", STAT_HW, "bcache" },
	{ "scache", STAT_HW, "scache" },
	{ "scachemisses", STAT_HW, "scachemisses" },
	{ "dtbmisses", STAT_HW, "dtbmisses" },
	{ "itbmisses", STAT_HW, "itbmisses" },
	{ "unaligntraps", STAT_HW, "unaligntraps" },
	{ "replay_trap", STAT_HW, "replay_trap" },
	{ "longstalls", STAT_HW, "longstalls" },
	{ "pipedry", STAT_HW, "pipedry" },
	{ "pipefrozen", STAT_HW, "pipefrozen" },
	{ "L1-dcache-load-misses", STAT_HW, "dcachemisses" },
	{ "L1-icache-load-misses", STAT_HW, "icachemisses" },
	{ "dTLB-load-misses", STAT_HW, "dtbmisses" },
	{ "iTLB-load-misses", STAT_HW, "itbmisses" },
	{ "cpu-clock", STAT_SW, "cpu-clock" },
	{ "task-clock", STAT_SW, "task-clock" },
	{ "page-faults", STAT_SW, "page-faults" },
	{ "context-switches", STAT_SW, "context-switches" },
	{ "cpu-migrations", STAT_SW, "cpu-migrations" },
	{ "retire", STAT_PROFILEME, "retire" },
	{ "retired", STAT_PROFILEME, "retire" },
	{ "pm_cycles", STAT_PROFILEME, "cycles" },
	{ "pm_mispredict", STAT_PROFILEME, "mispredict" },
	{ "pm_replay_trap", STAT_PROFILEME, "replay_trap" },
	{ "freq", STAT_DERIVED, "freq" },
};

/* The first problem's text goes into buf; all are counted. */
struct problems {
	char *buf;
	size_t len;
	int n;
};

static void __attribute__((format(printf, 2, 3)))
problem(struct problems *pr, const char *fmt, ...)
{
	va_list ap;

	if (!pr->n++ && pr->len) {
		va_start(ap, fmt);
		vsnprintf(pr->buf, pr->len, fmt, ap);
		va_end(ap);
	}
}

static const struct stat_def *lookup_pm(const char *name)
{
	return name ? stat_def_lookup(name, strlen(name), 1) : NULL;
}

static const struct stat_own_event *own_event(const struct stat_own_model *o,
					      const char *stat)
{
	size_t i;

	for (i = 0; o && i < o->nevents; i++)
		if (!strcmp(o->events[i].stat, stat))
			return &o->events[i];
	return NULL;
}

static int same_space(const struct stat_def *a, const struct stat_def *b)
{
	return (a->kind == STAT_PROFILEME) == (b->kind == STAT_PROFILEME);
}

/* What entry i of its kind must have. */
static void check_kind(struct problems *pr, size_t i)
{
	const struct stat_def *d = &stat_table[i];
	int natives = 0, srcs = 0, k;
	size_t j;

	for (k = 0; k < STAT_NFAMILIES; k++)
		natives += d->native[k] != NULL;
	for (k = 0; k < STAT_NPM_MECHS; k++)
		srcs += d->pm_src[k] != NULL;
	switch (d->kind) {
	case STAT_HW:
		if (!d->generic && !natives)
			problem(pr, "'%s' has no event at all", d->name);
		if (natives < STAT_NFAMILIES && (!d->note || !*d->note))
			problem(pr, "'%s' lacks a family's native event "
				"and says not why", d->name);
		break;
	case STAT_SW:
		if (!d->generic)
			problem(pr, "'%s' has no event", d->name);
		break;
	case STAT_PROFILEME:
		if (d->pm >= PM_NSTATS)
			problem(pr, "'%s' has a bad profile-me index",
				d->name);
		if (srcs < STAT_NPM_MECHS && (!d->note || !*d->note))
			problem(pr, "'%s' lacks a mechanism and says not "
				"why", d->name);
		for (j = 0; j < i; j++)
			if (stat_table[j].kind == STAT_PROFILEME &&
			    stat_table[j].pm == d->pm)
				problem(pr, "'%s' and '%s' are the same "
					"profile-me index", d->name,
					stat_table[j].name);
		break;
	case STAT_DERIVED:
		if (!lookup_pm(d->num))
			problem(pr, "'%s': input '%s' is not a profile-me "
				"statistic", d->name,
				d->num ? d->num : "(none)");
		if (d->den && !lookup_pm(d->den))
			problem(pr, "'%s': input '%s' is not a profile-me "
				"statistic", d->name, d->den);
		if (!d->den && !d->average)
			problem(pr, "'%s' has no denominator", d->name);
		if (!d->scale)
			problem(pr, "'%s' has scale 0", d->name);
		break;
	case STAT_NATIVE:
		problem(pr, "'%s': native entries are never in the table",
			d->name);
		break;
	}
}

/* The sim engine's part of d: returns 1 when d has one. */
static int check_sim(struct problems *pr, const struct stat_def *d)
{
	const char *p;

	if (!d->sim.events)
		return 0;
	if (!*d->sim.events || !d->sim.desc || !*d->sim.desc)
		problem(pr, "'%s': its sim part has no events or description",
			d->name);
	if (stat_sim_def(d->sim.index) != d)
		problem(pr, "'%s' and '%s' are the same sim index", d->name,
			stat_sim_def(d->sim.index)->name);
	for (p = d->sim.aliases; p && *p;) {
		size_t l = strcspn(p, ",");

		if (!stat_def_is_named(d, p, l))
			problem(pr, "'%s': sim alias '%.*s' is not one of its "
				"names", d->name, (int)l, p);
		p = p[l] ? p + l + 1 : NULL;
	}
	return 1;
}

/* Entry i's name and aliases are no other entry's. */
static void check_unique(struct problems *pr, size_t i)
{
	const struct stat_def *d = &stat_table[i];
	size_t j;

	for (j = 0; j < stat_table_len; j++) {
		const struct stat_def *e = &stat_table[j];
		const char *p;

		if (i == j)
			continue;
		/* derived names are unique across both spaces */
		if (!same_space(d, e) && d->kind != STAT_DERIVED &&
		    e->kind != STAT_DERIVED)
			continue;
		if (stat_def_is_named(e, d->name, strlen(d->name)))
			problem(pr, "'%s' is defined twice", d->name);
		for (p = d->aliases; p && *p;) {
			size_t l = strcspn(p, ",");

			if (j > i && stat_def_is_named(e, p, l))
				problem(pr, "alias '%.*s' of '%s' is also "
					"'%s'", (int)l, p, d->name, e->name);
			p = p[l] ? p + l + 1 : NULL;
		}
	}
}

/* The suite's own tables of CPU models (stats_models.c). */
static void check_own_models(struct problems *pr)
{
	size_t i, j;

	for (i = 0; i < stat_own_models_len; i++) {
		const struct stat_own_model *o = &stat_own_models[i];

		for (j = 0; j < o->nevents; j++) {
			const struct stat_own_event *e = &o->events[j];
			const struct stat_def *d = stat_def_lookup(e->stat,
							     strlen(e->stat),
							     0);

			if (!d || d->kind != STAT_HW)
				problem(pr, "%s: '%s' is not an aggregate "
					"statistic", o->name, e->stat);
			if (own_event(o, e->stat) != e)
				problem(pr, "%s: '%s' is mapped twice",
					o->name, e->stat);
			if (!e->event || !*e->event)
				problem(pr, "%s: '%s' has no event name",
					o->name, e->stat);
		}
		if (!o->source || !*o->source || !o->desc)
			problem(pr, "%s: no source or description", o->name);
	}
}

/*
 * Check the table: non-empty descriptions, unique names and aliases within
 * each namespace, substitutes that exist, every HW entry with a generic or
 * a native event, every profile-me entry with a source or a note, every
 * derived statistic's inputs present and profile-me, the sim engine's
 * statistics numbered 0, 1, ... with names the row has.  Returns the number
 * of problems found and writes the first into buf.
 */
static int table_validate(char *buf, size_t len)
{
	struct problems pr = { buf, len, 0 };
	size_t i, nsim = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < stat_table_len; i++) {
		const struct stat_def *d = &stat_table[i];

		if (!d->name || !*d->name) {
			problem(&pr, "entry %zu has no name", i);
			continue;
		}
		if (!d->desc || !*d->desc)
			problem(&pr, "'%s' has no description", d->name);
		if (!strncasecmp(d->name, "pm_", 3))
			problem(&pr, "'%s': pm_ is the profile-me prefix",
				d->name);
		if (d->substitute && !stat_lookup(d->substitute))
			problem(&pr, "'%s' names unknown substitute '%s'",
				d->name, d->substitute);
		check_kind(&pr, i);
		nsim += check_sim(&pr, d);
		check_unique(&pr, i);
	}
	for (i = 0; i < nsim; i++)
		if (!stat_sim_def(i))
			problem(&pr, "no statistic has sim index %zu (there "
				"are %zu)", i, nsim);
	check_own_models(&pr);
	return pr.n;
}

int main(int argc, char **argv)
{
	char why[256];
	size_t i;
	int n, bad = 0;

	if (argc > 1 && !strcmp(argv[1], "--names")) {
		for (i = 0; i < stat_table_len; i++) {
			const struct stat_def *d = &stat_table[i];

			printf("%s%s\n", d->kind == STAT_PROFILEME &&
			       stat_lookup(d->name) != d ? "pm_" : "",
			       d->name);
		}
		return 0;
	}
	n = table_validate(why, sizeof(why));
	if (n) {
		fprintf(stderr, "tablecheck: %d problem(s); first: %s\n", n,
			why);
		return 1;
	}
	for (i = 0; i < sizeof(profileme43) / sizeof(*profileme43); i++) {
		const char *name = profileme43[i];
		size_t l = strlen(name);
		int derived = !strcmp(name, "freq") ||
			      (l > 8 && !strcmp(name + l - 8, "_per_ret"));
		char pm[64];
		const struct stat_def *d;

		snprintf(pm, sizeof(pm), "pm_%s", name);
		d = stat_lookup(derived ? name : pm);
		if (!d || d->kind != (derived ? STAT_DERIVED :
				      STAT_PROFILEME)) {
			fprintf(stderr, "tablecheck: profile-me '%s' is "
				"missing or of the wrong kind\n", name);
			bad++;
		}
	}
	for (i = 0; i < sizeof(required) / sizeof(*required); i++) {
		const struct stat_def *d = stat_lookup(required[i].name);

		if (!d || d->kind != required[i].kind ||
		    strcmp(d->name, required[i].canonical)) {
			fprintf(stderr, "tablecheck: '%s' should be %s '%s', "
				"is %s '%s'\n", required[i].name,
				stat_kind_text(required[i].kind),
				required[i].canonical,
				d ? stat_kind_text(d->kind) : "not",
				d ? d->name : "there");
			bad++;
		}
	}
	if (bad)
		return 1;
	printf("%zu statistics\n", stat_table_len);
	return 0;
}
