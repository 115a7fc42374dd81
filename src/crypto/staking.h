/*
 * staking.h — avalanchego staking identities on ECDSA P-256: the key, the
 * self-signed X.509 certificate a node presents, its NodeID, and the
 * signature a proposer puts on a proposervm block.
 *
 * Facts (ava-labs/avalanchego, staking/ and vms/proposervm/block/):
 *   - staking.ParseCertificate accepts RSA (2048 or 4096 bits, e 65537) and
 *     ECDSA keys, reading an ECDSA key as an uncompressed P-256 point; the
 *     certificate is at most 2 KiB and its own signature is not checked;
 *   - NodeID = ripemd160(sha256(certificate DER));
 *   - staking.CheckSignature(cert, msg, sig) hashes msg with sha256 and, for
 *     ECDSA, checks `sig` as an ASN.1 DER ECDSA-Sig-Value over that digest.
 *
 * Everything here is deterministic, which the devnet needs (same seed, same
 * bytes): the key comes from 32 seed bytes, the certificate has fixed
 * fields, and signatures take their nonce from RFC 6979 (HMAC-SHA256)
 * instead of OpenSSL's random one. Not hardened against side channels: it
 * signs generated test networks, not real stake.
 *
 * Threads: one read-only curve object made on first use; every function may
 * be called from any thread.
 */
#ifndef SL_CRYPTO_STAKING_H
#define SL_CRYPTO_STAKING_H

#include "util/common.h"
#include "util/err.h"

#define SL_STAKING_SIG_MAX 72	/* DER ECDSA-Sig-Value of two 256-bit integers, at most */
#define SL_STAKING_CERT_MAX 512 /* what sl_staking_cert writes fits in this */

typedef struct sl_staking_key {
	uint8_t d[32];	 /* secret scalar, big-endian, 1 <= d < n */
	uint8_t pub[65]; /* uncompressed point 04 | X | Y */
} sl_staking_key;

/* The key of 32 seed bytes: d = 1 + (seed mod (n - 1)), so every seed gives a valid key. */
SL_MUST_USE sl_err sl_staking_key_from_seed(sl_staking_key *k, const uint8_t seed[32]);

/*
 * A self-signed X.509 v3 certificate (DER) for k: serial from `serial`
 * (8 bytes, made positive), issuer = subject = CN=<cn>, valid from
 * 2000-01-01 to 9999-12-31 (RFC 5280's "no expiry"), ecdsa-with-SHA256,
 * no extensions. out needs SL_STAKING_CERT_MAX bytes; cn at most 64 bytes.
 */
SL_MUST_USE sl_err sl_staking_cert(const sl_staking_key *k, const uint8_t serial[8], const char *cn,
				   uint8_t out[SL_STAKING_CERT_MAX], size_t *len);

/* NodeID of a certificate: ripemd160(sha256(der)). */
void sl_staking_node_id(const uint8_t *cert, size_t len, uint8_t out[20]);

/* ECDSA over digest (already hashed), RFC 6979 nonce: r and s as 32-byte big-endian integers. */
SL_MUST_USE sl_err sl_staking_sign_digest(const sl_staking_key *k, const uint8_t digest[32], uint8_t r[32],
					  uint8_t s[32]);

/* What CheckSignature accepts: ECDSA over sha256(msg), DER encoded into out; *len its length. */
SL_MUST_USE sl_err sl_staking_sign(const sl_staking_key *k, const void *msg, size_t n,
				   uint8_t out[SL_STAKING_SIG_MAX], size_t *len);

/*
 * Verify as staking.CheckSignature does, with OpenSSL's own X.509 parser and
 * EVP verification (sha256; ECDSA or RSA PKCS#1 v1.5): SL_OK when sig is a
 * signature of msg by the certificate's key, SL_ERR_INVALID when the
 * certificate does not parse, SL_ERR_CHECKSUM when the signature fails.
 */
SL_MUST_USE sl_err sl_staking_verify(const uint8_t *cert, size_t cert_len, const void *msg, size_t n,
				     const uint8_t *sig, size_t sig_len);

/*
 * Parse a certificate with OpenSSL and check its self-signature; pub65 (may
 * be NULL) gets its P-256 public key. SL_ERR_UNSUPPORTED for a key that is
 * not P-256.
 */
SL_MUST_USE sl_err sl_staking_cert_check(const uint8_t *cert, size_t len, uint8_t pub65[65]);

#endif
