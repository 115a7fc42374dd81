/*
 * subnets.c — GET /v1/networks/{network}/subnets (spec 000 §4.5): the
 * subnets made by CreateSubnetTx, in the order they were made (seq; newest
 * first by default), each with its current owner, its conversion to an L1
 * (the ConvertSubnetToL1Tx and its validator manager) and its blockchains.
 *
 * A page of up to 10,000 subnets reads its subnets in one query and their
 * chains CHAIN_BATCH subnets a query, both in the page's order, walked side
 * by side: never a query per subnet. A page stops early, after at least one
 * subnet, once its body passes PAGE_BYTES (chains' genesis data can be large;
 * the next page starts where it stopped). The cursor is the last subnet's seq.
 */
#include "api/internal.h"

#define CHAIN_BATCH 256	       /* subnets whose chains one query reads */
#define PAGE_BYTES (32u << 20) /* a page ends after the subnet that takes its body past this */

#define SUBNET_COLS "seq, id, height, ts, owner, l1_tx, manager_chain, manager_addr"
static const sl_sql q_desc = { "SELECT " SUBNET_COLS
			       " FROM subnets WHERE seq < ? ORDER BY seq DESC LIMIT ?" };
static const sl_sql q_asc = { "SELECT " SUBNET_COLS " FROM subnets WHERE seq > ? ORDER BY seq LIMIT ?" };

/* The chains of the CHAIN_BATCH subnets from the one at seq on, in the page's order. */
#define CHAIN_COLS "s.seq, c.id, c.height, c.ts, c.name, c.vm, c.genesis"
static const sl_sql q_chains_desc = {
	"SELECT " CHAIN_COLS " FROM subnets s JOIN chains c ON c.subnet = s.id "
	"WHERE s.seq IN (SELECT seq FROM subnets WHERE seq <= ? ORDER BY seq DESC "
	"LIMIT ?) ORDER BY s.seq DESC, c.seq"
};
static const sl_sql q_chains_asc = { "SELECT " CHAIN_COLS " FROM subnets s JOIN chains c ON c.subnet = s.id "
				     "WHERE s.seq IN (SELECT seq FROM subnets WHERE seq >= ? ORDER BY seq "
				     "LIMIT ?) ORDER BY s.seq, c.seq" };

/* The chain rows of the page, read a batch at a time as the subnets go by. */
typedef struct chains {
	sl_stmt *s;
	bool desc, row; /* row: s stands on a row not yet shown */
	size_t left;	/* subnets of the current batch not yet reached */
	sl_err e;
	sl_buf scratch; /* genesis.c's */
} chains;

static void chains_next(chains *c) { c->row = sl_stmt_next(c->s, &c->e); }

/* Does the chain row belong to a subnet before `seq` in the page's order (one skipped)? */
static bool before(const chains *c, int64_t seq)
{
	int64_t at = sl_col_i64(c->s, 0);
	return c->desc ? at > seq : at < seq;
}

static void blockchain(api_req *r, chains *c, const uint8_t subnet[32])
{
	sl_jw *w = &r->w;
	sl_stmt *s = c->s;
	size_t n;
	sl_jw_obj(w);
	sl_jw_key(w, "createBlockTimestamp");
	sl_jw_i64(w, sl_col_i64(s, 3));
	sl_jw_key(w, "createBlockNumber");
	sl_jw_u64s(w, (uint64_t)sl_col_i64(s, 2));
	sl_jw_key(w, "blockchainId");
	api_write_id_col(r, s, 1);
	sl_jw_key(w, "vmId");
	api_write_id_col(r, s, 5);
	sl_jw_key(w, "subnetId");
	api_write_id(r, subnet);
	const uint8_t *name = sl_col_blob(s, 4, &n);
	sl_jw_key(w, "blockchainName");
	sl_jw_strn(w, name ? (const char *)name : "", n);
	const uint8_t *gen = sl_col_blob(s, 6, &n);
	api_genesis g;
	api_genesis_read(gen, n, &g, &c->scratch);
	if (g.has_chain_id) {
		sl_jw_key(w, "evmChainId");
		sl_jw_u64(w, g.chain_id);
	}
	if (g.form != API_GENESIS_NONE) {
		sl_jw_key(w, "genesisData");
		api_genesis_write(w, gen, n, &g, &c->scratch);
	}
	sl_jw_obj_end(w);
}

/* "blockchains": the chains of the subnet at seq, the next batch read when this subnet starts one. */
static sl_err blockchains(api_req *r, chains *c, int64_t seq, const uint8_t subnet[32])
{
	if (!c->left) {
		if (!(c->s = sl_stmt_get(r->db, c->desc ? &q_chains_desc : &q_chains_asc)))
			return SL_ERR_STORE;
		sl_bind_i64(c->s, 0, seq);
		sl_bind_i64(c->s, 1, CHAIN_BATCH);
		if ((c->e = sl_stmt_query(c->s)))
			return c->e;
		c->left = CHAIN_BATCH;
		chains_next(c);
	}
	c->left--;
	sl_jw_key(&r->w, "blockchains");
	sl_jw_arr(&r->w);
	while (c->row && before(c, seq)) /* a subnet the page does not show (made since): skip */
		chains_next(c);
	for (; c->row && sl_col_i64(c->s, 0) == seq; chains_next(c))
		blockchain(r, c, subnet);
	sl_jw_arr_end(&r->w);
	return c->e;
}

static void subnet_fields(api_req *r, sl_stmt *s, const uint8_t id[32])
{
	sl_jw *w = &r->w;
	size_t n;
	api_owner o;
	const uint8_t *p = sl_col_blob(s, 4, &n);
	api_owner_read(p, n, &o);
	sl_jw_key(w, "createBlockTimestamp");
	sl_jw_i64(w, sl_col_i64(s, 3));
	sl_jw_key(w, "createBlockIndex");
	sl_jw_u64s(w, (uint64_t)sl_col_i64(s, 2));
	sl_jw_key(w, "subnetId");
	api_write_id(r, id);
	/* ownerAddresses, threshold, locktime: the DTO's deprecated copies of subnetOwnershipInfo */
	api_owner_addresses(r, "ownerAddresses", &o);
	sl_jw_key(w, "threshold");
	sl_jw_u64(w, o.threshold);
	sl_jw_key(w, "locktime");
	sl_jw_u64(w, o.locktime);
	sl_jw_key(w, "subnetOwnershipInfo");
	sl_jw_obj(w);
	sl_jw_key(w, "locktime");
	sl_jw_u64(w, o.locktime);
	sl_jw_key(w, "threshold");
	sl_jw_u64(w, o.threshold);
	api_owner_addresses(r, "addresses", &o);
	sl_jw_obj_end(w);
	const uint8_t *l1 = sl_col_blob(s, 5, &n);
	bool is_l1 = l1 && n == 32;
	sl_jw_key(w, "isL1");
	sl_jw_bool(w, is_l1);
	if (!is_l1)
		return;
	sl_jw_key(w, "l1ConversionTransactionHash");
	api_write_id(r, l1);
	sl_jw_key(w, "l1ValidatorManagerDetails");
	sl_jw_obj(w);
	sl_jw_key(w, "blockchainId");
	api_write_id_col(r, s, 6);
	p = sl_col_blob(s, 7, &n);
	sl_jw_key(w, "contractAddress");
	sl_jw_hex(w, p ? p : (const uint8_t *)"", p ? n : 0);
	sl_jw_obj_end(w);
}

/* The page's subnets from the query s, "subnets" and the next token; 0, or -1 after api_fail. */
static int page_of(api_req *r, sl_stmt *s, chains *c, size_t page)
{
	sl_err e = sl_stmt_query(s);
	if (e)
		return api_fail_store(r, e);
	sl_jw_obj(&r->w);
	sl_jw_key(&r->w, "subnets");
	sl_jw_arr(&r->w);
	size_t shown = 0;
	int64_t last = 0;
	bool more = false;
	while (sl_stmt_next(s, &e)) {
		if (shown == page || (shown && r->w.out->len > PAGE_BYTES)) {
			more = true;
			break;
		}
		size_t n;
		const uint8_t *id = sl_col_blob(s, 1, &n);
		uint8_t sid[32] = { 0 };
		if (id && n == 32)
			memcpy(sid, id, 32);
		last = sl_col_i64(s, 0);
		sl_jw_obj(&r->w);
		subnet_fields(r, s, sid);
		if ((e = blockchains(r, c, last, sid)))
			return api_fail_store(r, e);
		sl_jw_obj_end(&r->w);
		shown++;
	}
	if (e)
		return api_fail_store(r, e);
	sl_jw_arr_end(&r->w);
	if (more) {
		uint8_t cur[8];
		sl_put_be64(cur, (uint64_t)last);
		api_page_next(r, cur, sizeof cur);
	}
	sl_jw_obj_end(&r->w);
	return 0;
}

int api_list_subnets(api_req *r)
{
	bool desc = api_arg(r, "sortOrder")->i == 1;
	size_t page = (size_t)api_arg(r, "pageSize")->i;
	int64_t after;
	if (!api_page_cursor_i64(r, desc ? INT64_MAX : -1, &after))
		return -1;
	sl_stmt *s = sl_stmt_get(r->db, desc ? &q_desc : &q_asc);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	sl_bind_i64(s, 0, after);
	sl_bind_i64(s, 1, (int64_t)page + 1);
	chains c = { .desc = desc };
	sl_buf_init(&c.scratch, API_GENESIS_SCRATCH);
	int rc = page_of(r, s, &c, page);
	sl_buf_release(&c.scratch);
	return rc;
}
