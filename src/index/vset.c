/*
 * vset.c — the validator sets by P-chain height (vset.h).
 *
 * A node's rows in a subnet are ranges of heights [from_h, to_h) with one
 * weight and key each; the last one is open (to_h = VSET_OPEN) while the
 * node has weight. A change at height h closes the open row at h and opens
 * another from h, or, when the open row began at h itself (a second change
 * in the same block), rewrites it: so the rows hold each height's final set,
 * whatever happened inside a block.
 */
#include "index/vset.h"

#include <stdlib.h>
#include <string.h>

#include "util/common.h"

const uint8_t ix_vset_primary[32];
const uint8_t ix_vset_empty[20];

#define VSET_OPEN INT64_MAX

static const sl_sql q_last = { "SELECT from_h, to_h, weight, bls_key FROM vset WHERE subnet = ? AND node = ? "
			       "ORDER BY from_h DESC LIMIT 1" };
static const sl_sql q_close = { "UPDATE vset SET to_h = ? WHERE subnet = ? AND node = ? AND from_h = ?" };
static const sl_sql q_rewrite = {
	"UPDATE vset SET weight = ?, bls_key = ? WHERE subnet = ? AND node = ? AND from_h = ?"
};
static const sl_sql q_drop = { "DELETE FROM vset WHERE subnet = ? AND node = ? AND from_h = ?" };
static const sl_sql q_open = {
	"INSERT INTO vset (subnet, node, from_h, to_h, weight, bls_key) VALUES (?, ?, ?, ?, ?, ?)"
};
static const sl_sql q_staker = {
	"SELECT type, node, subnet, weight, bls_key, vin, vout FROM stakers WHERE tx = ?"
};
static const sl_sql q_joined = { "UPDATE stakers SET vin = ? WHERE tx = ?" };
static const sl_sql q_left = { "UPDATE stakers SET vout = ? WHERE tx = ?" };
/* pending stakers whose start has come (one removed while pending has left: it never joins; the
 * rows' end_tx cannot tell, as a batch writes every staker's end before it applies the changes in
 * order); permissioned validators whose end has come */
static const sl_sql q_due = { "SELECT tx FROM stakers WHERE vin IS NULL AND start_ts <= ? "
			      "AND start_ts > accepted_ts AND vout IS NULL" };
static const sl_sql q_expiring = {
	"SELECT tx FROM stakers WHERE type = 13 AND vout IS NULL AND end_ts <= ? AND vin IS NOT NULL"
};
static const sl_sql q_forget = { "DELETE FROM vset" };
static const sl_sql q_unjoin = {
	"UPDATE stakers SET vin = NULL, vout = NULL WHERE vin IS NOT NULL OR vout IS NOT NULL"
};
static const sl_sql q_genesis = { "SELECT tx FROM stakers WHERE seq = 0" };

static void bind_key(sl_stmt *s, int i, const uint8_t *key)
{
	if (key)
		sl_bind_blob(s, i, key, 48);
	else
		sl_bind_null(s, i);
}

sl_err ix_vset_change(sl_conn *c, const uint8_t subnet[32], const uint8_t node[20], uint64_t height, bool sub,
		      uint64_t weight, bool key_set, const uint8_t *key)
{
	if (!weight)
		return SL_OK;
	if (height > VSET_OPEN - 1)
		return sl_conn_fail(c, SL_ERR_INVALID, "a validator set change at height %llu",
				    (unsigned long long)height);
	int64_t h = (int64_t)height;
	bool open = false;
	int64_t from = 0;
	uint64_t have = 0;
	uint8_t old_key[48];
	bool has_old_key = false;
	sl_err e;
	{
		SL_STMT(c, q_last);
		sl_bind_blob(s, 0, subnet, 32);
		sl_bind_blob(s, 1, node, 20);
		if ((e = sl_stmt_query(s)))
			return e;
		if (sl_stmt_next(s, &e) && sl_col_i64(s, 1) == VSET_OPEN) {
			open = true;
			from = sl_col_i64(s, 0);
			have = sl_col_u64be(s, 2);
			size_t n = 0;
			const uint8_t *k = sl_col_blob(s, 3, &n);
			if ((has_old_key = k && n == 48))
				memcpy(old_key, k, 48);
		}
		if (e)
			return e;
	}
	if (sub && weight > have)
		return sl_conn_fail(
			c, SL_ERR_INVALID,
			"the validator set: a node leaves with more weight than it has (height %llu)",
			(unsigned long long)height);
	if (!sub && weight > UINT64_MAX - have)
		return sl_conn_fail(c, SL_ERR_INVALID,
				    "the validator set: a node's weight overflows (height %llu)",
				    (unsigned long long)height);
	uint64_t now = sub ? have - weight : have + weight;
	const uint8_t *now_key = key_set ? key : has_old_key ? old_key : NULL;
	if (open && from == h) {
		if (!now) {
			SL_STMT(c, q_drop);
			sl_bind_blob(s, 0, subnet, 32);
			sl_bind_blob(s, 1, node, 20);
			sl_bind_i64(s, 2, h);
			return sl_stmt_exec(s);
		}
		SL_STMT(c, q_rewrite);
		sl_bind_u64be(s, 0, now);
		bind_key(s, 1, now_key);
		sl_bind_blob(s, 2, subnet, 32);
		sl_bind_blob(s, 3, node, 20);
		sl_bind_i64(s, 4, h);
		return sl_stmt_exec(s);
	}
	if (open) {
		SL_STMT(c, q_close);
		sl_bind_i64(s, 0, h);
		sl_bind_blob(s, 1, subnet, 32);
		sl_bind_blob(s, 2, node, 20);
		sl_bind_i64(s, 3, from);
		if ((e = sl_stmt_exec(s)))
			return e;
	}
	if (!now)
		return SL_OK;
	SL_STMT(c, q_open);
	sl_bind_blob(s, 0, subnet, 32);
	sl_bind_blob(s, 1, node, 20);
	sl_bind_i64(s, 2, h);
	sl_bind_i64(s, 3, VSET_OPEN);
	sl_bind_u64be(s, 4, now);
	bind_key(s, 5, now_key);
	return sl_stmt_exec(s);
}

/* A staker's row, as far as its set needs it. */
typedef struct vstaker {
	uint32_t type;
	uint8_t node[20], subnet[32], key[48];
	bool has_key, joined, left;
	uint64_t weight;
} vstaker;

static sl_err staker_get(sl_conn *c, const uint8_t tx[32], vstaker *v, bool *found)
{
	SL_STMT(c, q_staker);
	sl_bind_blob(s, 0, tx, 32);
	sl_err e = sl_stmt_query(s);
	if (e)
		return e;
	*found = false;
	if (sl_stmt_next(s, &e)) {
		size_t nn = 0, ns = 0, nk = 0;
		const uint8_t *node = sl_col_blob(s, 1, &nn), *subnet = sl_col_blob(s, 2, &ns),
			      *key = sl_col_blob(s, 4, &nk);
		if (nn != 20 || ns != 32)
			return sl_conn_fail(c, SL_ERR_INVALID, "a staker row without its node or subnet");
		v->type = (uint32_t)sl_col_i64(s, 0);
		memcpy(v->node, node, 20);
		memcpy(v->subnet, subnet, 32);
		if ((v->has_key = key && nk == 48))
			memcpy(v->key, key, 48);
		v->weight = (uint64_t)sl_col_i64(s, 3);
		v->joined = !sl_col_null(s, 5);
		v->left = !sl_col_null(s, 6);
		*found = true;
	}
	return e;
}

static bool is_delegator(uint32_t type) { return type == 14 || type == 15 || type == 26; }

static sl_err mark(sl_conn *c, const sl_sql *q, const uint8_t tx[32], uint64_t height)
{
	sl_stmt *s = sl_stmt_get(c, q);
	if (!s)
		return SL_ERR_STORE;
	sl_bind_i64(s, 0, (int64_t)SL_MIN(height, (uint64_t)INT64_MAX));
	sl_bind_blob(s, 1, tx, 32);
	return sl_stmt_exec(s);
}

sl_err ix_vset_join(sl_conn *c, const uint8_t tx[32], uint64_t height)
{
	vstaker v;
	bool found;
	sl_err e = staker_get(c, tx, &v, &found);
	if (e || !found || v.joined)
		return e;
	/* a primary validator brings its key (or none); a delegator adds to its validator's; another
	 * subnet's validator has its primary validation's, which the reader finds */
	bool primary = !memcmp(v.subnet, ix_vset_primary, 32);
	bool key_set = !is_delegator(v.type);
	const uint8_t *key = primary && v.has_key ? v.key : NULL;
	if ((e = ix_vset_change(c, v.subnet, v.node, height, false, v.weight, key_set, key)))
		return e;
	return mark(c, &q_joined, tx, height);
}

sl_err ix_vset_leave(sl_conn *c, const uint8_t tx[32], uint64_t height)
{
	vstaker v;
	bool found;
	sl_err e = staker_get(c, tx, &v, &found);
	if (e || !found || v.left)
		return e;
	if (!v.joined) /* removed while pending */
		return mark(c, &q_left, tx, height);
	if ((e = ix_vset_change(c, v.subnet, v.node, height, true, v.weight, false, NULL)))
		return e;
	return mark(c, &q_left, tx, height);
}

/* The tx ids a query lists (one int64 parameter, when bind), in a malloc'd array. */
static sl_err list_txs(sl_conn *c, const sl_sql *q, bool bind, int64_t arg, uint8_t (**out)[32], size_t *n)
{
	*out = NULL;
	*n = 0;
	sl_stmt *s = sl_stmt_get(c, q);
	if (!s)
		return SL_ERR_STORE;
	if (bind)
		sl_bind_i64(s, 0, arg);
	return sl_stmt_ids(s, out, n);
}

typedef sl_err (*vset_step)(sl_conn *c, const uint8_t tx[32], uint64_t height);

static sl_err each(sl_conn *c, const sl_sql *q, bool bind, int64_t arg, vset_step fn, uint64_t height)
{
	uint8_t(*txs)[32];
	size_t n;
	sl_err e = list_txs(c, q, bind, arg, &txs, &n);
	for (size_t i = 0; !e && i < n; i++)
		e = fn(c, txs[i], height);
	free(txs);
	return e;
}

sl_err ix_vset_time(sl_conn *c, int64_t t, uint64_t height)
{
	sl_err e = each(c, &q_due, true, t, ix_vset_join, height);
	return e ? e : each(c, &q_expiring, true, t, ix_vset_leave, height);
}

sl_err ix_vset_restart(sl_conn *c)
{
	sl_stmt *s = sl_stmt_get(c, &q_forget);
	if (!s)
		return SL_ERR_STORE;
	sl_err e = sl_stmt_exec(s);
	if (!e && !(s = sl_stmt_get(c, &q_unjoin)))
		e = SL_ERR_STORE;
	if (!e)
		e = sl_stmt_exec(s);
	return e ? e : each(c, &q_genesis, false, 0, ix_vset_join, 0);
}
