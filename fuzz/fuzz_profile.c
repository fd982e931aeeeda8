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
 *   -numbers, -average), byte 30 -stride and byte 31 -quit.
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

static void unpack(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nfiles; i++)
		profile_file_write(&p->files[i], fileno(sink));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t opt[3] = { 0, 0, 0 };
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
	}
	if (profile_decode(buf, size, &p)) {
		free(buf);
		return 0;
	}
	free(buf);
	unpack(p);
	confine(p);
	if (report_is_counting(p))
		counts(p);
	else
		rows(p, opt);
	profile_free(p);
	return 0;
}
