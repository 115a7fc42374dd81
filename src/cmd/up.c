/*
 * up.c — `snowline up`: the whole platform in one process. A devnet node
 * (or, with --node, someone else's node), the indexer reading it through
 * /ext/index like any other client, and the Data API on the store the
 * indexer writes:
 *
 *   <data-dir>/node/      the devnet node's data (containers, devnet files)
 *   <data-dir>/logs/      every logger's file (node, source, index, api, access)
 *   <data-dir>/index.db   the SQLite store (or --store postgres://…)
 *
 * Each part runs on its own thread and all stop on one flag (SIGTERM,
 * SIGINT, or a part that fails for good); a restart resumes each where it
 * was. Standard error shows what an operator of a laptop wants: where things
 * listen, examples, the devnet's and the indexer's progress, warnings.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "api/sigagg_peers.h"
#include "cmd/cmd.h"
#include "cmd/wiring.h"
#include "index/evm.h"
#include "index/index.h"
#include "util/config.h"
#include "util/log.h"
#include "util/metrics.h"

typedef struct up_opts {
	const char *data_dir, *host, *node, *store, *genesis, *network, *seed, *compat, *keys, *origins;
	const char *log_level, *log_display_level, *progress, *config_file, *prices;
	uint64_t http_port, api_port, txs, accounts, validators, start_time, interval_ms, anon_rate,
		store_cache_mb;
	bool help, no_evm, genesis_signers;
} up_opts;

#define O(f) offsetof(up_opts, f)
static const sl_opt opts[] = {
	{ "config-file", SL_OPT_STR, O(config_file), NULL, 0, "JSON file of options" },
	{ "data-dir", SL_OPT_STR, O(data_dir), NULL, 0,
	  "node data, logs and the SQLite store go here (default ~/.snowline)" },
	{ "http-host", SL_OPT_STR, O(host), "127.0.0.1", 0, "address the node and the API listen on" },
	{ "http-port", SL_OPT_U64, O(http_port), "9650", 65535, "the devnet node's port" },
	{ "api-port", SL_OPT_U64, O(api_port), "8080", 65535, "the Data API's port" },
	{ "node", SL_OPT_STR, O(node), NULL, 0,
	  "index this node (http://host:port, avalanchego with --index-enabled or snowline) instead of "
	  "starting a devnet" },
	{ "genesis", SL_OPT_STR, O(genesis), NULL, 0,
	  "with --node: the network's genesis file (a snowline devnet writes <its data-dir>/devnet-genesis.json)" },
	{ "store", SL_OPT_STR, O(store), NULL, 0,
	  "postgres://… for PostgreSQL; else a SQLite file (default <data-dir>/index.db)" },
	{ "store-cache-mb", SL_OPT_U64, O(store_cache_mb), "0", 65536,
	  "the indexer's SQLite page cache in MiB (0: a quarter of the memory, 256 to 4096)" },
	{ "network", SL_OPT_STR, O(network), "fuji", 0,
	  "whose ids the devnet carries: fuji, mainnet or local (docs/devnet.md)" },
	{ "devnet-seed", SL_OPT_STR, O(seed), "snowline", 0, "the seed the devnet's history follows from" },
	{ "devnet-txs", SL_OPT_U64, O(txs), "5000", 100000000,
	  "about how many txs the devnet history holds" },
	{ "devnet-accounts", SL_OPT_U64, O(accounts), "64", 100000, "funded secp256k1 keys of the devnet" },
	{ "devnet-validators", SL_OPT_U64, O(validators), "5", 1000, "genesis validators of the devnet" },
	{ "devnet-genesis-signers", SL_OPT_BOOL, O(genesis_signers), "true", 0,
	  "the devnet's genesis validators have BLS keys (AddPermissionlessValidatorTx), so P-chain "
	  "messages can reach a signature quorum" },
	{ "devnet-start-time", SL_OPT_U64, O(start_time), "1704067200", UINT32_MAX,
	  "unix time of the devnet's first block" },
	{ "devnet-interval-ms", SL_OPT_U64, O(interval_ms), "2000", 3600000,
	  "live block period of the devnet (0: history only)" },
	{ "compat", SL_OPT_STR, O(compat), "spec", 0,
	  "'spec', or 'upstream' for avalanchego's and the hosted Data API's behaviour where they differ" },
	{ "keys-file", SL_OPT_STR, O(keys), NULL, 0,
	  "the Data API's keys (docs/api.md; snowline api --new-key)" },
	{ "rate-anonymous", SL_OPT_U64, O(anon_rate), "0", 1000000,
	  "Data API requests per second per client address without a key (0: unlimited)" },
	{ "allowed-origins", SL_OPT_STR, O(origins), "*", 0, "CORS: origins a browser page may call from" },
	{ "prices", SL_OPT_STR, O(prices), NULL, 0,
	  "load this CSV of daily prices (snowline prices --help) into the store before serving" },
	{ "no-evm", SL_OPT_BOOL, O(no_evm), NULL, 0,
	  "do not index the node's C-chain over its eth JSON-RPC (/ext/bc/C/rpc; docs/evm.md)" },
	{ "progress", SL_OPT_STR, O(progress), "auto", 0,
	  "the indexer's progress: auto (tty on a terminal, else log), tty, log, off" },
	{ "log-level", SL_OPT_STR, O(log_level), "info", 0,
	  "log files' level: verbo debug trace info warn error fatal off" },
	{ "log-display-level", SL_OPT_STR, O(log_display_level), "warn", 0,
	  "standard error's level (the devnet's and the indexer's progress show at info regardless)" },
	{ "help", SL_OPT_BOOL, O(help), NULL, 0, "show this help" },
};
#undef O

static volatile sig_atomic_t stop;

typedef struct part {
	pthread_t thread;
	bool running;
	int rc;
	sl_node *node;
	sl_indexer *ix;
} part;

static void *node_main(void *arg)
{
	part *p = arg;
	p->rc = sl_node_run(p->node, &stop);
	stop = 1; /* the node is gone: nothing to index */
	return NULL;
}

static void *index_main(void *arg)
{
	part *p = arg;
	p->rc = sl_indexer_run(p->ix, &stop);
	if (p->rc) {
		fprintf(stderr,
			"snowline up: the indexer stopped on a container it cannot index (see the index "
			"log); stopping\n");
		stop = 1;
	}
	return NULL;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* The node's argv for a devnet under up's data dir, built from up's options. */
static char **node_argv(const up_opts *o, const char *node_dir, const char *log_dir, int *argc)
{
	static char buf[16][1200];
	char **v = calloc(24, sizeof *v);
	if (!v)
		return NULL;
	int n = 0, b = 0;
	v[n++] = "up";
	v[n++] = "--devnet";
	v[n++] = "--index-enabled";
#define ARG(fmt, val) (snprintf(buf[b], sizeof buf[b], fmt, val), v[n++] = buf[b++])
	ARG("--data-dir=%s", node_dir);
	ARG("--log-dir=%s", log_dir);
	ARG("--http-host=%s", o->host);
	ARG("--http-port=%llu", (unsigned long long)o->http_port);
	ARG("--network=%s", o->network);
	ARG("--devnet-seed=%s", o->seed);
	ARG("--devnet-txs=%llu", (unsigned long long)o->txs);
	ARG("--devnet-accounts=%llu", (unsigned long long)o->accounts);
	ARG("--devnet-validators=%llu", (unsigned long long)o->validators);
	ARG("--devnet-genesis-signers=%s", o->genesis_signers ? "true" : "false");
	ARG("--devnet-start-time=%llu", (unsigned long long)o->start_time);
	ARG("--devnet-interval-ms=%llu", (unsigned long long)o->interval_ms);
	ARG("--compat=%s", o->compat);
	ARG("--log-level=%s", o->log_level);
	ARG("--log-display-level=%s", o->log_display_level);
#undef ARG
	*argc = n;
	return v;
}

/* Wait for a file the devnet writes as it starts (its genesis) while the node runs. */
/* The node's C-chain as an EVM chain of the store (docs/evm.md): its eth JSON-RPC on the node,
 * the EVM chain id avalanchego gives each network's C-chain, the primary network's subnet; its
 * network for the API's filter mainnet, fuji, or local for any other (the devnets'). */
static bool cchain_config(const sl_indexer *ix, const char *node_url, sl_evm_chain_config *c, char err[256])
{
	uint32_t id = sl_indexer_network_id(ix);
	uint8_t chain[32];
	char hex[2 * 32 + 1], spec[1400];
	sl_indexer_c_chain(ix, chain);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", chain[i]);
	bool mainnet = id == 1, fuji = id == 5;
	snprintf(spec, sizeof spec,
		 "id=%u,rpc=%s/ext/bc/C/rpc,name=C-Chain,symbol=AVAX,token=Avalanche,decimals=18,"
		 "network=%s,testnet=%d,blockchain=0x%s,subnet=0x%064d,description=The Contract Chain",
		 mainnet ? 43114u
		 : fuji	 ? 43113u
			 : 43112u,
		 node_url,
		 mainnet ? "mainnet"
		 : fuji	 ? "fuji"
			 : "local",
		 mainnet ? 0 : 1, hex, 0);
	return !sl_evm_chain_parse(spec, c, err);
}

static bool wait_file(const char *path)
{
	struct stat st;
	for (int i = 0; i < 600 && !stop; i++) {
		if (!stat(path, &st) && st.st_size > 0)
			return true;
		sleep_ms(100);
	}
	return false;
}

static void examples(const char *api, const char *net, const sl_devnet_config *dc)
{
	fprintf(stderr, "\nTry:\n");
	if (dc) {
		char p[96], x[96];
		sl_devnet_account_of(dc, 0, 'P', p);
		sl_devnet_account_of(dc, 0, 'X', x);
		fprintf(stderr, "  curl '%s/v1/networks/%s/blockchains/p-chain/balances?addresses=%s'\n", api,
			net, p);
		fprintf(stderr,
			"  curl '%s/v1/networks/%s/blockchains/x-chain/transactions?addresses=%s&pageSize=2'\n",
			api, net, x);
		fprintf(stderr,
			"  curl '%s/v1/networks/%s/blockchains/p-chain/utxos?addresses=%s&pageSize=3'\n", api,
			net, p);
	} else {
		fprintf(stderr, "  curl '%s/health'\n", api);
		fprintf(stderr, "  curl '%s/v1/networks/%s/blockchains/x-chain/vertices?pageSize=2'\n", api,
			net);
		fprintf(stderr, "  curl '%s/metrics'\n", api);
	}
	fprintf(stderr, "\n");
	fflush(stderr);
}

int cmd_up(int argc, char **argv)
{
	static up_opts o;
	static sl_config cfg;
	char err[512];
	int rc = 2;
	if (sl_config_load(&cfg, opts, SL_ARRAY_LEN(opts), &o, argc, argv, NULL, err)) {
		fprintf(stderr, "snowline up: %s\n", err);
		goto out;
	}
	if (o.help) {
		sl_config_usage(
			stdout,
			"usage: snowline up [options]\n\n"
			"A devnet node, the indexer and the Data API in one process (README.md). With --node,\n"
			"the indexer reads that node instead of a devnet.",
			opts, SL_ARRAY_LEN(opts));
		rc = 0;
		goto out;
	}
	sl_index_progress progress;
	sl_compat compat;
	sl_level level, display;
	if (!cmd_progress("up", o.progress, &progress) || !cmd_compat("up", o.compat, &compat) ||
	    !cmd_level("up", "log-level", o.log_level, &level) ||
	    !cmd_level("up", "log-display-level", o.log_display_level, &display))
		goto out;
	if (o.http_port == o.api_port && o.http_port && !o.node) {
		fprintf(stderr, "snowline up: --http-port and --api-port are both %llu\n",
			(unsigned long long)o.http_port);
		goto out;
	}
	if (o.genesis && !o.node) {
		fprintf(stderr, "snowline up: --genesis goes with --node (the devnet gives its own)\n");
		goto out;
	}
	static char dir[1024], node_dir[1100], log_dir[1100], store[1100], genesis[1200], node_url[1100];
	snprintf(dir, sizeof dir, "%s", o.data_dir ? o.data_dir : "");
	if (!o.data_dir)
		snprintf(dir, sizeof dir, "%s/.snowline", getenv("HOME") ? getenv("HOME") : ".");
	snprintf(node_dir, sizeof node_dir, "%s/node", dir);
	snprintf(log_dir, sizeof log_dir, "%s/logs", dir);
	snprintf(store, sizeof store, "%s", o.store ? o.store : "");
	if (!o.store)
		snprintf(store, sizeof store, "%s/index.db", dir);
	if (mkdir(dir, 0750) && errno != EEXIST) {
		fprintf(stderr, "snowline up: cannot make %s: %s\n", dir, strerror(errno));
		rc = 1;
		goto out;
	}

	/* The devnet's settings, checked as `snowline devnet` checks them (for the examples too). */
	sl_devnet_config dc;
	const sl_devnet_config *devnet = NULL;
	part node = { 0 }, index = { 0 };
	if (!o.node) {
		sl_devnet_options dop = { .seed = o.seed,
					  .network = o.network,
					  .txs = o.txs,
					  .accounts = o.accounts,
					  .validators = o.validators,
					  .genesis_signers = o.genesis_signers,
					  .start_time = o.start_time };
		if (sl_devnet_options_check(&dop, &dc, err)) {
			fprintf(stderr, "snowline up: %s\n", err);
			goto out;
		}
		devnet = &dc;
		int nargc;
		char **nargv = node_argv(&o, node_dir, log_dir, &nargc);
		if (!nargv) {
			rc = 1;
			goto out;
		}
		node.node = cmd_node_open(nargc, nargv, &rc);
		free(nargv);
		if (!node.node)
			goto out;
		snprintf(node_url, sizeof node_url, "http://%s:%llu", strchr(o.host, ':') ? "[::1]" : o.host,
			 (unsigned long long)o.http_port);
		snprintf(genesis, sizeof genesis, "%s/devnet-genesis.json", node_dir);
	} else {
		size_t nl = strlen(o.node);
		snprintf(node_url, sizeof node_url, "%.*s", (int)(nl && o.node[nl - 1] == '/' ? nl - 1 : nl),
			 o.node);
		snprintf(genesis, sizeof genesis, "%s", o.genesis ? o.genesis : "");
		mkdir(log_dir, 0750);
		sl_log_setup(log_dir, level, display);
	}
	/* progress at info on standard error whatever the display level; every other line as set */
	static const char *const shown[] = { "source", "index" };
	for (size_t i = 0; i < SL_ARRAY_LEN(shown); i++) {
		sl_logger *l = sl_log_get(shown[i]);
		if (l && sl_log_display_level(l) > SL_INFO)
			sl_log_set_display_level(l, SL_INFO);
	}
	cmd_signals(&stop);
	rc = 1;
	if (node.node) {
		if (pthread_create(&node.thread, NULL, node_main, &node)) {
			fprintf(stderr, "snowline up: cannot start the node's thread\n");
			goto done;
		}
		node.running = true;
		if (!wait_file(genesis)) {
			if (!stop)
				fprintf(stderr, "snowline up: the devnet wrote no genesis file (%s)\n",
					genesis);
			goto done;
		}
	}

	sl_metrics *metrics = sl_metrics_new();
	if (!metrics)
		goto done;
	sl_metrics_collector(metrics, sl_metrics_process, NULL);
	sl_indexer_config ic = { .node_url = node_url,
				 .store_url = store,
				 .progress = progress,
				 .poll_ms = 100, /* a node of its own, or one it was pointed at: ask often */
				 .observe_s = SL_INDEX_OBSERVE_S,
				 .metrics = metrics,
				 .genesis_file = genesis[0] ? genesis : NULL,
				 .cache_mb = (unsigned)o.store_cache_mb };
	/* the node may still be binding its port (a node of --node may be starting too) */
	if (!(index.ix = cmd_indexer_new(&ic, &stop, err))) {
		if (!stop)
			fprintf(stderr, "snowline up: %s\n", err);
		goto done_metrics;
	}
	/* the store exists now (the indexer made it); its writer has not started */
	if (o.prices && cmd_prices_load("up", store, o.prices)) {
		rc = 1;
		goto done_index;
	}
	sl_api_config ac = { .store_url = store,
			     .host = o.host,
			     .port = (uint16_t)o.api_port,
			     .keys_file = o.keys,
			     .anon_rate = (double)o.anon_rate,
			     .anon_burst = 2.0 * (double)o.anon_rate,
			     .key_rate = 200,
			     .key_burst = 400,
			     .allowed_origins = o.origins,
			     .cache_bytes = (size_t)SL_API_CACHE_MB << 20,
			     .compat = compat,
			     .metrics = metrics };
	sl_api *api = sl_api_new(&ac, err);
	if (!api) {
		fprintf(stderr, "snowline up: %s\n", err);
		goto done_index;
	}
	/* signature aggregation asks the validators its node lists (a failure leaves it off, logged) */
	sl_sigagg_p2p_config pc = { .peers_url = node_url, .network_id = sl_api_network_id(api) };
	sl_sigagg_p2p *sp = sl_sigagg_p2p_new(&pc, err);
	if (sp)
		sl_api_set_sigagg(api, sl_sigagg_p2p_source(sp));
	else
		fprintf(stderr, "snowline up: signature aggregation is off: %s\n", err);
	/* the node's C-chain over its eth JSON-RPC, beside the primary network (a failure is logged) */
	static sl_evm_chain_config cchain;
	sl_evm_indexer *evm = NULL;
	char e256[256];
	if (!o.no_evm && !cchain_config(index.ix, node_url, &cchain, e256))
		fprintf(stderr, "snowline up: the C-chain's EVM indexing is off: %s\n", e256);
	else if (!o.no_evm) {
		sl_evm_config ec = { .store_url = store,
				     .mode = SL_DB_LOAD,
				     .chains = &cchain,
				     .nchains = 1,
				     .progress = progress };
		if (!(evm = sl_evm_new(&ec, err)) || sl_evm_start(evm, &stop)) {
			fprintf(stderr, "snowline up: the C-chain's EVM indexing is off: %s\n",
				evm ? "its thread did not start" : err);
			sl_evm_free(evm);
			evm = NULL;
		}
	}
	char api_url[300];
	snprintf(api_url, sizeof api_url, "http://%s:%u", o.host, sl_api_port(api));
	const char *net = sl_indexer_network(index.ix);
	if (devnet)
		fprintf(stderr, "snowline up: a %s devnet node on %s (data %s)\n", net, node_url, node_dir);
	else
		fprintf(stderr, "snowline up: indexing %s (%s)\n", node_url, net);
	/* Tests and scripts wait for this line. */
	fprintf(stderr, "snowline up: the Data API on %s (store %s; logs %s)\n", api_url, store, log_dir);
	examples(api_url, net, devnet);
	if (pthread_create(&index.thread, NULL, index_main, &index)) {
		fprintf(stderr, "snowline up: cannot start the indexer's thread\n");
		stop = 1;
	} else
		index.running = true;
	rc = sl_api_run(api, &stop);
	stop = 1;
	if (index.running)
		pthread_join(index.thread, NULL);
	index.running = false;
	sl_evm_free(evm);
	sl_api_free(api);
	sl_sigagg_p2p_free(sp);
	if (index.rc)
		rc = 1;
done_index:
	if (index.running)
		pthread_join(index.thread, NULL);
	sl_indexer_free(index.ix);
done_metrics:
	stop = 1;
	if (node.running)
		pthread_join(node.thread, NULL);
	node.running = false;
	sl_metrics_free(metrics);
done:
	stop = 1;
	if (node.running)
		pthread_join(node.thread, NULL);
	if (node.node) {
		if (node.rc)
			rc = node.rc;
		sl_node_free(node.node);
	}
	if (!rc)
		fprintf(stderr, "snowline up: stopped\n");
out:
	return rc;
}
