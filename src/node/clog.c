#include "node/clog.h"

#include "crypto/hash.h"
#include "util/limits.h"

sl_err sl_clog_decode(const uint8_t *p, size_t n, sl_clog_rec *rec, size_t *used, sl_err_detail *err)
{
	*err = (sl_err_detail){ SL_OK, NULL, 0 };
	if (n < SL_CLOG_HEAD) {
		*err = (sl_err_detail){ SL_ERR_TRUNCATED, "record header cut short", n };
		return SL_ERR_TRUNCATED;
	}
	if (p[0] >= SL_IDX__COUNT) {
		*err = (sl_err_detail){ SL_ERR_INVALID, "unknown index kind", 0 };
		return SL_ERR_INVALID;
	}
	uint32_t len = sl_be32(p + 41);
	if (len > SL_MAX_CONTAINER) {
		*err = (sl_err_detail){ SL_ERR_TOO_LARGE, "container longer than the limit", 41 };
		return SL_ERR_TOO_LARGE;
	}
	size_t total = SL_CLOG_HEAD + (size_t)len + 4;
	if (n < total) {
		*err = (sl_err_detail){ SL_ERR_TRUNCATED, "record cut short", n };
		return SL_ERR_TRUNCATED;
	}
	uint8_t sum[4];
	sl_checksum4(p, SL_CLOG_HEAD + len, sum);
	if (memcmp(sum, p + SL_CLOG_HEAD + len, 4)) {
		*err = (sl_err_detail){ SL_ERR_CHECKSUM, "record checksum mismatch", SL_CLOG_HEAD + len };
		return SL_ERR_CHECKSUM;
	}
	rec->kind = (sl_ikind)p[0];
	memcpy(rec->c.id, p + 1, 32);
	rec->c.ts_ns = (int64_t)sl_be64(p + 33);
	rec->c.index = 0;
	rec->c.bytes = p + SL_CLOG_HEAD;
	rec->c.len = len;
	*used = total;
	return SL_OK;
}

void sl_clog_encode(sl_buf *out, sl_ikind kind, const sl_container *c)
{
	uint8_t head[SL_CLOG_HEAD];
	head[0] = (uint8_t)kind;
	memcpy(head + 1, c->id, 32);
	sl_put_be64(head + 33, (uint64_t)c->ts_ns);
	sl_put_be32(head + 41, (uint32_t)c->len);
	size_t at = out->len;
	sl_buf_add(out, head, sizeof head);
	sl_buf_add(out, c->bytes, c->len);
	if (out->err)
		return;
	uint8_t sum[4];
	sl_checksum4(out->p + at, SL_CLOG_HEAD + c->len, sum);
	sl_buf_add(out, sum, 4);
}
