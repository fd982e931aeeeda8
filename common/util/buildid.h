/* SPDX-License-Identifier: MIT */
/*
 * Reading the GNU build-id note of an ELF object: what keys an object in
 * a profile (the collector) and what finds its separate debug file (the
 * symbolizer).  libelf only; no libelf type appears here.
 *
 * Contract
 * --------
 * - The id is copied into the caller's buf, at most len bytes (a longer
 *   id is cut to len).  Nothing is allocated and nothing is kept: no
 *   handle outlives the call, except that buildid_read_elf() reads the
 *   caller's handle and leaves it open.
 * - The section notes are read first (separate debug files keep
 *   .note.gnu.build-id, while their PT_NOTE segments may point at
 *   nothing), the PT_NOTE segments after them (images without section
 *   headers).  The first non-empty GNU build-id note wins.
 * - Each function returns the id's length (> 0), 0 when the object has
 *   no build-id, or a negative PROF_E* code (common/util/error.h):
 *   -PROF_EINVAL for bad arguments, -PROF_EIO when the file cannot be
 *   opened (errno says why) or is not an ELF object libelf can read.
 *   Nothing is recorded for prof_error(): a missing build-id is a normal
 *   outcome to callers, not a failure to report.
 * - Nothing here prints or exits.
 */
#ifndef COMMON_BUILDID_H
#define COMMON_BUILDID_H

#include <stddef.h>
#include <stdint.h>

/* The ELF file at path; only a regular file is opened (regfile.h). */
int buildid_read(const char *path, uint8_t *buf, size_t len);

/* The ELF file open on fd, which stays open. */
int buildid_read_fd(int fd, uint8_t *buf, size_t len);

/*
 * libelf's elf_version(EV_CURRENT), made once whatever the thread: the
 * library's one way to call it (elf_version() stores to a global that
 * elf_begin() reads, so a second call would race with a thread reading
 * ELF, symbolize/dwahead.c's).
 */
void buildid_elf_version(void);

/*
 * An ELF object the caller has open with libelf: elf is an Elf *, passed
 * as void * to keep libelf out of this header.  Returns the length or 0
 * (never an error: what cannot be read has no build-id).
 */
int buildid_read_elf(void *elf, uint8_t *buf, size_t len);

/*
 * A file of bare ELF notes, as the running kernel shows its own in
 * /sys/kernel/notes (path; NULL: that file).  -PROF_EIO when it cannot
 * be read; 0 when no GNU build-id note is whole in it.
 */
int buildid_read_notes(const char *path, uint8_t *buf, size_t len);

/*
 * The debug file of build-id id under a debug root, as GDB and
 * debuginfod lay them out: "ROOT/.build-id/xx/rest.debug" (ROOT "" gives
 * ".build-id/..."), malloc'd; NULL for an id shorter than 2 bytes or out
 * of memory.
 */
char *buildid_debug_path(const char *root, const uint8_t *id, size_t len);

#endif
