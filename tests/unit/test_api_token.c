/* The Data API's page tokens (api/token.c): what the API issues reads back to the same cursor on
 * its own list, and nothing else does — other lists, other stores' secrets, altered, truncated,
 * extended, stale, future and unversioned tokens, and tokens without a cursor, each a 400 naming
 * pageToken. Tokens are made here as token.c's comment describes them, with the fixture's secret.
 * The request is the one fuzz_api_*.c use (fuzz/api_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <time.h>

#include "../../fuzz/api_fixture.h"
#include "crypto/hash.h"
#include "util/base64.h"

static sl_api api;

/* A fixture of the route `name` with query `q`, parsed. */
static void begin(api_fixture *f, const char *name, const char *q)
{
	f->api = api;
	fx_begin(f, fx_route(name), q, NULL, 0, NULL, NULL);
	assert_true(api_params_parse(&f->r));
}

/* Read tok as f's pageToken: true with the cursor, or false after a 400 naming pageToken (and `why`). */
static bool take(api_fixture *f, const char *tok, uint8_t cur[API_CURSOR_MAX], size_t *len, const char *why)
{
	fx_clear(f);
	fx_set_token(f, tok, strlen(tok));
	bool ok = api_page_cursor(&f->r, cur, len);
	if (!ok) {
		assert_int_equal(f->r.status, 400);
		const char *b = sl_buf_str(&f->resp.body);
		if (!strstr(b, "pageToken") || (why && !strstr(b, why)))
			fail_msg("refused without naming pageToken / '%s': %s", why ? why : "", b);
	}
	return ok;
}

/* A token: version | list[8] | issued | cursor | mac[16] over the rest with `secret`. */
static void make(char *out, size_t cap, uint8_t version, const uint8_t list[8], int64_t issued,
		 const uint8_t *cur, size_t n, const uint8_t secret[32])
{
	uint8_t raw[13 + API_CURSOR_MAX + 32], mac[32];
	raw[0] = version;
	memcpy(raw + 1, list, 8);
	sl_put_be32(raw + 9, (uint32_t)issued);
	memcpy(raw + 13, cur, n);
	sl_hmac_sha256(secret, 32, raw, 13 + n, mac);
	memcpy(raw + 13 + n, mac, 16);
	sl_buf b;
	sl_buf_init(&b, 1024);
	sl_base64url_write(&b, raw, 13 + n + 16);
	snprintf(out, cap, "%s", sl_buf_str(&b));
	sl_buf_release(&b);
}

static void test_round_trip(void **state)
{
	(void)state;
	api_fixture f;
	begin(&f, "vertices", "");
	uint8_t c[API_CURSOR_MAX], cur[API_CURSOR_MAX];
	size_t len;
	char tok[512];
	for (size_t n = 1; n <= API_CURSOR_MAX; n++) {
		for (size_t i = 0; i < n; i++)
			c[i] = (uint8_t)(n * 31 + i);
		assert_true(fx_issue(&f, c, n, tok, sizeof tok) > 0);
		for (const char *p = tok; *p; p++) /* base64url, unpadded: a URL carries it as it is */
			assert_non_null(strchr(
				"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", *p));
		assert_true(take(&f, tok, cur, &len, NULL));
		assert_int_equal(len, n);
		assert_memory_equal(cur, c, n);
	}
	/* no token: no cursor, not a failure */
	fx_clear(&f);
	f.r.v[fx_param(&f, "pageToken")].set = false;
	assert_true(api_page_cursor(&f.r, cur, &len));
	assert_int_equal(len, 0);
	fx_end(&f);
}

static void test_other_lists(void **state)
{
	(void)state;
	api_fixture f, g;
	uint8_t c[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, cur[API_CURSOR_MAX];
	size_t len;
	char tok[512];
	begin(&f, "transactions", "addresses=fuji1hq5x6xnqms5mua4xdkj7jl49ghs23tkzxmjjsn&sortOrder=asc");
	fx_issue(&f, c, sizeof c, tok, sizeof tok);
	/* the same list with another page size: taken */
	begin(&g, "transactions",
	      "pageSize=3&sortOrder=asc&addresses=fuji1hq5x6xnqms5mua4xdkj7jl49ghs23tkzxmjjsn");
	assert_true(take(&g, tok, cur, &len, NULL));
	fx_end(&g);
	static const char *const others[][2] = {
		{ "transactions", "addresses=fuji1hq5x6xnqms5mua4xdkj7jl49ghs23tkzxmjjsn&sortOrder=desc" },
		{ "transactions", "addresses=fuji1n4qkcu94rqdtltc2nuxxq6uz8c7aen843t0pj9&sortOrder=asc" },
		{ "transactions",
		  "addresses=fuji1hq5x6xnqms5mua4xdkj7jl49ghs23tkzxmjjsn&sortOrder=asc&txTypes=BaseTx" },
		{ "utxos", "addresses=fuji1hq5x6xnqms5mua4xdkj7jl49ghs23tkzxmjjsn&sortOrder=asc" },
		{ "vertices", "" },
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(others); i++) {
		begin(&g, others[i][0], others[i][1]);
		assert_false(take(&g, tok, cur, &len, "another list"));
		fx_end(&g);
	}
	/* the same list on another chain */
	f.r.chain = API_P;
	fx_clear(&f);
	assert_true(api_params_parse(&f.r));
	assert_false(take(&f, tok, cur, &len, "another list"));
	fx_end(&f);
}

static void test_forged(void **state)
{
	(void)state;
	api_fixture f;
	begin(&f, "vertices", "");
	uint8_t c[8] = { 0, 0, 0, 0, 0, 0, 0, 9 }, cur[API_CURSOR_MAX], other[32];
	size_t len;
	char tok[512], t2[512];
	size_t n = fx_issue(&f, c, sizeof c, tok, sizeof tok);
	const uint8_t *list = f.r.list_id;
	int64_t now = (int64_t)time(NULL);
	/* made here as the API makes them: taken (the format is what token.c says) */
	make(t2, sizeof t2, 1, list, now, c, sizeof c, api.secret);
	assert_true(take(&f, t2, cur, &len, NULL));
	/* each character changed, the token cut, the token extended */
	for (size_t i = 0; i < n; i++) {
		snprintf(t2, sizeof t2, "%s", tok);
		t2[i] = t2[i] == 'A' ? 'B' : 'A';
		if (take(&f, t2, cur, &len, NULL)) /* only where base64url's unused low bits change */
			assert_true(i == n - 1 && len == sizeof c && !memcmp(cur, c, sizeof c));
	}
	for (size_t k = 1; k < n; k++) {
		snprintf(t2, sizeof t2, "%.*s", (int)k, tok);
		assert_false(take(&f, t2, cur, &len, NULL));
	}
	snprintf(t2, sizeof t2, "%sAAAA", tok);
	assert_false(take(&f, t2, cur, &len, NULL));
	assert_false(take(&f, "not a token", cur, &len, "does not decode"));
	assert_false(take(&f, "", cur, &len, NULL));
	/* another store's secret, another version */
	for (int i = 0; i < 32; i++)
		other[i] = (uint8_t)i;
	make(t2, sizeof t2, 1, list, now, c, sizeof c, other);
	assert_false(take(&f, t2, cur, &len, "another store"));
	make(t2, sizeof t2, 2, list, now, c, sizeof c, api.secret);
	assert_false(take(&f, t2, cur, &len, NULL));
	/* stale: a day old is the limit; from the future: five minutes of clock skew */
	make(t2, sizeof t2, 1, list, now - API_TOKEN_TTL_S + 60, c, sizeof c, api.secret);
	assert_true(take(&f, t2, cur, &len, NULL));
	make(t2, sizeof t2, 1, list, now - API_TOKEN_TTL_S - 60, c, sizeof c, api.secret);
	assert_false(take(&f, t2, cur, &len, "expired"));
	make(t2, sizeof t2, 1, list, now + 200, c, sizeof c, api.secret);
	assert_true(take(&f, t2, cur, &len, NULL));
	make(t2, sizeof t2, 1, list, now + 3600, c, sizeof c, api.secret);
	assert_false(take(&f, t2, cur, &len, "expired"));
	/* no cursor: never issued (a handler would read it as no token at all) */
	make(t2, sizeof t2, 1, list, now, c, 0, api.secret);
	assert_false(take(&f, t2, cur, &len, "not a token of this list"));
	/* the largest cursor, and one byte more than any list has */
	uint8_t big[API_CURSOR_MAX + 1] = { 0 };
	make(t2, sizeof t2, 1, list, now, big, API_CURSOR_MAX, api.secret);
	assert_true(take(&f, t2, cur, &len, NULL));
	assert_int_equal(len, API_CURSOR_MAX);
	make(t2, sizeof t2, 1, list, now, big, API_CURSOR_MAX + 1, api.secret);
	assert_false(take(&f, t2, cur, &len, NULL));
	fx_end(&f);
}

int main(void)
{
	fx_api_init(&api);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_other_lists),
		cmocka_unit_test(test_forged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
