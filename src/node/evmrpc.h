/*
 * evmrpc.h — the C-chain's eth JSON-RPC (`/ext/bc/C/rpc`), answered from the
 * C/block containers the node holds (docs/node.md, "The C-chain's eth
 * JSON-RPC").
 *
 * The framing is coreth's (go-ethereum's rpc package), not the json2 framing
 * of the node's other services: methods are `namespace_method`, params are
 * positional, batches are allowed, and errors carry geth's codes (-32700,
 * -32600, -32601, -32602, -32000) and texts.
 *
 * The parsers below read one param (a span that sl_json_scan() validated) with
 * geth's rules for its Go type, and on failure write geth's text for it into
 * err (without the "invalid argument N: " prefix the framing adds). They are
 * exposed for the fuzz target and the unit test.
 */
#ifndef SL_NODE_EVMRPC_H
#define SL_NODE_EVMRPC_H

#include "util/arena.h"
#include "util/buf.h"

#define SL_EVM_ERR 192 /* room for any parser's message */

/* rpc.BlockNumber's tags, as geth numbers them; numbers are >= 0. */
enum {
	SL_EVM_PENDING = -1,
	SL_EVM_LATEST = -2,
	SL_EVM_FINALIZED = -3,
	SL_EVM_SAFE = -4,
};

/* rpc.BlockNumberOrHash (and rpc.BlockNumber: by_hash false). */
typedef struct sl_evm_blockref {
	bool by_hash;
	uint8_t hash[32];
	int64_t number; /* >= 0, or a tag above ("earliest" is 0) */
} sl_evm_blockref;

/* hexutil.DecodeUint64 of the text s[0..n). */
SL_MUST_USE bool sl_evm_parse_quantity(const char *s, size_t n, uint64_t *out, const char **err);
/* rpc.BlockNumber from a JSON value. */
SL_MUST_USE bool sl_evm_parse_blocknum(sl_span raw, sl_evm_blockref *out, char err[SL_EVM_ERR]);
/* rpc.BlockNumberOrHash: a tag, a hex number, a 32-byte hash, or {blockNumber|blockHash}. */
SL_MUST_USE bool sl_evm_parse_blockref(sl_span raw, sl_evm_blockref *out, char err[SL_EVM_ERR]);
/* A fixed-size hex value (common.Address: n 20, common.Hash: n 32); type is Go's name for it. */
SL_MUST_USE bool sl_evm_parse_fixed(sl_span raw, uint8_t *out, size_t n, const char *type,
				    char err[SL_EVM_ERR]);
/* A JSON bool. */
SL_MUST_USE bool sl_evm_parse_bool(sl_span raw, bool *out, char err[SL_EVM_ERR]);

/* filters.FilterCriteria, bounded: SL_EVM_MAX_FILTER_ADDRS addresses, 4 topic positions of as many. */
typedef struct sl_evm_filter {
	bool has_hash;
	uint8_t hash[32];
	bool has_from, has_to;
	sl_evm_blockref from, to;
	size_t naddrs;
	uint8_t (*addrs)[20];
	size_t ntopics; /* positions given */
	size_t nsub[4]; /* alternatives per position (0: any) */
	uint8_t (*sub[4])[32];
} sl_evm_filter;
SL_MUST_USE bool sl_evm_parse_filter(sl_span raw, sl_arena *a, sl_evm_filter *out, char err[SL_EVM_ERR]);

/*
 * The C-chain genesis a source gives (sl_feed_evm_genesis), parsed: every
 * length is checked against what remains and SL_EVM_MAX_ALLOC.
 *
 *   "SLEVMG01" | chainId u64 | ap5Time u64 | headerLen u32 | header (RLP) |
 *   n u32 | n × (address [20] | balance [32] | nonce u64)      (big-endian)
 */
typedef struct sl_evm_genesis {
	uint64_t chain_id, ap5_time;
	sl_span header;
	uint32_t nalloc;
	const uint8_t *alloc; /* nalloc records of 60 bytes */
} sl_evm_genesis;
#define SL_EVM_ALLOC_RECORD 60
SL_MUST_USE bool sl_evm_genesis_parse(const uint8_t *p, size_t len, sl_evm_genesis *out);

#endif
