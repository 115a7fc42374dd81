/*
 * pchain.c — the devnet's P-chain: genesis allocations and validators, then
 * a history of Banff blocks (proposervm-wrapped): a pre-Durango era, whose
 * stakers wait pending for a future start, then every tx type a post-Etna
 * P-chain accepts.
 *
 * What happens, in chain-time order (docs/devnet.md, P-chain section):
 *   - genesis: AVAX allocations to every account (some under stakeable locks,
 *     some with multi-owner outputs), the genesis validators (AddValidatorTx
 *     records, ending a year after genesis, so they stay current);
 *   - standard blocks of 1 to 3 txs at times spread over each step: transfers,
 *     stakers, subnets, L1s, imports and exports;
 *   - whenever chain time reaches a primary-network staker's end, a proposal
 *     block with its RewardValidatorTx, then the Commit (or, for a validator
 *     with poor uptime, Abort) option; permissioned subnet validators and L1
 *     validators whose balance runs out change the validator set at a time
 *     the chain must stop at, so an empty standard block is made there, as
 *     avalanchego's builder does.
 *
 * Model (network rules, as avalanchego applies them):
 *   - from Durango a staker starts at the chain time of its block
 *     (Validator.start is set to it); before Durango its tx names a start 1 h
 *     to 7 days ahead (the rule: after the chain time, at most 2 weeks ahead;
 *     the period counts from that start) and it is pending until then. Chain
 *     time never skips a pending start: an empty block is made at it if no
 *     other block falls there, and the first block at that time promotes it
 *     (pending order: start, then validators before delegators before
 *     permissioned subnet validators, then tx id). A primary staker's
 *     potential reward is fixed when it starts, from the supply of that
 *     moment (rewards.h), and added to the supply; an Abort takes it back;
 *   - before Durango there is no BaseTx or TransferSubnetOwnershipTx and a
 *     proposal block carries only its RewardValidatorTx; from Durango memos
 *     are empty; the L1 txs (Etna) come only after Durango;
 *   - stake returns to the staker tx's id at indices len(outs) + i; the
 *     validation (or delegation) reward follows at len(outs) + len(stake),
 *     the accrued delegatee fees of a validator that started at or after Cortina
 *     next (or at len(outs) + len(stake) on an Abort); before Cortina the
 *     delegatee's fee is paid at the delegator's reward, at the next index;
 *   - fees are dn_fee()'s static fees; L1 validator balances leave the UTXO
 *     set and are charged DN_L1_FEE_RATE nAVAX per second while active
 *     (Etna's minimum price, which holds while the L1 validator count is far
 *     below target); removing or disabling returns what is left to the
 *     remaining-balance owner at (removing tx id, len(outs)).
 *
 * All choices come from the "pchain" rng stream and w->now; the state below
 * is arrays indexed by position, never by pointer.
 */
#include "devnet/world.h"

#include "codec/pchain.h"
#include "codec/warp.h"
#include "crypto/cb58.h"
#include "crypto/addr.h"
#include "crypto/hash.h"
#include "codec/rewards.h"
#include "util/limits.h"

#define DAY (24ull * 3600)
#define GENESIS_VALIDATOR_DAYS 365u
#define L1_POOL 16u /* the last nodes validate L1s only */
#define MAX_STAKE 2u
#define B_MAX_INS 24u
#define B_MAX_OUTS 8u
#define NTYPES 43u

/* ---- state ------------------------------------------------------------ */

/* Owners: key indexes sorted by address (OutputOwners, or PChainOwner with locktime 0). */
typedef struct p_owner {
	uint64_t locktime;
	uint32_t threshold, n;
	uint32_t keys[DN_MAX_OWNERS];
} p_owner;

typedef struct p_stake {
	uint64_t amount, lock; /* lock: stakeable LockOut locktime, 0 for a plain output */
	p_owner owner;
} p_stake;

enum { ST_ACTIVE, ST_DONE, ST_REMOVED, ST_PENDING };

/* avalanchego's pending priorities: the order of promotions at the same start. */
enum { PRIO_PENDING_VALIDATOR = 2, PRIO_PENDING_DELEGATOR = 3, PRIO_PENDING_SUBNET = 6 };

typedef struct p_staker {
	uint8_t tx_id[32];
	uint32_t type_id; /* 12 genesis, 13 permissioned subnet, 25 validator, 26 delegator */
	uint32_t node;
	int32_t val;	/* delegator: its validator's staker index; else -1 */
	int32_t subnet; /* permissioned: subnet index; else -1 */
	uint64_t start, end, weight, potential;
	uint64_t accepted; /* chain time of its tx's block (< start: it was pending) */
	uint32_t shares;
	uint32_t nouts, nstake;
	p_stake stake[MAX_STAKE];
	p_owner rewards, delegation;
	uint64_t delegated;   /* validator: stake of its current delegators */
	uint32_t ndelegators; /* validator: all delegators it ever had */
	uint64_t accrued;     /* validator: delegatee fees waiting for its end */
	uint64_t paid_reward, paid_fees;
	/*
	 * Primary validators: the P heights between which it is surely in the
	 * validator set (proposer choice): from two blocks after the one it
	 * started in to before the proposal block that rewards it.
	 */
	uint64_t h_on, h_off;
	bool bad_uptime, committed;
	uint8_t status;
} p_staker;

typedef struct p_heap_ent {
	uint64_t end;  /* the current stakers' heap: end time; the pending one: start time */
	uint32_t prio; /* delegators leave before validators at the same time */
	uint32_t idx;
} p_heap_ent;

typedef struct p_heap {
	p_heap_ent *v;
	size_t n, cap;
} p_heap;

typedef struct p_subnet {
	uint8_t id[32];
	p_owner owner;
	bool l1;
	uint32_t nchains;
	uint32_t chains[4]; /* indexes into st->chains */
	uint8_t manager_chain[32], manager_addr[20];
	uint32_t nvalidators;	   /* current permissioned validators */
	uint8_t conversion_id[32]; /* once l1: sha256 of its SubnetToL1ConversionData */
} p_subnet;

typedef struct p_chainrec {
	uint8_t id[32];
	uint32_t subnet;
	char name[32];
} p_chainrec;

typedef struct p_l1val {
	uint8_t vid[32];
	uint32_t subnet, node;
	uint64_t weight;
	uint64_t deposit, since; /* balance = deposit - rate * (t - since), floored at 0 */
	uint64_t nonce;		 /* the smallest nonce the next weight message may use */
	p_owner remaining, disable;
	bool removed, disabled;
} p_l1val;

/*
 * A change of a validator set (avalanchego's validators.Manager): weight
 * added to or taken from one node of the primary network (subnet -1), a
 * subnet or an L1; an L1's inactive validators all count under the empty
 * node id (node V_EMPTY) without a key. Logged when the block that makes it
 * is emitted: a proposal block's changes (its time, its decision tx) hold
 * from its option block's height on, as avalanchego writes them.
 */
#define V_EMPTY UINT32_MAX
enum {
	V_GENESIS,
	V_START,
	V_PROMOTE,
	V_END,
	V_SUB_START,
	V_SUB_REMOVE,
	V_SUB_END,
	V_L1_ADD,
	V_L1_WEIGHT,
	V_L1_REMOVE,
	V_L1_DISABLE,
	V_L1_RUNOUT,
	V_L1_REACTIVATE,
	V__CAUSES
};
typedef struct p_vchange {
	uint64_t height; /* set when its block is emitted */
	uint64_t weight;
	int32_t subnet; /* -1: the primary network */
	uint32_t node;	/* index into w->nodes, or V_EMPTY */
	uint8_t sub;	/* 1: the weight is taken away */
	uint8_t cause;
	uint8_t key; /* primary validators: 1 starts without a BLS key, 2 with the node's */
} p_vchange;

struct dn_pstate {
	dn_rng rng;
	sl_reward_config rc;
	uint8_t genesis_id[32];
	dn_utxos genesis;      /* the genesis allocations, as made (the ledger drops them once spent) */
	uint32_t ngenesis_val; /* the genesis validators: st[0 .. ngenesis_val) */
	p_staker *st;
	size_t nst, capst;
	p_heap cur;		       /* current primary stakers, by end: the next RewardValidatorTx */
	p_heap pend;		       /* pending stakers (all kinds), by start: the next promotion */
	uint64_t npending_ever;	       /* stakers that were pending at some point */
	uint64_t npending_durango;     /* ... accepted before Durango, starting after it */
	uint64_t nval_pending_durango; /* ... of them validators */
	uint32_t *subvals;	       /* current permissioned subnet validators (staker indexes) */
	size_t nsubvals, capsubvals;
	int32_t *node_val; /* per node: its current primary validator, or -1 */
	uint32_t *pvals;   /* primary validators that are or were current since the lowest height named */
	size_t npvals, cappvals;
	p_subnet *sn;
	size_t nsn, capsn;
	p_chainrec *chains;
	size_t nchains, capchains;
	p_l1val *l1;
	size_t nl1, capl1;
	uint64_t counts[NTYPES];
	uint64_t seq; /* txs made, for memos */
	uint32_t pool_lo, pool_hi,
		l1_lo;	 /* node ranges: [pool_lo, pool_hi) primary joiners, [l1_lo, nnodes) L1 */
	p_vchange *vlog; /* every validator set change, in chain order */
	size_t nvlog, capvlog;
	size_t vflushed; /* vlog[vflushed ..] wait for their block */
	bool l1_dirty;	 /* the L1 view (dn_l1view) is behind: a chain, conversion, registration, weight
			  * or subnet validator set change */
};

#define PUSH DN_PUSH

/* Log a validator set change of the block being made (emit_block dates it). */
static bool vlog(struct dn_pstate *p, int32_t subnet, uint32_t node, bool sub, uint64_t weight, uint8_t cause,
		 uint8_t key)
{
	p_vchange *c = PUSH(p->vlog, p->nvlog, p->capvlog);
	if (!c)
		return false;
	if (subnet >= 0)
		p->l1_dirty = true; /* who validates a subnet changed: the view's members */
	*c = (p_vchange){
		.weight = weight, .subnet = subnet, .node = node, .sub = sub, .cause = cause, .key = key
	};
	return true;
}

/* An L1 validator's weight moves between its node and the inactive weight (or comes or goes). */
static bool vlog_l1(struct dn_pstate *p, uint32_t subnet, uint32_t node, bool sub, uint64_t weight,
		    uint8_t cause)
{
	p->l1_dirty = true;
	return !weight || vlog(p, (int32_t)subnet, node, sub, weight, cause, 0);
}

/* ---- small helpers -------------------------------------------------------- */

static void derive_id(const dn_world *w, const char *what, uint64_t i, uint8_t out[32])
{
	char msg[512];
	int n = snprintf(msg, sizeof msg, "snowline-devnet/%s/P/%s/%llu", w->seed, what,
			 (unsigned long long)i);
	sl_sha256(msg, (size_t)n, out);
}

static const uint8_t ZERO32[32];

static int addr_cmp_keys(const dn_world *w, uint32_t a, uint32_t b)
{
	return memcmp(w->keys[a].addr, w->keys[b].addr, 20);
}

/* An owner of n distinct random keys (first = `first` if given), threshold t. */
static p_owner owner_random(const dn_world *w, dn_rng *r, int64_t first, uint32_t n, uint32_t t)
{
	p_owner o = { .threshold = t };
	if (n > w->nkeys)
		n = w->nkeys;
	while (o.n < n) {
		uint32_t k = first >= 0 && o.n == 0 ? (uint32_t)first : (uint32_t)dn_rng_below(r, w->nkeys);
		bool dup = false;
		for (uint32_t i = 0; i < o.n; i++)
			dup |= o.keys[i] == k;
		if (!dup)
			o.keys[o.n++] = k;
	}
	/* insertion sort by address */
	for (uint32_t i = 1; i < o.n; i++)
		for (uint32_t j = i; j > 0 && addr_cmp_keys(w, o.keys[j - 1], o.keys[j]) > 0; j--) {
			uint32_t t2 = o.keys[j];
			o.keys[j] = o.keys[j - 1];
			o.keys[j - 1] = t2;
		}
	if (o.threshold > o.n)
		o.threshold = o.n;
	return o;
}

static p_owner owner_one(uint32_t k) { return (p_owner){ .threshold = 1, .n = 1, .keys = { k } }; }

static void utxo_set_owner(dn_utxo *u, const p_owner *o)
{
	u->locktime = o->locktime;
	u->threshold = o->threshold;
	u->nowners = o->n;
	memcpy(u->owners, o->keys, sizeof u->owners);
}

static p_owner utxo_owner(const dn_utxo *u)
{
	p_owner o = { .locktime = u->locktime, .threshold = u->threshold, .n = u->nowners };
	memcpy(o.keys, u->owners, sizeof o.keys);
	return o;
}

static const uint8_t *owner_addrs(sl_arena *a, const dn_world *w, const p_owner *o)
{
	uint8_t *p = sl_arena_alloc(a, (size_t)o->n * 20 + 1);
	if (!p)
		return NULL;
	for (uint32_t i = 0; i < o->n; i++)
		memcpy(p + 20 * i, w->keys[o->keys[i]].addr, 20);
	return p;
}

static sl_owners owners_view(sl_arena *a, const dn_world *w, const p_owner *o)
{
	return (sl_owners){ .locktime = o->locktime,
			    .threshold = o->threshold,
			    .naddrs = o->n,
			    .addrs = owner_addrs(a, w, o) };
}

static uint64_t avax(uint64_t whole) { return whole * DN_NANO; }

static bool durango(const dn_world *w, uint64_t t) { return t >= w->params.durango_time; }

/* avalanchego's MaxFutureStartTime: before Durango a staker may start at most this far ahead. */
#define MAX_FUTURE_START (14ull * DAY)

/* An amount of about `lo`..`hi` AVAX with nAVAX noise, so amounts look typed by people. */
static uint64_t amount_between(dn_rng *r, uint64_t lo, uint64_t hi)
{
	uint64_t a = dn_rng_range(r, lo, hi);
	return dn_rng_chance(r, 50) ? a - a % (DN_NANO / 1000) : a;
}

/* ---- the staker heap (by end time, then priority, then tx id) ---------------- */

static bool heap_less(const struct dn_pstate *p, const p_heap_ent *a, const p_heap_ent *b)
{
	if (a->end != b->end)
		return a->end < b->end;
	if (a->prio != b->prio)
		return a->prio < b->prio;
	return memcmp(p->st[a->idx].tx_id, p->st[b->idx].tx_id, 32) < 0;
}

static bool heap_push(struct dn_pstate *p, p_heap *h, uint64_t key, uint32_t idx, uint32_t prio)
{
	p_heap_ent *e = PUSH(h->v, h->n, h->cap);
	if (!e)
		return false;
	*e = (p_heap_ent){ .end = key, .prio = prio, .idx = idx };
	for (size_t i = h->n - 1; i > 0;) {
		size_t up = (i - 1) / 2;
		if (!heap_less(p, &h->v[i], &h->v[up]))
			break;
		p_heap_ent t = h->v[i];
		h->v[i] = h->v[up];
		h->v[up] = t;
		i = up;
	}
	return true;
}

static void heap_pop(struct dn_pstate *p, p_heap *h)
{
	h->v[0] = h->v[--h->n];
	for (size_t i = 0;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && heap_less(p, &h->v[l], &h->v[m]))
			m = l;
		if (r < h->n && heap_less(p, &h->v[r], &h->v[m]))
			m = r;
		if (m == i)
			break;
		p_heap_ent t = h->v[i];
		h->v[i] = h->v[m];
		h->v[m] = t;
		i = m;
	}
}

/* A primary validator joins the set proposers are drawn from. */
static bool pval_add(struct dn_pstate *p, uint32_t si, uint64_t h_on)
{
	uint32_t *slot = PUSH(p->pvals, p->npvals, p->cappvals);
	if (!slot)
		return false;
	*slot = si;
	p->st[si].h_on = h_on;
	p->st[si].h_off = UINT64_MAX;
	return true;
}

/* A primary staker joins the current set: its potential reward from the supply of now. */
static bool staker_start(dn_world *w, struct dn_pstate *p, uint32_t si)
{
	p_staker *s = &p->st[si];
	s->status = ST_ACTIVE;
	/* its block is the next one (height + 1), or a proposal whose option (+ 2) applies it */
	if (s->type_id != SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX && !pval_add(p, si, w->chain[DN_P].height + 2))
		return false;
	s = &p->st[si];
	bool validator = s->type_id != SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX;
	uint32_t node = validator ? s->node : p->st[s->val].node;
	if (!vlog(p, -1, node, false, s->weight, s->start > s->accepted ? V_PROMOTE : V_START,
		  validator ? (s->type_id == SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX ? 2 : 1) : 0))
		return false;
	s->potential = sl_reward_calculate(&p->rc, s->end - s->start, s->weight, w->supply);
	w->supply += s->potential;
	return heap_push(p, &p->cur, s->end, si, s->type_id == SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX ? 0 : 1);
}

/* A permissioned subnet validator joins its subnet's current set. */
static bool subval_start(struct dn_pstate *p, uint32_t si)
{
	uint32_t *slot = PUSH(p->subvals, p->nsubvals, p->capsubvals);
	if (!slot)
		return false;
	*slot = si;
	p->st[si].status = ST_ACTIVE;
	const p_staker *s = &p->st[si];
	return vlog(p, s->subnet, s->node, false, s->weight, V_SUB_START, 0);
}

/*
 * A staker whose tx was just accepted at s->accepted: current at once when
 * it starts then (from Durango), else pending until s->start.
 */
static bool staker_begin(dn_world *w, struct dn_pstate *p, uint32_t si, uint32_t pending_prio)
{
	p_staker *s = &p->st[si];
	if (s->start <= s->accepted)
		return s->subnet >= 0 ? subval_start(p, si) : staker_start(w, p, si);
	s->status = ST_PENDING;
	p->npending_ever++;
	if (s->accepted < w->params.durango_time && s->start > w->params.durango_time) {
		p->npending_durango++;
		p->nval_pending_durango += s->type_id == SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX;
	}
	return heap_push(p, &p->pend, s->start, si, pending_prio);
}

/*
 * The start of a staker accepted at t: t itself from Durango; before, 1 h to
 * 7 days ahead (the network allows up to MAX_FUTURE_START). In the week
 * before Durango, until a validator is pending across it (and then now and
 * then), the start is drawn past Durango, so the upgrade finds stakers still
 * waiting, as mainnet's did.
 */
static uint64_t staker_start_time(const dn_world *w, struct dn_pstate *p, uint64_t t)
{
	if (durango(w, t))
		return t;
	uint64_t d = w->params.durango_time, lo = 3600, hi = 7 * DAY;
	if (t + hi > d && (p->nval_pending_durango == 0 || dn_rng_chance(&p->rng, 30)))
		lo = SL_MAX(lo, d - t + 1);
	return t + dn_rng_range(&p->rng, lo, hi);
}

/* ---- L1 validator balances ---------------------------------------------------- */

static uint64_t l1_balance(const p_l1val *v, uint64_t t)
{
	if (v->removed || v->disabled || t <= v->since)
		return v->removed || v->disabled ? 0 : v->deposit;
	uint64_t fee = (t - v->since) * DN_L1_FEE_RATE;
	return fee >= v->deposit ? 0 : v->deposit - fee;
}

static bool l1_active(const p_l1val *v, uint64_t t) { return l1_balance(v, t) > 0; }

/* When its balance runs out (the chain must stop there); UINT64_MAX if never. */
static uint64_t l1_runs_out(const p_l1val *v)
{
	if (v->removed || v->disabled || v->deposit == 0)
		return UINT64_MAX;
	return v->since + (v->deposit + DN_L1_FEE_RATE - 1) / DN_L1_FEE_RATE;
}

/* Restart the fee clock at t (before a balance change). */
static void l1_settle(p_l1val *v, uint64_t t)
{
	v->deposit = l1_balance(v, t);
	v->since = t;
}

/* ---- the tx builder ------------------------------------------------------------ */

typedef struct p_in {
	sl_avax_in in;
	uint32_t signers[DN_MAX_OWNERS], nsig;
	dn_utxos *set; /* where the spent UTXO lives (to undo an abandoned tx) */
} p_in;

typedef struct p_out {
	sl_avax_out out;
	dn_utxo u;	/* the ledger entry it becomes (tx id and index filled at the end) */
	uint8_t *bytes; /* assetID | iface<Output>: the sort key */
	size_t len;
} p_out;

enum { L_BASE, L_STAKE, L_EXPORT, L__COUNT };

typedef struct p_build {
	dn_world *w;
	struct dn_pstate *p;
	sl_arena *a;
	sl_pchain_tx *tx; /* in the arena: the block points at it */
	p_in ins[B_MAX_INS], imp[B_MAX_INS];
	uint32_t nins, nimp;
	p_out outs[L__COUNT][B_MAX_OUTS];
	uint32_t nouts[L__COUNT];
	int export_dst;
	uint32_t auth[DN_MAX_OWNERS], nauth; /* keys signing the subnet/disable auth */
	uint64_t burn;			     /* AVAX leaving the UTXO set besides the fee (L1 balances) */
	bool failed;
	uint8_t id[32];
} p_build;

static void b_init(p_build *b, dn_world *w, sl_arena *a, uint32_t type_id)
{
	memset(b, 0, sizeof *b);
	b->w = w;
	b->p = w->p;
	b->a = a;
	b->export_dst = -1;
	b->tx = sl_arena_zalloc(a, sizeof *b->tx);
	if (!b->tx) {
		b->failed = true;
		return;
	}
	sl_pchain_utx *u = &b->tx->utx;
	u->type_id = type_id;
	u->has_base = type_id != SL_P_REWARD_VALIDATOR_TX;
	u->base.network_id = w->cfg.network_id;
	u->base.blockchain_id = w->chain[DN_P].id;
}

static void *b_copy(p_build *b, const void *p, size_t n)
{
	uint8_t *q = sl_arena_alloc(b->a, n ? n : 1);
	if (!q) {
		b->failed = true;
		return NULL;
	}
	memcpy(q, p, n);
	return q;
}

/* Add an output of `amount` AVAX to owner o (LockOut when lock > 0) to list l. */
static void b_out(p_build *b, int l, uint64_t amount, const p_owner *o, uint64_t lock)
{
	if (b->nouts[l] >= B_MAX_OUTS || amount == 0) {
		b->failed |= amount != 0;
		return;
	}
	p_out *po = &b->outs[l][b->nouts[l]++];
	memset(po, 0, sizeof *po);
	po->out.asset_id = b->w->avax;
	po->out.out = (sl_output){
		.type_id = lock ? SL_T_STAKEABLE_LOCK_OUT : SL_T_SECP_TRANSFER_OUTPUT,
		.fx_type_id = SL_T_SECP_TRANSFER_OUTPUT,
		.lock_locktime = lock,
		.amount = amount,
		.owners = owners_view(b->a, b->w, o),
	};
	if (!po->out.out.owners.addrs)
		b->failed = true;
	memcpy(po->u.asset_id, b->w->avax, 32);
	po->u.type_id = po->out.out.type_id;
	po->u.amount = amount;
	po->u.stake_until = lock;
	utxo_set_owner(&po->u, o);
}

/* Spend UTXO u of `set` (marks it spent): LockIn when it carries a stakeable lock. */
static void b_in(p_build *b, dn_utxos *set, dn_utxo *u, bool imported)
{
	uint32_t *n = imported ? &b->nimp : &b->nins;
	if (*n >= B_MAX_INS || u->spent) {
		b->failed = true;
		return;
	}
	p_in *pi = &(imported ? b->imp : b->ins)[(*n)++];
	memset(pi, 0, sizeof *pi);
	pi->set = set;
	pi->in.tx_id = b_copy(b, u->tx_id, 32);
	pi->in.output_index = u->index;
	pi->in.asset_id = b->w->avax;
	pi->in.in = (sl_input){
		.type_id = u->type_id == SL_T_STAKEABLE_LOCK_OUT ? SL_T_STAKEABLE_LOCK_IN
								 : SL_T_SECP_TRANSFER_INPUT,
		.fx_type_id = SL_T_SECP_TRANSFER_INPUT,
		.lock_locktime = u->type_id == SL_T_STAKEABLE_LOCK_OUT ? u->stake_until : 0,
		.amount = u->amount,
	};
	/* The first `threshold` owners sign: sigIndices 0..t-1, sorted. */
	uint8_t *idx = sl_arena_alloc(b->a, 4 * (size_t)u->threshold + 1);
	if (!idx) {
		b->failed = true;
		return;
	}
	for (uint32_t i = 0; i < u->threshold; i++) {
		sl_put_be32(idx + 4 * i, i);
		pi->signers[i] = u->owners[i];
	}
	pi->nsig = u->threshold;
	pi->in.in.sig = (sl_sigidx){ .n = u->threshold, .p = idx };
	u->spent = true;
}

/* Pay `amount` of unlocked AVAX from key k; change goes back to k. */
static bool b_pay(p_build *b, uint32_t k, uint64_t amount)
{
	dn_utxo *sel[16];
	uint64_t total = 0;
	size_t n = dn_utxo_select(b->w, &b->w->utxos[DN_P], k, b->w->avax, amount, sel, SL_ARRAY_LEN(sel),
				  &total);
	if (n == 0 || b->nins + n > B_MAX_INS)
		return false;
	for (size_t i = 0; i < n; i++)
		b_in(b, &b->w->utxos[DN_P], sel[i], false);
	p_owner o = owner_one(k);
	b_out(b, L_BASE, total - amount, &o, 0);
	return !b->failed;
}

/* Undo the spends of a tx that will not be made. */
static void b_abandon(p_build *b)
{
	for (int pass = 0; pass < 2; pass++) {
		p_in *v = pass ? b->imp : b->ins;
		uint32_t n = pass ? b->nimp : b->nins;
		for (uint32_t i = 0; i < n; i++) {
			if (!v[i].in.tx_id)
				continue;
			dn_utxo *u = dn_utxo_find(v[i].set, v[i].in.tx_id, v[i].in.output_index);
			if (u)
				u->spent = false;
		}
	}
}

static int out_cmp(const void *x, const void *y)
{
	const p_out *a = x, *b = y;
	int c = memcmp(a->bytes, b->bytes, SL_MIN(a->len, b->len));
	return c ? c : (a->len > b->len) - (a->len < b->len);
}

static int in_cmp(const void *x, const void *y)
{
	const p_in *a = x, *b = y;
	int c = memcmp(a->in.tx_id, b->in.tx_id, 32);
	return c ? c : (a->in.output_index > b->in.output_index) - (a->in.output_index < b->in.output_index);
}

/* Sort list l by bytes and give the codec its array. */
static sl_avax_out *b_outs_final(p_build *b, int l)
{
	sl_buf t;
	sl_buf_init(&t, 1u << 16);
	for (uint32_t i = 0; i < b->nouts[l]; i++) {
		p_out *po = &b->outs[l][i];
		sl_buf_reset(&t);
		sl_buf_add(&t, po->out.asset_id, 32);
		sl_avax_output_write(&t, &po->out.out);
		po->len = t.len;
		po->bytes = t.err ? NULL : b_copy(b, t.p, t.len);
		if (!po->bytes)
			b->failed = true;
	}
	sl_buf_release(&t);
	if (b->failed)
		return NULL;
	qsort(b->outs[l], b->nouts[l], sizeof(p_out), out_cmp);
	sl_avax_out *v = sl_arena_array(b->a, b->nouts[l] + 1, sizeof *v);
	if (!v) {
		b->failed = true;
		return NULL;
	}
	for (uint32_t i = 0; i < b->nouts[l]; i++)
		v[i] = b->outs[l][i].out;
	return v;
}

static sl_avax_in *b_ins_final(p_build *b, p_in *ins, uint32_t n)
{
	qsort(ins, n, sizeof *ins, in_cmp);
	sl_avax_in *v = sl_arena_array(b->a, n + 1, sizeof *v);
	if (!v) {
		b->failed = true;
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		v[i] = ins[i].in;
	return v;
}

static bool b_cred(p_build *b, sl_credential *c, const uint32_t *keys, uint32_t n, const uint8_t hash[32])
{
	uint8_t *sigs = sl_arena_alloc(b->a, 65 * (size_t)n + 1);
	if (!sigs)
		return false;
	for (uint32_t i = 0; i < n; i++)
		dn_sign(b->w, keys[i], hash, sigs + 65 * i);
	*c = (sl_credential){ .type_id = SL_T_SECP_CREDENTIAL, .nsigs = n, .sigs = sigs };
	return true;
}

static uint64_t sum_outs(const p_build *b, int l)
{
	uint64_t s = 0;
	for (uint32_t i = 0; i < b->nouts[l]; i++)
		s += b->outs[l][i].u.amount;
	return s;
}

/*
 * Sort, check the AVAX balance, sign, compute the id and apply the tx's
 * outputs to the ledger. On failure the spends are undone and nothing is
 * applied. The tx (b->tx) is ready to go in a block.
 */
static bool b_finish(p_build *b)
{
	dn_world *w = b->w;
	sl_pchain_utx *u = &b->tx->utx;
	if (b->failed)
		goto fail;
	if (u->has_base) {
		uint64_t in = 0;
		for (uint32_t i = 0; i < b->nins; i++)
			in += b->ins[i].in.in.amount;
		for (uint32_t i = 0; i < b->nimp; i++)
			in += b->imp[i].in.in.amount;
		uint64_t out = sum_outs(b, L_BASE) + sum_outs(b, L_STAKE) + sum_outs(b, L_EXPORT);
		if (in != out + dn_fee(w, DN_P, u->type_id) + b->burn)
			goto fail; /* a generator bug: the ledger check would refuse it */
		u->base.outs = b_outs_final(b, L_BASE);
		u->base.nouts = b->nouts[L_BASE];
		u->base.ins = b_ins_final(b, b->ins, b->nins);
		u->base.nins = b->nins;
		if (b->nouts[L_STAKE]) {
			u->stake = b_outs_final(b, L_STAKE);
			u->nstake = b->nouts[L_STAKE];
		}
		if (b->export_dst >= 0) {
			u->exported = b_outs_final(b, L_EXPORT);
			u->nexported = b->nouts[L_EXPORT];
		}
		if (u->type_id == SL_P_IMPORT_TX) {
			u->imported = b_ins_final(b, b->imp, b->nimp);
			u->nimported = b->nimp;
		}
		if (b->failed)
			goto fail;
	}

	/* Sign sha256(00 00 | unsigned tx); credentials: inputs, imported inputs, then auth. */
	sl_buf buf;
	sl_buf_init(&buf, SL_CODEC_MAX_SIZE);
	sl_buf_add(&buf, ZERO32, 2);
	sl_pchain_utx_write(&buf, u);
	uint8_t hash[32];
	sl_sha256(buf.p, buf.len, hash);
	uint32_t ncreds = b->nins + b->nimp + (u->has_auth ? 1 : 0);
	sl_credential *creds = sl_arena_array(b->a, ncreds + 1, sizeof *creds);
	bool ok = !buf.err && creds;
	uint32_t c = 0;
	for (uint32_t i = 0; ok && i < b->nins; i++)
		ok = b_cred(b, &creds[c++], b->ins[i].signers, b->ins[i].nsig, hash);
	for (uint32_t i = 0; ok && i < b->nimp; i++)
		ok = b_cred(b, &creds[c++], b->imp[i].signers, b->imp[i].nsig, hash);
	if (ok && u->has_auth)
		ok = b_cred(b, &creds[c++], b->auth, b->nauth, hash);
	b->tx->creds = creds;
	b->tx->ncreds = ok ? ncreds : 0;
	sl_buf_reset(&buf);
	if (ok)
		ok = sl_pchain_tx_encode(&buf, b->tx) == SL_OK;
	if (ok)
		sl_sha256(buf.p, buf.len, b->id);
	sl_buf_release(&buf);
	if (!ok)
		goto fail;
	memcpy(b->tx->id, b->id, 32);

	/* The ledger: outputs at their sorted index; exports to the destination's shared memory. */
	for (uint32_t i = 0; i < b->nouts[L_BASE]; i++) {
		dn_utxo *o = &b->outs[L_BASE][i].u;
		memcpy(o->tx_id, b->id, 32);
		o->index = i;
		if (!dn_utxo_add(&w->utxos[DN_P], o))
			return false;
	}
	for (uint32_t i = 0; i < b->nouts[L_EXPORT]; i++) {
		dn_utxo *o = &b->outs[L_EXPORT][i].u;
		memcpy(o->tx_id, b->id, 32);
		o->index = b->nouts[L_BASE] + i;
		if (!dn_utxo_add(&w->shared[b->export_dst][DN_P], o))
			return false;
	}
	b->p->counts[u->type_id]++;
	b->p->seq++;
	return true;
fail:
	b_abandon(b);
	return false;
}

/* Add a UTXO the chain creates without an output in the tx (stake returns, rewards, refunds). */
static bool ledger_add(dn_world *w, const uint8_t tx_id[32], uint32_t index, uint64_t amount,
		       const p_owner *o, uint64_t lock)
{
	dn_utxo u = { .index = index,
		      .type_id = lock ? SL_T_STAKEABLE_LOCK_OUT : SL_T_SECP_TRANSFER_OUTPUT,
		      .amount = amount,
		      .stake_until = lock };
	memcpy(u.tx_id, tx_id, 32);
	memcpy(u.asset_id, w->avax, 32);
	utxo_set_owner(&u, o);
	return dn_utxo_add(&w->utxos[DN_P], &u) != NULL;
}

/* A key that can pay `amount` of unlocked AVAX now (a few tries), or -1. */
static int64_t payer(dn_world *w, dn_rng *r, uint64_t amount)
{
	for (int tries = 0; tries < 6; tries++) {
		uint32_t k = (uint32_t)dn_rng_below(r, w->nkeys);
		dn_utxo *sel[16];
		uint64_t total;
		if (dn_utxo_select(w, &w->utxos[DN_P], k, w->avax, amount, sel, SL_ARRAY_LEN(sel), &total))
			return k;
	}
	return -1;
}

static void b_memo(p_build *b, const char *text)
{
	b->tx->utx.base.memo = sl_span_of(b_copy(b, text, strlen(text)), strlen(text));
}

static void b_auth(p_build *b, const p_owner *o)
{
	sl_pchain_utx *u = &b->tx->utx;
	uint8_t *idx = sl_arena_alloc(b->a, 4 * (size_t)o->threshold + 1);
	if (!idx) {
		b->failed = true;
		return;
	}
	for (uint32_t i = 0; i < o->threshold; i++) {
		sl_put_be32(idx + 4 * i, i);
		b->auth[i] = o->keys[i];
	}
	b->nauth = o->threshold;
	u->has_auth = true;
	u->auth = (sl_sigidx){ .n = o->threshold, .p = idx };
}

/* ---- genesis ------------------------------------------------------------------------- */

static int32_t staker_new(struct dn_pstate *p)
{
	p_staker *s = PUSH(p->st, p->nst, p->capst);
	if (!s)
		return -1;
	memset(s, 0, sizeof *s);
	s->val = -1;
	s->subnet = -1;
	return (int32_t)(p->nst - 1);
}

/*
 * The staker record of a staker tx that b has just finished: its id, type,
 * node and period. Returns its index, or -1 when out of memory. The staker
 * array may move, so pointers into it taken before the call are stale after.
 */
static int32_t staker_of_tx(struct dn_pstate *p, const p_build *b, uint32_t type_id, uint32_t node,
			    uint64_t accepted, uint64_t start, uint64_t end, uint64_t weight)
{
	int32_t i = staker_new(p);
	if (i < 0)
		return -1;
	p_staker *s = &p->st[i];
	memcpy(s->tx_id, b->id, 32);
	s->type_id = type_id;
	s->node = node;
	s->accepted = accepted;
	s->start = start;
	s->end = end;
	s->weight = weight;
	return i;
}

/*
 * A genesis validator with a signer as avalanchego's genesis builds it: an AddPermissionlessValidatorTx
 * of network id and empty blockchain id, no inputs or outputs, its validator (primary network), the
 * signer, its stake outputs, the one owner for validation and delegation rewards, its shares; no
 * credentials. Its id is sha256 of these bytes (00 00 | signed tx). Appends them to out.
 */
static sl_err genesis_tx_write(const dn_world *w, const p_staker *s, sl_buf *out)
{
	sl_arena a;
	sl_arena_init(&a, 1u << 16);
	sl_pchain_tx *tx = sl_arena_zalloc(&a, sizeof *tx);
	sl_avax_out *stake = sl_arena_array(&a, s->nstake + 1, sizeof *stake);
	sl_err e = SL_ERR_NOMEM;
	if (!tx || !stake)
		goto out;
	for (uint32_t k = 0; k < s->nstake; k++) {
		const p_stake *st = &s->stake[k];
		stake[k] = (sl_avax_out){ .asset_id = w->avax,
					  .out = { .type_id = st->lock ? SL_T_STAKEABLE_LOCK_OUT
								       : SL_T_SECP_TRANSFER_OUTPUT,
						   .fx_type_id = SL_T_SECP_TRANSFER_OUTPUT,
						   .lock_locktime = st->lock,
						   .amount = st->amount,
						   .owners = owners_view(&a, w, &st->owner) } };
		if (!stake[k].out.owners.addrs)
			goto out;
	}
	sl_pchain_utx *u = &tx->utx;
	u->type_id = SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX;
	u->has_base = true;
	u->base.network_id = w->cfg.network_id;
	u->base.blockchain_id = ZERO32;
	u->node_id = w->nodes[s->node].node_id;
	u->start = s->start;
	u->end = s->end;
	u->weight = s->weight;
	u->subnet_id = ZERO32;
	u->signer = (sl_pchain_signer){ .type_id = SL_P_SIGNER_POP,
					.public_key = w->nodes[s->node].bls_pk,
					.pop = w->nodes[s->node].pop };
	u->stake = stake;
	u->nstake = s->nstake;
	u->rewards_owner = owners_view(&a, w, &s->rewards);
	u->delegation_owner = owners_view(&a, w, &s->delegation);
	u->shares = s->shares;
	if (!u->rewards_owner.addrs || !u->delegation_owner.addrs)
		goto out;
	e = sl_pchain_tx_encode(out, tx);
	if (!e && out->err)
		e = SL_ERR_TOO_LARGE;
out:
	sl_arena_release(&a);
	return e;
}

sl_err dn_p_init(dn_world *w)
{
	struct dn_pstate *p = calloc(1, sizeof *p);
	if (!p)
		return SL_ERR_NOMEM;
	w->p = p;
	dn_rng_init(&p->rng, w->seed, "pchain");
	dn_rng *r = &p->rng;
	p->rc = (sl_reward_config){
		.max_consumption_rate = w->params.max_consumption_rate,
		.min_consumption_rate = w->params.min_consumption_rate,
		.minting_period_s = w->params.minting_period,
		.supply_cap = w->params.supply_cap,
	};
	derive_id(w, "genesis", 0, p->genesis_id);
	p->node_val = malloc(((size_t)w->nnodes + 1) * sizeof *p->node_val);
	if (!p->node_val)
		return SL_ERR_NOMEM;
	for (uint32_t i = 0; i < w->nnodes; i++)
		p->node_val[i] = -1;
	uint32_t nval = SL_MIN(w->cfg.validators, w->nnodes / 2);
	p->l1_lo = w->nnodes > nval + 2 * L1_POOL ? w->nnodes - L1_POOL : w->nnodes;
	p->pool_lo = nval;
	p->pool_hi = p->l1_lo;

	/* Allocations: one unlocked output per account, stakeable-locked ones for some, a few shared. */
	uint64_t start = w->cfg.start_time, total = 0;
	uint32_t idx = 0;
	for (uint32_t k = 0; k < w->nkeys; k++) {
		p_owner o = owner_one(k);
		uint64_t amt = avax(dn_rng_range(r, 1000000, 6000000));
		if (!ledger_add(w, p->genesis_id, idx++, amt, &o, 0))
			return SL_ERR_NOMEM;
		total += amt;
		if (dn_rng_chance(r, 30)) {
			uint64_t lock = start + dn_rng_range(r, 20, 240) * DAY;
			amt = avax(dn_rng_range(r, 50000, 500000));
			if (!ledger_add(w, p->genesis_id, idx++, amt, &o, lock))
				return SL_ERR_NOMEM;
			total += amt;
		}
	}
	for (uint32_t i = 0; i < 6 && w->nkeys >= 3; i++) {
		uint32_t n = (uint32_t)dn_rng_range(r, 2, 3);
		p_owner o = owner_random(w, r, -1, n, (uint32_t)dn_rng_range(r, 1, n));
		if (i % 3 == 2)
			o.locktime = start + dn_rng_range(r, 5, 40) * DAY;
		uint64_t amt = avax(dn_rng_range(r, 1000, 20000));
		if (!ledger_add(w, p->genesis_id, idx++, amt, &o, 0))
			return SL_ERR_NOMEM;
		total += amt;
	}

	if (!dn_utxos_copy(&p->genesis, &w->utxos[DN_P]))
		return SL_ERR_NOMEM;

	/*
	 * Genesis validators: AddValidatorTx records with one stake output and no other outputs; with
	 * genesis signers, AddPermissionlessValidatorTx ones whose signer is the node's BLS key and
	 * proof of possession, the same owner for validation and delegation rewards (as avalanchego's
	 * genesis builds a staker that has a signer).
	 */
	bool signers = w->cfg.genesis_signers;
	p->ngenesis_val = nval;
	for (uint32_t i = 0; i < nval; i++) {
		int32_t si = staker_new(p);
		if (si < 0)
			return SL_ERR_NOMEM;
		p_staker *s = &p->st[si];
		derive_id(w, "genesis-validator", i, s->tx_id);
		s->type_id = signers ? SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX : SL_P_ADD_VALIDATOR_TX;
		s->node = i;
		s->start = s->accepted = start;
		s->end = start + GENESIS_VALIDATOR_DAYS * DAY;
		s->weight = avax(dn_rng_range(r, 100000, 400000));
		s->shares = (uint32_t)dn_rng_range(r, 2, 10) * 10000;
		s->rewards = s->delegation = owner_one(w->nkeys ? i % w->nkeys : 0);
		s->nstake = 1;
		s->stake[0] = (p_stake){ .amount = s->weight, .owner = s->rewards };
		if (signers) {
			/* its id is its bytes' hash, as for any genesis tx of avalanchego */
			sl_buf tb;
			sl_buf_init(&tb, SL_CODEC_MAX_SIZE);
			sl_err e = genesis_tx_write(w, s, &tb);
			if (!e)
				sl_sha256(tb.p, tb.len, s->tx_id);
			sl_buf_release(&tb);
			if (e)
				return e;
		}
		total += s->weight;
		p->node_val[i] = si;
		if (!pval_add(p, (uint32_t)si, 0) ||
		    !vlog(p, -1, i, false, s->weight, V_GENESIS, signers ? 2 : 1))
			return SL_ERR_NOMEM;
	}
	p->vflushed = p->nvlog; /* the genesis validators: height 0 */
	w->supply += total;
	w->params.genesis_supply += total;
	for (size_t i = 0; i < p->nst; i++) {
		p_staker *s = &p->st[i];
		s->potential = sl_reward_calculate(&p->rc, s->end - s->start, s->weight, w->supply);
		w->supply += s->potential;
		if (!heap_push(p, &p->cur, s->end, (uint32_t)i, 1))
			return SL_ERR_NOMEM;
	}
	return SL_OK;
}

void dn_p_free(dn_world *w)
{
	struct dn_pstate *p = w->p;
	if (!p)
		return;
	free(p->genesis.v);
	free(p->st);
	free(p->cur.v);
	free(p->pend.v);
	free(p->subvals);
	free(p->node_val);
	free(p->pvals);
	free(p->sn);
	free(p->chains);
	free(p->l1);
	free(p->vlog);
	free(p);
	w->p = NULL;
}

/* ---- txs: transfers ---------------------------------------------------------------------- */

static const char *const memos[] = { "",
				     "",
				     "",
				     "",
				     "rent",
				     "payroll",
				     "gm",
				     "thanks!",
				     "invoice 2024-117",
				     "refund",
				     "OTC settlement",
				     "🏔 snowline" };

static bool tx_base(p_build *b, uint64_t t)
{
	dn_world *w = b->w;
	dn_rng *r = &b->p->rng;
	uint64_t fee = dn_fee(w, DN_P, SL_P_BASE_TX);
	if (!durango(w, t))
		return false; /* the P-chain's BaseTx came with Durango */
	if (dn_rng_chance(r, 12)) {
		/* Spend a multi-owner output that is unlocked by now, with `threshold` of its owners. */
		dn_utxos *set = &w->utxos[DN_P];
		size_t n = set->n, off = n ? dn_rng_below(r, n) : 0;
		for (size_t i = 0; i < n; i++) {
			dn_utxo *u = &set->v[(off + i) % n];
			if (u->spent || u->nowners < 2 || u->type_id != SL_T_SECP_TRANSFER_OUTPUT ||
			    u->locktime > t || u->amount <= fee)
				continue;
			p_owner to = owner_one(u->owners[0]);
			uint64_t amt = u->amount - fee;
			b_in(b, set, u, false);
			if (dn_rng_chance(r, 50) && amt > 2 * DN_NANO) {
				uint64_t part = amt / 3;
				p_owner o2 = owner_one((uint32_t)dn_rng_below(r, w->nkeys));
				b_out(b, L_BASE, part, &o2, 0);
				amt -= part;
			}
			b_out(b, L_BASE, amt, &to, 0);
			return b_finish(b);
		}
	}
	uint32_t nto = dn_rng_chance(r, 25) ? 2 : 1;
	uint64_t amounts[2], sum = 0;
	for (uint32_t i = 0; i < nto; i++) {
		amounts[i] = dn_rng_chance(r, 80) ? amount_between(r, DN_NANO / 10, avax(500))
						  : amount_between(r, avax(500), avax(20000));
		sum += amounts[i];
	}
	int64_t k = payer(w, r, sum + fee);
	if (k < 0)
		return false;
	for (uint32_t i = 0; i < nto; i++) {
		p_owner o;
		unsigned roll = (unsigned)dn_rng_below(r, 100);
		if (roll < 10)
			o = owner_random(w, r, -1, (uint32_t)dn_rng_range(r, 2, 3),
					 (uint32_t)dn_rng_range(r, 1, 2));
		else
			o = owner_one((uint32_t)dn_rng_below(r, w->nkeys));
		if (roll >= 10 && roll < 18)
			o.locktime = t + dn_rng_range(r, 3600, 20 * DAY);
		b_out(b, L_BASE, amounts[i], &o, 0);
	}
	if (!b_pay(b, (uint32_t)k, sum + fee)) {
		b_abandon(b);
		return false;
	}
	return b_finish(b); /* no memo: Durango requires it empty */
}

/* ---- txs: primary network staking ------------------------------------------------------------ */

/* A stakeable-locked UTXO of k still locked at t and worth at least `min`, or NULL. */
static dn_utxo *locked_utxo(dn_world *w, uint32_t k, uint64_t t, uint64_t min)
{
	/* Only the oldest entries (genesis locks come first): a full scan per staker would be quadratic. */
	dn_utxos *set = &w->utxos[DN_P];
	for (size_t i = 0; i < set->n && i < 4096; i++) {
		dn_utxo *u = &set->v[i];
		if (!u->spent && u->type_id == SL_T_STAKEABLE_LOCK_OUT && u->stake_until > t &&
		    u->nowners == 1 && u->threshold == 1 && u->owners[0] == k && u->locktime <= t &&
		    u->amount >= min)
			return u;
	}
	return NULL;
}

/* Stake `weight` from k: from a stakeable lock when `lockok` and one fits, else unlocked funds. */
static bool b_stake(p_build *b, uint32_t k, uint64_t weight, uint64_t t, bool lockok)
{
	p_owner o = owner_one(k);
	dn_utxo *lu = lockok ? locked_utxo(b->w, k, t, weight) : NULL;
	if (lu) {
		uint64_t lock = lu->stake_until, amt = lu->amount;
		b_in(b, &b->w->utxos[DN_P], lu, false);
		b_out(b, L_STAKE, weight, &o, lock);
		b_out(b, L_BASE, amt - weight, &o, lock);
		return !b->failed;
	}
	if (!b_pay(b, k, weight))
		return false;
	if (weight > avax(4000) && dn_rng_chance(&b->p->rng, 30)) {
		uint64_t part = weight / 4;
		b_out(b, L_STAKE, part, &o, 0);
		b_out(b, L_STAKE, weight - part, &o, 0);
	} else {
		b_out(b, L_STAKE, weight, &o, 0);
	}
	return !b->failed;
}

static p_owner reward_owner(const dn_world *w, dn_rng *r, uint32_t k)
{
	unsigned roll = (unsigned)dn_rng_below(r, 100);
	if (roll < 75)
		return owner_one(k);
	if (roll < 90)
		return owner_one((uint32_t)dn_rng_below(r, w->nkeys));
	return owner_random(w, r, k, 3, 2);
}

static void stake_record(p_staker *s, const p_build *b)
{
	s->nouts = b->nouts[L_BASE];
	s->nstake = b->nouts[L_STAKE];
	for (uint32_t i = 0; i < s->nstake && i < MAX_STAKE; i++) {
		const dn_utxo *u = &b->outs[L_STAKE][i].u;
		s->stake[i] =
			(p_stake){ .amount = u->amount, .lock = u->stake_until, .owner = utxo_owner(u) };
	}
}

static bool tx_validator(p_build *b, uint64_t t)
{
	dn_world *w = b->w;
	struct dn_pstate *p = b->p;
	dn_rng *r = &p->rng;
	uint32_t span = p->pool_hi - p->pool_lo, node = UINT32_MAX;
	if (span == 0)
		return false;
	uint32_t off = (uint32_t)dn_rng_below(r, span);
	for (uint32_t i = 0; i < span && node == UINT32_MAX; i++)
		if (p->node_val[p->pool_lo + (off + i) % span] < 0)
			node = p->pool_lo + (off + i) % span;
	if (node == UINT32_MAX)
		return false;
	uint32_t k = (uint32_t)dn_rng_below(r, w->nkeys);
	uint64_t weight = dn_rng_chance(r, 70) ? avax(dn_rng_range(r, 2000, 10000))
					       : avax(dn_rng_range(r, 10000, 80000));
	uint64_t dur = dn_rng_range(r, 14 * DAY, 30 * DAY) + dn_rng_below(r, 3600);
	uint64_t start = staker_start_time(w, p, t);
	if (dur < w->params.min_stake_duration || weight < w->params.min_validator_stake ||
	    start > t + MAX_FUTURE_START)
		return false;
	if (!b_stake(b, k, weight, t, dn_rng_chance(r, 40))) {
		b_abandon(b);
		return false;
	}
	p_owner ro = reward_owner(w, r, k);
	p_owner dlo = dn_rng_chance(r, 60) ? ro : owner_one((uint32_t)dn_rng_below(r, w->nkeys));
	uint32_t shares = w->params.min_delegation_fee + 1000 * (uint32_t)dn_rng_below(r, 80);
	sl_pchain_utx *u = &b->tx->utx;
	u->node_id = w->nodes[node].node_id;
	u->start = start;
	u->end = start + dur;
	u->weight = weight;
	u->subnet_id = ZERO32;
	u->signer = (sl_pchain_signer){ .type_id = SL_P_SIGNER_POP,
					.public_key = w->nodes[node].bls_pk,
					.pop = w->nodes[node].pop };
	u->rewards_owner = owners_view(b->a, w, &ro);
	u->delegation_owner = owners_view(b->a, w, &dlo);
	u->shares = shares;
	if (!b_finish(b))
		return false;
	int32_t si =
		staker_of_tx(p, b, SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX, node, t, start, start + dur, weight);
	if (si < 0)
		return false;
	p_staker *s = &p->st[si];
	s->shares = shares;
	s->rewards = ro;
	s->delegation = dlo;
	stake_record(s, b);
	s->bad_uptime = dn_rng_chance(r, 8);
	p->node_val[node] = si; /* pending or current: the node cannot validate twice */
	return staker_begin(w, p, (uint32_t)si, PRIO_PENDING_VALIDATOR);
}

/*
 * A current (not pending) primary validator whose period has at least `room`
 * seconds left after t, or -1. Current, so it started before any t at or
 * after now: a staker on it is inside its period from its start on.
 */
static int32_t pick_validator(struct dn_pstate *p, const dn_world *w, uint64_t t, uint64_t room)
{
	uint32_t n = p->pool_hi;
	if (n == 0)
		return -1;
	uint32_t off = (uint32_t)dn_rng_below(&p->rng, n);
	for (uint32_t i = 0; i < n; i++) {
		int32_t v = p->node_val[(off + i) % n];
		if (v >= 0 && p->st[v].status == ST_ACTIVE && p->st[v].end > t + room)
			return v;
	}
	(void)w;
	return -1;
}

static bool tx_delegator(p_build *b, uint64_t t)
{
	dn_world *w = b->w;
	struct dn_pstate *p = b->p;
	dn_rng *r = &p->rng;
	uint64_t min_dur = w->params.min_stake_duration;
	uint64_t start = staker_start_time(w, p, t);
	int32_t v = pick_validator(p, w, start, min_dur + 2 * 3600);
	if (v < 0)
		return false;
	const p_staker *vs = &p->st[v];
	uint64_t max_total = SL_MIN(w->params.max_validator_stake, 5 * vs->weight);
	uint64_t room = max_total > vs->weight + vs->delegated ? max_total - vs->weight - vs->delegated : 0;
	uint64_t amt = dn_rng_chance(r, 80) ? amount_between(r, avax(25), avax(2000))
					    : amount_between(r, avax(2000), avax(50000));
	amt = SL_MIN(amt, room);
	if (amt < w->params.min_delegator_stake)
		return false;
	uint64_t end = start + dn_rng_range(r, min_dur, vs->end - start - 1);
	if (end >= vs->end || end - start < min_dur)
		return false;
	uint32_t k = (uint32_t)dn_rng_below(r, w->nkeys);
	if (!b_stake(b, k, amt, t, dn_rng_chance(r, 25))) {
		b_abandon(b);
		return false;
	}
	p_owner ro = dn_rng_chance(r, 85) ? owner_one(k) : owner_one((uint32_t)dn_rng_below(r, w->nkeys));
	sl_pchain_utx *u = &b->tx->utx;
	u->node_id = w->nodes[vs->node].node_id;
	u->start = start;
	u->end = end;
	u->weight = amt;
	u->subnet_id = ZERO32;
	u->rewards_owner = owners_view(b->a, w, &ro);
	if (!b_finish(b))
		return false;
	int32_t si = staker_of_tx(p, b, SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX, vs->node, t, start, end, amt);
	if (si < 0)
		return false;
	p_staker *s = &p->st[si];
	vs = &p->st[v];
	s->val = v;
	s->rewards = ro;
	stake_record(s, b);
	/* Pending delegators count against the cap from now on: a bound on the real rule (the peak weight). */
	p->st[v].delegated += amt;
	p->st[v].ndelegators++;
	return staker_begin(w, p, (uint32_t)si, PRIO_PENDING_DELEGATOR);
}

/* ---- txs: atomic ----------------------------------------------------------------------------- */

static bool tx_export(p_build *b, uint64_t t, int dst)
{
	dn_world *w = b->w;
	dn_rng *r = &b->p->rng;
	uint64_t fee = dn_fee(w, DN_P, SL_P_EXPORT_TX);
	uint32_t n = dn_rng_chance(r, 20) ? 2 : 1;
	uint64_t amts[2], sum = 0;
	for (uint32_t i = 0; i < n; i++)
		sum += amts[i] = amount_between(r, DN_NANO, avax(3000));
	int64_t k = payer(w, r, sum + fee);
	if (k < 0)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		p_owner o = owner_one(i == 0 && dn_rng_chance(r, 70) ? (uint32_t)k
								     : (uint32_t)dn_rng_below(r, w->nkeys));
		b_out(b, L_EXPORT, amts[i], &o, 0);
	}
	if (!b_pay(b, (uint32_t)k, sum + fee)) {
		b_abandon(b);
		return false;
	}
	/* Accepted with its block, at t: importers take it from the next second on. */
	for (uint32_t i = 0; i < b->nouts[L_EXPORT]; i++)
		b->outs[L_EXPORT][i].u.avail = t;
	if (!durango(w, t) && dn_rng_chance(r, 25)) /* memos were allowed until Durango */
		b_memo(b, memos[dn_rng_below(r, SL_ARRAY_LEN(memos))]);
	b->export_dst = dst;
	b->tx->utx.chain = w->chain[dst].id;
	return b_finish(b);
}

static bool tx_import(p_build *b, uint64_t t, int src)
{
	dn_world *w = b->w;
	dn_rng *r = &b->p->rng;
	dn_utxos *set = &w->shared[DN_P][src];
	uint64_t fee = dn_fee(w, DN_P, SL_P_IMPORT_TX);
	size_t n = set->n;
	if (n == 0)
		return false;
	size_t off = dn_rng_below(r, n);
	int64_t owner = -1;
	uint64_t total = 0;
	for (size_t i = 0; i < n && b->nimp < 3; i++) {
		dn_utxo *u = &set->v[(off + i) % n];
		if (u->spent || u->nowners != 1 || u->threshold != 1 ||
		    u->type_id != SL_T_SECP_TRANSFER_OUTPUT || u->locktime > t || u->avail >= t ||
		    memcmp(u->asset_id, w->avax, 32) || (owner >= 0 && u->owners[0] != owner))
			continue;
		owner = u->owners[0];
		total += u->amount;
		b_in(b, set, u, true);
	}
	if (owner < 0 || total <= fee) {
		b_abandon(b);
		return false;
	}
	p_owner o = owner_one(dn_rng_chance(r, 85) ? (uint32_t)owner : (uint32_t)dn_rng_below(r, w->nkeys));
	b_out(b, L_BASE, total - fee, &o, 0);
	b->tx->utx.chain = w->chain[src].id;
	return b_finish(b);
}

/* ---- txs: subnets ------------------------------------------------------------------------------ */

/*
 * A subnet that is still permissioned (not an L1), or -1; `for_validators`:
 * not one planned to become an L1 (every second subnet is: it never gets
 * permissioned validators, so a ConvertSubnetToL1Tx can find one whenever
 * Etna's txs begin).
 */
static int32_t pick_subnet(struct dn_pstate *p, bool for_validators)
{
	if (p->nsn == 0)
		return -1;
	size_t off = dn_rng_below(&p->rng, p->nsn);
	for (size_t i = 0; i < p->nsn; i++) {
		size_t s = (off + i) % p->nsn;
		if (!p->sn[s].l1 && (!for_validators || s % 2 == 0))
			return (int32_t)s;
	}
	return -1;
}

static bool tx_create_subnet(p_build *b, uint64_t t)
{
	dn_world *w = b->w;
	struct dn_pstate *p = b->p;
	dn_rng *r = &p->rng;
	int64_t k = payer(w, r, dn_fee(w, DN_P, SL_P_CREATE_SUBNET_TX));
	if (k < 0 || !b_pay(b, (uint32_t)k, dn_fee(w, DN_P, SL_P_CREATE_SUBNET_TX))) {
		b_abandon(b);
		return false;
	}
	unsigned roll = (unsigned)dn_rng_below(r, 100);
	p_owner o = roll < 50	? owner_one((uint32_t)k)
		    : roll < 85 ? owner_random(w, r, k, 3, 2)
				: owner_random(w, r, k, 2, 1);
	b->tx->utx.owner = owners_view(b->a, w, &o);
	(void)t;
	if (!b_finish(b))
		return false;
	p_subnet *s = PUSH(p->sn, p->nsn, p->capsn);
	if (!s)
		return false;
	memset(s, 0, sizeof *s);
	memcpy(s->id, b->id, 32);
	s->owner = o;
	return true;
}

/* "subnetevm" zero-padded: Subnet-EVM's VM id (srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy). */
static const uint8_t SUBNET_EVM_VM_ID[32] = { 's', 'u', 'b', 'n', 'e', 't', 'e', 'v', 'm' };

static const char *const chain_names[] = { "dexchain", "gamechain", "nftworld", "payments", "loyalty",
					   "carbon",   "rwa",	    "oracle",	"bridge",   "metaverse" };

/* A Subnet-EVM genesis: chain config with fee config, and allocations to some accounts' EVM addresses. */
static sl_span evm_genesis(p_build *b, uint64_t chain_id, uint64_t t)
{
	dn_world *w = b->w;
	dn_rng *r = &b->p->rng;
	sl_buf g;
	sl_buf_init(&g, 1u << 16);
	sl_buf_addf(
		&g,
		"{\"config\":{\"chainId\":%llu,\"homesteadBlock\":0,\"eip150Block\":0,\"eip155Block\":0,"
		"\"eip158Block\":0,\"byzantiumBlock\":0,\"constantinopleBlock\":0,\"petersburgBlock\":0,"
		"\"istanbulBlock\":0,\"muirGlacierBlock\":0,\"subnetEVMTimestamp\":0,\"durangoTimestamp\":0,"
		"\"feeConfig\":{\"gasLimit\":%u,\"targetBlockRate\":2,\"minBaseFee\":%llu,\"targetGas\":%u,"
		"\"baseFeeChangeDenominator\":36,\"minBlockGasCost\":0,\"maxBlockGasCost\":1000000,"
		"\"blockGasCostStep\":200000},\"allowFeeRecipients\":false,"
		"\"warpConfig\":{\"blockTimestamp\":%llu,\"quorumNumerator\":67}},\"alloc\":{",
		(unsigned long long)chain_id, dn_rng_chance(r, 50) ? 8000000u : 15000000u,
		(unsigned long long)(dn_rng_chance(r, 50) ? 25000000000ull : 1000000000ull),
		dn_rng_chance(r, 50) ? 15000000u : 20000000u, (unsigned long long)t);
	uint32_t n = (uint32_t)dn_rng_range(r, 1, 4);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = (uint32_t)dn_rng_below(r, w->nkeys);
		sl_buf_adds(&g, i ? ",\"" : "\"");
		sl_buf_add_hex(&g, w->keys[k].evm, 20);
		/* balance in wei: up to a million whole tokens, past 64 bits */
		unsigned __int128 wei =
			(unsigned __int128)dn_rng_range(r, 1, 1000000) * 1000000000000000000ull;
		char hex[40];
		size_t h = sizeof hex;
		hex[--h] = 0;
		do {
			hex[--h] = "0123456789abcdef"[(unsigned)(wei & 15)];
			wei >>= 4;
		} while (wei);
		sl_buf_addf(&g, "\":{\"balance\":\"0x%s\"}", hex + h);
	}
	sl_buf_addf(
		&g,
		"},\"nonce\":\"0x0\",\"timestamp\":\"0x%llx\",\"extraData\":\"0x\",\"gasLimit\":\"0x%x\","
		"\"difficulty\":\"0x0\",\"mixHash\":\"0x0000000000000000000000000000000000000000000000000000000000000000\","
		"\"coinbase\":\"0x0000000000000000000000000000000000000000\",\"number\":\"0x0\",\"gasUsed\":\"0x0\","
		"\"parentHash\":\"0x0000000000000000000000000000000000000000000000000000000000000000\"}",
		(unsigned long long)t, 8000000u);
	sl_span s = { 0 };
	if (!g.err)
		s = sl_span_of(b_copy(b, g.p, g.len), g.len);
	else
		b->failed = true;
	sl_buf_release(&g);
	return s;
}

static bool tx_create_chain(p_build *b, uint64_t t)
{
	dn_world *w = b->w;
	struct dn_pstate *p = b->p;
	dn_rng *r = &p->rng;
	int32_t si = pick_subnet(p, false);
	if (si < 0 || p->sn[si].nchains >= SL_ARRAY_LEN(p->sn[si].chains))
		return false;
	uint64_t fee = dn_fee(w, DN_P, SL_P_CREATE_CHAIN_TX);
	int64_t k = payer(w, r, fee);
	if (k < 0 || !b_pay(b, (uint32_t)k, fee)) {
		b_abandon(b);
		return false;
	}
	char name[32];
	snprintf(name, sizeof name, "%s%s", chain_names[dn_rng_below(r, SL_ARRAY_LEN(chain_names))],
		 p->nchains % 3 == 2 ? "-testnet" : "");
	sl_pchain_utx *u = &b->tx->utx;
	u->subnet_id = b_copy(b, p->sn[si].id, 32);
	u->chain_name = sl_span_of(b_copy(b, name, strlen(name)), strlen(name));
	u->vm_id = SUBNET_EVM_VM_ID;
	u->genesis = evm_genesis(b, 10000 + dn_rng_below(r, 90000), t);
	b_auth(b, &p->sn[si].owner);
	if (!b_finish(b))
		return false;
	p_chainrec *c = PUSH(p->chains, p->nchains, p->capchains);
	if (!c)
		return false;
	memcpy(c->id, b->id, 32);
	c->subnet = (uint32_t)si;
	snprintf(c->name, sizeof c->name, "%s", name);
	p->sn[si].chains[p->sn[si].nchains++] = (uint32_t)(p->nchains - 1);
	p->l1_dirty = true;
	return true;
}

static bool tx_add_subnet_validator(p_build *b, uint64_t t)
{
	dn_world *w = b->w;
	struct dn_pstate *p = b->p;
	dn_rng *r = &p->rng;
	int32_t si = pick_subnet(p, true);
	uint64_t start = staker_start_time(w, p, t);
	int32_t v = pick_validator(p, w, start, w->params.min_stake_duration + 2 * 3600);
	if (si < 0 || v < 0)
		return false;
	uint32_t node = p->st[v].node;
	for (size_t i = 0; i < p->nsubvals; i++)
		if (p->st[p->subvals[i]].subnet == si && p->st[p->subvals[i]].node == node)
			return false;
	for (size_t i = 0; i < p->pend.n; i++) /* nor a pending one */
		if (p->st[p->pend.v[i].idx].subnet == si && p->st[p->pend.v[i].idx].node == node)
			return false;
	uint64_t end = start + dn_rng_range(r, w->params.min_stake_duration, p->st[v].end - start - 3600);
	uint64_t fee = dn_fee(w, DN_P, SL_P_ADD_SUBNET_VALIDATOR_TX);
	int64_t k = payer(w, r, fee);
	if (k < 0 || !b_pay(b, (uint32_t)k, fee)) {
		b_abandon(b);
		return false;
	}
	uint64_t weight = dn_rng_range(r, 1, 100) * 20;
	sl_pchain_utx *u = &b->tx->utx;
	u->node_id = w->nodes[node].node_id;
	u->start = start;
	u->end = end;
	u->weight = weight;
	u->subnet_id = b_copy(b, p->sn[si].id, 32);
	b_auth(b, &p->sn[si].owner);
	if (!b_finish(b))
		return false;
	int32_t x = staker_of_tx(p, b, SL_P_ADD_SUBNET_VALIDATOR_TX, node, t, start, end, weight);
	if (x < 0)
		return false;
	p->st[x].subnet = si;
	p->sn[si].nvalidators++; /* pending ones too: the subnet is not converted under them */
	return staker_begin(w, p, (uint32_t)x, PRIO_PENDING_SUBNET);
}

static bool subval_drop(struct dn_pstate *p, size_t i, uint8_t status)
{
	p_staker *s = &p->st[p->subvals[i]];
	s->status = status;
	p->sn[s->subnet].nvalidators--;
	p->subvals[i] = p->subvals[--p->nsubvals];
	return vlog(p, s->subnet, s->node, true, s->weight, status == ST_REMOVED ? V_SUB_REMOVE : V_SUB_END,
		    0);
}

static bool tx_remove_subnet_validator(p_build *b, uint64_t t)
{
	dn_world *w = b->w;
	struct dn_pstate *p = b->p;
	if (p->nsubvals == 0)
		return false;
	size_t i = dn_rng_below(&p->rng, p->nsubvals);
	const p_staker *s = &p->st[p->subvals[i]];
	if (p->sn[s->subnet].l1 || s->end <= t)
		return false;
	uint64_t fee = dn_fee(w, DN_P, SL_P_REMOVE_SUBNET_VALIDATOR_TX);
	int64_t k = payer(w, &p->rng, fee);
	if (k < 0 || !b_pay(b, (uint32_t)k, fee)) {
		b_abandon(b);
		return false;
	}
	sl_pchain_utx *u = &b->tx->utx;
	u->node_id = w->nodes[s->node].node_id;
	u->subnet_id = b_copy(b, p->sn[s->subnet].id, 32);
	b_auth(b, &p->sn[s->subnet].owner);
	if (!b_finish(b))
		return false;
	return subval_drop(p, i, ST_REMOVED);
}

static bool tx_transfer_ownership(p_build *b, uint64_t t)
{
	dn_world *w = b->w;
	struct dn_pstate *p = b->p;
	dn_rng *r = &p->rng;
	int32_t si = durango(w, t) ? pick_subnet(p, false) : -1; /* a Durango tx */
	if (si < 0)
		return false;
	uint64_t fee = dn_fee(w, DN_P, SL_P_TRANSFER_SUBNET_OWNERSHIP_TX);
	int64_t k = payer(w, r, fee);
	if (k < 0 || !b_pay(b, (uint32_t)k, fee)) {
		b_abandon(b);
		return false;
	}
	p_owner o = dn_rng_chance(r, 50) ? owner_one((uint32_t)dn_rng_below(r, w->nkeys))
					 : owner_random(w, r, -1, 3, 2);
	sl_pchain_utx *u = &b->tx->utx;
	u->subnet_id = b_copy(b, p->sn[si].id, 32);
	b_auth(b, &p->sn[si].owner);
	u->owner = owners_view(b->a, w, &o);
	if (!b_finish(b))
		return false;
	p->sn[si].owner = o;
	return true;
}

/* ---- txs: L1s ------------------------------------------------------------------------------------- */

/* BLS12-381 group order r, big-endian. */
static const uint8_t BLS_R[32] = { 0x73, 0xed, 0xa7, 0x53, 0x29, 0x9d, 0x7d, 0x48, 0x33, 0x39, 0xd8,
				   0x08, 0x09, 0xa1, 0xd8, 0x05, 0x53, 0xbd, 0xa4, 0x02, 0xff, 0xfe,
				   0x5b, 0xfe, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01 };

/* a = (a + b) mod r for big-endian scalars below r. */
static void scalar_add(uint8_t a[32], const uint8_t b[32])
{
	unsigned carry = 0;
	for (int i = 31; i >= 0; i--) {
		unsigned s = (unsigned)a[i] + b[i] + carry;
		a[i] = (uint8_t)s;
		carry = s >> 8;
	}
	if (carry || memcmp(a, BLS_R, 32) >= 0) {
		int borrow = 0;
		for (int i = 31; i >= 0; i--) {
			int d = (int)a[i] - BLS_R[i] - borrow;
			borrow = d < 0;
			a[i] = (uint8_t)(d + (borrow ? 256 : 0));
		}
	}
}

typedef struct p_signer {
	uint8_t raw[SL_BLS_PK_RAW_LEN];
	uint32_t node;
	uint64_t weight;
} p_signer;

static int signer_cmp(const void *x, const void *y)
{
	return memcmp(((const p_signer *)x)->raw, ((const p_signer *)y)->raw, SL_BLS_PK_RAW_LEN);
}

/* An L1's validator set at t: its active validators, by uncompressed public key (warp's order). */
static size_t l1_signers(struct dn_pstate *p, const dn_world *w, uint32_t si, uint64_t t, p_signer *out,
			 size_t max, uint64_t *total)
{
	size_t n = 0;
	*total = 0;
	for (size_t i = 0; i < p->nl1; i++) {
		const p_l1val *v = &p->l1[i];
		if (v->subnet != si || v->removed)
			continue;
		*total += v->weight;
		if (!l1_active(v, t) || n == max)
			continue;
		sl_bls_pk pk;
		sl_bls_sk_to_pk(&w->nodes[v->node].bls, &pk);
		sl_bls_pk_encode_raw(&pk, out[n].raw);
		out[n].node = v->node;
		out[n].weight = v->weight;
		n++;
	}
	qsort(out, n, sizeof *out, signer_cmp);
	return n;
}

/*
 * A signed warp message from the L1's manager chain carrying `l1msg` in an
 * AddressedCall, signed by the L1's active validators (sometimes all but
 * one, when the rest still make the 67% quorum of the set's weight).
 */
static sl_span warp_signed(p_build *b, uint32_t si, uint64_t t, sl_span l1msg)
{
	dn_world *w = b->w;
	struct dn_pstate *p = b->p;
	const p_subnet *s = &p->sn[si];
	p_signer sg[L1_POOL];
	uint64_t total;
	size_t n = l1_signers(p, w, si, t, sg, SL_ARRAY_LEN(sg), &total);
	bool use[L1_POOL];
	uint64_t signed_w = 0;
	for (size_t i = 0; i < n; i++) {
		use[i] = true;
		signed_w += sg[i].weight;
	}
	if (n > 1 && dn_rng_chance(&p->rng, 30)) {
		size_t drop = dn_rng_below(&p->rng, n);
		if ((signed_w - sg[drop].weight) * 100 >= total * 67) {
			use[drop] = false;
			signed_w -= sg[drop].weight;
		}
	}
	sl_span res = { 0 };
	if (n == 0 || signed_w * 100 < total * 67)
		return res;

	sl_buf pb, ub, mb;
	sl_buf_init(&pb, SL_CODEC_MAX_SIZE);
	sl_buf_init(&ub, SL_CODEC_MAX_SIZE);
	sl_buf_init(&mb, SL_CODEC_MAX_SIZE);
	sl_warp_payload pl = { .type = SL_WARP_PAYLOAD_ADDRESSED_CALL,
			       .source_address = sl_span_of(s->manager_addr, 20),
			       .payload = l1msg };
	sl_warp_unsigned um = { .network_id = w->cfg.network_id,
				.source_chain_id = sl_span_of(s->manager_chain, 32) };
	if (sl_warp_payload_encode(&pl, &pb))
		goto out;
	um.payload = sl_span_of(pb.p, pb.len);
	if (sl_warp_unsigned_encode(&um, &ub))
		goto out;
	/* Every signer signs the same bytes, so the aggregate is one signature by the sum of their keys. */
	uint8_t sum[32] = { 0 }, bits[(L1_POOL + 7) / 8] = { 0 };
	size_t nbits = 0;
	for (size_t i = 0; i < n; i++) {
		if (!use[i])
			continue;
		uint8_t sk[32];
		sl_bls_sk_encode(&w->nodes[sg[i].node].bls, sk);
		scalar_add(sum, sk);
		nbits = i + 1;
	}
	size_t nbytes = (nbits + 7) / 8;
	for (size_t i = 0; i < n; i++)
		if (use[i])
			bits[nbytes - 1 - i / 8] |= (uint8_t)(1u << (i % 8));
	sl_bls_sk agg_sk;
	sl_bls_sig sig;
	uint8_t sig96[SL_BLS_SIG_LEN];
	if (sl_bls_sk_decode(&agg_sk, sum))
		goto out; /* the keys summed to zero: cannot happen with derived keys */
	sl_bls_sign(&agg_sk, ub.p, ub.len, &sig);
	sl_bls_sig_encode(&sig, sig96);
	sl_warp_message m = { .msg = um,
			      .sig_type = 0,
			      .signers = sl_span_of(bits, nbytes),
			      .signature = sl_span_of(sig96, sizeof sig96) };
	if (sl_warp_message_encode(&m, &mb))
		goto out;
	res = sl_span_of(b_copy(b, mb.p, mb.len), mb.len);
out:
	sl_buf_release(&pb);
	sl_buf_release(&ub);
	sl_buf_release(&mb);
	return res;
}

static sl_pchain_owner powner_view(p_build *b, const p_owner *o)
{
	return (sl_pchain_owner){ .threshold = o->threshold,
				  .naddrs = o->n,
				  .addrs = owner_addrs(b->a, b->w, o) };
}

static sl_warp_owner wowner_view(p_build *b, const p_owner *o)
{
	return (sl_warp_owner){ .threshold = o->threshold,
				.naddrs = o->n,
				.addrs = sl_span_of(owner_addrs(b->a, b->w, o), (size_t)o->n * 20) };
}

static int32_t pick_l1(struct dn_pstate *p)
{
	if (p->nsn == 0)
		return -1;
	size_t off = dn_rng_below(&p->rng, p->nsn);
	for (size_t i = 0; i < p->nsn; i++)
		if (p->sn[(off + i) % p->nsn].l1)
			return (int32_t)((off + i) % p->nsn);
	return -1;
}

static bool l1_has_node(const struct dn_pstate *p, uint32_t si, uint32_t node)
{
	for (size_t i = 0; i < p->nl1; i++)
		if (p->l1[i].subnet == si && p->l1[i].node == node && !p->l1[i].removed)
			return true;
	return false;
}

static int node_cmp_w(const dn_world *w, uint32_t a, uint32_t b)
{
	return memcmp(w->nodes[a].node_id, w->nodes[b].node_id, 20);
}

static p_l1val *l1_new(struct dn_pstate *p)
{
	p_l1val *v = PUSH(p->l1, p->nl1, p->capl1);
	if (v)
		memset(v, 0, sizeof *v);
	return v;
}

static bool tx_convert(p_build *b, uint64_t t)
{
	dn_world *w = b->w;
	struct dn_pstate *p = b->p;
	dn_rng *r = &p->rng;
	int32_t si = -1;
	if (!durango(w, t))
		return false; /* Etna's txs: after Durango in this timeline (every other L1 tx needs an L1) */
	size_t off = p->nsn ? dn_rng_below(r, p->nsn) : 0;
	for (size_t i = 0; i < p->nsn && si < 0; i++) {
		const p_subnet *s = &p->sn[(off + i) % p->nsn];
		if (!s->l1 && s->nchains > 0 && s->nvalidators == 0)
			si = (int32_t)((off + i) % p->nsn);
	}
	uint32_t pool = w->nnodes - p->l1_lo;
	if (si < 0 || pool < 4)
		return false;
	uint32_t n = (uint32_t)dn_rng_range(r, 2, 4), nodes[4];
	for (uint32_t i = 0; i < n;) {
		uint32_t c = p->l1_lo + (uint32_t)dn_rng_below(r, pool);
		bool dup = false;
		for (uint32_t j = 0; j < i; j++)
			dup |= nodes[j] == c;
		if (!dup)
			nodes[i++] = c;
	}
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0 && node_cmp_w(w, nodes[j - 1], nodes[j]) > 0; j--) {
			uint32_t x = nodes[j];
			nodes[j] = nodes[j - 1];
			nodes[j - 1] = x;
		}
	sl_l1_validator *vals = sl_arena_array(b->a, n, sizeof *vals);
	if (!vals)
		return false;
	p_owner rem[4], dis[4];
	uint64_t sum = 0;
	int64_t k = -1;
	for (uint32_t i = 0; i < n; i++) {
		rem[i] = owner_one((uint32_t)dn_rng_below(r, w->nkeys));
		dis[i] = dn_rng_chance(r, 70) ? rem[i] : owner_random(w, r, -1, 2, 1);
		vals[i] = (sl_l1_validator){
			.node_id = sl_span_of(w->nodes[nodes[i]].node_id, 20),
			.weight = dn_rng_range(r, 1, 50) * 100,
			.balance = amount_between(r, avax(3), avax(10)),
			.public_key = w->nodes[nodes[i]].bls_pk,
			.pop = w->nodes[nodes[i]].pop,
			.remaining_balance_owner = powner_view(b, &rem[i]),
			.deactivation_owner = powner_view(b, &dis[i]),
		};
		sum += vals[i].balance;
	}
	uint64_t fee = dn_fee(w, DN_P, SL_P_CONVERT_SUBNET_TO_L1_TX);
	k = payer(w, r, fee + sum);
	if (k < 0 || !b_pay(b, (uint32_t)k, fee + sum)) {
		b_abandon(b);
		return false;
	}
	b->burn = sum;
	p_subnet *s = &p->sn[si];
	uint8_t mgr[32];
	derive_id(w, "validator-manager", (uint64_t)si, mgr);
	sl_pchain_utx *u = &b->tx->utx;
	u->subnet_id = b_copy(b, s->id, 32);
	u->manager_chain_id = b_copy(b, p->chains[s->chains[0]].id, 32);
	u->manager_address = sl_span_of(b_copy(b, mgr, 20), 20);
	u->nvalidators = n;
	u->validators = vals;
	b_auth(b, &s->owner);
	if (!b_finish(b))
		return false;
	sl_warp_conversion conv = { .subnet_id = sl_span_of(s->id, 32),
				    .manager_chain_id = sl_span_of(u->manager_chain_id, 32),
				    .manager_address = u->manager_address,
				    .nvalidators = n };
	sl_warp_conversion_validator cv[4];
	for (uint32_t i = 0; i < n; i++)
		cv[i] = (sl_warp_conversion_validator){ .node_id = vals[i].node_id,
							.bls_public_key = sl_span_of(vals[i].public_key, 48),
							.weight = vals[i].weight };
	conv.validators = cv;
	sl_buf cb;
	sl_buf_init(&cb, SL_CODEC_MAX_SIZE);
	bool enc = sl_warp_conversion_encode(&conv, &cb) == SL_OK;
	if (enc)
		sl_sha256(cb.p, cb.len, s->conversion_id);
	sl_buf_release(&cb);
	if (!enc)
		return false;
	s->l1 = true;
	p->l1_dirty = true;
	memcpy(s->manager_chain, p->chains[s->chains[0]].id, 32);
	memcpy(s->manager_addr, mgr, 20);
	for (uint32_t i = 0; i < n; i++) {
		p_l1val *v = l1_new(p);
		if (!v)
			return false;
		sl_pchain_l1_validation_id(p->sn[si].id, i, v->vid);
		v->subnet = (uint32_t)si;
		v->node = nodes[i];
		v->weight = vals[i].weight;
		v->deposit = vals[i].balance;
		v->since = t;
		v->remaining = rem[i];
		v->disable = dis[i];
		if (!vlog_l1(p, v->subnet, v->node, false, v->weight, V_L1_ADD))
			return false;
	}
	return true;
}

static bool tx_register_l1(p_build *b, uint64_t t)
{
	dn_world *w = b->w;
	struct dn_pstate *p = b->p;
	dn_rng *r = &p->rng;
	int32_t si = pick_l1(p);
	uint32_t pool = w->nnodes - p->l1_lo;
	if (si < 0 || pool == 0)
		return false;
	uint32_t node = UINT32_MAX, off = (uint32_t)dn_rng_below(r, pool);
	for (uint32_t i = 0; i < pool && node == UINT32_MAX; i++)
		if (!l1_has_node(p, (uint32_t)si, p->l1_lo + (off + i) % pool))
			node = p->l1_lo + (off + i) % pool;
	if (node == UINT32_MAX)
		return false;
	p_owner rem = owner_one((uint32_t)dn_rng_below(r, w->nkeys));
	p_owner dis = dn_rng_chance(r, 70) ? rem : owner_random(w, r, -1, 2, 1);
	sl_warp_l1_msg m = {
		.type = SL_WARP_L1_REGISTER_VALIDATOR,
		.subnet_id = sl_span_of(p->sn[si].id, 32),
		.node_id = sl_span_of(w->nodes[node].node_id, 20),
		.bls_public_key = sl_span_of(w->nodes[node].bls_pk, 48),
		.expiry = t + dn_rng_range(r, 600, 20 * 3600),
		.remaining_balance_owner = wowner_view(b, &rem),
		.disable_owner = wowner_view(b, &dis),
		.weight = dn_rng_range(r, 1, 50) * 100,
	};
	sl_buf mb;
	sl_buf_init(&mb, 1u << 16);
	uint8_t vid[32];
	bool ok = sl_warp_l1_encode(&m, &mb) == SL_OK;
	if (ok)
		sl_sha256(mb.p, mb.len, vid);
	sl_span warp = ok ? warp_signed(b, (uint32_t)si, t, sl_span_of(mb.p, mb.len)) : (sl_span){ 0 };
	sl_buf_release(&mb);
	if (!warp.p)
		return false;
	uint64_t fee = dn_fee(w, DN_P, SL_P_REGISTER_L1_VALIDATOR_TX);
	uint64_t bal = amount_between(r, avax(2), avax(8));
	int64_t k = payer(w, r, fee + bal);
	if (k < 0 || !b_pay(b, (uint32_t)k, fee + bal)) {
		b_abandon(b);
		return false;
	}
	b->burn = bal;
	sl_pchain_utx *u = &b->tx->utx;
	u->balance = bal;
	u->pop = w->nodes[node].pop;
	u->message = warp;
	if (!b_finish(b))
		return false;
	p_l1val *v = l1_new(p);
	if (!v)
		return false;
	memcpy(v->vid, vid, 32);
	v->subnet = (uint32_t)si;
	v->node = node;
	v->weight = m.weight;
	v->deposit = bal;
	v->since = t;
	v->remaining = rem;
	v->disable = dis;
	p->l1_dirty = true;
	return vlog_l1(p, v->subnet, v->node, false, v->weight, V_L1_ADD);
}

/* A registered (not removed) L1 validator, optionally only an active one, or -1. */
static int32_t pick_l1val(struct dn_pstate *p, uint64_t t, bool active)
{
	if (p->nl1 == 0)
		return -1;
	size_t off = dn_rng_below(&p->rng, p->nl1);
	for (size_t i = 0; i < p->nl1; i++) {
		const p_l1val *v = &p->l1[(off + i) % p->nl1];
		if (!v->removed && (!active || l1_active(v, t)))
			return (int32_t)((off + i) % p->nl1);
	}
	return -1;
}

static size_t l1_count(const struct dn_pstate *p, uint32_t si, uint64_t t, bool active)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nl1; i++)
		n += p->l1[i].subnet == si && !p->l1[i].removed && (!active || l1_active(&p->l1[i], t));
	return n;
}

static bool tx_set_l1_weight(p_build *b, uint64_t t)
{
	dn_world *w = b->w;
	struct dn_pstate *p = b->p;
	dn_rng *r = &p->rng;
	int32_t vi = pick_l1val(p, t, false);
	if (vi < 0)
		return false;
	p_l1val v = p->l1[vi];
	uint64_t weight = v.weight * dn_rng_range(r, 50, 200) / 100;
	if (weight == 0)
		weight = 100;
	if (dn_rng_chance(r, 25) && l1_count(p, v.subnet, t, false) >= 3)
		weight = 0;
	uint64_t nonce = v.nonce + (dn_rng_chance(r, 20) ? dn_rng_range(r, 1, 3) : 0);
	sl_warp_l1_msg m = { .type = SL_WARP_L1_VALIDATOR_WEIGHT,
			     .validation_id = sl_span_of(v.vid, 32),
			     .nonce = nonce,
			     .weight = weight };
	sl_buf mb;
	sl_buf_init(&mb, 1u << 16);
	sl_span warp = sl_warp_l1_encode(&m, &mb) == SL_OK
			       ? warp_signed(b, v.subnet, t, sl_span_of(mb.p, mb.len))
			       : (sl_span){ 0 };
	sl_buf_release(&mb);
	if (!warp.p)
		return false;
	uint64_t fee = dn_fee(w, DN_P, SL_P_SET_L1_VALIDATOR_WEIGHT_TX);
	int64_t k = payer(w, r, fee);
	if (k < 0 || !b_pay(b, (uint32_t)k, fee)) {
		b_abandon(b);
		return false;
	}
	b->tx->utx.message = warp;
	if (!b_finish(b))
		return false;
	p_l1val *pv = &p->l1[vi];
	pv->nonce = nonce + 1;
	p->l1_dirty = true;
	uint32_t at = l1_active(pv, t) ? pv->node : V_EMPTY;
	if (!vlog_l1(p, pv->subnet, at, true, pv->weight, weight ? V_L1_WEIGHT : V_L1_REMOVE) ||
	    !vlog_l1(p, pv->subnet, at, false, weight, V_L1_WEIGHT))
		return false;
	if (weight == 0) {
		uint64_t left = l1_balance(pv, t);
		if (left && !ledger_add(w, b->id, b->nouts[L_BASE], left, &pv->remaining, 0))
			return false;
		pv->removed = true;
		pv->weight = 0;
		pv->deposit = 0;
	} else {
		pv->weight = weight;
	}
	return true;
}

static bool tx_increase_l1_balance(p_build *b, uint64_t t)
{
	dn_world *w = b->w;
	struct dn_pstate *p = b->p;
	dn_rng *r = &p->rng;
	int32_t vi = pick_l1val(p, t, false);
	if (vi < 0)
		return false;
	uint64_t fee = dn_fee(w, DN_P, SL_P_INCREASE_L1_VALIDATOR_BALANCE_TX);
	uint64_t amt = amount_between(r, avax(1), avax(6));
	int64_t k = payer(w, r, fee + amt);
	if (k < 0 || !b_pay(b, (uint32_t)k, fee + amt)) {
		b_abandon(b);
		return false;
	}
	b->burn = amt;
	b->tx->utx.validation_id = b_copy(b, p->l1[vi].vid, 32);
	b->tx->utx.balance = amt;
	if (!b_finish(b))
		return false;
	p_l1val *v = &p->l1[vi];
	bool was = l1_active(v, t);
	l1_settle(v, t);
	v->disabled = false;
	v->deposit += amt;
	if (was || !amt)
		return true;
	return vlog_l1(p, v->subnet, V_EMPTY, true, v->weight, V_L1_REACTIVATE) &&
	       vlog_l1(p, v->subnet, v->node, false, v->weight, V_L1_REACTIVATE);
}

static bool tx_disable_l1(p_build *b, uint64_t t)
{
	dn_world *w = b->w;
	struct dn_pstate *p = b->p;
	int32_t vi = pick_l1val(p, t, true);
	if (vi < 0 || l1_count(p, p->l1[vi].subnet, t, true) < 3)
		return false;
	uint64_t fee = dn_fee(w, DN_P, SL_P_DISABLE_L1_VALIDATOR_TX);
	int64_t k = payer(w, &p->rng, fee);
	if (k < 0 || !b_pay(b, (uint32_t)k, fee)) {
		b_abandon(b);
		return false;
	}
	b->tx->utx.validation_id = b_copy(b, p->l1[vi].vid, 32);
	b_auth(b, &p->l1[vi].disable);
	if (!b_finish(b))
		return false;
	p_l1val *v = &p->l1[vi];
	uint64_t left = l1_balance(v, t);
	if (left && !ledger_add(w, b->id, b->nouts[L_BASE], left, &v->remaining, 0))
		return false;
	v->disabled = true;
	v->deposit = 0;
	return vlog_l1(p, v->subnet, v->node, true, v->weight, V_L1_DISABLE) &&
	       vlog_l1(p, v->subnet, V_EMPTY, false, v->weight, V_L1_DISABLE);
}

/* ---- blocks --------------------------------------------------------------------------------------- */

/* Encode an inner block on top of the chain, wrap it, emit it and advance the chain. */
static sl_err emit_block(dn_world *w, sl_pchain_block *blk, bool option)
{
	dn_chain *c = &w->chain[DN_P];
	blk->parent_id = c->last_inner;
	blk->height = c->height + 1;
	sl_buf out;
	sl_buf_init(&out, SL_CODEC_MAX_SIZE);
	if (sl_pchain_block_encode(&out, blk)) {
		sl_buf_release(&out);
		return SL_ERR_INTERNAL;
	}
	uint8_t id[32];
	sl_sha256(out.p, out.len, id);
	dn_emit_wrapped(w, DN_P, SL_IDX_P_BLOCK, out.p, out.len, blk->time, option);
	sl_buf_release(&out);
	c->height = blk->height;
	/* a proposal's changes hold from its option on (avalanchego writes them with it) */
	struct dn_pstate *p = w->p;
	if (!sl_pchain_block_is_proposal(blk->type_id)) {
		for (; p->vflushed < p->nvlog; p->vflushed++)
			p->vlog[p->vflushed].height = blk->height;
	}
	memcpy(c->last_inner, id, 32);
	c->last_time = blk->time;
	c->blocks++;
	c->txs += sl_pchain_block_tx_count(blk);
	sl_err e = dn_l1view_sync(w);
	return e ? e : w->sink_err;
}

static sl_pchain_tx *txs_array(sl_arena *a, sl_pchain_tx *const *txs, uint32_t n)
{
	sl_pchain_tx *v = sl_arena_array(a, n + 1, sizeof *v);
	for (uint32_t i = 0; v && i < n; i++)
		v[i] = *txs[i];
	return v;
}

/* The tx mix of standard blocks, in parts per thousand. */
typedef bool (*p_txgen)(p_build *b, uint64_t t);
static bool tx_export_x(p_build *b, uint64_t t) { return tx_export(b, t, DN_X); }
static bool tx_export_c(p_build *b, uint64_t t) { return tx_export(b, t, DN_C); }
static bool tx_import_x(p_build *b, uint64_t t) { return tx_import(b, t, DN_X); }
static bool tx_import_c(p_build *b, uint64_t t) { return tx_import(b, t, DN_C); }

static const struct {
	uint32_t type_id;
	unsigned weight;
	p_txgen gen;
} tx_mix[] = {
	{ SL_P_BASE_TX, 330, tx_base },
	{ SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX, 55, tx_validator },
	{ SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX, 150, tx_delegator },
	{ SL_P_EXPORT_TX, 50, tx_export_x },
	{ SL_P_EXPORT_TX, 50, tx_export_c },
	{ SL_P_IMPORT_TX, 45, tx_import_x },
	{ SL_P_IMPORT_TX, 45, tx_import_c },
	{ SL_P_CREATE_SUBNET_TX, 14, tx_create_subnet },
	{ SL_P_CREATE_CHAIN_TX, 16, tx_create_chain },
	{ SL_P_ADD_SUBNET_VALIDATOR_TX, 40, tx_add_subnet_validator },
	{ SL_P_REMOVE_SUBNET_VALIDATOR_TX, 12, tx_remove_subnet_validator },
	{ SL_P_TRANSFER_SUBNET_OWNERSHIP_TX, 10, tx_transfer_ownership },
	{ SL_P_CONVERT_SUBNET_TO_L1_TX, 8, tx_convert },
	{ SL_P_REGISTER_L1_VALIDATOR_TX, 22, tx_register_l1 },
	{ SL_P_SET_L1_VALIDATOR_WEIGHT_TX, 22, tx_set_l1_weight },
	{ SL_P_INCREASE_L1_VALIDATOR_BALANCE_TX, 22, tx_increase_l1_balance },
	{ SL_P_DISABLE_L1_VALIDATOR_TX, 8, tx_disable_l1 },
};

/* One tx of the mix at time t into the block arena; NULL when nothing could be made. */
static sl_pchain_tx *make_tx(dn_world *w, sl_arena *a, uint64_t t)
{
	struct dn_pstate *p = w->p;
	/*
	 * A type not seen yet weighs 30 times more, so small histories still show
	 * every type (the L1 validator txs once there is an L1 to act on). Before
	 * Durango the types it brought (and Etna's) weigh nothing; in the week
	 * before it, validators weigh 30 times more until one is pending across it.
	 */
	bool pre = !durango(w, t);
	bool want_pending = pre && p->nval_pending_durango == 0 && t + 7 * DAY > w->params.durango_time;
	unsigned wt[SL_ARRAY_LEN(tx_mix)], sum = 0;
	for (size_t i = 0; i < SL_ARRAY_LEN(tx_mix); i++) {
		uint32_t ty = tx_mix[i].type_id;
		bool later = ty == SL_P_BASE_TX || ty == SL_P_TRANSFER_SUBNET_OWNERSHIP_TX ||
			     ty >= SL_P_CONVERT_SUBNET_TO_L1_TX;
		bool boost = !p->counts[ty] && (ty <= SL_P_CONVERT_SUBNET_TO_L1_TX || p->nl1 > 0);
		sum += wt[i] = pre && later
				       ? 0
				       : tx_mix[i].weight * (boost ? 30 : 1) *
						 (want_pending && ty == SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX
							  ? 30
							  : 1);
	}
	unsigned roll = (unsigned)dn_rng_below(&p->rng, sum);
	size_t pick = 0;
	while (roll >= wt[pick])
		roll -= wt[pick++];
	p_build b;
	b_init(&b, w, a, tx_mix[pick].type_id);
	if (!b.failed && tx_mix[pick].gen(&b, t))
		return b.tx;
	/* The fallback: a transfer; before Durango, with no BaseTx yet, an export to X or C. */
	if (!pre) {
		b_init(&b, w, a, SL_P_BASE_TX);
		return !b.failed && tx_base(&b, t) ? b.tx : NULL;
	}
	b_init(&b, w, a, SL_P_EXPORT_TX);
	return !b.failed && tx_export(&b, t, dn_rng_chance(&p->rng, 50) ? DN_X : DN_C) ? b.tx : NULL;
}

static sl_err promote_due(dn_world *w, uint64_t t, bool *any);

/*
 * Tell the rewards sink what a staking tx's RewardValidatorTx paid: the UTXOs
 * under the staking tx's id from index `first` on (after its outputs and
 * stake), as platform.getRewardUTXOs would list them.
 */
static sl_err tell_rewards(dn_world *w, const uint8_t tx_id[32], uint32_t first)
{
	if (!w->rewards)
		return SL_OK;
	sl_buf b[4];
	sl_span spans[4];
	size_t n = 0;
	for (uint32_t i = first; n < SL_ARRAY_LEN(b); i++) {
		dn_utxo *u = dn_utxo_find(&w->utxos[DN_P], tx_id, i);
		if (!u)
			break;
		sl_buf_init(&b[n], 4096);
		dn_utxo_encode(w, u, &b[n]);
		spans[n] = sl_span_of(b[n].p, b[n].len);
		n++;
	}
	sl_err e = w->rewards(w->rewards_ctx, tx_id, spans, n);
	for (size_t i = 0; i < n; i++)
		sl_buf_release(&b[i]);
	return e;
}

/* The proposal block rewarding the next staker to leave, then its Commit or Abort option. */
static sl_err reward_block(dn_world *w)
{
	struct dn_pstate *p = w->p;
	uint32_t si = p->cur.v[0].idx;
	heap_pop(p, &p->cur);
	p_staker *s = &p->st[si];
	uint64_t t = s->end;
	w->now = t;
	/* The block's time first promotes whom it reaches, then the reward applies. */
	bool promoted;
	sl_err pe = promote_due(w, t, &promoted);
	if (pe)
		return pe;
	s = &p->st[si];
	bool validator = s->type_id != SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX;
	bool commit = !(validator ? s->bad_uptime : p->st[s->val].bad_uptime);
	sl_arena a;
	sl_arena_init(&a, 64u << 20);
	sl_err e = SL_ERR_INTERNAL;

	p_build b;
	b_init(&b, w, &a, SL_P_REWARD_VALIDATOR_TX);
	if (b.failed)
		goto out;
	b.tx->utx.tx_id = b_copy(&b, s->tx_id, 32);
	if (!b_finish(&b))
		goto out;
	sl_pchain_tx *extra = NULL;
	if (durango(w, t) && dn_rng_chance(&p->rng, 15)) {
		/* Since Durango the builder also packs mempool txs into proposal blocks. */
		p_build x;
		b_init(&x, w, &a, SL_P_BASE_TX);
		if (!x.failed && tx_base(&x, t))
			extra = x.tx;
	}
	s = &p->st[si];

	/* Stake comes back either way; rewards only on Commit. */
	e = SL_ERR_NOMEM;
	for (uint32_t i = 0; i < s->nstake; i++)
		if (!ledger_add(w, s->tx_id, s->nouts + i, s->stake[i].amount, &s->stake[i].owner,
				s->stake[i].lock))
			goto out;
	uint32_t at = s->nouts + s->nstake;
	if (validator) {
		if (commit && s->potential) {
			if (!ledger_add(w, s->tx_id, at++, s->potential, &s->rewards, 0))
				goto out;
			s->paid_reward = s->potential;
		} else if (!commit) {
			w->supply -= s->potential;
		}
		if (s->accrued) {
			if (!ledger_add(w, s->tx_id, at, s->accrued, &s->delegation, 0))
				goto out;
			s->paid_fees += s->accrued;
			s->accrued = 0;
		}
		p->node_val[s->node] = -1;
		s->h_off = w->chain[DN_P].height + 1; /* the proposal block below */
		if (!vlog(p, -1, s->node, true, s->weight, V_END, 0))
			goto out;
	} else {
		p_staker *v = &p->st[s->val];
		v->delegated -= s->weight;
		if (!vlog(p, -1, v->node, true, s->weight, V_END, 0))
			goto out;
		if (commit) {
			uint64_t fee, mine;
			sl_reward_split(s->potential, v->shares, &fee, &mine);
			if (mine) {
				if (!ledger_add(w, s->tx_id, at++, mine, &s->rewards, 0))
					goto out;
				s->paid_reward = mine;
			}
			/* Accrued from Cortina on: avalanchego's !start.Before(cortinaTime). */
			if (fee && v->start >= w->params.cortina_time) {
				v->accrued += fee;
			} else if (fee) {
				if (!ledger_add(w, s->tx_id, at, fee, &v->delegation, 0))
					goto out;
				v->paid_fees += fee;
			}
		} else {
			w->supply -= s->potential;
		}
	}
	s->status = ST_DONE;
	s->committed = commit;
	if ((e = tell_rewards(w, s->tx_id, s->nouts + s->nstake)))
		goto out;

	sl_pchain_block prop = { .type_id = SL_P_BANFF_PROPOSAL_BLOCK, .time = t, .tx = b.tx };
	if (extra) {
		prop.ntxs = 1;
		prop.txs = txs_array(&a, &extra, 1);
	}
	if ((e = emit_block(w, &prop, false)))
		goto out;
	sl_pchain_block opt = { .type_id = commit ? SL_P_BANFF_COMMIT_BLOCK : SL_P_BANFF_ABORT_BLOCK,
				.time = t };
	e = emit_block(w, &opt, true);
out:
	sl_arena_release(&a);
	return e;
}

/* The next time the validator set changes without a tx: a permissioned validator ends or an L1 balance runs out. */
static uint64_t next_quiet_change(const struct dn_pstate *p)
{
	uint64_t t = UINT64_MAX;
	for (size_t i = 0; i < p->nsubvals; i++)
		t = SL_MIN(t, p->st[p->subvals[i]].end);
	for (size_t i = 0; i < p->nl1; i++)
		t = SL_MIN(t, l1_runs_out(&p->l1[i]));
	return t;
}

static bool apply_quiet_changes(struct dn_pstate *p, uint64_t t)
{
	for (size_t i = 0; i < p->nsubvals;) {
		if (p->st[p->subvals[i]].end > t)
			i++;
		else if (!subval_drop(p, i, ST_DONE))
			return false;
	}
	for (size_t i = 0; i < p->nl1; i++) {
		p_l1val *v = &p->l1[i];
		if (l1_runs_out(v) > t)
			continue;
		l1_settle(v, t); /* balance 0: deactivated */
		if (!vlog_l1(p, v->subnet, v->node, true, v->weight, V_L1_RUNOUT) ||
		    !vlog_l1(p, v->subnet, V_EMPTY, false, v->weight, V_L1_RUNOUT))
			return false;
	}
	return true;
}

/*
 * Promote every pending staker whose start has come, at a block of time t
 * (*any: whether one was), in the pending order (start, priority, tx id).
 */
static sl_err promote_due(dn_world *w, uint64_t t, bool *any)
{
	struct dn_pstate *p = w->p;
	*any = false;
	while (p->pend.n && p->pend.v[0].end <= t) {
		uint32_t si = p->pend.v[0].idx;
		heap_pop(p, &p->pend);
		*any = true;
		if (!(p->st[si].subnet >= 0 ? subval_start(p, si) : staker_start(w, p, si)))
			return SL_ERR_NOMEM;
	}
	return SL_OK;
}

/*
 * Bring chain time up to t: reward every staker ending by then, and stop
 * with an empty standard block wherever the validator set changes by time
 * alone (a pending staker starts, a permissioned one ends, an L1 balance runs
 * out), as avalanchego's builder caps a block's time at the next such change.
 * A pending start at t itself is left to the caller's block at t (or, if none
 * is made, to the next block, which stops there).
 */
static sl_err advance_to(dn_world *w, uint64_t t)
{
	struct dn_pstate *p = w->p;
	for (;;) {
		uint64_t nr = p->cur.n ? p->cur.v[0].end : UINT64_MAX;
		uint64_t nq = next_quiet_change(p);
		uint64_t np = p->pend.n ? p->pend.v[0].end : UINT64_MAX;
		uint64_t m = SL_MIN(nr, SL_MIN(nq, np));
		if (m > t)
			return SL_OK;
		sl_err e;
		bool any;
		if (nq == m && !apply_quiet_changes(p, m))
			return SL_ERR_NOMEM;
		if (nr == m) {
			if ((e = reward_block(w))) /* its proposal block promotes whom m reaches */
				return e;
		} else if (m < t) {
			if ((e = promote_due(w, m, &any)))
				return e;
			sl_pchain_block blk = { .type_id = SL_P_BANFF_STANDARD_BLOCK, .time = m };
			if ((e = emit_block(w, &blk, false)))
				return e;
		} else if (np == m) {
			return SL_OK;
		}
	}
}

/* Drop spent entries from a UTXO set once they are the majority (no pointers are held across steps). */
static void compact(dn_utxos *set)
{
	size_t live = 0;
	for (size_t i = 0; i < set->n; i++)
		live += !set->v[i].spent;
	if (set->n < 1024 || live * 2 > set->n)
		return;
	size_t j = 0;
	for (size_t i = 0; i < set->n; i++)
		if (!set->v[i].spent)
			set->v[j++] = set->v[i];
	set->n = j;
}

int32_t dn_p_proposer(dn_world *w, uint64_t lo, uint64_t hi)
{
	struct dn_pstate *p = w->p;
	uint64_t total = 0;
	/* Weights in whole AVAX: the sum cannot overflow, and the draw needs no finer grain. */
	for (size_t i = 0; i < p->npvals; i++) {
		const p_staker *s = &p->st[p->pvals[i]];
		if (s->h_on <= lo && s->h_off > hi)
			total += SL_MAX(s->weight / DN_NANO, 1);
	}
	if (!total)
		return -1;
	uint64_t x = dn_rng_below(&w->prop_rng, total);
	for (size_t i = 0; i < p->npvals; i++) {
		const p_staker *s = &p->st[p->pvals[i]];
		if (s->h_on > lo || s->h_off <= hi)
			continue;
		uint64_t wt = SL_MAX(s->weight / DN_NANO, 1);
		if (x < wt)
			return (int32_t)s->node;
		x -= wt;
	}
	return -1;
}

/* Forget validators that left before every height a later block may name (a chain's last pChainHeight). */
static void pvals_prune(dn_world *w)
{
	struct dn_pstate *p = w->p;
	uint64_t low = UINT64_MAX;
	for (int c = 0; c < DN_CHAINS; c++)
		low = SL_MIN(low, w->chain[c].last_pch);
	size_t j = 0;
	for (size_t i = 0; i < p->npvals; i++)
		if (p->st[p->pvals[i]].h_off > low)
			p->pvals[j++] = p->pvals[i];
	p->npvals = j;
}

sl_err dn_p_step(dn_world *w, uint64_t until, uint32_t ntxs)
{
	struct dn_pstate *p = w->p;
	dn_chain *c = &w->chain[DN_P];
	pvals_prune(w);
	compact(&w->utxos[DN_P]);
	compact(&w->shared[DN_P][DN_X]);
	compact(&w->shared[DN_P][DN_C]);
	sl_err e = SL_OK;
	uint64_t from = c->last_time;
	if (until < from)
		until = from;
	/* Blocks of 1 to 3 txs at times spread over (from, until]. */
	uint32_t sizes[1024], nb = 0, left = ntxs;
	while (left && nb < SL_ARRAY_LEN(sizes)) {
		uint32_t k = (uint32_t)dn_rng_range(&p->rng, 1, 3);
		k = SL_MIN(k, left);
		if (nb == SL_ARRAY_LEN(sizes) - 1)
			k = left;
		sizes[nb++] = k;
		left -= k;
	}
	for (uint32_t i = 0; i < nb && !e; i++) {
		uint64_t t = from + (until - from) * (i + 1) / nb;
		if (t > c->last_time + 1 && i + 1 < nb)
			t -= dn_rng_below(&p->rng, SL_MIN((until - from) / nb / 2 + 1, t - c->last_time));
		if (t < c->last_time)
			t = c->last_time;
		if ((e = advance_to(w, t)))
			break;
		w->now = t;
		bool promoted;
		if ((e = promote_due(w, t, &promoted)))
			break;
		sl_arena a;
		sl_arena_init(&a, 256u << 20);
		sl_pchain_tx **txs = sl_arena_array(&a, sizes[i], sizeof *txs);
		uint32_t n = 0;
		for (uint32_t j = 0; txs && j < sizes[i]; j++) {
			sl_pchain_tx *tx = make_tx(w, &a, t);
			if (tx)
				txs[n++] = tx;
		}
		if (n) {
			sl_pchain_block blk = { .type_id = SL_P_BANFF_STANDARD_BLOCK,
						.time = t,
						.ntxs = n,
						.txs = txs_array(&a, txs, n) };
			e = blk.txs ? emit_block(w, &blk, false) : SL_ERR_NOMEM;
		} else if (promoted) {
			/* nothing to pack, but the stakers promoted at t need their block (time capped there) */
			sl_pchain_block blk = { .type_id = SL_P_BANFF_STANDARD_BLOCK, .time = t };
			e = emit_block(w, &blk, false);
		}
		sl_arena_release(&a);
	}
	if (!e)
		e = advance_to(w, until);
	w->now = until;
	return e;
}

/* ---- snapshot ------------------------------------------------------------------------------------ */

void dn_p_save(const dn_world *w, sl_buf *b)
{
	const struct dn_pstate *p = w->p;
	dn_snap_one(b, p);
	dn_snap_utxos(b, &p->genesis);
	dn_snap_arr(b, p->st, p->nst, sizeof *p->st);
	dn_snap_arr(b, p->cur.v, p->cur.n, sizeof *p->cur.v);
	dn_snap_arr(b, p->pend.v, p->pend.n, sizeof *p->pend.v);
	dn_snap_arr(b, p->subvals, p->nsubvals, sizeof *p->subvals);
	dn_snap_arr(b, p->node_val, (size_t)w->nnodes + 1, sizeof *p->node_val);
	dn_snap_arr(b, p->pvals, p->npvals, sizeof *p->pvals);
	dn_snap_arr(b, p->sn, p->nsn, sizeof *p->sn);
	dn_snap_arr(b, p->chains, p->nchains, sizeof *p->chains);
	dn_snap_arr(b, p->l1, p->nl1, sizeof *p->l1);
	dn_snap_arr(b, p->vlog, p->nvlog, sizeof *p->vlog);
}

sl_err dn_p_load(dn_world *w, dn_rd *r)
{
	struct dn_pstate *p = calloc(1, sizeof *p);
	if (!p)
		return SL_ERR_NOMEM;
	dn_rd_one(r, p, sizeof *p);
	/* The pointers just read are the writer's: none may be freed or followed. */
	p->genesis.v = NULL;
	p->st = NULL;
	p->cur.v = p->pend.v = NULL;
	p->subvals = p->pvals = NULL;
	p->node_val = NULL;
	p->sn = NULL;
	p->chains = NULL;
	p->l1 = NULL;
	p->vlog = NULL;
	dn_rd_utxos(r, &p->genesis);
	p->st = dn_rd_arr(r, sizeof *p->st, &p->nst, &p->capst);
	p->cur.v = dn_rd_arr(r, sizeof *p->cur.v, &p->cur.n, &p->cur.cap);
	p->pend.v = dn_rd_arr(r, sizeof *p->pend.v, &p->pend.n, &p->pend.cap);
	p->subvals = dn_rd_arr(r, sizeof *p->subvals, &p->nsubvals, &p->capsubvals);
	size_t nv, capv;
	p->node_val = dn_rd_arr(r, sizeof *p->node_val, &nv, &capv);
	if (nv != (size_t)w->nnodes + 1)
		r->bad = true;
	p->pvals = dn_rd_arr(r, sizeof *p->pvals, &p->npvals, &p->cappvals);
	p->sn = dn_rd_arr(r, sizeof *p->sn, &p->nsn, &p->capsn);
	p->chains = dn_rd_arr(r, sizeof *p->chains, &p->nchains, &p->capchains);
	p->l1 = dn_rd_arr(r, sizeof *p->l1, &p->nl1, &p->capl1);
	p->vlog = dn_rd_arr(r, sizeof *p->vlog, &p->nvlog, &p->capvlog);
	if (p->vflushed > p->nvlog)
		r->bad = true;
	dn_p_free(w);
	w->p = p;
	if (r->bad)
		return SL_ERR_INVALID;
	p->l1_dirty = true;
	return dn_l1view_sync(w);
}

/* ---- the L1 view for the p2p listeners ---------------------------------------------------------- */

sl_err dn_l1view_init(dn_world *w)
{
	dn_l1view *v = &w->l1view;
	if (pthread_mutex_init(&v->mu, NULL))
		return SL_ERR_NOMEM;
	v->mu_ok = true;
	return SL_OK;
}

void dn_l1view_free(dn_world *w)
{
	dn_l1view *v = &w->l1view;
	free(v->conv);
	free(v->val);
	free(v->chains);
	free(v->members);
	if (v->mu_ok)
		pthread_mutex_destroy(&v->mu);
	memset(v, 0, sizeof *v);
}

static bool grow_to(void **v, size_t *cap, size_t need, size_t sz)
{
	while (*cap < need)
		if (!dn_grow(v, cap, *cap, sz))
			return false;
	return true;
}

static int cmp_member(const void *a, const void *b)
{
	const dn_vmember *x = a, *y = b;
	return x->node != y->node ? (x->node < y->node ? -1 : 1) : memcmp(x->subnet, y->subnet, 32);
}

/* Who validates a subnet at time t: the current permissioned validators and the L1 validators
 * whose balance has not run out (not removed, not disabled), sorted, each pair once. */
static void sync_members(const struct dn_pstate *p, dn_l1view *v, uint64_t t)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nsubvals; i++) {
		const p_staker *s = &p->st[p->subvals[i]];
		v->members[n].node = s->node;
		memcpy(v->members[n++].subnet, p->sn[s->subnet].id, 32);
	}
	for (size_t i = 0; i < p->nl1; i++) {
		const p_l1val *l = &p->l1[i];
		if (!l1_active(l, t))
			continue;
		v->members[n].node = l->node;
		memcpy(v->members[n++].subnet, p->sn[l->subnet].id, 32);
	}
	if (n > 1)
		qsort(v->members, n, sizeof *v->members, cmp_member);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || cmp_member(&v->members[k - 1], &v->members[i]))
			v->members[k++] = v->members[i];
	v->nmembers = k;
}

/* The subnet and L1 part of the P state after the last emitted block (the txs are applied as they
 * are made, and each block is emitted before the next is made). */
sl_err dn_l1view_sync(dn_world *w)
{
	dn_l1view *v = &w->l1view;
	struct dn_pstate *p = w->p;
	if (!v->mu_ok || !p)
		return SL_OK;
	sl_err e = SL_OK;
	pthread_mutex_lock(&v->mu);
	v->time = w->chain[DN_P].last_time;
	if (p->l1_dirty) {
		size_t nconv = 0;
		for (size_t i = 0; i < p->nsn; i++)
			nconv += p->sn[i].l1;
		if (!grow_to((void **)&v->conv, &v->capconv, nconv, sizeof *v->conv) ||
		    !grow_to((void **)&v->val, &v->capval, p->nl1, sizeof *v->val) ||
		    !grow_to((void **)&v->chains, &v->capchains, p->nchains, sizeof *v->chains) ||
		    !grow_to((void **)&v->members, &v->capmembers, p->nsubvals + p->nl1,
			     sizeof *v->members)) {
			e = SL_ERR_NOMEM;
		} else {
			for (size_t i = 0; i < p->nchains; i++) {
				memcpy(v->chains[i].chain, p->chains[i].id, 32);
				memcpy(v->chains[i].subnet, p->sn[p->chains[i].subnet].id, 32);
			}
			v->nchains = p->nchains;
			sync_members(p, v, v->time);
			v->nconv = 0;
			for (size_t i = 0; i < p->nsn; i++)
				if (p->sn[i].l1) {
					dn_l1conv *c = &v->conv[v->nconv++];
					memcpy(c->subnet, p->sn[i].id, 32);
					memcpy(c->conversion_id, p->sn[i].conversion_id, 32);
				}
			for (size_t i = 0; i < p->nl1; i++) {
				const p_l1val *l = &p->l1[i];
				v->val[i] = (dn_l1val){ .weight = l->weight,
							.nonce = l->nonce,
							.removed = l->removed };
				memcpy(v->val[i].vid, l->vid, 32);
			}
			v->nval = p->nl1;
			p->l1_dirty = false;
		}
	}
	pthread_mutex_unlock(&v->mu);
	return e;
}

/* ---- manifest -------------------------------------------------------------------------------------- */

static void jw_text(sl_jw *j, void (*fn)(sl_buf *, const void *, const void *), const void *x, const void *y)
{
	char mem[160];
	sl_buf a = { .p = (uint8_t *)mem, .cap = sizeof mem, .max = sizeof mem - 1 };
	fn(&a, x, y);
	sl_jw_strn(j, mem, a.len);
}

static void paddr_fn(sl_buf *b, const void *w, const void *addr)
{
	sl_addr_write(b, "P", sl_addr_hrp(((const dn_world *)w)->cfg.network_id), addr);
}

static void jw_owner(sl_jw *j, const dn_world *w, const p_owner *o)
{
	sl_jw_obj(j);
	sl_jw_key(j, "locktime");
	sl_jw_u64(j, o->locktime);
	sl_jw_key(j, "threshold");
	sl_jw_u64(j, o->threshold);
	sl_jw_key(j, "addresses");
	sl_jw_arr(j);
	for (uint32_t i = 0; i < o->n; i++)
		jw_text(j, paddr_fn, w, w->keys[o->keys[i]].addr);
	sl_jw_arr_end(j);
	sl_jw_obj_end(j);
}

static const char *status_name(const p_staker *s)
{
	static const char *const names[] = {
		[ST_ACTIVE] = "active", [ST_DONE] = "completed", [ST_REMOVED] = "removed", [ST_PENDING] = "pending"
	};
	return names[s->status];
}

/*
 * What a node would observe of a primary validator (simulated, for platform.getCurrentValidators
 * and the manifest): its uptime in hundredths of a percent and whether it is connected. A
 * function of its tx id, so it draws from no stream and changes no history; a validator drawn
 * with poor uptime (whose reward is aborted) is seen below avalanchego's 80% requirement.
 */
static void observed(const p_staker *s, uint32_t *uptime, bool *connected)
{
	uint8_t h[32], in[40];
	memcpy(in, s->tx_id, 32);
	memcpy(in + 32, "observed", 8);
	sl_sha256(in, sizeof in, h);
	uint32_t x = sl_be32(h);
	*uptime = s->bad_uptime ? 4000 + x % 3900 : 8000 + x % 2001;
	*connected = s->bad_uptime ? (h[4] & 1) : h[4] % 20 != 0;
}

static void jw_percent(sl_jw *j, uint32_t hundredths)
{
	char v[16];
	snprintf(v, sizeof v, "%u.%02u00", hundredths / 100, hundredths % 100);
	sl_jw_str(j, v);
}

void dn_p_current_validators(const dn_world *w, sl_jw *j)
{
	const struct dn_pstate *p = w->p;
	uint32_t *ndel = calloc(p->nst ? p->nst : 1, sizeof *ndel); /* current delegators per validator */
	for (size_t k = 0; ndel && k < p->nst; k++)
		if (p->st[k].status == ST_ACTIVE && p->st[k].val >= 0 && (size_t)p->st[k].val < p->nst)
			ndel[p->st[k].val]++;
	sl_jw_arr(j);
	for (size_t i = 0; ndel && i < p->nst; i++) {
		const p_staker *s = &p->st[i];
		if (s->status != ST_ACTIVE || s->subnet >= 0 ||
		    s->type_id == SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX)
			continue;
		uint32_t up;
		bool conn;
		observed(s, &up, &conn);
		sl_jw_obj(j);
		sl_jw_key(j, "txID");
		sl_jw_cb58(j, s->tx_id, 32);
		sl_jw_key(j, "startTime");
		sl_jw_u64s(j, s->start);
		sl_jw_key(j, "endTime");
		sl_jw_u64s(j, s->end);
		sl_jw_key(j, "weight");
		sl_jw_u64s(j, s->weight);
		sl_jw_key(j, "nodeID");
		sl_jw_nodeid(j, w->nodes[s->node].node_id);
		sl_jw_key(j, "potentialReward");
		sl_jw_u64s(j, s->potential);
		sl_jw_key(j, "delegationFee");
		jw_percent(j, s->shares / 100);
		sl_jw_key(j, "uptime");
		jw_percent(j, up);
		sl_jw_key(j, "connected");
		sl_jw_bool(j, conn);
		sl_jw_key(j, "delegatorCount");
		sl_jw_u64s(j, ndel[i]);
		sl_jw_key(j, "delegatorWeight");
		sl_jw_u64s(j, s->delegated);
		sl_jw_obj_end(j);
	}
	sl_jw_arr_end(j);
	free(ndel);
}

size_t dn_p_current_primary(const dn_world *w, dn_pval *out, size_t cap)
{
	const struct dn_pstate *p = w->p;
	size_t n = 0;
	for (size_t i = 0; i < p->nst; i++) {
		const p_staker *s = &p->st[i];
		if (s->status != ST_ACTIVE || s->subnet >= 0 ||
		    s->type_id == SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX)
			continue;
		if (n < cap) {
			out[n] = (dn_pval){ .node = s->node, .bad_uptime = s->bad_uptime };
			memcpy(out[n].tx_id, s->tx_id, 32);
			observed(s, &out[n].uptime, &out[n].connected);
		}
		n++;
	}
	return n;
}

size_t dn_p_node_subnets(const dn_world *w, dn_nodesub *out, size_t cap)
{
	const struct dn_pstate *p = w->p;
	size_t n = 0;
	for (size_t i = 0; i < p->nsubvals; i++) {
		const p_staker *s = &p->st[p->subvals[i]];
		if (n < cap) {
			out[n].node = s->node;
			memcpy(out[n].subnet, p->sn[s->subnet].id, 32);
		}
		n++;
	}
	for (size_t i = 0; i < p->nl1; i++) {
		if (p->l1[i].removed)
			continue;
		if (n < cap) {
			out[n].node = p->l1[i].node;
			memcpy(out[n].subnet, p->sn[p->l1[i].subnet].id, 32);
		}
		n++;
	}
	return n;
}

static void jw_staker(sl_jw *j, const dn_world *w, const struct dn_pstate *p, const p_staker *s)
{
	sl_jw_obj(j);
	sl_jw_key(j, "nodeId");
	sl_jw_nodeid(j, w->nodes[s->node].node_id);
	sl_jw_key(j, "txId");
	sl_jw_cb58(j, s->tx_id, 32);
	sl_jw_key(j, "txType");
	sl_jw_str(j, sl_pchain_type_name(s->type_id));
	sl_jw_key(j, "subnetId");
	sl_jw_cb58(j, s->subnet >= 0 ? p->sn[s->subnet].id : ZERO32, 32);
	sl_jw_key(j, "startTime");
	sl_jw_u64(j, s->start);
	sl_jw_key(j, "endTime");
	sl_jw_u64(j, s->end);
	if (s->accepted < s->start) {
		/* accepted before Durango with a later start: pending from its tx's block to its start */
		sl_jw_key(j, "pendingFrom");
		sl_jw_u64(j, s->accepted);
	}
	sl_jw_key(j, "weight");
	sl_jw_u64s(j, s->weight);
	if (s->type_id == SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX) {
		sl_jw_key(j, "validatorTxId");
		sl_jw_cb58(j, p->st[s->val].tx_id, 32);
	} else if (s->subnet < 0) {
		sl_jw_key(j, "delegatorCount");
		sl_jw_u64(j, s->ndelegators);
		sl_jw_key(j, "delegationFee");
		sl_jw_u64(j, s->shares);
	}
	sl_jw_key(j, "validationStatus");
	sl_jw_str(j, status_name(s));
	if (s->subnet < 0 && s->type_id != SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX && s->status == ST_ACTIVE) {
		/* what platform.getCurrentValidators reports of it (observed()) */
		uint32_t up;
		bool conn;
		observed(s, &up, &conn);
		sl_jw_key(j, "uptime");
		jw_percent(j, up);
		sl_jw_key(j, "connected");
		sl_jw_bool(j, conn);
	}
	if (s->subnet < 0) {
		if (s->status != ST_PENDING) { /* fixed when it starts */
			sl_jw_key(j, "potentialReward");
			sl_jw_u64s(j, s->potential);
		}
		if (s->status == ST_DONE) {
			sl_jw_key(j, "committed");
			sl_jw_bool(j, s->committed);
			sl_jw_key(j, "reward");
			sl_jw_u64s(j, s->paid_reward);
		}
		if (s->type_id != SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX) {
			sl_jw_key(j, "delegationFeesPaid");
			sl_jw_u64s(j, s->paid_fees);
			sl_jw_key(j, "delegationFeesAccrued");
			sl_jw_u64s(j, s->accrued);
		}
		sl_jw_key(j, "rewardOwner");
		jw_owner(j, w, &s->rewards);
	}
	sl_jw_obj_end(j);
}

/*
 * What a replay starts from besides the containers: the genesis allocations
 * and the genesis validators (their stake comes back at (txId, i), their
 * rewards follow, as for any staker without base outputs).
 */
static void jw_genesis(sl_jw *j, const dn_world *w, const struct dn_pstate *p)
{
	sl_jw_obj(j);
	sl_jw_key(j, "utxos");
	sl_jw_arr(j);
	for (size_t i = 0; i < p->genesis.n; i++)
		dn_jw_utxo(w, j, DN_P, &p->genesis.v[i]);
	sl_jw_arr_end(j);
	sl_jw_key(j, "validators");
	sl_jw_arr(j);
	for (uint32_t i = 0; i < p->ngenesis_val && i < p->nst; i++) {
		const p_staker *s = &p->st[i];
		sl_jw_obj(j);
		sl_jw_key(j, "txId");
		sl_jw_cb58(j, s->tx_id, 32);
		sl_jw_key(j, "nodeId");
		sl_jw_nodeid(j, w->nodes[s->node].node_id);
		sl_jw_key(j, "startTime");
		sl_jw_u64(j, s->start);
		sl_jw_key(j, "endTime");
		sl_jw_u64(j, s->end);
		sl_jw_key(j, "weight");
		sl_jw_u64s(j, s->weight);
		sl_jw_key(j, "delegationFee");
		sl_jw_u64(j, s->shares);
		sl_jw_key(j, "txType");
		sl_jw_str(j, sl_pchain_type_name(s->type_id));
		sl_jw_key(j, "blsPublicKey");
		if (s->type_id == SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX)
			sl_jw_hex(j, w->nodes[s->node].bls_pk, 48);
		else
			sl_jw_null(j);
		sl_jw_key(j, "proofOfPossession");
		if (s->type_id == SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX)
			sl_jw_hex(j, w->nodes[s->node].pop, 96);
		else
			sl_jw_null(j);
		sl_jw_key(j, "stake");
		sl_jw_arr(j);
		for (uint32_t k = 0; k < s->nstake; k++) {
			sl_jw_obj(j);
			sl_jw_key(j, "outputIndex");
			sl_jw_u64(j, s->nouts + k);
			sl_jw_key(j, "amount");
			sl_jw_u64s(j, s->stake[k].amount);
			sl_jw_key(j, "stakeableLocktime");
			sl_jw_u64(j, s->stake[k].lock);
			sl_jw_key(j, "owner");
			jw_owner(j, w, &s->stake[k].owner);
			sl_jw_obj_end(j);
		}
		sl_jw_arr_end(j);
		sl_jw_key(j, "rewardOwner");
		jw_owner(j, w, &s->rewards);
		sl_jw_key(j, "delegationRewardOwner");
		jw_owner(j, w, &s->delegation);
		sl_jw_obj_end(j);
	}
	sl_jw_arr_end(j);
	sl_jw_obj_end(j);
}

typedef struct p_bal {
	uint64_t unlocked, locked, staked;
} p_bal;

/* ---- validator sets by height ---- */

typedef struct v_ent {
	int32_t subnet;
	uint32_t node;
	size_t seq;
} v_ent;

static int v_ent_cmp(const void *x, const void *y)
{
	const v_ent *a = x, *b = y;
	if (a->subnet != b->subnet)
		return a->subnet < b->subnet ? -1 : 1;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static int u64_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

/*
 * The heights the manifest states the sets at: the genesis, the last block,
 * eighths of the history, and around the first and the middle change of each
 * kind (the height before it and its own), fewer for long histories.
 */
/* How many changes of each kind the log has, and the heights of the first and the middle one. */
typedef struct v_stats {
	size_t n[V__CAUSES];
	uint64_t first[V__CAUSES], middle[V__CAUSES];
} v_stats;

static void vset_stats(const struct dn_pstate *p, v_stats *st)
{
	memset(st, 0, sizeof *st);
	for (size_t i = 0; i < p->vflushed; i++)
		if (!st->n[p->vlog[i].cause]++)
			st->first[p->vlog[i].cause] = p->vlog[i].height;
	size_t seen[V__CAUSES] = { 0 };
	for (size_t i = 0; i < p->vflushed; i++) {
		uint8_t c = p->vlog[i].cause;
		if (seen[c]++ == st->n[c] / 2)
			st->middle[c] = p->vlog[i].height;
	}
}

static size_t vset_heights(const struct dn_pstate *p, const v_stats *st, uint64_t top, uint64_t *out)
{
	bool big = p->vflushed > 100000;
	size_t n = 0;
	out[n++] = top;
	for (uint64_t k = 0; k < 8; k += big ? 4 : 1)
		out[n++] = top * k / 8;
	for (uint8_t c = 0; c < V__CAUSES; c++) {
		if (!st->n[c])
			continue;
		uint64_t at[2] = { st->first[c], st->middle[c] };
		for (int k = 0; k < (big ? 1 : 2); k++) {
			out[n++] = at[k];
			if (at[k])
				out[n++] = at[k] - 1;
		}
	}
	qsort(out, n, sizeof *out, u64_cmp);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (!m || out[m - 1] != out[i])
			out[m++] = out[i];
	return m;
}

static const uint8_t EMPTY_NODE[20];

/* Every validator set at height h: the primary network's, then each subnet's and L1's that has weight. */
static void jw_vsets_at(sl_jw *j, const dn_world *w, const struct dn_pstate *p, uint64_t h, v_ent *e,
			uint8_t *pkey)
{
	size_t n = 0;
	for (size_t i = 0; i < p->vflushed && p->vlog[i].height <= h; i++)
		e[n++] = (v_ent){ p->vlog[i].subnet, p->vlog[i].node, i };
	qsort(e, n, sizeof *e, v_ent_cmp);
	memset(pkey, 0, w->nnodes);
	for (size_t i = 0; i < n;) {
		int32_t subnet = e[i].subnet;
		bool open = false;
		while (i < n && e[i].subnet == subnet) {
			uint32_t node = e[i].node;
			uint64_t wt = 0;
			uint8_t key = 0;
			bool l1 =
				false; /* its last change was an L1 validator's (the subnet may have converted since a permissioned one) */
			for (; i < n && e[i].subnet == subnet && e[i].node == node; i++) {
				const p_vchange *c = &p->vlog[e[i].seq];
				wt = c->sub ? wt - c->weight : wt + c->weight;
				key = c->key ? c->key : key;
				l1 = c->cause >= V_L1_ADD;
			}
			if (subnet < 0 && node != V_EMPTY)
				pkey[node] = wt ? key : 0;
			if (!wt)
				continue;
			if (!open) {
				sl_jw_obj(j);
				sl_jw_key(j, "height");
				sl_jw_u64(j, h);
				sl_jw_key(j, "subnetId");
				sl_jw_cb58(j, subnet < 0 ? ZERO32 : p->sn[subnet].id, 32);
				sl_jw_key(j, "validators");
				sl_jw_arr(j);
				open = true;
			}
			sl_jw_obj(j);
			sl_jw_key(j, "nodeId");
			sl_jw_nodeid(j, node == V_EMPTY ? EMPTY_NODE : w->nodes[node].node_id);
			sl_jw_key(j, "weight");
			sl_jw_u64s(j, wt);
			sl_jw_key(j, "publicKey");
			/* L1 validators have their own key; a subnet's inherit their primary validation's */
			if (node != V_EMPTY && (l1 || pkey[node] == 2))
				sl_jw_hex(j, w->nodes[node].bls_pk, 48);
			else
				sl_jw_null(j);
			sl_jw_obj_end(j);
		}
		if (open) {
			sl_jw_arr_end(j);
			sl_jw_obj_end(j);
		}
	}
}

static const char *const v_cause_names[V__CAUSES] = {
	"genesis", "start",    "promote",  "end",	"subnetStart", "subnetRemove", "subnetEnd",
	"l1Add",   "l1Weight", "l1Remove", "l1Disable", "l1RunOut",    "l1Reactivate",
};

/* Each kind of change the sets saw: how many, and the height of the first (its sets are stated
 * at that height and the one before). */
static void jw_vset_changes(sl_jw *j, const v_stats *st)
{
	sl_jw_obj(j);
	for (uint8_t c = 0; c < V__CAUSES; c++) {
		if (!st->n[c])
			continue;
		sl_jw_key(j, v_cause_names[c]);
		sl_jw_obj(j);
		sl_jw_key(j, "count");
		sl_jw_u64(j, st->n[c]);
		sl_jw_key(j, "first");
		sl_jw_u64(j, st->first[c]);
		sl_jw_obj_end(j);
	}
	sl_jw_obj_end(j);
}

static void jw_vsets(sl_jw *j, const dn_world *w, const struct dn_pstate *p, const v_stats *st)
{
	uint64_t hs[9 + 2 * 2 * V__CAUSES];
	size_t nh = vset_heights(p, st, w->chain[DN_P].height, hs);
	v_ent *e = malloc((p->vflushed ? p->vflushed : 1) * sizeof *e);
	uint8_t *pkey = malloc(w->nnodes + 1);
	sl_jw_arr(j);
	for (size_t i = 0; e && pkey && i < nh; i++)
		jw_vsets_at(j, w, p, hs[i], e, pkey);
	sl_jw_arr_end(j);
	free(e);
	free(pkey);
}

void dn_p_manifest(const dn_world *w, sl_jw *j)
{
	const struct dn_pstate *p = w->p;
	sl_jw_obj(j);
	if (!p) {
		sl_jw_obj_end(j);
		return;
	}
	sl_jw_key(j, "genesisTxId");
	sl_jw_cb58(j, p->genesis_id, 32);
	sl_jw_key(j, "genesisSupply");
	sl_jw_u64s(j, w->params.genesis_supply);
	sl_jw_key(j, "genesis");
	jw_genesis(j, w, p);
	sl_jw_key(j, "l1FeeRate");
	sl_jw_u64(j, DN_L1_FEE_RATE);
	sl_jw_key(j, "pendingDuringHistory");
	sl_jw_u64(j, p->npending_ever);
	sl_jw_key(j, "pendingAtDurango");
	sl_jw_u64(j, p->npending_durango);

	sl_jw_key(j, "validators");
	sl_jw_arr(j);
	for (size_t i = 0; i < p->nst; i++)
		if (p->st[i].type_id != SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX)
			jw_staker(j, w, p, &p->st[i]);
	sl_jw_arr_end(j);
	sl_jw_key(j, "delegators");
	sl_jw_arr(j);
	for (size_t i = 0; i < p->nst; i++)
		if (p->st[i].type_id == SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX)
			jw_staker(j, w, p, &p->st[i]);
	sl_jw_arr_end(j);

	sl_jw_key(j, "subnets");
	sl_jw_arr(j);
	for (size_t i = 0; i < p->nsn; i++) {
		const p_subnet *s = &p->sn[i];
		sl_jw_obj(j);
		sl_jw_key(j, "subnetId");
		sl_jw_cb58(j, s->id, 32);
		sl_jw_key(j, "owner");
		jw_owner(j, w, &s->owner);
		sl_jw_key(j, "chains");
		sl_jw_arr(j);
		for (uint32_t c = 0; c < s->nchains; c++) {
			const p_chainrec *ch = &p->chains[s->chains[c]];
			sl_jw_obj(j);
			sl_jw_key(j, "chainId");
			sl_jw_cb58(j, ch->id, 32);
			sl_jw_key(j, "name");
			sl_jw_str(j, ch->name);
			sl_jw_key(j, "vmId");
			sl_jw_cb58(j, SUBNET_EVM_VM_ID, 32);
			sl_jw_obj_end(j);
		}
		sl_jw_arr_end(j);
		sl_jw_key(j, "isL1");
		sl_jw_bool(j, s->l1);
		if (s->l1) {
			sl_jw_key(j, "managerChainId");
			sl_jw_cb58(j, s->manager_chain, 32);
			sl_jw_key(j, "managerAddress");
			sl_jw_hex(j, s->manager_addr, 20);
		}
		sl_jw_obj_end(j);
	}
	sl_jw_arr_end(j);

	sl_jw_key(j, "validatorSets");
	v_stats st;
	vset_stats(p, &st);
	jw_vsets(j, w, p, &st);
	sl_jw_key(j, "validatorSetChanges");
	jw_vset_changes(j, &st);

	sl_jw_key(j, "l1Validators");
	sl_jw_arr(j);
	for (size_t i = 0; i < p->nl1; i++) {
		const p_l1val *v = &p->l1[i];
		sl_jw_obj(j);
		sl_jw_key(j, "validationId");
		sl_jw_cb58(j, v->vid, 32);
		sl_jw_key(j, "nodeId");
		sl_jw_nodeid(j, w->nodes[v->node].node_id);
		sl_jw_key(j, "subnetId");
		sl_jw_cb58(j, p->sn[v->subnet].id, 32);
		sl_jw_key(j, "weight");
		sl_jw_u64s(j, v->weight);
		sl_jw_key(j, "balance");
		sl_jw_u64s(j, l1_balance(v, w->now));
		sl_jw_key(j, "active");
		sl_jw_bool(j, l1_active(v, w->now));
		sl_jw_key(j, "removed");
		sl_jw_bool(j, v->removed);
		sl_jw_key(j, "minNonce");
		sl_jw_u64(j, v->nonce);
		sl_jw_obj_end(j);
	}
	sl_jw_arr_end(j);

	/* Balances per address, as platform.getBalance counts them: an output counts for each of its owners. */
	p_bal *bal = calloc(w->nkeys + 1, sizeof *bal);
	if (bal) {
		const dn_utxos *set = &w->utxos[DN_P];
		for (size_t i = 0; i < set->n; i++) {
			const dn_utxo *u = &set->v[i];
			if (u->spent)
				continue;
			bool locked = u->locktime > w->now ||
				      (u->type_id == SL_T_STAKEABLE_LOCK_OUT && u->stake_until > w->now);
			for (uint32_t k = 0; k < u->nowners; k++)
				*(locked ? &bal[u->owners[k]].locked : &bal[u->owners[k]].unlocked) +=
					u->amount;
		}
		for (size_t i = 0; i < p->nst; i++) {
			const p_staker *s = &p->st[i];
			if ((s->status != ST_ACTIVE && s->status != ST_PENDING) || s->subnet >= 0)
				continue; /* a pending staker's stake has left the UTXO set too */
			for (uint32_t k = 0; k < s->nstake; k++)
				for (uint32_t o = 0; o < s->stake[k].owner.n; o++)
					bal[s->stake[k].owner.keys[o]].staked += s->stake[k].amount;
		}
	}
	sl_jw_key(j, "balances");
	sl_jw_obj(j);
	for (uint32_t k = 0; bal && k < w->nkeys; k++) {
		if (!bal[k].unlocked && !bal[k].locked && !bal[k].staked)
			continue;
		char mem[160];
		sl_buf a = { .p = (uint8_t *)mem, .cap = sizeof mem, .max = sizeof mem - 1 };
		paddr_fn(&a, w, w->keys[k].addr);
		sl_jw_keyn(j, mem, a.len);
		sl_jw_obj(j);
		sl_jw_key(j, "unlocked");
		sl_jw_u64s(j, bal[k].unlocked);
		sl_jw_key(j, "locked");
		sl_jw_u64s(j, bal[k].locked);
		sl_jw_key(j, "staked");
		sl_jw_u64s(j, bal[k].staked);
		sl_jw_obj_end(j);
	}
	sl_jw_obj_end(j);
	free(bal);

	sl_jw_key(j, "txCounts");
	sl_jw_obj(j);
	for (uint32_t t = 0; t < NTYPES; t++)
		if (p->counts[t]) {
			sl_jw_key(j, sl_pchain_type_name(t));
			sl_jw_u64(j, p->counts[t]);
		}
	sl_jw_obj_end(j);
	sl_jw_obj_end(j);
}

void dn_p_genesis(const dn_world *w, sl_jw *j, bool stakers)
{
	const struct dn_pstate *p = w->p;
	sl_jw_arr(j);
	if (!stakers) {
		/* every genesis allocation, spent later or not: the store learns their creation here */
		sl_buf b;
		sl_buf_init(&b, 4096);
		for (size_t i = 0; i < p->genesis.n; i++) {
			sl_buf_reset(&b);
			dn_utxo_encode(w, &p->genesis.v[i], &b);
			sl_jw_hex(j, b.p, b.len);
		}
		sl_buf_release(&b);
		sl_jw_arr_end(j);
		return;
	}
	const char *hrp = sl_addr_hrp(w->cfg.network_id);
	for (uint32_t i = 0; i < p->ngenesis_val; i++) {
		const p_staker *s = &p->st[i];
		sl_jw_obj(j);
		sl_jw_key(j, "txId");
		sl_jw_cb58(j, s->tx_id, 32);
		sl_jw_key(j, "nodeId");
		char nid[64];
		sl_buf nb = { .p = (uint8_t *)nid, .cap = sizeof nid, .max = sizeof nid - 1 };
		sl_nodeid_write(&nb, w->nodes[s->node].node_id);
		sl_jw_strn(j, nid, nb.len);
		sl_jw_key(j, "start");
		sl_jw_u64(j, s->start);
		sl_jw_key(j, "end");
		sl_jw_u64(j, s->end);
		sl_jw_key(j, "weight");
		sl_jw_u64(j, s->weight);
		sl_jw_key(j, "shares");
		sl_jw_u64(j, s->shares);
		if (s->type_id == SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX) {
			/* a signer: the staker is an AddPermissionlessValidatorTx (docs/index.md) */
			sl_jw_key(j, "signer");
			sl_jw_obj(j);
			sl_jw_key(j, "publicKey");
			sl_jw_hex(j, w->nodes[s->node].bls_pk, 48);
			sl_jw_key(j, "proofOfPossession");
			sl_jw_hex(j, w->nodes[s->node].pop, 96);
			sl_jw_obj_end(j);
			/* the tx itself (00 00 | signed tx, no credentials): txId is its sha256 */
			sl_buf tb;
			sl_buf_init(&tb, SL_CODEC_MAX_SIZE);
			if (!genesis_tx_write(w, s, &tb)) {
				sl_jw_key(j, "tx");
				sl_jw_hex(j, tb.p, tb.len);
			}
			sl_buf_release(&tb);
		}
		sl_jw_key(j, "stake");
		sl_jw_arr(j);
		sl_buf b;
		sl_buf_init(&b, 4096);
		for (uint32_t k = 0; k < s->nstake; k++) {
			dn_utxo u = { .index = s->nouts + k,
				      .type_id = s->stake[k].lock ? SL_T_STAKEABLE_LOCK_OUT
								  : SL_T_SECP_TRANSFER_OUTPUT,
				      .amount = s->stake[k].amount,
				      .stake_until = s->stake[k].lock };
			memcpy(u.tx_id, s->tx_id, 32);
			memcpy(u.asset_id, w->avax, 32);
			utxo_set_owner(&u, &s->stake[k].owner);
			sl_buf_reset(&b);
			dn_utxo_encode(w, &u, &b);
			sl_jw_hex(j, b.p, b.len);
		}
		sl_buf_release(&b);
		sl_jw_arr_end(j);
		sl_jw_key(j, "rewardsOwner");
		sl_jw_obj(j);
		sl_jw_key(j, "threshold");
		sl_jw_u64(j, s->rewards.threshold);
		sl_jw_key(j, "locktime");
		sl_jw_u64(j, s->rewards.locktime);
		sl_jw_key(j, "addresses");
		sl_jw_arr(j);
		for (uint32_t k = 0; k < s->rewards.n; k++) {
			char mem[128];
			sl_buf a = { .p = (uint8_t *)mem, .cap = sizeof mem, .max = sizeof mem - 1 };
			sl_addr_write(&a, "P", hrp, w->keys[s->rewards.keys[k]].addr);
			sl_jw_strn(j, mem, a.len);
		}
		sl_jw_arr_end(j);
		sl_jw_obj_end(j);
		sl_jw_obj_end(j);
	}
	sl_jw_arr_end(j);
}
