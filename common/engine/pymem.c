/* SPDX-License-Identifier: MIT */
/*
 * Reading a CPython's memory from outside it (pyframes_int.h): a read
 * that tells a process gone from an address it does not map, words of
 * what was read, pointers that may be followed.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pyframes_int.h"
#include "bpf/sample_bpf.h"
#include "common/util/bytes.h"
#include "common/util/error.h"

/* Whether pid is gone: no /proc entry, or a zombie that has no memory. */
bool py_process_gone(pid_t pid)
{
	char path[64], buf[512], *rp;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	return !rp || rp[1] != ' ' || rp[2] == 'Z' || rp[2] == 'X';
}

void py_snap_set(struct py_proc *p)
{
	const struct py_stack_copy *c = p->copy;

	p->nsnap = c && c->frames ?
		   perf_bpf_regions(c->frames, c->frames_len, SBPF_MAGIC,
				    p->snap, PY_SNAP_REGIONS) : 0;
}

void py_snap_clear(struct py_proc *p)
{
	p->nsnap = 0;
}

const uint8_t *py_snap_find(const struct py_proc *p, uint64_t addr,
			    size_t len)
{
	size_t i;

	for (i = 0; i < p->nsnap; i++) {
		const struct perf_bpf_region *r = &p->snap[i];

		if (addr >= r->addr && addr - r->addr <= r->len &&
		    len <= r->len - (addr - r->addr))
			return r->data + (addr - r->addr);
	}
	return NULL;
}

/*
 * len bytes of the process at addr into buf: 0, or -PROF_EFORMAT
 * ("cannot read WHAT at ADDR"; a NULL, an address no mapping holds, a
 * read cut short), -PROF_ENOENT when the process has exited,
 * -PROF_EPERM when the kernel refuses.
 */
int py_mem_read(struct py_proc *p, uint64_t addr, void *buf, size_t len,
	      const char *what)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	const uint8_t *snap = py_snap_find(p, addr, len);
	ssize_t got;
	int err;

	if (snap) {
		memcpy(buf, snap, len);
		return 0;
	}
	if (p->copy_only)
		return prof_fail(PROF_EFORMAT, "%s at %#" PRIx64 ": not in "
				 "the sample's copy, and the sample is too old "
				 "to read it from the process", what, addr);
	if (p->exited)
		return prof_fail(PROF_ENOENT, "process %d has exited",
				 (int)p->info.pid);
	if (!addr || addr + len < addr)
		return prof_fail(PROF_EFORMAT, "%s at %#" PRIx64 ": not an "
				 "address", what, addr);
	got = process_vm_readv(p->info.pid, &local, 1, &remote, 1, 0);
	if (got == (ssize_t)len)
		return 0;
	err = got < 0 ? errno : EFAULT;
	if (err == ESRCH || py_process_gone(p->info.pid)) {
		p->exited = true;
		return prof_fail(PROF_ENOENT, "process %d has exited",
				 (int)p->info.pid);
	}
	if (err == EPERM || err == EACCES)
		return prof_fail(PROF_EPERM, "cannot read the memory of "
				 "process %d: %s", (int)p->info.pid,
				 strerror(err));
	if (err == ENOMEM)
		return -PROF_ENOMEM;
	return prof_fail(PROF_EFORMAT, "cannot read %s at %#" PRIx64 "%s",
			 what, addr, got >= 0 ? " (cut short)" : "");
}

/* The n-byte (1, 4 or 8) little-endian word at off of buf's len bytes;
 * 0 past the end (never: what is read of a struct is sized to hold the
 * fields used, py_set_extents()). */
uint64_t py_word(const uint8_t *buf, size_t len, uint32_t off,
		     unsigned n)
{
	struct bytes b = bytes_of(buf, len);

	bytes_skip(&b, off);
	return bytes_u(&b, n);
}

/* Whether addr may be a pointer to a struct of the process: not NULL,
 * aligned, below the end of x86-64's user space (5-level paging's). */
bool py_ptr_ok(uint64_t addr)
{
	return addr && !(addr & 7) && addr < (1ULL << 56);
}

bool py_refs_live(const uint8_t *hb, size_t len)
{
	uint64_t refs = py_word(hb, len, 0, 8);

	return refs && !(refs >> 32);
}
