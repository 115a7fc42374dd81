/* Unit tests for crypto/secp: well-known key/address pairs, sign-recover
 * round trips, malformed signatures, and first use from several threads. */
#include <pthread.h>

#include "vec_evm.h"

#include "crypto/hash.h"
#include "crypto/secp.h"

static void test_known_addresses(void **state)
{
	(void)state;
	uint8_t k[32] = { 0 }, a[20];
	k[31] = 1;
	assert_true(sl_secp_address(k, a));
	vec_assert_hex(a, 20, "7e5f4552091a69125d5dfcb7b8c2659029395bdf");
	memset(k, 0x46, 32); /* the EIP-155 example key */
	assert_true(sl_secp_address(k, a));
	vec_assert_hex(a, 20, "9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f");
	uint8_t pub[33];
	k[0] = 0;
	memset(k, 0, 32);
	k[31] = 1;
	assert_true(sl_secp_pubkey(k, pub));
	vec_assert_hex(pub, 33, "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798");
	/* zero is not a key */
	memset(k, 0, 32);
	assert_false(sl_secp_address(k, a));
	static const uint8_t zero[20];
	assert_memory_equal(a, zero, 20);
}

static void test_sign_recover(void **state)
{
	(void)state;
	for (int i = 1; i < 20; i++) {
		uint8_t k[32], h[32], sig[65], a[20], got[20], pub[33], sid[20], want_sid[20];
		memset(k, i, 32);
		sl_keccak256(&i, sizeof i, h);
		assert_true(sl_secp_sign(k, h, sig));
		assert_true(sig[64] <= 1);
		assert_true(sl_secp_address(k, a));
		assert_true(sl_secp_recover_address(h, sig, got));
		assert_memory_equal(got, a, 20);
		assert_true(sl_secp_recover_address_rs(h, sig, 32, sig + 32, 32, sig[64], got));
		assert_memory_equal(got, a, 20);
		/* Avalanche short id = ripemd160(sha256(compressed key)) */
		assert_true(sl_secp_pubkey(k, pub));
		sl_hash160(pub, 33, want_sid);
		assert_true(sl_secp_recover_short_id(h, sig, sid));
		assert_memory_equal(sid, want_sid, 20);
		/* the other recovery id gives another key (or none) */
		sig[64] ^= 1;
		if (sl_secp_recover_address(h, sig, got))
			assert_memory_not_equal(got, a, 20);
		/* a different hash gives another key */
		sig[64] ^= 1;
		h[0] ^= 1;
		if (sl_secp_recover_address(h, sig, got))
			assert_memory_not_equal(got, a, 20);
	}
}

static void test_bad_signatures(void **state)
{
	(void)state;
	uint8_t h[32] = { 1 }, sig[65] = { 0 }, out[20];
	assert_false(sl_secp_recover_address(h, sig, out)); /* r = s = 0 */
	memset(sig, 0xff, 64);				    /* r, s >= n */
	sig[64] = 0;
	assert_false(sl_secp_recover_address(h, sig, out));
	sig[64] = 7; /* recovery id out of range */
	assert_false(sl_secp_recover_address(h, sig, out));
	static const uint8_t zero[20];
	assert_memory_equal(out, zero, 20);
	uint8_t wide[33] = { 1 };
	assert_false(sl_secp_recover_address_rs(h, wide, 33, wide, 33, 0, out));
	assert_false(sl_secp_recover_address_rs(h, wide, 1, wide, 1, 2, out));
}

static void *worker(void *arg)
{
	int i = (int)(intptr_t)arg;
	uint8_t k[32], h[32] = { 9 }, sig[65], a[20], got[20];
	memset(k, 0x20 + i, 32);
	for (int j = 0; j < 50; j++) {
		h[1] = (uint8_t)j;
		if (!sl_secp_sign(k, h, sig) || !sl_secp_address(k, a) ||
		    !sl_secp_recover_address(h, sig, got) || memcmp(a, got, 20) != 0)
			return (void *)1;
	}
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	pthread_t t[8];
	for (int i = 0; i < 8; i++)
		assert_int_equal(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i), 0);
	for (int i = 0; i < 8; i++) {
		void *rv;
		pthread_join(t[i], &rv);
		assert_null(rv);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads), /* first: the context is created under contention */
		cmocka_unit_test(test_known_addresses),
		cmocka_unit_test(test_sign_recover),
		cmocka_unit_test(test_bad_signatures),
	};
	return cmocka_run_group_tests_name("secp", tests, NULL, NULL);
}
