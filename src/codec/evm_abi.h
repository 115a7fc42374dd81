/*
 * evm_abi.h — what the EVM indexer decodes from logs and eth_call answers
 * (Solidity's ABI encoding): token transfers (ERC-20/721 Transfer,
 * ERC-1155 TransferSingle and TransferBatch), the ICM messenger's events
 * (TeleporterMessenger's SendCrossChainMessage, ReceiveCrossChainMessage,
 * MessageExecuted, MessageExecutionFailed, ReceiptReceived, AddFeeAmount)
 * and a token's name(), symbol() and decimals().
 *
 * Every function reads only inside the bytes it is given and bounds every
 * count by the data's length and SL_EVM_MAX_ICM_ITEMS; pointers it returns
 * point into the caller's data. docs/evm.md lists the events and topics.
 */
#ifndef SL_CODEC_EVM_ABI_H
#define SL_CODEC_EVM_ABI_H

#include "util/common.h"
#include "util/err.h"

extern const uint8_t sl_evm_topic_transfer[32]; /* Transfer(address,address,uint256) */
extern const uint8_t
	sl_evm_topic_transfer_single[32]; /* TransferSingle(address,address,address,uint256,uint256) */
extern const uint8_t
	sl_evm_topic_transfer_batch[32]; /* TransferBatch(address,address,address,uint256[],uint256[]) */
extern const uint8_t sl_icm_topic_send[32];
extern const uint8_t sl_icm_topic_receive[32];
extern const uint8_t sl_icm_topic_executed[32];
extern const uint8_t sl_icm_topic_failed[32];
extern const uint8_t sl_icm_topic_receipt[32];
extern const uint8_t sl_icm_topic_add_fee[32];

/* One token movement: std 20, 721 or 1155; token_id unset (has_id false) for ERC-20; value 1 for ERC-721. */
typedef struct sl_evm_transfer {
	uint16_t std;
	uint8_t from[20], to[20];
	bool has_id;
	uint8_t token_id[32];
	uint8_t value[32];
} sl_evm_transfer;

/* Called for each item of a transfer log, sub counting from 0 (only a TransferBatch has more than one). */
typedef sl_err (*sl_evm_transfer_fn)(void *ctx, uint32_t sub, const sl_evm_transfer *t);

/*
 * The transfers of one log (topics: ntopics × 32 bytes). SL_ERR_NOT_FOUND: not a transfer event
 * (another topic0, or a Transfer whose topics or data have another shape, or address topics
 * with high bytes set); otherwise what fn returned (SL_OK when every item was given).
 */
SL_MUST_USE sl_err sl_evm_log_transfers(const uint8_t *topics, size_t ntopics, const uint8_t *data,
					size_t len, sl_evm_transfer_fn fn, void *ctx);

/* A TeleporterMessage: the fixed fields, and the arrays as ABI words in the log's data. */
typedef struct sl_icm_message {
	uint8_t nonce[32];
	uint8_t origin[20];	    /* originSenderAddress */
	uint8_t dst_blockchain[32]; /* destinationBlockchainID */
	uint8_t dst_addr[20];	    /* destinationAddress */
	uint8_t gas_limit[32];	    /* requiredGasLimit */
	const uint8_t *relayers;    /* nrelayers × 32-byte words (the address in the last 20) */
	uint32_t nrelayers;
	const uint8_t *receipts; /* nreceipts × 64 bytes: receivedMessageNonce, relayerRewardAddress (a word) */
	uint32_t nreceipts;
	const uint8_t *payload; /* message */
	size_t payload_len;
} sl_icm_message;

typedef enum sl_icm_kind {
	SL_ICM_NONE,	 /* not one of the events below */
	SL_ICM_SEND,	 /* SendCrossChainMessage: chain = destination; msg; fee */
	SL_ICM_RECEIVE,	 /* ReceiveCrossChainMessage: chain = source; addr = deliverer; redeemer; msg */
	SL_ICM_EXECUTED, /* MessageExecuted: chain = source */
	SL_ICM_FAILED,	 /* MessageExecutionFailed: chain = source; msg */
	SL_ICM_RECEIPT,	 /* ReceiptReceived: chain = destination; addr = relayer reward address; fee */
	SL_ICM_ADD_FEE,	 /* AddFeeAmount: fee = the new total */
} sl_icm_kind;

typedef struct sl_icm_event {
	sl_icm_kind kind;
	uint8_t id[32];	   /* messageID */
	uint8_t chain[32]; /* the other chain's blockchain id (see the kinds) */
	uint8_t addr[20];
	uint8_t redeemer[20];
	uint8_t fee_token[20];
	uint8_t fee_amount[32];
	bool has_msg;
	sl_icm_message msg;
} sl_icm_event;

/* Decode one log of the messenger. kind NONE (and SL_OK) for other topics; SL_ERR_INVALID for a known
 * topic whose topics or data do not have the event's shape. */
SL_MUST_USE sl_err sl_icm_decode(const uint8_t *topics, size_t ntopics, const uint8_t *data, size_t len,
				 sl_icm_event *ev);

/* keccak256(abi.encode(messenger, sourceBlockchainID, destinationBlockchainID, messageNonce)). */
void sl_icm_message_id(const uint8_t messenger[20], const uint8_t src[32], const uint8_t dst[32],
		       const uint8_t nonce[32], uint8_t out[32]);

/*
 * An eth_call answer of name() or symbol(): an ABI string (or, as some old tokens answer, a
 * bytes32 padded with zeros) into out (cap bytes, NUL-terminated). False when it is neither, is
 * longer than cap - 1, or is not valid UTF-8 free of control characters.
 */
bool sl_evm_abi_string(const uint8_t *p, size_t n, char *out, size_t cap);
/* An eth_call answer of decimals(): a uint256 word below 256. */
bool sl_evm_abi_uint8(const uint8_t *p, size_t n, unsigned *out);

#endif
