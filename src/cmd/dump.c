/*
 * dump.c — `snowline dump`: print a store in its canonical text form
 * (src/store/dump.h), to compare two stores: the same history indexed on
 * SQLite and on PostgreSQL, with or without crashes, in any interleaving of
 * the node's indexes, dumps to the same bytes.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/wiring.h"
#include "store/dump.h"
#include "util/config.h"

typedef struct dump_opts {
	const char *store, *data_dir, *tables, *out, *config_file;
	bool digest, list, help;
} dump_opts;

#define O(f) offsetof(dump_opts, f)
static const sl_opt opts[] = {
	{ "config-file", SL_OPT_STR, O(config_file), NULL, 0, "JSON file of options" },
	{ "store", SL_OPT_STR, O(store), NULL, 0,
	  "postgres://… for PostgreSQL; else a SQLite file (default <data-dir>/index.db)" },
	{ "data-dir", SL_OPT_STR, O(data_dir), NULL, 0,
	  "where the SQLite store lives (default ~/.snowline)" },
	{ "table", SL_OPT_STR, O(tables), NULL, 0, "only these tables (comma-separated)" },
	{ "digest", SL_OPT_BOOL, O(digest), NULL, 0,
	  "per table a line 'NAME ROWS SHA256' of its dump text, then 'all ROWS SHA256' of the whole dump" },
	{ "list", SL_OPT_BOOL, O(list), NULL, 0, "print the tables the dump has, in its order, and exit" },
	{ "out", SL_OPT_STR, O(out), NULL, 0, "write to this file instead of standard output" },
	{ "help", SL_OPT_BOOL, O(help), NULL, 0, "show this help" },
};

static const char usage[] =
	"usage: snowline dump [options]\n\nEvery table of the store's schema in a fixed order, its rows sorted by their primary key, one line\n"
	"a row ('TABLE<TAB>value<TAB>value…'): integers in decimal, blobs as x'hex', text in single quotes\n"
	"with \\\\ \\' \\t \\n \\r \\xHH escapes, NULL as NULL. Two stores of the same history dump to the same\n"
	"bytes whatever their backend. Left out, as they differ between runs by design: the meta row\n"
	"'token_secret' (the page-token secret, random per store), the progress status columns\n"
	"cursors.head and cursors.caught_up_ms, the table node_obs (what the indexer saw of the node's\n"
	"validators when it sampled them; --table node_obs dumps it) and the table prices (loaded from\n"
	"outside the chain by snowline prices; --table prices). The dump reads one snapshot of the\n"
	"store (an indexer may be writing to it). docs/operations.md has an example.";

static sl_err write_file(void *ctx, const void *p, size_t n)
{
	return fwrite(p, 1, n, (FILE *)ctx) == n ? SL_OK : SL_ERR_IO;
}

int cmd_dump(int argc, char **argv)
{
	dump_opts o = { 0 };
	sl_config cfg;
	char err[512], e256[256];
	int rc = 2;
	char *tables = NULL;
	const char *names[64] = { 0 };
	if (sl_config_load(&cfg, opts, SL_ARRAY_LEN(opts), &o, argc, argv, NULL, err)) {
		fprintf(stderr, "snowline dump: %s\n", err);
		goto out;
	}
	if (o.help) {
		sl_config_usage(stdout, usage, opts, SL_ARRAY_LEN(opts));
		rc = 0;
		goto out;
	}
	if (o.list) {
		const char *const *all = sl_store_dump_tables(e256);
		if (!all) {
			fprintf(stderr, "snowline dump: %s\n", e256);
			rc = 1;
			goto out;
		}
		for (; *all; all++)
			printf("%s\n", *all);
		rc = 0;
		goto out;
	}
	if (o.tables) {
		tables = strdup(o.tables);
		size_t n = 0;
		for (char *save = NULL, *t = strtok_r(tables, ",", &save); t;
		     t = strtok_r(NULL, ",", &save)) {
			if (n == SL_ARRAY_LEN(names) - 1) {
				fprintf(stderr, "snowline dump: --table names too many tables\n");
				goto out;
			}
			names[n++] = t;
		}
	}
	char store[1100];
	cmd_store(o.store, o.data_dir, false, store, sizeof store);
	FILE *f = stdout;
	if (o.out && !(f = fopen(o.out, "wb"))) {
		fprintf(stderr, "snowline dump: cannot write %s: %s\n", o.out, strerror(errno));
		rc = 1;
		goto out;
	}
	rc = 1;
	sl_db_config dc = { .url = store, .mode = SL_DB_READ, .pool_size = 1 };
	sl_db *db = sl_db_open(&dc, e256);
	sl_conn *c = db ? sl_db_acquire(db, 10000, e256) : NULL;
	if (!c)
		fprintf(stderr, "snowline dump: store %s: %s\n", store, e256);
	else {
		sl_dump_opts d = { .tables = o.tables ? names : NULL, .digest = o.digest };
		if (sl_store_dump(c, &d, write_file, f, e256))
			fprintf(stderr, "snowline dump: %s\n", e256);
		else if (fflush(f))
			fprintf(stderr, "snowline dump: cannot write the dump: %s\n", strerror(errno));
		else
			rc = 0;
		sl_db_release(db, c);
	}
	sl_db_close(db);
	if (f != stdout && fclose(f) && !rc) {
		fprintf(stderr, "snowline dump: cannot write %s: %s\n", o.out, strerror(errno));
		rc = 1;
	}
out:
	free(tables);
	sl_config_release(&cfg);
	return rc;
}
