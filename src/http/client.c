#include "http/client.h"

#include <curl/curl.h>
#include <pthread.h>

struct sl_http_client {
	CURL *h;
	struct curl_slist *headers;
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void global_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

sl_http_client *sl_http_client_new(void)
{
	pthread_once(&once, global_init);
	sl_http_client *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->h = curl_easy_init();
	c->headers = curl_slist_append(NULL, "Content-Type: application/json");
	if (!c->h || !c->headers) {
		sl_http_client_free(c);
		return NULL;
	}
	return c;
}

void sl_http_client_free(sl_http_client *c)
{
	if (!c)
		return;
	if (c->h)
		curl_easy_cleanup(c->h);
	curl_slist_free_all(c->headers);
	free(c);
}

static size_t on_data(char *p, size_t size, size_t nmemb, void *ud)
{
	sl_buf *out = ud;
	size_t n = size * nmemb;
	sl_buf_add(out, p, n);
	return out->err ? 0 : n; /* 0 aborts the transfer */
}

sl_err sl_http_post_json(sl_http_client *c, const char *url, const char *body, size_t len,
			 unsigned timeout_ms, sl_buf *out, long *status, char err[256])
{
	CURL *h = c->h;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_POST, 1L);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)len);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, c->headers);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)SL_MIN(timeout_ms, 5000u));
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	CURLcode rc = curl_easy_perform(h);
	if (rc != CURLE_OK) {
		if (out->err) {
			snprintf(err, 256, "response larger than %zu bytes", out->max);
			return SL_ERR_TOO_LARGE;
		}
		snprintf(err, 256, "%s", curl_easy_strerror(rc));
		return rc == CURLE_OPERATION_TIMEDOUT ? SL_ERR_TIMEOUT : SL_ERR_UNAVAILABLE;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	return SL_OK;
}
