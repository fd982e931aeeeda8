// SPDX-License-Identifier: MIT
/*
 * The decoder of a machine (contract in decode.h): one backend per
 * architecture, chosen from the ELF e_machine.
 */
#include <elf.h>
#include <stdlib.h>

#include "decode.h"
#include "symbolize.h"

struct dec {
	uint16_t machine;
	struct dec_x86 *x86;
	struct dec_arm64 *arm64;
};

bool dec_machine_ok(uint16_t machine)
{
	return machine == EM_X86_64 || machine == EM_AARCH64;
}

int dec_open(uint16_t machine, struct dec **out)
{
	struct dec *d;

	*out = NULL;
	if (!dec_machine_ok(machine))
		return SYM_ENOCODE;
	d = calloc(1, sizeof(*d));
	if (!d)
		return SYM_ENOMEM;
	d->machine = machine;
	if (machine == EM_X86_64)
		d->x86 = dec_x86_open();
	else
		d->arm64 = dec_arm64_open();
	if (!d->x86 && !d->arm64) {
		free(d);
		return SYM_ENOMEM;
	}
	*out = d;
	return SYM_OK;
}

void dec_free(struct dec *d)
{
	if (!d)
		return;
	dec_x86_free(d->x86);
	dec_arm64_free(d->arm64);
	free(d);
}

bool dec_decode(const struct dec *d, const uint8_t *buf, size_t size,
		uint64_t va, enum dec_want want, struct dec_insn *in)
{
	if (d->x86)
		return dec_x86_decode(d->x86, buf, size, va, want, in);
	return dec_arm64_decode(d->arm64, buf, size, va, want, in);
}

size_t dec_branch_reach(const struct dec *d, const uint8_t *buf,
			size_t size, uint64_t va,
			const struct dec_targets *to)
{
	if (d->x86)
		return dec_x86_branch_reach(buf, size, va, to);
	return size;
}
