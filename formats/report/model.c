/* SPDX-License-Identifier: MIT */
/*
 * Building the report model: symbolize each unique address once, group
 * counts into rows, compute totals, percentages and derived statistics,
 * sort, filter.
 */
#include <errno.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "common/util/regfile.h"
#include "report.h"
#include "report_int.h"
#include "symbolize/symbolize.h"

/* Strings owned by the report (row keys are built from symbolizer strings,
 * which die with the symbolizer, so they are copied here). */
struct strpool {
	char **s;
	size_t n, alloc;
};

/* A source file read for the asm view: its lines. */
struct source {
	const char *path;
	char *text;
	char **lines;
	size_t nlines;
};

struct priv {
	struct strpool pool;
	void **mem;		/* arrays the rows point into */
	size_t nmem, alloc_mem;
	struct source *sources;
	size_t nsources, alloc_sources;
	size_t alloc_skipped, alloc_missing;
	struct profile *own_prof;	/* report-time -ra's copy, or NULL */
};

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
	char *d;

	if (!s)
		return NULL;
	/* Interning keeps memory bounded when many rows share a string. */
	for (size_t i = p->n; i-- > 0 && i + 64 > p->n;)
		if (!strcmp(p->s[i], s))
			return p->s[i];
	if (ALLOC_GROW(p->s, p->n + 1, p->alloc))
		return NULL;
	d = strdup(s);
	if (!d)
		return NULL;
	p->s[p->n++] = d;
	return d;
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

/*
 * One unique (object, offset) with what the symbolizer said.  There is
 * one per instruction of every decoded procedure: the fields are in the
 * order that leaves no padding between them.
 */
struct site {
	uint32_t obj;
	uint32_t insn;			/* index into code->insns */
	uint64_t offset;
	uint64_t vaddr;
	const char *proc, *inl, *file, *module;
	const struct sym_code *code;	/* its procedure's code, or NULL */
	size_t row;
	double execs;			/* estimated executions */
	uint64_t exact;			/* exact executions (sim, -pixie) */
	unsigned line;
	unsigned char sampled;		/* some count here has samples */
	unsigned char anon;		/* anonymous code nothing names */
};

/* What the phases of report_build share. */
struct build {
	struct report *r;
	struct symbolizer *sym;
	struct site *sites;		/* unique (object, offset), sorted */
	size_t nsites, alloc_sites;
	long exact_stat;		/* the exact retired statistic, or -1 */
	/*
	 * -only/-exclude applied to procedures before their code is
	 * decoded and their rows built (select_first()): the sampled
	 * sites left out, still named for the notes on objects; the rows
	 * with data there would have been without them.
	 */
	int select;
	int select_quit;		/* -quit too (asm view): the hottest
					 * procedures chosen before decoding */
	struct site *dropped;
	size_t ndropped, alloc_dropped;
	size_t nrows_all;
	/*
	 * The blocks view without freq shows only blocks with counts: the
	 * instructions of the others are no sites (wanted_blocks()), but
	 * are resolved all the same, for what name_sites() notes on
	 * objects.  Per decoded procedure: its object, and which of its
	 * blocks have sites.
	 */
	const struct sym_code **left_codes;
	uint32_t *left_obj;
	unsigned char **left_marks;
	size_t nleft;
	struct report_sbuild *sb;	/* the call stacks' working state */
};

static size_t str_hash(size_t h, const char *s)
{
	if (!s)
		return h * 31 + 7;
	while (*s)
		h = h * 131 + (unsigned char)*s++;
	return h * 31 + 1;
}

static int same_str(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

static int cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static struct site *find_site(struct site *sites, size_t n, uint32_t obj,
			      uint64_t offset)
{
	struct site key = { .obj = obj, .offset = offset };

	return bsearch(&key, sites, n, sizeof(*sites), cmp_site);
}

/* Hottest first: by the weight of each of the nstats statistics in
 * turn, then freq, then name and place. */
static int hotter(const struct report_row *x, const struct report_row *y,
		  size_t nstats)
{
	size_t i;
	int c;

	for (i = 0; i < nstats; i++) {
		if (x->weight[i] != y->weight[i])
			return x->weight[i] > y->weight[i] ? -1 : 1;
	}
	if (x->freq != y->freq && !isnan(x->freq) && !isnan(y->freq))
		return x->freq > y->freq ? -1 : 1;
	c = strcmp(x->procedure, y->procedure);
	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	return report_by_cmp(x, y);
}

/* hotter() for qsort_r; ctx is the report. */
static int cmp_hot(const void *a, const void *b, void *ctx)
{
	const struct report *r = ctx;

	return hotter(a, b, r->nstats);
}

static int cmp_str0(const char *a, const char *b)
{
	if (a == b)
		return 0;
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_lines(const void *a, const void *b)
{
	const struct report_row *x = a, *y = b;
	int c;

	if ((c = cmp_str0(x->object, y->object)))
		return c;
	if ((c = cmp_str0(x->procedure, y->procedure)))
		return c;
	if ((c = cmp_str0(x->inlined_into, y->inlined_into)))
		return c;
	if ((c = cmp_str0(x->file, y->file)))
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* cmp_lines(), the rows of one line (split by -by) hottest first; ctx
 * is the report. */
static int cmp_lines_hot(const void *a, const void *b, void *ctx)
{
	int c = cmp_lines(a, b);

	return c ? c : cmp_hot(a, b, ctx);
}

/* The index of the instruction of c that starts at offset, or SIZE_MAX
 * (an offset inside an instruction, or in bytes that did not decode). */
static size_t insn_at(const struct sym_code *c, uint64_t offset)
{
	size_t lo = 0, hi = c->ninsns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->insns[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->ninsns && c->insns[lo].offset == offset ? lo : SIZE_MAX;
}

int report_name_matches(const char *const *pats, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!fnmatch(pats[i], name, 0))
			return 1;
	return 0;
}

void report_free(struct report *r)
{
	struct priv *pv;
	size_t i;

	if (!r)
		return;
	pv = r->priv;
	if (pv) {
		for (i = 0; i < pv->pool.n; i++)
			free(pv->pool.s[i]);
		free(pv->pool.s);
		for (i = 0; i < pv->nmem; i++)
			free(pv->mem[i]);
		free(pv->mem);
		for (i = 0; i < pv->nsources; i++) {
			free(pv->sources[i].text);
			free(pv->sources[i].lines);
		}
		free(pv->sources);
		if (pv->own_prof) {
			free(pv->own_prof->counts);
			free(pv->own_prof->ra_routines);
			free(pv->own_prof);
		}
		free(pv);
	}
	report_samples_free(r->samples);
	free(r->rows);
	free(r->stale);
	free(r->stale_files);
	free(r->nosyms);
	free(r->exported_only);
	free(r->baddwarf);
	free(r->unreadable);
	free(r->skipped);
	free(r->missing_sources);
	free(r->ratios);
	free(r->total_samples);
	free(r->total_weight);
	free(r->multiplexed);
	free(r->running_percent);
	free(r);
}

static struct sym_object sym_obj(const struct profile *p, uint32_t obj)
{
	const struct prof_object *o = &p->objects[obj];
	struct sym_object so = {
		.kind = (enum sym_obj_kind)o->kind,
		.path = o->path,
		.build_id = o->build_id_len ? o->build_id : NULL,
		.build_id_len = o->build_id_len,
	};

	return so;
}

static int sort_unique_sites(struct site *sites, size_t *n)
{
	size_t i, k = 1;

	if (*n > 1)
		qsort(sites, *n, sizeof(*sites), cmp_site);
	/* Unique (object, offset): counts of several statistics share one. */
	if (*n) {
		for (i = 1; i < *n; i++)
			if (cmp_site(&sites[i], &sites[k - 1]))
				sites[k++] = sites[i];
		*n = k;
	}
	return 0;
}

/* The code of site i's procedure: its predecessor's when it is in the
 * same one (sites are sorted), else from the symbolizer. */
static const struct sym_code *site_code(const struct profile *p,
					struct symbolizer *sym,
					const struct site *sites, size_t i,
					int extent_only)
{
	struct sym_object so = sym_obj(p, sites[i].obj);
	const struct sym_code *code = NULL;
	int err;

	if (i && sites[i - 1].code && sites[i].obj == sites[i - 1].obj &&
	    sites[i].offset >= sites[i - 1].code->start &&
	    sites[i].offset < sites[i - 1].code->end)
		return sites[i - 1].code;
	err = extent_only ? sym_code_extent(sym, &so, sites[i].offset, &code)
			  : sym_code(sym, &so, sites[i].offset, &code);
	return err == SYM_OK ? code : NULL;
}

/*
 * The codes of the procedures the sites fall in, each once, with the
 * object of a site in it (*code_obj); counts in *undecoded the
 * procedures whose code could not be read, in *undecoded_kernel those of
 * them in the kernel.
 */
static int find_codes(const struct profile *p, struct symbolizer *sym,
		      struct site *sites, size_t n, int extent_only,
		      const struct sym_code ***pcodes, uint32_t **code_obj,
		      size_t *pncodes, size_t *undecoded,
		      size_t *undecoded_kernel)
{
	const struct sym_code **codes = NULL;
	size_t ncodes = 0, alloc_codes = 0, i, k;
	uint64_t last_obj = UINT64_MAX, last_sym = 0;

	for (i = 0; i < n; i++) {
		const struct sym_code *code = site_code(p, sym, sites, i,
							extent_only);

		sites[i].code = code;
		if (!code) {
			struct sym_object so = sym_obj(p, sites[i].obj);
			struct sym_result res;

			/* Count procedures, not addresses, for the note. */
			memset(&res, 0, sizeof(res));
			sym_resolve(sym, &so, sites[i].offset, &res);
			if (sites[i].obj != last_obj ||
			    res.symbol_start != last_sym) {
				(*undecoded)++;
				if (p->objects[sites[i].obj].kind ==
				    PROF_OBJ_KERNEL)
					(*undecoded_kernel)++;
			}
			last_obj = sites[i].obj;
			last_sym = res.symbol_start;
			continue;
		}
		if (ncodes && codes[ncodes - 1] == code)
			continue;
		if (ALLOC_GROW(codes, ncodes + 1, alloc_codes)) {
			free(codes);
			return -PROF_ENOMEM;
		}
		codes[ncodes++] = code;
	}
	/* Sites are sorted by (obj, offset), so a procedure's sites are
	 * adjacent, but two objects may share a cached code (same file
	 * mapped twice): keep (code, obj) pairs. */
	*code_obj = calloc(ncodes ? ncodes : 1, sizeof(**code_obj));
	if (!*code_obj) {
		free(codes);
		return -PROF_ENOMEM;
	}
	for (i = 0, k = 0; i < n && k < ncodes; i++)
		if (sites[i].code == codes[k])
			(*code_obj)[k++] = sites[i].obj;
	*pcodes = codes;
	*pncodes = ncodes;
	return 0;
}

/* Attach its code and instruction index to every site that starts an
 * instruction of a decoded procedure. */
static void attach_code(const struct profile *p, struct symbolizer *sym,
			struct site *sites, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct sym_code *code = site_code(p, sym, sites, i, 0);
		size_t k;

		sites[i].code = NULL;
		if (!code)
			continue;
		/* An address inside an instruction (or in bytes that did not
		 * decode) stays without code. */
		k = insn_at(code, sites[i].offset);
		if (k != SIZE_MAX) {
			sites[i].code = code;
			sites[i].insn = (uint32_t)k;
		}
	}
}

/* A row's identity in the view (see site_key). */
struct rowkey {
	uint32_t obj;
	const char *proc, *inl, *file;
	unsigned line;
	uint64_t a, b;		/* view-specific: block, bucket, address */
};

static void site_key(const struct report *r, const struct site *s,
		     struct rowkey *k);
static int cmp_key(const void *a, const void *b);
static long find_retired(const struct profile *p, uint32_t kind_flags);

/* Left out by -only or -exclude: a procedure's rows are named name. */
static int name_filtered(const struct report_options *opt, const char *name)
{
	if (opt->nonly && !report_name_matches(opt->only, opt->nonly, name))
		return 1;
	return opt->nexclude &&
	       report_name_matches(opt->exclude, opt->nexclude, name);
}

/* The procedure a site without code is shown in: as outer_proc() will
 * name it once resolve_sites() has. */
static const char *site_own_name(const struct profile *p,
				 struct symbolizer *sym, const struct site *s)
{
	struct sym_object so = sym_obj(p, s->obj);
	struct sym_result res;
	const struct sym_frame *in, *out_f;

	memset(&res, 0, sizeof(res));
	sym_resolve(sym, &so, s->offset, &res);
	if (res.nframes == 0)
		return "[unknown]";
	in = &res.frames[0];
	out_f = &res.frames[res.nframes - 1];
	if (res.nframes > 1 && in->function && out_f->function &&
	    strcmp(in->function, out_f->function))
		return out_f->function;
	return in->function ? in->function : "";
}

/*
 * Leave out the sampled sites of procedures -only/-exclude leave out,
 * before their code is decoded: a site in such a procedure stays only
 * when, at no instruction start, it would be a row of its own name
 * (decoding its procedure tells).  The sites left out go to b->dropped.
 */
static int drop_unselected(struct build *b)
{
	const struct profile *p = b->r->prof;
	const struct report_options *opt = &b->r->opt;
	size_t i, j = 0;

	for (i = 0; i < b->nsites; i++) {
		struct site *s = &b->sites[i];

		if (!s->code || !name_filtered(opt, s->code->procedure) ||
		    !name_filtered(opt, site_own_name(p, b->sym, s))) {
			b->sites[j++] = *s;
			continue;
		}
		if (ALLOC_GROW(b->dropped, b->ndropped + 1, b->alloc_dropped))
			return -PROF_ENOMEM;
		b->dropped[b->ndropped++] = *s;
	}
	b->nsites = j;
	return 0;
}

/*
 * The rows with data the blocks and buckets views would have before
 * -only/-exclude: one per key of the sampled sites (their procedures
 * decoded).
 */
static int count_sampled_rows(struct build *b)
{
	struct site *v = malloc((b->nsites ? b->nsites : 1) * sizeof(*v));
	struct rowkey *keys;
	size_t i, n = 0;

	if (!v)
		return -PROF_ENOMEM;
	for (i = 0; i < b->nsites; i++)
		if (b->sites[i].sampled)
			v[n++] = b->sites[i];
	attach_code(b->r->prof, b->sym, v, n);
	keys = malloc((n ? n : 1) * sizeof(*keys));
	if (!keys) {
		free(v);
		return -PROF_ENOMEM;
	}
	for (i = 0; i < n; i++)
		site_key(b->r, &v[i], &keys[i]);
	if (n > 1)
		qsort(keys, n, sizeof(*keys), cmp_key);
	b->nrows_all = 0;
	for (i = 0; i < n; i++)
		if (!i || cmp_key(&keys[i], &keys[i - 1]))
			b->nrows_all++;
	free(keys);
	free(v);
	return 0;
}

/* A procedure heading of the asm view, foreseen: (object, name). */
struct heading {
	const char *object, *name;
	uint64_t address;		/* its lowest instruction's */
	uint64_t *weight;		/* per statistic */
	double percent;			/* of the first, as make_heading() */
	size_t order;			/* in (object, name) order */
	int keep;
};

static int cmp_heading_name(const void *a, const void *b)
{
	const struct heading *x = a, *y = b;
	int c = cmp_str0(x->object, y->object);

	if (c)
		return c;
	if ((c = cmp_str0(x->name, y->name)))
		return c;
	return x->address < y->address ? -1 : x->address > y->address;
}

/* hotter() on headings (no freq: select_first()), then stable. */
static int cmp_heading_hot(const void *a, const void *b, void *ctx)
{
	const struct heading *x = *(struct heading *const *)a;
	const struct heading *y = *(struct heading *const *)b;
	size_t i, n = *(const size_t *)ctx;
	int c;

	for (i = 0; i < n; i++)
		if (x->weight[i] != y->weight[i])
			return x->weight[i] > y->weight[i] ? -1 : 1;
	if ((c = strcmp(x->name, y->name)))
		return c;
	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Where sym_resolve() puts offset of obj: a row's address. */
static uint64_t site_vaddr(const struct profile *p, struct symbolizer *sym,
			   uint32_t obj, uint64_t offset)
{
	struct sym_object so = sym_obj(p, obj);
	struct sym_result res;

	memset(&res, 0, sizeof(res));
	sym_resolve(sym, &so, offset, &res);
	return res.vaddr ? res.vaddr : offset;
}

/*
 * The name a sampled site's row will have in the asm view: its
 * procedure's when it starts one of its instructions, else its own.
 * Decodes the procedure only when the two differ.
 */
static const char *asm_row_name(struct build *b, const struct site *s)
{
	const struct profile *p = b->r->prof;
	const char *own = site_own_name(p, b->sym, s);
	struct sym_object so = sym_obj(p, s->obj);
	const struct sym_code *c;

	if (!s->code || !strcmp(own, s->code->procedure))
		return s->code ? s->code->procedure : own;
	if (sym_code(b->sym, &so, s->offset, &c) != SYM_OK)
		return own;
	return insn_at(c, s->offset) != SIZE_MAX ? c->procedure : own;
}

/* Index of the heading (object, name) in the sorted h[0 .. n). */
static size_t find_heading(const struct heading *h, size_t n,
			   const char *object, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_str0(h[mid].object, object);

		if (!c)
			c = cmp_str0(h[mid].name, name);
		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

/*
 * -quit in the asm view, before decoding: the procedure headings the
 * listing would have (those -only/-exclude keep), with their totals from
 * the counts and their order (arrange_asm()), cut as cut_asm() cuts.
 * Codes and sampled sites of the headings cut away are left out (keep[],
 * b->dropped); b->nrows_all is the number of headings before the cut.
 */
static int select_hottest(struct build *b, const struct sym_code **codes,
			  const uint32_t *code_obj, unsigned char *keep,
			  size_t ncodes)
{
	struct report *r = b->r;
	const struct profile *p = r->prof;
	const struct report_options *opt = &r->opt;
	size_t ns = r->nstats, nh = 0, i, j, k, kept;
	struct heading *h = calloc(ncodes + b->nsites + 1, sizeof(*h));
	struct heading **order = NULL;
	size_t *site_head = calloc(b->nsites + 1, sizeof(*site_head));
	const char **site_name = calloc(b->nsites + 1, sizeof(*site_name));
	uint64_t *weights = NULL, *site_w0 = NULL;
	int err = -PROF_ENOMEM;

	if (!h || !site_head || !site_name)
		goto out;
	for (k = 0; k < ncodes; k++) {
		if (!keep[k])
			continue;
		h[nh].object = p->objects[code_obj[k]].path;
		h[nh].name = codes[k]->procedure;
		h[nh++].address = site_vaddr(p, b->sym, code_obj[k],
					     codes[k]->start);
	}
	for (i = 0; i < b->nsites; i++) {
		const struct site *s = &b->sites[i];

		site_name[i] = asm_row_name(b, s);
		if (name_filtered(opt, site_name[i]))
			continue;
		h[nh].object = p->objects[s->obj].path;
		h[nh].name = site_name[i];
		h[nh++].address = site_vaddr(p, b->sym, s->obj, s->offset);
	}
	/* One heading per (object, name), at its lowest address. */
	if (nh > 1)
		qsort(h, nh, sizeof(*h), cmp_heading_name);
	for (i = j = 0; i < nh; i++)
		if (!j || cmp_str0(h[i].object, h[j - 1].object) ||
		    cmp_str0(h[i].name, h[j - 1].name))
			h[j++] = h[i];
	nh = j;
	weights = calloc(nh * ns + 1, sizeof(*weights));
	site_w0 = calloc(b->nsites + 1, sizeof(*site_w0));
	order = malloc((nh + 1) * sizeof(*order));
	if (!weights || !site_w0 || !order)
		goto out;
	for (i = 0; i < nh; i++) {
		h[i].weight = weights + i * ns;
		h[i].order = i;
		order[i] = &h[i];
	}
	for (i = 0; i < b->nsites; i++)
		site_head[i] = find_heading(h, nh,
					    p->objects[b->sites[i].obj].path,
					    site_name[i]);
	for (i = 0; i < p->ncounts; i++) {
		const struct prof_count *c = &p->counts[i];
		struct site *s = find_site(b->sites, b->nsites, c->obj,
					   c->offset);

		if (!s || site_head[s - b->sites] == SIZE_MAX)
			continue;
		h[site_head[s - b->sites]].weight[c->stat] += c->weight;
		if (c->stat == 0)
			site_w0[s - b->sites] += c->weight;
	}
	/* A heading's percentage sums its rows' (make_heading()). */
	for (i = 0; ns && i < b->nsites; i++)
		if (site_head[i] != SIZE_MAX)
			h[site_head[i]].percent += r->total_weight[0] ?
				100.0 * (double)site_w0[i] /
				(double)r->total_weight[0] : 0;
	if (nh > 1)
		qsort_r(order, nh, sizeof(*order), cmp_heading_hot, &ns);
	for (kept = 0; kept < nh; kept++) {
		if ((opt->quit_rows && kept == opt->quit_rows) ||
		    (opt->quit_percent > 0 && ns &&
		     order[kept]->percent < opt->quit_percent))
			break;
		order[kept]->keep = 1;
	}
	b->nrows_all = nh;
	for (k = 0; k < ncodes; k++) {
		size_t at = find_heading(h, nh, p->objects[code_obj[k]].path,
					 codes[k]->procedure);

		if (keep[k] && (at == SIZE_MAX || !h[at].keep))
			keep[k] = 0;
	}
	for (i = j = 0; i < b->nsites; i++) {
		if (site_head[i] != SIZE_MAX && h[site_head[i]].keep) {
			b->sites[j++] = b->sites[i];
			continue;
		}
		if (ALLOC_GROW(b->dropped, b->ndropped + 1, b->alloc_dropped))
			goto out;
		b->dropped[b->ndropped++] = b->sites[i];
	}
	b->nsites = j;
	err = 0;
out:
	free(h);
	free(order);
	free(site_head);
	free(site_name);
	free(weights);
	free(site_w0);
	return err;
}

/* Whether the instructions of codes[], in turn, are in site order. */
static int codes_in_order(const struct sym_code **codes,
			  const uint32_t *code_obj, size_t ncodes)
{
	size_t k;

	for (k = 1; k < ncodes; k++)
		if (code_obj[k] < code_obj[k - 1] ||
		    (code_obj[k] == code_obj[k - 1] &&
		     codes[k]->start < codes[k - 1]->end))
			return 0;
	for (k = 0; k < ncodes; k++)
		for (size_t i = 1; i < codes[k]->ninsns; i++)
			if (codes[k]->insns[i].offset <=
			    codes[k]->insns[i - 1].offset)
				return 0;
	return 1;
}

/* Whether instruction x of code is made a site (see wanted_blocks). */
static int wanted(const struct sym_code *code, const unsigned char *mark,
		  size_t x)
{
	return !mark || mark[code->insns[x].block];
}

/* From instruction x of codes[k] on, the first wanted one (k == ncodes:
 * none is left). */
static void next_wanted(const struct sym_code **codes,
			unsigned char *const *marks, size_t ncodes, size_t *k,
			size_t *x)
{
	while (*k < ncodes) {
		if (*x < codes[*k]->ninsns) {
			if (wanted(codes[*k], marks ? marks[*k] : NULL, *x))
				return;
			(*x)++;
		} else {
			(*k)++;
			*x = 0;
		}
	}
}

/*
 * The sites and every wanted instruction of codes[] (in site order:
 * codes_in_order()) merged, each (object, offset) once, the sampled
 * site kept where both have it: what sorting them all would give, without
 * a copy of them all to sort in.
 */
static int merge_code_sites(struct build *b, const struct sym_code **codes,
			    const uint32_t *code_obj,
			    unsigned char *const *marks, size_t ncodes,
			    size_t nadd)
{
	struct site *m = malloc((b->nsites + nadd + 1) * sizeof(*m));
	size_t i = 0, k = 0, x = 0, n = 0;
	struct site e;

	if (!m)
		return -PROF_ENOMEM;
	next_wanted(codes, marks, ncodes, &k, &x);
	while (k < ncodes || i < b->nsites) {
		int c = -1;

		if (k < ncodes) {
			memset(&e, 0, sizeof(e));
			e.obj = code_obj[k];
			e.offset = codes[k]->insns[x].offset;
			c = i < b->nsites ? cmp_site(&b->sites[i], &e) : 1;
		}
		if (c <= 0)
			m[n++] = b->sites[i++];
		else
			m[n++] = e;
		if (c >= 0) {
			x++;
			next_wanted(codes, marks, ncodes, &k, &x);
		}
	}
	free(b->sites);
	b->alloc_sites = b->nsites + nadd + 1;
	b->sites = m;
	b->nsites = n;
	return 0;
}

/*
 * The blocks view without freq: which blocks of each of codes[] have a
 * site (a count) at one of their instructions, in marks[k][block]; the
 * others cannot make a row with data.  NULL marks: every block is wanted.
 */
static int wanted_blocks(struct build *b, const struct sym_code **codes,
			 const uint32_t *code_obj, size_t ncodes,
			 unsigned char ***pmarks)
{
	unsigned char **marks;
	size_t k, i;

	*pmarks = NULL;
	if (b->r->opt.view != REPORT_BLOCKS || find_retired(b->r->prof, 0) >= 0)
		return 0;
	marks = calloc(ncodes ? ncodes : 1, sizeof(*marks));
	if (!marks)
		return -PROF_ENOMEM;
	*pmarks = marks;
	for (k = 0; k < ncodes; k++) {
		const struct sym_code *c = codes[k];
		size_t lo = 0, hi = b->nsites;

		marks[k] = calloc(c->nblocks ? c->nblocks : 1, 1);
		if (!marks[k])
			return -PROF_ENOMEM;
		/* The first site at or after the procedure's start. */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct site *s = &b->sites[mid];

			if (s->obj < code_obj[k] ||
			    (s->obj == code_obj[k] && s->offset < c->start))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (i = lo; i < b->nsites && b->sites[i].obj == code_obj[k] &&
			     b->sites[i].offset < c->end; i++) {
			size_t a = insn_at(c, b->sites[i].offset);

			if (a != SIZE_MAX)
				marks[k][c->insns[a].block] = 1;
		}
	}
	return 0;
}

static void free_marks(unsigned char **marks, size_t n)
{
	size_t k;

	if (!marks)
		return;
	for (k = 0; k < n; k++)
		free(marks[k]);
	free(marks);
}

/*
 * Decode the procedures the sites fall in and add every instruction of
 * them as a site (with no counts), so that freq, blocks and the asm view
 * see whole blocks, not only the instructions that were sampled.  With
 * b->select, only the procedures -only/-exclude keep are decoded (all
 * are in the views whose row count before filtering needs their blocks).
 */
static int expand_code(struct build *b)
{
	const struct profile *p = b->r->prof;
	struct symbolizer *sym = b->sym;
	const struct report_options *opt = &b->r->opt;
	const struct sym_code **codes = NULL;
	uint32_t *code_obj = NULL;
	size_t n = b->nsites, ncodes, nadd = 0, i, k;
	int extent_only = b->select && opt->view == REPORT_ASM;
	unsigned char *keep = NULL, **marks = NULL;
	int err = find_codes(p, sym, b->sites, n, extent_only, &codes,
			     &code_obj, &ncodes, &b->r->undecoded,
			     &b->r->undecoded_kernel);

	if (err)
		return err;
	if (b->select) {
		keep = malloc(ncodes ? ncodes : 1);
		if (!keep) {
			err = -PROF_ENOMEM;
			goto out;
		}
		for (i = 0; i < ncodes; i++)
			keep[i] = !name_filtered(opt, codes[i]->procedure);
		if (!extent_only)
			err = count_sampled_rows(b);
		if (!err)
			err = drop_unselected(b);
		if (!err && b->select_quit)
			err = select_hottest(b, codes, code_obj, keep, ncodes);
		for (i = k = 0; i < ncodes && !err; i++) {
			struct sym_object so = sym_obj(p, code_obj[i]);
			const struct sym_code *c;

			if (!keep[i])
				continue;
			/* The same entry, decoded. */
			if (sym_code(sym, &so, codes[i]->start, &c) != SYM_OK)
				continue;
			codes[k] = c;
			code_obj[k++] = code_obj[i];
		}
		ncodes = k;
		n = b->nsites;
		if (err)
			goto out;
	}
	err = wanted_blocks(b, codes, code_obj, ncodes, &marks);
	if (err)
		goto out;
	for (k = 0; k < ncodes; k++)
		for (i = 0; i < codes[k]->ninsns; i++)
			nadd += wanted(codes[k], marks ? marks[k] : NULL, i);
	if (codes_in_order(codes, code_obj, ncodes)) {
		err = merge_code_sites(b, codes, code_obj, marks, ncodes, nadd);
		if (!err)
			attach_code(p, sym, b->sites, b->nsites);
		goto out;
	}
	if (ALLOC_GROW(b->sites, n + nadd, b->alloc_sites)) {
		err = -PROF_ENOMEM;
		goto out;
	}
	for (k = 0; k < ncodes; k++) {
		for (i = 0; i < codes[k]->ninsns; i++) {
			struct site *s;

			if (!wanted(codes[k], marks ? marks[k] : NULL, i))
				continue;
			s = &b->sites[n++];

			memset(s, 0, sizeof(*s));
			s->obj = code_obj[k];
			s->offset = codes[k]->insns[i].offset;
		}
	}
	sort_unique_sites(b->sites, &n);
	attach_code(p, sym, b->sites, n);
	b->nsites = n;
out:
	if (marks && !err) {
		/* name_sites() resolves the instructions left out. */
		b->left_codes = codes;
		b->left_obj = code_obj;
		b->left_marks = marks;
		b->nleft = ncodes;
		codes = NULL;
		code_obj = NULL;
		marks = NULL;
	}
	free_marks(marks, ncodes);
	free(codes);
	free(code_obj);
	free(keep);
	return err;
}

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
	struct sym_object so = sym_obj(p, obj);
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
		res->nframes = 1;
		res->frames[0].function = "[unknown]";
	}
}

/* The instructions that are no sites (wanted_blocks()) resolved for
 * obj_state() alone: the notes stay those of every instruction. */
static void resolve_left(struct build *b, uint8_t *bad)
{
	size_t k, i;

	for (k = 0; k < b->nleft; k++) {
		const struct sym_code *c = b->left_codes[k];

		for (i = 0; i < c->ninsns; i++) {
			struct sym_result res;

			if (wanted(c, b->left_marks[k], i))
				continue;
			report_resolve(b->r->prof, b->sym, b->left_obj[k],
				       c->insns[i].offset, &res, bad);
		}
	}
}

static int resolve_sites(const struct profile *p, struct symbolizer *sym,
			 struct strpool *pool, struct site *sites, size_t n,
			 uint8_t *bad)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct sym_result res;
		const struct sym_frame *in, *out_f;

		report_resolve(p, sym, sites[i].obj, sites[i].offset, &res,
			       bad);
		in = &res.frames[0];
		out_f = &res.frames[res.nframes - 1];
		sites[i].proc = pool_dup(pool, in->function);
		sites[i].inl = in != out_f ? pool_dup(pool, out_f->function) :
			       NULL;
		sites[i].file = pool_dup(pool, in->file);
		sites[i].line = in->line;
		sites[i].module = pool_dup(pool, res.module);
		sites[i].vaddr = res.vaddr ? res.vaddr : sites[i].offset;
		sites[i].anon = !!(res.flags & SYM_F_ANON);
		if (!sites[i].proc)
			return -PROF_ENOMEM;
	}
	return 0;
}

/* ---- statistics the derived figures use ---- */

static int has_name(const struct prof_stat *st, const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(st->name, name))
		return 1;
	/* "mispredict:u" was typed: the name before the modifiers. */
	return st->requested && !strncmp(st->requested, name, n) &&
	       (st->requested[n] == 0 || st->requested[n] == ':');
}

/* The first counted (not derived, not counting-mode) statistic called
 * one of names, preferring those with all of the flags in want. */
static long find_stat(const struct profile *p, const char *const *names,
		      uint32_t want)
{
	long best = -1;
	size_t i, k;

	for (k = 0; names[k]; k++) {
		for (i = 0; i < p->nstats; i++) {
			const struct prof_stat *st = &p->stats[i];

			if (!report_stat_counted(st))
				continue;
			if (!has_name(st, names[k]))
				continue;
			if ((st->flags & want) == want)
				return (long)i;
			if (best < 0)
				best = (long)i;
		}
	}
	return best;
}

static const char *const retired_names[] = {
	"retinst", "retire", "retired", "instructions", NULL
};

/* The statistic that counts retired instructions: exact counts first,
 * then the one of the same kind as the numerator. */
static long find_retired(const struct profile *p, uint32_t kind_flags)
{
	long i = find_stat(p, retired_names, PROF_STAT_SIMULATED);

	if (i >= 0 && (p->stats[i].flags & PROF_STAT_SIMULATED))
		return i;
	return find_stat(p, retired_names, kind_flags);
}

/* X_per_ret is 100 * X / retired (per 100 instructions), except
 * cycles_per_ret, which is cycles / retired (seed 002). */
static double per_ret_scale(const char *x)
{
	return strcmp(x, "cycles") ? 100.0 : 1.0;
}

static int setup_ratios(struct report *r)
{
	const struct profile *p = r->prof;
	size_t i;

	r->ratios = calloc(p->nstats ? p->nstats : 1, sizeof(*r->ratios));
	if (!r->ratios)
		return -PROF_ENOMEM;
	for (i = 0; i < p->nstats; i++) {
		const struct prof_stat *st = &p->stats[i];
		struct report_ratio *ra = &r->ratios[r->nratios];
		const char *suffix = "_per_ret";
		size_t len = strlen(st->name), sl = strlen(suffix);
		char num[64];
		const char *names[2] = { num, NULL };
		long n, d;

		if (!(st->flags & PROF_STAT_DERIVED) || len <= sl ||
		    strcmp(st->name + len - sl, suffix) || len - sl >= sizeof(num))
			continue;
		memcpy(num, st->name, len - sl);
		num[len - sl] = 0;
		n = find_stat(p, names, st->flags & PROF_STAT_PROFILEME);
		if (n < 0)
			continue;
		d = find_retired(p, p->stats[n].flags & PROF_STAT_PROFILEME);
		if (d < 0)
			continue;
		ra->name = st->name;
		ra->num = (size_t)n;
		ra->den = (size_t)d;
		ra->scale = per_ret_scale(num);
		r->nratios++;
	}
	return 0;
}

static double ratio_of(const struct report_ratio *ra, const uint64_t *w)
{
	if (!w[ra->den])
		return NAN;
	return ra->scale * (double)w[ra->num] / (double)w[ra->den];
}

static int ratio_low(const struct report *r, const struct report_ratio *ra,
		     const uint64_t *samples)
{
	const struct prof_stat *st = r->prof->stats;
	int exact_n = st[ra->num].flags & PROF_STAT_SIMULATED;
	int exact_d = st[ra->den].flags & PROF_STAT_SIMULATED;

	return (!exact_n && samples[ra->num] < REPORT_RATIO_MIN_SAMPLES) ||
	       (!exact_d && samples[ra->den] < REPORT_RATIO_MIN_SAMPLES);
}

/* Whether the report needs the procedures' code (blocks). */
static int wants_code(const struct report *r)
{
	const struct profile *p = r->prof;
	size_t i;

	if (r->opt.view == REPORT_BLOCKS || r->opt.view == REPORT_ASM ||
	    r->opt.view == REPORT_BUCKETS || r->opt.average ||
	    r->opt.stride >= 0)
		return 1;
	for (i = 0; i < p->nstats; i++)
		if ((p->stats[i].flags & PROF_STAT_DERIVED) &&
		    !strcmp(p->stats[i].name, "freq"))
			return 1;
	return 0;
}

/* freq: the retired statistic averaged over each basic block. */
static void estimate_execs(struct site *sites, size_t n,
			   const uint64_t *site_retired)
{
	size_t i = 0;

	while (i < n) {
		const struct sym_code *code = sites[i].code;
		size_t j = i + 1;

		if (!code) {
			sites[i].execs = (double)site_retired[i];
			i++;
			continue;
		}
		/* Sites of one procedure are adjacent and in insn order. */
		while (j < n && sites[j].code == code && sites[j].obj ==
		       sites[i].obj)
			j++;
		for (size_t a = i; a < j;) {
			uint32_t blk = code->insns[sites[a].insn].block;
			size_t b = a;
			double sum = 0;

			while (b < j && code->insns[sites[b].insn].block == blk)
				sum += (double)site_retired[b++];
			/* Every instruction of the block is a site, so
			 * b - a is the block's instruction count. */
			for (size_t c = a; c < b; c++)
				sites[c].execs = sum / (double)(b - a);
			a = b;
		}
		i = j;
	}
}

/* ---- source text for the asm view ---- */

/* Name a file that was not read because it is not a regular file (once). */
static void note_skipped(struct report *r, struct priv *pv, const char *path,
			 const char *kind)
{
	size_t i;
	const char *kept;

	for (i = 0; i < r->nskipped; i++)
		if (!strcmp(r->skipped[i].path, path))
			return;
	/* Out of memory only loses the note: the file is skipped anyway. */
	kept = pool_dup(&pv->pool, path);
	if (!kept || ALLOC_GROW(r->skipped, r->nskipped + 1, pv->alloc_skipped))
		return;
	r->skipped[r->nskipped].path = kept;
	r->skipped[r->nskipped++].kind = kind;
}

/* Read the lines of src from f (up to 64 MiB; what cannot be read
 * leaves src with fewer lines, or none). */
static void read_lines(struct source *src, FILE *f)
{
	size_t alloc = 0;
	char *s, *e;
	long len;

	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0 ||
	    len >= (64 << 20) || fseek(f, 0, SEEK_SET))
		return;
	src->text = malloc((size_t)len + 1);
	if (!src->text || fread(src->text, 1, (size_t)len, f) != (size_t)len)
		return;
	src->text[len] = 0;
	for (s = src->text;;) {
		if (ALLOC_GROW(src->lines, src->nlines + 1, alloc))
			break;
		src->lines[src->nlines++] = s;
		e = strchr(s, '\n');
		if (!e)
			break;
		*e = 0;
		s = e + 1;
		if (!*s)
			break;
	}
}

/* Name a source file that cannot be opened (once; paths are the
 * symbolizer's, unique per file, but compared by content all the same). */
static void note_missing(struct report *r, struct priv *pv, const char *path)
{
	size_t i;
	const char *kept;

	for (i = 0; i < r->nmissing_sources; i++)
		if (!strcmp(r->missing_sources[i], path))
			return;
	/* Out of memory only loses the note. */
	kept = pool_dup(&pv->pool, path);
	if (!kept || ALLOC_GROW(r->missing_sources, r->nmissing_sources + 1,
				pv->alloc_missing))
		return;
	r->missing_sources[r->nmissing_sources++] = kept;
}

static const char *source_line(struct report *r, struct priv *pv,
			       const char *path,
			       unsigned line)
{
	struct source *src = NULL;
	size_t i;

	if (!path || !line)
		return NULL;
	for (i = 0; i < pv->nsources; i++)
		if (pv->sources[i].path == path ||
		    !strcmp(pv->sources[i].path, path)) {
			src = &pv->sources[i];
			break;
		}
	if (!src) {
		struct stat st;
		FILE *f;

		if (ALLOC_GROW(pv->sources, pv->nsources + 1,
			       pv->alloc_sources))
			return NULL;
		src = &pv->sources[pv->nsources++];
		memset(src, 0, sizeof(*src));
		src->path = path;
		/* DWARF names the file: it may be a FIFO, which a plain
		 * fopen() would wait on forever. */
		f = regfile_fopen(path, &st);
		if (!f) {
			if (errno == EINVAL && st.st_mode)
				note_skipped(r, pv, path,
					     regfile_kind(st.st_mode));
			else
				note_missing(r, pv, path);
			return NULL;
		}
		read_lines(src, f);
		fclose(f);
	}
	if (line > src->nlines)
		return NULL;
	return src->lines[line - 1];
}

/* ---- grouping sites into rows ---- */

/* The outer (out-of-line) procedure of a site. */
static const char *outer_proc(const struct site *s)
{
	if (s->code && s->code->procedure)
		return s->code->procedure;
	return s->inl ? s->inl : s->proc;
}


static void site_key(const struct report *r, const struct site *s,
		     struct rowkey *k)
{
	enum report_view v = r->opt.view;

	memset(k, 0, sizeof(*k));
	k->obj = s->obj;
	switch (v) {
	case REPORT_PROCEDURES:
		if (r->opt.inline_split) {
			k->proc = s->proc;
			k->inl = s->inl;
		} else {
			k->proc = outer_proc(s);
		}
		break;
	case REPORT_LINES:
	case REPORT_HEAVY:
		k->proc = s->proc;
		k->inl = s->inl;
		k->file = s->file;
		k->line = s->line;
		break;
	case REPORT_BLOCKS:
		if (s->code) {
			k->a = s->code->start;
			k->b = s->code->insns[s->insn].block;
		} else {
			k->a = s->offset;
			k->b = UINT64_MAX;
		}
		break;
	case REPORT_ASM:
	case REPORT_BUCKETS:
		if (s->code && r->opt.stride >= 0) {
			k->a = s->code->start;
			k->b = r->opt.stride ? s->insn / (uint64_t)r->opt.stride
					     : 0;
		} else {
			k->a = s->offset;
			k->b = UINT64_MAX;
		}
		break;
	}
}

static size_t key_hash(const struct rowkey *k)
{
	size_t h = str_hash(str_hash(str_hash(k->obj, k->proc), k->inl),
			    k->file);
	uint64_t x;

	h = h * 31 + k->line;
	h = h * 1000003 + (size_t)k->a;
	h = h * 1000003 + (size_t)k->b;
	/* The low bits pick the bucket: mix the high ones in, or the
	 * blocks of a procedure (aligned start, block 0, 1, ...) fill
	 * neighbouring buckets. */
	x = (uint64_t)h;
	return (size_t)hash_mix64(x);
}

/* Keys in some total order, for counting distinct ones. */
static int cmp_key(const void *a, const void *b)
{
	const struct rowkey *x = a, *y = b;
	int c;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if ((c = cmp_str0(x->proc, y->proc)) || (c = cmp_str0(x->inl, y->inl)))
		return c;
	return cmp_str0(x->file, y->file);
}

static int key_eq(const struct rowkey *x, const struct rowkey *y)
{
	return x->obj == y->obj && same_str(x->proc, y->proc) &&
	       same_str(x->inl, y->inl) && same_str(x->file, y->file) &&
	       x->line == y->line && x->a == y->a && x->b == y->b;
}

static void init_row(const struct report *r, struct symbolizer *sym,
		     struct report_row *row,
		     const struct site *s)
{
	enum report_view v = r->opt.view;

	memset(row, 0, sizeof(*row));
	row->object = r->prof->objects[s->obj].path;
	row->module = s->module;
	row->address = s->vaddr;
	row->end = s->vaddr;
	row->freq = NAN;
	row->execs = NAN;
	row->total_percent = NAN;
	row->by.pid = row->by.tid = row->by.cpu = -1;
	switch (v) {
	case REPORT_PROCEDURES:
		row->kind = ROW_PROCEDURE;
		row->procedure = r->opt.inline_split ? s->proc : outer_proc(s);
		row->inlined_into = r->opt.inline_split ? s->inl : NULL;
		break;
	case REPORT_LINES:
	case REPORT_HEAVY:
		row->kind = ROW_LINE;
		row->procedure = s->proc;
		row->inlined_into = s->inl;
		row->file = s->file;
		row->line = s->line;
		break;
	case REPORT_BLOCKS:
		row->kind = ROW_BLOCK;
		row->procedure = outer_proc(s);
		row->file = s->file;
		row->line = s->line;
		row->block = s->code ? s->code->insns[s->insn].block : 0;
		break;
	case REPORT_ASM:
	case REPORT_BUCKETS:
		row->kind = s->code && r->opt.stride >= 0 ? ROW_BUCKET
							  : ROW_INSN;
		row->procedure = outer_proc(s);
		row->file = s->file;
		row->line = s->line;
		if (s->code) {
			const struct sym_insn *in = &s->code->insns[s->insn];

			/* An instruction's text comes in rows_from_code(),
			 * named; a bucket shows its first plain. */
			if (row->kind == ROW_BUCKET)
				row->text = sym_insn_plain_text(sym, s->code,
								s->insn);
			row->block = in->block;
			row->block_start = s->insn == 0 ||
				s->code->insns[s->insn - 1].block != in->block;
		}
		break;
	}
}

/* Extend a block or bucket row by a site (sites come in address order). */
static void extend_row(struct report_row *row, const struct site *s)
{
	uint64_t end = s->vaddr;

	if (s->code)
		end += s->code->insns[s->insn].len;
	if (s->vaddr < row->address) {
		row->address = s->vaddr;
		row->file = s->file;
		row->line = s->line;
	}
	if (end > row->end)
		row->end = end;
	if (s->file && same_str(s->file, row->file) && s->line > row->last_line)
		row->last_line = s->line;
}

/* ---- the asm view: procedure headings, then their instructions ---- */

static int cmp_asm(const void *a, const void *b)
{
	const struct report_row *x = a, *y = b;
	int c;

	if ((c = cmp_str0(x->object, y->object)))
		return c;
	if ((c = cmp_str0(x->procedure, y->procedure)))
		return c;
	return x->address < y->address ? -1 : x->address > y->address;
}

/* cmp_asm() on rows[*a], rows[*b] (ctx is rows), stable. */
static int cmp_asm_at(const void *a, const void *b, void *ctx)
{
	const struct report_row *rows = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = cmp_asm(&rows[x], &rows[y]);

	if (c)
		return c;
	return x < y ? -1 : x > y;
}

static void row_derived(const struct report *r, struct report_row *row)
{
	size_t s, k;

	for (k = 0; k < r->nratios; k++) {
		row->ratio[k] = ratio_of(&r->ratios[k], row->weight);
		row->ratio_low[k] = (unsigned char)ratio_low(r, &r->ratios[k],
							     row->samples);
	}
	if (row->average)
		for (s = 0; s < r->nstats; s++)
			row->average[s] = !isnan(row->execs) && row->execs > 0 ?
				(double)row->weight[s] / row->execs : NAN;
}

/* Per-row arrays for n rows, from memory owned by the report. */
static int row_arrays(struct report *r, struct report_row *rows, size_t n)
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

int report_row_arrays(struct report *r, struct report_row *rows, size_t n)
{
	return row_arrays(r, rows, n);
}

/* The heading of the procedure whose rows are all[idx[start .. end)]:
 * its totals (h has its arrays). */
static void make_heading(const struct report *r, struct report_row *h,
			 const struct report_row *all, const size_t *idx,
			 size_t start, size_t end)
{
	const struct report_row *first = &all[idx[start]];
	double freq = 0, execs = 0;
	int any_freq = 0, any_execs = 0;
	size_t j, s;

	h->kind = ROW_PROCEDURE;
	h->by.pid = h->by.tid = h->by.cpu = -1;	/* the whole procedure */
	h->procedure = first->procedure;
	h->object = first->object;
	h->module = first->module;
	h->address = first->address;
	h->end = all[idx[end - 1]].end;
	for (j = start; j < end; j++) {
		const struct report_row *row = &all[idx[j]];

		for (s = 0; s < r->nstats; s++) {
			h->samples[s] += row->samples[s];
			h->weight[s] += row->weight[s];
			h->percent[s] += row->percent[s];
		}
		if (!isnan(row->freq)) {
			freq += row->freq;
			any_freq = 1;
		}
		if (!isnan(row->execs)) {
			execs += row->execs;
			any_execs = 1;
		}
	}
	h->freq = any_freq ? freq : NAN;
	h->execs = any_execs ? execs : NAN;
	row_derived(r, h);
}

/* order[]: the n headings, hottest first (insertion sort: stable, and
 * there are few). */
static void order_headings(const struct report *r,
			   const struct report_row *heads, size_t *order,
			   size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = 1; i < n; i++) {
		size_t x = order[i], k = i;

		while (k > 0 &&
		       hotter(&heads[x], &heads[order[k - 1]], r->nstats) < 0) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = x;
	}
}

static int same_proc(const struct report_row *x, const struct report_row *y)
{
	return !cmp_str0(x->object, y->object) &&
	       !cmp_str0(x->procedure, y->procedure);
}

/*
 * idx[] (0 .. n - 1) in cmp_asm_at() order.  Rows come in runs of a
 * procedure already in that order (its instructions by address): the runs
 * are sorted by their first rows; the rows of a procedure whose runs then
 * overlap (two procedures of one name, a sampled address that is no
 * instruction) are sorted again among themselves.  1 when out of memory
 * (idx[] untouched).
 */
static int sort_runs(struct report_row *rows, size_t *idx, size_t n)
{
	/* first leads: cmp_asm_at() reads it as a row index. */
	struct run { size_t first, len, at; } *run = malloc(n * sizeof(*run));
	size_t nruns = 0, i, k, g, o = 0;

	if (!run)
		return 1;
	for (i = 0; i < n; i++) {
		if (!i || !same_proc(&rows[i - 1], &rows[i]) ||
		    cmp_asm_at(&idx[i - 1], &idx[i], rows) > 0)
			run[nruns++] = (struct run){ .first = i };
		run[nruns - 1].len++;
	}
	/* Runs are few. */
	qsort_r(run, nruns, sizeof(*run), cmp_asm_at, rows);
	for (k = 0; k < nruns; k++) {
		run[k].at = o;
		for (i = 0; i < run[k].len; i++)
			idx[o++] = run[k].first + i;
	}
	for (k = 0; k < nruns; k++) {
		int sorted = 1;

		for (g = k; k + 1 < nruns &&
			    same_proc(&rows[run[k + 1].first],
				      &rows[run[g].first]); k++)
			if (cmp_asm_at(&idx[run[k + 1].at - 1],
				       &idx[run[k + 1].at], rows) > 0)
				sorted = 0;
		if (!sorted)
			qsort_r(idx + run[g].at, run[k].at + run[k].len -
				run[g].at, sizeof(*idx), cmp_asm_at, rows);
	}
	free(run);
	return 0;
}

/*
 * Insert a heading row (kind ROW_PROCEDURE, the procedure's totals)
 * before each procedure's instructions, procedures hottest first.
 */
static int arrange_asm(struct report *r)
{
	struct report_row *rows = r->rows, *heads = NULL, *grown;
	size_t n = r->nrows, nprocs = 0, i, k, o = 0, all;
	size_t *idx = NULL, *starts = NULL, *order = NULL, *dest = NULL;
	unsigned char *done = NULL;
	int err = -PROF_ENOMEM;

	/* Rows are big and many (one per instruction): sort their
	 * indices, and move each row once, in place. */
	idx = malloc((n + 1) * sizeof(*idx));
	starts = malloc((n + 1) * sizeof(*starts));
	if (!idx || !starts)
		goto out;
	for (i = 0; i < n; i++)
		idx[i] = i;
	if (n > 1 && sort_runs(rows, idx, n))
		qsort_r(idx, n, sizeof(*idx), cmp_asm_at, rows);
	for (i = 0; i < n; i++)
		if (!i || cmp_str0(rows[idx[i]].object, rows[idx[i - 1]].object) ||
		    cmp_str0(rows[idx[i]].procedure,
			     rows[idx[i - 1]].procedure))
			starts[nprocs++] = i;
	starts[nprocs] = n;
	all = n + nprocs;
	heads = calloc(nprocs ? nprocs : 1, sizeof(*heads));
	order = malloc((nprocs ? nprocs : 1) * sizeof(*order));
	dest = malloc((all + 1) * sizeof(*dest));
	done = calloc(all + 1, 1);
	if (!heads || !order || !dest || !done ||
	    row_arrays(r, heads, nprocs))
		goto out;
	for (i = 0; i < nprocs; i++)
		make_heading(r, &heads[i], rows, idx, starts[i], starts[i + 1]);
	order_headings(r, heads, order, nprocs);
	/* Where each row goes, and heading p (at n + p for now). */
	for (i = 0; i < nprocs; i++) {
		size_t p = order[i];

		dest[n + p] = o++;
		for (k = starts[p]; k < starts[p + 1]; k++)
			dest[idx[k]] = o++;
	}
	grown = realloc(rows, (all + 1) * sizeof(*rows));
	if (!grown)
		goto out;
	rows = r->rows = grown;
	if (nprocs)
		memcpy(&rows[n], heads, nprocs * sizeof(*heads));
	for (i = 0; i < all; i++) {
		struct report_row carry, t;

		if (done[i])
			continue;
		carry = rows[i];
		done[i] = 1;
		for (k = dest[i]; k != i; k = dest[k]) {
			t = rows[k];
			rows[k] = carry;
			carry = t;
			done[k] = 1;
		}
		rows[i] = carry;
	}
	r->nrows = all;
	err = 0;
out:
	free(idx);
	free(starts);
	free(heads);
	free(order);
	free(dest);
	free(done);
	return err;
}

static int row_has_data(const struct report *r, const struct report_row *row)
{
	size_t s;

	for (s = 0; s < r->nstats; s++)
		if (row->samples[s])
			return 1;
	return !isnan(row->freq) && row->freq > 0;
}

/* -only and -exclude select code by the out-of-line procedure it is in
 * (code inlined into f is f's), the same in every view. */
static int filtered_out(const struct report_options *opt,
			const struct report_row *row)
{
	return name_filtered(opt, row->inlined_into ? row->inlined_into :
				  row->procedure);
}

/* ---- building a report, phase by phase ---- */

/*
 * Whether statistic st of p ran only part of the time it was enabled
 * (multiplexed); *percent is 100 * running / enabled.  Only counting
 * events and kprofile's per-CPU events measure this: a per-CPU task
 * event's enabled time also runs while the task is on another CPU.
 */
static int stat_multiplexed(const struct profile *p,
			    const struct prof_stat *st, double *percent)
{
	*percent = st->time_enabled ?
		   100.0 * (double)st->time_running /
		   (double)st->time_enabled : 100.0;
	if (!(st->flags & PROF_STAT_COUNTING) &&
	    !(p->tool && !strcmp(p->tool, "kprofile")))
		return 0;
	return st->time_running < st->time_enabled;
}

/* Per statistic: totals over the whole profile, the ratios' totals, and
 * whether the kernel multiplexed it. */
static int count_totals(struct build *b)
{
	struct report *r = b->r;
	const struct profile *p = r->prof;
	size_t ns = p->nstats ? p->nstats : 1, i;

	r->total_samples = calloc(ns, sizeof(*r->total_samples));
	r->total_weight = calloc(ns, sizeof(*r->total_weight));
	r->multiplexed = calloc(ns, sizeof(*r->multiplexed));
	r->running_percent = calloc(ns, sizeof(*r->running_percent));
	if (!r->total_samples || !r->total_weight || !r->multiplexed ||
	    !r->running_percent || setup_ratios(r))
		return -PROF_ENOMEM;
	for (i = 0; i < p->ncounts; i++) {
		r->total_samples[p->counts[i].stat] += p->counts[i].samples;
		r->total_weight[p->counts[i].stat] += p->counts[i].weight;
	}
	for (i = 0; i < r->nratios; i++) {
		r->ratios[i].total = ratio_of(&r->ratios[i], r->total_weight);
		r->ratios[i].total_low = ratio_low(r, &r->ratios[i],
						   r->total_samples);
	}
	for (i = 0; i < p->nstats; i++)
		r->multiplexed[i] = (unsigned char)stat_multiplexed(
			p, &p->stats[i], &r->running_percent[i]);
	return 0;
}

/*
 * Whether -only/-exclude can choose procedures before their code is
 * decoded and their rows are built, and the report stay the same: in the
 * views whose rows are code (blocks, instructions, buckets), where a row
 * is named after its procedure, and without freq, whose total and
 * undecoded count are of every procedure.
 */
static int select_first(const struct report *r)
{
	enum report_view v = r->opt.view;

	if (!r->opt.nonly && !r->opt.nexclude &&
	    !(v == REPORT_ASM && (r->opt.quit_rows || r->opt.quit_percent > 0)))
		return 0;
	if (v != REPORT_BLOCKS && v != REPORT_ASM && v != REPORT_BUCKETS)
		return 0;
	return find_retired(r->prof, 0) < 0;
}

/* The sites: each sampled (object, offset) once, and every instruction
 * of their procedures when the report needs code. */
static int find_sites(struct build *b)
{
	const struct profile *p = b->r->prof;
	size_t i;

	for (i = 0; i < p->ncounts; i++) {
		struct site *s;

		if (ALLOC_GROW(b->sites, b->nsites + 1, b->alloc_sites))
			return -PROF_ENOMEM;
		s = &b->sites[b->nsites++];
		memset(s, 0, sizeof(*s));
		s->obj = p->counts[i].obj;
		s->offset = p->counts[i].offset;
	}
	sort_unique_sites(b->sites, &b->nsites);
	if (!wants_code(b->r))
		return 0;
	b->select = select_first(b->r);
	b->select_quit = b->select && b->r->opt.view == REPORT_ASM &&
			 (b->r->opt.quit_rows || b->r->opt.quit_percent > 0);
	for (i = 0; b->select && i < p->ncounts; i++) {
		struct site *s = find_site(b->sites, b->nsites,
					   p->counts[i].obj,
					   p->counts[i].offset);

		if (p->counts[i].samples)
			s->sampled = 1;
	}
	return expand_code(b);
}

/* Note object obj as stale, with the file that has another build-id. */
static void stale_object(struct report *r, struct symbolizer *sym,
			 uint32_t obj)
{
	const struct profile *p = r->prof;
	struct sym_object so = sym_obj(p, obj);
	struct sym_object_info info;

	sym_object_info(sym, &so, &info);
	r->stale_files[r->nstale] = info.mismatch ? info.mismatch :
				    p->objects[obj].path;
	r->stale[r->nstale++] = p->objects[obj].path;
}

/* Note obj as unreadable, with the symbolizer's reason. */
static void unreadable_object(struct report *r, struct symbolizer *sym,
			      uint32_t obj)
{
	const struct profile *p = r->prof;
	struct sym_object so = sym_obj(p, obj);
	char why[128];

	r->unresolved_objects++;
	if (!p->objects[obj].path)
		return;
	sym_object_error(sym, &so, why, sizeof(why));
	r->unreadable[r->nunreadable].path = p->objects[obj].path;
	/* Out of memory only loses the reason. */
	r->unreadable[r->nunreadable++].why = report_pool_dup(r, why);
}

/*
 * Note obj, sampled in code no symbol names, by what the symbolizer has
 * of its symbols (from the object and the debug file it found, the same
 * lookup that named the rows): nothing, .dynsym's exports, or all (code
 * without a symbol in an object with debug info: nothing to say).
 */
static void anonymous_object(struct report *r, struct symbolizer *sym,
			     uint32_t obj)
{
	const struct profile *p = r->prof;
	struct sym_object so = sym_obj(p, obj);
	struct sym_object_info info;

	if (sym_object_info(sym, &so, &info) || info.err)
		return;
	if (info.symbols == SYM_SYMS_NONE)
		r->nosyms[r->nnosyms++] = p->objects[obj].path;
	else if (info.symbols == SYM_SYMS_EXPORTED)
		r->exported_only[r->nexported_only++] = p->objects[obj].path;
}

/* Name each site; list the objects that could not be used as they are. */
static int name_sites(struct build *b)
{
	struct report *r = b->r;
	struct priv *pv = r->priv;
	const struct profile *p = r->prof;
	size_t no = p->nobjects ? p->nobjects : 1, i;
	uint8_t *state = calloc(no, 1);
	int err = -PROF_ENOMEM;

	r->stale = calloc(no, sizeof(*r->stale));
	r->stale_files = calloc(no, sizeof(*r->stale_files));
	r->nosyms = calloc(no, sizeof(*r->nosyms));
	r->exported_only = calloc(no, sizeof(*r->exported_only));
	r->baddwarf = calloc(no, sizeof(*r->baddwarf));
	r->unreadable = calloc(no, sizeof(*r->unreadable));
	if (!state || !r->stale || !r->stale_files || !r->nosyms ||
	    !r->exported_only || !r->baddwarf || !r->unreadable)
		goto out;
	err = resolve_sites(p, b->sym, &pv->pool, b->sites, b->nsites, state);
	if (!err)
		err = resolve_sites(p, b->sym, &pv->pool, b->dropped,
				    b->ndropped, state);
	if (err)
		goto out;
	resolve_left(b, state);
	for (i = 0; i < p->nobjects; i++) {
		if (state[i] & OBJ_UNREADABLE)
			unreadable_object(r, b->sym, (uint32_t)i);
		else if (state[i] & OBJ_BADDWARF)
			r->baddwarf[r->nbaddwarf++] = p->objects[i].path;
		else if (state[i] & OBJ_STALE)
			stale_object(r, b->sym, (uint32_t)i);
		else if (p->objects[i].kind == PROF_OBJ_FILE &&
			 (state[i] & OBJ_ANONYMOUS))
			anonymous_object(r, b->sym, (uint32_t)i);
	}
out:
	free(state);
	return err;
}

/* The first statistic's weight in anonymous code that nothing names:
 * JIT code without its runtime's perf map (the text report says how to
 * get one). */
static int note_anonymous(struct build *b)
{
	const struct profile *p = b->r->prof;
	size_t i;

	for (i = 0; i < p->ncounts; i++) {
		const struct prof_count *c = &p->counts[i];
		const struct site *s;

		if (c->stat != 0)
			continue;
		s = find_site(b->sites, b->nsites, c->obj, c->offset);
		if (s && s->anon)
			b->r->anon_weight += c->weight;
	}
	return 0;
}

/* With b->select, the sites whose rows -only/-exclude leave out (their
 * procedures named now). */
static int select_sites(struct build *b)
{
	size_t i, j = 0;

	if (!b->select)
		return 0;
	for (i = 0; i < b->nsites; i++)
		if (!name_filtered(&b->r->opt, outer_proc(&b->sites[i])))
			b->sites[j++] = b->sites[i];
	b->nsites = j;
	return 0;
}

/* Executions of each site: exact counts if any, else the retired
 * statistic averaged over basic blocks (freq); and freq's total. */
static int count_executions(struct build *b)
{
	struct report *r = b->r;
	const struct profile *p = r->prof;
	uint64_t *ret;
	size_t i;

	b->exact_stat = find_stat(p, retired_names, PROF_STAT_SIMULATED);
	if (b->exact_stat >= 0 &&
	    !(p->stats[b->exact_stat].flags & PROF_STAT_SIMULATED))
		b->exact_stat = -1;
	r->exact_execs = b->exact_stat >= 0;
	r->freq_stat = find_retired(p, 0);
	ret = calloc(b->nsites ? b->nsites : 1, sizeof(*ret));
	if (!ret)
		return -PROF_ENOMEM;
	for (i = 0; i < p->ncounts; i++) {
		const struct prof_count *c = &p->counts[i];
		struct site *s;

		if ((long)c->stat != r->freq_stat &&
		    (long)c->stat != b->exact_stat)
			continue;
		s = find_site(b->sites, b->nsites, c->obj, c->offset);
		if (!s)
			continue;
		if ((long)c->stat == r->freq_stat)
			ret[s - b->sites] += c->weight;
		if ((long)c->stat == b->exact_stat)
			s->exact += c->weight;
	}
	if (r->freq_stat >= 0) {
		estimate_execs(b->sites, b->nsites, ret);
		for (i = 0; i < b->nsites; i++)
			r->total_freq += b->sites[i].execs;
	}
	free(ret);
	return 0;
}

/* The table of keys[0 .. n), twice as big. */
static int rehash(const struct rowkey *keys, size_t n, size_t **bucket,
		  size_t *nbuckets)
{
	size_t nb = *nbuckets * 2, i, h;
	size_t *b = malloc(nb * sizeof(*b));

	if (!b)
		return -PROF_ENOMEM;
	for (i = 0; i < nb; i++)
		b[i] = SIZE_MAX;
	for (i = 0; i < n; i++) {
		h = key_hash(&keys[i]) & (nb - 1);
		while (b[h] != SIZE_MAX)
			h = (h + 1) & (nb - 1);
		b[h] = i;
	}
	free(*bucket);
	*bucket = b;
	*nbuckets = nb;
	return 0;
}

/* One row per identity the view gives sites (procedure, line, block,
 * ...), found through a hash of it. */
static int group_rows(struct build *b)
{
	struct report *r = b->r;
	struct rowkey *keys = NULL;
	size_t *bucket, nbuckets, alloc_rows = 0, alloc_keys = 0, i;
	int err = 0;

	/* One row per instruction: sites are unique (object, offset), and
	 * so are their keys. */
	if (r->opt.view == REPORT_ASM && r->opt.stride < 0) {
		r->rows = malloc((b->nsites ? b->nsites : 1) *
				 sizeof(*r->rows));
		if (!r->rows)
			return -PROF_ENOMEM;
		for (i = 0; i < b->nsites; i++) {
			init_row(r, b->sym, &r->rows[i], &b->sites[i]);
			b->sites[i].row = i;
		}
		r->nrows = b->nsites;
		return 0;
	}
	/* Grown with the rows: sites are many more (every instruction). */
	nbuckets = 1024;
	bucket = malloc(nbuckets * sizeof(*bucket));
	if (!bucket)
		return -PROF_ENOMEM;
	for (i = 0; i < nbuckets; i++)
		bucket[i] = SIZE_MAX;
	for (i = 0; i < b->nsites; i++) {
		struct site *s = &b->sites[i];
		struct rowkey k;
		size_t h;

		site_key(r, s, &k);
		/* The instructions of a block come in a run. */
		if (i && key_eq(&k, &keys[s[-1].row])) {
			s->row = s[-1].row;
			continue;
		}
		h = key_hash(&k) & (nbuckets - 1);
		while (bucket[h] != SIZE_MAX && !key_eq(&k, &keys[bucket[h]]))
			h = (h + 1) & (nbuckets - 1);
		if (bucket[h] == SIZE_MAX) {
			if (ALLOC_GROW(r->rows, r->nrows + 1, alloc_rows) ||
			    ALLOC_GROW(keys, r->nrows + 1, alloc_keys)) {
				err = -PROF_ENOMEM;
				break;
			}
			init_row(r, b->sym, &r->rows[r->nrows], s);
			keys[r->nrows] = k;
			bucket[h] = r->nrows++;
			if (r->nrows * 2 > nbuckets &&
			    rehash(keys, r->nrows, &bucket, &nbuckets)) {
				err = -PROF_ENOMEM;
				break;
			}
			s->row = r->nrows - 1;
			continue;
		}
		s->row = bucket[h];
	}
	free(bucket);
	free(keys);
	return err;
}

/* What each row gets from its sites' code: extent, disassembly,
 * executions. */
static void rows_from_code(struct build *b)
{
	struct report *r = b->r;
	size_t i;

	for (i = 0; i < b->nsites; i++) {
		const struct site *s = &b->sites[i];
		struct report_row *row = &r->rows[s->row];

		if (row->kind == ROW_BLOCK || row->kind == ROW_BUCKET) {
			extend_row(row, s);
		} else if (row->kind == ROW_INSN && s->code) {
			struct sym_object so = sym_obj(r->prof, s->obj);

			row->end = s->vaddr + s->code->insns[s->insn].len;
			/* Only the listing names call targets: resolving
			 * them may read other compilation units' DWARF. */
			row->text = sym_insn_text(b->sym, &so, s->code,
						  s->insn);
		}
		if (r->freq_stat >= 0) {
			double e = r->exact_execs ? (double)s->exact
						  : s->execs;

			row->freq = (isnan(row->freq) ? 0 : row->freq) +
				    s->execs;
			row->execs = (isnan(row->execs) ? 0 : row->execs) + e;
		}
	}
}

/* A block's freq is how often the block ran: the mean over its
 * instructions (each instruction's is the same estimate). */
static int block_freq(struct build *b)
{
	struct report *r = b->r;
	size_t *ninsns, i;

	if (r->opt.view != REPORT_BLOCKS || r->freq_stat < 0)
		return 0;
	ninsns = calloc(r->nrows ? r->nrows : 1, sizeof(*ninsns));
	if (!ninsns)
		return -PROF_ENOMEM;
	for (i = 0; i < b->nsites; i++)
		ninsns[b->sites[i].row]++;
	for (i = 0; i < r->nrows; i++)
		if (ninsns[i] && !isnan(r->rows[i].freq))
			r->rows[i].freq /= (double)ninsns[i];
	free(ninsns);
	return 0;
}

/* Each row's counts; a procedure's or line's address is its hottest
 * instruction (first statistic). */
static int count_rows(struct build *b)
{
	struct report *r = b->r;
	const struct profile *p = r->prof;
	uint64_t *best = calloc(r->nrows ? r->nrows : 1, sizeof(*best));
	size_t i;

	if (!best)
		return -PROF_ENOMEM;
	for (i = 0; i < p->ncounts; i++) {
		const struct prof_count *c = &p->counts[i];
		struct site *s = find_site(b->sites, b->nsites, c->obj,
					   c->offset);
		struct report_row *row;

		if (!s)
			continue;
		row = &r->rows[s->row];
		row->samples[c->stat] += c->samples;
		row->weight[c->stat] += c->weight;
		if ((row->kind == ROW_PROCEDURE || row->kind == ROW_LINE) &&
		    c->stat == 0 && c->samples > best[s->row]) {
			best[s->row] = c->samples;
			row->address = s->vaddr;
		}
	}
	free(best);
	return 0;
}

/* The rows' own figures: code, executions, counts. */
static int fill_rows(struct build *b)
{
	int err = row_arrays(b->r, b->r->rows, b->r->nrows);

	if (err)
		return err;
	rows_from_code(b);
	err = block_freq(b);
	return err ? err : count_rows(b);
}

/* -by: the rows split by the keys, through the row of each task
 * count's site. */
static int split_by(struct build *b)
{
	const struct profile *p = b->r->prof;
	size_t *trow, i;
	int err;

	if (!b->r->opt.by)
		return 0;
	trow = malloc((p->ntask_counts ? p->ntask_counts : 1) *
		      sizeof(*trow));
	if (!trow)
		return -PROF_ENOMEM;
	for (i = 0; i < p->ntask_counts; i++) {
		const struct site *s = find_site(b->sites, b->nsites,
						 p->task_counts[i].obj,
						 p->task_counts[i].offset);

		trow[i] = s ? s->row : SIZE_MAX;
	}
	err = report_by_split(b->r, trow);
	free(trow);
	return err;
}

/* Sites are as many as instructions: their memory goes before the asm
 * view's arrangement needs more. */
static int free_sites(struct build *b)
{
	free(b->sites);
	b->sites = NULL;
	b->nsites = b->alloc_sites = 0;
	return 0;
}

/*
 * Rows made only of instructions that were never sampled and never ran
 * (they were added to complete blocks) are not shown, except in the asm
 * listing of a procedure.  The others get percentages and ratios.
 */
static int row_figures(struct build *b)
{
	struct report *r = b->r;
	size_t i, j;

	if (r->opt.view != REPORT_ASM) {
		for (i = j = 0; i < r->nrows; i++)
			if (row_has_data(r, &r->rows[i]))
				r->rows[j++] = r->rows[i];
		r->nrows = j;
	}
	for (i = 0; i < r->nrows; i++) {
		struct report_row *row = &r->rows[i];

		for (j = 0; j < r->nstats; j++)
			row->percent[j] = r->total_weight[j] ?
				100.0 * (double)row->weight[j] /
				(double)r->total_weight[j] : 0;
		row_derived(r, row);
	}
	return 0;
}

/* In the view's order: hottest first, or by procedure and line (-lines),
 * or procedures hottest first with their instructions (-asm). */
static int sort_rows(struct build *b)
{
	struct report *r = b->r;
	int err = 0;

	if (r->opt.view == REPORT_ASM)
		err = arrange_asm(r);
	else if (r->nrows > 1 && r->opt.view == REPORT_LINES)
		qsort_r(r->rows, r->nrows, sizeof(*r->rows), cmp_lines_hot, r);
	else if (r->nrows > 1)
		qsort_r(r->rows, r->nrows, sizeof(*r->rows), cmp_hot, r);
	r->nrows_all = b->select ? b->nrows_all : r->nrows;
	return err;
}

/* -only, -exclude; in the asm view a heading and its instructions have
 * the same procedure, so they go together. */
static int filter_rows(struct build *b)
{
	struct report *r = b->r;
	size_t i, j = 0;

	for (i = 0; i < r->nrows; i++) {
		if (filtered_out(&r->opt, &r->rows[i]))
			continue;
		r->rows[j++] = r->rows[i];
	}
	r->nrows = j;
	return 0;
}

/*
 * -only and -exclude patterns that match no procedure of the profile (by
 * the out-of-line procedure's name, the rule of every view): a typo
 * would otherwise give an empty or unchanged report without a word.
 */
static int note_unmatched(struct build *b)
{
	struct report *r = b->r;
	const struct report_options *o = &r->opt;
	const struct profile *p = r->prof;
	size_t npat = o->nonly + o->nexclude, left, i, k;
	unsigned char *hit;
	char buf[600];

	if (!npat || report_is_counting(p))
		return 0;
	hit = calloc(npat, 1);
	r->unmatched = report_alloc(r, npat, sizeof(*r->unmatched));
	if (!hit || !r->unmatched) {
		free(hit);
		return -PROF_ENOMEM;
	}
	left = npat;
	for (i = 0; i < p->ncounts && left; i++) {
		const struct prof_count *c = &p->counts[i];
		struct sym_result res;
		const char *name;

		if (i && c->obj == p->counts[i - 1].obj &&
		    c->offset == p->counts[i - 1].offset)
			continue;
		report_resolve(p, b->sym, c->obj, c->offset, &res, NULL);
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
		r->unmatched[r->nunmatched] = report_pool_dup(r, buf);
		if (!r->unmatched[r->nunmatched++]) {
			free(hit);
			return -PROF_ENOMEM;
		}
	}
	free(hit);
	return 0;
}

/* The files the symbolizer did not read: not regular files. */
static int note_skipped_files(struct build *b)
{
	size_t nsk, i;
	const struct sym_skipped *sk = sym_skipped_files(b->sym, &nsk);

	for (i = 0; i < nsk; i++)
		note_skipped(b->r, b->r->priv, sk[i].path, sk[i].kind);
	return 0;
}

/* The asm view's cut: cumulative percentages and -quit count procedures
 * (headings); instructions get the source line they start.  nprocs_all:
 * the headings before -quit when select_hottest() chose them, else
 * SIZE_MAX (counted here). */
static void cut_asm(struct report *r, size_t nprocs_all)
{
	const struct report_options *opt = &r->opt;
	size_t procs = 0, i;
	const char *last_file = NULL;
	unsigned last_line = 0;
	double cum = 0;

	r->nrows_all = 0;
	for (i = 0; i < r->nrows; i++)
		r->nrows_all += r->rows[i].kind == ROW_PROCEDURE;
	if (nprocs_all != SIZE_MAX)
		r->nrows_all = nprocs_all;
	for (i = 0; i < r->nrows; i++) {
		struct report_row *row = &r->rows[i];

		if (row->kind != ROW_PROCEDURE) {
			if (row->file && row->line &&
			    (row->line != last_line ||
			     !same_str(row->file, last_file))) {
				row->line_start = 1;
				row->source = source_line(r, r->priv,
							  row->file, row->line);
			}
			last_file = row->file;
			last_line = row->line;
			continue;
		}
		last_file = NULL;
		last_line = 0;
		if (r->nstats)
			cum += row->percent[0];
		row->cum_percent = cum > 100.0 ? 100.0 : cum;
		if ((opt->quit_rows && procs == opt->quit_rows) ||
		    (opt->quit_percent > 0 && r->nstats &&
		     row->percent[0] < opt->quit_percent))
			break;
		procs++;
	}
	r->nrows = i;
}

/* Cumulative percentages, then -quit (in the asm view, by procedure). */
static int cut_rows(struct build *b)
{
	struct report *r = b->r;
	const struct report_options *opt = &r->opt;
	double cum = 0;
	size_t i;

	if (opt->view == REPORT_ASM) {
		cut_asm(r, b->select_quit ? b->nrows_all : SIZE_MAX);
		return 0;
	}
	for (i = 0; i < r->nrows; i++) {
		if (r->nstats)
			cum += r->rows[i].percent[0];
		r->rows[i].cum_percent = cum > 100.0 ? 100.0 : cum;
		if (opt->quit_percent > 0 && opt->view != REPORT_LINES &&
		    r->nstats && r->rows[i].percent[0] < opt->quit_percent)
			break;
	}
	r->nrows = i;
	if (opt->quit_rows && r->nrows > opt->quit_rows)
		r->nrows = opt->quit_rows;
	return 0;
}

/* The rows' inclusive percentages and the call-stack views. */
static int finish_stacks(struct build *b)
{
	return report_stacks_finish(b->r, b->sb);
}

const char *report_row_kind_key(enum report_row_kind k)
{
	switch (k) {
	case ROW_LINE: return "line";
	case ROW_BLOCK: return "block";
	case ROW_INSN: return "instruction";
	case ROW_BUCKET: return "bucket";
	default: return "procedure";
	}
}

int report_stat_counted(const struct prof_stat *st)
{
	return !(st->flags & (PROF_STAT_DERIVED | PROF_STAT_COUNTING));
}

const char *report_stat_key(const struct profile *p, size_t s, char *buf,
			    size_t len)
{
	size_t i, n = 1;

	for (i = 0; i < s; i++)
		n += !strcmp(p->stats[i].name, p->stats[s].name);
	if (n == 1)
		return p->stats[s].name;
	snprintf(buf, len, "%s#%zu", p->stats[s].name, n);
	return buf;
}

size_t report_stack_stat(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nstats; i++)
		if (!(p->stats[i].flags & (PROF_STAT_DERIVED |
					   PROF_STAT_COUNTING)))
			return i;
	return 0;
}

static int build_samples(struct build *b)
{
	return b->r->opt.samples ? report_samples_build(b->r, b->sym) : 0;
}

/* The phases run in this order, each on what the ones before it left in
 * struct build; the first to fail ends the build.  The call stacks are
 * prepared first: a view that needs stacks of a profile that has none
 * fails there, with its own message. */
int report_build(const struct profile *p, struct symbolizer *sym,
		 const struct report_options *opt, struct report **out)
{
	static int (*const phases[])(struct build *) = {
		count_totals,		/* per statistic, whole profile */
		find_sites,		/* the addresses, whole procedures */
		name_sites,		/* symbolize; note damaged objects */
		note_anonymous,		/* unnamed JIT code */
		select_sites,		/* -only, -exclude when they can */
		count_executions,	/* freq, exact counts */
		group_rows,		/* sites into the view's rows */
		fill_rows,		/* code, executions, counts */
		split_by,		/* -by: rows per task, object */
		free_sites,		/* the rows have all they need */
		row_figures,		/* percentages, ratios, averages */
		sort_rows,
		filter_rows,		/* -only, -exclude */
		note_skipped_files,
		note_unmatched,		/* -only/-exclude that match nothing */
		cut_rows,		/* cumulative percentages, -quit */
		finish_stacks,		/* totals, call-stack views */
		build_samples,		/* exports: the samples model */
	};
	struct build b = { .sym = sym, .exact_stat = -1 };
	size_t i;
	int err = 0;

	*out = NULL;
	b.r = calloc(1, sizeof(*b.r));
	if (!b.r || !(b.r->priv = calloc(1, sizeof(struct priv)))) {
		free(b.r);
		return prof_fail(PROF_ENOMEM, "out of memory");
	}
	b.r->prof = p;
	b.r->opt = *opt;
	b.r->nstats = p->nstats;
	err = report_by_check(b.r);
	if (!err)
		err = report_stacks_prepare(b.r, sym, &b.sb);
	if (err) {
		report_free(b.r);
		return err;
	}
	/* Procedures and nothing inside them: symbol tables name them all,
	 * DWARF (lines, inlined frames) is read only where they do not. */
	sym_set_names_only(sym, opt->view == REPORT_PROCEDURES &&
			   !opt->inline_split && !opt->samples &&
			   opt->stack_view == REPORT_STACKS_NONE && !opt->ra);
	for (i = 0; i < sizeof(phases) / sizeof(phases[0]) && !err; i++)
		err = phases[i](&b);
	sym_set_names_only(sym, false);
	free(b.sites);
	free(b.dropped);
	free(b.left_codes);
	free(b.left_obj);
	free_marks(b.left_marks, b.nleft);
	report_stacks_release(b.sb);
	if (err == -PROF_EINVAL) {
		/* A view's own complaint (-callers NAME matches none). */
		report_free(b.r);
		return err;
	}
	if (err) {
		report_free(b.r);
		return prof_fail(err, "cannot build report: %s",
				 prof_strerror(err));
	}
	*out = b.r;
	return 0;
}

/* ---- counting profiles: whole-run totals and ratios ------------------- */

int report_is_counting(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nstats; i++)
		if (!(p->stats[i].flags & PROF_STAT_COUNTING))
			return 0;
	return p->nstats > 0;
}

static const struct report_count *count_named(const struct report_counts *rc,
					      const char *name)
{
	size_t i;

	for (i = 0; i < rc->ncounts; i++)
		if (!strcmp(rc->counts[i].stat->name, name) &&
		    !(rc->counts[i].stat->flags & PROF_STAT_SUBSTITUTE))
			return &rc->counts[i];
	return NULL;
}

static struct report_count_ratio *add_ratio(struct report_counts *rc,
				      size_t *alloc, const char *name)
{
	struct report_count_ratio *q;
	size_t i;

	for (i = 0; i < rc->nratios; i++)
		if (!strcmp(rc->ratios[i].name, name))
			return &rc->ratios[i];
	if (ALLOC_GROW(rc->ratios, rc->nratios + 1, *alloc))
		return NULL;
	q = &rc->ratios[rc->nratios++];
	memset(q, 0, sizeof(*q));
	snprintf(q->name, sizeof(q->name), "%s", name);
	q->value = NAN;
	return q;
}

/* Each counted statistic's total, scaled where the kernel multiplexed
 * it. */
static int scale_counts(struct report_counts *rc)
{
	const struct profile *p = rc->prof;
	size_t i;

	rc->counts = calloc(p->nstats ? p->nstats : 1, sizeof(*rc->counts));
	if (!rc->counts)
		return -PROF_ENOMEM;
	for (i = 0; i < p->nstats; i++) {
		const struct prof_stat *st = &p->stats[i];
		struct report_count *c;

		if (st->flags & PROF_STAT_DERIVED)
			continue;
		c = &rc->counts[rc->ncounts++];
		c->stat = st;
		c->multiplexed = stat_multiplexed(p, st, &c->running_percent);
		c->scaled = !c->multiplexed ? (double)st->value :
			    st->time_running ? (double)st->value *
			    (double)st->time_enabled /
			    (double)st->time_running : 0;
	}
	return 0;
}

/* A software event's rate per second of the run or, for task-clock and
 * cpu-clock, the CPUs it used on average. */
static int rate_ratio(struct report_counts *rc, size_t *alloc,
		      const struct report_count *c)
{
	const struct prof_stat *st = c->stat;
	double secs = (double)rc->prof->duration_ns / 1e9;
	int clock = st->config == PERF_COUNT_SW_TASK_CLOCK ||
		    st->config == PERF_COUNT_SW_CPU_CLOCK;
	struct report_count_ratio *q;
	char name[96];

	snprintf(name, sizeof(name), clock ? "%s_cpus" : "%s_per_second",
		 st->name);
	q = add_ratio(rc, alloc, name);
	if (!q)
		return -PROF_ENOMEM;
	q->inputs[0] = st->name;
	snprintf(q->formula, sizeof(q->formula), clock ?
		 "%s (ns) / duration (ns): CPUs used" :
		 "%s / duration (s)", st->name);
	if (secs > 0)
		q->value = clock ? c->scaled / (secs * 1e9) : c->scaled / secs;
	return 0;
}

/* X_per_ret = 100 * X / retired (cycles_per_ret: cycles / retired). */
static int per_ret_ratio(struct report_counts *rc, size_t *alloc,
			 const struct report_count *c,
			 const struct report_count *ret)
{
	const struct prof_stat *st = c->stat;
	int cyc = per_ret_scale(st->name) == 1.0;
	struct report_count_ratio *q;
	char name[96];

	snprintf(name, sizeof(name), "%s_per_ret", st->name);
	q = add_ratio(rc, alloc, name);
	if (!q)
		return -PROF_ENOMEM;
	q->inputs[0] = st->name;
	q->inputs[1] = ret->stat->name;
	snprintf(q->formula, sizeof(q->formula), cyc ?
		 "%s / %s" : "100 * %s / %s", st->name, ret->stat->name);
	if (ret->scaled > 0)
		q->value = (cyc ? 1.0 : 100.0) * c->scaled / ret->scaled;
	return 0;
}

/* Ratios asked for by name, whether or not they could be made. */
static int requested_ratios(struct report_counts *rc, size_t *alloc)
{
	const struct profile *p = rc->prof;
	size_t i, sl = strlen("_per_ret");
	char name[96];

	for (i = 0; i < p->nstats; i++) {
		const struct prof_stat *st = &p->stats[i];
		const struct report_count *x;
		struct report_count_ratio *q;
		size_t n = strlen(st->name);

		if (!(st->flags & PROF_STAT_DERIVED))
			continue;
		q = add_ratio(rc, alloc, st->name);
		if (!q)
			return -PROF_ENOMEM;
		q->requested = 1;
		if (q->inputs[0] || n <= sl)
			continue;
		/* Inputs missing: say which were needed. */
		snprintf(name, sizeof(name), "%.*s", (int)(n - sl), st->name);
		x = count_named(rc, name);
		q->inputs[0] = x ? x->stat->name : NULL;
		snprintf(q->formula, sizeof(q->formula),
			 "%s%s / retinst (not counted)",
			 per_ret_scale(name) == 1.0 ? "" : "100 * ", name);
	}
	return 0;
}

/*
 * The ratios of the originals, from whole-run totals: cycles_per_ret =
 * cycles / retinst, X_per_ret = 100 * X / retinst for every other
 * hardware statistic; for software events, rates per second of the run
 * and, from task-clock or cpu-clock, the CPUs used on average.
 */
int report_counts_build(const struct profile *p, const char *file,
			struct report_counts **out)
{
	struct report_counts *rc = calloc(1, sizeof(*rc));
	const struct report_count *ret;
	size_t i, alloc = 0;
	int err;

	*out = NULL;
	if (!rc)
		return prof_fail(PROF_ENOMEM, "out of memory");
	rc->prof = p;
	rc->file = file;
	err = scale_counts(rc);
	ret = count_named(rc, "retinst");
	for (i = 0; i < rc->ncounts && !err; i++) {
		const struct report_count *c = &rc->counts[i];

		if (c->stat->type == PERF_TYPE_SOFTWARE)
			err = rate_ratio(rc, &alloc, c);
		else if (ret && c != ret &&
			 !(c->stat->flags & PROF_STAT_SUBSTITUTE))
			err = per_ret_ratio(rc, &alloc, c, ret);
	}
	if (!err)
		err = requested_ratios(rc, &alloc);
	if (err) {
		report_counts_free(rc);
		return prof_fail(PROF_ENOMEM, "out of memory");
	}
	*out = rc;
	return 0;
}

void report_counts_free(struct report_counts *rc)
{
	if (!rc)
		return;
	free(rc->counts);
	free(rc->ratios);
	free(rc);
}
