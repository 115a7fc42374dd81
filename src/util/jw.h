/*
 * jw.h — the streaming JSON writer every response goes through.
 *
 * Writes straight into an sl_buf: no tree, no second pass. Commas are
 * placed by the writer (a bit per nesting level), so callers only say what
 * comes next. Strings are escaped as Go's encoding/json escapes them, because
 * clients compare our bytes with avalanchego's: `<`, `>`, `&` become \u003c,
 * \u003e, \u0026; U+2028 and U+2029 are escaped; invalid UTF-8 becomes
 * \ufffd; control characters use \n \r \t or \u00XX.
 *
 * Errors are the buffer's sticky error (out of memory, or past the buffer's
 * max): check `jw->out->err` once at the end. Nesting deeper than
 * SL_JW_MAX_DEPTH is a caller bug (assert).
 */
#ifndef SL_JW_H
#define SL_JW_H

#include "util/buf.h"

#define SL_JW_MAX_DEPTH 64

typedef struct sl_jw {
	sl_buf *out;
	unsigned depth;
	uint64_t has_items; /* bit d: the container at depth d already has an item */
	bool after_key;	    /* a key was written; the next value needs no comma */
} sl_jw;

static inline void sl_jw_init(sl_jw *w, sl_buf *out) { *w = (sl_jw){ .out = out }; }

void sl_jw_obj(sl_jw *w);			      /* { */
void sl_jw_obj_end(sl_jw *w);			      /* } */
void sl_jw_arr(sl_jw *w);			      /* [ */
void sl_jw_arr_end(sl_jw *w);			      /* ] */
void sl_jw_key(sl_jw *w, const char *key);	      /* key must need no escaping */
void sl_jw_keyn(sl_jw *w, const char *key, size_t n); /* escaped */

void sl_jw_str(sl_jw *w, const char *s);
void sl_jw_strn(sl_jw *w, const char *s, size_t n);
void sl_jw_u64(sl_jw *w, uint64_t v); /* JSON number */
void sl_jw_i64(sl_jw *w, int64_t v);
void sl_jw_u64s(sl_jw *w, uint64_t v); /* decimal in a string: "123" */
void sl_jw_bool(sl_jw *w, bool v);
void sl_jw_null(sl_jw *w);
void sl_jw_raw(sl_jw *w, const char *json, size_t n); /* already-valid JSON value */
void sl_jw_hex(sl_jw *w, const uint8_t *p, size_t n); /* "0x…" lower case, no checksum */

/* Begin a value whose bytes the caller appends to w->out itself (writers of
 * other modules' types use it: crypto/cb58.h's sl_jw_cb58). */
void sl_jw_value(sl_jw *w);

/* Escape s as a JSON string body (no quotes) onto b, Go style. */
void sl_json_escape(sl_buf *b, const char *s, size_t n);

#endif
