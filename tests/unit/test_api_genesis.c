/* A chain's genesis as GET …/subnets shows it (api/genesis.c): which bytes become the object form
 * (an EVM genesis whose EvmGenesisDto fields have the DTO's types), which the string form (any other
 * JSON), which nothing (not JSON, too large); evmChainId from config.chainId; the object written
 * anew (escapes resolved and made again, whitespace gone, unknown keys kept, invalid UTF-8 replaced). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/internal.h"

static sl_buf scratch;

#define EVM_CONFIG \
	"\"config\":{\"chainId\":94044,\"feeConfig\":{\"gasLimit\":8000000},\"durangoTimestamp\":0}"

static api_genesis read_s(const char *s)
{
	api_genesis g;
	api_genesis_read((const uint8_t *)s, strlen(s), &g, &scratch);
	return g;
}

/* What the handler writes for s (inside an array, as a writer's value needs a container). */
static char *written(const char *s)
{
	api_genesis g = read_s(s);
	sl_buf out;
	sl_buf_init(&out, 1u << 24);
	sl_jw w;
	sl_jw_init(&w, &out);
	sl_jw_arr(&w);
	api_genesis_write(&w, (const uint8_t *)s, strlen(s), &g, &scratch);
	sl_jw_arr_end(&w);
	assert_false(out.err);
	char *r = strdup(sl_buf_str(&out));
	sl_buf_release(&out);
	return r;
}

static void expect_written(const char *in, const char *want)
{
	char *got = written(in);
	bool same = !strcmp(got, want);
	if (!same)
		print_error("written %s, want %s\n", got, want);
	free(got);
	assert_true(same);
}

static void test_forms(void **state)
{
	(void)state;
	api_genesis g =
		read_s("{" EVM_CONFIG ",\"alloc\":{\"ab\":{\"balance\":\"0x1\"}},\"gasLimit\":\"0x7a1200\"}");
	assert_int_equal(g.form, API_GENESIS_OBJECT);
	assert_true(g.has_chain_id);
	assert_int_equal(g.chain_id, 94044);
	/* a field of another type than the DTO's: the SDK would refuse the page, so the text */
	g = read_s("{" EVM_CONFIG ",\"gasLimit\":8000000}");
	assert_int_equal(g.form, API_GENESIS_STRING);
	assert_true(g.has_chain_id); /* evmChainId is shown all the same */
	g = read_s("{" EVM_CONFIG ",\"alloc\":{\"ab\":{\"storage\":{\"0x0\":1}}}}");
	assert_int_equal(g.form, API_GENESIS_STRING);
	g = read_s("{" EVM_CONFIG ",\"alloc\":{\"ab\":[]}}");
	assert_int_equal(g.form, API_GENESIS_STRING);
	g = read_s("{\"config\":{\"chainId\":1,\"warpConfig\":{\"requirePrimaryNetworkSigners\":1}}}");
	assert_int_equal(g.form, API_GENESIS_STRING);
	g = read_s("{\"config\":{\"chainId\":1,\"txAllowListConfig\":{\"adminAddresses\":[\"0x1\",2]}}}");
	assert_int_equal(g.form, API_GENESIS_STRING);
	/* null only where the DTO allows it */
	assert_int_equal(read_s("{" EVM_CONFIG ",\"baseFeePerGas\":null,\"airdropAmount\":null}").form,
			 API_GENESIS_OBJECT);
	assert_int_equal(read_s("{" EVM_CONFIG ",\"alloc\":null}").form, API_GENESIS_STRING);
	assert_int_equal(read_s("{" EVM_CONFIG ",\"nonce\":null}").form, API_GENESIS_STRING);
	/* a key repeated: every occurrence must fit (a client keeps the last) */
	assert_int_equal(read_s("{" EVM_CONFIG ",\"nonce\":\"0x0\",\"nonce\":0}").form, API_GENESIS_STRING);
	/* keys are compared as a client reads them */
	g = read_s("{\"\\u0063onfig\":{\"chain\\u0049d\":7},\"n\\u006fnce\":5}");
	assert_int_equal(g.form, API_GENESIS_STRING);
	assert_true(g.has_chain_id);
	assert_int_equal(g.chain_id, 7);
	/* not an EVM genesis (no config.chainId, or not an integer): its text; nothing the SDK would empty */
	g = read_s("{\"data\":\"aGVsbG8=\"}");
	assert_int_equal(g.form, API_GENESIS_STRING);
	assert_false(g.has_chain_id);
	assert_false(read_s("{\"config\":{\"chainId\":1.5}}").has_chain_id);
	assert_false(read_s("{\"config\":{\"chainId\":-1}}").has_chain_id);
	assert_false(read_s("{\"config\":{\"chainId\":\"1\"}}").has_chain_id);
	assert_false(read_s("{\"config\":{\"chainId\":18446744073709551616}}").has_chain_id);
	g = read_s("{\"config\":{\"chainId\":18446744073709551615}}");
	assert_true(g.has_chain_id);
	assert_true(g.chain_id == UINT64_MAX);
	/* the last config counts */
	assert_false(read_s("{\"config\":{\"chainId\":1},\"config\":{}}").has_chain_id);
	/* other JSON */
	assert_int_equal(read_s("[1,2]").form, API_GENESIS_STRING);
	assert_false(read_s("[{\"config\":{\"chainId\":1}}]").has_chain_id);
	assert_int_equal(read_s(" \"text\"\n").form, API_GENESIS_STRING);
	assert_int_equal(read_s("12").form, API_GENESIS_STRING);
	/* not JSON: nothing */
	assert_int_equal(read_s("").form, API_GENESIS_NONE);
	assert_int_equal(read_s("genesis").form, API_GENESIS_NONE);
	assert_int_equal(read_s("{\"config\":").form, API_GENESIS_NONE);
	assert_int_equal(read_s("{} {}").form, API_GENESIS_NONE);
	assert_int_equal(read_s("{}x").form, API_GENESIS_NONE);
}

static void test_bounds(void **state)
{
	(void)state;
	/* nested API_GENESIS_DEPTH deep: the object; one more: the text */
	char deep[256];
	for (int d = API_GENESIS_DEPTH; d <= API_GENESIS_DEPTH + 1; d++) {
		int n = snprintf(deep, sizeof deep, "{\"config\":{\"chainId\":1},\"x\":");
		for (int i = 0; i < d - 1; i++)
			deep[n++] = '[';
		for (int i = 0; i < d - 1; i++)
			deep[n++] = ']';
		deep[n++] = '}';
		deep[n] = 0;
		/* the root is one level: d levels in all */
		assert_int_equal(read_s(deep).form,
				 d <= API_GENESIS_DEPTH ? API_GENESIS_OBJECT : API_GENESIS_STRING);
	}
	/* API_GENESIS_MAX bytes are shown; one more are not */
	size_t n = API_GENESIS_MAX;
	char *big = malloc(n + 2);
	memset(big, ' ', n + 1);
	memcpy(big, "{\"config\":{\"chainId\":1}}", 24);
	big[n] = 0;
	assert_int_equal(read_s(big).form, API_GENESIS_OBJECT);
	big[n] = ' ';
	big[n + 1] = 0;
	assert_int_equal(read_s(big).form, API_GENESIS_NONE);
	free(big);
}

static void test_written(void **state)
{
	(void)state;
	/* the object anew: whitespace gone, escapes resolved and made again as Go makes them, numbers as
	 * they were, unknown keys kept in their order */
	expect_written(
		"{ \"config\" : {\"chainId\": 94044, \"durangoTimestamp\" : 1e3},\n \"k\\u00e9y\": \"a\\/b<\\u0041>\","
		" \"n\": [1.50, -0, true, false, null, {}] }",
		"[{\"config\":{\"chainId\":94044,\"durangoTimestamp\":1e3},\"k\xc3\xa9y\":\"a/b\\u003cA\\u003e\","
		"\"n\":[1.50,-0,true,false,null,{}]}]");
	/* invalid UTF-8 in a string of the object: U+FFFD */
	expect_written("{\"config\":{\"chainId\":1},\"x\":\"\xff\"}",
		       "[{\"config\":{\"chainId\":1},\"x\":\"\xef\xbf\xbd\"}]");
	/* the string form: the bytes as the tx holds them, as a JSON string */
	expect_written(" [1, 2]\n", "[\" [1, 2]\\n\"]");
	expect_written("{\"config\":{\"chainId\":1},\"gasLimit\":5}",
		       "[\"{\\\"config\\\":{\\\"chainId\\\":1},\\\"gasLimit\\\":5}\"]");
	/* nothing */
	expect_written("nope", "[]");
}

int main(void)
{
	sl_buf_init(&scratch, API_GENESIS_SCRATCH);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_written),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	sl_buf_release(&scratch);
	return rc;
}
