// SPDX-License-Identifier: MIT
/*
 * Fetching what is not found locally from debuginfod servers, by
 * build-id, through elfutils' libdebuginfod: DEBUGINFOD_URLS names the
 * servers and the library keeps its cache (DEBUGINFOD_CACHE_PATH).
 *
 * A report must not hang on a dead server: the library waits 90 s by
 * default, so unless the user set DEBUGINFOD_TIMEOUT a fetch is
 * abandoned once nothing has arrived for a few seconds, and after one
 * fetch fails for any reason but "not found" no more are tried.
 */
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symbolize_int.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Called by the library about once a second while it waits: nonzero
 * abandons the fetch.  Until a server answers with the size of what it
 * sends (b), a counts the calls; then a is the bytes received so far.
 */
static int progress(debuginfod_client *c, long a, long b)
{
	struct fetcher *f = debuginfod_get_user_data(c);
	double t = now();

	if (b > 0 && a != f->last_bytes) {
		f->last_bytes = a;
		f->last_time = t;
	}
	f->cancelled = t - f->last_time > f->wait;
	return f->cancelled;
}

static bool set(const char *name)
{
	const char *v = getenv(name);

	return v && *v;
}

int debuginfo_fetch(struct fetcher *f, bool executable, const uint8_t *id,
		    size_t len, char **path, const char **reason)
{
	debuginfod_client *c;
	int fd;

	*path = NULL;
	*reason = NULL;
	if (!f->enabled || f->down || !len || !set("DEBUGINFOD_URLS"))
		return 1;
	if (!f->client) {
		f->client = c = debuginfod_begin();
		if (!c) {
			f->down = true;
			*reason = "cannot start a debuginfod client";
			return SYM_EOPEN;
		}
		debuginfod_set_user_data(c, f);
		/* DEBUGINFOD_TIMEOUT is the library's to honour. */
		if (!set("DEBUGINFOD_TIMEOUT"))
			debuginfod_set_progressfn(c, progress);
	}
	c = f->client;
	f->last_bytes = -1;
	f->last_time = now();
	f->cancelled = false;
	fd = executable ?
	     debuginfod_find_executable(c, id, (int)len, path) :
	     debuginfod_find_debuginfo(c, id, (int)len, path);
	if (fd >= 0) {
		close(fd);
		if (*path)
			return SYM_OK;
		return SYM_ENOMEM;
	}
	*path = NULL;
	/* An abandoned fetch says "not found" (and the library remembers
	 * it so in its cache, for its cache_miss_s). */
	if (fd == -ENOENT && !f->cancelled)
		return 1;
	f->down = true;
	if (f->cancelled || fd == -ECANCELED)
		snprintf(f->reason, sizeof(f->reason), "nothing received "
			 "for %u s; DEBUGINFOD_TIMEOUT sets the wait", f->wait);
	else
		snprintf(f->reason, sizeof(f->reason), "%s", strerror(-fd));
	*reason = f->reason;
	return SYM_EOPEN;
}

void debuginfo_fetch_release(struct fetcher *f)
{
	if (f->client)
		debuginfod_end(f->client);
	f->client = NULL;
}
