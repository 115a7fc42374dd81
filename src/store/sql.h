/*
 * sql.h — the one query interface of the SQL store, over two backends:
 * SQLite (embedded, the default: a file under --data-dir) and PostgreSQL 15
 * (--store postgres://…, when one machine is not enough). The indexer and
 * the API handlers write portable SQL against this header and never learn
 * which backend they are on; sql_sqlite.c and sql_pg.c are the only files
 * that see the libraries.
 *
 * The portable dialect (what every statement given here must keep to):
 *   - placeholders are `?`, numbered by position (PostgreSQL gets $1, $2, …);
 *   - values are 64-bit integers, byte strings (BLOB / bytea) and UTF-8 text;
 *     NULL is a value; there are no floats and no booleans (use 0/1);
 *   - unsigned 64-bit amounts are stored as 8-byte big-endian blobs, whose
 *     byte order is their numeric order in both backends (sl_sql_u64be);
 *   - upserts are `INSERT … ON CONFLICT (…) DO NOTHING | DO UPDATE SET x =
 *     excluded.x`; both backends read them alike;
 *   - DDL is written with the tokens of sl_sql_ddl() (store/schema.c) for
 *     what the backends spell differently.
 *
 * Objects and lifetime:
 *   sl_db    a store: opened once per process, shared by every thread; it
 *            owns a pool of connections and closes them with it.
 *   sl_conn  one connection, borrowed from the pool by one thread at a time
 *            (sl_db_acquire / sl_db_release). It caches its prepared
 *            statements, so a statement is parsed once per connection.
 *   sl_stmt  a prepared statement of one connection, obtained for a static
 *            sl_sql (the cache key is the sl_sql's address): bind, run, read
 *            rows, and it is reset for its next use by the next sl_stmt_get.
 *
 * Writing: sl_conn_begin … sl_conn_commit wraps one transaction. Statements
 * that return nothing are run with sl_stmt_exec; on PostgreSQL inside a
 * transaction they are pipelined (sent without waiting for each answer),
 * so a batch of thousands of inserts costs a few round trips; their errors
 * surface at the latest at commit, which then fails and rolls back. A
 * statement that returns rows (sl_stmt_query) waits for everything sent
 * before it.
 *
 * Reading: sl_stmt_query, then sl_stmt_next until it returns false; column
 * values (sl_col_*) are valid until the next sl_stmt_next or reuse of the
 * statement. Readers see committed data only; on SQLite a reader does not
 * block the writer (WAL) and many processes may read one file.
 *
 * Errors: every call returns sl_err; the connection keeps the backend's
 * message (sl_conn_error) until its next call. A connection whose server
 * went away reports SL_ERR_UNAVAILABLE; sl_db_release drops it and the pool
 * opens a fresh one on demand.
 */
#ifndef SL_STORE_SQL_H
#define SL_STORE_SQL_H

#include "util/buf.h"

typedef struct sl_db sl_db;
typedef struct sl_conn sl_conn;
typedef struct sl_stmt sl_stmt;

/* A statement's text. Declare each one `static const sl_sql` next to its user. */
typedef struct sl_sql {
	const char *text;
} sl_sql;

typedef enum sl_db_mode {
	SL_DB_READ,  /* queries only (API servers): the schema must exist and be current */
	SL_DB_WRITE, /* the indexer: creates the schema or migrates it to the current version */
	SL_DB_LOAD,  /* a writer of a table the indexer never writes (prices: `snowline prices`) beside
		      * it: no writer lock, the schema must exist and be current (SQLite serializes its
		      * transactions with the indexer's, waiting up to the busy timeout) */
} sl_db_mode;

typedef struct sl_db_config {
	const char *url; /* "postgres://…" / "postgresql://…", or "sqlite:PATH", or a plain PATH */
	sl_db_mode mode;
	unsigned pool_size; /* connections at most (0: 8) */
	unsigned cache_mb;  /* SQLite page cache per connection (0: 256 MiB for the writer, 64 for readers) */
	int schema_upto;    /* SL_DB_WRITE: migrate to this version only (0: the current one); an
			     * older one makes the stores a migration's test starts from */
} sl_db_config;

/* Open a store; NULL with the reason in err. In SL_DB_WRITE mode the schema is made current. */
sl_db *sl_db_open(const sl_db_config *cfg, char err[256]);
void sl_db_close(sl_db *db);
/* "sqlite" or "postgres": for logs and metrics only, never for choosing SQL. */
const char *sl_db_backend(const sl_db *db);
/* The schema version the store is at. */
int sl_db_schema_version(const sl_db *db);

/*
 * Indexes built after a bulk catch-up rather than row by row (store/schema.c lists them): the
 * indexer drops them while it is far behind its node and builds them, each with one sort of its
 * table, once it has caught up. Queries work without them, only slower (an API query that names
 * one must fall back to another when it is absent). Each call is one transaction of its own.
 * deferred: whether the store's indexes are dropped now (a meta row says so until they are built).
 */
SL_MUST_USE sl_err sl_store_defer_indexes(sl_conn *c);
SL_MUST_USE sl_err sl_store_build_indexes(sl_conn *c);
SL_MUST_USE sl_err sl_store_indexes_deferred(sl_conn *c, bool *deferred);
/* Their names, NULL-terminated (for logs). */
extern const char *const sl_deferred_index_names[];

/* Borrow a connection (waits up to timeout_ms for one to be free; NULL and err on failure). */
sl_conn *sl_db_acquire(sl_db *db, unsigned timeout_ms, char err[256]);
void sl_db_release(sl_db *db, sl_conn *c);

SL_MUST_USE sl_err sl_conn_begin(sl_conn *c);
SL_MUST_USE sl_err sl_conn_commit(sl_conn *c);
void sl_conn_rollback(sl_conn *c); /* also after a failed commit; never fails */
/* A read transaction: every query until sl_conn_rollback sees the store as of one moment
 * (SQLite: a deferred transaction, its WAL snapshot; PostgreSQL: REPEATABLE READ, READ ONLY).
 * Nothing is pipelined in it; end it with sl_conn_rollback (there is nothing to commit). */
SL_MUST_USE sl_err sl_conn_begin_read(sl_conn *c);
/* The most work, in MiB of the writer's cache, that this store's write transactions should gather
 * (the indexer sizes its transactions and look-ahead from it); 0: as much as the cache holds
 * (SQLite: a long transaction writes a page to the WAL once, however often it changed). */
unsigned sl_conn_write_work_mb(const sl_conn *c);
/* The backend's message for the last failure of this connection ("" when none). */
const char *sl_conn_error(const sl_conn *c);
/* Set that message (printf style) and return e: for callers that fail mid-transaction for their own reasons. */
sl_err sl_conn_fail(sl_conn *c, sl_err e, const char *fmt, ...) SL_PRINTF(3, 4);

/* The statement of q on this connection, prepared on first use, reset and unbound. NULL on error. */
sl_stmt *sl_stmt_get(sl_conn *c, const sl_sql *q);
/* In a function returning sl_err: declare `sl_stmt *s`, q's statement on c, or return SL_ERR_STORE. */
#define SL_STMT(c, q)                        \
	sl_stmt *s = sl_stmt_get((c), &(q)); \
	if (!s)                              \
	return SL_ERR_STORE

/* Parameters are numbered from 0. Text and blobs are copied at bind time. */
void sl_bind_i64(sl_stmt *s, int i, int64_t v);
void sl_bind_blob(sl_stmt *s, int i, const void *p, size_t n);
void sl_bind_text(sl_stmt *s, int i, const char *p, size_t n);
void sl_bind_null(sl_stmt *s, int i);
/* Shorthands: an unsigned amount as its 8-byte big-endian blob; a bool as 0/1. */
void sl_bind_u64be(sl_stmt *s, int i, uint64_t v);

/* Run a statement that returns no rows (may be pipelined: see above). */
SL_MUST_USE sl_err sl_stmt_exec(sl_stmt *s);
/* Run a statement that returns rows; then read them with sl_stmt_next. */
SL_MUST_USE sl_err sl_stmt_query(sl_stmt *s);
/* The next row: true when there is one; false at the end or on error (*err, may be NULL, says which). */
bool sl_stmt_next(sl_stmt *s, sl_err *err);
/* Rows a finished sl_stmt_exec changed, where the backend reports it (not while pipelined: -1). */
int64_t sl_stmt_changes(sl_stmt *s);

/* Columns are numbered from 0. A NULL reads as 0 / empty; sl_col_null tells them apart. */
/* The type of a value of the current row: what was stored in SQLite (its storage class), the
 * column's type in PostgreSQL (int2/4/8 and bool INT, bytea BLOB, text and varchar TEXT).
 * SL_COL_OTHER: a type outside the portable dialect (a SQLite REAL, a PostgreSQL numeric, …). */
typedef enum sl_coltype { SL_COL_NULL, SL_COL_INT, SL_COL_BLOB, SL_COL_TEXT, SL_COL_OTHER } sl_coltype;
sl_coltype sl_col_type(sl_stmt *s, int i);
/* How many columns the statement's rows have (after sl_stmt_query). */
int sl_col_count(sl_stmt *s);
bool sl_col_null(sl_stmt *s, int i);
int64_t sl_col_i64(sl_stmt *s, int i);
const uint8_t *sl_col_blob(sl_stmt *s, int i, size_t *n);
const char *sl_col_text(sl_stmt *s, int i, size_t *n);
/* An 8-byte big-endian amount column (0 when NULL or not 8 bytes long). */
uint64_t sl_col_u64be(sl_stmt *s, int i);
/* A blob column of exactly len bytes (an id, a node id) into out; zeros when it is NULL or of another size. */
void sl_col_copy(sl_stmt *s, int i, uint8_t *out, size_t len);
/* Run a query (bound already) and collect its first column's 32-byte ids (other sizes skipped) into
 * a malloc'd array: *out (NULL when none or on failure) and *n. */
SL_MUST_USE sl_err sl_stmt_ids(sl_stmt *s, uint8_t (**out)[32], size_t *n);

/* The 8-byte big-endian form of an amount, for building keys and comparing. */
static inline void sl_sql_u64be(uint8_t out[8], uint64_t v) { sl_put_be64(out, v); }

#endif
