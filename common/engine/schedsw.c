/* SPDX-License-Identifier: MIT */
/*
 * sched:sched_switch as the off-CPU statistics read it: its event id and,
 * from its format file, where prev_state lies in the raw data and which
 * of its bits mean S (interruptible sleep) and D (uninterruptible, usually
 * I/O).  Nothing is hard-coded: the layout and the letters changed across
 * kernels (3.x stored raw task states, 4.14 report indices), and both are
 * read from the format file of the kernel that runs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "perf.h"

static const char *const roots[] = {
	"/sys/kernel/tracing/events/sched/sched_switch",
	"/sys/kernel/debug/tracing/events/sched/sched_switch",
};

/* The whole of a small file of tracefs, NUL-terminated, or NULL. */
static char *slurp(const char *dir, const char *name)
{
	char path[256], *buf;
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	buf = malloc(65536);
	if (buf)
		n = fread(buf, 1, 65535, f);
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

/* prev_state's offset and size from "field:long prev_state; offset:N;
 * size:M;". */
static int field(const char *fmt, uint32_t *off, uint32_t *size)
{
	const char *at = strstr(fmt, " prev_state;");
	unsigned o, sz;

	if (!at || !(at = strstr(at, "offset:")) ||
	    sscanf(at, "offset:%u;%*[ \t]size:%u;", &o, &sz) != 2 ||
	    (sz != 4 && sz != 8) || o > 4096)
		return -1;
	*off = o;
	*size = sz;
	return 0;
}

/* The bits the print format names letter by: "{ 0x0001, "S" }". */
static uint64_t letter_bits(const char *fmt, const char *letter)
{
	const char *at = strstr(fmt, "print fmt:");
	uint64_t bits = 0;

	while (at && (at = strchr(at, '{'))) {
		unsigned long long v;
		char name[8];

		if (sscanf(at, "{ %llx, \"%7[^\"]\" }", &v, name) == 2 &&
		    !strcmp(name, letter))
			bits |= v;
		at++;
	}
	return bits;
}

int perf_sched_switch_find(struct perf_switch *sw)
{
	size_t i;

	for (i = 0; i < sizeof(roots) / sizeof(*roots); i++) {
		char *id = slurp(roots[i], "id"), *fmt;
		char *end;
		unsigned long long v;
		int ok;

		if (!id)
			continue;
		v = strtoull(id, &end, 10);
		ok = end != id && v;
		free(id);
		fmt = ok ? slurp(roots[i], "format") : NULL;
		if (!fmt)
			continue;
		ok = !field(fmt, &sw->state_off, &sw->state_size);
		sw->s_bits = letter_bits(fmt, "S");
		sw->d_bits = letter_bits(fmt, "D");
		free(fmt);
		if (!ok || !sw->s_bits || !sw->d_bits)
			return prof_fail(PROF_ENOENT, "sched:sched_switch's "
					 "format is not one this build reads");
		sw->tp_id = v;
		return 0;
	}
	return prof_fail(PROF_ENOENT, "sched:sched_switch is not readable "
			 "(tracefs is not mounted at /sys/kernel/tracing, or "
			 "this user may not read it)");
}
