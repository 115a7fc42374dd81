/*
 * balances.c — GET …/blockchains/{blockchainId}/balances (spec 000 §4.5):
 * the balances of addresses on a chain, as they were at blockTimestamp
 * (default: now), computed from the UTXOs the addresses owned then.
 *
 * A UTXO counts at time t when it was made at or before t and not spent at
 * or before t; owned by two of the addresses, it counts once. Buckets
 * (data-api.md §6):
 *   P  unlockedUnstaked, lockedPlatform (owners' locktime ahead),
 *      lockedStakeable (a stakeable lock ahead), pendingStaked (stake whose
 *      period has not begun), lockedStaked / unlockedStaked (stake in its
 *      period that will be locked or not when the period ends — the OpenAPI
 *      document's words — i.e. a lock past its end); stake counts as staked
 *      until the RewardValidatorTx returns it
 *   X  unlocked, locked
 *   all  atomicMemoryUnlocked / atomicMemoryLocked: exported to this chain and
 *      not yet imported, per source chain (sharedWithChainId); on the P-chain
 *      their status is "pending" (waiting to be imported)
 * The C-chain has only the atomic ones (its EVM balances are another endpoint).
 */
#include "api/internal.h"

#include <time.h>

#include "codec/avax.h"

#define MAX_ROWS_PER_ADDRESS 1000000 /* a balance scans an address's UTXOs: bounded work per request */

enum {
	B_UNLOCKED_UNSTAKED,
	B_UNLOCKED_STAKED,
	B_LOCKED_PLATFORM,
	B_LOCKED_STAKEABLE,
	B_LOCKED_STAKED,
	B_PENDING_STAKED,
	B_ATOMIC_UNLOCKED,
	B_ATOMIC_LOCKED,
	B__COUNT
};

/*
 * The sums of a request, one entry per bucket, source chain and asset. Rows are appended as
 * they come and merged (sorted by bucket, chain and asset, equal ones summed) whenever the
 * array fills, so it holds the distinct entries and one chunk: an address may own any number
 * of assets. Each entry keeps the ordinal of its first row, the order a bucket lists them in.
 */
typedef struct entry {
	uint8_t asset[32];
	int32_t shared; /* atomic buckets: the source chain; else -1 */
	int32_t k;	/* the bucket */
	uint64_t amount, count, first;
} entry;

typedef struct tally {
	entry *v;
	size_t n, cap;
} tally;

#define TALLY_CHUNK 1024

static int cmp_key(const void *pa, const void *pb)
{
	const entry *a = pa, *b = pb;
	if (a->k != b->k)
		return a->k < b->k ? -1 : 1;
	if (a->shared != b->shared)
		return a->shared < b->shared ? -1 : 1;
	int c = memcmp(a->asset, b->asset, 32);
	return c ? c : a->first < b->first ? -1 : a->first > b->first;
}

static int cmp_first(const void *pa, const void *pb)
{
	const entry *a = pa, *b = pb;
	if (a->k != b->k)
		return a->k < b->k ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

static bool same(const entry *e, int k, int shared, const uint8_t asset[32])
{
	return e->k == k && e->shared == shared && !memcmp(e->asset, asset, 32);
}

static void merge(tally *t)
{
	if (!t->n)
		return;
	qsort(t->v, t->n, sizeof *t->v, cmp_key);
	size_t o = 0;
	for (size_t i = 1; i < t->n; i++) {
		entry *a = &t->v[o], *b = &t->v[i];
		if (same(a, b->k, b->shared, b->asset)) {
			a->amount = sat_add(a->amount, b->amount);
			a->count += b->count; /* sorted: a->first is the smaller */
		} else {
			t->v[++o] = *b;
		}
	}
	t->n = o + 1;
}

static bool add(tally *t, int k, const uint8_t asset[32], int shared, uint64_t amount, uint64_t pos)
{
	if (t->n && same(&t->v[t->n - 1], k, shared, asset)) {
		entry *e = &t->v[t->n - 1]; /* most rows are of the asset before */
		e->amount = sat_add(e->amount, amount);
		e->count++;
		return true;
	}
	if (t->n == t->cap) {
		merge(t);
		if (t->cap - t->n < TALLY_CHUNK) {
			size_t cap = t->cap ? 2 * t->cap : TALLY_CHUNK;
			entry *v = realloc(t->v, cap * sizeof *v);
			if (!v)
				return false;
			t->v = v;
			t->cap = cap;
		}
	}
	entry *e = &t->v[t->n++];
	memcpy(e->asset, asset, 32);
	e->k = k;
	e->shared = shared;
	e->amount = amount;
	e->count = 1;
	e->first = pos;
	return true;
}

/* An address's UTXOs in the order of its clustered key, so that a bucket's list is the same
 * on every backend and plan. */
static const sl_sql q_owned = {
	"SELECT id, created, asset, amount, otype, locktime, stake_lock, staked, stake_start, "
	"stake_end, unstaked, cts FROM addr_utxos WHERE chain = ? AND addr = ? AND ts <= ? ORDER BY ts, id"
};

static int cmp_id(const void *a, const void *b) { return memcmp(a, b, 32); }

static void write_bucket(api_req *r, const char *key, const tally *t, int k, bool shared, bool status)
{
	sl_jw_key(&r->w, key);
	sl_jw_arr(&r->w);
	for (size_t i = 0; i < t->n; i++) {
		const entry *e = &t->v[i];
		if (e->k != k)
			continue;
		sl_jw *w = &r->w;
		sl_jw_obj(w);
		api_asset_amount_fields(r, e->asset, e->amount);
		sl_jw_key(w, "utxoCount");
		sl_jw_u64(w, e->count);
		if (shared) {
			sl_jw_key(w, "sharedWithChainId");
			sl_jw_str(w, api_chain_id(r, e->shared));
		}
		if (status) {
			sl_jw_key(w, "status");
			sl_jw_str(w, "pending");
		}
		sl_jw_obj_end(w);
	}
	sl_jw_arr_end(&r->w);
}

int api_get_balances(api_req *r)
{
	const api_val *addrs = api_arg(r, "addresses"), *at = api_arg(r, "blockTimestamp");
	if (!addrs->set || !addrs->naddrs)
		return api_fail(r, 400, "addresses is required: the balances of which addresses?");
	int64_t t = at->set ? at->i : (int64_t)time(NULL);
	tally sums = { 0 };
	uint64_t pos = 0; /* the ordinal of a row among all the addresses' */
	/* the ids already counted, for UTXOs owned by more than one of the addresses */
	size_t cap = 4096, nseen = 0;
	uint8_t(*seen)[32] = malloc(cap * 32);
	if (!seen)
		return api_fail(r, 500, "out of memory");
	sl_err e = SL_OK;
	int status = 0;
	for (size_t a = 0; !e && a < addrs->naddrs; a++) {
		if (addrs->addrs[a].evm)
			continue;
		sl_stmt *s = sl_stmt_get(r->db, &q_owned);
		if (!s) {
			e = SL_ERR_STORE;
			break;
		}
		sl_bind_i64(s, 0, r->chain);
		sl_bind_blob(s, 1, addrs->addrs[a].bytes, 20);
		sl_bind_i64(s, 2, t);
		size_t rows = 0;
		size_t first = nseen; /* ids of earlier addresses are sorted in seen[0..first) */
		if ((e = sl_stmt_query(s)))
			break;
		while (sl_stmt_next(s, &e)) {
			if (++rows > MAX_ROWS_PER_ADDRESS) {
				status = api_fail(
					r, 400,
					"addresses: an address with more than %d UTXOs; ask for it at "
					"a time with fewer, or use the UTXO list",
					MAX_ROWS_PER_ADDRESS);
				goto out;
			}
			if (!sl_col_null(s, 11) && sl_col_i64(s, 11) <= t)
				continue; /* spent by then */
			size_t n;
			const uint8_t *id = sl_col_blob(s, 0, &n), *asset;
			if (n != 32)
				continue;
			if (first && bsearch(id, seen, first, 32, cmp_id))
				continue; /* counted for an earlier address */
			if (nseen == cap) {
				uint8_t(*grown)[32] = realloc(seen, 2 * cap * 32);
				if (!grown) {
					status = api_fail(r, 500, "out of memory");
					goto out;
				}
				seen = grown;
				cap *= 2;
			}
			memcpy(seen[nseen++], id, 32);
			int created = (int)sl_col_i64(s, 1);
			asset = sl_col_blob(s, 2, &n);
			if (n != 32)
				continue;
			uint64_t amount = sl_col_u64be(s, 3);
			uint32_t otype = (uint32_t)sl_col_i64(s, 4);
			int64_t locktime = sl_col_i64(s, 5), stake_lock = sl_col_i64(s, 6);
			bool staked = sl_col_i64(s, 7) != 0;
			int64_t start = sl_col_i64(s, 8), end = sl_col_i64(s, 9),
				unstaked = sl_col_null(s, 10) ? INT64_MAX : sl_col_i64(s, 10);
			bool locked = locktime > t,
			     stake_locked = otype == SL_T_STAKEABLE_LOCK_OUT && stake_lock > t;
			/* stake: locked when the period ends? */
			bool locked_at_end = locktime > end ||
					     (otype == SL_T_STAKEABLE_LOCK_OUT && stake_lock > end);
			int k;
			if (created != r->chain)
				k = locked ? B_ATOMIC_LOCKED : B_ATOMIC_UNLOCKED;
			else if (r->chain != API_P)
				k = locked ? B_LOCKED_PLATFORM : B_UNLOCKED_UNSTAKED;
			else if (staked && t < unstaked)
				k = t < start	    ? B_PENDING_STAKED
				    : locked_at_end ? B_LOCKED_STAKED
						    : B_UNLOCKED_STAKED;
			else
				k = locked	   ? B_LOCKED_PLATFORM
				    : stake_locked ? B_LOCKED_STAKEABLE
						   : B_UNLOCKED_UNSTAKED;
			if (!add(&sums, k, asset, k >= B_ATOMIC_UNLOCKED ? created : -1, amount, pos++)) {
				status = api_fail(r, 500, "out of memory");
				goto out;
			}
		}
		if (!e)
			qsort(seen, nseen, 32, cmp_id);
	}
	if (e) {
		status = api_fail_store(r, e);
		goto out;
	}
	merge(&sums);
	if (sums.n) /* none: sums.v is NULL, which qsort may not be given */
		qsort(sums.v, sums.n, sizeof *sums.v, cmp_first);
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	sl_jw_key(w, "balances");
	sl_jw_obj(w);
	if (r->chain == API_P) {
		write_bucket(r, "unlockedUnstaked", &sums, B_UNLOCKED_UNSTAKED, false, false);
		write_bucket(r, "unlockedStaked", &sums, B_UNLOCKED_STAKED, false, false);
		write_bucket(r, "lockedPlatform", &sums, B_LOCKED_PLATFORM, false, false);
		write_bucket(r, "lockedStakeable", &sums, B_LOCKED_STAKEABLE, false, false);
		write_bucket(r, "lockedStaked", &sums, B_LOCKED_STAKED, false, false);
		write_bucket(r, "pendingStaked", &sums, B_PENDING_STAKED, false, false);
	} else if (r->chain == API_X) {
		write_bucket(r, "locked", &sums, B_LOCKED_PLATFORM, false, false);
		write_bucket(r, "unlocked", &sums, B_UNLOCKED_UNSTAKED, false, false);
	}
	write_bucket(r, "atomicMemoryUnlocked", &sums, B_ATOMIC_UNLOCKED, true, r->chain == API_P);
	write_bucket(r, "atomicMemoryLocked", &sums, B_ATOMIC_LOCKED, true, r->chain == API_P);
	sl_jw_obj_end(w);
	api_chain_info(r);
	sl_jw_obj_end(w);
out:
	free(seen);
	free(sums.v);
	return status;
}
