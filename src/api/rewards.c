/*
 * rewards.c — the rewards of the primary network's stakers (spec 000 §4.5,
 * §2.5), by address or by node:
 *
 *   GET /v1/networks/{network}/rewards              HistoricalReward: paid
 *   GET /v1/networks/{network}/rewards:listPending  PendingReward: to come
 *
 * Both take `addresses` (rewards owned by them) and `nodeIds` (whole node
 * ids: rewards of stakes on those nodes), at least one; with both, both
 * filters hold. Both are lists of sources merged: a page reads up to
 * pageSize + 1 items of each address or node past the cursor (windows of
 * FILTER_WINDOW rows while a filter drops some), sorts them by the list's key
 * and shows the first pageSize, an item two of the addresses own once: at
 * most API_MAX_ADDRESSES_GET × 101 items in the request's arena. The cursor is
 * the last item's (key, id), 40 bytes.
 *
 * Historical: one item per reward UTXO (a validator's reward, a delegator's,
 * a validator's fee on a delegation) with the stake it paid for: its staking
 * tx, node, period and weight, and the RewardValidatorTx that paid it. An
 * address's are one range of addr_utxos (its reward UTXOs on the P-chain); a
 * node's come from its stakers → rewards → utxos. Key: the time of the
 * RewardValidatorTx (the UTXO's creation), id: the UTXO's; newest first by
 * default (the OpenAPI document says only "sorted by timestamp").
 * reward.historicalPrice: the price table's (store/prices.h) for the UTC day
 * of that time in the requested currency, left out when the table has none;
 * read per page, one range of the table per 64 days the page's rewards span
 * (prepare_prices).
 *
 * Pending: one item per primary-network validator or delegator not ended yet
 * (no RewardValidatorTx): current ones (started at the chain's time, the
 * latest P block's) and pending ones (accepted before Durango with a later
 * start) alike — the reward each earns if its RewardValidatorTx commits. An
 * address's are the stakers whose rewards owner includes it: its staking txs
 * (addr_txs) whose staker has not ended, and the genesis validators (no tx:
 * a cache of them per server, read once). A node's are one range of
 * stakers_node_end (node, not ended). Key: the staking tx's seq (the order
 * the chain accepted them; the genesis validators, seq 0, first), id: its
 * tx; newest first by default. docs/api.md has the definitions of progress
 * and estimatedReward.
 */
#include "api/internal.h"

#include "codec/rewards.h"
#include "store/prices.h"
#include "util/u256.h"

/* ---- the shape both lists share ---------------------------------------------------------- */

/* An item as a page holds it: a reward UTXO with its stake (historical), or a staker (pending). */
typedef struct item {
	int64_t key;	/* the list's order: the reward's time, or the staking tx's seq */
	uint8_t id[32]; /* the cursor's tie-break and the item's identity: the UTXO, or the staking tx */
	uint8_t tx[32], node[20];
	int kind;  /* api_reward_type: 1 VALIDATOR, 2 DELEGATOR, 3 VALIDATOR_FEE */
	bool skip; /* a row that is not an item of the list (read past) */
	uint64_t weight;
	int64_t start, end;
	uint32_t naddrs;
	uint8_t *addrs;	    /* the owners (arena) */
	const uint8_t *raw; /* the owners in the row being read */
	/* historical */
	uint8_t asset[32], end_tx[32];
	uint32_t idx;
	uint64_t amount;
	bool ended;
	const char *price; /* historicalPrice.value (arena), or NULL */
	size_t price_len;
	/* pending */
	uint64_t potential;
	bool has_potential;
	uint64_t estimate; /* estimatedReward.amount (prepare_pending) */
} item;

enum { KIND_VALIDATOR = 1, KIND_DELEGATOR = 2 }; /* item.kind of a pending reward */

/* A position in the list's order: before the first item, or the last item shown. */
typedef struct cursor {
	int64_t key;
	uint8_t id[32];
} cursor;

/* How a list reads its rows: the columns into an item, and what its queries bind. */
typedef struct list_kind {
	void (*read)(sl_stmt *s, item *x);
	bool cursor_id; /* the queries take (key, cursor key, cursor id, limit); else (key, cursor key, limit) */
} list_kind;

/* Rows a filtered source reads at a time (with both addresses and nodeIds, an address's items on
 * other nodes are read past; a pending list's address also reads past stakes it only paid for). */
#define FILTER_WINDOW 64

/* The owners of column col (skip: bytes before the addresses) into x->raw / x->naddrs. */
static void owners_of(sl_stmt *s, int col, size_t skip, item *x)
{
	size_t n = 0;
	const uint8_t *p = sl_col_blob(s, col, &n);
	x->raw = p && n >= skip ? p + skip : NULL;
	x->naddrs = x->raw ? (uint32_t)((n - skip) / 20) : 0;
}

/* Is the item on one of the nodes (all are without a node filter)? */
static bool on_nodes(const item *x, const api_val *nodes)
{
	if (!nodes)
		return true;
	for (size_t i = 0; i < nodes->nstrs; i++)
		if (!memcmp(nodes->nodes[i], x->node, 20))
			return true;
	return false;
}

/* Does addr own the item (any does without one)? */
static bool owned_by(const item *x, const uint8_t *addr)
{
	if (!addr)
		return true;
	for (uint32_t i = 0; i < x->naddrs; i++)
		if (!memcmp(x->raw + 20 * (size_t)i, addr, 20))
			return true;
	return false;
}

/* The item's owners into the arena (only for items kept: a filtered source reads past many). */
static bool keep_owners(item *x, sl_arena *a)
{
	x->addrs = NULL;
	if (x->naddrs && !(x->addrs = sl_arena_alloc(a, 20 * (size_t)x->naddrs)))
		return false;
	if (x->naddrs)
		memcpy(x->addrs, x->raw, 20 * (size_t)x->naddrs);
	x->raw = NULL;
	return true;
}

/*
 * The first `want` items of one source (an address or a node: key) past the cursor, into v (*n of
 * them): those owned by `addr` only when it is not NULL, on `nodes` only when it is not NULL.
 * 0, or -1 after api_fail.
 */
static int read_source(api_req *r, const list_kind *k, const sl_sql *q, const uint8_t key[20],
		       const cursor *after, const uint8_t *addr, const api_val *nodes, size_t want, item *v,
		       size_t *n)
{
	cursor at = *after;
	size_t lim = nodes || addr ? SL_MAX(want, (size_t)FILTER_WINDOW) : want;
	*n = 0;
	for (;;) {
		sl_stmt *s = sl_stmt_get(r->db, q);
		if (!s)
			return api_fail_store(r, SL_ERR_STORE);
		int b = 0;
		sl_bind_blob(s, b++, key, 20);
		sl_bind_i64(s, b++, at.key);
		if (k->cursor_id)
			sl_bind_blob(s, b++, at.id, 32);
		sl_bind_i64(s, b, (int64_t)lim);
		sl_err e = sl_stmt_query(s);
		size_t rows = 0;
		while (!e && *n < want && sl_stmt_next(s, &e)) {
			item *x = &v[*n];
			rows++;
			k->read(s, x);
			at.key = x->key;
			memcpy(at.id, x->id, 32);
			if (x->skip || !on_nodes(x, nodes) || !owned_by(x, addr))
				continue;
			if (!keep_owners(x, r->arena))
				return api_fail(r, 500, "out of memory");
			(*n)++;
		}
		if (e)
			return api_fail_store(r, e);
		if (*n == want || rows < lim)
			return 0;
	}
}

static int cmp_key(const item *a, const item *b)
{
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return memcmp(a->id, b->id, 32);
}
static int cmp_asc(const void *a, const void *b) { return cmp_key(a, b); }
static int cmp_desc(const void *a, const void *b) { return cmp_key(b, a); }

/* Is x past the cursor in the list's order? */
static bool past(const item *x, const cursor *c, bool desc)
{
	item at = { .key = c->key };
	memcpy(at.id, c->id, 32);
	int d = cmp_key(x, &at);
	return desc ? d < 0 : d > 0;
}

/* The page token's cursor: key (8, big-endian) | id (32); before every item without one. */
static bool read_cursor(api_req *r, bool desc, cursor *c)
{
	uint8_t cur[API_CURSOR_MAX];
	size_t len;
	if (!api_page_cursor(r, cur, &len))
		return false;
	if (!len) {
		c->key = desc ? INT64_MAX : INT64_MIN;
		memset(c->id, desc ? 0xff : 0, 32);
		return true;
	}
	if (len != 40) {
		api_fail(r, 400, "pageToken is not a token of this list");
		return false;
	}
	c->key = (int64_t)sl_be64(cur);
	memcpy(c->id, cur + 8, 32);
	return true;
}

/* addresses, nodeIds: at least one (both lists). */
static bool check_sources(api_req *r, const char *what)
{
	if (api_arg(r, "addresses")->set || api_arg(r, "nodeIds")->set)
		return true;
	api_fail(r, 400, "addresses or nodeIds is required: the %s of which addresses or nodes?", what);
	return false;
}

/* The fields HistoricalReward and PendingReward share, into the open object. */
static void write_stake(api_req *r, const item *x)
{
	sl_jw *w = &r->w;
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
}

typedef int (*prepare_fn)(api_req *r, item **shown, size_t n, const void *ctx);
typedef void (*write_fn)(api_req *r, const item *x, const void *ctx);

/*
 * The page of the n items read (sorted here): {"<key>": [the first `page`, each once],
 * "nextPageToken" when more follow}. prepare (may be NULL) runs on the items shown before they are
 * written. 0, or -1 after api_fail.
 */
static int write_page(api_req *r, item *v, size_t n, size_t page, bool desc, const char *key,
		      prepare_fn prepare, write_fn write, const void *ctx)
{
	qsort(v, n, sizeof *v, desc ? cmp_desc : cmp_asc);
	item **shown = sl_arena_array(r->arena, page, sizeof *shown);
	if (!shown)
		return api_fail(r, 500, "out of memory");
	size_t k = 0;
	bool more = false;
	for (size_t i = 0; i < n; i++) {
		if (k && !memcmp(shown[k - 1]->id, v[i].id, 32))
			continue; /* owned by two of the addresses: once */
		if (k == page) {
			more = true;
			break;
		}
		shown[k++] = &v[i];
	}
	if (prepare && prepare(r, shown, k, ctx))
		return -1;
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	sl_jw_key(w, key);
	sl_jw_arr(w);
	for (size_t i = 0; i < k; i++)
		write(r, shown[i], ctx);
	sl_jw_arr_end(w);
	if (more) {
		uint8_t c[40];
		sl_put_be64(c, (uint64_t)shown[k - 1]->key);
		memcpy(c + 8, shown[k - 1]->id, 32);
		api_page_next(r, c, sizeof c);
	}
	sl_jw_obj_end(w);
	return 0;
}

/* ---- historical rewards ---------------------------------------------------------------------- */

/* The columns read_reward reads after the key's time (column 0). */
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
	"JOIN utxos u ON u.chain = 0 AND u.pos = s.seq AND u.id = w.utxo WHERE s.node = ? AND u.reward > 0 AND "
static const sl_sql q_node_asc = { FROM_NODE "(s.end_ts_actual, w.utxo) > (?, ?) "
					     "ORDER BY s.end_ts_actual, w.utxo LIMIT ?" };
static const sl_sql q_node_desc = { FROM_NODE "(s.end_ts_actual, w.utxo) < (?, ?) "
					      "ORDER BY s.end_ts_actual DESC, w.utxo DESC LIMIT ?" };

static void read_reward(sl_stmt *s, item *x)
{
	*x = (item){ .key = sl_col_i64(s, 0),
		     .idx = (uint32_t)sl_col_i64(s, 2),
		     .amount = sl_col_u64be(s, 5),
		     .kind = (int)sl_col_i64(s, 7),
		     .start = sl_col_i64(s, 9),
		     .end = sl_col_i64(s, 10),
		     .weight = (uint64_t)sl_col_i64(s, 11),
		     .ended = !sl_col_null(s, 12) };
	sl_col_copy(s, 1, x->id, 32);
	sl_col_copy(s, 3, x->tx, 32);
	sl_col_copy(s, 4, x->asset, 32);
	sl_col_copy(s, 8, x->node, 20);
	sl_col_copy(s, 12, x->end_tx, 32);
	owners_of(s, 6, 0, x);
	x->skip = !api_reward_type(x->kind);
}

static const list_kind historical = { read_reward, true };

/* The days a price range read spans at most: a page's rewards within that many days of each other
 * are one read of at most that many rows. */
#define PRICE_WINDOW_DAYS 64

static const sl_sql q_prices = { "SELECT day, price FROM prices WHERE currency = ? AND day >= ? AND day <= ? "
				 "ORDER BY day" };

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * historicalPrice of the items shown: the price on the UTC day of each one's time (its key) in the
 * currency asked for. The days of the page, sorted, are read in ranges of up to PRICE_WINDOW_DAYS
 * days: one read for a page whose rewards are that close in time, at most one per item.
 */
static int prepare_prices(api_req *r, item **shown, size_t n, const void *ctx)
{
	const char *cur = ctx;
	if (!n)
		return 0;
	int64_t *days = sl_arena_array(r->arena, n, sizeof *days);
	if (!days)
		return api_fail(r, 500, "out of memory");
	for (size_t i = 0; i < n; i++) {
		days[i] = sl_price_day(shown[i]->key);
		shown[i]->price = NULL;
	}
	qsort(days, n, sizeof *days, cmp_i64);
	for (size_t i = 0; i < n;) {
		int64_t lo = days[i], hi = lo + (PRICE_WINDOW_DAYS - 1) * (int64_t)86400;
		while (i < n && days[i] <= hi)
			i++;
		hi = days[i - 1];
		sl_stmt *s = sl_stmt_get(r->db, &q_prices);
		if (!s)
			return api_fail_store(r, SL_ERR_STORE);
		sl_bind_text(s, 0, cur, strlen(cur));
		sl_bind_i64(s, 1, lo);
		sl_bind_i64(s, 2, hi);
		sl_err e = sl_stmt_query(s);
		while (!e && sl_stmt_next(s, &e)) {
			int64_t day = sl_col_i64(s, 0);
			size_t len = 0;
			const char *p = sl_col_text(s, 1, &len);
			if (!p || !sl_price_canonical(p, len))
				continue; /* not a price the loader writes (a row written by hand) */
			char *v = NULL;
			for (size_t k = 0; k < n; k++) {
				if (sl_price_day(shown[k]->key) != day)
					continue;
				if (!v && !(v = sl_arena_alloc(r->arena, len)))
					return api_fail(r, 500, "out of memory");
				memcpy(v, p, len);
				shown[k]->price = v;
				shown[k]->price_len = len;
			}
		}
		if (e)
			return api_fail_store(r, e);
	}
	return 0;
}

static void write_reward(api_req *r, const item *x, const void *ctx)
{
	const char *cur = ctx;
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	write_stake(r, x);
	sl_jw_key(w, "utxoId");
	api_write_id(r, x->id);
	sl_jw_key(w, "outputIndex");
	sl_jw_u64(w, x->idx);
	sl_jw_key(w, "reward");
	sl_jw_obj(w);
	api_asset_amount_fields(r, x->asset, x->amount);
	if (x->price) {
		/* Price (spec 000): value a string; the hosted API's Money: a number, the same digits */
		sl_jw_key(w, "historicalPrice");
		sl_jw_obj(w);
		sl_jw_key(w, "currencyCode");
		sl_jw_str(w, cur);
		sl_jw_key(w, "value");
		if (r->api->cfg.compat == SL_COMPAT_UPSTREAM)
			sl_jw_raw(w, x->price, x->price_len);
		else
			sl_jw_strn(w, x->price, x->price_len);
		sl_jw_obj_end(w);
	}
	sl_jw_obj_end(w);
	sl_jw_key(w, "rewardTxHash");
	if (x->ended)
		api_write_id(r, x->end_tx);
	else
		sl_jw_str(w, "");
	sl_jw_obj_end(w);
}

int api_list_rewards(api_req *r)
{
	const api_val *addrs = api_arg(r, "addresses"), *nodes = api_arg(r, "nodeIds");
	bool desc = api_arg(r, "sortOrder")->i == 1;
	size_t page = (size_t)api_arg(r, "pageSize")->i;
	cursor after;
	if (!check_sources(r, "rewards") || !read_cursor(r, desc, &after))
		return -1;
	/* the sources: each address (on the nodes, if given), else each node */
	size_t nsrc = addrs->set ? addrs->naddrs : nodes->nstrs;
	item *v = sl_arena_array(r->arena, nsrc * (page + 1), sizeof *v);
	if (!v)
		return api_fail(r, 500, "out of memory");
	size_t n = 0;
	for (size_t i = 0; i < nsrc; i++) {
		size_t got;
		int rc = addrs->set ? read_source(r, &historical, desc ? &q_addr_desc : &q_addr_asc,
						  addrs->addrs[i].bytes, &after, NULL,
						  nodes->set ? nodes : NULL, page + 1, v + n, &got)
				    : read_source(r, &historical, desc ? &q_node_desc : &q_node_asc,
						  nodes->nodes[i], &after, NULL, NULL, page + 1, v + n, &got);
		if (rc)
			return rc;
		n += got;
	}
	const char *cur = sl_price_currencies[api_arg(r, "currency")->i];
	return write_page(r, v, n, page, desc, "historicalRewards", prepare_prices, write_reward, cur);
}

/* ---- the P-chain's now ----------------------------------------------------------------------- */

static const sl_sql q_p_now = { "SELECT ts, supply FROM blocks WHERE chain = 0 ORDER BY height DESC LIMIT 1" };
static const sl_sql q_genesis_supply = { "SELECT value FROM meta WHERE key = 'genesis_supply'" };

int api_pchain_now(api_req *r, api_pnow *p)
{
	*p = (api_pnow){ .ts = INT64_MIN };
	sl_stmt *s = sl_stmt_get(r->db, &q_p_now);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	sl_err e = sl_stmt_query(s);
	if (!e && sl_stmt_next(s, &e)) {
		p->ts = sl_col_i64(s, 0);
		p->has_supply = !sl_col_null(s, 1);
		p->supply = sl_col_u64be(s, 1);
	}
	if (e)
		return api_fail_store(r, e);
	if (p->has_supply)
		return 0;
	/* before the first P block (or a store without the supply): the genesis's, if known */
	if (!(s = sl_stmt_get(r->db, &q_genesis_supply)))
		return api_fail_store(r, SL_ERR_STORE);
	if (!(e = sl_stmt_query(s)) && sl_stmt_next(s, &e)) {
		p->has_supply = true;
		p->supply = sl_col_u64be(s, 0);
	}
	return e ? api_fail_store(r, e) : 0;
}

/* ---- the genesis validators (a cache per server) ---------------------------------------------------- */

/* A genesis validator: no tx, so no addr_txs row names its rewards owner; the store has no index
 * that finds them (seq 0) but a scan of the stakers, made once per server after the genesis is in
 * the store (it is written before anything else, in one transaction, and never changes). */
typedef struct gstaker {
	uint8_t tx[32], node[20];
	uint32_t naddrs;
	uint8_t *addrs;
} gstaker;

struct api_genesis_stakers {
	pthread_mutex_t lock;
	bool loaded;
	size_t n;
	gstaker *v;
};

struct api_genesis_stakers *api_genesis_stakers_new(void)
{
	struct api_genesis_stakers *g = calloc(1, sizeof *g);
	if (g)
		pthread_mutex_init(&g->lock, NULL);
	return g;
}

void api_genesis_stakers_free(struct api_genesis_stakers *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++)
		free(g->v[i].addrs);
	free(g->v);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

static const sl_sql q_has_genesis = { "SELECT 1 FROM meta WHERE key = 'genesis'" };
static const sl_sql q_genesis_stakers = { "SELECT tx, node, rewards_owner FROM stakers WHERE seq = 0" };

/* Read the genesis validators into g (its lock held). */
static sl_err genesis_load(sl_conn *c, struct api_genesis_stakers *g)
{
	sl_stmt *s = sl_stmt_get(c, &q_has_genesis);
	if (!s)
		return SL_ERR_STORE;
	sl_err e = sl_stmt_query(s);
	if (e || !sl_stmt_next(s, &e))
		return e; /* no genesis yet: none, and ask again next time */
	if (!(s = sl_stmt_get(c, &q_genesis_stakers)))
		return SL_ERR_STORE;
	if ((e = sl_stmt_query(s)))
		return e;
	size_t cap = 0;
	while (sl_stmt_next(s, &e)) {
		if (g->n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			gstaker *nv = realloc(g->v, ncap * sizeof *nv);
			if (!nv)
				return SL_ERR_NOMEM; /* read on: the statement is reset when the connection goes back */
			g->v = nv;
			cap = ncap;
		}
		gstaker *x = &g->v[g->n];
		*x = (gstaker){ 0 };
		sl_col_copy(s, 0, x->tx, 32);
		sl_col_copy(s, 1, x->node, 20);
		size_t len = 0;
		const uint8_t *p = sl_col_blob(s, 2, &len);
		x->naddrs = p && len >= 12 ? (uint32_t)((len - 12) / 20) : 0;
		if (x->naddrs && !(x->addrs = malloc(20 * (size_t)x->naddrs)))
			return SL_ERR_NOMEM;
		if (x->naddrs)
			memcpy(x->addrs, p + 12, 20 * (size_t)x->naddrs);
		g->n++;
	}
	if (!e)
		g->loaded = true;
	return e;
}

/* The genesis validators: *v, *n (immutable once loaded). 0, or -1 after api_fail. */
static int genesis_stakers(api_req *r, const gstaker **v, size_t *n)
{
	struct api_genesis_stakers *g = r->api->genesis_stakers;
	*v = NULL;
	*n = 0;
	if (!g)
		return 0; /* a request without a server (tests of the parsers) */
	pthread_mutex_lock(&g->lock);
	sl_err e = SL_OK;
	if (!g->loaded) {
		for (size_t i = 0; i < g->n; i++)
			free(g->v[i].addrs);
		g->n = 0;
		e = genesis_load(r->db, g);
	}
	if (g->loaded) {
		*v = g->v;
		*n = g->n;
	}
	pthread_mutex_unlock(&g->lock);
	return e ? api_fail_store(r, e) : 0;
}

/* ---- pending rewards -------------------------------------------------------------------------------- */

#define PEND_COLS \
	"s.seq, s.tx, s.type, s.node, s.subnet, s.start_ts, s.end_ts, s.weight, s.rewards_owner, s.potential"
#define STAKE_TYPES "(12, 14, 25, 26)" /* AddValidatorTx, AddDelegatorTx and their permissionless forms */

/* An address's: its staking txs (addr_txs also names a staker's rewards owner; the partial index
 * addr_txs_staking holds those rows alone) whose staker has not ended; read_pending drops the stakes it only paid for or staked in. A seq names one tx (but the
 * genesis's, seq 0, which no addr_txs row of this type has), so the seq alone is the cursor here. */
#define FROM_PADDR                                                                                  \
	"SELECT " PEND_COLS " FROM addr_txs a {sqlite:INDEXED BY addr_txs_staking} "                \
	"JOIN txs t ON t.chain = a.chain AND t.seq = a.seq "                                        \
	"JOIN stakers s ON s.tx = t.id WHERE a.chain = 0 AND a.addr = ? AND a.type IN " STAKE_TYPES \
	" AND s.end_tx IS NULL AND "
static const sl_sql q_paddr_asc = { FROM_PADDR "a.seq > ? ORDER BY a.seq LIMIT ?" };
static const sl_sql q_paddr_desc = { FROM_PADDR "a.seq < ? ORDER BY a.seq DESC LIMIT ?" };

/* A node's: its stakers not ended (end_ts_actual is NULL until the RewardValidatorTx), one range of
 * stakers_node_end, sorted here by the staking tx. */
#define FROM_PNODE                                                                                   \
	"SELECT " PEND_COLS " FROM stakers s {sqlite:INDEXED BY stakers_node_end} WHERE s.node = ? " \
	"AND s.end_ts_actual IS NULL AND s.type IN " STAKE_TYPES " AND "
static const sl_sql q_pnode_asc = { FROM_PNODE "(s.seq, s.tx) > (?, ?) ORDER BY s.seq, s.tx LIMIT ?" };
static const sl_sql q_pnode_desc = { FROM_PNODE
				     "(s.seq, s.tx) < (?, ?) ORDER BY s.seq DESC, s.tx DESC LIMIT ?" };

/* A genesis validator, when it has not ended. */
static const sl_sql q_pone = { "SELECT " PEND_COLS " FROM stakers s WHERE s.tx = ? AND s.end_tx IS NULL" };

/* A delegator's validator: the node's primary-network validation whose period holds the delegation. */
static const sl_sql q_validator_fee = { "SELECT fee, subnet FROM stakers WHERE node = ? AND type IN (12, 25) "
					"AND start_ts <= ? AND end_ts >= ? ORDER BY seq DESC LIMIT 8" };

static bool is_primary(sl_stmt *s, int col)
{
	static const uint8_t primary[32];
	size_t n = 0;
	const uint8_t *p = sl_col_blob(s, col, &n);
	return p && n == 32 && !memcmp(p, primary, 32);
}

static void read_pending(sl_stmt *s, item *x)
{
	int type = (int)sl_col_i64(s, 2);
	*x = (item){ .key = sl_col_i64(s, 0),
		     .kind = type == 14 || type == 26 ? KIND_DELEGATOR : KIND_VALIDATOR,
		     .start = sl_col_i64(s, 5),
		     .end = sl_col_i64(s, 6),
		     .weight = (uint64_t)sl_col_i64(s, 7),
		     .has_potential = !sl_col_null(s, 9),
		     .potential = sl_col_u64be(s, 9) };
	sl_col_copy(s, 1, x->id, 32);
	memcpy(x->tx, x->id, 32);
	sl_col_copy(s, 3, x->node, 20);
	owners_of(s, 8, 12, x); /* threshold u32 | locktime u64 | addresses */
	x->skip = !is_primary(s, 4);
}

static const list_kind pending_addr = { read_pending, false }, pending_node = { read_pending, true };

/* The genesis validators owned by one of the addresses (and on the nodes, if given), past the cursor
 * and not ended, into v (*n of them, at most `most`). 0, or -1 after api_fail. */
static int read_genesis(api_req *r, const api_val *addrs, const api_val *nodes, const cursor *after,
			bool desc, item *v, size_t most, size_t *n)
{
	const gstaker *g;
	size_t ng;
	*n = 0;
	if (genesis_stakers(r, &g, &ng))
		return -1;
	for (size_t i = 0; i < ng && *n < most; i++) {
		bool mine = false;
		for (size_t a = 0; a < addrs->naddrs && !mine; a++)
			for (uint32_t k = 0; k < g[i].naddrs && !mine; k++)
				mine = !memcmp(g[i].addrs + 20 * (size_t)k, addrs->addrs[a].bytes, 20);
		item probe = { .key = 0 };
		memcpy(probe.id, g[i].tx, 32);
		memcpy(probe.node, g[i].node, 20);
		if (!mine || !on_nodes(&probe, nodes) || !past(&probe, after, desc))
			continue;
		sl_stmt *s = sl_stmt_get(r->db, &q_pone);
		if (!s)
			return api_fail_store(r, SL_ERR_STORE);
		sl_bind_blob(s, 0, g[i].tx, 32);
		sl_err e = sl_stmt_query(s);
		if (!e && sl_stmt_next(s, &e)) {
			item *x = &v[*n];
			read_pending(s, x);
			if (!x->skip) {
				if (!keep_owners(x, r->arena))
					return api_fail(r, 500, "out of memory");
				(*n)++;
			}
		}
		if (e)
			return api_fail_store(r, e);
	}
	return 0;
}

/* The fee (ppm) of a delegator's validator; 0 when the store knows none (it cannot: a delegation
 * needs one). 0, or -1 after api_fail. */
static int validator_fee(api_req *r, const item *x, uint32_t *fee)
{
	*fee = 0;
	sl_stmt *s = sl_stmt_get(r->db, &q_validator_fee);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	sl_bind_blob(s, 0, x->node, 20);
	sl_bind_i64(s, 1, x->start);
	sl_bind_i64(s, 2, x->end);
	sl_err e = sl_stmt_query(s);
	bool found = false;
	while (!e && !found && sl_stmt_next(s, &e))
		if (is_primary(s, 1)) {
			int64_t f = sl_col_i64(s, 0);
			*fee = f > 0 && f <= (int64_t)SL_REWARD_PERCENT_DENOMINATOR ? (uint32_t)f : 0;
			found = true;
		}
	return e ? api_fail_store(r, e) : 0;
}

/*
 * estimatedReward of the items shown: the reward the staker earns if its RewardValidatorTx commits
 * — its potential reward, fixed when it started (index.md), or for one not started yet the formula
 * on the supply of now; a delegator's is its part after its validator's fee (reward.Split), what
 * its rewards owner is paid.
 */
static int prepare_pending(api_req *r, item **shown, size_t n, const void *ctx)
{
	const api_pnow *now = ctx;
	for (size_t i = 0; i < n; i++) {
		item *x = shown[i];
		uint64_t total = x->potential;
		if (!x->has_potential) {
			uint64_t seconds = x->end > x->start ? (uint64_t)(x->end - x->start) : 0;
			total = now->has_supply ? sl_reward_calculate(&sl_reward_primary, seconds, x->weight,
								      now->supply)
						: 0;
		}
		x->estimate = total;
		if (x->kind == KIND_DELEGATOR) {
			uint32_t fee;
			uint64_t theirs;
			if (validator_fee(r, x, &fee))
				return -1;
			sl_reward_split(total, fee, &theirs, &x->estimate);
		}
	}
	return 0;
}

/* progress: the part of the staking period elapsed at the chain's time, in percent, floored to
 * hundredths (0 before the start, 100 from the end on). */
static void write_progress(api_req *r, const item *x, int64_t now)
{
	uint64_t hund = 0;
	if (now >= x->end)
		hund = 10000;
	else if (now > x->start) {
		sl_u256 v = sl_u256_of((uint64_t)(now - x->start));
		sl_u256_mul64(&v, 10000);
		sl_u256_div64(&v, (uint64_t)(x->end - x->start));
		hund = v.w[0];
	}
	char t[32];
	int len = hund % 100 ? snprintf(t, sizeof t, "%llu.%02llu", (unsigned long long)(hund / 100),
					(unsigned long long)(hund % 100))
			     : snprintf(t, sizeof t, "%llu", (unsigned long long)(hund / 100));
	if (len > 0 && t[len - 1] == '0' && hund % 100)
		len--; /* 12.5, not 12.50 */
	sl_jw_raw(&r->w, t, (size_t)len);
}

static void write_pending(api_req *r, const item *x, const void *ctx)
{
	const api_pnow *now = ctx;
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	write_stake(r, x);
	sl_jw_key(w, "progress");
	write_progress(r, x, now->ts);
	sl_jw_key(w, "estimatedReward");
	api_asset_amount(r, r->api->net.avax, x->estimate, NULL, 0);
	sl_jw_obj_end(w);
}

int api_list_pending_rewards(api_req *r)
{
	const api_val *addrs = api_arg(r, "addresses"), *nodes = api_arg(r, "nodeIds");
	bool desc = api_arg(r, "sortOrder")->i == 1;
	size_t page = (size_t)api_arg(r, "pageSize")->i;
	cursor after;
	api_pnow now;
	if (!check_sources(r, "pending rewards") || !read_cursor(r, desc, &after) || api_pchain_now(r, &now))
		return -1;
	const gstaker *g;
	size_t ng = 0;
	if (addrs->set && genesis_stakers(r, &g, &ng))
		return -1;
	size_t nsrc = addrs->set ? addrs->naddrs : nodes->nstrs;
	item *v = sl_arena_array(r->arena, nsrc * (page + 1) + ng, sizeof *v);
	if (!v)
		return api_fail(r, 500, "out of memory");
	size_t n = 0;
	for (size_t i = 0; i < nsrc; i++) {
		size_t got;
		int rc = addrs->set ? read_source(r, &pending_addr, desc ? &q_paddr_desc : &q_paddr_asc,
						  addrs->addrs[i].bytes, &after, addrs->addrs[i].bytes,
						  nodes->set ? nodes : NULL, page + 1, v + n, &got)
				    : read_source(r, &pending_node, desc ? &q_pnode_desc : &q_pnode_asc,
						  nodes->nodes[i], &after, NULL, NULL, page + 1, v + n, &got);
		if (rc)
			return rc;
		n += got;
	}
	if (addrs->set) {
		size_t got;
		if (read_genesis(r, addrs, nodes->set ? nodes : NULL, &after, desc, v + n, ng, &got))
			return -1;
		n += got;
	}
	return write_page(r, v, n, page, desc, "pendingRewards", prepare_pending, write_pending, &now);
}
