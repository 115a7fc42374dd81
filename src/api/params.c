/*
 * params.c — the one validation layer: the query string (and the POST utxos
 * body) against a route's parameter table. Every failure is a 400 whose
 * message names the parameter and says what it accepts.
 *
 * Query strings are read as Go's url.ParseQuery reads them ('+' is a space,
 * %XX is a byte); a parameter the route does not take is an error (a typo
 * would otherwise change nothing, silently); a list parameter (txTypes) may
 * repeat, any other may not.
 */
#include "api/internal.h"

#include <errno.h>
#include <strings.h>

#include "crypto/addr.h"
#include "crypto/cb58.h"
#include "crypto/hash.h"
#include "util/hex.h"
#include "util/jsonv.h"

const char *const api_tx_type_names[] = {
	"AddValidatorTx",
	"AddSubnetValidatorTx",
	"AddDelegatorTx",
	"CreateChainTx",
	"CreateSubnetTx",
	"ImportTx",
	"ExportTx",
	"AdvanceTimeTx",
	"RewardValidatorTx",
	"RemoveSubnetValidatorTx",
	"TransformSubnetTx",
	"AddPermissionlessValidatorTx",
	"AddPermissionlessDelegatorTx",
	"BaseTx",
	"TransferSubnetOwnershipTx",
	"ConvertSubnetToL1Tx",
	"RegisterL1ValidatorTx",
	"SetL1ValidatorWeightTx",
	"DisableL1ValidatorTx",
	"IncreaseL1ValidatorBalanceTx",
	"UNKNOWN",
	"CreateAssetTx",
	"OperationTx",
	NULL,
};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Percent-decode s[0..n) into arena memory (NUL-terminated); NULL on a bad escape or no memory. */
static char *unescape(sl_arena *a, const char *s, size_t n, size_t *len)
{
	char *out = sl_arena_alloc(a, n + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '+') {
			c = ' ';
		} else if (c == '%') {
			if (n - i < 3)
				return NULL;
			int hi = hexval((unsigned char)s[i + 1]), lo = hexval((unsigned char)s[i + 2]);
			if (hi < 0 || lo < 0)
				return NULL;
			c = (char)(hi << 4 | lo);
			i += 2;
		}
		out[o++] = c;
	}
	out[o] = 0;
	*len = o;
	return out;
}

/* The parameter called `name` (exactly), or NULL; *near gets one that differs only in case. */
static int find_param(const api_route *rt, const char *name, const char **near)
{
	*near = NULL;
	for (size_t i = 0; i < rt->nparams; i++) {
		if (!strcmp(rt->params[i].name, name))
			return (int)i;
		if (!strcasecmp(rt->params[i].name, name))
			*near = rt->params[i].name;
	}
	return -1;
}

/* A list of enum values "a, b, c" for messages. */
static void values_text(const char *const *values, char *out, size_t cap)
{
	size_t len = 0;
	out[0] = 0;
	for (size_t i = 0; values[i] && len < cap; i++)
		len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? ", " : "", values[i]);
}

bool api_parse_address(const api_net *net, const char *s, size_t n, bool evm_ok, api_addr *out, char why[128])
{
	*out = (api_addr){ 0 };
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		size_t len = 0;
		if (!evm_ok) {
			snprintf(why, 128,
				 "is an EVM address; this endpoint takes P-chain and X-chain addresses");
			return false;
		}
		if (n != 42 || sl_hex_decode(s + 2, 40, out->bytes, 20, &len) || len != 20) {
			snprintf(why, 128, "is not an EVM address (0x and 40 hex digits)");
			return false;
		}
		out->evm = true;
		return true;
	}
	if (n >= 2 && s[1] == '-') {
		if (s[0] != 'P' && s[0] != 'X' && s[0] != 'C') {
			snprintf(why, 128, "has the chain prefix '%c-'; only P-, X- and C- are chains here",
				 s[0]);
			return false;
		}
		s += 2, n -= 2;
	}
	char hrp[SL_HRP_MAX_LEN + 1];
	size_t len = 0;
	if (sl_bech32_decode(s, n, hrp, out->bytes, 20, &len) || len != 20) {
		snprintf(why, 128, "is not a bech32 address (bad characters, length or checksum)");
		return false;
	}
	if (strcmp(hrp, net->hrp)) {
		snprintf(why, 128, "is an address of '%s', not of %s (%s1…)", hrp, net->name, net->hrp);
		return false;
	}
	return true;
}

bool api_parse_evm_address(const char *s, size_t n, uint8_t out[20])
{
	size_t len = 0;
	return n == 42 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
	       !sl_hex_decode(s + 2, 40, out, 20, &len) && len == 20;
}

bool api_parse_evm_chain(const char *s, size_t n, int64_t *evm, uint8_t id[32], const char **msg)
{
	*evm = -1;
	memset(id, 0, 32);
	if (n > 19 && strspn(s, "0123456789") == n) {
		*msg = "an EVM chain id is at most 9223372036854775807";
		return false;
	}
	if (n && strspn(s, "0123456789") == n) {
		/* a decimal EVM chain id: 1 to 2^63 - 1, no leading zero */
		char *end;
		errno = 0;
		long long x = strtoll(s, &end, 10);
		if (errno || x <= 0 || s[0] == '0') {
			*msg = "an EVM chain id is a whole number from 1, without leading zeros";
			return false;
		}
		*evm = x;
		return true;
	}
	if (n == 66 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		size_t len = 0;
		if (sl_hex_decode(s + 2, 64, id, 32, &len) || len != 32) {
			*msg = "not 64 hex digits";
			return false;
		}
		return true;
	}
	char mb[96];
	if (sl_cb58_decode_id(s, n, id, msg, mb)) {
		*msg = n > 19 ? "not a cb58 id of 32 bytes" : "not a number";
		return false;
	}
	return true;
}

static bool parse_addresses(api_req *r, const api_param *p, api_val *v, const char *s, size_t n)
{
	size_t cap = (size_t)(p->max ? p->max : API_MAX_ADDRESSES_GET);
	v->addrs = sl_arena_array(r->arena, cap, sizeof *v->addrs);
	if (!v->addrs) {
		api_fail(r, 500, "out of memory");
		return false;
	}
	v->naddrs = 0;
	size_t i = 0;
	while (i <= n) {
		size_t j = i;
		while (j < n && s[j] != ',')
			j++;
		size_t a = i, b = j;
		while (a < b && s[a] == ' ')
			a++;
		while (b > a && s[b - 1] == ' ')
			b--;
		if (a == b) {
			api_fail(r, 400, "%s: an empty address in the list (addresses are comma-separated)",
				 p->name);
			return false;
		}
		api_addr addr;
		char why[128];
		if (!api_parse_address(&r->api->net, s + a, b - a, p->flags & AP_EVM, &addr, why)) {
			api_fail(r, 400, "%s: '%.*s' %s", p->name, (int)SL_MIN(b - a, 120u), s + a, why);
			return false;
		}
		bool dup = false;
		for (size_t k = 0; k < v->naddrs; k++)
			dup |= v->addrs[k].evm == addr.evm && !memcmp(v->addrs[k].bytes, addr.bytes, 20);
		if (!dup) {
			if (v->naddrs == cap) {
				api_fail(r, 400, "%s: at most %zu addresses%s", p->name, cap,
					 r->route->body_addresses ? "" : " (POST …/utxos takes more)");
				return false;
			}
			v->addrs[v->naddrs++] = addr;
		}
		i = j + 1;
	}
	return true;
}

/* "NodeID-<cb58 of 20 bytes>" into out; false with *msg saying why not. */
static bool parse_node_id(const char *s, size_t n, uint8_t out[20], const char **msg, char mb[96])
{
	uint8_t raw[20];
	size_t len = 0;
	*msg = "missing the NodeID- prefix";
	if (n > 7 && !strncmp(s, "NodeID-", 7) &&
	    !sl_cb58_decode(s + 7, n - 7, raw, sizeof raw, &len, msg, mb) && len == 20) {
		memcpy(out, raw, 20);
		return true;
	}
	if (len && len != 20)
		*msg = "not 20 bytes";
	return false;
}

/* Comma-separated node ids, or parts of them; with AP_FULL_IDS whole ones, decoded, a repeat counted once. */
static bool parse_node_ids(api_req *r, const api_param *p, api_val *v, const char *s, size_t n)
{
	size_t cap = (size_t)(p->max ? p->max : API_MAX_NODE_IDS);
	bool full = p->flags & AP_FULL_IDS;
	v->strs = sl_arena_array(r->arena, cap, sizeof *v->strs);
	v->nodes = full ? sl_arena_array(r->arena, cap, sizeof *v->nodes) : NULL;
	if (!v->strs || (full && !v->nodes)) {
		api_fail(r, 500, "out of memory");
		return false;
	}
	v->nstrs = 0;
	for (size_t i = 0; i <= n;) {
		size_t j = i;
		while (j < n && s[j] != ',')
			j++;
		if (j == i) {
			api_fail(r, 400, "%s: an empty node id in the list (node ids are comma-separated)",
				 p->name);
			return false;
		}
		uint8_t node[20];
		const char *msg;
		char mb[96];
		if (full && !parse_node_id(s + i, j - i, node, &msg, mb)) {
			api_fail(r, 400, "%s: '%.*s' is not a node id (NodeID-…): %s", p->name,
				 (int)SL_MIN(j - i, 60u), s + i, msg);
			return false;
		}
		bool dup = false;
		for (size_t k = 0; full && k < v->nstrs; k++)
			dup |= !memcmp(v->nodes[k], node, 20);
		if (!dup) {
			if (v->nstrs == cap) {
				api_fail(r, 400, "%s: at most %zu node ids", p->name, cap);
				return false;
			}
			if (full)
				memcpy(v->nodes[v->nstrs], node, 20);
			if (!(v->strs[v->nstrs++] = sl_arena_strndup(r->arena, s + i, j - i))) {
				api_fail(r, 500, "out of memory");
				return false;
			}
		}
		i = j + 1;
	}
	return true;
}

/* One parameter's value (already percent-decoded, NUL-terminated) into v. */
static bool parse_value(api_req *r, const api_param *p, api_val *v, const char *s, size_t n)
{
	char list[512];
	switch (p->kind) {
	case AP_INT: {
		char *end;
		errno = 0;
		long long x = n && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) ? strtoll(s, &end, 10) : 0;
		if (!n || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) || *end || errno || x < p->min ||
		    x > p->max) {
			api_fail(r, 400, "%s must be an integer from %lld to %lld, not '%.40s'", p->name,
				 (long long)p->min, (long long)p->max, s);
			return false;
		}
		v->i = x;
		return true;
	}
	case AP_AMOUNT: {
		char *end;
		errno = 0;
		unsigned long long x = n && s[0] >= '0' && s[0] <= '9' ? strtoull(s, &end, 10) : 0;
		if (!n || s[0] < '0' || s[0] > '9' || *end || errno || x > p->umax) {
			api_fail(r, 400, "%s must be a whole number from %lld to %llu, not '%.40s'", p->name,
				 (long long)p->min, (unsigned long long)p->umax, s);
			return false;
		}
		v->u = x;
		return true;
	}
	case AP_NUMBER: {
		/* digits, optionally a point and digits (at least one digit in all); no sign, no exponent:
		 * in millionths, digits past the sixth decimal dropped */
		size_t k = 0;
		int64_t whole = 0, frac = 0;
		bool digits = false, big = false;
		for (; k < n && s[k] >= '0' && s[k] <= '9'; k++, digits = true) {
			big |= whole > INT64_MAX / 100;
			if (!big)
				whole = whole * 10 + (s[k] - '0');
		}
		if (k < n && s[k] == '.') {
			int64_t scale = 100000;
			for (k++; k < n && s[k] >= '0' && s[k] <= '9'; k++, digits = true, scale /= 10)
				frac += (s[k] - '0') * scale;
		}
		if (!digits || k != n || big || whole > p->max || whole * 1000000 + frac < p->min * 1000000 ||
		    whole * 1000000 + frac > p->max * 1000000) {
			api_fail(r, 400, "%s must be a number from %lld to %lld, not '%.40s'", p->name,
				 (long long)p->min, (long long)p->max, s);
			return false;
		}
		v->i = whole * 1000000 + frac;
		return true;
	}
	case AP_BOOL:
		if (!strcmp(s, "true") || !strcmp(s, "false")) {
			v->i = s[0] == 't';
			return true;
		}
		api_fail(r, 400, "%s must be true or false, not '%.40s'", p->name, s);
		return false;
	case AP_ENUM:
		for (int64_t i = 0; p->values[i]; i++)
			if (!strcmp(s, p->values[i])) {
				v->i = i;
				return true;
			}
		values_text(p->values, list, sizeof list);
		api_fail(r, 400, "%s must be one of %s, not '%.40s'", p->name, list, s);
		return false;
	case AP_STRING:
	case AP_PAGE_TOKEN:
		if ((int64_t)n > (p->kind == AP_PAGE_TOKEN ? API_MAX_TOKEN : p->max)) {
			api_fail(r, 400, "%s is too long (at most %lld characters)", p->name,
				 (long long)(p->kind == AP_PAGE_TOKEN ? API_MAX_TOKEN : p->max));
			return false;
		}
		v->s = s;
		v->slen = n;
		return true;
	case AP_ADDRESSES: return parse_addresses(r, p, v, s, n);
	case AP_TX_TYPES:
		for (size_t i = 0; i <= n;) {
			size_t j = i;
			while (j < n && s[j] != ',')
				j++;
			bool found = false;
			for (int k = 0; api_tx_type_names[k]; k++)
				if (j - i == strlen(api_tx_type_names[k]) &&
				    !memcmp(s + i, api_tx_type_names[k], j - i)) {
					v->tx_types |= 1ull << k;
					found = true;
				}
			if (!found) {
				values_text(api_tx_type_names, list, sizeof list);
				api_fail(r, 400, "%s: '%.*s' is not a transaction type; the types are %s",
					 p->name, (int)SL_MIN(j - i, 60u), s + i, list);
				return false;
			}
			i = j + 1;
		}
		return true;
	case AP_ID: {
		const char *msg;
		char mb[96];
		if (sl_cb58_decode_id(s, n, v->id, &msg, mb)) {
			api_fail(r, 400, "%s is not an id (cb58 of 32 bytes): %s", p->name, msg);
			return false;
		}
		return true;
	}
	case AP_NODE_ID: {
		const char *msg;
		char mb[96];
		if (parse_node_id(s, n, v->node, &msg, mb))
			return true;
		api_fail(r, 400, "%s must be a node id (NodeID-…): %s", p->name, msg);
		return false;
	}
	case AP_NODE_IDS: return parse_node_ids(r, p, v, s, n);
	case AP_EVM_CHAIN: {
		const char *msg = NULL;
		if (!api_parse_evm_chain(s, n, &v->i, v->id, &msg)) {
			api_fail(
				r, 400,
				"%s must be an EVM chain id (a decimal number) or a blockchain id (cb58, or 0x and "
				"64 hex digits), not '%.80s': %s",
				p->name, s, msg);
			return false;
		}
		return true;
	}
	case AP_EVM_ADDRESS:
		if (!api_parse_evm_address(s, n, v->evm)) {
			api_fail(r, 400, "%s must be an EVM address (0x and 40 hex digits), not '%.80s'",
				 p->name, s);
			return false;
		}
		return true;
	}
	return false;
}

/* {"addresses": "a,b,…"}: the POST utxos body. */
static bool parse_body(api_req *r, size_t *raw_at)
{
	const sl_http_req *h = r->http;
	size_t a, b;
	char msg[128];
	if (sl_json_scan((const char *)h->body, h->body_len, &a, &b, msg)) {
		api_fail(r, 400, "the body must be JSON, {\"addresses\": \"…\"}: %s", msg);
		return false;
	}
	for (size_t i = b; i < h->body_len; i++) {
		uint8_t c = h->body[i];
		if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
			api_fail(r, 400,
				 "the body must be one JSON object, {\"addresses\": \"…\"}, "
				 "and nothing after it");
			return false;
		}
	}
	sl_span root = { h->body + a, b - a }, k, v, addrs = { 0 };
	if (sl_json_type(root) != SL_JT_OBJECT) {
		api_fail(r, 400, "the body must be a JSON object, {\"addresses\": \"…\"}");
		return false;
	}
	sl_jiter it;
	sl_json_iter_init(&it, root);
	while (sl_json_obj_next(&it, &k, &v)) {
		if (!sl_span_eq(k, "\"addresses\"")) {
			api_fail(r, 400, "the body has an unknown property %.*s; it takes only addresses",
				 (int)SL_MIN(k.len, 60u), (const char *)k.p);
			return false;
		}
		addrs = v;
	}
	if (!addrs.len) {
		api_fail(r, 400, "addresses is required (in the body: {\"addresses\": \"a,b,…\"})");
		return false;
	}
	if (sl_json_type(addrs) != SL_JT_STRING) {
		api_fail(r, 400, "addresses must be a string of comma-separated addresses");
		return false;
	}
	*raw_at = (size_t)(addrs.p - h->body);
	return true;
}

/* The identity of a list: which route, network, chain and parameters (but the page ones). */
static void list_identity(api_req *r, const char *const *raw, const size_t *rawlen)
{
	sl_buf b;
	sl_buf_init(&b, 1u << 20);
	sl_buf_addf(&b, "%s %s|%s|%d", r->route->method, r->route->path, r->api->net.name, r->chain);
	for (size_t i = 0; i < r->route->nparams; i++) {
		const api_param *p = &r->route->params[i];
		if (p->kind == AP_PAGE_TOKEN || !strcmp(p->name, "pageSize") || !raw[i])
			continue;
		sl_buf_addf(&b, "|%s=", p->name);
		sl_buf_add(&b, raw[i], rawlen[i]);
	}
	if (r->assetId)
		sl_buf_addf(&b, "|asset=%s", r->assetId);
	if (r->nodeId)
		sl_buf_addf(&b, "|node=%s", r->nodeId);
	uint8_t h[32];
	sl_sha256(b.p ? b.p : (const uint8_t *)"", b.len, h);
	memcpy(r->list_id, h, sizeof r->list_id);
	sl_buf_release(&b);
}

bool api_params_parse(api_req *r)
{
	const api_route *rt = r->route;
	size_t np = rt->nparams;
	r->v = sl_arena_zalloc(r->arena, (np ? np : 1) * sizeof *r->v);
	const char **raw = sl_arena_zalloc(r->arena, (np ? np : 1) * sizeof *raw);
	size_t *rawlen = sl_arena_zalloc(r->arena, (np ? np : 1) * sizeof *rawlen);
	if (!r->v || !raw || !rawlen) {
		api_fail(r, 500, "out of memory");
		return false;
	}
	/* path variables that are parameters */
	for (size_t i = 0; i < np; i++) {
		const char *nm = rt->params[i].name;
		const char *pv = !strcmp(nm, "assetId")	  ? r->assetId
				 : !strcmp(nm, "nodeId")  ? r->nodeId
				 : !strcmp(nm, "chainId") ? r->chainId
				 : !strcmp(nm, "address") ? r->address
							  : NULL;
		if (pv) {
			raw[i] = pv;
			rawlen[i] = strlen(pv);
		}
	}
	/* the query */
	const char *q = r->http->query ? r->http->query : "";
	size_t count = 0;
	while (*q) {
		const char *amp = strchr(q, '&');
		size_t len = amp ? (size_t)(amp - q) : strlen(q);
		if (len) {
			if (++count > API_MAX_QUERY_PARAMS) {
				api_fail(r, 400, "too many query parameters (at most %d)",
					 API_MAX_QUERY_PARAMS);
				return false;
			}
			const char *eq = memchr(q, '=', len);
			size_t kl = eq ? (size_t)(eq - q) : len, kn, vn = 0;
			char *key = unescape(r->arena, q, kl, &kn);
			char *val = eq ? unescape(r->arena, eq + 1, len - kl - 1, &vn) : (char *)"";
			if (!key || !val) {
				api_fail(r, 400, "the query string has a bad %%-escape in '%.*s'",
					 (int)SL_MIN(len, 60u), q);
				return false;
			}
			const char *near;
			int i = find_param(rt, key, &near);
			/* assetId and nodeId come from the path on routes that have them there (utxos takes
			 * assetId in the query) */
			bool path_param = i >= 0 && ((!strcmp(key, "assetId") && r->assetId) ||
						     (!strcmp(key, "nodeId") && r->nodeId) ||
						     (!strcmp(key, "chainId") && r->chainId) ||
						     (!strcmp(key, "address") && r->address));
			if (i < 0 || path_param || (rt->body_addresses && !strcmp(key, "addresses"))) {
				if (near)
					api_fail(r, 400, "unknown query parameter '%.60s' (did you mean %s?)",
						 key, near);
				else
					api_fail(r, 400, "unknown query parameter '%.60s'", key);
				return false;
			}
			if (raw[i] && rt->params[i].kind != AP_TX_TYPES) {
				api_fail(r, 400, "%s is given more than once", rt->params[i].name);
				return false;
			}
			if (raw[i]) { /* a repeated list: join with ',' */
				char *j = sl_arena_alloc(r->arena, rawlen[i] + vn + 2);
				if (!j) {
					api_fail(r, 500, "out of memory");
					return false;
				}
				snprintf(j, rawlen[i] + vn + 2, "%s,%s", raw[i], val);
				raw[i] = j;
				rawlen[i] += vn + 1;
			} else {
				raw[i] = val;
				rawlen[i] = vn;
			}
		}
		q = amp ? amp + 1 : q + len;
	}
	/* the body of POST utxos: its addresses */
	if (rt->body_addresses) {
		size_t at;
		if (!parse_body(r, &at))
			return false;
		sl_buf text;
		sl_buf_init(&text, SL_JSON_UNQUOTE_MAX(r->http->body_len));
		size_t a, b;
		char msg[128];
		if (sl_json_scan((const char *)r->http->body + at, r->http->body_len - at, &a, &b, msg)) {
			sl_buf_release(&text);
			api_fail(r, 400, "addresses must be a string");
			return false;
		}
		sl_json_unquote((sl_span){ r->http->body + at + a, b - a }, &text);
		for (size_t i = 0; i < np; i++)
			if (!strcmp(rt->params[i].name, "addresses")) {
				raw[i] = sl_arena_strndup(r->arena, sl_buf_str(&text), text.len);
				rawlen[i] = text.len;
			}
		sl_buf_release(&text);
	}
	for (size_t i = 0; i < np; i++) {
		const api_param *p = &rt->params[i];
		api_val *v = &r->v[i];
		if (!raw[i]) {
			if (p->required) {
				api_fail(r, 400, "%s is required", p->name);
				return false;
			}
			v->i = p->def;
			continue;
		}
		v->set = true;
		if (!parse_value(r, p, v, raw[i], rawlen[i]))
			return false;
	}
	list_identity(r, raw, rawlen);
	return true;
}
