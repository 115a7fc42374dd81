/*
 * P-chain codec: every tx and block vector decodes, consumes every byte,
 * reproduces its id and fields, and re-encodes to identical bytes; every
 * truncation and bit flip fails cleanly or round-trips.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "codec/json.h"
#include "codec/pchain.h"
#include "codec/writer.h"
#include "codec_vectors.h"
#include "crypto/addr.h"
#include "crypto/cb58.h"
#include "util/arena.h"

#define ARENA_CAP (64u << 20)

static void assert_id(const uint8_t id[32], const char *want)
{
	char got[64];
	sl_cb58_id(got, id);
	assert_string_equal(got, want);
}

static bool tx_roundtrips(const uint8_t *p, size_t n)
{
	sl_arena a;
	sl_arena_init(&a, ARENA_CAP);
	sl_pchain_tx tx;
	bool ok = true;
	if (sl_pchain_tx_decode(&a, p, n, &tx, NULL) == SL_OK) {
		sl_buf b;
		sl_buf_init(&b, 4u << 20);
		ok = sl_pchain_tx_encode(&b, &tx) == SL_OK && b.len == n && memcmp(b.p, p, n) == 0;
		/* the JSON writer must cope with anything the decoder accepts */
		sl_buf j;
		sl_buf_init(&j, 64u << 20);
		sl_jw w;
		sl_jw_init(&w, &j);
		sl_codec_ctx ctx = sl_codec_ctx_for(tx.utx.base.network_id, "P");
		sl_pchain_tx_write_json(&w, &tx, &ctx);
		ok = ok && j.err == SL_OK;
		sl_buf_release(&j);
		sl_buf_release(&b);
	}
	sl_arena_release(&a);
	return ok;
}

static bool utx_roundtrips(const uint8_t *p, size_t n)
{
	sl_arena a;
	sl_arena_init(&a, ARENA_CAP);
	sl_pchain_tx tx;
	bool ok = true;
	if (sl_pchain_utx_decode(&a, p, n, &tx, NULL) == SL_OK) {
		sl_buf b;
		sl_buf_init(&b, 4u << 20);
		sl_wr_u16(&b, 0);
		sl_pchain_utx_write(&b, &tx.utx);
		ok = b.err == SL_OK && b.len == n && memcmp(b.p, p, n) == 0;
		sl_buf_release(&b);
	}
	sl_arena_release(&a);
	return ok;
}

static bool block_roundtrips(const uint8_t *p, size_t n)
{
	sl_arena a;
	sl_arena_init(&a, ARENA_CAP);
	sl_pchain_block blk;
	bool ok = true;
	if (sl_pchain_block_decode(&a, p, n, &blk, NULL) == SL_OK) {
		sl_buf b;
		sl_buf_init(&b, 4u << 20);
		ok = sl_pchain_block_encode(&b, &blk) == SL_OK && b.len == n && memcmp(b.p, p, n) == 0;
		sl_buf j;
		sl_buf_init(&j, 64u << 20);
		sl_jw w;
		sl_jw_init(&w, &j);
		sl_codec_ctx ctx = sl_codec_ctx_for(1, "P");
		sl_pchain_block_write_json(&w, &blk, &ctx);
		ok = ok && j.err == SL_OK;
		sl_buf_release(&j);
		sl_buf_release(&b);
	}
	sl_arena_release(&a);
	return ok;
}

/* Our JSON of the value, parsed back with jansson (ints as reals, as the vectors are). */
static json_t *tx_json(const sl_pchain_tx *tx, bool unsigned_only)
{
	sl_buf j;
	sl_buf_init(&j, 64u << 20);
	sl_jw w;
	sl_jw_init(&w, &j);
	sl_codec_ctx ctx = sl_codec_ctx_for(tx->utx.has_base ? tx->utx.base.network_id : 1, "P");
	if (unsigned_only)
		sl_pchain_utx_write_json(&w, &tx->utx, &ctx);
	else
		sl_pchain_tx_write_json(&w, tx, &ctx);
	assert_int_equal(j.err, SL_OK);
	json_error_t e;
	json_t *v = json_loads(sl_buf_str(&j), JSON_DECODE_INT_AS_REAL, &e);
	if (!v)
		fprintf(stderr, "bad JSON (%s): %s\n", e.text, sl_buf_str(&j));
	assert_non_null(v);
	sl_buf_release(&j);
	return v;
}

static void test_signed_txs(void **state)
{
	json_t *root = vec_load("pchain-txs.json");
	assert_non_null(root);
	json_t *v;
	size_t i, count = 0;
	json_array_foreach(json_object_get(root, "signed_txs"), i, v)
	{
		size_t n;
		uint8_t *p = vec_hex(vec_str(v, "hex"), &n);
		json_t *exp = json_object_get(v, "expected");
		sl_arena a;
		sl_arena_init(&a, ARENA_CAP);
		sl_pchain_tx tx;
		sl_err_detail err;
		assert_int_equal(sl_pchain_tx_decode(&a, p, n, &tx, &err), SL_OK);
		assert_id(tx.id, vec_str(exp, "txID"));
		assert_string_equal(sl_pchain_type_name(tx.utx.type_id), vec_str(exp, "type"));
		assert_int_equal(tx.utx.type_id, (int)json_number_value(json_object_get(exp, "typeID")));
		assert_int_equal(tx.bytes.len, n);

		json_t *dec = json_object_get(v, "decoded");
		json_t *got = tx_json(&tx, false);
		if (!subset(dec, got, vec_str(v, "description")))
			fail();
		json_decref(got);

		sl_buf b;
		sl_buf_init(&b, 4u << 20);
		assert_int_equal(sl_pchain_tx_encode(&b, &tx), SL_OK);
		assert_int_equal(b.len, n);
		assert_memory_equal(b.p, p, n);
		sl_buf_release(&b);
		sl_arena_release(&a);

		assert_int_equal(vec_mutate(p, n, tx_roundtrips), 0);
		free(p);
		count++;
	}
	assert_true(count >= 25);
	json_decref(root);
}

static void test_unsigned_txs(void **state)
{
	json_t *root = vec_load("pchain-txs.json");
	assert_non_null(root);
	json_t *v;
	size_t i;
	json_array_foreach(json_object_get(root, "unsigned_txs"), i, v)
	{
		size_t n;
		uint8_t *p = vec_hex(vec_str(v, "hex"), &n);
		json_t *exp = json_object_get(v, "expected");
		sl_arena a;
		sl_arena_init(&a, ARENA_CAP);
		sl_pchain_tx tx;
		assert_int_equal(sl_pchain_utx_decode(&a, p, n, &tx, NULL), SL_OK);
		assert_string_equal(sl_pchain_type_name(tx.utx.type_id), vec_str(exp, "type"));

		json_t *got = tx_json(&tx, true);
		if (!subset(json_object_get(json_object_get(v, "decoded"), "unsignedTx"), got,
			    vec_str(v, "description")))
			fail();
		/* avalanchego's own JSON of the tx, where the test carries it */
		json_t *up = json_object_get(v, "expected_json_upstream");
		if (up && !json_equal(up, got)) {
			char *s = json_dumps(got, JSON_SORT_KEYS);
			fprintf(stderr, "%s: upstream JSON differs:\n%s\n", vec_str(v, "description"), s);
			free(s);
			fail();
		}
		json_decref(got);

		sl_buf b;
		sl_buf_init(&b, 4u << 20);
		sl_wr_u16(&b, 0);
		sl_pchain_utx_write(&b, &tx.utx);
		assert_int_equal(b.len, n);
		assert_memory_equal(b.p, p, n);
		sl_buf_release(&b);
		assert_int_equal(vec_mutate(p, n, utx_roundtrips), 0);
		free(p);

		/* the same tx with an empty credential list, as a signed tx */
		json_t *der = json_object_get(v, "derived_signed_no_creds");
		if (der) {
			p = vec_hex(vec_str(der, "hex"), &n);
			assert_int_equal(sl_pchain_tx_decode(&a, p, n, &tx, NULL), SL_OK);
			assert_id(tx.id, vec_str(der, "txID"));
			assert_int_equal(tx.ncreds, 0);
			free(p);
		}
		sl_arena_release(&a);
	}
	json_decref(root);
}

static void check_blocks(json_t *list, const char *kind)
{
	json_t *v;
	size_t i;
	json_array_foreach(list, i, v)
	{
		const char *k = vec_str(v, "kind");
		if (kind && (!k || strcmp(k, kind)))
			continue;
		size_t n;
		uint8_t *p = vec_hex(vec_str(v, "hex"), &n);
		json_t *exp = json_object_get(v, "expected");
		sl_arena a;
		sl_arena_init(&a, ARENA_CAP);
		sl_pchain_block blk;
		sl_err_detail err;
		assert_int_equal(sl_pchain_block_decode(&a, p, n, &blk, &err), SL_OK);
		const char *want_id = vec_str(exp, "blockID") ? vec_str(exp, "blockID") : vec_str(exp, "id");
		assert_id(blk.id, want_id);
		assert_string_equal(sl_pchain_type_name(blk.type_id), vec_str(exp, "type"));
		json_t *h = json_object_get(exp, "height");
		if (h)
			assert_int_equal(blk.height, (uint64_t)json_number_value(h));
		json_t *t = json_object_get(exp, "time");
		if (t)
			assert_int_equal(blk.time, (uint64_t)json_number_value(t));
		if (vec_str(exp, "parentID"))
			assert_id(blk.parent_id, vec_str(exp, "parentID"));
		json_t *ids = json_object_get(exp, "txIDs");
		if (!ids)
			ids = json_object_get(exp, "txIDs_in_Txs_order");
		if (ids) {
			assert_int_equal(sl_pchain_block_tx_count(&blk), json_array_size(ids));
			for (uint32_t j = 0; j < sl_pchain_block_tx_count(&blk); j++)
				assert_id(sl_pchain_block_tx_at(&blk, j)->id,
					  json_string_value(json_array_get(ids, j)));
		}

		/* decoded fields through the JSON view */
		sl_buf jb;
		sl_buf_init(&jb, 64u << 20);
		sl_jw w;
		sl_jw_init(&w, &jb);
		/* blocks carry no network id; the vectors format addresses with the mainnet HRP */
		sl_codec_ctx ctx = sl_codec_ctx_for(1, "P");
		sl_pchain_block_write_json(&w, &blk, &ctx);
		assert_int_equal(jb.err, SL_OK);
		json_t *got = json_loads(sl_buf_str(&jb), JSON_DECODE_INT_AS_REAL, NULL);
		assert_non_null(got);
		if (!subset(json_object_get(v, "decoded"), got, vec_str(v, "description")))
			fail();
		json_decref(got);
		sl_buf_release(&jb);

		sl_buf b;
		sl_buf_init(&b, 4u << 20);
		assert_int_equal(sl_pchain_block_encode(&b, &blk), SL_OK);
		assert_int_equal(b.len, n);
		assert_memory_equal(b.p, p, n);
		sl_buf_release(&b);
		sl_arena_release(&a);
		assert_int_equal(vec_mutate(p, n, block_roundtrips), 0);
		free(p);
	}
}

static void test_blocks(void **state)
{
	json_t *root = vec_load("pchain-blocks.json");
	assert_non_null(root);
	check_blocks(json_object_get(root, "blocks"), NULL);
	json_decref(root);
	root = vec_load("derived-blocks.json");
	assert_non_null(root);
	check_blocks(json_object_get(root, "vectors"), "pchain.block");
	json_decref(root);
}

static void test_rejects(void **state)
{
	sl_arena a;
	sl_arena_init(&a, ARENA_CAP);
	sl_pchain_tx tx;
	sl_err_detail err;
	/* trailing byte after an AdvanceTimeTx */
	const uint8_t adv[] = { 0, 0, 0, 0, 0, 19, 0, 0, 0, 0, 0x66, 0xa5, 0x6f, 0xe7, 0, 0, 0, 0, 0xaa };
	assert_int_equal(sl_pchain_tx_decode(&a, adv, sizeof adv, &tx, &err), SL_ERR_TRAILING);
	assert_int_equal(err.offset, sizeof adv - 1);
	assert_int_equal(sl_pchain_tx_decode(&a, adv, sizeof adv - 1, &tx, &err), SL_OK);
	/* codec version 1 */
	uint8_t v1[sizeof adv - 1];
	memcpy(v1, adv, sizeof v1);
	v1[1] = 1;
	assert_int_equal(sl_pchain_tx_decode(&a, v1, sizeof v1, &tx, &err), SL_ERR_UNSUPPORTED);
	assert_int_equal(err.offset, 0);
	/* a block type where a tx is expected */
	v1[1] = 0;
	v1[5] = 3;
	assert_int_equal(sl_pchain_tx_decode(&a, v1, sizeof v1, &tx, &err), SL_ERR_UNSUPPORTED);
	assert_int_equal(err.offset, 2);
	/* a credential count far beyond the input */
	uint8_t big[sizeof adv - 1];
	memcpy(big, adv, sizeof big);
	big[14] = 0x7f;
	assert_int_not_equal(sl_pchain_tx_decode(&a, big, sizeof big, &tx, &err), SL_OK);
	sl_arena_release(&a);

	uint8_t id[32] = { 0 }, out[32];
	sl_pchain_l1_validation_id(id, 0, out);
	assert_id(out, "qKTSzoT4ywDs7Znr1LVHqgRCd4x9PVejJHRG2Rb2p8YjRVtdn");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signed_txs),
		cmocka_unit_test(test_unsigned_txs),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_rejects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
