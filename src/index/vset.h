/*
 * vset.h — the validator sets by P-chain height, as the P-chain's changes
 * are applied (the vset table, store/schema.c version 7); for src/index/
 * only: write.c calls these inside a batch's transaction, in chain order.
 *
 * What avalanchego's validators.Manager holds at a height, for the primary
 * network, each subnet and each L1: a node's weight is its validation's plus
 * its current delegators'; its key is its validation's BLS key (a
 * permissioned subnet validator's, its primary validation's); an L1's
 * inactive validators count together under the empty node id. A change
 * holds from `height` on: the height of the block that makes it, or of the
 * option block after a proposal (ix_where.effective).
 */
#ifndef SL_INDEX_VSET_H
#define SL_INDEX_VSET_H

#include "store/sql.h"

extern const uint8_t ix_vset_primary[32]; /* the primary network's subnet id: zeros */
extern const uint8_t ix_vset_empty[20];	  /* the empty node id: an L1's inactive weight */

/* The P-chain is read from its start: forget the sets, and begin again from the genesis
 * validators (stakers of seq 0) at height 0. */
SL_MUST_USE sl_err ix_vset_restart(sl_conn *c);

/*
 * Weight added to (or, sub, taken from) a node of a subnet from `height` on. key_set: the
 * node's key becomes `key` (48 bytes, or NULL: none); else it keeps the one it has. Taking
 * more than a node has fails the batch: the store and the chain disagree.
 */
SL_MUST_USE sl_err ix_vset_change(sl_conn *c, const uint8_t subnet[32], const uint8_t node[20],
				  uint64_t height, bool sub, uint64_t weight, bool key_set,
				  const uint8_t *key);

/* A staker (stakers row `tx`) joins its set, or leaves it; each once (stakers.vin, vout; one that
 * leaves before it joined, a pending one removed, never joins). */
SL_MUST_USE sl_err ix_vset_join(sl_conn *c, const uint8_t tx[32], uint64_t height);
SL_MUST_USE sl_err ix_vset_leave(sl_conn *c, const uint8_t tx[32], uint64_t height);

/* Chain time reaches t at `height`: pending stakers whose start has come join, in the chain's
 * pending order; permissioned subnet validators whose end has come leave. */
SL_MUST_USE sl_err ix_vset_time(sl_conn *c, int64_t t, uint64_t height);

#endif
