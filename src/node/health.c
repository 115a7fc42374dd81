/*
 * health.c — /ext/health: GET (and any method on /health, /readiness,
 * /liveness under it) returns the report; POST is JSON-RPC `health.*`.
 * Status 200 when healthy, 503 when not (node-rpc.md §7.2).
 *
 * Checks, run on demand:
 *   database      the container store answers a read
 *   bootstrapped  the source (import, follow) has caught up; the readiness check
 *   index         every enabled index is complete (message lists incomplete ones)
 *   source        the source works: an --import read its whole file, a --follow
 *                 upstream answers, a producer (the devnet) runs; absent without one
 */
#include "node/internal.h"

#include <time.h>

typedef enum { CHECK_ALL, CHECK_READINESS, CHECK_LIVENESS } check_set;

static void write_result(sl_jw *w, const char *error, void (*msg)(sl_jw *, sl_node *), sl_node *n, int64_t t0)
{
	char ts[64];
	sl_jw_obj(w);
	if (msg) {
		sl_jw_key(w, "message");
		msg(w, n);
	}
	if (error) {
		sl_jw_key(w, "error");
		sl_jw_str(w, error);
	}
	sl_jw_key(w, "timestamp");
	sl_format_time(ts, sl_now_ns());
	sl_jw_str(w, ts);
	sl_jw_key(w, "duration");
	sl_jw_i64(w, sl_now_ns() - t0);
	if (error) {
		sl_jw_key(w, "contiguousFailures");
		sl_jw_u64(w, 1);
	}
	sl_jw_obj_end(w);
}

static void msg_bootstrapped(sl_jw *w, sl_node *n)
{
	sl_jw_arr(w);
	if (!atomic_load(&n->source_caught_up))
		for (int c = 0; c < SL_CHAIN__COUNT; c++)
			sl_jw_str(w, n->chains[c].id_str);
	sl_jw_arr_end(w);
}

static void msg_index(sl_jw *w, sl_node *n)
{
	/* Map keys in byte order, as Go writes them. */
	static const sl_ikind sorted[] = { SL_IDX_C_BLOCK, SL_IDX_P_BLOCK, SL_IDX_X_BLOCK, SL_IDX_X_TX,
					   SL_IDX_X_VTX };
	sl_jw_obj(w);
	for (size_t i = 0; i < SL_ARRAY_LEN(sorted); i++) {
		sl_ikind k = sorted[i];
		sl_jw_key(w, sl_ikind_name(k));
		sl_jw_str(w, n->index_state[k] == SL_INDEX_ON		? "complete"
			     : n->index_state[k] == SL_INDEX_INCOMPLETE ? "incomplete"
									: "disabled");
	}
	sl_jw_obj_end(w);
}

static void msg_source(sl_jw *w, sl_node *n)
{
	sl_jw_obj(w);
	sl_jw_key(w, "source");
	sl_jw_str(w, sl_node_source_name(n));
	sl_jw_key(w, "errors");
	sl_jw_u64(w, atomic_load(&n->source_errors));
	sl_jw_obj_end(w);
}

/* Writes {"checks":{...},"healthy":b} and returns healthy. Keys sorted. */
static bool report(sl_node *n, sl_jw *w, check_set set)
{
	bool healthy = true;
	sl_jw_obj(w);
	sl_jw_key(w, "checks");
	sl_jw_obj(w);
	if (set != CHECK_LIVENESS) {
		int64_t t0 = sl_now_ns();
		bool ok = atomic_load(&n->source_caught_up);
		sl_jw_key(w, "bootstrapped");
		write_result(w, ok ? NULL : "not yet bootstrapped", msg_bootstrapped, n, t0);
		healthy &= ok;
	}
	if (set != CHECK_READINESS) {
		int64_t t0 = sl_now_ns();
		sl_cstore_rd *rd = NULL;
		bool ok = sl_cstore_rd_begin(n->store, &rd) == SL_OK;
		uint64_t cnt;
		ok = ok && sl_cstore_count(rd, SL_IDX_P_BLOCK, &cnt) == SL_OK;
		sl_cstore_rd_end(rd);
		sl_jw_key(w, "database");
		write_result(w, ok ? NULL : "container store unreadable", NULL, n, t0);
		healthy &= ok;
	}
	if (set == CHECK_ALL) {
		int64_t t0 = sl_now_ns();
		sl_jw_key(w, "index");
		write_result(w, NULL, msg_index, n, t0);
		if (sl_node_source_name(n)) {
			t0 = sl_now_ns();
			char err[256];
			bool ok = !sl_node_source_error(n, err);
			sl_jw_key(w, "source");
			write_result(w, ok ? NULL : err, msg_source, n, t0);
			healthy &= ok;
		}
	}
	sl_jw_obj_end(w);
	sl_jw_key(w, "healthy");
	sl_jw_bool(w, healthy);
	sl_jw_obj_end(w);
	return healthy;
}

static check_set set_of_path(const char *path)
{
	if (!strcmp(path, "/ext/health/readiness"))
		return CHECK_READINESS;
	if (!strcmp(path, "/ext/health/liveness"))
		return CHECK_LIVENESS;
	return CHECK_ALL;
}

void sl_route_health_get(sl_node *n, const route *r, const sl_http_req *req, sl_http_resp *resp)
{
	sl_jw w;
	sl_jw_init(&w, &resp->body);
	bool ok = report(n, &w, set_of_path(req->path));
	sl_buf_addc(&resp->body, '\n');
	resp->status = ok ? 200 : 503;
	resp->content_type = "application/json";
}

void sl_route_health(sl_node *n, const route *r, const sl_http_req *req, sl_http_resp *resp)
{
	if (!strcmp(req->method, "GET"))
		sl_route_health_get(n, r, req, resp);
	else
		sl_route_rpc(n, r, req, resp);
}

static int health_all(sl_rpc_call *c)
{
	report(c->ctx, c->w, CHECK_ALL);
	return 0;
}
static int health_ready(sl_rpc_call *c)
{
	report(c->ctx, c->w, CHECK_READINESS);
	return 0;
}
static int health_live(sl_rpc_call *c)
{
	report(c->ctx, c->w, CHECK_LIVENESS);
	return 0;
}

const sl_rpc_method sl_health_methods[] = {
	{ "Health", health_all, { { "tags", SL_RPC_STRINGS } }, 1 },
	{ "Readiness", health_ready, { { "tags", SL_RPC_STRINGS } }, 1 },
	{ "Liveness", health_live, { { "tags", SL_RPC_STRINGS } }, 1 },
};
const size_t sl_health_nmethods = SL_ARRAY_LEN(sl_health_methods);
