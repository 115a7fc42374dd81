/*
 * test_devnet_p2p.c — the devnet's validators on avalanchego's p2p protocol
 * (devnet/p2p.c): a client pool connects to them over loopback TLS with
 * their staking certificates, completes the handshake and gets ACP-118
 * signatures of an unsigned warp message that verify with blst against each
 * node's BLS key; policies from --devnet-p2p-policy (absent, wrong) hold;
 * a message of another network or an unknown source chain is refused with an
 * AppError; info.peers gives the ports the nodes really listen on. A message
 * from the P-chain is signed only when it is one of the P-chain's L1 messages
 * true to the devnet's P-chain state after its history (avalanchego's
 * vms/platformvm/network/warp.go), else refused with avalanchego's code.
 * A message from a chain of a subnet or an L1 is signed by the nodes the
 * manifest says validate that subnet now (current permissioned validators,
 * active L1 validators) and refused by every other node asked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>

#include "crypto/cb58.h"
#include "crypto/hash.h"
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
	unsigned_msg(w->cfg.network_id, w->chain[DN_X].id, &msg); /* from the X-chain: any payload */
	sl_p2p_sign_request req = { .network_id = w->cfg.network_id,
				    .message = msg.p,
				    .message_len = msg.len,
				    .deadline_ms = 10000 };
	memcpy(req.chain_id, w->chain[DN_X].id, 32);
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

/* ---- the P-chain's L1 messages ---------------------------------------------------------------- */

static sl_err keep(void *ctx, sl_ikind kind, const uint8_t id[32], int64_t ts_ns, const uint8_t *bytes,
		   size_t len)
{
	(void)ctx, (void)kind, (void)id, (void)ts_ns, (void)bytes, (void)len;
	return SL_OK;
}

typedef struct pclient {
	dn_world *w;
	sl_p2p_pool *pool;
	sl_p2p_target t;
	sl_buf msg;
} pclient;

/* Ask node 0 to sign l1 (an AddressedCall from the P-chain with source address src) with
 * justification just; returns the AppError code, 0 when it signed (the signature verifies). */
static int32_t ask(pclient *c, const sl_warp_l1_msg *l1, const char *src, const uint8_t *just,
		   size_t just_len)
{
	sl_buf lb, pb;
	sl_buf_init(&lb, 4096);
	sl_buf_init(&pb, 4096);
	assert_int_equal(sl_warp_l1_encode(l1, &lb), SL_OK);
	sl_warp_payload pl = { .type = SL_WARP_PAYLOAD_ADDRESSED_CALL,
			       .source_address = { (const uint8_t *)src, strlen(src) },
			       .payload = { lb.p, lb.len } };
	assert_int_equal(sl_warp_payload_encode(&pl, &pb), SL_OK);
	sl_warp_unsigned m = { .network_id = c->w->cfg.network_id,
			       .source_chain_id = { c->w->chain[DN_P].id, 32 },
			       .payload = { pb.p, pb.len } };
	sl_buf_reset(&c->msg);
	assert_int_equal(sl_warp_unsigned_encode(&m, &c->msg), SL_OK);
	sl_buf_release(&lb);
	sl_buf_release(&pb);
	sl_p2p_sign_request req = { .network_id = c->w->cfg.network_id,
				    .message = c->msg.p,
				    .message_len = c->msg.len,
				    .justification = just,
				    .justification_len = just_len,
				    .deadline_ms = 10000 };
	memcpy(req.chain_id, c->w->chain[DN_P].id, 32);
	got g = { 0 };
	assert_int_equal(sl_p2p_sign_requests(c->pool, &c->t, 1, &req, on_answer, &g), SL_OK);
	assert_int_equal(g.n, 1);
	if (g.a[0].err) {
		assert_int_equal(g.a[0].err, SL_ERR_CONFLICT);
		assert_true(g.why[0][0] != 0);
		return g.a[0].app_error_code;
	}
	sl_bls_pk pk;
	sl_bls_sig sig;
	assert_int_equal(sl_bls_pk_decode(&pk, c->w->nodes[0].bls_pk), SL_OK);
	assert_int_equal(sl_bls_sig_decode(&sig, g.a[0].signature), SL_OK);
	assert_true(sl_bls_verify(&pk, &sig, c->msg.p, c->msg.len));
	return 0;
}

/* L1ValidatorRegistrationJustification{ subnet_id_index: { subnet_id, index } } */
static size_t just_index_n(uint8_t *out, const uint8_t *subnet, uint8_t len, uint32_t index)
{
	out[0] = 0x0a, out[1] = (uint8_t)(2 + len + 2), out[2] = 0x0a, out[3] = len;
	memcpy(out + 4, subnet, len);
	out[4 + len] = 0x10, out[5 + len] = (uint8_t)index; /* index < 128 */
	return 6u + len;
}

static size_t just_index(uint8_t *out, const uint8_t subnet[32], uint32_t index)
{
	return just_index_n(out, subnet, 32, index);
}

/* ... { register_l1_validator_message: msg } (128 to 16383 bytes: a 2-byte length) */
static size_t just_register(uint8_t *out, size_t cap, const uint8_t *msg, size_t len)
{
	assert_true(len >= 128 && len < 16384 && len + 3 <= cap);
	out[0] = 0x12, out[1] = (uint8_t)(len | 0x80), out[2] = (uint8_t)(len >> 7);
	memcpy(out + 3, msg, len);
	return len + 3;
}

/* ---- chains of subnets and L1s ------------------------------------------------------------------- */

#define MAX_PAIRS 4096

typedef struct pair {
	uint32_t node;
	char subnet[64];
} pair;

static int cmp_pair(const void *a, const void *b)
{
	const pair *x = a, *y = b;
	return x->node != y->node ? (x->node < y->node ? -1 : 1) : strcmp(x->subnet, y->subnet);
}

static bool has_pair(const pair *v, size_t n, uint32_t node, const char *subnet)
{
	pair k = { .node = node };
	snprintf(k.subnet, sizeof k.subnet, "%s", subnet);
	return bsearch(&k, v, n, sizeof k, cmp_pair) != NULL;
}

static uint32_t node_index(json_t *nodes, const char *node_id)
{
	for (size_t i = 0; i < json_array_size(nodes); i++) {
		json_t *n = json_array_get(nodes, i);
		if (!strcmp(json_string_value(json_object_get(n, "nodeId")), node_id))
			return (uint32_t)json_integer_value(json_object_get(n, "index"));
	}
	fail_msg("no node %s", node_id);
	return 0;
}

/*
 * The view's chains and members against the manifest's subnets, permissioned validators and L1
 * validators; then a message from each subnet's first chain, asked of its validators (each signs,
 * the signature verifies against its node's key), of node 0 and of its inactive L1 validators
 * when they do not validate it (each refuses, code 1).
 */
static void check_subnet_chains(sl_devnet *d, sl_devnet_p2p *p, sl_p2p_pool *pool)
{
	dn_world *w = dn_world_of(d);
	dn_l1view *v = &w->l1view;
	sl_buf mb;
	sl_buf_init(&mb, 1u << 26);
	sl_devnet_manifest_write(d, &mb);
	assert_int_equal(mb.err, SL_OK);
	json_t *man = json_loads(sl_buf_str(&mb), 0, NULL);
	assert_non_null(man);
	json_t *nodes = json_object_get(man, "nodes"), *pm = json_object_get(man, "P");
	pair *want = calloc(MAX_PAIRS, sizeof *want), *inactive = calloc(MAX_PAIRS, sizeof *inactive);
	assert_non_null(want);
	assert_non_null(inactive);
	size_t nwant = 0, ninactive = 0, i;
	json_t *x;
	json_array_foreach(json_object_get(pm, "validators"), i, x)
	{
		if (strcmp(json_string_value(json_object_get(x, "txType")), "AddSubnetValidatorTx") ||
		    strcmp(json_string_value(json_object_get(x, "validationStatus")), "active"))
			continue;
		assert_true(nwant < MAX_PAIRS);
		want[nwant].node = node_index(nodes, json_string_value(json_object_get(x, "nodeId")));
		snprintf(want[nwant++].subnet, 64, "%s", json_string_value(json_object_get(x, "subnetId")));
	}
	json_array_foreach(json_object_get(pm, "l1Validators"), i, x)
	{
		if (json_is_true(json_object_get(x, "removed")))
			continue;
		bool active = json_is_true(json_object_get(x, "active"));
		pair *to = active ? &want[nwant++] : &inactive[ninactive++];
		assert_true(nwant < MAX_PAIRS && ninactive < MAX_PAIRS);
		to->node = node_index(nodes, json_string_value(json_object_get(x, "nodeId")));
		snprintf(to->subnet, 64, "%s", json_string_value(json_object_get(x, "subnetId")));
	}
	qsort(want, nwant, sizeof *want, cmp_pair);
	size_t k = 0;
	for (i = 0; i < nwant; i++)
		if (!k || cmp_pair(&want[k - 1], &want[i]))
			want[k++] = want[i];
	nwant = k;
	assert_true(ninactive > 0); /* an L1 validator whose balance ran out, or disabled */

	/* the view says the same: its members, and each chain's subnet */
	pthread_mutex_lock(&v->mu);
	assert_int_equal(v->nmembers, nwant);
	pair *got_members = calloc(nwant ? nwant : 1, sizeof *got_members);
	assert_non_null(got_members);
	for (i = 0; i < v->nmembers; i++) {
		got_members[i].node = v->members[i].node;
		sl_cb58_id(got_members[i].subnet, v->members[i].subnet);
	}
	qsort(got_members, nwant, sizeof *got_members, cmp_pair);
	for (i = 0; i < nwant; i++) {
		assert_int_equal(got_members[i].node, want[i].node);
		assert_string_equal(got_members[i].subnet, want[i].subnet);
	}
	free(got_members);
	size_t nchains = 0;
	json_t *sn;
	json_array_foreach(json_object_get(pm, "subnets"), i, sn)
	{
		size_t c;
		json_t *ch;
		json_array_foreach(json_object_get(sn, "chains"), c, ch)
		{
			bool found = false;
			for (size_t q = 0; q < v->nchains; q++) {
				char a[64], b[64];
				sl_cb58_id(a, v->chains[q].chain);
				sl_cb58_id(b, v->chains[q].subnet);
				if (!strcmp(a, json_string_value(json_object_get(ch, "chainId")))) {
					assert_string_equal(
						b, json_string_value(json_object_get(sn, "subnetId")));
					found = true;
				}
			}
			assert_true(found);
			nchains++;
		}
	}
	assert_int_equal(v->nchains, nchains);
	pthread_mutex_unlock(&v->mu);

	/* ask */
	size_t signed_perm = 0, signed_l1 = 0, refused = 0, refused_inactive = 0;
	sl_buf msg;
	sl_buf_init(&msg, 4096);
	sl_p2p_target *t = calloc(w->nnodes, sizeof *t);
	bool *expect = calloc(w->nnodes, sizeof *expect);
	assert_non_null(t);
	assert_non_null(expect);
	json_array_foreach(json_object_get(pm, "subnets"), i, sn)
	{
		json_t *ch = json_array_get(json_object_get(sn, "chains"), 0);
		if (!ch)
			continue;
		const char *subnet = json_string_value(json_object_get(sn, "subnetId"));
		bool l1 = json_is_true(json_object_get(sn, "isL1"));
		uint8_t chain[32];
		const char *cid = json_string_value(json_object_get(ch, "chainId")), *why;
		char whybuf[96];
		assert_int_equal(sl_cb58_decode_id(cid, strlen(cid), chain, &why, whybuf), SL_OK);
		size_t n = 0;
		for (uint32_t node = 0; node < w->nnodes; node++) {
			bool member = has_pair(want, nwant, node, subnet);
			bool ask_it = member || node == 0;
			for (size_t q = 0; q < ninactive && !ask_it; q++)
				ask_it = inactive[q].node == node && !strcmp(inactive[q].subnet, subnet);
			if (!ask_it)
				continue;
			memset(&t[n], 0, sizeof t[n]);
			memcpy(t[n].node_id, w->nodes[node].node_id, 20);
			snprintf(t[n].host, sizeof t[n].host, "127.0.0.1");
			t[n].port = sl_devnet_p2p_port(p, node);
			expect[n++] = member;
		}
		unsigned_msg(w->cfg.network_id, chain, &msg);
		sl_p2p_sign_request req = { .network_id = w->cfg.network_id,
					    .message = msg.p,
					    .message_len = msg.len,
					    .deadline_ms = 10000 };
		memcpy(req.chain_id, chain, 32);
		for (size_t off = 0; off < n; off += 8) { /* the answers' record holds 8 */
			size_t m = SL_MIN(n - off, 8);
			got g = { 0 };
			assert_int_equal(sl_p2p_sign_requests(pool, t + off, m, &req, on_answer, &g), SL_OK);
			assert_int_equal(g.n, m);
			for (size_t a = 0; a < m; a++) {
				const sl_p2p_answer *ans = &g.a[a];
				size_t ti = off + ans->index;
				uint32_t node = 0;
				while (memcmp(w->nodes[node].node_id, t[ti].node_id, 20))
					node++;
				if (!expect[ti]) {
					assert_int_equal(ans->err, SL_ERR_CONFLICT);
					assert_int_equal(ans->app_error_code, 1);
					assert_non_null(strstr(g.why[a], "not a validator of subnet"));
					refused++;
					for (size_t q = 0; q < ninactive; q++)
						refused_inactive += inactive[q].node == node &&
								    !strcmp(inactive[q].subnet, subnet);
					continue;
				}
				assert_int_equal(ans->err, SL_OK);
				sl_bls_pk pk;
				sl_bls_sig sig;
				assert_int_equal(sl_bls_pk_decode(&pk, w->nodes[node].bls_pk), SL_OK);
				assert_int_equal(sl_bls_sig_decode(&sig, ans->signature), SL_OK);
				assert_true(sl_bls_verify(&pk, &sig, msg.p, msg.len));
				if (l1)
					signed_l1++;
				else
					signed_perm++;
			}
		}
	}
	assert_true(signed_perm > 0 && signed_l1 > 0 && refused > 0 && refused_inactive > 0);

	free(t);
	free(expect);
	sl_buf_release(&msg);
	free(want);
	free(inactive);
	json_decref(man);
	sl_buf_release(&mb);
}

static void test_pchain_messages(void **state)
{
	(void)state;
	char err[256];
	sl_devnet_config cfg = { .seed = "p2p-l1", .txs = 6000, .accounts = 16, .validators = 5 };
	sl_devnet *d = sl_devnet_new(&cfg, err);
	assert_non_null(d);
	assert_int_equal(sl_devnet_history(d, keep, NULL), SL_OK);
	dn_world *w = dn_world_of(d);
	dn_l1view *v = &w->l1view;
	/* the view after the history: some L1s, validations current and removed, some weight changed */
	assert_true(v->nconv > 0);
	long cur = -1, gone = -1, moved = -1;
	for (size_t i = 0; i < v->nval; i++) {
		if (v->val[i].removed)
			gone = (long)i;
		else if (v->val[i].nonce > 0)
			moved = (long)i;
		else
			cur = (long)i;
	}
	assert_true(cur >= 0 && gone >= 0 && moved >= 0);
	assert_int_equal(v->time, w->chain[DN_P].last_time);

	sl_devnet_p2p *p = sl_devnet_p2p_start(d, &(sl_devnet_p2p_options){ 0 }, err);
	assert_non_null(p);
	pclient c = { .w = w };
	memcpy(c.t.node_id, w->nodes[0].node_id, 20);
	snprintf(c.t.host, sizeof c.t.host, "127.0.0.1");
	c.t.port = sl_devnet_p2p_port(p, 0);
	sl_p2p_identity me;
	assert_int_equal(sl_p2p_identity_make(&me, NULL), SL_OK);
	c.pool = sl_p2p_pool_new(&(sl_p2p_config){ .identity = &me, .network_id = w->cfg.network_id });
	assert_non_null(c.pool);
	sl_buf_init(&c.msg, 4096);

	/* SubnetToL1Conversion: justified by the subnet id, with the conversion id the P-chain keeps */
	const dn_l1conv *cv = &v->conv[0];
	sl_warp_l1_msg m = { .type = SL_WARP_L1_SUBNET_CONVERSION,
			     .conversion_id = { cv->conversion_id, 32 } };
	assert_int_equal(ask(&c, &m, "", cv->subnet, 32), 0);
	assert_int_equal(ask(&c, &m, "0x12", cv->subnet, 32), 2); /* a source address */
	assert_int_equal(ask(&c, &m, "", cv->subnet, 31), 5);	  /* not a subnet id */
	uint8_t other[32];
	memset(other, 0x77, 32);
	assert_int_equal(ask(&c, &m, "", other, 32), 6); /* a subnet never converted */
	m.conversion_id = (sl_span){ other, 32 };
	assert_int_equal(ask(&c, &m, "", cv->subnet, 32), 7); /* the wrong conversion id */

	/* L1ValidatorRegistration(true): while the validation is current */
	m = (sl_warp_l1_msg){ .type = SL_WARP_L1_VALIDATOR_REGISTRATION,
			      .validation_id = { v->val[cur].vid, 32 },
			      .registered = true };
	assert_int_equal(ask(&c, &m, "", NULL, 0), 0);
	m.validation_id = (sl_span){ v->val[gone].vid, 32 };
	assert_int_equal(ask(&c, &m, "", NULL, 0), 11);
	m.validation_id = (sl_span){ other, 32 };
	assert_int_equal(ask(&c, &m, "", NULL, 0), 11);

	/* (false), justified by a validator of a conversion: signed unless it is current */
	m.registered = false;
	uint8_t j[512];
	size_t signed_conv = 0, refused_conv = 0;
	for (size_t k = 0; k < v->nconv; k++)
		for (uint32_t i = 0; i < 4; i++) {
			uint8_t vid[32];
			sl_warp_conversion_validation_id(v->conv[k].subnet, i, vid);
			const dn_l1val *l = NULL;
			for (size_t x = 0; x < v->nval; x++)
				if (!memcmp(v->val[x].vid, vid, 32))
					l = &v->val[x];
			if (!l)
				continue;
			m.validation_id = (sl_span){ vid, 32 };
			int32_t code = ask(&c, &m, "", j, just_index(j, v->conv[k].subnet, i));
			assert_int_equal(code, l->removed ? 0 : 12);
			signed_conv += code == 0, refused_conv += code != 0;
			/* the index of another validation */
			assert_int_equal(ask(&c, &m, "", j, just_index(j, v->conv[k].subnet, i + 1)), 10);
		}
	assert_true(refused_conv > 0);
	m.validation_id = (sl_span){ other, 32 };
	assert_int_equal(ask(&c, &m, "", j, 0), 8);			      /* no preimage */
	assert_int_equal(ask(&c, &m, "", (const uint8_t *)"\x0a\x05", 2), 5); /* truncated */
	uint8_t never[32];
	sl_warp_conversion_validation_id(other, 0, never);
	m.validation_id = (sl_span){ never, 32 };
	assert_int_equal(ask(&c, &m, "", j, just_index(j, other, 0)), 6);	/* subnet not converted */
	assert_int_equal(ask(&c, &m, "", j, just_index_n(j, other, 31, 0)), 9); /* a short subnet id */

	/* (false), justified by a RegisterL1ValidatorMessage never registered: once it has expired */
	static const uint8_t node[20] = { 1, 2, 3 }, pk[48] = { 9 };
	sl_warp_l1_msg reg = { .type = SL_WARP_L1_REGISTER_VALIDATOR,
			       .subnet_id = { cv->subnet, 32 },
			       .node_id = { node, 20 },
			       .bls_public_key = { pk, 48 },
			       .expiry = v->time - 1,
			       .remaining_balance_owner = { .threshold = 0 },
			       .disable_owner = { .threshold = 0 },
			       .weight = 100 };
	for (int late = 0; late < 2; late++) {
		reg.expiry = late ? v->time + 3600 : v->time;
		sl_buf rb;
		sl_buf_init(&rb, 4096);
		assert_int_equal(sl_warp_l1_encode(&reg, &rb), SL_OK);
		uint8_t rid[32];
		sl_sha256(rb.p, rb.len, rid);
		m.validation_id = (sl_span){ rid, 32 };
		size_t jl = just_register(j, sizeof j, rb.p, rb.len);
		assert_int_equal(ask(&c, &m, "", j, jl), late ? 14 : 0);
		m.validation_id = (sl_span){ other, 32 };
		assert_int_equal(ask(&c, &m, "", j, jl), 10);
		jl = just_register(j, sizeof j, rb.p, rb.len - 1);
		assert_int_equal(ask(&c, &m, "", j, jl), 13);
		sl_buf_release(&rb);
	}

	/* L1ValidatorWeight: the nonce just below the next one and the weight of now */
	const dn_l1val *mv = &v->val[moved];
	m = (sl_warp_l1_msg){ .type = SL_WARP_L1_VALIDATOR_WEIGHT,
			      .validation_id = { mv->vid, 32 },
			      .nonce = mv->nonce - 1,
			      .weight = mv->weight };
	assert_int_equal(ask(&c, &m, "", NULL, 0), 0);
	m.nonce = mv->nonce;
	assert_int_equal(ask(&c, &m, "", NULL, 0), 16);
	m.nonce = mv->nonce - 1, m.weight = mv->weight + 1;
	assert_int_equal(ask(&c, &m, "", NULL, 0), 17);
	m.nonce = UINT64_MAX;
	assert_int_equal(ask(&c, &m, "", NULL, 0), 15);
	m.validation_id = (sl_span){ v->val[gone].vid, 32 }, m.nonce = 0;
	assert_int_equal(ask(&c, &m, "", NULL, 0), 11);

	/* a RegisterL1Validator message is not one the P-chain signs */
	assert_int_equal(ask(&c, &reg, "", NULL, 0), 4);

	/* a Hash payload, or no payload at all, from the P-chain */
	uint8_t h[32] = { 0 };
	sl_buf pb;
	sl_buf_init(&pb, 4096);
	sl_warp_payload hp = { .type = SL_WARP_PAYLOAD_HASH, .hash = { h, 32 } };
	assert_int_equal(sl_warp_payload_encode(&hp, &pb), SL_OK);
	for (int raw = 0; raw < 2; raw++) {
		sl_warp_unsigned um = { .network_id = w->cfg.network_id,
					.source_chain_id = { w->chain[DN_P].id, 32 },
					.payload = raw ? (sl_span){ (const uint8_t *)"hello", 5 }
						       : (sl_span){ pb.p, pb.len } };
		sl_buf_reset(&c.msg);
		assert_int_equal(sl_warp_unsigned_encode(&um, &c.msg), SL_OK);
		sl_p2p_sign_request req = { .network_id = w->cfg.network_id,
					    .message = c.msg.p,
					    .message_len = c.msg.len,
					    .deadline_ms = 10000 };
		memcpy(req.chain_id, w->chain[DN_P].id, 32);
		got g = { 0 };
		assert_int_equal(sl_p2p_sign_requests(c.pool, &c.t, 1, &req, on_answer, &g), SL_OK);
		assert_int_equal(g.n, 1);
		assert_int_equal(g.a[0].err, SL_ERR_CONFLICT);
		assert_int_equal(g.a[0].app_error_code, 1);
	}
	sl_buf_release(&pb);

	check_subnet_chains(d, p, c.pool);

	sl_buf_release(&c.msg);
	sl_p2p_pool_free(c.pool);
	sl_devnet_p2p_stop(p);
	sl_devnet_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devnet_validators),
		cmocka_unit_test(test_pchain_messages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
