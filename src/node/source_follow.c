/*
 * source_follow.c — `--follow URL`: mirror an upstream node's five indexes
 * through its index API, in order, from where this node's indexes end.
 *
 * The loop asks each index for index.getContainerRange from our count; an
 * answer of the right shape (avalanchego's {containers} or the spec's bare
 * array) is checked — ids decode, checksums verify, indexes are the ones
 * asked for — and appended in one transaction. Containers are stamped with
 * the time this node takes them in (spec 001 §3, rule 2). Since the resume
 * point is our own count, a restart (or a kill -9) resumes with nothing lost
 * or doubled; an upstream that goes away is retried with backoff.
 */
#include "node/internal.h"

#include <jansson.h>
#include <time.h>

#include "crypto/cb58.h"
#include "http/client.h"
#include "util/hex.h"
#include "util/limits.h"

#define FOLLOW_MAX_RESPONSE (256u << 20)

typedef enum { PULL_MORE, PULL_CAUGHT_UP, PULL_ABSENT, PULL_ERROR } pull_result;

static void set_error(sl_node *n, const char *msg)
{
	if (strcmp(n->source_error, msg))
		SL_LOG(n->log_source, SL_WARN, "follow: %s", msg);
	snprintf(n->source_error, sizeof n->source_error, "%s", msg);
	atomic_fetch_add(&n->source_errors, 1);
}

static pull_result pull(sl_node *n, sl_http_client *hc, sl_ikind k, uint32_t *want, sl_buf *resp)
{
	uint64_t have;
	sl_cstore_rd *rd;
	if (sl_cstore_rd_begin(n->store, &rd))
		return PULL_ERROR;
	sl_err e = sl_cstore_count(rd, k, &have);
	sl_cstore_rd_end(rd);
	if (e)
		return PULL_ERROR;
	char url[1200], body[256], err[256];
	snprintf(url, sizeof url, "%s/ext/index/%s", n->cfg.follow_url, sl_ikind_name(k));
	int bl = snprintf(body, sizeof body,
			  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"index.getContainerRange\","
			  "\"params\":{\"startIndex\":\"%llu\",\"numToFetch\":\"%u\",\"encoding\":\"hex\"}}",
			  (unsigned long long)have, *want);
	long status = 0;
	sl_buf_reset(resp);
	e = sl_http_post_json(hc, url, body, (size_t)bl, 60000, resp, &status, err);
	if (e == SL_ERR_TOO_LARGE && *want > 1) {
		*want /= 2; /* large containers: ask for fewer at a time */
		return PULL_MORE;
	}
	if (e) {
		set_error(n, err);
		return PULL_ERROR;
	}
	if (status == 404)
		return PULL_ABSENT; /* upstream does not serve this index */
	if (status != 200) {
		snprintf(err, sizeof err, "%s: HTTP %ld", url, status);
		set_error(n, err);
		return PULL_ERROR;
	}
	json_error_t jerr;
	json_t *root = json_loadb((const char *)resp->p, resp->len, 0, &jerr);
	if (!root) {
		snprintf(err, sizeof err, "%s: bad JSON: %s", url, jerr.text);
		set_error(n, err);
		return PULL_ERROR;
	}
	pull_result r = PULL_ERROR;
	json_t *error = json_object_get(root, "error"), *result = json_object_get(root, "result");
	if (error) {
		const char *m = json_string_value(json_object_get(error, "message"));
		if (m && (!strncmp(m, "start index", 11) || !strcmp(m, "no containers have been accepted")))
			r = PULL_CAUGHT_UP;
		else {
			snprintf(err, sizeof err, "%s: %s", url, m ? m : "error");
			set_error(n, err);
		}
		goto out;
	}
	json_t *list = json_is_object(result) ? json_object_get(result, "containers") : result;
	if (json_is_null(list) || (json_is_array(list) && json_array_size(list) == 0)) {
		r = PULL_CAUGHT_UP;
		goto out;
	}
	if (!json_is_array(list) || json_array_size(list) > *want) {
		set_error(n, "upstream answered getContainerRange with an unexpected shape");
		goto out;
	}
	size_t cnt = json_array_size(list);
	sl_container *cs = calloc(cnt, sizeof *cs);
	uint8_t **mem = calloc(cnt, sizeof *mem);
	bool ok = cs && mem;
	for (size_t i = 0; ok && i < cnt; i++) {
		json_t *c = json_array_get(list, i);
		const char *id = json_string_value(json_object_get(c, "id"));
		const char *bytes = json_string_value(json_object_get(c, "bytes"));
		const char *index = json_string_value(json_object_get(c, "index"));
		const char *msg = "missing field";
		char mb[96];
		size_t blen = bytes ? strlen(bytes) : 0, len = 0;
		ok = id && bytes && index && strtoull(index, NULL, 10) == have + i;
		if (ok)
			ok = !sl_cb58_decode_id(id, strlen(id), cs[i].id, &msg, mb);
		if (ok && blen / 2 > SL_MAX_CONTAINER + 5) {
			ok = false;
			msg = "container too large";
		}
		if (ok && !(mem[i] = malloc(blen / 2 + 1)))
			ok = false;
		if (ok)
			ok = !sl_hex_checksum_decode(bytes, blen, mem[i], blen / 2 + 1, &len, &msg);
		if (!ok) {
			snprintf(err, sizeof err, "%s: container %llu: %s", url,
				 (unsigned long long)(have + i),
				 index && strtoull(index, NULL, 10) != have + i ? "index out of order" : msg);
			set_error(n, err);
			break;
		}
		cs[i].bytes = mem[i];
		cs[i].len = len;
		cs[i].ts_ns = sl_now_ns();
	}
	if (ok) {
		size_t added = 0;
		if (sl_cstore_append(n->store, k, cs, cnt, &added, &n->tx_hook)) {
			set_error(n, "cannot write to the container store");
		} else {
			SL_LOG(n->log_source, SL_DEBUG, "follow %s: +%zu from %llu", sl_ikind_name(k), added,
			       (unsigned long long)have);
			r = cnt < *want ? PULL_CAUGHT_UP : PULL_MORE;
			n->source_error[0] = 0;
		}
	}
	for (size_t i = 0; mem && i < cnt; i++)
		free(mem[i]);
	free(mem);
	free(cs);
out:
	json_decref(root);
	return r;
}

void *sl_follow_main(void *arg)
{
	sl_node *n = arg;
	sl_http_client *hc = sl_http_client_new();
	sl_buf resp;
	sl_buf_init(&resp, FOLLOW_MAX_RESPONSE);
	uint32_t want[SL_IDX__COUNT];
	unsigned backoff = 100;
	for (int k = 0; k < SL_IDX__COUNT; k++)
		want[k] = 256;
	SL_LOG(n->log_source, SL_INFO, "following %s", n->cfg.follow_url);
	while (hc && !*n->stop) {
		bool all_caught_up = true, failed = false;
		for (int k = 0; k < SL_IDX__COUNT && !*n->stop; k++) {
			if (n->index_state[k] == SL_INDEX_OFF)
				continue;
			pull_result r;
			while ((r = pull(n, hc, (sl_ikind)k, &want[k], &resp)) == PULL_MORE && !*n->stop)
				all_caught_up = false;
			if (r == PULL_ERROR) {
				failed = true;
				all_caught_up = false;
			}
		}
		if (failed) {
			sl_node_sleep_ms(n, backoff);
			backoff = backoff * 2 > 5000 ? 5000 : backoff * 2;
			continue;
		}
		backoff = 100;
		if (all_caught_up && !atomic_load(&n->source_caught_up)) {
			SL_LOG(n->log_source, SL_INFO, "caught up with %s", n->cfg.follow_url);
			atomic_store(&n->source_caught_up, true);
		}
		sl_node_sleep_ms(n, n->cfg.follow_poll_ms ? n->cfg.follow_poll_ms : 500);
	}
	sl_buf_release(&resp);
	sl_http_client_free(hc);
	return NULL;
}
