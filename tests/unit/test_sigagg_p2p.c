/*
 * test_sigagg_p2p.c — aggregation over the real protocol on loopback: ten
 * validators served by src/p2p's server (TLS with their own staking
 * certificates, ACP-118 requests), each signing with its own BLS key, asked
 * through sigagg_p2p.c's source. Seven are honest (one slow), one signs other
 * bytes, one never answers, one is not listening: 67% is reached and the
 * signed message verifies with blst against the test's own canonical order;
 * 75% is not, and the failure says the weight that signed. Then: an aggregation that stops at
 * quorum with requests in flight leaves its links to the next one (the server counts none new);
 * the peers table read from a real HTTP server's info.peers follows a changed address; and a
 * trusted node over real HTTP (--peers-from) that is itself a validator is asked through its
 * info.getNodeID and info.getNodeIP.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "api/sigagg_peers.h"
#include "codec/warp.h"
#include "crypto/addr.h"
#include "crypto/tls.h"
#include "http/server.h"
#include "p2p/p2p.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#define NV 10
enum { SLOW = 6, WRONG = 7, SILENT = 8, ABSENT = 9 };

static sl_p2p_identity vid[NV];

static sl_err sign_cb(void *ctx, size_t index, const uint8_t chain_id[32], const uint8_t *msg, size_t msg_len,
		      const uint8_t *just, size_t just_len, uint8_t sig[96], int32_t *code, char why[256])
{
	sl_bls_sig s;
	sl_bls_sign(&vid[index].bls, msg, msg_len, &s);
	sl_bls_sig_encode(&s, sig);
	return SL_OK;
}

/* The signers' weight, checked with blst: keys sorted here by their uncompressed bytes. */
static uint64_t check(const sl_vset *vs, const sl_buf *out, const sl_buf *um)
{
	sl_warp_message m;
	assert_int_equal(sl_warp_message_decode(out->p, out->len, &m, NULL), SL_OK);
	assert_int_equal(m.msg.bytes.len, um->len);
	assert_memory_equal(m.msg.bytes.p, um->p, um->len);
	sl_bls_pk pk[NV];
	uint8_t raw[NV][SL_BLS_PK_RAW_LEN];
	size_t idx[NV];
	for (size_t i = 0; i < vs->n; i++) {
		assert_int_equal(sl_bls_pk_decode(&pk[i], vs->v[i].key), SL_OK);
		sl_bls_pk_encode_raw(&pk[i], raw[i]);
		idx[i] = i;
	}
	for (size_t a = 1; a < vs->n; a++)
		for (size_t b = a; b > 0 && memcmp(raw[idx[b - 1]], raw[idx[b]], SL_BLS_PK_RAW_LEN) > 0;
		     b--) {
			size_t t = idx[b];
			idx[b] = idx[b - 1], idx[b - 1] = t;
		}
	sl_bls_pk keys[NV];
	size_t n = 0;
	uint64_t w = 0;
	for (size_t c = 0; c < vs->n; c++)
		if (sl_warp_signers_has(m.signers, c)) {
			keys[n++] = pk[idx[c]];
			w += vs->v[idx[c]].weight;
		}
	sl_bls_pk apk;
	sl_bls_sig sig;
	assert_int_equal(sl_bls_pk_aggregate(&apk, keys, n), SL_OK);
	assert_int_equal(sl_bls_sig_decode(&sig, m.signature.p), SL_OK);
	assert_true(sl_bls_verify(&apk, &sig, um->p, um->len));
	return w;
}

static void test_loopback(void **state)
{
	(void)state;
	sl_p2p_listener ls[NV];
	memset(ls, 0, sizeof ls);
	sl_vset_member mem[NV];
	memset(mem, 0, sizeof mem);
	for (size_t i = 0; i < NV; i++) {
		uint8_t seed[32] = { 'v', (uint8_t)(i + 1) };
		assert_int_equal(sl_p2p_identity_make(&vid[i], seed), SL_OK);
		ls[i].identity = vid[i];
		ls[i].policy = i == SLOW     ? SL_P2P_SLOW
			       : i == WRONG  ? SL_P2P_WRONG
			       : i == SILENT ? SL_P2P_SILENT
			       : i == ABSENT ? SL_P2P_ABSENT
					     : SL_P2P_HONEST;
		ls[i].slow_ms = 300;
	}
	sl_err err;
	sl_p2p_server *srv = sl_p2p_server_start(
		&(sl_p2p_server_config){ .network_id = 12345, .listeners = ls, .n = NV, .sign = sign_cb },
		&err);
	assert_non_null(srv);
	sl_sigagg_peer peers[NV];
	memset(peers, 0, sizeof peers);
	for (size_t i = 0; i < NV; i++) {
		memcpy(peers[i].node, vid[i].node_id, 20);
		snprintf(peers[i].host, sizeof peers[i].host, "127.0.0.1");
		peers[i].port = i == ABSENT ? 1 : sl_p2p_server_port(srv, i); /* nothing listens on port 1 */
		sl_bls_pk pk;
		sl_bls_sk_to_pk(&vid[i].bls, &pk);
		memcpy(mem[i].node, vid[i].node_id, 20);
		mem[i].weight = 100;
		mem[i].has_key = true;
		sl_bls_pk_encode(&pk, mem[i].key);
	}
	/* the vset is by node id, ascending */
	for (size_t a = 1; a < NV; a++)
		for (size_t b = a; b > 0 && memcmp(mem[b - 1].node, mem[b].node, 20) > 0; b--) {
			sl_vset_member t = mem[b];
			mem[b] = mem[b - 1], mem[b - 1] = t;
		}
	sl_vset vs = { .height = 1, .v = mem, .n = NV, .total = 100 * NV };
	sl_sigagg_set set;
	char why[160];
	assert_int_equal(sl_sigagg_set_build(&vs, &set, why), SL_OK);

	char e512[512];
	sl_sigagg_p2p *src = sl_sigagg_p2p_new(
		&(sl_sigagg_p2p_config){ .network_id = 12345, .peers = peers, .npeers = NV }, e512);
	assert_non_null(src);

	static const uint8_t chain[32] = { 7 };
	static const uint8_t payload[] = { 0, 0, 0, 0, 0, 0, 1, 2, 3 };
	sl_buf um, out;
	sl_buf_init(&um, 4096);
	sl_buf_init(&out, 1 << 16);
	sl_warp_unsigned u = { .network_id = 12345,
			       .source_chain_id = sl_span_of(chain, 32),
			       .payload = sl_span_of(payload, sizeof payload) };
	assert_int_equal(sl_warp_unsigned_encode(&u, &um), SL_OK);
	sl_sigagg_req req = { .network_id = 12345,
			      .msg = sl_span_of(um.p, um.len),
			      .quorum = 67,
			      .buffer = 3,
			      .timeout_ms = 3000 };
	sl_sigagg_result res;
	assert_int_equal(sl_sigagg_run(&set, &req, sl_sigagg_p2p_source(src), NULL, &res, &out), SL_OK);
	assert_int_equal(res.signers, 7); /* the slow one included: 70% needs every honest one */
	assert_int_equal(res.bad, 1);	  /* the wrong signature */
	assert_int_equal(check(&vs, &out, &um), 700);
	assert_int_equal(sl_sigagg_verify(&set, out.p, out.len, 67, why), SL_OK);

	/* 75%: not reachable; the failure says what signed */
	sl_buf_reset(&out);
	req.quorum = 75;
	req.buffer = 0;
	req.timeout_ms = 1500;
	assert_int_equal(sl_sigagg_run(&set, &req, sl_sigagg_p2p_source(src), NULL, &res, &out),
			 SL_ERR_UNAVAILABLE);
	assert_non_null(strstr(res.why, "weight 700 of 1000 signed"));
	assert_non_null(strstr(res.why, "75% needs 750"));
	assert_int_equal(out.len, 0);

	sl_sigagg_p2p_free(src);
	sl_sigagg_set_release(&set);
	sl_p2p_server_stop(srv);
	sl_buf_release(&um);
	sl_buf_release(&out);
}

/* ---- k honest validators (vid[0..k)), a set of them (weight 100 each), the message to sign */

typedef struct net {
	size_t k;
	sl_p2p_server *srv;
	sl_vset_member mem[NV];
	sl_vset vs;
	sl_sigagg_set set;
	sl_buf um, out;
} net;

static void net_start(net *n, size_t k, uint8_t base)
{
	memset(n, 0, sizeof *n);
	n->k = k;
	sl_p2p_listener ls[NV];
	memset(ls, 0, sizeof ls);
	for (size_t i = 0; i < k; i++) {
		uint8_t seed[32] = { base, (uint8_t)(i + 1) };
		assert_int_equal(sl_p2p_identity_make(&vid[i], seed), SL_OK);
		ls[i].identity = vid[i];
		sl_bls_pk pk;
		sl_bls_sk_to_pk(&vid[i].bls, &pk);
		memcpy(n->mem[i].node, vid[i].node_id, 20);
		n->mem[i].weight = 100;
		n->mem[i].has_key = true;
		sl_bls_pk_encode(&pk, n->mem[i].key);
	}
	sl_err err;
	n->srv = sl_p2p_server_start(
		&(sl_p2p_server_config){ .network_id = 12345, .listeners = ls, .n = k, .sign = sign_cb },
		&err);
	assert_non_null(n->srv);
	for (size_t a = 1; a < k; a++)
		for (size_t b = a; b > 0 && memcmp(n->mem[b - 1].node, n->mem[b].node, 20) > 0; b--) {
			sl_vset_member t = n->mem[b];
			n->mem[b] = n->mem[b - 1], n->mem[b - 1] = t;
		}
	n->vs = (sl_vset){ .height = 1, .v = n->mem, .n = k, .total = 100 * k };
	char why[160];
	assert_int_equal(sl_sigagg_set_build(&n->vs, &n->set, why), SL_OK);
	static const uint8_t chain[32] = { 7 };
	static const uint8_t payload[] = { 0, 0, 0, 0, 0, 0, 4, 5, 6 };
	sl_buf_init(&n->um, 4096);
	sl_buf_init(&n->out, 1 << 16);
	sl_warp_unsigned u = { .network_id = 12345,
			       .source_chain_id = sl_span_of(chain, 32),
			       .payload = sl_span_of(payload, sizeof payload) };
	assert_int_equal(sl_warp_unsigned_encode(&u, &n->um), SL_OK);
}

static sl_err net_run(net *n, sl_sigagg_p2p *src, unsigned quorum, sl_sigagg_result *res)
{
	sl_sigagg_req req = { .network_id = 12345,
			      .msg = sl_span_of(n->um.p, n->um.len),
			      .quorum = quorum,
			      .timeout_ms = 5000 };
	sl_buf_reset(&n->out);
	sl_err err = sl_sigagg_run(&n->set, &req, sl_sigagg_p2p_source(src), NULL, res, &n->out);
	if (!err) {
		char why[160];
		assert_int_equal(sl_sigagg_verify(&n->set, n->out.p, n->out.len, quorum, why), SL_OK);
	}
	return err;
}

static void net_stop(net *n)
{
	sl_sigagg_set_release(&n->set);
	sl_p2p_server_stop(n->srv);
	sl_buf_release(&n->um);
	sl_buf_release(&n->out);
}

/* An aggregation that stops at quorum, the slow half's requests in flight: the next one makes no link. */
static void test_links_reused_after_quorum(void **state)
{
	enum { K = 6, SLOW_MS = 400 };
	net n;
	net_start(&n, K, 'r');
	sl_sigagg_peer peers[K];
	memset(peers, 0, sizeof peers);
	for (size_t i = 0; i < K; i++) {
		memcpy(peers[i].node, vid[i].node_id, 20);
		snprintf(peers[i].host, sizeof peers[i].host, "127.0.0.1");
		peers[i].port = sl_p2p_server_port(n.srv, i);
	}
	char e512[512];
	sl_sigagg_p2p *src = sl_sigagg_p2p_new(
		&(sl_sigagg_p2p_config){ .network_id = 12345, .peers = peers, .npeers = K }, e512);
	assert_non_null(src);
	sl_sigagg_result res;
	assert_int_equal(net_run(&n, src, 100, &res), SL_OK);
	assert_int_equal(res.signers, K);
	assert_int_equal(sl_p2p_server_accepted(n.srv), K);
	for (size_t i = K / 2; i < K; i++)
		assert_int_equal(sl_p2p_server_set_policy(n.srv, i, SL_P2P_SLOW, SLOW_MS), SL_OK);
	for (int round = 0; round < 2; round++) { /* the second time over drained links */
		int64_t t0 = sl_tls_now_ms();
		assert_int_equal(net_run(&n, src, 50, &res), SL_OK);
		assert_true(sl_tls_now_ms() - t0 < SLOW_MS); /* it stopped at quorum */
		assert_int_equal(res.signers, K / 2);
	}
	for (size_t i = K / 2; i < K; i++)
		assert_int_equal(sl_p2p_server_set_policy(n.srv, i, SL_P2P_HONEST, 0), SL_OK);
	assert_int_equal(net_run(&n, src, 100, &res), SL_OK);
	assert_int_equal(res.signers, K);
	assert_int_equal(sl_p2p_server_accepted(n.srv), K);
	sl_sigagg_p2p_free(src);
	net_stop(&n);
}

/* ---- a node's info.peers, served by the project's HTTP server, whose answer the test changes */

typedef struct peers_node {
	pthread_mutex_t mu;
	sl_buf body; /* the info.peers answer */
	atomic_int hits, bad;
} peers_node;

static void peers_handler(void *ctx, const sl_http_req *req, sl_http_resp *resp)
{
	peers_node *pn = ctx;
	if (strcmp(req->method, "POST") || strcmp(req->path, "/ext/info")) {
		atomic_fetch_add(&pn->bad, 1); /* checked on the test's thread */
		resp->status = 404;
		return;
	}
	if (!strstr((const char *)req->body, "\"info.peers\"")) {
		/* info.getNodeID / info.getNodeIP: this node is no validator (as snowline's own node,
		 * it answers no info.getNodeIP) */
		sl_buf_adds(&resp->body, "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,"
					 "\"message\":\"the method does not exist/is not available\"}}");
		resp->content_type = "application/json";
		return;
	}
	pthread_mutex_lock(&pn->mu);
	sl_buf_add(&resp->body, pn->body.p, pn->body.len);
	pthread_mutex_unlock(&pn->mu);
	resp->content_type = "application/json";
	atomic_fetch_add(&pn->hits, 1);
}

/* info.peers listing vid[0..k) at ports[i]. */
static void peers_set(peers_node *pn, size_t k, const uint16_t *ports)
{
	pthread_mutex_lock(&pn->mu);
	sl_buf_reset(&pn->body);
	sl_buf_addf(&pn->body, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"numPeers\":\"%zu\",\"peers\":[",
		    k);
	for (size_t i = 0; i < k; i++) {
		sl_buf_addf(&pn->body, "%s{\"ip\":\"127.0.0.1:%u\",\"nodeID\":\"", i ? "," : "", ports[i]);
		sl_nodeid_write(&pn->body, vid[i].node_id);
		sl_buf_adds(&pn->body, "\"}");
	}
	sl_buf_adds(&pn->body, "]}}");
	pthread_mutex_unlock(&pn->mu);
}

/* The peers table is read again every refresh interval: a validator's new address is used. */
static void test_peers_refreshed(void **state)
{
	enum { K = 3 };
	net n;
	net_start(&n, K, 'p');
	peers_node pn;
	pthread_mutex_init(&pn.mu, NULL);
	sl_buf_init(&pn.body, 1 << 16);
	atomic_init(&pn.hits, 0);
	atomic_init(&pn.bad, 0);
	uint16_t ports[K];
	for (size_t i = 0; i < K; i++)
		ports[i] = sl_p2p_server_port(n.srv, i);
	ports[K - 1] = 1; /* first listed where nothing listens */
	peers_set(&pn, K, ports);
	char e256[256];
	sl_http_server *hs = sl_http_server_new(
		&(sl_http_config){ .host = "127.0.0.1", .threads = 1, .handler = peers_handler, .ctx = &pn },
		e256);
	assert_non_null(hs);
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%u", sl_http_server_port(hs));
	char e512[512];
	sl_sigagg_p2p *src = sl_sigagg_p2p_new(
		&(sl_sigagg_p2p_config){ .network_id = 12345, .peers_url = url, .refresh_s = 1 }, e512);
	assert_non_null(src);
	sl_sigagg_result res;
	assert_int_equal(net_run(&n, src, 100, &res), SL_ERR_UNAVAILABLE);
	assert_non_null(strstr(res.why, "weight 200 of 300 signed"));

	/* the validator moves to where it listens; two reads later the table has been replaced */
	ports[K - 1] = sl_p2p_server_port(n.srv, K - 1);
	peers_set(&pn, K, ports);
	int h = atomic_load(&pn.hits);
	int64_t until = sl_tls_now_ms() + 10000;
	while (atomic_load(&pn.hits) < h + 2 && sl_tls_now_ms() < until)
		nanosleep(&(struct timespec){ 0, 20 * 1000000L }, NULL);
	assert_true(atomic_load(&pn.hits) >= h + 2);
	assert_int_equal(net_run(&n, src, 100, &res), SL_OK);
	assert_int_equal(res.signers, K);
	assert_int_equal(atomic_load(&pn.bad), 0);

	sl_sigagg_p2p_free(src);
	sl_http_server_free(hs);
	sl_buf_release(&pn.body);
	pthread_mutex_destroy(&pn.mu);
	net_stop(&n);
}

/*
 * The trusted node (--peers-from) as a real HTTP server: its info.peers lists validators 1 and 2,
 * never itself; it is validator 0 and says so through info.getNodeID and info.getNodeIP, as
 * avalanchego does. Only with it asked is 100% reached. A node that answers no info.getNodeIP
 * (snowline's own) leaves the table at its peers.
 */
typedef struct trusted {
	uint16_t p2p_port[3];
	bool no_ip; /* answer info.getNodeIP with a method-not-found error */
} trusted;

static void trusted_handler(void *ctx, const sl_http_req *req, sl_http_resp *resp)
{
	trusted *t = ctx;
	resp->content_type = "application/json";
	const char *b = (const char *)req->body;
	sl_buf id[3];
	for (size_t i = 0; i < 3; i++) {
		sl_buf_init(&id[i], 64);
		sl_nodeid_write(&id[i], vid[i].node_id);
	}
	if (strcmp(req->path, "/ext/info"))
		sl_http_resp_text(resp, 404, "no such path");
	else if (strstr(b, "\"info.peers\""))
		sl_buf_addf(
			&resp->body,
			"{\"jsonrpc\":\"2.0\",\"result\":{\"numPeers\":\"2\",\"peers\":["
			"{\"ip\":\"127.0.0.1:50001\",\"publicIP\":\"127.0.0.1:%u\",\"nodeID\":\"%s\"},"
			"{\"ip\":\"127.0.0.1:50002\",\"publicIP\":\"127.0.0.1:%u\",\"nodeID\":\"%s\"}]},\"id\":1}",
			t->p2p_port[1], sl_buf_str(&id[1]), t->p2p_port[2], sl_buf_str(&id[2]));
	else if (strstr(b, "\"info.getNodeID\""))
		sl_buf_addf(&resp->body, "{\"jsonrpc\":\"2.0\",\"result\":{\"nodeID\":\"%s\"},\"id\":1}",
			    sl_buf_str(&id[0]));
	else if (strstr(b, "\"info.getNodeIP\"") && !t->no_ip)
		sl_buf_addf(&resp->body,
			    "{\"jsonrpc\":\"2.0\",\"result\":{\"ip\":\"127.0.0.1:%u\"},\"id\":1}",
			    t->p2p_port[0]);
	else
		sl_buf_addf(&resp->body, "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32601,\"message\":"
					 "\"the method does not exist/is not available\"},\"id\":1}");
	for (size_t i = 0; i < 3; i++)
		sl_buf_release(&id[i]);
}

static void test_trusted_node_itself(void **state)
{
	(void)state;
	sl_p2p_listener ls[3];
	memset(ls, 0, sizeof ls);
	sl_vset_member mem[3];
	memset(mem, 0, sizeof mem);
	for (size_t i = 0; i < 3; i++) {
		uint8_t seed[32] = { 'v', (uint8_t)(i + 1) };
		assert_int_equal(sl_p2p_identity_make(&vid[i], seed), SL_OK);
		ls[i].identity = vid[i];
		ls[i].policy = SL_P2P_HONEST;
		sl_bls_pk pk;
		sl_bls_sk_to_pk(&vid[i].bls, &pk);
		memcpy(mem[i].node, vid[i].node_id, 20);
		mem[i].weight = 100;
		mem[i].has_key = true;
		sl_bls_pk_encode(&pk, mem[i].key);
	}
	for (size_t a = 1; a < 3; a++)
		for (size_t b = a; b > 0 && memcmp(mem[b - 1].node, mem[b].node, 20) > 0; b--) {
			sl_vset_member t = mem[b];
			mem[b] = mem[b - 1], mem[b - 1] = t;
		}
	sl_err err;
	sl_p2p_server *srv = sl_p2p_server_start(
		&(sl_p2p_server_config){ .network_id = 12345, .listeners = ls, .n = 3, .sign = sign_cb },
		&err);
	assert_non_null(srv);
	trusted tn = { 0 };
	for (size_t i = 0; i < 3; i++)
		tn.p2p_port[i] = sl_p2p_server_port(srv, i);
	char e256[256];
	sl_http_server *hs = sl_http_server_new(
		&(sl_http_config){
			.host = "127.0.0.1", .threads = 1, .handler = trusted_handler, .ctx = &tn },
		e256);
	assert_non_null(hs);
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%u", sl_http_server_port(hs));

	sl_vset vs = { .height = 1, .v = mem, .n = 3, .total = 300 };
	sl_sigagg_set set;
	char why[160];
	assert_int_equal(sl_sigagg_set_build(&vs, &set, why), SL_OK);
	static const uint8_t chain[32] = { 7 };
	static const uint8_t payload[] = { 0, 0, 0, 0, 0, 0, 1, 2, 3 };
	sl_buf um, out;
	sl_buf_init(&um, 4096);
	sl_buf_init(&out, 1 << 16);
	sl_warp_unsigned u = { .network_id = 12345,
			       .source_chain_id = sl_span_of(chain, 32),
			       .payload = sl_span_of(payload, sizeof payload) };
	assert_int_equal(sl_warp_unsigned_encode(&u, &um), SL_OK);
	sl_sigagg_req req = {
		.network_id = 12345, .msg = sl_span_of(um.p, um.len), .quorum = 100, .timeout_ms = 3000
	};
	sl_sigagg_result res;
	char e512[512];
	for (int no_ip = 0; no_ip < 2; no_ip++) {
		tn.no_ip = no_ip;
		sl_sigagg_p2p *src = sl_sigagg_p2p_new(
			&(sl_sigagg_p2p_config){ .peers_url = url, .network_id = 12345 }, e512);
		assert_non_null(src);
		sl_buf_reset(&out);
		if (!no_ip) { /* the node itself is asked: everyone signs */
			assert_int_equal(sl_sigagg_run(&set, &req, sl_sigagg_p2p_source(src), NULL, &res,
						       &out),
					 SL_OK);
			assert_int_equal(res.signers, 3);
			assert_int_equal(check(&vs, &out, &um), 300);
		} else { /* only its peers: two thirds */
			assert_int_equal(sl_sigagg_run(&set, &req, sl_sigagg_p2p_source(src), NULL, &res,
						       &out),
					 SL_ERR_UNAVAILABLE);
			assert_non_null(strstr(res.why, "weight 200 of 300 signed"));
		}
		sl_sigagg_p2p_free(src);
	}
	sl_sigagg_set_release(&set);
	sl_http_server_free(hs);
	sl_p2p_server_stop(srv);
	sl_buf_release(&um);
	sl_buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_loopback),
					    cmocka_unit_test(test_links_reused_after_quorum),
					    cmocka_unit_test(test_peers_refreshed),
					    cmocka_unit_test(test_trusted_node_itself) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
