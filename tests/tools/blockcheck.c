// SPDX-License-Identifier: MIT
/*
 * blockcheck: test driver for sym_code() (symbolize/blocks.c), with
 * valgrind's callgrind as the oracle.  callgrind --dump-instr=yes counts
 * every executed instruction exactly; every instruction of a basic block
 * executes as often as the others, so the blocks we find are checked by
 * comparing the counts of their instructions.
 *
 *   blockcheck [--min PCT] [--object NAME]... [--list N]
 *              CALLGRIND_OUT VALGRIND_LOG
 *   blockcheck --dump OBJECT VADDR
 *
 * CALLGRIND_OUT is from "valgrind --tool=callgrind --dump-instr=yes
 * --skip-plt=no --callgrind-out-file=CALLGRIND_OUT -v -v -v
 * --log-file=VALGRIND_LOG CMD" (bench/blocks-vs-callgrind.sh runs that).
 *
 * Addresses.  callgrind writes an instruction's position as its runtime
 * address minus the text bias of the object valgrind read symbols from
 * (the log's "Reading syms from PATH" followed by "svma S, avma A": bias
 * = A - S), that is as the ELF virtual address.  Code outside every such
 * object's text (PLT stubs, .init) is written under "???" at its runtime
 * address; it is mapped back to an object through the biases and the
 * objects' PT_LOAD headers.  Virtual addresses become file offsets, the
 * space sym_code() takes.
 *
 * For every procedure with executed instructions, every block that
 * executed at all passes when all its instructions have the same count.
 * Output (stdout), one line per object, then the total:
 *
 *   OBJECT blocks=N pass=M (P%) weighted=W% checked_ir=C of_ir=T
 *
 * weighted is the share of passing blocks weighted by the instructions
 * they executed (the sum of their counts); of_ir counts every executed
 * instruction of the object, checked_ir those in procedures sym_code()
 * could decode.  Then up to N (default 20) failing blocks, heaviest first:
 *
 *   FAIL OBJECT PROCEDURE [0xSTART,0xEND) vaddr 0xV: COUNT COUNT ...
 *
 * and executed addresses that are not the start of a decoded instruction
 * (a derailed decode) as "SPLIT OBJECT PROCEDURE 0xVADDR COUNT"; each
 * counts as one failing block weighing COUNT.
 *
 * --object NAME restricts the check to objects whose basename is NAME.
 * --min PCT: exit 1 unless the weighted share of the total is >= PCT.
 * Exit status: 0 success, 1 below --min or no block checked at all, 2
 * usage or unreadable input.
 *
 * --dump prints the procedure covering ELF virtual address VADDR of
 * OBJECT, one block a line followed by its instructions:
 *
 *   procedure NAME [0xSTART,0xEND) blocks=N insns=M
 *   block I [0xSTART,0xEND) insns=K
 *     0xVADDR FLAGS TEXT [-> 0xTARGET]
 *
 * FLAGS are letters: b branch, c conditional, C call, r ret, i indirect,
 * n no-return, d data, R rep string, t trap, u unknown instruction; "-"
 * when none.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/symbolize.h"
#include "insn_flags.h"

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "blockcheck: %s%s%s\n", msg, arg ? " " : "",
		arg ? arg : "");
	exit(2);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory", NULL);
	return p;
}

/* ---- address -> count ---- */

struct counts {
	uint64_t *key, *val;
	size_t n, size;		/* size: power of two */
};

static size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k;
}

static void counts_add(struct counts *c, uint64_t k, uint64_t v);

static void counts_grow(struct counts *c)
{
	struct counts n = { 0 };
	size_t i;

	n.size = c->size ? c->size * 2 : 1024;
	n.key = calloc(n.size, sizeof(*n.key));
	n.val = calloc(n.size, sizeof(*n.val));
	if (!n.key || !n.val)
		die("out of memory", NULL);
	for (i = 0; i < c->size; i++)
		if (c->val[i])
			counts_add(&n, c->key[i], c->val[i]);
	free(c->key);
	free(c->val);
	*c = n;
}

/* Keys with a zero value are free slots: zero counts are not stored. */
static void counts_add(struct counts *c, uint64_t k, uint64_t v)
{
	size_t i;

	if (!v)
		return;
	if ((c->n + 1) * 2 > c->size)
		counts_grow(c);
	for (i = hash64(k) & (c->size - 1); c->val[i] && c->key[i] != k;
	     i = (i + 1) & (c->size - 1))
		;
	if (!c->val[i]) {
		c->key[i] = k;
		c->n++;
	}
	c->val[i] += v;
}

static uint64_t counts_get(const struct counts *c, uint64_t k)
{
	size_t i;

	if (!c->size)
		return 0;
	for (i = hash64(k) & (c->size - 1); c->val[i];
	     i = (i + 1) & (c->size - 1))
		if (c->key[i] == k)
			return c->val[i];
	return 0;
}

/* ---- objects ---- */

struct seg {
	uint64_t off, filesz, vaddr;
	bool exec;
};

struct object {
	char *path;
	bool biased;		/* in the log: positions are vaddrs */
	uint64_t bias;
	struct seg *segs;
	size_t nsegs;
	bool segs_read;
	struct counts cnt;	/* vaddr -> count */
	uint64_t ir;		/* all executed instructions */
};

static struct object *objs;
static size_t nobjs;

static struct object *object_named(const char *path)
{
	size_t i;

	for (i = 0; i < nobjs; i++)
		if (!strcmp(objs[i].path, path))
			return &objs[i];
	objs = xrealloc(objs, (nobjs + 1) * sizeof(*objs));
	memset(&objs[nobjs], 0, sizeof(*objs));
	objs[nobjs].path = strdup(path);
	if (!objs[nobjs].path)
		die("out of memory", NULL);
	return &objs[nobjs++];
}

static void read_segs(struct object *o)
{
	int fd;
	Elf *elf;
	size_t i, nph;

	if (o->segs_read)
		return;
	o->segs_read = true;
	fd = open(o->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_getphdrnum(elf, &nph) == 0 && nph > 0) {
		o->segs = xrealloc(NULL, nph * sizeof(*o->segs));
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) ||
			    ph.p_type != PT_LOAD)
				continue;
			o->segs[o->nsegs++] = (struct seg){
				.off = ph.p_offset, .filesz = ph.p_filesz,
				.vaddr = ph.p_vaddr,
				.exec = (ph.p_flags & PF_X) != 0,
			};
		}
	}
	elf_end(elf);
	close(fd);
}

static bool vaddr_to_off(struct object *o, uint64_t va, uint64_t *off)
{
	size_t i;

	read_segs(o);
	for (i = 0; i < o->nsegs; i++)
		if (va >= o->segs[i].vaddr &&
		    va - o->segs[i].vaddr < o->segs[i].filesz) {
			*off = va - o->segs[i].vaddr + o->segs[i].off;
			return true;
		}
	return false;
}

/* A runtime address outside any biased text: which object's code? */
static struct object *runtime_owner(uint64_t addr, uint64_t *va)
{
	size_t i, j;

	for (i = 0; i < nobjs; i++) {
		struct object *o = &objs[i];

		if (!o->biased)
			continue;
		read_segs(o);
		for (j = 0; j < o->nsegs; j++) {
			uint64_t v = addr - o->bias;

			if (o->segs[j].exec && v >= o->segs[j].vaddr &&
			    v - o->segs[j].vaddr < o->segs[j].filesz) {
				*va = v;
				return o;
			}
		}
	}
	return NULL;
}

/* ---- valgrind's log: which objects have a text bias ---- */

static void read_log(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096], cur[4096] = "";

	if (!f)
		die("cannot open", path);
	while (fgets(line, sizeof(line), f)) {
		char *p;
		unsigned long long svma, avma;

		if ((p = strstr(line, "Reading syms from ")) != NULL) {
			p += strlen("Reading syms from ");
			p[strcspn(p, "\n")] = '\0';
			snprintf(cur, sizeof(cur), "%s", p);
			continue;
		}
		p = strstr(line, "svma 0x");
		if (p && cur[0] &&
		    sscanf(p, "svma %llx, avma %llx", &svma, &avma) == 2) {
			struct object *o = object_named(cur);

			o->biased = true;
			o->bias = avma - svma;
			cur[0] = '\0';
		}
	}
	fclose(f);
}

/* ---- callgrind's output ---- */

struct names {
	char **v;
	size_t n;
};

/* "(id) name" defines, "(id)" refers, "name" is itself. */
static const char *compressed(struct names *nm, char *val)
{
	char *end;
	unsigned long id;

	if (val[0] != '(')
		return val;
	id = strtoul(val + 1, &end, 10);
	if (*end != ')' || id > 10000000)
		die("bad name compression:", val);
	if (id >= nm->n) {
		nm->v = xrealloc(nm->v, (id + 1) * sizeof(*nm->v));
		memset(nm->v + nm->n, 0, (id + 1 - nm->n) * sizeof(*nm->v));
		nm->n = id + 1;
	}
	end++;
	while (*end == ' ')
		end++;
	if (*end) {
		free(nm->v[id]);
		nm->v[id] = strdup(end);
	}
	if (!nm->v[id])
		die("undefined compressed name:", val);
	return nm->v[id];
}

static uint64_t parse_num(const char *s, char **end)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return strtoull(s + 2, end, 16);
	return strtoull(s, end, 10);
}

/* One subposition: absolute, +N / -N relative to last, or '*'. */
static uint64_t subpos(char **p, uint64_t last)
{
	char *s = *p, *end;
	uint64_t v;

	if (*s == '*') {
		*p = s + 1;
		return last;
	}
	if (*s == '+' || *s == '-') {
		v = parse_num(s + 1, &end);
		v = *s == '+' ? last + v : last - v;
	} else {
		v = parse_num(s, &end);
	}
	if (end == s)
		die("bad position in callgrind output:", s);
	*p = end;
	return v;
}

static void read_callgrind(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, npos = 1;
	struct names obnames = { 0 };
	const char *ob = NULL;
	struct object *cur = NULL;
	bool call_cost = false;
	uint64_t last = 0;

	if (!f)
		die("cannot open", path);
	while (getline(&line, &cap, f) > 0) {
		char *p = line;

		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(p, "positions:", 10)) {
			npos = 0;
			for (p += 10; *p; p++)
				if (*p != ' ' && (p[-1] == ' ' || p[-1] == ':'))
					npos++;
			continue;
		}
		if (!strncmp(p, "ob=", 3)) {
			ob = compressed(&obnames, p + 3);
			cur = !strcmp(ob, "???") ? NULL : object_named(ob);
			continue;
		}
		if (!strncmp(p, "cob=", 4)) {
			compressed(&obnames, p + 4);
			continue;
		}
		if (!strncmp(p, "calls=", 6)) {
			call_cost = true;	/* the next line is inclusive */
			continue;
		}
		if (!((*p >= '0' && *p <= '9') || *p == '+' || *p == '-' ||
		      *p == '*'))
			continue;
		if (!ob)
			die("cost line before any ob= in", path);
		{
			uint64_t addr = subpos(&p, last), count = 0, va;
			struct object *o = cur;
			size_t i;

			last = addr;
			for (i = 1; i < npos; i++) {
				while (*p == ' ')
					p++;
				subpos(&p, 0);	/* line numbers: unused */
			}
			while (*p == ' ')
				p++;
			if (*p)
				count = parse_num(p, NULL);
			if (call_cost) {
				call_cost = false;
				continue;
			}
			va = addr;
			if (!o || !o->biased) {
				/* A runtime address (see the top). */
				o = runtime_owner(addr, &va);
				if (!o)
					o = object_named(ob);
			}
			o->ir += count;
			if (o->biased)
				counts_add(&o->cnt, va, count);
		}
	}
	for (size_t k = 0; k < obnames.n; k++)
		free(obnames.v[k]);
	free(obnames.v);
	free(line);
	fclose(f);
}

/* ---- the check ---- */

struct fail {
	const char *obj, *proc;
	uint64_t start, end, vaddr, weight;
	char *counts;		/* malloc'ed "5 5 4" */
};

struct totals {
	uint64_t blocks, pass, wpass, wall, checked, ir, split;
};

static struct fail *fails;
static size_t nfails;

static int u64cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static int failcmp(const void *a, const void *b)
{
	const struct fail *x = a, *y = b;

	return x->weight > y->weight ? -1 : x->weight < y->weight;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static void check_proc(struct object *o, const struct sym_code *code,
		       struct totals *t)
{
	size_t b, i;

	for (b = 0; b < code->nblocks; b++) {
		const struct sym_block *bl = &code->blocks[b];
		const struct sym_insn *in = &code->insns[bl->first];
		uint64_t first = 0, w = 0;
		bool ok = true, any = false;

		for (i = 0; i < bl->ninsns; i++) {
			uint64_t c = counts_get(&o->cnt,
						sym_insn_vaddr(code, &in[i]));

			if (i == 0)
				first = c;
			else if (c != first)
				ok = false;
			if (c)
				any = true;
			w += c;
		}
		if (!any)
			continue;
		t->blocks++;
		t->wall += w;
		if (ok) {
			t->pass++;
			t->wpass += w;
			continue;
		}
		{
			size_t len = 0, cap = 64;
			char *s = xrealloc(NULL, cap);

			s[0] = '\0';
			for (i = 0; i < bl->ninsns; i++) {
				char num[32];
				uint64_t va = sym_insn_vaddr(code, &in[i]);
				int n = snprintf(num, sizeof(num), "%s%" PRIu64,
						 i ? " " : "",
						 counts_get(&o->cnt, va));

				if (len + (size_t)n + 1 > cap) {
					cap = (len + (size_t)n + 1) * 2;
					s = xrealloc(s, cap);
				}
				memcpy(s + len, num, (size_t)n + 1);
				len += (size_t)n;
			}
			fails = xrealloc(fails, (nfails + 1) * sizeof(*fails));
			fails[nfails++] = (struct fail){
				.obj = base(o->path), .proc = code->procedure,
				.start = bl->start, .end = bl->end,
				.vaddr = sym_insn_vaddr(code, in),
				.weight = w, .counts = s,
			};
		}
	}
}

static bool insn_start(const struct sym_code *code, uint64_t off)
{
	size_t lo = 0, hi = code->ninsns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (code->insns[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < code->ninsns && code->insns[lo].offset == off &&
	       !(code->insns[lo].flags & SYM_INSN_DATA);
}

static void check_object(struct symbolizer *s, struct object *o,
			 struct totals *t)
{
	struct sym_object so = { .kind = SYM_OBJ_FILE, .path = o->path };
	const struct sym_code *code = NULL;
	uint64_t *va = xrealloc(NULL, o->cnt.n * sizeof(*va));
	size_t i, n = 0;

	for (i = 0; i < o->cnt.size; i++)
		if (o->cnt.val[i])
			va[n++] = o->cnt.key[i];
	if (n > 1)
		qsort(va, n, sizeof(*va), u64cmp);
	for (i = 0; i < n; i++) {
		uint64_t off, c = counts_get(&o->cnt, va[i]);

		if (!vaddr_to_off(o, va[i], &off))
			continue;
		if (!code || off < code->start || off >= code->end) {
			if (sym_code(s, &so, off, &code) != SYM_OK) {
				code = NULL;
				continue;
			}
			check_proc(o, code, t);
		}
		t->checked += c;
		if (!insn_start(code, off)) {
			/* A derailed decode fails, weighted by its count. */
			t->split++;
			t->blocks++;
			t->wall += c;
			printf("SPLIT %s %s 0x%" PRIx64 " %" PRIu64 "\n",
			       base(o->path), code->procedure, va[i], c);
		}
	}
	free(va);
}

static bool wanted(const char *path, char **names, size_t nnames)
{
	size_t i;

	if (!nnames)
		return true;
	for (i = 0; i < nnames; i++)
		if (!strcmp(base(path), names[i]))
			return true;
	return false;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void print_line(const char *name, const struct totals *t)
{
	printf("%s blocks=%" PRIu64 " pass=%" PRIu64 " (%.2f%%) "
	       "weighted=%.2f%% checked_ir=%" PRIu64 " of_ir=%" PRIu64 "\n",
	       name, t->blocks, t->pass, pct(t->pass, t->blocks),
	       pct(t->wpass, t->wall), t->checked, t->ir);
}

static int dump(const char *path, const char *vaddr_s)
{
	struct symbolizer *s = symbolizer_new(NULL);
	struct sym_object so = { .kind = SYM_OBJ_FILE, .path = path };
	struct object *o = object_named(path);
	const struct sym_code *code;
	uint64_t va, off;
	char *end, fl[16];
	size_t b, i;
	int ret;

	va = parse_num(vaddr_s, &end);
	if (!s || end == vaddr_s || *end)
		die("bad address", vaddr_s);
	if (!vaddr_to_off(o, va, &off))
		die("address not in a PT_LOAD of the object:", vaddr_s);
	ret = sym_code(s, &so, off, &code);
	if (ret) {
		fprintf(stderr, "blockcheck: '%s' 0x%" PRIx64 ": %s\n", path,
			va, sym_strerror(ret));
		symbolizer_free(s);
		return 1;
	}
	printf("procedure %s [0x%" PRIx64 ",0x%" PRIx64 ") blocks=%zu "
	       "insns=%zu\n", code->procedure, code->start, code->end,
	       code->nblocks, code->ninsns);
	for (b = 0; b < code->nblocks; b++) {
		const struct sym_block *bl = &code->blocks[b];

		printf("block %zu [0x%" PRIx64 ",0x%" PRIx64 ") insns=%u\n", b,
		       bl->start, bl->end, bl->ninsns);
		for (i = bl->first; i < bl->first + bl->ninsns; i++) {
			const struct sym_insn *in = &code->insns[i];

			printf("  0x%" PRIx64 " %s %s",
			       sym_insn_vaddr(code, in),
			       insn_flag_letters(in->flags, fl),
			       sym_insn_plain_text(s, code, i));
			if (in->target)
				printf(" -> 0x%" PRIx64, in->target);
			printf("\n");
		}
	}
	symbolizer_free(s);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "min", required_argument, NULL, 'm' },
		{ "object", required_argument, NULL, 'o' },
		{ "list", required_argument, NULL, 'l' },
		{ "dump", no_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	double min = -1;
	char **names = NULL, *end;
	size_t nnames = 0, i, list = 20;
	bool do_dump = false;
	struct totals all = { 0 };
	struct symbolizer *s;
	int c;

	elf_version(EV_CURRENT);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			errno = 0;
			min = strtod(optarg, &end);
			if (errno || end == optarg || *end || min < 0)
				die("bad --min", optarg);
			break;
		case 'o':
			names = xrealloc(names, (nnames + 1) * sizeof(*names));
			names[nnames++] = optarg;
			break;
		case 'l':
			list = (size_t)strtoul(optarg, &end, 10);
			if (end == optarg || *end)
				die("bad --list", optarg);
			break;
		case 'd':
			do_dump = true;
			break;
		default:
			exit(2);
		}
	}
	if (do_dump) {
		if (argc - optind != 2)
			die("usage: blockcheck --dump OBJECT VADDR", NULL);
		return dump(argv[optind], argv[optind + 1]);
	}
	if (argc - optind != 2)
		die("usage: blockcheck [--min PCT] [--object NAME]... "
		    "[--list N] CALLGRIND_OUT VALGRIND_LOG", NULL);
	read_log(argv[optind + 1]);
	read_callgrind(argv[optind]);
	s = symbolizer_new(NULL);
	if (!s)
		die("out of memory", NULL);
	for (i = 0; i < nobjs; i++) {
		struct totals t = { 0 };

		if (!objs[i].ir || !wanted(objs[i].path, names, nnames))
			continue;
		t.ir = objs[i].ir;
		if (objs[i].biased)
			check_object(s, &objs[i], &t);
		print_line(objs[i].path, &t);
		all.blocks += t.blocks;
		all.pass += t.pass;
		all.wpass += t.wpass;
		all.wall += t.wall;
		all.checked += t.checked;
		all.ir += t.ir;
		all.split += t.split;
	}
	print_line("total", &all);
	if (nfails > 1)
		qsort(fails, nfails, sizeof(*fails), failcmp);
	for (i = 0; i < nfails && i < list; i++)
		printf("FAIL %s %s [0x%" PRIx64 ",0x%" PRIx64 ") vaddr 0x%"
		       PRIx64 ": %s\n", fails[i].obj, fails[i].proc,
		       fails[i].start, fails[i].end, fails[i].vaddr,
		       fails[i].counts);
	symbolizer_free(s);
	free(names);
	if (!all.blocks) {
		fprintf(stderr, "blockcheck: no executed block was checked\n");
		return 1;
	}
	if (min >= 0 && pct(all.wpass, all.wall) < min)
		return 1;
	return 0;
}
