// SPDX-License-Identifier: MIT
/*
 * A sanity check of the DWARF 5 list sections before libdwarf sees them.
 *
 * libdwarf reads every unit header of .debug_rnglists and .debug_loclists
 * the first time anything touches .debug_info (dwarf_get_aranges,
 * dwarf_next_cu_header_d, dwarf_offdie_b...).  In libdwarf 20210528
 * (Debian 12) a header it cannot read (a wrong unit_length, version or
 * address size) makes the rnglists loader free its context and go on
 * using it: the process aborts with a double free.  One damaged byte in
 * one object must cost that object's DWARF, not the run, so the framing
 * of these sections is checked here first (DWARF 5 section 7.28 and
 * 7.29): each unit has a sane unit_length, version 5, an address size of
 * 4 or 8, no segment selectors, an offset array inside the unit whose
 * offsets point inside it, and (range lists) entries of the known kinds
 * DW_RLE_end_of_list .. DW_RLE_start_length whose operands end inside
 * the unit.  Units must tile the section exactly, as libdwarf walks it.
 * Location list entries are left to libdwarf, which reads them safely.
 */
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <string.h>

#include "common/util/bytes.h"
#include "symbolize_int.h"

/*
 * An index into .debug_addr (addr bytes long; SIZE_MAX: not known here)
 * that may be inside it: libdwarf 20210528 leaks an error for each one
 * it cannot look up.  The CU's base is not known here, so this only
 * holds the index to the section's size.
 */
static bool rd_index(struct bytes *r, unsigned asz, size_t addr)
{
	uint64_t idx = bytes_uleb64(r);

	if (r->bad)
		return false;
	return addr == SIZE_MAX || (addr >= asz && idx <= (addr - asz) / asz);
}

/* The DW_RLE_* entries of one unit, all of r: each operand a ULEB128
 * that fits 64 bits or an address, inside the unit. */
static bool rle_entries(struct bytes *r, unsigned asz, size_t addr)
{
	while (bytes_left(r)) {
		bool ok = true;

		switch (bytes_u(r, 1)) {
		case 0:		/* DW_RLE_end_of_list */
			break;
		case 1:		/* DW_RLE_base_addressx */
			ok = rd_index(r, asz, addr);
			break;
		case 2:		/* DW_RLE_startx_endx */
			ok = rd_index(r, asz, addr) && rd_index(r, asz, addr);
			break;
		case 3:		/* DW_RLE_startx_length */
			ok = rd_index(r, asz, addr);
			bytes_uleb64(r);
			break;
		case 4:		/* DW_RLE_offset_pair */
			bytes_uleb64(r);
			bytes_uleb64(r);
			break;
		case 5:		/* DW_RLE_base_address */
			bytes_skip(r, asz);
			break;
		case 6:		/* DW_RLE_start_end */
			bytes_skip(r, 2 * (size_t)asz);
			break;
		case 7:		/* DW_RLE_start_length */
			bytes_skip(r, asz);
			bytes_uleb64(r);
			break;
		default:
			ok = false;
			break;
		}
		if (!ok || r->bad)
			return false;
	}
	return true;
}

/* The unit at *pos; on success *pos is the offset past it. */
static bool list_unit(const unsigned char *p, size_t size, size_t *pos,
		      bool big, bool ranges, size_t addr)
{
	struct bytes r = bytes_of(p + *pos, size - *pos);
	uint64_t len, ver, asz, ssz, cnt, off;
	unsigned osz = 4;
	const uint8_t *base;
	size_t i;

	len = bytes_uo(&r, 4, big);
	if (len == 0xffffffff) {
		osz = 8;
		len = bytes_uo(&r, 8, big);
	} else if (len >= 0xfffffff0) {
		return false;	/* reserved values */
	}
	/* version, address_size, segment_selector_size, offset count */
	if (r.bad || len < 8 || len > bytes_left(&r))
		return false;
	r.end = r.p + len;
	ver = bytes_uo(&r, 2, big);
	asz = bytes_uo(&r, 1, big);
	ssz = bytes_uo(&r, 1, big);
	cnt = bytes_uo(&r, 4, big);
	if (r.bad || ver != 5 || (asz != 4 && asz != 8) || ssz != 0 ||
	    cnt > bytes_left(&r) / osz)
		return false;
	/* Offsets are relative to the offset array, past it, in the unit. */
	base = r.p;
	for (i = 0; i < cnt; i++) {
		off = bytes_uo(&r, osz, big);
		if (r.bad || off < cnt * osz || off >= (size_t)(r.end - base))
			return false;
	}
	if (ranges && !rle_entries(&r, (unsigned)asz, addr))
		return false;
	*pos = (size_t)(r.end - p);
	return true;
}

bool dwcheck_lists(const void *data, size_t size, bool big, bool ranges,
		   size_t addr)
{
	size_t pos = 0;

	while (pos < size)
		if (!list_unit(data, size, &pos, big, ranges, addr))
			return false;
	return true;
}

/*
 * Is name ".debug_<what>" or one of its spellings (".zdebug_" compressed
 * the GNU way, ".dwo" in split DWARF)?  *dwo tells the latter.
 */
static bool is_section(const char *name, const char *what, bool *dwo)
{
	size_t n = strlen(what);

	if (!strncmp(name, ".debug_", 7))
		name += 7;
	else if (!strncmp(name, ".zdebug_", 8))
		name += 8;
	else
		return false;
	if (strncmp(name, what, n))
		return false;
	*dwo = !strcmp(name + n, ".dwo");
	return !name[n] || *dwo;
}

/* The bytes of a section as libdwarf sees them (decompressed); NULL: they
 * cannot be read. */
static Elf_Data *section_data(Elf_Scn *scn, const GElf_Shdr *sh,
			      const char *name)
{
	Elf_Data *d;

	if (sh->sh_type == SHT_NOBITS)
		return NULL;
	if (name[1] == 'z' ? elf_compress_gnu(scn, 0, 0) < 0 :
	    (sh->sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return NULL;
	d = elf_getdata(scn, NULL);
	return d && (!d->d_size || d->d_buf) ? d : NULL;
}

/* Size of .debug_addr, 0 if there is none, SIZE_MAX if unreadable. */
static size_t addr_size(Elf *elf, size_t shstrndx)
{
	Elf_Scn *scn = NULL;
	size_t size = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		bool dwo;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || !is_section(name, "addr", &dwo) || dwo)
			continue;
		d = section_data(scn, &sh, name);
		if (!d)
			return SIZE_MAX;
		size = d->d_size;
	}
	return size;
}

int dwcheck_fd(int fd)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t shstrndx, addr;
	bool big;
	int ret = SYM_OK;

	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return SYM_EELF;
	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx)) {
		elf_end(elf);
		return SYM_EELF;
	}
	big = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	addr = addr_size(elf, shstrndx);
	while (ret == SYM_OK && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		bool dwo, ranges;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || !sh.sh_size)
			continue;
		if (is_section(name, "rnglists", &dwo))
			ranges = true;
		else if (is_section(name, "loclists", &dwo))
			ranges = false;
		else
			continue;
		/* What libdwarf would read must be readable here too.  A
		 * .dwo section's indexes are into the skeleton's .debug_addr. */
		d = section_data(scn, &sh, name);
		if (!d || !dwcheck_lists(d->d_buf, d->d_size, big, ranges,
					 dwo ? SIZE_MAX : addr))
			ret = SYM_EDWARF;
	}
	elf_end(elf);
	return ret;
}
