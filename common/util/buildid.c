// SPDX-License-Identifier: MIT
/* Reading the GNU build-id note of an ELF object (contract in buildid.h). */
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buildid.h"
#include "error.h"
#include "regfile.h"

static int read_note_data(Elf_Data *data, uint8_t *buf, size_t len)
{
	GElf_Nhdr nhdr;
	size_t off = 0, next, name_off, desc_off;

	while ((next = gelf_getnote(data, off, &nhdr, &name_off,
				    &desc_off)) > 0) {
		const char *name = (const char *)data->d_buf + name_off;

		off = next;
		if (nhdr.n_type != NT_GNU_BUILD_ID || nhdr.n_namesz != 4 ||
		    memcmp(name, "GNU", 4))
			continue;
		if (nhdr.n_descsz == 0)
			continue;
		if (nhdr.n_descsz < len)
			len = nhdr.n_descsz;
		memcpy(buf, (const char *)data->d_buf + desc_off, len);
		return (int)len;
	}
	return 0;
}

int buildid_read_elf(void *handle, uint8_t *buf, size_t len)
{
	Elf *elf = handle;
	Elf_Scn *scn = NULL;
	size_t i, n;
	int ret;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		ret = read_note_data(data, buf, len);
		if (ret > 0)
			return ret;
	}
	if (elf_getphdrnum(elf, &n) != 0)
		return 0;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		Elf_Data *data;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset,
					    ph.p_filesz,
					    ph.p_align == 8 ? ELF_T_NHDR8 :
					    ELF_T_NHDR);
		if (!data || !data->d_buf)
			continue;
		ret = read_note_data(data, buf, len);
		if (ret > 0)
			return ret;
	}
	return 0;
}

/* The build-id of an Elf handle just begun; ends it. */
static int read_and_end(Elf *elf, uint8_t *buf, size_t len)
{
	int ret;

	if (!elf || elf_kind(elf) != ELF_K_ELF)
		ret = -PROF_EIO;
	else
		ret = buildid_read_elf(elf, buf, len);
	elf_end(elf);
	return ret;
}

int buildid_read(const char *path, uint8_t *buf, size_t len)
{
	int fd, ret;

	if (!path || (!buf && len))
		return -PROF_EINVAL;
	fd = regfile_open(path, NULL);
	if (fd < 0)
		return -PROF_EIO;
	ret = buildid_read_fd(fd, buf, len);
	close(fd);
	return ret;
}

static void elf_version_once(void)
{
	elf_version(EV_CURRENT);
}

void buildid_elf_version(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, elf_version_once);
}

int buildid_read_fd(int fd, uint8_t *buf, size_t len)
{
	buildid_elf_version();
	return read_and_end(elf_begin(fd, ELF_C_READ_MMAP, NULL), buf, len);
}

/* Each note: namesz, descsz, type (4 bytes each), then the name and the
 * descriptor, each padded to 4 bytes. */
int buildid_read_notes(const char *path, uint8_t *buf, size_t len)
{
	unsigned char data[4096];
	size_t size = 0, off = 0;
	ssize_t n;
	int fd;

	if (!buf && len)
		return -PROF_EINVAL;
	fd = regfile_open(path ? path : "/sys/kernel/notes", NULL);
	if (fd < 0)
		return -PROF_EIO;
	while (size < sizeof(data) &&
	       (n = read(fd, data + size, sizeof(data) - size)) > 0)
		size += (size_t)n;
	close(fd);
	while (size - off >= 12) {
		uint32_t namesz, descsz, type;
		size_t name, desc, next;

		memcpy(&namesz, data + off, 4);
		memcpy(&descsz, data + off + 4, 4);
		memcpy(&type, data + off + 8, 4);
		name = off + 12;
		desc = name + ((namesz + 3u) & ~(size_t)3);
		next = desc + ((descsz + 3u) & ~(size_t)3);
		if (namesz > size || descsz > size || next > size)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(data + name, "GNU", 4) && descsz) {
			size_t k = descsz < len ? descsz : len;

			memcpy(buf, data + desc, k);
			return (int)k;
		}
		off = next;
	}
	return 0;
}

char *buildid_debug_path(const char *root, const uint8_t *id, size_t len)
{
	size_t n = strlen(root) + 2 * len + 32, i;
	char *path;
	int off;

	if (len < 2 || !(path = malloc(n)))
		return NULL;
	off = snprintf(path, n, "%s%s.build-id/%02x/", root, *root ? "/" : "",
		       id[0]);
	for (i = 1; i < len; i++)
		off += snprintf(path + off, n - (size_t)off, "%02x", id[i]);
	snprintf(path + off, n - (size_t)off, ".debug");
	return path;
}
