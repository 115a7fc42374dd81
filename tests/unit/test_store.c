/* The LMDB container index: append order, dedupe, reopen, meta. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>

#include "crypto/hash.h"
#include "store/containers.h"

static char dir[] = "/tmp/snowline-test-store-XXXXXX";

static sl_container make(int i, uint8_t *mem)
{
	sl_container c = { .ts_ns = 1000 + i, .bytes = mem, .len = 10 + (size_t)i };
	for (size_t k = 0; k < c.len; k++)
		mem[k] = (uint8_t)(i * 7 + k);
	sl_sha256(mem, c.len, c.id);
	return c;
}

static void test_append_and_read(void **state)
{
	char err[256];
	assert_non_null(mkdtemp(dir));
	sl_cstore *s = sl_cstore_open(dir, err);
	assert_non_null(s);
	uint8_t mem[5][64];
	sl_container cs[5];
	for (int i = 0; i < 5; i++)
		cs[i] = make(i, mem[i]);
	size_t added = 0;
	assert_int_equal(sl_cstore_append(s, SL_IDX_X_TX, cs, 3, &added, NULL), SL_OK);
	assert_int_equal(added, 3);
	/* Re-appending known ids is a no-op; the new ones continue the sequence. */
	assert_int_equal(sl_cstore_append(s, SL_IDX_X_TX, cs + 1, 4, &added, NULL), SL_OK);
	assert_int_equal(added, 2);
	sl_cstore_close(s);

	s = sl_cstore_open(dir, err); /* data survives reopen */
	assert_non_null(s);
	sl_cstore_rd *rd;
	assert_int_equal(sl_cstore_rd_begin(s, &rd), SL_OK);
	uint64_t n;
	assert_int_equal(sl_cstore_count(rd, SL_IDX_X_TX, &n), SL_OK);
	assert_int_equal(n, 5);
	assert_int_equal(sl_cstore_count(rd, SL_IDX_P_BLOCK, &n), SL_OK);
	assert_int_equal(n, 0);
	for (int i = 0; i < 5; i++) {
		sl_container c;
		assert_int_equal(sl_cstore_get(rd, SL_IDX_X_TX, (uint64_t)i, &c), SL_OK);
		assert_memory_equal(c.id, cs[i].id, 32);
		assert_int_equal(c.len, cs[i].len);
		assert_memory_equal(c.bytes, cs[i].bytes, c.len);
		assert_int_equal(c.ts_ns, cs[i].ts_ns);
		uint64_t idx;
		assert_int_equal(sl_cstore_index_of(rd, SL_IDX_X_TX, cs[i].id, &idx), SL_OK);
		assert_int_equal(idx, (uint64_t)i);
		assert_int_equal(sl_cstore_find(rd, SL_IDX_X_TX, cs[i].id, &c), SL_OK);
		assert_int_equal(c.index, (uint64_t)i);
	}
	sl_container c;
	assert_int_equal(sl_cstore_get(rd, SL_IDX_X_TX, 5, &c), SL_ERR_NOT_FOUND);
	assert_int_equal(sl_cstore_find(rd, SL_IDX_X_BLOCK, cs[0].id, &c), SL_ERR_NOT_FOUND);
	sl_cstore_rd_end(rd);

	uint8_t v[16];
	size_t len;
	assert_int_equal(sl_cstore_meta_get(s, "k", v, sizeof v, &len), SL_ERR_NOT_FOUND);
	assert_int_equal(sl_cstore_meta_put(s, "k", "abc", 3), SL_OK);
	assert_int_equal(sl_cstore_meta_get(s, "k", v, sizeof v, &len), SL_OK);
	assert_int_equal(len, 3);
	assert_int_equal(sl_cstore_meta_del(s, "k"), SL_OK);
	assert_int_equal(sl_cstore_meta_get(s, "k", v, sizeof v, &len), SL_ERR_NOT_FOUND);
	sl_cstore_close(s);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_kinds(void **state)
{
	sl_ikind k;
	assert_true(sl_ikind_parse("X/vtx", &k));
	assert_int_equal(k, SL_IDX_X_VTX);
	assert_false(sl_ikind_parse("X/vertex", &k));
	assert_string_equal(sl_ikind_chain(SL_IDX_C_BLOCK), "C");
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_append_and_read),
					    cmocka_unit_test(test_kinds) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
