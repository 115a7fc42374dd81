/*
 * api.c — the Data API's front door: what happens around every route
 * (internal.h describes a route's part).
 *
 *   CORS → /health, /metrics → route match (404, 405) → API key (401) and
 *   rate limit (429) → network (404) → chain (400) → parameters (400)
 *   → a store connection (503) → the handler → metrics and the log line
 */
#include "api/internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "crypto/cb58.h"
#include "crypto/hash.h"
#include "util/jsonv.h"
#include "util/limits.h"

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- errors ------------------------------------------------------------------- */

const char *api_reason(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 413: return "Payload Too Large";
	case 414: return "URI Too Long";
	case 429: return "Too Many Requests";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	default: return status < 500 ? "Bad Request" : "Internal Server Error";
	}
}

void api_error_body(sl_http_resp *resp, int status, const char *message)
{
	resp->status = status;
	resp->content_type = "application/json; charset=utf-8";
	sl_buf_reset(&resp->body);
	sl_jw w;
	sl_jw_init(&w, &resp->body);
	sl_jw_obj(&w);
	sl_jw_key(&w, "message");
	sl_jw_str(&w, message);
	sl_jw_key(&w, "statusCode");
	sl_jw_u64(&w, (uint64_t)status);
	sl_jw_key(&w, "error");
	sl_jw_str(&w, api_reason(status));
	sl_jw_obj_end(&w);
}

int api_fail(api_req *r, int status, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	api_error_body(r->resp, status, msg);
	r->status = status;
	r->failed = true;
	return -1;
}

int api_fail_store(api_req *r, sl_err e)
{
	SL_LOG(r->api->log, SL_ERROR, "%s %s: store: %s (%s)", r->http->method, r->http->path,
	       r->db ? sl_conn_error(r->db) : "", sl_err_name(e));
	if (e == SL_ERR_UNAVAILABLE || e == SL_ERR_TIMEOUT)
		return api_fail(r, 503, "the store is not available right now; try again");
	return api_fail(r, 500, "the store failed to answer");
}

const api_val *api_arg(const api_req *r, const char *name)
{
	for (size_t i = 0; i < r->route->nparams; i++)
		if (!strcmp(r->route->params[i].name, name))
			return &r->v[i];
	static const api_val none;
	return &none; /* a handler asking for a parameter its route lacks: reads as absent */
}

/* ---- CORS ---------------------------------------------------------------------- */

static bool origin_allowed(const sl_api *a, const char *origin)
{
	const char *list = a->cfg.allowed_origins ? a->cfg.allowed_origins : "*";
	size_t n = strlen(origin);
	while (*list) {
		const char *end = strchr(list, ',');
		size_t len = end ? (size_t)(end - list) : strlen(list);
		while (len && isspace((unsigned char)*list))
			list++, len--;
		while (len && isspace((unsigned char)list[len - 1]))
			len--;
		if ((len == 1 && *list == '*') || (len == n && !strncasecmp(list, origin, n)))
			return true;
		if (!end)
			break;
		list = end + 1;
	}
	return false;
}

/* ---- routes --------------------------------------------------------------------- */

/* Match path against a pattern, capturing {network}, {blockchainId}, {assetId}, {nodeId},
 * {operationId}, {chainId}, {address}, {txHash} into r (when r). */
static bool match(const char *pattern, const char *path, api_req *r)
{
	const char *p = pattern, *q = path;
	while (*p && *q) {
		if (*p != '{') {
			if (*p != *q)
				return false;
			p++, q++;
			continue;
		}
		const char *pe = strchr(p, '}');
		const char *qe = strchr(q, '/');
		size_t n = qe ? (size_t)(qe - q) : strlen(q);
		if (!pe || !n)
			return false;
		if (r) {
			const char *v = sl_arena_strndup(r->arena, q, n);
			if (!v)
				return false;
			size_t nl = (size_t)(pe - p - 1);
			if (nl == 7 && !strncmp(p + 1, "network", 7))
				r->network = v;
			else if (nl == 12 && !strncmp(p + 1, "blockchainId", 12))
				r->chain_raw = v;
			else if (nl == 7 && !strncmp(p + 1, "assetId", 7))
				r->assetId = v;
			else if (nl == 6 && !strncmp(p + 1, "nodeId", 6))
				r->nodeId = v;
			else if (nl == 11 && !strncmp(p + 1, "operationId", 11))
				r->operationId = v;
			else if (nl == 7 && !strncmp(p + 1, "chainId", 7))
				r->chainId = v;
			else if (nl == 7 && !strncmp(p + 1, "address", 7))
				r->address = v;
			else if (nl == 6 && !strncmp(p + 1, "txHash", 6))
				r->txHash = v;
		}
		p = pe + 1;
		q += n;
	}
	return !*p && !*q;
}

/* {blockchainId}: an id of one of this network's chains, or p-chain / x-chain / c-chain. */
static int resolve_chain(const api_req *r, const char *s)
{
	static const char *const aliases[3] = { "p-chain", "x-chain", "c-chain" };
	for (int c = 0; c < 3; c++)
		if (!strcmp(s, aliases[c]) || !strcmp(s, r->api->net.chain_str[c]))
			return c;
	return -1;
}

static const char *chain_letter(int c) { return c == API_P ? "P" : c == API_X ? "X" : "C"; }

/* The network of the path: the one this store holds (fuji also as testnet). Any other, one of
 * spec 000's names or not, is a 404 that names it. */
static bool check_network(api_req *r)
{
	const api_net *net = &r->api->net;
	const char *n = r->network;
	if (!n)
		return true; /* a route without {network}: /v1/operations/…, the EVM ones (a `network`
			      * filter of their own) */
	if (!net->name[0]) {
		api_fail(r, 404,
			 "network '%.64s' is not served here: this store holds no primary network yet, "
			 "only EVM chains (/v1/chains)",
			 n);
		return false;
	}
	bool fuji = !strcmp(n, "fuji") || !strcmp(n, "testnet");
	if (strcmp(n, net->name) && !(fuji && !strcmp(net->name, "fuji"))) {
		bool known = fuji || !strcmp(n, "mainnet");
		api_fail(r, 404, "network '%.64s' is %s: this store holds %s%s", n,
			 known ? "not served here" : "not a network (mainnet, fuji, testnet)", net->name,
			 strcmp(net->name, "fuji") ? "" : " (also as testnet)");
		return false;
	}
	return true;
}

static bool check_chain(api_req *r)
{
	r->chain = -1;
	if (!r->chain_raw)
		return true;
	int c = resolve_chain(r, r->chain_raw);
	if (c < 0) {
		api_fail(
			r, 400,
			"blockchainId must be a chain of %s (p-chain, x-chain, c-chain, %s, %s, %s), not '%.64s'",
			r->api->net.name, r->api->net.chain_str[0], r->api->net.chain_str[1],
			r->api->net.chain_str[2], r->chain_raw);
		return false;
	}
	if (!(r->route->chains & API_CHAIN(c))) {
		char allowed[256] = "";
		size_t len = 0;
		for (int k = 0; k < 3; k++)
			if (r->route->chains & API_CHAIN(k))
				len += (size_t)snprintf(allowed + len, sizeof allowed - len,
							"%s%s-chain (%c-chain, %s)", len ? " or " : "",
							chain_letter(k), "pxc"[k],
							r -> api -> net.chain_str[k]);
		api_fail(r, 400, "blockchainId: this endpoint serves the %s only, not the %s-chain", allowed,
			 chain_letter(c));
		return false;
	}
	r->chain = c;
	return true;
}

/* ---- auth and rate limits ---------------------------------------------------------- */

static bool admit(api_req *r, const char **who)
{
	sl_api *a = r->api;
	const char *key = sl_http_req_header(r->http, "x-data-api-key");
	if (!key)
		key = sl_http_req_header(r->http, "x-glacier-api-key");
	double rate = a->cfg.anon_rate, burst = a->cfg.anon_burst;
	char bucket[96];
	if (key) {
		const sl_api_key *k = a->keys ? api_keys_find(a->keys, key, strlen(key)) : NULL;
		if (!k) {
			api_fail(r, 401, "unknown API key (x-data-api-key)");
			return false;
		}
		snprintf(bucket, sizeof bucket, "key:%s", k->name);
		rate = k->rate > 0 ? k->rate : a->cfg.key_rate;
		burst = k->burst > 0 ? k->burst : a->cfg.key_burst;
		*who = sl_arena_strndup(r->arena, k->name, strlen(k->name));
	} else {
		const char *peer = r->http->peer ? r->http->peer : "unknown";
		snprintf(bucket, sizeof bucket, "ip:%s", peer);
		*who = "-";
	}
	int retry = 0;
	if (rate > 0 && !api_ratelimit_take(a->limits, bucket, rate, burst > 0 ? burst : rate, &retry)) {
		char *ra = sl_arena_alloc(r->arena, 16);
		if (ra) {
			snprintf(ra, 16, "%d", retry);
			sl_http_resp_header(r->resp, "Retry-After", ra);
		}
		api_fail(r, 429, "too many requests%s: at most %.0f per second; retry in %d s",
			 key ? " for this API key" : " from this address (an API key raises the limit)", rate,
			 retry);
		return false;
	}
	return true;
}

/* ---- /health and /metrics ------------------------------------------------------------ */

static const sl_sql q_cursors = { "SELECT kind, next, head, caught_up_ms FROM cursors ORDER BY kind" };
static const char *const index_names[5] = { "P/block", "C/block", "X/tx", "X/block", "X/vtx" };

/* The indexer's progress as the store records it: per index applied, head, lag. */
static sl_err read_progress(sl_conn *c, int64_t out[5][3])
{
	memset(out, 0, sizeof(int64_t) * 15);
	sl_stmt *s = sl_stmt_get(c, &q_cursors);
	sl_err e = s ? sl_stmt_query(s) : SL_ERR_STORE;
	int64_t now = (int64_t)time(NULL) * 1000;
	while (!e && sl_stmt_next(s, &e)) {
		int64_t k = sl_col_i64(s, 0);
		if (k < 0 || k > 4)
			continue;
		int64_t next = sl_col_i64(s, 1), head = sl_col_i64(s, 2), ms = sl_col_i64(s, 3);
		out[k][0] = next;
		out[k][1] = head > next ? head : next;
		out[k][2] = next >= head && ms ? (now - ms) : -1; /* ms since caught up; -1: never */
	}
	return e;
}

/* The store's generation (cache.c): every batch the indexer applies advances a cursor; genesis,
 * applied before any batch, is the one indexer write that does not; a load of prices (`snowline
 * prices`) raises max(prices.loaded), read from its index; every batch of the EVM indexer raises
 * the sum of the EVM chains' cursors (cast: PostgreSQL's sum of a bigint is a numeric, which would
 * make the union's column numeric for every row). */
static const sl_sql q_gen = { "SELECT kind, next FROM cursors UNION ALL "
			      "SELECT 5, count(*) FROM meta WHERE key = 'genesis' UNION ALL "
			      "SELECT 6, coalesce(max(loaded), 0) FROM prices UNION ALL "
			      "SELECT 7, CAST(coalesce(sum(next), 0) AS BIGINT) FROM evm_cursors" };

static sl_err read_gen(sl_conn *c, api_gen *g)
{
	memset(g, 0, sizeof *g);
	sl_stmt *s = sl_stmt_get(c, &q_gen);
	sl_err e = s ? sl_stmt_query(s) : SL_ERR_STORE;
	while (!e && sl_stmt_next(s, &e)) {
		int64_t k = sl_col_i64(s, 0);
		if (k >= 0 && k < (int64_t)SL_ARRAY_LEN(g->v))
			g->v[k] = sl_col_i64(s, 1);
	}
	return e;
}

static void health(sl_api *a, sl_http_resp *resp)
{
	char err[256];
	int64_t prog[5][3];
	sl_conn *c = sl_db_acquire(a->db, 2000, err);
	sl_err e = c ? read_progress(c, prog) : SL_ERR_UNAVAILABLE;
	sl_db_release(a->db, c);
	resp->status = e ? 503 : 200;
	resp->content_type = "application/json; charset=utf-8";
	sl_jw w;
	sl_jw_init(&w, &resp->body);
	sl_jw_obj(&w);
	sl_jw_key(&w, "healthy");
	sl_jw_bool(&w, !e);
	sl_jw_key(&w, "store");
	sl_jw_str(&w, sl_db_backend(a->db));
	sl_jw_key(&w, "network");
	sl_jw_str(&w, a->net.name);
	if (!e) {
		sl_jw_key(&w, "indexes");
		sl_jw_obj(&w);
		for (int k = 0; k < 5; k++) {
			sl_jw_key(&w, index_names[k]);
			sl_jw_obj(&w);
			sl_jw_key(&w, "applied");
			sl_jw_i64(&w, prog[k][0]);
			sl_jw_key(&w, "head");
			sl_jw_i64(&w, prog[k][1]);
			sl_jw_obj_end(&w);
		}
		sl_jw_obj_end(&w);
	} else {
		sl_jw_key(&w, "error");
		sl_jw_str(&w, c ? "the store does not answer" : err);
	}
	sl_jw_obj_end(&w);
}

static void collect(void *ctx, sl_buf *out)
{
	sl_api *a = ctx;
	if (a->cache) {
		uint64_t hits, misses;
		size_t bytes;
		api_cache_counts(a->cache, &hits, &misses, &bytes);
		sl_metrics_head(out, "snowline_api_cache_lookups_total",
				"Lookups of whole responses in the cache, by result.", "counter");
		sl_metrics_sample(out, "snowline_api_cache_lookups_total", "result", "hit", (double)hits);
		sl_metrics_sample(out, "snowline_api_cache_lookups_total", "result", "miss", (double)misses);
		sl_metrics_head(out, "snowline_api_cache_bytes", "Bytes the cached responses take.", "gauge");
		sl_metrics_sample(out, "snowline_api_cache_bytes", NULL, NULL, (double)bytes);
	}
	char err[256];
	int64_t prog[5][3];
	sl_conn *c = sl_db_acquire(a->db, 2000, err);
	sl_err e = c ? read_progress(c, prog) : SL_ERR_UNAVAILABLE;
	sl_db_release(a->db, c);
	if (e)
		return;
	sl_metrics_head(out, "snowline_store_indexed", "Containers of each index the store holds.", "gauge");
	for (int k = 0; k < 5; k++)
		sl_metrics_sample(out, "snowline_store_indexed", "index", index_names[k], (double)prog[k][0]);
	sl_metrics_head(out, "snowline_store_lag_containers",
			"Containers the node has that the store does not yet.", "gauge");
	for (int k = 0; k < 5; k++)
		sl_metrics_sample(out, "snowline_store_lag_containers", "index", index_names[k],
				  (double)(prog[k][1] - prog[k][0]));
	sl_metrics_head(
		out, "snowline_store_caught_up_age_seconds",
		"Seconds since the indexer last found the store holding everything the node had (-1: never).",
		"gauge");
	for (int k = 0; k < 5; k++)
		sl_metrics_sample(out, "snowline_store_caught_up_age_seconds", "index", index_names[k],
				  prog[k][2] < 0 ? -1 : (double)prog[k][2] / 1000);
}

/* ---- the handler ----------------------------------------------------------------------- */

static void cors(sl_api *a, const sl_http_req *req, sl_http_resp *resp)
{
	const char *origin = sl_http_req_header(req, "Origin");
	sl_http_resp_header(resp, "Vary", "Origin");
	if (origin && origin_allowed(a, origin))
		sl_http_resp_header(resp, "Access-Control-Allow-Origin", "*");
}

static const char *method_label(const char *m)
{
	static const char *const known[] = { "GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH" };
	for (size_t i = 0; i < SL_ARRAY_LEN(known); i++)
		if (!strcmp(m, known[i]))
			return known[i];
	return "other";
}

static const char *serve(sl_api *a, const sl_http_req *req, sl_http_resp *resp, const char **who)
{
	*who = "-";
	cors(a, req, resp);
	if (!strcmp(req->method, "OPTIONS")) {
		/* a preflight: what a browser page may send here */
		resp->status = 204;
		sl_http_resp_header(resp, "Access-Control-Allow-Methods", "GET, POST, OPTIONS");
		sl_http_resp_header(resp, "Access-Control-Allow-Headers",
				    "Content-Type, x-data-api-key, x-glacier-api-key");
		sl_http_resp_header(resp, "Access-Control-Max-Age", "600");
		return "preflight";
	}
	bool get = !strcmp(req->method, "GET") || !strcmp(req->method, "HEAD");
	if (!strcmp(req->path, "/health") && get) {
		health(a, resp);
		return "health";
	}
	if (!strcmp(req->path, "/metrics") && get) {
		resp->status = 200;
		resp->content_type = SL_METRICS_CONTENT_TYPE;
		sl_metrics_write(a->metrics, &resp->body);
		return "metrics";
	}
	api_req r = { .api = a, .http = req, .resp = resp, .arena = req->arena, .chain = -1, .status = 200 };
	const api_route *route = NULL;
	char allow[64] = "";
	for (size_t i = 0; i < api_nroutes; i++) {
		if (!match(api_routes[i].path, req->path, NULL))
			continue;
		if (!strcmp(api_routes[i].method, req->method) ||
		    (!strcmp(req->method, "HEAD") && !strcmp(api_routes[i].method, "GET"))) {
			route = &api_routes[i];
			break;
		}
		size_t l = strlen(allow);
		snprintf(allow + l, sizeof allow - l, "%s%s", l ? ", " : "", api_routes[i].method);
	}
	if (!route) {
		if (allow[0]) {
			char *al = sl_arena_strndup(req->arena, allow, strlen(allow));
			if (al)
				sl_http_resp_header(resp, "Allow", al);
			api_fail(&r, 405, "%s is not served on %.200s; use %s", req->method, req->path,
				 allow);
			return "method";
		}
		api_fail(&r, 404, "no such endpoint: %s %.200s", req->method, req->path);
		return "notfound";
	}
	r.route = route;
	match(route->path, req->path, &r);
	if (!admit(&r, who) || !check_network(&r) || !check_chain(&r) || !api_params_parse(&r))
		return route->name;
	char err[256];
	if (!(r.db = sl_db_acquire(a->db, 2000, err))) {
		SL_LOG(a->log, SL_WARN, "no store connection: %s", err);
		api_fail(&r, 503, "the store is busy; try again");
		return route->name;
	}
	/* a GET of a cacheable route is answered by its target and the store's generation */
	api_gen gen;
	const char *key = NULL;
	size_t klen = 0;
	bool owner = false;
	int64_t now = 0;
	if (a->cache && route->cache && !read_gen(r.db, &gen)) {
		now = mono_ns() / 1000000000;
		size_t pl = strlen(req->path), ql = req->query ? strlen(req->query) : 0;
		char *k = sl_arena_alloc(req->arena, pl + 1 + ql);
		if (k) {
			memcpy(k, req->path, pl);
			k[pl] = '?';
			if (ql)
				memcpy(k + pl + 1, req->query, ql);
			key = k;
			klen = pl + 1 + ql;
		}
		if (key && api_cache_get(a->cache, key, klen, &gen, now, resp, &owner)) {
			sl_db_release(a->db, r.db);
			return route->name;
		}
	}
	/* A read (every GET, and the POST UTXO list: a GET with its addresses in a body) is made
	 * from one snapshot of the store: a page, the UTXOs of its txs and the generation it is
	 * cached under agree however the indexer moves on meanwhile (and SQLite takes its read lock
	 * once, not once a statement). The lookup above reads the generation outside it, so a hit
	 * costs no transaction (on PostgreSQL two round trips); a miss reads it again inside, and if
	 * the store moved on in between, the body is not cached: it is of a later generation than
	 * the one its waiters read. */
	bool snapshot = get || route->body_addresses, same = true;
	if (snapshot) {
		api_gen now_gen;
		sl_err e = sl_conn_begin_read(r.db);
		if (!e && key && !(e = read_gen(r.db, &now_gen)))
			same = !memcmp(&now_gen, &gen, sizeof gen);
		if (e) {
			api_fail_store(&r, e);
			sl_db_release(a->db, r.db);
			if (key)
				api_cache_put(a->cache, key, klen, &gen, now, NULL, owner);
			return route->name;
		}
	}
	resp->status = route->upstream_201 && a->cfg.compat == SL_COMPAT_UPSTREAM ? 201 : 200;
	resp->content_type = "application/json; charset=utf-8";
	sl_jw_init(&r.w, &resp->body);
	if (route->fn(&r) == 0 && resp->body.err)
		api_fail(&r, 500, "the response is larger than this server sends");
	if (snapshot)
		sl_conn_rollback(r.db);
	sl_db_release(a->db, r.db);
	if (key)
		api_cache_put(a->cache, key, klen, &gen, now,
			      same && !r.failed && resp->status == 200 ? resp : NULL, owner);
	return route->name;
}

static void handle(void *ctx, const sl_http_req *req, sl_http_resp *resp)
{
	sl_api *a = ctx;
	int64_t t0 = mono_ns();
	const char *who = "-";
	const char *name = serve(a, req, resp, &who);
	int64_t ns = mono_ns() - t0;
	char code[8];
	snprintf(code, sizeof code, "%d", resp->status);
	const char *m = method_label(req->method);
	const char *v[SL_METRIC_MAX_LABELS] = { name, m, code };
	sl_series_add(sl_metric_series(a->m_requests, v), 1);
	sl_series_observe_ns(sl_metric_series2(a->m_latency, name, m), ns);
	SL_LOG(a->log_access, SL_INFO, "%s %s %s%s%s %d %zu %lld us key=%s", req->peer ? req->peer : "-",
	       req->method, req->path, req->query && *req->query ? "?" : "", req->query ? req->query : "",
	       resp->status, resp->body.len, (long long)(ns / 1000), who);
}

/* ---- lifecycle -------------------------------------------------------------------------- */

static const sl_sql q_meta = { "SELECT key, value FROM meta WHERE key IN ('network', 'token_secret')" };
static const sl_sql q_evm_any = { "SELECT evm FROM evm_chains LIMIT 1" };

/* The store's network and page-token secret. */
static sl_err load_meta(sl_api *a, char err[512])
{
	char e256[256];
	sl_conn *c = sl_db_acquire(a->db, 10000, e256);
	if (!c) {
		snprintf(err, 512, "%s", e256);
		return SL_ERR_UNAVAILABLE;
	}
	sl_stmt *s = sl_stmt_get(c, &q_meta);
	sl_err e = s ? sl_stmt_query(s) : SL_ERR_STORE;
	bool have_net = false, have_secret = false;
	while (!e && sl_stmt_next(s, &e)) {
		size_t kn, vn;
		const char *k = sl_col_text(s, 0, &kn);
		const uint8_t *v = sl_col_blob(s, 1, &vn);
		if (kn == 12 && !memcmp(k, "token_secret", 12) && vn == 32) {
			memcpy(a->secret, v, 32);
			have_secret = true;
			continue;
		}
		/* {"name","id","hrp","P","X","C","avax"} as the indexer wrote it */
		size_t start, end;
		char msg[128];
		if (sl_json_scan((const char *)v, vn, &start, &end, msg))
			continue;
		sl_span root = { v + start, end - start }, key, val;
		sl_jiter it;
		sl_json_iter_init(&it, root);
		int got = 0;
		while (sl_json_obj_next(&it, &key, &val)) {
			char text[128] = "";
			if (sl_json_type(val) == SL_JT_STRING && val.len - 2 < sizeof text)
				memcpy(text, val.p + 1, val.len - 2);
			const char *m;
			char mb[96];
			if (sl_span_eq(key, "\"name\"") && text[0])
				snprintf(a->net.name, sizeof a->net.name, "%s", text), got++;
			else if (sl_span_eq(key, "\"hrp\"") && text[0])
				snprintf(a->net.hrp, sizeof a->net.hrp, "%s", text), got++;
			else if (sl_span_eq(key, "\"id\""))
				a->net.id = (uint32_t)strtoul((const char *)val.p, NULL, 10), got++;
			else if (sl_span_eq(key, "\"avax\"") &&
				 !sl_cb58_decode_id(text, strlen(text), a->net.avax, &m, mb))
				got++;
			else
				for (int ch = 0; ch < 3; ch++) {
					char kk[8];
					snprintf(kk, sizeof kk, "\"%c\"", "PXC"[ch]);
					if (sl_span_eq(key, kk) &&
					    !sl_cb58_decode_id(text, strlen(text), a->net.chain[ch], &m,
							       mb)) {
						sl_cb58_id(a->net.chain_str[ch], a->net.chain[ch]);
						got++;
					}
				}
		}
		have_net = got == 7;
	}
	/* no primary network yet, but EVM chains: their routes are served, the network's are 404s */
	if (!e && !have_net && have_secret) {
		s = sl_stmt_get(c, &q_evm_any);
		e = s ? sl_stmt_query(s) : SL_ERR_STORE;
		if (!e && sl_stmt_next(s, &e))
			have_net = true, a->net.name[0] = 0;
	}
	sl_db_release(a->db, c);
	if (e) {
		snprintf(err, 512, "cannot read the store: %s", sl_err_name(e));
		return e;
	}
	if (!have_net || !have_secret) {
		snprintf(err, 512, "the store holds no network yet: start `snowline index` on it first");
		return SL_ERR_NOT_FOUND;
	}
	return SL_OK;
}

/* The server's own errors (413, 431, …) in the Data API's ErrorBody shape. */
static void server_error(void *ctx, int status, const char *message, sl_http_resp *resp)
{
	(void)ctx;
	api_error_body(resp, status, message);
}

sl_api *sl_api_new(const sl_api_config *cfg, char err[512])
{
	sl_api *a = calloc(1, sizeof *a);
	if (!a) {
		snprintf(err, 512, "out of memory");
		return NULL;
	}
	a->cfg = *cfg;
	a->log = sl_log_get("api");
	a->log_access = sl_log_get("access");
	unsigned threads = cfg->threads;
	if (!threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		threads = n > 0 ? (unsigned)n : 2;
	}
	char e256[256];
	sl_db_config dc = { .url = cfg->store_url, .mode = SL_DB_READ, .pool_size = threads + 2 };
	if (!(a->db = sl_db_open(&dc, e256))) {
		snprintf(err, 512, "store %s: %s", cfg->store_url, e256);
		goto fail;
	}
	if (load_meta(a, err))
		goto fail;
	if (cfg->keys_file && !(a->keys = api_keys_load(cfg->keys_file, err)))
		goto fail;
	if (!(a->limits = api_ratelimit_new()) || !(a->assets = api_assets_new()) ||
	    !(a->pubkeys = api_pubkeys_new()) || !(a->genesis_stakers = api_genesis_stakers_new()) ||
	    (cfg->cache_bytes && !(a->cache = api_cache_new(cfg->cache_bytes)))) {
		snprintf(err, 512, "out of memory");
		goto fail;
	}
	a->metrics = cfg->metrics;
	if (!a->metrics) {
		a->metrics = sl_metrics_new();
		a->own_metrics = true;
		if (a->metrics)
			sl_metrics_collector(a->metrics, sl_metrics_process, NULL);
	}
	if (!a->metrics) {
		snprintf(err, 512, "out of memory");
		goto fail;
	}
	a->m_requests = sl_metric_family_add(a->metrics, "snowline_api_requests_total",
					     "Data API requests, by route, method and status.",
					     SL_METRIC_COUNTER, "route,method,code");
	a->m_latency = sl_metric_family_add(a->metrics, "snowline_api_request_duration_seconds",
					    "Time to answer a Data API request, by route and method.",
					    SL_METRIC_HISTOGRAM, "route,method");
	sl_metrics_collector(a->metrics, collect, a);
	sl_metrics_collector(a->metrics, sl_http_metrics, &a->http);
	sl_http_config hc = { .host = cfg->host,
			      .port = cfg->port,
			      .threads = threads,
			      .max_body = cfg->max_body ? cfg->max_body : SL_HTTP_MAX_BODY_DEFAULT,
			      .handler = handle,
			      .ctx = a,
			      .error = server_error };
	if (!(a->http = sl_http_server_new(&hc, e256))) {
		snprintf(err, 512, "%s", e256);
		goto fail;
	}
	/* export operations (exports.c) write their table: a writer beside the indexer (as `snowline
	 * prices`); a store this server cannot write serves everything else, and exports answer 503 */
	sl_db_config wc = { .url = cfg->store_url, .mode = SL_DB_LOAD };
	if (!(a->wdb = sl_db_open(&wc, e256)))
		SL_LOG(a->log, SL_WARN, "export operations are off: the store is not writable here: %s",
		       e256);
	else if (!(a->exports = api_exports_start(a, err)))
		goto fail;
	return a;
fail:
	sl_api_free(a);
	return NULL;
}

uint32_t sl_api_network_id(const sl_api *a) { return a->net.id; }

void sl_api_set_sigagg(sl_api *a, const struct sl_sigagg_source *src) { a->cfg.sigagg = src; }

uint16_t sl_api_port(const sl_api *a) { return sl_http_server_port(a->http); }

int sl_api_run(sl_api *a, volatile sig_atomic_t *stop)
{
	while (!*stop) {
		struct timespec ts = { 0, 50 * 1000000L };
		nanosleep(&ts, NULL);
	}
	return 0;
}

void sl_api_free(sl_api *a)
{
	if (!a)
		return;
	sl_http_server_free(a->http); /* requests in flight finish first */
	api_exports_stop(a->exports); /* then the runner: a job in flight is handed back (exports.c) */
	api_keys_free(a->keys);
	api_ratelimit_free(a->limits);
	api_assets_free(a->assets);
	api_pubkeys_free(a->pubkeys);
	api_genesis_stakers_free(a->genesis_stakers);
	api_cache_free(a->cache);
	sl_db_close(a->wdb);
	sl_db_close(a->db);
	if (a->own_metrics)
		sl_metrics_free(a->metrics);
	free(a);
}
