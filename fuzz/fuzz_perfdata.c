// SPDX-License-Identifier: MIT
/*
 * fuzz_perfdata: a perf.data file or pipe stream (perf record's output)
 * read by common/engine/perfdata.c and replayed into a collector, the way
 * "uprofile -i perf.data" imports it (common/run/import.c): every event
 * a statistic, an off-CPU statistic when an event records context
 * switches, call stacks when the events have call chains (frame pointers)
 * or user stack copies (DWARF), a profile built, the notes walked.
 *
 * The input's first byte chooses how the rest, the perf.data bytes, is
 * read; they are always read from a memfd (a regular file: the reader
 * reads it at its offsets), and:
 * - bit 0: also through a pipe (the reader's stream mode).  The bytes are
 *   written to the pipe before it is read, as many as its buffer holds
 *   (the buffer is asked for 1 MiB; a longer input is a stream cut
 *   short).  When the whole input went through and both reads took it as
 *   perf's pipe format, they must agree (same status, same samples of
 *   each event, same notes), else abort();
 * - bit 1: the samples of every second event (1, 3, ...) are not wanted
 *   (the reader counts them as left out, as it does perf's dummy event).
 *
 * Reading the samples' user stacks opens the objects the recording's
 * mappings name, by path, as a real import does: this machine's files
 * may be read (never written).
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/collect/collect.h"
#include "common/engine/perfdata.h"
#include "common/stats/pmstat.h"
#include "common/profile/profile.h"
#include "common/util/error.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OPT_PIPE 1
#define OPT_SKIP_ODD 2
#define PIPE_WANT (1 << 20)

static int memfd = -1;

/* What one read of the input gave, for comparing two of them. */
struct outcome {
	int open_err, replay_err, pipe;
	size_t nev, nnotes;
	uint64_t samples[8];	/* of the first events */
	uint64_t first, last;
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	memfd = memfd_create("fuzz_perfdata", MFD_CLOEXEC);
	if (memfd < 0)
		abort();
	return 0;
}

/* Open, replay, build and free what fd holds. */
static void read_one(int fd, int opts, struct outcome *o)
{
	struct perfdata *pd = NULL;
	struct collector *col = NULL;
	struct profile *tpl = NULL, **ps = NULL;
	const struct perf_data_meta *m;
	struct perf_data_stats st = { 0 };
	uint8_t bid[20];
	const char *line;
	size_t i;
	int n = 0;

	memset(o, 0, sizeof(*o));
	o->open_err = perf_data_open(fd, "fuzz.data", &pd);
	if (o->open_err) {
		if (o->open_err > 0 || pd)
			abort();
		return;
	}
	m = perf_data_meta(pd);
	o->pipe = m->pipe;
	o->nev = perf_data_nevents(pd);
	if (!o->nev || perf_data_event(pd, o->nev))
		abort();
	for (i = 0; i < (size_t)m->ncmdline; i++)
		if (!m->cmdline[i])
			abort();
	if (perf_data_build_id(pd, "[kernel.kallsyms]", bid, sizeof(bid)) >
	    sizeof(bid))
		abort();
	tpl = profile_new();
	if (!tpl || perf_data_statistics(pd, tpl, &st))
		goto out;
	/* Option: every second event not wanted. */
	for (i = 0; (opts & OPT_SKIP_ODD) && i < o->nev; i += 2)
		if (i + 1 < o->nev) {
			st.stat_of[i + 1] = UINT32_MAX;
			for (size_t k = 0; k < PM_NSTATS; k++)
				st.pm_of[(i + 1) * PM_NSTATS + k] = UINT32_MAX;
		}
	col = collector_new(COLLECT_SPLIT_NONE, st.nstats);
	if (!col)
		goto out;
	if (tpl->call_graph &&
	    collector_set_call_graph(col, tpl->call_graph))
		goto out;
	if (st.switch_stat != UINT32_MAX)
		collector_set_offcpu(col, st.switch_stat, COLLECT_OFFCPU);
	collector_set_time_base(col, 0);
	o->replay_err = perf_data_replay(pd, col, st.stat_of, st.pm_of,
					 st.switch_stat, &o->first, &o->last);
	if (o->replay_err > 0 || (o->first > o->last))
		abort();
	for (i = 0; (line = perf_data_note(pd, i)); i++)
		if (!*line)
			abort();
	o->nnotes = i;
	for (i = 0; i < o->nev && i < sizeof(o->samples) / 8; i++)
		o->samples[i] = perf_data_event(pd, i)->samples;
	n = collector_build(col, tpl, &ps);
	if (n > 1)
		abort();
	if (n == 1 && perf_data_drop_unmet(ps[0]) == -PROF_ENOMEM)
		goto out;
out:
	for (i = 0; i < (size_t)(n > 0 ? n : 0); i++)
		profile_free(ps[i]);
	free(ps);
	collector_free(col);
	profile_free(tpl);
	perf_data_stats_free(&st);
	perf_data_free(pd);
}

/* The bytes into a new pipe, as many as its buffer takes; its read end,
 * and *all: whether they all went in. */
static int pipe_of(const uint8_t *data, size_t size, int *all)
{
	int p[2];
	size_t done = 0;

	if (pipe2(p, O_CLOEXEC))
		abort();
	fcntl(p[1], F_SETPIPE_SZ, PIPE_WANT);	/* may be refused */
	if (fcntl(p[1], F_SETFL, O_NONBLOCK))
		abort();
	while (done < size) {
		ssize_t w = write(p[1], data + done, size - done);

		if (w <= 0)
			break;
		done += (size_t)w;
	}
	close(p[1]);
	*all = done == size;
	return p[0];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome file, stream;
	size_t done = 0;
	int opts, fd, all;

	if (!size)
		return 0;
	opts = data[0];
	data++;
	size--;
	if (ftruncate(memfd, 0))
		abort();
	while (done < size) {
		ssize_t w = pwrite(memfd, data + done, size - done,
				   (off_t)done);

		if (w <= 0)
			abort();
		done += (size_t)w;
	}
	read_one(memfd, opts, &file);
	if (!(opts & OPT_PIPE))
		return 0;
	fd = pipe_of(data, size, &all);
	read_one(fd, opts, &stream);
	close(fd);
	/* perf's pipe format read from a file and from a pipe: the same. */
	if (all && file.pipe && !file.open_err &&
	    (stream.open_err || stream.replay_err != file.replay_err ||
	     stream.nev != file.nev || stream.nnotes != file.nnotes ||
	     memcmp(stream.samples, file.samples, sizeof(file.samples)) ||
	     stream.first != file.first || stream.last != file.last))
		abort();
	return 0;
}
