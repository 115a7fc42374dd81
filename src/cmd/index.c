/*
 * index.c — `snowline index`: read a node's container indexes into the SQL
 * store the Data API serves (src/index/index.h).
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "cmd/wiring.h"
#include "index/evm.h"
#include "index/index.h"
#include "util/config.h"
#include "util/limits.h"
#include "util/log.h"

typedef struct index_opts {
	const char *node, *store, *data_dir, *progress, *order, *log_level, *config_file, *genesis,
		*evm_chains;
	uint64_t range, poll_ms, observe_s, evm_batch, store_cache_mb;
	bool help, dry_run, no_primary, evm_no_trace;
} index_opts;

#define O(f) offsetof(index_opts, f)
static const sl_opt opts[] = {
	{ "config-file", SL_OPT_STR, O(config_file), NULL, 0, "JSON file of options" },
	{ "node", SL_OPT_STR, O(node), "http://127.0.0.1:9650", 0,
	  "the node whose /ext/index to read (snowline, or avalanchego with --index-enabled)" },
	{ "store", SL_OPT_STR, O(store), NULL, 0,
	  "postgres://… for PostgreSQL; else a SQLite file (default <data-dir>/index.db)" },
	{ "data-dir", SL_OPT_STR, O(data_dir), NULL, 0,
	  "where the SQLite store lives (default ~/.snowline)" },
	{ "genesis", SL_OPT_STR, O(genesis), NULL, 0,
	  "the network's genesis file (its genesis UTXOs and validators; snowline devnet writes one)" },
	{ "range", SL_OPT_U64, O(range), "1024", 1024, "containers per request to the node (1 to 1024)" },
	{ "poll-ms", SL_OPT_U64, O(poll_ms), "250", 60000,
	  "how often a caught-up index asks the node again" },
	{ "observe-s", SL_OPT_U64, O(observe_s), "60", 86400,
	  "how often to sample the node's view of its validators (platform.getCurrentValidators: uptime, "
	  "connectivity); 0: never" },
	{ "store-cache-mb", SL_OPT_U64, O(store_cache_mb), "0", 65536,
	  "the writer's SQLite page cache in MiB (0: a quarter of the memory, 256 to 4096); a larger one "
	  "also puts more txs in each transaction while catching up" },
	{ "progress", SL_OPT_STR, O(progress), "auto", 0,
	  "auto (a line per index on a terminal, else a log line every 5 s), tty, log or off" },
	{ "order", SL_OPT_STR, O(order), "round-robin", 0,
	  "how the five indexes' batches interleave: round-robin, random:SEED, or sequential:K1,K2,… "
	  "(each index until caught up, e.g. sequential:C/block,X/block,X/tx,X/vtx,P/block)" },
	{ "log-level", SL_OPT_STR, O(log_level), "info", 0, "verbo debug trace info warn error fatal off" },
	{ "dry-run", SL_OPT_BOOL, O(dry_run), NULL, 0,
	  "fetch and derive every container, but open no store and write nothing (a benchmark's baseline)" },
	{ "evm-chain", SL_OPT_STR, O(evm_chains), NULL, 0,
	  "an EVM chain to index (repeat the option for more; in a config file or SNOWLINE_EVM_CHAIN, "
	  "several separated by ';'): id=EVM chain id,rpc=URL[,name=…,blockchain=cb58|0x…,subnet=…,"
	  "symbol=…,token=…,decimals=…,network=mainnet|fuji|local,testnet=0|1,icm=0x messenger,explorer=…,"
	  "ws=…,logo=…,token-logo=…,description=…] (docs/evm.md)" },
	{ "evm-batch", SL_OPT_U64, O(evm_batch), "100", 10000, "EVM blocks per SQL transaction at most" },
	{ "evm-no-trace", SL_OPT_BOOL, O(evm_no_trace), NULL, 0,
	  "never ask EVM nodes for debug_traceBlockByNumber (no internal txs, no contracts created by contracts)" },
	{ "no-primary", SL_OPT_BOOL, O(no_primary), NULL, 0,
	  "index only the --evm-chain chains, not the node's primary network (--node is not asked)" },
	{ "help", SL_OPT_BOOL, O(help), NULL, 0, "show this help" },
};

static volatile sig_atomic_t stop;

/* --order: round-robin | random:SEED | sequential:K,K,K,K,K */
static bool parse_order(const char *s, sl_indexer_config *c, char err[256])
{
	if (!strcmp(s, "round-robin")) {
		c->order = SL_ORDER_ROUND_ROBIN;
		return true;
	}
	if (!strncmp(s, "random:", 7)) {
		char *end;
		c->seed = strtoull(s + 7, &end, 10);
		c->order = SL_ORDER_RANDOM;
		if (*end || end == s + 7) {
			snprintf(err, 256, "--order random:SEED needs a number, not '%s'", s + 7);
			return false;
		}
		return true;
	}
	if (!strncmp(s, "sequential:", 11)) {
		c->order = SL_ORDER_SEQUENTIAL;
		bool seen[SL_IDX__COUNT] = { 0 };
		int n = 0;
		char buf[128];
		snprintf(buf, sizeof buf, "%s", s + 11);
		for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
			sl_ikind k;
			if (!sl_ikind_parse(tok, &k) || seen[k] || n == SL_IDX__COUNT) {
				snprintf(
					err, 256,
					"--order sequential: '%s' is not one of the five indexes (each once)",
					tok);
				return false;
			}
			seen[k] = true;
			c->sequence[n++] = k;
		}
		if (n != SL_IDX__COUNT) {
			snprintf(err, 256,
				 "--order sequential: name all five indexes, in the order to apply them");
			return false;
		}
		return true;
	}
	snprintf(err, 256, "--order must be round-robin, random:SEED or sequential:…, not '%s'", s);
	return false;
}

/* Split a list of chains separated by ';' and parse each. */
static bool add_chains(const char *list, sl_evm_chain_config *chains, size_t *n, char err[256])
{
	char one[4096];
	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len) {
			if (len >= sizeof one || *n == SL_EVM_MAX_CHAINS) {
				snprintf(err, 256, "--evm-chain: too long, or more than %d chains",
					 SL_EVM_MAX_CHAINS);
				return false;
			}
			memcpy(one, p, len);
			one[len] = 0;
			if (sl_evm_chain_parse(one, &chains[*n], err))
				return false;
			(*n)++;
		}
		p = end ? end + 1 : p + len;
	}
	return true;
}

/* Index the EVM chains alone until a signal (or every chain failed). */
static int run_evm_only(sl_evm_indexer *ev)
{
	if (sl_evm_start(ev, &stop))
		return 1;
	while (!stop && !sl_evm_failed(ev)) {
		struct timespec ts = { 0, 50 * 1000000L };
		nanosleep(&ts, NULL);
	}
	return sl_evm_any_failed(ev) ? 1 : 0;
}

sl_indexer *cmd_indexer_new(const sl_indexer_config *cfg, volatile sig_atomic_t *stopped, char err[512])
{
	snprintf(err, 512, "stopped");
	for (int i = 0; !*stopped; i++) {
		sl_indexer *ix = sl_indexer_new(cfg, err);
		if (ix || i == 100 || !strstr(err, "cannot learn the node's network"))
			return ix;
		struct timespec ts = { 0, 200 * 1000000L };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int cmd_index(int argc, char **argv)
{
	index_opts o = { 0 };
	sl_config cfg;
	char err[512], e256[256];
	int rc = 2;
	/* --evm-chain may be repeated: the occurrences are taken out before the one-valued options */
	static sl_evm_chain_config chains[SL_EVM_MAX_CHAINS];
	size_t nchains = 0;
	char **args = calloc((size_t)argc + 1, sizeof *args);
	int nargs = 0;
	sl_evm_indexer *ev = NULL;
	if (!args) {
		fprintf(stderr, "snowline index: out of memory\n");
		return 1;
	}
	for (int i = 0; i < argc; i++) {
		const char *spec = NULL;
		if (i > 0 && !strcmp(argv[i], "--evm-chain")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "snowline index: --evm-chain needs a value\n");
				free(args);
				return 2;
			}
			spec = argv[++i];
		} else if (i > 0 && !strncmp(argv[i], "--evm-chain=", 12))
			spec = argv[i] + 12;
		else {
			args[nargs++] = argv[i];
			continue;
		}
		if (!add_chains(spec, chains, &nchains, e256)) {
			fprintf(stderr, "snowline index: %s\n", e256);
			free(args);
			return 2;
		}
	}
	argc = nargs;
	argv = args;
	if (sl_config_load(&cfg, opts, SL_ARRAY_LEN(opts), &o, argc, argv, NULL, err)) {
		fprintf(stderr, "snowline index: %s\n", err);
		goto out;
	}
	if (o.help) {
		sl_config_usage(stdout, "usage: snowline index [options]", opts, SL_ARRAY_LEN(opts));
		rc = 0;
		goto out;
	}
	sl_indexer_config ic = { .node_url = o.node,
				 .range = (unsigned)o.range,
				 .poll_ms = (unsigned)o.poll_ms,
				 .observe_s = (unsigned)o.observe_s,
				 .genesis_file = o.genesis,
				 .dry_run = o.dry_run,
				 .cache_mb = (unsigned)o.store_cache_mb };
	if (!o.range) {
		fprintf(stderr, "snowline index: --range must be from 1 to 1024, not 0\n");
		goto out;
	}
	if (!parse_order(o.order, &ic, e256)) {
		fprintf(stderr, "snowline index: %s\n", e256);
		goto out;
	}
	sl_level level;
	if (!cmd_progress("index", o.progress, &ic.progress) ||
	    !cmd_level("index", "log-level", o.log_level, &level))
		goto out;
	if (!add_chains(o.evm_chains, chains, &nchains, e256)) {
		fprintf(stderr, "snowline index: %s\n", e256);
		goto out;
	}
	if (o.no_primary && !nchains) {
		fprintf(stderr, "snowline index: --no-primary needs at least one --evm-chain\n");
		goto out;
	}
	if (nchains && o.dry_run) {
		fprintf(stderr,
			"snowline index: --dry-run is for the primary network's indexes, not --evm-chain\n");
		goto out;
	}
	char store[1100];
	cmd_store(o.store, o.data_dir, true, store, sizeof store);
	ic.store_url = store;
	size_t nl = strlen(o.node);
	static char node[1024];
	snprintf(node, sizeof node, "%.*s", (int)(nl && o.node[nl - 1] == '/' ? nl - 1 : nl), o.node);
	ic.node_url = node;
	sl_log_setup(NULL, level, level);

	cmd_signals(&stop);
	sl_evm_config ec = { .store_url = store,
			     .mode = o.no_primary ? SL_DB_WRITE : SL_DB_LOAD,
			     .chains = chains,
			     .nchains = nchains,
			     .poll_ms = (unsigned)o.poll_ms,
			     .batch = (unsigned)o.evm_batch,
			     .no_trace = o.evm_no_trace,
			     .progress = ic.progress };
	if (o.no_primary) {
		if (!(ev = sl_evm_new(&ec, err))) {
			fprintf(stderr, "snowline index: %s\n", err);
			rc = 1;
			goto out;
		}
		rc = run_evm_only(ev);
		goto out;
	}
	/* the primary network's indexer makes the schema; the EVM chains write beside it */
	sl_indexer *ix = cmd_indexer_new(&ic, &stop, err);
	if (!ix) {
		fprintf(stderr, "snowline index: %s\n", err);
		rc = 1;
		goto out;
	}
	if (nchains && (!(ev = sl_evm_new(&ec, err)) || sl_evm_start(ev, &stop))) {
		fprintf(stderr, "snowline index: %s\n", err);
		sl_indexer_free(ix);
		rc = 1;
		goto out;
	}
	rc = sl_indexer_run(ix, &stop);
	sl_indexer_free(ix);
	if (ev && sl_evm_any_failed(ev))
		rc = 1;
out:
	sl_evm_free(ev);
	sl_config_release(&cfg);
	free(args);
	return rc;
}
