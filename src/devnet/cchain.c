/*
 * cchain.c — the devnet's C-chain: EVM accounts, coreth blocks with signed
 * transfers (legacy EIP-155 and EIP-1559), and atomic Import/Export txs in
 * the blocks' extData, proposervm-wrapped to C/block.
 *
 * State: one account per devnet key (w->keys[i].evm) plus coreth's
 * blackhole 0x0100…00, each a balance in wei (128 bits: the whole AVAX
 * supply is 7.2e26 wei) and a nonce. The genesis allocation gives every key
 * AVAX on C; it is a C-chain genesis alloc, so it is not part of w->supply
 * (avalanchego's P-chain supply counts the genesis allocations of X and P
 * only).
 *
 * Order of effects inside a block, as coreth applies them: the EVM txs in
 * order (sender pays value + gas * effective price, the whole fee goes to
 * the coinbase, which is the blackhole: burned), then the atomic txs in
 * extData order (coreth's OnExtraStateChange runs at Finalize, after the
 * txs). So an ExportTx's EVMInput nonce is the sender's nonce after the
 * block's EVM txs.
 *
 * Fork era: every header has the ApricotPhase4 layout (19 fields: baseFee,
 * extDataGasUsed, blockGasCost), which is what coreth wrote from AP4 until
 * Etna (Cancun) in December 2024; extData switches from one tx to a batch
 * at w->params.ap5_time, and the gas limit from 8M to 15M at Cortina.
 *
 * Roots: transactionsRoot, receiptsRoot and stateRoot are real Merkle
 * Patricia trie roots (trie_root below): txs by rlp(index), receipts
 * (status 1, cumulative gas, empty bloom, no logs: plain transfers have
 * none) by rlp(index), and the secure state trie of keccak(address) →
 * rlp([nonce, balance, emptyRoot, keccak(""), isMultiCoin=false]) over
 * every non-empty account. The state trie keeps a cache of node hashes, so
 * a block rehashes only the paths of the accounts it touched.
 */
#include "devnet/world.h"

#include <stdlib.h>

#include "codec/atomic.h"
#include "codec/coreth.h"
#include "codec/rlp.h"
#include "codec/writer.h"
#include "crypto/hash.h"
#include "crypto/secp.h"

#define WEI_PER_NAVAX 1000000000ull
#define GWEI 1000000000ull
#define TRANSFER_GAS 21000ull
#define GAS_LIMIT_AP 8000000ull /* ApricotPhase1 to Cortina */
#define GAS_LIMIT_CORTINA 15000000ull
#define MIN_BASE_FEE (25 * GWEI)      /* ApricotPhase4's minimum */
#define MAX_BASE_FEE (60 * GWEI)      /* keeps an atomic tx's gas cost under dn_fee */
#define GENESIS_BASE_FEE (225 * GWEI) /* ApricotPhase3's initial base fee */
#define FEE_WINDOW 10		      /* header extra: 10 u64 of the rolling gas window */
#define ATOMIC_BASE_COST 10000ull     /* ApricotPhase5: fixed gas per atomic tx */
#define ATOMIC_SIG_COST 1000ull	      /* gas per signature */
#define MAX_IMPORT_INPUTS 5
#define IMPORT_WINDOW 256 /* shared-memory entries looked at per import */
#define BLOCK_ARENA (64u << 20)
#define TRIE_MAX_KEY 32 /* bytes; state keys are the longest */
#define TRIE_LEVELS (4 * TRIE_MAX_KEY + 4)

typedef unsigned __int128 u128;

static const uint8_t blackhole[20] = { 0x01 };
static const uint8_t empty_root[32] = {
	0x56, 0xe8, 0x1f, 0x17, 0x1b, 0xcc, 0x55, 0xa6, 0xff, 0x83, 0x45, 0xe6, 0x92, 0xc0, 0xf8, 0x6e,
	0x5b, 0x48, 0xe0, 0x1b, 0x99, 0x6c, 0xad, 0xc0, 0x01, 0x62, 0x2f, 0xb5, 0xe3, 0x63, 0xb4, 0x21,
};
static const uint8_t empty_code_hash[32] = {
	0xc5, 0xd2, 0x46, 0x01, 0x86, 0xf7, 0x23, 0x3c, 0x92, 0x7e, 0x7d, 0xb2, 0xdc, 0xc7, 0x03, 0xc0,
	0xe5, 0x00, 0xb6, 0x53, 0xca, 0x82, 0x27, 0x3b, 0x7b, 0xfa, 0xd8, 0x04, 0x5d, 0x85, 0xa4, 0x70,
};
static const uint8_t empty_uncles[32] = {
	/* keccak256(rlp([])) */
	0x1d, 0xcc, 0x4d, 0xe8, 0xde, 0xc7, 0x5d, 0x7a, 0xab, 0x85, 0xb5, 0x67, 0xb6, 0xcc, 0xd4, 0x1a,
	0xd3, 0x12, 0x45, 0x1b, 0x94, 0x8a, 0x74, 0x13, 0xf0, 0xa1, 0x42, 0xfd, 0x40, 0xd4, 0x93, 0x47,
};
static const uint8_t zeros[256];

/* ---- Merkle Patricia trie roots (built whole from sorted pairs) ---- */

typedef struct trie_kv {
	const uint8_t *k, *v;
	size_t klen, vlen;
} trie_kv;

/*
 * A node's reference as its parent holds it (the node itself under 32
 * bytes, else 0xa0 and its hash), kept between blocks for the state trie.
 * Nodes are numbered in depth-first order; `size` is how many numbers the
 * node's subtree takes, so a clean subtree is skipped whole.
 */
typedef struct trie_cached {
	uint8_t ref[33];
	uint8_t len;
	uint32_t size;
} trie_cached;

/*
 * One scratch buffer per recursion level, reused from block to block, and
 * the optional node cache: with `cache` set, `base` is the kv array of the
 * whole trie and pre[i] the number of changed pairs among base[0..i); a
 * subtree without changed pairs reuses its cached reference when `cache_ok`
 * (the set of keys, hence the trie's shape, is the one the cache was made
 * from).
 */
typedef struct trie_scratch {
	sl_buf lvl[TRIE_LEVELS];
	trie_cached *cache;
	const trie_kv *base;
	const uint32_t *pre;
	bool cache_ok;
	uint32_t next;
} trie_scratch;

static unsigned nib(const trie_kv *kv, size_t i)
{
	uint8_t b = kv->k[i >> 1];
	return i & 1 ? b & 15u : b >> 4;
}

/* Hex-prefix encoding of nibbles [from, to) of the key, as an RLP string. */
static void hp_put(sl_buf *out, const trie_kv *kv, size_t from, size_t to, bool leaf)
{
	uint8_t tmp[TRIE_MAX_KEY + 1];
	bool odd = (to - from) & 1;
	size_t o = 1, i = from;
	tmp[0] = (uint8_t)((leaf ? 0x20 : 0) | (odd ? 0x10 | nib(kv, i++) : 0));
	for (; i < to; i += 2)
		tmp[o++] = (uint8_t)(nib(kv, i) << 4 | nib(kv, i + 1));
	sl_rlp_put_str(out, tmp, o);
}

static void trie_node(trie_scratch *t, unsigned lvl, const trie_kv *kv, size_t n, size_t d, sl_buf *out);

/* Append the reference to the node over kv[0..n): its encoding if under 32 bytes, else its hash. */
static void trie_ref(trie_scratch *t, unsigned lvl, const trie_kv *kv, size_t n, size_t d, sl_buf *parent)
{
	trie_cached *c = NULL;
	uint32_t id = 0;
	if (t->cache) {
		size_t lo = (size_t)(kv - t->base);
		id = t->next++;
		c = &t->cache[id];
		if (t->cache_ok && t->pre[lo + n] == t->pre[lo]) {
			sl_buf_add(parent, c->ref, c->len);
			t->next = id + c->size;
			return;
		}
	}
	sl_buf *b = &t->lvl[lvl];
	sl_buf_reset(b);
	trie_node(t, lvl, kv, n, d, b);
	if (b->err) {
		if (!parent->err)
			parent->err = b->err;
		return;
	}
	uint8_t ref[33];
	size_t len;
	if (b->len < 32) {
		memcpy(ref, b->p, b->len);
		len = b->len;
	} else {
		ref[0] = 0xa0; /* an RLP string of 32 bytes */
		sl_keccak256(b->p, b->len, ref + 1);
		len = 33;
	}
	sl_buf_add(parent, ref, len);
	if (c) {
		memcpy(c->ref, ref, len);
		c->len = (uint8_t)len;
		c->size = t->next - id;
	}
}

/*
 * The node over kv[0..n) (sorted, unique, n >= 1) whose keys share their
 * first d nibbles: a leaf for one key, an extension over a longer common
 * prefix, else a branch (with a value when one key ends here).
 */
static void trie_node(trie_scratch *t, unsigned lvl, const trie_kv *kv, size_t n, size_t d, sl_buf *out)
{
	size_t st = sl_rlp_list_begin(out);
	if (n == 1) {
		hp_put(out, kv, d, 2 * kv->klen, true);
		sl_rlp_put_str(out, kv->v, kv->vlen);
	} else {
		size_t end = SL_MIN(2 * kv[0].klen, 2 * kv[n - 1].klen), cp = d;
		while (cp < end && nib(&kv[0], cp) == nib(&kv[n - 1], cp))
			cp++;
		if (cp > d) {
			hp_put(out, kv, d, cp, false);
			trie_ref(t, lvl + 1, kv, n, cp, out);
		} else {
			size_t i = 0;
			const trie_kv *val = NULL;
			if (2 * kv[0].klen == d)
				val = &kv[i++];
			for (unsigned c = 0; c < 16; c++) {
				size_t j = i;
				while (j < n && nib(&kv[j], d) == c)
					j++;
				if (j > i)
					trie_ref(t, lvl + 1, kv + i, j - i, d + 1, out);
				else
					sl_buf_addc(out, (char)0x80);
				i = j;
			}
			if (val)
				sl_rlp_put_str(out, val->v, val->vlen);
			else
				sl_buf_addc(out, (char)0x80);
		}
	}
	sl_rlp_list_end(out, st);
}

/* Root of the trie over kv[0..n), which must be sorted by key bytes and unique. */
static sl_err trie_root(trie_scratch *t, const trie_kv *kv, size_t n, uint8_t out[32])
{
	if (n == 0) {
		memcpy(out, empty_root, 32);
		return SL_OK;
	}
	sl_buf *b = &t->lvl[0];
	sl_buf_reset(b);
	trie_node(t, 0, kv, n, 0, b);
	if (b->err)
		return b->err;
	sl_keccak256(b->p, b->len, out);
	return SL_OK;
}

static int kv_cmp(const void *a, const void *b)
{
	const trie_kv *x = a, *y = b;
	int c = memcmp(x->k, y->k, SL_MIN(x->klen, y->klen));
	return c ? c : (x->klen > y->klen) - (x->klen < y->klen);
}

static void scratch_init(trie_scratch *t)
{
	t->cache = NULL; /* no node cache unless the state trie sets one (state_root) */
	t->base = NULL;
	t->pre = NULL;
	t->cache_ok = false;
	t->next = 0;
	for (unsigned i = 0; i < TRIE_LEVELS; i++)
		sl_buf_init(&t->lvl[i], SL_MAX_CONTAINER * 2);
}

static void scratch_release(trie_scratch *t)
{
	for (unsigned i = 0; i < TRIE_LEVELS; i++)
		sl_buf_release(&t->lvl[i]);
}

/*
 * The trie root of n (key, value) pairs in any order (keys unique, at most
 * 32 bytes). Exported for the unit test; declared here, not in a header,
 * because the generator is its only user.
 */
sl_err dn_c_trie_root(const uint8_t *const *keys, const size_t *klens, const uint8_t *const *vals,
		      const size_t *vlens, size_t n, uint8_t out[32]);
sl_err dn_c_trie_root(const uint8_t *const *keys, const size_t *klens, const uint8_t *const *vals,
		      const size_t *vlens, size_t n, uint8_t out[32])
{
	trie_kv *kv = calloc(n ? n : 1, sizeof *kv);
	if (!kv)
		return SL_ERR_NOMEM;
	for (size_t i = 0; i < n; i++) {
		if (klens[i] > TRIE_MAX_KEY) {
			free(kv);
			return SL_ERR_INVALID;
		}
		kv[i] = (trie_kv){ .k = keys[i], .klen = klens[i], .v = vals[i], .vlen = vlens[i] };
	}
	qsort(kv, n, sizeof *kv, kv_cmp);
	trie_scratch *t = malloc(sizeof *t);
	sl_err e = SL_ERR_NOMEM;
	if (t) {
		scratch_init(t);
		e = trie_root(t, kv, n, out);
		scratch_release(t);
		free(t);
	}
	free(kv);
	return e;
}

/* ---- state ---- */

typedef struct c_acct {
	u128 balance; /* wei */
	uint64_t nonce;
	uint8_t hkey[32]; /* keccak256(address): the secure trie's key */
	const uint8_t *addr;
	/* what the state trie holds for it: the values its leaf was made from, and the leaf's value */
	bool in_trie;
	u128 trie_balance;
	uint64_t trie_nonce;
	uint8_t enc[112];
	uint8_t enclen;
} c_acct;

struct dn_cstate {
	dn_rng rng;
	c_acct *acct; /* w->nkeys accounts, then the blackhole */
	/* the state trie, updated incrementally (state_root) */
	trie_kv *skv;	 /* the non-empty accounts' (hkey, encoding), in hkey order */
	uint32_t *sacct; /* skv[j] is account sacct[j] */
	uint32_t nskv;
	uint32_t *pre;	    /* changed accounts among skv[0..j) */
	trie_cached *cache; /* 3 nodes per account at most */
	bool cache_ok;
	u128 *genesis; /* genesis balances, for the manifest */
	uint32_t nacct;
	uint32_t *by_hkey; /* account indexes sorted by hkey (the state trie's order) */
	uint64_t base_fee; /* wei, of the last block */
	uint64_t window[FEE_WINDOW];
	size_t import_from[DN_CHAINS]; /* shared[DN_C][src] before this index is all spent or unimportable */
	uint64_t n_legacy, n_dynamic, n_import, n_export;
	trie_scratch trie;
};

/* One block being built: its arena owns every span the codec structs point at. */
typedef struct c_block {
	sl_arena a;
	sl_err err;
	uint64_t time, base_fee;
	sl_evm_tx *txs;
	uint32_t ntx, cap_tx;
	sl_atomic_tx *atx;
	uint32_t natx, cap_atx;
	uint64_t ext_gas;
} c_block;

static void *balloc(c_block *b, size_t n)
{
	void *p = sl_arena_alloc(&b->a, n ? n : 1);
	if (!p && !b->err)
		b->err = SL_ERR_NOMEM;
	return p;
}

/* A copy of p[0..n) in the block's arena (empty span when the arena is exhausted). */
static sl_span bcopy_span(c_block *b, const void *p, size_t n)
{
	uint8_t *q = balloc(b, n);
	if (!q)
		return sl_span_of(NULL, 0);
	memcpy(q, p, n);
	return sl_span_of(q, n);
}

/* Minimal big-endian bytes of v (RLP's integer form; zero is empty). */
static size_t be_min(u128 v, uint8_t out[16])
{
	uint8_t tmp[16];
	for (int i = 15; i >= 0; i--) {
		tmp[i] = (uint8_t)v;
		v >>= 8;
	}
	size_t skip = 0;
	while (skip < 16 && tmp[skip] == 0)
		skip++;
	memcpy(out, tmp + skip, 16 - skip);
	return 16 - skip;
}

static sl_span buint(c_block *b, u128 v)
{
	uint8_t t[16];
	size_t n = be_min(v, t);
	return n ? bcopy_span(b, t, n) : sl_span_of(NULL, 0);
}

/* A 32-byte big-endian integer without its leading zeros. */
static sl_span bscalar(c_block *b, const uint8_t p[32])
{
	size_t skip = 0;
	while (skip < 32 && p[skip] == 0)
		skip++;
	return skip == 32 ? sl_span_of(NULL, 0) : bcopy_span(b, p + skip, 32 - skip);
}

static int hkey_cmp(const void *a, const void *b, void *ctx)
{
	const c_acct *acct = ctx;
	return memcmp(acct[*(const uint32_t *)a].hkey, acct[*(const uint32_t *)b].hkey, 32);
}

/* rlp([nonce, balance, storageRoot, codeHash, isMultiCoin]) — coreth's account with its extra bool. */
static void account_encode(c_acct *a)
{
	uint8_t t[16];
	sl_buf out = { .p = a->enc, .cap = sizeof a->enc, .max = sizeof a->enc - 1 };
	size_t st = sl_rlp_list_begin(&out);
	sl_rlp_put_u64(&out, a->nonce);
	sl_rlp_put_str(&out, t, be_min(a->balance, t));
	sl_rlp_put_str(&out, empty_root, 32);
	sl_rlp_put_str(&out, empty_code_hash, 32);
	sl_buf_addc(&out, (char)0x80); /* false */
	sl_rlp_list_end(&out, st);
	a->enclen = (uint8_t)out.len; /* at most 97 bytes: 2 + 9 + 17 + 33 + 33 + 1 */
	a->trie_balance = a->balance;
	a->trie_nonce = a->nonce;
}

/*
 * The secure state trie's root over every non-empty account. Accounts that
 * changed since the last call get new leaves; the hashes of subtrees
 * without a change come from the node cache, so a block costs a few
 * keccaks per touched account instead of a pass over all of them. The set
 * of non-empty accounts only grows (an account that paid has a nonce), and
 * when it grows the trie changes shape and is rebuilt whole.
 */
static sl_err state_root(struct dn_cstate *st, uint8_t out[32])
{
	bool grew = false;
	for (uint32_t i = 0; i < st->nacct; i++) {
		c_acct *a = &st->acct[i];
		if (!a->in_trie && (a->balance || a->nonce)) /* EIP-161: empty accounts are not in the trie */
			a->in_trie = grew = true;
	}
	if (grew) {
		st->nskv = 0;
		for (uint32_t p = 0; p < st->nacct; p++)
			if (st->acct[st->by_hkey[p]].in_trie)
				st->sacct[st->nskv++] = st->by_hkey[p];
		st->cache_ok = false;
	}
	st->pre[0] = 0;
	for (uint32_t j = 0; j < st->nskv; j++) {
		c_acct *a = &st->acct[st->sacct[j]];
		bool changed = !st->cache_ok || a->balance != a->trie_balance || a->nonce != a->trie_nonce;
		if (changed)
			account_encode(a);
		st->skv[j] = (trie_kv){ .k = a->hkey, .klen = 32, .v = a->enc, .vlen = a->enclen };
		st->pre[j + 1] = st->pre[j] + changed;
	}
	trie_scratch *t = &st->trie;
	t->cache = st->cache;
	t->base = st->skv;
	t->pre = st->pre;
	t->cache_ok = st->cache_ok;
	t->next = 0;
	sl_err e = trie_root(t, st->skv, st->nskv, out);
	t->cache = NULL;
	st->cache_ok = e == SL_OK;
	return e;
}

/* ---- headers ---- */

static void header_fields(c_block *b, sl_coreth_header *h, const uint8_t parent[32], uint64_t number,
			  uint64_t gas_limit, uint64_t gas_used, const uint8_t roots[3][32], sl_span extra,
			  const uint8_t ext_hash[32])
{
	*h = (sl_coreth_header){ .nfields = SL_CH_BLOCK_GAS_COST + 1 };
	h->f[SL_CH_PARENT_HASH] = bcopy_span(b, parent, 32);
	h->f[SL_CH_UNCLE_HASH] = sl_span_of(empty_uncles, 32);
	h->f[SL_CH_COINBASE] = sl_span_of(blackhole, 20);
	h->f[SL_CH_STATE_ROOT] = bcopy_span(b, roots[0], 32);
	h->f[SL_CH_TX_ROOT] = bcopy_span(b, roots[1], 32);
	h->f[SL_CH_RECEIPT_ROOT] = bcopy_span(b, roots[2], 32);
	h->f[SL_CH_BLOOM] = sl_span_of(zeros, 256); /* no logs */
	h->f[SL_CH_DIFFICULTY] = buint(b, 1);
	h->f[SL_CH_NUMBER] = buint(b, number);
	h->f[SL_CH_GAS_LIMIT] = buint(b, gas_limit);
	h->f[SL_CH_GAS_USED] = buint(b, gas_used);
	h->f[SL_CH_TIME] = buint(b, b->time);
	h->f[SL_CH_EXTRA] = extra;
	h->f[SL_CH_MIX_DIGEST] = sl_span_of(zeros, 32);
	h->f[SL_CH_NONCE] = sl_span_of(zeros, 8);
	h->f[SL_CH_EXT_DATA_HASH] = bcopy_span(b, ext_hash, 32);
	h->f[SL_CH_BASE_FEE] = buint(b, b->base_fee);
	h->f[SL_CH_EXT_DATA_GAS_USED] = buint(b, b->ext_gas);
	/* blocks come seconds to minutes apart: AP4's block gas cost has decayed to 0 */
	h->f[SL_CH_BLOCK_GAS_COST] = sl_span_of(NULL, 0);
}

static uint64_t gas_limit_at(const dn_world *w, uint64_t t)
{
	return t >= w->params.cortina_time ? GAS_LIMIT_CORTINA : GAS_LIMIT_AP;
}

/* ---- init / free ---- */

sl_err dn_c_init(dn_world *w)
{
	struct dn_cstate *st = calloc(1, sizeof *st);
	if (!st)
		return SL_ERR_NOMEM;
	w->c = st;
	dn_rng_init(&st->rng, w->seed, "cchain");
	scratch_init(&st->trie);
	st->nacct = w->nkeys + 1;
	st->acct = calloc(st->nacct, sizeof *st->acct);
	st->genesis = calloc(st->nacct, sizeof *st->genesis);
	st->by_hkey = calloc(st->nacct, sizeof *st->by_hkey);
	st->skv = calloc(st->nacct, sizeof *st->skv);
	st->sacct = calloc(st->nacct, sizeof *st->sacct);
	st->pre = calloc(st->nacct + 1, sizeof *st->pre);
	st->cache = calloc((size_t)st->nacct * 3 + 4, sizeof *st->cache);
	if (!st->acct || !st->genesis || !st->by_hkey || !st->skv || !st->sacct || !st->pre || !st->cache)
		return SL_ERR_NOMEM;
	for (uint32_t i = 0; i < st->nacct; i++) {
		c_acct *a = &st->acct[i];
		a->addr = i < w->nkeys ? w->keys[i].evm : blackhole;
		sl_keccak256(a->addr, 20, a->hkey);
		st->by_hkey[i] = i;
		if (i < w->nkeys) /* 100 to 100,000 AVAX, skewed towards the low end */
			a->balance = (u128)dn_rng_range(&st->rng, 100, 1000) *
				     dn_rng_range(&st->rng, 1, 100) * DN_NANO * WEI_PER_NAVAX;
		st->genesis[i] = a->balance;
	}
	qsort_r(st->by_hkey, st->nacct, sizeof *st->by_hkey, hkey_cmp, st->acct);
	st->base_fee = GENESIS_BASE_FEE;

	/* The genesis block: only its hash is needed, as block 1's parent. */
	c_block b = { .time = w->cfg.start_time, .base_fee = GENESIS_BASE_FEE };
	sl_arena_init(&b.a, 1u << 20);
	uint8_t roots[3][32], zero[32] = { 0 };
	sl_err e = state_root(st, roots[0]);
	memcpy(roots[1], empty_root, 32);
	memcpy(roots[2], empty_root, 32);
	sl_coreth_header h;
	header_fields(&b, &h, zero, 0, GAS_LIMIT_AP, 0, roots, sl_span_of(NULL, 0), empty_root);
	sl_buf out;
	sl_buf_init(&out, 4096);
	sl_coreth_header_write(&out, &h);
	if (!e)
		e = b.err ? b.err : out.err;
	if (!e) {
		sl_keccak256(out.p, out.len, w->chain[DN_C].last_inner);
		/* the first proposervm block's parent is the inner genesis */
		memcpy(w->chain[DN_C].last_outer, w->chain[DN_C].last_inner, 32);
		w->chain[DN_C].height = 0;
		w->chain[DN_C].last_time = w->cfg.start_time;
	}
	sl_buf_release(&out);
	sl_arena_release(&b.a);
	return e;
}

/*
 * The C-chain's genesis for a node that serves its eth JSON-RPC (node.h,
 * sl_feed_evm_genesis): EIP-155 chain id, ApricotPhase5 time, the genesis
 * block's header (the one dn_c_init hashes: block 1's parent) and the
 * allocation. The header is rebuilt from the genesis balances, so it is the
 * same after a restore from a snapshot.
 */
sl_err dn_c_genesis(const dn_world *w, sl_buf *out)
{
	const struct dn_cstate *st = w->c;
	uint32_t n = 0;
	for (uint32_t i = 0; i < st->nacct; i++)
		n += st->genesis[i] != 0;
	const uint8_t **keys = calloc(n + 1, sizeof *keys), **vals = calloc(n + 1, sizeof *vals);
	size_t *klens = calloc(n + 1, sizeof *klens), *vlens = calloc(n + 1, sizeof *vlens);
	c_acct *tmp = calloc(n + 1, sizeof *tmp);
	sl_err e = keys && vals && klens && vlens && tmp ? SL_OK : SL_ERR_NOMEM;
	uint32_t j = 0;
	for (uint32_t i = 0; !e && i < st->nacct; i++) {
		if (!st->genesis[i])
			continue;
		tmp[j] = (c_acct){ .balance = st->genesis[i] };
		account_encode(&tmp[j]);
		keys[j] = st->acct[i].hkey;
		klens[j] = 32;
		vals[j] = tmp[j].enc;
		vlens[j] = tmp[j].enclen;
		j++;
	}
	uint8_t roots[3][32], zero[32] = { 0 };
	if (!e)
		e = dn_c_trie_root(keys, klens, vals, vlens, n, roots[0]);
	memcpy(roots[1], empty_root, 32);
	memcpy(roots[2], empty_root, 32);
	c_block b = { .time = w->cfg.start_time, .base_fee = GENESIS_BASE_FEE };
	sl_arena_init(&b.a, 1u << 20);
	sl_coreth_header h;
	header_fields(&b, &h, zero, 0, GAS_LIMIT_AP, 0, roots, sl_span_of(NULL, 0), empty_root);
	sl_buf hb;
	sl_buf_init(&hb, 4096);
	sl_coreth_header_write(&hb, &h);
	if (!e)
		e = b.err ? b.err : hb.err;
	if (!e) {
		uint8_t t[8];
		sl_buf_add(out, "SLEVMG01", 8);
		sl_put_be64(t, w->params.evm_chain_id);
		sl_buf_add(out, t, 8);
		sl_put_be64(t, w->params.ap5_time);
		sl_buf_add(out, t, 8);
		sl_put_be32(t, (uint32_t)hb.len);
		sl_buf_add(out, t, 4);
		sl_buf_add(out, hb.p, hb.len);
		sl_put_be32(t, n);
		sl_buf_add(out, t, 4);
		for (uint32_t i = 0; i < st->nacct; i++) {
			if (!st->genesis[i])
				continue;
			uint8_t bal[32] = { 0 };
			u128 v = st->genesis[i];
			for (int k = 31; k >= 16; k--, v >>= 8)
				bal[k] = (uint8_t)v;
			sl_buf_add(out, st->acct[i].addr, 20);
			sl_buf_add(out, bal, 32);
			sl_put_be64(t, 0); /* nonce */
			sl_buf_add(out, t, 8);
		}
		e = out->err;
	}
	sl_buf_release(&hb);
	sl_arena_release(&b.a);
	free(keys);
	free(vals);
	free(klens);
	free(vlens);
	free(tmp);
	return e;
}

void dn_c_free(dn_world *w)
{
	struct dn_cstate *st = w->c;
	if (!st)
		return;
	scratch_release(&st->trie);
	free(st->acct);
	free(st->genesis);
	free(st->by_hkey);
	free(st->skv);
	free(st->sacct);
	free(st->pre);
	free(st->cache);
	free(st);
	w->c = NULL;
}

/* ---- EVM transfers ---- */

static sl_evm_tx *push_tx(c_block *b)
{
	if (b->ntx == b->cap_tx) {
		uint32_t cap = b->cap_tx ? b->cap_tx * 2 : 16;
		sl_evm_tx *v = balloc(b, cap * sizeof *v);
		if (!v)
			return NULL;
		if (b->ntx)
			memcpy(v, b->txs, b->ntx * sizeof *v);
		b->txs = v;
		b->cap_tx = cap;
	}
	b->txs[b->ntx] = (sl_evm_tx){ 0 };
	return &b->txs[b->ntx++];
}

/* A random account holding at least `need` wei, or UINT32_MAX. */
static uint32_t pick_funded(dn_world *w, u128 need)
{
	struct dn_cstate *st = w->c;
	for (int tries = 0; tries < 16; tries++) {
		uint32_t k = (uint32_t)dn_rng_below(&st->rng, w->nkeys);
		if (st->acct[k].balance >= need)
			return k;
	}
	uint32_t start = (uint32_t)dn_rng_below(&st->rng, w->nkeys);
	for (uint32_t i = 0; i < w->nkeys; i++) {
		uint32_t k = (start + i) % w->nkeys;
		if (st->acct[k].balance >= need)
			return k;
	}
	return UINT32_MAX;
}

/* Sign tx (fields set, v/r/s empty) with key k; fills v, r, s, raw and hash. */
static void evm_sign(dn_world *w, c_block *b, sl_evm_tx *tx, uint32_t k)
{
	uint8_t h[32], sig[65];
	if (tx->type == 0)
		tx->f[SL_TX_V] = buint(b, w->params.evm_chain_id * 2 +
						  35); /* EIP-155: the hash covers chainId, 0, 0 */
	sl_err e = sl_evm_tx_signing_hash(tx, h);
	if (e) {
		b->err = e;
		return;
	}
	dn_sign(w, k, h, sig);
	tx->f[SL_TX_V] = tx->type == 0 ? buint(b, w->params.evm_chain_id * 2 + 35 + sig[64])
				       : buint(b, sig[64]);
	tx->f[SL_TX_R] = bscalar(b, sig);
	tx->f[SL_TX_S] = bscalar(b, sig + 32);
	sl_buf raw;
	sl_buf_init(&raw, SL_MAX_CONTAINER);
	sl_evm_tx_write(&raw, tx);
	if (raw.err) {
		b->err = raw.err;
	} else {
		tx->raw = bcopy_span(b, raw.p, raw.len);
		sl_keccak256(raw.p, raw.len, tx->hash);
	}
	sl_buf_release(&raw);
}

/* One signed transfer between two keys, applied to the state. False when nobody can pay. */
static bool make_transfer(dn_world *w, c_block *b)
{
	struct dn_cstate *st = w->c;
	if (w->nkeys < 2)
		return false;
	bool legacy = dn_rng_chance(&st->rng, 35);
	uint64_t tip = dn_rng_range(&st->rng, 0, 2) * GWEI;
	uint64_t price = b->base_fee + tip;		       /* what the sender pays per gas */
	uint64_t cap = legacy ? price : 2 * b->base_fee + tip; /* what the balance must cover */
	u128 gas_cost = (u128)TRANSFER_GAS * cap;
	uint32_t s = pick_funded(w, gas_cost + (u128)DN_NANO * WEI_PER_NAVAX / 1000);
	if (s == UINT32_MAX)
		return false;
	uint32_t to = (uint32_t)dn_rng_below(&st->rng, w->nkeys - 1);
	if (to >= s)
		to++;
	u128 avail = st->acct[s].balance - gas_cost;
	u128 value = avail / 100 * dn_rng_range(&st->rng, 1, 25);
	value -= value % GWEI; /* whole gwei, as wallets send */

	sl_evm_tx *tx = push_tx(b);
	if (!tx)
		return false;
	tx->type = legacy ? 0 : 2;
	sl_evm_tx_layout(tx);
	if (!legacy) {
		tx->f[SL_TX_CHAIN_ID] = buint(b, w->params.evm_chain_id);
		tx->f[SL_TX_TIP_CAP] = buint(b, tip);
		tx->f[SL_TX_FEE_CAP] = buint(b, cap);
	} else {
		tx->f[SL_TX_GAS_PRICE] = buint(b, price);
	}
	tx->f[SL_TX_NONCE] = buint(b, st->acct[s].nonce);
	tx->f[SL_TX_GAS] = buint(b, TRANSFER_GAS);
	tx->f[SL_TX_TO] = sl_span_of(w->keys[to].evm, 20);
	tx->f[SL_TX_VALUE] = buint(b, value);
	tx->nonce = st->acct[s].nonce;
	tx->gas = TRANSFER_GAS;
	evm_sign(w, b, tx, s);

	u128 fee = (u128)TRANSFER_GAS * price;
	st->acct[s].balance -= value + fee;
	st->acct[s].nonce++;
	st->acct[to].balance += value;
	st->acct[w->nkeys].balance += fee; /* the coinbase is the blackhole: burned */
	if (legacy)
		st->n_legacy++;
	else
		st->n_dynamic++;
	return true;
}

/* ---- atomic txs ---- */

static sl_atomic_tx *push_atx(c_block *b)
{
	if (b->natx == b->cap_atx) {
		uint32_t cap = b->cap_atx ? b->cap_atx * 2 : 8;
		sl_atomic_tx *v = balloc(b, cap * sizeof *v);
		if (!v)
			return NULL;
		if (b->natx)
			memcpy(v, b->atx, b->natx * sizeof *v);
		b->atx = v;
		b->cap_atx = cap;
	}
	b->atx[b->natx] = (sl_atomic_tx){ 0 };
	return &b->atx[b->natx++];
}

/* Sign tx->utx with signer[i] for credential i; set creds, bytes and id; count its gas. */
static void atomic_sign(dn_world *w, c_block *b, sl_atomic_tx *tx, const uint32_t *signer, uint32_t n)
{
	uint8_t h[32];
	sl_buf u;
	sl_buf_init(&u, SL_MAX_CONTAINER);
	sl_wr_u16(&u, 0);
	sl_atomic_utx_write(&u, &tx->utx);
	sl_sha256(u.p, u.len, h);
	tx->ncreds = n;
	tx->creds = balloc(b, n * sizeof *tx->creds);
	uint8_t *sigs = balloc(b, (size_t)n * 65);
	if (!tx->creds || !sigs) {
		sl_buf_release(&u);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		dn_sign(w, signer[i], h, sigs + 65 * i);
		tx->creds[i] =
			(sl_credential){ .type_id = SL_T_SECP_CREDENTIAL, .nsigs = 1, .sigs = sigs + 65 * i };
	}
	sl_buf_reset(&u);
	sl_err e = sl_atomic_tx_encode(&u, tx); /* 00 00 | tx: the signed bytes */
	if (e) {
		b->err = e;
	} else {
		sl_sha256(u.p, u.len, tx->id);
		tx->bytes = bcopy_span(b, u.p + 2, u.len - 2);
		b->ext_gas +=
			u.len + n * ATOMIC_SIG_COST + (b->time >= w->params.ap5_time ? ATOMIC_BASE_COST : 0);
	}
	sl_buf_release(&u);
}

/*
 * A UTXO an import at block time t can spend: one owner, threshold 1, AVAX
 * transfer, unlocked, worth more than the fee, and exported by a container
 * accepted before t (the source chain may have run ahead of this one).
 */
static bool importable(const dn_world *w, const dn_utxo *u, uint64_t t)
{
	return !u->spent && u->type_id == 7 && u->nowners == 1 && u->threshold == 1 && u->locktime <= t &&
	       u->avail < t && u->amount > dn_fee(w, DN_C, SL_ATOMIC_IMPORT_TX) &&
	       !memcmp(u->asset_id, w->avax, 32);
}

/* Skip the spent and never-importable entries at the front of shared[DN_C][src]; true if one is left in reach. */
static bool import_ready(dn_world *w, int src, uint64_t t)
{
	struct dn_cstate *st = w->c;
	dn_utxos *set = &w->shared[DN_C][src];
	size_t *i = &st->import_from[src];
	while (*i < set->n) {
		const dn_utxo *u = &set->v[*i];
		bool never = u->spent || u->type_id != 7 || u->nowners != 1 || u->threshold != 1 ||
			     memcmp(u->asset_id, w->avax, 32) ||
			     u->amount <= dn_fee(w, DN_C, SL_ATOMIC_IMPORT_TX);
		if (!never)
			break;
		(*i)++;
	}
	for (size_t j = *i; j < set->n && j < *i + IMPORT_WINDOW; j++)
		if (importable(w, &set->v[j], t))
			return true;
	return false;
}

static int utxo_ptr_cmp(const void *a, const void *b)
{
	const dn_utxo *x = *(const dn_utxo *const *)a, *y = *(const dn_utxo *const *)b;
	int c = memcmp(x->tx_id, y->tx_id, 32);
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* ImportTx from src: the first importable UTXO's owner takes up to 5 of theirs. */
static bool make_import(dn_world *w, c_block *b, int src)
{
	struct dn_cstate *st = w->c;
	dn_utxos *set = &w->shared[DN_C][src];
	dn_utxo *pick[MAX_IMPORT_INPUTS];
	uint32_t n = 0, owner = 0;
	uint64_t total = 0;
	size_t from = st->import_from[src];
	for (size_t j = from; j < set->n && j < from + IMPORT_WINDOW && n < MAX_IMPORT_INPUTS; j++) {
		dn_utxo *u = &set->v[j];
		if (!importable(w, u, b->time) || (n && u->owners[0] != owner))
			continue;
		owner = u->owners[0];
		pick[n++] = u;
		total += u->amount;
	}
	if (!n)
		return false;
	qsort(pick, n, sizeof *pick, utxo_ptr_cmp); /* inputs sorted by (txID, index) */
	uint64_t fee = dn_fee(w, DN_C, SL_ATOMIC_IMPORT_TX);
	uint32_t to = owner;
	if (dn_rng_chance(&st->rng, 20))
		to = (uint32_t)dn_rng_below(&st->rng, w->nkeys);

	sl_atomic_tx *tx = push_atx(b);
	sl_avax_in *ins = balloc(b, n * sizeof *ins);
	sl_evm_output *outs = balloc(b, sizeof *outs);
	uint8_t *idx = balloc(b, 4);
	uint32_t *signer = balloc(b, n * sizeof *signer);
	if (!tx || !ins || !outs || !idx || !signer)
		return false;
	sl_put_be32(idx, 0);
	for (uint32_t i = 0; i < n; i++) {
		ins[i] = (sl_avax_in){
			.tx_id = pick[i]->tx_id,
			.output_index = pick[i]->index,
			.asset_id = w->avax,
			.in = { .type_id = SL_T_SECP_TRANSFER_INPUT,
				.fx_type_id = SL_T_SECP_TRANSFER_INPUT,
				.amount = pick[i]->amount,
				.sig = { .n = 1, .p = idx } },
		};
		signer[i] = owner;
	}
	outs[0] = (sl_evm_output){ .address = w->keys[to].evm, .amount = total - fee, .asset_id = w->avax };
	tx->utx = (sl_atomic_utx){
		.type_id = SL_ATOMIC_IMPORT_TX,
		.network_id = w->cfg.network_id,
		.blockchain_id = w->chain[DN_C].id,
		.chain = w->chain[src].id,
		.nimported = n,
		.imported = ins,
		.nevm_outs = 1,
		.evm_outs = outs,
	};
	atomic_sign(w, b, tx, signer, n);
	for (uint32_t i = 0; i < n; i++)
		pick[i]->spent = true;
	st->acct[to].balance += (u128)(total - fee) * WEI_PER_NAVAX;
	st->n_import++;
	return true;
}

/* ExportTx to dst: one EVMInput (amount + fee) from a funded key, one output to an Avalanche address. */
static bool make_export(dn_world *w, c_block *b, int dst)
{
	struct dn_cstate *st = w->c;
	uint64_t fee = dn_fee(w, DN_C, SL_ATOMIC_EXPORT_TX);
	u128 min = (u128)(fee + DN_NANO) * WEI_PER_NAVAX; /* at least 1 AVAX to move */
	uint32_t s = pick_funded(w, min);
	if (s == UINT32_MAX)
		return false;
	u128 navax = st->acct[s].balance / WEI_PER_NAVAX - fee;
	uint64_t cap = navax > 50000 * DN_NANO ? 50000 * DN_NANO : (uint64_t)navax;
	uint64_t amount = cap / 100 * dn_rng_range(&st->rng, 1, 40);
	amount -= amount % (DN_NANO / 1000); /* whole mAVAX */
	if (amount == 0)
		return false;
	uint32_t owner = dn_rng_chance(&st->rng, 85) ? s : (uint32_t)dn_rng_below(&st->rng, w->nkeys);

	sl_atomic_tx *tx = push_atx(b);
	sl_evm_input *ins = balloc(b, sizeof *ins);
	sl_avax_out *outs = balloc(b, sizeof *outs);
	if (!tx || !ins || !outs)
		return false;
	ins[0] = (sl_evm_input){ .address = w->keys[s].evm,
				 .amount = amount + fee,
				 .asset_id = w->avax,
				 .nonce = st->acct[s].nonce };
	outs[0] = (sl_avax_out){
		.asset_id = w->avax,
		.out = { .type_id = SL_T_SECP_TRANSFER_OUTPUT,
			 .fx_type_id = SL_T_SECP_TRANSFER_OUTPUT,
			 .amount = amount,
			 .owners = { .threshold = 1, .naddrs = 1, .addrs = w->keys[owner].addr } },
	};
	tx->utx = (sl_atomic_utx){
		.type_id = SL_ATOMIC_EXPORT_TX,
		.network_id = w->cfg.network_id,
		.blockchain_id = w->chain[DN_C].id,
		.chain = w->chain[dst].id,
		.nevm_ins = 1,
		.evm_ins = ins,
		.nexported = 1,
		.exported = outs,
	};
	atomic_sign(w, b, tx, &s, 1);
	if (b->err)
		return false;
	/* coreth's ExportTx.UTXOs: output i of the tx is UTXO (txID, i) in dst's shared memory */
	dn_utxo u = {
		.index = 0, .type_id = 7, .amount = amount, .threshold = 1, .nowners = 1, .avail = b->time
	};
	memcpy(u.tx_id, tx->id, 32);
	memcpy(u.asset_id, w->avax, 32);
	u.owners[0] = owner;
	if (!dn_utxo_add(&w->shared[dst][DN_C], &u)) {
		b->err = SL_ERR_NOMEM;
		return false;
	}
	st->acct[s].balance -= (u128)(amount + fee) * WEI_PER_NAVAX;
	st->acct[s].nonce++;
	st->n_export++;
	return true;
}

/* ---- blocks ---- */

/* rlp(i): the tx and receipt tries' key. */
static size_t index_key(uint32_t i, uint8_t out[8])
{
	if (i == 0) {
		out[0] = 0x80;
		return 1;
	}
	if (i < 0x80) {
		out[0] = (uint8_t)i;
		return 1;
	}
	size_t n = i >> 24 ? 4 : i >> 16 ? 3 : i >> 8 ? 2 : 1;
	out[0] = (uint8_t)(0x80 + n);
	for (size_t j = 0; j < n; j++)
		out[1 + j] = (uint8_t)(i >> (8 * (n - 1 - j)));
	return n + 1;
}

/* The tx and receipt roots of the block's EVM txs. */
static sl_err tx_roots(struct dn_cstate *st, c_block *b, uint8_t tx_root[32], uint8_t rc_root[32])
{
	uint32_t n = b->ntx;
	trie_kv *kv = balloc(b, (n ? n : 1) * sizeof *kv);
	uint8_t *keys = balloc(b, (size_t)(n ? n : 1) * 8);
	if (!kv || !keys)
		return SL_ERR_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		kv[i] = (trie_kv){ .k = keys + 8 * i,
				   .klen = index_key(i, keys + 8 * i),
				   .v = b->txs[i].raw.p,
				   .vlen = b->txs[i].raw.len };
	qsort(kv, n, sizeof *kv, kv_cmp);
	sl_err e = trie_root(&st->trie, kv, n, tx_root);
	if (e)
		return e;

	/* receipts: [status 1, cumulativeGas, bloom, []], typed ones behind their type byte */
	sl_buf rc;
	sl_buf_init(&rc, SL_MAX_CONTAINER);
	size_t *off = balloc(b, (n ? n : 1) * sizeof *off);
	if (!off)
		return SL_ERR_NOMEM;
	uint64_t cum = 0;
	for (uint32_t i = 0; i < n; i++) {
		cum += b->txs[i].gas;
		off[i] = rc.len;
		if (b->txs[i].type)
			sl_buf_addc(&rc, (char)b->txs[i].type);
		size_t l = sl_rlp_list_begin(&rc);
		sl_buf_addc(&rc, 0x01);
		sl_rlp_put_u64(&rc, cum);
		sl_rlp_put_str(&rc, zeros, 256);
		sl_buf_addc(&rc, (char)0xc0);
		sl_rlp_list_end(&rc, l);
	}
	e = rc.err;
	if (!e) {
		for (uint32_t i = 0; i < n; i++)
			kv[i] = (trie_kv){ .k = keys + 8 * i,
					   .klen = index_key(i, keys + 8 * i),
					   .v = rc.p + off[i],
					   .vlen = (i + 1 < n ? off[i + 1] : rc.len) - off[i] };
		qsort(kv, n, sizeof *kv, kv_cmp);
		e = trie_root(&st->trie, kv, n, rc_root);
	}
	sl_buf_release(&rc);
	return e;
}

/* Encode, self-check by decoding, emit wrapped, and advance the chain. */
static sl_err finish_block(dn_world *w, c_block *b)
{
	struct dn_cstate *st = w->c;
	dn_chain *ch = &w->chain[DN_C];
	uint8_t roots[3][32], ext_hash[32];
	uint64_t gas_used = 0;
	for (uint32_t i = 0; i < b->ntx; i++)
		gas_used += b->txs[i].gas;

	sl_span ext = sl_span_of(NULL, 0);
	if (b->natx) {
		sl_buf eb;
		sl_buf_init(&eb, SL_MAX_CONTAINER);
		sl_atomic_txs batch = { .batched = b->time >= w->params.ap5_time,
					.ntxs = b->natx,
					.txs = b->atx };
		sl_err e = sl_atomic_extdata_encode(&eb, &batch);
		if (!e)
			ext = bcopy_span(b, eb.p, eb.len);
		sl_buf_release(&eb);
		if (e)
			return e;
	}
	sl_coreth_ext_data_hash(ext, ext_hash);

	/* the rolling gas window in the header's extra: one slot per second, newest last */
	uint64_t dt = b->time - ch->last_time;
	if (dt >= FEE_WINDOW) {
		memset(st->window, 0, sizeof st->window);
	} else if (dt) {
		memmove(st->window, st->window + dt, (FEE_WINDOW - dt) * sizeof st->window[0]);
		memset(st->window + FEE_WINDOW - dt, 0, dt * sizeof st->window[0]);
	}
	st->window[FEE_WINDOW - 1] += gas_used + b->ext_gas;
	uint8_t *extra = balloc(b, 8 * FEE_WINDOW);
	if (!extra)
		return SL_ERR_NOMEM;
	for (int i = 0; i < FEE_WINDOW; i++)
		sl_put_be64(extra + 8 * i, st->window[i]);

	sl_err e = tx_roots(st, b, roots[1], roots[2]);
	if (!e)
		e = state_root(st, roots[0]);
	if (e)
		return e;

	sl_coreth_block blk = { .ntx = b->ntx, .txs = b->txs, .ext_data = ext };
	header_fields(b, &blk.header, ch->last_inner, ch->height + 1, gas_limit_at(w, b->time), gas_used,
		      roots, sl_span_of(extra, 8 * FEE_WINDOW), ext_hash);
	if (b->err)
		return b->err;
	sl_buf out;
	sl_buf_init(&out, SL_MAX_CONTAINER);
	e = sl_coreth_block_encode(&blk, &out);
	sl_coreth_block dec;
	if (!e)
		e = sl_coreth_block_decode(out.p, out.len, &b->a, &dec, NULL);
	if (!e && (dec.ntx != b->ntx || dec.header.number != ch->height + 1))
		e = SL_ERR_INTERNAL;
	if (!e) {
		dn_emit_wrapped(w, DN_C, SL_IDX_C_BLOCK, out.p, out.len, b->time, false);
		memcpy(ch->last_inner, dec.header.hash, 32);
		ch->height++;
		ch->last_time = b->time;
		ch->blocks++;
		ch->txs += b->ntx + b->natx;
	}
	sl_buf_release(&out);
	return e;
}

/* One block at time t with about k txs: transfers first, then atomic txs (coreth's order of effects). */
static sl_err build_block(dn_world *w, uint64_t t, uint32_t k)
{
	struct dn_cstate *st = w->c;
	c_block b = { .time = t };
	sl_arena_init(&b.a, BLOCK_ARENA);

	/* a random walk of the base fee inside [MIN, MAX] (the genesis fee falls to MAX at once) */
	int64_t fee = (int64_t)SL_MIN(st->base_fee, MAX_BASE_FEE) +
		      (int64_t)dn_rng_range(&st->rng, 0, 4 * GWEI) - (int64_t)(2 * GWEI);
	st->base_fee = (uint64_t)SL_MIN(SL_MAX(fee, (int64_t)MIN_BASE_FEE), (int64_t)MAX_BASE_FEE);
	b.base_fee = st->base_fee;

	/* the mix: about 10% imports, 10% exports, the rest transfers; one atomic tx per block before AP5 */
	bool batched = t >= w->params.ap5_time;
	uint32_t nimp = 0, nexp = 0, nevm = 0;
	int isrc[16], edst[16];
	for (uint32_t i = 0; i < k; i++) {
		unsigned r = (unsigned)dn_rng_below(&st->rng, 100);
		bool room = (batched || nimp + nexp == 0) && nimp + nexp < 16;
		int chain = dn_rng_chance(&st->rng, 65) ? DN_X : DN_P;
		if (r < 10 && room && import_ready(w, chain, t))
			isrc[nimp++] = chain;
		else if (r < 20 && room)
			edst[nexp++] = chain;
		else
			nevm++;
	}
	sl_err e = SL_OK;
	for (uint32_t i = 0; i < nevm && !b.err; i++)
		(void)make_transfer(w, &b);
	for (uint32_t i = 0; i < nimp && !b.err; i++)
		(void)make_import(w, &b, isrc[i]);
	for (uint32_t i = 0; i < nexp && !b.err; i++)
		(void)make_export(w, &b, edst[i]);
	e = b.err;
	if (!e && b.ntx + b.natx > 0)
		e = finish_block(w, &b);
	sl_arena_release(&b.a);
	return e;
}

sl_err dn_c_step(dn_world *w, uint64_t until, uint32_t ntxs)
{
	struct dn_cstate *st = w->c;
	if (!ntxs)
		return SL_OK;
	uint64_t from = w->chain[DN_C].last_time;
	if (until < from)
		until = from;
	uint64_t span = until - from;
	uint32_t per = (uint32_t)dn_rng_range(&st->rng, 2, 7); /* txs per block, on average */
	uint32_t nblocks = (ntxs + per - 1) / per;
	if (span && nblocks > span)
		nblocks = (uint32_t)span; /* at least a second apart */
	for (uint32_t i = 0; i < nblocks; i++) {
		uint32_t k = (uint32_t)((uint64_t)ntxs * (i + 1) / nblocks - (uint64_t)ntxs * i / nblocks);
		uint64_t gap = span / nblocks;
		uint64_t t = from + span * (i + 1) / nblocks;
		if (gap >= 4)
			t -= dn_rng_below(&st->rng, gap / 2);
		if (t < w->chain[DN_C].last_time)
			t = w->chain[DN_C].last_time;
		sl_err e = build_block(w, t, k);
		if (e)
			return e;
		if (w->sink_err)
			return w->sink_err;
	}
	return SL_OK;
}

/* ---- snapshot ---- */

void dn_c_save(const dn_world *w, sl_buf *b)
{
	const struct dn_cstate *st = w->c;
	dn_snap_one(b, st);
	dn_snap_arr(b, st->acct, st->nacct, sizeof *st->acct);
	dn_snap_arr(b, st->genesis, st->nacct, sizeof *st->genesis);
	dn_snap_arr(b, st->by_hkey, st->nacct, sizeof *st->by_hkey);
}

/*
 * The trie's node cache is not saved: the first block after a load rebuilds
 * it whole (cache_ok false), which gives the same root, once.
 */
sl_err dn_c_load(dn_world *w, dn_rd *r)
{
	struct dn_cstate *st = calloc(1, sizeof *st);
	if (!st)
		return SL_ERR_NOMEM;
	dn_rd_one(r, st, sizeof *st);
	/* The pointers just read are the writer's: none may be freed or followed. */
	st->acct = NULL;
	st->genesis = NULL;
	st->by_hkey = st->sacct = st->pre = NULL;
	st->skv = NULL;
	st->cache = NULL;
	memset(&st->trie, 0, sizeof st->trie);
	scratch_init(&st->trie);
	size_t n[3], cap;
	st->acct = dn_rd_arr(r, sizeof *st->acct, &n[0], &cap);
	st->genesis = dn_rd_arr(r, sizeof *st->genesis, &n[1], &cap);
	st->by_hkey = dn_rd_arr(r, sizeof *st->by_hkey, &n[2], &cap);
	if (st->nacct != w->nkeys + 1 || n[0] != st->nacct || n[1] != st->nacct || n[2] != st->nacct)
		r->bad = true;
	if (!r->bad) {
		st->skv = calloc(st->nacct, sizeof *st->skv);
		st->sacct = calloc(st->nacct, sizeof *st->sacct);
		st->pre = calloc(st->nacct + 1, sizeof *st->pre);
		st->cache = calloc((size_t)st->nacct * 3 + 4, sizeof *st->cache);
		if (!st->skv || !st->sacct || !st->pre || !st->cache)
			r->bad = true;
	}
	for (uint32_t i = 0; !r->bad && i < st->nacct; i++) {
		if (st->by_hkey[i] >= st->nacct) {
			r->bad = true;
			break;
		}
		st->acct[i].addr = i < w->nkeys ? w->keys[i].evm : blackhole;
	}
	/* the trie's accounts, in key order, as state_root lists them when the set grows */
	st->nskv = 0;
	for (uint32_t p = 0; !r->bad && p < st->nacct; p++)
		if (st->acct[st->by_hkey[p]].in_trie)
			st->sacct[st->nskv++] = st->by_hkey[p];
	st->cache_ok = false;
	dn_c_free(w);
	w->c = st;
	return r->bad ? SL_ERR_INVALID : SL_OK;
}

/* ---- manifest ---- */

static void jw_u128s(sl_jw *j, u128 v)
{
	char tmp[48];
	size_t n = sizeof tmp;
	tmp[--n] = 0;
	do {
		tmp[--n] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	sl_jw_str(j, tmp + n);
}

static void addr_key(sl_jw *j, const uint8_t a[20])
{
	char k[43] = "0x";
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < 20; i++) {
		k[2 + 2 * i] = hex[a[i] >> 4];
		k[3 + 2 * i] = hex[a[i] & 15];
	}
	k[42] = 0;
	sl_jw_key(j, k);
}

void dn_c_manifest(const dn_world *w, sl_jw *jw)
{
	const struct dn_cstate *st = w->c;
	sl_jw_obj(jw);
	sl_jw_key(jw, "chainId");
	sl_jw_u64(jw, w->params.evm_chain_id);
	if (st) {
		static const char *const what[2] = { "genesis", "balances" };
		for (int g = 0; g < 2; g++) {
			sl_jw_key(jw, what[g]);
			sl_jw_obj(jw);
			for (uint32_t i = 0; i < st->nacct; i++) {
				addr_key(jw, st->acct[i].addr);
				jw_u128s(jw, g ? st->acct[i].balance : st->genesis[i]);
			}
			sl_jw_obj_end(jw);
		}
		sl_jw_key(jw, "nonces");
		sl_jw_obj(jw);
		for (uint32_t i = 0; i < st->nacct; i++) {
			addr_key(jw, st->acct[i].addr);
			sl_jw_u64(jw, st->acct[i].nonce);
		}
		sl_jw_obj_end(jw);
		sl_jw_key(jw, "blocks");
		sl_jw_u64(jw, w->chain[DN_C].blocks);
		sl_jw_key(jw, "evmTxs");
		sl_jw_obj(jw);
		sl_jw_key(jw, "legacy");
		sl_jw_u64(jw, st->n_legacy);
		sl_jw_key(jw, "dynamicFee");
		sl_jw_u64(jw, st->n_dynamic);
		sl_jw_obj_end(jw);
		sl_jw_key(jw, "atomicTxs");
		sl_jw_obj(jw);
		sl_jw_key(jw, "import");
		sl_jw_u64(jw, st->n_import);
		sl_jw_key(jw, "export");
		sl_jw_u64(jw, st->n_export);
		sl_jw_obj_end(jw);
	}
	sl_jw_obj_end(jw);
}
