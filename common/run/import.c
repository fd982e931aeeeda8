/* SPDX-License-Identifier: MIT */
/*
 * perf.data read as a profile (-i, --merge, --diff, --archive): perf's
 * events become statistics, its records go through the collector like a
 * live run's (engine/perfdata.c feeds them), and the profile built has
 * perf's host, kernel and command line.  Every report is then the same
 * code as for umon.out.
 */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "run_int.h"
#include "common/collect/collect.h"
#include "common/engine/perfdata.h"
#include "common/profile/profile.h"
#include "common/stats/pmstat.h"
#include "common/stats/stats.h"
#include "common/util/clock.h"
#include "common/util/error.h"
#include "symbolize/symbolize.h"

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

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

/* What the recording says of its host, kernel, CPU and command. */
static int describe(const struct run_config *c, const struct perfdata *pd,
		    int fd, struct profile *tpl, uint64_t first, uint64_t last)
{
	const struct perf_data_meta *m = perf_data_meta(pd);
	struct stat st;
	uint64_t end_ns;

	tpl->tool = strdup(c->tool->name);
	tpl->tool_version = strdup(PROF_VERSION);
	if (asprintf(&tpl->recorded_by, "perf%s%s", m->version ? " " : "",
		     m->version ? m->version : "") < 0)
		tpl->recorded_by = NULL;
	tpl->hostname = dup_or_empty(m->hostname);
	tpl->sysname = strdup("Linux");
	tpl->release = dup_or_empty(m->osrelease);
	tpl->machine = dup_or_empty(m->arch);
	tpl->cpu_model = dup_or_empty(m->cpudesc);
	if (!tpl->tool || !tpl->tool_version || !tpl->recorded_by ||
	    !tpl->hostname ||
	    !tpl->sysname || !tpl->release || !tpl->machine || !tpl->cpu_model)
		return -PROF_ENOMEM;
	tpl->ncpus = m->nr_cpus_online;
	tpl->exit_status = -1;
	tpl->duration_ns = last > first ? last - first : 0;
	/* perf's clock has no date: a file was finished when perf wrote
	 * its header last (its time of change), a stream is being read. */
	end_ns = !fstat(fd, &st) && S_ISREG(st.st_mode) ?
		 (uint64_t)st.st_mtim.tv_sec * 1000000000u +
		 (uint64_t)st.st_mtim.tv_nsec :
		 prof_clock_ns(CLOCK_REALTIME);
	tpl->start_time_ns = end_ns > tpl->duration_ns ?
			     end_ns - tpl->duration_ns : 0;
	if (m->ncmdline)
		return profile_set_argv(tpl, m->ncmdline, m->cmdline);
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
 * The kernel's object: its build-id is the recording's; its addresses
 * are named with this machine's symbols only when it recorded this boot
 * of this kernel (the same _text: addresses move with each boot).
 */
static int kernel_symbols(const struct run_config *c, const char *path,
			  const struct perfdata *pd, struct profile *p)
{
	const struct perf_data_meta *m = perf_data_meta(pd);
	struct symbolizer *sym;
	struct sym_ksym k;
	uint8_t bid[20];
	size_t i, n = perf_data_build_id(pd, "[kernel.kallsyms]", bid,
					sizeof(bid));
	int kernel = 0, err = 0, same;

	for (i = 0; i < p->nobjects; i++) {
		struct prof_object *o = &p->objects[i];

		if (o->kind != PROF_OBJ_KERNEL)
			continue;
		if (n)
			memcpy(o->build_id, bid, n);
		o->build_id_len = (uint32_t)n;
	}
	for (i = 0; i < p->ncounts && !kernel; i++)
		kernel = p->objects[p->counts[i].obj].kind == PROF_OBJ_KERNEL;
	if (!kernel)
		return 0;
	sym = symbolizer_new(NULL);
	if (!sym)
		return -PROF_ENOMEM;
	same = m->kernel_text &&
	       sym_kernel_symbol_by_name(sym, "_text", &k) == 0 &&
	       k.start == m->kernel_text;
	if (same)
		err = run_embed_kernel_symbols(p, sym);
	else
		run_notice(c, "%s: kernel addresses are not named: %s", path,
			   m->kernel_text ? "it was recorded under another "
			   "boot or kernel" : "it does not say where the "
			   "kernel was");
	symbolizer_free(sym);
	return err;
}

/* Where a recorded object's file may be besides its path, for
 * unwinding (the report's symbolizer looks in the same places): under
 * --symfs, in perf's build-id cache. */
static char *find_object(void *arg, const char *path, const uint8_t *bid,
			 size_t len, unsigned i)
{
	const struct run_config *c = arg;
	const char *cache = run_buildid_cache();
	char hex[41], *out = NULL;
	size_t k;

	if (!c->symfs)
		i++;
	for (k = 0; k < len && k < 20; k++)
		snprintf(hex + 2 * k, 3, "%02x", bid[k]);
	if (i == 0 && asprintf(&out, "%s%s%s", c->symfs,
			       path[0] == '/' ? "" : "/", path) < 0)
		return NULL;
	if ((i == 1 || i == 2) && cache &&
	    asprintf(&out, "%s/.build-id/%.2s/%s%s", cache, hex, hex + 2,
		     i == 1 ? "/elf" : "") < 0)
		return NULL;
	return out;
}

/*
 * IBS gives a statistic per thing an op can meet; those the recording's
 * ops never met (no sample) go, and so do their ratios: a column of
 * zeros for every one would bury the others.
 */
static int drop_unmet(struct profile *p)
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

/* The events of the profile from the first one's time on (perf's clock
 * counts from the boot). */
static void rebase_events(struct profile *p)
{
	uint64_t base;
	size_t i;

	if (!p->nevents)
		return;
	base = p->events[0].time;
	for (i = 0; i < p->nevents; i++)
		p->events[i].time -= base;
}

static int import_perfdata(void *arg, int fd, const char *path,
			   struct profile **out)
{
	const struct run_config *c = arg;
	struct perfdata *pd = NULL;
	struct collector *col = NULL;
	struct profile *tpl = NULL, **ps = NULL;
	uint32_t *stat_of = NULL, *pm_of = NULL, switch_stat;
	uint64_t first = 0, last = 0;
	const char *line;
	struct stat st;
	size_t i, nsampled;
	int err, n = 0;

	*out = NULL;
	err = perf_data_open(fd, path, &pd);
	if (err)
		return err;
	/* Another user's recording (a root report on it): its paths are
	 * that user's to choose. */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid != geteuid())
		perf_data_distrust(pd);
	tpl = profile_new();
	stat_of = calloc(perf_data_nevents(pd), sizeof(*stat_of));
	pm_of = calloc(perf_data_nevents(pd) * PM_NSTATS, sizeof(*pm_of));
	err = tpl && stat_of && pm_of ?
	      add_events(pd, tpl, stat_of, pm_of, &switch_stat) : -PROF_ENOMEM;
	if (!err && !tpl->nstats)
		err = prof_fail(PROF_EINVAL, "'%s' has no sampled event", path);
	if (err)
		goto out;
	nsampled = tpl->nstats;
	col = collector_new(COLLECT_SPLIT_NONE, tpl->nstats);
	if (!col) {
		err = -PROF_ENOMEM;
		goto out;
	}
	call_graph(pd, stat_of, tpl);
	collector_set_find(col, find_object, (void *)c);
	if (tpl->call_graph)
		err = collector_set_call_graph(col, tpl->call_graph);
	if (!err && switch_stat != UINT32_MAX)
		collector_set_offcpu(col, switch_stat, COLLECT_OFFCPU);
	collector_set_time_base(col, 0);
	if (!err)
		err = perf_data_replay(pd, col, stat_of, pm_of, switch_stat,
				       &first, &last);
	for (i = 0; (line = perf_data_note(pd, i)); i++)
		run_notice(c, "%s: %s", path, line);
	if (!err)
		err = describe(c, pd, fd, tpl, first, last);
	if (!err)
		err = add_ratios(tpl, nsampled);
	if (!err) {
		n = collector_build(col, tpl, &ps);
		err = n < 0 ? n : n != 1 ? -PROF_EFORMAT : 0;
	}
	if (!err)
		err = kernel_symbols(c, path, pd, ps[0]);
	if (!err)
		err = drop_unmet(ps[0]);
	if (!err) {
		rebase_events(ps[0]);
		*out = ps[0];
		ps[0] = NULL;
	}
out:
	for (i = 0; i < (size_t)(n > 0 ? n : 0); i++)
		profile_free(ps[i]);
	free(ps);
	collector_free(col);
	profile_free(tpl);
	free(stat_of);
	free(pm_of);
	perf_data_free(pd);
	return err == -PROF_ENOMEM ? prof_fail(PROF_ENOMEM, "out of memory") :
				     err;
}

/* perf's magic, in this machine's byte order or the other. */
static int claims(const uint8_t *head, size_t len)
{
	return len >= 8 && (!memcmp(head, PERFDATA_MAGIC, 8) ||
			    !memcmp(head, "2ELIFREP", 8));
}

const struct profile_import *run_importer(const struct run_config *c)
{
	static struct profile_import imp = {
		.claims = claims,
		.read = import_perfdata,
		.dir_file = "data",
		.dir_advice = "perf record --threads wrote it; read it as "
			      "perf inject -i DIR -o - | ... -i -",
	};

	imp.arg = (void *)c;
	return &imp;
}
