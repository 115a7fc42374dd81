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

#include <time.h>

#include "http/client.h"
#include "http/indexapi.h"
#include "util/limits.h"

#define FOLLOW_MAX_RESPONSE (256u << 20)

typedef enum { PULL_MORE, PULL_CAUGHT_UP, PULL_ABSENT, PULL_ERROR } pull_result;

static void set_error(sl_node *n, const char *msg) { sl_node_source_fail(n, msg); }

static pull_result pull(sl_node *n, sl_http_client *hc, sl_ikind k, uint32_t *want, sl_buf *resp,
			sl_ixrange *rg)
{
	uint64_t have;
	sl_cstore_rd *rd;
	if (sl_cstore_rd_begin(n->store, &rd))
		return PULL_ERROR;
	sl_err e = sl_cstore_count(rd, k, &have);
	sl_cstore_rd_end(rd);
	if (e)
		return PULL_ERROR;
	char url[1200], body[256], err[256], msg[300];
	snprintf(url, sizeof url, "%s/ext/index/%s", n->cfg.follow_url, sl_ikind_name(k));
	size_t bl = sl_indexapi_range_request(body, have, *want);
	long status = 0;
	sl_buf_reset(resp);
	e = sl_http_post_json(hc, url, body, bl, 60000, resp, &status, err);
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
		snprintf(msg, sizeof msg, "%s: HTTP %ld", url, status);
		set_error(n, msg);
		return PULL_ERROR;
	}
	if (sl_indexapi_range_parse((const char *)resp->p, resp->len, have, *want, rg, err)) {
		snprintf(msg, sizeof msg, "%s: %s", url, err);
		set_error(n, msg);
		return PULL_ERROR;
	}
	if (rg->n == 0)
		return PULL_CAUGHT_UP;
	sl_container *cs = calloc(rg->n, sizeof *cs);
	if (!cs) {
		set_error(n, "out of memory");
		return PULL_ERROR;
	}
	for (size_t i = 0; i < rg->n; i++) {
		memcpy(cs[i].id, rg->items[i].id, 32);
		cs[i].bytes = rg->items[i].bytes;
		cs[i].len = rg->items[i].len;
		cs[i].ts_ns = sl_now_ns();
	}
	pull_result r = PULL_ERROR;
	size_t added = 0;
	if (sl_cstore_append(n->store, k, cs, rg->n, &added, &n->tx_hook)) {
		set_error(n, "cannot write to the container store");
	} else {
		SL_LOG(n->log_source, SL_DEBUG, "follow %s: +%zu from %llu", sl_ikind_name(k), added,
		       (unsigned long long)have);
		r = rg->n < *want ? PULL_CAUGHT_UP : PULL_MORE;
		sl_node_source_ok(n);
	}
	free(cs);
	return r;
}

void *sl_follow_main(void *arg)
{
	sl_node *n = arg;
	sl_http_client *hc = sl_http_client_new();
	sl_buf resp;
	sl_ixrange rg;
	sl_buf_init(&resp, FOLLOW_MAX_RESPONSE);
	sl_ixrange_init(&rg, FOLLOW_MAX_RESPONSE / 2);
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
			while ((r = pull(n, hc, (sl_ikind)k, &want[k], &resp, &rg)) == PULL_MORE && !*n->stop)
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
		if (all_caught_up) {
			if (!atomic_load(&n->source_caught_up))
				SL_LOG(n->log_source, SL_INFO, "caught up with %s", n->cfg.follow_url);
			sl_node_caught_up(n);
		}
		sl_node_sleep_ms(n, n->cfg.follow_poll_ms ? n->cfg.follow_poll_ms : 500);
	}
	sl_ixrange_release(&rg);
	sl_buf_release(&resp);
	sl_http_client_free(hc);
	return NULL;
}
