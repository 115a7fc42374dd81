/*
 * avm.c — the X-chain's `avm` service at /ext/bc/X and its aliases: getTx,
 * enough for spec 001's "walk the X-chain history" recipe.
 *
 * A tx is found in the X/tx index (the DAG era) or, after Cortina, inside
 * the X-chain block that holds it: sl_avm_block_txs() records each block tx's
 * place when the block is stored. Order of checks as in avalanchego: the zero
 * id, then the lookup, then the encoding; "json" renders the decoded tx with
 * avalanchego's field names (codec/json.h).
 */
#include "node/internal.h"

#include "codec/json.h"
#include "codec/proposervm.h"

void sl_avm_block_txs(void *ctx, sl_ikind k, const sl_container *c, sl_cstore_put_fn put, void *put_ctx)
{
	if (k != SL_IDX_X_BLOCK)
		return;
	sl_arena a;
	sl_arena_init(&a, 64u << 20);
	sl_span inner = sl_span_of(c->bytes, c->len);
	sl_span unwrapped;
	if (sl_proposervm_unwrap(c->bytes, c->len, &a, &unwrapped, NULL))
		inner = unwrapped;
	sl_xchain_block b;
	sl_err_detail d;
	if (!sl_xchain_block_decode(&a, inner.p, inner.len, &b, &d))
		for (uint32_t i = 0; i < b.ntxs;
		     i++) /* a tx in a block is written without its codec version */
			put(put_ctx, b.txs[i].id, (size_t)(b.txs[i].bytes.p - c->bytes), b.txs[i].bytes.len);
	sl_arena_release(&a);
}

/* The tx inside a block, with the codec version put back in front (arena memory). */
static sl_err find_in_block(sl_rpc_call *c, sl_cstore_rd *rd, const uint8_t id[32], sl_container *ct)
{
	sl_txloc loc;
	sl_err e = sl_cstore_txloc(rd, id, &loc);
	if (!e)
		e = sl_cstore_get(rd, loc.kind, loc.index, ct);
	if (e)
		return e;
	uint8_t *p = sl_arena_alloc(c->arena, loc.len + 2);
	if (!p)
		return SL_ERR_NOMEM;
	p[0] = p[1] = 0;
	memcpy(p + 2, ct->bytes + loc.offset, loc.len);
	ct->bytes = p;
	ct->len = loc.len + 2;
	return SL_OK;
}

static const uint8_t zero_id[32];

static int get_tx(sl_rpc_call *c)
{
	sl_node *n = c->ctx;
	const sl_rpc_val *id = &c->args[0];
	sl_encoding enc = c->args[1].set ? (sl_encoding)c->args[1].enc : SL_ENC_HEX;
	if (!memcmp(id->id, zero_id, 32))
		return sl_rpc_fail(c, "nil transaction ID");
	sl_cstore_rd *rd = NULL;
	if (sl_cstore_rd_begin(n->store, &rd))
		return sl_rpc_fail_err(c, SL_ERR_STORE, "cannot begin a read transaction");
	sl_container ct;
	int rc = -1;
	sl_err e = n->index_state[SL_IDX_X_TX] == SL_INDEX_OFF ? SL_ERR_NOT_FOUND
							       : sl_cstore_find(rd, SL_IDX_X_TX, id->id, &ct);
	if (e == SL_ERR_NOT_FOUND)
		e = find_in_block(c, rd, id->id, &ct);
	if (e)
		sl_rpc_fail_err(c, e, "cannot read tx");
	else if (enc == SL_ENC_JSON) {
		/* The same decoder and renderer as `snowline decode`. */
		sl_xchain_tx tx;
		sl_err_detail d;
		if (sl_xchain_tx_decode(c->arena, ct.bytes, ct.len, &tx, &d)) {
			sl_rpc_fail(c, "couldn't parse tx: %s at byte %zu", d.msg, d.offset);
		} else {
			sl_codec_ctx cx = sl_codec_ctx_for(n->cfg.network_id, "X");
			sl_jw_obj(c->w);
			sl_jw_key(c->w, "tx");
			sl_xchain_tx_write_json(c->w, &tx, &cx);
			sl_jw_key(c->w, "encoding");
			sl_jw_str(c->w, "json");
			sl_jw_obj_end(c->w);
			rc = 0;
		}
	} else {
		sl_jw_obj(c->w);
		sl_jw_key(c->w, "tx");
		sl_jw_raw(c->w, "\"", 1);
		if (enc == SL_ENC_HEXNC) {
			sl_buf_add(c->w->out, "0x", 2);
			sl_buf_add_hex(c->w->out, ct.bytes, ct.len);
		} else {
			sl_write_hex_checksum(c->w->out, ct.bytes, ct.len);
		}
		sl_buf_addc(c->w->out, '"');
		sl_jw_key(c->w, "encoding");
		sl_jw_str(c->w, sl_encoding_name(enc));
		sl_jw_obj_end(c->w);
		rc = 0;
	}
	sl_cstore_rd_end(rd);
	return rc;
}

const sl_rpc_method sl_avm_methods[] = {
	{ "GetTx", get_tx, { { "txID", SL_RPC_ID }, { "encoding", SL_RPC_ENCODING } }, 2 },
};
const size_t sl_avm_nmethods = SL_ARRAY_LEN(sl_avm_methods);
