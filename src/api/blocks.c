/*
 * blocks.c — GET …/blockchains/{blockchainId}/nodes/{nodeId}/blocks
 * (spec 000 §4.5): the blocks a node proposed on P, X or C, latest first —
 * the proposervm blocks its staking certificate signed (unsigned blocks
 * have no proposer). Ids are cb58 on P and X, 0x hex on the C-chain (as
 * eth JSON-RPC writes them); blockType is the block's Go type name on P and
 * X, "evm" on C. A P block carries the chain's state after it: currentSupply,
 * activeL1Validators, l1ValidatorsAccruedFees (docs/index.md). The cursor is
 * the last block's height.
 */
#include "api/internal.h"

#include "codec/pchain.h"

static const sl_sql q_blocks = {
	"SELECT height, hash, parent, ts, type, size, ntx, txs, vm_id, vm_parent, vm_height, vm_ts, supply, l1_active, "
	"l1_fees FROM blocks "
	"WHERE chain = ? AND proposer = ? AND height < ? AND ts >= ? AND ts <= ? ORDER BY height DESC LIMIT ?"
};

static void write_hash(api_req *r, int chain, const uint8_t *p, size_t n)
{
	if (chain == API_C)
		sl_jw_hex(&r->w, p, n);
	else if (n == 32)
		api_write_id(r, p);
	else
		sl_jw_str(&r->w, "");
}

static void block(api_req *r, sl_stmt *s)
{
	sl_jw *w = &r->w;
	size_t len;
	const uint8_t *p;
	sl_jw_obj(w);
	sl_jw_key(w, "blockNumber");
	sl_jw_u64s(w, (uint64_t)sl_col_i64(s, 0));
	sl_jw_key(w, "blockHash");
	p = sl_col_blob(s, 1, &len);
	write_hash(r, r->chain, p, len);
	sl_jw_key(w, "parentHash");
	p = sl_col_blob(s, 2, &len);
	write_hash(r, r->chain, p, len);
	sl_jw_key(w, "blockTimestamp");
	sl_jw_i64(w, sl_col_i64(s, 3));
	sl_jw_key(w, "blockType");
	uint32_t type = (uint32_t)sl_col_i64(s, 4);
	const char *tn = r->chain == API_P   ? sl_pchain_type_name(type)
			 : r->chain == API_X ? "StandardBlock"
					     : "evm";
	sl_jw_str(w, tn ? tn : "UNKNOWN");
	sl_jw_key(w, "txCount");
	sl_jw_i64(w, sl_col_i64(s, 6));
	sl_jw_key(w, "transactions");
	sl_jw_arr(w);
	p = sl_col_blob(s, 7, &len);
	for (size_t i = 0; p && i + 32 <= len; i += 32)
		write_hash(r, r->chain, p + i, 32);
	sl_jw_arr_end(w);
	sl_jw_key(w, "blockSizeBytes");
	sl_jw_i64(w, sl_col_i64(s, 5));
	/* P: the chain's state after the block (index.md), where the store has it: the supply needs
	 * the network's genesis */
	if (sl_col_type(s, 12) != SL_COL_NULL) {
		sl_jw_key(w, "currentSupply");
		sl_jw_u64s(w, sl_col_u64be(s, 12));
	}
	if (sl_col_type(s, 14) != SL_COL_NULL) {
		sl_jw_key(w, "activeL1Validators");
		sl_jw_i64(w, sl_col_i64(s, 13));
		sl_jw_key(w, "l1ValidatorsAccruedFees");
		sl_jw_u64(w, sl_col_u64be(s, 14));
	}
	sl_jw_key(w, "proposerDetails");
	sl_jw_obj(w);
	sl_jw_key(w, "proposerId");
	api_write_id_col(r, s, 8);
	sl_jw_key(w, "proposerParentId");
	api_write_id_col(r, s, 9);
	sl_jw_key(w, "proposerNodeId");
	api_write_node_id(r, api_arg(r, "nodeId")->node);
	sl_jw_key(w, "proposerPChainHeight");
	sl_jw_i64(w, sl_col_i64(s, 10));
	sl_jw_key(w, "proposerTimestamp");
	sl_jw_i64(w, sl_col_i64(s, 11));
	sl_jw_obj_end(w);
	sl_jw_obj_end(w);
}

int api_list_blocks_by_node(api_req *r)
{
	const api_val *node = api_arg(r, "nodeId"), *start = api_arg(r, "startTimestamp"),
		      *end = api_arg(r, "endTimestamp");
	size_t page = (size_t)api_arg(r, "pageSize")->i;
	if (start->set && end->set && start->i > end->i)
		return api_fail(r, 400, "startTimestamp (%lld) is after endTimestamp (%lld)",
				(long long)start->i, (long long)end->i);
	int64_t before;
	if (!api_page_cursor_i64(r, INT64_MAX, &before))
		return -1;
	sl_stmt *s = sl_stmt_get(r->db, &q_blocks);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	sl_bind_i64(s, 0, r->chain);
	sl_bind_blob(s, 1, node->node, 20);
	sl_bind_i64(s, 2, before);
	sl_bind_i64(s, 3, start->set ? start->i : 0);
	sl_bind_i64(s, 4, end->set ? end->i : INT64_MAX);
	sl_bind_i64(s, 5, (int64_t)page + 1);
	return api_list_page_i64(r, s, "blocks", page, block);
}
