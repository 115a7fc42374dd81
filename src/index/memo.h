/*
 * memo.h — what the indexer's writer remembers of UTXOs between batches, so
 * that applying a spend does not have to ask the store. For src/index/ only.
 *
 * Two things, both shortcuts that a miss turns into a question to the store
 * (write.c), never a different answer:
 *
 *   locations  for a UTXO the writer made: its key in `utxos` (the chain and
 *              position of the tx its id names) and what its owners' rows in
 *              `addr_utxos` are keyed by (the chain it is spent on, its
 *              creation time, its owners). These never change once a UTXO is
 *              made, so an entry is never wrong while the row exists; after a
 *              rolled-back transaction the rows may not, and the writer
 *              forgets everything (ix_memo_forget).
 *   early      a Bloom filter of the ids in `early_spends` (spends applied
 *              before the store saw the UTXO made): a creation asks the store
 *              for its early spend only when the filter says it may have one.
 *
 * Memory: two generations of IX_MEMO_SLOTS slots (IX_MEMO_SLOTS / 2 entries
 * each, ~26 MiB), a 2 MiB filter and a 1 MiB set of the batch's activity rows
 * (the addr_txs rows a batch wrote, so that an address's several inputs and
 * outputs in one tx cost one statement), allocated by ix_memo_init. When the newer
 * generation is full the older one is dropped: a UTXO not spent within about
 * a generation's worth of newer UTXOs is looked up in the store instead.
 * UTXOs with more than IX_LOC_ADDRS owners are not remembered.
 *
 *   pending    the UTXOs made in the current transaction, whose rows are not
 *              written yet: write.c writes them together before the commit,
 *              in key order, with the spend (or the end of the stake) that a
 *              later tx of the same transaction brought. A UTXO spent soon
 *              after it was made is then written once, spent, instead of
 *              inserted and updated again; and the inserts are appends in
 *              key order. Held by index (IX_PEND_MAX at most, then written
 *              early), with a hash table over ids that grows with them.
 *
 * Not thread-safe: the writer thread alone uses it.
 */
#ifndef SL_INDEX_MEMO_H
#define SL_INDEX_MEMO_H

#include "index/rows.h"

#define IX_LOC_ADDRS 2
#define IX_MEMO_SLOTS ((size_t)1 << 18)

/* Where a UTXO's rows are. addrs: naddrs * 20 bytes (the owners, as the output lists them). */
typedef struct ix_loc {
	uint8_t chain, dest;
	uint32_t naddrs;
	uint64_t pos;
	int64_t ts;
	uint8_t addrs[IX_LOC_ADDRS * 20];
} ix_loc;

typedef struct ix_memo_slot {
	ix_loc loc;
	uint8_t id[32];
	bool used;
} ix_memo_slot;

/* An addr_txs row written in the current batch: (space, address, seq). */
typedef struct ix_memo_act {
	uint64_t seq;
	uint8_t addr[20];
	uint8_t space;
	bool used;
} ix_memo_act;

#define IX_ACT_SLOTS ((size_t)1 << 15)

/* A UTXO made in the current transaction and not written yet. Its pointers (and the spend's) are
 * into the transaction's batches, which live until it ends. */
typedef struct ix_pend {
	ix_out out;
	ix_spend spend; /* when spent */
	int64_t unstaked;
	bool spent, unstake;
} ix_pend;

#define IX_PEND_MAX ((size_t)1 << 20)

typedef struct ix_memo {
	ix_memo_slot *gen[2]; /* gen[cur] takes new entries; the other is the older generation */
	size_t n[2];
	int cur;
	uint8_t *early;	   /* the Bloom filter's bits */
	bool early_loaded; /* the filter holds every id of early_spends (write.c loads it) */
	size_t early_adds; /* ids added since it was loaded (merged ones stay in it) */
	ix_memo_act *acts; /* the batch's addr_txs rows (IX_ACT_SLOTS), and which slots are used */
	uint16_t *act_used;
	size_t nacts;
	ix_pend *pend; /* npend of pend_cap used, in the order they were made */
	size_t npend, pend_cap;
	uint32_t *pend_slots; /* index + 1 into pend, 0 for empty; pend_mask + 1 slots */
	size_t pend_mask;
} ix_memo;

/* false when out of memory (m is then released and empty, every lookup a miss). */
SL_MUST_USE bool ix_memo_init(ix_memo *m);
void ix_memo_release(ix_memo *m);
/* A UTXO made: remember where it is (ignored when it has more than IX_LOC_ADDRS owners). */
void ix_memo_put(ix_memo *m, const uint8_t id[32], const ix_loc *l);
/* Where the UTXO is, when remembered; take also forgets it (it is spent). */
bool ix_memo_peek(const ix_memo *m, const uint8_t id[32], ix_loc *out);
bool ix_memo_take(ix_memo *m, const uint8_t id[32], ix_loc *out);
/* After a transaction rolled back: nothing remembered, the filter to be loaded again. */
void ix_memo_forget(ix_memo *m);

/* A UTXO made: pending now (its record, to fill in), or NULL when out of memory (write it at
 * once). Made again before it was written: the newer creation's columns, its spend kept. */
ix_pend *ix_memo_pend_add(ix_memo *m, const ix_out *u);
/* The pending UTXO of this id, or NULL. */
ix_pend *ix_memo_pend_find(const ix_memo *m, const uint8_t id[32]);
/* Once they are written (or rolled back): none pending. */
void ix_memo_pend_clear(ix_memo *m);

/* Has the batch written this addr_txs row already? If not, it is noted as written now (true: skip
 * it). Past half the slots nothing more is noted: a repeat is then written again, which the row's
 * key makes a no-op. ix_memo_acts_clear starts the next batch. */
bool ix_memo_act_seen(ix_memo *m, uint8_t space, const uint8_t addr[20], uint64_t seq);
void ix_memo_acts_clear(ix_memo *m);

/* The early-spend filter: add an id; may early_spends hold it? (false: certainly not). Past
 * IX_EARLY_RELOAD ids added, early_loaded turns false, so that the writer loads the filter again
 * from the table (which has lost the merged ones) before it saturates. */
#define IX_EARLY_RELOAD ((size_t)1 << 20)
void ix_memo_early_add(ix_memo *m, const uint8_t id[32]);
/* Before the filter is loaded again: no id in it. */
void ix_memo_early_reset(ix_memo *m);
bool ix_memo_early_maybe(const ix_memo *m, const uint8_t id[32]);

#endif
