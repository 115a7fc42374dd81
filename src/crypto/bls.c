#include "crypto/bls.h"

/* blst.h declares a few `f()` functions, which -Wstrict-prototypes rejects. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <blst.h>
#pragma GCC diagnostic pop

/* Our opaque structs are blst's types with the same size and alignment. */
_Static_assert(sizeof(sl_bls_sk) == sizeof(blst_scalar), "sk size");
_Static_assert(sizeof(((sl_bls_pk *)0)->opaque) == sizeof(blst_p1_affine), "pk size");
_Static_assert(sizeof(((sl_bls_sig *)0)->opaque) == sizeof(blst_p2_affine), "sig size");
_Static_assert(sizeof(((sl_bls_pk_sum *)0)->opaque) == sizeof(blst_p1), "pk sum size");
_Static_assert(sizeof(((sl_bls_sig_sum *)0)->opaque) == sizeof(blst_p2), "sig sum size");
_Static_assert(_Alignof(uint64_t) >= _Alignof(blst_p2), "alignment");

#define SK(x) ((blst_scalar *)(void *)(x)->b)
#define CSK(x) ((const blst_scalar *)(const void *)(x)->b)
#define PK(x) ((blst_p1_affine *)(void *)(x)->opaque)
#define CPK(x) ((const blst_p1_affine *)(const void *)(x)->opaque)
#define SIG(x) ((blst_p2_affine *)(void *)(x)->opaque)
#define CSIG(x) ((const blst_p2_affine *)(const void *)(x)->opaque)
#define P1(x) ((blst_p1 *)(void *)(x)->opaque)
#define CP1(x) ((const blst_p1 *)(const void *)(x)->opaque)
#define P2(x) ((blst_p2 *)(void *)(x)->opaque)
#define CP2(x) ((const blst_p2 *)(const void *)(x)->opaque)

static const uint8_t dst_sig[] = SL_BLS_DST_SIG;
static const uint8_t dst_pop[] = SL_BLS_DST_POP;

sl_err sl_bls_sk_decode(sl_bls_sk *sk, const uint8_t in[SL_BLS_SK_LEN])
{
	blst_scalar_from_bendian(SK(sk), in);
	if (!blst_sk_check(CSK(sk))) {
		memset(sk, 0, sizeof *sk);
		return SL_ERR_INVALID;
	}
	return SL_OK;
}

void sl_bls_sk_encode(const sl_bls_sk *sk, uint8_t out[SL_BLS_SK_LEN])
{
	blst_bendian_from_scalar(out, CSK(sk));
}

void sl_bls_sk_to_pk(const sl_bls_sk *sk, sl_bls_pk *pk)
{
	blst_p1 p;
	blst_sk_to_pk_in_g1(&p, CSK(sk));
	blst_p1_to_affine(PK(pk), &p);
}

sl_err sl_bls_pk_decode(sl_bls_pk *pk, const uint8_t in[SL_BLS_PK_LEN])
{
	/* avalanchego's KeyValidate: on the curve, in G1, and not the identity. */
	if (blst_p1_uncompress(PK(pk), in) != BLST_SUCCESS || blst_p1_affine_is_inf(CPK(pk)) ||
	    !blst_p1_affine_in_g1(CPK(pk))) {
		memset(pk, 0, sizeof *pk);
		return SL_ERR_INVALID;
	}
	return SL_OK;
}

void sl_bls_pk_encode(const sl_bls_pk *pk, uint8_t out[SL_BLS_PK_LEN])
{
	blst_p1_affine_compress(out, CPK(pk));
}

void sl_bls_pk_encode_raw(const sl_bls_pk *pk, uint8_t out[SL_BLS_PK_RAW_LEN])
{
	blst_p1_affine_serialize(out, CPK(pk));
}

bool sl_bls_pk_eq(const sl_bls_pk *a, const sl_bls_pk *b) { return blst_p1_affine_is_equal(CPK(a), CPK(b)); }

sl_err sl_bls_sig_decode(sl_bls_sig *sig, const uint8_t in[SL_BLS_SIG_LEN])
{
	/* avalanchego's SigValidate(false): in G2; the identity is let through. */
	if (blst_p2_uncompress(SIG(sig), in) != BLST_SUCCESS || !blst_p2_affine_in_g2(CSIG(sig))) {
		memset(sig, 0, sizeof *sig);
		return SL_ERR_INVALID;
	}
	return SL_OK;
}

void sl_bls_sig_encode(const sl_bls_sig *sig, uint8_t out[SL_BLS_SIG_LEN])
{
	blst_p2_affine_compress(out, CSIG(sig));
}

static void sign_dst(const sl_bls_sk *sk, const uint8_t *msg, size_t len, const uint8_t *dst, size_t dstlen,
		     sl_bls_sig *sig)
{
	blst_p2 h, s;
	blst_hash_to_g2(&h, msg, len, dst, dstlen, NULL, 0);
	blst_sign_pk_in_g1(&s, &h, CSK(sk));
	blst_p2_to_affine(SIG(sig), &s);
}

static bool verify_dst(const sl_bls_pk *pk, const sl_bls_sig *sig, const uint8_t *msg, size_t len,
		       const uint8_t *dst, size_t dstlen)
{
	/* Both points were group-checked when decoded; blst still refuses an identity key. */
	return blst_core_verify_pk_in_g1(CPK(pk), CSIG(sig), true, msg, len, dst, dstlen, NULL, 0) ==
	       BLST_SUCCESS;
}

void sl_bls_sign(const sl_bls_sk *sk, const uint8_t *msg, size_t len, sl_bls_sig *sig)
{
	sign_dst(sk, msg, len, dst_sig, sizeof dst_sig - 1, sig);
}

bool sl_bls_verify(const sl_bls_pk *pk, const sl_bls_sig *sig, const uint8_t *msg, size_t len)
{
	return verify_dst(pk, sig, msg, len, dst_sig, sizeof dst_sig - 1);
}

void sl_bls_pop_sign(const sl_bls_sk *sk, sl_bls_sig *pop)
{
	sl_bls_pk pk;
	uint8_t b[SL_BLS_PK_LEN];
	sl_bls_sk_to_pk(sk, &pk);
	sl_bls_pk_encode(&pk, b);
	sign_dst(sk, b, sizeof b, dst_pop, sizeof dst_pop - 1, pop);
}

void sl_bls_sign_pop_dst(const sl_bls_sk *sk, const uint8_t *msg, size_t len, sl_bls_sig *sig)
{
	sign_dst(sk, msg, len, dst_pop, sizeof dst_pop - 1, sig);
}

bool sl_bls_verify_pop_dst(const sl_bls_pk *pk, const sl_bls_sig *sig, const uint8_t *msg, size_t len)
{
	return verify_dst(pk, sig, msg, len, dst_pop, sizeof dst_pop - 1);
}

bool sl_bls_pop_verify(const sl_bls_pk *pk, const sl_bls_sig *pop)
{
	uint8_t b[SL_BLS_PK_LEN];
	sl_bls_pk_encode(pk, b);
	return verify_dst(pk, pop, b, sizeof b, dst_pop, sizeof dst_pop - 1);
}

void sl_bls_pk_sum_init(sl_bls_pk_sum *s)
{
	memset(s, 0, sizeof *s); /* all-zero is the identity in blst's projective form */
}

void sl_bls_pk_sum_add(sl_bls_pk_sum *s, const sl_bls_pk *pk)
{
	if (s->n == 0)
		blst_p1_from_affine(P1(s), CPK(pk));
	else
		blst_p1_add_or_double_affine(P1(s), CP1(s), CPK(pk));
	s->n++;
}

sl_err sl_bls_pk_sum_final(const sl_bls_pk_sum *s, sl_bls_pk *out)
{
	if (s->n == 0) {
		memset(out, 0, sizeof *out);
		return SL_ERR_INVALID;
	}
	blst_p1_to_affine(PK(out), CP1(s));
	return SL_OK;
}

void sl_bls_sig_sum_init(sl_bls_sig_sum *s) { memset(s, 0, sizeof *s); }

void sl_bls_sig_sum_add(sl_bls_sig_sum *s, const sl_bls_sig *sig)
{
	if (s->n == 0)
		blst_p2_from_affine(P2(s), CSIG(sig));
	else
		blst_p2_add_or_double_affine(P2(s), CP2(s), CSIG(sig));
	s->n++;
}

sl_err sl_bls_sig_sum_final(const sl_bls_sig_sum *s, sl_bls_sig *out)
{
	if (s->n == 0) {
		memset(out, 0, sizeof *out);
		return SL_ERR_INVALID;
	}
	blst_p2_to_affine(SIG(out), CP2(s));
	return SL_OK;
}

sl_err sl_bls_pk_aggregate(sl_bls_pk *out, const sl_bls_pk *pks, size_t n)
{
	sl_bls_pk_sum s;
	sl_bls_pk_sum_init(&s);
	for (size_t i = 0; i < n; i++)
		sl_bls_pk_sum_add(&s, &pks[i]);
	return sl_bls_pk_sum_final(&s, out);
}

sl_err sl_bls_sig_aggregate(sl_bls_sig *out, const sl_bls_sig *sigs, size_t n)
{
	sl_bls_sig_sum s;
	sl_bls_sig_sum_init(&s);
	for (size_t i = 0; i < n; i++)
		sl_bls_sig_sum_add(&s, &sigs[i]);
	return sl_bls_sig_sum_final(&s, out);
}
