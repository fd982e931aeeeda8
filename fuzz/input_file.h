/* SPDX-License-Identifier: MIT */
/*
 * For fuzz targets whose code under test reads a file, not a buffer (the
 * symbolizer opens objects and kallsyms by path): each input is written
 * to one file in a private directory made under $TMPDIR (fuzz/run.sh
 * points it at a tmpfs), removed at exit.  Failures abort: a target that
 * cannot write its input must not pass.
 */
#ifndef FUZZ_INPUT_FILE_H
#define FUZZ_INPUT_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Make the directory for TARGET and return the path of the file NAME in
 * it (static storage).  Call once, from LLVMFuzzerInitialize. */
const char *input_file_init(const char *target, const char *name);

/* Replace the file's contents with the input. */
void input_file_write(const uint8_t *data, size_t size);

#endif
