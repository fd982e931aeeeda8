// SPDX-License-Identifier: MIT
/*
 * AArch64 instructions decoded by capstone (contract in decode.h).  Every
 * instruction is 4 bytes, so one capstone does not know costs no later
 * boundary.  Capstone types stay in this file.
 */
#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "symbolize.h"

struct dec_arm64 {
	csh cs;
	cs_insn *in;	/* capstone's scratch instruction */
};

struct dec_arm64 *dec_arm64_open(void)
{
	struct dec_arm64 *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &a->cs) != CS_ERR_OK) {
		free(a);
		return NULL;
	}
	cs_option(a->cs, CS_OPT_DETAIL, CS_OPT_ON);
	a->in = cs_malloc(a->cs);
	if (!a->in) {
		cs_close(&a->cs);
		free(a);
		return NULL;
	}
	return a;
}

void dec_arm64_free(struct dec_arm64 *a)
{
	if (!a)
		return;
	cs_free(a->in, 1);
	cs_close(&a->cs);
	free(a);
}

static unsigned classify(const cs_insn *in, uint64_t *target)
{
	const cs_arm64 *a = &in->detail->arm64;
	unsigned f = 0;

	*target = 0;
	switch (in->id) {
	case ARM64_INS_B:
		f = SYM_INSN_BRANCH;
		if (a->cc != ARM64_CC_INVALID && a->cc != ARM64_CC_AL &&
		    a->cc != ARM64_CC_NV)
			f |= SYM_INSN_COND;
		break;
	case ARM64_INS_CBZ: case ARM64_INS_CBNZ:
	case ARM64_INS_TBZ: case ARM64_INS_TBNZ:
		f = SYM_INSN_BRANCH | SYM_INSN_COND;
		break;
	case ARM64_INS_BR:
		return SYM_INSN_BRANCH | SYM_INSN_INDIRECT;
	case ARM64_INS_BL:
		f = SYM_INSN_CALL;
		break;
	case ARM64_INS_BLR:
		return SYM_INSN_CALL | SYM_INSN_INDIRECT;
	case ARM64_INS_RET: case ARM64_INS_ERET:
		return SYM_INSN_RET;
	case ARM64_INS_BRK: case ARM64_INS_HLT:
		return SYM_INSN_TRAP;
	case ARM64_INS_NOP:
		return SYM_INSN_PAD;
	default:
		return 0;
	}
	if (a->op_count && a->operands[a->op_count - 1].type == ARM64_OP_IMM)
		*target = (uint64_t)a->operands[a->op_count - 1].imm;
	else
		f |= SYM_INSN_INDIRECT;
	return f;
}

static enum dec_id id_of(unsigned id)
{
	switch (id) {
	case ARM64_INS_ADRP: return DEC_ADRP;
	case ARM64_INS_LDR: return DEC_LDR;
	default: return DEC_OTHER;
	}
}

bool dec_arm64_decode(const struct dec_arm64 *a, const uint8_t *buf,
		      size_t size, uint64_t va, enum dec_want want,
		      struct dec_insn *in)
{
	const uint8_t *code = buf;
	uint64_t addr = va;
	const cs_arm64 *d;
	uint8_t i;

	in->va = va;
	in->len = 4;
	in->flags = 0;
	in->target = 0;
	in->id = DEC_OTHER;
	in->nops = 0;
	in->text[0] = '\0';
	if (!cs_disasm_iter(a->cs, &code, &size, &addr, a->in))
		return false;
	d = &a->in->detail->arm64;
	in->len = a->in->size;
	in->flags = classify(a->in, &in->target);
	in->id = id_of(a->in->id);
	for (i = 0; i < d->op_count && i < DEC_MAX_OPS; i++) {
		const cs_arm64_op *o = &d->operands[i];
		struct dec_op *op = &in->op[in->nops++];

		memset(op, 0, sizeof(*op));
		switch (o->type) {
		case ARM64_OP_REG:
			op->kind = DEC_OP_REG;
			op->reg = o->reg;
			break;
		case ARM64_OP_IMM:
			op->kind = DEC_OP_IMM;
			op->imm = o->imm;
			break;
		case ARM64_OP_MEM:
			op->kind = DEC_OP_MEM;
			op->mem.base = o->mem.base;
			op->mem.index = o->mem.index;
			op->mem.scale = 1;
			op->mem.disp = o->mem.disp;
			break;
		default:
			op->kind = DEC_OP_NONE;
			break;
		}
	}
	if (want == DEC_WANT_TEXT)
		snprintf(in->text, sizeof(in->text), "%s%s%s",
			 a->in->mnemonic, a->in->op_str[0] ? " " : "",
			 a->in->op_str);
	return true;
}
