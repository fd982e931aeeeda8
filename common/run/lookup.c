// SPDX-License-Identifier: MIT
/*
 * Where a report finds objects and their debug info: the command line's
 * --symfs, --debug-dir and --no-debuginfod made into the symbolizer's
 * configuration, and what the symbolizer fetches told on stderr; the
 * address ranges of kernel routines (-ra's, the scheduler's for offcpu).
 */
#include <stdlib.h>

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

void run_sym_config(const struct run_config *c, struct sym_config *sc)
{
	*sc = (struct sym_config){
		.vmlinux = c->vmlinux,
		.symfs = c->symfs,
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
