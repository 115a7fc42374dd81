/*
 * fuzz_pchain.c — hostile bytes into the P-chain decoders (signed tx,
 * unsigned tx, block). Whatever decodes must re-encode to the same bytes
 * and render as JSON; a mismatch aborts.
 */
#include <stdlib.h>

#include "codec/json.h"
#include "codec/pchain.h"
#include "codec/writer.h"
#include "fuzz.h"

#define FUZZ_ARENA (64u << 20)

static void same_or_abort(const sl_buf *b, const uint8_t *p, size_t n)
{
	if (b->err || b->len != n || (n && memcmp(b->p, p, n)))
		abort();
}

static void json_or_abort(void (*write)(sl_jw *, const void *, const sl_codec_ctx *), const void *v)
{
	sl_buf j;
	sl_buf_init(&j, 256u << 20);
	sl_jw w;
	sl_jw_init(&w, &j);
	sl_codec_ctx ctx = sl_codec_ctx_for(1, "P");
	write(&w, v, &ctx);
	if (j.err)
		abort();
	sl_buf_release(&j);
}

static void tx_json(sl_jw *w, const void *v, const sl_codec_ctx *c) { sl_pchain_tx_write_json(w, v, c); }
static void block_json(sl_jw *w, const void *v, const sl_codec_ctx *c)
{
	sl_pchain_block_write_json(w, v, c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_arena a;
	sl_arena_init(&a, FUZZ_ARENA);
	sl_buf b;
	sl_buf_init(&b, 8u << 20);

	sl_pchain_tx tx;
	if (sl_pchain_tx_decode(&a, data, size, &tx, NULL) == SL_OK) {
		if (sl_pchain_tx_encode(&b, &tx) != SL_OK)
			abort();
		same_or_abort(&b, data, size);
		json_or_abort(tx_json, &tx);
	}
	sl_buf_reset(&b);
	if (sl_pchain_utx_decode(&a, data, size, &tx, NULL) == SL_OK) {
		sl_wr_u16(&b, 0);
		sl_pchain_utx_write(&b, &tx.utx);
		same_or_abort(&b, data, size);
	}
	sl_buf_reset(&b);
	sl_pchain_block blk;
	if (sl_pchain_block_decode(&a, data, size, &blk, NULL) == SL_OK) {
		if (sl_pchain_block_encode(&b, &blk) != SL_OK)
			abort();
		same_or_abort(&b, data, size);
		json_or_abort(block_json, &blk);
	}
	sl_buf_release(&b);
	sl_arena_release(&a);
	return 0;
}
