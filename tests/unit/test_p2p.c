/*
 * test_p2p.c — p2p/: the framing, the messages against bytes written out by
 * hand from avalanchego's proto definitions (proto/p2p/p2p.proto,
 * proto/sdk/sdk.proto: field numbers, wire types, sint32's zigzag), zstd
 * messages, ACP-118's app bytes, and a client pool asking devnet-style
 * validators over loopback TLS: honest ones' signatures verify with blst,
 * a lying one's does not, a silent one times out, an absent one is
 * unavailable, an impostor's certificate is caught, an AppError comes back
 * with its code, and a callback can stop the call. Then the pool's links,
 * counted by the connections the server accepts: reused after a call that
 * stopped with requests in flight, after a request that timed out, and after
 * a dial that ended once its call had stopped; requests to slow validators
 * run at once; a validator that pings before answering gets its Pong.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "crypto/bls.h"
#include "crypto/tls.h"
#include "p2p/msg.h"
#include "p2p/p2p.h"

/* ---- framing and messages */

static void test_uvarint(void **state)
{
	uint64_t v;
	assert_int_equal(sl_p2p_uvarint((const uint8_t[]){ 0x02 }, 1, &v), 1);
	assert_int_equal(v, 2);
	assert_int_equal(sl_p2p_uvarint((const uint8_t[]){ 0xac, 0x02 }, 2, &v), 2);
	assert_int_equal(v, 300);
	assert_int_equal(sl_p2p_uvarint((const uint8_t[]){ 0xac }, 1, &v), 0); /* ends inside */
	assert_int_equal(sl_p2p_uvarint(NULL, 0, &v), 0);
	const uint8_t max[10] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	assert_int_equal(sl_p2p_uvarint(max, 10, &v), 10);
	assert_true(v == UINT64_MAX);
	const uint8_t over[10] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 };
	assert_int_equal(sl_p2p_uvarint(over, 10, &v), 0); /* Go: overflow */
}

static void test_frame_len(void **state)
{
	uint32_t n;
	assert_int_equal(sl_p2p_frame_len((const uint8_t[]){ 0, 0, 1, 2 }, &n), SL_OK);
	assert_int_equal(n, 258);
	assert_int_equal(sl_p2p_frame_len((const uint8_t[]){ 0, 0x20, 0, 0 }, &n), SL_OK); /* 2 MiB exactly */
	assert_int_equal(sl_p2p_frame_len((const uint8_t[]){ 0, 0x20, 0, 1 }, &n), SL_ERR_TOO_LARGE);
	assert_int_equal(sl_p2p_frame_len((const uint8_t[]){ 0xff, 0xff, 0xff, 0xff }, &n), SL_ERR_TOO_LARGE);
}

/* Encode m; the frame must be hdr | want exactly; decode it back. */
static void frame_is(const sl_p2p_msg *m, const uint8_t *want, size_t wn, sl_p2p_msg *back)
{
	uint8_t *f;
	size_t n;
	assert_int_equal(sl_p2p_msg_encode(m, &f, &n), SL_OK);
	assert_int_equal(n, 4 + wn);
	uint32_t len;
	assert_int_equal(sl_p2p_frame_len(f, &len), SL_OK);
	assert_int_equal(len, wn);
	assert_memory_equal(f + 4, want, wn);
	assert_int_equal(sl_p2p_msg_decode(f + 4, n - 4, back), SL_OK);
	free(f);
}

static void test_ping_pong(void **state)
{
	sl_p2p_msg back;
	/* Message.ping = 11 (LEN: 0x5a), Ping.uptime = 1 (VARINT: 0x08) 100 */
	frame_is(&(sl_p2p_msg){ .op = SL_P2P_OP_PING, .uptime = 100 },
		 (const uint8_t[]){ 0x5a, 0x02, 0x08, 0x64 }, 4, &back);
	assert_int_equal(back.op, SL_P2P_OP_PING);
	assert_int_equal(back.uptime, 100);
	sl_p2p_msg_clear(&back);
	/* Message.pong = 12 (0x62), empty */
	frame_is(&(sl_p2p_msg){ .op = SL_P2P_OP_PONG }, (const uint8_t[]){ 0x62, 0x00 }, 2, &back);
	assert_int_equal(back.op, SL_P2P_OP_PONG);
	sl_p2p_msg_clear(&back);
	/* Message.peer_list = 14 (0x72), empty */
	frame_is(&(sl_p2p_msg){ .op = SL_P2P_OP_PEER_LIST }, (const uint8_t[]){ 0x72, 0x00 }, 2, &back);
	assert_int_equal(back.op, SL_P2P_OP_PEER_LIST);
	assert_int_equal(back.n_peers, 0);
	sl_p2p_msg_clear(&back);
}

static void test_app_request(void **state)
{
	uint8_t chain[32], want[2 + 1 + 34 + 2 + 3 + 6];
	memset(chain, 0x11, 32);
	const uint8_t app[4] = { 0x02, 0x0a, 0x01, 0xaa };
	sl_p2p_msg m = { .op = SL_P2P_OP_APP_REQUEST };
	m.app = (sl_p2p_app){
		.chain_id = { chain, 32 }, .request_id = 7, .deadline = 1000, .bytes = { app, 4 }
	};
	size_t k = 0;
	want[k++] = 0xf2; /* Message.app_request = 30: (30 << 3) | 2 = 242, a two-byte varint */
	want[k++] = 0x01;
	want[k++] = 34 + 2 + 3 + 6;
	want[k++] = 0x0a; /* chain_id = 1, LEN */
	want[k++] = 32;
	memcpy(want + k, chain, 32);
	k += 32;
	want[k++] = 0x10; /* request_id = 2, VARINT */
	want[k++] = 7;
	want[k++] = 0x18; /* deadline = 3, VARINT 1000 */
	want[k++] = 0xe8;
	want[k++] = 0x07;
	want[k++] = 0x22; /* app_bytes = 4, LEN */
	want[k++] = 4;
	memcpy(want + k, app, 4);
	k += 4;
	assert_int_equal(k, sizeof want);
	sl_p2p_msg back;
	frame_is(&m, want, k, &back);
	assert_int_equal(back.op, SL_P2P_OP_APP_REQUEST);
	assert_int_equal(back.app.request_id, 7);
	assert_int_equal(back.app.deadline, 1000);
	assert_int_equal(back.app.chain_id.n, 32);
	assert_memory_equal(back.app.chain_id.p, chain, 32);
	assert_int_equal(back.app.bytes.n, 4);
	assert_memory_equal(back.app.bytes.p, app, 4);
	sl_p2p_msg_clear(&back);
}

static void test_app_error_and_response(void **state)
{
	uint8_t chain[32] = { 0 };
	sl_p2p_msg m = { .op = SL_P2P_OP_APP_ERROR };
	m.app = (sl_p2p_app){
		.chain_id = { chain, 32 }, .request_id = 1, .error_code = -2, .error_message = "no"
	};
	uint8_t want[3 + 34 + 2 + 2 + 4];
	size_t k = 0;
	want[k++] = 0x92; /* app_error = 34: (34 << 3) | 2 = 274 = 0x92 0x02 */
	want[k++] = 0x02;
	want[k++] = 34 + 2 + 2 + 4;
	want[k++] = 0x0a;
	want[k++] = 32;
	memset(want + k, 0, 32);
	k += 32;
	want[k++] = 0x10;
	want[k++] = 1;
	want[k++] = 0x18; /* error_code = 3, sint32: zigzag(-2) = 3 */
	want[k++] = 3;
	want[k++] = 0x22; /* error_message = 4 */
	want[k++] = 2;
	want[k++] = 'n';
	want[k++] = 'o';
	sl_p2p_msg back;
	frame_is(&m, want, k, &back);
	assert_int_equal(back.op, SL_P2P_OP_APP_ERROR);
	assert_int_equal(back.app.error_code, -2);
	assert_string_equal(back.app.error_message, "no");
	sl_p2p_msg_clear(&back);

	/* AppResponse = 31 (0xfa 0x01) with a SignatureResponse{signature = 1} inside */
	uint8_t sig[96];
	for (int i = 0; i < 96; i++)
		sig[i] = (uint8_t)i;
	uint8_t *resp;
	size_t rn;
	assert_int_equal(sl_p2p_sigresp_encode(sig, &resp, &rn), SL_OK);
	assert_int_equal(rn, 98);
	assert_int_equal(resp[0], 0x0a);
	assert_int_equal(resp[1], 96);
	assert_memory_equal(resp + 2, sig, 96);
	m = (sl_p2p_msg){ .op = SL_P2P_OP_APP_RESPONSE };
	m.app = (sl_p2p_app){ .chain_id = { chain, 32 }, .request_id = 9, .bytes = { resp, rn } };
	uint8_t *f;
	size_t n;
	assert_int_equal(sl_p2p_msg_encode(&m, &f, &n), SL_OK);
	assert_int_equal(f[4], 0xfa);
	assert_int_equal(f[5], 0x01);
	assert_int_equal(sl_p2p_msg_decode(f + 4, n - 4, &back), SL_OK);
	assert_int_equal(back.op, SL_P2P_OP_APP_RESPONSE);
	uint8_t got[96];
	assert_int_equal(sl_p2p_sigresp_decode(back.app.bytes.p, back.app.bytes.n, got), SL_OK);
	assert_memory_equal(got, sig, 96);
	sl_p2p_msg_clear(&back);
	free(f);
	/* a signature of another length is refused */
	assert_int_equal(sl_p2p_sigresp_decode((const uint8_t[]){ 0x0a, 0x01, 0x00 }, 3, got),
			 SL_ERR_INVALID);
	free(resp);
}

static void test_sigreq(void **state)
{
	const uint8_t msg[3] = { 1, 2, 3 }, just[2] = { 9, 8 };
	uint8_t *b;
	size_t n;
	assert_int_equal(sl_p2p_sigreq_encode(msg, 3, just, 2, &b, &n), SL_OK);
	/* uvarint(2) | message = 1 (0x0a) | justification = 2 (0x12) */
	const uint8_t want[] = { 0x02, 0x0a, 0x03, 1, 2, 3, 0x12, 0x02, 9, 8 };
	assert_int_equal(n, sizeof want);
	assert_memory_equal(b, want, n);
	sl_p2p_sigreq r;
	assert_int_equal(sl_p2p_sigreq_decode(b, n, &r), SL_OK);
	assert_int_equal(r.handler, 2);
	assert_int_equal(r.message.n, 3);
	assert_memory_equal(r.message.p, msg, 3);
	assert_int_equal(r.justification.n, 2);
	sl_p2p_sigreq_clear(&r);
	free(b);
	/* a prefix that does not end */
	assert_int_equal(sl_p2p_sigreq_decode((const uint8_t[]){ 0x80 }, 1, &r), SL_ERR_INVALID);
	sl_p2p_sigreq_clear(&r);
	/* too large */
	assert_int_equal(sl_p2p_sigreq_encode(msg, SL_P2P_WARP_MSG_MAX + 1, NULL, 0, &b, &n),
			 SL_ERR_TOO_LARGE);
}

static void test_handshake_roundtrip(void **state)
{
	const uint8_t ip[4] = { 127, 0, 0, 1 }, sig[3] = { 0x30, 1, 0 }, salt[2] = { 5, 6 };
	uint8_t bls[96] = { 0xc0 };
	const uint32_t acps[2] = { 23, 24 };
	uint8_t subnet[32];
	memset(subnet, 0x42, 32);
	const sl_p2p_bytes subnets[1] = { { subnet, 32 } };
	sl_p2p_msg m = { .op = SL_P2P_OP_HANDSHAKE };
	m.hs = (sl_p2p_handshake){ .network_id = 12345,
				   .my_time = 1700000000,
				   .ip_addr = { ip, 4 },
				   .ip_port = 9651,
				   .upgrade_time = 5,
				   .ip_signing_time = 1700000001,
				   .ip_node_id_sig = { sig, 3 },
				   .ip_bls_sig = { bls, 96 },
				   .client_name = "avalanchego",
				   .major = 1,
				   .minor = 14,
				   .patch = 2,
				   .n_tracked_subnets = 1,
				   .tracked_subnets = subnets,
				   .n_supported_acps = 2,
				   .supported_acps = acps,
				   .has_known_peers = true,
				   .known_peers_salt = { salt, 2 },
				   .all_subnets = true };
	uint8_t *f;
	size_t n;
	assert_int_equal(sl_p2p_msg_encode(&m, &f, &n), SL_OK);
	/* Message.handshake = 13: (13 << 3) | 2 = 0x6a; then Handshake.network_id = 1: 0x08, 12345 = 0xb9 0x60 */
	assert_int_equal(f[4], 0x6a);
	size_t hl = 4 + 1 + (f[5] & 0x80 ? 2 : 1);
	assert_int_equal(f[hl], 0x08);
	assert_int_equal(f[hl + 1], 0xb9);
	assert_int_equal(f[hl + 2], 0x60);
	sl_p2p_msg back;
	assert_int_equal(sl_p2p_msg_decode(f + 4, n - 4, &back), SL_OK);
	const sl_p2p_handshake *h = &back.hs;
	assert_int_equal(back.op, SL_P2P_OP_HANDSHAKE);
	assert_int_equal(h->network_id, 12345);
	assert_true(h->my_time == 1700000000);
	assert_int_equal(h->ip_addr.n, 4);
	assert_int_equal(h->ip_port, 9651);
	assert_true(h->ip_signing_time == 1700000001);
	assert_int_equal(h->ip_node_id_sig.n, 3);
	assert_int_equal(h->ip_bls_sig.n, 96);
	assert_string_equal(h->client_name, "avalanchego");
	assert_int_equal(h->minor, 14);
	assert_int_equal(h->n_tracked_subnets, 1);
	assert_int_equal(h->n_supported_acps, 2);
	assert_int_equal(h->supported_acps[1], 24);
	assert_true(h->has_known_peers);
	assert_int_equal(h->known_peers_salt.n, 2);
	assert_true(h->all_subnets);
	sl_p2p_msg_clear(&back);
	free(f);
}

static void test_compressed_and_bad(void **state)
{
	uint8_t big[5000];
	memset(big, 7, sizeof big);
	uint8_t chain[32] = { 1 };
	sl_p2p_msg m = { .op = SL_P2P_OP_APP_RESPONSE, .was_compressed = true };
	m.app = (sl_p2p_app){ .chain_id = { chain, 32 }, .request_id = 3, .bytes = { big, sizeof big } };
	uint8_t *f;
	size_t n;
	assert_int_equal(sl_p2p_msg_encode(&m, &f, &n), SL_OK);
	assert_true(n < 200);	      /* it was compressed */
	assert_int_equal(f[4], 0x12); /* Message.compressed_zstd = 2, LEN */
	sl_p2p_msg back;
	assert_int_equal(sl_p2p_msg_decode(f + 4, n - 4, &back), SL_OK);
	assert_true(back.was_compressed);
	assert_int_equal(back.op, SL_P2P_OP_APP_RESPONSE);
	assert_int_equal(back.app.bytes.n, sizeof big);
	assert_memory_equal(back.app.bytes.p, big, sizeof big);
	sl_p2p_msg_clear(&back);
	/* the zstd frame cut short */
	assert_int_not_equal(sl_p2p_msg_decode(f + 4, n - 4 - 3, &back), SL_OK);
	sl_p2p_msg_clear(&back);
	free(f);
	/* bytes that are not a Message; an unknown member decodes as OTHER */
	assert_int_equal(sl_p2p_msg_decode((const uint8_t[]){ 0x0a, 0x05, 0x01 }, 3, &back), SL_ERR_INVALID);
	sl_p2p_msg_clear(&back);
	assert_int_equal(sl_p2p_msg_decode((const uint8_t[]){ 0xb2, 0x01, 0x00 }, 3, &back),
			 SL_OK); /* field 22 (Accepted) */
	assert_int_equal(back.op, SL_P2P_OP_OTHER);
	sl_p2p_msg_clear(&back);
}

/* ---- loopback: a pool against validators */

#define NV 6
/* An absent listener's port: a connect is refused, and no other socket can bind it. */
static bool port_held(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool refused = connect(c, (struct sockaddr *)&a, sizeof a) < 0 && errno == ECONNREFUSED;
	close(c);
	int b = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool taken = bind(b, (struct sockaddr *)&a, sizeof a) < 0 && errno == EADDRINUSE;
	close(b);
	return refused && taken;
}

enum { HONEST0, HONEST1, WRONG, SILENT, ABSENT, REFUSER };

static sl_p2p_identity g_vid[NV];

static sl_err sign_cb(void *ctx, size_t index, const uint8_t chain_id[32], const uint8_t *msg, size_t msg_len,
		      const uint8_t *just, size_t just_len, uint8_t sig[96], int32_t *code, char why[256])
{
	if (index == REFUSER) {
		*code = 7;
		snprintf(why, 256, "not this one");
		return SL_ERR_CONFLICT;
	}
	sl_bls_sig s;
	sl_bls_sign(&g_vid[index].bls, msg, msg_len, &s);
	sl_bls_sig_encode(&s, sig);
	return SL_OK;
}

typedef struct got {
	size_t n;
	sl_p2p_answer a[NV + 1];
	char why[NV + 1][64];
	size_t stop_after; /* 0: never */
} got;

static bool answer_cb(void *ctx, const sl_p2p_answer *a)
{
	got *g = ctx;
	assert_true(g->n <= NV);
	g->a[g->n] = *a;
	snprintf(g->why[g->n], 64, "%s", a->app_error_message ? a->app_error_message : "");
	g->n++;
	return !(g->stop_after && g->n >= g->stop_after);
}

/* Where target orig (a listener's index, or NV: the impostor) sits in rt, which leaves out SILENT. */
static size_t pos(size_t orig) { return orig < SILENT ? orig : orig - 1; }

static const sl_p2p_answer *answer_of(got *g, size_t index)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->a[i].index == index)
			return &g->a[i];
	fail_msg("no answer for target %zu", index);
	return NULL;
}

static void test_loopback(void **state)
{
	sl_p2p_listener ls[NV];
	memset(ls, 0, sizeof ls);
	const sl_p2p_policy pol[NV] = { SL_P2P_HONEST, SL_P2P_HONEST, SL_P2P_WRONG,
					SL_P2P_SILENT, SL_P2P_ABSENT, SL_P2P_HONEST };
	for (size_t i = 0; i < NV; i++) {
		uint8_t seed[32] = { (uint8_t)(i + 1) };
		assert_int_equal(sl_p2p_identity_make(&g_vid[i], seed), SL_OK);
		ls[i].identity = g_vid[i];
		ls[i].policy = pol[i];
	}
	sl_err err;
	sl_p2p_server *s = sl_p2p_server_start(
		&(sl_p2p_server_config){ .network_id = 12345, .listeners = ls, .n = NV, .sign = sign_cb },
		&err);
	assert_non_null(s);
	assert_int_equal(err, SL_OK);

	sl_p2p_target t[NV + 1];
	memset(t, 0, sizeof t);
	for (size_t i = 0; i < NV; i++) {
		memcpy(t[i].node_id, g_vid[i].node_id, 20);
		snprintf(t[i].host, sizeof t[i].host, "127.0.0.1");
		t[i].port = sl_p2p_server_port(s, i);
	}
	assert_int_not_equal(t[ABSENT].port, 0); /* held for when it comes back; nothing listens there */
	assert_true(port_held(t[ABSENT].port));
	/* an impostor: honest0's address, but the node id of a validator not running */
	sl_p2p_identity other;
	assert_int_equal(sl_p2p_identity_make(&other, (const uint8_t[32]){ 77 }), SL_OK);
	t[NV] = t[HONEST0];
	memcpy(t[NV].node_id, other.node_id, 20);

	sl_p2p_identity me;
	assert_int_equal(sl_p2p_identity_make(&me, NULL), SL_OK);
	sl_p2p_pool *pool = sl_p2p_pool_new(&(sl_p2p_config){ .identity = &me, .network_id = 12345 });
	assert_non_null(pool);

	uint8_t chain[32];
	memset(chain, 0xcc, 32);
	const uint8_t msg[] = "an unsigned warp message";
	sl_p2p_sign_request req = {
		.network_id = 12345, .message = msg, .message_len = sizeof msg - 1, .deadline_ms = 10000
	};
	memcpy(req.chain_id, chain, 32);
	/* everyone but the silent one (asked on its own below, with a short deadline), in rt: a generous
	 * deadline that the call does not wait out, since every one of them answers or fails */
	sl_p2p_target rt[NV];
	for (size_t k = 0; k < NV; k++)
		rt[k] = t[k < SILENT ? k : k + 1];
	for (int round = 0; round < 2; round++) { /* the second round reuses pooled links */
		got g = { 0 };
		int64_t t0 = sl_tls_now_ms();
		assert_int_equal(sl_p2p_sign_requests(pool, rt, NV, &req, answer_cb, &g), SL_OK);
		int64_t took = sl_tls_now_ms() - t0;
		assert_true(took < 8000);
		assert_int_equal(g.n, NV);
		for (size_t i = HONEST0; i <= HONEST1; i++) {
			const sl_p2p_answer *a = answer_of(&g, pos(i));
			assert_int_equal(a->err, SL_OK);
			sl_bls_pk pk;
			sl_bls_sig sig;
			sl_bls_sk_to_pk(&g_vid[i].bls, &pk);
			assert_int_equal(sl_bls_sig_decode(&sig, a->signature), SL_OK);
			assert_true(sl_bls_verify(&pk, &sig, msg, sizeof msg - 1));
			assert_memory_equal(a->node_id, g_vid[i].node_id, 20);
		}
		{
			const sl_p2p_answer *a = answer_of(&g, pos(WRONG));
			assert_int_equal(a->err, SL_OK);
			sl_bls_pk pk;
			sl_bls_sig sig;
			sl_bls_sk_to_pk(&g_vid[WRONG].bls, &pk);
			assert_int_equal(sl_bls_sig_decode(&sig, a->signature), SL_OK);
			assert_false(sl_bls_verify(&pk, &sig, msg, sizeof msg - 1));
		}
		assert_int_equal(answer_of(&g, pos(ABSENT))->err, SL_ERR_UNAVAILABLE);
		assert_int_equal(answer_of(&g, pos(NV))->err, SL_ERR_CHECKSUM);
		const sl_p2p_answer *r = answer_of(&g, pos(REFUSER));
		assert_int_equal(r->err, SL_ERR_CONFLICT);
		assert_int_equal(r->app_error_code, 7);
		size_t ri = (size_t)(r - g.a);
		assert_string_equal(g.why[ri], "not this one");
	}

	/* the silent one: handshakes, then the deadline passes */
	{
		got g = { 0 };
		sl_p2p_sign_request q = req;
		q.deadline_ms = 300;
		assert_int_equal(sl_p2p_sign_requests(pool, &t[SILENT], 1, &q, answer_cb, &g), SL_OK);
		assert_int_equal(g.n, 1);
		assert_int_equal(g.a[0].err, SL_ERR_TIMEOUT);
		assert_true(g.a[0].elapsed_ms >= 300);
	}

	/* a slow validator answers late but within the deadline; then absent at run time */
	assert_int_equal(sl_p2p_server_set_policy(s, HONEST1, SL_P2P_SLOW, 300), SL_OK);
	got g = { 0 };
	assert_int_equal(sl_p2p_sign_requests(pool, &t[HONEST1], 1, &req, answer_cb, &g), SL_OK);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.a[0].err, SL_OK);
	assert_true(g.a[0].elapsed_ms >= 300);
	assert_int_equal(sl_p2p_server_set_policy(s, HONEST1, SL_P2P_ABSENT, 0), SL_OK);
	assert_true(port_held(t[HONEST1].port));
	memset(&g, 0, sizeof g);
	assert_int_equal(sl_p2p_sign_requests(pool, &t[HONEST1], 1, &req, answer_cb, &g), SL_OK);
	assert_int_equal(g.n, 1);
	assert_int_not_equal(g.a[0].err, SL_OK);
	assert_int_equal(sl_p2p_server_set_policy(s, HONEST1, SL_P2P_HONEST, 0), SL_OK);
	memset(&g, 0, sizeof g);
	assert_int_equal(sl_p2p_sign_requests(pool, &t[HONEST1], 1, &req, answer_cb, &g), SL_OK);
	assert_int_equal(g.a[0].err, SL_OK);

	/* stop after the first answer: one report, and no waiting for the silent one's deadline */
	memset(&g, 0, sizeof g);
	g.stop_after = 1;
	req.deadline_ms = 20000;
	int64_t t0 = sl_tls_now_ms();
	assert_int_equal(sl_p2p_sign_requests(pool, t, NV, &req, answer_cb, &g), SL_OK);
	assert_int_equal(g.n, 1);
	assert_true(sl_tls_now_ms() - t0 < 15000);

	/* bad requests: nothing sent */
	req.message_len = SL_P2P_WARP_MSG_MAX + 1;
	assert_int_equal(sl_p2p_sign_requests(pool, t, NV, &req, answer_cb, &g), SL_ERR_TOO_LARGE);
	req.message_len = 3;
	assert_int_equal(sl_p2p_sign_requests(pool, t, SL_P2P_TARGETS_MAX + 1, &req, answer_cb, &g),
			 SL_ERR_TOO_LARGE);

	sl_p2p_pool_free(pool);
	sl_p2p_server_stop(s);
}

/* A pool in another network is refused at the handshake. */
static void test_network_mismatch(void **state)
{
	sl_p2p_listener l;
	memset(&l, 0, sizeof l);
	uint8_t seed[32] = { 99 };
	assert_int_equal(sl_p2p_identity_make(&l.identity, seed), SL_OK);
	g_vid[0] = l.identity;
	sl_err err;
	sl_p2p_server *s = sl_p2p_server_start(
		&(sl_p2p_server_config){ .network_id = 5, .listeners = &l, .n = 1, .sign = sign_cb }, &err);
	assert_non_null(s);
	sl_p2p_target t = { .port = sl_p2p_server_port(s, 0) };
	memcpy(t.node_id, l.identity.node_id, 20);
	snprintf(t.host, sizeof t.host, "127.0.0.1");
	sl_p2p_identity me;
	assert_int_equal(sl_p2p_identity_make(&me, NULL), SL_OK);
	sl_p2p_pool *pool = sl_p2p_pool_new(&(sl_p2p_config){ .identity = &me, .network_id = 1 });
	got g = { 0 };
	const uint8_t msg[1] = { 0 };
	sl_p2p_sign_request req = { .message = msg, .message_len = 1, .deadline_ms = 10000 };
	assert_int_equal(sl_p2p_sign_requests(pool, &t, 1, &req, answer_cb, &g), SL_OK);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.a[0].err, SL_ERR_UNAVAILABLE);
	sl_p2p_pool_free(pool);
	sl_p2p_server_stop(s);
}

/* k honest validators (identities g_vid[0..k), from seed byte base + i) on loopback; their targets. */
static sl_p2p_server *serve(size_t k, uint8_t base, sl_p2p_target *t)
{
	sl_p2p_listener ls[NV];
	assert_true(k <= REFUSER); /* sign_cb refuses for REFUSER */
	memset(ls, 0, sizeof ls);
	for (size_t i = 0; i < k; i++) {
		uint8_t seed[32] = { base, (uint8_t)i };
		assert_int_equal(sl_p2p_identity_make(&g_vid[i], seed), SL_OK);
		ls[i].identity = g_vid[i];
	}
	sl_err err;
	sl_p2p_server *s = sl_p2p_server_start(
		&(sl_p2p_server_config){ .network_id = 12345, .listeners = ls, .n = k, .sign = sign_cb },
		&err);
	assert_non_null(s);
	memset(t, 0, k * sizeof *t);
	for (size_t i = 0; i < k; i++) {
		memcpy(t[i].node_id, g_vid[i].node_id, 20);
		snprintf(t[i].host, sizeof t[i].host, "127.0.0.1");
		t[i].port = sl_p2p_server_port(s, i);
	}
	return s;
}

static sl_p2p_pool *new_pool(void)
{
	sl_p2p_identity me;
	assert_int_equal(sl_p2p_identity_make(&me, NULL), SL_OK);
	sl_p2p_pool *pool = sl_p2p_pool_new(&(sl_p2p_config){ .identity = &me, .network_id = 12345 });
	assert_non_null(pool);
	return pool;
}

static const uint8_t g_msg[] = "an unsigned warp message";

static sl_p2p_sign_request sign_req(int deadline_ms)
{
	sl_p2p_sign_request req = { .network_id = 12345,
				    .message = g_msg,
				    .message_len = sizeof g_msg - 1,
				    .deadline_ms = deadline_ms };
	memset(req.chain_id, 0xcc, 32);
	return req;
}

/* Every one of the k targets answered, with a signature that verifies. */
static void all_signed(const got *g, size_t k)
{
	assert_int_equal(g->n, k);
	for (size_t i = 0; i < g->n; i++) {
		const sl_p2p_answer *a = &g->a[i];
		assert_int_equal(a->err, SL_OK);
		sl_bls_pk pk;
		sl_bls_sig sig;
		sl_bls_sk_to_pk(&g_vid[a->index].bls, &pk);
		assert_int_equal(sl_bls_sig_decode(&sig, a->signature), SL_OK);
		assert_true(sl_bls_verify(&pk, &sig, g_msg, sizeof g_msg - 1));
	}
}

/*
 * Links are reused after a call that stopped with requests in flight (they drain: the next call
 * reads the answer they owe, then asks), after a request that timed out, and after a dial that
 * ended once its call had returned: counted by the connections the server accepted.
 */
static void test_reuse_after_stop(void **state)
{
	enum { K = 5, FAST = 2 };
	sl_p2p_target t[K];
	sl_p2p_server *s = serve(K, 40, t);
	sl_p2p_pool *pool = new_pool();
	sl_p2p_sign_request req = sign_req(10000);
	got g = { 0 };
	assert_int_equal(sl_p2p_sign_requests(pool, t, K, &req, answer_cb, &g), SL_OK);
	all_signed(&g, K);
	assert_int_equal(sl_p2p_server_accepted(s), K);

	/* the slow ones still owe their answers when the call stops at the fast ones' */
	for (size_t i = FAST; i < K; i++)
		assert_int_equal(sl_p2p_server_set_policy(s, i, SL_P2P_SLOW, 400), SL_OK);
	memset(&g, 0, sizeof g);
	g.stop_after = FAST;
	int64_t t0 = sl_tls_now_ms();
	assert_int_equal(sl_p2p_sign_requests(pool, t, K, &req, answer_cb, &g), SL_OK);
	assert_true(sl_tls_now_ms() - t0 < 400); /* nobody waited for the slow ones */
	assert_int_equal(g.n, FAST);
	for (size_t i = 0; i < FAST; i++)
		assert_true(g.a[i].index < FAST);
	for (size_t i = FAST; i < K; i++)
		assert_int_equal(sl_p2p_server_set_policy(s, i, SL_P2P_HONEST, 0), SL_OK);
	memset(&g, 0, sizeof g);
	assert_int_equal(sl_p2p_sign_requests(pool, t, K, &req, answer_cb, &g), SL_OK);
	all_signed(&g, K);
	assert_int_equal(sl_p2p_server_accepted(s), K); /* no new link */

	/* a request that timed out: its answer comes late, the link drains and serves the next call */
	assert_int_equal(sl_p2p_server_set_policy(s, 0, SL_P2P_SLOW, 500), SL_OK);
	memset(&g, 0, sizeof g);
	sl_p2p_sign_request quick = sign_req(200);
	assert_int_equal(sl_p2p_sign_requests(pool, t, 1, &quick, answer_cb, &g), SL_OK);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.a[0].err, SL_ERR_TIMEOUT);
	assert_int_equal(sl_p2p_server_set_policy(s, 0, SL_P2P_HONEST, 0), SL_OK);
	memset(&g, 0, sizeof g);
	assert_int_equal(sl_p2p_sign_requests(pool, t, 1, &req, answer_cb, &g), SL_OK);
	all_signed(&g, 1);
	assert_int_equal(sl_p2p_server_accepted(s), K);

	/* a fresh pool: the call stops at the first report, an impostor's (t[1]'s address, another
	 * node id: refused once TLS is up), which usually comes while the dial to t[0] is still in its
	 * p2p handshake; that link is checked in when it is made, and the next call uses it */
	sl_p2p_pool *fresh = new_pool();
	sl_p2p_target two[2] = { t[1], t[0] };
	sl_p2p_identity other;
	assert_int_equal(sl_p2p_identity_make(&other, (const uint8_t[32]){ 78 }), SL_OK);
	memcpy(two[0].node_id, other.node_id, 20);
	uint64_t before = sl_p2p_server_accepted(s);
	memset(&g, 0, sizeof g);
	g.stop_after = 1;
	assert_int_equal(sl_p2p_sign_requests(fresh, two, 2, &req, answer_cb, &g), SL_OK);
	assert_int_equal(g.n, 1);
	memset(&g, 0, sizeof g);
	assert_int_equal(sl_p2p_sign_requests(fresh, &t[0], 1, &req, answer_cb, &g), SL_OK);
	all_signed(&g, 1);
	assert_int_equal(sl_p2p_server_accepted(s) - before, 2); /* the impostor's, and one to t[0] */

	sl_p2p_pool_free(fresh);
	sl_p2p_pool_free(pool);
	sl_p2p_server_stop(s);
}

/* Requests go out at once: validators each slow by 500 ms answer together, not one after another. */
static void test_concurrent(void **state)
{
	enum { K = 5, SLOW_MS = 500 };
	sl_p2p_target t[K];
	sl_p2p_server *s = serve(K, 50, t);
	sl_p2p_pool *pool = new_pool();
	sl_p2p_sign_request req = sign_req(10000);
	for (int round = 0; round < 2; round++) { /* new links, then pooled ones */
		for (size_t i = 0; i < K; i++)
			assert_int_equal(sl_p2p_server_set_policy(s, i, SL_P2P_SLOW, SLOW_MS), SL_OK);
		got g = { 0 };
		int64_t t0 = sl_tls_now_ms();
		assert_int_equal(sl_p2p_sign_requests(pool, t, K, &req, answer_cb, &g), SL_OK);
		int64_t took = sl_tls_now_ms() - t0;
		all_signed(&g, K);
		for (size_t i = 0; i < K; i++)
			assert_true(g.a[i].elapsed_ms >= SLOW_MS);
		assert_true(took < 2 * SLOW_MS); /* one after another: K × 500 ms */
	}
	sl_p2p_pool_free(pool);
	sl_p2p_server_stop(s);
}

/* A validator that pings before it answers (as avalanchego pings its links) gets its Pong. */
static void test_live_ping(void **state)
{
	enum { K = 2 };
	sl_p2p_target t[K];
	sl_p2p_server *s = serve(K, 60, t);
	sl_p2p_pool *pool = new_pool();
	sl_p2p_sign_request req = sign_req(3000);
	assert_int_equal(sl_p2p_server_set_policy(s, 1, SL_P2P_PING, 0), SL_OK);
	for (int round = 0; round < 2; round++) { /* a new link, then the pooled one */
		got g = { 0 };
		assert_int_equal(sl_p2p_sign_requests(pool, t, K, &req, answer_cb, &g), SL_OK);
		all_signed(&g, K); /* without the Pong the pinging one never answers */
	}
	assert_int_equal(sl_p2p_server_accepted(s), K); /* and it kept its link */
	sl_p2p_pool_free(pool);
	sl_p2p_server_stop(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uvarint),
		cmocka_unit_test(test_frame_len),
		cmocka_unit_test(test_ping_pong),
		cmocka_unit_test(test_app_request),
		cmocka_unit_test(test_app_error_and_response),
		cmocka_unit_test(test_sigreq),
		cmocka_unit_test(test_handshake_roundtrip),
		cmocka_unit_test(test_compressed_and_bad),
		cmocka_unit_test(test_loopback),
		cmocka_unit_test(test_network_mismatch),
		cmocka_unit_test(test_reuse_after_stop),
		cmocka_unit_test(test_concurrent),
		cmocka_unit_test(test_live_ping),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
