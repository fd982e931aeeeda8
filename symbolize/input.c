// SPDX-License-Identifier: MIT
/*
 * The files a symbolizer opens, and the ones it passes over because they
 * are not regular files (contract in symbolize_int.h).  Below debuginfo.c
 * and symbolize.c, which both open objects and debug files through it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/util/regfile.h"
#include "symbolize_int.h"

void inputs_init(struct inputs *in, struct strpool *pool)
{
	memset(in, 0, sizeof(*in));
	in->pool = pool;
}

void inputs_release(struct inputs *in)
{
	free(in->skipped);
	memset(in, 0, sizeof(*in));
}

int inputs_open(struct inputs *in, const char *path)
{
	struct stat st;
	const char *kept;
	size_t i;
	int fd = regfile_open(path, &st);

	if (fd >= 0 || errno != EINVAL || !st.st_mode)
		return fd;
	for (i = 0; i < in->nskipped; i++)
		if (!strcmp(in->skipped[i].path, path))
			goto out;
	/* Out of memory only loses the note; the file is skipped anyway. */
	kept = strpool_add(in->pool, path);
	if (kept && !ALLOC_GROW(in->skipped, in->nskipped + 1,
				in->alloc_skipped)) {
		in->skipped[in->nskipped].path = kept;
		in->skipped[in->nskipped++].kind = regfile_kind(st.st_mode);
	}
out:
	errno = EINVAL;
	return -1;
}
