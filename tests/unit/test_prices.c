/*
 * The price table (store/prices.h): the CSV parser on good and bad files (the
 * message names the line and the field), the canonical price, the day of a
 * time, and the load on both backends — all of a file or nothing, a later load
 * replacing a price, max(loaded) rising with each load, a loader beside the
 * indexer (SL_DB_LOAD holds no writer lock) and none on a store never made.
 * PostgreSQL: a database of the server tests/run.sh starts ($SNOWLINE_TEST_PG).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "store/prices.h"

/* ---- the parser ------------------------------------------------------------------------------ */

typedef struct rows {
	size_t n;
	sl_price_row v[16];
} rows;

static sl_err keep(void *ctx, const sl_price_row *row)
{
	rows *r = ctx;
	if (r->n == 16)
		return SL_ERR_TOO_LARGE;
	r->v[r->n++] = *row;
	return SL_OK;
}

static sl_err parse(const char *text, rows *r, char err[256])
{
	memset(r, 0, sizeof *r);
	err[0] = 0;
	return sl_prices_parse(text, strlen(text), keep, r, err);
}

/* The file is refused with a message holding every '|'-separated part of want; no row was handed on
 * after the bad line's. */
static void bad(const char *text, const char *want)
{
	rows r;
	char err[256];
	assert_int_equal(parse(text, &r, err), SL_ERR_INVALID);
	char w[256];
	snprintf(w, sizeof w, "%s", want);
	for (char *save = NULL, *p = strtok_r(w, "|", &save); p; p = strtok_r(NULL, "|", &save))
		if (!strstr(err, p))
			fail_msg("'%s': message '%s' lacks '%s'", text, err, p);
}

static void test_parse(void **state)
{
	(void)state;
	rows r;
	char err[256];
	/* a header, CRLF, blanks, a blank line, upper-case currency, leading zeros, no final newline */
	assert_int_equal(
		parse("date,currency,price\r\n2024-01-01,usd,35.27\r\n\n 2024-01-02 , EUR ,\t0032.100\n"
		      "1970-01-01,jpy,0\n2024-02-29,nzd,0.000000000000000001",
		      &r, err),
		SL_OK);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.v[0].line, 2);
	assert_int_equal(r.v[0].day, 1704067200);
	assert_string_equal(sl_price_currencies[r.v[0].currency], "usd");
	assert_string_equal(r.v[0].price, "35.27");
	assert_int_equal(r.v[1].line, 4);
	assert_int_equal(r.v[1].day, 1704067200 + 86400);
	assert_string_equal(sl_price_currencies[r.v[1].currency], "eur");
	assert_string_equal(r.v[1].price, "32.100"); /* the fraction's digits as given */
	assert_int_equal(r.v[1].len, 6);
	assert_int_equal(r.v[2].day, 0);
	assert_string_equal(r.v[2].price, "0");
	assert_int_equal(r.v[3].day, 1709164800);
	assert_string_equal(r.v[3].price, "0.000000000000000001");
	/* no header, every currency */
	const char *all[] = { "usd", "eur", "aud", "cad", "chf", "clp", "cny",
			      "czk", "dkk", "gbp", "hkd", "huf", "jpy", "nzd" };
	char text[1024] = "";
	for (size_t i = 0; i < 14; i++)
		snprintf(text + strlen(text), sizeof text - strlen(text), "2024-03-%02zu,%s,%zu\n", i + 1,
			 all[i], i);
	assert_int_equal(parse(text, &r, err), SL_OK);
	assert_int_equal(r.n, 14);
	for (size_t i = 0; i < 14; i++)
		assert_int_equal(r.v[i].currency, (int)i);
	assert_null(sl_price_currencies[14]);
	/* the largest price */
	assert_int_equal(parse("2024-01-01,usd,99999999999999999999.999999999999999999", &r, err), SL_OK);
	assert_int_equal(r.v[0].len, SL_PRICE_MAX_LEN);
	/* an empty file, a header alone */
	assert_int_equal(parse("", &r, err), SL_OK);
	assert_int_equal(parse("date,currency,price\n", &r, err), SL_OK);
	assert_int_equal(r.n, 0);

	/* bad lines: the line's number and the field */
	bad("2024-01-01,usd,1\n2024-13-01,usd,1", "line 2|date|2024-13-01");
	bad("2023-02-29,usd,1", "line 1|date");
	bad("1969-12-31,usd,1", "line 1|date");
	bad("24-01-01,usd,1", "date '24-01-01'");
	bad("2024-01-01T00:00:00Z,usd,1", "date");
	bad("2024-01-01,btc,1", "line 1|currency 'btc'|usd eur");
	bad("2024-01-01,,1", "currency ''");
	bad("2024-01-01,usd,-1", "line 1|price '-1'|non-negative");
	bad("2024-01-01,usd,1e3", "price '1e3'");
	bad("2024-01-01,usd,.5", "price '.5'");
	bad("2024-01-01,usd,5.", "price '5.'|after the '.'");
	bad("2024-01-01,usd,", "price ''");
	bad("2024-01-01,usd,1.2.3", "price");
	bad("2024-01-01,usd,1 000", "price");
	bad("2024-01-01,usd,123456789012345678901", "line 1|price|20 digits before");
	bad("2024-01-01,usd,1.1234567890123456789", "price|18 digits after");
	bad("2024-01-01,usd", "line 1|2 fields, want 3");
	bad("2024-01-01,usd,1,2", "line 1|4 fields");
	bad("\n\nhello", "line 3|1 field,");
	bad("date,currency,price\ndate,currency,price", "line 2|date 'date'"); /* a header only first */
	bad("2024-01-01,usd,\"1\"", "price '\"1\"'");
	bad("2024-01-01,usd,1\x01", "price '1?'"); /* control bytes shown as '?' */
	char longline[400];
	memset(longline, '1', sizeof longline - 1);
	longline[sizeof longline - 1] = 0;
	memcpy(longline, "2024-01-01,usd,", 15);
	bad(longline, "line 1|longer than 256 bytes");
	char longcur[200];
	snprintf(longcur, sizeof longcur, "2024-01-01,%0150d,1", 7);
	bad(longcur, "currency '0000000000"); /* cut */
	/* a NUL inside a line is a bad field, not the end of the text */
	memset(&r, 0, sizeof r);
	assert_int_equal(sl_prices_parse("2024-01-01,usd,1\0002", 18, keep, &r, err), SL_ERR_INVALID);
	assert_non_null(strstr(err, "price"));
	/* the callback's error stops the parse and is returned */
	assert_int_equal(parse(text, &r, err), SL_OK);
	char many[2048] = "";
	for (int i = 1; i <= 20; i++)
		snprintf(many + strlen(many), sizeof many - strlen(many), "2024-04-%02d,usd,1\n", i);
	assert_int_equal(parse(many, &r, err), SL_ERR_TOO_LARGE);
	assert_int_equal(r.n, 16);
}

static void test_canonical_and_day(void **state)
{
	(void)state;
	assert_true(sl_price_canonical("0", 1));
	assert_true(sl_price_canonical("35.27", 5));
	assert_true(sl_price_canonical("0.10", 4));
	assert_false(sl_price_canonical("", 0));
	assert_false(sl_price_canonical("035", 3)); /* the loader drops leading zeros: not JSON */
	assert_false(sl_price_canonical("1.", 2));
	assert_false(sl_price_canonical("-1", 2));
	assert_false(sl_price_canonical("1e5", 3));
	assert_false(sl_price_canonical("12345678901234567890123", 23));
	assert_int_equal(sl_price_day(0), 0);
	assert_int_equal(sl_price_day(86399), 0);
	assert_int_equal(sl_price_day(86400), 86400);
	assert_int_equal(sl_price_day(1704067200 + 3600 * 23 + 59), 1704067200);
	assert_int_equal(sl_price_day(-1), -86400);
}

/* ---- the load, on both backends ---------------------------------------------------------------- */

static const sl_sql q_all = { "SELECT currency, day, price, loaded FROM prices ORDER BY currency, day" };

/* The table as "cur day price loaded;…". */
static void table(sl_conn *c, char *out, size_t n)
{
	out[0] = 0;
	sl_stmt *s = sl_stmt_get(c, &q_all);
	assert_non_null(s);
	sl_err e = sl_stmt_query(s);
	while (!e && sl_stmt_next(s, &e)) {
		size_t cl, pl;
		const char *cur = sl_col_text(s, 0, &cl), *p = sl_col_text(s, 2, &pl);
		snprintf(out + strlen(out), n - strlen(out), "%.*s %lld %.*s %lld;", (int)cl, cur,
			 (long long)sl_col_i64(s, 1), (int)pl, p, (long long)sl_col_i64(s, 3));
	}
	assert_int_equal(e, SL_OK);
}

static void check_load(const char *url)
{
	char err[256], t[1024];
	/* a loader needs a store the indexer made */
	sl_db_config lcfg = { .url = url, .mode = SL_DB_LOAD };
	assert_null(sl_db_open(&lcfg, err));
	/* the indexer's store, held open as a running indexer holds it */
	sl_db_config wcfg = { .url = url, .mode = SL_DB_WRITE };
	sl_db *w = sl_db_open(&wcfg, err);
	if (!w)
		fail_msg("open %s: %s", url, err);
	sl_db *l = sl_db_open(&lcfg, err);
	if (!l)
		fail_msg("a loader beside the indexer: %s", err);
	sl_conn *c = sl_db_acquire(l, 10000, err);
	assert_non_null(c);
	size_t n;
	const char *f1 =
		"date,currency,price\n2024-01-01,usd,35.27\n2024-01-02,usd,36\n2024-01-01,eur,32.1\n";
	assert_int_equal(sl_prices_load(c, f1, strlen(f1), &n, err), SL_OK);
	assert_int_equal(n, 3);
	table(c, t, sizeof t);
	assert_string_equal(t, "eur 1704067200 32.1 1;usd 1704067200 35.27 1;usd 1704153600 36 1;");
	/* a bad file changes nothing, even after good lines */
	const char *f2 = "2024-01-01,usd,1\n2024-01-05,usd,x\n";
	assert_int_equal(sl_prices_load(c, f2, strlen(f2), &n, err), SL_ERR_INVALID);
	assert_non_null(strstr(err, "line 2: price 'x'"));
	assert_int_equal(n, 0);
	table(c, t, sizeof t);
	assert_string_equal(t, "eur 1704067200 32.1 1;usd 1704067200 35.27 1;usd 1704153600 36 1;");
	/* a later load replaces a day's price and adds others; the last line of a day wins */
	const char *f3 = "2024-01-02,usd,37.5\n2024-01-03,jpy,5000\n2024-01-03,jpy,5100\n";
	assert_int_equal(sl_prices_load(c, f3, strlen(f3), &n, err), SL_OK);
	assert_int_equal(n, 3);
	table(c, t, sizeof t);
	assert_string_equal(t, "eur 1704067200 32.1 1;jpy 1704240000 5100 2;usd 1704067200 35.27 1;"
			       "usd 1704153600 37.5 2;");
	/* an empty file: nothing written, the generation stays */
	assert_int_equal(sl_prices_load(c, "", 0, &n, err), SL_OK);
	assert_int_equal(n, 0);
	sl_db_release(l, c);
	sl_db_close(l);
	sl_db_close(w);
	/* a reader reads it */
	sl_db_config rcfg = { .url = url, .mode = SL_DB_READ };
	sl_db *r = sl_db_open(&rcfg, err);
	assert_non_null(r);
	c = sl_db_acquire(r, 10000, err);
	table(c, t, sizeof t);
	assert_string_equal(t, "eur 1704067200 32.1 1;jpy 1704240000 5100 2;usd 1704067200 35.27 1;"
			       "usd 1704153600 37.5 2;");
	sl_db_release(r, c);
	sl_db_close(r);
}

static void test_load_sqlite(void **state)
{
	(void)state;
	char dir[] = "/tmp/snowline-prices-XXXXXX", path[256], cmd[512];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/store.db", dir);
	check_load(path);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_load_postgres(void **state)
{
	(void)state;
	const char *base = getenv("SNOWLINE_TEST_PG");
	if (!base || !*base)
		fail_msg("SNOWLINE_TEST_PG is not set: run the tests with `make test` (tests/run.sh starts "
			 "PostgreSQL), or start one with scripts/pg-test-server.sh");
	char db[64], cmd[1024], url[600];
	snprintf(db, sizeof db, "pricestest_%d_%ld", (int)getpid(), random() % 1000000);
	snprintf(cmd, sizeof cmd, "psql -q '%s' -c 'CREATE DATABASE %s' >/dev/null", base, db);
	assert_int_equal(system(cmd), 0);
	const char *slash = strrchr(base, '/');
	snprintf(url, sizeof url, "%.*s/%s", (int)(slash - base), base, db);
	check_load(url);
}

int main(void)
{
	srandom((unsigned)getpid());
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_canonical_and_day),
		cmocka_unit_test(test_load_sqlite),
		cmocka_unit_test(test_load_postgres),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
