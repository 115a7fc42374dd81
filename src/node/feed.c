/*
 * feed.c — the feed a producer (node.h) appends through: the batcher, plus
 * the few node services a producer needs.
 */
#include "node/internal.h"

#include <stdarg.h>

#include "node/batch.h"

struct sl_feed {
	sl_node *node;
	sl_batcher bt;
};

sl_err sl_feed_add(sl_feed *f, sl_ikind k, const uint8_t id[32], int64_t ts_ns, const uint8_t *bytes,
		   size_t len)
{
	sl_container c = { .ts_ns = ts_ns, .bytes = bytes, .len = len };
	memcpy(c.id, id, 32);
	return sl_batcher_add(&f->bt, k, &c);
}

sl_err sl_feed_flush(sl_feed *f) { return sl_batcher_flush(&f->bt); }
uint64_t sl_feed_added(const sl_feed *f) { return f->bt.added; }
bool sl_feed_stopping(const sl_feed *f) { return f->node->stop && *f->node->stop; }
void sl_feed_sleep_ms(sl_feed *f, unsigned ms) { sl_node_sleep_ms(f->node, ms); }
void sl_feed_caught_up(sl_feed *f) { atomic_store(&f->node->source_caught_up, true); }
const char *sl_feed_data_dir(const sl_feed *f) { return f->node->data_dir; }
sl_logger *sl_feed_log(const sl_feed *f) { return f->node->log_source; }

sl_err sl_feed_count(sl_feed *f, sl_ikind k, uint64_t *n)
{
	sl_cstore_rd *rd;
	sl_err e = sl_cstore_rd_begin(f->node->store, &rd);
	if (e)
		return e;
	e = sl_cstore_count(rd, k, n);
	sl_cstore_rd_end(rd);
	return e;
}

void sl_feed_fail(sl_feed *f, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	sl_node_source_fail(f->node, msg);
}

sl_err sl_feed_meta_get(sl_feed *f, const char *key, uint8_t *out, size_t cap, size_t *len)
{
	return sl_cstore_meta_get(f->node->store, key, out, cap, len);
}

sl_err sl_feed_meta_put(sl_feed *f, const char *key, const void *val, size_t len)
{
	return sl_cstore_meta_put(f->node->store, key, val, len);
}

void *sl_producer_main(void *arg)
{
	sl_node *n = arg;
	sl_feed f = { .node = n };
	if (sl_batcher_init(&f.bt, n)) {
		sl_node_source_fail(n, "out of memory");
		return NULL;
	}
	n->cfg.producer->run(n->cfg.producer->ctx, &f);
	sl_err e = sl_batcher_flush(&f.bt);
	if (e)
		sl_node_source_fail(n, sl_err_name(e));
	sl_batcher_release(&f.bt);
	return NULL;
}
