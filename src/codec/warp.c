#include "codec/warp.h"

#include "codec/reader.h"
#include "codec/writer.h"
#include "crypto/hash.h"
#include "util/limits.h"

const char *sl_warp_payload_type_name(sl_warp_payload_type t)
{
	switch (t) {
	case SL_WARP_PAYLOAD_HASH: return "Hash";
	case SL_WARP_PAYLOAD_ADDRESSED_CALL: return "AddressedCall";
	}
	return "unknown";
}

const char *sl_warp_l1_type_name(sl_warp_l1_type t)
{
	switch (t) {
	case SL_WARP_L1_SUBNET_CONVERSION: return "SubnetToL1Conversion";
	case SL_WARP_L1_REGISTER_VALIDATOR: return "RegisterL1Validator";
	case SL_WARP_L1_VALIDATOR_REGISTRATION: return "L1ValidatorRegistration";
	case SL_WARP_L1_VALIDATOR_WEIGHT: return "L1ValidatorWeight";
	}
	return "unknown";
}

static void rd_version(sl_reader *r)
{
	uint16_t v = sl_rd_u16(r);
	if (sl_rd_ok(r) && v != 0) {
		r->off -= 2;
		sl_rd_fail(r, SL_ERR_UNSUPPORTED, "unknown codec version");
	}
}

/* A type id below `count`. */
static uint32_t rd_type(sl_reader *r, uint32_t count, const char *msg)
{
	uint32_t t = sl_rd_u32(r);
	if (sl_rd_ok(r) && t >= count) {
		r->off -= 4;
		sl_rd_fail(r, SL_ERR_UNSUPPORTED, msg);
	}
	return t;
}

static sl_err finish(sl_reader *r, sl_err_detail *detail)
{
	sl_rd_end(r);
	if (detail)
		*detail = r->err;
	return r->err.code;
}

static void unsigned_read(sl_reader *r, sl_warp_unsigned *m)
{
	size_t start = r->off;
	rd_version(r);
	m->network_id = sl_rd_u32(r);
	m->source_chain_id = sl_rd_bytes(r, 32);
	m->payload = sl_rd_var32(r, SL_CODEC_MAX_SIZE);
	m->bytes = sl_span_of(r->p + start, r->off - start);
	if (sl_rd_ok(r))
		sl_sha256(m->bytes.p, m->bytes.len, m->id);
}

sl_err sl_warp_unsigned_decode(const uint8_t *p, size_t len, sl_warp_unsigned *out, sl_err_detail *detail)
{
	sl_reader r;
	sl_rd_init(&r, p, len);
	*out = (sl_warp_unsigned){ 0 };
	unsigned_read(&r, out);
	return finish(&r, detail);
}

sl_err sl_warp_message_decode(const uint8_t *p, size_t len, sl_warp_message *out, sl_err_detail *detail)
{
	sl_reader r;
	sl_rd_init(&r, p, len);
	*out = (sl_warp_message){ .bytes = sl_span_of(p, len) };
	unsigned_read(&r, &out->msg);
	out->sig_type = rd_type(&r, 1, "unknown warp signature type");
	out->signers = sl_rd_var32(&r, SL_CODEC_MAX_SIZE);
	out->signature = sl_rd_bytes(&r, SL_WARP_BLS_SIG_LEN);
	return finish(&r, detail);
}

sl_err sl_warp_payload_decode(const uint8_t *p, size_t len, sl_warp_payload *out, sl_err_detail *detail)
{
	sl_reader r;
	sl_rd_init(&r, p, len);
	*out = (sl_warp_payload){ .bytes = sl_span_of(p, len) };
	rd_version(&r);
	out->type = (sl_warp_payload_type)rd_type(&r, 2, "unknown warp payload type");
	if (sl_rd_ok(&r) && out->type == SL_WARP_PAYLOAD_HASH) {
		out->hash = sl_rd_bytes(&r, 32);
	} else if (sl_rd_ok(&r)) {
		out->source_address = sl_rd_var32(&r, SL_CODEC_MAX_SIZE);
		out->payload = sl_rd_var32(&r, SL_CODEC_MAX_SIZE);
	}
	return finish(&r, detail);
}

static void owner_read(sl_reader *r, sl_warp_owner *o)
{
	o->threshold = sl_rd_u32(r);
	o->naddrs = sl_rd_count(r, SL_CODEC_MAX_SLICE, 20);
	o->addrs = sl_rd_bytes(r, (size_t)o->naddrs * 20);
}

sl_err sl_warp_l1_decode(const uint8_t *p, size_t len, sl_warp_l1_msg *out, sl_err_detail *detail)
{
	sl_reader r;
	sl_rd_init(&r, p, len);
	*out = (sl_warp_l1_msg){ .bytes = sl_span_of(p, len) };
	rd_version(&r);
	out->type = (sl_warp_l1_type)rd_type(&r, 4, "unknown L1 validator message type");
	if (!sl_rd_ok(&r))
		return finish(&r, detail);
	switch (out->type) {
	case SL_WARP_L1_SUBNET_CONVERSION: out->conversion_id = sl_rd_bytes(&r, 32); break;
	case SL_WARP_L1_REGISTER_VALIDATOR:
		out->subnet_id = sl_rd_bytes(&r, 32);
		out->node_id = sl_rd_var32(&r, SL_CODEC_MAX_SIZE);
		out->bls_public_key = sl_rd_bytes(&r, SL_WARP_BLS_PK_LEN);
		out->expiry = sl_rd_u64(&r);
		owner_read(&r, &out->remaining_balance_owner);
		owner_read(&r, &out->disable_owner);
		out->weight = sl_rd_u64(&r);
		break;
	case SL_WARP_L1_VALIDATOR_REGISTRATION:
		out->validation_id = sl_rd_bytes(&r, 32);
		out->registered = sl_rd_bool(&r);
		break;
	case SL_WARP_L1_VALIDATOR_WEIGHT:
		out->validation_id = sl_rd_bytes(&r, 32);
		out->nonce = sl_rd_u64(&r);
		out->weight = sl_rd_u64(&r);
		break;
	}
	sl_err e = finish(&r, detail);
	if (!e)
		sl_sha256(p, len, out->id);
	return e;
}

sl_err sl_warp_conversion_decode(const uint8_t *p, size_t len, sl_arena *a, sl_warp_conversion *out,
				 sl_err_detail *detail)
{
	sl_reader r;
	sl_rd_init(&r, p, len);
	*out = (sl_warp_conversion){ .bytes = sl_span_of(p, len) };
	rd_version(&r);
	out->subnet_id = sl_rd_bytes(&r, 32);
	out->manager_chain_id = sl_rd_bytes(&r, 32);
	out->manager_address = sl_rd_var32(&r, SL_CODEC_MAX_SIZE);
	/* each validator is at least a length, a key and a weight */
	uint32_t n = sl_rd_count(&r, SL_CODEC_MAX_SLICE, 4 + SL_WARP_BLS_PK_LEN + 8);
	if (n) {
		out->validators = sl_arena_array(a, n, sizeof *out->validators);
		if (!out->validators)
			sl_rd_fail(&r, SL_ERR_NOMEM, "arena exhausted");
	}
	for (uint32_t i = 0; i < n && sl_rd_ok(&r); i++) {
		sl_warp_conversion_validator *v = &out->validators[i];
		v->node_id = sl_rd_var32(&r, SL_CODEC_MAX_SIZE);
		v->bls_public_key = sl_rd_bytes(&r, SL_WARP_BLS_PK_LEN);
		v->weight = sl_rd_u64(&r);
		out->nvalidators = i + 1;
	}
	sl_err e = finish(&r, detail);
	if (!e)
		sl_sha256(p, len, out->id);
	return e;
}

/* ---- encoding --------------------------------------------------------- */

static bool fixed_ok(sl_span s, size_t n) { return s.len == n; }

static sl_err bad(sl_buf *out, sl_err e)
{
	if (!out->err)
		out->err = e;
	return out->err;
}

sl_err sl_warp_unsigned_encode(const sl_warp_unsigned *m, sl_buf *out)
{
	if (!fixed_ok(m->source_chain_id, 32))
		return bad(out, SL_ERR_INVALID);
	sl_wr_u16(out, 0);
	sl_wr_u32(out, m->network_id);
	sl_wr_fixed(out, m->source_chain_id.p, 32);
	sl_wr_var32(out, m->payload);
	return out->err;
}

sl_err sl_warp_message_encode(const sl_warp_message *m, sl_buf *out)
{
	if (!fixed_ok(m->signature, SL_WARP_BLS_SIG_LEN) || m->sig_type != 0)
		return bad(out, SL_ERR_INVALID);
	if (sl_warp_unsigned_encode(&m->msg, out))
		return out->err;
	sl_wr_u32(out, m->sig_type);
	sl_wr_var32(out, m->signers);
	sl_wr_fixed(out, m->signature.p, SL_WARP_BLS_SIG_LEN);
	return out->err;
}

sl_err sl_warp_payload_encode(const sl_warp_payload *p, sl_buf *out)
{
	sl_wr_u16(out, 0);
	sl_wr_u32(out, (uint32_t)p->type);
	if (p->type == SL_WARP_PAYLOAD_HASH) {
		if (!fixed_ok(p->hash, 32))
			return bad(out, SL_ERR_INVALID);
		sl_wr_fixed(out, p->hash.p, 32);
	} else if (p->type == SL_WARP_PAYLOAD_ADDRESSED_CALL) {
		sl_wr_var32(out, p->source_address);
		sl_wr_var32(out, p->payload);
	} else {
		return bad(out, SL_ERR_INVALID);
	}
	return out->err;
}

static void owner_write(sl_buf *out, const sl_warp_owner *o)
{
	if (o->addrs.len != (size_t)o->naddrs * 20) {
		bad(out, SL_ERR_INVALID);
		return;
	}
	sl_wr_u32(out, o->threshold);
	sl_wr_u32(out, o->naddrs);
	sl_buf_add(out, o->addrs.p, o->addrs.len);
}

sl_err sl_warp_l1_encode(const sl_warp_l1_msg *m, sl_buf *out)
{
	sl_wr_u16(out, 0);
	sl_wr_u32(out, (uint32_t)m->type);
	switch (m->type) {
	case SL_WARP_L1_SUBNET_CONVERSION:
		if (!fixed_ok(m->conversion_id, 32))
			return bad(out, SL_ERR_INVALID);
		sl_wr_fixed(out, m->conversion_id.p, 32);
		break;
	case SL_WARP_L1_REGISTER_VALIDATOR:
		if (!fixed_ok(m->subnet_id, 32) || !fixed_ok(m->bls_public_key, SL_WARP_BLS_PK_LEN))
			return bad(out, SL_ERR_INVALID);
		sl_wr_fixed(out, m->subnet_id.p, 32);
		sl_wr_var32(out, m->node_id);
		sl_wr_fixed(out, m->bls_public_key.p, SL_WARP_BLS_PK_LEN);
		sl_wr_u64(out, m->expiry);
		owner_write(out, &m->remaining_balance_owner);
		owner_write(out, &m->disable_owner);
		sl_wr_u64(out, m->weight);
		break;
	case SL_WARP_L1_VALIDATOR_REGISTRATION:
		if (!fixed_ok(m->validation_id, 32))
			return bad(out, SL_ERR_INVALID);
		sl_wr_fixed(out, m->validation_id.p, 32);
		sl_wr_bool(out, m->registered);
		break;
	case SL_WARP_L1_VALIDATOR_WEIGHT:
		if (!fixed_ok(m->validation_id, 32))
			return bad(out, SL_ERR_INVALID);
		sl_wr_fixed(out, m->validation_id.p, 32);
		sl_wr_u64(out, m->nonce);
		sl_wr_u64(out, m->weight);
		break;
	default: return bad(out, SL_ERR_INVALID);
	}
	return out->err;
}

sl_err sl_warp_conversion_encode(const sl_warp_conversion *c, sl_buf *out)
{
	if (!fixed_ok(c->subnet_id, 32) || !fixed_ok(c->manager_chain_id, 32))
		return bad(out, SL_ERR_INVALID);
	sl_wr_u16(out, 0);
	sl_wr_fixed(out, c->subnet_id.p, 32);
	sl_wr_fixed(out, c->manager_chain_id.p, 32);
	sl_wr_var32(out, c->manager_address);
	sl_wr_u32(out, c->nvalidators);
	for (uint32_t i = 0; i < c->nvalidators; i++) {
		const sl_warp_conversion_validator *v = &c->validators[i];
		if (!fixed_ok(v->bls_public_key, SL_WARP_BLS_PK_LEN))
			return bad(out, SL_ERR_INVALID);
		sl_wr_var32(out, v->node_id);
		sl_wr_fixed(out, v->bls_public_key.p, SL_WARP_BLS_PK_LEN);
		sl_wr_u64(out, v->weight);
	}
	return out->err;
}

/* ---- ids and bit sets -------------------------------------------------- */

void sl_warp_conversion_validation_id(const uint8_t subnet_id[32], uint32_t index, uint8_t out[32])
{
	uint8_t pre[36];
	memcpy(pre, subnet_id, 32);
	sl_put_be32(pre + 32, index);
	sl_sha256(pre, sizeof pre, out);
}

bool sl_warp_signers_has(sl_span signers, size_t i)
{
	size_t byte = i / 8;
	if (byte >= signers.len)
		return false;
	return (signers.p[signers.len - 1 - byte] >> (i % 8)) & 1;
}

size_t sl_warp_signers_count(sl_span signers)
{
	size_t n = 0;
	for (size_t i = 0; i < signers.len; i++)
		n += (size_t)__builtin_popcount(signers.p[i]);
	return n;
}

bool sl_warp_signers_minimal(sl_span signers) { return signers.len == 0 || signers.p[0] != 0; }
