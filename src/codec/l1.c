#include "codec/l1.h"

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
