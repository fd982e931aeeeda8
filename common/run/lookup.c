// SPDX-License-Identifier: MIT
/*
 * Where a report finds objects and their debug info: the command line's
 * --symfs, --debug-dir and --no-debuginfod made into the symbolizer's
 * configuration, and what the symbolizer fetches told on stderr; the
 * address ranges of kernel routines (-ra's, the scheduler's for offcpu);
 * the kernel symbols a profile carries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/profile/profile.h"
#include "common/util/array.h"

#include "run_int.h"
#include "common/collect/collect.h"
#include "common/util/error.h"
#include "symbolize/symbolize.h"

static void tell(void *arg, const struct sym_event *ev)
{
	const struct run_config *c = arg;

	switch (ev->kind) {
	case SYM_EVENT_FETCHED_DEBUG:
		run_notice(c, "debug info for '%s' from debuginfod",
			   ev->object);
		break;
	case SYM_EVENT_FETCHED_OBJECT:
		run_notice(c, "'%s' from debuginfod (by its build-id)",
			   ev->object);
		break;
	case SYM_EVENT_DEBUGINFOD_DOWN:
		run_notice(c, "debuginfod: cannot fetch for '%s' (%s): no "
			   "more fetches for this report", ev->object,
			   ev->reason);
		break;
	}
}

/* perf's build-id cache, ~/.debug (perf record fills it with the
 * objects its samples hit): NULL without a home, or when the directory
 * is not the running user's own, writable by no one else (sudo -E keeps
 * the user's HOME: root never looks in a cache the user could fill). */
const char *run_buildid_cache(void)
{
	static char dir[4096];
	const char *home = getenv("HOME");
	struct stat st;

	if (!home || home[0] != '/' ||
	    (size_t)snprintf(dir, sizeof(dir), "%s/.debug", home) >=
	    sizeof(dir))
		return NULL;
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return NULL;
	return dir;
}

void run_sym_config(const struct run_config *c, struct sym_config *sc)
{
	*sc = (struct sym_config){
		.vmlinux = c->vmlinux,
		.symfs = c->symfs,
		.buildid_cache = run_buildid_cache(),
		.debug_dirs = c->debug_dirs,
		.ndebug_dirs = c->ndebug_dirs,
		.debuginfod = !c->no_debuginfod,
		.event = tell,
		.event_arg = (void *)c,
	};
}

int run_kernel_ranges(struct run *r, const char *const *patterns, size_t n,
		      struct collect_range **out)
{
	struct sym_ksym *v = NULL;
	struct collect_range *rg;
	int k, i;

	*out = NULL;
	k = sym_kernel_matching(r->sym, patterns, n, &v);
	if (k <= 0) {
		free(v);
		return k;
	}
	rg = calloc((size_t)k, sizeof(*rg));
	if (!rg) {
		free(v);
		return -PROF_ENOMEM;
	}
	for (i = 0; i < k; i++) {
		rg[i].start = v[i].start;
		rg[i].end = v[i].end;
	}
	free(v);
	*out = rg;
	return k;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct sym_ksym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Keep the symbol that covers the kernel address addr in *v (not twice
 * in a row): 0 (kept, or no symbol covers addr), 1 when the kernel's
 * symbols cannot be read (hidden: rows show addresses), -PROF_ENOMEM. */
static int keep_ksym(struct symbolizer *sym, uint64_t addr,
		     struct sym_ksym **v, size_t *n, size_t *alloc)
{
	struct sym_ksym k;
	int r = sym_kernel_symbol(sym, addr, &k);

	if (r == SYM_ENOMEM)
		return -PROF_ENOMEM;
	if (r)
		return r < 0;
	if (*n && (*v)[*n - 1].start == k.start)
		return 0;
	if (ALLOC_GROW(*v, *n + 1, *alloc))
		return -PROF_ENOMEM;
	(*v)[(*n)++] = k;
	return 0;
}

/*
 * Put the kernel symbols that cover the profile's kernel addresses into
 * the profile: with KASLR the addresses are only meaningful with this
 * boot's symbols.  Those addresses are the counts' and the call stacks'
 * frames (a caller such as do_syscall_64 or the entry code has no
 * samples of its own, yet -callers and -tree name it).  _text is kept
 * too, for -k vmlinux's relocation.
 */
int run_embed_kernel_symbols(struct profile *p, struct symbolizer *sym)
{
	struct sym_ksym *v = NULL, k;
	size_t n = 0, alloc = 0, i;
	int err = 0, r = 0;

	for (i = 0; i < p->ncounts && !r; i++)
		if (p->objects[p->counts[i].obj].kind == PROF_OBJ_KERNEL)
			r = keep_ksym(sym, p->counts[i].offset, &v, &n, &alloc);
	for (i = 0; i < p->nframes && !r; i++)
		if (p->objects[p->frames[i].obj].kind == PROF_OBJ_KERNEL)
			r = keep_ksym(sym, p->frames[i].offset, &v, &n, &alloc);
	if (r < 0) {
		err = r;
		goto out;
	}
	if (n && sym_kernel_symbol_by_name(sym, "_text", &k) == 0) {
		if (ALLOC_GROW(v, n + 1, alloc)) {
			err = -PROF_ENOMEM;
			goto out;
		}
		v[n++] = k;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_ksym);
	for (i = 0; i < n; i++) {
		struct prof_ksym pk = {
			.start = v[i].start, .end = v[i].end,
			.name = (char *)v[i].name, .module = (char *)v[i].module,
		};

		if (i && v[i].start == v[i - 1].start)
			continue;
		if (profile_add_ksym(p, &pk) < 0) {
			err = -PROF_ENOMEM;
			break;
		}
	}
out:
	free(v);
	return err;
}
