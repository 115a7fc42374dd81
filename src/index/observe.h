/*
 * observe.h — what a node observes of the primary network's validators
 * (uptime, connectivity), sampled from its platform.getCurrentValidators
 * into the store's node_obs table (schema v5), and what its info.peers says
 * of them (the version each runs, the chains on which it is benched;
 * schema v8), asked at the same time. Unlike everything else the indexer
 * writes, this is not in the chain: the node's view when asked.
 * For src/index/ only.
 */
#ifndef SL_INDEX_OBSERVE_H
#define SL_INDEX_OBSERVE_H

#include "http/client.h"
#include "store/sql.h"

typedef struct ix_observation {
	uint8_t node[20];
	int64_t uptime; /* millionths */
	bool connected;
} ix_observation;

typedef sl_err (*ix_observe_fn)(void *ctx, const ix_observation *o);

/* One peer of info.peers: its node, version ("" when it gives none that fits) and the chains among
 * the primary network's on which the node has it benched (by their aliases "P", "X", "C"). */
#define IX_PEER_VERSION_MAX 64
enum { IX_BENCH_P, IX_BENCH_X, IX_BENCH_C, IX_BENCH_N };
typedef struct ix_peer {
	uint8_t node[20];
	char version[IX_PEER_VERSION_MAX + 1];
	bool benched[IX_BENCH_N];
} ix_peer;

typedef sl_err (*ix_peer_fn)(void *ctx, const ix_peer *p);

/* A getCurrentValidators answer (outside input: bounded by the scanner, every field checked),
 * each validator to fn. SL_ERR_UNSUPPORTED: an error answer or no validators list. */
SL_MUST_USE sl_err ix_observe_parse(const uint8_t *body, size_t len, ix_observe_fn fn, void *ctx,
				    char err[256]);

/* An info.peers answer (outside input, as above), each peer to fn. SL_ERR_UNSUPPORTED: an error
 * answer or no peers list; SL_ERR_INVALID: a peer without a nodeID, or not of its shape. A version
 * that is not a string of at most IX_PEER_VERSION_MAX printable ASCII characters reads as "". */
SL_MUST_USE sl_err ix_peers_parse(const uint8_t *body, size_t len, ix_peer_fn fn, void *ctx, char err[256]);

/* One sample, at unix time now, in one transaction: the validators, and with them what info.peers
 * says of each. err says why it failed (a node that does not serve getCurrentValidators, a body
 * that is not its shape, the store). When only info.peers failed, the validators are sampled
 * without it (no node counted benched, versions kept), SL_OK is returned and err says why. */
SL_MUST_USE sl_err ix_observe(sl_conn *c, sl_http_client *hc, const char *node_url, int64_t now,
			      char err[256]);

/* "97.1600" (a percentage, as avalanchego's json.Float32 writes it) to millionths: 971600; false
 * for anything but 0..100 with up to 4 decimals. */
bool ix_percent_parse(const char *s, size_t n, int64_t *millionths);

#endif
