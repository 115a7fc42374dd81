/*
 * sigagg_p2p.c — the signature source of `snowline api --peers-from URL`
 * (sigagg_peers.h): the validators' addresses from the trusted node's
 * info.peers and the node itself (info.getNodeID, info.getNodeIP), refreshed
 * on a thread of its own, and ACP-118 signature requests to them through a
 * p2p client pool (src/p2p) with an identity of its own (a fresh staking
 * certificate and BLS key each start).
 */
#include <pthread.h>
#include <stdlib.h>

#include "api/sigagg_peers.h"
#include "http/client.h"
#include "p2p/p2p.h"
#include "util/lock.h"

struct sl_sigagg_p2p {
	sl_sigagg_source src;
	sl_p2p_identity id;
	sl_p2p_pool *pool;
	char url[512];
	unsigned refresh_s;
	sl_logger *log;
	sl_mutex mu; /* guards t, n */
	sl_sigagg_peer *t;
	size_t n;
	pthread_t th;
	bool started;
	pthread_mutex_t stop_mu;
	pthread_cond_t stop_cv;
	bool stop;
};

static int peer_cmp(const void *a, const void *b)
{
	return memcmp(((const sl_sigagg_peer *)a)->node, ((const sl_sigagg_peer *)b)->node, 20);
}

static const char peers_req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"info.peers\",\"params\":{}}";
static const char id_req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"info.getNodeID\",\"params\":{}}";
static const char ip_req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"info.getNodeIP\",\"params\":{}}";

/* The trusted node itself (sigagg_peers.h), into *self; false when it does not say both. */
static bool self_of(sl_sigagg_p2p *s, sl_http_client *hc, sl_sigagg_peer *self)
{
	sl_buf a, b;
	sl_buf_init(&a, 1u << 16);
	sl_buf_init(&b, 1u << 16);
	long sa = 0, sb = 0;
	char err[256];
	bool ok = !sl_http_post_json(hc, s->url, id_req, sizeof id_req - 1, 10000, &a, &sa, err) &&
		  sa == 200 &&
		  !sl_http_post_json(hc, s->url, ip_req, sizeof ip_req - 1, 10000, &b, &sb, err) &&
		  sb == 200 && sl_sigagg_self_parse(a.p, a.len, b.p, b.len, self);
	sl_buf_release(&a);
	sl_buf_release(&b);
	return ok;
}

/* Read info.peers into the table; SL_OK or an error with err. */
static sl_err refresh(sl_sigagg_p2p *s, sl_http_client *hc, char err[256])
{
	sl_buf body;
	sl_buf_init(&body, SL_SIGAGG_PEERS_BODY_MAX);
	long status = 0;
	sl_err e = sl_http_post_json(hc, s->url, peers_req, sizeof peers_req - 1, 10000, &body, &status, err);
	if (!e && status != 200) {
		snprintf(err, 256, "info.peers answered HTTP %ld", status);
		e = SL_ERR_UNAVAILABLE;
	}
	sl_sigagg_peer *t = NULL;
	size_t n = 0;
	if (!e)
		e = sl_sigagg_peers_parse(body.p ? body.p : (const uint8_t *)"", body.len, &t, &n, err);
	sl_buf_release(&body);
	if (e)
		return e;
	sl_sigagg_peer self;
	bool has_self = self_of(s, hc, &self);
	if (has_self && sl_sigagg_peers_add(&t, &n, &self)) {
		free(t);
		return SL_ERR_NOMEM;
	}
	sl_mutex_lock(&s->mu);
	sl_sigagg_peer *old = s->t;
	s->t = t;
	s->n = n;
	sl_mutex_unlock(&s->mu);
	free(old);
	SL_LOG(s->log, SL_DEBUG, "signature aggregation: %zu peers from %s%s", n, s->url,
	       has_self ? " (the node itself among them)" : "");
	return SL_OK;
}

static void *refresher(void *arg)
{
	sl_sigagg_p2p *s = arg;
	sl_http_client *hc = sl_http_client_new();
	pthread_mutex_lock(&s->stop_mu);
	while (!s->stop) {
		struct timespec until;
		sl_deadline(&until, CLOCK_MONOTONIC, s->refresh_s * 1000u);
		pthread_cond_timedwait(&s->stop_cv, &s->stop_mu, &until);
		if (s->stop)
			break;
		pthread_mutex_unlock(&s->stop_mu);
		char err[256] = "";
		if (!hc || refresh(s, hc, err))
			SL_LOG(s->log, SL_WARN,
			       "signature aggregation: the peers from %s: %s (the last list stays)", s->url,
			       hc ? err : "no HTTP client");
		pthread_mutex_lock(&s->stop_mu);
	}
	pthread_mutex_unlock(&s->stop_mu);
	sl_http_client_free(hc);
	return NULL;
}

typedef struct relay {
	sl_sigagg_answer_fn answer;
	void *actx;
	sl_logger *log;
	size_t failed;
} relay;

static bool on_p2p(void *ctx, const sl_p2p_answer *a)
{
	relay *r = ctx;
	if (a->err) {
		r->failed++;
		if (a->err == SL_ERR_CONFLICT)
			SL_LOG(r->log, SL_DEBUG,
			       "signature aggregation: target %zu gave no signature: AppError %d: %s",
			       a->index, (int)a->app_error_code,
			       a->app_error_message ? a->app_error_message : "");
		else
			SL_LOG(r->log, SL_DEBUG, "signature aggregation: target %zu gave no signature: %s",
			       a->index, sl_err_name(a->err));
		return true;
	}
	return r->answer(r->actx, a->node_id, a->signature, SL_BLS_SIG_LEN);
}

static void ask(void *ctx, const sl_sigagg_ask *q, sl_sigagg_answer_fn answer, void *actx)
{
	sl_sigagg_p2p *s = ctx;
	sl_p2p_target *tg = calloc(q->n ? q->n : 1, sizeof *tg);
	if (!tg)
		return;
	size_t k = 0, unknown = 0;
	sl_mutex_lock(&s->mu);
	for (size_t i = 0; i < q->n && k < SL_P2P_TARGETS_MAX; i++) {
		const sl_sigagg_peer *p = sl_sigagg_peers_find(s->t, s->n, q->nodes[i]);
		if (!p) {
			unknown++;
			continue;
		}
		memcpy(tg[k].node_id, p->node, 20);
		memcpy(tg[k].host, p->host, sizeof tg[k].host);
		tg[k].port = p->port;
		k++;
	}
	sl_mutex_unlock(&s->mu);
	if (unknown)
		SL_LOG(s->log, SL_INFO,
		       "signature aggregation: %zu of %zu validators are not among the peers of %s", unknown,
		       q->n, s->url);
	sl_p2p_sign_request req = { .network_id = q->network_id,
				    .message = q->msg.p,
				    .message_len = q->msg.len,
				    .justification = q->justification.len ? q->justification.p : NULL,
				    .justification_len = q->justification.len,
				    .deadline_ms = (int)q->timeout_ms };
	memcpy(req.chain_id, q->source_chain, 32);
	relay r = { .answer = answer, .actx = actx, .log = s->log };
	if (k) {
		sl_err e = sl_p2p_sign_requests(s->pool, tg, k, &req, on_p2p, &r);
		if (e)
			SL_LOG(s->log, SL_WARN, "signature aggregation: the request was not sent: %s",
			       sl_err_name(e));
	}
	free(tg);
}

sl_sigagg_p2p *sl_sigagg_p2p_new(const sl_sigagg_p2p_config *cfg, char err[512])
{
	sl_sigagg_p2p *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, 512, "out of memory");
		return NULL;
	}
	s->log = sl_log_get("sigagg");
	s->refresh_s = cfg->refresh_s ? cfg->refresh_s : SL_SIGAGG_PEERS_REFRESH_S;
	/* a node's base URL gets /ext/info; a URL with a path is taken as it is */
	const char *u = cfg->peers_url ? cfg->peers_url : "";
	const char *path = strstr(u, "://") ? strchr(strstr(u, "://") + 3, '/') : NULL;
	int w = snprintf(s->url, sizeof s->url, "%s%s", u,
			 path && path[1] ? ""
			 : path		 ? "ext/info"
					 : "/ext/info");
	sl_mutex_init(&s->mu, "sigagg_peers");
	pthread_mutex_init(&s->stop_mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->stop_cv, &ca);
	pthread_condattr_destroy(&ca);
	s->src = (sl_sigagg_source){ .ctx = s, .ask = ask };
	if (w < 0 || (size_t)w >= sizeof s->url) {
		snprintf(err, 512, "--peers-from: the URL is longer than %zu bytes", sizeof s->url - 1);
		goto fail;
	}
	if (sl_p2p_identity_make(&s->id, NULL)) {
		snprintf(err, 512, "signature aggregation: could not make a staking identity");
		goto fail;
	}
	sl_p2p_config pc = { .identity = &s->id, .network_id = cfg->network_id };
	if (!(s->pool = sl_p2p_pool_new(&pc))) {
		snprintf(err, 512, "signature aggregation: could not start the p2p client");
		goto fail;
	}
	if (!cfg->peers_url) {
		s->t = calloc(cfg->npeers ? cfg->npeers : 1, sizeof *s->t);
		if (!s->t) {
			snprintf(err, 512, "out of memory");
			goto fail;
		}
		if (cfg->npeers)
			memcpy(s->t, cfg->peers, cfg->npeers * sizeof *s->t);
		s->n = cfg->npeers;
		qsort(s->t, s->n, sizeof *s->t, peer_cmp);
		snprintf(s->url, sizeof s->url, "a fixed table");
		return s;
	}
	sl_http_client *hc = sl_http_client_new();
	char e256[256] = "no HTTP client";
	sl_err e = hc ? refresh(s, hc, e256) : SL_ERR_NOMEM;
	sl_http_client_free(hc);
	if (e) {
		snprintf(err, 512, "--peers-from %s: %s", s->url, e256);
		goto fail;
	}
	if (pthread_create(&s->th, NULL, refresher, s)) {
		snprintf(err, 512, "signature aggregation: could not start the peers' refresher");
		goto fail;
	}
	s->started = true;
	return s;
fail:
	sl_sigagg_p2p_free(s);
	return NULL;
}

const sl_sigagg_source *sl_sigagg_p2p_source(sl_sigagg_p2p *s) { return &s->src; }

void sl_sigagg_p2p_free(sl_sigagg_p2p *s)
{
	if (!s)
		return;
	if (s->started) {
		pthread_mutex_lock(&s->stop_mu);
		s->stop = true;
		pthread_cond_signal(&s->stop_cv);
		pthread_mutex_unlock(&s->stop_mu);
		pthread_join(s->th, NULL);
	}
	sl_p2p_pool_free(s->pool);
	free(s->t);
	sl_mutex_destroy(&s->mu);
	pthread_mutex_destroy(&s->stop_mu);
	pthread_cond_destroy(&s->stop_cv);
	free(s);
}
