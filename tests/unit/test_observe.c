/*
 * test_observe.c — the indexer's reading of platform.getCurrentValidators
 * and info.peers (index/observe.h): percentages as avalanchego writes them,
 * the fields a validator and a peer must have, versions and benched chains.
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

typedef struct peers_seen {
	ix_peer v[4];
	int n;
} peers_seen;

static sl_err keep(void *ctx, const ix_peer *p)
{
	peers_seen *s = ctx;
	assert_true(s->n < 4);
	s->v[s->n++] = *p;
	return SL_OK;
}

static sl_err parse_peers(const char *body, peers_seen *s)
{
	char err[256];
	s->n = 0;
	return ix_peers_parse((const uint8_t *)body, strlen(body), keep, s, err);
}

static void test_peers(void **state)
{
	(void)state;
	peers_seen s;
	/* avalanchego's shape: benched by chain alias, in any order; other chains' ids ignored */
	const char *ok =
		"{\"jsonrpc\":\"2.0\",\"result\":{\"numPeers\":\"3\",\"peers\":["
		"{\"ip\":\"127.0.0.1:9651\",\"nodeID\":\"NodeID-111111111111111111116DBWJs\","
		"\"version\":\"avalanchego/1.14.2\",\"observedUptime\":\"100\",\"benched\":[\"C\",\"P\","
		"\"2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM\"]},"
		"{\"nodeID\":\"NodeID-111111111111111111116DBWJs\",\"version\":\"avalanchego/\\u0031\",\"benched\":null},"
		"{\"nodeID\":\"NodeID-111111111111111111116DBWJs\",\"version\":5,\"benched\":[\"X\"]}]},\"id\":1}";
	assert_int_equal(parse_peers(ok, &s), SL_OK);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.v[0].version, "avalanchego/1.14.2");
	assert_true(s.v[0].benched[IX_BENCH_P] && !s.v[0].benched[IX_BENCH_X] && s.v[0].benched[IX_BENCH_C]);
	assert_string_equal(s.v[1].version, ""); /* an escape: not taken as a version */
	assert_true(!s.v[1].benched[IX_BENCH_P] && !s.v[1].benched[IX_BENCH_X] &&
		    !s.v[1].benched[IX_BENCH_C]);
	assert_string_equal(s.v[2].version, "");
	assert_true(s.v[2].benched[IX_BENCH_X]);
	/* a version longer than IX_PEER_VERSION_MAX: "" */
	char longv[300];
	snprintf(
		longv, sizeof longv,
		"{\"result\":{\"peers\":[{\"nodeID\":\"NodeID-111111111111111111116DBWJs\",\"version\":\"%065d\"}]}}",
		0);
	assert_int_equal(parse_peers(longv, &s), SL_OK);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.v[0].version, "");
	assert_int_equal(parse_peers("{\"result\":{\"numPeers\":\"0\",\"peers\":[]}}", &s), SL_OK);
	assert_int_equal(s.n, 0);
	/* an error answer, no list: unsupported; a peer without a node id, benched not a list of strings: invalid */
	assert_int_equal(parse_peers("{\"error\":{\"code\":-32000,\"message\":\"no\"}}", &s),
			 SL_ERR_UNSUPPORTED);
	assert_int_equal(parse_peers("{\"result\":{\"peers\":null}}", &s), SL_ERR_UNSUPPORTED);
	assert_int_equal(parse_peers("{\"result\":{\"peers\":[{\"version\":\"v\"}]}}", &s), SL_ERR_INVALID);
	assert_int_equal(parse_peers("{\"result\":{\"peers\":[{\"nodeID\":\"NodeID-x\"}]}}", &s),
			 SL_ERR_INVALID);
	assert_int_equal(
		parse_peers("{\"result\":{\"peers\":[{\"nodeID\":\"NodeID-111111111111111111116DBWJs\","
			    "\"benched\":\"P\"}]}}",
			    &s),
		SL_ERR_INVALID);
	assert_int_equal(
		parse_peers("{\"result\":{\"peers\":[{\"nodeID\":\"NodeID-111111111111111111116DBWJs\","
			    "\"benched\":[1]}]}}",
			    &s),
		SL_ERR_INVALID);
	assert_int_equal(parse_peers("{\"result\":{\"peers\":[5]}}", &s), SL_ERR_INVALID);
	assert_int_equal(parse_peers("[", &s), SL_ERR_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_peers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
