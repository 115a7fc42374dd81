/*
 * observe.c — sampling the node's view of its validators (observe.h).
 */
#include "index/observe.h"

#include "crypto/addr.h"
#include "util/jsonv.h"

#define OBSERVE_TIMEOUT_MS 10000
#define OBSERVE_MAX_BODY (64u << 20) /* 10,000 validators are about 4 MB */

static const sl_sql q_obs = {
	"INSERT INTO node_obs (node, ts, uptime, connected, samples, reachable) VALUES (?, ?, ?, ?, 1, ?) "
	"ON CONFLICT (node) DO UPDATE SET ts = excluded.ts, uptime = excluded.uptime, "
	"connected = excluded.connected, samples = node_obs.samples + 1, "
	"reachable = node_obs.reachable + excluded.reachable"
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

sl_err ix_observe_parse(const uint8_t *body, size_t len, ix_observe_fn fn, void *ctx, char err[256])
{
	size_t a, z;
	char msg[128];
	if (sl_json_scan((const char *)body, len, &a, &z, msg)) {
		snprintf(err, 256, "not JSON: %s", msg);
		return SL_ERR_INVALID;
	}
	sl_span root = { body + a, z - a };
	sl_span list = member(member(root, "result"), "validators");
	if (sl_json_type(list) != SL_JT_ARRAY) {
		snprintf(err, 256, "%s",
			 member(root, "error").len ? "the node answered an error" : "no validators");
		return SL_ERR_UNSUPPORTED;
	}
	sl_jiter it;
	sl_span v;
	sl_json_iter_init(&it, list);
	sl_err e = SL_OK;
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

typedef struct put_ctx {
	sl_conn *c;
	int64_t now;
} put_ctx;

static sl_err put(void *ctx, const ix_observation *o)
{
	put_ctx *p = ctx;
	sl_stmt *s = sl_stmt_get(p->c, &q_obs);
	if (!s)
		return SL_ERR_STORE;
	sl_bind_blob(s, 0, o->node, 20);
	sl_bind_i64(s, 1, p->now);
	sl_bind_i64(s, 2, o->uptime);
	sl_bind_i64(s, 3, o->connected);
	sl_bind_i64(s, 4, o->connected);
	return sl_stmt_exec(s);
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
	if (!e)
		e = sl_conn_begin(c);
	if (!e) {
		put_ctx p = { c, now };
		e = ix_observe_parse(resp.p, resp.len, put, &p, err);
		if (!e)
			e = sl_conn_commit(c);
		else
			sl_conn_rollback(c);
		if (e == SL_ERR_STORE || (e && !err[0]))
			snprintf(err, 256, "%s", sl_conn_error(c));
	}
	sl_buf_release(&resp);
	return e;
}
