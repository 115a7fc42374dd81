/*
 * token.c — page tokens: opaque to clients, tamper-evident, good on every
 * API server of one store (the secret they are signed with is in the store).
 *
 *   token = base64url( version u8 | list u8[8] | issued u32be | cursor | mac u8[16] )
 *   mac   = the first 16 bytes of HMAC-SHA256(store secret, everything before it)
 *
 * `list` is the list's identity (params.c: route, network, chain, every
 * parameter but pageToken and pageSize), so a token is refused by any other
 * list; `issued` lets tokens expire (API_TOKEN_TTL_S); the cursor is the
 * handler's keyset position, never an offset, so a list read page by page
 * while the indexer appends yields each item once.
 */
#include "api/internal.h"

#include <time.h>

#include "crypto/hash.h"
#include "util/base64.h"

#define TOKEN_VERSION 1
#define MAC_LEN 16
#define HEAD_LEN (1 + 8 + 4)

static void mac(const api_req *r, const uint8_t *p, size_t n, uint8_t out[MAC_LEN])
{
	uint8_t full[32];
	sl_hmac_sha256(r->api->secret, sizeof r->api->secret, p, n, full);
	memcpy(out, full, MAC_LEN);
}

bool api_page_cursor(api_req *r, uint8_t cursor[API_CURSOR_MAX], size_t *len)
{
	*len = 0;
	const api_val *t = api_arg(r, "pageToken");
	if (!t->set)
		return true;
	uint8_t raw[HEAD_LEN + API_CURSOR_MAX + MAC_LEN];
	size_t n = 0;
	if (!sl_base64url_decode(t->s, t->slen, raw, sizeof raw, &n) || n < HEAD_LEN + MAC_LEN) {
		api_fail(r, 400, "pageToken is not a page token of this API (it does not decode)");
		return false;
	}
	uint8_t want[MAC_LEN];
	mac(r, raw, n - MAC_LEN, want);
	if (!sl_equal_ct(want, raw + n - MAC_LEN, MAC_LEN) || raw[0] != TOKEN_VERSION) {
		api_fail(
			r, 400,
			"pageToken is not a page token of this API (it was altered, or made for another store)");
		return false;
	}
	if (memcmp(raw + 1, r->list_id, 8)) {
		api_fail(r, 400,
			 "pageToken belongs to another list: send it with the parameters of the request that "
			 "returned it");
		return false;
	}
	int64_t issued = (int64_t)sl_be32(raw + 9), now = (int64_t)time(NULL);
	if (now - issued > API_TOKEN_TTL_S || issued - now > 300) {
		api_fail(
			r, 400,
			"pageToken has expired (page tokens are good for %d hours): start again from the first "
			"page",
			API_TOKEN_TTL_S / 3600);
		return false;
	}
	*len = n - HEAD_LEN - MAC_LEN;
	if (!*len) { /* never issued: every list's cursor has a position; *len = 0 means no token */
		api_fail(r, 400, "pageToken is not a token of this list");
		return false;
	}
	memcpy(cursor, raw + HEAD_LEN, *len);
	return true;
}

void api_page_next(api_req *r, const uint8_t *cursor, size_t len)
{
	uint8_t raw[HEAD_LEN + API_CURSOR_MAX + MAC_LEN];
	if (len > API_CURSOR_MAX)
		len = API_CURSOR_MAX; /* a handler's bug; its cursors are fixed-size and smaller */
	raw[0] = TOKEN_VERSION;
	memcpy(raw + 1, r->list_id, 8);
	sl_put_be32(raw + 9, (uint32_t)time(NULL));
	memcpy(raw + HEAD_LEN, cursor, len);
	mac(r, raw, HEAD_LEN + len, raw + HEAD_LEN + len);
	sl_jw_key(&r->w, "nextPageToken");
	sl_jw_value(&r->w);
	sl_buf_addc(r->w.out, '"');
	sl_base64url_write(r->w.out, raw, HEAD_LEN + len + MAC_LEN);
	sl_buf_addc(r->w.out, '"');
}

bool api_page_cursor_i64(api_req *r, int64_t none, int64_t *after)
{
	uint8_t cur[API_CURSOR_MAX];
	size_t n;
	if (!api_page_cursor(r, cur, &n))
		return false;
	if (n && n != 8) {
		api_fail(r, 400, "pageToken is not a token of this list");
		return false;
	}
	*after = n ? (int64_t)sl_be64(cur) : none;
	return true;
}

int api_list_page_i64(api_req *r, sl_stmt *s, const char *key, size_t page, api_row_fn row)
{
	sl_err e = sl_stmt_query(s);
	if (e)
		return api_fail_store(r, e);
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	sl_jw_key(w, key);
	sl_jw_arr(w);
	size_t shown = 0;
	int64_t last = 0;
	bool more = false;
	while (sl_stmt_next(s, &e)) {
		if (shown == page) {
			more = true;
			break;
		}
		last = sl_col_i64(s, 0);
		row(r, s);
		shown++;
	}
	if (e)
		return api_fail_store(r, e);
	sl_jw_arr_end(w);
	if (more) {
		uint8_t c[8];
		sl_put_be64(c, (uint64_t)last);
		api_page_next(r, c, sizeof c);
	}
	api_chain_info(r);
	sl_jw_obj_end(w);
	return 0;
}
