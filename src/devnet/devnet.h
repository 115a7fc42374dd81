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
 */
#ifndef SL_DEVNET_H
#define SL_DEVNET_H

#include "store/containers.h"
#include "util/buf.h"

typedef struct sl_devnet_config {
	const char *seed;    /* any text; the whole history follows from it */
	uint32_t network_id; /* default 12345 (local) */
	uint64_t start_time; /* unix seconds of the first block (default 2024-01-01T00:00:00Z) */
	uint64_t txs;	     /* size knob: about this many txs in the history */
	uint32_t accounts;   /* secp256k1 keys that hold and move funds */
	uint32_t validators; /* primary-network validators at genesis */
} sl_devnet_config;

/* Where containers go; called in acceptance order per index. Returns SL_OK or stops generation. */
typedef sl_err (*sl_devnet_sink_fn)(void *ctx, sl_ikind kind, const uint8_t id[32], int64_t ts_ns,
				    const uint8_t *bytes, size_t len);

typedef struct sl_devnet sl_devnet;

/* Create the network (keys, genesis state); err gets the reason on failure. */
sl_devnet *sl_devnet_new(const sl_devnet_config *cfg, char err[256]);
void sl_devnet_free(sl_devnet *d);

/* Generate the whole history into the sink. */
SL_MUST_USE sl_err sl_devnet_history(sl_devnet *d, sl_devnet_sink_fn sink, void *ctx);
/* One live step: a few blocks on every chain, timed `seconds` after the last. */
SL_MUST_USE sl_err sl_devnet_step(sl_devnet *d, uint64_t seconds, sl_devnet_sink_fn sink, void *ctx);

/* The manifest: what a correct index of this history must show. */
void sl_devnet_manifest_write(const sl_devnet *d, sl_buf *out);
/* Chain ids of this network (cb58), for the node's --x-chain-id/--c-chain-id. */
const char *sl_devnet_chain_id(const sl_devnet *d, char chain /* 'P', 'X', 'C' */);
/* The same without building the network: the ids follow from the seed alone ('A': the AVAX asset). */
void sl_devnet_chain_id_of(const char *seed, char chain, char out[64]);

#endif
