/* SPDX-License-Identifier: MIT */
/*
 * -l: every statistic, and whether this machine has it (asked of the
 * kernel through the perf engine's probe); the names for completion.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "run_int.h"
#include "common/engine/perf.h"
#include "common/stats/stats.h"
#include "common/util/error.h"

/* The name -l shows: pm_NAME where the plain name is a counter's. */
static const char *list_name(const struct stat_def *d, char *buf, size_t len)
{
	const struct stat_def *plain = stat_lookup(d->name);

	if (d->kind == STAT_PROFILEME && plain != d) {
		snprintf(buf, len, "pm_%s", d->name);
		return buf;
	}
	return d->name;
}

struct name_printer {
	FILE *out;
	const char *prefix;
};

static void print_name(const char *name, void *arg)
{
	const struct name_printer *p = arg;

	fprintf(p->out, "%s%s\n", p->prefix, name);
}

/* Every name of the table -l shows, and their other names. */
void run_print_statistic_names(FILE *out, const char *prefix)
{
	struct name_printer p = { out, prefix };
	size_t t;

	for (t = 0; t < stat_table_len; t++) {
		const struct stat_def *d = &stat_table[t];
		const char *a = d->aliases;
		char name[40];

		print_name(list_name(d, name, sizeof(name)), &p);
		while (a && *a) {
			size_t n = strcspn(a, ",");

			fprintf(out, "%s%.*s\n", prefix, (int)n, a);
			a += n + (a[n] == ',');
		}
	}
}

void run_print_native_names(FILE *out, const char *prefix)
{
	struct name_printer p = { out, prefix };

	stat_native_names(print_name, &p);
}

static int run_flush_stdout(const struct run_config *c)
{
	if (fflush(stdout) || ferror(stdout))
		return run_fail(c, prof_fail(PROF_EIO, "cannot write the "
					     "list: %s", strerror(errno)));
	return 0;
}

/* Where the native events of -l's aggregate rows come from, when this
 * suite's own table (not libpfm4) provides them. */
static void list_own_model(void)
{
	const struct stat_own_model *o = stat_own_model_here();
	size_t i;

	if (!o)
		return;
	printf("\nNative events of this CPU (%s): this suite's own table "
	       "'%s',\nas libpfm4 has none for it.  Source: %s.\n", o->desc,
	       o->name, o->source);
	for (i = 0; i < o->nevents; i++)
		printf("  %-17s %s (raw %#llx)\n", o->events[i].stat,
		       o->events[i].event,
		       (unsigned long long)o->events[i].config);
}

int run_list_statistics(const struct run_config *c)
{
	static const struct {
		enum stat_kind kind;
		const char *title;
	} groups[] = {
		{ STAT_HW, "Aggregate hardware events (counted by the PMU; "
		  "the originals' aggregate mode):" },
		{ STAT_PROFILEME, "Profile-me statistics (what a sampled "
		  "instruction met: AMD IBS, Intel PEBS, Arm SPE):" },
		{ STAT_SW, "Software events (counted by the kernel; always "
		  "there):" },
		{ STAT_DERIVED, "Derived statistics (computed at report time "
		  "from profile-me counts):" },
	};
	unsigned modes = c->tool->default_modes;
	char machine[512];
	size_t g, i;

	if (c->engine == RUN_ENGINE_SIM) {
		const struct stat_def *d;

		printf("%-18s %-13s %-28s %s\n", "statistic", "here",
		       "other names", "description (--engine=sim)");
		for (i = 0; (d = stat_sim_def(i)); i++)
			printf("%-18s %-13s %-28s %s\n", d->name, "simulated",
			       d->sim.aliases ? d->sim.aliases : "-",
			       d->sim.desc);
		return run_flush_stdout(c);
	}

	stat_machine_describe(machine, sizeof(machine));
	printf("%s\n", machine);
	printf("A plain name is an aggregate counter or software event; "
	       "pm_NAME is the profile-me\nstatistic NAME (pm_cycles, "
	       "pm_mispredict, pm_replay_trap, ...).  Also accepted: "
	       "libpfm4\nnative names (INST_RETIRED:ANY_P), raw rNNNN, and "
	       ":u :k :h after any name.\n");
	printf("SPE*: Arm SPE packets are decoded, but collecting them (the "
	       "AUX area) is not\nimplemented yet (docs/profileme.md).\n");
	for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		printf("\n%s\n%-19s %-24s %s\n", groups[g].title,
		       "statistic", "here", "description (other names)");
		for (i = 0; i < stat_table_len; i++) {
			const struct stat_def *d = &stat_table[i], *sub;
			const char *why;
			char here[64], name[40], reason[160];

			if (d->kind != groups[g].kind)
				continue;
			why = stat_unavailable(d, modes, perf_probe, NULL,
					       &sub, reason, sizeof(reason));
			if (why)
				snprintf(here, sizeof(here), "no: %s", why);
			else if (sub)
				snprintf(here, sizeof(here), "as %s",
					 sub->name);
			else
				snprintf(here, sizeof(here), "yes");
			printf("%-19s %-24s %s%s%s%s\n",
			       list_name(d, name, sizeof(name)), here,
			       d->desc, d->aliases ? " (" : "",
			       d->aliases ? d->aliases : "",
			       d->aliases ? ")" : "");
		}
		if (groups[g].kind == STAT_HW)
			list_own_model();
	}
	return run_flush_stdout(c);
}
