/*
 * fuzz_api_query.c — hostile query strings (and path variables) into the
 * Data API's parameter parser (api/params.c), on every route of the table.
 *
 * Input: a byte that picks the route, the query string up to the first NUL,
 * then the route's path variable ({assetId} or {nodeId}) if it has one; the
 * EVM routes' {chainId} and {address} are the rest up to a second NUL and
 * after it. The POST route gets a valid body, so its query is what is fuzzed.
 * Properties: api_check.h.
 */
#include <stdlib.h>
#include <string.h>

#include "api_check.h"
#include "fuzz.h"

static api_fixture f;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	if (!ready) {
		fx_api_init(&f.api);
		ready = true;
	}
	if (!size)
		return 0;
	const api_route *rt = &api_routes[data[0] % api_nroutes];
	data++, size--;
	const uint8_t *nul = memchr(data, 0, size);
	size_t qn = nul ? (size_t)(nul - data) : size;
	char *query = malloc(qn + 1), *var = NULL;
	memcpy(query, data, qn);
	query[qn] = 0;
	if (nul) {
		size_t vn = size - qn - 1;
		var = malloc(vn + 1);
		memcpy(var, nul + 1, vn);
		var[vn] = 0;
	}
	bool asset = strstr(rt->path, "{assetId}"), node = strstr(rt->path, "{nodeId}");
	const char *asset_id = asset ? (var ? var : "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK")
				     : NULL;
	const char *node_id = node ? (var ? var : "NodeID-KScqfi7E6a1geyMqHTQCooC7wQMhu4s7r") : NULL;
	static const char body[] = "{\"addresses\": \"X-fuji1hq5x6xnqms5mua4xdkj7jl49ghs23tkzxmjjsn\"}";
	fx_begin(&f, rt, query, rt->body_addresses ? (const uint8_t *)body : NULL,
		 rt->body_addresses ? sizeof body - 1 : 0, asset_id, node_id);
	/* {chainId} and {address}: "chain\0address" (a variable without a NUL is the chain) */
	char *sep = var ? memchr(var, 0, size - qn - 1) : NULL;
	if (strstr(rt->path, "{chainId}"))
		f.r.chainId = var ? var : "43114";
	if (strstr(rt->path, "{address}"))
		f.r.address = sep ? sep + 1
			      : strstr(rt->path, "{chainId}") || !var
				      ? "0x8578AE7723751446B196bD5124e1bF57B40EB7Bc"
				      : var;
	f.r.network = strstr(rt->path, "{network}") ? f.r.network : NULL;
	api_check_twice(&f);
	fx_end(&f);
	free(query);
	free(var);
	return 0;
}
