/*
 * rewards.c — GET /v1/networks/{network}/rewards (spec 000 §4.5, §2.5
 * HistoricalReward): the rewards paid, one item per reward UTXO (a
 * validator's reward, a delegator's, a validator's fee on a delegation) with
 * the stake it paid for: its staking tx, node, period and weight, and the
 * RewardValidatorTx that paid it.
 *
 * Which rewards: those owned by `addresses` (their reward UTXOs on the
 * P-chain: a range of addr_utxos each), or those of stakes on `nodeIds`
 * (stakers by node → rewards → utxos); with both, the rewards of those
 * addresses for stakes on those nodes. nodeIds are whole node ids: the
 * hosted API's document calls them node ids to filter by, and a node's
 * stakers are found by its id's bytes.
 *
 * Order: the time of the RewardValidatorTx (the reward UTXO's creation),
 * then the UTXO's id; newest first by default (the OpenAPI document says
 * only "sorted by timestamp"). The page cursor is the last item's (time,
 * id). A page reads up to pageSize + 1 rewards of each source (address or
 * node) past the cursor, sorts them and shows the first pageSize, a reward
 * owned by two of the addresses once: at most API_MAX_ADDRESSES_GET × 101
 * rewards (~1.5 MB) in the request's arena.
 *
 * reward.historicalPrice is left out: snowline keeps no prices yet.
 */
#include "api/internal.h"

/* A reward as a page holds it: the row of its UTXO and its staker. */
typedef struct reward {
	int64_t ts; /* the RewardValidatorTx's time */
	uint8_t id[32], tx[32], asset[32], end_tx[32], node[20];
	uint32_t idx, naddrs;
	int kind;
	bool ended;
	uint64_t amount, weight;
	int64_t start, end;
	uint8_t *addrs; /* arena */
} reward;

/* A position in the list's order: before the first item, or the last item shown. */
typedef struct cursor {
	int64_t ts;
	uint8_t id[32];
} cursor;

/* The columns read_row reads after the key's time (column 0). */
#define REWARD_COLS \
	"u.id, u.idx, u.tx, u.asset, u.amount, u.addrs, u.reward, s.node, s.start_ts, s.end_ts, s.weight, s.end_tx"

/* An address's reward UTXOs: one range of its P-chain UTXOs (addr_utxos' key), and their stakers. */
#define FROM_ADDR                                                                               \
	"SELECT u.ts, " REWARD_COLS " FROM addr_utxos u {sqlite:INDEXED BY addr_utxos_reward} " \
	"JOIN stakers s ON s.tx = u.tx "                                                        \
	"WHERE u.chain = 0 AND u.addr = ? AND u.reward > 0 AND "
static const sl_sql q_addr_asc = { FROM_ADDR "(u.ts, u.id) > (?, ?) ORDER BY u.ts, u.id LIMIT ?" };
static const sl_sql q_addr_desc = { FROM_ADDR "(u.ts, u.id) < (?, ?) ORDER BY u.ts DESC, u.id DESC LIMIT ?" };

/* A node's: its stakers (stakers_node), the rewards each was paid. A staker's end_ts_actual is the time
 * of the RewardValidatorTx that ended it, which is when its reward UTXOs were made (index/write.c
 * writes both from that tx): the list's order, on a column of the stakers an index can hold. */
#define FROM_NODE                                                                                       \
	"SELECT s.end_ts_actual, " REWARD_COLS " FROM stakers s JOIN rewards w ON w.staking_tx = s.tx " \
	"JOIN utxos u ON u.id = w.utxo WHERE s.node = ? AND u.reward > 0 AND "
static const sl_sql q_node_asc = { FROM_NODE "(s.end_ts_actual, w.utxo) > (?, ?) "
					     "ORDER BY s.end_ts_actual, w.utxo LIMIT ?" };
static const sl_sql q_node_desc = { FROM_NODE "(s.end_ts_actual, w.utxo) < (?, ?) "
					      "ORDER BY s.end_ts_actual DESC, w.utxo DESC LIMIT ?" };

/* Rows a filtered source reads at a time (with both addresses and nodeIds: an address's rewards on
 * other nodes are read past). */
#define FILTER_WINDOW 64

static void copy_id(sl_stmt *s, int col, uint8_t *out, size_t len)
{
	size_t n = 0;
	const uint8_t *p = sl_col_blob(s, col, &n);
	if (p && n == len)
		memcpy(out, p, len);
	else
		memset(out, 0, len);
}

/* A row (the key's time, REWARD_COLS) into x, but its owners (copy_addrs). */
static void read_row(sl_stmt *s, reward *x)
{
	*x = (reward){ .ts = sl_col_i64(s, 0),
		       .idx = (uint32_t)sl_col_i64(s, 2),
		       .amount = sl_col_u64be(s, 5),
		       .kind = (int)sl_col_i64(s, 7),
		       .start = sl_col_i64(s, 9),
		       .end = sl_col_i64(s, 10),
		       .weight = (uint64_t)sl_col_i64(s, 11),
		       .ended = !sl_col_null(s, 12) };
	copy_id(s, 1, x->id, 32);
	copy_id(s, 3, x->tx, 32);
	copy_id(s, 4, x->asset, 32);
	copy_id(s, 8, x->node, 20);
	copy_id(s, 12, x->end_tx, 32);
}

/* The row's owners into the arena (only for rewards kept: a filtered source reads past many);
 * false when it is out of memory. */
static bool copy_addrs(sl_stmt *s, reward *x, sl_arena *a)
{
	size_t n = 0;
	const uint8_t *p = sl_col_blob(s, 6, &n);
	x->naddrs = (uint32_t)(n / 20);
	if (!x->naddrs)
		return true;
	if (!(x->addrs = sl_arena_alloc(a, 20 * (size_t)x->naddrs)))
		return false;
	memcpy(x->addrs, p, 20 * (size_t)x->naddrs);
	return true;
}

/* Is the reward's stake on one of the nodes (all pass without a node filter)? */
static bool on_nodes(const reward *x, const api_val *nodes)
{
	if (!nodes)
		return true;
	for (size_t i = 0; i < nodes->nstrs; i++)
		if (!memcmp(nodes->nodes[i], x->node, 20))
			return true;
	return false;
}

/*
 * The first `want` rewards of one source (an address or a node: key) past the cursor, into v (*n of
 * them), those on `nodes` only when it is not NULL. 0, or -1 after api_fail.
 */
static int read_source(api_req *r, const sl_sql *q, const uint8_t key[20], const cursor *after,
		       const api_val *nodes, size_t want, reward *v, size_t *n)
{
	cursor at = *after;
	size_t lim = nodes ? SL_MAX(want, (size_t)FILTER_WINDOW) : want;
	*n = 0;
	for (;;) {
		sl_stmt *s = sl_stmt_get(r->db, q);
		if (!s)
			return api_fail_store(r, SL_ERR_STORE);
		sl_bind_blob(s, 0, key, 20);
		sl_bind_i64(s, 1, at.ts);
		sl_bind_blob(s, 2, at.id, 32);
		sl_bind_i64(s, 3, (int64_t)lim);
		sl_err e = sl_stmt_query(s);
		size_t rows = 0;
		while (!e && *n < want && sl_stmt_next(s, &e)) {
			reward *x = &v[*n];
			rows++;
			read_row(s, x);
			at.ts = x->ts;
			memcpy(at.id, x->id, 32);
			if (!api_reward_type(x->kind) || !on_nodes(x, nodes))
				continue;
			if (!copy_addrs(s, x, r->arena))
				return api_fail(r, 500, "out of memory");
			(*n)++;
		}
		if (e)
			return api_fail_store(r, e);
		if (*n == want || rows < lim)
			return 0;
	}
}

static int cmp_key(const reward *a, const reward *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return memcmp(a->id, b->id, 32);
}
static int cmp_asc(const void *a, const void *b) { return cmp_key(a, b); }
static int cmp_desc(const void *a, const void *b) { return cmp_key(b, a); }

static void write_reward(api_req *r, const reward *x)
{
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	sl_jw_key(w, "addresses");
	sl_jw_arr(w);
	for (uint32_t i = 0; i < x->naddrs; i++)
		api_write_address(r, x->addrs + 20 * (size_t)i);
	sl_jw_arr_end(w);
	sl_jw_key(w, "txHash");
	api_write_id(r, x->tx);
	sl_jw_key(w, "amountStaked");
	sl_jw_u64s(w, x->weight);
	sl_jw_key(w, "nodeId");
	api_write_node_id(r, x->node);
	sl_jw_key(w, "startTimestamp");
	sl_jw_i64(w, x->start);
	sl_jw_key(w, "endTimestamp");
	sl_jw_i64(w, x->end);
	sl_jw_key(w, "rewardType");
	sl_jw_str(w, api_reward_type(x->kind));
	sl_jw_key(w, "utxoId");
	api_write_id(r, x->id);
	sl_jw_key(w, "outputIndex");
	sl_jw_u64(w, x->idx);
	sl_jw_key(w, "reward");
	api_asset_amount(r, x->asset, x->amount, NULL, 0);
	sl_jw_key(w, "rewardTxHash");
	if (x->ended)
		api_write_id(r, x->end_tx);
	else
		sl_jw_str(w, "");
	sl_jw_obj_end(w);
}

/* The page token's cursor: time (8, big-endian) | UTXO id (32); before every item without one. */
static bool read_cursor(api_req *r, bool desc, cursor *c)
{
	uint8_t cur[API_CURSOR_MAX];
	size_t len;
	if (!api_page_cursor(r, cur, &len))
		return false;
	if (!len) {
		c->ts = desc ? INT64_MAX : INT64_MIN;
		memset(c->id, desc ? 0xff : 0, 32);
		return true;
	}
	if (len != 40) {
		api_fail(r, 400, "pageToken is not a token of this list");
		return false;
	}
	c->ts = (int64_t)sl_be64(cur);
	memcpy(c->id, cur + 8, 32);
	return true;
}

int api_list_rewards(api_req *r)
{
	const api_val *addrs = api_arg(r, "addresses"), *nodes = api_arg(r, "nodeIds");
	bool desc = api_arg(r, "sortOrder")->i == 1;
	size_t page = (size_t)api_arg(r, "pageSize")->i;
	if (!addrs->set && !nodes->set)
		return api_fail(r, 400,
				"addresses or nodeIds is required: the rewards of which addresses or nodes?");
	cursor after;
	if (!read_cursor(r, desc, &after))
		return -1;
	/* the sources: each address (on the nodes, if given), else each node */
	size_t nsrc = addrs->set ? addrs->naddrs : nodes->nstrs;
	reward *v = sl_arena_array(r->arena, nsrc * (page + 1), sizeof *v);
	if (!v)
		return api_fail(r, 500, "out of memory");
	size_t n = 0;
	for (size_t i = 0; i < nsrc; i++) {
		size_t got;
		int rc = addrs->set ? read_source(r, desc ? &q_addr_desc : &q_addr_asc, addrs->addrs[i].bytes,
						  &after, nodes->set ? nodes : NULL, page + 1, v + n, &got)
				    : read_source(r, desc ? &q_node_desc : &q_node_asc, nodes->nodes[i],
						  &after, NULL, page + 1, v + n, &got);
		if (rc)
			return rc;
		n += got;
	}
	qsort(v, n, sizeof *v, desc ? cmp_desc : cmp_asc);
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	sl_jw_key(w, "historicalRewards");
	sl_jw_arr(w);
	const reward *last = NULL;
	size_t shown = 0;
	bool more = false;
	for (size_t i = 0; i < n; i++) {
		if (last && !memcmp(last->id, v[i].id, 32))
			continue; /* owned by two of the addresses: once */
		if (shown == page) {
			more = true;
			break;
		}
		write_reward(r, &v[i]);
		last = &v[i];
		shown++;
	}
	sl_jw_arr_end(w);
	if (more) {
		uint8_t c[40];
		sl_put_be64(c, (uint64_t)last->ts);
		memcpy(c + 8, last->id, 32);
		api_page_next(r, c, sizeof c);
	}
	sl_jw_obj_end(w);
	return 0;
}
