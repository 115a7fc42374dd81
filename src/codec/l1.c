#include "codec/l1.h"

#include "util/u256.h"

sl_err sl_l1_tx_message(const sl_pchain_utx *u, sl_warp_l1_msg *msg)
{
	sl_warp_message m;
	sl_warp_payload p;
	sl_err_detail d;
	sl_err e = sl_warp_message_decode(u->message.p, u->message.len, &m, &d);
	if (!e)
		e = sl_warp_payload_decode(m.msg.payload.p, m.msg.payload.len, &p, &d);
	if (!e && p.type != SL_WARP_PAYLOAD_ADDRESSED_CALL)
		e = SL_ERR_INVALID;
	if (!e)
		e = sl_warp_l1_decode(p.payload.p, p.payload.len, msg, &d);
	return e;
}

size_t sl_l1_validation_ids(const sl_pchain_utx *u, uint8_t (*out)[32], size_t max)
{
	sl_warp_l1_msg m;
	switch (u->type_id) {
	case SL_P_CONVERT_SUBNET_TO_L1_TX:
		for (uint32_t i = 0; i < u->nvalidators && i < max; i++)
			sl_pchain_l1_validation_id(u->subnet_id, i, out[i]);
		return SL_MIN(u->nvalidators, max);
	case SL_P_REGISTER_L1_VALIDATOR_TX:
		if (!max || sl_l1_tx_message(u, &m) || m.type != SL_WARP_L1_REGISTER_VALIDATOR)
			return 0;
		memcpy(out[0], m.id, 32);
		return 1;
	case SL_P_SET_L1_VALIDATOR_WEIGHT_TX:
		if (!max || sl_l1_tx_message(u, &m) || m.type != SL_WARP_L1_VALIDATOR_WEIGHT ||
		    m.validation_id.len != 32)
			return 0;
		memcpy(out[0], m.validation_id.p, 32);
		return 1;
	case SL_P_INCREASE_L1_VALIDATOR_BALANCE_TX:
	case SL_P_DISABLE_L1_VALIDATOR_TX:
		if (!max || !u->validation_id)
			return 0;
		memcpy(out[0], u->validation_id, 32);
		return 1;
	default: return 0;
	}
}

/* ---- ACP-77's continuous fee -------------------------------------------------- */

/*
 * minPrice · e^(excess / K) by the Taylor series in integers, as avalanchego's
 * gas.CalculatePrice computes it (the "fake exponential"): the sum of
 * minPrice·K·(excess/K)^i / i!, each term from the last, divided by K at the
 * end; MaxUint64 once the sum reaches K·MaxUint64.
 */
uint64_t sl_gas_price(uint64_t min_price, uint64_t excess, uint64_t k)
{
	if (!k)
		return 0; /* as uint256's division by zero: 0 */
	sl_u256 out = sl_u256_of(0), acc = sl_u256_of(min_price), max = sl_u256_of(k);
	sl_u256_mul64(&acc, k);
	sl_u256_mul64(&max, UINT64_MAX);
	for (uint64_t i = 1; !sl_u256_is_zero(&acc); i++) {
		sl_u256_add(&out, &acc);
		if (sl_u256_cmp(&out, &max) >= 0)
			return UINT64_MAX;
		sl_u256_mul64(&acc, excess);
		sl_u256_div64(&acc, k);
		sl_u256_div64(&acc, i);
	}
	sl_u256_div64(&out, k);
	return out.w[0];
}

sl_l1_fee_state sl_l1_fee_advance(sl_l1_fee_state s, uint64_t target, uint64_t seconds)
{
	if (s.current < target) {
		uint64_t drop = sl_sat_mul(target - s.current, seconds);
		s.excess = drop >= s.excess ? 0 : s.excess - drop;
	} else if (s.current > target) {
		s.excess = sl_sat_add(s.excess, sl_sat_mul(s.current - target, seconds));
	}
	return s;
}

uint64_t sl_l1_fee_cost(sl_l1_fee_state s, const sl_l1_fee_config *c, uint64_t seconds)
{
	if (s.current == c->target)
		return sl_sat_mul(seconds, sl_gas_price(c->min_price, s.excess, c->excess_k));
	uint64_t cost = 0;
	for (uint64_t i = 0; i < seconds; i++) {
		s = sl_l1_fee_advance(s, c->target, 1);
		/* excess that reaches 0 stays there: the rest is at the minimum price */
		if (!s.excess)
			return sl_sat_add(cost, sl_sat_mul(c->min_price, seconds - i));
		cost = sl_sat_add(cost, sl_gas_price(c->min_price, s.excess, c->excess_k));
	}
	return cost;
}

bool sl_l1_fee_config_of(uint32_t network_id, sl_l1_fee_config *c)
{
	/* avalanchego genesis/genesis_{mainnet,fuji,local}.go, ValidatorFeeConfig */
	switch (network_id) {
	case 1: *c = (sl_l1_fee_config){ 20000, 10000, 512, 1246488515 }; return true;
	case 5: *c = (sl_l1_fee_config){ 20000, 10000, 512, 51937021 }; return true;
	case 12345: *c = (sl_l1_fee_config){ 20000, 10000, 1, 865617 }; return true;
	default: return false;
	}
}

int64_t sl_l1_etna_time(uint32_t network_id)
{
	/* avalanchego upgrade/upgrade.go: 2024-12-16 17:00 UTC, 2024-11-25 16:00 UTC */
	return network_id == 1 ? 1734368400 : network_id == 5 ? 1732550400 : 0;
}
