/*
 * The store's query interface (store/sql.h) on both backends, with the same
 * checks: SQLite in a temporary file, and PostgreSQL 15 in a database of the
 * throwaway server tests/run.sh starts ($SNOWLINE_TEST_PG, made by
 * scripts/pg-test-server.sh). Nothing is skipped: without that server the
 * PostgreSQL half fails and says how to get one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/sql.h"

static char sqlite_path[256];
static char pg_url[512];

/* A fresh database per run: a new SQLite file, a new PostgreSQL database. */
static void fresh_pg(void)
{
	const char *base = getenv("SNOWLINE_TEST_PG");
	if (!base || !*base)
		fail_msg("SNOWLINE_TEST_PG is not set: run the tests with `make test` (tests/run.sh starts "
			 "PostgreSQL), or start one with scripts/pg-test-server.sh");
	char db[64], cmd[1024];
	snprintf(db, sizeof db, "sqltest_%d_%ld", (int)getpid(), random() % 1000000);
	snprintf(cmd, sizeof cmd, "psql -q '%s' -c 'CREATE DATABASE %s' >/dev/null", base, db);
	assert_int_equal(system(cmd), 0);
	const char *slash = strrchr(base, '/');
	snprintf(pg_url, sizeof pg_url, "%.*s/%s", (int)(slash - base), base, db);
}

static sl_db *open_db(const char *url, sl_db_mode mode)
{
	char err[256] = "";
	sl_db_config cfg = { .url = url, .mode = mode };
	sl_db *db = sl_db_open(&cfg, err);
	if (!db)
		fail_msg("open %s: %s", url, err);
	return db;
}

static const sl_sql q_create = {
	"CREATE TABLE IF NOT EXISTS t (k BIGINT PRIMARY KEY, b BYTEA, s TEXT, a BYTEA)"
};
static const sl_sql q_insert = {
	"INSERT INTO t (k, b, s, a) VALUES (?, ?, ?, ?) ON CONFLICT (k) DO UPDATE SET s = excluded.s"
};
static const sl_sql q_select = { "SELECT k, b, s, a FROM t WHERE a >= ? ORDER BY a" };
static const sl_sql q_count = { "SELECT COUNT(*) FROM t" };
static const sl_sql q_dup = { "INSERT INTO t (k) VALUES (?)" };
static const sl_sql q_row = { "SELECT k, b, s, a FROM t WHERE k = ?" };
static const sl_sql q_keep = { "INSERT INTO t (k, s) VALUES (?, ?) ON CONFLICT DO NOTHING" };
static const sl_sql q_drop = { "DELETE FROM t WHERE k >= ?" };

static int64_t count(sl_conn *c)
{
	sl_stmt *s = sl_stmt_get(c, &q_count);
	assert_non_null(s);
	assert_int_equal(sl_stmt_query(s), SL_OK);
	assert_true(sl_stmt_next(s, NULL));
	return sl_col_i64(s, 0);
}

static void check_backend(const char *url, const char *name)
{
	char err[256];
	sl_db *w = open_db(url, SL_DB_WRITE);
	assert_string_equal(sl_db_backend(w), name);
	assert_true(sl_db_schema_version(w) >= 1);
	sl_conn *c = sl_db_acquire(w, 1000, err);
	assert_non_null(c);
	/* BYTEA is not SQLite's word, but SQLite takes any type name: the test table is portable as written. */
	sl_stmt *s = sl_stmt_get(c, &q_create);
	assert_non_null(s);
	assert_int_equal(sl_stmt_exec(s), SL_OK);

	/* a transaction of pipelined inserts: ints, blobs with zero bytes, text, NULL, amounts */
	assert_int_equal(sl_conn_begin(c), SL_OK);
	static const uint64_t amounts[] = { 0, 1, 255, 256, 1ull << 63, UINT64_MAX, 720000000000000000ull };
	for (size_t i = 0; i < SL_ARRAY_LEN(amounts); i++) {
		s = sl_stmt_get(c, &q_insert);
		assert_non_null(s);
		sl_bind_i64(s, 0, (int64_t)i - 3);
		sl_bind_blob(s, 1, "\0\1\0\2", 4);
		if (i == 2)
			sl_bind_null(s, 2);
		else
			sl_bind_text(s, 2, "naïve ✓", strlen("naïve ✓"));
		sl_bind_u64be(s, 3, amounts[i]);
		assert_int_equal(sl_stmt_exec(s), SL_OK);
	}
	assert_int_equal(sl_conn_commit(c), SL_OK);
	assert_int_equal(count(c), (int64_t)SL_ARRAY_LEN(amounts));

	/* amounts compare and sort as numbers */
	s = sl_stmt_get(c, &q_select);
	sl_bind_u64be(s, 0, 256);
	assert_int_equal(sl_stmt_query(s), SL_OK);
	uint64_t prev = 0;
	int rows = 0;
	sl_err e = SL_OK;
	while (sl_stmt_next(s, &e)) {
		uint64_t a = sl_col_u64be(s, 3);
		assert_true(a >= 256 && a >= prev);
		prev = a;
		size_t n;
		const uint8_t *b = sl_col_blob(s, 1, &n);
		assert_int_equal(n, 4);
		assert_memory_equal(b, "\0\1\0\2", 4);
		assert_false(sl_col_null(s, 2));
		const char *t = sl_col_text(s, 2, &n);
		assert_int_equal(n, strlen("naïve ✓"));
		assert_memory_equal(t, "naïve ✓", n);
		rows++;
	}
	assert_int_equal(e, SL_OK);
	assert_int_equal(rows, 4); /* 256, 2^63, 7.2e17, 2^64-1 */
	assert_int_equal(prev, UINT64_MAX);

	/* the type of each value, and the number of columns */
	for (int k = -3; k <= -1; k++) {
		s = sl_stmt_get(c, &q_row);
		sl_bind_i64(s, 0, k);
		assert_int_equal(sl_stmt_query(s), SL_OK);
		assert_int_equal(sl_col_count(s), 4);
		assert_true(sl_stmt_next(s, &e));
		assert_int_equal(sl_col_type(s, 0), SL_COL_INT);
		assert_int_equal(sl_col_type(s, 1), SL_COL_BLOB);
		assert_int_equal(sl_col_type(s, 2),
				 k == -1 ? SL_COL_NULL : SL_COL_TEXT); /* row 2 has no text */
		assert_int_equal(sl_col_type(s, 3), SL_COL_BLOB);
		assert_false(sl_stmt_next(s, &e));
		assert_int_equal(e, SL_OK);
	}

	/* Many rows of the same INSERTs in one transaction (PostgreSQL sends them several to a
	 * statement): each key upserted twice in a row, rows kept against later duplicates, a query
	 * between them, NULL and empty values, and more rows than one statement takes. Each reads as
	 * if the rows had been written one by one. */
	assert_int_equal(sl_conn_begin(c), SL_OK);
	for (int i = 0; i < 300; i++) {
		char t[32];
		int tn = snprintf(t, sizeof t, "v%d", i);
		s = sl_stmt_get(c, &q_insert);
		sl_bind_i64(s, 0, 1000 + i / 2);
		if (i % 3 == 0)
			sl_bind_blob(s, 1, "", 0);
		else
			sl_bind_null(s, 1);
		sl_bind_text(s, 2, t, (size_t)tn);
		sl_bind_null(s, 3);
		assert_int_equal(sl_stmt_exec(s), SL_OK);
		if (i == 150) /* everything executed before a query is there for it */
			assert_int_equal(count(c), (int64_t)SL_ARRAY_LEN(amounts) + 76);
	}
	for (int i = 0; i < 300; i++) {
		char t[32];
		int tn = snprintf(t, sizeof t, "v%d", i);
		s = sl_stmt_get(c, &q_keep); /* kept once: the first of these for a key wins */
		sl_bind_i64(s, 0, 5000 + i % 7);
		sl_bind_text(s, 1, t, (size_t)tn);
		assert_int_equal(sl_stmt_exec(s), SL_OK);
	}
	assert_int_equal(sl_conn_commit(c), SL_OK);
	assert_int_equal(count(c), (int64_t)SL_ARRAY_LEN(amounts) + 150 + 7);
	for (int64_t k = 1000; k < 1150; k++) {
		s = sl_stmt_get(c, &q_row);
		sl_bind_i64(s, 0, k);
		assert_int_equal(sl_stmt_query(s), SL_OK);
		assert_true(sl_stmt_next(s, &e));
		int first = 2 * (int)(k - 1000);
		char t[32];
		snprintf(t, sizeof t, "v%d", first + 1); /* the second upsert's */
		size_t n;
		const char *got = sl_col_text(s, 2, &n);
		assert_int_equal(n, strlen(t));
		assert_memory_equal(got, t, n);
		/* b is the first row's (the upsert sets only s): empty, not NULL, every third */
		assert_int_equal(sl_col_null(s, 1), first % 3 != 0);
		if (first % 3 == 0) {
			assert_int_equal(sl_col_type(s, 1), SL_COL_BLOB);
			(void)sl_col_blob(s, 1, &n);
			assert_int_equal(n, 0);
		}
		assert_false(sl_stmt_next(s, &e));
	}
	for (int64_t k = 5000; k < 5007; k++) {
		s = sl_stmt_get(c, &q_row);
		sl_bind_i64(s, 0, k);
		assert_int_equal(sl_stmt_query(s), SL_OK);
		assert_true(sl_stmt_next(s, &e));
		char t[32];
		snprintf(t, sizeof t, "v%d", (int)(k - 5000));
		size_t n;
		const char *got = sl_col_text(s, 2, &n);
		assert_int_equal(n, strlen(t));
		assert_memory_equal(got, t, n);
	}
	/* rows waiting when a transaction is rolled back are not written later */
	assert_int_equal(sl_conn_begin(c), SL_OK);
	s = sl_stmt_get(c, &q_keep);
	sl_bind_i64(s, 0, 6000);
	sl_bind_null(s, 1);
	assert_int_equal(sl_stmt_exec(s), SL_OK);
	sl_conn_rollback(c);
	assert_int_equal(sl_conn_begin(c), SL_OK);
	assert_int_equal(sl_conn_commit(c), SL_OK);
	assert_int_equal(count(c), (int64_t)SL_ARRAY_LEN(amounts) + 150 + 7);
	s = sl_stmt_get(c, &q_drop);
	sl_bind_i64(s, 0, 1000);
	assert_int_equal(sl_stmt_exec(s), SL_OK);
	assert_int_equal(count(c), (int64_t)SL_ARRAY_LEN(amounts));

	/* a failing statement in a pipelined transaction: reported by commit at the latest, all rolled back */
	assert_int_equal(sl_conn_begin(c), SL_OK);
	s = sl_stmt_get(c, &q_insert);
	sl_bind_i64(s, 0, 100);
	sl_bind_null(s, 1);
	sl_bind_null(s, 2);
	sl_bind_null(s, 3);
	e = sl_stmt_exec(s);
	if (!e) {
		s = sl_stmt_get(c, &q_dup);
		sl_bind_i64(s, 0, -3); /* already there */
		e = sl_stmt_exec(s);
	}
	if (!e)
		e = sl_conn_commit(c);
	else
		sl_conn_rollback(c);
	assert_int_equal(e, SL_ERR_CONFLICT);
	assert_true(*sl_conn_error(c));
	assert_int_equal(count(c), (int64_t)SL_ARRAY_LEN(amounts)); /* row 100 was rolled back too */

	/* a second writer is refused while the first lives */
	sl_db_config wcfg = { .url = url, .mode = SL_DB_WRITE };
	sl_db *w2 = sl_db_open(&wcfg, err);
	assert_null(w2);
	assert_non_null(strstr(err, name[0] == 's' ? "is in use by another snowline process"
						   : "another snowline indexer"));

	/* readers see committed rows, also those committed after they opened the store (the first
	 * connection, which checked the schema, holds no snapshot of the store as it was then), and
	 * cannot write */
	sl_db *r = open_db(url, SL_DB_READ);
	assert_int_equal(sl_conn_begin(c), SL_OK);
	s = sl_stmt_get(c, &q_dup);
	sl_bind_i64(s, 0, 200);
	assert_int_equal(sl_stmt_exec(s), SL_OK);
	assert_int_equal(sl_conn_commit(c), SL_OK);
	sl_conn *rc = sl_db_acquire(r, 1000, err);
	assert_non_null(rc);
	assert_int_equal(count(rc), (int64_t)SL_ARRAY_LEN(amounts) + 1);
	/* a read transaction sees one moment: not a row committed after its first read */
	assert_int_equal(sl_conn_begin_read(rc), SL_OK);
	assert_int_equal(count(rc), (int64_t)SL_ARRAY_LEN(amounts) + 1);
	s = sl_stmt_get(c, &q_dup);
	sl_bind_i64(s, 0, 500);
	assert_int_equal(sl_stmt_exec(s), SL_OK);
	assert_int_equal(count(c), (int64_t)SL_ARRAY_LEN(amounts) + 2);
	assert_int_equal(count(rc), (int64_t)SL_ARRAY_LEN(amounts) + 1);
	sl_conn_rollback(rc);
	assert_int_equal(count(rc), (int64_t)SL_ARRAY_LEN(amounts) + 2);
	s = sl_stmt_get(rc, &q_dup);
	if (s) {
		sl_bind_i64(s, 0, 1000);
		assert_int_not_equal(sl_stmt_exec(s), SL_OK);
	}
	assert_int_equal(count(rc), (int64_t)SL_ARRAY_LEN(amounts) + 2);
	sl_db_release(r, rc);
	sl_db_close(r);
	sl_db_release(w, c);
	sl_db_close(w);
}

static void test_sqlite(void **state)
{
	(void)state;
	char dir[] = "/tmp/snowline-sql-XXXXXX";
	assert_non_null(mkdtemp(dir));
	snprintf(sqlite_path, sizeof sqlite_path, "%s/store.db", dir);
	/* a reader cannot open a store that was never made */
	char err[256];
	sl_db_config rcfg = { .url = sqlite_path, .mode = SL_DB_READ };
	assert_null(sl_db_open(&rcfg, err));
	check_backend(sqlite_path, "sqlite");
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static int64_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) ? -1 : (int64_t)st.st_size;
}

/* Until the file at path holds at least `bytes`, up to 10 s. */
static bool grows_to(const char *path, int64_t bytes)
{
	for (int i = 0; i < 1000 && file_size(path) < bytes; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000000 }, NULL);
	return file_size(path) >= bytes;
}

static const sl_sql q_wide = { "CREATE TABLE w (k INTEGER PRIMARY KEY, b BLOB NOT NULL)" };
static const sl_sql q_wide_put = { "INSERT INTO w (k, b) VALUES (?, ?)" };
static const sl_sql q_wide_count = { "SELECT count(*), sum(length(b)) FROM w" };

/* One transaction of n rows of 64 KiB. */
static void put_wide(sl_conn *c, int64_t from, int n)
{
	static uint8_t blob[64 << 10];
	assert_int_equal(sl_conn_begin(c), SL_OK);
	for (int i = 0; i < n; i++) {
		memset(blob, (int)(from + i), sizeof blob);
		sl_stmt *s = sl_stmt_get(c, &q_wide_put);
		sl_bind_i64(s, 0, from + i);
		sl_bind_blob(s, 1, blob, sizeof blob);
		assert_int_equal(sl_stmt_exec(s), SL_OK);
	}
	assert_int_equal(sl_conn_commit(c), SL_OK);
}

/*
 * SQLite's writer checkpoints on a thread of its own: a commit past 40 MiB of WAL is copied into
 * the database without the writer's help, the next transaction then writes the WAL from its
 * start again, and a reader sees every row throughout.
 */
static void test_sqlite_checkpoints(void **state)
{
	(void)state;
	char dir[] = "/tmp/snowline-sql-XXXXXX", err[256];
	assert_non_null(mkdtemp(dir));
	char path[256], wal[300];
	snprintf(path, sizeof path, "%s/store.db", dir);
	snprintf(wal, sizeof wal, "%s-wal", path);
	sl_db *w = open_db(path, SL_DB_WRITE);
	sl_conn *c = sl_db_acquire(w, 1000, err);
	assert_non_null(c);
	assert_int_equal(sl_stmt_exec(sl_stmt_get(c, &q_wide)), SL_OK);
	int64_t base = file_size(path);

	put_wide(c, 0, 800); /* 50 MiB */
	int64_t wal1 = file_size(wal);
	assert_true(wal1 > 50ll << 20);
	assert_true(grows_to(path, base + (50ll << 20)));		 /* copied, while the writer idles */
	nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000000 }, NULL); /* the pass ends after its copy */
	put_wide(c, 800, 800);
	assert_true(file_size(wal) <= wal1 + (1 << 20)); /* written from its start again, not appended */
	assert_true(grows_to(path, base + (100ll << 20)));

	sl_db *r = open_db(path, SL_DB_READ);
	sl_conn *rc = sl_db_acquire(r, 1000, err);
	assert_non_null(rc);
	sl_stmt *s = sl_stmt_get(rc, &q_wide_count);
	assert_int_equal(sl_stmt_query(s), SL_OK);
	assert_true(sl_stmt_next(s, NULL));
	assert_int_equal(sl_col_i64(s, 0), 1600);
	assert_int_equal(sl_col_i64(s, 1), 1600ll << 16);
	sl_db_release(r, rc);
	sl_db_close(r);
	sl_db_release(w, c);
	sl_db_close(w);
	assert_true(file_size(wal) <= 0); /* the last close copies what is left and removes it */
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * The side file (sql_sqlite.c): a fresh store's address tables live in <path>-side, which the
 * writer's side thread writes from the groups the writer logs in the main file. A side file left
 * one group behind (a crash between the two commits, made here by putting back a copy of the side
 * file from before the second group) is brought up to the main file by the next writer, before it
 * writes; a side file of another store is refused.
 */
static const sl_sql q_act_put = { "INSERT INTO addr_txs (chain, addr, seq, ts, type) VALUES (?, ?, ?, ?, ?) "
				  "ON CONFLICT DO NOTHING" };
static const sl_sql q_act_count = { "SELECT count(*), coalesce(sum(seq), 0) FROM addr_txs" };

static void put_acts(const char *path, int64_t from, int64_t to)
{
	sl_db *w = open_db(path, SL_DB_WRITE);
	char err[256];
	sl_conn *c = sl_db_acquire(w, 1000, err);
	assert_non_null(c);
	assert_int_equal(sl_conn_begin(c), SL_OK);
	for (int64_t k = from; k <= to; k++) {
		uint8_t addr[20] = { (uint8_t)(k % 7) };
		sl_stmt *s = sl_stmt_get(c, &q_act_put);
		assert_non_null(s);
		sl_bind_i64(s, 0, 1);
		sl_bind_blob(s, 1, addr, 20);
		sl_bind_i64(s, 2, k);
		sl_bind_i64(s, 3, 1700000000 + k);
		sl_bind_i64(s, 4, 0);
		assert_int_equal(sl_stmt_exec(s), SL_OK);
	}
	assert_int_equal(sl_conn_commit(c), SL_OK);
	sl_db_release(w, c);
	sl_db_close(w);
}

/* The rows and the sum of their seqs, as an API server reads them. */
static void acts(const char *path, int64_t *n, int64_t *sum)
{
	sl_db *r = open_db(path, SL_DB_READ);
	char err[256];
	sl_conn *c = sl_db_acquire(r, 1000, err);
	assert_non_null(c);
	assert_int_equal(sl_conn_begin_read(c), SL_OK);
	sl_stmt *s = sl_stmt_get(c, &q_act_count);
	assert_non_null(s);
	sl_err e = sl_stmt_query(s);
	assert_true(!e && sl_stmt_next(s, &e));
	*n = sl_col_i64(s, 0);
	*sum = sl_col_i64(s, 1);
	while (sl_stmt_next(s, &e))
		;
	sl_db_release(r, c);
	sl_db_close(r);
}

static void shell(const char *cmd) { assert_int_equal(system(cmd), 0); }

static void test_sqlite_side_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/snowline-side-XXXXXX", path[300], other[300], side[320];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/store.db", dir);
	snprintf(other, sizeof other, "%s/other.db", dir);
	snprintf(side, sizeof side, "%s-side", path);
	int64_t n, sum;

	put_acts(path, 1, 100);
	assert_true(file_size(side) > 0); /* the rows went to the side file */
	acts(path, &n, &sum);
	assert_int_equal(n, 100);
	assert_int_equal(sum, 5050);

	char cmd[1024];
	snprintf(cmd, sizeof cmd, "cp %s %s/saved-side", side, dir);
	shell(cmd);
	put_acts(path, 101, 300);
	acts(path, &n, &sum);
	assert_int_equal(n, 300);
	/* the side file as it was before the second group: a reader sees it behind */
	snprintf(cmd, sizeof cmd, "rm -f %s-wal %s-shm && cp %s/saved-side %s", side, side, dir, side);
	shell(cmd);
	acts(path, &n, &sum);
	assert_int_equal(n, 100);
	/* the next writer applies the group logged after the side file's last, before anything else */
	put_acts(path, 301, 301);
	acts(path, &n, &sum);
	assert_int_equal(n, 301);
	assert_int_equal(sum, 301 * 302 / 2);

	/* another store's side file is not this one's */
	put_acts(other, 1, 1);
	snprintf(cmd, sizeof cmd, "cp %s-side %s", other, side);
	shell(cmd);
	char err[256];
	sl_db_config cfg = { .url = path, .mode = SL_DB_WRITE };
	sl_db *w = sl_db_open(&cfg, err);
	assert_null(w);
	assert_non_null(strstr(err, "is not the side file of"));
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	shell(cmd);
}

static void test_postgres(void **state)
{
	(void)state;
	fresh_pg();
	char err[256];
	sl_db_config rcfg = { .url = pg_url, .mode = SL_DB_READ };
	sl_db *r = sl_db_open(&rcfg, err);
	assert_null(r);
	assert_non_null(strstr(err, "no snowline schema"));
	check_backend(pg_url, "postgres");
}

int main(void)
{
	srandom((unsigned)getpid());
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sqlite),
		cmocka_unit_test(test_sqlite_checkpoints),
		cmocka_unit_test(test_sqlite_side_file),
		cmocka_unit_test(test_postgres),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
