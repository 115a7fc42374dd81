/*
 * gofmt.h — Go's ways of writing values into error texts, which the node
 * API repeats byte for byte: strconv.Quote (%q of a string), the quoting of
 * one byte in encoding/json syntax errors and of a rune in %q, and the
 * spelling of errno texts.
 */
#ifndef SL_GOFMT_H
#define SL_GOFMT_H

#include "util/buf.h"

/* %q of a string: printable UTF-8 kept, quotes, backslashes and controls escaped. */
void sl_go_quote(sl_buf *b, const char *s, size_t n);
/* One byte as Go quotes it ('x', '\n', '\x01', '\''; a byte >= 0x80 as the rune U+00XX). */
void sl_go_quote_char(char out[16], unsigned char c);
/* strerror(e) as Go's syscall package spells it: the first letter lower case. */
void sl_go_errno(char out[128], int e);

#endif
