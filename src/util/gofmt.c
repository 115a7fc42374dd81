#include "util/gofmt.h"

#include <ctype.h>
#include <string.h>

static const char *escape_of(unsigned char c)
{
	switch (c) {
	case '\a': return "\\a";
	case '\b': return "\\b";
	case '\f': return "\\f";
	case '\n': return "\\n";
	case '\r': return "\\r";
	case '\t': return "\\t";
	case '\v': return "\\v";
	case '\\': return "\\\\";
	}
	return NULL;
}

void sl_go_quote(sl_buf *b, const char *s, size_t n)
{
	sl_buf_addc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *e = c == '"' ? "\\\"" : escape_of(c);
		if (e)
			sl_buf_adds(b, e);
		else if (c < 0x20 || c == 0x7f)
			sl_buf_addf(b, "\\x%02x", c);
		else
			sl_buf_addc(b, (char)c);
	}
	sl_buf_addc(b, '"');
}

void sl_go_quote_char(char out[16], unsigned char c)
{
	const char *e = c == '\'' ? "\\'" : escape_of(c);
	if (e)
		snprintf(out, 16, "'%s'", e);
	else if (c < 0x20 || c == 0x7f)
		snprintf(out, 16, "'\\x%02x'", c);
	else if (c < 0x80)
		snprintf(out, 16, "'%c'", c);
	else if (c < 0xa0 || c == 0xad)
		snprintf(out, 16, "'\\u%04x'", c); /* not printable in Go's tables */
	else					   /* Latin-1 rune U+00A0..U+00FF, printed as UTF-8 */
		snprintf(out, 16, "'%c%c'", 0xc0 | (c >> 6), 0x80 | (c & 0x3f));
}

void sl_go_errno(char out[128], int e)
{
	snprintf(out, 128, "%s", strerror(e));
	out[0] = (char)tolower((unsigned char)out[0]);
}
