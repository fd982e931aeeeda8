/* SPDX-License-Identifier: MIT */
/*
 * jsonwcheck: drive the JSON writer (formats/jsonw.h) through one case
 * and print what it wrote, for tests/0660-json-writer.bats.
 *
 *   jsonwcheck CASE
 *
 * Writes the document of CASE to stdout and exits 0, or, when the writer
 * refuses a call, prints "jsonwcheck: CASE: refused: WHY" to stderr and
 * exits 1 (what was written before the refusal stays on stdout).  Exits 2
 * for an unknown CASE.  The cases are listed in the table at the end.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "formats/jsonw.h"

/* Quotes, backslashes, control characters and bytes that are not UTF-8,
 * in values and in a key. */
static void escapes(struct json_writer *jw)
{
	jw_object_begin(jw, JW_LINES);
	jw_object_string(jw, "quote", "say \"hi\"");
	jw_object_string(jw, "backslash", "C:\\dir\\");
	jw_object_string(jw, "controls", "nl\n tab\t cr\r nul-free \x01\x1f"
			 " esc\x1b del\x7f");
	jw_object_string(jw, "utf8", "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	jw_object_string(jw, "bad", "ff\xff cont\x80 cut\xe2\x82 "
			 "overlong\xc0\xaf surrogate\xed\xa0\x80 end\xe2");
	jw_object_string(jw, "key\"\\\n\xff", "in a key");
	jw_object_string(jw, "null", NULL);
	jw_end(jw);
}

/* Objects in arrays in objects, in each layout. */
static void nesting(struct json_writer *jw)
{
	jw_object_begin(jw, JW_LINES);
	jw_object_begin_array(jw, "rows", JW_LINES);
	jw_object_begin(jw, JW_INLINE);
	jw_object_uint(jw, "n", 1);
	jw_object_begin_array(jw, "inner", JW_LINES_HUG);
	jw_object_begin(jw, JW_INLINE);
	jw_object_begin_object(jw, "deep", JW_INLINE);
	jw_object_begin_array(jw, "deeper", JW_INLINE);
	jw_array_begin(jw, JW_INLINE);
	jw_array_uint(jw, 1);
	jw_array_string(jw, "two");
	jw_end(jw);
	jw_end(jw);
	jw_end(jw);
	jw_end(jw);
	jw_array_bool(jw, 1);
	jw_end(jw);
	jw_end(jw);
	jw_array_null(jw);
	jw_end(jw);
	jw_object_begin_object(jw, "host", JW_INLINE);
	jw_object_string(jw, "name", "vm");
	jw_end(jw);
	jw_end(jw);
}

/* Empty containers are "{}" and "[]" in every layout. */
static void empty(struct json_writer *jw)
{
	jw_array_begin(jw, JW_LINES);
	jw_object_begin(jw, JW_INLINE);
	jw_end(jw);
	jw_object_begin(jw, JW_LINES);
	jw_end(jw);
	jw_object_begin(jw, JW_LINES_HUG);
	jw_end(jw);
	jw_array_begin(jw, JW_INLINE);
	jw_end(jw);
	jw_array_begin(jw, JW_LINES);
	jw_end(jw);
	jw_array_begin(jw, JW_LINES_HUG);
	jw_end(jw);
	jw_end(jw);
}

/* Integers at their limits; doubles, NaN and infinities (null). */
static void numbers(struct json_writer *jw)
{
	jw_object_begin(jw, JW_INLINE);
	jw_object_uint(jw, "u64_max", UINT64_MAX);
	jw_object_int(jw, "i64_min", INT64_MIN);
	jw_object_int(jw, "minus_one", -1);
	jw_object_double(jw, "pi", 4, 3.14159265);
	jw_object_double(jw, "whole", 0, 2.5e9);
	jw_object_double_g(jw, "big", 6, 1.5e20);
	jw_object_double_g(jw, "small", 6, 0.000012345678);
	jw_object_double(jw, "nan", 4, NAN);
	jw_object_double(jw, "inf", 4, INFINITY);
	jw_object_double_g(jw, "minus_inf", 6, -INFINITY);
	jw_object_begin_array(jw, "array", JW_INLINE);
	jw_array_int(jw, -7);
	jw_array_double(jw, 2, 1.5);
	jw_array_double_g(jw, 3, NAN);
	jw_end(jw);
	jw_end(jw);
}

/* The same key in sibling objects, and in an object and one inside it. */
static void siblings(struct json_writer *jw)
{
	jw_array_begin(jw, JW_INLINE);
	jw_object_begin(jw, JW_INLINE);
	jw_object_uint(jw, "a", 1);
	jw_object_begin_object(jw, "inner", JW_INLINE);
	jw_object_uint(jw, "a", 2);
	jw_object_uint(jw, "inner", 3);
	jw_end(jw);
	jw_object_uint(jw, "b", 4);
	jw_end(jw);
	jw_object_begin(jw, JW_INLINE);
	jw_object_uint(jw, "a", 5);
	jw_object_uint(jw, "inner", 6);
	jw_end(jw);
	jw_end(jw);
}

/* A key twice in one object: refused, and nothing more is written. */
static void duplicate(struct json_writer *jw)
{
	jw_object_begin(jw, JW_INLINE);
	jw_object_uint(jw, "a", 1);
	jw_object_uint(jw, "b", 2);
	jw_object_uint(jw, "a", 3);
	jw_object_uint(jw, "c", 4);
	jw_end(jw);
}

/* The repeated key comes after an object that had it closed. */
static void duplicate_after_inner(struct json_writer *jw)
{
	jw_object_begin(jw, JW_INLINE);
	jw_object_begin_object(jw, "x", JW_INLINE);
	jw_object_uint(jw, "y", 1);
	jw_end(jw);
	jw_object_begin_array(jw, "x", JW_INLINE);
	jw_end(jw);
	jw_end(jw);
}

/* Many keys (the key table grows), then the first again. */
static void duplicate_among_many(struct json_writer *jw)
{
	char key[16];

	jw_object_begin(jw, JW_INLINE);
	for (int i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		jw_object_uint(jw, key, (uint64_t)i);
	}
	jw_object_uint(jw, "k0", 0);
	jw_end(jw);
}

/* Keys that only differ after the same prefix, many objects deep. */
static void many_keys(struct json_writer *jw)
{
	char key[16];

	jw_object_begin(jw, JW_INLINE);
	for (int d = 0; d < 50; d++) {
		for (int i = 0; i < 40; i++) {
			snprintf(key, sizeof(key), "k%d", i);
			jw_object_uint(jw, key, (uint64_t)d);
		}
		jw_object_begin_object(jw, "next", JW_INLINE);
	}
	for (int d = 0; d < 50; d++)
		jw_end(jw);
	jw_end(jw);
}

static void member_in_array(struct json_writer *jw)
{
	jw_array_begin(jw, JW_INLINE);
	jw_object_uint(jw, "a", 1);
	jw_end(jw);
}

static void element_in_object(struct json_writer *jw)
{
	jw_object_begin(jw, JW_INLINE);
	jw_array_uint(jw, 1);
	jw_end(jw);
}

static void unclosed(struct json_writer *jw)
{
	jw_object_begin(jw, JW_INLINE);
	jw_object_begin_array(jw, "a", JW_INLINE);
	jw_end(jw);
}

static void end_too_many(struct json_writer *jw)
{
	jw_array_begin(jw, JW_INLINE);
	jw_end(jw);
	jw_end(jw);
}

static void two_documents(struct json_writer *jw)
{
	jw_array_begin(jw, JW_INLINE);
	jw_end(jw);
	jw_array_begin(jw, JW_INLINE);
	jw_end(jw);
}

static void null_key(struct json_writer *jw)
{
	jw_object_begin(jw, JW_INLINE);
	jw_object_uint(jw, NULL, 1);
	jw_end(jw);
}

static void scalar_document(struct json_writer *jw)
{
	jw_array_string(jw, "just a string");
}

static const struct {
	const char *name;
	void (*run)(struct json_writer *jw);
} cases[] = {
	{ "escapes", escapes },
	{ "nesting", nesting },
	{ "empty", empty },
	{ "numbers", numbers },
	{ "siblings", siblings },
	{ "many-keys", many_keys },
	{ "scalar-document", scalar_document },
	{ "duplicate", duplicate },
	{ "duplicate-after-inner", duplicate_after_inner },
	{ "duplicate-among-many", duplicate_among_many },
	{ "member-in-array", member_in_array },
	{ "element-in-object", element_in_object },
	{ "unclosed", unclosed },
	{ "end-too-many", end_too_many },
	{ "two-documents", two_documents },
	{ "null-key", null_key },
};

int main(int argc, char **argv)
{
	struct json_writer jw;
	size_t i;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: jsonwcheck CASE\n");
		return 2;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!strcmp(cases[i].name, argv[1]))
			break;
	if (i == sizeof(cases) / sizeof(cases[0])) {
		fprintf(stderr, "jsonwcheck: unknown case '%s'\n", argv[1]);
		return 2;
	}
	jw_init(&jw, stdout);
	cases[i].run(&jw);
	err = jw_finish(&jw);
	if (err)
		fprintf(stderr, "jsonwcheck: %s: refused: %s\n", argv[1],
			jw_error_text(&jw));
	jw_release(&jw);
	if (fflush(stdout))
		return 1;
	return err ? 1 : 0;
}
