#include "codec/rlp.h"

bool sl_rlp_next(sl_reader *r, sl_rlp_item *it)
{
	size_t at = r->off;
	*it = (sl_rlp_item){ .off = at };
	const uint8_t *h = sl_rd_take(r, 1);
	if (!h)
		return false;
	uint8_t b = h[0];
	size_t n;
	if (b < 0x80) {
		it->payload = sl_span_of(h, 1);
		it->raw = it->payload;
		return true;
	}
	it->is_list = b >= 0xc0;
	uint8_t base = it->is_list ? 0xc0 : 0x80;
	if (b <= base + 55) {
		n = b - base;
	} else {
		size_t lenlen = b - base - 55;
		const uint8_t *lp = sl_rd_take(r, lenlen);
		if (!lp)
			return false;
		if (lp[0] == 0 || lenlen > sizeof(size_t)) {
			r->off = at;
			sl_rd_fail(r, SL_ERR_INVALID, "rlp: non-canonical size information");
			return false;
		}
		n = 0;
		for (size_t i = 0; i < lenlen; i++)
			n = n << 8 | lp[i];
		if (n < 56) {
			r->off = at;
			sl_rd_fail(r, SL_ERR_INVALID, "rlp: non-canonical size information");
			return false;
		}
	}
	if (n > sl_rd_left(r)) {
		r->off = at;
		sl_rd_fail(r, SL_ERR_TRUNCATED, "rlp: value size exceeds available input length");
		return false;
	}
	const uint8_t *p = sl_rd_take(r, n);
	if (!it->is_list && n == 1 && p[0] < 0x80) {
		r->off = at;
		sl_rd_fail(r, SL_ERR_INVALID, "rlp: non-canonical size information");
		return false;
	}
	it->payload = sl_span_of(p, n);
	it->raw = sl_span_of(r->p + at, r->off - at);
	return true;
}

void sl_rlp_child(const sl_reader *r, const sl_rlp_item *it, sl_reader *child)
{
	size_t start = (size_t)(it->payload.p - r->p);
	*child = (sl_reader){ .p = r->p, .len = start + it->payload.len, .off = start };
}

bool sl_rlp_list(sl_reader *r, sl_reader *child)
{
	sl_rlp_item it;
	size_t at = r->off;
	if (!sl_rlp_next(r, &it)) {
		*child = (sl_reader){ .p = r->p, .len = r->off, .off = r->off, .err = r->err };
		return false;
	}
	if (!it.is_list) {
		r->off = at;
		sl_rd_fail(r, SL_ERR_INVALID, "rlp: expected list");
		*child = (sl_reader){ .p = r->p, .len = at, .off = at, .err = r->err };
		return false;
	}
	sl_rlp_child(r, &it, child);
	return true;
}

void sl_rlp_close(sl_reader *r, sl_reader *child)
{
	if (child->err.code == SL_OK && child->off != child->len)
		sl_rd_fail(child, SL_ERR_TRAILING, "rlp: input list has too many elements");
	if (child->err.code != SL_OK && r->err.code == SL_OK)
		r->err = child->err;
}

sl_span sl_rlp_str(sl_reader *r, size_t max)
{
	sl_rlp_item it;
	size_t at = r->off;
	if (!sl_rlp_next(r, &it))
		return sl_span_of(NULL, 0);
	if (it.is_list) {
		r->off = at;
		sl_rd_fail(r, SL_ERR_INVALID, "rlp: expected string or byte");
		return sl_span_of(NULL, 0);
	}
	if (it.payload.len > max) {
		r->off = at;
		sl_rd_fail(r, SL_ERR_TOO_LARGE, "rlp: string longer than its field allows");
		return sl_span_of(NULL, 0);
	}
	return it.payload;
}

sl_span sl_rlp_fixed(sl_reader *r, size_t n)
{
	size_t at = r->off;
	sl_span s = sl_rlp_str(r, n);
	if (sl_rd_ok(r) && s.len != n) {
		r->off = at;
		sl_rd_fail(r, SL_ERR_INVALID, "rlp: input string has the wrong size for its field");
		return sl_span_of(NULL, 0);
	}
	return s;
}

sl_span sl_rlp_uint(sl_reader *r, size_t max)
{
	size_t at = r->off;
	sl_span s = sl_rlp_str(r, max);
	if (sl_rd_ok(r) && s.len > 0 && s.p[0] == 0) {
		r->off = at;
		sl_rd_fail(r, SL_ERR_INVALID, "rlp: non-canonical integer (leading zero bytes)");
		return sl_span_of(NULL, 0);
	}
	return s;
}

uint64_t sl_rlp_be_u64(sl_span be)
{
	uint64_t v = 0;
	for (size_t i = 0; i < be.len && i < 8; i++)
		v = v << 8 | be.p[be.len - SL_MIN(be.len, 8) + i];
	return v;
}

uint64_t sl_rlp_u64(sl_reader *r) { return sl_rlp_be_u64(sl_rlp_uint(r, 8)); }

sl_err sl_rlp_decode(const uint8_t *p, size_t len, sl_rlp_item *it, sl_err_detail *detail)
{
	sl_reader r;
	sl_rd_init(&r, p, len);
	sl_rlp_next(&r, it);
	sl_rd_end(&r);
	if (detail)
		*detail = r.err;
	return r.err.code;
}

/* The header of an item with a payload of n bytes; base 0x80 strings, 0xc0 lists. */
static size_t rlp_header(uint8_t out[9], uint8_t base, size_t n)
{
	if (n <= 55) {
		out[0] = (uint8_t)(base + n);
		return 1;
	}
	size_t lenlen = 0;
	for (size_t t = n; t; t >>= 8)
		lenlen++;
	out[0] = (uint8_t)(base + 55 + lenlen);
	for (size_t i = 0; i < lenlen; i++)
		out[1 + i] = (uint8_t)(n >> (8 * (lenlen - 1 - i)));
	return 1 + lenlen;
}

void sl_rlp_put_str(sl_buf *b, const uint8_t *p, size_t n)
{
	if (n == 1 && p[0] < 0x80) {
		sl_buf_add(b, p, 1);
		return;
	}
	uint8_t h[9];
	sl_buf_add(b, h, rlp_header(h, 0x80, n));
	if (n)
		sl_buf_add(b, p, n);
}

void sl_rlp_put_span(sl_buf *b, sl_span s) { sl_rlp_put_str(b, s.p, s.len); }

void sl_rlp_put_uint(sl_buf *b, sl_span be)
{
	while (be.len && be.p[0] == 0) {
		be.p++;
		be.len--;
	}
	sl_rlp_put_str(b, be.p, be.len);
}

void sl_rlp_put_u64(sl_buf *b, uint64_t v)
{
	uint8_t t[8];
	sl_put_be64(t, v);
	sl_rlp_put_uint(b, sl_span_of(t, 8));
}

void sl_rlp_put_raw(sl_buf *b, sl_span encoded)
{
	if (encoded.len)
		sl_buf_add(b, encoded.p, encoded.len);
}

size_t sl_rlp_list_begin(sl_buf *b) { return b->len; }

void sl_rlp_list_end(sl_buf *b, size_t start)
{
	if (b->err || start > b->len)
		return;
	size_t n = b->len - start;
	uint8_t h[9];
	size_t hl = rlp_header(h, 0xc0, n);
	if (!sl_buf_reserve(b, hl))
		return;
	memmove(b->p + start + hl, b->p + start, n);
	memcpy(b->p + start, h, hl);
	b->len += hl;
	b->p[b->len] = 0;
}
