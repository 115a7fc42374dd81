/*
 * test_observe.c — the indexer's reading of platform.getCurrentValidators
 * (index/observe.h): percentages as avalanchego writes them, and the fields
 * a validator must have.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "index/observe.h"

static void test_percent(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		bool ok;
		int64_t want;
	} cases[] = {
		{ "97.1600", true, 971600 },
		{ "100.0000", true, 1000000 },
		{ "0", true, 0 },
		{ "80", true, 800000 },
		{ "99.5", true, 995000 },
		{ "0.0001", true, 1 },
		{ "100.0001", false, 0 },
		{ "101", false, 0 },
		{ "", false, 0 },
		{ ".5", false, 0 },
		{ "-1", false, 0 },
		{ "1.00001", false, 0 },
		{ "1e2", false, 0 },
		{ "12345", false, 0 },
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
		int64_t m = -1;
		assert_int_equal(ix_percent_parse(cases[i].s, strlen(cases[i].s), &m), cases[i].ok);
		if (cases[i].ok)
			assert_int_equal(m, cases[i].want);
	}
}

static sl_err count(void *ctx, const ix_observation *o)
{
	int *n = ctx;
	(*n)++;
	assert_true(o->uptime >= 0 && o->uptime <= 1000000);
	return SL_OK;
}

static void test_parse(void **state)
{
	(void)state;
	char err[256];
	int n = 0;
	const char *ok =
		"{\"result\":{\"validators\":[{\"nodeID\":\"NodeID-111111111111111111116DBWJs\","
		"\"uptime\":\"97.1600\",\"connected\":true},{\"nodeID\":\"NodeID-111111111111111111116DBWJs\","
		"\"uptime\":\"12.0000\"}]}}";
	assert_int_equal(ix_observe_parse((const uint8_t *)ok, strlen(ok), count, &n, err), SL_OK);
	assert_int_equal(n, 2);
	const char *error = "{\"error\":{\"code\":-32000,\"message\":\"no\"}}";
	assert_int_equal(ix_observe_parse((const uint8_t *)error, strlen(error), count, &n, err),
			 SL_ERR_UNSUPPORTED);
	const char *bad = "{\"result\":{\"validators\":[{\"nodeID\":\"NodeID-x\",\"uptime\":\"1\"}]}}";
	assert_int_equal(ix_observe_parse((const uint8_t *)bad, strlen(bad), count, &n, err), SL_ERR_INVALID);
	assert_int_equal(ix_observe_parse((const uint8_t *)"{", 1, count, &n, err), SL_ERR_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
