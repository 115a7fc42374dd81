/* The Data API's EVM routes (part 3: api/chains.c, deployment.c, icm.c) without a server: their pure
 * parts (selectors, chain ids, EVM addresses and EIP-55, 256-bit decimals, money), then each handler
 * on a real SQLite store (schema v10) holding rows as the EVM indexer writes them, through the
 * request the fuzz targets use (fuzz/api_fixture.h). getNative's balance comes from the chain's RPC
 * (tests/e2e/dataapi-evm.test.mjs); here only what it refuses before asking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../fuzz/api_fixture.h"
#include "crypto/hash.h"
#include "util/hex.h"

static sl_api api;

/* ---- pure parts ---- */

static void sel(const char *hex, const char *want)
{
	uint8_t b[4];
	size_t n;
	assert_int_equal(sl_hex_decode(hex, 8, b, 4, &n), SL_OK);
	assert_string_equal(api_method_name(b), want);
}

static void test_selectors(void **state)
{
	(void)state;
	/* the selectors everyone knows, and the two the ICM reference names */
	sel("a9059cbb", "transfer(address,uint256)");
	sel("095ea7b3", "approve(address,uint256)");
	sel("23b872dd", "transferFrom(address,address,uint256)");
	sel("42842e0e", "safeTransferFrom(address,address,uint256)");
	sel("b88d4fde", "safeTransferFrom(address,address,uint256,bytes)");
	sel("f242432a", "safeTransferFrom(address,address,uint256,uint256,bytes)");
	sel("2eb2c2d6", "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)");
	sel("ccb5f809", "receiveCrossChainMessage(uint32,address)");
	sel("fc2d6197", "retryMessageExecution(bytes32,(uint256,address,bytes32,address,uint256,address[],"
			"(uint256,address)[],bytes))");
	sel("c868efaa", "receiveTeleporterMessage(bytes32,address,bytes)");
	sel("00000000", "");
	sel("deadbeef", "");
}

static void test_chain_ids(void **state)
{
	(void)state;
	int64_t evm;
	uint8_t id[32], want[32];
	const char *msg;
	assert_true(api_parse_evm_chain("43114", 5, &evm, id, &msg));
	assert_int_equal(evm, 43114);
	assert_true(api_parse_evm_chain("9223372036854775807", 19, &evm, id, &msg));
	assert_int_equal(evm, INT64_MAX);
	assert_false(api_parse_evm_chain("9223372036854775808", 19, &evm, id, &msg));
	assert_false(api_parse_evm_chain("99999999999999999999", 20, &evm, id, &msg));
	assert_false(api_parse_evm_chain("0", 1, &evm, id, &msg));
	assert_false(api_parse_evm_chain("043114", 6, &evm, id, &msg));
	assert_false(api_parse_evm_chain("-1", 2, &evm, id, &msg));
	assert_false(api_parse_evm_chain("", 0, &evm, id, &msg));
	/* the C-chain of mainnet, cb58 and hex (evm-and-icm.md §2) */
	const char *cb = "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5";
	assert_true(api_parse_evm_chain(cb, strlen(cb), &evm, id, &msg));
	assert_int_equal(evm, -1);
	char hex[67] = "0x";
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 + 2 * i, 3, "%02x", id[i]);
	assert_memory_equal(hex, "0x0427d4b2", 10);
	assert_memory_equal(hex + 60, "3fd652", 6);
	memcpy(want, id, 32);
	assert_true(api_parse_evm_chain(hex, 66, &evm, id, &msg));
	assert_int_equal(evm, -1);
	assert_memory_equal(id, want, 32);
	hex[1] = 'X';
	assert_true(api_parse_evm_chain(hex, 66, &evm, id, &msg));
	assert_false(api_parse_evm_chain(hex, 65, &evm, id, &msg));
	hex[10] = 'g';
	assert_false(api_parse_evm_chain(hex, 66, &evm, id, &msg));
	char bad[64];
	snprintf(bad, sizeof bad, "%s", cb);
	bad[strlen(bad) - 1] = '6'; /* its checksum */
	assert_false(api_parse_evm_chain(bad, strlen(bad), &evm, id, &msg));
	assert_false(api_parse_evm_chain("c-chain", 7, &evm, id, &msg));
}

static void test_evm_addresses(void **state)
{
	(void)state;
	uint8_t a[20];
	assert_true(api_parse_evm_address("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", 42, a));
	assert_true(api_parse_evm_address("0X5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED", 42, a));
	assert_false(api_parse_evm_address("5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed00", 42, a));
	assert_false(api_parse_evm_address("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe", 41, a));
	assert_false(api_parse_evm_address("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg", 42, a));
	assert_false(api_parse_evm_address("0x", 2, a));
	/* EIP-55's own examples */
	static const char *const eip55[] = {
		"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
		"0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
		"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
		"0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(eip55); i++) {
		api_fixture f;
		fx_begin(&f, fx_route("chains"), "", NULL, 0, NULL, NULL);
		char lower[43];
		for (int k = 0; k < 42; k++)
			lower[k] = (char)(eip55[i][k] >= 'A' && eip55[i][k] <= 'F' ? eip55[i][k] + 32
										   : eip55[i][k]);
		lower[42] = 0;
		assert_true(api_parse_evm_address(lower, 42, a));
		api_write_evm_address(&f.r, a);
		char want[64];
		snprintf(want, sizeof want, "\"%s\"", eip55[i]);
		assert_string_equal(sl_buf_str(&f.resp.body), want);
		fx_end(&f);
	}
}

static void test_decimals(void **state)
{
	(void)state;
	uint8_t v[32];
	char d[80];
	memset(v, 0, 32);
	assert_int_equal(api_u256_decimal(v, d), 1);
	assert_string_equal(d, "0");
	memset(v, 0xff, 32);
	api_u256_decimal(v, d);
	assert_string_equal(d,
			    "115792089237316195423570985008687907853269984665640564039457584007913129639935");
	memset(v, 0, 32);
	v[31] = 0x0a, v[30] = 0x01; /* 266 */
	api_u256_decimal(v, d);
	assert_string_equal(d, "266");
	char out[256];
	/* 1.5 AVAX at 35.27: 52.905 */
	api_decimal_mul("1500000000000000000", "35.27", 18, out, sizeof out);
	assert_string_equal(out, "52.905");
	api_decimal_mul("0", "35.27", 18, out, sizeof out);
	assert_string_equal(out, "0");
	api_decimal_mul("1", "0.5", 18, out, sizeof out);
	assert_string_equal(out, "0.0000000000000000005");
	api_decimal_mul("2000000000000000000", "36", 18, out, sizeof out);
	assert_string_equal(out, "72");
	api_decimal_mul("123", "10", 0, out, sizeof out);
	assert_string_equal(out, "1230");
	api_decimal_mul("115792089237316195423570985008687907853269984665640564039457584007913129639935",
			"99999999999999999999.999999999999999999", 18, out, sizeof out);
	/* (2^256 - 1) × 99999999999999999999.999999999999999999 / 10^18, as Python's decimal has it */
	assert_string_equal(
		out, "11579208923731619542357098500868790785211206377326740208522187415782625056140230."
		     "015334359435960542415992086870360065");
}

/* ---- the handlers on a store ---- */

static char dir[64], url[128];
static sl_db *wdb;

static void hex32(uint8_t b, uint8_t out[32]) { memset(out, b, 32); }
static void u256(uint64_t v, uint8_t out[32])
{
	memset(out, 0, 32);
	sl_put_be64(out + 24, v);
}

#define ADDR(x) ((const uint8_t[20]){ [19] = (x) })

static const sl_sql q_chain = {
	"INSERT INTO evm_chains (evm, blockchain, subnet, name, description, rpc_url, ws_url, explorer_url, "
	"logo_uri, token_name, token_symbol, token_decimals, token_logo, token_description, network, testnet, "
	"icm) VALUES (?, ?, NULL, ?, NULL, ?, NULL, ?, NULL, ?, ?, 18, NULL, NULL, ?, ?, ?)"
};
static const sl_sql q_cursor = { "INSERT INTO evm_cursors (evm, next) VALUES (?, ?)" };
static const sl_sql q_block = {
	"INSERT INTO evm_blocks (evm, number, hash, parent, ts, miner, gas_limit, "
	"gas_used, base_fee, ntx, size) VALUES (43112, ?, ?, ?, ?, ?, 8000000, 21000, ?, 1, 900)"
};
static const sl_sql q_tx = {
	"INSERT INTO evm_txs (evm, block, idx, hash, ts, sender, recipient, value, nonce, type, gas_limit, "
	"gas_price, max_fee, max_prio, input, status, gas_used, effective_price, created) VALUES (43112, ?, ?, ?, "
	"?, ?, ?, ?, 7, 2, 500000, NULL, ?, ?, ?, 1, 123456, ?, ?)"
};
static const sl_sql q_contract = { "INSERT INTO evm_contracts (evm, address, block, tx_idx, creator) VALUES "
				   "(43112, ?, ?, ?, ?)" };
static const sl_sql q_transfer = {
	"INSERT INTO evm_transfers (evm, block, log_idx, sub, tx_idx, token, std, sender, recipient, token_id, "
	"value) VALUES (43112, 10, ?, 0, 0, ?, ?, ?, ?, ?, ?)"
};
static const sl_sql q_token = { "INSERT INTO evm_tokens (evm, address, std, name, symbol, decimals) VALUES "
				"(43112, ?, ?, ?, ?, ?)" };
static const sl_sql q_internal = {
	"INSERT INTO evm_internal (evm, block, tx_idx, n, depth, kind, sender, recipient, value, gas, gas_used, "
	"reverted) VALUES (43112, 10, 0, ?, 1, ?, ?, ?, ?, 100000, 5000, ?)"
};
static const sl_sql q_msg = {
	"INSERT INTO icm_messages (id, contract, src_blockchain, dst_blockchain, nonce, sender, recipient, "
	"receipts, data, fee_token, fee_amount, src_evm, src_tx, src_block, src_ts, src_gas, dst_evm, dst_tx, "
	"dst_block, dst_ts, dst_gas, deliverer, redeemer, executed, receipt_delivered) VALUES "
	"(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 10, ?, ?, ?, ?, 3, ?, ?, ?, ?, ?, 0)"
};
static const sl_sql q_icm_addr = { "INSERT INTO icm_addrs (addr, ts, id) VALUES (?, ?, ?)" };
static const sl_sql q_price = { "INSERT INTO prices (currency, day, price, loaded) VALUES ('usd', ?, ?, 1)" };

#define TS 1704067300 /* 2024-01-01 00:01:40 UTC */

static void seed(sl_conn *c)
{
	uint8_t b32[32], b32b[32], v[32], v2[32];
	sl_stmt *s;
	/* two chains: 43112 (AVAX, local, with a messenger) and 99 (ETH, fuji, testnet) */
	for (int i = 0; i < 2; i++) {
		assert_non_null(s = sl_stmt_get(c, &q_chain));
		hex32(i ? 0x22 : 0x11, b32);
		sl_bind_i64(s, 0, i ? 99 : 43112);
		sl_bind_blob(s, 1, b32, 32);
		sl_bind_text(s, 2, i ? "Other" : "Local C", i ? 5 : 7);
		sl_bind_text(s, 3, "http://127.0.0.1:9/rpc", 22);
		if (i)
			sl_bind_null(s, 4);
		else
			sl_bind_text(s, 4, "http://explorer", 15);
		sl_bind_text(s, 5, i ? "Ether" : "Avalanche", i ? 5 : 9);
		sl_bind_text(s, 6, i ? "ETH" : "AVAX", i ? 3 : 4);
		sl_bind_text(s, 7, i ? "fuji" : "local", i ? 4 : 5);
		sl_bind_i64(s, 8, i);
		if (i)
			sl_bind_null(s, 9);
		else
			sl_bind_blob(s, 9, ADDR(0xee), 20);
		assert_int_equal(sl_stmt_exec(s), SL_OK);
	}
	assert_non_null(s = sl_stmt_get(c, &q_cursor));
	sl_bind_i64(s, 0, 43112);
	sl_bind_i64(s, 1, 11);
	assert_int_equal(sl_stmt_exec(s), SL_OK);
	assert_non_null(s = sl_stmt_get(c, &q_block));
	hex32(0xaa, b32);
	hex32(0xa9, b32b);
	u256(25000000000, v);
	sl_bind_i64(s, 0, 10);
	sl_bind_blob(s, 1, b32, 32);
	sl_bind_blob(s, 2, b32b, 32);
	sl_bind_i64(s, 3, TS);
	sl_bind_blob(s, 4, ADDR(0x01), 20);
	sl_bind_blob(s, 5, v, 32);
	assert_int_equal(sl_stmt_exec(s), SL_OK);
	/* tx 0 of block 10: S (0x51) calls factory F (0xf0) with transfer(…), which creates C (0xc0) */
	uint8_t input[68] = { 0xa9, 0x05, 0x9c, 0xbb };
	assert_non_null(s = sl_stmt_get(c, &q_tx));
	hex32(0xbb, b32);
	sl_bind_i64(s, 0, 10);
	sl_bind_i64(s, 1, 0);
	sl_bind_blob(s, 2, b32, 32);
	sl_bind_i64(s, 3, TS);
	sl_bind_blob(s, 4, ADDR(0x51), 20);
	sl_bind_blob(s, 5, ADDR(0xf0), 20);
	u256(5, v);
	sl_bind_blob(s, 6, v, 32);
	u256(30000000000, v);
	sl_bind_blob(s, 7, v, 32);
	u256(2000000000, v2);
	sl_bind_blob(s, 8, v2, 32);
	sl_bind_blob(s, 9, input, sizeof input);
	u256(27000000000, v);
	sl_bind_blob(s, 10, v, 32);
	sl_bind_null(s, 11);
	assert_int_equal(sl_stmt_exec(s), SL_OK);
	assert_non_null(s = sl_stmt_get(c, &q_contract));
	sl_bind_blob(s, 0, ADDR(0xc0), 20);
	sl_bind_i64(s, 1, 10);
	sl_bind_i64(s, 2, 0);
	sl_bind_blob(s, 3, ADDR(0xf0), 20);
	assert_int_equal(sl_stmt_exec(s), SL_OK);
	/* its transfers: 1000 of ERC-20 T (0x70), NFT 5 of N (0x71), 3 of item 7 of M (0x72) */
	for (int i = 0; i < 3; i++) {
		assert_non_null(s = sl_stmt_get(c, &q_transfer));
		sl_bind_i64(s, 0, 3 + i);
		sl_bind_blob(s, 1, ADDR(0x70 + i), 20);
		sl_bind_i64(s, 2, i == 0 ? 20 : i == 1 ? 721 : 1155);
		sl_bind_blob(s, 3, ADDR(0x51), 20);
		sl_bind_blob(s, 4, ADDR(0x52), 20);
		if (i) {
			u256(i == 1 ? 5 : 7, v);
			sl_bind_blob(s, 5, v, 32);
		} else {
			sl_bind_null(s, 5);
		}
		u256(i == 0 ? 1000 : i == 1 ? 1 : 3, v);
		sl_bind_blob(s, 6, v, 32);
		assert_int_equal(sl_stmt_exec(s), SL_OK);
	}
	for (int i = 0; i < 2; i++) {
		assert_non_null(s = sl_stmt_get(c, &q_token));
		sl_bind_blob(s, 0, ADDR(0x70 + i), 20);
		sl_bind_i64(s, 1, i ? 721 : 20);
		sl_bind_text(s, 2, i ? "Nft" : "Tok", 3);
		sl_bind_text(s, 3, i ? "NFT" : "TOK", 3);
		if (i)
			sl_bind_null(s, 4);
		else
			sl_bind_i64(s, 4, 6);
		assert_int_equal(sl_stmt_exec(s), SL_OK);
	}
	/* frames: CREATE of C, a STATICCALL, a CALL without value, a reverted CALL with 9 */
	static const char *const kinds[] = { "CREATE", "STATICCALL", "CALL", "CALL" };
	for (int i = 0; i < 4; i++) {
		assert_non_null(s = sl_stmt_get(c, &q_internal));
		sl_bind_i64(s, 0, i);
		sl_bind_text(s, 1, kinds[i], strlen(kinds[i]));
		sl_bind_blob(s, 2, ADDR(0xf0), 20);
		sl_bind_blob(s, 3, i ? ADDR(0x52) : ADDR(0xc0), 20);
		u256(i == 3 ? 9 : 0, v);
		if (i == 1)
			sl_bind_null(s, 4);
		else
			sl_bind_blob(s, 4, v, 32);
		sl_bind_i64(s, 5, i == 3);
		assert_int_equal(sl_stmt_exec(s), SL_OK);
	}
	/* messages of S: m1 sent by this tx and delivered on chain 99; m2 sent to S from a chain not
	 * configured (0x33…), delivered on 43112; m3 pending (sent later by S) */
	for (int i = 0; i < 3; i++) {
		uint8_t id[32], src_bc[32], dst_bc[32], tx[32], nonce[32], fee[32], gas[32], receipts[52];
		hex32((uint8_t)(0xd1 + i), id);
		hex32(i == 1 ? 0x33 : 0x11, src_bc);
		hex32(i == 0 ? 0x22 : i == 1 ? 0x11 : 0x22, dst_bc);
		u256((uint64_t)i + 1, nonce);
		u256(100, fee);
		u256(777, gas);
		u256(4, receipts);
		memcpy(receipts + 32, ADDR(0x99), 20);
		assert_non_null(s = sl_stmt_get(c, &q_msg));
		int k = 0;
		sl_bind_blob(s, k++, id, 32);
		sl_bind_blob(s, k++, ADDR(0xee), 20);
		sl_bind_blob(s, k++, src_bc, 32);
		sl_bind_blob(s, k++, dst_bc, 32);
		sl_bind_blob(s, k++, nonce, 32);
		sl_bind_blob(s, k++, i == 1 ? ADDR(0x61) : ADDR(0x51), 20);
		sl_bind_blob(s, k++, i == 1 ? ADDR(0x51) : ADDR(0x62), 20);
		if (i == 1)
			sl_bind_blob(s, k++, receipts, 52);
		else
			sl_bind_blob(s, k++, "", 0);
		sl_bind_blob(s, k++, "\x01\x02", 2);
		sl_bind_blob(s, k++, ADDR(0x70), 20);
		sl_bind_blob(s, k++, fee, 32);
		if (i == 1) { /* no source */
			for (int n = 0; n < 4; n++)
				sl_bind_null(s, k++);
		} else {
			hex32(i ? 0xbc : 0xbb, tx);
			sl_bind_i64(s, k++, 43112);
			sl_bind_blob(s, k++, tx, 32);
			sl_bind_i64(s, k++, TS + i);
			sl_bind_blob(s, k++, gas, 32);
		}
		if (i == 2) { /* no delivery */
			for (int n = 0; n < 7; n++)
				sl_bind_null(s, k++);
		} else {
			hex32(i ? 0xcd : 0xcc, tx);
			sl_bind_i64(s, k++, i ? 43112 : 99);
			sl_bind_blob(s, k++, tx, 32);
			sl_bind_i64(s, k++, TS + 50);
			sl_bind_blob(s, k++, gas, 32);
			sl_bind_blob(s, k++, ADDR(0x98), 20);
			sl_bind_blob(s, k++, ADDR(0x97), 20);
			sl_bind_i64(s, k++, 1);
		}
		assert_int_equal(sl_stmt_exec(s), SL_OK);
		for (int side = 0; side < 2; side++) {
			assert_non_null(s = sl_stmt_get(c, &q_icm_addr));
			sl_bind_blob(s, 0,
				     side ? (i == 1 ? ADDR(0x51) : ADDR(0x62))
					  : (i == 1 ? ADDR(0x61) : ADDR(0x51)),
				     20);
			sl_bind_i64(s, 1, i == 1 ? TS + 50 : TS + i);
			sl_bind_blob(s, 2, id, 32);
			assert_int_equal(sl_stmt_exec(s), SL_OK);
		}
	}
	assert_non_null(s = sl_stmt_get(c, &q_price));
	sl_bind_i64(s, 0, 1704067200);
	sl_bind_text(s, 1, "35.27", 5);
	assert_int_equal(sl_stmt_exec(s), SL_OK);
	assert_non_null(s = sl_stmt_get(c, &q_price));
	sl_bind_i64(s, 0, 1704153600);
	sl_bind_text(s, 1, "36", 2);
	assert_int_equal(sl_stmt_exec(s), SL_OK);
}

static int setup(void **state)
{
	(void)state;
	fx_api_init(&api);
	snprintf(dir, sizeof dir, "/tmp/snowline-api-evm-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(url, sizeof url, "%s/store.db", dir);
	char err[256];
	sl_db_config cfg = { .url = url, .mode = SL_DB_WRITE };
	if (!(wdb = sl_db_open(&cfg, err)))
		fail_msg("open %s: %s", url, err);
	sl_conn *c = sl_db_acquire(wdb, 10000, err);
	assert_non_null(c);
	assert_int_equal(sl_conn_begin(c), SL_OK);
	seed(c);
	assert_int_equal(sl_conn_commit(c), SL_OK);
	sl_db_release(wdb, c);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sl_db_close(wdb);
	char cmd[160];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Run route `name` with its path variables and query; the body (or ErrorBody) into out, the status
 * returned. */
static int run(const char *name, const char *chain, const char *address, const char *query, const char *token,
	       char *out, size_t cap)
{
	api_fixture f;
	f.api = api;
	f.api.cfg.compat = SL_COMPAT_SPEC;
	fx_begin(&f, fx_route(name), query, NULL, 0, NULL, NULL);
	f.r.chainId = chain;
	f.r.address = address;
	f.r.network = NULL;
	char err[256];
	f.r.db = sl_db_acquire(wdb, 10000, err);
	assert_non_null(f.r.db);
	int status = 400;
	if (api_params_parse(&f.r)) {
		if (token)
			fx_set_token(&f, token, strlen(token));
		status = f.r.route->fn(&f.r) == 0 ? 200 : f.r.status;
	} else {
		status = f.r.status;
	}
	sl_db_release(wdb, f.r.db);
	snprintf(out, cap, "%s", sl_buf_str(&f.resp.body));
	fx_end(&f);
	return status;
}

/* case aside: the addresses are EIP-55 (test_evm_addresses checks that) */
#define HAS(body, s)                                                                       \
	do {                                                                               \
		if (!strcasestr((body), (s)))                                              \
			fail_msg("%s:%d: no '%s' in %s", __FILE__, __LINE__, (s), (body)); \
	} while (0)
#define HASNT(body, s)                                                                  \
	do {                                                                            \
		if (strstr((body), (s)))                                                \
			fail_msg("%s:%d: '%s' in %s", __FILE__, __LINE__, (s), (body)); \
	} while (0)

static char body[1 << 16];

static void test_chains(void **state)
{
	(void)state;
	assert_int_equal(run("chains", NULL, NULL, "", NULL, body, sizeof body), 200);
	HAS(body,
	    "{\"chains\":[{\"chainId\":\"99\",\"status\":\"OK\",\"chainName\":\"Other\",\"description\":\"\","
	    "\"platformChainId\":\"");
	HAS(body,
	    "\"vmName\":\"EVM\",\"rpcUrl\":\"http://127.0.0.1:9/rpc\",\"isTestnet\":true,\"networkToken\":"
	    "{\"name\":\"Ether\",\"symbol\":\"ETH\",\"decimals\":18},\"enabledFeatures\":[]}");
	HAS(body, "{\"chainId\":\"43112\",");
	HAS(body, "\"explorerUrl\":\"http://explorer\"");
	HAS(body, "\"enabledFeatures\":[\"teleporter\"]}]}");
	HASNT(body, "null");
	HASNT(body, "subnetId");
	assert_int_equal(run("chains", NULL, NULL, "network=fuji", NULL, body, sizeof body), 200);
	HAS(body, "\"chainId\":\"99\"");
	HASNT(body, "43112");
	assert_int_equal(run("chains", NULL, NULL, "network=testnet", NULL, body, sizeof body), 200);
	HAS(body, "\"chainId\":\"99\"");
	HASNT(body, "43112");
	assert_int_equal(run("chains", NULL, NULL, "network=mainnet", NULL, body, sizeof body), 200);
	assert_string_equal(body, "{\"chains\":[]}");
	assert_int_equal(
		run("chains", NULL, NULL, "network=local&feature=teleporter", NULL, body, sizeof body), 200);
	HAS(body, "\"chainId\":\"43112\"");
	HASNT(body, "\"99\"");
	assert_int_equal(run("chains", NULL, NULL, "feature=nftIndexing", NULL, body, sizeof body), 200);
	assert_string_equal(body, "{\"chains\":[]}");
	assert_int_equal(run("chains", NULL, NULL, "network=devnet", NULL, body, sizeof body), 400);
	HAS(body, "network");
	/* one chain: by EVM id, by blockchain id in cb58 and in hex */
	char cb[64], hex[67] = "0x";
	uint8_t id[32];
	hex32(0x11, id);
	sl_cb58_id(cb, id);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 + 2 * i, 3, "11");
	const char *ids[] = { "43112", cb, hex };
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(run("chain", ids[i], NULL, "", NULL, body, sizeof body), 200);
		HAS(body, "{\"chainId\":\"43112\",\"status\":\"OK\",\"chainName\":\"Local C\"");
		HAS(body, cb);
	}
	assert_int_equal(run("chain", "5", NULL, "", NULL, body, sizeof body), 404);
	HAS(body, "chainId");
	HAS(body, "'5'");
	hex32(0x44, id);
	sl_cb58_id(cb, id);
	assert_int_equal(run("chain", cb, NULL, "", NULL, body, sizeof body), 404);
	HAS(body, cb);
	assert_int_equal(run("chain", "c-chain", NULL, "", NULL, body, sizeof body), 400);
	HAS(body, "chainId");
}

#define C_ADDR "0x00000000000000000000000000000000000000c0"

static void test_deployment(void **state)
{
	(void)state;
	assert_int_equal(run("deployment", "43112", C_ADDR, "", NULL, body, sizeof body), 200);
	HAS(body,
	    "{\"nativeTransaction\":{\"blockNumber\":\"10\",\"blockTimestamp\":1704067300,\"blockHash\":\"0xaaaa");
	HAS(body, "\"chainId\":\"43112\",\"blockIndex\":0,\"txHash\":\"0xbbbb");
	HAS(body,
	    "\"txStatus\":\"1\",\"txType\":2,\"gasLimit\":\"500000\",\"gasUsed\":\"123456\","
	    "\"gasPrice\":\"27000000000\",\"nonce\":\"7\",\"method\":{\"callType\":\"CONTRACT_CALL\","
	    "\"methodHash\":\"0xa9059cbb\",\"methodName\":\"transfer(address,uint256)\"},\"value\":\"5\","
	    "\"input\":\"0xa9059cbb0000");
	HAS(body,
	    "\"baseFeePerGas\":\"25000000000\",\"maxFeePerGas\":\"30000000000\","
	    "\"maxPriorityFeePerGas\":\"2000000000\",\"from\":{\"address\":\"0x00000000000000000000000000000000"
	    "00000051\"},\"to\":{\"address\":\"0x00000000000000000000000000000000000000F0\"}}");
	HAS(body,
	    "\"erc20Transfers\":[{\"from\":{\"address\":\"0x0000000000000000000000000000000000000051\"},"
	    "\"to\":{\"address\":\"0x0000000000000000000000000000000000000052\"},\"logIndex\":3,"
	    "\"value\":\"1000\",\"erc20Token\":{\"address\":\"0x0000000000000000000000000000000000000070\","
	    "\"name\":\"Tok\",\"symbol\":\"TOK\",\"decimals\":6,\"ercType\":\"ERC-20\"}}]");
	HAS(body,
	    "\"logIndex\":4,\"erc721Token\":{\"address\":\"0x0000000000000000000000000000000000000071\","
	    "\"name\":\"Nft\",\"symbol\":\"NFT\",\"ercType\":\"ERC-721\",\"tokenId\":\"5\",\"tokenUri\":\"\","
	    "\"metadata\":{\"indexStatus\":\"UNINDEXED\"}}}]");
	HAS(body,
	    "\"logIndex\":5,\"value\":\"3\",\"erc1155Token\":{\"address\":\"0x000000000000000000000000000000"
	    "0000000072\",\"ercType\":\"ERC-1155\",\"tokenId\":\"7\"");
	/* the CREATE and the CALL that moved value (reverted); not the STATICCALL, not the empty CALL */
	HAS(body,
	    "\"internalTransactions\":[{\"from\":{\"address\":\"0x00000000000000000000000000000000000000F0\"},"
	    "\"to\":{\"address\":\"0x00000000000000000000000000000000000000c0\"},\"internalTxType\":\"CREATE\","
	    "\"value\":\"0\",\"isReverted\":false,\"gasUsed\":\"5000\",\"gasLimit\":\"100000\"},{\"from\":");
	HAS(body, "\"internalTxType\":\"CALL\",\"value\":\"9\",\"isReverted\":true,\"gasUsed\":\"5000\","
		  "\"gasLimit\":\"100000\"}],");
	HASNT(body, "STATICCALL");
	HAS(body, "\"networkTokenDetails\":{\"networkToken\":{\"name\":\"Avalanche\",\"symbol\":\"AVAX\","
		  "\"decimals\":18},\"currentPrice\":{\"currencyCode\":\"usd\",\"value\":\"36\"},"
		  "\"historicalPrice\":{\"currencyCode\":\"usd\",\"value\":\"35.27\"}}");
	HAS(body, "\"teleporterMessageInfo\":{\"teleporterMessageId\":\"d1d1d1");
	HAS(body, "\"direction\":\"SOURCE_TRANSACTION\",\"destinationChainId\":\"");
	HASNT(body, "null");
	/* no price in eur */
	assert_int_equal(run("deployment", "43112", C_ADDR, "currency=eur", NULL, body, sizeof body), 200);
	HAS(body, "\"networkTokenDetails\":{\"networkToken\":{\"name\":\"Avalanche\",\"symbol\":\"AVAX\","
		  "\"decimals\":18}}");
	/* the factory is no contract this store saw made; nor is any address on chain 99 */
	assert_int_equal(run("deployment", "43112", "0x00000000000000000000000000000000000000f0", "", NULL,
			     body, sizeof body),
			 404);
	HAS(body, "address");
	HAS(body, "0x00000000000000000000000000000000000000f0");
	assert_int_equal(run("deployment", "99", C_ADDR, "", NULL, body, sizeof body), 404);
	assert_int_equal(run("deployment", "43112", "0xc0", "", NULL, body, sizeof body), 400);
	HAS(body, "address");
	assert_int_equal(run("deployment", "7", C_ADDR, "", NULL, body, sizeof body), 404);
	HAS(body, "chainId");
}

static void test_native_refusals(void **state)
{
	(void)state;
	/* past the indexed head (10): a 400 naming blockNumber, before the RPC is asked */
	assert_int_equal(run("native_balance", "43112", C_ADDR, "blockNumber=11", NULL, body, sizeof body),
			 400);
	HAS(body, "blockNumber");
	HAS(body, "(10)");
	/* chain 99 has no block indexed */
	assert_int_equal(run("native_balance", "99", C_ADDR, "blockNumber=0", NULL, body, sizeof body), 400);
	HAS(body, "blockNumber");
	assert_int_equal(run("native_balance", "99", C_ADDR, "", NULL, body, sizeof body), 503);
	assert_int_equal(run("native_balance", "43112", "0x1234", "", NULL, body, sizeof body), 400);
	HAS(body, "address");
	assert_int_equal(run("native_balance", "43112", C_ADDR, "currency=btc", NULL, body, sizeof body),
			 400);
	HAS(body, "currency");
	/* the RPC (nothing listens on port 9): a 502 that names the chain */
	assert_int_equal(run("native_balance", "43112", C_ADDR, "blockNumber=10", NULL, body, sizeof body),
			 502);
	HAS(body, "43112");
}

#define S_ADDR "0x0000000000000000000000000000000000000051"

static void test_icm(void **state)
{
	(void)state;
	assert_int_equal(run("icm_messages", NULL, S_ADDR, "", NULL, body, sizeof body), 200);
	/* newest first: m2 (delivered at TS+50, source not indexed), m3 (pending, TS+2), m1 (TS) */
	const char *m2 = strstr(body, "d2d2d2"), *m3 = strstr(body, "d3d3d3"), *m1 = strstr(body, "d1d1d1");
	assert_non_null(m1);
	assert_non_null(m2);
	assert_non_null(m3);
	assert_true(m2 < m3 && m3 < m1);
	HAS(body,
	    "{\"messages\":[{\"messageId\":\"d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2\","
	    "\"icmContractAddress\":\"0x00000000000000000000000000000000000000EE\",\"sourceBlockchainId\":\"");
	HAS(body,
	    "\"sourceEvmChainId\":\"\",\"destinationEvmChainId\":\"43112\",\"messageNonce\":\"2\","
	    "\"from\":\"0x0000000000000000000000000000000000000061\",\"to\":\"0x00000000000000000000000000000000"
	    "00000051\",\"data\":\"0x0102\",\"messageExecuted\":true,\"receipts\":[{\"receivedMessageNonce\":"
	    "\"4\",\"relayerRewardAddress\":\"0x0000000000000000000000000000000000000099\"}],"
	    "\"receiptDelivered\":false,\"rewardDetails\":{\"address\":\"0x000000000000000000000000000000000000"
	    "0070\",\"name\":\"\",\"symbol\":\"\",\"decimals\":0,\"ercType\":\"ERC-20\",\"value\":\"100\"},"
	    "\"destinationTransaction\":{\"txHash\":\"0xcdcd");
	HAS(body,
	    "\"timestamp\":1704067350,\"gasSpent\":\"777\",\"rewardRedeemer\":\"0x0000000000000000000000000000"
	    "000000000097\",\"delivererAddress\":\"0x0000000000000000000000000000000000000098\"},\"status\":"
	    "\"delivered_source_not_indexed\"}");
	HAS(body, "\"sourceEvmChainId\":\"43112\",\"destinationEvmChainId\":\"99\",\"messageNonce\":\"3\"");
	HAS(body, "\"sourceTransaction\":{\"txHash\":\"0xbcbc");
	HAS(body, "\"status\":\"pending\"}");
	HAS(body,
	    "\"rewardDetails\":{\"address\":\"0x0000000000000000000000000000000000000070\",\"name\":\"Tok\","
	    "\"symbol\":\"TOK\",\"decimals\":6,\"ercType\":\"ERC-20\",\"value\":\"100\"}");
	HAS(body, "\"status\":\"delivered\"}]}");
	HASNT(body, "nextPageToken");
	/* a page at a time */
	char token[600] = "";
	const char *want[] = { "d2d2d2", "d3d3d3", "d1d1d1" };
	for (int i = 0; i < 3; i++) {
		assert_int_equal(run("icm_messages", NULL, S_ADDR, "pageSize=1", i ? token : NULL, body,
				     sizeof body),
				 200);
		HAS(body, want[i]);
		const char *t = strstr(body, "\"nextPageToken\":\"");
		if (i == 2) {
			assert_null(t);
			break;
		}
		assert_non_null(t);
		t += 17;
		size_t n = (size_t)(strchr(t, '"') - t);
		memcpy(token, t, n);
		token[n] = 0;
	}
	/* network: fuji keeps m1 and m3 (chain 99 is fuji's); mainnet none */
	assert_int_equal(run("icm_messages", NULL, S_ADDR, "network=testnet", NULL, body, sizeof body), 200);
	HAS(body, "d1d1d1");
	HAS(body, "d3d3d3");
	HASNT(body, "d2d2d2");
	assert_int_equal(run("icm_messages", NULL, S_ADDR, "network=mainnet", NULL, body, sizeof body), 200);
	assert_string_equal(body, "{\"messages\":[]}");
	/* the recipient of m1 sees it too */
	assert_int_equal(run("icm_messages", NULL, "0x0000000000000000000000000000000000000062", "", NULL,
			     body, sizeof body),
			 200);
	HAS(body, "d1d1d1");
	HAS(body, "d3d3d3");
	assert_int_equal(run("icm_messages", NULL, "0x51", "", NULL, body, sizeof body), 400);
	HAS(body, "address");
	assert_int_equal(run("icm_messages", NULL, S_ADDR, "pageSize=101", NULL, body, sizeof body), 400);
	HAS(body, "pageSize");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selectors),	cmocka_unit_test(test_chain_ids),
		cmocka_unit_test(test_evm_addresses),	cmocka_unit_test(test_decimals),
		cmocka_unit_test(test_chains),		cmocka_unit_test(test_deployment),
		cmocka_unit_test(test_native_refusals), cmocka_unit_test(test_icm),
	};
	fx_api_init(&api);
	return cmocka_run_group_tests(tests, setup, teardown);
}
