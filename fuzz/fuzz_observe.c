/*
 * fuzz_observe.c — hostile platform.getCurrentValidators answers into the
 * indexer's sampler (index/observe.h): whatever the body, parsing ends, and
 * every validator it accepts has an uptime within 0..100%.
 */
#include "index/observe.h"

#include <stdlib.h>

#include "fuzz.h"

static sl_err check(void *ctx, const ix_observation *o)
{
	(void)ctx;
	if (o->uptime < 0 || o->uptime > 1000000)
		abort();
	return SL_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	sl_err e = ix_observe_parse(data, size, check, NULL, err);
	if (e != SL_OK && e != SL_ERR_INVALID && e != SL_ERR_UNSUPPORTED)
		abort();
	int64_t m;
	if (ix_percent_parse((const char *)data, size, &m) && (m < 0 || m > 1000000))
		abort();
	return 0;
}
