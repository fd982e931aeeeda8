/* SPDX-License-Identifier: MIT */
/*
 * Output files (outfile.h): O_TMPFILE, then linkat to a random name and
 * renameat over the final one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "outfile.h"

/* Random characters of a temporary name: enough that guessing one is
 * hopeless, few enough to keep most of the final name visible in it. */
#define RANDOM_CHARS 12
#define TMP_TRIES 100

static int fail_path(const char *path, int e)
{
	return prof_fail(PROF_EIO, "cannot write '%s': %s", path, strerror(e));
}

static int fail_dir(const char *path, const char *dir, int e)
{
	return prof_fail(PROF_EIO, "cannot write '%s': directory '%s': %s",
			 path, dir, strerror(e));
}

/*
 * Split PATH into its directory (allocated) and final component (inside
 * PATH).  A final component that cannot name a file ("", ".", "..", as in
 * "dir/") is EISDIR.
 */
static int split_path(const char *path, char **dir, const char **base)
{
	const char *slash = strrchr(path, '/');

	*base = slash ? slash + 1 : path;
	if (!slash)
		*dir = strdup(".");
	else if (slash == path)
		*dir = strdup("/");
	else
		*dir = strndup(path, (size_t)(slash - path));
	if (!*dir)
		return prof_fail(PROF_ENOMEM, "cannot write '%s': out of memory",
				 path);
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, ".."))
		return fail_path(path, EISDIR);
	if (strlen(*base) > NAME_MAX)
		return fail_path(path, ENAMETOOLONG);
	return 0;
}

/* A fresh hidden name for BASE's temporary: ".BASE.tmpRANDOM", BASE cut
 * so that the whole fits in NAME_MAX. */
static int tmp_name(char *out, const char *base)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuv";
	unsigned char r[RANDOM_CHARS];
	char rnd[RANDOM_CHARS + 1];
	int keep = NAME_MAX - 1 - 4 - RANDOM_CHARS;
	size_t i;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -1;
	for (i = 0; i < RANDOM_CHARS; i++)
		rnd[i] = digits[r[i] % 32];
	rnd[RANDOM_CHARS] = '\0';
	snprintf(out, NAME_MAX + 1, ".%.*s.tmp%s", keep, base, rnd);
	return 0;
}

/* O_TMPFILE is missing from the kernel or the file system. */
static int no_tmpfile(int e)
{
	return e == EOPNOTSUPP || e == EISDIR || e == EINVAL;
}

/*
 * The new file in DIRFD: unnamed when O_TMPFILE works, else created under
 * a random name (TMP set) that O_EXCL makes sure is ours.  -1 with errno.
 */
static int create_in(int dirfd, const char *base, char *tmp, mode_t mode)
{
	int fd, i;

	tmp[0] = '\0';
	fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
	if (fd >= 0 || !no_tmpfile(errno))
		return fd;
	for (i = 0; i < TMP_TRIES; i++) {
		if (tmp_name(tmp, base))
			return -1;
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		tmp[0] = '\0';
	return fd;
}

/* Open PATH's directory; dir is allocated, for messages. */
static int open_dir(const char *path, char **dir, const char **base,
		    int *dirfd)
{
	int err = split_path(path, dir, base);

	*dirfd = -1;
	if (err)
		return err;
	/* O_PATH: a directory we may write but not list is fine. */
	*dirfd = open(*dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*dirfd < 0)
		return fail_dir(path, *dir, errno);
	return 0;
}

int outfile_check(const char *path)
{
	char *dir = NULL, tmp[NAME_MAX + 1];
	const char *base;
	struct stat st, dst;
	int dirfd, fd, err, e;

	err = open_dir(path, &dir, &base, &dirfd);
	if (err)
		goto out;
	if (fstat(dirfd, &dst)) {
		err = fail_dir(path, dir, errno);
		goto out;
	}
	if (!fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW)) {
		if (S_ISDIR(st.st_mode)) {
			err = fail_path(path, EISDIR);
			goto out;
		}
		/* rename(2) over another user's file in a sticky directory
		 * (/tmp) is refused, unless the directory is ours or we
		 * are root. */
		if ((dst.st_mode & S_ISVTX) && geteuid() &&
		    st.st_uid != geteuid() && dst.st_uid != geteuid()) {
			err = prof_fail(PROF_EIO, "cannot write '%s': it "
					"belongs to another user (uid %u) in a "
					"sticky directory", path,
					(unsigned)st.st_uid);
			goto out;
		}
	}
	/* Whether we may create a file there (permissions, read-only
	 * mount, quota of inodes) is known only by doing it. */
	fd = create_in(dirfd, base, tmp, 0666);
	if (fd < 0) {
		err = fail_dir(path, dir, errno);
		goto out;
	}
	e = 0;
	if (tmp[0] && unlinkat(dirfd, tmp, 0))
		e = errno;
	close(fd);
	if (e)
		err = fail_dir(path, dir, e);
out:
	if (dirfd >= 0)
		close(dirfd);
	free(dir);
	return err;
}

static void release(struct outfile *o)
{
	if (o->fp)
		fclose(o->fp);
	else if (o->fd >= 0)
		close(o->fd);
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->path);
	o->fp = NULL;
	o->fd = o->dirfd = -1;
	o->path = NULL;
	o->base = NULL;
	o->tmp[0] = '\0';
}

int outfile_open(struct outfile *o, const char *path)
{
	return outfile_open_mode(o, path, 0666);
}

int outfile_open_mode(struct outfile *o, const char *path, mode_t mode)
{
	char *dir = NULL;
	int err;

	memset(o, 0, sizeof(*o));
	o->fd = o->dirfd = -1;
	o->path = strdup(path);
	if (!o->path)
		return prof_fail(PROF_ENOMEM, "cannot write '%s': out of memory",
				 path);
	err = open_dir(o->path, &dir, &o->base, &o->dirfd);
	if (!err) {
		o->fd = create_in(o->dirfd, o->base, o->tmp, mode);
		if (o->fd < 0)
			err = fail_dir(path, dir, errno);
	}
	free(dir);
	if (err)
		release(o);
	return err;
}

FILE *outfile_stream(struct outfile *o)
{
	if (!o->fp) {
		o->fp = fdopen(o->fd, "w");
		if (!o->fp)
			prof_fail(PROF_ENOMEM, "cannot write '%s': %s", o->path,
				  strerror(errno));
	}
	return o->fp;
}

/* Name the unnamed file: linkat to a random name, which fails rather
 * than replace or follow anything there.  -1 with errno. */
static int link_tmpfile(struct outfile *o)
{
	char proc[64];
	int i;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	for (i = 0; i < TMP_TRIES; i++) {
		if (tmp_name(o->tmp, o->base))
			break;
		if (!linkat(AT_FDCWD, proc, o->dirfd, o->tmp,
			    AT_SYMLINK_FOLLOW))
			return 0;
		/* No /proc: AT_EMPTY_PATH does the same (it needs
		 * CAP_DAC_READ_SEARCH). */
		if (errno == ENOENT &&
		    !linkat(o->fd, "", o->dirfd, o->tmp, AT_EMPTY_PATH))
			return 0;
		if (errno != EEXIST)
			break;
	}
	o->tmp[0] = '\0';
	return -1;
}

int outfile_commit(struct outfile *o)
{
	int e = 0;

	errno = 0;
	if (o->fp && (fflush(o->fp) || ferror(o->fp)))
		e = errno ? errno : EIO;
	if (!e && fsync(o->fd))
		e = errno;
	if (!e && !o->tmp[0] && link_tmpfile(o))
		e = errno;
	if (!e && renameat(o->dirfd, o->tmp, o->dirfd, o->base))
		e = errno;
	else if (!e)
		o->tmp[0] = '\0';
	if (e) {
		int err = fail_path(o->path, e);

		outfile_abort(o);
		return err;
	}
	release(o);
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->tmp[0] && o->dirfd >= 0)
		unlinkat(o->dirfd, o->tmp, 0);
	release(o);
}
