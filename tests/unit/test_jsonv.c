/* Go-compatible JSON reading: syntax-error texts, raw spans, unquoting, compaction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <time.h>

#include "util/jsonv.h"

static void scan_err(const char *in, const char *want)
{
	size_t s = 0, e = 0;
	char msg[128] = "";
	sl_err err = sl_json_scan(in, strlen(in), &s, &e, msg);
	if (!err)
		fail_msg("'%s' scanned ok, want error '%s'", in, want);
	assert_string_equal(msg, want);
}

static void scan_ok(const char *in, const char *value)
{
	size_t s = 0, e = 0;
	char msg[128] = "";
	if (sl_json_scan(in, strlen(in), &s, &e, msg))
		fail_msg("'%s': %s", in, msg);
	assert_int_equal(e - s, strlen(value));
	assert_memory_equal(in + s, value, e - s);
}

static void test_scan_errors(void **state)
{
	scan_err("", "EOF");
	scan_err("  \n\t", "EOF");
	scan_err("{\"jsonrpc\":", "unexpected EOF");
	scan_err("{", "unexpected EOF");
	scan_err("\"abc", "unexpected EOF");
	scan_err("-", "unexpected EOF");
	scan_err("1.", "unexpected EOF");
	scan_err("abc", "invalid character 'a' looking for beginning of value");
	scan_err("{x", "invalid character 'x' looking for beginning of object key string");
	scan_err("{\"a\" 1}", "invalid character '1' after object key");
	scan_err("{\"a\":1 2}", "invalid character '2' after object key:value pair");
	scan_err("[1 2]", "invalid character '2' after array element");
	scan_err("\"a\nb\"", "invalid character '\\n' in string literal");
	scan_err("\"\\x\"", "invalid character 'x' in string escape code");
	scan_err("\"\\u12g4\"", "invalid character 'g' in \\u hexadecimal character escape");
	scan_err("-a", "invalid character 'a' in numeric literal");
	scan_err("1.e", "invalid character 'e' after decimal point in numeric literal");
	scan_err("1e+x", "invalid character 'x' in exponent of numeric literal");
	scan_err("tru ", "invalid character ' ' in literal true (expecting 'e')");
	scan_err("nul", "unexpected EOF");
	scan_err("nulL", "invalid character 'L' in literal null (expecting 'l')");
	scan_err("fx", "invalid character 'x' in literal false (expecting 'a')");
	scan_err("'", "invalid character '\\'' looking for beginning of value");
	scan_err("\x01", "invalid character '\\x01' looking for beginning of value");
	scan_err("[,]", "invalid character ',' looking for beginning of value");
	scan_err("{\"a\":}", "invalid character '}' looking for beginning of value");
	scan_err("\xc3", "invalid character '\xc3\x83' looking for beginning of value");
}

static void test_scan_ok(void **state)
{
	scan_ok("{}", "{}");
	scan_ok("  {\"a\":[1,2,{\"b\":null}]} trailing garbage", "{\"a\":[1,2,{\"b\":null}]}");
	scan_ok("5", "5");
	scan_ok("-0.5e+10", "-0.5e+10");
	scan_ok("5 x", "5");
	scan_ok("\"s\"x", "\"s\"");
	scan_ok("[]{}", "[]");
	scan_ok("true", "true");
	scan_ok("null,", "null");
	scan_ok("{\"a\":{\"b\":[[],[{}]]}}", "{\"a\":{\"b\":[[],[{}]]}}");
}

static void test_depth(void **state)
{
	/* Go allows 10000 levels and refuses the next one. */
	size_t n = 10001;
	char *deep = malloc(2 * n + 1);
	memset(deep, '[', n);
	memset(deep + n, ']', n);
	deep[2 * n] = 0;
	size_t s, e;
	char msg[128];
	assert_int_not_equal(sl_json_scan(deep, 2 * n, &s, &e, msg), SL_OK);
	assert_string_equal(msg, "invalid character '[' exceeded max depth");
	assert_int_equal(sl_json_scan(deep + 1, 2 * n - 2, &s, &e, msg), SL_OK);
	free(deep);
}

static void unquote_is(const char *raw, const char *want)
{
	sl_buf b;
	sl_buf_init(&b, 1024);
	sl_json_unquote(sl_span_str(raw), &b);
	assert_string_equal(sl_buf_str(&b), want);
	sl_buf_release(&b);
}

static void test_unquote(void **state)
{
	unquote_is("\"plain\"", "plain");
	unquote_is("\"a\\n\\t\\\"\\\\\\/b\"", "a\n\t\"\\/b");
	unquote_is("\"\\u0041\\u00e9\"", "A\xc3\xa9");
	unquote_is("\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80");
	unquote_is("\"\\ud83d x\"", "\xef\xbf\xbd x"); /* lone high surrogate */
	unquote_is("\"\\ude00\"", "\xef\xbf\xbd");     /* lone low surrogate */
	unquote_is("\"\xff\"", "\xef\xbf\xbd");	       /* invalid UTF-8 */
	unquote_is("\"\xc3\xa9\"", "\xc3\xa9");
}

static void test_compact_and_keys(void **state)
{
	sl_buf b;
	sl_buf_init(&b, 1024);
	sl_json_compact(sl_span_str("{ \"a\" : [ 1 , 2 ] , \"s\" : \"x y<>&\" }"), &b);
	assert_string_equal(sl_buf_str(&b), "{\"a\":[1,2],\"s\":\"x y\\u003c\\u003e\\u0026\"}");
	sl_buf_release(&b);
	assert_true(sl_json_key_match("ID", 2, "id"));
	assert_true(sl_json_key_match("jsonRPC", 7, "jsonrpc"));
	assert_false(sl_json_key_match("ids", 3, "id"));
	assert_true(sl_json_key_match("\xc5\xbftartIndex", 11, "startIndex")); /* U+017F folds to s */
	assert_true(sl_json_key_match("\xe2\x84\xaa", 3, "k"));		       /* Kelvin sign */

	sl_jiter it;
	sl_span k, v;
	sl_json_iter_init(&it, sl_span_str("{\"a\" : 1, \"b\":{\"c\":[1,\"}\"]} ,\"d\":\"x\"}"));
	assert_true(sl_json_obj_next(&it, &k, &v));
	assert_true(sl_span_eq(k, "\"a\"") && sl_span_eq(v, "1"));
	assert_true(sl_json_obj_next(&it, &k, &v));
	assert_true(sl_span_eq(v, "{\"c\":[1,\"}\"]}"));
	assert_true(sl_json_obj_next(&it, &k, &v));
	assert_true(sl_span_eq(v, "\"x\""));
	assert_false(sl_json_obj_next(&it, &k, &v));

	/* Literals and numbers that end right at their container's close. */
	sl_json_iter_init(&it, sl_span_str("{\"index\":5,\"t\":true}"));
	assert_true(sl_json_obj_next(&it, &k, &v));
	assert_true(sl_span_eq(v, "5"));
	assert_true(sl_json_obj_next(&it, &k, &v));
	assert_true(sl_span_eq(v, "true"));
	assert_false(sl_json_obj_next(&it, &k, &v));
	sl_json_iter_init(&it, sl_span_str("[1,null]"));
	assert_true(sl_json_arr_next(&it, &v) && sl_span_eq(v, "1"));
	assert_true(sl_json_arr_next(&it, &v) && sl_span_eq(v, "null"));
	assert_false(sl_json_arr_next(&it, &v));
}

/* Strings with escaped quotes and backslashes end where they end; a string of escapes is skipped in
 * time linear in its length (it was quadratic: a megabyte of them took seconds, each time). */
static void test_skip_escapes(void **state)
{
	(void)state;
	sl_jiter it;
	sl_span k, v;
	sl_json_iter_init(&it, sl_span_str("[\"a\\\"b\",\"\\\\\",\"\\\\\\\"\",{\"k\\\"\":\"]\"},7]"));
	assert_true(sl_json_arr_next(&it, &v) && sl_span_eq(v, "\"a\\\"b\""));
	assert_true(sl_json_arr_next(&it, &v) && sl_span_eq(v, "\"\\\\\""));
	assert_true(sl_json_arr_next(&it, &v) && sl_span_eq(v, "\"\\\\\\\"\""));
	assert_true(sl_json_arr_next(&it, &v) && sl_span_eq(v, "{\"k\\\"\":\"]\"}"));
	sl_jiter in;
	sl_json_iter_init(&in, v);
	assert_true(sl_json_obj_next(&in, &k, &v) && sl_span_eq(k, "\"k\\\"\"") && sl_span_eq(v, "\"]\""));
	assert_true(sl_json_arr_next(&it, &v) && sl_span_eq(v, "7"));
	assert_false(sl_json_arr_next(&it, &v));

	size_t n = 1u << 20; /* a genesis the Data API shows may be this large (API_GENESIS_MAX) */
	char *big = malloc(n + 8);
	assert_non_null(big);
	size_t len = 0;
	big[len++] = '[';
	big[len++] = '"';
	while (len < n) { /* \\ all along, and one \" halfway */
		big[len] = '\\';
		big[len + 1] = len == n / 2 ? '"' : '\\';
		len += 2;
	}
	memcpy(big + len, "\",1]", 4);
	len += 4;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	sl_json_iter_init(&it, sl_span_of(big, len));
	assert_true(sl_json_arr_next(&it, &v));
	assert_int_equal(v.len, len - 4);
	assert_true(sl_json_arr_next(&it, &v) && sl_span_eq(v, "1"));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	free(big);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (s > 2)
		fail_msg("1 MiB of escapes took %.1f s to skip", s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan_errors),
		cmocka_unit_test(test_scan_ok),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_unquote),
		cmocka_unit_test(test_compact_and_keys),
		cmocka_unit_test(test_skip_escapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
