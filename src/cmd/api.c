/*
 * api.c — `snowline api`: serve the Data API from a store the indexer writes
 * (src/api/api.h). Any number of these may serve one store.
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "api/sigagg_peers.h"
#include "cmd/cmd.h"
#include "cmd/wiring.h"
#include "util/config.h"
#include "util/log.h"

typedef struct api_opts {
	const char *store, *data_dir, *host, *keys, *origins, *compat, *log_level, *config_file, *new_key;
	const char *peers_from;
	uint64_t port, threads, max_body, anon_rate, key_rate, cache_mb, export_rows, export_lease,
		export_pause, peers_refresh, sigagg_timeout;
	bool help;
} api_opts;

#define O(f) offsetof(api_opts, f)
static const sl_opt opts[] = {
	{ "config-file", SL_OPT_STR, O(config_file), NULL, 0, "JSON file of options" },
	{ "store", SL_OPT_STR, O(store), NULL, 0,
	  "postgres://… for PostgreSQL; else a SQLite file (default <data-dir>/index.db)" },
	{ "data-dir", SL_OPT_STR, O(data_dir), NULL, 0,
	  "where the SQLite store lives (default ~/.snowline)" },
	{ "http-host", SL_OPT_STR, O(host), "127.0.0.1", 0, "address to listen on" },
	{ "http-port", SL_OPT_U64, O(port), "8080", 65535, "port to listen on (0: any free port)" },
	{ "http-threads", SL_OPT_U64, O(threads), "0", 256,
	  "HTTP threads, each with a store connection (0: one per CPU)" },
	{ "http-max-body", SL_OPT_U64, O(max_body), "1048576", 64u << 20, "largest request body, bytes" },
	{ "keys-file", SL_OPT_STR, O(keys), NULL, 0,
	  "API keys, hashed, one per line (docs/api.md; see --new-key)" },
	{ "rate-anonymous", SL_OPT_U64, O(anon_rate), "20", 1000000,
	  "requests per second per client address without a key (0: unlimited)" },
	{ "rate-key", SL_OPT_U64, O(key_rate), "200", 1000000,
	  "requests per second per API key, unless its line says (0: unlimited)" },
	{ "allowed-origins", SL_OPT_STR, O(origins), "*", 0, "CORS: origins a browser page may call from" },
	{ "cache-mb", SL_OPT_U64, O(cache_mb), "64" /* SL_API_CACHE_MB */, 65536,
	  "MiB of whole responses kept until the store changes (0: none)" },
	{ "compat", SL_OPT_STR, O(compat), "spec", 0,
	  "'spec', or 'upstream' for the hosted Data API's behaviour where they differ" },
	{ "export-max-rows", SL_OPT_U64, O(export_rows), "100000" /* API_EXPORT_MAX_ROWS */, 1000000,
	  "lines of an export's file at most; past it the export is truncated (0: the default)" },
	{ "export-lease-ms", SL_OPT_U64, O(export_lease), "30000", 3600000,
	  "how long an export job claimed by this server is its own without renewal (0: the default)" },
	{ "export-pause-ms", SL_OPT_U64, O(export_pause), "0", 60000,
	  "a pause between an export job's reads of the store, to spare it" },
	{ "peers-from", SL_OPT_STR, O(peers_from), NULL, 0,
	  "signature aggregation: a trusted node's URL whose info.peers (and the node itself) say where "
	  "validators are" },
	{ "peers-refresh-s", SL_OPT_U64, O(peers_refresh), "30", 86400,
	  "seconds between two reads of --peers-from's info.peers" },
	{ "sigagg-timeout-ms", SL_OPT_U64, O(sigagg_timeout), "10000", 600000,
	  "how long one signature aggregation waits for the validators' answers" },
	{ "log-level", SL_OPT_STR, O(log_level), "info", 0, "verbo debug trace info warn error fatal off" },
	{ "new-key", SL_OPT_STR, O(new_key), NULL, 0,
	  "print a new API key for NAME and its keys-file line, then exit" },
	{ "help", SL_OPT_BOOL, O(help), NULL, 0, "show this help" },
};

static volatile sig_atomic_t stop;

int cmd_api(int argc, char **argv)
{
	api_opts o = { 0 };
	sl_config cfg;
	char err[512];
	int rc = 2;
	if (sl_config_load(&cfg, opts, SL_ARRAY_LEN(opts), &o, argc, argv, NULL, err)) {
		fprintf(stderr, "snowline api: %s\n", err);
		goto out;
	}
	if (o.help) {
		sl_config_usage(stdout, "usage: snowline api [options]", opts, SL_ARRAY_LEN(opts));
		rc = 0;
		goto out;
	}
	if (o.new_key) {
		sl_buf b;
		sl_buf_init(&b, 4096);
		sl_api_new_key(o.new_key, &b);
		fputs(sl_buf_str(&b), stdout);
		rc = b.len ? 0 : 1;
		sl_buf_release(&b);
		goto out;
	}
	sl_level level;
	sl_compat compat;
	if (!cmd_level("api", "log-level", o.log_level, &level) || !cmd_compat("api", o.compat, &compat))
		goto out;
	char store[1100];
	cmd_store(o.store, o.data_dir, false, store, sizeof store);
	sl_log_setup(NULL, level, level);
	cmd_signals(&stop);
	sl_api_config ac = { .store_url = store,
			     .host = o.host,
			     .port = (uint16_t)o.port,
			     .threads = (unsigned)o.threads,
			     .max_body = o.max_body,
			     .keys_file = o.keys,
			     .anon_rate = (double)o.anon_rate,
			     .anon_burst = 2.0 * (double)o.anon_rate,
			     .key_rate = (double)o.key_rate,
			     .key_burst = 2.0 * (double)o.key_rate,
			     .allowed_origins = o.origins,
			     .cache_bytes = (size_t)o.cache_mb << 20,
			     .compat = compat,
			     .export_max_rows = o.export_rows,
			     .export_lease_ms = o.export_lease,
			     .export_pause_ms = o.export_pause,
			     .sigagg_timeout_ms = (unsigned)o.sigagg_timeout };
	sl_api *a = sl_api_new(&ac, err);
	if (!a) {
		fprintf(stderr, "snowline api: %s\n", err);
		rc = 1;
		goto out;
	}
	/* signature aggregation asks the validators the trusted node knows, on this store's network */
	sl_sigagg_p2p *sp = NULL;
	if (o.peers_from) {
		sl_sigagg_p2p_config pc = { .peers_url = o.peers_from,
					    .network_id = sl_api_network_id(a),
					    .refresh_s = (unsigned)o.peers_refresh };
		if (!(sp = sl_sigagg_p2p_new(&pc, err))) {
			fprintf(stderr, "snowline api: %s\n", err);
			sl_api_free(a);
			rc = 1;
			goto out;
		}
		sl_api_set_sigagg(a, sl_sigagg_p2p_source(sp));
	}
	/* Tests and scripts wait for this line. */
	fprintf(stderr, "snowline api: listening on http://%s:%u (store %s)\n", o.host, sl_api_port(a),
		store);
	fflush(stderr);
	rc = sl_api_run(a, &stop);
	sl_api_free(a);
	sl_sigagg_p2p_free(sp);
out:
	sl_config_release(&cfg);
	return rc;
}
