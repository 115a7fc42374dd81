/*
 * common.h — what every snowline file includes first.
 *
 * Small helpers that the C library lacks, and the banned-function list: the
 * functions below cannot bound their output or report errors, so they are
 * poisoned and any use fails the build (git's banned.h does the same).
 */
#ifndef SL_COMMON_H
#define SL_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SL_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define SL_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SL_MAX(a, b) ((a) > (b) ? (a) : (b))
#define SL_MUST_USE __attribute__((warn_unused_result))
#define SL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define SL_UNUSED __attribute__((unused))

/* Big-endian loads and stores: every wire format here is big-endian. */
/* Saturating u64 arithmetic: UINT64_MAX instead of wrapping. */
static inline uint64_t sl_sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static inline uint64_t sl_sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static inline uint16_t sl_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t sl_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t sl_be64(const uint8_t *p) { return (uint64_t)sl_be32(p) << 32 | sl_be32(p + 4); }
static inline void sl_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}
static inline void sl_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}
static inline void sl_put_be64(uint8_t *p, uint64_t v)
{
	sl_put_be32(p, (uint32_t)(v >> 32));
	sl_put_be32(p + 4, (uint32_t)v);
}

/* FNV-1a, 64-bit, over n bytes, continuing from h (start with SL_FNV_OFFSET): the hash of the
 * in-memory tables keyed by strings (routes, rate-limit buckets, metric series, cached responses). */
#define SL_FNV_OFFSET 1469598103934665603ull
static inline uint64_t sl_fnv1a(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

/* A byte span that does not own its memory. */
typedef struct sl_span {
	const uint8_t *p;
	size_t len;
} sl_span;

static inline sl_span sl_span_of(const void *p, size_t len) { return (sl_span){ (const uint8_t *)p, len }; }
static inline sl_span sl_span_str(const char *s) { return (sl_span){ (const uint8_t *)s, strlen(s) }; }
static inline bool sl_span_eq(sl_span a, const char *s)
{
	size_t n = strlen(s);
	return a.len == n && memcmp(a.p, s, n) == 0;
}

/* System headers above are included first so their own declarations are untouched. */
#define SL_BANNED(f) sorry_##f##_is_banned_in_snowline
#undef strcpy
#define strcpy(a, b) SL_BANNED(strcpy)
#undef strcat
#define strcat(a, b) SL_BANNED(strcat)
#undef strncpy
#define strncpy(a, b, n) SL_BANNED(strncpy)
#undef sprintf
#define sprintf(...) SL_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) SL_BANNED(vsprintf)
#undef atoi
#define atoi(s) SL_BANNED(atoi)
#undef atol
#define atol(s) SL_BANNED(atol)
#undef gets
#define gets(s) SL_BANNED(gets)

#endif
