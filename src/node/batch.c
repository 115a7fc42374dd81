#include "node/batch.h"

#include "util/limits.h"

sl_err sl_batcher_init(sl_batcher *bt, sl_node *n)
{
	memset(bt, 0, sizeof *bt);
	bt->node = n;
	for (int k = 0; k < SL_IDX__COUNT; k++)
		if (!(bt->b[k].mem = malloc(SL_BATCH_BYTES))) {
			sl_batcher_release(bt);
			return SL_ERR_NOMEM;
		}
	return SL_OK;
}

void sl_batcher_release(sl_batcher *bt)
{
	for (int k = 0; k < SL_IDX__COUNT; k++) {
		free(bt->b[k].mem);
		bt->b[k].mem = NULL;
	}
}

static sl_err flush_one(sl_batcher *bt, int k)
{
	if (!bt->b[k].n)
		return SL_OK;
	size_t a = 0;
	sl_err e = sl_cstore_append(bt->node->store, (sl_ikind)k, bt->b[k].cs, bt->b[k].n, &a,
				    &bt->node->tx_hook);
	bt->added += a;
	bt->b[k].n = bt->b[k].used = 0;
	return e;
}

sl_err sl_batcher_add(sl_batcher *bt, sl_ikind k, const sl_container *c)
{
	bt->seen++;
	if (bt->node->index_state[k] == SL_INDEX_OFF)
		return SL_OK; /* accepted, but this index is off */
	if (c->len > SL_MAX_CONTAINER)
		return SL_ERR_TOO_LARGE;
	if (bt->b[k].n == SL_BATCH_RECORDS || bt->b[k].used + c->len > SL_BATCH_BYTES) {
		sl_err e = flush_one(bt, k);
		if (e)
			return e;
	}
	sl_container *dst = &bt->b[k].cs[bt->b[k].n++];
	*dst = *c;
	if (c->len)
		memcpy(bt->b[k].mem + bt->b[k].used, c->bytes, c->len);
	dst->bytes = bt->b[k].mem + bt->b[k].used;
	bt->b[k].used += c->len;
	return SL_OK;
}

sl_err sl_batcher_flush(sl_batcher *bt)
{
	sl_err first = SL_OK;
	for (int k = 0; k < SL_IDX__COUNT; k++) {
		sl_err e = flush_one(bt, k);
		if (e && !first)
			first = e;
	}
	return first;
}
