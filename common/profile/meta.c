/* SPDX-License-Identifier: MIT */
/*
 * The metadata section's keys: one table, which the encoder walks to
 * write them and the decoder searches to read them, so a key is added in
 * one place (and in docs/profile-format.md).
 */
#include <stddef.h>
#include <string.h>

#include "profile_int.h"

static int has_tool_version(const struct profile *p)
{
	return p->tool_version != NULL;
}

static int has_recorded_by(const struct profile *p)
{
	return p->recorded_by != NULL;
}

static int has_ra(const struct profile *p)
{
	return p->ra_routines != NULL;
}

static int has_start_after(const struct profile *p)
{
	return p->start_after != NULL;
}

static int has_call_graph(const struct profile *p)
{
	return profile_call_graph_name(p->call_graph) != NULL;
}

#define F(field) offsetof(struct profile, field)
#define ANY INT64_MIN, INT64_MAX

/* Twelve keys are always written: readers of version 1 counted on it. */
const struct profile_meta_key profile_meta_keys[] = {
	{ "tool", META_STR, F(tool), 0, 0, 0, 1, NULL },
	{ "tool_version", META_STR, F(tool_version), 0, 0, 0, 1,
	  has_tool_version },
	{ "argv", META_ARGV, F(argv), 0, 0, 0, 1, NULL },
	{ "hostname", META_STR, F(hostname), 0, 0, 0, 1, NULL },
	{ "sysname", META_STR, F(sysname), 0, 0, 0, 1, NULL },
	{ "release", META_STR, F(release), 0, 0, 0, 1, NULL },
	{ "machine", META_STR, F(machine), 0, 0, 0, 1, NULL },
	{ "cpu_model", META_STR, F(cpu_model), 0, 0, 0, 1, NULL },
	{ "start_time_ns", META_U64, F(start_time_ns), ANY, 0, 1, NULL },
	{ "duration_ns", META_U64, F(duration_ns), ANY, 0, 1, NULL },
	{ "exit_status", META_I32, F(exit_status), ANY, 0, 1, NULL },
	{ "pid", META_I32, F(pid), ANY, 0, 1, NULL },
	{ "cpu", META_I32, F(cpu), ANY, 0, 1, NULL },
	{ "ra_routines", META_STR, F(ra_routines), 0, 0, 0, 1, has_ra },
	{ "ra_moved", META_U64, F(ra_moved), 0, INT64_MAX, 0, 1, has_ra },
	{ "start_after", META_STR, F(start_after), 0, 0, 0, 1,
	  has_start_after },
	{ "start_after_ns", META_I64, F(start_after_ns), -1, INT64_MAX, 0, 1,
	  has_start_after },
	{ "start_after_latency_ns", META_U64, F(start_after_latency_ns),
	  -1, INT64_MAX, META_NEG_IS_0, 1, has_start_after },
	/* ncpus travels in the MODES section header. */
	{ "call_graph", META_CALL_GRAPH, F(call_graph), 0, 0, 0, 2,
	  has_call_graph },
	{ "stack_dump", META_U32, F(stack_dump), 0, UINT32_MAX, 0, 2,
	  has_call_graph },
	/* Whether section 15 is the run's time stream, or why there is
	 * none (enum prof_timeline). */
	{ "timeline", META_U32, F(timeline), 0, PROF_NTIMELINES - 1, 0, 3,
	  NULL },
	/* Read from another tool's recording (a perf.data). */
	{ "recorded_by", META_STR, F(recorded_by), 0, 0, 0, 3,
	  has_recorded_by },
};

const size_t profile_nmeta_keys =
	sizeof(profile_meta_keys) / sizeof(*profile_meta_keys);

const struct profile_meta_key *profile_meta_key(const char *name,
						uint32_t version)
{
	size_t i;

	for (i = 0; i < profile_nmeta_keys; i++)
		if (!strcmp(name, profile_meta_keys[i].name))
			return version >= profile_meta_keys[i].since ?
			       &profile_meta_keys[i] : NULL;
	return NULL;
}

/* Names of enum prof_call_graph in the metadata; NONE is not written. */
static const char *const call_graph_names[] = {
	[PROF_CG_FP] = "fp", [PROF_CG_DWARF] = "dwarf", [PROF_CG_AUTO] = "auto",
};

#define NCALL_GRAPH (sizeof(call_graph_names) / sizeof(*call_graph_names))

const char *profile_call_graph_name(uint32_t cg)
{
	return cg < NCALL_GRAPH ? call_graph_names[cg] : NULL;
}

int profile_call_graph_parse(const char *s)
{
	size_t i;

	for (i = 0; i < NCALL_GRAPH; i++)
		if (call_graph_names[i] && !strcmp(s, call_graph_names[i]))
			return (int)i;
	return -1;
}
