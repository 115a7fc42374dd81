/*
 * fuzz_coreth.c — hostile bytes into the C-chain block and EVM tx decoders.
 * Whatever decodes must re-encode to the same bytes; sender recovery and
 * signing hashes and JSON rendering must not crash on any decoded value.
 */
#include <stdlib.h>

#include "codec/coreth.h"
#include "codec/json_evm.h"
#include "fuzz.h"

static void tx_checks(const sl_evm_tx *tx)
{
	uint8_t who[20], h[32];
	uint64_t cid;
	uint8_t y;
	(void)sl_evm_tx_chain_id(tx, &cid);
	(void)sl_evm_tx_y_parity(tx, &y);
	if (sl_evm_tx_signing_hash(tx, h) == SL_OK)
		(void)!sl_evm_tx_sender(tx, who);
	sl_buf out;
	sl_buf_init(&out, 8u << 20);
	sl_evm_tx_write(&out, tx);
	if (out.err || out.len != tx->raw.len || memcmp(out.p, tx->raw.p, out.len) != 0)
		abort();
	sl_buf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_arena a;
	sl_arena_init(&a, 64u << 20);
	sl_coreth_block b;
	if (sl_coreth_block_decode(data, size, &a, &b, NULL) == SL_OK) {
		sl_buf out;
		sl_buf_init(&out, 8u << 20);
		if (sl_coreth_block_encode(&b, &out) != SL_OK || out.len != size ||
		    memcmp(out.p, data, size) != 0)
			abort();
		sl_buf_release(&out);
		for (uint32_t i = 0; i < b.ntx && i < 64; i++)
			tx_checks(&b.txs[i]);
		uint8_t h[32];
		sl_coreth_ext_data_hash(b.ext_data, h);
		sl_buf j;
		sl_buf_init(&j, 64u << 20);
		sl_jw w;
		sl_jw_init(&w, &j);
		sl_coreth_block_write_json(&w, &b);
		if (j.err)
			abort();
		sl_buf_release(&j);
	}
	sl_arena_release(&a);

	sl_evm_tx tx;
	if (sl_evm_tx_decode(data, size, &tx, NULL) == SL_OK)
		tx_checks(&tx);
	sl_coreth_header hd;
	if (sl_coreth_header_decode(data, size, &hd, NULL) == SL_OK) {
		sl_buf out;
		sl_buf_init(&out, 8u << 20);
		sl_coreth_header_write(&out, &hd);
		if (out.err || out.len != size || memcmp(out.p, data, size) != 0)
			abort();
		sl_buf_release(&out);
	}
	return 0;
}
