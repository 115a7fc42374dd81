/*
 * test_evm_decode.c — the EVM indexer's decoders of outside input: token transfers and the ICM
 * messenger's events from logs (codec/evm_abi.h), token answers to eth_call, and an EVM node's
 * JSON-RPC answers (index/evm_rpc.h). The log vectors are logs anvil 1.7.1 emitted for the test
 * contracts of tests/e2e/evm-lib.mjs (a SendCrossChainMessage, a ReceiveCrossChainMessage that
 * carries three receipts back, an ERC-1155 TransferBatch).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "codec/evm_abi.h"
#include "crypto/hash.h"
#include "index/evm.h"
#include "index/evm_rpc.h"
#include "util/hex.h"
#include "util/limits.h"

/* hex of a 32-byte / 20-byte value made of one byte repeated */
#define EVMH4(b) b b b b
#define EVMH20(b) EVMH4(b) EVMH4(b) EVMH4(b) EVMH4(b) EVMH4(b)
#define EVMH32(b) EVMH20(b) EVMH4(b) EVMH4(b) EVMH4(b)

static const char BATCH_TOPICS[] =
	"4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb000000000000000000000000f39fd6e5"
	"1aad88f6f4ce6ab8827279cfffb922660000000000000000000000000000000000000000000000000000000000000000"
	"00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8";
static const char BATCH_DATA[] =
	"000000000000000000000000000000000000000000000000000000000000004000000000000000000000000000000000"
	"000000000000000000000000000000c00000000000000000000000000000000000000000000000000000000000000003"
	"000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000"
	"000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000003"
	"000000000000000000000000000000000000000000000000000000000000000300000000000000000000000000000000"
	"0000000000000000000000000000000a0000000000000000000000000000000000000000000000000000000000000014"
	"000000000000000000000000000000000000000000000000000000000000001e";
static const char SEND_TOPICS[] =
	"2a211ad4a59ab9d003852404f9c57c690704ee755f3c79d2c2812ad32da99df8dd261a1b4955b10582867edb5e8ed4d9"
	"82e8bb28c149adcd4babcc6466bba058a47a2fa3818b7d7741bf15878d51ea6a15314b64efd506fb77e47dba1f5214d6";
static const char SEND_DATA[] =
	"00000000000000000000000000000000000000000000000000000000000000600000000000000000000000005fbdb231"
	"5678afecb367f032d93f642f64180aa30000000000000000000000000000000000000000000000008ac7230489e80000"
	"000000000000000000000000000000000000000000000000000000000000000100000000000000000000000070997970"
	"c51812dc3a010c7d01b50e0d17dc79c8a47a2fa3818b7d7741bf15878d51ea6a15314b64efd506fb77e47dba1f5214d6"
	"000000000000000000000000057ef64e23666f000b34ae31332854acbd1c854400000000000000000000000000000000"
	"00000000000000000000000000030d400000000000000000000000000000000000000000000000000000000000000100"
	"000000000000000000000000000000000000000000000000000000000000012000000000000000000000000000000000"
	"000000000000000000000000000001400000000000000000000000000000000000000000000000000000000000000000"
	"000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000768656c6c6f204200000000000000000000000000000000000000000000000000";
static const char RECV_TOPICS[] =
	"292ee90bbaf70b5d4936025e09d56ba08f3e421156b6a568cf3c2840d9343e34a8c3b80fd45db6f4936ca6cf7f7500f8"
	"d57b3b04a8f854fc4d077699c331fbf6a47a2fa3818b7d7741bf15878d51ea6a15314b64efd506fb77e47dba1f5214d6"
	"0000000000000000000000009965507d1a55bcc2695c58ba16fb37d819b0a4dc";
static const char RECV_DATA[] =
	"000000000000000000000000976ea74026e726554db657fa54763abd0c3a0aa900000000000000000000000000000000"
	"000000000000000000000000000000400000000000000000000000000000000000000000000000000000000000000001"
	"00000000000000000000000090f79bf6eb2c4f870365e785982e1f101e93b90607266fd2eea05b31f3419ac29d5bcfaa"
	"8e74deac6047ac15f2c46d20ddd7390d000000000000000000000000dc64a140aa3e981100a9beca4e685f962f0cf6c9"
	"0000000000000000000000000000000000000000000000000000000000030d4000000000000000000000000000000000"
	"000000000000000000000000000001000000000000000000000000000000000000000000000000000000000000000120"
	"000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000"
	"000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003"
	"0000000000000000000000000000000000000000000000000000000000000001000000000000000000000000976ea740"
	"26e726554db657fa54763abd0c3a0aa90000000000000000000000000000000000000000000000000000000000000002"
	"000000000000000000000000976ea74026e726554db657fa54763abd0c3a0aa900000000000000000000000000000000"
	"00000000000000000000000000000003000000000000000000000000976ea74026e726554db657fa54763abd0c3a0aa9"
	"000000000000000000000000000000000000000000000000000000000000000768656c6c6f2041000000000000000000"
	"00000000000000000000000000000000";

/* hex text (no prefix) into a malloc'd buffer */
static uint8_t *unhex(const char *s, size_t *n)
{
	size_t len = strlen(s);
	uint8_t *out = malloc(len / 2 + 1);
	assert_non_null(out);
	assert_int_equal(sl_hex_decode(s, len, out, len / 2, n), SL_OK);
	return out;
}

static void expect_hex(const uint8_t *p, size_t n, const char *want)
{
	char got[2 * 256 + 1];
	assert_true(n <= 256);
	for (size_t i = 0; i < n; i++)
		snprintf(got + 2 * i, 3, "%02x", p[i]);
	got[2 * n] = 0;
	assert_string_equal(got, want);
}

static void test_topics(void **state)
{
	(void)state;
	static const struct {
		const char *sig;
		const uint8_t *topic;
	} cases[] = {
		{ "Transfer(address,address,uint256)", sl_evm_topic_transfer },
		{ "TransferSingle(address,address,address,uint256,uint256)", sl_evm_topic_transfer_single },
		{ "TransferBatch(address,address,address,uint256[],uint256[])", sl_evm_topic_transfer_batch },
		{ "SendCrossChainMessage(bytes32,bytes32,(uint256,address,bytes32,address,uint256,address[],(uint256,"
		  "address)[],bytes),(address,uint256))",
		  sl_icm_topic_send },
		{ "ReceiveCrossChainMessage(bytes32,bytes32,address,address,(uint256,address,bytes32,address,uint256,"
		  "address[],(uint256,address)[],bytes))",
		  sl_icm_topic_receive },
		{ "MessageExecuted(bytes32,bytes32)", sl_icm_topic_executed },
		{ "MessageExecutionFailed(bytes32,bytes32,(uint256,address,bytes32,address,uint256,address[],(uint256,"
		  "address)[],bytes))",
		  sl_icm_topic_failed },
		{ "ReceiptReceived(bytes32,bytes32,address,(address,uint256))", sl_icm_topic_receipt },
		{ "AddFeeAmount(bytes32,(address,uint256))", sl_icm_topic_add_fee },
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
		uint8_t h[32];
		sl_keccak256(cases[i].sig, strlen(cases[i].sig), h);
		assert_memory_equal(h, cases[i].topic, 32);
	}
}

static void test_icm_send(void **state)
{
	(void)state;
	size_t tn, dn;
	uint8_t *topics = unhex(SEND_TOPICS, &tn), *data = unhex(SEND_DATA, &dn);
	sl_icm_event ev;
	assert_int_equal(sl_icm_decode(topics, tn / 32, data, dn, &ev), SL_OK);
	assert_int_equal(ev.kind, SL_ICM_SEND);
	expect_hex(ev.id, 32, "dd261a1b4955b10582867edb5e8ed4d982e8bb28c149adcd4babcc6466bba058");
	expect_hex(ev.chain, 32, "a47a2fa3818b7d7741bf15878d51ea6a15314b64efd506fb77e47dba1f5214d6");
	expect_hex(ev.msg.nonce, 32, "0000000000000000000000000000000000000000000000000000000000000001");
	expect_hex(ev.msg.origin, 20, "70997970c51812dc3a010c7d01b50e0d17dc79c8");
	expect_hex(ev.msg.dst_blockchain, 32,
		   "a47a2fa3818b7d7741bf15878d51ea6a15314b64efd506fb77e47dba1f5214d6");
	expect_hex(ev.msg.dst_addr, 20, "057ef64e23666f000b34ae31332854acbd1c8544");
	expect_hex(ev.msg.gas_limit + 28, 4, "00030d40");
	assert_int_equal(ev.msg.nrelayers, 0);
	assert_int_equal(ev.msg.nreceipts, 0);
	assert_int_equal(ev.msg.payload_len, 7);
	assert_memory_equal(ev.msg.payload, "hello B", 7);
	expect_hex(ev.fee_token, 20, "5fbdb2315678afecb367f032d93f642f64180aa3");
	expect_hex(ev.fee_amount + 24, 8, "8ac7230489e80000"); /* 10 tokens of 18 decimals */
	/* the id is the formula's, from the messenger, the two chains and the nonce */
	uint8_t messenger[20], src[32], id[32];
	size_t n;
	assert_int_equal(sl_hex_decode("700b6a60ce7eaaea56f065753d8dcb9653dbad35", 40, messenger, 20, &n),
			 SL_OK);
	assert_int_equal(sl_hex_decode("07266fd2eea05b31f3419ac29d5bcfaa8e74deac6047ac15f2c46d20ddd7390d", 64,
				       src, 32, &n),
			 SL_OK);
	sl_icm_message_id(messenger, src, ev.chain, ev.msg.nonce, id);
	assert_memory_equal(id, ev.id, 32);
	/* every truncation of the data up to the payload's end fails cleanly (and reads nothing past
	 * it; the payload's zero padding is not required) */
	size_t end = (size_t)(ev.msg.payload - data) + ev.msg.payload_len;
	for (size_t cut = 0; cut < end; cut++) {
		uint8_t *part = malloc(cut ? cut : 1);
		memcpy(part, data, cut);
		assert_int_equal(sl_icm_decode(topics, tn / 32, part, cut, &ev), SL_ERR_INVALID);
		free(part);
	}
	/* a topic short: not the event's shape */
	assert_int_equal(sl_icm_decode(topics, tn / 32 - 1, data, dn, &ev), SL_ERR_INVALID);
	/* an offset pointing past the end */
	data[31] = 0xff;
	assert_int_equal(sl_icm_decode(topics, tn / 32, data, dn, &ev), SL_ERR_INVALID);
	free(topics);
	free(data);
}

static void test_icm_receive(void **state)
{
	(void)state;
	size_t tn, dn;
	uint8_t *topics = unhex(RECV_TOPICS, &tn), *data = unhex(RECV_DATA, &dn);
	sl_icm_event ev;
	assert_int_equal(sl_icm_decode(topics, tn / 32, data, dn, &ev), SL_OK);
	assert_int_equal(ev.kind, SL_ICM_RECEIVE);
	expect_hex(ev.chain, 32,
		   "a47a2fa3818b7d7741bf15878d51ea6a15314b64efd506fb77e47dba1f5214d6"); /* source */
	expect_hex(ev.addr, 20, "9965507d1a55bcc2695c58ba16fb37d819b0a4dc");		/* deliverer */
	expect_hex(ev.redeemer, 20, "976ea74026e726554db657fa54763abd0c3a0aa9");
	assert_int_equal(ev.msg.nreceipts, 3);
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(ev.msg.receipts[64 * i + 31], i + 1); /* receivedMessageNonce */
		expect_hex(ev.msg.receipts + 64 * i + 44, 20, "976ea74026e726554db657fa54763abd0c3a0aa9");
	}
	assert_int_equal(ev.msg.payload_len, 7);
	assert_memory_equal(ev.msg.payload, "hello A", 7);
	/* another topic0: not an ICM event */
	topics[0] ^= 1;
	assert_int_equal(sl_icm_decode(topics, tn / 32, data, dn, &ev), SL_OK);
	assert_int_equal(ev.kind, SL_ICM_NONE);
	free(topics);
	free(data);
}

typedef struct got_transfers {
	sl_evm_transfer t[8];
	uint32_t sub[8];
	size_t n;
} got_transfers;

static sl_err collect(void *ctx, uint32_t sub, const sl_evm_transfer *t)
{
	got_transfers *g = ctx;
	assert_true(g->n < 8);
	g->sub[g->n] = sub;
	g->t[g->n++] = *t;
	return SL_OK;
}

static void test_transfers(void **state)
{
	(void)state;
	size_t tn, dn;
	uint8_t *topics = unhex(BATCH_TOPICS, &tn), *data = unhex(BATCH_DATA, &dn);
	got_transfers g = { 0 };
	assert_int_equal(sl_evm_log_transfers(topics, tn / 32, data, dn, collect, &g), SL_OK);
	assert_int_equal(g.n, 3);
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(g.sub[i], i);
		assert_int_equal(g.t[i].std, 1155);
		assert_int_equal(g.t[i].token_id[31], i + 1);
		assert_int_equal(g.t[i].value[31], 10 * (i + 1));
		expect_hex(g.t[i].to, 20, "70997970c51812dc3a010c7d01b50e0d17dc79c8");
	}
	/* truncated batches are not transfers */
	for (size_t cut = 0; cut < dn; cut += 7) {
		g.n = 0;
		sl_err e = sl_evm_log_transfers(topics, tn / 32, data, cut, collect, &g);
		if (e != SL_ERR_NOT_FOUND)
			fail_msg("cut %zu of %zu: %d", cut, dn, e);
	}
	/* ids and values of different lengths */
	data[2 * 32 + 31] = 2; /* ids: the length word at 0x40 */
	assert_int_equal(sl_evm_log_transfers(topics, tn / 32, data, dn, collect, &g), SL_ERR_NOT_FOUND);

	/* ERC-20 (3 topics, a 32-byte value) and ERC-721 (4 topics, no data) */
	uint8_t t4[4 * 32] = { 0 }, value[32] = { 0 };
	memcpy(t4, sl_evm_topic_transfer, 32);
	t4[32 + 31] = 0xaa; /* from */
	t4[64 + 31] = 0xbb; /* to */
	t4[96 + 31] = 7;    /* token id */
	value[31] = 42;
	g.n = 0;
	assert_int_equal(sl_evm_log_transfers(t4, 3, value, 32, collect, &g), SL_OK);
	assert_int_equal(g.t[0].std, 20);
	assert_false(g.t[0].has_id);
	assert_int_equal(g.t[0].value[31], 42);
	assert_int_equal(g.t[0].from[19], 0xaa);
	assert_int_equal(sl_evm_log_transfers(t4, 4, NULL, 0, collect, &g), SL_OK);
	assert_int_equal(g.t[1].std, 721);
	assert_int_equal(g.t[1].token_id[31], 7);
	assert_int_equal(g.t[1].value[31], 1);
	/* other shapes: an ERC-20 without its value, an ERC-721 with data, high bytes in an address topic */
	assert_int_equal(sl_evm_log_transfers(t4, 3, NULL, 0, collect, &g), SL_ERR_NOT_FOUND);
	assert_int_equal(sl_evm_log_transfers(t4, 4, value, 32, collect, &g), SL_ERR_NOT_FOUND);
	assert_int_equal(sl_evm_log_transfers(t4, 2, value, 32, collect, &g), SL_ERR_NOT_FOUND);
	t4[32] = 1;
	assert_int_equal(sl_evm_log_transfers(t4, 3, value, 32, collect, &g), SL_ERR_NOT_FOUND);
	assert_int_equal(sl_evm_log_transfers(t4, 0, value, 32, collect, &g), SL_ERR_NOT_FOUND);
	free(topics);
	free(data);
}

static void test_token_answers(void **state)
{
	(void)state;
	char out[SL_EVM_MAX_TOKEN_STRING + 1];
	uint8_t abi[96] = { 0 };
	abi[31] = 0x20;
	abi[63] = 10;
	memcpy(abi + 64, "Snow Token", 10);
	assert_true(sl_evm_abi_string(abi, sizeof abi, out, sizeof out));
	assert_string_equal(out, "Snow Token");
	/* a length past the data, a control character, invalid UTF-8 */
	abi[63] = 40;
	assert_false(sl_evm_abi_string(abi, sizeof abi, out, sizeof out));
	abi[63] = 10;
	abi[66] = '\n';
	assert_false(sl_evm_abi_string(abi, sizeof abi, out, sizeof out));
	abi[66] = 0xc3; /* a lead byte followed by ASCII */
	assert_false(sl_evm_abi_string(abi, sizeof abi, out, sizeof out));
	abi[66] = 'o';
	/* longer than the caller's room */
	assert_false(sl_evm_abi_string(abi, sizeof abi, out, 10));
	/* bytes32, as old tokens answer */
	uint8_t b32[32] = { 'M', 'K', 'R' };
	assert_true(sl_evm_abi_string(b32, 32, out, sizeof out));
	assert_string_equal(out, "MKR");
	b32[20] = 'x'; /* bytes after the first zero */
	assert_false(sl_evm_abi_string(b32, 32, out, sizeof out));
	assert_false(sl_evm_abi_string(abi, 0, out, sizeof out));
	/* decimals */
	unsigned d;
	uint8_t w[32] = { 0 };
	w[31] = 18;
	assert_true(sl_evm_abi_uint8(w, 32, &d));
	assert_int_equal(d, 18);
	w[30] = 1;
	assert_false(sl_evm_abi_uint8(w, 32, &d));
	assert_false(sl_evm_abi_uint8(w, 31, &d));
}

/* ---- JSON-RPC answers ---- */

static const char BLOCK[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"number\":\"0x5\",\"hash\":\"0x" EVMH32(
	"11") "\","
	      "\"parentHash\":\"0x" EVMH32("22") "\",\"timestamp\":\"0x6553f100\",\"miner\":\"0x" EVMH20(
		      "00") "\","
			    "\"gasLimit\":\"0x1c9c380\",\"gasUsed\":\"0x5208\",\"baseFeePerGas\":\"0x3b9aca00\",\"size\":\"0x2dd\","
			    "\"transactions\":[{\"hash\":\"0x" EVMH32("aa") "\",\"from\":\"0x" EVMH20(
				    "01") "\",\"to\":null,"
					  "\"value\":\"0x0\",\"nonce\":\"0x0\",\"gas\":\"0x4c4b40\",\"input\":\"0x6001\",\"type\":\"0x2\","
					  "\"maxFeePerGas\":\"0x77359400\",\"maxPriorityFeePerGas\":\"0x3b9aca00\",\"gasPrice\":\"0x77359400\","
					  "\"transactionIndex\":\"0x0\"}]}}";

static sl_span result_of(const char *body)
{
	sl_span r;
	int64_t code;
	char err[256];
	assert_int_equal(evm_rpc_result((const uint8_t *)body, strlen(body), &r, &code, err), SL_OK);
	return r;
}

static void test_rpc_block(void **state)
{
	(void)state;
	evm_block b;
	char err[256];
	evm_block_init(&b);
	assert_int_equal(evm_parse_block(result_of(BLOCK), &b, err), SL_OK);
	assert_int_equal(b.number, 5);
	assert_int_equal(b.ts, 0x6553f100);
	assert_int_equal(b.ntx, 1);
	assert_false(b.txs[0].has_to);
	assert_int_equal(b.txs[0].input_len, 2);
	assert_int_equal(b.txs[0].type, 2);
	assert_true(b.has_base_fee);
	/* a receipt: the creation made a contract; a log with its topics */
	const char *receipts = "{\"result\":[{\"transactionIndex\":\"0x0\",\"transactionHash\":\"0x" EVMH32(
		"aa") "\","
		      "\"status\":\"0x1\",\"gasUsed\":\"0x5208\",\"effectiveGasPrice\":\"0x77359400\","
		      "\"contractAddress\":\"0x" EVMH20("cc") "\",\"logs\":[{\"logIndex\":\"0x0\",\"address\":\"0x" EVMH20(
			      "cc") "\",\"topics\":[\"0x" EVMH32("33") "\"],\"data\":\"0x\",\"transactionIndex\":\"0x0\"}]}]}";
	assert_int_equal(evm_parse_receipts(result_of(receipts), &b, err), SL_OK);
	assert_true(b.txs[0].has_created);
	assert_int_equal(b.nlogs, 1);
	assert_int_equal(b.logs[0].ntopics, 1);
	/* twice: the same tx's receipt again is refused */
	assert_int_equal(evm_parse_receipts(result_of(receipts), &b, err), SL_ERR_INVALID);
	/* traces: a CREATE under the top frame, a DELEGATECALL (no value), a reverted CALL whose
	 * CREATE under it made nothing */
	const char *traces = "{\"result\":[{\"txHash\":\"0x" EVMH32("aa") "\",\"result\":{\"type\":\"CREATE\",\"from\":\"0x" EVMH20("01") "\",\"to\":\"0x" EVMH20(
		"cc") "\",\"value\":\"0x0\",\"gas\":\"0x10\",\"gasUsed\":\"0x8\","
		      "\"calls\":[{\"type\":\"CREATE2\",\"from\":\"0x" EVMH20("cc") "\",\"to\":\"0x" EVMH20(
			      "dd") "\",\"value\":\"0x5\",\"gas\":\"0x4\",\"gasUsed\":\"0x2\"},"
				    "{\"type\":\"DELEGATECALL\",\"from\":\"0x" EVMH20("cc") "\",\"to\":\"0x" EVMH20(
					    "ee") "\",\"value\":\"0x5\",\"gas\":\"0x4\",\"gasUsed\":\"0x2\"},"
						  "{\"type\":\"CALL\",\"from\":\"0x" EVMH20("cc") "\",\"to\":\"0x" EVMH20(
							  "ee") "\",\"value\":\"0x1\",\"gas\":\"0x4\",\"gasUsed\":\"0x2\",\"error\":\"execution reverted\","
								"\"calls\":[{\"type\":\"CREATE\",\"from\":\"0x" EVMH20(
									"ee") "\",\"to\":\"0x" EVMH20("ff") "\",\"value\":\"0x0\",\"gas\":\"0x1\",\"gasUsed\":\"0x1\"}]}]}}]}";
	assert_int_equal(evm_parse_traces(result_of(traces), &b, err), SL_OK);
	assert_int_equal(b.nframes, 4);
	assert_string_equal(b.frames[0].kind, "CREATE2");
	assert_true(b.frames[0].created);
	assert_int_equal(b.frames[0].depth, 1);
	assert_true(b.frames[0].has_value);
	assert_string_equal(b.frames[1].kind, "DELEGATECALL");
	assert_false(b.frames[1].has_value);
	assert_true(b.frames[2].reverted);
	assert_true(b.frames[3].reverted); /* under a reverted frame */
	assert_false(b.frames[3].created);
	assert_int_equal(b.frames[3].depth, 2);
	assert_int_equal(b.frames[3].n, 3);
	evm_block_free(&b);
}

static void test_rpc_refusals(void **state)
{
	(void)state;
	char err[256];
	sl_span r;
	int64_t code;
	const char *e =
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}";
	assert_int_equal(evm_rpc_result((const uint8_t *)e, strlen(e), &r, &code, err), SL_ERR_UNSUPPORTED);
	assert_int_equal(code, -32601);
	assert_int_equal(evm_rpc_result((const uint8_t *)"{\"x\":1}", 7, &r, &code, err), SL_ERR_INVALID);
	assert_int_equal(evm_rpc_result((const uint8_t *)"[", 1, &r, &code, err), SL_ERR_INVALID);
	/* quantities */
	uint64_t q;
	uint8_t w[32];
	assert_true(evm_quantity(sl_span_str("\"0x0\""), &q) && q == 0);
	assert_true(evm_quantity(sl_span_str("\"0xffffffffffffffff\""), &q) && q == UINT64_MAX);
	assert_false(evm_quantity(sl_span_str("\"0x10000000000000000\""), &q));
	assert_false(evm_quantity(sl_span_str("\"0x\""), &q));
	assert_false(evm_quantity(sl_span_str("\"12\""), &q));
	assert_false(evm_quantity(sl_span_str("12"), &q));
	assert_true(evm_quantity256(sl_span_str("\"0x1ff\""), w) && w[31] == 0xff && w[30] == 1);
	assert_false(evm_quantity256(sl_span_str("\"0x1" EVMH32("00") "\""), w));
	/* trace nesting past the bound */
	evm_block b;
	evm_block_init(&b);
	assert_int_equal(evm_parse_block(result_of(BLOCK), &b, err), SL_OK);
	sl_buf deep;
	sl_buf_init(&deep, 1u << 24);
	sl_buf_adds(&deep, "[{\"result\":");
	for (int i = 0; i < SL_EVM_MAX_TRACE_DEPTH + 2; i++)
		sl_buf_adds(&deep, "{\"type\":\"CALL\",\"from\":\"0x" EVMH20("01") "\",\"calls\":[");
	for (int i = 0; i < SL_EVM_MAX_TRACE_DEPTH + 2; i++)
		sl_buf_adds(&deep, "]}");
	sl_buf_adds(&deep, "}]");
	assert_int_equal(evm_parse_traces(sl_span_of(deep.p, deep.len), &b, err), SL_ERR_INVALID);
	sl_buf_release(&deep);
	/* a block whose tx is not an object */
	evm_block_free(&b);
	evm_block_init(&b);
	const char *hashes =
		"{\"result\":{\"number\":\"0x1\",\"hash\":\"0x" EVMH32("11") "\",\"parentHash\":\"0x" EVMH32(
			"22") "\",\"timestamp\":\"0x1\",\"miner\":\"0x" EVMH20("00") "\",\"gasLimit\":\"0x1\",\"gasUsed\":\"0x1\","
										     "\"transactions\":[\"0x" EVMH32(
											     "aa") "\"]}}";
	assert_int_equal(evm_parse_block(result_of(hashes), &b, err), SL_ERR_INVALID);
	evm_block_free(&b);
}

static void test_chain_spec(void **state)
{
	(void)state;
	sl_evm_chain_config c;
	char err[256];
	assert_int_equal(
		sl_evm_chain_parse(
			"id=43114,rpc=http://h:9650/ext/bc/C/rpc/,name=C-Chain,symbol=AVAX,"
			"token=Avalanche,network=mainnet,blockchain=2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5,"
			"icm=0x253b2784c75e510dD0fF1da844684a1aC0aa5fcf",
			&c, err),
		SL_OK);
	assert_int_equal(c.id, 43114);
	assert_string_equal(c.rpc, "http://h:9650/ext/bc/C/rpc");
	assert_false(c.testnet);
	assert_true(c.has_blockchain && c.has_icm);
	expect_hex(c.blockchain, 4, "0427d4b2");
	assert_int_equal(c.decimals, 18);
	assert_int_equal(sl_evm_chain_parse("id=1,rpc=http://x", &c, err), SL_OK);
	assert_true(c.testnet); /* a local chain */
	assert_string_equal(c.network, "local");
	/* testnet is fuji's other name, as in the API's filter */
	assert_int_equal(sl_evm_chain_parse("id=1,rpc=http://x,network=testnet", &c, err), SL_OK);
	assert_string_equal(c.network, "fuji");
	assert_true(c.testnet);
	assert_int_equal(sl_evm_chain_parse("id=1,rpc=http://x,network=mainnet,testnet=1", &c, err), SL_OK);
	assert_true(c.testnet);
	const char *bad[] = { "rpc=http://x", "id=0,rpc=http://x", "id=-1,rpc=http://x", "id=1",
			      "id=1,rpc=http://x,x=1", "id=1,rpc=http://x,decimals=100",
			      "id=1,rpc=http://x,icm=0x253b",
			      "id=1,rpc=http://x,icm=0x253b2784c75e510dD0fF1da844684a1aC0aa5fcf", "id=1,rpc",
			      "id=1,rpc=http://x,testnet=2",
			      /* a network no filter names would never be listed by one */
			      "id=1,rpc=http://x,network=Mainnet", "id=1,rpc=http://x,network=devnet",
			      "id=1,rpc=http://x,network=" };
	for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++)
		assert_int_equal(sl_evm_chain_parse(bad[i], &c, err), SL_ERR_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topics),	      cmocka_unit_test(test_icm_send),
		cmocka_unit_test(test_icm_receive),   cmocka_unit_test(test_transfers),
		cmocka_unit_test(test_token_answers), cmocka_unit_test(test_rpc_block),
		cmocka_unit_test(test_rpc_refusals),  cmocka_unit_test(test_chain_spec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
