/*
 * err.h — the one error enum.
 *
 * Every fallible function returns an sl_err; SL_OK is zero so `if (err)`
 * reads naturally. The mapping to HTTP statuses lives in http/errors.c and
 * the mapping to JSON-RPC errors in node/jsonrpc.c, nowhere else.
 *
 * Decoders add detail with sl_err_detail: a static message and the byte
 * offset at which the input went wrong.
 */
#ifndef SL_ERR_H
#define SL_ERR_H

#include <stddef.h>

typedef enum sl_err {
	SL_OK = 0,
	SL_ERR_INVALID,	    /* malformed input from outside (bad syntax, bad value) */
	SL_ERR_TRUNCATED,   /* input ended before a declared length or field */
	SL_ERR_TRAILING,    /* input has bytes after the end of the value */
	SL_ERR_TOO_LARGE,   /* a length, count or size exceeds a limit */
	SL_ERR_RANGE,	    /* a number is outside its allowed range */
	SL_ERR_CHECKSUM,    /* a checksum or signature does not verify */
	SL_ERR_UNSUPPORTED, /* a valid value that this build does not handle (type id, version) */
	SL_ERR_NOT_FOUND,   /* a lookup missed */
	SL_ERR_CONFLICT,    /* the thing already exists, or the state forbids the change */
	SL_ERR_NOMEM,	    /* allocation failed or a buffer cap was hit */
	SL_ERR_IO,	    /* filesystem or socket error */
	SL_ERR_STORE,	    /* the database failed */
	SL_ERR_UNAVAILABLE, /* a peer or upstream did not answer */
	SL_ERR_TIMEOUT,	    /* a deadline passed */
	SL_ERR_INTERNAL,    /* a bug: an invariant did not hold */
	SL_ERR__COUNT
} sl_err;

/* A short lower-case name for logs ("invalid", "not found", ...). */
const char *sl_err_name(sl_err e);

/* Detail for decoders and parsers: what went wrong and where. */
typedef struct sl_err_detail {
	sl_err code;
	const char *msg; /* static string; never freed */
	size_t offset;	 /* byte offset into the input */
} sl_err_detail;

#endif
