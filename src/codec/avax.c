#include "codec/avax.h"

#include "codec/writer.h"
#include "crypto/hash.h"
#include "util/limits.h"

const uint8_t sl_fx_ids[SL_FX__COUNT][SL_ID_LEN] = {
	{ 's', 'e', 'c', 'p', '2', '5', '6', 'k', '1', 'f', 'x' },
	{ 'n', 'f', 't', 'f', 'x' },
	{ 'p', 'r', 'o', 'p', 'e', 'r', 't', 'y', 'f', 'x' },
};

void *sl_dec_array(sl_dec *d, size_t n, size_t sz)
{
	if (!sl_rd_ok(&d->r))
		return NULL;
	if (n == 0)
		return NULL;
	void *p = sl_arena_array(d->a, n, sz);
	if (!p) {
		sl_rd_fail(&d->r, SL_ERR_NOMEM, "decoder arena exhausted");
		return NULL;
	}
	memset(p, 0, n * sz);
	return p;
}

uint32_t sl_dec_type(sl_dec *d, sl_typeset allowed)
{
	size_t at = d->r.off;
	uint32_t t = sl_rd_u32(&d->r);
	if (!sl_rd_ok(&d->r))
		return 0;
	if (t >= 64 || !(allowed & SL_TYPE(t))) {
		d->r.off = at;
		sl_rd_fail(&d->r, SL_ERR_UNSUPPORTED, "type id not allowed here");
		return 0;
	}
	return t;
}

const uint8_t *sl_dec_fixed_list(sl_dec *d, uint32_t *n, size_t size)
{
	*n = sl_rd_count(&d->r, SL_CODEC_MAX_SLICE, size);
	const uint8_t *p = sl_rd_take(&d->r, (size_t)*n * size);
	if (!sl_rd_ok(&d->r))
		*n = 0;
	return p;
}

void sl_avax_owners_decode(sl_dec *d, sl_owners *o)
{
	o->locktime = sl_rd_u64(&d->r);
	o->threshold = sl_rd_u32(&d->r);
	o->addrs = sl_dec_fixed_list(d, &o->naddrs, SL_SHORT_ID_LEN);
}

void sl_avax_owners_write(sl_buf *out, const sl_owners *o)
{
	sl_wr_u64(out, o->locktime);
	sl_wr_u32(out, o->threshold);
	sl_wr_u32(out, o->naddrs);
	sl_wr_fixed(out, o->addrs, (size_t)o->naddrs * SL_SHORT_ID_LEN);
}

void sl_avax_sigidx_decode(sl_dec *d, sl_sigidx *s) { s->p = sl_dec_fixed_list(d, &s->n, 4); }

void sl_avax_sigidx_write(sl_buf *out, const sl_sigidx *s)
{
	sl_wr_u32(out, s->n);
	sl_wr_fixed(out, s->p, (size_t)s->n * 4);
}

/* The body of an fx output (no type id). */
static void output_body_decode(sl_dec *d, sl_output *o, uint32_t t)
{
	switch (t) {
	case SL_T_SECP_TRANSFER_OUTPUT: o->amount = sl_rd_u64(&d->r); break;
	case SL_T_NFT_MINT_OUTPUT: o->group_id = sl_rd_u32(&d->r); break;
	case SL_T_NFT_TRANSFER_OUTPUT:
		o->group_id = sl_rd_u32(&d->r);
		o->payload = sl_rd_var32(&d->r, SL_CODEC_MAX_SIZE);
		break;
	default: /* 6, 15, 16: owners only */ break;
	}
	sl_avax_owners_decode(d, &o->owners);
}

void sl_avax_output_decode(sl_dec *d, sl_output *o, sl_typeset allowed)
{
	*o = (sl_output){ 0 };
	o->type_id = o->fx_type_id = sl_dec_type(d, allowed);
	if (!sl_rd_ok(&d->r))
		return;
	if (o->type_id == SL_T_STAKEABLE_LOCK_OUT) {
		o->lock_locktime = sl_rd_u64(&d->r);
		o->fx_type_id = sl_dec_type(d, SL_TYPE(SL_T_SECP_TRANSFER_OUTPUT));
		if (!sl_rd_ok(&d->r))
			return;
	}
	output_body_decode(d, o, o->fx_type_id);
}

void sl_avax_output_write(sl_buf *out, const sl_output *o)
{
	sl_wr_u32(out, o->type_id);
	if (o->type_id == SL_T_STAKEABLE_LOCK_OUT) {
		sl_wr_u64(out, o->lock_locktime);
		sl_wr_u32(out, o->fx_type_id);
	}
	switch (o->fx_type_id) {
	case SL_T_SECP_TRANSFER_OUTPUT: sl_wr_u64(out, o->amount); break;
	case SL_T_NFT_MINT_OUTPUT: sl_wr_u32(out, o->group_id); break;
	case SL_T_NFT_TRANSFER_OUTPUT:
		sl_wr_u32(out, o->group_id);
		sl_wr_var32(out, o->payload);
		break;
	default: break;
	}
	sl_avax_owners_write(out, &o->owners);
}

void sl_avax_input_decode(sl_dec *d, sl_input *in, sl_typeset allowed)
{
	*in = (sl_input){ 0 };
	in->type_id = in->fx_type_id = sl_dec_type(d, allowed);
	if (!sl_rd_ok(&d->r))
		return;
	if (in->type_id == SL_T_STAKEABLE_LOCK_IN) {
		in->lock_locktime = sl_rd_u64(&d->r);
		in->fx_type_id = sl_dec_type(d, SL_TYPE(SL_T_SECP_TRANSFER_INPUT));
	}
	in->amount = sl_rd_u64(&d->r);
	sl_avax_sigidx_decode(d, &in->sig);
}

void sl_avax_input_write(sl_buf *out, const sl_input *in)
{
	sl_wr_u32(out, in->type_id);
	if (in->type_id == SL_T_STAKEABLE_LOCK_IN) {
		sl_wr_u64(out, in->lock_locktime);
		sl_wr_u32(out, in->fx_type_id);
	}
	sl_wr_u64(out, in->amount);
	sl_avax_sigidx_write(out, &in->sig);
}

void sl_avax_outs_decode(sl_dec *d, uint32_t *n, sl_avax_out **outs, sl_typeset allowed)
{
	*n = sl_rd_count(&d->r, SL_CODEC_MAX_SLICE, SL_MIN_AVAX_OUT);
	*outs = sl_dec_array(d, *n, sizeof **outs);
	for (uint32_t i = 0; i < *n && sl_rd_ok(&d->r); i++) {
		(*outs)[i].asset_id = sl_dec_id(d);
		sl_avax_output_decode(d, &(*outs)[i].out, allowed);
	}
	if (!sl_rd_ok(&d->r))
		*n = 0;
}

void sl_avax_outs_write(sl_buf *out, uint32_t n, const sl_avax_out *outs)
{
	sl_wr_u32(out, n);
	for (uint32_t i = 0; i < n; i++) {
		sl_wr_fixed(out, outs[i].asset_id, SL_ID_LEN);
		sl_avax_output_write(out, &outs[i].out);
	}
}

void sl_avax_ins_decode(sl_dec *d, uint32_t *n, sl_avax_in **ins, sl_typeset allowed)
{
	*n = sl_rd_count(&d->r, SL_CODEC_MAX_SLICE, SL_MIN_AVAX_IN);
	*ins = sl_dec_array(d, *n, sizeof **ins);
	for (uint32_t i = 0; i < *n && sl_rd_ok(&d->r); i++) {
		sl_avax_in *in = &(*ins)[i];
		in->tx_id = sl_dec_id(d);
		in->output_index = sl_rd_u32(&d->r);
		in->asset_id = sl_dec_id(d);
		sl_avax_input_decode(d, &in->in, allowed);
	}
	if (!sl_rd_ok(&d->r))
		*n = 0;
}

void sl_avax_ins_write(sl_buf *out, uint32_t n, const sl_avax_in *ins)
{
	sl_wr_u32(out, n);
	for (uint32_t i = 0; i < n; i++) {
		sl_wr_fixed(out, ins[i].tx_id, SL_ID_LEN);
		sl_wr_u32(out, ins[i].output_index);
		sl_wr_fixed(out, ins[i].asset_id, SL_ID_LEN);
		sl_avax_input_write(out, &ins[i].in);
	}
}

void sl_avax_base_decode(sl_dec *d, sl_avax_base *b, sl_typeset outs, sl_typeset ins)
{
	b->network_id = sl_rd_u32(&d->r);
	b->blockchain_id = sl_dec_id(d);
	sl_avax_outs_decode(d, &b->nouts, &b->outs, outs);
	sl_avax_ins_decode(d, &b->nins, &b->ins, ins);
	/* The 256-byte memo cap is a validity rule, not a codec rule: decode any. */
	b->memo = sl_rd_var32(&d->r, SL_CODEC_MAX_SIZE);
}

void sl_avax_base_write(sl_buf *out, const sl_avax_base *b)
{
	sl_wr_u32(out, b->network_id);
	sl_wr_fixed(out, b->blockchain_id, SL_ID_LEN);
	sl_avax_outs_write(out, b->nouts, b->outs);
	sl_avax_ins_write(out, b->nins, b->ins);
	sl_wr_var32(out, b->memo);
}

void sl_avax_creds_decode(sl_dec *d, uint32_t *n, sl_credential **creds, sl_typeset allowed)
{
	*n = sl_rd_count(&d->r, SL_CODEC_MAX_SLICE, SL_MIN_CREDENTIAL);
	*creds = sl_dec_array(d, *n, sizeof **creds);
	for (uint32_t i = 0; i < *n && sl_rd_ok(&d->r); i++) {
		sl_credential *c = &(*creds)[i];
		c->type_id = sl_dec_type(d, allowed);
		c->sigs = sl_dec_fixed_list(d, &c->nsigs, SL_SECP_SIG_LEN);
	}
	if (!sl_rd_ok(&d->r))
		*n = 0;
}

void sl_avax_creds_write(sl_buf *out, uint32_t n, const sl_credential *creds)
{
	sl_wr_u32(out, n);
	for (uint32_t i = 0; i < n; i++) {
		sl_wr_u32(out, creds[i].type_id);
		sl_wr_u32(out, creds[i].nsigs);
		sl_wr_fixed(out, creds[i].sigs, (size_t)creds[i].nsigs * SL_SECP_SIG_LEN);
	}
}

sl_err sl_avax_utxo_decode(sl_arena *a, const uint8_t *p, size_t n, sl_typeset outputs, sl_utxo *u,
			   sl_err_detail *err)
{
	sl_dec d;
	sl_dec_init(&d, a, p, n);
	*u = (sl_utxo){ 0 };
	if (sl_rd_u16(&d.r) != 0 && sl_rd_ok(&d.r)) {
		d.r.off = 0;
		sl_rd_fail(&d.r, SL_ERR_UNSUPPORTED, "unknown codec version");
	}
	u->tx_id = sl_dec_id(&d);
	u->output_index = sl_rd_u32(&d.r);
	u->asset_id = sl_dec_id(&d);
	sl_avax_output_decode(&d, &u->out, outputs);
	sl_rd_end(&d.r);
	if (err)
		*err = d.r.err;
	return d.r.err.code;
}

void sl_avax_utxo_encode(sl_buf *out, const sl_utxo *u)
{
	sl_wr_u16(out, 0);
	sl_wr_fixed(out, u->tx_id, SL_ID_LEN);
	sl_wr_u32(out, u->output_index);
	sl_wr_fixed(out, u->asset_id, SL_ID_LEN);
	sl_avax_output_write(out, &u->out);
}

void sl_avax_utxo_id(const uint8_t tx_id[32], uint32_t output_index, uint8_t out[32])
{
	uint8_t buf[8 + 32];
	sl_put_be64(buf, output_index);
	memcpy(buf + 8, tx_id, 32);
	sl_sha256(buf, sizeof buf, out);
}

sl_err sl_avax_hash_versioned(sl_arena *a, sl_span body, uint8_t out[32])
{
	uint8_t small[512];
	uint8_t *p = small;
	if (body.len > SIZE_MAX - 2)
		return SL_ERR_TOO_LARGE;
	if (body.len + 2 > sizeof small) {
		p = sl_arena_alloc(a, body.len + 2);
		if (!p)
			return SL_ERR_NOMEM;
	}
	p[0] = p[1] = 0;
	if (body.len)
		memcpy(p + 2, body.p, body.len);
	sl_sha256(p, body.len + 2, out);
	return SL_OK;
}

sl_fx sl_avax_x_fx_of(uint32_t type_id)
{
	if (type_id >= 15)
		return SL_FX_PROPERTY;
	if (type_id >= 10)
		return SL_FX_NFT;
	return SL_FX_SECP256K1;
}

void sl_dec_version0(sl_dec *d)
{
	uint16_t v = sl_rd_u16(&d->r);
	if (sl_rd_ok(&d->r) && v != 0) {
		d->r.off -= 2;
		sl_rd_fail(&d->r, SL_ERR_UNSUPPORTED, "unknown codec version");
	}
}

sl_err sl_dec_finish(sl_dec *d, sl_err_detail *err)
{
	sl_rd_end(&d->r);
	if (err)
		*err = d->r.err;
	return d->r.err.code;
}

void sl_avax_signed_tail(sl_dec *d, size_t start, sl_typeset allowed, uint32_t *ncreds, sl_credential **creds,
			 sl_span *unsigned_bytes, sl_span *bytes, uint8_t id[32])
{
	size_t mid = d->r.off;
	sl_avax_creds_decode(d, ncreds, creds, allowed);
	if (!sl_rd_ok(&d->r))
		return;
	*unsigned_bytes = sl_span_of(d->r.p + start, mid - start);
	*bytes = sl_span_of(d->r.p + start, d->r.off - start);
	sl_err e = sl_avax_hash_versioned(d->a, *bytes, id);
	if (e)
		sl_rd_fail(&d->r, e, "cannot hash tx");
}
