/* The export request's parser (api/exports.c api_export_parse) without a server or a store: the
 * verdicts (a 400, an operation FAILED at once, a job), the dates as UTC days (leap years, the
 * deprecated fields), the chains of either network, the address kinds, the bounds. The request is
 * the one fuzz_api_*.c use (fuzz/api_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>

#include "../../fuzz/api_fixture.h"

static sl_api fuji, mainnet;

#define A0 "fuji1hq5x6xnqms5mua4xdkj7jl49ghs23tkzxmjjsn"
#define A1 "fuji1n4qkcu94rqdtltc2nuxxq6uz8c7aen843t0pj9"
#define EVM "0xcea57b154eb5237d7c5e94d4514c74055609f162"

static int setup(void **state)
{
	(void)state;
	fx_api_init(&fuji);
	fx_api_init(&mainnet);
	snprintf(mainnet.net.name, sizeof mainnet.net.name, "mainnet");
	snprintf(mainnet.net.hrp, sizeof mainnet.net.hrp, "avax");
	mainnet.net.id = 1;
	return 0;
}

static api_export_verdict parse(const sl_api *a, const char *body, api_export_req *q, char msg[256])
{
	return api_export_parse(&a->net, (const uint8_t *)body, strlen(body), q, msg);
}

/* A body that must give `v`, its message holding `words` (when not OK). */
static void expect(const sl_api *a, const char *body, api_export_verdict v, const char *words)
{
	api_export_req q;
	char msg[256];
	api_export_verdict got = parse(a, body, &q, msg);
	if (got != v)
		fail_msg("%s: verdict %d, want %d (%s)", body, got, v, msg);
	if (v == API_EXPORT_OK)
		assert_string_equal(msg, "");
	else if (!strstr(msg, words))
		fail_msg("%s: '%s' does not say '%s'", body, msg, words);
}

#define PN(extra, opts) "{\"type\":\"TRANSACTION_EXPORT_PRIMARY_NETWORK\"" extra ",\"options\":{" opts "}}"
#define P_A0 "\"includeChains\":[\"p-chain\"],\"addresses\":[\"P-" A0 "\"]"

static void test_dates(void **state)
{
	(void)state;
	api_export_req q;
	char msg[256];
	/* no dates: everything */
	assert_int_equal(parse(&fuji, PN("", P_A0), &q, msg), API_EXPORT_OK);
	assert_int_equal(q.from, 0);
	assert_int_equal(q.to, INT64_MAX);
	/* a day, both ends inclusive: 2024-02-29 00:00:00 to 2024-03-01 00:00:00 */
	assert_int_equal(parse(&fuji, PN(",\"firstDate\":\"2024-02-29\",\"lastDate\":\"2024-02-29\"", P_A0),
			       &q, msg),
			 API_EXPORT_OK);
	assert_int_equal(q.from, 1709164800);
	assert_int_equal(q.to, 1709164800 + 86400);
	/* the deprecated fields stand in; firstDate/lastDate win over them */
	assert_int_equal(parse(&fuji, PN(",\"startDate\":\"1970-01-01\",\"endDate\":\"2000-02-29\"", P_A0),
			       &q, msg),
			 API_EXPORT_OK);
	assert_int_equal(q.from, 0);
	assert_int_equal(q.to, 951782400 + 86400);
	assert_int_equal(parse(&fuji, PN(",\"firstDate\":\"2023-05-02\",\"startDate\":\"2023-05-01\"", P_A0),
			       &q, msg),
			 API_EXPORT_OK);
	assert_int_equal(q.from, 1682985600);
	/* not real days, not the format, before 1970, out of order: FAILED naming the field */
	expect(&fuji, PN(",\"firstDate\":\"2023-02-29\"", P_A0), API_EXPORT_INVALID,
	       "firstDate must be a day");
	expect(&fuji, PN(",\"lastDate\":\"2100-02-29\"", P_A0), API_EXPORT_INVALID, "lastDate must be a day");
	expect(&fuji, PN(",\"startDate\":\"1969-12-31\"", P_A0), API_EXPORT_INVALID, "startDate");
	expect(&fuji, PN(",\"endDate\":\"2023-5-1\"", P_A0), API_EXPORT_INVALID, "endDate");
	expect(&fuji, PN(",\"firstDate\":\"2023-05-01T00:00:00Z\"", P_A0), API_EXPORT_INVALID, "firstDate");
	expect(&fuji, PN(",\"firstDate\":\"2023-04-31\"", P_A0), API_EXPORT_INVALID, "firstDate");
	expect(&fuji, PN(",\"firstDate\":\"2023-05-02\",\"lastDate\":\"2023-05-01\"", P_A0),
	       API_EXPORT_INVALID, "firstDate must not be after lastDate");
	expect(&fuji, PN(",\"startDate\":\"2023-05-02\",\"endDate\":\"2023-05-01\"", P_A0),
	       API_EXPORT_INVALID, "startDate must not be after endDate");
	/* not strings: the schema's (400) */
	expect(&fuji, PN(",\"firstDate\":null", P_A0), API_EXPORT_BAD_BODY, "firstDate must be a string");
}

static void test_chains(void **state)
{
	(void)state;
	api_export_req q;
	char msg[256];
	assert_int_equal(
		parse(&fuji,
		      PN("",
			 "\"includeChains\":[\"11111111111111111111111111111111LpoYY\","
			 "\"2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm\",\"c-chain\",\"c-chain\"],"
			 "\"addresses\":[\"" A0 "\"]"),
		      &q, msg),
		API_EXPORT_OK);
	assert_int_equal(q.chains, API_ALL_CHAINS);
	/* the other network's ids: FAILED; outside the enum: 400 */
	expect(&fuji,
	       PN("",
		  "\"includeChains\":[\"2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5\"],\"addresses\":[\"" A0
		  "\"]"),
	       API_EXPORT_INVALID, "is a chain of mainnet; this store holds fuji");
	expect(&mainnet,
	       "{\"type\":\"TRANSACTION_EXPORT_PRIMARY_NETWORK\",\"options\":{\"includeChains\":"
	       "[\"yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp\"],\"addresses\":[\"avax1hq5x6xnqms5mua4xdkj7jl49ghs23tkz9gqq4e\"]}}",
	       API_EXPORT_INVALID, "is a chain of fuji; this store holds mainnet");
	expect(&fuji, PN("", "\"includeChains\":[\"P\"],\"addresses\":[\"" A0 "\"]"), API_EXPORT_BAD_BODY,
	       "options.includeChains[0] must be p-chain");
	expect(&fuji, PN("", "\"includeChains\":[],\"addresses\":[\"" A0 "\"]"), API_EXPORT_INVALID,
	       "name at least one chain");
	expect(&fuji, PN("", "\"addresses\":[\"" A0 "\"]"), API_EXPORT_BAD_BODY,
	       "options.includeChains is required");
	/* EVM ids: decimal numbers that fit 64 bits, none twice */
	assert_int_equal(
		parse(&fuji,
		      "{\"type\":\"TRANSACTION_EXPORT_EVM\",\"options\":{\"includeChains\":[\"43114\",\"43114\","
		      "\"18446744073709551615\"],\"addresses\":[\"" EVM "\"]}}",
		      &q, msg),
		API_EXPORT_INVALID); /* 20 digits: more than this server takes */
	assert_int_equal(
		parse(&fuji,
		      "{\"type\":\"TRANSACTION_EXPORT_EVM\",\"options\":{\"includeChains\":[\"43114\",\"43114\","
		      "\"1000000000000000000\"],\"addresses\":[\"" EVM "\"]}}",
		      &q, msg),
		API_EXPORT_OK);
	assert_int_equal(q.nevm, 2);
	assert_true(q.evm[0] == 43114 && q.evm[1] == 1000000000000000000ull);
	assert_int_equal(q.chains, 0);
	expect(&fuji,
	       "{\"type\":\"TRANSACTION_EXPORT_EVM\",\"options\":{\"includeChains\":[\"043114\"],\"addresses\":[\"" EVM
	       "\"]}}",
	       API_EXPORT_INVALID, "is not an EVM chain id");
}

static void test_addresses(void **state)
{
	(void)state;
	api_export_req q;
	char msg[256];
	/* prefixes optional, the same address once, EVM ones from cChainEvmAddresses */
	assert_int_equal(parse(&fuji,
			       PN("", "\"includeChains\":[\"x-chain\"],\"addresses\":[\"X-" A0 "\",\"" A0
				      "\",\"C-" A1 "\"],\"cChainEvmAddresses\":[\"" EVM "\"]"),
			       &q, msg),
			 API_EXPORT_OK);
	assert_int_equal(q.naddrs, 3);
	assert_false(q.addrs[0].evm);
	assert_false(q.addrs[1].evm);
	assert_true(q.addrs[2].evm);
	expect(&fuji, PN("", "\"includeChains\":[\"x-chain\"],\"addresses\":[\"" EVM "\"]"),
	       API_EXPORT_INVALID, "options.addresses[0]");
	expect(&fuji, PN("", "\"includeChains\":[\"x-chain\"],\"cChainEvmAddresses\":[\"" A0 "\"]"),
	       API_EXPORT_INVALID, "it is not an EVM address");
	expect(&fuji,
	       PN("",
		  "\"includeChains\":[\"x-chain\"],\"addresses\":[\"avax1hq5x6xnqms5mua4xdkj7jl49ghs23tkz9gqq4e\"]"),
	       API_EXPORT_INVALID, "options.addresses[0]");
	expect(&fuji, PN("", "\"includeChains\":[\"x-chain\"],\"addresses\":[]"), API_EXPORT_INVALID,
	       "give at least one address");
	expect(&fuji,
	       "{\"type\":\"TRANSACTION_EXPORT_EVM\",\"options\":{\"includeChains\":[\"1\"],\"addresses\":[\"" A0
	       "\"]}}",
	       API_EXPORT_INVALID, "it is not an EVM address");
	/* 64 at most (counted in the array: a 400), and 64 distinct ones taken */
	char body[8192];
	size_t n = (size_t)snprintf(
		body, sizeof body, "%s",
		"{\"type\":\"TRANSACTION_EXPORT_EVM\",\"options\":{\"includeChains\":[\"1\"],\"addresses\":[");
	for (int i = 0; i < 65; i++)
		n += (size_t)snprintf(body + n, sizeof body - n, "%s\"0x%040x\"", i ? "," : "", i + 1);
	snprintf(body + n, sizeof body - n, "]}}");
	expect(&fuji, body, API_EXPORT_BAD_BODY, "options.addresses takes at most 64 items");
	char *cut = strrchr(body, ',');
	snprintf(cut, 8, "]}}");
	assert_int_equal(parse(&fuji, body, &q, msg), API_EXPORT_OK);
	assert_int_equal(q.naddrs, 64);
}

static void test_body(void **state)
{
	(void)state;
	expect(&fuji, "", API_EXPORT_BAD_BODY, "the body must be JSON");
	expect(&fuji, "[]", API_EXPORT_BAD_BODY, "a JSON object");
	expect(&fuji, "{} x", API_EXPORT_BAD_BODY, "nothing after it");
	expect(&fuji, "{\"type\":\"TRANSACTION_EXPORT_EVM\xc3\"}", API_EXPORT_BAD_BODY,
	       "the body must be UTF-8");
	expect(&fuji, "{\"options\":{}}", API_EXPORT_BAD_BODY, "type is required");
	expect(&fuji, "{\"type\":\"transaction_export_evm\",\"options\":{}}", API_EXPORT_BAD_BODY,
	       "type must be one of");
	expect(&fuji, "{\"type\":\"TRANSACTION_EXPORT_EVM\"}", API_EXPORT_BAD_BODY, "options is required");
	expect(&fuji, "{\"type\":\"TRANSACTION_EXPORT_EVM\",\"options\":[]}", API_EXPORT_BAD_BODY,
	       "options must be an object");
	expect(&fuji, "{\"type\":\"TRANSACTION_EXPORT_EVM\",\"options\":{\"includeChains\":[\"1\"]}}",
	       API_EXPORT_BAD_BODY, "options.addresses is required");
	expect(&fuji, PN(",\"x\":1", P_A0), API_EXPORT_BAD_BODY, "unknown property \"x\"");
	/* escapes are read as JSON reads them */
	expect(&fuji,
	       "{\"\\u0074ype\":\"TRANSACTION_EXPORT_PRIMARY_NETWORK_\\u0053TAKING\",\"options\":{" P_A0 "}}",
	       API_EXPORT_OK, "");
	/* every type name */
	for (int i = 0; api_export_type_names[i]; i++) {
		char b[512];
		bool evm = !strcmp(api_export_type_names[i], "TRANSACTION_EXPORT_EVM");
		snprintf(b, sizeof b,
			 "{\"type\":\"%s\",\"options\":{\"includeChains\":[\"%s\"],\"addresses\":[\"%s\"]}}",
			 api_export_type_names[i], evm ? "1" : "p-chain", evm ? EVM : A0);
		api_export_req q;
		char msg[256];
		assert_int_equal(parse(&fuji, b, &q, msg), API_EXPORT_OK);
		assert_int_equal(q.type, i);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dates),
		cmocka_unit_test(test_chains),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_body),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
