/*
 * The store's canonical dump (store/dump.h) on both backends: the same rows,
 * written in a scrambled order into a SQLite file and a PostgreSQL database,
 * dump to the same bytes; values in their one encoding each; rows in key
 * order across pages; what is left out is left out; the digests are the
 * SHA-256 of the text. PostgreSQL: the throwaway server of tests/run.sh
 * ($SNOWLINE_TEST_PG), as test_sql.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>

#include "crypto/hash.h"
#include "store/dump.h"
#include "store/sql_backend.h"

#define NVTX 23456 /* vertex_txs rows: more than two of the dump's pages */

static char pg_url[512];

static void fresh_pg(void)
{
	const char *base = getenv("SNOWLINE_TEST_PG");
	if (!base || !*base)
		fail_msg("SNOWLINE_TEST_PG is not set: run the tests with `make test` (tests/run.sh starts "
			 "PostgreSQL), or start one with scripts/pg-test-server.sh");
	char db[64], cmd[1024];
	snprintf(db, sizeof db, "dumptest_%d_%ld", (int)getpid(), random() % 1000000);
	snprintf(cmd, sizeof cmd, "psql -q '%s' -c 'CREATE DATABASE %s' >/dev/null", base, db);
	assert_int_equal(system(cmd), 0);
	const char *slash = strrchr(base, '/');
	snprintf(pg_url, sizeof pg_url, "%.*s/%s", (int)(slash - base), base, db);
}

static sl_err to_buf(void *ctx, const void *p, size_t n)
{
	sl_buf_add(ctx, p, n);
	return ((sl_buf *)ctx)->err;
}

static const sl_sql q_meta = { "INSERT INTO meta (key, value) VALUES (?, ?)" };
static const sl_sql q_cursor = {
	"INSERT INTO cursors (kind, next, last_id, head, caught_up_ms) VALUES (?, ?, ?, ?, ?)"
};
static const sl_sql q_asset = { "INSERT INTO assets (id, name, symbol, denomination, type, cap, tx, ts) "
				"VALUES (?, ?, ?, ?, ?, ?, ?, ?)" };
static const sl_sql q_vtx = { "INSERT INTO vertex_txs (tx, ipos) VALUES (?, ?)" };
static const sl_sql q_addr_tx = { "INSERT INTO addr_txs (chain, addr, seq, ts, type) VALUES (?, ?, ?, ?, ?)" };

static void exec(sl_stmt *s) { assert_int_equal(sl_stmt_exec(s), SL_OK); }

/* The rows, in an order that depends on `salt` (the two stores get them differently). */
static void fill(sl_conn *c, uint32_t salt)
{
	assert_int_equal(sl_conn_begin(c), SL_OK);
	static const char *const keys[] = { "network", "token_secret", "genesis", "a'b\\c\t\n\x01\x7f é" };
	for (size_t j = 0; j < SL_ARRAY_LEN(keys); j++) {
		size_t i = (j + salt) % SL_ARRAY_LEN(keys);
		sl_stmt *s = sl_stmt_get(c, &q_meta);
		sl_bind_text(s, 0, keys[i], strlen(keys[i]));
		uint8_t v[3] = { (uint8_t)i, 0, 0xff }; /* a different secret per store: left out anyway */
		sl_bind_blob(s, 1, v, i == 1 ? 1 + salt % 3 : 3);
		exec(s);
	}
	for (int j = 0; j < 5; j++) {
		int k = (j + (int)salt) % 5;
		sl_stmt *s = sl_stmt_get(c, &q_cursor);
		sl_bind_i64(s, 0, k);
		sl_bind_i64(s, 1, 1000 * k);
		uint8_t id[32] = { (uint8_t)k };
		if (k == 2)
			sl_bind_null(s, 2);
		else
			sl_bind_blob(s, 2, id, 32);
		sl_bind_i64(s, 3, 777 + salt); /* head and caught_up_ms: status, left out */
		sl_bind_i64(s, 4, 123456789 * (int64_t)salt);
		exec(s);
	}
	for (int j = 0; j < 3; j++) {
		int k = (j + (int)salt) % 3;
		sl_stmt *s = sl_stmt_get(c, &q_asset);
		uint8_t id[32] = { 0xa0, (uint8_t)k };
		sl_bind_blob(s, 0, id, 32);
		const char *name = k == 0 ? "Avalanche" : k == 1 ? "it's \"mine\"\\" : "";
		sl_bind_text(s, 1, name, strlen(name));
		sl_bind_text(s, 2, "S\xc3\xa9", 3);
		sl_bind_i64(s, 3, 9);
		sl_bind_i64(s, 4, k);
		sl_bind_i64(s, 5, -k);
		if (k == 0) {
			sl_bind_null(s, 6);
			sl_bind_null(s, 7);
		} else {
			sl_bind_blob(s, 6, "", 0); /* an empty blob is no NULL */
			sl_bind_i64(s, 7, INT64_MIN + k);
		}
		exec(s);
	}
	for (uint32_t j = 0; j < NVTX; j++) {
		uint32_t i = (j * 7919u + salt * 104729u) % NVTX; /* a permutation (7919 is prime to NVTX) */
		uint8_t tx[32] = { 0 };
		sl_put_be32(tx, i * 2654435761u); /* keys out of their insertion order */
		tx[31] = (uint8_t)i;
		sl_stmt *s = sl_stmt_get(c, &q_vtx);
		sl_bind_blob(s, 0, tx, 32);
		sl_bind_i64(s, 1, (int64_t)(i % 3));
		exec(s);
	}
	for (int j = 0; j < 4; j++) {
		int k = (j + (int)salt) % 4;
		sl_stmt *s = sl_stmt_get(c, &q_addr_tx);
		uint8_t addr[20] = { (uint8_t)(k / 2) };
		sl_bind_i64(s, 0, 3);
		sl_bind_blob(s, 1, addr, 20);
		sl_bind_i64(s, 2, k % 2 ? -5 : 1ll << 62);
		sl_bind_i64(s, 3, 0);
		sl_bind_i64(s, 4, k);
		exec(s);
	}
	assert_int_equal(sl_conn_commit(c), SL_OK);
}

static void dump_into(sl_conn *c, const sl_dump_opts *o, sl_buf *out)
{
	char err[256];
	sl_buf_reset(out);
	sl_err e = sl_store_dump(c, o, to_buf, out, err);
	if (e)
		fail_msg("dump: %s (%s)", err, sl_err_name(e));
}

static bool has_line(const sl_buf *b, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = sl_buf_str(b); (p = strstr(p, line)); p++)
		if ((p == sl_buf_str(b) || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

/* A line "<word> …" in b. */
static bool has_line_starting(const sl_buf *b, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = sl_buf_str(b); p; p = strchr(p, '\n')) {
		p += *p == '\n';
		if (!strncmp(p, word, n) && p[n] == ' ')
			return true;
	}
	return false;
}

/* Dump a filled store; the text goes to out (for comparing backends). */
static void check_store(const char *url, uint32_t salt, sl_buf *text)
{
	char err[256];
	sl_db_config cfg = { .url = url, .mode = SL_DB_WRITE };
	sl_db *db = sl_db_open(&cfg, err);
	if (!db)
		fail_msg("open %s: %s", url, err);
	sl_conn *c = sl_db_acquire(db, 1000, err);
	assert_non_null(c);
	fill(c, salt);
	sl_buf out;
	sl_buf_init(&out, 1u << 30);
	dump_into(c, NULL, text);

	/* the form */
	char head[64];
	snprintf(head, sizeof head, "snowline-dump 1 schema %d", SL_SCHEMA_VERSION);
	assert_true(has_line(text, head));
	assert_true(has_line(text, "table meta key:text value:blob"));
	assert_true(has_line(text, "meta\t'a\\'b\\\\c\\t\\n\\x01\\x7f é'\tx'0300ff'"));
	assert_true(has_line(text, "meta\t'genesis'\tx'0200ff'"));
	assert_null(strstr(sl_buf_str(text), "meta\t'token_secret'"));
	assert_true(has_line(text, "end meta 3"));
	assert_true(has_line(text, "table cursors kind:int next:int last_id:blob"));
	assert_true(has_line(text, "cursors\t2\t2000\tNULL"));
	assert_true(has_line(
		text, "cursors\t4\t4000\tx'04000000000000000000000000000000000000000000000000000000000000"
		      "00'"));
	assert_true(has_line(text,
			     "assets\tx'a00100000000000000000000000000000000000000000000000000000000000"
			     "0'\t'it\\'s \"mine\"\\\\'\t'S\xc3\xa9'\t9\t1\t-1\tx''\t-9223372036854775807"));
	assert_true(has_line(text, "assets\tx'a00000000000000000000000000000000000000000000000000000000000000"
				   "0'\t'Avalanche'\t'S\xc3\xa9'\t9\t0\t0\tNULL\tNULL"));
	char line[128];
	snprintf(line, sizeof line, "end vertex_txs %d", NVTX);
	assert_true(has_line(text, line));
	/* rows in key order: vertex_txs by tx across its pages, addr_txs by (chain, addr, seq) */
	const char *p = strstr(sl_buf_str(text), "\nvertex_txs\t");
	assert_non_null(p);
	char prev[80] = "";
	int rows = 0;
	for (; p && !strncmp(p, "\nvertex_txs\t", 12); p = strchr(p + 1, '\n')) {
		char key[80];
		snprintf(key, sizeof key, "%.66s", p + 12);
		assert_true(strcmp(prev, key) < 0);
		memcpy(prev, key, sizeof key);
		rows++;
	}
	assert_int_equal(rows, NVTX);
	const char *a = strstr(sl_buf_str(text), "addr_txs\t3\tx'00"),
		   *z = strstr(sl_buf_str(text), "end addr_txs");
	assert_non_null(a);
	assert_non_null(z);
	const char *want[] = { "\t-5\t0\t1\n", "\t4611686018427387904\t0\t0\n", "\t-5\t0\t3\n",
			       "\t4611686018427387904\t0\t2\n" };
	for (size_t i = 0; i < SL_ARRAY_LEN(want); i++) {
		const char *w = strstr(a, want[i]);
		assert_non_null(w);
		assert_true(w < z);
		a = w + 1;
	}

	/* digests: per table and of the whole text */
	sl_dump_opts d = { .digest = true };
	dump_into(c, &d, &out);
	uint8_t h[32];
	sl_sha256(text->p, text->len, h);
	snprintf(line, sizeof line, "all %d ", 3 + 5 + 3 + NVTX + 4);
	for (int i = 0; i < 32; i++)
		snprintf(line + strlen(line), 3, "%02x", h[i]);
	assert_true(has_line(&out, line));
	const char *const *tables = sl_store_dump_tables(err);
	assert_non_null(tables);
	int ntables = 0;
	/* every table but node_obs (the node's view when sampled, not the chain), prices (loaded
	 * from outside the chain) and operations (the API's export jobs), which are dumped only when
	 * asked for by name */
	for (; tables[ntables]; ntables++)
		assert_true(has_line_starting(&out, tables[ntables]) ==
			    (strcmp(tables[ntables], "node_obs") && strcmp(tables[ntables], "prices") &&
			     strcmp(tables[ntables], "operations")));
	/* every table the schema makes, in its order: created, less those dropped, renamed where
	 * renamed (v11 makes utxos_v11, drops utxos, renames utxos_v11 utxos) */
	char made[64][48];
	int created = 0;
	for (size_t m = 0; m < sl_nmigrations; m++)
		for (const char *const *s = sl_migrations[m].ddl; *s; s++) {
			char t1[48], t2[48];
			if (sscanf(*s, "CREATE TABLE %47s", t1) == 1) {
				assert_true(created < 64);
				snprintf(made[created++], sizeof made[0], "%s", t1);
			} else if (sscanf(*s, "DROP TABLE %47s", t1) == 1) {
				int i = 0;
				while (i < created && strcmp(made[i], t1))
					i++;
				assert_true(i < created);
				memmove(made[i], made[i + 1], (size_t)(created - i - 1) * sizeof made[0]);
				created--;
			} else if (sscanf(*s, "ALTER TABLE %47s RENAME TO %47s", t1, t2) == 2) {
				for (int i = 0; i < created; i++)
					if (!strcmp(made[i], t1))
						snprintf(made[i], sizeof made[0], "%s", t2);
			}
		}
	assert_int_equal(created, ntables);
	for (int i = 0; i < created; i++)
		assert_string_equal(made[i], tables[i]);
	assert_string_equal(tables[0], "meta");

	/* some tables only */
	const char *only[] = { "assets", "cursors", NULL };
	d = (sl_dump_opts){ .tables = only };
	dump_into(c, &d, &out);
	assert_true(has_line(&out, "end cursors 5"));
	assert_true(has_line(&out, "end assets 3"));
	assert_null(strstr(sl_buf_str(&out), "table meta"));
	assert_true(strstr(sl_buf_str(&out), "table cursors") < strstr(sl_buf_str(&out), "table assets"));
	const char *obs[] = { "node_obs", NULL };
	d = (sl_dump_opts){ .tables = obs };
	dump_into(c, &d, &out);
	assert_true(has_line(&out, "end node_obs 0"));
	const char *bad[] = { "nope", NULL };
	d = (sl_dump_opts){ .tables = bad };
	assert_int_equal(sl_store_dump(c, &d, to_buf, &out, err), SL_ERR_NOT_FOUND);
	assert_non_null(strstr(err, "no table 'nope'"));

	sl_buf_release(&out);
	sl_db_release(db, c);
	sl_db_close(db);
}

static void test_backends_dump_alike(void **state)
{
	(void)state;
	char dir[] = "/tmp/snowline-dump-XXXXXX", path[300], cmd[400];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/store.db", dir);
	fresh_pg();
	sl_buf a, b;
	sl_buf_init(&a, 1u << 30);
	sl_buf_init(&b, 1u << 30);
	check_store(path, 1, &a);
	check_store(pg_url, 2, &b);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.p, b.p, a.len);

	/* a value outside the portable dialect (SQLite stores what it is given): the dump refuses it */
	char err[256];
	sl_db_config cfg = { .url = path, .mode = SL_DB_WRITE };
	sl_db *db = sl_db_open(&cfg, err);
	assert_non_null(db);
	sl_conn *c = sl_db_acquire(db, 1000, err);
	assert_int_equal(
		sl_conn_exec_raw(c,
				 "INSERT INTO rewards (staking_tx, utxo, type) VALUES (x'00', x'01', 1.5)"),
		SL_OK);
	assert_int_equal(sl_store_dump(c, NULL, to_buf, &a, err), SL_ERR_UNSUPPORTED);
	assert_non_null(strstr(err, "rewards.type holds a value of a type outside the portable dialect"));
	sl_db_release(db, c);
	sl_db_close(db);

	sl_buf_release(&a);
	sl_buf_release(&b);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	srandom((unsigned)getpid());
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backends_dump_alike),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
