/*
 * secp.h — secp256k1 public-key recovery (and signing, for tests and the
 * devnet generator), on libsecp256k1.
 *
 * Signatures here are 65 bytes `r(32) || s(32) || recid(1)` with recid 0
 * or 1: Avalanche's wire form, and Ethereum's once v is reduced to its
 * y parity. The message is always a 32-byte hash; hashing is the caller's.
 *
 * Conventions follow libsecp256k1's: outputs come after inputs, the result
 * is true on success, and outputs are zeroed on failure.
 *
 * Threads: one context, created on first use under pthread_once and never
 * changed after; every function here may be called from any thread.
 */
#ifndef SL_SECP_H
#define SL_SECP_H

#include "util/common.h"

/* The 33-byte compressed public key that signed hash32. */
SL_MUST_USE bool sl_secp_recover_pubkey(const uint8_t hash32[32], const uint8_t sig65[65], uint8_t pub33[33]);

/* The Ethereum address (keccak256(uncompressed key)[12:]) that signed hash32. */
SL_MUST_USE bool sl_secp_recover_address(const uint8_t hash32[32], const uint8_t sig65[65],
					 uint8_t out20[20]);

/* The same with r and s as big-endian integers of at most 32 bytes (leading zeros allowed). */
SL_MUST_USE bool sl_secp_recover_address_rs(const uint8_t hash32[32], const uint8_t *r, size_t rlen,
					    const uint8_t *s, size_t slen, uint8_t recid, uint8_t out20[20]);

/* The Avalanche short address of a key, ripemd160(sha256(pub33)), that signed hash32. */
SL_MUST_USE bool sl_secp_recover_short_id(const uint8_t hash32[32], const uint8_t sig65[65],
					  uint8_t out20[20]);

/* Sign hash32 with a 32-byte secret key (RFC 6979 nonces): r || s (low s) || recid. */
SL_MUST_USE bool sl_secp_sign(const uint8_t seckey[32], const uint8_t hash32[32], uint8_t sig65[65]);

/* Public keys of a secret key. */
SL_MUST_USE bool sl_secp_pubkey(const uint8_t seckey[32], uint8_t pub33[33]);
SL_MUST_USE bool sl_secp_address(const uint8_t seckey[32], uint8_t out20[20]);

#endif
