/*
 * test_bls.c — BLS signatures: known answers, proofs of possession from the
 * P-chain vectors, validation of hostile encodings, and aggregation.
 *
 * Known answers: the sign vectors of the Ethereum consensus-spec BLS tests,
 * which use the same ciphersuite as Avalanche's signatures
 * (BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_). The proofs of possession
 * are the AddPermissionlessValidator / ConvertSubnetToL1 signers in
 * tests/vectors/pchain-txs.json (avalanchego test data), so they pin
 * the second tag (BLS_POP_...) and the "message = compressed key" rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "crypto/bls.h"

static void unhex(const char *s, uint8_t *out, size_t n)
{
	assert_int_equal(strlen(s), 2 * n);
	for (size_t i = 0; i < n; i++) {
		int v = 0;
		for (int k = 0; k < 2; k++) {
			char c = s[2 * i + k];
			int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
			assert_true(d >= 0);
			v = v << 4 | d;
		}
		out[i] = (uint8_t)v;
	}
}

static void sk_of(sl_bls_sk *sk, const char *hex)
{
	uint8_t b[SL_BLS_SK_LEN];
	unhex(hex, b, sizeof b);
	assert_int_equal(sl_bls_sk_decode(sk, b), SL_OK);
}

static const struct {
	const char *sk, *pk, *msg, *sig;
} kat[] = {
	{ "263dbd792f5b1be47ed85f8938c0f29586af0d3ac7b977f21c278fe1462040e3",
	  "a491d1b0ecd9bb917989f0e74f0dea0422eac4a873e5e2644f368dffb9a6e20fd6e10c1b77654d067c0618f6e5a7f79a",
	  "0000000000000000000000000000000000000000000000000000000000000000",
	  "b6ed936746e01f8ecf281f020953fbf1f01debd5657c4a383940b020b26507f6076334f91e2366c96e9ab279fb515809"
	  "0352ea1c5b0c9274504f4f0e7053af24802e51e4568d164fe986834f41e55c8e850ce1f98458c0cfc9ab380b55285a55" },
	{ "328388aff0d4a5b7dc9205abd374e7e98f3cd9f3418edb4eafda5fb16473d216",
	  "b53d21a4cfd562c469cc81514d4ce5a6b577d8403d32a394dc265dd190b47fa9f829fdd7963afdf972e5e77854051f6f",
	  "5656565656565656565656565656565656565656565656565656565656565656",
	  "a4efa926610b8bd1c8330c918b7a5e9bf374e53435ef8b7ec186abf62e1b1f65aeaaeb365677ac1d1172a1f5b44b4e6d"
	  "022c252c58486c0a759fbdc7de15a756acc4d343064035667a594b4c2a6f0b0b421975977f297dba63ee2f63ffe47bb6" },
};

static void test_known_answers(void **state)
{
	for (size_t i = 0; i < SL_ARRAY_LEN(kat); i++) {
		sl_bls_sk sk;
		sl_bls_pk pk;
		sl_bls_sig sig;
		uint8_t want_pk[48], want_sig[96], msg[32], got[96], skb[32], skb2[32];

		sk_of(&sk, kat[i].sk);
		unhex(kat[i].sk, skb, 32);
		sl_bls_sk_encode(&sk, skb2);
		assert_memory_equal(skb, skb2, 32);

		unhex(kat[i].pk, want_pk, 48);
		sl_bls_sk_to_pk(&sk, &pk);
		sl_bls_pk_encode(&pk, got);
		assert_memory_equal(got, want_pk, 48);

		unhex(kat[i].msg, msg, 32);
		unhex(kat[i].sig, want_sig, 96);
		sl_bls_sign(&sk, msg, sizeof msg, &sig);
		sl_bls_sig_encode(&sig, got);
		assert_memory_equal(got, want_sig, 96);

		/* and the decoded forms verify, with exactly this message and key */
		sl_bls_pk pk2;
		sl_bls_sig sig2;
		assert_int_equal(sl_bls_pk_decode(&pk2, want_pk), SL_OK);
		assert_true(sl_bls_pk_eq(&pk, &pk2));
		assert_int_equal(sl_bls_sig_decode(&sig2, want_sig), SL_OK);
		assert_true(sl_bls_verify(&pk2, &sig2, msg, sizeof msg));
		msg[31] ^= 1;
		assert_false(sl_bls_verify(&pk2, &sig2, msg, sizeof msg));
		msg[31] ^= 1;
		assert_false(sl_bls_verify(&pk2, &sig2, msg, sizeof msg - 1));
		/* a signature is not a proof of possession: the tags differ */
		assert_false(sl_bls_pop_verify(&pk2, &sig2));
	}
	/* the key of one vector does not verify the other's signature */
	sl_bls_pk pk;
	sl_bls_sig sig;
	uint8_t b[96], msg[32];
	unhex(kat[1].pk, b, 48);
	assert_int_equal(sl_bls_pk_decode(&pk, b), SL_OK);
	unhex(kat[0].sig, b, 96);
	assert_int_equal(sl_bls_sig_decode(&sig, b), SL_OK);
	unhex(kat[0].msg, msg, 32);
	assert_false(sl_bls_verify(&pk, &sig, msg, sizeof msg));
}

static const struct {
	const char *pk, *pop;
} pops[] = {
	{ "a3783a891cb41cadbfcf456da149f30e7af972677a162b984bef0779f254baac51ec042df1781d1295df80fb41c80126",
	  "9731fc6c25e1e5940dc3cb8509e30348fa712742cfdc83678acc9f95908eb98b89b28802fb559b4a2a6ff3216707c07f"
	  "0ceb0b45a95f4f9a9540bbd3331d8ab4f233bffa4abb97fad9d59a1695f31b92a2b89e365facf7ab8c30de7c4a496d1e" },
	{ "a93047d863dd5c9d5f95d87789e8b3f45ace039cd50a2ac04e4fee7cc6b9aa97de3d957d69bb49c1bcd013e73a206d6e",
	  "8c1102319797a698caa3fca0f3a2af54a6010b3e629bb8eeca192289b72f48cb21f40bff49e8663aa9550c3715883fe3"
	  "11a5623fa4c4287f426d39246c0d599ad8d4481c993c6826db7ce6365dddbe81daedbd706237e242ec4ade9fced8eccf" },
	{ "aff4acb4c5439b5d426cadf9e946d3a452f7de3414d1ad27336133211d8b90cf49fb97eebcdeeef714dc20f54ed0d4d1",
	  "8cfd7909d153b9604b62b143ba36207bb7e64867424480202a67dc68768346d95c90983c2d279c64c43c51136b2a05e0"
	  "1602d52aa6376fda17fa6e2a18a083e49d9c450eab7b89b1d5555da5c489872e02b7e5227b77550af1330e5a71f8c368" },
};

static void test_proof_of_possession_vectors(void **state)
{
	for (size_t i = 0; i < SL_ARRAY_LEN(pops); i++) {
		uint8_t pkb[48], popb[96];
		sl_bls_pk pk, other;
		sl_bls_sig pop;
		unhex(pops[i].pk, pkb, 48);
		unhex(pops[i].pop, popb, 96);
		assert_int_equal(sl_bls_pk_decode(&pk, pkb), SL_OK);
		assert_int_equal(sl_bls_sig_decode(&pop, popb), SL_OK);
		assert_true(sl_bls_pop_verify(&pk, &pop));
		/* under the signature tag the same bytes are not a valid signature of the key */
		assert_false(sl_bls_verify(&pk, &pop, pkb, sizeof pkb));
		/* another key's proof does not transfer */
		unhex(pops[(i + 1) % SL_ARRAY_LEN(pops)].pk, pkb, 48);
		assert_int_equal(sl_bls_pk_decode(&other, pkb), SL_OK);
		assert_false(sl_bls_pop_verify(&other, &pop));
	}
}

static void test_pop_round_trip(void **state)
{
	sl_bls_sk sk;
	sl_bls_pk pk;
	sl_bls_sig pop;
	sk_of(&sk, kat[0].sk);
	sl_bls_sk_to_pk(&sk, &pk);
	sl_bls_pop_sign(&sk, &pop);
	assert_true(sl_bls_pop_verify(&pk, &pop));
	sk_of(&sk, kat[1].sk);
	sl_bls_sk_to_pk(&sk, &pk);
	assert_false(sl_bls_pop_verify(&pk, &pop));
}

/* Any message under the proof-of-possession DST (a peer's signed IP): it verifies only under that DST. */
static void test_pop_dst_messages(void **state)
{
	sl_bls_sk sk;
	sl_bls_pk pk;
	sl_bls_sig sig, pop;
	const uint8_t ip[26] = { [10] = 0xff, [11] = 0xff, [12] = 127, [15] = 1, [17] = 1 };
	sk_of(&sk, kat[0].sk);
	sl_bls_sk_to_pk(&sk, &pk);
	sl_bls_sign_pop_dst(&sk, ip, sizeof ip, &sig);
	assert_true(sl_bls_verify_pop_dst(&pk, &sig, ip, sizeof ip));
	assert_false(sl_bls_verify(&pk, &sig, ip, sizeof ip)); /* not a signature under the other DST */
	assert_false(sl_bls_verify_pop_dst(&pk, &sig, ip, sizeof ip - 1));
	/* the proof of possession itself is this, over the compressed public key */
	uint8_t b[SL_BLS_PK_LEN], e1[SL_BLS_SIG_LEN], e2[SL_BLS_SIG_LEN];
	sl_bls_pk_encode(&pk, b);
	sl_bls_sign_pop_dst(&sk, b, sizeof b, &sig);
	sl_bls_pop_sign(&sk, &pop);
	sl_bls_sig_encode(&sig, e1);
	sl_bls_sig_encode(&pop, e2);
	assert_memory_equal(e1, e2, sizeof e1);
}

static void test_secret_key_range(void **state)
{
	static const char *bad[] = {
		"0000000000000000000000000000000000000000000000000000000000000000",
		/* r, the group order, and r + 1 */
		"73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001",
		"73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000002",
		"ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
	};
	uint8_t b[32];
	sl_bls_sk sk;
	for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
		unhex(bad[i], b, 32);
		memset(&sk, 0xaa, sizeof sk);
		assert_int_equal(sl_bls_sk_decode(&sk, b), SL_ERR_INVALID);
		uint8_t zero[32] = { 0 };
		assert_memory_equal(sk.b, zero, 32); /* cleared on failure */
	}
	unhex("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000", b, 32); /* r - 1 */
	assert_int_equal(sl_bls_sk_decode(&sk, b), SL_OK);
	memset(b, 0, 32);
	b[31] = 1;
	assert_int_equal(sl_bls_sk_decode(&sk, b), SL_OK);
}

static void test_public_key_validation(void **state)
{
	uint8_t b[48] = { 0 };
	sl_bls_pk pk;

	b[0] = 0xc0; /* compressed identity: a valid encoding, never a valid key */
	assert_int_equal(sl_bls_pk_decode(&pk, b), SL_ERR_INVALID);
	b[0] = 0x00; /* compression flag missing */
	assert_int_equal(sl_bls_pk_decode(&pk, b), SL_ERR_INVALID);
	b[0] = 0x80;
	b[47] = 1; /* x = 1 is not on the curve */
	assert_int_equal(sl_bls_pk_decode(&pk, b), SL_ERR_INVALID);
	b[47] = 4; /* x = 4 is on the curve but outside the prime-order subgroup */
	assert_int_equal(sl_bls_pk_decode(&pk, b), SL_ERR_INVALID);
	memset(b, 0xff, sizeof b); /* x >= p */
	b[0] = 0x9f;
	assert_int_equal(sl_bls_pk_decode(&pk, b), SL_ERR_INVALID);

	/* the sort flag bit of a real key flipped: the other y, still a valid key */
	unhex(kat[0].pk, b, 48);
	b[0] ^= 0x20;
	assert_int_equal(sl_bls_pk_decode(&pk, b), SL_OK);
	uint8_t msg[32] = { 0 }, sigb[96];
	sl_bls_sig sig;
	unhex(kat[0].sig, sigb, 96);
	assert_int_equal(sl_bls_sig_decode(&sig, sigb), SL_OK);
	assert_false(sl_bls_verify(&pk, &sig, msg, sizeof msg)); /* -pk does not verify */

	/* raw (uncompressed) form: x || y, and x is the compressed body without flags */
	unhex(kat[0].pk, b, 48);
	assert_int_equal(sl_bls_pk_decode(&pk, b), SL_OK);
	uint8_t raw[96];
	sl_bls_pk_encode_raw(&pk, raw);
	b[0] &= 0x1f;
	assert_memory_equal(raw, b, 48);
}

static void test_signature_validation(void **state)
{
	uint8_t b[96] = { 0 }, msg[32] = { 0 };
	sl_bls_sig sig;
	sl_bls_pk pk;

	b[0] = 0x80;
	b[95] = 1; /* not on the curve */
	assert_int_equal(sl_bls_sig_decode(&sig, b), SL_ERR_INVALID);
	b[95] = 2; /* on the curve, outside G2 */
	assert_int_equal(sl_bls_sig_decode(&sig, b), SL_ERR_INVALID);
	b[0] = 0;
	assert_int_equal(sl_bls_sig_decode(&sig, b), SL_ERR_INVALID);

	/* the identity decodes (as in avalanchego) but verifies nothing */
	memset(b, 0, sizeof b);
	b[0] = 0xc0;
	assert_int_equal(sl_bls_sig_decode(&sig, b), SL_OK);
	unhex(kat[0].pk, b, 48);
	assert_int_equal(sl_bls_pk_decode(&pk, b), SL_OK);
	assert_false(sl_bls_verify(&pk, &sig, msg, sizeof msg));
	assert_false(sl_bls_pop_verify(&pk, &sig));

	/* any single flipped bit in a good signature is caught at decode or verify */
	for (size_t bit = 0; bit < 96 * 8; bit += 7) {
		unhex(kat[0].sig, b, 96);
		b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		if (sl_bls_sig_decode(&sig, b) == SL_OK)
			assert_false(sl_bls_verify(&pk, &sig, msg, sizeof msg));
	}
}

static void test_aggregate(void **state)
{
	enum { N = 5 };
	sl_bls_sk sk[N];
	sl_bls_pk pk[N], agg_pk, agg_pk2;
	sl_bls_sig sig[N], agg_sig;
	const uint8_t msg[] = "warp message bytes";

	for (int i = 0; i < N; i++) {
		uint8_t b[32] = { 0 };
		b[0] = 0x10;
		b[31] = (uint8_t)(i + 1);
		assert_int_equal(sl_bls_sk_decode(&sk[i], b), SL_OK);
		sl_bls_sk_to_pk(&sk[i], &pk[i]);
		sl_bls_sign(&sk[i], msg, sizeof msg, &sig[i]);
		assert_true(sl_bls_verify(&pk[i], &sig[i], msg, sizeof msg));
	}
	assert_int_equal(sl_bls_pk_aggregate(&agg_pk, pk, N), SL_OK);
	assert_int_equal(sl_bls_sig_aggregate(&agg_sig, sig, N), SL_OK);
	assert_true(sl_bls_verify(&agg_pk, &agg_sig, msg, sizeof msg));

	/* the aggregate key is a normal key: it survives encode/decode */
	uint8_t b[96];
	sl_bls_pk_encode(&agg_pk, b);
	assert_int_equal(sl_bls_pk_decode(&agg_pk2, b), SL_OK);
	assert_true(sl_bls_pk_eq(&agg_pk, &agg_pk2));
	sl_bls_sig_encode(&agg_sig, b);
	assert_int_equal(sl_bls_sig_decode(&agg_sig, b), SL_OK);
	assert_true(sl_bls_verify(&agg_pk2, &agg_sig, msg, sizeof msg));

	/* one signer short: the set of keys must match the set of signatures */
	assert_int_equal(sl_bls_pk_aggregate(&agg_pk, pk, N - 1), SL_OK);
	assert_false(sl_bls_verify(&agg_pk, &agg_sig, msg, sizeof msg));

	/* the running sum gives the same point, in any order */
	sl_bls_pk_sum s;
	sl_bls_pk_sum_init(&s);
	for (int i = N - 1; i >= 0; i--)
		sl_bls_pk_sum_add(&s, &pk[i]);
	assert_int_equal(sl_bls_pk_sum_final(&s, &agg_pk), SL_OK);
	assert_true(sl_bls_pk_eq(&agg_pk, &agg_pk2));

	/* a key added twice (doubling inside the sum) */
	sl_bls_pk two[2] = { pk[0], pk[0] };
	sl_bls_sig twos[2] = { sig[0], sig[0] };
	assert_int_equal(sl_bls_pk_aggregate(&agg_pk, two, 2), SL_OK);
	assert_int_equal(sl_bls_sig_aggregate(&agg_sig, twos, 2), SL_OK);
	assert_true(sl_bls_verify(&agg_pk, &agg_sig, msg, sizeof msg));

	/* a single element is itself */
	assert_int_equal(sl_bls_pk_aggregate(&agg_pk, pk, 1), SL_OK);
	assert_true(sl_bls_pk_eq(&agg_pk, &pk[0]));

	/* empty aggregates are refused */
	assert_int_equal(sl_bls_pk_aggregate(&agg_pk, pk, 0), SL_ERR_INVALID);
	assert_int_equal(sl_bls_sig_aggregate(&agg_sig, sig, 0), SL_ERR_INVALID);
	sl_bls_sig_sum ss;
	sl_bls_sig_sum_init(&ss);
	assert_int_equal(sl_bls_sig_sum_final(&ss, &agg_sig), SL_ERR_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_answers),
		cmocka_unit_test(test_proof_of_possession_vectors),
		cmocka_unit_test(test_pop_round_trip),
		cmocka_unit_test(test_pop_dst_messages),
		cmocka_unit_test(test_secret_key_range),
		cmocka_unit_test(test_public_key_validation),
		cmocka_unit_test(test_signature_validation),
		cmocka_unit_test(test_aggregate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
