#include "codec/json.h"

#include "crypto/addr.h"
#include "crypto/cb58.h"

sl_codec_ctx sl_codec_ctx_for(uint32_t network_id, const char *chain_alias)
{
	return (sl_codec_ctx){ .network_id = network_id,
			       .hrp = sl_addr_hrp(network_id),
			       .chain_alias = chain_alias };
}

/* ---- leaves ------------------------------------------------------------ */

static void j_id(sl_jw *w, const char *key, const uint8_t *id)
{
	sl_jw_key(w, key);
	sl_jw_cb58(w, id, SL_ID_LEN);
}

static void j_hex(sl_jw *w, const char *key, sl_span s)
{
	sl_jw_key(w, key);
	sl_jw_hex(w, s.p, s.len);
}

static void j_u64(sl_jw *w, const char *key, uint64_t v)
{
	sl_jw_key(w, key);
	sl_jw_u64(w, v);
}

static void j_small(sl_jw *w, const char *key, sl_buf *tmp)
{
	if (key)
		sl_jw_key(w, key);
	sl_jw_strn(w, sl_buf_str(tmp), tmp->len);
	sl_buf_release(tmp);
}

static void j_addr(sl_jw *w, const sl_codec_ctx *ctx, const uint8_t *a)
{
	sl_buf t;
	sl_buf_init(&t, 256);
	sl_addr_write(&t, ctx->chain_alias, ctx->hrp, a);
	j_small(w, NULL, &t);
}

static void j_nodeid(sl_jw *w, const char *key, const uint8_t *id)
{
	sl_buf t;
	sl_buf_init(&t, 128);
	sl_nodeid_write(&t, id);
	j_small(w, key, &t);
}

/* A Go fixed byte array ([96]byte): encoding/json writes it as numbers. */
static void j_byte_array(sl_jw *w, const char *key, const uint8_t *p, size_t n)
{
	sl_jw_key(w, key);
	sl_jw_arr(w);
	for (size_t i = 0; i < n; i++)
		sl_jw_u64(w, p[i]);
	sl_jw_arr_end(w);
}

static void j_sigidx(sl_jw *w, const sl_sigidx *s)
{
	sl_jw_key(w, "signatureIndices");
	sl_jw_arr(w);
	for (uint32_t i = 0; i < s->n; i++)
		sl_jw_u64(w, sl_sigidx_at(s, i));
	sl_jw_arr_end(w);
}

static void j_input_obj(sl_jw *w, const char *key, const sl_sigidx *s)
{
	sl_jw_key(w, key);
	sl_jw_obj(w);
	j_sigidx(w, s);
	sl_jw_obj_end(w);
}

/* OutputOwners fields in sorted-map order, with an optional amount. */
static void j_owner_fields(sl_jw *w, const sl_owners *o, const uint64_t *amount, const sl_codec_ctx *ctx)
{
	sl_jw_key(w, "addresses");
	sl_jw_arr(w);
	for (uint32_t i = 0; i < o->naddrs; i++)
		j_addr(w, ctx, o->addrs + (size_t)i * SL_SHORT_ID_LEN);
	sl_jw_arr_end(w);
	if (amount)
		j_u64(w, "amount", *amount);
	j_u64(w, "locktime", o->locktime);
	j_u64(w, "threshold", o->threshold);
}

static void j_owners(sl_jw *w, const char *key, const sl_owners *o, const sl_codec_ctx *ctx)
{
	if (key)
		sl_jw_key(w, key);
	sl_jw_obj(w);
	j_owner_fields(w, o, NULL, ctx);
	sl_jw_obj_end(w);
}

static void j_output(sl_jw *w, const sl_output *o, const sl_codec_ctx *ctx)
{
	sl_jw_obj(w);
	if (o->type_id == SL_T_STAKEABLE_LOCK_OUT) {
		j_u64(w, "locktime", o->lock_locktime);
		sl_jw_key(w, "output");
		sl_jw_obj(w);
	}
	switch (o->fx_type_id) {
	case SL_T_SECP_TRANSFER_OUTPUT: j_owner_fields(w, &o->owners, &o->amount, ctx); break;
	case SL_T_NFT_MINT_OUTPUT:
		j_u64(w, "groupID", o->group_id);
		j_owner_fields(w, &o->owners, NULL, ctx);
		break;
	case SL_T_NFT_TRANSFER_OUTPUT:
		j_u64(w, "groupID", o->group_id);
		j_hex(w, "payload", o->payload);
		j_owner_fields(w, &o->owners, NULL, ctx);
		break;
	default: j_owner_fields(w, &o->owners, NULL, ctx); break;
	}
	if (o->type_id == SL_T_STAKEABLE_LOCK_OUT)
		sl_jw_obj_end(w);
	sl_jw_obj_end(w);
}

static void j_input(sl_jw *w, const sl_input *in)
{
	sl_jw_obj(w);
	if (in->type_id == SL_T_STAKEABLE_LOCK_IN) {
		j_u64(w, "locktime", in->lock_locktime);
		sl_jw_key(w, "input");
		sl_jw_obj(w);
	}
	j_u64(w, "amount", in->amount);
	j_sigidx(w, &in->sig);
	if (in->type_id == SL_T_STAKEABLE_LOCK_IN)
		sl_jw_obj_end(w);
	sl_jw_obj_end(w);
}

static const uint8_t *fx_of_output(const sl_output *o, bool xchain)
{
	return sl_fx_ids[xchain ? sl_avax_x_fx_of(o->fx_type_id) : SL_FX_SECP256K1];
}

static void j_outs(sl_jw *w, const char *key, uint32_t n, const sl_avax_out *outs, bool xchain,
		   const sl_codec_ctx *ctx)
{
	sl_jw_key(w, key);
	sl_jw_arr(w);
	for (uint32_t i = 0; i < n; i++) {
		sl_jw_obj(w);
		j_id(w, "assetID", outs[i].asset_id);
		j_id(w, "fxID", fx_of_output(&outs[i].out, xchain));
		sl_jw_key(w, "output");
		j_output(w, &outs[i].out, ctx);
		sl_jw_obj_end(w);
	}
	sl_jw_arr_end(w);
}

static void j_ins(sl_jw *w, const char *key, uint32_t n, const sl_avax_in *ins)
{
	sl_jw_key(w, key);
	sl_jw_arr(w);
	for (uint32_t i = 0; i < n; i++) {
		sl_jw_obj(w);
		j_id(w, "txID", ins[i].tx_id);
		j_u64(w, "outputIndex", ins[i].output_index);
		j_id(w, "assetID", ins[i].asset_id);
		j_id(w, "fxID", sl_fx_ids[SL_FX_SECP256K1]);
		sl_jw_key(w, "input");
		j_input(w, &ins[i].in);
		sl_jw_obj_end(w);
	}
	sl_jw_arr_end(w);
}

static void j_base(sl_jw *w, const sl_avax_base *b, bool xchain, const sl_codec_ctx *ctx)
{
	j_u64(w, "networkID", b->network_id);
	j_id(w, "blockchainID", b->blockchain_id);
	j_outs(w, "outputs", b->nouts, b->outs, xchain, ctx);
	j_ins(w, "inputs", b->nins, b->ins);
	j_hex(w, "memo", b->memo);
}

static void j_sigs(sl_jw *w, const sl_credential *c)
{
	sl_jw_key(w, "signatures");
	sl_jw_arr(w);
	for (uint32_t i = 0; i < c->nsigs; i++)
		sl_jw_hex(w, c->sigs + (size_t)i * SL_SECP_SIG_LEN, SL_SECP_SIG_LEN);
	sl_jw_arr_end(w);
}

/* P-chain and atomic credentials: {"signatures":[…]}. */
static void j_creds_plain(sl_jw *w, uint32_t n, const sl_credential *c)
{
	sl_jw_key(w, "credentials");
	sl_jw_arr(w);
	for (uint32_t i = 0; i < n; i++) {
		sl_jw_obj(w);
		j_sigs(w, &c[i]);
		sl_jw_obj_end(w);
	}
	sl_jw_arr_end(w);
}

/* ---- P-chain --------------------------------------------------------------- */

static void j_validator(sl_jw *w, const sl_pchain_utx *u, bool with_subnet)
{
	sl_jw_key(w, "validator");
	sl_jw_obj(w);
	j_nodeid(w, "nodeID", u->node_id);
	j_u64(w, "start", u->start);
	j_u64(w, "end", u->end);
	j_u64(w, "weight", u->weight);
	if (with_subnet)
		j_id(w, "subnetID", u->subnet_id);
	sl_jw_obj_end(w);
}

static void j_signer(sl_jw *w, const sl_pchain_signer *s)
{
	sl_jw_key(w, "signer");
	sl_jw_obj(w);
	if (s->type_id == SL_P_SIGNER_POP) {
		sl_jw_key(w, "publicKey");
		sl_jw_hex(w, s->public_key, SL_BLS_PUB_LEN);
		sl_jw_key(w, "proofOfPossession");
		sl_jw_hex(w, s->pop, SL_BLS_SIG_LEN);
	}
	sl_jw_obj_end(w);
}

static void j_powner(sl_jw *w, const char *key, const sl_pchain_owner *o, const sl_codec_ctx *ctx)
{
	sl_jw_key(w, key);
	sl_jw_obj(w);
	j_u64(w, "threshold", o->threshold);
	sl_jw_key(w, "addresses");
	sl_jw_arr(w);
	for (uint32_t i = 0; i < o->naddrs; i++) {
		const uint8_t *a = o->addrs + (size_t)i * SL_SHORT_ID_LEN;
		if (ctx->annotate) /* one address form in decode's output */
			j_addr(w, ctx, a);
		else /* avalanchego: ids.ShortID */
			sl_jw_cb58(w, a, SL_SHORT_ID_LEN);
	}
	sl_jw_arr_end(w);
	sl_jw_obj_end(w);
}

static void j_stake(sl_jw *w, const sl_pchain_utx *u, const sl_codec_ctx *ctx)
{
	j_outs(w, "stake", u->nstake, u->stake, false, ctx);
}

void sl_pchain_utx_write_json(sl_jw *w, const sl_pchain_utx *u, const sl_codec_ctx *ctx)
{
	sl_jw_obj(w);
	if (u->has_base)
		j_base(w, &u->base, false, ctx);
	switch ((sl_pchain_type)u->type_id) {
	case SL_P_ADD_VALIDATOR_TX:
		j_validator(w, u, false);
		j_stake(w, u, ctx);
		j_owners(w, "rewardsOwner", &u->rewards_owner, ctx);
		j_u64(w, "shares", u->shares);
		break;
	case SL_P_ADD_SUBNET_VALIDATOR_TX:
		j_validator(w, u, true);
		j_input_obj(w, "subnetAuthorization", &u->auth);
		break;
	case SL_P_ADD_DELEGATOR_TX:
		j_validator(w, u, false);
		j_stake(w, u, ctx);
		j_owners(w, "rewardsOwner", &u->rewards_owner, ctx);
		break;
	case SL_P_CREATE_CHAIN_TX:
		j_id(w, "subnetID", u->subnet_id);
		sl_jw_key(w, "chainName");
		sl_jw_strn(w, (const char *)u->chain_name.p, u->chain_name.len);
		j_id(w, "vmID", u->vm_id);
		sl_jw_key(w, "fxIDs");
		sl_jw_arr(w);
		for (uint32_t i = 0; i < u->nfx_ids; i++)
			sl_jw_cb58(w, u->fx_ids + (size_t)i * SL_ID_LEN, SL_ID_LEN);
		sl_jw_arr_end(w);
		j_hex(w, "genesisData", u->genesis);
		j_input_obj(w, "subnetAuthorization", &u->auth);
		break;
	case SL_P_CREATE_SUBNET_TX: j_owners(w, "owner", &u->owner, ctx); break;
	case SL_P_IMPORT_TX:
		j_id(w, "sourceChain", u->chain);
		j_ins(w, "importedInputs", u->nimported, u->imported);
		break;
	case SL_P_EXPORT_TX:
		j_id(w, "destinationChain", u->chain);
		j_outs(w, "exportedOutputs", u->nexported, u->exported, false, ctx);
		break;
	case SL_P_ADVANCE_TIME_TX: j_u64(w, "time", u->time); break;
	case SL_P_REWARD_VALIDATOR_TX: j_id(w, "txID", u->tx_id); break;
	case SL_P_REMOVE_SUBNET_VALIDATOR_TX:
		j_nodeid(w, "nodeID", u->node_id);
		j_id(w, "subnetID", u->subnet_id);
		j_input_obj(w, "subnetAuthorization", &u->auth);
		break;
	case SL_P_TRANSFORM_SUBNET_TX: {
		const sl_transform_subnet *t = &u->transform;
		j_id(w, "subnetID", u->subnet_id);
		j_id(w, "assetID", t->asset_id);
		j_u64(w, "initialSupply", t->initial_supply);
		j_u64(w, "maximumSupply", t->maximum_supply);
		j_u64(w, "minConsumptionRate", t->min_consumption_rate);
		j_u64(w, "maxConsumptionRate", t->max_consumption_rate);
		j_u64(w, "minValidatorStake", t->min_validator_stake);
		j_u64(w, "maxValidatorStake", t->max_validator_stake);
		j_u64(w, "minStakeDuration", t->min_stake_duration);
		j_u64(w, "maxStakeDuration", t->max_stake_duration);
		j_u64(w, "minDelegationFee", t->min_delegation_fee);
		j_u64(w, "minDelegatorStake", t->min_delegator_stake);
		j_u64(w, "maxValidatorWeightFactor", t->max_validator_weight_factor);
		j_u64(w, "uptimeRequirement", t->uptime_requirement);
		j_input_obj(w, "subnetAuthorization", &u->auth);
		break;
	}
	case SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX:
		j_validator(w, u, false);
		j_id(w, "subnetID", u->subnet_id);
		j_signer(w, &u->signer);
		j_stake(w, u, ctx);
		j_owners(w, "validationRewardsOwner", &u->rewards_owner, ctx);
		j_owners(w, "delegationRewardsOwner", &u->delegation_owner, ctx);
		j_u64(w, "shares", u->shares);
		break;
	case SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX:
		j_validator(w, u, false);
		j_id(w, "subnetID", u->subnet_id);
		j_stake(w, u, ctx);
		j_owners(w, "rewardsOwner", &u->rewards_owner, ctx);
		break;
	case SL_P_TRANSFER_SUBNET_OWNERSHIP_TX:
		j_id(w, "subnetID", u->subnet_id);
		j_input_obj(w, "subnetAuthorization", &u->auth);
		j_owners(w, "newOwner", &u->owner, ctx);
		break;
	case SL_P_BASE_TX: break;
	case SL_P_CONVERT_SUBNET_TO_L1_TX:
		j_id(w, "subnetID", u->subnet_id);
		j_id(w, "chainID", u->manager_chain_id);
		j_hex(w, "address", u->manager_address);
		sl_jw_key(w, "validators");
		sl_jw_arr(w);
		for (uint32_t i = 0; i < u->nvalidators; i++) {
			const sl_l1_validator *v = &u->validators[i];
			sl_jw_obj(w);
			j_hex(w, "nodeID", v->node_id);
			j_u64(w, "weight", v->weight);
			j_u64(w, "balance", v->balance);
			sl_pchain_signer s = { SL_P_SIGNER_POP, v->public_key, v->pop };
			j_signer(w, &s);
			j_powner(w, "remainingBalanceOwner", &v->remaining_balance_owner, ctx);
			j_powner(w, "deactivationOwner", &v->deactivation_owner, ctx);
			if (ctx->annotate) {
				uint8_t vid[32];
				sl_pchain_l1_validation_id(u->subnet_id, i, vid);
				j_id(w, "validationID", vid);
				sl_jw_key(w, "validationIDHex");
				sl_jw_hex(w, vid, sizeof vid);
			}
			sl_jw_obj_end(w);
		}
		sl_jw_arr_end(w);
		j_input_obj(w, "subnetAuthorization", &u->auth);
		break;
	case SL_P_REGISTER_L1_VALIDATOR_TX:
		j_u64(w, "balance", u->balance);
		j_byte_array(w, "proofOfPossession", u->pop, SL_BLS_SIG_LEN);
		j_hex(w, "message", u->message);
		break;
	case SL_P_SET_L1_VALIDATOR_WEIGHT_TX: j_hex(w, "message", u->message); break;
	case SL_P_INCREASE_L1_VALIDATOR_BALANCE_TX:
		j_id(w, "validationID", u->validation_id);
		j_u64(w, "balance", u->balance);
		break;
	case SL_P_DISABLE_L1_VALIDATOR_TX:
		j_id(w, "validationID", u->validation_id);
		j_input_obj(w, "disableAuthorization", &u->auth);
		break;
	case SL_P_ADD_AUTO_RENEWED_VALIDATOR_TX:
		j_hex(w, "nodeID", u->node_id_bytes);
		j_signer(w, &u->signer);
		j_stake(w, u, ctx);
		j_owners(w, "validationRewardsOwner", &u->rewards_owner, ctx);
		j_owners(w, "delegationRewardsOwner", &u->delegation_owner, ctx);
		j_owners(w, "validatorAuthority", &u->owner, ctx);
		j_u64(w, "delegationShares", u->shares);
		j_u64(w, "autoCompoundRewardShares", u->auto_compound_shares);
		j_u64(w, "period", u->period);
		break;
	case SL_P_SET_AUTO_RENEWED_VALIDATOR_CONFIG_TX:
		j_id(w, "txID", u->tx_id);
		j_input_obj(w, "auth", &u->auth);
		j_u64(w, "autoCompoundRewardShares", u->auto_compound_shares);
		j_u64(w, "period", u->period);
		break;
	case SL_P_REWARD_AUTO_RENEWED_VALIDATOR_TX:
		j_id(w, "txID", u->tx_id);
		j_u64(w, "timestamp", u->time);
		break;
	default: break;
	}
	sl_jw_obj_end(w);
}

/* "type" first, for a tx nested in something else when annotating. */
static void j_nested_type(sl_jw *w, const char *type, bool nested, const sl_codec_ctx *ctx)
{
	if (nested && ctx->annotate && type) {
		sl_jw_key(w, "type");
		sl_jw_str(w, type);
	}
}

static void j_ptx(sl_jw *w, const sl_pchain_tx *tx, bool nested, const sl_codec_ctx *ctx)
{
	sl_jw_obj(w);
	j_nested_type(w, sl_pchain_type_name(tx->utx.type_id), nested, ctx);
	sl_jw_key(w, "unsignedTx");
	sl_pchain_utx_write_json(w, &tx->utx, ctx);
	j_creds_plain(w, tx->ncreds, tx->creds);
	j_id(w, "id", tx->id);
	sl_jw_obj_end(w);
}

void sl_pchain_tx_write_json(sl_jw *w, const sl_pchain_tx *tx, const sl_codec_ctx *ctx)
{
	j_ptx(w, tx, false, ctx);
}

void sl_pchain_block_write_json(sl_jw *w, const sl_pchain_block *b, const sl_codec_ctx *ctx)
{
	bool banff = b->type_id >= SL_P_BANFF_PROPOSAL_BLOCK;
	sl_jw_obj(w);
	if (banff)
		j_u64(w, "time", b->time);
	if (b->type_id == SL_P_BANFF_PROPOSAL_BLOCK) {
		sl_jw_key(w, "txs");
		sl_jw_arr(w);
		for (uint32_t i = 0; i < b->ntxs; i++)
			j_ptx(w, &b->txs[i], true, ctx);
		sl_jw_arr_end(w);
	}
	j_id(w, "parentID", b->parent_id);
	j_u64(w, "height", b->height);
	j_id(w, "id", b->id);
	if (b->type_id == SL_P_APRICOT_STANDARD_BLOCK || b->type_id == SL_P_BANFF_STANDARD_BLOCK) {
		sl_jw_key(w, "txs");
		sl_jw_arr(w);
		for (uint32_t i = 0; i < b->ntxs; i++)
			j_ptx(w, &b->txs[i], true, ctx);
		sl_jw_arr_end(w);
	}
	if (b->tx) {
		sl_jw_key(w, "tx");
		j_ptx(w, b->tx, true, ctx);
	}
	sl_jw_obj_end(w);
}

/* ---- X-chain ----------------------------------------------------------------- */

static void j_fx_op(sl_jw *w, const sl_xchain_fx_op *op, const sl_codec_ctx *ctx)
{
	sl_jw_obj(w);
	switch (op->type_id) {
	case SL_T_SECP_MINT_OPERATION:
		j_input_obj(w, "mintInput", &op->input);
		j_owners(w, "mintOutput", &op->owners1, ctx);
		sl_jw_key(w, "transferOutput");
		sl_jw_obj(w);
		j_owner_fields(w, &op->owners2, &op->amount, ctx);
		sl_jw_obj_end(w);
		break;
	case SL_T_NFT_MINT_OPERATION:
		j_input_obj(w, "mintInput", &op->input);
		j_u64(w, "groupID", op->group_id);
		j_hex(w, "payload", op->payload);
		sl_jw_key(w, "outputs");
		sl_jw_arr(w);
		for (uint32_t i = 0; i < op->nowners; i++)
			j_owners(w, NULL, &op->owners[i], ctx);
		sl_jw_arr_end(w);
		break;
	case SL_T_NFT_TRANSFER_OPERATION:
		j_input_obj(w, "input", &op->input);
		sl_jw_key(w, "output");
		sl_jw_obj(w);
		j_u64(w, "groupID", op->group_id);
		j_hex(w, "payload", op->payload);
		j_owner_fields(w, &op->owners1, NULL, ctx);
		sl_jw_obj_end(w);
		break;
	case SL_T_PROP_MINT_OPERATION:
		j_input_obj(w, "mintInput", &op->input);
		j_owners(w, "mintOutput", &op->owners1, ctx);
		j_owners(w, "ownedOutput", &op->owners2, ctx);
		break;
	default: /* property BurnOperation: an embedded secp256k1fx.Input */ j_sigidx(w, &op->input); break;
	}
	sl_jw_obj_end(w);
}

void sl_xchain_utx_write_json(sl_jw *w, const sl_xchain_utx *u, const sl_codec_ctx *ctx)
{
	sl_jw_obj(w);
	j_base(w, &u->base, true, ctx);
	switch ((sl_xchain_type)u->type_id) {
	case SL_X_CREATE_ASSET_TX:
		sl_jw_key(w, "name");
		sl_jw_strn(w, (const char *)u->name.p, u->name.len);
		sl_jw_key(w, "symbol");
		sl_jw_strn(w, (const char *)u->symbol.p, u->symbol.len);
		j_u64(w, "denomination", u->denomination);
		sl_jw_key(w, "initialStates");
		sl_jw_arr(w);
		for (uint32_t i = 0; i < u->nstates; i++) {
			const sl_initial_state *s = &u->states[i];
			sl_jw_obj(w);
			j_u64(w, "fxIndex", s->fx_index);
			j_id(w, "fxID", sl_fx_ids[s->fx_index < SL_FX__COUNT ? s->fx_index : 0]);
			sl_jw_key(w, "outputs");
			sl_jw_arr(w);
			for (uint32_t j = 0; j < s->nouts; j++)
				j_output(w, &s->outs[j], ctx);
			sl_jw_arr_end(w);
			sl_jw_obj_end(w);
		}
		sl_jw_arr_end(w);
		break;
	case SL_X_OPERATION_TX:
		sl_jw_key(w, "operations");
		sl_jw_arr(w);
		for (uint32_t i = 0; i < u->nops; i++) {
			const sl_xchain_op *op = &u->ops[i];
			sl_jw_obj(w);
			j_id(w, "assetID", op->asset_id);
			sl_jw_key(w, "inputIDs");
			sl_jw_arr(w);
			for (uint32_t j = 0; j < op->nutxos; j++) {
				const uint8_t *x = op->utxos + (size_t)j * (SL_ID_LEN + 4);
				sl_jw_obj(w);
				j_id(w, "txID", x);
				j_u64(w, "outputIndex", sl_be32(x + SL_ID_LEN));
				sl_jw_obj_end(w);
			}
			sl_jw_arr_end(w);
			j_id(w, "fxID", sl_fx_ids[sl_avax_x_fx_of(op->op.type_id)]);
			sl_jw_key(w, "operation");
			j_fx_op(w, &op->op, ctx);
			sl_jw_obj_end(w);
		}
		sl_jw_arr_end(w);
		break;
	case SL_X_IMPORT_TX:
		j_id(w, "sourceChain", u->chain);
		j_ins(w, "importedInputs", u->nimported, u->imported);
		break;
	case SL_X_EXPORT_TX:
		j_id(w, "destinationChain", u->chain);
		j_outs(w, "exportedOutputs", u->nexported, u->exported, true, ctx);
		break;
	default: break;
	}
	sl_jw_obj_end(w);
}

static void j_xtx(sl_jw *w, const sl_xchain_tx *tx, bool nested, const sl_codec_ctx *ctx)
{
	sl_jw_obj(w);
	j_nested_type(w, sl_xchain_type_name(tx->utx.type_id), nested, ctx);
	sl_jw_key(w, "unsignedTx");
	sl_xchain_utx_write_json(w, &tx->utx, ctx);
	sl_jw_key(w, "credentials");
	sl_jw_arr(w);
	for (uint32_t i = 0; i < tx->ncreds; i++) {
		sl_jw_obj(w);
		j_id(w, "fxID", sl_fx_ids[sl_avax_x_fx_of(tx->creds[i].type_id)]);
		sl_jw_key(w, "credential");
		sl_jw_obj(w);
		j_sigs(w, &tx->creds[i]);
		sl_jw_obj_end(w);
		sl_jw_obj_end(w);
	}
	sl_jw_arr_end(w);
	j_id(w, "id", tx->id);
	sl_jw_obj_end(w);
}

void sl_xchain_tx_write_json(sl_jw *w, const sl_xchain_tx *tx, const sl_codec_ctx *ctx)
{
	j_xtx(w, tx, false, ctx);
}

void sl_xchain_block_write_json(sl_jw *w, const sl_xchain_block *b, const sl_codec_ctx *ctx)
{
	sl_jw_obj(w);
	j_id(w, "parentID", b->parent_id);
	j_u64(w, "height", b->height);
	j_u64(w, "time", b->time);
	j_id(w, "merkleRoot", b->merkle_root);
	sl_jw_key(w, "txs");
	sl_jw_arr(w);
	for (uint32_t i = 0; i < b->ntxs; i++)
		j_xtx(w, &b->txs[i], true, ctx);
	sl_jw_arr_end(w);
	j_id(w, "id", b->id);
	sl_jw_obj_end(w);
}

void sl_xchain_vertex_write_json(sl_jw *w, const sl_xchain_vertex *v, const sl_codec_ctx *ctx)
{
	sl_jw_obj(w);
	j_u64(w, "version", v->version);
	j_id(w, "id", v->id);
	j_id(w, "chainID", v->chain_id);
	j_u64(w, "height", v->height);
	if (v->version == 0)
		j_u64(w, "epoch", v->epoch);
	sl_jw_key(w, "parentIDs");
	sl_jw_arr(w);
	for (uint32_t i = 0; i < v->nparents; i++)
		sl_jw_cb58(w, v->parents + (size_t)i * SL_ID_LEN, SL_ID_LEN);
	sl_jw_arr_end(w);
	if (v->version == 0) {
		sl_jw_key(w, "txs");
		sl_jw_arr(w);
		for (uint32_t i = 0; i < v->ntxs; i++)
			j_xtx(w, &v->txs[i], true, ctx);
		sl_jw_arr_end(w);
	}
	sl_jw_obj_end(w);
}

/* ---- C-chain atomic ------------------------------------------------------------- */

static void j_atx(sl_jw *w, const sl_atomic_tx *tx, bool nested, const sl_codec_ctx *ctx)
{
	const sl_atomic_utx *u = &tx->utx;
	sl_jw_obj(w);
	j_nested_type(w, sl_atomic_type_name(u->type_id), nested, ctx);
	sl_jw_key(w, "unsignedTx");
	sl_jw_obj(w);
	j_u64(w, "networkID", u->network_id);
	j_id(w, "blockchainID", u->blockchain_id);
	if (u->type_id == SL_ATOMIC_IMPORT_TX) {
		j_id(w, "sourceChain", u->chain);
		j_ins(w, "importedInputs", u->nimported, u->imported);
		sl_jw_key(w, "outputs");
		sl_jw_arr(w);
		for (uint32_t i = 0; i < u->nevm_outs; i++) {
			sl_jw_obj(w);
			sl_jw_key(w, "address");
			sl_jw_hex(w, u->evm_outs[i].address, 20);
			j_u64(w, "amount", u->evm_outs[i].amount);
			j_id(w, "assetID", u->evm_outs[i].asset_id);
			sl_jw_obj_end(w);
		}
		sl_jw_arr_end(w);
	} else {
		j_id(w, "destinationChain", u->chain);
		sl_jw_key(w, "inputs");
		sl_jw_arr(w);
		for (uint32_t i = 0; i < u->nevm_ins; i++) {
			sl_jw_obj(w);
			sl_jw_key(w, "address");
			sl_jw_hex(w, u->evm_ins[i].address, 20);
			j_u64(w, "amount", u->evm_ins[i].amount);
			j_id(w, "assetID", u->evm_ins[i].asset_id);
			j_u64(w, "nonce", u->evm_ins[i].nonce);
			sl_jw_obj_end(w);
		}
		sl_jw_arr_end(w);
		j_outs(w, "exportedOutputs", u->nexported, u->exported, false, ctx);
	}
	sl_jw_obj_end(w);
	j_creds_plain(w, tx->ncreds, tx->creds);
	j_id(w, "id", tx->id);
	sl_jw_obj_end(w);
}

void sl_atomic_tx_write_json(sl_jw *w, const sl_atomic_tx *tx, const sl_codec_ctx *ctx)
{
	j_atx(w, tx, false, ctx);
}

void sl_atomic_txs_write_json(sl_jw *w, const sl_atomic_txs *txs, const sl_codec_ctx *ctx)
{
	sl_jw_arr(w);
	for (uint32_t i = 0; i < txs->ntxs; i++)
		j_atx(w, &txs->txs[i], true, ctx);
	sl_jw_arr_end(w);
}
