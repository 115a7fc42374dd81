/*
 * pubkeys.c — the public keys credentials' signatures recover to, for the
 * transaction lists (credentials[].publicKey), cached.
 *
 * A recovery costs some 30-50 us of secp256k1 arithmetic, and a page of 100
 * X-chain txs shows a few hundred signatures — most of them twice or more,
 * since a key signs every input it owns in a tx with the same signature. The
 * key recovered from (sighash, signature) is a fact of those bytes alone, so
 * it is cached under both, whole: no entry can answer for other bytes. The
 * cache is a fixed table (set-associative, a few MB), so it neither grows
 * nor needs expiring; a full set replaces its oldest entry.
 */
#include "api/internal.h"

#include <pthread.h>

#include "crypto/secp.h"

#define SETS 8192 /* x WAYS entries of 132 bytes: ~4 MB */
#define WAYS 4
#define LOCKS 64

typedef struct entry {
	uint8_t hash[32], sig[65], pub[33];
	bool used, ok;
} entry;

struct api_pubkeys {
	pthread_mutex_t lock[LOCKS];
	entry e[SETS][WAYS]; /* way 0 the newest */
};

struct api_pubkeys *api_pubkeys_new(void)
{
	struct api_pubkeys *c = calloc(1, sizeof *c);
	if (c)
		for (int i = 0; i < LOCKS; i++)
			pthread_mutex_init(&c->lock[i], NULL);
	return c;
}

void api_pubkeys_free(struct api_pubkeys *c)
{
	if (!c)
		return;
	for (int i = 0; i < LOCKS; i++)
		pthread_mutex_destroy(&c->lock[i]);
	free(c);
}

bool api_pubkey(api_req *r, const uint8_t hash[32], const uint8_t sig[65], uint8_t pub[33])
{
	struct api_pubkeys *c = r->api->pubkeys;
	if (!c)
		return sl_secp_recover_pubkey(hash, sig, pub);
	/* r (the signature's first 32 bytes) is uniformly random: its bytes pick the set */
	size_t set = (size_t)(sl_be32(sig) ^ sl_be32(hash)) % SETS;
	pthread_mutex_t *lock = &c->lock[set % LOCKS];
	entry *s = c->e[set];
	pthread_mutex_lock(lock);
	for (int w = 0; w < WAYS; w++)
		if (s[w].used && !memcmp(s[w].sig, sig, 65) && !memcmp(s[w].hash, hash, 32)) {
			bool ok = s[w].ok;
			memcpy(pub, s[w].pub, 33);
			pthread_mutex_unlock(lock);
			return ok;
		}
	pthread_mutex_unlock(lock);
	entry n = { .used = true };
	memcpy(n.hash, hash, 32);
	memcpy(n.sig, sig, 65);
	n.ok = sl_secp_recover_pubkey(hash, sig, n.pub);
	memcpy(pub, n.pub, 33);
	pthread_mutex_lock(lock);
	memmove(&s[1], &s[0], (WAYS - 1) * sizeof *s);
	s[0] = n;
	pthread_mutex_unlock(lock);
	return n.ok;
}
