/*
 * test_sigagg.c — the aggregation core (api/sigagg.h) with real BLS keys the
 * test makes: the canonical validator set (keyless members out of the list but
 * in the total, shared keys merged, order by uncompressed key), quorum
 * arithmetic at the edges of 64 bits, the signers' bit set, and whole runs
 * whose validators answer through a source of the test's own — honest ones
 * signing the message, liars signing another, malformed and silent ones — each
 * result checked with blst independently of the core's own verifier.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "api/sigagg.h"
#include "api/sigagg_peers.h"
#include "crypto/addr.h"
#include "codec/warp.h"
#include "crypto/hash.h"

#define MAXV 40

enum { HONEST, ABSENT, LIAR, MALFORMED, STRANGER };

typedef struct world {
	size_t n;
	sl_bls_sk sk[MAXV];
	sl_vset_member m[MAXV];
	int mode[MAXV];
	size_t asked; /* members the source was asked for */
	size_t order[MAXV];
} world;

/* secret key i: sha256("sk" | i), reduced until valid */
static void make_sk(sl_bls_sk *sk, unsigned i)
{
	uint8_t seed[8] = { 's', 'k', (uint8_t)(i >> 8), (uint8_t)i, 0, 0, 0, 0 }, b[32];
	for (;;) {
		sl_sha256(seed, sizeof seed, b);
		b[0] &= 0x3f;
		if (!sl_bls_sk_decode(sk, b))
			return;
		seed[7]++;
	}
}

static void world_init(world *w, size_t n, const uint64_t *weights)
{
	memset(w, 0, sizeof *w);
	w->n = n;
	for (size_t i = 0; i < n; i++) {
		make_sk(&w->sk[i], (unsigned)i);
		sl_bls_pk pk;
		sl_bls_sk_to_pk(&w->sk[i], &pk);
		w->m[i].node[0] = (uint8_t)(i + 1); /* ascending node ids */
		w->m[i].weight = weights ? weights[i] : 100;
		w->m[i].has_key = true;
		sl_bls_pk_encode(&pk, w->m[i].key);
		w->order[i] = i;
	}
}

static sl_vset vset_of(world *w)
{
	sl_vset v = { .height = 7, .v = w->m, .n = w->n };
	for (size_t i = 0; i < w->n; i++)
		v.total += w->m[i].weight;
	return v;
}

static size_t member_of(const world *w, const uint8_t node[20])
{
	for (size_t i = 0; i < w->n; i++)
		if (!memcmp(w->m[i].node, node, 20))
			return i;
	fail_msg("asked a node that is not a member");
	return 0;
}

/* The test's validators: each answers as its mode says, in w->order. */
static void ask(void *ctx, const sl_sigagg_ask *q, sl_sigagg_answer_fn answer, void *actx)
{
	world *w = ctx;
	w->asked = q->n;
	for (size_t k = 0; k < w->n; k++) {
		size_t i = w->order[k];
		bool listed = false;
		for (size_t j = 0; j < q->n; j++)
			listed |= !memcmp(q->nodes[j], w->m[i].node, 20);
		if (!listed)
			continue;
		assert_int_equal(member_of(w, w->m[i].node), i);
		sl_bls_sig s;
		uint8_t b[SL_BLS_SIG_LEN];
		bool more = true;
		switch (w->mode[i]) {
		case ABSENT: continue;
		case HONEST:
			sl_bls_sign(&w->sk[i], q->msg.p, q->msg.len, &s);
			sl_bls_sig_encode(&s, b);
			more = answer(actx, w->m[i].node, b, sizeof b);
			break;
		case LIAR: /* a valid signature of another message */
			sl_bls_sign(&w->sk[i], (const uint8_t *)"other", 5, &s);
			sl_bls_sig_encode(&s, b);
			more = answer(actx, w->m[i].node, b, sizeof b);
			break;
		case MALFORMED:
			memset(b, 0x55, sizeof b);
			more = answer(actx, w->m[i].node, b, sizeof b - 1);
			break;
		case STRANGER: { /* an answer in the name of a node outside the set */
			uint8_t node[20] = { 0xee };
			sl_bls_sign(&w->sk[i], q->msg.p, q->msg.len, &s);
			sl_bls_sig_encode(&s, b);
			more = answer(actx, node, b, sizeof b);
			break;
		}
		}
		if (!more)
			return;
	}
}

static void unsigned_msg(sl_buf *b)
{
	static const uint8_t chain[32] = { 9, 9, 9 };
	static const uint8_t payload[] = { 0, 0, 0, 0, 0, 0, 'h', 'i' };
	sl_warp_unsigned u = { .network_id = 12345,
			       .source_chain_id = sl_span_of(chain, 32),
			       .payload = sl_span_of(payload, sizeof payload) };
	sl_buf_init(b, 4096);
	assert_int_equal(sl_warp_unsigned_encode(&u, b), SL_OK);
}

/* Check a signed message with blst directly: the test's own canonical order (sort the members'
 * uncompressed keys), the signers' weight, and the aggregate of their keys. Returns their weight. */
static uint64_t independent_check(const world *w, const uint8_t *p, size_t n, const sl_buf *um)
{
	sl_warp_message m;
	assert_int_equal(sl_warp_message_decode(p, n, &m, NULL), SL_OK);
	assert_int_equal(m.msg.bytes.len, um->len);
	assert_memory_equal(m.msg.bytes.p, um->p, um->len);
	assert_true(sl_warp_signers_minimal(m.signers));
	uint8_t raw[MAXV][SL_BLS_PK_RAW_LEN];
	size_t idx[MAXV], nk = 0;
	for (size_t i = 0; i < w->n; i++) {
		if (!w->m[i].has_key)
			continue;
		sl_bls_pk pk;
		assert_int_equal(sl_bls_pk_decode(&pk, w->m[i].key), SL_OK);
		sl_bls_pk_encode_raw(&pk, raw[i]);
		idx[nk++] = i;
	}
	for (size_t a = 1; a < nk; a++) /* insertion sort by raw key */
		for (size_t b = a; b > 0 && memcmp(raw[idx[b - 1]], raw[idx[b]], SL_BLS_PK_RAW_LEN) > 0;
		     b--) {
			size_t t = idx[b];
			idx[b] = idx[b - 1];
			idx[b - 1] = t;
		}
	sl_bls_pk keys[MAXV];
	size_t nsig = 0;
	uint64_t weight = 0;
	for (size_t c = 0; c < nk; c++)
		if (sl_warp_signers_has(m.signers, c)) {
			assert_int_equal(sl_bls_pk_decode(&keys[nsig++], w->m[idx[c]].key), SL_OK);
			weight += w->m[idx[c]].weight;
		}
	assert_true(sl_warp_signers_count(m.signers) == nsig);
	sl_bls_pk apk;
	sl_bls_sig sig;
	assert_int_equal(sl_bls_pk_aggregate(&apk, keys, nsig), SL_OK);
	assert_int_equal(sl_bls_sig_decode(&sig, m.signature.p), SL_OK);
	assert_true(sl_bls_verify(&apk, &sig, um->p, um->len));
	return weight;
}

static sl_err run(world *w, unsigned q, unsigned buf, sl_sigagg_result *res, sl_buf *out, sl_buf *um)
{
	sl_vset vs = vset_of(w);
	sl_sigagg_set set;
	char why[160];
	assert_int_equal(sl_sigagg_set_build(&vs, &set, why), SL_OK);
	unsigned_msg(um);
	sl_buf_init(out, 1 << 16);
	sl_sigagg_source src = { .ctx = w, .ask = ask };
	sl_sigagg_req req = {
		.network_id = 12345, .msg = sl_span_of(um->p, um->len), .quorum = q, .buffer = buf
	};
	sl_err e = sl_sigagg_run(&set, &req, &src, NULL, res, out);
	if (!e) {
		char vw[160];
		assert_int_equal(sl_sigagg_verify(&set, out->p, out->len, q, vw), SL_OK);
	}
	sl_sigagg_set_release(&set);
	return e;
}

static void test_canonical_set(void **state)
{
	(void)state;
	world w;
	uint64_t weights[6] = { 10, 20, 30, 40, 50, 60 };
	world_init(&w, 6, weights);
	w.m[2].has_key = false;			       /* keyless: in the total only */
	memcpy(w.m[4].key, w.m[1].key, SL_BLS_PK_LEN); /* 1 and 4 share a key: one entry of 70 */
	sl_vset vs = vset_of(&w);
	sl_sigagg_set s;
	char why[160];
	assert_int_equal(sl_sigagg_set_build(&vs, &s, why), SL_OK);
	assert_int_equal(s.total, 210);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.nnodes, 5);
	uint64_t sum = 0;
	for (size_t i = 0; i < s.n; i++) {
		sum += s.v[i].weight;
		if (i)
			assert_true(memcmp(s.v[i - 1].raw, s.v[i].raw, SL_BLS_PK_RAW_LEN) < 0);
	}
	assert_int_equal(sum, 180);
	long a = sl_sigagg_set_find(&s, w.m[1].node), b = sl_sigagg_set_find(&s, w.m[4].node);
	assert_true(a >= 0 && a == b);
	assert_int_equal(s.v[a].weight, 70);
	assert_int_equal(sl_sigagg_set_find(&s, w.m[2].node), -1);
	uint8_t stranger[20] = { 0xee };
	assert_int_equal(sl_sigagg_set_find(&s, stranger), -1);
	sl_sigagg_set_release(&s);

	/* weights that overflow 64 bits are refused, as avalanchego refuses the set */
	w.m[0].weight = UINT64_MAX;
	vs = vset_of(&w);
	assert_int_equal(sl_sigagg_set_build(&vs, &s, why), SL_ERR_RANGE);
	/* a stored key that is not a key */
	w.m[0].weight = 1;
	memset(w.m[3].key, 0xff, SL_BLS_PK_LEN);
	vs = vset_of(&w);
	assert_int_equal(sl_sigagg_set_build(&vs, &s, why), SL_ERR_INVALID);
	assert_non_null(strstr(why, "not a valid key"));
}

static void test_quorum_math(void **state)
{
	(void)state;
	assert_true(sl_sigagg_reaches(67, 100, 67));
	assert_false(sl_sigagg_reaches(66, 100, 67));
	assert_true(sl_sigagg_reaches(0, 100, 0));
	assert_true(sl_sigagg_reaches(100, 100, 100));
	assert_false(sl_sigagg_reaches(99, 100, 100));
	assert_int_equal(sl_sigagg_needed(100, 67), 67);
	assert_int_equal(sl_sigagg_needed(3, 67), 3); /* 2.01 rounds up */
	assert_int_equal(sl_sigagg_needed(1000, 0), 0);
	/* no overflow near 2^64: total·pct does not fit 64 bits */
	uint64_t t = UINT64_MAX;
	uint64_t need = sl_sigagg_needed(t, 67);
	assert_true(sl_sigagg_reaches(need, t, 67));
	assert_false(sl_sigagg_reaches(need - 1, t, 67));
	assert_true(sl_sigagg_reaches(t, t, 100));
}

static void test_all_honest(void **state)
{
	(void)state;
	world w;
	world_init(&w, 20, NULL);
	sl_sigagg_result res;
	sl_buf out, um;
	assert_int_equal(run(&w, 67, 0, &res, &out, &um), SL_OK);
	assert_int_equal(w.asked, 20);
	/* it stops at the target: 14 of 20 equal weights reach 67% */
	assert_int_equal(res.signers, 14);
	assert_int_equal(res.answers, 14);
	assert_int_equal(res.signed_weight, 1400);
	assert_int_equal(independent_check(&w, out.p, out.len, &um), 1400);
	sl_buf_release(&out);
	sl_buf_release(&um);

	/* with a buffer it goes on to quorum + buffer */
	assert_int_equal(run(&w, 50, 30, &res, &out, &um), SL_OK);
	assert_int_equal(res.signers, 16);
	assert_int_equal(independent_check(&w, out.p, out.len, &um), 1600);
	sl_buf_release(&out);
	sl_buf_release(&um);

	/* quorum 0 still needs one signer */
	assert_int_equal(run(&w, 0, 0, &res, &out, &um), SL_OK);
	assert_int_equal(res.signers, 1);
	sl_buf_release(&out);
	sl_buf_release(&um);
}

static void test_bit_set(void **state)
{
	(void)state;
	world w;
	world_init(&w, 20, NULL);
	/* only two answer: the bit set has exactly their canonical indices, minimal */
	for (size_t i = 0; i < 20; i++)
		w.mode[i] = i == 3 || i == 17 ? HONEST : ABSENT;
	sl_sigagg_result res;
	sl_buf out, um;
	assert_int_equal(run(&w, 10, 0, &res, &out, &um), SL_OK);
	sl_warp_message m;
	assert_int_equal(sl_warp_message_decode(out.p, out.len, &m, NULL), SL_OK);
	assert_int_equal(sl_warp_signers_count(m.signers), 2);
	assert_true(sl_warp_signers_minimal(m.signers));
	sl_vset vs = vset_of(&w);
	sl_sigagg_set s;
	char why[160];
	assert_int_equal(sl_sigagg_set_build(&vs, &s, why), SL_OK);
	long a = sl_sigagg_set_find(&s, w.m[3].node), b = sl_sigagg_set_find(&s, w.m[17].node);
	assert_true(sl_warp_signers_has(m.signers, (size_t)a));
	assert_true(sl_warp_signers_has(m.signers, (size_t)b));
	long top = a > b ? a : b;
	assert_int_equal(m.signers.len, (size_t)top / 8 + 1);
	assert_int_equal(independent_check(&w, out.p, out.len, &um), 200);

	/* the verifier refuses a tampered bit set and a wrong weight */
	uint8_t *p = malloc(out.len);
	memcpy(p, out.p, out.len);
	size_t sig_at = out.len - SL_BLS_SIG_LEN, bits_at = sig_at - m.signers.len;
	p[bits_at + m.signers.len - 1] ^= 1; /* add or drop signer 0 */
	assert_int_not_equal(sl_sigagg_verify(&s, p, out.len, 10, why), SL_OK);
	assert_int_not_equal(sl_sigagg_verify(&s, out.p, out.len, 11, why), SL_OK); /* 10% signed */
	assert_non_null(strstr(why, "under 11%"));
	free(p);
	sl_sigagg_set_release(&s);
	sl_buf_release(&out);
	sl_buf_release(&um);
}

static void test_liars_skipped(void **state)
{
	(void)state;
	world w;
	world_init(&w, 30, NULL);
	/* a third lie, answering first; some malformed answers and a stranger besides */
	for (size_t i = 0; i < 10; i++)
		w.mode[i] = LIAR;
	w.mode[10] = MALFORMED;
	w.mode[11] = STRANGER;
	sl_sigagg_result res;
	sl_buf out, um;
	assert_int_equal(run(&w, 60, 0, &res, &out, &um), SL_OK);
	assert_int_equal(res.bad, 12);
	assert_int_equal(res.signers, 18);
	assert_int_equal(independent_check(&w, out.p, out.len, &um), 1800);
	sl_buf_release(&out);
	sl_buf_release(&um);

	/* liars mixed among honest answers: a batch fails and is split */
	for (size_t i = 0; i < 30; i++)
		w.mode[i] = i % 3 == 0 ? LIAR : HONEST;
	assert_int_equal(run(&w, 66, 0, &res, &out, &um), SL_OK);
	assert_int_equal(res.signers, 20);
	assert_int_equal(independent_check(&w, out.p, out.len, &um), 2000);
	sl_buf_release(&out);
	sl_buf_release(&um);
}

static void test_quorum_unreachable(void **state)
{
	(void)state;
	world w;
	world_init(&w, 9, NULL);
	for (size_t i = 0; i < 9; i++)
		w.mode[i] = i < 3 ? ABSENT : i < 6 ? LIAR : HONEST;
	sl_sigagg_result res;
	sl_buf out, um;
	assert_int_equal(run(&w, 67, 0, &res, &out, &um), SL_ERR_UNAVAILABLE);
	assert_int_equal(out.len, 0);
	assert_int_equal(res.signed_weight, 300);
	assert_int_equal(res.needed, 603);
	assert_non_null(strstr(res.why, "weight 300 of 900 signed"));
	assert_non_null(strstr(res.why, "67% needs 603"));
	sl_buf_release(&out);
	sl_buf_release(&um);

	/* quorum reachable but not the buffer: it succeeds with what it has */
	assert_int_equal(run(&w, 30, 50, &res, &out, &um), SL_OK);
	assert_int_equal(res.signers, 3);
	assert_int_equal(independent_check(&w, out.p, out.len, &um), 300);
	sl_buf_release(&out);
	sl_buf_release(&um);

	/* nobody answers at all */
	for (size_t i = 0; i < 9; i++)
		w.mode[i] = ABSENT;
	assert_int_equal(run(&w, 0, 0, &res, &out, &um), SL_ERR_UNAVAILABLE);
	sl_buf_release(&out);
	sl_buf_release(&um);
}

static void test_bad_requests(void **state)
{
	(void)state;
	world w;
	world_init(&w, 3, NULL);
	sl_vset vs = vset_of(&w);
	sl_sigagg_set s;
	char why[160];
	assert_int_equal(sl_sigagg_set_build(&vs, &s, why), SL_OK);
	sl_buf um, out;
	unsigned_msg(&um);
	sl_buf_init(&out, 4096);
	sl_sigagg_result res;
	sl_sigagg_source src = { .ctx = &w, .ask = ask };
	sl_sigagg_req req = { .msg = sl_span_of(um.p, um.len - 1), .quorum = 67 };
	assert_int_equal(sl_sigagg_run(&s, &req, &src, NULL, &res, &out), SL_ERR_INVALID);
	req.msg = sl_span_of(um.p, um.len);
	req.buffer = 34;
	assert_int_equal(sl_sigagg_run(&s, &req, &src, NULL, &res, &out), SL_ERR_INVALID);
	sl_sigagg_set_release(&s);
	/* a set without keys cannot sign */
	for (size_t i = 0; i < 3; i++)
		w.m[i].has_key = false;
	vs = vset_of(&w);
	assert_int_equal(sl_sigagg_set_build(&vs, &s, why), SL_OK);
	req.buffer = 0;
	assert_int_equal(sl_sigagg_run(&s, &req, &src, NULL, &res, &out), SL_ERR_INVALID);
	assert_non_null(strstr(res.why, "no validator with a BLS key"));
	sl_sigagg_set_release(&s);
	sl_buf_release(&um);
	sl_buf_release(&out);
}

static void test_addresses(void **state)
{
	(void)state;
	char h[64];
	uint16_t port;
	assert_true(sl_sigagg_addr_parse("127.0.0.1:9651", 14, h, &port));
	assert_string_equal(h, "127.0.0.1");
	assert_int_equal(port, 9651);
	assert_true(sl_sigagg_addr_parse("[::1]:80", 8, h, &port));
	assert_string_equal(h, "::1");
	assert_int_equal(port, 80);
	static const char *const bad[] = { "127.0.0.1", "127.0.0.1:", "127.0.0.1:0",   "127.0.0.1:65536",
					   "host:9651", "::1:9651",   "[::1]9651",     "1.2.3.4:96x1",
					   ":9651",	"[]:1",	      "1.2.3.4:123456" };
	for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++)
		assert_false(sl_sigagg_addr_parse(bad[i], strlen(bad[i]), h, &port));
}

static void test_peers(void **state)
{
	(void)state;
	uint8_t a[20] = { 1 }, b[20] = { 2 }, c[20] = { 3 };
	sl_buf na, nb, nc, j;
	sl_buf_init(&na, 64), sl_buf_init(&nb, 64), sl_buf_init(&nc, 64), sl_buf_init(&j, 4096);
	sl_nodeid_write(&na, a), sl_nodeid_write(&nb, b), sl_nodeid_write(&nc, c);
	/* b listed first; a with a publicIP (taken over ip); c without a usable address; a twice */
	sl_buf_addf(&j,
		    "{\"jsonrpc\":\"2.0\",\"result\":{\"numPeers\":\"4\",\"peers\":["
		    "{\"ip\":\"10.0.0.2:9651\",\"nodeID\":\"%s\"},"
		    "{\"ip\":\"10.0.0.1:40000\",\"publicIP\":\"[fe80::1]:9651\",\"nodeID\":\"%s\"},"
		    "{\"ip\":\"nowhere\",\"nodeID\":\"%s\"},"
		    "{\"ip\":\"10.0.0.9:9651\",\"nodeID\":\"NodeID-bad\"},"
		    "{\"ip\":\"10.0.0.1:9651\",\"nodeID\":\"%s\"}]},\"id\":1}",
		    sl_buf_str(&nb), sl_buf_str(&na), sl_buf_str(&nc), sl_buf_str(&na));
	sl_sigagg_peer *t;
	size_t n;
	char why[256];
	assert_int_equal(sl_sigagg_peers_parse(j.p, j.len, &t, &n, why), SL_OK);
	assert_int_equal(n, 2);
	assert_memory_equal(t[0].node, a, 20);
	assert_memory_equal(t[1].node, b, 20);
	assert_string_equal(t[1].host, "10.0.0.2");
	assert_int_equal(t[1].port, 9651);
	assert_ptr_equal(sl_sigagg_peers_find(t, n, b), &t[1]);
	assert_null(sl_sigagg_peers_find(t, n, c));
	free(t);
	static const char *const bad[] = { "not json", "{\"result\":{}}", "{\"result\":{\"peers\":3}}",
					   "{\"error\":{\"code\":-32601,\"message\":\"no such method\"}}" };
	for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
		assert_int_equal(sl_sigagg_peers_parse((const uint8_t *)bad[i], strlen(bad[i]), &t, &n, why),
				 SL_ERR_INVALID);
		assert_true(why[0]);
	}
	assert_non_null(strstr(why, "no such method"));
	const char *none = "{\"result\":{\"numPeers\":\"0\",\"peers\":null}}";
	assert_int_equal(sl_sigagg_peers_parse((const uint8_t *)none, strlen(none), &t, &n, why), SL_OK);
	assert_int_equal(n, 0);
	free(t);
	sl_buf_release(&na), sl_buf_release(&nb), sl_buf_release(&nc), sl_buf_release(&j);
}

/* The trusted node itself: avalanchego's info.getNodeID and info.getNodeIP answers. */
static void test_self(void **state)
{
	(void)state;
	uint8_t a[20] = { 9 }, b[20] = { 1 }, c[20] = { 200 };
	sl_buf na, id;
	sl_buf_init(&na, 64), sl_buf_init(&id, 1024);
	sl_nodeid_write(&na, a);
	sl_buf_addf(&id,
		    "{\"jsonrpc\":\"2.0\",\"result\":{\"nodeID\":\"%s\",\"nodePOP\":{\"publicKey\":\"0x8f\","
		    "\"proofOfPossession\":\"0xa1\"}},\"id\":1}",
		    sl_buf_str(&na));
	const char *ips = "{\"jsonrpc\":\"2.0\",\"result\":{\"ip\":\"127.0.0.1:29651\"},\"id\":1}";
	sl_sigagg_peer self;
	assert_true(sl_sigagg_self_parse(id.p, id.len, (const uint8_t *)ips, strlen(ips), &self));
	assert_memory_equal(self.node, a, 20);
	assert_string_equal(self.host, "127.0.0.1");
	assert_int_equal(self.port, 29651);
	const char *v6 = "{\"result\":{\"ip\":\"[::1]:9651\"}}";
	assert_true(sl_sigagg_self_parse(id.p, id.len, (const uint8_t *)v6, strlen(v6), &self));
	assert_string_equal(self.host, "::1");
	/* a node without info.getNodeIP (snowline's own), no address, an unspecified one, a bad id */
	static const char *const bad_ip[] = {
		"{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32601,\"message\":\"method not found\"},\"id\":1}",
		"{\"result\":{}}",
		"{\"result\":{\"ip\":\"0.0.0.0:9651\"}}",
		"{\"result\":{\"ip\":\"[::]:9651\"}}",
		"{\"result\":{\"ip\":\"127.0.0.1:0\"}}",
		"{\"result\":{\"ip\":\"127.0.0.1\"}}",
		"not json",
	};
	sl_sigagg_peer no;
	for (size_t i = 0; i < SL_ARRAY_LEN(bad_ip); i++)
		assert_false(sl_sigagg_self_parse(id.p, id.len, (const uint8_t *)bad_ip[i], strlen(bad_ip[i]),
						  &no));
	const char *bad_id = "{\"result\":{\"nodeID\":\"NodeID-bad\"}}";
	assert_false(sl_sigagg_self_parse((const uint8_t *)bad_id, strlen(bad_id), (const uint8_t *)ips,
					  strlen(ips), &no));
	assert_false(sl_sigagg_self_parse(NULL, 0, (const uint8_t *)ips, strlen(ips), &no));

	/* added in order; a node already listed keeps info.peers' entry */
	sl_sigagg_peer *t = NULL;
	size_t n = 0;
	sl_sigagg_peer pb = { .port = 1 }, pc = { .port = 2 }, again = self;
	memcpy(pb.node, b, 20), memcpy(pc.node, c, 20);
	again.port = 7;
	assert_int_equal(sl_sigagg_peers_add(&t, &n, &pc), SL_OK);
	assert_int_equal(sl_sigagg_peers_add(&t, &n, &pb), SL_OK);
	assert_int_equal(sl_sigagg_peers_add(&t, &n, &self), SL_OK);
	assert_int_equal(sl_sigagg_peers_add(&t, &n, &again), SL_OK);
	assert_int_equal(n, 3);
	assert_memory_equal(t[0].node, b, 20);
	assert_memory_equal(t[1].node, a, 20);
	assert_memory_equal(t[2].node, c, 20);
	assert_int_equal(sl_sigagg_peers_find(t, n, a)->port, 9651);
	free(t);
	sl_buf_release(&na), sl_buf_release(&id);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_canonical_set), cmocka_unit_test(test_quorum_math),
		cmocka_unit_test(test_all_honest),    cmocka_unit_test(test_bit_set),
		cmocka_unit_test(test_liars_skipped), cmocka_unit_test(test_quorum_unreachable),
		cmocka_unit_test(test_bad_requests),  cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_peers),	      cmocka_unit_test(test_self),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
