/*
 * fuzz_evmrpc.c — hostile params into the parsers of the node's C-chain eth
 * JSON-RPC (node/evmrpc.h): block numbers and tags, BlockNumberOrHash,
 * addresses and hashes, bools, log filters; and the stored genesis record.
 *
 * For an input that sl_json_scan() accepts, every value in it (objects and
 * arrays walked to WALK_MAX_DEPTH levels) goes through every parser. Besides
 * "never crash, leak or read out of bounds", what must hold whatever the bytes:
 *   - a failure always leaves a message;
 *   - a quantity that parses is canonical: "0x" and its lower-case hex, no
 *     leading zero, so formatting the value gives the input back;
 *   - a fixed value that parses is a JSON string of exactly 2 + 2n bytes
 *     whose hex is the value's;
 *   - a block reference is a hash, a number <= 2^63 - 1, or one of the tags;
 *   - a filter that parses respects its bounds (addresses, 4 topic
 *     positions, alternatives per position);
 *   - a genesis record that parses accounts for every byte of the input.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "fuzz.h"
#include "node/evmrpc.h"
#include "util/jsonv.h"
#include "util/limits.h"

static _Noreturn void fail(const char *why)
{
	fprintf(stderr, "fuzz_evmrpc: %s\n", why);
	abort();
}

#define WALK_MAX_DEPTH 32
#define SCRATCH_ARENA (4u << 20)

static void check_msg(const char err[SL_EVM_ERR])
{
	if (!memchr(err, 0, SL_EVM_ERR) || !err[0])
		fail("a parser failed without a message");
}

static void check_ref(const sl_evm_blockref *r)
{
	if (!r->by_hash && r->number < -5)
		fail("a block reference below the tags");
}

static void one(sl_span v, sl_arena *a)
{
	char err[SL_EVM_ERR];
	sl_evm_blockref r;
	uint8_t out[32];
	bool b;
	sl_evm_filter f;

	memset(err, 0, sizeof err);
	if (sl_evm_parse_blocknum(v, &r, err)) {
		if (r.by_hash || r.number < SL_EVM_SAFE)
			fail("blocknum gave a hash or an unknown tag");
	} else {
		check_msg(err);
	}
	memset(err, 0, sizeof err);
	if (sl_evm_parse_blockref(v, &r, err))
		check_ref(&r);
	else
		check_msg(err);
	static const size_t sizes[2] = { 20, 32 };
	for (int i = 0; i < 2; i++) {
		memset(err, 0, sizeof err);
		if (sl_evm_parse_fixed(v, out, sizes[i], i ? "common.Hash" : "common.Address", err)) {
			if (v.len != 4 + 2 * sizes[i] || v.p[0] != '"')
				fail("a fixed value of the wrong length parsed");
			static const char hx[] = "0123456789abcdef";
			for (size_t k = 0; k < sizes[i]; k++)
				if ((v.p[3 + 2 * k] | 0x20) != hx[out[k] >> 4] ||
				    (v.p[4 + 2 * k] | 0x20) != hx[out[k] & 15])
					fail("a fixed value's bytes differ from its hex");
		} else {
			check_msg(err);
		}
	}
	memset(err, 0, sizeof err);
	if (!sl_evm_parse_bool(v, &b, err))
		check_msg(err);
	memset(err, 0, sizeof err);
	if (sl_evm_parse_filter(v, a, &f, err)) {
		if (f.naddrs > SL_EVM_MAX_FILTER_ADDRS || f.ntopics > 4)
			fail("a filter past its bounds parsed");
		for (int i = 0; i < 4; i++)
			if (f.nsub[i] > SL_EVM_MAX_FILTER_ADDRS)
				fail("a topic position past its bound parsed");
		if (f.has_from)
			check_ref(&f.from);
		if (f.has_to)
			check_ref(&f.to);
	} else {
		check_msg(err);
	}
	/* the quantity parser on the raw text inside a string */
	if (v.len >= 2 && v.p[0] == '"') {
		uint64_t q;
		const char *why = NULL;
		const char *s = (const char *)v.p + 1;
		size_t n = v.len - 2;
		if (sl_evm_parse_quantity(s, n, &q, &why)) {
			char back[24];
			int m = snprintf(back, sizeof back, "0x%" PRIx64, q);
			if ((size_t)m != n || strncasecmp(back, s, n))
				fail("a quantity that parsed is not canonical");
		} else if (!why || !why[0]) {
			fail("the quantity parser failed without a message");
		}
	}
}

static void walk(sl_span v, sl_arena *a, int depth)
{
	one(v, a);
	if (depth >= WALK_MAX_DEPTH)
		return;
	sl_jtype t = sl_json_type(v);
	sl_jiter it;
	sl_span k, e;
	sl_json_iter_init(&it, v);
	if (t == SL_JT_OBJECT) {
		while (sl_json_obj_next(&it, &k, &e)) {
			one(k, a);
			walk(e, a, depth + 1);
		}
	} else if (t == SL_JT_ARRAY) {
		while (sl_json_arr_next(&it, &e))
			walk(e, a, depth + 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_evm_genesis g;
	if (sl_evm_genesis_parse(data, size, &g)) {
		if (32 + g.header.len + (size_t)g.nalloc * SL_EVM_ALLOC_RECORD != size ||
		    g.header.p != data + 28 || g.nalloc > SL_EVM_MAX_ALLOC)
			fail("a genesis record that parsed does not account for its bytes");
	}
	size_t start = 0, end = 0;
	char msg[128];
	if (sl_json_scan((const char *)data, size, &start, &end, msg) != SL_OK)
		return 0;
	sl_arena a;
	sl_arena_init(&a, SCRATCH_ARENA);
	walk(sl_span_of(data + start, end - start), &a, 0);
	sl_arena_release(&a);
	return 0;
}
