/*
 * network.h — the identities of the public Avalanche networks: network id,
 * name, the bech32 HRP of its addresses, its X- and C-chain ids and its
 * AVAX asset id (cb58). The P-chain id is the zero id on every network.
 *
 * Facts from avalanchego's genesis configurations (docs/reference); `local`
 * is avalanchego's local network (12345), whose chain ids come from its
 * built-in local genesis.
 */
#ifndef SL_CODEC_NETWORK_H
#define SL_CODEC_NETWORK_H

#include "util/common.h"

#define SL_P_CHAIN_ID "11111111111111111111111111111111LpoYY"

typedef struct sl_network {
	uint32_t id;
	const char *name;		      /* "mainnet", "fuji", "local" */
	const char *hrp;		      /* "avax", "fuji", "local" */
	const char *x_chain, *c_chain, *avax; /* cb58; NULL when not fixed (a local network's asset) */
} sl_network;

/* By id or by name ("testnet" is fuji); NULL when unknown. */
const sl_network *sl_network_by_id(uint32_t id);
const sl_network *sl_network_by_name(const char *name);

#endif
