/*
 * prices.c — `snowline prices FILE.csv`: load daily prices of the network's
 * asset into the store's price table (store/prices.h has the file's form),
 * which the rewards list shows as historicalPrice. All of the file or
 * nothing, in one transaction; a line that is not a price is named with its
 * number and field. The store must have been made by `snowline index`; the
 * load may run beside the indexer and the API servers (SL_DB_LOAD), and the
 * API servers' response caches see the change (api/cache.c).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/wiring.h"
#include "store/prices.h"
#include "util/config.h"

typedef struct prices_opts {
	const char *store, *data_dir, *config_file;
	bool check, help;
} prices_opts;

#define O(f) offsetof(prices_opts, f)
static const sl_opt opts[] = {
	{ "config-file", SL_OPT_STR, O(config_file), NULL, 0, "JSON file of options" },
	{ "store", SL_OPT_STR, O(store), NULL, 0,
	  "postgres://… for PostgreSQL; else a SQLite file (default <data-dir>/index.db)" },
	{ "data-dir", SL_OPT_STR, O(data_dir), NULL, 0,
	  "where the SQLite store lives (default ~/.snowline)" },
	{ "check", SL_OPT_BOOL, O(check), NULL, 0,
	  "only check the file: say how many prices it holds, write nothing" },
	{ "help", SL_OPT_BOOL, O(help), NULL, 0, "show this help" },
};

static const char usage[] =
	"usage: snowline prices [options] FILE.csv\n\nLoad daily prices of the network's asset (AVAX) into the store, for the historicalPrice of\n"
	"the rewards list (GET /v1/networks/{network}/rewards?currency=…). One line a price,\n"
	"'date,currency,price' (a first line 'date,currency,price' is a header):\n"
	"  date      YYYY-MM-DD, a UTC day\n"
	"  currency  usd eur aud cad chf clp cny czk dkk gbp hkd huf jpy nzd\n"
	"  price     a non-negative decimal, e.g. 35.27 (at most 20 digits before the point and 18 after)\n"
	"A price already in the store for that day and currency is replaced. The whole file is loaded in\n"
	"one transaction, or nothing when a line is bad (the message names the line and the field). The\n"
	"store must exist (`snowline index` makes it); the indexer and API servers may be running.\n"
	"docs/operations.md has an example.";

/* The file into *text (malloc), at most SL_PRICES_MAX_FILE bytes; false after a message. */
static bool read_file(const char *cmd, const char *path, char **text, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "snowline %s: cannot read %s: %s\n", cmd, path, strerror(errno));
		return false;
	}
	size_t cap = 1u << 16, len = 0;
	char *p = malloc(cap);
	bool ok = p != NULL;
	while (ok) {
		if (len > SL_PRICES_MAX_FILE) {
			fprintf(stderr, "snowline %s: %s: larger than %u bytes\n", cmd, path,
				SL_PRICES_MAX_FILE);
			ok = false;
			break;
		}
		if (len == cap) { /* grow to at most one byte past the bound, which then refuses the file */
			size_t ncap = SL_MIN(cap * 2, (size_t)SL_PRICES_MAX_FILE + 1);
			char *q = realloc(p, ncap);
			if (!q) {
				ok = false;
				break;
			}
			p = q;
			cap = ncap;
		}
		size_t got = fread(p + len, 1, cap - len, f);
		len += got;
		if (!got) {
			if (ferror(f)) {
				fprintf(stderr, "snowline %s: cannot read %s: %s\n", cmd, path,
					strerror(errno));
				ok = false;
			}
			break;
		}
	}
	fclose(f);
	if (!ok) {
		free(p);
		return false;
	}
	*text = p;
	*n = len;
	return true;
}

/* Count the rows (--check). */
static sl_err count_row(void *ctx, const sl_price_row *row)
{
	(void)row;
	(*(size_t *)ctx)++;
	return SL_OK;
}

int cmd_prices_load(const char *cmd, const char *store, const char *path)
{
	char *text = NULL, err[256];
	size_t n = 0, rows = 0;
	if (!read_file(cmd, path, &text, &n))
		return 1;
	/* a bad file is refused before the store is opened */
	if (sl_prices_parse(text, n, NULL, NULL, err)) {
		fprintf(stderr, "snowline %s: %s: %s\n", cmd, path, err);
		free(text);
		return 1;
	}
	int rc = 1;
	sl_db_config dc = { .url = store, .mode = SL_DB_LOAD, .pool_size = 1 };
	sl_db *db = sl_db_open(&dc, err);
	sl_conn *c = db ? sl_db_acquire(db, 10000, err) : NULL;
	if (!c)
		fprintf(stderr, "snowline %s: store %s: %s\n", cmd, store, err);
	else {
		if (sl_prices_load(c, text, n, &rows, err))
			fprintf(stderr, "snowline %s: %s: %s\n", cmd, path, err);
		else {
			fprintf(stderr, "snowline %s: loaded %zu price%s from %s\n", cmd, rows,
				rows == 1 ? "" : "s", path);
			rc = 0;
		}
		sl_db_release(db, c);
	}
	sl_db_close(db);
	free(text);
	return rc;
}

int cmd_prices(int argc, char **argv)
{
	prices_opts o = { 0 };
	sl_config cfg;
	char err[512];
	int rest = argc, rc = 2;
	if (sl_config_load(&cfg, opts, SL_ARRAY_LEN(opts), &o, argc, argv, &rest, err)) {
		fprintf(stderr, "snowline prices: %s\n", err);
		goto out;
	}
	if (o.help) {
		sl_config_usage(stdout, usage, opts, SL_ARRAY_LEN(opts));
		rc = 0;
		goto out;
	}
	if (rest != argc - 1) {
		fprintf(stderr, "snowline prices: give one file of prices (snowline prices --help)\n");
		goto out;
	}
	if (o.check) {
		char *text = NULL, e256[256];
		size_t n = 0, rows = 0;
		rc = 1;
		if (read_file("prices", argv[rest], &text, &n)) {
			if (sl_prices_parse(text, n, count_row, &rows, e256))
				fprintf(stderr, "snowline prices: %s: %s\n", argv[rest], e256);
			else {
				printf("%s: %zu price%s\n", argv[rest], rows, rows == 1 ? "" : "s");
				rc = 0;
			}
		}
		free(text);
		goto out;
	}
	char store[1100];
	cmd_store(o.store, o.data_dir, false, store, sizeof store);
	rc = cmd_prices_load("prices", store, argv[rest]);
out:
	sl_config_release(&cfg);
	return rc;
}
