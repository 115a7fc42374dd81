/*
 * server.h — the one HTTP layer every snowline service is served through:
 * snowline's own HTTP/1.1 server on epoll (server.c; the request parser is
 * parse.h). Why our own and what it measures: docs/http.md.
 *
 * What a handler sees. The server reads a whole request — request line and
 * headers bounded by SL_HTTP_MAX_HEADER_BYTES, the body by `max_body`,
 * Content-Length or chunked — and calls the handler once with it. The
 * handler fills in the response; the server adds Date, Content-Length and
 * Connection and sends it. Handlers never see sockets, framing or limits.
 *
 * What the server answers itself (the error hook chooses the body): 400 bad
 * request syntax, 408 a request not received within its deadline, 413 a body
 * over `max_body` (a declared Content-Length at once, before any of the body
 * is read and without `100 Continue`; a chunked body as soon as it passes),
 * 414 a request target over SL_HTTP_MAX_PATH, 431 request line + headers
 * over SL_HTTP_MAX_HEADER_BYTES or SL_HTTP_MAX_HEADER_FIELDS lines, 501 a
 * Transfer-Encoding other than chunked, 505 an HTTP major version other than
 * 1, 503 a connection the cap leaves no room for, 500 a response body past
 * SL_HTTP_MAX_RESPONSE. After each of these, as after any response that
 * closes the connection, the close is graceful: the response is sent, the
 * sending side shut down, and what the client still sends is read and
 * dropped until it closes (for SL_HTTP_LINGER_MS at most), so the response
 * is not lost to a TCP reset.
 *
 * HTTP/1.1: keep-alive (1.1 by default, 1.0 with `Connection: keep-alive`),
 * `Connection: close`, pipelined requests answered in order, `Expect:
 * 100-continue` (100 is sent only for a body within the cap that has not
 * started to arrive), HEAD (no body, the Content-Length of the GET body),
 * absolute-form targets (the path is taken from them).
 *
 * Deadlines, per connection and absolute (bytes arriving do not extend
 * them): the request line and headers within `header_timeout_ms` of the
 * request's first byte (of accept, for a connection's first request); the
 * body within `body_timeout_ms` of the end of the headers; a kept-alive
 * connection closes after `idle_timeout_ms` without a request; a response
 * the client does not read within `write_timeout_ms` is abandoned.
 *
 * The connection cap (`max_connections`, counted across loops). When a new
 * connection would pass it, the loop that takes it closes the idlest of its
 * own connections it can to make room, in this order: one lingering after an error, then an idle kept-alive one (idle
 * longest first), then one whose unfinished request line and headers started
 * longest ago, then one whose unfinished body did. A connection whose handler
 * is running or whose response is being sent is never closed for the cap;
 * when only such connections are left, the new one gets a 503 and is closed.
 * The process must allow max_connections + SL_HTTP_FD_RESERVE descriptors
 * (cmd/ raises RLIMIT_NOFILE to its hard limit); below that the cap is
 * lowered to fit (sl_http_stats.max_connections says to what).
 *
 * Threads. `threads` event loops (0: one per CPU), each with its own epoll
 * set holding the listening socket (EPOLLEXCLUSIVE: one loop wakes per new
 * connection) and its own connections. The loop that accepts hands each new
 * connection to the loop with the fewest, so connections spread evenly. Every
 * connection lives on one loop for its whole life, in intrusive lists (one
 * per phase, in the order its phase began: the head of each list has the
 * earliest deadline), so deadlines and "the idlest" cost O(1) and need no
 * lock. Handlers run inline on the loop thread of their connection,
 * concurrently with other loops' handlers: whatever they share must be locked
 * by its owner, and a handler that blocks holds up its loop's connections.
 *
 * Lifecycle: sl_http_server_new() binds (SO_REUSEADDR, never SO_REUSEPORT: a
 * port in use is an error naming the address and the reason) and starts the
 * loops. sl_http_server_free() stops accepting at once (taking over the
 * connections the kernel had already completed, whose first request gets
 * SL_HTTP_DRAIN_FRESH_MS to begin), lets requests in flight finish (for up to
 * SL_HTTP_DRAIN_SECONDS; their responses say `Connection: close`), then
 * closes every connection, idle kept-alive ones included, joins the loops and
 * frees the server.
 *
 * Ownership: the request and everything it points to belong to the server
 * and live until the handler returns. The handler owns nothing it must free:
 * it allocates from req->arena and writes the body into resp->body.
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
	const char *peer;    /* the client's IP address as text ("127.0.0.1", "::1") */
	const uint8_t *body; /* NUL-terminated; body_len excludes the NUL */
	size_t body_len;
	sl_arena *arena; /* capped at SL_HTTP_MAX_ARENA; released when the handler returns */
	void *impl;	 /* the server's own; for the accessors below */
} sl_http_req;

typedef struct sl_http_header {
	const char *name, *value; /* static or arena memory */
} sl_http_header;

typedef struct sl_http_resp {
	int status;		  /* 200 unless set */
	const char *content_type; /* NULL: no Content-Type header */
	sl_http_header headers[SL_HTTP_MAX_RESP_HEADERS];
	size_t nheaders;
	sl_buf body; /* max SL_HTTP_MAX_RESPONSE; a body past it becomes a 500 */
} sl_http_resp;

typedef void (*sl_http_handler)(void *ctx, const sl_http_req *req, sl_http_resp *resp);

/*
 * The body of an error the server generates itself (see above). `status` is
 * fixed; `reason` is a short English text ("request body too large"). The
 * hook sets resp->content_type, may add headers and writes resp->body (which
 * holds up to 64 KiB). Runs on a loop thread, like handlers. Without a hook:
 * text/plain; charset=utf-8, "<status> <status text>: <reason>\n", as Go's
 * net/http words its own errors.
 */
typedef void (*sl_http_error_hook)(void *ctx, int status, const char *reason, sl_http_resp *resp);

typedef struct sl_http_config {
	const char *host;	  /* address to bind, e.g. "127.0.0.1", "::" or "localhost" */
	uint16_t port;		  /* 0: pick a free port (see sl_http_server_port) */
	unsigned threads;	  /* event loops; 0 = number of CPUs */
	size_t max_body;	  /* request bodies larger than this get 413; 0 = default */
	unsigned max_connections; /* 0 = SL_HTTP_MAX_CONNECTIONS */
	/* Deadlines in ms; 0 = the SL_HTTP_*_TIMEOUT_MS default (util/limits.h). */
	unsigned header_timeout_ms, body_timeout_ms, idle_timeout_ms, write_timeout_ms;
	sl_http_handler handler;
	sl_http_error_hook error; /* NULL: the plain-text default */
	void *ctx;		  /* passed to handler and error */
} sl_http_config;

/* Counters since start, for metrics; each a sum over the loops, read without stopping them. */
typedef struct sl_http_stats {
	uint64_t open;		  /* connections open now */
	uint64_t max_connections; /* the cap in force */
	uint64_t accepted;	  /* connections accepted */
	uint64_t evicted;	  /* closed to make room under the cap */
	uint64_t refused;	  /* answered 503: the cap was reached and nothing could be closed */
	uint64_t timeout_header, timeout_body, timeout_idle, timeout_write; /* closed at a deadline */
	uint64_t requests;   /* requests handed to the handler */
	uint64_t errors_4xx; /* 4xx responses the server generated itself (not the handler's) */
	uint64_t errors_5xx; /* 5xx likewise */
} sl_http_stats;

typedef struct sl_http_server sl_http_server;

/* On failure returns NULL and writes the reason into err[256] ("cannot listen on 127.0.0.1:9650: ..."). */
sl_http_server *sl_http_server_new(const sl_http_config *cfg, char err[256]);
uint16_t sl_http_server_port(const sl_http_server *s);
void sl_http_server_stats(const sl_http_server *s, sl_http_stats *out);
void sl_http_server_free(sl_http_server *s);
/* A metrics collector (util/metrics.h) of the server's counters; ctx points at the server
 * pointer, which may still be NULL when metrics are read (the server is made later). */
void sl_http_metrics(void *ctx, sl_buf *out);

/* Request header by case-insensitive name (the first when repeated); NULL when absent. */
const char *sl_http_req_header(const sl_http_req *req, const char *name);
/* Whether a header is present at all (for "present but empty" checks). */
bool sl_http_req_has_header(const sl_http_req *req, const char *name);
/* Query parameter by name (first occurrence), percent-decoded ('+' is a space); "" for a name
 * without '='; NULL when absent (or when the arena is exhausted). */
const char *sl_http_req_query(const sl_http_req *req, const char *name);

/* Add a response header (copied into nothing: pass static or arena strings). The server owns
 * Content-Length, Date and Transfer-Encoding and drops those; a value holding CR or LF is dropped;
 * "Connection: close" closes the connection after the response. */
void sl_http_resp_header(sl_http_resp *resp, const char *name, const char *value);
/* A plain-text response: status, text/plain; charset=utf-8, body text. */
void sl_http_resp_text(sl_http_resp *resp, int status, const char *text);

#endif
