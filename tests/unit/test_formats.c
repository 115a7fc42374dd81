/* Value formats the node API shows: cb58, hex with checksum, RFC 3339 times, paths, JSON strings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <time.h>

#include "crypto/cb58.h"
#include "node/internal.h"
#include "crypto/hash.h"
#include "util/hex.h"
#include "util/jw.h"

static void test_cb58(void **state)
{
	uint8_t id[32] = { 0 };
	char s[64];
	sl_cb58_id(s, id);
	assert_string_equal(s, "11111111111111111111111111111111LpoYY");
	memcpy(id, "ava labs", 8);
	sl_cb58_id(s, id);
	assert_string_equal(s, "jvYi6Tn9idMi7BaymUVi9zWjg5tpmW7trfKG1AYJLKZJ2fsU7");
	memset(id, 0, 32);
	id[0] = 24;
	sl_cb58_id(s, id);
	assert_string_equal(s, "Ba3mm8Ra8JYYebeZ9p7zw1ayorDbeD1euwxhgzSLsncKqGoNt");

	uint8_t out[32];
	const char *msg;
	char mb[96];
	assert_int_equal(sl_cb58_decode_id(s, strlen(s), out, &msg, mb), SL_OK);
	assert_memory_equal(out, id, 32);
	assert_int_not_equal(sl_cb58_decode_id("", 0, out, &msg, mb), SL_OK);
	assert_string_equal(msg, "base58 decoding error: zero length string");
	assert_int_not_equal(sl_cb58_decode_id("0abc", 4, out, &msg, mb), SL_OK);
	assert_string_equal(msg, "base58 decoding error: invalid base58 digit ('0')");
	assert_int_not_equal(sl_cb58_decode_id("\xc3\xa9", 2, out, &msg, mb), SL_OK);
	assert_string_equal(msg, "base58 decoding error: high-bit set on invalid digit");
	assert_int_not_equal(sl_cb58_decode_id("X", 1, out, &msg, mb), SL_OK);
	assert_string_equal(msg, "input string is smaller than the checksum size");
	assert_int_not_equal(sl_cb58_decode_id("11111111111111111111111111111111LpoYZ", 37, out, &msg, mb),
			     SL_OK);
	assert_string_equal(msg, "invalid input checksum");
	/* A valid checksum over 20 bytes: the length error. */
	sl_buf b;
	sl_buf_init(&b, 128);
	uint8_t short_id[20] = { 1, 2, 3 };
	sl_cb58_write(&b, short_id, 20);
	assert_int_not_equal(sl_cb58_decode_id(sl_buf_str(&b), b.len, out, &msg, mb), SL_OK);
	assert_string_equal(msg, "invalid hash length: expected 32 bytes but got 20");
	sl_buf_release(&b);
}

static void hex_is(const uint8_t *p, size_t n, const char *want)
{
	sl_buf b;
	sl_buf_init(&b, 1024);
	sl_write_hex_checksum(&b, p, n);
	assert_string_equal(sl_buf_str(&b), want);
	uint8_t back[64];
	size_t len;
	const char *msg;
	assert_int_equal(sl_hex_checksum_decode(sl_buf_str(&b), b.len, back, sizeof back, &len, &msg), SL_OK);
	assert_int_equal(len, n);
	if (n)
		assert_memory_equal(back, p, n);
	sl_buf_release(&b);
}

static void test_hex_checksum(void **state)
{
	/* The vectors of avalanchego's utils/formatting/encoding_test.go. */
	hex_is(NULL, 0, "0x7852b855");
	hex_is((const uint8_t[]){ 0 }, 1, "0x0017afa01d");
	hex_is((const uint8_t[]){ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 255 }, 11,
	       "0x00010203040506070809ff4482539c");
	uint8_t out[8];
	size_t len;
	const char *msg;
	assert_int_not_equal(sl_hex_checksum_decode("7852b855", 8, out, 8, &len, &msg), SL_OK);
	assert_string_equal(msg, "missing 0x prefix to hex encoding");
	assert_int_not_equal(sl_hex_checksum_decode("0x7852b8", 8, out, 8, &len, &msg), SL_OK);
	assert_string_equal(msg, "input string is smaller than the checksum size");
	assert_int_not_equal(sl_hex_checksum_decode("0x7852b856", 10, out, 8, &len, &msg), SL_OK);
	assert_string_equal(msg, "invalid input checksum");
}

static void test_time(void **state)
{
	setenv("TZ", "UTC", 1);
	tzset();
	char s[64];
	sl_format_time(s, 1617402840262979000LL);
	assert_string_equal(s, "2021-04-02T22:34:00.262979Z");
	sl_format_time(s, 1617402840000000000LL);
	assert_string_equal(s, "2021-04-02T22:34:00Z");
	sl_format_time(s, 1617402840100000000LL);
	assert_string_equal(s, "2021-04-02T22:34:00.1Z");
	sl_format_time(s, 1);
	assert_string_equal(s, "1970-01-01T00:00:00.000000001Z");
	setenv("TZ", "America/Los_Angeles", 1);
	tzset();
	sl_format_time(s, 1617402840262979000LL);
	assert_string_equal(s, "2021-04-02T15:34:00.262979-07:00");
	setenv("TZ", "UTC", 1);
	tzset();
}

static void clean_is(const char *in, const char *want)
{
	char out[256];
	assert_true(sl_path_clean(in, out, sizeof out) > 0);
	assert_string_equal(out, want);
}

static void test_path_clean(void **state)
{
	clean_is("/ext/admin", "/ext/admin");
	clean_is("//ext//admin", "/ext/admin");
	clean_is("/ext/./admin", "/ext/admin");
	clean_is("/ext/x/../admin", "/ext/admin");
	clean_is("/ext/admin/", "/ext/admin/");
	clean_is("/../a", "/a");
	clean_is("/", "/");
	clean_is("", "/");
	clean_is("/a/b/../../..", "/");
}

static void test_json_writer(void **state)
{
	sl_buf b;
	sl_buf_init(&b, 4096);
	sl_jw w;
	sl_jw_init(&w, &b);
	sl_jw_obj(&w);
	sl_jw_key(&w, "s");
	sl_jw_str(&w, "<a&b>\"\\\n\x01\xe2\x80\xa8\xff");
	sl_jw_key(&w, "n");
	sl_jw_u64s(&w, 18446744073709551615ull);
	sl_jw_key(&w, "a");
	sl_jw_arr(&w);
	sl_jw_i64(&w, -5);
	sl_jw_bool(&w, true);
	sl_jw_null(&w);
	sl_jw_arr(&w);
	sl_jw_arr_end(&w);
	sl_jw_arr_end(&w);
	sl_jw_key(&w, "h");
	sl_jw_hex(&w, (const uint8_t *)"\x01\xab", 2);
	sl_jw_obj_end(&w);
	assert_int_equal(b.err, SL_OK);
	assert_string_equal(sl_buf_str(&b),
			    "{\"s\":\"\\u003ca\\u0026b\\u003e\\\"\\\\\\n\\u0001\\u2028\\ufffd\","
			    "\"n\":\"18446744073709551615\",\"a\":[-5,true,null,[]],\"h\":\"0x01ab\"}");
	sl_buf_release(&b);

	/* A buffer past its max fails sticky and stays a valid C string. */
	sl_buf small;
	sl_buf_init(&small, 4);
	sl_buf_adds(&small, "abc");
	sl_buf_adds(&small, "de");
	assert_int_equal(small.err, SL_ERR_TOO_LARGE);
	assert_string_equal(sl_buf_str(&small), "abc");
	sl_buf_release(&small);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cb58),	    cmocka_unit_test(test_hex_checksum),
		cmocka_unit_test(test_time),	    cmocka_unit_test(test_path_clean),
		cmocka_unit_test(test_json_writer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
