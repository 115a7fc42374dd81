/*
 * server.c — the server side (p2p.h): listeners that answer ACP-118
 * signature requests as the devnet's validators, each with its own staking
 * certificate, BLS key and policy. One thread accepts for every listener;
 * each link gets a thread of its own.
 */
#include "p2p/conn.h"

#include "util/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#define IDLE_MS (5 * 60 * 1000) /* a link silent this long is closed */
#define HANDSHAKE_MS 5000
#define MAX_LINKS 4096

typedef struct lsn {
	sl_p2p_listener cfg; /* host points at host_buf */
	char host_buf[SL_P2P_HOST_MAX];
	sl_p2p_self self;
	sl_tls_ctx *tls;
	int fd;	       /* -1 while absent */
	int hold;      /* while absent: the port bound, not listening (a connect is refused, and no
			* other socket of this machine can take the port meanwhile); else -1 */
	bool close_fd; /* gone absent: the acceptor closes fd (only it, so it never polls a reused fd) */
	uint16_t port;
} lsn;

typedef struct plink {
	sl_p2p_server *s;
	size_t li;    /* listener index */
	int fd;	      /* until the TLS session owns it */
	sl_tls *tls;  /* set once TLS is up (for stop to wake it) */
	bool closing; /* the listener went absent or the server stops */
	struct plink *next;
} plink;

struct sl_p2p_server {
	sl_p2p_server_config cfg;
	lsn *l;
	size_t n;
	pthread_t acceptor;
	int wake[2];	    /* a byte here makes the acceptor re-read the listeners */
	pthread_mutex_t mu; /* guards l[].fd/close_fd/cfg.policy/slow_ms, links, n_links, accepted, stopping */
	pthread_cond_t gone; /* signalled when a link thread ends or the acceptor closes a listener */
	plink *links;
	size_t n_links;
	uint64_t accepted; /* TCP connections accepted since start */
	bool stopping;
};

static sl_logger *logger(void) { return sl_log_get("p2p"); }

/* A socket bound to host:*port (0: the kernel picks, *port is set), not yet listening. */
static int bind_on(const char *host, uint16_t *port)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	memset(&ss, 0, sizeof ss);
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(*port);
		sl = sizeof *a4;
	} else if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(*port);
		sl = sizeof *a6;
	} else {
		return -1;
	}
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0) {
		close(fd);
		return -1;
	}
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
		*port = ntohs(ss.ss_family == AF_INET ? a4->sin_port : a6->sin6_port);
	return fd;
}

static int listen_on(const char *host, uint16_t *port)
{
	int fd = bind_on(host, port);
	if (fd >= 0 && listen(fd, 128) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void link_done(plink *k)
{
	sl_p2p_server *s = k->s;
	pthread_mutex_lock(&s->mu);
	for (plink **pp = &s->links; *pp; pp = &(*pp)->next)
		if (*pp == k) {
			*pp = k->next;
			break;
		}
	s->n_links--;
	pthread_cond_broadcast(&s->gone);
	pthread_mutex_unlock(&s->mu);
	free(k);
}

static void policy_of(sl_p2p_server *s, size_t li, sl_p2p_policy *p, int *slow_ms)
{
	pthread_mutex_lock(&s->mu);
	*p = s->l[li].cfg.policy;
	*slow_ms = s->l[li].cfg.slow_ms;
	pthread_mutex_unlock(&s->mu);
}

/* Sleep ms, waking early when the server stops or the link closes. */
static void nap(plink *k, int ms)
{
	int64_t until = sl_tls_now_ms() + ms;
	for (;;) {
		pthread_mutex_lock(&k->s->mu);
		bool quit = k->s->stopping || k->closing;
		pthread_mutex_unlock(&k->s->mu);
		int64_t left = until - sl_tls_now_ms();
		if (quit || left <= 0)
			return;
		struct timespec ts = { 0, (long)SL_MIN(left, 50) * 1000000L };
		nanosleep(&ts, NULL);
	}
}

/*
 * Send a Ping and read until its Pong, as avalanchego's peer pings its links (it closes one whose
 * Pong it never gets); what comes in between is dropped. False when none came in time.
 */
static bool ping(sl_p2p_conn *c)
{
	int64_t deadline = sl_tls_now_ms() + HANDSHAKE_MS;
	sl_p2p_msg m = { .op = SL_P2P_OP_PING, .uptime = 100 };
	if (sl_p2p_conn_send(c, &m, deadline))
		return false;
	for (;;) {
		if (sl_p2p_conn_recv(c, &m, deadline)) {
			sl_p2p_msg_clear(&m);
			return false;
		}
		bool pong = m.op == SL_P2P_OP_PONG;
		sl_p2p_msg_clear(&m);
		if (pong)
			return true;
	}
}

/* Answer one AppRequest as listener k->li's policy says; false when the link must close. */
static bool answer(plink *k, sl_p2p_conn *c, const sl_p2p_msg *m)
{
	sl_p2p_server *s = k->s;
	lsn *l = &s->l[k->li];
	sl_p2p_policy pol;
	int slow_ms;
	policy_of(s, k->li, &pol, &slow_ms);
	if (pol == SL_P2P_SILENT || pol == SL_P2P_ABSENT)
		return true;
	if (pol == SL_P2P_SLOW)
		nap(k, slow_ms);
	if (pol == SL_P2P_PING && !ping(c))
		return false;
	sl_p2p_msg out = { .op = SL_P2P_OP_APP_ERROR };
	out.app.chain_id = m->app.chain_id;
	out.app.request_id = m->app.request_id;
	out.app.error_code = -1;
	char why[256] = "unexpected error";
	uint8_t sig[SL_BLS_SIG_LEN];
	uint8_t *resp = NULL;
	size_t resp_len = 0;
	sl_p2p_sigreq r;
	if (m->app.chain_id.n != 32) {
		snprintf(why, sizeof why, "chain id of %zu bytes", m->app.chain_id.n);
	} else if (sl_p2p_sigreq_decode(m->app.bytes.p, m->app.bytes.n, &r)) {
		/* avalanchego's router answers a prefix it cannot read as an unregistered handler */
		out.app.error_code = -2;
		snprintf(why, sizeof why, "unregistered handler");
	} else if (r.handler != SL_P2P_HANDLER_ACP118) {
		out.app.error_code = -2;
		snprintf(why, sizeof why, "unregistered handler");
	} else {
		int32_t code = -1;
		why[0] = 0;
		sl_err err = s->cfg.sign(s->cfg.ctx, k->li, m->app.chain_id.p, r.message.p, r.message.n,
					 r.justification.p, r.justification.n, sig, &code, why);
		why[sizeof why - 1] = 0;
		if (err) {
			out.app.error_code = code;
			if (!why[0])
				snprintf(why, sizeof why, "failed to sign message: %s", sl_err_name(err));
		} else {
			if (pol == SL_P2P_WRONG) {
				/* a lying validator: a valid signature, of other bytes */
				sl_bls_sig bad;
				uint8_t other[8] = { 'n', 'o', 't', ' ', 't', 'h', 'i', 's' };
				sl_bls_sign(&l->cfg.identity.bls, other, sizeof other, &bad);
				sl_bls_sig_encode(&bad, sig);
			}
			if (sl_p2p_sigresp_encode(sig, &resp, &resp_len) == SL_OK) {
				out.op = SL_P2P_OP_APP_RESPONSE;
				out.app.bytes = (sl_p2p_bytes){ resp, resp_len };
			}
		}
	}
	if (m->app.chain_id.n == 32)
		sl_p2p_sigreq_clear(&r);
	out.app.error_message = why;
	sl_err err = sl_p2p_conn_send(c, &out, sl_tls_now_ms() + HANDSHAKE_MS);
	free(resp);
	return err == SL_OK;
}

static void *serve(void *arg)
{
	plink *k = arg;
	sl_p2p_server *s = k->s;
	lsn *l = &s->l[k->li];
	sl_tls *tls;
	sl_err err = sl_tls_handshake(l->tls, k->fd, sl_tls_now_ms() + HANDSHAKE_MS, &tls);
	k->fd = -1;
	if (err) {
		sl_tls_thread_end();
		link_done(k);
		return NULL;
	}
	pthread_mutex_lock(&s->mu);
	k->tls = tls;
	bool quit = s->stopping || k->closing;
	pthread_mutex_unlock(&s->mu);
	sl_p2p_conn *c = NULL;
	if (!quit)
		err = sl_p2p_conn_open(&l->self, tls, sl_tls_now_ms() + HANDSHAKE_MS, &c);
	if (!quit && err)
		SL_LOG(logger(), SL_DEBUG, "p2p: validator %zu: handshake failed: %s", k->li,
		       sl_err_name(err));
	if (!c) {
		pthread_mutex_lock(&s->mu);
		k->tls = NULL;
		pthread_mutex_unlock(&s->mu);
		sl_tls_free(tls);
	}
	while (c && !quit) {
		sl_p2p_msg m;
		err = sl_p2p_conn_recv(c, &m, sl_tls_now_ms() + IDLE_MS);
		if (!err && m.op == SL_P2P_OP_APP_REQUEST && !answer(k, c, &m))
			err = SL_ERR_UNAVAILABLE;
		sl_p2p_msg_clear(&m);
		pthread_mutex_lock(&s->mu);
		quit = err || s->stopping || k->closing;
		pthread_mutex_unlock(&s->mu);
	}
	pthread_mutex_lock(&s->mu);
	k->tls = NULL; /* stop must not touch it once freed */
	pthread_mutex_unlock(&s->mu);
	sl_p2p_conn_free(c);
	sl_tls_thread_end(); /* detached: stop may return, and the process end, once link_done ran */
	link_done(k);
	return NULL;
}

static void *acceptor(void *arg)
{
	sl_p2p_server *s = arg;
	struct pollfd *pf = calloc(s->n + 1, sizeof *pf);
	size_t *idx = calloc(s->n + 1, sizeof *idx);
	if (!pf || !idx) {
		free(pf);
		free(idx);
		return NULL;
	}
	for (;;) {
		size_t np = 0;
		pthread_mutex_lock(&s->mu);
		bool stop = s->stopping;
		pf[np++] = (struct pollfd){ .fd = s->wake[0], .events = POLLIN };
		for (size_t i = 0; i < s->n; i++)
			if (s->l[i].close_fd) {
				close(s->l[i].fd);
				s->l[i].fd = -1;
				s->l[i].close_fd = false;
				pthread_cond_broadcast(&s->gone);
			}
		for (size_t i = 0; i < s->n; i++)
			if (s->l[i].fd >= 0) {
				idx[np] = i;
				pf[np++] = (struct pollfd){ .fd = s->l[i].fd, .events = POLLIN };
			}
		pthread_mutex_unlock(&s->mu);
		if (stop)
			break;
		if (poll(pf, np, -1) < 0 && errno != EINTR)
			break;
		if (pf[0].revents) {
			char b[64];
			while (read(s->wake[0], b, sizeof b) > 0) {
			}
			continue; /* the listeners changed: rebuild the set */
		}
		for (size_t p = 1; p < np; p++) {
			if (!pf[p].revents)
				continue;
			int fd = accept4(pf[p].fd, NULL, NULL, SOCK_CLOEXEC);
			if (fd < 0)
				continue;
			plink *k = calloc(1, sizeof *k);
			pthread_mutex_lock(&s->mu);
			s->accepted++;
			bool ok = k && s->n_links < MAX_LINKS && !s->stopping;
			if (ok) {
				*k = (plink){ .s = s, .li = idx[p], .fd = fd, .next = s->links };
				s->links = k;
				s->n_links++;
			}
			pthread_mutex_unlock(&s->mu);
			pthread_t t;
			pthread_attr_t at;
			pthread_attr_init(&at);
			pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
			if (ok && pthread_create(&t, &at, serve, k) != 0) {
				k->fd = -1;
				link_done(k);
				k = NULL;
				ok = false;
			}
			pthread_attr_destroy(&at);
			if (!ok) {
				close(fd);
				free(k);
			}
		}
	}
	free(pf);
	free(idx);
	return NULL;
}

static void poke(sl_p2p_server *s)
{
	char b = 1;
	if (write(s->wake[1], &b, 1) < 0) {
		/* full pipe: the acceptor has a wake-up pending anyway */
	}
}

sl_p2p_server *sl_p2p_server_start(const sl_p2p_server_config *cfg, sl_err *err)
{
	*err = SL_ERR_INVALID;
	if (!cfg || !cfg->sign || !cfg->n || !cfg->listeners || cfg->n > SL_P2P_TARGETS_MAX)
		return NULL;
	*err = SL_ERR_NOMEM;
	sl_p2p_server *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->cfg = *cfg;
	s->n = cfg->n;
	s->l = calloc(s->n, sizeof *s->l);
	s->wake[0] = s->wake[1] = -1;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->gone, NULL);
	if (!s->l || pipe2(s->wake, O_NONBLOCK | O_CLOEXEC) < 0)
		goto fail;
	for (size_t i = 0; i < s->n; i++) {
		lsn *l = &s->l[i];
		l->fd = l->hold = -1;
		l->cfg = cfg->listeners[i];
		snprintf(l->host_buf, sizeof l->host_buf, "%s", l->cfg.host ? l->cfg.host : "127.0.0.1");
		l->cfg.host = l->host_buf;
		l->self.id = &l->cfg.identity;
		l->self.network_id = cfg->network_id;
		l->tls = sl_tls_ctx_new(&l->cfg.identity.key, l->cfg.identity.cert, l->cfg.identity.cert_len,
					true);
		if (!l->tls)
			goto fail;
		l->port = l->cfg.port;
		if (l->cfg.policy == SL_P2P_ABSENT) /* its port is held (one given no port gets one) */
			l->hold = bind_on(l->host_buf, &l->port);
		else
			l->fd = listen_on(l->host_buf, &l->port);
		if (l->fd < 0 && l->hold < 0) {
			*err = SL_ERR_IO;
			SL_LOG(logger(), SL_WARN, "p2p: validator %zu cannot %s %s:%u", i,
			       l->cfg.policy == SL_P2P_ABSENT ? "bind" : "listen on", l->host_buf,
			       l->cfg.port);
			goto fail;
		}
		if (sl_p2p_self_ip(&l->self, l->host_buf, l->port ? l->port : 1)) {
			*err = SL_ERR_INVALID;
			goto fail;
		}
	}
	if (pthread_create(&s->acceptor, NULL, acceptor, s) != 0)
		goto fail;
	*err = SL_OK;
	return s;
fail:
	for (size_t i = 0; s->l && i < s->n; i++) {
		if (s->l[i].fd >= 0)
			close(s->l[i].fd);
		if (s->l[i].hold >= 0)
			close(s->l[i].hold);
		sl_tls_ctx_free(s->l[i].tls);
	}
	if (s->wake[0] >= 0) {
		close(s->wake[0]);
		close(s->wake[1]);
	}
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->gone);
	free(s->l);
	free(s);
	return NULL;
}

uint16_t sl_p2p_server_port(const sl_p2p_server *s, size_t i)
{
	if (!s || i >= s->n)
		return 0;
	return s->l[i].port;
}

sl_err sl_p2p_server_set_policy(sl_p2p_server *s, size_t i, sl_p2p_policy policy, int slow_ms)
{
	if (!s || i >= s->n || policy > SL_P2P_PING)
		return SL_ERR_INVALID;
	sl_err err = SL_OK;
	pthread_mutex_lock(&s->mu);
	lsn *l = &s->l[i];
	l->cfg.policy = policy;
	l->cfg.slow_ms = slow_ms;
	if (policy == SL_P2P_ABSENT && l->fd >= 0) {
		l->close_fd = true;
		poke(s);
		while (l->close_fd && !s->stopping) /* until the acceptor has closed it */
			pthread_cond_wait(&s->gone, &s->mu);
		if (l->fd < 0 && l->hold < 0 && !s->stopping) {
			uint16_t port = l->port; /* held again at once (SO_REUSEADDR) */
			l->hold = bind_on(l->host_buf, &port);
			if (l->hold < 0)
				SL_LOG(logger(), SL_WARN, "p2p: validator %zu cannot hold its port %u", i,
				       l->port);
		}
		for (plink *k = s->links; k; k = k->next)
			if (k->li == i) {
				k->closing = true;
				if (k->tls)
					sl_tls_shutdown(k->tls);
			}
	} else if (policy != SL_P2P_ABSENT && l->close_fd) {
		l->close_fd = false; /* back before the acceptor closed it */
	} else if (policy != SL_P2P_ABSENT && l->fd < 0) {
		uint16_t port = l->port;
		if (l->hold < 0) /* it could not hold its port: bind it again */
			l->hold = bind_on(l->host_buf, &port);
		if (l->hold >= 0 && listen(l->hold, 128) == 0) {
			l->fd = l->hold; /* the held port, listening now */
			l->port = port;
		} else {
			if (l->hold >= 0)
				close(l->hold);
			err = SL_ERR_IO;
		}
		l->hold = -1;
	}
	pthread_mutex_unlock(&s->mu);
	poke(s);
	return err;
}

uint64_t sl_p2p_server_accepted(sl_p2p_server *s)
{
	if (!s)
		return 0;
	pthread_mutex_lock(&s->mu);
	uint64_t n = s->accepted;
	pthread_mutex_unlock(&s->mu);
	return n;
}

void sl_p2p_server_stop(sl_p2p_server *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stopping = true;
	pthread_cond_broadcast(&s->gone);
	pthread_mutex_unlock(&s->mu);
	poke(s);
	pthread_join(s->acceptor, NULL);
	pthread_mutex_lock(&s->mu);
	while (s->n_links) {
		for (plink *k = s->links; k; k = k->next) {
			k->closing = true;
			if (k->tls)
				sl_tls_shutdown(k->tls);
		}
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 50 * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&s->gone, &s->mu, &until);
	}
	pthread_mutex_unlock(&s->mu);
	for (size_t i = 0; i < s->n; i++) {
		if (s->l[i].fd >= 0)
			close(s->l[i].fd);
		if (s->l[i].hold >= 0)
			close(s->l[i].hold);
		sl_tls_ctx_free(s->l[i].tls);
		memset(&s->l[i].cfg.identity, 0, sizeof s->l[i].cfg.identity);
	}
	close(s->wake[0]);
	close(s->wake[1]);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->gone);
	free(s->l);
	free(s);
}
