/*
 * rewards.h — the P-chain's staking reward formula (wire-formats.md §12),
 * for the indexer's supply and potential rewards and the devnet generator.
 *
 * Calculate (avalanchego's reward.Calculator for the primary network):
 *
 *   d   = staking duration in NANOSECONDS
 *   M   = minting period in nanoseconds
 *   S   = current supply at the moment the staker became current
 *   num = (maxRate - minRate) * d + minRate * M
 *   den = M * 1,000,000
 *   reward = floor(floor(floor((cap - S) * num * stake * d / den) / S) / M)
 *   reward = min(reward, cap - S)            (0 when S >= cap or S == 0)
 *
 * The product needs up to ~251 bits, so it is computed exactly in 256-bit
 * integers and divided in the same order, flooring each time: dividing
 * earlier, or working in seconds, gives different answers.
 *
 * Split (reward.Split): a delegator's reward between the delegatee
 * (validator, `shares` parts per million) and the delegator:
 *   remainder = floor((1e6 - shares) * total / 1e6)
 *               or, when that product overflows 64 bits,
 *               (1e6 - shares) * floor(total / 1e6)
 *   delegatee = total - remainder; delegator = remainder.
 *
 * Pure functions: no state, no allocation.
 */
#ifndef SL_CODEC_REWARDS_H
#define SL_CODEC_REWARDS_H

#include "util/common.h"

#define SL_REWARD_PERCENT_DENOMINATOR 1000000u

typedef struct sl_reward_config {
	uint64_t max_consumption_rate; /* parts per million, e.g. 120000 */
	uint64_t min_consumption_rate; /* e.g. 100000 */
	uint64_t minting_period_s;     /* seconds, e.g. 365 days */
	uint64_t supply_cap;	       /* nAVAX, e.g. 720e15 */
} sl_reward_config;

/* avalanchego's RewardConfig of the primary network (mainnet, Fuji and local alike). */
extern const sl_reward_config sl_reward_primary;

/* The potential reward of `stake` nAVAX staked for `duration_s` seconds at `supply`. */
uint64_t sl_reward_calculate(const sl_reward_config *c, uint64_t duration_s, uint64_t stake, uint64_t supply);

/* Split `total` by `shares` (ppm, <= 1e6): *delegatee gets the fee, *delegator the rest. */
void sl_reward_split(uint64_t total, uint32_t shares, uint64_t *delegatee, uint64_t *delegator);

#endif
