/* Unit tests for codec/formats: names and sets; every vector found by sl_fmt_detect
 * with its Go type and its bytes again; the container rule per index (wrapped or
 * bare, the inner block's failure at its offset in the whole input); the attempt
 * that got furthest and its one-line description. */
#include "vec_evm.h"

#include "codec/formats.h"
#include "util/arena.h"
#include "util/buf.h"

#define ARENA_CAP (64u << 20)

static json_t *find_kind(json_t *vs, const char *kind, const char *expected_key)
{
	size_t i;
	json_t *v;
	json_array_foreach(vs, i, v)
	{
		json_t *e = json_object_get(v, "expected");
		if (!strcmp(vec_str(v, "kind"), kind) && (!expected_key || json_object_get(e, expected_key)))
			return v;
	}
	fail_msg("no %s vector", kind);
	return NULL;
}

static void test_names_and_sets(void **state)
{
	(void)state;
	sl_fmts all = 0;
	for (unsigned f = 0; f < SL_FMT__COUNT; f++) {
		const char *name = sl_fmt_name((sl_fmt)f);
		assert_non_null(name);
		sl_fmt back;
		assert_true(sl_fmt_parse(name, &back));
		assert_int_equal(back, f);
		all |= SL_FMTS(f);
	}
	sl_fmt x;
	assert_false(sl_fmt_parse("pchain", &x));
	assert_false(sl_fmt_parse("", &x));
	assert_null(sl_fmt_name(SL_FMT__COUNT));
	assert_string_equal(sl_fmt_name(SL_FMT_WARP_UNSIGNED), "warp.unsigned_message");

	/* the chain sets are disjoint and, with the bare wrapper, cover every format */
	sl_fmts sets[] = { SL_FMTS_P, SL_FMTS_X, SL_FMTS_C, SL_FMTS_WARP, SL_FMTS(SL_FMT_PROPOSERVM_BLOCK) };
	sl_fmts u = 0;
	for (size_t i = 0; i < SL_ARRAY_LEN(sets); i++) {
		assert_int_equal(u & sets[i], 0);
		u |= sets[i];
	}
	assert_int_equal(u, all);
	/* what proposervm wraps is a block of each chain; the index sets are in their chain's */
	assert_int_equal(SL_FMTS_BLOCKS & ~(SL_FMTS_P | SL_FMTS_X | SL_FMTS_C), 0);
	sl_container_fmts ix[] = { SL_CONTAINER_P_BLOCK, SL_CONTAINER_C_BLOCK, SL_CONTAINER_X_TX,
				   SL_CONTAINER_X_BLOCK, SL_CONTAINER_X_VERTEX };
	for (size_t i = 0; i < SL_ARRAY_LEN(ix); i++) {
		assert_int_equal(ix[i].wrapped & ~SL_FMTS_BLOCKS, 0);
		assert_int_equal(__builtin_popcount(ix[i].bare | ix[i].wrapped),
				 1); /* one format per index */
	}
	assert_int_equal(SL_CONTAINER_ANY.bare & SL_FMTS(SL_FMT_PROPOSERVM_BLOCK), 0);
}

/* Decode with `set`; it must be format `want`, re-encode to the same bytes, write JSON. */
static void detect_one(const char *hex, sl_fmts set, sl_fmt want, const char *type)
{
	size_t n;
	uint8_t *p = vec_unhex(hex, &n);
	sl_arena a;
	sl_arena_init(&a, ARENA_CAP);
	sl_value v;
	sl_fmt_attempt at;
	sl_err err = sl_fmt_detect(&a, set, p, n, 0, &v, &at);
	if (err != SL_OK) {
		char line[512];
		sl_fmt_attempt_describe(&at, line, sizeof line);
		fail_msg("%s: %s", sl_fmt_name(want), line);
	}
	assert_int_equal(v.fmt, want);
	assert_ptr_equal(v.bytes.p, p);
	assert_int_equal(v.bytes.len, n);
	if (type)
		assert_string_equal(sl_value_type(&v), type);
	sl_buf out;
	sl_buf_init(&out, 8u << 20);
	assert_int_equal(sl_value_encode(&out, &v), SL_OK);
	assert_int_equal(out.len, n);
	assert_memory_equal(out.p, p, n);
	sl_buf_reset(&out);
	sl_jw w;
	sl_jw_init(&w, &out);
	sl_jw_obj(&w);
	sl_value_write_json_fields(&w, &v, true);
	sl_jw_obj_end(&w);
	assert_int_equal(out.err, SL_OK);
	assert_true(strstr(sl_buf_str(&out), "\"kind\":\"") != NULL);
	sl_buf_release(&out);
	sl_arena_release(&a);
	free(p);
}

static void test_every_vector_detected(void **state)
{
	(void)state;
	json_t *pt = vec_load("pchain-txs.json");
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(pt, "signed_txs"), i, t)
	{
		const char *type = vec_str(json_object_get(t, "expected"), "type");
		detect_one(vec_str(t, "hex"), SL_CONTAINER_ANY.bare, SL_FMT_PCHAIN_TX, type);
	}
	json_array_foreach(json_object_get(pt, "unsigned_txs"), i, t)
	{
		const char *type = vec_str(json_object_get(t, "expected"), "type");
		detect_one(vec_str(t, "hex"), SL_FMTS_P, SL_FMT_PCHAIN_UNSIGNED_TX, type);
	}
	json_decref(pt);
	json_t *xt = vec_load("xchain-txs.json");
	json_array_foreach(json_object_get(xt, "txs"), i, t)
	{
		const char *type = vec_str(json_object_get(t, "expected"), "type");
		detect_one(vec_str(t, "hex"), SL_CONTAINER_ANY.bare, SL_FMT_XCHAIN_TX, type);
	}
	json_decref(xt);
	json_t *cb = vec_load("cchain-blocks.json");
	json_array_foreach(json_object_get(cb, "vectors"), i, t)
		detect_one(vec_str(t, "hex"), SL_CONTAINER_ANY.bare, SL_FMT_CCHAIN_BLOCK, NULL);
	json_decref(cb);
	json_t *wp = vec_load("warp.json");
	json_array_foreach(json_object_get(wp, "vectors"), i, t)
	{
		const char *kind = vec_str(t, "kind");
		sl_fmt want = !strcmp(kind, "warp.signed_message") ? SL_FMT_WARP_MESSAGE
			      : !strcmp(kind, "warp.l1_message")   ? SL_FMT_WARP_L1_MESSAGE
								   : SL_FMT_WARP_CONVERSION_DATA;
		/* an L1 message comes before a payload, whose Hash layout can coincide with it */
		detect_one(vec_str(t, "hex"), SL_FMTS_WARP, want, NULL);
	}
	json_decref(wp);
}

static void test_containers(void **state)
{
	(void)state;
	json_t *db = vec_load("derived-blocks.json");
	json_t *vs = json_object_get(db, "vectors");
	json_t *pv = find_kind(vs, "proposervm.block", "innerBlockID");
	size_t n;
	uint8_t *p = vec_unhex(vec_str(pv, "hex"), &n);
	sl_arena a;
	sl_arena_init(&a, ARENA_CAP);
	sl_decoded_container c;
	sl_fmt_attempt at;

	/* P/block: wrapped, the inner block a P-chain block */
	assert_int_equal(sl_container_decode(&a, SL_CONTAINER_P_BLOCK, p, n, 1, &c, &at), SL_OK);
	assert_true(c.wrapped);
	assert_int_equal(c.value.fmt, SL_FMT_PCHAIN_BLOCK);
	vec_assert_cb58(c.outer.id, vec_str(json_object_get(pv, "expected"), "id"));
	vec_assert_cb58(sl_value_id(&c.value), vec_str(json_object_get(pv, "expected"), "innerBlockID"));
	assert_ptr_equal(c.value.bytes.p, c.outer.inner.p);
	sl_buf out;
	sl_buf_init(&out, 8u << 20);
	assert_int_equal(sl_container_encode(&out, &c), SL_OK);
	assert_int_equal(out.len, n);
	assert_memory_equal(out.p, p, n);
	sl_buf_reset(&out);
	sl_jw w;
	sl_jw_init(&w, &out);
	sl_jw_obj(&w);
	sl_container_write_json_fields(&w, &c, true);
	sl_jw_obj_end(&w);
	assert_true(strstr(sl_buf_str(&out), "\"kind\":\"proposervm.block\"") != NULL);
	assert_true(strstr(sl_buf_str(&out), "\"inner\":{\"kind\":\"pchain.block\"") != NULL);
	assert_true(strstr(sl_buf_str(&out), "\"type\":\"ExportTx\"") != NULL); /* a nested tx's type */
	sl_buf_release(&out);

	/* X/block: the wrapper parses, its inner block is no X-chain block: that is the failure */
	size_t inner_at = (size_t)(c.outer.inner.p - p);
	assert_int_equal(inner_at, 62);
	assert_int_not_equal(sl_container_decode(&a, SL_CONTAINER_X_BLOCK, p, n, 0, &c, &at), SL_OK);
	assert_true(at.in_inner);
	assert_int_equal(at.fmt, SL_FMT_XCHAIN_BLOCK);
	assert_int_equal(at.inner_at, inner_at);
	assert_int_equal(at.err.offset, inner_at + 2); /* the block type id */
	assert_int_equal(at.err.code, SL_ERR_UNSUPPORTED);
	assert_false(c.wrapped);
	char line[512];
	sl_fmt_attempt_describe(&at, line, sizeof line);
	assert_string_equal(line,
			    "the inner block of a proposervm.block is not a valid xchain.block: type id not "
			    "allowed here (unsupported) at byte 64 (byte 2 of the inner block)");

	/* X/tx: never wrapped, so it is simply no X-chain tx */
	assert_int_not_equal(sl_container_decode(&a, SL_CONTAINER_X_TX, p, n, 0, &c, &at), SL_OK);
	assert_false(at.in_inner);
	assert_int_equal(at.fmt, SL_FMT_XCHAIN_TX);
	assert_true(at.err.offset <= n);

	/* a truncated container: the attempt that got furthest, inside the input */
	assert_int_not_equal(sl_container_decode(&a, SL_CONTAINER_CHAIN_P, p, 200, 0, &c, &at), SL_OK);
	assert_true(at.fmt == SL_FMT_PROPOSERVM_BLOCK || (SL_FMTS(at.fmt) & SL_FMTS_P));
	assert_true(at.err.offset <= 200);
	sl_fmt_attempt_describe(&at, line, sizeof line);
	assert_true(!strncmp(line, "not a valid ", 12));

	/* the inner block alone is a bare P-chain block: P/block takes it, X/block wants a wrapper */
	const uint8_t *ip = p + inner_at;
	size_t in = n - inner_at - 4;
	assert_int_equal(sl_container_decode(&a, SL_CONTAINER_P_BLOCK, ip, in, 0, &c, &at), SL_OK);
	assert_false(c.wrapped);
	assert_int_equal(c.value.fmt, SL_FMT_PCHAIN_BLOCK);
	assert_int_not_equal(sl_container_decode(&a, SL_CONTAINER_X_BLOCK, ip, in, 0, &c, &at), SL_OK);
	assert_int_equal(at.fmt, SL_FMT_PROPOSERVM_BLOCK);
	assert_false(at.in_inner);

	/* nothing to try */
	assert_int_not_equal(sl_container_decode(&a, (sl_container_fmts){ 0, 0 }, p, n, 0, &c, &at), SL_OK);
	assert_int_equal(at.fmt, SL_FMT__COUNT);
	sl_fmt_attempt_describe(&at, line, sizeof line);
	assert_string_equal(line, "no format to try");
	sl_value v;
	sl_err_detail e;
	assert_int_equal(sl_fmt_decode(&a, SL_FMT__COUNT, p, n, 0, &v, &e), SL_ERR_INVALID);

	/* the wrapper by name: the wrapper alone, its inner block as bytes */
	assert_int_equal(sl_fmt_decode(&a, SL_FMT_PROPOSERVM_BLOCK, p, n, 0, &v, &e), SL_OK);
	assert_string_equal(sl_value_type(&v), "statelessBlock");

	/* a vertex is what X/vtx holds */
	json_t *vx = find_kind(vs, "xchain.vertex", "txIDs");
	uint8_t *vp = vec_unhex(vec_str(vx, "hex"), &n);
	assert_int_equal(sl_container_decode(&a, SL_CONTAINER_X_VERTEX, vp, n, 0, &c, &at), SL_OK);
	vec_assert_cb58(sl_value_id(&c.value), vec_str(json_object_get(vx, "expected"), "id"));
	free(vp);

	sl_arena_release(&a);
	free(p);
	json_decref(db);
}

/* The description names the format, the reason, the code and both offsets; it never overflows. */
static void test_describe(void **state)
{
	(void)state;
	sl_fmt_attempt at = {
		SL_FMT_PCHAIN_TX, { SL_ERR_TRUNCATED, "unexpected end of input", 70 }, false, 0
	};
	char line[128];
	size_t n = sl_fmt_attempt_describe(&at, line, sizeof line);
	assert_string_equal(line, "not a valid pchain.tx: unexpected end of input (truncated) at byte 70");
	assert_int_equal(n, strlen(line));
	char tiny[8];
	n = sl_fmt_attempt_describe(&at, tiny, sizeof tiny);
	assert_int_equal(n, 7);
	assert_string_equal(tiny, "not a v");
	assert_int_equal(sl_fmt_attempt_describe(&at, tiny, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_and_sets),
		cmocka_unit_test(test_every_vector_detected),
		cmocka_unit_test(test_containers),
		cmocka_unit_test(test_describe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
