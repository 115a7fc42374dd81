/*
 * vec_evm.h — helpers shared by the proposervm, coreth and warp unit tests:
 * load a vector file, turn hex into bytes, compare ids, and run a decoder
 * over every truncation and single-bit flip of an input.
 *
 * Vector files live in tests/vectors/ (tests run from the repository root)
 * (tests run from the root); SNOWLINE_VECTORS overrides the directory.
 */
#ifndef VEC_EVM_H
#define VEC_EVM_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>
#include <jansson.h>

#include "crypto/cb58.h"
#include "util/common.h"
#include "util/jw.h"

/*
 * jansson stores integers as int64 and refuses larger ones; some vectors
 * carry u64 values above 2^63. Before parsing, quote every bare number of
 * 19 or more digits (outside strings) so it arrives as a string; vec_u64()
 * reads either form.
 */
static inline json_t *vec_loadb(const char *in, size_t n, json_error_t *jerr)
{
	char *out = malloc(n * 2 + 1);
	assert_non_null(out);
	size_t o = 0;
	bool instr = false;
	for (size_t i = 0; i < n;) {
		char c = in[i];
		if (instr) {
			out[o++] = c;
			if (c == '\\' && i + 1 < n)
				out[o++] = in[++i];
			else if (c == '"')
				instr = false;
			i++;
			continue;
		}
		if (c == '"') {
			instr = true;
			out[o++] = in[i++];
			continue;
		}
		if (c >= '0' && c <= '9') {
			size_t j = i;
			while (j < n && in[j] >= '0' && in[j] <= '9')
				j++;
			bool big = j - i >= 19 && (j >= n || (in[j] != '.' && in[j] != 'e' && in[j] != 'E'));
			if (big)
				out[o++] = '"';
			memcpy(out + o, in + i, j - i);
			o += j - i;
			if (big)
				out[o++] = '"';
			i = j;
			continue;
		}
		out[o++] = in[i++];
	}
	json_t *root = json_loadb(out, o, JSON_DECODE_ANY, jerr);
	free(out);
	return root;
}

static inline json_t *vec_load_path(const char *path, json_error_t *jerr)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *in = malloc((size_t)sz + 1);
	assert_non_null(in);
	size_t n = fread(in, 1, (size_t)sz, f);
	fclose(f);
	json_t *root = vec_loadb(in, n, jerr);
	free(in);
	return root;
}

static inline json_t *vec_load(const char *file)
{
	const char *dir = getenv("SNOWLINE_VECTORS");
	char path[1024];
	json_error_t jerr = { .text = "not found" };
	json_t *root = NULL;
	if (dir && *dir) {
		snprintf(path, sizeof path, "%s/%s", dir, file);
		root = vec_load_path(path, &jerr);
	}
	if (!root) {
		snprintf(path, sizeof path, "tests/vectors/%s", file);
		root = vec_load_path(path, &jerr);
	}
	if (!root)
		fail_msg("cannot load vector file %s: %s", file, jerr.text);
	return root;
}

/* A u64 given as a JSON integer or (when above 2^63) as a decimal string. */
static inline uint64_t vec_u64(json_t *v)
{
	if (json_is_integer(v))
		return (uint64_t)json_integer_value(v);
	if (json_is_string(v))
		return strtoull(json_string_value(v), NULL, 10);
	fail_msg("not a number");
	return 0;
}

static inline int vec_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode hex (optional 0x) into a malloc'd buffer; *len gets its size. */
static inline uint8_t *vec_unhex(const char *s, size_t *len)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	size_t n = strlen(s);
	assert_int_equal(n % 2, 0);
	uint8_t *out = malloc(n / 2 + 1);
	assert_non_null(out);
	for (size_t i = 0; i < n / 2; i++) {
		int hi = vec_hexval(s[2 * i]), lo = vec_hexval(s[2 * i + 1]);
		assert_true(hi >= 0 && lo >= 0);
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	*len = n / 2;
	return out;
}

static inline const char *vec_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_string(v))
		fail_msg("vector field %s is not a string", key);
	return json_string_value(v);
}

/* Compare p[0..n) with a hex string (optional 0x). */
static inline void vec_assert_hex(const uint8_t *p, size_t n, const char *hex)
{
	size_t len;
	uint8_t *want = vec_unhex(hex, &len);
	if (len != n || (n && memcmp(p, want, n) != 0)) {
		char got[2 * 64 + 8] = "";
		for (size_t i = 0; i < n && i < 64; i++)
			snprintf(got + 2 * i, 3, "%02x", p[i]);
		free(want);
		fail_msg("hex mismatch: got %s (len %zu), want %s", got, n, hex);
	}
	free(want);
}

static inline void vec_assert_cb58(const uint8_t id[32], const char *want)
{
	char got[64];
	size_t n = sl_cb58_id(got, id);
	got[n < sizeof got ? n : sizeof got - 1] = 0;
	assert_string_equal(got, want);
}

/*
 * Feed every proper prefix and every single-bit flip of p[0..n) to `try`,
 * which must return without crashing (ASan/UBSan watch it). Prefixes must
 * fail: a valid value never has a valid proper prefix for these formats.
 */
typedef int (*vec_try_fn)(const uint8_t *p, size_t n, void *ctx);
static inline void vec_mutate(const uint8_t *p, size_t n, vec_try_fn try, void *ctx, bool prefixes_fail)
{
	for (size_t k = 0; k < n; k++) {
		uint8_t *c = malloc(k ? k : 1);
		assert_non_null(c);
		memcpy(c, p, k);
		int rc = try(c, k, ctx);
		if (prefixes_fail && rc == 0)
			fail_msg("prefix of %zu bytes (of %zu) decoded", k, n);
		free(c);
	}
	uint8_t *c = malloc(n);
	assert_non_null(c);
	memcpy(c, p, n);
	size_t step = n > 4096 ? 7 : 1; /* large inputs: sample bit positions */
	for (size_t i = 0; i < n * 8; i += step) {
		c[i / 8] ^= (uint8_t)(1u << (i % 8));
		(void)try(c, n, ctx);
		c[i / 8] ^= (uint8_t)(1u << (i % 8));
	}
	free(c);
}

/* Parse what a JSON writer produced; fails the test if it is not valid JSON. */
static inline json_t *vec_json_of(const sl_buf *b)
{
	assert_int_equal(b->err, SL_OK);
	json_error_t jerr;
	json_t *j = vec_loadb((const char *)b->p, b->len, &jerr);
	if (!j)
		fail_msg("invalid JSON (%s): %.200s", jerr.text, sl_buf_str(b));
	return j;
}

#endif
