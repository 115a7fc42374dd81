/*
 * l1validators.c — GET /v1/networks/{network}/l1Validators (spec 000 §4.5):
 * the L1 validators of ACP-77 in the order they were made (the seq of their
 * ConvertSubnetToL1Tx or RegisterL1ValidatorTx, then the validation id: a
 * conversion makes several at once), the active ones only unless
 * includeInactiveL1Validators=true, filtered by l1ValidationId, subnetId and
 * nodeId (each narrows the list; all of them together too).
 *
 * Active: its end fee (the accrued fees at which its balance runs out; 0
 * once it ran out, was disabled or removed) is above the fees the P-chain had
 * accrued at its latest block (blocks.l1_fees). Its remainingBalance is the
 * difference, 0 when inactive. blockHeight is that block's height: the page
 * is read in one read transaction, so every balance is of that block.
 *
 * Removed validators (SetL1ValidatorWeightTx to weight 0): avalanchego
 * forgets them, but the OpenAPI document says a weight of 0 "means it has been
 * removed from the L1", so they are listed among the inactive ones, with
 * weight 0 and no balance.
 *
 * The cursor is the last validator's seq and validation id (40 bytes).
 */
#include "api/internal.h"

#include "crypto/cb58.h"

#define COLS "seq, vid, node, subnet, weight, end_fee, ts, bls_key, rb_owner, deact_owner"
/* after the cursor's (seq, vid): written so that it stays a range of the seq index */
#define AFTER " seq >= ? AND (seq > ? OR vid > ?)"
#define FILTERS                                                                          \
	" AND (? = 0 OR subnet = ?) AND (? = 0 OR node = ?) AND (? = 1 OR end_fee > ?) " \
	"ORDER BY seq, vid LIMIT ?"
/* One statement per way in: the validation id, the subnet, the node (their indexes), or all. */
static const sl_sql q_by_vid = { "SELECT " COLS " FROM l1_validators WHERE vid = ? AND" AFTER FILTERS };
static const sl_sql q_by_subnet = { "SELECT " COLS " FROM l1_validators WHERE subnet = ? AND" AFTER FILTERS };
static const sl_sql q_by_node = { "SELECT " COLS " FROM l1_validators WHERE node = ? AND" AFTER FILTERS };
static const sl_sql q_all = { "SELECT " COLS " FROM l1_validators WHERE" AFTER FILTERS };
static const sl_sql q_tip = {
	"SELECT height, l1_fees FROM blocks WHERE chain = 0 ORDER BY height DESC LIMIT 1"
};

#define CURSOR_LEN 40 /* seq u64 | validation id */

static void write_node(api_req *r, const uint8_t *p, size_t n)
{
	if (p && n == 20) {
		api_write_node_id(r, p);
	} else {
		sl_jw_hex(&r->w, p ? p : (const uint8_t *)"", p ? n : 0); /* not a node id of 20 bytes */
	}
}

/* {"addresses": [...], "threshold": n} of an owner column (its locktime is always 0) */
static void write_owner(api_req *r, const char *key, sl_stmt *s, int col)
{
	size_t n;
	const uint8_t *p = sl_col_blob(s, col, &n);
	api_owner o;
	api_owner_read(p, n, &o);
	sl_jw_key(&r->w, key);
	sl_jw_obj(&r->w);
	api_owner_addresses(r, "addresses", &o);
	sl_jw_key(&r->w, "threshold");
	sl_jw_u64(&r->w, o.threshold);
	sl_jw_obj_end(&r->w);
}

static void validator(api_req *r, sl_stmt *s, uint64_t fees)
{
	sl_jw *w = &r->w;
	size_t n;
	const uint8_t *vid = sl_col_blob(s, 1, &n);
	uint8_t id[32] = { 0 };
	if (vid && n == 32)
		memcpy(id, vid, 32);
	sl_jw_obj(w);
	sl_jw_key(w, "validationId");
	api_write_id(r, id);
	sl_jw_key(w, "validationIdHex");
	sl_jw_hex(w, id, 32);
	sl_jw_key(w, "nodeId");
	const uint8_t *node = sl_col_blob(s, 2, &n);
	write_node(r, node, n);
	sl_jw_key(w, "subnetId");
	api_write_id_col(r, s, 3);
	sl_jw_key(w, "weight");
	sl_jw_u64(w, sl_col_u64be(s, 4));
	uint64_t end = sl_col_u64be(s, 5);
	sl_jw_key(w, "remainingBalance");
	sl_jw_u64(w, end > fees ? end - fees : 0);
	sl_jw_key(w, "creationTimestamp");
	sl_jw_i64(w, sl_col_i64(s, 6));
	/* a free-form object in the OpenAPI document; the store keeps the key, not its proof */
	sl_jw_key(w, "blsCredentials");
	sl_jw_obj(w);
	const uint8_t *bls = sl_col_blob(s, 7, &n);
	if (bls && n == 48) {
		sl_jw_key(w, "publicKey");
		sl_jw_hex(w, bls, 48);
	}
	sl_jw_obj_end(w);
	write_owner(r, "remainingBalanceOwner", s, 8);
	write_owner(r, "deactivationOwner", s, 9);
	sl_jw_obj_end(w);
}

/* The latest P block's height and the fees accrued by then (0, 0 before any). */
static sl_err tip(api_req *r, int64_t *height, uint64_t *fees)
{
	*height = 0;
	*fees = 0;
	sl_stmt *s = sl_stmt_get(r->db, &q_tip);
	if (!s)
		return SL_ERR_STORE;
	sl_err e = sl_stmt_query(s);
	if (!e && sl_stmt_next(s, &e)) {
		*height = sl_col_i64(s, 0);
		*fees = sl_col_u64be(s, 1);
	}
	return e;
}

/* The statement for the filters given, bound; limit: rows at most. */
static sl_stmt *query(api_req *r, int64_t after_seq, const uint8_t after_vid[32], uint64_t fees, size_t limit)
{
	const api_val *vid = api_arg(r, "l1ValidationId"), *subnet = api_arg(r, "subnetId"),
		      *node = api_arg(r, "nodeId");
	bool all = api_arg(r, "includeInactiveL1Validators")->i == 1;
	const sl_sql *q = vid->set ? &q_by_vid : subnet->set ? &q_by_subnet : node->set ? &q_by_node : &q_all;
	sl_stmt *s = sl_stmt_get(r->db, q);
	if (!s)
		return NULL;
	int i = 0;
	if (vid->set)
		sl_bind_blob(s, i++, vid->id, 32);
	else if (subnet->set)
		sl_bind_blob(s, i++, subnet->id, 32);
	else if (node->set)
		sl_bind_blob(s, i++, node->node, 20);
	sl_bind_i64(s, i++, after_seq);
	sl_bind_i64(s, i++, after_seq);
	sl_bind_blob(s, i++, after_vid, 32);
	sl_bind_i64(s, i++, subnet->set);
	sl_bind_blob(s, i++, subnet->id, subnet->set ? 32 : 0);
	sl_bind_i64(s, i++, node->set);
	sl_bind_blob(s, i++, node->node, node->set ? 20 : 0);
	sl_bind_i64(s, i++, all);
	sl_bind_u64be(s, i++, fees);
	sl_bind_i64(s, i, (int64_t)limit);
	return s;
}

static int page_of(api_req *r, sl_stmt *s, size_t page, int64_t height, uint64_t fees)
{
	sl_err e = sl_stmt_query(s);
	if (e)
		return api_fail_store(r, e);
	sl_jw_obj(&r->w);
	sl_jw_key(&r->w, "validators");
	sl_jw_arr(&r->w);
	size_t shown = 0, n;
	uint8_t cur[CURSOR_LEN] = { 0 };
	bool more = false;
	while (sl_stmt_next(s, &e)) {
		if (shown == page) {
			more = true;
			break;
		}
		sl_put_be64(cur, (uint64_t)sl_col_i64(s, 0));
		const uint8_t *vid = sl_col_blob(s, 1, &n);
		memset(cur + 8, 0, 32);
		if (vid && n == 32)
			memcpy(cur + 8, vid, 32);
		validator(r, s, fees);
		shown++;
	}
	if (e)
		return api_fail_store(r, e);
	sl_jw_arr_end(&r->w);
	sl_jw_key(&r->w, "blockHeight");
	sl_jw_u64s(&r->w, (uint64_t)height);
	if (more)
		api_page_next(r, cur, sizeof cur);
	sl_jw_obj_end(&r->w);
	return 0;
}

int api_list_l1_validators(api_req *r)
{
	size_t page = (size_t)api_arg(r, "pageSize")->i;
	uint8_t cur[API_CURSOR_MAX];
	size_t len;
	if (!api_page_cursor(r, cur, &len))
		return -1;
	if (len && len != CURSOR_LEN)
		return api_fail(r, 400, "pageToken is not a token of this list");
	int64_t after_seq = len ? (int64_t)sl_be64(cur) : -1;
	uint8_t after_vid[32] = { 0 };
	if (len)
		memcpy(after_vid, cur + 8, 32);
	/* the fees and the validators of one moment: serve's snapshot */
	int64_t height;
	uint64_t fees;
	sl_err e = tip(r, &height, &fees);
	if (e)
		return api_fail_store(r, e);
	sl_stmt *s = query(r, after_seq, after_vid, fees, page + 1);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	return page_of(r, s, page, height, fees);
}
