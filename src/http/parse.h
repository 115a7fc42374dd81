/*
 * parse.h — the HTTP/1.1 request parser of http/server.c, without sockets
 * (so unit tests and fuzz/fuzz_http.c drive it with plain bytes).
 *
 * Three pieces, each bounded by what it is given and allocating nothing:
 *   sl_http_head_end()      finds where a request head ends, resuming where
 *                           the last call stopped (a head trickled in byte by
 *                           byte is scanned once, not once per byte);
 *   sl_http_parse_head()    parses a complete head in place, RFC 9112 strict
 *                           where leniency enables request smuggling;
 *   sl_http_chunked_decode() decodes a chunked body as it arrives, into a
 *                           bounded sl_buf.
 * Errors are HTTP statuses (400, 413, 414, 431, 501, 505) with a short
 * English reason; the server turns them into responses.
 *
 * What the parser accepts:
 *   - lines end in CRLF or a bare LF; a CR anywhere else is an error;
 *   - request line `METHOD SP target SP HTTP/1.x`, single spaces, the method a
 *     token, the target of visible bytes (>= 0x80 allowed) and at most
 *     SL_HTTP_MAX_PATH of them (414); HTTP/1.0 and HTTP/1.1 (a higher minor is
 *     1.1; another major is 505);
 *   - at most SL_HTTP_MAX_HEADER_FIELDS header lines (431); `name: value`,
 *     the name a token right before the colon, optional white space around
 *     the value; obsolete line folding is an error;
 *   - Content-Length of digits only, repeated only with the same value;
 *     Transfer-Encoding exactly `chunked` (anything else: 501), never with a
 *     Content-Length, never in HTTP/1.0 (400); HTTP/1.1 needs exactly one Host.
 * The caller bounds the head (SL_HTTP_MAX_HEADER_BYTES: 431) and skips the
 * empty lines a client may send before a request line.
 */
#ifndef SL_HTTP_PARSE_H
#define SL_HTTP_PARSE_H

#include "util/buf.h"
#include "util/limits.h"

_Static_assert(SL_HTTP_MAX_HEADER_BYTES <= 65535, "head offsets are 16-bit");

/* Offsets into the head buffer; each names a NUL-terminated string after parsing. */
typedef struct sl_http_field {
	uint16_t name, value;
} sl_http_field;

typedef struct sl_http_head {
	uint16_t method, target; /* target: raw, as sent (origin, absolute, authority or asterisk form) */
	uint16_t target_len;
	uint16_t nfields;
	uint8_t minor; /* HTTP/1.minor: 0 or 1 */
	bool has_length, chunked;
	bool keep_alive;	 /* 1.1 unless "Connection: close"; 1.0 only with "Connection: keep-alive" */
	bool expect_continue;	 /* "Expect: 100-continue" */
	uint64_t content_length; /* when has_length; saturates at UINT64_MAX */
	sl_http_field fields[SL_HTTP_MAX_HEADER_FIELDS];
} sl_http_head;

/*
 * Where the head at the start of buf[0..len) ends: the length through its
 * empty line, or 0 when the empty line has not arrived yet. *scanned holds
 * the progress between calls on the same growing buffer (0 on the first).
 */
size_t sl_http_head_end(const char *buf, size_t len, size_t *scanned);

/*
 * Parse the complete head buf[0..len) (len from sl_http_head_end) in place:
 * the method, target, header names and values become NUL-terminated strings
 * inside buf. Returns 0, or an HTTP status with *why set to the reason.
 */
int sl_http_parse_head(char *buf, size_t len, sl_http_head *h, const char **why);

/* The value of the first header `name` (case-insensitive), or NULL. */
const char *sl_http_head_field(const sl_http_head *h, const char *buf, const char *name);

/*
 * Percent-decode in[0..n) into out (which may be in itself: the result is
 * never longer); `plus` turns '+' into a space (query strings). A '%' not
 * followed by two hex digits stays as it is. Returns the decoded length, or
 * -1 when it would hold a NUL byte. out is NUL-terminated (room for n + 1).
 */
ptrdiff_t sl_http_pct_decode(const char *in, size_t n, char *out, bool plus);

/* A chunked body's decoder: zero it before the first call. */
typedef struct sl_http_chunked {
	uint8_t state;
	bool digits;   /* the size line has at least one hex digit */
	uint32_t line; /* bytes of the current size line, or of the trailer section */
	uint64_t size; /* the chunk size being read, then the bytes left of the chunk */
} sl_http_chunked;

/*
 * Decode in[0..n) onto the end of body (bounded by body->max). Returns the
 * bytes consumed: all of them until the body ends, then no further (what
 * follows is the next request). *status is 0, or 400/413/431 with *why set.
 * The body is complete when sl_http_chunked_done().
 */
size_t sl_http_chunked_decode(sl_http_chunked *c, const uint8_t *in, size_t n, sl_buf *body, int *status,
			      const char **why);
bool sl_http_chunked_done(const sl_http_chunked *c);

#endif
