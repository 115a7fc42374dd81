/*
 * fuzz_warp.c — hostile bytes into every warp decoder: signed and unsigned
 * messages, payloads, L1 validator messages, conversion data. Whatever
 * decodes must re-encode to the same bytes; a signed message's payload is
 * decoded further, as an indexer would.
 */
#include <stdlib.h>

#include "codec/json_evm.h"
#include "codec/warp.h"
#include "fuzz.h"

static void same_or_abort(sl_err e, const sl_buf *b, const uint8_t *p, size_t n)
{
	if (e != SL_OK || b->err || b->len != n || (n && memcmp(b->p, p, n) != 0))
		abort();
}

static void payload_layers(const uint8_t *p, size_t n)
{
	sl_buf b;
	sl_buf_init(&b, 8u << 20);
	sl_warp_payload pl;
	if (sl_warp_payload_decode(p, n, &pl, NULL) == SL_OK) {
		same_or_abort(sl_warp_payload_encode(&pl, &b), &b, p, n);
		if (pl.type == SL_WARP_PAYLOAD_ADDRESSED_CALL) {
			sl_warp_l1_msg m;
			sl_buf_reset(&b);
			if (sl_warp_l1_decode(pl.payload.p, pl.payload.len, &m, NULL) == SL_OK)
				same_or_abort(sl_warp_l1_encode(&m, &b), &b, pl.payload.p, pl.payload.len);
		}
	}
	sl_buf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_buf b;
	sl_buf_init(&b, 8u << 20);
	sl_warp_message m;
	if (sl_warp_message_decode(data, size, &m, NULL) == SL_OK) {
		same_or_abort(sl_warp_message_encode(&m, &b), &b, data, size);
		(void)sl_warp_signers_count(m.signers);
		sl_buf j;
		sl_buf_init(&j, 64u << 20);
		sl_jw w;
		sl_jw_init(&w, &j);
		sl_warp_message_write_json(&w, &m);
		if (j.err)
			abort();
		sl_buf_release(&j);
		payload_layers(m.msg.payload.p, m.msg.payload.len);
	}
	sl_buf_reset(&b);
	sl_warp_unsigned u;
	if (sl_warp_unsigned_decode(data, size, &u, NULL) == SL_OK) {
		same_or_abort(sl_warp_unsigned_encode(&u, &b), &b, data, size);
		payload_layers(u.payload.p, u.payload.len);
	}
	payload_layers(data, size);
	sl_buf_reset(&b);
	sl_warp_l1_msg l1;
	if (sl_warp_l1_decode(data, size, &l1, NULL) == SL_OK)
		same_or_abort(sl_warp_l1_encode(&l1, &b), &b, data, size);
	sl_buf_reset(&b);
	sl_arena a;
	sl_arena_init(&a, 64u << 20);
	sl_warp_conversion c;
	if (sl_warp_conversion_decode(data, size, &a, &c, NULL) == SL_OK)
		same_or_abort(sl_warp_conversion_encode(&c, &b), &b, data, size);
	sl_arena_release(&a);
	sl_buf_release(&b);
	return 0;
}
