/*
 * dump.h — a store's canonical dump: every table of the schema as text that
 * is the same for the same data whatever the backend and whatever order the
 * rows were written in. Two stores that dump alike hold the same rows; the
 * tests compare stores indexed on SQLite and PostgreSQL, with kill -9
 * restarts and in different interleavings of the node's indexes this way.
 *
 * The form (docs/operations.md has an example):
 *   snowline-dump 1 schema N
 *   # left out: …                        what differs between runs by design
 *   table NAME COL:TYPE COL:TYPE …        a table, in the order the schema makes them
 *   NAME<TAB>VALUE<TAB>VALUE …            its rows, sorted by the primary key
 *   end NAME ROWS                         the rows it had
 * Values, one encoding per SQL type: integers in decimal; blobs as x'hex'
 * (lower case); text in single quotes, with \\ \' \t \n \r and \xHH for the
 * other control bytes (UTF-8 as is); NULL as NULL. Tables come from the
 * schema's own DDL (schema.c), so a new table or column is dumped without
 * changing this file; DDL it cannot follow makes the dump fail.
 *
 * Left out: meta 'token_secret' (the page-token secret, random per store) and
 * the status columns cursors.head and cursors.caught_up_ms (what the node had
 * when last asked, and a wall-clock time). Everything else is kept.
 *
 * The dump reads in one read transaction (sl_conn_begin_read), so it is one
 * moment of the store even while an indexer writes to it.
 */
#ifndef SL_STORE_DUMP_H
#define SL_STORE_DUMP_H

#include "store/sql.h"

/* Where the text goes: return nonzero to stop the dump (it then fails with that error). */
typedef sl_err (*sl_dump_write_fn)(void *ctx, const void *p, size_t n);

typedef struct sl_dump_opts {
	const char *const *tables; /* only these (NULL-terminated), or NULL for all */
	bool digest;		   /* per table one line "NAME ROWS SHA256" (of its dump text) instead */
} sl_dump_opts;

/*
 * Dump the store through c (a connection of a reader or a writer; no
 * transaction may be open on it). err says what failed: a table the opts
 * name that the schema has not, a value of a type outside the portable
 * dialect, the store's own error.
 */
SL_MUST_USE sl_err sl_store_dump(sl_conn *c, const sl_dump_opts *opts, sl_dump_write_fn write, void *ctx,
				 char err[256]);

/* The names of the schema's tables, in dump order (NULL-terminated; static storage). NULL with err when
 * the schema has DDL the dump cannot follow. */
const char *const *sl_store_dump_tables(char err[256]);

#endif
