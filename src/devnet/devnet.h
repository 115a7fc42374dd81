/*
 * devnet.h — `snowline devnet`: a deterministic local Avalanche network that
 * writes its history in the real wire formats, then keeps producing blocks.
 *
 * The same seed gives the same bytes: every key, amount, choice and
 * timestamp comes from the seeded generator (rng.h), never from the clock,
 * and the history's start time is part of the configuration.
 *
 * Containers go to a sink as avalanchego's indexer would have accepted them
 * (P/block, C/block, X/tx, X/vtx, X/block with acceptance times), so the
 * node can serve them (`snowline node --devnet`) or a container log can be
 * written (`snowline devnet --out FILE`). A manifest (JSON) tells tests the
 * truth: keys, addresses, assets, subnets, validators, expected balances.
 *
 * A snapshot holds the generator's whole state, so a restarted devnet can
 * continue from it instead of generating its history again (docs/devnet.md).
 */
#ifndef SL_DEVNET_H
#define SL_DEVNET_H

#include "codec/l1.h"
#include "codec/warp.h"
#include "p2p/p2p.h"
#include "store/containers.h"
#include "util/buf.h"

/*
 * Whose identifiers the devnet carries. local: network id 12345 (or another
 * id of the caller's), chain ids and the AVAX asset id derived from the
 * seed. fuji and mainnet: that network's id, address prefix, X- and C-chain
 * ids, AVAX asset id, EIP-155 chain id and ApricotPhase5 time; the history
 * itself is still the devnet's own.
 */
typedef enum sl_devnet_network { SL_DEVNET_LOCAL, SL_DEVNET_FUJI, SL_DEVNET_MAINNET } sl_devnet_network;
const char *sl_devnet_network_name(sl_devnet_network n); /* "local", "fuji", "mainnet" */
bool sl_devnet_network_parse(const char *s, sl_devnet_network *out);
uint32_t sl_devnet_network_id(sl_devnet_network n); /* 12345, 5, 1 */

/*
 * The L1 validator fee its P-chain charges: Etna's minimum price, 512 nAVAX a
 * second per active validator, on every network (the devnet's L1 validators
 * stay far below the target, so the price never rises), with the network's
 * capacity, target and K (avalanchego's local network for local).
 */
#define DN_L1_FEE_RATE 512u
void sl_devnet_l1_fee(sl_devnet_network n, sl_l1_fee_config *out);

typedef struct sl_devnet_config {
	const char *seed; /* any text; the whole history follows from it */
	sl_devnet_network network;
	uint32_t network_id; /* local: default 12345; fuji and mainnet: theirs (other values are replaced) */
	uint64_t start_time; /* unix seconds of the first block (default 2024-01-01T00:00:00Z) */
	uint64_t txs;	     /* size knob: about this many txs in the history (default 5000) */
	uint32_t accounts;   /* secp256k1 keys that hold and move funds (default 64) */
	uint32_t validators; /* primary-network validators at genesis (default 5) */
	/* genesis validators are AddPermissionlessValidatorTx stakers with the node's BLS key (as
	 * avalanchego's genesis builds a staker with a signer), not AddValidatorTx records */
	bool genesis_signers;
} sl_devnet_config;

/* Where containers go; called in acceptance order per index. Returns SL_OK or stops generation. */
typedef sl_err (*sl_devnet_sink_fn)(void *ctx, sl_ikind kind, const uint8_t id[32], int64_t ts_ns,
				    const uint8_t *bytes, size_t len);

typedef struct sl_devnet sl_devnet;

/* Create the network (keys, genesis state); err gets the reason on failure. */
sl_devnet *sl_devnet_new(const sl_devnet_config *cfg, char err[256]);
void sl_devnet_free(sl_devnet *d);
/* The configuration with its defaults filled in. */
const sl_devnet_config *sl_devnet_config_of(const sl_devnet *d);

/* Generate the whole history into the sink. */
SL_MUST_USE sl_err sl_devnet_history(sl_devnet *d, sl_devnet_sink_fn sink, void *ctx);
/* One live step: a few blocks on every chain, timed `seconds` after the last. */
SL_MUST_USE sl_err sl_devnet_step(sl_devnet *d, uint64_t seconds, sl_devnet_sink_fn sink, void *ctx);

/* Where generation stands: for progress lines and logs. */
typedef struct sl_devnet_stats {
	uint64_t txs_target;		 /* the history's size knob */
	uint64_t txs;			 /* txs made so far (all chains, history and live) */
	uint64_t steps, steps_total;	 /* history steps done / in the history */
	uint64_t live_steps;		 /* live steps done */
	bool history_done;		 /* the history is complete */
	uint64_t emitted[SL_IDX__COUNT]; /* containers per index so far */
	uint64_t height[3], blocks[3];	 /* per chain P, X, C: last height, blocks (X: vertices too) */
	uint64_t chain_txs[3];		 /* per chain */
	uint64_t now;			 /* chain time, unix seconds */
} sl_devnet_stats;
void sl_devnet_stats_get(const sl_devnet *d, sl_devnet_stats *out);
/* Called after every history step (the callback rate-limits itself). */
typedef void (*sl_devnet_progress_fn)(void *ctx, const sl_devnet_stats *s);
void sl_devnet_on_progress(sl_devnet *d, sl_devnet_progress_fn fn, void *ctx);

/*
 * The reward UTXOs a RewardValidatorTx pays for a staking tx (as avalanchego's
 * platform.getRewardUTXOs gives them: codec UTXO bytes), told before the
 * block that pays them goes to the sink. A node serves them; an indexer
 * asks for them. Called again, with the same UTXOs, when steps are replayed.
 */
typedef sl_err (*sl_devnet_rewards_fn)(void *ctx, const uint8_t staking_tx[32], const sl_span *utxos,
				       size_t n);
void sl_devnet_on_rewards(sl_devnet *d, sl_devnet_rewards_fn fn, void *ctx);

/*
 * The genesis file of this network (format: src/index/genesis.c): the P- and
 * X-chain genesis UTXOs and the genesis validators, which no index holds.
 */
void sl_devnet_genesis_write(const sl_devnet *d, sl_buf *out);

/*
 * The C-chain's genesis as `snowline node` keeps it to serve the chain's eth
 * JSON-RPC (format: node/node.h, sl_feed_evm_genesis): chain id,
 * ApricotPhase5 time, the genesis header and the allocation.
 */
SL_MUST_USE sl_err sl_devnet_c_genesis_write(const sl_devnet *d, sl_buf *out);

/* The manifest: what a correct index of this history must show. */
void sl_devnet_manifest_write(const sl_devnet *d, sl_buf *out);
/* The current primary-network validators as platform.getCurrentValidators's `validators` (a JSON
 * array), with the uptime and connectivity a node would observe (simulated, as the manifest says). */
void sl_devnet_current_validators_write(const sl_devnet *d, sl_buf *out);
/* The peers of a node of this network as info.peers's `peers` (a JSON array): its connected current
 * primary validators, with simulated versions, times, tracked subnets and benched chains (peers.c). */
void sl_devnet_peers_write(const sl_devnet *d, sl_buf *out);
/* Chain ids of this network (cb58), for the node's --x-chain-id/--c-chain-id. */
const char *sl_devnet_chain_id(const sl_devnet *d, char chain /* 'P', 'X', 'C' */);
/* The same without building the network: the ids follow from the config alone ('A': the AVAX asset). */
void sl_devnet_chain_id_of(const sl_devnet_config *cfg, char chain, char out[64]);
/* Account i's address on chain 'P' or 'X' ("P-fuji1…"), from the settings alone. */
void sl_devnet_account_of(const sl_devnet_config *cfg, uint32_t i, char chain, char out[96]);

/*
 * Snapshots (format: docs/devnet.md). sl_devnet_snapshot appends the whole
 * generator state of a devnet whose history is done (SL_ERR_CONFLICT
 * before) to out: a header with magic, version, length and sha256 of the
 * body, then the body. sl_devnet_restore loads one into a devnet just made
 * by sl_devnet_new with the same configuration; it fails without changing
 * anything it cannot undo (the caller frees the devnet on failure): with
 * SL_ERR_INVALID and `why` for another configuration, a bad checksum or a
 * torn file, SL_ERR_UNSUPPORTED for another version or build.
 */
SL_MUST_USE sl_err sl_devnet_snapshot(const sl_devnet *d, sl_buf *out);
SL_MUST_USE sl_err sl_devnet_restore(sl_devnet *d, const uint8_t *p, size_t len, char why[256]);

/*
 * The devnet's validators on avalanchego's p2p protocol (p2p.c, docs/p2p.md):
 * every node of the devnet listens with its own staking certificate and BLS
 * key and answers ACP-118 signature requests, each with a policy (honest,
 * absent, silent, slow, wrong) so that tests can exercise quorums.
 *
 * What an honest validator signs is decided by `verify` (called from the
 * listeners' threads, so it must not touch the devnet's state without a
 * lock of its own): SL_OK to sign (BLS, signature DST, over the unsigned
 * message bytes, as avalanchego's warp signer does), or an error with an
 * AppError code and reason. NULL: the default rule — the message parses as
 * an unsigned warp message of this network whose source chain is the X- or
 * C-chain (any payload), or the P-chain and then it is one of the P-chain's
 * L1 messages true to the devnet's P-chain state as its accepted blocks leave
 * it, with the justification avalanchego's P-chain asks for, or a chain of a
 * subnet or an L1 (any payload) while the node validates that subnet: a
 * current permissioned validator or an active L1 validator (docs/p2p.md).
 */
typedef sl_err (*sl_devnet_warp_verify_fn)(void *ctx, uint32_t node, const sl_warp_unsigned *msg,
					   const uint8_t *justification, size_t justification_len,
					   int32_t *code, char why[256]);

typedef struct sl_devnet_p2p_options {
	const char *host;   /* "127.0.0.1" when NULL */
	uint16_t base_port; /* node i listens on base_port + 2i; 0: any free port per node */
	/* Policies by node index: "" (all honest), or e.g. "0=absent,3=slow:800,4=wrong,5=silent". */
	const char *policy;
	sl_devnet_warp_verify_fn verify; /* NULL: the default rule above */
	void *verify_ctx;
} sl_devnet_p2p_options;

typedef struct sl_devnet_p2p sl_devnet_p2p;

/*
 * Start a listener per node; from now on sl_devnet_peers_write gives each
 * node's real address. NULL with err on a bad policy or a port in use. Stop
 * it before the devnet is freed.
 */
sl_devnet_p2p *sl_devnet_p2p_start(sl_devnet *d, const sl_devnet_p2p_options *o, char err[256]);
/*
 * The options' own checks, before any devnet exists (a node's option parsing): the policy
 * string, and the ports the nodes of cfg need from base_port. SL_ERR_INVALID with err naming
 * the option.
 */
SL_MUST_USE sl_err sl_devnet_p2p_options_check(const sl_devnet_config *cfg, const sl_devnet_p2p_options *o,
					       char err[256]);
/* Node i's bound port (0 while absent or out of range). */
uint16_t sl_devnet_p2p_port(const sl_devnet_p2p *p, uint32_t node);
SL_MUST_USE sl_err sl_devnet_p2p_set_policy(sl_devnet_p2p *p, uint32_t node, sl_p2p_policy policy,
					    int slow_ms);
void sl_devnet_p2p_stop(sl_devnet_p2p *p);

#endif
