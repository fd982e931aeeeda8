// SPDX-License-Identifier: MIT
/* Making outside strings safe for the report formats (see escape.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "escape.h"

int esc_utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	int len, i;

	if (c < 0x80)
		return 1;
	if (c < 0xc2)		/* continuation byte, or overlong 2-byte */
		return 0;
	if (c < 0xe0) {
		len = 2;
	} else if (c < 0xf0) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (c == 0xed)
			hi = 0x9f;	/* surrogates */
	} else if (c < 0xf5) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;	/* overlong */
		else if (c == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
	} else {
		return 0;
	}
	for (i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return -1;
		if (s[i] < lo || s[i] > hi)
			return 0;
		lo = 0x80;
		hi = 0xbf;
	}
	return len;
}

struct visible {
	FILE *out;
	unsigned char pend[4];	/* a sequence cut by the stream's buffer */
	size_t npend;
};

static void show_bytes(FILE *out, const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "\\x%02x", s[i]);
}

/* Whether the sequence of len bytes at s is written as it is: well
 * formed, no control character (C0, DEL, C1) but newline and tab. */
static bool as_is(const unsigned char *s, int len)
{
	if (len == 1)
		return (s[0] >= 0x20 || s[0] == '\n' || s[0] == '\t') &&
		       s[0] != 0x7f;
	if (len == 2)
		return s[0] != 0xc2 || s[1] >= 0xa0;
	return len > 0;
}

/* Write the sequence of len bytes at s (len 0: s[0] is ill-formed). */
static void put_seq(FILE *out, const unsigned char *s, int len)
{
	if (as_is(s, len))
		fwrite(s, 1, (size_t)len, out);
	else
		show_bytes(out, s, len ? (size_t)len : 1);
}

/* Write out what pend holds, keeping a well-formed beginning. */
static void drain(struct visible *v, int final)
{
	while (v->npend) {
		int len = esc_utf8_seq_len(v->pend, v->npend);

		if (len < 0) {
			if (!final)
				return;
			len = 0;
		}
		put_seq(v->out, v->pend, len);
		if (!len)
			len = 1;
		v->npend -= (size_t)len;
		memmove(v->pend, v->pend + len, v->npend);
	}
}

static ssize_t visible_write(void *cookie, const char *buf, size_t size)
{
	struct visible *v = cookie;
	const unsigned char *s = (const unsigned char *)buf;
	size_t i = 0;

	while (i < size) {
		/* The common case: whole sequences inside the buffer. */
		if (!v->npend) {
			size_t run = i;
			int len;

			/* What is written as it is goes in one write. */
			while (run < size) {
				if (s[run] < 0x80 && s[run] >= 0x20 &&
				    s[run] != 0x7f) {
					run++;
					continue;
				}
				len = esc_utf8_seq_len(s + run, size - run);
				if (!as_is(s + run, len))
					break;
				run += (size_t)len;
			}
			if (run > i) {
				fwrite(s + i, 1, run - i, v->out);
				i = run;
				continue;
			}
			len = esc_utf8_seq_len(s + i, size - i);
			if (len >= 0) {
				put_seq(v->out, s + i, len);
				i += len ? (size_t)len : 1;
				continue;
			}
		}
		v->pend[v->npend++] = s[i++];
		drain(v, 0);
	}
	return ferror(v->out) ? -1 : (ssize_t)size;
}

static int visible_close(void *cookie)
{
	struct visible *v = cookie;
	int bad;

	drain(v, 1);
	bad = fflush(v->out) || ferror(v->out);
	free(v);
	return bad ? -1 : 0;
}

FILE *esc_visible_stream(FILE *out)
{
	static const cookie_io_functions_t io = {
		.write = visible_write,
		.close = visible_close,
	};
	struct visible *v = calloc(1, sizeof(*v));
	FILE *f;

	if (!v)
		return NULL;
	v->out = out;
	f = fopencookie(v, "w", io);
	if (!f)
		free(v);
	return f;
}

void esc_shell_word(FILE *f, const char *s)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_@%+=:,./-";
	const unsigned char *c;
	bool ctl = false;

	if (*s && strspn(s, plain) == strlen(s)) {
		fputs(s, f);
		return;
	}
	for (c = (const unsigned char *)s; *c; c++)
		ctl |= *c < 0x20 || *c == 0x7f;
	if (!ctl) {
		fputc('\'', f);
		for (; *s; s++) {
			if (*s == '\'')
				fputs("'\\''", f);	/* end, \', reopen */
			else
				fputc(*s, f);
		}
		fputc('\'', f);
		return;
	}
	fputs("$'", f);
	for (c = (const unsigned char *)s; *c; c++) {
		if (*c == '\n')
			fputs("\\n", f);
		else if (*c == '\t')
			fputs("\\t", f);
		else if (*c == '\\' || *c == '\'')
			fprintf(f, "\\%c", *c);
		else if (*c < 0x20 || *c == 0x7f)
			fprintf(f, "\\x%02x", *c);
		else
			fputc(*c, f);
	}
	fputc('\'', f);
}

char *esc_cut(char *buf, size_t len, int n)
{
	size_t p;

	if (n >= 0 && (size_t)n < len)
		return buf;
	/* Room for "..." and the NUL; back to the start of a character. */
	p = len - 4;
	while (p && ((unsigned char)buf[p] & 0xc0) == 0x80)
		p--;
	memcpy(buf + p, "...", 4);
	return buf;
}
