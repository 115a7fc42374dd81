/*
 * deployment.c — GET /v1/chains/{chainId}/contracts/{address}/transactions:getDeployment
 * (spec 000 §4.3, §2.9): the tx that deployed a contract, as a
 * GetTransactionResponse.
 *
 * evm_contracts names the OUTER tx of every creation (a contract a factory
 * made resolves to the tx that called the factory); an address it does not
 * hold is a 404 naming it (not a contract, or not one made in a block this
 * store holds). The response, from that tx's rows (schema v10):
 *   nativeTransaction   evm_txs and its block: gasPrice the effective price,
 *                       baseFeePerGas "0" for a block without one, `to` the
 *                       contract a creation made; method.callType
 *                       CONTRACT_CREATION (no recipient), NATIVE_TRANSFER
 *                       (no input) or CONTRACT_CALL, methodHash the input's
 *                       first 4 bytes (a call only; "" otherwise), methodName
 *                       from the built-in table below ("" for a selector it
 *                       does not know; "Contract Created" and "Native
 *                       Transfer" for the other two, as the OpenAPI document
 *                       describes)
 *   erc20/721/1155Transfers  evm_transfers of the tx with evm_tokens' name,
 *                       symbol and decimals ("" and 0 where the token did not
 *                       answer); NFTs' tokenUri "" and metadata UNINDEXED
 *                       (metadata lives off the chain)
 *   internalTransactions evm_internal as the OpenAPI document defines the
 *                       list: CALL and CALLCODE frames that moved value, and
 *                       CREATE and CREATE2 frames
 *   networkTokenDetails the chain's token; currentPrice (the price table's
 *                       latest day) and historicalPrice (the tx's day) for
 *                       a chain whose token is AVAX (chains.c)
 *   teleporterMessageInfo when the tx sent an ICM message (SOURCE_TRANSACTION,
 *                       destinationChainId) or else delivered one
 *                       (DESTINATION_TRANSACTION, sourceChainId); the message
 *                       id in hex without 0x, the chain ids in cb58
 * Addresses are EIP-55 (mixed-case checksum), hashes 0x hex.
 */
#include "api/internal.h"

#include <pthread.h>

#include "crypto/hash.h"
#include "store/prices.h"

/* ---- method names: well-known selectors ---- */

static const char *const signatures[] = {
	/* ERC-20 (and the usual extras) */
	"transfer(address,uint256)",
	"approve(address,uint256)",
	"transferFrom(address,address,uint256)",
	"increaseAllowance(address,uint256)",
	"decreaseAllowance(address,uint256)",
	"mint(address,uint256)",
	"burn(uint256)",
	"burnFrom(address,uint256)",
	"deposit()",
	"withdraw(uint256)",
	/* ERC-721 */
	"safeTransferFrom(address,address,uint256)",
	"safeTransferFrom(address,address,uint256,bytes)",
	"setApprovalForAll(address,bool)",
	"safeMint(address,uint256)",
	/* ERC-1155 */
	"safeTransferFrom(address,address,uint256,uint256,bytes)",
	"safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
	"mint(address,uint256,uint256,bytes)",
	"mintBatch(address,uint256[],uint256[],bytes)",
	/* TeleporterMessenger (ICM) */
	"sendCrossChainMessage((bytes32,address,(address,uint256),uint256,address[],bytes))",
	"receiveCrossChainMessage(uint32,address)",
	"retryMessageExecution(bytes32,(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],"
	"bytes))",
	"retrySendCrossChainMessage((uint256,address,bytes32,address,uint256,address[],(uint256,address)[],"
	"bytes))",
	"sendSpecifiedReceipts(bytes32,bytes32[],(address,uint256),address[])",
	"addFeeAmount(bytes32,address,uint256)",
	"redeemRelayerRewards(address)",
	"receiveTeleporterMessage(bytes32,address,bytes)",
	/* ownership */
	"transferOwnership(address)",
	"renounceOwnership()",
};
#define N_SIGNATURES SL_ARRAY_LEN(signatures)

static uint8_t selectors[N_SIGNATURES][4];
static pthread_once_t selectors_once = PTHREAD_ONCE_INIT;

static void make_selectors(void)
{
	for (size_t i = 0; i < N_SIGNATURES; i++) {
		uint8_t h[32];
		sl_keccak256(signatures[i], strlen(signatures[i]), h);
		memcpy(selectors[i], h, 4);
	}
}

const char *api_method_name(const uint8_t sel[4])
{
	pthread_once(&selectors_once, make_selectors);
	for (size_t i = 0; i < N_SIGNATURES; i++)
		if (!memcmp(selectors[i], sel, 4))
			return signatures[i];
	return "";
}

/* ---- the rows ---- */

static const sl_sql q_contract = { "SELECT block, tx_idx FROM evm_contracts WHERE evm = ? AND address = ?" };
static const sl_sql q_tx = {
	"SELECT t.hash, t.ts, t.sender, t.recipient, t.value, t.nonce, t.type, t.gas_limit, t.max_fee, "
	"t.max_prio, t.input, t.status, t.gas_used, t.effective_price, t.created, b.hash, b.base_fee "
	"FROM evm_txs t LEFT JOIN evm_blocks b ON b.evm = t.evm AND b.number = t.block "
	"WHERE t.evm = ? AND t.block = ? AND t.idx = ?"
};
static const sl_sql q_token = {
	"SELECT name, symbol, decimals FROM evm_tokens WHERE evm = ? AND address = ?"
};
static const sl_sql q_transfers = {
	"SELECT t.log_idx, t.token, t.sender, t.recipient, t.token_id, t.value, k.name, k.symbol, k.decimals "
	"FROM evm_transfers t LEFT JOIN evm_tokens k ON k.evm = t.evm AND k.address = t.token "
	"WHERE t.evm = ? AND t.block = ? AND t.tx_idx = ? AND t.std = ? ORDER BY t.log_idx, t.sub"
};
static const sl_sql q_internal = { "SELECT kind, sender, recipient, value, gas, gas_used, reverted "
				   "FROM evm_internal WHERE evm = ? AND block = ? AND tx_idx = ? ORDER BY n" };
/* the message the tx sent, else one it delivered (icm_messages_src_tx, icm_messages_dst_tx: schema v10) */
static const sl_sql q_icm = {
	"SELECT id, src_blockchain, dst_blockchain, CASE WHEN src_evm = ? AND src_tx = ? THEN 1 ELSE 0 END AS sent "
	"FROM icm_messages WHERE (src_tx = ? AND src_evm = ?) OR (dst_tx = ? AND dst_evm = ?) "
	"ORDER BY sent DESC, id LIMIT 1"
};

static const uint8_t zero20[20];

static const uint8_t *blob_n(sl_stmt *s, int col, size_t want)
{
	size_t n;
	const uint8_t *p = sl_col_blob(s, col, &n);
	return p && n == want ? p : NULL;
}

/* A RichAddress {address, and name, symbol, decimals where the address is a token that answered}. */
static sl_err rich_address(api_req *r, int64_t evm, const uint8_t addr[20])
{
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	sl_stmt *s = sl_stmt_get(r->db, &q_token);
	if (!s)
		return SL_ERR_STORE;
	sl_bind_i64(s, 0, evm);
	sl_bind_blob(s, 1, addr, 20);
	sl_err e = sl_stmt_query(s);
	while (!e && sl_stmt_next(s, &e)) {
		size_t n;
		const char *t;
		if (!sl_col_null(s, 0) && (t = sl_col_text(s, 0, &n))) {
			sl_jw_key(w, "name");
			sl_jw_strn(w, t, n);
		}
		if (!sl_col_null(s, 1) && (t = sl_col_text(s, 1, &n))) {
			sl_jw_key(w, "symbol");
			sl_jw_strn(w, t, n);
		}
		if (!sl_col_null(s, 2)) {
			sl_jw_key(w, "decimals");
			sl_jw_i64(w, sl_col_i64(s, 2));
		}
	}
	sl_jw_key(w, "address");
	api_write_evm_address(r, addr);
	sl_jw_obj_end(w);
	return e;
}

/* A plain RichAddress {address}. */
static void plain_address(api_req *r, const uint8_t *addr)
{
	sl_jw_obj(&r->w);
	sl_jw_key(&r->w, "address");
	api_write_evm_address(r, addr ? addr : zero20);
	sl_jw_obj_end(&r->w);
}

static void text_col(api_req *r, sl_stmt *s, int col)
{
	size_t n = 0;
	const char *t = sl_col_null(s, col) ? NULL : sl_col_text(s, col, &n);
	sl_jw_strn(&r->w, t ? t : "", t ? n : 0);
}

/* "<key>": [the transfers of one standard] */
static sl_err transfers(api_req *r, int64_t evm, int64_t block, int64_t idx, int std)
{
	sl_jw *w = &r->w;
	sl_jw_key(w, std == 20 ? "erc20Transfers" : std == 721 ? "erc721Transfers" : "erc1155Transfers");
	sl_jw_arr(w);
	sl_stmt *s = sl_stmt_get(r->db, &q_transfers);
	if (!s)
		return SL_ERR_STORE;
	sl_bind_i64(s, 0, evm);
	sl_bind_i64(s, 1, block);
	sl_bind_i64(s, 2, idx);
	sl_bind_i64(s, 3, std);
	sl_err e = sl_stmt_query(s);
	while (!e && sl_stmt_next(s, &e)) {
		const uint8_t *token = blob_n(s, 1, 20);
		size_t vn, tn;
		const uint8_t *value = sl_col_blob(s, 5, &vn), *tid = sl_col_blob(s, 4, &tn);
		sl_jw_obj(w);
		sl_jw_key(w, "from");
		plain_address(r, blob_n(s, 2, 20));
		sl_jw_key(w, "to");
		plain_address(r, blob_n(s, 3, 20));
		sl_jw_key(w, "logIndex");
		sl_jw_i64(w, sl_col_i64(s, 0));
		if (std != 721) {
			sl_jw_key(w, "value");
			api_write_u256_col(r, value, vn);
		}
		sl_jw_key(w, std == 20 ? "erc20Token" : std == 721 ? "erc721Token" : "erc1155Token");
		sl_jw_obj(w);
		sl_jw_key(w, "address");
		api_write_evm_address(r, token ? token : zero20);
		if (std != 1155) {
			sl_jw_key(w, "name");
			text_col(r, s, 6);
			sl_jw_key(w, "symbol");
			text_col(r, s, 7);
		}
		if (std == 20) {
			sl_jw_key(w, "decimals");
			sl_jw_i64(w, sl_col_null(s, 8) ? 0 : sl_col_i64(s, 8));
		}
		sl_jw_key(w, "ercType");
		sl_jw_str(w, std == 20 ? "ERC-20" : std == 721 ? "ERC-721" : "ERC-1155");
		if (std != 20) {
			sl_jw_key(w, "tokenId");
			api_write_u256_col(r, tid, tn);
			sl_jw_key(w, "tokenUri");
			sl_jw_str(w, "");
			sl_jw_key(w, "metadata");
			sl_jw_obj(w);
			sl_jw_key(w, "indexStatus");
			sl_jw_str(w, "UNINDEXED");
			sl_jw_obj_end(w);
		}
		sl_jw_obj_end(w);
		sl_jw_obj_end(w);
	}
	sl_jw_arr_end(w);
	return e;
}

/* InternalTransactionOpCall of a callTracer frame type; NULL: a frame the list leaves out. */
static const char *internal_type(const char *kind, size_t n, bool moved_value)
{
	if (n == 4 && !memcmp(kind, "CALL", 4))
		return moved_value ? "CALL" : NULL;
	if (n == 8 && !memcmp(kind, "CALLCODE", 8))
		return moved_value ? "CALLCODE" : NULL;
	if (n == 6 && !memcmp(kind, "CREATE", 6))
		return "CREATE";
	if (n == 7 && !memcmp(kind, "CREATE2", 7))
		return "CREATE2";
	return NULL;
}

static sl_err internals(api_req *r, int64_t evm, int64_t block, int64_t idx)
{
	sl_jw *w = &r->w;
	sl_jw_key(w, "internalTransactions");
	sl_jw_arr(w);
	sl_stmt *s = sl_stmt_get(r->db, &q_internal);
	if (!s)
		return SL_ERR_STORE;
	sl_bind_i64(s, 0, evm);
	sl_bind_i64(s, 1, block);
	sl_bind_i64(s, 2, idx);
	sl_err e = sl_stmt_query(s);
	while (!e && sl_stmt_next(s, &e)) {
		size_t kn, vn;
		const char *kind = sl_col_text(s, 0, &kn);
		const uint8_t *value = sl_col_blob(s, 3, &vn);
		bool moved = false;
		for (size_t i = 0; value && i < vn; i++)
			moved |= value[i] != 0;
		const char *type = kind ? internal_type(kind, kn, moved) : NULL;
		if (!type)
			continue;
		sl_jw_obj(w);
		sl_jw_key(w, "from");
		plain_address(r, blob_n(s, 1, 20));
		sl_jw_key(w, "to");
		plain_address(r, blob_n(s, 2, 20));
		sl_jw_key(w, "internalTxType");
		sl_jw_str(w, type);
		sl_jw_key(w, "value");
		api_write_u256_col(r, value, vn);
		sl_jw_key(w, "isReverted");
		sl_jw_bool(w, sl_col_i64(s, 6) != 0);
		sl_jw_key(w, "gasUsed");
		sl_jw_u64s(w, (uint64_t)sl_col_i64(s, 5));
		sl_jw_key(w, "gasLimit");
		sl_jw_u64s(w, (uint64_t)sl_col_i64(s, 4));
		sl_jw_obj_end(w);
	}
	sl_jw_arr_end(w);
	return e;
}

static sl_err teleporter_info(api_req *r, int64_t evm, const uint8_t hash[32])
{
	sl_stmt *s = sl_stmt_get(r->db, &q_icm);
	if (!s)
		return SL_ERR_STORE;
	sl_bind_i64(s, 0, evm);
	sl_bind_blob(s, 1, hash, 32);
	for (int i = 1; i < 3; i++) {
		sl_bind_blob(s, 2 * i, hash, 32);
		sl_bind_i64(s, 2 * i + 1, evm);
	}
	sl_jw *w = &r->w;
	sl_err e = sl_stmt_query(s);
	while (!e && sl_stmt_next(s, &e)) {
		size_t n;
		const uint8_t *id = sl_col_blob(s, 0, &n);
		bool sent = sl_col_i64(s, 3) != 0;
		const uint8_t *other = blob_n(s, sent ? 2 : 1, 32);
		sl_jw_key(w, "teleporterMessageInfo");
		sl_jw_obj(w);
		sl_jw_key(w, "teleporterMessageId");
		sl_jw_value(w);
		sl_buf_addc(w->out, '"');
		sl_buf_add_hex(w->out, id ? id : zero20, id ? n : 0);
		sl_buf_addc(w->out, '"');
		sl_jw_key(w, "direction");
		sl_jw_str(w, sent ? "SOURCE_TRANSACTION" : "DESTINATION_TRANSACTION");
		if (other) {
			sl_jw_key(w, sent ? "destinationChainId" : "sourceChainId");
			api_write_id(r, other);
		}
		sl_jw_obj_end(w);
	}
	return e;
}

static void price_field(api_req *r, const char *key, const char *cur, int64_t ts)
{
	char price[API_PRICE_MAX];
	if (!api_price_on(r, cur, ts, price))
		return;
	sl_jw_key(&r->w, key);
	api_write_money(r, cur, price, strlen(price));
}

int api_get_deployment(api_req *r)
{
	api_evm_chain c;
	if (api_evm_chain_get(r, &c))
		return -1;
	const uint8_t *addr = api_arg(r, "address")->evm;
	const char *cur = sl_price_currencies[api_arg(r, "currency")->i];
	sl_stmt *s = sl_stmt_get(r->db, &q_contract);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	sl_bind_i64(s, 0, c.evm);
	sl_bind_blob(s, 1, addr, 20);
	int64_t block = -1, idx = -1;
	sl_err e = sl_stmt_query(s);
	while (!e && sl_stmt_next(s, &e))
		block = sl_col_i64(s, 0), idx = sl_col_i64(s, 1);
	if (e)
		return api_fail_store(r, e);
	if (block < 0)
		return api_fail(
			r, 404,
			"address %.60s is not a contract of chain %lld (no creation of it is indexed here)",
			r->address ? r->address : "", (long long)c.evm);
	if (!(s = sl_stmt_get(r->db, &q_tx)))
		return api_fail_store(r, SL_ERR_STORE);
	sl_bind_i64(s, 0, c.evm);
	sl_bind_i64(s, 1, block);
	sl_bind_i64(s, 2, idx);
	if ((e = sl_stmt_query(s)))
		return api_fail_store(r, e);
	if (!sl_stmt_next(s, &e))
		return e ? api_fail_store(r, e)
			 : api_fail(r, 404,
				    "address %.60s: the tx that created it (block %lld, index %lld) is "
				    "not in this store",
				    r->address ? r->address : "", (long long)block, (long long)idx);
	/* the tx's own columns, copied: the queries below reuse the connection */
	uint8_t hash[32] = { 0 }, from[20] = { 0 }, to[20] = { 0 }, bhash[32] = { 0 };
	const uint8_t *p;
	if ((p = blob_n(s, 0, 32)))
		memcpy(hash, p, 32);
	int64_t ts = sl_col_i64(s, 1);
	if ((p = blob_n(s, 2, 20)))
		memcpy(from, p, 20);
	bool creation = sl_col_null(s, 3);
	if ((p = blob_n(s, creation ? 14 : 3, 20)))
		memcpy(to, p, 20);
	if ((p = blob_n(s, 15, 32)))
		memcpy(bhash, p, 32);
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	sl_jw_key(w, "nativeTransaction");
	sl_jw_obj(w);
	sl_jw_key(w, "blockNumber");
	sl_jw_u64s(w, (uint64_t)block);
	sl_jw_key(w, "blockTimestamp");
	sl_jw_i64(w, ts);
	sl_jw_key(w, "blockHash");
	sl_jw_hex(w, bhash, 32);
	sl_jw_key(w, "chainId");
	sl_jw_u64s(w, (uint64_t)c.evm);
	sl_jw_key(w, "blockIndex");
	sl_jw_i64(w, idx);
	sl_jw_key(w, "txHash");
	sl_jw_hex(w, hash, 32);
	sl_jw_key(w, "txStatus");
	sl_jw_str(w, sl_col_i64(s, 11) ? "1" : "0");
	sl_jw_key(w, "txType");
	sl_jw_i64(w, sl_col_i64(s, 6));
	sl_jw_key(w, "gasLimit");
	sl_jw_u64s(w, (uint64_t)sl_col_i64(s, 7));
	sl_jw_key(w, "gasUsed");
	sl_jw_u64s(w, (uint64_t)sl_col_i64(s, 12));
	size_t n;
	p = sl_col_blob(s, 13, &n);
	sl_jw_key(w, "gasPrice");
	api_write_u256_col(r, p, n);
	sl_jw_key(w, "nonce");
	sl_jw_u64s(w, (uint64_t)sl_col_i64(s, 5));
	size_t in_n = 0;
	const uint8_t *input = sl_col_blob(s, 10, &in_n);
	sl_jw_key(w, "method");
	sl_jw_obj(w);
	sl_jw_key(w, "callType");
	sl_jw_str(w, creation ? "CONTRACT_CREATION" : in_n ? "CONTRACT_CALL" : "NATIVE_TRANSFER");
	sl_jw_key(w, "methodHash");
	if (!creation && in_n >= 4)
		sl_jw_hex(w, input, 4);
	else
		sl_jw_str(w, "");
	sl_jw_key(w, "methodName");
	sl_jw_str(w, creation	 ? "Contract Created"
		     : !in_n	 ? "Native Transfer"
		     : in_n >= 4 ? api_method_name(input)
				 : "");
	sl_jw_obj_end(w);
	p = sl_col_blob(s, 4, &n);
	sl_jw_key(w, "value");
	api_write_u256_col(r, p, n);
	sl_jw_key(w, "input");
	sl_jw_hex(w, input ? input : zero20, input ? in_n : 0);
	p = sl_col_blob(s, 16, &n);
	sl_jw_key(w, "baseFeePerGas");
	api_write_u256_col(r, p, n);
	if (!sl_col_null(s, 8)) {
		p = sl_col_blob(s, 8, &n);
		sl_jw_key(w, "maxFeePerGas");
		api_write_u256_col(r, p, n);
	}
	if (!sl_col_null(s, 9)) {
		p = sl_col_blob(s, 9, &n);
		sl_jw_key(w, "maxPriorityFeePerGas");
		api_write_u256_col(r, p, n);
	}
	/* from and to last: the tx's row is done with (read to its end, as every query here) */
	while (sl_stmt_next(s, &e))
		;
	if (e)
		return api_fail_store(r, e);
	sl_jw_key(w, "from");
	if ((e = rich_address(r, c.evm, from)))
		return api_fail_store(r, e);
	sl_jw_key(w, "to");
	if ((e = rich_address(r, c.evm, to)))
		return api_fail_store(r, e);
	sl_jw_obj_end(w);
	if ((e = transfers(r, c.evm, block, idx, 20)) || (e = transfers(r, c.evm, block, idx, 721)) ||
	    (e = transfers(r, c.evm, block, idx, 1155)) || (e = internals(r, c.evm, block, idx)))
		return api_fail_store(r, e);
	sl_jw_key(w, "networkTokenDetails");
	sl_jw_obj(w);
	sl_jw_key(w, "networkToken");
	api_evm_network_token(r, &c);
	if (c.token_symbol && !strcmp(c.token_symbol, "AVAX")) {
		price_field(r, "currentPrice", cur, INT64_MIN);
		price_field(r, "historicalPrice", cur, ts);
	}
	sl_jw_obj_end(w);
	if ((e = teleporter_info(r, c.evm, hash)))
		return api_fail_store(r, e);
	sl_jw_obj_end(w);
	return 0;
}
