/*
 * write.h — a batch of rows (rows.h) into the SQL store, with the cursor of
 * its index, in one transaction (or several batches in one): a crash at any
 * moment loses a batch and its cursor together, and the indexer applies it
 * again. For src/index/ only.
 */
#ifndef SL_INDEX_WRITE_H
#define SL_INDEX_WRITE_H

#include "codec/l1.h"
#include "index/memo.h"
#include "index/rows.h"
#include "store/sql.h"

/* What applying the P-chain's state needs besides the rows: the network's rules. */
typedef struct ix_rules {
	const uint8_t *avax; /* [32] the asset of L1 balance refunds */
	bool has_l1_fee;     /* the L1 validator fee is known (else an L1 validator fails its batch) */
	sl_l1_fee_config l1_fee;
	int64_t etna; /* when fees start to accrue; 0: unknown (from the first L1 validator on) */
} ix_rules;

/*
 * Apply n batches in one transaction, in their order, each with its index's cursor (b->next):
 * all or nothing; sl_conn_error(c) says why. Fewer, larger commits while catching up, where
 * most of a commit's cost is the pages it rewrites. m: the writer's memory of UTXOs (memo.h),
 * the same one for every write to this store; forgotten when a write fails.
 */
SL_MUST_USE sl_err ix_write_many(sl_conn *c, const ix_rules *r, ix_memo *m, ix_batch *const *v, size_t n);
/* The rows of a genesis batch and the genesis file's hash (meta 'genesis'), in one transaction;
 * the cursors stay as they are. */
SL_MUST_USE sl_err ix_write_genesis(sl_conn *c, const ix_rules *r, ix_memo *m, ix_batch *b,
				    const uint8_t hash[32]);

#endif
