/*
 * node.h — `snowline node`: the container index, /ext/admin, avm, info and
 * health, served over the shared HTTP layer.
 *
 * An sl_node owns its store, routes, chains, loggers and sources. cmd/node.c
 * fills an sl_node_config, calls sl_node_new() and sl_node_run(); everything
 * below returns errors instead of exiting.
 *
 * Threads: the HTTP server's loop threads run handlers; one source thread (import,
 * follow) appends to the store. Shared mutable state and its lock:
 *   routes + endpoint aliases  node->routes_lock (rwlock)   node/routes.c
 *   chain aliases              node->chains_lock (mutex)    node/chains.c
 *   CPU profiler state         node->prof_lock (mutex)      node/admin.c
 *   VM plugin registry         node->vms_lock (mutex)       node/plugins.c
 *   source progress            atomics                       node/source_*.c
 *   C-chain eth state          node->evm->lock (mutex)       node/evmrpc.c
 */
#ifndef SL_NODE_H
#define SL_NODE_H

#include <signal.h>
#include <stdatomic.h>

#include "codec/l1.h"
#include "http/server.h"
#include "node/jsonrpc.h"
#include "store/containers.h"
#include "util/lock.h"
#include "util/log.h"

typedef struct sl_node_config {
	const char *http_host;
	uint16_t http_port;
	const char *data_dir;
	uint32_t network_id;
	bool index_enabled;
	bool index_allow_incomplete;
	bool admin_enabled;
	const char *profile_dir; /* default <data-dir>/profiles */
	const char *plugin_dir;	 /* default <data-dir>/plugins */
	const char *log_dir;	 /* default <data-dir>/logs */
	sl_level log_level, log_display_level;
	const char *import_path; /* container log to import at start, or NULL */
	const char *follow_url;	 /* upstream node to mirror, or NULL */
	unsigned follow_poll_ms;
	sl_compat compat;
	size_t http_max_body;
	unsigned http_threads;
	unsigned http_max_connections; /* 0: SL_HTTP_MAX_CONNECTIONS */
	/* HTTP deadlines in ms (0: the defaults of util/limits.h): request line + headers, body,
	 * a response the client does not read, an idle kept-alive connection. */
	unsigned http_read_header_timeout_ms, http_read_timeout_ms, http_write_timeout_ms,
		http_idle_timeout_ms;
	const char *allowed_hosts;		 /* comma-separated; "*" allows all */
	const char *allowed_origins;		 /* comma-separated; "*" allows all */
	const char *chain_id[3];		 /* P, X, C chain ids (cb58); NULL = the network's */
	const char *avax_asset_id;		 /* cb58; NULL = the network\'s (mainnet, Fuji) */
	const struct sl_node_producer *producer; /* an in-process source (the devnet), or NULL */
	/* The P-chain's L1 validator fee (platform.getValidatorFeeConfig); without it, the network's
	 * when known (codec/l1.h). */
	bool has_l1_fee;
	sl_l1_fee_config l1_fee;
} sl_node_config;

typedef struct sl_node sl_node;

/*
 * A producer: an in-process source of containers, such as the devnet (which
 * cmd/ wires in, since node/ does not know it). The node calls run() once on
 * its source thread; run() appends through the feed below and returns when
 * sl_feed_stopping() says so (or when it has nothing more to add).
 */
typedef struct sl_feed sl_feed;
typedef struct sl_node_producer {
	const char *name; /* "devnet": in logs and in the health check */
	void (*run)(void *ctx, sl_feed *f);
	void *ctx;
} sl_node_producer;

/*
 * The feed: what a producer may do, on the source thread only. Containers
 * are copied into per-index batches and appended in one transaction per
 * batch; ids already indexed are skipped, so a producer that replays what it
 * made before a restart adds nothing twice.
 */
SL_MUST_USE sl_err sl_feed_add(sl_feed *f, sl_ikind k, const uint8_t id[32], int64_t ts_ns,
			       const uint8_t *bytes, size_t len);
SL_MUST_USE sl_err sl_feed_flush(sl_feed *f);
uint64_t sl_feed_added(const sl_feed *f); /* containers new to the store so far */
SL_MUST_USE sl_err sl_feed_count(sl_feed *f, sl_ikind k, uint64_t *n); /* containers in index k now */
bool sl_feed_stopping(const sl_feed *f);
void sl_feed_sleep_ms(sl_feed *f, unsigned ms);			     /* wakes early when the node stops */
void sl_feed_caught_up(sl_feed *f);				     /* readiness: the history is in */
void sl_feed_fail(sl_feed *f, const char *fmt, ...) SL_PRINTF(2, 3); /* logged; health shows it */
const char *sl_feed_data_dir(const sl_feed *f);
sl_logger *sl_feed_log(const sl_feed *f);
/* The reward UTXOs paid for a staking tx (UTXO bytes with codec version), served by
 * platform.getRewardUTXOs. Written at once, so before the block that pays them is flushed. */
SL_MUST_USE sl_err sl_feed_reward_utxos(sl_feed *f, const uint8_t staking_tx[32], const sl_span *utxos,
					size_t n);
/* The current validators as platform.getCurrentValidators lists them (its `validators`, a JSON
 * array), from a source that knows the P-chain's state (the devnet); replaces the last. */
SL_MUST_USE sl_err sl_feed_current_validators(sl_feed *f, const uint8_t *json, size_t len);
/* The peers as info.peers lists them (its `peers`, a JSON array of avalanchego's peer.Info with
 * `benched`), from a source that simulates them (the devnet); replaces the last. */
SL_MUST_USE sl_err sl_feed_peers(sl_feed *f, const uint8_t *json, size_t len);
/*
 * The C-chain's genesis, from a source that knows it (the devnet), for the
 * eth JSON-RPC's balances and nonces at any block (node/evmrpc.h has the
 * format: chain id, ApricotPhase5 time, genesis header, allocation). Kept in
 * the store; give it before the C-chain's first container.
 */
SL_MUST_USE sl_err sl_feed_evm_genesis(sl_feed *f, const uint8_t *p, size_t len);
/* The store's small metadata values (at most 4 KiB each); get: SL_ERR_NOT_FOUND when absent. */
SL_MUST_USE sl_err sl_feed_meta_get(sl_feed *f, const char *key, uint8_t *out, size_t cap, size_t *len);
SL_MUST_USE sl_err sl_feed_meta_put(sl_feed *f, const char *key, const void *val, size_t len);

/* Per-index availability, decided at start by the completeness rules. */
typedef enum sl_index_state { SL_INDEX_OFF, SL_INDEX_ON, SL_INDEX_INCOMPLETE } sl_index_state;

/*
 * Open the store, apply the index completeness rules (spec 001 §3) and set up
 * routes. On failure returns NULL with the reason in err; *exit_code says how
 * cmd/ should exit (0 for the rule that avalanchego also exits 0 on).
 */
sl_node *sl_node_new(const sl_node_config *cfg, char err[512], int *exit_code);
/* Serve until stop is set (signal handler). Returns 0 on a clean stop. */
int sl_node_run(sl_node *n, volatile sig_atomic_t *stop);
void sl_node_free(sl_node *n);

#endif
