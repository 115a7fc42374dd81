/*
 * batch.h — containers gathered per index and appended to the store in
 * batches: one LMDB transaction (and one fsync) per batch instead of one per
 * container. Used by the sources that produce many containers at once
 * (import, devnet). Containers are copied in, so callers may reuse their
 * buffers at once. A crash loses at most the batches not yet flushed; the
 * sources re-add them on restart (known ids are skipped by the store).
 */
#ifndef SL_NODE_BATCH_H
#define SL_NODE_BATCH_H

#include "node/internal.h"

#define SL_BATCH_RECORDS 512
#define SL_BATCH_BYTES (8u << 20)

typedef struct sl_batcher {
	sl_node *node;
	struct {
		sl_container cs[SL_BATCH_RECORDS];
		uint8_t *mem;
		size_t n, used;
	} b[SL_IDX__COUNT];
	uint64_t added, seen;
} sl_batcher;

SL_MUST_USE sl_err sl_batcher_init(sl_batcher *bt, sl_node *n);
void sl_batcher_release(sl_batcher *bt);
/* Queue one container (flushing its index's batch first when full). Containers
 * of an index that is off are counted and dropped. */
SL_MUST_USE sl_err sl_batcher_add(sl_batcher *bt, sl_ikind k, const sl_container *c);
SL_MUST_USE sl_err sl_batcher_flush(sl_batcher *bt);

#endif
