/*
 * validators.c — GET /v1/networks/{network}/validators (spec 000 §4.5, §2.5):
 * every validation the P-chain accepted (AddValidatorTx, the genesis
 * validators among them; AddSubnetValidatorTx; AddPermissionlessValidatorTx),
 * with its status at "now", the time of the store's latest P block, and what
 * that status shows (docs/api.md has every definition):
 *
 *   pending    not started: start > now
 *   active     started and not ended: no RewardValidatorTx yet (a primary
 *              validator past its end stays current until then, as in
 *              avalanchego), and a permissioned subnet validator's end not reached
 *   completed  rewarded (committed or not), or a permissioned subnet validator
 *              past its end
 *   removed    ended by a RemoveSubnetValidatorTx
 *
 * A page is made one of two ways:
 *
 *   stream  sortBy blockIndex (the staking tx's seq) or delegationFee, without a
 *           filter on a computed value: the validators in that order past the
 *           cursor (a range of stakers_validators; the fee order is the store's
 *           sort of the primary network's validators), the other filters applied
 *           here, read in windows until the page is full.
 *   set     a filter on delegationCapacity, timeRemaining or uptimePerformance,
 *           or one of them as sortBy: those values exist only for validators not
 *           ended, so they are computed here for the network's staking set (every
 *           staker not ended, current or pending, read whole from stakers_open, which
 *           leaves out permissioned validators past their end (stakers.vout): at
 *           most API_MAX_OPEN_STAKERS, a few thousand on mainnet), filtered and
 *           sorted here. Sorted by such a value, the validators that have none
 *           (ended ones; pending ones for the uptime; subnet validators for the
 *           capacity) come after the others in descending order and before them in
 *           ascending order, by seq: their key is -1, and they are streamed.
 *
 * Every request also reads the staking set (the current delegators of active
 * validators, the network's active stake) and node_obs (uptimes), all in one read
 * transaction, so a page is of one moment. The cursor is the last item's
 * (key, seq, tx id), 48 bytes.
 */
#include "api/internal.h"

#include "codec/rewards.h"
#include "crypto/cb58.h"
#include "util/u256.h"

enum { ST_COMPLETED, ST_ACTIVE, ST_PENDING, ST_REMOVED };	      /* routes.c validation_statuses */
enum { SORT_BLOCK, SORT_CAPACITY, SORT_TIME, SORT_FEE, SORT_UPTIME }; /* routes.c validator_sorts */

#define TYPE_SUBNET_VALIDATOR 13 /* AddSubnetValidatorTx: permissioned, no reward, no fee */
#define MAX_VALIDATOR_STAKE (3000000ull * 1000000000ull) /* nAVAX, mainnet's and Fuji's MaxValidatorStake */
#define MAX_WEIGHT_FACTOR 5u /* MaxValidatorWeightFactor: a validation weighs at most 5× its stake */
#define WINDOW 256	     /* rows a stream reads at a time */
#define CURSOR_LEN 48	     /* key | seq | tx */

static const uint8_t ZERO[32];

/* ---- the staking set: every staker not ended ------------------------------------------------------- */

typedef struct open_st {
	uint8_t tx[32], node[20], subnet[32];
	int64_t seq, start, end;
	uint64_t weight, potential;
	int type;
	uint32_t fee;
	bool has_fee, has_potential, primary, validator;
	/* a validator's delegators not ended: all of them (current and pending), the current ones, and
	 * its fee on the current ones' potential rewards */
	uint64_t delegated_all, delegated_cur, fee_share;
	uint32_t ncur;
} open_st;

typedef struct obs {
	uint8_t node[20];
	int64_t uptime, samples, reachable;
	int64_t benched[3]; /* samples in which info.peers had it benched on P, X, C */
} obs;

/* A position in the list's order: before the first item, or the last one shown. */
typedef struct cursor {
	int64_t key, seq;
	uint8_t tx[32];
} cursor;

/* A validator as a page shows it: a row of stakers. */
typedef struct vrow {
	int64_t key, seq, start, end, end_ts;
	uint8_t tx[32], node[20], subnet[32], end_tx[32];
	int type, status;
	uint64_t weight, potential;
	uint32_t fee;
	bool has_fee, has_potential, primary, has_bls, ended;
	uint8_t bls_key[48], bls_pop[96];
	const uint8_t *owner; /* rewards owner blob: the row's while read, the arena's once kept */
	size_t owner_len;
} vrow;

typedef struct vreq {
	api_req *r;
	int64_t now;
	int sort;
	bool desc, computed; /* computed: a filter on a computed value is given */
	size_t page;
	const api_val *nodes, *status, *subnet, *cap[2], *time[2], *fee[2], *up[2];
	open_st *open; /* the staking set (malloc) */
	size_t nopen;
	open_st **vals; /* its validators, by tx */
	size_t nvals;
	uint64_t primary_total; /* the primary network's active stake: validators' and delegators' */
	obs *obs;		/* node_obs, by node (malloc) */
	size_t nobs;
	sl_buf text; /* a node id's text, for nodeIds */
} vreq;

static int status_of(int type, bool ended, bool removed, int64_t start, int64_t end, int64_t now)
{
	if (ended)
		return removed ? ST_REMOVED : ST_COMPLETED;
	if (type == TYPE_SUBNET_VALIDATOR && end <= now)
		return ST_COMPLETED; /* avalanchego drops a permissioned validator at its end */
	return start > now ? ST_PENDING : ST_ACTIVE;
}

static const sl_sql q_open = {
	"SELECT tx, seq, type, node, subnet, start_ts, end_ts, weight, fee, potential FROM stakers "
	"{sqlite:INDEXED BY stakers_open} WHERE end_tx IS NULL AND vout IS NULL"
};
static const sl_sql q_obs = {
	"SELECT node, uptime, samples, reachable, benched_p, benched_x, benched_c FROM node_obs"
};

static int cmp_node_start(const void *a, const void *b)
{
	const open_st *x = *(open_st *const *)a, *y = *(open_st *const *)b;
	int d = memcmp(x->node, y->node, 20);
	return d ? d : x->start < y->start ? -1 : x->start > y->start;
}
static int cmp_tx(const void *a, const void *b)
{
	return memcmp((*(open_st *const *)a)->tx, (*(open_st *const *)b)->tx, 32);
}
static int cmp_obs(const void *a, const void *b)
{
	return memcmp(((const obs *)a)->node, ((const obs *)b)->node, 20);
}

/* The validator of a delegator: on its node and subnet, its period holding the delegation's. vals: by
 * (node, start). */
static open_st *validator_of(open_st **vals, size_t n, const open_st *d)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (memcmp(vals[mid]->node, d->node, 20) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && !memcmp(vals[lo]->node, d->node, 20); lo++)
		if (!memcmp(vals[lo]->subnet, d->subnet, 32) && vals[lo]->start <= d->start &&
		    d->end <= vals[lo]->end)
			return vals[lo];
	return NULL;
}

/* Read the staking set and node_obs; 0, or -1 after api_fail. */
static int load(vreq *vq)
{
	api_req *r = vq->r;
	sl_stmt *s = sl_stmt_get(r->db, &q_open);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	sl_err e = sl_stmt_query(s);
	size_t cap = 0;
	while (!e && sl_stmt_next(s, &e)) {
		if (vq->nopen == API_MAX_OPEN_STAKERS)
			return api_fail(r, 500, "more than %d stakers not ended: past what one request reads",
					API_MAX_OPEN_STAKERS);
		if (vq->nopen == cap) {
			size_t ncap = cap ? 2 * cap : 1024;
			open_st *nv = realloc(vq->open, ncap * sizeof *nv);
			if (!nv)
				return api_fail(r, 500, "out of memory");
			vq->open = nv;
			cap = ncap;
		}
		open_st *o = &vq->open[vq->nopen++];
		*o = (open_st){ .seq = sl_col_i64(s, 1),
				.type = (int)sl_col_i64(s, 2),
				.start = sl_col_i64(s, 5),
				.end = sl_col_i64(s, 6),
				.weight = (uint64_t)sl_col_i64(s, 7),
				.has_fee = !sl_col_null(s, 8),
				.has_potential = !sl_col_null(s, 9),
				.potential = sl_col_u64be(s, 9) };
		int64_t fee = sl_col_i64(s, 8);
		o->fee = fee > 0 && fee <= (int64_t)SL_REWARD_PERCENT_DENOMINATOR ? (uint32_t)fee : 0;
		sl_col_copy(s, 0, o->tx, 32);
		sl_col_copy(s, 3, o->node, 20);
		sl_col_copy(s, 4, o->subnet, 32);
		o->primary = !memcmp(o->subnet, ZERO, 32);
		o->validator = o->type == 12 || o->type == TYPE_SUBNET_VALIDATOR || o->type == 25;
		vq->nvals += o->validator;
	}
	if (e)
		return api_fail_store(r, e);
	if (vq->nvals && !(vq->vals = malloc(vq->nvals * sizeof *vq->vals)))
		return api_fail(r, 500, "out of memory");
	size_t k = 0;
	for (size_t i = 0; i < vq->nopen; i++)
		if (vq->open[i].validator)
			vq->vals[k++] = &vq->open[i];
	if (vq->nvals)
		qsort(vq->vals, vq->nvals, sizeof *vq->vals, cmp_node_start);
	/* each delegator's validator; the primary network's active stake */
	for (size_t i = 0; i < vq->nopen; i++) {
		const open_st *d = &vq->open[i];
		if (d->primary && d->start <= vq->now && d->type != TYPE_SUBNET_VALIDATOR)
			vq->primary_total += d->weight;
		open_st *v = d->validator ? NULL : validator_of(vq->vals, vq->nvals, d);
		if (!v)
			continue;
		v->delegated_all += d->weight;
		if (d->start <= vq->now) {
			v->ncur++;
			v->delegated_cur += d->weight;
			uint64_t fee = 0, theirs;
			if (d->has_potential)
				sl_reward_split(d->potential, v->fee, &fee, &theirs);
			v->fee_share += fee;
		}
	}
	if (vq->nvals)
		qsort(vq->vals, vq->nvals, sizeof *vq->vals, cmp_tx);
	/* what the node observed of its validators */
	if (!(s = sl_stmt_get(r->db, &q_obs)))
		return api_fail_store(r, SL_ERR_STORE);
	e = sl_stmt_query(s);
	cap = 0;
	while (!e && sl_stmt_next(s, &e)) {
		if (vq->nobs == cap) {
			size_t ncap = cap ? 2 * cap : 256;
			if (ncap > API_MAX_OPEN_STAKERS)
				return api_fail(r, 500, "more than %d nodes observed", API_MAX_OPEN_STAKERS);
			obs *nv = realloc(vq->obs, ncap * sizeof *nv);
			if (!nv)
				return api_fail(r, 500, "out of memory");
			vq->obs = nv;
			cap = ncap;
		}
		obs *o = &vq->obs[vq->nobs++];
		sl_col_copy(s, 0, o->node, 20);
		o->uptime = sl_col_i64(s, 1);
		o->samples = sl_col_i64(s, 2);
		o->reachable = sl_col_i64(s, 3);
		for (int c = 0; c < 3; c++)
			o->benched[c] = sl_col_i64(s, 4 + c);
	}
	if (e)
		return api_fail_store(r, e);
	if (vq->nobs)
		qsort(vq->obs, vq->nobs, sizeof *vq->obs, cmp_obs);
	return 0;
}

static open_st *find_open(const vreq *vq, const uint8_t tx[32])
{
	open_st key, *kp = &key;
	memcpy(key.tx, tx, 32);
	open_st **p = vq->nvals ? bsearch(&kp, vq->vals, vq->nvals, sizeof *vq->vals, cmp_tx) : NULL;
	return p ? *p : NULL;
}

static const obs *find_obs(const vreq *vq, const uint8_t node[20])
{
	obs key;
	memcpy(key.node, node, 20);
	return vq->nobs ? bsearch(&key, vq->obs, vq->nobs, sizeof *vq->obs, cmp_obs) : NULL;
}

/* The active stake of a subnet other than the primary network: its active validators' weight. */
static uint64_t subnet_total(const vreq *vq, const uint8_t subnet[32])
{
	uint64_t t = 0;
	for (size_t i = 0; i < vq->nvals; i++) {
		const open_st *v = vq->vals[i];
		if (!memcmp(v->subnet, subnet, 32) &&
		    status_of(v->type, false, false, v->start, v->end, vq->now) == ST_ACTIVE)
			t += v->weight;
	}
	return t;
}

/* ---- computed values ------------------------------------------------------------------------------- */

/* What is known of a validator for its computed values and filters. */
typedef struct facts {
	int type, status;
	bool primary, has_fee;
	uint32_t fee;
	int64_t end;
	const uint8_t *node, *subnet;
	const open_st *open; /* NULL when ended */
} facts;

/* delegationCapacity: min(5 × weight, 3M AVAX) − weight − delegated (its delegators not ended), at
 * least 0; for primary validations not ended. */
static bool capacity(const facts *f, uint64_t *v)
{
	if (!f->primary || f->type == TYPE_SUBNET_VALIDATOR || !f->open ||
	    (f->status != ST_ACTIVE && f->status != ST_PENDING))
		return false;
	uint64_t w = f->open->weight;
	uint64_t most = w > MAX_VALIDATOR_STAKE / MAX_WEIGHT_FACTOR ? MAX_VALIDATOR_STAKE
								    : w * MAX_WEIGHT_FACTOR;
	uint64_t used = w + f->open->delegated_all;
	*v = most > used && used >= w ? most - used : 0;
	return true;
}

/* timeRemaining: end − now, at least 0; for validations not ended. */
static bool time_left(const vreq *vq, const facts *f, uint64_t *v)
{
	if (f->status != ST_ACTIVE && f->status != ST_PENDING)
		return false;
	*v = f->end > vq->now ? (uint64_t)(f->end - vq->now) : 0;
	return true;
}

/* uptimePerformance in millionths of 1 (97.16% = 971600): the node's last observed uptime, 0 when never
 * observed; for active validations. */
static bool uptime(const vreq *vq, const facts *f, uint64_t *v)
{
	if (f->status != ST_ACTIVE)
		return false;
	const obs *o = find_obs(vq, f->node);
	*v = o && o->uptime > 0 ? (uint64_t)SL_MIN(o->uptime, 1000000) : 0;
	return true;
}

/* The value sortBy orders by, when the validator has one. */
static bool sort_key(const vreq *vq, const facts *f, int64_t seq, int64_t *key)
{
	uint64_t v = 0;
	bool has = true;
	switch (vq->sort) {
	case SORT_BLOCK: v = (uint64_t)seq; break;
	case SORT_FEE:
		has = f->has_fee;
		v = f->fee;
		break;
	case SORT_CAPACITY: has = capacity(f, &v); break;
	case SORT_TIME: has = time_left(vq, f, &v); break;
	case SORT_UPTIME: has = uptime(vq, f, &v); break;
	default: has = false;
	}
	*key = has ? (int64_t)v : -1;
	return has;
}

static bool within(const api_val *const b[2], uint64_t v)
{
	return (!b[0]->set || v >= b[0]->u) && (!b[1]->set || v <= b[1]->u);
}
static bool within_i(const api_val *const b[2], int64_t v)
{
	return (!b[0]->set || v >= b[0]->i) && (!b[1]->set || v <= b[1]->i);
}

/* The filters on computed values: each given one needs the value, in its range. */
static bool computed_ok(const vreq *vq, const facts *f)
{
	uint64_t v;
	if ((vq->cap[0]->set || vq->cap[1]->set) && !(capacity(f, &v) && within(vq->cap, v)))
		return false;
	if ((vq->time[0]->set || vq->time[1]->set) &&
	    !(time_left(vq, f, &v) && within_i(vq->time, (int64_t)v)))
		return false;
	/* uptime in millionths of 1, the bounds in millionths of a percent */
	if ((vq->up[0]->set || vq->up[1]->set) && !(uptime(vq, f, &v) && within_i(vq->up, (int64_t)v * 100)))
		return false;
	return true;
}

/* The other filters: status, node ids (parts of the NodeID-… text), subnet, fee. */
static bool filters_ok(vreq *vq, const facts *f)
{
	if (vq->status->set && vq->status->i != f->status)
		return false;
	if (vq->subnet->set && memcmp(vq->subnet->id, f->subnet, 32))
		return false;
	/* a fee in ppm, the bounds in millionths of a percent: subnet validations have none */
	if ((vq->fee[0]->set || vq->fee[1]->set) && !(f->has_fee && within_i(vq->fee, (int64_t)f->fee * 100)))
		return false;
	if (vq->nodes->set) {
		sl_buf_reset(&vq->text);
		sl_buf_add(&vq->text, "NodeID-", 7);
		sl_cb58_write(&vq->text, f->node, 20);
		sl_buf_addc(&vq->text, 0);
		bool any = false;
		for (size_t i = 0; i < vq->nodes->nstrs && !any; i++)
			any = strstr(sl_buf_str(&vq->text), vq->nodes->strs[i]) != NULL;
		if (!any)
			return false;
	}
	return true;
}

/* ---- rows ------------------------------------------------------------------------------------------ */

#define VCOLS                                                                                           \
	"seq, tx, type, node, subnet, start_ts, end_ts, weight, fee, rewards_owner, bls_key, bls_pop, " \
	"end_tx, end_ts_actual, committed, potential"
#define FROM_SEQ                                                                                           \
	"SELECT " VCOLS " FROM stakers {sqlite:INDEXED BY stakers_validators} WHERE type IN (12, 13, 25) " \
	"AND (? = 0 OR subnet = ?) AND "
static const sl_sql q_seq_asc = { FROM_SEQ "(seq, tx) > (?, ?) ORDER BY seq, tx LIMIT ?" };
static const sl_sql q_seq_desc = { FROM_SEQ "(seq, tx) < (?, ?) ORDER BY seq DESC, tx DESC LIMIT ?" };
/* sortBy delegationFee (mainnet, the primary network only): the store sorts them */
#define FROM_FEE "SELECT " VCOLS " FROM stakers WHERE type IN (12, 13, 25) AND subnet = ? AND "
static const sl_sql q_fee_asc = { FROM_FEE "(COALESCE(fee, -1), seq, tx) > (?, ?, ?) "
					   "ORDER BY COALESCE(fee, -1), seq, tx LIMIT ?" };
static const sl_sql q_fee_desc = { FROM_FEE "(COALESCE(fee, -1), seq, tx) < (?, ?, ?) "
					    "ORDER BY COALESCE(fee, -1) DESC, seq DESC, tx DESC LIMIT ?" };
static const sl_sql q_one = { "SELECT " VCOLS " FROM stakers WHERE tx = ?" };

static void read_row(const vreq *vq, sl_stmt *s, vrow *v)
{
	*v = (vrow){ .seq = sl_col_i64(s, 0),
		     .type = (int)sl_col_i64(s, 2),
		     .start = sl_col_i64(s, 5),
		     .end = sl_col_i64(s, 6),
		     .weight = (uint64_t)sl_col_i64(s, 7),
		     .has_fee = !sl_col_null(s, 8),
		     .ended = !sl_col_null(s, 12),
		     .end_ts = sl_col_i64(s, 13),
		     .has_potential = !sl_col_null(s, 15),
		     .potential = sl_col_u64be(s, 15) };
	int64_t fee = sl_col_i64(s, 8);
	v->fee = fee > 0 && fee <= (int64_t)SL_REWARD_PERCENT_DENOMINATOR ? (uint32_t)fee : 0;
	sl_col_copy(s, 1, v->tx, 32);
	sl_col_copy(s, 3, v->node, 20);
	sl_col_copy(s, 4, v->subnet, 32);
	sl_col_copy(s, 12, v->end_tx, 32);
	v->primary = !memcmp(v->subnet, ZERO, 32);
	v->owner = sl_col_blob(s, 9, &v->owner_len);
	size_t nk = 0, np = 0;
	const uint8_t *k = sl_col_blob(s, 10, &nk), *p = sl_col_blob(s, 11, &np);
	if (k && p && nk == 48 && np == 96) {
		v->has_bls = true;
		memcpy(v->bls_key, k, 48);
		memcpy(v->bls_pop, p, 96);
	}
	v->status = status_of(v->type, v->ended, sl_col_null(s, 14), v->start, v->end, vq->now);
}

static facts facts_of(const vreq *vq, const vrow *v)
{
	return (facts){ .type = v->type,
			.status = v->status,
			.primary = v->primary,
			.has_fee = v->has_fee,
			.fee = v->fee,
			.end = v->end,
			.node = v->node,
			.subnet = v->subnet,
			.open = v->ended ? NULL : find_open(vq, v->tx) };
}

static int cmp_pos(int64_t ak, int64_t as, const uint8_t *at, int64_t bk, int64_t bs, const uint8_t *bt)
{
	if (ak != bk)
		return ak < bk ? -1 : 1;
	if (as != bs)
		return as < bs ? -1 : 1;
	return memcmp(at, bt, 32);
}

/* Is (key, seq, tx) past the cursor in the list's order? */
static bool past(const vreq *vq, const cursor *c, int64_t key, int64_t seq, const uint8_t tx[32])
{
	int d = cmp_pos(key, seq, tx, c->key, c->seq, c->tx);
	return vq->desc ? d < 0 : d > 0;
}

/* The row's owner into the arena (a kept row outlives its statement's row). */
static bool keep(api_req *r, vrow *v)
{
	if (!v->owner || !v->owner_len) {
		v->owner = NULL;
		v->owner_len = 0;
		return true;
	}
	uint8_t *o = sl_arena_alloc(r->arena, v->owner_len);
	if (!o)
		return false;
	memcpy(o, v->owner, v->owner_len);
	v->owner = o;
	return true;
}

/*
 * The validators of the stream past the cursor, at most `want` of them, into out (*n): in the sort's
 * order (blockIndex, delegationFee), or `rest`: those without the computed value sortBy orders by, in
 * seq order (their key is -1), from the cursor when it is among them and else from the start.
 * 0, or -1 after api_fail.
 */
static int stream(vreq *vq, const cursor *after, bool rest, vrow *out, size_t want, size_t *n)
{
	api_req *r = vq->r;
	bool by_fee = vq->sort == SORT_FEE && !rest;
	cursor at = *after;
	if (rest && after->key != -1) {
		at.seq = vq->desc ? INT64_MAX : INT64_MIN;
		memset(at.tx, vq->desc ? 0xff : 0, 32);
	}
	size_t lim = SL_MAX(want, (size_t)WINDOW);
	*n = 0;
	for (;;) {
		sl_stmt *s = sl_stmt_get(r->db, by_fee	   ? (vq->desc ? &q_fee_desc : &q_fee_asc)
						: vq->desc ? &q_seq_desc
							   : &q_seq_asc);
		if (!s)
			return api_fail_store(r, SL_ERR_STORE);
		int b = 0;
		if (by_fee) {
			sl_bind_blob(s, b++, ZERO, 32);
			sl_bind_i64(s, b++, at.key);
		} else {
			sl_bind_i64(s, b++, vq->subnet->set);
			sl_bind_blob(s, b++, vq->subnet->id, vq->subnet->set ? 32 : 0);
		}
		sl_bind_i64(s, b++, at.seq);
		sl_bind_blob(s, b++, at.tx, 32);
		sl_bind_i64(s, b, (int64_t)lim);
		sl_err e = sl_stmt_query(s);
		size_t rows = 0;
		vrow v;
		while (!e && *n < want && sl_stmt_next(s, &e)) {
			rows++;
			read_row(vq, s, &v);
			facts f = facts_of(vq, &v);
			bool has = sort_key(vq, &f, v.seq, &v.key);
			if (rest)
				v.key = -1;
			at.key = v.key;
			at.seq = v.seq;
			memcpy(at.tx, v.tx, 32);
			if ((rest && has) || !filters_ok(vq, &f))
				continue;
			if (!keep(r, &v))
				return api_fail(r, 500, "out of memory");
			out[(*n)++] = v;
		}
		if (e)
			return api_fail_store(r, e);
		if (*n == want || rows < lim)
			return 0;
	}
}

/* A validator of the set: its place in the order. */
typedef struct cand {
	int64_t key, seq;
	uint8_t tx[32];
} cand;

static int cmp_cand_asc(const void *a, const void *b)
{
	const cand *x = a, *y = b;
	return cmp_pos(x->key, x->seq, x->tx, y->key, y->seq, y->tx);
}
static int cmp_cand_desc(const void *a, const void *b) { return cmp_cand_asc(b, a); }

/*
 * The validators not ended that pass every filter (and have the value sortBy orders by, when it is a
 * computed one), sorted, past the cursor: at most `want`, read whole into out (*n). 0, or -1 after
 * api_fail.
 */
static int set_part(vreq *vq, const cursor *after, vrow *out, size_t want, size_t *n)
{
	api_req *r = vq->r;
	*n = 0;
	if (!vq->nvals)
		return 0;
	cand *c = malloc(vq->nvals * sizeof *c);
	if (!c)
		return api_fail(r, 500, "out of memory");
	size_t nc = 0;
	bool computed_sort = vq->sort == SORT_CAPACITY || vq->sort == SORT_TIME || vq->sort == SORT_UPTIME;
	for (size_t i = 0; i < vq->nvals; i++) {
		const open_st *o = vq->vals[i];
		facts f = { .type = o->type,
			    .status = status_of(o->type, false, false, o->start, o->end, vq->now),
			    .primary = o->primary,
			    .has_fee = o->has_fee,
			    .fee = o->fee,
			    .end = o->end,
			    .node = o->node,
			    .subnet = o->subnet,
			    .open = o };
		if (f.status == ST_COMPLETED)
			continue; /* an expired permissioned validator: it has none of the values */
		int64_t key;
		bool has = sort_key(vq, &f, o->seq, &key);
		if ((computed_sort && !has) || !filters_ok(vq, &f) || !computed_ok(vq, &f) ||
		    !past(vq, after, key, o->seq, o->tx))
			continue;
		c[nc] = (cand){ .key = key, .seq = o->seq };
		memcpy(c[nc].tx, o->tx, 32);
		nc++;
	}
	qsort(c, nc, sizeof *c, vq->desc ? cmp_cand_desc : cmp_cand_asc);
	for (size_t i = 0; i < nc && *n < want; i++) {
		sl_stmt *s = sl_stmt_get(r->db, &q_one);
		if (!s) {
			free(c);
			return api_fail_store(r, SL_ERR_STORE);
		}
		sl_bind_blob(s, 0, c[i].tx, 32);
		sl_err e = sl_stmt_query(s);
		if (!e && sl_stmt_next(s, &e)) {
			vrow *v = &out[*n];
			read_row(vq, s, v);
			v->key = c[i].key;
			if (!keep(r, v)) {
				free(c);
				return api_fail(r, 500, "out of memory");
			}
			(*n)++;
		}
		if (e) {
			free(c);
			return api_fail_store(r, e);
		}
	}
	free(c);
	return 0;
}

/* ---- rendering ------------------------------------------------------------------------------------- */

/* v / 10^dec as a JSON number without trailing zeros: 97.16, 100, 0.5 */
static void write_fixed(api_req *r, uint64_t v, int dec)
{
	uint64_t p = 1;
	for (int i = 0; i < dec; i++)
		p *= 10;
	char t[64];
	int n = snprintf(t, sizeof t, "%llu", (unsigned long long)(v / p));
	if (v % p) {
		n += snprintf(t + n, sizeof t - (size_t)n, ".%0*llu", dec, (unsigned long long)(v % p));
		while (t[n - 1] == '0')
			n--;
	}
	sl_jw_raw(&r->w, t, (size_t)n);
}

/* floor(a × 10^8 / b): a part of b in percent with 6 decimals (0 when b is 0) */
static uint64_t percent6(uint64_t a, uint64_t b)
{
	if (!b)
		return 0;
	sl_u256 v = sl_u256_of(a);
	sl_u256_mul64(&v, 100000000);
	sl_u256_div64(&v, b);
	return v.w[0];
}

/* count of a node's samples in percent with 4 decimals (truncated); 0 when it was never sampled */
static uint64_t sample_percent(const obs *ob, int64_t count)
{
	if (!ob || ob->samples <= 0 || count <= 0)
		return 0;
	return percent6((uint64_t)SL_MIN(count, ob->samples), (uint64_t)ob->samples) / 100;
}

static const sl_sql q_delegators = {
	"SELECT d.tx, d.weight, u.amount FROM stakers d LEFT JOIN rewards w ON w.staking_tx = d.tx AND w.type = 3 "
	"LEFT JOIN utxos u ON u.chain = 0 AND u.pos = d.seq AND u.id = w.utxo WHERE d.node = ? AND d.type IN (14, 26) "
	"AND d.subnet = ? "
	"AND d.start_ts >= ? AND d.end_ts <= ? ORDER BY d.tx"
};
static const sl_sql q_own_rewards = {
	"SELECT w.type, u.amount FROM rewards w JOIN stakers s ON s.tx = w.staking_tx "
	"JOIN utxos u ON u.chain = 0 AND u.pos = s.seq AND u.id = w.utxo WHERE w.staking_tx = ?"
};

/* A completed validation's delegators (every one within its period) and the rewards paid for it: its
 * own reward (VALIDATOR) and its fees (VALIDATOR_FEE, paid at its end or at each delegator's). */
static sl_err completed_facts(vreq *vq, const vrow *v, uint32_t *count, uint64_t *delegated, uint64_t *reward,
			      uint64_t *fees)
{
	*count = 0;
	*delegated = *reward = *fees = 0;
	if (!v->primary || v->type == TYPE_SUBNET_VALIDATOR)
		return SL_OK;
	sl_stmt *s = sl_stmt_get(vq->r->db, &q_delegators);
	if (!s)
		return SL_ERR_STORE;
	sl_bind_blob(s, 0, v->node, 20);
	sl_bind_blob(s, 1, v->subnet, 32);
	sl_bind_i64(s, 2, v->start);
	sl_bind_i64(s, 3, v->end);
	sl_err e = sl_stmt_query(s);
	uint8_t last[32];
	bool any = false;
	while (!e && sl_stmt_next(s, &e)) {
		uint8_t tx[32];
		sl_col_copy(s, 0, tx, 32);
		if (!any || memcmp(tx, last, 32)) {
			(*count)++;
			*delegated += (uint64_t)sl_col_i64(s, 1);
		}
		any = true;
		memcpy(last, tx, 32);
		if (!sl_col_null(s, 2))
			*fees += sl_col_u64be(s, 2);
	}
	if (e)
		return e;
	if (!(s = sl_stmt_get(vq->r->db, &q_own_rewards)))
		return SL_ERR_STORE;
	sl_bind_blob(s, 0, v->tx, 32);
	e = sl_stmt_query(s);
	while (!e && sl_stmt_next(s, &e)) {
		int kind = (int)sl_col_i64(s, 0);
		if (kind == 1)
			*reward += sl_col_u64be(s, 1);
		else if (kind == 3)
			*fees += sl_col_u64be(s, 1);
	}
	return e;
}

static void write_rewards(api_req *r, const char *key, const vrow *v, uint64_t reward, uint64_t fees, bool tx)
{
	sl_jw *w = &r->w;
	sl_jw_key(w, key);
	sl_jw_obj(w);
	sl_jw_key(w, "validationRewardAmount");
	sl_jw_u64s(w, reward);
	sl_jw_key(w, "delegationRewardAmount");
	sl_jw_u64s(w, fees);
	api_owner o;
	if (v->owner && api_owner_read(v->owner, v->owner_len, &o))
		api_owner_addresses(r, "rewardAddresses", &o);
	if (tx && v->ended) {
		sl_jw_key(w, "rewardTxHash");
		api_write_id(r, v->end_tx);
	}
	sl_jw_obj_end(w);
}

static int write_validator(vreq *vq, const vrow *v)
{
	api_req *r = vq->r;
	sl_jw *w = &r->w;
	static const char *const names[] = { "completed", "active", "pending", "removed" };
	sl_jw_obj(w);
	sl_jw_key(w, "txHash");
	api_write_id(r, v->tx);
	sl_jw_key(w, "nodeId");
	api_write_node_id(r, v->node);
	sl_jw_key(w, "subnetId");
	api_write_id(r, v->subnet);
	sl_jw_key(w, "amountStaked");
	sl_jw_u64s(w, v->weight);
	if (v->has_fee) {
		sl_jw_key(w, "delegationFee");
		api_write_fee_percent(r, v->fee);
	}
	sl_jw_key(w, "startTimestamp");
	sl_jw_i64(w, v->start);
	sl_jw_key(w, "endTimestamp");
	sl_jw_i64(w, v->end);
	if (v->has_bls) {
		sl_jw_key(w, "blsCredentials");
		sl_jw_obj(w);
		sl_jw_key(w, "publicKey");
		sl_jw_hex(w, v->bls_key, 48);
		sl_jw_key(w, "proofOfPossession");
		sl_jw_hex(w, v->bls_pop, 96);
		sl_jw_obj_end(w);
	}
	sl_jw_key(w, "validationStatus");
	sl_jw_str(w, names[v->status]);
	if (v->status == ST_ACTIVE) {
		facts f = facts_of(vq, v);
		const open_st *o = f.open;
		uint64_t mine = v->weight + (o && v->primary ? o->delegated_cur : 0);
		uint64_t total = v->primary ? vq->primary_total : subnet_total(vq, v->subnet);
		sl_jw_key(w, "stakePercentage");
		write_fixed(r, percent6(mine, total), 6);
		sl_jw_key(w, "delegatorCount");
		sl_jw_u64(w, o ? o->ncur : 0);
		sl_jw_key(w, "amountDelegated");
		sl_jw_u64s(w, o ? o->delegated_cur : 0);
		uint64_t up = 0, cap = 0;
		uptime(vq, &f, &up);
		sl_jw_key(w, "uptimePerformance");
		write_fixed(r, up, 4);
		if (capacity(&f, &cap)) {
			sl_jw_key(w, "delegationCapacity");
			sl_jw_u64s(w, cap);
		}
		write_rewards(r, "potentialRewards", v, v->has_potential ? v->potential : 0,
			      o ? o->fee_share : 0, false);
		const obs *ob = find_obs(vq, v->node);
		sl_jw_key(w, "validatorHealth");
		sl_jw_obj(w);
		sl_jw_key(w, "reachabilityPercent");
		write_fixed(r, sample_percent(ob, ob ? ob->reachable : 0), 4);
		/* the share of the samples in which the node's info.peers had it benched on each chain */
		static const char *const benched[3] = { "benchedPChainRequestsPercent",
							"benchedXChainRequestsPercent",
							"benchedCChainRequestsPercent" };
		for (int c = 0; c < 3; c++) {
			sl_jw_key(w, benched[c]);
			write_fixed(r, sample_percent(ob, ob ? ob->benched[c] : 0), 4);
		}
		sl_jw_obj_end(w);
		sl_jw_key(w, "geolocation");
		sl_jw_null(w);
	} else if (v->status == ST_COMPLETED) {
		uint32_t count;
		uint64_t delegated, reward, fees;
		sl_err e = completed_facts(vq, v, &count, &delegated, &reward, &fees);
		if (e)
			return api_fail_store(r, e);
		sl_jw_key(w, "delegatorCount");
		sl_jw_u64(w, count);
		sl_jw_key(w, "amountDelegated");
		sl_jw_u64s(w, delegated);
		write_rewards(r, "rewards", v, reward, fees, true);
	} else if (v->status == ST_REMOVED) {
		sl_jw_key(w, "removeTxHash");
		api_write_id(r, v->end_tx);
		sl_jw_key(w, "removeTimestamp");
		sl_jw_i64(w, v->end_ts);
	}
	sl_jw_obj_end(w);
	return 0;
}

/* ---- the request ----------------------------------------------------------------------------------- */

/* min ≤ max for each pair of bounds given; false after api_fail. */
static bool check_bounds(api_req *r, const api_val *const b[2], const char *lo, const char *hi, bool amount)
{
	if (b[0]->set && b[1]->set && (amount ? b[0]->u > b[1]->u : b[0]->i > b[1]->i)) {
		api_fail(r, 400, "%s is above %s: no validator can be in between", lo, hi);
		return false;
	}
	return true;
}

static bool read_cursor(vreq *vq, cursor *c)
{
	uint8_t cur[API_CURSOR_MAX];
	size_t len;
	if (!api_page_cursor(vq->r, cur, &len))
		return false;
	if (!len) {
		c->key = c->seq = vq->desc ? INT64_MAX : INT64_MIN;
		memset(c->tx, vq->desc ? 0xff : 0, 32);
		return true;
	}
	if (len != CURSOR_LEN) {
		api_fail(vq->r, 400, "pageToken is not a token of this list");
		return false;
	}
	c->key = (int64_t)sl_be64(cur);
	c->seq = (int64_t)sl_be64(cur + 8);
	memcpy(c->tx, cur + 16, 32);
	return true;
}

static int page_of(vreq *vq)
{
	api_req *r = vq->r;
	cursor after;
	api_pnow now;
	if (!read_cursor(vq, &after) || api_pchain_now(r, &now))
		return -1;
	vq->now = SL_MAX(now.ts, 0); /* before the first P block: every validator is still to start */
	if (load(vq))
		return -1;
	size_t want = vq->page + 1, n = 0, got = 0;
	vrow *v = sl_arena_array(r->arena, want, sizeof *v);
	if (!v)
		return api_fail(r, 500, "out of memory");
	bool computed_sort = vq->sort == SORT_CAPACITY || vq->sort == SORT_TIME || vq->sort == SORT_UPTIME;
	if (vq->computed) {
		if (set_part(vq, &after, v, want, &n))
			return -1;
	} else if (!computed_sort) {
		if (stream(vq, &after, false, v, want, &n))
			return -1;
	} else if (vq->desc) { /* the values from the largest, then the validators without one */
		if (set_part(vq, &after, v, want, &n) ||
		    (n < want && stream(vq, &after, true, v + n, want - n, &got)))
			return -1;
		n += got;
	} else { /* the validators without a value, then the values from the smallest */
		if (after.key < 0 && stream(vq, &after, true, v, want, &n))
			return -1;
		if (n < want && set_part(vq, &after, v + n, want - n, &got))
			return -1;
		n += got;
	}
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	sl_jw_key(w, "validators");
	sl_jw_arr(w);
	size_t shown = SL_MIN(n, vq->page);
	for (size_t i = 0; i < shown; i++)
		if (write_validator(vq, &v[i]))
			return -1;
	sl_jw_arr_end(w);
	if (n > vq->page) {
		const vrow *last = &v[shown - 1];
		uint8_t cur[CURSOR_LEN];
		sl_put_be64(cur, (uint64_t)last->key);
		sl_put_be64(cur + 8, (uint64_t)last->seq);
		memcpy(cur + 16, last->tx, 32);
		api_page_next(r, cur, sizeof cur);
	}
	sl_jw_obj_end(w);
	return 0;
}

int api_list_validators(api_req *r)
{
	vreq vq = { .r = r,
		    .sort = (int)api_arg(r, "sortBy")->i,
		    .desc = api_arg(r, "sortOrder")->i == 1,
		    .page = (size_t)api_arg(r, "pageSize")->i,
		    .nodes = api_arg(r, "nodeIds"),
		    .status = api_arg(r, "validationStatus"),
		    .subnet = api_arg(r, "subnetId"),
		    .cap = { api_arg(r, "minDelegationCapacity"), api_arg(r, "maxDelegationCapacity") },
		    .time = { api_arg(r, "minTimeRemaining"), api_arg(r, "maxTimeRemaining") },
		    .fee = { api_arg(r, "minFeePercentage"), api_arg(r, "maxFeePercentage") },
		    .up = { api_arg(r, "minUptimePerformance"), api_arg(r, "maxUptimePerformance") } };
	vq.computed = vq.cap[0]->set || vq.cap[1]->set || vq.time[0]->set || vq.time[1]->set ||
		      vq.up[0]->set || vq.up[1]->set;
	if (!check_bounds(r, vq.cap, "minDelegationCapacity", "maxDelegationCapacity", true) ||
	    !check_bounds(r, vq.time, "minTimeRemaining", "maxTimeRemaining", false) ||
	    !check_bounds(r, vq.fee, "minFeePercentage", "maxFeePercentage", false) ||
	    !check_bounds(r, vq.up, "minUptimePerformance", "maxUptimePerformance", false))
		return -1;
	if (vq.sort == SORT_FEE) {
		/* as the hosted API documents it: mainnet validators, with the primary network's subnet id */
		if (r->api->net.id != 1)
			return api_fail(
				r, 400,
				"sortBy delegationFee is only available for mainnet validators, not on %s",
				r->api->net.name);
		if (!vq.subnet->set || memcmp(vq.subnet->id, ZERO, 32))
			return api_fail(
				r, 400,
				"sortBy delegationFee needs subnetId 11111111111111111111111111111111LpoYY "
				"(the primary network)");
	}
	sl_buf_init(&vq.text, 128);
	/* the staking set, the validators and their rewards of one moment: serve's snapshot */
	int rc = page_of(&vq);
	free(vq.open);
	free(vq.vals);
	free(vq.obs);
	sl_buf_release(&vq.text);
	return rc;
}
