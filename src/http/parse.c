/*
 * parse.c — the request parser (parse.h). Every loop is bounded by the
 * length it is given; nothing is allocated except what a chunked body adds
 * to its bounded sl_buf.
 */
#include "http/parse.h"

#include <strings.h>

#include "util/hex.h"

/* RFC 9110 tchar: the bytes of a token (methods, header names). */
static const bool tchar[256] = {
	['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1, ['*'] = 1, ['+'] = 1, ['-'] = 1,
	['.'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['|'] = 1, ['~'] = 1,  ['0'] = 1, ['1'] = 1, ['2'] = 1,
	['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1,  ['9'] = 1, ['A'] = 1, ['B'] = 1,
	['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1,  ['I'] = 1, ['J'] = 1, ['K'] = 1,
	['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1,  ['R'] = 1, ['S'] = 1, ['T'] = 1,
	['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,  ['a'] = 1, ['b'] = 1, ['c'] = 1,
	['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1,  ['j'] = 1, ['k'] = 1, ['l'] = 1,
	['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,  ['s'] = 1, ['t'] = 1, ['u'] = 1,
	['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
};

size_t sl_http_head_end(const char *buf, size_t len, size_t *scanned)
{
	size_t i = *scanned;
	while (i < len) {
		const char *nl = memchr(buf + i, '\n', len - i);
		if (!nl)
			break;
		i = (size_t)(nl - buf);
		/* An empty line follows: "\n\n" or "\n\r\n". */
		if (i + 1 >= len)
			break;
		if (buf[i + 1] == '\n')
			return i + 2;
		if (buf[i + 1] == '\r') {
			if (i + 2 >= len)
				break;
			if (buf[i + 2] == '\n')
				return i + 3;
		}
		i++;
	}
	/* Resume at a newline still waiting for what follows it, else at the end. */
	*scanned = i < len ? i : len;
	return 0;
}

/* The line at *p: its start and length without the CRLF or LF; false when no LF is left. */
static bool next_line(char *buf, size_t len, size_t *p, char **line, size_t *ll)
{
	if (*p >= len)
		return false;
	char *s = buf + *p, *nl = memchr(s, '\n', len - *p);
	if (!nl)
		return false;
	size_t n = (size_t)(nl - s);
	*p += n + 1;
	if (n && s[n - 1] == '\r')
		n--;
	*line = s;
	*ll = n;
	return true;
}

static bool is_ows(char c) { return c == ' ' || c == '\t'; }

/* Does the comma-separated list hold `tok` (case-insensitive, white space around items ignored)? */
static bool list_has(const char *v, const char *tok)
{
	size_t tl = strlen(tok);
	while (*v) {
		while (is_ows(*v) || *v == ',')
			v++;
		const char *s = v;
		while (*v && *v != ',')
			v++;
		const char *e = v;
		while (e > s && is_ows(e[-1]))
			e--;
		if ((size_t)(e - s) == tl && !strncasecmp(s, tok, tl))
			return true;
	}
	return false;
}

#define FAIL(st, msg)         \
	do {                  \
		*why = (msg); \
		return (st);  \
	} while (0)

static int request_line(char *buf, char *line, size_t ll, sl_http_head *h, const char **why)
{
	size_t i = 0;
	while (i < ll && tchar[(unsigned char)line[i]])
		i++;
	if (!i || i >= ll || line[i] != ' ')
		FAIL(400, "malformed request line");
	size_t t = i + 1, k = t;
	while (k < ll && line[k] != ' ')
		k++;
	if (k == t || k >= ll)
		FAIL(400, "malformed request line");
	if (k - t > SL_HTTP_MAX_PATH)
		FAIL(414, "request target too long");
	for (size_t j = t; j < k; j++) {
		unsigned char c = (unsigned char)line[j];
		if (c <= 0x20 || c == 0x7f)
			FAIL(400, "invalid character in request target");
	}
	const char *v = line + k + 1;
	size_t vl = ll - k - 1;
	if (vl != 8 || memcmp(v, "HTTP/", 5) || v[6] != '.' || sl_hex_digit((unsigned char)v[5]) < 0 ||
	    sl_hex_digit((unsigned char)v[7]) < 0 || v[5] > '9' || v[7] > '9')
		FAIL(400, "malformed HTTP version");
	if (v[5] != '1')
		FAIL(505, "HTTP version not supported");
	h->minor = v[7] == '0' ? 0 : 1;
	line[i] = 0;
	line[k] = 0;
	h->method = (uint16_t)(line - buf);
	h->target = (uint16_t)(line + t - buf);
	h->target_len = (uint16_t)(k - t);
	return 0;
}

/* What the server itself must know of a header: framing, persistence, Expect. */
static int field_meaning(const char *name, const char *value, sl_http_head *h, unsigned *hosts,
			 bool *conn_close, bool *conn_keep, const char **why)
{
	switch (name[0] | 0x20) {
	case 'c':
		if (!strcasecmp(name, "content-length")) {
			if (!*value)
				FAIL(400, "invalid Content-Length");
			uint64_t n = 0;
			for (const char *p = value; *p; p++) {
				if (*p < '0' || *p > '9')
					FAIL(400, "invalid Content-Length");
				unsigned d = (unsigned)(*p - '0');
				n = n > (UINT64_MAX - d) / 10 ? UINT64_MAX : n * 10 + d;
			}
			if (h->has_length && n != h->content_length)
				FAIL(400, "conflicting Content-Length headers");
			h->has_length = true;
			h->content_length = n;
		} else if (!strcasecmp(name, "connection")) {
			*conn_close |= list_has(value, "close");
			*conn_keep |= list_has(value, "keep-alive");
		}
		return 0;
	case 't':
		if (!strcasecmp(name, "transfer-encoding")) {
			if (h->chunked || strcasecmp(value, "chunked"))
				FAIL(501, "unsupported Transfer-Encoding");
			h->chunked = true;
		}
		return 0;
	case 'e':
		if (!strcasecmp(name, "expect") && !strcasecmp(value, "100-continue"))
			h->expect_continue = true;
		return 0;
	case 'h':
		if (!strcasecmp(name, "host"))
			(*hosts)++;
		return 0;
	default: return 0;
	}
}

int sl_http_parse_head(char *buf, size_t len, sl_http_head *h, const char **why)
{
	memset(h, 0, offsetof(sl_http_head, fields));
	*why = "";
	if (len > SL_HTTP_MAX_HEADER_BYTES)
		FAIL(431, "request header fields too large");
	size_t p = 0, ll;
	char *line;
	if (!next_line(buf, len, &p, &line, &ll))
		FAIL(400, "incomplete request head");
	int st = request_line(buf, line, ll, h, why);
	if (st)
		return st;
	unsigned hosts = 0;
	bool conn_close = false, conn_keep = false;
	for (;;) {
		if (!next_line(buf, len, &p, &line, &ll))
			FAIL(400, "incomplete request head");
		if (!ll)
			break;
		if (is_ows(line[0]))
			FAIL(400, "obsolete line folding");
		size_t i = 0;
		while (i < ll && tchar[(unsigned char)line[i]])
			i++;
		if (!i || i >= ll || line[i] != ':')
			FAIL(400, "malformed header field");
		size_t v = i + 1, e = ll;
		while (v < e && is_ows(line[v]))
			v++;
		while (e > v && is_ows(line[e - 1]))
			e--;
		for (size_t j = v; j < e; j++) {
			unsigned char c = (unsigned char)line[j];
			if ((c < 0x20 && c != '\t') || c == 0x7f)
				FAIL(400, "invalid character in header value");
		}
		if (h->nfields >= SL_HTTP_MAX_HEADER_FIELDS)
			FAIL(431, "too many header fields");
		line[i] = 0;
		line[e] = 0; /* e <= ll: at worst the line's own CR or LF, already passed */
		h->fields[h->nfields++] =
			(sl_http_field){ (uint16_t)(line - buf), (uint16_t)(line + v - buf) };
		if ((st = field_meaning(line, line + v, h, &hosts, &conn_close, &conn_keep, why)))
			return st;
	}
	if (p != len)
		FAIL(400, "malformed request head");
	if (h->chunked && h->has_length)
		FAIL(400, "both Transfer-Encoding and Content-Length");
	if (h->chunked && !h->minor)
		FAIL(400, "Transfer-Encoding in an HTTP/1.0 request");
	if (hosts > 1)
		FAIL(400, "more than one Host header");
	if (h->minor && !hosts)
		FAIL(400, "missing Host header");
	h->keep_alive = !conn_close && (h->minor || conn_keep);
	return 0;
}

const char *sl_http_head_field(const sl_http_head *h, const char *buf, const char *name)
{
	for (size_t i = 0; i < h->nfields; i++)
		if (!strcasecmp(buf + h->fields[i].name, name))
			return buf + h->fields[i].value;
	return NULL;
}

ptrdiff_t sl_http_pct_decode(const char *in, size_t n, char *out, bool plus)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char c = in[i];
		int hi, lo;
		if (c == '%' && i + 2 < n && (hi = sl_hex_digit((unsigned char)in[i + 1])) >= 0 &&
		    (lo = sl_hex_digit((unsigned char)in[i + 2])) >= 0) {
			c = (char)(hi << 4 | lo);
			i += 2;
		} else if (plus && c == '+') {
			c = ' ';
		}
		if (!c)
			return -1;
		out[o++] = c;
	}
	out[o] = 0;
	return (ptrdiff_t)o;
}

enum {
	CK_SIZE,
	CK_EXT,
	CK_SIZE_LF,
	CK_DATA,
	CK_DATA_CR,
	CK_DATA_LF,
	CK_TRAILER_START,
	CK_TRAILER,
	CK_FINAL_LF,
	CK_DONE
};

bool sl_http_chunked_done(const sl_http_chunked *c) { return c->state == CK_DONE; }

/* The size line has ended: the next chunk's data, or the trailers after the last chunk. */
static int size_line_done(sl_http_chunked *c, const sl_buf *body, const char **why)
{
	if (!c->digits)
		FAIL(400, "malformed chunk size");
	c->line = 0;
	c->digits = false;
	if (!c->size) {
		c->state = CK_TRAILER_START;
		return 0;
	}
	/* Refused before a byte of it is read: the declared chunk cannot fit. */
	if (c->size > body->max - SL_MIN(body->len, body->max))
		FAIL(413, "request body too large");
	c->state = CK_DATA;
	return 0;
}

size_t sl_http_chunked_decode(sl_http_chunked *c, const uint8_t *in, size_t n, sl_buf *body, int *status,
			      const char **why)
{
	size_t i = 0;
	*status = 0;
	*why = "";
#define CK_FAIL(st, msg)        \
	do {                    \
		*status = (st); \
		*why = (msg);   \
		return i;       \
	} while (0)
	while (i < n && c->state != CK_DONE) {
		uint8_t b = in[i];
		switch (c->state) {
		case CK_SIZE:
		case CK_EXT: {
			if (++c->line > SL_HTTP_MAX_CHUNK_LINE)
				CK_FAIL(400, "chunk size line too long");
			i++;
			if (b == '\r') {
				c->state = CK_SIZE_LF;
			} else if (b == '\n') {
				if ((*status = size_line_done(c, body, why)))
					return i;
			} else if (c->state == CK_EXT) {
				/* extensions are ignored, as RFC 9112 allows */
			} else if (sl_hex_digit(b) >= 0) {
				if (c->size > UINT64_MAX >> 4)
					CK_FAIL(413, "request body too large");
				c->size = c->size << 4 | (uint64_t)sl_hex_digit(b);
				c->digits = true;
			} else if (c->digits && (b == ';' || b == ' ' || b == '\t')) {
				c->state = CK_EXT;
			} else {
				CK_FAIL(400, "malformed chunk size");
			}
			break;
		}
		case CK_SIZE_LF:
			if (b != '\n')
				CK_FAIL(400, "malformed chunk size");
			i++;
			if ((*status = size_line_done(c, body, why)))
				return i;
			break;
		case CK_DATA: {
			size_t take = (size_t)SL_MIN(c->size, (uint64_t)(n - i));
			sl_buf_add(body, in + i, take);
			if (body->err)
				CK_FAIL(body->err == SL_ERR_TOO_LARGE ? 413 : 500,
					body->err == SL_ERR_TOO_LARGE ? "request body too large"
								      : "out of memory");
			i += take;
			c->size -= take;
			if (!c->size)
				c->state = CK_DATA_CR;
			break;
		}
		case CK_DATA_CR:
		case CK_DATA_LF:
			if (b == '\r' && c->state == CK_DATA_CR)
				c->state = CK_DATA_LF;
			else if (b == '\n')
				c->state = CK_SIZE;
			else
				CK_FAIL(400, "chunk data not followed by CRLF");
			i++;
			break;
		case CK_TRAILER_START:
		case CK_TRAILER:
			if (++c->line > SL_HTTP_MAX_HEADER_BYTES)
				CK_FAIL(431, "trailer fields too large");
			i++;
			if (c->state == CK_TRAILER_START && b == '\r')
				c->state = CK_FINAL_LF;
			else if (b == '\n')
				c->state = c->state == CK_TRAILER_START ? CK_DONE : CK_TRAILER_START;
			else
				c->state = CK_TRAILER;
			break;
		case CK_FINAL_LF:
			if (b != '\n')
				CK_FAIL(400, "malformed chunked trailer");
			i++;
			c->state = CK_DONE;
			break;
		}
	}
#undef CK_FAIL
	return i;
}
