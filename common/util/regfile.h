/* SPDX-License-Identifier: MIT */
/*
 * Opening input files that may be hostile or simply odd: only regular
 * files are opened.
 *
 * A profile names the objects it sampled, DWARF names source files and
 * debug files are found by build-id or debuglink: any of these paths can
 * be a FIFO, a device, a socket or a directory by accident or on purpose.
 * A plain open() of a FIFO blocks until a writer comes, so the report
 * would hang forever; opening a device can block or have effects (a
 * watchdog armed).  These helpers open with O_PATH (which opens nothing
 * for reading), fstat() that descriptor (so the check is on what was
 * found, not on a name that may have changed since), give up on anything
 * but a regular file, and only then open that same inode for reading
 * (through /proc/self/fd).
 */
#ifndef COMMON_REGFILE_H
#define COMMON_REGFILE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

/*
 * Open path read-only, close-on-exec, as a blocking descriptor.
 * Returns the descriptor, or -1 with errno set: open()'s error, or
 * EINVAL when path is not a regular file.  st, when not NULL, receives
 * the file's status when it could be taken (on success, and when the
 * file is not regular: st->st_mode then says what it is, for
 * regfile_kind()); otherwise st->st_mode is 0.  So "not a regular file"
 * is errno EINVAL with st->st_mode non-zero (open() itself may fail with
 * EINVAL too, on a name the file system rejects).
 */
int regfile_open(const char *path, struct stat *st);

/* The same as a stdio stream for reading ("re"); NULL with errno set. */
FILE *regfile_fopen(const char *path, struct stat *st);

/*
 * The same, with path resolved inside the directory root as if it were
 * / (openat2 RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS): "..", absolute
 * paths and symbolic links all stay inside root, so a path that outside
 * input names (a container's mapping, DWARF's source files) never leads
 * to a file of ours.  root NULL or "/": path as it is.
 */
int regfile_open_in(const char *root, const char *path, struct stat *st);
FILE *regfile_fopen_in(const char *root, const char *path, struct stat *st);

/*
 * The whole of the regular file open at fd (read from offset 0, up to
 * the size fstat() gives now) in *out, malloc'd, with a NUL after its
 * *len bytes.  Returns 0, or -1 with errno set: EFBIG when the file is
 * larger than max bytes, ENOMEM, EIO when it shrank, or read's error.
 */
int regfile_read_all(int fd, size_t max, char **out, size_t *len);

/* Exactly len bytes of fd at offset off into buf (short reads and EINTR
 * retried): 0, or -1 with errno set (EIO: the file ends before). */
int regfile_pread(int fd, void *buf, size_t len, uint64_t off);

/* What a file of this mode is, for messages: "fifo", "directory",
 * "character device", ..., "special file" for anything else. */
const char *regfile_kind(mode_t mode);

#endif
