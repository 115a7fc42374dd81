/*
 * vertices.c — GET …/blockchains/{x-chain}/vertices and
 * …/vertices:listByHeight (spec 000 §4.5): the X-chain's vertices of the
 * DAG era, latest first (by their place in the X/vtx index), or those at
 * one height. The cursor is the last vertex's index position.
 */
#include "api/internal.h"

#define VERTEX_COLS "ipos, hash, height, ts, parents, ntx, txs, size"
static const sl_sql q_latest = { "SELECT " VERTEX_COLS
				 " FROM vertices WHERE ipos < ? ORDER BY ipos DESC LIMIT ?" };
static const sl_sql q_height_desc = { "SELECT " VERTEX_COLS " FROM vertices WHERE height = ? AND ipos < ? "
				      "ORDER BY ipos DESC LIMIT ?" };
static const sl_sql q_height_asc = { "SELECT " VERTEX_COLS " FROM vertices WHERE height = ? AND ipos > ? "
				     "ORDER BY ipos LIMIT ?" };

static void write_ids(api_req *r, const char *key, sl_stmt *s, int col)
{
	size_t n = 0;
	const uint8_t *p = sl_col_blob(s, col, &n);
	sl_jw_key(&r->w, key);
	sl_jw_arr(&r->w);
	for (size_t i = 0; p && i + 32 <= n; i += 32)
		api_write_id(r, p + i);
	sl_jw_arr_end(&r->w);
}

static void vertex(api_req *r, sl_stmt *s)
{
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	sl_jw_key(w, "vertexHash");
	api_write_id_col(r, s, 1);
	write_ids(r, "parentHashes", s, 4);
	sl_jw_key(w, "vertexHeight");
	sl_jw_i64(w, sl_col_i64(s, 2));
	sl_jw_key(w, "vertexIndex");
	sl_jw_i64(w, sl_col_i64(s, 0));
	sl_jw_key(w, "vertexTimestamp");
	sl_jw_i64(w, sl_col_i64(s, 3));
	sl_jw_key(w, "txCount");
	sl_jw_i64(w, sl_col_i64(s, 5));
	write_ids(r, "transactions", s, 6);
	sl_jw_key(w, "vertexSizeBytes");
	sl_jw_i64(w, sl_col_i64(s, 7));
	sl_jw_obj_end(w);
}

static int list(api_req *r, const sl_sql *q, bool by_height, bool desc)
{
	size_t page = (size_t)api_arg(r, "pageSize")->i;
	int64_t after;
	if (!api_page_cursor_i64(r, desc ? INT64_MAX : -1, &after))
		return -1;
	sl_stmt *s = sl_stmt_get(r->db, q);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	int i = 0;
	if (by_height)
		sl_bind_i64(s, i++, api_arg(r, "vertexHeight")->i);
	sl_bind_i64(s, i++, after);
	sl_bind_i64(s, i, (int64_t)page + 1);
	return api_list_page_i64(r, s, "vertices", page, vertex);
}

int api_list_vertices(api_req *r) { return list(r, &q_latest, false, true); }

int api_list_vertices_by_height(api_req *r)
{
	bool desc = api_arg(r, "sortOrder")->i == 1;
	return list(r, desc ? &q_height_desc : &q_height_asc, true, desc);
}
