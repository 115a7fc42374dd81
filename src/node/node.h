/*
 * node.h — `snowline node`: the container index, /ext/admin, avm, info and
 * health, served over the shared HTTP layer.
 *
 * An sl_node owns its store, routes, chains, loggers and sources. cmd/node.c
 * fills an sl_node_config, calls sl_node_new() and sl_node_run(); everything
 * below returns errors instead of exiting.
 *
 * Threads: HTTP pool threads run handlers; one source thread (import,
 * follow) appends to the store. Shared mutable state and its lock:
 *   routes + endpoint aliases  node->routes_lock (rwlock)   node/routes.c
 *   chain aliases              node->chains_lock (mutex)    node/chains.c
 *   CPU profiler state         node->prof_lock (mutex)      node/admin.c
 *   VM plugin registry         node->vms_lock (mutex)       node/plugins.c
 *   source progress            atomics                       node/source_*.c
 */
#ifndef SL_NODE_H
#define SL_NODE_H

#include <signal.h>
#include <stdatomic.h>

#include "devnet/devnet.h"
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
	const char *allowed_hosts;   /* comma-separated; "*" allows all */
	const char *allowed_origins; /* comma-separated; "*" allows all */
	const char *chain_id[3];     /* P, X, C chain ids (cb58); NULL = the network's */
	bool devnet;		     /* containers come from the devnet generator */
	sl_devnet_config devnet_cfg;
	unsigned devnet_interval_ms; /* live step period; 0 = history only */
} sl_node_config;

typedef struct sl_node sl_node;

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
