/*
 * server_mhd.c — sl_http_server on libmicrohttpd (the only file that sees it).
 *
 * Mode: MHD's internal epoll thread pool; each pool thread accepts and serves
 * its own connections, and handlers run on those threads.
 *
 * The access callback is called several times per request: first with no
 * data (we allocate the request state), then once per chunk of body, then a
 * final time with no data, when the handler runs and the response is queued.
 * Queuing on the first call would make MHD 0.9.75 close a keep-alive
 * connection, so even body-less requests are answered on the second call.
 */
#include "http/server.h"

#include <microhttpd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "util/limits.h"

struct sl_http_server {
	struct MHD_Daemon *d;
	sl_http_config cfg;
	uint16_t port;
	_Atomic long inflight; /* requests begun and not yet completed (sent or failed) */
};

typedef struct req_state {
	sl_arena arena;
	sl_buf body;
	bool too_large;
	bool started; /* the access callback has seen this request */
	char *query;  /* raw query string, from the URI as received */
	struct MHD_Connection *conn;
} req_state;

static req_state *state_new(sl_http_server *s)
{
	req_state *st = calloc(1, sizeof *st);
	if (!st)
		return NULL;
	atomic_fetch_add(&s->inflight, 1);
	sl_arena_init(&st->arena, 4u << 20);
	sl_buf_init(&st->body, s->cfg.max_body);
	return st;
}

/* Called first for every request with the URI exactly as sent: keep its query string. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	req_state *st = state_new(cls);
	if (st) {
		const char *q = strchr(uri, '?');
		st->query = sl_arena_strndup(&st->arena, q ? q + 1 : "",
					     q ? strnlen(q + 1, SL_HTTP_MAX_PATH) : 0);
	}
	return st;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_ctx,
			  enum MHD_ConnectionNotificationCode code)
{
	if (code != MHD_CONNECTION_NOTIFY_STARTED)
		return;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (ci) {
		int one = 1;
		/* Multi-segment replies must not wait on Nagle and delayed ACKs. */
		setsockopt(ci->connect_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	}
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	sl_http_server *s = cls;
	req_state *st = *con_cls;
	if (!st)
		return;
	atomic_fetch_sub(&s->inflight, 1);
	sl_buf_release(&st->body);
	sl_arena_release(&st->arena);
	free(st);
	*con_cls = NULL;
}

static enum MHD_Result queue(struct MHD_Connection *conn, sl_http_resp *resp)
{
	struct MHD_Response *r;
	if (resp->body.err) {
		sl_buf_release(&resp->body);
		resp->status = 500;
		resp->content_type = "text/plain; charset=utf-8";
		sl_buf_adds(&resp->body, "response too large\n");
	}
	size_t len = 0;
	uint8_t *p = sl_buf_detach(&resp->body, &len);
	if (p && len)
		r = MHD_create_response_from_buffer_with_free_callback(len, p, free);
	else {
		free(p);
		r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	}
	if (!r)
		return MHD_NO;
	if (resp->content_type)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, resp->content_type);
	for (size_t i = 0; i < resp->nheaders; i++)
		MHD_add_response_header(r, resp->headers[i].name, resp->headers[i].value);
	enum MHD_Result ok = MHD_queue_response(conn, (unsigned)resp->status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result on_access(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
				 const char *version, const char *upload_data, size_t *upload_data_size,
				 void **con_cls)
{
	sl_http_server *s = cls;
	req_state *st = *con_cls;
	if (!st && !(st = *con_cls = state_new(s)))
		return MHD_NO;
	if (!st->started) {
		st->started = true;
		st->conn = conn;
		const char *cl =
			MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl) {
			char *end = NULL;
			unsigned long long v = strtoull(cl, &end, 10);
			if (end == cl || v > s->cfg.max_body)
				st->too_large = true;
		}
		*con_cls = st;
		return MHD_YES;
	}
	if (*upload_data_size) {
		if (!st->too_large) {
			sl_buf_add(&st->body, upload_data, *upload_data_size);
			if (st->body.err)
				st->too_large = true;
		}
		*upload_data_size = 0;
		if (st->too_large) {
			/* Answer now; MHD closes the connection instead of reading the rest. */
			sl_http_resp resp = { .status = 413 };
			sl_buf_init(&resp.body, 256);
			sl_http_resp_text(&resp, 413, "request body too large\n");
			sl_http_resp_header(&resp, "Connection", "close");
			return queue(conn, &resp);
		}
		return MHD_YES;
	}
	sl_http_resp resp = { .status = 200 };
	sl_buf_init(&resp.body, SL_HTTP_MAX_RESPONSE);
	if (st->too_large) {
		sl_http_resp_text(&resp, 413, "request body too large\n");
		sl_http_resp_header(&resp, "Connection", "close");
		return queue(conn, &resp);
	}
	if (!st->body.p)
		sl_buf_add(&st->body, "", 0); /* bodies are always NUL-terminated */
	sl_http_req req = {
		.method = method,
		.path = url,
		.query = st->query ? st->query : "",
		.body = st->body.p ? st->body.p : (const uint8_t *)"",
		.body_len = st->body.len,
		.arena = &st->arena,
		.impl = st,
	};
	s->cfg.handler(s->cfg.ctx, &req, &resp);
	return queue(conn, &resp);
}

sl_http_server *sl_http_server_new(const sl_http_config *cfg, char err[256])
{
	sl_http_server *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, 256, "out of memory");
		return NULL;
	}
	s->cfg = *cfg;
	if (!s->cfg.max_body || s->cfg.max_body > SL_HTTP_MAX_BODY_HARD)
		s->cfg.max_body = SL_HTTP_MAX_BODY_DEFAULT;
	unsigned threads = cfg->threads;
	if (!threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		threads = n > 0 ? (unsigned)n : 2;
	}
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(cfg->port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(cfg->port) };
	struct sockaddr *sa;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC;
	const char *host = cfg->host && *cfg->host ? cfg->host : "127.0.0.1";
	if (inet_pton(AF_INET, host, &a4.sin_addr) == 1) {
		sa = (struct sockaddr *)&a4;
	} else if (inet_pton(AF_INET6, host, &a6.sin6_addr) == 1) {
		sa = (struct sockaddr *)&a6;
		flags |= MHD_USE_IPv6;
	} else if (!strcmp(host, "localhost")) {
		inet_pton(AF_INET, "127.0.0.1", &a4.sin_addr);
		sa = (struct sockaddr *)&a4;
	} else {
		snprintf(err, 256, "http-host %s is not an IP address", host);
		free(s);
		return NULL;
	}
	s->d = MHD_start_daemon(flags, cfg->port, NULL, NULL, on_access, s, MHD_OPTION_SOCK_ADDR, sa,
				MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_CONNECTION_LIMIT,
				(unsigned)SL_HTTP_MAX_CONNECTIONS, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				(size_t)SL_HTTP_MAX_HEADER_BYTES, MHD_OPTION_CONNECTION_TIMEOUT,
				cfg->timeout_s ? cfg->timeout_s : SL_HTTP_TIMEOUT_SECONDS,
				MHD_OPTION_LISTENING_ADDRESS_REUSE, 1, MHD_OPTION_NOTIFY_COMPLETED,
				on_completed, s, MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, s, MHD_OPTION_END);
	if (!s->d) {
		snprintf(err, 256, "cannot listen on %s:%u", host, cfg->port);
		free(s);
		return NULL;
	}
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	s->port = di ? di->port : cfg->port;
	return s;
}

uint16_t sl_http_server_port(const sl_http_server *s) { return s->port; }

void sl_http_server_free(sl_http_server *s)
{
	if (!s)
		return;
	/* Stop accepting, let requests in flight be answered (up to a deadline),
	 * then close every connection, idle keep-alive ones included. */
	MHD_socket fd = MHD_quiesce_daemon(s->d);
	for (int i = 0; i < SL_HTTP_DRAIN_SECONDS * 100 && atomic_load(&s->inflight) > 0; i++) {
		struct timespec ts = { 0, 10 * 1000000 };
		nanosleep(&ts, NULL);
	}
	MHD_stop_daemon(s->d);
	if (fd != MHD_INVALID_SOCKET)
		close(fd);
	free(s);
}

const char *sl_http_req_header(const sl_http_req *req, const char *name)
{
	const req_state *st = req->impl;
	return MHD_lookup_connection_value(st->conn, MHD_HEADER_KIND, name);
}

bool sl_http_req_has_header(const sl_http_req *req, const char *name)
{
	return sl_http_req_header(req, name) != NULL;
}

const char *sl_http_req_query(const sl_http_req *req, const char *name)
{
	const req_state *st = req->impl;
	return MHD_lookup_connection_value(st->conn, MHD_GET_ARGUMENT_KIND, name);
}

void sl_http_resp_header(sl_http_resp *resp, const char *name, const char *value)
{
	if (resp->nheaders < SL_HTTP_MAX_RESP_HEADERS)
		resp->headers[resp->nheaders++] = (sl_http_header){ name, value };
}

void sl_http_resp_text(sl_http_resp *resp, int status, const char *text)
{
	resp->status = status;
	resp->content_type = "text/plain; charset=utf-8";
	sl_buf_reset(&resp->body);
	sl_buf_adds(&resp->body, text);
}
