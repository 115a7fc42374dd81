/* rewards.c — the staking reward formula in exact 256-bit arithmetic (see rewards.h). */
#include "codec/rewards.h"

#include "util/u256.h"

uint64_t sl_reward_calculate(const sl_reward_config *c, uint64_t duration_s, uint64_t stake, uint64_t supply)
{
	if (supply == 0 || supply >= c->supply_cap || c->minting_period_s == 0)
		return 0;
	/* time.Duration: nanoseconds (fits: 2^63 ns is 292 years). */
	sl_u128 d = (sl_u128)duration_s * 1000000000u;
	sl_u128 m = (sl_u128)c->minting_period_s * 1000000000u;
	uint64_t remaining = c->supply_cap - supply;
	sl_u128 num = (sl_u128)(c->max_consumption_rate - c->min_consumption_rate) * d +
		      (sl_u128)c->min_consumption_rate * m;
	sl_u128 den = m * SL_REWARD_PERCENT_DENOMINATOR;

	sl_u256 r = sl_u256_of(remaining);
	sl_u256_mul128(&r, num);
	sl_u256_mul64(&r, stake);
	sl_u256_mul128(&r, d);
	sl_u256_div128(&r, den);
	sl_u256_div128(&r, supply);
	sl_u256_div128(&r, m);
	if (!sl_u256_is_u64(&r) || r.w[0] > remaining)
		return remaining;
	return r.w[0];
}

void sl_reward_split(uint64_t total, uint32_t shares, uint64_t *delegatee, uint64_t *delegator)
{
	uint64_t rs = shares >= SL_REWARD_PERCENT_DENOMINATOR ? 0 : SL_REWARD_PERCENT_DENOMINATOR - shares;
	uint64_t rem;
	sl_u128 p = (sl_u128)rs * total;
	if (p >> 64)
		rem = rs * (total / SL_REWARD_PERCENT_DENOMINATOR);
	else
		rem = (uint64_t)p / SL_REWARD_PERCENT_DENOMINATOR;
	*delegatee = total - rem;
	*delegator = rem;
}

const sl_reward_config sl_reward_primary = {
	/* avalanchego genesis/genesis_{mainnet,fuji,local}.go: RewardConfig */
	.max_consumption_rate = 120000,
	.min_consumption_rate = 100000,
	.minting_period_s = 365ull * 24 * 3600,
	.supply_cap = 720000000000000000ull,
};
