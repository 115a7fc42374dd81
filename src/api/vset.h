/*
 * vset.h — the validator sets by P-chain height, read from the store that
 * the indexer writes them to (index/vset.h, the vset table): what a
 * subnet's validators weigh and which BLS keys they sign with, at any P-chain
 * height the store has. Signature aggregation signs with these; `snowline
 * validator-set` prints them.
 *
 * A set is avalanchego's validators.Manager.GetValidatorSet(height, subnet):
 * primary-network validators weigh their stake plus their current delegators';
 * a permissioned subnet validator has its primary validation's key; an L1's
 * inactive validators are one member, the empty node id, without a key.
 */
#ifndef SL_API_VSET_H
#define SL_API_VSET_H

#include "store/sql.h"
#include "util/jw.h"

#define SL_VSET_MAX_MEMBERS 1000000u /* a set larger than this is refused (a store gone wrong) */

typedef struct sl_vset_member {
	uint8_t node[20];
	uint64_t weight;
	bool has_key;
	uint8_t key[48]; /* compressed G1 point */
} sl_vset_member;

typedef struct sl_vset {
	uint64_t height;
	uint8_t subnet[32];
	sl_vset_member *v; /* by node id, ascending */
	size_t n;
	uint64_t total; /* sum of the weights (saturating: avalanchego refuses a set that overflows) */
} sl_vset;

/* The last P-chain height the store holds (*any false: none yet). */
SL_MUST_USE sl_err sl_vset_tip(sl_conn *c, uint64_t *height, bool *any);

/* The set of `subnet` at `height` (no more than the tip: the caller checks). Release it. */
SL_MUST_USE sl_err sl_vset_read(sl_conn *c, const uint8_t subnet[32], uint64_t height, sl_vset *out);
void sl_vset_release(sl_vset *s);

/* The subnets (the primary network first) with a non-empty set at `height`, malloc'd. */
SL_MUST_USE sl_err sl_vset_subnets(sl_conn *c, uint64_t height, uint8_t (**out)[32], size_t *n);

/* {"height", "subnetId", "validators": [{"nodeId", "weight", "publicKey"}], "totalWeight"}: the
 * weights decimal strings, keys 0x-hex or null. */
void sl_vset_json(sl_jw *j, const sl_vset *s);

#endif
