/*
 * genesis.c — what a network holds before its first block, which no index
 * of the node contains: the genesis UTXOs of the P- and X-chain and the
 * genesis validators. The indexer takes them from a genesis file
 * (--genesis; `snowline devnet` writes one for its network, docs/index.md has
 * the format):
 *
 *   {"timestamp": 1704067200,
 *    "utxos": {"P": ["<hex UTXO bytes>", …], "X": [ … ]},
 *    "stakers": [{"txId": "<cb58>", "nodeId": "NodeID-…", "start": s, "end": s, "weight": n,
 *                 "shares": n, "stake": ["<hex UTXO bytes>", …],
 *                 "rewardsOwner": {"threshold": 1, "locktime": 0, "addresses": ["P-…1…"]},
 *                 "signer": {"publicKey": "0x<48 bytes>", "proofOfPossession": "0x<96 bytes>"},
 *                 "tx": "0x<00 00 | signed tx>"}, …]}
 *
 * A staker without "signer" is an AddValidatorTx (type 12); one with it is an
 * AddPermissionlessValidatorTx (type 25) of the primary network, as
 * avalanchego's genesis makes a staker with a signer: its BLS key is its
 * validator set key from height 0, and its rewards owner is both the
 * validation's and the delegation's. "tx" (optional, with a signer) is the
 * genesis tx's bytes, whose sha256 must be txId.
 *
 * UTXO bytes are the codec's UTXO (00 00 | txID | index | assetID | output),
 * with or without the index API's checksum and 0x. Genesis rows have seq 0,
 * no block and the genesis time; stake outputs are staked UTXOs of their
 * validator's period, returned by its RewardValidatorTx like any other.
 */
#include "index/genesis.h"

#include "codec/avax.h"
#include "crypto/addr.h"
#include "crypto/cb58.h"
#include "crypto/hash.h"
#include "util/hex.h"
#include "util/jsonv.h"
#include "util/limits.h"

static sl_span member(sl_span obj, const char *name)
{
	sl_jiter it;
	sl_span k, v;
	size_t n = strlen(name);
	sl_json_iter_init(&it, obj);
	if (sl_json_type(obj) != SL_JT_OBJECT)
		return (sl_span){ 0 };
	while (sl_json_obj_next(&it, &k, &v))
		if (k.len == n + 2 && !memcmp(k.p + 1, name, n))
			return v;
	return (sl_span){ 0 };
}

static bool num(sl_span v, uint64_t *out)
{
	if (sl_json_type(v) != SL_JT_NUMBER)
		return false;
	char t[32];
	if (v.len >= sizeof t)
		return false;
	memcpy(t, v.p, v.len);
	t[v.len] = 0;
	char *end;
	*out = strtoull(t, &end, 10);
	return *end == 0 && t[0] != '-';
}

/* A hex UTXO (0x optional, checksum optional) decoded into the batch's arena. */
static bool utxo_of(ix_batch *b, sl_span v, sl_typeset outs, sl_utxo *u)
{
	if (sl_json_type(v) != SL_JT_STRING || v.len < 4)
		return false;
	const char *s = (const char *)v.p + 1;
	size_t n = v.len - 2;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2, n -= 2;
	uint8_t *bytes = sl_arena_alloc(&b->arena, n / 2 + 1);
	size_t len = 0;
	if (!bytes || sl_hex_decode(s, n, bytes, n / 2, &len))
		return false;
	sl_err_detail d;
	if (sl_avax_utxo_decode(&b->arena, bytes, len, outs, u, &d) == SL_OK)
		return true;
	if (len > 4 && sl_avax_utxo_decode(&b->arena, bytes, len - 4, outs, u, &d) == SL_OK) {
		uint8_t sum[4];
		sl_checksum4(bytes, len - 4, sum);
		return !memcmp(sum, bytes + len - 4, 4);
	}
	return false;
}

/* A hex string (0x optional) of exactly n bytes, into the batch's arena. */
static const uint8_t *hex_exact(ix_batch *b, sl_span v, size_t n)
{
	if (sl_json_type(v) != SL_JT_STRING || v.len < 2)
		return NULL;
	const char *s = (const char *)v.p + 1;
	size_t l = v.len - 2;
	if (l >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2, l -= 2;
	uint8_t *out = sl_arena_alloc(&b->arena, n);
	size_t got = 0;
	if (!out || l != 2 * n || sl_hex_decode(s, l, out, n, &got) || got != n)
		return NULL;
	return out;
}

static void add_utxo(ix_batch *b, const sl_utxo *u, uint8_t chain, int64_t ts, bool staked, uint64_t start,
		     uint64_t end)
{
	ix_out *o = IX_PUSH(b, b->outs);
	if (!o)
		return;
	sl_avax_utxo_id(u->tx_id, u->output_index, o->id);
	o->tx = u->tx_id;
	o->idx = u->output_index;
	o->dest = chain;
	o->at = (ix_where){ .chain = chain, .ts = ts, .seq = 0, .type = 0 };
	o->asset = u->asset_id;
	o->amount = u->out.amount;
	o->otype = u->out.type_id;
	o->locktime = u->out.owners.locktime;
	o->stake_lock = u->out.type_id == SL_T_STAKEABLE_LOCK_OUT ? u->out.lock_locktime : 0;
	o->threshold = u->out.owners.threshold;
	o->naddrs = u->out.owners.naddrs;
	o->addrs = u->out.owners.addrs;
	o->group_id = u->out.group_id;
	o->payload = u->out.payload;
	o->staked = staked;
	o->stake_start = start;
	o->stake_end = end;
}

sl_err ix_genesis_derive(ix_batch *b, const char *json, size_t n, const char *hrp, char err[256])
{
	size_t a, z;
	char msg[128];
	if (n > IX_GENESIS_MAX_FILE || sl_json_scan(json, n, &a, &z, msg)) {
		snprintf(err, 256, "not JSON (or larger than %u MiB): %s", IX_GENESIS_MAX_FILE >> 20, msg);
		return SL_ERR_INVALID;
	}
	sl_span root = { (const uint8_t *)json + a, z - a };
	uint64_t ts;
	if (!num(member(root, "timestamp"), &ts)) {
		snprintf(err, 256, "no timestamp (unix seconds)");
		return SL_ERR_INVALID;
	}
	sl_span utxos = member(root, "utxos");
	static const char *const chains[2] = { "P", "X" };
	static const sl_typeset sets[2] = { SL_P_OUTPUTS, SL_X_STATES };
	for (int c = 0; c < 2; c++) {
		sl_span list = member(utxos, chains[c]), v;
		sl_jiter it;
		sl_json_iter_init(&it, list);
		for (size_t i = 0; list.len && sl_json_arr_next(&it, &v); i++) {
			sl_utxo u;
			if (!utxo_of(b, v, sets[c], &u)) {
				snprintf(err, 256, "utxos.%s[%zu] is not a UTXO in hex", chains[c], i);
				return SL_ERR_INVALID;
			}
			add_utxo(b, &u, (uint8_t)c, (int64_t)ts, false, 0, 0);
		}
	}
	sl_span stakers = member(root, "stakers"), s;
	sl_jiter it;
	sl_json_iter_init(&it, stakers);
	for (size_t i = 0; stakers.len && sl_json_arr_next(&it, &s); i++) {
		sl_span id = member(s, "txId"), node = member(s, "nodeId"), stake = member(s, "stake"),
			owner = member(s, "rewardsOwner");
		uint64_t start, end, weight, shares = 0;
		uint8_t *txid = sl_arena_alloc(&b->arena, 32), *nid = sl_arena_alloc(&b->arena, 20);
		const char *m;
		char mb[96];
		if (!txid || !nid)
			return SL_ERR_NOMEM;
		if (sl_json_type(id) != SL_JT_STRING ||
		    sl_cb58_decode_id((const char *)id.p + 1, id.len - 2, txid, &m, mb) ||
		    sl_json_type(node) != SL_JT_STRING ||
		    sl_nodeid_parse((const char *)node.p + 1, node.len - 2, nid) ||
		    !num(member(s, "start"), &start) || !num(member(s, "end"), &end) ||
		    !num(member(s, "weight"), &weight)) {
			snprintf(err, 256, "stakers[%zu]: needs txId, nodeId, start, end and weight", i);
			return SL_ERR_INVALID;
		}
		num(member(s, "shares"), &shares);
		sl_span v;
		sl_jiter jt;
		uint32_t nstake = 0;
		sl_json_iter_init(&jt, stake);
		while (stake.len && sl_json_arr_next(&jt, &v)) {
			sl_utxo u;
			if (!utxo_of(b, v, SL_P_OUTPUTS, &u)) {
				snprintf(err, 256, "stakers[%zu].stake[%u] is not a UTXO in hex", i, nstake);
				return SL_ERR_INVALID;
			}
			add_utxo(b, &u, 0, (int64_t)ts, true, start, end);
			nstake++;
		}
		/* the rewards owner: threshold u32 | locktime u64 | addresses, as stakers rows keep it */
		uint64_t threshold = 1, locktime = 0;
		num(member(owner, "threshold"), &threshold);
		num(member(owner, "locktime"), &locktime);
		sl_span addrs = member(owner, "addresses");
		size_t naddrs = 0;
		sl_json_iter_init(&jt, addrs);
		while (addrs.len && sl_json_arr_next(&jt, &v))
			naddrs++;
		uint8_t *blob = sl_arena_alloc(&b->arena, 12 + 20 * naddrs);
		if (!blob)
			return SL_ERR_NOMEM;
		sl_put_be32(blob, (uint32_t)threshold);
		sl_put_be64(blob + 4, locktime);
		size_t k = 0;
		sl_json_iter_init(&jt, addrs);
		while (addrs.len && sl_json_arr_next(&jt, &v)) {
			char alias[8], h[SL_HRP_MAX_LEN + 1];
			if (sl_json_type(v) != SL_JT_STRING ||
			    sl_addr_parse((const char *)v.p + 1, v.len - 2, alias, sizeof alias, h,
					  blob + 12 + 20 * k) ||
			    strcmp(h, hrp)) {
				snprintf(err, 256,
					 "stakers[%zu].rewardsOwner: not an address of this network (%s1…)",
					 i, hrp);
				return SL_ERR_INVALID;
			}
			k++;
		}
		sl_span signer = member(s, "signer");
		const uint8_t *pk = NULL, *pop = NULL;
		if (signer.len) {
			pk = hex_exact(b, member(signer, "publicKey"), 48);
			pop = hex_exact(b, member(signer, "proofOfPossession"), 96);
			/* its tx (optional): the staker's id must be the bytes' hash */
			sl_span txv = member(s, "tx");
			if (txv.len) {
				size_t tl = sl_json_type(txv) == SL_JT_STRING && txv.len > 2 ? txv.len - 2
											     : 0;
				if (tl >= 2 && txv.p[1] == '0' && (txv.p[2] == 'x' || txv.p[2] == 'X'))
					tl -= 2;
				tl /= 2;
				const uint8_t *tb = tl && tl <= SL_CODEC_MAX_SIZE ? hex_exact(b, txv, tl)
										  : NULL;
				uint8_t h[32];
				if (tb)
					sl_sha256(tb, tl, h);
				if (!tb || memcmp(h, txid, 32)) {
					snprintf(err, 256,
						 "stakers[%zu].tx: not 0x-hex bytes whose sha256 is its txId",
						 i);
					return SL_ERR_INVALID;
				}
			}
			if (!pk || !pop) {
				snprintf(err, 256,
					 "stakers[%zu].signer: needs publicKey (48 bytes in hex) and "
					 "proofOfPossession (96 bytes in hex)",
					 i);
				return SL_ERR_INVALID;
			}
		}
		ix_staker *st = IX_PUSH(b, b->stakers);
		if (!st)
			return SL_ERR_NOMEM;
		static const uint8_t primary[32];
		*st = (ix_staker){ .tx = txid,
				   .seq = 0,
				   .type = pk ? 25 : 12,
				   .node = nid,
				   .subnet = primary,
				   .start = start,
				   .end = end,
				   .weight = weight,
				   .has_fee = true,
				   .fee = (uint32_t)shares,
				   .nouts = 0,
				   .nstake = nstake,
				   .rewards_owner = sl_span_of(blob, 12 + 20 * naddrs),
				   .delegation_owner = pk ? sl_span_of(blob, 12 + 20 * naddrs)
							  : (sl_span){ 0 },
				   .bls_key = pk,
				   .bls_pop = pop,
				   .accepted_ts = (int64_t)ts };
	}
	return b->err;
}
