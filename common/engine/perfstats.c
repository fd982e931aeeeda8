/* SPDX-License-Identifier: MIT */
/*
 * perf.data's events as statistics (perfdata.h): each one ours where
 * ours is the same event ("instructions" is retinst, "cpu-clock:ppp"
 * cpu-clock), else perf's name whole; an IBS op event as the profile-me
 * statistics IBS gives; an event recording switches adds offcpu; the
 * X_per_ret ratios where retired instructions were recorded; the call
 * graph the events recorded.  The reader (import.c) and its fuzz target
 * make their template with it.
 */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/profile/profile.h"
#include "common/stats/pmstat.h"
#include "common/stats/stats.h"
#include "common/util/error.h"
#include "perfdata.h"

/* perf's names of the generic events it writes without a description. */
static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

/* The event's name as perf says it, or made from its type and config. */
static void event_name(const struct perf_data_event *e, char *buf, size_t len)
{
	if (e->name && *e->name)
		snprintf(buf, len, "%s", e->name);
	else if (e->type == PERF_TYPE_HARDWARE &&
		 e->config < sizeof(hw_names) / sizeof(hw_names[0]))
		snprintf(buf, len, "%s", hw_names[e->config]);
	else if (e->type == PERF_TYPE_SOFTWARE &&
		 e->config < sizeof(sw_names) / sizeof(sw_names[0]))
		snprintf(buf, len, "%s", sw_names[e->config]);
	else if (e->type == PERF_TYPE_RAW)
		snprintf(buf, len, "r%" PRIx64, e->config);
	else
		snprintf(buf, len, "event-%u:0x%" PRIx64, e->type, e->config);
}

static unsigned event_modes(const struct perf_data_event *e)
{
	return (e->exclude_user ? 0 : STAT_MODE_USER) |
	       (e->exclude_kernel ? 0 : STAT_MODE_KERNEL) |
	       (e->exclude_hv ? 0 : STAT_MODE_HV);
}

static int stat_named(const struct profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nstats; i++)
		if (!strcmp(p->stats[i].name, name))
			return 1;
	return 0;
}

/*
 * perf's events as statistics of tpl: named as ours where one of ours is
 * the same ("instructions" is retinst, "cpu-clock:ppp" cpu-clock), else
 * by perf's name; stat_of[i]: event i's (UINT32_MAX: the side-band dummy
 * event, which samples nothing).  An event recording context switches
 * adds offcpu (*switch_stat).
 */
/* An IBS op event: the profile-me statistics IBS gives, each its own
 * statistic as in a live --pmu ibs run. */
static int add_ibs_stats(const struct perf_data_event *e, struct profile *tpl,
			 uint32_t *pm_of)
{
	char full[128];
	size_t k;

	event_name(e, full, sizeof(full));
	for (k = 0; k < PM_NSTATS; k++) {
		struct prof_stat s = { 0 };
		int idx;

		pm_of[k] = UINT32_MAX;
		if (!stat_pm_family_provides(PM_FAMILY_AMD_IBS, k) ||
		    stat_named(tpl, stat_pm_name(k)))
			continue;
		s.name = (char *)stat_pm_name(k);
		s.requested = full;
		s.type = e->type;
		s.config = k;
		s.modes = event_modes(e);
		s.period = e->period;
		s.freq = e->freq;
		s.flags = PROF_STAT_PROFILEME;
		idx = profile_add_stat(tpl, &s);
		if (idx < 0)
			return idx;
		pm_of[k] = (uint32_t)idx;
	}
	return 0;
}

static int add_events(struct perfdata *pd, struct profile *tpl,
		      uint32_t *stat_of, uint32_t *pm_of,
		      uint32_t *switch_stat)
{
	size_t i, n = perf_data_nevents(pd);
	int want_switch = 0;

	*switch_stat = UINT32_MAX;
	for (i = 0; i < n; i++) {
		const struct perf_data_event *e = perf_data_event(pd, i);
		const struct stat_def *def;
		char full[128], base[128], *colon;
		struct prof_stat s = { 0 };
		int idx;

		want_switch |= e->context_switch;
		stat_of[i] = UINT32_MAX;
		for (size_t k = 0; k < PM_NSTATS; k++)
			pm_of[i * PM_NSTATS + k] = UINT32_MAX;
		if (e->ibs_op) {
			idx = add_ibs_stats(e, tpl, pm_of + i * PM_NSTATS);
			if (idx < 0)
				return idx;
			continue;
		}
		if (e->type == PERF_TYPE_SOFTWARE &&
		    e->config == PERF_COUNT_SW_DUMMY)
			continue;
		event_name(e, full, sizeof(full));
		snprintf(base, sizeof(base), "%s", full);
		colon = strchr(base, ':');
		if (colon && !strchr(base, '/'))
			*colon = 0;
		def = stat_lookup(base);
		/* Not ours: perf's name whole (sched:sched_switch). */
		s.name = def ? (char *)def->name : full;
		if (stat_named(tpl, s.name))
			s.name = full;
		if (stat_named(tpl, s.name))
			continue;	/* the same event twice: its samples
					 * are left out, and said */
		s.requested = full;
		s.type = e->type;
		s.config = e->config;
		s.modes = event_modes(e);
		s.period = e->period;
		s.freq = e->freq;
		idx = profile_add_stat(tpl, &s);
		if (idx < 0)
			return idx;
		stat_of[i] = (uint32_t)idx;
	}
	if (want_switch) {
		const struct stat_def *def = stat_lookup("offcpu");
		struct prof_stat s = {
			.name = (char *)(def ? def->name : "offcpu"),
			.requested = "--switch-events",
			.type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_CONTEXT_SWITCHES,
			.modes = STAT_MODE_USER | STAT_MODE_KERNEL,
			.flags = PROF_STAT_TIME,
		};
		int idx = profile_add_stat(tpl, &s);

		if (idx < 0)
			return idx;
		*switch_stat = (uint32_t)idx;
	}
	return 0;
}

/*
 * With retired instructions recorded, the ratios of the others to them
 * (cycles_per_ret, X_per_ret), per row as for a live run: of counters to
 * retinst, and of IBS's statistics to its retire where the statistics
 * table has the ratio (cycles_per_ret, mispredict_per_ret, ...).
 */
static int add_ratios(struct profile *tpl, size_t nsampled)
{
	int hw = stat_named(tpl, "retinst"), pm = stat_named(tpl, "retire");
	size_t i;
	char name[160];

	for (i = 0; i < nsampled; i++) {
		const struct prof_stat *st = &tpl->stats[i];
		const struct stat_def *def;
		struct prof_stat d = { 0 };

		snprintf(name, sizeof(name), "%s_per_ret", st->name);
		if (st->flags & PROF_STAT_PROFILEME) {
			def = stat_lookup(name);
			if (!pm || !def || def->kind != STAT_DERIVED)
				continue;
		} else if (!hw || st->type == PERF_TYPE_SOFTWARE ||
			   (st->flags & PROF_STAT_TIME) ||
			   !strcmp(st->name, "retinst")) {
			continue;
		}
		if (stat_named(tpl, name))
			continue;
		d.name = name;
		d.requested = name;
		d.modes = st->modes;
		d.flags = PROF_STAT_DERIVED |
			  (st->flags & PROF_STAT_PROFILEME);
		if (profile_add_stat(tpl, &d) < 0)
			return -PROF_ENOMEM;
	}
	return 0;
}

/* The call graph the events recorded: frame pointers (the kernel's
 * chains), or user stack copies to unwind. */
static void call_graph(const struct perfdata *pd, const uint32_t *stat_of,
		       struct profile *tpl)
{
	size_t i;

	for (i = 0; i < perf_data_nevents(pd); i++) {
		const struct perf_data_event *e = perf_data_event(pd, i);

		if ((stat_of[i] == UINT32_MAX && !e->ibs_op) ||
		    !(e->sample_type & PERF_SAMPLE_CALLCHAIN))
			continue;
		if ((e->sample_type & PERF_SAMPLE_STACK_USER) &&
		    (e->sample_type & PERF_SAMPLE_REGS_USER) && e->stack_user) {
			tpl->call_graph = PROF_CG_DWARF;
			if (e->stack_user > tpl->stack_dump)
				tpl->stack_dump = e->stack_user;
		} else if (tpl->call_graph == PROF_CG_NONE) {
			tpl->call_graph = PROF_CG_FP;
		}
	}
}

/*
 * IBS gives a statistic per thing an op can meet; those the recording's
 * ops never met (no sample) go, and so do their ratios: a column of
 * zeros for every one would bury the others.
 */
int perf_data_drop_unmet(struct profile *p)
{
	unsigned char *drop = calloc(p->nstats ? p->nstats : 1, 1);
	size_t i, j, any = 0;
	int err;

	if (!drop)
		return -PROF_ENOMEM;
	for (i = 0; i < p->nstats; i++) {
		const struct prof_stat *st = &p->stats[i];

		drop[i] = (st->flags & PROF_STAT_PROFILEME) &&
			  !(st->flags & PROF_STAT_DERIVED) && !st->samples &&
			  strcmp(st->name, "retire");
		any |= drop[i];
	}
	for (i = 0; any && i < p->nstats; i++) {
		const struct prof_stat *st = &p->stats[i];
		size_t n = strlen(st->name);

		if (!(st->flags & PROF_STAT_DERIVED) || n < 8)
			continue;
		for (j = 0; j < p->nstats; j++)
			if (drop[j] && strlen(p->stats[j].name) == n - 8 &&
			    !strncmp(st->name, p->stats[j].name, n - 8))
				drop[i] = 1;
	}
	err = any ? profile_drop_stats(p, drop) : 0;
	free(drop);
	return err;
}

int perf_data_statistics(struct perfdata *pd, struct profile *tpl,
			 struct perf_data_stats *out)
{
	size_t n = perf_data_nevents(pd);
	int err;

	memset(out, 0, sizeof(*out));
	out->stat_of = calloc(n ? n : 1, sizeof(*out->stat_of));
	out->pm_of = calloc((n ? n : 1) * PM_NSTATS, sizeof(*out->pm_of));
	if (!out->stat_of || !out->pm_of) {
		perf_data_stats_free(out);
		return prof_fail(PROF_ENOMEM, "out of memory");
	}
	err = add_events(pd, tpl, out->stat_of, out->pm_of, &out->switch_stat);
	if (!err && !tpl->nstats)
		err = -PROF_EINVAL;
	if (!err) {
		call_graph(pd, out->stat_of, tpl);
		out->nstats = tpl->nstats;
		err = add_ratios(tpl, tpl->nstats);
	}
	if (err)
		perf_data_stats_free(out);
	return err;
}

void perf_data_stats_free(struct perf_data_stats *s)
{
	free(s->stat_of);
	free(s->pm_of);
	s->stat_of = s->pm_of = NULL;
}
