#include "crypto/secp.h"

#include <pthread.h>
#include <secp256k1.h>
#include <secp256k1_recovery.h>

#include "crypto/hash.h"

static secp256k1_context *g_ctx; /* written once under g_once, read-only after */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void ctx_create(void)
{
	/* Since libsecp256k1 0.2 one context serves verification, recovery and signing. */
	g_ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
}

static const secp256k1_context *ctx(void)
{
	pthread_once(&g_once, ctx_create);
	return g_ctx;
}

static bool recover(const uint8_t hash32[32], const uint8_t sig65[65], secp256k1_pubkey *pk)
{
	const secp256k1_context *c = ctx();
	secp256k1_ecdsa_recoverable_signature sig;
	if (!c || sig65[64] > 3)
		return false;
	if (!secp256k1_ecdsa_recoverable_signature_parse_compact(c, &sig, sig65, sig65[64]))
		return false;
	return secp256k1_ecdsa_recover(c, pk, &sig, hash32) == 1;
}

static void eth_address(const secp256k1_pubkey *pk, uint8_t out20[20])
{
	uint8_t pub[65], h[32];
	size_t n = sizeof pub;
	secp256k1_ec_pubkey_serialize(ctx(), pub, &n, pk, SECP256K1_EC_UNCOMPRESSED);
	sl_keccak256(pub + 1, 64, h);
	memcpy(out20, h + 12, 20);
}

bool sl_secp_recover_pubkey(const uint8_t hash32[32], const uint8_t sig65[65], uint8_t pub33[33])
{
	secp256k1_pubkey pk;
	size_t n = 33;
	if (!recover(hash32, sig65, &pk)) {
		memset(pub33, 0, 33);
		return false;
	}
	secp256k1_ec_pubkey_serialize(ctx(), pub33, &n, &pk, SECP256K1_EC_COMPRESSED);
	return true;
}

bool sl_secp_recover_address(const uint8_t hash32[32], const uint8_t sig65[65], uint8_t out20[20])
{
	secp256k1_pubkey pk;
	if (!recover(hash32, sig65, &pk)) {
		memset(out20, 0, 20);
		return false;
	}
	eth_address(&pk, out20);
	return true;
}

bool sl_secp_recover_address_rs(const uint8_t hash32[32], const uint8_t *r, size_t rlen, const uint8_t *s,
				size_t slen, uint8_t recid, uint8_t out20[20])
{
	uint8_t sig[65] = { 0 };
	/* Strip leading zeros beyond 32 bytes; anything wider is out of range. */
	while (rlen > 32 && *r == 0) {
		r++;
		rlen--;
	}
	while (slen > 32 && *s == 0) {
		s++;
		slen--;
	}
	if (rlen > 32 || slen > 32 || recid > 1) {
		memset(out20, 0, 20);
		return false;
	}
	if (rlen)
		memcpy(sig + 32 - rlen, r, rlen);
	if (slen)
		memcpy(sig + 64 - slen, s, slen);
	sig[64] = recid;
	return sl_secp_recover_address(hash32, sig, out20);
}

bool sl_secp_recover_short_id(const uint8_t hash32[32], const uint8_t sig65[65], uint8_t out20[20])
{
	uint8_t pub[33];
	if (!sl_secp_recover_pubkey(hash32, sig65, pub)) {
		memset(out20, 0, 20);
		return false;
	}
	sl_hash160(pub, sizeof pub, out20);
	return true;
}

bool sl_secp_sign(const uint8_t seckey[32], const uint8_t hash32[32], uint8_t sig65[65])
{
	const secp256k1_context *c = ctx();
	secp256k1_ecdsa_recoverable_signature sig;
	int recid = 0;
	if (!c || !secp256k1_ecdsa_sign_recoverable(c, &sig, hash32, seckey, NULL, NULL)) {
		memset(sig65, 0, 65);
		return false;
	}
	secp256k1_ecdsa_recoverable_signature_serialize_compact(c, sig65, &recid, &sig);
	sig65[64] = (uint8_t)recid;
	return true;
}

bool sl_secp_pubkey(const uint8_t seckey[32], uint8_t pub33[33])
{
	secp256k1_pubkey pk;
	size_t n = 33;
	if (!ctx() || !secp256k1_ec_pubkey_create(ctx(), &pk, seckey)) {
		memset(pub33, 0, 33);
		return false;
	}
	secp256k1_ec_pubkey_serialize(ctx(), pub33, &n, &pk, SECP256K1_EC_COMPRESSED);
	return true;
}

bool sl_secp_address(const uint8_t seckey[32], uint8_t out20[20])
{
	secp256k1_pubkey pk;
	if (!ctx() || !secp256k1_ec_pubkey_create(ctx(), &pk, seckey)) {
		memset(out20, 0, 20);
		return false;
	}
	eth_address(&pk, out20);
	return true;
}
