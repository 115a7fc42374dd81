/*
 * fuzz_rlp.c — hostile bytes into the RLP reader. Any single item that
 * decodes is walked recursively and re-encoded; canonical RLP has one
 * encoding per value, so the output must equal the input.
 */
#include <stdlib.h>

#include "codec/rlp.h"
#include "fuzz.h"

/* Copy the next item of r onto out, rebuilding lists item by item. */
static void copy_item(sl_reader *r, sl_buf *out, int depth)
{
	sl_rlp_item it;
	if (!sl_rlp_next(r, &it))
		return;
	if (!it.is_list) {
		sl_rlp_put_span(out, it.payload);
		return;
	}
	if (depth >= SL_RLP_MAX_DEPTH) {
		sl_rlp_put_raw(out, it.raw);
		return;
	}
	sl_reader c;
	sl_rlp_child(r, &it, &c);
	size_t st = sl_rlp_list_begin(out);
	while (sl_rd_ok(&c) && sl_rd_left(&c) > 0)
		copy_item(&c, out, depth + 1);
	sl_rlp_list_end(out, st);
	sl_rlp_close(r, &c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_rlp_item it;
	if (sl_rlp_decode(data, size, &it, NULL) != SL_OK)
		return 0;
	sl_reader r;
	sl_rd_init(&r, data, size);
	sl_buf out;
	sl_buf_init(&out, 8u << 20);
	copy_item(&r, &out, 0);
	/* a nested item may still be non-canonical: then there is nothing to compare */
	if (sl_rd_ok(&r) && (out.err || out.len != size || (size && memcmp(out.p, data, size) != 0)))
		abort();
	sl_buf_release(&out);
	return 0;
}
