/*
 * icm.c — GET /v1/icm/addresses/{address}/messages (spec 000 §4.6, §2.8):
 * the interchain (ICM/Teleporter) messages an address sent or received,
 * newest first.
 *
 * icm_addrs holds each message under its sender and its recipient with its
 * time (schema v10); a page is one range of it, (ts, id) descending, joined
 * with icm_messages; the cursor is the last item's (ts, id), 40 bytes.
 * `network` keeps the messages whose source or destination chain is one of
 * that network's configured chains (testnet: fuji).
 *
 * A message's status is what the store has seen of it:
 *   pending                       its source tx, no delivery yet
 *   delivered                     its source tx and its delivery
 *   delivered_source_not_indexed  its delivery only: the source chain is not
 *                                 configured here (src_evm NULL), or its
 *                                 indexer has not reached the source tx yet
 * and each status carries the fields the OpenAPI document's shape for it
 * requires (sourceTransaction without a delivery; destinationTransaction
 * once delivered). messageId is hex without 0x (as the hosted API's
 * examples), blockchain ids cb58, EVM chain ids decimal strings ("" for a
 * chain not configured here), addresses EIP-55. rewardDetails is the fee: its
 * token (name, symbol, decimals from evm_tokens of the source chain; "" and 0
 * where unknown) and amount. receipts: the receipts the message carried
 * (the blob: n × (32-byte nonce, 20-byte relayer reward address)).
 */
#include "api/internal.h"

#define MSG_COLS                                                                                             \
	"m.id, m.contract, m.src_blockchain, m.dst_blockchain, m.nonce, m.sender, m.recipient, m.receipts, " \
	"m.data, m.fee_token, m.fee_amount, m.src_evm, m.src_tx, m.src_ts, m.src_gas, m.dst_evm, m.dst_tx, " \
	"m.dst_ts, m.dst_gas, m.deliverer, m.redeemer, m.executed, m.receipt_delivered, a.ts"
enum {
	C_ID,
	C_CONTRACT,
	C_SRC_BC,
	C_DST_BC,
	C_NONCE,
	C_SENDER,
	C_RECIPIENT,
	C_RECEIPTS,
	C_DATA,
	C_FEE_TOKEN,
	C_FEE_AMOUNT,
	C_SRC_EVM,
	C_SRC_TX,
	C_SRC_TS,
	C_SRC_GAS,
	C_DST_EVM,
	C_DST_TX,
	C_DST_TS,
	C_DST_GAS,
	C_DELIVERER,
	C_REDEEMER,
	C_EXECUTED,
	C_RECEIPT_DELIVERED,
	C_TS,
};

#define PAGE_WHERE "a.addr = ? AND (a.ts < ? OR (a.ts = ? AND a.id < ?)) "
#define PAGE_ORDER " ORDER BY a.ts DESC, a.id DESC LIMIT ?"
static const sl_sql q_page = { "SELECT " MSG_COLS " FROM icm_addrs a JOIN icm_messages m ON m.id = a.id "
			       "WHERE " PAGE_WHERE PAGE_ORDER };
static const sl_sql q_page_net = {
	"SELECT " MSG_COLS " FROM icm_addrs a JOIN icm_messages m ON m.id = a.id WHERE " PAGE_WHERE
	"AND EXISTS (SELECT 1 FROM evm_chains c WHERE c.network = ? AND (c.evm = m.src_evm OR c.evm = m.dst_evm "
	"OR c.blockchain = m.src_blockchain OR c.blockchain = m.dst_blockchain))" PAGE_ORDER
};
static const sl_sql q_fee_token = {
	"SELECT name, symbol, decimals FROM evm_tokens WHERE evm = ? AND address = ?"
};

static const uint8_t zero[32];

static const uint8_t *blob_n(sl_stmt *s, int col, size_t want)
{
	size_t n;
	const uint8_t *p = sl_col_blob(s, col, &n);
	return p && n == want ? p : NULL;
}

static void evm_address(api_req *r, sl_stmt *s, int col)
{
	const uint8_t *p = blob_n(s, col, 20);
	api_write_evm_address(r, p ? p : zero);
}

static void hex_plain(api_req *r, const uint8_t *p, size_t n)
{
	sl_jw_value(&r->w);
	sl_buf_addc(r->w.out, '"');
	sl_buf_add_hex(r->w.out, p, n);
	sl_buf_addc(r->w.out, '"');
}

/* An EVM chain id: the column's, else the configured chain of the blockchain id, else "". */
static void evm_chain_id(api_req *r, sl_stmt *s, int col, int bc_col)
{
	int64_t evm = sl_col_null(s, col) ? -1 : sl_col_i64(s, col);
	const uint8_t *bc = blob_n(s, bc_col, 32);
	if (evm < 0 && bc)
		evm = api_evm_of_blockchain(r, bc);
	if (evm < 0)
		sl_jw_str(&r->w, "");
	else
		sl_jw_u64s(&r->w, (uint64_t)evm);
}

typedef struct fee_token {
	char name[128], symbol[64];
	int64_t decimals;
} fee_token;

static void fee_token_get(api_req *r, int64_t evm, const uint8_t *addr, fee_token *t)
{
	*t = (fee_token){ .decimals = 0 };
	if (evm < 0 || !addr)
		return;
	sl_stmt *s = sl_stmt_get(r->db, &q_fee_token);
	if (!s)
		return;
	sl_bind_i64(s, 0, evm);
	sl_bind_blob(s, 1, addr, 20);
	sl_err e = SL_OK;
	if (sl_stmt_query(s))
		return;
	while (sl_stmt_next(s, &e)) {
		size_t n;
		const char *p = sl_col_text(s, 0, &n);
		snprintf(t->name, sizeof t->name, "%.*s", (int)SL_MIN(n, sizeof t->name - 1), p ? p : "");
		p = sl_col_text(s, 1, &n);
		snprintf(t->symbol, sizeof t->symbol, "%.*s", (int)SL_MIN(n, sizeof t->symbol - 1),
			 p ? p : "");
		t->decimals = sl_col_i64(s, 2);
	}
}

static void message(api_req *r, sl_stmt *s)
{
	sl_jw *w = &r->w;
	size_t n;
	const uint8_t *p;
	bool src = !sl_col_null(s, C_SRC_TX), dst = !sl_col_null(s, C_DST_TX);
	const char *status = !dst ? "pending" : src ? "delivered" : "delivered_source_not_indexed";
	sl_jw_obj(w);
	sl_jw_key(w, "messageId");
	p = sl_col_blob(s, C_ID, &n);
	hex_plain(r, p ? p : zero, p ? n : 0);
	sl_jw_key(w, "icmContractAddress");
	evm_address(r, s, C_CONTRACT);
	sl_jw_key(w, "sourceBlockchainId");
	p = blob_n(s, C_SRC_BC, 32);
	api_write_id(r, p ? p : zero);
	sl_jw_key(w, "destinationBlockchainId");
	p = blob_n(s, C_DST_BC, 32);
	api_write_id(r, p ? p : zero);
	sl_jw_key(w, "sourceEvmChainId");
	evm_chain_id(r, s, C_SRC_EVM, C_SRC_BC);
	sl_jw_key(w, "destinationEvmChainId");
	evm_chain_id(r, s, C_DST_EVM, C_DST_BC);
	sl_jw_key(w, "messageNonce");
	p = sl_col_blob(s, C_NONCE, &n);
	api_write_u256_col(r, p, n);
	sl_jw_key(w, "from");
	evm_address(r, s, C_SENDER);
	sl_jw_key(w, "to");
	evm_address(r, s, C_RECIPIENT);
	if (!sl_col_null(s, C_DATA)) {
		p = sl_col_blob(s, C_DATA, &n);
		sl_jw_key(w, "data");
		sl_jw_hex(w, p ? p : zero, p ? n : 0);
	}
	sl_jw_key(w, "messageExecuted");
	sl_jw_bool(w, !sl_col_null(s, C_EXECUTED) && sl_col_i64(s, C_EXECUTED) == 1);
	sl_jw_key(w, "receipts");
	sl_jw_arr(w);
	p = sl_col_blob(s, C_RECEIPTS, &n);
	for (size_t i = 0; p && i + 52 <= n; i += 52) {
		sl_jw_obj(w);
		sl_jw_key(w, "receivedMessageNonce");
		api_write_u256_col(r, p + i, 32);
		sl_jw_key(w, "relayerRewardAddress");
		api_write_evm_address(r, p + i + 32);
		sl_jw_obj_end(w);
	}
	sl_jw_arr_end(w);
	sl_jw_key(w, "receiptDelivered");
	sl_jw_bool(w, sl_col_i64(s, C_RECEIPT_DELIVERED) != 0);
	sl_jw_key(w, "rewardDetails");
	sl_jw_obj(w);
	const uint8_t *ft = blob_n(s, C_FEE_TOKEN, 20);
	fee_token tok;
	fee_token_get(r, sl_col_null(s, C_SRC_EVM) ? -1 : sl_col_i64(s, C_SRC_EVM), ft, &tok);
	sl_jw_key(w, "address");
	api_write_evm_address(r, ft ? ft : zero);
	sl_jw_key(w, "name");
	sl_jw_str(w, tok.name);
	sl_jw_key(w, "symbol");
	sl_jw_str(w, tok.symbol);
	sl_jw_key(w, "decimals");
	sl_jw_i64(w, tok.decimals);
	sl_jw_key(w, "ercType");
	sl_jw_str(w, "ERC-20");
	sl_jw_key(w, "value");
	p = sl_col_blob(s, C_FEE_AMOUNT, &n);
	api_write_u256_col(r, p, n);
	sl_jw_obj_end(w);
	if (src) {
		sl_jw_key(w, "sourceTransaction");
		sl_jw_obj(w);
		sl_jw_key(w, "txHash");
		p = blob_n(s, C_SRC_TX, 32);
		sl_jw_hex(w, p ? p : zero, 32);
		sl_jw_key(w, "timestamp");
		sl_jw_i64(w, sl_col_i64(s, C_SRC_TS));
		sl_jw_key(w, "gasSpent");
		p = sl_col_blob(s, C_SRC_GAS, &n);
		api_write_u256_col(r, p, n);
		sl_jw_obj_end(w);
	}
	if (dst) {
		sl_jw_key(w, "destinationTransaction");
		sl_jw_obj(w);
		sl_jw_key(w, "txHash");
		p = blob_n(s, C_DST_TX, 32);
		sl_jw_hex(w, p ? p : zero, 32);
		sl_jw_key(w, "timestamp");
		sl_jw_i64(w, sl_col_i64(s, C_DST_TS));
		sl_jw_key(w, "gasSpent");
		p = sl_col_blob(s, C_DST_GAS, &n);
		api_write_u256_col(r, p, n);
		sl_jw_key(w, "rewardRedeemer");
		evm_address(r, s, C_REDEEMER);
		sl_jw_key(w, "delivererAddress");
		evm_address(r, s, C_DELIVERER);
		sl_jw_obj_end(w);
	}
	sl_jw_key(w, "status");
	sl_jw_str(w, status);
	sl_jw_obj_end(w);
}

int api_list_icm_messages(api_req *r)
{
	const uint8_t *addr = api_arg(r, "address")->evm;
	size_t page = (size_t)api_arg(r, "pageSize")->i;
	const api_val *nv = api_arg(r, "network");
	static const char *const nets[] = { "mainnet", "fuji", "fuji", "local" }; /* testnet: fuji */
	uint8_t cur[API_CURSOR_MAX];
	size_t clen;
	if (!api_page_cursor(r, cur, &clen))
		return -1;
	int64_t after_ts = INT64_MAX;
	uint8_t after_id[32];
	memset(after_id, 0xff, 32);
	if (clen) {
		if (clen != 40)
			return api_fail(r, 400, "pageToken is not a token of this list");
		after_ts = (int64_t)sl_be64(cur);
		memcpy(after_id, cur + 8, 32);
	}
	sl_stmt *s = sl_stmt_get(r->db, nv->set ? &q_page_net : &q_page);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	int k = 0;
	sl_bind_blob(s, k++, addr, 20);
	sl_bind_i64(s, k++, after_ts);
	sl_bind_i64(s, k++, after_ts);
	sl_bind_blob(s, k++, after_id, 32);
	if (nv->set)
		sl_bind_text(s, k++, nets[nv->i], strlen(nets[nv->i]));
	sl_bind_i64(s, k++, (int64_t)page + 1);
	sl_err e = sl_stmt_query(s);
	if (e)
		return api_fail_store(r, e);
	sl_jw_obj(&r->w);
	sl_jw_key(&r->w, "messages");
	sl_jw_arr(&r->w);
	size_t shown = 0;
	bool more = false;
	uint8_t last[40];
	while (sl_stmt_next(s, &e)) {
		if (shown == page) {
			more = true;
			continue; /* read to the end */
		}
		const uint8_t *id = blob_n(s, C_ID, 32);
		sl_put_be64(last, (uint64_t)sl_col_i64(s, C_TS));
		memcpy(last + 8, id ? id : zero, 32);
		message(r, s);
		shown++;
	}
	if (e)
		return api_fail_store(r, e);
	sl_jw_arr_end(&r->w);
	if (more)
		api_page_next(r, last, sizeof last);
	sl_jw_obj_end(&r->w);
	return 0;
}
