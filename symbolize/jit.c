// SPDX-License-Identifier: MIT
/*
 * JIT code as a profile carries it: each JIT object's symbols, the
 * bytes a jitdump gave of their code and their source lines
 * (sym_set_jit_symbols()), looked up by address, and the object made one
 * that blocks.c decodes like a file: offsets are addresses, its symbols
 * the procedures, its code read from memory.
 */
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "symbolize_int.h"

static void tab_release(struct jittab *t)
{
	free(t->v);
	free(t->mem);
	free(t->lines);
}

/* t's copy of v's code, one symbol after the other. */
static int copy_code(struct jittab *t, const struct sym_jitsym *v, size_t n)
{
	size_t i, size = 0, at = 0;

	for (i = 0; i < n; i++)
		if (v[i].code)
			size += v[i].end - v[i].start;
	if (!size)
		return SYM_OK;
	t->mem = malloc(size);
	if (!t->mem)
		return SYM_ENOMEM;
	for (i = 0; i < n; i++) {
		if (!v[i].code)
			continue;
		memcpy(t->mem + at, v[i].code, v[i].end - v[i].start);
		t->v[i].code = t->mem + at;
		at += v[i].end - v[i].start;
	}
	t->memsize = size;
	return SYM_OK;
}

/* t's copy of v's lines, their files in the pool. */
static int copy_lines(struct jittab *t, struct strpool *sp,
		      const struct sym_jitsym *v, size_t n)
{
	size_t i, k, total = 0, at = 0;

	for (i = 0; i < n; i++)
		total += v[i].nlines;
	if (!total)
		return SYM_OK;
	t->lines = malloc(total * sizeof(*t->lines));
	if (!t->lines)
		return SYM_ENOMEM;
	for (i = 0; i < n; i++) {
		t->v[i].lines = t->lines + at;
		for (k = 0; k < v[i].nlines; k++, at++) {
			t->lines[at] = v[i].lines[k];
			t->lines[at].file = strpool_add(sp, v[i].lines[k].file);
			if (!t->lines[at].file)
				return SYM_ENOMEM;
		}
	}
	return SYM_OK;
}

int sym_jit_add(struct jittabs *tabs, struct strpool *sp, const char *path,
		uint16_t machine, const struct sym_jitsym *v, size_t n)
{
	struct jittab *t;
	size_t i;
	int ret;

	if (ALLOC_GROW(tabs->v, tabs->n + 1, tabs->alloc))
		return SYM_ENOMEM;
	t = &tabs->v[tabs->n];
	memset(t, 0, sizeof(*t));
	t->machine = machine;
	t->path = strpool_add(sp, path ? path : "");
	t->v = malloc((n ? n : 1) * sizeof(*t->v));
	if (!t->path || !t->v) {
		tab_release(t);
		return SYM_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		t->v[i] = v[i];
		t->v[i].code = NULL;
		t->v[i].lines = NULL;
		t->v[i].name = strpool_add(sp, v[i].name);
		if (!t->v[i].name) {
			tab_release(t);
			return SYM_ENOMEM;
		}
	}
	t->n = n;
	ret = copy_code(t, v, n);
	if (!ret)
		ret = copy_lines(t, sp, v, n);
	if (ret) {
		tab_release(t);
		return ret;
	}
	tabs->n++;
	return SYM_OK;
}

void sym_jit_release(struct jittabs *tabs)
{
	size_t i;

	for (i = 0; i < tabs->n; i++)
		tab_release(&tabs->v[i]);
	free(tabs->v);
	memset(tabs, 0, sizeof(*tabs));
}

const struct jittab *sym_jit_find(const struct jittabs *tabs,
				  const char *path)
{
	size_t i;

	for (i = 0; path && i < tabs->n; i++)
		if (!strcmp(tabs->v[i].path, path))
			return &tabs->v[i];
	return NULL;
}

const struct sym_jitsym *sym_jit_symbol(const struct jittab *t,
					uint64_t addr)
{
	size_t lo = 0, hi = t ? t->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return t && lo < t->n && t->v[lo].start <= addr ? &t->v[lo] : NULL;
}

const char *sym_jit_line(const struct sym_jitsym *j, uint64_t addr,
			 unsigned *line)
{
	size_t lo = 0, hi = j->nlines;

	/* lo: the first line past addr; the one before it holds. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (j->lines[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	*line = j->lines[lo - 1].line;
	return j->lines[lo - 1].file;
}

int symobj_load_jit(struct symobj *o, const struct jittab *t)
{
	size_t i, at = 0;

	o->by_vaddr = true;
	o->machine = t ? t->machine : 0;
	if (!t)
		return SYM_OK;
	o->jit_mem = t->mem;
	o->jit_memsize = t->memsize;
	o->syms.v = calloc(t->n ? t->n : 1, sizeof(*o->syms.v));
	o->loads = calloc(t->n ? t->n : 1, sizeof(*o->loads));
	if (!o->syms.v || !o->loads)
		return SYM_ENOMEM;
	o->syms.alloc = t->n ? t->n : 1;
	for (i = 0; i < t->n; i++) {
		const struct sym_jitsym *j = &t->v[i];

		o->syms.v[i] = (struct esym){
			.addr = j->start, .size = j->end - j->start,
			.sec_end = j->end, .name = j->name, .order = i,
		};
		if (!j->code)
			continue;
		o->loads[o->nloads++] = (struct loadseg){
			.off = at, .filesz = j->end - j->start,
			.vaddr = j->start,
		};
		at += j->end - j->start;
	}
	o->syms.n = t->n;
	return symindex_finish(&o->syms);
}
