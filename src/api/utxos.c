/*
 * utxos.c — GET and POST /v1/networks/{network}/blockchains/{blockchainId}/utxos
 * (spec 000 §4.2), and the UTXO objects every endpoint renders.
 *
 * The UTXOs of a chain are those spent on it: its own, and the atomic ones
 * exported to it and not yet imported (a wallet on the chain can import
 * them). Per address they are one range of addr_utxos, clustered on (chain,
 * address, time); a page of several addresses is a merge of each address's
 * next rows in the list's order (time or amount, then id), a UTXO owned by
 * two of them counted once. The page cursor is the last item's (sort key,
 * id); the next page starts after it, so UTXOs the indexer adds meanwhile
 * take their place in the order and nothing is seen twice.
 *
 * Defaults (spec 000 leaves them open): sortBy timestamp, sortOrder asc,
 * unspent only.
 */
#include "api/internal.h"

#include "codec/avax.h"
#include "crypto/addr.h"
#include "crypto/cb58.h"
#include "crypto/hash.h"

/* ---- one UTXO: read from a row, written as the API shows it ---- */

void api_utxo_read(sl_stmt *s, int c0, api_utxo *u, sl_arena *a)
{
	size_t n;
	const uint8_t *p;
	*u = (api_utxo){ 0 };
	if ((p = sl_col_blob(s, c0 + 0, &n)) && n == 32)
		memcpy(u->id, p, 32);
	if ((p = sl_col_blob(s, c0 + 1, &n)) && n == 32)
		memcpy(u->tx, p, 32);
	u->idx = (uint32_t)sl_col_i64(s, c0 + 2);
	u->created = (int)sl_col_i64(s, c0 + 3);
	u->dest = (int)sl_col_i64(s, c0 + 4);
	if ((p = sl_col_blob(s, c0 + 5, &n)) && n == 32)
		memcpy(u->asset, p, 32);
	u->amount = sl_col_u64be(s, c0 + 6);
	u->otype = (uint32_t)sl_col_i64(s, c0 + 7);
	u->locktime = (uint64_t)sl_col_i64(s, c0 + 8);
	u->stake_lock = (uint64_t)sl_col_i64(s, c0 + 9);
	u->threshold = (uint32_t)sl_col_i64(s, c0 + 10);
	p = sl_col_blob(s, c0 + 11, &n);
	u->naddrs = (uint32_t)(n / 20);
	u->addrs = u->naddrs ? sl_arena_alloc(a, n) : NULL;
	if (u->addrs)
		memcpy(u->addrs, p, 20 * (size_t)u->naddrs);
	else
		u->naddrs = 0;
	u->group_id = (uint32_t)sl_col_i64(s, c0 + 12);
	p = sl_col_blob(s, c0 + 13, &n);
	u->payload = n && p ? sl_arena_alloc(a, n) : NULL;
	if (u->payload) {
		memcpy(u->payload, p, n);
		u->payload_len = n;
	}
	u->staked = sl_col_i64(s, c0 + 14) != 0;
	u->stake_start = sl_col_i64(s, c0 + 15);
	u->stake_end = sl_col_i64(s, c0 + 16);
	u->reward = (int)sl_col_i64(s, c0 + 17);
	u->in_block = !sl_col_null(s, c0 + 18);
	u->height = (uint64_t)sl_col_i64(s, c0 + 18);
	u->ts = sl_col_i64(s, c0 + 19);
	u->consumed = !sl_col_null(s, c0 + 20);
	if (u->consumed && (p = sl_col_blob(s, c0 + 20, &n)) && n == 32)
		memcpy(u->ctx, p, 32);
	u->c_in_block = !sl_col_null(s, c0 + 21);
	u->cheight = (uint64_t)sl_col_i64(s, c0 + 21);
	u->cts = sl_col_i64(s, c0 + 22);
	u->cchain = (int)sl_col_i64(s, c0 + 23);
	u->unstaked = sl_col_null(s, c0 + 24) ? -1 : sl_col_i64(s, c0 + 24);
}

/* utxoBytes: the UTXO as avalanchego encodes it (00 00 | txID | index | assetID | output), hex with checksum. */
static void utxo_bytes(api_req *r, const api_utxo *u)
{
	sl_output o = { .type_id = u->otype,
			.fx_type_id = u->otype == SL_T_STAKEABLE_LOCK_OUT ? SL_T_SECP_TRANSFER_OUTPUT
									  : u->otype,
			.lock_locktime = u->stake_lock,
			.amount = u->amount,
			.group_id = u->group_id,
			.payload = sl_span_of(u->payload, u->payload_len),
			.owners = { u->locktime, u->threshold, u->naddrs, u->addrs } };
	sl_utxo x = { .tx_id = u->tx, .output_index = u->idx, .asset_id = u->asset, .out = o };
	sl_buf b;
	sl_buf_init(&b, 1u << 16);
	sl_avax_utxo_encode(&b, &x);
	uint8_t sum[4];
	sl_checksum4(b.p, b.len, sum);
	sl_jw_value(&r->w);
	sl_buf_add(r->w.out, "\"0x", 3);
	sl_buf_add_hex(r->w.out, b.p, b.len);
	sl_buf_add_hex(r->w.out, sum, 4);
	sl_buf_addc(r->w.out, '"');
	sl_buf_release(&b);
}

static const char *x_utxo_type(uint32_t otype)
{
	switch (otype) {
	case SL_T_SECP_MINT_OUTPUT: return "mint";
	case SL_T_NFT_MINT_OUTPUT: return "nft_mint";
	case SL_T_NFT_TRANSFER_OUTPUT: return "nft_transfer";
	case SL_T_PROP_MINT_OUTPUT: return "property_mint";
	case SL_T_PROP_OWNED_OUTPUT: return "property_owned";
	default: return "transfer";
	}
}

void api_utxo_write(api_req *r, const api_utxo *u, bool pchain, void (*extra)(api_req *r, void *ctx),
		    void *ctx)
{
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	sl_jw_key(w, "addresses");
	sl_jw_arr(w);
	for (uint32_t i = 0; i < u->naddrs; i++)
		api_write_address(r, u->addrs + 20 * (size_t)i);
	sl_jw_arr_end(w);
	sl_jw_key(w, "asset");
	api_asset_amount(r, u->asset, u->amount, NULL, 0);
	sl_jw_key(w, "consumedOnChainId");
	sl_jw_str(w, api_chain_id(r, u->dest));
	if (u->consumed) {
		sl_jw_key(w, "consumingTxHash");
		api_write_id(r, u->ctx);
	}
	sl_jw_key(w, "createdOnChainId");
	sl_jw_str(w, api_chain_id(r, u->created));
	sl_jw_key(w, "utxoId");
	api_write_id(r, u->id);
	sl_jw_key(w, "utxoBytes");
	utxo_bytes(r, u);
	if (pchain) {
		sl_jw_key(w, "amount");
		sl_jw_u64s(w, u->amount);
		sl_jw_key(w, "assetId");
		api_write_id(r, u->asset);
		sl_jw_key(w, "blockNumber");
		sl_jw_u64s(w, u->height);
		sl_jw_key(w, "blockTimestamp");
		sl_jw_i64(w, u->ts);
		if (u->consumed) {
			sl_jw_key(w, "consumingBlockNumber");
			sl_jw_u64s(w, u->cheight);
			sl_jw_key(w, "consumingBlockTimestamp");
			sl_jw_i64(w, u->cts);
		}
		sl_jw_key(w, "platformLocktime");
		sl_jw_u64(w, u->locktime);
		sl_jw_key(w, "outputIndex");
		sl_jw_u64(w, u->idx);
		const char *reward = api_reward_type(u->reward);
		if (reward) {
			sl_jw_key(w, "rewardType");
			sl_jw_str(w, reward);
		}
		if (u->otype == SL_T_STAKEABLE_LOCK_OUT) {
			sl_jw_key(w, "stakeableLocktime");
			sl_jw_u64(w, u->stake_lock);
		}
		sl_jw_key(w, "staked");
		sl_jw_bool(w, u->staked);
		sl_jw_key(w, "threshold");
		sl_jw_u64(w, u->threshold);
		sl_jw_key(w, "txHash");
		api_write_id(r, u->tx);
		if (u->staked) {
			sl_jw_key(w, "utxoEndTimestamp");
			sl_jw_i64(w, u->stake_end);
			sl_jw_key(w, "utxoStartTimestamp");
			sl_jw_i64(w, u->stake_start);
		}
		sl_jw_key(w, "utxoType");
		sl_jw_str(w, u->staked ? "STAKE" : "TRANSFER");
	} else {
		if (u->consumed) {
			sl_jw_key(w, "consumingTxTimestamp");
			sl_jw_i64(w, u->cts);
		}
		sl_jw_key(w, "creationTxHash");
		api_write_id(r, u->tx);
		if (u->otype == SL_T_NFT_MINT_OUTPUT || u->otype == SL_T_NFT_TRANSFER_OUTPUT) {
			sl_jw_key(w, "groupId");
			sl_jw_u64(w, u->group_id);
		}
		sl_jw_key(w, "locktime");
		sl_jw_u64(w, u->locktime);
		sl_jw_key(w, "outputIndex");
		sl_jw_u64s(w, u->idx);
		if (u->otype == SL_T_NFT_TRANSFER_OUTPUT) {
			sl_jw_key(w, "payload");
			sl_jw_hex(w, u->payload, u->payload_len);
		}
		sl_jw_key(w, "threshold");
		sl_jw_u64(w, u->threshold);
		sl_jw_key(w, "timestamp");
		sl_jw_i64(w, u->ts);
		sl_jw_key(w, "utxoType");
		sl_jw_str(w, x_utxo_type(u->otype));
	}
	if (extra)
		extra(r, ctx);
	sl_jw_obj_end(w);
}

/* ---- the list ---- */

enum { SORT_TS, SORT_AMOUNT };

/* One statement per (sort, order, spent filter): the keyset queries, all on the clustered key. */
#define Q_LIST(index, where, order)                                                      \
	{                                                                                \
		"SELECT " API_UTXO_COLS ", ts, amount FROM addr_utxos " index            \
		" WHERE chain = ? AND addr = ? AND " where " ORDER BY " order " LIMIT ?" \
	}
/* unspent only: through the partial indexes of unspent UTXOs, which SQLite's planner would pass
 * over for the clustered key's order (and then skip every spent row) */
#define UNSPENT_TS "{sqlite:INDEXED BY addr_utxos_unspent}"
#define UNSPENT_AM "{sqlite:INDEXED BY addr_utxos_unspent_amount}"
static const sl_sql q_ts_asc = Q_LIST("", "(ts, id) > (?, ?)", "ts, id");
static const sl_sql q_ts_desc = Q_LIST("", "(ts, id) < (?, ?)", "ts DESC, id DESC");
static const sl_sql q_am_asc = Q_LIST("", "(amount, id) > (?, ?)", "amount, id");
static const sl_sql q_am_desc = Q_LIST("", "(amount, id) < (?, ?)", "amount DESC, id DESC");
static const sl_sql q_ts_asc_u = Q_LIST(UNSPENT_TS, "(ts, id) > (?, ?) AND cts IS NULL", "ts, id");
static const sl_sql q_ts_desc_u = Q_LIST(UNSPENT_TS, "(ts, id) < (?, ?) AND cts IS NULL", "ts DESC, id DESC");
static const sl_sql q_am_asc_u = Q_LIST(UNSPENT_AM, "(amount, id) > (?, ?) AND cts IS NULL", "amount, id");
static const sl_sql q_am_desc_u =
	Q_LIST(UNSPENT_AM, "(amount, id) < (?, ?) AND cts IS NULL", "amount DESC, id DESC");
/* the same without the index they name, for a store whose indexer has it deferred while it catches
 * up (store/sql.h): SQLite cannot use an index that is not there, and says so */
static const sl_sql q_am_asc_u_any = Q_LIST("", "(amount, id) > (?, ?) AND cts IS NULL", "amount, id");
static const sl_sql q_am_desc_u_any =
	Q_LIST("", "(amount, id) < (?, ?) AND cts IS NULL", "amount DESC, id DESC");

static const sl_sql *unforced(const sl_sql *q)
{
	return q == &q_am_asc_u ? &q_am_asc_u_any : q == &q_am_desc_u ? &q_am_desc_u_any : NULL;
}

typedef struct item {
	api_utxo u;
	uint8_t key[8]; /* the sort key: ts or amount, big-endian (bias-free: both are non-negative) */
} item;

/* One address's rows, read a window at a time: v[at..n) are read and not yet merged; after is the
 * position (sort key, id) of the last row read, done when the address has no rows past it. */
typedef struct stream {
	item *v;
	size_t n, at, cap;
	uint8_t after_key[8], after_id[32];
	bool done;
	const uint8_t *addr;
} stream;

/* Items buffered across all of a page's streams (bytes): a page of many addresses reads each in
 * small windows instead of a page's worth each, so memory stays well inside the request's arena. */
#define STREAM_BUDGET (1u << 20)

static int cmp_items(const item *a, const item *b, bool desc)
{
	int c = memcmp(a->key, b->key, 8);
	if (!c)
		c = memcmp(a->u.id, b->u.id, 32);
	return desc ? -c : c;
}

static bool passes(const api_utxo *u, const api_val *asset, uint64_t min)
{
	if (asset->set && memcmp(u->asset, asset->id, 32))
		return false;
	return u->amount >= min;
}

static int list_utxos(api_req *r)
{
	const api_val *addrs = api_arg(r, "addresses"), *asset = api_arg(r, "assetId");
	const api_val *minv = api_arg(r, "minUtxoAmount"), *spent = api_arg(r, "includeSpent");
	int sort = (int)api_arg(r, "sortBy")->i;
	bool desc = api_arg(r, "sortOrder")->i == 1;
	size_t page = (size_t)api_arg(r, "pageSize")->i;
	if (!addrs->set || !addrs->naddrs)
		return api_fail(r, 400, "addresses is required: the UTXOs of which addresses?");
	if (asset->set && r->chain != API_X)
		return api_fail(r, 400, "assetId applies to the X-chain only");
	uint8_t cur[API_CURSOR_MAX];
	size_t curlen;
	if (!api_page_cursor(r, cur, &curlen))
		return -1;
	/* the cursor: sort key (8) | id (32); the first page starts before every item */
	uint8_t after_key[8], after_id[32];
	if (curlen == 40) {
		memcpy(after_key, cur, 8);
		memcpy(after_id, cur + 8, 32);
	} else {
		if (curlen)
			return api_fail(r, 400, "pageToken is not a token of this list");
		/* before the first item: the least key ascending, the greatest descending (ts is signed) */
		memset(after_key, desc ? 0xff : 0, 8);
		if (desc && sort == SORT_TS)
			after_key[0] = 0x7f;
		memset(after_id, desc ? 0xff : 0, 32);
	}
	const sl_sql *q = sort == SORT_TS ? (desc ? (spent->i ? &q_ts_desc : &q_ts_desc_u)
						  : (spent->i ? &q_ts_asc : &q_ts_asc_u))
					  : (desc ? (spent->i ? &q_am_desc : &q_am_desc_u)
						  : (spent->i ? &q_am_asc : &q_am_asc_u));
	/* each address's rows in windows, merged; a window is refilled when the merge has used it up */
	stream *st = sl_arena_zalloc(r->arena, addrs->naddrs * sizeof *st);
	if (!st)
		return api_fail(r, 500, "out of memory");
	size_t cap = STREAM_BUDGET / sizeof(item) / addrs->naddrs;
	cap = SL_MIN(SL_MAX(cap, 2u), page + 1);
	bool filtered = asset->set || (minv->set && minv->u);
	uint64_t min = minv->set ? minv->u : 0;
	for (size_t a = 0; a < addrs->naddrs; a++) {
		st[a].done = addrs->addrs[a].evm; /* EVM addresses own no UTXOs */
		st[a].addr = addrs->addrs[a].bytes;
		st[a].cap = cap;
		memcpy(st[a].after_key, after_key, 8);
		memcpy(st[a].after_id, after_id, 32);
		if (!st[a].done && !(st[a].v = sl_arena_array(r->arena, cap, sizeof *st[a].v)))
			return api_fail(r, 500, "out of memory");
	}
	sl_jw_obj(&r->w);
	sl_jw_key(&r->w, "utxos");
	sl_jw_arr(&r->w);
	size_t out = 0;
	uint8_t last_key[8] = { 0 }, last_id[32] = { 0 };
	bool have_last = false, more = false;
	for (;;) {
		const item *best = NULL;
		size_t bi = 0;
		for (size_t a = 0; a < addrs->naddrs; a++) {
			stream *sa = &st[a];
			if (sa->at == sa->n && !sa->done) {
				/* refill: rows the filters skip are read past in rounds, until the window
				 * holds at least one row or the address has no more */
				sa->n = sa->at = 0;
				for (int round = 0; sa->n < sa->cap && !sa->done && (sa->n == 0 || round < 4);
				     round++) {
					sl_stmt *s = sl_stmt_get(r->db, q);
					if (!s && unforced(q))
						s = sl_stmt_get(r->db, q = unforced(q));
					if (!s)
						return api_fail_store(r, SL_ERR_STORE);
					size_t lim = sa->cap - sa->n;
					if (filtered && lim < 64)
						lim = 64;
					sl_bind_i64(s, 0, r->chain);
					sl_bind_blob(s, 1, sa->addr, 20);
					if (sort == SORT_TS)
						sl_bind_i64(s, 2, (int64_t)sl_be64(sa->after_key));
					else
						sl_bind_blob(s, 2, sa->after_key, 8);
					sl_bind_blob(s, 3, sa->after_id, 32);
					sl_bind_i64(s, 4, (int64_t)lim);
					sl_err e = sl_stmt_query(s);
					size_t rows = 0, unread = 0;
					while (!e && sl_stmt_next(s, &e)) {
						rows++;
						if (sa->n == sa->cap) {
							unread++; /* read again by the next refill */
							continue;
						}
						item it;
						api_utxo_read(s, 0, &it.u, r->arena);
						if (sort == SORT_TS)
							sl_put_be64(it.key, (uint64_t)sl_col_i64(s, 25));
						else
							sl_put_be64(it.key, sl_col_u64be(s, 26));
						memcpy(sa->after_key, it.key, 8);
						memcpy(sa->after_id, it.u.id, 32);
						if (passes(&it.u, asset, min))
							sa->v[sa->n++] = it;
					}
					if (e && !rows && unforced(q)) {
						q = unforced(
							q); /* the index went since the statement was made */
						round--;
						continue;
					}
					if (e)
						return api_fail_store(r, e);
					if (rows < lim && !unread)
						sa->done = true; /* the address has no more */
				}
			}
			if (sa->at < sa->n && (!best || cmp_items(&sa->v[sa->at], best, desc) < 0)) {
				best = &sa->v[sa->at];
				bi = a;
			}
		}
		if (!best)
			break;
		st[bi].at++;
		if (have_last && !memcmp(last_id, best->u.id, 32))
			continue; /* owned by two of the addresses: once */
		if (out == page) {
			more = true;
			break;
		}
		api_utxo_write(r, &best->u, r->chain == API_P, NULL, NULL);
		memcpy(last_key, best->key, 8);
		memcpy(last_id, best->u.id, 32);
		have_last = true;
		out++;
	}
	sl_jw_arr_end(&r->w);
	if (more && have_last) {
		uint8_t c[40];
		memcpy(c, last_key, 8);
		memcpy(c + 8, last_id, 32);
		api_page_next(r, c, sizeof c);
	}
	api_chain_info(r);
	sl_jw_obj_end(&r->w);
	return 0;
}

int api_get_utxos(api_req *r) { return list_utxos(r); }
int api_post_utxos(api_req *r) { return list_utxos(r); }
