#include "node/jsonrpc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>
#include <limits.h>
#include <wchar.h>
#include <wctype.h>

#include "crypto/addr.h"
#include "crypto/cb58.h"
#include "util/gofmt.h"
#include "util/jsonv.h"
#include "util/limits.h"
#include "util/log.h"

static const char bad_args_msg[] =
	"couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for "
	"example calls";

static const char *const enc_names[] = { "hex", "hexc", "hexnc", "json" };
const char *sl_encoding_name(sl_encoding e) { return enc_names[e]; }

/* The request as json2 decodes it: raw spans, p == NULL when absent or null. */
typedef struct rpc_req {
	sl_buf jsonrpc, method; /* unquoted strings */
	sl_span params, id;
	const char *type_err; /* first "cannot unmarshal" error, if any */
} rpc_req;

/* The request object echoed as error data: Go's marshalling of serverRequest. */
static void write_request(sl_buf *b, const rpc_req *r)
{
	sl_buf_adds(b, "{\"jsonrpc\":\"");
	sl_json_escape(b, sl_buf_str(&r->jsonrpc), r->jsonrpc.len);
	sl_buf_adds(b, "\",\"method\":\"");
	sl_json_escape(b, sl_buf_str(&r->method), r->method.len);
	sl_buf_adds(b, "\",\"params\":");
	if (r->params.p)
		sl_json_compact(r->params, b);
	else
		sl_buf_adds(b, "null");
	sl_buf_adds(b, ",\"id\":");
	if (r->id.p)
		sl_json_compact(r->id, b);
	else
		sl_buf_adds(b, "null");
	sl_buf_addc(b, '}');
}

/* {"jsonrpc":"2.0","error":{"code":C,"message":M,"data":D},"id":I}\n */
static void write_error(sl_http_resp *resp, int code, const char *msg, const rpc_req *data, sl_span id)
{
	sl_buf *b = &resp->body;
	sl_buf_reset(b);
	resp->status = 200;
	resp->content_type = "application/json; charset=utf-8";
	sl_buf_adds(b, "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":");
	sl_buf_add_i64(b, code);
	sl_buf_adds(b, ",\"message\":\"");
	sl_json_escape(b, msg, strlen(msg));
	sl_buf_adds(b, "\",\"data\":");
	if (data)
		write_request(b, data);
	else
		sl_buf_adds(b, "null");
	sl_buf_adds(b, "},\"id\":");
	if (id.p)
		sl_json_compact(id, b);
	else
		sl_buf_adds(b, "null");
	sl_buf_adds(b, "}\n");
}

static void type_error(rpc_req *r, sl_arena *a, sl_jtype got, const char *field)
{
	if (r->type_err)
		return; /* Go keeps the first */
	char msg[160];
	snprintf(msg, sizeof msg,
		 "json: cannot unmarshal %s into Go struct field serverRequest.%s of type %s",
		 sl_json_kind_name(got), field,
		 !strcmp(field, "jsonrpc") || !strcmp(field, "method") ? "string" : "json.RawMessage");
	r->type_err = sl_arena_strndup(a, msg, strlen(msg));
}

/* Step 3: decode the first JSON value of the body into the request. */
static const char *decode_request(const sl_http_req *req, rpc_req *r, char msg[128])
{
	size_t start = 0, end = 0;
	if (sl_json_scan((const char *)req->body, req->body_len, &start, &end, msg))
		return msg;
	sl_span v = sl_span_of(req->body + start, end - start);
	sl_jtype t = sl_json_type(v);
	if (t == SL_JT_NULL)
		return NULL;
	if (t != SL_JT_OBJECT) {
		snprintf(msg, 128, "json: cannot unmarshal %s into Go value of type json2.serverRequest",
			 sl_json_kind_name(t));
		return msg;
	}
	sl_jiter it;
	sl_span k, val;
	sl_json_iter_init(&it, v);
	sl_buf key;
	sl_buf_init(&key, SL_JSON_UNQUOTE_MAX(req->body_len));
	while (sl_json_obj_next(&it, &k, &val)) {
		sl_buf_reset(&key);
		sl_json_unquote(k, &key);
		sl_jtype vt = sl_json_type(val);
		if (sl_json_key_match(sl_buf_str(&key), key.len, "jsonrpc") ||
		    sl_json_key_match(sl_buf_str(&key), key.len, "method")) {
			bool is_method = sl_json_key_match(sl_buf_str(&key), key.len, "method");
			sl_buf *dst = is_method ? &r->method : &r->jsonrpc;
			if (vt == SL_JT_STRING) {
				sl_buf_reset(dst);
				sl_json_unquote(val, dst);
			} else if (vt != SL_JT_NULL) {
				type_error(r, req->arena, vt, is_method ? "method" : "jsonrpc");
			}
		} else if (sl_json_key_match(sl_buf_str(&key), key.len, "params")) {
			r->params = vt == SL_JT_NULL ? sl_span_of(NULL, 0) : val;
		} else if (sl_json_key_match(sl_buf_str(&key), key.len, "id")) {
			r->id = vt == SL_JT_NULL ? sl_span_of(NULL, 0) : val;
		}
	}
	sl_buf_release(&key);
	return r->type_err;
}

/* ---- argument decoding, one function per avalanchego type ---- */

static bool raw_is(sl_span raw, const char *s) { return sl_span_eq(raw, s); }

/* A JSON string's text, unquoted Go's way, NUL-terminated in the arena. */
static const char *unquote_to_arena(sl_span raw, sl_arena *a, size_t *len)
{
	sl_buf b;
	sl_buf_init(&b, SL_JSON_UNQUOTE_MAX(raw.len));
	sl_json_unquote(raw, &b);
	const char *s = b.err ? NULL : sl_arena_strndup(a, sl_buf_str(&b), b.len);
	*len = b.len;
	sl_buf_release(&b);
	return s;
}

bool sl_rpc_arg_decode(sl_rpc_type t, sl_span raw, sl_arena *a, sl_rpc_val *v)
{
	sl_jtype jt = sl_json_type(raw);
	switch (t) {
	case SL_RPC_STRING: {
		if (jt == SL_JT_NULL)
			return true;
		if (jt != SL_JT_STRING)
			return false;
		v->s = unquote_to_arena(raw, a, &v->slen);
		v->set = v->s != NULL;
		return v->s != NULL;
	}
	case SL_RPC_UINT64: {
		if (raw_is(raw, "null"))
			return true;
		const uint8_t *p = raw.p;
		size_t n = raw.len;
		if (n >= 2 && p[0] == '"' && p[n - 1] == '"') {
			p++;
			n -= 2;
		}
		if (n == 0)
			return false;
		uint64_t x = 0;
		for (size_t i = 0; i < n; i++) {
			if (p[i] < '0' || p[i] > '9')
				return false;
			unsigned d = p[i] - '0';
			if (x > (UINT64_MAX - d) / 10)
				return false;
			x = x * 10 + d;
		}
		v->u = x;
		v->set = true;
		return true;
	}
	case SL_RPC_ID: {
		if (raw_is(raw, "null"))
			return true; /* the zero id */
		if (raw.len < 2 || raw.p[0] != '"' || raw.p[raw.len - 1] != '"')
			return false;
		const char *msg;
		char msgbuf[96];
		if (sl_cb58_decode_id((const char *)raw.p + 1, raw.len - 2, v->id, &msg, msgbuf))
			return false;
		v->set = true;
		return true;
	}
	case SL_RPC_ENCODING: {
		if (raw_is(raw, "null"))
			return true;
		for (int e = 0; e < 4; e++) {
			size_t n = strlen(enc_names[e]);
			if (raw.len == n + 2 && raw.p[0] == '"' && raw.p[n + 1] == '"' &&
			    !strncasecmp((const char *)raw.p + 1, enc_names[e], n)) {
				v->enc = e;
				v->set = true;
				return true;
			}
		}
		return false;
	}
	case SL_RPC_LEVEL: {
		if (jt == SL_JT_NULL)
			return true;
		if (jt != SL_JT_STRING)
			return false;
		size_t len = 0;
		const char *name = unquote_to_arena(raw, a, &len);
		sl_level lv;
		if (!name || !sl_level_parse(name, len, &lv))
			return false;
		v->enc = lv;
		v->set = true;
		return true;
	}
	case SL_RPC_STRINGS: {
		if (jt == SL_JT_NULL)
			return true;
		if (jt != SL_JT_ARRAY)
			return false;
		sl_jiter it;
		sl_span e;
		size_t n = 0;
		sl_json_iter_init(&it, raw);
		while (sl_json_arr_next(&it, &e))
			n++;
		v->strs = sl_arena_array(a, n ? n : 1, sizeof *v->strs);
		if (!v->strs)
			return false;
		sl_json_iter_init(&it, raw);
		for (size_t i = 0; sl_json_arr_next(&it, &e); i++) {
			sl_rpc_val ev = { 0 };
			if (!sl_rpc_arg_decode(SL_RPC_STRING, e, a, &ev))
				return false;
			v->strs[i] = ev.set ? ev.s : "";
		}
		v->nstrs = n;
		v->set = true;
		return true;
	}
	case SL_RPC_NODEIDS: {
		if (jt == SL_JT_NULL)
			return true;
		if (jt != SL_JT_ARRAY)
			return false;
		sl_jiter it;
		sl_span e;
		size_t n = 0;
		sl_json_iter_init(&it, raw);
		while (sl_json_arr_next(&it, &e))
			n++;
		v->nodes = sl_arena_array(a, n ? n : 1, sizeof *v->nodes);
		if (!v->nodes)
			return false;
		sl_json_iter_init(&it, raw);
		for (size_t i = 0; sl_json_arr_next(&it, &e); i++) {
			/* ids.NodeID's UnmarshalJSON: null leaves the zero id; else the raw bytes between
			 * the quotes, not unescaped */
			memset(v->nodes[i], 0, 20);
			if (raw_is(e, "null"))
				continue;
			if (e.len <= 2 + 7 || e.p[0] != '"' || e.p[e.len - 1] != '"' ||
			    sl_nodeid_parse((const char *)e.p + 1, e.len - 2, v->nodes[i]))
				return false;
		}
		v->nstrs = n;
		v->set = true;
		return true;
	}
	}
	return false;
}

static bool decode_object(const sl_rpc_method *m, sl_span obj, sl_arena *a, sl_rpc_val *vals)
{
	sl_jiter it;
	sl_span k, val;
	sl_json_iter_init(&it, obj);
	sl_buf key;
	sl_buf_init(&key, SL_JSON_UNQUOTE_MAX(obj.len));
	bool ok = true;
	while (ok && sl_json_obj_next(&it, &k, &val)) {
		sl_buf_reset(&key);
		sl_json_unquote(k, &key);
		for (size_t i = 0; i < m->nargs; i++)
			if (sl_json_key_match(sl_buf_str(&key), key.len, m->args[i].name)) {
				ok = sl_rpc_arg_decode(m->args[i].type, val, a, &vals[i]);
				break;
			}
	}
	sl_buf_release(&key);
	return ok;
}

/* Step 7: params absent or null → defaults; object → fields; [x, ...] → x. */
static bool decode_params(const sl_rpc_method *m, sl_span params, sl_arena *a, sl_rpc_val *vals)
{
	if (!params.p)
		return true;
	switch (sl_json_type(params)) {
	case SL_JT_OBJECT: return decode_object(m, params, a, vals);
	case SL_JT_ARRAY: {
		sl_jiter it;
		sl_span first;
		sl_json_iter_init(&it, params);
		if (!sl_json_arr_next(&it, &first))
			return true;
		sl_jtype t = sl_json_type(first);
		if (t == SL_JT_NULL)
			return true;
		return t == SL_JT_OBJECT && decode_object(m, first, a, vals);
	}
	default: return false;
	}
}

int sl_rpc_fail(sl_rpc_call *c, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	c->err = sl_arena_strndup(c->arena, msg, strlen(msg));
	if (!c->err)
		c->err = "out of memory";
	c->err_code = -32000;
	return -1;
}

int sl_rpc_fail_args(sl_rpc_call *c)
{
	c->err = bad_args_msg;
	c->err_code = -32000;
	return -1;
}

int sl_rpc_fail_err(sl_rpc_call *c, sl_err e, const char *detail)
{
	switch (e) {
	case SL_ERR_NOT_FOUND: return sl_rpc_fail(c, "not found");
	case SL_ERR_INVALID: return detail ? sl_rpc_fail(c, "%s", detail) : sl_rpc_fail_args(c);
	case SL_ERR_STORE:
		return sl_rpc_fail(c, "couldn't read from database: %s", detail ? detail : "store error");
	default:
		return detail ? sl_rpc_fail(c, "%s: %s", sl_err_name(e), detail)
			      : sl_rpc_fail(c, "%s", sl_err_name(e));
	}
}

/*
 * Steps 5 and 6: avalanchego upper-cases the first rune of the part after
 * the first '.', refusing names whose method already starts upper-case;
 * gorilla then needs exactly "service.Method".
 */
static const sl_rpc_method *dispatch(const sl_rpc_service *services, size_t n, const char *name, size_t len,
				     const sl_rpc_service **svc, sl_buf *errmsg)
{
	sl_buf xf;
	sl_buf_init(&xf, len + 8);
	sl_buf_add(&xf, name, len);
	const char *dot = memchr(name, '.', len);
	if (dot && (size_t)(dot - name) + 1 < len) {
		size_t at = (size_t)(dot - name) + 1;
		unsigned char c = (unsigned char)name[at];
		if (c < 0x80) {
			if (isupper(c)) {
				sl_buf_adds(errmsg, "method must start with a non-uppercase letter");
				goto fail;
			}
			xf.p[at] = (uint8_t)toupper(c);
		} else {
			/* Non-ASCII first rune: decode it and apply Unicode case rules. */
			wchar_t wc;
			mbstate_t st = { 0 };
			size_t k = mbrtowc(&wc, name + at, len - at, &st);
			if (k != (size_t)-1 && k != (size_t)-2 && k > 0) {
				if (iswupper((wint_t)wc)) {
					sl_buf_adds(errmsg, "method must start with a non-uppercase letter");
					goto fail;
				}
				char up[MB_LEN_MAX];
				mbstate_t st2 = { 0 };
				size_t m = wcrtomb(up, (wchar_t)towupper((wint_t)wc), &st2);
				if (m != (size_t)-1) {
					sl_buf tmp;
					sl_buf_init(&tmp, len + 8);
					sl_buf_add(&tmp, name, at);
					sl_buf_add(&tmp, up, m);
					sl_buf_add(&tmp, name + at + k, len - at - k);
					sl_buf_release(&xf);
					xf = tmp;
				}
			}
		}
	}
	const char *s = sl_buf_str(&xf);
	size_t slen = xf.len;
	const char *d1 = memchr(s, '.', slen);
	if (!d1 || memchr(d1 + 1, '.', slen - (size_t)(d1 - s) - 1)) {
		sl_buf_adds(errmsg, "rpc: service/method request ill-formed: ");
		sl_go_quote(errmsg, s, slen);
		goto fail;
	}
	size_t svclen = (size_t)(d1 - s);
	for (size_t i = 0; i < n; i++) {
		if (strlen(services[i].name) != svclen || memcmp(services[i].name, s, svclen))
			continue;
		for (size_t j = 0; j < services[i].nmethods; j++) {
			const sl_rpc_method *m = &services[i].methods[j];
			if (strlen(m->name) == slen - svclen - 1 &&
			    !memcmp(m->name, d1 + 1, slen - svclen - 1)) {
				*svc = &services[i];
				sl_buf_release(&xf);
				return m;
			}
		}
		sl_buf_adds(errmsg, "rpc: can't find method ");
		sl_go_quote(errmsg, s, slen);
		goto fail;
	}
	sl_buf_adds(errmsg, "rpc: can't find service ");
	sl_go_quote(errmsg, s, slen);
fail:
	sl_buf_release(&xf);
	return NULL;
}

void sl_rpc_serve(const sl_rpc_service *services, size_t n, sl_compat compat, const sl_http_req *req,
		  sl_http_resp *resp)
{
	/* Step 1: the method. */
	if (strcmp(req->method, "POST")) {
		char msg[128];
		snprintf(msg, sizeof msg, "rpc: POST method required, received %.64s", req->method);
		sl_http_resp_text(resp, 405, msg);
		return;
	}
	/* Step 2: the content type, up to the first ';', compared without case. */
	const char *ct = sl_http_req_header(req, "Content-Type");
	size_t ctlen = ct ? strcspn(ct, ";") : 0;
	if (ctlen != 16 || strncasecmp(ct, "application/json", 16)) {
		sl_buf msg;
		sl_buf_init(&msg, 4096);
		sl_buf_adds(&msg, "rpc: unrecognized Content-Type: ");
		if (ct)
			sl_buf_add(&msg, ct, SL_MIN(ctlen, 1024));
		sl_http_resp_text(resp, 415, sl_buf_str(&msg));
		sl_buf_release(&msg);
		return;
	}
	/* Step 3: one JSON value. */
	rpc_req r = { 0 };
	sl_buf_init(&r.jsonrpc, SL_JSON_UNQUOTE_MAX(req->body_len));
	sl_buf_init(&r.method, SL_JSON_UNQUOTE_MAX(req->body_len));
	char msg[128];
	const char *perr = decode_request(req, &r, msg);
	sl_buf errmsg;
	sl_buf_init(&errmsg, 4096);
	bool notify = r.id.p == NULL;
	if (perr) {
		write_error(resp, -32700, perr, &r, r.id);
		goto out;
	}
	/* Step 4: the version. */
	if (!sl_span_eq(sl_span_of(r.jsonrpc.p, r.jsonrpc.len), "2.0")) {
		write_error(resp, -32600, "jsonrpc must be 2.0", &r, r.id);
		goto out;
	}
	/* Steps 5 and 6: find the method. */
	const sl_rpc_service *svc = NULL;
	const sl_rpc_method *m = dispatch(services, n, sl_buf_str(&r.method), r.method.len, &svc, &errmsg);
	if (!m) {
		write_error(resp, -32000, sl_buf_str(&errmsg), NULL, r.id);
		goto out;
	}
	/* Step 7: the arguments. */
	sl_rpc_val vals[SL_RPC_MAX_ARGS] = { 0 };
	if (!decode_params(m, r.params, req->arena, vals)) {
		write_error(resp, -32000, bad_args_msg, NULL, r.id);
		goto out;
	}
	/* Step 8: call it; from here on responses say nosniff. */
	sl_http_resp_header(resp, "X-Content-Type-Options", "nosniff");
	sl_buf_reset(&resp->body);
	sl_buf_adds(&resp->body, "{\"jsonrpc\":\"2.0\",\"result\":");
	sl_jw w;
	sl_jw_init(&w, &resp->body);
	sl_rpc_call call = { .ctx = svc->ctx, .args = vals, .w = &w, .arena = req->arena, .compat = compat };
	if (m->fn(&call)) {
		write_error(resp, call.err_code ? call.err_code : -32000,
			    call.err ? call.err : "internal error", NULL, r.id);
		goto out;
	}
	resp->status = 200;
	resp->content_type = "application/json; charset=utf-8";
	sl_buf_adds(&resp->body, ",\"id\":");
	if (r.id.p)
		sl_json_compact(r.id, &resp->body);
	else
		sl_buf_adds(&resp->body, "null");
	sl_buf_adds(&resp->body, "}\n");
out:
	/* Notifications get an empty 200, whatever happened, except parse errors. */
	if (notify && !perr) {
		resp->status = 200;
		sl_buf_reset(&resp->body);
	}
	sl_buf_release(&errmsg);
	sl_buf_release(&r.jsonrpc);
	sl_buf_release(&r.method);
}
