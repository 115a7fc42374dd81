/*
 * warp.h — Avalanche Warp (ICM) messages, their payloads, and the L1
 * validator messages the P-chain signs and reads.
 *
 * All use the avalanchego codec: big-endian, no padding, `bytes` = u32
 * length + bytes, a list = u32 count + elements, and each top-level value
 * starts with codec version 00 00.
 *
 * Unsigned message (what validators sign; its id is sha256 of these bytes):
 *   00 00 | networkID u32 | sourceChainID [32] | payload bytes
 * Signed message: the unsigned message, then the signature interface:
 *   | type u32 (0 = BitSetSignature) | signers bytes | signature [96]
 *
 *   signers: a big-endian integer used as a bit set; bit i (value 2^i)
 *   means canonical validator i signed. Canonical validators are the
 *   source subnet's BLS validators at the chosen P-chain height, merged by
 *   public key and sorted by uncompressed key. avalanchego refuses a
 *   non-minimal set (leading zero byte) when verifying, not when parsing.
 *   signature: BLS12-381 aggregate (G2, compressed) over the unsigned bytes.
 *
 * Payloads (the unsigned message's `payload`):
 *   Hash(0)          00 00 | 00000000 | hash [32]
 *   AddressedCall(1) 00 00 | 00000001 | sourceAddress bytes | payload bytes
 *
 * L1 validator messages (an AddressedCall's payload; the P-chain sends
 * them from sourceChainID = all zero with an empty sourceAddress):
 *   SubnetToL1Conversion(0)    00 00 | 0 | conversionID [32]
 *   RegisterL1Validator(1)     00 00 | 1 | subnetID [32] | nodeID bytes | blsPublicKey [48]
 *                              | expiry u64 | remainingBalanceOwner | disableOwner | weight u64
 *   L1ValidatorRegistration(2) 00 00 | 2 | validationID [32] | registered bool
 *   L1ValidatorWeight(3)       00 00 | 3 | validationID [32] | nonce u64 | weight u64
 *   owner (PChainOwner)        threshold u32 | addresses list<[20]>
 *
 * SubnetToL1ConversionData (never sent; hashed into the conversionID):
 *   00 00 | subnetID [32] | managerChainID [32] | managerAddress bytes
 *   | validators list<nodeID bytes | blsPublicKey [48] | weight u64>
 *
 * Ids:
 *   unsigned message id = sha256(unsigned bytes)
 *   conversionID        = sha256(SubnetToL1ConversionData bytes)
 *   validationID        = sha256(RegisterL1Validator bytes) for validators
 *                         registered later; sha256(subnetID || u32 index)
 *                         for the validators of the conversion itself.
 *
 * Lifetime: decoded values are views into the input (and, for conversion
 * data, an array in the caller's arena); both must outlive them.
 */
#ifndef SL_CODEC_WARP_H
#define SL_CODEC_WARP_H

#include "util/arena.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/err.h"

#define SL_WARP_BLS_PK_LEN 48
#define SL_WARP_BLS_SIG_LEN 96

typedef struct sl_warp_unsigned {
	sl_span bytes;	/* the whole unsigned message */
	uint8_t id[32]; /* sha256(bytes) */
	uint32_t network_id;
	sl_span source_chain_id; /* 32 bytes */
	sl_span payload;
} sl_warp_unsigned;

typedef struct sl_warp_message {
	sl_span bytes;	      /* the whole signed message */
	sl_warp_unsigned msg; /* msg.bytes is the prefix of bytes */
	uint32_t sig_type;    /* 0: BitSetSignature (the only one) */
	sl_span signers;      /* bit set, big-endian */
	sl_span signature;    /* 96 bytes */
} sl_warp_message;

typedef enum sl_warp_payload_type {
	SL_WARP_PAYLOAD_HASH = 0,
	SL_WARP_PAYLOAD_ADDRESSED_CALL = 1,
} sl_warp_payload_type;

typedef struct sl_warp_payload {
	sl_span bytes;
	sl_warp_payload_type type;
	sl_span hash;		/* Hash: 32 bytes */
	sl_span source_address; /* AddressedCall */
	sl_span payload;	/* AddressedCall */
} sl_warp_payload;

typedef enum sl_warp_l1_type {
	SL_WARP_L1_SUBNET_CONVERSION = 0,
	SL_WARP_L1_REGISTER_VALIDATOR = 1,
	SL_WARP_L1_VALIDATOR_REGISTRATION = 2,
	SL_WARP_L1_VALIDATOR_WEIGHT = 3,
} sl_warp_l1_type;

typedef struct sl_warp_owner {
	uint32_t threshold;
	uint32_t naddrs;
	sl_span addrs; /* naddrs * 20 bytes, back to back */
} sl_warp_owner;

typedef struct sl_warp_l1_msg {
	sl_span bytes;
	sl_warp_l1_type type;
	uint8_t id[32];		/* sha256(bytes); the validationID of a RegisterL1Validator */
	sl_span conversion_id;	/* SubnetToL1Conversion */
	sl_span subnet_id;	/* RegisterL1Validator */
	sl_span node_id;	/*   (20 bytes when valid; carried as bytes) */
	sl_span bls_public_key; /*   48 bytes */
	uint64_t expiry;	/*   unix seconds */
	sl_warp_owner remaining_balance_owner, disable_owner;
	uint64_t weight;       /* RegisterL1Validator, L1ValidatorWeight */
	sl_span validation_id; /* L1ValidatorRegistration, L1ValidatorWeight */
	bool registered;       /* L1ValidatorRegistration */
	uint64_t nonce;	       /* L1ValidatorWeight */
} sl_warp_l1_msg;

typedef struct sl_warp_conversion_validator {
	sl_span node_id;
	sl_span bls_public_key; /* 48 bytes */
	uint64_t weight;
} sl_warp_conversion_validator;

typedef struct sl_warp_conversion {
	sl_span bytes;
	uint8_t id[32]; /* conversionID */
	sl_span subnet_id, manager_chain_id, manager_address;
	uint32_t nvalidators;
	sl_warp_conversion_validator *validators;
} sl_warp_conversion;

/* Each decoder needs the value to fill p[0..len) exactly; `detail` may be NULL. */
SL_MUST_USE sl_err sl_warp_unsigned_decode(const uint8_t *p, size_t len, sl_warp_unsigned *out,
					   sl_err_detail *detail);
SL_MUST_USE sl_err sl_warp_message_decode(const uint8_t *p, size_t len, sl_warp_message *out,
					  sl_err_detail *detail);
SL_MUST_USE sl_err sl_warp_payload_decode(const uint8_t *p, size_t len, sl_warp_payload *out,
					  sl_err_detail *detail);
SL_MUST_USE sl_err sl_warp_l1_decode(const uint8_t *p, size_t len, sl_warp_l1_msg *out,
				     sl_err_detail *detail);
SL_MUST_USE sl_err sl_warp_conversion_decode(const uint8_t *p, size_t len, sl_arena *a,
					     sl_warp_conversion *out, sl_err_detail *detail);

/* Encoders write the fields (not `bytes`/`id`) and return out->err. */
SL_MUST_USE sl_err sl_warp_unsigned_encode(const sl_warp_unsigned *m, sl_buf *out);
SL_MUST_USE sl_err sl_warp_message_encode(const sl_warp_message *m, sl_buf *out);
SL_MUST_USE sl_err sl_warp_payload_encode(const sl_warp_payload *p, sl_buf *out);
SL_MUST_USE sl_err sl_warp_l1_encode(const sl_warp_l1_msg *m, sl_buf *out);
SL_MUST_USE sl_err sl_warp_conversion_encode(const sl_warp_conversion *c, sl_buf *out);

const char *sl_warp_payload_type_name(sl_warp_payload_type t); /* "Hash", "AddressedCall" */
const char *sl_warp_l1_type_name(sl_warp_l1_type t);	       /* "RegisterL1Validator", ... */

/* validationID of the index-th validator of a ConvertSubnetToL1Tx: sha256(subnetID || u32be(index)). */
void sl_warp_conversion_validation_id(const uint8_t subnet_id[32], uint32_t index, uint8_t out[32]);

/* Bit set helpers: is bit i set; how many bits; minimal (no leading zero byte). */
bool sl_warp_signers_has(sl_span signers, size_t i);
size_t sl_warp_signers_count(sl_span signers);
bool sl_warp_signers_minimal(sl_span signers);

#endif
