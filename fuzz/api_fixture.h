/*
 * api_fixture.h — one Data API request without a server or a store, for the
 * fuzz targets of the API's parsers (fuzz_api_*.c) and their unit tests
 * (tests/unit/test_api_*.c): what api.c sets up before a route's parameters
 * are parsed — a fuji network, a page-token secret, the request's query and
 * body, an arena as large as the server's, a response for api_fail().
 *
 *   api_fixture f;
 *   fx_api_init(&f.api);                    once
 *   fx_begin(&f, route, "GET", query, body, n, assetId, nodeId);
 *   ... api_params_parse(&f.r), api_page_cursor(&f.r, …), api_page_next(&f.r, …)
 *   fx_end(&f);
 */
#ifndef SL_FUZZ_API_FIXTURE_H
#define SL_FUZZ_API_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "api/internal.h"
#include "crypto/cb58.h"
#include "util/limits.h"

typedef struct api_fixture {
	sl_api api;
	sl_http_req http;
	sl_http_resp resp;
	sl_arena arena;
	api_req r;
} api_fixture;

/* fuji: its hrp and chain ids, and a fixed page-token secret */
static inline void fx_api_init(sl_api *a)
{
	memset(a, 0, sizeof *a);
	snprintf(a->net.name, sizeof a->net.name, "fuji");
	snprintf(a->net.hrp, sizeof a->net.hrp, "fuji");
	a->net.id = 5;
	static const char *const ids[3] = { "11111111111111111111111111111111LpoYY",
					    "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm",
					    "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp" };
	const char *msg;
	char mb[96];
	for (int c = 0; c < 3; c++) {
		if (sl_cb58_decode_id(ids[c], strlen(ids[c]), a->net.chain[c], &msg, mb))
			abort();
		snprintf(a->net.chain_str[c], sizeof a->net.chain_str[c], "%s", ids[c]);
	}
	for (int i = 0; i < 32; i++)
		a->secret[i] = (uint8_t)(0x5a ^ (i * 7));
}

/* The route of method and name (api_route.name), or NULL. */
static inline const api_route *fx_route(const char *name)
{
	for (size_t i = 0; i < api_nroutes; i++)
		if (!strcmp(api_routes[i].name, name))
			return &api_routes[i];
	return NULL;
}

/* A request of `rt` on the X-chain of fuji (the chain the route serves first when it serves no X; none
 * for a network route). */
static inline void fx_begin(api_fixture *f, const api_route *rt, const char *query, const uint8_t *body,
			    size_t body_len, const char *asset_id, const char *node_id)
{
	sl_arena_init(&f->arena, SL_HTTP_MAX_ARENA);
	f->resp = (sl_http_resp){ .status = 200 };
	sl_buf_init(&f->resp.body, SL_HTTP_MAX_RESPONSE);
	f->http = (sl_http_req){ .method = rt->method,
				 .path = rt->path,
				 .query = query ? query : "",
				 .peer = "127.0.0.1",
				 .body = body ? body : (const uint8_t *)"",
				 .body_len = body ? body_len : 0,
				 .arena = &f->arena };
	/* a network route (chains 0, no {blockchainId}) has no chain, as api.c leaves it */
	int chain = rt->chains & API_CHAIN(API_X)   ? API_X
		    : rt->chains & API_CHAIN(API_P) ? API_P
		    : rt->chains		    ? API_C
						    : -1;
	f->r = (api_req){ .api = &f->api,
			  .http = &f->http,
			  .resp = &f->resp,
			  .arena = &f->arena,
			  .route = rt,
			  .network = "fuji",
			  .chain = chain,
			  .chain_raw = chain == API_X	? "x-chain"
				       : chain == API_P ? "p-chain"
				       : chain == API_C ? "c-chain"
							: NULL,
			  .assetId = asset_id,
			  .nodeId = node_id,
			  .status = 200 };
	sl_jw_init(&f->r.w, &f->resp.body);
}

/* The index of parameter `name` in the route's table, or -1. */
static inline int fx_param(const api_fixture *f, const char *name)
{
	for (size_t i = 0; i < f->r.route->nparams; i++)
		if (!strcmp(f->r.route->params[i].name, name))
			return (int)i;
	return -1;
}

/* A page token for this request's list and `cursor`, as a handler issues it: into out (NUL-terminated). */
static inline size_t fx_issue(api_fixture *f, const uint8_t *cursor, size_t len, char *out, size_t cap)
{
	sl_buf b;
	sl_buf_init(&b, 1u << 16);
	sl_jw saved = f->r.w;
	sl_jw_init(&f->r.w, &b);
	sl_jw_obj(&f->r.w);
	api_page_next(&f->r, cursor, len);
	sl_jw_obj_end(&f->r.w);
	f->r.w = saved;
	/* {"nextPageToken":"<token>"} */
	const char *s = sl_buf_str(&b), *q = strchr(s, ':');
	size_t n = 0;
	if (q && q[1] == '"') {
		const char *e = strchr(q + 2, '"');
		n = e ? (size_t)(e - q - 2) : 0;
		if (n >= cap)
			n = 0;
		memcpy(out, q + 2, n);
	}
	out[n] = 0;
	sl_buf_release(&b);
	return n;
}

/* Give the parsed request a pageToken (after api_params_parse): as if the query had it. */
static inline void fx_set_token(api_fixture *f, const char *s, size_t n)
{
	int i = fx_param(f, "pageToken");
	if (i < 0)
		abort();
	f->r.v[i].set = true;
	f->r.v[i].s = s;
	f->r.v[i].slen = n;
}

/* Forget a failure (api_fail) so the same request can be tried again. */
static inline void fx_clear(api_fixture *f)
{
	f->r.failed = false;
	f->r.status = 200;
	f->resp.status = 200;
	sl_buf_reset(&f->resp.body);
}

static inline void fx_end(api_fixture *f)
{
	sl_buf_release(&f->resp.body);
	sl_arena_release(&f->arena);
}

#endif
