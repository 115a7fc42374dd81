/*
 * server.h — the one HTTP layer every snowline service is served through.
 *
 * The server reads a whole request (headers bounded by SL_HTTP_MAX_HEADER_BYTES,
 * body by `max_body`), calls the handler once on a pool thread, and sends
 * the response the handler filled in. Connections are kept alive; idle and
 * slow connections time out. Only src/http/server_mhd.c sees the HTTP
 * library (libmicrohttpd, chosen by measurement: docs/http.md).
 *
 * Handlers run concurrently on `threads` threads: whatever they share must
 * be locked by its owner. A handler must not block for long.
 *
 * Lifecycle: sl_http_server_new() binds and starts serving;
 * sl_http_server_free() stops accepting, lets requests in flight finish,
 * closes every connection and frees the server.
 */
#ifndef SL_HTTP_SERVER_H
#define SL_HTTP_SERVER_H

#include "util/arena.h"
#include "util/buf.h"

#define SL_HTTP_MAX_RESP_HEADERS 12

typedef struct sl_http_req {
	const char *method;  /* "GET", "POST", ... exactly as sent */
	const char *path;    /* percent-decoded path, without the query string */
	const char *query;   /* raw query string after '?', "" when none */
	const uint8_t *body; /* NUL-terminated; body_len excludes the NUL */
	size_t body_len;
	sl_arena *arena; /* freed when the response has been queued */
	void *impl;	 /* the server's own; for the accessors below */
} sl_http_req;

typedef struct sl_http_header {
	const char *name, *value; /* static or arena memory */
} sl_http_header;

typedef struct sl_http_resp {
	int status;
	const char *content_type; /* NULL: no Content-Type header */
	sl_http_header headers[SL_HTTP_MAX_RESP_HEADERS];
	size_t nheaders;
	sl_buf body; /* max SL_HTTP_MAX_RESPONSE; a body past it becomes a 500 */
} sl_http_resp;

typedef void (*sl_http_handler)(void *ctx, const sl_http_req *req, sl_http_resp *resp);

typedef struct sl_http_config {
	const char *host;   /* address to bind, e.g. "127.0.0.1" or "0.0.0.0" */
	uint16_t port;	    /* 0: pick a free port (see sl_http_server_port) */
	unsigned threads;   /* pool size; 0 = number of CPUs */
	size_t max_body;    /* request bodies larger than this get 413 */
	unsigned timeout_s; /* idle / slow-request timeout */
	sl_http_handler handler;
	void *ctx;
} sl_http_config;

typedef struct sl_http_server sl_http_server;

/* On failure returns NULL and writes the reason into err[256]. */
sl_http_server *sl_http_server_new(const sl_http_config *cfg, char err[256]);
uint16_t sl_http_server_port(const sl_http_server *s);
void sl_http_server_free(sl_http_server *s);

/* Request header by case-insensitive name; NULL when absent. */
const char *sl_http_req_header(const sl_http_req *req, const char *name);
/* Number of times a header appears (for "present but empty" checks). */
bool sl_http_req_has_header(const sl_http_req *req, const char *name);
/* Query parameter by name (first occurrence), percent-decoded; NULL when absent. */
const char *sl_http_req_query(const sl_http_req *req, const char *name);

/* Add a response header (copied into nothing: pass static or arena strings). */
void sl_http_resp_header(sl_http_resp *resp, const char *name, const char *value);
/* A plain-text response: status, text/plain; charset=utf-8, body text. */
void sl_http_resp_text(sl_http_resp *resp, int status, const char *text);

#endif
