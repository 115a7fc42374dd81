/*
 * u256.h — unsigned 256-bit integers, just what the P-chain's exact
 * formulas need (codec/rewards.c: the staking reward; codec/l1.c: the L1
 * validator fee's exponential): little-endian 64-bit limbs, arithmetic
 * modulo 2^256 (callers keep their values below it), division flooring.
 */
#ifndef SL_UTIL_U256_H
#define SL_UTIL_U256_H

#include "util/common.h"

typedef unsigned __int128 sl_u128;

typedef struct sl_u256 {
	uint64_t w[4];
} sl_u256;

static inline sl_u256 sl_u256_of(uint64_t v) { return (sl_u256){ { v, 0, 0, 0 } }; }

static inline bool sl_u256_is_zero(const sl_u256 *a) { return !(a->w[0] | a->w[1] | a->w[2] | a->w[3]); }

/* Does it fit 64 bits? */
static inline bool sl_u256_is_u64(const sl_u256 *a) { return !(a->w[1] | a->w[2] | a->w[3]); }

static inline void sl_u256_add(sl_u256 *a, const sl_u256 *b)
{
	sl_u128 carry = 0;
	for (int i = 0; i < 4; i++) {
		sl_u128 s = (sl_u128)a->w[i] + b->w[i] + carry;
		a->w[i] = (uint64_t)s;
		carry = s >> 64;
	}
}

static inline void sl_u256_mul64(sl_u256 *a, uint64_t m)
{
	sl_u128 carry = 0;
	for (int i = 0; i < 4; i++) {
		sl_u128 p = (sl_u128)a->w[i] * m + carry;
		a->w[i] = (uint64_t)p;
		carry = p >> 64;
	}
}

/* a *= m for a 128-bit m: a*lo + (a*hi << 64). */
static inline void sl_u256_mul128(sl_u256 *a, sl_u128 m)
{
	sl_u256 lo = *a, hi = *a;
	sl_u256_mul64(&lo, (uint64_t)m);
	sl_u256_mul64(&hi, (uint64_t)(m >> 64));
	sl_u256 shifted = { { 0, hi.w[0], hi.w[1], hi.w[2] } };
	sl_u256_add(&lo, &shifted);
	*a = lo;
}

/* a = floor(a / d), d > 0. */
static inline void sl_u256_div64(sl_u256 *a, uint64_t d)
{
	sl_u128 rem = 0;
	for (int i = 3; i >= 0; i--) {
		sl_u128 cur = rem << 64 | a->w[i];
		a->w[i] = (uint64_t)(cur / d);
		rem = cur % d;
	}
}

/* a = floor(a / d), 0 < d < 2^127 (so the running remainder never overflows). */
static inline void sl_u256_div128(sl_u256 *a, sl_u128 d)
{
	sl_u256 q = { { 0 } };
	sl_u128 rem = 0;
	for (int bit = 255; bit >= 0; bit--) {
		rem = rem << 1 | ((a->w[bit / 64] >> (bit % 64)) & 1);
		if (rem >= d) {
			rem -= d;
			q.w[bit / 64] |= (uint64_t)1 << (bit % 64);
		}
	}
	*a = q;
}

static inline int sl_u256_cmp(const sl_u256 *a, const sl_u256 *b)
{
	for (int i = 3; i >= 0; i--)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i] ? -1 : 1;
	return 0;
}

#endif
