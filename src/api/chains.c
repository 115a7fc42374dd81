/*
 * chains.c — the EVM chains this store indexes (part 3; spec 000 §2.9, §4.6):
 * GET /v1/chains, GET /v1/chains/{chainId}, and the native balance of an
 * address, GET /v1/chains/{chainId}/addresses/{address}/balances:getNative.
 *
 * A chain is what its configuration says (evm_chains, written by the EVM
 * indexer when it starts; schema v10): the Chain shape with status OK, vmName
 * EVM, the network token, isTestnet, and the optional fields the
 * configuration has (left out, never null, when it has none). enabledFeatures
 * holds teleporter when the chain's ICM messenger is watched (no chain has
 * nftIndexing or webhooks here). {chainId} is the EVM chain id or the
 * blockchain id (cb58 or 0x hex); a chain that is not configured is a 404
 * naming it.
 *
 * The store keeps no balances: getNative asks the chain's own JSON-RPC
 * endpoint (eth_getBalance) at the block asked for, or at the newest block
 * the store holds (evm_cursors), so that the balance agrees with what the
 * other routes show; a block past that is a 400 naming blockNumber. The
 * price is the price table's (store/prices.h), which prices the network's
 * asset only: it is shown for a chain whose token is AVAX, for the UTC day
 * of the block, in the currency asked for (usd by default); balanceValue is
 * balance × price, exactly. Money.value is a string by spec 000 (its Price)
 * and a number under compat = upstream (the hosted API's Money), as
 * rewards.c writes historicalPrice.
 *
 * Also here, for deployment.c and icm.c: EIP-55 addresses, 256-bit decimals,
 * a price and Money.
 */
#include "api/internal.h"

#include "crypto/cb58.h"
#include "crypto/hash.h"
#include "http/client.h"
#include "store/prices.h"
#include "util/hex.h"
#include "util/jsonv.h"

#define CHAIN_COLS                                                                                          \
	"evm, blockchain, subnet, name, description, rpc_url, ws_url, explorer_url, logo_uri, token_name, " \
	"token_symbol, token_decimals, token_logo, token_description, network, testnet, icm"
static const sl_sql q_chain_by_evm = { "SELECT " CHAIN_COLS " FROM evm_chains WHERE evm = ?" };
static const sl_sql q_chain_by_id = { "SELECT " CHAIN_COLS " FROM evm_chains WHERE blockchain = ?" };
static const sl_sql q_chains = { "SELECT " CHAIN_COLS " FROM evm_chains ORDER BY evm" };
static const sl_sql q_evm_of = { "SELECT evm FROM evm_chains WHERE blockchain = ?" };

/* ---- shared: addresses, numbers, prices ---- */

void api_write_evm_address(api_req *r, const uint8_t addr[20])
{
	static const char digits[] = "0123456789abcdef";
	char lower[40], out[42];
	for (int i = 0; i < 20; i++) {
		lower[2 * i] = digits[addr[i] >> 4];
		lower[2 * i + 1] = digits[addr[i] & 15];
	}
	uint8_t h[32];
	sl_keccak256(lower, 40, h);
	out[0] = '0', out[1] = 'x';
	for (int i = 0; i < 40; i++) {
		int nib = i % 2 ? h[i / 2] & 15 : h[i / 2] >> 4;
		char c = lower[i];
		out[2 + i] = c >= 'a' && nib >= 8 ? (char)(c - 32) : c;
	}
	sl_jw_strn(&r->w, out, sizeof out);
}

size_t api_u256_decimal(const uint8_t be[32], char out[80])
{
	uint8_t v[32];
	memcpy(v, be, 32);
	char rev[80];
	size_t n = 0;
	bool zero;
	do {
		/* v /= 10, the remainder the next digit (from the least significant) */
		unsigned rem = 0;
		zero = true;
		for (int i = 0; i < 32; i++) {
			unsigned cur = rem << 8 | v[i];
			v[i] = (uint8_t)(cur / 10);
			rem = cur % 10;
			zero &= !v[i];
		}
		rev[n++] = (char)('0' + rem);
	} while (!zero && n < 79);
	for (size_t i = 0; i < n; i++)
		out[i] = rev[n - 1 - i];
	out[n] = 0;
	return n;
}

void api_write_u256_col(api_req *r, const uint8_t *p, size_t n)
{
	uint8_t v[32] = { 0 };
	if (p && n == 32)
		memcpy(v, p, 32);
	char d[80];
	size_t len = api_u256_decimal(v, d);
	sl_jw_strn(&r->w, d, len);
}

static const sl_sql q_price_day = { "SELECT price FROM prices WHERE currency = ? AND day = ?" };
static const sl_sql q_price_latest = {
	"SELECT price FROM prices WHERE currency = ? ORDER BY day DESC LIMIT 1"
};

bool api_price_on(api_req *r, const char *currency, int64_t ts, char out[API_PRICE_MAX])
{
	sl_stmt *s = sl_stmt_get(r->db, ts == INT64_MIN ? &q_price_latest : &q_price_day);
	if (!s)
		return false;
	sl_bind_text(s, 0, currency, strlen(currency));
	if (ts != INT64_MIN)
		sl_bind_i64(s, 1, sl_price_day(ts));
	sl_err e = SL_OK;
	bool found = false;
	if (!sl_stmt_query(s))
		while (sl_stmt_next(s, &e)) {
			size_t n;
			const char *p = sl_col_text(s, 0, &n);
			/* a price the loader writes only (not a row written by hand) */
			if (!found && p && n < API_PRICE_MAX && sl_price_canonical(p, n)) {
				memcpy(out, p, n);
				out[n] = 0;
				found = true;
			}
		}
	return found && !e;
}

void api_write_money(api_req *r, const char *currency, const char *value, size_t n)
{
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	sl_jw_key(w, "currencyCode");
	sl_jw_str(w, currency);
	sl_jw_key(w, "value");
	if (r->api->cfg.compat == SL_COMPAT_UPSTREAM)
		sl_jw_raw(w, value, n);
	else
		sl_jw_strn(w, value, n);
	sl_jw_obj_end(w);
}

/* ---- the chain's row ---- */

static const char *col_str(api_req *r, sl_stmt *s, int col)
{
	if (sl_col_null(s, col))
		return NULL;
	size_t n;
	const char *t = sl_col_text(s, col, &n);
	return sl_arena_strndup(r->arena, t ? t : "", t ? n : 0);
}

static bool col_fixed(sl_stmt *s, int col, uint8_t *out, size_t len)
{
	size_t n;
	const uint8_t *p = sl_col_blob(s, col, &n);
	if (!p || n != len)
		return false;
	memcpy(out, p, len);
	return true;
}

static void read_chain(api_req *r, sl_stmt *s, api_evm_chain *c)
{
	*c = (api_evm_chain){ .evm = sl_col_i64(s, 0) };
	c->has_blockchain = col_fixed(s, 1, c->blockchain, 32);
	c->has_subnet = col_fixed(s, 2, c->subnet, 32);
	c->name = col_str(r, s, 3);
	c->description = col_str(r, s, 4);
	c->rpc_url = col_str(r, s, 5);
	c->ws_url = col_str(r, s, 6);
	c->explorer_url = col_str(r, s, 7);
	c->logo_uri = col_str(r, s, 8);
	c->token_name = col_str(r, s, 9);
	c->token_symbol = col_str(r, s, 10);
	c->token_decimals = sl_col_i64(s, 11);
	c->token_logo = col_str(r, s, 12);
	c->token_description = col_str(r, s, 13);
	c->network = col_str(r, s, 14);
	c->testnet = sl_col_i64(s, 15) != 0;
	c->has_icm = col_fixed(s, 16, c->icm, 20);
}

int api_evm_chain_get(api_req *r, api_evm_chain *c)
{
	const api_val *v = api_arg(r, "chainId");
	sl_stmt *s = sl_stmt_get(r->db, v->i > 0 ? &q_chain_by_evm : &q_chain_by_id);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	if (v->i > 0)
		sl_bind_i64(s, 0, v->i);
	else
		sl_bind_blob(s, 0, v->id, 32);
	sl_err e = sl_stmt_query(s);
	bool found = false;
	while (!e && sl_stmt_next(s, &e))
		if (!found) {
			read_chain(r, s, c);
			found = true;
		}
	if (e)
		return api_fail_store(r, e);
	if (!found)
		return api_fail(r, 404,
				"chainId: no chain '%.80s' is indexed here (GET /v1/chains lists them)",
				r->chainId ? r->chainId : "");
	return 0;
}

int64_t api_evm_of_blockchain(api_req *r, const uint8_t blockchain[32])
{
	sl_stmt *s = sl_stmt_get(r->db, &q_evm_of);
	if (!s)
		return -1;
	sl_bind_blob(s, 0, blockchain, 32);
	sl_err e = sl_stmt_query(s);
	int64_t evm = -1;
	while (!e && sl_stmt_next(s, &e))
		evm = sl_col_i64(s, 0);
	return e ? -1 : evm;
}

static void opt_str(sl_jw *w, const char *key, const char *v)
{
	if (!v)
		return;
	sl_jw_key(w, key);
	sl_jw_str(w, v);
}

void api_evm_network_token(api_req *r, const api_evm_chain *c)
{
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	sl_jw_key(w, "name");
	sl_jw_str(w, c->token_name ? c->token_name : "");
	sl_jw_key(w, "symbol");
	sl_jw_str(w, c->token_symbol ? c->token_symbol : "");
	sl_jw_key(w, "decimals");
	sl_jw_i64(w, c->token_decimals);
	opt_str(w, "logoUri", c->token_logo);
	opt_str(w, "description", c->token_description);
	sl_jw_obj_end(w);
}

/* ChainInfo / GetChainResponse (one shape). */
static void write_chain(api_req *r, const api_evm_chain *c)
{
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	sl_jw_key(w, "chainId");
	sl_jw_u64s(w, (uint64_t)c->evm);
	sl_jw_key(w, "status");
	sl_jw_str(w, "OK");
	sl_jw_key(w, "chainName");
	sl_jw_str(w, c->name ? c->name : "");
	sl_jw_key(w, "description");
	sl_jw_str(w, c->description ? c->description : "");
	if (c->has_blockchain) {
		sl_jw_key(w, "platformChainId");
		api_write_id(r, c->blockchain);
	}
	if (c->has_subnet) {
		sl_jw_key(w, "subnetId");
		api_write_id(r, c->subnet);
	}
	sl_jw_key(w, "vmName");
	sl_jw_str(w, "EVM");
	opt_str(w, "explorerUrl", c->explorer_url);
	sl_jw_key(w, "rpcUrl");
	sl_jw_str(w, c->rpc_url ? c->rpc_url : "");
	opt_str(w, "wsUrl", c->ws_url);
	sl_jw_key(w, "isTestnet");
	sl_jw_bool(w, c->testnet);
	sl_jw_key(w, "networkToken");
	api_evm_network_token(r, c);
	opt_str(w, "chainLogoUri", c->logo_uri);
	sl_jw_key(w, "enabledFeatures");
	sl_jw_arr(w);
	if (c->has_icm)
		sl_jw_str(w, "teleporter");
	sl_jw_arr_end(w);
	sl_jw_obj_end(w);
}

/* Is the chain in the `network` filter's network (testnet: fuji)? */
static bool in_network(const api_evm_chain *c, const char *net)
{
	if (!net)
		return true;
	if (!strcmp(net, "testnet"))
		net = "fuji";
	return c->network && !strcmp(c->network, net);
}

int api_list_chains(api_req *r)
{
	const api_val *nv = api_arg(r, "network"), *fv = api_arg(r, "feature");
	static const char *const nets[] = { "mainnet", "fuji", "testnet", "local" };
	const char *net = nv->set ? nets[nv->i] : NULL;
	sl_stmt *s = sl_stmt_get(r->db, &q_chains);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	sl_err e = sl_stmt_query(s);
	if (e)
		return api_fail_store(r, e);
	sl_jw_obj(&r->w);
	sl_jw_key(&r->w, "chains");
	sl_jw_arr(&r->w);
	while (sl_stmt_next(s, &e)) {
		api_evm_chain c;
		read_chain(r, s, &c);
		/* features: nftIndexing (0) and webhooks (1) no chain has; teleporter (2): a watched messenger */
		if (!in_network(&c, net) || (fv->set && (fv->i != 2 || !c.has_icm)))
			continue;
		write_chain(r, &c);
	}
	if (e)
		return api_fail_store(r, e);
	sl_jw_arr_end(&r->w);
	sl_jw_obj_end(&r->w);
	return 0;
}

int api_get_chain(api_req *r)
{
	api_evm_chain c;
	if (api_evm_chain_get(r, &c))
		return -1;
	write_chain(r, &c);
	return 0;
}

/* ---- balances:getNative ---- */

static const sl_sql q_head = { "SELECT next FROM evm_cursors WHERE evm = ?" };
static const sl_sql q_block_ts = { "SELECT ts FROM evm_blocks WHERE evm = ? AND number = ?" };

/* The newest block of the chain the store holds, or -1. */
static sl_err indexed_head(api_req *r, int64_t evm, int64_t *head)
{
	*head = -1;
	sl_stmt *s = sl_stmt_get(r->db, &q_head);
	if (!s)
		return SL_ERR_STORE;
	sl_bind_i64(s, 0, evm);
	sl_err e = sl_stmt_query(s);
	while (!e && sl_stmt_next(s, &e))
		*head = sl_col_i64(s, 0) - 1;
	return e;
}

/* eth_getBalance(addr, block) from the chain's RPC into bal (32 bytes big-endian); 0, or -1 after
 * api_fail (502: the endpoint failed or answered something else; 504-like timeouts as 503). */
static int rpc_balance(api_req *r, const api_evm_chain *c, const uint8_t addr[20], int64_t block,
		       uint8_t bal[32])
{
	static const char hexd[] = "0123456789abcdef";
	char body[192];
	char hexaddr[41];
	for (int i = 0; i < 20; i++) {
		hexaddr[2 * i] = hexd[addr[i] >> 4];
		hexaddr[2 * i + 1] = hexd[addr[i] & 15];
	}
	hexaddr[40] = 0;
	int bn = snprintf(body, sizeof body,
			  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_getBalance\",\"params\":[\"0x%s\","
			  "\"0x%llx\"]}",
			  hexaddr, (unsigned long long)block);
	sl_http_client *hc = sl_http_client_new();
	if (!hc)
		return api_fail(r, 500, "out of memory");
	sl_buf out;
	sl_buf_init(&out, 1u << 16);
	long status = 0;
	char err[256] = "";
	sl_err e = sl_http_post_json(hc, c->rpc_url ? c->rpc_url : "", body, (size_t)bn, API_EVM_RPC_MS, &out,
				     &status, err);
	sl_http_client_free(hc);
	int rc = 0;
	if (e || status != 200) {
		SL_LOG(r->api->log, SL_WARN, "chain %lld: eth_getBalance: %s (HTTP %ld)", (long long)c->evm,
		       e ? err : "", status);
		rc = api_fail(r, e == SL_ERR_TIMEOUT ? 503 : 502,
			      "the RPC endpoint of chain %lld did not answer eth_getBalance%s",
			      (long long)c->evm, e == SL_ERR_TIMEOUT ? " in time" : "");
		goto done;
	}
	/* {"jsonrpc":"2.0","id":1,"result":"0x…"} */
	size_t a, b;
	char msg[128];
	sl_span result = { 0 }, k, v;
	if (!sl_json_scan((const char *)out.p, out.len, &a, &b, msg)) {
		sl_jiter it;
		sl_json_iter_init(&it, (sl_span){ out.p + a, b - a });
		while (sl_json_obj_next(&it, &k, &v))
			if (sl_span_eq(k, "\"result\""))
				result = v;
	}
	memset(bal, 0, 32);
	size_t hn = result.len >= 2 ? result.len - 2 : 0; /* without the quotes */
	const char *hx = (const char *)result.p + 1;
	if (sl_json_type(result) != SL_JT_STRING || hn < 3 || hn > 66 || hx[0] != '0' || hx[1] != 'x') {
		rc = api_fail(r, 502,
			      "the RPC endpoint of chain %lld answered eth_getBalance with no balance",
			      (long long)c->evm);
		goto done;
	}
	/* a quantity: 0x and 1 to 64 hex digits, right-aligned into 32 bytes */
	char digits[64];
	size_t nd = hn - 2, pad = 64 - nd;
	memset(digits, '0', pad);
	memcpy(digits + pad, hx + 2, nd);
	size_t len = 0;
	if (sl_hex_decode(digits, 64, bal, 32, &len) || len != 32)
		rc = api_fail(r, 502, "the RPC endpoint of chain %lld answered eth_getBalance with '%.80s'",
			      (long long)c->evm, hx);
done:
	sl_buf_release(&out);
	return rc;
}

size_t api_decimal_mul(const char *a, const char *b, int shift, char *out, size_t cap)
{
	/* digits, least significant first: a's (an integer), b's (its point dropped, frac digits after it) */
	uint8_t x[80], y[64];
	size_t nx = 0, ny = 0;
	int frac = 0;
	bool point = false;
	for (const char *p = a; *p >= '0' && *p <= '9' && nx < sizeof x; p++)
		x[nx++] = (uint8_t)(*p - '0');
	for (const char *p = b; *p && ny < sizeof y; p++) {
		if (*p == '.') {
			point = true;
			continue;
		}
		if (*p < '0' || *p > '9')
			break;
		y[ny++] = (uint8_t)(*p - '0');
		frac += point;
	}
	unsigned acc[160] = { 0 }; /* schoolbook, least significant digit at [0] */
	for (size_t i = 0; i < nx; i++)
		for (size_t j = 0; j < ny; j++)
			acc[(nx - 1 - i) + (ny - 1 - j)] += (unsigned)x[i] * y[j];
	int nd = (int)(nx + ny);
	for (int i = 0; i + 1 < nd; i++) {
		acc[i + 1] += acc[i] / 10;
		acc[i] %= 10;
	}
	int scale = frac + shift; /* digits after the point */
	size_t o = 0;
	int top = nd - 1;
	while (top >= scale && top > 0 && !acc[top])
		top--;
	if (top < scale)
		out[o++] = '0';
	else
		for (int i = top; i >= scale && o + 1 < cap; i--)
			out[o++] = (char)('0' + acc[i]);
	int low = 0;
	while (low < scale && !(low < nd && acc[low]))
		low++;
	if (low < scale && o + 2 < cap) {
		out[o++] = '.';
		for (int i = scale - 1; i >= low && o + 1 < cap; i--)
			out[o++] = (char)('0' + (i < nd ? acc[i] : 0));
	}
	out[o] = 0;
	return o;
}

int api_get_native_balance(api_req *r)
{
	api_evm_chain c;
	if (api_evm_chain_get(r, &c))
		return -1;
	const uint8_t *addr = api_arg(r, "address")->evm;
	const api_val *bv = api_arg(r, "blockNumber");
	int64_t head;
	sl_err e = indexed_head(r, c.evm, &head);
	if (e)
		return api_fail_store(r, e);
	if (bv->set && bv->i > head)
		return api_fail(r, 400,
				"blockNumber %lld is past the newest block of chain %lld indexed here (%lld)",
				(long long)bv->i, (long long)c.evm, (long long)head);
	if (head < 0)
		return api_fail(r, 503, "no block of chain %lld is indexed yet; try again", (long long)c.evm);
	int64_t block = bv->set ? bv->i : head;
	uint8_t bal[32];
	if (rpc_balance(r, &c, addr, block, bal))
		return -1;
	const char *cur = sl_price_currencies[api_arg(r, "currency")->i];
	char price[API_PRICE_MAX];
	bool priced = false;
	if (c.token_symbol && !strcmp(c.token_symbol, "AVAX")) {
		sl_stmt *s = sl_stmt_get(r->db, &q_block_ts);
		if (!s)
			return api_fail_store(r, SL_ERR_STORE);
		sl_bind_i64(s, 0, c.evm);
		sl_bind_i64(s, 1, block);
		int64_t ts = INT64_MIN;
		if ((e = sl_stmt_query(s)))
			return api_fail_store(r, e);
		while (sl_stmt_next(s, &e))
			ts = sl_col_i64(s, 0);
		if (e)
			return api_fail_store(r, e);
		priced = ts != INT64_MIN && api_price_on(r, cur, ts, price);
	}
	char dec[80];
	size_t dn = api_u256_decimal(bal, dec);
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	sl_jw_key(w, "nativeTokenBalance");
	sl_jw_obj(w);
	sl_jw_key(w, "name");
	sl_jw_str(w, c.token_name ? c.token_name : "");
	sl_jw_key(w, "symbol");
	sl_jw_str(w, c.token_symbol ? c.token_symbol : "");
	sl_jw_key(w, "decimals");
	sl_jw_i64(w, c.token_decimals);
	opt_str(w, "logoUri", c.token_logo);
	sl_jw_key(w, "chainId");
	sl_jw_u64s(w, (uint64_t)c.evm);
	if (priced) {
		sl_jw_key(w, "price");
		api_write_money(r, cur, price, strlen(price));
	}
	sl_jw_key(w, "balance");
	sl_jw_strn(w, dec, dn);
	if (priced) {
		char value[256];
		int shift = c.token_decimals < 0 ? 0 : c.token_decimals > 77 ? 77 : (int)c.token_decimals;
		size_t vn = api_decimal_mul(dec, price, shift, value, sizeof value);
		sl_jw_key(w, "balanceValue");
		api_write_money(r, cur, value, vn);
	}
	sl_jw_obj_end(w);
	sl_jw_obj_end(w);
	return 0;
}
