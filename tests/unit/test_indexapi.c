/* The client side of the index API: range answers of both shapes, the "caught up" errors, and
 * every check a container must pass; RFC 3339 parsing of the container timestamps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>

#include "http/indexapi.h"
#include "util/rfc3339.h"

/* A container of `len` bytes 0..len-1 with the index API's checksum (sha256 last 4 of the payload). */
#define C0 \
	"{\"id\":\"11111111111111111111111111111111LpoYY\",\"bytes\":\"0x00010203f0c990d8\",\"timestamp\":\"2024-01-01T00:00:01.5Z\",\"encoding\":\"hex\",\"index\":\"%s\"}"

static sl_err parse(const char *json, uint64_t start, uint32_t num, sl_ixrange *r, char err[256])
{
	return sl_indexapi_range_parse(json, strlen(json), start, num, r, err);
}

static void test_shapes(void **state)
{
	(void)state;
	sl_ixrange r;
	sl_ixrange_init(&r, 1u << 20);
	char err[256], json[1024], item[300];
	snprintf(item, sizeof item, C0, "7");
	snprintf(json, sizeof json, "{\"jsonrpc\":\"2.0\",\"result\":[%s],\"id\":1}", item);
	assert_int_equal(parse(json, 7, 4, &r, err), SL_OK);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.items[0].index, 7);
	assert_int_equal(r.items[0].len, 4);
	assert_memory_equal(r.items[0].bytes, "\x00\x01\x02\x03", 4);
	assert_int_equal(r.items[0].ts_ns, 1704067201500000000LL);
	snprintf(json, sizeof json, "{\"jsonrpc\":\"2.0\",\"result\":{\"containers\":[%s]},\"id\":1}", item);
	assert_int_equal(parse(json, 7, 4, &r, err), SL_OK);
	assert_int_equal(r.n, 1);
	/* nothing there yet, in every form */
	assert_int_equal(parse("{\"result\":null}", 0, 4, &r, err), SL_OK);
	assert_int_equal(r.n, 0);
	assert_int_equal(
		parse("{\"error\":{\"code\":-32000,\"message\":\"no containers have been accepted\"}}", 0, 4,
		      &r, err),
		SL_OK);
	assert_int_equal(
		parse("{\"error\":{\"message\":\"start index (5) \\u003e last accepted index (4)\"}}", 5, 4,
		      &r, err),
		SL_OK);
	assert_int_equal(r.n, 0);
	assert_int_equal(parse("{\"error\":{\"message\":\"database closed\"}}", 5, 4, &r, err),
			 SL_ERR_UNAVAILABLE);
	assert_string_equal(err, "error: database closed");
	sl_ixrange_release(&r);
}

static void test_checks(void **state)
{
	(void)state;
	sl_ixrange r;
	sl_ixrange_init(&r, 1u << 20);
	char err[256], json[1024], item[300];
	snprintf(item, sizeof item, C0, "8");
	snprintf(json, sizeof json, "[%s]", item);
	snprintf(json, sizeof json, "{\"result\":[%s]}", item);
	assert_int_equal(parse(json, 7, 4, &r, err), SL_ERR_INVALID); /* index 8 where 7 was asked */
	assert_string_equal(err, "container 7: index out of order");
	snprintf(item, sizeof item, C0, "0");
	snprintf(json, sizeof json, "{\"result\":[%s,%s]}", item, item);
	assert_int_equal(parse(json, 0, 1, &r, err), SL_ERR_INVALID); /* more than asked */
	assert_int_equal(r.n, 0);
	const char *bad[] = {
		"{\"result\":[{\"id\":\"x\",\"bytes\":\"0x00010203f0c990d8\",\"timestamp\":\"2024-01-01T00:00:01Z\",\"index\":\"0\"}]}",
		"{\"result\":[{\"id\":\"11111111111111111111111111111111LpoYY\",\"bytes\":\"0x00010203f0c990d9\",\"timestamp\":\"2024-01-01T00:00:01Z\",\"index\":\"0\"}]}",
		"{\"result\":[{\"id\":\"11111111111111111111111111111111LpoYY\",\"bytes\":\"0x00010203f0c990d8\",\"timestamp\":\"yesterday\",\"index\":\"0\"}]}",
		"{\"result\":[1]}",
		"{\"result\":\"x\"}",
		"not json",
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
		err[0] = 0;
		assert_int_not_equal(parse(bad[i], 0, 4, &r, err), SL_OK);
		assert_int_equal(r.n, 0);
		assert_true(err[0] != 0);
	}
	sl_ixrange_release(&r);
}

static void test_rfc3339(void **state)
{
	(void)state;
	int64_t ns;
	const char *s = "1970-01-01T00:00:00Z";
	assert_int_equal(sl_rfc3339_parse(s, strlen(s), &ns), SL_OK);
	assert_int_equal(ns, 0);
	s = "2024-02-29T23:59:59.123456789+01:30";
	assert_int_equal(sl_rfc3339_parse(s, strlen(s), &ns), SL_OK);
	assert_int_equal(ns, (1709251199LL - 5400) * 1000000000LL + 123456789);
	const char *bad[] = { "2023-02-29T00:00:00Z",
			      "2024-01-01T24:00:00Z",
			      "2024-01-01T00:00:00",
			      "2024-01-01T00:00:00.Z",
			      "2024-01-01T00:00:00.1234567890Z",
			      "1969-12-31T23:59:59Z",
			      "2024-01-01 00:00:00Z",
			      "2024-01-01T00:00:00+0100" };
	for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++)
		assert_int_equal(sl_rfc3339_parse(bad[i], strlen(bad[i]), &ns), SL_ERR_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_checks),
		cmocka_unit_test(test_rfc3339),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
