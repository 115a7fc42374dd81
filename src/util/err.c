#include "util/err.h"

static const char *const names[SL_ERR__COUNT] = {
	[SL_OK] = "ok",
	[SL_ERR_INVALID] = "invalid",
	[SL_ERR_TRUNCATED] = "truncated",
	[SL_ERR_TRAILING] = "trailing bytes",
	[SL_ERR_TOO_LARGE] = "too large",
	[SL_ERR_RANGE] = "out of range",
	[SL_ERR_CHECKSUM] = "bad checksum",
	[SL_ERR_UNSUPPORTED] = "unsupported",
	[SL_ERR_NOT_FOUND] = "not found",
	[SL_ERR_CONFLICT] = "conflict",
	[SL_ERR_NOMEM] = "out of memory",
	[SL_ERR_IO] = "i/o error",
	[SL_ERR_STORE] = "store error",
	[SL_ERR_UNAVAILABLE] = "unavailable",
	[SL_ERR_TIMEOUT] = "timeout",
	[SL_ERR_INTERNAL] = "internal error",
};

const char *sl_err_name(sl_err e) { return (unsigned)e < SL_ERR__COUNT ? names[e] : "unknown error"; }
