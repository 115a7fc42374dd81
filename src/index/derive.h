/*
 * derive.h — from a container of one of the node's five indexes to the rows
 * of rows.h. For src/index/ only.
 *
 * Derivation is a function of the containers alone, with two exceptions
 * that are functions of the chain's history and so the same for every
 * reader: the decision tx of a P-chain proposal block takes effect with the
 * option block that follows it (Commit or Abort), and a committed
 * RewardValidatorTx pays the reward UTXOs the node reports
 * (platform.getRewardUTXOs). The first needs the previous P-chain block:
 * ix_pstate carries it from one container to the next (and is rebuilt from
 * the node when the indexer starts in the middle of the chain).
 *
 * UTXO numbering (which index an output gets) follows avalanchego:
 *   P   base outs 0..n-1; an export's outs n+j (in the destination's shared
 *       memory); a staking tx's stake outs n+j (returned at the end of the
 *       period under the same id); reward UTXOs as the node reports them
 *   X   base outs 0..n-1; then an export's outs, or CreateAssetTx's initial
 *       state outputs in order, or OperationTx's operation outputs in order
 *   C   an atomic export's outs 0..m-1 (coreth numbers them from 0)
 */
#ifndef SL_INDEX_DERIVE_H
#define SL_INDEX_DERIVE_H

#include "http/indexapi.h"
#include "index/rows.h"

typedef struct ix_net {
	uint32_t network_id;
	uint8_t chain_id[3][32]; /* P (zero), X, C */
	uint8_t avax[32];
	char hrp[16];
} ix_net;

/* The reward UTXOs of a staking tx (UTXO bytes), into the batch's arena; from the node. */
typedef sl_err (*ix_rewards_fn)(void *ctx, const uint8_t staking_tx[32], ix_batch *b, sl_span **utxos,
				uint32_t *n);

/* What the P-chain derivation carries from one block to the next. */
typedef struct ix_pstate {
	bool pending;	   /* the last block was a proposal block whose decision tx awaits its option */
	uint8_t block[32]; /* its id */
	uint64_t height;
	int64_t ts;
	uint32_t pos; /* the decision tx's position in it */
	uint8_t *tx;  /* the decision tx's bytes (no codec version), owned */
	size_t tx_len;
} ix_pstate;

typedef struct ix_ctx {
	const ix_net *net;
	ix_rewards_fn rewards;
	void *rewards_ctx;
	ix_pstate *p; /* for P/block */
} ix_ctx;

/* Derive the rows of one container (c->bytes must live as long as the batch). On failure err
 * says what could not be decoded and where. */
SL_MUST_USE sl_err ix_derive(ix_batch *b, const ix_ctx *ctx, const sl_ixitem *c, char err[256]);

void ix_pstate_release(ix_pstate *p);

#endif
