/*
 * pool.c — the client side (p2p.h): pooled links to validators and
 * concurrent, deadline-bound ACP-118 signature requests over them.
 *
 * A call runs on worker threads of its own (detached), which share its job with the caller; the
 * last of them to let go frees it. The targets, the chain id and the request bytes are copied
 * into the job, since a worker may outlive the call (below).
 *
 * Stopping a call (the callback returned false) shuts no link down. The job's eventfd is written
 * once and never read, so it stays readable: every worker waiting for a frame polls it beside its
 * socket and wakes. A worker that has sent a request whose answer has not come hands its link
 * back as *draining*: it owes the answer to that request id, until the request's deadline plus
 * DRAIN_GRACE_MS. The next checkout of that link reads frames (answering Pings) until that answer
 * comes, then uses the link; if the time runs out first, it closes the link. A worker still
 * dialing when the call stops is not waited for: the call returns, the dial ends on its own
 * (within the connect timeout) and the new link, on which nothing was sent, is checked in; a
 * later call wanting that validator meanwhile waits for that dial rather than making another.
 * sl_p2p_pool_free waits for such workers.
 *
 * Frames are never read in part across a wait: a worker waits for a frame's first byte (which a
 * stop may interrupt), then reads the whole frame by the call's deadline; a frame cut short at the
 * deadline breaks that link alone (sl_p2p_conn.broken), and a broken link is closed.
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
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/*
 * A link idle this long is not reused: avalanchego closes a link it has read nothing from for its
 * ping-pong timeout (30 s by default), and we do not ping idle links.
 */
#define IDLE_REUSE_MS 20000
/* A draining link waits this long past its request's deadline for the answer (time in transit). */
#define DRAIN_GRACE_MS 1000

typedef struct pooled {
	uint8_t node_id[20];
	sl_p2p_conn *conn;
	int64_t last_used_ms; /* when a request was last sent on it (or it was made) */
	uint32_t owed;	      /* 0, or the request id whose answer is still to be read: draining */
	int64_t owed_until_ms;
} pooled;

/* A dial under way (on its worker's stack, listed in the pool while it lasts). */
typedef struct dialing {
	uint8_t node_id[20];
	atomic_bool *stopped; /* its call's stop flag: once set, the link will be checked in */
	struct dialing *next;
} dialing;

struct sl_p2p_pool {
	sl_p2p_identity id;
	sl_p2p_self self;
	sl_tls_ctx *tls;
	int connect_timeout_ms;
	size_t max_conns;
	pthread_mutex_t mu; /* guards idle, n_idle, next_request_id, dials, threads */
	pthread_cond_t cv;  /* broadcast when a dial ends, a call stops, a worker thread ends */
	pooled *idle;	    /* links not in use (clean or draining), at most max_conns */
	size_t n_idle;
	uint32_t next_request_id;
	dialing *dials;
	size_t threads; /* worker threads alive, of every call */
};

static sl_logger *logger(void) { return sl_log_get("p2p"); }

/* Wait on cv until deadline_ms of sl_tls_now_ms()'s clock (CLOCK_MONOTONIC, set on every cv here). */
static void cv_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t deadline_ms)
{
	struct timespec ts = { .tv_sec = (time_t)(deadline_ms / 1000),
			       .tv_nsec = (long)(deadline_ms % 1000) * 1000000L };
	pthread_cond_timedwait(cv, mu, &ts);
}

static void cv_init(pthread_cond_t *cv)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &ca);
	pthread_condattr_destroy(&ca);
}

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
	cv_init(&p->cv);
	return p;
}

void sl_p2p_pool_free(sl_p2p_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	while (p->threads) /* dials a stopped call left under way: each ends by the connect timeout */
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
	for (size_t i = 0; i < p->n_idle; i++)
		sl_p2p_conn_free(p->idle[i].conn);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	sl_tls_ctx_free(p->tls);
	free(p->idle);
	memset(&p->id, 0, sizeof p->id);
	free(p);
}

/*
 * Put a link back under p->mu: owed 0 for a clean one, else draining until owed_until_ms. When the
 * pool is full the least recently used link goes: returned, for the caller to free unlocked.
 */
static sl_p2p_conn *checkin_locked(sl_p2p_pool *p, sl_p2p_conn *c, int64_t last_used_ms, uint32_t owed,
				   int64_t owed_until_ms)
{
	sl_p2p_conn *drop = NULL;
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
	e->last_used_ms = last_used_ms;
	e->owed = owed;
	e->owed_until_ms = owed_until_ms;
	return drop;
}

static void checkin(sl_p2p_pool *p, sl_p2p_conn *c, int64_t last_used_ms, uint32_t owed,
		    int64_t owed_until_ms)
{
	pthread_mutex_lock(&p->mu);
	sl_p2p_conn *drop = checkin_locked(p, c, last_used_ms, owed, owed_until_ms);
	pthread_mutex_unlock(&p->mu);
	sl_p2p_conn_free(drop);
}

/* Take a pooled link to node_id out, under p->mu: a clean one if there is one, else a draining one. */
static bool take_locked(sl_p2p_pool *p, const uint8_t node_id[20], pooled *out)
{
	size_t pick = p->n_idle;
	for (size_t i = 0; i < p->n_idle; i++)
		if (!memcmp(p->idle[i].node_id, node_id, 20)) {
			pick = i;
			if (!p->idle[i].owed)
				break;
		}
	if (pick == p->n_idle)
		return false;
	*out = p->idle[pick];
	p->idle[pick] = p->idle[--p->n_idle];
	return true;
}

/* Whether a call that has stopped is still dialing node_id (its link will be checked in), under p->mu. */
static bool dial_left_under_way_locked(const sl_p2p_pool *p, const uint8_t node_id[20])
{
	for (const dialing *d = p->dials; d; d = d->next)
		if (!memcmp(d->node_id, node_id, 20) && atomic_load(d->stopped))
			return true;
	return false;
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

/* One call's shared state: the caller's and its workers', freed by the last of them. */
typedef struct job {
	sl_p2p_pool *pool;
	sl_p2p_target *targets;		     /* copied: a worker may outlive the call */
	const sl_p2p_target *caller_targets; /* for sl_p2p_answer.node_id, read only in cb */
	size_t n;
	uint8_t chain_id[32];
	uint8_t *app; /* the AppRequest's app bytes */
	size_t app_len;
	int64_t start_ms, deadline_ms;
	sl_p2p_answer_fn cb; /* never called once stop is set, so never after the call returned */
	void *ctx;
	int wake_fd;	    /* eventfd: written once when the call stops, never read */
	atomic_bool stop;   /* set under mu; read anywhere */
	pthread_mutex_t mu; /* guards next, running, dialing, refs; serializes cb */
	pthread_cond_t cv;  /* the caller waits here for running to fall */
	size_t next;
	size_t running; /* workers not yet ended */
	size_t dialing; /* workers inside dial(): the caller of a stopped call does not wait for them */
	size_t refs;	/* the caller and every worker not yet ended */
} job;

static void job_free(job *j)
{
	if (j->wake_fd >= 0)
		close(j->wake_fd);
	pthread_mutex_destroy(&j->mu);
	pthread_cond_destroy(&j->cv);
	free(j->targets);
	free(j->app);
	free(j);
}

/* Drop one reference; the last frees the job. */
static void job_unref(job *j)
{
	pthread_mutex_lock(&j->mu);
	bool last = --j->refs == 0;
	pthread_mutex_unlock(&j->mu);
	if (last)
		job_free(j);
}

/* The callback asked to stop (j->mu held): wake every worker waiting for a frame or another's dial. */
static void stop_locked(job *j)
{
	atomic_store(&j->stop, true);
	uint64_t one = 1;
	if (write(j->wake_fd, &one, sizeof one) < 0) {
		/* an eventfd write fails only on counter overflow: it is readable anyway */
	}
	pthread_mutex_lock(&j->pool->mu);
	pthread_cond_broadcast(&j->pool->cv);
	pthread_mutex_unlock(&j->pool->mu);
	pthread_cond_broadcast(&j->cv);
}

static uint32_t next_request_id(sl_p2p_pool *p)
{
	pthread_mutex_lock(&p->mu);
	if (++p->next_request_id == 0) /* 0 means "none owed" */
		++p->next_request_id;
	uint32_t rid = p->next_request_id;
	pthread_mutex_unlock(&p->mu);
	return rid;
}

static bool answers(const sl_p2p_msg *r, uint32_t rid)
{
	return (r->op == SL_P2P_OP_APP_RESPONSE || r->op == SL_P2P_OP_APP_ERROR) && r->app.request_id == rid;
}

/*
 * Make a link taken from the pool fit for a request. SL_OK: use it. SL_ERR_UNAVAILABLE: it was
 * closed (idle too long, broken, or its owed answer did not come in time): try another.
 * SL_ERR_TIMEOUT: the call's deadline or stop came while it drained; it went back to the pool.
 */
static sl_err prepare(job *j, pooled *e)
{
	int64_t now = sl_tls_now_ms();
	if (now - e->last_used_ms > IDLE_REUSE_MS || (e->owed && now >= e->owed_until_ms)) {
		sl_p2p_conn_free(e->conn);
		return SL_ERR_UNAVAILABLE;
	}
	int64_t until = SL_MIN(e->owed_until_ms, j->deadline_ms);
	while (e->owed) {
		sl_p2p_msg r;
		bool woken = false;
		sl_err err = sl_p2p_conn_recv_wake(e->conn, &r, until, j->wake_fd, &woken);
		if (!err && !woken && answers(&r, e->owed))
			e->owed = 0; /* drained: what it owed came (skipped, as nobody awaits it now) */
		sl_p2p_msg_clear(&r);
		if (!e->owed)
			break;
		if (e->conn->broken || (err == SL_ERR_TIMEOUT && sl_tls_now_ms() >= e->owed_until_ms)) {
			sl_p2p_conn_free(e->conn);
			return SL_ERR_UNAVAILABLE;
		}
		if (err || woken) {
			checkin(j->pool, e->conn, e->last_used_ms, e->owed, e->owed_until_ms);
			return SL_ERR_TIMEOUT;
		}
	}
	return SL_OK;
}

/*
 * A link to t for a request of j: a pooled one (drained first if it owes an answer), or a new one
 * (TCP, TLS, handshake). *reused says which. SL_ERR_TIMEOUT when the call stopped or its deadline
 * passed first; a dial's own error when it failed.
 */
static sl_err acquire(job *j, const sl_p2p_target *t, sl_p2p_conn **out, bool *reused)
{
	sl_p2p_pool *p = j->pool;
	*out = NULL;
	*reused = false;
	for (;;) {
		pooled e;
		dialing d;
		pthread_mutex_lock(&p->mu);
		if (atomic_load(&j->stop)) {
			pthread_mutex_unlock(&p->mu);
			return SL_ERR_TIMEOUT;
		}
		bool got = take_locked(p, t->node_id, &e);
		if (!got && dial_left_under_way_locked(p, t->node_id)) {
			/* a stopped call's dial to the same validator: its link comes to the pool */
			cv_wait_until(&p->cv, &p->mu, j->deadline_ms);
			pthread_mutex_unlock(&p->mu);
			if (sl_tls_now_ms() >= j->deadline_ms)
				return SL_ERR_TIMEOUT;
			continue;
		}
		if (!got) {
			memcpy(d.node_id, t->node_id, 20);
			d.stopped = &j->stop;
			d.next = p->dials;
			p->dials = &d;
		}
		pthread_mutex_unlock(&p->mu);
		if (got) {
			sl_err err = prepare(j, &e);
			if (err == SL_ERR_UNAVAILABLE)
				continue; /* closed: another pooled link, or a dial */
			*out = err ? NULL : e.conn;
			*reused = !err;
			return err;
		}
		pthread_mutex_lock(&j->mu);
		bool stopped = atomic_load(&j->stop);
		if (!stopped)
			j->dialing++;
		pthread_mutex_unlock(&j->mu);
		sl_p2p_conn *c = NULL;
		sl_err err = stopped ? SL_ERR_TIMEOUT : dial(p, t, j->deadline_ms, &c);
		if (!stopped) {
			pthread_mutex_lock(&j->mu);
			j->dialing--;
			pthread_cond_broadcast(&j->cv);
			pthread_mutex_unlock(&j->mu);
		}
		sl_p2p_conn *drop = NULL;
		pthread_mutex_lock(&p->mu);
		for (dialing **pp = &p->dials; *pp; pp = &(*pp)->next)
			if (*pp == &d) {
				*pp = d.next;
				break;
			}
		if (c && atomic_load(&j->stop)) {
			/* made after the call stopped, nothing sent on it: the pool's, before anyone
			 * waiting for this dial looks again */
			drop = checkin_locked(p, c, sl_tls_now_ms(), 0, 0);
			c = NULL;
			err = SL_ERR_TIMEOUT;
		}
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		sl_p2p_conn_free(drop);
		*out = c;
		return err;
	}
}

/*
 * Ask one target over c; the answer in *a. *owed: the request id whose answer is still to come
 * on c when it returns without it (the deadline passed, or the call stopped), else 0.
 */
static sl_err ask(job *j, sl_p2p_conn *c, sl_p2p_answer *a, char *errmsg, size_t errcap, uint32_t *owed)
{
	*owed = 0;
	int64_t left = j->deadline_ms - sl_tls_now_ms();
	if (left <= 0 || atomic_load(&j->stop))
		return SL_ERR_TIMEOUT;
	uint32_t rid = next_request_id(j->pool);
	sl_p2p_msg m = { .op = SL_P2P_OP_APP_REQUEST };
	m.app.chain_id = (sl_p2p_bytes){ j->chain_id, 32 };
	m.app.request_id = rid;
	m.app.deadline = (uint64_t)left * 1000000u;
	m.app.bytes = (sl_p2p_bytes){ j->app, j->app_len };
	sl_err err = sl_p2p_conn_send(c, &m, j->deadline_ms);
	if (err)
		return err == SL_ERR_TIMEOUT ? err : SL_ERR_UNAVAILABLE;
	*owed = rid;
	for (;;) {
		sl_p2p_msg r;
		bool woken = false;
		err = sl_p2p_conn_recv_wake(c, &r, j->deadline_ms, j->wake_fd, &woken);
		if (err || woken) {
			sl_p2p_msg_clear(&r);
			if (woken)
				err = SL_ERR_TIMEOUT; /* the call stopped: not reported */
			break;
		}
		if (answers(&r, rid) && r.app.chain_id.n == 32 &&
		    !memcmp(r.app.chain_id.p, j->chain_id, 32)) {
			*owed = 0;
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
		sl_p2p_msg_clear(&r); /* another request's answer (one drained elsewhere), gossip, ... */
	}
	if (c->broken && err != SL_ERR_TIMEOUT)
		err = SL_ERR_UNAVAILABLE; /* closed, or it sent what does not decode: the link is dropped */
	return err;
}

static sl_err do_target(job *j, const sl_p2p_target *t, sl_p2p_answer *a, char *errmsg, size_t errcap)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		sl_p2p_conn *c;
		bool reused;
		sl_err err = acquire(j, t, &c, &reused);
		if (err)
			return err;
		uint32_t owed;
		err = ask(j, c, a, errmsg, errcap, &owed);
		if (!c->broken) {
			/* it answered, or it still owes the answer: back to the pool either way */
			checkin(j->pool, c, sl_tls_now_ms(), owed,
				owed ? j->deadline_ms + DRAIN_GRACE_MS : 0);
			return err;
		}
		sl_p2p_conn_free(c);
		/* A pooled link may have been closed by the peer while idle: one more try on a fresh one. */
		if (!reused || err == SL_ERR_TIMEOUT || atomic_load(&j->stop))
			return err;
	}
	return SL_ERR_UNAVAILABLE;
}

static void *worker(void *arg)
{
	job *j = arg;
	sl_p2p_pool *p = j->pool;
	char errmsg[256];
	for (;;) {
		pthread_mutex_lock(&j->mu);
		size_t i = atomic_load(&j->stop) ? j->n : j->next++;
		pthread_mutex_unlock(&j->mu);
		if (i >= j->n)
			break;
		sl_p2p_answer a = { .index = i };
		errmsg[0] = 0;
		a.err = sl_tls_now_ms() >= j->deadline_ms
				? SL_ERR_TIMEOUT
				: do_target(j, &j->targets[i], &a, errmsg, sizeof errmsg);
		a.app_error_message = errmsg;
		int64_t el = sl_tls_now_ms() - j->start_ms;
		a.elapsed_ms = (uint32_t)(el < 0 ? 0 : el);
		pthread_mutex_lock(&j->mu);
		if (!atomic_load(&j->stop)) {
			if (a.err)
				SL_LOG(logger(), SL_DEBUG, "p2p: target %zu (%s:%u): %s %s", i,
				       j->targets[i].host, j->targets[i].port, sl_err_name(a.err), errmsg);
			a.node_id = j->caller_targets[i].node_id; /* the call has not returned: stop unset */
			if (!j->cb(j->ctx, &a))
				stop_locked(j);
		}
		pthread_mutex_unlock(&j->mu);
	}
	pthread_mutex_lock(&j->mu);
	j->running--;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
	job_unref(j);
	sl_tls_thread_end(); /* detached: the pool may be freed, and the process end, after the next lines */
	pthread_mutex_lock(&p->mu); /* the last touch of the pool: sl_p2p_pool_free waits for it */
	p->threads--;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Count one more worker in the pool and the job (before it starts, or runs in the caller). */
static void worker_add(job *j)
{
	pthread_mutex_lock(&j->pool->mu);
	j->pool->threads++;
	pthread_mutex_unlock(&j->pool->mu);
	pthread_mutex_lock(&j->mu);
	j->running++;
	j->refs++;
	pthread_mutex_unlock(&j->mu);
}

static void worker_undo(job *j)
{
	pthread_mutex_lock(&j->mu);
	j->running--;
	j->refs--;
	pthread_mutex_unlock(&j->mu);
	pthread_mutex_lock(&j->pool->mu);
	j->pool->threads--;
	pthread_mutex_unlock(&j->pool->mu);
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
	job *j = calloc(1, sizeof *j);
	if (!j)
		return SL_ERR_NOMEM;
	*j = (job){
		.pool = pool, .caller_targets = targets, .n = n, .cb = cb, .ctx = ctx, .wake_fd = -1, .refs = 1
	};
	atomic_init(&j->stop, false);
	pthread_mutex_init(&j->mu, NULL);
	cv_init(&j->cv);
	memcpy(j->chain_id, req->chain_id, 32);
	j->targets = malloc(n * sizeof *j->targets);
	j->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	sl_err err = !j->targets ? SL_ERR_NOMEM : j->wake_fd < 0 ? SL_ERR_IO : SL_OK;
	if (!err)
		err = sl_p2p_sigreq_encode(req->message, req->message_len, req->justification,
					   req->justification_len, &j->app, &j->app_len);
	if (err) {
		job_free(j);
		return err;
	}
	memcpy(j->targets, targets, n * sizeof *j->targets);
	j->start_ms = sl_tls_now_ms();
	j->deadline_ms = j->start_ms + (req->deadline_ms > 0 ? req->deadline_ms : 5000);
	size_t nw = SL_MIN(n, req->parallel ? req->parallel : 64);
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	size_t started = 0;
	for (size_t w = 0; w < nw; w++) {
		pthread_t th;
		worker_add(j);
		if (pthread_create(&th, &at, worker, j) != 0) {
			worker_undo(j);
			break;
		}
		started++;
	}
	pthread_attr_destroy(&at);
	if (started == 0) { /* no thread could start: do it all here */
		worker_add(j);
		worker(j);
	}
	/* until every worker has ended, or, once the call stopped, all but those still dialing */
	pthread_mutex_lock(&j->mu);
	while (j->running > (atomic_load(&j->stop) ? j->dialing : 0))
		pthread_cond_wait(&j->cv, &j->mu);
	pthread_mutex_unlock(&j->mu);
	job_unref(j);
	return SL_OK;
}
