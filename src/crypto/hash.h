/*
 * hash.h — the hash functions of the Avalanche formats.
 *
 * sha256 and ripemd160 come from OpenSSL's libcrypto; keccak256 (Ethereum's,
 * with the original 0x01 padding, not SHA3's 0x06) is written here because
 * libcrypto 3.0 does not expose it. All outputs are written to caller arrays.
 */
#ifndef SL_HASH_H
#define SL_HASH_H

#include "util/common.h"

void sl_sha256(const void *p, size_t n, uint8_t out[32]);
void sl_ripemd160(const void *p, size_t n, uint8_t out[20]);
void sl_keccak256(const void *p, size_t n, uint8_t out[32]);

/* Avalanche's short id of a public key: ripemd160(sha256(pub)). */
void sl_hash160(const void *p, size_t n, uint8_t out[20]);

/* The 4-byte checksum of cb58 and of the index API's hex: last 4 bytes of sha256. */
void sl_checksum4(const void *p, size_t n, uint8_t out[4]);

#endif
