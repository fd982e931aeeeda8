// SPDX-License-Identifier: MIT
/*
 * Kernel symbols from /proc/kallsyms (or a saved copy).  Only text
 * symbols are kept; kallsyms has no sizes, so a symbol extends to the next
 * one.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize_int.h"

/*
 * The last symbol of the kernel or of a module has no successor in the
 * same image; do not let it swallow everything up to the next image.
 */
#define KSYM_TAIL_MAX 0x10000

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/*
	 * Aliases: the kernel proper first, then global over local, strong
	 * over weak, fewer leading underscores (startup_64 over _text),
	 * then file order.
	 */
	if (!x->module != !y->module)
		return x->module ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int parse_line(struct kallsyms *ks, struct strpool *sp, char *line,
		      bool *nonzero)
{
	char *addr_s, *type_s, *name, *mod, *save = NULL, *end;
	uint64_t addr;
	struct ksym *k;

	addr_s = strtok_r(line, " \t\n", &save);
	type_s = strtok_r(NULL, " \t\n", &save);
	name = strtok_r(NULL, " \t\n", &save);
	mod = strtok_r(NULL, " \t\n", &save);
	if (!addr_s || !type_s || !name || type_s[1])
		return SYM_OK;
	if (!strchr("tTwW", type_s[0]))
		return SYM_OK;
	addr = strtoull(addr_s, &end, 16);
	if (*end)
		return SYM_OK;
	if (addr)
		*nonzero = true;
	if (ALLOC_GROW(ks->v, ks->n + 1, ks->alloc))
		return SYM_ENOMEM;
	k = &ks->v[ks->n];
	k->addr = addr;
	k->end = 0;
	k->name = strpool_add(sp, name);
	k->module = NULL;
	k->order = ks->n;
	k->rank = (uint8_t)((isupper((unsigned char)type_s[0]) ? 0x80 : 0) |
			    (tolower((unsigned char)type_s[0]) == 't' ?
			     0x40 : 0));
	k->rank |= (uint8_t)(0x3f - (strspn(name, "_") > 0x3f ? 0x3f :
				     strspn(name, "_")));
	if (!k->name)
		return SYM_ENOMEM;
	if (mod && mod[0] == '[') {
		size_t len = strlen(mod + 1);

		if (len && mod[len] == ']')
			len--;
		k->module = strpool_intern(sp, mod + 1, len);
		if (!k->module)
			return SYM_ENOMEM;
	}
	ks->n++;
	return SYM_OK;
}

int kallsyms_load(struct kallsyms *ks, struct strpool *sp, const char *path)
{
	FILE *f = fopen(path ? path : "/proc/kallsyms", "re");
	char *line = NULL;
	size_t cap = 0;
	bool nonzero = false;
	int ret = SYM_OK;

	if (!f)
		return SYM_EKALLSYMS;
	while (ret == SYM_OK && getline(&line, &cap, f) > 0)
		ret = parse_line(ks, sp, line, &nonzero);
	free(line);
	fclose(f);
	if (ret)
		return ret;
	/* kptr_restrict shows every address as 0: useless. */
	if (!ks->n || !nonzero)
		return SYM_EKALLSYMS;
	qsort(ks->v, ks->n, sizeof(*ks->v), ksym_cmp);
	return SYM_OK;
}

const struct ksym *kallsyms_lookup(const struct kallsyms *ks, uint64_t addr)
{
	size_t lo = 0, hi = ks->n;
	const struct ksym *k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	/* Of aliases at one address take the first in sort order. */
	k = &ks->v[lo - 1];
	while (k > ks->v && k[-1].addr == k->addr)
		k--;
	if (k->end)
		return addr < k->end ? k : NULL;
	if (lo == ks->n || ks->v[lo].module != k->module)
		if (addr - k->addr >= KSYM_TAIL_MAX)
			return NULL;
	return k;
}

uint64_t kallsyms_end(const struct kallsyms *ks, const struct ksym *k)
{
	const struct ksym *e = ks->v + ks->n, *n = k + 1;

	if (k->end)
		return k->end;
	while (n < e && n->addr == k->addr)
		n++;
	if (n == e || n->module != k->module)
		return k->addr + KSYM_TAIL_MAX;
	return n->addr;
}

int kallsyms_set(struct kallsyms *ks, struct strpool *sp,
		 const struct sym_ksym *v, size_t n)
{
	size_t i;

	kallsyms_release(ks);
	for (i = 0; i < n; i++) {
		struct ksym *k;

		if (ALLOC_GROW(ks->v, ks->n + 1, ks->alloc))
			return SYM_ENOMEM;
		k = &ks->v[ks->n];
		k->addr = v[i].start;
		k->end = v[i].end > v[i].start ? v[i].end : 0;
		k->name = strpool_add(sp, v[i].name ? v[i].name : "??");
		k->module = v[i].module ?
			    strpool_add(sp, v[i].module) : NULL;
		k->order = i;
		k->rank = 0;
		if (!k->name || (v[i].module && !k->module))
			return SYM_ENOMEM;
		ks->n++;
	}
	if (ks->n > 1)
		qsort(ks->v, ks->n, sizeof(*ks->v), ksym_cmp);
	return SYM_OK;
}

void kallsyms_release(struct kallsyms *ks)
{
	free(ks->v);
	memset(ks, 0, sizeof(*ks));
}
