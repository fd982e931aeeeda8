/* SPDX-License-Identifier: MIT */
/*
 * Resolving: every address, a sampled one or a stack frame, named by
 * report_resolve(); the sites named for the rows; what resolving told
 * of the objects and of -only/-exclude's patterns, noted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "build.h"
#include "symbolize/symbolize.h"

/* Is out the function f itself or a copy of it the compiler made and
 * named f.SUFFIX (.part.0, .constprop.0, .isra.0, .cold)? */
static bool clone_of(const char *f, const char *out)
{
	size_t n;

	if (!f || !out)
		return false;
	n = strlen(f);
	return !strncmp(f, out, n) && (!out[n] || out[n] == '.');
}

/* What resolving an address of an object says of the object. */
static uint8_t obj_state(int err, const struct sym_result *res)
{
	uint8_t st = 0;

	if (err == SYM_EDWARF)
		st |= OBJ_BADDWARF;
	else if (err)
		st |= OBJ_UNREADABLE;
	if (res->flags & SYM_F_STALE)
		st |= OBJ_STALE;
	/* A PLT stub's name comes from relocations, which a stripped
	 * object keeps: it says nothing of symbols. */
	if (!(res->flags & SYM_F_PLT))
		st |= res->flags & (SYM_F_SYMBOL | SYM_F_DWARF) ?
		      OBJ_NAMED : OBJ_ANONYMOUS;
	return st;
}

void report_resolve(const struct profile *p, struct symbolizer *sym,
		    uint32_t obj, uint64_t offset, struct sym_result *res,
		    uint8_t *state)
{
	struct sym_object so = report_sym_obj(p, obj);
	int err;

	memset(res, 0, sizeof(*res));
	err = sym_resolve(sym, &so, offset, res);
	/*
	 * A function inlined into itself or a clone of itself (f inside
	 * f.part.0 or f.constprop.0) is that out-of-line code, named as
	 * the symbol table names it: "f [inlined into f.part.0]" would say
	 * nothing, and rows, stacks and exports name it the same.
	 */
	while (res->nframes > 1 &&
	       clone_of(res->frames[res->nframes - 2].function,
			res->frames[res->nframes - 1].function)) {
		res->frames[res->nframes - 2].function =
			res->frames[res->nframes - 1].function;
		res->nframes--;
	}
	if (state)
		state[obj] |= obj_state(err, res);
	if (res->nframes == 0) {
		/* One "[unknown]" per object, whatever the address. */
		res->nframes = 1;
		res->frames[0].function = "[unknown]";
		res->symbol_start = 0;
	}
}

/* s, kept in r's pool unless borrowed. */
static const char *keep(struct report *r, const char *s, int borrow)
{
	return borrow ? s : report_pool_dup(r, s);
}

int report_resolve_sites(struct report *r, struct symbolizer *sym,
			 struct site *sites, size_t n, uint8_t *bad,
			 int borrow)
{
	const struct profile *p = r->prof;
	size_t i;

	for (i = 0; i < n; i++) {
		struct sym_result res;
		const struct sym_frame *in, *out_f;

		report_resolve(p, sym, sites[i].obj, sites[i].offset, &res,
			       bad);
		in = &res.frames[0];
		out_f = &res.frames[res.nframes - 1];
		sites[i].proc = keep(r, in->function, borrow);
		sites[i].inl = in != out_f ?
			       keep(r, out_f->function, borrow) : NULL;
		sites[i].file = keep(r, in->file, borrow);
		sites[i].line = in->line;
		sites[i].module = keep(r, res.module, borrow);
		sites[i].vaddr = res.vaddr ? res.vaddr : sites[i].offset;
		sites[i].start = res.symbol_start;
		sites[i].anon = !!(res.flags & SYM_F_ANON);
		if (!sites[i].proc)
			return -PROF_ENOMEM;
	}
	return 0;
}

/* Note object obj as stale, with the file that has another build-id. */
static int stale_object(struct report *r, struct symbolizer *sym,
			uint32_t obj)
{
	const struct profile *p = r->prof;
	struct sym_object so = report_sym_obj(p, obj);
	struct sym_object_info info;

	sym_object_info(sym, &so, &info);
	return report_note_add(r, REPORT_NOTE_STALE, p->objects[obj].path,
			       info.mismatch ? info.mismatch :
			       p->objects[obj].path) ? 0 : -PROF_ENOMEM;
}

/* Note obj as unreadable, with the symbolizer's reason. */
static int unreadable_object(struct report *r, struct symbolizer *sym,
			     uint32_t obj)
{
	const struct profile *p = r->prof;
	struct sym_object so = report_sym_obj(p, obj);
	char why[128];

	r->unresolved_objects++;
	if (!p->objects[obj].path)
		return 0;
	sym_object_error(sym, &so, why, sizeof(why));
	/* Out of memory only loses the reason. */
	return report_note_add(r, REPORT_NOTE_UNREADABLE, p->objects[obj].path,
			       report_pool_dup(r, why)) ? 0 : -PROF_ENOMEM;
}

/*
 * Note obj, sampled in code no symbol names, by what the symbolizer has
 * of its symbols (from the object and the debug file it found, the same
 * lookup that named the rows): nothing, .dynsym's exports, or all (code
 * without a symbol in an object with debug info: nothing to say).
 */
static int anonymous_object(struct report *r, struct symbolizer *sym,
			    uint32_t obj)
{
	const struct profile *p = r->prof;
	struct sym_object so = report_sym_obj(p, obj);
	struct sym_object_info info;
	enum report_note_kind kind;

	if (sym_object_info(sym, &so, &info) || info.err)
		return 0;
	if (info.symbols == SYM_SYMS_NONE)
		kind = REPORT_NOTE_NO_SYMBOLS;
	else if (info.symbols == SYM_SYMS_EXPORTED)
		kind = REPORT_NOTE_EXPORTED_ONLY;
	else
		return 0;
	return report_note_add(r, kind, p->objects[obj].path, NULL) ?
	       0 : -PROF_ENOMEM;
}

/* What resolving told of object i, noted. */
int report_note_object(struct report *r, struct symbolizer *sym,
		       uint32_t i, uint8_t state)
{
	const struct profile *p = r->prof;

	if (state & OBJ_UNREADABLE)
		return unreadable_object(r, sym, i);
	if (state & OBJ_BADDWARF)
		return report_note_add(r, REPORT_NOTE_BAD_DWARF,
				       p->objects[i].path, NULL) ?
		       0 : -PROF_ENOMEM;
	if (state & OBJ_STALE)
		return stale_object(r, sym, i);
	if (p->objects[i].kind == PROF_OBJ_FILE && (state & OBJ_ANONYMOUS))
		return anonymous_object(r, sym, i);
	return 0;
}

/*
 * -only and -exclude patterns that match no procedure of the profile (by
 * the out-of-line procedure's name, the rule of every view): a typo
 * would otherwise give an empty or unchanged report without a word.
 */
int report_note_unmatched(struct report *r, struct symbolizer *sym)
{
	const struct report_options *o = &r->opt;
	const struct profile *p = r->prof;
	size_t npat = o->nonly + o->nexclude, left, i, k;
	unsigned char *hit;
	char buf[600];

	if (!npat || report_is_counting(p))
		return 0;
	hit = calloc(npat, 1);
	if (!hit)
		return -PROF_ENOMEM;
	left = npat;
	for (i = 0; i < p->ncounts && left; i++) {
		const struct prof_count *c = &p->counts[i];
		struct sym_result res;
		const char *name;

		if (i && c->obj == p->counts[i - 1].obj &&
		    c->offset == p->counts[i - 1].offset)
			continue;
		report_resolve(p, sym, c->obj, c->offset, &res, NULL);
		name = res.frames[res.nframes - 1].function;
		for (k = 0; k < npat; k++) {
			const char *pat = k < o->nonly ? o->only[k] :
				o->exclude[k - o->nonly];

			if (!hit[k] && name && report_name_matches(&pat, 1,
								   name)) {
				hit[k] = 1;
				left--;
			}
		}
	}
	for (k = 0; k < npat; k++) {
		if (hit[k])
			continue;
		snprintf(buf, sizeof(buf), "%s '%s'", k < o->nonly ? "-only" :
			 "-exclude", k < o->nonly ? o->only[k] :
			 o->exclude[k - o->nonly]);
		const char *said = report_pool_dup(r, buf);

		if (!said ||
		    !report_note_add(r, REPORT_NOTE_UNMATCHED, said, NULL)) {
			free(hit);
			return -PROF_ENOMEM;
		}
	}
	free(hit);
	return 0;
}
