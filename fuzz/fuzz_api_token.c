/*
 * fuzz_api_token.c — page tokens (api/token.c) against their reader.
 *
 * Input: a mode byte, then
 *   mode even: a token string, read as the pageToken of a list: it decodes,
 *     or fails with a 400 naming pageToken; one it takes has a cursor of
 *     1 to API_CURSOR_MAX bytes (taking one at all needs the store's secret)
 *   mode odd: a cursor (its first byte its length), then edits (position,
 *     byte) applied to the token the API issues for it. The token as issued
 *     reads back to the same cursor, on its own list only; an edited token
 *     is refused unless it decodes to the same bytes (base64url's unused
 *     bits), and then it reads back to the same cursor.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_fixture.h"
#include "fuzz.h"

static api_fixture f, g;

static _Noreturn void fail(const char *why, const char *tok)
{
	fprintf(stderr, "fuzz_api_token: %s (token '%.600s', response %.300s)\n", why, tok,
		sl_buf_str(&f.resp.body));
	abort();
}

/* Read tok as the pageToken of fixture x; true with the cursor when taken. */
static bool take(api_fixture *x, const char *tok, size_t n, uint8_t cur[API_CURSOR_MAX], size_t *len)
{
	fx_clear(x);
	fx_set_token(x, tok, n);
	bool ok = api_page_cursor(&x->r, cur, len);
	if (ok == x->r.failed)
		fail("a result that disagrees with the request's state", tok);
	if (!ok && (x->r.status != 400 || !strstr(sl_buf_str(&x->resp.body), "pageToken")))
		fail("a refusal that is not a 400 naming pageToken", tok);
	if (ok && (!*len || *len > API_CURSOR_MAX))
		fail("a cursor of a size no list has", tok);
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	if (!ready) {
		fx_api_init(&f.api);
		fx_api_init(&g.api);
		ready = true;
	}
	if (!size)
		return 0;
	/* two lists: the latest vertices, and the vertices at height 3 */
	fx_begin(&f, fx_route("vertices"), "", NULL, 0, NULL, NULL);
	fx_begin(&g, fx_route("vertices_by_height"), "vertexHeight=3", NULL, 0, NULL, NULL);
	if (!api_params_parse(&f.r) || !api_params_parse(&g.r))
		abort();
	uint8_t cur[API_CURSOR_MAX];
	size_t len;
	if (!(data[0] & 1)) {
		char *tok = malloc(size);
		memcpy(tok, data + 1, size - 1);
		tok[size - 1] = 0;
		take(&f, tok, size - 1, cur, &len);
		free(tok);
	} else if (size >= 2) {
		size_t n = 1 + data[1] % API_CURSOR_MAX;
		uint8_t c[API_CURSOR_MAX] = { 0 };
		size_t have = size - 2 < n ? size - 2 : n;
		memcpy(c, data + 2, have);
		const uint8_t *edits = data + 2 + have;
		size_t nedits = (size - 2 - have) / 2;
		char tok[1024], orig[1024];
		size_t tn = fx_issue(&f, c, n, tok, sizeof tok);
		if (!tn)
			fail("no token issued", "");
		memcpy(orig, tok, tn + 1);
		if (!take(&f, tok, tn, cur, &len) || len != n || memcmp(cur, c, n))
			fail("an issued token that does not read back", tok);
		if (take(&g, tok, tn, cur, &len))
			fail("a token taken by another list", tok);
		for (size_t i = 0; i < nedits; i++) {
			size_t at = edits[2 * i] % (tn + 1);
			if (at == tn && tn + 1 < sizeof tok) {
				tok[tn++] = (char)edits[2 * i + 1]; /* append */
				tok[tn] = 0;
			} else if (at < tn) {
				tok[at] = (char)edits[2 * i + 1];
			}
		}
		size_t real = strlen(tok); /* an edit may have put a NUL in: the reader sees what is before */
		if (strcmp(tok, orig) && take(&f, tok, real, cur, &len) && (len != n || memcmp(cur, c, n)))
			fail("an edited token taken with another cursor", tok);
	}
	fx_end(&f);
	fx_end(&g);
	return 0;
}
