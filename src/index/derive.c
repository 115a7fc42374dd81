/*
 * derive.c — containers to rows (derive.h has the rules).
 */
#include "index/derive.h"

#include "codec/formats.h"

#include "codec/atomic.h"
#include "codec/coreth.h"
#include "codec/l1.h"
#include "codec/pchain.h"
#include "codec/proposervm.h"
#include "codec/xchain.h"

#define BATCH_ARENA_MAX (512u << 20)

/* ---- the batch ---------------------------------------------------------------- */

void ix_batch_init(ix_batch *b, sl_ikind kind)
{
	*b = (ix_batch){ .kind = kind };
	sl_arena_init(&b->arena, BATCH_ARENA_MAX);
	sl_buf_init(&b->data, 0);
}

void ix_batch_release(ix_batch *b)
{
	free(b->blocks.v);
	free(b->txs.v);
	free(b->outs.v);
	free(b->spends.v);
	free(b->acts.v);
	free(b->vertices.v);
	free(b->assets.v);
	free(b->asset_txs.v);
	free(b->stakers.v);
	free(b->stake_ends.v);
	free(b->pevents.v);
	free(b->l1_txs.v);
	sl_arena_release(&b->arena);
	sl_buf_release(&b->data);
	*b = (ix_batch){ 0 };
}

void ix_batch_clear(ix_batch *b)
{
	b->blocks.n = b->txs.n = b->outs.n = b->spends.n = b->acts.n = b->vertices.n = 0;
	b->assets.n = b->asset_txs.n = b->stakers.n = b->stake_ends.n = b->pevents.n = b->l1_txs.n = 0;
	sl_arena_release(&b->arena);
	sl_arena_init(&b->arena, BATCH_ARENA_MAX);
	sl_buf_reset(&b->data);
	b->first = b->next = b->txs_total = 0;
	memset(b->last_id, 0, sizeof b->last_id);
	b->err = SL_OK;
}

void *ix_vec_push(ix_batch *b, void *vec, size_t elem)
{
	struct {
		uint8_t *v;
		size_t n, cap;
	} *x = vec;
	if (b->err)
		return NULL;
	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 64;
		uint8_t *p = realloc(x->v, cap * elem);
		if (!p) {
			b->err = SL_ERR_NOMEM;
			return NULL;
		}
		x->v = p;
		x->cap = cap;
	}
	uint8_t *slot = x->v + x->n++ * elem;
	memset(slot, 0, elem);
	return slot;
}

/* ---- helpers ------------------------------------------------------------------ */

static int64_t secs(int64_t ns) { return ns / 1000000000; }

/* The chain an id names, or -1. */
static int chain_of(const ix_net *net, const uint8_t *id)
{
	for (int c = 0; c < 3; c++)
		if (!memcmp(net->chain_id[c], id, 32))
			return c;
	return -1;
}

/* A tx's bytes with the codec version in front (txs inside blocks are stored without it). */
static sl_span versioned(ix_batch *b, sl_span tx)
{
	uint8_t *p = sl_arena_alloc(&b->arena, tx.len + 2);
	if (!p) {
		b->err = SL_ERR_NOMEM;
		return (sl_span){ 0 };
	}
	p[0] = p[1] = 0;
	memcpy(p + 2, tx.p, tx.len);
	return sl_span_of(p, tx.len + 2);
}

static void add_tx(ix_batch *b, const ix_where *at, const uint8_t *id, sl_span bytes)
{
	ix_tx *t = IX_PUSH(b, b->txs);
	if (t) {
		t->at = *at;
		t->id = id;
		t->bytes = bytes;
	}
	b->txs_total++;
}

static void add_act(ix_batch *b, uint8_t space, const ix_where *at, const uint8_t *addrs, uint32_t naddrs)
{
	for (uint32_t i = 0; i < naddrs; i++) {
		ix_act *a = IX_PUSH(b, b->acts);
		if (!a)
			return;
		*a = (ix_act){ space, addrs + 20 * (size_t)i, at->seq, at->ts, at->type };
	}
}

static void add_spend(ix_batch *b, const ix_where *at, const uint8_t *tx, uint32_t in, const uint8_t *src_tx,
		      uint32_t src_idx)
{
	ix_spend *s = IX_PUSH(b, b->spends);
	if (!s)
		return;
	sl_avax_utxo_id(src_tx, src_idx, s->id);
	s->at = *at;
	s->tx = tx;
	s->src_tx = src_tx;
	s->in = in;
}

/* A UTXO made by tx at `at`, spent on dest; owners are the output's. Returns it for extras. */
static ix_out *add_out(ix_batch *b, const ix_where *at, const uint8_t *tx, uint32_t idx, uint8_t dest,
		       const uint8_t *asset, const sl_output *o)
{
	ix_out *u = IX_PUSH(b, b->outs);
	if (!u)
		return NULL;
	sl_avax_utxo_id(tx, idx, u->id);
	u->tx = tx;
	u->idx = idx;
	u->pos = at->seq;
	u->dest = dest;
	u->at = *at;
	u->asset = asset;
	u->amount = o->amount;
	u->otype = o->type_id;
	u->locktime = o->owners.locktime;
	u->stake_lock = o->type_id == SL_T_STAKEABLE_LOCK_OUT ? o->lock_locktime : 0;
	u->threshold = o->owners.threshold;
	u->naddrs = o->owners.naddrs;
	u->addrs = o->owners.addrs;
	u->group_id = o->group_id;
	u->payload = o->payload;
	/* the tx took part in its outputs' owners' activity, on its own chain */
	add_act(b, at->chain, at, o->owners.addrs, o->owners.naddrs);
	return u;
}

/* A tx's entries are pushed together, most of them of one asset (an X-chain tx's AVAX inputs and
 * outputs: four or more a tx on the devnet); the few last ones are looked at, so each asset of a
 * tx is written once (the store ignores the rest, at the cost of a B-tree descent each). */
#define IX_ASSET_TX_RECENT 8

static void add_asset_tx(ix_batch *b, const ix_where *at, const uint8_t *asset)
{
	size_t n = b->asset_txs.n, stop = n > IX_ASSET_TX_RECENT ? n - IX_ASSET_TX_RECENT : 0;
	for (size_t i = n; i-- > stop && b->asset_txs.v[i].seq == at->seq;)
		if (!memcmp(b->asset_txs.v[i].asset, asset, 32))
			return;
	ix_asset_tx *a = IX_PUSH(b, b->asset_txs);
	if (a)
		*a = (ix_asset_tx){ asset, at->seq, at->ts, at->type };
}

/* An owner as a blob: threshold u32 | locktime u64 | addresses. */
static sl_span owner_blob(ix_batch *b, const sl_owners *o)
{
	size_t n = 12 + 20 * (size_t)o->naddrs;
	uint8_t *p = sl_arena_alloc(&b->arena, n);
	if (!p) {
		b->err = SL_ERR_NOMEM;
		return (sl_span){ 0 };
	}
	sl_put_be32(p, o->threshold);
	sl_put_be64(p + 4, o->locktime);
	if (o->naddrs)
		memcpy(p + 12, o->addrs, 20 * (size_t)o->naddrs);
	return sl_span_of(p, n);
}

/* An owner without locktime (ACP-77's PChainOwner) as the same blob. */
static sl_span owner_blob2(ix_batch *b, uint32_t threshold, uint32_t naddrs, const uint8_t *addrs)
{
	sl_owners o = { .threshold = threshold, .naddrs = naddrs, .addrs = addrs };
	return owner_blob(b, &o);
}

static const uint8_t primary_subnet[32];

/* A block's proposervm wrapper. Its id is copied into the batch: the decoded wrapper is the
 * caller's local, gone before the batch is written. */
static bool wrap(ix_batch *b, ix_block *blk, const sl_proposervm_block *outer)
{
	uint8_t *id = sl_arena_alloc(&b->arena, 32);
	if (!id) {
		b->err = SL_ERR_NOMEM;
		return false;
	}
	memcpy(id, outer->id, 32);
	blk->wrapped = true;
	blk->vm_id = id;
	blk->vm_parent = outer->parent_id.p;
	blk->has_proposer = outer->has_proposer;
	memcpy(blk->proposer, outer->proposer, 20);
	blk->vm_height = outer->pchain_height;
	blk->vm_ts = outer->timestamp;
	return true;
}

/* ---- P-chain ------------------------------------------------------------------ */

static ix_pevent *add_pevent(ix_batch *b, ix_pe_kind kind, const ix_where *at, const uint8_t *id)
{
	ix_pevent *e = IX_PUSH(b, b->pevents);
	if (e) {
		e->kind = kind;
		e->at = *at;
		e->id = id;
		e->tx = id;
	}
	return e;
}

/*
 * What a tx changes of the P-chain's subnets, chains and L1 validators, and
 * the l1_txs rows of every validation it is about. `id` is the tx id, nouts
 * its base outputs (a refund follows them).
 */
static sl_err p_state(ix_batch *b, const sl_pchain_utx *u, const uint8_t *id, const ix_where *at,
		      uint32_t nouts, char err[256])
{
	ix_pevent *e = NULL;
	switch (u->type_id) {
	case SL_P_CREATE_SUBNET_TX:
		if ((e = add_pevent(b, IX_PE_SUBNET, at, id)))
			e->owner = owner_blob(b, &u->owner);
		break;
	case SL_P_TRANSFER_SUBNET_OWNERSHIP_TX:
		if ((e = add_pevent(b, IX_PE_OWNER, at, u->subnet_id)))
			e->owner = owner_blob(b, &u->owner);
		break;
	case SL_P_CREATE_CHAIN_TX:
		if ((e = add_pevent(b, IX_PE_CHAIN, at, id))) {
			e->subnet = u->subnet_id;
			e->name = u->chain_name;
			e->vm = u->vm_id;
			e->genesis = u->genesis;
		}
		break;
	case SL_P_CONVERT_SUBNET_TO_L1_TX:
		if ((e = add_pevent(b, IX_PE_CONVERT, at, id))) {
			e->subnet = u->subnet_id;
			e->manager_chain = u->manager_chain_id;
			e->manager_addr = u->manager_address;
		}
		for (uint32_t i = 0; i < u->nvalidators; i++) {
			const sl_l1_validator *v = &u->validators[i];
			uint8_t *vid = sl_arena_alloc(&b->arena, 32);
			if (!vid || !(e = add_pevent(b, IX_PE_L1_ADD, at, vid)))
				return b->err = SL_ERR_NOMEM;
			sl_pchain_l1_validation_id(u->subnet_id, i, vid);
			e->tx = id;
			e->subnet = u->subnet_id;
			e->node = v->node_id;
			e->weight = v->weight;
			e->amount = v->balance;
			e->bls_key = v->public_key;
			e->owner = owner_blob2(b, v->remaining_balance_owner.threshold,
					       v->remaining_balance_owner.naddrs,
					       v->remaining_balance_owner.addrs);
			e->owner2 = owner_blob2(b, v->deactivation_owner.threshold,
						v->deactivation_owner.naddrs, v->deactivation_owner.addrs);
		}
		break;
	case SL_P_REGISTER_L1_VALIDATOR_TX:
	case SL_P_SET_L1_VALIDATOR_WEIGHT_TX: {
		sl_warp_l1_msg m;
		bool reg = u->type_id == SL_P_REGISTER_L1_VALIDATOR_TX;
		if (sl_l1_tx_message(u, &m) ||
		    m.type != (reg ? SL_WARP_L1_REGISTER_VALIDATOR : SL_WARP_L1_VALIDATOR_WEIGHT) ||
		    (reg ? m.subnet_id.len != 32 || m.bls_public_key.len != 48 : m.validation_id.len != 32)) {
			snprintf(err, 256,
				 "%s at height %llu: its warp message is not the L1 message it needs",
				 reg ? "RegisterL1ValidatorTx" : "SetL1ValidatorWeightTx",
				 (unsigned long long)at->height);
			return SL_ERR_INVALID;
		}
		uint8_t *vid = sl_arena_alloc(&b->arena, 32);
		if (!vid || !(e = add_pevent(b, reg ? IX_PE_L1_ADD : IX_PE_L1_WEIGHT, at, vid)))
			return b->err = SL_ERR_NOMEM;
		memcpy(vid, reg ? m.id : m.validation_id.p, 32);
		e->tx = id;
		e->weight = m.weight;
		e->nouts = nouts;
		if (reg) {
			e->subnet = m.subnet_id.p;
			e->node = m.node_id;
			e->amount = u->balance;
			e->bls_key = m.bls_public_key.p;
			e->owner = owner_blob2(b, m.remaining_balance_owner.threshold,
					       m.remaining_balance_owner.naddrs,
					       m.remaining_balance_owner.addrs.p);
			e->owner2 = owner_blob2(b, m.disable_owner.threshold, m.disable_owner.naddrs,
						m.disable_owner.addrs.p);
		} else {
			e->nonce = m.nonce;
		}
		break;
	}
	case SL_P_INCREASE_L1_VALIDATOR_BALANCE_TX:
	case SL_P_DISABLE_L1_VALIDATOR_TX: {
		bool inc = u->type_id == SL_P_INCREASE_L1_VALIDATOR_BALANCE_TX;
		if (!(e = add_pevent(b, inc ? IX_PE_L1_BALANCE : IX_PE_L1_DISABLE, at, u->validation_id)))
			return b->err;
		e->tx = id;
		e->amount = u->balance;
		e->nouts = nouts;
		break;
	}
	default: return b->err;
	}
	/* every validation the tx is about, for the l1ValidationId filter */
	uint8_t one[1][32];
	uint8_t(*vids)[32] = one;
	size_t max = 1;
	if (u->type_id == SL_P_CONVERT_SUBNET_TO_L1_TX) {
		max = u->nvalidators;
		if (!max || !(vids = sl_arena_array(&b->arena, max, 32)))
			return max ? (b->err = SL_ERR_NOMEM) : b->err;
	}
	size_t n = sl_l1_validation_ids(u, vids, max);
	for (size_t i = 0; i < n; i++) {
		uint8_t *vid = vids == one ? sl_arena_alloc(&b->arena, 32) : vids[i];
		ix_l1_tx *l = IX_PUSH(b, b->l1_txs);
		if (!vid || !l)
			return b->err = SL_ERR_NOMEM;
		if (vids == one)
			memcpy(vid, one[0], 32);
		*l = (ix_l1_tx){ vid, at->seq, at->ts, at->type };
	}
	return b->err;
}

static bool is_staking(uint32_t t)
{
	return t == SL_P_ADD_VALIDATOR_TX || t == SL_P_ADD_DELEGATOR_TX ||
	       t == SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX || t == SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX;
}

/*
 * The effects of one P-chain tx. `staked` is false only for a staking tx of an
 * Apricot proposal block that was aborted: its inputs were consumed and its
 * stake came back at once, as ordinary outputs.
 */
static sl_err p_tx(ix_batch *b, const ix_ctx *ctx, const sl_pchain_tx *tx, const ix_where *at, bool committed,
		   char err[256])
{
	const sl_pchain_utx *u = &tx->utx;
	const uint8_t *id = sl_arena_alloc(&b->arena, 32);
	if (!id)
		return b->err = SL_ERR_NOMEM;
	memcpy((uint8_t *)id, tx->id, 32);
	add_tx(b, at, id, versioned(b, tx->bytes));
	uint32_t in = 0;
	if (u->has_base) {
		for (uint32_t i = 0; i < u->base.nins; i++)
			add_spend(b, at, id, in++, u->base.ins[i].tx_id, u->base.ins[i].output_index);
		for (uint32_t i = 0; i < u->base.nouts; i++)
			add_out(b, at, id, i, IX_P, u->base.outs[i].asset_id, &u->base.outs[i].out);
	}
	uint32_t nouts = u->has_base ? u->base.nouts : 0;
	switch (u->type_id) {
	case SL_P_IMPORT_TX:
		for (uint32_t i = 0; i < u->nimported; i++)
			add_spend(b, at, id, in++, u->imported[i].tx_id, u->imported[i].output_index);
		break;
	case SL_P_EXPORT_TX: {
		int dest = chain_of(ctx->net, u->chain);
		if (dest < 0) {
			snprintf(err, 256, "ExportTx to a chain that is not X or C");
			return SL_ERR_UNSUPPORTED;
		}
		for (uint32_t i = 0; i < u->nexported; i++)
			add_out(b, at, id, nouts + i, (uint8_t)dest, u->exported[i].asset_id,
				&u->exported[i].out);
		break;
	}
	case SL_P_CREATE_SUBNET_TX:
	case SL_P_TRANSFER_SUBNET_OWNERSHIP_TX: add_act(b, IX_P, at, u->owner.addrs, u->owner.naddrs); break;
	case SL_P_CONVERT_SUBNET_TO_L1_TX:
		for (uint32_t i = 0; i < u->nvalidators; i++) {
			add_act(b, IX_P, at, u->validators[i].remaining_balance_owner.addrs,
				u->validators[i].remaining_balance_owner.naddrs);
			add_act(b, IX_P, at, u->validators[i].deactivation_owner.addrs,
				u->validators[i].deactivation_owner.naddrs);
		}
		break;
	case SL_P_REWARD_VALIDATOR_TX: {
		ix_stake_end *e = IX_PUSH(b, b->stake_ends);
		if (!e)
			return b->err;
		e->staking_tx = u->tx_id;
		e->end_tx = id;
		e->at = *at;
		e->committed = committed;
		ix_pevent *pe = add_pevent(b, IX_PE_REWARD, at, u->tx_id);
		if (pe)
			pe->committed = committed;
		if (ctx->rewards) { /* an abort may still pay (delegation fees since Cortina) */
			sl_err r = ctx->rewards(ctx->rewards_ctx, u->tx_id, b, &e->rewards, &e->nrewards);
			if (r) {
				snprintf(err, 256, "cannot get the reward UTXOs of a staking tx: %s",
					 sl_err_name(r));
				return r;
			}
		}
		break;
	}
	case SL_P_REMOVE_SUBNET_VALIDATOR_TX: {
		ix_pevent *pe = add_pevent(b, IX_PE_REMOVE, at, id);
		if (pe) {
			pe->subnet = u->subnet_id;
			pe->node = sl_span_of(u->node_id, 20);
		}
		break;
	}
	case SL_P_ADVANCE_TIME_TX:
		/* before Banff, chain time moved only by this proposal, when committed */
		if (committed && u->time <= INT64_MAX) {
			ix_where t = *at;
			t.ts = (int64_t)u->time;
			add_pevent(b, IX_PE_TIME, &t, NULL);
		}
		break;
	default: break;
	}
	if (is_staking(u->type_id) || u->type_id == SL_P_ADD_SUBNET_VALIDATOR_TX) {
		/* Before Durango a staker waits pending until its start; from it, it starts when accepted. */
		uint64_t start = u->start > (uint64_t)at->ts ? u->start : (uint64_t)at->ts;
		for (uint32_t i = 0; i < u->nstake; i++) {
			ix_out *o =
				add_out(b, at, id, nouts + i, IX_P, u->stake[i].asset_id, &u->stake[i].out);
			if (o && committed) {
				o->staked = true;
				o->stake_start = start;
				o->stake_end = u->end;
			}
		}
		if (committed) {
			ix_staker *s = IX_PUSH(b, b->stakers);
			if (!s)
				return b->err;
			*s = (ix_staker){ .tx = id,
					  .seq = at->seq,
					  .type = u->type_id,
					  .node = u->node_id,
					  .subnet = u->subnet_id ? u->subnet_id : primary_subnet,
					  .start = start,
					  .end = u->end,
					  .weight = u->weight,
					  .has_fee = u->type_id == SL_P_ADD_VALIDATOR_TX ||
						     u->type_id == SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX,
					  .fee = u->shares,
					  .nouts = nouts,
					  .nstake = u->nstake,
					  .accepted_ts = at->ts };
			if (u->type_id != SL_P_ADD_SUBNET_VALIDATOR_TX)
				s->rewards_owner = owner_blob(b, &u->rewards_owner);
			if (u->type_id == SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX) {
				s->delegation_owner = owner_blob(b, &u->delegation_owner);
				if (u->signer.type_id == SL_P_SIGNER_POP) {
					s->bls_key = u->signer.public_key;
					s->bls_pop = u->signer.pop;
				}
			}
			/* it joins the validator set, and a primary one's potential reward is fixed, when
			 * it starts (write.c) */
			ix_pevent *pe = add_pevent(b, IX_PE_STAKER, at, id);
			if (!pe)
				return b->err;
			pe->subnet = s->subnet;
			pe->node = sl_span_of(s->node, 20);
			pe->bls_key = s->bls_key;
			pe->weight = u->weight;
			pe->start = start;
			pe->end = u->end;
		}
		add_act(b, IX_P, at, u->rewards_owner.addrs, u->rewards_owner.naddrs);
		add_act(b, IX_P, at, u->delegation_owner.addrs, u->delegation_owner.naddrs);
	}
	if (b->err)
		return b->err;
	return p_state(b, u, id, at, nouts, err);
}

static bool is_option(uint32_t t)
{
	return t == SL_P_APRICOT_ABORT_BLOCK || t == SL_P_APRICOT_COMMIT_BLOCK ||
	       t == SL_P_BANFF_ABORT_BLOCK || t == SL_P_BANFF_COMMIT_BLOCK;
}
static bool is_commit(uint32_t t) { return t == SL_P_APRICOT_COMMIT_BLOCK || t == SL_P_BANFF_COMMIT_BLOCK; }

void ix_pstate_release(ix_pstate *p)
{
	free(p->tx);
	*p = (ix_pstate){ 0 };
}

/* The decision tx of the proposal block before, as the option block decides it. */
static sl_err p_decide(ix_batch *b, const ix_ctx *ctx, const sl_pchain_block *opt, char err[256])
{
	ix_pstate *ps = ctx->p;
	if (!ps->pending)
		return SL_OK;
	if (memcmp(opt->parent_id, ps->block, 32)) {
		snprintf(err, 256, "option block at height %llu does not follow the proposal block before it",
			 (unsigned long long)opt->height);
		return SL_ERR_INVALID;
	}
	/* decode a copy in the batch's arena: the rows point into it */
	uint8_t *copy = sl_arena_alloc(&b->arena, ps->tx_len);
	if (!copy)
		return b->err = SL_ERR_NOMEM;
	memcpy(copy, ps->tx, ps->tx_len);
	sl_dec d;
	sl_dec_init(&d, &b->arena, copy, ps->tx_len);
	sl_pchain_tx tx;
	sl_pchain_tx_read(&d, &tx);
	sl_err_detail det;
	sl_err e = sl_dec_finish(&d, &det);
	if (e) {
		snprintf(err, 256, "the proposal's tx does not decode: %s", det.msg);
		return e;
	}
	ix_where at = { .chain = IX_P,
			.in_block = true,
			.height = ps->height,
			.effective = ps->height + 1,
			.ts = ps->ts,
			.seq = IX_SEQ_BLOCK(ps->height, ps->pos),
			.type = tx.utx.type_id };
	uint8_t *blk = sl_arena_alloc(&b->arena, 32);
	if (!blk)
		return b->err = SL_ERR_NOMEM;
	memcpy(blk, ps->block, 32);
	at.block = blk;
	ps->pending = false;
	return p_tx(b, ctx, &tx, &at, is_commit(opt->type_id), err);
}

/*
 * A container through the codec's table of what each index may hold
 * (codec/formats.h), as `snowline decode` reads it: the proposervm wrapper
 * when there is one, then the inner block.
 */
static sl_err decode(ix_batch *b, const ix_ctx *ctx, const sl_ixitem *c, sl_container_fmts set,
		     sl_decoded_container *out, char err[256])
{
	sl_fmt_attempt at;
	sl_err e = sl_container_decode(&b->arena, set, c->bytes, c->len, ctx->net->network_id, out, &at);
	if (e) {
		char line[200];
		sl_fmt_attempt_describe(&at, line, sizeof line);
		snprintf(err, 256, "%s", line);
	}
	return e;
}

static sl_err p_block_txs(ix_batch *b, const ix_ctx *ctx, const sl_pchain_block *pb, const uint8_t *hash,
			  int64_t ts, char err[256]);

static sl_err p_block(ix_batch *b, const ix_ctx *ctx, const sl_ixitem *c, char err[256])
{
	sl_decoded_container dc;
	sl_err e = decode(b, ctx, c, SL_CONTAINER_P_BLOCK, &dc, err);
	if (e)
		return e;
	const sl_pchain_block pb = dc.value.v.pblock;
	const sl_proposervm_block *outer = dc.wrapped ? &dc.outer : NULL;
	bool banff = pb.type_id >= SL_P_BANFF_PROPOSAL_BLOCK && pb.type_id <= SL_P_BANFF_STANDARD_BLOCK;
	int64_t ts = banff ? (int64_t)pb.time : outer ? outer->timestamp : secs(c->ts_ns);
	uint32_t ntx = sl_pchain_block_tx_count(&pb);
	if (ntx >= IX_MAX_BLOCK_TXS) {
		snprintf(err, 256, "a block with %u txs", ntx);
		return SL_ERR_TOO_LARGE;
	}
	ix_block *blk = IX_PUSH(b, b->blocks);
	uint8_t *ids = sl_arena_array(&b->arena, ntx ? ntx : 1, 32);
	uint8_t *hash = sl_arena_alloc(&b->arena, 32);
	if (!blk || !ids || !hash)
		return b->err = SL_ERR_NOMEM;
	memcpy(hash, pb.id, 32);
	for (uint32_t i = 0; i < ntx; i++)
		memcpy(ids + 32 * (size_t)i, sl_pchain_block_tx_at(&pb, i)->id, 32);
	*blk = (ix_block){ .chain = IX_P,
			   .height = pb.height,
			   .hash = hash,
			   .parent = pb.parent_id,
			   .ts = ts,
			   .type = pb.type_id,
			   .size = (uint32_t)c->len,
			   .ntx = ntx,
			   .txs = ids,
			   .ipos = c->index };
	if (outer && !wrap(b, blk, outer))
		return b->err;
	bool proposal = sl_pchain_block_is_proposal(pb.type_id);
	ix_where at = { .chain = IX_P,
			.in_block = true,
			.height = pb.height,
			.effective = pb.height + proposal,
			.block = hash,
			.ts = ts };
	if (banff)
		add_pevent(b, IX_PE_TIME, &at, NULL);
	if (!(e = is_option(pb.type_id) ? p_decide(b, ctx, &pb, err)
					: p_block_txs(b, ctx, &pb, hash, ts, err)))
		add_pevent(b, IX_PE_BLOCK_END, &at, NULL);
	return e ? e : b->err;
}

/* The txs of a P-chain block that is not an option. */
static sl_err p_block_txs(ix_batch *b, const ix_ctx *ctx, const sl_pchain_block *pb, const uint8_t *hash,
			  int64_t ts, char err[256])
{
	uint32_t ntx = sl_pchain_block_tx_count(pb);
	sl_err e;
	if (ctx->p->pending) {
		snprintf(err, 256, "block at height %llu follows a proposal block but is no Commit or Abort",
			 (unsigned long long)pb->height);
		return SL_ERR_INVALID;
	}
	bool proposal = sl_pchain_block_is_proposal(pb->type_id);
	for (uint32_t i = 0; i < ntx; i++) {
		const sl_pchain_tx *tx = sl_pchain_block_tx_at(pb, i);
		if (proposal && tx == pb->tx) {
			/* the decision tx: its effect comes with the option block that follows */
			ix_pstate *ps = ctx->p;
			free(ps->tx);
			if (!(ps->tx = malloc(tx->bytes.len)))
				return b->err = SL_ERR_NOMEM;
			memcpy(ps->tx, tx->bytes.p, tx->bytes.len);
			ps->tx_len = tx->bytes.len;
			memcpy(ps->block, pb->id, 32);
			ps->height = pb->height;
			ps->ts = ts;
			ps->pos = i;
			ps->pending = true;
			continue;
		}
		ix_where at = { .chain = IX_P,
				.in_block = true,
				.height = pb->height,
				.effective = pb->height + proposal,
				.block = hash,
				.ts = ts,
				.seq = IX_SEQ_BLOCK(pb->height, i),
				.type = tx->utx.type_id };
		if ((e = p_tx(b, ctx, tx, &at, true, err)))
			return e;
	}
	return b->err;
}

/* ---- X-chain ------------------------------------------------------------------ */

static sl_err x_tx(ix_batch *b, const ix_ctx *ctx, const sl_xchain_tx *tx, const ix_where *at, sl_span bytes,
		   char err[256])
{
	const sl_xchain_utx *u = &tx->utx;
	uint8_t *id = sl_arena_alloc(&b->arena, 32);
	if (!id)
		return b->err = SL_ERR_NOMEM;
	memcpy(id, tx->id, 32);
	add_tx(b, at, id, bytes);
	uint32_t in = 0, idx = 0;
	for (uint32_t i = 0; i < u->base.nins; i++) {
		add_spend(b, at, id, in++, u->base.ins[i].tx_id, u->base.ins[i].output_index);
		add_asset_tx(b, at, u->base.ins[i].asset_id);
	}
	for (uint32_t i = 0; i < u->base.nouts; i++, idx++) {
		add_out(b, at, id, idx, IX_X, u->base.outs[i].asset_id, &u->base.outs[i].out);
		add_asset_tx(b, at, u->base.outs[i].asset_id);
	}
	switch (u->type_id) {
	case SL_X_IMPORT_TX:
		for (uint32_t i = 0; i < u->nimported; i++) {
			add_spend(b, at, id, in++, u->imported[i].tx_id, u->imported[i].output_index);
			add_asset_tx(b, at, u->imported[i].asset_id);
		}
		break;
	case SL_X_EXPORT_TX: {
		int dest = chain_of(ctx->net, u->chain);
		if (dest < 0) {
			snprintf(err, 256, "ExportTx to a chain that is not P or C");
			return SL_ERR_UNSUPPORTED;
		}
		for (uint32_t i = 0; i < u->nexported; i++, idx++) {
			add_out(b, at, id, idx, (uint8_t)dest, u->exported[i].asset_id, &u->exported[i].out);
			add_asset_tx(b, at, u->exported[i].asset_id);
		}
		break;
	}
	case SL_X_CREATE_ASSET_TX: {
		bool nft = false, mintable = false;
		for (uint32_t s = 0; s < u->nstates; s++)
			for (uint32_t k = 0; k < u->states[s].nouts; k++, idx++) {
				const sl_output *o = &u->states[s].outs[k];
				nft |= o->type_id == SL_T_NFT_MINT_OUTPUT ||
				       o->type_id == SL_T_NFT_TRANSFER_OUTPUT;
				mintable |= o->type_id == SL_T_SECP_MINT_OUTPUT ||
					    o->type_id == SL_T_NFT_MINT_OUTPUT ||
					    o->type_id == SL_T_PROP_MINT_OUTPUT;
				add_out(b, at, id, idx, IX_X, id, o);
			}
		ix_asset *a = IX_PUSH(b, b->assets);
		if (a)
			*a = (ix_asset){ id, u->name, u->symbol, u->denomination, nft, mintable, at->ts };
		add_asset_tx(b, at, id);
		break;
	}
	case SL_X_OPERATION_TX:
		for (uint32_t k = 0; k < u->nops; k++) {
			const sl_xchain_op *op = &u->ops[k];
			add_asset_tx(b, at, op->asset_id);
			for (uint32_t j = 0; j < op->nutxos; j++)
				add_spend(b, at, id, in++, op->utxos + 36 * (size_t)j,
					  sl_be32(op->utxos + 36 * (size_t)j + 32));
			/* the outputs of each operation, as avalanchego's Outs() lists them */
			const sl_xchain_fx_op *f = &op->op;
			sl_output o = { 0 };
			switch (f->type_id) {
			case SL_T_SECP_MINT_OPERATION:
				o = (sl_output){ .type_id = SL_T_SECP_MINT_OUTPUT,
						 .fx_type_id = SL_T_SECP_MINT_OUTPUT,
						 .owners = f->owners1 };
				add_out(b, at, id, idx++, IX_X, op->asset_id, &o);
				o = (sl_output){ .type_id = SL_T_SECP_TRANSFER_OUTPUT,
						 .fx_type_id = SL_T_SECP_TRANSFER_OUTPUT,
						 .amount = f->amount,
						 .owners = f->owners2 };
				add_out(b, at, id, idx++, IX_X, op->asset_id, &o);
				break;
			case SL_T_NFT_MINT_OPERATION:
				for (uint32_t m = 0; m < f->nowners; m++) {
					o = (sl_output){ .type_id = SL_T_NFT_TRANSFER_OUTPUT,
							 .fx_type_id = SL_T_NFT_TRANSFER_OUTPUT,
							 .group_id = f->group_id,
							 .payload = f->payload,
							 .owners = f->owners[m] };
					add_out(b, at, id, idx++, IX_X, op->asset_id, &o);
				}
				break;
			case SL_T_NFT_TRANSFER_OPERATION:
				o = (sl_output){ .type_id = SL_T_NFT_TRANSFER_OUTPUT,
						 .fx_type_id = SL_T_NFT_TRANSFER_OUTPUT,
						 .group_id = f->group_id,
						 .payload = f->payload,
						 .owners = f->owners1 };
				add_out(b, at, id, idx++, IX_X, op->asset_id, &o);
				break;
			case SL_T_PROP_MINT_OPERATION:
				o = (sl_output){ .type_id = SL_T_PROP_MINT_OUTPUT,
						 .fx_type_id = SL_T_PROP_MINT_OUTPUT,
						 .owners = f->owners1 };
				add_out(b, at, id, idx++, IX_X, op->asset_id, &o);
				o = (sl_output){ .type_id = SL_T_PROP_OWNED_OUTPUT,
						 .fx_type_id = SL_T_PROP_OWNED_OUTPUT,
						 .owners = f->owners2 };
				add_out(b, at, id, idx++, IX_X, op->asset_id, &o);
				break;
			default: break; /* a property burn makes nothing */
			}
		}
		break;
	default: break;
	}
	return b->err;
}

static sl_err x_dag_tx(ix_batch *b, const ix_ctx *ctx, const sl_ixitem *c, char err[256])
{
	sl_decoded_container dc;
	sl_err e = decode(b, ctx, c, SL_CONTAINER_X_TX, &dc, err);
	if (e)
		return e;
	const sl_xchain_tx tx = dc.value.v.xtx;
	ix_where at = { .chain = IX_X, .ts = secs(c->ts_ns), .seq = c->index + 1, .type = tx.utx.type_id };
	return x_tx(b, ctx, &tx, &at, sl_span_of(c->bytes, c->len), err);
}

static sl_err x_block(ix_batch *b, const ix_ctx *ctx, const sl_ixitem *c, char err[256])
{
	sl_decoded_container dc;
	sl_err e = decode(b, ctx, c, SL_CONTAINER_X_BLOCK, &dc, err);
	if (e)
		return e;
	const sl_xchain_block xb = dc.value.v.xblock;
	const sl_proposervm_block *outer = dc.wrapped ? &dc.outer : NULL;
	if (xb.ntxs >= IX_MAX_BLOCK_TXS) {
		snprintf(err, 256, "a block with %u txs", xb.ntxs);
		return SL_ERR_TOO_LARGE;
	}
	ix_block *blk = IX_PUSH(b, b->blocks);
	uint8_t *ids = sl_arena_array(&b->arena, xb.ntxs ? xb.ntxs : 1, 32);
	if (!blk || !ids)
		return b->err = SL_ERR_NOMEM;
	for (uint32_t i = 0; i < xb.ntxs; i++)
		memcpy(ids + 32 * (size_t)i, xb.txs[i].id, 32);
	uint8_t *hash = sl_arena_alloc(&b->arena, 32);
	if (!hash)
		return b->err = SL_ERR_NOMEM;
	memcpy(hash, xb.id, 32);
	*blk = (ix_block){ .chain = IX_X,
			   .height = xb.height,
			   .hash = hash,
			   .parent = xb.parent_id,
			   .ts = (int64_t)xb.time,
			   .type = xb.type_id,
			   .size = (uint32_t)c->len,
			   .ntx = xb.ntxs,
			   .txs = ids,
			   .ipos = c->index };
	if (outer && !wrap(b, blk, outer))
		return b->err;
	for (uint32_t i = 0; i < xb.ntxs; i++) {
		ix_where at = { .chain = IX_X,
				.in_block = true,
				.height = xb.height,
				.block = hash,
				.ts = (int64_t)xb.time,
				.seq = IX_SEQ_LINEAR + IX_SEQ_BLOCK(xb.height, i),
				.type = xb.txs[i].utx.type_id };
		if ((e = x_tx(b, ctx, &xb.txs[i], &at, versioned(b, xb.txs[i].bytes), err)))
			return e;
	}
	return b->err;
}

static sl_err x_vertex(ix_batch *b, const ix_ctx *ctx, const sl_ixitem *c, char err[256])
{
	sl_decoded_container dc;
	sl_err e = decode(b, ctx, c, SL_CONTAINER_X_VERTEX, &dc, err);
	if (e)
		return e;
	const sl_xchain_vertex v = dc.value.v.vertex;
	uint8_t *ids = sl_arena_array(&b->arena, v.ntxs ? v.ntxs : 1, 32);
	uint8_t *hash = sl_arena_alloc(&b->arena, 32);
	ix_vertex *x = IX_PUSH(b, b->vertices);
	if (!ids || !hash || !x)
		return b->err = SL_ERR_NOMEM;
	memcpy(hash, v.id, 32);
	for (uint32_t i = 0; i < v.ntxs; i++)
		memcpy(ids + 32 * (size_t)i, v.txs[i].id, 32);
	*x = (ix_vertex){ .ipos = c->index,
			  .height = v.height,
			  .hash = hash,
			  .ts = secs(c->ts_ns),
			  .nparents = v.nparents,
			  .ntx = v.ntxs,
			  .size = (uint32_t)c->len,
			  .parents = v.parents,
			  .txs = ids };
	return SL_OK;
}

/* ---- C-chain ------------------------------------------------------------------ */

static sl_err c_atomic(ix_batch *b, const ix_ctx *ctx, const sl_atomic_tx *tx, const ix_where *at,
		       char err[256])
{
	const sl_atomic_utx *u = &tx->utx;
	uint8_t *id = sl_arena_alloc(&b->arena, 32);
	if (!id)
		return b->err = SL_ERR_NOMEM;
	memcpy(id, tx->id, 32);
	add_tx(b, at, id, versioned(b, tx->bytes));
	if (u->type_id == SL_ATOMIC_IMPORT_TX) {
		for (uint32_t i = 0; i < u->nimported; i++)
			add_spend(b, at, id, i, u->imported[i].tx_id, u->imported[i].output_index);
		for (uint32_t i = 0; i < u->nevm_outs; i++)
			add_act(b, IX_CEVM, at, u->evm_outs[i].address, 1);
	} else {
		int dest = chain_of(ctx->net, u->chain);
		if (dest < 0) {
			snprintf(err, 256, "atomic ExportTx to a chain that is not P or X");
			return SL_ERR_UNSUPPORTED;
		}
		for (uint32_t i = 0; i < u->nevm_ins; i++)
			add_act(b, IX_CEVM, at, u->evm_ins[i].address, 1);
		for (uint32_t i = 0; i < u->nexported; i++)
			add_out(b, at, id, i, (uint8_t)dest, u->exported[i].asset_id, &u->exported[i].out);
	}
	return b->err;
}

static sl_err c_block(ix_batch *b, const ix_ctx *ctx, const sl_ixitem *c, char err[256])
{
	sl_decoded_container dc;
	sl_err e = decode(b, ctx, c, SL_CONTAINER_C_BLOCK, &dc, err);
	if (e)
		return e;
	const sl_coreth_block cb = dc.value.v.cblock;
	const sl_proposervm_block *outer = dc.wrapped ? &dc.outer : NULL;
	/* extData in the layout the block's time calls for on this network (formats.h, Network) */
	if (dc.value.atomic_err.code) {
		snprintf(err, 256,
			 "C-chain block %llu: its atomic txs do not decode: %s at byte %zu of extData",
			 (unsigned long long)cb.header.number, dc.value.atomic_err.msg,
			 dc.value.atomic_err.offset);
		return dc.value.atomic_err.code;
	}
	const sl_atomic_txs atx = dc.value.atomic;
	if (cb.ntx >= IX_MAX_BLOCK_TXS || atx.ntxs >= IX_MAX_BLOCK_TXS) {
		snprintf(err, 256, "a block with %u txs", cb.ntx);
		return SL_ERR_TOO_LARGE;
	}
	ix_block *blk = IX_PUSH(b, b->blocks);
	uint8_t *ids = sl_arena_array(&b->arena, cb.ntx ? cb.ntx : 1, 32);
	uint8_t *hash = sl_arena_alloc(&b->arena, 32);
	if (!blk || !ids || !hash)
		return b->err = SL_ERR_NOMEM;
	memcpy(hash, cb.header.hash, 32);
	for (uint32_t i = 0; i < cb.ntx; i++)
		memcpy(ids + 32 * (size_t)i, cb.txs[i].hash, 32);
	*blk = (ix_block){ .chain = IX_C,
			   .height = cb.header.number,
			   .hash = hash,
			   .parent = cb.header.f[SL_CH_PARENT_HASH].p,
			   .ts = (int64_t)cb.header.time,
			   .type = 0,
			   .size = (uint32_t)c->len,
			   .ntx = cb.ntx,
			   .txs = ids,
			   .ipos = c->index };
	if (cb.header.f[SL_CH_PARENT_HASH].len != 32) {
		snprintf(err, 256, "C-chain block without a 32-byte parent hash");
		return SL_ERR_INVALID;
	}
	if (outer && !wrap(b, blk, outer))
		return b->err;
	for (uint32_t i = 0; i < atx.ntxs; i++) {
		ix_where at = { .chain = IX_C,
				.in_block = true,
				.height = cb.header.number,
				.block = hash,
				.ts = (int64_t)cb.header.time,
				.seq = IX_SEQ_BLOCK(cb.header.number, i),
				.type = atx.txs[i].utx.type_id };
		if ((e = c_atomic(b, ctx, &atx.txs[i], &at, err)))
			return e;
	}
	return b->err;
}

sl_err ix_derive(ix_batch *b, const ix_ctx *ctx, const sl_ixitem *c, char err[256])
{
	switch (b->kind) {
	case SL_IDX_P_BLOCK: return p_block(b, ctx, c, err);
	case SL_IDX_X_TX: return x_dag_tx(b, ctx, c, err);
	case SL_IDX_X_BLOCK: return x_block(b, ctx, c, err);
	case SL_IDX_X_VTX: return x_vertex(b, ctx, c, err);
	case SL_IDX_C_BLOCK: return c_block(b, ctx, c, err);
	default: return SL_ERR_INTERNAL;
	}
}
