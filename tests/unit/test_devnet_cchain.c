/*
 * test_devnet_cchain.c — the devnet's C-chain generator.
 *
 * The trie root builder against known roots (Ethereum's "doge" trie and an
 * upstream coreth block's transactionsRoot); then a small history whose
 * every C/block container is unwrapped, decoded, re-encoded byte for byte
 * and replayed here, independently of the generator: senders recover to
 * devnet keys with chain id 43112, nonces run in order, balances cover
 * value + gas, fees go to the blackhole, atomic txs spend each shared UTXO
 * once with the owner's signature and burn exactly the fee, and the
 * replayed state gives the header's stateRoot and the manifest's balances
 * and nonces. The genesis the node is given (sl_devnet_c_genesis_write) is
 * block 1's parent over the genesis state. Same seed, same bytes.
 *
 * The P- and X-chain generators are replaced here by weak stand-ins that
 * only put AVAX into the C-chain's shared memory (so imports happen), so
 * this test does not depend on the other chains' progress.
 */
#include "vec_evm.h"

#include "codec/atomic.h"
#include "codec/coreth.h"
#include "codec/proposervm.h"
#include "codec/rlp.h"
#include "crypto/hash.h"
#include "crypto/secp.h"
#include "devnet/devnet.h"
#include "devnet/world.h"
#include "node/evmrpc.h"

typedef unsigned __int128 u128;

sl_err dn_c_trie_root(const uint8_t *const *keys, const size_t *klens, const uint8_t *const *vals,
		      const size_t *vlens, size_t n, uint8_t out[32]);

/* ---- stand-ins for the P and X generators ---- */

static dn_world *g_world;
static dn_rng g_rng;

/* A few AVAX UTXOs exported to C from `src`, mostly single-owner, some not importable. */
static void standin_export(dn_world *w, int src)
{
	uint64_t n = dn_rng_below(&g_rng, 3);
	for (uint64_t i = 0; i < n; i++) {
		dn_utxo u = { .type_id = 7, .threshold = 1, .nowners = 1 };
		dn_rng_bytes(&g_rng, u.tx_id, 32);
		u.index = (uint32_t)dn_rng_below(&g_rng, 4);
		memcpy(u.asset_id, w->avax, 32);
		u.amount = dn_rng_range(&g_rng, 1, 200) * DN_NANO / 10;
		u.owners[0] = (uint32_t)dn_rng_below(&g_rng, w->nkeys);
		if (dn_rng_chance(&g_rng, 10)) { /* two owners: the C generator leaves these alone */
			u.nowners = 2;
			u.owners[1] = (u.owners[0] + 1) % w->nkeys;
		}
		assert_non_null(dn_utxo_add(&w->shared[DN_C][src], &u));
	}
}

__attribute__((weak)) sl_err dn_p_init(dn_world *w)
{
	g_world = w;
	dn_rng_init(&g_rng, w->seed, "test-standin");
	return SL_OK;
}
__attribute__((weak)) sl_err dn_p_step(dn_world *w, uint64_t until, uint32_t ntxs)
{
	standin_export(w, DN_P);
	return SL_OK;
}
__attribute__((weak)) void dn_p_free(dn_world *w) {}
__attribute__((weak)) void dn_p_manifest(const dn_world *w, sl_jw *jw)
{
	sl_jw_obj(jw);
	sl_jw_obj_end(jw);
}
__attribute__((weak)) sl_err dn_x_init(dn_world *w) { return SL_OK; }
__attribute__((weak)) sl_err dn_x_step(dn_world *w, uint64_t until, uint32_t ntxs)
{
	standin_export(w, DN_X);
	return SL_OK;
}
__attribute__((weak)) void dn_x_free(dn_world *w) {}
__attribute__((weak)) void dn_x_manifest(const dn_world *w, sl_jw *jw)
{
	sl_jw_obj(jw);
	sl_jw_obj_end(jw);
}

/* ---- the trie ---- */

static void test_trie_vectors(void **state)
{
	(void)state;
	uint8_t root[32];
	assert_int_equal(dn_c_trie_root(NULL, NULL, NULL, NULL, 0, root), SL_OK);
	vec_assert_hex(root, 32, "56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421");

	/* Ethereum's trie test "puppy": keys that are prefixes of others put values in branches */
	const char *k[] = { "do", "dog", "doge", "horse" }, *v[] = { "verb", "puppy", "coin", "stallion" };
	const uint8_t *kp[4], *vp[4];
	size_t kl[4], vl[4];
	for (int i = 0; i < 4; i++) {
		kp[i] = (const uint8_t *)k[3 - i]; /* any order */
		kl[i] = strlen(k[3 - i]);
		vp[i] = (const uint8_t *)v[3 - i];
		vl[i] = strlen(v[3 - i]);
	}
	assert_int_equal(dn_c_trie_root(kp, kl, vp, vl, 4, root), SL_OK);
	vec_assert_hex(root, 32, "5991bb8c6514148a29db676a14ac506cd2cd5775ace63c30a4fe457715e9ac84");

	/* a single short pair: the root node is under 32 bytes but the root is still its hash */
	kp[0] = (const uint8_t *)"\x80";
	kl[0] = 1;
	assert_int_equal(dn_c_trie_root(kp, kl, vp, vl, 1, root), SL_OK);
	/* [hp(nibbles 8 0, leaf) = 20 80, "stallion"], 13 bytes, built by hand */
	static const uint8_t node[13] = {
		0xcc, 0x82, 0x20, 0x80, 0x88, 's', 't', 'a', 'l', 'l', 'i', 'o', 'n'
	};
	uint8_t want[32];
	assert_int_equal(vl[0], 8);
	sl_keccak256(node, sizeof node, want);
	assert_memory_equal(root, want, 32);
}

/* rlp(i) as the tx trie's key */
static size_t index_key(uint32_t i, uint8_t out[8])
{
	sl_buf b;
	sl_buf_init(&b, 16);
	sl_rlp_put_u64(&b, i);
	size_t n = b.len;
	memcpy(out, b.p, n);
	sl_buf_release(&b);
	return n;
}

/* transactionsRoot of a decoded block, from its txs' canonical bytes */
static void block_tx_root(const sl_coreth_block *b, uint8_t out[32])
{
	uint32_t n = b->ntx;
	const uint8_t **kp = calloc(n + 1, sizeof *kp), **vp = calloc(n + 1, sizeof *vp);
	size_t *kl = calloc(n + 1, sizeof *kl), *vl = calloc(n + 1, sizeof *vl);
	uint8_t *keys = calloc(n + 1, 8);
	for (uint32_t i = 0; i < n; i++) {
		kl[i] = index_key(i, keys + 8 * i);
		kp[i] = keys + 8 * i;
		vp[i] = b->txs[i].raw.p;
		vl[i] = b->txs[i].raw.len;
	}
	assert_int_equal(dn_c_trie_root(kp, kl, vp, vl, n, out), SL_OK);
	free(kp);
	free(vp);
	free(kl);
	free(vl);
	free(keys);
}

static void test_trie_upstream_block(void **state)
{
	(void)state;
	json_t *root = vec_load("cchain-blocks.json");
	json_t *v = json_array_get(json_object_get(root, "vectors"), 0);
	size_t n;
	uint8_t *p = vec_unhex(vec_str(v, "hex"), &n);
	sl_arena a;
	sl_arena_init(&a, 1u << 20);
	sl_coreth_block b;
	assert_int_equal(sl_coreth_block_decode(p, n, &a, &b, NULL), SL_OK);
	assert_int_equal(b.ntx, 1);
	uint8_t r[32];
	block_tx_root(&b, r);
	assert_memory_equal(r, b.header.f[SL_CH_TX_ROOT].p, 32);

	/* its receiptsRoot is that of one successful 21000-gas receipt: [01, 21000, bloom 0, []] */
	static const uint8_t zero_bloom[256];
	sl_buf rc;
	sl_buf_init(&rc, 1024);
	size_t st = sl_rlp_list_begin(&rc);
	sl_buf_addc(&rc, 0x01);
	sl_rlp_put_u64(&rc, 21000);
	sl_rlp_put_str(&rc, zero_bloom, 256);
	sl_buf_addc(&rc, (char)0xc0);
	sl_rlp_list_end(&rc, st);
	const uint8_t *kp[1] = { (const uint8_t *)"\x80" }, *vp[1] = { rc.p };
	size_t kl[1] = { 1 }, vl[1] = { rc.len };
	assert_int_equal(dn_c_trie_root(kp, kl, vp, vl, 1, r), SL_OK);
	assert_memory_equal(r, b.header.f[SL_CH_RECEIPT_ROOT].p, 32);
	sl_buf_release(&rc);
	sl_arena_release(&a);
	free(p);
	json_decref(root);
}

/* ---- the generated history ---- */

typedef struct container {
	sl_ikind kind;
	uint8_t id[32];
	int64_t ts;
	uint8_t *p;
	size_t n;
} container;

typedef struct sink {
	container *v;
	size_t n, cap;
	uint8_t digest[32]; /* sha256 chain over every container */
} sink;

static sl_err collect(void *ctx, sl_ikind kind, const uint8_t id[32], int64_t ts, const uint8_t *p, size_t n)
{
	sink *s = ctx;
	uint8_t buf[64 + 8];
	memcpy(buf, s->digest, 32);
	sl_sha256(p, n, buf + 32);
	sl_put_be64(buf + 64, (uint64_t)ts);
	sl_sha256(buf, sizeof buf, s->digest);
	if (kind != SL_IDX_C_BLOCK)
		return SL_OK;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->v = realloc(s->v, s->cap * sizeof *s->v);
		assert_non_null(s->v);
	}
	container *c = &s->v[s->n++];
	c->kind = kind;
	memcpy(c->id, id, 32);
	c->ts = ts;
	c->p = malloc(n);
	assert_non_null(c->p);
	memcpy(c->p, p, n);
	c->n = n;
	return SL_OK;
}

static void sink_release(sink *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].p);
	free(s->v);
}

typedef struct acct {
	const uint8_t *addr;
	u128 bal;
	uint64_t nonce;
} acct;

typedef struct replay {
	const dn_world *w;
	acct *a;
	uint32_t n; /* keys, then the blackhole */
	uint64_t legacy, dynamic, imports, exports, blocks;
	uint64_t single_layout, multi_batches; /* blocks with pre-AP5 extData; batches of 2+ */
	uint8_t (*spent)[36];
	size_t nspent, capspent;
} replay;

static const uint8_t blackhole[20] = { 0x01 };

static acct *find(replay *r, const uint8_t *addr)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (!memcmp(r->a[i].addr, addr, 20))
			return &r->a[i];
	fail_msg("address not of the devnet");
	return NULL;
}

static u128 span_u128(sl_span s)
{
	assert_true(s.len <= 16);
	u128 v = 0;
	for (size_t i = 0; i < s.len; i++)
		v = v << 8 | s.p[i];
	return v;
}

static u128 parse_u128(const char *s)
{
	u128 v = 0;
	for (; *s; s++) {
		assert_true(*s >= '0' && *s <= '9');
		v = v * 10 + (unsigned)(*s - '0');
	}
	return v;
}

static void addr_hex(const uint8_t a[20], char out[43])
{
	out[0] = '0';
	out[1] = 'x';
	for (int i = 0; i < 20; i++)
		snprintf(out + 2 + 2 * i, 3, "%02x", a[i]);
}

/* The state root of the replayed accounts, built here with this test's own account encoding. */
static void replay_state_root(replay *r, uint8_t out[32])
{
	static const uint8_t code[32] = { 0xc5, 0xd2, 0x46, 0x01, 0x86, 0xf7, 0x23, 0x3c, 0x92, 0x7e, 0x7d,
					  0xb2, 0xdc, 0xc7, 0x03, 0xc0, 0xe5, 0x00, 0xb6, 0x53, 0xca, 0x82,
					  0x27, 0x3b, 0x7b, 0xfa, 0xd8, 0x04, 0x5d, 0x85, 0xa4, 0x70 };
	uint8_t empty[32];
	assert_int_equal(dn_c_trie_root(NULL, NULL, NULL, NULL, 0, empty), SL_OK);
	const uint8_t **kp = calloc(r->n, sizeof *kp), **vp = calloc(r->n, sizeof *vp);
	size_t *kl = calloc(r->n, sizeof *kl), *vl = calloc(r->n, sizeof *vl);
	uint8_t(*keys)[32] = calloc(r->n, 32);
	uint8_t(*vals)[128] = calloc(r->n, 128);
	size_t m = 0;
	for (uint32_t i = 0; i < r->n; i++) {
		if (!r->a[i].bal && !r->a[i].nonce)
			continue;
		sl_keccak256(r->a[i].addr, 20, keys[m]);
		uint8_t be[16];
		for (int j = 0; j < 16; j++)
			be[j] = (uint8_t)(r->a[i].bal >> (8 * (15 - j)));
		sl_buf b;
		sl_buf_init(&b, 256);
		size_t st = sl_rlp_list_begin(&b);
		sl_rlp_put_u64(&b, r->a[i].nonce);
		sl_rlp_put_uint(&b, sl_span_of(be, 16));
		sl_rlp_put_str(&b, empty, 32);
		sl_rlp_put_str(&b, code, 32);
		sl_rlp_put_uint(&b, sl_span_of(NULL, 0)); /* isMultiCoin = false */
		sl_rlp_list_end(&b, st);
		assert_int_equal(b.err, SL_OK);
		assert_true(b.len <= 128);
		memcpy(vals[m], b.p, b.len);
		kp[m] = keys[m];
		kl[m] = 32;
		vp[m] = vals[m];
		vl[m] = b.len;
		m++;
		sl_buf_release(&b);
	}
	assert_int_equal(dn_c_trie_root(kp, kl, vp, vl, m, out), SL_OK);
	free(kp);
	free(vp);
	free(kl);
	free(vl);
	free(keys);
	free(vals);
}

static void replay_evm_tx(replay *r, const sl_evm_tx *tx, uint64_t base_fee)
{
	uint64_t cid;
	assert_true(sl_evm_tx_chain_id(tx, &cid));
	assert_int_equal(cid, 43112);
	assert_true(tx->type == 0 || tx->type == 2);
	uint8_t who[20];
	assert_int_equal(sl_evm_tx_sender(tx, who), SL_OK);
	acct *s = find(r, who);
	assert_ptr_not_equal(s->addr, blackhole);
	assert_int_equal(tx->nonce, s->nonce);
	assert_int_equal(tx->gas, 21000);
	assert_int_equal(tx->f[SL_TX_TO].len, 20);
	acct *to = find(r, tx->f[SL_TX_TO].p);
	u128 value = span_u128(tx->f[SL_TX_VALUE]), cap, price;
	if (tx->type == 0) {
		cap = price = span_u128(tx->f[SL_TX_GAS_PRICE]);
		r->legacy++;
	} else {
		u128 tip = span_u128(tx->f[SL_TX_TIP_CAP]);
		cap = span_u128(tx->f[SL_TX_FEE_CAP]);
		price = base_fee + tip < cap ? base_fee + tip : cap;
		r->dynamic++;
	}
	assert_true(price >= base_fee);
	assert_true(s->bal >= value + cap * tx->gas);
	s->bal -= value + price * tx->gas;
	s->nonce++;
	to->bal += value;
	find(r, blackhole)->bal += price * tx->gas;
}

static void mark_spent(replay *r, const uint8_t tx_id[32], uint32_t index)
{
	uint8_t k[36];
	memcpy(k, tx_id, 32);
	sl_put_be32(k + 32, index);
	for (size_t i = 0; i < r->nspent; i++)
		if (!memcmp(r->spent[i], k, 36))
			fail_msg("a shared UTXO imported twice");
	if (r->nspent == r->capspent) {
		r->capspent = r->capspent ? r->capspent * 2 : 64;
		r->spent = realloc(r->spent, r->capspent * 36);
		assert_non_null(r->spent);
	}
	memcpy(r->spent[r->nspent++], k, 36);
}

static int chain_of(const dn_world *w, const uint8_t id[32])
{
	for (int c = 0; c < DN_CHAINS; c++)
		if (!memcmp(w->chain[c].id, id, 32))
			return c;
	fail_msg("unknown chain id");
	return -1;
}

static void replay_atomic(replay *r, const sl_atomic_tx *tx, uint64_t time)
{
	const dn_world *w = r->w;
	const sl_atomic_utx *u = &tx->utx;
	uint64_t fee = w->params.tx_fee;
	assert_int_equal(u->network_id, w->cfg.network_id);
	assert_memory_equal(u->blockchain_id, w->chain[DN_C].id, 32);
	int other = chain_of(w, u->chain);
	assert_true(other == DN_X || other == DN_P);

	/* the signed hash: sha256 of the unsigned tx with its codec version */
	sl_buf m;
	sl_buf_init(&m, 1u << 20);
	sl_buf_add(&m, "\0\0", 2);
	sl_buf_add(&m, tx->unsigned_bytes.p, tx->unsigned_bytes.len);
	uint8_t h[32];
	sl_sha256(m.p, m.len, h);
	sl_buf_release(&m);

	if (u->type_id == SL_ATOMIC_IMPORT_TX) {
		assert_int_equal(tx->ncreds, u->nimported);
		uint64_t in = 0, out = 0;
		for (uint32_t i = 0; i < u->nimported; i++) {
			const sl_avax_in *x = &u->imported[i];
			if (i) { /* sorted by (txID, index) */
				const sl_avax_in *p = &u->imported[i - 1];
				int c = memcmp(p->tx_id, x->tx_id, 32);
				assert_true(c < 0 || (c == 0 && p->output_index < x->output_index));
			}
			dn_utxo *su =
				dn_utxo_find((dn_utxos *)&w->shared[DN_C][other], x->tx_id, x->output_index);
			assert_non_null(su);
			assert_true(su->spent);
			assert_true(su->avail < time); /* exported by a container of an earlier second */
			assert_int_equal(su->nowners, 1);
			assert_int_equal(x->in.amount, su->amount);
			assert_memory_equal(x->asset_id, w->avax, 32);
			mark_spent(r, x->tx_id, x->output_index);
			assert_int_equal(tx->creds[i].nsigs, 1);
			assert_int_equal(x->in.sig.n, 1);
			uint8_t who[20];
			assert_true(sl_secp_recover_short_id(h, tx->creds[i].sigs, who));
			assert_memory_equal(who, w->keys[su->owners[0]].addr, 20);
			in += x->in.amount;
		}
		for (uint32_t i = 0; i < u->nevm_outs; i++) {
			find(r, u->evm_outs[i].address)->bal += (u128)u->evm_outs[i].amount * 1000000000u;
			out += u->evm_outs[i].amount;
		}
		assert_int_equal(in, out + fee);
		r->imports++;
	} else {
		assert_int_equal(tx->ncreds, u->nevm_ins);
		uint64_t in = 0, out = 0;
		for (uint32_t i = 0; i < u->nevm_ins; i++) {
			const sl_evm_input *x = &u->evm_ins[i];
			acct *s = find(r, x->address);
			assert_int_equal(x->nonce, s->nonce);
			u128 wei = (u128)x->amount * 1000000000u;
			assert_true(s->bal >= wei);
			s->bal -= wei;
			s->nonce++;
			uint8_t who[20];
			assert_true(sl_secp_recover_address(h, tx->creds[i].sigs, who));
			assert_memory_equal(who, x->address, 20);
			in += x->amount;
		}
		for (uint32_t i = 0; i < u->nexported; i++) {
			const sl_avax_out *o = &u->exported[i];
			dn_utxo *su = dn_utxo_find((dn_utxos *)&w->shared[other][DN_C], tx->id, i);
			assert_non_null(su);
			assert_int_equal(su->amount, o->out.amount);
			assert_int_equal(su->avail, time); /* accepted with this block */
			assert_int_equal(o->out.owners.naddrs, 1);
			assert_memory_equal(o->out.owners.addrs, w->keys[su->owners[0]].addr, 20);
			out += o->out.amount;
		}
		assert_int_equal(in, out + fee);
		r->exports++;
	}
}

/* Check one C/block container and apply it to the replayed state. */
static void replay_block(replay *r, const container *c, uint8_t parent[32], uint64_t *height,
			 uint8_t outer_parent[32], uint64_t *last_time)
{
	sl_arena a;
	sl_arena_init(&a, 16u << 20);
	sl_span inner;
	const sl_proposervm_block *outer;
	assert_true(sl_proposervm_unwrap(c->p, c->n, &a, &inner, &outer));
	assert_non_null(outer);
	assert_memory_equal(outer->id, c->id, 32);
	assert_memory_equal(outer->parent_id.p, outer_parent, 32);
	memcpy(outer_parent, outer->id, 32);

	sl_coreth_block b;
	sl_err_detail d;
	assert_int_equal(sl_coreth_block_decode(inner.p, inner.len, &a, &b, &d), SL_OK);
	sl_buf re;
	sl_buf_init(&re, 8u << 20);
	assert_int_equal(sl_coreth_block_encode(&b, &re), SL_OK);
	assert_int_equal(re.len, inner.len);
	assert_memory_equal(re.p, inner.p, inner.len);
	sl_buf_release(&re);

	const sl_coreth_header *h = &b.header;
	assert_int_equal(h->nfields, 19);
	assert_int_equal(h->number, *height + 1);
	if (*height)
		assert_memory_equal(h->f[SL_CH_PARENT_HASH].p, parent, 32);
	assert_true(h->time >= *last_time);
	assert_int_equal((uint64_t)outer->timestamp, h->time);
	assert_memory_equal(h->f[SL_CH_COINBASE].p, blackhole, 20);
	assert_int_equal(h->gas_limit, h->time >= r->w->params.cortina_time ? 15000000 : 8000000);
	uint64_t base_fee, gas = 0;
	assert_true(sl_coreth_header_u64(h, SL_CH_BASE_FEE, &base_fee));
	assert_true(base_fee >= 25000000000ull);
	uint8_t root[32];
	block_tx_root(&b, root);
	assert_memory_equal(root, h->f[SL_CH_TX_ROOT].p, 32);
	sl_coreth_ext_data_hash(b.ext_data, root);
	assert_memory_equal(root, h->f[SL_CH_EXT_DATA_HASH].p, 32);

	for (uint32_t i = 0; i < b.ntx; i++) {
		replay_evm_tx(r, &b.txs[i], base_fee);
		gas += b.txs[i].gas;
	}
	assert_int_equal(h->gas_used, gas);
	if (b.ext_data.len) {
		bool batched = h->time >= r->w->params.ap5_time;
		sl_atomic_txs txs;
		assert_int_equal(
			sl_atomic_extdata_decode(&a, b.ext_data.p, b.ext_data.len, batched, &txs, &d), SL_OK);
		assert_true(txs.ntxs >= 1);
		if (!batched)
			assert_int_equal(txs.ntxs, 1);
		r->single_layout += !batched;
		r->multi_batches += batched && txs.ntxs > 1;
		for (uint32_t i = 0; i < txs.ntxs; i++)
			replay_atomic(r, &txs.txs[i], h->time);
		uint64_t ext_gas;
		assert_true(sl_coreth_header_u64(h, SL_CH_EXT_DATA_GAS_USED, &ext_gas));
		assert_true(ext_gas > 0);
	}
	replay_state_root(r, root);
	assert_memory_equal(root, h->f[SL_CH_STATE_ROOT].p, 32);

	memcpy(parent, h->hash, 32);
	*height = h->number;
	*last_time = h->time;
	r->blocks++;
	sl_arena_release(&a);
}

static sl_devnet *make(const char *seed, uint64_t txs)
{
	sl_devnet_config cfg = { .seed = seed, .txs = txs, .accounts = 16, .validators = 5 };
	char err[256];
	g_world = NULL;
	sl_devnet *d = sl_devnet_new(&cfg, err);
	if (!d)
		fail_msg("devnet: %s", err);
	return d;
}

static void test_history(void **state)
{
	(void)state;
	sl_devnet *d = make("cchain-test", 2000);
	/*
	 * The stand-in P generator hands us the world. Should the real pchain.o be
	 * linked instead (its strong symbols win), fall back on sl_devnet's layout:
	 * its dn_world is its first member (devnet.c).
	 */
	const dn_world *w = g_world ? g_world : (const dn_world *)(const void *)d;
	sink s = { 0 };
	assert_int_equal(sl_devnet_history(d, collect, &s), SL_OK);
	assert_int_equal(sl_devnet_step(d, 30, collect, &s), SL_OK);
	assert_true(s.n > 50);

	sl_buf mb;
	sl_buf_init(&mb, 64u << 20);
	sl_devnet_manifest_write(d, &mb);
	json_t *man = vec_json_of(&mb);
	json_t *cm = json_object_get(man, "C");
	assert_int_equal(json_integer_value(json_object_get(cm, "chainId")), 43112);

	replay r = { .w = w, .n = w->nkeys + 1 };
	r.a = calloc(r.n, sizeof *r.a);
	assert_non_null(r.a);
	for (uint32_t i = 0; i < r.n; i++) {
		r.a[i].addr = i < w->nkeys ? w->keys[i].evm : blackhole;
		char hx[43];
		addr_hex(r.a[i].addr, hx);
		json_t *g = json_object_get(json_object_get(cm, "genesis"), hx);
		assert_non_null(g);
		r.a[i].bal = parse_u128(json_string_value(g));
	}
	assert_true(r.a[0].bal > 0);

	uint8_t parent[32] = { 0 }, outer_parent[32];
	uint64_t height = 0, last_time = 0;
	/* the first proposervm block's parent is the coreth genesis hash, which is block 1's parent */
	{
		sl_arena a;
		sl_arena_init(&a, 1u << 20);
		sl_span inner;
		assert_true(sl_proposervm_unwrap(s.v[0].p, s.v[0].n, &a, &inner, NULL));
		sl_coreth_block b;
		assert_int_equal(sl_coreth_block_decode(inner.p, inner.len, &a, &b, NULL), SL_OK);
		memcpy(outer_parent, b.header.f[SL_CH_PARENT_HASH].p, 32);
		sl_arena_release(&a);
	}
	/* the genesis the node is given (node/evmrpc.h): block 1's parent, over the genesis state */
	{
		sl_buf gb;
		sl_buf_init(&gb, 1u << 20);
		assert_int_equal(sl_devnet_c_genesis_write(d, &gb), SL_OK);
		sl_evm_genesis g;
		assert_true(sl_evm_genesis_parse(gb.p, gb.len, &g));
		assert_int_equal(g.chain_id, 43112);
		assert_int_equal(g.ap5_time, w->params.ap5_time);
		sl_coreth_header h;
		assert_int_equal(sl_coreth_header_decode(g.header.p, g.header.len, &h, NULL), SL_OK);
		assert_int_equal(h.number, 0);
		assert_memory_equal(h.hash, outer_parent, 32);
		uint8_t root[32];
		replay_state_root(&r, root);
		assert_memory_equal(h.f[SL_CH_STATE_ROOT].p, root, 32);
		uint32_t funded = 0;
		for (uint32_t i = 0; i < r.n; i++)
			funded += r.a[i].bal != 0;
		assert_int_equal(g.nalloc, funded);
		for (uint32_t k = 0; k < g.nalloc; k++) {
			const uint8_t *rec = g.alloc + (size_t)k * SL_EVM_ALLOC_RECORD;
			uint32_t i = 0;
			while (i < r.n && memcmp(r.a[i].addr, rec, 20))
				i++;
			assert_true(i < r.n);
			u128 bal = 0;
			for (int j = 16; j < 32; j++)
				bal = bal << 8 | rec[20 + j];
			assert_true(bal == r.a[i].bal);
			assert_true(!memcmp(rec + 20, (const uint8_t[16]){ 0 }, 16) &&
				    !memcmp(rec + 52, (const uint8_t[8]){ 0 }, 8));
		}
		assert_false(sl_evm_genesis_parse(gb.p, gb.len - 1, &g));
		sl_buf_release(&gb);
	}
	for (size_t i = 0; i < s.n; i++)
		replay_block(&r, &s.v[i], parent, &height, outer_parent, &last_time);

	/* the manifest agrees with the replay */
	for (uint32_t i = 0; i < r.n; i++) {
		char hx[43];
		addr_hex(r.a[i].addr, hx);
		json_t *b = json_object_get(json_object_get(cm, "balances"), hx);
		assert_non_null(b);
		assert_true(parse_u128(json_string_value(b)) == r.a[i].bal);
		assert_int_equal(json_integer_value(json_object_get(json_object_get(cm, "nonces"), hx)),
				 r.a[i].nonce);
	}
	json_t *evm = json_object_get(cm, "evmTxs"), *at = json_object_get(cm, "atomicTxs");
	assert_int_equal(json_integer_value(json_object_get(evm, "legacy")), r.legacy);
	assert_int_equal(json_integer_value(json_object_get(evm, "dynamicFee")), r.dynamic);
	assert_int_equal(json_integer_value(json_object_get(at, "import")), r.imports);
	assert_int_equal(json_integer_value(json_object_get(at, "export")), r.exports);
	assert_int_equal(json_integer_value(json_object_get(cm, "blocks")), r.blocks);
	assert_int_equal(w->chain[DN_C].height, height);
	assert_memory_equal(w->chain[DN_C].last_inner, parent, 32);

	/* proportions: devnet.c gives C about 35% of the txs (40% at 10 txs a step), every kind present */
	uint64_t total = r.legacy + r.dynamic + r.imports + r.exports;
	print_message("C: %llu blocks, %llu legacy, %llu dynamic, %llu imports, %llu exports\n",
		      (unsigned long long)r.blocks, (unsigned long long)r.legacy,
		      (unsigned long long)r.dynamic, (unsigned long long)r.imports,
		      (unsigned long long)r.exports);
	assert_true(total > 600 && total <= 810);
	assert_true(r.legacy > 50 && r.dynamic > 100 && r.imports > 10 && r.exports > 10);
	assert_true(r.blocks < total / 2 + 10);
	assert_true(r.single_layout > 0 && r.multi_batches > 0);

	json_decref(man);
	sl_buf_release(&mb);
	free(r.a);
	free(r.spent);
	sink_release(&s);
	sl_devnet_free(d);
}

static void test_deterministic(void **state)
{
	(void)state;
	uint8_t dg[2][32];
	for (int run = 0; run < 2; run++) {
		sl_devnet *d = make("cchain-determinism", 600);
		sink s = { 0 };
		assert_int_equal(sl_devnet_history(d, collect, &s), SL_OK);
		memcpy(dg[run], s.digest, 32);
		sink_release(&s);
		sl_devnet_free(d);
	}
	assert_memory_equal(dg[0], dg[1], 32);
	sl_devnet *d = make("cchain-other-seed", 600);
	sink s = { 0 };
	assert_int_equal(sl_devnet_history(d, collect, &s), SL_OK);
	assert_memory_not_equal(dg[0], s.digest, 32);
	sink_release(&s);
	sl_devnet_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trie_vectors),
		cmocka_unit_test(test_trie_upstream_block),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
