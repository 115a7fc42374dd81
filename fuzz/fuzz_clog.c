/*
 * fuzz_clog.c — hostile bytes into the container-log record decoder
 * (node/clog.h), as `snowline node --import` meets them after the magic.
 *
 * Records are decoded one after another. The record encoding has exactly one
 * form per (kind, id, timestamp, bytes), so every record that decodes must
 * re-encode to the very bytes it came from. A failed decode must say why
 * in its detail, consistently with the return value, and never claim an
 * offset past the input.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "node/clog.h"
#include "util/limits.h"

/* A broken invariant: say which, then abort (libFuzzer and the replayer
 * both report the abort; the message tells which property failed). */
static _Noreturn void fail(const char *why)
{
	fprintf(stderr, "fuzz_clog: %s\n", why);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_buf out;
	sl_buf_init(&out, SL_IMPORT_MAX_RECORD);
	size_t off = 0;
	while (off < size) {
		sl_clog_rec rec;
		sl_err_detail d;
		size_t used = 0;
		const uint8_t *p = data + off;
		size_t n = size - off;
		sl_err e = sl_clog_decode(p, n, &rec, &used, &d);
		if (e != d.code)
			fail("the error detail's code differs from the return value");
		if (e) {
			if (!d.msg || d.offset > n)
				fail("an error without a message, or with an offset past the input");
			/* too short is the only error a longer input could cure */
			if (e == SL_ERR_TRUNCATED && n >= SL_CLOG_HEAD &&
			    sl_be32(p + 41) <= SL_MAX_CONTAINER &&
			    n >= SL_CLOG_HEAD + (size_t)sl_be32(p + 41) + 4)
				fail("SL_ERR_TRUNCATED for a record that is all there");
			break;
		}
		if (used < SL_CLOG_HEAD + 4 || used > n || rec.kind >= SL_IDX__COUNT ||
		    rec.c.len > SL_MAX_CONTAINER || used != SL_CLOG_HEAD + rec.c.len + 4 ||
		    rec.c.bytes != p + SL_CLOG_HEAD)
			fail("a decoded record out of its bounds");
		sl_buf_reset(&out);
		sl_clog_encode(&out, rec.kind, &rec.c);
		if (out.err || out.len != used || memcmp(out.p, p, used) != 0)
			fail("a decoded record does not re-encode to its own bytes");
		off += used;
	}
	sl_buf_release(&out);
	return 0;
}
