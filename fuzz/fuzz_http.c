/*
 * fuzz_http.c — hostile bytes into the HTTP request parser (http/parse.h) as
 * http/server.c meets them on a socket: the end of the head found
 * incrementally, the head parsed in place, the target percent-decoded, then
 * what follows the head decoded as a chunked body.
 *
 * Properties: finding the end a piece at a time gives the same end as all at
 * once; a parsed head's strings lie inside the head and end there; framing is
 * never both chunked and Content-Length; errors are the statuses the server
 * sends; the chunked decoder consumes no more than it is given, never grows
 * the body past its cap, and gives the same body and status whatever the
 * pieces it is fed in.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "http/parse.h"

static _Noreturn void fail(const char *why)
{
	fprintf(stderr, "fuzz_http: %s\n", why);
	abort();
}

static bool inside(const char *buf, size_t len, uint16_t off)
{
	return off < len && memchr(buf + off, 0, len - off) != NULL;
}

/* Decode body bytes fed `step` at a time; returns the status, the body in *out. */
static int decode(const uint8_t *in, size_t n, size_t step, size_t max, sl_buf *out, size_t *used)
{
	sl_http_chunked c = { 0 };
	sl_buf_init(out, max);
	*used = 0;
	while (*used < n && !sl_http_chunked_done(&c)) {
		int st;
		const char *why;
		size_t k = SL_MIN(step, n - *used);
		size_t u = sl_http_chunked_decode(&c, in + *used, k, out, &st, &why);
		if (u > k || out->len > max)
			fail("the decoder took more than it was given, or grew the body past its cap");
		*used += u;
		if (st) {
			if (st != 400 && st != 413 && st != 431 && st != 500)
				fail("a chunked error that is not a status the server sends");
			return st;
		}
		if (u < k && !sl_http_chunked_done(&c))
			fail("bytes left over before the body ended");
	}
	return sl_http_chunked_done(&c) ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	size_t step = (size_t)data[0] % 7 + 1;
	const char *in = (const char *)data + 1;
	size_t len = size - 1, scanned = 0, end = 0;
	for (size_t have = 0; have < len && !end;) {
		have = SL_MIN(len, have + step);
		end = sl_http_head_end(in, have, &scanned);
		if (scanned > have)
			fail("scanned past the bytes given");
	}
	size_t all = 0;
	scanned = 0;
	all = sl_http_head_end(in, len, &scanned);
	if (end != all)
		fail("the end of the head depends on how it arrived");
	if (!end)
		return 0;
	if (end > len || in[end - 1] != '\n')
		fail("a head that does not end in a newline");
	char *buf = malloc(end);
	if (!buf)
		return 0;
	memcpy(buf, in, end);
	sl_http_head *h = malloc(sizeof *h);
	if (!h) {
		free(buf);
		return 0;
	}
	const char *why = NULL;
	int st = sl_http_parse_head(buf, end, h, &why);
	if (st) {
		if (st != 400 && st != 414 && st != 431 && st != 501 && st != 505)
			fail("a head error that is not a status the server sends");
		if (!why || !*why)
			fail("an error without a reason");
	} else {
		if (!inside(buf, end, h->method) || !inside(buf, end, h->target) ||
		    h->nfields > SL_HTTP_MAX_HEADER_FIELDS)
			fail("the request line outside the head");
		if (strlen(buf + h->target) != h->target_len || h->target_len > SL_HTTP_MAX_PATH)
			fail("a target of the wrong length");
		for (size_t i = 0; i < h->nfields; i++)
			if (!inside(buf, end, h->fields[i].name) || !inside(buf, end, h->fields[i].value) ||
			    !buf[h->fields[i].name])
				fail("a header field outside the head");
		if (h->chunked && h->has_length)
			fail("framed both ways");
		char *path = malloc(h->target_len + 1u);
		if (path) {
			ptrdiff_t d = sl_http_pct_decode(buf + h->target, h->target_len, path, true);
			if (d > (ptrdiff_t)h->target_len || (d >= 0 && strlen(path) != (size_t)d))
				fail("a decoded target longer than the target, or with a NUL inside");
			free(path);
		}
		/* What follows the head, as a chunked body: the same whatever the pieces. */
		sl_buf a, b;
		size_t ua, ub;
		int sa = decode(data + 1 + end, len - end, len, 4096, &a, &ua);
		int sb = decode(data + 1 + end, len - end, step, 4096, &b, &ub);
		if (sa != sb ||
		    (sa == 0 && (ua != ub || a.len != b.len || (a.len && memcmp(a.p, b.p, a.len)))))
			fail("the chunked body depends on how it arrived");
		sl_buf_release(&a);
		sl_buf_release(&b);
	}
	free(h);
	free(buf);
	return 0;
}
