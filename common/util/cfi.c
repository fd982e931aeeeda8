/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "cfi.h"

uint64_t cfi_read_value(struct bytes *c, uint8_t enc)
{
	switch (enc & 0x0f) {
	case CFI_PE_ABSPTR:
	case CFI_PE_UDATA8:
	case CFI_PE_SDATA8:
		return bytes_u(c, 8);
	case CFI_PE_ULEB128:
		return bytes_uleb(c);
	case CFI_PE_UDATA2:
		return bytes_u(c, 2);
	case CFI_PE_SDATA2:
		return (uint64_t)(int64_t)(int16_t)bytes_u(c, 2);
	case CFI_PE_UDATA4:
		return bytes_u(c, 4);
	case CFI_PE_SDATA4:
		return (uint64_t)(int64_t)(int32_t)bytes_u(c, 4);
	case CFI_PE_SLEB128:
		return (uint64_t)bytes_sleb(c);
	default:
		c->bad = 1;
		return 0;
	}
}

uint64_t cfi_read_ptr(struct bytes *c, uint8_t enc, const struct cfi_bases *b)
{
	/* The base of pcrel is the pointer's own first byte. */
	uint64_t here = b->at_vaddr + (uint64_t)(c->p - b->at), v;

	if (enc == CFI_PE_OMIT || (enc & CFI_PE_INDIRECT)) {
		c->bad = 1;
		return 0;
	}
	v = cfi_read_value(c, enc);
	switch (enc & 0x70) {
	case 0:
		return v;
	case CFI_PE_PCREL:
		return v + here;
	case CFI_PE_DATAREL:
		if (b->has_data)
			return v + b->data;
		/* fall through */
	default:
		c->bad = 1;
		return 0;
	}
}

int cfi_entry(struct bytes *c, const uint8_t **end, bool *wide)
{
	uint64_t len = bytes_u(c, 4);

	*wide = len == 0xffffffffu;
	if (*wide)
		len = bytes_u(c, 8);
	if (c->bad)
		return -1;
	if (!len)
		return 0;
	if (len > (uint64_t)(c->end - c->p))
		return -1;
	*end = c->p + len;
	return 1;
}

/* The augmentation data a "z" CIE announces, in the order of its
 * letters; 0, or -1 at a letter this reader does not know. */
static int read_aug(struct bytes *c, const uint8_t *aug, size_t augl,
		    struct cfi_cie *cie)
{
	size_t i;

	for (i = 1; i < augl; i++) {
		switch (aug[i]) {
		case 'R':
			cie->fde_enc = (uint8_t)bytes_u(c, 1);
			break;
		case 'L':
			bytes_u(c, 1);	/* the LSDA's encoding */
			break;
		case 'P':		/* the personality routine: skipped */
			cfi_read_value(c, (uint8_t)bytes_u(c, 1));
			break;
		case 'S':
			cie->signal = true;
			break;
		case 'B':		/* AArch64 BTI */
		case 'G':		/* MTE tagged frames */
			break;
		default:
			return -1;
		}
	}
	return 0;
}

int cfi_cie_read(const uint8_t *at, const uint8_t *end, struct cfi_cie *cie)
{
	struct bytes c = { at, end, 0 };
	const uint8_t *cend, *aug;
	uint8_t version;
	size_t augl;
	bool wide;

	if (cfi_entry(&c, &cend, &wide) != 1 || wide)
		return -1;
	c.end = cend;
	if (bytes_u(&c, 4) != 0)		/* CIE id */
		return -1;
	version = (uint8_t)bytes_u(&c, 1);
	if (c.bad || (version != 1 && version != 3))
		return -1;
	aug = c.p;
	augl = strnlen((const char *)aug, (size_t)(cend - aug));
	if (augl == (size_t)(cend - aug))
		return -1;
	c.p = aug + augl + 1;
	memset(cie, 0, sizeof(*cie));
	cie->fde_enc = CFI_PE_ABSPTR;
	if (augl >= 2 && aug[0] == 'e' && aug[1] == 'h')
		return -1;		/* GCC 2's "eh": never seen since */
	cie->caf = bytes_uleb(&c);
	cie->daf = bytes_sleb(&c);
	cie->ra = version == 1 ? bytes_u(&c, 1) : bytes_uleb(&c);
	if (augl && aug[0] == 'z') {
		uint64_t dlen = bytes_uleb(&c);
		const uint8_t *dend;

		if (c.bad || dlen > (uint64_t)(cend - c.p))
			return -1;
		dend = c.p + dlen;
		cie->aug_z = true;
		if (read_aug(&c, aug, augl, cie) || c.bad || c.p > dend)
			return -1;
		c.p = dend;
	} else if (augl) {
		return -1;
	}
	if (c.bad || cie->caf == 0)
		return -1;
	cie->insns = c.p;
	cie->end = cend;
	return 0;
}

int cfi_fde_read(const uint8_t *start, const uint8_t *at, const uint8_t *end,
		 const struct cfi_bases *b, struct cfi_fde *fde)
{
	struct bytes c = { at, end, 0 };
	const uint8_t *fend, *id_at;
	uint64_t id;
	bool wide;

	if (cfi_entry(&c, &fend, &wide) != 1 || wide)
		return -1;
	c.end = fend;
	id_at = c.p;
	id = bytes_u(&c, 4);
	if (c.bad)
		return -1;
	if (!id)
		return 0;
	/* The distance back from the id to the FDE's CIE. */
	if (id > (uint64_t)(id_at - start) ||
	    cfi_cie_read(id_at - id, end, &fde->cie))
		return -1;
	fde->start = cfi_read_ptr(&c, fde->cie.fde_enc, b);
	fde->range = cfi_read_value(&c, fde->cie.fde_enc);
	if (c.bad)
		return -1;
	fde->insns = NULL;
	fde->end = fend;
	if (fde->cie.aug_z) {
		uint64_t dlen = bytes_uleb(&c);

		if (c.bad || dlen > (uint64_t)(fend - c.p))
			return 1;
		c.p += dlen;
	}
	fde->insns = c.p;
	return 1;
}
