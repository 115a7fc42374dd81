/*
 * fuzz_p2p_msg.c — hostile bytes into the p2p message decoder (p2p/msg.h),
 * as a peer's frame body would bring them: plain and zstd-compressed
 * Messages, and the ACP-118 app bytes inside AppRequest/AppResponse. What
 * decodes must re-encode and decode again to the same values.
 */
#include <stdlib.h>

#include "fuzz.h"
#include "p2p/msg.h"
#include "p2p/p2p.h"

static bool same_bytes(sl_p2p_bytes a, sl_p2p_bytes b)
{
	return a.n == b.n && (!a.n || !memcmp(a.p, b.p, a.n));
}

static void again(const sl_p2p_msg *m)
{
	if (m->op == SL_P2P_OP_OTHER || (m->op == SL_P2P_OP_PEER_LIST && m->n_peers))
		return; /* not ours to send */
	sl_p2p_msg c = *m;
	sl_p2p_handshake *h = &c.hs;
	if (h->n_tracked_subnets)
		h->n_tracked_subnets = 0; /* decode keeps only their count */
	uint8_t *f;
	size_t n;
	sl_err e = sl_p2p_msg_encode(&c, &f, &n);
	if (e == SL_ERR_TOO_LARGE)
		return;
	if (e != SL_OK || n < 4)
		abort();
	uint32_t len;
	if (sl_p2p_frame_len(f, &len) != SL_OK || len != n - 4)
		abort();
	sl_p2p_msg b;
	if (sl_p2p_msg_decode(f + 4, n - 4, &b) != SL_OK || b.op != m->op ||
	    b.was_compressed != m->was_compressed)
		abort();
	if (m->op == SL_P2P_OP_HANDSHAKE &&
	    (b.hs.network_id != m->hs.network_id || b.hs.my_time != m->hs.my_time ||
	     !same_bytes(b.hs.ip_addr, m->hs.ip_addr) || !same_bytes(b.hs.ip_bls_sig, m->hs.ip_bls_sig) ||
	     strcmp(b.hs.client_name, m->hs.client_name) || b.hs.n_supported_acps != m->hs.n_supported_acps))
		abort();
	if ((m->op == SL_P2P_OP_APP_REQUEST || m->op == SL_P2P_OP_APP_RESPONSE ||
	     m->op == SL_P2P_OP_APP_ERROR) &&
	    (b.app.request_id != m->app.request_id || !same_bytes(b.app.chain_id, m->app.chain_id) ||
	     !same_bytes(b.app.bytes, m->app.bytes) || b.app.error_code != m->app.error_code ||
	     strcmp(b.app.error_message, m->app.error_message)))
		abort();
	sl_p2p_msg_clear(&b);
	free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 4) {
		uint32_t len;
		if (sl_p2p_frame_len(data, &len) == SL_OK && len > SL_P2P_MSG_MAX)
			abort();
	}
	sl_p2p_msg m;
	if (sl_p2p_msg_decode(data, size, &m) == SL_OK) {
		again(&m);
		if (m.op == SL_P2P_OP_APP_REQUEST) {
			sl_p2p_sigreq r;
			if (sl_p2p_sigreq_decode(m.app.bytes.p, m.app.bytes.n, &r) == SL_OK &&
			    r.message.n <= SL_P2P_WARP_MSG_MAX && r.justification.n <= SL_P2P_WARP_MSG_MAX) {
				uint8_t *b;
				size_t n;
				if (sl_p2p_sigreq_encode(r.message.p, r.message.n, r.justification.p,
							 r.justification.n, &b, &n) != SL_OK)
					abort();
				free(b);
			}
			sl_p2p_sigreq_clear(&r);
		} else if (m.op == SL_P2P_OP_APP_RESPONSE) {
			uint8_t sig[96];
			if (sl_p2p_sigresp_decode(m.app.bytes.p, m.app.bytes.n, sig) == SL_OK) {
				uint8_t *b;
				size_t n;
				if (sl_p2p_sigresp_encode(sig, &b, &n) != SL_OK || n != 98)
					abort();
				free(b);
			}
		}
	}
	sl_p2p_msg_clear(&m);
	return 0;
}
