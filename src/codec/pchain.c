#include "codec/pchain.h"

#include "codec/writer.h"
#include "crypto/hash.h"
#include "util/limits.h"

#define P_OWNER SL_TYPE(SL_T_SECP_OUTPUT_OWNERS)
#define P_AUTH SL_TYPE(SL_T_SECP_INPUT)
#define P_SIGNERS (SL_TYPE(SL_P_SIGNER_EMPTY) | SL_TYPE(SL_P_SIGNER_POP))
/* Smallest tx: AdvanceTimeTx = type id + u64; plus an empty credential list. */
#define MIN_TX_IN_BLOCK 16u

static const char *const type_names[43] = {
	[0] = "ApricotProposalBlock",
	[1] = "ApricotAbortBlock",
	[2] = "ApricotCommitBlock",
	[3] = "ApricotStandardBlock",
	[4] = "ApricotAtomicBlock",
	[12] = "AddValidatorTx",
	[13] = "AddSubnetValidatorTx",
	[14] = "AddDelegatorTx",
	[15] = "CreateChainTx",
	[16] = "CreateSubnetTx",
	[17] = "ImportTx",
	[18] = "ExportTx",
	[19] = "AdvanceTimeTx",
	[20] = "RewardValidatorTx",
	[23] = "RemoveSubnetValidatorTx",
	[24] = "TransformSubnetTx",
	[25] = "AddPermissionlessValidatorTx",
	[26] = "AddPermissionlessDelegatorTx",
	[29] = "BanffProposalBlock",
	[30] = "BanffAbortBlock",
	[31] = "BanffCommitBlock",
	[32] = "BanffStandardBlock",
	[33] = "TransferSubnetOwnershipTx",
	[34] = "BaseTx",
	[35] = "ConvertSubnetToL1Tx",
	[36] = "RegisterL1ValidatorTx",
	[37] = "SetL1ValidatorWeightTx",
	[38] = "IncreaseL1ValidatorBalanceTx",
	[39] = "DisableL1ValidatorTx",
	[40] = "AddAutoRenewedValidatorTx",
	[41] = "SetAutoRenewedValidatorConfigTx",
	[42] = "RewardAutoRenewedValidatorTx",
};

#define TX_TYPES                                                                                           \
	(SL_TYPE(12) | SL_TYPE(13) | SL_TYPE(14) | SL_TYPE(15) | SL_TYPE(16) | SL_TYPE(17) | SL_TYPE(18) | \
	 SL_TYPE(19) | SL_TYPE(20) | SL_TYPE(23) | SL_TYPE(24) | SL_TYPE(25) | SL_TYPE(26) | SL_TYPE(33) | \
	 SL_TYPE(34) | SL_TYPE(35) | SL_TYPE(36) | SL_TYPE(37) | SL_TYPE(38) | SL_TYPE(39) | SL_TYPE(40) | \
	 SL_TYPE(41) | SL_TYPE(42))
#define BLOCK_TYPES                                                                                   \
	(SL_TYPE(0) | SL_TYPE(1) | SL_TYPE(2) | SL_TYPE(3) | SL_TYPE(4) | SL_TYPE(29) | SL_TYPE(30) | \
	 SL_TYPE(31) | SL_TYPE(32))

const char *sl_pchain_type_name(uint32_t t) { return t < SL_ARRAY_LEN(type_names) ? type_names[t] : NULL; }
bool sl_pchain_is_tx_type(uint32_t t) { return t < 64 && (TX_TYPES & SL_TYPE(t)); }
bool sl_pchain_is_block_type(uint32_t t) { return t < 64 && (BLOCK_TYPES & SL_TYPE(t)); }

/* ---- pieces ---------------------------------------------------------- */

static void owner_read(sl_dec *d, sl_owners *o)
{
	sl_dec_type(d, P_OWNER);
	sl_avax_owners_decode(d, o);
}
static void owner_write(sl_buf *out, const sl_owners *o)
{
	sl_wr_u32(out, SL_T_SECP_OUTPUT_OWNERS);
	sl_avax_owners_write(out, o);
}

static void auth_read(sl_dec *d, sl_pchain_utx *u)
{
	sl_dec_type(d, P_AUTH);
	sl_avax_sigidx_decode(d, &u->auth);
	u->has_auth = true;
}
static void auth_write(sl_buf *out, const sl_pchain_utx *u)
{
	sl_wr_u32(out, SL_T_SECP_INPUT);
	sl_avax_sigidx_write(out, &u->auth);
}

static void validator_read(sl_dec *d, sl_pchain_utx *u)
{
	u->node_id = sl_rd_take(&d->r, SL_SHORT_ID_LEN);
	u->start = sl_rd_u64(&d->r);
	u->end = sl_rd_u64(&d->r);
	u->weight = sl_rd_u64(&d->r);
}
static void validator_write(sl_buf *out, const sl_pchain_utx *u)
{
	sl_wr_fixed(out, u->node_id, SL_SHORT_ID_LEN);
	sl_wr_u64(out, u->start);
	sl_wr_u64(out, u->end);
	sl_wr_u64(out, u->weight);
}

static void signer_read(sl_dec *d, sl_pchain_signer *s)
{
	s->type_id = sl_dec_type(d, P_SIGNERS);
	if (s->type_id == SL_P_SIGNER_POP) {
		s->public_key = sl_rd_take(&d->r, SL_BLS_PUB_LEN);
		s->pop = sl_rd_take(&d->r, SL_BLS_SIG_LEN);
	}
}
static void signer_write(sl_buf *out, const sl_pchain_signer *s)
{
	sl_wr_u32(out, s->type_id);
	if (s->type_id == SL_P_SIGNER_POP) {
		sl_wr_fixed(out, s->public_key, SL_BLS_PUB_LEN);
		sl_wr_fixed(out, s->pop, SL_BLS_SIG_LEN);
	}
}

static void powner_read(sl_dec *d, sl_pchain_owner *o)
{
	o->threshold = sl_rd_u32(&d->r);
	o->addrs = sl_dec_fixed_list(d, &o->naddrs, SL_SHORT_ID_LEN);
}
static void powner_write(sl_buf *out, const sl_pchain_owner *o)
{
	sl_wr_u32(out, o->threshold);
	sl_wr_u32(out, o->naddrs);
	sl_wr_fixed(out, o->addrs, (size_t)o->naddrs * SL_SHORT_ID_LEN);
}

/* nodeID bytes | weight | balance | pk [48] | pop [96] | 2 owners (>= 8 each) */
#define MIN_L1_VALIDATOR (4u + 8 + 8 + 48 + 96 + 8 + 8)

static void l1_validators_read(sl_dec *d, sl_pchain_utx *u)
{
	u->nvalidators = sl_rd_count(&d->r, SL_CODEC_MAX_SLICE, MIN_L1_VALIDATOR);
	u->validators = sl_dec_array(d, u->nvalidators, sizeof *u->validators);
	for (uint32_t i = 0; i < u->nvalidators && sl_rd_ok(&d->r); i++) {
		sl_l1_validator *v = &u->validators[i];
		v->node_id = sl_rd_var32(&d->r, SL_CODEC_MAX_SIZE);
		v->weight = sl_rd_u64(&d->r);
		v->balance = sl_rd_u64(&d->r);
		v->public_key = sl_rd_take(&d->r, SL_BLS_PUB_LEN);
		v->pop = sl_rd_take(&d->r, SL_BLS_SIG_LEN);
		powner_read(d, &v->remaining_balance_owner);
		powner_read(d, &v->deactivation_owner);
	}
	if (!sl_rd_ok(&d->r))
		u->nvalidators = 0;
}
static void l1_validators_write(sl_buf *out, const sl_pchain_utx *u)
{
	sl_wr_u32(out, u->nvalidators);
	for (uint32_t i = 0; i < u->nvalidators; i++) {
		const sl_l1_validator *v = &u->validators[i];
		sl_wr_var32(out, v->node_id);
		sl_wr_u64(out, v->weight);
		sl_wr_u64(out, v->balance);
		sl_wr_fixed(out, v->public_key, SL_BLS_PUB_LEN);
		sl_wr_fixed(out, v->pop, SL_BLS_SIG_LEN);
		powner_write(out, &v->remaining_balance_owner);
		powner_write(out, &v->deactivation_owner);
	}
}

static void transform_read(sl_dec *d, sl_transform_subnet *t)
{
	t->asset_id = sl_dec_id(d);
	t->initial_supply = sl_rd_u64(&d->r);
	t->maximum_supply = sl_rd_u64(&d->r);
	t->min_consumption_rate = sl_rd_u64(&d->r);
	t->max_consumption_rate = sl_rd_u64(&d->r);
	t->min_validator_stake = sl_rd_u64(&d->r);
	t->max_validator_stake = sl_rd_u64(&d->r);
	t->min_stake_duration = sl_rd_u32(&d->r);
	t->max_stake_duration = sl_rd_u32(&d->r);
	t->min_delegation_fee = sl_rd_u32(&d->r);
	t->min_delegator_stake = sl_rd_u64(&d->r);
	t->max_validator_weight_factor = sl_rd_u8(&d->r);
	t->uptime_requirement = sl_rd_u32(&d->r);
}
static void transform_write(sl_buf *out, const sl_transform_subnet *t)
{
	sl_wr_fixed(out, t->asset_id, SL_ID_LEN);
	sl_wr_u64(out, t->initial_supply);
	sl_wr_u64(out, t->maximum_supply);
	sl_wr_u64(out, t->min_consumption_rate);
	sl_wr_u64(out, t->max_consumption_rate);
	sl_wr_u64(out, t->min_validator_stake);
	sl_wr_u64(out, t->max_validator_stake);
	sl_wr_u32(out, t->min_stake_duration);
	sl_wr_u32(out, t->max_stake_duration);
	sl_wr_u32(out, t->min_delegation_fee);
	sl_wr_u64(out, t->min_delegator_stake);
	sl_wr_u8(out, t->max_validator_weight_factor);
	sl_wr_u32(out, t->uptime_requirement);
}

/* ---- unsigned txs ------------------------------------------------------ */

void sl_pchain_utx_read(sl_dec *d, sl_pchain_utx *u)
{
	*u = (sl_pchain_utx){ 0 };
	u->type_id = sl_dec_type(d, TX_TYPES);
	if (!sl_rd_ok(&d->r))
		return;
	uint32_t t = u->type_id;
	if (t != SL_P_ADVANCE_TIME_TX && t != SL_P_REWARD_VALIDATOR_TX &&
	    t != SL_P_REWARD_AUTO_RENEWED_VALIDATOR_TX) {
		u->has_base = true;
		sl_avax_base_decode(d, &u->base, SL_P_OUTPUTS, SL_P_INPUTS);
	}
	switch ((sl_pchain_type)t) {
	case SL_P_ADD_VALIDATOR_TX:
		validator_read(d, u);
		sl_avax_outs_decode(d, &u->nstake, &u->stake, SL_P_OUTPUTS);
		owner_read(d, &u->rewards_owner);
		u->shares = sl_rd_u32(&d->r);
		break;
	case SL_P_ADD_SUBNET_VALIDATOR_TX:
		validator_read(d, u);
		u->subnet_id = sl_dec_id(d);
		auth_read(d, u);
		break;
	case SL_P_ADD_DELEGATOR_TX:
		validator_read(d, u);
		sl_avax_outs_decode(d, &u->nstake, &u->stake, SL_P_OUTPUTS);
		owner_read(d, &u->rewards_owner);
		break;
	case SL_P_CREATE_CHAIN_TX:
		u->subnet_id = sl_dec_id(d);
		u->chain_name = sl_rd_str16(&d->r);
		u->vm_id = sl_dec_id(d);
		u->fx_ids = sl_dec_fixed_list(d, &u->nfx_ids, SL_ID_LEN);
		u->genesis = sl_rd_var32(&d->r, SL_CODEC_MAX_SIZE);
		auth_read(d, u);
		break;
	case SL_P_CREATE_SUBNET_TX: owner_read(d, &u->owner); break;
	case SL_P_IMPORT_TX:
		u->chain = sl_dec_id(d);
		sl_avax_ins_decode(d, &u->nimported, &u->imported, SL_P_INPUTS);
		break;
	case SL_P_EXPORT_TX:
		u->chain = sl_dec_id(d);
		sl_avax_outs_decode(d, &u->nexported, &u->exported, SL_P_OUTPUTS);
		break;
	case SL_P_ADVANCE_TIME_TX: u->time = sl_rd_u64(&d->r); break;
	case SL_P_REWARD_VALIDATOR_TX: u->tx_id = sl_dec_id(d); break;
	case SL_P_REMOVE_SUBNET_VALIDATOR_TX:
		u->node_id = sl_rd_take(&d->r, SL_SHORT_ID_LEN);
		u->subnet_id = sl_dec_id(d);
		auth_read(d, u);
		break;
	case SL_P_TRANSFORM_SUBNET_TX:
		u->subnet_id = sl_dec_id(d);
		transform_read(d, &u->transform);
		auth_read(d, u);
		break;
	case SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX:
		validator_read(d, u);
		u->subnet_id = sl_dec_id(d);
		signer_read(d, &u->signer);
		sl_avax_outs_decode(d, &u->nstake, &u->stake, SL_P_OUTPUTS);
		owner_read(d, &u->rewards_owner);
		owner_read(d, &u->delegation_owner);
		u->shares = sl_rd_u32(&d->r);
		break;
	case SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX:
		validator_read(d, u);
		u->subnet_id = sl_dec_id(d);
		sl_avax_outs_decode(d, &u->nstake, &u->stake, SL_P_OUTPUTS);
		owner_read(d, &u->rewards_owner);
		break;
	case SL_P_TRANSFER_SUBNET_OWNERSHIP_TX:
		u->subnet_id = sl_dec_id(d);
		auth_read(d, u);
		owner_read(d, &u->owner);
		break;
	case SL_P_BASE_TX: break;
	case SL_P_CONVERT_SUBNET_TO_L1_TX:
		u->subnet_id = sl_dec_id(d);
		u->manager_chain_id = sl_dec_id(d);
		u->manager_address = sl_rd_var32(&d->r, SL_CODEC_MAX_SIZE);
		l1_validators_read(d, u);
		auth_read(d, u);
		break;
	case SL_P_REGISTER_L1_VALIDATOR_TX:
		u->balance = sl_rd_u64(&d->r);
		u->pop = sl_rd_take(&d->r, SL_BLS_SIG_LEN);
		u->message = sl_rd_var32(&d->r, SL_CODEC_MAX_SIZE);
		break;
	case SL_P_SET_L1_VALIDATOR_WEIGHT_TX: u->message = sl_rd_var32(&d->r, SL_CODEC_MAX_SIZE); break;
	case SL_P_INCREASE_L1_VALIDATOR_BALANCE_TX:
		u->validation_id = sl_dec_id(d);
		u->balance = sl_rd_u64(&d->r);
		break;
	case SL_P_DISABLE_L1_VALIDATOR_TX:
		u->validation_id = sl_dec_id(d);
		auth_read(d, u);
		break;
	case SL_P_ADD_AUTO_RENEWED_VALIDATOR_TX:
		u->node_id_bytes = sl_rd_var32(&d->r, SL_CODEC_MAX_SIZE);
		signer_read(d, &u->signer);
		sl_avax_outs_decode(d, &u->nstake, &u->stake, SL_P_OUTPUTS);
		owner_read(d, &u->rewards_owner);
		owner_read(d, &u->delegation_owner);
		owner_read(d, &u->owner);
		u->shares = sl_rd_u32(&d->r);
		u->auto_compound_shares = sl_rd_u32(&d->r);
		u->period = sl_rd_u64(&d->r);
		break;
	case SL_P_SET_AUTO_RENEWED_VALIDATOR_CONFIG_TX:
		u->tx_id = sl_dec_id(d);
		auth_read(d, u);
		u->auto_compound_shares = sl_rd_u32(&d->r);
		u->period = sl_rd_u64(&d->r);
		break;
	case SL_P_REWARD_AUTO_RENEWED_VALIDATOR_TX:
		u->tx_id = sl_dec_id(d);
		u->time = sl_rd_u64(&d->r);
		break;
	default: /* sl_dec_type() already refused every other id */ break;
	}
}

void sl_pchain_utx_write(sl_buf *out, const sl_pchain_utx *u)
{
	sl_wr_u32(out, u->type_id);
	if (u->has_base)
		sl_avax_base_write(out, &u->base);
	switch ((sl_pchain_type)u->type_id) {
	case SL_P_ADD_VALIDATOR_TX:
		validator_write(out, u);
		sl_avax_outs_write(out, u->nstake, u->stake);
		owner_write(out, &u->rewards_owner);
		sl_wr_u32(out, u->shares);
		break;
	case SL_P_ADD_SUBNET_VALIDATOR_TX:
		validator_write(out, u);
		sl_wr_fixed(out, u->subnet_id, SL_ID_LEN);
		auth_write(out, u);
		break;
	case SL_P_ADD_DELEGATOR_TX:
		validator_write(out, u);
		sl_avax_outs_write(out, u->nstake, u->stake);
		owner_write(out, &u->rewards_owner);
		break;
	case SL_P_CREATE_CHAIN_TX:
		sl_wr_fixed(out, u->subnet_id, SL_ID_LEN);
		sl_wr_str16(out, u->chain_name);
		sl_wr_fixed(out, u->vm_id, SL_ID_LEN);
		sl_wr_u32(out, u->nfx_ids);
		sl_wr_fixed(out, u->fx_ids, (size_t)u->nfx_ids * SL_ID_LEN);
		sl_wr_var32(out, u->genesis);
		auth_write(out, u);
		break;
	case SL_P_CREATE_SUBNET_TX: owner_write(out, &u->owner); break;
	case SL_P_IMPORT_TX:
		sl_wr_fixed(out, u->chain, SL_ID_LEN);
		sl_avax_ins_write(out, u->nimported, u->imported);
		break;
	case SL_P_EXPORT_TX:
		sl_wr_fixed(out, u->chain, SL_ID_LEN);
		sl_avax_outs_write(out, u->nexported, u->exported);
		break;
	case SL_P_ADVANCE_TIME_TX: sl_wr_u64(out, u->time); break;
	case SL_P_REWARD_VALIDATOR_TX: sl_wr_fixed(out, u->tx_id, SL_ID_LEN); break;
	case SL_P_REMOVE_SUBNET_VALIDATOR_TX:
		sl_wr_fixed(out, u->node_id, SL_SHORT_ID_LEN);
		sl_wr_fixed(out, u->subnet_id, SL_ID_LEN);
		auth_write(out, u);
		break;
	case SL_P_TRANSFORM_SUBNET_TX:
		sl_wr_fixed(out, u->subnet_id, SL_ID_LEN);
		transform_write(out, &u->transform);
		auth_write(out, u);
		break;
	case SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX:
		validator_write(out, u);
		sl_wr_fixed(out, u->subnet_id, SL_ID_LEN);
		signer_write(out, &u->signer);
		sl_avax_outs_write(out, u->nstake, u->stake);
		owner_write(out, &u->rewards_owner);
		owner_write(out, &u->delegation_owner);
		sl_wr_u32(out, u->shares);
		break;
	case SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX:
		validator_write(out, u);
		sl_wr_fixed(out, u->subnet_id, SL_ID_LEN);
		sl_avax_outs_write(out, u->nstake, u->stake);
		owner_write(out, &u->rewards_owner);
		break;
	case SL_P_TRANSFER_SUBNET_OWNERSHIP_TX:
		sl_wr_fixed(out, u->subnet_id, SL_ID_LEN);
		auth_write(out, u);
		owner_write(out, &u->owner);
		break;
	case SL_P_BASE_TX: break;
	case SL_P_CONVERT_SUBNET_TO_L1_TX:
		sl_wr_fixed(out, u->subnet_id, SL_ID_LEN);
		sl_wr_fixed(out, u->manager_chain_id, SL_ID_LEN);
		sl_wr_var32(out, u->manager_address);
		l1_validators_write(out, u);
		auth_write(out, u);
		break;
	case SL_P_REGISTER_L1_VALIDATOR_TX:
		sl_wr_u64(out, u->balance);
		sl_wr_fixed(out, u->pop, SL_BLS_SIG_LEN);
		sl_wr_var32(out, u->message);
		break;
	case SL_P_SET_L1_VALIDATOR_WEIGHT_TX: sl_wr_var32(out, u->message); break;
	case SL_P_INCREASE_L1_VALIDATOR_BALANCE_TX:
		sl_wr_fixed(out, u->validation_id, SL_ID_LEN);
		sl_wr_u64(out, u->balance);
		break;
	case SL_P_DISABLE_L1_VALIDATOR_TX:
		sl_wr_fixed(out, u->validation_id, SL_ID_LEN);
		auth_write(out, u);
		break;
	case SL_P_ADD_AUTO_RENEWED_VALIDATOR_TX:
		sl_wr_var32(out, u->node_id_bytes);
		signer_write(out, &u->signer);
		sl_avax_outs_write(out, u->nstake, u->stake);
		owner_write(out, &u->rewards_owner);
		owner_write(out, &u->delegation_owner);
		owner_write(out, &u->owner);
		sl_wr_u32(out, u->shares);
		sl_wr_u32(out, u->auto_compound_shares);
		sl_wr_u64(out, u->period);
		break;
	case SL_P_SET_AUTO_RENEWED_VALIDATOR_CONFIG_TX:
		sl_wr_fixed(out, u->tx_id, SL_ID_LEN);
		auth_write(out, u);
		sl_wr_u32(out, u->auto_compound_shares);
		sl_wr_u64(out, u->period);
		break;
	case SL_P_REWARD_AUTO_RENEWED_VALIDATOR_TX:
		sl_wr_fixed(out, u->tx_id, SL_ID_LEN);
		sl_wr_u64(out, u->time);
		break;
	default:
		if (!out->err)
			out->err = SL_ERR_INVALID; /* not a tx type: a caller bug */
		break;
	}
}

/* ---- signed txs ---------------------------------------------------------- */

void sl_pchain_tx_read(sl_dec *d, sl_pchain_tx *tx)
{
	size_t start = d->r.off;
	*tx = (sl_pchain_tx){ 0 };
	sl_pchain_utx_read(d, &tx->utx);
	sl_avax_signed_tail(d, start, SL_SECP_CREDS, &tx->ncreds, &tx->creds, &tx->unsigned_bytes, &tx->bytes,
			    tx->id);
}

void sl_pchain_tx_write(sl_buf *out, const sl_pchain_tx *tx)
{
	sl_pchain_utx_write(out, &tx->utx);
	sl_avax_creds_write(out, tx->ncreds, tx->creds);
}

sl_err sl_pchain_tx_decode(sl_arena *a, const uint8_t *p, size_t n, sl_pchain_tx *tx, sl_err_detail *err)
{
	sl_dec d;
	sl_dec_init(&d, a, p, n);
	*tx = (sl_pchain_tx){ 0 };
	if (n > SL_CODEC_MAX_SIZE)
		sl_rd_fail(&d.r, SL_ERR_TOO_LARGE, "tx larger than the codec's maximum");
	sl_dec_version0(&d);
	sl_pchain_tx_read(&d, tx);
	if (sl_rd_ok(&d.r)) {
		tx->bytes = sl_span_of(p, n);
		if (d.r.off != n)
			tx->bytes.len = d.r.off;
	}
	return sl_dec_finish(&d, err);
}

sl_err sl_pchain_utx_decode(sl_arena *a, const uint8_t *p, size_t n, sl_pchain_tx *tx, sl_err_detail *err)
{
	sl_dec d;
	sl_dec_init(&d, a, p, n);
	*tx = (sl_pchain_tx){ 0 };
	if (n > SL_CODEC_MAX_SIZE)
		sl_rd_fail(&d.r, SL_ERR_TOO_LARGE, "tx larger than the codec's maximum");
	sl_dec_version0(&d);
	sl_pchain_utx_read(&d, &tx->utx);
	if (sl_rd_ok(&d.r)) {
		tx->unsigned_bytes = sl_span_of(p + 2, d.r.off - 2);
		tx->bytes = sl_span_of(p, d.r.off);
	}
	return sl_dec_finish(&d, err);
}

sl_err sl_pchain_tx_encode(sl_buf *out, const sl_pchain_tx *tx)
{
	sl_wr_u16(out, 0);
	sl_pchain_tx_write(out, tx);
	return out->err;
}

/* ---- blocks ---------------------------------------------------------------- */

static sl_pchain_tx *one_tx_read(sl_dec *d)
{
	sl_pchain_tx *tx = sl_dec_array(d, 1, sizeof *tx);
	if (tx)
		sl_pchain_tx_read(d, tx);
	return tx;
}

static void txs_read(sl_dec *d, sl_pchain_block *b)
{
	b->ntxs = sl_rd_count(&d->r, SL_CODEC_MAX_SLICE, MIN_TX_IN_BLOCK);
	b->txs = sl_dec_array(d, b->ntxs, sizeof *b->txs);
	for (uint32_t i = 0; i < b->ntxs && sl_rd_ok(&d->r); i++)
		sl_pchain_tx_read(d, &b->txs[i]);
	if (!sl_rd_ok(&d->r))
		b->ntxs = 0;
}

static void txs_write(sl_buf *out, const sl_pchain_block *b)
{
	sl_wr_u32(out, b->ntxs);
	for (uint32_t i = 0; i < b->ntxs; i++)
		sl_pchain_tx_write(out, &b->txs[i]);
}

sl_err sl_pchain_block_decode(sl_arena *a, const uint8_t *p, size_t n, sl_pchain_block *b, sl_err_detail *err)
{
	sl_dec d;
	sl_dec_init(&d, a, p, n);
	*b = (sl_pchain_block){ 0 };
	if (n > SL_CODEC_MAX_SIZE)
		sl_rd_fail(&d.r, SL_ERR_TOO_LARGE, "block larger than the codec's maximum");
	sl_dec_version0(&d);
	b->type_id = sl_dec_type(&d, BLOCK_TYPES);
	switch (b->type_id) {
	case SL_P_APRICOT_PROPOSAL_BLOCK:
	case SL_P_APRICOT_ATOMIC_BLOCK:
		b->parent_id = sl_dec_id(&d);
		b->height = sl_rd_u64(&d.r);
		b->tx = one_tx_read(&d);
		break;
	case SL_P_APRICOT_ABORT_BLOCK:
	case SL_P_APRICOT_COMMIT_BLOCK:
		b->parent_id = sl_dec_id(&d);
		b->height = sl_rd_u64(&d.r);
		break;
	case SL_P_APRICOT_STANDARD_BLOCK:
		b->parent_id = sl_dec_id(&d);
		b->height = sl_rd_u64(&d.r);
		txs_read(&d, b);
		break;
	case SL_P_BANFF_PROPOSAL_BLOCK:
		b->time = sl_rd_u64(&d.r);
		txs_read(&d, b);
		b->parent_id = sl_dec_id(&d);
		b->height = sl_rd_u64(&d.r);
		b->tx = one_tx_read(&d);
		break;
	case SL_P_BANFF_ABORT_BLOCK:
	case SL_P_BANFF_COMMIT_BLOCK:
		b->time = sl_rd_u64(&d.r);
		b->parent_id = sl_dec_id(&d);
		b->height = sl_rd_u64(&d.r);
		break;
	case SL_P_BANFF_STANDARD_BLOCK:
		b->time = sl_rd_u64(&d.r);
		b->parent_id = sl_dec_id(&d);
		b->height = sl_rd_u64(&d.r);
		txs_read(&d, b);
		break;
	default: break;
	}
	sl_err e = sl_dec_finish(&d, err);
	if (e == SL_OK) {
		b->bytes = sl_span_of(p, n);
		sl_sha256(p, n, b->id);
	}
	return e;
}

sl_err sl_pchain_block_encode(sl_buf *out, const sl_pchain_block *b)
{
	sl_wr_u16(out, 0);
	sl_wr_u32(out, b->type_id);
	switch (b->type_id) {
	case SL_P_APRICOT_PROPOSAL_BLOCK:
	case SL_P_APRICOT_ATOMIC_BLOCK:
		sl_wr_fixed(out, b->parent_id, SL_ID_LEN);
		sl_wr_u64(out, b->height);
		sl_pchain_tx_write(out, b->tx);
		break;
	case SL_P_APRICOT_ABORT_BLOCK:
	case SL_P_APRICOT_COMMIT_BLOCK:
		sl_wr_fixed(out, b->parent_id, SL_ID_LEN);
		sl_wr_u64(out, b->height);
		break;
	case SL_P_APRICOT_STANDARD_BLOCK:
		sl_wr_fixed(out, b->parent_id, SL_ID_LEN);
		sl_wr_u64(out, b->height);
		txs_write(out, b);
		break;
	case SL_P_BANFF_PROPOSAL_BLOCK:
		sl_wr_u64(out, b->time);
		txs_write(out, b);
		sl_wr_fixed(out, b->parent_id, SL_ID_LEN);
		sl_wr_u64(out, b->height);
		sl_pchain_tx_write(out, b->tx);
		break;
	case SL_P_BANFF_ABORT_BLOCK:
	case SL_P_BANFF_COMMIT_BLOCK:
		sl_wr_u64(out, b->time);
		sl_wr_fixed(out, b->parent_id, SL_ID_LEN);
		sl_wr_u64(out, b->height);
		break;
	case SL_P_BANFF_STANDARD_BLOCK:
		sl_wr_u64(out, b->time);
		sl_wr_fixed(out, b->parent_id, SL_ID_LEN);
		sl_wr_u64(out, b->height);
		txs_write(out, b);
		break;
	default:
		if (!out->err)
			out->err = SL_ERR_INVALID;
		break;
	}
	return out->err;
}

uint32_t sl_pchain_block_tx_count(const sl_pchain_block *b) { return b->ntxs + (b->tx ? 1 : 0); }

const sl_pchain_tx *sl_pchain_block_tx_at(const sl_pchain_block *b, uint32_t i)
{
	if (i < b->ntxs)
		return &b->txs[i];
	if (i == b->ntxs && b->tx)
		return b->tx;
	return NULL;
}

void sl_pchain_l1_validation_id(const uint8_t subnet_id[32], uint32_t index, uint8_t out[32])
{
	uint8_t buf[36];
	memcpy(buf, subnet_id, 32);
	sl_put_be32(buf + 32, index);
	sl_sha256(buf, sizeof buf, out);
}
