/*
 * node.c — putting the node together: store, completeness rules, routes,
 * HTTP server and the source thread; and taking it apart again.
 */
#include "node/internal.h"

#include <errno.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gperftools/profiler.h>

#include "crypto/cb58.h"
#include "util/limits.h"

static const sl_rpc_service *one_service(sl_node *n, const char *name, const sl_rpc_method *m, size_t nm,
					 void *ctx, sl_rpc_service *slot)
{
	*slot = (sl_rpc_service){ name, m, nm, ctx };
	return slot;
}

/* Chain routes answer 503 while the node is still catching up (avalanchego's rejectMiddleware). */
static void route_chain(sl_node *n, const route *r, const sl_http_req *req, sl_http_resp *resp)
{
	if (!atomic_load(&n->source_caught_up)) {
		sl_http_resp_text(resp, 503, "API call rejected because chain is not done bootstrapping\n");
		return;
	}
	sl_route_rpc(n, r, req, resp);
}

/* Services and routes that live as long as the node: allocated with it. */
typedef struct node_routes {
	sl_rpc_service admin_svc, info_svc, health_svc, avm_svc, platform_svc;
	route admin, info, health, health_get, metrics, avm, platform, evm;
} node_routes;

static sl_err setup_routes(sl_node *n, node_routes *nr, char err[512])
{
	static const char *const index_names[SL_IDX__COUNT] = {
		[SL_IDX_P_BLOCK] = "index/P/block", [SL_IDX_C_BLOCK] = "index/C/block",
		[SL_IDX_X_TX] = "index/X/tx",	    [SL_IDX_X_BLOCK] = "index/X/block",
		[SL_IDX_X_VTX] = "index/X/vtx",
	};
	char msg[1200];
	sl_err e = SL_OK;
	for (int k = 0; k < SL_IDX__COUNT; k++) {
		if (n->index_state[k] == SL_INDEX_OFF)
			continue;
		n->index_ctx[k] = (sl_index_ctx){ n, (sl_ikind)k };
		n->index_route[k] =
			(route){ .name = index_names[k],
				 .fn = sl_route_rpc,
				 .services = one_service(n, "index", sl_index_methods, sl_index_nmethods,
							 &n->index_ctx[k], &n->index_svc[k]),
				 .nservices = 1 };
		char path[64];
		snprintf(path, sizeof path, "/ext/index/%s", sl_ikind_name((sl_ikind)k));
		e = e ? e : sl_routes_add(n->routes, path, "", &n->index_route[k]);
	}
	if (n->cfg.admin_enabled) {
		nr->admin = (route){ .name = "admin",
				     .fn = sl_route_rpc,
				     .services = one_service(n, "admin", sl_admin_methods, sl_admin_nmethods,
							     n, &nr->admin_svc),
				     .nservices = 1 };
		e = e ? e : sl_routes_add(n->routes, "/ext/admin", "", &nr->admin);
	}
	nr->info = (route){ .name = "info",
			    .fn = sl_route_rpc,
			    .services = one_service(n, "info", sl_info_methods, sl_info_nmethods, n,
						    &nr->info_svc),
			    .nservices = 1 };
	nr->health = (route){ .name = "health",
			      .fn = sl_route_health,
			      .services = one_service(n, "health", sl_health_methods, sl_health_nmethods, n,
						      &nr->health_svc),
			      .nservices = 1 };
	nr->health_get = (route){ .name = "health", .fn = sl_route_health_get };
	nr->metrics = (route){ .name = "metrics", .fn = sl_route_metrics };
	nr->avm =
		(route){ .name = "bc/X",
			 .fn = route_chain,
			 .services = one_service(n, "avm", sl_avm_methods, sl_avm_nmethods, n, &nr->avm_svc),
			 .nservices = 1 };
	nr->platform = (route){ .name = "bc/P",
				.fn = route_chain,
				.services = one_service(n, "platform", sl_platform_methods,
							sl_platform_nmethods, n, &nr->platform_svc),
				.nservices = 1 };
	/* the C-chain's eth JSON-RPC (coreth's framing, evmrpc.c) */
	nr->evm = (route){ .name = "bc/C/rpc", .fn = sl_route_evm };
	e = e ? e : sl_routes_add(n->routes, "/ext/info", "", &nr->info);
	e = e ? e : sl_routes_add(n->routes, "/ext/health", "", &nr->health);
	e = e ? e : sl_routes_add(n->routes, "/ext/health", "/health", &nr->health_get);
	e = e ? e : sl_routes_add(n->routes, "/ext/health", "/readiness", &nr->health_get);
	e = e ? e : sl_routes_add(n->routes, "/ext/health", "/liveness", &nr->health_get);
	e = e ? e : sl_routes_add(n->routes, "/ext/metrics", "", &nr->metrics);
	/* Chains: /ext/bc/<id>, with the genesis API aliases of each (genesis/aliases.go). */
	static const char *const api_aliases[SL_CHAIN__COUNT][4] = {
		[SL_CHAIN_P] = { "/ext/P", "/ext/platform", "/ext/bc/P", "/ext/bc/platform" },
		[SL_CHAIN_X] = { "/ext/X", "/ext/avm", "/ext/bc/X", "/ext/bc/avm" },
		[SL_CHAIN_C] = { "/ext/C", "/ext/evm", "/ext/bc/C", "/ext/bc/evm" },
	};
	for (int c = 0; c < SL_CHAIN__COUNT && !e; c++) {
		char base[128];
		snprintf(base, sizeof base, "/ext/bc/%s", n->chains[c].id_str);
		for (int i = 0; i < 4 && !e; i++)
			e = sl_routes_alias(n->routes, base, api_aliases[c][i], msg);
		if (!e && c == SL_CHAIN_X)
			e = sl_routes_add(n->routes, base, "", &nr->avm);
		if (!e && c == SL_CHAIN_P)
			e = sl_routes_add(n->routes, base, "", &nr->platform);
		if (!e && c == SL_CHAIN_C)
			e = sl_routes_add(n->routes, base, "/rpc", &nr->evm);
	}
	if (e)
		snprintf(err, 512, "cannot set up routes: %s", sl_err_name(e));
	return e;
}

static bool meta_has(sl_cstore *s, const char *key)
{
	uint8_t v[8];
	size_t len;
	return sl_cstore_meta_get(s, key, v, sizeof v, &len) == SL_OK;
}

/*
 * Spec 001 §3 and avalanchego's RegisterChain: decide, per chain, whether its
 * indexes are served, and refuse to start where that would hide a gap.
 */
static sl_err apply_completeness(sl_node *n, char err[512], int *exit_code)
{
	static const char *const chains[] = { "P", "C", "X" };
	bool has_run = meta_has(n->store, "has-run");
	for (size_t i = 0; i < SL_ARRAY_LEN(chains); i++) {
		char inc[32], prev[32];
		snprintf(inc, sizeof inc, "incomplete/%s", chains[i]);
		snprintf(prev, sizeof prev, "indexed/%s", chains[i]);
		bool incomplete = meta_has(n->store, inc), previously = meta_has(n->store, prev);
		sl_index_state st;
		if (!n->cfg.index_enabled) {
			if (previously && !n->cfg.index_allow_incomplete) {
				SL_LOG(n->log, SL_FATAL,
				       "running would cause index to become incomplete but incomplete "
				       "indices are disabled (chain %s)",
				       chains[i]);
				snprintf(
					err, 512,
					"running would cause index to become incomplete but incomplete indices "
					"are disabled (chain %s was indexed before; give --index-allow-incomplete)",
					chains[i]);
				*exit_code = 1;
				return SL_ERR_CONFLICT;
			}
			if (sl_cstore_meta_put(n->store, inc, "", 0))
				goto store_fail;
			st = SL_INDEX_OFF;
		} else {
			if (incomplete && (previously || has_run) && !n->cfg.index_allow_incomplete) {
				SL_LOG(n->log, SL_FATAL,
				       "index is incomplete but incomplete indices are disabled. "
				       "Shutting down (chain %s)",
				       chains[i]);
				snprintf(
					err, 512,
					"index is incomplete but incomplete indices are disabled (chain %s ran "
					"without indexing; give --index-allow-incomplete)",
					chains[i]);
				*exit_code = 1;
				return SL_ERR_CONFLICT;
			}
			if (sl_cstore_meta_put(n->store, prev, "", 0))
				goto store_fail;
			st = incomplete ? SL_INDEX_INCOMPLETE : SL_INDEX_ON;
			if (incomplete)
				SL_LOG(n->log, SL_WARN,
				       "the %s-chain indexes are incomplete: containers accepted while "
				       "indexing was off are missing",
				       chains[i]);
		}
		for (int k = 0; k < SL_IDX__COUNT; k++)
			if (!strcmp(sl_ikind_chain((sl_ikind)k), chains[i]))
				n->index_state[k] = st;
	}
	if (sl_cstore_meta_put(n->store, "has-run", "", 0))
		goto store_fail;
	return SL_OK;
store_fail:
	snprintf(err, 512, "cannot write to the container store");
	*exit_code = 1;
	return SL_ERR_STORE;
}

static sl_err load_node_id(sl_node *n, char err[512])
{
	size_t len = 0;
	sl_err e = sl_cstore_meta_get(n->store, "node-id", n->node_id, sizeof n->node_id, &len);
	if (e == SL_ERR_NOT_FOUND || (!e && len != 20)) {
		if (getrandom(n->node_id, sizeof n->node_id, 0) != (ssize_t)sizeof n->node_id ||
		    sl_cstore_meta_put(n->store, "node-id", n->node_id, sizeof n->node_id)) {
			snprintf(err, 512, "cannot create a node id");
			return SL_ERR_IO;
		}
	} else if (e) {
		snprintf(err, 512, "cannot read the node id");
		return e;
	}
	sl_buf b;
	sl_buf_init(&b, 63);
	sl_buf_adds(&b, "NodeID-");
	sl_cb58_write(&b, n->node_id, 20);
	snprintf(n->node_id_str, sizeof n->node_id_str, "%s", sl_buf_str(&b));
	sl_buf_release(&b);
	return SL_OK;
}

/*
 * The store calls this for every container it appends, inside the append's
 * transaction: count it, log it at debug on its chain's logger, and let avm.c
 * record where the txs of an X-chain block live.
 */
static void on_append(void *ctx, sl_ikind k, const sl_container *c, sl_cstore_put_fn put, void *put_ctx)
{
	sl_node *n = ctx;
	static const int chain_of[SL_IDX__COUNT] = { [SL_IDX_P_BLOCK] = SL_CHAIN_P,
						     [SL_IDX_C_BLOCK] = SL_CHAIN_C,
						     [SL_IDX_X_TX] = SL_CHAIN_X,
						     [SL_IDX_X_BLOCK] = SL_CHAIN_X,
						     [SL_IDX_X_VTX] = SL_CHAIN_X };
	sl_series_add(sl_metric_series1(n->m_appended, sl_ikind_name(k)), 1);
	sl_logger *log = n->log_chain[chain_of[k]];
	if (sl_log_enabled(log, SL_DEBUG)) {
		char id[64];
		sl_cb58_id(id, c->id);
		sl_log(log, SL_DEBUG, "%s %llu: %s (%zu bytes)", sl_ikind_name(k),
		       (unsigned long long)c->index, id, c->len);
	}
	sl_avm_block_txs(n, k, c, put, put_ctx);
}

sl_node *sl_node_new(const sl_node_config *cfg, char err[512], int *exit_code)
{
	*exit_code = 1;
	sl_node *n = calloc(1, sizeof *n + sizeof(node_routes));
	if (!n) {
		snprintf(err, 512, "out of memory");
		return NULL;
	}
	node_routes *nr = (node_routes *)(n + 1);
	n->cfg = *cfg;
	n->dir_lock.fd = -1;
	n->start_ns = sl_now_ns();
	snprintf(n->data_dir, sizeof n->data_dir, "%s", cfg->data_dir);
	snprintf(n->profile_dir, sizeof n->profile_dir, "%s", cfg->profile_dir);
	snprintf(n->plugin_dir, sizeof n->plugin_dir, "%s", cfg->plugin_dir);
	sl_rwlock_init(&n->routes_lock, "node.routes");
	sl_mutex_init(&n->chains_lock, "node.chains");
	sl_mutex_init(&n->prof_lock, "node.profiler");
	sl_mutex_init(&n->vms_lock, "node.vms");
	sl_mutex_init(&n->source_lock, "node.source");

	if (mkdir(n->data_dir, 0750) && errno != EEXIST) {
		snprintf(err, 512, "cannot create data dir %s: %s", n->data_dir, strerror(errno));
		goto fail;
	}
	if (sl_dirlock_take(&n->dir_lock, n->data_dir, err))
		goto fail;
	sl_log_setup(cfg->log_dir, cfg->log_level, cfg->log_display_level);
	n->log = sl_log_get("main");
	n->log_http = sl_log_get("http");
	n->log_index = sl_log_get("index");
	n->log_source = sl_log_get("source");
	n->log_chain[SL_CHAIN_P] = sl_log_get("P");
	n->log_chain[SL_CHAIN_X] = sl_log_get("X");
	n->log_chain[SL_CHAIN_C] = sl_log_get("C");
	if (sl_node_metrics_init(n)) {
		snprintf(err, 512, "out of memory");
		goto fail;
	}

	char path[1200], e256[256];
	snprintf(path, sizeof path, "%s/containers", n->data_dir);
	if (!(n->store = sl_cstore_open(path, e256))) {
		snprintf(err, 512, "%s", e256);
		goto fail;
	}
	n->tx_hook = (sl_cstore_hook){ on_append, n };
	if (load_node_id(n, err))
		goto fail;
	if (sl_chains_init(n, e256)) {
		snprintf(err, 512, "%s", e256);
		goto fail;
	}
	if (apply_completeness(n, err, exit_code))
		goto fail;
	if (!(n->evm = sl_evmrpc_new()) || !(n->routes = sl_routes_new())) {
		snprintf(err, 512, "out of memory");
		goto fail;
	}
	if (setup_routes(n, nr, err))
		goto fail;
	*exit_code = 0;
	return n;
fail:
	sl_node_free(n);
	return NULL;
}

const char *sl_node_source_name(const sl_node *n)
{
	if (n->cfg.producer)
		return n->cfg.producer->name;
	if (n->cfg.follow_url)
		return "follow";
	return n->cfg.import_path ? "import" : NULL;
}

void sl_node_source_fail(sl_node *n, const char *msg)
{
	sl_mutex_lock(&n->source_lock);
	bool same = !strcmp(n->source_error, msg);
	snprintf(n->source_error, sizeof n->source_error, "%s", msg);
	sl_mutex_unlock(&n->source_lock);
	atomic_fetch_add(&n->source_errors, 1);
	if (!same) /* a failure that repeats (an upstream that stays away) is logged once */
		SL_LOG(n->log_source, SL_ERROR, "%s: %s", sl_node_source_name(n), msg);
}

void sl_node_source_ok(sl_node *n)
{
	sl_mutex_lock(&n->source_lock);
	n->source_error[0] = 0;
	sl_mutex_unlock(&n->source_lock);
}

bool sl_node_source_error(sl_node *n, char out[256])
{
	sl_mutex_lock(&n->source_lock);
	snprintf(out, 256, "%s", n->source_error);
	sl_mutex_unlock(&n->source_lock);
	return out[0] != 0;
}

static void *source_main(void *arg)
{
	sl_node *n = arg;
	if (n->cfg.import_path) {
		char e[256], msg[512];
		if (sl_import_file(n, n->cfg.import_path, e)) {
			/* The import stops at the bad record; what came before it is kept and served,
			 * but the node is not healthy: health names the file and the failure. */
			snprintf(msg, sizeof msg, "%s: %s", n->cfg.import_path, e);
			sl_node_source_fail(n, msg);
		}
	}
	if (n->cfg.producer)
		return sl_producer_main(n);
	if (n->cfg.follow_url)
		return sl_follow_main(n);
	sl_node_caught_up(n);
	return NULL;
}

#define GROWTH_REPORT_NS (60 * (int64_t)1000000000)

/* Once a minute, at info: what each index holds and how much it grew (nothing when nothing grew). */
static void log_growth(sl_node *n, uint64_t last[SL_IDX__COUNT], bool report)
{
	sl_cstore_rd *rd;
	if (sl_cstore_rd_begin(n->store, &rd))
		return;
	char line[512];
	size_t len = 0;
	bool grew = false;
	for (int k = 0; k < SL_IDX__COUNT; k++) {
		uint64_t c = 0;
		if (n->index_state[k] == SL_INDEX_OFF || sl_cstore_count(rd, (sl_ikind)k, &c))
			continue;
		grew |= c != last[k];
		int w = snprintf(line + len, sizeof line - len, "%s%s %llu (+%llu)", len ? ", " : "",
				 sl_ikind_name((sl_ikind)k), (unsigned long long)c,
				 (unsigned long long)(c - last[k]));
		if (w > 0 && (size_t)w < sizeof line - len)
			len += (size_t)w;
		last[k] = c;
	}
	sl_cstore_rd_end(rd);
	if (report && grew)
		SL_LOG(n->log_index, SL_INFO, "last minute: %s", line);
	else if (!report)
		SL_LOG(n->log_index, SL_INFO, "indexes at start: %s", line);
}

int sl_node_run(sl_node *n, volatile sig_atomic_t *stop)
{
	char err[256];
	int rc = 0;
	n->stop = stop;
	sl_http_config hc = {
		.host = n->cfg.http_host,
		.port = n->cfg.http_port,
		.threads = n->cfg.http_threads,
		.max_body = n->cfg.http_max_body,
		.max_connections = n->cfg.http_max_connections,
		.header_timeout_ms = n->cfg.http_read_header_timeout_ms,
		.body_timeout_ms = n->cfg.http_read_timeout_ms,
		.write_timeout_ms = n->cfg.http_write_timeout_ms,
		.idle_timeout_ms = n->cfg.http_idle_timeout_ms,
		.handler = sl_node_http_handle,
		.ctx = n,
	};
	/* The port first: a node that cannot listen (say, the port is taken) does nothing else. */
	if (!(n->http = sl_http_server_new(&hc, err))) {
		SL_LOG(n->log, SL_FATAL, "%s", err);
		return 1;
	}
	if (!sl_node_source_name(n))
		sl_node_caught_up(n);
	else if (pthread_create(&n->source_thread, NULL, source_main, n) == 0)
		n->source_running = true;
	else {
		SL_LOG(n->log, SL_ERROR, "cannot start the source thread");
		rc = 1;
		*stop = 1;
	}
	if (!rc) {
		/* Tests and scripts wait for this line. */
		fprintf(stderr, "snowline node: listening on http://%s:%u (node id %s)\n", n->cfg.http_host,
			sl_http_server_port(n->http), n->node_id_str);
		fflush(stderr);
	}
	uint64_t last[SL_IDX__COUNT] = { 0 };
	int64_t next_report = sl_now_ns() + GROWTH_REPORT_NS;
	log_growth(n, last, false);
	while (!*stop) {
		struct timespec ts = { 0, 50 * 1000000 };
		nanosleep(&ts, NULL);
		if (sl_now_ns() >= next_report) {
			log_growth(n, last, true);
			next_report += GROWTH_REPORT_NS;
		}
	}
	SL_LOG(n->log, SL_INFO, "shutting down");
	sl_http_server_free(n->http); /* in-flight requests finish first */
	n->http = NULL;
	if (n->source_running) {
		pthread_join(n->source_thread, NULL);
		n->source_running = false;
	}
	return rc;
}

void sl_node_free(sl_node *n)
{
	if (!n)
		return;
	if (n->cpu_profiling) {
		ProfilerStop();
		n->cpu_profiling = false;
	}
	sl_routes_free(n->routes);
	sl_evmrpc_free(n->evm);
	sl_chains_release(n);
	sl_vms_release(n);
	sl_cstore_close(n->store);
	sl_dirlock_release(&n->dir_lock);
	sl_rwlock_destroy(&n->routes_lock);
	sl_mutex_destroy(&n->chains_lock);
	sl_mutex_destroy(&n->prof_lock);
	sl_mutex_destroy(&n->vms_lock);
	sl_mutex_destroy(&n->source_lock);
	sl_metrics_free(n->metrics);
	free(n);
}
