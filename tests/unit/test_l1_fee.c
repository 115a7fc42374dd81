/*
 * test_l1_fee.c — ACP-77's continuous fee (codec/l1.h) against the cases of
 * avalanchego's own tests: vms/components/gas/gas_test.go (CalculatePrice)
 * and vms/platformvm/validators/fee/fee_test.go (CostOf, AdvanceTime; minPrice
 * 2,048, target 10,000, K = 10,000 · 86,400 / ln 2, a doubling a day).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "codec/l1.h"

static void test_price(void **state)
{
	(void)state;
	static const struct {
		uint64_t min_price, excess, k, want;
	} cases[] = {
		{ 1, 0, 1, 1 },
		{ 1, 1, 1, 2 },
		{ 1, 2, 1, 6 },
		{ 1, 10000, 10000, 2 },
		{ 1, 1000000, 10000, UINT64_MAX },
		{ 10, 10000000, 1000000, 220264 },
		{ UINT64_MAX, UINT64_MAX, 1, UINT64_MAX },
		{ UINT32_MAX, 1, 1, 11674931546ull },
		{ 6786177901268885274ull, 1, 1, UINT64_MAX - 11 },
		{ 6786177901268885274ull, UINT64_MAX, UINT64_MAX, UINT64_MAX - 1 },
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++)
		assert_int_equal(sl_gas_price(cases[i].min_price, cases[i].excess, cases[i].k),
				 cases[i].want);
	assert_int_equal(sl_gas_price(512, 5, 0), 0);
}

#define MINUTE 60ull
#define HOUR (60 * MINUTE)
#define DAY (24 * HOUR)
#define WEEK (7 * DAY)

static void test_cost(void **state)
{
	(void)state;
	const sl_l1_fee_config c = { 20000, 10000, 2048, 1246488515 };
	static const struct {
		uint64_t current, excess, seconds, cost, excess_after;
	} cases[] = {
		{ 10, 0, MINUTE, 122880, 0 },
		{ 10000, 0, MINUTE, 122880, 0 },
		{ 10000, 10000 * DAY, MINUTE, 245760, 10000 * DAY },
		{ 10000, 1246488515, MINUTE, 334020, 1246488515 },
		{ 15000, 0, MINUTE, 122880, 5000 * MINUTE },
		{ 9000, 6 * HOUR * 1000, DAY, 177321939, 0 },
		{ 10000, 1246488515, DAY, 480988800, 1246488515 },
		{ 15000, 0, DAY, 211438809, 5000 * DAY },
		{ 10000, 0, WEEK, 1238630400, 0 },
		{ 15000, 0, WEEK, 5265492669ull, 5000 * WEEK },
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
		sl_l1_fee_state s = { cases[i].current, cases[i].excess };
		assert_int_equal(sl_l1_fee_cost(s, &c, cases[i].seconds), cases[i].cost);
		assert_int_equal(sl_l1_fee_advance(s, c.target, cases[i].seconds).excess,
				 cases[i].excess_after);
	}
	/* no overflow: current far above a zero target */
	const sl_l1_fee_config z = { 20000, 0, 2048, 1246488515 };
	sl_l1_fee_state s = { UINT64_MAX, 1 };
	assert_int_equal(sl_l1_fee_cost(s, &z, 1), UINT64_MAX);
	assert_int_equal(sl_l1_fee_advance(s, 0, 1).excess, UINT64_MAX);
}

static void test_networks(void **state)
{
	(void)state;
	sl_l1_fee_config c;
	assert_true(sl_l1_fee_config_of(1, &c));
	assert_int_equal(c.min_price, 512);
	assert_int_equal(c.excess_k, 1246488515);
	assert_true(sl_l1_fee_config_of(5, &c));
	assert_int_equal(c.excess_k, 51937021);
	assert_false(sl_l1_fee_config_of(7, &c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_price),
		cmocka_unit_test(test_cost),
		cmocka_unit_test(test_networks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
