/* SPDX-License-Identifier: MIT */
/*
 * --format flamegraph: the samples model (report.h, struct
 * report_samples) as one self-contained SVG flame graph, which a browser
 * opens offline: no external script, font or style sheet.
 *
 * - The samples' stacks are merged root first into a tree; a location's
 *   inline chain gives several frames, the out-of-line procedure first
 *   and the functions inlined into it above it, marked "[inlined]".
 *   Samples without a stack are towers of their location alone, on the
 *   root.  Siblings are in name order, so the x axis is not time.
 * - Widths are of one statistic, the report's stack statistic (the first
 *   with counts of its own): its weight (events), as the text report's
 *   percentages are; the titles count its samples.  Percentages are of
 *   its total in the whole profile, so the root is 100%.
 * - Colours: a hue per object (a hash of its base name), the function
 *   varies the lightness; kernel objects in a band of reds no user object
 *   gets; the truncation marker and the root grey.
 * - Frames narrower than FG_MIN_W pixels are left out (the subtitle says
 *   how many); labels are cut with ".." and dropped below three
 *   characters, by the same rule the script applies when it zooms.
 * - Names come from outside: they are written as valid UTF-8 without
 *   control characters (other bytes as the text "\xNN"), with XML's five
 *   special characters escaped, and never inside the script (CDATA).
 *
 * The inline script (zoom, search, details line) is data here, written
 * as is; it reads each frame's name from its fg:name attribute, in a
 * namespace of our own (SVG 1.1 allows foreign attributes).
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "common/util/path.h"
#include "escape.h"
#include "formats/report/report.h"
#include "writers.h"

#define FG_WIDTH 1200.0		/* px */
#define FG_PAD 10.0		/* left and right margins */
#define FG_FRAME_H 16.0
#define FG_FONT 12.0		/* px, monospace */
#define FG_CHAR_W 7.2		/* monospace advance: 0.6 em */
#define FG_MIN_W 0.1		/* narrower frames are not drawn */
#define FG_TOP 64.0		/* title, subtitle, buttons */
#define FG_BOTTOM 36.0		/* details line */
#define FG_NS "urn:x-uprofile:flamegraph"

#define NO_FUNC UINT32_MAX	/* the root's func */

struct fnode {
	uint32_t func;			/* index into funcs; NO_FUNC: root */
	uint32_t obj;			/* UINT32_MAX: marker (or root) */
	uint32_t parent;
	uint32_t depth;			/* root 0 */
	unsigned char inlined;
	unsigned char drawn;
	uint64_t self_samples, self_weight;	/* of the statistic */
	uint64_t samples, weight;		/* total */
	double x, w;			/* px */
};

struct fg {
	const struct report *r;
	const struct report_samples *s;
	size_t stat;			/* the statistic widths are of */
	struct fnode *nodes;
	size_t nnodes, alloc_nodes;
	/* With ratios: every statistic's total per node, nnodes x nstats. */
	uint64_t *all_samples, *all_weight;
	size_t alloc_as, alloc_aw;
	uint32_t *slots;		/* child lookup: node + 1, 0: empty */
	size_t cap;
	char **fnames;			/* per function: clean text */
	char **onames;			/* per object: clean base name */
	uint32_t *order;		/* non-root nodes, siblings together in
					 * name order, parents first */
	size_t ndropped;		/* frames with weight, too narrow */
	uint32_t maxdepth;
};

/* ------------------------------------------------------------------ */
/* Text */

/*
 * A copy of s that XML accepts as character data: well-formed UTF-8
 * without control characters or the noncharacters U+FFFE and U+FFFF;
 * any other byte becomes the four characters "\xNN".  NULL when out of
 * memory.
 */
static char *clean_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p), i = 0, k = 0;
	char *out = malloc(n * 4 + 1);

	if (!out)
		return NULL;
	while (i < n) {
		int len = esc_utf8_seq_len(p + i, n - i);

		if (len == 1 && p[i] >= 0x20 && p[i] != 0x7f) {
			out[k++] = (char)p[i++];
		} else if (len > 1 &&
			   !(len == 3 && p[i] == 0xef && p[i + 1] == 0xbf &&
			     p[i + 2] >= 0xbe)) {
			memcpy(out + k, p + i, (size_t)len);
			k += (size_t)len;
			i += (size_t)len;
		} else {
			k += (size_t)sprintf(out + k, "\\x%02x", p[i++]);
		}
	}
	out[k] = '\0';
	return out;
}

/* Write the first n bytes of clean text s with & < > " ' escaped: as
 * character data or inside an attribute value in either quotes. */
static void xml_put(FILE *f, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(s[i], f);
		}
	}
}

static void xml_str(FILE *f, const char *s)
{
	xml_put(f, s, strlen(s));
}

/* Characters (code points) of clean text s, and the byte length of its
 * first n characters. */
static size_t text_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static size_t text_prefix(const char *s, size_t n)
{
	size_t i = 0;

	for (; s[i]; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && n-- == 0)
			break;
	return i;
}

/* The label of a frame w px wide: the name, cut to the characters that
 * fit with ".." at the end; nothing when fewer than three fit.  (The
 * script's fit() does the same when it zooms.) */
static void put_label(FILE *f, const char *name, double w)
{
	double room = floor((w - 6.0) / FG_CHAR_W);
	size_t fit, len;

	if (room < 3)
		return;
	fit = (size_t)room;
	len = text_chars(name);
	if (len <= fit)
		xml_str(f, name);
	else {
		xml_put(f, name, text_prefix(name, fit - 2));
		fputs("..", f);
	}
}

/* ------------------------------------------------------------------ */
/* The tree */

static int is_kernel(const struct fg *g, uint32_t obj)
{
	const struct profile *p = g->r->prof;

	return obj < p->nobjects && (p->objects[obj].kind == PROF_OBJ_KERNEL ||
				     p->objects[obj].kind == PROF_OBJ_MODULE);
}

static uint64_t node_key(uint32_t parent, uint32_t func, uint32_t obj,
			 int inlined)
{
	uint64_t x = ((uint64_t)parent << 32 | func) ^
		     ((uint64_t)obj * 0x9e3779b97f4a7c15ULL) ^
		     (uint64_t)inlined;

	return hash_mix64(x);
}

static int slots_grow(struct fg *g)
{
	size_t cap = g->cap ? g->cap * 2 : 1024, i;
	uint32_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -PROF_ENOMEM;
	for (i = 0; i < g->cap; i++) {
		const struct fnode *n;
		size_t s;

		if (!g->slots[i])
			continue;
		n = &g->nodes[g->slots[i] - 1];
		for (s = node_key(n->parent, n->func, n->obj, n->inlined) &
			 (cap - 1); slots[s]; s = (s + 1) & (cap - 1))
			;
		slots[s] = g->slots[i];
	}
	free(g->slots);
	g->slots = slots;
	g->cap = cap;
	return 0;
}

static long new_node(struct fg *g, uint32_t parent, uint32_t func,
		     uint32_t obj, int inlined)
{
	size_t nst = g->r->nratios ? g->s->nstats : 0;
	struct fnode *n;

	if (ALLOC_GROW(g->nodes, g->nnodes + 1, g->alloc_nodes))
		return -PROF_ENOMEM;
	if (nst) {
		if (ALLOC_GROW(g->all_samples, (g->nnodes + 1) * nst,
			       g->alloc_as) ||
		    ALLOC_GROW(g->all_weight, (g->nnodes + 1) * nst,
			       g->alloc_aw))
			return -PROF_ENOMEM;
		memset(g->all_samples + g->nnodes * nst, 0,
		       nst * sizeof(*g->all_samples));
		memset(g->all_weight + g->nnodes * nst, 0,
		       nst * sizeof(*g->all_weight));
	}
	n = &g->nodes[g->nnodes];
	memset(n, 0, sizeof(*n));
	n->func = func;
	n->obj = obj;
	n->parent = parent;
	n->inlined = (unsigned char)inlined;
	n->depth = g->nnodes ? g->nodes[parent].depth + 1 : 0;
	return (long)g->nnodes++;
}

/* The child of parent for (func, obj, inlined), added when new. */
static long child(struct fg *g, uint32_t parent, uint32_t func, uint32_t obj,
		  int inlined)
{
	size_t s;
	long id;

	if ((g->nnodes + 1) * 2 > g->cap && slots_grow(g))
		return -PROF_ENOMEM;
	for (s = node_key(parent, func, obj, inlined) & (g->cap - 1);
	     g->slots[s]; s = (s + 1) & (g->cap - 1)) {
		const struct fnode *n = &g->nodes[g->slots[s] - 1];

		if (n->parent == parent && n->func == func && n->obj == obj &&
		    n->inlined == inlined)
			return (long)g->slots[s] - 1;
	}
	id = new_node(g, parent, func, obj, inlined);
	if (id >= 0)
		g->slots[s] = (uint32_t)id + 1;
	return id;
}

static void add_values(struct fg *g, uint32_t node,
		       const struct report_ssample *x)
{
	size_t nst = g->r->nratios ? g->s->nstats : 0, k;
	struct fnode *n = &g->nodes[node];

	n->samples += x->samples[g->stat];
	n->weight += x->weight[g->stat];
	for (k = 0; k < nst; k++) {
		g->all_samples[node * nst + k] += x->samples[k];
		g->all_weight[node * nst + k] += x->weight[k];
	}
}

static int has_values(const struct fg *g, const struct report_ssample *x)
{
	size_t k;

	if (x->samples[g->stat] || x->weight[g->stat])
		return 1;
	for (k = 0; g->r->nratios && k < g->s->nstats; k++)
		if (x->samples[k] || x->weight[k])
			return 1;
	return 0;
}

/* Each sample's frames, root first, into the tree. */
static int merge_samples(struct fg *g)
{
	const struct report_samples *s = g->s;
	size_t i;

	if (new_node(g, 0, NO_FUNC, UINT32_MAX, 0) < 0)
		return -PROF_ENOMEM;
	for (i = 0; i < s->nsamples; i++) {
		const struct report_ssample *x = &s->samples[i];
		uint32_t node = 0, j;

		if (!has_values(g, x))
			continue;
		add_values(g, 0, x);
		for (j = x->nlocs; j-- > 0;) {
			const struct report_sloc *l =
				&s->locs[s->sample_locs[x->first + j]];
			uint32_t k;

			for (k = l->nlines; k-- > 0;) {
				long c = child(g, node,
					       s->lines[l->first_line + k].func,
					       l->obj, k + 1 < l->nlines);

				if (c < 0)
					return -PROF_ENOMEM;
				node = (uint32_t)c;
				add_values(g, node, x);
			}
		}
		g->nodes[node].self_samples += x->samples[g->stat];
		g->nodes[node].self_weight += x->weight[g->stat];
	}
	return 0;
}

struct sort_key {
	uint32_t parent, rank, obj, inlined, node;
};

static int cmp_key(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->inlined < y->inlined ? -1 : x->inlined > y->inlined;
}

struct name_ref {
	const char *name;
	uint32_t func;
};

static int cmp_name(const void *a, const void *b)
{
	const struct name_ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->func > y->func) - (x->func < y->func);
}

/*
 * g->order: the nodes but the root, by parent, then name: parents come
 * before their children (a node is created after its parent, so its id
 * is larger), and siblings are in a run, in the order they are drawn.
 */
static int sort_nodes(struct fg *g)
{
	size_t nf = g->s->nfuncs, i;
	struct name_ref *byname = malloc((nf + 1) * sizeof(*byname));
	uint32_t *rank = malloc((nf + 1) * sizeof(*rank));
	struct sort_key *keys = malloc(g->nnodes * sizeof(*keys));
	int err = 0;

	g->order = malloc(g->nnodes * sizeof(*g->order));
	if (!byname || !rank || !keys || !g->order) {
		err = -PROF_ENOMEM;
		goto out;
	}
	for (i = 0; i < nf; i++)
		byname[i] = (struct name_ref){ g->fnames[i], (uint32_t)i };
	qsort(byname, nf, sizeof(*byname), cmp_name);
	for (i = 0; i < nf; i++)
		rank[byname[i].func] = (uint32_t)i;
	for (i = 1; i < g->nnodes; i++) {
		const struct fnode *n = &g->nodes[i];

		keys[i - 1] = (struct sort_key){
			.parent = n->parent, .rank = rank[n->func],
			.obj = n->obj, .inlined = n->inlined,
			.node = (uint32_t)i,
		};
	}
	qsort(keys, g->nnodes - 1, sizeof(*keys), cmp_key);
	for (i = 1; i < g->nnodes; i++)
		g->order[i - 1] = keys[i - 1].node;
out:
	free(byname);
	free(rank);
	free(keys);
	return err;
}

/* x and width of every frame, which are drawn, and the depth drawn. */
static int layout(struct fg *g)
{
	double *cursor = malloc(g->nnodes * sizeof(*cursor));
	struct fnode *root = &g->nodes[0];
	double scale;
	size_t i;

	if (!cursor)
		return -PROF_ENOMEM;
	root->x = FG_PAD;
	root->w = FG_WIDTH - 2 * FG_PAD;
	root->drawn = root->weight > 0;
	scale = root->weight ? root->w / (double)root->weight : 0;
	cursor[0] = root->x;
	for (i = 0; i + 1 < g->nnodes; i++) {
		struct fnode *n = &g->nodes[g->order[i]];

		n->x = cursor[n->parent];
		n->w = (double)n->weight * scale;
		cursor[n->parent] += n->w;
		cursor[g->order[i]] = n->x;
		n->drawn = g->nodes[n->parent].drawn && n->weight &&
			   n->w >= FG_MIN_W;
		if (n->weight && !n->drawn)
			g->ndropped++;
		if (n->drawn && n->depth > g->maxdepth)
			g->maxdepth = n->depth;
	}
	free(cursor);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Colours */

static void hsl_rgb(double h, double s, double l, int rgb[3])
{
	double c = (1 - fabs(2 * l - 1)) * s, hp = h / 60.0;
	double x = c * (1 - fabs(fmod(hp, 2) - 1)), m = l - c / 2;
	double v[3] = { 0, 0, 0 };
	int k;

	if (hp < 1)
		v[0] = c, v[1] = x;
	else if (hp < 2)
		v[0] = x, v[1] = c;
	else if (hp < 3)
		v[1] = c, v[2] = x;
	else if (hp < 4)
		v[1] = x, v[2] = c;
	else if (hp < 5)
		v[0] = x, v[2] = c;
	else
		v[0] = c, v[2] = x;
	for (k = 0; k < 3; k++)
		rgb[k] = (int)lround((v[k] + m) * 255);
}

/*
 * User objects take hues 60-270 (yellow to violet), kernel objects 0-35
 * (reds, oranges): a frame's colour says where its code lives.  The
 * search highlight is magenta (300), which no frame has.
 */
static void frame_fill(const struct fg *g, const struct fnode *n, int rgb[3])
{
	uint32_t oh, fh;
	double hue, sat, light;

	if (n->func == NO_FUNC || n->obj == UINT32_MAX) {
		int v = n->func == NO_FUNC ? 205 : 165;

		rgb[0] = rgb[1] = rgb[2] = v;
		return;
	}
	oh = (uint32_t)hash_str(HASH_STR_SEED, g->onames[n->obj]);
	fh = (uint32_t)hash_str(HASH_STR_SEED, g->fnames[n->func]);
	if (is_kernel(g, n->obj)) {
		hue = oh % 36;
		sat = 0.75;
	} else {
		hue = 60 + oh % 211;
		sat = 0.60;
	}
	light = 0.62 + ((double)(fh % 13) - 6) / 100.0;
	if (n->inlined) {
		sat -= 0.25;
		light += 0.08;
	}
	hsl_rgb(hue, sat, light, rgb);
}

/* ------------------------------------------------------------------ */
/* The document */

static double percent(const struct fg *g, uint64_t w)
{
	uint64_t all = g->r->total_weight[g->stat];

	return all ? 100.0 * (double)w / (double)all : 0.0;
}

/* What the counts count: samples, or events for exact counts (the
 * sim engine, -pixie), whose every event is a sample. */
static const char *unit(const struct fg *g, uint64_t n)
{
	int exact = g->r->prof->stats[g->stat].flags & PROF_STAT_SIMULATED;

	if (n == 1)
		return exact ? "event" : "sample";
	return exact ? "events" : "samples";
}

/* A frame's name as shown: the function, "all" for the root. */
static const char *node_name(const struct fg *g, const struct fnode *n)
{
	return n->func == NO_FUNC ? "all" : g->fnames[n->func];
}

/* The tooltip: name [inlined] (object) — self ..., total ...[, ratios] */
static void put_title(FILE *f, const struct fg *g, uint32_t id)
{
	const struct fnode *n = &g->nodes[id];
	size_t nst = g->s->nstats, k;

	xml_str(f, node_name(g, n));
	if (n->inlined)
		fputs(" [inlined]", f);
	if (n->func != NO_FUNC && n->obj != UINT32_MAX) {
		fputs(" (", f);
		xml_str(f, g->onames[n->obj]);
		fputc(')', f);
	}
	fprintf(f, " \u2014 self %" PRIu64 " %s (%.2f%%), total %" PRIu64
		" %s (%.2f%%)", n->self_samples, unit(g, n->self_samples),
		percent(g, n->self_weight), n->samples, unit(g, n->samples),
		percent(g, n->weight));
	for (k = 0; k < g->r->nratios; k++) {
		const struct report_ratio *ra = &g->r->ratios[k];
		const struct prof_stat *st = g->r->prof->stats;
		const uint64_t *w = g->all_weight + id * nst;
		const uint64_t *c = g->all_samples + id * nst;
		int low = (!(st[ra->num].flags & PROF_STAT_SIMULATED) &&
			   c[ra->num] < REPORT_RATIO_MIN_SAMPLES) ||
			  (!(st[ra->den].flags & PROF_STAT_SIMULATED) &&
			   c[ra->den] < REPORT_RATIO_MIN_SAMPLES);

		fputs(", ", f);
		xml_str(f, ra->name);
		if (!w[ra->den])
			fputs(" n/a", f);
		else
			fprintf(f, " %.2f%s", ra->scale * (double)w[ra->num] /
				(double)w[ra->den], low ? " (few samples)" : "");
	}
}

static void put_frame(FILE *f, const struct fg *g, uint32_t id)
{
	const struct fnode *n = &g->nodes[id];
	double y = FG_TOP + (double)(g->maxdepth - n->depth) * FG_FRAME_H;
	int rgb[3];

	frame_fill(g, n, rgb);
	fputs("<g class=\"f\" fg:name=\"", f);
	xml_str(f, node_name(g, n));
	fputs("\"><title>", f);
	put_title(f, g, id);
	fprintf(f, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
		"height=\"%.1f\" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/>"
		"<text x=\"%.2f\" y=\"%.1f\">", n->x, y, n->w, FG_FRAME_H - 1,
		rgb[0], rgb[1], rgb[2], n->x + 3, y + FG_FRAME_H - 4.5);
	put_label(f, node_name(g, n), n->w);
	fputs("</text></g>\n", f);
}

/* The command line, or what names the profile when it has none. */
static int put_command(FILE *f, const struct report *r)
{
	const struct profile *p = r->prof;
	int i;

	for (i = 0; i < p->argc; i++) {
		char *c = clean_text(p->argv[i]);

		if (!c)
			return -PROF_ENOMEM;
		if (i)
			fputc(' ', f);
		xml_str(f, c);
		free(c);
	}
	if (!p->argc)
		fprintf(f, "%s profile", p->tool && !strcmp(p->tool, "kprofile") ?
			"kprofile" : "uprofile");
	return 0;
}

/* The statistic, the samples and how complete the stacks are. */
static void put_subtitle(FILE *f, const struct fg *g)
{
	const struct report *r = g->r;
	const struct prof_stat *st = &r->prof->stats[g->stat];
	uint64_t all = r->total_samples[g->stat];

	xml_str(f, st->name);
	fprintf(f, ": %" PRIu64 " %s", all, unit(g, all));
	if (r->stacks) {
		if (r->stacks->complete || !r->stacks->kernel_only)
			fprintf(f, "; call stacks %.2f%% complete",
				r->stacks->complete_percent);
		if (r->stacks->kernel_only)
			fprintf(f, "%s %.2f%% kernel frames only",
				r->stacks->complete ? "," : "; call stacks",
				r->stacks->kernel_only_percent);
		if (all > r->stacks->samples)
			fprintf(f, ", %" PRIu64 " %s without a stack",
				all - r->stacks->samples,
				unit(g, all - r->stacks->samples));
	} else {
		fputs("; no call stacks (flat profile)", f);
	}
	if (g->ndropped)
		fprintf(f, "; %zu frame%s narrower than %.1f px not drawn",
			g->ndropped, g->ndropped == 1 ? "" : "s", FG_MIN_W);
}

static const char fg_style[] =
"text { font-family: monospace; font-size: 12px; fill: #000; }\n"
"#fg-heading { font-size: 17px; text-anchor: middle; }\n"
"#fg-subtitle { fill: #444; text-anchor: middle; }\n"
".btn { cursor: pointer; fill: #333; }\n"
".btn:hover { text-decoration: underline; }\n"
"g.f { cursor: pointer; }\n"
"g.f:hover rect, g.f:focus rect { stroke: #000; stroke-width: 0.5; }\n"
"g.f text { pointer-events: none; }\n"
"g.f:focus { outline: none; }\n";

/*
 * Zoom: a click on a frame (or Enter on a focused one) widens it to the
 * whole width with what is above it; the frames below it, its callers,
 * stay full width and faded; the others are hidden.  "Reset Zoom" or
 * Escape undoes it.  Search (the button, Ctrl-F or F3, or ?s=REGEX in
 * the URL): frames whose name matches turn magenta and the share of the
 * profile they cover (nested matches once) is shown.  The details line
 * shows the title of the frame under the pointer or focused.
 */
static const char fg_script[] =
"\"use strict\";\n"
"var fgSvgNs = \"http://www.w3.org/2000/svg\";\n"
"var fgFrames = [], fgRoot = null, fgSearchTerm = \"\", fgReady = false;\n"
"function fgById(id) { return document.getElementById(id); }\n"
"function fgFit(name, w) {\n"
"	var room = Math.floor((w - 6) / fgCharW);\n"
"	var cps = Array.from(name);\n"
"	if (room < 3) return \"\";\n"
"	if (cps.length <= room) return name;\n"
"	return cps.slice(0, room - 2).join(\"\") + \"..\";\n"
"}\n"
"function fgPlace(fr, x, w, faded) {\n"
"	fr.rect.setAttribute(\"x\", x.toFixed(2));\n"
"	fr.rect.setAttribute(\"width\", w.toFixed(2));\n"
"	fr.text.setAttribute(\"x\", (x + 3).toFixed(2));\n"
"	fr.text.textContent = fgFit(fr.name, w);\n"
"	fr.g.removeAttribute(\"display\");\n"
"	if (faded) fr.g.setAttribute(\"opacity\", \"0.5\");\n"
"	else fr.g.removeAttribute(\"opacity\");\n"
"}\n"
"function fgZoom(to) {\n"
"	var x0 = to.x, x1 = to.x + to.w, eps = 0.02;\n"
"	var scale = (fgRoot.w) / to.w;\n"
"	fgFrames.forEach(function (fr) {\n"
"		if (fr.y > to.y && fr.x <= x0 + eps && fr.x + fr.w >= x1 - eps)\n"
"			fgPlace(fr, fgRoot.x, fgRoot.w, true);\n"
"		else if (fr.y <= to.y && fr.x >= x0 - eps &&\n"
"			 fr.x + fr.w <= x1 + eps)\n"
"			fgPlace(fr, fgRoot.x + (fr.x - x0) * scale,\n"
"				fr.w * scale, false);\n"
"		else\n"
"			fr.g.setAttribute(\"display\", \"none\");\n"
"	});\n"
"	fgById(\"fg-unzoom\").removeAttribute(\"display\");\n"
"}\n"
"function fgUnzoom() {\n"
"	fgFrames.forEach(function (fr) { fgPlace(fr, fr.x, fr.w, false); });\n"
"	fgById(\"fg-unzoom\").setAttribute(\"display\", \"none\");\n"
"}\n"
"function fgShow(fr) {\n"
"	fgById(\"fg-details\").textContent = fr ? fr.tip : \"\\u00a0\";\n"
"}\n"
"function fgMark(re) {\n"
"	var spans = [], covered = 0, end = -Infinity;\n"
"	fgFrames.forEach(function (fr) {\n"
"		var hit = re !== null && re.test(fr.name);\n"
"		fr.rect.setAttribute(\"fill\", hit ? \"rgb(230,0,230)\" : fr.fill);\n"
"		if (hit) spans.push([fr.x, fr.x + fr.w]);\n"
"	});\n"
"	spans.sort(function (a, b) { return a[0] - b[0]; });\n"
"	spans.forEach(function (s) {\n"
"		if (s[1] <= end) return;\n"
"		covered += s[1] - Math.max(s[0], end);\n"
"		end = s[1];\n"
"	});\n"
"	fgById(\"fg-matched\").textContent = re === null ? \"\" :\n"
"		\"Matched: \" + (100 * covered / fgRoot.w).toFixed(1) + \"%\";\n"
"	fgById(\"fg-search\").textContent =\n"
"		re === null ? \"Search\" : \"Reset Search\";\n"
"}\n"
"function fgSearch(term) {\n"
"	var re;\n"
"	if (term === null || term === \"\") {\n"
"		fgSearchTerm = \"\";\n"
"		fgMark(null);\n"
"		return;\n"
"	}\n"
"	try { re = new RegExp(term); } catch (e) {\n"
"		fgById(\"fg-details\").textContent = \"Search: \" + e.message;\n"
"		return;\n"
"	}\n"
"	fgSearchTerm = term;\n"
"	fgMark(re);\n"
"}\n"
"function fgAsk() {\n"
"	var term = window.prompt(\"Search for functions (a regular expression)\",\n"
"				 fgSearchTerm);\n"
"	if (term !== null) fgSearch(term);\n"
"}\n"
"function fgFrameOf(e) {\n"
"	var n = e.target;\n"
"	while (n && !(n.fgFrame)) n = n.parentNode;\n"
"	return n ? n.fgFrame : null;\n"
"}\n"
"function init() {\n"
"	var gs, i, params;\n"
"	if (fgReady) return;\n"
"	fgReady = true;\n"
"	gs = fgById(\"fg-frames\").getElementsByTagNameNS(fgSvgNs, \"g\");\n"
"	for (i = 0; i < gs.length; i++) {\n"
"		var g = gs[i], r = g.getElementsByTagNameNS(fgSvgNs, \"rect\")[0];\n"
"		var fr = {\n"
"			g: g, rect: r,\n"
"			text: g.getElementsByTagNameNS(fgSvgNs, \"text\")[0],\n"
"			name: g.getAttributeNS(fgNs, \"name\"),\n"
"			tip: g.getElementsByTagNameNS(fgSvgNs, \"title\")[0].textContent,\n"
"			x: parseFloat(r.getAttribute(\"x\")),\n"
"			y: parseFloat(r.getAttribute(\"y\")),\n"
"			w: parseFloat(r.getAttribute(\"width\")),\n"
"			fill: r.getAttribute(\"fill\")\n"
"		};\n"
"		g.fgFrame = fr;\n"
"		g.setAttribute(\"tabindex\", \"0\");\n"
"		fgFrames.push(fr);\n"
"		if (fgRoot === null || fr.y > fgRoot.y) fgRoot = fr;\n"
"	}\n"
"	if (fgRoot === null) return;\n"
"	var area = fgById(\"fg-frames\");\n"
"	area.addEventListener(\"click\", function (e) {\n"
"		var fr = fgFrameOf(e);\n"
"		if (fr) fgZoom(fr);\n"
"	});\n"
"	area.addEventListener(\"mouseover\", function (e) { fgShow(fgFrameOf(e)); });\n"
"	area.addEventListener(\"mouseout\", function () { fgShow(null); });\n"
"	area.addEventListener(\"focusin\", function (e) { fgShow(fgFrameOf(e)); });\n"
"	area.addEventListener(\"keydown\", function (e) {\n"
"		var fr = fgFrameOf(e);\n"
"		if (fr && (e.key === \"Enter\" || e.key === \" \")) {\n"
"			e.preventDefault();\n"
"			fgZoom(fr);\n"
"		}\n"
"	});\n"
"	fgById(\"fg-unzoom\").addEventListener(\"click\", fgUnzoom);\n"
"	fgById(\"fg-search\").addEventListener(\"click\", function () {\n"
"		if (fgSearchTerm) fgSearch(\"\"); else fgAsk();\n"
"	});\n"
"	document.addEventListener(\"keydown\", function (e) {\n"
"		if ((e.ctrlKey && e.key === \"f\") || e.key === \"F3\") {\n"
"			e.preventDefault();\n"
"			fgAsk();\n"
"		} else if (e.key === \"Escape\") {\n"
"			fgUnzoom();\n"
"			fgSearch(\"\");\n"
"		}\n"
"	});\n"
"	try {\n"
"		params = new URLSearchParams(document.location.search);\n"
"		if (params.get(\"s\")) fgSearch(params.get(\"s\"));\n"
"	} catch (e) { }\n"
"}\n";

static int put_document(FILE *f, const struct fg *g)
{
	double height = FG_TOP + (g->maxdepth + 1) * FG_FRAME_H + FG_BOTTOM;
	int err;
	size_t i;

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", f);
	fprintf(f, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
		"xmlns:fg=\"" FG_NS "\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
		"aria-labelledby=\"fg-title fg-desc\" onload=\"init(evt)\">\n",
		FG_WIDTH, height, FG_WIDTH, height);
	fputs("<title id=\"fg-title\">Flame graph: ", f);
	err = put_command(f, g->r);
	if (err)
		return err;
	fputs("</title>\n<desc id=\"fg-desc\">", f);
	put_subtitle(f, g);
	fputs(". Frames are functions, callers below callees, widths their "
	      "share of the statistic; hover for figures, click to zoom."
	      "</desc>\n", f);
	fprintf(f, "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n",
		fg_style);
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n"
		"var fgNs = \"" FG_NS "\", fgCharW = %.2f;\n%s]]></script>\n",
		FG_CHAR_W, fg_script);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
		"fill=\"rgb(250,250,245)\"/>\n", FG_WIDTH, height);
	fprintf(f, "<text id=\"fg-heading\" x=\"%.1f\" y=\"24\">",
		FG_WIDTH / 2);
	err = put_command(f, g->r);
	if (err)
		return err;
	fprintf(f, "</text>\n<text id=\"fg-subtitle\" x=\"%.1f\" y=\"44\">",
		FG_WIDTH / 2);
	put_subtitle(f, g);
	fputs("</text>\n", f);
	fprintf(f, "<text id=\"fg-unzoom\" class=\"btn\" x=\"%.1f\" y=\"24\" "
		"display=\"none\">Reset Zoom</text>\n", FG_PAD);
	fprintf(f, "<text id=\"fg-search\" class=\"btn\" x=\"%.1f\" y=\"24\" "
		"style=\"text-anchor:end\">Search</text>\n", FG_WIDTH - FG_PAD);
	fprintf(f, "<text id=\"fg-details\" x=\"%.1f\" y=\"%.1f\">\u00a0"
		"</text>\n", FG_PAD, height - 14);
	fprintf(f, "<text id=\"fg-matched\" x=\"%.1f\" y=\"%.1f\" "
		"style=\"text-anchor:end\"></text>\n", FG_WIDTH - FG_PAD,
		height - 14);
	fputs("<g id=\"fg-frames\">\n", f);
	if (g->nodes[0].drawn)
		put_frame(f, g, 0);
	else
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" "
			"style=\"text-anchor:middle\">no samples</text>\n",
			FG_WIDTH / 2, FG_TOP + FG_FRAME_H - 4.5);
	for (i = 0; i + 1 < g->nnodes; i++)
		if (g->nodes[g->order[i]].drawn)
			put_frame(f, g, g->order[i]);
	fputs("</g>\n</svg>\n", f);
	return 0;
}

/* ------------------------------------------------------------------ */

/* The statistic widths are of: the stacks' when there are stacks, else
 * the first with counts of its own and samples. */
static size_t flame_stat(const struct report *r)
{
	const struct profile *p = r->prof;
	size_t i, first = SIZE_MAX;

	if (r->stacks)
		return r->stacks->stat;
	for (i = 0; i < p->nstats && i < r->nstats; i++) {
		if (!report_stat_counted(&p->stats[i]))
			continue;
		if (first == SIZE_MAX)
			first = i;
		if (r->total_weight[i])
			return i;
	}
	return first == SIZE_MAX ? 0 : first;
}

static int clean_names(struct fg *g)
{
	const struct profile *p = g->r->prof;
	size_t i;

	g->fnames = calloc(g->s->nfuncs + 1, sizeof(*g->fnames));
	g->onames = calloc(p->nobjects + 1, sizeof(*g->onames));
	if (!g->fnames || !g->onames)
		return -PROF_ENOMEM;
	for (i = 0; i < g->s->nfuncs; i++)
		if (!(g->fnames[i] = clean_text(g->s->funcs[i].name)))
			return -PROF_ENOMEM;
	for (i = 0; i < p->nobjects; i++)
		if (!(g->onames[i] = clean_text(path_base(p->objects[i].path))))
			return -PROF_ENOMEM;
	return 0;
}

static void fg_release(struct fg *g)
{
	size_t i;

	for (i = 0; g->fnames && i < g->s->nfuncs; i++)
		free(g->fnames[i]);
	for (i = 0; g->onames && i < g->r->prof->nobjects; i++)
		free(g->onames[i]);
	free(g->fnames);
	free(g->onames);
	free(g->nodes);
	free(g->all_samples);
	free(g->all_weight);
	free(g->slots);
	free(g->order);
}

int fmt_flamegraph(FILE *f, const struct report *r)
{
	struct fg g = { .r = r, .s = r->samples };
	int err;

	if (!r->samples)
		return prof_fail(PROF_EINVAL, "the flame graph needs the "
				 "report's samples model");
	if (!r->prof->nstats)
		return prof_fail(PROF_EINVAL, "the profile has no statistics "
				 "to draw");
	g.stat = flame_stat(r);
	err = clean_names(&g);
	if (!err)
		err = merge_samples(&g);
	if (!err)
		err = sort_nodes(&g);
	if (!err)
		err = layout(&g);
	if (!err)
		err = put_document(f, &g);
	fg_release(&g);
	if (!err && ferror(f))
		err = -PROF_EIO;
	return err;
}
