/*
 * sigagg_bench.c — signature aggregation's cost (bench/sigagg.sh; docs/sigagg.md).
 *
 *   in process, N validators (1,000 by default) whose answers are made before timing:
 *     set      the canonical set from the stored form (N key decodes with subgroup checks, sort)
 *     run      sl_sigagg_run to 67% and to 100%, all honest, with one liar, and with a tenth lying
 *     FAV      one fast-aggregate-verify of the same N keys (aggregate the keys, one verify):
 *              the floor for checking N signatures
 *     single   N verifies one by one (how an aggregator that checks each answer alone pays)
 *   over loopback p2p, M validators (100) served by src/p2p's server with their own
 *   certificates: one aggregation to 100%, first (connections made) and then with the pool's
 *   connections reused, and R aggregations to 67% one after another (each stops at quorum with
 *   requests still in flight): their best, their median, and the connections the validators
 *   accepted meanwhile (0 when the pool reuses its links).
 *
 * Each figure is the best of R rounds (3). Usage: sigagg_bench [N] [M] [R]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "api/sigagg_peers.h"
#include "codec/warp.h"
#include "crypto/hash.h"
#include "p2p/p2p.h"

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

typedef struct pre {
	size_t n;
	sl_vset_member *m;
	uint8_t (*sig)[SL_BLS_SIG_LEN];
	bool *lie;
} pre;

static void ask(void *ctx, const sl_sigagg_ask *q, sl_sigagg_answer_fn answer, void *actx)
{
	pre *p = ctx;
	for (size_t i = 0; i < p->n; i++) {
		const uint8_t *s = p->sig[i];
		uint8_t other[SL_BLS_SIG_LEN];
		if (p->lie[i]) { /* another member's signature: valid point, wrong key */
			memcpy(other, p->sig[(i + 1) % p->n], sizeof other);
			s = other;
		}
		if (!answer(actx, p->m[i].node, s, SL_BLS_SIG_LEN))
			return;
	}
}

static int node_cmp(const void *a, const void *b) { return memcmp(a, b, 20); }

static const sl_vset_member *g_members;
static int ord_cmp(const void *a, const void *b)
{
	return memcmp(g_members[*(const size_t *)a].node, g_members[*(const size_t *)b].node, 20);
}

static void make_msg(sl_buf *um)
{
	static const uint8_t chain[32] = { 1 };
	static const uint8_t payload[] = { 0, 0, 0, 0, 0, 0, 'b', 'e', 'n', 'c', 'h' };
	sl_warp_unsigned u = { .network_id = 12345,
			       .source_chain_id = sl_span_of(chain, 32),
			       .payload = sl_span_of(payload, sizeof payload) };
	sl_buf_init(um, 4096);
	if (sl_warp_unsigned_encode(&u, um))
		abort();
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The best of R runs; with median, also the median (the best alone hides a run that pays again). */
static double runs(const sl_sigagg_set *set, const sl_sigagg_req *req, const sl_sigagg_source *src,
		   int rounds, sl_sigagg_result *res, double *median)
{
	double *dt = calloc((size_t)rounds, sizeof *dt);
	if (!dt)
		abort();
	for (int r = 0; r < rounds; r++) {
		sl_buf out;
		sl_buf_init(&out, 1 << 20);
		double t0 = now_ms();
		sl_err e = sl_sigagg_run(set, req, src, NULL, res, &out);
		dt[r] = now_ms() - t0;
		sl_buf_release(&out);
		if (e) {
			fprintf(stderr, "sigagg bench: run failed: %s\n", res->why);
			exit(1);
		}
	}
	qsort(dt, (size_t)rounds, sizeof *dt, dbl_cmp);
	double best = dt[0];
	if (median)
		*median = rounds % 2 ? dt[rounds / 2] : (dt[rounds / 2 - 1] + dt[rounds / 2]) / 2;
	free(dt);
	return best;
}

static double best_run(const sl_sigagg_set *set, const sl_sigagg_req *req, const sl_sigagg_source *src,
		       int rounds, sl_sigagg_result *res)
{
	return runs(set, req, src, rounds, res, NULL);
}

static void in_process(size_t n, int rounds)
{
	pre p = { .n = n };
	p.m = calloc(n, sizeof *p.m);
	p.sig = calloc(n, sizeof *p.sig);
	p.lie = calloc(n, sizeof *p.lie);
	sl_bls_sk *sk = calloc(n, sizeof *sk);
	sl_bls_pk *pk = calloc(n, sizeof *pk);
	sl_bls_sig *sg = calloc(n, sizeof *sg);
	if (!p.m || !p.sig || !p.lie || !sk || !pk || !sg)
		abort();
	sl_buf um;
	make_msg(&um);
	for (size_t i = 0; i < n; i++) {
		uint8_t seed[32], b[32];
		memset(seed, 0, sizeof seed);
		memcpy(seed, &i, sizeof i);
		for (;;) {
			sl_sha256(seed, sizeof seed, b);
			b[0] &= 0x3f;
			if (!sl_bls_sk_decode(&sk[i], b))
				break;
			seed[31]++;
		}
		sl_bls_sk_to_pk(&sk[i], &pk[i]);
		sl_sha256(b, 32, seed);
		memcpy(p.m[i].node, seed, 20);
		p.m[i].weight = 1000 + i;
		p.m[i].has_key = true;
		sl_bls_pk_encode(&pk[i], p.m[i].key);
		sl_bls_sign(&sk[i], um.p, um.len, &sg[i]);
		sl_bls_sig_encode(&sg[i], p.sig[i]);
	}
	/* the vset's order (by node id), the answers following their members */
	size_t *ord = calloc(n, sizeof *ord);
	sl_vset_member *sorted = calloc(n, sizeof *sorted);
	uint8_t(*sigs)[SL_BLS_SIG_LEN] = calloc(n, sizeof *sigs);
	if (!ord || !sorted || !sigs)
		abort();
	for (size_t i = 0; i < n; i++)
		ord[i] = i;
	g_members = p.m;
	qsort(ord, n, sizeof *ord, ord_cmp);
	for (size_t k = 0; k < n; k++) {
		sorted[k] = p.m[ord[k]];
		memcpy(sigs[k], p.sig[ord[k]], SL_BLS_SIG_LEN);
	}
	free(p.m), free(p.sig), free(ord);
	p.m = sorted;
	p.sig = sigs;
	sl_vset vs = { .height = 1, .v = p.m, .n = n };
	sl_sigagg_set set;
	char why[160];
	double best = 1e18;
	for (int r = 0; r < rounds; r++) {
		double t0 = now_ms();
		if (sl_sigagg_set_build(&vs, &set, why))
			abort();
		double dt = now_ms() - t0;
		best = dt < best ? dt : best;
		if (r + 1 < rounds)
			sl_sigagg_set_release(&set);
	}
	printf("| %zu validators | canonical set from the store's form | %.2f ms |\n", n, best);
	sl_sigagg_source src = { .ctx = &p, .ask = ask };
	sl_sigagg_req req = { .network_id = 12345, .msg = sl_span_of(um.p, um.len), .quorum = 67 };
	sl_sigagg_result res;
	printf("| %zu validators | aggregate to 67%%, all honest | %.2f ms |\n", n,
	       best_run(&set, &req, &src, rounds, &res));
	req.quorum = 100;
	printf("| %zu validators | aggregate to 100%%, all honest | %.2f ms |\n", n,
	       best_run(&set, &req, &src, rounds, &res));
	p.lie[n / 3] = true;
	req.quorum = 67;
	printf("| %zu validators | aggregate to 67%%, one lying | %.2f ms |\n", n,
	       best_run(&set, &req, &src, rounds, &res));
	for (size_t i = 0; i < n; i += 10)
		p.lie[i] = true;
	req.quorum = 67;
	printf("| %zu validators | aggregate to 67%%, a tenth lying | %.2f ms |\n", n,
	       best_run(&set, &req, &src, rounds, &res));
	/* one fast-aggregate-verify of the same keys: aggregate them, one verify */
	best = 1e18;
	sl_bls_sig agg;
	if (sl_bls_sig_aggregate(&agg, sg, n))
		abort();
	for (int r = 0; r < rounds; r++) {
		double t0 = now_ms();
		sl_bls_pk apk;
		if (sl_bls_pk_aggregate(&apk, pk, n) || !sl_bls_verify(&apk, &agg, um.p, um.len))
			abort();
		double dt = now_ms() - t0;
		best = dt < best ? dt : best;
	}
	printf("| %zu validators | one fast-aggregate-verify (same process) | %.2f ms |\n", n, best);
	double t0 = now_ms();
	for (size_t i = 0; i < n; i++)
		if (!sl_bls_verify(&pk[i], &sg[i], um.p, um.len))
			abort();
	printf("| %zu validators | each signature verified alone | %.2f ms |\n", n, now_ms() - t0);
	sl_sigagg_set_release(&set);
	sl_buf_release(&um);
	free(p.m), free(p.sig), free(p.lie), free(sk), free(pk), free(sg);
}

static sl_p2p_identity *g_vid;

static sl_err sign_cb(void *ctx, size_t index, const uint8_t chain_id[32], const uint8_t *msg, size_t msg_len,
		      const uint8_t *just, size_t just_len, uint8_t sig[96], int32_t *code, char why[256])
{
	sl_bls_sig s;
	sl_bls_sign(&g_vid[index].bls, msg, msg_len, &s);
	sl_bls_sig_encode(&s, sig);
	return SL_OK;
}

static void over_p2p(size_t m, int rounds)
{
	g_vid = calloc(m, sizeof *g_vid);
	sl_p2p_listener *ls = calloc(m, sizeof *ls);
	sl_vset_member *mem = calloc(m, sizeof *mem);
	sl_sigagg_peer *peers = calloc(m, sizeof *peers);
	if (!g_vid || !ls || !mem || !peers)
		abort();
	for (size_t i = 0; i < m; i++) {
		uint8_t seed[32] = { 'b', (uint8_t)i, (uint8_t)(i >> 8) };
		if (sl_p2p_identity_make(&g_vid[i], seed))
			abort();
		ls[i].identity = g_vid[i];
	}
	sl_err err;
	sl_p2p_server *srv = sl_p2p_server_start(
		&(sl_p2p_server_config){ .network_id = 12345, .listeners = ls, .n = m, .sign = sign_cb },
		&err);
	if (!srv) {
		fprintf(stderr, "sigagg bench: the p2p server did not start: %s\n", sl_err_name(err));
		exit(1);
	}
	for (size_t i = 0; i < m; i++) {
		sl_bls_pk pk;
		sl_bls_sk_to_pk(&g_vid[i].bls, &pk);
		memcpy(mem[i].node, g_vid[i].node_id, 20);
		mem[i].weight = 100;
		mem[i].has_key = true;
		sl_bls_pk_encode(&pk, mem[i].key);
		memcpy(peers[i].node, g_vid[i].node_id, 20);
		snprintf(peers[i].host, sizeof peers[i].host, "127.0.0.1");
		peers[i].port = sl_p2p_server_port(srv, i);
	}
	qsort(mem, m, sizeof *mem, node_cmp);
	sl_vset vs = { .height = 1, .v = mem, .n = m };
	sl_sigagg_set set;
	char why[160], e512[512];
	if (sl_sigagg_set_build(&vs, &set, why))
		abort();
	sl_sigagg_p2p *src = sl_sigagg_p2p_new(
		&(sl_sigagg_p2p_config){ .network_id = 12345, .peers = peers, .npeers = m }, e512);
	if (!src)
		abort();
	sl_buf um;
	make_msg(&um);
	sl_sigagg_req req = {
		.network_id = 12345, .msg = sl_span_of(um.p, um.len), .quorum = 100, .timeout_ms = 20000
	};
	sl_sigagg_result res;
	printf("| %zu validators, loopback p2p | first aggregation to 100%% (TLS connections made) | %.2f ms |\n",
	       m, best_run(&set, &req, sl_sigagg_p2p_source(src), 1, &res));
	printf("| %zu validators, loopback p2p | aggregate to 100%%, connections reused | %.2f ms |\n", m,
	       best_run(&set, &req, sl_sigagg_p2p_source(src), rounds, &res));
	req.quorum = 67;
	uint64_t conns = sl_p2p_server_accepted(srv);
	double med, best = runs(&set, &req, sl_sigagg_p2p_source(src), rounds, &res, &med);
	conns = sl_p2p_server_accepted(srv) - conns;
	printf("| %zu validators, loopback p2p | aggregate to 67%%, connections reused | %.2f ms |\n", m,
	       best);
	/* an aggregation that stops at quorum leaves requests in flight: the median shows whether
	 * the next one still finds those links */
	printf("| %zu validators, loopback p2p | aggregate to 67%%, one after another: median of %d | %.2f ms |\n",
	       m, rounds, med);
	printf("| %zu validators, loopback p2p | connections made during those %d aggregations | %llu |\n", m,
	       rounds, (unsigned long long)conns);
	sl_sigagg_p2p_free(src);
	sl_sigagg_set_release(&set);
	sl_p2p_server_stop(srv);
	sl_buf_release(&um);
	free(g_vid), free(ls), free(mem), free(peers);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	size_t m = argc > 2 ? strtoul(argv[2], NULL, 10) : 100;
	int rounds = argc > 3 ? (int)strtol(argv[3], NULL, 10) : 3;
	if (!n || n > 100000 || m > 2000 || rounds < 1) {
		fprintf(stderr, "usage: sigagg_bench [N 1..100000] [M 0..2000] [rounds]\n");
		return 2;
	}
	printf("| set | what | best of %d |\n|---|---|---|\n", rounds);
	in_process(n, rounds);
	if (m)
		over_p2p(m, rounds);
	return 0;
}
