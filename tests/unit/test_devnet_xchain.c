/*
 * The devnet's X-chain generator, alone: a world is built here (keys, chain
 * ids, shared memory that P and C "exported" to X), the generator runs over
 * a 90-day history with Cortina at 20%, and a sink checks every container:
 *   - it decodes with the codec, consumes every byte and re-encodes exactly;
 *   - vertices: parents and txs sorted, txs exactly the X/tx emitted just
 *     before, no tx spending an output of its own vertex; one stop vertex;
 *   - blocks: proposervm-wrapped, parent and height chained from the genesis
 *     block derived from the stop vertex;
 *   - every tx is replayed on an independent ledger: inputs exist, unspent,
 *     unlocked, sorted; signatures recover to the owners at sigIndices;
 *     credential count and types; AVAX in = out + fee; other assets equal;
 *     outputs, addresses and operations in canonical order; exports land in
 *     the destination's shared memory at index len(outs) + i;
 *   - only secp256k1fx and nftfx appear (no propertyfx type id 15-19, no
 *     initial state of fx 2): avalanchejs 5.2.0 must parse every tx;
 *   - the X-chain list all happens: fungible and NFT CreateAssetTx,
 *     secp and nft MintOperations, nft TransferOperations, multi-signature
 *     owners, locktimes.
 * At the end the replayed ledger must match the manifest, and a second run
 * with the same seed must produce the same bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "codec/proposervm.h"
#include "codec/writer.h"
#include "codec/xchain.h"
#include "crypto/addr.h"
#include "crypto/cb58.h"
#include "crypto/hash.h"
#include "crypto/secp.h"
#include "devnet/world.h"
#include "util/jsonv.h"

#define SPAN (90ull * 24 * 3600)
#define START 1704067200ull
#define MAX_VTX 4096

/* ---------------------------------------------------------------- the replayed ledger */

typedef struct tutxo {
	uint8_t key[36]; /* txID | index */
	uint8_t asset[32];
	uint32_t type;
	uint64_t amount, locktime;
	uint32_t threshold, naddrs;
	uint8_t addrs[4][20];
	bool spent, used;
	int32_t vtx; /* the vertex (1-based) whose tx made it; 0 for genesis and blocks */
} tutxo;

typedef struct ledger {
	tutxo *v;
	size_t cap, n;
} ledger;

static size_t lhash(const uint8_t key[36]) { return (size_t)sl_be64(key) ^ sl_be32(key + 32); }

static tutxo *lfind(ledger *l, const uint8_t *txid, uint32_t idx, bool create)
{
	uint8_t key[36];
	memcpy(key, txid, 32);
	sl_put_be32(key + 32, idx);
	if (create && (l->n + 1) * 2 > l->cap) {
		ledger g = { .cap = l->cap ? l->cap * 2 : 4096 };
		g.v = calloc(g.cap, sizeof *g.v);
		assert_non_null(g.v);
		for (size_t i = 0; i < l->cap; i++) {
			if (!l->v[i].used)
				continue;
			size_t h = lhash(l->v[i].key) & (g.cap - 1);
			while (g.v[h].used)
				h = (h + 1) & (g.cap - 1);
			g.v[h] = l->v[i];
		}
		g.n = l->n;
		free(l->v);
		*l = g;
	}
	if (!l->cap)
		return NULL;
	for (size_t h = lhash(key) & (l->cap - 1);; h = (h + 1) & (l->cap - 1)) {
		if (!l->v[h].used) {
			if (!create)
				return NULL;
			l->v[h] = (tutxo){ .used = true };
			memcpy(l->v[h].key, key, 36);
			l->n++;
			return &l->v[h];
		}
		if (!memcmp(l->v[h].key, key, 36))
			return create ? NULL : &l->v[h]; /* creating an existing id is a bug */
	}
}

static void ladd(ledger *l, const uint8_t *txid, uint32_t idx, const uint8_t *asset, const sl_output *o)
{
	tutxo *u = lfind(l, txid, idx, true);
	assert_non_null(u);
	memcpy(u->asset, asset, 32);
	u->type = o->type_id;
	u->amount = o->amount;
	u->locktime = o->owners.locktime;
	u->threshold = o->owners.threshold;
	assert_true(o->owners.naddrs >= 1 && o->owners.naddrs <= 4);
	assert_true(o->owners.threshold >= 1 && o->owners.threshold <= o->owners.naddrs);
	u->naddrs = o->owners.naddrs;
	memcpy(u->addrs, o->owners.addrs, 20 * (size_t)o->owners.naddrs);
	for (uint32_t i = 1; i < o->owners.naddrs; i++)
		assert_true(memcmp(o->owners.addrs + 20 * (i - 1), o->owners.addrs + 20 * i, 20) < 0);
}

/* ---------------------------------------------------------------- the sink */

typedef struct flow {
	uint8_t asset[32];
	uint64_t in, out;
} flow;

typedef struct ctx {
	dn_world *w;
	ledger L;
	uint8_t (*imported)[36];
	size_t nimported;
	uint8_t (*vtxs)[32]; /* X/tx ids since the last vertex */
	size_t nvtxs, capvtxs;
	uint64_t hash; /* FNV-1a over everything emitted, for determinism */
	uint64_t counts[5], ncont[SL_IDX__COUNT], stops, blocks;
	int64_t last_ts[SL_IDX__COUNT];
	uint8_t last_block[32];
	uint64_t block_height;
	bool linear;
	uint64_t nsigs;
	uint64_t fx_assets[SL_FX__COUNT];	/* CreateAssetTx by the fx of its initial state */
	uint64_t ops[SL_T_PROP_CREDENTIAL + 1]; /* operations by type id */
	uint64_t multisig, locked;		/* outputs with more than one owner, with a locktime */
	/* the DAG: vertex ids and ancestor bitsets */
	uint8_t (*vid)[32];
	uint64_t (*anc)[MAX_VTX / 64];
	uint32_t nv;
} ctx;

static void fnv(uint64_t *h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		*h = (*h ^ b[i]) * 0x100000001b3ull;
}

static void flow_add(flow *f, uint32_t *nf, const uint8_t *asset, uint64_t in, uint64_t out)
{
	for (uint32_t i = 0; i < *nf; i++)
		if (!memcmp(f[i].asset, asset, 32)) {
			f[i].in += in;
			f[i].out += out;
			return;
		}
	assert_true(*nf < 16);
	memcpy(f[*nf].asset, asset, 32);
	f[*nf].in = in;
	f[(*nf)++].out = out;
}

static void check_sigs(ctx *c, const tutxo *u, const sl_sigidx *si, const sl_credential *cred,
		       const uint8_t h[32], uint64_t now)
{
	assert_true(u->locktime <= now);
	assert_int_equal(si->n, u->threshold);
	assert_int_equal(cred->nsigs, si->n);
	for (uint32_t i = 0; i < si->n; i++) {
		uint32_t pos = sl_sigidx_at(si, i);
		assert_true(pos < u->naddrs);
		if (i)
			assert_true(pos > sl_sigidx_at(si, i - 1));
		uint8_t who[20];
		assert_true(sl_secp_recover_short_id(h, cred->sigs + 65 * i, who));
		assert_memory_equal(who, u->addrs[pos], 20);
		c->nsigs++;
	}
}

/* Output bytes with their asset, for the ordering check. */
static void out_bytes(sl_buf *b, const uint8_t *asset, const sl_output *o)
{
	sl_buf_reset(b);
	if (asset)
		sl_wr_fixed(b, asset, 32);
	sl_avax_output_write(b, o);
}

static int cmp_bufs(const sl_buf *a, const sl_buf *b)
{
	int r = memcmp(a->p, b->p, SL_MIN(a->len, b->len));
	return r ? r : (a->len > b->len) - (a->len < b->len);
}

static void check_sorted_outs(uint32_t n, const sl_avax_out *outs, const sl_output *bare)
{
	sl_buf a, b;
	sl_buf_init(&a, 1u << 20);
	sl_buf_init(&b, 1u << 20);
	for (uint32_t i = 1; i < n; i++) {
		if (outs) {
			out_bytes(&a, outs[i - 1].asset_id, &outs[i - 1].out);
			out_bytes(&b, outs[i].asset_id, &outs[i].out);
		} else {
			out_bytes(&a, NULL, &bare[i - 1]);
			out_bytes(&b, NULL, &bare[i]);
		}
		assert_true(cmp_bufs(&a, &b) <= 0);
	}
	sl_buf_release(&a);
	sl_buf_release(&b);
}

static void check_sorted_ins(uint32_t n, const sl_avax_in *ins)
{
	for (uint32_t i = 1; i < n; i++) {
		int r = memcmp(ins[i - 1].tx_id, ins[i].tx_id, 32);
		assert_true(r < 0 || (r == 0 && ins[i - 1].output_index < ins[i].output_index));
	}
}

static const dn_utxo *shared_find(const dn_utxos *s, const uint8_t *txid, uint32_t idx)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].index == idx && !memcmp(s->v[i].tx_id, txid, 32))
			return &s->v[i];
	return NULL;
}

static void tutxo_of_dn(const dn_world *w, const dn_utxo *d, tutxo *u)
{
	*u = (tutxo){ .type = d->type_id,
		      .amount = d->amount,
		      .locktime = d->locktime,
		      .threshold = d->threshold,
		      .naddrs = d->nowners };
	memcpy(u->asset, d->asset_id, 32);
	for (uint32_t i = 0; i < d->nowners; i++)
		memcpy(u->addrs[i], w->keys[d->owners[i]].addr, 20);
}

static uint32_t op_utxo_type(uint32_t op)
{
	switch (op) {
	case SL_T_SECP_MINT_OPERATION: return SL_T_SECP_MINT_OUTPUT;
	case SL_T_NFT_MINT_OPERATION: return SL_T_NFT_MINT_OUTPUT;
	case SL_T_NFT_TRANSFER_OPERATION: return SL_T_NFT_TRANSFER_OUTPUT;
	default: fail_msg("operation type %u: the devnet makes only secp and nft operations", op);
	}
	return 0;
}

/* avalanchejs 5.2.0 has no propertyfx: no type id of it may appear anywhere. */
static void check_not_property(uint32_t type)
{
	if (type >= SL_T_PROP_MINT_OUTPUT && type <= SL_T_PROP_CREDENTIAL)
		fail_msg("propertyfx type id %u in a devnet tx", type);
}

static void count_owners(ctx *c, const sl_owners *o)
{
	c->multisig += o->naddrs > 1;
	c->locked += o->locktime > 0;
}

static sl_output owned(uint32_t type, const sl_owners *o, uint64_t amount, uint32_t group, sl_span payload)
{
	return (sl_output){ .type_id = type,
			    .fx_type_id = type,
			    .amount = amount,
			    .group_id = group,
			    .payload = payload,
			    .owners = *o };
}

/* Replay one accepted tx on the ledger, checking every rule. */
static void replay(ctx *c, const sl_xchain_tx *tx, int64_t ts)
{
	dn_world *w = c->w;
	const sl_xchain_utx *u = &tx->utx;
	uint64_t now = (uint64_t)(ts / 1000000000);
	uint8_t h[32];
	{
		sl_buf ub;
		sl_buf_init(&ub, 4u << 20);
		sl_wr_u16(&ub, 0);
		sl_buf_add(&ub, tx->unsigned_bytes.p, tx->unsigned_bytes.len);
		sl_sha256(ub.p, ub.len, h);
		sl_buf_release(&ub);
	}
	assert_int_equal(u->base.network_id, w->cfg.network_id);
	assert_memory_equal(u->base.blockchain_id, w->chain[DN_X].id, 32);
	assert_int_equal(tx->ncreds, u->base.nins + u->nimported + u->nops);
	check_sorted_ins(u->base.nins, u->base.ins);
	check_sorted_ins(u->nimported, u->imported);
	check_sorted_outs(u->base.nouts, u->base.outs, NULL);
	for (uint32_t i = 0; i < tx->ncreds; i++)
		check_not_property(tx->creds[i].type_id);
	flow f[16];
	uint32_t nf = 0;
	uint32_t ci = 0;
	for (uint32_t i = 0; i < u->base.nins; i++, ci++) {
		const sl_avax_in *in = &u->base.ins[i];
		tutxo *t = lfind(&c->L, in->tx_id, in->output_index, false);
		assert_non_null(t);
		assert_false(t->spent);
		assert_int_equal(t->type, SL_T_SECP_TRANSFER_OUTPUT);
		assert_memory_equal(t->asset, in->asset_id, 32);
		assert_int_equal(t->amount, in->in.amount);
		assert_int_equal(tx->creds[ci].type_id, SL_T_SECP_CREDENTIAL);
		check_sigs(c, t, &in->in.sig, &tx->creds[ci], h, now);
		t->spent = true;
		flow_add(f, &nf, in->asset_id, in->in.amount, 0);
	}
	for (uint32_t i = 0; i < u->nimported; i++, ci++) {
		const sl_avax_in *in = &u->imported[i];
		int src = !memcmp(u->chain, w->chain[DN_P].id, 32) ? DN_P : DN_C;
		assert_memory_equal(u->chain, w->chain[src].id, 32);
		const dn_utxo *d = shared_find(&w->shared[DN_X][src], in->tx_id, in->output_index);
		assert_non_null(d);
		assert_true(d->avail < now); /* exported by a container of an earlier second */
		for (size_t j = 0; j < c->nimported; j++)
			assert_false(!memcmp(c->imported[j], in->tx_id, 32) &&
				     sl_be32(c->imported[j] + 32) == in->output_index);
		c->imported = realloc(c->imported, (c->nimported + 1) * sizeof *c->imported);
		memcpy(c->imported[c->nimported], in->tx_id, 32);
		sl_put_be32(c->imported[c->nimported++] + 32, in->output_index);
		tutxo t;
		tutxo_of_dn(w, d, &t);
		assert_int_equal(t.amount, in->in.amount);
		check_sigs(c, &t, &in->in.sig, &tx->creds[ci], h, now);
		flow_add(f, &nf, in->asset_id, in->in.amount, 0);
	}
	uint32_t idx = 0;
	for (uint32_t i = 0; i < u->base.nouts; i++) {
		const sl_avax_out *o = &u->base.outs[i];
		assert_true(o->out.amount > 0);
		assert_int_equal(o->out.type_id, SL_T_SECP_TRANSFER_OUTPUT);
		count_owners(c, &o->out.owners);
		ladd(&c->L, tx->id, idx++, o->asset_id, &o->out);
		flow_add(f, &nf, o->asset_id, 0, o->out.amount);
	}
	switch (u->type_id) {
	case SL_X_CREATE_ASSET_TX:
		assert_true(u->name.len >= 1 && u->name.len <= 128);
		assert_true(u->symbol.len >= 1 && u->symbol.len <= 4);
		for (size_t i = 0; i < u->symbol.len; i++)
			assert_true(u->symbol.p[i] >= 'A' && u->symbol.p[i] <= 'Z');
		assert_int_equal(u->nstates, 1);
		for (uint32_t s = 0; s < u->nstates; s++) {
			uint32_t fx = u->states[s].fx_index;
			assert_true(fx == SL_FX_SECP256K1 || fx == SL_FX_NFT);
			c->fx_assets[fx]++;
			check_sorted_outs(u->states[s].nouts, NULL, u->states[s].outs);
			for (uint32_t j = 0; j < u->states[s].nouts; j++) {
				const sl_output *o = &u->states[s].outs[j];
				check_not_property(o->type_id);
				if (fx == SL_FX_NFT)
					assert_int_equal(o->type_id, SL_T_NFT_MINT_OUTPUT);
				else
					assert_true(o->type_id == SL_T_SECP_TRANSFER_OUTPUT ||
						    o->type_id == SL_T_SECP_MINT_OUTPUT);
				count_owners(c, &o->owners);
				ladd(&c->L, tx->id, idx++, tx->id, o);
			}
		}
		break;
	case SL_X_OPERATION_TX: {
		assert_true(u->nops >= 1);
		sl_buf prev, cur;
		sl_buf_init(&prev, 1u << 20);
		sl_buf_init(&cur, 1u << 20);
		static const uint8_t zero[32];
		for (uint32_t i = 0; i < u->nops; i++, ci++) {
			const sl_xchain_op *op = &u->ops[i];
			sl_xchain_utx one = { .type_id = SL_X_OPERATION_TX,
					      .base = { .blockchain_id = zero },
					      .nops = 1,
					      .ops = (sl_xchain_op *)op };
			sl_buf_reset(&cur);
			sl_xchain_utx_write(&cur, &one);
			if (i)
				assert_true(cmp_bufs(&prev, &cur) < 0);
			sl_buf_reset(&prev);
			sl_buf_add(&prev, cur.p, cur.len);
			assert_int_equal(op->nutxos, 1);
			tutxo *t = lfind(&c->L, op->utxos, sl_be32(op->utxos + 32), false);
			assert_non_null(t);
			assert_false(t->spent);
			assert_memory_equal(t->asset, op->asset_id, 32);
			const sl_xchain_fx_op *fo = &op->op;
			check_not_property(fo->type_id);
			assert_int_equal(t->type, op_utxo_type(fo->type_id)); /* fails on any other op type */
			c->ops[fo->type_id]++;
			uint32_t want_cred = sl_avax_x_fx_of(fo->type_id) == SL_FX_NFT ? SL_T_NFT_CREDENTIAL
										       : SL_T_SECP_CREDENTIAL;
			assert_int_equal(tx->creds[ci].type_id, want_cred);
			check_sigs(c, t, &fo->input, &tx->creds[ci], h, now);
			t->spent = true;
			sl_span none = { 0 };
			sl_output o;
			switch (fo->type_id) {
			case SL_T_SECP_MINT_OPERATION:
				o = owned(SL_T_SECP_MINT_OUTPUT, &fo->owners1, 0, 0, none);
				ladd(&c->L, tx->id, idx++, op->asset_id, &o);
				o = owned(SL_T_SECP_TRANSFER_OUTPUT, &fo->owners2, fo->amount, 0, none);
				ladd(&c->L, tx->id, idx++, op->asset_id, &o);
				break;
			case SL_T_NFT_MINT_OPERATION:
				assert_true(fo->nowners >= 1);
				for (uint32_t j = 0; j < fo->nowners; j++) {
					o = owned(SL_T_NFT_TRANSFER_OUTPUT, &fo->owners[j], 0, fo->group_id,
						  fo->payload);
					ladd(&c->L, tx->id, idx++, op->asset_id, &o);
				}
				break;
			case SL_T_NFT_TRANSFER_OPERATION:
				o = owned(SL_T_NFT_TRANSFER_OUTPUT, &fo->owners1, 0, fo->group_id,
					  fo->payload);
				ladd(&c->L, tx->id, idx++, op->asset_id, &o);
				break;
			default: fail_msg("operation type %u", fo->type_id);
			}
		}
		sl_buf_release(&prev);
		sl_buf_release(&cur);
		break;
	}
	case SL_X_EXPORT_TX: {
		assert_true(u->nexported >= 1);
		check_sorted_outs(u->nexported, u->exported, NULL);
		int dst = !memcmp(u->chain, w->chain[DN_P].id, 32) ? DN_P : DN_C;
		assert_memory_equal(u->chain, w->chain[dst].id, 32);
		for (uint32_t i = 0; i < u->nexported; i++) {
			const sl_avax_out *o = &u->exported[i];
			assert_int_equal(o->out.type_id, SL_T_SECP_TRANSFER_OUTPUT);
			const dn_utxo *d = shared_find(&w->shared[dst][DN_X], tx->id, u->base.nouts + i);
			assert_non_null(d);
			assert_int_equal(d->amount, o->out.amount);
			assert_int_equal(d->avail, now); /* available from its container's acceptance on */
			flow_add(f, &nf, o->asset_id, 0, o->out.amount);
		}
		break;
	}
	default: break;
	}
	/* AVAX pays exactly the fee; every other asset balances. */
	uint64_t fee = dn_fee(w, DN_X, u->type_id);
	bool avax_seen = false;
	for (uint32_t i = 0; i < nf; i++) {
		if (!memcmp(f[i].asset, w->avax, 32)) {
			avax_seen = true;
			assert_int_equal(f[i].in, f[i].out + fee);
		} else {
			assert_int_equal(f[i].in, f[i].out);
		}
	}
	assert_true(avax_seen);
	c->counts[u->type_id]++;
}

static void check_tx_roundtrip(const uint8_t *p, size_t n, sl_xchain_tx *tx, sl_arena *a)
{
	assert_int_equal(sl_xchain_tx_decode(a, p, n, tx, NULL), SL_OK);
	sl_buf b;
	sl_buf_init(&b, 64u << 20);
	assert_int_equal(sl_xchain_tx_encode(&b, tx), SL_OK);
	assert_int_equal(b.len, n);
	assert_memory_equal(b.p, p, n);
	sl_buf_release(&b);
}

static sl_err sink(void *vc, sl_ikind kind, const uint8_t id[32], int64_t ts, const uint8_t *bytes,
		   size_t len)
{
	ctx *c = vc;
	dn_world *w = c->w;
	fnv(&c->hash, &kind, sizeof kind);
	fnv(&c->hash, id, 32);
	fnv(&c->hash, &ts, sizeof ts);
	fnv(&c->hash, bytes, len);
	/* dn_emit adds a random sub-second acceptance delay per container, so only seconds are ordered */
	assert_true(ts / 1000000000 >= c->last_ts[kind] / 1000000000);
	c->last_ts[kind] = ts;
	c->ncont[kind]++;
	sl_arena a;
	sl_arena_init(&a, 256u << 20);
	uint8_t h[32];
	switch (kind) {
	case SL_IDX_X_TX: {
		assert_false(c->linear);
		sl_xchain_tx tx;
		check_tx_roundtrip(bytes, len, &tx, &a);
		sl_sha256(bytes, len, h);
		assert_memory_equal(h, id, 32);
		assert_memory_equal(tx.id, id, 32);
		replay(c, &tx, ts);
		if (c->nvtxs == c->capvtxs) {
			c->capvtxs = c->capvtxs ? c->capvtxs * 2 : 64;
			c->vtxs = realloc(c->vtxs, c->capvtxs * 32);
		}
		memcpy(c->vtxs[c->nvtxs++], id, 32);
		break;
	}
	case SL_IDX_X_VTX: {
		assert_false(c->linear);
		sl_xchain_vertex v;
		assert_int_equal(sl_xchain_vertex_decode(&a, bytes, len, &v, NULL), SL_OK);
		sl_buf b;
		sl_buf_init(&b, 256u << 20);
		assert_int_equal(sl_xchain_vertex_encode(&b, &v), SL_OK);
		assert_int_equal(b.len, len);
		assert_memory_equal(b.p, bytes, len);
		sl_buf_release(&b);
		sl_sha256(bytes, len, h);
		assert_memory_equal(h, id, 32);
		assert_memory_equal(v.chain_id, w->chain[DN_X].id, 32);
		assert_true(v.nparents <= 2);
		for (uint32_t i = 1; i < v.nparents; i++)
			assert_true(memcmp(v.parents + 32 * (i - 1), v.parents + 32 * i, 32) < 0);
		if (v.version == 1) {
			c->stops++;
			c->linear = true;
			assert_int_equal(c->nvtxs, 0);
			assert_true(v.nparents >= 1);
			/* the linear chain's genesis block: parent = stop vertex, height 0, never indexed */
			static const uint8_t zero[32];
			sl_xchain_block g = { .type_id = SL_X_STANDARD_BLOCK,
					      .parent_id = id,
					      .time = (uint64_t)(ts / 1000000000),
					      .merkle_root = zero };
			sl_buf gb;
			sl_buf_init(&gb, 4096);
			assert_int_equal(sl_xchain_block_encode(&gb, &g), SL_OK);
			sl_sha256(gb.p, gb.len, c->last_block);
			sl_buf_release(&gb);
			break;
		}
		assert_int_equal(v.version, 0);
		assert_int_equal(v.epoch, 0);
		/* ancestors: the parents and theirs */
		assert_true(c->nv < MAX_VTX);
		uint32_t me = c->nv++;
		memcpy(c->vid[me], id, 32);
		memset(c->anc[me], 0, sizeof c->anc[me]);
		for (uint32_t i = 0; i < v.nparents; i++) {
			uint32_t p = UINT32_MAX;
			for (uint32_t q = 0; q < me; q++)
				if (!memcmp(c->vid[q], v.parents + 32 * i, 32))
					p = q;
			assert_true(p != UINT32_MAX);
			c->anc[me][p / 64] |= 1ull << (p % 64);
			for (size_t wd = 0; wd < MAX_VTX / 64; wd++)
				c->anc[me][wd] |= c->anc[p][wd];
		}
		for (uint32_t i = 0; i < v.ntxs; i++) {
			const sl_xchain_utx *u = &v.txs[i].utx;
			for (uint32_t j = 0; j < u->base.nins + u->nops; j++) {
				const tutxo *t = j < u->base.nins
							 ? lfind(&c->L, u->base.ins[j].tx_id,
								 u->base.ins[j].output_index, false)
							 : lfind(&c->L, u->ops[j - u->base.nins].utxos,
								 sl_be32(u->ops[j - u->base.nins].utxos + 32),
								 false);
				assert_non_null(t);
				if (t->vtx) {
					uint32_t p = (uint32_t)t->vtx - 1;
					assert_true(c->anc[me][p / 64] >> (p % 64) & 1);
				}
			}
		}
		for (uint32_t i = 0; i < v.ntxs; i++) {
			tutxo *t;
			for (uint32_t k = 0; (t = lfind(&c->L, v.txs[i].id, k, false)) != NULL; k++)
				t->vtx = (int32_t)me + 1;
		}
		assert_true(v.ntxs >= 1);
		assert_int_equal(v.ntxs, c->nvtxs);
		for (uint32_t i = 0; i < v.ntxs; i++) {
			assert_memory_equal(v.txs[i].id, c->vtxs[i], 32);
			if (i)
				assert_true(memcmp(v.txs[i - 1].id, v.txs[i].id, 32) < 0);
			/* no tx spends an output of a tx in its own vertex */
			const sl_xchain_utx *u = &v.txs[i].utx;
			for (uint32_t j = 0; j < u->base.nins; j++)
				for (uint32_t k = 0; k < v.ntxs; k++)
					assert_false(!memcmp(u->base.ins[j].tx_id, c->vtxs[k], 32));
		}
		c->nvtxs = 0;
		break;
	}
	case SL_IDX_X_BLOCK: {
		assert_true(c->linear);
		sl_proposervm_block pb;
		assert_int_equal(sl_proposervm_block_decode(bytes, len, &pb, NULL), SL_OK);
		assert_memory_equal(pb.id, id, 32);
		sl_xchain_block blk;
		assert_int_equal(sl_xchain_block_decode(&a, pb.inner.p, pb.inner.len, &blk, NULL), SL_OK);
		sl_buf b;
		sl_buf_init(&b, 256u << 20);
		assert_int_equal(sl_xchain_block_encode(&b, &blk), SL_OK);
		assert_int_equal(b.len, pb.inner.len);
		assert_memory_equal(b.p, pb.inner.p, b.len);
		sl_buf_release(&b);
		assert_int_equal(blk.height, c->block_height + 1);
		assert_memory_equal(blk.parent_id, c->last_block, 32);
		assert_true(blk.time <= (uint64_t)(ts / 1000000000));
		assert_int_equal(blk.time, (uint64_t)pb.timestamp);
		assert_true(blk.ntxs >= 1);
		for (uint32_t i = 0; i < blk.ntxs; i++)
			replay(c, &blk.txs[i], ts);
		memcpy(c->last_block, blk.id, 32);
		c->block_height = blk.height;
		c->blocks++;
		break;
	}
	default: fail_msg("unexpected container kind %d", kind);
	}
	sl_arena_release(&a);
	return SL_OK;
}

/* ---------------------------------------------------------------- a world without P and C */

static dn_world *world_new(const char *seed, uint32_t accounts)
{
	dn_world *w = calloc(1, sizeof *w);
	assert_non_null(w);
	snprintf(w->seed, sizeof w->seed, "%s", seed);
	w->cfg = (sl_devnet_config){
		.seed = w->seed, .network_id = 12345, .start_time = START, .accounts = accounts
	};
	w->params = (dn_params){ .tx_fee = DN_NANO / 1000,
				 .create_asset_fee = DN_NANO / 100,
				 .cortina_time = START + SPAN / 5,
				 .ap5_time = START + SPAN / 20 };
	w->now = START;
	w->nkeys = accounts;
	w->keys = calloc(accounts, sizeof *w->keys);
	assert_non_null(w->keys);
	for (uint32_t i = 0; i < accounts; i++) {
		char m[300];
		for (uint32_t salt = 0;; salt++) {
			int n = snprintf(m, sizeof m, "test/%s/%u/%u", seed, i, salt);
			sl_sha256(m, (size_t)n, w->keys[i].sk);
			uint8_t pub[33];
			if (sl_secp_pubkey(w->keys[i].sk, pub)) {
				sl_hash160(pub, 33, w->keys[i].addr);
				break;
			}
		}
	}
	sl_sha256("X", 1, w->chain[DN_X].id);
	sl_sha256("C", 1, w->chain[DN_C].id);
	sl_sha256("AVAX", 4, w->avax);
	for (int c = 0; c < DN_CHAINS; c++) {
		sl_sha256(&c, sizeof c, w->chain[c].last_inner);
		memcpy(w->chain[c].last_outer, w->chain[c].last_inner, 32);
		w->chain[c].last_time = START;
	}
	dn_rng_init(&w->rng, w->seed, "world");
	return w;
}

static void world_free(dn_world *w)
{
	dn_x_free(w);
	for (int c = 0; c < DN_CHAINS; c++) {
		free(w->utxos[c].v);
		for (int s = 0; s < DN_CHAINS; s++)
			free(w->shared[c][s].v);
	}
	free(w->keys);
	free(w);
}

/* What P and C would have exported to X: some small, some 2-of-3. */
static void seed_shared(dn_world *w, int src, uint32_t n)
{
	dn_rng r;
	dn_rng_init(&r, w->seed, src == DN_P ? "test-shared-P" : "test-shared-C");
	for (uint32_t i = 0; i < n; i++) {
		dn_utxo u = {
			.index = i % 3, .type_id = SL_T_SECP_TRANSFER_OUTPUT, .threshold = 1, .nowners = 1
		};
		dn_rng_bytes(&r, u.tx_id, 32);
		memcpy(u.asset_id, w->avax, 32);
		u.amount = i % 7 == 3 ? 500000 : dn_rng_range(&r, 1, 100) * DN_NANO;
		u.owners[0] = (uint32_t)dn_rng_below(&r, w->nkeys);
		if (i % 9 == 5 && w->nkeys >= 3) {
			uint32_t a = u.owners[0], b = (a + 1) % w->nkeys, cc = (a + 2) % w->nkeys,
				 ks[3] = { a, b, cc };
			for (int x = 0; x < 3; x++)
				for (int y = x + 1; y < 3; y++)
					if (memcmp(w->keys[ks[y]].addr, w->keys[ks[x]].addr, 20) < 0) {
						uint32_t t = ks[x];
						ks[x] = ks[y];
						ks[y] = t;
					}
			u.threshold = 2;
			u.nowners = 3;
			memcpy(u.owners, ks, sizeof ks);
		}
		assert_non_null(dn_utxo_add(&w->shared[DN_X][src], &u));
	}
}

/* Run the history in 200 steps (as devnet.c does), then the live steps. */
static void run(ctx *c, dn_world *w, uint32_t ntxs)
{
	*c = (ctx){ .w = w, .hash = 0xcbf29ce484222325ull };
	c->vid = calloc(MAX_VTX, sizeof *c->vid);
	c->anc = calloc(MAX_VTX, sizeof *c->anc);
	assert_true(c->vid && c->anc);
	assert_int_equal(dn_x_init(w), SL_OK);
	for (size_t i = 0; i < w->utxos[DN_X].n; i++) {
		const dn_utxo *d = &w->utxos[DN_X].v[i];
		tutxo *t = lfind(&c->L, d->tx_id, d->index, true);
		assert_non_null(t);
		uint8_t key[36];
		memcpy(key, t->key, 36);
		tutxo_of_dn(w, d, t);
		memcpy(t->key, key, 36);
		t->used = true;
	}
	seed_shared(w, DN_P, 60);
	seed_shared(w, DN_C, 60);
	w->sink = sink;
	w->sink_ctx = c;
	uint64_t steps = 200, done = 0;
	for (uint64_t i = 1; i <= steps; i++) {
		uint64_t until = START + SPAN * i / steps, target = ntxs * i / steps;
		w->now = until;
		w->chain[DN_P].height = i; /* what the proposervm wrapper reads */
		assert_int_equal(dn_x_step(w, until, (uint32_t)(target - done)), SL_OK);
		done = target;
	}
	for (int i = 0; i < 5; i++) {
		w->now += 2;
		assert_int_equal(dn_x_step(w, w->now, 3), SL_OK);
	}
	assert_int_equal(w->sink_err, SL_OK);
}

/* ---------------------------------------------------------------- manifest */

static sl_span jget(sl_span obj, const char *key)
{
	sl_jiter it;
	sl_json_iter_init(&it, obj);
	sl_span k, v;
	size_t kl = strlen(key);
	while (sl_json_obj_next(&it, &k, &v))
		if (k.len == kl + 2 && !memcmp(k.p + 1, key, kl))
			return v;
	return (sl_span){ 0 };
}

static uint64_t jnum(sl_span v)
{
	assert_true(v.len > 0);
	const char *p = (const char *)v.p;
	size_t n = v.len;
	if (*p == '"') {
		p++;
		n -= 2;
	}
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		assert_true(p[i] >= '0' && p[i] <= '9');
		x = x * 10 + (uint64_t)(p[i] - '0');
	}
	return x;
}

static void check_manifest(ctx *c)
{
	dn_world *w = c->w;
	sl_buf out;
	sl_buf_init(&out, 256u << 20);
	sl_jw j;
	sl_jw_init(&j, &out);
	dn_x_manifest(w, &j);
	assert_int_equal(out.err, SL_OK);
	size_t s, e;
	char msg[128];
	assert_int_equal(sl_json_scan((const char *)out.p, out.len, &s, &e, msg), SL_OK);
	sl_span m = sl_span_of(out.p + s, e - s);

	/* txCounts and vertices match what the sink saw */
	sl_span tc = jget(m, "txCounts");
	for (uint32_t t = 0; t < 5; t++)
		assert_int_equal(jnum(jget(tc, sl_xchain_type_name(t))), c->counts[t]);
	assert_int_equal(jnum(jget(m, "vertices")), c->ncont[SL_IDX_X_VTX]);
	assert_int_equal(jnum(jget(m, "blocks")), c->ncont[SL_IDX_X_BLOCK]);

	/* genesis.utxos: every genesis output as the replay was seeded with it (spent or not) */
	{
		const char *hrp0 = sl_addr_hrp(w->cfg.network_id);
		sl_jiter gi;
		sl_json_iter_init(&gi, jget(jget(m, "genesis"), "utxos"));
		sl_span g;
		uint64_t ng = 0;
		while (sl_json_arr_next(&gi, &g)) {
			uint8_t tid[32], asset[32];
			const char *cmsg = NULL;
			char cbuf[96];
			sl_span ts = jget(g, "txId"), as = jget(g, "assetId");
			assert_int_equal(sl_cb58_decode_id((const char *)ts.p + 1, ts.len - 2, tid, &cmsg,
							   cbuf),
					 SL_OK);
			assert_int_equal(sl_cb58_decode_id((const char *)as.p + 1, as.len - 2, asset, &cmsg,
							   cbuf),
					 SL_OK);
			tutxo *t = lfind(&c->L, tid, (uint32_t)jnum(jget(g, "outputIndex")), false);
			assert_non_null(t);
			assert_int_equal(t->vtx, 0);
			assert_memory_equal(t->asset, asset, 32);
			assert_int_equal(t->type, jnum(jget(g, "typeId")));
			assert_int_equal(t->amount, jnum(jget(g, "amount")));
			assert_int_equal(t->locktime, jnum(jget(g, "locktime")));
			assert_int_equal(jnum(jget(g, "stakeableLocktime")), 0);
			assert_int_equal(t->threshold, jnum(jget(g, "threshold")));
			sl_jiter ai;
			sl_json_iter_init(&ai, jget(g, "addresses"));
			sl_span a;
			uint32_t na = 0;
			while (sl_json_arr_next(&ai, &a)) {
				assert_true(na < t->naddrs);
				char mem[128];
				sl_buf ab = { .p = (uint8_t *)mem, .cap = sizeof mem, .max = sizeof mem - 1 };
				sl_addr_write(&ab, "X", hrp0, t->addrs[na++]);
				assert_int_equal(a.len, ab.len + 2);
				assert_memory_equal(a.p + 1, mem, ab.len);
			}
			assert_int_equal(na, t->naddrs);
			ng++;
		}
		assert_true(ng > 0);
		assert_int_equal(ng, jnum(jget(m, "genesisUtxos")));
	}

	/* balances: single-owner secp outputs by address and asset; multi-owner counted apart */
	uint64_t shared = 0, nbal = 0;
	sl_span bals = jget(m, "balances");
	assert_true(bals.len > 0);
	const char *hrp = sl_addr_hrp(w->cfg.network_id);
	for (size_t i = 0; i < c->L.cap; i++) {
		tutxo *t = &c->L.v[i];
		if (!t->used || t->spent)
			continue;
		if (t->naddrs != 1) {
			shared++;
			continue;
		}
		if (t->type != SL_T_SECP_TRANSFER_OUTPUT)
			continue;
		nbal++;
	}
	assert_int_equal(jnum(jget(m, "sharedUtxos")), shared);
	/* per address: sum the ledger for each key and compare every asset listed */
	uint64_t checked = 0;
	for (uint32_t k = 0; k < w->nkeys; k++) {
		char mem[128];
		sl_buf a = { .p = (uint8_t *)mem, .cap = sizeof mem, .max = sizeof mem - 1 };
		sl_addr_write(&a, "X", hrp, w->keys[k].addr);
		mem[a.len] = 0;
		sl_span per = jget(bals, mem);
		sl_jiter it;
		if (!per.len)
			continue;
		sl_json_iter_init(&it, per);
		sl_span key, val;
		while (sl_json_obj_next(&it, &key, &val)) {
			uint8_t asset[32];
			const char *cmsg = NULL;
			char cbuf[96];
			assert_int_equal(sl_cb58_decode_id((const char *)key.p + 1, key.len - 2, asset, &cmsg,
							   cbuf),
					 SL_OK);
			uint64_t sum = 0;
			for (size_t i = 0; i < c->L.cap; i++) {
				tutxo *t = &c->L.v[i];
				if (t->used && !t->spent && t->naddrs == 1 &&
				    t->type == SL_T_SECP_TRANSFER_OUTPUT &&
				    !memcmp(t->addrs[0], w->keys[k].addr, 20) &&
				    !memcmp(t->asset, asset, 32)) {
					sum += t->amount;
					checked++;
				}
			}
			assert_int_equal(jnum(val), sum);
		}
	}
	assert_int_equal(checked, nbal); /* every unspent single-owner output was under some listed asset */

	/* assets: AVAX first, then fungible or NFT families only */
	{
		sl_jiter ai;
		sl_json_iter_init(&ai, jget(m, "assets"));
		sl_span as;
		uint64_t n = 0, kinds[2] = { 0, 0 };
		while (sl_json_arr_next(&ai, &as)) {
			sl_span ty = jget(as, "type");
			bool secp = ty.len == 11 && !memcmp(ty.p, "\"secp256k1\"", 11);
			bool nft = ty.len == 5 && !memcmp(ty.p, "\"nft\"", 5);
			assert_true(secp || nft);
			if (n++ == 0)
				assert_true(secp);
			else
				kinds[nft]++;
		}
		assert_int_equal(kinds[0], c->fx_assets[SL_FX_SECP256K1]);
		assert_int_equal(kinds[1], c->fx_assets[SL_FX_NFT]);
	}

	/* NFTs per family */
	sl_span nfts = jget(m, "nfts");
	sl_jiter it;
	sl_json_iter_init(&it, nfts);
	sl_span key, val;
	uint64_t nft_total = 0, ledger_nfts = 0;
	while (sl_json_obj_next(&it, &key, &val))
		nft_total += jnum(val);
	for (size_t i = 0; i < c->L.cap; i++)
		if (c->L.v[i].used && !c->L.v[i].spent && c->L.v[i].naddrs == 1 &&
		    c->L.v[i].type == SL_T_NFT_TRANSFER_OUTPUT)
			ledger_nfts++;
	assert_int_equal(nft_total, ledger_nfts);
	assert_true(jget(m, "stopVertexId").len > 0);
	sl_buf_release(&out);
}

static void ctx_free(ctx *c)
{
	free(c->L.v);
	free(c->imported);
	free(c->vtxs);
	free(c->vid);
	free(c->anc);
}

static void test_history(void **state)
{
	(void)state;
	dn_world *w = world_new("xchain-test", 40);
	ctx c;
	clock_t t0 = clock();
	run(&c, w, 2400);
	double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	print_message(
		"X: %llu txs (base %llu, asset %llu, op %llu, import %llu, export %llu), %llu vertices, %llu blocks, %llu sigs, %.2fs\n",
		(unsigned long long)(c.counts[0] + c.counts[1] + c.counts[2] + c.counts[3] + c.counts[4]),
		(unsigned long long)c.counts[0], (unsigned long long)c.counts[1],
		(unsigned long long)c.counts[2], (unsigned long long)c.counts[3],
		(unsigned long long)c.counts[4], (unsigned long long)c.ncont[SL_IDX_X_VTX],
		(unsigned long long)c.blocks, (unsigned long long)c.nsigs, secs);
	print_message(
		"X: assets %llu fungible, %llu nft; ops %llu secp mint, %llu nft mint, %llu nft transfer; "
		"%llu multisig, %llu locked outputs\n",
		(unsigned long long)c.fx_assets[SL_FX_SECP256K1], (unsigned long long)c.fx_assets[SL_FX_NFT],
		(unsigned long long)c.ops[SL_T_SECP_MINT_OPERATION],
		(unsigned long long)c.ops[SL_T_NFT_MINT_OPERATION],
		(unsigned long long)c.ops[SL_T_NFT_TRANSFER_OPERATION], (unsigned long long)c.multisig,
		(unsigned long long)c.locked);
	/* every kind of tx happened, the DAG era and the chain both exist */
	for (int t = 0; t < 5; t++)
		assert_true(c.counts[t] > 0);
	/* the X-chain list: fungible and NFT assets, mints of both, NFT transfers, multisig, locktimes */
	assert_true(c.fx_assets[SL_FX_SECP256K1] > 0 && c.fx_assets[SL_FX_NFT] > 0);
	assert_int_equal(c.fx_assets[SL_FX_PROPERTY], 0);
	assert_true(c.ops[SL_T_SECP_MINT_OPERATION] > 0 && c.ops[SL_T_NFT_MINT_OPERATION] > 0 &&
		    c.ops[SL_T_NFT_TRANSFER_OPERATION] > 0);
	assert_true(c.multisig > 0 && c.locked > 0);
	assert_int_equal(c.stops, 1);
	assert_true(c.ncont[SL_IDX_X_TX] > 100);
	assert_true(c.blocks > 100);
	assert_true(c.counts[0] + c.counts[1] + c.counts[2] + c.counts[3] + c.counts[4] >= 2400);
	assert_int_equal(w->chain[DN_X].height, c.block_height);
	check_manifest(&c);
	ctx_free(&c);
	world_free(w);
}

static void test_deterministic(void **state)
{
	(void)state;
	uint64_t h[2];
	for (int i = 0; i < 2; i++) {
		dn_world *w = world_new("same-seed", 16);
		ctx c;
		run(&c, w, 600);
		h[i] = c.hash;
		ctx_free(&c);
		world_free(w);
	}
	assert_true(h[0] == h[1]);
	dn_world *w = world_new("other-seed", 16);
	ctx c;
	run(&c, w, 600);
	assert_true(c.hash != h[0]);
	ctx_free(&c);
	world_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
