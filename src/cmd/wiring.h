/*
 * wiring.h — what the subcommands share to put modules together that do not
 * know each other (node/ does not include devnet/: they are in the same
 * layer). Only for src/cmd/.
 */
#ifndef SL_CMD_WIRING_H
#define SL_CMD_WIRING_H

#include <signal.h>
#include <stdio.h>

#include "devnet/devnet.h"
#include "index/index.h"
#include "node/node.h"
#include "util/compat.h"
#include "util/config.h"
#include "util/log.h"

/* devnet_source.c: the devnet as a node producer. `src` must outlive the node. */
typedef struct sl_devnet_source {
	sl_devnet_config cfg;
	unsigned interval_ms;	/* live step period; 0 = no new live steps */
	uint16_t p2p_port;	/* the validators' p2p listeners from this port (node i: + 2i); 0: none */
	const char *p2p_policy; /* their policies (devnet.h's sl_devnet_p2p_options) */
} sl_devnet_source;
sl_node_producer sl_devnet_producer(const sl_devnet_source *src);

/*
 * The devnet's settings as its options give them (the same for `snowline
 * devnet` and `node --devnet`), checked into cfg: counts of at least 1, a
 * known --network, and a --network-id that agrees with it (under fuji and
 * mainnet it may only repeat theirs; `network_id_given` says whether it was
 * given at all, since the node's default of 1 is no choice). On a bad value
 * err names the option and why, and the caller exits with status 2.
 */
typedef struct sl_devnet_options {
	const char *seed, *network;
	uint64_t txs, accounts, validators, start_time, network_id;
	bool network_id_given, genesis_signers;
} sl_devnet_options;
SL_MUST_USE sl_err sl_devnet_options_check(const sl_devnet_options *o, sl_devnet_config *cfg, char err[512]);

/*
 * index.c: the indexer of cfg (sl_indexer_new), waiting up to 20 s, or until *stopped, for a node that
 * is starting: its port not bound yet, or answering 503 (`up` starts its own node; `index --node`
 * may be started beside one). NULL with err as sl_indexer_new's.
 */
sl_indexer *cmd_indexer_new(const sl_indexer_config *cfg, volatile sig_atomic_t *stopped, char err[512]);

/* Whether --name (or --name=...) is on the command line or SNOWLINE_<NAME> in the environment. */
bool sl_option_given(int argc, char **argv, const char *name);

/*
 * Refuse a data dir whose devnet was made with other history settings (seed,
 * txs, accounts, validators, start time, network): err says which option
 * differs, with both values. Reads the store under <data_dir>/containers
 * before the node opens it; a data dir without a devnet passes.
 */
SL_MUST_USE sl_err sl_devnet_source_check(const sl_devnet_config *cfg, const char *data_dir, char err[512]);

/* node.c: the node's options (devnet.c prints them in its own usage and passes them on). */
const sl_opt *cmd_node_options(size_t *n);
/*
 * node.c: the node its options describe, made but not running (sl_node_run binds the port);
 * NULL with *rc the exit status after a message "snowline <argv[0]>: …" on standard error
 * (*rc 0 after --help).
 */
sl_node *cmd_node_open(int argc, char **argv, int *rc);
/* SIGTERM and SIGINT set *flag; SIGPIPE is ignored; the descriptor limit is raised to the hard one. */
void cmd_signals(volatile sig_atomic_t *flag);

/* options.c: --compat, --progress and log levels, one way for every command (false: a message
 * "snowline <cmd>: …" was printed, exit 2). */
bool cmd_compat(const char *cmd, const char *s, sl_compat *out);
bool cmd_progress(const char *cmd, const char *s, sl_index_progress *out);
bool cmd_level(const char *cmd, const char *option, const char *s, sl_level *out);
/* prices.c: load the prices of the CSV file at path into the store (SL_DB_LOAD); 0, or the exit
 * status after a message "snowline <cmd>: …" on standard error. */
int cmd_prices_load(const char *cmd, const char *store, const char *path);
/* The store of --store, else <data-dir>/index.db (data-dir: ~/.snowline by default; made when
 * make_dir, for the writer). */
void cmd_store(const char *store, const char *data_dir, bool make_dir, char *out, size_t n);

#endif
