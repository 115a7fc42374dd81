/*
 * jsonv.h — JSON values read in place, with Go's encoding/json semantics.
 *
 * The node's JSON-RPC framing must answer byte for byte as avalanchego (Go)
 * does: the same syntax-error texts, the raw text of `id` echoed back, raw
 * number text handed to custom decoders ("1.50" stays "1.50", "\u0035" is
 * not a digit). A DOM library (jansson) loses exactly that, so requests are
 * read here as spans over the body; jansson serves the config file and
 * request bodies whose raw text does not matter.
 *
 * Use: sl_json_scan() validates the first value in a buffer and finds its
 * end (trailing bytes are the caller's business, as with Go's Decoder). All
 * other functions take spans of a value that sl_json_scan() has validated;
 * they never read outside the span but assume it is well-formed.
 */
#ifndef SL_JSONV_H
#define SL_JSONV_H

#include "util/buf.h"

typedef enum sl_jtype {
	SL_JT_INVALID,
	SL_JT_OBJECT,
	SL_JT_ARRAY,
	SL_JT_STRING,
	SL_JT_NUMBER,
	SL_JT_BOOL,
	SL_JT_NULL,
} sl_jtype;

/*
 * Validate the first JSON value in p[0..n): on success *start and *end delimit it
 * (leading whitespace skipped) and SL_OK is returned. On failure, `msg` gets
 * Go's error text: "EOF" (nothing but whitespace), "unexpected EOF",
 * "invalid character 'x' looking for beginning of value", ...
 * Nesting is bounded by SL_JSON_MAX_DEPTH; no allocation.
 */
SL_MUST_USE sl_err sl_json_scan(const char *p, size_t n, size_t *start, size_t *end, char msg[128]);

/* The type of a validated value, from its first byte. */
sl_jtype sl_json_type(sl_span v);
/* Go's name of a JSON kind in type errors: "object", "array", "string", "number", "bool". */
const char *sl_json_kind_name(sl_jtype t);

/* Iterate a validated object or array. Keys are raw (with their quotes). */
typedef struct sl_jiter {
	const char *p;
	size_t n, off;
} sl_jiter;
void sl_json_iter_init(sl_jiter *it, sl_span container);
bool sl_json_obj_next(sl_jiter *it, sl_span *key, sl_span *val);
bool sl_json_arr_next(sl_jiter *it, sl_span *val);

/* Decode a raw string (with quotes) as Go does: escapes resolved, bad
 * surrogates and invalid UTF-8 become U+FFFD. Appends to out. */
void sl_json_unquote(sl_span raw, sl_buf *out);
/* The most bytes unquoting n raw bytes can produce (an invalid byte becomes 3). */
#define SL_JSON_UNQUOTE_MAX(n) (3 * (size_t)(n) + 16)
/* Go's fold-equality of an unquoted object key with an ASCII field name. */
bool sl_json_key_match(const char *key, size_t n, const char *field);
/* Go's Compact with HTML escaping: whitespace out, <>& and U+2028/9 escaped. */
void sl_json_compact(sl_span raw, sl_buf *out);

#endif
