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
#include "util/err.h"

void sl_sha256(const void *p, size_t n, uint8_t out[32]);
/* sha256 of data given in pieces: init (false when out of memory), update…, final (frees it). */
typedef struct sl_sha256_ctx {
	void *md;
} sl_sha256_ctx;
bool sl_sha256_init(sl_sha256_ctx *c);
void sl_sha256_update(sl_sha256_ctx *c, const void *p, size_t n);
void sl_sha256_final(sl_sha256_ctx *c, uint8_t out[32]);
void sl_ripemd160(const void *p, size_t n, uint8_t out[20]);
void sl_keccak256(const void *p, size_t n, uint8_t out[32]);

/* Avalanche's short id of a public key: ripemd160(sha256(pub)). */
void sl_hash160(const void *p, size_t n, uint8_t out[20]);

/* HMAC-SHA256 (RFC 2104) of msg under key. */
void sl_hmac_sha256(const void *key, size_t klen, const void *msg, size_t mlen, uint8_t out[32]);
/* Compare n bytes in time that does not depend on where they differ (for MACs). */
bool sl_equal_ct(const void *a, const void *b, size_t n);

/* The 4-byte checksum of cb58 and of the index API's hex: last 4 bytes of sha256. */
void sl_checksum4(const void *p, size_t n, uint8_t out[4]);

/*
 * Decode "0x" + hex(payload ‖ checksum) and verify the checksum. On failure
 * *msg is avalanchego's text ("missing 0x prefix to hex encoding",
 * "input string is smaller than the checksum size", "invalid input checksum",
 * "invalid hex").
 */
SL_MUST_USE sl_err sl_hex_checksum_decode(const char *s, size_t n, uint8_t *out, size_t cap, size_t *outlen,
					  const char **msg);

#endif
