/*
 * fuzz_api_body.c — hostile bodies into POST …/utxos (api/params.c: the
 * body {"addresses": "a,b,…"}, its JSON, its string escapes, its address
 * list of up to 1024), with a fixed valid query.
 *
 * Input: the body. Properties: api_check.h.
 */
#include <stdlib.h>
#include <string.h>

#include "api_check.h"
#include "fuzz.h"

static api_fixture f;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const api_route *post;
	if (!post) {
		fx_api_init(&f.api);
		for (size_t i = 0; i < api_nroutes; i++)
			if (api_routes[i].body_addresses)
				post = &api_routes[i];
		if (!post)
			abort();
	}
	/* the server hands a handler a NUL-terminated body */
	uint8_t *body = malloc(size + 1);
	memcpy(body, data, size);
	body[size] = 0;
	fx_begin(&f, post, "pageSize=5&includeSpent=true", body, size, NULL, NULL);
	api_check_twice(&f);
	fx_end(&f);
	free(body);
	return 0;
}
