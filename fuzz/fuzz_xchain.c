/*
 * fuzz_xchain.c — hostile bytes into the X-chain decoders (signed tx,
 * StandardBlock, vertex). Whatever decodes must re-encode to the same
 * bytes and render as JSON; a mismatch aborts.
 */
#include <stdlib.h>

#include "codec/json.h"
#include "codec/xchain.h"
#include "fuzz.h"

#define FUZZ_ARENA (64u << 20)

static void same_or_abort(const sl_buf *b, const uint8_t *p, size_t n)
{
	if (b->err || b->len != n || (n && memcmp(b->p, p, n)))
		abort();
}

static void json_check(const void *v, int kind)
{
	sl_buf j;
	sl_buf_init(&j, 256u << 20);
	sl_jw w;
	sl_jw_init(&w, &j);
	sl_codec_ctx ctx = sl_codec_ctx_for(5, "X");
	if (kind == 0)
		sl_xchain_tx_write_json(&w, v, &ctx);
	else if (kind == 1)
		sl_xchain_block_write_json(&w, v, &ctx);
	else
		sl_xchain_vertex_write_json(&w, v, &ctx);
	if (j.err)
		abort();
	sl_buf_release(&j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_arena a;
	sl_arena_init(&a, FUZZ_ARENA);
	sl_buf b;
	sl_buf_init(&b, 8u << 20);

	sl_xchain_tx tx;
	if (sl_xchain_tx_decode(&a, data, size, &tx, NULL) == SL_OK) {
		if (sl_xchain_tx_encode(&b, &tx) != SL_OK)
			abort();
		same_or_abort(&b, data, size);
		json_check(&tx, 0);
	}
	sl_buf_reset(&b);
	sl_xchain_block blk;
	if (sl_xchain_block_decode(&a, data, size, &blk, NULL) == SL_OK) {
		if (sl_xchain_block_encode(&b, &blk) != SL_OK)
			abort();
		same_or_abort(&b, data, size);
		json_check(&blk, 1);
	}
	sl_buf_reset(&b);
	sl_xchain_vertex v;
	if (sl_xchain_vertex_decode(&a, data, size, &v, NULL) == SL_OK) {
		if (sl_xchain_vertex_encode(&b, &v) != SL_OK)
			abort();
		same_or_abort(&b, data, size);
		json_check(&v, 2);
	}
	sl_buf_release(&b);
	sl_arena_release(&a);
	return 0;
}
