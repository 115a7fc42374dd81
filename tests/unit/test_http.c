/* The HTTP server: its request parser and chunked decoder on plain bytes (http/parse.h), then a
 * server in this process over loopback for what only the server knows — the error hook, the
 * counters, the write deadline, the cap on a kept-alive connection, the peer and query accessors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "http/parse.h"
#include "http/server.h"

/* ---- the parser ---- */

static int parse(const char *text, sl_http_head *h, char *buf, const char **why)
{
	size_t n = strlen(text), scanned = 0;
	memcpy(buf, text, n + 1);
	size_t end = sl_http_head_end(buf, n, &scanned);
	if (!end)
		return -1;
	return sl_http_parse_head(buf, end, h, why);
}

static void test_head(void **state)
{
	(void)state;
	static sl_http_head h;
	static char buf[SL_HTTP_MAX_HEADER_BYTES + 64];
	const char *why;
	assert_int_equal(parse("GET /a%20b?x=1 HTTP/1.1\r\nHost: h\r\nX-Y: \t z z \t\r\nx-y: second\r\n\r\n",
			       &h, buf, &why),
			 0);
	assert_string_equal(buf + h.method, "GET");
	assert_string_equal(buf + h.target, "/a%20b?x=1");
	assert_int_equal(h.target_len, 10);
	assert_int_equal(h.minor, 1);
	assert_int_equal(h.nfields, 3);
	assert_string_equal(sl_http_head_field(&h, buf, "x-y"), "z z");
	assert_string_equal(sl_http_head_field(&h, buf, "HOST"), "h");
	assert_null(sl_http_head_field(&h, buf, "Origin"));
	assert_true(h.keep_alive);
	assert_false(h.has_length || h.chunked || h.expect_continue);
	/* Bare LF line ends; an empty value; the 1.0 persistence rules. */
	assert_int_equal(parse("POST / HTTP/1.0\nContent-Length: 007\nContent-Length: 7\n"
			       "X-E:\nExpect: 100-Continue\n\n",
			       &h, buf, &why),
			 0);
	assert_true(h.has_length);
	assert_int_equal(h.content_length, 7);
	assert_string_equal(sl_http_head_field(&h, buf, "x-e"), "");
	assert_true(h.expect_continue);
	assert_false(h.keep_alive);
	assert_int_equal(parse("GET / HTTP/1.0\r\nConnection: Upgrade, Keep-Alive\r\n\r\n", &h, buf, &why),
			 0);
	assert_true(h.keep_alive);
	assert_int_equal(parse("GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, close\r\n\r\n", &h, buf,
			       &why),
			 0);
	assert_false(h.keep_alive);
	assert_int_equal(
		parse("GET / HTTP/1.9\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n", &h, buf, &why), 0);
	assert_int_equal(h.minor, 1);
	assert_true(h.chunked);
	/* A Content-Length past 2^64 saturates: the cap check refuses it with 413. */
	assert_int_equal(
		parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n", &h,
		      buf, &why),
		0);
	assert_true(h.content_length == UINT64_MAX);
	/* absolute and asterisk forms are targets like any other */
	assert_int_equal(parse("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n", &h, buf, &why), 0);
	assert_string_equal(buf + h.target, "*");
}

static void test_head_errors(void **state)
{
	(void)state;
	static sl_http_head h;
	static char buf[SL_HTTP_MAX_HEADER_BYTES + 4096];
	const struct {
		const char *req;
		int status;
		const char *why;
	} cases[] = {
		{ "GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n", 400, "obsolete line folding" },
		{ "GET / HTTP/1.1\r\nHost: h\r\n\tX: a\r\n\r\n", 400, "obsolete line folding" },
		{ "GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400,
		  "conflicting Content-Length headers" },
		{ "GET / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400, "invalid Content-Length" },
		{ "GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1 2\r\n\r\n", 400, "invalid Content-Length" },
		{ "GET / HTTP/1.1\r\nHost: h\r\nContent-Length:\r\n\r\n", 400, "invalid Content-Length" },
		{ "GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
		  "both Transfer-Encoding and Content-Length" },
		{ "GET / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501,
		  "unsupported Transfer-Encoding" },
		{ "GET / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n"
		  "Transfer-Encoding: chunked\r\n\r\n",
		  501, "unsupported Transfer-Encoding" },
		{ "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
		  "Transfer-Encoding in an HTTP/1.0 request" },
		{ "GET / HTTP/1.1\r\n\r\n", 400, "missing Host header" },
		{ "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "more than one Host header" },
		{ "GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505, "HTTP version not supported" },
		{ "GET / HTTP/1.10\r\nHost: h\r\n\r\n", 400, "malformed HTTP version" },
		{ "GET / http/1.1\r\nHost: h\r\n\r\n", 400, "malformed HTTP version" },
		{ "GET /\r\n\r\n", 400, "malformed request line" },
		{ "GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400, "malformed request line" },
		{ "G(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400, "malformed request line" },
		{ "GET /a\x01 HTTP/1.1\r\nHost: h\r\n\r\n", 400, "invalid character in request target" },
		{ "GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400, "malformed header field" },
		{ "GET / HTTP/1.1\r\n: h\r\n\r\n", 400, "malformed header field" },
		{ "GET / HTTP/1.1\r\nHost\r\n\r\n", 400, "malformed header field" },
		{ "GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n", 400, "invalid character in header value" },
		{ "GET / HTTP/1.1\r\nHost: h\r\nX: \x7f\r\n\r\n", 400, "invalid character in header value" },
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
		const char *why = NULL;
		int st = parse(cases[i].req, &h, buf, &why);
		if (st != cases[i].status || strcmp(why, cases[i].why))
			fail_msg("case %zu: %d %s", i, st, why ? why : "");
	}
	/* 414 past SL_HTTP_MAX_PATH; 431 past SL_HTTP_MAX_HEADER_FIELDS or SL_HTTP_MAX_HEADER_BYTES */
	char *req = malloc(SL_HTTP_MAX_HEADER_BYTES + 4096);
	assert_non_null(req);
	int n = snprintf(req, SL_HTTP_MAX_HEADER_BYTES, "GET /%0*d HTTP/1.1\r\nHost: h\r\n\r\n",
			 SL_HTTP_MAX_PATH, 0);
	const char *why;
	assert_int_equal(parse(req, &h, buf, &why), 414);
	n = snprintf(req, SL_HTTP_MAX_HEADER_BYTES, "GET /%0*d HTTP/1.1\r\nHost: h\r\n\r\n",
		     SL_HTTP_MAX_PATH - 1, 0);
	assert_int_equal(parse(req, &h, buf, &why), 0);
	n = snprintf(req, 64, "GET / HTTP/1.1\r\nHost: h\r\n");
	for (int i = 0; i < SL_HTTP_MAX_HEADER_FIELDS; i++)
		n += snprintf(req + n, 16, "X: %d\r\n", i % 10);
	snprintf(req + n, 8, "\r\n");
	assert_int_equal(parse(req, &h, buf, &why), 431);
	assert_string_equal(why, "too many header fields");
	size_t len = SL_HTTP_MAX_HEADER_BYTES + 2, scanned = 0;
	memset(req, 'a', len);
	memcpy(req, "GET / HTTP/1.1\r\nHost: h\r\nX: ", 28);
	memcpy(req + len - 4, "\r\n\r\n", 4);
	assert_int_equal(sl_http_head_end(req, len, &scanned), len);
	assert_int_equal(sl_http_parse_head(req, len, &h, &why), 431);
	free(req);
}

static void test_head_end(void **state)
{
	(void)state;
	const char *req = "GET / HTTP/1.1\r\nHost: h\r\n\r\nnext";
	size_t n = strlen(req) - 4, scanned = 0;
	/* Fed a byte at a time, the end appears exactly when the empty line completes. */
	for (size_t i = 1; i < n; i++) {
		assert_int_equal(sl_http_head_end(req, i, &scanned), 0);
		assert_true(scanned <= i);
	}
	assert_int_equal(sl_http_head_end(req, n, &scanned), n);
	scanned = 0;
	assert_int_equal(sl_http_head_end(req, strlen(req), &scanned), n);
	scanned = 0;
	assert_int_equal(sl_http_head_end("GET / HTTP/1.0\n\nx", 17, &scanned), 16);
	scanned = 0;
	assert_int_equal(sl_http_head_end("GET / HTTP/1.0\r\n\rx", 18, &scanned), 0);
}

static void test_pct_decode(void **state)
{
	(void)state;
	char out[64];
	assert_int_equal(sl_http_pct_decode("%41%2f+x%zz%4", 13, out, false), 9);
	assert_string_equal(out, "A/+x%zz%4");
	assert_int_equal(sl_http_pct_decode("%41%2f+x%zz%4", 13, out, true), 9);
	assert_string_equal(out, "A/ x%zz%4");
	assert_int_equal(sl_http_pct_decode("a%00b", 5, out, false), -1);
	char in_place[] = "/a%2Fb%20c";
	assert_int_equal(sl_http_pct_decode(in_place, strlen(in_place), in_place, false), 6);
	assert_string_equal(in_place, "/a/b c");
}

/* Decode `in` fed `step` bytes at a time; returns the status and the bytes consumed in total. */
static int chunked(const char *in, size_t max, size_t step, sl_buf *body, size_t *used)
{
	sl_http_chunked c = { 0 };
	size_t n = strlen(in);
	*used = 0;
	sl_buf_init(body, max);
	while (*used < n && !sl_http_chunked_done(&c)) {
		int st;
		const char *why;
		size_t k = SL_MIN(step, n - *used);
		size_t u = sl_http_chunked_decode(&c, (const uint8_t *)in + *used, k, body, &st, &why);
		assert_true(u <= k);
		*used += u;
		if (st)
			return st;
		if (u < k)
			break;
	}
	return sl_http_chunked_done(&c) ? 0 : -1;
}

static void test_chunked(void **state)
{
	(void)state;
	sl_buf b;
	size_t used;
	const char *ok = "5\r\nhello\r\n006;ext=1;q=\"x\"\r\n world\r\n0\r\nTrailer: t\r\nX: y\r\n\r\nNEXT";
	for (size_t step = 1; step <= 64; step *= 2) {
		assert_int_equal(chunked(ok, 1024, step, &b, &used), 0);
		assert_string_equal(sl_buf_str(&b), "hello world");
		assert_int_equal(used, strlen(ok) - 4); /* the next request is left alone */
		sl_buf_release(&b);
	}
	assert_int_equal(chunked("A\nabcdefghij\n0\n\n", 1024, 3, &b, &used), 0);
	assert_string_equal(sl_buf_str(&b), "abcdefghij");
	sl_buf_release(&b);
	assert_int_equal(chunked("0\r\n\r\n", 1024, 1, &b, &used), 0);
	assert_int_equal(b.len, 0);
	sl_buf_release(&b);
	/* past the cap: a declared chunk at once, a sum of chunks as soon as it passes */
	assert_int_equal(chunked("5\r\nhello\r\n0\r\n\r\n", 4, 1, &b, &used), 413);
	assert_int_equal(used, 3);
	sl_buf_release(&b);
	assert_int_equal(chunked("5\r\nhello\r\n4\r\nxxxx\r\n0\r\n\r\n", 8, 64, &b, &used), 413);
	sl_buf_release(&b);
	assert_int_equal(chunked("4\r\nxxxx\r\n4\r\nxxxx\r\n0\r\n\r\n", 8, 64, &b, &used), 0);
	sl_buf_release(&b);
	assert_int_equal(chunked("10000000000000000\r\n", 1024, 64, &b, &used), 413);
	sl_buf_release(&b);
	const char *bad[] = { "x\r\n",	       "\r\n", ";a\r\n",   "5\r\nhelloX",
			      "5\r\nhello\rX", "5\rX", "0\r\n\rX", "5 5\r\n" };
	for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
		int st = chunked(bad[i], 1024, 64, &b, &used);
		if (st != 400 && !(i == 7 && st == -1))
			fail_msg("bad %zu: %d", i, st);
		sl_buf_release(&b);
	}
	char *longext = malloc(SL_HTTP_MAX_CHUNK_LINE + 16);
	assert_non_null(longext);
	memset(longext, 'e', SL_HTTP_MAX_CHUNK_LINE + 8);
	memcpy(longext, "1;", 2);
	longext[SL_HTTP_MAX_CHUNK_LINE + 8] = 0;
	assert_int_equal(chunked(longext, 1024, 4096, &b, &used), 400);
	sl_buf_release(&b);
	free(longext);
}

/* ---- a server in this process ---- */

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

static void handler(void *ctx, const sl_http_req *req, sl_http_resp *resp)
{
	(void)ctx;
	if (!strcmp(req->path, "/slow"))
		sleep_ms(400); /* holds its loop: what connects meanwhile waits in the listen queue */
	if (!strcmp(req->path, "/big")) {
		static char chunk[65536];
		memset(chunk, 'x', sizeof chunk);
		for (int i = 0; i < 512; i++) /* 32 MiB: more than loopback buffers hold */
			sl_buf_add(&resp->body, chunk, sizeof chunk);
		return;
	}
	const char *q = sl_http_req_query(req, "q"), *r = sl_http_req_query(req, "r");
	const char *a = sl_http_req_header(req, "x-a");
	resp->content_type = "text/plain";
	sl_buf_addf(&resp->body, "%s|%s|%s|%s|%s|%s|%zu", req->method, req->path, q ? q : "(none)",
		    r ? r : "(none)", req->peer, a ? a : "(none)", req->body_len);
}

/* The Data API's error shape, as a service would choose it. */
static void json_errors(void *ctx, int status, const char *reason, sl_http_resp *resp)
{
	(void)ctx;
	resp->content_type = "application/json";
	sl_buf_addf(&resp->body, "{\"message\":\"%s\",\"statusCode\":%d,\"error\":\"%s\"}", reason, status,
		    status == 413 ? "Request Entity Too Large" : "Error");
}

/* A connection to the server on 127.0.0.1, or -1. */
static int try_dial(uint16_t port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int dial(uint16_t port)
{
	int fd = try_dial(port);
	assert_true(fd >= 0);
	return fd;
}

static void say(int fd, const char *s) { assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s)); }

/* Read until the server closes or `ms` pass; returns the bytes read (NUL-terminated into out). */
static size_t hear(int fd, char *out, size_t cap, int ms, bool *closed)
{
	size_t n = 0;
	*closed = false;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	while (n + 1 < cap && poll(&p, 1, ms) == 1) {
		ssize_t k = read(fd, out + n, cap - 1 - n);
		if (k <= 0) {
			*closed = true;
			break;
		}
		n += (size_t)k;
	}
	out[n] = 0;
	return n;
}

static const char *body_of(const char *resp)
{
	const char *b = strstr(resp, "\r\n\r\n");
	return b ? b + 4 : "";
}

static void test_server(void **state)
{
	(void)state;
	sl_http_config cfg = { .host = "127.0.0.1",
			       .threads = 1,
			       .max_body = 1024,
			       .max_connections = 4,
			       .header_timeout_ms = 2000,
			       .idle_timeout_ms = 5000,
			       .write_timeout_ms = 300,
			       .handler = handler,
			       .error = json_errors };
	char err[256], buf[8192];
	bool closed;
	sl_http_server *s = sl_http_server_new(&cfg, err);
	assert_non_null(s);
	uint16_t port = sl_http_server_port(s);

	/* accessors: decoded path, query by name ('+' a space), header, peer, body */
	int fd = dial(port);
	say(fd, "POST /a%20b?r&q=x%2By+z&q=2 HTTP/1.1\r\nHost: h\r\nX-A: v\r\nContent-Length: 3\r\n"
		"Connection: close\r\n\r\nabc");
	hear(fd, buf, sizeof buf, 2000, &closed);
	assert_true(closed);
	assert_string_equal(body_of(buf), "POST|/a b|x+y z||127.0.0.1|v|3");
	close(fd);

	/* the service's error hook words the server's own errors */
	fd = dial(port);
	say(fd, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2000\r\n\r\n");
	hear(fd, buf, sizeof buf, 2000, &closed);
	assert_true(closed);
	assert_non_null(strstr(buf, "HTTP/1.1 413 Request Entity Too Large\r\n"));
	assert_non_null(strstr(buf, "Content-Type: application/json\r\n"));
	assert_string_equal(body_of(buf), "{\"message\":\"request body too large\",\"statusCode\":413,"
					  "\"error\":\"Request Entity Too Large\"}");
	close(fd);

	/* a response the client does not read is abandoned at the write deadline */
	fd = dial(port);
	int small = 4096;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
	say(fd, "GET /big HTTP/1.1\r\nHost: h\r\n\r\n");
	sl_http_stats st;
	for (int i = 0; i < 100; i++) {
		sl_http_server_stats(s, &st);
		if (st.timeout_write)
			break;
		sleep_ms(20);
	}
	assert_int_equal(st.timeout_write, 1);
	close(fd);

	/* the cap: four kept-alive connections, a fifth closes the one idle longest */
	int k[5];
	for (int i = 0; i < 5; i++) {
		k[i] = dial(port);
		say(k[i], "GET /x HTTP/1.1\r\nHost: h\r\n\r\n");
		hear(k[i], buf, sizeof buf, 200, &closed);
		assert_false(closed);
		assert_non_null(strstr(buf, "HTTP/1.1 200 OK\r\n"));
	}
	hear(k[0], buf, sizeof buf, 500, &closed);
	assert_true(closed);
	for (int i = 1; i < 5; i++) {
		say(k[i], "GET /y HTTP/1.1\r\nHost: h\r\n\r\n");
		hear(k[i], buf, sizeof buf, 200, &closed);
		assert_string_equal(body_of(buf), "GET|/y|(none)|(none)|127.0.0.1|(none)|0");
	}
	sl_http_server_stats(s, &st);
	assert_int_equal(st.max_connections, 4);
	assert_int_equal(st.evicted, 1);
	assert_int_equal(st.open, 4);
	assert_int_equal(st.accepted, 8);
	assert_int_equal(st.requests, 11);
	assert_int_equal(st.errors_4xx, 1);
	/* Shutting down closes kept-alive connections at once. */
	sl_http_server_free(s);
	for (int i = 1; i < 5; i++) {
		hear(k[i], buf, sizeof buf, 1000, &closed);
		assert_true(closed);
		close(k[i]);
	}
	close(k[0]);
}

static void *free_server(void *s)
{
	sl_http_server_free(s);
	return NULL;
}

/* Shutting down while connections wait in the listen queue: each client that connected before it
 * is answered, one whose request was sent at once and one whose request begins during the drain;
 * the server then exits, and a connection after it is refused. */
static void test_drain_queue(void **state)
{
	(void)state;
	sl_http_config cfg = { .host = "127.0.0.1", .threads = 1, .handler = handler };
	char err[256], buf[8192];
	bool closed;
	sl_http_server *s = sl_http_server_new(&cfg, err);
	assert_non_null(s);
	uint16_t port = sl_http_server_port(s);
	int busy = dial(port);
	say(busy, "GET /slow HTTP/1.1\r\nHost: h\r\n\r\n");
	sleep_ms(100); /* the one loop is in the handler now */
	int sent = dial(port), late = dial(port);
	say(sent, "GET /sent HTTP/1.1\r\nHost: h\r\n\r\n");
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, free_server, s), 0);
	sleep_ms(200);
	say(late, "GET /late HTTP/1.1\r\nHost: h\r\n\r\n");
	hear(busy, buf, sizeof buf, 2000, &closed);
	assert_true(closed);
	assert_string_equal(body_of(buf), "GET|/slow|(none)|(none)|127.0.0.1|(none)|0");
	hear(sent, buf, sizeof buf, 2000, &closed);
	assert_true(closed);
	assert_non_null(strstr(buf, "Connection: close\r\n")); /* answered while draining */
	assert_string_equal(body_of(buf), "GET|/sent|(none)|(none)|127.0.0.1|(none)|0");
	hear(late, buf, sizeof buf, 2000, &closed);
	assert_true(closed);
	assert_string_equal(body_of(buf), "GET|/late|(none)|(none)|127.0.0.1|(none)|0");
	assert_int_equal(pthread_join(th, NULL), 0);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), -1);
	assert_int_equal(errno, ECONNREFUSED);
	close(fd);
	close(busy);
	close(sent);
	close(late);
}

/* Clients that connect and send without pause while the server shuts down, for a count of the
 * requests sent before shutting down began: each must be answered. */
typedef struct storm {
	uint16_t port;
	_Atomic bool freeing, stop;
	_Atomic int answered, lost;
} storm;

static void *storm_client(void *arg)
{
	storm *st = arg;
	static const char req[] = "GET /storm HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n";
	while (!atomic_load(&st->stop)) {
		int fd = try_dial(st->port);
		if (fd < 0) {
			sleep_ms(1);
			continue;
		}
		bool before = write(fd, req, sizeof req - 1) == (ssize_t)(sizeof req - 1) &&
			      !atomic_load(&st->freeing);
		char buf[512];
		size_t n = 0;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		while (n < sizeof buf && poll(&p, 1, 5000) == 1) {
			ssize_t r = read(fd, buf + n, sizeof buf - n);
			if (r <= 0)
				break;
			n += (size_t)r;
		}
		if (before)
			atomic_fetch_add(
				n >= 12 && !memcmp(buf, "HTTP/1.1 200", 12) ? &st->answered : &st->lost, 1);
		close(fd);
	}
	return NULL;
}

/* Shutting down under a stream of new connections, on two loops: a connection one loop accepted
 * and handed to the other after that one's message to drain was closed unanswered; every request
 * sent before sl_http_server_free began is answered. */
static void test_drain_storm(void **state)
{
	(void)state;
	sl_http_config cfg = { .host = "127.0.0.1", .threads = 2, .handler = handler };
	char err[256];
	int answered = 0;
	for (int round = 0; round < 50; round++) {
		sl_http_server *s = sl_http_server_new(&cfg, err);
		assert_non_null(s);
		storm st = { .port = sl_http_server_port(s) };
		pthread_t th[8];
		for (int i = 0; i < 8; i++)
			assert_int_equal(pthread_create(&th[i], NULL, storm_client, &st), 0);
		sleep_ms(20);
		atomic_store(&st.freeing, true);
		sl_http_server_free(s);
		atomic_store(&st.stop, true);
		for (int i = 0; i < 8; i++)
			assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(atomic_load(&st.lost), 0);
		answered += atomic_load(&st.answered);
	}
	assert_true(answered > 0);
}

static void test_port_in_use(void **state)
{
	(void)state;
	sl_http_config cfg = { .host = "127.0.0.1", .threads = 1, .handler = handler };
	char err[256], want[256];
	/* A privileged port as an ordinary user: the reason, not just "cannot listen". A child drops
	 * root for it, forked before any server thread exists; skipped where anyone may bind port 80. */
	FILE *f = fopen("/proc/sys/net/ipv4/ip_unprivileged_port_start", "r");
	int start = 1024;
	if (f) {
		if (fscanf(f, "%d", &start) != 1)
			start = 1024;
		fclose(f);
	}
	if (start > 80) {
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (!pid) {
			if (!geteuid() && (setgid(65534) || setuid(65534)))
				_exit(2);
			sl_http_config c80 = {
				.host = "127.0.0.1", .port = 80, .threads = 1, .handler = handler
			};
			char e80[256];
			sl_http_server *s80 = sl_http_server_new(&c80, e80);
			_exit(!s80 && !strcmp(e80, "cannot listen on 127.0.0.1:80: Permission denied") ? 0
												       : 1);
		}
		int wst = 0;
		assert_int_equal(waitpid(pid, &wst, 0), pid);
		assert_true(WIFEXITED(wst));
		assert_int_equal(WEXITSTATUS(wst), 0);
	}
	sl_http_server *s = sl_http_server_new(&cfg, err);
	assert_non_null(s);
	cfg.port = sl_http_server_port(s);
	assert_null(sl_http_server_new(&cfg, err));
	snprintf(want, sizeof want, "cannot listen on 127.0.0.1:%u: Address already in use", cfg.port);
	assert_string_equal(err, want);
	cfg.host = "::1";
	cfg.port = 1;
	sl_http_server *v6 = sl_http_server_new(&cfg, err);
	if (!v6 && geteuid()) /* root may bind port 1 */
		assert_non_null(strstr(err, "cannot listen on [::1]:1: "));
	sl_http_server_free(v6);
	cfg.host = "not-an-address";
	assert_null(sl_http_server_new(&cfg, err));
	assert_string_equal(err, "http-host not-an-address is not an IP address");
	sl_http_server_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_head),	    cmocka_unit_test(test_head_errors),
		cmocka_unit_test(test_head_end),    cmocka_unit_test(test_pct_decode),
		cmocka_unit_test(test_chunked),	    cmocka_unit_test(test_server),
		cmocka_unit_test(test_drain_queue), cmocka_unit_test(test_drain_storm),
		cmocka_unit_test(test_port_in_use),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
