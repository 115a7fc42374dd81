/*
 * containers.h — the node's container index: five append-only indexes in
 * one LMDB environment under <data-dir>/containers.
 *
 * Layout (one LMDB sub-database per name):
 *
 *   "<kind>/c"  key: index u64 BE          value: ts i64 BE (unix ns) | id [32] | bytes
 *   "<kind>/i"  key: id [32]                value: index u64 BE
 *   "txloc"     key: tx id [32]             value: kind u8 | index u64 BE | offset u32 BE | length u32 BE
 *                                           (a tx inside a container: its bytes are that slice of it)
 *   "meta"      key: text                   value: bytes (node id, markers, cursors)
 *   "state"     key: bytes (caller's)        value: bytes (chain state the node serves)
 *
 * <kind> is one of P/block, C/block, X/tx, X/block, X/vtx.
 *
 * Invariants: indexes are 0-based and contiguous; the next index is the last
 * key of "<kind>/c" plus one, so there is no counter to get out of step. An
 * append writes both mappings in one transaction: a crash (kill -9) at any
 * moment loses at most the transaction in progress, never leaves a gap, a
 * duplicate, or an id without its container. Appending an id that is already
 * indexed is a no-op (the first bytes and index are kept), as in avalanchego.
 *
 * Threads: any number of readers, one writer at a time (LMDB serializes
 * writers). A read view (sl_cstore_rd) belongs to the thread that began it;
 * container views taken through it are valid until sl_cstore_rd_end().
 */
#ifndef SL_STORE_CONTAINERS_H
#define SL_STORE_CONTAINERS_H

#include "util/common.h"
#include "util/err.h"

typedef enum sl_ikind {
	SL_IDX_P_BLOCK,
	SL_IDX_C_BLOCK,
	SL_IDX_X_TX,
	SL_IDX_X_BLOCK,
	SL_IDX_X_VTX,
	SL_IDX__COUNT
} sl_ikind;

/* "P/block", ... and the chain alias ("P", "C", "X") of each kind. */
const char *sl_ikind_name(sl_ikind k);
const char *sl_ikind_chain(sl_ikind k);
/* Parse "P/block" etc.; false when unknown. */
bool sl_ikind_parse(const char *s, sl_ikind *out);

typedef struct sl_container {
	uint8_t id[32];
	int64_t ts_ns;
	uint64_t index;
	const uint8_t *bytes; /* view: valid for the read view or the caller's buffer */
	size_t len;
} sl_container;

typedef struct sl_cstore sl_cstore;
typedef struct sl_cstore_rd sl_cstore_rd;

/* Open or create the store in dir (created if missing). err gets the reason. */
sl_cstore *sl_cstore_open(const char *dir, char err[256]);
void sl_cstore_close(sl_cstore *s);

SL_MUST_USE sl_err sl_cstore_rd_begin(sl_cstore *s, sl_cstore_rd **rd);
void sl_cstore_rd_end(sl_cstore_rd *rd);

/* Number of containers in the index (the next index). */
SL_MUST_USE sl_err sl_cstore_count(sl_cstore_rd *rd, sl_ikind k, uint64_t *n);
/* SL_ERR_NOT_FOUND when absent. */
SL_MUST_USE sl_err sl_cstore_get(sl_cstore_rd *rd, sl_ikind k, uint64_t index, sl_container *c);
SL_MUST_USE sl_err sl_cstore_find(sl_cstore_rd *rd, sl_ikind k, const uint8_t id[32], sl_container *c);
/* The index of id, SL_ERR_NOT_FOUND when absent. */
SL_MUST_USE sl_err sl_cstore_index_of(sl_cstore_rd *rd, sl_ikind k, const uint8_t id[32], uint64_t *index);

/*
 * A hook called for each container appended (not for ids already present),
 * inside the append's transaction, with `index` set to the container's
 * place. It finds the txs inside the container (the store itself knows no
 * formats): for each one it calls put(), and the locator is written in the
 * same transaction as the container. Offsets are into the container's bytes.
 */
typedef void (*sl_cstore_put_fn)(void *put_ctx, const uint8_t tx_id[32], size_t offset, size_t len);
typedef struct sl_cstore_hook {
	void (*txs_of)(void *ctx, sl_ikind k, const sl_container *c, sl_cstore_put_fn put, void *put_ctx);
	void *ctx;
} sl_cstore_hook;

/*
 * Append containers in order, in one transaction (all or nothing). Each
 * container's `index` is ignored and ids already present are skipped;
 * *added (may be NULL) gets how many were written. `hook` may be NULL.
 */
SL_MUST_USE sl_err sl_cstore_append(sl_cstore *s, sl_ikind k, const sl_container *cs, size_t n, size_t *added,
				    const sl_cstore_hook *hook);

/* Where a tx found by a hook lives: SL_ERR_NOT_FOUND when no container holds it. */
typedef struct sl_txloc {
	sl_ikind kind;
	uint64_t index;
	size_t offset, len;
} sl_txloc;
SL_MUST_USE sl_err sl_cstore_txloc(sl_cstore_rd *rd, const uint8_t tx_id[32], sl_txloc *loc);

/*
 * Chain state a node serves beside its indexes ("state" sub-database), keyed
 * by the caller: e.g. the reward UTXOs of a staking tx, for
 * platform.getRewardUTXOs. put replaces; get's view lives as long as rd.
 */
#define SL_CSTORE_MAX_KEY 64
#define SL_CSTORE_MAX_STATE (16u << 20) /* the current validators of 10,000 run to 4 MB */
SL_MUST_USE sl_err sl_cstore_state_put(sl_cstore *s, const void *key, size_t klen, const void *val,
				       size_t vlen);
SL_MUST_USE sl_err sl_cstore_state_get(sl_cstore_rd *rd, const void *key, size_t klen, sl_span *val);

/* Small metadata values (at most 4 KiB). get: SL_ERR_NOT_FOUND when absent. */
SL_MUST_USE sl_err sl_cstore_meta_get(sl_cstore *s, const char *key, uint8_t *out, size_t cap, size_t *len);
SL_MUST_USE sl_err sl_cstore_meta_put(sl_cstore *s, const char *key, const void *val, size_t len);
SL_MUST_USE sl_err sl_cstore_meta_del(sl_cstore *s, const char *key);

#endif
