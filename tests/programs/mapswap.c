/*
 * mapswap - a profiled process that tries to make its profiler read
 * another file than the one it mapped (tests/1768-hostile-files.bats).
 *
 * Usage: mapswap FILE TARGET MILLISECONDS swap|overmount
 *
 * Creates FILE, two pages each starting with a counted loop (x86-64
 * code), maps them readable and executable, and makes FILE's path lead
 * to TARGET, an absolute path (a profiler that resolves a container's
 * link against its own root reaches its own file of that name):
 *  - swap: after mapping, renames a symbolic link to TARGET over FILE
 *    (a profiled user replacing its own library after the run read it);
 *  - overmount (root in its own mount namespace: a container): opens
 *    FILE, mounts a tmpfs over FILE's directory holding a link FILE ->
 *    TARGET, then maps the file's two pages one at a time, side by side,
 *    so that the kernel merges them into one mapping: the second mmap
 *    record's range is no mapping's (no map_files entry has it), and
 *    FILE's path, which the record names, is the link.
 * With MAPSWAP_GO=PATH in the environment it first waits until PATH
 * exists (a profiler attached with -p meanwhile), a minute at most.  Then it runs the
 * mapped loop for MILLISECONDS of CPU time (samples in
 * FILE's mapping make it an object the profile keeps), alive while the
 * profiler reads its ring, and exits 0.  Static, so that it runs in a
 * bare chroot.
 */
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* mov %rdi,%rax; 1: sub $1,%rax; jnz 1b; ret */
static const unsigned char loop[] = {
	0x48, 0x89, 0xf8, 0x48, 0x83, 0xe8, 0x01, 0x75, 0xfa, 0xc3,
};

static char *mapped;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int die(const char *what)
{
	perror(what);
	return 1;
}

/* FILE: two pages, each starting with the loop. */
static int create(const char *file, long page)
{
	char *buf = calloc(2, (size_t)page);
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0755), ok;

	if (fd < 0 || !buf)
		return die(file);
	memcpy(buf, loop, sizeof(loop));
	memcpy(buf + page, loop, sizeof(loop));
	ok = write(fd, buf, (size_t)(2 * page)) == 2 * page;
	free(buf);
	if (close(fd) || !ok)
		return die(file);
	return 0;
}

/* The file's two pages, mapped side by side in two calls. */
static int overmount(const char *file, const char *target, long page)
{
	char dir[4096];
	char *m;
	int fd = open(file, O_RDONLY);

	snprintf(dir, sizeof(dir), "%s", file);
	if (fd < 0)
		return die(file);
	if (mount("none", dirname(dir), "tmpfs", 0, NULL))
		return die("mount");
	if (symlink(target, file))
		return die("symlink");
	m = mmap(NULL, (size_t)(2 * page), PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED ||
	    mmap(m, (size_t)page, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED ||
	    mmap(m + page, (size_t)page, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_FIXED, fd, page) == MAP_FAILED)
		return die("mmap");
	close(fd);
	mapped = m;
	return 0;
}

static int swap(const char *file, const char *target, long page)
{
	char tmp[4096];
	int fd = open(file, O_RDONLY);

	if (fd < 0)
		return die(file);
	mapped = mmap(NULL, (size_t)(2 * page), PROT_READ | PROT_EXEC,
		      MAP_PRIVATE, fd, 0);
	if (mapped == MAP_FAILED)
		return die("mmap");
	close(fd);
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	unlink(tmp);
	if (symlink(target, tmp) || rename(tmp, file))
		return die("symlink");
	return 0;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t (*run)(uint64_t);
	uint64_t end;
	int r;

	if (argc != 5) {
		fprintf(stderr, "usage: mapswap FILE TARGET MS "
			"swap|overmount\n");
		return 2;
	}
	if (create(argv[1], page))
		return 1;
	/* (at most a minute: a test that failed never says go) */
	for (int i = 0; getenv("MAPSWAP_GO") && i < 6000 &&
	     access(getenv("MAPSWAP_GO"), F_OK); i++)
		usleep(10000);
	r = !strcmp(argv[4], "overmount") ? overmount(argv[1], argv[2], page) :
	    swap(argv[1], argv[2], page);
	if (r)
		return r;
	run = (uint64_t (*)(uint64_t))(void *)(mapped + page);
	end = cpu_ns() + strtoull(argv[3], NULL, 10) * 1000000ull;
	while (cpu_ns() < end)
		run(100000);
	return 0;
}
