/* SPDX-License-Identifier: MIT */
/*
 * --format callgrind: the samples model (report.h) in the callgrind
 * profile format, version 1 (Valgrind's "Callgrind Format
 * Specification"), for callgrind_annotate and KCachegrind.  Layout only:
 * the functions, lines and stacks come from the report model.
 *
 * - Events: one per statistic with counts of its own (not a ratio, not
 *   a counting statistic), named as the report names it.  A cost is the
 *   statistic's weight, the sum of its sample periods (nanoseconds for
 *   the clocks, events for the counters), so "summary:" is the report's
 *   total weight of each statistic, exactly.
 * - Positions are "instr line": a location's address (the ELF virtual
 *   address for files, what objdump shows) and its source line, 0 when
 *   unknown.
 * - Self cost: each sample's innermost frame, at its position.
 * - Inlined code: each level of a location's inline chain is a function
 *   of its own (fn=), called by the function it was inlined into at the
 *   line of the inlined call, as the report's rows and call-stack views
 *   show it: both consumers then list an inlined function by name, with
 *   the self cost the report gives it.  fi=/fe= appear only where a
 *   function's line lies in a file other than the function's own.
 * - Calls: every pair of adjacent frames of a stack (caller, callee) is
 *   a call arc: cfn= with calls=N (N the samples of all statistics
 *   through it, always > 0: callgrind_annotate adds the cost of a
 *   calls=0 arc to the caller's self cost), whose cost line at the call
 *   site holds the inclusive cost.  callgrind_annotate --inclusive=yes and KCachegrind both take a
 *   called function's inclusive cost to be the sum of its inbound arcs,
 *   so an arc carries a stack only where its callee is outermost in that
 *   stack: each stack then counts once in the inclusive cost of every
 *   function in it, however deep the recursion (the report's total%),
 *   and a recursive arc (f calls f) carries nothing and is not written.
 *   A call's target position is the lowest address sampled in the
 *   callee (the entry is not in the model).
 * - A truncated stack's marker ("[truncated: ...]") is an outermost
 *   function without a position, in the object whose frame it calls.
 * - File names: a file below the working directory is named relative to
 *   it, in every line that names it (fl=, fi=/fe=, cfi=).  A function is
 *   "file:name" to callgrind_annotate, which takes its working directory
 *   off the names of fl= and fi=/fe=, not off those of cfi=: an absolute
 *   name below it would make two functions of one, the one defined and
 *   the one called.  Relative, a name is the same in both, and it is
 *   what callgrind_annotate shows, and opens, run where it was written
 *   (elsewhere, with -I DIR).
 */
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/stats/stats.h"
#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "formats/report/report.h"
#include "writers.h"

#define NONE UINT32_MAX
#define UNKNOWN_NAME "???"	/* Valgrind's name for an unknown file */

/* One cost line: self cost at a position, or a call arc from it. */
struct cg_key {
	uint32_t loc;		/* the position's location */
	uint32_t line;		/* index into lines: function and line */
	uint32_t callee;	/* function called, or NONE: self cost */
	uint32_t obj;		/* the caller's object (for a marker, the
				 * callee's) */
};

struct cg_entry {
	struct cg_key k;
	uint64_t calls;		/* samples through the arc */
	size_t cost;		/* index of its first cost in costs */
	uint32_t callee_obj;
};

struct cg_target {
	uint64_t address;
	unsigned line;
	int seen;
};

/* The frames of one sample, leaf first: each level of each location's
 * inline chain. */
struct cg_frame {
	uint32_t loc, line;
};

struct cg {
	const struct report *r;
	const struct report_samples *s;
	size_t *ev;		/* statistic of each event */
	size_t nev;
	struct cg_entry *ent;
	size_t nent, alloc_ent;
	uint64_t *costs;
	size_t alloc_costs;
	uint32_t *slots;	/* entry index + 1; 0: empty */
	size_t cap;
	struct cg_frame *fr;
	size_t alloc_fr;
	uint32_t *stamp;	/* per function: sample + 1 last seen in */
	struct cg_target *target;	/* per function */
	/* name compression: ids per object, function and file name */
	uint32_t *ob_id, *fn_id, next_id[2];
	const char **files;	/* file names given an id, by id - 1 */
	size_t nfiles, alloc_files, last_file;
	/* the working directory, as pwd says it and as it is: "" none */
	char cwd[2][PATH_MAX];
};

enum { ID_OB, ID_FN };

static uint64_t key_hash(const struct cg_key *k)
{
	return hash_mix64(((uint64_t)k->loc << 32 | k->line) ^
		   hash_mix64((uint64_t)k->callee << 32 | k->obj));
}

static int key_eq(const struct cg_key *a, const struct cg_key *b)
{
	return a->loc == b->loc && a->line == b->line &&
	       a->callee == b->callee && a->obj == b->obj;
}

static int grow_slots(struct cg *c)
{
	size_t cap = c->cap ? c->cap * 2 : 4096, i;
	uint32_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -PROF_ENOMEM;
	for (i = 0; i < c->nent; i++) {
		size_t h = key_hash(&c->ent[i].k) & (cap - 1);

		while (slots[h])
			h = (h + 1) & (cap - 1);
		slots[h] = (uint32_t)i + 1;
	}
	free(c->slots);
	c->slots = slots;
	c->cap = cap;
	return 0;
}

/* The entry of k, added with zero costs when new; NULL: out of memory. */
static struct cg_entry *entry(struct cg *c, const struct cg_key *k)
{
	struct cg_entry *e;
	size_t h;

	if ((c->nent + 1) * 2 > c->cap && grow_slots(c))
		return NULL;
	for (h = key_hash(k) & (c->cap - 1); c->slots[h];
	     h = (h + 1) & (c->cap - 1))
		if (key_eq(&c->ent[c->slots[h] - 1].k, k))
			return &c->ent[c->slots[h] - 1];
	if (ALLOC_GROW(c->ent, c->nent + 1, c->alloc_ent) ||
	    ALLOC_GROW(c->costs, (c->nent + 1) * c->nev, c->alloc_costs))
		return NULL;
	e = &c->ent[c->nent];
	memset(e, 0, sizeof(*e));
	e->k = *k;
	e->cost = c->nent * c->nev;
	memset(&c->costs[e->cost], 0, c->nev * sizeof(*c->costs));
	c->slots[h] = (uint32_t)++c->nent;
	return e;
}

static int is_marker(const struct cg *c, uint32_t loc)
{
	return c->s->locs[loc].obj == NONE;
}

static uint32_t func_of(const struct cg *c, const struct cg_frame *f)
{
	return c->s->lines[f->line].func;
}

/* Add the sample's weights (and, for an arc, its samples) to the cost
 * line of the key. */
static int add(struct cg *c, const struct cg_key *k, uint32_t callee_obj,
	       const struct report_ssample *x)
{
	struct cg_entry *e = entry(c, k);
	size_t i;

	if (!e)
		return -PROF_ENOMEM;
	e->callee_obj = callee_obj;
	for (i = 0; i < c->nev; i++) {
		c->costs[e->cost + i] += x->weight[c->ev[i]];
		if (k->callee != NONE)
			e->calls += x->samples[c->ev[i]];
	}
	if (k->callee != NONE && !e->calls)
		e->calls = 1;	/* a sample with weight but no count */
	return 0;
}

/* Remember the lowest address sampled in each function: the target of
 * the calls to it. */
static void see_target(struct cg *c, const struct cg_frame *f)
{
	const struct report_sloc *l = &c->s->locs[f->loc];
	struct cg_target *t = &c->target[func_of(c, f)];

	if (is_marker(c, f->loc) || (t->seen && t->address <= l->address))
		return;
	t->address = l->address;
	t->line = c->s->lines[f->line].line;
	t->seen = 1;
}

static int sample_costs(struct cg *c, size_t n)
{
	const struct report_samples *s = c->s;
	const struct report_ssample *x = &s->samples[n];
	size_t nfr = 0, i, k;
	int any = 0;

	for (i = 0; i < c->nev; i++)
		any |= x->weight[c->ev[i]] || x->samples[c->ev[i]];
	if (!any || !x->nlocs)
		return 0;
	for (i = 0; i < x->nlocs; i++) {
		uint32_t loc = s->sample_locs[x->first + i];
		const struct report_sloc *l = &s->locs[loc];

		if (ALLOC_GROW(c->fr, nfr + l->nlines, c->alloc_fr))
			return -PROF_ENOMEM;
		for (k = 0; k < l->nlines; k++) {
			c->fr[nfr].loc = loc;
			c->fr[nfr++].line = l->first_line + (uint32_t)k;
		}
	}
	if (!nfr)
		return 0;
	for (i = 0; i < nfr; i++)
		see_target(c, &c->fr[i]);
	if (add(c, &(struct cg_key){ c->fr[0].loc, c->fr[0].line, NONE,
				     s->locs[c->fr[0].loc].obj },
		NONE, x))
		return -PROF_ENOMEM;
	/* Root to leaf: an arc carries the stack where its callee is
	 * outermost (the first time the walk meets it). */
	for (i = nfr - 1; i > 0; i--) {
		const struct cg_frame *caller = &c->fr[i];
		const struct cg_frame *callee = &c->fr[i - 1];
		uint32_t fn = func_of(c, callee);
		uint32_t cobj = s->locs[callee->loc].obj;
		uint32_t obj = s->locs[caller->loc].obj;

		if (i == nfr - 1)
			c->stamp[func_of(c, caller)] = (uint32_t)n + 1;
		if (c->stamp[fn] == (uint32_t)n + 1)
			continue;
		c->stamp[fn] = (uint32_t)n + 1;
		if (add(c, &(struct cg_key){ caller->loc, caller->line, fn,
					     obj == NONE ? cobj : obj },
			cobj, x))
			return -PROF_ENOMEM;
	}
	return 0;
}

/* ---- output ---- */

static const char *file_name(const char *f)
{
	return f && *f ? f : UNKNOWN_NAME;
}

/* The working directory, logical ($PWD, if it is this directory) and
 * physical; "/" is none (nothing to take off). */
static void working_dirs(struct cg *c)
{
	const char *pwd = getenv("PWD");
	struct stat a, b;

	if (pwd && pwd[0] == '/' && strlen(pwd) < sizeof(c->cwd[0]) &&
	    !stat(pwd, &a) && !stat(".", &b) && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino)
		strcpy(c->cwd[0], pwd);
	if (!getcwd(c->cwd[1], sizeof(c->cwd[1])))
		c->cwd[1][0] = '\0';
}

/* A source file's name as written: relative when it lies below the
 * working directory. */
static const char *src_name(const struct cg *c, const char *f)
{
	size_t i, n;

	f = file_name(f);
	for (i = 0; i < 2; i++) {
		n = strlen(c->cwd[i]);
		while (n && c->cwd[i][n - 1] == '/')
			n--;
		if (n && !strncmp(f, c->cwd[i], n) && f[n] == '/' && f[n + 1])
			return f + n + 1;
	}
	return f;
}

/* The id slot of an object (the last one: no object). */
static uint32_t *ob_slot(struct cg *c, uint32_t obj)
{
	return &c->ob_id[obj < c->r->prof->nobjects ? obj :
			 c->r->prof->nobjects];
}

static const char *obj_name(const struct cg *c, uint32_t obj)
{
	return obj < c->r->prof->nobjects && c->r->prof->objects[obj].path ?
	       c->r->prof->objects[obj].path : UNKNOWN_NAME;
}

/* A name from outside (symbols, DWARF, paths, the command line): a line
 * of the format ends at a newline, so control bytes are written as
 * \xNN. */
static void put_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch < 0x20 || ch == 0x7f)
			fprintf(f, "\\x%02x", ch);
		else
			putc(ch, f);
	}
}

/* KEY=(id) name the first time, KEY=(id) after: *id is 0 until then.
 * Objects (ob=, cob=) and functions (fn=, cfn=) have an id space each. */
static void put_name(FILE *f, struct cg *c, const char *key, int space,
		     uint32_t *id, const char *name)
{
	if (*id) {
		fprintf(f, "%s=(%" PRIu32 ")\n", key, *id);
		return;
	}
	*id = ++c->next_id[space];
	fprintf(f, "%s=(%" PRIu32 ") ", key, *id);
	put_text(f, name);
	putc('\n', f);
}

/* File names have no index of their own: an id is found by name (the
 * last one found first: lines of a file come together). */
static int put_file(FILE *f, struct cg *c, const char *key, const char *name)
{
	size_t i;

	if (c->last_file < c->nfiles && !strcmp(c->files[c->last_file], name)) {
		fprintf(f, "%s=(%zu)\n", key, c->last_file + 1);
		return 0;
	}
	for (i = 0; i < c->nfiles; i++)
		if (!strcmp(c->files[i], name)) {
			c->last_file = i;
			fprintf(f, "%s=(%zu)\n", key, i + 1);
			return 0;
		}
	if (ALLOC_GROW(c->files, c->nfiles + 1, c->alloc_files))
		return -PROF_ENOMEM;
	c->last_file = c->nfiles;
	c->files[c->nfiles++] = name;
	fprintf(f, "%s=(%zu) ", key, c->nfiles);
	put_text(f, name);
	putc('\n', f);
	return 0;
}

static void put_costs(FILE *f, const struct cg *c, const struct cg_entry *e)
{
	size_t i;

	for (i = 0; i < c->nev; i++)
		fprintf(f, " %" PRIu64, c->costs[e->cost + i]);
	putc('\n', f);
}

static void put_position(FILE *f, const struct cg *c, uint32_t loc,
			 unsigned line)
{
	if (is_marker(c, loc))
		fputs("0 0", f);
	else
		fprintf(f, "0x%" PRIx64 " %u", c->s->locs[loc].address, line);
}

static const struct cg *sort_cg;

static int cmp_str(const char *a, const char *b)
{
	return strcmp(file_name(a), file_name(b));
}

/* Objects, then functions, then the function's own file before the
 * others, then positions; self cost before the calls at a position. */
static int cmp_entry(const void *pa, const void *pb)
{
	const struct cg *c = sort_cg;
	const struct cg_entry *a = pa, *b = pb;
	const struct report_sline *la = &c->s->lines[a->k.line];
	const struct report_sline *lb = &c->s->lines[b->k.line];
	const char *fa = c->s->funcs[la->func].file;
	int d;

	if (a->k.obj != b->k.obj)
		return a->k.obj < b->k.obj ? -1 : 1;
	if (la->func != lb->func)
		return la->func < lb->func ? -1 : 1;
	d = (cmp_str(la->file, fa) != 0) - (cmp_str(lb->file, fa) != 0);
	if (!d)
		d = cmp_str(la->file, lb->file);
	if (d)
		return d;
	if (c->s->locs[a->k.loc].address != c->s->locs[b->k.loc].address)
		return c->s->locs[a->k.loc].address <
		       c->s->locs[b->k.loc].address ? -1 : 1;
	if (la->line != lb->line)
		return la->line < lb->line ? -1 : 1;
	if (a->k.callee != b->k.callee)
		return a->k.callee == NONE ? -1 : b->k.callee == NONE ? 1 :
		       a->k.callee < b->k.callee ? -1 : 1;
	return a->k.loc < b->k.loc ? -1 : a->k.loc > b->k.loc;
}

/* "event: NAME : what it is (unit)" */
static void put_event(FILE *f, const struct prof_stat *st, const char *name)
{
	int sim = st->flags & PROF_STAT_SIMULATED;
	const struct stat_def *d = sim ? stat_sim_lookup(st->name) :
				   stat_lookup(st->name);
	const char *desc = !d ? st->name : sim && d->sim.desc ? d->sim.desc :
			   d->desc;
	int clock = st->type == PERF_TYPE_SOFTWARE &&
		    (st->config == PERF_COUNT_SW_CPU_CLOCK ||
		     st->config == PERF_COUNT_SW_TASK_CLOCK);

	fprintf(f, "event: %s : ", name);
	put_text(f, desc);
	if (st->flags & PROF_STAT_SUBSTITUTE)
		fprintf(f, ", for %s", st->requested);
	fprintf(f, " (%s)\n", clock ? "nanoseconds" : "events");
}

/*
 * An event's name: the statistic's, made a single word (the events line
 * is split at blanks), with "_N" for the N-th statistic of the same name
 * (-pixie's simulated retinst next to a sampled one).
 */
static void event_name(const struct report *r, size_t s, char *buf,
		       size_t len)
{
	size_t i, n = 1;
	char *p;

	for (i = 0; i < s; i++)
		n += !strcmp(r->prof->stats[i].name, r->prof->stats[s].name);
	if (n == 1)
		snprintf(buf, len, "%s", r->prof->stats[s].name);
	else
		snprintf(buf, len, "%s_%zu", r->prof->stats[s].name, n);
	for (p = buf; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == ',' || *p == 0x7f)
			*p = '_';
}

static void header(FILE *f, const struct cg *c)
{
	const struct profile *p = c->r->prof;
	char name[160];
	size_t i;
	int a;

	fputs("# callgrind format\nversion: 1\ncreator: ", f);
	put_text(f, p->tool ? p->tool : "uprofile");
	fprintf(f, " %s\n", PROF_VERSION);
	fputs("cmd:", f);
	for (a = 0; a < p->argc; a++) {
		putc(' ', f);
		put_text(f, p->argv[a]);
	}
	fputs("\npositions: instr line\n", f);
	for (i = 0; i < c->nev; i++) {
		event_name(c->r, c->ev[i], name, sizeof(name));
		put_event(f, &p->stats[c->ev[i]], name);
	}
	/* callgrind_annotate reads the header up to events:, then the
	 * body, where it takes summary: too. */
	fputs("events:", f);
	for (i = 0; i < c->nev; i++) {
		event_name(c->r, c->ev[i], name, sizeof(name));
		fprintf(f, " %s", name);
	}
	fputs("\nsummary:", f);
	for (i = 0; i < c->nev; i++)
		fprintf(f, " %" PRIu64, c->s->total_weight[c->ev[i]]);
	fputs("\n\n", f);
}

static int body(FILE *f, struct cg *c)
{
	const struct report_samples *s = c->s;
	uint32_t obj = NONE, fn = NONE;
	const char *file = NULL;
	size_t i;

	for (i = 0; i < c->nent; i++) {
		const struct cg_entry *e = &c->ent[i];
		const struct report_sline *l = &s->lines[e->k.line];
		const char *ffile = src_name(c, s->funcs[l->func].file);
		const char *lfile = src_name(c, l->file);

		if (e->k.obj != obj) {
			obj = e->k.obj;
			fn = NONE;
			putc('\n', f);
			put_name(f, c, "ob", ID_OB, ob_slot(c, obj),
				 obj_name(c, obj));
		}
		if (l->func != fn) {
			fn = l->func;
			if (put_file(f, c, "fl", ffile))
				return -PROF_ENOMEM;
			put_name(f, c, "fn", ID_FN, &c->fn_id[fn],
				 s->funcs[fn].name);
			file = ffile;
		}
		if (strcmp(lfile, file)) {
			if (put_file(f, c, strcmp(lfile, ffile) ? "fi" : "fe",
				     lfile))
				return -PROF_ENOMEM;
			file = lfile;
		}
		if (e->k.callee != NONE) {
			const struct cg_target *t = &c->target[e->k.callee];

			if (e->callee_obj != obj && e->callee_obj != NONE)
				put_name(f, c, "cob", ID_OB,
					 ob_slot(c, e->callee_obj),
					 obj_name(c, e->callee_obj));
			if (put_file(f, c, "cfi",
				     src_name(c, s->funcs[e->k.callee].file)))
				return -PROF_ENOMEM;
			put_name(f, c, "cfn", ID_FN, &c->fn_id[e->k.callee],
				 s->funcs[e->k.callee].name);
			fprintf(f, "calls=%" PRIu64 " ", e->calls);
			if (t->seen)
				fprintf(f, "0x%" PRIx64 " %u\n", t->address,
					t->line);
			else
				fputs("0 0\n", f);
		}
		put_position(f, c, e->k.loc, l->line);
		put_costs(f, c, e);
	}
	return 0;
}

static void release(struct cg *c)
{
	free(c->ev);
	free(c->ent);
	free(c->costs);
	free(c->slots);
	free(c->fr);
	free(c->stamp);
	free(c->target);
	free(c->ob_id);
	free(c->fn_id);
	free(c->files);
}

int fmt_callgrind(FILE *f, const struct report *r)
{
	const struct report_samples *s = r->samples;
	struct cg c = { .r = r, .s = s };
	size_t i;
	int err = 0;

	if (!s)
		return prof_fail(PROF_EINVAL, "callgrind: the report has no "
				 "samples model");
	c.ev = calloc(s->nstats + 1, sizeof(*c.ev));
	c.stamp = calloc(s->nfuncs + 1, sizeof(*c.stamp));
	c.target = calloc(s->nfuncs + 1, sizeof(*c.target));
	c.fn_id = calloc(s->nfuncs + 1, sizeof(*c.fn_id));
	c.ob_id = calloc(r->prof->nobjects + 1, sizeof(*c.ob_id));
	if (!c.ev || !c.stamp || !c.target || !c.fn_id || !c.ob_id) {
		err = -PROF_ENOMEM;
		goto out;
	}
	for (i = 0; i < s->nstats; i++)
		if (report_stat_counted(&r->prof->stats[i]))
			c.ev[c.nev++] = i;
	if (!c.nev) {
		err = prof_fail(PROF_EINVAL, "callgrind: the profile has no "
				"sampled statistic");
		goto out;
	}
	working_dirs(&c);
	for (i = 0; i < s->nsamples && !err; i++)
		err = sample_costs(&c, i);
	if (err)
		goto out;
	sort_cg = &c;
	qsort(c.ent, c.nent, sizeof(*c.ent), cmp_entry);
	header(f, &c);
	err = body(f, &c);
	if (!err && ferror(f))
		err = -PROF_EIO;
out:
	release(&c);
	return err;
}
