/*
 * internal.h — the Data API's handler pattern; for src/api/ only.
 *
 * A route is a row of a table (routes.c): method, path pattern, the chains
 * its {blockchainId} may name, its parameters, its handler. Before a handler
 * runs, api.c has matched the route, checked the network and the chain,
 * parsed and validated every parameter (params.c: a bad one is a 400 whose
 * message names it and says what it accepts), borrowed a store connection
 * and opened the JSON writer on the response. A handler then reads its
 * arguments (api_arg), queries the store, writes one JSON object with the
 * writer (render.c has the shared shapes) and returns 0, or fails through
 * api_fail() — the one place a status and an ErrorBody are made.
 *
 * Paging: a handler that lists reads its cursor from the page token
 * (api_page_cursor; a forged, stale or foreign token has already failed the
 * request) and, when more items follow, writes the next token
 * (api_page_next) — token.c signs the cursor together with the list's
 * identity (route, network, chain, every parameter but pageToken and
 * pageSize), so a token is only good for the list it came from.
 */
#ifndef SL_API_INTERNAL_H
#define SL_API_INTERNAL_H

#include <pthread.h>

#include "api/api.h"
#include "http/server.h"
#include "store/sql.h"
#include "util/jsonv.h"
#include "util/jw.h"
#include "util/log.h"

/* Limits of this API (docs/api.md lists them). */
/* addresses in a GET query: 64 with their chain prefixes and %2C separators are about 3.3 KB, well
 * inside the HTTP server's request target (SL_HTTP_MAX_PATH, 8 KiB). Longer lists go to POST utxos. */
#define API_MAX_ADDRESSES_GET 64
#define API_MAX_ADDRESSES_POST 1024 /* addresses in the POST utxos body */
#define API_MAX_NODE_IDS 64
#define API_MAX_QUERY_PARAMS 64
#define API_MAX_TOKEN 512	    /* characters of a page token */
#define API_TOKEN_TTL_S (24 * 3600) /* page tokens expire after a day */
#define API_TX_PAGE_MAX_UTXOS 4096  /* rule 2 of spec 000 §4.3: UTXOs in one page of txs */
#define API_CURSOR_MAX 96	    /* bytes of a page cursor */
#define API_CACHE_TTL_S 10	    /* a cached response is made again after this long (cache.c) */
/* validators (validators.c): the stakers not ended (current and pending) a request reads at most */
#define API_MAX_OPEN_STAKERS 250000
#define API_MAX_DELEGATION_CAPACITY 720000000000000000 /* nAVAX: the supply cap (spec 000 §8) */
#define API_PRICE_MAX 48     /* a price's text and its NUL (store/prices.h: SL_PRICE_MAX_LEN is 39) */
#define API_EVM_RPC_MS 10000 /* getNative: how long the chain's RPC may take to answer */

enum { API_P = 0, API_X = 1, API_C = 2 };
#define API_CHAIN(c) (1u << (c))
#define API_ALL_CHAINS (API_CHAIN(API_P) | API_CHAIN(API_X) | API_CHAIN(API_C))
#define API_NO_CHAINS 0u /* a route of the network, without {blockchainId} */

typedef enum api_pkind {
	AP_INT,	   /* an integer in [min, max] */
	AP_BOOL,   /* true | false */
	AP_ENUM,   /* one of values[] */
	AP_STRING, /* text of at most max bytes */
	AP_ADDRESSES, /* comma-separated addresses of this network (P-/X-/C- prefix optional); 0x too with AP_EVM */
	AP_NODE_IDS, /* comma-separated node ids or parts of them (whole ones only with AP_FULL_IDS) */
	AP_TX_TYPES, /* PrimaryNetworkTxType names, repeated or comma-separated */
	AP_ID,	     /* a cb58 32-byte id */
	AP_NODE_ID,  /* NodeID-… */
	AP_AMOUNT,   /* an unsigned integer (JSON number or decimal string) in [min, umax] */
	AP_NUMBER,   /* a decimal number (digits, a point and more digits) in [min, max]: i in millionths */
	AP_PAGE_TOKEN,
	AP_EVM_CHAIN, /* an EVM chain id (decimal: i) or a blockchain id (cb58 or 0x + 64 hex: id, i = -1) */
	AP_EVM_ADDRESS, /* 0x and 40 hex digits (either case): evm */
} api_pkind;

#define AP_EVM 1u      /* AP_ADDRESSES: 0x EVM addresses are accepted too */
#define AP_FULL_IDS 2u /* AP_NODE_IDS: whole node ids only (NodeID-…), decoded into nodes[], none twice */

typedef struct api_param {
	const char *name;
	api_pkind kind;
	bool required;
	int64_t min, max;	   /* INT bounds; STRING: max length; lists: most items */
	int64_t def;		   /* INT: when absent */
	const char *const *values; /* ENUM, NULL-terminated */
	uint64_t umax;		   /* AMOUNT */
	unsigned flags;
} api_param;

typedef struct api_addr {
	uint8_t bytes[20];
	bool evm;
} api_addr;

typedef struct api_val {
	bool set;
	int64_t i;  /* INT, BOOL (0/1), ENUM (index into values); NUMBER: millionths (2.5 = 2500000) */
	uint64_t u; /* AMOUNT */
	const char *s;
	size_t slen; /* STRING, PAGE_TOKEN */
	uint8_t id[32];
	uint8_t node[20];
	api_addr *addrs; /* ADDRESSES */
	size_t naddrs;
	uint64_t tx_types; /* TX_TYPES: bit per api_tx_type_names[] entry */
	const char **strs; /* NODE_IDS */
	size_t nstrs;
	uint8_t (*nodes)[20]; /* NODE_IDS with AP_FULL_IDS: strs[i] decoded */
	uint8_t evm[20];      /* EVM_ADDRESS */
} api_val;

/* PrimaryNetworkTxType, in the order of data-api.md §4 (bit i of api_val.tx_types). */
extern const char *const api_tx_type_names[];

typedef struct api_req api_req;

typedef struct api_route {
	const char *method;
	const char *path; /* "/v1/networks/{network}/blockchains/{blockchainId}/utxos" */
	const char *name; /* the route in metrics and logs */
	unsigned chains;  /* what {blockchainId} may name (API_CHAIN bits) */
	const api_param *params;
	size_t nparams;
	int (*fn)(api_req *r);
	bool body_addresses; /* POST: a JSON body {"addresses": "a,b,…"} */
	bool upstream_201;   /* answers 201 under compat = upstream (spec 000 says 200) */
	bool cache;	     /* its body depends on its target and the store only (cache.c) */
} api_route;

/* The handlers (one file per resource). */
int api_get_utxos(api_req *r);
int api_post_utxos(api_req *r);
int api_list_transactions(api_req *r);
int api_list_asset_transactions(api_req *r);
int api_get_balances(api_req *r);
int api_list_vertices(api_req *r);
int api_list_vertices_by_height(api_req *r);
int api_list_blocks_by_node(api_req *r);
int api_list_rewards(api_req *r);
/* The P-chain's subnets and L1 validators (network routes: no {blockchainId}). */
int api_list_subnets(api_req *r);
int api_list_l1_validators(api_req *r);
/* staking, part 2: pending rewards (rewards.c), active staking txs (transactions.c) */
int api_list_pending_rewards(api_req *r);
int api_list_staking_transactions(api_req *r);
/* the validators of the network (validators.c) */
int api_list_validators(api_req *r);
/* EVM chains (part 3): the chains (chains.c), a native balance (chains.c, asking the chain's RPC),
 * a contract's deployment (deployment.c), the ICM messages of an address (icm.c) */
int api_list_chains(api_req *r);
int api_get_chain(api_req *r);
int api_get_native_balance(api_req *r);
int api_get_deployment(api_req *r);
int api_list_icm_messages(api_req *r);
/* signature aggregation (sigagg_api.c): a body of its own (sigagg.h), no table parameters */
int api_post_aggregate(api_req *r);
int api_get_aggregate(api_req *r);

extern const api_route api_routes[];
extern const size_t api_nroutes;

/* The store's network (meta "network") and what the API derives from it. */
typedef struct api_net {
	char name[32]; /* "mainnet", "fuji", "local", ... */
	uint32_t id;
	char hrp[16];
	uint8_t chain[3][32];
	char chain_str[3][64];
	uint8_t avax[32];
} api_net;

struct sl_api_keys;
struct sl_ratelimit;
struct api_assets;
struct api_pubkeys;
struct api_genesis_stakers;

struct sl_api {
	sl_api_config cfg;
	struct sl_http_server *http;
	sl_db *db;
	api_net net;
	uint8_t secret[32]; /* page tokens */
	struct sl_api_keys *keys;
	struct sl_ratelimit *limits;
	struct api_assets *assets;
	struct api_pubkeys *pubkeys;		     /* recovered public keys (pubkeys.c) */
	struct api_cache *cache;		     /* whole responses (cache.c); NULL: off */
	struct api_genesis_stakers *genesis_stakers; /* the genesis validators, read once (rewards.c) */
	sl_metrics *metrics;
	bool own_metrics;
	sl_metric_family *m_requests, *m_latency;
	sl_logger *log, *log_access;
};

struct api_req {
	sl_api *api;
	const sl_http_req *http;
	sl_http_resp *resp;
	sl_arena *arena;
	const api_route *route;
	api_val *v;	       /* one per route parameter, in table order */
	const char *network;   /* as the request named it ("testnet" stays "testnet") */
	int chain;	       /* {blockchainId} resolved: API_P, API_X, API_C; -1 when the route has none */
	const char *chain_raw; /* {blockchainId} as sent */
	const char *assetId, *nodeId;  /* other path variables, raw */
	const char *chainId, *address; /* the EVM routes' path variables, raw */
	const char *txHash;	       /* {txHash} (signature aggregation), raw */
	sl_conn *db;
	sl_jw w;
	uint8_t list_id[16];
	int status;
	bool failed;
	struct api_enc *enc;	       /* ids and addresses already encoded in this response (render.c) */
	const struct api_asset *asset; /* the asset last looked up, for the next lookup (render.c) */
};

/* Fail: a status and an ErrorBody whose message is printf-formatted. Returns -1. */
int api_fail(api_req *r, int status, const char *fmt, ...) SL_PRINTF(3, 4);
/* A store error as a 500 (logged with the backend's message), or 503 when the store is away. */
int api_fail_store(api_req *r, sl_err e);
/* The reason phrase of a status ("Bad Request", …). */
const char *api_reason(int status);
/* Write an ErrorBody {"message","statusCode","error"} into a response. */
void api_error_body(sl_http_resp *resp, int status, const char *message);

/* The argument of parameter `name` of the route (asserts the route has it). */
const api_val *api_arg(const api_req *r, const char *name);

/* ---- params.c ---- */
/* Parse the query (and the POST body) against the route's parameters into r->v; false after api_fail. */
bool api_params_parse(api_req *r);
/* Parse one address of this network (with or without a chain prefix); false when it is not one. */
bool api_parse_address(const api_net *net, const char *s, size_t n, bool evm_ok, api_addr *out,
		       char why[128]);
/* 0x and 40 hex digits into out; false when s[0..n) is not that. */
bool api_parse_evm_address(const char *s, size_t n, uint8_t out[20]);
/* An EVM chain id (decimal, 1 to INT64_MAX: *evm) or a blockchain id (cb58 or 0x + 64 hex: id, *evm
 * -1); false with *msg saying why not. */
bool api_parse_evm_chain(const char *s, size_t n, int64_t *evm, uint8_t id[32], const char **msg);

/* ---- token.c ---- */
/*
 * The cursor of the page token, if any: *len = 0 without one. False after api_fail when the token
 * is not one this list issued (forged, expired, of another list).
 */
bool api_page_cursor(api_req *r, uint8_t cursor[API_CURSOR_MAX], size_t *len);
/* Write "nextPageToken": "<token for this list and cursor>" into the open object. */
void api_page_next(api_req *r, const uint8_t *cursor, size_t len);
/* A cursor that is one integer key: *after = it, or `none` without a token. False after api_fail. */
bool api_page_cursor_i64(api_req *r, int64_t none, int64_t *after);

/*
 * A page of a list keyed by one integer (column 0 of the query's rows, which the query orders by and
 * asks one row more than `page` of): {"<key>": [rows written by `row`], "nextPageToken" when more
 * follow, "chainInfo"}. The query is run here; 0, or -1 after api_fail.
 */
typedef void (*api_row_fn)(api_req *r, sl_stmt *s);
int api_list_page_i64(api_req *r, sl_stmt *s, const char *key, size_t page, api_row_fn row);

/* ---- render.c ---- */
/* "chainInfo": {"chainName", "network"} into the open object. */
void api_chain_info(api_req *r);
/* The cb58 text of a chain's id. */
const char *api_chain_id(const api_req *r, int chain);
/* The fields of an AssetAmount (assetId, name, symbol, denomination, type, amount) into the open
 * object, for shapes that extend it. */
void api_asset_amount_fields(api_req *r, const uint8_t asset[32], uint64_t amount);
/* An AssetAmount object for an asset and an amount (asset details from the store, cached). */
void api_asset_amount(api_req *r, const uint8_t asset[32], uint64_t amount, const char *extra_key,
		      int64_t extra);
/* An address as the API writes it: "<hrp>1…" (no chain prefix), or 0x… for EVM addresses. */
void api_write_address(api_req *r, const uint8_t addr[20]);
/* An id in cb58 (a JSON string). */
void api_write_id(api_req *r, const uint8_t id[32]);
/* A node id: "NodeID-<cb58>". */
void api_write_node_id(api_req *r, const uint8_t node[20]);
/* The RewardType of a reward kind (utxos.reward: 1 VALIDATOR, 2 DELEGATOR, 3 VALIDATOR_FEE), or NULL. */
const char *api_reward_type(int kind);
/* A 32-byte id from a column in cb58, or "" when the column holds none. */
void api_write_id_col(api_req *r, sl_stmt *s, int col);
/* Decimal string of a u64. */
void api_write_u64s(api_req *r, uint64_t v);
/* A delegation fee of `ppm` parts per million as a percent string: "2.5" (no trailing zeros). */
void api_write_fee_percent(api_req *r, uint32_t ppm);

typedef struct api_asset {
	uint8_t id[32];
	char cb58[64]; /* the id as written */
	char name[128], symbol[16];
	uint8_t denomination;
	bool nft, variable_cap;
	int64_t created_ts;
	bool known;
} api_asset;
/* An asset's details (cached); an unknown asset reads as "Unknown". */
void api_asset_get(api_req *r, const uint8_t id[32], api_asset *out);
struct api_assets *api_assets_new(void);
void api_assets_free(struct api_assets *a);

/* ---- render.c: owners as the store keeps them (threshold u32 | locktime u64 | 20-byte addresses) ---- */
typedef struct api_owner {
	uint32_t threshold;
	uint64_t locktime;
	const uint8_t *addrs; /* naddrs * 20 bytes, into the column read */
	size_t naddrs;
} api_owner;
/* Read an owner blob; false (and an owner of nothing) when it is not one. */
bool api_owner_read(const uint8_t *p, size_t n, api_owner *o);
/* "addresses": [...] of an owner into the open object. */
void api_owner_addresses(api_req *r, const char *key, const api_owner *o);

/* ---- genesis.c: a chain's genesis as GET …/subnets shows it (outside input: fuzz_api_genesis.c) ---- */
#define API_GENESIS_MAX (1u << 20) /* genesis bytes shown at most; a larger genesis is left out */
#define API_GENESIS_DEPTH 16	   /* nesting the object form re-emits at most */
/* The scratch buffer api_genesis_read and api_genesis_write need (sl_buf_init with this max). */
#define API_GENESIS_SCRATCH SL_JSON_UNQUOTE_MAX(API_GENESIS_MAX)
typedef enum api_genesis_form {
	API_GENESIS_NONE,   /* not JSON, or larger than API_GENESIS_MAX: not shown */
	API_GENESIS_OBJECT, /* an EVM genesis whose every EvmGenesisDto field has the DTO's type */
	API_GENESIS_STRING, /* any other JSON: its text, as a string */
} api_genesis_form;
typedef struct api_genesis {
	api_genesis_form form;
	bool has_chain_id; /* config.chainId, an integer (evmChainId) */
	uint64_t chain_id;
	sl_span value; /* the JSON value within the bytes */
} api_genesis;
void api_genesis_read(const uint8_t *p, size_t n, api_genesis *g, sl_buf *scratch);
/* The genesisData value (object or string; nothing for NONE) as the writer's next value. */
void api_genesis_write(sl_jw *w, const uint8_t *p, size_t n, const api_genesis *g, sl_buf *scratch);

/* ---- pubkeys.c ---- */
/* The compressed public key sig recovers to over hash (cached: a fact of those bytes); false when none. */
SL_MUST_USE bool api_pubkey(api_req *r, const uint8_t hash[32], const uint8_t sig[65], uint8_t pub[33]);
struct api_pubkeys *api_pubkeys_new(void);
void api_pubkeys_free(struct api_pubkeys *c);

/* ---- cache.c ---- */
/* What the store holds, named: each index's cursor (kind 0-4), whether genesis was applied (5) and
 * the last load of prices (6: store/prices.h). */
typedef struct api_gen {
	int64_t v[7];
} api_gen;
struct api_cache *api_cache_new(size_t bytes); /* NULL when bytes is 0 */
void api_cache_free(struct api_cache *c);
/* The response made for this key at this generation, less than API_CACHE_TTL_S seconds ago (now:
 * monotonic seconds; up to twice that while another request makes it again), into resp; false
 * when there is none. While another request makes it, waits for that one. *owner: this request
 * now makes it (key must stay valid until then), and must end with api_cache_put, with its
 * response or NULL. */
bool api_cache_get(struct api_cache *c, const char *key, size_t klen, const api_gen *gen, int64_t now,
		   sl_http_resp *resp, bool *owner);
/* Keep resp (NULL: nothing to keep, e.g. an error) for the key; owner: end its flight. */
void api_cache_put(struct api_cache *c, const char *key, size_t klen, const api_gen *gen, int64_t now,
		   const sl_http_resp *resp, bool owner);
void api_cache_counts(struct api_cache *c, uint64_t *hits, uint64_t *misses, size_t *bytes);

/* ---- utxos.c: a UTXO as every endpoint shows it ---- */
typedef struct api_utxo {
	uint8_t id[32], tx[32], asset[32], ctx[32];
	uint32_t idx, otype, threshold, naddrs, group_id;
	int created, dest, cchain, reward;
	uint64_t amount, locktime, stake_lock, height, cheight;
	uint8_t *addrs, *payload; /* arena */
	size_t payload_len;
	bool staked, in_block, consumed, c_in_block;
	int64_t stake_start, stake_end, ts, cts, unstaked;
} api_utxo;
/* The columns api_utxo_read reads, in its order (the same names in utxos and addr_utxos, but
 * `created`/`chain`: utxos calls them chain/dest — select them with these names). */
#define API_UTXO_COLS                                                                                           \
	"id, tx, idx, created, chain, asset, amount, otype, locktime, stake_lock, threshold, addrs, group_id, " \
	"payload, staked, stake_start, stake_end, reward, height, ts, ctx, cheight, cts, cchain, unstaked"
#define API_UTXO_NCOLS 25
void api_utxo_read(sl_stmt *s, int c0, api_utxo *u, sl_arena *a);
/* A PChainUtxo (pchain) or a Utxo of the X- and C-chain shapes; extra (may be NULL) adds keys before it closes. */
void api_utxo_write(api_req *r, const api_utxo *u, bool pchain, void (*extra)(api_req *r, void *ctx),
		    void *ctx);

/* ---- rewards.c: the P-chain's now, the genesis validators ---- */
/* The P-chain's time (its latest block's; INT64_MIN before the first) and the primary network's
 * supply then (the genesis's before the first block; has_supply false when the store has none). */
typedef struct api_pnow {
	int64_t ts;
	bool has_supply;
	uint64_t supply;
} api_pnow;
/* 0, or -1 after api_fail. */
int api_pchain_now(api_req *r, api_pnow *p);
struct api_genesis_stakers *api_genesis_stakers_new(void);
void api_genesis_stakers_free(struct api_genesis_stakers *g);

/* ---- chains.c: the configured EVM chains (evm_chains; schema v10) ---- */
typedef struct api_evm_chain {
	int64_t evm;
	bool has_blockchain, has_subnet, has_icm, testnet;
	uint8_t blockchain[32], subnet[32], icm[20];
	const char *name, *description, *rpc_url, *ws_url, *explorer_url, *logo_uri; /* arena; NULL: none */
	const char *token_name, *token_symbol, *token_logo, *token_description;
	int64_t token_decimals;
	const char *network; /* mainnet, fuji, local */
} api_evm_chain;
/* The chain parameter "chainId" names: 0, or -1 after api_fail (404 naming it when no chain is). */
int api_evm_chain_get(api_req *r, api_evm_chain *c);
/* The EVM chain id of a blockchain id, or -1 when no configured chain has it. */
int64_t api_evm_of_blockchain(api_req *r, const uint8_t blockchain[32]);
/* networkToken {name, symbol, decimals, logoUri?, description?} as the writer's next value. */
void api_evm_network_token(api_req *r, const api_evm_chain *c);
/* An address in EIP-55 mixed-case checksum form (a JSON string). */
void api_write_evm_address(api_req *r, const uint8_t addr[20]);
/* A 32-byte big-endian unsigned integer as a decimal string (a JSON string); NULL or a blob of another
 * length: "0". */
void api_write_u256_col(api_req *r, const uint8_t *p, size_t n);
/* The decimal text of a 32-byte big-endian unsigned integer into out[80]. */
size_t api_u256_decimal(const uint8_t be[32], char out[80]);
/* a × 10^-shift × b of an integer's decimal text a (at most 80 digits) and a price's b (digits, an
 * optional point and digits; at most 64 digits), exactly, without trailing zeros in its fraction:
 * into out (NUL-terminated), its length returned. */
size_t api_decimal_mul(const char *a, const char *b, int shift, char *out, size_t cap);
/* The price table's price (store/prices.h) of the network's asset on the UTC day of ts (INT64_MIN:
 * the latest day it has) in `currency`, into out (NUL-terminated); false when it has none. */
bool api_price_on(api_req *r, const char *currency, int64_t ts, char out[API_PRICE_MAX]);
/* Money {currencyCode, value} (value a string; a number under compat = upstream) as the next value. */
void api_write_money(api_req *r, const char *currency, const char *value, size_t n);

/* ---- deployment.c ---- */
/* The signature of a well-known 4-byte selector (ERC-20/721/1155, TeleporterMessenger, …), or "". */
const char *api_method_name(const uint8_t sel[4]);

/* ---- keys.c, ratelimit.c ---- */
typedef struct sl_api_key {
	char name[64];
	uint8_t hash[32];
	double rate, burst; /* 0: the configured default for keys */
} sl_api_key;
struct sl_api_keys *api_keys_load(const char *path, char err[512]);
void api_keys_free(struct sl_api_keys *k);
/* The key whose sha256 is that of `key`, or NULL. */
const sl_api_key *api_keys_find(const struct sl_api_keys *k, const char *key, size_t n);

struct sl_ratelimit *api_ratelimit_new(void);
void api_ratelimit_free(struct sl_ratelimit *rl);
/* Take one token from the bucket named `who`; false with *retry_after (seconds) when it is empty. */
bool api_ratelimit_take(struct sl_ratelimit *rl, const char *who, double rate, double burst,
			int *retry_after);

#endif
