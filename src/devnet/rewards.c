/* rewards.c — the staking reward formula in exact 256-bit arithmetic (see rewards.h). */
#include "devnet/rewards.h"

typedef unsigned __int128 u128;

/* Little-endian 64-bit limbs; every value here stays below 2^256. */
typedef struct u256 {
	uint64_t w[4];
} u256;

static void u256_mul64(u256 *x, uint64_t m)
{
	u128 carry = 0;
	for (int i = 0; i < 4; i++) {
		u128 t = (u128)x->w[i] * m + carry;
		x->w[i] = (uint64_t)t;
		carry = t >> 64;
	}
}

static void u256_add(u256 *x, const u256 *y)
{
	u128 carry = 0;
	for (int i = 0; i < 4; i++) {
		u128 t = (u128)x->w[i] + y->w[i] + carry;
		x->w[i] = (uint64_t)t;
		carry = t >> 64;
	}
}

/* x *= m for a 128-bit m: x*lo + (x*hi << 64). */
static void u256_mul128(u256 *x, u128 m)
{
	u256 lo = *x, hi = *x;
	u256_mul64(&lo, (uint64_t)m);
	u256_mul64(&hi, (uint64_t)(m >> 64));
	u256 shifted = { { 0, hi.w[0], hi.w[1], hi.w[2] } };
	u256_add(&lo, &shifted);
	*x = lo;
}

/* x = floor(x / d), d > 0 and below 2^127 (so the running remainder never overflows). */
static void u256_div128(u256 *x, u128 d)
{
	u256 q = { { 0 } };
	u128 rem = 0;
	for (int bit = 255; bit >= 0; bit--) {
		rem = rem << 1 | ((x->w[bit / 64] >> (bit % 64)) & 1);
		if (rem >= d) {
			rem -= d;
			q.w[bit / 64] |= (uint64_t)1 << (bit % 64);
		}
	}
	*x = q;
}

uint64_t dn_reward_calculate(const dn_reward_config *c, uint64_t duration_s, uint64_t stake, uint64_t supply)
{
	if (supply == 0 || supply >= c->supply_cap || c->minting_period_s == 0)
		return 0;
	/* time.Duration: nanoseconds (fits: 2^63 ns is 292 years). */
	u128 d = (u128)duration_s * 1000000000u;
	u128 m = (u128)c->minting_period_s * 1000000000u;
	uint64_t remaining = c->supply_cap - supply;
	u128 num = (u128)(c->max_consumption_rate - c->min_consumption_rate) * d +
		   (u128)c->min_consumption_rate * m;
	u128 den = m * DN_REWARD_PERCENT_DENOMINATOR;

	u256 r = { { remaining, 0, 0, 0 } };
	u256_mul128(&r, num);
	u256_mul64(&r, stake);
	u256_mul128(&r, d);
	u256_div128(&r, den);
	u256_div128(&r, supply);
	u256_div128(&r, m);
	if (r.w[1] || r.w[2] || r.w[3] || r.w[0] > remaining)
		return remaining;
	return r.w[0];
}

void dn_reward_split(uint64_t total, uint32_t shares, uint64_t *delegatee, uint64_t *delegator)
{
	uint64_t rs = shares >= DN_REWARD_PERCENT_DENOMINATOR ? 0 : DN_REWARD_PERCENT_DENOMINATOR - shares;
	uint64_t rem;
	u128 p = (u128)rs * total;
	if (p >> 64)
		rem = rs * (total / DN_REWARD_PERCENT_DENOMINATOR);
	else
		rem = (uint64_t)p / DN_REWARD_PERCENT_DENOMINATOR;
	*delegatee = total - rem;
	*delegator = rem;
}
