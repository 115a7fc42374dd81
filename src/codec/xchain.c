#include "codec/xchain.h"

#include "codec/writer.h"
#include "crypto/hash.h"
#include "util/limits.h"

#define X_TXS (SL_TYPE(0) | SL_TYPE(1) | SL_TYPE(2) | SL_TYPE(3) | SL_TYPE(4))
#define X_OPS (SL_TYPE(8) | SL_TYPE(12) | SL_TYPE(13) | SL_TYPE(17) | SL_TYPE(18))
#define MIN_TX_IN_BLOCK 86u /* type id + an empty BaseTx + empty credential list */
#define MIN_STATE 8u
#define MIN_OPERATION (32u + 4 + 4 + 4)
#define MIN_VERTEX_TX 4u

const char *sl_xchain_type_name(uint32_t t)
{
	static const char *const names[] = { "BaseTx", "CreateAssetTx", "OperationTx", "ImportTx",
					     "ExportTx" };
	if (t < SL_ARRAY_LEN(names))
		return names[t];
	return t == SL_X_STANDARD_BLOCK ? "StandardBlock" : NULL;
}

const char *sl_xchain_fx_type_name(uint32_t t)
{
	static const char *const names[] = {
		[5] = "secp256k1fx.TransferInput",  [6] = "secp256k1fx.MintOutput",
		[7] = "secp256k1fx.TransferOutput", [8] = "secp256k1fx.MintOperation",
		[9] = "secp256k1fx.Credential",	    [10] = "nftfx.MintOutput",
		[11] = "nftfx.TransferOutput",	    [12] = "nftfx.MintOperation",
		[13] = "nftfx.TransferOperation",   [14] = "nftfx.Credential",
		[15] = "propertyfx.MintOutput",	    [16] = "propertyfx.OwnedOutput",
		[17] = "propertyfx.MintOperation",  [18] = "propertyfx.BurnOperation",
		[19] = "propertyfx.Credential",
	};
	return t < SL_ARRAY_LEN(names) ? names[t] : NULL;
}

static void fx_op_read(sl_dec *d, sl_xchain_fx_op *op)
{
	op->type_id = sl_dec_type(d, X_OPS);
	if (!sl_rd_ok(&d->r))
		return;
	sl_avax_sigidx_decode(d, &op->input);
	switch (op->type_id) {
	case SL_T_SECP_MINT_OPERATION:
		sl_avax_owners_decode(d, &op->owners1);
		op->amount = sl_rd_u64(&d->r);
		sl_avax_owners_decode(d, &op->owners2);
		break;
	case SL_T_NFT_MINT_OPERATION:
		op->group_id = sl_rd_u32(&d->r);
		op->payload = sl_rd_var32(&d->r, SL_CODEC_MAX_SIZE);
		op->nowners = sl_rd_count(&d->r, SL_CODEC_MAX_SLICE, SL_MIN_OWNERS);
		op->owners = sl_dec_array(d, op->nowners, sizeof *op->owners);
		for (uint32_t i = 0; i < op->nowners && sl_rd_ok(&d->r); i++)
			sl_avax_owners_decode(d, &op->owners[i]);
		if (!sl_rd_ok(&d->r))
			op->nowners = 0;
		break;
	case SL_T_NFT_TRANSFER_OPERATION:
		op->group_id = sl_rd_u32(&d->r);
		op->payload = sl_rd_var32(&d->r, SL_CODEC_MAX_SIZE);
		sl_avax_owners_decode(d, &op->owners1);
		break;
	case SL_T_PROP_MINT_OPERATION:
		sl_avax_owners_decode(d, &op->owners1);
		sl_avax_owners_decode(d, &op->owners2);
		break;
	default: /* 18: the input only */ break;
	}
}

static void fx_op_write(sl_buf *out, const sl_xchain_fx_op *op)
{
	sl_wr_u32(out, op->type_id);
	sl_avax_sigidx_write(out, &op->input);
	switch (op->type_id) {
	case SL_T_SECP_MINT_OPERATION:
		sl_avax_owners_write(out, &op->owners1);
		sl_wr_u64(out, op->amount);
		sl_avax_owners_write(out, &op->owners2);
		break;
	case SL_T_NFT_MINT_OPERATION:
		sl_wr_u32(out, op->group_id);
		sl_wr_var32(out, op->payload);
		sl_wr_u32(out, op->nowners);
		for (uint32_t i = 0; i < op->nowners; i++)
			sl_avax_owners_write(out, &op->owners[i]);
		break;
	case SL_T_NFT_TRANSFER_OPERATION:
		sl_wr_u32(out, op->group_id);
		sl_wr_var32(out, op->payload);
		sl_avax_owners_write(out, &op->owners1);
		break;
	case SL_T_PROP_MINT_OPERATION:
		sl_avax_owners_write(out, &op->owners1);
		sl_avax_owners_write(out, &op->owners2);
		break;
	default: break;
	}
}

void sl_xchain_utx_read(sl_dec *d, sl_xchain_utx *u)
{
	*u = (sl_xchain_utx){ 0 };
	u->type_id = sl_dec_type(d, X_TXS);
	if (!sl_rd_ok(&d->r))
		return;
	sl_avax_base_decode(d, &u->base, SL_X_OUTPUTS, SL_X_INPUTS);
	switch ((sl_xchain_type)u->type_id) {
	case SL_X_CREATE_ASSET_TX:
		u->name = sl_rd_str16(&d->r);
		u->symbol = sl_rd_str16(&d->r);
		u->denomination = sl_rd_u8(&d->r);
		u->nstates = sl_rd_count(&d->r, SL_CODEC_MAX_SLICE, MIN_STATE);
		u->states = sl_dec_array(d, u->nstates, sizeof *u->states);
		for (uint32_t i = 0; i < u->nstates && sl_rd_ok(&d->r); i++) {
			sl_initial_state *s = &u->states[i];
			s->fx_index = sl_rd_u32(&d->r);
			s->nouts = sl_rd_count(&d->r, SL_CODEC_MAX_SLICE, SL_MIN_OUTPUT);
			s->outs = sl_dec_array(d, s->nouts, sizeof *s->outs);
			for (uint32_t j = 0; j < s->nouts && sl_rd_ok(&d->r); j++)
				sl_avax_output_decode(d, &s->outs[j], SL_X_STATES);
			if (!sl_rd_ok(&d->r))
				s->nouts = 0;
		}
		if (!sl_rd_ok(&d->r))
			u->nstates = 0;
		break;
	case SL_X_OPERATION_TX:
		u->nops = sl_rd_count(&d->r, SL_CODEC_MAX_SLICE, MIN_OPERATION);
		u->ops = sl_dec_array(d, u->nops, sizeof *u->ops);
		for (uint32_t i = 0; i < u->nops && sl_rd_ok(&d->r); i++) {
			sl_xchain_op *op = &u->ops[i];
			op->asset_id = sl_dec_id(d);
			op->utxos = sl_dec_fixed_list(d, &op->nutxos, SL_ID_LEN + 4);
			fx_op_read(d, &op->op);
		}
		if (!sl_rd_ok(&d->r))
			u->nops = 0;
		break;
	case SL_X_IMPORT_TX:
		u->chain = sl_dec_id(d);
		sl_avax_ins_decode(d, &u->nimported, &u->imported, SL_X_INPUTS);
		break;
	case SL_X_EXPORT_TX:
		u->chain = sl_dec_id(d);
		sl_avax_outs_decode(d, &u->nexported, &u->exported, SL_X_OUTPUTS);
		break;
	default: break;
	}
}

void sl_xchain_utx_write(sl_buf *out, const sl_xchain_utx *u)
{
	sl_wr_u32(out, u->type_id);
	sl_avax_base_write(out, &u->base);
	switch ((sl_xchain_type)u->type_id) {
	case SL_X_CREATE_ASSET_TX:
		sl_wr_str16(out, u->name);
		sl_wr_str16(out, u->symbol);
		sl_wr_u8(out, u->denomination);
		sl_wr_u32(out, u->nstates);
		for (uint32_t i = 0; i < u->nstates; i++) {
			sl_wr_u32(out, u->states[i].fx_index);
			sl_wr_u32(out, u->states[i].nouts);
			for (uint32_t j = 0; j < u->states[i].nouts; j++)
				sl_avax_output_write(out, &u->states[i].outs[j]);
		}
		break;
	case SL_X_OPERATION_TX:
		sl_wr_u32(out, u->nops);
		for (uint32_t i = 0; i < u->nops; i++) {
			sl_wr_fixed(out, u->ops[i].asset_id, SL_ID_LEN);
			sl_wr_u32(out, u->ops[i].nutxos);
			sl_wr_fixed(out, u->ops[i].utxos, (size_t)u->ops[i].nutxos * (SL_ID_LEN + 4));
			fx_op_write(out, &u->ops[i].op);
		}
		break;
	case SL_X_IMPORT_TX:
		sl_wr_fixed(out, u->chain, SL_ID_LEN);
		sl_avax_ins_write(out, u->nimported, u->imported);
		break;
	case SL_X_EXPORT_TX:
		sl_wr_fixed(out, u->chain, SL_ID_LEN);
		sl_avax_outs_write(out, u->nexported, u->exported);
		break;
	default: break;
	}
}

void sl_xchain_tx_read(sl_dec *d, sl_xchain_tx *tx)
{
	size_t start = d->r.off;
	*tx = (sl_xchain_tx){ 0 };
	sl_xchain_utx_read(d, &tx->utx);
	sl_avax_signed_tail(d, start, SL_X_CREDS, &tx->ncreds, &tx->creds, &tx->unsigned_bytes, &tx->bytes,
			    tx->id);
}

void sl_xchain_tx_write(sl_buf *out, const sl_xchain_tx *tx)
{
	sl_xchain_utx_write(out, &tx->utx);
	sl_avax_creds_write(out, tx->ncreds, tx->creds);
}

sl_err sl_xchain_tx_encode(sl_buf *out, const sl_xchain_tx *tx)
{
	sl_wr_u16(out, 0);
	sl_xchain_tx_write(out, tx);
	return out->err;
}

sl_err sl_xchain_tx_decode(sl_arena *a, const uint8_t *p, size_t n, sl_xchain_tx *tx, sl_err_detail *err)
{
	sl_dec d;
	sl_dec_init(&d, a, p, n);
	*tx = (sl_xchain_tx){ 0 };
	if (n > SL_CODEC_MAX_SIZE)
		sl_rd_fail(&d.r, SL_ERR_TOO_LARGE, "tx larger than the codec's maximum");
	sl_dec_version0(&d);
	sl_xchain_tx_read(&d, tx);
	if (sl_rd_ok(&d.r))
		tx->bytes = sl_span_of(p, d.r.off);
	return sl_dec_finish(&d, err);
}

sl_err sl_xchain_block_decode(sl_arena *a, const uint8_t *p, size_t n, sl_xchain_block *b, sl_err_detail *err)
{
	sl_dec d;
	sl_dec_init(&d, a, p, n);
	*b = (sl_xchain_block){ 0 };
	if (n > SL_CODEC_MAX_SIZE)
		sl_rd_fail(&d.r, SL_ERR_TOO_LARGE, "block larger than the codec's maximum");
	sl_dec_version0(&d);
	b->type_id = sl_dec_type(&d, SL_TYPE(SL_X_STANDARD_BLOCK));
	b->parent_id = sl_dec_id(&d);
	b->height = sl_rd_u64(&d.r);
	b->time = sl_rd_u64(&d.r);
	b->merkle_root = sl_dec_id(&d);
	b->ntxs = sl_rd_count(&d.r, SL_CODEC_MAX_SLICE, MIN_TX_IN_BLOCK);
	b->txs = sl_dec_array(&d, b->ntxs, sizeof *b->txs);
	for (uint32_t i = 0; i < b->ntxs && sl_rd_ok(&d.r); i++)
		sl_xchain_tx_read(&d, &b->txs[i]);
	if (!sl_rd_ok(&d.r))
		b->ntxs = 0;
	sl_err e = sl_dec_finish(&d, err);
	if (e == SL_OK) {
		b->bytes = sl_span_of(p, n);
		sl_sha256(p, n, b->id);
	}
	return e;
}

sl_err sl_xchain_block_encode(sl_buf *out, const sl_xchain_block *b)
{
	sl_wr_u16(out, 0);
	sl_wr_u32(out, b->type_id);
	sl_wr_fixed(out, b->parent_id, SL_ID_LEN);
	sl_wr_u64(out, b->height);
	sl_wr_u64(out, b->time);
	sl_wr_fixed(out, b->merkle_root, SL_ID_LEN);
	sl_wr_u32(out, b->ntxs);
	for (uint32_t i = 0; i < b->ntxs; i++)
		sl_xchain_tx_write(out, &b->txs[i]);
	return out->err;
}

sl_err sl_xchain_vertex_decode(sl_arena *a, const uint8_t *p, size_t n, sl_xchain_vertex *v,
			       sl_err_detail *err)
{
	sl_dec d;
	sl_dec_init(&d, a, p, n);
	*v = (sl_xchain_vertex){ 0 };
	if (n > SL_CODEC_MAX_SIZE)
		sl_rd_fail(&d.r, SL_ERR_TOO_LARGE, "vertex larger than the codec's maximum");
	v->version = sl_rd_u16(&d.r);
	if (sl_rd_ok(&d.r) && v->version > 1) {
		d.r.off = 0;
		sl_rd_fail(&d.r, SL_ERR_UNSUPPORTED, "unknown vertex codec version");
	}
	v->chain_id = sl_dec_id(&d);
	v->height = sl_rd_u64(&d.r);
	if (v->version == 0)
		v->epoch = sl_rd_u32(&d.r);
	v->parents = sl_dec_fixed_list(&d, &v->nparents, SL_ID_LEN);
	if (v->version == 0) {
		v->ntxs = sl_rd_count(&d.r, SL_CODEC_MAX_SLICE, MIN_VERTEX_TX);
		v->txs = sl_dec_array(&d, v->ntxs, sizeof *v->txs);
		for (uint32_t i = 0; i < v->ntxs && sl_rd_ok(&d.r); i++) {
			size_t at = d.r.off + 4;
			sl_span s = sl_rd_var32(&d.r, SL_CODEC_MAX_SIZE);
			if (!sl_rd_ok(&d.r))
				break;
			sl_err_detail inner;
			if (sl_xchain_tx_decode(a, s.p, s.len, &v->txs[i], &inner)) {
				/* report the failure at its offset in the vertex */
				d.r.err = (sl_err_detail){ inner.code, inner.msg, at + inner.offset };
			}
		}
		if (!sl_rd_ok(&d.r))
			v->ntxs = 0;
	}
	sl_err e = sl_dec_finish(&d, err);
	if (e == SL_OK) {
		v->bytes = sl_span_of(p, n);
		sl_sha256(p, n, v->id);
	}
	return e;
}

sl_err sl_xchain_vertex_encode(sl_buf *out, const sl_xchain_vertex *v)
{
	sl_wr_u16(out, v->version);
	sl_wr_fixed(out, v->chain_id, SL_ID_LEN);
	sl_wr_u64(out, v->height);
	if (v->version == 0)
		sl_wr_u32(out, v->epoch);
	sl_wr_u32(out, v->nparents);
	sl_wr_fixed(out, v->parents, (size_t)v->nparents * SL_ID_LEN);
	if (v->version == 0) {
		sl_wr_u32(out, v->ntxs);
		for (uint32_t i = 0; i < v->ntxs; i++) {
			/* length prefix, then the tx with its version */
			size_t at = out->len;
			sl_wr_u32(out, 0);
			sl_err e = sl_xchain_tx_encode(out, &v->txs[i]);
			if (e == SL_OK && out->len - at - 4 <= UINT32_MAX)
				sl_put_be32(out->p + at, (uint32_t)(out->len - at - 4));
		}
	}
	return out->err;
}
