/*
 * server.c — sl_http_server: HTTP/1.1 on epoll (server.h is the manual).
 *
 * A loop thread owns its connections outright; the only state shared across
 * loops is atomic (connection counts, counters, the draining flag) plus each
 * loop's hand-over pipe. A connection moves through phases:
 *
 *   accept ─▶ HEAD ─▶ BODY ─▶ handler ─▶ (WRITE) ─▶ IDLE ─▶ HEAD ...
 *               └──────┴──── error ───▶ (WRITE) ─▶ LINGER ─▶ closed
 *
 * and sits in the loop's list for its phase (handler: in none; it runs
 * inline). A phase's deadline is its start plus the phase's timeout, the
 * same for the whole list, so appending on entry keeps every list in
 * deadline order: the loop looks only at list heads.
 *
 * I/O is edge-triggered. `readable`/`writable` remember what epoll said until
 * a call returns EAGAIN — or until a read returns less than it asked for,
 * which on a stream socket means the receive queue is empty (any later data
 * raises a new edge), saving the read that would only return EAGAIN. A
 * connection with work left after a fair share goes on the loop's ready list.
 * Output is one response at a time: input is not read while a response is
 * pending, which answers pipelined requests in order and bounds memory.
 */
#include "http/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "http/parse.h"
#include "util/limits.h"

#define RBUF_INITIAL 4096u
#define RBUF_MAX (2 * SL_HTTP_MAX_HEADER_BYTES) /* a head, and room for chunked bytes after it */
#define ACCEPT_BATCH 64	     /* connections accepted per wake-up, so other loops get some */
#define ROUNDS 16	     /* requests or reads per connection before the others get a turn */
#define KEEP_BUF (16u << 10) /* request/response buffers larger than this are freed after use */
#define ERROR_BODY_MAX (64u << 10)

enum { PH_IDLE, PH_HEAD, PH_BODY, PH_WRITE, PH_LINGER, NLISTS, PH_NONE = NLISTS };

typedef struct conn conn;
typedef struct loop loop;

typedef struct clink {
	conn *prev, *next;
} clink;

typedef struct clist {
	conn *head, *tail;
} clist;

struct conn {
	clink ph, rd; /* in the phase list; in the ready list */
	loop *lp;
	int fd;
	uint8_t phase; /* PH_*: the list it is in, or PH_NONE */
	bool in_ready;
	bool readable, writable, eof;
	bool interim;	  /* `out` holds a 100 Continue, not a response */
	bool close_after; /* close once the response is sent (half-close, drain, close) */
	int64_t deadline; /* of the current phase, monotonic ms */
	/* input: the request starts at rbuf[0]; in BODY, rbuf[rpos..rlen) is body not yet taken */
	char *rbuf;
	uint32_t rcap, rlen, rpos, head_len;
	size_t scanned;
	sl_http_head head;
	uint64_t need; /* Content-Length bytes still to come */
	sl_http_chunked ck;
	sl_buf body;
	/* output: out (status line, headers), then body_send bytes of resp_body */
	sl_buf out, resp_body;
	size_t off, body_send;
	char peer[INET6_ADDRSTRLEN];
};

/* A connection handed from the loop that accepted it to the one that serves it (fd -1: drain). */
typedef struct handoff {
	int fd;
	char peer[60];
} handoff;
_Static_assert(sizeof(handoff) <= 512, "pipe writes of a handoff must be atomic");

typedef struct loop_stats {
	_Atomic uint64_t accepted, evicted, refused, timeouts[NLISTS], requests, e4xx, e5xx;
} loop_stats;

struct loop {
	sl_http_server *s;
	int ep, pipe_r, pipe_w;
	pthread_t th;
	bool running;
	clist lists[NLISTS];
	clist ready;
	_Atomic unsigned nconn; /* owned, plus handed over and not yet adopted (for balancing) */
	unsigned nlocal;	/* owned */
	sl_arena arena;
	int64_t now;
	time_t date_sec;
	char date[32];
	bool draining, listening, fresh_swept;
	int64_t drain_until, fresh_until, relisten_at;
	loop_stats st;
	uint8_t scratch[16384]; /* what a lingering client still sends lands here */
};

struct sl_http_server {
	sl_http_config cfg;
	unsigned tmo[NLISTS]; /* ms, per phase */
	unsigned cap;
	int lfd;
	uint16_t port;
	unsigned nloops;
	loop *loops;
	_Atomic unsigned open;
	_Atomic bool draining;
	_Atomic unsigned accepting; /* loops inside accept_batch */
};

static char listen_tag, pipe_tag; /* epoll data for the two fds that are not connections */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void stat_add(_Atomic uint64_t *c) { atomic_fetch_add_explicit(c, 1, memory_order_relaxed); }

/* ---- intrusive lists ---- */

static void list_push(clist *l, conn *c, clink *lk, size_t off)
{
	lk->prev = l->tail;
	lk->next = NULL;
	if (l->tail)
		((clink *)((char *)l->tail + off))->next = c;
	else
		l->head = c;
	l->tail = c;
}

static void list_unlink(clist *l, clink *lk, size_t off)
{
	if (lk->prev)
		((clink *)((char *)lk->prev + off))->next = lk->next;
	else
		l->head = lk->next;
	if (lk->next)
		((clink *)((char *)lk->next + off))->prev = lk->prev;
	else
		l->tail = lk->prev;
	lk->prev = lk->next = NULL;
}

/* Leave the current phase's list (if any) and, unless PH_NONE, enter `phase` with its deadline. */
static void set_phase(conn *c, uint8_t phase)
{
	loop *lp = c->lp;
	if (c->phase != PH_NONE)
		list_unlink(&lp->lists[c->phase], &c->ph, offsetof(conn, ph));
	c->phase = phase;
	if (phase == PH_NONE)
		return;
	c->deadline = lp->now + lp->s->tmo[phase];
	list_push(&lp->lists[phase], c, &c->ph, offsetof(conn, ph));
}

static void make_ready(conn *c)
{
	if (c->in_ready)
		return;
	c->in_ready = true;
	list_push(&c->lp->ready, c, &c->rd, offsetof(conn, rd));
}

/* ---- connections ---- */

static void conn_close(conn *c)
{
	loop *lp = c->lp;
	set_phase(c, PH_NONE);
	if (c->in_ready)
		list_unlink(&lp->ready, &c->rd, offsetof(conn, rd));
	epoll_ctl(lp->ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->rbuf);
	sl_buf_release(&c->body);
	sl_buf_release(&c->out);
	sl_buf_release(&c->resp_body);
	free(c);
	lp->nlocal--;
	atomic_fetch_sub_explicit(&lp->nconn, 1, memory_order_relaxed);
	atomic_fetch_sub_explicit(&lp->s->open, 1, memory_order_relaxed);
}

static const char *status_text(int st)
{
	switch (st) {
	case 100: return "Continue";
	case 200: return "OK";
	case 201: return "Created";
	case 202: return "Accepted";
	case 204: return "No Content";
	case 206: return "Partial Content";
	case 301: return "Moved Permanently";
	case 302: return "Found";
	case 303: return "See Other";
	case 304: return "Not Modified";
	case 307: return "Temporary Redirect";
	case 308: return "Permanent Redirect";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 406: return "Not Acceptable";
	case 408: return "Request Timeout";
	case 409: return "Conflict";
	case 410: return "Gone";
	case 411: return "Length Required";
	case 413: return "Request Entity Too Large";
	case 414: return "Request URI Too Long";
	case 415: return "Unsupported Media Type";
	case 422: return "Unprocessable Entity";
	case 429: return "Too Many Requests";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	case 505: return "HTTP Version Not Supported";
	default:
		return st < 200	  ? "Informational"
		       : st < 300 ? "Success"
		       : st < 400 ? "Redirection"
		       : st < 500 ? "Client Error"
				  : "Server Error";
	}
}

/* IMF-fixdate, e.g. "Sun, 06 Nov 1994 08:49:37 GMT", formatted once a second per loop. */
static const char *date_now(loop *lp)
{
	static const char days[] = "SunMonTueWedThuFriSat", months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	time_t t = time(NULL);
	if (t != lp->date_sec) {
		struct tm tm;
		gmtime_r(&t, &tm);
		snprintf(lp->date, sizeof lp->date, "%.3s, %02d %.3s %04d %02d:%02d:%02d GMT",
			 days + 3 * tm.tm_wday, tm.tm_mday, months + 3 * tm.tm_mon, tm.tm_year + 1900,
			 tm.tm_hour, tm.tm_min, tm.tm_sec);
		lp->date_sec = t;
	}
	return lp->date;
}

static bool has_crlf(const char *s) { return strpbrk(s, "\r\n") != NULL; }

/*
 * Serialize a response into c->out (and point the send at c->resp_body, which
 * resp->body has been moved back into). `keep` says whether the connection
 * stays open; a handler's "Connection: close" overrides it.
 */
static void put_response(conn *c, sl_http_resp *resp, bool keep, bool head_only)
{
	loop *lp = c->lp;
	int st = resp->status;
	if (st < 100 || st > 999)
		st = 500;
	if (c->resp_body.err) {
		st = 500;
		resp->content_type = "text/plain; charset=utf-8";
		sl_buf_reset(&c->resp_body);
		sl_buf_adds(&c->resp_body, "response too large\n");
		stat_add(&lp->st.e5xx);
	}
	for (size_t i = 0; i < resp->nheaders; i++) {
		const sl_http_header *h = &resp->headers[i];
		if (h->name && h->value && !strcasecmp(h->name, "Connection") &&
		    !strcasecmp(h->value, "close"))
			keep = false;
	}
	bool no_body = st < 200 || st == 204 || st == 304;
	sl_buf *o = &c->out;
	sl_buf_reset(o);
	char num[21];
	sl_buf_add(o, "HTTP/1.1 ", 9);
	sl_buf_add(o, num, sl_fmt_u64(num, (uint64_t)st));
	sl_buf_addc(o, ' ');
	sl_buf_adds(o, status_text(st));
	sl_buf_add(o, "\r\nDate: ", 8);
	sl_buf_adds(o, date_now(lp));
	sl_buf_add(o, "\r\n", 2);
	if (resp->content_type && !has_crlf(resp->content_type)) {
		sl_buf_add(o, "Content-Type: ", 14);
		sl_buf_adds(o, resp->content_type);
		sl_buf_add(o, "\r\n", 2);
	}
	for (size_t i = 0; i < resp->nheaders; i++) {
		const sl_http_header *h = &resp->headers[i];
		if (!h->name || !h->value || !*h->name || strpbrk(h->name, "\r\n: \t") ||
		    has_crlf(h->value) || !strcasecmp(h->name, "Content-Length") ||
		    !strcasecmp(h->name, "Date") || !strcasecmp(h->name, "Transfer-Encoding") ||
		    !strcasecmp(h->name, "Connection"))
			continue;
		sl_buf_adds(o, h->name);
		sl_buf_add(o, ": ", 2);
		sl_buf_adds(o, h->value);
		sl_buf_add(o, "\r\n", 2);
	}
	if (!no_body) {
		sl_buf_add(o, "Content-Length: ", 16);
		sl_buf_add(o, num, sl_fmt_u64(num, c->resp_body.len));
		sl_buf_add(o, "\r\n", 2);
	}
	if (!keep)
		sl_buf_add(o, "Connection: close\r\n", 19);
	else if (!c->head.minor)
		sl_buf_add(o, "Connection: keep-alive\r\n", 24);
	sl_buf_add(o, "\r\n", 2);
	if (o->err) {
		/* Headers past SL_HTTP_MAX_RESPONSE_HEAD: a bare 500 instead. */
		sl_buf_reset(o);
		sl_buf_adds(o, "HTTP/1.1 500 Internal Server Error\r\n"
			       "Content-Length: 0\r\nConnection: close\r\n\r\n");
		no_body = true;
		keep = false;
		stat_add(&lp->st.e5xx);
	}
	c->off = 0;
	c->body_send = no_body || head_only ? 0 : c->resp_body.len;
	c->interim = false;
	c->close_after = !keep;
}

static void default_error_body(int status, const char *reason, sl_http_resp *resp)
{
	resp->content_type = "text/plain; charset=utf-8";
	sl_buf_addf(&resp->body, "%d %s: %s\n", status, status_text(status), reason);
}

/* Fill r (whose body is the caller's) with the error response of the service's hook, or ours. */
static void error_response(const sl_http_server *s, int status, const char *reason, sl_http_resp *r)
{
	size_t max = r->body.max;
	*r = (sl_http_resp){ .status = status, .body = r->body };
	sl_buf_reset(&r->body);
	r->body.max = SL_MIN(max, (size_t)ERROR_BODY_MAX);
	if (s->cfg.error)
		s->cfg.error(s->cfg.ctx, status, reason, r);
	if (r->body.err || !s->cfg.error) {
		sl_buf_reset(&r->body);
		r->nheaders = 0;
		default_error_body(status, reason, r);
	}
	r->status = status;
	r->body.max = max;
}

/* The server's own error: answer it, then close gracefully (the connection's framing is lost). */
static void conn_error(conn *c, int status, const char *reason)
{
	loop *lp = c->lp;
	stat_add(status >= 500 ? &lp->st.e5xx : &lp->st.e4xx);
	set_phase(c, PH_NONE);
	sl_http_resp r = { .body = c->resp_body };
	error_response(lp->s, status, reason, &r);
	c->resp_body = r.body;
	put_response(c, &r, false, false);
}

typedef enum { IO_DONE, IO_WAIT, IO_CLOSED } io_result;

/* Send what is pending. WAIT: the socket is full (the connection is now in WRITE). */
static io_result flush(conn *c)
{
	for (;;) {
		size_t total = c->out.len + c->body_send;
		if (c->off >= total)
			return IO_DONE;
		if (!c->writable)
			break;
		struct iovec iov[2];
		int n = 0;
		if (c->off < c->out.len)
			iov[n++] = (struct iovec){ c->out.p + c->off, c->out.len - c->off };
		if (c->body_send) {
			size_t b = c->off > c->out.len ? c->off - c->out.len : 0;
			iov[n++] = (struct iovec){ c->resp_body.p + b, c->body_send - b };
		}
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
		ssize_t w = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				c->writable = false;
				break;
			}
			conn_close(c);
			return IO_CLOSED;
		}
		c->off += (size_t)w;
		if (c->off < total)
			c->writable = false; /* a short write: the socket buffer is full */
	}
	/* A blocked response starts its write deadline; a blocked 100 Continue keeps the body's. */
	if (!c->interim && c->phase != PH_WRITE)
		set_phase(c, PH_WRITE);
	return IO_WAIT;
}

static void start_linger(conn *c)
{
	shutdown(c->fd, SHUT_WR);
	set_phase(c, PH_LINGER);
	c->readable = true;
}

/* Read and drop what a closing client still sends; closed at EOF, error or deadline. */
static void linger_drain(conn *c)
{
	for (int i = 0; i < 64; i++) {
		ssize_t n = read(c->fd, c->lp->scratch, sizeof c->lp->scratch);
		if (n > 0)
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			c->readable = false;
			return;
		}
		conn_close(c);
		return;
	}
	make_ready(c); /* a fast sender: come back after the others */
}

/* A response (or a 100 Continue) has been sent. Returns false when c is gone or lingering. */
static bool after_output(conn *c)
{
	sl_buf_reset(&c->out);
	c->off = c->body_send = 0;
	if (c->interim) {
		c->interim = false;
		return true;
	}
	if (c->resp_body.cap > KEEP_BUF)
		sl_buf_release(&c->resp_body);
	else
		sl_buf_reset(&c->resp_body);
	if (c->close_after) {
		/* Even after a plain "Connection: close": a pipelined request still unread would
		 * make close() send a reset, and a reset can destroy the response in flight. */
		start_linger(c);
		linger_drain(c);
		return false;
	}
	set_phase(c, c->rlen ? PH_HEAD : PH_IDLE);
	if (!c->rlen && c->rcap > RBUF_INITIAL) {
		free(c->rbuf);
		c->rbuf = NULL;
		c->rcap = 0;
	}
	return true;
}

/* ---- requests ---- */

/* The path of a request target, percent-decoded in place; NULL when it decodes to a NUL. */
static const char *target_path(char *t, size_t len, const char **query)
{
	char *q = memchr(t, '?', len);
	size_t plen = q ? (size_t)(q - t) : len;
	*query = q ? q + 1 : "";
	char *p = t;
	/* absolute-form: http://authority/path?query → /path */
	if (plen > 7 && (!strncasecmp(t, "http://", 7) || !strncasecmp(t, "https://", 8))) {
		char *a = t + (t[4] == ':' ? 7 : 8), *slash = memchr(a, '/', plen - (size_t)(a - t));
		if (!slash) {
			if (q)
				*q = 0;
			return "/";
		}
		plen -= (size_t)(slash - t);
		p = slash;
	}
	return sl_http_pct_decode(p, plen, p, false) < 0 ? NULL : p;
}

static void dispatch(conn *c)
{
	loop *lp = c->lp;
	sl_http_server *s = lp->s;
	set_phase(c, PH_NONE);
	char *method = c->rbuf + c->head.method;
	const char *query, *path = target_path(c->rbuf + c->head.target, c->head.target_len, &query);
	if (!path) {
		conn_error(c, 400, "invalid percent-encoding in the path");
		return;
	}
	sl_http_req req = {
		.method = method,
		.path = path,
		.query = query,
		.peer = c->peer,
		.body = c->body.p ? c->body.p : (const uint8_t *)"", /* always NUL-terminated */
		.body_len = c->body.len,
		.arena = &lp->arena,
		.impl = c,
	};
	sl_buf_reset(&c->resp_body);
	sl_http_resp resp = { .status = 200, .body = c->resp_body };
	stat_add(&lp->st.requests);
	s->cfg.handler(s->cfg.ctx, &req, &resp);
	lp->now = now_ms();
	c->resp_body = resp.body;
	bool keep = c->head.keep_alive && !c->eof && !lp->draining;
	put_response(c, &resp, keep, !strcmp(method, "HEAD"));
	sl_arena_release(&lp->arena);
	/* The request is consumed: what follows it (a pipelined request) moves to the front. */
	uint32_t left = c->rlen - c->rpos;
	if (left)
		memmove(c->rbuf, c->rbuf + c->rpos, left);
	c->rlen = left;
	c->rpos = c->head_len = 0;
	c->scanned = 0;
	if (c->body.cap > KEEP_BUF)
		sl_buf_release(&c->body);
	else
		sl_buf_reset(&c->body);
}

/* The head has been parsed: decide how the body comes. */
static void begin_body(conn *c)
{
	sl_http_server *s = c->lp->s;
	c->rpos = c->head_len;
	sl_buf_reset(&c->body);
	c->body.max = s->cfg.max_body;
	if (c->head.chunked) {
		c->ck = (sl_http_chunked){ 0 };
	} else if (c->head.has_length && c->head.content_length) {
		if (c->head.content_length > s->cfg.max_body) {
			/* Refused before a byte of the body is read, and without a 100 Continue. */
			conn_error(c, 413, "request body too large");
			return;
		}
		c->need = c->head.content_length;
	} else {
		dispatch(c);
		return;
	}
	set_phase(c, PH_BODY);
	if (c->head.expect_continue && c->head.minor && c->rpos == c->rlen) {
		sl_buf_reset(&c->out);
		sl_buf_adds(&c->out, "HTTP/1.1 100 Continue\r\n\r\n");
		c->off = c->body_send = 0;
		c->interim = true;
	}
}

typedef enum { STEP_MORE, STEP_WAIT, STEP_GONE } step;

/* Read into rbuf at rlen (growing it up to `limit`). */
static step read_rbuf(conn *c, uint32_t limit)
{
	if (c->rlen == c->rcap) {
		uint32_t cap = c->rcap ? SL_MIN(c->rcap * 2, limit) : RBUF_INITIAL;
		if (cap <= c->rcap)
			return STEP_MORE; /* full: the caller's bound check answers */
		char *p = realloc(c->rbuf, cap);
		if (!p) {
			conn_close(c);
			return STEP_GONE;
		}
		c->rbuf = p;
		c->rcap = cap;
	}
	size_t room = c->rcap - c->rlen;
	ssize_t n = read(c->fd, c->rbuf + c->rlen, room);
	if (n > 0) {
		c->rlen += (uint32_t)n;
		if ((size_t)n < room)
			c->readable = false;
		return STEP_MORE;
	}
	if (n == 0) {
		c->eof = true;
		c->readable = false;
		return STEP_MORE;
	}
	if (errno == EINTR)
		return STEP_MORE;
	if (errno == EAGAIN || errno == EWOULDBLOCK) {
		c->readable = false;
		return STEP_WAIT;
	}
	conn_close(c);
	return STEP_GONE;
}

static step step_head(conn *c)
{
	loop *lp = c->lp;
	/* Empty lines before a request line are skipped (RFC 9112 §2.2). */
	uint32_t k = 0;
	while (k < c->rlen && (c->rbuf[k] == '\r' || c->rbuf[k] == '\n'))
		k++;
	if (k) {
		memmove(c->rbuf, c->rbuf + k, c->rlen - k);
		c->rlen -= k;
		c->scanned = 0;
	}
	if (c->rlen) {
		if (c->phase == PH_IDLE)
			set_phase(c, PH_HEAD); /* the header deadline runs from the first byte */
		size_t end = sl_http_head_end(c->rbuf, c->rlen, &c->scanned);
		if (end > SL_HTTP_MAX_HEADER_BYTES || (!end && c->rlen >= SL_HTTP_MAX_HEADER_BYTES)) {
			conn_error(c, 431, "request header fields too large");
			return STEP_MORE;
		}
		if (end) {
			const char *why;
			int st = sl_http_parse_head(c->rbuf, end, &c->head, &why);
			if (st) {
				conn_error(c, st, why);
				return STEP_MORE;
			}
			c->head_len = (uint32_t)end;
			begin_body(c);
			return STEP_MORE;
		}
	}
	if (c->eof) {
		conn_close(c); /* the client left, with no request or half of one */
		return STEP_GONE;
	}
	if (!c->readable)
		return STEP_WAIT;
	step r = read_rbuf(c, SL_HTTP_MAX_HEADER_BYTES);
	/* Shutting down, and no request has begun: an idle kept-alive connection closes now; one
	 * accepted before the signal (PH_HEAD with nothing read) may still be sending its first. */
	if (r == STEP_WAIT && lp->draining && !c->rlen &&
	    (c->phase == PH_IDLE || lp->now >= lp->fresh_until)) {
		conn_close(c);
		return STEP_GONE;
	}
	return r;
}

static step step_body(conn *c)
{
	if (c->head.chunked) {
		if (c->rpos < c->rlen) {
			int st;
			const char *why;
			size_t used = sl_http_chunked_decode(&c->ck, (const uint8_t *)c->rbuf + c->rpos,
							     c->rlen - c->rpos, &c->body, &st, &why);
			c->rpos += (uint32_t)used;
			if (st)
				conn_error(c, st, why);
			else if (sl_http_chunked_done(&c->ck))
				dispatch(c);
			return STEP_MORE;
		}
		c->rlen = c->rpos = c->head_len; /* all decoded: read the next bytes after the head */
		if (c->eof) {
			conn_close(c);
			return STEP_GONE;
		}
		return c->readable ? read_rbuf(c, RBUF_MAX) : STEP_WAIT;
	}
	if (c->rpos < c->rlen) {
		uint32_t take = (uint32_t)SL_MIN((uint64_t)(c->rlen - c->rpos), c->need);
		sl_buf_add(&c->body, c->rbuf + c->rpos, take);
		c->rpos += take;
		c->need -= take;
	}
	if (!c->need) {
		if (c->body.err)
			conn_error(c, 500, "out of memory");
		else
			dispatch(c);
		return STEP_MORE;
	}
	if (c->eof) {
		conn_close(c);
		return STEP_GONE;
	}
	if (!c->readable)
		return STEP_WAIT;
	/* Straight into the body, never past it: a pipelined request stays in the socket. */
	size_t want = (size_t)SL_MIN(c->need, (uint64_t)(256u << 10));
	if (!sl_buf_reserve(&c->body, want)) {
		conn_error(c, 500, "out of memory");
		return STEP_MORE;
	}
	ssize_t n = read(c->fd, c->body.p + c->body.len, want);
	if (n > 0) {
		c->body.len += (size_t)n;
		c->body.p[c->body.len] = 0;
		c->need -= (uint64_t)n;
		if ((size_t)n < want)
			c->readable = false;
		return STEP_MORE;
	}
	if (n == 0) {
		conn_close(c);
		return STEP_GONE;
	}
	if (errno == EINTR)
		return STEP_MORE;
	if (errno == EAGAIN || errno == EWOULDBLOCK) {
		c->readable = false;
		return STEP_WAIT;
	}
	conn_close(c);
	return STEP_GONE;
}

/* Do everything the connection can do now, up to a fair share. */
static void conn_run(conn *c)
{
	for (int round = 0;; round++) {
		if (c->out.len) { /* a response (or a 100 Continue) is on its way */
			io_result r = flush(c);
			if (r != IO_DONE || !after_output(c))
				return;
		}
		if (c->phase == PH_LINGER) {
			if (c->readable)
				linger_drain(c);
			return;
		}
		if (round >= ROUNDS) {
			make_ready(c);
			return;
		}
		step r = c->phase == PH_BODY ? step_body(c) : step_head(c);
		if (r != STEP_MORE)
			return;
	}
}

/* ---- the connection cap ---- */

/* Close the idlest connection that may be closed; false when none may. */
static bool evict_one(loop *lp)
{
	static const uint8_t order[] = { PH_LINGER, PH_IDLE, PH_HEAD, PH_BODY };
	for (size_t i = 0; i < SL_ARRAY_LEN(order); i++) {
		conn *c = lp->lists[order[i]].head;
		if (c) {
			stat_add(&lp->st.evicted);
			/* Drop what the client sent that was not read yet: closing over unread
			 * bytes makes the kernel reset the connection instead of ending it. */
			char junk[4096];
			for (int n = 0; n < 64 && recv(c->fd, junk, sizeof junk, MSG_DONTWAIT) > 0; n++) {
			}
			conn_close(c);
			return true;
		}
	}
	return false;
}

/* No room: a best-effort 503 on a socket nothing has been sent on yet, then close. */
static void refuse(loop *lp, int fd)
{
	sl_http_resp r = { 0 };
	sl_buf_init(&r.body, ERROR_BODY_MAX);
	error_response(lp->s, 503, "too many connections", &r);
	char head[512];
	int n = snprintf(head, sizeof head,
			 "HTTP/1.1 503 Service Unavailable\r\nDate: %s\r\nContent-Type: %.256s\r\n"
			 "Content-Length: %zu\r\nConnection: close\r\n\r\n",
			 date_now(lp),
			 r.content_type && !has_crlf(r.content_type) ? r.content_type : "text/plain",
			 r.body.len);
	struct iovec iov[2] = { { head, (size_t)SL_MIN(n, (int)sizeof head - 1) }, { r.body.p, r.body.len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = r.body.len ? 2 : 1 };
	if (sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) > 0) {
		shutdown(fd, SHUT_WR);
		while (read(fd, lp->scratch, sizeof lp->scratch) > 0) {
		}
	}
	sl_buf_release(&r.body);
	close(fd);
	stat_add(&lp->st.refused);
	stat_add(&lp->st.e5xx);
}

/* Take over an accepted socket (counted in lp->nconn and s->open already). While shutting down,
 * one arrives only ahead of the loop's message to drain (accept_batch), and is served. */
static void adopt(loop *lp, int fd, const char *peer)
{
	sl_http_server *s = lp->s;
	if (atomic_load_explicit(&s->open, memory_order_relaxed) > s->cap && !evict_one(lp)) {
		refuse(lp, fd);
		goto uncount;
	}
	int one = 1;
	/* Multi-segment replies must not wait on Nagle and delayed ACKs. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	conn *c = calloc(1, sizeof *c);
	if (!c) {
		close(fd);
		goto uncount;
	}
	c->lp = lp;
	c->fd = fd;
	c->phase = PH_NONE;
	c->writable = true;
	snprintf(c->peer, sizeof c->peer, "%s", peer);
	sl_buf_init(&c->body, s->cfg.max_body);
	sl_buf_init(&c->out, SL_HTTP_MAX_RESPONSE_HEAD);
	sl_buf_init(&c->resp_body, SL_HTTP_MAX_RESPONSE);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLET, .data.ptr = c };
	if (epoll_ctl(lp->ep, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		free(c);
		goto uncount;
	}
	lp->nlocal++;
	set_phase(c, PH_HEAD); /* the first request's header deadline runs from accept */
	return;
uncount:
	atomic_fetch_sub_explicit(&lp->nconn, 1, memory_order_relaxed);
	atomic_fetch_sub_explicit(&s->open, 1, memory_order_relaxed);
}

static void peer_text(const struct sockaddr_storage *sa, char out[INET6_ADDRSTRLEN])
{
	out[0] = 0;
	if (sa->ss_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, INET6_ADDRSTRLEN);
	} else if (sa->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		if (IN6_IS_ADDR_V4MAPPED(a)) /* a v4 client of a dual-stack socket: show it as v4 */
			inet_ntop(AF_INET, &a->s6_addr[12], out, INET6_ADDRSTRLEN);
		else
			inet_ntop(AF_INET6, a, out, INET6_ADDRSTRLEN);
	}
}

static void listen_off(loop *lp, int64_t until)
{
	if (lp->listening)
		epoll_ctl(lp->ep, EPOLL_CTL_DEL, lp->s->lfd, NULL);
	lp->listening = false;
	lp->relisten_at = until;
}

static void listen_on(loop *lp)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = &listen_tag };
	if (epoll_ctl(lp->ep, EPOLL_CTL_ADD, lp->s->lfd, &ev) && errno == EINVAL) {
		ev.events = EPOLLIN; /* a kernel without EPOLLEXCLUSIVE: every loop wakes, one wins */
		epoll_ctl(lp->ep, EPOLL_CTL_ADD, lp->s->lfd, &ev);
	}
	lp->listening = true;
	lp->relisten_at = 0;
}

/* The loop with the fewest connections: `lp` on a tie; without it (the server's owner, shutting
 * down, once every loop has started or failed to), of those running. */
static loop *least_loaded(sl_http_server *s, loop *lp)
{
	loop *t = lp;
	unsigned best = lp ? atomic_load_explicit(&lp->nconn, memory_order_relaxed) : UINT_MAX;
	for (unsigned k = 0; k < s->nloops; k++) {
		unsigned n = atomic_load_explicit(&s->loops[k].nconn, memory_order_relaxed);
		if ((lp || s->loops[k].running) && (n < best || !t)) {
			best = n;
			t = &s->loops[k];
		}
	}
	return t;
}

/* The next connection of the listening socket's queue (-1 with errno when there is none). */
static int accept_next(sl_http_server *s, handoff *h)
{
	for (;;) {
		struct sockaddr_storage sa;
		socklen_t sl = sizeof sa;
		int fd = accept4(s->lfd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0) {
			*h = (handoff){ .fd = fd };
			peer_text(&sa, h->peer);
			return fd;
		}
		if (errno != EINTR && errno != ECONNABORTED)
			return -1;
	}
}

/* An accepted connection, counted, to the loop with the fewest connections: through its pipe, or
 * adopted by `lp` (the loop that accepted it) when that is the one or the pipe is full. Without
 * `lp` (the server's owner, shutting down) one no pipe takes is closed. */
static void hand_over(sl_http_server *s, loop *lp, const handoff *h)
{
	loop *t = least_loaded(s, lp);
	if (!t) {
		close(h->fd);
		return;
	}
	stat_add(&t->st.accepted);
	atomic_fetch_add_explicit(&s->open, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&t->nconn, 1, memory_order_relaxed);
	if (t != lp) {
		if (write(t->pipe_w, h, sizeof *h) == (ssize_t)sizeof *h)
			return;
		atomic_fetch_sub_explicit(&t->nconn, 1, memory_order_relaxed);
		if (!lp) {
			close(h->fd);
			atomic_fetch_sub_explicit(&s->open, 1, memory_order_relaxed);
			return;
		}
		atomic_fetch_add_explicit(&lp->nconn, 1, memory_order_relaxed);
	}
	adopt(lp, h->fd, h->peer);
}

static void accept_some(loop *lp)
{
	sl_http_server *s = lp->s;
	for (int i = 0; i < ACCEPT_BATCH; i++) {
		handoff h;
		if (accept_next(s, &h) < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				/* Out of descriptors: free one if we may, else stop accepting for a moment
				 * (the listening socket would otherwise wake this loop without end). */
				if (evict_one(lp))
					continue;
				listen_off(lp, lp->now + 100);
			} else if (errno != EAGAIN && errno != EWOULDBLOCK && atomic_load(&s->draining)) {
				listen_off(lp, 0);
			}
			return;
		}
		hand_over(s, lp, &h);
	}
}

/* Not once shutting down has begun: sl_http_server_free takes the queue itself, and waits for a
 * batch under way, so that every connection a loop hands over reaches the other loop's pipe
 * before its message to drain (after it, the connection would be closed unserved). */
static void accept_batch(loop *lp)
{
	sl_http_server *s = lp->s;
	atomic_fetch_add(&s->accepting, 1);
	if (!atomic_load(&s->draining))
		accept_some(lp);
	else
		listen_off(lp, 0);
	atomic_fetch_sub(&s->accepting, 1);
}

/* ---- the loop ---- */

/* Connections in these phases with no request begun close once a read confirms nothing has
 * arrived (step_head says which may still wait). */
static void sweep_unbegun(loop *lp, int from, int to)
{
	for (int ph = from; ph <= to; ph++)
		for (conn *c = lp->lists[ph].head; c; c = c->ph.next)
			if (!c->rlen) {
				c->readable = true;
				make_ready(c);
			}
}

static void begin_drain(loop *lp)
{
	lp->draining = true;
	lp->drain_until = lp->now + SL_HTTP_DRAIN_SECONDS * 1000;
	lp->fresh_until = SL_MIN(lp->drain_until, lp->now + SL_HTTP_DRAIN_FRESH_MS);
	listen_off(lp, 0);
	sweep_unbegun(lp, PH_IDLE, PH_HEAD);
}

static void read_pipe(loop *lp)
{
	handoff h[32];
	for (;;) {
		ssize_t n = read(lp->pipe_r, h, sizeof h);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return;
		}
		for (size_t i = 0; i < (size_t)n / sizeof h[0]; i++) {
			if (h[i].fd < 0)
				begin_drain(lp);
			else
				adopt(lp, h[i].fd, h[i].peer);
		}
	}
}

static void run_ready(loop *lp)
{
	/* Only those ready now: a connection put back during this pass waits for the next one. */
	conn *last = lp->ready.tail;
	while (lp->ready.head) {
		conn *c = lp->ready.head;
		list_unlink(&lp->ready, &c->rd, offsetof(conn, rd));
		c->in_ready = false;
		bool end = c == last;
		conn_run(c);
		if (end)
			break;
	}
}

static void on_deadline(conn *c)
{
	loop *lp = c->lp;
	uint8_t ph = c->phase;
	stat_add(&lp->st.timeouts[ph]);
	if (c->interim && c->out.len) {
		conn_close(c); /* not even reading the 100 Continue it asked for */
	} else if ((ph == PH_HEAD && c->rlen) || ph == PH_BODY) {
		conn_error(c, 408,
			   ph == PH_HEAD ? "request headers not received in time"
					 : "request body not received in time");
		conn_run(c);
	} else {
		conn_close(c); /* idle, a first request that never began, an unread response, lingering */
	}
}

static int wait_ms(loop *lp)
{
	if (lp->ready.head)
		return 0;
	int64_t next = INT64_MAX;
	for (int ph = 0; ph < NLISTS; ph++)
		if (lp->lists[ph].head)
			next = SL_MIN(next, lp->lists[ph].head->deadline);
	if (lp->draining)
		next = SL_MIN(next, lp->fresh_swept ? lp->drain_until : lp->fresh_until);
	if (!lp->listening && lp->relisten_at)
		next = SL_MIN(next, lp->relisten_at);
	if (next == INT64_MAX)
		return -1;
	return next <= lp->now ? 0 : (int)SL_MIN(next - lp->now, (int64_t)60000);
}

static void *loop_main(void *arg)
{
	loop *lp = arg;
	struct epoll_event evs[128];
	for (;;) {
		lp->now = now_ms();
		int n = epoll_wait(lp->ep, evs, (int)SL_ARRAY_LEN(evs), wait_ms(lp));
		lp->now = now_ms();
		bool ctl = false, acc = false;
		for (int i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;
			if (p == &listen_tag) {
				acc = true;
			} else if (p == &pipe_tag) {
				ctl = true;
			} else {
				conn *c = p;
				uint32_t e = evs[i].events;
				if (e & (EPOLLIN | EPOLLHUP | EPOLLERR))
					c->readable = true;
				if (e & (EPOLLOUT | EPOLLHUP | EPOLLERR))
					c->writable = true;
				conn_run(c);
			}
		}
		/* After the connections' events, so no event of this batch names a closed one. */
		if (ctl)
			read_pipe(lp);
		if (acc && lp->listening && !lp->draining)
			accept_batch(lp);
		if (!lp->listening && !lp->draining && lp->relisten_at && lp->now >= lp->relisten_at)
			listen_on(lp);
		if (lp->draining && !lp->fresh_swept && lp->now >= lp->fresh_until) {
			lp->fresh_swept = true; /* accepted before the signal, and still silent */
			sweep_unbegun(lp, PH_HEAD, PH_HEAD);
		}
		run_ready(lp);
		lp->now = now_ms();
		for (int ph = 0; ph < NLISTS; ph++)
			while (lp->lists[ph].head && lp->lists[ph].head->deadline <= lp->now)
				on_deadline(lp->lists[ph].head);
		if (lp->draining && (!lp->nlocal || lp->now >= lp->drain_until))
			break;
	}
	for (int ph = 0; ph < NLISTS; ph++)
		while (lp->lists[ph].head)
			conn_close(lp->lists[ph].head);
	return NULL;
}

/* ---- the server ---- */

static void loop_release(loop *lp)
{
	if (lp->pipe_r >= 0) {
		handoff h;
		/* Connections handed over after this loop stopped. */
		while (read(lp->pipe_r, &h, sizeof h) == (ssize_t)sizeof h)
			if (h.fd >= 0)
				close(h.fd);
		close(lp->pipe_r);
	}
	if (lp->pipe_w >= 0)
		close(lp->pipe_w);
	if (lp->ep >= 0)
		close(lp->ep);
	sl_arena_release(&lp->arena);
}

static sl_err open_listener(sl_http_server *s, char err[256])
{
	const sl_http_config *cfg = &s->cfg;
	const char *host = cfg->host && *cfg->host ? cfg->host : "127.0.0.1";
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(cfg->port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(cfg->port) };
	struct sockaddr *sa = (struct sockaddr *)&a4;
	socklen_t salen = sizeof a4;
	bool v6 = false;
	if (!strcmp(host, "localhost")) {
		inet_pton(AF_INET, "127.0.0.1", &a4.sin_addr);
	} else if (inet_pton(AF_INET, host, &a4.sin_addr) != 1) {
		if (inet_pton(AF_INET6, host, &a6.sin6_addr) != 1) {
			snprintf(err, 256, "http-host %s is not an IP address", host);
			return SL_ERR_INVALID;
		}
		sa = (struct sockaddr *)&a6;
		salen = sizeof a6;
		v6 = true;
	}
	s->lfd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;
	/* SO_REUSEADDR lets a restarted node bind past its old connections in TIME_WAIT. Never
	 * SO_REUSEPORT: with it a second process binds the same port and takes half the clients. */
	if (s->lfd < 0 || setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
	    bind(s->lfd, sa, salen) || listen(s->lfd, 4096)) {
		snprintf(err, 256, v6 ? "cannot listen on [%s]:%u: %s" : "cannot listen on %s:%u: %s", host,
			 cfg->port, strerror(errno));
		return SL_ERR_IO;
	}
	struct sockaddr_storage bound;
	socklen_t bl = sizeof bound;
	s->port = cfg->port;
	if (!getsockname(s->lfd, (struct sockaddr *)&bound, &bl))
		s->port = ntohs(v6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
				   : ((struct sockaddr_in *)&bound)->sin_port);
	return SL_OK;
}

sl_http_server *sl_http_server_new(const sl_http_config *cfg, char err[256])
{
	sl_http_server *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, 256, "out of memory");
		return NULL;
	}
	s->lfd = -1;
	s->cfg = *cfg;
	if (!s->cfg.max_body || s->cfg.max_body > SL_HTTP_MAX_BODY_HARD)
		s->cfg.max_body = SL_HTTP_MAX_BODY_DEFAULT;
	unsigned tmo[NLISTS] = { cfg->idle_timeout_ms, cfg->header_timeout_ms, cfg->body_timeout_ms,
				 cfg->write_timeout_ms, SL_HTTP_LINGER_MS };
	const unsigned def[NLISTS] = { SL_HTTP_IDLE_TIMEOUT_MS, SL_HTTP_HEADER_TIMEOUT_MS,
				       SL_HTTP_BODY_TIMEOUT_MS, SL_HTTP_WRITE_TIMEOUT_MS, SL_HTTP_LINGER_MS };
	for (int i = 0; i < NLISTS; i++)
		s->tmo[i] = tmo[i] ? SL_MIN(tmo[i], SL_HTTP_MAX_TIMEOUT_MS) : def[i];
	s->cap = cfg->max_connections ? cfg->max_connections : SL_HTTP_MAX_CONNECTIONS;
	/* Hold the cap within the descriptors the process may open, leaving some for the rest. */
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    (rlim_t)s->cap + SL_HTTP_FD_RESERVE > rl.rlim_cur)
		s->cap = rl.rlim_cur > 2 * SL_HTTP_FD_RESERVE ? (unsigned)(rl.rlim_cur - SL_HTTP_FD_RESERVE)
							      : SL_MAX((unsigned)rl.rlim_cur / 2, 1u);
	s->nloops = cfg->threads;
	if (!s->nloops) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		s->nloops = n > 0 ? (unsigned)SL_MIN(n, 256) : 2;
	}
	if (open_listener(s, err))
		goto fail;
	s->loops = calloc(s->nloops, sizeof *s->loops);
	if (!s->loops) {
		snprintf(err, 256, "out of memory");
		goto fail;
	}
	for (unsigned i = 0; i < s->nloops; i++)
		s->loops[i].ep = s->loops[i].pipe_r = s->loops[i].pipe_w = -1;
	for (unsigned i = 0; i < s->nloops; i++) {
		loop *lp = &s->loops[i];
		int p[2] = { -1, -1 };
		lp->s = s;
		lp->ep = epoll_create1(EPOLL_CLOEXEC);
		if (pipe2(p, O_NONBLOCK | O_CLOEXEC) == 0) {
			lp->pipe_r = p[0];
			lp->pipe_w = p[1];
		} else {
			lp->pipe_r = lp->pipe_w = -1;
		}
		sl_arena_init(&lp->arena, SL_HTTP_MAX_ARENA);
		for (int ph = 0; ph < NLISTS; ph++)
			lp->lists[ph] = (clist){ 0 };
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &pipe_tag };
		if (lp->ep < 0 || lp->pipe_r < 0 || epoll_ctl(lp->ep, EPOLL_CTL_ADD, lp->pipe_r, &ev)) {
			snprintf(err, 256, "cannot start the HTTP server: %s", strerror(errno));
			goto fail;
		}
		listen_on(lp);
	}
	for (unsigned i = 0; i < s->nloops; i++) {
		if (pthread_create(&s->loops[i].th, NULL, loop_main, &s->loops[i])) {
			snprintf(err, 256, "cannot start the HTTP server's threads");
			goto fail;
		}
		s->loops[i].running = true;
	}
	return s;
fail:
	sl_http_server_free(s);
	return NULL;
}

uint16_t sl_http_server_port(const sl_http_server *s) { return s->port; }

void sl_http_server_stats(const sl_http_server *s, sl_http_stats *out)
{
	*out = (sl_http_stats){ .open = atomic_load(&s->open), .max_connections = s->cap };
	for (unsigned i = 0; i < s->nloops; i++) {
		const loop_stats *st = &s->loops[i].st;
		out->accepted += atomic_load(&st->accepted);
		out->evicted += atomic_load(&st->evicted);
		out->refused += atomic_load(&st->refused);
		out->timeout_idle += atomic_load(&st->timeouts[PH_IDLE]);
		out->timeout_header += atomic_load(&st->timeouts[PH_HEAD]);
		out->timeout_body += atomic_load(&st->timeouts[PH_BODY]);
		out->timeout_write += atomic_load(&st->timeouts[PH_WRITE]);
		out->requests += atomic_load(&st->requests);
		out->errors_4xx += atomic_load(&st->e4xx);
		out->errors_5xx += atomic_load(&st->e5xx);
	}
}

/*
 * Shutting down: the connections the kernel completed before it, which wait in the listening
 * socket's queue, go to the loops ahead of their message to drain, so a client that connected
 * before the signal is served (step_head gives its first request SL_HTTP_DRAIN_FRESH_MS to begin).
 */
static void accept_backlog(sl_http_server *s)
{
	handoff h;
	for (unsigned i = 0; i <= s->cap && accept_next(s, &h) >= 0; i++)
		hand_over(s, NULL, &h);
}

void sl_http_server_free(sl_http_server *s)
{
	if (!s)
		return;
	/* Stop accepting at once: a listening socket shut down refuses new connections, and resets
	 * those in its queue, so these are taken over first. */
	atomic_store(&s->draining, true);
	if (s->lfd >= 0) {
		accept_backlog(s);
		shutdown(s->lfd, SHUT_RDWR);
	}
	while (atomic_load(&s->accepting)) { /* a loop's batch, begun before the flag, hands over */
		struct timespec ts = { 0, 100000 };
		nanosleep(&ts, NULL);
	}
	for (unsigned i = 0; s->loops && i < s->nloops; i++) {
		loop *lp = &s->loops[i];
		if (!lp->running)
			continue;
		/* Each loop finishes what is in flight (up to SL_HTTP_DRAIN_SECONDS), then closes all. */
		handoff h = { .fd = -1 };
		while (write(lp->pipe_w, &h, sizeof h) < 0 && (errno == EINTR || errno == EAGAIN)) {
			struct timespec ts = { 0, 1000000 };
			nanosleep(&ts, NULL);
		}
	}
	for (unsigned i = 0; s->loops && i < s->nloops; i++)
		if (s->loops[i].running)
			pthread_join(s->loops[i].th, NULL);
	for (unsigned i = 0; s->loops && i < s->nloops; i++)
		loop_release(&s->loops[i]);
	free(s->loops);
	if (s->lfd >= 0)
		close(s->lfd);
	free(s);
}

/* ---- accessors ---- */

const char *sl_http_req_header(const sl_http_req *req, const char *name)
{
	const conn *c = req->impl;
	return sl_http_head_field(&c->head, c->rbuf, name);
}

bool sl_http_req_has_header(const sl_http_req *req, const char *name)
{
	return sl_http_req_header(req, name) != NULL;
}

const char *sl_http_req_query(const sl_http_req *req, const char *name)
{
	size_t nl = strlen(name);
	for (const char *q = req->query; *q;) {
		size_t len = strcspn(q, "&");
		const char *eq = memchr(q, '=', len);
		size_t kl = eq ? (size_t)(eq - q) : len;
		char *key = sl_arena_alloc(req->arena, kl + 1);
		if (!key)
			return NULL;
		if (sl_http_pct_decode(q, kl, key, true) == (ptrdiff_t)nl && !memcmp(key, name, nl)) {
			if (!eq)
				return "";
			size_t vl = len - kl - 1;
			char *val = sl_arena_alloc(req->arena, vl + 1);
			return val && sl_http_pct_decode(eq + 1, vl, val, true) >= 0 ? val : NULL;
		}
		q += len;
		if (*q)
			q++;
	}
	return NULL;
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
