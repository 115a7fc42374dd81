/*
 * test_staking.c — crypto/staking: deterministic ECDSA P-256 (RFC 6979's
 * own test vectors), signatures that OpenSSL's ordinary EVP verification
 * accepts (as avalanchego's staking.CheckSignature would: ECDSA over
 * sha256(msg), DER), certificates that OpenSSL's X.509 parser reads and
 * whose self-signature verifies, and the NodeID of a certificate
 * (avalanchego's public local staker1 certificate and the NodeID its README
 * lists, tests/vectors/staking.json).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "codec_vectors.h"
#include "crypto/addr.h"
#include "crypto/hash.h"
#include "crypto/staking.h"

static void unhex(const char *h, uint8_t *out, size_t n)
{
	size_t len;
	uint8_t *p = vec_hex(h, &len);
	assert_non_null(p);
	assert_int_equal(len, n);
	memcpy(out, p, n);
	free(p);
}

/* A key whose scalar is exactly d: the seed is d - 1 (sl_staking_key_from_seed adds one). */
static void key_of(sl_staking_key *k, const char *d_hex)
{
	uint8_t seed[32];
	unhex(d_hex, seed, 32);
	for (int i = 31; i >= 0; i--) /* minus one, borrowing */
		if (seed[i]--)
			break;
	assert_int_equal(sl_staking_key_from_seed(k, seed), SL_OK);
	uint8_t d[32];
	unhex(d_hex, d, 32);
	assert_memory_equal(k->d, d, 32);
}

/* RFC 6979 appendix A.2.5: P-256 with SHA-256, messages "sample" and "test". */
static void test_rfc6979_vectors(void **state)
{
	(void)state;
	sl_staking_key k;
	key_of(&k, "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721");
	uint8_t ux[32], uy[32];
	unhex("60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6", ux, 32);
	unhex("7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299", uy, 32);
	assert_int_equal(k.pub[0], 4);
	assert_memory_equal(k.pub + 1, ux, 32);
	assert_memory_equal(k.pub + 33, uy, 32);
	static const struct {
		const char *msg, *r, *s;
	} v[] = {
		{ "sample", "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716",
		  "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8" },
		{ "test", "f1abb023518351cd71d881567b1ea663ed3efcf6c5132b354f28d3b0b7d38367",
		  "019f4113742a2b14bd25926b49c649155f267e60d3814b4c0cc84250e46f0083" },
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(v); i++) {
		uint8_t h[32], r[32], s[32], wr[32], ws[32];
		sl_sha256(v[i].msg, strlen(v[i].msg), h);
		assert_int_equal(sl_staking_sign_digest(&k, h, r, s), SL_OK);
		unhex(v[i].r, wr, 32);
		unhex(v[i].s, ws, 32);
		assert_memory_equal(r, wr, 32);
		assert_memory_equal(s, ws, 32);
	}
}

static sl_staking_key key_n(int i)
{
	uint8_t seed[32];
	sl_sha256(&i, sizeof i, seed);
	sl_staking_key k;
	assert_int_equal(sl_staking_key_from_seed(&k, seed), SL_OK);
	return k;
}

/* Our certificates and signatures, checked by OpenSSL alone. */
static void test_openssl_accepts(void **state)
{
	(void)state;
	for (int i = 0; i < 40; i++) {
		sl_staking_key k = key_n(i);
		uint8_t cert[SL_STAKING_CERT_MAX], cert2[SL_STAKING_CERT_MAX], pub[65],
			serial[8] = { (uint8_t)i, 1 };
		size_t n, n2;
		char cn[64];
		snprintf(cn, sizeof cn, "snowline devnet node %d", i);
		assert_int_equal(sl_staking_cert(&k, serial, cn, cert, &n), SL_OK);
		assert_true(n <= 2048); /* avalanchego's MaxCertificateLen */
		assert_int_equal(sl_staking_cert_check(cert, n, pub), SL_OK);
		assert_memory_equal(pub, k.pub, 65);
		/* deterministic: the same key makes the same bytes */
		assert_int_equal(sl_staking_cert(&k, serial, cn, cert2, &n2), SL_OK);
		assert_int_equal(n, n2);
		assert_memory_equal(cert, cert2, n);

		/* a proposervm header: 00 00 | chain | parent | body */
		uint8_t msg[98] = { 0 };
		sl_sha256(cert, n, msg + 2);
		msg[97] = (uint8_t)i;
		uint8_t sig[SL_STAKING_SIG_MAX], sig2[SL_STAKING_SIG_MAX];
		size_t sl, sl2;
		assert_int_equal(sl_staking_sign(&k, msg, sizeof msg, sig, &sl), SL_OK);
		assert_true(sl >= 8 && sl <= SL_STAKING_SIG_MAX);
		assert_int_equal(sig[0], 0x30);
		assert_int_equal(sl_staking_verify(cert, n, msg, sizeof msg, sig, sl), SL_OK);
		assert_int_equal(sl_staking_sign(&k, msg, sizeof msg, sig2, &sl2), SL_OK);
		assert_int_equal(sl, sl2);
		assert_memory_equal(sig, sig2, sl);
		/* another message, another key, a damaged signature: refused */
		msg[50] ^= 1;
		assert_int_equal(sl_staking_verify(cert, n, msg, sizeof msg, sig, sl), SL_ERR_CHECKSUM);
		msg[50] ^= 1;
		sig[sl - 1] ^= 1;
		assert_int_equal(sl_staking_verify(cert, n, msg, sizeof msg, sig, sl), SL_ERR_CHECKSUM);
		sig[sl - 1] ^= 1;
		sl_staking_key other = key_n(i + 1000);
		assert_int_equal(sl_staking_sign(&other, msg, sizeof msg, sig2, &sl2), SL_OK);
		assert_int_equal(sl_staking_verify(cert, n, msg, sizeof msg, sig2, sl2), SL_ERR_CHECKSUM);
		/* a damaged certificate does not parse, or its self-signature fails */
		cert[n / 2] ^= 0x40;
		assert_int_not_equal(sl_staking_cert_check(cert, n, NULL), SL_OK);
		assert_int_equal(sl_staking_verify(cert, n - 1, msg, sizeof msg, sig, sl), SL_ERR_INVALID);
	}
}

/* NodeID = ripemd160(sha256(certificate)): avalanchego's local staker1, whose NodeID its README lists. */
static void test_node_id(void **state)
{
	(void)state;
	json_t *v = vec_load("staking.json");
	assert_non_null(v);
	json_t *c;
	size_t i;
	json_array_foreach(json_object_get(v, "certificates"), i, c)
	{
		size_t n;
		uint8_t *der = vec_hex(vec_str(c, "der"), &n), id[20];
		assert_non_null(der);
		sl_staking_node_id(der, n, id);
		char mem[64];
		sl_buf b = { .p = (uint8_t *)mem, .cap = sizeof mem, .max = sizeof mem - 1 };
		sl_nodeid_write(&b, id);
		assert_string_equal(sl_buf_str(&b), vec_str(c, "nodeId"));
		/* an RSA key: OpenSSL reads it, and the check says it is not ours to make */
		assert_int_equal(sl_staking_cert_check(der, n, NULL), SL_ERR_UNSUPPORTED);
		free(der);
	}
	json_decref(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc6979_vectors),
		cmocka_unit_test(test_openssl_accepts),
		cmocka_unit_test(test_node_id),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
