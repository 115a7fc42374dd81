/*
 * evm.c — the EVM indexer's threads, its derivations and its writes (evm.h;
 * docs/evm.md says what each table gets from what).
 *
 * Every statement of a batch is an upsert that leaves the store the same
 * when applied again, and the batch carries the chain's cursor, so a crash
 * at any moment is recovered by reading the batch again. The ICM messages
 * are the one row two chains write: the source side writes its columns and
 * the message's (SendCrossChainMessage), the destination side its own
 * (ReceiveCrossChainMessage, MessageExecuted/Failed) and the message's only
 * where the source has not; icm_addrs lists a message at the source tx's
 * time when the source is indexed, else at the destination tx's: the source
 * side moves the destination side's rows, and the destination side reads
 * the source's time when it is there. Either order gives the same rows.
 */
#include "index/evm.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "codec/evm_abi.h"
#include "crypto/cb58.h"
#include "http/client.h"
#include "index/evm_rpc.h"
#include "util/hex.h"
#include "util/jsonv.h"
#include "util/limits.h"
#include "util/log.h"
#include "util/u256.h"

#define EVM_TIMEOUT_MS 60000
#define EVM_RPC_TRIES 4		 /* a call that fails in a passing way is made this many times */
#define EVM_BATCH_TXS 20000	 /* no more blocks join a transaction past this many txs */
#define EVM_CALL_MAX (64u << 10) /* an eth_call answer (a token's name, symbol or decimals) */
#define EVM_KNOWN_CAP 8192	 /* token addresses remembered as stored (a cache: cleared when full) */
#define EVM_DEFAULT_BATCH 100

/* ---- configuration ------------------------------------------------------------------ */

static bool copy_str(char *dst, size_t cap, const char *v, size_t n)
{
	if (n >= cap)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			return false;
	memcpy(dst, v, n);
	dst[n] = 0;
	return true;
}

static bool parse_id32(const char *v, size_t n, uint8_t out[32])
{
	size_t got;
	if (n == 66 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
		return !sl_hex_decode(v + 2, 64, out, 32, &got) && got == 32;
	const char *msg;
	char mb[96];
	return !sl_cb58_decode_id(v, n, out, &msg, mb);
}

sl_err sl_evm_chain_parse(const char *spec, sl_evm_chain_config *c, char err[256])
{
	memset(c, 0, sizeof *c);
	c->decimals = 18;
	int testnet = -1;
	bool has_id = false;
	for (const char *p = spec; *p;) {
		const char *end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		const char *eq = memchr(p, '=', (size_t)(end - p));
		if (!eq) {
			snprintf(err, 256, "--evm-chain: '%.*s' is not key=value", (int)(end - p), p);
			return SL_ERR_INVALID;
		}
		size_t kn = (size_t)(eq - p), vn = (size_t)(end - eq - 1);
		const char *v = eq + 1;
#define KEY(s) (kn == strlen(s) && !memcmp(p, s, kn))
		bool ok = true;
		if (KEY("id")) {
			char *e;
			char tmp[32];
			ok = vn && vn < sizeof tmp && copy_str(tmp, sizeof tmp, v, vn);
			if (ok) {
				c->id = strtoull(tmp, &e, 10);
				ok = !*e && tmp[0] != '-' && c->id > 0 && c->id <= INT64_MAX;
			}
			has_id = ok;
		} else if (KEY("rpc"))
			ok = vn && copy_str(c->rpc, sizeof c->rpc, v, vn);
		else if (KEY("ws"))
			ok = copy_str(c->ws, sizeof c->ws, v, vn);
		else if (KEY("explorer"))
			ok = copy_str(c->explorer, sizeof c->explorer, v, vn);
		else if (KEY("name"))
			ok = vn && copy_str(c->name, sizeof c->name, v, vn);
		else if (KEY("description"))
			ok = copy_str(c->description, sizeof c->description, v, vn);
		else if (KEY("logo"))
			ok = copy_str(c->logo, sizeof c->logo, v, vn);
		else if (KEY("symbol"))
			ok = vn && copy_str(c->symbol, sizeof c->symbol, v, vn);
		else if (KEY("token"))
			ok = vn && copy_str(c->token, sizeof c->token, v, vn);
		else if (KEY("token-logo"))
			ok = copy_str(c->token_logo, sizeof c->token_logo, v, vn);
		else if (KEY("network")) {
			/* the values of the API's `network` filter (testnet is fuji's other name) */
			static const char *const nets[] = { "mainnet", "fuji", "local", "testnet" };
			ok = false;
			for (size_t i = 0; i < SL_ARRAY_LEN(nets) && !ok; i++)
				if (vn == strlen(nets[i]) && !memcmp(v, nets[i], vn)) {
					snprintf(c->network, sizeof c->network, "%s",
						 i == 3 ? "fuji" : nets[i]);
					ok = true;
				}
		} else if (KEY("decimals")) {
			ok = vn >= 1 && vn <= 2;
			c->decimals = 0;
			for (size_t i = 0; ok && i < vn; i++) {
				ok = v[i] >= '0' && v[i] <= '9';
				c->decimals = c->decimals * 10 + (unsigned)(v[i] - '0');
			}
		} else if (KEY("testnet")) {
			ok = vn == 1 && (v[0] == '0' || v[0] == '1');
			testnet = v[0] == '1';
		} else if (KEY("blockchain"))
			ok = c->has_blockchain = parse_id32(v, vn, c->blockchain);
		else if (KEY("subnet"))
			ok = c->has_subnet = parse_id32(v, vn, c->subnet);
		else if (KEY("icm")) {
			size_t got;
			ok = c->has_icm = vn == 42 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X') &&
					  !sl_hex_decode(v + 2, 40, c->icm, 20, &got) && got == 20;
		} else {
			snprintf(err, 256, "--evm-chain: unknown key '%.*s'", (int)kn, p);
			return SL_ERR_INVALID;
		}
		if (!ok) {
			snprintf(err, 256, "--evm-chain: bad %.*s '%.*s'", (int)kn, p,
				 (int)(vn > 80 ? 80 : vn), v);
			return SL_ERR_INVALID;
		}
#undef KEY
		p = *end ? end + 1 : end;
	}
	if (!has_id || !c->rpc[0]) {
		snprintf(err, 256, "--evm-chain needs id=<EVM chain id> and rpc=<URL>");
		return SL_ERR_INVALID;
	}
	if (c->has_icm && !c->has_blockchain) {
		snprintf(err, 256,
			 "--evm-chain %llu: icm= needs blockchain= (the chain's own id names its messages)",
			 (unsigned long long)c->id);
		return SL_ERR_INVALID;
	}
	if (!c->name[0])
		snprintf(c->name, sizeof c->name, "EVM %llu", (unsigned long long)c->id);
	if (!c->symbol[0])
		snprintf(c->symbol, sizeof c->symbol, "ETH");
	if (!c->token[0])
		snprintf(c->token, sizeof c->token, "%s", c->symbol);
	if (!c->network[0])
		snprintf(c->network, sizeof c->network, "local");
	c->testnet = testnet >= 0 ? testnet == 1 : strcmp(c->network, "mainnet") != 0;
	size_t n = strlen(c->rpc);
	while (n && c->rpc[n - 1] == '/')
		c->rpc[--n] = 0;
	return SL_OK;
}

/* ---- the indexer -------------------------------------------------------------------- */

typedef struct token {
	uint8_t addr[20];
	uint16_t std;
	bool has_name, has_symbol, has_decimals;
	char name[SL_EVM_MAX_TOKEN_STRING + 1], symbol[SL_EVM_MAX_TOKEN_STRING + 1];
	unsigned decimals;
} token;

typedef struct blk {
	evm_block b;
	token *tokens;
	size_t ntokens;
} blk;

typedef enum support { SUPPORT_UNKNOWN, SUPPORT_YES, SUPPORT_NO } support;

typedef struct chain {
	struct sl_evm_indexer *ix;
	const sl_evm_chain_config *cfg;
	pthread_t thread;
	bool started;
	sl_http_client *hc;
	sl_conn *conn;
	sl_buf resp, req;
	uint64_t next;
	uint8_t last_hash[32];
	bool has_last;
	support receipts, traces;
	int64_t code;	      /* the error code of the last JSON-RPC answer that was an error */
	uint8_t (*known)[20]; /* token addresses known to be stored (open addressing) */
	size_t nknown;
	blk *batch;
	/* shown in progress: blocks the node has (its latest number + 1), blocks applied (the cursor) */
	_Atomic uint64_t head, applied, txs;
	_Atomic bool caught_up, failed;
	_Atomic int64_t caught_up_ms;
	uint64_t rate_base;
	int64_t rate_ns;
	double rate;
	bool said_caught_up;
	int64_t next_progress;
	sl_logger *log;
} chain;

struct sl_evm_indexer {
	sl_evm_config cfg;
	sl_db *db;
	chain *chains;
	size_t n;
	volatile sig_atomic_t *stop;
	_Atomic bool quit;
	sl_logger *log;
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool stopping(const sl_evm_indexer *ix) { return atomic_load(&ix->quit) || (ix->stop && *ix->stop); }

static void sleep_ms(const sl_evm_indexer *ix, unsigned ms)
{
	for (unsigned t = 0; t < ms && !stopping(ix); t += 20) {
		struct timespec ts = { 0, 20 * 1000000L };
		nanosleep(&ts, NULL);
	}
}

/* The store's connection: one for every chain (the store's writer has one), borrowed for each
 * read and each batch, so the chains' transactions take turns. NULL only when stopping. */
static sl_conn *conn_get(chain *c)
{
	char err[256];
	while (!c->conn && !stopping(c->ix)) {
		if ((c->conn = sl_db_acquire(c->ix->db, 1000, err)))
			break;
		SL_LOG(c->log, SL_DEBUG, "evm %llu: store: %s", (unsigned long long)c->cfg->id, err);
	}
	return c->conn;
}

static void conn_put(chain *c)
{
	if (c->conn)
		sl_db_release(c->ix->db, c->conn);
	c->conn = NULL;
}

/* ---- JSON-RPC ----------------------------------------------------------------------- */

/* Call method with params (JSON text); *result spans c->resp. */
static sl_err rpc_once(chain *c, const char *method, const char *params, sl_span *result, char err[256])
{
	sl_buf_reset(&c->req);
	sl_buf_addf(&c->req, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":%s}", method,
		    params);
	sl_buf_reset(&c->resp);
	long status = 0;
	sl_err e = sl_http_post_json(c->hc, c->cfg->rpc, sl_buf_str(&c->req), c->req.len, EVM_TIMEOUT_MS,
				     &c->resp, &status, err);
	if (e) {
		if (e == SL_ERR_TOO_LARGE)
			snprintf(err, 256, "%s: the answer is larger than %u bytes", method,
				 (unsigned)c->resp.max);
		return e == SL_ERR_TOO_LARGE ? e : SL_ERR_UNAVAILABLE;
	}
	e = evm_rpc_result(c->resp.p, c->resp.len, result, &c->code, err);
	if (e == SL_ERR_INVALID && status != 200) {
		snprintf(err, 256, "%s: HTTP status %ld", method, status);
		return SL_ERR_UNAVAILABLE;
	}
	return e;
}

/*
 * One call, asked again (after 50, 100, 200 ms) while the node fails in a way that passes: out of
 * reach, a 5xx, an answer cut or not JSON, JSON-RPC's "internal error" (-32603). What the node
 * means (a revert, a method it lacks, bad params) is the answer. Without this, one failed call of
 * the dozens a block takes would throw the block's other answers away: a node failing one call in
 * seven would read a block again five times on average.
 */
static sl_err rpc(chain *c, const char *method, const char *params, sl_span *result, char err[256])
{
	for (unsigned try = 1, pause = 50;; try++, pause *= 2) {
		sl_err e = rpc_once(c, method, params, result, err);
		bool passing = e == SL_ERR_UNAVAILABLE || e == SL_ERR_INVALID ||
			       (e == SL_ERR_UNSUPPORTED && c->code == -32603);
		if (!passing || try == EVM_RPC_TRIES || stopping(c->ix))
			return e;
		SL_LOG(c->log, SL_WARN, "evm %llu: %s: %s; retrying (%u of %u)",
		       (unsigned long long)c->cfg->id, method, err, try + 1, EVM_RPC_TRIES);
		sleep_ms(c->ix, pause);
	}
}

/*
 * eth_call of a 4-byte selector at a block: 1 and the answer's bytes in out (cap); 0 when the
 * contract has no answer that will ever come (the call reverts: error 3 or -32000; an answer
 * that is not bytes or too long); -1 when the node failed (unreachable, a cut answer, another
 * error): the block is read again, so that what the store gets does not depend on the node's luck.
 */
static int eth_call(chain *c, const uint8_t to[20], const char *selector, uint64_t block, uint8_t *out,
		    size_t cap, size_t *n, char err[256])
{
	char params[256], hex[41];
	for (int i = 0; i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", to[i]);
	snprintf(params, sizeof params, "[{\"to\":\"0x%s\",\"data\":\"0x%s\"},\"0x%llx\"]", hex, selector,
		 (unsigned long long)block);
	size_t max = c->resp.max;
	c->resp.max = EVM_CALL_MAX;
	sl_span r;
	sl_err e = rpc(c, "eth_call", params, &r, err);
	c->resp.max = max;
	if (e == SL_ERR_TOO_LARGE || (e == SL_ERR_UNSUPPORTED && (c->code == 3 || c->code == -32000)))
		return 0;
	if (e)
		return -1;
	const char *p;
	size_t len;
	if (sl_json_type(r) != SL_JT_STRING || r.len < 4 || r.p[1] != '0' || r.p[2] != 'x')
		return 0;
	p = (const char *)r.p + 3;
	len = r.len - 4;
	return len % 2 == 0 && len / 2 <= cap && !sl_hex_decode(p, len, out, cap, n) ? 1 : 0;
}

/* ---- tokens ------------------------------------------------------------------------- */

static size_t known_slot(const uint8_t a[20])
{
	uint64_t h;
	memcpy(&h, a + 12, 8);
	return (size_t)(h * 0x9e3779b97f4a7c15ull >> 32) % EVM_KNOWN_CAP;
}

static bool known_has(chain *c, const uint8_t a[20])
{
	static const uint8_t zero[20];
	for (size_t i = known_slot(a);; i = (i + 1) % EVM_KNOWN_CAP) {
		if (!memcmp(c->known[i], a, 20))
			return true;
		if (!memcmp(c->known[i], zero, 20))
			return false;
	}
}

static void known_add(chain *c, const uint8_t a[20])
{
	static const uint8_t zero[20];
	if (!memcmp(a, zero, 20))
		return;
	if (c->nknown >= EVM_KNOWN_CAP * 3 / 4) {
		memset(c->known, 0, EVM_KNOWN_CAP * sizeof *c->known);
		c->nknown = 0;
	}
	size_t i = known_slot(a);
	while (memcmp(c->known[i], zero, 20)) {
		if (!memcmp(c->known[i], a, 20))
			return;
		i = (i + 1) % EVM_KNOWN_CAP;
	}
	memcpy(c->known[i], a, 20);
	c->nknown++;
}

static const sl_sql q_token_known = { "SELECT 1 FROM evm_tokens WHERE evm = ? AND address = ?" };

/* Is the token in the store (or in the batch being read)? */
static bool token_known(chain *c, const uint8_t a[20])
{
	if (known_has(c, a))
		return true;
	if (!conn_get(c))
		return false;
	sl_stmt *s = sl_stmt_get(c->conn, &q_token_known);
	if (!s) {
		conn_put(c);
		return false;
	}
	sl_bind_i64(s, 0, (int64_t)c->cfg->id);
	sl_bind_blob(s, 1, a, 20);
	bool found = false;
	sl_err e = sl_stmt_query(s);
	while (!e && sl_stmt_next(s, &e))
		found = true;
	conn_put(c);
	if (found)
		known_add(c, a);
	return found;
}

typedef struct probe_ctx {
	chain *c;
	blk *k;
	uint8_t token[20];
	char *err;
} probe_ctx;

static sl_err probe_transfer(void *ctx, uint32_t sub, const sl_evm_transfer *t)
{
	probe_ctx *p = ctx;
	if (sub)
		return SL_OK;
	for (size_t i = 0; i < p->k->ntokens; i++)
		if (!memcmp(p->k->tokens[i].addr, p->token, 20))
			return SL_OK;
	if (token_known(p->c, p->token))
		return SL_OK;
	token *n = realloc(p->k->tokens, (p->k->ntokens + 1) * sizeof *n);
	if (!n)
		return SL_ERR_NOMEM;
	p->k->tokens = n;
	token *tk = &n[p->k->ntokens++];
	memset(tk, 0, sizeof *tk);
	memcpy(tk->addr, p->token, 20);
	tk->std = t->std;
	uint8_t out[EVM_CALL_MAX / 2];
	size_t len;
	uint64_t at = p->k->b.number;
	int got;
	if ((got = eth_call(p->c, tk->addr, "06fdde03", at, out, sizeof out, &len, p->err)) > 0)
		tk->has_name = sl_evm_abi_string(out, len, tk->name, sizeof tk->name);
	if (got >= 0 && (got = eth_call(p->c, tk->addr, "95d89b41", at, out, sizeof out, &len, p->err)) > 0)
		tk->has_symbol = sl_evm_abi_string(out, len, tk->symbol, sizeof tk->symbol);
	if (got >= 0 && t->std == 20 &&
	    (got = eth_call(p->c, tk->addr, "313ce567", at, out, sizeof out, &len, p->err)) > 0)
		tk->has_decimals = sl_evm_abi_uint8(out, len, &tk->decimals);
	if (got < 0)
		return SL_ERR_UNAVAILABLE;
	known_add(p->c, tk->addr);
	return SL_OK;
}

/* The tokens a block's transfers show that the store does not have yet, with what they answer. */
static sl_err probe_tokens(chain *c, blk *k, char err[256])
{
	probe_ctx p = { .c = c, .k = k, .err = err };
	for (uint32_t i = 0; i < k->b.nlogs; i++) {
		evm_log *l = &k->b.logs[i];
		memcpy(p.token, l->address, 20);
		sl_err e = sl_evm_log_transfers(l->topics, l->ntopics, l->data, l->len, probe_transfer, &p);
		if (e && e != SL_ERR_NOT_FOUND)
			return e;
	}
	return SL_OK;
}

/* ---- reading a block ------------------------------------------------------------------ */

static sl_err fetch_block(chain *c, uint64_t n, blk *k, char err[256])
{
	char params[160];
	sl_span r;
	evm_block *b = &k->b;
	snprintf(params, sizeof params, "[\"0x%llx\",true]", (unsigned long long)n);
	sl_err e = rpc(c, "eth_getBlockByNumber", params, &r, err);
	if (!e)
		e = evm_parse_block(r, b, err);
	if (e)
		return e;
	if (b->number != n) {
		snprintf(err, 256, "asked for block %llu, the node answered block %llu",
			 (unsigned long long)n, (unsigned long long)b->number);
		return SL_ERR_INVALID;
	}
	if (!b->ntx)
		return SL_OK;
	/* receipts: the whole block's at once where the node can */
	snprintf(params, sizeof params, "[\"0x%llx\"]", (unsigned long long)n);
	if (c->receipts != SUPPORT_NO) {
		e = rpc(c, "eth_getBlockReceipts", params, &r, err);
		if (e == SL_ERR_UNSUPPORTED && c->code == -32601 && c->receipts == SUPPORT_UNKNOWN) {
			SL_LOG(c->log, SL_INFO, "evm %llu: no eth_getBlockReceipts (%s); asking tx by tx",
			       (unsigned long long)c->cfg->id, err);
			c->receipts = SUPPORT_NO;
		} else if (e)
			return e;
		else {
			c->receipts = SUPPORT_YES;
			if ((e = evm_parse_receipts(r, b, err)))
				return e;
		}
	}
	if (c->receipts == SUPPORT_NO) {
		for (uint32_t i = 0; i < b->ntx; i++) {
			char hex[65];
			for (int j = 0; j < 32; j++)
				snprintf(hex + 2 * j, 3, "%02x", b->txs[i].hash[j]);
			snprintf(params, sizeof params, "[\"0x%s\"]", hex);
			if ((e = rpc(c, "eth_getTransactionReceipt", params, &r, err)) ||
			    (e = evm_parse_receipt(r, b, err)))
				return e;
		}
		if ((e = evm_check_receipts(b, err)))
			return e;
	}
	/* call frames, where the node traces */
	if (c->traces != SUPPORT_NO && !c->ix->cfg.no_trace) {
		snprintf(params, sizeof params, "[\"0x%llx\",{\"tracer\":\"callTracer\"}]",
			 (unsigned long long)n);
		e = rpc(c, "debug_traceBlockByNumber", params, &r, err);
		if (e == SL_ERR_UNSUPPORTED && c->code == -32601 && c->traces == SUPPORT_UNKNOWN) {
			SL_LOG(c->log, SL_WARN,
			       "evm %llu: no debug_traceBlockByNumber (%s): internal txs and contracts created by "
			       "contracts are left out",
			       (unsigned long long)c->cfg->id, err);
			c->traces = SUPPORT_NO;
		} else if (e)
			return e;
		else {
			c->traces = SUPPORT_YES;
			if ((e = evm_parse_traces(r, b, err)))
				return e;
		}
	}
	e = probe_tokens(c, k, err);
	if (e && e != SL_ERR_UNAVAILABLE)
		snprintf(err, 256, "probing the tokens: %s", sl_err_name(e));
	return e;
}

/* ---- writing -------------------------------------------------------------------------- */

static const sl_sql q_chain = {
	"INSERT INTO evm_chains (evm, blockchain, subnet, name, description, rpc_url, ws_url, explorer_url, logo_uri, "
	"token_name, token_symbol, token_decimals, token_logo, token_description, network, testnet, icm) "
	"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (evm) DO UPDATE SET "
	"blockchain = excluded.blockchain, subnet = excluded.subnet, name = excluded.name, "
	"description = excluded.description, rpc_url = excluded.rpc_url, ws_url = excluded.ws_url, "
	"explorer_url = excluded.explorer_url, logo_uri = excluded.logo_uri, token_name = excluded.token_name, "
	"token_symbol = excluded.token_symbol, token_decimals = excluded.token_decimals, "
	"token_logo = excluded.token_logo, token_description = excluded.token_description, "
	"network = excluded.network, testnet = excluded.testnet, icm = excluded.icm"
};
static const sl_sql q_cursor_get = { "SELECT next, last_hash FROM evm_cursors WHERE evm = ?" };
static const sl_sql q_cursor = {
	"INSERT INTO evm_cursors (evm, next, last_hash, head, caught_up_ms) VALUES (?, ?, ?, ?, ?) "
	"ON CONFLICT (evm) DO UPDATE SET next = excluded.next, last_hash = excluded.last_hash, "
	"head = excluded.head, caught_up_ms = COALESCE(excluded.caught_up_ms, evm_cursors.caught_up_ms)"
};
static const sl_sql q_status = { "UPDATE evm_cursors SET head = ?, caught_up_ms = ? WHERE evm = ?" };
static const sl_sql q_block = {
	"INSERT INTO evm_blocks (evm, number, hash, parent, ts, miner, gas_limit, gas_used, base_fee, ntx, size) "
	"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (evm, number) DO NOTHING"
};
static const sl_sql q_tx = {
	"INSERT INTO evm_txs (evm, block, idx, hash, ts, sender, recipient, value, nonce, type, gas_limit, gas_price, "
	"max_fee, max_prio, input, status, gas_used, effective_price, created) "
	"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (evm, block, idx) DO NOTHING"
};
static const sl_sql q_log = { "INSERT INTO evm_logs (evm, block, log_idx, tx_idx, address, topics, data) "
			      "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (evm, block, log_idx) DO NOTHING" };
static const sl_sql q_transfer = {
	"INSERT INTO evm_transfers (evm, block, log_idx, sub, tx_idx, token, std, sender, recipient, token_id, value) "
	"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (evm, block, log_idx, sub) DO NOTHING"
};
static const sl_sql q_internal = {
	"INSERT INTO evm_internal (evm, block, tx_idx, n, depth, kind, sender, recipient, value, gas, gas_used, "
	"reverted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (evm, block, tx_idx, n) DO NOTHING"
};
static const sl_sql q_contract = { "INSERT INTO evm_contracts (evm, address, block, tx_idx, creator) "
				   "VALUES (?, ?, ?, ?, ?) ON CONFLICT (evm, address) DO NOTHING" };
static const sl_sql q_token = { "INSERT INTO evm_tokens (evm, address, std, name, symbol, decimals) "
				"VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (evm, address) DO NOTHING" };
static const sl_sql q_addr = { "INSERT INTO evm_addr_txs (evm, addr, block, tx_idx) VALUES (?, ?, ?, ?) "
			       "ON CONFLICT DO NOTHING" };
static const sl_sql q_icm_src = {
	"INSERT INTO icm_messages (id, contract, src_blockchain, dst_blockchain, nonce, sender, recipient, gas_limit, "
	"relayers, receipts, data, fee_token, fee_amount, src_evm, src_tx, src_block, src_ts, src_gas) "
	"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
	"contract = excluded.contract, src_blockchain = excluded.src_blockchain, "
	"dst_blockchain = excluded.dst_blockchain, nonce = excluded.nonce, sender = excluded.sender, "
	"recipient = excluded.recipient, gas_limit = excluded.gas_limit, relayers = excluded.relayers, "
	"receipts = excluded.receipts, data = excluded.data, fee_token = excluded.fee_token, "
	"fee_amount = excluded.fee_amount, src_evm = excluded.src_evm, src_tx = excluded.src_tx, "
	"src_block = excluded.src_block, src_ts = excluded.src_ts, src_gas = excluded.src_gas"
};
static const sl_sql q_icm_dst = {
	"INSERT INTO icm_messages (id, contract, src_blockchain, dst_blockchain, nonce, sender, recipient, gas_limit, "
	"relayers, receipts, data, dst_evm, dst_tx, dst_block, dst_ts, dst_gas, deliverer, redeemer) "
	"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
	"dst_evm = excluded.dst_evm, dst_tx = excluded.dst_tx, dst_block = excluded.dst_block, "
	"dst_ts = excluded.dst_ts, dst_gas = excluded.dst_gas, deliverer = excluded.deliverer, "
	"redeemer = excluded.redeemer"
};
static const sl_sql q_icm_executed = { "UPDATE icm_messages SET executed = ? WHERE id = ?" };
static const sl_sql q_icm_receipt = { "UPDATE icm_messages SET receipt_delivered = 1 WHERE id = ?" };
static const sl_sql q_icm_fee = { "UPDATE icm_messages SET fee_token = ?, fee_amount = ? WHERE id = ?" };
static const sl_sql q_icm_addr_del = { "DELETE FROM icm_addrs WHERE addr = ? AND id = ?" };
static const sl_sql q_icm_addr = {
	"INSERT INTO icm_addrs (addr, ts, id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
};
static const sl_sql q_icm_addr_dst = {
	"INSERT INTO icm_addrs (addr, ts, id) SELECT ?, COALESCE(src_ts, dst_ts), id FROM icm_messages "
	"WHERE id = ? AND COALESCE(src_ts, dst_ts) IS NOT NULL ON CONFLICT DO NOTHING"
};

static const uint8_t zero20[20];

static void bind_opt_text(sl_stmt *s, int i, const char *v)
{
	if (v[0])
		sl_bind_text(s, i, v, strlen(v));
	else
		sl_bind_null(s, i);
}

static void bind_opt_blob(sl_stmt *s, int i, bool has, const void *p, size_t n)
{
	if (has)
		sl_bind_blob(s, i, p, n);
	else
		sl_bind_null(s, i);
}

typedef struct wctx {
	chain *c;
	const evm_block *b;
	int64_t evm;
	uint32_t tx_idx, log_idx;
	uint8_t token[20];
} wctx;

static sl_err put_addr(wctx *w, const uint8_t a[20], uint32_t tx_idx)
{
	if (!memcmp(a, zero20, 20))
		return SL_OK; /* mints and burns: the zero address takes part in no tx */
	SL_STMT(w->c->conn, q_addr);
	sl_bind_i64(s, 0, w->evm);
	sl_bind_blob(s, 1, a, 20);
	sl_bind_i64(s, 2, (int64_t)w->b->number);
	sl_bind_i64(s, 3, tx_idx);
	return sl_stmt_exec(s);
}

static sl_err put_transfer(void *ctx, uint32_t sub, const sl_evm_transfer *t)
{
	wctx *w = ctx;
	sl_err e;
	{
		SL_STMT(w->c->conn, q_transfer);
		sl_bind_i64(s, 0, w->evm);
		sl_bind_i64(s, 1, (int64_t)w->b->number);
		sl_bind_i64(s, 2, w->log_idx);
		sl_bind_i64(s, 3, sub);
		sl_bind_i64(s, 4, w->tx_idx);
		sl_bind_blob(s, 5, w->token, 20);
		sl_bind_i64(s, 6, t->std);
		sl_bind_blob(s, 7, t->from, 20);
		sl_bind_blob(s, 8, t->to, 20);
		bind_opt_blob(s, 9, t->has_id, t->token_id, 32);
		sl_bind_blob(s, 10, t->value, 32);
		if ((e = sl_stmt_exec(s)))
			return e;
	}
	if ((e = put_addr(w, t->from, w->tx_idx)))
		return e;
	return put_addr(w, t->to, w->tx_idx);
}

static sl_err put_contract(wctx *w, const uint8_t addr[20], uint32_t tx_idx, const uint8_t creator[20])
{
	SL_STMT(w->c->conn, q_contract);
	sl_bind_i64(s, 0, w->evm);
	sl_bind_blob(s, 1, addr, 20);
	sl_bind_i64(s, 2, (int64_t)w->b->number);
	sl_bind_i64(s, 3, tx_idx);
	sl_bind_blob(s, 4, creator, 20);
	return sl_stmt_exec(s);
}

/* gasUsed × effectiveGasPrice, as 32 bytes big-endian (modulo 2^256) */
static void gas_spent(const evm_tx *t, uint8_t out[32])
{
	sl_u256 v;
	for (int i = 0; i < 4; i++) {
		uint64_t x = 0;
		for (int j = 0; j < 8; j++)
			x = x << 8 | t->effective_price[8 * (3 - i) + j];
		v.w[i] = x;
	}
	sl_u256_mul64(&v, t->gas_used);
	for (int i = 0; i < 4; i++)
		sl_put_be64(out + 8 * (3 - i), v.w[i]);
}

/* The message's fields bound from index i: nonce, sender, recipient, gas_limit, relayers, receipts, data */
static sl_err bind_message(sl_stmt *s, int i, const sl_icm_message *m, sl_buf *scratch)
{
	sl_bind_blob(s, i, m->nonce, 32);
	sl_bind_blob(s, i + 1, m->origin, 20);
	sl_bind_blob(s, i + 2, m->dst_addr, 20);
	sl_bind_blob(s, i + 3, m->gas_limit, 32);
	/* relayers: n × 20 bytes; receipts: n × (32-byte nonce ‖ 20-byte reward address) */
	sl_buf_reset(scratch);
	for (uint32_t k = 0; k < m->nrelayers; k++)
		sl_buf_add(scratch, m->relayers + 32 * (size_t)k + 12, 20);
	size_t rl = scratch->len;
	for (uint32_t k = 0; k < m->nreceipts; k++) {
		sl_buf_add(scratch, m->receipts + 64 * (size_t)k, 32);
		sl_buf_add(scratch, m->receipts + 64 * (size_t)k + 44, 20);
	}
	if (scratch->err)
		return SL_ERR_NOMEM;
	sl_bind_blob(s, i + 4, scratch->p, rl);
	sl_bind_blob(s, i + 5, scratch->p + rl, scratch->len - rl);
	sl_bind_blob(s, i + 6, m->payload, m->payload_len);
	return SL_OK;
}

static sl_err icm_addrs_src(wctx *w, const uint8_t sender[20], const uint8_t recipient[20],
			    const uint8_t id[32])
{
	const uint8_t *who[2] = { sender, recipient };
	for (int k = 0; k < 2; k++) {
		SL_STMT(w->c->conn, q_icm_addr_del);
		sl_bind_blob(s, 0, who[k], 20);
		sl_bind_blob(s, 1, id, 32);
		sl_err e = sl_stmt_exec(s);
		if (e)
			return e;
	}
	for (int k = 0; k < 2; k++) {
		SL_STMT(w->c->conn, q_icm_addr);
		sl_bind_blob(s, 0, who[k], 20);
		sl_bind_i64(s, 1, (int64_t)w->b->ts);
		sl_bind_blob(s, 2, id, 32);
		sl_err e = sl_stmt_exec(s);
		if (e)
			return e;
	}
	return SL_OK;
}

static sl_err put_icm(wctx *w, const evm_log *l, sl_buf *scratch)
{
	const sl_evm_chain_config *cfg = w->c->cfg;
	sl_icm_event ev;
	if (sl_icm_decode(l->topics, l->ntopics, l->data, l->len, &ev)) {
		SL_LOG(w->c->log, SL_WARN,
		       "evm %llu block %llu log %u: an ICM event of a shape not known; left out",
		       (unsigned long long)cfg->id, (unsigned long long)w->b->number, l->log_idx);
		return SL_OK;
	}
	const evm_tx *t = &w->b->txs[l->tx_idx];
	uint8_t gas[32];
	gas_spent(t, gas);
	sl_err e;
	switch (ev.kind) {
	case SL_ICM_SEND: {
		{
			SL_STMT(w->c->conn, q_icm_src);
			sl_bind_blob(s, 0, ev.id, 32);
			sl_bind_blob(s, 1, l->address, 20);
			sl_bind_blob(s, 2, cfg->blockchain, 32);
			sl_bind_blob(s, 3, ev.chain, 32);
			if ((e = bind_message(s, 4, &ev.msg, scratch)))
				return e;
			sl_bind_blob(s, 11, ev.fee_token, 20);
			sl_bind_blob(s, 12, ev.fee_amount, 32);
			sl_bind_i64(s, 13, w->evm);
			sl_bind_blob(s, 14, t->hash, 32);
			sl_bind_i64(s, 15, (int64_t)w->b->number);
			sl_bind_i64(s, 16, (int64_t)w->b->ts);
			sl_bind_blob(s, 17, gas, 32);
			if ((e = sl_stmt_exec(s)))
				return e;
		}
		return icm_addrs_src(w, ev.msg.origin, ev.msg.dst_addr, ev.id);
	}
	case SL_ICM_RECEIVE: {
		{
			SL_STMT(w->c->conn, q_icm_dst);
			sl_bind_blob(s, 0, ev.id, 32);
			sl_bind_blob(s, 1, l->address, 20);
			sl_bind_blob(s, 2, ev.chain, 32);
			sl_bind_blob(s, 3, cfg->blockchain, 32);
			if ((e = bind_message(s, 4, &ev.msg, scratch)))
				return e;
			sl_bind_i64(s, 11, w->evm);
			sl_bind_blob(s, 12, t->hash, 32);
			sl_bind_i64(s, 13, (int64_t)w->b->number);
			sl_bind_i64(s, 14, (int64_t)w->b->ts);
			sl_bind_blob(s, 15, gas, 32);
			sl_bind_blob(s, 16, ev.addr, 20);
			sl_bind_blob(s, 17, ev.redeemer, 20);
			if ((e = sl_stmt_exec(s)))
				return e;
		}
		const uint8_t *who[2] = { ev.msg.origin, ev.msg.dst_addr };
		for (int k = 0; k < 2; k++) {
			SL_STMT(w->c->conn, q_icm_addr_dst);
			sl_bind_blob(s, 0, who[k], 20);
			sl_bind_blob(s, 1, ev.id, 32);
			if ((e = sl_stmt_exec(s)))
				return e;
		}
		return SL_OK;
	}
	case SL_ICM_EXECUTED:
	case SL_ICM_FAILED: {
		SL_STMT(w->c->conn, q_icm_executed);
		sl_bind_i64(s, 0, ev.kind == SL_ICM_EXECUTED);
		sl_bind_blob(s, 1, ev.id, 32);
		return sl_stmt_exec(s);
	}
	case SL_ICM_RECEIPT: {
		SL_STMT(w->c->conn, q_icm_receipt);
		sl_bind_blob(s, 0, ev.id, 32);
		return sl_stmt_exec(s);
	}
	case SL_ICM_ADD_FEE: {
		SL_STMT(w->c->conn, q_icm_fee);
		sl_bind_blob(s, 0, ev.fee_token, 20);
		sl_bind_blob(s, 1, ev.fee_amount, 32);
		sl_bind_blob(s, 2, ev.id, 32);
		return sl_stmt_exec(s);
	}
	case SL_ICM_NONE: break;
	}
	return SL_OK;
}

static sl_err put_block(chain *c, const blk *k, sl_buf *scratch)
{
	const evm_block *b = &k->b;
	wctx w = { .c = c, .b = b, .evm = (int64_t)c->cfg->id };
	sl_err e;
	{
		SL_STMT(c->conn, q_block);
		sl_bind_i64(s, 0, w.evm);
		sl_bind_i64(s, 1, (int64_t)b->number);
		sl_bind_blob(s, 2, b->hash, 32);
		sl_bind_blob(s, 3, b->parent, 32);
		sl_bind_i64(s, 4, (int64_t)b->ts);
		sl_bind_blob(s, 5, b->miner, 20);
		sl_bind_i64(s, 6, (int64_t)b->gas_limit);
		sl_bind_i64(s, 7, (int64_t)b->gas_used);
		bind_opt_blob(s, 8, b->has_base_fee, b->base_fee, 32);
		sl_bind_i64(s, 9, b->ntx);
		sl_bind_i64(s, 10, (int64_t)b->size);
		if ((e = sl_stmt_exec(s)))
			return e;
	}
	for (uint32_t i = 0; i < b->ntx; i++) {
		const evm_tx *t = &b->txs[i];
		bool created = t->has_created && t->status == 1;
		{
			SL_STMT(c->conn, q_tx);
			sl_bind_i64(s, 0, w.evm);
			sl_bind_i64(s, 1, (int64_t)b->number);
			sl_bind_i64(s, 2, i);
			sl_bind_blob(s, 3, t->hash, 32);
			sl_bind_i64(s, 4, (int64_t)b->ts);
			sl_bind_blob(s, 5, t->from, 20);
			bind_opt_blob(s, 6, t->has_to, t->to, 20);
			sl_bind_blob(s, 7, t->value, 32);
			sl_bind_i64(s, 8, (int64_t)t->nonce);
			sl_bind_i64(s, 9, (int64_t)t->type);
			sl_bind_i64(s, 10, (int64_t)t->gas);
			bind_opt_blob(s, 11, t->has_gas_price, t->gas_price, 32);
			bind_opt_blob(s, 12, t->has_max_fee, t->max_fee, 32);
			bind_opt_blob(s, 13, t->has_max_prio, t->max_prio, 32);
			sl_bind_blob(s, 14, t->input, t->input_len);
			sl_bind_i64(s, 15, t->status);
			sl_bind_i64(s, 16, (int64_t)t->gas_used);
			sl_bind_blob(s, 17, t->effective_price, 32);
			bind_opt_blob(s, 18, created, t->created, 20);
			if ((e = sl_stmt_exec(s)))
				return e;
		}
		if ((e = put_addr(&w, t->from, i)) || (t->has_to && (e = put_addr(&w, t->to, i))))
			return e;
		if (created && (e = put_contract(&w, t->created, i, t->from)))
			return e;
	}
	for (uint32_t i = 0; i < b->nlogs; i++) {
		const evm_log *l = &b->logs[i];
		{
			SL_STMT(c->conn, q_log);
			sl_bind_i64(s, 0, w.evm);
			sl_bind_i64(s, 1, (int64_t)b->number);
			sl_bind_i64(s, 2, l->log_idx);
			sl_bind_i64(s, 3, l->tx_idx);
			sl_bind_blob(s, 4, l->address, 20);
			sl_bind_blob(s, 5, l->topics, 32 * (size_t)l->ntopics);
			sl_bind_blob(s, 6, l->data, l->len);
			if ((e = sl_stmt_exec(s)))
				return e;
		}
		w.tx_idx = l->tx_idx;
		w.log_idx = l->log_idx;
		memcpy(w.token, l->address, 20);
		e = sl_evm_log_transfers(l->topics, l->ntopics, l->data, l->len, put_transfer, &w);
		if (e && e != SL_ERR_NOT_FOUND)
			return e;
		if (c->cfg->has_icm && !memcmp(l->address, c->cfg->icm, 20) && (e = put_icm(&w, l, scratch)))
			return e;
	}
	for (uint32_t i = 0; i < b->nframes; i++) {
		const evm_frame *f = &b->frames[i];
		{
			SL_STMT(c->conn, q_internal);
			sl_bind_i64(s, 0, w.evm);
			sl_bind_i64(s, 1, (int64_t)b->number);
			sl_bind_i64(s, 2, f->tx_idx);
			sl_bind_i64(s, 3, f->n);
			sl_bind_i64(s, 4, f->depth);
			sl_bind_text(s, 5, f->kind, strlen(f->kind));
			sl_bind_blob(s, 6, f->from, 20);
			bind_opt_blob(s, 7, f->has_to, f->to, 20);
			bind_opt_blob(s, 8, f->has_value, f->value, 32);
			sl_bind_i64(s, 9, (int64_t)f->gas);
			sl_bind_i64(s, 10, (int64_t)f->gas_used);
			sl_bind_i64(s, 11, f->reverted);
			if ((e = sl_stmt_exec(s)))
				return e;
		}
		if ((e = put_addr(&w, f->from, f->tx_idx)) ||
		    (f->has_to && (e = put_addr(&w, f->to, f->tx_idx))))
			return e;
		if (f->created && (e = put_contract(&w, f->to, f->tx_idx, f->from)))
			return e;
	}
	for (size_t i = 0; i < k->ntokens; i++) {
		const token *tk = &k->tokens[i];
		SL_STMT(c->conn, q_token);
		sl_bind_i64(s, 0, w.evm);
		sl_bind_blob(s, 1, tk->addr, 20);
		sl_bind_i64(s, 2, tk->std);
		if (tk->has_name)
			sl_bind_text(s, 3, tk->name, strlen(tk->name));
		else
			sl_bind_null(s, 3);
		if (tk->has_symbol)
			sl_bind_text(s, 4, tk->symbol, strlen(tk->symbol));
		else
			sl_bind_null(s, 4);
		if (tk->has_decimals)
			sl_bind_i64(s, 5, tk->decimals);
		else
			sl_bind_null(s, 5);
		if ((e = sl_stmt_exec(s)))
			return e;
	}
	return SL_OK;
}

static sl_err write_batch(chain *c, blk *batch, size_t nb)
{
	sl_buf scratch;
	sl_buf_init(&scratch, 64u << 20);
	sl_err e = sl_conn_begin(c->conn);
	for (size_t i = 0; !e && i < nb; i++)
		e = put_block(c, &batch[i], &scratch);
	if (!e) {
		const evm_block *last = &batch[nb - 1].b;
		uint64_t head = atomic_load(&c->head);
		sl_stmt *s = sl_stmt_get(c->conn, &q_cursor);
		if (!s)
			e = SL_ERR_STORE;
		else {
			sl_bind_i64(s, 0, (int64_t)c->cfg->id);
			sl_bind_i64(s, 1, (int64_t)last->number + 1);
			sl_bind_blob(s, 2, last->hash, 32);
			sl_bind_i64(s, 3, (int64_t)head - 1); /* the node's latest block */
			if (last->number + 1 >= head)
				sl_bind_i64(s, 4, now_ms());
			else
				sl_bind_null(s, 4);
			e = sl_stmt_exec(s);
		}
	}
	if (!e)
		e = sl_conn_commit(c->conn);
	if (e)
		sl_conn_rollback(c->conn);
	sl_buf_release(&scratch);
	return e;
}

/* head and catch-up time while idle, for the API's lag */
static void write_status(chain *c)
{
	if (!conn_get(c))
		return;
	sl_stmt *s = sl_stmt_get(c->conn, &q_status);
	if (!s) {
		conn_put(c);
		return;
	}
	sl_bind_i64(s, 0, (int64_t)atomic_load(&c->head) - 1);
	sl_bind_i64(s, 1, atomic_load(&c->caught_up_ms));
	sl_bind_i64(s, 2, (int64_t)c->cfg->id);
	if (sl_stmt_exec(s))
		SL_LOG(c->log, SL_DEBUG, "evm %llu: status: %s", (unsigned long long)c->cfg->id,
		       sl_conn_error(c->conn));
	conn_put(c);
}

/* ---- the chain's thread ------------------------------------------------------------------ */

static sl_err read_cursor(chain *c)
{
	SL_STMT(c->conn, q_cursor_get);
	sl_bind_i64(s, 0, (int64_t)c->cfg->id);
	sl_err e = sl_stmt_query(s);
	c->next = 0;
	c->has_last = false;
	while (!e && sl_stmt_next(s, &e)) {
		c->next = (uint64_t)sl_col_i64(s, 0);
		size_t n;
		const uint8_t *h = sl_col_blob(s, 1, &n);
		if (h && n == 32) {
			memcpy(c->last_hash, h, 32);
			c->has_last = true;
		}
	}
	return e;
}

static void release_batch(chain *c, size_t nb)
{
	for (size_t i = 0; i < nb; i++) {
		evm_block_free(&c->batch[i].b);
		free(c->batch[i].tokens);
		c->batch[i].tokens = NULL;
		c->batch[i].ntokens = 0;
	}
}

static void fail(chain *c, const char *msg)
{
	SL_LOG(c->log, SL_FATAL, "evm %llu (%s): %s; this chain stops", (unsigned long long)c->cfg->id,
	       c->cfg->name, msg);
	atomic_store(&c->failed, true);
}

/* A line every 5 s while catching up, one when caught up (and again after falling behind). */
static void progress(chain *c)
{
	sl_evm_indexer *ix = c->ix;
	if (ix->cfg.progress == SL_PROGRESS_OFF)
		return;
	int64_t now = now_ms();
	uint64_t at = atomic_load(&c->applied), head = atomic_load(&c->head);
	bool up = atomic_load(&c->caught_up) && at >= head;
	if (!c->rate_ns) {
		c->rate_ns = now;
		c->rate_base = at;
		c->next_progress = now + 5000;
	} else if (now - c->rate_ns >= 1000) {
		double r = (double)(at - c->rate_base) * 1e3 / (double)(now - c->rate_ns);
		c->rate = c->rate ? 0.7 * c->rate + 0.3 * r : r;
		c->rate_ns = now;
		c->rate_base = at;
	}
	if (up == c->said_caught_up && (up || now < c->next_progress))
		return;
	c->said_caught_up = up;
	c->next_progress = now + 5000;
	SL_LOG(ix->log, SL_INFO, "evm %-8llu %-12.12s %10llu / %-10llu blocks %8.0f/s  %llu txs%s",
	       (unsigned long long)c->cfg->id, c->cfg->name, (unsigned long long)at,
	       (unsigned long long)(head < at ? at : head), c->rate, (unsigned long long)atomic_load(&c->txs),
	       up ? "  caught up" : "");
}

static void *chain_main(void *arg)
{
	chain *c = arg;
	sl_evm_indexer *ix = c->ix;
	char err[256];
	unsigned backoff = 100;
	unsigned batch = ix->cfg.batch;
	int64_t next_status = 0;
	while (conn_get(c)) {
		sl_err e = read_cursor(c);
		if (!e) {
			conn_put(c);
			break;
		}
		SL_LOG(c->log, SL_ERROR, "evm %llu: cannot read the cursor: %s",
		       (unsigned long long)c->cfg->id, sl_conn_error(c->conn));
		conn_put(c);
		sleep_ms(ix, 1000);
	}
	atomic_store(&c->applied, c->next);
	/* the block before the cursor must be the one the store holds */
	if (c->has_last && c->next > 0 && !stopping(ix)) {
		for (;;) {
			blk k = { 0 };
			evm_block_init(&k.b);
			char params[64];
			sl_span r;
			snprintf(params, sizeof params, "[\"0x%llx\",true]",
				 (unsigned long long)(c->next - 1));
			sl_err e = rpc(c, "eth_getBlockByNumber", params, &r, err);
			if (!e)
				e = evm_parse_block(r, &k.b, err);
			bool differs = !e && memcmp(k.b.hash, c->last_hash, 32);
			evm_block_free(&k.b);
			if (differs) {
				snprintf(
					err, 256,
					"the node's block %llu is not the one the store holds (another chain, or "
					"a reorganization deeper than the store): refusing to mix them",
					(unsigned long long)(c->next - 1));
				fail(c, err);
				goto out;
			}
			if (!e || stopping(ix))
				break;
			SL_LOG(c->log, SL_WARN, "evm %llu: %s; retrying", (unsigned long long)c->cfg->id,
			       err);
			sleep_ms(ix, 1000);
		}
	}
	while (!stopping(ix)) {
		sl_span r;
		uint64_t head;
		sl_err e = rpc(c, "eth_blockNumber", "[]", &r, err);
		if (!e && !evm_quantity(r, &head)) {
			snprintf(err, 256, "eth_blockNumber: not a quantity");
			e = SL_ERR_INVALID;
		}
		if (e) {
			SL_LOG(c->log, SL_WARN, "evm %llu: %s; retrying", (unsigned long long)c->cfg->id,
			       err);
			sleep_ms(ix, backoff);
			backoff = backoff * 2 > 5000 ? 5000 : backoff * 2;
			continue;
		}
		atomic_store(&c->head, head + 1);
		if (c->next > head) {
			int64_t now = now_ms();
			if (!atomic_load(&c->caught_up)) {
				atomic_store(&c->caught_up_ms, now);
				atomic_store(&c->caught_up, true);
			} else
				atomic_store(&c->caught_up_ms, now);
			if (now >= next_status) {
				write_status(c);
				next_status = now + 1000;
			}
			progress(c);
			sleep_ms(ix, ix->cfg.poll_ms);
			continue;
		}
		atomic_store(&c->caught_up, false);
		size_t nb = 0, txs = 0;
		const uint8_t *prev = c->has_last ? c->last_hash : NULL;
		e = SL_OK;
		for (uint64_t n = c->next; n <= head && nb < batch && txs < EVM_BATCH_TXS && !stopping(ix);
		     n++) {
			blk *k = &c->batch[nb];
			evm_block_init(&k->b);
			e = fetch_block(c, n, k, err);
			if (!e && prev && memcmp(k->b.parent, prev, 32)) {
				snprintf(
					err, 256,
					"block %llu's parent is not the block %llu the store holds: the chain "
					"reorganized, which this indexer does not follow",
					(unsigned long long)n, (unsigned long long)(n - 1));
				e = SL_ERR_CONFLICT;
			}
			if (e) { /* this block is read again; the ones before it are written */
				evm_block_free(&k->b);
				free(k->tokens);
				k->tokens = NULL;
				k->ntokens = 0;
				break;
			}
			prev = k->b.hash;
			txs += k->b.ntx;
			nb++;
		}
		if (e == SL_ERR_CONFLICT) {
			release_batch(c, nb);
			fail(c, err);
			break;
		}
		if (e) {
			SL_LOG(c->log, SL_WARN, "evm %llu: block %llu: %s (%s); retrying",
			       (unsigned long long)c->cfg->id, (unsigned long long)(c->next + nb), err,
			       sl_err_name(e));
			/* the tokens the failed block probed are not stored: forget what the cache says */
			memset(c->known, 0, EVM_KNOWN_CAP * sizeof *c->known);
			c->nknown = 0;
			sleep_ms(ix, backoff);
			backoff = backoff * 2 > 5000 ? 5000 : backoff * 2;
			e = SL_OK;
		}
		if (!nb)
			continue;
		/* a failing write (store away, a deadlock with another chain's batch) is retried */
		unsigned wb = 100;
		while (conn_get(c) && (e = write_batch(c, c->batch, nb))) {
			SL_LOG(c->log, SL_ERROR,
			       "evm %llu: cannot write blocks %llu..%llu: %s (%s); retrying",
			       (unsigned long long)c->cfg->id, (unsigned long long)c->next,
			       (unsigned long long)(c->next + nb - 1), sl_conn_error(c->conn),
			       sl_err_name(e));
			conn_put(c); /* a connection whose server went away is dropped: the next is fresh */
			sleep_ms(ix, wb);
			wb = wb * 2 > 5000 ? 5000 : wb * 2;
		}
		if (!c->conn)
			e = SL_ERR_UNAVAILABLE; /* stopping before the batch was written */
		conn_put(c);
		if (!e) {
			const evm_block *last = &c->batch[nb - 1].b;
			SL_LOG(c->log, SL_DEBUG, "evm %llu: applied blocks %llu..%llu (%zu txs)",
			       (unsigned long long)c->cfg->id, (unsigned long long)c->next,
			       (unsigned long long)last->number, txs);
			c->next = last->number + 1;
			memcpy(c->last_hash, last->hash, 32);
			c->has_last = true;
			atomic_store(&c->applied, c->next);
			atomic_fetch_add(&c->txs, txs);
			if (c->next >= atomic_load(&c->head))
				atomic_store(&c->caught_up_ms, now_ms());
			backoff = 100;
		}
		release_batch(c, nb);
		progress(c);
	}
out:
	return NULL;
}

/* ---- lifecycle -------------------------------------------------------------------------- */

/* The page-token secret of a store that holds only EVM chains so far (the API signs its page
 * tokens with it; the primary-network indexer keeps the one it finds). */
static const sl_sql q_secret = {
	"INSERT INTO meta (key, value) VALUES ('token_secret', ?) ON CONFLICT (key) DO NOTHING"
};

static sl_err put_secret(sl_conn *conn)
{
	uint8_t secret[32];
	FILE *r = fopen("/dev/urandom", "rb");
	bool ok = r && fread(secret, 1, 32, r) == 32;
	if (r)
		fclose(r);
	if (!ok)
		return SL_ERR_IO;
	SL_STMT(conn, q_secret);
	sl_bind_blob(s, 0, secret, 32);
	return sl_stmt_exec(s);
}

static sl_err put_chain(sl_conn *conn, const sl_evm_chain_config *c)
{
	SL_STMT(conn, q_chain);
	sl_bind_i64(s, 0, (int64_t)c->id);
	bind_opt_blob(s, 1, c->has_blockchain, c->blockchain, 32);
	bind_opt_blob(s, 2, c->has_subnet, c->subnet, 32);
	sl_bind_text(s, 3, c->name, strlen(c->name));
	bind_opt_text(s, 4, c->description);
	sl_bind_text(s, 5, c->rpc, strlen(c->rpc));
	bind_opt_text(s, 6, c->ws);
	bind_opt_text(s, 7, c->explorer);
	bind_opt_text(s, 8, c->logo);
	sl_bind_text(s, 9, c->token, strlen(c->token));
	sl_bind_text(s, 10, c->symbol, strlen(c->symbol));
	sl_bind_i64(s, 11, c->decimals);
	bind_opt_text(s, 12, c->token_logo);
	sl_bind_null(s, 13);
	sl_bind_text(s, 14, c->network, strlen(c->network));
	sl_bind_i64(s, 15, c->testnet);
	bind_opt_blob(s, 16, c->has_icm, c->icm, 20);
	return sl_stmt_exec(s);
}

sl_evm_indexer *sl_evm_new(const sl_evm_config *cfg, char err[512])
{
	sl_evm_indexer *ix = calloc(1, sizeof *ix);
	if (!ix) {
		snprintf(err, 512, "out of memory");
		return NULL;
	}
	ix->cfg = *cfg;
	if (!ix->cfg.poll_ms)
		ix->cfg.poll_ms = 250;
	if (!ix->cfg.batch)
		ix->cfg.batch = EVM_DEFAULT_BATCH;
	ix->log = sl_log_get("evm");
	for (size_t i = 0; i < cfg->nchains; i++)
		for (size_t j = 0; j < i; j++)
			if (cfg->chains[i].id == cfg->chains[j].id) {
				snprintf(err, 512, "--evm-chain: chain %llu is configured twice",
					 (unsigned long long)cfg->chains[i].id);
				goto fail;
			}
	char e256[256];
	sl_db_config dc = { .url = cfg->store_url,
			    .mode = cfg->mode,
			    .pool_size = (unsigned)cfg->nchains + 2 };
	if (!(ix->db = sl_db_open(&dc, e256))) {
		snprintf(err, 512, "store %s: %s", cfg->store_url, e256);
		goto fail;
	}
	sl_conn *conn = sl_db_acquire(ix->db, 10000, e256);
	if (!conn) {
		snprintf(err, 512, "store %s: %s", cfg->store_url, e256);
		goto fail;
	}
	sl_err e = sl_conn_begin(conn);
	if (!e)
		e = put_secret(conn);
	for (size_t i = 0; !e && i < cfg->nchains; i++)
		e = put_chain(conn, &cfg->chains[i]);
	if (!e)
		e = sl_conn_commit(conn);
	if (e) {
		snprintf(err, 512, "store %s: cannot write the chains: %s", cfg->store_url,
			 sl_conn_error(conn));
		sl_conn_rollback(conn);
		sl_db_release(ix->db, conn);
		goto fail;
	}
	sl_db_release(ix->db, conn);
	ix->chains = calloc(cfg->nchains, sizeof *ix->chains);
	if (!ix->chains && cfg->nchains) {
		snprintf(err, 512, "out of memory");
		goto fail;
	}
	ix->n = cfg->nchains;
	for (size_t i = 0; i < ix->n; i++) {
		chain *c = &ix->chains[i];
		c->ix = ix;
		c->cfg = &cfg->chains[i];
		c->log = ix->log;
		sl_buf_init(&c->resp, SL_EVM_MAX_RESPONSE);
		sl_buf_init(&c->req, 4096);
		c->known = calloc(EVM_KNOWN_CAP, sizeof *c->known);
		c->batch = calloc(ix->cfg.batch, sizeof *c->batch);
		c->hc = sl_http_client_new();
		if (!c->known || !c->batch || !c->hc) {
			snprintf(err, 512, "out of memory");
			goto fail;
		}
		SL_LOG(ix->log, SL_INFO, "indexing EVM chain %llu (%s) from %s",
		       (unsigned long long)c->cfg->id, c->cfg->name, c->cfg->rpc);
	}
	err[0] = 0;
	return ix;
fail:
	sl_evm_free(ix);
	return NULL;
}

sl_err sl_evm_start(sl_evm_indexer *ix, volatile sig_atomic_t *stop)
{
	ix->stop = stop;
	for (size_t i = 0; i < ix->n; i++) {
		chain *c = &ix->chains[i];
		if (pthread_create(&c->thread, NULL, chain_main, c))
			return SL_ERR_NOMEM;
		c->started = true;
	}
	return SL_OK;
}

bool sl_evm_failed(const sl_evm_indexer *ix)
{
	for (size_t i = 0; i < ix->n; i++)
		if (!atomic_load(&ix->chains[i].failed))
			return false;
	return ix->n > 0;
}

bool sl_evm_any_failed(const sl_evm_indexer *ix)
{
	for (size_t i = 0; i < ix->n; i++)
		if (atomic_load(&ix->chains[i].failed))
			return true;
	return false;
}

void sl_evm_free(sl_evm_indexer *ix)
{
	if (!ix)
		return;
	atomic_store(&ix->quit, true);
	for (size_t i = 0; i < ix->n; i++) {
		chain *c = &ix->chains[i];
		if (c->started)
			pthread_join(c->thread, NULL);
		conn_put(c);
		sl_http_client_free(c->hc);
		sl_buf_release(&c->resp);
		sl_buf_release(&c->req);
		free(c->known);
		free(c->batch);
	}
	free(ix->chains);
	sl_db_close(ix->db);
	free(ix);
}
