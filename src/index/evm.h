/*
 * evm.h — the EVM indexer: reads configured EVM chains over JSON-RPC (the
 * C-chain of avalanchego, a Subnet-EVM L1, anvil, any Ethereum-compatible
 * node) into the store's EVM tables (schema v10; docs/evm.md).
 *
 * One thread per chain: it reads eth_blockNumber, then each block from the
 * chain's cursor with its txs (eth_getBlockByNumber with full txs), their
 * receipts (eth_getBlockReceipts where the node has it, else
 * eth_getTransactionReceipt per tx) and, where the node has it, its call
 * frames (debug_traceBlockByNumber with the callTracer); it derives txs,
 * logs, token transfers, internal txs, contract creations, tokens (their
 * name, symbol and decimals asked with eth_call at the block that first
 * shows them) and the ICM messenger's messages, and writes a batch of blocks
 * in one SQL transaction with the chain's cursor (evm_cursors): a kill -9 at
 * any moment loses at most the batch in flight.
 */
#ifndef SL_INDEX_EVM_H
#define SL_INDEX_EVM_H

#include <signal.h>

#include "index/index.h"
#include "store/sql.h"

/* One chain as configured (`--evm-chain 'id=…,rpc=…,…'`). Strings are NUL-terminated copies. */
typedef struct sl_evm_chain_config {
	uint64_t id; /* the EVM chain id */
	char rpc[512], ws[512], explorer[512], name[128], description[256], logo[512];
	char symbol[32], token[64], token_logo[512], network[32];
	unsigned decimals;
	bool testnet;
	bool has_blockchain, has_subnet, has_icm;
	uint8_t blockchain[32], subnet[32], icm[20];
} sl_evm_chain_config;

/*
 * Parse `key=value,key=value,…`: id and rpc are required; name (default "EVM <id>"), symbol
 * (ETH), token (the symbol), decimals (18), network (local), testnet (0/1; default 1 unless
 * network is mainnet), blockchain and subnet (cb58 or 0x hex), icm (0x address of the
 * messenger; needs blockchain), explorer, ws, logo, description, token-logo.
 */
SL_MUST_USE sl_err sl_evm_chain_parse(const char *spec, sl_evm_chain_config *c, char err[256]);

typedef struct sl_evm_config {
	const char *store_url;
	sl_db_mode mode; /* SL_DB_WRITE alone; SL_DB_LOAD beside the primary-network indexer */
	const sl_evm_chain_config *chains;
	size_t nchains;
	unsigned poll_ms;	    /* how often a caught-up chain asks again (0: 250) */
	unsigned batch;		    /* blocks per transaction at most (0: 100) */
	bool no_trace;		    /* never ask for debug_traceBlockByNumber */
	sl_index_progress progress; /* OFF: no lines; else a log line per chain every 5 s while catching up */
} sl_evm_config;

typedef struct sl_evm_indexer sl_evm_indexer;

/* Open the store, write the chains' evm_chains rows; NULL with err. */
sl_evm_indexer *sl_evm_new(const sl_evm_config *cfg, char err[512]);
/* Start a thread per chain; they run until *stop (or sl_evm_free). */
SL_MUST_USE sl_err sl_evm_start(sl_evm_indexer *ix, volatile sig_atomic_t *stop);
/* Every chain failed for good (their threads ended: the log says why) / at least one did. */
bool sl_evm_failed(const sl_evm_indexer *ix);
bool sl_evm_any_failed(const sl_evm_indexer *ix);
/* Stop the threads (after the batch being written) and free. */
void sl_evm_free(sl_evm_indexer *ix);

#endif
