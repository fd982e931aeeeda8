/* SPDX-License-Identifier: MIT */
/*
 * perf.data read as a profile (-i, --merge, --diff, --archive): perf's
 * events become statistics (engine/perfstats.c), its records go through
 * the collector like a live run's (engine/perfdata.c and perfrec.c feed
 * them), and the profile built has perf's host, kernel and command line.
 * Every report is then the same code as for umon.out.
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
#include "common/util/clock.h"
#include "common/util/error.h"
#include "symbolize/symbolize.h"

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
	struct perf_data_stats st = { 0 };
	uint64_t first = 0, last = 0;
	const char *line;
	struct stat fst;
	size_t i;
	int err, n = 0;

	*out = NULL;
	err = perf_data_open(fd, path, &pd);
	if (err)
		return err;
	/* Another user's recording (a root report on it): its paths are
	 * that user's to choose. */
	if (!fstat(fd, &fst) && S_ISREG(fst.st_mode) && fst.st_uid != geteuid())
		perf_data_distrust(pd);
	tpl = profile_new();
	err = tpl ? perf_data_statistics(pd, tpl, &st) : -PROF_ENOMEM;
	if (err == -PROF_EINVAL)
		err = prof_fail(PROF_EINVAL, "'%s' has no sampled event", path);
	if (err)
		goto out;
	col = collector_new(COLLECT_SPLIT_NONE, st.nstats);
	if (!col) {
		err = -PROF_ENOMEM;
		goto out;
	}
	collector_set_find(col, find_object, (void *)c);
	if (tpl->call_graph)
		err = collector_set_call_graph(col, tpl->call_graph);
	if (!err && st.switch_stat != UINT32_MAX)
		collector_set_offcpu(col, st.switch_stat, COLLECT_OFFCPU);
	collector_set_time_base(col, 0);
	if (!err)
		err = perf_data_replay(pd, col, st.stat_of, st.pm_of,
				       st.switch_stat, &first, &last);
	for (i = 0; (line = perf_data_note(pd, i)); i++)
		run_notice(c, "%s: %s", path, line);
	if (!err)
		err = describe(c, pd, fd, tpl, first, last);
	if (!err) {
		n = collector_build(col, tpl, &ps);
		err = n < 0 ? n : n != 1 ? -PROF_EFORMAT : 0;
	}
	if (!err)
		err = kernel_symbols(c, path, pd, ps[0]);
	if (!err)
		err = perf_data_drop_unmet(ps[0]);
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
	perf_data_stats_free(&st);
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
