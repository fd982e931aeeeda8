/* SPDX-License-Identifier: MIT */
/*
 * The procedures' code: the sites of every instruction of the sampled
 * procedures (freq, blocks and the asm view see whole blocks), and, in
 * the code views, -only/-exclude and -asm's -quit applied before the
 * procedures are decoded (select_first()).
 */
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "build.h"
#include "symbolize/symbolize.h"

/*
 * The codes of the procedures sites[lo .. n) fall in, each once, with
 * the object of a site in it (*code_obj); counts in *undecoded the
 * procedures whose code could not be read, in *undecoded_kernel those of
 * them in the kernel.  With v (the blocks view), each is handed to v as
 * it is complete, and nothing is returned.
 */
static int find_codes(const struct profile *p, struct symbolizer *sym,
		      struct site *sites, size_t lo, size_t n, int extent_only,
		      struct blockview *v, const struct sym_code ***pcodes,
		      uint32_t **code_obj, size_t *pncodes, size_t *undecoded,
		      size_t *undecoded_kernel)
{
	const struct sym_code **codes = NULL;
	size_t ncodes = 0, alloc_codes = 0, i, k, first = lo;
	uint64_t last_obj = UINT64_MAX, last_sym = 0;
	int err = 0;

	for (i = lo; i < n; i++) {
		const struct sym_code *code = report_site_code(p, sym, sites, i,
							extent_only);

		sites[i].code = code;
		if (!code) {
			struct sym_object so = report_sym_obj(p, sites[i].obj);
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
		/* The one before is complete: the blocks view is done with
		 * it. */
		if (v && ncodes)
			err = report_blockview_code(v, codes[ncodes - 1],
						    sites[first].obj, first, i);
		if (err || ALLOC_GROW(codes, ncodes + 1, alloc_codes)) {
			free(codes);
			return err ? err : -PROF_ENOMEM;
		}
		first = i;
		codes[ncodes++] = code;
	}
	if (v && ncodes)
		err = report_blockview_code(v, codes[ncodes - 1],
					    sites[first].obj, first, n);
	if (err || v) {
		/* The blocks view has what it needs (its sites' codes are
		 * theirs only where they start an instruction). */
		free(codes);
		return err;
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
		const struct sym_code *code = report_site_code(p, sym, sites,
							       i, 0);
		size_t k;

		sites[i].code = NULL;
		if (!code)
			continue;
		/* An address inside an instruction (or in bytes that did not
		 * decode) stays without code. */
		k = report_insn_at(code, sites[i].offset);
		if (k != SIZE_MAX)
			report_site_attach(&sites[i], code, k);
	}
}

/* The procedure a site without code is shown in: as report_site_outer() will
 * name it once report_resolve_sites() has. */
static const char *site_own_name(const struct profile *p,
				 struct symbolizer *sym, const struct site *s)
{
	struct sym_object so = report_sym_obj(p, s->obj);
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

		if (!s->code ||
		    !report_name_filtered(opt, s->code->procedure) ||
		    !report_name_filtered(opt, site_own_name(p, b->sym, s))) {
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
		report_site_key(b->r, &v[i], &keys[i]);
	if (n > 1)
		qsort(keys, n, sizeof(*keys), report_key_cmp);
	b->nrows_all = 0;
	for (i = 0; i < n; i++)
		if (!i || report_key_cmp(&keys[i], &keys[i - 1]))
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
	int c = report_cmp_str0(x->object, y->object);

	if (c)
		return c;
	if ((c = report_cmp_str0(x->name, y->name)))
		return c;
	return x->address < y->address ? -1 : x->address > y->address;
}

/* report_row_hotter() on headings (no freq: select_first()), then stable. */
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
	struct sym_object so = report_sym_obj(p, obj);
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
	struct sym_object so = report_sym_obj(p, s->obj);
	const struct sym_code *c;

	if (!s->code || !strcmp(own, s->code->procedure))
		return s->code ? s->code->procedure : own;
	if (sym_code(b->sym, &so, s->offset, &c) != SYM_OK)
		return own;
	return report_insn_at(c, s->offset) != SIZE_MAX ? c->procedure : own;
}

/* Index of the heading (object, name) in the sorted h[0 .. n). */
static size_t find_heading(const struct heading *h, size_t n,
			   const char *object, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = report_cmp_str0(h[mid].object, object);

		if (!c)
			c = report_cmp_str0(h[mid].name, name);
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
 * the counts and their order (report_asm_arrange()), cut as
 * report_asm_cut() cuts.
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
		if (report_name_filtered(opt, site_name[i]))
			continue;
		h[nh].object = p->objects[s->obj].path;
		h[nh].name = site_name[i];
		h[nh++].address = site_vaddr(p, b->sym, s->obj, s->offset);
	}
	/* One heading per (object, name), at its lowest address. */
	if (nh > 1)
		qsort(h, nh, sizeof(*h), cmp_heading_name);
	for (i = j = 0; i < nh; i++)
		if (!j || report_cmp_str0(h[i].object, h[j - 1].object) ||
		    report_cmp_str0(h[i].name, h[j - 1].name))
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
		struct site *s = report_site_find(b->sites, b->nsites, c->obj,
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
		if (report_quit_reached(opt->quit_rows, opt->quit_percent, kept,
					ns ? &order[kept]->percent : NULL))
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

/* From instruction x of codes[k] on, the first wanted one (k == ncodes:
 * none is left). */
static void next_wanted(const struct sym_code **codes,
			unsigned char *const *marks, size_t ncodes, size_t *k,
			size_t *x)
{
	while (*k < ncodes) {
		const unsigned char *mark = marks ? marks[*k] : NULL;

		if (*x < codes[*k]->ninsns) {
			if (report_block_wanted(codes[*k], mark, *x))
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
			c = i < b->nsites ?
			    report_site_cmp(&b->sites[i], &e) : 1;
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
	size_t k;

	*pmarks = NULL;
	if (b->r->opt.view != REPORT_BLOCKS ||
	    report_find_retired(b->r->prof, 0) >= 0)
		return 0;
	marks = calloc(ncodes ? ncodes : 1, sizeof(*marks));
	if (!marks)
		return -PROF_ENOMEM;
	*pmarks = marks;
	for (k = 0; k < ncodes; k++)
		if (report_block_marks(b, codes[k], code_obj[k], &marks[k]))
			return -PROF_ENOMEM;
	return 0;
}

void report_code_free_marks(unsigned char **marks, size_t n)
{
	size_t k;

	if (!marks)
		return;
	for (k = 0; k < n; k++)
		free(marks[k]);
	free(marks);
}

/* Whether the blocks view makes its sites a procedure at a time
 * (blockview.c): without freq, whose blocks all have rows, nor -only or
 * -exclude, which choose procedures before any is decoded. */
static int streams(const struct build *b)
{
	return b->r->opt.view == REPORT_BLOCKS && !b->select &&
	       report_find_retired(b->r->prof, 0) < 0;
}

/* The end of the run of sites of sites[lo]'s object. */
static size_t object_end(const struct site *sites, size_t n, size_t lo)
{
	size_t hi = lo + 1;

	while (hi < n && sites[hi].obj == sites[lo].obj)
		hi++;
	return hi;
}

/*
 * The blocks view's procedures, an object at a time: first those of the
 * objects without DWARF to read, then the others, whose DWARF a thread
 * opens meanwhile (sym_read_dwarf_ahead(): loading libc's debug file
 * was a sixth of the view).  An object's sites stay in their order, and
 * so do the objects of each pass.
 */
static int stream_codes(struct build *b, struct blockview *v)
{
	const struct profile *p = b->r->prof;
	size_t lo, hi, n = b->nsites;
	unsigned char *ahead = calloc(p->nobjects ? p->nobjects : 1, 1);
	int err = 0, pass;

	if (!ahead)
		return -PROF_ENOMEM;
	for (lo = 0; lo < n && !err; lo = hi) {
		struct sym_object so = report_sym_obj(p, b->sites[lo].obj);
		uint64_t *offs;
		size_t i;

		hi = object_end(b->sites, n, lo);
		offs = malloc((hi - lo) * sizeof(*offs));
		if (!offs) {
			err = -PROF_ENOMEM;
			break;
		}
		for (i = lo; i < hi; i++)
			offs[i - lo] = b->sites[i].offset;
		ahead[b->sites[lo].obj] = sym_read_dwarf_ahead(b->sym, &so,
							       offs, hi - lo);
		free(offs);
	}
	for (pass = 0; pass < 2 && !err; pass++) {
		for (lo = 0; lo < n && !err; lo = hi) {
			hi = object_end(b->sites, n, lo);
			if (ahead[b->sites[lo].obj] != pass)
				continue;
			err = find_codes(p, b->sym, b->sites, lo, hi, 0, v,
					 NULL, NULL, NULL, &b->r->undecoded,
					 &b->r->undecoded_kernel);
		}
	}
	free(ahead);
	return err;
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
	int err;

	if (streams(b)) {
		struct blockview *v;

		err = report_blockview_start(b, &v);
		if (!err)
			err = stream_codes(b, v);
		return report_blockview_finish(v, err);
	}
	err = find_codes(p, sym, b->sites, 0, n, extent_only, NULL, &codes,
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
			keep[i] = !report_name_filtered(opt,
							codes[i]->procedure);
		if (!extent_only)
			err = count_sampled_rows(b);
		if (!err)
			err = drop_unselected(b);
		if (!err && b->select_quit)
			err = select_hottest(b, codes, code_obj, keep, ncodes);
		for (i = k = 0; i < ncodes && !err; i++) {
			struct sym_object so = report_sym_obj(p, code_obj[i]);
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
	if (b->listing) {
		/* The asm view makes its instructions' sites a procedure
		 * at a time (listing.c). */
		attach_code(p, sym, b->sites, b->nsites);
		b->codes = codes;
		b->code_obj = code_obj;
		b->ncodes = ncodes;
		codes = NULL;
		code_obj = NULL;
		goto out;
	}
	err = wanted_blocks(b, codes, code_obj, ncodes, &marks);
	if (err)
		goto out;
	for (k = 0; k < ncodes; k++)
		for (i = 0; i < codes[k]->ninsns; i++)
			nadd += report_block_wanted(codes[k],
						    marks ? marks[k] : NULL, i);
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
		const unsigned char *mark = marks ? marks[k] : NULL;

		for (i = 0; i < codes[k]->ninsns; i++) {
			struct site *s;

			if (!report_block_wanted(codes[k], mark, i))
				continue;
			s = &b->sites[n++];

			memset(s, 0, sizeof(*s));
			s->obj = code_obj[k];
			s->offset = codes[k]->insns[i].offset;
		}
	}
	report_sites_sort_unique(b->sites, &n);
	attach_code(p, sym, b->sites, n);
	b->nsites = n;
out:
	if (marks && !err) {
		/* model.c's name_sites() resolves the instructions left out. */
		b->left_codes = codes;
		b->left_obj = code_obj;
		b->left_marks = marks;
		b->nleft = ncodes;
		codes = NULL;
		code_obj = NULL;
		marks = NULL;
	}
	report_code_free_marks(marks, ncodes);
	free(codes);
	free(code_obj);
	free(keep);
	return err;
}

/*
 * Whether resolving more addresses of object obj can change its note
 * (report_note_object()), state being what resolving told so far: not
 * once it is unreadable, nor once a file without DWARF has code nothing
 * names (the rest can only be named, and no error is left to find).
 */
static int note_settled(struct build *b, const uint8_t *state, uint32_t obj)
{
	if (state[obj] & OBJ_UNREADABLE)
		return 1;
	return (state[obj] & OBJ_ANONYMOUS) && report_obj_without_dwarf(b, obj);
}

/* The instructions that are no sites (wanted_blocks()) resolved for
 * obj_state() alone: the notes stay those of every instruction. */
void report_code_resolve_left(struct build *b, uint8_t *bad)
{
	size_t k, i;

	for (i = 0; b->state_early && i < b->r->prof->nobjects; i++)
		bad[i] |= b->state_early[i];
	for (k = 0; k < b->nleft; k++) {
		const struct sym_code *c = b->left_codes[k];

		if (note_settled(b, bad, b->left_obj[k]))
			continue;
		for (i = 0; i < c->ninsns; i++) {
			struct sym_result res;

			if (report_block_wanted(c, b->left_marks[k], i))
				continue;
			report_resolve(b->r->prof, b->sym, b->left_obj[k],
				       c->insns[i].offset, &res, bad);
		}
	}
}

static int wants_code(const struct report *r)
{
	return r->opt.view == REPORT_BLOCKS || r->opt.view == REPORT_ASM ||
	       r->opt.view == REPORT_BUCKETS || r->opt.average ||
	       r->opt.stride >= 0 || report_asks_freq(r->prof);
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
	return report_find_retired(r->prof, 0) < 0;
}

/* The sites: each sampled (object, offset) once, and every instruction
 * of their procedures when the report needs code. */
int report_code_find_sites(struct build *b)
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
	report_sites_sort_unique(b->sites, &b->nsites);
	if (!wants_code(b->r))
		return 0;
	b->select = select_first(b->r);
	b->select_quit = b->select && b->r->opt.view == REPORT_ASM &&
			 (b->r->opt.quit_rows || b->r->opt.quit_percent > 0);
	for (i = 0; b->select && i < p->ncounts; i++) {
		struct site *s = report_site_find(b->sites, b->nsites,
					   p->counts[i].obj,
					   p->counts[i].offset);

		if (p->counts[i].samples)
			s->sampled = 1;
	}
	return expand_code(b);
}
