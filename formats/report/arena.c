/* SPDX-License-Identifier: MIT */
/*
 * The report's own memory (report_int.h: struct priv): arrays and
 * strings that live as long as the report, so the rows, the call-stack
 * views and the samples model can point into them.  A leaf of
 * formats/report/.
 */
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/strpool.h"
#include "report_int.h"

/* Zeroed memory that lives as long as the report. */
static void *pmalloc(struct priv *pv, size_t n, size_t size)
{
	void *m;

	if (ALLOC_GROW(pv->mem, pv->nmem + 1, pv->alloc_mem))
		return NULL;
	m = calloc(n ? n : 1, size);
	if (m)
		pv->mem[pv->nmem++] = m;
	return m;
}

static const char *pool_dup(struct strpool *p, const char *s)
{
	return s ? strpool_add(p, s) : NULL;
}

void *report_alloc(struct report *r, size_t n, size_t size)
{
	return pmalloc(r->priv, n, size);
}

const char *report_pool_dup(struct report *r, const char *s)
{
	return pool_dup(&((struct priv *)r->priv)->pool, s);
}

void report_own_profile(struct report *r, struct profile *copy)
{
	((struct priv *)r->priv)->own_prof = copy;
	r->prof = copy;
}

/* Per-row arrays for n rows, from memory owned by the report. */
int report_row_arrays(struct report *r, struct report_row *rows, size_t n)
{
	struct priv *pv = r->priv;
	size_t ns = r->nstats, nr = r->nratios, i;
	uint64_t *nums = pmalloc(pv, n * ns * 2, sizeof(uint64_t));
	double *dbls = pmalloc(pv, n * (ns * 2 + nr), sizeof(double));
	unsigned char *lows = pmalloc(pv, n * nr, 1);

	if (!nums || !dbls || !lows)
		return -PROF_ENOMEM;
	for (i = 0; i < n; i++) {
		rows[i].samples = nums + i * ns * 2;
		rows[i].weight = nums + i * ns * 2 + ns;
		rows[i].percent = dbls + i * (ns * 2 + nr);
		rows[i].average = r->opt.average ? rows[i].percent + ns : NULL;
		rows[i].ratio = rows[i].percent + ns * 2;
		rows[i].ratio_low = lows + i * nr;
	}
	return 0;
}

void report_arena_release(struct priv *pv)
{
	size_t i;

	strpool_release(&pv->pool);
	for (i = 0; i < pv->nmem; i++)
		free(pv->mem[i]);
	free(pv->mem);
	if (pv->own_prof) {
		free(pv->own_prof->counts);
		free(pv->own_prof->ra_routines);
		free(pv->own_prof);
	}
}
