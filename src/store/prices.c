/*
 * prices.c — the price table's CSV (prices.h has the form) and its load.
 *
 * The parser is outside input (a file an operator got from somewhere): every
 * line and field is bounded, and a field quoted in a message is cut to
 * QUOTE_MAX bytes with anything but printable ASCII shown as '?'
 * (fuzz/fuzz_prices.c).
 */
#include "store/prices.h"

#include <stdio.h>
#include <strings.h>

#include "util/rfc3339.h"

const char *const sl_price_currencies[] = { "usd", "eur", "aud", "cad", "chf", "clp", "cny", "czk",
					    "dkk", "gbp", "hkd", "huf", "jpy", "nzd", NULL };

#define QUOTE_MAX 40
#define STR_(x) #x
#define STR(x) STR_(x)

/* s[0..n) for a message: at most QUOTE_MAX bytes, printable ASCII, "…" when cut. */
static void quote(const char *s, size_t n, char out[QUOTE_MAX + 8])
{
	size_t k = 0;
	for (; k < n && k < QUOTE_MAX; k++)
		out[k] = s[k] >= 0x20 && s[k] < 0x7f ? s[k] : '?';
	if (n > QUOTE_MAX) {
		memcpy(out + k, "...", 3);
		k += 3;
	}
	out[k] = 0;
}

static bool blank(char c) { return c == ' ' || c == '\t'; }

/* s[0..*n) without the blanks around it. */
static const char *trim(const char *s, size_t *n)
{
	while (*n && blank(*s))
		s++, (*n)--;
	while (*n && blank(s[*n - 1]))
		(*n)--;
	return s;
}

static bool is(const char *s, size_t n, const char *word)
{
	return n == strlen(word) && !strncasecmp(s, word, n);
}

/* The price s[0..n) into row (its canonical text); false when it is not a price. */
static bool read_price(const char *s, size_t n, sl_price_row *row, const char **why)
{
	size_t i = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	size_t whole = i, frac = 0;
	if (!whole) {
		*why = "is not a non-negative decimal (digits, then optionally '.' and digits)";
		return false;
	}
	if (i < n && s[i] == '.') {
		size_t j = ++i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		frac = i - j;
		if (!frac) {
			*why = "has no digits after the '.'";
			return false;
		}
	}
	if (i != n) {
		*why = "is not a non-negative decimal (digits, then optionally '.' and digits)";
		return false;
	}
	size_t lead = 0; /* leading zeros dropped, one digit kept */
	while (lead + 1 < whole && s[lead] == '0')
		lead++;
	if (whole - lead > SL_PRICE_MAX_INT) {
		*why = "has more than " STR(SL_PRICE_MAX_INT) " digits before the point";
		return false;
	}
	if (frac > SL_PRICE_MAX_FRAC) {
		*why = "has more than " STR(SL_PRICE_MAX_FRAC) " digits after the point";
		return false;
	}
	row->len = n - lead;
	memcpy(row->price, s + lead, row->len);
	row->price[row->len] = 0;
	return true;
}

bool sl_price_canonical(const char *s, size_t n)
{
	sl_price_row row;
	const char *why;
	return n && n <= SL_PRICE_MAX_LEN && read_price(s, n, &row, &why) && row.len == n;
}

sl_err sl_prices_parse(const char *text, size_t n, sl_price_fn fn, void *ctx, char err[256])
{
	char q[QUOTE_MAX + 8];
	bool first = true;
	size_t line = 0;
	if (n > SL_PRICES_MAX_FILE) {
		snprintf(err, 256, "the file is larger than %u bytes", SL_PRICES_MAX_FILE);
		return SL_ERR_INVALID;
	}
	for (size_t at = 0; at < n;) {
		const char *nl = memchr(text + at, '\n', n - at);
		size_t len = nl ? (size_t)(nl - (text + at)) : n - at;
		const char *s = text + at;
		at += len + (nl != NULL);
		line++;
		if (len && s[len - 1] == '\r')
			len--;
		if (len > SL_PRICES_MAX_LINE) {
			snprintf(err, 256, "line %zu: longer than %d bytes", line, SL_PRICES_MAX_LINE);
			return SL_ERR_INVALID;
		}
		s = trim(s, &len);
		if (!len)
			continue;
		/* the three fields */
		const char *f[3];
		size_t fl[3], nf = 0;
		for (size_t i = 0, start = 0; i <= len; i++) {
			if (i < len && s[i] != ',')
				continue;
			if (nf < 3) {
				fl[nf] = i - start;
				f[nf] = trim(s + start, &fl[nf]);
			}
			nf++;
			start = i + 1;
		}
		if (nf != 3) {
			snprintf(err, 256, "line %zu: %zu field%s, want 3: date,currency,price", line, nf,
				 nf == 1 ? "" : "s");
			return SL_ERR_INVALID;
		}
		bool header = first && is(f[0], fl[0], "date") && is(f[1], fl[1], "currency") &&
			      is(f[2], fl[2], "price");
		first = false;
		if (header)
			continue;
		sl_price_row row = { .line = line };
		if (sl_date_parse(f[0], fl[0], &row.day)) {
			quote(f[0], fl[0], q);
			snprintf(err, 256, "line %zu: date '%s' is not a day YYYY-MM-DD (1970 to 9999)", line,
				 q);
			return SL_ERR_INVALID;
		}
		row.currency = -1;
		for (int i = 0; sl_price_currencies[i] && row.currency < 0; i++)
			if (is(f[1], fl[1], sl_price_currencies[i]))
				row.currency = i;
		if (row.currency < 0) {
			quote(f[1], fl[1], q);
			snprintf(
				err, 256,
				"line %zu: currency '%s' is not one of usd eur aud cad chf clp cny czk dkk gbp "
				"hkd huf jpy nzd",
				line, q);
			return SL_ERR_INVALID;
		}
		const char *why = NULL;
		if (!read_price(f[2], fl[2], &row, &why)) {
			quote(f[2], fl[2], q);
			snprintf(err, 256, "line %zu: price '%s' %s", line, q, why);
			return SL_ERR_INVALID;
		}
		if (fn) {
			sl_err e = fn(ctx, &row);
			if (e)
				return e;
		}
	}
	return SL_OK;
}

/* ---- the load ------------------------------------------------------------------------------ */

static const sl_sql q_next_load = { "SELECT coalesce(max(loaded), 0) + 1 FROM prices" };
static const sl_sql q_upsert = { "INSERT INTO prices (currency, day, price, loaded) VALUES (?, ?, ?, ?) "
				 "ON CONFLICT (currency, day) DO UPDATE SET price = excluded.price, "
				 "loaded = excluded.loaded" };

typedef struct load {
	sl_conn *c;
	int64_t loaded;
	size_t rows;
} load;

static sl_err upsert(void *ctx, const sl_price_row *row)
{
	load *l = ctx;
	sl_stmt *s = sl_stmt_get(l->c, &q_upsert);
	if (!s)
		return SL_ERR_STORE;
	const char *cur = sl_price_currencies[row->currency];
	sl_bind_text(s, 0, cur, strlen(cur));
	sl_bind_i64(s, 1, row->day);
	sl_bind_text(s, 2, row->price, row->len);
	sl_bind_i64(s, 3, l->loaded);
	sl_err e = sl_stmt_exec(s);
	if (!e)
		l->rows++;
	return e;
}

sl_err sl_prices_load(sl_conn *c, const char *text, size_t n, size_t *rows, char err[256])
{
	*rows = 0;
	/* the whole file first: a bad line costs no transaction */
	sl_err e = sl_prices_parse(text, n, NULL, NULL, err);
	if (e)
		return e;
	if ((e = sl_conn_begin(c))) {
		snprintf(err, 256, "store: %s", sl_conn_error(c));
		return e;
	}
	load l = { .c = c };
	sl_stmt *s = sl_stmt_get(c, &q_next_load);
	e = s ? sl_stmt_query(s) : SL_ERR_STORE;
	while (!e && sl_stmt_next(s, &e))
		l.loaded = sl_col_i64(s, 0);
	if (!e)
		e = sl_prices_parse(text, n, upsert, &l, err);
	if (!e)
		e = sl_conn_commit(c);
	if (e) {
		if (e != SL_ERR_INVALID)
			snprintf(err, 256, "store: %s", sl_conn_error(c));
		sl_conn_rollback(c);
		return e;
	}
	*rows = l.rows;
	return SL_OK;
}
