/*
 * pool.c — the client side (p2p.h): pooled links to validators and
 * concurrent, deadline-bound ACP-118 signature requests over them.
 */
#include "p2p/conn.h"

#include "util/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct pooled {
	uint8_t node_id[20];
	sl_p2p_conn *conn;
	int64_t last_used_ms;
} pooled;

struct sl_p2p_pool {
	sl_p2p_identity id;
	sl_p2p_self self;
	sl_tls_ctx *tls;
	int connect_timeout_ms;
	size_t max_conns;
	pthread_mutex_t mu; /* guards idle, n_idle, next_request_id */
	pooled *idle;	    /* links not in use, at most max_conns */
	size_t n_idle;
	uint32_t next_request_id;
};

static sl_logger *logger(void) { return sl_log_get("p2p"); }

sl_p2p_pool *sl_p2p_pool_new(const sl_p2p_config *cfg)
{
	if (!cfg || !cfg->identity)
		return NULL;
	sl_p2p_pool *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->id = *cfg->identity;
	p->self.id = &p->id;
	p->self.network_id = cfg->network_id;
	p->connect_timeout_ms = cfg->connect_timeout_ms > 0 ? cfg->connect_timeout_ms : 2000;
	p->max_conns = cfg->max_conns ? SL_MIN(cfg->max_conns, (size_t)SL_P2P_TARGETS_MAX) : 1024;
	/* avalanchego refuses a handshake whose port is 0: claim port 1 when we listen on none. */
	uint16_t port = cfg->claimed_port ? cfg->claimed_port : 1;
	if (sl_p2p_self_ip(&p->self, cfg->claimed_host ? cfg->claimed_host : "127.0.0.1", port)) {
		SL_LOG(logger(), SL_WARN, "p2p: claimed host %s is not an IP literal", cfg->claimed_host);
		free(p);
		return NULL;
	}
	p->idle = calloc(p->max_conns, sizeof *p->idle);
	p->tls = sl_tls_ctx_new(&p->id.key, p->id.cert, p->id.cert_len, false);
	if (!p->idle || !p->tls) {
		sl_tls_ctx_free(p->tls);
		free(p->idle);
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->mu, NULL);
	return p;
}

void sl_p2p_pool_free(sl_p2p_pool *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_idle; i++)
		sl_p2p_conn_free(p->idle[i].conn);
	pthread_mutex_destroy(&p->mu);
	sl_tls_ctx_free(p->tls);
	free(p->idle);
	memset(&p->id, 0, sizeof p->id);
	free(p);
}

/*
 * A link idle this long is not reused: avalanchego closes a link it has read nothing from for its
 * ping-pong timeout (30 s by default), and we do not ping idle links.
 */
#define IDLE_REUSE_MS 20000

/* An idle link to node_id, taken out of the pool; NULL when there is none (or only a stale one). */
static sl_p2p_conn *checkout(sl_p2p_pool *p, const uint8_t node_id[20])
{
	sl_p2p_conn *c = NULL;
	int64_t used = 0;
	pthread_mutex_lock(&p->mu);
	for (size_t i = 0; i < p->n_idle; i++)
		if (!memcmp(p->idle[i].node_id, node_id, 20)) {
			c = p->idle[i].conn;
			used = p->idle[i].last_used_ms;
			p->idle[i] = p->idle[--p->n_idle];
			break;
		}
	pthread_mutex_unlock(&p->mu);
	if (c && sl_tls_now_ms() - used > IDLE_REUSE_MS) {
		sl_p2p_conn_free(c);
		c = NULL;
	}
	return c;
}

/* Put a healthy link back; the least recently used one goes when the pool is full. */
static void checkin(sl_p2p_pool *p, sl_p2p_conn *c)
{
	sl_p2p_conn *drop = NULL;
	int64_t now = sl_tls_now_ms();
	pthread_mutex_lock(&p->mu);
	if (p->n_idle == p->max_conns) {
		size_t lru = 0;
		for (size_t i = 1; i < p->n_idle; i++)
			if (p->idle[i].last_used_ms < p->idle[lru].last_used_ms)
				lru = i;
		drop = p->idle[lru].conn;
		p->idle[lru] = p->idle[--p->n_idle];
	}
	pooled *e = &p->idle[p->n_idle++];
	memcpy(e->node_id, c->peer_node_id, 20);
	e->conn = c;
	e->last_used_ms = now;
	pthread_mutex_unlock(&p->mu);
	sl_p2p_conn_free(drop);
}

/* TCP connect to host:port by the deadline; the socket, or -1 with *err. */
static int tcp_connect(const char *host, uint16_t port, int64_t deadline_ms, sl_err *err)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	memset(&ss, 0, sizeof ss);
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		sl = sizeof *a4;
	} else if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		sl = sizeof *a6;
	} else {
		*err = SL_ERR_INVALID;
		return -1;
	}
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*err = SL_ERR_IO;
		return -1;
	}
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (connect(fd, (struct sockaddr *)&ss, sl) == 0)
		return fd;
	if (errno != EINPROGRESS) {
		close(fd);
		*err = SL_ERR_UNAVAILABLE;
		return -1;
	}
	for (;;) {
		int64_t left = deadline_ms - sl_tls_now_ms();
		if (left <= 0) {
			close(fd);
			*err = SL_ERR_TIMEOUT;
			return -1;
		}
		struct pollfd pf = { .fd = fd, .events = POLLOUT };
		int r = poll(&pf, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		int soerr = 0;
		socklen_t el = sizeof soerr;
		if (r > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &el) == 0 && soerr == 0)
			return fd;
		if (r == 0)
			continue;
		close(fd);
		*err = SL_ERR_UNAVAILABLE;
		return -1;
	}
}

/* A new link to t: TCP, TLS (the certificate must be t's node id), the p2p handshake. */
static sl_err dial(sl_p2p_pool *p, const sl_p2p_target *t, int64_t deadline_ms, sl_p2p_conn **out)
{
	*out = NULL;
	int64_t dl = SL_MIN(deadline_ms, sl_tls_now_ms() + p->connect_timeout_ms);
	sl_err err = SL_OK;
	int fd = tcp_connect(t->host, t->port, dl, &err);
	if (fd < 0)
		return err;
	sl_tls *tls;
	if ((err = sl_tls_handshake(p->tls, fd, dl, &tls)))
		return err;
	size_t cert_len;
	const uint8_t *cert = sl_tls_peer_cert(tls, &cert_len);
	uint8_t nid[20];
	sl_staking_node_id(cert, cert_len, nid);
	if (memcmp(nid, t->node_id, 20)) {
		sl_tls_free(tls);
		return SL_ERR_CHECKSUM;
	}
	err = sl_p2p_conn_open(&p->self, tls, dl, out);
	if (err)
		sl_tls_free(tls);
	return err == SL_ERR_TIMEOUT || err == SL_ERR_CHECKSUM || err == SL_ERR_NOMEM ? err
	       : err								      ? SL_ERR_UNAVAILABLE
										      : SL_OK;
}

/* One call's shared state. */
typedef struct job {
	sl_p2p_pool *pool;
	const sl_p2p_target *targets;
	size_t n;
	const sl_p2p_sign_request *req;
	const uint8_t *app;
	size_t app_len;
	int64_t start_ms, deadline_ms;
	sl_p2p_answer_fn cb;
	void *ctx;
	pthread_mutex_t mu; /* guards next, stop, live[], and serializes cb */
	size_t next;
	bool stop;
	sl_p2p_conn **live; /* per worker: the link in use, for a stop to wake */
} job;

/* Ask one target over c; the answer in *a. */
static sl_err ask(job *j, size_t w, sl_p2p_conn *c, sl_p2p_answer *a, char *errmsg, size_t errcap)
{
	uint32_t rid;
	pthread_mutex_lock(&j->pool->mu);
	rid = ++j->pool->next_request_id;
	pthread_mutex_unlock(&j->pool->mu);
	int64_t left = j->deadline_ms - sl_tls_now_ms();
	if (left <= 0)
		return SL_ERR_TIMEOUT;
	sl_p2p_msg m = { .op = SL_P2P_OP_APP_REQUEST };
	m.app.chain_id = (sl_p2p_bytes){ j->req->chain_id, 32 };
	m.app.request_id = rid;
	m.app.deadline = (uint64_t)left * 1000000u;
	m.app.bytes = (sl_p2p_bytes){ j->app, j->app_len };
	pthread_mutex_lock(&j->mu);
	bool stopped = j->stop;
	if (!stopped)
		j->live[w] = c;
	pthread_mutex_unlock(&j->mu);
	if (stopped)
		return SL_ERR_TIMEOUT;
	sl_err err = sl_p2p_conn_send(c, &m, j->deadline_ms);
	while (!err) {
		sl_p2p_msg r;
		err = sl_p2p_conn_recv(c, &r, j->deadline_ms);
		if (!err && (r.op == SL_P2P_OP_APP_RESPONSE || r.op == SL_P2P_OP_APP_ERROR) &&
		    r.app.request_id == rid && r.app.chain_id.n == 32 &&
		    !memcmp(r.app.chain_id.p, j->req->chain_id, 32)) {
			if (r.op == SL_P2P_OP_APP_ERROR) {
				a->app_error_code = r.app.error_code;
				snprintf(errmsg, errcap, "%s", r.app.error_message);
				err = SL_ERR_CONFLICT;
			} else {
				err = sl_p2p_sigresp_decode(r.app.bytes.p, r.app.bytes.n, a->signature)
					      ? SL_ERR_INVALID
					      : SL_OK;
			}
			sl_p2p_msg_clear(&r);
			break;
		}
		if (err == SL_ERR_INVALID || err == SL_ERR_TOO_LARGE)
			err = SL_ERR_UNAVAILABLE; /* a link that sends garbage is dropped */
		sl_p2p_msg_clear(&r);
	}
	pthread_mutex_lock(&j->mu);
	j->live[w] = NULL;
	pthread_mutex_unlock(&j->mu);
	return err;
}

static sl_err do_target(job *j, size_t w, const sl_p2p_target *t, sl_p2p_answer *a, char *errmsg,
			size_t errcap)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		sl_p2p_conn *c = checkout(j->pool, t->node_id);
		bool reused = c != NULL;
		sl_err err = SL_OK;
		if (!c && (err = dial(j->pool, t, j->deadline_ms, &c)))
			return err;
		err = ask(j, w, c, a, errmsg, errcap);
		if (!err || err == SL_ERR_CONFLICT || err == SL_ERR_INVALID) {
			checkin(j->pool, c); /* the link is fine: it answered */
			return err;
		}
		sl_p2p_conn_free(c);
		/* A pooled link may have been closed by the peer while idle: one more try on a fresh one. */
		pthread_mutex_lock(&j->mu);
		bool stopped = j->stop;
		pthread_mutex_unlock(&j->mu);
		if (!reused || err == SL_ERR_TIMEOUT || stopped)
			return err;
	}
	return SL_ERR_UNAVAILABLE;
}

typedef struct worker_arg {
	job *j;
	size_t w;
} worker_arg;

static void *worker(void *arg)
{
	worker_arg *wa = arg;
	job *j = wa->j;
	char errmsg[256];
	for (;;) {
		pthread_mutex_lock(&j->mu);
		size_t i = j->stop ? j->n : j->next++;
		pthread_mutex_unlock(&j->mu);
		if (i >= j->n)
			break;
		sl_p2p_answer a = { .index = i, .node_id = j->targets[i].node_id };
		errmsg[0] = 0;
		a.err = sl_tls_now_ms() >= j->deadline_ms
				? SL_ERR_TIMEOUT
				: do_target(j, wa->w, &j->targets[i], &a, errmsg, sizeof errmsg);
		a.app_error_message = errmsg;
		int64_t el = sl_tls_now_ms() - j->start_ms;
		a.elapsed_ms = (uint32_t)(el < 0 ? 0 : el);
		if (a.err)
			SL_LOG(logger(), SL_DEBUG, "p2p: target %zu (%s:%u): %s %s", i, j->targets[i].host,
			       j->targets[i].port, sl_err_name(a.err), errmsg);
		pthread_mutex_lock(&j->mu);
		if (!j->stop && !j->cb(j->ctx, &a)) {
			j->stop = true;
			size_t nw = j->n; /* workers <= n */
			for (size_t k = 0; k < nw; k++)
				if (j->live[k])
					sl_tls_shutdown(j->live[k]->tls);
		}
		pthread_mutex_unlock(&j->mu);
	}
	return NULL;
}

sl_err sl_p2p_sign_requests(sl_p2p_pool *pool, const sl_p2p_target *targets, size_t n,
			    const sl_p2p_sign_request *req, sl_p2p_answer_fn cb, void *ctx)
{
	if (!pool || !req || !cb || (n && !targets) || !req->message)
		return SL_ERR_INVALID;
	if (n > SL_P2P_TARGETS_MAX || req->message_len > SL_P2P_WARP_MSG_MAX ||
	    req->justification_len > SL_P2P_WARP_MSG_MAX)
		return SL_ERR_TOO_LARGE;
	for (size_t i = 0; i < n; i++)
		if (!memchr(targets[i].host, 0, sizeof targets[i].host))
			return SL_ERR_INVALID;
	if (n == 0)
		return SL_OK;
	job j = { .pool = pool, .targets = targets, .n = n, .req = req, .cb = cb, .ctx = ctx };
	sl_err err = sl_p2p_sigreq_encode(req->message, req->message_len, req->justification,
					  req->justification_len, (uint8_t **)&j.app, &j.app_len);
	if (err)
		return err;
	j.start_ms = sl_tls_now_ms();
	j.deadline_ms = j.start_ms + (req->deadline_ms > 0 ? req->deadline_ms : 5000);
	size_t nw = SL_MIN(n, req->parallel ? req->parallel : 64);
	j.live = calloc(n, sizeof *j.live);
	pthread_t *th = calloc(nw, sizeof *th);
	worker_arg *wa = calloc(nw, sizeof *wa);
	if (!j.live || !th || !wa) {
		free(j.live);
		free(th);
		free(wa);
		free((void *)j.app);
		return SL_ERR_NOMEM;
	}
	pthread_mutex_init(&j.mu, NULL);
	size_t started = 0;
	for (size_t w = 0; w < nw; w++) {
		wa[w] = (worker_arg){ &j, w };
		if (pthread_create(&th[w], NULL, worker, &wa[w]) != 0)
			break;
		started++;
	}
	if (started == 0)
		worker(&(worker_arg){ &j, 0 }); /* no thread could start: do it all here */
	for (size_t w = 0; w < started; w++)
		pthread_join(th[w], NULL);
	pthread_mutex_destroy(&j.mu);
	free(j.live);
	free(th);
	free(wa);
	free((void *)j.app);
	return SL_OK;
}
