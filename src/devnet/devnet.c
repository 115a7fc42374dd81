/*
 * devnet.c — the devnet's timeline: genesis, then the history as a series
 * of steps in which each chain makes its blocks, then live steps.
 *
 * Timeline (all from the configuration, none from the clock):
 *   start_time                 genesis; C-chain atomic txs in the pre-AP5 layout
 *   start + 5% of the span     ApricotPhase5: atomic txs batched
 *   start + 20% of the span    Cortina: the X-chain moves from txs and vertices to blocks
 *   start + 25% of the span    Durango: P-chain stakers start when accepted (before it they
 *                              wait pending until a future start); Etna's L1 txs from here
 *   start + span               the end of the history; live steps continue from there
 * The span is 90 days, so staking periods (14 to 30 days) start and end inside
 * it: completed, active and removed stakers are left at the end, and pending
 * ones occur before Durango (none is left at the end: see docs/devnet.md).
 */
#include "devnet/world.h"

#include <stdio.h>

#include "crypto/addr.h"
#include "crypto/cb58.h"
#include "crypto/hash.h"
#include "crypto/secp.h"

#define SPAN_SECONDS (90ull * 24 * 3600)

struct sl_devnet {
	dn_world w;
	char chain_ids[DN_CHAINS][64];
	bool history_done;
};

dn_world *dn_world_of(sl_devnet *d) { return &d->w; }

static void derive(const char *seed, const char *what, uint32_t i, uint8_t out[32])
{
	char msg[512];
	int n = snprintf(msg, sizeof msg, "snowline-devnet/%s/%s/%u", seed, what, i);
	sl_sha256(msg, (size_t)n, out);
}

static void set_params(dn_world *w)
{
	uint64_t start = w->cfg.start_time;
	w->params = (dn_params){
		.supply_cap = 720000000ull * DN_NANO,
		.min_validator_stake = 2000ull * DN_NANO,
		.max_validator_stake = 3000000ull * DN_NANO,
		.min_delegator_stake = 25ull * DN_NANO,
		.min_stake_duration = 24ull * 3600,
		.max_stake_duration = 365ull * 24 * 3600,
		.min_delegation_fee = 20000,
		.max_consumption_rate = 120000,
		.min_consumption_rate = 100000,
		.minting_period = 365ull * 24 * 3600,
		.tx_fee = DN_NANO / 1000,
		.create_subnet_fee = DN_NANO,
		.create_chain_fee = DN_NANO,
		.create_asset_fee = DN_NANO / 100,
		.ap5_time = start + SPAN_SECONDS / 20,
		.cortina_time = start + SPAN_SECONDS / 5,
		.durango_time = start + SPAN_SECONDS / 4,
	};
}

sl_devnet *sl_devnet_new(const sl_devnet_config *cfg, char err[256])
{
	sl_devnet *d = calloc(1, sizeof *d);
	if (!d) {
		snprintf(err, 256, "out of memory");
		return NULL;
	}
	dn_world *w = &d->w;
	w->cfg = *cfg;
	snprintf(w->seed, sizeof w->seed, "%s", cfg->seed ? cfg->seed : "snowline");
	w->cfg.seed = w->seed;
	if (!w->cfg.network_id)
		w->cfg.network_id = 12345;
	if (!w->cfg.start_time)
		w->cfg.start_time = 1704067200; /* 2024-01-01T00:00:00Z */
	if (!w->cfg.txs)
		w->cfg.txs = 5000;
	if (!w->cfg.accounts)
		w->cfg.accounts = 64;
	if (!w->cfg.validators)
		w->cfg.validators = 5;
	set_params(w);
	dn_rng_init(&w->rng, w->seed, "world");
	w->now = w->cfg.start_time;

	/* Keys: accounts, then validator nodes with BLS keys. */
	w->nkeys = w->cfg.accounts;
	w->keys = calloc(w->nkeys, sizeof *w->keys);
	w->nnodes = w->cfg.validators + 64; /* genesis validators plus later joiners */
	w->nodes = calloc(w->nnodes, sizeof *w->nodes);
	if (!w->keys || !w->nodes) {
		snprintf(err, 256, "out of memory");
		goto fail;
	}
	for (uint32_t i = 0; i < w->nkeys; i++) {
		dn_key *k = &w->keys[i];
		for (uint32_t salt = 0;; salt++) {
			derive(w->seed, salt ? "account-retry" : "account", i * 1000 + salt, k->sk);
			uint8_t pub[33];
			if (sl_secp_pubkey(k->sk, pub)) {
				sl_hash160(pub, 33, k->addr);
				break;
			}
		}
		if (!sl_secp_address(k->sk, k->evm)) {
			snprintf(err, 256, "cannot derive key %u", i);
			goto fail;
		}
	}
	for (uint32_t i = 0; i < w->nnodes; i++) {
		dn_node *nd = &w->nodes[i];
		uint8_t h[32], ikm[32];
		derive(w->seed, "node", i, h);
		memcpy(nd->node_id, h, 20);
		derive(w->seed, "bls", i, ikm);
		ikm[0] &= 0x1f; /* below the group order r (0x73ed...), so every 32 bytes decode */
		if (sl_bls_sk_decode(&nd->bls, ikm)) {
			snprintf(err, 256, "cannot derive BLS key %u", i);
			goto fail;
		}
		sl_bls_pk pk;
		sl_bls_sk_to_pk(&nd->bls, &pk);
		sl_bls_pk_encode(&pk, nd->bls_pk);
		sl_bls_sig pop;
		sl_bls_pop_sign(&nd->bls, &pop);
		sl_bls_sig_encode(&pop, nd->pop);
	}

	/* Chains and the AVAX asset (P is the zero id, as on every network). */
	derive(w->seed, "X-chain", 0, w->chain[DN_X].id);
	derive(w->seed, "C-chain", 0, w->chain[DN_C].id);
	derive(w->seed, "AVAX", 0, w->avax);
	for (int c = 0; c < DN_CHAINS; c++) {
		derive(w->seed, "genesis-block", (uint32_t)c, w->chain[c].last_inner);
		memcpy(w->chain[c].last_outer, w->chain[c].last_inner, 32);
		w->chain[c].last_time = w->cfg.start_time;
		sl_cb58_id(d->chain_ids[c], w->chain[c].id);
	}
	sl_err e;
	/* P last: its genesis stakers' rewards depend on the whole genesis supply. */
	if ((e = dn_x_init(w)) || (e = dn_c_init(w)) || (e = dn_p_init(w))) {
		snprintf(err, 256, "genesis: %s", sl_err_name(e));
		goto fail;
	}
	return d;
fail:
	sl_devnet_free(d);
	return NULL;
}

void sl_devnet_free(sl_devnet *d)
{
	if (!d)
		return;
	dn_world *w = &d->w;
	dn_p_free(w);
	dn_x_free(w);
	dn_c_free(w);
	for (int c = 0; c < DN_CHAINS; c++) {
		free(w->utxos[c].v);
		for (int s = 0; s < DN_CHAINS; s++)
			free(w->shared[c][s].v);
	}
	free(w->keys);
	free(w->nodes);
	free(d);
}

const char *sl_devnet_chain_id(const sl_devnet *d, char chain)
{
	return d->chain_ids[chain == 'P' ? DN_P : chain == 'X' ? DN_X : DN_C];
}

void sl_devnet_chain_id_of(const char *seed, char chain, char out[64])
{
	uint8_t id[32] = { 0 };
	if (chain == 'X')
		derive(seed ? seed : "snowline", "X-chain", 0, id);
	else if (chain == 'C')
		derive(seed ? seed : "snowline", "C-chain", 0, id);
	else if (chain == 'A') /* the AVAX asset */
		derive(seed ? seed : "snowline", "AVAX", 0, id);
	sl_cb58_id(out, id);
}

/* One step of the timeline: each chain in a fixed order, with its share of txs. */
static sl_err step(dn_world *w, uint64_t until, uint32_t ntxs)
{
	/* Shares: P 20%, X 45%, C 35%, with the remainder placed by the world stream. */
	uint32_t np = ntxs / 5, nx = ntxs * 9 / 20, nc = ntxs - np - nx;
	sl_err e;
	w->now = until;
	if ((e = dn_p_step(w, until, np)) || (e = w->sink_err))
		return e;
	if ((e = dn_x_step(w, until, nx)) || (e = w->sink_err))
		return e;
	if ((e = dn_c_step(w, until, nc)) || (e = w->sink_err))
		return e;
	return SL_OK;
}

sl_err sl_devnet_history(sl_devnet *d, sl_devnet_sink_fn sink, void *ctx)
{
	dn_world *w = &d->w;
	w->sink = sink;
	w->sink_ctx = ctx;
	w->sink_err = SL_OK;
	uint64_t nsteps = w->cfg.txs / 20;
	if (nsteps < 200)
		nsteps = 200;
	uint64_t done = 0;
	for (uint64_t i = 1; i <= nsteps; i++) {
		uint64_t until = w->cfg.start_time + SPAN_SECONDS * i / nsteps;
		uint64_t target = w->cfg.txs * i / nsteps;
		sl_err e = step(w, until, (uint32_t)(target - done));
		if (e)
			return e;
		done = target;
	}
	d->history_done = true;
	return SL_OK;
}

sl_err sl_devnet_step(sl_devnet *d, uint64_t seconds, sl_devnet_sink_fn sink, void *ctx)
{
	dn_world *w = &d->w;
	w->sink = sink;
	w->sink_ctx = ctx;
	w->sink_err = SL_OK;
	return step(w, w->now + (seconds ? seconds : 1), 10);
}

void sl_devnet_manifest_write(const sl_devnet *d, sl_buf *out)
{
	const dn_world *w = &d->w;
	sl_jw j;
	sl_jw_init(&j, out);
	sl_jw_obj(&j);
	sl_jw_key(&j, "seed");
	sl_jw_str(&j, w->seed);
	sl_jw_key(&j, "networkId");
	sl_jw_u64(&j, w->cfg.network_id);
	sl_jw_key(&j, "startTime");
	sl_jw_u64(&j, w->cfg.start_time);
	sl_jw_key(&j, "endTime");
	sl_jw_u64(&j, w->now);
	sl_jw_key(&j, "cortinaTime");
	sl_jw_u64(&j, w->params.cortina_time);
	sl_jw_key(&j, "apricotPhase5Time");
	sl_jw_u64(&j, w->params.ap5_time);
	sl_jw_key(&j, "durangoTime");
	sl_jw_u64(&j, w->params.durango_time);
	sl_jw_key(&j, "avaxAssetId");
	sl_jw_cb58(&j, w->avax, 32);
	sl_jw_key(&j, "supply");
	sl_jw_u64s(&j, w->supply);
	sl_jw_key(&j, "chains");
	sl_jw_obj(&j);
	static const char *const names[DN_CHAINS] = { "P", "X", "C" };
	for (int c = 0; c < DN_CHAINS; c++) {
		sl_jw_key(&j, names[c]);
		sl_jw_obj(&j);
		sl_jw_key(&j, "id");
		sl_jw_str(&j, d->chain_ids[c]);
		sl_jw_key(&j, "height");
		sl_jw_u64(&j, w->chain[c].height);
		sl_jw_key(&j, "blocks");
		sl_jw_u64(&j, w->chain[c].blocks);
		sl_jw_key(&j, "txs");
		sl_jw_u64(&j, w->chain[c].txs);
		sl_jw_obj_end(&j);
	}
	sl_jw_obj_end(&j);
	sl_jw_key(&j, "containers");
	sl_jw_obj(&j);
	for (int k = 0; k < SL_IDX__COUNT; k++) {
		sl_jw_key(&j, sl_ikind_name((sl_ikind)k));
		sl_jw_u64(&j, w->emitted[k]);
	}
	sl_jw_obj_end(&j);
	sl_jw_key(&j, "accounts");
	sl_jw_arr(&j);
	const char *hrp = sl_addr_hrp(w->cfg.network_id);
	for (uint32_t i = 0; i < w->nkeys; i++) {
		sl_jw_obj(&j);
		sl_jw_key(&j, "index");
		sl_jw_u64(&j, i);
		sl_jw_key(&j, "privateKey");
		sl_jw_hex(&j, w->keys[i].sk, 32);
		for (int c = 0; c < 2; c++) {
			char mem[128];
			sl_buf a = { .p = (uint8_t *)mem, .cap = sizeof mem, .max = sizeof mem - 1 };
			sl_addr_write(&a, names[c], hrp, w->keys[i].addr);
			sl_jw_key(&j, c == 0 ? "pAddress" : "xAddress");
			sl_jw_strn(&j, mem, a.len);
		}
		sl_jw_key(&j, "evmAddress");
		sl_jw_hex(&j, w->keys[i].evm, 20);
		sl_jw_obj_end(&j);
	}
	sl_jw_arr_end(&j);
	sl_jw_key(&j, "P");
	dn_p_manifest(w, &j);
	sl_jw_key(&j, "X");
	dn_x_manifest(w, &j);
	sl_jw_key(&j, "C");
	dn_c_manifest(w, &j);
	sl_jw_obj_end(&j);
	sl_buf_addc(out, '\n');
}
