/*
 * test_rewards.c — the staking reward formula (codec/rewards.h) against every case of
 * tests/vectors/rewards.json (avalanchego's calculator tests and the
 * Split rule).
 *
 * The file is read with the in-place JSON reader, not jansson, because some
 * expected values (2^64 - 1 and neighbours) do not fit a signed 64-bit int.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "codec/rewards.h"
#include "util/buf.h"
#include "util/jsonv.h"

static const sl_reward_config mainnet = {
	.max_consumption_rate = 120000,
	.min_consumption_rate = 100000,
	.minting_period_s = 365ull * 24 * 3600,
	.supply_cap = 720000000000000000ull,
};

static char *load(size_t *n)
{
	const char *dirs[] = { getenv("SNOWLINE_VECTORS"), "tests/vectors" };
	for (size_t i = 0; i < SL_ARRAY_LEN(dirs); i++) {
		if (!dirs[i])
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/rewards.json", dirs[i]);
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		sl_buf b;
		sl_buf_init(&b, 1u << 24);
		char tmp[4096];
		size_t k;
		while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
			sl_buf_add(&b, tmp, k);
		fclose(f);
		return (char *)sl_buf_detach(&b, n);
	}
	return NULL;
}

/* The value of key `name` (raw, with quotes in the file) in object `obj`. */
static sl_span get(sl_span obj, const char *name)
{
	char quoted[128];
	snprintf(quoted, sizeof quoted, "\"%s\"", name);
	sl_jiter it;
	sl_span k, v;
	sl_json_iter_init(&it, obj);
	while (sl_json_obj_next(&it, &k, &v))
		if (sl_span_eq(k, quoted))
			return v;
	return (sl_span){ 0 };
}

static uint64_t num(sl_span obj, const char *name)
{
	sl_span v = get(obj, name);
	assert_non_null(v.p);
	char tmp[32];
	assert_true(v.len < sizeof tmp);
	memcpy(tmp, v.p, v.len);
	tmp[v.len] = 0;
	char *end;
	unsigned long long x = strtoull(tmp, &end, 10);
	assert_true(end == tmp + v.len);
	return x;
}

static void test_vectors(void **state)
{
	(void)state;
	size_t n = 0;
	char *text = load(&n);
	assert_non_null(text);
	size_t s, e;
	char msg[128];
	assert_int_equal(sl_json_scan(text, n, &s, &e, msg), SL_OK);
	sl_span root = sl_span_of(text + s, e - s);

	sl_jiter it;
	sl_span v;
	int ncalc = 0, nsplit = 0;
	sl_json_iter_init(&it, get(root, "calculate_cases"));
	while (sl_json_arr_next(&it, &v)) {
		uint64_t got = sl_reward_calculate(&mainnet, num(v, "stakedDuration_seconds"),
						   num(v, "stakedAmount_nAVAX"),
						   num(v, "currentSupply_nAVAX"));
		assert_int_equal(got, num(v, "expectedReward_nAVAX"));
		ncalc++;
	}
	sl_json_iter_init(&it, get(root, "split_cases"));
	while (sl_json_arr_next(&it, &v)) {
		uint64_t fee, rest;
		sl_reward_split(num(v, "totalReward"), (uint32_t)num(v, "shares"), &fee, &rest);
		assert_int_equal(fee, num(v, "expected_amountFromShares"));
		assert_int_equal(rest, num(v, "expected_remainder"));
		nsplit++;
	}
	assert_int_equal(ncalc, 9);
	assert_int_equal(nsplit, 5);
	free(text);
}

/* Edge cases the generator can reach: supply at or past the cap, zero stake, the cap clamp. */
static void test_edges(void **state)
{
	(void)state;
	assert_int_equal(sl_reward_calculate(&mainnet, 86400, 1000, 0), 0);
	assert_int_equal(sl_reward_calculate(&mainnet, 86400, 1000, mainnet.supply_cap), 0);
	assert_int_equal(sl_reward_calculate(&mainnet, 86400, 0, 360000000000000000ull), 0);
	/* A stake far above the supply is clamped to what remains under the cap. */
	uint64_t supply = mainnet.supply_cap - 5;
	assert_int_equal(sl_reward_calculate(&mainnet, 365ull * 86400, UINT64_MAX, supply), 5);
	/* Monotone in duration and stake. */
	uint64_t a = sl_reward_calculate(&mainnet, 14 * 86400, 2000000000000ull, 400000000000000000ull);
	uint64_t b = sl_reward_calculate(&mainnet, 28 * 86400, 2000000000000ull, 400000000000000000ull);
	uint64_t c = sl_reward_calculate(&mainnet, 28 * 86400, 4000000000000ull, 400000000000000000ull);
	assert_true(a > 0 && a < b && b < c);
	uint64_t fee, rest;
	sl_reward_split(1000, 0, &fee, &rest);
	assert_int_equal(fee, 0);
	assert_int_equal(rest, 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
