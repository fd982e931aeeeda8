/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "stats.h"

#define HW(n, al, d, cfg, sub) { .name = n, .aliases = al, .desc = d, \
	.kind = STAT_HW, .type = PERF_TYPE_HARDWARE, .config = cfg, \
	.substitute = sub }
#define SW(n, al, d, cfg) { .name = n, .aliases = al, .desc = d, \
	.kind = STAT_SW, .type = PERF_TYPE_SOFTWARE, .config = cfg }

/*
 * Tru64 names first where the originals had one (retinst, mispredict),
 * perf's names as aliases.  Only "cycles" has a substitute: it is the
 * default statistic and a time-based sample is its honest stand-in; every
 * other hardware statistic fails where there is no PMU, with alternatives.
 */
#define NATIVE(n, al, d, list) { .name = n, .aliases = al, .desc = d, \
	.kind = STAT_NATIVE, .type = PERF_TYPE_RAW, .natives = list }

/*
 * Intel's MACHINE_CLEARS.COUNT (event 0xc3, umask 0x01, edge, cmask 1)
 * counts pipeline flushes for memory ordering, self-modifying code and
 * similar: the nearest thing to the Alpha's replay traps.
 */
static const struct stat_native replay_trap_natives[] = {
	{ "GenuineIntel", "MACHINE_CLEARS.COUNT", 0x10401c3 },
	{ 0 }
};

const struct stat_def stat_table[] = {
	HW("cycles", "cpu-cycles",
	   "processor cycles (the default)",
	   PERF_COUNT_HW_CPU_CYCLES, "cpu-clock"),
	HW("retinst", "instructions,retired,retire",
	   "retired instructions",
	   PERF_COUNT_HW_INSTRUCTIONS, NULL),
	HW("branches", "branch-instructions",
	   "retired branch instructions",
	   PERF_COUNT_HW_BRANCH_INSTRUCTIONS, NULL),
	HW("mispredict", "branch-misses",
	   "mispredicted branches",
	   PERF_COUNT_HW_BRANCH_MISSES, NULL),
	HW("cache-references", NULL,
	   "last-level cache accesses",
	   PERF_COUNT_HW_CACHE_REFERENCES, NULL),
	HW("cache-misses", NULL,
	   "last-level cache misses",
	   PERF_COUNT_HW_CACHE_MISSES, NULL),
	NATIVE("replay_trap", "replay,machine-clears",
	       "pipeline replays (Intel: machine clears)", replay_trap_natives),
	SW("cpu-clock", NULL,
	   "CPU time, sampled by a high-resolution timer",
	   PERF_COUNT_SW_CPU_CLOCK),
	SW("task-clock", NULL,
	   "CPU time of the profiled tasks",
	   PERF_COUNT_SW_TASK_CLOCK),
	SW("page-faults", "faults",
	   "page faults",
	   PERF_COUNT_SW_PAGE_FAULTS),
	SW("minor-faults", NULL,
	   "page faults served without I/O",
	   PERF_COUNT_SW_PAGE_FAULTS_MIN),
	SW("major-faults", NULL,
	   "page faults that needed I/O",
	   PERF_COUNT_SW_PAGE_FAULTS_MAJ),
	SW("context-switches", "cs",
	   "context switches",
	   PERF_COUNT_SW_CONTEXT_SWITCHES),
	SW("cpu-migrations", "migrations",
	   "moves of a task to another CPU",
	   PERF_COUNT_SW_CPU_MIGRATIONS),
};

const size_t stat_table_len = sizeof(stat_table) / sizeof(stat_table[0]);

static int name_in_list(const char *name, size_t n, const char *list)
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

static const struct stat_def *lookup_n(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < stat_table_len; i++) {
		const struct stat_def *d = &stat_table[i];

		if ((strlen(d->name) == n && !strncasecmp(d->name, name, n)) ||
		    name_in_list(name, n, d->aliases))
			return d;
	}
	return NULL;
}

const struct stat_def *stat_lookup(const char *name)
{
	return lookup_n(name, strlen(name));
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

static const char *cpu_vendor(void)
{
	static char vendor[64];
	FILE *f;
	char line[256];

	if (vendor[0])
		return vendor;
	snprintf(vendor, sizeof(vendor), "unknown");
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return vendor;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "vendor_id : %63s", vendor) == 1)
			break;
	fclose(f);
	return vendor;
}

/* The concrete event of d on this CPU; 0, or -1 when it has none. */
static int event_of(const struct stat_def *d, uint32_t *type,
		    uint64_t *config)
{
	const struct stat_native *n;

	*type = d->type;
	*config = d->config;
	if (d->kind != STAT_NATIVE)
		return 0;
	for (n = d->natives; n && n->vendor; n++)
		if (!strcmp(n->vendor, cpu_vendor())) {
			*config = n->config;
			return 0;
		}
	return -1;
}

static int probe_def(const struct stat_def *d, unsigned modes,
		     stat_probe_fn probe, void *arg)
{
	uint32_t type;
	uint64_t config;

	if (event_of(d, &type, &config))
		return -ENOENT;
	return probe ? probe(type, config, modes, arg) : 0;
}

void stat_available(stat_probe_fn probe, void *arg, unsigned modes,
		    char *buf, size_t len)
{
	size_t i, used = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < stat_table_len; i++) {
		const struct stat_def *d = &stat_table[i], *sub = NULL;
		int n;

		if (probe_def(d, modes, probe, arg)) {
			sub = d->substitute ? stat_lookup(d->substitute) : NULL;
			if (!sub || probe_def(sub, modes, probe, arg))
				continue;
		}
		n = snprintf(buf + used, len - used, "%s%s%s%s%s",
			     used ? ", " : "", d->name,
			     sub ? " (as " : "", sub ? sub->name : "",
			     sub ? ")" : "");
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += n;
	}
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

int stat_resolve(const char *text, unsigned default_modes,
		 stat_probe_fn probe, void *arg, struct stat_choice *out)
{
	const char *colon = strchr(text, ':');
	size_t n = colon ? (size_t)(colon - text) : strlen(text);
	const struct stat_def *d;
	char avail[512];
	unsigned modes = default_modes;
	int err;

	memset(out, 0, sizeof(*out));
	snprintf(out->requested, sizeof(out->requested), "%s", text);
	d = lookup_n(text, n);
	if (!d || n == 0) {
		stat_available(probe, arg, default_modes, avail, sizeof(avail));
		return prof_fail(PROF_ENOSTAT,
				 "unknown statistic '%.*s'; available here: %s",
				 (int)n, text, avail);
	}
	if (colon && parse_modes(colon + 1, &modes))
		return prof_fail(PROF_ENOSTAT,
				 "bad modifier in '%s': use :u, :k, :h or a combination",
				 text);
	out->asked = d;
	out->def = d;
	out->modes = modes;
	if (event_of(d, &out->type, &out->config)) {
		stat_available(probe, arg, default_modes, avail, sizeof(avail));
		return prof_fail(PROF_EUNAVAIL,
				 "statistic '%s' is not available here: this "
				 "CPU (%s) has no equivalent event; available "
				 "here: %s", text, cpu_vendor(), avail);
	}
	err = probe ? probe(out->type, out->config, modes, arg) : 0;
	if (err && d->substitute) {
		const struct stat_def *s = stat_lookup(d->substitute);

		if (s && !probe_def(s, modes, probe, arg)) {
			out->def = s;
			event_of(s, &out->type, &out->config);
			out->substitute = 1;
			return 0;
		}
	}
	if (err) {
		const char *why;

		switch (-err) {
		case ENOENT:
		case EOPNOTSUPP:
			why = d->kind != STAT_SW ?
			      "this machine has no hardware performance counters"
			      " (no PMU)" :
			      "the kernel does not support it";
			break;
		case EACCES:
		case EPERM:
			why = "permission denied (see perf_event_paranoid)";
			break;
		default:
			why = strerror(-err);
		}
		stat_available(probe, arg, default_modes, avail, sizeof(avail));
		return prof_fail(PROF_EUNAVAIL,
				 "statistic '%s' is not available here: %s; "
				 "available here: %s", text, why, avail);
	}
	return 0;
}

int stat_table_validate(char *buf, size_t len)
{
	size_t i, j;
	int problems = 0;

	if (len)
		buf[0] = '\0';
#define PROBLEM(...) do { \
		if (!problems++ && len) snprintf(buf, len, __VA_ARGS__); \
	} while (0)
	for (i = 0; i < stat_table_len; i++) {
		const struct stat_def *d = &stat_table[i];

		if (!d->desc || !*d->desc)
			PROBLEM("'%s' has no description", d->name);
		if (d->kind == STAT_NATIVE && (!d->natives ||
					       !d->natives[0].vendor))
			PROBLEM("'%s' has no native events", d->name);
		if (d->substitute && !stat_lookup(d->substitute))
			PROBLEM("'%s' names unknown substitute '%s'", d->name,
				d->substitute);
		for (j = 0; j < stat_table_len; j++) {
			const struct stat_def *e = &stat_table[j];

			if (i == j)
				continue;
			if (!strcasecmp(d->name, e->name) ||
			    name_in_list(d->name, strlen(d->name), e->aliases))
				PROBLEM("'%s' is defined twice", d->name);
		}
	}
#undef PROBLEM
	return problems;
}
