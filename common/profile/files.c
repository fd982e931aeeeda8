/* SPDX-License-Identifier: MIT */
/*
 * An archive's files (--archive, section 13): compressed as they are
 * added, unpacked in chunks, and the caps on their sizes that the writer
 * and the reader both hold them to (profile.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "profile_int.h"

int profile_write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads and writes of archived files go by this much. */
#define FILE_CHUNK ((size_t)64 << 10)

/* The cap on sizes a file of size bytes after total bytes of files is
 * over (PROF_FILE_MAX, PROF_FILES_TOTAL_MAX), or NULL. */
static const char *size_cap(uint64_t size, uint64_t total)
{
	if (size > PROF_FILE_MAX)
		return "the 1 GiB cap per file";
	if (total > PROF_FILES_TOTAL_MAX ||
	    size > PROF_FILES_TOTAL_MAX - total)
		return "the 4 GiB cap on all the files of a profile";
	return NULL;
}

const char *profile_file_cap(uint64_t size, uint64_t zlen, uint64_t total)
{
	const char *cap = size_cap(size, total);

	if (cap)
		return cap;
	/* zlen is at most the profile's size: no overflow */
	if (size > zlen * PROF_FILE_RATIO_MAX + PROF_FILE_RATIO_SLACK)
		return "the 200:1 cap on the compression ratio";
	return NULL;
}

int profile_file_left_out(struct profile *p, const char *line)
{
	char *copy = strdup(line);

	if (!copy || ALLOC_GROW(p->files_left_out, p->nfiles_left_out + 1,
				p->alloc_files_left_out)) {
		free(copy);
		return -PROF_ENOMEM;
	}
	p->files_left_out[p->nfiles_left_out++] = copy;
	return 0;
}

/* path left out of p, over cap: -PROF_EINVAL, the line kept in p. */
static int file_refused(struct profile *p, const char *path, uint64_t size,
			const char *cap)
{
	char *line;
	int err;

	if (asprintf(&line, "'%s' is not archived: %" PRIu64 " bytes, "
		     "over %s", path, size, cap) < 0)
		return -PROF_ENOMEM;
	err = profile_file_left_out(p, line);
	if (!err)
		err = prof_fail(PROF_EINVAL, "%s", line);
	free(line);
	return err;
}

static uint64_t files_total(const struct profile *p)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < p->nfiles; i++)
		total += p->files[i].size;
	return total;
}

/* Room for more compressed bytes in f->zdata (*alloc bytes). */
static int grow_zdata(struct prof_file *f, size_t *alloc)
{
	size_t n = *alloc ? *alloc * 2 : FILE_CHUNK;
	uint8_t *d = realloc(f->zdata, n);

	if (!d)
		return -PROF_ENOMEM;
	f->zdata = d;
	*alloc = n;
	return 0;
}

/* Deflate fd's bytes into f (zdata, zlen, size), in chunks; a file
 * over the caps on sizes (after total bytes) is refused as soon as that
 * much is read (it may have grown since its size was checked). */
static int deflate_fd(struct profile *p, int fd, const char *path,
		      uint64_t total, struct prof_file *f, uint8_t *in)
{
	z_stream z = { 0 };
	size_t alloc = 0;
	int flush = Z_NO_FLUSH, zr = Z_OK, err = 0;

	if (deflateInit(&z, 6) != Z_OK)
		return -PROF_ENOMEM;
	do {
		uInt room;

		if (!z.avail_in && flush == Z_NO_FLUSH) {
			ssize_t r = pread(fd, in, FILE_CHUNK, (off_t)f->size);

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				err = prof_fail(PROF_EIO, "cannot read '%s': %s",
						path, strerror(errno));
				break;
			}
			f->size += (uint64_t)r;
			if (size_cap(f->size, total)) {
				err = file_refused(p, path, f->size,
						   size_cap(f->size, total));
				break;
			}
			flush = r ? Z_NO_FLUSH : Z_FINISH;
			z.next_in = in;
			z.avail_in = (uInt)r;
		}
		if (f->zlen == alloc && (err = grow_zdata(f, &alloc)))
			break;
		room = (uInt)(alloc - f->zlen < UINT_MAX ? alloc - f->zlen :
			      UINT_MAX);
		z.next_out = f->zdata + f->zlen;
		z.avail_out = room;
		zr = deflate(&z, flush);
		f->zlen += room - z.avail_out;
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			err = -PROF_ENOMEM;
	} while (!err && zr != Z_STREAM_END);
	deflateEnd(&z);
	return err;
}

int profile_add_file_fd(struct profile *p, uint32_t kind, const char *path,
			const uint8_t *build_id, uint32_t build_id_len,
			int fd)
{
	uint64_t total = files_total(p);
	struct prof_file f = { 0 };
	const char *cap;
	struct stat st;
	uint8_t *in;
	int err;

	if (fstat(fd, &st))
		return prof_fail(PROF_EIO, "cannot read '%s': %s", path,
				 strerror(errno));
	if (!S_ISREG(st.st_mode))
		return prof_fail(PROF_EIO, "cannot read '%s': not a regular "
				 "file", path);
	/* Over a cap by its size: refused without reading it. */
	cap = size_cap((uint64_t)st.st_size, total);
	if (cap)
		return file_refused(p, path, (uint64_t)st.st_size, cap);
	if (build_id_len > sizeof(f.build_id) ||
	    ALLOC_GROW(p->files, p->nfiles + 1, p->alloc_files) ||
	    !(in = malloc(FILE_CHUNK)))
		return -PROF_ENOMEM;
	err = deflate_fd(p, fd, path, total, &f, in);
	free(in);
	cap = err ? NULL : profile_file_cap(f.size, f.zlen, total);
	if (cap)
		err = file_refused(p, path, f.size, cap);
	if (!err && !(f.path = strdup(path)))
		err = -PROF_ENOMEM;
	if (err) {
		free(f.zdata);
		return err;
	}
	/* Give back what doubling took beyond the stream. */
	in = realloc(f.zdata, f.zlen ? f.zlen : 1);
	if (in)
		f.zdata = in;
	f.kind = kind;
	f.build_id_len = build_id_len;
	memcpy(f.build_id, build_id, build_id_len);
	p->files[p->nfiles] = f;
	return (int)p->nfiles++;
}

static int file_damaged(const struct prof_file *f)
{
	return prof_fail(PROF_EFORMAT, "archived file '%s' is damaged",
			 f->path);
}

/* Inflate z (f's stream) into fd until the stream ends, through out
 * (FILE_CHUNK bytes): never more than f->size bytes. */
static int inflate_to(z_stream *z, const struct prof_file *f, int fd,
		      uint8_t *out)
{
	uint64_t in_left = f->zlen, out_left = f->size;
	int zr = Z_OK;

	while (zr != Z_STREAM_END) {
		size_t n;

		if (!z->avail_in) {
			if (!in_left)
				return file_damaged(f);
			z->avail_in = in_left < UINT_MAX ? (uInt)in_left :
				      UINT_MAX;
			in_left -= z->avail_in;
		}
		z->next_out = out;
		z->avail_out = FILE_CHUNK;
		zr = inflate(z, Z_NO_FLUSH);
		if (zr == Z_MEM_ERROR)
			return -PROF_ENOMEM;
		if (zr != Z_OK && zr != Z_STREAM_END)
			return file_damaged(f);
		n = FILE_CHUNK - z->avail_out;
		if (n > out_left)
			return file_damaged(f);
		out_left -= n;
		if (profile_write_all(fd, out, n))
			return prof_fail(PROF_EIO, "cannot unpack '%s': %s",
					 f->path, strerror(errno));
	}
	/* All the stream, no bytes after it, and the size declared. */
	return in_left || z->avail_in || out_left ? file_damaged(f) : 0;
}

int profile_file_write(const struct prof_file *f, int fd)
{
	z_stream z = { 0 };
	uint8_t *out = malloc(FILE_CHUNK);
	int err;

	if (!out || inflateInit(&z) != Z_OK) {
		free(out);
		return -PROF_ENOMEM;
	}
	z.next_in = f->zdata;
	err = inflate_to(&z, f, fd, out);
	inflateEnd(&z);
	free(out);
	return err;
}
