/* SPDX-License-Identifier: MIT */
/*
 * Names in a report come from outside: symbol tables, DWARF, paths, the
 * profiled command line.  They can hold any bytes, so the writers make
 * them safe for their format here: JSON must be valid UTF-8 (RFC 8259),
 * and text must not carry bytes a terminal would act on (ESC starts
 * sequences that can retitle, recolour or rewrite the screen).
 */
#ifndef FORMATS_ESCAPE_H
#define FORMATS_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Length of the UTF-8 sequence at s, of which n bytes (n >= 1) are
 * available: 1 to 4 for a well-formed one (no overlong form, surrogate
 * or code point above U+10FFFF); 0 when s[0] does not start one; -1
 * when the n bytes are a well-formed beginning that n cuts short.
 */
int esc_utf8_seq_len(const unsigned char *s, size_t n);

/*
 * A write-only stream that copies what is written to it to out, with
 * each byte that could act on a terminal shown as the four characters
 * \xNN (ESC is "\x1b"): control characters other than newline and tab,
 * DEL, the C1 controls U+0080 to U+009F, and every byte that is not part
 * of well-formed UTF-8 (a lone 0x9b is CSI to a terminal in a Latin-1
 * locale).  Backslashes are not doubled: this is for people, not for
 * parsing back.  fclose() flushes it and fails when out had an error;
 * out stays open.  NULL when out of memory.
 */
FILE *esc_visible_stream(FILE *out);

/*
 * Write s as one word a POSIX shell reads back as s: bare when it holds
 * only characters no shell treats specially, else in single quotes, or
 * as $'...' with \n, \t, \\, \' and \xNN when it holds control
 * characters, so that a command line of many lines (python3 -c "...")
 * stays on one line of a heading and can be pasted back.
 */
void esc_shell_word(FILE *f, const char *s);

/*
 * Mark a text cut to fit: n is what snprintf() returned for buf of len
 * (len >= 4) bytes.  When the text did not fit (n >= len, or n < 0),
 * its end becomes "...", never in the middle of a UTF-8 sequence, so a
 * reader knows the name goes on.  Returns buf.
 */
char *esc_cut(char *buf, size_t len, int n);

#endif
