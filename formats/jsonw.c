// SPDX-License-Identifier: MIT
/* The JSON writer (see jsonw.h). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "escape.h"
#include "jsonw.h"

struct jw_level {
	char close;		/* '}' or ']' */
	enum jw_layout layout;
	size_t count;		/* members or elements so far */
	size_t first_key;	/* objects: its first key in keys[] */
	unsigned lines;		/* containers on lines, this one too */
};

/*
 * Keys are only ever removed in the reverse order they were added (an
 * object's keys go when it closes, and it is the innermost), and a new
 * key goes to the head of its hash chain: so the key removed is always
 * the head of its chain, and removing it is popping that head.
 */
struct jw_key {
	size_t name;		/* offset of its bytes in names */
	size_t level;		/* depth of its object */
	size_t hash;
	size_t next;		/* next in its chain: index + 1, or 0 */
};

static void fail(struct json_writer *jw, int err, const char *text)
{
	if (jw->err)
		return;
	jw->err = err;
	jw->err_text = text;
}

void jw_init(struct json_writer *jw, FILE *out)
{
	memset(jw, 0, sizeof(*jw));
	jw->out = out;
}

void jw_release(struct json_writer *jw)
{
	free(jw->levels);
	free(jw->keys);
	free(jw->names);
	free(jw->buckets);
	jw->levels = NULL;
	jw->keys = NULL;
	jw->names = NULL;
	jw->buckets = NULL;
	jw->depth = jw->nkeys = jw->names_len = jw->nbuckets = 0;
	jw->alloc_levels = jw->alloc_keys = jw->alloc_names = 0;
}

const char *jw_error_text(const struct json_writer *jw)
{
	return jw->err ? jw->err_text : NULL;
}

int jw_finish(struct json_writer *jw)
{
	if (jw->depth)
		fail(jw, -PROF_EINVAL, "a container was left open");
	else if (!jw->done)
		fail(jw, -PROF_EINVAL, "the document has no value");
	if (!jw->err)
		fputc('\n', jw->out);
	if (ferror(jw->out))
		fail(jw, -PROF_EIO, "cannot write");
	return jw->err;
}

/* ---- strings ---- */

static void put_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	if (!s) {
		fputs("null", f);
		return;
	}
	n = strlen(str);
	fputc('"', f);
	while (n) {
		unsigned char c = *s;
		int len = esc_utf8_seq_len(s, n);

		if (len <= 0) {
			fputs("\\ufffd", f);
			len = 1;
		} else if (len > 1) {
			fwrite(s, 1, (size_t)len, f);
		} else if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
		} else {
			fputc(c, f);
		}
		s += len;
		n -= (size_t)len;
	}
	fputc('"', f);
}

/* ---- the keys of the open objects ---- */

/* Keys are chained per bucket, not probed: the keys of an object that
 * closes are dropped, newest first, by unlinking them. */
static size_t key_hash(const char *s)
{
	return (size_t)hash_mix64(hash_str(HASH_STR_SEED, s));
}

/* Chain every key again into a table of at least twice their number. */
static int rehash(struct json_writer *jw, size_t want)
{
	size_t n = 64, *b, k;

	while (n < want * 2)
		n *= 2;
	b = calloc(n, sizeof(*b));
	if (!b)
		return -1;
	free(jw->buckets);
	jw->buckets = b;
	jw->nbuckets = n;
	for (k = 0; k < jw->nkeys; k++) {
		size_t h = jw->keys[k].hash & (n - 1);

		jw->keys[k].next = b[h];
		b[h] = k + 1;
	}
	return 0;
}

/* Record key in the innermost object, refusing it when already there. */
static int add_key(struct json_writer *jw, const char *key)
{
	size_t hash = key_hash(key), len = strlen(key) + 1, h, i;
	struct jw_key *k;

	if (jw->nkeys + 1 > jw->nbuckets / 2 && rehash(jw, jw->nkeys + 1))
		goto oom;
	h = hash & (jw->nbuckets - 1);
	for (i = jw->buckets[h]; i; i = jw->keys[i - 1].next) {
		k = &jw->keys[i - 1];
		if (k->level == jw->depth && k->hash == hash &&
		    !strcmp(jw->names + k->name, key)) {
			fail(jw, -PROF_EINVAL,
			     "a key given twice in one object");
			return -1;
		}
	}
	if (ALLOC_GROW(jw->keys, jw->nkeys + 1, jw->alloc_keys) ||
	    ALLOC_GROW(jw->names, jw->names_len + len, jw->alloc_names))
		goto oom;
	k = &jw->keys[jw->nkeys];
	k->name = jw->names_len;
	k->level = jw->depth;
	k->hash = hash;
	k->next = jw->buckets[h];
	memcpy(jw->names + jw->names_len, key, len);
	jw->names_len += len;
	jw->buckets[h] = ++jw->nkeys;
	return 0;
oom:
	fail(jw, -PROF_ENOMEM, "out of memory");
	return -1;
}

/* Forget the keys of the innermost object, which is closing. */
static void drop_keys(struct json_writer *jw, size_t first)
{
	while (jw->nkeys > first) {
		struct jw_key *k = &jw->keys[--jw->nkeys];

		jw->buckets[k->hash & (jw->nbuckets - 1)] = k->next;
		jw->names_len = k->name;
	}
}

/* ---- structure ---- */

static void new_line(FILE *f, unsigned lines)
{
	fputc('\n', f);
	for (unsigned i = 0; i < lines; i++)
		fputs("  ", f);
}

/*
 * Before a value: check that it may go here (key: the open object's
 * member; NULL: the open array's element, or the document), then write
 * the separator and the key.  0 when the writer has failed.
 */
static int start_value(struct json_writer *jw, const char *key, int is_key)
{
	struct jw_level *lv;

	if (jw->err)
		return 0;
	if (!jw->depth) {
		if (is_key || jw->done) {
			fail(jw, -PROF_EINVAL, is_key ?
			     "a member outside an object" :
			     "a second value after the document");
			return 0;
		}
		return 1;
	}
	lv = &jw->levels[jw->depth - 1];
	if (is_key != (lv->close == '}')) {
		fail(jw, -PROF_EINVAL, is_key ? "a member outside an object" :
		     "an element outside an array");
		return 0;
	}
	if (is_key && !key) {
		fail(jw, -PROF_EINVAL, "a member without a key");
		return 0;
	}
	if (is_key && add_key(jw, key))
		return 0;
	if (lv->count++)
		fputc(',', jw->out);
	if (lv->layout != JW_INLINE)
		new_line(jw->out, lv->lines);
	else if (lv->count > 1)
		fputc(' ', jw->out);
	if (is_key) {
		put_string(jw->out, key);
		fputs(": ", jw->out);
	}
	return 1;
}

/* After a value: a value at the top is the whole document. */
static void end_value(struct json_writer *jw)
{
	if (!jw->depth)
		jw->done = 1;
}

static void begin(struct json_writer *jw, const char *key, int is_key,
		  char open, enum jw_layout layout)
{
	struct jw_level *lv;
	unsigned lines;

	if (!start_value(jw, key, is_key))
		return;
	lines = jw->depth ? jw->levels[jw->depth - 1].lines : 0;
	if (ALLOC_GROW(jw->levels, jw->depth + 1, jw->alloc_levels)) {
		fail(jw, -PROF_ENOMEM, "out of memory");
		return;
	}
	fputc(open, jw->out);
	lv = &jw->levels[jw->depth++];
	lv->close = open == '{' ? '}' : ']';
	lv->layout = layout;
	lv->count = 0;
	lv->first_key = jw->nkeys;
	lv->lines = lines + (layout != JW_INLINE);
}

void jw_object_begin(struct json_writer *jw, enum jw_layout layout)
{
	begin(jw, NULL, 0, '{', layout);
}

void jw_array_begin(struct json_writer *jw, enum jw_layout layout)
{
	begin(jw, NULL, 0, '[', layout);
}

void jw_object_begin_object(struct json_writer *jw, const char *key,
			    enum jw_layout layout)
{
	begin(jw, key, 1, '{', layout);
}

void jw_object_begin_array(struct json_writer *jw, const char *key,
			   enum jw_layout layout)
{
	begin(jw, key, 1, '[', layout);
}

void jw_end(struct json_writer *jw)
{
	struct jw_level *lv;

	if (jw->err)
		return;
	if (!jw->depth) {
		fail(jw, -PROF_EINVAL, "an end with nothing open");
		return;
	}
	lv = &jw->levels[jw->depth - 1];
	if (lv->count && lv->layout == JW_LINES)
		new_line(jw->out, lv->lines - 1);
	fputc(lv->close, jw->out);
	if (lv->close == '}')
		drop_keys(jw, lv->first_key);
	jw->depth--;
	end_value(jw);
}

/* ---- scalars ---- */

/* general: "%.*g" (precision: significant digits), else "%.*f". */
static void put_double(FILE *f, int general, int precision, double v)
{
	if (!isfinite(v))
		fputs("null", f);
	else if (general)
		fprintf(f, "%.*g", precision, v);
	else
		fprintf(f, "%.*f", precision, v);
}

static void put_scalar_string(struct json_writer *jw, const char *key,
			      int is_key, const char *value)
{
	if (!start_value(jw, key, is_key))
		return;
	put_string(jw->out, value);
	end_value(jw);
}

static void put_raw(struct json_writer *jw, const char *key, int is_key,
		    const char *text)
{
	if (!start_value(jw, key, is_key))
		return;
	fputs(text, jw->out);
	end_value(jw);
}

static void put_uint(struct json_writer *jw, const char *key, int is_key,
		     uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	put_raw(jw, key, is_key, buf);
}

static void put_int(struct json_writer *jw, const char *key, int is_key,
		    int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	put_raw(jw, key, is_key, buf);
}

static void put_num(struct json_writer *jw, const char *key, int is_key,
		    int general, int precision, double v)
{
	if (!start_value(jw, key, is_key))
		return;
	put_double(jw->out, general, precision, v);
	end_value(jw);
}

void jw_object_string(struct json_writer *jw, const char *key,
		      const char *value)
{
	put_scalar_string(jw, key, 1, value);
}

void jw_object_uint(struct json_writer *jw, const char *key, uint64_t value)
{
	put_uint(jw, key, 1, value);
}

void jw_object_int(struct json_writer *jw, const char *key, int64_t value)
{
	put_int(jw, key, 1, value);
}

void jw_object_double(struct json_writer *jw, const char *key, int decimals,
		      double value)
{
	put_num(jw, key, 1, 0, decimals, value);
}

void jw_object_double_g(struct json_writer *jw, const char *key, int digits,
			double value)
{
	put_num(jw, key, 1, 1, digits, value);
}

void jw_object_bool(struct json_writer *jw, const char *key, int value)
{
	put_raw(jw, key, 1, value ? "true" : "false");
}

void jw_object_null(struct json_writer *jw, const char *key)
{
	put_raw(jw, key, 1, "null");
}

void jw_array_string(struct json_writer *jw, const char *value)
{
	put_scalar_string(jw, NULL, 0, value);
}

void jw_array_uint(struct json_writer *jw, uint64_t value)
{
	put_uint(jw, NULL, 0, value);
}

void jw_array_int(struct json_writer *jw, int64_t value)
{
	put_int(jw, NULL, 0, value);
}

void jw_array_double(struct json_writer *jw, int decimals, double value)
{
	put_num(jw, NULL, 0, 0, decimals, value);
}

void jw_array_double_g(struct json_writer *jw, int digits, double value)
{
	put_num(jw, NULL, 0, 1, digits, value);
}

void jw_array_bool(struct json_writer *jw, int value)
{
	put_raw(jw, NULL, 0, value ? "true" : "false");
}

void jw_array_null(struct json_writer *jw)
{
	put_raw(jw, NULL, 0, "null");
}
