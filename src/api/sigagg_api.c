/*
 * sigagg_api.c — POST /v1/signatureAggregator/{network}/aggregateSignatures
 * and GET …/aggregateSignatures/{txHash} (spec 000 §4.1, §2.11;
 * docs/sigagg.md).
 *
 * POST: the body (sigagg_body.c) names an unsigned warp message (a signed one
 * is taken for its unsigned part); the signing subnet is the one given or the
 * subnet of the message's source chain (the primary network for P, X and C,
 * the chains table for the others); the set is that subnet's at pChainHeight
 * (0: the last height the store has); the validators are asked through the
 * API's source (sl_api_config.sigagg, the p2p client) and the signed message
 * is {"signedMessage": hex}.
 *
 * GET: the P-chain's own L1 message for a P-chain tx (ACP-77), with the
 * justification a P-chain validator needs before it signs (avalanchego's
 * vms/platformvm/network/warp.go), signed by the primary network at the
 * current height with quorum 67:
 *   ConvertSubnetToL1Tx        SubnetToL1Conversion(conversionID); justification: the subnet id
 *   RegisterL1ValidatorTx      L1ValidatorRegistration(validationID, true) while the validator is
 *                              registered, (…, false) once removed (justification below)
 *   SetL1ValidatorWeightTx     L1ValidatorWeight(validationID, nonce, weight) as the validation
 *                              stands now (the P-chain signs only its current weight, with the
 *                              nonce of the last weight change: a later weight tx's message for
 *                              an earlier one); once the validator is removed (weight 0), by this
 *                              tx or a later one: L1ValidatorRegistration(validationID, false) with
 *                              the protobuf L1ValidatorRegistrationJustification — field 1,
 *                              SubnetIDIndex{subnet_id, index}, for a validator of the
 *                              conversion; field 2, the RegisterL1Validator message, for one
 *                              registered later
 * Any other tx (or one the store does not have) is a 404.
 *
 * The handler waits for the validators' answers (sigagg.h's timeout) on the HTTP thread that
 * runs it.
 */
#include "api/internal.h"
#include "api/sigagg.h"
#include "codec/l1.h"
#include "codec/warp.h"
#include "crypto/cb58.h"
#include "crypto/hash.h"
#include "util/limits.h"

#define QUORUM_GET 67 /* the P-chain's own quorum for L1 messages */

static const sl_sql q_chain_subnet = { "SELECT subnet FROM chains WHERE id = ?" };
static const sl_sql q_subnet = { "SELECT 1 FROM subnets WHERE id = ?" };
static const sl_sql q_tx = { "SELECT type, bytes FROM txs WHERE id = ? AND chain = 0" };
static const sl_sql q_l1v = { "SELECT tx, removed_tx FROM l1_validators WHERE vid = ?" };
static const sl_sql q_l1w = { "SELECT weight, min_nonce, removed_tx FROM l1_validators WHERE vid = ?" };

static const uint8_t zero32[32];

/* Does the store know this subnet (the primary network always)? */
static sl_err subnet_known(sl_conn *c, const uint8_t id[32], bool *known)
{
	*known = !memcmp(id, zero32, 32);
	if (*known)
		return SL_OK;
	SL_STMT(c, q_subnet);
	sl_bind_blob(s, 0, id, 32);
	sl_err e = sl_stmt_query(s);
	if (!e)
		*known = sl_stmt_next(s, &e);
	return e;
}

/* The subnet of a chain: the primary network's for its own chains, else the chains table's. */
static sl_err chain_subnet(api_req *r, const uint8_t chain[32], uint8_t out[32], bool *found)
{
	*found = false;
	for (int i = 0; i < 3; i++)
		if (!memcmp(chain, r->api->net.chain[i], 32)) {
			memset(out, 0, 32);
			*found = true;
			return SL_OK;
		}
	SL_STMT(r->db, q_chain_subnet);
	sl_bind_blob(s, 0, chain, 32);
	sl_err e = sl_stmt_query(s);
	if (!e && sl_stmt_next(s, &e)) {
		size_t n;
		const uint8_t *p = sl_col_blob(s, 0, &n);
		if (n == 32) {
			memcpy(out, p, 32);
			*found = true;
		}
	}
	return e;
}

/* Aggregate msg for subnet at height (0: the tip) and answer {"signedMessage"}; 0 or -1 after api_fail. */
static int aggregate(api_req *r, const uint8_t subnet[32], uint64_t height, sl_span msg, sl_span just,
		     unsigned quorum, unsigned buffer)
{
	uint64_t tip;
	bool any;
	sl_err e = sl_vset_tip(r->db, &tip, &any);
	if (e)
		return api_fail_store(r, e);
	if (!any)
		return api_fail(r, 503, "the store has no P-chain block yet: no validator set to sign with");
	if (height > tip)
		return api_fail(r, 400,
				"pChainHeight %llu is in the future: the store's P-chain is at height %llu",
				(unsigned long long)height, (unsigned long long)tip);
	if (!height)
		height = tip;
	const sl_sigagg_source *src = r->api->cfg.sigagg;
	if (!src || !src->ask)
		return api_fail(
			r, 503,
			"this server asks no validators for signatures (start it with --peers-from URL)");
	sl_vset vs;
	if ((e = sl_vset_read(r->db, subnet, height, &vs)))
		return api_fail_store(r, e);
	sl_sigagg_set set;
	char why[160];
	e = sl_sigagg_set_build(&vs, &set, why);
	sl_vset_release(&vs);
	if (e)
		return api_fail(r, 500, "the validator set at height %llu: %s", (unsigned long long)height,
				why);
	sl_sigagg_req req = { .network_id = r->api->net.id,
			      .msg = msg,
			      .justification = just,
			      .quorum = quorum,
			      .buffer = buffer,
			      .timeout_ms = r->api->cfg.sigagg_timeout_ms };
	sl_sigagg_result res;
	sl_buf out;
	sl_buf_init(&out, SL_CODEC_MAX_SIZE + 4096);
	e = sl_sigagg_run(&set, &req, src, r->api->log, &res, &out);
	sl_sigagg_set_release(&set);
	int rc = 0;
	if (e == SL_ERR_INVALID)
		rc = api_fail(r, 400, "%s", res.why);
	else if (e == SL_ERR_UNAVAILABLE)
		rc = api_fail(r, 503, "%s", res.why);
	else if (e)
		rc = api_fail(r, 500, "signature aggregation failed: %s",
			      res.why[0] ? res.why : sl_err_name(e));
	else {
		SL_LOG(r->api->log, SL_INFO,
		       "aggregated a signature: %zu signers, weight %llu of %llu at height %llu (%zu answers, %zu refused)",
		       res.signers, (unsigned long long)res.signed_weight, (unsigned long long)res.total,
		       (unsigned long long)height, res.answers, res.bad);
		sl_jw *w = &r->w;
		sl_jw_obj(w);
		sl_jw_key(w, "signedMessage");
		sl_buf hex;
		sl_buf_init(&hex, 2 * out.len + 1);
		sl_buf_add_hex(&hex, out.p, out.len);
		sl_jw_strn(w, sl_buf_str(&hex), hex.len);
		sl_buf_release(&hex);
		sl_jw_obj_end(w);
	}
	sl_buf_release(&out);
	return rc;
}

int api_post_aggregate(api_req *r)
{
	sl_sigagg_body b;
	const char *param;
	char why[256];
	if (sl_sigagg_body_parse(r->http->body, r->http->body_len, &b, &param, why)) {
		sl_sigagg_body_release(&b);
		return api_fail(r, 400, "%s", why);
	}
	int rc;
	sl_warp_unsigned um;
	sl_warp_message sm;
	sl_err_detail d = { 0 };
	if (!b.has_msg) {
		rc = api_fail(
			r, 400,
			"message is required: a justification alone names no message to sign (give both)");
		goto out;
	}
	if (sl_warp_unsigned_decode(b.msg, b.msg_len, &um, &d)) {
		if (sl_warp_message_decode(b.msg, b.msg_len, &sm, NULL)) {
			rc = api_fail(r, 400, "message is not a warp message: %s at byte %zu",
				      d.msg ? d.msg : "", d.offset);
			goto out;
		}
		um = sm.msg;
	}
	if (um.network_id != r->api->net.id) {
		rc = api_fail(r, 400, "message is for network %u; this store's network is %u", um.network_id,
			      r->api->net.id);
		goto out;
	}
	uint8_t subnet[32];
	bool ok;
	sl_err e;
	if (b.has_subnet) {
		memcpy(subnet, b.subnet, 32);
		if ((e = subnet_known(r->db, subnet, &ok))) {
			rc = api_fail_store(r, e);
			goto out;
		}
		if (!ok) {
			char id[64];
			sl_cb58_id(id, subnet);
			rc = api_fail(r, 400, "signingSubnetId %s is not a subnet of this network", id);
			goto out;
		}
	} else {
		if ((e = chain_subnet(r, um.source_chain_id.p, subnet, &ok))) {
			rc = api_fail_store(r, e);
			goto out;
		}
		if (!ok) {
			char id[64];
			sl_cb58_id(id, um.source_chain_id.p);
			rc = api_fail(
				r, 400,
				"message's source chain %s is not a chain of this network: give signingSubnetId",
				id);
			goto out;
		}
	}
	rc = aggregate(r, subnet, b.height, um.bytes, sl_span_of(b.justification, b.justification_len),
		       b.quorum, b.buffer);
out:
	sl_sigagg_body_release(&b);
	return rc;
}

/* ---- GET by txHash: the P-chain's L1 message --------------------------------------------- */

static void pb_varint(sl_buf *b, uint64_t v)
{
	while (v >= 0x80) {
		sl_buf_addc(b, (char)(uint8_t)(v | 0x80));
		v >>= 7;
	}
	sl_buf_addc(b, (char)(uint8_t)v);
}

/* L1ValidatorRegistrationJustification: field 1 SubnetIDIndex{1: subnet_id, 2: index} or field 2 bytes */
static void justify_conversion(sl_buf *j, const uint8_t subnet[32], uint32_t index)
{
	uint8_t inner[2 + 32 + 6];
	size_t n = 0;
	inner[n++] = 0x0a, inner[n++] = 32;
	memcpy(inner + n, subnet, 32), n += 32;
	if (index) { /* proto3 leaves a zero out */
		inner[n++] = 0x10;
		for (uint32_t v = index;; v >>= 7) {
			inner[n++] = (uint8_t)(v >= 0x80 ? (v | 0x80) : v);
			if (v < 0x80)
				break;
		}
	}
	sl_buf_addc(j, 0x0a);
	pb_varint(j, n);
	sl_buf_add(j, inner, n);
}

static void justify_register(sl_buf *j, sl_span reg)
{
	sl_buf_addc(j, 0x12);
	pb_varint(j, reg.len);
	sl_buf_add(j, reg.p, reg.len);
}

typedef struct l1ctx {
	api_req *r;
	sl_buf l1;   /* the L1 message */
	sl_buf just; /* its justification */
} l1ctx;

/* The removal of validation `vid` attested: L1ValidatorRegistration(false) and its justification from
 * the tx that made the validator. 0, or -1 after api_fail. */
static int removal(l1ctx *c, const uint8_t vid[32])
{
	api_req *r = c->r;
	sl_stmt *s = sl_stmt_get(r->db, &q_l1v);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	sl_bind_blob(s, 0, vid, 32);
	sl_err e = sl_stmt_query(s);
	uint8_t made[32];
	bool found = !e && sl_stmt_next(s, &e);
	if (e)
		return api_fail_store(r, e);
	if (!found) {
		char id[64];
		sl_cb58_id(id, vid);
		return api_fail(r, 404, "the store has no L1 validation %s (the tx's)", id);
	}
	sl_col_copy(s, 0, made, 32);
	s = sl_stmt_get(r->db, &q_tx);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	sl_bind_blob(s, 0, made, 32);
	if ((e = sl_stmt_query(s)) || !sl_stmt_next(s, &e))
		return e ? api_fail_store(r, e)
			 : api_fail(r, 500, "the tx that made an L1 validator is not stored");
	size_t n;
	const uint8_t *p = sl_col_blob(s, 1, &n);
	uint8_t *copy = sl_arena_alloc(r->arena, n ? n : 1);
	if (!copy)
		return api_fail(r, 500, "out of memory");
	memcpy(copy, p, n);
	sl_pchain_tx tx;
	sl_err_detail d;
	if (sl_pchain_tx_decode(r->arena, copy, n, &tx, &d))
		return api_fail(r, 500, "a stored P-chain tx does not decode: %s", d.msg);
	const sl_pchain_utx *u = &tx.utx;
	if (u->type_id == SL_P_CONVERT_SUBNET_TO_L1_TX) {
		bool at = false;
		for (uint32_t i = 0; i < u->nvalidators && !at; i++) {
			uint8_t id[32];
			sl_pchain_l1_validation_id(u->subnet_id, i, id);
			if (!memcmp(id, vid, 32)) {
				justify_conversion(&c->just, u->subnet_id, i);
				at = true;
			}
		}
		if (!at)
			return api_fail(r, 500, "an L1 validation is not one of its conversion's");
	} else {
		sl_warp_l1_msg reg;
		if (sl_l1_tx_message(u, &reg))
			return api_fail(r, 500, "a stored RegisterL1ValidatorTx's message does not decode");
		justify_register(&c->just, reg.bytes);
	}
	sl_warp_l1_msg m = { .type = SL_WARP_L1_VALIDATOR_REGISTRATION,
			     .validation_id = sl_span_of(vid, 32),
			     .registered = false };
	if (sl_warp_l1_encode(&m, &c->l1))
		return api_fail(r, 500, "the L1 message does not encode");
	return 0;
}

/* Is validation vid still registered (no removal stored)? */
static int registered(api_req *r, const uint8_t vid[32], bool *yes)
{
	sl_stmt *s = sl_stmt_get(r->db, &q_l1v);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	sl_bind_blob(s, 0, vid, 32);
	sl_err e = sl_stmt_query(s);
	bool found = !e && sl_stmt_next(s, &e);
	if (e)
		return api_fail_store(r, e);
	*yes = found && sl_col_null(s, 1);
	return 0;
}

/* The L1 message (and justification) the P-chain attests for tx; 0, or -1 after api_fail. */
static int l1_message_of(l1ctx *c, const uint8_t *bytes, size_t n, const char *hash)
{
	api_req *r = c->r;
	sl_pchain_tx tx;
	sl_err_detail d;
	if (sl_pchain_tx_decode(r->arena, bytes, n, &tx, &d))
		return api_fail(r, 500, "a stored P-chain tx does not decode: %s", d.msg);
	const sl_pchain_utx *u = &tx.utx;
	switch (u->type_id) {
	case SL_P_CONVERT_SUBNET_TO_L1_TX: {
		sl_warp_conversion conv = { .subnet_id = sl_span_of(u->subnet_id, 32),
					    .manager_chain_id = sl_span_of(u->manager_chain_id, 32),
					    .manager_address = u->manager_address,
					    .nvalidators = u->nvalidators };
		conv.validators = sl_arena_array(r->arena, u->nvalidators ? u->nvalidators : 1,
						 sizeof *conv.validators);
		if (!conv.validators)
			return api_fail(r, 500, "out of memory");
		for (uint32_t i = 0; i < u->nvalidators; i++)
			conv.validators[i] = (sl_warp_conversion_validator){
				.node_id = u->validators[i].node_id,
				.bls_public_key = sl_span_of(u->validators[i].public_key, SL_WARP_BLS_PK_LEN),
				.weight = u->validators[i].weight
			};
		sl_buf cb;
		sl_buf_init(&cb, SL_CODEC_MAX_SIZE);
		sl_err e = sl_warp_conversion_encode(&conv, &cb);
		uint8_t cid[32];
		if (!e)
			sl_sha256(cb.p, cb.len, cid);
		sl_buf_release(&cb);
		if (e)
			return api_fail(r, 500, "the conversion data does not encode");
		sl_warp_l1_msg m = { .type = SL_WARP_L1_SUBNET_CONVERSION,
				     .conversion_id = sl_span_of(cid, 32) };
		if (sl_warp_l1_encode(&m, &c->l1))
			return api_fail(r, 500, "the L1 message does not encode");
		sl_buf_add(&c->just, u->subnet_id, 32);
		return 0;
	}
	case SL_P_REGISTER_L1_VALIDATOR_TX: {
		sl_warp_l1_msg reg;
		if (sl_l1_tx_message(u, &reg))
			return api_fail(r, 500, "a stored RegisterL1ValidatorTx's message does not decode");
		bool yes = false;
		if (registered(r, reg.id, &yes))
			return -1;
		if (!yes)
			return removal(c, reg.id);
		sl_warp_l1_msg m = { .type = SL_WARP_L1_VALIDATOR_REGISTRATION,
				     .validation_id = sl_span_of(reg.id, 32),
				     .registered = true };
		if (sl_warp_l1_encode(&m, &c->l1))
			return api_fail(r, 500, "the L1 message does not encode");
		return 0;
	}
	case SL_P_SET_L1_VALIDATOR_WEIGHT_TX: {
		sl_warp_l1_msg w;
		if (sl_l1_tx_message(u, &w) || w.type != SL_WARP_L1_VALIDATOR_WEIGHT)
			return api_fail(r, 500, "a stored SetL1ValidatorWeightTx's message does not decode");
		/* the P-chain attests the validation's weight of now: the last weight tx's message, or its
		 * removal */
		sl_stmt *s = sl_stmt_get(r->db, &q_l1w);
		if (!s)
			return api_fail_store(r, SL_ERR_STORE);
		sl_bind_blob(s, 0, w.validation_id.p, 32);
		sl_err e = sl_stmt_query(s);
		bool found = !e && sl_stmt_next(s, &e);
		if (e)
			return api_fail_store(r, e);
		if (!found) {
			char id[64];
			sl_cb58_id(id, w.validation_id.p);
			return api_fail(r, 404, "the store has no L1 validation %s (the tx's)", id);
		}
		uint64_t weight = sl_col_u64be(s, 0);
		int64_t min_nonce = sl_col_i64(s, 1);
		if (!sl_col_null(s, 2) || weight == 0)
			return removal(c, w.validation_id.p);
		if (min_nonce <= 0)
			return api_fail(r, 500, "a stored L1 validation changed weight without a nonce");
		sl_warp_l1_msg m = { .type = SL_WARP_L1_VALIDATOR_WEIGHT,
				     .validation_id = w.validation_id,
				     .nonce = (uint64_t)min_nonce - 1,
				     .weight = weight };
		if (sl_warp_l1_encode(&m, &c->l1))
			return api_fail(r, 500, "the L1 message does not encode");
		return 0;
	}
	default:
		return api_fail(r, 404,
				"P-chain tx %.64s is not one the P-chain attests with a warp message "
				"(ConvertSubnetToL1Tx, RegisterL1ValidatorTx, SetL1ValidatorWeightTx)",
				hash);
	}
}

int api_get_aggregate(api_req *r)
{
	uint8_t id[32];
	const char *msg = "";
	char mb[96];
	const char *hash = r->txHash ? r->txHash : "";
	if (sl_cb58_decode_id(hash, strlen(hash), id, &msg, mb))
		return api_fail(r, 400, "txHash must be a transaction id (cb58): %s", msg);
	sl_stmt *s = sl_stmt_get(r->db, &q_tx);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	sl_bind_blob(s, 0, id, 32);
	sl_err e = sl_stmt_query(s);
	if (e || !sl_stmt_next(s, &e))
		return e ? api_fail_store(r, e) : api_fail(r, 404, "no P-chain tx %.64s in this store", hash);
	size_t n;
	const uint8_t *p = sl_col_blob(s, 1, &n);
	uint8_t *bytes = sl_arena_alloc(r->arena, n ? n : 1);
	if (!bytes)
		return api_fail(r, 500, "out of memory");
	memcpy(bytes, p, n);
	l1ctx c = { .r = r };
	sl_buf_init(&c.l1, SL_CODEC_MAX_SIZE);
	sl_buf_init(&c.just, SL_CODEC_MAX_SIZE);
	sl_buf um;
	sl_buf_init(&um, SL_CODEC_MAX_SIZE);
	int rc = l1_message_of(&c, bytes, n, hash);
	if (!rc) {
		/* the unsigned message: from the P-chain, an AddressedCall with no source address */
		sl_buf pl;
		sl_buf_init(&pl, SL_CODEC_MAX_SIZE);
		sl_warp_payload ac = { .type = SL_WARP_PAYLOAD_ADDRESSED_CALL,
				       .payload = sl_span_of(c.l1.p, c.l1.len) };
		sl_warp_unsigned u = { .network_id = r->api->net.id,
				       .source_chain_id = sl_span_of(zero32, 32),
				       .payload = sl_span_of(pl.p, pl.len) };
		if (sl_warp_payload_encode(&ac, &pl) || (u.payload = sl_span_of(pl.p, pl.len), 0) ||
		    sl_warp_unsigned_encode(&u, &um))
			rc = api_fail(r, 500, "the warp message does not encode");
		else
			rc = aggregate(r, zero32, 0, sl_span_of(um.p, um.len),
				       sl_span_of(c.just.p, c.just.len), QUORUM_GET, 0);
		sl_buf_release(&pl);
	}
	sl_buf_release(&um);
	sl_buf_release(&c.l1);
	sl_buf_release(&c.just);
	return rc;
}
