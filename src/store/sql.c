/*
 * sql.c — the backend-neutral half of sql.h: the pool of connections and
 * each connection's cache of prepared statements.
 */
#include "store/sql_backend.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/lock.h"

struct sl_db {
	const sl_backend *be;
	sl_db_config cfg;
	char *url, *target; /* the URL as given, and what the backend connects to */
	int version;
	pthread_mutex_t lock; /* guards the pool */
	pthread_cond_t freed;
	sl_conn **idle; /* connections not borrowed */
	size_t nidle, nopen;
};

sl_err sl_conn_fail(sl_conn *c, sl_err e, const char *fmt, ...)
{
	/* through a copy: an argument may be the connection's own message (wrapped in more words) */
	char msg[sizeof c->error];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	memcpy(c->error, msg, sizeof msg);
	return e;
}

const char *sl_conn_error(const sl_conn *c) { return c->error; }
sl_err sl_conn_exec_raw(sl_conn *c, const char *sql) { return c->db->be->exec_raw(c, sql); }
const char *sl_conn_backend(const sl_conn *c) { return c->db->be->name; }

unsigned sl_conn_write_work_mb(const sl_conn *c) { return c ? c->db->be->write_work_mb : 0; }
const char *sl_db_backend(const sl_db *db) { return db->be->name; }
int sl_db_schema_version(const sl_db *db) { return db->version; }

static sl_conn *conn_open(sl_db *db, char err[256])
{
	sl_conn *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(err, 256, "out of memory");
		return NULL;
	}
	c->db = db;
	if (!(c->impl = db->be->connect(&db->cfg, db->target, err))) {
		free(c);
		return NULL;
	}
	return c;
}

/*
 * A query stopped before its last row keeps its snapshot (SQLite: an open read transaction). On
 * the writer, whose connection is never given back, one left open when a transaction ends (a
 * lookup that read the one row it wanted) pinned the WAL: no checkpoint could pass that
 * snapshot, and the WAL grew by every page written (31 GB a third of the way through a 3M-tx
 * devnet). A transaction's end, and a connection given back to the pool, end its queries.
 */
static void end_queries(sl_conn *c)
{
	for (size_t i = 0; i < SL_SQL_CACHE; i++)
		if (c->cache[i].q)
			c->db->be->reset(c->cache[i].s);
}

static void conn_close(sl_conn *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < SL_SQL_CACHE; i++)
		if (c->cache[i].s) {
			c->db->be->finalize(c->cache[i].s->impl);
			free(c->cache[i].s);
		}
	c->db->be->disconnect(c->impl);
	free(c);
}

sl_db *sl_db_open(const sl_db_config *cfg, char err[256])
{
	sl_db *db = calloc(1, sizeof *db);
	if (!db) {
		snprintf(err, 256, "out of memory");
		return NULL;
	}
	db->cfg = *cfg;
	if (!db->cfg.pool_size)
		db->cfg.pool_size = 8;
	if (cfg->mode == SL_DB_WRITE)
		db->cfg.pool_size = 1; /* the writer's one connection holds the store's writer lock */
	if (cfg->mode == SL_DB_LOAD)
		db->cfg.pool_size = 1;
	const char *u = cfg->url ? cfg->url : "";
	if (!strncmp(u, "postgres://", 11) || !strncmp(u, "postgresql://", 13)) {
		db->be = &sl_backend_pg;
		db->target = strdup(u);
	} else {
		db->be = &sl_backend_sqlite;
		db->target = strdup(!strncmp(u, "sqlite:", 7) ? u + 7 : u);
	}
	db->url = strdup(u);
	db->idle = calloc(db->cfg.pool_size, sizeof *db->idle);
	pthread_mutex_init(&db->lock, NULL);
	pthread_cond_init(&db->freed, NULL);
	if (!db->url || !db->target || !db->idle || !*db->target) {
		snprintf(err, 256, *u ? "out of memory" : "no store given");
		sl_db_close(db);
		return NULL;
	}
	/* The first connection checks or makes the schema, then waits in the pool. */
	sl_conn *c = conn_open(db, err);
	if (!c) {
		sl_db_close(db);
		return NULL;
	}
	db->nopen = 1;
	if (sl_schema_apply(c, cfg->mode, cfg->schema_upto, &db->version) ||
	    (db->be->opened && db->be->opened(c, cfg->mode))) {
		snprintf(err, 256, "%s", c->error);
		conn_close(c);
		db->nopen = 0;
		sl_db_close(db);
		return NULL;
	}
	end_queries(c); /* the schema check's read */
	db->idle[db->nidle++] = c;
	return db;
}

void sl_db_close(sl_db *db)
{
	if (!db)
		return;
	for (size_t i = 0; i < db->nidle; i++)
		conn_close(db->idle[i]);
	pthread_mutex_destroy(&db->lock);
	pthread_cond_destroy(&db->freed);
	free(db->idle);
	free(db->url);
	free(db->target);
	free(db);
}

sl_conn *sl_db_acquire(sl_db *db, unsigned timeout_ms, char err[256])
{
	struct timespec until;
	sl_deadline(&until, CLOCK_REALTIME, timeout_ms);
	pthread_mutex_lock(&db->lock);
	for (;;) {
		if (db->nidle) {
			sl_conn *c = db->idle[--db->nidle];
			pthread_mutex_unlock(&db->lock);
			c->error[0] = 0;
			return c;
		}
		if (db->nopen < db->cfg.pool_size) {
			db->nopen++; /* reserve the slot, connect outside the lock */
			pthread_mutex_unlock(&db->lock);
			sl_conn *c = conn_open(db, err);
			if (!c) {
				pthread_mutex_lock(&db->lock);
				db->nopen--;
				pthread_cond_signal(&db->freed);
				pthread_mutex_unlock(&db->lock);
			}
			return c;
		}
		if (pthread_cond_timedwait(&db->freed, &db->lock, &until) == ETIMEDOUT) {
			pthread_mutex_unlock(&db->lock);
			snprintf(err, 256, "no store connection free within %u ms", timeout_ms);
			return NULL;
		}
	}
}

void sl_db_release(sl_db *db, sl_conn *c)
{
	if (!c)
		return;
	if (c->in_txn)
		sl_conn_rollback(c); /* a borrower that did not finish: never leak a transaction */
	end_queries(c);
	pthread_mutex_lock(&db->lock);
	if (c->broken || db->nidle >= db->cfg.pool_size) {
		db->nopen--;
		pthread_mutex_unlock(&db->lock);
		conn_close(c);
		pthread_mutex_lock(&db->lock);
	} else {
		db->idle[db->nidle++] = c;
	}
	pthread_cond_signal(&db->freed);
	pthread_mutex_unlock(&db->lock);
}

sl_err sl_conn_begin(sl_conn *c)
{
	if (c->in_txn)
		return sl_conn_fail(c, SL_ERR_INTERNAL, "a transaction is already open");
	sl_err e = c->db->be->begin(c);
	c->in_txn = e == SL_OK;
	return e;
}

sl_err sl_conn_commit(sl_conn *c)
{
	if (!c->in_txn)
		return sl_conn_fail(c, SL_ERR_INTERNAL, "no transaction is open");
	end_queries(c);
	sl_err e = c->db->be->commit(c);
	if (e)
		c->db->be->rollback(c);
	c->in_txn = false;
	return e;
}

sl_err sl_conn_begin_read(sl_conn *c)
{
	if (c->in_txn)
		return sl_conn_fail(c, SL_ERR_INTERNAL, "a transaction is already open");
	sl_err e = c->db->be->begin_read(c);
	c->in_txn = e == SL_OK;
	return e;
}

void sl_conn_rollback(sl_conn *c)
{
	if (!c->in_txn)
		return;
	end_queries(c);
	c->db->be->rollback(c);
	c->in_txn = false;
}

sl_stmt *sl_stmt_get(sl_conn *c, const sl_sql *q)
{
	size_t h = ((uintptr_t)q >> 4) * 0x9e3779b97f4a7c15ull >> 32;
	for (size_t k = 0; k < SL_SQL_CACHE; k++) {
		size_t i = (h + k) & (SL_SQL_CACHE - 1);
		if (c->cache[i].q == q) {
			sl_stmt *s = c->cache[i].s;
			c->db->be->reset(s);
			return s;
		}
		if (!c->cache[i].q) {
			sl_stmt *s = calloc(1, sizeof *s);
			if (!s) {
				sl_conn_fail(c, SL_ERR_NOMEM, "out of memory");
				return NULL;
			}
			s->conn = c;
			s->q = q;
			const char *text = q->text;
			sl_buf dialect;
			sl_buf_init(&dialect, 1u << 16);
			if (strchr(text, '{')) {
				sl_sql_ddl(text, c->db->be->name, &dialect);
				text = dialect.err ? "" : sl_buf_str(&dialect);
			}
			s->impl = c->db->be->prepare(c, text, &s->nparams);
			sl_buf_release(&dialect);
			if (!s->impl) {
				free(s);
				return NULL;
			}
			c->cache[i].q = q;
			c->cache[i].s = s;
			return s;
		}
	}
	sl_conn_fail(c, SL_ERR_TOO_LARGE, "more than %d distinct statements on one connection", SL_SQL_CACHE);
	return NULL;
}

/* A caller's mistake (a wrong parameter number) is a bug: it must not reach the backend. */
static bool param_ok(sl_stmt *s, int i)
{
	if (i >= 0 && i < s->nparams)
		return true;
	sl_conn_fail(s->conn, SL_ERR_INTERNAL, "parameter %d out of range (%d) in: %.80s", i, s->nparams,
		     s->q->text);
	return false;
}

void sl_bind_i64(sl_stmt *s, int i, int64_t v)
{
	if (param_ok(s, i))
		s->conn->db->be->bind_i64(s, i, v);
}
void sl_bind_blob(sl_stmt *s, int i, const void *p, size_t n)
{
	if (param_ok(s, i))
		s->conn->db->be->bind_blob(s, i, p ? p : "", n);
}
void sl_bind_text(sl_stmt *s, int i, const char *p, size_t n)
{
	if (param_ok(s, i))
		s->conn->db->be->bind_text(s, i, p ? p : "", n);
}
void sl_bind_null(sl_stmt *s, int i)
{
	if (param_ok(s, i))
		s->conn->db->be->bind_null(s, i);
}
void sl_bind_u64be(sl_stmt *s, int i, uint64_t v)
{
	uint8_t b[8];
	sl_sql_u64be(b, v);
	sl_bind_blob(s, i, b, 8);
}

sl_err sl_stmt_exec(sl_stmt *s) { return s->conn->db->be->exec(s); }
sl_err sl_stmt_query(sl_stmt *s) { return s->conn->db->be->query(s); }
bool sl_stmt_next(sl_stmt *s, sl_err *err)
{
	sl_err e = SL_OK;
	bool row = s->conn->db->be->next(s, &e);
	if (err)
		*err = e;
	return row;
}
int64_t sl_stmt_changes(sl_stmt *s) { return s->conn->db->be->changes(s); }
bool sl_col_null(sl_stmt *s, int i) { return s->conn->db->be->col_null(s, i); }
sl_coltype sl_col_type(sl_stmt *s, int i) { return s->conn->db->be->col_type(s, i); }
int sl_col_count(sl_stmt *s) { return s->conn->db->be->col_count(s); }
int64_t sl_col_i64(sl_stmt *s, int i) { return s->conn->db->be->col_i64(s, i); }
const uint8_t *sl_col_blob(sl_stmt *s, int i, size_t *n) { return s->conn->db->be->col_blob(s, i, n); }
const char *sl_col_text(sl_stmt *s, int i, size_t *n) { return s->conn->db->be->col_text(s, i, n); }
uint64_t sl_col_u64be(sl_stmt *s, int i)
{
	size_t n = 0;
	const uint8_t *p = sl_col_blob(s, i, &n);
	return p && n == 8 ? sl_be64(p) : 0;
}

sl_err sl_stmt_ids(sl_stmt *s, uint8_t (**out)[32], size_t *n)
{
	*out = NULL;
	*n = 0;
	sl_err e = sl_stmt_query(s);
	size_t cap = 0;
	while (!e && sl_stmt_next(s, &e)) {
		size_t len = 0;
		const uint8_t *id = sl_col_blob(s, 0, &len);
		if (len != 32)
			continue;
		if (*n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			uint8_t(*nv)[32] = realloc(*out, ncap * 32);
			if (!nv) {
				e = SL_ERR_NOMEM;
				break;
			}
			*out = nv;
			cap = ncap;
		}
		memcpy((*out)[(*n)++], id, 32);
	}
	if (e) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return e;
}

void sl_col_copy(sl_stmt *s, int i, uint8_t *out, size_t len)
{
	size_t n = 0;
	const uint8_t *p = sl_col_blob(s, i, &n);
	if (p && n == len)
		memcpy(out, p, len);
	else
		memset(out, 0, len);
}
