/* SPDX-License-Identifier: MIT */
/*
 * Files the tools write (profiles, -report-file): created so that nothing
 * planted in the directory is ever followed, and so that the final name
 * holds either the old file or the complete new one.
 *
 * - The new file is unnamed while it is written: open(dir, O_TMPFILE).  A
 *   process killed meanwhile, even by SIGKILL, leaves nothing behind.
 *   Where the file system has no O_TMPFILE, a random hidden name in the
 *   same directory is created with O_CREAT | O_EXCL | O_NOFOLLOW (and is
 *   left behind by SIGKILL).
 * - outfile_commit() gives the file a random name (linkat, which never
 *   replaces or follows what is there), then rename(2)s it over the final
 *   name.  A symlink planted at the final name is replaced, never followed;
 *   no predictable name is ever opened.  Only a SIGKILL between those two
 *   system calls leaves a hidden ".NAME.tmpRANDOM" behind.
 * - The mode is that of an ordinary new file, 0666 & ~umask, or the one
 *   given to outfile_open_mode() (& ~umask): 0600 for a file that copies
 *   others' contents.  It is set when the file is created, so the data
 *   is never readable by more.
 * - outfile_check() finds, before a run, what would make the write fail
 *   after it: a missing or unwritable directory (a real file is created
 *   there and discarded), a name longer than NAME_MAX, a directory at the
 *   final name, another user's file in a sticky directory.
 *
 * Errors are -PROF_EIO (or -PROF_ENOMEM) with a one-line detail naming the
 * path (prof_error): "cannot write 'x': reason".
 */
#ifndef COMMON_OUTFILE_H
#define COMMON_OUTFILE_H

#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

struct outfile {
	int fd;			/* the new file; -1 when none */
	int dirfd;		/* its directory (O_PATH); -1 when none */
	FILE *fp;		/* outfile_stream(), or NULL */
	char *path;		/* as given, for messages */
	const char *base;	/* final name: the last component of path */
	char tmp[NAME_MAX + 1];	/* named temporary, "" while unnamed */
};

/* 0 when PATH can be written by outfile_open() + outfile_commit() as far
 * as can be known now; nothing is left in the directory. */
int outfile_check(const char *path);

/* Start a new file for PATH.  On success the caller writes to o->fd (or
 * to outfile_stream()) and ends with outfile_commit() or outfile_abort();
 * on failure *o needs nothing more. */
int outfile_open(struct outfile *o, const char *path);
/* The same with mode instead of 0666 (the umask still applies). */
int outfile_open_mode(struct outfile *o, const char *path, mode_t mode);

/* A stdio stream over o->fd, owned by *o (not to be fclose()d); NULL with
 * -PROF_ENOMEM detail on failure. */
FILE *outfile_stream(struct outfile *o);

/* Flush, fsync and put the file in place of PATH; releases *o whatever
 * the result.  On failure the old file at PATH is untouched and no
 * temporary is left. */
int outfile_commit(struct outfile *o);

/* Discard the new file and release *o; a no-op on a released outfile. */
void outfile_abort(struct outfile *o);

#endif
