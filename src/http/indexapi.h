/*
 * indexapi.h — the client side of the index API (/ext/index/{P/block,
 * C/block, X/tx, X/block, X/vtx}: spec 001 §4.2): the body of an
 * index.getContainerRange request, and its answer parsed and checked.
 *
 * The answer may be avalanchego's {"containers":[…]} or the spec's bare
 * array. Every container is checked before it is accepted: `index` is the
 * one asked for (start + i), `id` is the cb58 of 32 bytes, `bytes` is "0x"
 * hex with a valid 4-byte checksum and at most SL_MAX_CONTAINER bytes, and
 * `timestamp` is RFC 3339. An error answer meaning "nothing at or after
 * startIndex" (avalanchego's "start index … > last accepted index …" and
 * "no containers have been accepted") is a valid answer with no containers.
 *
 * Memory: the decoded bytes of all containers of one answer go back to back
 * into the range's `data` buffer (bounded by its max); `items[i].bytes`
 * point into it and stay valid until the next parse or release.
 */
#ifndef SL_HTTP_INDEXAPI_H
#define SL_HTTP_INDEXAPI_H

#include "util/buf.h"

typedef struct sl_ixitem {
	uint8_t id[32];
	uint64_t index;
	int64_t ts_ns; /* the node's acceptance time, unix ns */
	const uint8_t *bytes;
	size_t len;
} sl_ixitem;

typedef struct sl_ixrange {
	sl_ixitem *items;
	size_t n, cap;
	sl_buf data;
} sl_ixrange;

/* data_max bounds the decoded bytes of one answer. */
void sl_ixrange_init(sl_ixrange *r, size_t data_max);
void sl_ixrange_release(sl_ixrange *r);

/* The JSON-RPC request body of index.getContainerRange into out; returns its length. */
size_t sl_indexapi_range_request(char out[256], uint64_t start, uint32_t num);

/*
 * Parse the answer to a range request for [start, start + num). On success r
 * holds 0 to num containers (0: the index has nothing at `start` yet). On
 * failure r is empty and err says what was wrong: a JSON-RPC error's
 * message, or which container failed which check.
 */
SL_MUST_USE sl_err sl_indexapi_range_parse(const char *json, size_t n, uint64_t start, uint32_t num,
					   sl_ixrange *r, char err[256]);

#endif
