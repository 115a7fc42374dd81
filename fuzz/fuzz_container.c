/*
 * fuzz_container.c — hostile bytes into codec/formats: sl_container_decode
 * with every index's set and with "anything" (the wrapper rule, then every
 * format), and sl_fmt_detect over every format. Invariants:
 *   - what decodes re-encodes to the same bytes (every format here has one
 *     encoding per value), writes JSON, and its views lie inside the input;
 *   - what fails names a format and a message, at an offset inside the
 *     input; an inner block's failure lies inside the wrapper's inner block.
 */
#include <stdlib.h>

#include "codec/formats.h"
#include "fuzz.h"

#define FUZZ_ARENA (64u << 20)

static bool inside(const uint8_t *data, size_t size, sl_span s)
{
	return s.len == 0 || (s.p >= data && s.len <= size && s.p + s.len <= data + size);
}

static void check_failure(const sl_fmt_attempt *at, size_t size)
{
	if (!at->err.msg || at->err.code == SL_OK || at->err.offset > size)
		abort();
	if (at->fmt != SL_FMT__COUNT && !sl_fmt_name(at->fmt))
		abort();
	if (at->in_inner && (at->inner_at > at->err.offset || at->inner_at > size))
		abort();
	char line[512];
	if (sl_fmt_attempt_describe(at, line, sizeof line) >= sizeof line)
		abort();
}

static void check_container(sl_container_fmts set, uint32_t net, const uint8_t *data, size_t size)
{
	sl_arena a;
	sl_arena_init(&a, FUZZ_ARENA);
	sl_decoded_container c;
	sl_fmt_attempt at;
	if (sl_container_decode(&a, set, data, size, net, &c, &at) != SL_OK) {
		check_failure(&at, size);
		sl_arena_release(&a);
		return;
	}
	sl_fmts allowed = c.wrapped ? set.wrapped : set.bare;
	if (!(allowed & SL_FMTS(c.value.fmt)) || !inside(data, size, c.value.bytes))
		abort();
	if (c.wrapped && (c.outer.inner.p != c.value.bytes.p || c.outer.inner.len != c.value.bytes.len))
		abort();
	if (!c.wrapped && (c.value.bytes.p != data || c.value.bytes.len != size))
		abort();
	sl_buf out;
	sl_buf_init(&out, 8u << 20);
	if (sl_container_encode(&out, &c) != SL_OK || out.len != size || (size && memcmp(out.p, data, size)))
		abort();
	sl_buf_release(&out);
	sl_buf j;
	sl_buf_init(&j, 256u << 20);
	sl_jw w;
	sl_jw_init(&w, &j);
	sl_jw_obj(&w);
	sl_container_write_json_fields(&w, &c, true);
	sl_jw_obj_end(&w);
	if (j.err)
		abort();
	sl_buf_release(&j);
	(void)sl_value_type(&c.value);
	(void)sl_value_id(&c.value);
	sl_arena_release(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_container(SL_CONTAINER_ANY, 0, data, size);
	/* as the indexer will: each index's set, on mainnet (the strict extData rule) */
	const sl_container_fmts ix[] = { SL_CONTAINER_P_BLOCK, SL_CONTAINER_C_BLOCK, SL_CONTAINER_X_TX,
					 SL_CONTAINER_X_BLOCK, SL_CONTAINER_X_VERTEX };
	for (size_t i = 0; i < SL_ARRAY_LEN(ix); i++)
		check_container(ix[i], 1, data, size);

	/* every format, the bare wrapper included */
	sl_arena a;
	sl_arena_init(&a, FUZZ_ARENA);
	sl_value v;
	sl_fmt_attempt at;
	if (sl_fmt_detect(&a, ((sl_fmts)1 << SL_FMT__COUNT) - 1, data, size, 5, &v, &at) == SL_OK) {
		sl_buf out;
		sl_buf_init(&out, 8u << 20);
		if (sl_value_encode(&out, &v) != SL_OK || out.len != size ||
		    (size && memcmp(out.p, data, size)))
			abort();
		sl_buf_release(&out);
	} else {
		check_failure(&at, size);
	}
	sl_arena_release(&a);
	return 0;
}
