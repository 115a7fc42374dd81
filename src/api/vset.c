/*
 * vset.c — the validator sets by P-chain height, read (vset.h).
 */
#include "api/vset.h"

#include <stdlib.h>
#include <string.h>

#include "crypto/addr.h"
#include "crypto/cb58.h"
#include "util/common.h"

static const uint8_t primary[32];

static const sl_sql q_tip = { "SELECT MAX(height) FROM blocks WHERE chain = 0" };
/* a member's rows: the one whose heights hold `height`; a key it lacks (a permissioned subnet
 * validator's) is its primary validation's at that height */
static const sl_sql q_set = {
	"SELECT v.node, v.weight, COALESCE(v.bls_key, p.bls_key) FROM vset v "
	"LEFT JOIN vset p ON v.bls_key IS NULL AND p.subnet = ? AND p.node = v.node AND p.from_h <= ? "
	"AND p.to_h > ? WHERE v.subnet = ? AND v.from_h <= ? AND v.to_h > ? ORDER BY v.node"
};
static const sl_sql q_subnets = {
	"SELECT DISTINCT subnet FROM vset WHERE from_h <= ? AND to_h > ? ORDER BY subnet"
};

static int64_t h64(uint64_t h) { return h > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)h; }

sl_err sl_vset_tip(sl_conn *c, uint64_t *height, bool *any)
{
	*height = 0;
	*any = false;
	sl_stmt *s = sl_stmt_get(c, &q_tip);
	if (!s)
		return SL_ERR_STORE;
	sl_err e = sl_stmt_query(s);
	while (!e && sl_stmt_next(s, &e)) {
		if (!sl_col_null(s, 0)) {
			*any = true;
			*height = (uint64_t)sl_col_i64(s, 0);
		}
	}
	return e;
}

void sl_vset_release(sl_vset *s)
{
	free(s->v);
	*s = (sl_vset){ 0 };
}

sl_err sl_vset_read(sl_conn *c, const uint8_t subnet[32], uint64_t height, sl_vset *out)
{
	*out = (sl_vset){ .height = height };
	memcpy(out->subnet, subnet, 32);
	sl_stmt *s = sl_stmt_get(c, &q_set);
	if (!s)
		return SL_ERR_STORE;
	int64_t h = h64(height);
	sl_bind_blob(s, 0, primary, 32);
	sl_bind_i64(s, 1, h);
	sl_bind_i64(s, 2, h);
	sl_bind_blob(s, 3, subnet, 32);
	sl_bind_i64(s, 4, h);
	sl_bind_i64(s, 5, h);
	sl_err e = sl_stmt_query(s);
	size_t cap = 0;
	while (!e && sl_stmt_next(s, &e)) {
		size_t nn = 0, nk = 0;
		const uint8_t *node = sl_col_blob(s, 0, &nn), *key = sl_col_blob(s, 2, &nk);
		if (nn != 20) {
			e = sl_conn_fail(c, SL_ERR_INVALID, "a validator set row without a 20-byte node id");
			break;
		}
		if (out->n == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			sl_vset_member *nv = ncap <= SL_VSET_MAX_MEMBERS ? realloc(out->v, ncap * sizeof *nv)
									 : NULL;
			if (!nv) {
				e = ncap <= SL_VSET_MAX_MEMBERS
					    ? SL_ERR_NOMEM
					    : sl_conn_fail(c, SL_ERR_TOO_LARGE,
							   "a validator set of more than %u members",
							   SL_VSET_MAX_MEMBERS);
				break;
			}
			out->v = nv;
			cap = ncap;
		}
		sl_vset_member *m = &out->v[out->n++];
		memcpy(m->node, node, 20);
		m->weight = sl_col_u64be(s, 1);
		if ((m->has_key = key && nk == 48))
			memcpy(m->key, key, 48);
		out->total = sl_sat_add(out->total, m->weight);
	}
	if (e)
		sl_vset_release(out);
	return e;
}

sl_err sl_vset_subnets(sl_conn *c, uint64_t height, uint8_t (**out)[32], size_t *n)
{
	*out = NULL;
	*n = 0;
	sl_stmt *s = sl_stmt_get(c, &q_subnets);
	if (!s)
		return SL_ERR_STORE;
	sl_bind_i64(s, 0, h64(height));
	sl_bind_i64(s, 1, h64(height));
	return sl_stmt_ids(s, out, n);
}

void sl_vset_json(sl_jw *j, const sl_vset *s)
{
	sl_jw_obj(j);
	sl_jw_key(j, "height");
	sl_jw_u64(j, s->height);
	sl_jw_key(j, "subnetId");
	sl_jw_cb58(j, s->subnet, 32);
	sl_jw_key(j, "validators");
	sl_jw_arr(j);
	for (size_t i = 0; i < s->n; i++) {
		const sl_vset_member *m = &s->v[i];
		sl_jw_obj(j);
		sl_jw_key(j, "nodeId");
		sl_jw_nodeid(j, m->node);
		sl_jw_key(j, "weight");
		sl_jw_u64s(j, m->weight);
		sl_jw_key(j, "publicKey");
		if (m->has_key)
			sl_jw_hex(j, m->key, 48);
		else
			sl_jw_null(j);
		sl_jw_obj_end(j);
	}
	sl_jw_arr_end(j);
	sl_jw_key(j, "totalWeight");
	sl_jw_u64s(j, s->total);
	sl_jw_obj_end(j);
}
