/*
 * p2p.h — avalanchego's peer-to-peer protocol, as much of it as asking
 * validators for ACP-118 warp signatures needs: a client pool and a server.
 *
 * Wire (facts from ava-labs/avalanchego; docs/p2p.md has the sources):
 *   - TLS 1.3, both sides present a staking certificate (no CA; the peer's
 *     NodeID is ripemd160(sha256(its certificate DER)));
 *   - each message is a 4-byte big-endian length, then a protobuf p2p.Message
 *     (SL_P2P_MSG_MAX at most); a Message may hold compressed_zstd, the zstd
 *     frame of another Message;
 *   - the first message each way is a Handshake (network id, time, the signed
 *     IP: ECDSA with the staking key and BLS proof-of-possession signature
 *     over ip16 | port u16 | timestamp u64, client version, ACPs), answered by
 *     a PeerList; ping/pong keep the link alive;
 *   - a signature request is an AppRequest{chain_id, request_id, deadline,
 *     app_bytes = uvarint(2) (ACP-118's handler id) | sdk.SignatureRequest
 *     {message, justification}}; the answer is an AppResponse whose
 *     app_bytes is sdk.SignatureResponse{signature} (96 bytes, BLS over the
 *     unsigned warp message with the signature DST) or an AppError.
 *
 * Threads: a pool may be used from any number of threads at once; a server
 * runs on threads of its own. Callbacks are documented where they are taken.
 * A call's worker threads may outlive it: one still making a connection when
 * the call stopped (below) finishes it and hands it to the pool.
 */
#ifndef SL_P2P_H
#define SL_P2P_H

#include "crypto/bls.h"
#include "crypto/staking.h"
#include "util/common.h"
#include "util/err.h"

#define SL_P2P_MSG_MAX (2u * 1024 * 1024) /* avalanchego's constants.DefaultMaxMessageSize */
#define SL_P2P_HANDLER_ACP118 2		  /* p2p.SignatureRequestHandlerID */
#define SL_P2P_WARP_MSG_MAX (256u * 1024) /* cap on a requested message / justification (each) */
#define SL_P2P_TARGETS_MAX 4096		  /* cap on targets per sl_p2p_sign_requests call */
#define SL_P2P_HOST_MAX 64		  /* an IPv4 or IPv6 literal, no names */

/* Who we are on the network: our staking identity and BLS key (for the signed IP). */
typedef struct sl_p2p_identity {
	sl_staking_key key;		   /* P-256 staking key */
	uint8_t cert[SL_STAKING_CERT_MAX]; /* its self-signed certificate, DER */
	size_t cert_len;
	uint8_t node_id[20]; /* ripemd160(sha256(cert)) */
	sl_bls_sk bls;	     /* signs the IP we claim (proof-of-possession DST) */
} sl_p2p_identity;

/*
 * An identity from 32 seed bytes (deterministic: the devnet's validators) or,
 * with seed NULL, from fresh random bytes (the aggregator's own identity).
 */
SL_MUST_USE sl_err sl_p2p_identity_make(sl_p2p_identity *id, const uint8_t seed[32]);

typedef struct sl_p2p_config {
	const sl_p2p_identity *identity; /* copied */
	uint32_t network_id;		 /* 1 mainnet, 5 fuji, 12345 local, the devnet's id */
	/* The IP we claim in our handshake ("127.0.0.1" when NULL) and its port (0: we claim 1, as
	 * avalanchego refuses a handshake with port 0). */
	const char *claimed_host;
	uint16_t claimed_port;
	int connect_timeout_ms; /* TCP + TLS + handshake per peer; 0: 2000 */
	size_t max_conns;	/* pooled connections kept; 0: 1024 (the least recently used go) */
} sl_p2p_config;

typedef struct sl_p2p_pool sl_p2p_pool;

/* NULL on allocation failure or a bad config (logged). */
sl_p2p_pool *sl_p2p_pool_new(const sl_p2p_config *cfg);
/*
 * Waits for connections a stopped call left being made (each within the connect timeout), then
 * closes every pooled connection; no call may be running. NULL is fine.
 */
void sl_p2p_pool_free(sl_p2p_pool *pool);

/* One validator to ask: the NodeID it must present (the TLS certificate is checked against it). */
typedef struct sl_p2p_target {
	uint8_t node_id[20];
	char host[SL_P2P_HOST_MAX]; /* IPv4 or IPv6 literal, NUL-terminated */
	uint16_t port;
} sl_p2p_target;

/* One answer. */
typedef struct sl_p2p_answer {
	size_t index;		/* into the targets array */
	const uint8_t *node_id; /* targets[index].node_id */
	/*
	 * SL_OK: signature holds the 96 bytes the validator sent (NOT verified:
	 * the caller knows the key). Otherwise why none came:
	 *   SL_ERR_UNAVAILABLE  connect/TLS/handshake failed, or the link closed
	 *   SL_ERR_CHECKSUM     the peer's certificate is not target's node id
	 *   SL_ERR_TIMEOUT      no answer before the deadline
	 *   SL_ERR_CONFLICT     an AppError (app_error_code, app_error_message)
	 *   SL_ERR_INVALID      an answer that does not parse, or not 96 bytes
	 */
	sl_err err;
	uint8_t signature[SL_BLS_SIG_LEN];
	int32_t app_error_code;	       /* with SL_ERR_CONFLICT */
	const char *app_error_message; /* with SL_ERR_CONFLICT; valid during the callback only */
	uint32_t elapsed_ms;	       /* from the call's start to this answer */
} sl_p2p_answer;

/*
 * Called once per target that answers or fails before the call returns,
 * serialized (never two at once) but from the pool's worker threads. Return
 * true to go on, false to stop: no more requests are started, outstanding
 * ones are not awaited, and sl_p2p_sign_requests returns soon after. Their
 * links stay open: each goes back to the pool owing its answer, which the
 * next use of that link reads (and drops) first; a link still being made
 * is finished after the call has returned and pooled too.
 */
typedef bool (*sl_p2p_answer_fn)(void *ctx, const sl_p2p_answer *answer);

typedef struct sl_p2p_sign_request {
	uint32_t network_id;	/* of the warp message (informational; the pool's own is used on the wire) */
	uint8_t chain_id[32];	/* the AppRequest's chain: the message's source chain */
	const uint8_t *message; /* the unsigned warp message bytes */
	size_t message_len;
	const uint8_t *justification; /* may be NULL with justification_len 0 */
	size_t justification_len;
	int deadline_ms; /* for the whole call, connects included; <= 0: 5000 */
	size_t parallel; /* at most this many targets in flight; 0: 64 */
} sl_p2p_sign_request;

/*
 * Ask every target for its signature of req->message, concurrently, reusing
 * pooled connections (one is made, with TLS and handshake, where none is
 * open, or the answer a pooled one still owes is awaited first). Blocks
 * until every target has answered or failed, the deadline has passed (the
 * rest are reported with SL_ERR_TIMEOUT), or cb returned false (the rest are
 * not reported, and connections being made are not waited for). targets is
 * read during the call only. Returns SL_OK, or SL_ERR_INVALID /
 * SL_ERR_TOO_LARGE for a bad request (nothing sent, cb never called),
 * SL_ERR_NOMEM / SL_ERR_IO when the call cannot be set up.
 */
SL_MUST_USE sl_err sl_p2p_sign_requests(sl_p2p_pool *pool, const sl_p2p_target *targets, size_t n,
					const sl_p2p_sign_request *req, sl_p2p_answer_fn cb, void *ctx);

/* ---- server: what the devnet's validators run */

/* How a listener behaves (for tests of the aggregation's quorum logic). */
typedef enum sl_p2p_policy {
	SL_P2P_HONEST = 0, /* answer with what the sign callback makes */
	SL_P2P_ABSENT,	   /* not listening at all: connections are refused */
	SL_P2P_SILENT,	   /* handshake, then never answer an AppRequest */
	SL_P2P_SLOW,	   /* answer after slow_ms */
	SL_P2P_WRONG,	   /* answer with a signature of other bytes (it will not verify) */
	SL_P2P_PING, /* before each answer send a Ping and wait for its Pong (the link closes without) */
} sl_p2p_policy;

/*
 * The sign callback: the validator `index` is asked to sign msg (an
 * unsigned warp message, not yet parsed) for chain_id with justification.
 * Return SL_OK and fill sig (96 bytes), or an error and fill *code (an
 * AppError code; -1 when left alone) and msg_out (a NUL-terminated reason,
 * at most 255 bytes). Called from the server's threads, possibly for several
 * validators at once.
 */
typedef sl_err (*sl_p2p_sign_fn)(void *ctx, size_t index, const uint8_t chain_id[32], const uint8_t *msg,
				 size_t msg_len, const uint8_t *justification, size_t justification_len,
				 uint8_t sig[SL_BLS_SIG_LEN], int32_t *code, char msg_out[256]);

typedef struct sl_p2p_listener {
	sl_p2p_identity identity;
	const char *host; /* "127.0.0.1" when NULL */
	uint16_t port;	  /* 0: any free port (read it back with sl_p2p_server_port) */
	sl_p2p_policy policy;
	int slow_ms; /* with SL_P2P_SLOW */
} sl_p2p_listener;

typedef struct sl_p2p_server_config {
	uint32_t network_id;
	const sl_p2p_listener *listeners; /* copied */
	size_t n;
	sl_p2p_sign_fn sign;
	void *ctx;
} sl_p2p_server_config;

typedef struct sl_p2p_server sl_p2p_server;

/* Binds every listener and starts serving (an absent one's port is bound, not listening, so that a
 * connect is refused and the port stays its own); NULL with *err set on failure. */
sl_p2p_server *sl_p2p_server_start(const sl_p2p_server_config *cfg, sl_err *err);
/* The port of listener i, listening or held (absent). */
uint16_t sl_p2p_server_port(const sl_p2p_server *s, size_t i);
/* Change listener i's policy at run time (ABSENT stops listening but holds the port; leaving it
 * listens there again). */
SL_MUST_USE sl_err sl_p2p_server_set_policy(sl_p2p_server *s, size_t i, sl_p2p_policy policy, int slow_ms);
/* TCP connections accepted since start, over every listener (a client reusing its links opens none). */
uint64_t sl_p2p_server_accepted(sl_p2p_server *s);
/* Stops the threads, closes every socket. NULL is fine. */
void sl_p2p_server_stop(sl_p2p_server *s);

#endif
