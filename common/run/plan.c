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
static const char *run_per_ret_input(const char *word, char *buf,
				     size_t len)
{
	size_t n = strcspn(word, ":"), sl = strlen(PER_RET);

	if (n <= sl || strncmp(word + n - sl, PER_RET, sl) ||
	    n - sl >= len)
		return NULL;
	snprintf(buf, len, "%.*s", (int)(n - sl), word);
	return buf;
}

/* "freq[:mods]": retired instructions averaged over basic blocks. */
static int run_is_freq(const char *word)
{
	return !strncmp(word, "freq", 4) && (!word[4] || word[4] == ':');
}

/*
 * --pmu: names of profile-me statistics sample the family's instruction
 * sampler.  Until the statistics table has STAT_PROFILEME entries, the
 * names resolve here through stat_pm_lookup(); the stat_def of each is made
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
	st = stat_pm_lookup(name);
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
	if (!stat_pm_family_provides(r->pmu.family, st)) {
		char avail[512] = "";
		int i;

		for (i = 0; i < PM_NSTATS; i++)
			if (stat_pm_family_provides(r->pmu.family, i))
				snprintf(avail + strlen(avail),
					 sizeof(avail) - strlen(avail),
					 "%s%s", avail[0] ? ", " : "",
					 stat_pm_name(i));
		return prof_fail(PROF_EUNAVAIL, "'%s' is not available: %s "
				 "samples do not record it (see "
				 "docs/profileme.md), try: %s", name,
				 stat_pm_family_name(r->pmu.family), avail);
	}
	if (!r->pm_defs) {
		r->pm_defs = calloc(PM_NSTATS, sizeof(*r->pm_defs));
		if (!r->pm_defs)
			return -PROF_ENOMEM;
	}
	r->pm_defs[st] = (struct stat_def){
		.name = stat_pm_name(st), .desc = stat_pm_desc(st),
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
	return pm_pmu_probe(stat_pm_family_lookup(f), root, &r->pmu);
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
			 stat_pm_name(ch->def->pm), colon ? colon : "");
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
	r->specs[i].offcpu = ch->def->offcpu;
	/* Off-CPU time is charged per switch: no timer samples it. */
	if (ch->def->offcpu == STAT_OFFCPU_TIME)
		r->specs[i].period = r->specs[i].freq = 0;
	if (ch->def->offcpu && c->count)
		return prof_fail(PROF_EINVAL, "'%s' is time charged per "
				 "switch%s, not a counter: it cannot be counted "
				 "(drop --count)", ch->requested,
				 ch->def->offcpu == STAT_OFFCPU_WALL ?
				 " (and sampled on CPU by a timer)" : "");
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
static int run_input_failed(const char *name, const char *input,
			    int err)
{
	char why[512];
	const char *p;

	snprintf(why, sizeof(why), "%s", prof_error(err));
	p = strstr(why, " is not available here: ");
	return prof_fail(PROF_EUNAVAIL, "statistic '%s' is not available "
			 "here: its input '%s' is not: %s", name, input,
			 p ? p + strlen(" is not available here: ") : why);
}

/* A ratio's name as it is stored: "freq", or "X_per_ret" with X's
 * canonical name. */
static void ratio_name(const struct run *r, struct derived *d, int freq)
{
	const struct stat_choice *ch = &r->choice[d->x];

	if (freq)
		snprintf(d->name, sizeof(d->name), "freq");
	else
		snprintf(d->name, sizeof(d->name), "%s" PER_RET,
			 ch->asked ? ch->asked->name : ch->def->name);
}

/* Add the divisor of ratio d (retired instructions) unless the engine
 * divides by -pixie's exact count (SIZE_MAX). */
static int add_divisor(struct run *r, const struct plan_engine *e,
		       const char *asked, struct derived *d, size_t x,
		       const char *mods)
{
	const char *ret = e->divisor(r, x);
	char text[160];
	int err;

	if (!ret) {
		d->ret = SIZE_MAX;
		return 0;
	}
	snprintf(text, sizeof(text), "%s%s", ret, mods ? mods : "");
	err = e->add(r, text, 1, &d->ret);
	if (err)
		return run_input_failed(asked, x == SIZE_MAX ? ret : text,
					err);
	/* A ratio's inputs are counted together (perf: one group). */
	if (x != SIZE_MAX && r->specs)
		r->specs[x].group = r->specs[d->ret].group = 1;
	return 0;
}

/* One word the user gave: a statistic, freq, or X_per_ret. */
static int plan_word(struct run *r, const struct plan_engine *e,
		     const char *word)
{
	struct derived *d = &r->derived[r->nderived];
	const char *mods = strchr(word, ':');
	char x[64], text[160];
	size_t idx, k;
	int err;

	if (run_is_freq(word)) {
		/* freq: retired instructions, averaged over basic blocks
		 * when the report is made. */
		err = add_divisor(r, e, word, d, SIZE_MAX, mods);
		if (err)
			return err;
		d->x = d->ret;
		ratio_name(r, d, 1);
	} else if (run_per_ret_input(word, x, sizeof(x))) {
		/* X_per_ret[:mods]: X and retired instructions, with the
		 * same modes. */
		snprintf(text, sizeof(text), "%s%s", x, mods ? mods : "");
		err = e->add(r, text, 1, &d->x);
		if (err == -PROF_ENOSTAT) {
			/* The table's suggestions for the whole name. */
			struct stat_choice tmp;

			err = stat_resolve(word, 0, NULL, NULL, &tmp);
			return err ? err : prof_fail(PROF_ENOSTAT, "unknown "
						     "statistic '%s'", x);
		}
		if (err)
			return run_input_failed(word, x, err);
		err = add_divisor(r, e, word, d, d->x, mods);
		if (err)
			return err;
		ratio_name(r, d, 0);
	} else {
		return e->add(r, word, 0, &idx);
	}
	snprintf(d->requested, sizeof(d->requested), "%s", word);
	for (k = 0; k < r->nderived; k++)
		if (!strcmp(r->derived[k].name, d->name))
			return 0;
	r->nderived++;
	return 0;
}

int run_plan(struct run *r, const struct plan_engine *e)
{
	const struct run_config *c = r->cfg;
	char *dflt[] = { (char *)e->dflt };
	char **names = c->nstats ? c->stats : dflt;
	size_t n = c->nstats ? c->nstats : 1, i, idx;
	int err;

	/* A ratio measures up to two statistics. */
	r->choice = calloc(2 * n, sizeof(*r->choice));
	r->derived = calloc(n, sizeof(*r->derived));
	if (!r->choice || !r->derived)
		return -PROF_ENOMEM;
	for (i = 0; i < n; i++) {
		err = plan_word(r, e, names[i]);
		if (err)
			return err;
	}
	/* Only ratios divided by exact counts named (freq with -pixie):
	 * measure the default too, so there is something per
	 * instruction. */
	if (!r->nstats)
		return e->add(r, e->dflt, 0, &idx);
	return 0;
}

/* The perf engine's divisor: the profile-me "retire" for a profile-me X
 * (or any ratio while an instruction sampler is in use), else the
 * counter; -pixie's exact count for a counter's X. */
static const char *perf_divisor(struct run *r, size_t x)
{
	int pm_x = x != SIZE_MAX && r->specs[x].pm.pmu;

	if (r->cfg->pixie && !pm_x)
		return NULL;
	return pm_x || r->pmu.family ? "retire" : "retinst";
}

/* --start-after: the statistic whose N-th event starts the run. */
static int plan_trigger(struct run *r)
{
	struct run_config *c = r->cfg;
	struct stat_choice ch;
	int err = stat_resolve(c->start_after_stat,
			       c->tool->default_modes | c->add_modes,
			       c->dry_run ? NULL : perf_probe, NULL, &ch);

	if (err) {
		char why[256];

		snprintf(why, sizeof(why), "%s", prof_error(err));
		return prof_fail(err, "--start-after: %s", why);
	}
	if (ch.substitute)
		run_notice(c, "'%s' is not available here (no hardware PMU); "
			   "starting after '%s' instead", ch.requested,
			   ch.def->name);
	r->trigger.type = ch.type;
	r->trigger.config = ch.config;
	r->trigger.modes = ch.modes;
	r->trigger.count = c->start_after_n;
	r->trigger.signo = SIGRTMIN + 2;
	r->have_trigger = 1;
	return 0;
}

int run_resolve_stats(struct run *r)
{
	static const struct plan_engine perf = {
		.dflt = "cycles", .add = add_stat, .divisor = perf_divisor,
	};
	int err;
	size_t n = r->cfg->nstats ? r->cfg->nstats : 1;

	r->specs = calloc(2 * n, sizeof(*r->specs));
	if (!r->specs)
		return -PROF_ENOMEM;
	err = setup_pmu(r);
	if (!err)
		err = run_plan(r, &perf);
	if (!err && r->cfg->start_after)
		err = plan_trigger(r);
	return err;
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
	       (c->pmu && stat_pm_lookup(name) >= 0) ||
	       (c->engine == RUN_ENGINE_SIM && stat_sim_lookup(name));
}
