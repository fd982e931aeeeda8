/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/util/error.h"
#include "stats.h"
#include "common/util/sysctl.h"

#define SYSFS_PMUS "/sys/bus/event_source/devices"

static const char *const family_name[] = {
	[STAT_FAM_INTEL] = "Intel", [STAT_FAM_AMD] = "AMD",
	[STAT_FAM_ARM] = "Arm", [STAT_FAM_OTHER] = "other",
};

static const char *const mech_name[] = {
	[STAT_PM_IBS] = "AMD IBS", [STAT_PM_PEBS] = "Intel PEBS",
	[STAT_PM_SPE] = "Arm SPE",
};

/* ---- names ---- */

int stat_name_in_list(const char *name, size_t n, const char *list)
{
	const char *p = list;

	while (p && *p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == n && !strncasecmp(p, name, n))
			return 1;
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

int stat_def_is_named(const struct stat_def *d, const char *name, size_t n)
{
	return (strlen(d->name) == n && !strncasecmp(d->name, name, n)) ||
	       stat_name_in_list(name, n, d->aliases);
}

const struct stat_def *stat_def_lookup(const char *name, size_t n, int pm)
{
	size_t i;

	for (i = 0; i < stat_table_len; i++) {
		const struct stat_def *d = &stat_table[i];

		if ((d->kind == STAT_PROFILEME) == pm &&
		    stat_def_is_named(d, name, n))
			return d;
	}
	return NULL;
}

static const struct stat_def *lookup_n(const char *name, size_t n)
{
	const struct stat_def *d;

	if (n > 3 && !strncasecmp(name, "pm_", 3))
		return stat_def_lookup(name + 3, n - 3, 1);
	d = stat_def_lookup(name, n, 0);
	return d ? d : stat_def_lookup(name, n, 1);
}

const struct stat_def *stat_lookup(const char *name)
{
	return lookup_n(name, strlen(name));
}

static const struct stat_def *lookup_pm(const char *name)
{
	return name ? stat_def_lookup(name, strlen(name), 1) : NULL;
}

/* ---- the sim engine's names ---- */

const struct stat_def *stat_sim_def(size_t index)
{
	size_t i;

	for (i = 0; i < stat_table_len; i++) {
		const struct stat_def *d = &stat_table[i];

		if (d->sim.events && d->sim.index == index)
			return d;
	}
	return NULL;
}

const struct stat_def *stat_sim_lookup(const char *name)
{
	const struct stat_def *d;
	size_t i;

	for (i = 0; (d = stat_sim_def(i)); i++)
		if (!strcasecmp(d->name, name) ||
		    stat_name_in_list(name, strlen(name), d->sim.aliases))
			return d;
	return NULL;
}

/* Comma-separated canonical names of the sim engine's statistics. */
static void sim_names(char *buf, size_t len)
{
	const struct stat_def *d;
	size_t i, used = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; (d = stat_sim_def(i)); i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 d->name);

		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
}

int stat_sim_resolve(const char *text, size_t *index)
{
	char name[64], avail[512];
	const char *mods = strchr(text, ':');
	const struct stat_def *d;

	snprintf(name, sizeof(name), "%.*s",
		 (int)(mods ? (size_t)(mods - text) : strlen(text)), text);
	sim_names(avail, sizeof(avail));
	if (mods && strcmp(mods, ":u"))
		return prof_fail(PROF_EUNAVAIL, "'%s' is not available with "
				 "the sim engine: it simulates user mode only "
				 "(use %s or %s:u); it provides %s", text, name,
				 name, avail);
	d = stat_sim_lookup(name);
	if (!d)
		return prof_fail(PROF_EUNAVAIL, "'%s' is not available with "
				 "the sim engine (valgrind counts and simulates "
				 "instructions, caches and branches, not time "
				 "or kernel events); it provides %s", name,
				 avail);
	*index = d->sim.index;
	return 0;
}

const char *stat_modes_text(unsigned modes)
{
	static const char *const text[] = {
		"none", "user", "kernel", "user+kernel",
		"hypervisor", "user+hypervisor", "kernel+hypervisor",
		"user+kernel+hypervisor",
	};

	return text[modes & 7];
}

const char *stat_kind_text(enum stat_kind kind)
{
	switch (kind) {
	case STAT_HW: return "aggregate hardware";
	case STAT_SW: return "software";
	case STAT_NATIVE: return "native";
	case STAT_PROFILEME: return "profile-me";
	case STAT_DERIVED: return "derived";
	}
	return "?";
}

/* ---- this machine ---- */

static int read_sysfs_int(const char *pmu, const char *file, long *v)
{
	char path[256], line[64];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), SYSFS_PMUS "/%s/%s", pmu, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fgets(line, sizeof(line), f) && sscanf(line, "%ld", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

struct machine {
	int probed;
	enum stat_family family;
	char vendor[64];	/* /proc/cpuinfo, for messages */
	unsigned cpu_family;	/* x86 family, or Arm implementer */
	unsigned cpu_model;	/* x86 model, or Arm part */
	int have_model;		/* cpu_family and cpu_model were read */
	int pinned;		/* from UPROFILE_CPU */
	char pin_error[128];	/* UPROFILE_CPU not understood */
	const struct stat_own_model *own;	/* stats_models.c, or NULL */
	int pfm_ok;		/* libpfm4 initialized */
	char pfm_pmu[32];	/* its core PMU here ("icl"), or "" */
	pfm_pmu_t pfm_id;	/* that PMU, when pfm_pmu is set */
	char pfm_desc[64];
	int hw_pmu;		/* the kernel has a core PMU (type 4) */
	char mech_pmu[STAT_NPM_MECHS][32];	/* "ibs_op", "arm_spe_0" */
	int ibs_fetch;
};

static enum stat_family family_of_desc(const char *desc)
{
	if (!strncasecmp(desc, "Intel", 5))
		return STAT_FAM_INTEL;
	if (!strncasecmp(desc, "AMD", 3))
		return STAT_FAM_AMD;
	if (!strncasecmp(desc, "ARM", 3))
		return STAT_FAM_ARM;
	return STAT_FAM_OTHER;
}

static enum stat_family family_of_vendor(const char *vendor)
{
	if (!strcmp(vendor, "GenuineIntel"))
		return STAT_FAM_INTEL;
	if (!strcmp(vendor, "AuthenticAMD"))
		return STAT_FAM_AMD;
	return STAT_FAM_OTHER;
}

static void probe_cpuinfo(struct machine *m)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	unsigned v;
	int fam = 0, model = 0;

	snprintf(m->vendor, sizeof(m->vendor), "unknown");
	m->family = STAT_FAM_OTHER;
	if (!f)
		return;
	/* The first processor's lines are enough: all cores alike. */
	while (fgets(line, sizeof(line), f) && !(fam && model)) {
		if (sscanf(line, "vendor_id : %63s", m->vendor) == 1)
			m->family = family_of_vendor(m->vendor);
		else if (sscanf(line, "cpu family : %u", &v) == 1)
			m->cpu_family = v, fam = 1;
		else if (sscanf(line, "model : %u", &v) == 1)
			m->cpu_model = v, model = 1;
		else if (sscanf(line, "CPU implementer : %x", &v) == 1) {
			snprintf(m->vendor, sizeof(m->vendor), "Arm "
				 "(implementer %#x)", v);
			m->family = STAT_FAM_ARM;
			m->cpu_family = v, fam = 1;
		} else if (sscanf(line, "CPU part : %x", &v) == 1)
			m->cpu_model = v, model = 1;
	}
	m->have_model = fam && model;
	fclose(f);
}

/* UPROFILE_CPU=VENDOR:FAMILY:MODEL, for tests: 0 when it is set. */
static int probe_pinned(struct machine *m)
{
	const char *pin = getenv("UPROFILE_CPU");
	char vendor[32];
	unsigned long fam, model;
	char *end;
	const char *p;
	size_t n;

	if (!pin || !*pin)
		return -1;
	m->pinned = 1;
	snprintf(m->vendor, sizeof(m->vendor), "unknown");
	m->family = STAT_FAM_OTHER;
	n = strcspn(pin, ":");
	p = pin + n;
	if (n == 0 || n >= sizeof(vendor) || *p != ':')
		goto bad;
	snprintf(vendor, sizeof(vendor), "%.*s", (int)n, pin);
	errno = 0;
	fam = strtoul(p + 1, &end, 0);
	if (errno || end == p + 1 || *end != ':' || fam > 0xffff)
		goto bad;
	p = end;
	model = strtoul(p + 1, &end, 0);
	if (errno || end == p + 1 || *end || model > 0xffff)
		goto bad;
	m->cpu_family = (unsigned)fam;
	m->cpu_model = (unsigned)model;
	m->have_model = 1;
	if (!strcasecmp(vendor, "arm")) {
		snprintf(m->vendor, sizeof(m->vendor), "Arm (implementer %#lx)",
			 fam);
		m->family = STAT_FAM_ARM;
	} else {
		snprintf(m->vendor, sizeof(m->vendor), "%s", vendor);
		m->family = family_of_vendor(vendor);
		if (m->family == STAT_FAM_OTHER)
			goto bad;
	}
	return 0;
bad:
	snprintf(m->pin_error, sizeof(m->pin_error), "UPROFILE_CPU '%.32s' is "
		 "not VENDOR:FAMILY:MODEL (GenuineIntel, AuthenticAMD, ARM)",
		 pin);
	m->have_model = 0;
	return 0;
}

static void probe_sysfs(struct machine *m)
{
	DIR *dir = opendir(SYSFS_PMUS);
	struct dirent *e;
	long v;

	if (!dir)
		return;
	while ((e = readdir(dir))) {
		const char *n = e->d_name;

		if (n[0] == '.')
			continue;
		if (!read_sysfs_int(n, "type", &v) && v == PERF_TYPE_RAW)
			m->hw_pmu = 1;
		if (!strcmp(n, "ibs_op"))
			snprintf(m->mech_pmu[STAT_PM_IBS], 32, "%.31s", n);
		else if (!strcmp(n, "ibs_fetch"))
			m->ibs_fetch = 1;
		else if (!strncmp(n, "arm_spe", 7))
			snprintf(m->mech_pmu[STAT_PM_SPE], 32, "%.31s", n);
		else if ((!strcmp(n, "cpu") || !strcmp(n, "cpu_core")) &&
			 m->family == STAT_FAM_INTEL &&
			 !read_sysfs_int(n, "caps/max_precise", &v) && v > 0)
			snprintf(m->mech_pmu[STAT_PM_PEBS], 32, "%.31s", n);
	}
	closedir(dir);
}

static void probe_libpfm(struct machine *m)
{
	pfm_pmu_info_t pi;
	int p;

	/* A pinned CPU sees no tables but those LIBPFM_FORCE_PMU names. */
	if (m->pinned && !getenv("LIBPFM_FORCE_PMU"))
		return;
	if (pfm_initialize() != PFM_SUCCESS)
		return;
	m->pfm_ok = 1;
	pfm_for_all_pmus(p) {
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS ||
		    !pi.is_present || pi.type != PFM_PMU_TYPE_CORE)
			continue;
		snprintf(m->pfm_pmu, sizeof(m->pfm_pmu), "%s", pi.name);
		m->pfm_id = p;
		snprintf(m->pfm_desc, sizeof(m->pfm_desc), "%s", pi.desc);
		/* LIBPFM_FORCE_PMU (tests) names the family too, unless
		 * UPROFILE_CPU has named it. */
		if (!m->pinned && family_of_desc(pi.desc) != STAT_FAM_OTHER)
			m->family = family_of_desc(pi.desc);
		break;
	}
}

/* The own table for m's CPU, when libpfm4 has none for it. */
static const struct stat_own_model *own_model(const struct machine *m)
{
	size_t i;

	if (m->pfm_pmu[0] || !m->have_model)
		return NULL;
	for (i = 0; i < stat_own_models_len; i++) {
		const struct stat_own_model *o = &stat_own_models[i];

		if (o->family == m->family &&
		    (!o->cpu_family || o->cpu_family == m->cpu_family))
			return o;
	}
	return NULL;
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

/*
 * This machine, probed on first use.  A process-wide cache: the CPU, its
 * PMUs and libpfm4's tables (pfm_initialize is process-wide itself) do not
 * change while we run, and resolving one statistic asks for them often.
 */
static const struct machine *machine(void)
{
	static struct machine m;

	if (!m.probed) {
		m.probed = 1;
		if (probe_pinned(&m))
			probe_cpuinfo(&m);
		probe_libpfm(&m);
		probe_sysfs(&m);
		m.own = own_model(&m);
	}
	return &m;
}

const struct stat_own_model *stat_own_model_here(void)
{
	return machine()->own;
}

void stat_machine_describe(char *buf, size_t len)
{
	const struct machine *m = machine();
	char mechs[128] = "", model[160] = "";
	size_t used = 0;
	int k;

	for (k = 0; k < STAT_NPM_MECHS; k++)
		if (m->mech_pmu[k][0])
			used += snprintf(mechs + used, sizeof(mechs) - used,
					 "%s%s (%s)", used ? ", " : "",
					 mech_name[k], m->mech_pmu[k]);
	if (m->pin_error[0])
		snprintf(model, sizeof(model), ", %.120s", m->pin_error);
	else if (m->have_model && m->family == STAT_FAM_ARM)
		snprintf(model, sizeof(model), ", part %#x%s", m->cpu_model,
			 m->pinned ? ", pinned by UPROFILE_CPU" : "");
	else if (m->have_model)
		snprintf(model, sizeof(model), ", family %#x model %#x%s",
			 m->cpu_family, m->cpu_model,
			 m->pinned ? ", pinned by UPROFILE_CPU" : "");
	snprintf(buf, len, "this machine: %s CPU (%s%s); native events: %s%s"
		 "%s%s; hardware PMU: %s; instruction sampling: %s",
		 family_name[m->family], m->vendor, model,
		 m->pfm_pmu[0] ? "libpfm4 " : m->own ? "own table " : "none",
		 m->pfm_pmu[0] ? m->pfm_pmu : m->own ? m->own->name : "",
		 m->pfm_pmu[0] || m->own ? " = " : "",
		 m->pfm_pmu[0] ? m->pfm_desc : m->own ? m->own->desc : "",
		 m->hw_pmu ? "yes" : "none in " SYSFS_PMUS,
		 used ? mechs : "none (no ibs_op, arm_spe or PEBS-capable "
		 "cpu PMU)");
}

/* ---- encodings ---- */

struct event {
	uint32_t type;
	uint64_t config, config1, config2;
	char name[96];
};

/* A libpfm4 name, as typed or qualified with the core PMU here. */
static int encode_native(const char *name, struct event *ev)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int ret;

	if (!machine()->pfm_ok)
		return PFM_ERR_NOINIT;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = &attr;
	arg.fstr = &fstr;
	ret = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT,
					&arg);
	if (ret != PFM_SUCCESS)
		return ret;
	ev->type = attr.type;
	ev->config = attr.config;
	ev->config1 = attr.config1;
	ev->config2 = attr.config2;
	/* "icl::INST_RETIRED:ANY_P:e=0:...": keep the name, not the
	 * defaults libpfm4 spells out after it. */
	snprintf(ev->name, sizeof(ev->name), "%s", fstr ? fstr : name);
	if (strchr(ev->name, '=')) {
		char *eq = strchr(ev->name, '=');

		while (eq > ev->name && eq[-1] != ':')
			eq--;
		if (eq > ev->name)
			eq[-1] = '\0';
	}
	free(fstr);
	return 0;
}

/* Give fn the name EVENT or EVENT:UMASK when libpfm4 encodes it here (an
 * event whose unit masks have no default needs one). */
static int native_name(const char *event, const char *umask,
		       stat_name_fn fn, void *arg)
{
	struct event ev;
	char name[256], full[300];

	snprintf(name, sizeof(name), "%s%s%s", event, umask ? ":" : "",
		 umask ? umask : "");
	snprintf(full, sizeof(full), "%.31s::%.255s", machine()->pfm_pmu,
		 name);
	if (encode_native(full, &ev))
		return 0;
	fn(name, arg);
	return 1;
}

int stat_native_names(stat_name_fn fn, void *arg)
{
	const struct machine *m = machine();
	pfm_pmu_info_t pi;
	int e, n = 0;

	if (!m->pfm_pmu[0])
		return 0;
	memset(&pi, 0, sizeof(pi));
	pi.size = sizeof(pi);
	if (pfm_get_pmu_info(m->pfm_id, &pi) != PFM_SUCCESS)
		return 0;
	for (e = pi.first_event; e != -1; e = pfm_get_event_next(e)) {
		pfm_event_info_t ei;
		int a;

		memset(&ei, 0, sizeof(ei));
		ei.size = sizeof(ei);
		if (pfm_get_event_info(e, PFM_OS_NONE, &ei) != PFM_SUCCESS)
			continue;
		n += native_name(ei.name, NULL, fn, arg);
		for (a = 0; a < ei.nattrs; a++) {
			pfm_event_attr_info_t ai;

			memset(&ai, 0, sizeof(ai));
			ai.size = sizeof(ai);
			if (pfm_get_event_attr_info(e, a, PFM_OS_NONE, &ai) ==
			    PFM_SUCCESS && ai.type == PFM_ATTR_UMASK)
				n += native_name(ei.name, ai.name, fn, arg);
		}
	}
	return n;
}

/* The first alternative of "A|B|C" that encodes for the core PMU here. */
static int encode_alternatives(const char *list, struct event *ev)
{
	const char *p = list;
	const struct machine *m = machine();
	int ret = PFM_ERR_NOTFOUND;

	if (!m->pfm_pmu[0])
		return PFM_ERR_NOTFOUND;
	while (p && *p) {
		const char *bar = strchr(p, '|');
		int n = bar ? (int)(bar - p) : (int)strlen(p);
		char name[256];

		snprintf(name, sizeof(name), "%.31s::%.*s", m->pfm_pmu,
			 n > 200 ? 200 : n, p);
		ret = encode_native(name, ev);
		if (!ret)
			return 0;
		p = bar ? bar + 1 : NULL;
	}
	return ret;
}

/* perf's name for a generic event into buf, "" when it has none. */
static void generic_name(uint32_t type, uint64_t config, char *buf,
			 size_t len)
{
	static const char *const hw[] = {
		"PERF_COUNT_HW_CPU_CYCLES", "PERF_COUNT_HW_INSTRUCTIONS",
		"PERF_COUNT_HW_CACHE_REFERENCES", "PERF_COUNT_HW_CACHE_MISSES",
		"PERF_COUNT_HW_BRANCH_INSTRUCTIONS",
		"PERF_COUNT_HW_BRANCH_MISSES", "PERF_COUNT_HW_BUS_CYCLES",
		"PERF_COUNT_HW_STALLED_CYCLES_FRONTEND",
		"PERF_COUNT_HW_STALLED_CYCLES_BACKEND",
		"PERF_COUNT_HW_REF_CPU_CYCLES",
	};
	static const char *const sw[] = {
		"PERF_COUNT_SW_CPU_CLOCK", "PERF_COUNT_SW_TASK_CLOCK",
		"PERF_COUNT_SW_PAGE_FAULTS", "PERF_COUNT_SW_CONTEXT_SWITCHES",
		"PERF_COUNT_SW_CPU_MIGRATIONS", "PERF_COUNT_SW_PAGE_FAULTS_MIN",
		"PERF_COUNT_SW_PAGE_FAULTS_MAJ",
		"PERF_COUNT_SW_ALIGNMENT_FAULTS",
		"PERF_COUNT_SW_EMULATION_FAULTS",
	};
	static const char *const cache[] = {
		"L1D", "L1I", "LL", "DTLB", "ITLB", "BPU", "NODE",
	};
	static const char *const op[] = { "READ", "WRITE", "PREFETCH" };
	static const char *const res[] = { "ACCESS", "MISS" };

	if (type == PERF_TYPE_HARDWARE && config < sizeof(hw) / sizeof(*hw))
		snprintf(buf, len, "%s", hw[config]);
	else if (type == PERF_TYPE_SOFTWARE &&
		 config < sizeof(sw) / sizeof(*sw))
		snprintf(buf, len, "%s", sw[config]);
	else if (type == PERF_TYPE_HW_CACHE && (config & 0xff) < 7 &&
		 ((config >> 8) & 0xff) < 3 && ((config >> 16) & 0xff) < 2)
		snprintf(buf, len, "PERF_COUNT_HW_CACHE_%s %s %s",
			 cache[config & 0xff], op[(config >> 8) & 0xff],
			 res[(config >> 16) & 0xff]);
	else if (len)
		buf[0] = '\0';
}

/* The events d may be measured with on this CPU, best first. */
static size_t candidates(const struct stat_def *d, struct event *ev,
			 size_t max)
{
	const struct machine *m = machine();
	size_t n = 0;

	if (d->generic && n < max) {
		ev[n].type = d->type;
		ev[n].config = d->config;
		ev[n].config1 = ev[n].config2 = 0;
		generic_name(d->type, d->config, ev[n].name,
			     sizeof(ev[n].name));
		n++;
	}
	if (d->kind == STAT_HW && m->family < STAT_NFAMILIES &&
	    d->native[m->family] && n < max &&
	    !encode_alternatives(d->native[m->family], &ev[n]))
		n++;
	if (d->kind == STAT_HW && n < max) {
		const struct stat_own_event *o = own_event(m->own, d->name);

		if (o) {
			memset(&ev[n], 0, sizeof(ev[n]));
			ev[n].type = PERF_TYPE_RAW;
			ev[n].config = o->config;
			snprintf(ev[n].name, sizeof(ev[n].name), "%s::%s",
				 m->own->name, o->event);
			n++;
		}
	}
	return n;
}

static const char *errno_name(int err)
{
	const char *s = strerrorname_np(err);

	return s ? s : strerror(err);
}

#define NO_PMU_LONG "this machine has no hardware performance counters " \
	"(no PMU in " SYSFS_PMUS ": a VM or container without a virtual PMU, " \
	"or a CPU the kernel has no PMU driver for)"

/*
 * Why an event of kind k cannot be opened here (probe returned -err);
 * needs: the events it would take, for the long form.
 */
static void probe_reason(enum stat_kind k, int err, const char *needs,
			 char *buf, size_t len, int brief)
{
	long paranoid = -1;

	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case EINVAL:
		if (k == STAT_HW && !machine()->hw_pmu)
			snprintf(buf, len, brief ? "no hardware PMU" :
				 NO_PMU_LONG "; it needs %s", needs);
		else
			snprintf(buf, len, brief ? "CPU lacks it" :
				 "this CPU or kernel does not support %s "
				 "(perf_event_open: %s)", needs,
				 errno_name(err));
		return;
	case EACCES:
	case EPERM:
		if (sysctl_read_long("perf_event_paranoid", &paranoid))
			paranoid = -1;
		snprintf(buf, len, brief ? "needs privilege" :
			 "permission denied: needs privilege "
			 "(perf_event_paranoid is %ld)", paranoid);
		return;
	default:
		snprintf(buf, len, "%s (perf_event_open: %s)",
			 brief ? "cannot open" : "the event cannot be opened",
			 strerror(err));
	}
}

/*
 * Why aggregate statistic d has no event on this CPU at all.  Without a
 * PMU (and with a probe: not --dry-run) that comes first: it is what the
 * user can act on.
 */
static void no_event_reason(const struct stat_def *d, int probing,
			    char *buf, size_t len, int brief)
{
	const struct machine *m = machine();
	const char *fam = family_name[m->family];
	char model[64] = "", lack[256];
	int unknown_model = m->family < STAT_NFAMILIES &&
			    d->native[m->family] && !m->pfm_pmu[0];

	if (m->have_model)
		snprintf(model, sizeof(model), m->family == STAT_FAM_ARM ?
			 " (part %#x)" : " (family %#x model %#x)",
			 m->family == STAT_FAM_ARM ? m->cpu_model :
			 m->cpu_family, m->cpu_model);
	if (unknown_model)
		snprintf(lack, sizeof(lack), "%s on this %s CPU%s, which "
			 "neither libpfm4 nor this suite's own tables can "
			 "encode", d->native[m->family], fam, model);
	else
		snprintf(lack, sizeof(lack), "%s CPUs have no such event%s%s",
			 fam, d->note ? ": " : "", d->note ? d->note : "");
	if (probing && d->kind == STAT_HW && !m->hw_pmu)
		snprintf(buf, len, brief ? "no hardware PMU" :
			 NO_PMU_LONG "; it would need %s", lack);
	else if (brief)
		snprintf(buf, len, unknown_model ? "CPU model unknown" :
			 "no %s event", fam);
	else
		snprintf(buf, len, "%s", lack);
}

/* ---- profile-me ---- */

static int mech_provides(const struct stat_def *d, int k)
{
	return d->pm_src[k] != NULL;
}

/* The mechanism here that provides profile-me statistic d, or -1. */
static int pm_mech_here(const struct stat_def *d)
{
	const struct machine *m = machine();
	int k;

	for (k = 0; k < STAT_NPM_MECHS; k++) {
		if (!mech_provides(d, k) || !m->mech_pmu[k][0])
			continue;
		if (k == STAT_PM_IBS && !strncmp(d->pm_src[k], "fetch:", 6) &&
		    !m->ibs_fetch)
			continue;
		return k;
	}
	return -1;
}

/* Which mechanisms record d: "AMD IBS, Intel PEBS or Arm SPE". */
static void pm_needs(const struct stat_def *d, char *buf, size_t len,
		     int brief)
{
	static const char *const brief_name[] = {
		[STAT_PM_IBS] = "IBS", [STAT_PM_PEBS] = "PEBS",
		/* SPE packets are decoded, but collecting them from the
		 * AUX area is not implemented (docs/profileme.md). */
		[STAT_PM_SPE] = "SPE*",
	};
	size_t used = 0;
	int k, n = 0, total = 0;

	for (k = 0; k < STAT_NPM_MECHS; k++)
		total += mech_provides(d, k);
	buf[0] = '\0';
	for (k = 0; k < STAT_NPM_MECHS; k++) {
		if (!mech_provides(d, k))
			continue;
		n++;
		if (brief) {
			used += snprintf(buf + used, len - used, "%s%s",
					 n == 1 ? "" : "/", brief_name[k]);
			if (used >= len)
				break;
			continue;
		}
		used += snprintf(buf + used, len - used, "%s%s%s",
				 n == 1 ? "" : n == total ? " or " : ", ",
				 mech_name[k],
				 k == STAT_PM_IBS &&
				 !strncmp(d->pm_src[k], "fetch:", 6) ?
				 " fetch" : k == STAT_PM_IBS ? " op" :
				 k == STAT_PM_SPE ? " (not collected yet)" : "");
		if (used >= len)
			break;
	}
}

static int pm_event(const struct stat_def *d, int k, struct event *ev)
{
	const struct machine *m = machine();
	long type;

	memset(ev, 0, sizeof(*ev));
	if (k == STAT_PM_PEBS) {
		/* PEBS samples a named event precisely; the engine sets
		 * precise_ip.  A record field (retire latency) rides on
		 * retired instructions. */
		if (encode_alternatives(d->pm_src[k], ev) &&
		    encode_alternatives("INST_RETIRED:PREC_DIST|"
					"INST_RETIRED:ANY_P", ev))
			return -1;
		return 0;
	}
	if (read_sysfs_int(k == STAT_PM_IBS &&
			   !strncmp(d->pm_src[k], "fetch:", 6) ? "ibs_fetch" :
			   m->mech_pmu[k], "type", &type))
		return -1;
	ev->type = (uint32_t)type;
	snprintf(ev->name, sizeof(ev->name), "%s: %s", m->mech_pmu[k],
		 d->pm_src[k]);
	return 0;
}

/* 0 and *mech, or why d cannot be measured here (brief or long). */
static int pm_reason(const struct stat_def *d, int *mech, char *buf,
		     size_t len, int brief)
{
	char needs[96];

	*mech = pm_mech_here(d);
	if (*mech == STAT_PM_SPE) {
		snprintf(buf, len, brief ? "SPE not collected yet" :
			 "Arm SPE records it, but collecting SPE data (the AUX "
			 "area) is not implemented yet; its packets are "
			 "decoded (docs/profileme.md)");
		return -1;
	}
	if (*mech >= 0)
		return 0;
	pm_needs(d, needs, sizeof(needs), brief);
	if (!needs[0])
		snprintf(buf, len, brief ? "no hardware has it" :
			 "no current hardware records it per instruction: %s",
			 d->note);
	else
		snprintf(buf, len, brief ? "needs %s" :
			 "it needs instruction sampling (%s) and there is none "
			 "in " SYSFS_PMUS, needs);
	return -1;
}

/* ---- resolution ---- */

/* A comma-separated list of the statistics available here, in buf. */
static void stat_available(stat_probe_fn probe, void *arg, unsigned modes,
			   char *buf, size_t len)
{
	size_t i, used = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < stat_table_len; i++) {
		const struct stat_def *d = &stat_table[i], *sub = NULL;
		char why[160];
		int n;

		if (stat_unavailable(d, modes, probe, arg, &sub, why,
				     sizeof(why)))
			continue;
		n = snprintf(buf + used, len - used, "%s%s%s%s%s",
			     used ? ", " : "", d->name,
			     sub ? " (as " : "", sub ? sub->name : "",
			     sub ? ")" : "");
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += n;
	}
}

/*
 * Resolve a table entry (not derived): 0 with the event in out, or -1
 * with the reason in why.
 */
/*
 * Nonzero, with why, when d happens only in kernel mode and modes leave
 * it out: perf's ":u" opens such an event and records nothing.
 */
static int kernel_only_reason(const struct stat_def *d, unsigned modes,
			      char *why, size_t len, int brief)
{
	if (!d->kernel_only || (modes & STAT_MODE_KERNEL))
		return 0;
	if (brief)
		snprintf(why, len, "kernel only, use :k");
	else
		snprintf(why, len, "it happens only in kernel mode; use "
			 "'%s:k' (with -g, its call stacks show the user "
			 "code that led there)", d->name);
	return 1;
}

static int resolve_def(const struct stat_def *d, unsigned modes,
		       stat_probe_fn probe, void *arg, struct event *out,
		       int *mech, char *why, size_t len, int brief)
{
	struct event ev[3];
	char needs[300];
	size_t n, i, used = 0;
	int err = 0;

	*mech = -1;
	if (kernel_only_reason(d, modes, why, len, brief))
		return -1;
	if (d->kind == STAT_PROFILEME) {
		if (pm_reason(d, mech, why, len, brief))
			return -1;
		if (pm_event(d, *mech, out)) {
			snprintf(why, len, "cannot read the %s PMU type",
				 mech_name[*mech]);
			return -1;
		}
		return 0;
	}
	n = candidates(d, ev, 3);
	if (!n) {
		no_event_reason(d, probe != NULL, why, len, brief);
		return -1;
	}
	for (i = 0; i < n; i++) {
		int e = probe ? probe(ev[i].type, ev[i].config, modes, arg) :
			0;

		if (!e) {
			*out = ev[i];
			return 0;
		}
		if (!err || e == -EACCES || e == -EPERM)
			err = -e;
	}
	for (i = 0; i < n; i++)
		used += snprintf(needs + used, sizeof(needs) - used, "%s%s",
				 i ? " or " : "", ev[i].name);
	probe_reason(d->kind, err, needs, why, len, brief);
	return -1;
}

static int resolve_derived(const struct stat_def *d, unsigned modes,
			   stat_probe_fn probe, void *arg, struct event *out,
			   int *mech, char *why, size_t len, int brief)
{
	const struct stat_def *in[2] = { lookup_pm(d->num), lookup_pm(d->den) };
	char inner[256];
	int k, m2;

	for (k = 0; k < 2; k++) {
		if (!in[k])
			continue;
		if (resolve_def(in[k], modes, probe, arg, out, k ? &m2 : mech,
				inner, sizeof(inner), brief)) {
			if (brief)
				snprintf(why, len, "%s", inner);
			else
				snprintf(why, len, "it is derived from "
					 "profile-me '%s', and %s",
					 in[k]->name, inner);
			return -1;
		}
	}
	/* The numerator's event: the engine collects the pair. */
	return resolve_def(in[0], modes, probe, arg, out, mech, why, len,
			   brief);
}

const char *stat_unavailable(const struct stat_def *d, unsigned modes,
			     stat_probe_fn probe, void *arg,
			     const struct stat_def **sub, char *why, size_t len)
{
	struct event ev;
	int mech, r;

	*sub = NULL;
	r = d->kind == STAT_DERIVED ?
	    resolve_derived(d, modes, probe, arg, &ev, &mech, why, len, 1) :
	    resolve_def(d, modes, probe, arg, &ev, &mech, why, len, 1);
	if (!r)
		return NULL;
	if (d->substitute) {
		const struct stat_def *s = stat_lookup(d->substitute);
		char ignore[160];

		if (s && !resolve_def(s, modes, probe, arg, &ev, &mech, ignore,
				      sizeof(ignore), 1)) {
			*sub = s;
			return NULL;
		}
	}
	return why;
}

static int parse_modes(const char *mods, unsigned *modes)
{
	unsigned m = 0;

	for (; *mods; mods++) {
		switch (*mods) {
		case 'u': m |= STAT_MODE_USER; break;
		case 'k': m |= STAT_MODE_KERNEL; break;
		case 'h': m |= STAT_MODE_HV; break;
		default: return -1;
		}
	}
	if (!m)
		return -1;
	*modes = m;
	return 0;
}

static int is_raw(const char *name)
{
	size_t i;

	if (name[0] != 'r' || !name[1] || strlen(name) > 17)
		return 0;
	for (i = 1; name[i]; i++)
		if (!isxdigit((unsigned char)name[i]))
			return 0;
	return 1;
}

/*
 * Made-up entries for raw and native events: they live until exit.  The
 * list is process-wide because stat_choice.def promises that lifetime
 * (a run's statistics take their names from it, and a statistic given
 * twice is found by comparing defs); it gives each name one entry,
 * however often it is resolved.
 */
static const struct stat_def *native_def(const char *name, const char *desc)
{
	static struct native_def {
		struct native_def *next;
		struct stat_def def;
		char name[64], desc[160];
	} *list;
	struct native_def *n;

	for (n = list; n; n = n->next)
		if (!strcmp(n->name, name))
			return &n->def;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	snprintf(n->name, sizeof(n->name), "%s", name);
	snprintf(n->desc, sizeof(n->desc), "%s", desc);
	n->def.name = n->name;
	n->def.desc = n->desc;
	n->def.kind = STAT_NATIVE;
	n->next = list;
	list = n;
	return &n->def;
}

/* Small edit distance (optimal string alignment), capped at 9. */
static unsigned distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	unsigned d[33][33];

	if (la > 32 || lb > 32)
		return 9;
	for (i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			unsigned c = tolower((unsigned char)a[i - 1]) !=
				     tolower((unsigned char)b[j - 1]);
			unsigned v = d[i - 1][j - 1] + c;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb] > 9 ? 9 : d[la][lb];
}

/* "did you mean 'cycles'? " for names close to a table name or alias. */
static void suggest(const char *name, char *buf, size_t len)
{
	size_t i, used = 0;
	int n = 0;
	unsigned limit = strlen(name) <= 4 ? 1 : 2;

	buf[0] = '\0';
	for (i = 0; i < stat_table_len && n < 3; i++) {
		const struct stat_def *d = &stat_table[i];
		const char *best = NULL, *p = d->aliases;
		unsigned bd = distance(name, d->name);
		char alias[64];

		if (bd <= limit)
			best = d->name;
		while (!best && p && *p) {
			size_t l = strcspn(p, ",");

			snprintf(alias, sizeof(alias), "%.*s", (int)l, p);
			if (distance(name, alias) <= limit)
				best = alias;
			p = p[l] ? p + l + 1 : NULL;
		}
		if (!best)
			continue;
		used += snprintf(buf + used, len - used, "%s'%s%s'",
				 n ? ", " : "did you mean ",
				 d->kind == STAT_PROFILEME &&
				 stat_def_lookup(d->name, strlen(d->name), 0) ?
				 "pm_" : "", best);
		n++;
		if (used >= len)
			return;
	}
	if (n)
		snprintf(buf + used, len - used, "? ");
}

int stat_resolve(const char *text, unsigned default_modes,
		 stat_probe_fn probe, void *arg, struct stat_choice *out)
{
	char name[128], why[320], avail[512], hint[160];
	const char *colon = strrchr(text, ':');
	const struct stat_def *d;
	struct event ev;
	unsigned modes = default_modes;
	size_t n;
	int mech = -1, r;

	memset(out, 0, sizeof(*out));
	out->pm_mech = -1;
	snprintf(out->requested, sizeof(out->requested), "%s", text);
	/* A trailing ":u", ":k", ":h" (or ":uk"...) is a modifier. */
	n = strlen(text);
	if (colon && colon[1] && !parse_modes(colon + 1, &modes))
		n = (size_t)(colon - text);
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	snprintf(name, sizeof(name), "%.*s", (int)n, text);

	d = n ? stat_lookup(name) : NULL;
	if (!d && n) {
		int ret = -1;

		memset(&ev, 0, sizeof(ev));
		if (is_raw(name)) {
			ev.type = PERF_TYPE_RAW;
			ev.config = strtoull(name + 1, NULL, 16);
			snprintf(ev.name, sizeof(ev.name), "raw %#llx",
				 (unsigned long long)ev.config);
			ret = 0;
		} else {
			ret = encode_native(name, &ev);
		}
		if (!ret) {
			out->def = out->asked = native_def(name, ev.name);
			if (!out->def)
				return prof_fail(PROF_ENOMEM, "out of memory");
			goto found;
		}
	}
	if (!d) {
		size_t first = strcspn(name, ":");

		if (first < n && lookup_n(name, first))
			return prof_fail(PROF_ENOSTAT, "bad modifier in '%s': "
					 "use :u, :k, :h or a combination",
					 text);
		suggest(name, hint, sizeof(hint));
		stat_available(probe, arg, default_modes, avail,
			       sizeof(avail));
		return prof_fail(PROF_ENOSTAT,
				 "unknown statistic '%s' (not in the table, "
				 "not rNNNN, not a libpfm4 event of this CPU); "
				 "%savailable here: %s", name, hint, avail);
	}
	out->asked = out->def = d;
	/* Not "available here: ..." after it: no other machine has it. */
	if (kernel_only_reason(d, modes, why, sizeof(why), 0))
		return prof_fail(PROF_EUNAVAIL, "statistic '%s' counts "
				 "nothing in %s mode: %s", text,
				 modes & STAT_MODE_USER ? "user" : "hypervisor",
				 why);
	r = d->kind == STAT_DERIVED ?
	    resolve_derived(d, modes, probe, arg, &ev, &mech, why,
			    sizeof(why), 0) :
	    resolve_def(d, modes, probe, arg, &ev, &mech, why, sizeof(why),
			0);
	if (r && d->substitute) {
		const struct stat_def *s = stat_lookup(d->substitute);
		char ignore[320];

		if (s && !resolve_def(s, modes, probe, arg, &ev, &mech,
				      ignore, sizeof(ignore), 0)) {
			out->def = s;
			out->substitute = 1;
			r = 0;
		}
	}
	if (r) {
		stat_available(probe, arg, default_modes, avail,
			       sizeof(avail));
		return prof_fail(PROF_EUNAVAIL,
				 "statistic '%s' is not available here: %s; "
				 "available here: %s", text, why, avail);
	}
found:
	out->type = ev.type;
	out->config = ev.config;
	out->config1 = ev.config1;
	out->config2 = ev.config2;
	out->modes = modes;
	out->pm_mech = mech;
	snprintf(out->event, sizeof(out->event), "%s", ev.name);
	if (out->def->kind == STAT_NATIVE && probe) {
		int e = probe(ev.type, ev.config, modes, arg);

		if (e) {
			probe_reason(STAT_HW, -e, ev.name, why, sizeof(why),
				     0);
			return prof_fail(PROF_EUNAVAIL, "statistic '%s' (%s) "
					 "is not available here: %s", text,
					 ev.name, why);
		}
	}
	return 0;
}

static const char *type_text(uint32_t type)
{
	switch (type) {
	case PERF_TYPE_HARDWARE: return "hardware";
	case PERF_TYPE_SOFTWARE: return "software";
	case PERF_TYPE_TRACEPOINT: return "tracepoint";
	case PERF_TYPE_HW_CACHE: return "hw-cache";
	case PERF_TYPE_RAW: return "raw";
	case PERF_TYPE_BREAKPOINT: return "breakpoint";
	}
	return "dynamic PMU";
}

void stat_choice_describe(const struct stat_choice *c, char *buf,
			  size_t len)
{
	size_t used;

	used = (size_t)snprintf(buf, len, "'%s' -> %s%s%stype %u (%s) config "
				"%#llx", c->requested,
				c->substitute ? "substitute " : "",
				c->substitute ? c->def->name : "",
				c->substitute ? ", " : "", c->type,
				type_text(c->type),
				(unsigned long long)c->config);
	if (used < len && c->config1)
		used += snprintf(buf + used, len - used, " config1 %#llx",
				 (unsigned long long)c->config1);
	if (used < len && c->event[0])
		used += snprintf(buf + used, len - used, " = %s", c->event);
	if (used < len && c->pm_mech >= 0)
		used += snprintf(buf + used, len - used, " via %s",
				 mech_name[c->pm_mech]);
	if (used < len)
		snprintf(buf + used, len - used, ", %s mode%s",
			 stat_modes_text(c->modes),
			 c->asked && c->asked->kind == STAT_DERIVED ?
			 ", derived at report time" : "");
}
