/* SPDX-License-Identifier: MIT */
/* Paths: finding the program to run, naming a file by its base name. */
#ifndef COMMON_UTIL_PATH_H
#define COMMON_UTIL_PATH_H

/*
 * Resolve a command name as a shell would: a name with a slash is used as
 * is, otherwise each PATH entry is tried.  Returns 0 with a malloc'd path
 * in *path, or -PROF_ENOENT (not found) / -PROF_ENOEXEC (found, not
 * executable) with a detail naming it (prof_error()).
 */
int path_find_program(const char *name, char **path);

/*
 * The file name of path: what follows its last '/' (path itself when
 * it has none, or ends in one); "" for NULL.  Points into path.
 */
const char *path_base(const char *path);

#endif
