/*
 * api_check.h — the properties every parse of the Data API's parameters
 * keeps, for fuzz_api_query.c and fuzz_api_body.c.
 *
 *  - a parse that fails has failed the request once, with a 400 (a 500 only
 *    when the request's arena ran out) and an ErrorBody
 *    {"message":…,"statusCode":<status>,"error":…} that is valid JSON
 *  - a parse that succeeds holds every required parameter, and each value
 *    keeps its rule: integers in [min, max] (the default when absent),
 *    numbers in [min, max] (in millionths),
 *    booleans 0/1, an enum's index, 1 to max addresses none twice and EVM
 *    ones only where the route takes them, a non-empty set of known tx
 *    types, a page token of at most API_MAX_TOKEN characters, a node id's 20
 *    bytes, 1 to max node ids (whole ones, AP_FULL_IDS: none twice, each the
 *    text of the bytes kept), an EVM chain id from 1 (or -1: a blockchain
 *    id); and the list identity it computed is a pure
 *    function of the request (parsing it again gives the same)
 */
#ifndef SL_FUZZ_API_CHECK_H
#define SL_FUZZ_API_CHECK_H

#include <stdio.h>

#include "api_fixture.h"
#include "util/jsonv.h"

static _Noreturn void api_check_fail(const api_fixture *f, const char *why)
{
	fprintf(stderr, "fuzz_api: %s (route %s %s, query '%.200s', body %zu bytes, response %.300s)\n", why,
		f->r.route->method, f->r.route->name, f->http.query, f->http.body_len,
		sl_buf_str(&f->resp.body));
	abort();
}

static inline void api_check_parse(api_fixture *f, bool ok)
{
	const api_route *rt = f->r.route;
	if (!ok) {
		if (!f->r.failed)
			api_check_fail(f, "a failed parse that did not fail the request");
		if (f->r.status != 400 &&
		    !(f->r.status == 500 && strstr(sl_buf_str(&f->resp.body), "memory")))
			api_check_fail(f, "a failed parse that is not a 400");
		size_t a, b;
		char msg[128];
		const char *body = sl_buf_str(&f->resp.body);
		if (sl_json_scan(body, f->resp.body.len, &a, &b, msg) || b != f->resp.body.len ||
		    strncmp(body, "{\"message\":\"", 12) || !strstr(body, "\"statusCode\":") ||
		    !strstr(body, "\"error\":\""))
			api_check_fail(f, "an error that is not an ErrorBody");
		return;
	}
	if (f->r.failed)
		api_check_fail(f, "a successful parse that failed the request");
	for (size_t i = 0; i < rt->nparams; i++) {
		const api_param *p = &rt->params[i];
		const api_val *v = &f->r.v[i];
		if (!v->set) {
			if (p->required)
				api_check_fail(f, "a required parameter missing");
			if (p->kind == AP_INT && v->i != p->def)
				api_check_fail(f, "an absent integer without its default");
			continue;
		}
		switch (p->kind) {
		case AP_INT:
			if (v->i < p->min || v->i > p->max)
				api_check_fail(f, "an integer out of its range");
			break;
		case AP_BOOL:
			if (v->i != 0 && v->i != 1)
				api_check_fail(f, "a boolean neither 0 nor 1");
			break;
		case AP_ENUM: {
			int64_t n = 0;
			while (p->values[n])
				n++;
			if (v->i < 0 || v->i >= n)
				api_check_fail(f, "an enum index out of its values");
			break;
		}
		case AP_ADDRESSES:
			if (!v->naddrs || (int64_t)v->naddrs > p->max)
				api_check_fail(f, "a number of addresses out of its range");
			for (size_t k = 0; k < v->naddrs; k++) {
				if (v->addrs[k].evm && !(p->flags & AP_EVM))
					api_check_fail(f, "an EVM address where the route takes none");
				for (size_t j = 0; j < k; j++)
					if (v->addrs[j].evm == v->addrs[k].evm &&
					    !memcmp(v->addrs[j].bytes, v->addrs[k].bytes, 20))
						api_check_fail(f, "an address twice");
			}
			break;
		case AP_TX_TYPES: {
			int n = 0;
			while (api_tx_type_names[n])
				n++;
			if (!v->tx_types || (n < 64 && (v->tx_types >> n)))
				api_check_fail(f, "an empty or unknown set of tx types");
			break;
		}
		case AP_PAGE_TOKEN:
			if (v->slen > API_MAX_TOKEN || !v->s)
				api_check_fail(f, "a page token too long");
			break;
		case AP_STRING:
			if ((int64_t)v->slen > p->max)
				api_check_fail(f, "a string too long");
			break;
		case AP_AMOUNT:
			if (v->u > p->umax)
				api_check_fail(f, "an amount past its maximum");
			break;
		case AP_NUMBER:
			if (v->i < p->min * 1000000 || v->i > p->max * 1000000)
				api_check_fail(f, "a number out of its range");
			break;
		case AP_NODE_IDS:
			if (!v->nstrs || (p->max && (int64_t)v->nstrs > p->max))
				api_check_fail(f, "a number of node ids out of its range");
			for (size_t k = 0; k < v->nstrs; k++) {
				if (!v->strs[k] || !v->strs[k][0] || strchr(v->strs[k], ','))
					api_check_fail(f, "a node id empty or holding a comma");
				if (!(p->flags & AP_FULL_IDS))
					continue;
				/* a whole node id: its text is NodeID- and the cb58 of the 20 bytes kept */
				char text[64] = "NodeID-";
				sl_buf b = { .p = (uint8_t *)text + 7,
					     .cap = sizeof text - 7,
					     .max = sizeof text - 8 };
				sl_cb58_write(&b, v->nodes[k], 20);
				text[7 + SL_MIN(b.len, sizeof text - 8)] = 0;
				if (b.err || strcmp(text, v->strs[k]))
					api_check_fail(f, "a node id whose bytes are not its text");
				for (size_t j = 0; j < k; j++)
					if (!memcmp(v->nodes[j], v->nodes[k], 20))
						api_check_fail(f, "a node id twice");
			}
			break;
		case AP_EVM_CHAIN:
			/* an EVM chain id from 1, or a blockchain id (-1) */
			if (v->set && !(v->i > 0 || v->i == -1))
				api_check_fail(f, "an EVM chain id out of its range");
			break;
		case AP_ID:
		case AP_NODE_ID:
		case AP_EVM_ADDRESS: break;
		}
	}
}

/* Parse the fixture's request twice: the same outcome, the same list identity. */
static inline void api_check_twice(api_fixture *f)
{
	bool ok = api_params_parse(&f->r);
	api_check_parse(f, ok);
	uint8_t id[16];
	memcpy(id, f->r.list_id, 16);
	int status = f->r.status;
	fx_clear(f);
	bool again = api_params_parse(&f->r);
	if (again != ok || (!ok && f->r.status != status))
		api_check_fail(f, "the same request parsed two ways");
	if (ok && memcmp(id, f->r.list_id, 16))
		api_check_fail(f, "the same request with two list identities");
}

#endif
