/*
 * sql_backend.h — what a backend of sql.h implements; for src/store/ only.
 *
 * sql.c owns what is common: the pool, each connection's statement cache,
 * argument checks and error text. A backend (sql_sqlite.c, sql_pg.c)
 * implements the operations below on its own connection and statement
 * types, which it allocates behind the `impl` pointers.
 */
#ifndef SL_STORE_SQL_BACKEND_H
#define SL_STORE_SQL_BACKEND_H

#include "store/sql.h"

#define SL_SQL_MAX_PARAMS 64
#define SL_SQL_CACHE 256 /* prepared statements per connection (open addressing, power of two) */

typedef struct sl_backend sl_backend;

struct sl_stmt {
	sl_conn *conn;
	const sl_sql *q;
	void *impl;
	int nparams;
};

struct sl_conn {
	sl_db *db;
	void *impl;
	bool in_txn;
	bool broken; /* the server went away: the pool drops this connection */
	char error[256];
	struct {
		const sl_sql *q;
		sl_stmt *s;
	} cache[SL_SQL_CACHE];
};

struct sl_backend {
	const char *name;
	unsigned write_work_mb; /* sl_conn_write_work_mb */
	/* Open one connection to url; NULL with err. */
	void *(*connect)(const sl_db_config *cfg, const char *target, char err[256]);
	void (*disconnect)(void *impl);
	/* Run SQL text that takes no parameters and returns no rows (DDL, pragmas). */
	sl_err (*exec_raw)(sl_conn *c, const char *sql);
	sl_err (*begin)(sl_conn *c);
	sl_err (*commit)(sl_conn *c);
	void (*rollback)(sl_conn *c);
	sl_err (*begin_read)(sl_conn *c);
	/* After the schema is made or checked on the first connection (NULL: nothing to do). */
	sl_err (*opened)(sl_conn *c, sl_db_mode mode);
	/* Prepare q->text; NULL with c->error set. */
	void *(*prepare)(sl_conn *c, const char *sql, int *nparams);
	void (*finalize)(void *stmt_impl);
	void (*reset)(sl_stmt *s); /* unbind and forget any rows */
	void (*bind_i64)(sl_stmt *s, int i, int64_t v);
	void (*bind_blob)(sl_stmt *s, int i, const void *p, size_t n);
	void (*bind_text)(sl_stmt *s, int i, const char *p, size_t n);
	void (*bind_null)(sl_stmt *s, int i);
	sl_err (*exec)(sl_stmt *s);
	sl_err (*query)(sl_stmt *s);
	bool (*next)(sl_stmt *s, sl_err *err);
	int64_t (*changes)(sl_stmt *s);
	bool (*col_null)(sl_stmt *s, int i);
	sl_coltype (*col_type)(sl_stmt *s, int i);
	int (*col_count)(sl_stmt *s);
	int64_t (*col_i64)(sl_stmt *s, int i);
	const uint8_t *(*col_blob)(sl_stmt *s, int i, size_t *n);
	const char *(*col_text)(sl_stmt *s, int i, size_t *n);
};

extern const sl_backend sl_backend_sqlite;
extern const sl_backend sl_backend_pg;

/* The backend's exec_raw and name, for schema.c. */
sl_err sl_conn_exec_raw(sl_conn *c, const char *sql);
const char *sl_conn_backend(const sl_conn *c);

/*
 * The schema: DDL statements of each version, with the dialect tokens
 * {blob} {int} {without_rowid} that each backend spells its way
 * (schema.c). Version n's statements take the store from n-1 to n.
 */
typedef struct sl_migration {
	int version;
	const char *const *ddl; /* NULL-terminated */
} sl_migration;
extern const sl_migration sl_migrations[];
extern const size_t sl_nmigrations;
#define SL_SCHEMA_VERSION 11

/* Expand the dialect tokens of one DDL statement or query for a backend ("sqlite" or "postgres") into out. */
void sl_sql_ddl(const char *ddl, const char *backend, sl_buf *out);
/* Make the schema current (writer) or check that it is (reader); *version gets it. schema.c. */
SL_MUST_USE sl_err sl_schema_apply(sl_conn *c, sl_db_mode mode, int upto, int *version);

#endif
