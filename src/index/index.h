/*
 * index.h — `snowline index`: reads a node's five container indexes
 * (/ext/index/{P/block, C/block, X/tx, X/block, X/vtx}, through the index
 * API like any other client: snowline's own node or avalanchego with
 * --index-enabled) and writes what the Data API serves into the SQL store.
 *
 * Threads: one fetcher per index asks the node for ranges of up to
 * SL_INDEX_MAX_RANGE containers, decodes them and derives their rows
 * (derive.h) while the previous batch is being written, queueing at most
 * IX_QUEUE batches ahead; the caller's thread applies the batches of the five
 * indexes, each in one SQL transaction with its index's cursor (write.h).
 * The indexes progress independently; the store comes out the same whatever
 * the interleaving (schema.c says how).
 *
 * Start: the store's network (meta) must be the node's, or the store is
 * empty and takes the node's; each index resumes at its cursor after
 * checking that the node's container before it is the one the store
 * applied. A genesis file is applied once, before any container, and
 * recorded by its hash: a store is refused a different one. Stop: sl_indexer_run() returns when *stop is set, after the
 * batch being written is committed or rolled back.
 */
#ifndef SL_INDEX_INDEX_H
#define SL_INDEX_INDEX_H

#include <signal.h>

#include "store/containers.h"
#include "util/metrics.h"

typedef enum sl_index_progress {
	SL_PROGRESS_AUTO,
	SL_PROGRESS_TTY,
	SL_PROGRESS_LOG,
	SL_PROGRESS_OFF
} sl_index_progress;

/* In which order ready batches of the five indexes are applied (tests vary it). */
typedef enum sl_index_order { SL_ORDER_ROUND_ROBIN, SL_ORDER_SEQUENTIAL, SL_ORDER_RANDOM } sl_index_order;

typedef struct sl_indexer_config {
	const char *node_url;  /* http://host:port */
	const char *store_url; /* a SQLite path or a postgres:// URL */
	unsigned range;	       /* containers per request (1..1024; 0: 1024) */
	unsigned poll_ms;      /* how often a caught-up index asks again (0: 250) */
	sl_index_progress progress;
	sl_index_order order;
	sl_ikind sequence[SL_IDX__COUNT]; /* SL_ORDER_SEQUENTIAL: this order, each index until caught up */
	uint64_t seed;			  /* SL_ORDER_RANDOM */
	sl_metrics *metrics;		  /* the indexer's metrics go here (may be NULL) */
	const char *genesis_file; /* the network's genesis UTXOs and validators (genesis.c), or NULL */
	bool dry_run;	    /* fetch and derive every container, open no store, write nothing (a baseline) */
	unsigned observe_s; /* sample the node's view of its validators this often (observe.h); 0: never */
	/* the writer's SQLite page cache in MiB (0: a quarter of the machine's memory, 256 to 4096);
	 * a larger one also gathers more txs into each transaction while catching up (indexer.c) */
	unsigned cache_mb;
} sl_indexer_config;

#define SL_INDEX_OBSERVE_S 60 /* the default of observe_s */

typedef struct sl_indexer sl_indexer;

/* Connect to the store and the node, check the network; NULL with err. */
sl_indexer *sl_indexer_new(const sl_indexer_config *cfg, char err[512]);
/* Index until *stop; 0 on a clean stop, 1 when an index failed for good (the log says why). */
int sl_indexer_run(sl_indexer *ix, volatile sig_atomic_t *stop);
void sl_indexer_free(sl_indexer *ix);

/* The node's network as the Data API names it ("fuji", "mainnet", "local", …). */
const char *sl_indexer_network(const sl_indexer *ix);
/* The node's network id, and its C-chain's blockchain id. */
uint32_t sl_indexer_network_id(const sl_indexer *ix);
void sl_indexer_c_chain(const sl_indexer *ix, uint8_t out[32]);
/* True once the store has held, for every index at once, all the node had (the fetchers found
 * nothing new and their batches were applied). */
bool sl_indexer_caught_up(const sl_indexer *ix);

#endif
