/*
 * node.c — `snowline node`: options, signals, and the node's lifetime.
 *
 * Flag names follow avalanchego wherever the concept is the same, so that
 * operators can reuse what they know.
 */
#include <locale.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>

#include "cmd/cmd.h"
#include "cmd/wiring.h"
#include "util/config.h"
#include "util/limits.h"

typedef struct node_opts {
	const char *http_host, *data_dir, *profile_dir, *plugin_dir, *log_dir, *log_level, *log_display_level;
	const char *import, *follow, *compat, *allowed_hosts, *allowed_origins, *config_file;
	const char *x_chain_id, *c_chain_id, *avax_asset_id, *devnet_seed, *devnet_network,
		*devnet_p2p_policy;
	uint64_t http_port, network_id, http_max_body, http_threads, follow_poll_ms;
	uint64_t http_max_connections, http_read_header_timeout, http_read_timeout, http_write_timeout;
	uint64_t http_idle_timeout;
	uint64_t devnet_txs, devnet_accounts, devnet_validators, devnet_start_time, devnet_interval_ms;
	uint64_t devnet_p2p_port;
	bool index_enabled, index_allow_incomplete, admin_enabled, devnet, help, devnet_genesis_signers;
} node_opts;

#define O(f) offsetof(node_opts, f)
static const sl_opt opts[] = {
	{ "config-file", SL_OPT_STR, O(config_file), NULL, 0, "JSON file of options" },
	{ "http-host", SL_OPT_STR, O(http_host), "127.0.0.1", 0, "address to listen on" },
	{ "http-port", SL_OPT_U64, O(http_port), "9650", 65535, "port to listen on (0: any free port)" },
	{ "http-allowed-hosts", SL_OPT_STR, O(allowed_hosts), "localhost", 0,
	  "Host header values served, comma-separated ('*': all)" },
	{ "http-allowed-origins", SL_OPT_STR, O(allowed_origins), "*", 0, "CORS origins, comma-separated" },
	{ "http-max-body", SL_OPT_U64, O(http_max_body), "1048576", SL_HTTP_MAX_BODY_HARD,
	  "largest request body, bytes" },
	{ "http-threads", SL_OPT_U64, O(http_threads), "0", 256, "HTTP event loop threads (0: one per CPU)" },
	{ "http-max-connections", SL_OPT_U64, O(http_max_connections), "4096", 1000000,
	  "connections open at once; past it the idlest is closed (docs/http.md)" },
	{ "http-read-header-timeout", SL_OPT_DURATION, O(http_read_header_timeout), "10s",
	  SL_HTTP_MAX_TIMEOUT_MS,
	  "request line and headers must arrive within this of the request's first byte" },
	{ "http-read-timeout", SL_OPT_DURATION, O(http_read_timeout), "30s", SL_HTTP_MAX_TIMEOUT_MS,
	  "a request body must arrive within this of the end of its headers" },
	{ "http-write-timeout", SL_OPT_DURATION, O(http_write_timeout), "30s", SL_HTTP_MAX_TIMEOUT_MS,
	  "a response the client does not read within this is abandoned" },
	{ "http-idle-timeout", SL_OPT_DURATION, O(http_idle_timeout), "30s", SL_HTTP_MAX_TIMEOUT_MS,
	  "a kept-alive connection without a request is closed after this" },
	{ "data-dir", SL_OPT_STR, O(data_dir), NULL, 0,
	  "where the node keeps its data (default ~/.snowline)" },
	{ "network-id", SL_OPT_U64, O(network_id), "1", UINT32_MAX, "1 mainnet, 5 fuji, 12345 local, ..." },
	{ "avax-asset-id", SL_OPT_STR, O(avax_asset_id), NULL, 0,
	  "AVAX asset id (cb58) for networks other than 1 and 5" },
	{ "x-chain-id", SL_OPT_STR, O(x_chain_id), NULL, 0,
	  "X-chain id (cb58) for networks other than 1, 5, 12345" },
	{ "c-chain-id", SL_OPT_STR, O(c_chain_id), NULL, 0,
	  "C-chain id (cb58) for networks other than 1, 5, 12345" },
	{ "index-enabled", SL_OPT_BOOL, O(index_enabled), "false", 0,
	  "index accepted containers and serve /ext/index" },
	{ "index-allow-incomplete", SL_OPT_BOOL, O(index_allow_incomplete), "false", 0,
	  "start even if an index would have a gap" },
	{ "api-admin-enabled", SL_OPT_BOOL, O(admin_enabled), "false", 0, "serve /ext/admin" },
	{ "profile-dir", SL_OPT_STR, O(profile_dir), NULL, 0,
	  "where admin profiles go (default <data-dir>/profiles)" },
	{ "plugin-dir", SL_OPT_STR, O(plugin_dir), NULL, 0,
	  "VM plugins for admin.loadVMs (default <data-dir>/plugins)" },
	{ "log-dir", SL_OPT_STR, O(log_dir), NULL, 0, "log files (default <data-dir>/logs)" },
	{ "log-level", SL_OPT_STR, O(log_level), "info", 0,
	  "file log level: verbo debug trace info warn error fatal off" },
	{ "log-display-level", SL_OPT_STR, O(log_display_level), NULL, 0,
	  "standard error log level (default: log-level)" },
	{ "import", SL_OPT_STR, O(import), NULL, 0, "container log to import at start (docs/node.md)" },
	{ "follow", SL_OPT_STR, O(follow), NULL, 0, "URL of an upstream node whose indexes to mirror" },
	{ "follow-poll-ms", SL_OPT_U64, O(follow_poll_ms), "500", 3600000,
	  "how often to ask the upstream for more" },
	{ "devnet", SL_OPT_BOOL, O(devnet), "false", 0,
	  "containers come from the devnet generator (docs/devnet.md)" },
	{ "devnet-seed", SL_OPT_STR, O(devnet_seed), "snowline", 0,
	  "the seed the devnet's history follows from" },
	{ "devnet-txs", SL_OPT_U64, O(devnet_txs), "5000", 100000000,
	  "about how many txs the devnet history holds" },
	{ "devnet-accounts", SL_OPT_U64, O(devnet_accounts), "64", 100000,
	  "funded secp256k1 keys of the devnet" },
	{ "devnet-validators", SL_OPT_U64, O(devnet_validators), "5", 1000,
	  "genesis validators of the devnet" },
	{ "devnet-genesis-signers", SL_OPT_BOOL, O(devnet_genesis_signers), "false", 0,
	  "the devnet's genesis validators are AddPermissionlessValidatorTx stakers with BLS keys (signers)" },
	{ "devnet-start-time", SL_OPT_U64, O(devnet_start_time), "1704067200", UINT32_MAX,
	  "unix time of the devnet's first block" },
	{ "devnet-interval-ms", SL_OPT_U64, O(devnet_interval_ms), "2000", 3600000,
	  "live block period of the devnet (0: history only); chain time moves interval/1000 + 1 s a step" },
	{ "devnet-p2p-port", SL_OPT_U64, O(devnet_p2p_port), "0", 65535,
	  "the devnet's validators answer ACP-118 signature requests over avalanchego's p2p protocol, node i "
	  "on 127.0.0.1 port N + 2i (0: not at all); info.peers lists them (docs/p2p.md)" },
	{ "devnet-p2p-policy", SL_OPT_STR, O(devnet_p2p_policy), "", 0,
	  "how devnet validators answer, by node index: e.g. 0=absent,3=slow:800,4=wrong,5=silent (others honest)" },
	{ "network", SL_OPT_STR, O(devnet_network), "local", 0,
	  "whose ids the devnet carries: local (12345, ids from the seed), fuji or mainnet (their ids)" },
	{ "compat", SL_OPT_STR, O(compat), "spec", 0,
	  "'spec', or 'upstream' for avalanchego's behaviour where they differ" },
	{ "help", SL_OPT_BOOL, O(help), NULL, 0, "show this help" },
};

static volatile sig_atomic_t *stop_flag;
static void on_signal(int sig)
{
	(void)sig;
	if (stop_flag)
		*stop_flag = 1;
}

/* The HTTP server holds up to --http-max-connections sockets: take every descriptor the hard limit
 * allows (the soft limit is often 1024). */
static void raise_fd_limit(void)
{
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * The node as its options describe it, made but not yet running (port not yet bound): NULL with
 * *rc the exit status, after a message on standard error that starts with "snowline <argv[0]>:".
 */
sl_node *cmd_node_open(int argc, char **argv, int *rc_out)
{
	static node_opts o;
	static sl_config cfg;
	char err[512];
	setlocale(LC_CTYPE, "C.UTF-8"); /* Unicode case rules for JSON-RPC method names */
	*rc_out = 2;
	if (sl_config_load(&cfg, opts, SL_ARRAY_LEN(opts), &o, argc, argv, NULL, err)) {
		fprintf(stderr, "snowline %s: %s\n", argv[0], err);
		sl_config_release(&cfg);
		return NULL;
	}
	if (o.help) {
		sl_config_usage(stdout, "usage: snowline node [options]", opts, SL_ARRAY_LEN(opts));
		sl_config_release(&cfg);
		*rc_out = 0;
		return NULL;
	}
	static char data_dir[1024], profile_dir[1100], plugin_dir[1100], log_dir[1100];
	if (o.data_dir)
		snprintf(data_dir, sizeof data_dir, "%s", o.data_dir);
	else
		snprintf(data_dir, sizeof data_dir, "%s/.snowline", getenv("HOME") ? getenv("HOME") : ".");
	snprintf(profile_dir, sizeof profile_dir, "%s", o.profile_dir ? o.profile_dir : "");
	if (!o.profile_dir)
		snprintf(profile_dir, sizeof profile_dir, "%s/profiles", data_dir);
	if (!o.plugin_dir)
		snprintf(plugin_dir, sizeof plugin_dir, "%s/plugins", data_dir);
	else
		snprintf(plugin_dir, sizeof plugin_dir, "%s", o.plugin_dir);
	if (!o.log_dir)
		snprintf(log_dir, sizeof log_dir, "%s/logs", data_dir);
	else
		snprintf(log_dir, sizeof log_dir, "%s", o.log_dir);

	sl_node_config nc = {
		.http_host = o.http_host,
		.http_port = (uint16_t)o.http_port,
		.data_dir = data_dir,
		.network_id = (uint32_t)o.network_id,
		.index_enabled = o.index_enabled,
		.index_allow_incomplete = o.index_allow_incomplete,
		.admin_enabled = o.admin_enabled,
		.profile_dir = profile_dir,
		.plugin_dir = plugin_dir,
		.log_dir = log_dir,
		.import_path = o.import,
		.follow_url = o.follow,
		.follow_poll_ms = (unsigned)o.follow_poll_ms,
		.http_max_body = o.http_max_body,
		.http_threads = (unsigned)o.http_threads,
		.http_max_connections = (unsigned)o.http_max_connections,
		.http_read_header_timeout_ms = (unsigned)o.http_read_header_timeout,
		.http_read_timeout_ms = (unsigned)o.http_read_timeout,
		.http_write_timeout_ms = (unsigned)o.http_write_timeout,
		.http_idle_timeout_ms = (unsigned)o.http_idle_timeout,
		.allowed_hosts = o.allowed_hosts,
		.allowed_origins = o.allowed_origins,
		.chain_id = { NULL, o.x_chain_id, o.c_chain_id },
		.avax_asset_id = o.avax_asset_id,
	};
	int rc = 2;
	static char devnet_ids[3][64];
	static sl_devnet_source dsrc;
	static sl_node_producer producer;
	if (o.devnet) {
		/* argv[0] is "devnet" when `snowline devnet` runs the node */
		sl_devnet_options dop = { .seed = o.devnet_seed,
					  .network = o.devnet_network,
					  .txs = o.devnet_txs,
					  .accounts = o.devnet_accounts,
					  .validators = o.devnet_validators,
					  .genesis_signers = o.devnet_genesis_signers,
					  .start_time = o.devnet_start_time,
					  .network_id = o.network_id,
					  /* 1 is the node's default, so only an explicit 1 counts */
					  .network_id_given = o.network_id != 1 ||
							      sl_option_given(argc, argv, "network-id") };
		if (sl_devnet_options_check(&dop, &dsrc.cfg, err)) {
			fprintf(stderr, "snowline %s: %s\n", argv[0], err);
			goto out;
		}
		dsrc.interval_ms = (unsigned)o.devnet_interval_ms;
		dsrc.p2p_port = (uint16_t)o.devnet_p2p_port;
		dsrc.p2p_policy = o.devnet_p2p_policy;
		if (sl_devnet_p2p_options_check(&dsrc.cfg,
						&(sl_devnet_p2p_options){ .base_port = dsrc.p2p_port,
									  .policy = dsrc.p2p_policy },
						err)) {
			fprintf(stderr, "snowline %s: %s\n", argv[0], err);
			goto out;
		}
		nc.network_id = dsrc.cfg.network_id;
		producer = sl_devnet_producer(&dsrc);
		nc.producer = &producer;
		nc.has_l1_fee = true;
		sl_devnet_l1_fee(dsrc.cfg.network, &nc.l1_fee);
		/* The devnet's chains: ids of its network, or derived from the seed for a local one. */
		sl_devnet_chain_id_of(&dsrc.cfg, 'X', devnet_ids[0]);
		sl_devnet_chain_id_of(&dsrc.cfg, 'C', devnet_ids[1]);
		if (!nc.chain_id[1])
			nc.chain_id[1] = devnet_ids[0];
		if (!nc.chain_id[2])
			nc.chain_id[2] = devnet_ids[1];
		if (!nc.avax_asset_id) {
			sl_devnet_chain_id_of(&dsrc.cfg, 'A', devnet_ids[2]);
			nc.avax_asset_id = devnet_ids[2];
		}
		if (nc.import_path || nc.follow_url) {
			fprintf(stderr,
				"snowline %s: --devnet cannot be combined with --import or --follow\n",
				argv[0]);
			goto out;
		}
		/* A data dir made with other history settings is refused before anything starts. */
		if (sl_devnet_source_check(&dsrc.cfg, data_dir, err)) {
			fprintf(stderr, "snowline %s: %s\n", argv[0], err);
			goto out;
		}
	}
	if (!o.http_max_connections || !o.http_read_header_timeout || !o.http_read_timeout ||
	    !o.http_write_timeout || !o.http_idle_timeout) {
		/* avalanchego reads 0 as "no limit"; snowline keeps every limit. */
		fprintf(stderr,
			"snowline %s: --http-max-connections and the --http-*-timeout options must be "
			"more than 0\n",
			argv[0]);
		goto out;
	}
	if (!cmd_level(argv[0], "log-level", o.log_level, &nc.log_level))
		goto out;
	nc.log_display_level = nc.log_level;
	if ((o.log_display_level &&
	     !cmd_level(argv[0], "log-display-level", o.log_display_level, &nc.log_display_level)) ||
	    !cmd_compat(argv[0], o.compat, &nc.compat))
		goto out;
	if (nc.follow_url) {
		size_t len = strlen(nc.follow_url);
		while (len && nc.follow_url[len - 1] == '/')
			len--; /* "http://host:port/" and "http://host:port" alike */
		static char follow[1024];
		snprintf(follow, sizeof follow, "%.*s", (int)len, nc.follow_url);
		nc.follow_url = follow;
	}

	int exit_code = 1;
	sl_node *n = sl_node_new(&nc, err, &exit_code);
	if (!n) {
		fprintf(stderr, "snowline %s: %s\n", argv[0], err);
		rc = exit_code;
		goto out;
	}
	/* the node keeps pointers into the options: they live as long as the process (one node) */
	*rc_out = 0;
	return n;
out:
	sl_config_release(&cfg);
	*rc_out = rc;
	return NULL;
}

void cmd_signals(volatile sig_atomic_t *flag)
{
	stop_flag = flag;
	raise_fd_limit();
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int cmd_node(int argc, char **argv)
{
	int rc;
	sl_node *n = cmd_node_open(argc, argv, &rc);
	if (!n)
		return rc;
	static volatile sig_atomic_t stop;
	cmd_signals(&stop);
	rc = sl_node_run(n, &stop);
	sl_node_free(n);
	return rc;
}

const sl_opt *cmd_node_options(size_t *n)
{
	*n = SL_ARRAY_LEN(opts);
	return opts;
}
