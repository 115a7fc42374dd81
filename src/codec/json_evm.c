#include "codec/json_evm.h"

#include "crypto/addr.h"
#include "crypto/cb58.h"
#include "crypto/hash.h"

/* ---- small writers ------------------------------------------------------ */

/* A big-endian unsigned integer as an eth quantity: "0x" + hex, no leading zeros, zero = "0x0". */
static void jw_quantity(sl_jw *w, sl_span be)
{
	static const char hx[] = "0123456789abcdef";
	char s[2 + 2 * 64 + 1];
	size_t n = 0, i = 0;
	while (i < be.len && be.p[i] == 0)
		i++;
	s[n++] = '0';
	s[n++] = 'x';
	if (i == be.len || be.len - i > 64) {
		s[n++] = '0';
	} else {
		if (be.p[i] >> 4)
			s[n++] = hx[be.p[i] >> 4];
		s[n++] = hx[be.p[i] & 15];
		for (i++; i < be.len; i++) {
			s[n++] = hx[be.p[i] >> 4];
			s[n++] = hx[be.p[i] & 15];
		}
	}
	sl_jw_strn(w, s, n);
}

static void jw_quantity_u64(sl_jw *w, uint64_t v)
{
	uint8_t t[8];
	sl_put_be64(t, v);
	jw_quantity(w, sl_span_of(t, 8));
}

static void jw_span_hex(sl_jw *w, sl_span s) { sl_jw_hex(w, s.p, s.len); }

static void jw_nodeid(sl_jw *w, sl_span id)
{
	if (id.len != 20) { /* not a node id: show the bytes */
		jw_span_hex(w, id);
		return;
	}
	sl_buf b;
	sl_buf_init(&b, 128);
	sl_nodeid_write(&b, id.p);
	sl_jw_strn(w, sl_buf_str(&b), b.len);
	sl_buf_release(&b);
}

/* ---- proposervm --------------------------------------------------------- */

void sl_proposervm_block_write_json_fields(sl_jw *w, const sl_proposervm_block *b, bool with_inner_bytes)
{
	sl_jw_key(w, "type");
	sl_jw_str(w, sl_proposervm_kind_name(b->kind));
	sl_jw_key(w, "id");
	sl_jw_cb58(w, b->id, 32);
	sl_jw_key(w, "parentID");
	sl_jw_cb58(w, b->parent_id.p, b->parent_id.len);
	if (b->kind != SL_PROPOSERVM_OPTION) {
		sl_jw_key(w, "timestamp");
		sl_jw_i64(w, b->timestamp);
		sl_jw_key(w, "pChainHeight");
		sl_jw_u64(w, b->pchain_height);
		sl_jw_key(w, "certificate");
		jw_span_hex(w, b->certificate);
		sl_jw_key(w, "proposer");
		if (b->has_proposer)
			jw_nodeid(w, sl_span_of(b->proposer, 20));
		else
			sl_jw_null(w);
	}
	if (b->kind == SL_PROPOSERVM_GRANITE) {
		sl_jw_key(w, "epoch");
		sl_jw_obj(w);
		sl_jw_key(w, "pChainHeight");
		sl_jw_u64(w, b->epoch.pchain_height);
		sl_jw_key(w, "number");
		sl_jw_u64(w, b->epoch.number);
		sl_jw_key(w, "startTime");
		sl_jw_i64(w, b->epoch.start_time);
		sl_jw_obj_end(w);
	}
	if (b->kind != SL_PROPOSERVM_OPTION) {
		sl_jw_key(w, "signature");
		jw_span_hex(w, b->signature);
	}
	if (with_inner_bytes) {
		sl_jw_key(w, "innerBlock");
		jw_span_hex(w, b->inner);
	}
}

void sl_proposervm_block_write_json(sl_jw *w, const sl_proposervm_block *b)
{
	sl_jw_obj(w);
	sl_proposervm_block_write_json_fields(w, b, true);
	sl_jw_obj_end(w);
}

/* ---- coreth --------------------------------------------------------------- */

void sl_coreth_header_write_json_fields(sl_jw *w, const sl_coreth_header *h)
{
	sl_jw_key(w, "hash");
	sl_jw_hex(w, h->hash, 32);
	for (unsigned i = 0; i < h->nfields && i < SL_CORETH_HFIELDS; i++) {
		const sl_coreth_field_info *f = &sl_coreth_header_fields[i];
		if (f->kind == SL_CF_OPT_HASH && h->f[i].len == 0)
			continue; /* Go held nil: the field is left out */
		sl_jw_key(w, f->json);
		if (f->kind == SL_CF_BIG || f->kind == SL_CF_U64)
			jw_quantity(w, h->f[i]);
		else
			jw_span_hex(w, h->f[i]);
	}
}

/* The price a dynamic-fee tx paid in a block: min(feeCap, baseFee + tip); feeCap if it does not fit u64. */
static void jw_effective_price(sl_jw *w, const sl_evm_tx *tx, const sl_coreth_block *blk)
{
	sl_span fee = tx->f[SL_TX_FEE_CAP], tip = tx->f[SL_TX_TIP_CAP];
	uint64_t base;
	if (!blk || !sl_coreth_header_u64(&blk->header, SL_CH_BASE_FEE, &base) || fee.len > 8 ||
	    tip.len > 8) {
		jw_quantity(w, fee);
		return;
	}
	uint64_t f = sl_rlp_be_u64(fee), t = sl_rlp_be_u64(tip);
	uint64_t p = base + t < base ? UINT64_MAX : base + t;
	jw_quantity_u64(w, p < f ? p : f);
}

static void jw_access_list(sl_jw *w, sl_span raw)
{
	sl_reader r, c, e, k;
	sl_rd_init(&r, raw.p, raw.len);
	sl_jw_arr(w);
	if (raw.len && sl_rlp_list(&r, &c)) {
		while (sl_rd_ok(&c) && sl_rd_left(&c) > 0 && sl_rlp_list(&c, &e)) {
			sl_jw_obj(w);
			sl_jw_key(w, "address");
			jw_span_hex(w, sl_rlp_fixed(&e, 20));
			sl_jw_key(w, "storageKeys");
			sl_jw_arr(w);
			if (sl_rlp_list(&e, &k))
				while (sl_rd_ok(&k) && sl_rd_left(&k) > 0)
					jw_span_hex(w, sl_rlp_fixed(&k, 32));
			sl_jw_arr_end(w);
			sl_jw_obj_end(w);
		}
	}
	sl_jw_arr_end(w);
}

static void jw_hash_list(sl_jw *w, sl_span raw)
{
	sl_reader r, c;
	sl_rd_init(&r, raw.p, raw.len);
	sl_jw_arr(w);
	if (raw.len && sl_rlp_list(&r, &c))
		while (sl_rd_ok(&c) && sl_rd_left(&c) > 0)
			jw_span_hex(w, sl_rlp_fixed(&c, 32));
	sl_jw_arr_end(w);
}

static void jw_auth_list(sl_jw *w, sl_span raw)
{
	static const char *const names[6] = { "chainId", "address", "nonce", "yParity", "r", "s" };
	sl_reader r, c, e;
	sl_rd_init(&r, raw.p, raw.len);
	sl_jw_arr(w);
	if (raw.len && sl_rlp_list(&r, &c)) {
		while (sl_rd_ok(&c) && sl_rd_left(&c) > 0 && sl_rlp_list(&c, &e)) {
			sl_jw_obj(w);
			for (int i = 0; i < 6; i++) {
				sl_jw_key(w, names[i]);
				sl_span s = sl_rlp_str(&e, 32);
				if (i == 1)
					jw_span_hex(w, s);
				else
					jw_quantity(w, s);
			}
			sl_jw_obj_end(w);
		}
	}
	sl_jw_arr_end(w);
}

void sl_evm_tx_write_json(sl_jw *w, const sl_evm_tx *tx, const sl_coreth_block *blk, uint32_t index)
{
	const uint32_t has = tx->present;
#define HAS(x) (has & (1u << (x)))
	uint8_t from[20];
	sl_jw_obj(w);
	sl_jw_key(w, "blockHash");
	if (blk)
		sl_jw_hex(w, blk->header.hash, 32);
	else
		sl_jw_null(w);
	sl_jw_key(w, "blockNumber");
	if (blk)
		jw_quantity_u64(w, blk->header.number);
	else
		sl_jw_null(w);
	sl_jw_key(w, "from");
	if (sl_evm_tx_sender(tx, from) == SL_OK)
		sl_jw_hex(w, from, 20);
	else
		sl_jw_null(w);
	sl_jw_key(w, "gas");
	jw_quantity_u64(w, tx->gas);
	sl_jw_key(w, "gasPrice");
	if (HAS(SL_TX_GAS_PRICE))
		jw_quantity(w, tx->f[SL_TX_GAS_PRICE]);
	else
		jw_effective_price(w, tx, blk);
	if (HAS(SL_TX_FEE_CAP)) {
		sl_jw_key(w, "maxFeePerGas");
		jw_quantity(w, tx->f[SL_TX_FEE_CAP]);
		sl_jw_key(w, "maxPriorityFeePerGas");
		jw_quantity(w, tx->f[SL_TX_TIP_CAP]);
	}
	if (HAS(SL_TX_BLOB_FEE_CAP)) {
		sl_jw_key(w, "maxFeePerBlobGas");
		jw_quantity(w, tx->f[SL_TX_BLOB_FEE_CAP]);
	}
	sl_jw_key(w, "hash");
	sl_jw_hex(w, tx->hash, 32);
	sl_jw_key(w, "input");
	jw_span_hex(w, tx->f[SL_TX_DATA]);
	sl_jw_key(w, "nonce");
	jw_quantity_u64(w, tx->nonce);
	sl_jw_key(w, "to");
	if (tx->f[SL_TX_TO].len == 20)
		jw_span_hex(w, tx->f[SL_TX_TO]);
	else
		sl_jw_null(w); /* contract creation */
	sl_jw_key(w, "transactionIndex");
	if (blk)
		jw_quantity_u64(w, index);
	else
		sl_jw_null(w);
	sl_jw_key(w, "value");
	jw_quantity(w, tx->f[SL_TX_VALUE]);
	sl_jw_key(w, "type");
	jw_quantity_u64(w, tx->type);
	if (HAS(SL_TX_ACCESS_LIST)) {
		sl_jw_key(w, "accessList");
		jw_access_list(w, tx->f[SL_TX_ACCESS_LIST]);
	}
	uint64_t cid;
	if (sl_evm_tx_chain_id(tx, &cid)) {
		sl_jw_key(w, "chainId");
		if (tx->type)
			jw_quantity(w, tx->f[SL_TX_CHAIN_ID]);
		else
			jw_quantity_u64(w, cid);
	}
	if (HAS(SL_TX_BLOB_HASHES)) {
		sl_jw_key(w, "blobVersionedHashes");
		jw_hash_list(w, tx->f[SL_TX_BLOB_HASHES]);
	}
	if (HAS(SL_TX_AUTH_LIST)) {
		sl_jw_key(w, "authorizationList");
		jw_auth_list(w, tx->f[SL_TX_AUTH_LIST]);
	}
	sl_jw_key(w, "v");
	jw_quantity(w, tx->f[SL_TX_V]);
	sl_jw_key(w, "r");
	jw_quantity(w, tx->f[SL_TX_R]);
	sl_jw_key(w, "s");
	jw_quantity(w, tx->f[SL_TX_S]);
	if (tx->type) {
		sl_jw_key(w, "yParity");
		jw_quantity(w, tx->f[SL_TX_V]);
	}
	sl_jw_obj_end(w);
#undef HAS
}

void sl_coreth_block_write_json(sl_jw *w, const sl_coreth_block *b)
{
	sl_jw_obj(w);
	sl_coreth_header_write_json_fields(w, &b->header);
	sl_jw_key(w, "size");
	jw_quantity_u64(w, b->bytes.len);
	sl_jw_key(w, "blockExtraData");
	jw_span_hex(w, b->ext_data);
	uint8_t h[32];
	sl_coreth_ext_data_hash(b->ext_data, h);
	sl_jw_key(w, "extDataHashComputed");
	sl_jw_hex(w, h, 32);
	sl_jw_key(w, "version");
	sl_jw_u64(w, b->version);
	sl_jw_key(w, "uncles");
	sl_jw_arr(w);
	for (uint32_t i = 0; i < b->nuncles; i++)
		sl_jw_hex(w, b->uncles[i].hash, 32);
	sl_jw_arr_end(w);
	sl_jw_key(w, "transactions");
	sl_jw_arr(w);
	for (uint32_t i = 0; i < b->ntx; i++)
		sl_evm_tx_write_json(w, &b->txs[i], b, i);
	sl_jw_arr_end(w);
	sl_jw_obj_end(w);
}

/* ---- warp ----------------------------------------------------------------- */

static void jw_owner(sl_jw *w, const sl_warp_owner *o, const char *hrp)
{
	sl_jw_obj(w);
	sl_jw_key(w, "threshold");
	sl_jw_u64(w, o->threshold);
	sl_jw_key(w, "addresses");
	sl_jw_arr(w);
	sl_buf b;
	sl_buf_init(&b, 256);
	for (uint32_t i = 0; i < o->naddrs; i++) {
		sl_buf_reset(&b);
		sl_addr_write(&b, "P", hrp, o->addrs.p + 20 * (size_t)i);
		sl_jw_strn(w, sl_buf_str(&b), b.len);
	}
	sl_buf_release(&b);
	sl_jw_arr_end(w);
	sl_jw_obj_end(w);
}

void sl_warp_l1_write_json(sl_jw *w, const sl_warp_l1_msg *m, const char *hrp)
{
	if (!hrp)
		hrp = sl_addr_hrp(0);
	sl_jw_obj(w);
	sl_jw_key(w, "type");
	sl_jw_str(w, sl_warp_l1_type_name(m->type));
	switch (m->type) {
	case SL_WARP_L1_SUBNET_CONVERSION:
		sl_jw_key(w, "id");
		sl_jw_cb58(w, m->conversion_id.p, m->conversion_id.len);
		break;
	case SL_WARP_L1_REGISTER_VALIDATOR:
		sl_jw_key(w, "subnetID");
		sl_jw_cb58(w, m->subnet_id.p, m->subnet_id.len);
		sl_jw_key(w, "nodeID");
		jw_nodeid(w, m->node_id);
		sl_jw_key(w, "blsPublicKey");
		jw_span_hex(w, m->bls_public_key);
		sl_jw_key(w, "expiry");
		sl_jw_u64(w, m->expiry);
		sl_jw_key(w, "remainingBalanceOwner");
		jw_owner(w, &m->remaining_balance_owner, hrp);
		sl_jw_key(w, "disableOwner");
		jw_owner(w, &m->disable_owner, hrp);
		sl_jw_key(w, "weight");
		sl_jw_u64(w, m->weight);
		sl_jw_key(w, "validationID");
		sl_jw_cb58(w, m->id, 32);
		break;
	case SL_WARP_L1_VALIDATOR_REGISTRATION:
		sl_jw_key(w, "validationID");
		sl_jw_cb58(w, m->validation_id.p, m->validation_id.len);
		sl_jw_key(w, "registered");
		sl_jw_bool(w, m->registered);
		break;
	case SL_WARP_L1_VALIDATOR_WEIGHT:
		sl_jw_key(w, "validationID");
		sl_jw_cb58(w, m->validation_id.p, m->validation_id.len);
		sl_jw_key(w, "nonce");
		sl_jw_u64(w, m->nonce);
		sl_jw_key(w, "weight");
		sl_jw_u64(w, m->weight);
		break;
	}
	sl_jw_obj_end(w);
}

void sl_warp_payload_write_json(sl_jw *w, const sl_warp_payload *p, const char *hrp)
{
	sl_jw_obj(w);
	sl_jw_key(w, "type");
	sl_jw_str(w, sl_warp_payload_type_name(p->type));
	if (p->type == SL_WARP_PAYLOAD_HASH) {
		sl_jw_key(w, "hash");
		sl_jw_cb58(w, p->hash.p, p->hash.len);
	} else {
		sl_jw_key(w, "sourceAddress");
		jw_span_hex(w, p->source_address);
		sl_jw_key(w, "payload");
		jw_span_hex(w, p->payload);
		sl_warp_l1_msg m;
		if (sl_warp_l1_decode(p->payload.p, p->payload.len, &m, NULL) == SL_OK) {
			sl_jw_key(w, "decodedPayload");
			sl_warp_l1_write_json(w, &m, hrp);
		}
	}
	sl_jw_obj_end(w);
}

static void unsigned_fields(sl_jw *w, const sl_warp_unsigned *m)
{
	sl_jw_key(w, "id");
	sl_jw_cb58(w, m->id, 32);
	sl_jw_key(w, "networkID");
	sl_jw_u64(w, m->network_id);
	sl_jw_key(w, "sourceChainID");
	sl_jw_cb58(w, m->source_chain_id.p, m->source_chain_id.len);
	sl_jw_key(w, "payload");
	jw_span_hex(w, m->payload);
	sl_warp_payload p;
	if (sl_warp_payload_decode(m->payload.p, m->payload.len, &p, NULL) == SL_OK) {
		sl_jw_key(w, "decodedPayload");
		sl_warp_payload_write_json(w, &p, sl_addr_hrp(m->network_id));
	}
}

void sl_warp_unsigned_write_json(sl_jw *w, const sl_warp_unsigned *m)
{
	sl_jw_obj(w);
	unsigned_fields(w, m);
	sl_jw_obj_end(w);
}

void sl_warp_message_write_json(sl_jw *w, const sl_warp_message *m)
{
	sl_jw_obj(w);
	unsigned_fields(w, &m->msg);
	sl_jw_key(w, "signature");
	sl_jw_obj(w);
	sl_jw_key(w, "type");
	sl_jw_str(w, "BitSetSignature");
	sl_jw_key(w, "signers");
	jw_span_hex(w, m->signers);
	sl_jw_key(w, "signerIndices");
	sl_jw_arr(w);
	for (size_t i = 0; i < m->signers.len * 8; i++)
		if (sl_warp_signers_has(m->signers, i))
			sl_jw_u64(w, i);
	sl_jw_arr_end(w);
	sl_jw_key(w, "signature");
	jw_span_hex(w, m->signature);
	sl_jw_obj_end(w);
	sl_jw_obj_end(w);
}

void sl_warp_conversion_write_json(sl_jw *w, const sl_warp_conversion *c)
{
	sl_jw_obj(w);
	sl_jw_key(w, "conversionID");
	sl_jw_cb58(w, c->id, 32);
	sl_jw_key(w, "subnetID");
	sl_jw_cb58(w, c->subnet_id.p, c->subnet_id.len);
	sl_jw_key(w, "managerChainID");
	sl_jw_cb58(w, c->manager_chain_id.p, c->manager_chain_id.len);
	sl_jw_key(w, "managerAddress");
	jw_span_hex(w, c->manager_address);
	sl_jw_key(w, "validators");
	sl_jw_arr(w);
	for (uint32_t i = 0; i < c->nvalidators; i++) {
		const sl_warp_conversion_validator *v = &c->validators[i];
		sl_jw_obj(w);
		sl_jw_key(w, "nodeID");
		jw_nodeid(w, v->node_id);
		sl_jw_key(w, "blsPublicKey");
		jw_span_hex(w, v->bls_public_key);
		sl_jw_key(w, "weight");
		sl_jw_u64(w, v->weight);
		sl_jw_obj_end(w);
	}
	sl_jw_arr_end(w);
	sl_jw_obj_end(w);
}
