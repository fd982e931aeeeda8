/* SPDX-License-Identifier: MIT */
/*
 * JIT runtimes' names for their code: perf maps (/tmp/perf-PID.map)
 * parsed, maps built from other sources (jitdump.c) and merged, looked
 * up, and the entries that name sampled code kept in the profile as JIT
 * symbols.
 */
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "profile.h"

/* A hexadecimal number, "0x" optional; *pp moves past it. */
static int parse_hex(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int digits = 0;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; p < end; p++, digits++) {
		int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (digits >= 16)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	if (!digits)
		return -1;
	*pp = p;
	*out = v;
	return 0;
}

/* One line "START SIZE NAME" into *e (name not copied: *name, *nlen). */
static int parse_line(const char *p, const char *end,
		      struct prof_jitmap_entry *e, const char **name,
		      size_t *nlen)
{
	uint64_t size;

	if (parse_hex(&p, end, &e->start) || p == end || *p != ' ')
		return -1;
	while (p < end && *p == ' ')
		p++;
	if (parse_hex(&p, end, &size) || p == end || *p != ' ')
		return -1;
	while (p < end && *p == ' ')
		p++;
	while (end > p && (end[-1] == '\r' || end[-1] == ' '))
		end--;
	if (p == end || !size || e->start > UINT64_MAX - size)
		return -1;
	e->end = e->start + size;
	*name = p;
	*nlen = (size_t)(end - p);
	return memchr(p, '\0', *nlen) ? -1 : 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct prof_jitmap_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

int profile_jitmap_add(struct prof_jitmap *m, uint64_t start, uint64_t end,
		       const char *name, size_t nlen)
{
	struct prof_jitmap_entry *e;

	if (ALLOC_GROW(m->v, m->n + 1, m->alloc))
		return -PROF_ENOMEM;
	e = &m->v[m->n];
	*e = (struct prof_jitmap_entry){ .start = start, .end = end,
					 .line = ++m->last_line };
	e->name = strndup(name, nlen);
	if (!e->name)
		return -PROF_ENOMEM;
	m->n++;
	return 0;
}

int profile_jitmap_finish(struct prof_jitmap *m)
{
	size_t i;

	if (m->n > 1)
		qsort(m->v, m->n, sizeof(*m->v), cmp_entry);
	free(m->max_end);
	m->max_end = malloc((m->n ? m->n : 1) * sizeof(*m->max_end));
	if (!m->max_end)
		return -PROF_ENOMEM;
	for (i = 0; i < m->n; i++)
		m->max_end[i] = i && m->max_end[i - 1] > m->v[i].end ?
				m->max_end[i - 1] : m->v[i].end;
	return 0;
}

int profile_jitmap_merge(struct prof_jitmap *into, struct prof_jitmap *from)
{
	size_t i;

	if (ALLOC_GROW(into->v, into->n + from->n, into->alloc))
		return -PROF_ENOMEM;
	for (i = 0; i < from->n; i++) {
		into->v[into->n] = from->v[i];
		into->v[into->n++].line += into->last_line;
	}
	into->last_line += from->last_line;
	into->bad_lines += from->bad_lines;
	if (from->buf && !into->buf) {
		into->buf = from->buf;
		into->debug_skew = from->debug_skew;
	} else if (from->buf) {
		for (i = into->n - from->n; i < into->n; i++)
			into->v[i].code = into->v[i].debug = NULL;
		free(from->buf);
	}
	free(from->v);
	free(from->max_end);
	memset(from, 0, sizeof(*from));
	return profile_jitmap_finish(into);
}

int profile_jitmap_parse(struct prof_jitmap *m, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	memset(m, 0, sizeof(*m));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *name;
		const char *eol = nl ? nl : end;
		struct prof_jitmap_entry e = { 0 };
		size_t nlen;

		if (eol == p) {		/* an empty line */
			m->last_line++;
			p = eol + 1;
			continue;
		}
		if (parse_line(p, eol, &e, &name, &nlen)) {
			m->bad_lines++;
			m->last_line++;
		} else if (profile_jitmap_add(m, e.start, e.end, name, nlen)) {
			goto oom;
		}
		p = eol + 1;
	}
	if (profile_jitmap_finish(m))
		goto oom;
	return 0;
oom:
	profile_jitmap_free(m);
	return -PROF_ENOMEM;
}

void profile_jitmap_free(struct prof_jitmap *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
	free(m->max_end);
	free(m->buf);
	memset(m, 0, sizeof(*m));
}

const struct prof_jitmap_entry *
profile_jitmap_lookup(const struct prof_jitmap *m, uint64_t addr)
{
	const struct prof_jitmap_entry *best = NULL;
	size_t lo = 0, hi = m->n;

	/* hi: the first entry starting after addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Back through the entries starting at or before addr, as long as
	 * one of them can still reach it. */
	while (hi > 0 && m->max_end[hi - 1] > addr) {
		const struct prof_jitmap_entry *e = &m->v[--hi];

		if (addr < e->end && (!best || e->line > best->line))
			best = e;
	}
	return best;
}

/* Consecutive sampled addresses named by one entry. */
struct named_run {
	const struct prof_jitmap_entry *e;
	uint64_t last;		/* the run's last address */
};

/*
 * j (e's, maybe cut) with e's code, within the caps (*total: the code
 * kept so far), and its lines; then added to p.  0 or -PROF_ENOMEM.
 */
static int add_symbol(struct profile *p, const struct prof_jitmap *m,
		      const struct prof_jitmap_entry *e,
		      struct prof_jitsym *j, uint64_t *total)
{
	uint64_t len = j->end - j->start;
	int r;

	if (e->code && len <= PROF_JIT_CODE_MAX &&
	    len <= PROF_JIT_CODE_TOTAL_MAX - *total) {
		j->code = (uint8_t *)(uintptr_t)(e->code +
						 (j->start - e->start));
		*total += len;
	}
	r = e->debug ? profile_jitdump_lines(m, e, j) : 0;
	if (!r)
		r = profile_add_jitsym(p, j) < 0 ? -PROF_ENOMEM : 0;
	profile_jitlines_free(j);
	return r;
}

int profile_jitmap_keep(struct profile *p, uint32_t obj,
			const struct prof_jitmap *m, const uint64_t *addrs,
			size_t n)
{
	struct named_run *runs = NULL;
	size_t nruns = 0, alloc = 0, i;
	uint64_t prev_hi = 0, total = 0;
	int named = 0, r = -PROF_ENOMEM;

	/* The code cap is the profile's: other objects' count. */
	for (i = 0; i < p->njitsyms; i++)
		if (p->jitsyms[i].code)
			total += p->jitsyms[i].end - p->jitsyms[i].start;

	/* Runs of consecutive addresses named by one entry. */
	for (i = 0; i < n; i++) {
		const struct prof_jitmap_entry *e =
			profile_jitmap_lookup(m, addrs[i]);

		if (!e)
			continue;
		named++;
		if (nruns && runs[nruns - 1].e == e) {
			runs[nruns - 1].last = addrs[i];
			continue;
		}
		if (ALLOC_GROW(runs, nruns + 1, alloc))
			goto out;
		runs[nruns++] = (struct named_run){ .e = e, .last = addrs[i] };
	}
	/*
	 * One symbol per run: from its entry's start (or the previous
	 * symbol's end) to its entry's end, or before the next run's entry
	 * starts (but past this run's last address).  Every address keeps
	 * its name and no two symbols overlap.
	 */
	for (i = 0; i < nruns; i++) {
		const struct prof_jitmap_entry *e = runs[i].e;
		struct prof_jitsym j = {
			.obj = obj, .name = e->name, .end = e->end,
			.start = e->start > prev_hi ? e->start : prev_hi,
		};

		if (i + 1 < nruns) {
			uint64_t next = runs[i + 1].e->start;

			if (next <= runs[i].last)
				next = runs[i].last + 1;
			if (next < j.end)
				j.end = next;
		}
		prev_hi = j.end;
		if (add_symbol(p, m, e, &j, &total))
			goto out;
	}
	r = named;
out:
	free(runs);
	return r;
}
