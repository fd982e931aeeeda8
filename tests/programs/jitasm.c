/*
 * jitasm - a tiny "JIT" whose jitdump carries its code's bytes and
 * source lines, as node --perf-prof's and the JVM agents' do.
 *
 * Usage: jitasm [MILLISECONDS [hostile|twice]]   (default 1000, CPU time)
 *
 * Guarantees (x86-64 only; elsewhere it says so and exits with 2):
 *  - one piece of generated code, "jit_sum", in anonymous executable
 *    memory: the bytes of code[] below, a loop (offsets 0x5 to 0x18) run
 *    for MILLISECONDS of thread CPU time, > 90% of the process's;
 *  - ./jit-PID.dump, mapped read+exec as runtimes do, holds a debug
 *    record, then the load of jit_sum with its bytes.  The debug record's
 *    entries (address: file, line): +0x0 /synthetic/gen.src:10,
 *    +0x5 "\xff" (the previous file):11, +0x10 /synthetic/gen.src:12,
 *    +0x18 /synthetic/other.src:40;
 *  - ./code.bin holds the code's bytes, and "ADDRESS" (hexadecimal, no
 *    0x) is printed on a line before the code runs;
 *  - with "hostile": the debug record claims more entries than it holds
 *    (so jit_sum has no lines), a load's code size runs past its record,
 *    and the file ends in a record cut short (its header says 4096
 *    bytes).  jit_sum is named and its bytes are there all the same;
 *  - with "twice": a second copy of the code, 0x800 bytes further, is
 *    loaded under the same name (as a runtime compiles a function
 *    again), without debug record, and the two run in turn.
 *  Exit status 0.  The files are left behind.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
/*
 *  0: mov rax, rdi          3: xor edx, edx
 *  5: lea rcx, [rax+rax*2]  9: add rdx, rcx
 *  c: shl rcx, 3           10: xor rdx, rcx
 * 13: dec rax              16: jne 5
 * 18: mov rax, rdx         1b: ret
 */
static const unsigned char code[] = {
	0x48, 0x89, 0xf8, 0x31, 0xd2, 0x48, 0x8d, 0x0c, 0x40, 0x48, 0x01,
	0xca, 0x48, 0xc1, 0xe1, 0x03, 0x48, 0x31, 0xca, 0x48, 0xff, 0xc8,
	0x75, 0xed, 0x48, 0x89, 0xd0, 0xc3,
};

typedef uint64_t (*sum_fn)(uint64_t n);

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void put(FILE *f, const void *p, size_t n)
{
	fwrite(p, 1, n, f);
}

static void rec_head(FILE *f, uint32_t id, uint32_t size)
{
	uint64_t ts = 0;

	put(f, &id, 4);
	put(f, &size, 4);
	put(f, &ts, 8);
}

/* One debug entry: address, line, discriminator 0, file. */
static size_t entry(FILE *f, uint64_t addr, uint32_t line, const char *file)
{
	uint32_t discrim = 0;
	size_t n = strlen(file) + 1;

	if (f) {
		put(f, &addr, 8);
		put(f, &line, 4);
		put(f, &discrim, 4);
		put(f, file, n);
	}
	return 16 + n;
}

static size_t entries(FILE *f, uint64_t a)
{
	return entry(f, a, 10, "/synthetic/gen.src") +
	       entry(f, a + 5, 11, "\xff") +
	       entry(f, a + 0x10, 12, "/synthetic/gen.src") +
	       entry(f, a + 0x18, 40, "/synthetic/other.src");
}

static void rec_debug(FILE *f, uint64_t addr, int hostile)
{
	uint64_t v[2] = { addr, hostile ? 1000000 : 4 };

	rec_head(f, 2, (uint32_t)(16 + 16 + entries(NULL, addr)));
	put(f, v, 16);
	entries(f, addr);
}

static void rec_load(FILE *f, uint64_t addr, uint64_t size, uint64_t claim,
		     const char *name)
{
	uint32_t pt[2] = { (uint32_t)getpid(), (uint32_t)getpid() };
	uint64_t v[4] = { addr, addr, claim, 0 };
	size_t nlen = strlen(name) + 1;

	rec_head(f, 0, (uint32_t)(16 + 8 + 32 + nlen + size));
	put(f, pt, 8);
	put(f, v, 32);
	put(f, name, nlen);
	put(f, (const void *)(uintptr_t)addr, size);
}

static void write_files(unsigned char *mem, int hostile, int twice)
{
	uint32_t h[6] = { 0x4A695444, 1, 40, 62, 0, (uint32_t)getpid() };
	uint64_t h2[2] = { 0, 0 };
	long page = sysconf(_SC_PAGESIZE);
	char path[64];
	FILE *f = fopen("code.bin", "w");

	if (!f || fwrite(code, 1, sizeof(code), f) != sizeof(code) ||
	    fclose(f)) {
		perror("code.bin");
		exit(1);
	}
	snprintf(path, sizeof(path), "jit-%d.dump", (int)getpid());
	f = fopen(path, "w+");
	if (!f) {
		perror(path);
		exit(1);
	}
	put(f, h, 24);
	put(f, h2, 16);
	rec_debug(f, (uintptr_t)mem, hostile);
	rec_load(f, (uintptr_t)mem, sizeof(code), sizeof(code), "jit_sum");
	if (twice)
		rec_load(f, (uintptr_t)mem + 0x800, sizeof(code), sizeof(code),
			 "jit_sum");
	if (hostile) {
		rec_load(f, (uintptr_t)mem + 256, 4, 4096, "jit_oversized");
		rec_head(f, 0, 4096);
	}
	if (fflush(f) || mmap(NULL, (size_t)page, PROT_READ | PROT_EXEC,
			      MAP_PRIVATE, fileno(f), 0) == MAP_FAILED) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	unsigned ms = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000;
	int hostile = argc > 2 && !strcmp(argv[2], "hostile");
	int twice = argc > 2 && !strcmp(argv[2], "twice");
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *mem = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t end, sink = 0;

	if (mem == MAP_FAILED) {
		perror("jitasm: mmap");
		return 1;
	}
	memcpy(mem, code, sizeof(code));
	memcpy(mem + 0x800, code, sizeof(code));
	if (mprotect(mem, (size_t)page, PROT_READ | PROT_EXEC)) {
		perror("jitasm: mprotect");
		return 1;
	}
	write_files(mem, hostile, twice);
	printf("%lx\n", (unsigned long)(uintptr_t)mem);
	fflush(stdout);
	end = cpu_ns() + ms * 1000000ull;
	while (cpu_ns() < end) {
		sink += ((sum_fn)(uintptr_t)mem)(200000);
		if (twice)
			sink += ((sum_fn)(uintptr_t)(mem + 0x800))(200000);
	}
	return sink == 1;	/* never: keeps the calls */
}
#else
int main(void)
{
	fputs("jitasm: x86-64 only\n", stderr);
	return 2;
}
#endif
