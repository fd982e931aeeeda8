/* SPDX-License-Identifier: MIT */
/*
 * The plan of a run: the names a perf-engine run asks for (-e, words
 * before PROGRAM, --pmu profile-me names, X_per_ret, freq, --start-after)
 * become the stat_choice and perf_event_spec of each event to open, the
 * inputs of each ratio, and the trigger; the sample rate is checked
 * against the kernel's limit.  Each name is looked up in the statistics
 * table (stat_resolve, common/stats/).  The words are recognised here for
 * the command line too (run_is_statistic), and the ratios' inputs for the
 * sim engine (simrun.c).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "common/util/sysctl.h"
#include "run_int.h"
#include "common/engine/perf.h"
#include "common/engine/profileme.h"
#include "common/engine/sim.h"
#include "common/stats/stats.h"

#define DEFAULT_FREQ 1000

/*
 * For a derived statistic "X_per_ret[:mods]", the name of X in buf;
 * NULL for any other name.  Recognised by the suffix, not the table: the
 * table lists the originals' ratios, but any statistic X has one.
 */
const char *run_per_ret_input(const char *word, char *buf, size_t len)
{
	size_t n = strcspn(word, ":"), sl = strlen(PER_RET);

	if (n <= sl || strncmp(word + n - sl, PER_RET, sl) ||
	    n - sl >= len)
		return NULL;
	snprintf(buf, len, "%.*s", (int)(n - sl), word);
	return buf;
}

/* "freq[:mods]": retired instructions averaged over basic blocks. */
int run_is_freq(const char *word)
{
	return !strncmp(word, "freq", 4) && (!word[4] || word[4] == ':');
}

/*
 * --pmu: names of profile-me statistics sample the family's instruction
 * sampler.  Until the statistics table has STAT_PROFILEME entries, the
 * names resolve here through pm_lookup(); the stat_def of each is made
 * up from the profile-me names, kept with the run.
 */

static int resolve_pm(struct run *r, const char *text, unsigned modes,
		      struct stat_choice *ch)
{
	char name[64];
	const char *colon = strchr(text, ':');
	int st;

	snprintf(name, sizeof(name), "%.*s",
		 (int)(colon ? (size_t)(colon - text) : strlen(text)), text);
	st = pm_lookup(name);
	if (st < 0)
		return 0;
	if (colon) {
		const char *m;

		modes = 0;
		for (m = colon + 1; *m; m++) {
			if (*m == 'u')
				modes |= STAT_MODE_USER;
			else if (*m == 'k')
				modes |= STAT_MODE_KERNEL;
			else if (*m == 'h')
				modes |= STAT_MODE_HV;
			else
				return prof_fail(PROF_EINVAL, "statistic '%s':"
						 " unknown modifier '%c' (u, k,"
						 " h)", text, *m);
		}
		if (!modes)
			return prof_fail(PROF_EINVAL, "statistic '%s': no "
					 "mode after ':'", text);
	}
	if (!pm_family_provides(r->pmu.family, st)) {
		char avail[512] = "";
		int i;

		for (i = 0; i < PM_NSTATS; i++)
			if (pm_family_provides(r->pmu.family, i))
				snprintf(avail + strlen(avail),
					 sizeof(avail) - strlen(avail),
					 "%s%s", avail[0] ? ", " : "",
					 pm_stat_name(i));
		return prof_fail(PROF_EUNAVAIL, "'%s' is not available: %s "
				 "samples do not record it (see "
				 "docs/profileme.md), try: %s", name,
				 pm_family_name(r->pmu.family), avail);
	}
	if (!r->pm_defs) {
		r->pm_defs = calloc(PM_NSTATS, sizeof(*r->pm_defs));
		if (!r->pm_defs)
			return -PROF_ENOMEM;
	}
	r->pm_defs[st] = (struct stat_def){
		.name = pm_stat_name(st), .desc = pm_stat_desc(st),
		.kind = STAT_HW, .type = r->pmu.type, .config = (uint64_t)st,
	};
	memset(ch, 0, sizeof(*ch));
	ch->def = ch->asked = &r->pm_defs[st];
	ch->type = r->pmu.type;
	ch->config = (uint64_t)st;
	ch->modes = modes;
	snprintf(ch->requested, sizeof(ch->requested), "%s", text);
	return 1;
}

static int setup_pmu(struct run *r)
{
	const char *root = getenv("UPROFILE_SYSFS");
	const char *f = r->cfg->pmu;

	if (!f)
		return 0;
	if (root && !*root)
		root = NULL;
	if (!strcmp(f, "auto"))
		return pm_pmu_detect(root, &r->pmu);
	return pm_pmu_probe(pm_family_lookup(f), root, &r->pmu);
}

/*
 * Resolve one name into r->choice/specs, or find it there already.
 * Statistics opened for a ratio (implicit) may coincide with one another
 * or with one the user named; two the user named may not.
 */
static int add_stat(struct run *r, const char *text, int implicit,
		    size_t *index)
{
	struct run_config *c = r->cfg;
	unsigned modes = c->tool->default_modes | c->add_modes;
	struct stat_choice *ch = &r->choice[r->nstats];
	int is_pm = c->pmu ? resolve_pm(r, text, modes, ch) : 0;
	int err = is_pm < 0 ? is_pm : is_pm ? 0 :
		  stat_resolve(text, modes, c->dry_run ? NULL : perf_probe,
			       NULL, ch);
	size_t j, i = r->nstats;

	if (err)
		return err;
	if (!is_pm && ch->def->kind == STAT_PROFILEME) {
		/* The table's profile-me statistic: sampled by this
		 * machine's instruction sampler (IBS, PEBS, SPE). */
		char pmtext[96];
		const char *colon = strchr(text, ':');

		if (!r->pmu.family) {
			const char *root = getenv("UPROFILE_SYSFS");

			err = pm_pmu_detect(root && *root ? root : NULL,
					    &r->pmu);
			if (err)
				return err;
		}
		snprintf(pmtext, sizeof(pmtext), "%s%s",
			 pm_stat_name(ch->def->pm), colon ? colon : "");
		is_pm = resolve_pm(r, pmtext, modes, ch);
		if (is_pm < 0)
			return is_pm;
		if (!is_pm)
			return prof_fail(PROF_EUNAVAIL, "statistic '%s' has "
					 "no profile-me decoder", text);
	}
	if (is_pm && c->count)
		return prof_fail(PROF_EINVAL, "'%s' is a profile-me statistic:"
				 " instruction samplers sample, they do not "
				 "count (drop --count)", text);
	if (ch->asked->kind == STAT_DERIVED)
		return prof_fail(PROF_EINVAL, "'%s' is derived from other "
				 "statistics and cannot be an input", text);
	if (c->verbose) {
		char what[320];

		stat_choice_describe(ch, what, sizeof(what));
		run_notice(c, "%s", what);
	}
	/* perf_event_spec has no config1/2 yet: refuse rather than open a
	 * different event (OFFCORE_RESPONSE, FRONTEND_RETIRED) */
	if (ch->config1 || ch->config2)
		return prof_fail(PROF_EUNAVAIL, "statistic '%s' (%s) needs "
				 "config1/config2, which this build cannot "
				 "pass yet", ch->requested, ch->event);
	for (j = 0; j < i; j++)
		if (r->choice[j].def == ch->def &&
		    r->choice[j].modes == ch->modes) {
			if (!implicit && !r->specs[j].group)
				return prof_fail(PROF_EINVAL,
						 "statistic '%s' is given twice"
						 " (as '%s' and '%s')",
						 ch->def->name,
						 r->choice[j].requested,
						 ch->requested);
			*index = j;
			return 0;
		}
	if (ch->substitute)
		run_notice(c, "'%s' is not available here (no hardware "
		       "PMU); %s '%s' instead", ch->requested,
		       c->count ? "counting" : "sampling", ch->def->name);
	r->specs[i].type = ch->type;
	r->specs[i].config = ch->config;
	r->specs[i].modes = ch->modes;
	/* System-wide, every mode is sampled so the mode histogram
	 * is whole; only the modes asked for become rows. */
	if (c->tool->scope == RUN_SCOPE_SYSTEM && !c->count)
		r->specs[i].modes |= STAT_MODE_USER | STAT_MODE_KERNEL;
	if (c->count) {
		r->specs[i].counting = 1;
	} else {
		r->specs[i].period = c->period;
		r->specs[i].freq = c->period ? 0 :
				   (c->freq ? c->freq : DEFAULT_FREQ);
	}
	r->specs[i].cascaded = c->start_after != NULL;
	if (is_pm) {
		r->specs[i].pm.pmu = &r->pmu;
		r->specs[i].pm.stat = (enum pm_stat)ch->config;
	}
	r->nstats++;
	*index = i;
	return 0;
}

/* A derived statistic whose input cannot be measured: say which, and
 * why, in the form every unavailable statistic has. */
int run_input_failed(const char *name, const char *input, int err)
{
	char why[512];
	const char *p;

	snprintf(why, sizeof(why), "%s", prof_error(err));
	p = strstr(why, " is not available here: ");
	return prof_fail(PROF_EUNAVAIL, "statistic '%s' is not available "
			 "here: its input '%s' is not: %s", name, input,
			 p ? p + strlen(" is not available here: ") : why);
}

int run_resolve_stats(struct run *r)
{
	struct run_config *c = r->cfg;
	const char *retired;
	size_t i, n, k;
	static char *dflt[] = { (char *)"cycles" };
	char **names = c->nstats ? c->stats : dflt;

	n = c->nstats ? c->nstats : 1;
	/* A ratio opens up to two statistics. */
	r->choice = calloc(2 * n, sizeof(*r->choice));
	r->specs = calloc(2 * n, sizeof(*r->specs));
	r->derived = calloc(n, sizeof(*r->derived));
	if (!r->choice || !r->specs || !r->derived)
		return -PROF_ENOMEM;
	{
		int err = setup_pmu(r);

		if (err)
			return err;
	}
	/* Ratios divide by retired instructions: the profile-me "retire"
	 * when an instruction sampler is in use, else the counter. */
	retired = r->pmu.family ? "retire" : "retinst";
	for (i = 0; i < n; i++) {
		char x[64], text[160];
		const char *mods = strchr(names[i], ':');
		struct derived *d = &r->derived[r->nderived];
		size_t idx;
		int err;

		if (run_is_freq(names[i])) {
			/* freq: retired instructions, averaged over basic
			 * blocks when the report is made; -pixie's exact
			 * counts serve as they are. */
			if (c->pixie) {
				d->ret = SIZE_MAX;
			} else {
				snprintf(text, sizeof(text), "%s%s", retired,
					 mods ? mods : "");
				err = add_stat(r, text, 1, &d->ret);
				if (err)
					return run_input_failed(names[i], retired,
							    err);
			}
			d->x = d->ret;
			snprintf(d->name, sizeof(d->name), "freq");
			snprintf(d->requested, sizeof(d->requested), "%s",
				 names[i]);
			r->nderived++;
			continue;
		}
		if (!run_per_ret_input(names[i], x, sizeof(x))) {
			err = add_stat(r, names[i], 0, &idx);
			if (err)
				return err;
			/* Named by the user: no longer only a ratio's. */
			continue;
		}
		/* X_per_ret[:mods]: X and retired instructions, with the
		 * same modes, counted together. */
		snprintf(text, sizeof(text), "%s%s", x, mods ? mods : "");
		err = add_stat(r, text, 1, &d->x);
		if (err == -PROF_ENOSTAT) {
			/* The table's suggestions for the whole name. */
			struct stat_choice tmp;

			err = stat_resolve(names[i], 0, NULL, NULL, &tmp);
			return err ? err : prof_fail(PROF_ENOSTAT, "unknown "
						     "statistic '%s'", x);
		}
		if (err)
			return run_input_failed(names[i], x, err);
		/* A profile-me X is divided by the profile-me retire; with
		 * -pixie, a counter's X by the exact retired count. */
		if (c->pixie && !r->specs[d->x].pm.pmu) {
			d->ret = SIZE_MAX;
		} else {
			snprintf(text, sizeof(text), "%s%s",
				 r->specs[d->x].pm.pmu ? "retire" : retired,
				 mods ? mods : "");
			err = add_stat(r, text, 1, &d->ret);
			if (err)
				return run_input_failed(names[i], text, err);
			r->specs[d->x].group = r->specs[d->ret].group = 1;
		}
		snprintf(d->name, sizeof(d->name), "%s" PER_RET,
			 r->choice[d->x].asked ? r->choice[d->x].asked->name :
			 r->choice[d->x].def->name);
		snprintf(d->requested, sizeof(d->requested), "%s", names[i]);
		for (k = 0; k < r->nderived; k++)
			if (!strcmp(r->derived[k].name, d->name))
				break;
		if (k == r->nderived)
			r->nderived++;
	}
	/* Only derived statistics named (freq with -pixie): sample the
	 * default too, so there is something per instruction. */
	if (!r->nstats) {
		size_t idx;
		int err = add_stat(r, "cycles", 0, &idx);

		if (err)
			return err;
	}
	if (c->start_after) {
		struct stat_choice ch;
		int err = stat_resolve(c->start_after_stat,
				       c->tool->default_modes | c->add_modes,
				       c->dry_run ? NULL : perf_probe, NULL,
				       &ch);

		if (err) {
			char why[256];

			snprintf(why, sizeof(why), "%s", prof_error(err));
			return prof_fail(err, "--start-after: %s", why);
		}
		if (ch.substitute)
			run_notice(c, "'%s' is not available here (no hardware "
			       "PMU); starting after '%s' instead",
			       ch.requested, ch.def->name);
		r->trigger.type = ch.type;
		r->trigger.config = ch.config;
		r->trigger.modes = ch.modes;
		r->trigger.count = c->start_after_n;
		r->trigger.signo = SIGRTMIN + 2;
		r->have_trigger = 1;
	}
	return 0;
}

/*
 * A frequency above kernel.perf_event_max_sample_rate makes
 * perf_event_open fail with a bare EINVAL.  An -F the user gave is
 * refused with the limit and how to raise it; the default frequency is
 * lowered to the limit with a notice, as perf does: the kernel lowers the
 * limit by itself when sampling interrupts take too long (a busy VM).
 */
int run_check_sample_rate(struct run *r)
{
	uint64_t hz = 0;
	long max;
	size_t i;

	for (i = 0; i < r->nstats; i++)
		if (!r->specs[i].counting && !r->specs[i].period &&
		    r->specs[i].freq > hz)
			hz = r->specs[i].freq;
	if (!hz || sysctl_read_long("perf_event_max_sample_rate", &max) ||
	    max <= 0 || hz <= (uint64_t)max)
		return 0;
	if (r->cfg->freq)
		return prof_fail(PROF_EINVAL, "-F %" PRIu64 " is above this "
				 "kernel's limit of %ld samples per second "
				 "(kernel.perf_event_max_sample_rate): give -F "
				 "%ld or less, or raise the limit with 'sysctl "
				 "kernel.perf_event_max_sample_rate=%" PRIu64
				 "'", hz, max, max, hz);
	for (i = 0; i < r->nstats; i++)
		if (!r->specs[i].counting && !r->specs[i].period &&
		    r->specs[i].freq > (uint64_t)max)
			r->specs[i].freq = (uint64_t)max;
	run_notice(r->cfg, "sampling at %ld per second, not the default %" PRIu64
	       ": this kernel's limit (kernel.perf_event_max_sample_rate) is "
	       "%ld", max, hz, max);
	return 0;
}

int run_is_statistic(const struct run_config *c, const char *word)
{
	char name[64], in[64];

	if (strchr(word, '/'))
		return 0;
	snprintf(name, sizeof(name), "%s", word);
	name[strcspn(name, ":")] = '\0';
	if (run_per_ret_input(name, in, sizeof(in)))
		snprintf(name, sizeof(name), "%s", in);
	return stat_lookup(name) != NULL ||
	       (c->pmu && pm_lookup(name) >= 0) ||
	       (c->engine == RUN_ENGINE_SIM && stat_sim_lookup(name));
}
