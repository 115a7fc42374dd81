/*
 * msg.h — avalanchego's p2p messages as plain C values (the protobuf code
 * protoc-c makes from wire.proto stays inside msg.c), the length-prefixed
 * framing, zstd-compressed messages, and the ACP-118 app bytes.
 *
 * Decoded values point into the decoder's own storage, which lives until
 * sl_p2p_msg_clear(); nothing points into the caller's input.
 */
#ifndef SL_P2P_MSG_H
#define SL_P2P_MSG_H

#include "util/common.h"
#include "util/err.h"

#define SL_P2P_FRAME_HDR 4

typedef enum sl_p2p_op {
	SL_P2P_OP_OTHER = 0, /* a member of Message's oneof snowline does not use, or none */
	SL_P2P_OP_PING,
	SL_P2P_OP_PONG,
	SL_P2P_OP_HANDSHAKE,
	SL_P2P_OP_GET_PEER_LIST,
	SL_P2P_OP_PEER_LIST,
	SL_P2P_OP_APP_REQUEST,
	SL_P2P_OP_APP_RESPONSE,
	SL_P2P_OP_APP_ERROR,
	SL_P2P_OP_APP_GOSSIP,
} sl_p2p_op;

typedef struct sl_p2p_bytes {
	const uint8_t *p;
	size_t n;
} sl_p2p_bytes;

typedef struct sl_p2p_handshake {
	uint32_t network_id;
	uint64_t my_time;     /* unix seconds */
	sl_p2p_bytes ip_addr; /* 4 or 16 bytes */
	uint32_t ip_port;
	uint64_t upgrade_time;
	uint64_t ip_signing_time;
	sl_p2p_bytes ip_node_id_sig; /* ECDSA (DER) by the staking key over the unsigned IP */
	sl_p2p_bytes ip_bls_sig;     /* BLS proof-of-possession signature over the unsigned IP */
	const char *client_name;     /* never NULL once decoded */
	uint32_t major, minor, patch;
	size_t n_tracked_subnets;
	const sl_p2p_bytes *tracked_subnets; /* encode side; decode leaves it NULL (count only) */
	size_t n_supported_acps;
	const uint32_t *supported_acps;
	size_t n_objected_acps;
	const uint32_t *objected_acps;
	bool has_known_peers;
	sl_p2p_bytes known_peers_filter, known_peers_salt;
	bool all_subnets;
} sl_p2p_handshake;

/* AppRequest, AppResponse, AppError and AppGossip share these fields. */
typedef struct sl_p2p_app {
	sl_p2p_bytes chain_id; /* 32 bytes when valid; decode does not check */
	uint32_t request_id;
	uint64_t deadline; /* AppRequest: nanoseconds the sender allows (avalanchego's Duration) */
	sl_p2p_bytes bytes;
	int32_t error_code;	   /* AppError */
	const char *error_message; /* AppError; never NULL once decoded */
} sl_p2p_app;

typedef struct sl_p2p_msg {
	sl_p2p_op op;
	bool was_compressed; /* it came as compressed_zstd */
	uint32_t uptime;     /* Ping */
	sl_p2p_handshake hs;
	size_t n_peers; /* PeerList: how many claimed IPs it held */
	sl_p2p_app app;
	void *pb_;	    /* decoder storage */
	uint8_t *inflated_; /* decoder storage */
} sl_p2p_msg;

/* The length a frame header announces: SL_ERR_TOO_LARGE above SL_P2P_MSG_MAX. */
SL_MUST_USE sl_err sl_p2p_frame_len(const uint8_t hdr[SL_P2P_FRAME_HDR], uint32_t *len);

/*
 * Decode one message body (no header). A compressed_zstd member is inflated
 * (to at most SL_P2P_MSG_MAX bytes) and decoded in its place; a compressed
 * message inside it is SL_ERR_INVALID. SL_ERR_INVALID for bytes that are not
 * a Message. m is cleared first; clear it again when done, success or not.
 */
SL_MUST_USE sl_err sl_p2p_msg_decode(const uint8_t *b, size_t n, sl_p2p_msg *m);
void sl_p2p_msg_clear(sl_p2p_msg *m);

/*
 * Encode m (op PING..APP_GOSSIP; was_compressed asks for zstd) as a frame:
 * the 4-byte big-endian length, then the Message. *out is malloc'd.
 */
SL_MUST_USE sl_err sl_p2p_msg_encode(const sl_p2p_msg *m, uint8_t **out, size_t *len);

/* ---- ACP-118: the app bytes of a signature request and its response */

/* uvarint(SL_P2P_HANDLER_ACP118) | SignatureRequest{message, justification}; *out malloc'd. */
SL_MUST_USE sl_err sl_p2p_sigreq_encode(const uint8_t *msg, size_t msg_len, const uint8_t *just,
					size_t just_len, uint8_t **out, size_t *len);

typedef struct sl_p2p_sigreq {
	uint64_t handler; /* the uvarint prefix */
	sl_p2p_bytes message, justification;
	void *pb_;
} sl_p2p_sigreq;
/* SL_ERR_INVALID for a bad prefix or body; the handler is not checked. Clear r when done. */
SL_MUST_USE sl_err sl_p2p_sigreq_decode(const uint8_t *b, size_t n, sl_p2p_sigreq *r);
void sl_p2p_sigreq_clear(sl_p2p_sigreq *r);

/* SignatureResponse{signature} (no prefix: responses carry none); *out malloc'd. */
SL_MUST_USE sl_err sl_p2p_sigresp_encode(const uint8_t sig[96], uint8_t **out, size_t *len);
/* SL_ERR_INVALID when it does not parse or the signature is not 96 bytes. */
SL_MUST_USE sl_err sl_p2p_sigresp_decode(const uint8_t *b, size_t n, uint8_t sig[96]);

/* Go's binary.Uvarint: bytes read (0 when it does not end within n or overflows). */
size_t sl_p2p_uvarint(const uint8_t *b, size_t n, uint64_t *v);

#endif
