/* SPDX-License-Identifier: MIT */
/*
 * The JSON writer: the one place JSON text is made.  Callers say what
 * they write (begin an object, a member "name" with this value, end);
 * the writer owns the syntax: escaping, brackets, commas, the layout of
 * white space and the form of numbers.  It streams to a FILE as it goes.
 *
 *	struct json_writer jw;
 *
 *	jw_init(&jw, stdout);
 *	jw_object_begin(&jw, JW_LINES);
 *	jw_object_string(&jw, "name", "cycles");
 *	jw_object_begin_array(&jw, "rows", JW_INLINE);
 *	jw_array_uint(&jw, 42);
 *	jw_end(&jw);
 *	jw_end(&jw);
 *	err = jw_finish(&jw);
 *	jw_release(&jw);
 *
 * writes
 *
 *	{
 *	  "name": "cycles",
 *	  "rows": [42]
 *	}
 *
 * Strings are bytes from outside (symbols, paths, command lines): every
 * byte that is not part of well-formed UTF-8 (escape.h) becomes U+FFFD,
 * written "\ufffd"; '"' and '\\' are escaped, newline and tab as "\n"
 * and "\t", other control characters and DEL as "\u00XX".  Keys are
 * escaped the same way.  A NULL string is written as null.
 *
 * Numbers: integers are written exactly.  Doubles are finite in JSON, so
 * a NaN or an infinity is written as null: readers of the report take
 * null as "no value", which is what a NaN stands for here.  Doubles are
 * written with printf's "%.*f" or "%.*g" in the C locale's LC_NUMERIC
 * (the tools never call setlocale), so the decimal point is '.'.
 *
 * Errors.  Misuse is a programming error that the writer detects instead
 * of writing broken JSON:
 * - a key that the open object already has (the same key in two
 *   objects, nested or siblings, is fine);
 * - a member (jw_object_*) when no object is open, an element
 *   (jw_array_*, jw_object_begin, jw_array_begin) when an array is not
 *   open, other than the one document value at the start;
 * - jw_end with nothing open; jw_finish with something still open;
 * - a NULL key.
 * The first error stops the writer: nothing more is written (the output
 * ends where the error was, so it cannot be mistaken for a whole
 * document), later calls do nothing, and jw_finish returns the error:
 * -PROF_EINVAL for misuse, -PROF_ENOMEM when memory for the keys ran
 * out, -PROF_EIO when the stream had an error.  The writer does not
 * assert: a name that comes from a damaged profile must make the report
 * fail, not crash the tool.  jw_error_text says what went wrong so far
 * (NULL: nothing).
 *
 * Checking keys costs a copy of the keys of the open objects (not of
 * closed ones) and a hash lookup per member.
 */
#ifndef FORMATS_JSONW_H
#define FORMATS_JSONW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Where an object's members or an array's elements go.  The indent of a
 * line is two spaces per open container laid out on lines (JW_LINES or
 * JW_LINES_HUG), this one included.  An empty container is "{}" or "[]"
 * whatever its layout.
 */
enum jw_layout {
	JW_INLINE,	/* {"a": 1, "b": 2} */
	JW_LINES,	/* each on a line of its own; the closing bracket
			 * too, indented as the line that opened it */
	JW_LINES_HUG,	/* each on a line of its own; the closing bracket
			 * right after the last one */
};

struct jw_level;
struct jw_key;

struct json_writer {
	FILE *out;
	int err;			/* first error: 0 or -PROF_E* */
	const char *err_text;		/* what it was, for a message */
	int done;			/* the document value is complete */
	struct jw_level *levels;	/* open containers, innermost last */
	size_t depth, alloc_levels;
	struct jw_key *keys;		/* keys of the open objects */
	size_t nkeys, alloc_keys;
	char *names;			/* the keys, each NUL-terminated */
	size_t names_len, alloc_names;
	size_t *buckets;		/* hash of keys: head index + 1, or 0 */
	size_t nbuckets;
};

/* Start a document on out, which must stay open until jw_finish. */
void jw_init(struct json_writer *jw, FILE *out);
/*
 * End the document: a newline after its value.  Return 0, or the first
 * error (see above), -PROF_EIO too when out has its error flag set.  Does
 * not flush out nor release the writer.
 */
int jw_finish(struct json_writer *jw);
/* Free the writer's memory; out is not closed.  Safe after jw_init. */
void jw_release(struct json_writer *jw);
/* One line saying what the first error was, or NULL when there is none. */
const char *jw_error_text(const struct json_writer *jw);

/* Containers: as the document, as an element of the open array, or as
 * the member key of the open object.  jw_end closes the innermost. */
void jw_object_begin(struct json_writer *jw, enum jw_layout layout);
void jw_array_begin(struct json_writer *jw, enum jw_layout layout);
void jw_object_begin_object(struct json_writer *jw, const char *key,
			    enum jw_layout layout);
void jw_object_begin_array(struct json_writer *jw, const char *key,
			   enum jw_layout layout);
void jw_end(struct json_writer *jw);

/* Members of the open object.  jw_object_double writes "%.*f" with
 * decimals digits after the point, jw_object_double_g "%.*g" with digits
 * significant digits; both write null for a NaN or an infinity. */
void jw_object_string(struct json_writer *jw, const char *key,
		      const char *value);
void jw_object_uint(struct json_writer *jw, const char *key, uint64_t value);
void jw_object_int(struct json_writer *jw, const char *key, int64_t value);
void jw_object_double(struct json_writer *jw, const char *key, int decimals,
		      double value);
void jw_object_double_g(struct json_writer *jw, const char *key, int digits,
			double value);
void jw_object_bool(struct json_writer *jw, const char *key, int value);
void jw_object_null(struct json_writer *jw, const char *key);

/* Elements of the open array, as the members above. */
void jw_array_string(struct json_writer *jw, const char *value);
void jw_array_uint(struct json_writer *jw, uint64_t value);
void jw_array_int(struct json_writer *jw, int64_t value);
void jw_array_double(struct json_writer *jw, int decimals, double value);
void jw_array_double_g(struct json_writer *jw, int digits, double value);
void jw_array_bool(struct json_writer *jw, int value);
void jw_array_null(struct json_writer *jw);

#endif
