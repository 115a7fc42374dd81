/*
 * test_devnet_pchain.c — the devnet's P-chain generator, checked by an
 * independent replay of what it wrote.
 *
 * A small history (2000 txs, all three chains) goes to a sink that keeps the
 * P/block containers. Each is unwrapped (proposervm), decoded, re-encoded
 * byte for byte, and replayed here against a ledger of our own, seeded from
 * the manifest's genesis (P.genesis: allocations, genesis validators' stake
 * and owners; checked against the generator's UTXO set before the history
 * and against genesisSupply):
 *   - chain shape: heights +1, parents, non-decreasing times, a Commit or
 *     Abort option right after each proposal block, proposervm pChainHeight;
 *   - every input spends an existing unspent UTXO once (imports: a shared
 *     UTXO once, exported in an earlier second; exports: in the destination's
 *     shared memory, available from their block's time), its locktime
 *     passed, each signature recovers to the owner at its sigIndex,
 *     sigIndices sorted, credentials in input order;
 *   - outputs sorted by bytes, inputs by (txID, index), owners sorted;
 *   - AVAX in = out + stake + exported + fee (+ L1 balances);
 *   - subnet auth signed by the subnet's owner of the moment, disable auth
 *     by the L1 validator's deactivation owner, BLS proofs of possession and
 *     warp aggregate signatures verify against the L1's validator set;
 *   - before Durango: a staker's start is after its block's time and at most
 *     two weeks ahead, its period counts from that start, and it is pending
 *     until then; no block's time passes a pending start, and the first
 *     block at it promotes it (validators, delegators, then permissioned
 *     subnet validators, then by tx id); no BaseTx, TransferSubnetOwnershipTx
 *     or L1 tx, and proposal blocks carry only their RewardValidatorTx. From
 *     Durango: stakers start at their block's time and memos are empty;
 *   - rewards recomputed with the formula from the replayed supply (when the
 *     staker starts: at its tx, or at its promotion); stake, reward and
 *     refund UTXOs at the documented indices;
 *   - at the end the replayed UTXO set equals the generator's, the supply
 *     matches, and every tx type of the P-chain mix occurred; the manifest's
 *     pending stakers (pendingFrom, pendingDuringHistory, pendingAtDurango)
 *     are the replay's, and some validators were still pending at Durango.
 * Proposers: every signed proposervm block of P, X and C names a primary
 * validator that the replay has current at every P height from its parent's
 * pChainHeight to its own.
 * A history cut a few days after genesis shows "pending" stakers in the
 * manifest, replayed the same way. Same seed, same bytes.
 *
 * The world is reached through the sl_devnet handle, whose first member is
 * the dn_world (devnet.c); this test is the only place that relies on it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <jansson.h>

#include "codec/pchain.h"
#include "codec/proposervm.h"
#include "codec/warp.h"
#include "crypto/addr.h"
#include "crypto/bls.h"
#include "crypto/cb58.h"
#include "crypto/hash.h"
#include "crypto/secp.h"
#include "devnet/devnet.h"
#include "codec/rewards.h"
#include "devnet/world.h"

#define DAY 86400ull

/* ---- the sink ---- */

typedef struct rec {
	int64_t ts;
	uint8_t *bytes;
	size_t len;
} rec;

/* A proposervm block's proposer facts (P, X and C): checked against the replayed validator sets. */
typedef struct phdr {
	int chain;	  /* 0 P, 1 X, 2 C */
	uint64_t lo, hi;  /* the parent's pChainHeight (or hi for a chain's first block), the block's */
	bool has;	  /* signed */
	uint8_t node[20]; /* its proposer */
} phdr;

typedef struct sink {
	rec *v;
	size_t n, cap;
	uint8_t digest[32]; /* chained over every container of every chain */
	uint64_t count;
	phdr *h;
	size_t nh, caph;
	uint64_t last_pch[3];
	bool forked[3];
} sink;

static void note_proposer(sink *s, sl_ikind kind, const uint8_t *bytes, size_t len)
{
	int c = kind == SL_IDX_P_BLOCK ? 0 : kind == SL_IDX_X_BLOCK ? 1 : kind == SL_IDX_C_BLOCK ? 2 : -1;
	sl_proposervm_block b;
	if (c < 0)
		return;
	assert_int_equal(sl_proposervm_block_decode(bytes, len, &b, NULL), SL_OK);
	if (b.kind == SL_PROPOSERVM_OPTION)
		return;
	phdr *h = DN_PUSH(s->h, s->nh, s->caph);
	assert_non_null(h);
	*h = (phdr){ .chain = c,
		     .lo = s->forked[c] ? s->last_pch[c] : b.pchain_height,
		     .hi = b.pchain_height,
		     .has = b.has_proposer };
	memcpy(h->node, b.proposer, 20);
	s->last_pch[c] = b.pchain_height;
	s->forked[c] = true;
}

static sl_err sink_fn(void *ctx, sl_ikind kind, const uint8_t id[32], int64_t ts_ns, const uint8_t *bytes,
		      size_t len)
{
	sink *s = ctx;
	uint8_t buf[64 + 1];
	memcpy(buf, s->digest, 32);
	sl_sha256(bytes, len, buf + 32);
	buf[64] = (uint8_t)kind;
	sl_sha256(buf, sizeof buf, s->digest);
	(void)id;
	s->count++;
	note_proposer(s, kind, bytes, len);
	if (kind != SL_IDX_P_BLOCK)
		return SL_OK;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->v = realloc(s->v, s->cap * sizeof *s->v);
		assert_non_null(s->v);
	}
	rec *r = &s->v[s->n++];
	r->ts = ts_ns;
	r->len = len;
	r->bytes = malloc(len);
	assert_non_null(r->bytes);
	memcpy(r->bytes, bytes, len);
	return SL_OK;
}

static void sink_free(sink *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].bytes);
	free(s->v);
	free(s->h);
}

/* ---- the replay ledger: UTXOs by id, open addressing ---- */

typedef struct lu {
	uint8_t key[32]; /* UTXO id */
	bool used, spent;
	uint64_t amount, lock, locktime;
	uint32_t threshold, n;
	uint8_t addrs[DN_MAX_OWNERS][20];
} lu;

typedef struct ledger {
	lu *v;
	size_t cap, n;
} ledger;

static lu *led_slot(ledger *l, const uint8_t key[32])
{
	size_t i = sl_be64(key) & (l->cap - 1);
	while (l->v[i].used && memcmp(l->v[i].key, key, 32))
		i = (i + 1) & (l->cap - 1);
	return &l->v[i];
}

static void led_add(ledger *l, const uint8_t tx_id[32], uint32_t index, uint64_t amount, uint64_t lock,
		    uint64_t locktime, uint32_t threshold, uint32_t n, const uint8_t *addrs)
{
	if ((l->n + 1) * 2 > l->cap) {
		ledger g = { .cap = l->cap ? l->cap * 2 : 4096 };
		g.v = calloc(g.cap, sizeof *g.v);
		assert_non_null(g.v);
		for (size_t i = 0; i < l->cap; i++)
			if (l->v[i].used)
				*led_slot(&g, l->v[i].key) = l->v[i];
		g.n = l->n;
		free(l->v);
		*l = g;
	}
	uint8_t key[32];
	sl_avax_utxo_id(tx_id, index, key);
	lu *u = led_slot(l, key);
	assert_false(u->used); /* never the same UTXO twice */
	*u = (lu){ .used = true,
		   .amount = amount,
		   .lock = lock,
		   .locktime = locktime,
		   .threshold = threshold,
		   .n = n };
	memcpy(u->key, key, 32);
	assert_true(n <= DN_MAX_OWNERS);
	if (n)
		memcpy(u->addrs, addrs, 20 * (size_t)n);
	l->n++;
}

static lu *led_find(ledger *l, const uint8_t tx_id[32], uint32_t index)
{
	if (!l->cap)
		return NULL;
	uint8_t key[32];
	sl_avax_utxo_id(tx_id, index, key);
	lu *u = led_slot(l, key);
	return u->used ? u : NULL;
}

/* ---- replay state ---- */

typedef struct owner {
	uint32_t threshold, n;
	uint8_t addrs[DN_MAX_OWNERS][20];
} owner;

typedef struct rstaker {
	uint8_t tx_id[32], node[20];
	bool validator, active, genesis;
	bool pending, permissioned, was_pending;
	uint32_t prio;	   /* avalanchego's pending priority: validator 2, delegator 3, subnet 6 */
	uint64_t accepted; /* its tx's block time */
	uint64_t start, end, weight, potential, accrued;
	uint32_t shares, nouts, nstake;
	uint64_t stake_amt[4], stake_lock[4];
	owner stake_owner[4], rewards, delegation;
	int val;
} rstaker;

typedef struct rsubnet {
	uint8_t id[32];
	owner own;
	bool l1;
} rsubnet;

typedef struct rl1 {
	uint8_t vid[32], subnet[32], node[20];
	sl_bls_pk pk;
	uint8_t raw[96];
	uint64_t weight, deposit, since;
	owner remaining, disable;
	bool removed, disabled;
} rl1;

typedef struct replay {
	dn_world *w;
	ledger led;
	ledger imported; /* shared UTXOs already imported */
	uint64_t supply;
	rstaker st[4096];
	size_t nst;
	rsubnet sn[256];
	size_t nsn;
	rl1 l1[512];
	size_t nl1;
	uint64_t counts[64];
	int pending_reward; /* staker index of the proposal waiting for its option */
	uint64_t fee_txs;
	/* the current primary validators' nodes after each P height (index: height) */
	struct vset {
		uint8_t (*node)[20];
		size_t n;
	} * vsets;
	size_t nvsets, capvsets;
} replay;

static owner owner_of(const sl_owners *o)
{
	owner r = { .threshold = o->threshold, .n = o->naddrs };
	assert_true(o->naddrs <= DN_MAX_OWNERS);
	memcpy(r.addrs, o->addrs, 20 * (size_t)o->naddrs);
	for (uint32_t i = 1; i < o->naddrs; i++)
		assert_true(memcmp(o->addrs + 20 * (i - 1), o->addrs + 20 * i, 20) < 0); /* sorted, unique */
	return r;
}

static owner powner_of(const sl_pchain_owner *o)
{
	sl_owners x = { .threshold = o->threshold, .naddrs = o->naddrs, .addrs = o->addrs };
	return owner_of(&x);
}

static bool known_key(const dn_world *w, const uint8_t addr[20])
{
	for (uint32_t k = 0; k < w->nkeys; k++)
		if (!memcmp(w->keys[k].addr, addr, 20))
			return true;
	return false;
}

/* The credential signs `hash` with the owners at sigIndices. */
static void check_sigs(const uint8_t hash[32], const sl_sigidx *sig, const sl_credential *c,
		       uint32_t threshold, uint32_t n, const uint8_t (*addrs)[20])
{
	assert_int_equal(sig->n, threshold);
	assert_int_equal(c->nsigs, sig->n);
	for (uint32_t i = 0; i < sig->n; i++) {
		uint32_t at = sl_sigidx_at(sig, i);
		assert_true(at < n);
		if (i)
			assert_true(at > sl_sigidx_at(sig, i - 1));
		uint8_t who[20];
		assert_true(sl_secp_recover_short_id(hash, c->sigs + 65 * i, who));
		assert_memory_equal(who, addrs[at], 20);
	}
}

static void check_auth(const uint8_t hash[32], const sl_pchain_tx *tx, const owner *o)
{
	assert_true(tx->utx.has_auth);
	assert_true(tx->ncreds >= 1);
	check_sigs(hash, &tx->utx.auth, &tx->creds[tx->ncreds - 1], o->threshold, o->n, o->addrs);
}

static uint64_t fee_of(uint32_t type)
{
	switch (type) {
	case SL_P_CREATE_SUBNET_TX:
	case SL_P_CREATE_CHAIN_TX: return DN_NANO;
	case SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX:
	case SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX:
	case SL_P_REWARD_VALIDATOR_TX: return 0;
	default: return DN_NANO / 1000;
	}
}

static uint64_t l1_bal(const rl1 *v, uint64_t t)
{
	if (v->removed || v->disabled)
		return 0;
	uint64_t fee = (t - v->since) * 512;
	return fee >= v->deposit ? 0 : v->deposit - fee;
}

static rsubnet *subnet_by_id(replay *r, const uint8_t id[32])
{
	for (size_t i = 0; i < r->nsn; i++)
		if (!memcmp(r->sn[i].id, id, 32))
			return &r->sn[i];
	fail_msg("unknown subnet");
	return NULL;
}

static rl1 *l1_by_vid(replay *r, const uint8_t vid[32])
{
	for (size_t i = 0; i < r->nl1; i++)
		if (!memcmp(r->l1[i].vid, vid, 32))
			return &r->l1[i];
	fail_msg("unknown validation id");
	return NULL;
}

static int raw_cmp(const void *a, const void *b)
{
	return memcmp((*(rl1 *const *)a)->raw, (*(rl1 *const *)b)->raw, 96);
}

/* A warp message from an L1's manager: the aggregate of the set bits' keys verifies; returns the L1 payload. */
static sl_span check_warp(replay *r, sl_span bytes, uint64_t t, const uint8_t **subnet_out)
{
	sl_warp_message m;
	assert_int_equal(sl_warp_message_decode(bytes.p, bytes.len, &m, NULL), SL_OK);
	assert_int_equal(m.msg.network_id, r->w->cfg.network_id);
	assert_true(sl_warp_signers_minimal(m.signers));
	sl_warp_payload pl;
	assert_int_equal(sl_warp_payload_decode(m.msg.payload.p, m.msg.payload.len, &pl, NULL), SL_OK);
	assert_int_equal(pl.type, SL_WARP_PAYLOAD_ADDRESSED_CALL);
	/* The source chain is the manager chain of exactly one L1; its validators sign. */
	sl_warp_l1_msg lm;
	assert_int_equal(sl_warp_l1_decode(pl.payload.p, pl.payload.len, &lm, NULL), SL_OK);
	const uint8_t *subnet = lm.type == SL_WARP_L1_REGISTER_VALIDATOR
					? lm.subnet_id.p
					: l1_by_vid(r, lm.validation_id.p)->subnet;
	rl1 *set[64];
	size_t n = 0;
	uint64_t total = 0, signed_w = 0;
	for (size_t i = 0; i < r->nl1; i++) {
		rl1 *v = &r->l1[i];
		if (memcmp(v->subnet, subnet, 32) || v->removed)
			continue;
		total += v->weight;
		if (l1_bal(v, t) > 0)
			set[n++] = v;
	}
	qsort(set, n, sizeof *set, raw_cmp);
	sl_bls_pk_sum ps;
	sl_bls_pk_sum_init(&ps);
	for (size_t i = 0; i < n; i++)
		if (sl_warp_signers_has(m.signers, i)) {
			sl_bls_pk_sum_add(&ps, &set[i]->pk);
			signed_w += set[i]->weight;
		}
	assert_true(sl_warp_signers_count(m.signers) <= n);
	assert_true(signed_w * 100 >= total * 67);
	sl_bls_pk agg;
	sl_bls_sig sig;
	assert_int_equal(sl_bls_pk_sum_final(&ps, &agg), SL_OK);
	assert_int_equal(sl_bls_sig_decode(&sig, m.signature.p), SL_OK);
	assert_true(sl_bls_verify(&agg, &sig, m.msg.bytes.p, m.msg.bytes.len));
	*subnet_out = subnet;
	return pl.payload;
}

static void check_pop(const uint8_t *pk48, const uint8_t *pop96, sl_bls_pk *out)
{
	sl_bls_sig s;
	assert_int_equal(sl_bls_pk_decode(out, pk48), SL_OK);
	assert_int_equal(sl_bls_sig_decode(&s, pop96), SL_OK);
	assert_true(sl_bls_pop_verify(out, &s));
}

/* The node's primary validator, current or pending (avalanchego's GetValidator), or -1. */
static int primary_validator(replay *r, const uint8_t node[20])
{
	for (size_t i = 0; i < r->nst; i++)
		if (r->st[i].validator && !r->st[i].permissioned && (r->st[i].active || r->st[i].pending) &&
		    !memcmp(r->st[i].node, node, 20))
			return (int)i;
	return -1;
}

/*
 * A staker's start against the block time t: before Durango after t, at
 * most two weeks ahead (MaxFutureStartTime); from Durango the start is
 * ignored by the network and the generator sets it to t.
 */
static bool check_start(const dn_world *w, uint64_t start, uint64_t t)
{
	if (t >= w->params.durango_time) {
		assert_int_equal(start, t);
		return false;
	}
	assert_true(start > t);
	assert_true(start <= t + 14 * DAY);
	return true;
}

static void sorted_outs(const sl_avax_out *outs, uint32_t n)
{
	sl_buf a, b;
	sl_buf_init(&a, 1 << 16);
	sl_buf_init(&b, 1 << 16);
	for (uint32_t i = 1; i < n; i++) {
		sl_buf_reset(&a);
		sl_buf_reset(&b);
		sl_buf_add(&a, outs[i - 1].asset_id, 32);
		sl_avax_output_write(&a, &outs[i - 1].out);
		sl_buf_add(&b, outs[i].asset_id, 32);
		sl_avax_output_write(&b, &outs[i].out);
		int c = memcmp(a.p, b.p, SL_MIN(a.len, b.len));
		assert_true(c < 0 || (c == 0 && a.len <= b.len));
	}
	sl_buf_release(&a);
	sl_buf_release(&b);
}

static void sorted_ins(const sl_avax_in *ins, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		int c = memcmp(ins[i - 1].tx_id, ins[i].tx_id, 32);
		assert_true(c < 0 || (c == 0 && ins[i - 1].output_index < ins[i].output_index));
	}
}

static void add_outs(replay *r, const uint8_t tx_id[32], const sl_avax_out *outs, uint32_t n, uint32_t first)
{
	for (uint32_t i = 0; i < n; i++) {
		const sl_output *o = &outs[i].out;
		assert_memory_equal(outs[i].asset_id, r->w->avax, 32);
		owner ow = owner_of(&o->owners);
		led_add(&r->led, tx_id, first + i, o->amount,
			o->type_id == SL_T_STAKEABLE_LOCK_OUT ? o->lock_locktime : 0, o->owners.locktime,
			ow.threshold, ow.n, &ow.addrs[0][0]);
	}
}

static void led_add_owner(replay *r, const uint8_t tx_id[32], uint32_t index, uint64_t amount, uint64_t lock,
			  const owner *o)
{
	led_add(&r->led, tx_id, index, amount, lock, 0, o->threshold, o->n, &o->addrs[0][0]);
}

static const sl_reward_config *rc(const dn_world *w)
{
	static sl_reward_config c;
	c = (sl_reward_config){ w->params.max_consumption_rate, w->params.min_consumption_rate,
				w->params.minting_period, w->params.supply_cap };
	return &c;
}

/* Replay one tx at block time t. */
static void replay_tx(replay *r, const sl_pchain_tx *tx, uint64_t t)
{
	dn_world *w = r->w;
	const sl_pchain_utx *u = &tx->utx;
	uint8_t hash[32];
	{
		sl_buf ub;
		sl_buf_init(&ub, 1 << 22);
		sl_buf_add(&ub, "\0\0", 2);
		sl_buf_add(&ub, tx->unsigned_bytes.p, tx->unsigned_bytes.len);
		sl_sha256(ub.p, ub.len, hash);
		sl_buf_release(&ub);
	}
	r->counts[u->type_id]++;
	uint64_t in = 0, out = 0, burn = 0;
	if (t < w->params.durango_time) /* Durango's txs, and Etna's after it in this timeline */
		assert_true(u->type_id != SL_P_BASE_TX && u->type_id != SL_P_TRANSFER_SUBNET_OWNERSHIP_TX &&
			    u->type_id < SL_P_CONVERT_SUBNET_TO_L1_TX);
	if (u->has_base) /* memos: up to 256 bytes, then none from Durango */
		assert_true(t >= w->params.durango_time ? u->base.memo.len == 0 : u->base.memo.len <= 256);
	if (u->has_base) {
		assert_int_equal(u->base.network_id, w->cfg.network_id);
		assert_memory_equal(u->base.blockchain_id, w->chain[DN_P].id, 32);
		uint32_t nin = u->base.nins + u->nimported;
		assert_int_equal(tx->ncreds, nin + (u->has_auth ? 1 : 0));
		sorted_ins(u->base.ins, u->base.nins);
		sorted_ins(u->imported, u->nimported);
		sorted_outs(u->base.outs, u->base.nouts);
		sorted_outs(u->stake, u->nstake);
		sorted_outs(u->exported, u->nexported);
		for (uint32_t i = 0; i < u->base.nins; i++) {
			const sl_avax_in *x = &u->base.ins[i];
			lu *e = led_find(&r->led, x->tx_id, x->output_index);
			assert_non_null(e);
			assert_false(e->spent);
			assert_true(e->locktime <= t);
			assert_int_equal(x->in.amount, e->amount);
			assert_int_equal(x->in.type_id == SL_T_STAKEABLE_LOCK_IN ? x->in.lock_locktime : 0,
					 e->lock);
			if (e->lock > t) /* still locked: only staking may spend it */
				assert_true(u->type_id == SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX ||
					    u->type_id == SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX);
			check_sigs(hash, &x->in.sig, &tx->creds[i], e->threshold, e->n, e->addrs);
			e->spent = true;
			in += e->amount;
		}
		for (uint32_t i = 0; i < u->nimported; i++) {
			const sl_avax_in *x = &u->imported[i];
			uint8_t key[32];
			sl_avax_utxo_id(x->tx_id, x->output_index, key);
			assert_null(led_find(&r->imported, x->tx_id, x->output_index));
			led_add(&r->imported, x->tx_id, x->output_index, 0, 0, 0, 0, 0, NULL);
			const sl_credential *c = &tx->creds[u->base.nins + i];
			assert_int_equal(c->nsigs, 1);
			uint8_t who[20];
			assert_true(sl_secp_recover_short_id(hash, c->sigs, who));
			assert_true(known_key(w, who));
			in += x->in.amount;
		}
		for (uint32_t i = 0; i < u->base.nouts; i++)
			out += u->base.outs[i].out.amount;
		for (uint32_t i = 0; i < u->nstake; i++)
			out += u->stake[i].out.amount;
		for (uint32_t i = 0; i < u->nexported; i++)
			out += u->exported[i].out.amount;
		add_outs(r, tx->id, u->base.outs, u->base.nouts, 0);
	}
	switch (u->type_id) {
	case SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX:
	case SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX: {
		bool val = u->type_id == SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX;
		assert_memory_equal(u->subnet_id, (uint8_t[32]){ 0 }, 32);
		bool pending = check_start(w, u->start, t);
		assert_true(u->end - u->start >= w->params.min_stake_duration &&
			    u->end - u->start <= w->params.max_stake_duration);
		uint64_t staked = 0;
		for (uint32_t i = 0; i < u->nstake; i++)
			staked += u->stake[i].out.amount;
		assert_int_equal(staked, u->weight);
		assert_true(r->nst < SL_ARRAY_LEN(r->st));
		rstaker *s = &r->st[r->nst];
		*s = (rstaker){ .validator = val,
				.active = !pending,
				.pending = pending,
				.was_pending = pending,
				.prio = val ? 2 : 3,
				.accepted = t,
				.start = u->start,
				.end = u->end,
				.weight = u->weight,
				.shares = u->shares,
				.nouts = u->base.nouts,
				.nstake = u->nstake,
				.val = -1 };
		memcpy(s->tx_id, tx->id, 32);
		memcpy(s->node, u->node_id, 20);
		for (uint32_t i = 0; i < u->nstake && i < 4; i++) {
			s->stake_amt[i] = u->stake[i].out.amount;
			s->stake_lock[i] = u->stake[i].out.type_id == SL_T_STAKEABLE_LOCK_OUT
						   ? u->stake[i].out.lock_locktime
						   : 0;
			s->stake_owner[i] = owner_of(&u->stake[i].out.owners);
		}
		s->rewards = owner_of(&u->rewards_owner);
		if (val) {
			assert_true(u->weight >= w->params.min_validator_stake);
			assert_true(u->shares >= w->params.min_delegation_fee && u->shares <= 1000000);
			assert_int_equal(primary_validator(r, u->node_id), -1);
			assert_int_equal(u->signer.type_id, SL_P_SIGNER_POP);
			sl_bls_pk pk;
			check_pop(u->signer.public_key, u->signer.pop, &pk);
			s->delegation = owner_of(&u->delegation_owner);
		} else {
			assert_true(u->weight >= w->params.min_delegator_stake);
			s->val = primary_validator(r, u->node_id);
			assert_true(s->val >= 0);
			/* inside its validator's period (so, from Durango, a current validator) */
			assert_true(u->start >= r->st[s->val].start && u->end <= r->st[s->val].end);
		}
		if (!pending) {
			s->potential = sl_reward_calculate(rc(w), u->end - u->start, u->weight, r->supply);
			r->supply += s->potential;
		}
		r->nst++;
		break;
	}
	case SL_P_REWARD_VALIDATOR_TX: {
		assert_int_equal(tx->ncreds, 0);
		int found = -1;
		for (size_t i = 0; i < r->nst; i++)
			if (!memcmp(r->st[i].tx_id, u->tx_id, 32))
				found = (int)i;
		assert_true(found >= 0);
		assert_true(r->st[found].active);
		assert_int_equal(r->st[found].end, t);
		r->pending_reward = found;
		break;
	}
	case SL_P_CREATE_SUBNET_TX: {
		assert_true(r->nsn < SL_ARRAY_LEN(r->sn));
		rsubnet *s = &r->sn[r->nsn++];
		memcpy(s->id, tx->id, 32);
		s->own = owner_of(&u->owner);
		s->l1 = false;
		break;
	}
	case SL_P_CREATE_CHAIN_TX:
	case SL_P_ADD_SUBNET_VALIDATOR_TX:
	case SL_P_REMOVE_SUBNET_VALIDATOR_TX:
	case SL_P_TRANSFER_SUBNET_OWNERSHIP_TX:
	case SL_P_CONVERT_SUBNET_TO_L1_TX: {
		rsubnet *s = subnet_by_id(r, u->subnet_id);
		assert_false(s->l1);
		check_auth(hash, tx, &s->own);
		if (u->type_id == SL_P_TRANSFER_SUBNET_OWNERSHIP_TX)
			s->own = owner_of(&u->owner);
		if (u->type_id == SL_P_CREATE_CHAIN_TX) {
			json_error_t je;
			json_t *g = json_loadb((const char *)u->genesis.p, u->genesis.len, 0, &je);
			assert_non_null(g);
			assert_true(
				json_is_integer(json_object_get(json_object_get(g, "config"), "chainId")));
			assert_non_null(json_object_get(json_object_get(g, "config"), "feeConfig"));
			assert_true(json_object_size(json_object_get(g, "alloc")) > 0);
			json_decref(g);
		}
		if (u->type_id == SL_P_TRANSFER_SUBNET_OWNERSHIP_TX)
			assert_true(t >= w->params.durango_time);
		if (u->type_id == SL_P_CONVERT_SUBNET_TO_L1_TX)
			assert_true(t >= w->params.durango_time);
		if (u->type_id == SL_P_ADD_SUBNET_VALIDATOR_TX) {
			bool pending = check_start(w, u->start, t);
			assert_true(u->end - u->start >= w->params.min_stake_duration &&
				    u->end - u->start <= w->params.max_stake_duration);
			int v = primary_validator(r, u->node_id);
			assert_true(v >= 0);
			assert_true(u->start >= r->st[v].start && u->end <= r->st[v].end);
			if (pending) { /* kept only to check when it starts */
				assert_true(r->nst < SL_ARRAY_LEN(r->st));
				rstaker *x = &r->st[r->nst++];
				*x = (rstaker){ .validator = true,
						.permissioned = true,
						.pending = true,
						.was_pending = true,
						.prio = 6,
						.accepted = t,
						.start = u->start,
						.end = u->end,
						.val = -1 };
				memcpy(x->tx_id, tx->id, 32);
				memcpy(x->node, u->node_id, 20);
			}
		}
		if (u->type_id == SL_P_CONVERT_SUBNET_TO_L1_TX) {
			s->l1 = true;
			for (uint32_t i = 0; i < u->nvalidators; i++) {
				const sl_l1_validator *lv = &u->validators[i];
				if (i)
					assert_true(memcmp(u->validators[i - 1].node_id.p, lv->node_id.p,
							   20) < 0);
				rl1 *x = &r->l1[r->nl1++];
				*x = (rl1){ .weight = lv->weight,
					    .deposit = lv->balance,
					    .since = t,
					    .remaining = powner_of(&lv->remaining_balance_owner),
					    .disable = powner_of(&lv->deactivation_owner) };
				sl_pchain_l1_validation_id(u->subnet_id, i, x->vid);
				memcpy(x->subnet, u->subnet_id, 32);
				memcpy(x->node, lv->node_id.p, 20);
				check_pop(lv->public_key, lv->pop, &x->pk);
				sl_bls_pk_encode_raw(&x->pk, x->raw);
				burn += lv->balance;
			}
		}
		break;
	}
	case SL_P_REGISTER_L1_VALIDATOR_TX: {
		const uint8_t *subnet;
		sl_span pl = check_warp(r, u->message, t, &subnet);
		sl_warp_l1_msg lm;
		assert_int_equal(sl_warp_l1_decode(pl.p, pl.len, &lm, NULL), SL_OK);
		assert_int_equal(lm.type, SL_WARP_L1_REGISTER_VALIDATOR);
		assert_true(lm.expiry > t && lm.expiry <= t + DAY);
		rl1 *x = &r->l1[r->nl1++];
		*x = (rl1){ .weight = lm.weight, .deposit = u->balance, .since = t };
		memcpy(x->vid, lm.id, 32);
		memcpy(x->subnet, subnet, 32);
		memcpy(x->node, lm.node_id.p, 20);
		sl_pchain_owner ro = { lm.remaining_balance_owner.threshold,
				       lm.remaining_balance_owner.naddrs,
				       lm.remaining_balance_owner.addrs.p };
		sl_pchain_owner dw = { lm.disable_owner.threshold, lm.disable_owner.naddrs,
				       lm.disable_owner.addrs.p };
		x->remaining = powner_of(&ro);
		x->disable = powner_of(&dw);
		check_pop(lm.bls_public_key.p, u->pop, &x->pk);
		sl_bls_pk_encode_raw(&x->pk, x->raw);
		burn += u->balance;
		break;
	}
	case SL_P_SET_L1_VALIDATOR_WEIGHT_TX: {
		const uint8_t *subnet;
		sl_span pl = check_warp(r, u->message, t, &subnet);
		sl_warp_l1_msg lm;
		assert_int_equal(sl_warp_l1_decode(pl.p, pl.len, &lm, NULL), SL_OK);
		assert_int_equal(lm.type, SL_WARP_L1_VALIDATOR_WEIGHT);
		rl1 *x = l1_by_vid(r, lm.validation_id.p);
		assert_false(x->removed);
		if (lm.weight == 0) {
			uint64_t left = l1_bal(x, t);
			if (left)
				led_add_owner(r, tx->id, u->base.nouts, left, 0, &x->remaining);
			x->removed = true;
			x->weight = 0;
		} else {
			x->weight = lm.weight;
		}
		break;
	}
	case SL_P_INCREASE_L1_VALIDATOR_BALANCE_TX: {
		rl1 *x = l1_by_vid(r, u->validation_id);
		assert_false(x->removed);
		x->deposit = l1_bal(x, t) + u->balance;
		x->since = t;
		x->disabled = false;
		burn += u->balance;
		break;
	}
	case SL_P_DISABLE_L1_VALIDATOR_TX: {
		rl1 *x = l1_by_vid(r, u->validation_id);
		check_auth(hash, tx, &x->disable);
		uint64_t left = l1_bal(x, t);
		if (left)
			led_add_owner(r, tx->id, u->base.nouts, left, 0, &x->remaining);
		x->disabled = true;
		break;
	}
	case SL_P_EXPORT_TX: {
		assert_true(!memcmp(u->chain, w->chain[DN_X].id, 32) ||
			    !memcmp(u->chain, w->chain[DN_C].id, 32));
		/* in the destination's shared memory at len(outs) + i, accepted with this block */
		int dst = !memcmp(u->chain, w->chain[DN_X].id, 32) ? DN_X : DN_C;
		for (uint32_t i = 0; i < u->nexported; i++) {
			dn_utxo *e = dn_utxo_find(&w->shared[dst][DN_P], tx->id, u->base.nouts + i);
			assert_non_null(e);
			assert_int_equal(e->amount, u->exported[i].out.amount);
			assert_int_equal(e->avail, t);
		}
		break;
	}
	case SL_P_IMPORT_TX: {
		assert_true(!memcmp(u->chain, w->chain[DN_X].id, 32) ||
			    !memcmp(u->chain, w->chain[DN_C].id, 32));
		assert_true(u->nimported > 0);
		/* exports of an earlier second only (this small history never compacts shared memory) */
		int src = !memcmp(u->chain, w->chain[DN_X].id, 32) ? DN_X : DN_C;
		for (uint32_t i = 0; i < u->nimported; i++) {
			const sl_avax_in *x = &u->imported[i];
			dn_utxo *e = dn_utxo_find(&w->shared[DN_P][src], x->tx_id, x->output_index);
			assert_non_null(e);
			assert_true(e->spent);
			assert_int_equal(e->amount, x->in.amount);
			assert_true(e->avail < t);
		}
		break;
	}
	case SL_P_BASE_TX: break;
	default: fail_msg("unexpected tx type %u", u->type_id);
	}
	if (u->has_base)
		assert_true(in == out + fee_of(u->type_id) + burn);
}

static int promo_cmp(const void *x, const void *y)
{
	const rstaker *a = *(rstaker *const *)x, *b = *(rstaker *const *)y;
	if (a->prio != b->prio)
		return a->prio < b->prio ? -1 : 1;
	return memcmp(a->tx_id, b->tx_id, 32);
}

/*
 * A block at time t: no pending start lies before it (chain time stops at
 * each), and the stakers starting at t become current, in avalanchego's
 * pending order, each primary one with its potential reward from the supply
 * of that moment.
 */
static void replay_promote(replay *r, uint64_t t)
{
	rstaker *due[256];
	size_t n = 0;
	for (size_t i = 0; i < r->nst; i++) {
		rstaker *s = &r->st[i];
		if (!s->pending)
			continue;
		assert_true(s->start >= t);
		if (s->start == t) {
			assert_true(n < SL_ARRAY_LEN(due));
			due[n++] = s;
		}
	}
	qsort(due, n, sizeof *due, promo_cmp);
	for (size_t i = 0; i < n; i++) {
		rstaker *s = due[i];
		s->pending = false;
		s->active = true;
		if (s->permissioned)
			continue;
		s->potential = sl_reward_calculate(rc(r->w), s->end - s->start, s->weight, r->supply);
		r->supply += s->potential;
	}
}

/* The Commit/Abort of the pending RewardValidatorTx: stake back, rewards at their indices. */
static void replay_option(replay *r, bool commit)
{
	dn_world *w = r->w;
	assert_true(r->pending_reward >= 0);
	rstaker *s = &r->st[r->pending_reward];
	r->pending_reward = -1;
	for (uint32_t i = 0; i < s->nstake; i++)
		led_add_owner(r, s->tx_id, s->nouts + i, s->stake_amt[i], s->stake_lock[i],
			      &s->stake_owner[i]);
	uint32_t at = s->nouts + s->nstake;
	if (s->validator) {
		if (commit && s->potential)
			led_add_owner(r, s->tx_id, at++, s->potential, 0, &s->rewards);
		if (!commit)
			r->supply -= s->potential;
		if (s->accrued)
			led_add_owner(r, s->tx_id, at, s->accrued, 0, &s->delegation);
	} else {
		rstaker *v = &r->st[s->val];
		if (commit) {
			uint64_t fee, mine;
			sl_reward_split(s->potential, v->shares, &fee, &mine);
			if (mine)
				led_add_owner(r, s->tx_id, at++, mine, 0, &s->rewards);
			if (fee && v->start >= w->params.cortina_time)
				v->accrued += fee;
			else if (fee)
				led_add_owner(r, s->tx_id, at, fee, 0, &v->delegation);
		} else {
			r->supply -= s->potential;
		}
	}
	s->active = false;
}

/* An owner {locktime, threshold, addresses} of the manifest. */
static void owner_of_json(json_t *o, owner *out, uint64_t *locktime)
{
	memset(out, 0, sizeof *out);
	out->threshold = (uint32_t)json_integer_value(json_object_get(o, "threshold"));
	if (locktime)
		*locktime = (uint64_t)json_integer_value(json_object_get(o, "locktime"));
	size_t k;
	json_t *a;
	json_array_foreach(json_object_get(o, "addresses"), k, a)
	{
		const char *txt = json_string_value(a);
		char alias[8], hrp[SL_HRP_MAX_LEN + 1];
		assert_true(k < DN_MAX_OWNERS);
		assert_int_equal(sl_addr_parse(txt, strlen(txt), alias, sizeof alias, hrp, out->addrs[k]),
				 SL_OK);
		assert_string_equal(alias, "P");
		out->n++;
	}
}

static void id_of_json(json_t *v, uint8_t out[32])
{
	const char *t = json_string_value(v), *msg;
	char mb[96];
	assert_non_null(t);
	assert_int_equal(sl_cb58_decode_id(t, strlen(t), out, &msg, mb), SL_OK);
}

static uint64_t u64_of_json(json_t *v)
{
	const char *t = json_string_value(v);
	assert_non_null(t);
	return strtoull(t, NULL, 10);
}

/*
 * Genesis, from the manifest alone (P.genesis: the allocations and the
 * genesis validators with their stake and owners), checked against the
 * generator's UTXO set before the history; the genesis validators' potential
 * rewards recomputed from genesisSupply.
 */
static void replay_genesis(replay *r, sl_devnet *d)
{
	dn_world *w = r->w;
	r->pending_reward = -1;
	sl_buf m;
	sl_buf_init(&m, 1u << 28);
	sl_devnet_manifest_write(d, &m);
	json_error_t je;
	json_t *root = json_loadb((const char *)m.p, m.len, 0, &je);
	sl_buf_release(&m);
	assert_non_null(root);
	json_t *P = json_object_get(root, "P"), *gen = json_object_get(P, "genesis");
	uint8_t gid[32];
	id_of_json(json_object_get(P, "genesisTxId"), gid);
	size_t i;
	json_t *v;
	uint64_t total = 0;
	json_array_foreach(json_object_get(gen, "utxos"), i, v)
	{
		uint8_t tid[32], asset[32];
		id_of_json(json_object_get(v, "txId"), tid);
		id_of_json(json_object_get(v, "assetId"), asset);
		assert_memory_equal(tid, gid, 32);
		assert_memory_equal(asset, w->avax, 32);
		uint32_t index = (uint32_t)json_integer_value(json_object_get(v, "outputIndex"));
		uint32_t type = (uint32_t)json_integer_value(json_object_get(v, "typeId"));
		uint64_t amount = u64_of_json(json_object_get(v, "amount"));
		uint64_t lock = (uint64_t)json_integer_value(json_object_get(v, "stakeableLocktime"));
		owner o;
		uint64_t locktime;
		owner_of_json(v, &o, &locktime);
		assert_true(type == 7 || type == 22);
		assert_true(type == 22 || lock == 0);
		/* the same output in the generator's ledger, before the history */
		dn_utxo *u = dn_utxo_find(&w->utxos[DN_P], tid, index);
		assert_non_null(u);
		assert_int_equal(u->type_id, type);
		assert_int_equal(u->amount, amount);
		assert_int_equal(u->type_id == 22 ? u->stake_until : 0, lock);
		assert_int_equal(u->locktime, locktime);
		assert_int_equal(u->threshold, o.threshold);
		assert_int_equal(u->nowners, o.n);
		for (uint32_t k = 0; k < o.n; k++)
			assert_memory_equal(w->keys[u->owners[k]].addr, o.addrs[k], 20);
		led_add(&r->led, tid, index, amount, lock, locktime, o.threshold, o.n, &o.addrs[0][0]);
		total += amount;
	}
	assert_int_equal(i, w->utxos[DN_P].n);

	/* genesisSupply = these + the X-chain genesis outputs + the genesis stake */
	uint64_t xgen = 0;
	for (size_t k = 0; k < w->utxos[DN_X].n; k++)
		if (w->utxos[DN_X].v[k].type_id == 7 && !w->utxos[DN_X].v[k].spent)
			xgen += w->utxos[DN_X].v[k].amount;
	uint64_t genesis_supply = u64_of_json(json_object_get(P, "genesisSupply"));
	r->supply = genesis_supply;
	uint64_t stake = 0;
	json_array_foreach(json_object_get(gen, "validators"), i, v)
	{
		rstaker *s = &r->st[r->nst++];
		*s = (rstaker){ .validator = true, .active = true, .genesis = true, .val = -1 };
		const char *nid = json_string_value(json_object_get(v, "nodeId"));
		assert_int_equal(sl_nodeid_parse(nid, strlen(nid), s->node), SL_OK);
		id_of_json(json_object_get(v, "txId"), s->tx_id);
		s->start = (uint64_t)json_integer_value(json_object_get(v, "startTime"));
		s->end = (uint64_t)json_integer_value(json_object_get(v, "endTime"));
		s->shares = (uint32_t)json_integer_value(json_object_get(v, "delegationFee"));
		s->weight = u64_of_json(json_object_get(v, "weight"));
		owner_of_json(json_object_get(v, "rewardOwner"), &s->rewards, NULL);
		owner_of_json(json_object_get(v, "delegationRewardOwner"), &s->delegation, NULL);
		size_t k;
		json_t *o;
		uint64_t sum = 0;
		json_array_foreach(json_object_get(v, "stake"), k, o)
		{
			assert_true(k < 4);
			if (k == 0)
				s->nouts = (uint32_t)json_integer_value(json_object_get(o, "outputIndex"));
			assert_int_equal(json_integer_value(json_object_get(o, "outputIndex")), s->nouts + k);
			s->stake_amt[k] = u64_of_json(json_object_get(o, "amount"));
			json_t *lk = json_object_get(o, "stakeableLocktime");
			s->stake_lock[k] = (uint64_t)json_integer_value(lk);
			owner_of_json(json_object_get(o, "owner"), &s->stake_owner[k], NULL);
			sum += s->stake_amt[k];
			s->nstake++;
		}
		assert_int_equal(sum, s->weight);
		stake += sum;
		s->potential = sl_reward_calculate(rc(w), s->end - s->start, s->weight, r->supply);
		r->supply += s->potential;
	}
	assert_int_equal(genesis_supply, total + xgen + stake);
	assert_int_equal(r->supply, w->supply); /* the supply before the history */
	/* the same validators, with the same potential rewards, in the manifest's validator list */
	size_t g = 0;
	json_array_foreach(json_object_get(P, "validators"), i, v)
	{
		if (strcmp(json_string_value(json_object_get(v, "txType")), "AddValidatorTx"))
			continue;
		assert_true(g < r->nst);
		uint8_t tid[32];
		id_of_json(json_object_get(v, "txId"), tid);
		assert_memory_equal(tid, r->st[g].tx_id, 32);
		assert_int_equal(u64_of_json(json_object_get(v, "potentialReward")), r->st[g].potential);
		g++;
	}
	assert_int_equal(g, r->nst);
	json_decref(root);
}

static void record_vset(replay *r, uint64_t height)
{
	while (r->nvsets <= height) {
		struct vset *v = DN_PUSH(r->vsets, r->nvsets, r->capvsets);
		assert_non_null(v);
		*v = (struct vset){ .node = calloc(r->nst + 1, 20) };
		for (size_t i = 0; i < r->nst; i++)
			if (r->st[i].validator && !r->st[i].permissioned && r->st[i].active)
				memcpy(v->node[v->n++], r->st[i].node, 20);
	}
}

static void replay_history(replay *r, const sink *snk)
{
	record_vset(r, 0); /* the genesis validators */
	dn_world *w = r->w;
	uint8_t parent_outer[32], parent_inner[32];
	memset(parent_outer, 0, 32);
	uint64_t height = 0, last_time = w->cfg.start_time;
	bool expect_option = false;
	for (size_t i = 0; i < snk->n; i++) {
		const rec *c = &snk->v[i];
		sl_proposervm_block pb;
		assert_int_equal(sl_proposervm_block_decode(c->bytes, c->len, &pb, NULL), SL_OK);
		sl_buf re;
		sl_buf_init(&re, 1 << 22);
		assert_int_equal(sl_proposervm_block_encode(&pb, &re), SL_OK);
		assert_int_equal(re.len, c->len);
		assert_memory_equal(re.p, c->bytes, c->len);
		sl_buf_release(&re);
		if (i)
			assert_memory_equal(pb.parent_id.p, parent_outer, 32);
		memcpy(parent_outer, pb.id, 32);
		assert_int_equal(pb.kind == SL_PROPOSERVM_OPTION, expect_option);

		sl_arena a;
		sl_arena_init(&a, 64u << 20);
		sl_pchain_block b;
		sl_err_detail det;
		sl_err e = sl_pchain_block_decode(&a, pb.inner.p, pb.inner.len, &b, &det);
		if (e)
			fail_msg("block %zu: %s at %zu", i, det.msg, det.offset);
		sl_buf_init(&re, 1 << 22);
		assert_int_equal(sl_pchain_block_encode(&re, &b), SL_OK);
		assert_int_equal(re.len, pb.inner.len);
		assert_memory_equal(re.p, pb.inner.p, pb.inner.len);
		sl_buf_release(&re);

		assert_int_equal(b.height, height + 1);
		if (height)
			assert_memory_equal(b.parent_id, parent_inner, 32);
		if (pb.kind != SL_PROPOSERVM_OPTION) {
			assert_int_equal(pb.timestamp, (int64_t)b.time);
			assert_int_equal(pb.pchain_height, height);
		}
		assert_true(b.time >= last_time);
		assert_true(c->ts >= (int64_t)b.time * 1000000000);
		height = b.height;
		memcpy(parent_inner, b.id, 32);
		last_time = b.time;

		replay_promote(r, b.time);
		switch (b.type_id) {
		case SL_P_BANFF_STANDARD_BLOCK:
		case SL_P_BANFF_PROPOSAL_BLOCK:
			if (b.type_id == SL_P_BANFF_PROPOSAL_BLOCK && b.time < w->params.durango_time)
				assert_int_equal(b.ntxs,
						 0); /* the builder packs other txs with it from Durango */
			for (uint32_t k = 0; k < sl_pchain_block_tx_count(&b); k++)
				replay_tx(r, sl_pchain_block_tx_at(&b, k), b.time);
			if (b.type_id == SL_P_BANFF_PROPOSAL_BLOCK)
				assert_int_equal(b.tx->utx.type_id, SL_P_REWARD_VALIDATOR_TX);
			expect_option = b.type_id == SL_P_BANFF_PROPOSAL_BLOCK;
			break;
		case SL_P_BANFF_COMMIT_BLOCK:
		case SL_P_BANFF_ABORT_BLOCK:
			assert_true(expect_option);
			replay_option(r, b.type_id == SL_P_BANFF_COMMIT_BLOCK);
			expect_option = false;
			break;
		default: fail_msg("unexpected block type %u", b.type_id);
		}
		sl_arena_release(&a);
		record_vset(r, height);
	}
	assert_false(expect_option);
	assert_int_equal(height, w->chain[DN_P].height);
}

/*
 * Every signed proposervm block of P, X and C was proposed by a primary
 * validator current (in the replay, not the generator) at every P height
 * from its parent's pChainHeight to its own; blocks name only heights the
 * replay reached. Returns how many blocks were signed.
 */
static size_t check_proposers(replay *r, const sink *s)
{
	size_t nsigned = 0;
	for (size_t i = 0; i < s->nh; i++) {
		const phdr *h = &s->h[i];
		assert_true(h->lo <= h->hi && h->hi < r->nvsets);
		if (!h->has)
			continue;
		nsigned++;
		for (uint64_t k = h->lo; k <= h->hi; k++) {
			const struct vset *v = &r->vsets[k];
			bool in = false;
			for (size_t j = 0; j < v->n && !in; j++)
				in = !memcmp(v->node[j], h->node, 20);
			if (!in)
				fail_msg(
					"block %zu of chain %d: its proposer is no validator at P height %llu",
					i, h->chain, (unsigned long long)k);
		}
	}
	return nsigned;
}

/* The replayed UTXO set is the generator's. */
static void check_final(replay *r)
{
	dn_world *w = r->w;
	const dn_utxos *set = &w->utxos[DN_P];
	size_t live = 0;
	for (size_t i = 0; i < set->n; i++) {
		const dn_utxo *u = &set->v[i];
		lu *e = led_find(&r->led, u->tx_id, u->index);
		assert_non_null(e);
		assert_int_equal(e->spent, u->spent);
		assert_int_equal(e->amount, u->amount);
		live += !u->spent;
	}
	size_t rlive = 0;
	for (size_t i = 0; i < r->led.cap; i++)
		rlive += r->led.v[i].used && !r->led.v[i].spent;
	assert_int_equal(rlive, live);
	assert_int_equal(r->supply, w->supply);
}

/*
 * The manifest's stakers against the replay: start, pendingFrom (present iff
 * the staker was pending), "pending" status iff still pending, potential
 * rewards; and the counts pendingDuringHistory and pendingAtDurango.
 * Returns how many validators were still pending when Durango came.
 */
static size_t check_manifest_stakers(replay *r, json_t *pm)
{
	const dn_world *w = r->w;
	size_t found = 0, pending_ever = 0, at_durango = 0, val_at_durango = 0;
	const char *lists[] = { "validators", "delegators" };
	for (size_t l = 0; l < 2; l++) {
		size_t i;
		json_t *v;
		json_array_foreach(json_object_get(pm, lists[l]), i, v)
		{
			uint8_t tid[32];
			id_of_json(json_object_get(v, "txId"), tid);
			const char *status = json_string_value(json_object_get(v, "validationStatus"));
			json_t *pf = json_object_get(v, "pendingFrom");
			uint64_t start = (uint64_t)json_integer_value(json_object_get(v, "startTime"));
			if (pf) {
				uint64_t from = (uint64_t)json_integer_value(pf);
				pending_ever++;
				assert_true(from < start);
				if (from < w->params.durango_time && start > w->params.durango_time) {
					at_durango++;
					val_at_durango +=
						!strcmp(json_string_value(json_object_get(v, "txType")),
							"AddPermissionlessValidatorTx");
				}
			}
			if (!strcmp(status, "pending"))
				assert_non_null(pf);
			const rstaker *s = NULL;
			for (size_t k = 0; k < r->nst && !s; k++)
				if (!memcmp(r->st[k].tx_id, tid, 32))
					s = &r->st[k];
			if (!s) { /* a permissioned subnet validator that never was pending: not kept */
				assert_null(pf);
				continue;
			}
			found++;
			assert_int_equal(start, s->start);
			assert_int_equal(pf != NULL, s->was_pending);
			if (pf)
				assert_int_equal(json_integer_value(pf), s->accepted);
			assert_int_equal(!strcmp(status, "pending"), s->pending);
			json_t *pr = json_object_get(v, "potentialReward");
			if (s->permissioned || s->pending)
				assert_null(pr);
			else
				assert_int_equal(u64_of_json(pr), s->potential);
		}
	}
	size_t was = 0;
	for (size_t k = 0; k < r->nst; k++)
		was += r->st[k].was_pending;
	assert_int_equal(found, r->nst);
	assert_int_equal(pending_ever, was);
	assert_int_equal(json_integer_value(json_object_get(pm, "pendingDuringHistory")), pending_ever);
	assert_int_equal(json_integer_value(json_object_get(pm, "pendingAtDurango")), at_durango);
	return val_at_durango;
}

static sl_devnet *make(sink *s, const char *seed, uint64_t txs)
{
	sl_devnet_config cfg = { .seed = seed, .txs = txs, .accounts = 40, .validators = 5 };
	char err[256];
	sl_devnet *d = sl_devnet_new(&cfg, err);
	if (!d)
		fail_msg("sl_devnet_new: %s", err);
	memset(s, 0, sizeof *s);
	return d;
}

static void test_history_replays(void **state)
{
	(void)state;
	sink s;
	sl_devnet *d = make(&s, "pchain-test", 2000);
	replay *r = calloc(1, sizeof *r);
	assert_non_null(r);
	r->w = dn_world_of(d);
	replay_genesis(r, d);
	assert_int_equal(sl_devnet_history(d, sink_fn, &s), SL_OK);
	assert_true(s.n > 100);
	replay_history(r, &s);
	check_final(r);
	size_t nsigned = check_proposers(r, &s);
	print_message("%zu of %zu proposervm blocks signed by a replayed validator\n", nsigned, s.nh);
	assert_true(nsigned > s.nh / 3);

	/* Every type of the mix, with realistic weight on transfers and staking. */
	static const uint32_t must[] = {
		SL_P_BASE_TX,
		SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX,
		SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX,
		SL_P_REWARD_VALIDATOR_TX,
		SL_P_EXPORT_TX,
		SL_P_IMPORT_TX,
		SL_P_CREATE_SUBNET_TX,
		SL_P_CREATE_CHAIN_TX,
		SL_P_ADD_SUBNET_VALIDATOR_TX,
		SL_P_REMOVE_SUBNET_VALIDATOR_TX,
		SL_P_TRANSFER_SUBNET_OWNERSHIP_TX,
		SL_P_CONVERT_SUBNET_TO_L1_TX,
		SL_P_REGISTER_L1_VALIDATOR_TX,
		SL_P_SET_L1_VALIDATOR_WEIGHT_TX,
		SL_P_INCREASE_L1_VALIDATOR_BALANCE_TX,
		SL_P_DISABLE_L1_VALIDATOR_TX,
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(must); i++)
		if (!r->counts[must[i]])
			fail_msg("no %s in the history", sl_pchain_type_name(must[i]));
	assert_true(r->counts[SL_P_BASE_TX] > r->counts[SL_P_CREATE_SUBNET_TX] * 5);
	uint64_t total = 0;
	for (size_t i = 0; i < 64; i++)
		total += r->counts[i];
	assert_int_equal(total, r->w->chain[DN_P].txs);
	/* About a fifth of the history is on the P-chain (plus reward txs). */
	assert_true(total >= 2000 / 5 && total <= 2000 / 5 * 2);

	/* The manifest shows every status we model and the tx counts. */
	sl_buf m;
	sl_buf_init(&m, 1u << 28);
	sl_devnet_manifest_write(d, &m);
	json_error_t je;
	json_t *root = json_loadb((const char *)m.p, m.len, 0, &je);
	assert_non_null(root);
	json_t *pm = json_object_get(root, "P");
	assert_int_equal(json_integer_value(json_object_get(root, "durangoTime")), r->w->params.durango_time);
	/* stakers were pending before Durango, validators among them still when it came */
	assert_true(json_integer_value(json_object_get(pm, "pendingDuringHistory")) > 0);
	assert_true(check_manifest_stakers(r, pm) > 0);
	bool seen[3] = { false };
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(pm, "validators"), i, v)
	{
		const char *st = json_string_value(json_object_get(v, "validationStatus"));
		seen[0] |= !strcmp(st, "completed");
		seen[1] |= !strcmp(st, "active");
		seen[2] |= !strcmp(st, "removed");
	}
	assert_true(seen[0] && seen[1] && seen[2]);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(pm, "txCounts"), "BaseTx")),
			 r->counts[SL_P_BASE_TX]);
	assert_true(json_array_size(json_object_get(pm, "l1Validators")) > 0);
	assert_true(json_object_size(json_object_get(pm, "balances")) > 0);
	json_decref(root);
	sl_buf_release(&m);

	for (size_t k = 0; k < r->nvsets; k++)
		free(r->vsets[k].node);
	free(r->vsets);
	free(r->led.v);
	free(r->imported.v);
	free(r);
	sink_free(&s);
	sl_devnet_free(d);
}

/*
 * A history cut 3 days after genesis (P-chain steps only): validators and
 * delegators accepted in the last days still wait for their start, and the
 * manifest shows them "pending" (start after endTime, no potential reward
 * yet, their stake counted as staked); the replay agrees.
 */
static void test_pending_at_the_end(void **state)
{
	(void)state;
	sink s;
	sl_devnet *d = make(&s, "pchain-pending", 2000);
	dn_world *w = dn_world_of(d);
	replay *r = calloc(1, sizeof *r);
	assert_non_null(r);
	r->w = w;
	replay_genesis(r, d);
	w->sink = sink_fn;
	w->sink_ctx = &s;
	for (uint64_t i = 1; i <= 12; i++) {
		uint64_t until = w->cfg.start_time + 3 * DAY * i / 12;
		w->now = until;
		assert_int_equal(dn_p_step(w, until, 30), SL_OK);
		assert_int_equal(w->sink_err, SL_OK);
	}
	replay_history(r, &s);
	check_final(r);

	sl_buf m;
	sl_buf_init(&m, 1u << 28);
	sl_devnet_manifest_write(d, &m);
	json_error_t je;
	json_t *root = json_loadb((const char *)m.p, m.len, 0, &je);
	assert_non_null(root);
	uint64_t end = (uint64_t)json_integer_value(json_object_get(root, "endTime"));
	assert_int_equal(end, w->cfg.start_time + 3 * DAY);
	json_t *pm = json_object_get(root, "P");
	check_manifest_stakers(r, pm);
	size_t pending = 0, pending_val = 0, i;
	json_t *v;
	uint64_t staked_want = 0, staked = 0;
	const char *lists[] = { "validators", "delegators" };
	for (size_t l = 0; l < 2; l++)
		json_array_foreach(json_object_get(pm, lists[l]), i, v)
		{
			const char *st = json_string_value(json_object_get(v, "validationStatus"));
			bool primary = strcmp(json_string_value(json_object_get(v, "txType")),
					      "AddSubnetValidatorTx");
			if (primary && (!strcmp(st, "pending") || !strcmp(st, "active")))
				staked_want += u64_of_json(json_object_get(v, "weight"));
			if (strcmp(st, "pending"))
				continue;
			pending++;
			pending_val += l == 0 && primary;
			assert_true((uint64_t)json_integer_value(json_object_get(v, "startTime")) > end);
			assert_true((uint64_t)json_integer_value(json_object_get(v, "pendingFrom")) <= end);
		}
	assert_true(pending_val > 0);
	const char *k;
	json_object_foreach(json_object_get(pm, "balances"), k, v)
	{
		staked += u64_of_json(json_object_get(v, "staked"));
	}
	/* stake has one owner here, so the addresses' staked sum to the current and pending stake */
	assert_int_equal(staked, staked_want);
	json_decref(root);
	sl_buf_release(&m);
	for (size_t vi = 0; vi < r->nvsets; vi++)
		free(r->vsets[vi].node);
	free(r->vsets);
	free(r->led.v);
	free(r->imported.v);
	free(r);
	sink_free(&s);
	sl_devnet_free(d);
}

static void test_same_seed_same_bytes(void **state)
{
	(void)state;
	sink a, b, c;
	sl_devnet *d1 = make(&a, "same", 600);
	sl_devnet *d2 = make(&b, "same", 600);
	sl_devnet *d3 = make(&c, "other", 600);
	assert_int_equal(sl_devnet_history(d1, sink_fn, &a), SL_OK);
	assert_int_equal(sl_devnet_history(d2, sink_fn, &b), SL_OK);
	assert_int_equal(sl_devnet_history(d3, sink_fn, &c), SL_OK);
	assert_int_equal(a.count, b.count);
	assert_memory_equal(a.digest, b.digest, 32);
	assert_memory_not_equal(a.digest, c.digest, 32);
	/* Live steps keep the chain going and stay deterministic. */
	for (int i = 0; i < 5; i++) {
		assert_int_equal(sl_devnet_step(d1, 30, sink_fn, &a), SL_OK);
		assert_int_equal(sl_devnet_step(d2, 30, sink_fn, &b), SL_OK);
	}
	assert_memory_equal(a.digest, b.digest, 32);
	sink_free(&a);
	sink_free(&b);
	sink_free(&c);
	sl_devnet_free(d1);
	sl_devnet_free(d2);
	sl_devnet_free(d3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history_replays),
		cmocka_unit_test(test_pending_at_the_end),
		cmocka_unit_test(test_same_seed_same_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
