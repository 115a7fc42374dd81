/*
 * devnet_source.c — the devnet as the node's source (`snowline devnet`,
 * `snowline node --devnet`): a producer (node/node.h) that feeds the
 * generator's containers (src/devnet/) to the node: its whole history first,
 * then one live step every --devnet-interval-ms.
 *
 * Restart: the generator is deterministic, so the history and the live steps
 * already taken (counted in meta "devnet/steps") are generated again and the
 * feed skips every known id; the network then continues where it stopped.
 * The manifest is rewritten to <data-dir>/devnet-manifest.json after the
 * history and after every live step.
 */
#include <stdio.h>

#include "cmd/wiring.h"

static sl_err sink(void *ctx, sl_ikind kind, const uint8_t id[32], int64_t ts_ns, const uint8_t *bytes,
		   size_t len)
{
	sl_feed *f = ctx;
	if (sl_feed_stopping(f))
		return SL_ERR_UNAVAILABLE; /* stopping: end generation early */
	return sl_feed_add(f, kind, id, ts_ns, bytes, len);
}

static void write_manifest(sl_feed *f, sl_devnet *d)
{
	sl_buf b;
	sl_buf_init(&b, 256u << 20);
	sl_devnet_manifest_write(d, &b);
	char path[1200], tmp[1210];
	snprintf(path, sizeof path, "%s/devnet-manifest.json", sl_feed_data_dir(f));
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *fp = fopen(tmp, "wb");
	if (fp && !b.err && fwrite(b.p, 1, b.len, fp) == b.len && !fclose(fp))
		rename(tmp, path); /* readers see the old or the new file, whole */
	else if (fp)
		fclose(fp);
	sl_buf_release(&b);
}

static void run(void *ctx, sl_feed *f)
{
	const sl_devnet_source *src = ctx;
	sl_logger *log = sl_feed_log(f);
	char err[256];
	sl_devnet_config cfg = src->cfg;
	sl_devnet *d = sl_devnet_new(&cfg, err);
	if (!d) {
		sl_feed_fail(f, "%s", err);
		return;
	}
	uint8_t v[8];
	size_t len = 0;
	uint64_t steps = 0;
	if (sl_feed_meta_get(f, "devnet/steps", v, sizeof v, &len) == SL_OK && len == 8)
		steps = sl_be64(v);
	SL_LOG(log, SL_INFO, "devnet: generating the history of seed '%s' (%llu txs)", cfg.seed,
	       (unsigned long long)cfg.txs);
	sl_err e = sl_devnet_history(d, sink, f);
	for (uint64_t i = 0; !e && i < steps; i++)
		e = sl_devnet_step(d, src->interval_ms / 1000 + 1, sink, f);
	if (!e)
		e = sl_feed_flush(f);
	if (e) {
		if (!sl_feed_stopping(f))
			sl_feed_fail(f, "%s", sl_err_name(e));
		goto out;
	}
	write_manifest(f, d);
	SL_LOG(log, SL_INFO, "devnet: history ready (%llu new containers); live every %u ms",
	       (unsigned long long)sl_feed_added(f), src->interval_ms);
	sl_feed_caught_up(f);
	while (!sl_feed_stopping(f) && src->interval_ms) {
		sl_feed_sleep_ms(f, src->interval_ms);
		if (sl_feed_stopping(f))
			break;
		e = sl_devnet_step(d, src->interval_ms / 1000 + 1, sink, f);
		if (!e)
			e = sl_feed_flush(f);
		if (e) {
			sl_feed_fail(f, "live step: %s", sl_err_name(e));
			break;
		}
		sl_put_be64(v, ++steps);
		if (sl_feed_meta_put(f, "devnet/steps", v, 8))
			SL_LOG(log, SL_WARN, "devnet: cannot record the step count");
		write_manifest(f, d);
	}
out:
	sl_devnet_free(d);
}

sl_node_producer sl_devnet_producer(const sl_devnet_source *src)
{
	return (sl_node_producer){ .name = "devnet", .run = run, .ctx = (void *)src };
}
