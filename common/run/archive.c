// SPDX-License-Identifier: MIT
/*
 * Archives: a profile that carries the files its report reads (--archive
 * OUT IN), so that it alone gives the same report on a machine that has
 * none of them.
 *
 * Writing: each file object the profile sampled (counts or stack frames)
 * is looked up as a report looks it up (--symfs, the path, debuginfod;
 * the build-id checked), and that file and its separate debug file, if
 * any, go into the profile compressed (section 13).
 *
 * Reading: a report of a profile with files unpacks them into a private
 * directory (mkdtemp, mode 0700) under $TMPDIR, objects at ROOT/PATH and
 * debug files at DEBUG/.build-id/xx/rest.debug, and reports with ROOT as
 * the symfs and DEBUG as the first debug dir; the directory is removed
 * when the report is done.  The build-ids are checked as always, so an
 * archived file is used only for the object it was taken from.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_int.h"
#include "common/profile/profile.h"
#include "common/util/buildid.h"
#include "common/util/error.h"
#include "common/util/regfile.h"
#include "formats/show.h"
#include "symbolize/symbolize.h"

/*
 * Whether the file open at fd is the one object o was when profiled.  A
 * build-id says so where there is one (the symbolizer checked it);
 * without one, only the identity the run recorded does: the path may
 * lead elsewhere now (a profiled user's link to a file only root can
 * read), and an archive is a copy anyone who gets it can read.
 */
static bool same_file(int fd, const struct prof_identity *id)
{
	struct stat st;

	return id->ino && !fstat(fd, &st) && (uint64_t)st.st_dev == id->dev &&
	       (uint64_t)st.st_ino == id->ino &&
	       (uint64_t)st.st_size == id->size &&
	       (uint64_t)st.st_mtim.tv_sec * 1000000000u +
	       (uint64_t)st.st_mtim.tv_nsec == id->mtime_ns;
}

/*
 * Why the file open at fd is not one to copy for object o (NULL: it is),
 * judged on the very descriptor that is copied, never on an earlier
 * open of the same name: the build-id where o has one (its object or its
 * debug file), else for the object the identity the run recorded (want;
 * NULL: found elsewhere than its own path, a --symfs the user named).
 */
static const char *not_profiled(int fd, uint32_t kind,
				const struct prof_object *o,
				const struct prof_identity *want)
{
	uint8_t bid[20];
	int n;

	if (o->build_id_len) {
		n = buildid_read_fd(fd, bid, sizeof(bid));
		return n == (int)o->build_id_len &&
		       !memcmp(bid, o->build_id, o->build_id_len) ? NULL :
		       "has another build-id here, or none";
	}
	if (kind == PROF_FILE_DEBUG)
		return "has no build-id to check its debug file by";
	if (want && !same_file(fd, want))
		return want->ino ? "has no build-id and is not the file "
				   "profiled (replaced since)" :
				   "has no build-id and the profile does not "
				   "say which file it was";
	return NULL;
}

/* Add path's bytes to p as a file of kind for object o; want: the
 * identity the object's file must have (not_profiled()).  A file over
 * the caps on archived files, or not the one profiled, is left out with
 * a line saying so: 1. */
static int add_file(const struct run_config *c, struct profile *p,
		    uint32_t kind, const char *path,
		    const struct prof_object *o,
		    const struct prof_identity *want, uint64_t *zbytes)
{
	int fd = regfile_open(path, NULL), idx;
	const char *why;

	if (fd < 0)
		return prof_fail(PROF_EIO, "cannot open '%s': %s", path,
				 strerror(errno));
	why = not_profiled(fd, kind, o, want);
	if (why) {
		close(fd);
		run_notice(c, "'%s'%s %s: not archived, its rows will be "
			   "addresses", o->path, kind == PROF_FILE_DEBUG ?
			   "'s debug file" : "", why);
		return 1;
	}
	idx = profile_add_file_fd(p, kind, o->path, o->build_id,
				  o->build_id_len, fd);
	close(fd);
	if (idx == -PROF_EINVAL) {
		run_notice(c, "%s%s", kind == PROF_FILE_DEBUG ?
			   "the debug file of " : "",
			   prof_error(PROF_EINVAL));
		return 1;
	}
	if (idx < 0)
		return idx;
	*zbytes += p->files[idx].zlen;
	return 0;
}

/* Which objects the report reads: those with counts or frames. */
static uint8_t *sampled_objects(const struct profile *p)
{
	uint8_t *used = calloc(p->nobjects ? p->nobjects : 1, 1);
	size_t i;

	if (!used)
		return NULL;
	for (i = 0; i < p->ncounts; i++)
		used[p->counts[i].obj] = 1;
	for (i = 0; i < p->nframes; i++)
		used[p->frames[i].obj] = 1;
	return used;
}

/* The files of p's sampled objects, looked up with sym, added to p. */
static int archive_objects(const struct run_config *c, struct profile *p,
			   struct symbolizer *sym, size_t *nobj, size_t *ndbg,
			   uint64_t *zbytes)
{
	uint8_t *used = sampled_objects(p);
	size_t i, n = p->nobjects;
	int err = 0;

	if (!used)
		return -PROF_ENOMEM;
	for (i = 0; i < n && !err; i++) {
		const struct prof_object *o = &p->objects[i];
		struct sym_object so = {
			.kind = SYM_OBJ_FILE, .path = o->path,
			.build_id = o->build_id_len ? o->build_id : NULL,
			.build_id_len = o->build_id_len,
			.no_path = !!(o->id.flags & PROF_ID_UNREAD),
		};
		struct sym_object_info info;

		if (!used[i] || o->kind != PROF_OBJ_FILE)
			continue;
		if (sym_object_info(sym, &so, &info) == SYM_ENOMEM) {
			err = -PROF_ENOMEM;
			break;
		}
		if (!info.file) {
			run_notice(c, "'%s' %s: not archived, its rows will "
				   "be addresses", o->path, info.mismatch ?
				   "has another build-id here" :
				   "cannot be read here");
			continue;
		}
		/* Found at its own path: the file profiled, or another? */
		err = add_file(c, p, PROF_FILE_OBJECT, info.file, o,
			       !strcmp(info.file, o->path) ? &o->id : NULL,
			       zbytes);
		*nobj += !err;
		if (err > 0)
			err = 0;
		if (!err && info.debug) {
			err = add_file(c, p, PROF_FILE_DEBUG, info.debug, o,
				       NULL, zbytes);
			*ndbg += !err;
			if (err > 0)
				err = 0;
		}
	}
	free(used);
	return err;
}

int run_archive_file(const struct run_config *c, const char *out,
		     const char *in)
{
	struct run_unpacked u;
	struct sym_config sc;
	struct symbolizer *sym = NULL;
	struct profile *p;
	size_t nobj = 0, ndbg = 0, i;
	uint64_t zbytes = 0;
	int err;

	err = profile_read_from(in, run_importer(c), &p);
	if (err)
		return run_fail(c, err);
	run_sym_config(c, &sc);
	/* An archive archived again: its own files are where it looks. */
	err = run_unpack(p, &u, &sc);
	if (!err) {
		sym = report_symbolizer_new(p, &sc);
		if (!sym)
			err = -PROF_ENOMEM;
	}
	if (!err) {
		for (i = 0; i < p->nfiles; i++) {
			free(p->files[i].path);
			free(p->files[i].zdata);
		}
		p->nfiles = 0;
		err = archive_objects(c, p, sym, &nobj, &ndbg, &zbytes);
	}
	symbolizer_free(sym);
	run_unpacked_remove(&u);
	if (!err && p->nksyms == 0 && p->tool && !strcmp(p->tool, "kprofile"))
		run_notice(c, "note: the profile has no kernel symbols: "
			   "kernel rows will be addresses elsewhere");
	if (!err)
		err = profile_write(p, out);
	profile_free(p);
	if (err)
		return run_fail(c, err);
	run_notice(c, "archived %zu object%s and %zu debug file%s (%.1f MB "
		   "compressed); profile written to %s", nobj,
		   nobj == 1 ? "" : "s", ndbg, ndbg == 1 ? "" : "s",
		   (double)zbytes / 1e6, out);
	return 0;
}

/* ---- unpacking for a report ---- */

/* Whether path is absolute, without empty, "." or ".." components. */
static int clean_path(const char *path)
{
	const char *p = path;

	if (*p != '/' || strlen(p) >= 4000)
		return 0;
	while (*p == '/') {
		const char *q = ++p;

		while (*q && *q != '/')
			q++;
		if (q == p || (q - p == 1 && p[0] == '.') ||
		    (q - p == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		p = q;
	}
	return !*p;
}

/* Create the directories of dir/rel's parent (rel without a leading
 * slash), all inside our private directory. */
static int make_parents(const char *dir, const char *rel)
{
	char path[8192];
	char *s;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) >=
	    sizeof(path))
		return -1;
	for (s = path + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(path, 0700) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return 0;
}

/* Write f's bytes at dir/rel, a new file.  A file that cannot be put
 * there (an archive naming both /a and /a/b) is left out: its object's
 * rows are then addresses, and the report says it cannot read it. */
static int write_at(const char *dir, const char *rel,
		    const struct prof_file *f)
{
	char path[8192];
	int fd, err;

	if (make_parents(dir, rel) ||
	    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) >=
	    sizeof(path))
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		/* also the same object twice (two build-ids at one path):
		 * the first stays, the report checks build-ids */
		return 0;
	/* In chunks: never more than the size declared (and capped). */
	err = profile_file_write(f, fd);
	if (close(fd) && !err)
		err = prof_fail(PROF_EIO, "cannot unpack '%s' into %s: %s",
				f->path, dir, strerror(errno));
	return err;
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* Remove dir and all in it, never following a link or leaving its file
 * system. */
static void remove_tree(const char *dir)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* Close every descriptor but keep (the watchdog must hold no pipe that
 * a pipeline or a test waits on, and no output of ours). */
static void close_all_but(int keep)
{
	long fd, max = sysconf(_SC_OPEN_MAX);

	if (keep > 0 && close_range(0, (unsigned)keep - 1, 0) == 0 &&
	    close_range((unsigned)keep + 1, ~0U, 0) == 0)
		return;
	for (fd = 0; fd < (max > 0 ? max : 1024); fd++)
		if (fd != keep)
			close((int)fd);
}

/*
 * The watchdog's life: wait until the report ends (the pipe's only
 * writer closed, by us or by the kernel when we die, even of SIGKILL),
 * then remove dir if it is still the directory we made.  It leaves our
 * session and ignores the signals that end us, since Ctrl-C reaches the
 * whole foreground process group.  fork() in glibc leaves malloc usable
 * in the child, which nftw needs.
 */
static void __attribute__((noreturn))
watchdog(const char *dir, const struct stat *made, int rfd)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
				    SIGPIPE, SIGUSR1, SIGUSR2, SIGTSTP };
	struct stat st;
	sigset_t none;
	size_t i;
	char c;

	setsid();
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	close_all_but(rfd);
	for (;;) {
		ssize_t r = read(rfd, &c, 1);

		if (r == 0 || (r < 0 && errno != EINTR))
			break;
	}
	if (!lstat(dir, &st) && S_ISDIR(st.st_mode) &&
	    st.st_dev == made->st_dev && st.st_ino == made->st_ino)
		remove_tree(dir);
	_exit(0);
}

/* mkdtemp u->dir, and at once its watchdog: signals are held in between
 * so that only SIGKILL can end us with a directory nobody watches. */
static int make_dir(struct run_unpacked *u, const char *tmp)
{
	sigset_t all, old;
	struct stat made;
	int fds[2] = { -1, -1 }, e = 0, have_dir;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	have_dir = mkdtemp(u->dir) != NULL;
	if (!have_dir || lstat(u->dir, &made))
		e = errno;
	else if (pipe2(fds, O_CLOEXEC) ||
		 (u->watch_pid = fork()) < 0)
		e = errno;
	else if (u->watch_pid == 0)
		watchdog(u->dir, &made, fds[0]);
	if (fds[0] >= 0)
		close(fds[0]);
	if (!e) {
		u->watch_fd = fds[1];
	} else {
		if (fds[1] >= 0)
			close(fds[1]);
		u->watch_pid = 0;
		if (have_dir)
			rmdir(u->dir);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (e)
		return prof_fail(PROF_EIO, "cannot unpack the archive: "
				 "directory in %s: %s", tmp, strerror(e));
	return 0;
}

int run_unpack(const struct profile *p, struct run_unpacked *u,
	       struct sym_config *sc)
{
	const char *tmp = getenv("TMPDIR");
	size_t i;
	int err = 0;

	memset(u, 0, sizeof(*u));
	u->watch_fd = -1;
	if (!p->nfiles)
		return 0;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (asprintf(&u->dir, "%s/uprofile-archive.XXXXXX", tmp) < 0) {
		u->dir = NULL;
		return -PROF_ENOMEM;
	}
	err = make_dir(u, tmp);
	if (err) {
		free(u->dir);
		u->dir = NULL;
		return err;
	}
	if (asprintf(&u->root, "%s/root", u->dir) < 0 ||
	    asprintf(&u->debug, "%s/debug", u->dir) < 0) {
		run_unpacked_remove(u);
		return -PROF_ENOMEM;
	}
	if (mkdir(u->root, 0700) || mkdir(u->debug, 0700))
		err = prof_fail(PROF_EIO, "cannot unpack the archive: %s",
				strerror(errno));
	for (i = 0; i < p->nfiles && !err; i++) {
		const struct prof_file *f = &p->files[i];
		char *rel;

		if (f->kind == PROF_FILE_OBJECT) {
			if (clean_path(f->path))
				err = write_at(u->root, f->path + 1, f);
			continue;
		}
		rel = buildid_debug_path("", f->build_id, f->build_id_len);
		if (rel)
			err = write_at(u->debug, rel, f);
		free(rel);
	}
	if (err) {
		run_unpacked_remove(u);
		return err;
	}
	/* The archive's files first: the build-ids are theirs. */
	u->dirs = calloc(sc->ndebug_dirs + 1, sizeof(*u->dirs));
	if (!u->dirs) {
		run_unpacked_remove(u);
		return -PROF_ENOMEM;
	}
	u->dirs[0] = u->debug;
	for (i = 0; i < sc->ndebug_dirs; i++)
		u->dirs[i + 1] = sc->debug_dirs[i];
	sc->debug_dirs = u->dirs;
	sc->ndebug_dirs++;
	if (!sc->symfs) {
		sc->symfs = u->root;
		sc->symfs_archive = 1;	/* it carries no source files */
	}
	return 0;
}

void run_unpacked_remove(struct run_unpacked *u)
{
	if (u->dir)
		remove_tree(u->dir);
	/* The watchdog sees the end of its pipe, finds nothing, exits. */
	if (u->watch_pid > 0) {
		close(u->watch_fd);
		while (waitpid(u->watch_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	free(u->dir);
	free(u->root);
	free(u->debug);
	free(u->dirs);
	memset(u, 0, sizeof(*u));
	u->watch_fd = -1;
}
