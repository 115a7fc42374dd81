/*
 * source_devnet.c — `--devnet`: the node's containers come from the devnet
 * generator (src/devnet/): its whole history first, then one live step every
 * --devnet-interval-ms.
 *
 * Restart: the generator is deterministic, so the history and the live steps
 * already taken (counted in meta "devnet/steps") are generated again and the
 * store skips every known id; the network then continues where it stopped.
 * The manifest is rewritten to <data-dir>/devnet-manifest.json after the
 * history and after every live step.
 */
#include "node/internal.h"

#include <errno.h>
#include <time.h>

#include "devnet/devnet.h"
#include "node/batch.h"

static sl_err sink(void *ctx, sl_ikind kind, const uint8_t id[32], int64_t ts_ns, const uint8_t *bytes,
		   size_t len)
{
	sl_batcher *bt = ctx;
	sl_container c = { .ts_ns = ts_ns, .bytes = bytes, .len = len };
	memcpy(c.id, id, 32);
	if (bt->node->stop && *bt->node->stop)
		return SL_ERR_UNAVAILABLE; /* stopping: end generation early */
	return sl_batcher_add(bt, kind, &c);
}

static void write_manifest(sl_node *n, sl_devnet *d)
{
	sl_buf b;
	sl_buf_init(&b, 256u << 20);
	sl_devnet_manifest_write(d, &b);
	char path[1200], tmp[1210];
	snprintf(path, sizeof path, "%s/devnet-manifest.json", n->data_dir);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "wb");
	if (f && !b.err && fwrite(b.p, 1, b.len, f) == b.len && !fclose(f))
		rename(tmp, path); /* readers see the old or the new file, whole */
	else if (f)
		fclose(f);
	sl_buf_release(&b);
}

void *sl_devnet_main(void *arg)
{
	sl_node *n = arg;
	char err[256];
	sl_devnet_config cfg = n->cfg.devnet_cfg;
	sl_devnet *d = sl_devnet_new(&cfg, err);
	sl_batcher bt;
	if (!d || sl_batcher_init(&bt, n)) {
		SL_LOG(n->log_source, SL_ERROR, "devnet: %s", d ? "out of memory" : err);
		snprintf(n->source_error, sizeof n->source_error, "devnet: %s", d ? "out of memory" : err);
		sl_devnet_free(d);
		return NULL;
	}
	uint8_t v[8];
	size_t len = 0;
	uint64_t steps = 0;
	if (sl_cstore_meta_get(n->store, "devnet/steps", v, sizeof v, &len) == SL_OK && len == 8)
		steps = sl_be64(v);
	SL_LOG(n->log_source, SL_INFO, "devnet: generating the history of seed '%s' (%llu txs)", cfg.seed,
	       (unsigned long long)cfg.txs);
	sl_err e = sl_devnet_history(d, sink, &bt);
	for (uint64_t i = 0; !e && i < steps; i++)
		e = sl_devnet_step(d, n->cfg.devnet_interval_ms / 1000 + 1, sink, &bt);
	if (!e)
		e = sl_batcher_flush(&bt);
	if (e) {
		if (!*n->stop) {
			SL_LOG(n->log_source, SL_ERROR, "devnet: %s", sl_err_name(e));
			snprintf(n->source_error, sizeof n->source_error, "devnet: %s", sl_err_name(e));
		}
		goto out;
	}
	write_manifest(n, d);
	SL_LOG(n->log_source, SL_INFO, "devnet: history ready (%llu new containers); live every %u ms",
	       (unsigned long long)bt.added, n->cfg.devnet_interval_ms);
	atomic_store(&n->source_caught_up, true);
	while (!*n->stop && n->cfg.devnet_interval_ms) {
		sl_node_sleep_ms(n, n->cfg.devnet_interval_ms);
		if (*n->stop)
			break;
		e = sl_devnet_step(d, n->cfg.devnet_interval_ms / 1000 + 1, sink, &bt);
		if (!e)
			e = sl_batcher_flush(&bt);
		if (e) {
			SL_LOG(n->log_source, SL_ERROR, "devnet: live step: %s", sl_err_name(e));
			break;
		}
		sl_put_be64(v, ++steps);
		if (sl_cstore_meta_put(n->store, "devnet/steps", v, 8))
			SL_LOG(n->log_source, SL_WARN, "devnet: cannot record the step count");
		write_manifest(n, d);
	}
out:
	sl_batcher_release(&bt);
	sl_devnet_free(d);
	return NULL;
}
