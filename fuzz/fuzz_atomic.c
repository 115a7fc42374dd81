/*
 * fuzz_atomic.c — hostile bytes into the C-chain atomic tx decoder, as a
 * pre-ApricotPhase5 single tx and as a batched extData. Whatever decodes
 * must re-encode to the same bytes and render as JSON; a mismatch aborts.
 */
#include <stdlib.h>

#include "codec/atomic.h"
#include "codec/json.h"
#include "fuzz.h"

#define FUZZ_ARENA (64u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_arena a;
	sl_arena_init(&a, FUZZ_ARENA);
	for (int batched = 0; batched < 2; batched++) {
		sl_atomic_txs txs;
		if (sl_atomic_extdata_decode(&a, data, size, batched, &txs, NULL) != SL_OK)
			continue;
		sl_buf b;
		sl_buf_init(&b, 8u << 20);
		if (sl_atomic_extdata_encode(&b, &txs) != SL_OK || b.len != size ||
		    (size && memcmp(b.p, data, size)))
			abort();
		sl_buf_release(&b);
		sl_buf j;
		sl_buf_init(&j, 256u << 20);
		sl_jw w;
		sl_jw_init(&w, &j);
		sl_codec_ctx ctx = sl_codec_ctx_for(1, "C");
		sl_atomic_txs_write_json(&w, &txs, &ctx);
		if (j.err)
			abort();
		sl_buf_release(&j);
	}
	sl_arena_release(&a);
	return 0;
}
