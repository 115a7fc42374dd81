/*
 * sql_pg.c — sql.h on PostgreSQL 15 through libpq (the only file that sees it).
 *
 * Parameters go as text (integers, text: the server converts them to the
 * type it inferred) or binary (blobs); results come back binary: int2/4/8
 * big-endian, bytea raw, text as is. Statements are prepared once per
 * connection under the names s1, s2, ….
 *
 * Pipelining: inside a transaction, statements run for their effect
 * (sl_stmt_exec) are sent without waiting for their answers; every
 * PIPELINE_DRAIN of them, before a query and at commit, a sync point is sent
 * and the answers are read, which keeps both sides' socket buffers from
 * filling. An error aborts the server's transaction; it is reported by the
 * next drain (so by commit at the latest) and the caller rolls back.
 *
 * One writer per store: a writer's connection holds a session advisory lock
 * for as long as it lives, so a second indexer on the same database is
 * refused at start (after waiting WRITER_LOCK_WAIT_S for a writer that just
 * died to be noticed gone) instead of interleaving its writes.
 */
#include "store/sql_backend.h"

#include <libpq-fe.h>

#define PIPELINE_DRAIN 512
#define WRITER_LOCK_KEY 0x736e6f776c696e65ll /* "snowline" */
#define WRITER_LOCK_WAIT_S 3
/* type OIDs (pg_type.dat) of the result columns we read */
#define OID_BOOL 16
#define OID_BYTEA 17
#define OID_INT8 20
#define OID_INT2 21
#define OID_INT4 23
#define OID_TEXT 25
#define OID_VARCHAR 1043

typedef struct pg_conn {
	PGconn *pg;
	bool pipeline;
	int pending;	    /* commands sent in the pipeline and not yet read */
	unsigned next_name; /* for statement names */
} pg_conn;

typedef struct pg_stmt {
	char name[16];
	int nparams;
	char *vals[SL_SQL_MAX_PARAMS];
	int lens[SL_SQL_MAX_PARAMS], fmts[SL_SQL_MAX_PARAMS];
	char *mem[SL_SQL_MAX_PARAMS]; /* owned copies of bound values */
	PGresult *res;		      /* rows of the last query */
	int row, nrows;
	int64_t changes;
} pg_stmt;

static sl_err pg_fail(sl_conn *c, const char *what, const PGresult *r)
{
	pg_conn *pc = c->impl;
	if (PQstatus(pc->pg) == CONNECTION_BAD) {
		c->broken = true;
		return sl_conn_fail(c, SL_ERR_UNAVAILABLE, "%s: %s", what, PQerrorMessage(pc->pg));
	}
	const char *msg = r ? PQresultErrorMessage(r) : PQerrorMessage(pc->pg);
	const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	sl_err e = state && !strncmp(state, "23", 2) ? SL_ERR_CONFLICT /* integrity constraint */
		   : state && !strcmp(state, "57014")
			   ? SL_ERR_TIMEOUT			   /* query canceled (statement_timeout) */
		   : state && !strncmp(state, "53", 2) ? SL_ERR_IO /* insufficient resources */
		   : state && !strncmp(state, "08", 2) ? SL_ERR_UNAVAILABLE
						       : SL_ERR_STORE;
	size_t n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		n--;
	return sl_conn_fail(c, e, "%s: %.*s", what, (int)n, msg);
}

static void *connect(const sl_db_config *cfg, const char *url, char err[256])
{
	PGconn *pg = PQconnectdb(url);
	if (!pg || PQstatus(pg) != CONNECTION_OK) {
		const char *m = pg ? PQerrorMessage(pg) : "out of memory";
		size_t n = strlen(m);
		while (n && m[n - 1] == '\n')
			n--;
		snprintf(err, 256, "cannot connect to the store: %.*s", (int)n, m);
		PQfinish(pg);
		return NULL;
	}
	/* Bounded work per statement for readers; unhurried bulk writes for the writer. The writer's
	 * statements are lookups and upserts by key, prepared once: their generic plans are made
	 * when a new store's tables are empty, and on an empty table a scan costs less than an
	 * index. Kept until statistics catch up (not within a catch-up's first transaction, which
	 * fills them with millions of rows), such a plan scanned utxos for every spend (a 3M-tx
	 * catch-up took 2057 s). So the writer never chooses a scan where an index serves (a
	 * migration's copy of a whole table reads it through its key); where none does (`DELETE
	 * FROM vset`) PostgreSQL still scans. */
	const char *setup =
		cfg->mode == SL_DB_WRITE
			? "SET application_name = 'snowline index'; SET synchronous_commit = on; "
			  "SET enable_seqscan = off"
		: cfg->mode == SL_DB_LOAD
			? "SET application_name = 'snowline prices'; SET synchronous_commit = on; "
			  "SET statement_timeout = '60s'"
			: "SET application_name = 'snowline api'; SET statement_timeout = '10s'; "
			  "SET default_transaction_read_only = on";
	PGresult *r = PQexec(pg, setup);
	bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
	PQclear(r);
	if (ok && cfg->mode == SL_DB_WRITE) {
		/* Wait a little for the lock: a writer killed a moment ago holds it until the server
		 * notices its connection is gone. A live one keeps it, and this one is refused. */
		char q[160];
		snprintf(q, sizeof q,
			 "SET lock_timeout = '%ds'; SELECT pg_advisory_lock(%lld); SET lock_timeout = 0",
			 WRITER_LOCK_WAIT_S, WRITER_LOCK_KEY);
		r = PQexec(pg, q);
		ok = PQresultStatus(r) == PGRES_COMMAND_OK;
		PQclear(r);
		if (!ok) {
			snprintf(err, 256,
				 "another snowline indexer is writing to this store (waited %d s for it)",
				 WRITER_LOCK_WAIT_S);
			PQfinish(pg);
			return NULL;
		}
	}
	if (!ok) {
		snprintf(err, 256, "cannot set up the store connection: %s", PQerrorMessage(pg));
		PQfinish(pg);
		return NULL;
	}
	pg_conn *pc = calloc(1, sizeof *pc);
	if (!pc) {
		snprintf(err, 256, "out of memory");
		PQfinish(pg);
		return NULL;
	}
	pc->pg = pg;
	return pc;
}

static void disconnect(void *impl)
{
	pg_conn *pc = impl;
	if (!pc)
		return;
	PQfinish(pc->pg);
	free(pc);
}

/* Read the answers of everything sent in the pipeline, up to and including a sync point. */
static sl_err drain(sl_conn *c)
{
	pg_conn *pc = c->impl;
	if (!pc->pipeline || !pc->pending)
		return SL_OK;
	if (!PQpipelineSync(pc->pg))
		return pg_fail(c, "pipeline", NULL);
	sl_err first = SL_OK;
	for (;;) {
		PGresult *r = PQgetResult(pc->pg);
		if (!r) {
			if (PQstatus(pc->pg) == CONNECTION_BAD)
				return pg_fail(c, "pipeline", NULL);
			continue; /* the end of one command's results */
		}
		ExecStatusType st = PQresultStatus(r);
		if (st == PGRES_PIPELINE_SYNC) {
			PQclear(r);
			break;
		}
		if (!first && st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_PIPELINE_ABORTED)
			first = pg_fail(c, "statement", r);
		PQclear(r);
	}
	pc->pending = 0;
	return first;
}

static sl_err exec_raw(sl_conn *c, const char *sql)
{
	pg_conn *pc = c->impl;
	sl_err e = drain(c);
	if (e)
		return e;
	if (pc->pipeline) {
		if (!PQsendQueryParams(pc->pg, sql, 0, NULL, NULL, NULL, NULL, 1))
			return pg_fail(c, "send", NULL);
		pc->pending++;
		return drain(c);
	}
	PGresult *r = PQexec(pc->pg, sql);
	ExecStatusType st = PQresultStatus(r);
	e = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? SL_OK : pg_fail(c, "exec", r);
	PQclear(r);
	return e;
}

static sl_err begin(sl_conn *c)
{
	pg_conn *pc = c->impl;
	if (!PQenterPipelineMode(pc->pg))
		return pg_fail(c, "pipeline mode", NULL);
	pc->pipeline = true;
	if (!PQsendQueryParams(pc->pg, "BEGIN", 0, NULL, NULL, NULL, NULL, 1))
		return pg_fail(c, "begin", NULL);
	pc->pending++;
	return SL_OK;
}

/* Not pipelined: queries of a read transaction wait for their answers anyway. */
static sl_err begin_read(sl_conn *c)
{
	return exec_raw(c, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY");
}

static void leave_pipeline(pg_conn *pc)
{
	if (pc->pipeline)
		PQexitPipelineMode(pc->pg);
	pc->pipeline = false;
	pc->pending = 0;
}

static sl_err commit(sl_conn *c)
{
	pg_conn *pc = c->impl;
	sl_err e = drain(c);
	if (!e && !PQsendQueryParams(pc->pg, "COMMIT", 0, NULL, NULL, NULL, NULL, 1))
		e = pg_fail(c, "commit", NULL);
	if (!e) {
		pc->pending++;
		e = drain(c);
	}
	if (!e)
		leave_pipeline(pc);
	return e;
}

static void rollback(sl_conn *c)
{
	pg_conn *pc = c->impl;
	(void)drain(c);
	leave_pipeline(pc);
	PGresult *r = PQexec(pc->pg, "ROLLBACK");
	PQclear(r);
}

/* `?` placeholders to $1, $2, … (outside quoted strings and identifiers). */
static char *translate(const char *sql, int *n)
{
	size_t len = strlen(sql);
	char *out = malloc(len * 4 + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	char quote = 0;
	*n = 0;
	for (const char *p = sql; *p; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (*p == '?') {
			o += (size_t)snprintf(out + o, 8, "$%d", ++*n);
			continue;
		}
		out[o++] = *p;
	}
	out[o] = 0;
	return out;
}

static void *prepare(sl_conn *c, const char *sql, int *nparams)
{
	pg_conn *pc = c->impl;
	pg_stmt *ps = calloc(1, sizeof *ps);
	char *text = translate(sql, nparams);
	if (!ps || !text) {
		free(ps);
		free(text);
		sl_conn_fail(c, SL_ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (*nparams > SL_SQL_MAX_PARAMS) {
		free(ps);
		free(text);
		sl_conn_fail(c, SL_ERR_TOO_LARGE, "a statement with more than %d parameters",
			     SL_SQL_MAX_PARAMS);
		return NULL;
	}
	ps->nparams = *nparams;
	snprintf(ps->name, sizeof ps->name, "s%u", ++pc->next_name);
	bool ok;
	if (pc->pipeline) {
		ok = PQsendPrepare(pc->pg, ps->name, text, 0, NULL);
		if (ok)
			pc->pending++;
		else
			pg_fail(c, "prepare", NULL);
	} else {
		PGresult *r = PQprepare(pc->pg, ps->name, text, 0, NULL);
		ok = PQresultStatus(r) == PGRES_COMMAND_OK;
		if (!ok)
			pg_fail(c, "prepare", r);
		PQclear(r);
	}
	free(text);
	if (!ok) {
		free(ps);
		return NULL;
	}
	return ps;
}

static void clear_params(pg_stmt *ps)
{
	for (int i = 0; i < ps->nparams; i++) {
		free(ps->mem[i]);
		ps->mem[i] = ps->vals[i] = NULL;
		ps->lens[i] = ps->fmts[i] = 0;
	}
}

static void finalize(void *impl)
{
	pg_stmt *ps = impl;
	clear_params(ps);
	PQclear(ps->res);
	free(ps);
}

static void reset(sl_stmt *s)
{
	pg_stmt *ps = s->impl;
	clear_params(ps);
	PQclear(ps->res);
	ps->res = NULL;
	ps->row = -1;
	ps->nrows = 0;
	ps->changes = 0;
}

static void set_param(sl_stmt *s, int i, const void *p, size_t n, int fmt, bool nul)
{
	pg_stmt *ps = s->impl;
	free(ps->mem[i]);
	ps->mem[i] = ps->vals[i] = NULL;
	if (nul) {
		ps->lens[i] = ps->fmts[i] = 0;
		return;
	}
	char *copy = malloc(n + 1);
	if (!copy)
		return; /* sent as NULL; the out-of-memory shows as a constraint or wrong result, never a crash */
	memcpy(copy, p, n);
	copy[n] = 0;
	ps->mem[i] = ps->vals[i] = copy;
	ps->lens[i] = (int)n;
	ps->fmts[i] = fmt;
}

static void bind_i64(sl_stmt *s, int i, int64_t v)
{
	char t[24];
	int n = snprintf(t, sizeof t, "%lld", (long long)v);
	set_param(s, i, t, (size_t)n, 0, false);
}
static void bind_blob(sl_stmt *s, int i, const void *p, size_t n) { set_param(s, i, p, n, 1, false); }
static void bind_text(sl_stmt *s, int i, const char *p, size_t n) { set_param(s, i, p, n, 0, false); }
static void bind_null(sl_stmt *s, int i) { set_param(s, i, NULL, 0, 0, true); }

static sl_err exec(sl_stmt *s)
{
	pg_conn *pc = s->conn->impl;
	pg_stmt *ps = s->impl;
	if (pc->pipeline) {
		if (!PQsendQueryPrepared(pc->pg, ps->name, ps->nparams, (const char *const *)ps->vals,
					 ps->lens, ps->fmts, 1))
			return pg_fail(s->conn, "send", NULL);
		ps->changes = -1;
		if (++pc->pending >= PIPELINE_DRAIN)
			return drain(s->conn);
		return SL_OK;
	}
	PGresult *r = PQexecPrepared(pc->pg, ps->name, ps->nparams, (const char *const *)ps->vals, ps->lens,
				     ps->fmts, 1);
	ExecStatusType st = PQresultStatus(r);
	sl_err e = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? SL_OK : pg_fail(s->conn, "exec", r);
	if (!e) {
		const char *t = PQcmdTuples(r);
		ps->changes = t && *t ? strtoll(t, NULL, 10) : 0;
	}
	PQclear(r);
	return e;
}

static sl_err query(sl_stmt *s)
{
	pg_conn *pc = s->conn->impl;
	pg_stmt *ps = s->impl;
	PQclear(ps->res);
	ps->res = NULL;
	ps->row = -1;
	ps->nrows = 0;
	if (pc->pipeline) {
		/* A query inside a pipelined transaction: read what came before, then this alone. */
		sl_err e = drain(s->conn);
		if (e)
			return e;
		if (!PQsendQueryPrepared(pc->pg, ps->name, ps->nparams, (const char *const *)ps->vals,
					 ps->lens, ps->fmts, 1) ||
		    !PQpipelineSync(pc->pg))
			return pg_fail(s->conn, "send", NULL);
		PGresult *r;
		sl_err first = SL_OK;
		while ((r = PQgetResult(pc->pg)) || PQstatus(pc->pg) == CONNECTION_OK) {
			if (!r)
				continue;
			ExecStatusType st = PQresultStatus(r);
			if (st == PGRES_PIPELINE_SYNC) {
				PQclear(r);
				break;
			}
			if (st == PGRES_TUPLES_OK && !ps->res) {
				ps->res = r;
				continue;
			}
			if (!first && st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK)
				first = pg_fail(s->conn, "query", r);
			PQclear(r);
		}
		if (PQstatus(pc->pg) != CONNECTION_OK)
			return pg_fail(s->conn, "query", NULL);
		if (first)
			return first;
	} else {
		PGresult *r = PQexecPrepared(pc->pg, ps->name, ps->nparams, (const char *const *)ps->vals,
					     ps->lens, ps->fmts, 1);
		if (PQresultStatus(r) != PGRES_TUPLES_OK) {
			sl_err e = pg_fail(s->conn, "query", r);
			PQclear(r);
			return e;
		}
		ps->res = r;
	}
	ps->nrows = ps->res ? PQntuples(ps->res) : 0;
	return SL_OK;
}

static bool next(sl_stmt *s, sl_err *err)
{
	(void)err;
	pg_stmt *ps = s->impl;
	if (ps->row + 1 >= ps->nrows)
		return false;
	ps->row++;
	return true;
}

static int64_t changes(sl_stmt *s) { return ((pg_stmt *)s->impl)->changes; }

static bool col_null(sl_stmt *s, int i)
{
	pg_stmt *ps = s->impl;
	return !ps->res || ps->row < 0 || i >= PQnfields(ps->res) || PQgetisnull(ps->res, ps->row, i);
}

static sl_coltype col_type(sl_stmt *s, int i)
{
	pg_stmt *ps = s->impl;
	if (col_null(s, i))
		return SL_COL_NULL;
	switch (PQftype(ps->res, i)) {
	case OID_INT8:
	case OID_INT4:
	case OID_INT2:
	case OID_BOOL: return SL_COL_INT;
	case OID_BYTEA: return SL_COL_BLOB;
	case OID_TEXT:
	case OID_VARCHAR: return SL_COL_TEXT;
	default: return SL_COL_OTHER;
	}
}

static int col_count(sl_stmt *s)
{
	pg_stmt *ps = s->impl;
	return ps->res ? PQnfields(ps->res) : 0;
}

static int64_t col_i64(sl_stmt *s, int i)
{
	pg_stmt *ps = s->impl;
	if (col_null(s, i))
		return 0;
	const uint8_t *p = (const uint8_t *)PQgetvalue(ps->res, ps->row, i);
	int n = PQgetlength(ps->res, ps->row, i);
	switch (PQftype(ps->res, i)) {
	case OID_INT8: return n == 8 ? (int64_t)sl_be64(p) : 0;
	case OID_INT4: return n == 4 ? (int32_t)sl_be32(p) : 0;
	case OID_INT2: return n == 2 ? (int16_t)sl_be16(p) : 0;
	case OID_BOOL: return n == 1 ? p[0] != 0 : 0;
	default: return 0; /* the portable dialect returns integers only as int2/4/8 */
	}
}

static const uint8_t *col_blob(sl_stmt *s, int i, size_t *n)
{
	pg_stmt *ps = s->impl;
	*n = 0;
	if (col_null(s, i))
		return NULL;
	*n = (size_t)PQgetlength(ps->res, ps->row, i);
	return (const uint8_t *)PQgetvalue(ps->res, ps->row, i);
}

static const char *col_text(sl_stmt *s, int i, size_t *n)
{
	const uint8_t *p = col_blob(s, i, n);
	return p ? (const char *)p : "";
}

const sl_backend sl_backend_pg = {
	.name = "postgres",
	/* every version of a row that a transaction updates stays until it ends (their index entries
	 * too), so the lookups of a long one slow down. A 200k-tx devnet indexed with work of
	 * 4096 MiB (200,000 txs a transaction, 16 batches ahead): 184 s; with 256 (50,000 txs, 3
	 * batches): 115-142 s; 200 MiB's 15,000 txs: 161 s (more commits) */
	.write_work_mb = 256,
	.connect = connect,
	.disconnect = disconnect,
	.exec_raw = exec_raw,
	.begin = begin,
	.commit = commit,
	.rollback = rollback,
	.begin_read = begin_read,
	.prepare = prepare,
	.finalize = finalize,
	.reset = reset,
	.bind_i64 = bind_i64,
	.bind_blob = bind_blob,
	.bind_text = bind_text,
	.bind_null = bind_null,
	.exec = exec,
	.query = query,
	.next = next,
	.changes = changes,
	.col_null = col_null,
	.col_type = col_type,
	.col_count = col_count,
	.col_i64 = col_i64,
	.col_blob = col_blob,
	.col_text = col_text,
};
