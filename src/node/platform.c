/*
 * platform.c — the P-chain's `platform` service at /ext/bc/P and its
 * aliases: what an indexer asks a node besides its indexes.
 *
 *   platform.getStakingAssetID  {"assetID"}: the AVAX asset id
 *   platform.getRewardUTXOs     {"numFetched","utxos","encoding"}: the reward
 *                               UTXOs paid when a staking tx's period ended
 *   platform.getCurrentValidators {"validators"}: what the source last said
 *                               of the primary network's current validators (the
 *                               devnet: with simulated uptime and connectivity);
 *                               the error avalanchego gives a node that does not
 *                               track the P-chain's state when there is none
 *   platform.getValidatorFeeConfig  {"capacity","target","minPrice",
 *                               "excessConversionConstant"}: ACP-77's fee for
 *                               L1 validators (numbers, as avalanchego's gas types)
 *
 * Shapes and texts as avalanchego's (numFetched is a json.Uint64: a string).
 * Reward UTXOs are chain state, not containers: the node keeps what its
 * source tells it (a producer through sl_feed_reward_utxos) in the store's
 * "state" sub-database under "rw/" + the staking tx id, as
 * u32 count | (u32 length | UTXO bytes)*.
 */
#include "node/internal.h"

#include "crypto/cb58.h"

static const uint8_t zero_id[32];

static int get_staking_asset_id(sl_rpc_call *c)
{
	sl_node *n = c->ctx;
	if (c->args[0].set && memcmp(c->args[0].id, zero_id, 32))
		return sl_rpc_fail(c, "subnet %s is not a permissionless subnet", "of this node");
	if (!n->has_avax)
		return sl_rpc_fail(c,
				   "the AVAX asset id of this network is not known (give --avax-asset-id)");
	sl_jw_obj(c->w);
	sl_jw_key(c->w, "assetID");
	sl_jw_cb58(c->w, n->avax, 32);
	sl_jw_obj_end(c->w);
	return 0;
}

static int get_reward_utxos(sl_rpc_call *c)
{
	sl_node *n = c->ctx;
	sl_encoding enc = c->args[1].set ? (sl_encoding)c->args[1].enc : SL_ENC_HEX;
	if (enc == SL_ENC_JSON)
		return sl_rpc_fail(c, "couldn't encode UTXO %s as string: unsupported encoding", "0");
	uint8_t key[35] = { 'r', 'w', '/' };
	memcpy(key + 3, c->args[0].id, 32);
	sl_cstore_rd *rd;
	if (sl_cstore_rd_begin(n->store, &rd))
		return sl_rpc_fail_err(c, SL_ERR_STORE, "cannot begin a read transaction");
	sl_span v = { 0 };
	sl_err e = sl_cstore_state_get(rd, key, sizeof key, &v);
	uint32_t count = e == SL_OK && v.len >= 4 ? sl_be32(v.p) : 0;
	if (e && e != SL_ERR_NOT_FOUND) {
		sl_cstore_rd_end(rd);
		return sl_rpc_fail_err(c, e, "couldn't get reward UTXOs");
	}
	sl_jw_obj(c->w);
	sl_jw_key(c->w, "numFetched");
	sl_jw_u64s(c->w, count);
	sl_jw_key(c->w, "utxos");
	sl_jw_arr(c->w);
	size_t off = 4;
	for (uint32_t i = 0; i < count && off + 4 <= v.len; i++) {
		uint32_t len = sl_be32(v.p + off);
		off += 4;
		if (len > v.len - off)
			break;
		sl_jw_value(c->w);
		sl_buf_addc(c->w->out, '"');
		if (enc == SL_ENC_HEXNC) {
			sl_buf_add(c->w->out, "0x", 2);
			sl_buf_add_hex(c->w->out, v.p + off, len);
		} else {
			sl_write_hex_checksum(c->w->out, v.p + off, len);
		}
		sl_buf_addc(c->w->out, '"');
		off += len;
	}
	sl_jw_arr_end(c->w);
	sl_jw_key(c->w, "encoding");
	sl_jw_str(c->w, sl_encoding_name(enc));
	sl_jw_obj_end(c->w);
	sl_cstore_rd_end(rd);
	return 0;
}

static const uint8_t cv_key[] = { 'c', 'v' };

static int get_current_validators(sl_rpc_call *c)
{
	sl_node *n = c->ctx;
	static const uint8_t primary[32];
	sl_cstore_rd *rd;
	if (sl_cstore_rd_begin(n->store, &rd))
		return sl_rpc_fail_err(c, SL_ERR_STORE, "cannot begin a read transaction");
	sl_span v = { 0 };
	sl_err e = sl_cstore_state_get(rd, cv_key, sizeof cv_key, &v);
	if (e) {
		sl_cstore_rd_end(rd);
		return e == SL_ERR_NOT_FOUND ? sl_rpc_fail(c, "this node's source reports no validators")
					     : sl_rpc_fail_err(c, e, "couldn't get the current validators");
	}
	sl_jw_obj(c->w);
	sl_jw_key(c->w, "validators");
	if (c->args[0].set && memcmp(c->args[0].id, primary, 32)) {
		sl_jw_arr(c->w); /* only the primary network's are known */
		sl_jw_arr_end(c->w);
	} else {
		sl_jw_value(c->w);
		sl_buf_add(c->w->out, v.p, v.len);
	}
	sl_jw_obj_end(c->w);
	sl_cstore_rd_end(rd);
	return 0;
}

static int get_validator_fee_config(sl_rpc_call *c)
{
	sl_node *n = c->ctx;
	sl_l1_fee_config f = n->cfg.l1_fee;
	if (!n->cfg.has_l1_fee && !sl_l1_fee_config_of(n->cfg.network_id, &f))
		return sl_rpc_fail(c, "the validator fee config of network %u is not known to this node",
				   n->cfg.network_id);
	sl_jw_obj(c->w);
	sl_jw_key(c->w, "capacity");
	sl_jw_u64(c->w, f.capacity);
	sl_jw_key(c->w, "target");
	sl_jw_u64(c->w, f.target);
	sl_jw_key(c->w, "minPrice");
	sl_jw_u64(c->w, f.min_price);
	sl_jw_key(c->w, "excessConversionConstant");
	sl_jw_u64(c->w, f.excess_k);
	sl_jw_obj_end(c->w);
	return 0;
}

const sl_rpc_method sl_platform_methods[] = {
	{ "GetStakingAssetID", get_staking_asset_id, { { "subnetID", SL_RPC_ID } }, 1 },
	{ "GetRewardUTXOs", get_reward_utxos, { { "txID", SL_RPC_ID }, { "encoding", SL_RPC_ENCODING } }, 2 },
	{ "GetValidatorFeeConfig", get_validator_fee_config, { { 0 } }, 0 },
	{ "GetCurrentValidators", get_current_validators, { { "subnetID", SL_RPC_ID } }, 1 },
};
const size_t sl_platform_nmethods = SL_ARRAY_LEN(sl_platform_methods);

sl_err sl_feed_current_validators(sl_feed *f, const uint8_t *json, size_t len)
{
	if (len > SL_CSTORE_MAX_STATE)
		return SL_ERR_TOO_LARGE;
	return sl_cstore_state_put(sl_feed_node(f)->store, cv_key, sizeof cv_key, json, len);
}

sl_err sl_feed_reward_utxos(sl_feed *f, const uint8_t staking_tx[32], const sl_span *utxos, size_t n)
{
	size_t len = 4;
	for (size_t i = 0; i < n; i++)
		len += 4 + utxos[i].len;
	if (len > SL_CSTORE_MAX_STATE)
		return SL_ERR_TOO_LARGE;
	uint8_t *v = malloc(len);
	if (!v)
		return SL_ERR_NOMEM;
	sl_put_be32(v, (uint32_t)n);
	size_t off = 4;
	for (size_t i = 0; i < n; i++) {
		sl_put_be32(v + off, (uint32_t)utxos[i].len);
		memcpy(v + off + 4, utxos[i].p, utxos[i].len);
		off += 4 + utxos[i].len;
	}
	uint8_t key[35] = { 'r', 'w', '/' };
	memcpy(key + 3, staking_tx, 32);
	sl_err e = sl_cstore_state_put(sl_feed_node(f)->store, key, sizeof key, v, len);
	free(v);
	return e;
}
