/* SPDX-License-Identifier: MIT */
/*
 * pmdecode: run one profile-me decoder on a sample given on the command
 * line, so tests can feed records built bit by bit from the vendors'
 * layouts (tests/1010-profileme.bats) without the hardware.
 *
 *   pmdecode ibs HEX            PERF_SAMPLE_RAW bytes of an ibs_op sample
 *   pmdecode spe HEX            SPE AUX bytes: every record in them
 *   pmdecode pebs KEY=VALUE...  event=retired|loads|stores|mispredict|
 *                               branches|taken, ip=, addr=, weight=,
 *                               retire_lat=, data_src= (a field given is
 *                               a field present)
 *
 * HEX is bytes in memory order, whitespace allowed.  Prints ip=,
 * data_addr= and name=value for every statistic the sample reports
 * (valid[]), in enum order.  Exit status: 0 decoded, 3 dropped (prints
 * "dropped"), 1 malformed (message on stderr), 2 usage.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "common/engine/profileme.h"

static void usage(void)
{
	fprintf(stderr, "usage: pmdecode ibs HEX | spe HEX | "
		"pebs KEY=VALUE...\n");
	exit(2);
}

static size_t unhex(const char *s, unsigned char *out, size_t max)
{
	size_t n = 0;
	int hi = -1;

	for (; *s; s++) {
		int v;

		if (isspace((unsigned char)*s))
			continue;
		if (!isxdigit((unsigned char)*s))
			usage();
		v = isdigit((unsigned char)*s) ? *s - '0' :
		    tolower((unsigned char)*s) - 'a' + 10;
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (n == max)
			usage();
		out[n++] = (unsigned char)(hi << 4 | v);
		hi = -1;
	}
	if (hi >= 0)
		usage();
	return n;
}

static void print(const struct pm_sample *s)
{
	int i;

	printf("ip=%#llx\ndata_addr=%#llx\n", (unsigned long long)s->ip,
	       (unsigned long long)s->data_addr);
	for (i = 0; i < PM_NSTATS; i++)
		if (s->valid[i])
			printf("%s=%llu\n", stat_pm_name(i),
			       (unsigned long long)s->v[i]);
}

static int result(int err, const struct pm_sample *s)
{
	if (err < 0) {
		fprintf(stderr, "pmdecode: %s\n", prof_error(err));
		return 1;
	}
	if (err == PM_DROPPED) {
		printf("dropped\n");
		return 3;
	}
	print(s);
	return 0;
}

static const char *const pebs_names[PM_PEBS_NEVENTS] = {
	[PM_PEBS_RETIRED] = "retired", [PM_PEBS_LOADS] = "loads",
	[PM_PEBS_STORES] = "stores", [PM_PEBS_MISPREDICT] = "mispredict",
	[PM_PEBS_BRANCHES] = "branches", [PM_PEBS_TAKEN] = "taken",
};

static int pebs(int argc, char **argv)
{
	struct pm_pebs_input in;
	struct pm_sample s;
	int i, k;

	memset(&in, 0, sizeof(in));
	in.event = PM_PEBS_NEVENTS;
	for (i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		uint64_t v = 0;

		if (!eq)
			usage();
		*eq++ = '\0';
		if (!strcmp(argv[i], "event")) {
			for (k = 0; k < PM_PEBS_NEVENTS; k++)
				if (!strcmp(eq, pebs_names[k]))
					in.event = k;
			if (in.event == PM_PEBS_NEVENTS)
				usage();
			continue;
		}
		/* strtoull base 0 for 0x...; parse_u64 is decimal. */
		{
			char *end;

			v = strtoull(eq, &end, 0);
			if (end == eq || *end)
				usage();
		}
		if (!strcmp(argv[i], "ip")) {
			in.ip = v;
		} else if (!strcmp(argv[i], "addr")) {
			in.addr = v;
			in.have |= PM_PEBS_HAVE_ADDR;
		} else if (!strcmp(argv[i], "weight")) {
			in.weight = v;
			in.have |= PM_PEBS_HAVE_WEIGHT;
		} else if (!strcmp(argv[i], "retire_lat")) {
			if (v > 0xffff)
				usage();
			in.retire_lat = (uint16_t)v;
			in.have |= PM_PEBS_HAVE_RETIRE_LAT;
		} else if (!strcmp(argv[i], "data_src")) {
			in.data_src = v;
			in.have |= PM_PEBS_HAVE_DATA_SRC;
		} else {
			usage();
		}
	}
	if (in.event == PM_PEBS_NEVENTS)
		usage();
	return result(pm_decode_pebs(&in, &s), &s);
}

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 16];
	struct pm_sample s;
	size_t n;

	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "pebs"))
		return pebs(argc - 2, argv + 2);
	if (argc != 3)
		usage();
	n = unhex(argv[2], buf, sizeof(buf));
	if (!strcmp(argv[1], "ibs"))
		return result(pm_decode_ibs_op(buf, n, &s), &s);
	if (!strcmp(argv[1], "spe")) {
		size_t at = 0, used;
		int rc = 0, first = 1;

		while (at < n) {
			int err = pm_decode_spe(buf + at, n - at, &used, &s);

			if (err < 0)
				return result(err, &s);
			if (!first)
				printf("--\n");
			first = 0;
			rc = result(err, &s);
			at += used;
			/* Trailing padding is not a record. */
			while (at < n && buf[at] == 0)
				at++;
		}
		return rc;
	}
	usage();
	return 2;
}
