/*
 * world.h — the devnet's shared state; for src/devnet/ only.
 *
 * One dn_world holds everything the chain generators (pchain.c, xchain.c,
 * cchain.c) share: the seeded generators, the keys, each chain's UTXO set,
 * the shared (atomic) memory between chains, the clock and the sink. The
 * generators run one at a time on one thread, in a fixed order, so nothing
 * here is locked and the output depends on the seed alone.
 *
 * Validity rules the generators keep (and the ledger check verifies):
 *   - a tx spends only unspent UTXOs of its own chain (or, for imports, of
 *     the shared memory from the source chain), each at most once;
 *   - an import spends only exports accepted before it: every exporter sets
 *     dn_utxo.avail to its container's time, and an importer at block time t
 *     takes a shared UTXO only if avail < t (strictly: two containers of the
 *     same second on different chains could be accepted in either order);
 *   - every input is signed by `threshold` of the owners' keys, with
 *     sigIndices sorted, and the UTXO's locktime has passed;
 *   - for each asset, inputs = outputs + burned, where only AVAX burns, and
 *     exactly dn_fee(chain, tx type) of it;
 *   - outputs are sorted by their bytes, inputs by (txID, index), owners'
 *     addresses sorted and unique (as validators require);
 *   - staking follows the network's bounds (dn_params).
 */
#ifndef SL_DEVNET_WORLD_H
#define SL_DEVNET_WORLD_H

#include "crypto/bls.h"
#include "crypto/staking.h"
#include "devnet/devnet.h"
#include "util/arena.h"
#include "util/jw.h"

#include <pthread.h>

/* ---- deterministic random numbers: xoshiro256**, one stream per use ---- */
typedef struct dn_rng {
	uint64_t s[4];
} dn_rng;
/* A stream named `name`, from the world's seed. */
void dn_rng_init(dn_rng *r, const char *seed, const char *name);
uint64_t dn_rng_u64(dn_rng *r);
uint64_t dn_rng_below(dn_rng *r, uint64_t n);		    /* uniform in [0, n), n > 0 */
uint64_t dn_rng_range(dn_rng *r, uint64_t lo, uint64_t hi); /* [lo, hi] */
bool dn_rng_chance(dn_rng *r, unsigned percent);
void dn_rng_bytes(dn_rng *r, uint8_t *out, size_t n);

/* ---- network constants ---- */
#define DN_NANO 1000000000ull /* nAVAX per AVAX; also ns per s */
typedef struct dn_params {
	uint64_t supply_cap;	 /* 720M AVAX in nAVAX */
	uint64_t genesis_supply; /* initial allocations + stake */
	uint64_t min_validator_stake, max_validator_stake, min_delegator_stake;
	uint64_t min_stake_duration, max_stake_duration;			/* seconds */
	uint32_t min_delegation_fee;						/* parts per million */
	uint64_t max_consumption_rate, min_consumption_rate;			/* per million */
	uint64_t minting_period;						/* seconds */
	uint64_t tx_fee, create_subnet_fee, create_chain_fee, create_asset_fee; /* nAVAX */
	uint64_t cortina_time; /* X-chain linearized from here (unix s) */
	uint64_t ap5_time;     /* C-chain atomic txs batched from here (fuji, mainnet: the real time) */
	uint64_t evm_chain_id; /* EIP-155 chain id: 43112 local, 43113 fuji, 43114 mainnet */
	/*
	 * P-chain: before it a staker tx names a future start and waits as a
	 * pending staker; from it a staker starts when accepted, BaseTx and
	 * TransferSubnetOwnershipTx exist, memos must be empty; the devnet also
	 * opens Etna's L1 txs here (its timeline is compressed).
	 */
	uint64_t durango_time;
} dn_params;

/* ---- keys ---- */
typedef struct dn_key {
	uint8_t sk[32];
	uint8_t addr[20]; /* Avalanche short id: ripemd160(sha256(compressed pubkey)) */
	uint8_t evm[20];  /* Ethereum address: keccak256(pubkey)[12:] */
} dn_key;

/*
 * A validator node: its staking identity (a P-256 key and the self-signed
 * certificate it would present; NodeID = ripemd160(sha256(certificate)))
 * and its BLS key, all derived from the seed.
 */
#define DN_LATER_NODES 64 /* nodes made beside the genesis validators, to join later */
typedef struct dn_node {
	uint8_t node_id[20];
	sl_staking_key staking;
	uint8_t cert[SL_STAKING_CERT_MAX];
	uint32_t cert_len;
	sl_bls_sk bls;
	uint8_t bls_pk[48], pop[96];
} dn_node;

/* ---- UTXOs ---- */
#define DN_MAX_OWNERS 4
typedef struct dn_utxo {
	uint8_t tx_id[32];
	uint32_t index;
	uint8_t asset_id[32];
	uint32_t type_id;     /* 7 transfer, 6 secp mint, 10 nft mint, 11 nft transfer, 22 P lockout */
	uint64_t amount;      /* 7 and the 7 inside 22 */
	uint64_t locktime;    /* owners' locktime */
	uint64_t stake_until; /* 22: stakeable lock end (unix s) */
	uint32_t group_id;    /* nft */
	uint8_t payload[32];  /* nft transfer payload (payload_len bytes) */
	uint32_t payload_len;
	uint32_t threshold, nowners;
	uint32_t owners[DN_MAX_OWNERS]; /* indexes into w->keys, sorted by address */
	/* shared memory: unix s when the export was accepted; an import needs avail < its own block time */
	uint64_t avail;
	bool spent;
} dn_utxo;

typedef struct dn_utxos {
	dn_utxo *v;
	size_t n, cap;
} dn_utxos;

enum { DN_P, DN_X, DN_C, DN_CHAINS };

typedef struct dn_chain {
	uint8_t id[32];
	uint64_t height;	/* of the last inner block */
	uint8_t last_inner[32]; /* inner block id (or coreth hash) */
	uint8_t last_outer[32]; /* proposervm id of the last container */
	uint64_t last_time;	/* unix s of the last block */
	uint64_t blocks, txs;	/* counters for the manifest */
	uint64_t last_pch;	/* pChainHeight of the last proposervm block (not option) */
	bool forked;		/* a proposervm block was made (the first one's parent is pre-fork) */
} dn_chain;

/* Who proposed a chain's proposervm blocks (the manifest's "proposers"). */
#define DN_PROPOSER_LIST_MAX 10000u /* block ids are listed per proposer up to this many signed blocks */
typedef struct dn_proposed {
	uint32_t node;
	uint8_t id[32];
} dn_proposed;
typedef struct dn_proposers {
	uint64_t *by_node; /* signed blocks per node (nnodes entries) */
	uint64_t nsigned, nunsigned, noptions;
	dn_proposed *list; /* every signed block, in order, while nsigned <= DN_PROPOSER_LIST_MAX */
	size_t nlist, caplist;
	bool overflow; /* the list was dropped: counts only */
} dn_proposers;

/* A P-chain height and the time of its block: which heights a block at time t may name. */
typedef struct dn_pheight {
	uint64_t time, height;
} dn_pheight;

/*
 * The P-chain's subnet and L1 state as the accepted P blocks leave it, for
 * the validators' p2p listeners (p2p.c), which run on their own threads and
 * read nothing else of the world: the subnets converted to L1s with their
 * conversion ids; every L1 validation registered with its weight, the
 * smallest nonce its next weight message may use, and whether it was removed
 * (ACP-77); every chain a CreateChainTx made with its subnet; and which nodes
 * validate which subnet now (current permissioned subnet validators, and L1
 * validators active at the last block's time), the nodes that run, and so
 * sign for, that subnet's chains. pchain.c writes it under `mu` when it emits
 * a P block (dn_l1view_sync).
 */
typedef struct dn_l1conv {
	uint8_t subnet[32], conversion_id[32];
} dn_l1conv;
typedef struct dn_l1val {
	uint8_t vid[32];
	uint64_t weight, nonce;
	bool removed;
} dn_l1val;
typedef struct dn_vchain {
	uint8_t chain[32], subnet[32];
} dn_vchain;
typedef struct dn_vmember {
	uint32_t node; /* index into w->nodes */
	uint8_t subnet[32];
} dn_vmember;
typedef struct dn_l1view {
	pthread_mutex_t mu;
	bool mu_ok;
	dn_l1conv *conv;
	size_t nconv, capconv;
	dn_l1val *val;
	size_t nval, capval;
	dn_vchain *chains;
	size_t nchains, capchains;
	dn_vmember *members; /* sorted by (node, subnet) */
	size_t nmembers, capmembers;
	uint64_t time; /* the last accepted P block's timestamp, unix s */
} dn_l1view;

typedef struct dn_world {
	sl_devnet_config cfg;
	char seed[256];
	dn_params params;
	dn_rng rng;	  /* general stream; modules keep their own too */
	uint8_t avax[32]; /* AVAX asset id */
	dn_chain chain[DN_CHAINS];
	dn_key *keys;
	uint32_t nkeys;
	dn_node *nodes;
	uint32_t nnodes;
	uint16_t *p2p_ports;	   /* nnodes entries while the p2p listeners run (p2p.c), else NULL */
	char p2p_host[64];	   /* their address */
	dn_utxos utxos[DN_CHAINS]; /* P and X (C has accounts: cchain.c) */
	dn_utxos shared[DN_CHAINS][DN_CHAINS]; /* shared[dst][src]: exported to dst from src */
	uint64_t now;			       /* the clock: unix seconds */
	uint64_t supply;		       /* current AVAX supply (rewards mint) */
	sl_devnet_sink_fn sink;
	void *sink_ctx;
	sl_err sink_err;
	sl_devnet_rewards_fn rewards; /* may be NULL */
	void *rewards_ctx;
	uint64_t emitted[SL_IDX__COUNT];
	int64_t last_ts[SL_IDX__COUNT]; /* acceptance times only increase within an index */
	dn_rng prop_rng;		/* proposer choice */
	dn_proposers props[DN_CHAINS];
	dn_pheight *ph; /* P blocks from the earliest one a later X or C block may still name */
	size_t nph, capph;
	struct dn_pstate *p; /* pchain.c's own state */
	dn_l1view l1view;    /* what the p2p listeners may read (under its lock) */
	struct dn_xstate *x; /* xchain.c's */
	struct dn_cstate *c; /* cchain.c's */
} dn_world;

/* The world inside a devnet handle (for tests that check it against what was emitted). */
dn_world *dn_world_of(sl_devnet *d);

/* Fee in nAVAX for a tx of this chain and codec type id. */
uint64_t dn_fee(const dn_world *w, int chain, uint32_t type_id);

/*
 * Make room for one more element in a (v, n, cap) array of sz-byte elements,
 * doubling; false on allocation failure. DN_PUSH appends and returns the new
 * (uninitialised) slot, or NULL.
 */
bool dn_grow(void **v, size_t *cap, size_t n, size_t sz);
#define DN_PUSH(arr, n, cap) (dn_grow((void **)&(arr), &(cap), (n), sizeof *(arr)) ? &(arr)[(n)++] : NULL)

/* Ledger. Returned pointers are valid until the next add to that set. */
dn_utxo *dn_utxo_add(dn_utxos *set, const dn_utxo *u);
dn_utxo *dn_utxo_find(dn_utxos *set, const uint8_t tx_id[32], uint32_t index);
/*
 * Pick unspent, unlocked (at w->now), single-owner UTXOs of `asset` owned by
 * key `k`, adding up to at least `amount`; returns how many (into out[], at
 * most max) or 0 if the key cannot pay. Does not mark them spent.
 */
size_t dn_utxo_select(const dn_world *w, dn_utxos *set, uint32_t k, const uint8_t asset[32], uint64_t amount,
		      dn_utxo **out, size_t max, uint64_t *total);
uint64_t dn_balance(const dn_world *w, const dn_utxos *set, uint32_t k, const uint8_t asset[32]);

/*
 * Write u, an AVAX-chain UTXO of `chain` (DN_P or DN_X: the alias of its
 * addresses), as a manifest object: {txId, outputIndex, assetId, typeId,
 * amount, locktime, stakeableLocktime (type 22, else 0), threshold,
 * addresses}. Amounts are decimal strings, times unix seconds.
 */
void dn_jw_utxo(const dn_world *w, sl_jw *j, int chain, const dn_utxo *u);
/* u as a codec UTXO (00 00 | txID | index | assetID | output), appended to out. */
void dn_utxo_encode(const dn_world *w, const dn_utxo *u, sl_buf *out);

/* The genesis sections of each chain (devnet.c writes the file): P "utxos" and "stakers", X "utxos". */
void dn_p_genesis(const dn_world *w, sl_jw *j, bool stakers);
void dn_x_genesis(const dn_world *w, sl_jw *j);

/* Copy the unspent entries of `from` into `to` (a snapshot; to must be empty). */
bool dn_utxos_copy(dn_utxos *to, const dn_utxos *from);

/* Sign hash with key k; sig65 = r | s | recovery id (Avalanche's credential form). */
void dn_sign(const dn_world *w, uint32_t k, const uint8_t hash[32], uint8_t sig65[65]);

/*
 * Hand one container to the sink, stamped with `time` (unix s) plus a small
 * deterministic acceptance delay, and count it. After a sink error every
 * later emit is a no-op and w->sink_err is set.
 */
void dn_emit(dn_world *w, sl_ikind kind, const uint8_t id[32], uint64_t time, const uint8_t *bytes,
	     size_t len);

/*
 * Wrap an inner block of chain `c` in a proposervm block whose parent is the
 * chain's last container, emit it to `kind`, and advance the chain's
 * last_outer. `option` makes a proposervm option (the Commit/Abort child of a
 * P-chain proposal block).
 *
 * pChainHeight: a P block names its parent's height; an X or C block at
 * time t the height of the last P block before t (dn_pheight_at). Signed as
 * avalanchego's proposers sign (vms/proposervm/block.go): a block whose
 * parent is from Durango on by the slot's expected proposer; before
 * Durango by a proposer inside its window, which ends MaxVerifyDelay (30 s)
 * after the parent, and unsigned after that (anyone may build); unsigned too
 * when the parent is pre-fork (the chain's first proposervm block) or no
 * validator qualifies. The proposer is drawn by stake (dn_p_proposer) among
 * the primary validators current at both the parent's pChainHeight and this
 * block's; the signature is ECDSA over sha256(00 00 | chain id | parent id |
 * block id), as staking.CheckSignature verifies it.
 */
void dn_emit_wrapped(dn_world *w, int c, sl_ikind kind, const uint8_t *inner, size_t len, uint64_t time,
		     bool option);

/* The height of the last P block accepted before time t (strictly: same-second order is unknown). */
uint64_t dn_pheight_at(const dn_world *w, uint64_t t);
/* Record a P block; drop the entries no later X or C block can need (called at each step). */
bool dn_pheight_add(dn_world *w, uint64_t time, uint64_t height);
void dn_pheight_prune(dn_world *w);

/*
 * A proposer for a block whose parent names P height lo and which names hi:
 * a primary-network validator current at every height in [lo, hi], drawn
 * by stake from w->prop_rng; -1 when there is none.
 */
int32_t dn_p_proposer(dn_world *w, uint64_t lo, uint64_t hi);

/*
 * Snapshots (devnet.c writes the file format; docs/devnet.md). A module
 * appends its state to a buffer and reads it back into a world whose keys,
 * nodes and config are the ones it was made with. Records are the
 * generator's own structs in host byte order: every struct written is
 * preceded by its size, so a snapshot of another build is refused.
 */
typedef struct dn_rd {
	const uint8_t *p;
	size_t n, off;
	bool bad;
} dn_rd;
void dn_snap_u64(sl_buf *b, uint64_t v);
void dn_snap_raw(sl_buf *b, const void *p, size_t n);
/* n elements of size sz: the count, the element size, the bytes. */
void dn_snap_arr(sl_buf *b, const void *v, size_t n, size_t sz);
uint64_t dn_rd_u64(dn_rd *r);
void dn_rd_raw(dn_rd *r, void *out, size_t n);
/* Read what dn_snap_arr wrote into a new allocation (NULL when empty); *n and *cap get its length. */
void *dn_rd_arr(dn_rd *r, size_t sz, size_t *n, size_t *cap);
void dn_snap_utxos(sl_buf *b, const dn_utxos *u);
void dn_rd_utxos(dn_rd *r, dn_utxos *u); /* replaces u's entries */
/* One struct: an array of one; dn_rd_one fails (r->bad) unless the size is this build's. */
#define dn_snap_one(b, x) dn_snap_arr((b), (x), 1, sizeof *(x))
void dn_rd_one(dn_rd *r, void *out, size_t sz);

/* The chain modules (each file's entry points). */
sl_err dn_p_init(dn_world *w);				      /* genesis state: allocations, validators */
sl_err dn_p_step(dn_world *w, uint64_t until, uint32_t ntxs); /* about ntxs txs up to time `until` */
void dn_p_free(dn_world *w);
void dn_p_manifest(const dn_world *w, sl_jw *jw);
/* The current primary-network validators as platform.getCurrentValidators lists them (a JSON
 * array), with simulated uptimes and connectivity. */
void dn_p_current_validators(const dn_world *w, sl_jw *jw);
/* For peers.c: the primary validators current now, in the order getCurrentValidators lists them,
 * with their simulated uptime (hundredths of a percent) and connectivity; and the (node, subnet)
 * pairs of the permissioned subnet and L1 validators not ended. Each fills up to cap, returns
 * how many there are. */
typedef struct dn_pval {
	uint32_t node;
	uint8_t tx_id[32];
	uint32_t uptime;
	bool connected, bad_uptime;
} dn_pval;
typedef struct dn_nodesub {
	uint32_t node;
	uint8_t subnet[32];
} dn_nodesub;
size_t dn_p_current_primary(const dn_world *w, dn_pval *out, size_t cap);
size_t dn_p_node_subnets(const dn_world *w, dn_nodesub *out, size_t cap);
/* peers.c: the peers a node of this devnet has (info.peers's `peers`, a JSON array). */
void dn_peers(const dn_world *w, sl_jw *jw);
void dn_p_save(const dn_world *w, sl_buf *b);
/* The L1 view (dn_l1view): made with the world, freed with it; dn_l1view_sync copies the P
 * state's subnet and L1 part into it (emit_block and a restore call it). */
sl_err dn_l1view_init(dn_world *w);
void dn_l1view_free(dn_world *w);
sl_err dn_l1view_sync(dn_world *w);
sl_err dn_p_load(dn_world *w, dn_rd *r); /* replaces w->p */

sl_err dn_x_init(dn_world *w);
sl_err dn_x_step(dn_world *w, uint64_t until, uint32_t ntxs);
void dn_x_free(dn_world *w);
void dn_x_manifest(const dn_world *w, sl_jw *jw);
void dn_x_save(const dn_world *w, sl_buf *b);
sl_err dn_x_load(dn_world *w, dn_rd *r);

sl_err dn_c_init(dn_world *w);
sl_err dn_c_step(dn_world *w, uint64_t until, uint32_t ntxs);
void dn_c_free(dn_world *w);
sl_err dn_c_genesis(const dn_world *w, sl_buf *out);
void dn_c_manifest(const dn_world *w, sl_jw *jw);
void dn_c_save(const dn_world *w, sl_buf *b);
sl_err dn_c_load(dn_world *w, dn_rd *r);

#endif
