/* SPDX-License-Identifier: MIT */
/*
 * kprofile: profile the kernel, system-wide, for the life of a command or
 * until Ctrl-C/SIGTERM, into kmon.out.
 */
#include "frontend.h"
#include "stats.h"

static const char doc[] =
"Profile the kernel on every online CPU: for the life of PROGRAM when one "
"is given, otherwise until Ctrl-C or SIGTERM (if SIGINT was ignored when "
"kprofile started, only SIGTERM ends collection).  Writes kmon.out."
"\v"
"Examples:\n"
"  kprofile -display dd if=/dev/zero of=/dev/null bs=1M count=20000\n"
"  kprofile -d 10                system-wide for ten seconds\n"
"  kprofile -i kmon.out -quit 20 report an existing profile\n"
"\n"
"Exit status:\n"
"  N      the program's exit status (0 without a program)\n"
"  128+N  the program was killed by signal N\n"
"  125    kprofile itself failed (bad usage, statistic unavailable,\n"
"         not permitted, unreadable profile file)\n"
"  126    the program was found but could not be run\n"
"  127    the program was not found\n";

static const struct argp_option options[] = {
	{ NULL, 'k', "IMAGE", 0,
	  "kernel image (vmlinux with DWARF) for symbols and source lines", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state,
		     struct fe_config *cfg)
{
	switch (key) {
	case 'k':
		cfg->vmlinux = arg;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

int main(int argc, char **argv)
{
	static const struct fe_tool tool = {
		.name = "kprofile",
		.default_file = "kmon.out",
		.scope = FE_SCOPE_SYSTEM,
		.default_modes = STAT_MODE_KERNEL,
		.program_required = 0,
		.args_doc = "[STATISTIC...] [PROGRAM [ARG...]]\n-i FILE",
		.doc = doc,
		.options = options,
		.parse = parse,
	};

	return fe_main(&tool, argc, argv);
}
