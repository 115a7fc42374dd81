/*
 * observe.h — what a node observes of the primary network's validators
 * (uptime, connectivity), sampled from its platform.getCurrentValidators
 * into the store's node_obs table (schema v5). Unlike everything else the
 * indexer writes, this is not in the chain: the node's view when asked.
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

/* A getCurrentValidators answer (outside input: bounded by the scanner, every field checked),
 * each validator to fn. SL_ERR_UNSUPPORTED: an error answer or no validators list. */
SL_MUST_USE sl_err ix_observe_parse(const uint8_t *body, size_t len, ix_observe_fn fn, void *ctx,
				    char err[256]);

/* One sample, at unix time now, in one transaction. err says why it failed (a node that does
 * not serve the method, a body that is not its shape, the store). */
SL_MUST_USE sl_err ix_observe(sl_conn *c, sl_http_client *hc, const char *node_url, int64_t now,
			      char err[256]);

/* "97.1600" (a percentage, as avalanchego's json.Float32 writes it) to millionths: 971600; false
 * for anything but 0..100 with up to 4 decimals. */
bool ix_percent_parse(const char *s, size_t n, int64_t *millionths);

#endif
