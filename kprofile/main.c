/* SPDX-License-Identifier: MIT */
/*
 * kprofile: profile the kernel, system-wide, for the life of a command or
 * until Ctrl-C/SIGTERM, into kmon.out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli/frontend.h"
#include "common/util/array.h"
#include "common/stats/stats.h"

/*
 * -ra's default list: routines that do work on behalf of their caller
 * (copying, clearing, comparing memory; taking and dropping locks), so a
 * sample in them says more about the caller.  fnmatch(3) patterns.
 */
static const char *const default_ra[] = {
	"memcpy*", "__memcpy*", "memmove*", "__memmove*", "memset*",
	"__memset*", "memcmp", "bcmp", "strlen", "strcmp",
	"copy_user*", "__copy_user*", "_copy_to_user", "_copy_from_user",
	"copy_to_user*", "copy_from_user*", "rep_movs_alternative",
	"rep_stos_alternative", "copy_page*", "clear_page*", "clear_user*",
	"__clear_user", "copy_mc_*", "strncpy_from_user", "strnlen_user",
	"_copy_to_iter", "_copy_from_iter", "copy_page_to_iter*",
	"copy_page_from_iter*", "copy_to_user_iter*", "copy_from_user_iter*",
	"_raw_spin_lock*", "_raw_spin_unlock*", "_raw_spin_trylock*",
	"_raw_read_lock*", "_raw_read_unlock*", "_raw_write_lock*",
	"_raw_write_unlock*", "native_queued_spin_lock_slowpath",
	"queued_spin_lock_slowpath", "queued_read_lock_slowpath",
	"queued_write_lock_slowpath", "__raw_callee_save___pv_queued_spin_*",
	"__pv_queued_spin_*",
};

static const char doc[] =
"Profile the kernel on every online CPU: for the life of PROGRAM when one "
"is given, otherwise until Ctrl-C or SIGTERM (if SIGINT was ignored when "
"kprofile started, only SIGTERM ends collection).  Writes kmon.out."
"\v"
"Examples:\n"
"  kprofile -display dd if=/dev/zero of=/dev/null bs=1M count=20000\n"
"  kprofile -d 10                system-wide for ten seconds\n"
"  kprofile -i kmon.out -quit 20 report an existing profile\n"
"  kprofile --merge all.kmon kmon.out.0 kmon.out.1\n"
"                                add profiles up (also -i A -i B)\n"
"  kprofile --diff before.kmon after.kmon\n"
"                                what changed, beyond sampling noise\n"
"  kprofile -i kmon.out -tree    its call tree (a profile taken with -g)\n"
"  kprofile --count -e context-switches,cpu-migrations -d 5\n"
"                                system-wide totals for five seconds\n"
"  kprofile -ra -display dd if=/dev/zero of=/dev/null bs=64k count=100000\n"
"                                copy routines charged to their callers\n"
"  kprofile -t -control /tmp/kp -d 60 &\n"
"  echo enable >/tmp/kp; run-the-phase; echo disable >/tmp/kp\n"
"                                profile exactly one phase of a script\n"
"\n"
"Exit status:\n"
"  N      the program's exit status (0 without a program)\n"
"  1      --diff --fail-above PCT: a procedure's share grew by more\n"
"         than PCT points, significantly (named on stderr)\n"
"  128+N  the program was killed by signal N\n"
"  125    kprofile itself failed (bad usage, statistic unavailable,\n"
"         not permitted, -p PID not running, unreadable profile file,\n"
"         an output file that cannot be written: found before the\n"
"         program starts; a call-stack view or -ra of a profile\n"
"         without stacks)\n"
"  126    the program was found but could not be run\n"
"  127    the program was not found\n";

enum { OPT_RA = FE_OPT_TOOL, OPT_RA_ROUTINES };

/* Options only kprofile has, each under its group's heading: -p (parsed
 * by the shared parser), -k and -ra (parsed below). */
static const struct argp_option options[] = {
	{ "pid", FE_OPT_PID, "PID", 0,
	  "profile until process PID exits (instead of PROGRAM)",
	  FE_GROUP_TARGET },
	{ NULL, 'k', "IMAGE", 0,
	  "kernel image (vmlinux with DWARF) for symbols and source lines",
	  FE_GROUP_SYMBOLS },
	{ "ra", OPT_RA, NULL, 0,
	  "charge samples in kernel utility routines (memcpy, copy_user, "
	  "clear_page, spinlocks, ...; see -ra-routines) to their callers, "
	  "using kernel call chains; with -i, from the profile's call "
	  "stacks (taken with -g)", FE_GROUP_REPORT },
	{ "ra-routines", OPT_RA_ROUTINES, "GLOB[,GLOB...]", 0,
	  "the utility routines for -ra instead of the default list "
	  "(implies -ra)", FE_GROUP_REPORT },
	{ 0 }
};

/* A new array of the n patterns of list, for cfg->ra (fe_main frees it). */
static const char **copy_list(const char *const *list, size_t n)
{
	const char **v = calloc(n ? n : 1, sizeof(*v));

	if (v && n)
		memcpy(v, list, n * sizeof(*v));
	return v;
}

static error_t parse(int key, char *arg, struct argp_state *state,
		     struct run_config *cfg)
{
	switch (key) {
	case 'k':
		cfg->vmlinux = arg;
		return 0;
	case OPT_RA:
		if (!cfg->ra) {
			cfg->nra = sizeof(default_ra) / sizeof(default_ra[0]);
			cfg->ra = copy_list(default_ra, cfg->nra);
			if (!cfg->ra)
				argp_failure(state, RUN_EXIT_FAIL, ENOMEM,
					     "-ra");
		}
		return 0;
	case OPT_RA_ROUTINES: {
		const char **v = NULL;
		size_t n = 0;

		if (fe_split_list(arg, &v, &n)) {
			argp_failure(state, RUN_EXIT_FAIL, ENOMEM,
				     "-ra-routines");
			return ENOMEM;
		}
		if (!n)
			argp_error(state, "-ra-routines: empty list");
		free((void *)cfg->ra);
		cfg->ra = v;
		cfg->nra = n;
		return 0;
	}
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

int main(int argc, char **argv)
{
	static const struct fe_tool tool = {
		.run = {
			.name = "kprofile",
			.default_file = "kmon.out",
			.scope = RUN_SCOPE_SYSTEM,
			.default_modes = STAT_MODE_KERNEL,
		},
		.program_required = 0,
		.args_doc = "[STATISTIC...] [PROGRAM [ARG...]]\n-p PID\n-i FILE...\n"
			    "--merge OUT IN...\n--diff BASE NEW",
		.doc = doc,
		.options = options,
		.parse = parse,
	};

	return fe_main(&tool, argc, argv);
}
