/*
 * fuzz_api_export.c — hostile bodies into POST /v1/operations/transactions:export's
 * parser (api/exports.c api_export_parse: the JSON, its string escapes, the
 * types, the chains of both kinds, the dates, up to 64 addresses), on fuji.
 *
 * Input: the body. Properties: it returns one of its three verdicts, with a
 * message (NUL-terminated, naming what is wrong) exactly when it refuses;
 * what it accepts is in range (1 to API_EXPORT_MAX_ADDRESSES distinct
 * addresses, of the right kind for the type, at least one chain, the days in
 * order); the same bytes give the same answer.
 */
#include <stdlib.h>
#include <string.h>

#include "api_fixture.h"
#include "fuzz.h"

static sl_api api;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	if (!ready) {
		fx_api_init(&api);
		ready = true;
	}
	/* the server hands a handler a NUL-terminated body */
	uint8_t *body = malloc(size + 1);
	memcpy(body, data, size);
	body[size] = 0;
	api_export_req *q = malloc(sizeof *q), *q2 = malloc(sizeof *q2);
	char msg[256], msg2[256];
	api_export_verdict v = api_export_parse(&api.net, body, size, q, msg);
	api_export_verdict v2 = api_export_parse(&api.net, body, size, q2, msg2);
	if (v != API_EXPORT_OK && v != API_EXPORT_BAD_BODY && v != API_EXPORT_INVALID)
		abort();
	if (v != v2 || strcmp(msg, msg2) || memchr(msg, 0, sizeof msg) == NULL)
		abort();
	if ((v == API_EXPORT_OK) != (msg[0] == 0))
		abort();
	if (v == API_EXPORT_OK) {
		if (memcmp(q, q2, sizeof *q))
			abort();
		bool evm = q->type == API_EXPORT_EVM;
		if (q->type > API_EXPORT_EVM || !q->naddrs || q->naddrs > API_EXPORT_MAX_ADDRESSES ||
		    q->from >= q->to)
			abort();
		if (evm ? (!q->nevm || q->nevm > API_EXPORT_MAX_CHAINS || q->chains)
			: (q->nevm || !q->chains))
			abort();
		for (size_t i = 0; i < q->naddrs; i++) {
			if (evm && !q->addrs[i].evm)
				abort();
			for (size_t k = 0; k < i; k++)
				if (q->addrs[k].evm == q->addrs[i].evm &&
				    !memcmp(q->addrs[k].bytes, q->addrs[i].bytes, 20))
					abort();
		}
	}
	free(q);
	free(q2);
	free(body);
	return 0;
}
