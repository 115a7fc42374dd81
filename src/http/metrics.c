/*
 * metrics.c — the HTTP server's counters in the Prometheus text format, for
 * the /metrics of whichever service runs the server (node or Data API).
 */
#include "http/server.h"
#include "util/metrics.h"

#include <stddef.h>
#include <string.h>

void sl_http_metrics(void *ctx, sl_buf *out)
{
	const sl_http_server *s = *(sl_http_server *const *)ctx;
	if (!s)
		return; /* not listening yet */
	sl_http_stats st;
	sl_http_server_stats(s, &st);
	static const struct {
		const char *name, *help, *type;
		size_t off;
	} g[] = {
#define F(n, h, t, f) { "snowline_http_" n, h, t, offsetof(sl_http_stats, f) }
		F("connections_open", "HTTP connections open now.", "gauge", open),
		F("connections_max", "The cap on open HTTP connections in force.", "gauge", max_connections),
		F("connections_accepted_total", "HTTP connections accepted.", "counter", accepted),
		F("connections_evicted_total", "Idle or slow connections closed to make room under the cap.",
		  "counter", evicted),
		F("connections_refused_total",
		  "Connections answered 503: the cap was reached, none could be closed.", "counter", refused),
		F("server_requests_total", "Requests handed to the handlers.", "counter", requests),
		F("server_errors_4xx_total",
		  "4xx answers the server made itself (malformed or too large requests).", "counter",
		  errors_4xx),
		F("server_errors_5xx_total", "5xx answers the server made itself.", "counter", errors_5xx),
#undef F
	};
	for (size_t i = 0; i < sizeof g / sizeof *g; i++) {
		sl_metrics_head(out, g[i].name, g[i].help, g[i].type);
		uint64_t v;
		memcpy(&v, (const char *)&st + g[i].off, sizeof v);
		sl_metrics_sample(out, g[i].name, NULL, NULL, (double)v);
	}
	static const char *const phase[4] = { "header", "body", "idle", "write" };
	const uint64_t t[4] = { st.timeout_header, st.timeout_body, st.timeout_idle, st.timeout_write };
	sl_metrics_head(out, "snowline_http_timeouts_total", "Connections closed at a deadline, by phase.",
			"counter");
	for (int i = 0; i < 4; i++)
		sl_metrics_sample(out, "snowline_http_timeouts_total", "phase", phase[i], (double)t[i]);
}
