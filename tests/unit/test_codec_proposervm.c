/* Unit tests for codec/proposervm: every vector decodes, reproduces its ids and
 * fields, re-encodes byte for byte; truncations and bit flips fail cleanly. */
#include "vec_evm.h"

#include "codec/json_evm.h"
#include "codec/proposervm.h"
#include "crypto/hash.h"
#include "util/buf.h"

static int try_decode(const uint8_t *p, size_t n, void *ctx)
{
	(void)ctx;
	sl_proposervm_block b;
	sl_err_detail d;
	sl_err e = sl_proposervm_block_decode(p, n, &b, &d);
	if (e == SL_OK) {
		/* whatever decodes must re-encode to the same bytes */
		sl_buf out;
		sl_buf_init(&out, 4u << 20);
		assert_int_equal(sl_proposervm_block_encode(&b, &out), SL_OK);
		assert_int_equal(out.len, n);
		assert_memory_equal(out.p, p, n);
		sl_buf_release(&out);
	} else {
		assert_true(d.offset <= n);
		assert_non_null(d.msg);
	}
	sl_arena a;
	sl_arena_init(&a, 1 << 16);
	sl_span inner;
	const sl_proposervm_block *outer;
	bool wrapped = sl_proposervm_unwrap(p, n, &a, &inner, &outer);
	if (!wrapped) {
		assert_ptr_equal(inner.p, p);
		assert_null(outer);
	}
	sl_arena_release(&a);
	return e == SL_OK ? 0 : 1;
}

static void check_vector(json_t *v)
{
	size_t n;
	uint8_t *p = vec_unhex(vec_str(v, "hex"), &n);
	json_t *exp = json_object_get(v, "expected");
	sl_proposervm_block b;
	sl_err_detail d;
	sl_err e = sl_proposervm_block_decode(p, n, &b, &d);

	if (json_is_true(json_object_get(exp, "parseError"))) {
		assert_int_not_equal(e, SL_OK);
		sl_span inner;
		assert_false(sl_proposervm_unwrap(p, n, NULL, &inner, NULL));
		free(p);
		return;
	}
	if (e != SL_OK)
		fail_msg("%s: decode failed: %s at %zu", vec_str(v, "description"), d.msg, d.offset);
	assert_string_equal(sl_proposervm_kind_name(b.kind), vec_str(exp, "type"));
	vec_assert_cb58(b.id, vec_str(exp, "id"));
	vec_assert_cb58(b.parent_id.p, vec_str(exp, "parentID"));
	json_t *ts = json_object_get(exp, "timestamp");
	if (ts)
		assert_int_equal(b.timestamp, json_integer_value(ts));
	json_t *ph = json_object_get(exp, "pChainHeight");
	if (ph)
		assert_int_equal(b.pchain_height, json_integer_value(ph));
	json_t *ib = json_object_get(exp, "innerBlock");
	if (ib)
		vec_assert_hex(b.inner.p, b.inner.len, json_string_value(ib));
	json_t *ibid = json_object_get(exp, "innerBlockID");
	if (ibid) {
		uint8_t h[32];
		sl_sha256(b.inner.p, b.inner.len, h);
		vec_assert_cb58(h, json_string_value(ibid));
	}
	json_t *prop = json_object_get(exp, "proposer");
	if (prop) {
		assert_true(b.has_proposer);
		sl_buf s;
		sl_buf_init(&s, 128);
		sl_buf_adds(&s, "NodeID-");
		sl_cb58_write(&s, b.proposer, 20);
		assert_string_equal(sl_buf_str(&s), json_string_value(prop));
		sl_buf_release(&s);
	}
	json_t *ep = json_object_get(exp, "epoch");
	if (json_is_object(ep)) {
		assert_int_equal(b.kind, SL_PROPOSERVM_GRANITE);
		assert_int_equal(b.epoch.pchain_height,
				 json_integer_value(json_object_get(ep, "pChainHeight")));
		assert_int_equal(b.epoch.number, json_integer_value(json_object_get(ep, "number")));
		assert_int_equal(b.epoch.start_time, json_integer_value(json_object_get(ep, "startTime")));
	}

	/* byte-identical re-encoding, and the ids recomputed from the output */
	sl_buf out;
	sl_buf_init(&out, 4u << 20);
	assert_int_equal(sl_proposervm_block_encode(&b, &out), SL_OK);
	assert_int_equal(out.len, n);
	assert_memory_equal(out.p, p, n);
	sl_proposervm_block b2 = b;
	b2.bytes = sl_span_of(out.p, out.len);
	sl_proposervm_block_ids(&b2);
	assert_memory_equal(b2.id, b.id, 32);
	sl_buf_release(&out);

	/* it is a wrapped container, and unwrap finds the same inner block */
	sl_arena a;
	sl_arena_init(&a, 1 << 16);
	sl_span inner;
	const sl_proposervm_block *outer = NULL;
	assert_true(sl_proposervm_unwrap(p, n, &a, &inner, &outer));
	assert_non_null(outer);
	assert_ptr_equal(inner.p, b.inner.p);
	assert_int_equal(inner.len, b.inner.len);
	assert_memory_equal(outer->id, b.id, 32);
	sl_arena_release(&a);

	/* JSON carries avalanchego's names and the same values */
	sl_buf jb;
	sl_buf_init(&jb, 1 << 20);
	sl_jw w;
	sl_jw_init(&w, &jb);
	sl_proposervm_block_write_json(&w, &b);
	json_t *j = vec_json_of(&jb);
	assert_string_equal(json_string_value(json_object_get(j, "type")), vec_str(exp, "type"));
	assert_string_equal(json_string_value(json_object_get(j, "id")), vec_str(exp, "id"));
	assert_string_equal(json_string_value(json_object_get(j, "parentID")), vec_str(exp, "parentID"));
	if (prop)
		assert_string_equal(json_string_value(json_object_get(j, "proposer")),
				    json_string_value(prop));
	if (ib)
		assert_string_equal(json_string_value(json_object_get(j, "innerBlock")),
				    json_string_value(ib));
	if (ts)
		assert_int_equal(json_integer_value(json_object_get(j, "timestamp")), json_integer_value(ts));
	if (json_is_object(ep))
		assert_true(json_equal(json_object_get(j, "epoch"), ep));
	json_decref(j);
	sl_buf_release(&jb);

	vec_mutate(p, n, try_decode, NULL, true);
	free(p);
}

static void test_upstream_vectors(void **state)
{
	(void)state;
	json_t *root = vec_load("proposervm.json");
	json_t *vs = json_object_get(root, "vectors");
	size_t i;
	json_t *v;
	assert_true(json_array_size(vs) >= 3);
	json_array_foreach(vs, i, v) check_vector(v);
	json_decref(root);
}

static void test_derived_vectors(void **state)
{
	(void)state;
	json_t *root = vec_load("derived-blocks.json");
	json_t *vs = json_object_get(root, "vectors");
	size_t i, seen = 0;
	json_t *v;
	json_array_foreach(vs, i, v)
	{
		const char *kind = vec_str(v, "kind");
		if (strcmp(kind, "proposervm.block") == 0) {
			check_vector(v);
			seen++;
			continue;
		}
		/* bare P/X blocks and vertices must not be taken for wrappers */
		size_t n;
		uint8_t *p = vec_unhex(vec_str(v, "hex"), &n);
		sl_span inner;
		const sl_proposervm_block *outer = (const sl_proposervm_block *)1;
		assert_false(sl_proposervm_unwrap(p, n, NULL, &inner, &outer));
		assert_null(outer);
		assert_ptr_equal(inner.p, p);
		assert_int_equal(inner.len, n);
		free(p);
	}
	assert_int_equal(seen, 3);
	json_decref(root);
}

static void test_cchain_blocks_are_bare(void **state)
{
	(void)state;
	json_t *root = vec_load("cchain-blocks.json");
	json_t *vs = json_object_get(root, "vectors");
	size_t i;
	json_t *v;
	json_array_foreach(vs, i, v)
	{
		size_t n;
		uint8_t *p = vec_unhex(vec_str(v, "hex"), &n);
		sl_span inner;
		assert_false(sl_proposervm_unwrap(p, n, NULL, &inner, NULL));
		assert_int_equal(inner.len, n);
		free(p);
	}
	json_decref(root);
}

static void test_errors(void **state)
{
	(void)state;
	sl_proposervm_block b;
	sl_err_detail d;
	/* unknown type id 3 */
	uint8_t t3[6 + 32 + 4] = { 0, 0, 0, 0, 0, 3 };
	assert_int_equal(sl_proposervm_block_decode(t3, sizeof t3, &b, &d), SL_ERR_UNSUPPORTED);
	assert_int_equal(d.offset, 2);
	/* codec version 1 */
	uint8_t v1[6 + 32 + 4] = { 0, 1, 0, 0, 0, 1 };
	assert_int_equal(sl_proposervm_block_decode(v1, sizeof v1, &b, &d), SL_ERR_UNSUPPORTED);
	assert_int_equal(d.offset, 0);
	/* option with an inner length larger than what remains */
	uint8_t opt[6 + 32 + 4 + 1] = { 0, 0, 0, 0, 0, 1 };
	opt[38 + 3] = 2;
	assert_int_equal(sl_proposervm_block_decode(opt, sizeof opt, &b, &d), SL_ERR_TRUNCATED);
	/* ...and one byte too many */
	opt[38 + 3] = 0;
	assert_int_equal(sl_proposervm_block_decode(opt, sizeof opt, &b, &d), SL_ERR_TRAILING);
	assert_int_equal(d.offset, 42);
	/* an option with an empty inner block decodes but is not taken for a wrapper */
	assert_int_equal(sl_proposervm_block_decode(opt, sizeof opt - 1, &b, &d), SL_OK);
	sl_span inner;
	assert_false(sl_proposervm_unwrap(opt, sizeof opt - 1, NULL, &inner, NULL));
	/* a huge declared length fails without allocating */
	uint8_t big[6 + 32 + 4] = { 0, 0, 0, 0, 0, 1 };
	memset(big + 38, 0xff, 4);
	assert_int_equal(sl_proposervm_block_decode(big, sizeof big, &b, &d), SL_ERR_TOO_LARGE);
	assert_int_equal(d.offset, 38);
	assert_int_not_equal(sl_proposervm_block_decode(NULL, 0, &b, &d), SL_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upstream_vectors),
		cmocka_unit_test(test_derived_vectors),
		cmocka_unit_test(test_cchain_blocks_are_bare),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests_name("codec_proposervm", tests, NULL, NULL);
}
