/*
 * dump.c — the canonical dump of a store (dump.h has the form).
 *
 * The tables and their columns come from the schema's DDL (sl_migrations),
 * parsed once: CREATE TABLE gives a table's columns, declared types and
 * primary key; DROP TABLE forgets one and ALTER TABLE … RENAME TO renames
 * it; ALTER TABLE … ADD [COLUMN] adds a column; CREATE [UNIQUE] INDEX, DROP
 * INDEX, UPDATE and INSERT change nothing it dumps. Any other statement
 * makes the dump fail, so the dump never silently misses what a new
 * migration makes.
 *
 * Rows are read in pages of DUMP_PAGE by their primary key (keyset: WHERE
 * (k1, k2) > (last) ORDER BY k1, k2), which both backends serve from the
 * key's index in the same order: integers by value, blobs byte by byte. A
 * table keyed by text (whose order is the collation's in PostgreSQL) or with
 * no key is read whole and sorted here. The rows dumped are counted against
 * COUNT(*), so a key holding values of mixed types (which SQLite would allow
 * and keyset paging would skip) fails the dump instead of shortening it.
 */
#include "store/dump.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <strings.h>

#include "crypto/hash.h"
#include "store/sql_backend.h"

#define DUMP_FORMAT 1
#define DUMP_MAX_TABLES 48
#define DUMP_MAX_COLS 48
#define DUMP_MAX_PK 8
#define DUMP_NAME 48
#define DUMP_PAGE 10000
#define DUMP_MAX_LINE (256u << 20)
#define DUMP_FLUSH (1u << 20)

typedef enum decl { D_INT, D_BLOB, D_TEXT } decl;
static const char *const decl_names[] = { "int", "blob", "text" };

typedef struct dcol {
	char name[DUMP_NAME];
	decl type;
	bool omit;
} dcol;

typedef struct dtable {
	char name[DUMP_NAME];
	dcol cols[DUMP_MAX_COLS];
	int ncols;
	int pk[DUMP_MAX_PK]; /* column numbers of the primary key */
	int npk;
	/* what is read: the columns not left out, and where each key column is among them */
	int sel[DUMP_MAX_COLS], nsel;
	int key_at[DUMP_MAX_PK];
	int skip_col; /* a column whose value omits the row (omit_rows), among sel; -1 */
	const char *skip_value;
	bool sorted_here; /* keyed by text or not at all: read whole and sorted here */
	sl_sql first, next, count;
} dtable;

/* What differs between two stores of the same history by design (dump.h). */
static const struct {
	const char *table, *column, *why;
} omit_cols[] = {
	{ "cursors", "head", "progress status" },
	{ "cursors", "caught_up_ms", "progress status" },
	{ "evm_cursors", "head", "progress status" },
	{ "evm_cursors", "caught_up_ms", "progress status" },
};
static const struct {
	const char *table, *why;
} omit_tables[] = {
	{ "node_obs", "what the indexer saw of the node's validators when it sampled them" },
	{ "prices", "prices loaded from outside the chain (snowline prices)" },
	{ "operations", "export jobs asked of the API, not chain data" },
};
static const struct {
	const char *table, *column, *value, *why;
} omit_rows[] = {
	{ "meta", "key", "token_secret", "the page-token secret, random per store" },
};

static dtable tables[DUMP_MAX_TABLES];
static int ntables;
static const char *table_names[DUMP_MAX_TABLES + 1];
static char schema_err[256];
static pthread_once_t schema_once = PTHREAD_ONCE_INIT;

/* ---- the schema's DDL ------------------------------------------------------------ */

static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '{' || c == '}';
}

/* The next word (letters, digits, _ and the dialect's {tokens}) into out; false when none fits. */
static bool word(const char **p, char *out, size_t cap)
{
	const char *s = ws(*p), *e = s;
	while (word_char(*e))
		e++;
	if (e == s || (size_t)(e - s) >= cap)
		return false;
	memcpy(out, s, (size_t)(e - s));
	out[e - s] = 0;
	*p = e;
	return true;
}

/* The keyword kw (any case) next: consumed, true. */
static bool kw(const char **p, const char *k)
{
	const char *s = ws(*p);
	size_t n = strlen(k);
	if (strncasecmp(s, k, n) || word_char(s[n]))
		return false;
	*p = s + n;
	return true;
}

static bool punct(const char **p, char c)
{
	const char *s = ws(*p);
	if (*s != c)
		return false;
	*p = s + 1;
	return true;
}

static bool parse_type(const char *t, decl *out)
{
	static const struct {
		const char *name;
		decl d;
	} types[] = {
		{ "{int}", D_INT },    { "INTEGER", D_INT },  { "BIGINT", D_INT }, { "INT", D_INT },
		{ "SMALLINT", D_INT }, { "{blob}", D_BLOB },  { "BLOB", D_BLOB },  { "BYTEA", D_BLOB },
		{ "TEXT", D_TEXT },    { "VARCHAR", D_TEXT },
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(types); i++)
		if (!strcasecmp(t, types[i].name)) {
			*out = types[i].d;
			return true;
		}
	return false;
}

static dtable *find_table(const char *name)
{
	for (int i = 0; i < ntables; i++)
		if (!strcmp(tables[i].name, name))
			return &tables[i];
	return NULL;
}

static int find_col(const dtable *t, const char *name)
{
	for (int i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i].name, name))
			return i;
	return -1;
}

/* "name type …" (the rest may say PRIMARY KEY) into t. */
static bool add_column(dtable *t, const char *el)
{
	const char *p = el;
	char type[32];
	if (t->ncols == DUMP_MAX_COLS || !word(&p, t->cols[t->ncols].name, DUMP_NAME) ||
	    !word(&p, type, sizeof type) || !parse_type(type, &t->cols[t->ncols].type) ||
	    find_col(t, t->cols[t->ncols].name) >= 0)
		return false;
	int col = t->ncols++;
	for (char w[DUMP_NAME]; *ws(p);) {
		if (kw(&p, "PRIMARY") && kw(&p, "KEY")) {
			if (t->npk)
				return false;
			t->pk[t->npk++] = col;
		} else if (!word(&p, w, sizeof w))
			p = ws(p) + 1; /* a default's punctuation */
	}
	return true;
}

/* A table element: a column, or PRIMARY KEY (a, b); other table constraints change nothing dumped. */
static bool add_element(dtable *t, const char *el)
{
	const char *p = el;
	if (kw(&p, "PRIMARY")) {
		if (!kw(&p, "KEY") || !punct(&p, '(') || t->npk)
			return false;
		do {
			char name[DUMP_NAME];
			int c;
			if (t->npk == DUMP_MAX_PK || !word(&p, name, sizeof name) ||
			    (c = find_col(t, name)) < 0)
				return false;
			t->pk[t->npk++] = c;
		} while (punct(&p, ','));
		return punct(&p, ')');
	}
	p = el;
	if (kw(&p, "UNIQUE") || kw(&p, "CHECK") || kw(&p, "CONSTRAINT") || kw(&p, "FOREIGN"))
		return true;
	return add_column(t, el);
}

static bool parse_create_table(const char *p)
{
	if (ntables == DUMP_MAX_TABLES)
		return false;
	dtable *t = &tables[ntables];
	memset(t, 0, sizeof *t);
	if (kw(&p, "IF") && !(kw(&p, "NOT") && kw(&p, "EXISTS")))
		return false;
	if (!word(&p, t->name, DUMP_NAME) || find_table(t->name) || !punct(&p, '('))
		return false;
	/* the elements, split at the commas outside parentheses */
	char el[1024];
	size_t n = 0;
	int depth = 0;
	for (;; p++) {
		if (!*p)
			return false;
		if ((*p == ',' || *p == ')') && depth == 0) {
			el[n] = 0;
			if (!add_element(t, el))
				return false;
			n = 0;
			if (*p == ')')
				break;
			continue;
		}
		depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
		if (n + 1 >= sizeof el)
			return false;
		el[n++] = *p;
	}
	ntables++;
	return t->ncols > 0;
}

static bool parse_alter_table(const char *p)
{
	char name[DUMP_NAME];
	dtable *t;
	if (!word(&p, name, sizeof name) || !(t = find_table(name)))
		return false;
	if (kw(&p, "RENAME")) {
		if (!kw(&p, "TO") || !word(&p, name, sizeof name) || find_table(name) || *ws(p))
			return false;
		memcpy(t->name, name, sizeof t->name);
		return true;
	}
	if (!kw(&p, "ADD"))
		return false;
	(void)kw(&p, "COLUMN");
	return add_column(t, p);
}

static bool parse_drop_table(const char *p)
{
	char name[DUMP_NAME];
	dtable *t;
	if (!word(&p, name, sizeof name) || !(t = find_table(name)) || *ws(p))
		return false;
	int at = (int)(t - tables);
	memmove(&tables[at], &tables[at + 1], (size_t)(ntables - at - 1) * sizeof tables[0]);
	ntables--;
	return true;
}

static bool parse_ddl(const char *d)
{
	const char *p = d;
	if (kw(&p, "CREATE")) {
		if (kw(&p, "TABLE"))
			return parse_create_table(p);
		(void)kw(&p, "UNIQUE");
		return kw(&p, "INDEX");
	}
	p = d;
	if (kw(&p, "DROP")) {
		if (kw(&p, "TABLE"))
			return parse_drop_table(p);
		return kw(&p, "INDEX");
	}
	p = d;
	/* rows, not a table's shape (v3 makes the P-chain be read again; v11 copies utxos) */
	if (kw(&p, "UPDATE") || kw(&p, "INSERT"))
		return true;
	p = d;
	return kw(&p, "ALTER") && kw(&p, "TABLE") && parse_alter_table(p);
}

/* The statements of a table, made once: their texts live as long as the process. */
static bool make_queries(dtable *t)
{
	for (size_t i = 0; i < SL_ARRAY_LEN(omit_cols); i++) {
		int c = strcmp(omit_cols[i].table, t->name) ? -1 : find_col(t, omit_cols[i].column);
		if (c >= 0)
			t->cols[c].omit = true;
	}
	t->skip_col = -1;
	t->nsel = 0;
	for (int c = 0; c < t->ncols; c++)
		if (!t->cols[c].omit)
			t->sel[t->nsel++] = c;
	for (int k = 0; k < t->npk; k++) {
		if (t->cols[t->pk[k]].omit)
			return false;
		for (int s = 0; s < t->nsel; s++)
			if (t->sel[s] == t->pk[k])
				t->key_at[k] = s;
		t->sorted_here |= t->cols[t->pk[k]].type == D_TEXT;
	}
	t->sorted_here |= t->npk == 0;
	for (size_t i = 0; i < SL_ARRAY_LEN(omit_rows); i++) {
		int c = strcmp(omit_rows[i].table, t->name) ? -1 : find_col(t, omit_rows[i].column);
		for (int s = 0; c >= 0 && s < t->nsel; s++)
			if (t->sel[s] == c) {
				t->skip_col = s;
				t->skip_value = omit_rows[i].value;
			}
	}
	sl_buf cols, order, where, q;
	sl_buf_init(&cols, 1u << 16);
	sl_buf_init(&order, 1u << 12);
	sl_buf_init(&where, 1u << 12);
	sl_buf_init(&q, 1u << 16);
	for (int s = 0; s < t->nsel; s++)
		sl_buf_addf(&cols, "%s%s", s ? ", " : "", t->cols[t->sel[s]].name);
	for (int k = 0; k < t->npk; k++)
		sl_buf_addf(&order, "%s%s", k ? ", " : "", t->cols[t->pk[k]].name);
	sl_buf_adds(&where, t->npk > 1 ? "(" : "");
	sl_buf_add(&where, order.p, order.len);
	sl_buf_adds(&where, t->npk > 1 ? ") > (" : " > ");
	for (int k = 0; k < t->npk; k++)
		sl_buf_adds(&where, k ? ", ?" : "?");
	sl_buf_adds(&where, t->npk > 1 ? ")" : "");
	bool ok = true;
	const sl_sql *qs[3] = { &t->first, &t->next, &t->count };
	for (int i = 0; i < 3 && ok; i++) {
		sl_buf_reset(&q);
		if (i == 2)
			sl_buf_addf(&q, "SELECT COUNT(*) FROM %s", t->name);
		else if (t->sorted_here)
			sl_buf_addf(&q, "SELECT %s FROM %s", sl_buf_str(&cols), t->name);
		else
			sl_buf_addf(&q, "SELECT %s FROM %s%s%s ORDER BY %s LIMIT %d", sl_buf_str(&cols),
				    t->name, i ? " WHERE " : "", i ? sl_buf_str(&where) : "",
				    sl_buf_str(&order), DUMP_PAGE);
		char *text = q.err ? NULL : strdup(sl_buf_str(&q));
		ok = text != NULL;
		((sl_sql *)qs[i])->text = text;
	}
	sl_buf_release(&cols);
	sl_buf_release(&order);
	sl_buf_release(&where);
	sl_buf_release(&q);
	return ok && !cols.err && !order.err && !where.err;
}

static void load_schema(void)
{
	for (size_t m = 0; m < sl_nmigrations; m++)
		for (const char *const *d = sl_migrations[m].ddl; *d; d++)
			if (!parse_ddl(*d)) {
				snprintf(schema_err, sizeof schema_err,
					 "the dump cannot follow this DDL of schema version %d: %.120s",
					 sl_migrations[m].version, *d);
				ntables = 0;
				return;
			}
	for (int i = 0; i < ntables; i++) {
		if (!make_queries(&tables[i])) {
			snprintf(schema_err, sizeof schema_err, "the dump cannot read table %s",
				 tables[i].name);
			ntables = 0;
			return;
		}
		table_names[i] = tables[i].name;
	}
	table_names[ntables] = NULL;
}

const char *const *sl_store_dump_tables(char err[256])
{
	pthread_once(&schema_once, load_schema);
	if (schema_err[0]) {
		snprintf(err, 256, "%s", schema_err);
		return NULL;
	}
	return table_names;
}

/* ---- output --------------------------------------------------------------------- */

typedef struct emitter {
	sl_buf out;
	sl_dump_write_fn write;
	void *ctx;
	bool digest;
	sl_sha256_ctx all, table;
	sl_err err;
} emitter;

static void flush(emitter *m)
{
	if (!m->err && m->out.err)
		m->err = m->out.err;
	if (!m->err && m->out.len)
		m->err = m->write(m->ctx, m->out.p, m->out.len);
	sl_buf_reset(&m->out);
}

/* Bytes of the output as it is. */
static void out(emitter *m, const void *p, size_t n)
{
	sl_buf_add(&m->out, p, n);
	if (m->out.len >= DUMP_FLUSH || m->out.err)
		flush(m);
}

/* Bytes of the dump text: printed, or hashed in digest mode. */
static void text(emitter *m, const void *p, size_t n)
{
	if (!m->digest) {
		out(m, p, n);
		return;
	}
	sl_sha256_update(&m->all, p, n);
	sl_sha256_update(&m->table, p, n);
}

static void textf(emitter *m, const char *fmt, ...) SL_PRINTF(2, 3);
static void textf(emitter *m, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	text(m, line, n < 0 ? 0 : SL_MIN((size_t)n, sizeof line - 1));
}

/* ---- rows ----------------------------------------------------------------------- */

static void add_text(sl_buf *b, const uint8_t *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	sl_buf_addc(b, '\'');
	for (size_t i = 0; i < n; i++) {
		uint8_t c = p[i];
		switch (c) {
		case '\\': sl_buf_add(b, "\\\\", 2); break;
		case '\'': sl_buf_add(b, "\\'", 2); break;
		case '\t': sl_buf_add(b, "\\t", 2); break;
		case '\n': sl_buf_add(b, "\\n", 2); break;
		case '\r': sl_buf_add(b, "\\r", 2); break;
		default:
			if (c < 0x20 || c == 0x7f) {
				char e[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };
				sl_buf_add(b, e, 4);
			} else
				sl_buf_addc(b, (char)c);
		}
	}
	sl_buf_addc(b, '\'');
}

/* A key value, kept past the row it came from (to sort by, or to page from). */
typedef struct keyval {
	sl_coltype type;
	int64_t i;
	uint8_t *p;
	size_t n;
} keyval;

static int keyval_cmp(const keyval *a, const keyval *b)
{
	/* mixed types sort as SQLite sorts them: NULL, numbers, text, blobs */
	if (a->type != b->type)
		return a->type == SL_COL_NULL	? -1
		       : b->type == SL_COL_NULL ? 1
		       : a->type == SL_COL_INT	? -1
		       : b->type == SL_COL_INT	? 1
		       : a->type == SL_COL_TEXT ? -1
						: 1;
	if (a->type == SL_COL_INT)
		return a->i < b->i ? -1 : a->i > b->i;
	int c = memcmp(a->p, b->p, SL_MIN(a->n, b->n));
	return c ? c : a->n < b->n ? -1 : a->n > b->n;
}

/* The row read by s as a line "table\tv\tv…\n" into line; its key values into key (npk of them). */
static sl_err encode_row(sl_conn *c, sl_stmt *s, const dtable *t, sl_buf *line, keyval *key, bool *skip)
{
	sl_buf_reset(line);
	sl_buf_adds(line, t->name);
	*skip = false;
	for (int i = 0; i < t->nsel; i++) {
		const dcol *col = &t->cols[t->sel[i]];
		sl_buf_addc(line, '\t');
		sl_coltype ty = sl_col_type(s, i);
		size_t n = 0;
		const uint8_t *p = NULL;
		switch (ty) {
		case SL_COL_NULL: sl_buf_adds(line, "NULL"); break;
		case SL_COL_INT: sl_buf_add_i64(line, sl_col_i64(s, i)); break;
		case SL_COL_BLOB:
			p = sl_col_blob(s, i, &n);
			sl_buf_add(line, "x'", 2);
			sl_buf_add_hex(line, p, n);
			sl_buf_addc(line, '\'');
			break;
		case SL_COL_TEXT:
			p = (const uint8_t *)sl_col_text(s, i, &n);
			add_text(line, p, n);
			if (i == t->skip_col && n == strlen(t->skip_value) && !memcmp(p, t->skip_value, n))
				*skip = true;
			break;
		default:
			return sl_conn_fail(c, SL_ERR_UNSUPPORTED,
					    "%s.%s holds a value of a type outside the portable dialect",
					    t->name, col->name);
		}
		for (int k = 0; k < t->npk; k++) {
			if (t->key_at[k] != i)
				continue;
			keyval *kv = &key[k];
			free(kv->p);
			*kv = (keyval){ .type = ty, .i = ty == SL_COL_INT ? sl_col_i64(s, i) : 0, .n = n };
			if (p && n) {
				if (!(kv->p = malloc(n)))
					return sl_conn_fail(c, SL_ERR_NOMEM, "out of memory");
				memcpy(kv->p, p, n);
			}
		}
	}
	sl_buf_addc(line, '\n');
	return line->err ? sl_conn_fail(c, SL_ERR_TOO_LARGE, "a row of %s over %u bytes", t->name,
					DUMP_MAX_LINE)
			 : SL_OK;
}

static void keys_free(keyval *key, int n)
{
	for (int k = 0; k < n; k++) {
		free(key[k].p);
		key[k] = (keyval){ 0 };
	}
}

/* A row read whole, to be sorted here. */
typedef struct held_row {
	uint8_t *line;
	size_t len;
	keyval key[DUMP_MAX_PK];
	int npk;
} held_row;

static int held_cmp(const void *a, const void *b)
{
	const held_row *x = a, *y = b;
	for (int k = 0; k < x->npk; k++) {
		int c = keyval_cmp(&x->key[k], &y->key[k]);
		if (c)
			return c;
	}
	int c = memcmp(x->line, y->line, SL_MIN(x->len, y->len));
	return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

/* Every row of t in key order through m; *rows gets how many were read (omitted ones too). */
static sl_err dump_rows(sl_conn *c, emitter *m, const dtable *t, sl_buf *line, int64_t *rows,
			int64_t *printed)
{
	keyval last[DUMP_MAX_PK] = { 0 };
	held_row *held = NULL;
	size_t nheld = 0, cap = 0;
	bool paging = false;
	sl_err e = SL_OK;
	*rows = *printed = 0;
	for (;;) {
		sl_stmt *s = sl_stmt_get(c, paging ? &t->next : &t->first);
		if (!s) {
			e = SL_ERR_STORE;
			break;
		}
		for (int k = 0; paging && k < t->npk; k++) {
			if (last[k].type == SL_COL_INT)
				sl_bind_i64(s, k, last[k].i);
			else if (last[k].type == SL_COL_BLOB)
				sl_bind_blob(s, k, last[k].p, last[k].n);
			else if (last[k].type == SL_COL_TEXT)
				sl_bind_text(s, k, (const char *)last[k].p, last[k].n);
			else
				sl_bind_null(s, k);
		}
		if ((e = sl_stmt_query(s)))
			break;
		int64_t page = 0;
		bool skip;
		while (sl_stmt_next(s, &e)) {
			page++;
			(*rows)++;
			if (t->sorted_here) {
				if (nheld == cap) {
					size_t nc = cap ? 2 * cap : 64;
					held_row *h = realloc(held, nc * sizeof *h);
					if (!h) {
						e = sl_conn_fail(c, SL_ERR_NOMEM, "out of memory");
						break;
					}
					held = h;
					cap = nc;
				}
				held_row *h = &held[nheld];
				*h = (held_row){ .npk = t->npk };
				if ((e = encode_row(c, s, t, line, h->key, &skip))) {
					keys_free(h->key, t->npk);
					break;
				}
				if (skip) {
					keys_free(h->key, t->npk);
					continue;
				}
				if (!(h->line = malloc(line->len))) {
					keys_free(h->key, t->npk);
					e = sl_conn_fail(c, SL_ERR_NOMEM, "out of memory");
					break;
				}
				memcpy(h->line, line->p, line->len);
				h->len = line->len;
				nheld++;
				continue;
			}
			if ((e = encode_row(c, s, t, line, last, &skip)))
				break;
			if (!skip) {
				text(m, line->p, line->len);
				(*printed)++;
			}
		}
		if (e || m->err || t->sorted_here || page < DUMP_PAGE)
			break;
		paging = true;
	}
	if (!e && held) {
		qsort(held, nheld, sizeof *held, held_cmp);
		for (size_t i = 0; i < nheld; i++)
			text(m, held[i].line, held[i].len);
		*printed = (int64_t)nheld;
	}
	for (size_t i = 0; i < nheld; i++) {
		free(held[i].line);
		keys_free(held[i].key, held[i].npk);
	}
	free(held);
	keys_free(last, t->npk);
	return e;
}

static const sl_sql q_version = { "SELECT version FROM schema_version" };

static sl_err dump(sl_conn *c, const sl_dump_opts *o, emitter *m, char err[256])
{
	const char *const *names = sl_store_dump_tables(err);
	if (!names)
		return SL_ERR_UNSUPPORTED;
	for (const char *const *want = o->tables; want && *want; want++)
		if (!find_table(*want)) {
			snprintf(err, 256, "the schema has no table '%s'", *want);
			return SL_ERR_NOT_FOUND;
		}
	sl_stmt *s = sl_stmt_get(c, &q_version);
	sl_err e = s ? sl_stmt_query(s) : SL_ERR_STORE;
	int64_t version = 0;
	if (!e && sl_stmt_next(s, &e))
		version = sl_col_i64(s, 0);
	if (e)
		return e;
	sl_buf line;
	sl_buf_init(&line, DUMP_MAX_LINE);
	textf(m, "snowline-dump %d schema %lld\n", DUMP_FORMAT, (long long)version);
	for (size_t i = 0; i < SL_ARRAY_LEN(omit_rows); i++)
		textf(m, "# left out: the row of %s where %s = '%s' (%s)\n", omit_rows[i].table,
		      omit_rows[i].column, omit_rows[i].value, omit_rows[i].why);
	for (size_t i = 0; i < SL_ARRAY_LEN(omit_cols); i++)
		textf(m, "# left out: %s.%s (%s)\n", omit_cols[i].table, omit_cols[i].column,
		      omit_cols[i].why);
	for (size_t i = 0; i < SL_ARRAY_LEN(omit_tables); i++)
		textf(m, "# left out: table %s (%s)\n", omit_tables[i].table, omit_tables[i].why);
	int64_t total = 0;
	for (int i = 0; !e && !m->err && i < ntables; i++) {
		const dtable *t = &tables[i];
		bool wanted = !o->tables; /* every table but the omitted ones, unless asked by name */
		for (size_t k = 0; wanted && k < SL_ARRAY_LEN(omit_tables); k++)
			wanted = strcmp(omit_tables[k].table, t->name) != 0;
		for (const char *const *w = o->tables; w && *w; w++)
			wanted |= !strcmp(*w, t->name);
		if (!wanted)
			continue;
		if (m->digest && !sl_sha256_init(&m->table)) {
			e = sl_conn_fail(c, SL_ERR_NOMEM, "out of memory");
			break;
		}
		sl_buf_reset(&line);
		sl_buf_addf(&line, "table %s", t->name);
		for (int k = 0; k < t->nsel; k++)
			sl_buf_addf(&line, " %s:%s", t->cols[t->sel[k]].name,
				    decl_names[t->cols[t->sel[k]].type]);
		sl_buf_addc(&line, '\n');
		text(m, line.p, line.len);
		int64_t rows = 0, printed = 0, counted = -1;
		e = dump_rows(c, m, t, &line, &rows, &printed);
		sl_stmt *k = e ? NULL : sl_stmt_get(c, &t->count);
		if (!e && !k)
			e = SL_ERR_STORE;
		if (!e && !(e = sl_stmt_query(k)) && sl_stmt_next(k, &e))
			counted = sl_col_i64(k, 0);
		if (!e && counted != rows)
			e = sl_conn_fail(
				c, SL_ERR_INTERNAL,
				"%s: %lld rows read in key order, but it has %lld (a key column holds values "
				"of mixed types)",
				t->name, (long long)rows, (long long)counted);
		if (e)
			break;
		textf(m, "end %s %lld\n", t->name, (long long)printed);
		total += printed;
		if (m->digest) {
			uint8_t h[32];
			sl_sha256_final(&m->table, h);
			char hex[65];
			for (int b = 0; b < 32; b++)
				snprintf(hex + 2 * b, 3, "%02x", h[b]);
			sl_buf_reset(&line);
			sl_buf_addf(&line, "%s %lld %s\n", t->name, (long long)printed, hex);
			out(m, line.p, line.len);
		}
	}
	if (m->digest)
		sl_sha256_final(&m->table, (uint8_t[32]){ 0 }); /* frees it after a failure mid-table */
	if (!e && m->digest) {
		uint8_t h[32];
		sl_sha256_final(&m->all, h);
		char hex[65];
		for (int b = 0; b < 32; b++)
			snprintf(hex + 2 * b, 3, "%02x", h[b]);
		sl_buf_reset(&line);
		sl_buf_addf(&line, "all %lld %s\n", (long long)total, hex);
		out(m, line.p, line.len);
	}
	sl_buf_release(&line);
	if (e && !err[0])
		snprintf(err, 256, "%s", sl_conn_error(c));
	return e;
}

sl_err sl_store_dump(sl_conn *c, const sl_dump_opts *opts, sl_dump_write_fn write, void *ctx, char err[256])
{
	static const sl_dump_opts none = { 0 };
	const sl_dump_opts *o = opts ? opts : &none;
	emitter m = { .write = write, .ctx = ctx, .digest = o->digest };
	err[0] = 0;
	sl_buf_init(&m.out, 2 * DUMP_FLUSH + DUMP_MAX_LINE);
	if (m.digest && !sl_sha256_init(&m.all)) {
		sl_buf_release(&m.out);
		snprintf(err, 256, "out of memory");
		return SL_ERR_NOMEM;
	}
	sl_err e = sl_conn_begin_read(c);
	if (e)
		snprintf(err, 256, "%s", sl_conn_error(c));
	else {
		e = dump(c, o, &m, err);
		sl_conn_rollback(c);
	}
	flush(&m);
	if (!e && m.err) {
		e = m.err;
		snprintf(err, 256, "cannot write the dump: %s", sl_err_name(e));
	}
	sl_sha256_final(&m.all, (uint8_t[32]){ 0 });
	sl_buf_release(&m.out);
	return e;
}
