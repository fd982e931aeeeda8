/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "sysctl.h"

int sysctl_read_long(const char *name, long *v)
{
	const char *dir = getenv("UPROFILE_PROCSYS");
	char path[PATH_MAX];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s",
		 dir && *dir ? dir : "/proc/sys/kernel", name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	ok = fscanf(f, "%ld", v) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}
