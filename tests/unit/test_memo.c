/*
 * test_memo.c — the indexer writer's memory (index/memo.h): the locations of
 * UTXOs across generations, and the table of UTXOs pending in a transaction,
 * at sizes past its first table and past the generations' slot count (ids
 * that agree in the bits the generations hash on must still spread).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "crypto/hash.h"
#include "index/memo.h"

/* An id as the chain makes them: a hash. */
static void id_of(uint32_t k, uint8_t id[32])
{
	uint8_t in[4] = { (uint8_t)(k >> 24), (uint8_t)(k >> 16), (uint8_t)(k >> 8), (uint8_t)k };
	sl_sha256(in, sizeof in, id);
}

static void test_locations(void **state)
{
	(void)state;
	ix_memo m;
	assert_true(ix_memo_init(&m));
	uint8_t id[32], other[32];
	id_of(1, id);
	id_of(2, other);
	ix_loc l = { .chain = 1, .dest = 2, .naddrs = 1, .pos = 77, .ts = 5 }, got;
	memset(l.addrs, 0xab, 20);
	ix_memo_put(&m, id, &l);
	assert_true(ix_memo_peek(&m, id, &got));
	assert_int_equal(got.pos, 77);
	assert_int_equal(got.dest, 2);
	assert_false(ix_memo_peek(&m, other, &got));
	assert_true(ix_memo_take(&m, id, &got));
	assert_false(ix_memo_peek(&m, id, &got));
	/* too many owners to remember: a miss, which the writer turns into a question to the store */
	l.naddrs = IX_LOC_ADDRS + 1;
	ix_memo_put(&m, other, &l);
	assert_false(ix_memo_peek(&m, other, &got));
	/* two generations and a half later the oldest are gone, the newer ones still there */
	l.naddrs = 0;
	uint32_t n = (uint32_t)(IX_MEMO_SLOTS / 2 * 5 / 2);
	for (uint32_t k = 0; k < n; k++) {
		id_of(100 + k, id);
		l.pos = k;
		ix_memo_put(&m, id, &l);
	}
	id_of(100, id);
	assert_false(ix_memo_peek(&m, id, &got));
	id_of(100 + n - 1, id);
	assert_true(ix_memo_peek(&m, id, &got));
	assert_int_equal(got.pos, n - 1);
	ix_memo_forget(&m);
	assert_false(ix_memo_peek(&m, id, &got));
	ix_memo_release(&m);
}

static void test_pending(void **state)
{
	(void)state;
	ix_memo m;
	assert_true(ix_memo_init(&m));
	uint8_t id[32];
	/* more than the generations hash over, so that a table keyed on their bits alone would pile
	 * every id into its first quarter */
	uint32_t n = (uint32_t)IX_MEMO_SLOTS * 2 + 12345;
	for (int round = 0; round < 3; round++) {
		for (uint32_t k = 0; k < n; k++) {
			ix_out u = { .pos = k, .idx = (uint32_t)round };
			id_of(k, u.id);
			ix_pend *p = ix_memo_pend_add(&m, &u);
			assert_non_null(p);
			assert_false(p->spent);
		}
		assert_int_equal(m.npend, n);
		for (uint32_t k = 0; k < n; k += 7) {
			id_of(k, id);
			ix_pend *p = ix_memo_pend_find(&m, id);
			assert_non_null(p);
			assert_int_equal(p->out.pos, k);
			p->spent = true;
		}
		/* made again: the newer columns, the spend kept, no second record */
		ix_out again = { .pos = 7, .idx = 99 };
		id_of(7, again.id);
		ix_pend *p = ix_memo_pend_add(&m, &again);
		assert_int_equal(p->out.idx, 99);
		assert_true(p->spent);
		assert_int_equal(m.npend, n);
		id_of(n + 1, id);
		assert_null(ix_memo_pend_find(&m, id));
		/* cleared: nothing found, and the table takes the next transaction's again */
		if (round == 1)
			ix_memo_forget(&m);
		else
			ix_memo_pend_clear(&m);
		assert_int_equal(m.npend, 0);
		for (uint32_t k = 0; k < n; k += 1001) {
			id_of(k, id);
			assert_null(ix_memo_pend_find(&m, id));
		}
	}
	/* a small transaction after a large one finds only its own */
	ix_out u = { .pos = 1 };
	id_of(5, u.id);
	assert_non_null(ix_memo_pend_add(&m, &u));
	assert_non_null(ix_memo_pend_find(&m, u.id));
	id_of(6, id);
	assert_null(ix_memo_pend_find(&m, id));
	ix_memo_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_locations),
		cmocka_unit_test(test_pending),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
