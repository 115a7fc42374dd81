/*
 * metrics.c — the node's Prometheus metrics at GET /ext/metrics (where
 * avalanchego serves its own):
 *
 *   snowline_http_requests_total{route,method,code}       counter
 *   snowline_http_request_duration_seconds{route,method}  histogram
 *   snowline_index_containers{index}                      gauge (read from the store)
 *   snowline_index_appended_total{index}                  counter (new containers this run)
 *   snowline_source_caught_up / _errors_total / _lag_seconds / _info{source}
 *   process_* (CPU, memory, fds), snowline_heap_allocated_bytes (tcmalloc builds)
 *
 * Label values come from closed sets: route names of the route table (or
 * "notfound"), HTTP methods (or "other"), status codes.
 */
#include "node/internal.h"

#ifdef SL_HAVE_TCMALLOC
#include <gperftools/malloc_extension_c.h>
#endif

static const char *method_label(const char *m)
{
	static const char *const known[] = { "GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH" };
	for (size_t i = 0; i < SL_ARRAY_LEN(known); i++)
		if (!strcmp(m, known[i]))
			return known[i];
	return "other";
}

void sl_node_metrics_request(sl_node *n, const char *route_name, const char *method, int status, int64_t ns)
{
	char code[8];
	snprintf(code, sizeof code, "%d", status >= 100 && status <= 599 ? status : 0);
	const char *m = method_label(method);
	const char *v[SL_METRIC_MAX_LABELS] = { route_name, m, code };
	sl_series_add(sl_metric_series(n->m_requests, v), 1);
	sl_series_observe_ns(sl_metric_series2(n->m_latency, route_name, m), ns);
}

void sl_node_caught_up(sl_node *n)
{
	atomic_store(&n->caught_up_ns, sl_now_ns());
	atomic_store(&n->source_caught_up, true);
	sl_evm_warm(
		n); /* replay the C-chain now, on the source's thread (a request meanwhile waits for it) */
}

static void collect(void *ctx, sl_buf *out)
{
	sl_node *n = ctx;
	sl_cstore_rd *rd = NULL;
	if (sl_cstore_rd_begin(n->store, &rd) == SL_OK) {
		sl_metrics_head(out, "snowline_index_containers", "Containers in each index.", "gauge");
		for (int k = 0; k < SL_IDX__COUNT; k++) {
			uint64_t c = 0;
			if (n->index_state[k] != SL_INDEX_OFF &&
			    sl_cstore_count(rd, (sl_ikind)k, &c) == SL_OK)
				sl_metrics_sample(out, "snowline_index_containers", "index",
						  sl_ikind_name((sl_ikind)k), (double)c);
		}
		sl_cstore_rd_end(rd);
	}
	const char *src = sl_node_source_name(n);
	if (src) {
		char err[256];
		bool up = atomic_load(&n->source_caught_up);
		int64_t at = atomic_load(&n->caught_up_ns), now = sl_now_ns();
		sl_metrics_head(out, "snowline_source_info", "The node's source of containers (value 1).",
				"gauge");
		sl_metrics_sample(out, "snowline_source_info", "source", src, 1);
		sl_metrics_head(out, "snowline_source_caught_up",
				"1 when the source has delivered everything it had at least once.", "gauge");
		sl_metrics_sample(out, "snowline_source_caught_up", NULL, NULL, up);
		sl_metrics_head(out, "snowline_source_healthy", "1 when the source's last attempt succeeded.",
				"gauge");
		sl_metrics_sample(out, "snowline_source_healthy", NULL, NULL, !sl_node_source_error(n, err));
		sl_metrics_head(out, "snowline_source_errors_total",
				"Failures of the source (each retry counts).", "counter");
		sl_metrics_sample(out, "snowline_source_errors_total", NULL, NULL,
				  (double)atomic_load(&n->source_errors));
		sl_metrics_head(
			out, "snowline_source_lag_seconds",
			"Seconds since the node last held everything its source had (since start when never).",
			"gauge");
		int64_t since = at ? at : n->start_ns;
		sl_metrics_sample(out, "snowline_source_lag_seconds", NULL, NULL,
				  (double)(now - since) / 1e9);
	}
#ifdef SL_HAVE_TCMALLOC
	size_t v = 0;
	if (MallocExtension_GetNumericProperty("generic.current_allocated_bytes", &v)) {
		sl_metrics_head(out, "snowline_heap_allocated_bytes",
				"Bytes the program holds from tcmalloc.", "gauge");
		sl_metrics_sample(out, "snowline_heap_allocated_bytes", NULL, NULL, (double)v);
	}
#endif
}

sl_err sl_node_metrics_init(sl_node *n)
{
	if (!(n->metrics = sl_metrics_new()))
		return SL_ERR_NOMEM;
	n->m_requests = sl_metric_family_add(n->metrics, "snowline_http_requests_total",
					     "HTTP requests answered, by route, method and status.",
					     SL_METRIC_COUNTER, "route,method,code");
	n->m_latency = sl_metric_family_add(n->metrics, "snowline_http_request_duration_seconds",
					    "Time to answer a request, by route and method.",
					    SL_METRIC_HISTOGRAM, "route,method");
	n->m_appended = sl_metric_family_add(n->metrics, "snowline_index_appended_total",
					     "Containers appended to each index since the node started.",
					     SL_METRIC_COUNTER, "index");
	if (!n->m_requests || !n->m_latency || !n->m_appended)
		return SL_ERR_NOMEM;
	sl_metrics_collector(n->metrics, collect, n);
	sl_metrics_collector(n->metrics, sl_http_metrics, &n->http);
	sl_metrics_collector(n->metrics, sl_metrics_process, NULL);
	return SL_OK;
}

void sl_route_metrics(sl_node *n, const route *r, const sl_http_req *req, sl_http_resp *resp)
{
	(void)r;
	if (strcmp(req->method, "GET") && strcmp(req->method, "HEAD")) {
		sl_http_resp_text(resp, 405, "405 method not allowed\n");
		sl_http_resp_header(resp, "Allow", "GET, HEAD");
		return;
	}
	resp->status = 200;
	resp->content_type = SL_METRICS_CONTENT_TYPE;
	sl_metrics_write(n->metrics, &resp->body);
}
