// SPDX-License-Identifier: MIT
/*
 * fuzz_profile: a profile file (umon.out / kmon.out, docs/profile-format.md)
 * decoded, then every report built from it and rendered as text and JSON,
 * the way "uprofile -i FILE" does.
 *
 * The input is a profile file, with two concessions so mutations get past
 * the header into the sections:
 * - the header's size and CRC-32 are recomputed, unless the low bit of
 *   the reserved field (byte 28) is set: then they are checked as given;
 * - the other reserved bytes choose the report: byte 29 the view (and
 *   -numbers, -average), byte 30 -stride and byte 31 -quit; the other
 *   bits of byte 28 cut a window out of a profile with a time stream
 *   first (bit 1: a window, bits 2-4: where it starts, in eighths of the
 *   run, bit 6: a second range) and leave the idle task out (bit 5:
 *   -exclude-idle), after which its events must still add up to its
 *   task counts (abort() when they do not).
 *
 * Reports open the objects a profile names.  Reading arbitrary files of
 * the machine would make runs depend on it (and a FIFO blocks), so every
 * file object is replaced by one known ELF with DWARF, built next to this
 * program (profile-object, see the Makefile); its build-id is kept when
 * the first byte of the profile's is odd (so stale objects are reached
 * too), else dropped.  The kernel's symbols are the profile's own, never
 * /proc/kallsyms; no debug root exists.  Archived files (section 13)
 * are unpacked into /dev/null, as a report unpacks them: never more than
 * each declares, and the caps bound what that is.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "common/profile/profile.h"
#include "common/util/error.h"
#include "formats/report/report.h"
#include "formats/show.h"
#include "formats/writers.h"
#include "symbolize/symbolize.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEADER_SIZE 32

static char object_path[PATH_MAX];
static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		abort();
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		abort();
	slash[1] = '\0';
	snprintf(object_path, sizeof(object_path), "%sprofile-object", self);
	if (access(object_path, R_OK)) {
		fprintf(stderr, "fuzz_profile: cannot read '%s'\n",
			object_path);
		abort();
	}
	sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	return 0;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Point the profile at files this harness controls (see above). */
static void confine(struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nobjects; i++) {
		struct prof_object *o = &p->objects[i];

		if (o->kind != PROF_OBJ_FILE)
			continue;
		free(o->path);
		o->path = strdup(object_path);
		if (!o->path)
			abort();
		if (!o->build_id_len || !(o->build_id[0] & 1))
			o->build_id_len = 0;
	}
}

static struct symbolizer *report_symbolizer(const struct profile *p)
{
	static const struct sym_config sc = {
		.debug_root = "/nonexistent-debug-root",
		.kallsyms = "/nonexistent-kallsyms",
	};

	return report_symbolizer_new(p, &sc);
}

static void counts(const struct profile *p)
{
	struct report_counts *rc;

	if (report_counts_build(p, "fuzz.out", &rc))
		return;
	fmt_counts_text(sink, rc);
	fmt_counts_json(sink, rc);
	report_counts_free(rc);
}

static void rows(const struct profile *p, const uint8_t opt[3])
{
	static const char *const only[] = { "main", "f*" };
	static const char *const exclude[] = { "*@plt" };
	static const long strides[] = { -1, 0, 1, 4 };
	struct report_options ro = {
		.view = (enum report_view)(opt[0] % 6),
		.numbers = opt[0] >> 3 & 1,
		.average = opt[0] >> 4 & 1,
		.file = "fuzz.out",
		.stride = strides[opt[1] & 3],
		.quit_rows = opt[2] & 7,
		.quit_percent = opt[2] >> 3 & 1 ? 5.0 : 0,
	};
	struct symbolizer *sym = report_symbolizer(p);
	struct report *r;

	if (!sym)
		abort();
	if (opt[1] >> 2 & 1) {
		ro.only = only;
		ro.nonly = 2;
	}
	if (opt[1] >> 3 & 1) {
		ro.exclude = exclude;
		ro.nexclude = 1;
	}
	if (!report_build(p, sym, &ro, &r)) {
		fmt_text(sink, r);
		fmt_json(sink, r);
		fmt_summary(sink, r, 10);
		report_free(r);
	}
	symbolizer_free(sym);
}

/* What profile_window() and profile_drop_idle() must keep of a time
 * stream: each event names a task count and a stack there are, and those
 * of a task count of a sampled statistic add up to its samples and
 * weight. */
static void check_events(const struct profile *p)
{
	uint64_t *s = calloc(p->ntask_counts + 1, sizeof(*s));
	uint64_t *w = calloc(p->ntask_counts + 1, sizeof(*w));
	size_t i;

	if (!s || !w)
		abort();
	for (i = 0; i < p->nevents; i++) {
		const struct prof_event *e = &p->events[i];

		if (e->tcount >= p->ntask_counts || e->stack > p->nstacks ||
		    (i && e->time < p->events[i - 1].time))
			abort();
		s[e->tcount]++;
		w[e->tcount] += e->weight;
	}
	for (i = 0; i < p->ntask_counts; i++) {
		const struct prof_task_count *k = &p->task_counts[i];

		if (p->stats[k->stat].flags &
		    (PROF_STAT_SIMULATED | PROF_STAT_COUNTING))
			continue;
		if (s[i] != k->samples || w[i] != k->weight)
			abort();
	}
	free(s);
	free(w);
}

/* --time and -exclude-idle as opt (byte 28) asks: 0, or -1 when p is no
 * longer usable. */
static int window(struct profile *p, uint8_t opt)
{
	uint64_t span = profile_time_span(p), dropped;
	struct prof_range r[2];
	size_t n = 1;
	int err;

	if ((opt & 2) && p->timeline == PROF_TIMELINE_KEPT) {
		r[0].from = span / 8 * (opt >> 2 & 7);
		r[0].to = r[0].from + span / 4 + 1;
		if (r[0].to <= r[0].from)
			r[0].to = UINT64_MAX;
		if ((opt & 64) && r[0].to + span / 8 + 1 > r[0].to) {
			r[1].from = r[0].to + span / 8;
			r[1].to = UINT64_MAX;
			n = 2;
		}
		err = profile_window(p, r, n);
		if (err == -PROF_ENOMEM)
			return -1;
		if (err)
			abort();
		check_events(p);
	}
	if (opt & 32) {
		err = profile_drop_idle(p, &dropped);
		if (err == -PROF_ENOMEM)
			return -1;
		if (!err && p->timeline == PROF_TIMELINE_KEPT)
			check_events(p);
	}
	return 0;
}

static void unpack(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nfiles; i++)
		profile_file_write(&p->files[i], fileno(sink));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t opt[3] = { 0, 0, 0 }, cut = 0;
	struct profile *p;
	uint8_t *buf;

	/* A copy: the header is patched, and an exact-size buffer lets
	 * ASan see any read past the end. */
	buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	if (size >= HEADER_SIZE) {
		if (!(buf[28] & 1)) {
			put_le(buf + 16, size, 8);
			put_le(buf + 24, crc32(0, buf + HEADER_SIZE,
					       (uInt)(size - HEADER_SIZE)), 4);
		}
		memcpy(opt, buf + 29, 3);
		cut = buf[28];
	}
	if (profile_decode(buf, size, &p)) {
		free(buf);
		return 0;
	}
	free(buf);
	unpack(p);
	confine(p);
	if (!report_is_counting(p) && window(p, cut)) {
		profile_free(p);
		return 0;
	}
	if (report_is_counting(p))
		counts(p);
	else
		rows(p, opt);
	profile_free(p);
	return 0;
}
