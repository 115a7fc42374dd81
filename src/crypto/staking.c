#include "crypto/staking.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/x509.h>
#include <pthread.h>

#include "crypto/hash.h"

/* ---- the curve: made once, read-only after ---- */

static EC_GROUP *g_group;
static BIGNUM *g_order, *g_order_m2; /* n and n - 2 */
static BN_MONT_CTX *g_mont;	     /* Montgomery form mod n, for inverses */
static EVP_MD *g_sha256;	     /* fetched once: SHA256() would fetch it by name on every call */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void group_create(void)
{
	g_sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
	g_group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
	BN_CTX *bc = BN_CTX_new();
	BIGNUM *n = g_group ? BN_dup(EC_GROUP_get0_order(g_group)) : NULL, *m2 = n ? BN_dup(n) : NULL;
	BN_MONT_CTX *m = BN_MONT_CTX_new();
	if (bc && n && m2 && m && BN_sub_word(m2, 2) && BN_MONT_CTX_set(m, n, bc)) {
		g_order = n;
		g_order_m2 = m2;
		g_mont = m;
	} else {
		BN_free(n);
		BN_free(m2);
		BN_MONT_CTX_free(m);
	}
	BN_CTX_free(bc);
}

static const EC_GROUP *group(void)
{
	pthread_once(&g_once, group_create);
	return g_order && g_sha256 ? g_group : NULL;
}

static void sha256(const void *p, size_t n, uint8_t out[32])
{
	if (!group() || !EVP_Digest(p, n, out, NULL, g_sha256, NULL))
		sl_sha256(p, n, out);
}

/* k⁻¹ mod n as k^(n-2) (n is prime): a Montgomery exponentiation beats BN_mod_inverse's binary loop here. */
static bool inverse(BIGNUM *out, const BIGNUM *k, BN_CTX *bc)
{
	return BN_mod_exp_mont(out, k, g_order_m2, g_order, bc, g_mont) == 1;
}

/* ---- keys ---- */

static bool bn_to32(const BIGNUM *b, uint8_t out[32]) { return BN_bn2binpad(b, out, 32) == 32; }

/* Q = d·G as 04 | X | Y. */
static bool public_point(const EC_GROUP *g, const BIGNUM *d, BN_CTX *bc, uint8_t pub[65])
{
	EC_POINT *q = EC_POINT_new(g);
	bool ok = q && EC_POINT_mul(g, q, d, NULL, NULL, bc) &&
		  EC_POINT_point2oct(g, q, POINT_CONVERSION_UNCOMPRESSED, pub, 65, bc) == 65;
	EC_POINT_free(q);
	return ok;
}

sl_err sl_staking_key_from_seed(sl_staking_key *k, const uint8_t seed[32])
{
	const EC_GROUP *g = group();
	memset(k, 0, sizeof *k);
	if (!g)
		return SL_ERR_INTERNAL;
	BN_CTX *bc = BN_CTX_new();
	BIGNUM *d = BN_bin2bn(seed, 32, NULL), *nm1 = BN_dup(g_order);
	bool ok = bc && d && nm1 && BN_sub_word(nm1, 1) && BN_nnmod(d, d, nm1, bc) && BN_add_word(d, 1) &&
		  bn_to32(d, k->d) && public_point(g, d, bc, k->pub);
	BN_clear_free(d);
	BN_free(nm1);
	BN_CTX_free(bc);
	if (!ok)
		memset(k, 0, sizeof *k);
	return ok ? SL_OK : SL_ERR_NOMEM;
}

/* ---- RFC 6979 (section 3.2) with HMAC-SHA256, q = the P-256 order (qlen 256) ---- */

/* HMAC-SHA256 with a 32-byte key over a short message (RFC 2104), on one-shot sha256: no EVP fetch per call. */
static bool hmac(const uint8_t key[32], const uint8_t *msg, size_t n, uint8_t out[32])
{
	uint8_t in[64 + 32 + 1 + 64], outer[64 + 32];
	if (n > sizeof in - 64)
		return false;
	for (int i = 0; i < 64; i++) {
		uint8_t k = i < 32 ? key[i] : 0;
		in[i] = k ^ 0x36;
		outer[i] = k ^ 0x5c;
	}
	memcpy(in + 64, msg, n);
	sha256(in, 64 + n, outer + 64);
	sha256(outer, sizeof outer, out);
	return true;
}

/* K = HMAC_K(V || tag || extra), V = HMAC_K(V) */
static bool rfc6979_update(uint8_t K[32], uint8_t V[32], int tag, const uint8_t *extra, size_t n)
{
	uint8_t msg[32 + 1 + 64];
	memcpy(msg, V, 32);
	size_t m = 32;
	if (tag >= 0) {
		msg[m++] = (uint8_t)tag;
		memcpy(msg + m, extra, n);
		m += n;
	}
	return hmac(K, msg, m, K) && hmac(K, V, 32, V);
}

sl_err sl_staking_sign_digest(const sl_staking_key *k, const uint8_t digest[32], uint8_t r_out[32],
			      uint8_t s_out[32])
{
	const EC_GROUP *g = group();
	if (!g)
		return SL_ERR_INTERNAL;
	BN_CTX *bc = BN_CTX_new();
	BIGNUM *d = BN_bin2bn(k->d, 32, NULL), *e = BN_bin2bn(digest, 32, NULL), *h1 = BN_new();
	BIGNUM *kk = BN_new(), *r = BN_new(), *s = BN_new(), *x = BN_new(), *t = BN_new();
	EC_POINT *R = EC_POINT_new(g);
	bool ok = bc && d && e && h1 && kk && r && s && x && t && R;
	/* bits2octets(h1) = (h mod q) in 32 bytes; int2octets(x) = the 32-byte key */
	uint8_t seed[64], K[32], V[32];
	memcpy(seed, k->d, 32);
	ok = ok && BN_nnmod(h1, e, g_order, bc) && bn_to32(h1, seed + 32);
	memset(K, 0, 32);
	memset(V, 1, 32);
	ok = ok && rfc6979_update(K, V, 0, seed, 64) && rfc6979_update(K, V, 1, seed, 64);
	while (ok) {
		ok = hmac(K, V, 32, V); /* T = V: one HMAC output is qlen bits */
		if (!ok || !BN_bin2bn(V, 32, kk))
			break;
		if (!BN_is_zero(kk) && BN_cmp(kk, g_order) < 0) {
			/* r = (k·G).x mod q; s = k⁻¹ (e + r·d) mod q; a zero r or s takes the next k */
			ok = EC_POINT_mul(g, R, kk, NULL, NULL, bc) &&
			     EC_POINT_get_affine_coordinates(g, R, x, NULL, bc) &&
			     BN_nnmod(r, x, g_order, bc) && BN_mod_mul(t, r, d, g_order, bc) &&
			     BN_mod_add(t, t, e, g_order, bc) && inverse(x, kk, bc) &&
			     BN_mod_mul(s, t, x, g_order, bc);
			if (ok && !BN_is_zero(r) && !BN_is_zero(s))
				break;
		}
		ok = ok && rfc6979_update(K, V, 0, NULL, 0);
	}
	ok = ok && bn_to32(r, r_out) && bn_to32(s, s_out);
	EC_POINT_free(R);
	BN_clear_free(d);
	BN_clear_free(kk);
	BN_free(e);
	BN_free(h1);
	BN_free(r);
	BN_free(s);
	BN_free(x);
	BN_free(t);
	BN_CTX_free(bc);
	return ok ? SL_OK : SL_ERR_INTERNAL;
}

/* ---- DER ---- */

/* A minimal DER writer into a fixed array; sticky overflow. */
typedef struct der {
	uint8_t *p;
	size_t len, cap;
	bool over;
} der;

static void der_raw(der *o, const void *p, size_t n)
{
	if (o->over || n > o->cap - o->len) {
		o->over = true;
		return;
	}
	memcpy(o->p + o->len, p, n);
	o->len += n;
}

static void der_tlv(der *o, uint8_t tag, const void *p, size_t n)
{
	uint8_t h[4] = { tag };
	size_t hn = 2;
	if (n < 0x80) {
		h[1] = (uint8_t)n;
	} else if (n < 0x100) {
		h[1] = 0x81;
		h[2] = (uint8_t)n;
		hn = 3;
	} else {
		h[1] = 0x82;
		h[2] = (uint8_t)(n >> 8);
		h[3] = (uint8_t)n;
		hn = 4;
	}
	der_raw(o, h, hn);
	der_raw(o, p, n);
}

/* A non-negative integer from big-endian bytes: leading zeros dropped, a 00 before a high bit. */
static void der_uint(der *o, const uint8_t *v, size_t n)
{
	while (n > 1 && !v[0]) {
		v++;
		n--;
	}
	uint8_t b[33] = { 0 };
	size_t pad = v[0] & 0x80 ? 1 : 0;
	memcpy(b + pad, v, n);
	der_tlv(o, 0x02, b, n + pad);
}

static size_t sig_der(const uint8_t r[32], const uint8_t s[32], uint8_t out[SL_STAKING_SIG_MAX])
{
	uint8_t body[70];
	der in = { .p = body, .cap = sizeof body };
	der_uint(&in, r, 32);
	der_uint(&in, s, 32);
	der o = { .p = out, .cap = SL_STAKING_SIG_MAX };
	der_tlv(&o, 0x30, body, in.len);
	return in.over || o.over ? 0 : o.len;
}

sl_err sl_staking_sign(const sl_staking_key *k, const void *msg, size_t n, uint8_t out[SL_STAKING_SIG_MAX],
		       size_t *len)
{
	uint8_t h[32], r[32], s[32];
	sha256(msg, n, h);
	sl_err e = sl_staking_sign_digest(k, h, r, s);
	if (e)
		return e;
	*len = sig_der(r, s, out);
	return *len ? SL_OK : SL_ERR_INTERNAL;
}

/* ---- the certificate ---- */

static const uint8_t oid_ecdsa_sha256[] = { 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02 };
static const uint8_t spki_alg[] = {
	/* SEQUENCE { id-ecPublicKey, prime256v1 } */
	0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01,
	0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07,
};

/* Name ::= SEQUENCE { SET { SEQUENCE { id-at-commonName, UTF8String cn } } } */
static void der_name(der *o, const char *cn)
{
	static const uint8_t oid_cn[] = { 0x06, 0x03, 0x55, 0x04, 0x03 };
	uint8_t atv[96], set[100];
	der a = { .p = atv, .cap = sizeof atv };
	der_raw(&a, oid_cn, sizeof oid_cn);
	der_tlv(&a, 0x0c, cn, strlen(cn));
	der s = { .p = set, .cap = sizeof set };
	der_tlv(&s, 0x30, atv, a.len);
	uint8_t rdn[104];
	der r = { .p = rdn, .cap = sizeof rdn };
	der_tlv(&r, 0x31, set, s.len);
	if (a.over || s.over || r.over)
		o->over = true;
	der_tlv(o, 0x30, rdn, r.len);
}

sl_err sl_staking_cert(const sl_staking_key *k, const uint8_t serial[8], const char *cn,
		       uint8_t out[SL_STAKING_CERT_MAX], size_t *len)
{
	if (strlen(cn) > 64)
		return SL_ERR_TOO_LARGE;
	uint8_t tbs[400], tmp[160];
	der t = { .p = tbs, .cap = sizeof tbs };
	static const uint8_t version3[] = { 0xa0, 0x03, 0x02, 0x01, 0x02 };
	der_raw(&t, version3, sizeof version3);
	uint8_t sn[8];
	memcpy(sn, serial, 8);
	sn[0] = (uint8_t)((sn[0] & 0x3f) | 0x40); /* positive, no leading zero: always 8 bytes */
	der_uint(&t, sn, 8);
	der_tlv(&t, 0x30, oid_ecdsa_sha256, sizeof oid_ecdsa_sha256);
	der_name(&t, cn);
	der v = { .p = tmp, .cap = sizeof tmp };
	der_tlv(&v, 0x17, "000101000000Z", 13);	  /* UTCTime 2000-01-01 */
	der_tlv(&v, 0x18, "99991231235959Z", 15); /* GeneralizedTime: no expiry */
	der_tlv(&t, 0x30, tmp, v.len);
	der_name(&t, cn);
	der p = { .p = tmp, .cap = sizeof tmp };
	der_raw(&p, spki_alg, sizeof spki_alg);
	uint8_t bits[66] = { 0 }; /* BIT STRING: no unused bits, then the point */
	memcpy(bits + 1, k->pub, 65);
	der_tlv(&p, 0x03, bits, sizeof bits);
	der_tlv(&t, 0x30, tmp, p.len);
	if (t.over || v.over || p.over)
		return SL_ERR_INTERNAL;

	uint8_t tbs_der[404];
	der td = { .p = tbs_der, .cap = sizeof tbs_der };
	der_tlv(&td, 0x30, tbs, t.len);
	uint8_t sig[1 + SL_STAKING_SIG_MAX];
	size_t siglen;
	sl_err e = sl_staking_sign(k, tbs_der, td.len, sig + 1, &siglen);
	if (e)
		return e;
	sig[0] = 0; /* no unused bits */
	uint8_t body[SL_STAKING_CERT_MAX];
	der b = { .p = body, .cap = sizeof body };
	der_raw(&b, tbs_der, td.len);
	der_tlv(&b, 0x30, oid_ecdsa_sha256, sizeof oid_ecdsa_sha256);
	der_tlv(&b, 0x03, sig, siglen + 1);
	der o = { .p = out, .cap = SL_STAKING_CERT_MAX };
	der_tlv(&o, 0x30, body, b.len);
	if (td.over || b.over || o.over)
		return SL_ERR_INTERNAL;
	*len = o.len;
	return SL_OK;
}

void sl_staking_node_id(const uint8_t *cert, size_t len, uint8_t out[20]) { sl_hash160(cert, len, out); }

/* ---- checking with OpenSSL's own parser and verifier ---- */

static X509 *parse(const uint8_t *cert, size_t len)
{
	const unsigned char *p = cert;
	X509 *x = d2i_X509(NULL, &p, (long)len);
	if (x && p != cert + len) { /* trailing bytes: not one certificate */
		X509_free(x);
		return NULL;
	}
	return x;
}

sl_err sl_staking_verify(const uint8_t *cert, size_t cert_len, const void *msg, size_t n, const uint8_t *sig,
			 size_t sig_len)
{
	X509 *x = parse(cert, cert_len);
	if (!x)
		return SL_ERR_INVALID;
	EVP_PKEY *pk = X509_get0_pubkey(x);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	sl_err e = SL_ERR_CHECKSUM;
	if (!pk || !md)
		e = pk ? SL_ERR_NOMEM : SL_ERR_INVALID;
	else if (EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, pk) == 1 &&
		 EVP_DigestVerify(md, sig, sig_len, msg, n) == 1)
		e = SL_OK;
	EVP_MD_CTX_free(md);
	X509_free(x);
	return e;
}

sl_err sl_staking_cert_check(const uint8_t *cert, size_t len, uint8_t pub65[65])
{
	X509 *x = parse(cert, len);
	if (!x)
		return SL_ERR_INVALID;
	EVP_PKEY *pk = X509_get0_pubkey(x);
	sl_err e = SL_OK;
	size_t n = 0;
	char curve[32] = "";
	if (!pk || !EVP_PKEY_is_a(pk, "EC") ||
	    !EVP_PKEY_get_utf8_string_param(pk, "group", curve, sizeof curve, NULL) ||
	    strcmp(curve, "prime256v1"))
		e = SL_ERR_UNSUPPORTED;
	else if (X509_verify(x, pk) != 1)
		e = SL_ERR_CHECKSUM;
	else if (pub65 && (!EVP_PKEY_get_octet_string_param(pk, "encoded-pub-key", pub65, 65, &n) || n != 65))
		e = SL_ERR_UNSUPPORTED;
	X509_free(x);
	return e;
}
