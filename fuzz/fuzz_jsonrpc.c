/*
 * fuzz_jsonrpc.c — hostile request bodies into the pieces of the JSON-RPC
 * parser that a request can reach without the HTTP server: the in-place JSON
 * reader (util/jsonv.h) and the argument decoders (node/jsonrpc.h).
 *
 * For an input that sl_json_scan() accepts, the value is walked (objects and
 * arrays, to WALK_MAX_DEPTH levels): every key and string is unquoted, every
 * value compacted and handed to sl_rpc_arg_decode() as each argument type.
 * Besides "never crash, leak or read out of bounds", it checks what must
 * hold whatever the bytes:
 *   - the scanned value scans again on its own, to the same length;
 *   - compacting gives one valid value, and compacting that changes nothing;
 *   - unquoting gives valid UTF-8 with no surrogate code points (Go turns
 *     bad bytes and lone surrogates into U+FFFD);
 *   - a STRING argument decodes to exactly the unquoted text.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "node/jsonrpc.h"
#include "util/arena.h"
#include "util/jsonv.h"

/* A broken invariant: say which, then abort (libFuzzer and the replayer
 * both report the abort; the message tells which property failed). */
static _Noreturn void fail(const char *why)
{
	fprintf(stderr, "fuzz_jsonrpc: %s\n", why);
	abort();
}

#define WALK_MAX_DEPTH 64
#define SCRATCH_ARENA (4u << 20)
#define MAX_OUT (64u << 20)

static const sl_rpc_type types[] = { SL_RPC_STRING, SL_RPC_UINT64,  SL_RPC_ID,	   SL_RPC_ENCODING,
				     SL_RPC_LEVEL,  SL_RPC_STRINGS, SL_RPC_NODEIDS };
static const char *const fields[] = { "id", "jsonrpc", "method", "params", "startIndex", "numToFetch" };

/* Valid UTF-8 without surrogates or overlong forms (what Go's decoder emits). */
static bool utf8_ok(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint8_t c = p[i];
		size_t len;
		uint32_t cp;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			len = 2;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			len = 3;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			len = 4;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (n - i < len)
			return false;
		for (size_t k = 1; k < len; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
		if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += len;
	}
	return true;
}

static void check_string(sl_span raw, sl_arena *a)
{
	sl_buf u;
	sl_buf_init(&u, MAX_OUT);
	sl_json_unquote(raw, &u);
	if (u.err || !utf8_ok(u.p ? u.p : (const uint8_t *)"", u.len))
		fail("sl_json_unquote gave invalid UTF-8 or a surrogate");
	for (size_t i = 0; i < SL_ARRAY_LEN(fields); i++)
		(void)sl_json_key_match(sl_buf_str(&u), u.len, fields[i]);
	sl_rpc_val v = { 0 };
	if (sl_rpc_arg_decode(SL_RPC_STRING, raw, a, &v)) {
		if (!v.set || !v.s || v.slen != u.len || memcmp(v.s, sl_buf_str(&u), u.len) != 0 ||
		    v.s[v.slen] != 0)
			fail("a STRING argument is not the whole unquoted string");
	}
	sl_buf_release(&u);
}

static void check_compact(sl_span v)
{
	sl_buf c1, c2;
	sl_buf_init(&c1, MAX_OUT);
	sl_buf_init(&c2, MAX_OUT);
	sl_json_compact(v, &c1);
	if (c1.err)
		fail("sl_json_compact failed");
	size_t s, e;
	char msg[128];
	if (sl_json_scan((const char *)sl_buf_str(&c1), c1.len, &s, &e, msg) != SL_OK || s != 0 ||
	    e != c1.len)
		fail("sl_json_compact output is not exactly one JSON value (a value span with extra bytes?)");
	sl_json_compact(sl_span_of(c1.p, c1.len), &c2);
	if (c2.err || c2.len != c1.len || memcmp(c1.p, c2.p, c1.len) != 0)
		fail("sl_json_compact is not idempotent");
	sl_buf_release(&c1);
	sl_buf_release(&c2);
}

static void walk(sl_span v, sl_arena *a, int depth)
{
	for (size_t i = 0; i < SL_ARRAY_LEN(types); i++) {
		sl_rpc_val out = { 0 };
		if (!sl_rpc_arg_decode(types[i], v, a, &out))
			continue;
		/* what a method reads from a decoded argument must be there */
		if (types[i] == SL_RPC_ENCODING && out.set && (out.enc < SL_ENC_HEX || out.enc > SL_ENC_JSON))
			fail("an ENCODING argument out of the enum");
		if (types[i] == SL_RPC_STRINGS && out.set)
			for (size_t k = 0; k < out.nstrs; k++)
				if (!out.strs[k])
					fail("a STRINGS argument with a NULL element");
		if (types[i] == SL_RPC_NODEIDS && out.set && out.nstrs && !out.nodes)
			fail("a NODEIDS argument without its ids");
	}
	check_compact(v);
	sl_jtype t = sl_json_type(v);
	if (t == SL_JT_STRING)
		check_string(v, a);
	if (depth >= WALK_MAX_DEPTH)
		return;
	sl_jiter it;
	sl_span key, val;
	sl_json_iter_init(&it, v);
	if (t == SL_JT_OBJECT) {
		while (sl_json_obj_next(&it, &key, &val)) {
			if (sl_json_type(key) != SL_JT_STRING)
				fail("an object key that is not a string");
			check_string(key, a);
			walk(val, a, depth + 1);
		}
	} else if (t == SL_JT_ARRAY) {
		while (sl_json_arr_next(&it, &val))
			walk(val, a, depth + 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t start = 0, end = 0;
	char msg[128];
	msg[0] = 0;
	if (sl_json_scan((const char *)data, size, &start, &end, msg) != SL_OK) {
		if (!memchr(msg, 0, sizeof msg) || !msg[0])
			fail("sl_json_scan failed without a message");
		return 0;
	}
	if (start > end || end > size)
		fail("sl_json_scan's span is outside the input");
	size_t s2, e2;
	if (sl_json_scan((const char *)data + start, end - start, &s2, &e2, msg) != SL_OK || s2 != 0 ||
	    e2 != end - start)
		fail("the scanned value does not scan again on its own");
	sl_arena a;
	sl_arena_init(&a, SCRATCH_ARENA);
	walk(sl_span_of(data + start, end - start), &a, 0);
	sl_arena_release(&a);
	return 0;
}
