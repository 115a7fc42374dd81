/*
 * prices.h — the price table (schema v9, docs/store.md): the price of the
 * network's asset (AVAX) on a UTC day in a currency, which the rewards list
 * shows as historicalPrice. Prices do not come from the chain: an operator
 * loads them from a CSV file (`snowline prices`, `snowline up --prices`).
 *
 * The file: one line a price, `date,currency,price`, with an optional header
 * line `date,currency,price`; empty lines are skipped, `\r\n` ends a line as
 * `\n` does, and spaces or tabs around a field are ignored.
 *   date      YYYY-MM-DD, 1970-01-01 to 9999-12-31, a UTC day
 *   currency  a CurrencyCode (usd, eur, … nzd; any case, stored lower case)
 *   price     a non-negative decimal: digits, optionally '.' and digits; at
 *             most SL_PRICE_MAX_INT digits before the point (leading zeros
 *             dropped) and SL_PRICE_MAX_FRAC after it (kept as given)
 * A line longer than SL_PRICES_MAX_LINE bytes is refused; so is a file
 * larger than SL_PRICES_MAX_FILE. A later line for a day and currency an
 * earlier line gave wins, as a later load does.
 */
#ifndef SL_STORE_PRICES_H
#define SL_STORE_PRICES_H

#include "store/sql.h"

#define SL_PRICE_MAX_INT 20
#define SL_PRICE_MAX_FRAC 18
#define SL_PRICE_MAX_LEN (SL_PRICE_MAX_INT + 1 + SL_PRICE_MAX_FRAC) /* "12.5" without the NUL */
#define SL_PRICES_MAX_LINE 256
#define SL_PRICES_MAX_FILE (64u << 20)

/* The CurrencyCodes (data-api.md §4), in the spec's order, NULL-terminated: usd (the default) first. */
extern const char *const sl_price_currencies[];

typedef struct sl_price_row {
	size_t line;  /* 1-based line number in the file */
	int64_t day;  /* unix seconds of the day's midnight UTC */
	int currency; /* index into sl_price_currencies */
	size_t len;   /* of price */
	char price[SL_PRICE_MAX_LEN + 1];
} sl_price_row;

typedef sl_err (*sl_price_fn)(void *ctx, const sl_price_row *row);

/*
 * Parse the CSV text[0..n) and hand each row to fn (which may stop the parse by returning an
 * error, returned as it is). SL_ERR_INVALID on a bad line, with err "line N: FIELD …" naming the
 * line and the field; nothing after a bad line is handed on.
 */
SL_MUST_USE sl_err sl_prices_parse(const char *text, size_t n, sl_price_fn fn, void *ctx, char err[256]);

/*
 * Parse the CSV and upsert every row into the prices table in one transaction of c: all of the
 * file or, on any error (err says which), nothing. *rows: the rows written.
 */
SL_MUST_USE sl_err sl_prices_load(sl_conn *c, const char *text, size_t n, size_t *rows, char err[256]);

/* Is s[0..n) a price as the loader writes it (digits without a leading zero, optionally '.' and
 * digits, within the bounds above): also a JSON number, the same digits. */
bool sl_price_canonical(const char *s, size_t n);

/* The day (unix seconds of its midnight UTC) that holds the unix time t. */
static inline int64_t sl_price_day(int64_t t) { return t - (((t % 86400) + 86400) % 86400); }

#endif
