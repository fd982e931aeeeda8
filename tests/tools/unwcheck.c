/* SPDX-License-Identifier: MIT */
/*
 * unwcheck: the unwinder (common/unwind/) on stacks whose shape is known,
 * without sampling: the program takes a snapshot of its own registers and
 * stack, the way PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER carry
 * them, and walks it with unw_step(), printing one frame per line (the
 * function dladdr() names) and how the walk ended.
 *
 *   unwcheck MODE WHERE [SIZE]
 *     MODE  dwarf | auto
 *     WHERE plain    main -> a -> b -> c -> snapshot
 *           signal   main -> d -> raise -> (SIGUSR1) handler -> snapshot
 *           qsort    main -> qsort (libc) -> compare -> snapshot
 *           nocfi    main -> nocfi (no CFI, frame pointer) -> c -> snapshot
 *     SIZE  bytes of stack copied (default 32768)
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/unwind/unwind.h"

static uint64_t regs[17];	/* perf order: AX BX CX DX SI DI BP SP IP
				 * R8-R15 (unw_perf_regs_mask()) */
static uint8_t stack_copy[65536];
static size_t stack_len = 32768;
static int fp_fallback;
static int taken;

/* The kernel's copy: other frames' bytes, which a sanitizer would call
 * out of bounds. */
__attribute__((no_sanitize_address)) static void copy_stack(uint64_t sp,
							    size_t len)
{
	const volatile uint8_t *p = (const volatile uint8_t *)(uintptr_t)sp;
	size_t i;

	for (i = 0; i < len; i++)
		stack_copy[i] = p[i];
}

/* The registers the snapshot's PC needs: rsp, rbp, the callee-saved. */
void snapshot(void);
void c(void);
void b(void);
void a(void);
void d(void);
__attribute__((noinline)) void snapshot(void)
{
	uint64_t r[8];
	uint64_t top;
	FILE *f;
	char line[512];

	__asm__ volatile(
		"lea 1f(%%rip), %%rax\n\t"
		"mov %%rax, 0(%0)\n\t"
		"mov %%rsp, 8(%0)\n\t"
		"mov %%rbp, 16(%0)\n\t"
		"mov %%rbx, 24(%0)\n\t"
		"mov %%r12, 32(%0)\n\t"
		"mov %%r13, 40(%0)\n\t"
		"mov %%r14, 48(%0)\n\t"
		"mov %%r15, 56(%0)\n"
		"1:"
		: : "r"(r) : "rax", "memory");
	regs[8] = r[0];
	regs[7] = r[1];
	regs[6] = r[2];
	regs[1] = r[3];
	/* R12-R15 are perf bits 20-23: entries 12-15 of the 17 kept. */
	regs[13] = r[4];
	regs[14] = r[5];
	regs[15] = r[6];
	regs[16] = r[7];
	/* Copy up to the top of the stack mapping, like the kernel. */
	top = r[1] + stack_len;
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		uint64_t lo, hi;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &lo, &hi) == 2 &&
		    r[1] >= lo && r[1] < hi && hi - r[1] < stack_len)
			top = hi;
	}
	if (f)
		fclose(f);
	stack_len = (size_t)(top - r[1]);
	copy_stack(r[1], stack_len);
	taken = 1;
}

__attribute__((noinline)) void c(void) { snapshot(); __asm__ volatile(""); }
__attribute__((noinline)) void b(void) { c(); __asm__ volatile(""); }
__attribute__((noinline)) void a(void) { b(); __asm__ volatile(""); }

void handler(int sig);
void handler(int sig)
{
	(void)sig;
	snapshot();
}

__attribute__((noinline)) void d(void)
{
	raise(SIGUSR1);
	__asm__ volatile("");
}

int compare(const void *x, const void *y);
int compare(const void *x, const void *y)
{
	if (!taken)
		snapshot();
	return *(const int *)x - *(const int *)y;
}

/* A function without CFI that keeps a frame pointer, calling c(). */
void nocfi(void);
__asm__(".text\n"
	".globl nocfi\n"
	".type nocfi, @function\n"
	"nocfi:\n\t"
	"push %rbp\n\t"
	"mov %rsp, %rbp\n\t"
	"call c\n\t"
	"pop %rbp\n\t"
	"ret\n"
	".size nocfi, .-nocfi\n");

/* ---- walking the snapshot --------------------------------------------- */

struct obj {
	char path[256];
	struct unw_object *unw;
};
static struct obj objs[64];
static size_t nobjs;

/* The file offset of pc and its object, from /proc/self/maps. */
static struct unw_object *object_of(uint64_t pc, uint64_t *off)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], path[256];
	struct unw_object *o = NULL;
	size_t i;

	while (f && fgets(line, sizeof(line), f)) {
		uint64_t lo, hi, pg;

		path[0] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64
			   " %*s %*s %255s", &lo, &hi, &pg, path) < 3 ||
		    pc < lo || pc >= hi || path[0] != '/')
			continue;
		*off = pc - lo + pg;
		for (i = 0; i < nobjs; i++)
			if (!strcmp(objs[i].path, path))
				break;
		if (i == nobjs && nobjs < 64) {
			snprintf(objs[i].path, sizeof(objs[i].path), "%s",
				 path);
			objs[i].unw = unw_object_open(path, -1);
			nobjs++;
		}
		o = i < nobjs ? objs[i].unw : NULL;
		break;
	}
	if (f)
		fclose(f);
	return o;
}

static void walk(void)
{
	static const char *const result[] = {
		"stepped", "end", "truncated: stack copy",
		"truncated: no CFI", "truncated: bad step",
		"truncated: stack switch",
	};
	struct unw_state st;
	enum unw_result r = UNW_TRUNC_BAD;
	int depth;

	if (unw_init(&st, regs, unw_perf_regs_mask(), stack_copy,
		     stack_len)) {
		printf("init failed\n");
		return;
	}
	for (depth = 0; depth < UNW_MAX_FRAMES; depth++) {
		uint64_t pc = st.r[UNW_REG_IP], look = st.exact ? pc : pc - 1;
		uint64_t off = 0, vaddr = 0;
		struct unw_object *o = object_of(look, &off);
		Dl_info di;

		if (dladdr((void *)(uintptr_t)look, &di) && di.dli_sname)
			printf("%s\n", di.dli_sname);
		else
			printf("?\n");
		if (o && unw_object_vaddr(o, off, &vaddr))
			o = NULL;
		r = unw_step(&st, o, vaddr, fp_fallback);
		if (r != UNW_STEPPED)
			break;
	}
	printf("= %s\n", result[r]);
}

int main(int argc, char **argv)
{
	int v[64], i;

	if (argc < 3) {
		fprintf(stderr, "usage: unwcheck dwarf|auto "
			"plain|signal|qsort|nocfi [SIZE]\n");
		return 2;
	}
	fp_fallback = !strcmp(argv[1], "auto");
	if (argc > 3)
		stack_len = (size_t)strtoul(argv[3], NULL, 0);
	if (stack_len > sizeof(stack_copy))
		stack_len = sizeof(stack_copy);
	if (!strcmp(argv[2], "plain")) {
		a();
	} else if (!strcmp(argv[2], "signal")) {
		signal(SIGUSR1, handler);
		d();
	} else if (!strcmp(argv[2], "qsort")) {
		for (i = 0; i < 64; i++)
			v[i] = (i * 37) % 64;
		qsort(v, 64, sizeof(*v), compare);
	} else if (!strcmp(argv[2], "nocfi")) {
		nocfi();
	} else {
		fprintf(stderr, "unwcheck: unknown case '%s'\n", argv[2]);
		return 2;
	}
	walk();
	return 0;
}
