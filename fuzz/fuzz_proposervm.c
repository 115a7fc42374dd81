/*
 * fuzz_proposervm.c — hostile bytes into the proposervm decoder and the
 * wrapped/bare rule. Whatever decodes must re-encode to the same bytes; a
 * recognised wrapper's inner span must lie inside the input.
 */
#include <stdlib.h>

#include "codec/json_evm.h"
#include "codec/proposervm.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_proposervm_block b;
	if (sl_proposervm_block_decode(data, size, &b, NULL) == SL_OK) {
		sl_buf out;
		sl_buf_init(&out, 8u << 20);
		if (sl_proposervm_block_encode(&b, &out) != SL_OK || out.len != size ||
		    (size && memcmp(out.p, data, size) != 0))
			abort();
		sl_buf_release(&out);
		sl_buf j;
		sl_buf_init(&j, 16u << 20);
		sl_jw w;
		sl_jw_init(&w, &j);
		sl_proposervm_block_write_json(&w, &b);
		if (j.err)
			abort();
		sl_buf_release(&j);
	}
	sl_arena a;
	sl_arena_init(&a, 1u << 16);
	sl_span inner;
	const sl_proposervm_block *outer = NULL;
	bool wrapped = sl_proposervm_unwrap(data, size, &a, &inner, &outer);
	if (wrapped && (inner.p < data || inner.p + inner.len > data + size || !outer))
		abort();
	if (!wrapped && (inner.p != data || inner.len != size || outer))
		abort();
	sl_arena_release(&a);
	return 0;
}
