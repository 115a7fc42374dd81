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
 * Rows sent together: an INSERT of one row of parameters (with no RETURNING)
 * is, inside a pipelined transaction, not sent row by row. Its rows wait in
 * the statement and go as multi-row INSERTs of up to ROWS_MAX rows (variants
 * of 1, 2, 4, ... rows, each prepared when first used), before anything else
 * is sent on the connection, so the server sees every statement in the order
 * it was executed. A 5-column insert cost the server 14-16 µs a row alone and
 * 8-9 µs in rows of 32; a catch-up of the indexer ran 15 % faster. A DO
 * UPDATE may not touch a row twice in one statement, so a row whose conflict
 * target equals a waiting one's sends the waiting rows first.
 *
 * One writer per store: a writer's connection holds a session advisory lock
 * for as long as it lives, so a second indexer on the same database is
 * refused at start (after waiting WRITER_LOCK_WAIT_S for a writer that just
 * died to be noticed gone) instead of interleaving its writes.
 */
#include "store/sql_backend.h"

#include <libpq-fe.h>

#define PIPELINE_DRAIN 512
#define ROWS_MAX 64		  /* rows of an INSERT sent in one statement, a power of two */
#define ROWS_PARAMS_MAX 2048	  /* and their parameters at most (PostgreSQL takes 65535) */
#define ROWS_BYTES_MAX (1u << 20) /* the bytes of the rows waiting, from which they are sent */
#define ROWS_LEVELS 7		  /* variants: 1, 2, 4, ... ROWS_MAX rows */
#define NO_VALUE SIZE_MAX	  /* a parameter's offset when it is NULL */
#define ARG_BYTES_MAX (1u << 30)  /* a row's values */
_Static_assert(1 << (ROWS_LEVELS - 1) == ROWS_MAX, "a variant for each power of two up to ROWS_MAX");
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

typedef struct pg_stmt pg_stmt;

typedef struct pg_conn {
	PGconn *pg;
	bool pipeline;
	int pending;	    /* commands sent in the pipeline and not yet read */
	unsigned next_name; /* for statement names */
	pg_stmt *waiting;   /* the statement whose rows wait to be sent, if any */
} pg_conn;

/* An INSERT of one row (rows_plan): its text around the row, and its rows not yet sent. */
typedef struct pg_rows {
	char *head, *tail;		  /* "INSERT INTO t (a, b) VALUES " and " ON CONFLICT ..." */
	int max;			  /* rows in one statement: a power of two */
	int key[SL_SQL_MAX_PARAMS], nkey; /* the parameters of a DO UPDATE's conflict target */
	bool prepared[ROWS_LEVELS];	  /* variant k (2^k rows) is prepared as "<name>.<k>" */
	int n;				  /* rows waiting */
	sl_buf data;			  /* their values */
	size_t *off;			  /* max * nparams: each value's offset in data, or NO_VALUE */
	int *lens, *fmts;		  /* max * nparams */
	const char **vals;		  /* max * nparams, filled when sent */
} pg_rows;

struct pg_stmt {
	char name[16];
	int nparams;
	pg_conn *pc;
	/* the row being bound: its values in arg, at off (NO_VALUE: NULL) */
	sl_buf arg;
	size_t off[SL_SQL_MAX_PARAMS];
	int lens[SL_SQL_MAX_PARAMS], fmts[SL_SQL_MAX_PARAMS];
	const char *vals[SL_SQL_MAX_PARAMS]; /* filled when sent */
	pg_rows *rows;			     /* an INSERT whose rows can go together; else NULL */
	PGresult *res;			     /* rows of the last query */
	int row, nrows;
	int64_t changes;
};

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

static sl_err rows_send(sl_conn *c);

/* Send the rows waiting, then read the answers of everything sent in the pipeline, up to and
 * including a sync point. */
static sl_err drain(sl_conn *c)
{
	pg_conn *pc = c->impl;
	sl_err e = rows_send(c);
	if (e)
		return e;
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

static void rows_clear(pg_rows *b)
{
	b->n = 0;
	sl_buf_reset(&b->data);
}

static void rows_drop(pg_conn *pc)
{
	if (!pc->waiting)
		return;
	rows_clear(pc->waiting->rows);
	pc->waiting = NULL;
}

static void rollback(sl_conn *c)
{
	pg_conn *pc = c->impl;
	rows_drop(pc);
	(void)drain(c);
	leave_pipeline(pc);
	PGresult *r = PQexec(pc->pg, "ROLLBACK");
	PQclear(r);
}

static void clear_params(pg_stmt *ps)
{
	sl_buf_reset(&ps->arg);
	for (int i = 0; i < ps->nparams; i++) {
		ps->off[i] = NO_VALUE;
		ps->lens[i] = ps->fmts[i] = 0;
	}
}

/* libpq's pointers to n values stored at off in b. */
static void point(const sl_buf *b, const size_t *off, const char **vals, size_t n)
{
	for (size_t i = 0; i < n; i++)
		vals[i] = off[i] == NO_VALUE ? NULL : (const char *)b->p + off[i];
}

static void rows_free(pg_rows *b)
{
	if (!b)
		return;
	free(b->head);
	free(b->tail);
	sl_buf_release(&b->data);
	free(b->off);
	free(b->lens);
	free(b->fmts);
	free(b->vals);
	free(b);
}

static void finalize(void *impl)
{
	pg_stmt *ps = impl;
	if (ps->pc && ps->pc->waiting == ps)
		ps->pc->waiting = NULL; /* the connection is closing */
	rows_free(ps->rows);
	sl_buf_release(&ps->arg);
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

/* The place of the column named [name, name + n) in a list "(a, b, c)"; -1 if absent. */
static int column_of(const char *list, const char *end, const char *name, size_t n)
{
	int i = 0;
	for (const char *p = list + 1; p < end; i++) {
		const char *q = p;
		while (q < end && *q != ',' && *q != ')')
			q++;
		if ((size_t)(q - p) == n && !memcmp(p, name, n))
			return i;
		p = q + 2; /* ", " */
	}
	return -1;
}

/*
 * Whether the statement sql is an INSERT whose rows can be sent several to a statement:
 * "INSERT INTO t (cols) VALUES (?, ..., ?)" with one parameter a column, then nothing, or an ON
 * CONFLICT clause without parameters, and no RETURNING. Its plan, or NULL.
 */
static pg_rows *rows_plan(const char *sql, int nparams)
{
	static const char values[] = " VALUES (";
	const char *v = strstr(sql, values);
	if (strncmp(sql, "INSERT INTO ", 12) || nparams < 1 || !v || strstr(sql, "RETURNING"))
		return NULL;
	const char *cols = memchr(sql, '(', (size_t)(v - sql)), *p = v + strlen(values);
	if (!cols || v[-1] != ')')
		return NULL;
	int n = 0;
	for (;; p += 2) {
		if (*p++ != '?')
			return NULL;
		n++;
		if (*p == ')')
			break;
		if (p[0] != ',' || p[1] != ' ')
			return NULL;
	}
	const char *tail = p + 1;
	if (n != nparams || strchr(tail, '?') || (*tail && strncmp(tail, " ON CONFLICT ", 13)))
		return NULL;
	pg_rows *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	if (strstr(tail, " DO UPDATE ")) {
		/* " ON CONFLICT (a, b) DO UPDATE ...": the parameters of a and b */
		const char *t = tail + 13, *e = *t == '(' ? strchr(t, ')') : NULL;
		for (const char *c = t + 1; e && c < e && b->nkey < SL_SQL_MAX_PARAMS;) {
			const char *q = c;
			while (q < e && *q != ',')
				q++;
			int i = column_of(cols, v, c, (size_t)(q - c));
			if (i < 0) {
				e = NULL;
				break;
			}
			b->key[b->nkey++] = i;
			c = q + 2;
		}
		if (!e || !b->nkey) {
			free(b);
			return NULL; /* a target we do not read: row by row */
		}
	}
	b->max = ROWS_MAX;
	while (b->max > 1 && b->max * nparams > ROWS_PARAMS_MAX)
		b->max /= 2;
	size_t cells = (size_t)b->max * (size_t)nparams;
	b->head = strndup(sql, (size_t)(v - sql) + strlen(" VALUES "));
	b->tail = strdup(tail);
	b->off = malloc(cells * sizeof *b->off);
	b->lens = malloc(cells * sizeof *b->lens);
	b->fmts = malloc(cells * sizeof *b->fmts);
	b->vals = malloc(cells * sizeof *b->vals);
	sl_buf_init(&b->data, ROWS_BYTES_MAX + ARG_BYTES_MAX);
	if (!b->head || !b->tail || !b->off || !b->lens || !b->fmts || !b->vals) {
		rows_free(b);
		return NULL;
	}
	return b;
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
	ps->pc = pc;
	sl_buf_init(&ps->arg, ARG_BYTES_MAX);
	clear_params(ps);
	ps->rows = rows_plan(sql, ps->nparams);
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
		finalize(ps);
		return NULL;
	}
	return ps;
}

static void set_param(sl_stmt *s, int i, const void *p, size_t n, int fmt, bool nul)
{
	pg_stmt *ps = s->impl;
	ps->off[i] = NO_VALUE;
	ps->lens[i] = ps->fmts[i] = 0;
	if (nul)
		return;
	ps->off[i] = ps->arg.len;
	sl_buf_add(&ps->arg, p, n);
	sl_buf_addc(&ps->arg, 0); /* a text value is read up to its NUL */
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

/* Prepare the variant of 2^k rows of ps (in the pipeline). */
static sl_err rows_prepare(sl_conn *c, pg_stmt *ps, int k, const char *name)
{
	pg_conn *pc = c->impl;
	pg_rows *b = ps->rows;
	sl_buf q;
	sl_buf_init(&q, 1u << 20);
	sl_buf_adds(&q, b->head);
	for (int r = 0; r < 1 << k; r++) {
		sl_buf_adds(&q, r ? ", (" : "(");
		for (int i = 0; i < ps->nparams; i++)
			sl_buf_adds(&q, i ? ", ?" : "?");
		sl_buf_addc(&q, ')');
	}
	sl_buf_adds(&q, b->tail);
	int n = 0;
	char *text = q.err ? NULL : translate(sl_buf_str(&q), &n);
	sl_buf_release(&q);
	if (!text)
		return sl_conn_fail(c, SL_ERR_NOMEM, "out of memory");
	bool ok = PQsendPrepare(pc->pg, name, text, 0, NULL);
	free(text);
	if (!ok)
		return pg_fail(c, "prepare", NULL);
	pc->pending++;
	b->prepared[k] = true;
	return SL_OK;
}

/* Send the rows waiting, as few statements as their count's bits. */
static sl_err rows_send(sl_conn *c)
{
	pg_conn *pc = c->impl;
	pg_stmt *ps = pc->waiting;
	if (!ps)
		return SL_OK;
	pc->waiting = NULL;
	pg_rows *b = ps->rows;
	size_t np = (size_t)ps->nparams;
	point(&b->data, b->off, b->vals, (size_t)b->n * np);
	sl_err e = SL_OK;
	for (int done = 0, k = ROWS_LEVELS - 1; !e && done < b->n; k--) {
		if (b->n - done < 1 << k)
			continue;
		char name[32];
		snprintf(name, sizeof name, "%s.%d", ps->name, k);
		if (!b->prepared[k] && (e = rows_prepare(c, ps, k, name)))
			break;
		size_t at = (size_t)done * np;
		if (!PQsendQueryPrepared(pc->pg, name, (1 << k) * ps->nparams, b->vals + at, b->lens + at,
					 b->fmts + at, 1))
			e = pg_fail(c, "send", NULL);
		pc->pending++;
		done += 1 << k;
	}
	rows_clear(b);
	if (!e && pc->pending >= PIPELINE_DRAIN)
		e = drain(c);
	return e;
}

/* Whether parameter i of the row bound to ps equals value j of its waiting rows. */
static bool same_value(const pg_stmt *ps, int i, size_t j)
{
	const pg_rows *b = ps->rows;
	if (ps->off[i] == NO_VALUE || b->off[j] == NO_VALUE)
		return ps->off[i] == b->off[j];
	return ps->lens[i] == b->lens[j] &&
	       !memcmp(ps->arg.p + ps->off[i], b->data.p + b->off[j], (size_t)ps->lens[i]);
}

/* Whether a waiting row of ps has the conflict target of the row bound now. */
static bool rows_key_waits(const pg_stmt *ps)
{
	const pg_rows *b = ps->rows;
	for (int r = 0; r < b->n; r++) {
		size_t row = (size_t)r * (size_t)ps->nparams;
		int k = 0;
		while (k < b->nkey && same_value(ps, b->key[k], row + (size_t)b->key[k]))
			k++;
		if (k == b->nkey)
			return true;
	}
	return false;
}

/* The row bound to ps joins its rows waiting. */
static sl_err rows_add(sl_conn *c, pg_stmt *ps)
{
	pg_conn *pc = c->impl;
	pg_rows *b = ps->rows;
	if (pc->waiting && (pc->waiting != ps || (b->nkey && rows_key_waits(ps)))) {
		sl_err e = rows_send(c);
		if (e)
			return e;
	}
	size_t np = (size_t)ps->nparams, at = (size_t)b->n * np;
	for (size_t i = 0; i < np; i++) {
		b->lens[at + i] = ps->lens[i];
		b->fmts[at + i] = ps->fmts[i];
		b->off[at + i] = NO_VALUE;
		if (ps->off[i] != NO_VALUE) {
			b->off[at + i] = b->data.len;
			sl_buf_add(&b->data, ps->arg.p + ps->off[i],
				   (size_t)ps->lens[i] + 1); /* with its NUL */
		}
	}
	if (b->data.err) {
		rows_clear(b);
		if (pc->waiting == ps)
			pc->waiting = NULL;
		return sl_conn_fail(c, SL_ERR_NOMEM, "out of memory for the rows of an insert");
	}
	b->n++;
	pc->waiting = ps;
	ps->changes = -1;
	if (b->n == b->max || b->data.len >= ROWS_BYTES_MAX)
		return rows_send(c);
	return SL_OK;
}

static sl_err exec(sl_stmt *s)
{
	pg_conn *pc = s->conn->impl;
	pg_stmt *ps = s->impl;
	if (ps->arg.err)
		return sl_conn_fail(s->conn, SL_ERR_TOO_LARGE, "a statement's parameters are too large");
	if (pc->pipeline && ps->rows)
		return rows_add(s->conn, ps);
	sl_err e = rows_send(s->conn);
	if (e)
		return e;
	point(&ps->arg, ps->off, ps->vals, (size_t)ps->nparams);
	if (pc->pipeline) {
		if (!PQsendQueryPrepared(pc->pg, ps->name, ps->nparams, ps->vals, ps->lens, ps->fmts, 1))
			return pg_fail(s->conn, "send", NULL);
		ps->changes = -1;
		if (++pc->pending >= PIPELINE_DRAIN)
			return drain(s->conn);
		return SL_OK;
	}
	PGresult *r = PQexecPrepared(pc->pg, ps->name, ps->nparams, ps->vals, ps->lens, ps->fmts, 1);
	ExecStatusType st = PQresultStatus(r);
	e = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? SL_OK : pg_fail(s->conn, "exec", r);
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
	if (ps->arg.err)
		return sl_conn_fail(s->conn, SL_ERR_TOO_LARGE, "a statement's parameters are too large");
	point(&ps->arg, ps->off, ps->vals, (size_t)ps->nparams);
	if (pc->pipeline) {
		/* A query inside a pipelined transaction: read what came before, then this alone. */
		sl_err e = drain(s->conn);
		if (e)
			return e;
		if (!PQsendQueryPrepared(pc->pg, ps->name, ps->nparams, ps->vals, ps->lens, ps->fmts, 1) ||
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
		PGresult *r = PQexecPrepared(pc->pg, ps->name, ps->nparams, ps->vals, ps->lens, ps->fmts, 1);
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
