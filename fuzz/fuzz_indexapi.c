/*
 * fuzz_indexapi.c — hostile bytes into the parser of index.getContainerRange
 * answers (http/indexapi.h), as `snowline node --follow` and the indexer meet
 * them from an upstream node, and into the RFC 3339 parser they use.
 *
 * Properties: a successful parse holds at most the containers asked for,
 * with the indexes asked for, each within SL_MAX_CONTAINER and inside the
 * range's data buffer; a failed parse leaves the range empty and says why.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "http/indexapi.h"
#include "util/limits.h"
#include "util/rfc3339.h"

static _Noreturn void fail(const char *why)
{
	fprintf(stderr, "fuzz_indexapi: %s\n", why);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int64_t ns;
	if (sl_rfc3339_parse((const char *)data, size < 64 ? size : 64, &ns) == SL_OK && ns < 0)
		fail("a time before 1970");
	const uint64_t start = 0;
	const uint32_t num = 4;
	sl_ixrange r;
	sl_ixrange_init(&r, 1u << 20);
	char err[256] = "";
	sl_err e = sl_indexapi_range_parse((const char *)data, size, start, num, &r, err);
	if (e) {
		if (r.n || !err[0])
			fail("a failed parse with containers, or without a reason");
	} else {
		if (r.n > num)
			fail("more containers than asked for");
		for (size_t i = 0; i < r.n; i++) {
			const sl_ixitem *it = &r.items[i];
			if (it->index != start + i || it->len > SL_MAX_CONTAINER + 5 ||
			    it->bytes < r.data.p || it->bytes + it->len > r.data.p + r.data.len)
				fail("a container out of order or out of its buffer");
		}
	}
	sl_ixrange_release(&r);
	return 0;
}
