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
 *
 * Reports run as root, so neither a server nor the cache is believed:
 * - a file is used only when its GNU build-id is the one asked for;
 *   another (or none) is removed from the cache and no more fetches are
 *   tried;
 * - a fetch is cut once more than DEBUGINFOD_MAXSIZE bytes arrive
 *   (default 2 GiB; 0: no cap, as for the library), counted as they
 *   arrive: libdebuginfod only weighs a Content-Length, and a chunked
 *   body has none.  The library then leaves no part of it in its cache;
 * - the cache (where the library puts it: DEBUGINFOD_CACHE_PATH, an
 *   existing $HOME/.debuginfod_client_cache, $XDG_CACHE_HOME/
 *   debuginfod_client, $HOME/.cache/debuginfod_client) is used only
 *   when it is a directory, not a symlink, of the effective user,
 *   writable by no one else, and every directory of its real path is
 *   root's or ours and writable by no one else unless sticky: else
 *   others could plant or swap files in it (sudo -E keeps a user's
 *   HOME).  Then nothing is fetched at all, rather than in a private
 *   cache: setting the library's environment behind the user's back
 *   would hide the problem.  A missing cache (and its missing parent,
 *   as the library does) is made here, 0700, so no one makes it first.
 */
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/util/buildid.h"
#include "symbolize_int.h"

#define DEFAULT_MAXSIZE (2LL << 30)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Called by the library about once a second while it waits, and as
 * data arrive: nonzero abandons the fetch.  Until the library commits
 * to a server (and names its URL) a counts the calls and b is 0; then
 * a is the bytes received so far and b the Content-Length (-1: none).
 */
static int progress(debuginfod_client *c, long a, long b)
{
	struct fetcher *f = debuginfod_get_user_data(c);
	bool got = debuginfod_get_url(c) != NULL;
	double t = now();

	if (got && f->max_bytes &&
	    ((long long)a > f->max_bytes || (long long)b > f->max_bytes))
		f->cut = true;
	if (got && a != f->last_bytes) {
		f->last_bytes = a;
		f->last_time = t;
	}
	f->cancelled = f->watch_stall && t - f->last_time > f->wait;
	return f->cut || f->cancelled;
}

static bool set(const char *name)
{
	const char *v = getenv(name);

	return v && *v;
}

/* DEBUGINFOD_MAXSIZE as the library reads it (0: no cap), else ours. */
static long long max_size(void)
{
	const char *v = getenv("DEBUGINFOD_MAXSIZE");
	char *end;
	long long n;

	if (!v || !*v)
		return DEFAULT_MAXSIZE;
	errno = 0;
	n = strtoll(v, &end, 10);
	return errno || *end || n < 0 ? DEFAULT_MAXSIZE : n;
}

/* f->reason: "cache CACHE[: PATH] WHY"; returns false. */
__attribute__((format(printf, 3, 4)))
static bool refuse(struct fetcher *f, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(f->reason, sizeof(f->reason), "cache %s%s%s ", f->cache,
		     strcmp(path, f->cache) ? ": " : "",
		     strcmp(path, f->cache) ? path : "");
	if (n < 0 || (size_t)n >= sizeof(f->reason))
		return false;
	va_start(ap, fmt);
	vsnprintf(f->reason + n, sizeof(f->reason) - (size_t)n, fmt, ap);
	va_end(ap);
	return false;
}

/*
 * Whether no one else can change the directory path: not a symlink,
 * ours when own, else root's or ours, writable by no one else unless
 * (not own) sticky: there others cannot rename what is not theirs.
 */
static bool dir_safe(struct fetcher *f, const char *path, bool own)
{
	uid_t me = geteuid();
	struct stat st;

	if (lstat(path, &st))
		return refuse(f, path, "cannot be checked: %s",
			      strerror(errno));
	if (S_ISLNK(st.st_mode))
		return refuse(f, path, "is a symlink");
	if (!S_ISDIR(st.st_mode))
		return refuse(f, path, "is not a directory");
	if (st.st_uid != me && (own || st.st_uid))
		return refuse(f, path, "is owned by uid %u, not %u",
			      (unsigned)st.st_uid, (unsigned)me);
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
	    (own || !(st.st_mode & S_ISVTX)))
		return refuse(f, path, "is writable by %s",
			      st.st_mode & S_IWOTH ? "anyone" : "its group");
	return true;
}

/* Whether each directory of dir's real path, from /, is dir_safe(). */
static bool tree_safe(struct fetcher *f, const char *dir)
{
	char *real = realpath(dir, NULL);
	bool ok;
	size_t i;

	if (!real)
		return refuse(f, dir, "cannot be checked: %s", strerror(errno));
	ok = dir_safe(f, "/", false);
	for (i = 1; ok && i <= strlen(real); i++) {
		char c = real[i];

		if (c && c != '/')
			continue;
		real[i] = '\0';
		ok = dir_safe(f, real, false);
		real[i] = c;
	}
	free(real);
	return ok;
}

/* The directory holding path, malloc'd; NULL when out of memory. */
static char *dir_name(const char *path)
{
	char *d = strdup(path), *slash;

	if (!d)
		return NULL;
	slash = strrchr(d, '/');
	if (!slash)
		strcpy(d, ".");
	else
		slash[slash == d] = '\0';
	return d;
}

/*
 * Make the missing directory path 0700 once what holds it is safe,
 * and its missing parents first, levels in all at most.
 */
static bool make_dir(struct fetcher *f, const char *path, int levels)
{
	char *parent = dir_name(path);
	struct stat st;
	bool ok;

	if (!parent)
		return refuse(f, path, "cannot be checked: out of memory");
	if (levels > 1 && lstat(parent, &st) && errno == ENOENT)
		ok = make_dir(f, parent, levels - 1);
	else
		ok = tree_safe(f, parent);
	free(parent);
	if (ok && mkdir(path, 0700) && errno != EEXIST)
		return refuse(f, path, "cannot be made: %s", strerror(errno));
	return ok;
}

/*
 * The cache directory as libdebuginfod 0.188 picks it (HOME unset:
 * "/"), without trailing slashes; malloc'd, NULL when out of memory.
 */
static char *cache_path(void)
{
	const char *v = getenv("DEBUGINFOD_CACHE_PATH");
	const char *home = getenv("HOME") ? getenv("HOME") : "/";
	char *p = NULL;
	struct stat st;
	size_t n;

	if (v && *v) {
		p = strdup(v);
	} else if (asprintf(&p, "%s/.debuginfod_client_cache", home) < 0) {
		p = NULL;
	} else if (stat(p, &st)) {
		free(p);
		v = getenv("XDG_CACHE_HOME");
		if ((v && *v ? asprintf(&p, "%s/debuginfod_client", v) :
		     asprintf(&p, "%s/.cache/debuginfod_client", home)) < 0)
			p = NULL;
	}
	for (n = p ? strlen(p) : 0; n > 1 && p[n - 1] == '/'; n--)
		p[n - 1] = '\0';
	return p;
}

/* Whether the cache can be trusted (see the top); else f->reason. */
static bool cache_safe(struct fetcher *f)
{
	struct stat st;

	f->cache = cache_path();
	if (!f->cache) {
		snprintf(f->reason, sizeof(f->reason), "out of memory");
		return false;
	}
	if (lstat(f->cache, &st) && errno == ENOENT &&
	    !make_dir(f, f->cache, 2))
		return false;
	return dir_safe(f, f->cache, true) && tree_safe(f, f->cache);
}

/* The client, once the cache is found safe; else f->reason says why. */
static int start(struct fetcher *f)
{
	debuginfod_client *c;

	if (!cache_safe(f))
		return SYM_EOPEN;
	f->client = c = debuginfod_begin();
	if (!c) {
		snprintf(f->reason, sizeof(f->reason),
			 "cannot start a debuginfod client");
		return SYM_EOPEN;
	}
	debuginfod_set_user_data(c, f);
	f->max_bytes = max_size();
	/* DEBUGINFOD_TIMEOUT is the library's to honour; the cap is ours
	 * in any case. */
	f->watch_stall = !set("DEBUGINFOD_TIMEOUT");
	debuginfod_set_progressfn(c, progress);
	return SYM_OK;
}

/*
 * Remove the cache entry path the library opened as fd, if path, in
 * the cache, still names that regular file (not something put there
 * since): what was refused must not be believed next time either.
 */
static void drop_entry(const struct fetcher *f, int fd, const char *path)
{
	size_t n = strlen(f->cache);
	struct stat a, b;

	if (strncmp(path, f->cache, n) || path[n] != '/' ||
	    strstr(path + n, "/../"))
		return;
	if (fstat(fd, &a) || lstat(path, &b) || !S_ISREG(b.st_mode) ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return;
	unlink(path);
}

/* f->reason: the file passed the cap; returns true. */
static bool over_cap(struct fetcher *f)
{
	snprintf(f->reason, sizeof(f->reason), "the file is over the size "
		 "cap of %lld bytes; DEBUGINFOD_MAXSIZE sets the cap",
		 f->max_bytes);
	return true;
}

/*
 * Whether the cache entry (fd, path) is the library's own: a regular
 * file of ours in a directory of ours; else f->reason says why.
 */
static bool entry_ours(struct fetcher *f, int fd, const char *path,
		       struct stat *st)
{
	char *dir = dir_name(path);
	bool ok = dir && dir_safe(f, dir, true);

	if (!dir)
		refuse(f, path, "cannot be checked: out of memory");
	free(dir);
	if (ok && (fstat(fd, st) || !S_ISREG(st->st_mode) ||
		   st->st_uid != geteuid()))
		ok = refuse(f, path, "is not a regular file of ours");
	return ok;
}

/*
 * Whether the file the library gave (fd, path) is to be refused, and
 * why in f->reason: it is used only when the library's own (a regular
 * file of ours, in a directory of ours), within the cap when a server
 * sent it, with the build-id id[0..len).  One over the cap or with
 * another build-id is removed from the cache.
 */
static bool refused(struct fetcher *f, int fd, const char *path,
		    const uint8_t *id, size_t len)
{
	/* The library names a URL only when a server sent the file. */
	bool sent = debuginfod_get_url(f->client) != NULL;
	uint8_t got[64];
	char hex[2 * sizeof(got) + 1];
	struct stat st;
	int n, i;

	if (!entry_ours(f, fd, path, &st))
		return true;
	/* A cancel that comes as the last bytes arrive is not heeded. */
	if (f->cut || (sent && f->max_bytes && st.st_size > f->max_bytes)) {
		drop_entry(f, fd, path);
		return over_cap(f);
	}
	n = buildid_read_fd(fd, got, sizeof(got));
	if (n > 0 && (size_t)n == len && !memcmp(got, id, len))
		return false;
	drop_entry(f, fd, path);
	for (i = 0; (size_t)i < len && (size_t)i < sizeof(got); i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	hex[2 * i] = '\0';
	snprintf(f->reason, sizeof(f->reason), "%s a file with %s for %s",
		 sent ? "debuginfod sent" : "the debuginfod cache held",
		 n > 0 ? "another build-id" : "no build-id", hex);
	return true;
}

/* f goes down: *reason is f->reason. */
static int down(struct fetcher *f, const char **reason)
{
	f->down = true;
	*reason = f->reason;
	return SYM_EOPEN;
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
	if (!f->client && start(f))
		return down(f, reason);
	c = f->client;
	f->last_bytes = -1;
	f->last_time = now();
	f->cancelled = f->cut = false;
	fd = executable ?
	     debuginfod_find_executable(c, id, (int)len, path) :
	     debuginfod_find_debuginfo(c, id, (int)len, path);
	if (fd >= 0 && !*path) {
		close(fd);
		return SYM_ENOMEM;
	}
	if (fd >= 0 && refused(f, fd, *path, id, len)) {
		close(fd);
		free(*path);
		*path = NULL;
		return down(f, reason);
	}
	if (fd >= 0) {
		close(fd);
		return SYM_OK;
	}
	*path = NULL;
	/* An abandoned fetch says "not found" (and the library remembers
	 * it so in its cache, for its cache_miss_s). */
	if (fd == -ENOENT && !f->cancelled && !f->cut)
		return 1;
	if (f->cut || (fd == -EFBIG && f->max_bytes))
		over_cap(f);
	else if (f->cancelled || fd == -ECANCELED)
		snprintf(f->reason, sizeof(f->reason), "nothing received "
			 "for %u s; DEBUGINFOD_TIMEOUT sets the wait", f->wait);
	else
		snprintf(f->reason, sizeof(f->reason), "%s", strerror(-fd));
	return down(f, reason);
}

void debuginfo_fetch_release(struct fetcher *f)
{
	if (f->client)
		debuginfod_end(f->client);
	f->client = NULL;
	free(f->cache);
	f->cache = NULL;
}
