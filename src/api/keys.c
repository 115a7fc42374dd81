/*
 * keys.c — API keys. The keys file holds one key per line, hashed:
 *
 *   # name   sha256(key), hex                                         rate/s burst
 *   alice    3a6e…(64 hex digits)                                     200    400
 *
 * Rate and burst are optional (the server's --key-rate / --key-burst then).
 * `snowline api --new-key NAME` makes a random key and prints its line. A
 * request names its key in x-data-api-key (or x-glacier-api-key, which the
 * official SDK sends); an unknown key is refused (401), no key at all is an
 * anonymous request with the anonymous rate limit.
 */
#include "api/internal.h"

#include <errno.h>
#include <stdio.h>

#include "crypto/hash.h"
#include "util/hex.h"

#define MAX_KEYS 100000

struct sl_api_keys {
	sl_api_key *v;
	size_t n;
};

struct sl_api_keys *api_keys_load(const char *path, char err[512])
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, 512, "keys file %s: %s", path, strerror(errno));
		return NULL;
	}
	struct sl_api_keys *k = calloc(1, sizeof *k);
	char line[512];
	unsigned lineno = 0;
	bool ok = k != NULL;
	size_t cap = 0;
	while (ok && fgets(line, sizeof line, f)) {
		lineno++;
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || !*p)
			continue;
		char name[64], hash[128];
		double rate = 0, burst = 0;
		int got = sscanf(p, "%63s %127s %lf %lf", name, hash, &rate, &burst);
		sl_api_key key = { .rate = rate, .burst = burst };
		size_t len = 0;
		if (got < 2 || strlen(hash) != 64 || sl_hex_decode(hash, 64, key.hash, 32, &len) ||
		    rate < 0 || burst < 0) {
			snprintf(err, 512, "keys file %s, line %u: want 'name sha256-hex [rate burst]'", path,
				 lineno);
			ok = false;
			break;
		}
		snprintf(key.name, sizeof key.name, "%s", name);
		if (k->n == cap) {
			if (cap >= MAX_KEYS) {
				snprintf(err, 512, "keys file %s: more than %d keys", path, MAX_KEYS);
				ok = false;
				break;
			}
			cap = cap ? 2 * cap : 16;
			sl_api_key *v = realloc(k->v, cap * sizeof *v);
			if (!v) {
				snprintf(err, 512, "out of memory");
				ok = false;
				break;
			}
			k->v = v;
		}
		k->v[k->n++] = key;
	}
	fclose(f);
	if (!ok) {
		api_keys_free(k);
		return NULL;
	}
	return k;
}

void api_keys_free(struct sl_api_keys *k)
{
	if (!k)
		return;
	free(k->v);
	free(k);
}

const sl_api_key *api_keys_find(const struct sl_api_keys *k, const char *key, size_t n)
{
	uint8_t h[32];
	sl_sha256(key, n, h);
	const sl_api_key *found = NULL;
	/* every key compared in constant time, so timing tells nothing of the hashes */
	for (size_t i = 0; i < k->n; i++)
		if (sl_equal_ct(k->v[i].hash, h, 32))
			found = &k->v[i];
	return found;
}

void sl_api_new_key(const char *name, sl_buf *out)
{
	uint8_t raw[24], h[32];
	FILE *f = fopen("/dev/urandom", "rb");
	bool ok = f && fread(raw, 1, sizeof raw, f) == sizeof raw;
	if (f)
		fclose(f);
	if (!ok)
		return;
	sl_buf key;
	sl_buf_init(&key, 256);
	sl_buf_adds(&key, "sl_");
	sl_buf_add_hex(&key, raw, sizeof raw);
	sl_sha256(key.p, key.len, h);
	sl_buf_addf(out, "%s\n%s ", sl_buf_str(&key), name);
	sl_buf_add_hex(out, h, 32);
	sl_buf_addc(out, '\n');
	sl_buf_release(&key);
}
