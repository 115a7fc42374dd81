/*
 * test_devnet_p2p.c — the devnet's validators on avalanchego's p2p protocol
 * (devnet/p2p.c): a client pool connects to them over loopback TLS with
 * their staking certificates, completes the handshake and gets ACP-118
 * signatures of an unsigned warp message that verify with blst against each
 * node's BLS key; policies from --devnet-p2p-policy (absent, wrong) hold;
 * a message of another network or an unknown source chain is refused with an
 * AppError; info.peers gives the ports the nodes really listen on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "devnet/world.h"

typedef struct got {
	size_t n;
	sl_p2p_answer a[8];
	char why[8][128];
} got;

static bool on_answer(void *ctx, const sl_p2p_answer *a)
{
	got *g = ctx;
	if (g->n < 8) {
		g->a[g->n] = *a;
		snprintf(g->why[g->n], sizeof g->why[0], "%s",
			 a->app_error_message ? a->app_error_message : "");
		g->n++;
	}
	return true;
}

static const sl_p2p_answer *of(got *g, size_t index, size_t *k)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->a[i].index == index) {
			*k = i;
			return &g->a[i];
		}
	fail_msg("no answer for %zu", index);
	return NULL;
}

static void unsigned_msg(uint32_t network_id, const uint8_t chain[32], sl_buf *out)
{
	static const uint8_t payload[] = "hello from the devnet";
	sl_warp_unsigned m = { .network_id = network_id,
			       .source_chain_id = { chain, 32 },
			       .payload = { payload, sizeof payload - 1 } };
	sl_buf_reset(out);
	assert_int_equal(sl_warp_unsigned_encode(&m, out), SL_OK);
}

static void test_devnet_validators(void **state)
{
	char err[256];
	sl_devnet_config cfg = { .seed = "p2p", .txs = 50, .accounts = 8, .validators = 5 };
	sl_devnet *d = sl_devnet_new(&cfg, err);
	assert_non_null(d);
	dn_world *w = dn_world_of(d);
	/* a bad policy is refused with the option named */
	assert_null(sl_devnet_p2p_start(d, &(sl_devnet_p2p_options){ .policy = "0=lazy" }, err));
	assert_non_null(strstr(err, "--devnet-p2p-policy"));
	assert_null(sl_devnet_p2p_start(d, &(sl_devnet_p2p_options){ .policy = "99999=absent" }, err));
	sl_devnet_p2p *p =
		sl_devnet_p2p_start(d, &(sl_devnet_p2p_options){ .policy = "1=absent,2=wrong" }, err);
	assert_non_null(p);

	sl_p2p_target t[3];
	memset(t, 0, sizeof t);
	for (uint32_t i = 0; i < 3; i++) {
		memcpy(t[i].node_id, w->nodes[i].node_id, 20);
		snprintf(t[i].host, sizeof t[i].host, "127.0.0.1");
		t[i].port = sl_devnet_p2p_port(p, i);
		assert_int_not_equal(t[i].port, 0);
	}
	sl_p2p_identity me;
	assert_int_equal(sl_p2p_identity_make(&me, NULL), SL_OK);
	sl_p2p_pool *pool =
		sl_p2p_pool_new(&(sl_p2p_config){ .identity = &me, .network_id = w->cfg.network_id });
	assert_non_null(pool);

	sl_buf msg;
	sl_buf_init(&msg, 4096);
	unsigned_msg(w->cfg.network_id, w->chain[0].id, &msg); /* from the P-chain */
	sl_p2p_sign_request req = { .network_id = w->cfg.network_id,
				    .message = msg.p,
				    .message_len = msg.len,
				    .deadline_ms = 10000 };
	memcpy(req.chain_id, w->chain[0].id, 32);
	got g = { 0 };
	assert_int_equal(sl_p2p_sign_requests(pool, t, 3, &req, on_answer, &g), SL_OK);
	assert_int_equal(g.n, 3);
	size_t k;
	for (uint32_t i = 0; i < 3; i += 2) {
		const sl_p2p_answer *a = of(&g, i, &k);
		assert_int_equal(a->err, SL_OK);
		sl_bls_pk pk;
		sl_bls_sig sig;
		assert_int_equal(sl_bls_pk_decode(&pk, w->nodes[i].bls_pk), SL_OK);
		assert_int_equal(sl_bls_sig_decode(&sig, a->signature), SL_OK);
		/* node 0 is honest, node 2 lies */
		assert_true(sl_bls_verify(&pk, &sig, msg.p, msg.len) == (i == 0));
	}
	assert_int_equal(of(&g, 1, &k)->err, SL_ERR_UNAVAILABLE);

	/* another network, an unknown chain, bytes that are not a warp message: AppErrors */
	uint8_t nowhere[32];
	memset(nowhere, 0x5a, 32);
	const struct {
		uint32_t net;
		const uint8_t *chain;
		bool garbage;
		int32_t code;
	} bad[] = { { w->cfg.network_id + 1, w->chain[1].id, false, 1 },
		    { w->cfg.network_id, nowhere, false, 1 },
		    { w->cfg.network_id, nowhere, true, -1 } };
	for (size_t b = 0; b < SL_ARRAY_LEN(bad); b++) {
		unsigned_msg(bad[b].net, bad[b].chain, &msg);
		req.message = msg.p;
		req.message_len = bad[b].garbage ? 3 : msg.len;
		memset(&g, 0, sizeof g);
		assert_int_equal(sl_p2p_sign_requests(pool, t, 1, &req, on_answer, &g), SL_OK);
		assert_int_equal(g.n, 1);
		assert_int_equal(g.a[0].err, SL_ERR_CONFLICT);
		assert_int_equal(g.a[0].app_error_code, bad[b].code);
		assert_true(g.why[0][0] != 0);
	}

	/* info.peers: the connected validators at the ports they listen on */
	sl_buf peers;
	sl_buf_init(&peers, 1 << 20);
	sl_devnet_peers_write(d, &peers);
	assert_int_equal(peers.err, SL_OK);
	size_t found = 0;
	for (uint32_t i = 0; i < w->nnodes; i++) {
		char ip[40];
		snprintf(ip, sizeof ip, "\"127.0.0.1:%u\"", sl_devnet_p2p_port(p, i));
		found += strstr(sl_buf_str(&peers), ip) != NULL;
	}
	assert_true(found >= 1);

	sl_buf_release(&peers);
	sl_buf_release(&msg);
	sl_p2p_pool_free(pool);
	sl_devnet_p2p_stop(p);
	assert_null(w->p2p_ports);
	sl_devnet_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devnet_validators),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
