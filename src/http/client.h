/*
 * client.h — a small HTTP client (libcurl) for talking to upstream nodes and
 * EVM JSON-RPC endpoints. One sl_http_client per thread; it keeps its
 * connection alive between calls.
 */
#ifndef SL_HTTP_CLIENT_H
#define SL_HTTP_CLIENT_H

#include "util/buf.h"

typedef struct sl_http_client sl_http_client;

sl_http_client *sl_http_client_new(void);
void sl_http_client_free(sl_http_client *c);

/*
 * POST body (Content-Type: application/json) to url. The response body is
 * appended to out (bounded by out->max: a longer body fails with
 * SL_ERR_TOO_LARGE); *status gets the HTTP status. Network failures return
 * SL_ERR_UNAVAILABLE, a timeout SL_ERR_TIMEOUT, with text in err[256].
 */
SL_MUST_USE sl_err sl_http_post_json(sl_http_client *c, const char *url, const char *body, size_t len,
				     unsigned timeout_ms, sl_buf *out, long *status, char err[256]);

#endif
