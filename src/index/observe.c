/*
 * observe.c — sampling the node's view of its validators (observe.h).
 *
 * Each sample asks platform.getCurrentValidators (at /ext/bc/P) and then
 * info.peers (at /ext/info), and writes one node_obs row per validator the
 * first lists: its uptime and connectivity, and from the second, when it
 * lists the node, its version and the chains on which it is benched. A
 * node is never its own peer, so against avalanchego the node followed is
 * not counted benched.
 */
#include "index/observe.h"

#include <stdlib.h>

#include "crypto/addr.h"
#include "util/jsonv.h"

#define OBSERVE_TIMEOUT_MS 10000
#define OBSERVE_MAX_BODY (64u << 20) /* 10,000 validators are about 4 MB */
#define OBSERVE_MAX_PEERS 200000u    /* peers kept from one answer */

static const sl_sql q_obs = {
	"INSERT INTO node_obs (node, ts, uptime, connected, samples, reachable, version, benched_p, "
	"benched_x, benched_c) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?) "
	"ON CONFLICT (node) DO UPDATE SET ts = excluded.ts, uptime = excluded.uptime, "
	"connected = excluded.connected, samples = node_obs.samples + 1, "
	"reachable = node_obs.reachable + excluded.reachable, "
	"version = COALESCE(excluded.version, node_obs.version), "
	"benched_p = node_obs.benched_p + excluded.benched_p, "
	"benched_x = node_obs.benched_x + excluded.benched_x, "
	"benched_c = node_obs.benched_c + excluded.benched_c"
};

bool ix_percent_parse(const char *s, size_t n, int64_t *millionths)
{
	int64_t whole = 0, frac = 0;
	size_t i = 0, digits = 0, decimals = 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9' && digits < 4; i++, digits++)
		whole = whole * 10 + (s[i] - '0');
	if (!digits)
		return false;
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9' && decimals < 4; i++, decimals++)
			frac = frac * 10 + (s[i] - '0');
	if (i != n || whole > 100)
		return false;
	for (; decimals < 4; decimals++)
		frac *= 10;
	*millionths = whole * 10000 + frac;
	return *millionths <= 1000000;
}

/* The member of an object, or an empty span. */
static sl_span member(sl_span obj, const char *name)
{
	sl_jiter it;
	sl_span k, v;
	sl_json_iter_init(&it, obj);
	while (sl_json_type(obj) == SL_JT_OBJECT && sl_json_obj_next(&it, &k, &v))
		if (k.len == strlen(name) + 2 && !memcmp(k.p + 1, name, k.len - 2))
			return v;
	return (sl_span){ 0 };
}

/* One validator of the list: its node, uptime and whether it is connected. */
static bool read_one(sl_span v, ix_observation *o)
{
	sl_span id = member(v, "nodeID"), up = member(v, "uptime"), conn = member(v, "connected");
	if (sl_json_type(id) != SL_JT_STRING ||
	    sl_nodeid_parse((const char *)id.p + 1, id.len - 2, o->node) ||
	    sl_json_type(up) != SL_JT_STRING ||
	    !ix_percent_parse((const char *)up.p + 1, up.len - 2, &o->uptime))
		return false;
	/* avalanchego leaves connected out for a validator it does not track: not seen connected */
	o->connected = sl_json_type(conn) == SL_JT_BOOL && conn.p[0] == 't';
	return true;
}

/* The array result.<key> of a JSON-RPC answer; err says what is wrong with one that has none. */
static sl_err result_list(const uint8_t *body, size_t len, const char *key, sl_span *list, char err[256])
{
	size_t a, z;
	char msg[128];
	if (sl_json_scan((const char *)body, len, &a, &z, msg)) {
		snprintf(err, 256, "not JSON: %s", msg);
		return SL_ERR_INVALID;
	}
	sl_span root = { body + a, z - a };
	*list = member(member(root, "result"), key);
	if (sl_json_type(*list) != SL_JT_ARRAY) {
		if (member(root, "error").len)
			snprintf(err, 256, "the node answered an error");
		else
			snprintf(err, 256, "no %s", key);
		return SL_ERR_UNSUPPORTED;
	}
	return SL_OK;
}

sl_err ix_observe_parse(const uint8_t *body, size_t len, ix_observe_fn fn, void *ctx, char err[256])
{
	sl_span list;
	sl_err e = result_list(body, len, "validators", &list, err);
	if (e)
		return e;
	sl_jiter it;
	sl_span v;
	sl_json_iter_init(&it, list);
	while (!e && sl_json_arr_next(&it, &v)) {
		ix_observation o;
		if (!read_one(v, &o)) {
			snprintf(err, 256, "a validator without a nodeID and an uptime percentage");
			return SL_ERR_INVALID;
		}
		e = fn(ctx, &o);
	}
	return e;
}

/* A string member's raw bytes between the quotes, if it has no escape and is printable ASCII. */
static bool plain_string(sl_span v, size_t max, const uint8_t **p, size_t *n)
{
	if (sl_json_type(v) != SL_JT_STRING || v.len - 2 > max)
		return false;
	for (size_t i = 1; i + 1 < v.len; i++)
		if (v.p[i] < 0x20 || v.p[i] > 0x7e || v.p[i] == '\\')
			return false;
	*p = v.p + 1;
	*n = v.len - 2;
	return true;
}

/* One peer: its nodeID (required), version and benched aliases (an array of strings or null). */
static bool read_peer(sl_span v, ix_peer *o)
{
	memset(o, 0, sizeof *o);
	sl_span id = member(v, "nodeID"), ver = member(v, "version"), bench = member(v, "benched");
	if (sl_json_type(id) != SL_JT_STRING || sl_nodeid_parse((const char *)id.p + 1, id.len - 2, o->node))
		return false;
	const uint8_t *p;
	size_t n;
	if (plain_string(ver, IX_PEER_VERSION_MAX, &p, &n))
		memcpy(o->version, p, n);
	if (!bench.len || sl_json_type(bench) == SL_JT_NULL)
		return true;
	if (sl_json_type(bench) != SL_JT_ARRAY)
		return false;
	sl_jiter it;
	sl_span e;
	sl_json_iter_init(&it, bench);
	while (sl_json_arr_next(&it, &e)) {
		if (sl_json_type(e) != SL_JT_STRING)
			return false;
		static const char alias[IX_BENCH_N] = { 'P', 'X', 'C' };
		for (int c = 0; c < IX_BENCH_N; c++)
			if (e.len == 3 && e.p[1] == alias[c])
				o->benched[c] = true;
	}
	return true;
}

sl_err ix_peers_parse(const uint8_t *body, size_t len, ix_peer_fn fn, void *ctx, char err[256])
{
	sl_span list;
	sl_err e = result_list(body, len, "peers", &list, err);
	if (e)
		return e;
	sl_jiter it;
	sl_span v;
	sl_json_iter_init(&it, list);
	while (!e && sl_json_arr_next(&it, &v)) {
		ix_peer o;
		if (!read_peer(v, &o)) {
			snprintf(err, 256,
				 "a peer without a nodeID, or with benched not a list of chain aliases");
			return SL_ERR_INVALID;
		}
		e = fn(ctx, &o);
	}
	return e;
}

/* The peers of one answer, sorted by node for the validators to find theirs. */
typedef struct peer_set {
	ix_peer *v;
	size_t n, cap;
} peer_set;

static sl_err keep_peer(void *ctx, const ix_peer *p)
{
	peer_set *ps = ctx;
	if (ps->n == ps->cap) {
		if (ps->cap >= OBSERVE_MAX_PEERS)
			return SL_ERR_TOO_LARGE;
		size_t ncap = ps->cap ? 2 * ps->cap : 64;
		ix_peer *nv = realloc(ps->v, ncap * sizeof *nv);
		if (!nv)
			return SL_ERR_NOMEM;
		ps->v = nv;
		ps->cap = ncap;
	}
	ps->v[ps->n++] = *p;
	return SL_OK;
}

static int cmp_peer(const void *a, const void *b)
{
	return memcmp(((const ix_peer *)a)->node, ((const ix_peer *)b)->node, 20);
}

typedef struct put_ctx {
	sl_conn *c;
	int64_t now;
	const peer_set *peers;
} put_ctx;

static sl_err put(void *ctx, const ix_observation *o)
{
	put_ctx *p = ctx;
	sl_stmt *s = sl_stmt_get(p->c, &q_obs);
	if (!s)
		return SL_ERR_STORE;
	ix_peer key;
	memcpy(key.node, o->node, 20);
	const ix_peer *peer = p->peers->n ? bsearch(&key, p->peers->v, p->peers->n, sizeof key, cmp_peer)
					  : NULL;
	sl_bind_blob(s, 0, o->node, 20);
	sl_bind_i64(s, 1, p->now);
	sl_bind_i64(s, 2, o->uptime);
	sl_bind_i64(s, 3, o->connected);
	sl_bind_i64(s, 4, o->connected);
	if (peer && peer->version[0])
		sl_bind_text(s, 5, peer->version, strlen(peer->version));
	else
		sl_bind_null(s, 5);
	for (int c = 0; c < IX_BENCH_N; c++)
		sl_bind_i64(s, 6 + c, peer && peer->benched[c]);
	return sl_stmt_exec(s);
}

/* info.peers into ps (sorted); on failure ps is empty and err says why. */
static void ask_peers(sl_http_client *hc, const char *node_url, peer_set *ps, char err[256])
{
	static const char body[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"info.peers\",\"params\":{}}";
	char url[1100], why[256] = "";
	snprintf(url, sizeof url, "%s/ext/info", node_url);
	sl_buf resp;
	sl_buf_init(&resp, OBSERVE_MAX_BODY);
	long status = 0;
	sl_err e = sl_http_post_json(hc, url, body, sizeof body - 1, OBSERVE_TIMEOUT_MS, &resp, &status, why);
	if (!e && status != 200) {
		snprintf(why, sizeof why, "HTTP %ld", status);
		e = SL_ERR_UNAVAILABLE;
	}
	if (!e)
		e = ix_peers_parse(resp.p, resp.len, keep_peer, ps, why);
	sl_buf_release(&resp);
	if (e) {
		snprintf(err, 256, "info.peers: %s", why[0] ? why : sl_err_name(e));
		ps->n = 0;
		return;
	}
	if (ps->n)
		qsort(ps->v, ps->n, sizeof *ps->v, cmp_peer);
}

sl_err ix_observe(sl_conn *c, sl_http_client *hc, const char *node_url, int64_t now, char err[256])
{
	static const char body[] =
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"platform.getCurrentValidators\",\"params\":{}}";
	char url[1100];
	err[0] = 0;
	snprintf(url, sizeof url, "%s/ext/bc/P", node_url);
	sl_buf resp;
	sl_buf_init(&resp, OBSERVE_MAX_BODY);
	long status = 0;
	sl_err e = sl_http_post_json(hc, url, body, sizeof body - 1, OBSERVE_TIMEOUT_MS, &resp, &status, err);
	if (!e && status != 200) {
		snprintf(err, 256, "HTTP %ld", status);
		e = SL_ERR_UNAVAILABLE;
	}
	peer_set peers = { 0 };
	char peers_err[256] = "";
	if (!e)
		ask_peers(hc, node_url, &peers, peers_err);
	if (!e)
		e = sl_conn_begin(c);
	if (!e) {
		put_ctx p = { c, now, &peers };
		e = ix_observe_parse(resp.p, resp.len, put, &p, err);
		if (!e)
			e = sl_conn_commit(c);
		else
			sl_conn_rollback(c);
		if (e == SL_ERR_STORE || (e && !err[0]))
			snprintf(err, 256, "%s", sl_conn_error(c));
	}
	if (!e && peers_err[0])
		snprintf(err, 256, "%s", peers_err);
	free(peers.v);
	sl_buf_release(&resp);
	return e;
}
