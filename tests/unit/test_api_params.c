/* The Data API's parameter parser (api/params.c) on the real route table: every kind of value,
 * good and bad, the query string's escapes and repeats, the POST body, list identities. Each
 * failure is a 400 whose ErrorBody names the parameter. The request is the one fuzz_api_*.c use
 * (fuzz/api_fixture.h): no server, no store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>

#include "../../fuzz/api_fixture.h"
#include "crypto/addr.h"
#include "store/prices.h"

static sl_api api;

#define A0 "fuji1hq5x6xnqms5mua4xdkj7jl49ghs23tkzxmjjsn"
#define A1 "fuji1n4qkcu94rqdtltc2nuxxq6uz8c7aen843t0pj9"
#define AVAX "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK"
#define NODE "NodeID-KScqfi7E6a1geyMqHTQCooC7wQMhu4s7r"

/* Parse `query` (and body) on route `name`; the fixture is left for the caller to inspect and end. */
static bool parse(api_fixture *f, const char *name, const char *query, const char *body)
{
	const api_route *rt = fx_route(name);
	assert_non_null(rt);
	f->api = api;
	fx_begin(f, rt, query, (const uint8_t *)body, body ? strlen(body) : 0,
		 strstr(rt->path, "{assetId}") ? AVAX : NULL, strstr(rt->path, "{nodeId}") ? NODE : NULL);
	return api_params_parse(&f->r);
}

/* The value of parameter `name` after a parse. */
static const api_val *val(api_fixture *f, const char *name)
{
	int i = fx_param(f, name);
	assert_true(i >= 0);
	return &f->r.v[i];
}

/* A query that must succeed. */
static void ok(const char *name, const char *query, const char *body)
{
	api_fixture f;
	if (!parse(&f, name, query, body))
		fail_msg("%s ?%s: refused: %s", name, query, sl_buf_str(&f.resp.body));
	fx_end(&f);
}

/* A query that must fail with `status`, its message holding each of the words in `names` ("a|b"). */
static void bad(const char *name, const char *query, const char *body, int status, const char *names)
{
	api_fixture f;
	if (parse(&f, name, query, body))
		fail_msg("%s ?%s (body %s): taken", name, query, body ? body : "-");
	assert_int_equal(f.r.status, status);
	assert_int_equal(f.resp.status, status);
	const char *b = sl_buf_str(&f.resp.body);
	char want[64];
	snprintf(want, sizeof want, "\"statusCode\":%d", status);
	if (strncmp(b, "{\"message\":\"", 12) || !strstr(b, want) || !strstr(b, "\"error\":\"Bad Request\""))
		fail_msg("%s ?%s: not an ErrorBody: %s", name, query, b);
	char words[256];
	snprintf(words, sizeof words, "%s", names);
	for (char *w = strtok(words, "|"); w; w = strtok(NULL, "|"))
		if (!strstr(b, w))
			fail_msg("%s ?%s: the message does not name '%s': %s", name, query, w, b);
	fx_end(&f);
}

static void test_integers(void **state)
{
	(void)state;
	api_fixture f;
	assert_true(parse(&f, "vertices", "", NULL));
	assert_false(val(&f, "pageSize")->set);
	assert_int_equal(val(&f, "pageSize")->i, 10); /* the default */
	fx_end(&f);
	assert_true(parse(&f, "vertices", "pageSize=100", NULL));
	assert_int_equal(val(&f, "pageSize")->i, 100);
	fx_end(&f);
	ok("utxos:post", "pageSize=1024", "{\"addresses\":\"" A0 "\"}");
	bad("utxos:post", "pageSize=1025", "{\"addresses\":\"" A0 "\"}", 400, "pageSize|1024");
	for (const char *const *v = (const char *const[]){ "0", "101", "-1", "abc", "1.5", "", "1e3", "0x10",
							   "+1", " 1", "1 ", "99999999999999999999", NULL };
	     *v; v++) {
		char q[64];
		snprintf(q, sizeof q, "pageSize=%s", *v);
		bad("vertices", q, NULL, 400, "pageSize");
	}
	ok("transactions", "addresses=" A0 "&startTimestamp=0&endTimestamp=9223372036854775807", NULL);
	bad("transactions", "addresses=" A0 "&startTimestamp=9223372036854775808", NULL, 400,
	    "startTimestamp");
	bad("transactions", "addresses=" A0 "&endTimestamp=-1", NULL, 400, "endTimestamp");
	bad("vertices_by_height", "", NULL, 400, "vertexHeight|required");
	ok("vertices_by_height", "vertexHeight=0", NULL);
	bad("vertices_by_height", "vertexHeight=", NULL, 400, "vertexHeight");
}

static void test_enums_bools_amounts(void **state)
{
	(void)state;
	api_fixture f;
	assert_true(
		parse(&f, "utxos", "addresses=" A0 "&sortOrder=desc&sortBy=amount&includeSpent=false", NULL));
	assert_int_equal(val(&f, "sortOrder")->i, 1);
	assert_int_equal(val(&f, "sortBy")->i, 1);
	assert_true(val(&f, "includeSpent")->set);
	assert_int_equal(val(&f, "includeSpent")->i, 0);
	fx_end(&f);
	bad("utxos", "addresses=" A0 "&sortOrder=DESC", NULL, 400, "sortOrder|asc, desc");
	bad("utxos", "addresses=" A0 "&sortBy=", NULL, 400, "sortBy|timestamp, amount");
	bad("utxos", "addresses=" A0 "&includeSpent=1", NULL, 400, "includeSpent");
	bad("utxos", "addresses=" A0 "&includeSpent=True", NULL, 400, "includeSpent");
	assert_true(parse(&f, "utxos", "addresses=" A0 "&minUtxoAmount=18446744073709551615", NULL));
	assert_true(val(&f, "minUtxoAmount")->u == UINT64_MAX);
	fx_end(&f);
	bad("utxos", "addresses=" A0 "&minUtxoAmount=18446744073709551616", NULL, 400, "minUtxoAmount");
	bad("utxos", "addresses=" A0 "&minUtxoAmount=-1", NULL, 400, "minUtxoAmount");
	bad("utxos", "addresses=" A0 "&minUtxoAmount=1.0", NULL, 400, "minUtxoAmount");
}

static void test_ids(void **state)
{
	(void)state;
	api_fixture f;
	/* assetId is a query filter on utxos (it was once taken for the path variable of asset txs) */
	assert_true(parse(&f, "utxos", "addresses=" A0 "&assetId=" AVAX, NULL));
	assert_true(val(&f, "assetId")->set);
	fx_end(&f);
	ok("utxos:post", "assetId=" AVAX, "{\"addresses\":\"" A0 "\"}");
	bad("utxos", "addresses=" A0 "&assetId=" AVAX "x", NULL, 400, "assetId");
	bad("utxos", "addresses=" A0 "&assetId=U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3Jqnk", NULL, 400,
	    "assetId|checksum");
	bad("utxos", "addresses=" A0 "&assetId=0x00", NULL, 400, "assetId");
	/* on the asset route, assetId is the path's: in the query it is unknown */
	bad("asset_transactions", "assetId=" AVAX, NULL, 400, "assetId");
	bad("blocks_by_node", "nodeId=" NODE, NULL, 400, "nodeId");
	/* path variables are checked like parameters */
	api_fixture g;
	g.api = api;
	fx_begin(&g, fx_route("blocks_by_node"), "", NULL, 0, NULL, "NodeID-abc");
	assert_false(api_params_parse(&g.r));
	assert_non_null(strstr(sl_buf_str(&g.resp.body), "nodeId"));
	fx_end(&g);
	fx_begin(&g, fx_route("blocks_by_node"), "", NULL, 0, NULL, NODE + 7);
	assert_false(api_params_parse(&g.r));
	assert_non_null(strstr(sl_buf_str(&g.resp.body), "NodeID-"));
	fx_end(&g);
	fx_begin(&g, fx_route("asset_transactions"), "", NULL, 0,
		 "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBr", NULL);
	assert_false(api_params_parse(&g.r));
	assert_non_null(strstr(sl_buf_str(&g.resp.body), "assetId"));
	fx_end(&g);
	ok("transactions", "l1ValidationId=" AVAX, NULL);
}

static void test_addresses(void **state)
{
	(void)state;
	api_fixture f;
	/* with and without chain prefixes, spaces around items, a duplicate counted once */
	assert_true(parse(&f, "utxos", "addresses=X-" A0 ",P-" A1 ",+C-" A0 "+,%20" A1, NULL));
	assert_int_equal(val(&f, "addresses")->naddrs, 2);
	fx_end(&f);
	bad("utxos", "addresses=X-" A0 "m", NULL, 400, "addresses|checksum");
	bad("utxos", "addresses=X-avax1hq5x6xnqms5mua4xdkj7jl49ghs23tkz2fkduv", NULL, 400, "addresses|avax");
	bad("utxos", "addresses=Q-" A0, NULL, 400, "addresses|Q-");
	bad("utxos", "addresses=" A0 ",," A1, NULL, 400, "addresses|empty");
	bad("utxos", "addresses=", NULL, 400, "addresses");
	bad("utxos", "addresses=0xcea57b154eb5237d7c5e94d4514c74055609f162", NULL, 400, "addresses|EVM");
	/* EVM addresses where the route takes them (C-chain atomic txs), checked */
	assert_true(
		parse(&f, "transactions", "addresses=0xCEA57B154EB5237D7C5E94D4514C74055609F162," A0, NULL));
	assert_int_equal(val(&f, "addresses")->naddrs, 2);
	assert_true(val(&f, "addresses")->addrs[0].evm);
	fx_end(&f);
	bad("transactions", "addresses=0xcea57b", NULL, 400, "addresses|EVM");
	/* at most 64 in a query, 1024 in the body */
	char q[8192] = "addresses=";
	uint8_t h[20] = { 0 };
	for (int i = 0; i < 65; i++) {
		h[0] = (uint8_t)i;
		sl_buf b;
		sl_buf_init(&b, 256);
		sl_bech32_write(&b, "fuji", h, 20);
		snprintf(q + strlen(q), sizeof q - strlen(q), "%s%s", i ? "," : "", sl_buf_str(&b));
		sl_buf_release(&b);
		if (i == 63)
			ok("utxos", q, NULL);
	}
	bad("utxos", q, NULL, 400, "addresses|64");
}

static void test_node_ids(void **state)
{
	(void)state;
	api_fixture f;
	/* rewards takes whole node ids, decoded; a repeat counted once */
	assert_true(parse(&f, "rewards", "nodeIds=" NODE "," NODE, NULL));
	const api_val *v = val(&f, "nodeIds");
	assert_int_equal(v->nstrs, 1);
	assert_string_equal(v->strs[0], NODE);
	uint8_t raw[20];
	size_t len = 0;
	const char *msg;
	char mb[96];
	assert_int_equal(sl_cb58_decode(NODE + 7, strlen(NODE + 7), raw, sizeof raw, &len, &msg, mb), SL_OK);
	assert_memory_equal(v->nodes[0], raw, 20);
	fx_end(&f);
	bad("rewards", "nodeIds=KScqfi7E6a1geyMqHTQCooC7wQMhu4s7r", NULL, 400, "nodeIds|NodeID-");
	bad("rewards", "nodeIds=nodeid-KScqfi7E6a1geyMqHTQCooC7wQMhu4s7r", NULL, 400, "nodeIds|NodeID-");
	bad("rewards", "nodeIds=" NODE "x", NULL, 400, "nodeIds|" NODE "x");
	bad("rewards", "nodeIds=NodeID-", NULL, 400, "nodeIds");
	bad("rewards", "nodeIds=NodeID-" AVAX, NULL, 400, "nodeIds|20 bytes");
	bad("rewards", "nodeIds=" NODE ",," NODE, NULL, 400, "nodeIds|empty");
	bad("rewards", "nodeIds=" NODE ",", NULL, 400, "nodeIds|empty");
	bad("rewards", "nodeIds=", NULL, 400, "nodeIds");
	bad("rewards", "nodeIds=" NODE "&nodeIds=" NODE, NULL, 400, "nodeIds|more than once");
	/* at most 64 */
	char q[8192] = "nodeIds=";
	uint8_t h[20] = { 0 };
	for (int i = 0; i < 65; i++) {
		h[0] = (uint8_t)i;
		sl_buf b;
		sl_buf_init(&b, 256);
		sl_cb58_write(&b, h, 20);
		snprintf(q + strlen(q), sizeof q - strlen(q), "%sNodeID-%s", i ? "," : "", sl_buf_str(&b));
		sl_buf_release(&b);
		if (i == 63)
			ok("rewards", q, NULL);
	}
	bad("rewards", q, NULL, 400, "nodeIds|64");
	/* the rest of the route: newest first by default, the currencies of CurrencyCode */
	assert_true(parse(&f, "rewards", "addresses=P-" A0 "&currency=nzd", NULL));
	assert_int_equal(val(&f, "sortOrder")->i, 1);
	assert_string_equal(
		fx_route("rewards")->params[fx_param(&f, "currency")].values[val(&f, "currency")->i], "nzd");
	/* the same currencies in the same order as the price table's, which rewards.c indexes by ->i */
	const char *const *cur = fx_route("rewards")->params[fx_param(&f, "currency")].values;
	size_t nc = 0;
	for (; cur[nc]; nc++)
		assert_string_equal(cur[nc], sl_price_currencies[nc]);
	assert_null(sl_price_currencies[nc]);
	assert_int_equal(nc, 14);
	fx_end(&f);
	bad("rewards", "addresses=P-" A0 "&currency=USD", NULL, 400, "currency|usd");
	bad("rewards", "addresses=P-" A0 "&sortOrder=up", NULL, 400, "sortOrder");
}

/* validators: decimal percentages (AP_NUMBER, in millionths), node ids as parts of the NodeID-… text,
 * capacities as amounts up to the supply cap, seconds up to 2^31 - 1 */
static void test_validators(void **state)
{
	(void)state;
	api_fixture f;
	assert_true(parse(&f, "validators", "", NULL));
	assert_int_equal(val(&f, "sortBy")->i, 0); /* blockIndex */
	assert_int_equal(val(&f, "sortOrder")->i, 1);
	assert_false(val(&f, "minFeePercentage")->set);
	fx_end(&f);
	assert_true(parse(&f, "validators",
			  "minFeePercentage=2&maxFeePercentage=12.5&minUptimePerformance=0.000001"
			  "&maxUptimePerformance=99.1234567&minDelegationCapacity=0"
			  "&maxDelegationCapacity=720000000000000000&maxTimeRemaining=2147483647",
			  NULL));
	assert_int_equal(val(&f, "minFeePercentage")->i, 2000000);
	assert_int_equal(val(&f, "maxFeePercentage")->i, 12500000);
	assert_int_equal(val(&f, "minUptimePerformance")->i, 1);
	assert_int_equal(val(&f, "maxUptimePerformance")->i, 99123456); /* further digits dropped */
	assert_true(val(&f, "maxDelegationCapacity")->u == 720000000000000000ull);
	assert_int_equal(val(&f, "maxTimeRemaining")->i, 2147483647);
	fx_end(&f);
	ok("validators", "minFeePercentage=100.0&minUptimePerformance=100.", NULL);
	ok("validators", "minUptimePerformance=.5", NULL);
	bad("validators", "minFeePercentage=1.999999", NULL, 400, "minFeePercentage|2 to 100");
	bad("validators", "maxFeePercentage=100.000001", NULL, 400, "maxFeePercentage|2 to 100");
	bad("validators", "minUptimePerformance=-1", NULL, 400, "minUptimePerformance|0 to 100");
	bad("validators", "minUptimePerformance=1e2", NULL, 400, "minUptimePerformance");
	bad("validators", "minUptimePerformance=.", NULL, 400, "minUptimePerformance");
	bad("validators", "minUptimePerformance=", NULL, 400, "minUptimePerformance");
	bad("validators", "minUptimePerformance=+5", NULL, 400, "minUptimePerformance");
	bad("validators", "minUptimePerformance=5.5.5", NULL, 400, "minUptimePerformance");
	bad("validators", "minUptimePerformance=99999999999999999999999", NULL, 400, "minUptimePerformance");
	bad("validators", "minDelegationCapacity=720000000000000001", NULL, 400, "minDelegationCapacity");
	bad("validators", "minDelegationCapacity=-1", NULL, 400, "minDelegationCapacity");
	bad("validators", "maxTimeRemaining=2147483648", NULL, 400, "maxTimeRemaining");
	bad("validators", "minTimeRemaining=-1", NULL, 400, "minTimeRemaining");
	bad("validators", "sortBy=fee", NULL, 400, "sortBy|delegationFee");
	bad("validators", "validationStatus=Active", NULL, 400, "validationStatus|active");
	/* node ids: parts of them, kept as sent */
	assert_true(parse(&f, "validators", "nodeIds=KScq,NodeID-8,zz", NULL));
	assert_int_equal(val(&f, "nodeIds")->nstrs, 3);
	assert_string_equal(val(&f, "nodeIds")->strs[1], "NodeID-8");
	fx_end(&f);
	bad("validators", "nodeIds=a,,b", NULL, 400, "nodeIds|empty");
}

static void test_tx_types(void **state)
{
	(void)state;
	api_fixture f;
	/* repeated and comma-separated, as the SDK and others send them */
	assert_true(
		parse(&f, "transactions", "addresses=" A0 "&txTypes=BaseTx&txTypes=ImportTx,ExportTx", NULL));
	uint64_t t = val(&f, "txTypes")->tx_types;
	assert_int_equal(__builtin_popcountll(t), 3);
	fx_end(&f);
	bad("transactions", "addresses=" A0 "&txTypes=basetx", NULL, 400, "txTypes|basetx");
	bad("transactions", "addresses=" A0 "&txTypes=BaseTx,", NULL, 400, "txTypes");
	bad("transactions", "addresses=" A0 "&txTypes=", NULL, 400, "txTypes");
}

static void test_query_string(void **state)
{
	(void)state;
	/* unknown, near-miss, repeated, escaped, too many */
	bad("vertices", "colour=blue", NULL, 400, "colour");
	bad("vertices", "pagesize=5", NULL, 400, "pagesize|pageSize");
	bad("vertices", "pageSize=5&pageSize=5", NULL, 400, "pageSize|more than once");
	bad("vertices", "pageSize=%3", NULL, 400, "%-escape");
	bad("vertices", "pageSize=%zz", NULL, 400, "%-escape");
	ok("vertices", "page%53ize=%35", NULL); /* pageSize=5 */
	ok("vertices", "&&pageSize=5&&", NULL);
	char q[2048] = "";
	for (int i = 0; i < 65; i++)
		snprintf(q + strlen(q), sizeof q - strlen(q), "%s&", i ? "" : "pageSize=5");
	ok("vertices", q, NULL); /* empty items are not parameters */
	snprintf(q, sizeof q, "addresses=" A0);
	for (int i = 0; i < 63; i++)
		snprintf(q + strlen(q), sizeof q - strlen(q), "&txTypes=BaseTx");
	ok("transactions", q, NULL); /* 64 parameters */
	snprintf(q + strlen(q), sizeof q - strlen(q), "&txTypes=BaseTx");
	bad("transactions", q, NULL, 400, "too many|64");
	/* a page token too long */
	char t[600] = "pageToken=";
	memset(t + 10, 'A', 513);
	t[523] = 0;
	bad("vertices", t, NULL, 400, "pageToken|512");
}

static void test_body(void **state)
{
	(void)state;
	api_fixture f;
	/* JSON escapes in the string, whitespace around */
	assert_true(parse(&f, "utxos:post", "", " { \"addresses\" : \"X-" A0 "\\u002cP-" A1 "\" } \n"));
	assert_int_equal(val(&f, "addresses")->naddrs, 2);
	fx_end(&f);
	bad("utxos:post", "", "", 400, "addresses");
	bad("utxos:post", "", "[]", 400, "addresses");
	bad("utxos:post", "", "{}", 400, "addresses|required");
	bad("utxos:post", "", "{\"addresses\": [\"" A0 "\"]}", 400, "addresses|string");
	bad("utxos:post", "", "{\"addresses\": \"" A0 "\", \"x\": 1}", 400, "\\\"x\\\"");
	bad("utxos:post", "", "{\"addresses\": \"" A0 "\"} {}", 400, "nothing after");
	bad("utxos:post", "", "{\"addresses\": \"" A0 "\"", 400, "JSON");
	bad("utxos:post", "addresses=" A0, "{\"addresses\": \"" A0 "\"}", 400, "addresses");
	/* 1024 in the body, not 1025 */
	sl_buf b;
	sl_buf_init(&b, 1u << 20);
	sl_buf_adds(&b, "{\"addresses\":\"");
	uint8_t h[20] = { 0 };
	for (int i = 0; i < 1025; i++) {
		h[0] = (uint8_t)i, h[1] = (uint8_t)(i >> 8);
		if (i)
			sl_buf_addc(&b, ',');
		sl_bech32_write(&b, "fuji", h, 20);
		if (i == 1023) {
			sl_buf c;
			sl_buf_init(&c, 1u << 20);
			sl_buf_add(&c, b.p, b.len);
			sl_buf_adds(&c, "\"}");
			ok("utxos:post", "", sl_buf_str(&c));
			sl_buf_release(&c);
		}
	}
	sl_buf_adds(&b, "\"}");
	bad("utxos:post", "", sl_buf_str(&b), 400, "addresses|1024");
	sl_buf_release(&b);
}

static void test_list_identity(void **state)
{
	(void)state;
	api_fixture f;
	uint8_t a[16], b[16];
	assert_true(parse(&f, "utxos", "addresses=" A0 "&sortOrder=desc&pageSize=5", NULL));
	memcpy(a, f.r.list_id, 16);
	fx_end(&f);
	/* page size and token are not the list's */
	assert_true(parse(&f, "utxos", "pageSize=7&sortOrder=desc&addresses=" A0 "&pageToken=x", NULL));
	memcpy(b, f.r.list_id, 16);
	fx_end(&f);
	assert_memory_equal(a, b, 16);
	/* any other parameter is */
	for (const char *const *q =
		     (const char *const[]){ "addresses=" A1 "&sortOrder=desc",
					    "addresses=" A0 "&sortOrder=asc",
					    "addresses=" A0 "&sortOrder=desc&includeSpent=true", NULL };
	     *q; q++) {
		assert_true(parse(&f, "utxos", *q, NULL));
		assert_memory_not_equal(a, f.r.list_id, 16);
		fx_end(&f);
	}
	/* and so are the chain and the route */
	assert_true(parse(&f, "utxos", "addresses=" A0 "&sortOrder=desc", NULL));
	f.r.chain = API_P;
	fx_clear(&f);
	assert_true(api_params_parse(&f.r));
	assert_memory_not_equal(a, f.r.list_id, 16);
	fx_end(&f);
	assert_true(parse(&f, "utxos:post", "sortOrder=desc", "{\"addresses\":\"" A0 "\"}"));
	assert_memory_not_equal(a, f.r.list_id, 16);
	fx_end(&f);
}

int main(void)
{
	fx_api_init(&api);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers), cmocka_unit_test(test_enums_bools_amounts),
		cmocka_unit_test(test_ids),	 cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_tx_types), cmocka_unit_test(test_query_string),
		cmocka_unit_test(test_body),	 cmocka_unit_test(test_list_identity),
		cmocka_unit_test(test_node_ids), cmocka_unit_test(test_validators),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
