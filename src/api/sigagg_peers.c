/*
 * sigagg_peers.c — info.peers into a table of validators' addresses
 * (sigagg_peers.h).
 */
#include "api/sigagg_peers.h"

#include <arpa/inet.h>
#include <stdlib.h>

#include "crypto/addr.h"
#include "util/jsonv.h"

bool sl_sigagg_addr_parse(const char *s, size_t n, char host[64], uint16_t *port)
{
	const char *colon = NULL, *h = s;
	size_t hl;
	if (n && s[0] == '[') {
		const char *close = memchr(s, ']', n);
		if (!close || (size_t)(close - s) + 1 >= n || close[1] != ':')
			return false;
		h = s + 1;
		hl = (size_t)(close - s) - 1;
		colon = close + 1;
	} else {
		for (size_t i = 0; i < n; i++)
			if (s[i] == ':')
				colon = s + i;
		if (!colon)
			return false;
		hl = (size_t)(colon - s);
	}
	if (!hl || hl >= 64)
		return false;
	memcpy(host, h, hl);
	host[hl] = 0;
	uint8_t tmp[16];
	if (inet_pton(s[0] == '[' ? AF_INET6 : AF_INET, host, tmp) != 1)
		return false;
	size_t pl = n - (size_t)(colon + 1 - s);
	if (!pl || pl > 5)
		return false;
	unsigned v = 0;
	for (size_t i = 0; i < pl; i++) {
		char c = colon[1 + i];
		if (c < '0' || c > '9')
			return false;
		v = v * 10 + (unsigned)(c - '0');
	}
	if (!v || v > 65535)
		return false;
	*port = (uint16_t)v;
	return true;
}

static int peer_cmp(const void *a, const void *b)
{
	const sl_sigagg_peer *x = a, *y = b;
	return memcmp(x->node, y->node, 20);
}

const sl_sigagg_peer *sl_sigagg_peers_find(const sl_sigagg_peer *t, size_t n, const uint8_t node[20])
{
	sl_sigagg_peer key;
	memcpy(key.node, node, 20);
	return n ? bsearch(&key, t, n, sizeof *t, peer_cmp) : NULL;
}

/* A string value's bytes (no escapes expected in these fields: one with escapes is not used). */
static bool plain_str(sl_span v, const char **s, size_t *n)
{
	if (sl_json_type(v) != SL_JT_STRING || v.len < 2 || memchr(v.p, '\\', v.len))
		return false;
	*s = (const char *)v.p + 1;
	*n = v.len - 2;
	return true;
}

static sl_span member(sl_span obj, const char *name)
{
	sl_jiter it;
	sl_span k, v;
	size_t nl = strlen(name);
	sl_json_iter_init(&it, obj);
	while (sl_json_obj_next(&it, &k, &v))
		if (k.len == nl + 2 && !memcmp(k.p + 1, name, nl))
			return v;
	return (sl_span){ 0 };
}

sl_err sl_sigagg_peers_parse(const uint8_t *p, size_t n, sl_sigagg_peer **out, size_t *nout, char why[256])
{
	*out = NULL;
	*nout = 0;
	size_t a, b;
	char msg[128];
	if (sl_json_scan((const char *)p, n, &a, &b, msg)) {
		snprintf(why, 256, "info.peers answered with something other than JSON: %s", msg);
		return SL_ERR_INVALID;
	}
	sl_span root = { p + a, b - a };
	sl_span res = sl_json_type(root) == SL_JT_OBJECT ? member(root, "result") : (sl_span){ 0 };
	sl_span peers = res.len && sl_json_type(res) == SL_JT_OBJECT ? member(res, "peers") : (sl_span){ 0 };
	if (!peers.len || (sl_json_type(peers) != SL_JT_ARRAY && sl_json_type(peers) != SL_JT_NULL)) {
		sl_span err = sl_json_type(root) == SL_JT_OBJECT ? member(root, "error") : (sl_span){ 0 };
		snprintf(why, 256, "info.peers answered without result.peers%s%.*s", err.len ? ": " : "",
			 (int)SL_MIN(err.len, 160u), (const char *)err.p);
		return SL_ERR_INVALID;
	}
	if (sl_json_type(peers) == SL_JT_NULL) /* avalanchego writes null for no peers */
		return SL_OK;
	size_t cap = 0;
	sl_jiter it;
	sl_span v;
	sl_json_iter_init(&it, peers);
	while (sl_json_arr_next(&it, &v))
		cap++;
	if (cap > SL_SIGAGG_PEERS_MAX) {
		snprintf(why, 256, "info.peers lists %zu peers, more than %u", cap, SL_SIGAGG_PEERS_MAX);
		return SL_ERR_TOO_LARGE;
	}
	sl_sigagg_peer *t = calloc(cap ? cap : 1, sizeof *t);
	if (!t)
		return SL_ERR_NOMEM;
	size_t k = 0;
	sl_json_iter_init(&it, peers);
	while (sl_json_arr_next(&it, &v)) {
		if (sl_json_type(v) != SL_JT_OBJECT)
			continue;
		const char *s;
		size_t sn;
		sl_sigagg_peer *e = &t[k];
		if (!plain_str(member(v, "nodeID"), &s, &sn) || sl_nodeid_parse(s, sn, e->node))
			continue;
		bool ok = plain_str(member(v, "publicIP"), &s, &sn) &&
			  sl_sigagg_addr_parse(s, sn, e->host, &e->port);
		if (!ok)
			ok = plain_str(member(v, "ip"), &s, &sn) &&
			     sl_sigagg_addr_parse(s, sn, e->host, &e->port);
		if (ok)
			k++;
	}
	qsort(t, k, sizeof *t, peer_cmp);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || memcmp(t[u - 1].node, t[i].node, 20))
			t[u++] = t[i];
	*out = t;
	*nout = u;
	return SL_OK;
}

/* result of a JSON-RPC answer, or an empty span */
static sl_span result_of(const uint8_t *p, size_t n)
{
	size_t a, b;
	char msg[128];
	if (!p || sl_json_scan((const char *)p, n, &a, &b, msg))
		return (sl_span){ 0 };
	sl_span root = { p + a, b - a };
	sl_span res = sl_json_type(root) == SL_JT_OBJECT ? member(root, "result") : (sl_span){ 0 };
	return res.len && sl_json_type(res) == SL_JT_OBJECT ? res : (sl_span){ 0 };
}

bool sl_sigagg_self_parse(const uint8_t *id, size_t idn, const uint8_t *ip, size_t ipn, sl_sigagg_peer *out)
{
	sl_span ri = result_of(id, idn), rp = result_of(ip, ipn);
	const char *s;
	size_t sn;
	memset(out, 0, sizeof *out);
	if (!ri.len || !rp.len || !plain_str(member(ri, "nodeID"), &s, &sn) ||
	    sl_nodeid_parse(s, sn, out->node))
		return false;
	if (!plain_str(member(rp, "ip"), &s, &sn) || !sl_sigagg_addr_parse(s, sn, out->host, &out->port))
		return false;
	uint8_t a[16], zero[16] = { 0 };
	bool v6 = strchr(out->host, ':') != NULL;
	if (inet_pton(v6 ? AF_INET6 : AF_INET, out->host, a) != 1 || !memcmp(a, zero, v6 ? 16 : 4))
		return false; /* unspecified: nowhere to connect to */
	return true;
}

sl_err sl_sigagg_peers_add(sl_sigagg_peer **t, size_t *n, const sl_sigagg_peer *p)
{
	if (sl_sigagg_peers_find(*t, *n, p->node))
		return SL_OK;
	sl_sigagg_peer *g = realloc(*t, (*n + 1) * sizeof *g);
	if (!g)
		return SL_ERR_NOMEM;
	size_t i = *n;
	while (i > 0 && memcmp(g[i - 1].node, p->node, 20) > 0) {
		g[i] = g[i - 1];
		i--;
	}
	g[i] = *p;
	*t = g;
	(*n)++;
	return SL_OK;
}
