/*
 * bls.h — BLS12-381 signatures as Avalanche uses them (over blst).
 *
 * Scheme: "minimal public key size" with proofs of possession, as in
 * avalanchego's utils/crypto/bls:
 *
 *   secret key   32 bytes, big-endian scalar, 0 < sk < r
 *   public key   48 bytes, compressed G1 point (never the point at infinity)
 *   signature    96 bytes, compressed G2 point
 *   messages     hashed to G2 with one of two domain separation tags:
 *                  SL_BLS_DST_SIG  for signatures (warp messages, ...)
 *                  SL_BLS_DST_POP  for proofs of possession, whose message
 *                                  is the signer's own 48-byte compressed
 *                                  public key
 *
 * Validation happens once, when bytes become a value: sl_bls_pk_decode()
 * rejects non-canonical encodings, points not on the curve, points outside
 * the prime-order subgroup and the point at infinity; sl_bls_sig_decode()
 * rejects the same except infinity, which avalanchego accepts in a signature
 * (it then simply fails to verify). Verification and aggregation take the
 * decoded values and so never see an unchecked point. Aggregation does not
 * protect against rogue keys by itself: aggregate only keys whose proof of
 * possession verified (the P-chain does this when it accepts a key).
 *
 * Values are plain structs the caller owns (no heap, no lifecycle); their
 * contents are blst's affine points and are opaque. Functions that fail
 * clear their outputs. The secret-key functions exist for tests and the
 * devnet generator; nothing here is hardened against side channels beyond
 * what blst itself provides.
 */
#ifndef SL_BLS_H
#define SL_BLS_H

#include "util/common.h"
#include "util/err.h"

#define SL_BLS_SK_LEN 32
#define SL_BLS_PK_LEN 48
#define SL_BLS_PK_RAW_LEN 96 /* uncompressed public key: the warp validator sort key */
#define SL_BLS_SIG_LEN 96

#define SL_BLS_DST_SIG "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"
#define SL_BLS_DST_POP "BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"

typedef struct sl_bls_sk {
	uint8_t b[32]; /* blst_scalar */
} sl_bls_sk;
typedef struct sl_bls_pk {
	uint64_t opaque[12]; /* blst_p1_affine */
} sl_bls_pk;
typedef struct sl_bls_sig {
	uint64_t opaque[24]; /* blst_p2_affine */
} sl_bls_sig;

/* Secret keys: SL_ERR_INVALID for zero or a value >= the group order. */
SL_MUST_USE sl_err sl_bls_sk_decode(sl_bls_sk *sk, const uint8_t in[SL_BLS_SK_LEN]);
void sl_bls_sk_encode(const sl_bls_sk *sk, uint8_t out[SL_BLS_SK_LEN]);
void sl_bls_sk_to_pk(const sl_bls_sk *sk, sl_bls_pk *pk);

/* Public keys: SL_ERR_INVALID for any encoding that is not a valid key (see top). */
SL_MUST_USE sl_err sl_bls_pk_decode(sl_bls_pk *pk, const uint8_t in[SL_BLS_PK_LEN]);
void sl_bls_pk_encode(const sl_bls_pk *pk, uint8_t out[SL_BLS_PK_LEN]);
void sl_bls_pk_encode_raw(const sl_bls_pk *pk, uint8_t out[SL_BLS_PK_RAW_LEN]);
bool sl_bls_pk_eq(const sl_bls_pk *a, const sl_bls_pk *b);

/* Signatures: SL_ERR_INVALID for a bad encoding or a point outside G2. */
SL_MUST_USE sl_err sl_bls_sig_decode(sl_bls_sig *sig, const uint8_t in[SL_BLS_SIG_LEN]);
void sl_bls_sig_encode(const sl_bls_sig *sig, uint8_t out[SL_BLS_SIG_LEN]);

/* Sign / verify msg[0..len) under SL_BLS_DST_SIG. */
void sl_bls_sign(const sl_bls_sk *sk, const uint8_t *msg, size_t len, sl_bls_sig *sig);
SL_MUST_USE bool sl_bls_verify(const sl_bls_pk *pk, const sl_bls_sig *sig, const uint8_t *msg, size_t len);

/* Proof of possession: a signature of the compressed public key under SL_BLS_DST_POP. */
void sl_bls_pop_sign(const sl_bls_sk *sk, sl_bls_sig *pop);
SL_MUST_USE bool sl_bls_pop_verify(const sl_bls_pk *pk, const sl_bls_sig *pop);
/* Any message under SL_BLS_DST_POP: avalanchego's SignProofOfPossession, which signs a peer's IP. */
void sl_bls_sign_pop_dst(const sl_bls_sk *sk, const uint8_t *msg, size_t len, sl_bls_sig *sig);
SL_MUST_USE bool sl_bls_verify_pop_dst(const sl_bls_pk *pk, const sl_bls_sig *sig, const uint8_t *msg,
				       size_t len);

/*
 * Aggregation. The running sums keep projective points, so adding n keys
 * costs n point additions and one inversion at the end. _final fails with
 * SL_ERR_INVALID when nothing was added (avalanchego refuses an empty
 * aggregate too). The array forms are the same thing in one call.
 */
typedef struct sl_bls_pk_sum {
	uint64_t opaque[18]; /* blst_p1 */
	size_t n;
} sl_bls_pk_sum;
typedef struct sl_bls_sig_sum {
	uint64_t opaque[36]; /* blst_p2 */
	size_t n;
} sl_bls_sig_sum;

void sl_bls_pk_sum_init(sl_bls_pk_sum *s);
void sl_bls_pk_sum_add(sl_bls_pk_sum *s, const sl_bls_pk *pk);
SL_MUST_USE sl_err sl_bls_pk_sum_final(const sl_bls_pk_sum *s, sl_bls_pk *out);
void sl_bls_sig_sum_init(sl_bls_sig_sum *s);
void sl_bls_sig_sum_add(sl_bls_sig_sum *s, const sl_bls_sig *sig);
SL_MUST_USE sl_err sl_bls_sig_sum_final(const sl_bls_sig_sum *s, sl_bls_sig *out);

SL_MUST_USE sl_err sl_bls_pk_aggregate(sl_bls_pk *out, const sl_bls_pk *pks, size_t n);
SL_MUST_USE sl_err sl_bls_sig_aggregate(sl_bls_sig *out, const sl_bls_sig *sigs, size_t n);

#endif
