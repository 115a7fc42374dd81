/*
 * fuzz_observe.c — hostile platform.getCurrentValidators and info.peers
 * answers into the indexer's sampler (index/observe.h): whatever the body,
 * parsing ends, every validator it accepts has an uptime within 0..100%, and
 * every peer a version of at most IX_PEER_VERSION_MAX printable characters.
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

static sl_err check_peer(void *ctx, const ix_peer *p)
{
	(void)ctx;
	size_t n = strnlen(p->version, sizeof p->version);
	if (n > IX_PEER_VERSION_MAX)
		abort();
	for (size_t i = 0; i < n; i++)
		if (p->version[i] < 0x20 || p->version[i] > 0x7e || p->version[i] == '\\')
			abort();
	return SL_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	sl_err e = ix_observe_parse(data, size, check, NULL, err);
	if (e != SL_OK && e != SL_ERR_INVALID && e != SL_ERR_UNSUPPORTED)
		abort();
	e = ix_peers_parse(data, size, check_peer, NULL, err);
	if (e != SL_OK && e != SL_ERR_INVALID && e != SL_ERR_UNSUPPORTED)
		abort();
	int64_t m;
	if (ix_percent_parse((const char *)data, size, &m) && (m < 0 || m > 1000000))
		abort();
	return 0;
}
