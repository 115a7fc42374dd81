/*
 * Migrations that move rows, on both backends: a store made at the version
 * before, with rows of every kind the migration handles, opened by the
 * current build, holds the same facts in the new layout.
 *
 * v11 (schema.c): utxos keyed by (chain, pos, id), pos the seq of the tx the
 * UTXO's id names (a reward UTXO: its staking tx's; a genesis UTXO: 0);
 * spends whose UTXO was not made yet (rows without a tx) move to
 * early_spends. PostgreSQL: the throwaway server of tests/run.sh
 * ($SNOWLINE_TEST_PG), as test_dump.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>

#include "store/dump.h"
#include "store/sql_backend.h"

static const sl_sql q_tx = { "INSERT INTO txs (chain, seq, id, ts, type, height, block, bytes) "
			     "VALUES (?, ?, ?, 100, 0, NULL, NULL, ?)" };
static const sl_sql q_old_utxo = {
	"INSERT INTO utxos (id, tx, idx, chain, dest, asset, amount, otype, locktime, stake_lock, threshold, addrs, "
	"group_id, staked, stake_start, stake_end, reward, ts, seq, ctx, cchain, cts, cseq, cin, ctype) VALUES "
	"(?, ?, ?, ?, ?, ?, ?, 7, 0, 0, 1, ?, 0, 0, 0, 0, ?, 100, ?, ?, ?, ?, ?, ?, ?)"
};
static const sl_sql q_spend_only = {
	"INSERT INTO utxos (id, ctx, cchain, cheight, cblock, cts, cseq, cin, ctype) "
	"VALUES (?, ?, 2, 40, ?, 300, 99, 3, 0)"
};
static const sl_sql q_new = {
	"SELECT chain, pos, id, tx, idx, reward, ctx, cseq FROM utxos ORDER BY chain, pos, id"
};
static const sl_sql q_early = {
	"SELECT id, ctx, cchain, cheight, cblock, cts, cseq, cin, ctype FROM early_spends"
};

static uint8_t id32(uint8_t v, uint8_t out[32])
{
	memset(out, 0, 32);
	out[0] = v;
	return v;
}

static sl_db *open_at(const char *url, int upto)
{
	char err[256];
	sl_db_config cfg = { .url = url, .mode = SL_DB_WRITE, .schema_upto = upto };
	sl_db *db = sl_db_open(&cfg, err);
	if (!db)
		fail_msg("open %s at %d: %s", url, upto, err);
	return db;
}

/* A UTXO of the old layout: made by tx (chain), spent (cseq > 0) or not. */
static void old_utxo(sl_conn *c, uint8_t id, uint8_t tx, uint32_t idx, int chain, int reward, int64_t seq,
		     int64_t cseq)
{
	uint8_t b[32], t[32], k[32];
	id32(id, b);
	id32(tx, t);
	id32(0xcc, k);
	sl_stmt *s = sl_stmt_get(c, &q_old_utxo);
	assert_non_null(s);
	sl_bind_blob(s, 0, b, 32);
	sl_bind_blob(s, 1, t, 32);
	sl_bind_i64(s, 2, idx);
	sl_bind_i64(s, 3, chain);
	sl_bind_i64(s, 4, chain);
	static const uint8_t asset[1] = { 0xaa }, addr[20] = { 1 };
	sl_bind_blob(s, 5, asset, 1);
	sl_bind_u64be(s, 6, 7);
	sl_bind_blob(s, 7, addr, 20);
	sl_bind_i64(s, 8, reward);
	sl_bind_i64(s, 9, seq);
	for (int i = 10; i <= 15; i++)
		if (!cseq)
			sl_bind_null(s, i);
	if (cseq) {
		sl_bind_blob(s, 10, k, 32);
		sl_bind_i64(s, 11, chain);
		sl_bind_i64(s, 12, 200);
		sl_bind_i64(s, 13, cseq);
		sl_bind_i64(s, 14, 0);
		sl_bind_i64(s, 15, 0);
	}
	assert_int_equal(sl_stmt_exec(s), SL_OK);
}

static void check_v11(const char *url)
{
	/* the store at version 10, with what v11 moves */
	sl_db *db = open_at(url, 10);
	assert_int_equal(sl_db_schema_version(db), 10);
	char err[256];
	sl_conn *c = sl_db_acquire(db, 1000, err);
	assert_non_null(c);
	assert_int_equal(sl_conn_begin(c), SL_OK);
	const struct {
		int chain;
		int64_t seq;
		uint8_t id;
	} txs[] = { { 1, 5, 0xa1 }, { 0, 7, 0xb1 }, { 2, 9, 0xc1 } };
	for (size_t i = 0; i < SL_ARRAY_LEN(txs); i++) {
		uint8_t t[32];
		id32(txs[i].id, t);
		sl_stmt *s = sl_stmt_get(c, &q_tx);
		assert_non_null(s);
		sl_bind_i64(s, 0, txs[i].chain);
		sl_bind_i64(s, 1, txs[i].seq);
		sl_bind_blob(s, 2, t, 32);
		sl_bind_blob(s, 3, t, 1);
		assert_int_equal(sl_stmt_exec(s), SL_OK);
	}
	old_utxo(c, 0x01, 0xa1, 0, 1, 0, 5, 0);	 /* an X-chain tx's output, unspent */
	old_utxo(c, 0x02, 0xa1, 1, 1, 0, 5, 12); /* and one spent */
	old_utxo(c, 0x03, 0xb1, 3, 0, 1, 20, 0); /* a reward: its id names the staking tx (seq 7) */
	old_utxo(c, 0x04, 0x77, 0, 0, 0, 0, 0);	 /* the genesis's: no tx of the store */
	old_utxo(c, 0x05, 0xc1, 0, 2, 0, 9, 0);	 /* an export of the C-chain */
	uint8_t b[32], t[32], blk[32];
	sl_stmt *s = sl_stmt_get(c, &q_spend_only);
	assert_non_null(s);
	sl_bind_blob(s, 0, (id32(0x06, b), b), 32);
	sl_bind_blob(s, 1, (id32(0xd1, t), t), 32);
	sl_bind_blob(s, 2, (id32(0xe1, blk), blk), 32);
	assert_int_equal(sl_stmt_exec(s), SL_OK);
	assert_int_equal(sl_conn_commit(c), SL_OK);
	sl_db_release(db, c);
	sl_db_close(db);

	/* opened by this build: migrated */
	db = open_at(url, 0);
	assert_int_equal(sl_db_schema_version(db), SL_SCHEMA_VERSION);
	c = sl_db_acquire(db, 1000, err);
	assert_non_null(c);
	const struct {
		int chain;
		int64_t pos;
		uint8_t id, tx;
		int idx, reward;
		int64_t cseq; /* 0: unspent */
	} want[] = { { 0, 0, 0x04, 0x77, 0, 0, 0 },
		     { 0, 7, 0x03, 0xb1, 3, 1, 0 },
		     { 1, 5, 0x01, 0xa1, 0, 0, 0 },
		     { 1, 5, 0x02, 0xa1, 1, 0, 12 },
		     { 2, 9, 0x05, 0xc1, 0, 0, 0 } };
	s = sl_stmt_get(c, &q_new);
	assert_non_null(s);
	sl_err e = sl_stmt_query(s);
	assert_int_equal(e, SL_OK);
	size_t n = 0;
	while (sl_stmt_next(s, &e)) {
		assert_true(n < SL_ARRAY_LEN(want));
		size_t len = 0;
		assert_int_equal(sl_col_i64(s, 0), want[n].chain);
		assert_int_equal(sl_col_i64(s, 1), want[n].pos);
		assert_int_equal(sl_col_blob(s, 2, &len)[0], want[n].id);
		assert_int_equal(sl_col_blob(s, 3, &len)[0], want[n].tx);
		assert_int_equal(sl_col_i64(s, 4), want[n].idx);
		assert_int_equal(sl_col_i64(s, 5), want[n].reward);
		assert_int_equal(sl_col_null(s, 6), want[n].cseq == 0);
		assert_int_equal(sl_col_i64(s, 7), want[n].cseq);
		n++;
	}
	assert_int_equal(e, SL_OK);
	assert_int_equal(n, SL_ARRAY_LEN(want));
	s = sl_stmt_get(c, &q_early);
	assert_non_null(s);
	assert_int_equal(sl_stmt_query(s), SL_OK);
	assert_true(sl_stmt_next(s, &e));
	size_t len = 0;
	assert_int_equal(sl_col_blob(s, 0, &len)[0], 0x06);
	assert_int_equal(sl_col_blob(s, 1, &len)[0], 0xd1);
	assert_int_equal(sl_col_i64(s, 2), 2);
	assert_int_equal(sl_col_i64(s, 3), 40);
	assert_int_equal(sl_col_blob(s, 4, &len)[0], 0xe1);
	assert_int_equal(sl_col_i64(s, 5), 300);
	assert_int_equal(sl_col_i64(s, 6), 99);
	assert_int_equal(sl_col_i64(s, 7), 3);
	assert_int_equal(sl_col_i64(s, 8), 0);
	assert_false(sl_stmt_next(s, &e));
	assert_int_equal(e, SL_OK);
	sl_db_release(db, c);
	sl_db_close(db);
}

static void test_v11_sqlite(void **state)
{
	(void)state;
	char dir[] = "/tmp/snowline-migrate-XXXXXX", path[300], cmd[400];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/store.db", dir);
	check_v11(path);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_v11_postgres(void **state)
{
	(void)state;
	const char *base = getenv("SNOWLINE_TEST_PG");
	if (!base || !*base)
		fail_msg("SNOWLINE_TEST_PG is not set: run the tests with `make test` (tests/run.sh starts "
			 "PostgreSQL), or start one with scripts/pg-test-server.sh");
	char db[64], cmd[1024], url[512];
	snprintf(db, sizeof db, "migratetest_%d_%ld", (int)getpid(), random() % 1000000);
	snprintf(cmd, sizeof cmd, "psql -q '%s' -c 'CREATE DATABASE %s' >/dev/null", base, db);
	assert_int_equal(system(cmd), 0);
	const char *slash = strrchr(base, '/');
	snprintf(url, sizeof url, "%.*s/%s", (int)(slash - base), base, db);
	check_v11(url);
}

int main(void)
{
	srandom((unsigned)getpid());
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v11_sqlite),
		cmocka_unit_test(test_v11_postgres),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
