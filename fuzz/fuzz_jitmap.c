// SPDX-License-Identifier: MIT
/*
 * fuzz_jitmap: a JIT runtime's names, as the run reads them: a jitdump
 * file (jit-PID.dump, when the input starts with its magic "DTiJ") or
 * else a perf map (/tmp/perf-PID.map text, "START SIZE NAME" lines).
 * Every entry's start (and its neighbours) is looked up, and the
 * entries naming them kept in a profile as the collector keeps them.
 * Aborts when an address is named otherwise than the map names it, or
 * when the kept symbols are not sorted, non-empty and apart, or their
 * code is not the jitdump's bytes, or their lines are not sorted, inside
 * them and naming their files (profile_read() refuses such sections).
 * The kept code is then decoded and its lines looked up through a
 * symbolizer, as a report does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/profile/profile.h"
#include "symbolize/symbolize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ADDRS 64

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* j's code and lines as the report's reader checks them. */
static void check_code(const struct prof_jitsym *j,
		       const struct prof_jitmap *m)
{
	const struct prof_jitmap_entry *e = profile_jitmap_lookup(m, j->start);
	size_t k;

	if (j->code && (!e || !e->code ||
			memcmp(j->code, e->code + (j->start - e->start),
			       j->end - j->start)))
		abort();
	for (k = 0; k < j->nlines; k++)
		if (j->lines[k].addr < j->start || j->lines[k].addr >= j->end ||
		    j->lines[k].file >= j->nfiles ||
		    (k && j->lines[k - 1].addr >= j->lines[k].addr))
			abort();
}

/* Decode every kept symbol's code and look up its lines. */
static void report_code(const struct profile *p)
{
	struct symbolizer *s = symbolizer_new(NULL);
	struct sym_jitsym v[MAX_ADDRS];
	struct sym_jitline lines[4096];
	struct sym_object o = { .kind = SYM_OBJ_JIT, .path = "/j" };
	size_t i, k, n = 0, nl = 0;

	for (i = 0; s && i < p->njitsyms && n < MAX_ADDRS; i++) {
		const struct prof_jitsym *j = &p->jitsyms[i];

		if (nl + j->nlines > 4096)
			break;
		v[n++] = (struct sym_jitsym){ .start = j->start, .end = j->end,
					      .name = j->name, .code = j->code,
					      .lines = lines + nl,
					      .nlines = j->nlines };
		for (k = 0; k < j->nlines; k++, nl++)
			lines[nl] = (struct sym_jitline){
				.addr = j->lines[k].addr,
				.file = j->files[j->lines[k].file],
				.line = j->lines[k].line };
	}
	if (s && !sym_set_jit_symbols(s, "/j", 62, v, n))
		for (i = 0; i < n; i++) {
			const struct sym_code *c;
			struct sym_result res;
			char text[256];

			sym_resolve(s, &o, v[i].start, &res);
			if (sym_code(s, &o, v[i].start, &c) == SYM_OK)
				for (k = 0; k < c->ninsns; k++)
					sym_insn_format(s, &o, c, k, text,
							sizeof(text));
		}
	symbolizer_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prof_jitmap m;
	struct prof_object o = { .path = "/tmp/perf-1.map",
				 .kind = PROF_OBJ_JIT };
	struct profile *p;
	uint64_t addrs[MAX_ADDRS];
	size_t n = 0, i, u;
	const char *why;

	if (size >= 4 && !memcmp(data, "DTiJ", 4) ?
	    profile_jitdump_parse(&m, data, size, &why) :
	    profile_jitmap_parse(&m, (const char *)data, size))
		return 0;
	for (i = 0; i < m.n && n + 3 <= MAX_ADDRS; i++) {
		addrs[n++] = m.v[i].start;
		addrs[n++] = m.v[i].start - 1;
		addrs[n++] = m.v[i].end - 1;
	}
	for (i = 0; i < n; i++) {
		const struct prof_jitmap_entry *e =
			profile_jitmap_lookup(&m, addrs[i]);

		if (e && (addrs[i] < e->start || addrs[i] >= e->end))
			abort();
	}
	qsort(addrs, n, sizeof(*addrs), cmp_u64);
	for (i = 0, u = 0; i < n; i++)
		if (!u || addrs[u - 1] != addrs[i])
			addrs[u++] = addrs[i];
	p = profile_new();
	if (p && profile_add_object(p, &o) == 0 &&
	    profile_jitmap_keep(p, 0, &m, addrs, u) >= 0) {
		/* every address a map entry names keeps that name */
		for (i = 0; i < u; i++) {
			const struct prof_jitmap_entry *e =
				profile_jitmap_lookup(&m, addrs[i]);
			size_t k;

			for (k = 0; k < p->njitsyms; k++)
				if (p->jitsyms[k].start <= addrs[i] &&
				    addrs[i] < p->jitsyms[k].end)
					break;
			if (!e != (k == p->njitsyms) ||
			    (e && strcmp(e->name, p->jitsyms[k].name)))
				abort();
		}
		for (i = 0; i < p->njitsyms; i++) {
			if (p->jitsyms[i].start >= p->jitsyms[i].end ||
			    (i && p->jitsyms[i - 1].end > p->jitsyms[i].start))
				abort();
			check_code(&p->jitsyms[i], &m);
		}
		report_code(p);
	}
	profile_free(p);
	profile_jitmap_free(&m);
	return 0;
}
