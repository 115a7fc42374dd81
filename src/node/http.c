/*
 * http.c — the node's front door: the middleware avalanchego wraps around
 * every route (api/server/server.go), then the route table.
 *
 *   Node-Id header → CORS → host filter → path cleaning (301) → route or 404
 */
#include "node/internal.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <strings.h>

#include "util/limits.h"

static bool list_has(const char *list, const char *s, size_t n)
{
	while (list && *list) {
		const char *end = strchr(list, ',');
		size_t len = end ? (size_t)(end - list) : strlen(list);
		while (len && isspace((unsigned char)*list)) {
			list++;
			len--;
		}
		while (len && isspace((unsigned char)list[len - 1]))
			len--;
		if ((len == 1 && *list == '*') || (len == n && !strncasecmp(list, s, n)))
			return true;
		list = end ? end + 1 : NULL;
	}
	return false;
}

static bool host_allowed(const sl_node *nd, const char *host)
{
	if (!host || !*host)
		return true;
	char h[256];
	size_t n = strlen(host);
	if (n >= sizeof h)
		return false;
	memcpy(h, host, n + 1);
	/* Strip the port: "[v6]:port", "v4:port", "name:port". */
	if (h[0] == '[') {
		char *rb = strchr(h, ']');
		if (!rb)
			return false;
		*rb = 0;
		memmove(h, h + 1, strlen(h + 1) + 1);
	} else {
		char *colon = strrchr(h, ':');
		if (colon && strchr(h, ':') == colon)
			*colon = 0;
	}
	unsigned char tmp[16];
	if (inet_pton(AF_INET, h, tmp) == 1 || inet_pton(AF_INET6, h, tmp) == 1)
		return true;
	return list_has(nd->cfg.allowed_hosts, h, strlen(h));
}

/* Serve one request; returns the metrics label of what served it. */
static const char *handle(sl_node *n, const sl_http_req *req, sl_http_resp *resp)
{
	sl_http_resp_header(resp, "Node-Id", n->node_id_str);
	sl_http_resp_header(resp, "Vary", "Origin");
	const char *origin = sl_http_req_header(req, "Origin");
	bool allowed = origin && list_has(n->cfg.allowed_origins, origin, strlen(origin));
	/* A preflight never reaches the routes, with or without an Origin (rs/cors). */
	const char *acrm = sl_http_req_header(req, "Access-Control-Request-Method");
	if (!strcmp(req->method, "OPTIONS") && acrm) {
		if (allowed && (!strcmp(acrm, "GET") || !strcmp(acrm, "POST") || !strcmp(acrm, "HEAD"))) {
			sl_http_resp_header(resp, "Access-Control-Allow-Origin", "*");
			sl_http_resp_header(resp, "Access-Control-Allow-Methods", acrm);
			sl_http_resp_header(resp, "Access-Control-Allow-Credentials", "true");
		}
		resp->status = 200;
		return "preflight";
	}
	if (allowed &&
	    (!strcmp(req->method, "GET") || !strcmp(req->method, "POST") || !strcmp(req->method, "HEAD"))) {
		sl_http_resp_header(resp, "Access-Control-Allow-Origin", "*");
		sl_http_resp_header(resp, "Access-Control-Allow-Credentials", "true");
	}
	if (!host_allowed(n, sl_http_req_header(req, "Host"))) {
		sl_http_resp_text(resp, 403, "invalid host specified\n");
		return "forbidden";
	}
	char clean[SL_HTTP_MAX_PATH + 2];
	if (!sl_path_clean(req->path, clean, sizeof clean)) {
		sl_http_resp_text(resp, 414, "URI too long\n");
		return "notfound";
	}
	if (strcmp(clean, req->path) && strcmp(req->method, "CONNECT")) {
		/* The query string goes along, as gorilla/mux keeps it. */
		size_t cl = strlen(clean), ql = req->query ? strlen(req->query) : 0;
		char *loc = sl_arena_alloc(req->arena, cl + ql + 2);
		if (loc)
			snprintf(loc, cl + ql + 2, "%s%s%s", clean, ql ? "?" : "", ql ? req->query : "");
		resp->status = 301;
		if (loc)
			sl_http_resp_header(resp, "Location", loc);
		return "redirect";
	}
	sl_rwlock_rdlock(&n->routes_lock);
	const route *r = sl_routes_lookup(n->routes, req->path);
	sl_rwlock_unlock(&n->routes_lock);
	if (!r) {
		sl_http_resp_text(resp, 404, "404 page not found\n");
		return "notfound";
	}
	r->fn(n, r, req, resp);
	return r->name;
}

void sl_node_http_handle(void *ctx, const sl_http_req *req, sl_http_resp *resp)
{
	sl_node *n = ctx;
	int64_t t0 = sl_now_ns();
	const char *name = handle(n, req, resp);
	int64_t ns = sl_now_ns() - t0;
	sl_node_metrics_request(n, name, req->method, resp->status, ns);
	SL_LOG(n->log_http, SL_DEBUG, "%s %s -> %d (%s, %lld us)", req->method, req->path, resp->status, name,
	       (long long)(ns / 1000));
}

void sl_route_rpc(sl_node *n, const route *r, const sl_http_req *req, sl_http_resp *resp)
{
	sl_rpc_serve(r->services, r->nservices, n->cfg.compat, req, resp);
}
