/*
 * reader.h — a bounded big-endian cursor with a sticky error.
 *
 * Every decoder in codec/ reads through one of these. A read past the end,
 * or a declared length or count larger than what remains or than its named
 * limit, sets `err` (code, static message, byte offset) once; every later
 * read returns zeros and leaves the cursor where it failed, so a decoder
 * reads a whole structure and checks `r->err.code` once at the end.
 *
 * Views: sl_rd_bytes() returns a pointer into the input, never a copy. The
 * input must outlive every view taken from it.
 */
#ifndef SL_CODEC_READER_H
#define SL_CODEC_READER_H

#include "util/common.h"
#include "util/err.h"

typedef struct sl_reader {
	const uint8_t *p;
	size_t len, off;
	sl_err_detail err;
} sl_reader;

static inline void sl_rd_init(sl_reader *r, const uint8_t *p, size_t len)
{
	*r = (sl_reader){ .p = p, .len = len };
}

static inline bool sl_rd_ok(const sl_reader *r) { return r->err.code == SL_OK; }
static inline size_t sl_rd_left(const sl_reader *r) { return r->len - r->off; }

/* Record the first failure only. */
static inline void sl_rd_fail(sl_reader *r, sl_err code, const char *msg)
{
	if (r->err.code == SL_OK)
		r->err = (sl_err_detail){ code, msg, r->off };
}

/* Take n bytes; NULL (and a truncation error) if fewer remain. */
static inline const uint8_t *sl_rd_take(sl_reader *r, size_t n)
{
	if (r->err.code)
		return NULL;
	if (n > r->len - r->off) {
		sl_rd_fail(r, SL_ERR_TRUNCATED, "unexpected end of input");
		return NULL;
	}
	const uint8_t *p = r->p + r->off;
	r->off += n;
	return p;
}

static inline uint8_t sl_rd_u8(sl_reader *r)
{
	const uint8_t *p = sl_rd_take(r, 1);
	return p ? p[0] : 0;
}
static inline uint16_t sl_rd_u16(sl_reader *r)
{
	const uint8_t *p = sl_rd_take(r, 2);
	return p ? sl_be16(p) : 0;
}
static inline uint32_t sl_rd_u32(sl_reader *r)
{
	const uint8_t *p = sl_rd_take(r, 4);
	return p ? sl_be32(p) : 0;
}
static inline uint64_t sl_rd_u64(sl_reader *r)
{
	const uint8_t *p = sl_rd_take(r, 8);
	return p ? sl_be64(p) : 0;
}
static inline bool sl_rd_bool(sl_reader *r)
{
	uint8_t v = sl_rd_u8(r);
	if (v > 1) {
		r->off--;
		sl_rd_fail(r, SL_ERR_INVALID, "boolean is neither 0 nor 1");
		return false;
	}
	return v == 1;
}

/* A view of n bytes (fixed-size field). */
static inline sl_span sl_rd_bytes(sl_reader *r, size_t n)
{
	const uint8_t *p = sl_rd_take(r, n);
	return p ? sl_span_of(p, n) : sl_span_of(NULL, 0);
}

/*
 * A count (uint32) of elements of at least `min_elem` bytes each, checked
 * against `max` and against what remains before the caller allocates.
 */
static inline uint32_t sl_rd_count(sl_reader *r, uint32_t max, size_t min_elem)
{
	size_t at = r->off;
	uint32_t n = sl_rd_u32(r);
	if (r->err.code)
		return 0;
	if (n > max) {
		r->off = at;
		sl_rd_fail(r, SL_ERR_TOO_LARGE, "element count exceeds limit");
		return 0;
	}
	if (min_elem && (uint64_t)n * min_elem > sl_rd_left(r)) {
		r->off = at;
		sl_rd_fail(r, SL_ERR_TRUNCATED, "element count exceeds remaining input");
		return 0;
	}
	return n;
}

/* uint32-length-prefixed bytes, at most max. */
static inline sl_span sl_rd_var32(sl_reader *r, uint32_t max)
{
	size_t at = r->off;
	uint32_t n = sl_rd_u32(r);
	if (r->err.code)
		return sl_span_of(NULL, 0);
	if (n > max) {
		r->off = at;
		sl_rd_fail(r, SL_ERR_TOO_LARGE, "byte length exceeds limit");
		return sl_span_of(NULL, 0);
	}
	return sl_rd_bytes(r, n);
}

/* uint16-length-prefixed string (the codec's string type). */
static inline sl_span sl_rd_str16(sl_reader *r)
{
	uint16_t n = sl_rd_u16(r);
	return sl_rd_bytes(r, n);
}

/* The whole input must have been consumed. */
static inline void sl_rd_end(sl_reader *r)
{
	if (r->err.code == SL_OK && r->off != r->len)
		sl_rd_fail(r, SL_ERR_TRAILING, "trailing bytes after value");
}

#endif
