/*
 * jitspin - a tiny "JIT": machine code copied into anonymous executable
 * memory and named in a perf map, as node --perf-basic-prof does.
 *
 * Usage: jitspin [MILLISECONDS [fork|wait|dump]]   (default 1000, CPU time)
 *
 * Guarantees:
 *  - two pieces of generated code, jit_hot at the start of an anonymous
 *    mapping and jit_warm 256 bytes further: a countdown loop each;
 *    main alternates jit_hot for 3 ms and jit_warm for 1 ms of thread CPU
 *    time, so they take 75% and 25% of the time spent in generated code,
 *    which is > 90% of the process's.
 *  - /tmp/perf-PID.map is written before the code runs: first a stale
 *    entry "jit_stale" over the same bytes as jit_hot (a later line
 *    wins), a line that is not "START SIZE NAME", then "jit_hot" and
 *    "jit_warm" (in hexadecimal, as V8 writes them).
 *  - with "fork": a child does the same work with its own mapping and
 *    map, naming its code jit_child_hot and jit_child_warm; the parent
 *    waits for it.  Exit status 0; prints nothing.  The maps are left
 *    behind, as runtimes leave them.
 *  - with "wait": no map is written; "PID ADDRESS" (decimal, hexadecimal
 *    of jit_hot; jit_warm is 0x100 further) is printed on a line, then
 *    the program waits until a file "go" exists in the current directory
 *    before it runs (a test plants the map meanwhile).
 *  - with "dump": no perf map; the names are in a jitdump file instead,
 *    ./jit-PID.dump, mapped read+exec as runtimes do (node --perf-prof).
 *    Its records, in order: a load of "jit_stale" over jit_hot's bytes;
 *    a debug-info record; a load of jit_hot 512 bytes further, with its
 *    code, then a move of it (its index) to jit_hot's place; a load of
 *    jit_warm; a move of an index never loaded; a record of an unknown
 *    type; a close; after the close, a load of "jit_after_close" over
 *    jit_warm (not to be read).  The file is left behind.  With
 *    JITSPIN_WAIT set, the program then waits until a file "go" exists
 *    in its current directory before it runs (a test moves things
 *    meanwhile).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef void (*loop_fn)(uint64_t n);

#if defined(__x86_64__)
/* dec %rdi; jne .-3; ret */
static const unsigned char loop_code[] = { 0x48, 0xff, 0xcf, 0x75, 0xfb,
					   0xc3 };
#elif defined(__aarch64__)
/* subs x0, x0, #1; b.ne .-4; ret */
static const uint32_t loop_code[] = { 0xf1000400, 0x54ffffe1, 0xd65f03c0 };
#else
#error "jitspin: no loop for this architecture"
#endif

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void run_for(loop_fn f, unsigned ms)
{
	uint64_t end = cpu_ns() + ms * 1000000ull;

	while (cpu_ns() < end)
		f(200000);
}

/* jitdump records (perf's jitdump-specification.txt), host byte order. */
static void rec_head(FILE *f, uint32_t id, uint32_t size)
{
	uint64_t ts = 0;

	fwrite(&id, 4, 1, f);
	fwrite(&size, 4, 1, f);
	fwrite(&ts, 8, 1, f);
}

static void rec_load(FILE *f, uint64_t addr, uint64_t size, uint64_t index,
		     const char *name)
{
	uint32_t pt[2] = { (uint32_t)getpid(), (uint32_t)getpid() };
	uint64_t v[4] = { addr, addr, size, index };
	size_t nlen = strlen(name) + 1;

	rec_head(f, 0, (uint32_t)(16 + 8 + 32 + nlen + size));
	fwrite(pt, 4, 2, f);
	fwrite(v, 8, 4, f);
	fwrite(name, 1, nlen, f);
	fwrite((const void *)(uintptr_t)addr, 1, size, f);
}

static void rec_move(FILE *f, uint64_t from, uint64_t to, uint64_t size,
		     uint64_t index)
{
	uint32_t pt[2] = { (uint32_t)getpid(), (uint32_t)getpid() };
	uint64_t v[5] = { to, from, to, size, index };

	rec_head(f, 1, 16 + 8 + 40);
	fwrite(pt, 4, 2, f);
	fwrite(v, 8, 5, f);
}

static void write_jitdump(unsigned char *code)
{
	char path[64];
	uint32_t h[6] = { 0x4A695444, 1, 40, 0, 0, (uint32_t)getpid() };
	uint64_t h2[2] = { 0, 0 }, dbg[2];
	FILE *f;
	long page = sysconf(_SC_PAGESIZE);

#if defined(__x86_64__)
	h[3] = 62;	/* EM_X86_64 */
#else
	h[3] = 183;	/* EM_AARCH64 */
#endif
	snprintf(path, sizeof(path), "jit-%d.dump", (int)getpid());
	f = fopen(path, "w+");
	if (!f) {
		perror(path);
		exit(1);
	}
	fwrite(h, 4, 6, f);
	fwrite(h2, 8, 2, f);
	rec_load(f, (uintptr_t)code, 40, 0, "jit_stale");
	dbg[0] = (uintptr_t)code;	/* code_addr, no entries */
	dbg[1] = 0;
	rec_head(f, 2, 32);
	fwrite(dbg, 8, 2, f);
	rec_load(f, (uintptr_t)(code + 512), sizeof(loop_code), 1, "jit_hot");
	rec_move(f, (uintptr_t)(code + 512), (uintptr_t)code,
		 sizeof(loop_code), 1);
	rec_load(f, (uintptr_t)(code + 256), sizeof(loop_code), 2,
		 "jit_warm");
	rec_move(f, (uintptr_t)code, (uintptr_t)(code + 128), 8, 77);
	rec_head(f, 99, 24);
	fwrite(dbg, 8, 1, f);
	rec_head(f, 3, 16);	/* close */
	rec_load(f, (uintptr_t)(code + 256), sizeof(loop_code), 3,
		 "jit_after_close");
	if (fflush(f) || mmap(NULL, (size_t)page, PROT_READ | PROT_EXEC,
			      MAP_PRIVATE, fileno(f), 0) == MAP_FAILED) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

static void work(unsigned ms, const char *hot, const char *warm, int mode)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *code = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[64];
	FILE *map;

	if (code == MAP_FAILED) {
		perror("jitspin: mmap");
		exit(1);
	}
	memcpy(code, loop_code, sizeof(loop_code));
	memcpy(code + 256, loop_code, sizeof(loop_code));
	/* where "dump" loads jit_hot before it moves */
	memcpy(code + 512, loop_code, sizeof(loop_code));
	if (mprotect(code, (size_t)page, PROT_READ | PROT_EXEC)) {
		perror("jitspin: mprotect");
		exit(1);
	}
	__builtin___clear_cache((char *)code, (char *)code + page);
	if (mode == 2) {
		write_jitdump(code);
		while (getenv("JITSPIN_WAIT") && access("go", F_OK))
			usleep(10000);
		goto run;
	}
	if (mode == 1) {
		printf("%d %lx\n", (int)getpid(), (unsigned long)code);
		fflush(stdout);
		while (access("go", F_OK))
			usleep(10000);
		goto run;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	map = fopen(path, "w");
	if (!map) {
		perror(path);
		exit(1);
	}
	fprintf(map, "%lx 40 jit_stale\n", (unsigned long)code);
	fprintf(map, "not a map line\n");
	fprintf(map, "%lx %zx %s\n", (unsigned long)code, sizeof(loop_code),
		hot);
	fprintf(map, "%lx %zx %s\n", (unsigned long)(code + 256),
		sizeof(loop_code), warm);
	if (fclose(map)) {
		perror(path);
		exit(1);
	}
run:
	for (unsigned i = 0; i < (ms / 4 ? ms / 4 : 1); i++) {
		run_for((loop_fn)(uintptr_t)code, 3);
		run_for((loop_fn)(uintptr_t)(code + 256), 1);
	}
}

int main(int argc, char **argv)
{
	unsigned ms = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000;
	pid_t child = -1;
	int status;

	if (argc > 2 && !strcmp(argv[2], "fork")) {
		child = fork();
		if (child < 0) {
			perror("jitspin: fork");
			return 1;
		}
		if (child == 0) {
			work(ms, "jit_child_hot", "jit_child_warm", 0);
			return 0;
		}
	}
	work(ms, "jit_hot", "jit_warm",
	     argc < 3 ? 0 : !strcmp(argv[2], "wait") ? 1 :
	     !strcmp(argv[2], "dump") ? 2 : 0);
	if (child > 0 && (waitpid(child, &status, 0) != child ||
			  !WIFEXITED(status) || WEXITSTATUS(status)))
		return 1;
	return 0;
}
