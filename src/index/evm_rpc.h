/*
 * evm_rpc.h — an EVM node's JSON-RPC answers, decoded for the EVM indexer
 * (evm.h): a block with its txs (eth_getBlockByNumber with full txs), its
 * receipts (eth_getBlockReceipts, or eth_getTransactionReceipt one by one)
 * with their logs, and its callTracer frames (debug_traceBlockByNumber).
 *
 * Everything from the node is bounded (util/limits.h: SL_EVM_*): counts of
 * txs, logs and frames, trace depth, byte strings. Decoded bytes live in the
 * block's arena; the arrays are the block's own (evm_block_free).
 */
#ifndef SL_INDEX_EVM_RPC_H
#define SL_INDEX_EVM_RPC_H

#include "util/arena.h"
#include "util/buf.h"

typedef struct evm_tx {
	uint8_t hash[32], from[20], to[20], value[32];
	bool has_to;
	uint64_t nonce, type, gas;
	uint8_t gas_price[32], max_fee[32], max_prio[32];
	bool has_gas_price, has_max_fee, has_max_prio;
	const uint8_t *input;
	size_t input_len;
	/* from the receipt */
	bool has_receipt;
	int status;
	uint64_t gas_used;
	uint8_t effective_price[32];
	uint8_t created[20];
	bool has_created;
} evm_tx;

typedef struct evm_log {
	uint32_t log_idx, tx_idx;
	uint8_t address[20];
	uint8_t topics[4 * 32];
	uint32_t ntopics;
	const uint8_t *data;
	size_t len;
} evm_log;

/* A call frame below a tx's top frame, in depth-first order (n counts per tx from 0). */
typedef struct evm_frame {
	uint32_t tx_idx, n, depth; /* depth 1: called by the top frame */
	char kind[16];		   /* CALL, STATICCALL, DELEGATECALL, CREATE, CREATE2, SELFDESTRUCT, … */
	uint8_t from[20], to[20], value[32];
	bool has_to, has_value;
	uint64_t gas, gas_used;
	bool reverted; /* the frame has an error */
	bool created;  /* a CREATE/CREATE2 that neither it nor a frame above it (the top one too) reverted */
} evm_frame;

typedef struct evm_block {
	uint64_t number, ts, gas_limit, gas_used, size;
	uint8_t hash[32], parent[32], miner[20], base_fee[32];
	bool has_base_fee;
	evm_tx *txs;
	uint32_t ntx;
	evm_log *logs;
	uint32_t nlogs, cap_logs;
	evm_frame *frames;
	uint32_t nframes, cap_frames;
	bool traced; /* the frames are known (the node traced the block) */
	sl_arena arena;
} evm_block;

void evm_block_init(evm_block *b);
void evm_block_free(evm_block *b);

/*
 * A JSON-RPC answer's result. SL_ERR_INVALID: not JSON, or neither a result nor an error;
 * SL_ERR_UNSUPPORTED: the node answered an error (*code, err has its message).
 */
SL_MUST_USE sl_err evm_rpc_result(const uint8_t *body, size_t len, sl_span *result, int64_t *code,
				  char err[256]);

/* eth_getBlockByNumber(n, true)'s result (null: SL_ERR_NOT_FOUND). */
SL_MUST_USE sl_err evm_parse_block(sl_span result, evm_block *b, char err[256]);
/* One receipt (eth_getTransactionReceipt) or an array of them (eth_getBlockReceipts) of b's txs. */
SL_MUST_USE sl_err evm_parse_receipt(sl_span result, evm_block *b, char err[256]);
SL_MUST_USE sl_err evm_parse_receipts(sl_span result, evm_block *b, char err[256]);
/* Every tx has its receipt (after the calls above). */
SL_MUST_USE sl_err evm_check_receipts(const evm_block *b, char err[256]);
/* debug_traceBlockByNumber(n, {tracer: "callTracer"})'s result: [{txHash, result: frame}] in tx order. */
SL_MUST_USE sl_err evm_parse_traces(sl_span result, evm_block *b, char err[256]);

/* A hex quantity ("0x1f") as a u64 / as a 32-byte big-endian number; "0x…" bytes of any length. */
bool evm_quantity(sl_span v, uint64_t *out);
bool evm_quantity256(sl_span v, uint8_t out[32]);
bool evm_fixed(sl_span v, uint8_t *out, size_t n);

#endif
