/*
 * write.h — a batch of rows (rows.h) into the SQL store, with the cursor of
 * its index, in one transaction (or several batches in one): a crash at any
 * moment loses a batch and its cursor together, and the indexer applies it
 * again. For src/index/ only.
 */
#ifndef SL_INDEX_WRITE_H
#define SL_INDEX_WRITE_H

#include "index/rows.h"
#include "store/sql.h"

/* Apply b and set its index's cursor to b->next; all or nothing. sl_conn_error(c) says why. */
SL_MUST_USE sl_err ix_write(sl_conn *c, ix_batch *b);
/* The same for n batches in one transaction, in their order (each with its cursor): fewer,
 * larger commits while catching up, where most of a commit's cost is the pages it rewrites. */
SL_MUST_USE sl_err ix_write_many(sl_conn *c, ix_batch *const *v, size_t n);
/* The rows of a genesis batch and the genesis file's hash (meta 'genesis'), in one transaction;
 * the cursors stay as they are. */
SL_MUST_USE sl_err ix_write_genesis(sl_conn *c, ix_batch *b, const uint8_t hash[32]);

#endif
