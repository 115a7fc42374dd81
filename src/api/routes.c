/*
 * routes.c — every route of the Data API, as a table: path, chains, the
 * parameters with their rules (spec 000 §4 and §8, data-api.md §5), the
 * handler. Adding an endpoint is a row here and a handler in the file named
 * after its resource.
 */
#include "api/internal.h"

static const char *const sort_orders[] = { "asc", "desc", NULL };
static const char *const utxo_sorts[] = { "timestamp", "amount", NULL };
/* CurrencyCode (data-api.md §4); usd by default. The same list, in the same order, as the price
 * table's sl_price_currencies (store/prices.h; test_api_params checks it). */
static const char *const currencies[] = { "usd", "eur", "aud", "cad", "chf", "clp", "cny", "czk",
					  "dkk", "gbp", "hkd", "huf", "jpy", "nzd", NULL };

#define PAGE_TOKEN                                         \
	{                                                  \
		.name = "pageToken", .kind = AP_PAGE_TOKEN \
	}
#define PAGE_SIZE(most, dflt)                                                              \
	{                                                                                  \
		.name = "pageSize", .kind = AP_INT, .min = 1, .max = (most), .def = (dflt) \
	}
#define SORT_ORDER(dflt)                                                                   \
	{                                                                                  \
		.name = "sortOrder", .kind = AP_ENUM, .values = sort_orders, .def = (dflt) \
	}
#define TIMESTAMP(nm)                                                  \
	{                                                              \
		.name = nm, .kind = AP_INT, .min = 0, .max = INT64_MAX \
	}
#define ADDRESSES(most, fl)                                                             \
	{                                                                               \
		.name = "addresses", .kind = AP_ADDRESSES, .max = (most), .flags = (fl) \
	}

static const api_param p_utxos_get[] = {
	ADDRESSES(API_MAX_ADDRESSES_GET, 0),
	PAGE_TOKEN,
	PAGE_SIZE(100, 10),
	{ .name = "assetId", .kind = AP_ID },
	{ .name = "minUtxoAmount", .kind = AP_AMOUNT, .umax = UINT64_MAX },
	{ .name = "includeSpent", .kind = AP_BOOL },
	{ .name = "sortBy", .kind = AP_ENUM, .values = utxo_sorts },
	SORT_ORDER(0),
};

static const api_param p_utxos_post[] = {
	ADDRESSES(API_MAX_ADDRESSES_POST, 0),
	PAGE_TOKEN,
	PAGE_SIZE(1024, 10),
	{ .name = "assetId", .kind = AP_ID },
	{ .name = "minUtxoAmount", .kind = AP_AMOUNT, .umax = UINT64_MAX },
	{ .name = "includeSpent", .kind = AP_BOOL },
	{ .name = "sortBy", .kind = AP_ENUM, .values = utxo_sorts },
	SORT_ORDER(0),
};

static const api_param p_txs[] = {
	ADDRESSES(API_MAX_ADDRESSES_GET, AP_EVM),
	{ .name = "l1ValidationId", .kind = AP_ID },
	{ .name = "txTypes", .kind = AP_TX_TYPES },
	TIMESTAMP("startTimestamp"),
	TIMESTAMP("endTimestamp"),
	PAGE_TOKEN,
	PAGE_SIZE(100, 10),
	SORT_ORDER(1),
};

static const api_param p_asset_txs[] = {
	{ .name = "assetId", .kind = AP_ID, .required = true },
	{ .name = "txTypes", .kind = AP_TX_TYPES },
	TIMESTAMP("startTimestamp"),
	TIMESTAMP("endTimestamp"),
	PAGE_TOKEN,
	PAGE_SIZE(100, 10),
};

static const api_param p_balances[] = {
	TIMESTAMP("blockTimestamp"),
	ADDRESSES(API_MAX_ADDRESSES_GET, 0),
};

static const api_param p_vertices[] = {
	PAGE_TOKEN,
	PAGE_SIZE(100, 10),
};

static const api_param p_vertices_height[] = {
	{ .name = "vertexHeight", .kind = AP_INT, .required = true, .min = 0, .max = INT64_MAX },
	PAGE_TOKEN,
	PAGE_SIZE(100, 10),
	SORT_ORDER(1),
};

static const api_param p_node_blocks[] = {
	{ .name = "nodeId", .kind = AP_NODE_ID, .required = true },
	TIMESTAMP("startTimestamp"),
	TIMESTAMP("endTimestamp"),
	PAGE_TOKEN,
	PAGE_SIZE(100, 10),
};

/* Newest first by default (rewards.c). currency: the currency of reward.historicalPrice, from the
 * price table (store/prices.h), as on the EVM routes below. */
static const api_param p_rewards[] = {
	ADDRESSES(API_MAX_ADDRESSES_GET, 0),
	{ .name = "nodeIds", .kind = AP_NODE_IDS, .max = API_MAX_NODE_IDS, .flags = AP_FULL_IDS },
	PAGE_TOKEN,
	PAGE_SIZE(100, 10),
	SORT_ORDER(1),
	{ .name = "currency", .kind = AP_ENUM, .values = currencies },
};

/* The P-chain's subnets and L1 validators: network routes (no {blockchainId}, chains 0). */
static const api_param p_subnets[] = {
	PAGE_TOKEN,
	PAGE_SIZE(10000, 100),
	SORT_ORDER(1),
};

static const api_param p_l1_validators[] = {
	PAGE_TOKEN,
	PAGE_SIZE(100, 10),
	{ .name = "l1ValidationId", .kind = AP_ID },
	{ .name = "includeInactiveL1Validators", .kind = AP_BOOL },
	{ .name = "nodeId", .kind = AP_NODE_ID },
	{ .name = "subnetId", .kind = AP_ID },
};

/* Staking, part 2: pending rewards (rewards.c; the sources of /rewards, newest first by default) and
 * the active staking txs of addresses (transactions.c; addresses required, newest first). */
static const api_param p_pending_rewards[] = {
	ADDRESSES(API_MAX_ADDRESSES_GET, 0),
	{ .name = "nodeIds", .kind = AP_NODE_IDS, .max = API_MAX_NODE_IDS, .flags = AP_FULL_IDS },
	PAGE_TOKEN,
	PAGE_SIZE(100, 10),
	SORT_ORDER(1),
};

static const api_param p_staking_txs[] = {
	{ .name = "addresses", .kind = AP_ADDRESSES, .required = true, .max = API_MAX_ADDRESSES_GET },
	{ .name = "txTypes", .kind = AP_TX_TYPES },
	TIMESTAMP("startTimestamp"),
	TIMESTAMP("endTimestamp"),
	PAGE_TOKEN,
	PAGE_SIZE(100, 10),
	SORT_ORDER(1),
};

/* The validators of the network (validators.c; docs/api.md has every definition). sortBy
 * delegationFee: mainnet only, with subnetId the primary network's (a 400 naming sortBy otherwise). */
static const char *const validator_sorts[] = { "blockIndex",	"delegationCapacity", "timeRemaining",
					       "delegationFee", "uptimePerformance",  NULL };
/* ValidationStatusType; validators.c's statuses are in this order */
static const char *const validation_statuses[] = { "completed", "active", "pending", "removed", NULL };
static const api_param p_validators[] = {
	PAGE_TOKEN,
	PAGE_SIZE(100, 10),
	{ .name = "nodeIds", .kind = AP_NODE_IDS, .max = API_MAX_NODE_IDS },
	{ .name = "sortBy", .kind = AP_ENUM, .values = validator_sorts },
	SORT_ORDER(1),
	{ .name = "validationStatus", .kind = AP_ENUM, .values = validation_statuses },
	{ .name = "minDelegationCapacity", .kind = AP_AMOUNT, .umax = API_MAX_DELEGATION_CAPACITY },
	{ .name = "maxDelegationCapacity", .kind = AP_AMOUNT, .umax = API_MAX_DELEGATION_CAPACITY },
	{ .name = "minTimeRemaining", .kind = AP_INT, .min = 0, .max = 2147483647 },
	{ .name = "maxTimeRemaining", .kind = AP_INT, .min = 0, .max = 2147483647 },
	{ .name = "minFeePercentage", .kind = AP_NUMBER, .min = 2, .max = 100 },
	{ .name = "maxFeePercentage", .kind = AP_NUMBER, .min = 2, .max = 100 },
	{ .name = "minUptimePerformance", .kind = AP_NUMBER, .min = 0, .max = 100 },
	{ .name = "maxUptimePerformance", .kind = AP_NUMBER, .min = 0, .max = 100 },
	{ .name = "subnetId", .kind = AP_ID },
};

/* EVM chains (part 3; chains.c, deployment.c, icm.c): routes without {network}. `network` filters:
 * Network (mainnet, fuji, testnet: fuji's other name) and local, the devnets' (a snowline addition;
 * the SDK never sends it). {chainId}: an EVM chain id or a blockchain id (cb58 or 0x hex); {address}:
 * 0x and 40 hex digits. */
static const char *const evm_networks[] = { "mainnet", "fuji", "testnet", "local", NULL };
/* ApiFeature; chains.c's features are in this order */
static const char *const api_features[] = { "nftIndexing", "webhooks", "teleporter", NULL };
static const api_param p_chains[] = {
	{ .name = "network", .kind = AP_ENUM, .values = evm_networks },
	{ .name = "feature", .kind = AP_ENUM, .values = api_features },
};

static const api_param p_chain[] = {
	{ .name = "chainId", .kind = AP_EVM_CHAIN, .required = true },
};

static const api_param p_native_balance[] = {
	{ .name = "chainId", .kind = AP_EVM_CHAIN, .required = true },
	{ .name = "address", .kind = AP_EVM_ADDRESS, .required = true },
	{ .name = "blockNumber", .kind = AP_INT, .min = 0, .max = INT64_MAX },
	{ .name = "currency", .kind = AP_ENUM, .values = currencies },
};

static const api_param p_deployment[] = {
	{ .name = "chainId", .kind = AP_EVM_CHAIN, .required = true },
	{ .name = "address", .kind = AP_EVM_ADDRESS, .required = true },
	{ .name = "currency", .kind = AP_ENUM, .values = currencies },
};

static const api_param p_icm_messages[] = {
	{ .name = "address", .kind = AP_EVM_ADDRESS, .required = true },
	PAGE_TOKEN,
	PAGE_SIZE(100, 10),
	{ .name = "network", .kind = AP_ENUM, .values = evm_networks },
};

#define NET "/v1/networks/{network}"
#define CHAIN NET "/blockchains/{blockchainId}"
#define ROUTE(m, pth, nm, ch, ps, handler, ...)                                   \
	{                                                                         \
		.method = m, .path = pth, .name = nm, .chains = ch, .params = ps, \
		.nparams = SL_ARRAY_LEN(ps), .fn = handler, __VA_ARGS__           \
	}

const api_route api_routes[] = {
	ROUTE("GET", CHAIN "/utxos", "utxos", API_ALL_CHAINS, p_utxos_get, api_get_utxos, .cache = true),
	ROUTE("POST", CHAIN "/utxos", "utxos:post", API_ALL_CHAINS, p_utxos_post, api_post_utxos,
	      .body_addresses = true),
	ROUTE("GET", CHAIN "/transactions", "transactions", API_ALL_CHAINS, p_txs, api_list_transactions,
	      .cache = true),
	ROUTE("GET", CHAIN "/assets/{assetId}/transactions", "asset_transactions", API_CHAIN(API_X),
	      p_asset_txs, api_list_asset_transactions, .cache = true),
	ROUTE("GET", CHAIN "/balances", "balances", API_ALL_CHAINS, p_balances, api_get_balances),
	ROUTE("GET", CHAIN "/vertices", "vertices", API_CHAIN(API_X), p_vertices, api_list_vertices,
	      .cache = true),
	ROUTE("GET", CHAIN "/vertices:listByHeight", "vertices_by_height", API_CHAIN(API_X),
	      p_vertices_height, api_list_vertices_by_height, .cache = true),
	ROUTE("GET", CHAIN "/nodes/{nodeId}/blocks", "blocks_by_node", API_ALL_CHAINS, p_node_blocks,
	      api_list_blocks_by_node, .cache = true),
	ROUTE("GET", NET "/rewards", "rewards", API_NO_CHAINS, p_rewards, api_list_rewards, .cache = true),
	ROUTE("GET", NET "/subnets", "subnets", API_NO_CHAINS, p_subnets, api_list_subnets, .cache = true),
	ROUTE("GET", NET "/l1Validators", "l1_validators", API_NO_CHAINS, p_l1_validators,
	      api_list_l1_validators, .cache = true),
	/* staking, part 2 */
	ROUTE("GET", NET "/rewards:listPending", "pending_rewards", API_NO_CHAINS, p_pending_rewards,
	      api_list_pending_rewards, .cache = true),
	ROUTE("GET", CHAIN "/transactions:listStaking", "staking_transactions", API_CHAIN(API_P),
	      p_staking_txs, api_list_staking_transactions, .cache = true),
	ROUTE("GET", NET "/validators", "validators", API_NO_CHAINS, p_validators, api_list_validators,
	      .cache = true),
	/* EVM chains, part 3 */
	ROUTE("GET", "/v1/chains", "chains", API_NO_CHAINS, p_chains, api_list_chains),
	ROUTE("GET", "/v1/chains/{chainId}", "chain", API_NO_CHAINS, p_chain, api_get_chain),
	ROUTE("GET", "/v1/chains/{chainId}/addresses/{address}/balances:getNative", "native_balance",
	      API_NO_CHAINS, p_native_balance, api_get_native_balance),
	ROUTE("GET", "/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment", "deployment",
	      API_NO_CHAINS, p_deployment, api_get_deployment),
	ROUTE("GET", "/v1/icm/addresses/{address}/messages", "icm_messages", API_NO_CHAINS, p_icm_messages,
	      api_list_icm_messages),
	/* signature aggregation (sigagg_api.c): the POST body is its own (sigagg.h); 201 upstream */
	{ .method = "POST",
	  .path = "/v1/signatureAggregator/{network}/aggregateSignatures",
	  .name = "aggregate_signatures",
	  .chains = API_NO_CHAINS,
	  .fn = api_post_aggregate,
	  .upstream_201 = true },
	{ .method = "GET",
	  .path = "/v1/signatureAggregator/{network}/aggregateSignatures/{txHash}",
	  .name = "aggregate_signatures_tx",
	  .chains = API_NO_CHAINS,
	  .fn = api_get_aggregate,
	  .upstream_201 = true },
};
const size_t api_nroutes = SL_ARRAY_LEN(api_routes);
