/*
 * codec_vectors.h — helpers the codec unit tests share: load a vector file
 * from tests/vectors (or $SNOWLINE_VECTORS), hex to bytes, and the
 * mutation sweep every decoder must survive.
 *
 * Header-only (static functions) because tests/unit/ is not a library.
 */
#ifndef SL_TEST_CODEC_VECTORS_H
#define SL_TEST_CODEC_VECTORS_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "crypto/addr.h"
#include "crypto/cb58.h"
#include "util/common.h"

static SL_UNUSED json_t *vec_load(const char *name)
{
	char path[1024];
	const char *dirs[] = { getenv("SNOWLINE_VECTORS"), "tests/vectors" };
	for (size_t i = 0; i < SL_ARRAY_LEN(dirs); i++) {
		if (!dirs[i])
			continue;
		snprintf(path, sizeof path, "%s/%s", dirs[i], name);
		json_error_t e;
		json_t *j = json_load_file(path, JSON_DECODE_INT_AS_REAL, &e);
		if (j)
			return j;
	}
	fprintf(stderr, "cannot load vector file %s\n", name);
	return NULL;
}

static SL_UNUSED int vec_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex (no 0x) to a malloc'd byte array; NULL on bad hex. */
static SL_UNUSED uint8_t *vec_hex(const char *hex, size_t *n)
{
	size_t len = strlen(hex);
	if (len >= 2 && hex[0] == '0' && hex[1] == 'x')
		hex += 2, len -= 2;
	if (len % 2)
		return NULL;
	uint8_t *p = malloc(len / 2 + 1);
	for (size_t i = 0; i < len / 2; i++) {
		int hi = vec_nibble(hex[2 * i]), lo = vec_nibble(hex[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			free(p);
			return NULL;
		}
		p[i] = (uint8_t)(hi << 4 | lo);
	}
	*n = len / 2;
	return p;
}

static SL_UNUSED const char *vec_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/*
 * Every prefix (sampled past 1200 bytes) and one bit flip per byte
 * position: `check` decodes the bytes and returns false only if the
 * decode succeeded but re-encoding did not reproduce them. Returns the
 * number of inconsistent variants (0 is a pass).
 */
static SL_UNUSED int vec_mutate(const uint8_t *p, size_t n, bool (*check)(const uint8_t *, size_t))
{
	int bad = 0;
	uint8_t *m = malloc(n ? n : 1);
	size_t step = n > 1200 ? n / 600 : 1;
	for (size_t len = 0; len < n; len += step) {
		memcpy(m, p, len);
		if (!check(m, len))
			bad++;
	}
	for (size_t i = 0; i < n; i += (n > 1200 ? 2 : 1)) {
		memcpy(m, p, n);
		m[i] ^= (uint8_t)(1u << (i % 8));
		if (!check(m, n))
			bad++;
		m[i] = p[i] ^ 0xff;
		if (!check(m, n))
			bad++;
	}
	free(m);
	return bad;
}

/*
 * Representation choices where avalanchego's JSON (what we write) and the
 * reference decoder differ: a node id in a `bytes` field is hex for
 * avalanchego ("NodeID-…" in the vectors); a [96]byte is an array of numbers.
 */
static SL_UNUSED bool alt_equal(json_t *want, json_t *got)
{
	if (!json_is_string(want))
		return false;
	const char *ws = json_string_value(want);
	if (json_is_string(got) && !strncmp(ws, "NodeID-", 7)) {
		size_t n;
		uint8_t *p = vec_hex(json_string_value(got), &n);
		bool ok = false;
		if (p && n == 20) {
			sl_buf b;
			sl_buf_init(&b, 128);
			sl_nodeid_write(&b, p);
			ok = !strcmp(sl_buf_str(&b), ws);
			sl_buf_release(&b);
		}
		free(p);
		return ok;
	}
	/* PChainOwner addresses are ids.ShortID in Go: cb58, no chain prefix */
	if (json_is_string(got) && strchr(ws, '-') && strncmp(ws, "NodeID-", 7)) {
		char alias[16], hrp[SL_HRP_MAX_LEN + 1];
		uint8_t a[20];
		if (sl_addr_parse(ws, strlen(ws), alias, sizeof alias, hrp, a))
			return false;
		sl_buf b;
		sl_buf_init(&b, 128);
		sl_cb58_write(&b, a, 20);
		bool ok = !strcmp(sl_buf_str(&b), json_string_value(got));
		sl_buf_release(&b);
		return ok;
	}
	if (json_is_array(got) && !strncmp(ws, "0x", 2)) {
		size_t n;
		uint8_t *p = vec_hex(ws, &n);
		bool ok = p && n == json_array_size(got);
		for (size_t i = 0; ok && i < n; i++)
			ok = (int)json_number_value(json_array_get(got, i)) == p[i];
		free(p);
		return ok;
	}
	return false;
}

/*
 * Every leaf of `want` (the reference decoder's view) must be present and
 * equal in `got`, except bookkeeping keys our JSON does not carry.
 */
static SL_UNUSED bool subset(json_t *want, json_t *got, const char *path)
{
	if (json_is_object(want)) {
		if (!json_is_object(got)) {
			fprintf(stderr, "%s: not an object\n", path);
			return false;
		}
		const char *k;
		json_t *v;
		json_object_foreach(want, k, v)
		{
			if (!strcmp(k, "type") || !strcmp(k, "typeID") || !strcmp(k, "unsignedBytesHash") ||
			    !strcmp(k, "signedBytesLen") || !strcmp(k, "message_decoded"))
				continue;
			char sub[512];
			snprintf(sub, sizeof sub, "%s.%s", path, k);
			if (!subset(v, json_object_get(got, k), sub))
				return false;
		}
		return true;
	}
	if (json_is_array(want)) {
		if (!json_is_array(got) || json_array_size(got) != json_array_size(want)) {
			fprintf(stderr, "%s: array size differs\n", path);
			return false;
		}
		for (size_t i = 0; i < json_array_size(want); i++) {
			char sub[512];
			snprintf(sub, sizeof sub, "%s[%zu]", path, i);
			if (!subset(json_array_get(want, i), json_array_get(got, i), sub))
				return false;
		}
		return true;
	}
	if (got && alt_equal(want, got))
		return true;
	if (!got || !json_equal(want, got)) {
		char *a = json_dumps(want, JSON_ENCODE_ANY),
		     *b = got ? json_dumps(got, JSON_ENCODE_ANY) : NULL;
		fprintf(stderr, "%s: want %s got %s\n", path, a, b ? b : "(missing)");
		free(a);
		free(b);
		return false;
	}
	return true;
}

#endif
