/*
 * genesis.h — the genesis file of a network (genesis.c has the format): its
 * genesis UTXOs and validators as rows. For src/index/ only.
 */
#ifndef SL_INDEX_GENESIS_H
#define SL_INDEX_GENESIS_H

#include "index/rows.h"

#define IX_GENESIS_MAX_FILE (256u << 20)

/* The rows of a genesis file; hrp: the network's, which every address in it must have. */
SL_MUST_USE sl_err ix_genesis_derive(ix_batch *b, const char *json, size_t n, const char *hrp, char err[256]);

#endif
