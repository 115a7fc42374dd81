/*
 * xchain.c — the devnet's X-chain: genesis allocations, then the DAG era
 * (signed txs in X/tx, grouped into v0 vertices in X/vtx), the Cortina stop
 * vertex, and StandardBlocks wrapped in proposervm blocks (X/block).
 *
 * Every tx is built from the ledger in w->utxos[DN_X] and follows the AVM's
 * rules: outputs sorted by bytes, inputs by (txID, index), operations by
 * their bytes, initial states' outputs by bytes, AVAX in = AVAX out + fee,
 * other assets balanced exactly, one credential per input in input order
 * (imported inputs after the tx's own), then one per operation with the
 * fx's credential type.
 *
 * Outputs of the txs in a container become spendable only when the next
 * container can see them: after a block, or after a vertex that is then the
 * only tip of the DAG (a fork vertex shares its parents with its sibling, so
 * neither may spend the other's outputs). They wait in `pending` until then.
 *
 * Two fxs only: secp256k1fx (AVAX and fungible assets, secp MintOperations)
 * and nftfx (NFT families). No propertyfx: avalanchejs 5.2.0, which every
 * generated tx must parse in with the same id (issue 4), has no codec entry
 * for its type ids 15-19.
 *
 * Speed: the ledger is indexed here, not scanned. Single-owner fungible
 * UTXOs sit in buckets keyed by (asset, owner); NFTs, mint outputs and
 * multi-owner UTXOs sit in pools picked at random. Spent entries
 * leave the indexes lazily, and when more than half of w->utxos[DN_X] is
 * spent the set is compacted (spent UTXOs dropped) and the indexes rebuilt,
 * so memory follows the unspent set rather than the history.
 */
#include "devnet/world.h"

#include <stdio.h>
#include <stdlib.h>

#include "codec/writer.h"
#include "codec/xchain.h"
#include "crypto/addr.h"
#include "crypto/cb58.h"
#include "crypto/hash.h"

#define MAX_INS 16
#define MAX_OUTS 12
#define MAX_IMP 4
#define MAX_EXP 2
#define MAX_OPS 3
#define MAX_STATE_OUTS 12
#define MAX_OP_OUTS 4
#define CONSOLIDATE_AT 24 /* a bucket this long gets extra inputs, keeping buckets short */
#define COMPACT_MIN 65536 /* do not compact a set smaller than this */
#define TX_BUF_MAX (64u << 20)

enum { AK_SECP, AK_NFT };
static const char *const kind_names[] = { "secp256k1", "nft" };

typedef struct ivec {
	size_t *v;
	size_t n, cap;
} ivec;

typedef struct xasset {
	uint8_t id[32];
	char name[48], symbol[5];
	uint8_t denom, kind;
	uint64_t supply; /* secp: units minted; nft: NFTs minted */
	uint32_t minted; /* nft serial numbers */
} xasset;

typedef struct bucket {
	uint64_t key; /* asset index << 32 | key index */
	ivec list;    /* indexes into w->utxos[DN_X].v */
} bucket;

typedef struct xin {
	dn_utxo *u;
	uint32_t nsig, sigpos[DN_MAX_OWNERS];
} xin;

typedef struct xop {
	uint32_t type; /* 8, 12, 13 */
	xin in;	       /* the UTXO it consumes */
	dn_utxo outs[MAX_OP_OUTS];
	uint32_t nouts;
} xop;

/* A tx being built: what it spends and what it creates, before ordering. */
typedef struct xtx {
	uint32_t type;
	xin ins[MAX_INS];
	uint32_t nins;
	xin imp[MAX_IMP];
	uint32_t nimp;
	int chain; /* import source / export destination */
	dn_utxo outs[MAX_OUTS];
	uint32_t nouts;
	dn_utxo exp[MAX_EXP];
	uint32_t nexp;
	uint32_t fx; /* CreateAssetTx: the one initial state's fx */
	uint8_t kind, denom;
	char name[48], symbol[5];
	dn_utxo st[MAX_STATE_OUTS];
	uint32_t nst;
	xop ops[MAX_OPS];
	uint32_t nops;
	char memo[48];
} xtx;

typedef struct xrec {
	uint8_t id[32];
	size_t off, len;
	uint64_t time;
} xrec;

struct dn_xstate {
	dn_rng rng;
	uint8_t genesis_tx[32];
	uint32_t ngenesis;
	dn_utxos genesis; /* the genesis outputs, as made (for the manifest: the ledger drops spent ones) */
	/* assets: index 0 is AVAX */
	xasset *assets;
	size_t nassets, cap_assets;
	uint32_t *amap; /* open addressing: asset index + 1 */
	size_t amap_cap;
	/* buckets of single-owner fungible UTXOs */
	bucket *buckets;
	size_t nbuckets, cap_buckets;
	uint32_t *bmap; /* bucket index + 1 */
	size_t bmap_cap;
	ivec p_multi, p_ant, p_nft, p_mint6, p_mint10;
	size_t nspent; /* spent entries still in w->utxos[DN_X] */
	dn_utxos pending;
	/* the container being filled */
	sl_buf txbuf;
	xrec *recs;
	size_t nrecs, cap_recs;
	uint32_t target; /* txs wanted in this container */
	/* DAG */
	uint8_t tips[2][32];
	uint64_t tip_h[2];
	uint32_t ntips;
	uint8_t lastpar[2][32]; /* parents of the last vertex, for a fork */
	uint64_t lastpar_h[2];
	uint32_t nlastpar;
	bool fork_next, held; /* held: pending must wait for a merge */
	uint64_t vertices;
	bool linear;
	uint8_t stop_vtx[32];
	uint64_t stop_height;
	uint64_t xblocks;
	/* shared memory import cursors, by source chain */
	size_t imp_cur[DN_CHAINS];
	/* exports of the open container: the last open_exp[dst] entries of w->shared[dst][DN_X] */
	size_t open_exp[DN_CHAINS];
	uint64_t counts[5];
	xtx scratch;
};

/* ---------------------------------------------------------------- small containers */

static bool ivec_push(ivec *v, size_t x)
{
	size_t *slot = DN_PUSH(v->v, v->n, v->cap);
	if (slot)
		*slot = x;
	return slot != NULL;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* ---------------------------------------------------------------- assets */

static int64_t asset_find(const struct dn_xstate *x, const uint8_t id[32])
{
	if (!x->amap_cap)
		return -1;
	size_t m = x->amap_cap - 1, h = (size_t)mix64(sl_be64(id)) & m;
	for (;; h = (h + 1) & m) {
		uint32_t e = x->amap[h];
		if (!e)
			return -1;
		if (!memcmp(x->assets[e - 1].id, id, 32))
			return (int64_t)e - 1;
	}
}

static void amap_put(struct dn_xstate *x, size_t idx)
{
	size_t m = x->amap_cap - 1, h = (size_t)mix64(sl_be64(x->assets[idx].id)) & m;
	while (x->amap[h])
		h = (h + 1) & m;
	x->amap[h] = (uint32_t)idx + 1;
}

static xasset *asset_add(struct dn_xstate *x, const uint8_t id[32])
{
	if (!dn_grow((void **)&x->assets, &x->cap_assets, x->nassets, sizeof *x->assets))
		return NULL;
	if ((x->nassets + 1) * 2 > x->amap_cap) {
		size_t cap = x->amap_cap ? x->amap_cap * 2 : 256;
		uint32_t *m = calloc(cap, sizeof *m);
		if (!m)
			return NULL;
		free(x->amap);
		x->amap = m;
		x->amap_cap = cap;
		for (size_t i = 0; i < x->nassets; i++)
			amap_put(x, i);
	}
	xasset *a = &x->assets[x->nassets];
	*a = (xasset){ 0 };
	memcpy(a->id, id, 32);
	amap_put(x, x->nassets++);
	return a;
}

/* ---------------------------------------------------------------- buckets */

static bucket *bucket_get(struct dn_xstate *x, uint32_t asset, uint32_t k, bool create)
{
	uint64_t key = (uint64_t)asset << 32 | k;
	if (x->bmap_cap) {
		size_t m = x->bmap_cap - 1;
		for (size_t h = (size_t)mix64(key) & m;; h = (h + 1) & m) {
			uint32_t e = x->bmap[h];
			if (!e)
				break;
			if (x->buckets[e - 1].key == key)
				return &x->buckets[e - 1];
		}
	}
	if (!create)
		return NULL;
	if (!dn_grow((void **)&x->buckets, &x->cap_buckets, x->nbuckets, sizeof *x->buckets))
		return NULL;
	if ((x->nbuckets + 1) * 2 > x->bmap_cap) {
		size_t cap = x->bmap_cap ? x->bmap_cap * 2 : 1024;
		uint32_t *mp = calloc(cap, sizeof *mp);
		if (!mp)
			return NULL;
		free(x->bmap);
		x->bmap = mp;
		x->bmap_cap = cap;
		for (size_t i = 0; i < x->nbuckets; i++) {
			size_t h = (size_t)mix64(x->buckets[i].key) & (cap - 1);
			while (x->bmap[h])
				h = (h + 1) & (cap - 1);
			x->bmap[h] = (uint32_t)i + 1;
		}
	}
	bucket *b = &x->buckets[x->nbuckets];
	*b = (bucket){ .key = key };
	size_t m = x->bmap_cap - 1, h = (size_t)mix64(key) & m;
	while (x->bmap[h])
		h = (h + 1) & m;
	x->bmap[h] = (uint32_t)++x->nbuckets;
	return b;
}

/* Put UTXO i of the X set into the index that fits it. */
static bool index_utxo(dn_world *w, size_t i)
{
	struct dn_xstate *x = w->x;
	const dn_utxo *u = &w->utxos[DN_X].v[i];
	if (u->spent)
		return true;
	bool single = u->nowners == 1 && u->threshold == 1;
	switch (u->type_id) {
	case SL_T_SECP_TRANSFER_OUTPUT: {
		int64_t a = asset_find(x, u->asset_id);
		if (a < 0)
			return true; /* an asset we do not know (never made here): left alone */
		if (!single)
			return a == 0 ? ivec_push(&x->p_multi, i) : true;
		bucket *b = bucket_get(x, (uint32_t)a, u->owners[0], true);
		if (!b || !ivec_push(&b->list, i))
			return false;
		return a == 0 || ivec_push(&x->p_ant, i);
	}
	case SL_T_SECP_MINT_OUTPUT: return ivec_push(&x->p_mint6, i);
	case SL_T_NFT_MINT_OUTPUT: return ivec_push(&x->p_mint10, i);
	case SL_T_NFT_TRANSFER_OUTPUT: return single ? ivec_push(&x->p_nft, i) : true;
	default: return true;
	}
}

static bool reindex(dn_world *w)
{
	struct dn_xstate *x = w->x;
	for (size_t i = 0; i < x->nbuckets; i++)
		x->buckets[i].list.n = 0;
	x->p_multi.n = x->p_ant.n = x->p_nft.n = 0;
	x->p_mint6.n = x->p_mint10.n = 0;
	for (size_t i = 0; i < w->utxos[DN_X].n; i++)
		if (!index_utxo(w, i))
			return false;
	return true;
}

/* Drop spent UTXOs from the X set once they are the majority. */
static bool maybe_compact(dn_world *w)
{
	struct dn_xstate *x = w->x;
	dn_utxos *s = &w->utxos[DN_X];
	if (s->n < COMPACT_MIN || x->nspent * 2 < s->n)
		return true;
	size_t j = 0;
	for (size_t i = 0; i < s->n; i++)
		if (!s->v[i].spent)
			s->v[j++] = s->v[i];
	s->n = j;
	x->nspent = 0;
	return reindex(w);
}

/* Flush the outputs of sealed containers into the ledger and its indexes. */
static bool flush_pending(dn_world *w)
{
	struct dn_xstate *x = w->x;
	if (!maybe_compact(w))
		return false;
	for (size_t i = 0; i < x->pending.n; i++) {
		if (!dn_utxo_add(&w->utxos[DN_X], &x->pending.v[i]))
			return false;
		if (!index_utxo(w, w->utxos[DN_X].n - 1))
			return false;
	}
	x->pending.n = 0;
	return true;
}

static void mark_spent(dn_world *w, dn_utxo *u, bool own_set)
{
	u->spent = true;
	if (own_set)
		w->x->nspent++;
}

/* ---------------------------------------------------------------- choosing */

static bool unlocked(const dn_utxo *u, uint64_t t) { return !u->spent && u->locktime <= t; }

/* A random live entry of a pool (spent entries are dropped on the way). */
static dn_utxo *pool_pick(dn_world *w, ivec *p, uint64_t t, uint32_t type, bool avax_only)
{
	struct dn_xstate *x = w->x;
	dn_utxos *s = &w->utxos[DN_X];
	for (int tries = 0; tries < 8 && p->n; tries++) {
		size_t j = (size_t)dn_rng_below(&x->rng, p->n);
		dn_utxo *u = &s->v[p->v[j]];
		if (u->spent || u->type_id != type) {
			p->v[j] = p->v[--p->n];
			continue;
		}
		if (u->locktime > t || (avax_only && memcmp(u->asset_id, w->avax, 32)))
			continue;
		return u;
	}
	return NULL;
}

/* A random live, unlocked UTXO of a bucket (spent entries are dropped on the way). */
static const dn_utxo *bucket_pick(dn_world *w, uint32_t asset, uint32_t k, uint64_t t)
{
	struct dn_xstate *x = w->x;
	bucket *b = bucket_get(x, asset, k, false);
	for (int tries = 0; b && tries < 8 && b->list.n; tries++) {
		size_t j = (size_t)dn_rng_below(&x->rng, b->list.n);
		const dn_utxo *u = &w->utxos[DN_X].v[b->list.v[j]];
		if (u->spent) {
			b->list.v[j] = b->list.v[--b->list.n];
			continue;
		}
		if (u->locktime <= t)
			return u;
	}
	return NULL;
}

/* Sign with `threshold` of the owners, chosen at random, positions ascending. */
static void pick_signers(struct dn_xstate *x, const dn_utxo *u, xin *in)
{
	in->u = (dn_utxo *)u;
	in->nsig = u->threshold;
	if (u->threshold == u->nowners || u->nowners == 1) {
		for (uint32_t i = 0; i < u->threshold; i++)
			in->sigpos[i] = i;
		return;
	}
	/* drop nowners - threshold positions at random */
	bool use[DN_MAX_OWNERS] = { false };
	for (uint32_t i = 0; i < u->nowners; i++)
		use[i] = true;
	for (uint32_t d = 0; d < u->nowners - u->threshold;) {
		uint32_t p = (uint32_t)dn_rng_below(&x->rng, u->nowners);
		if (use[p]) {
			use[p] = false;
			d++;
		}
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < u->nowners; i++)
		if (use[i])
			in->sigpos[n++] = i;
}

static bool in_tx(const xtx *tx, const dn_utxo *u)
{
	for (uint32_t i = 0; i < tx->nins; i++)
		if (tx->ins[i].u == u)
			return true;
	for (uint32_t i = 0; i < tx->nops; i++)
		if (tx->ops[i].in.u == u)
			return true;
	return false;
}

/*
 * Add inputs of `asset` owned by k alone, unlocked at t, to at least
 * `amount`; with `consolidate`, a long bucket gives a few more. Returns the
 * total, or 0 (and leaves tx as it was) if k cannot pay.
 */
static uint64_t take(dn_world *w, xtx *tx, uint32_t k, uint32_t asset, uint64_t amount, uint64_t t,
		     bool consolidate)
{
	struct dn_xstate *x = w->x;
	bucket *b = bucket_get(x, asset, k, false);
	if (!b)
		return 0;
	dn_utxos *s = &w->utxos[DN_X];
	uint32_t n0 = tx->nins, extra = 0;
	uint64_t sum = 0;
	for (size_t i = 0; i < b->list.n && tx->nins < MAX_INS;) {
		dn_utxo *u = &s->v[b->list.v[i]];
		if (u->spent) {
			b->list.v[i] = b->list.v[--b->list.n];
			continue;
		}
		i++;
		if (u->locktime > t || in_tx(tx, u))
			continue;
		if (sum >= amount) {
			if (!consolidate || b->list.n <= CONSOLIDATE_AT || extra >= 4)
				break;
			extra++;
		}
		pick_signers(x, u, &tx->ins[tx->nins++]);
		sum += u->amount;
	}
	if (sum < amount || sum == 0) {
		tx->nins = n0;
		return 0;
	}
	return sum;
}

static void owners_single(dn_utxo *o, uint32_t k)
{
	o->threshold = 1;
	o->nowners = 1;
	o->owners[0] = k;
}

/* 2-of-3 among distinct random keys (one of them `with`), sorted by address. */
static void owners_multi(const dn_world *w, dn_utxo *o, uint32_t with)
{
	struct dn_xstate *x = w->x;
	uint32_t n = 0, ks[3];
	ks[n++] = with;
	while (n < 3 && w->nkeys >= 3) {
		uint32_t k = (uint32_t)dn_rng_below(&x->rng, w->nkeys);
		bool dup = false;
		for (uint32_t i = 0; i < n; i++)
			dup |= ks[i] == k;
		if (!dup)
			ks[n++] = k;
	}
	if (n < 3) {
		owners_single(o, with);
		return;
	}
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0 && memcmp(w->keys[ks[j - 1]].addr, w->keys[ks[j]].addr, 20) > 0;
		     j--) {
			uint32_t t = ks[j];
			ks[j] = ks[j - 1];
			ks[j - 1] = t;
		}
	o->threshold = 2;
	o->nowners = 3;
	memcpy(o->owners, ks, sizeof ks);
}

static dn_utxo *new_out(xtx *tx, const uint8_t asset[32], uint64_t amount, uint32_t k)
{
	dn_utxo *o = &tx->outs[tx->nouts++];
	*o = (dn_utxo){ .type_id = SL_T_SECP_TRANSFER_OUTPUT, .amount = amount };
	memcpy(o->asset_id, asset, 32);
	owners_single(o, k);
	return o;
}

static uint32_t rand_key(const dn_world *w) { return (uint32_t)dn_rng_below(&w->x->rng, w->nkeys); }

static void maybe_memo(struct dn_xstate *x, xtx *tx)
{
	static const char *const memos[] = { "payment",		"invoice paid", "thanks!", "rent",
					     "snowline devnet", "refund",	"gift",	   "salary" };
	if (dn_rng_chance(&x->rng, 12))
		snprintf(tx->memo, sizeof tx->memo, "%s #%llu",
			 memos[dn_rng_below(&x->rng, SL_ARRAY_LEN(memos))],
			 (unsigned long long)dn_rng_below(&x->rng, 100000));
}

static void tx_reset(xtx *tx, uint32_t type)
{
	tx->type = type;
	tx->nins = tx->nimp = tx->nouts = tx->nexp = tx->nst = tx->nops = 0;
	tx->memo[0] = 0;
	tx->chain = DN_X;
}

/* The AVAX fee paid by k (with change), on top of what tx already holds. */
static bool pay_fee(dn_world *w, xtx *tx, uint32_t k, uint64_t fee, uint64_t t)
{
	uint64_t got = take(w, tx, k, 0, fee, t, false);
	if (!got)
		return false;
	if (got > fee)
		new_out(tx, w->avax, got - fee, k);
	return true;
}

/* ---------------------------------------------------------------- tx kinds */

/* AVAX from one key to 1-3 others; sometimes to a 2-of-3 owner set or locked. */
static bool gen_transfer(dn_world *w, xtx *tx, uint64_t t, uint32_t k)
{
	struct dn_xstate *x = w->x;
	tx_reset(tx, SL_X_BASE_TX);
	const dn_utxo *u0 = bucket_pick(w, 0, k, t);
	uint64_t fee = dn_fee(w, DN_X, SL_X_BASE_TX);
	if (!u0 || u0->amount <= fee * 4)
		return false;
	uint64_t amount = (u0->amount - fee) / 100 * dn_rng_range(&x->rng, 1, 90) + 1;
	uint64_t got = take(w, tx, k, 0, amount + fee, t, true);
	if (!got)
		return false;
	uint32_t nr = (uint32_t)dn_rng_range(&x->rng, 1, 3);
	uint64_t left = amount;
	for (uint32_t i = 0; i < nr && left; i++) {
		uint64_t a = i + 1 == nr ? left : left / 100 * dn_rng_range(&x->rng, 20, 70) + 1;
		left -= a;
		uint32_t to = rand_key(w);
		dn_utxo *o = new_out(tx, w->avax, a, to);
		if (dn_rng_chance(&x->rng, 5))
			owners_multi(w, o, to);
		if (dn_rng_chance(&x->rng, 4))
			o->locktime = t + dn_rng_range(&x->rng, 3600, 10 * 24 * 3600);
	}
	if (got > amount + fee)
		new_out(tx, w->avax, got - amount - fee, k);
	maybe_memo(x, tx);
	return true;
}

/* Spend a 2-of-3 AVAX UTXO: two of its owners sign, the funds go to one of them. */
static bool gen_multi_spend(dn_world *w, xtx *tx, uint64_t t)
{
	struct dn_xstate *x = w->x;
	tx_reset(tx, SL_X_BASE_TX);
	uint64_t fee = dn_fee(w, DN_X, SL_X_BASE_TX);
	dn_utxo *u = pool_pick(w, &x->p_multi, t, SL_T_SECP_TRANSFER_OUTPUT, true);
	if (!u || u->amount <= fee + 1)
		return false;
	pick_signers(x, u, &tx->ins[tx->nins++]);
	uint64_t amount = u->amount - fee;
	uint32_t to = u->owners[dn_rng_below(&x->rng, u->nowners)];
	if (dn_rng_chance(&x->rng, 50) && amount > 2) {
		uint64_t a = amount / 100 * dn_rng_range(&x->rng, 10, 90) + 1;
		new_out(tx, w->avax, a, rand_key(w));
		amount -= a;
	}
	new_out(tx, w->avax, amount, to);
	return true;
}

/* Move some of a fungible asset (not AVAX); the sender pays the fee in AVAX. */
static bool gen_ant_transfer(dn_world *w, xtx *tx, uint64_t t)
{
	struct dn_xstate *x = w->x;
	tx_reset(tx, SL_X_BASE_TX);
	dn_utxo *u = pool_pick(w, &x->p_ant, t, SL_T_SECP_TRANSFER_OUTPUT, false);
	if (!u)
		return false;
	int64_t a = asset_find(x, u->asset_id);
	uint32_t k = u->owners[0];
	if (a <= 0)
		return false;
	uint8_t asset[32];
	memcpy(asset, u->asset_id, 32);
	uint64_t amount = u->amount > 10 ? u->amount / 10 * dn_rng_range(&x->rng, 1, 9) : u->amount;
	uint64_t got = take(w, tx, k, (uint32_t)a, amount, t, true);
	if (!got)
		return false;
	uint32_t to = rand_key(w);
	dn_utxo *o = new_out(tx, asset, amount, to);
	if (dn_rng_chance(&x->rng, 4))
		owners_multi(w, o, to);
	if (got > amount)
		new_out(tx, asset, got - amount, k);
	if (!pay_fee(w, tx, k, dn_fee(w, DN_X, SL_X_BASE_TX), t))
		return false;
	maybe_memo(x, tx);
	return true;
}

static const char *const name_words[] = { "Snow",   "Glacier", "Peak",	 "Frost",  "Summit", "Avalanche",
					  "Alpine", "Ridge",   "Cirrus", "Boreal", "Polar",  "Crystal",
					  "Tundra", "Drift",   "Aurora", "Crest" };
static const char *const fungible_words[] = { "Token", "Coin", "Dollar", "Credit", "Points", "Share" };
static const char *const nft_words[] = { "Cats", "Punks", "Badges", "Tickets", "Art", "Collectibles" };

/* A new asset: fungible (with a minter) or an NFT family. */
static bool gen_create_asset(dn_world *w, xtx *tx, uint64_t t, uint32_t k)
{
	struct dn_xstate *x = w->x;
	tx_reset(tx, SL_X_CREATE_ASSET_TX);
	tx->kind = dn_rng_below(&x->rng, 100) < 65 ? AK_SECP : AK_NFT;
	tx->fx = tx->kind == AK_SECP ? SL_FX_SECP256K1 : SL_FX_NFT;
	const char *w1 = name_words[dn_rng_below(&x->rng, SL_ARRAY_LEN(name_words))];
	const char *w2 = tx->kind == AK_NFT
				 ? nft_words[dn_rng_below(&x->rng, SL_ARRAY_LEN(nft_words))]
				 : fungible_words[dn_rng_below(&x->rng, SL_ARRAY_LEN(fungible_words))];
	snprintf(tx->name, sizeof tx->name, "%s %s %llu", w1, w2, (unsigned long long)x->nassets);
	/* symbol: 1-4 upper-case letters */
	uint32_t sl = (uint32_t)dn_rng_range(&x->rng, 2, 4);
	for (uint32_t i = 0; i < sl; i++)
		tx->symbol[i] = (char)('A' + dn_rng_below(&x->rng, 26));
	tx->symbol[sl] = 0;
	tx->denom = tx->kind == AK_SECP ? (uint8_t)dn_rng_range(&x->rng, 0, 18) : 0;
	dn_utxo tmpl = { 0 };
	switch (tx->kind) {
	case AK_SECP: {
		uint32_t n = (uint32_t)dn_rng_range(&x->rng, 2, 6);
		for (uint32_t i = 0; i < n; i++) {
			dn_utxo *o = &tx->st[tx->nst++];
			*o = tmpl;
			o->type_id = SL_T_SECP_TRANSFER_OUTPUT;
			o->amount = dn_rng_range(&x->rng, 1000, 10000000) * 1000;
			owners_single(o, i == 0 ? k : rand_key(w));
		}
		dn_utxo *m = &tx->st[tx->nst++];
		*m = tmpl;
		m->type_id = SL_T_SECP_MINT_OUTPUT;
		owners_single(m, k);
		if (dn_rng_chance(&x->rng, 25))
			owners_multi(w, m, k);
		break;
	}
	default: {
		uint32_t groups = (uint32_t)dn_rng_range(&x->rng, 2, 6);
		for (uint32_t g = 0; g < groups; g++) {
			dn_utxo *m = &tx->st[tx->nst++];
			*m = tmpl;
			m->type_id = SL_T_NFT_MINT_OUTPUT;
			m->group_id = g;
			owners_single(m, k);
			if (dn_rng_chance(&x->rng, 15))
				owners_multi(w, m, k);
		}
		break;
	}
	}
	return pay_fee(w, tx, k, dn_fee(w, DN_X, SL_X_CREATE_ASSET_TX), t);
}

static void nft_payload(struct dn_xstate *x, const uint8_t asset[32], dn_utxo *o)
{
	int64_t a = asset_find(x, asset);
	const xasset *as = a >= 0 ? &x->assets[a] : NULL;
	uint32_t serial = as ? as->minted + 1 : 0;
	int n = snprintf((char *)o->payload, sizeof o->payload, "{\"n\":\"%s #%u\"}", as ? as->symbol : "NFT",
			 serial);
	o->payload_len = n < 0 ? 0 : (uint32_t)SL_MIN((size_t)n, sizeof o->payload - 1);
}

/* One mint operation of a random asset with a live mint output of `type`. */
static bool add_mint_op(dn_world *w, xtx *tx, uint64_t t, uint32_t type)
{
	struct dn_xstate *x = w->x;
	ivec *pool = type == SL_T_SECP_MINT_OUTPUT ? &x->p_mint6 : &x->p_mint10;
	dn_utxo *u = pool_pick(w, pool, t, type, false);
	if (!u || in_tx(tx, u) || tx->nops >= MAX_OPS)
		return false;
	xop *op = &tx->ops[tx->nops];
	*op = (xop){ 0 };
	pick_signers(x, u, &op->in);
	dn_utxo tmpl = { 0 };
	memcpy(tmpl.asset_id, u->asset_id, 32);
	if (type == SL_T_SECP_MINT_OUTPUT) {
		op->type = SL_T_SECP_MINT_OPERATION;
		dn_utxo *m = &op->outs[op->nouts++];
		*m = *u; /* the minter keeps the right to mint */
		m->spent = false;
		dn_utxo *o = &op->outs[op->nouts++];
		*o = tmpl;
		o->type_id = SL_T_SECP_TRANSFER_OUTPUT;
		o->amount = dn_rng_range(&x->rng, 1, 5000000) * 1000;
		owners_single(o, rand_key(w));
	} else {
		op->type = SL_T_NFT_MINT_OPERATION;
		uint32_t n = (uint32_t)dn_rng_range(&x->rng, 1, 3);
		for (uint32_t i = 0; i < n; i++) {
			dn_utxo *o = &op->outs[op->nouts++];
			*o = tmpl;
			o->type_id = SL_T_NFT_TRANSFER_OUTPUT;
			o->group_id = u->group_id;
			owners_single(o, rand_key(w));
			if (dn_rng_chance(&x->rng, 8))
				owners_multi(w, o, o->owners[0]);
		}
		nft_payload(x, u->asset_id, &op->outs[0]);
		for (uint32_t i = 1; i < n; i++) {
			memcpy(op->outs[i].payload, op->outs[0].payload, sizeof op->outs[0].payload);
			op->outs[i].payload_len = op->outs[0].payload_len;
		}
	}
	tx->nops++;
	return true;
}

static bool gen_mint(dn_world *w, xtx *tx, uint64_t t)
{
	struct dn_xstate *x = w->x;
	tx_reset(tx, SL_X_OPERATION_TX);
	uint32_t type = dn_rng_below(&x->rng, 100) < 55 ? SL_T_SECP_MINT_OUTPUT : SL_T_NFT_MINT_OUTPUT;
	if (!add_mint_op(w, tx, t, type))
		return false;
	if (type == SL_T_NFT_MINT_OUTPUT && dn_rng_chance(&x->rng, 20))
		(void)add_mint_op(w, tx, t, type);
	/* the first signer of the first operation pays the fee */
	const xin *in = &tx->ops[0].in;
	return pay_fee(w, tx, in->u->owners[in->sigpos[0]], dn_fee(w, DN_X, SL_X_OPERATION_TX), t);
}

/* Transfer one or two NFTs (TransferOperation: group and payload kept). */
static bool gen_nft_transfer(dn_world *w, xtx *tx, uint64_t t)
{
	struct dn_xstate *x = w->x;
	tx_reset(tx, SL_X_OPERATION_TX);
	uint32_t want = dn_rng_chance(&x->rng, 15) ? 2 : 1;
	for (uint32_t i = 0; i < want; i++) {
		dn_utxo *u = pool_pick(w, &x->p_nft, t, SL_T_NFT_TRANSFER_OUTPUT, false);
		if (!u || in_tx(tx, u))
			continue;
		xop *op = &tx->ops[tx->nops++];
		*op = (xop){ .type = SL_T_NFT_TRANSFER_OPERATION };
		pick_signers(x, u, &op->in);
		dn_utxo *o = &op->outs[op->nouts++];
		*o = *u;
		o->spent = false;
		o->locktime = 0;
		owners_single(o, rand_key(w));
	}
	if (!tx->nops)
		return false;
	const xin *in = &tx->ops[0].in;
	return pay_fee(w, tx, in->u->owners[0], dn_fee(w, DN_X, SL_X_OPERATION_TX), t);
}

static bool gen_export(dn_world *w, xtx *tx, uint64_t t, uint32_t k)
{
	struct dn_xstate *x = w->x;
	tx_reset(tx, SL_X_EXPORT_TX);
	tx->chain = dn_rng_chance(&x->rng, 50) ? DN_P : DN_C;
	const dn_utxo *u0 = bucket_pick(w, 0, k, t);
	uint64_t fee = dn_fee(w, DN_X, SL_X_EXPORT_TX);
	if (!u0 || u0->amount <= fee * 4)
		return false;
	uint64_t amount = (u0->amount - fee) / 100 * dn_rng_range(&x->rng, 5, 60) + 1;
	uint64_t got = take(w, tx, k, 0, amount + fee, t, false);
	if (!got)
		return false;
	/* mostly to oneself on the other chain, sometimes to someone else */
	uint32_t to = dn_rng_chance(&x->rng, 70) ? k : rand_key(w);
	dn_utxo *e = &tx->exp[tx->nexp++];
	*e = (dn_utxo){ .type_id = SL_T_SECP_TRANSFER_OUTPUT, .amount = amount };
	memcpy(e->asset_id, w->avax, 32);
	owners_single(e, to);
	if (got > amount + fee)
		new_out(tx, w->avax, got - amount - fee, k);
	return true;
}

/* Import 1-3 AVAX UTXOs that P or C exported to the X-chain. */
static bool gen_import(dn_world *w, xtx *tx, uint64_t t)
{
	struct dn_xstate *x = w->x;
	tx_reset(tx, SL_X_IMPORT_TX);
	int src = dn_rng_chance(&x->rng, 50) ? DN_P : DN_C;
	dn_utxos *sh = &w->shared[DN_X][src];
	if (x->imp_cur[src] >= sh->n) {
		src = src == DN_P ? DN_C : DN_P;
		sh = &w->shared[DN_X][src];
	}
	tx->chain = src;
	size_t *cur = &x->imp_cur[src];
	while (*cur < sh->n && sh->v[*cur].spent)
		(*cur)++;
	uint32_t want = (uint32_t)dn_rng_range(&x->rng, 1, 3);
	uint64_t sum = 0;
	for (size_t i = *cur; i < sh->n && i < *cur + 64 && tx->nimp < want; i++) {
		dn_utxo *u = &sh->v[i];
		if (!unlocked(u, t) || u->avail >= t || u->type_id != SL_T_SECP_TRANSFER_OUTPUT ||
		    memcmp(u->asset_id, w->avax, 32) || !u->nowners || u->threshold > u->nowners ||
		    u->nowners > DN_MAX_OWNERS)
			continue;
		bool ours = true;
		for (uint32_t j = 0; j < u->nowners; j++)
			ours &= u->owners[j] < w->nkeys;
		if (!ours)
			continue;
		pick_signers(x, u, &tx->imp[tx->nimp++]);
		sum += u->amount;
	}
	if (!tx->nimp)
		return false;
	const dn_utxo *first = tx->imp[0].u;
	uint32_t k = first->owners[tx->imp[0].sigpos[0]];
	uint64_t fee = dn_fee(w, DN_X, SL_X_IMPORT_TX);
	if (sum > fee)
		new_out(tx, w->avax, sum - fee, k);
	else if (sum < fee && !pay_fee(w, tx, k, fee - sum, t))
		return false;
	return true;
}

/* ---------------------------------------------------------------- encoding */

typedef struct keyed {
	uint8_t *p;
	size_t n;
	uint32_t i;
} keyed;

static int keyed_cmp(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	int c = memcmp(x->p, y->p, SL_MIN(x->n, y->n));
	if (c)
		return c;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

typedef struct enc {
	dn_world *w;
	sl_arena *a;
	bool oom;
} enc;

static void *ealloc(enc *e, size_t n)
{
	void *p = sl_arena_zalloc(e->a, n ? n : 1);
	if (!p)
		e->oom = true;
	return p;
}

static sl_owners owners_of(enc *e, const dn_utxo *u)
{
	sl_owners o = { .locktime = u->locktime, .threshold = u->threshold, .naddrs = u->nowners };
	uint8_t *addrs = ealloc(e, (size_t)u->nowners * 20);
	if (addrs)
		for (uint32_t i = 0; i < u->nowners; i++)
			memcpy(addrs + 20 * i, e->w->keys[u->owners[i]].addr, 20);
	else
		o.naddrs = 0;
	o.addrs = addrs;
	return o;
}

static sl_output output_of(enc *e, const dn_utxo *u)
{
	return (sl_output){
		.type_id = u->type_id,
		.fx_type_id = u->type_id,
		.amount = u->amount,
		.group_id = u->group_id,
		.payload = sl_span_of(u->payload, u->payload_len),
		.owners = owners_of(e, u),
	};
}

static sl_sigidx sigidx_of(enc *e, const xin *in)
{
	uint8_t *p = ealloc(e, (size_t)in->nsig * 4);
	sl_sigidx s = { .n = p ? in->nsig : 0, .p = p };
	for (uint32_t i = 0; p && i < in->nsig; i++)
		sl_put_be32(p + 4 * i, in->sigpos[i]);
	return s;
}

static sl_avax_in input_of(enc *e, const xin *in)
{
	return (sl_avax_in){
		.tx_id = in->u->tx_id,
		.output_index = in->u->index,
		.asset_id = in->u->asset_id,
		.in = { .type_id = SL_T_SECP_TRANSFER_INPUT,
			.fx_type_id = SL_T_SECP_TRANSFER_INPUT,
			.amount = in->u->amount,
			.sig = sigidx_of(e, in) },
	};
}

static int xin_cmp(const void *a, const void *b)
{
	const xin *x = a, *y = b;
	int c = memcmp(x->u->tx_id, y->u->tx_id, 32);
	return c ? c : x->u->index < y->u->index ? -1 : x->u->index > y->u->index;
}

/* Sort dn_utxo templates by the bytes `with_asset ? assetID | iface<Output> : iface<Output>`. */
static void sort_outs(enc *e, dn_utxo *v, uint32_t n, bool with_asset)
{
	if (n < 2)
		return;
	keyed ks[MAX_STATE_OUTS > MAX_OUTS ? MAX_STATE_OUTS : MAX_OUTS];
	dn_utxo tmp[SL_ARRAY_LEN(ks)];
	sl_buf b;
	sl_buf_init(&b, 1u << 20);
	for (uint32_t i = 0; i < n; i++) {
		sl_buf_reset(&b);
		if (with_asset)
			sl_wr_fixed(&b, v[i].asset_id, 32);
		sl_output o = output_of(e, &v[i]);
		sl_avax_output_write(&b, &o);
		ks[i] = (keyed){ .p = ealloc(e, b.len), .n = b.len, .i = i };
		if (ks[i].p)
			memcpy(ks[i].p, b.p, b.len);
		else
			ks[i].n = 0;
	}
	sl_buf_release(&b);
	qsort(ks, n, sizeof ks[0], keyed_cmp);
	for (uint32_t i = 0; i < n; i++)
		tmp[i] = v[ks[i].i];
	memcpy(v, tmp, n * sizeof *v);
}

static sl_xchain_op op_of(enc *e, const xop *op)
{
	const dn_utxo *u = op->in.u;
	uint8_t *ids = ealloc(e, 36);
	if (ids) {
		memcpy(ids, u->tx_id, 32);
		sl_put_be32(ids + 32, u->index);
	}
	sl_xchain_op o = { .asset_id = u->asset_id, .nutxos = ids ? 1 : 0, .utxos = ids };
	sl_xchain_fx_op *f = &o.op;
	f->type_id = op->type;
	f->input = sigidx_of(e, &op->in);
	switch (op->type) {
	case SL_T_SECP_MINT_OPERATION:
		f->owners1 = owners_of(e, &op->outs[0]);
		f->amount = op->outs[1].amount;
		f->owners2 = owners_of(e, &op->outs[1]);
		break;
	case SL_T_NFT_MINT_OPERATION:
		f->group_id = op->outs[0].group_id;
		f->payload = sl_span_of(op->outs[0].payload, op->outs[0].payload_len);
		f->owners = ealloc(e, op->nouts * sizeof *f->owners);
		f->nowners = f->owners ? op->nouts : 0;
		for (uint32_t i = 0; i < f->nowners; i++)
			f->owners[i] = owners_of(e, &op->outs[i]);
		break;
	case SL_T_NFT_TRANSFER_OPERATION:
		f->group_id = op->outs[0].group_id;
		f->payload = sl_span_of(op->outs[0].payload, op->outs[0].payload_len);
		f->owners1 = owners_of(e, &op->outs[0]);
		break;
	default: break;
	}
	return o;
}

/* Operations sort by their encoded bytes; encode each alone inside an otherwise empty OperationTx. */
static void sort_ops(enc *e, xop *ops, uint32_t n)
{
	if (n < 2)
		return;
	keyed ks[MAX_OPS];
	xop tmp[MAX_OPS];
	sl_buf b;
	sl_buf_init(&b, 1u << 20);
	static const uint8_t zero[32];
	for (uint32_t i = 0; i < n; i++) {
		sl_buf_reset(&b);
		sl_xchain_op o = op_of(e, &ops[i]);
		sl_xchain_utx u = {
			.type_id = SL_X_OPERATION_TX, .base = { .blockchain_id = zero }, .nops = 1, .ops = &o
		};
		sl_xchain_utx_write(&b, &u);
		ks[i] = (keyed){ .p = ealloc(e, b.len), .n = b.len, .i = i };
		if (ks[i].p)
			memcpy(ks[i].p, b.p, b.len);
		else
			ks[i].n = 0;
	}
	sl_buf_release(&b);
	qsort(ks, n, sizeof ks[0], keyed_cmp);
	for (uint32_t i = 0; i < n; i++)
		tmp[i] = ops[ks[i].i];
	memcpy(ops, tmp, n * sizeof *ops);
}

static uint32_t cred_type_of(uint32_t op_type)
{
	return sl_avax_x_fx_of(op_type) == SL_FX_NFT ? SL_T_NFT_CREDENTIAL : SL_T_SECP_CREDENTIAL;
}

static sl_credential cred_of(enc *e, uint32_t type, const xin *in, const uint8_t hash[32])
{
	uint8_t *sigs = ealloc(e, (size_t)in->nsig * 65);
	sl_credential c = { .type_id = type, .nsigs = sigs ? in->nsig : 0, .sigs = sigs };
	for (uint32_t i = 0; sigs && i < in->nsig; i++)
		dn_sign(e->w, in->u->owners[in->sigpos[i]], hash, sigs + 65 * i);
	return c;
}

static void set_outs_id(dn_utxo *v, uint32_t n, const uint8_t id[32], uint32_t *index)
{
	for (uint32_t i = 0; i < n; i++) {
		memcpy(v[i].tx_id, id, 32);
		v[i].index = (*index)++;
	}
}

/*
 * Order, sign and encode tx; append the signed bytes to the open container;
 * spend its inputs and queue its outputs. Returns SL_OK or the reason.
 */
static sl_err commit(dn_world *w, xtx *tx, uint64_t t)
{
	struct dn_xstate *x = w->x;
	sl_arena a;
	sl_arena_init(&a, 16u << 20);
	enc e = { .w = w, .a = &a };
	sl_err err = SL_ERR_NOMEM;
	sl_buf ub;
	sl_buf_init(&ub, 4u << 20);

	qsort(tx->ins, tx->nins, sizeof tx->ins[0], xin_cmp);
	qsort(tx->imp, tx->nimp, sizeof tx->imp[0], xin_cmp);
	sort_outs(&e, tx->outs, tx->nouts, true);
	sort_outs(&e, tx->exp, tx->nexp, true);
	sort_outs(&e, tx->st, tx->nst, false);
	sort_ops(&e, tx->ops, tx->nops);

	sl_xchain_tx stx = { 0 };
	sl_xchain_utx *u = &stx.utx;
	u->type_id = tx->type;
	u->base = (sl_avax_base){ .network_id = w->cfg.network_id,
				  .blockchain_id = w->chain[DN_X].id,
				  .nouts = tx->nouts,
				  .nins = tx->nins,
				  .memo = sl_span_str(tx->memo) };
	u->base.outs = ealloc(&e, tx->nouts * sizeof *u->base.outs);
	u->base.ins = ealloc(&e, tx->nins * sizeof *u->base.ins);
	for (uint32_t i = 0; i < tx->nouts && u->base.outs; i++)
		u->base.outs[i] =
			(sl_avax_out){ .asset_id = tx->outs[i].asset_id, .out = output_of(&e, &tx->outs[i]) };
	for (uint32_t i = 0; i < tx->nins && u->base.ins; i++)
		u->base.ins[i] = input_of(&e, &tx->ins[i]);
	sl_initial_state state = { .fx_index = tx->fx, .nouts = tx->nst };
	switch (tx->type) {
	case SL_X_CREATE_ASSET_TX:
		u->name = sl_span_str(tx->name);
		u->symbol = sl_span_str(tx->symbol);
		u->denomination = tx->denom;
		state.outs = ealloc(&e, tx->nst * sizeof *state.outs);
		for (uint32_t i = 0; i < tx->nst && state.outs; i++)
			state.outs[i] = output_of(&e, &tx->st[i]);
		u->nstates = 1;
		u->states = &state;
		break;
	case SL_X_OPERATION_TX:
		u->nops = tx->nops;
		u->ops = ealloc(&e, tx->nops * sizeof *u->ops);
		for (uint32_t i = 0; i < tx->nops && u->ops; i++)
			u->ops[i] = op_of(&e, &tx->ops[i]);
		break;
	case SL_X_IMPORT_TX:
		u->chain = w->chain[tx->chain].id;
		u->nimported = tx->nimp;
		u->imported = ealloc(&e, tx->nimp * sizeof *u->imported);
		for (uint32_t i = 0; i < tx->nimp && u->imported; i++)
			u->imported[i] = input_of(&e, &tx->imp[i]);
		break;
	case SL_X_EXPORT_TX:
		u->chain = w->chain[tx->chain].id;
		u->nexported = tx->nexp;
		u->exported = ealloc(&e, tx->nexp * sizeof *u->exported);
		for (uint32_t i = 0; i < tx->nexp && u->exported; i++)
			u->exported[i] = (sl_avax_out){ .asset_id = tx->exp[i].asset_id,
							.out = output_of(&e, &tx->exp[i]) };
		break;
	default: break;
	}
	if (e.oom)
		goto out;

	/* What is signed: sha256(00 00 | iface<UnsignedTx>). */
	uint8_t hash[32];
	sl_wr_u16(&ub, 0);
	sl_xchain_utx_write(&ub, u);
	if (ub.err) {
		err = ub.err;
		goto out;
	}
	sl_sha256(ub.p, ub.len, hash);

	stx.ncreds = tx->nins + tx->nimp + tx->nops;
	stx.creds = ealloc(&e, stx.ncreds * sizeof *stx.creds);
	if (!stx.creds)
		goto out;
	uint32_t c = 0;
	for (uint32_t i = 0; i < tx->nins; i++)
		stx.creds[c++] = cred_of(&e, SL_T_SECP_CREDENTIAL, &tx->ins[i], hash);
	for (uint32_t i = 0; i < tx->nimp; i++)
		stx.creds[c++] = cred_of(&e, SL_T_SECP_CREDENTIAL, &tx->imp[i], hash);
	for (uint32_t i = 0; i < tx->nops; i++)
		stx.creds[c++] = cred_of(&e, cred_type_of(tx->ops[i].type), &tx->ops[i].in, hash);
	if (e.oom)
		goto out;

	size_t off = x->txbuf.len;
	if ((err = sl_xchain_tx_encode(&x->txbuf, &stx)))
		goto out;
	uint8_t id[32];
	sl_sha256(x->txbuf.p + off, x->txbuf.len - off, id);
	xrec *rec = DN_PUSH(x->recs, x->nrecs, x->cap_recs);
	if (!rec) {
		err = SL_ERR_NOMEM;
		goto out;
	}
	memcpy(rec->id, id, 32);
	rec->off = off;
	rec->len = x->txbuf.len - off;
	rec->time = t;

	/* The ledger: spend, then queue new outputs under their indexes. */
	for (uint32_t i = 0; i < tx->nins; i++)
		mark_spent(w, tx->ins[i].u, true);
	for (uint32_t i = 0; i < tx->nimp; i++)
		mark_spent(w, tx->imp[i].u, false);
	for (uint32_t i = 0; i < tx->nops; i++)
		mark_spent(w, tx->ops[i].in.u, true);
	uint32_t index = 0;
	set_outs_id(tx->outs, tx->nouts, id, &index);
	for (uint32_t i = 0; i < tx->nouts; i++)
		if (!dn_utxo_add(&x->pending, &tx->outs[i]))
			goto nomem;
	if (tx->type == SL_X_CREATE_ASSET_TX) {
		xasset *as = asset_add(x, id);
		if (!as)
			goto nomem;
		snprintf(as->name, sizeof as->name, "%s", tx->name);
		snprintf(as->symbol, sizeof as->symbol, "%s", tx->symbol);
		as->denom = tx->denom;
		as->kind = tx->kind;
		for (uint32_t i = 0; i < tx->nst; i++) {
			memcpy(tx->st[i].asset_id, id, 32);
			if (tx->st[i].type_id == SL_T_SECP_TRANSFER_OUTPUT)
				as->supply += tx->st[i].amount;
		}
		set_outs_id(tx->st, tx->nst, id, &index);
		for (uint32_t i = 0; i < tx->nst; i++)
			if (!dn_utxo_add(&x->pending, &tx->st[i]))
				goto nomem;
	}
	for (uint32_t i = 0; i < tx->nops; i++) {
		xop *op = &tx->ops[i];
		int64_t ai = asset_find(x, op->in.u->asset_id);
		xasset *as = ai >= 0 ? &x->assets[ai] : NULL;
		if (as && op->type == SL_T_SECP_MINT_OPERATION)
			as->supply += op->outs[1].amount;
		else if (as && op->type == SL_T_NFT_MINT_OPERATION) {
			as->supply += op->nouts;
			as->minted++;
		}
		set_outs_id(op->outs, op->nouts, id, &index);
		for (uint32_t j = 0; j < op->nouts; j++)
			if (!dn_utxo_add(&x->pending, &op->outs[j]))
				goto nomem;
	}
	for (uint32_t i = 0; i < tx->nexp; i++) {
		memcpy(tx->exp[i].tx_id, id, 32);
		tx->exp[i].index = tx->nouts + i;
		tx->exp[i].avail = t; /* raised to the container's time when it is sealed */
		if (!dn_utxo_add(&w->shared[tx->chain][DN_X], &tx->exp[i]))
			goto nomem;
		x->open_exp[tx->chain]++;
	}
	x->counts[tx->type]++;
	err = SL_OK;
	goto out;
nomem:
	err = SL_ERR_NOMEM;
out:
	sl_buf_release(&ub);
	sl_arena_release(&a);
	return err;
}

/* ---------------------------------------------------------------- containers */

static int rec_cmp(const void *a, const void *b)
{
	return memcmp(((const xrec *)a)->id, ((const xrec *)b)->id, 32);
}

/* Decode the open container's txs (a self-check) into views for the block/vertex encoders. */
static sl_err decode_recs(dn_world *w, sl_arena *a, sl_xchain_tx **out)
{
	struct dn_xstate *x = w->x;
	sl_xchain_tx *txs = sl_arena_array(a, x->nrecs, sizeof *txs);
	if (!txs)
		return SL_ERR_NOMEM;
	for (size_t i = 0; i < x->nrecs; i++) {
		sl_xchain_tx *tx = &txs[i];
		if (sl_xchain_tx_decode(a, x->txbuf.p + x->recs[i].off, x->recs[i].len, tx, NULL) ||
		    memcmp(tx->id, x->recs[i].id, 32))
			return SL_ERR_INTERNAL;
	}
	*out = txs;
	return SL_OK;
}

static void sort_ids(uint8_t (*ids)[32], uint64_t *h, uint32_t n)
{
	if (n == 2 && memcmp(ids[0], ids[1], 32) > 0) {
		uint8_t t[32];
		memcpy(t, ids[0], 32);
		memcpy(ids[0], ids[1], 32);
		memcpy(ids[1], t, 32);
		uint64_t th = h[0];
		h[0] = h[1];
		h[1] = th;
	}
}

static sl_err emit_vertex(dn_world *w, uint16_t version, uint8_t (*parents)[32], const uint64_t *ph,
			  uint32_t np, uint64_t time, uint8_t id[32], uint64_t *height)
{
	struct dn_xstate *x = w->x;
	sl_arena a;
	sl_arena_init(&a, 256u << 20);
	sl_buf b;
	sl_buf_init(&b, 256u << 20);
	sl_err err;
	uint8_t flat[64];
	uint64_t h = 0;
	for (uint32_t i = 0; i < np; i++) {
		memcpy(flat + 32 * i, parents[i], 32);
		h = SL_MAX(h, ph[i] + 1);
	}
	sl_xchain_vertex v = { .version = version,
			       .chain_id = w->chain[DN_X].id,
			       .height = h,
			       .nparents = np,
			       .parents = flat };
	if (version == 0) {
		qsort(x->recs, x->nrecs, sizeof *x->recs, rec_cmp);
		if ((err = decode_recs(w, &a, &v.txs)))
			goto out;
		v.ntxs = (uint32_t)x->nrecs;
	}
	if ((err = sl_xchain_vertex_encode(&b, &v)))
		goto out;
	sl_sha256(b.p, b.len, id);
	for (size_t i = 0; version == 0 && i < x->nrecs; i++)
		dn_emit(w, SL_IDX_X_TX, x->recs[i].id, time, x->txbuf.p + x->recs[i].off, x->recs[i].len);
	dn_emit(w, SL_IDX_X_VTX, id, time, b.p, b.len);
	*height = h;
	x->vertices++;
	dn_chain *ch = &w->chain[DN_X];
	ch->height = h;
	memcpy(ch->last_inner, id, 32);
	memcpy(ch->last_outer, id, 32);
	ch->last_time = time;
	ch->blocks++;
	ch->txs += version == 0 ? x->nrecs : 0;
	err = w->sink_err;
out:
	sl_buf_release(&b);
	sl_arena_release(&a);
	return err;
}

/*
 * The open container is accepted at `time` (its last tx's), and with it the
 * exports of its txs: importers may take them from the next second on
 * (world.h). Called just before the container is emitted, so a sink sees the
 * final value. Only X appends to shared[dst][X] and nothing compacts it while
 * a container is open (none is open between steps), so they are its last
 * open_exp[dst] entries.
 */
static void accept_exports(dn_world *w, uint64_t time)
{
	struct dn_xstate *x = w->x;
	for (int dst = 0; dst < DN_CHAINS; dst++) {
		dn_utxos *sh = &w->shared[dst][DN_X];
		for (size_t i = sh->n - x->open_exp[dst]; i < sh->n; i++)
			sh->v[i].avail = time;
		x->open_exp[dst] = 0;
	}
}

/* Seal the open vertex: parents are the tips, or the last vertex's parents for a fork. */
static sl_err seal_vertex(dn_world *w)
{
	struct dn_xstate *x = w->x;
	if (!x->nrecs)
		return SL_OK;
	uint8_t par[2][32], id[32];
	uint64_t ph[2], h, time = x->recs[x->nrecs - 1].time;
	uint32_t np;
	bool fork = x->fork_next && x->ntips == 1;
	if (fork) {
		np = x->nlastpar;
		memcpy(par, x->lastpar, sizeof par);
		memcpy(ph, x->lastpar_h, sizeof ph);
	} else {
		np = x->ntips;
		memcpy(par, x->tips, sizeof par);
		memcpy(ph, x->tip_h, sizeof ph);
	}
	sort_ids(par, ph, np);
	accept_exports(w, time);
	sl_err err = emit_vertex(w, 0, par, ph, np, time, id, &h);
	if (err)
		return err;
	x->nrecs = 0;
	sl_buf_reset(&x->txbuf);
	memcpy(x->lastpar, par, sizeof par);
	memcpy(x->lastpar_h, ph, sizeof ph);
	x->nlastpar = np;
	if (fork) {
		/* the old tip stays; this vertex is its sibling */
		memcpy(x->tips[1], id, 32);
		x->tip_h[1] = h;
		x->ntips = 2;
		x->fork_next = false;
		return SL_OK;
	}
	memcpy(x->tips[0], id, 32);
	x->tip_h[0] = h;
	x->ntips = 1;
	/* A fork next would let its sibling see these outputs: keep them until the merge. */
	x->fork_next = dn_rng_chance(&x->rng, 15);
	if (x->fork_next)
		return SL_OK;
	return flush_pending(w) ? SL_OK : SL_ERR_NOMEM;
}

static sl_err seal_block(dn_world *w)
{
	struct dn_xstate *x = w->x;
	if (!x->nrecs)
		return SL_OK;
	dn_chain *ch = &w->chain[DN_X];
	uint64_t time = x->recs[x->nrecs - 1].time;
	static const uint8_t zero[32];
	sl_arena a;
	sl_arena_init(&a, 256u << 20);
	sl_buf b;
	sl_buf_init(&b, 256u << 20);
	sl_xchain_block blk = { .type_id = SL_X_STANDARD_BLOCK,
				.parent_id = ch->last_inner,
				.height = ch->height + 1,
				.time = time,
				.merkle_root = zero,
				.ntxs = (uint32_t)x->nrecs };
	sl_err err = decode_recs(w, &a, &blk.txs);
	if (!err)
		err = sl_xchain_block_encode(&b, &blk);
	if (!err) {
		accept_exports(w, time);
		dn_emit_wrapped(w, DN_X, SL_IDX_X_BLOCK, b.p, b.len, time, false);
		sl_sha256(b.p, b.len, ch->last_inner);
		ch->height++;
		ch->last_time = time;
		ch->blocks++;
		ch->txs += x->nrecs;
		x->xblocks++;
		x->nrecs = 0;
		sl_buf_reset(&x->txbuf);
		err = w->sink_err;
		if (!err && !flush_pending(w))
			err = SL_ERR_NOMEM;
	}
	sl_buf_release(&b);
	sl_arena_release(&a);
	return err;
}

/*
 * Cortina: close the DAG with a stop vertex over the tips, then start the
 * linear chain from the genesis block avalanchego derives from it
 * (StandardBlock with the stop vertex as parent, height 0, no txs), which is
 * never indexed: the first proposervm block's parent is its id.
 */
static sl_err linearize(dn_world *w)
{
	struct dn_xstate *x = w->x;
	sl_err err = seal_vertex(w);
	if (err)
		return err;
	uint64_t time = SL_MAX(w->params.cortina_time, w->chain[DN_X].last_time);
	uint64_t ph[2];
	uint8_t par[2][32];
	memcpy(par, x->tips, sizeof par);
	memcpy(ph, x->tip_h, sizeof ph);
	sort_ids(par, ph, x->ntips);
	if ((err = emit_vertex(w, 1, par, ph, x->ntips, time, x->stop_vtx, &x->stop_height)))
		return err;
	x->linear = true;
	x->fork_next = false;
	if (!flush_pending(w))
		return SL_ERR_NOMEM;
	static const uint8_t zero[32];
	sl_xchain_block g = { .type_id = SL_X_STANDARD_BLOCK,
			      .parent_id = x->stop_vtx,
			      .height = 0,
			      .time = time,
			      .merkle_root = zero };
	sl_buf b;
	sl_buf_init(&b, 4096);
	err = sl_xchain_block_encode(&b, &g);
	if (!err) {
		dn_chain *ch = &w->chain[DN_X];
		sl_sha256(b.p, b.len, ch->last_inner);
		memcpy(ch->last_outer, ch->last_inner, 32);
		ch->height = 0;
		ch->last_time = time;
	}
	sl_buf_release(&b);
	return err;
}

/* ---------------------------------------------------------------- entry points */

static bool gen_one(dn_world *w, xtx *tx, uint64_t t)
{
	struct dn_xstate *x = w->x;
	uint32_t k = rand_key(w);
	uint64_t r = dn_rng_below(&x->rng, 1000);
	bool ok = false;
	if (r < 620)
		ok = gen_transfer(w, tx, t, k);
	else if (r < 660)
		ok = gen_multi_spend(w, tx, t);
	else if (r < 740)
		ok = gen_ant_transfer(w, tx, t);
	else if (r < 765)
		ok = gen_create_asset(w, tx, t, k);
	else if (r < 835)
		ok = gen_mint(w, tx, t);
	else if (r < 885)
		ok = gen_nft_transfer(w, tx, t);
	else if (r < 945)
		ok = gen_export(w, tx, t, k);
	else
		ok = gen_import(w, tx, t);
	/* whatever could not be made becomes a plain transfer from someone who can pay */
	for (uint32_t i = 0; !ok && i < 16; i++)
		ok = gen_transfer(w, tx, t, (k + i * 7 + 1) % w->nkeys);
	return ok;
}

sl_err dn_x_step(dn_world *w, uint64_t until, uint32_t ntxs)
{
	struct dn_xstate *x = w->x;
	if (!x)
		return SL_ERR_INTERNAL;
	dn_chain *ch = &w->chain[DN_X];
	uint64_t start = ch->last_time;
	if (until < start)
		until = start;
	sl_err err;
	for (uint32_t i = 0; i < ntxs; i++) {
		uint64_t t = start + (until - start) * (i + 1) / ntxs;
		if (!x->linear && t >= w->params.cortina_time && (err = linearize(w)))
			return err;
		if (!x->nrecs)
			x->target = (uint32_t)(x->linear ? dn_rng_range(&x->rng, 1, 8)
							 : dn_rng_range(&x->rng, 1, 5));
		if (gen_one(w, &x->scratch, t) && (err = commit(w, &x->scratch, t)))
			return err;
		if (x->nrecs >= x->target && (err = x->linear ? seal_block(w) : seal_vertex(w)))
			return err;
	}
	if ((err = x->linear ? seal_block(w) : seal_vertex(w)))
		return err;
	if (!x->linear && until >= w->params.cortina_time && (err = linearize(w)))
		return err;
	return w->sink_err;
}

sl_err dn_x_init(dn_world *w)
{
	struct dn_xstate *x = calloc(1, sizeof *x);
	if (!x)
		return SL_ERR_NOMEM;
	w->x = x;
	dn_rng_init(&x->rng, w->seed, "xchain");
	sl_buf_init(&x->txbuf, TX_BUF_MAX);
	xasset *avax = asset_add(x, w->avax);
	if (!avax)
		return SL_ERR_NOMEM;
	snprintf(avax->name, sizeof avax->name, "Avalanche");
	snprintf(avax->symbol, sizeof avax->symbol, "AVAX");
	avax->denom = 9;
	avax->kind = AK_SECP;

	char msg[300];
	int n = snprintf(msg, sizeof msg, "snowline-devnet/%s/X-genesis", w->seed);
	sl_sha256(msg, (size_t)n, x->genesis_tx);
	/* 2-4 UTXOs per account, 1k to 200k AVAX each */
	uint64_t total = 0;
	for (uint32_t k = 0; k < w->nkeys; k++) {
		uint32_t m = (uint32_t)dn_rng_range(&x->rng, 2, 4);
		for (uint32_t i = 0; i < m; i++) {
			dn_utxo u = { .index = x->ngenesis++,
				      .type_id = SL_T_SECP_TRANSFER_OUTPUT,
				      .amount = dn_rng_range(&x->rng, 1000, 200000) * DN_NANO };
			memcpy(u.tx_id, x->genesis_tx, 32);
			memcpy(u.asset_id, w->avax, 32);
			owners_single(&u, k);
			if (!dn_utxo_add(&w->utxos[DN_X], &u))
				return SL_ERR_NOMEM;
			total += u.amount;
		}
	}
	w->supply += total;
	w->params.genesis_supply += total;
	if (!dn_utxos_copy(&x->genesis, &w->utxos[DN_X]))
		return SL_ERR_NOMEM;
	return reindex(w) ? SL_OK : SL_ERR_NOMEM;
}

void dn_x_free(dn_world *w)
{
	struct dn_xstate *x = w->x;
	if (!x)
		return;
	free(x->assets);
	free(x->amap);
	for (size_t i = 0; i < x->nbuckets; i++)
		free(x->buckets[i].list.v);
	free(x->buckets);
	free(x->bmap);
	ivec *pools[] = { &x->p_multi, &x->p_ant, &x->p_nft, &x->p_mint6, &x->p_mint10 };
	for (size_t i = 0; i < SL_ARRAY_LEN(pools); i++)
		free(pools[i]->v);
	free(x->pending.v);
	free(x->genesis.v);
	sl_buf_release(&x->txbuf);
	free(x->recs);
	free(x);
	w->x = NULL;
}

/* ---------------------------------------------------------------- snapshot */

static void snap_ivec(sl_buf *b, const ivec *v) { dn_snap_arr(b, v->v, v->n, sizeof *v->v); }
static void rd_ivec(dn_rd *r, ivec *v) { v->v = dn_rd_arr(r, sizeof *v->v, &v->n, &v->cap); }

void dn_x_save(const dn_world *w, sl_buf *b)
{
	const struct dn_xstate *x = w->x;
	dn_snap_one(b, x);
	dn_snap_utxos(b, &x->genesis);
	dn_snap_arr(b, x->assets, x->nassets, sizeof *x->assets);
	dn_snap_arr(b, x->amap, x->amap_cap, sizeof *x->amap);
	dn_snap_arr(b, x->buckets, x->nbuckets, sizeof *x->buckets);
	for (size_t i = 0; i < x->nbuckets; i++)
		snap_ivec(b, &x->buckets[i].list); /* the order matters: picks are by position */
	dn_snap_arr(b, x->bmap, x->bmap_cap, sizeof *x->bmap);
	const ivec *pools[] = { &x->p_multi, &x->p_ant, &x->p_nft, &x->p_mint6, &x->p_mint10 };
	for (size_t i = 0; i < SL_ARRAY_LEN(pools); i++)
		snap_ivec(b, pools[i]);
	dn_snap_utxos(b, &x->pending);
	dn_snap_arr(b, x->txbuf.p, x->txbuf.len, 1); /* the open container: empty between steps */
	dn_snap_arr(b, x->recs, x->nrecs, sizeof *x->recs);
}

sl_err dn_x_load(dn_world *w, dn_rd *r)
{
	struct dn_xstate *x = calloc(1, sizeof *x);
	if (!x)
		return SL_ERR_NOMEM;
	dn_rd_one(r, x, sizeof *x);
	/* The pointers just read are the writer's: none may be freed or followed. */
	x->genesis.v = x->pending.v = NULL;
	x->assets = NULL;
	x->amap = x->bmap = NULL;
	x->buckets = NULL;
	x->p_multi.v = x->p_ant.v = x->p_nft.v = x->p_mint6.v = x->p_mint10.v = NULL;
	x->txbuf = (sl_buf){ 0 };
	x->recs = NULL;
	memset(&x->scratch, 0, sizeof x->scratch);
	sl_buf_init(&x->txbuf, TX_BUF_MAX);
	dn_rd_utxos(r, &x->genesis);
	x->assets = dn_rd_arr(r, sizeof *x->assets, &x->nassets, &x->cap_assets);
	size_t n;
	x->amap = dn_rd_arr(r, sizeof *x->amap, &x->amap_cap, &n);
	x->buckets = dn_rd_arr(r, sizeof *x->buckets, &x->nbuckets, &x->cap_buckets);
	for (size_t i = 0; i < x->nbuckets; i++)
		x->buckets[i].list = (ivec){ 0 };
	for (size_t i = 0; i < x->nbuckets; i++)
		rd_ivec(r, &x->buckets[i].list);
	x->bmap = dn_rd_arr(r, sizeof *x->bmap, &x->bmap_cap, &n);
	ivec *pools[] = { &x->p_multi, &x->p_ant, &x->p_nft, &x->p_mint6, &x->p_mint10 };
	for (size_t i = 0; i < SL_ARRAY_LEN(pools); i++)
		rd_ivec(r, pools[i]);
	dn_rd_utxos(r, &x->pending);
	size_t cap;
	uint8_t *open = dn_rd_arr(r, 1, &n, &cap);
	if (n)
		sl_buf_add(&x->txbuf, open, n);
	free(open);
	x->recs = dn_rd_arr(r, sizeof *x->recs, &x->nrecs, &x->cap_recs);
	/* hash tables are powers of two (their probes mask with cap - 1) */
	if ((x->amap_cap & (x->amap_cap - 1)) || (x->bmap_cap & (x->bmap_cap - 1)) || x->txbuf.err)
		r->bad = true;
	dn_x_free(w);
	w->x = x;
	return r->bad ? SL_ERR_INVALID : SL_OK;
}

/* ---------------------------------------------------------------- manifest */

typedef struct bal {
	uint32_t key, asset;
	uint64_t amount;
} bal;

static int bal_cmp(const void *a, const void *b)
{
	const bal *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->asset < y->asset ? -1 : x->asset > y->asset;
}

static void write_xaddr(const dn_world *w, sl_jw *jw, uint32_t k)
{
	char mem[128];
	sl_buf a = { .p = (uint8_t *)mem, .cap = sizeof mem, .max = sizeof mem - 1 };
	sl_addr_write(&a, "X", sl_addr_hrp(w->cfg.network_id), w->keys[k].addr);
	sl_jw_keyn(jw, mem, a.len);
}

static void count_utxo(const struct dn_xstate *x, const dn_utxo *u, bal *bals, size_t *nb, uint64_t *nfts,
		       uint64_t *shared)
{
	if (u->spent)
		return;
	if (u->nowners != 1) {
		(*shared)++;
		return;
	}
	int64_t a = asset_find(x, u->asset_id);
	if (a < 0)
		return;
	if (u->type_id == SL_T_SECP_TRANSFER_OUTPUT)
		bals[(*nb)++] = (bal){ u->owners[0], (uint32_t)a, u->amount };
	else if (u->type_id == SL_T_NFT_TRANSFER_OUTPUT)
		nfts[a]++;
}

void dn_x_manifest(const dn_world *w, sl_jw *jw)
{
	const struct dn_xstate *x = w->x;
	sl_jw_obj(jw);
	if (!x) {
		sl_jw_obj_end(jw);
		return;
	}
	sl_jw_key(jw, "genesisTxId");
	sl_jw_cb58(jw, x->genesis_tx, 32);
	sl_jw_key(jw, "genesisUtxos");
	sl_jw_u64(jw, x->ngenesis);
	sl_jw_key(jw, "genesis");
	sl_jw_obj(jw);
	sl_jw_key(jw, "utxos");
	sl_jw_arr(jw);
	for (size_t i = 0; i < x->genesis.n; i++)
		dn_jw_utxo(w, jw, DN_X, &x->genesis.v[i]);
	sl_jw_arr_end(jw);
	sl_jw_obj_end(jw);
	sl_jw_key(jw, "assets");
	sl_jw_arr(jw);
	for (size_t i = 0; i < x->nassets; i++) {
		const xasset *a = &x->assets[i];
		sl_jw_obj(jw);
		sl_jw_key(jw, "assetId");
		sl_jw_cb58(jw, a->id, 32);
		sl_jw_key(jw, "name");
		sl_jw_str(jw, a->name);
		sl_jw_key(jw, "symbol");
		sl_jw_str(jw, a->symbol);
		sl_jw_key(jw, "denomination");
		sl_jw_u64(jw, a->denom);
		sl_jw_key(jw, "type");
		sl_jw_str(jw, kind_names[a->kind]);
		sl_jw_key(jw, "supply");
		sl_jw_u64s(jw, i == 0 ? w->supply : a->supply);
		sl_jw_obj_end(jw);
	}
	sl_jw_arr_end(jw);

	/* Unspent outputs: the ledger plus outputs still waiting for their container to be seen. */
	size_t total = w->utxos[DN_X].n + x->pending.n, nb = 0;
	bal *bals = malloc((total ? total : 1) * sizeof *bals);
	uint64_t *nfts = calloc(x->nassets, sizeof *nfts), shared = 0;
	if (!bals || !nfts) {
		free(bals);
		free(nfts);
		jw->out->err = jw->out->err ? jw->out->err : SL_ERR_NOMEM;
		sl_jw_obj_end(jw);
		return;
	}
	for (size_t i = 0; i < w->utxos[DN_X].n; i++)
		count_utxo(x, &w->utxos[DN_X].v[i], bals, &nb, nfts, &shared);
	for (size_t i = 0; i < x->pending.n; i++)
		count_utxo(x, &x->pending.v[i], bals, &nb, nfts, &shared);
	qsort(bals, nb, sizeof *bals, bal_cmp);
	sl_jw_key(jw, "balances");
	sl_jw_obj(jw);
	for (size_t i = 0; i < nb;) {
		uint32_t k = bals[i].key;
		write_xaddr(w, jw, k);
		sl_jw_obj(jw);
		while (i < nb && bals[i].key == k) {
			uint32_t a = bals[i].asset;
			uint64_t sum = 0;
			for (; i < nb && bals[i].key == k && bals[i].asset == a; i++)
				sum += bals[i].amount;
			char id[64];
			size_t n = sl_cb58_id(id, x->assets[a].id);
			sl_jw_keyn(jw, id, n);
			sl_jw_u64s(jw, sum);
		}
		sl_jw_obj_end(jw);
	}
	sl_jw_obj_end(jw);
	sl_jw_key(jw, "sharedUtxos");
	sl_jw_u64(jw, shared);
	sl_jw_key(jw, "nfts");
	sl_jw_obj(jw);
	for (size_t i = 0; i < x->nassets; i++) {
		if (x->assets[i].kind != AK_NFT)
			continue;
		char id[64];
		size_t n = sl_cb58_id(id, x->assets[i].id);
		sl_jw_keyn(jw, id, n);
		sl_jw_u64(jw, nfts[i]);
	}
	sl_jw_obj_end(jw);
	free(bals);
	free(nfts);

	sl_jw_key(jw, "txCounts");
	sl_jw_obj(jw);
	for (uint32_t t = 0; t < 5; t++) {
		sl_jw_key(jw, sl_xchain_type_name(t));
		sl_jw_u64(jw, x->counts[t]);
	}
	sl_jw_obj_end(jw);
	sl_jw_key(jw, "vertices");
	sl_jw_u64(jw, x->vertices);
	sl_jw_key(jw, "blocks");
	sl_jw_u64(jw, x->xblocks);
	sl_jw_key(jw, "linearized");
	sl_jw_bool(jw, x->linear);
	if (x->linear) {
		sl_jw_key(jw, "stopVertexId");
		sl_jw_cb58(jw, x->stop_vtx, 32);
		sl_jw_key(jw, "cortinaHeight");
		sl_jw_u64(jw, x->stop_height);
	}
	sl_jw_obj_end(jw);
}

void dn_x_genesis(const dn_world *w, sl_jw *j)
{
	const struct dn_xstate *x = w->x;
	sl_buf b;
	sl_buf_init(&b, 4096);
	sl_jw_arr(j);
	for (size_t i = 0; i < x->genesis.n; i++) {
		sl_buf_reset(&b);
		dn_utxo_encode(w, &x->genesis.v[i], &b);
		sl_jw_hex(j, b.p, b.len);
	}
	sl_jw_arr_end(j);
	sl_buf_release(&b);
}
