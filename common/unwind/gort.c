/* SPDX-License-Identifier: MIT */
/*
 * The Go runtime's stack switches, for the walk (amd64).  A Go program
 * runs each goroutine on a stack of its own and the runtime's work on
 * the thread's (g0's, or gsignal's in a signal handler).  The functions
 * that go from one to the other write the stack pointer, which Go's CFI
 * (made from its SP-delta tables) cannot describe; the runtime's own
 * traceback stops at them (its SPWRITE flag) or finds the way back in
 * its structures (g.sched, m.curg), which a stack copy does not hold.
 * Here, as there:
 *
 * - goexit (where a goroutine's first function returns to), mstart (a
 *   thread's first Go function) and rt0_go (the process's) are entries:
 *   the walk is complete there, never reading the stale words above
 *   them;
 * - systemstack, mcall, morestack, gogo, asmcgocall are switches: their
 *   caller is on the other stack at an address only the runtime's
 *   structures keep, so the walk ends there, truncated: reading on by
 *   their CFI would take the g0 stack's stale words for callers;
 * - nanotime1 and time.now call the vDSO on g0 too, but keep their own
 *   stack pointer in r12 (callee-saved in C) right after their prologue
 *   (sub $N,%rsp; frame pointer saved; mov %rsp,%r12): their caller is
 *   at r12 + N, wherever the stack pointer went, and the walk follows it
 *   if that stack is in the copy;
 * - the signal handlers' sa_restorer (sigreturn) is where sigtramp
 *   returns to, an address pushed by the kernel, not a call's: it is
 *   looked up as is, and the step from it reads the interrupted context
 *   from the kernel's signal frame above it (ucontext, then sigcontext).
 *
 * The functions are found by name in .symtab (Go 1.17 and later name an
 * assembly function of ABI0 NAME.abi0, and its ABIInternal wrapper, if
 * any, NAME); the vDSO callers' prologue and the restorer's code are
 * checked before they are trusted.  A Go program without .symtab is
 * walked like any other.
 */
#include <stdlib.h>
#include <unistd.h>

#include "common/util/regfile.h"
#include "unwind_int.h"

/* Bounds of what is read: .symtab's entries at a time, .strtab. */
#define SYM_CHUNK 1024
#define STRTAB_MAX (128u << 20)

static const struct {
	const char *name;
	uint8_t kind;
} go_funcs[] = {
	{ "runtime.goexit", GO_TOP },
	{ "runtime.mstart", GO_TOP },
	{ "runtime.rt0_go", GO_TOP },
	{ "runtime.systemstack", GO_SWITCH },
	{ "runtime.mcall", GO_SWITCH },
	{ "runtime.morestack", GO_SWITCH },
	{ "runtime.morestack_noctxt", GO_SWITCH },
	{ "runtime.gogo", GO_SWITCH },
	{ "runtime.asmcgocall", GO_SWITCH },
	{ "runtime.asmcgocall_no_g", GO_SWITCH },
	{ "runtime.nanotime1", GO_VDSO },
	{ "runtime.walltime", GO_VDSO },
	{ "runtime.walltime1", GO_VDSO },
	{ "time.now", GO_VDSO },
	{ "runtime.sigreturn", GO_SIGRETURN },
	{ "runtime.sigreturn__sigaction", GO_SIGRETURN },
};

/* x86-64 sigcontext's registers, in its order, as DWARF numbers: r8-r15,
 * rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip. */
static const uint8_t sigcontext_regs[17] = {
	8, 9, 10, 11, 12, 13, 14, 15, 5, 4, 6, 3, 1, 0, 2, 7, 16,
};
/* Where sigcontext lies in the ucontext the restorer's stack pointer
 * points to: after uc_flags, uc_link and uc_stack. */
#define UC_MCONTEXT 40

#define R12 12

static int is_go(const Elf64_Shdr *sh, size_t nsh, const char *names,
		 size_t names_len)
{
	size_t i;

	for (i = 0; i < nsh; i++) {
		const char *s = sh[i].sh_name < names_len ?
				names + sh[i].sh_name : "";

		if (!strcmp(s, ".gopclntab") || !strcmp(s, ".go.buildinfo") ||
		    !strcmp(s, ".note.go.buildid") ||
		    !strcmp(s, ".data.rel.ro.gopclntab"))
			return 1;
	}
	return 0;
}

/* Up to len bytes of code at link-time address v (fewer at a section's
 * end); the number read, 0 for none. */
static size_t code_at(int fd, const Elf64_Shdr *sh, size_t nsh, uint64_t v,
		      uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 0; i < nsh; i++) {
		const Elf64_Shdr *s = &sh[i];
		uint64_t left;

		if (s->sh_type != SHT_PROGBITS ||
		    !(s->sh_flags & SHF_EXECINSTR) || v < s->sh_addr ||
		    v - s->sh_addr >= s->sh_size)
			continue;
		left = s->sh_size - (v - s->sh_addr);
		if (left < len)
			len = (size_t)left;
		return regfile_pread(fd, buf, len, s->sh_offset + (v - s->sh_addr)) ?
		       0 : len;
	}
	return 0;
}

/* An rsp-relative operand of the prologue: disp8 (0x44 0x24, ModRM mod
 * 01) or disp32 (mod 10) for register rbp; its displacement in *disp and
 * its length, 0 when it is not one. */
static size_t rsp_disp(const uint8_t *b, size_t left, uint32_t *disp)
{
	if (left >= 3 && b[0] == 0x6c && b[1] == 0x24) {
		*disp = b[2];
		return 3;
	}
	if (left >= 6 && b[0] == 0xac && b[1] == 0x24) {
		memcpy(disp, b + 2, 4);
		return 6;
	}
	return 0;
}

/*
 * A vDSO caller's prologue: sub $N,%rsp; mov %rbp,N-8(%rsp);
 * lea N-8(%rsp),%rbp; mov %rsp,%r12.  Fills the frame size and the
 * offset past the last; 0 when the code is not this.
 */
static int vdso_prologue(struct go_fn *f, const uint8_t *b, size_t len)
{
	size_t k, n;
	uint32_t frame, disp;

	if (len >= 4 && !memcmp(b, "\x48\x83\xec", 3)) {
		frame = b[3];
		k = 4;
	} else if (len >= 7 && !memcmp(b, "\x48\x81\xec", 3)) {
		memcpy(&frame, b + 3, 4);
		k = 7;
	} else {
		return 0;
	}
	if (frame < 8 || frame > (1u << 20))
		return 0;
	/* mov %rbp,disp(%rsp) */
	if (k + 2 > len || b[k] != 0x48 || b[k + 1] != 0x89 ||
	    !(n = rsp_disp(b + k + 2, len - k - 2, &disp)) ||
	    disp != frame - 8)
		return 0;
	k += 2 + n;
	/* lea disp(%rsp),%rbp */
	if (k + 2 > len || b[k] != 0x48 || b[k + 1] != 0x8d ||
	    !(n = rsp_disp(b + k + 2, len - k - 2, &disp)) ||
	    disp != frame - 8)
		return 0;
	k += 2 + n;
	if (k + 3 > len || memcmp(b + k, "\x49\x89\xe4", 3))
		return 0;
	f->frame = frame;
	f->r12_at = (uint32_t)(k + 3);
	return 1;
}

/* rt_sigreturn, and nothing else: mov $15,%rax (or %eax); syscall. */
static int restorer_code(const uint8_t *b, size_t len)
{
	return (len >= 9 && !memcmp(b, "\x48\xc7\xc0\x0f\x00\x00\x00\x0f\x05",
				    9)) ||
	       (len >= 7 && !memcmp(b, "\xb8\x0f\x00\x00\x00\x0f\x05", 7));
}

/* The kind of the function named name (NAME or NAME.abi0): its index in
 * go_funcs, -1 for none; *abi0 tells which. */
static int lookup(const char *name, int *abi0)
{
	size_t len = strlen(name), i;

	*abi0 = len > 5 && !strcmp(name + len - 5, ".abi0");
	if (*abi0)
		len -= 5;
	for (i = 0; i < sizeof(go_funcs) / sizeof(go_funcs[0]); i++)
		if (strlen(go_funcs[i].name) == len &&
		    !memcmp(go_funcs[i].name, name, len))
			return (int)i;
	return -1;
}

/* found[i][abi0]: go_funcs[i]'s symbol, plain or ABI0 (size 0: none). */
typedef Elf64_Sym found_t[sizeof(go_funcs) / sizeof(go_funcs[0])][2];

static int scan_symbols(int fd, const Elf64_Shdr *symtab,
			const Elf64_Shdr *strtab, found_t found)
{
	Elf64_Sym *syms = malloc(SYM_CHUNK * sizeof(*syms));
	char *str = malloc(strtab->sh_size + 1);
	uint64_t nsyms = symtab->sh_size / sizeof(Elf64_Sym), i, n, k;
	int ret = -1;

	if (!syms || !str ||
	    regfile_pread(fd, str, strtab->sh_size, strtab->sh_offset))
		goto out;
	str[strtab->sh_size] = '\0';
	for (i = 0; i < nsyms; i += n) {
		n = nsyms - i < SYM_CHUNK ? nsyms - i : SYM_CHUNK;
		if (regfile_pread(fd, syms, n * sizeof(*syms),
			    symtab->sh_offset + i * sizeof(*syms)))
			goto out;
		for (k = 0; k < n; k++) {
			const Elf64_Sym *s = &syms[k];
			int idx, abi0;

			if (ELF64_ST_TYPE(s->st_info) != STT_FUNC ||
			    !s->st_size || s->st_name >= strtab->sh_size)
				continue;
			idx = lookup(str + s->st_name, &abi0);
			if (idx >= 0)
				found[idx][abi0] = *s;
		}
	}
	ret = 0;
out:
	free(str);
	free(syms);
	return ret;
}

void unw_go_read(struct unw_go *g, int fd, const Elf64_Shdr *sh, size_t nsh,
		 const char *names, size_t names_len)
{
	const Elf64_Shdr *symtab = NULL, *strtab;
	found_t found;
	uint8_t code[64];
	size_t i, len;

	g->n = 0;
	if (!is_go(sh, nsh, names, names_len))
		return;
	for (i = 0; i < nsh && !symtab; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			symtab = &sh[i];
	if (!symtab || symtab->sh_link >= nsh ||
	    symtab->sh_entsize != sizeof(Elf64_Sym))
		return;
	strtab = &sh[symtab->sh_link];
	if (strtab->sh_type != SHT_STRTAB || strtab->sh_size > STRTAB_MAX)
		return;
	memset(found, 0, sizeof(found));
	if (scan_symbols(fd, symtab, strtab, found))
		return;
	for (i = 0; i < sizeof(go_funcs) / sizeof(go_funcs[0]); i++) {
		/* The assembly itself, not its ABIInternal wrapper. */
		const Elf64_Sym *s = found[i][1].st_size ? &found[i][1] :
				     &found[i][0];
		struct go_fn *f = &g->fn[g->n];

		if (!s->st_size || g->n >= UNW_GO_FUNCS)
			continue;
		memset(f, 0, sizeof(*f));
		f->lo = s->st_value;
		f->hi = s->st_value + s->st_size;
		f->kind = go_funcs[i].kind;
		len = code_at(fd, sh, nsh, f->lo, code,
			      s->st_size < sizeof(code) ? s->st_size :
			      sizeof(code));
		/* A vDSO caller of another shape still switches stacks; a
		 * restorer that is not one is no business of ours. */
		if (f->kind == GO_VDSO && !vdso_prologue(f, code, len))
			f->kind = GO_SWITCH;
		if (f->kind == GO_SIGRETURN && !restorer_code(code, len))
			continue;
		g->n++;
	}
}

const struct go_fn *unw_go_find(const struct unw_go *g, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (vaddr >= g->fn[i].lo && vaddr < g->fn[i].hi)
			return &g->fn[i];
	return NULL;
}

static int in_copy(const struct unw_state *st, uint64_t addr)
{
	return addr >= st->sp0 && addr - st->sp0 < st->len;
}

/* From the restorer: the registers the signal interrupted, from the
 * sigcontext on the stack; its PC is exact. */
static int signal_step(struct unw_state *st)
{
	uint64_t mc = st->r[UNW_REG_SP] + UC_MCONTEXT, v[17];
	unsigned i;

	if (!st->exact)
		return UNW_TRUNC_BAD;	/* no call returns here */
	for (i = 0; i < 17; i++)
		if (unw_stack_word(st, mc + 8 * i, &v[i]))
			return UNW_TRUNC_DUMP;
	if (!v[16])
		return UNW_TRUNC_BAD;
	for (i = 0; i < 17; i++)
		st->r[sigcontext_regs[i]] = v[i];
	st->valid = (1u << UNW_NREGS) - 1;
	st->first = 0;
	st->exact = 1;
	st->elsewhere = !in_copy(st, st->r[UNW_REG_SP]);
	return UNW_STEPPED;
}

/* From a vDSO caller past its mov %rsp,%r12: its frame is at r12. */
static int vdso_step(struct unw_state *st, const struct go_fn *f)
{
	uint64_t base = st->r[R12], cfa = base + f->frame + 8, ra, bp;

	if (!(st->valid & (1u << R12)))
		return UNW_TRUNC_SWITCH;
	if (unw_stack_word(st, cfa - 8, &ra) ||
	    unw_stack_word(st, cfa - 16, &bp))
		return in_copy(st, base) ? UNW_TRUNC_DUMP : UNW_TRUNC_SWITCH;
	if (!ra)
		return UNW_TRUNC_BAD;
	st->r[UNW_REG_IP] = ra;
	st->r[UNW_REG_SP] = cfa;
	st->r[UNW_REG_BP] = bp;
	/* Go's ABI saves no register across a call but the frame
	 * pointer. */
	st->valid = (1u << UNW_REG_IP) | (1u << UNW_REG_SP) |
		    (1u << UNW_REG_BP);
	st->first = 0;
	st->exact = 0;
	return UNW_STEPPED;
}

int unw_go_step(struct unw_state *st, const struct go_fn *f, uint64_t vaddr)
{
	switch (f->kind) {
	case GO_TOP:
		return UNW_END;
	case GO_SWITCH:
		return UNW_TRUNC_SWITCH;
	case GO_SIGRETURN:
		return signal_step(st);
	case GO_VDSO:
		/* In the prologue, before r12 is set, the stack pointer
		 * is still the function's own: its CFI holds. */
		if (vaddr - f->lo < f->r12_at)
			return -1;
		return vdso_step(st, f);
	default:
		return -1;
	}
}
