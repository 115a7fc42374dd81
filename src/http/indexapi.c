#include "http/indexapi.h"

#include <stdarg.h>

#include "crypto/cb58.h"
#include "crypto/hash.h"
#include "util/jsonv.h"
#include "util/limits.h"
#include "util/rfc3339.h"

void sl_ixrange_init(sl_ixrange *r, size_t data_max)
{
	*r = (sl_ixrange){ 0 };
	sl_buf_init(&r->data, data_max);
}

void sl_ixrange_release(sl_ixrange *r)
{
	free(r->items);
	sl_buf_release(&r->data);
	*r = (sl_ixrange){ 0 };
}

size_t sl_indexapi_range_request(char out[256], uint64_t start, uint32_t num)
{
	int n = snprintf(out, 256,
			 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"index.getContainerRange\","
			 "\"params\":{\"startIndex\":\"%llu\",\"numToFetch\":\"%u\",\"encoding\":\"hex\"}}",
			 (unsigned long long)start, num);
	return n > 0 ? (size_t)n : 0;
}

/* The member `name` of a validated object (exact key match), or an empty span. */
static sl_span member(sl_span obj, const char *name)
{
	sl_jiter it;
	sl_span k, v;
	size_t n = strlen(name);
	sl_json_iter_init(&it, obj);
	while (sl_json_obj_next(&it, &k, &v))
		if (k.len == n + 2 && !memcmp(k.p + 1, name, n))
			return v;
	return (sl_span){ 0 };
}

/* A string value without its quotes, when it has no escapes (ids, hex and times never do). */
static bool plain_string(sl_span v, const char **s, size_t *n)
{
	if (sl_json_type(v) != SL_JT_STRING || memchr(v.p, '\\', v.len))
		return false;
	*s = (const char *)v.p + 1;
	*n = v.len - 2;
	return true;
}

SL_PRINTF(4, 5) static sl_err fail(sl_ixrange *r, char err[256], sl_err e, const char *fmt, ...)
{
	r->n = 0;
	sl_buf_reset(&r->data);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, 256, fmt, ap);
	va_end(ap);
	return e;
}

/* One container object into r (its bytes appended to r->data; pointers fixed up by the caller). */
static sl_err parse_item(sl_span obj, uint64_t want, sl_ixrange *r, char err[256])
{
	const char *s, *msg = NULL;
	size_t n;
	char mb[96];
	sl_ixitem it = { .index = want };
	if (sl_json_type(obj) != SL_JT_OBJECT)
		return fail(r, err, SL_ERR_INVALID, "container %llu: not an object",
			    (unsigned long long)want);
	/* one pass over the members (a lookup per name would walk the long hex of "bytes" four times) */
	sl_span idx = { 0 }, id = { 0 }, bytes = { 0 }, ts = { 0 }, k, v;
	sl_jiter ji;
	sl_json_iter_init(&ji, obj);
	while (sl_json_obj_next(&ji, &k, &v)) {
		sl_span *slot = k.len == 7 && !memcmp(k.p, "\"index\"", 7)	   ? &idx
				: k.len == 4 && !memcmp(k.p, "\"id\"", 4)	   ? &id
				: k.len == 7 && !memcmp(k.p, "\"bytes\"", 7)	   ? &bytes
				: k.len == 11 && !memcmp(k.p, "\"timestamp\"", 11) ? &ts
										   : NULL;
		if (slot && !slot->len)
			*slot = v; /* the first of a repeated name, as member() took it */
	}
	char num[24];
	if (!plain_string(idx, &s, &n) || n >= sizeof num)
		return fail(r, err, SL_ERR_INVALID, "container %llu: no index", (unsigned long long)want);
	memcpy(num, s, n);
	num[n] = 0;
	char *end;
	if (!n || strtoull(num, &end, 10) != want || *end)
		return fail(r, err, SL_ERR_INVALID, "container %llu: index out of order",
			    (unsigned long long)want);
	if (!plain_string(id, &s, &n) || sl_cb58_decode_id(s, n, it.id, &msg, mb))
		return fail(r, err, SL_ERR_INVALID, "container %llu: id: %s", (unsigned long long)want,
			    msg ? msg : "missing");
	if (!plain_string(ts, &s, &n) || sl_rfc3339_parse(s, n, &it.ts_ns))
		return fail(r, err, SL_ERR_INVALID, "container %llu: timestamp is not RFC 3339",
			    (unsigned long long)want);
	if (!plain_string(bytes, &s, &n))
		return fail(r, err, SL_ERR_INVALID, "container %llu: no bytes", (unsigned long long)want);
	if (n / 2 > SL_MAX_CONTAINER + 5)
		return fail(r, err, SL_ERR_TOO_LARGE, "container %llu: larger than a container may be",
			    (unsigned long long)want);
	size_t off = r->data.len;
	if (!sl_buf_reserve(&r->data, n / 2))
		return fail(r, err, SL_ERR_TOO_LARGE, "container %llu: answer too large",
			    (unsigned long long)want);
	size_t len = 0;
	if (sl_hex_checksum_decode(s, n, r->data.p + off, n / 2, &len, &msg))
		return fail(r, err, SL_ERR_INVALID, "container %llu: bytes: %s", (unsigned long long)want,
			    msg);
	r->data.len = off + len;
	r->data.p[r->data.len] = 0;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		sl_ixitem *p = realloc(r->items, cap * sizeof *p);
		if (!p)
			return fail(r, err, SL_ERR_NOMEM, "container %llu: out of memory",
				    (unsigned long long)want);
		r->items = p;
		r->cap = cap;
	}
	it.bytes = (const uint8_t *)(uintptr_t)off; /* an offset until the data stops moving */
	it.len = len;
	r->items[r->n++] = it;
	return SL_OK;
}

sl_err sl_indexapi_range_parse(const char *json, size_t n, uint64_t start, uint32_t num, sl_ixrange *r,
			       char err[256])
{
	r->n = 0;
	sl_buf_reset(&r->data);
	size_t a, b;
	char msg[128];
	if (sl_json_scan(json, n, &a, &b, msg)) {
		snprintf(err, 256, "answer is not JSON: %s", msg);
		return SL_ERR_INVALID;
	}
	sl_span root = { (const uint8_t *)json + a, b - a };
	if (sl_json_type(root) != SL_JT_OBJECT) {
		snprintf(err, 256, "answer is not a JSON-RPC response");
		return SL_ERR_INVALID;
	}
	sl_span error = member(root, "error"), result = member(root, "result");
	if (error.len && sl_json_type(error) == SL_JT_OBJECT) {
		/* Go escapes '>' in "start index (N) > last accepted index (M)": unquote the message. */
		sl_span m = member(error, "message");
		sl_buf text;
		sl_buf_init(&text, 1024);
		if (sl_json_type(m) == SL_JT_STRING && m.len <= 300)
			sl_json_unquote(m, &text);
		const char *s = sl_buf_str(&text);
		static const char beyond[] = "start index", none[] = "no containers have been accepted";
		bool end = !strncmp(s, beyond, sizeof beyond - 1) || !strcmp(s, none);
		if (!end)
			snprintf(err, 256, "error: %s", s);
		sl_buf_release(&text);
		return end ? SL_OK : SL_ERR_UNAVAILABLE;
	}
	sl_span list = result;
	if (result.len && sl_json_type(result) == SL_JT_OBJECT)
		list = member(result, "containers");
	if (!list.len || sl_json_type(list) == SL_JT_NULL)
		return SL_OK;
	if (sl_json_type(list) != SL_JT_ARRAY) {
		snprintf(err, 256, "answer has no list of containers");
		return SL_ERR_INVALID;
	}
	sl_jiter it;
	sl_span v;
	sl_json_iter_init(&it, list);
	while (sl_json_arr_next(&it, &v)) {
		if (r->n >= num) {
			snprintf(err, 256, "answer has more than the %u containers asked for", num);
			r->n = 0;
			return SL_ERR_INVALID;
		}
		sl_err e = parse_item(v, start + r->n, r, err);
		if (e)
			return e;
	}
	for (size_t i = 0; i < r->n; i++)
		r->items[i].bytes = r->data.p + (uintptr_t)r->items[i].bytes;
	return SL_OK;
}
