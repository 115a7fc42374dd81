#include "codec/proposervm.h"

#include "codec/reader.h"
#include "crypto/hash.h"
#include "util/limits.h"

const char *sl_proposervm_kind_name(sl_proposervm_kind k)
{
	switch (k) {
	case SL_PROPOSERVM_BLOCK: return "statelessBlock";
	case SL_PROPOSERVM_OPTION: return "option";
	case SL_PROPOSERVM_GRANITE: return "statelessGraniteBlock";
	}
	return "unknown";
}

void sl_proposervm_block_ids(sl_proposervm_block *b)
{
	size_t idlen = b->bytes.len;
	/* Signed kinds hash everything but the trailing `u32 len | signature`. */
	if (b->kind != SL_PROPOSERVM_OPTION && idlen >= 4 + b->signature.len)
		idlen -= 4 + b->signature.len;
	sl_sha256(b->bytes.p, idlen, b->id);
	b->has_proposer = b->certificate.len > 0;
	if (b->has_proposer)
		sl_hash160(b->certificate.p, b->certificate.len, b->proposer);
	else
		memset(b->proposer, 0, sizeof b->proposer);
}

sl_err sl_proposervm_block_decode(const uint8_t *p, size_t len, sl_proposervm_block *out,
				  sl_err_detail *detail)
{
	sl_reader r;
	sl_rd_init(&r, p, len);
	*out = (sl_proposervm_block){ .bytes = sl_span_of(p, len) };

	if (len > SL_MAX_CONTAINER) {
		sl_rd_fail(&r, SL_ERR_TOO_LARGE, "proposervm block larger than a container");
		goto done;
	}
	if (sl_rd_u16(&r) != 0 && sl_rd_ok(&r)) {
		r.off -= 2;
		sl_rd_fail(&r, SL_ERR_UNSUPPORTED, "unknown codec version");
		goto done;
	}
	uint32_t type = sl_rd_u32(&r);
	if (sl_rd_ok(&r) && type > SL_PROPOSERVM_GRANITE) {
		r.off -= 4;
		sl_rd_fail(&r, SL_ERR_UNSUPPORTED, "unknown proposervm block type");
		goto done;
	}
	out->kind = (sl_proposervm_kind)type;
	out->parent_id = sl_rd_bytes(&r, 32);
	if (type == SL_PROPOSERVM_OPTION) {
		out->inner = sl_rd_var32(&r, SL_MAX_CONTAINER);
	} else {
		out->timestamp = (int64_t)sl_rd_u64(&r);
		out->pchain_height = sl_rd_u64(&r);
		out->certificate = sl_rd_var32(&r, SL_MAX_CONTAINER);
		out->inner = sl_rd_var32(&r, SL_MAX_CONTAINER);
		if (type == SL_PROPOSERVM_GRANITE) {
			out->epoch.pchain_height = sl_rd_u64(&r);
			out->epoch.number = sl_rd_u64(&r);
			out->epoch.start_time = (int64_t)sl_rd_u64(&r);
		}
		out->signature = sl_rd_var32(&r, SL_MAX_CONTAINER);
	}
	sl_rd_end(&r);
	if (sl_rd_ok(&r))
		sl_proposervm_block_ids(out);
done:
	if (detail)
		*detail = r.err;
	return r.err.code;
}

static void put_u32(sl_buf *b, uint32_t v)
{
	uint8_t t[4];
	sl_put_be32(t, v);
	sl_buf_add(b, t, 4);
}

static void put_u64(sl_buf *b, uint64_t v)
{
	uint8_t t[8];
	sl_put_be64(t, v);
	sl_buf_add(b, t, 8);
}

static void put_var(sl_buf *b, sl_span s)
{
	put_u32(b, (uint32_t)s.len);
	if (s.len)
		sl_buf_add(b, s.p, s.len);
}

sl_err sl_proposervm_block_encode(const sl_proposervm_block *b, sl_buf *out)
{
	if (b->parent_id.len != 32 || b->kind > SL_PROPOSERVM_GRANITE)
		return SL_ERR_INVALID;
	if (b->inner.len > SL_MAX_CONTAINER || b->certificate.len > SL_MAX_CONTAINER ||
	    b->signature.len > SL_MAX_CONTAINER)
		return SL_ERR_TOO_LARGE;
	uint8_t head[6] = { 0 };
	sl_put_be32(head + 2, (uint32_t)b->kind);
	sl_buf_add(out, head, sizeof head);
	sl_buf_add(out, b->parent_id.p, 32);
	if (b->kind == SL_PROPOSERVM_OPTION) {
		put_var(out, b->inner);
	} else {
		put_u64(out, (uint64_t)b->timestamp);
		put_u64(out, b->pchain_height);
		put_var(out, b->certificate);
		put_var(out, b->inner);
		if (b->kind == SL_PROPOSERVM_GRANITE) {
			put_u64(out, b->epoch.pchain_height);
			put_u64(out, b->epoch.number);
			put_u64(out, (uint64_t)b->epoch.start_time);
		}
		put_var(out, b->signature);
	}
	return out->err;
}

sl_err sl_proposervm_wrapper_decode(const uint8_t *p, size_t len, sl_proposervm_block *out,
				    sl_err_detail *detail)
{
	sl_err_detail e = { 0 };
	sl_err err = sl_proposervm_block_decode(p, len, out, &e);
	if (err == SL_OK && out->inner.len == 0) {
		/* where the inner block's length field is (layout in proposervm.h) */
		size_t at = out->kind == SL_PROPOSERVM_OPTION ? 38 : 58 + out->certificate.len;
		e = (sl_err_detail){ SL_ERR_INVALID, "empty inner block", at };
	} else if (err == SL_OK && out->kind != SL_PROPOSERVM_OPTION &&
		   (out->certificate.len == 0) != (out->signature.len == 0)) {
		/* a real proposer signs what it certifies: one without the other is not a wrapper */
		size_t at = len - 4 - out->signature.len; /* the signature's length field */
		e = (sl_err_detail){ SL_ERR_INVALID,
				     out->certificate.len ? "certificate without signature"
							  : "signature without certificate",
				     at };
	}
	if (detail)
		*detail = e;
	return e.code;
}

bool sl_proposervm_unwrap(const uint8_t *p, size_t len, sl_arena *arena, sl_span *inner,
			  const sl_proposervm_block **outer)
{
	sl_proposervm_block b;
	*inner = sl_span_of(p, len);
	if (outer)
		*outer = NULL;
	/* RLP (C-chain pre-fork) and anything not starting with codec version 0 is bare. */
	if (len < 6 || p[0] != 0 || p[1] != 0)
		return false;
	if (sl_proposervm_wrapper_decode(p, len, &b, NULL) != SL_OK)
		return false;
	*inner = b.inner;
	if (outer && arena) {
		sl_proposervm_block *copy = sl_arena_alloc(arena, sizeof *copy);
		if (copy) {
			*copy = b;
			*outer = copy;
		}
	}
	return true;
}
