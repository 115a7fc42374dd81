/*
 * writer.h — big-endian append helpers for the codec encoders.
 *
 * The mirror of reader.h: every encoder in codec/ writes through these onto
 * an sl_buf. The buffer's error is sticky (past its max, or out of memory),
 * so an encoder appends a whole structure and checks `out->err` once.
 *
 * Layouts written here are the avalanchego codec's (wire-formats.md §2):
 * integers big-endian at fixed width, `bytes` = u32 length + raw bytes,
 * `string` = u16 length + raw bytes, lists = u32 count + elements.
 */
#ifndef SL_CODEC_WRITER_H
#define SL_CODEC_WRITER_H

#include "util/buf.h"

static inline void sl_wr_u8(sl_buf *b, uint8_t v) { sl_buf_add(b, &v, 1); }
static inline void sl_wr_u16(sl_buf *b, uint16_t v)
{
	uint8_t t[2];
	sl_put_be16(t, v);
	sl_buf_add(b, t, 2);
}
static inline void sl_wr_u32(sl_buf *b, uint32_t v)
{
	uint8_t t[4];
	sl_put_be32(t, v);
	sl_buf_add(b, t, 4);
}
static inline void sl_wr_u64(sl_buf *b, uint64_t v)
{
	uint8_t t[8];
	sl_put_be64(t, v);
	sl_buf_add(b, t, 8);
}
static inline void sl_wr_bool(sl_buf *b, bool v) { sl_wr_u8(b, v ? 1 : 0); }

/* Fixed-size field (ID, ShortID, BLS key...): raw bytes, no length. */
static inline void sl_wr_fixed(sl_buf *b, const uint8_t *p, size_t n) { sl_buf_add(b, p, n); }

/* u32-length-prefixed bytes. A span longer than 2^32-1 cannot be encoded. */
static inline void sl_wr_var32(sl_buf *b, sl_span s)
{
	if (s.len > UINT32_MAX) {
		if (!b->err)
			b->err = SL_ERR_TOO_LARGE;
		return;
	}
	sl_wr_u32(b, (uint32_t)s.len);
	sl_buf_add(b, s.p, s.len);
}

/* u16-length-prefixed string. */
static inline void sl_wr_str16(sl_buf *b, sl_span s)
{
	if (s.len > UINT16_MAX) {
		if (!b->err)
			b->err = SL_ERR_TOO_LARGE;
		return;
	}
	sl_wr_u16(b, (uint16_t)s.len);
	sl_buf_add(b, s.p, s.len);
}

#endif
