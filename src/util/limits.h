/*
 * limits.h — every hard cap in snowline, in one place.
 *
 * A length or count that arrives from outside is checked against one of
 * these before it costs memory or time. Configurable limits take their
 * defaults from here; nothing may raise them past the HARD values.
 */
#ifndef SL_LIMITS_H
#define SL_LIMITS_H

/* HTTP server (docs/http.md) */
#define SL_HTTP_MAX_BODY_DEFAULT (1u << 20) /* request body, bytes (--http-max-body) */
#define SL_HTTP_MAX_BODY_HARD (64u << 20)
#define SL_HTTP_MAX_HEADER_BYTES (32u << 10) /* request line + headers of one request → 431 */
#define SL_HTTP_MAX_HEADER_FIELDS 100	     /* header lines of one request → 431 (Apache's default) */
#define SL_HTTP_MAX_CHUNK_LINE 4096	     /* a chunk-size line with its extensions → 400 */
#define SL_HTTP_MAX_CONNECTIONS 4096	  /* open at once (--http-max-connections); then the idlest closes */
#define SL_HTTP_FD_RESERVE 256		  /* descriptors kept for everything else (store, logs, plugins) */
#define SL_HTTP_MAX_RESPONSE (256u << 20) /* a response body that grows past this fails */
#define SL_HTTP_MAX_RESPONSE_HEAD (64u << 10) /* status line + headers of one response */
#define SL_HTTP_MAX_ARENA (4u << 20)	      /* per-request arena */
#define SL_HTTP_MAX_PATH 8192		      /* request target (path and query) → 414 */
/*
 * Deadlines, all absolute (a byte a second does not extend them), in ms:
 *  - header: the request line and headers, from the request's first byte (from accept for a
 *    connection's first request). A real client sends its head in one packet; 10 s leaves room
 *    for a slow mobile link and holds a slowloris connection a third as long as the other phases.
 *  - body: the body, from the end of the headers. 30 s is avalanchego's --http-read-timeout and
 *    moves a 1 MiB body at 35 KB/s.
 *  - idle: a kept-alive connection with no request. 30 s, shorter than avalanchego's 120 s:
 *    an idle connection holds a slot of the cap, and a client reconnects in one round trip.
 *  - write: a response, from its first byte; the client must read it by then. 30 s is
 *    avalanchego's --http-write-timeout; a 256 MiB answer needs a client at 9 MB/s.
 *  - linger: after an error that closes the connection (413, 431, ...), what the client still
 *    sends is read and dropped this long, so the kernel does not answer it with a reset that
 *    would destroy the error response before the client has read it.
 */
#define SL_HTTP_HEADER_TIMEOUT_MS 10000
#define SL_HTTP_BODY_TIMEOUT_MS 30000
#define SL_HTTP_IDLE_TIMEOUT_MS 30000
#define SL_HTTP_WRITE_TIMEOUT_MS 30000
#define SL_HTTP_LINGER_MS 2000
#define SL_HTTP_MAX_TIMEOUT_MS (24u * 3600 * 1000) /* any configured deadline */
#define SL_HTTP_DRAIN_SECONDS 10    /* graceful shutdown: wait this long for requests in flight */
#define SL_HTTP_DRAIN_FRESH_MS 1000 /* ... and this long for a connection accepted before it to begin one */

/* admin.memoryProfile: how long the heap profiler records (admin.c explains why a window) */
#define SL_HEAP_PROFILE_WINDOW_MS 2000

/* JSON */
#define SL_JSON_MAX_DEPTH 10000 /* Go's encoding/json nesting limit */

/* Node */
#define SL_INDEX_MAX_RANGE 1024	    /* numToFetch upper bound (spec 001 §4.2) */
#define SL_ALIAS_MAX_LEN 512	    /* admin.alias (spec 001 §8) */
#define SL_MAX_ALIASES 4096	    /* endpoint + chain aliases in total */
#define SL_MAX_CONTAINER (2u << 20) /* one container's bytes: p2p max message size */
#define SL_IMPORT_MAX_RECORD (SL_MAX_CONTAINER + 256)
#define SL_MAX_PLUGINS 256
#define SL_MAX_LOGGERS 64

/* Codec (wire-formats.md §2) */
#define SL_CODEC_MAX_SIZE (2u << 20)  /* max message size the codec accepts */
#define SL_CODEC_MAX_STRING 0xffffu   /* uint16-prefixed strings */
#define SL_CODEC_MAX_SLICE (1u << 20) /* element count of any array */

/* C-chain (coreth RLP) */
#define SL_RLP_MAX_DEPTH 16	/* RLP list nesting; our formats need 4 */
#define SL_CORETH_MAX_TXS 65536 /* txs in one block (a 15M-gas block holds < 800) */
#define SL_CORETH_MAX_UNCLES 16 /* coreth requires none; decode a few anyway */
#define SL_EVM_MAX_LIST 65536	/* access-list entries, storage keys, blob hashes, authorizations */

/* EVM JSON-RPC (index/evm.c, index/evm_rpc.c): what one chain's node may send us */
#define SL_EVM_MAX_RESPONSE (128u << 20)   /* one JSON-RPC answer (a block with its receipts or traces) */
#define SL_EVM_MAX_TXS SL_CORETH_MAX_TXS   /* txs in one block */
#define SL_EVM_MAX_LOGS (1u << 18)	   /* logs in one block */
#define SL_EVM_MAX_FRAMES (1u << 18)	   /* call frames in one block's traces */
#define SL_EVM_MAX_TRACE_DEPTH 1100	   /* call frame nesting (the EVM's own limit is 1024) */
#define SL_EVM_MAX_BYTES SL_CODEC_MAX_SIZE /* a tx's input, a log's data, an eth_call answer */
#define SL_EVM_MAX_TOPICS 4		   /* topics of one log (LOG0..LOG4) */
#define SL_EVM_MAX_TOKEN_STRING 256	   /* a token's name or symbol as stored */
#define SL_EVM_MAX_ICM_ITEMS 1024	   /* allowed relayers or receipts of one ICM message */
#define SL_EVM_MAX_CHAINS 64		   /* --evm-chain entries */

/* The node's C-chain eth JSON-RPC (node/evmrpc.c) */
#define SL_EVM_RPC_MAX_BATCH 1000		  /* calls in one batch (coreth's batch-request-limit) */
#define SL_EVM_RPC_MAX_BATCH_RESPONSE (25u << 20) /* then the rest answer -32003 (coreth's) */
#define SL_EVM_MAX_LOG_RANGE 2048		  /* eth_getLogs: blocks from fromBlock to toBlock */
#define SL_EVM_MAX_FILTER_ADDRS 1000		  /* eth_getLogs: addresses, and topics per position */
#define SL_EVM_MAX_ALLOC (1u << 20)		  /* accounts in a genesis allocation */
#define SL_EVM_BLOCK_ARENA (64u << 20)		  /* one decoded block with its txs */

/* Follow */
#define SL_FOLLOW_MAX_RESPONSE (SL_INDEX_MAX_RANGE * (2 * SL_MAX_CONTAINER + 512))

#endif
