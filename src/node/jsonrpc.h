/*
 * jsonrpc.h — JSON-RPC 2.0 over HTTP POST, framed exactly as avalanchego
 * (gorilla/rpc v2 json2 with avalanchego's codec) frames it.
 *
 * The order of checks, every error text, the echo of `id` as compacted raw
 * JSON, notifications (no id, or id null: the method runs, the body is
 * empty), case-insensitive keys, and params given as an object or as a
 * one-element array: see docs/node.md and docs/reference/node-rpc.md §2.
 *
 * A service is a table of methods; a method declares its arguments as a
 * table of (JSON name, type) and receives them decoded with avalanchego's
 * rules for that type. Methods write their result with the streaming JSON
 * writer and fail through sl_rpc_fail*(), the one place where an error
 * becomes a JSON-RPC error object.
 */
#ifndef SL_NODE_JSONRPC_H
#define SL_NODE_JSONRPC_H

#include "http/server.h"
#include "util/compat.h"
#include "util/gofmt.h"
#include "util/jw.h"

/* Argument types, each decoded as the avalanchego type of the same role. */
typedef enum sl_rpc_type {
	SL_RPC_STRING,	 /* Go string: JSON string or null */
	SL_RPC_UINT64,	 /* json.Uint64: decimal, quoted or not */
	SL_RPC_ID,	 /* ids.ID: quoted cb58; null is the zero id */
	SL_RPC_ENCODING, /* formatting.Encoding: "hex" | "hexc" | "hexnc" | "json", any case; default hex */
	SL_RPC_LEVEL,	 /* *logging.Level: level name, any case; null = absent */
	SL_RPC_STRINGS,	 /* []string */
	SL_RPC_NODEIDS,	 /* []ids.NodeID: "NodeID-…" each, null the zero id; null or absent = none */
} sl_rpc_type;

typedef enum sl_encoding { SL_ENC_HEX, SL_ENC_HEXC, SL_ENC_HEXNC, SL_ENC_JSON } sl_encoding;
const char *sl_encoding_name(sl_encoding e);

typedef struct sl_rpc_arg {
	const char *name;
	sl_rpc_type type;
} sl_rpc_arg;

#define SL_RPC_MAX_ARGS 8

typedef struct sl_rpc_val {
	bool set; /* present and not null */
	uint64_t u;
	uint8_t id[32];
	const char *s; /* STRING: unquoted, NUL-terminated, arena memory */
	size_t slen;
	int enc; /* ENCODING (sl_encoding); LEVEL (sl_level) */
	const char **strs;
	size_t nstrs;
	uint8_t (*nodes)[20]; /* NODEIDS: nstrs of them */
} sl_rpc_val;

typedef struct sl_rpc_call {
	void *ctx;		/* the service's context */
	const sl_rpc_val *args; /* one per declared argument, in table order */
	sl_jw *w;		/* write exactly one JSON value: the result */
	sl_arena *arena;	/* for this call only */
	sl_compat compat;
	const char *err; /* set by sl_rpc_fail*() */
	int err_code;
} sl_rpc_call;

/* Returns 0 on success (result written) or -1 after sl_rpc_fail*(). */
typedef int (*sl_rpc_fn)(sl_rpc_call *c);

typedef struct sl_rpc_method {
	const char *name; /* as dispatched: first letter upper-case, e.g. "GetContainerByID" */
	sl_rpc_fn fn;
	sl_rpc_arg args[SL_RPC_MAX_ARGS];
	size_t nargs;
} sl_rpc_method;

typedef struct sl_rpc_service {
	const char *name; /* "index", "admin", ... */
	const sl_rpc_method *methods;
	size_t nmethods;
	void *ctx;
} sl_rpc_service;

/* Serve one HTTP request on an endpoint offering these services. */
void sl_rpc_serve(const sl_rpc_service *services, size_t n, sl_compat compat, const sl_http_req *req,
		  sl_http_resp *resp);

/* Fail with a message (printf-style, copied into the call's arena). */
int sl_rpc_fail(sl_rpc_call *c, const char *fmt, ...) SL_PRINTF(2, 3);
/* Fail as avalanchego does when arguments do not decode. */
int sl_rpc_fail_args(sl_rpc_call *c);
/* Fail from an sl_err: the one mapping of our error enum to JSON-RPC. */
int sl_rpc_fail_err(sl_rpc_call *c, sl_err e, const char *detail);

/* Exposed for the fuzz target and unit tests: decode one argument value. */
SL_MUST_USE bool sl_rpc_arg_decode(sl_rpc_type t, sl_span raw, sl_arena *a, sl_rpc_val *v);

#endif
