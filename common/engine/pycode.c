/* SPDX-License-Identifier: MIT */
/*
 * CPython's code objects read from outside (pyframes.h): their headers,
 * names, files and line tables, kept per code object; strings decoded.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pyframes_int.h"
#include "common/util/array.h"
#include "common/util/bytes.h"
#include "common/util/error.h"

void py_codes_clear(struct py_proc *p)
{
	size_t i;

	for (i = 0; i < p->ncodes; i++)
		free(p->codes[i].linetable);
	p->ncodes = 0;
	hashmap_release(&p->index);
}

/*
 * Whether the header hb of the object at code is a live code object's:
 * its type, and a reference count a live object has (py_refs_live(): a
 * frame read after it returned may still point to its freed code).
 */
int py_code_type_ok(const struct py_proc *p, uint64_t code,
			const uint8_t *hb)
{
	if (py_word(hb, p->code_hdr_len, p->l->ob_type, 8) != p->code_type)
		return prof_fail(PROF_EFORMAT, "%#" PRIx64 " is not a code "
				 "object", code);
	if (!py_refs_live(hb, p->code_hdr_len))
		return prof_fail(PROF_EFORMAT, "code object at %#" PRIx64
				 " is freed (reference count %#" PRIx64 ")",
				 code, py_word(hb, p->code_hdr_len, 0, 8));
	return 0;
}

/* Whether s may be a code object's name or qualified name: not empty,
 * nothing a Python name cannot hold (a '/', a space, a control
 * character: an identifier, "<module>", "f.<locals>.g" have none).  A
 * name read after its code object was freed may be any string. */
static bool name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == '/' || *s == 0x7f)
			return false;
	return true;
}

/* The header of the code object at code (p->code_hdr_len bytes), its
 * type checked. */
int py_read_code_header(struct py_proc *p, uint64_t code, uint8_t *buf)
{
	int rc;

	if (!py_ptr_ok(code))
		return prof_fail(PROF_EFORMAT, "code object at %#" PRIx64
				 ": not a pointer", code);
	rc = py_mem_read(p, code, buf, p->code_hdr_len, "a code object");
	return rc ? rc : py_code_type_ok(p, code, buf);
}

/* Append code point c to buf as UTF-8 (at most 4 bytes); a surrogate or
 * a value past Unicode, and NUL, become U+FFFD. */
static size_t put_utf8(char *buf, uint32_t c)
{
	if (!c || (c >= 0xd800 && c < 0xe000) || c > 0x10ffff)
		c = 0xfffd;
	if (c < 0x80) {
		buf[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		buf[0] = (char)(0xc0 | c >> 6);
		buf[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		buf[0] = (char)(0xe0 | c >> 12);
		buf[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		buf[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	buf[0] = (char)(0xf0 | c >> 18);
	buf[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	buf[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	buf[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* The len bytes of the header of the object at addr into hb, its type
 * checked to be type (tname: "str"); what names the object in the
 * reason it is not one. */
static int read_object(struct py_proc *p, uint64_t addr, uint64_t type,
		       const char *tname, size_t len, uint8_t *hb,
		       const char *what)
{
	int rc;

	if (!py_ptr_ok(addr))
		return prof_fail(PROF_EFORMAT, "%s at %#" PRIx64 ": not a "
				 "pointer", what, addr);
	rc = py_mem_read(p, addr, hb, len, what);
	if (rc)
		return rc;
	if (py_word(hb, len, p->l->ob_type, 8) != type)
		return prof_fail(PROF_EFORMAT, "%s at %#" PRIx64 " is not a "
				 "%s", what, addr, tname);
	return 0;
}

/*
 * The str object at addr (compact: its characters follow its header),
 * as UTF-8 in the pool: *out.  what names it in the reason it is not
 * one.
 */
static int read_str(struct py_proc *p, uint64_t addr, const char *what,
		    const char **out)
{
	const struct layout *l = p->l;
	uint8_t hb[HEADER_MAX], data[PY_MAX_STR * 4];
	char text[PY_MAX_STR * 4 + 4];
	uint32_t state, kind;
	uint64_t at;
	int64_t len;
	size_t n, i, t = 0;
	int rc;

	rc = read_object(p, addr, p->str_type, "str", l->str_ascii_size, hb,
			 what);
	if (rc)
		return rc;
	len = (int64_t)py_word(hb, l->str_ascii_size, l->str_length, 8);
	state = (uint32_t)py_word(hb, l->str_ascii_size, l->str_state, 4);
	kind = (state & l->str_kind) >> __builtin_ctz(l->str_kind);
	if (!(state & l->str_compact) ||
	    (l->str_ready && !(state & l->str_ready)) ||
	    (kind != 1 && kind != 2 && kind != 4) ||
	    ((state & l->str_ascii) && kind != 1) || len < 0)
		return prof_fail(PROF_EFORMAT, "%s at %#" PRIx64 ": not a "
				 "compact str (state %#" PRIx32 ", length %"
				 PRId64 ")", what, addr, state, len);
	at = addr + (state & l->str_ascii ? l->str_ascii_size :
		     l->str_compact_size);
	n = len > PY_MAX_STR ? PY_MAX_STR : (size_t)len;
	if (n) {
		rc = py_mem_read(p, at, data, n * kind, what);
		if (rc)
			return rc;
	}
	for (i = 0; i < n; i++) {
		struct bytes b = bytes_of(data + i * kind, kind);

		t += put_utf8(text + t, (uint32_t)bytes_u(&b, kind));
	}
	if ((size_t)len > n) {
		memcpy(text + t, "...", 3);
		t += 3;
	}
	*out = strpool_intern(&p->strings, text, t);
	return *out ? 0 : -PROF_ENOMEM;
}

/* The size of the bytes object at addr (what it is: "line table") in
 * *size, at most max. */
static int bytes_size(struct py_proc *p, uint64_t addr, const char *what,
		      int64_t max, int64_t *size)
{
	const struct layout *l = p->l;
	uint8_t hb[HEADER_MAX];
	int rc;

	rc = read_object(p, addr, p->bytes_type, "bytes object",
			 l->bytes_data, hb, what);
	if (rc)
		return rc;
	*size = (int64_t)py_word(hb, l->bytes_data, l->ob_size, 8);
	if (*size < 0 || *size > max)
		return prof_fail(PROF_EFORMAT, "%s at %#" PRIx64 ": %" PRId64
				 " bytes (at most %" PRId64 ")", what, addr,
				 *size, max);
	return 0;
}

/* The bytes object at addr (co_linetable) in a new buffer. */
static int read_bytes(struct py_proc *p, uint64_t addr, uint8_t **out,
		      size_t *len)
{
	int64_t size;
	int rc;

	*out = NULL;
	*len = 0;
	rc = bytes_size(p, addr, "line table", PY_MAX_LINETABLE, &size);
	if (rc)
		return rc;
	*out = malloc(size ? (size_t)size : 1);
	if (!*out)
		return -PROF_ENOMEM;
	rc = size ? py_mem_read(p, addr + p->l->bytes_data, *out,
				(size_t)size, "a line table") : 0;
	if (rc) {
		free(*out);
		*out = NULL;
		return rc;
	}
	*len = (size_t)size;
	return 0;
}

/* The word of a code object's header that says which bytecode it has:
 * its length (3.11 on: ob_size) or the bytes object (3.9, 3.10). */
static uint64_t code_key(const struct py_proc *p, const uint8_t *hb,
			 size_t hdr_len)
{
	const struct layout *l = p->l;

	return py_word(hb, hdr_len, l->co_code_obj != NONE ? l->co_code_obj :
		       l->ob_size, 8);
}

/* How many code units e's code object has (key[4]: code_key()). */
static int code_units(struct py_proc *p, struct code_entry *e)
{
	int64_t size;
	int rc;

	if (p->l->co_code_obj == NONE) {
		e->nunits = (int64_t)e->key[4];
		return 0;
	}
	rc = bytes_size(p, e->key[4], "co_code",
			(int64_t)MAX_CODE_UNITS * p->l->codeunit_size, &size);
	if (rc)
		return rc;
	e->nunits = size / p->l->codeunit_size;
	return 0;
}

static int code_eq(const void *ctx, size_t entry)
{
	const struct py_proc *p = ctx;

	return p->codes[entry].addr == p->codes[p->ncodes].addr;
}

/* The entry of code address addr (p->codes[p->ncodes] is the probe),
 * or SIZE_MAX. */
static size_t code_find(struct py_proc *p, uint64_t addr)
{
	if (ALLOC_GROW(p->codes, p->ncodes + 1, p->codes_alloc))
		return SIZE_MAX;
	p->codes[p->ncodes].addr = addr;
	return hashmap_find(&p->index, hash_mix64(addr), code_eq, p);
}

/* Read what the entry e keeps of the code object whose header is hb:
 * its qualified name is its name where it has none (3.9, 3.10). */
static int code_fill(struct py_proc *p, const uint8_t *hb, size_t hdr_len,
		     struct code_entry *e)
{
	const struct layout *l = p->l;
	int rc;

	e->key[0] = py_word(hb, hdr_len, l->co_filename, 8);
	e->key[1] = py_word(hb, hdr_len, l->co_name, 8);
	e->key[2] = l->co_qualname == NONE ? 0 :
		    py_word(hb, hdr_len, l->co_qualname, 8);
	e->key[3] = py_word(hb, hdr_len, l->co_linetable, 8);
	e->key[4] = code_key(p, hb, hdr_len);
	e->firstlineno = (int32_t)py_word(hb, hdr_len, l->co_firstlineno, 4);
	free(e->linetable);
	e->linetable = NULL;
	e->last_instr = INT32_MIN;
	if ((rc = read_str(p, e->key[0], "co_filename", &e->filename)) ||
	    (rc = read_str(p, e->key[1], "co_name", &e->name)))
		return rc;
	e->qualname = e->name;
	if (e->key[2] &&
	    (rc = read_str(p, e->key[2], "co_qualname", &e->qualname)))
		return rc;
	if (!name_ok(e->name) || !name_ok(e->qualname))
		return prof_fail(PROF_EFORMAT, "code object: '%s' is no "
				 "Python name (freed as it was read)",
				 name_ok(e->name) ? e->qualname : e->name);
	rc = code_units(p, e);
	return rc ? rc : read_bytes(p, e->key[3], &e->linetable,
				    &e->linetable_len);
}

/* Whether e still describes the code object whose header is hb. */
static bool code_same(const struct py_proc *p, const uint8_t *hb,
		      size_t hdr_len, const struct code_entry *e)
{
	const struct layout *l = p->l;

	return e->linetable &&
	       e->key[0] == py_word(hb, hdr_len, l->co_filename, 8) &&
	       e->key[1] == py_word(hb, hdr_len, l->co_name, 8) &&
	       e->key[2] == (l->co_qualname == NONE ? 0 :
			     py_word(hb, hdr_len, l->co_qualname, 8)) &&
	       e->key[3] == py_word(hb, hdr_len, l->co_linetable, 8) &&
	       e->key[4] == code_key(p, hb, hdr_len) &&
	       e->firstlineno ==
		       (int32_t)py_word(hb, hdr_len, l->co_firstlineno, 4);
}

/* The code object at code, whose header hb was read in this walk, is
 * still the one its entry describes: py_code_info() need not read it. */
void py_code_checked(struct py_proc *p, uint64_t code, const uint8_t *hb)
{
	size_t i = code_find(p, code);

	if (i != SIZE_MAX && code_same(p, hb, p->code_hdr_len, &p->codes[i]))
		p->codes[i].checked = p->walks;
}

/* The line of instruction instr of e's code (the last one asked kept). */
static int code_line(const struct py_proc *p, struct code_entry *e,
		     int32_t instr)
{
	if (instr >= e->nunits)
		return -1;
	if (instr != e->last_instr) {
		e->last_line = py_lines_line(p->l->lines, e->linetable,
					     e->linetable_len,
					     e->firstlineno, instr);
		e->last_instr = instr;
	}
	return e->last_line;
}

int py_code_info(struct py_proc *p, uint64_t code, int32_t instr,
		 struct py_code *out)
{
	size_t hdr_len = p->code_hdr_len;
	uint8_t hb[HEADER_MAX];
	struct code_entry *e;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	i = code_find(p, code);
	if (i != SIZE_MAX && p->codes[i].checked == p->walks && p->walks)
		goto found;
	rc = py_read_code_header(p, code, hb);
	if (rc)
		return rc;
	if (p->ncodes >= MAX_CACHED)
		py_codes_clear(p);
	i = code_find(p, code);
	if (i == SIZE_MAX && p->ncodes == p->codes_alloc)
		return -PROF_ENOMEM;
	if (i == SIZE_MAX) {
		e = &p->codes[p->ncodes];
		memset(e, 0, sizeof(*e));
		e->addr = code;
		if (hashmap_add(&p->index, hash_mix64(code), p->ncodes))
			return -PROF_ENOMEM;
		i = p->ncodes++;
	}
	e = &p->codes[i];
	if (!code_same(p, hb, hdr_len, e)) {
		rc = code_fill(p, hb, hdr_len, e);
		if (rc)
			return rc;
	}
found:
	e = &p->codes[i];
	out->name = e->name;
	out->qualname = e->qualname;
	out->filename = e->filename;
	out->firstlineno = e->firstlineno;
	out->line = code_line(p, e, instr);
	return 0;
}
