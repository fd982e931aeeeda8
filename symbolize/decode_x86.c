// SPDX-License-Identifier: MIT
/*
 * x86-64 instructions decoded by Zydis (contract in decode.h): it knows
 * every current extension (AVX-512/EVEX, AMX, APX-less CET, ...), so
 * lengths and mnemonics agree with binutils' objdump.  The text is Zydis'
 * Intel syntax, tidied into the form listings have always shown:
 * lower-case hexadecimal, "[rbp - 8]" with spaces, numbers below 10 in
 * decimal, rip-relative operands left relative.
 *
 * Zydis types stay in this file.
 */
#include <Zydis/Zydis.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "symbolize.h"

struct dec_x86 {
	ZydisDecoder decoder;
	/* Immediates as unsigned numbers of their operand's width, and
	 * (signed) those sign-extended from a narrower one (see
	 * signed_imm()). */
	ZydisFormatter formatter, signed_formatter;
};

static bool formatter_init(ZydisFormatter *f, ZydisSignedness imm)
{
	static const struct {
		ZydisFormatterProperty prop;
		ZyanUPointer value;
	} props[] = {
		{ ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, ZYAN_FALSE },
		{ ZYDIS_FORMATTER_PROP_FORCE_SIZE, ZYAN_TRUE },
		{ ZYDIS_FORMATTER_PROP_FORCE_SCALE_ONE, ZYAN_FALSE },
		{ ZYDIS_FORMATTER_PROP_FORCE_RELATIVE_RIPREL, ZYAN_TRUE },
		{ ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE,
		  (ZyanUPointer)ZYDIS_PADDING_DISABLED },
		{ ZYDIS_FORMATTER_PROP_ADDR_PADDING_RELATIVE,
		  (ZyanUPointer)ZYDIS_PADDING_DISABLED },
		{ ZYDIS_FORMATTER_PROP_DISP_PADDING,
		  (ZyanUPointer)ZYDIS_PADDING_DISABLED },
		{ ZYDIS_FORMATTER_PROP_IMM_PADDING,
		  (ZyanUPointer)ZYDIS_PADDING_DISABLED },
	};
	size_t i;

	if (ZYAN_FAILED(ZydisFormatterInit(f, ZYDIS_FORMATTER_STYLE_INTEL)))
		return false;
	for (i = 0; i < sizeof(props) / sizeof(*props); i++)
		if (ZYAN_FAILED(ZydisFormatterSetProperty(f, props[i].prop,
							  props[i].value)))
			return false;
	return ZYAN_SUCCESS(ZydisFormatterSetProperty(
		f, ZYDIS_FORMATTER_PROP_IMM_SIGNEDNESS, (ZyanUPointer)imm));
}

struct dec_x86 *dec_x86_open(void)
{
	struct dec_x86 *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	if (ZYAN_FAILED(ZydisDecoderInit(&x->decoder, ZYDIS_MACHINE_MODE_LONG_64,
					 ZYDIS_STACK_WIDTH_64)) ||
	    !formatter_init(&x->formatter, ZYDIS_SIGNEDNESS_UNSIGNED) ||
	    !formatter_init(&x->signed_formatter, ZYDIS_SIGNEDNESS_SIGNED)) {
		free(x);
		return NULL;
	}
	return x;
}

void dec_x86_free(struct dec_x86 *x)
{
	free(x);
}

/*
 * The condition codes objdump (and capstone) name: Zydis says jnz, jnbe,
 * jnle, setnz, cmovnb where they say jne, ja, jg, setne, cmovae.
 */
static const char *const cc_names[][2] = {
	{ "z", "e" }, { "nz", "ne" }, { "nbe", "a" }, { "nb", "ae" },
	{ "nle", "g" }, { "nl", "ge" },
};

/* The mnemonic a listing shows for zi, into buf (one per instruction of
 * a listing: no printf). */
static void mnemonic(const ZydisDecodedInstruction *zi, char *buf,
		     size_t size)
{
	const char *m = ZydisMnemonicGetString(zi->mnemonic);
	static const char *const cc_ops[] = { "j", "set", "cmov" };
	size_t i, k, len;

	if (!m)
		m = "";
	/* A 64-bit immediate or absolute address: objdump's movabs. */
	if (zi->mnemonic == ZYDIS_MNEMONIC_MOV &&
	    (zi->raw.imm[0].size == 64 || zi->raw.disp.size == 64))
		m = "movabs";
	for (k = 0; k < sizeof(cc_ops) / sizeof(*cc_ops); k++) {
		len = strlen(cc_ops[k]);
		if (strncmp(m, cc_ops[k], len))
			continue;
		for (i = 0; i < sizeof(cc_names) / sizeof(*cc_names); i++)
			if (!strcmp(m + len, cc_names[i][0])) {
				snprintf(buf, size, "%s%s", cc_ops[k],
					 cc_names[i][1]);
				return;
			}
	}
	len = strlen(m);
	if (len >= size)
		len = size - 1;
	memcpy(buf, m, len);
	buf[len] = '\0';
}

/*
 * Zydis' "[rbp-0x8]" and "0x1" into "[rbp - 8]" and "1": spaces around
 * the operators inside brackets, a lone hexadecimal digit as decimal;
 * x87 "st1" as "st(1)"; the word from (Zydis' mnemonic) renamed to to;
 * seg ("cs:" or "")
 * before the first memory operand that shows no segment.
 */
static void tidy(const char *src, char *dst, size_t size, const char *from,
		 const char *to, const char *seg)
{
	size_t n = 0, flen = strlen(from);
	int depth = 0;
	bool renamed = !strcmp(from, to);

	while (*src && n + 8 < size) {
		char c = *src;

		/* x87 "st1" as objdump writes it, "st(1)". */
		if (c == 's' && src[1] == 't' &&
		    isdigit((unsigned char)src[2]) &&
		    !isalnum((unsigned char)src[3]) &&
		    (!n || !isalnum((unsigned char)dst[n - 1]))) {
			n += (size_t)sprintf(dst + n, "st(%c)", src[2]);
			src += 3;
			continue;
		}
		if (c == '[' && *seg && (!n || dst[n - 1] != ':')) {
			n += (size_t)sprintf(dst + n, "%s", seg);
			seg = "";
		}

		if (!renamed && !strncmp(src, from, flen) &&
		    (!n || dst[n - 1] == ' ') &&
		    (src[flen] == ' ' || !src[flen]) &&
		    n + strlen(to) + 4 < size) {
			n += (size_t)sprintf(dst + n, "%s", to);
			src += flen;
			renamed = true;
			continue;
		}

		if (c == '[' || c == ']')
			depth += c == '[' ? 1 : -1;
		if (depth > 0 && (c == '+' || c == '-') && n &&
		    dst[n - 1] != '[' && dst[n - 1] != ' ') {
			dst[n++] = ' ';
			dst[n++] = c;
			dst[n++] = ' ';
			src++;
			continue;
		}
		if (c == '0' && src[1] == 'x' && isdigit((unsigned char)src[2]) &&
		    !isxdigit((unsigned char)src[3]) &&
		    (!n || !isalnum((unsigned char)dst[n - 1]))) {
			dst[n++] = src[2];
			src += 3;
			continue;
		}
		dst[n++] = c;
		src++;
	}
	dst[n] = '\0';
}

/*
 * Whether the immediate reads best as a signed number: sign-extended
 * from fewer bits than its operand has ("cmp rax, -0x1000", "mov rdx,
 * -2"), except for the bit masks of and, or, xor and test ("and rsp,
 * 0xfffffffffffffff0"), as listings have shown them.
 */
static bool signed_imm(const ZydisDecodedInstruction *zi,
		       const ZydisDecodedOperand *zo)
{
	unsigned i;

	switch (zi->mnemonic) {
	case ZYDIS_MNEMONIC_AND: case ZYDIS_MNEMONIC_OR:
	case ZYDIS_MNEMONIC_XOR: case ZYDIS_MNEMONIC_TEST:
		return false;
	default:
		break;
	}
	for (i = 0; i < zi->operand_count_visible; i++)
		if (zo[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		    !zo[i].imm.is_relative && zo[i].imm.is_signed &&
		    zi->raw.imm[0].size &&
		    zi->raw.imm[0].size < zi->operand_width)
			return true;
	return false;
}

static bool has_prefix(const ZydisDecodedInstruction *zi, uint8_t byte)
{
	uint8_t i;

	for (i = 0; i < zi->raw.prefix_count; i++)
		if (zi->raw.prefixes[i].value == byte)
			return true;
	return false;
}

static enum dec_id id_of(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_JMP: return DEC_JMP;
	case ZYDIS_MNEMONIC_JNBE: return DEC_JA;
	case ZYDIS_MNEMONIC_JNB: return DEC_JAE;
	case ZYDIS_MNEMONIC_CMP: return DEC_CMP;
	case ZYDIS_MNEMONIC_MOV: return DEC_MOV;
	case ZYDIS_MNEMONIC_MOVSXD: return DEC_MOVSXD;
	case ZYDIS_MNEMONIC_ADD: return DEC_ADD;
	case ZYDIS_MNEMONIC_LEA: return DEC_LEA;
	default: return DEC_OTHER;
	}
}

static unsigned classify(const ZydisDecodedInstruction *zi)
{
	unsigned f = 0;

	switch (zi->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		f = SYM_INSN_BRANCH | SYM_INSN_COND;
		break;
	case ZYDIS_CATEGORY_UNCOND_BR:
		f = SYM_INSN_BRANCH;
		break;
	case ZYDIS_CATEGORY_CALL:
		f = SYM_INSN_CALL;
		break;
	case ZYDIS_CATEGORY_RET:
		return SYM_INSN_RET;
	default:
		break;
	}
	switch (zi->mnemonic) {
	case ZYDIS_MNEMONIC_IRET: case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
		return SYM_INSN_RET;
	case ZYDIS_MNEMONIC_UD0: case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2: case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_HLT:
		return SYM_INSN_TRAP;
	case ZYDIS_MNEMONIC_NOP:
		return SYM_INSN_PAD;
	default:
		break;
	}
	if (zi->meta.category == ZYDIS_CATEGORY_STRINGOP &&
	    (zi->attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
			       ZYDIS_ATTRIB_HAS_REPNE)))
		f |= SYM_INSN_REP;
	return f;
}

static void operand(const ZydisDecodedInstruction *zi,
		    const ZydisDecodedOperand *zo, uint64_t va,
		    struct dec_op *op)
{
	ZyanU64 abs;

	memset(op, 0, sizeof(*op));
	switch (zo->type) {
	case ZYDIS_OPERAND_TYPE_REGISTER:
		op->kind = DEC_OP_REG;
		op->reg = zo->reg.value;
		break;
	case ZYDIS_OPERAND_TYPE_IMMEDIATE:
		op->kind = DEC_OP_IMM;
		if (zo->imm.is_relative &&
		    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(zi, zo, va, &abs)))
			op->imm = (int64_t)abs;
		else
			op->imm = zo->imm.value.s;
		break;
	case ZYDIS_OPERAND_TYPE_MEMORY:
		op->kind = DEC_OP_MEM;
		op->mem.rip = zo->mem.base == ZYDIS_REGISTER_RIP;
		op->mem.base = op->mem.rip ? 0 : zo->mem.base;
		op->mem.index = zo->mem.index;
		op->mem.scale = zo->mem.scale ? zo->mem.scale : 1;
		op->mem.disp = zo->mem.disp.has_displacement ?
			       zo->mem.disp.value : 0;
		break;
	default:
		op->kind = DEC_OP_NONE;	/* far pointers: not followed */
		break;
	}
}

bool dec_x86_decode(const struct dec_x86 *x, const uint8_t *buf, size_t size,
		    uint64_t va, enum dec_want want, struct dec_insn *in)
{
	ZydisDecoderContext ctx;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand zo[ZYDIS_MAX_OPERAND_COUNT];
	char raw[DEC_TEXT_MAX], name[32];
	unsigned i;

	in->va = va;
	in->len = 0;
	in->flags = 0;
	in->target = 0;
	in->id = DEC_OTHER;
	in->nops = 0;
	in->text[0] = '\0';
	if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&x->decoder, &ctx, buf,
						      size, &zi)))
		return false;
	in->len = zi.length;
	in->flags = classify(&zi);
	in->id = id_of(zi.mnemonic);
	if (want == DEC_WANT_FLOW &&
	    !(in->flags & (SYM_INSN_BRANCH | SYM_INSN_CALL)))
		return true;
	/* The visible operands only: nothing here reads the others.  They
	 * decode wherever the instruction did (every offset of libc and
	 * cc1plus tried), so FLOW accepts the same bytes as OPS. */
	if (ZYAN_FAILED(ZydisDecoderDecodeOperands(&x->decoder, &ctx, &zi, zo,
						   zi.operand_count_visible))) {
		in->len = in->flags = 0;
		in->id = DEC_OTHER;
		return false;
	}
	for (i = 0; i < zi.operand_count_visible && i < DEC_MAX_OPS; i++)
		operand(&zi, &zo[i], va, &in->op[in->nops++]);
	if (in->flags & (SYM_INSN_BRANCH | SYM_INSN_CALL)) {
		if (in->nops == 1 && in->op[0].kind == DEC_OP_IMM &&
		    zo[0].imm.is_relative)
			in->target = (uint64_t)in->op[0].imm;
		else
			in->flags |= SYM_INSN_INDIRECT;
	}
	if (want == DEC_WANT_TEXT) {
		/* A multi-byte nop's register operand is no operand to a
		 * reader (objdump leaves it out). */
		ZydisDecodedInstruction shown = zi;

		if (zi.mnemonic == ZYDIS_MNEMONIC_NOP &&
		    shown.operand_count_visible > 1)
			shown.operand_count_visible = 1;
		if (ZYAN_FAILED(ZydisFormatterFormatInstruction(
			    signed_imm(&zi, zo) ? &x->signed_formatter :
						  &x->formatter, &shown, zo,
			    shown.operand_count_visible,
			    raw, sizeof(raw), va, NULL)))
			snprintf(raw, sizeof(raw), "%s",
				 ZydisMnemonicGetString(zi.mnemonic));
		mnemonic(&zi, name, sizeof(name));
		/* A cs override means nothing in 64-bit mode, so Zydis
		 * leaves it out; it pads nops and objdump shows it. */
		tidy(raw, in->text, sizeof(in->text),
		     ZydisMnemonicGetString(zi.mnemonic), name,
		     has_prefix(&zi, 0x2e) ? "cs:" : "");
	}
	return true;
}

/*
 * A relative target as Zydis may compute it: the end of the instruction
 * plus the displacement, cut to the operand or address width.
 */
static bool lands(uint64_t t, const struct dec_targets *to)
{
	uint64_t v[3] = { t, t & 0xffffffffu, t & 0xffffu };
	size_t i;

	for (i = 0; i < 3; i++)
		if (v[i] > to->lo && v[i] < to->hi &&
		    (!i || v[i] != v[i - 1]) && to->wanted(to->ctx, v[i]))
			return true;
	return false;
}

static int64_t rel(const uint8_t *p, unsigned size)
{
	if (size == 1)
		return (int8_t)p[0];
	if (size == 2)
		return (int16_t)(uint16_t)(p[0] | p[1] << 8);
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* The opcode at buf[i] with its displacement (size bytes at buf[i + at])
 * ending the instruction, if it fits. */
static bool rel_into(const uint8_t *buf, size_t size, uint64_t va, size_t i,
		     unsigned at, unsigned dsize, const struct dec_targets *to)
{
	size_t end = i + at + dsize;

	return end <= size &&
	       lands(va + end + (uint64_t)rel(buf + i + at, dsize), to);
}

/* What an opcode byte may start: a rel8 branch, a rel32 (rel16) call or
 * jump, a two-byte opcode to look at, or (0) none. */
enum { OP_NONE, OP_REL8, OP_REL32, OP_TWO };

static const uint8_t opcode_kind[256] = {
	[0x70 ... 0x7f] = OP_REL8, [0xe0 ... 0xe3] = OP_REL8,
	[0xeb] = OP_REL8, [0xe8] = OP_REL32, [0xe9] = OP_REL32,
	[0x0f] = OP_TWO, [0xc7] = OP_TWO,
};

/* A prefix byte: legacy (segments, 66, 67, lock, rep) or REX. */
static bool is_prefix(uint8_t b)
{
	switch (b) {
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
	case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
		return true;
	default:
		return (b & 0xf0) == 0x40;
	}
}

/*
 * Whether an opcode at buf[i] may take a 16-bit displacement: only with
 * an operand size prefix, among the prefixes that run up to it (an
 * instruction's prefixes are in the bytes decoded from buf's start).
 * Taking the first two bytes of every rel32 for a rel16 too made more
 * than half of what the blocks view decoded of neighbours, for nothing.
 */
static bool may_rel16(const uint8_t *buf, size_t i)
{
	size_t k;

	for (k = 1; k <= i && k < 15 && is_prefix(buf[i - k]); k++)
		if (buf[i - k] == 0x66)
			return true;
	return false;
}

/*
 * Every byte is taken for an opcode, so whatever instruction boundaries a
 * sweep finds, each direct branch or call it can decode has its opcode at
 * one of these: jcc, jmp, loop, jrcxz rel8; call, jmp rel32 (rel16 with
 * an operand size prefix); jcc rel32 (rel16); xbegin rel32 (rel16).
 */
size_t dec_x86_branch_reach(const uint8_t *buf, size_t size, uint64_t va,
			    const struct dec_targets *to)
{
	size_t i = size;
	/* Between 64 KiB and 4 GiB, a rel8 target is its own 32-bit and
	 * 16-bit cuts (lands()), or below lo: one at va + i lands only
	 * within [va + i - 126, va + i + 129], near the targets. */
	bool plain = to->lo >= 0x10000 && va >= 0x10000 + 128 &&
		     va + size < 0xffffffffu - 256 && to->hi < 0xffffffffu;

	while (i-- > 0) {
		uint8_t b = buf[i], b1;

		switch (opcode_kind[b]) {
		case OP_NONE:
			continue;
		case OP_REL8:
			if (plain && (va + i + 129 <= to->lo ||
				      va + i >= to->hi + 126))
				continue;
			if (rel_into(buf, size, va, i, 1, 1, to))
				return i + 1;
			continue;
		case OP_REL32:
			if (rel_into(buf, size, va, i, 1, 4, to) ||
			    (may_rel16(buf, i) &&
			     rel_into(buf, size, va, i, 1, 2, to)))
				return i + 1;
			continue;
		default:
			b1 = i + 1 < size ? buf[i + 1] : 0;
			if (((b == 0x0f && (b1 & 0xf0) == 0x80) ||
			     (b == 0xc7 && b1 == 0xf8)) &&
			    (rel_into(buf, size, va, i, 2, 4, to) ||
			     (may_rel16(buf, i) &&
			      rel_into(buf, size, va, i, 2, 2, to))))
				return i + 1;
		}
	}
	return 0;
}
