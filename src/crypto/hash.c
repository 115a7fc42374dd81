#include "crypto/hash.h"

/*
 * sha256 through OpenSSL's low-level SHA256_* calls, deprecated in 3.0 but present in every 3.x:
 * the one-shot SHA256() fetches the algorithm by name on each call and costs about 5 times as much
 * for the short inputs that dominate here (UTXO ids, cb58 and hex checksums: 0.7 us against 0.14).
 */
#define OPENSSL_SUPPRESS_DEPRECATED

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "util/hex.h"

void sl_sha256(const void *p, size_t n, uint8_t out[32])
{
	SHA256_CTX c;
	SHA256_Init(&c);
	SHA256_Update(&c, p, n);
	SHA256_Final(out, &c);
}

bool sl_sha256_init(sl_sha256_ctx *c)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	if (md && !EVP_DigestInit_ex(md, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(md);
		md = NULL;
	}
	c->md = md;
	return md != NULL;
}

void sl_sha256_update(sl_sha256_ctx *c, const void *p, size_t n)
{
	if (c->md && n)
		EVP_DigestUpdate(c->md, p, n);
}

void sl_sha256_final(sl_sha256_ctx *c, uint8_t out[32])
{
	unsigned int len = 32;
	if (!c->md || !EVP_DigestFinal_ex(c->md, out, &len))
		memset(out, 0, 32);
	EVP_MD_CTX_free(c->md);
	c->md = NULL;
}

void sl_ripemd160(const void *p, size_t n, uint8_t out[20])
{
	unsigned int len = 20;
	/* The one-shot RIPEMD160() is deprecated in OpenSSL 3; EVP is the stable door. */
	if (!EVP_Digest(p, n, out, &len, EVP_ripemd160(), NULL))
		memset(out, 0, 20);
}

void sl_hash160(const void *p, size_t n, uint8_t out[20])
{
	uint8_t h[32];
	sl_sha256(p, n, h);
	sl_ripemd160(h, sizeof h, out);
}

void sl_hmac_sha256(const void *key, size_t klen, const void *msg, size_t mlen, uint8_t out[32])
{
	unsigned int len = 32;
	if (!HMAC(EVP_sha256(), key, (int)klen, msg, mlen, out, &len))
		memset(out, 0, 32);
}

bool sl_equal_ct(const void *a, const void *b, size_t n) { return CRYPTO_memcmp(a, b, n) == 0; }

void sl_checksum4(const void *p, size_t n, uint8_t out[4])
{
	uint8_t h[32];
	sl_sha256(p, n, h);
	memcpy(out, h + 28, 4);
}

/* Keccak-f[1600], the permutation under Ethereum's keccak256 (rate 136 bytes). */
static const uint64_t rc[24] = {
	0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
	0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
	0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
	0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
	0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
	0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};
static const unsigned rotc[24] = { 1,  3,  6,  10, 15, 21, 28, 36, 45, 55, 2,  14,
				   27, 41, 56, 8,  25, 43, 62, 18, 39, 61, 20, 44 };
static const unsigned piln[24] = { 10, 7,  11, 17, 18, 3, 5,  16, 8,  21, 24, 4,
				   15, 23, 19, 13, 12, 2, 20, 14, 22, 9,  6,  1 };

static inline uint64_t rol64(uint64_t x, unsigned n) { return x << n | x >> (64 - n); }

static void keccakf(uint64_t st[25])
{
	for (int round = 0; round < 24; round++) {
		uint64_t bc[5];
		for (int i = 0; i < 5; i++)
			bc[i] = st[i] ^ st[i + 5] ^ st[i + 10] ^ st[i + 15] ^ st[i + 20];
		for (int i = 0; i < 5; i++) {
			uint64_t t = bc[(i + 4) % 5] ^ rol64(bc[(i + 1) % 5], 1);
			for (int j = 0; j < 25; j += 5)
				st[j + i] ^= t;
		}
		uint64_t t = st[1];
		for (int i = 0; i < 24; i++) {
			unsigned j = piln[i];
			uint64_t tmp = st[j];
			st[j] = rol64(t, rotc[i]);
			t = tmp;
		}
		for (int j = 0; j < 25; j += 5) {
			for (int i = 0; i < 5; i++)
				bc[i] = st[j + i];
			for (int i = 0; i < 5; i++)
				st[j + i] ^= ~bc[(i + 1) % 5] & bc[(i + 2) % 5];
		}
		st[0] ^= rc[round];
	}
}

static uint64_t load64le(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

void sl_keccak256(const void *data, size_t n, uint8_t out[32])
{
	enum { RATE = 136 };
	uint64_t st[25] = { 0 };
	const uint8_t *p = data;
	while (n >= RATE) {
		for (int i = 0; i < RATE / 8; i++)
			st[i] ^= load64le(p + 8 * i);
		keccakf(st);
		p += RATE;
		n -= RATE;
	}
	uint8_t last[RATE] = { 0 };
	/* keccak256(NULL, 0) is legal (the empty string); memcpy from NULL is not. */
	if (n)
		memcpy(last, p, n);
	last[n] = 0x01;
	last[RATE - 1] |= 0x80;
	for (int i = 0; i < RATE / 8; i++)
		st[i] ^= load64le(last + 8 * i);
	keccakf(st);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 8; j++)
			out[8 * i + j] = (uint8_t)(st[i] >> (8 * j));
}

sl_err sl_hex_checksum_decode(const char *s, size_t n, uint8_t *out, size_t cap, size_t *outlen,
			      const char **msg)
{
	if (n < 2 || s[0] != '0' || (s[1] | 0x20) != 'x') {
		*msg = "missing 0x prefix to hex encoding";
		return SL_ERR_INVALID;
	}
	size_t len = 0;
	sl_err e = sl_hex_decode(s + 2, n - 2, out, cap, &len);
	if (e) {
		*msg = e == SL_ERR_TOO_LARGE ? "payload too large" : "invalid hex";
		return e;
	}
	if (len < 4) {
		*msg = "input string is smaller than the checksum size";
		return SL_ERR_INVALID;
	}
	uint8_t sum[4];
	sl_checksum4(out, len - 4, sum);
	if (memcmp(sum, out + len - 4, 4)) {
		*msg = "invalid input checksum";
		return SL_ERR_CHECKSUM;
	}
	*outlen = len - 4;
	return SL_OK;
}
