/*
 * internal.h — what the files of node/ share; not for use outside node/.
 */
#ifndef SL_NODE_INTERNAL_H
#define SL_NODE_INTERNAL_H

#include "node/node.h"
#include "util/lockfile.h"
#include "util/metrics.h"

struct route;
typedef void (*sl_route_fn)(sl_node *n, const struct route *r, const sl_http_req *req, sl_http_resp *resp);

/* What a path serves: a JSON-RPC endpoint or a plain handler. Routes are
 * static or owned by the node and live as long as it does. */
typedef struct route {
	const char *name; /* the route's label in metrics: "index/P/block", "admin", "bc/X", ... */
	sl_route_fn fn;
	const sl_rpc_service *services;
	size_t nservices;
} route;

/* ---- routes.c: exact-path table with avalanchego's alias rules ---- */
typedef struct sl_routes sl_routes;
sl_routes *sl_routes_new(void);
void sl_routes_free(sl_routes *rt);
/* Serve `r` at base+endpoint and at every alias of base. */
sl_err sl_routes_add(sl_routes *rt, const char *base, const char *endpoint, const route *r);
/* admin.alias: errors carry avalanchego's text in msg[512]. */
sl_err sl_routes_alias(sl_routes *rt, const char *base, const char *alias, char msg[1200]);
/* Reserve an alias path that is not served (the genesis aliases of P and C). */
const route *sl_routes_lookup(sl_routes *rt, const char *path);

/* ---- chains.c: chain ids and their aliases ---- */
enum { SL_CHAIN_P, SL_CHAIN_X, SL_CHAIN_C, SL_CHAIN__COUNT };
#define SL_MAX_CHAIN_ALIASES 256
typedef struct sl_chain {
	uint8_t id[32];
	char id_str[64];
	char *aliases[SL_MAX_CHAIN_ALIASES]; /* in avalanchego's order; owned */
	size_t naliases;
} sl_chain;

/* ---- profiling and plugins (admin.c, plugins.c) ---- */
#define SL_MAX_VM_ALIASES 16
typedef struct sl_vm {
	uint8_t id[32];
	char id_str[64];
	char *aliases[SL_MAX_VM_ALIASES];
	size_t naliases;
	void *dl; /* dlopen handle */
	const struct sl_vm_plugin *plugin;
} sl_vm;

/* Per-index service context: the node and which index. */
typedef struct sl_index_ctx {
	sl_node *node;
	sl_ikind kind;
} sl_index_ctx;

/* evmrpc.c: the C-chain's eth JSON-RPC and the state it replays */
typedef struct sl_evmrpc sl_evmrpc;
sl_evmrpc *sl_evmrpc_new(void);
void sl_evmrpc_free(sl_evmrpc *e);
void sl_route_evm(sl_node *n, const route *r, const sl_http_req *req, sl_http_resp *resp);
/* Replay what the source added, now, when the chain's genesis is known (else at the first request). */
void sl_evm_warm(sl_node *n);

struct sl_node {
	sl_node_config cfg;
	sl_cstore *store;
	sl_cstore_hook tx_hook; /* locates the txs inside X-chain blocks (avm.c) */
	sl_http_server *http;
	sl_routes *routes;
	sl_rwlock routes_lock; /* guards routes (handlers read, admin writes) */
	sl_chain chains[SL_CHAIN__COUNT];
	sl_evmrpc *evm;	  /* the C-chain's replayed state for /ext/bc/C/rpc; its own lock */
	uint8_t avax[32]; /* the AVAX asset id (platform.getStakingAssetID), when has_avax */
	bool has_avax;
	sl_mutex chains_lock; /* guards chains[].aliases */
	sl_index_state index_state[SL_IDX__COUNT];
	uint8_t node_id[20];
	char node_id_str[64];
	char data_dir[1024], profile_dir[1024], plugin_dir[1024];
	sl_dirlock dir_lock; /* held for the node's life: one process per --data-dir */
	int64_t start_ns;

	/* services, bound to this node */
	sl_rpc_service index_svc[SL_IDX__COUNT];
	route index_route[SL_IDX__COUNT];
	sl_index_ctx index_ctx[SL_IDX__COUNT];

	sl_mutex prof_lock; /* guards cpu_profiling */
	bool cpu_profiling;

	sl_mutex vms_lock; /* guards vms */
	sl_vm vms[256];
	size_t nvms;

	/* sources */
	pthread_t source_thread;
	bool source_running;
	volatile sig_atomic_t *stop;
	_Atomic bool source_caught_up;
	_Atomic uint64_t source_errors;
	sl_mutex source_lock;	/* guards source_error */
	char source_error[256]; /* the source's last error ("" when it is fine); see sl_node_source_fail */

	sl_logger *log, *log_http, *log_index, *log_source;
	sl_logger *log_chain[SL_CHAIN__COUNT]; /* "P", "X", "C": each container at debug */

	/* metrics (node/metrics.c); families are registered at start, series made on first use */
	sl_metrics *metrics;
	sl_metric_family *m_requests, *m_latency, *m_appended;
	_Atomic int64_t caught_up_ns; /* when the source last held everything it knew of (0: never) */
};

int64_t sl_now_ns(void);
/* Sleep up to ms, waking early when the node is told to stop. */
void sl_node_sleep_ms(sl_node *n, unsigned ms);

/* Handlers and service tables from each file. */
void sl_node_http_handle(void *ctx, const sl_http_req *req, sl_http_resp *resp);
void sl_route_rpc(sl_node *n, const route *r, const sl_http_req *req, sl_http_resp *resp);
void sl_route_health_get(sl_node *n, const route *r, const sl_http_req *req, sl_http_resp *resp);
void sl_route_health(sl_node *n, const route *r, const sl_http_req *req, sl_http_resp *resp);
void sl_route_metrics(sl_node *n, const route *r, const sl_http_req *req, sl_http_resp *resp);
/* metrics.c */
sl_err sl_node_metrics_init(sl_node *n);
/* One request served: its route ("notfound" when none), HTTP method, status and duration. */
void sl_node_metrics_request(sl_node *n, const char *route_name, const char *method, int status, int64_t ns);
/* The source holds everything it knows of (the follow/devnet/import caught up again). */
void sl_node_caught_up(sl_node *n);
extern const sl_rpc_method sl_index_methods[];
extern const size_t sl_index_nmethods;
extern const sl_rpc_method sl_admin_methods[];
extern const size_t sl_admin_nmethods;
extern const sl_rpc_method sl_info_methods[];
extern const size_t sl_info_nmethods;
extern const sl_rpc_method sl_health_methods[];
extern const size_t sl_health_nmethods;
extern const sl_rpc_method sl_avm_methods[];
extern const size_t sl_avm_nmethods;
extern const sl_rpc_method sl_platform_methods[];
extern const size_t sl_platform_nmethods;

/* chains.c */
sl_err sl_chains_init(sl_node *n, char err[256]);
void sl_chains_release(sl_node *n);
/* Resolve an alias or id string to a chain slot (-1 if none). Caller holds chains_lock. */
int sl_chains_lookup_locked(sl_node *n, const char *alias);

/* The hex-with-checksum of the index API, "0x…": */
void sl_write_hex_checksum(sl_buf *b, const uint8_t *p, size_t n);
/* RFC 3339 with nanoseconds, trailing zeros trimmed, in local time (Go's time.Time JSON). */
size_t sl_format_time(char out[64], int64_t ns);

/* Go's path.Clean of an absolute path (keeping a trailing slash, as gorilla/mux
 * does) into out; 0 if it does not fit. */
size_t sl_path_clean(const char *p, char *out, size_t cap);

/* sources */
sl_err sl_import_file(sl_node *n, const char *path, char err[256]);
void *sl_follow_main(void *arg);
void *sl_producer_main(void *arg); /* feed.c: runs cfg.producer */
sl_node *sl_feed_node(sl_feed *f); /* feed.c */
/* The source failed (msg is logged and health shows it until cleared); sl_node_source_ok clears it. */
void sl_node_source_fail(sl_node *n, const char *msg);
void sl_node_source_ok(sl_node *n);
/* The source's current error into out ("" when none); true when there is one. */
bool sl_node_source_error(sl_node *n, char out[256]);
/* What the node's source is, for health and logs: "import", "follow", a producer's name, or NULL. */
const char *sl_node_source_name(const sl_node *n);

/* avm.c: the store hook that records where each tx of an X-chain block lives. */
void sl_avm_block_txs(void *ctx, sl_ikind k, const sl_container *c, sl_cstore_put_fn put, void *put_ctx);

/* plugins.c */
void sl_vms_release(sl_node *n);

#endif
