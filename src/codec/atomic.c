#include "codec/atomic.h"

#include "codec/writer.h"
#include "util/limits.h"

#define ATOMIC_TXS (SL_TYPE(SL_ATOMIC_IMPORT_TX) | SL_TYPE(SL_ATOMIC_EXPORT_TX))
#define EVM_OUTPUT_LEN (20u + 8 + 32)
#define EVM_INPUT_LEN (20u + 8 + 32 + 8)
#define MIN_ATOMIC_TX (4u + 4 + 32 + 32 + 4 + 4 + 4)

uint64_t sl_atomic_ap5_time(uint32_t network_id)
{
	switch (network_id) {
	case 1: return SL_AP5_MAINNET;
	case 5: return SL_AP5_FUJI;
	default: return 0;
	}
}

const char *sl_atomic_type_name(uint32_t t)
{
	return t == SL_ATOMIC_IMPORT_TX	  ? "UnsignedImportTx"
	       : t == SL_ATOMIC_EXPORT_TX ? "UnsignedExportTx"
					  : NULL;
}

static void utx_read(sl_dec *d, sl_atomic_utx *u)
{
	*u = (sl_atomic_utx){ 0 };
	u->type_id = sl_dec_type(d, ATOMIC_TXS);
	if (!sl_rd_ok(&d->r))
		return;
	u->network_id = sl_rd_u32(&d->r);
	u->blockchain_id = sl_dec_id(d);
	u->chain = sl_dec_id(d);
	if (u->type_id == SL_ATOMIC_IMPORT_TX) {
		sl_avax_ins_decode(d, &u->nimported, &u->imported, SL_TYPE(SL_T_SECP_TRANSFER_INPUT));
		u->nevm_outs = sl_rd_count(&d->r, SL_CODEC_MAX_SLICE, EVM_OUTPUT_LEN);
		u->evm_outs = sl_dec_array(d, u->nevm_outs, sizeof *u->evm_outs);
		for (uint32_t i = 0; i < u->nevm_outs && sl_rd_ok(&d->r); i++) {
			u->evm_outs[i].address = sl_rd_take(&d->r, 20);
			u->evm_outs[i].amount = sl_rd_u64(&d->r);
			u->evm_outs[i].asset_id = sl_dec_id(d);
		}
		if (!sl_rd_ok(&d->r))
			u->nevm_outs = 0;
	} else {
		u->nevm_ins = sl_rd_count(&d->r, SL_CODEC_MAX_SLICE, EVM_INPUT_LEN);
		u->evm_ins = sl_dec_array(d, u->nevm_ins, sizeof *u->evm_ins);
		for (uint32_t i = 0; i < u->nevm_ins && sl_rd_ok(&d->r); i++) {
			u->evm_ins[i].address = sl_rd_take(&d->r, 20);
			u->evm_ins[i].amount = sl_rd_u64(&d->r);
			u->evm_ins[i].asset_id = sl_dec_id(d);
			u->evm_ins[i].nonce = sl_rd_u64(&d->r);
		}
		if (!sl_rd_ok(&d->r))
			u->nevm_ins = 0;
		sl_avax_outs_decode(d, &u->nexported, &u->exported, SL_TYPE(SL_T_SECP_TRANSFER_OUTPUT));
	}
}

void sl_atomic_utx_write(sl_buf *out, const sl_atomic_utx *u)
{
	sl_wr_u32(out, u->type_id);
	sl_wr_u32(out, u->network_id);
	sl_wr_fixed(out, u->blockchain_id, SL_ID_LEN);
	sl_wr_fixed(out, u->chain, SL_ID_LEN);
	if (u->type_id == SL_ATOMIC_IMPORT_TX) {
		sl_avax_ins_write(out, u->nimported, u->imported);
		sl_wr_u32(out, u->nevm_outs);
		for (uint32_t i = 0; i < u->nevm_outs; i++) {
			sl_wr_fixed(out, u->evm_outs[i].address, 20);
			sl_wr_u64(out, u->evm_outs[i].amount);
			sl_wr_fixed(out, u->evm_outs[i].asset_id, SL_ID_LEN);
		}
	} else {
		sl_wr_u32(out, u->nevm_ins);
		for (uint32_t i = 0; i < u->nevm_ins; i++) {
			sl_wr_fixed(out, u->evm_ins[i].address, 20);
			sl_wr_u64(out, u->evm_ins[i].amount);
			sl_wr_fixed(out, u->evm_ins[i].asset_id, SL_ID_LEN);
			sl_wr_u64(out, u->evm_ins[i].nonce);
		}
		sl_avax_outs_write(out, u->nexported, u->exported);
	}
}

void sl_atomic_tx_read(sl_dec *d, sl_atomic_tx *tx)
{
	size_t start = d->r.off;
	*tx = (sl_atomic_tx){ 0 };
	utx_read(d, &tx->utx);
	sl_avax_signed_tail(d, start, SL_SECP_CREDS, &tx->ncreds, &tx->creds, &tx->unsigned_bytes, &tx->bytes,
			    tx->id);
}

void sl_atomic_tx_write(sl_buf *out, const sl_atomic_tx *tx)
{
	sl_atomic_utx_write(out, &tx->utx);
	sl_avax_creds_write(out, tx->ncreds, tx->creds);
}

sl_err sl_atomic_tx_encode(sl_buf *out, const sl_atomic_tx *tx)
{
	sl_wr_u16(out, 0);
	sl_atomic_tx_write(out, tx);
	return out->err;
}

sl_err sl_atomic_tx_decode(sl_arena *a, const uint8_t *p, size_t n, sl_atomic_tx *tx, sl_err_detail *err)
{
	sl_dec d;
	sl_dec_init(&d, a, p, n);
	*tx = (sl_atomic_tx){ 0 };
	if (n > SL_CODEC_MAX_SIZE)
		sl_rd_fail(&d.r, SL_ERR_TOO_LARGE, "tx larger than the codec's maximum");
	sl_dec_version0(&d);
	sl_atomic_tx_read(&d, tx);
	return sl_dec_finish(&d, err);
}

sl_err sl_atomic_extdata_decode(sl_arena *a, const uint8_t *p, size_t n, bool batched, sl_atomic_txs *out,
				sl_err_detail *err)
{
	sl_dec d;
	sl_dec_init(&d, a, p, n);
	*out = (sl_atomic_txs){ .batched = batched };
	if (n == 0) {
		if (err)
			*err = d.r.err;
		return SL_OK;
	}
	if (n > SL_CODEC_MAX_SIZE)
		sl_rd_fail(&d.r, SL_ERR_TOO_LARGE, "extData larger than the codec's maximum");
	sl_dec_version0(&d);
	if (!batched) {
		out->ntxs = 1;
		out->txs = sl_dec_array(&d, 1, sizeof *out->txs);
		if (out->txs)
			sl_atomic_tx_read(&d, out->txs);
	} else {
		size_t at = d.r.off;
		out->ntxs = sl_rd_count(&d.r, SL_CODEC_MAX_SLICE, MIN_ATOMIC_TX);
		if (sl_rd_ok(&d.r) && out->ntxs == 0) {
			d.r.off = at;
			sl_rd_fail(&d.r, SL_ERR_INVALID, "empty atomic tx batch");
		}
		out->txs = sl_dec_array(&d, out->ntxs, sizeof *out->txs);
		for (uint32_t i = 0; i < out->ntxs && sl_rd_ok(&d.r); i++)
			sl_atomic_tx_read(&d, &out->txs[i]);
	}
	if (!sl_rd_ok(&d.r))
		out->ntxs = 0;
	return sl_dec_finish(&d, err);
}

sl_err sl_atomic_extdata_encode(sl_buf *out, const sl_atomic_txs *txs)
{
	if (txs->ntxs == 0)
		return out->err;
	sl_wr_u16(out, 0);
	if (txs->batched)
		sl_wr_u32(out, txs->ntxs);
	for (uint32_t i = 0; i < txs->ntxs; i++)
		sl_atomic_tx_write(out, &txs->txs[i]);
	return out->err;
}
