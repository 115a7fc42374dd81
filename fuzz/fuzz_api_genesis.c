/*
 * fuzz_api_genesis.c — a CreateChainTx's genesis bytes (anyone's) into
 * api/genesis.c, as GET …/subnets reads and shows them.
 *
 * Input: the genesis bytes.
 * Properties:
 *  - nothing is shown only for bytes that are not one JSON value (whitespace
 *    around it aside), or more than API_GENESIS_MAX of them;
 *  - what is written is one JSON value, whole, of valid UTF-8, and of the
 *    form read: a string for the string form, an object for the object form;
 *  - the object form is nested at most API_GENESIS_DEPTH deep and is a fixed
 *    point: read again from what was written, it is the object form with the
 *    same chain id, and written again it is the same bytes;
 *  - a chain id comes only from an object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"
#include "fuzz.h"

static _Noreturn void fail(const char *why, const uint8_t *in, size_t n, const sl_buf *out)
{
	fprintf(stderr, "fuzz_api_genesis: %s (input %zu bytes '%.*s', output '%.300s')\n", why, n,
		(int)(n < 300 ? n : 300), (const char *)in, sl_buf_str(out));
	abort();
}

/* Valid UTF-8 throughout (Go's rules: no surrogates, no overlong forms). */
static bool utf8_ok(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint8_t c = s[i];
		size_t len = c < 0x80		     ? 1
			     : c >= 0xc2 && c < 0xe0 ? 2
			     : c >= 0xe0 && c < 0xf0 ? 3
			     : c >= 0xf0 && c < 0xf5 ? 4
						     : 0;
		if (!len || i + len > n)
			return false;
		for (size_t k = 1; k < len; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
		if ((c == 0xe0 && s[i + 1] < 0xa0) || (c == 0xed && s[i + 1] > 0x9f) ||
		    (c == 0xf0 && s[i + 1] < 0x90) || (c == 0xf4 && s[i + 1] > 0x8f))
			return false;
		i += len;
	}
	return true;
}

/* Write the genesis as the handler does, inside an array (a writer's value needs a container). */
static void write_value(sl_buf *out, const uint8_t *p, size_t n, const api_genesis *g, sl_buf *scratch)
{
	sl_jw w;
	sl_jw_init(&w, out);
	sl_jw_arr(&w);
	api_genesis_write(&w, p, n, g, scratch);
	sl_jw_arr_end(&w);
}

static bool is_json(const uint8_t *p, size_t n)
{
	size_t a, b;
	char msg[128];
	if (sl_json_scan((const char *)p, n, &a, &b, msg))
		return false;
	for (size_t i = b; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
			return false;
	return true;
}

static int depth_of(const uint8_t *p, size_t n)
{
	int d = 0, most = 0;
	bool str = false;
	for (size_t i = 0; i < n; i++) {
		if (str) {
			if (p[i] == '\\')
				i++;
			else if (p[i] == '"')
				str = false;
		} else if (p[i] == '"') {
			str = true;
		} else if (p[i] == '{' || p[i] == '[') {
			most = ++d > most ? d : most;
		} else if (p[i] == '}' || p[i] == ']') {
			d--;
		}
	}
	return most;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_buf scratch, out, again;
	sl_buf_init(&scratch, API_GENESIS_SCRATCH);
	sl_buf_init(&out, 4 * API_GENESIS_SCRATCH);
	sl_buf_init(&again, 4 * API_GENESIS_SCRATCH);
	api_genesis g;
	api_genesis_read(data, size, &g, &scratch);
	bool json = size && size <= API_GENESIS_MAX && is_json(data, size);
	if ((g.form == API_GENESIS_NONE) == json)
		fail(json ? "JSON not shown" : "shown, yet not JSON (or too large)", data, size, &out);
	if (g.has_chain_id && sl_json_type(g.value) != SL_JT_OBJECT)
		fail("a chain id of no object", data, size, &out);
	if (g.form != API_GENESIS_NONE) {
		write_value(&out, data, size, &g, &scratch);
		if (out.err || !is_json(out.p, out.len) || !utf8_ok(out.p, out.len))
			fail("not one JSON value of valid UTF-8", data, size, &out);
		sl_span v = sl_span_of(out.p + 1, out.len - 2); /* inside the array */
		sl_jtype t = sl_json_type(v);
		if (t != (g.form == API_GENESIS_OBJECT ? SL_JT_OBJECT : SL_JT_STRING))
			fail("a value of another form", data, size, &out);
	}
	if (g.form == API_GENESIS_OBJECT) {
		const uint8_t *v = out.p + 1;
		size_t vn = out.len - 2;
		if (depth_of(v, vn) > API_GENESIS_DEPTH)
			fail("an object nested too deep", data, size, &out);
		api_genesis h;
		api_genesis_read(v, vn, &h, &scratch);
		if (h.form != API_GENESIS_OBJECT || h.has_chain_id != g.has_chain_id ||
		    h.chain_id != g.chain_id)
			fail("its own output reads otherwise", data, size, &out);
		write_value(&again, v, vn, &h, &scratch);
		if (again.len != out.len || memcmp(again.p, out.p, out.len))
			fail("written again, other bytes", data, size, &out);
	}
	sl_buf_release(&scratch);
	sl_buf_release(&out);
	sl_buf_release(&again);
	return 0;
}
