/*
 * rows.h — what the indexer derives from containers, before it is SQL: the
 * rows of one batch, for src/index/ only.
 *
 * derive.c turns decoded containers into these records (a pure function of
 * the containers, plus the reward UTXOs the node reports for a staking tx);
 * write.c turns a batch of them into statements of the schema
 * (store/schema.c), in one transaction with the index's cursor.
 *
 * Memory: a batch owns an arena and the bytes of its containers; every
 * pointer in a record points into one of them and lives until
 * ix_batch_release().
 */
#ifndef SL_INDEX_ROWS_H
#define SL_INDEX_ROWS_H

#include "store/containers.h"
#include "util/arena.h"
#include "util/buf.h"

/* Chains, and the address spaces of the activity table. */
enum { IX_P = 0, IX_X = 1, IX_C = 2, IX_CEVM = 3 };

/* A tx's place in its chain (schema.c): block txs by height and position; X-chain block
 * txs after every DAG-era X tx, which are ordered by their X/tx index position. */
#define IX_SEQ_BLOCK(height, pos) ((uint64_t)(height) << 20 | (uint64_t)(pos))
#define IX_SEQ_LINEAR ((uint64_t)1 << 62)
#define IX_MAX_BLOCK_TXS (1u << 20)

/* reward types of reward UTXOs (utxos.reward) */
enum { IX_REWARD_NONE = 0, IX_REWARD_VALIDATOR = 1, IX_REWARD_DELEGATOR = 2, IX_REWARD_VALIDATOR_FEE = 3 };

/* Where a tx sits: its chain, block (none for DAG-era X txs), time and order. */
typedef struct ix_where {
	uint8_t chain;
	bool in_block;
	uint64_t height;
	/* P: the height from which what it changes holds (a proposal block's changes, its time's
	 * and its txs', are written with its option block, one higher, as avalanchego does) */
	uint64_t effective;
	const uint8_t *block; /* [32] */
	int64_t ts;
	uint64_t seq;
	uint32_t type; /* the tx's codec type id */
} ix_where;

typedef struct ix_block {
	uint8_t chain;
	uint64_t height;
	const uint8_t *hash, *parent; /* [32] */
	int64_t ts;
	uint32_t type, size, ntx;
	const uint8_t *txs; /* ntx * 32 */
	bool wrapped;
	const uint8_t *vm_id, *vm_parent; /* proposervm, when wrapped */
	bool has_proposer;
	uint8_t proposer[20];
	uint64_t vm_height;
	int64_t vm_ts;
	uint64_t ipos;
} ix_block;

typedef struct ix_tx {
	ix_where at;
	const uint8_t *id;
	sl_span bytes; /* with codec version */
} ix_tx;

/* A UTXO made by a tx. pos: the seq of the tx its id names (tx): the creating tx's own, but the
 * staking tx's for the rewards a RewardValidatorTx pays, 0 for the genesis (schema.c v11). */
typedef struct ix_out {
	uint8_t id[32];
	const uint8_t *tx;
	uint32_t idx;
	uint64_t pos;
	uint8_t dest; /* the chain it is spent on */
	ix_where at;  /* the creating tx */
	const uint8_t *asset;
	uint64_t amount;
	uint32_t otype;
	uint64_t locktime, stake_lock;
	uint32_t threshold, naddrs;
	const uint8_t *addrs; /* naddrs * 20 */
	uint32_t group_id;
	sl_span payload;
	bool staked;
	uint64_t stake_start, stake_end;
	int reward;
} ix_out;

/* A UTXO spent by a tx: input `in` of it. src_tx: the tx the UTXO's id names (its txID). */
typedef struct ix_spend {
	uint8_t id[32];
	ix_where at;
	const uint8_t *tx, *src_tx;
	uint32_t in;
} ix_spend;

/* An address took part in a tx (besides owning what it spends: write.c derives that). */
typedef struct ix_act {
	uint8_t space;
	const uint8_t *addr; /* [20] */
	uint64_t seq;
	int64_t ts;
	uint32_t type;
} ix_act;

typedef struct ix_vertex {
	uint64_t ipos, height;
	const uint8_t *hash; /* [32] */
	int64_t ts;
	uint32_t nparents, ntx, size;
	const uint8_t *parents, *txs; /* * 32 */
} ix_vertex;

typedef struct ix_asset {
	const uint8_t *id;
	sl_span name, symbol;
	uint8_t denomination, type, cap;
	int64_t ts;
} ix_asset;

typedef struct ix_asset_tx {
	const uint8_t *asset;
	uint64_t seq;
	int64_t ts;
	uint32_t type;
} ix_asset_tx;

/* An owner as one blob: threshold u32 | locktime u64 | addresses (schema.c stakers). */
typedef struct ix_staker {
	const uint8_t *tx;
	uint64_t seq;
	uint32_t type;
	const uint8_t *node;   /* [20] */
	const uint8_t *subnet; /* [32] */
	uint64_t start, end, weight;
	bool has_fee;
	uint32_t fee;
	uint32_t nouts, nstake;
	sl_span rewards_owner, delegation_owner;
	const uint8_t *bls_key, *bls_pop;
	int64_t accepted_ts;
} ix_staker;

/* A staking period ended: the RewardValidatorTx (committed or aborted) and what it paid. */
typedef struct ix_stake_end {
	const uint8_t *staking_tx, *end_tx;
	ix_where at;
	bool committed;
	uint32_t nrewards;
	sl_span *rewards; /* UTXO bytes (with codec version), as platform.getRewardUTXOs gives them */
} ix_stake_end;

/*
 * The P-chain's state beyond UTXOs, as a list of changes in chain order:
 * write.c applies them one after the other against the store, because some
 * depend on what came before (an L1 validator's balance on the fees accrued
 * since it was paid for; a removal refunds what is left of it).
 */
typedef enum ix_pe_kind {
	IX_PE_TIME,	  /* a Banff block advances the chain's time to at.ts (fees accrue) */
	IX_PE_BLOCK_END,  /* the state after block at.height, written to its row */
	IX_PE_SUBNET,	  /* CreateSubnetTx: id, owner */
	IX_PE_OWNER,	  /* TransferSubnetOwnershipTx: subnet, owner */
	IX_PE_CHAIN,	  /* CreateChainTx: id, subnet, name, vm, genesis */
	IX_PE_CONVERT,	  /* ConvertSubnetToL1Tx: id (the tx), subnet, manager chain and address */
	IX_PE_L1_ADD,	  /* a validator of a conversion or RegisterL1ValidatorTx */
	IX_PE_L1_WEIGHT,  /* SetL1ValidatorWeightTx: vid, nonce, weight (0: removed, refund at nouts) */
	IX_PE_L1_BALANCE, /* IncreaseL1ValidatorBalanceTx: vid, amount */
	IX_PE_L1_DISABLE, /* DisableL1ValidatorTx: vid (refund at nouts) */
	IX_PE_STAKER,	  /* a staker accepted: id (its tx), subnet, node, weight, start, end, bls_key */
	IX_PE_REWARD,	  /* a RewardValidatorTx: id (the staking tx), committed */
	IX_PE_REMOVE,	  /* RemoveSubnetValidatorTx: id (the tx), subnet, node */
} ix_pe_kind;

typedef struct ix_pevent {
	ix_pe_kind kind;
	ix_where at;	   /* the tx, or the block */
	const uint8_t *id; /* [32] subnet, chain or tx id; L1 events: the validation id */
	const uint8_t *tx; /* [32] the tx (L1 events) */
	const uint8_t *subnet, *vm, *manager_chain, *bls_key; /* [32], [32], [32], [48] */
	sl_span owner,
		owner2; /* owner blobs (ix_staker): subnet owner; L1: remaining balance, deactivation */
	sl_span name, genesis, node, manager_addr;
	uint64_t weight, amount, nonce;
	uint64_t start, end;
	uint32_t nouts;
	bool committed;
} ix_pevent;

/* A P-chain tx about an L1 validation (l1_txs). */
typedef struct ix_l1_tx {
	const uint8_t *vid;
	uint64_t seq;
	int64_t ts;
	uint32_t type;
} ix_l1_tx;

#define IX_VEC(T)              \
	struct {               \
		T *v;          \
		size_t n, cap; \
	}

typedef struct ix_batch {
	sl_ikind kind;
	uint64_t first, next; /* the containers [first, next) of the index */
	uint8_t last_id[32];  /* of container next - 1 */
	uint64_t txs_total;   /* txs in the batch, for progress */
	sl_arena arena;
	sl_buf data; /* the containers' bytes */
	IX_VEC(ix_block) blocks;
	IX_VEC(ix_tx) txs;
	IX_VEC(ix_out) outs;
	IX_VEC(ix_spend) spends;
	IX_VEC(ix_act) acts;
	IX_VEC(ix_vertex) vertices;
	IX_VEC(ix_asset) assets;
	IX_VEC(ix_asset_tx) asset_txs;
	IX_VEC(ix_staker) stakers;
	IX_VEC(ix_stake_end) stake_ends;
	IX_VEC(ix_pevent) pevents;
	IX_VEC(ix_l1_tx) l1_txs;
	sl_err err; /* sticky: out of memory while adding */
} ix_batch;

void ix_batch_init(ix_batch *b, sl_ikind kind);
void ix_batch_release(ix_batch *b);
/* Empty it for the next batch of its index, keeping the memory of its vectors and bytes. */
void ix_batch_clear(ix_batch *b);
/* Append a zeroed record to a vector of the batch; NULL (and b->err) when out of memory. */
void *ix_vec_push(ix_batch *b, void *vec, size_t elem);
#define IX_PUSH(b, vec) ((__typeof__((vec).v))ix_vec_push((b), &(vec), sizeof *(vec).v))

#endif
