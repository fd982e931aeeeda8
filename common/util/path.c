/* SPDX-License-Identifier: MIT */
/* Finding a program as a shell would; base names (path.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "path.h"

static int is_exec_file(const char *path, int *exists)
{
	struct stat st;

	*exists = 0;
	if (stat(path, &st) || S_ISDIR(st.st_mode))
		return 0;
	*exists = 1;
	return access(path, X_OK) == 0;
}

int path_find_program(const char *name, char **path)
{
	const char *env, *p;
	char *found_noexec = NULL;
	int exists;

	*path = NULL;
	if (!*name)
		return prof_fail(PROF_ENOENT, "cannot run '': no such file");
	if (strchr(name, '/')) {
		if (is_exec_file(name, &exists)) {
			*path = strdup(name);
			return *path ? 0 : -PROF_ENOMEM;
		}
		if (exists || (access(name, F_OK) == 0))
			return prof_fail(PROF_ENOEXEC, "cannot run '%s': %s",
					 name, exists ? "Permission denied" :
					 "Is a directory");
		return prof_fail(PROF_ENOENT, "cannot run '%s': %s", name,
				 strerror(ENOENT));
	}
	env = getenv("PATH");
	if (!env)
		env = "/usr/local/bin:/usr/bin:/bin";
	for (p = env;; ) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		char *cand;

		if (asprintf(&cand, "%.*s%s%s", (int)n, p, n ? "/" : "",
			     name) < 0)
			return -PROF_ENOMEM;
		if (is_exec_file(cand, &exists)) {
			free(found_noexec);
			*path = cand;
			return 0;
		}
		if (exists && !found_noexec)
			found_noexec = cand;
		else
			free(cand);
		if (!colon)
			break;
		p = colon + 1;
	}
	if (found_noexec) {
		free(found_noexec);
		return prof_fail(PROF_ENOEXEC, "cannot run '%s': Permission denied",
				 name);
	}
	return prof_fail(PROF_ENOENT, "cannot run '%s': command not found",
			 name);
}

const char *path_base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	if (!path)
		return "";
	return s && s[1] ? s + 1 : path;
}
