/*
 * X-chain codec: txs, StandardBlock and vertices from the vectors decode,
 * consume every byte, reproduce ids and fields, re-encode byte-exact, and
 * survive truncation and bit flips.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "codec/json.h"
#include "codec/xchain.h"
#include "codec_vectors.h"
#include "util/arena.h"

#define ARENA_CAP (64u << 20)

static void assert_id(const uint8_t id[32], const char *want)
{
	char got[64];
	sl_cb58_id(got, id);
	assert_string_equal(got, want);
}

static bool json_ok_tx(const sl_xchain_tx *tx)
{
	sl_buf j;
	sl_buf_init(&j, 64u << 20);
	sl_jw w;
	sl_jw_init(&w, &j);
	sl_codec_ctx ctx = sl_codec_ctx_for(tx->utx.base.network_id, "X");
	sl_xchain_tx_write_json(&w, tx, &ctx);
	bool ok = j.err == SL_OK;
	sl_buf_release(&j);
	return ok;
}

static bool tx_roundtrips(const uint8_t *p, size_t n)
{
	sl_arena a;
	sl_arena_init(&a, ARENA_CAP);
	sl_xchain_tx tx;
	bool ok = true;
	if (sl_xchain_tx_decode(&a, p, n, &tx, NULL) == SL_OK) {
		sl_buf b;
		sl_buf_init(&b, 4u << 20);
		ok = sl_xchain_tx_encode(&b, &tx) == SL_OK && b.len == n && memcmp(b.p, p, n) == 0 &&
		     json_ok_tx(&tx);
		sl_buf_release(&b);
	}
	sl_arena_release(&a);
	return ok;
}

static bool block_roundtrips(const uint8_t *p, size_t n)
{
	sl_arena a;
	sl_arena_init(&a, ARENA_CAP);
	sl_xchain_block blk;
	bool ok = true;
	if (sl_xchain_block_decode(&a, p, n, &blk, NULL) == SL_OK) {
		sl_buf b;
		sl_buf_init(&b, 4u << 20);
		ok = sl_xchain_block_encode(&b, &blk) == SL_OK && b.len == n && memcmp(b.p, p, n) == 0;
		sl_buf_release(&b);
	}
	sl_arena_release(&a);
	return ok;
}

static bool vertex_roundtrips(const uint8_t *p, size_t n)
{
	sl_arena a;
	sl_arena_init(&a, ARENA_CAP);
	sl_xchain_vertex v;
	bool ok = true;
	if (sl_xchain_vertex_decode(&a, p, n, &v, NULL) == SL_OK) {
		sl_buf b;
		sl_buf_init(&b, 4u << 20);
		ok = sl_xchain_vertex_encode(&b, &v) == SL_OK && b.len == n && memcmp(b.p, p, n) == 0;
		sl_buf_release(&b);
	}
	sl_arena_release(&a);
	return ok;
}

/* Compare our JSON of a tx with the reference decoder's view of it. */
static void check_tx_fields(const sl_xchain_tx *tx, json_t *dec, const char *what)
{
	sl_buf j;
	sl_buf_init(&j, 64u << 20);
	sl_jw w;
	sl_jw_init(&w, &j);
	/* the derived vectors format addresses with the mainnet HRP */
	uint32_t net = tx->utx.base.network_id == 12345 ? 1 : tx->utx.base.network_id;
	sl_codec_ctx ctx = sl_codec_ctx_for(net, "X");
	sl_xchain_tx_write_json(&w, tx, &ctx);
	assert_int_equal(j.err, SL_OK);
	json_t *got = json_loads(sl_buf_str(&j), JSON_DECODE_INT_AS_REAL, NULL);
	assert_non_null(got);
	if (!subset(json_object_get(dec, "unsignedTx"), json_object_get(got, "unsignedTx"), what))
		fail();
	assert_string_equal(json_string_value(json_object_get(got, "id")), vec_str(dec, "id"));
	/* credentials: {"fxID","credential":{"signatures"}} against the reference's flat form */
	json_t *wc = json_object_get(dec, "credentials"), *gc = json_object_get(got, "credentials");
	assert_int_equal(json_array_size(wc), json_array_size(gc));
	for (size_t i = 0; i < json_array_size(wc); i++)
		assert_true(json_equal(json_object_get(json_array_get(wc, i), "signatures"),
				       json_object_get(json_object_get(json_array_get(gc, i), "credential"),
						       "signatures")));
	json_decref(got);
	sl_buf_release(&j);
}

static void test_txs(void **state)
{
	json_t *root = vec_load("xchain-txs.json");
	assert_non_null(root);
	json_t *v;
	size_t i;
	json_array_foreach(json_object_get(root, "txs"), i, v)
	{
		size_t n;
		uint8_t *p = vec_hex(vec_str(v, "hex"), &n);
		json_t *exp = json_object_get(v, "expected");
		sl_arena a;
		sl_arena_init(&a, ARENA_CAP);
		sl_xchain_tx tx;
		sl_err_detail err;
		assert_int_equal(sl_xchain_tx_decode(&a, p, n, &tx, &err), SL_OK);
		assert_id(tx.id, vec_str(exp, "txID"));
		assert_string_equal(sl_xchain_type_name(tx.utx.type_id), vec_str(exp, "type"));
		json_t *nc = json_object_get(exp, "numCredentials");
		if (nc)
			assert_int_equal(tx.ncreds, (uint32_t)json_number_value(nc));
		check_tx_fields(&tx, json_object_get(v, "decoded"), vec_str(v, "description"));

		sl_buf b;
		sl_buf_init(&b, 4u << 20);
		assert_int_equal(sl_xchain_tx_encode(&b, &tx), SL_OK);
		assert_int_equal(b.len, n);
		assert_memory_equal(b.p, p, n);
		sl_buf_release(&b);
		sl_arena_release(&a);
		assert_int_equal(vec_mutate(p, n, tx_roundtrips), 0);
		free(p);
	}
	json_decref(root);
}

static void test_block_and_vertices(void **state)
{
	json_t *root = vec_load("derived-blocks.json");
	assert_non_null(root);
	json_t *v;
	size_t i;
	int seen = 0;
	json_array_foreach(json_object_get(root, "vectors"), i, v)
	{
		const char *kind = vec_str(v, "kind");
		bool block = !strcmp(kind, "xchain.block"), vertex = !strcmp(kind, "xchain.vertex");
		if (!block && !vertex)
			continue;
		seen++;
		size_t n;
		uint8_t *p = vec_hex(vec_str(v, "hex"), &n);
		json_t *exp = json_object_get(v, "expected"), *dec = json_object_get(v, "decoded");
		json_t *ids = json_object_get(exp, "txIDs");
		sl_arena a;
		sl_arena_init(&a, ARENA_CAP);
		sl_buf b;
		sl_buf_init(&b, 4u << 20);
		if (block) {
			sl_xchain_block blk;
			assert_int_equal(sl_xchain_block_decode(&a, p, n, &blk, NULL), SL_OK);
			assert_id(blk.id, vec_str(exp, "id"));
			assert_id(blk.parent_id, vec_str(exp, "parentID"));
			assert_int_equal(blk.height,
					 (uint64_t)json_number_value(json_object_get(exp, "height")));
			assert_int_equal(blk.time, (uint64_t)json_number_value(json_object_get(exp, "time")));
			assert_int_equal(blk.ntxs, json_array_size(ids));
			for (uint32_t k = 0; k < blk.ntxs; k++) {
				assert_id(blk.txs[k].id, json_string_value(json_array_get(ids, k)));
				check_tx_fields(&blk.txs[k], json_array_get(json_object_get(dec, "txs"), k),
						"block tx");
			}
			assert_int_equal(sl_xchain_block_encode(&b, &blk), SL_OK);
		} else {
			sl_xchain_vertex vx;
			assert_int_equal(sl_xchain_vertex_decode(&a, p, n, &vx, NULL), SL_OK);
			assert_id(vx.id, vec_str(exp, "id"));
			assert_int_equal(vx.height,
					 (uint64_t)json_number_value(json_object_get(exp, "height")));
			assert_int_equal(vx.ntxs, json_array_size(ids));
			for (uint32_t k = 0; k < vx.ntxs; k++)
				assert_id(vx.txs[k].id, json_string_value(json_array_get(ids, k)));
			assert_int_equal(vx.nparents, json_array_size(json_object_get(dec, "parentIDs")));
			assert_int_equal(sl_xchain_vertex_encode(&b, &vx), SL_OK);
		}
		assert_int_equal(b.len, n);
		assert_memory_equal(b.p, p, n);
		sl_buf_release(&b);
		sl_arena_release(&a);
		assert_int_equal(vec_mutate(p, n, block ? block_roundtrips : vertex_roundtrips), 0);
		free(p);
	}
	assert_int_equal(seen, 3);
	json_decref(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_txs),
		cmocka_unit_test(test_block_and_vertices),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
