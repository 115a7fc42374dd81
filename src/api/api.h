/*
 * api.h — `snowline api`: the Data API over HTTP (spec 000, docs/spec), read
 * from the SQL store the indexer writes.
 *
 * Stateless: everything it serves is in the store (including the secret its
 * page tokens are signed with), so any number of API servers can serve one
 * PostgreSQL store, and a SQLite file can be served while the indexer writes
 * it. What each server keeps for itself: its rate-limit buckets, an
 * in-memory cache of immutable rows (assets), and one of whole responses
 * that lasts until the store changes (cache.c).
 *
 * Around every route (api.c): CORS, API keys (x-data-api-key, or
 * x-glacier-api-key as the official SDK sends it) and token-bucket rate
 * limits, parameter validation (params.c), a request log line, Prometheus
 * metrics; /health and /metrics besides /v1.
 */
#ifndef SL_API_API_H
#define SL_API_API_H

#include <signal.h>

#include "util/compat.h"
#include "util/metrics.h"

#define SL_API_CACHE_MB 64 /* the response cache's default size, MiB */

typedef struct sl_api_config {
	const char *store_url;
	const char *host;
	uint16_t port;		      /* 0: any free port */
	unsigned threads;	      /* HTTP threads = store connections (0: one per CPU) */
	size_t max_body;	      /* request bodies (0: 1 MiB) */
	const char *keys_file;	      /* API keys (keys.c); NULL: none, every request is anonymous */
	double anon_rate, anon_burst; /* requests/s and bucket size per client address (rate 0: unlimited) */
	double key_rate,
		key_burst; /* the same per API key, unless its line in the keys file says otherwise */
	const char *allowed_origins; /* CORS: comma-separated origins, "*" all */
	sl_compat compat;    /* SL_COMPAT_UPSTREAM: the hosted API's behaviour where spec 000 differs */
	size_t cache_bytes;  /* whole responses of the read routes, until the store changes (0: none;
				snowline api --cache-mb, SL_API_CACHE_MB by default) */
	sl_metrics *metrics; /* shared with an indexer in the same process (snowline up), or NULL */
	/* signature aggregation: where validators are asked (api/sigagg.h; the p2p client, wired by
	 * cmd); NULL: the aggregation routes answer 503 */
	const struct sl_sigagg_source *sigagg;
	unsigned sigagg_timeout_ms; /* how long one aggregation waits for answers (0: the default) */
} sl_api_config;

typedef struct sl_api sl_api;

/* Open the store (read-only), load the keys, bind; NULL with err. */
sl_api *sl_api_new(const sl_api_config *cfg, char err[512]);
uint16_t sl_api_port(const sl_api *a);
/* The network id of the store it serves (known once sl_api_new returned). */
uint32_t sl_api_network_id(const sl_api *a);
/* Where signature aggregation asks validators (before sl_api_run; it must outlive the API). */
void sl_api_set_sigagg(sl_api *a, const struct sl_sigagg_source *src);
/* Serve until *stop; 0 on a clean stop. */
int sl_api_run(sl_api *a, volatile sig_atomic_t *stop);
void sl_api_free(sl_api *a);

/* A new API key and its keys-file line (keys.c): out gets "<key>\n<line>\n". */
void sl_api_new_key(const char *name, sl_buf *out);

#endif
