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
 * Under --network fuji or mainnet ApricotPhase5 is that network's real time
 * (the codec picks the atomic layout by it); the other forks keep this
 * compressed timeline.
 *
 * Also here: the network identities and the snapshot file format.
 */
#include "devnet/world.h"

#include <stdio.h>

#include "codec/atomic.h"
#include "crypto/addr.h"
#include "crypto/cb58.h"
#include "crypto/hash.h"
#include "crypto/secp.h"

#define SPAN_SECONDS (90ull * 24 * 3600)

struct sl_devnet {
	dn_world w; /* first: tests reach the world through the handle */
	char chain_ids[DN_CHAINS][64];
	bool history_done;
	uint64_t steps_done, steps_total, live_steps;
	uint64_t txs_done; /* txs asked of the chains so far (the size knob's unit) */
	sl_devnet_progress_fn progress;
	void *progress_ctx;
};

/* ---- networks ---- */

static const struct {
	const char *name;
	uint32_t id;
	const char *x, *c, *avax; /* cb58; NULL: derived from the seed */
	uint64_t evm_chain_id;
} networks[] = {
	[SL_DEVNET_LOCAL] = { "local", 12345, NULL, NULL, NULL, 43112 },
	/* ava-labs/avalanchego genesis (TestVMGenesis, TestAVAXAssetID) and coreth's params */
	[SL_DEVNET_FUJI] = { "fuji", 5, "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm",
			     "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp",
			     "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK", 43113 },
	[SL_DEVNET_MAINNET] = { "mainnet", 1, "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM",
				"2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5",
				"FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z", 43114 },
};

const char *sl_devnet_network_name(sl_devnet_network n)
{
	return (unsigned)n < SL_ARRAY_LEN(networks) ? networks[n].name : "?";
}

bool sl_devnet_network_parse(const char *s, sl_devnet_network *out)
{
	for (size_t i = 0; s && i < SL_ARRAY_LEN(networks); i++)
		if (!strcmp(s, networks[i].name)) {
			*out = (sl_devnet_network)i;
			return true;
		}
	return false;
}

void sl_devnet_l1_fee(sl_devnet_network n, sl_l1_fee_config *out)
{
	if (!sl_l1_fee_config_of(sl_devnet_network_id(n), out))
		*out = (sl_l1_fee_config){ 20000, 10000, 0, 865617 };
	out->min_price = DN_L1_FEE_RATE;
}

uint32_t sl_devnet_network_id(sl_devnet_network n)
{
	return (unsigned)n < SL_ARRAY_LEN(networks) ? networks[n].id : 0;
}

static bool fixed_id(const char *cb58, uint8_t out[32])
{
	const char *msg;
	char mb[96];
	return sl_cb58_decode_id(cb58, strlen(cb58), out, &msg, mb) == SL_OK;
}

dn_world *dn_world_of(sl_devnet *d) { return &d->w; }

static void derive(const char *seed, const char *what, uint32_t i, uint8_t out[32])
{
	char msg[512];
	int n = snprintf(msg, sizeof msg, "snowline-devnet/%s/%s/%u", seed, what, i);
	sl_sha256(msg, (size_t)n, out);
}

/* Account i's secp256k1 key and its address (hash160 of the compressed public key). */
static void account_key(const char *seed, uint32_t i, uint8_t sk[32], uint8_t addr[20])
{
	for (uint32_t salt = 0;; salt++) {
		derive(seed, salt ? "account-retry" : "account", i * 1000 + salt, sk);
		uint8_t pub[33];
		if (sl_secp_pubkey(sk, pub)) {
			sl_hash160(pub, 33, addr);
			return;
		}
	}
}

static void set_params(dn_world *w)
{
	uint64_t start = w->cfg.start_time;
	bool local = w->cfg.network == SL_DEVNET_LOCAL;
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
		.ap5_time = local ? start + SPAN_SECONDS / 20 : sl_atomic_ap5_time(w->cfg.network_id),
		.evm_chain_id = networks[w->cfg.network].evm_chain_id,
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
	if (dn_l1view_init(w)) {
		snprintf(err, 256, "cannot make the L1 view's lock");
		free(d);
		return NULL;
	}
	w->cfg = *cfg;
	snprintf(w->seed, sizeof w->seed, "%s", cfg->seed ? cfg->seed : "snowline");
	w->cfg.seed = w->seed;
	if ((unsigned)w->cfg.network >= SL_ARRAY_LEN(networks)) {
		snprintf(err, 256, "unknown network %d", (int)w->cfg.network);
		goto fail;
	}
	if (!w->cfg.network_id || w->cfg.network != SL_DEVNET_LOCAL)
		w->cfg.network_id = networks[w->cfg.network].id;
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
	w->nnodes = w->cfg.validators + DN_LATER_NODES; /* genesis validators plus later joiners */
	w->nodes = calloc(w->nnodes, sizeof *w->nodes);
	if (!w->keys || !w->nodes) {
		snprintf(err, 256, "out of memory");
		goto fail;
	}
	for (uint32_t i = 0; i < w->nkeys; i++) {
		dn_key *k = &w->keys[i];
		account_key(w->seed, i, k->sk, k->addr);
		if (!sl_secp_address(k->sk, k->evm)) {
			snprintf(err, 256, "cannot derive key %u", i);
			goto fail;
		}
	}
	for (uint32_t i = 0; i < w->nnodes; i++) {
		dn_node *nd = &w->nodes[i];
		uint8_t h[32], ikm[32];
		/* The staking identity: a P-256 key, its certificate, NodeID = hash160(certificate). */
		derive(w->seed, "staking", i, h);
		char cn[64];
		snprintf(cn, sizeof cn, "snowline devnet node %u", i);
		size_t cert_len = 0;
		uint8_t serial[32];
		derive(w->seed, "staking-serial", i, serial);
		if (sl_staking_key_from_seed(&nd->staking, h) ||
		    sl_staking_cert(&nd->staking, serial, cn, nd->cert, &cert_len)) {
			snprintf(err, 256, "cannot make the staking certificate of node %u", i);
			goto fail;
		}
		nd->cert_len = (uint32_t)cert_len;
		sl_staking_node_id(nd->cert, cert_len, nd->node_id);
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
	if (w->cfg.network == SL_DEVNET_LOCAL) {
		derive(w->seed, "X-chain", 0, w->chain[DN_X].id);
		derive(w->seed, "C-chain", 0, w->chain[DN_C].id);
		derive(w->seed, "AVAX", 0, w->avax);
	} else if (!fixed_id(networks[w->cfg.network].x, w->chain[DN_X].id) ||
		   !fixed_id(networks[w->cfg.network].c, w->chain[DN_C].id) ||
		   !fixed_id(networks[w->cfg.network].avax, w->avax)) {
		snprintf(err, 256, "bad built-in ids of %s", networks[w->cfg.network].name);
		goto fail;
	}
	dn_rng_init(&w->prop_rng, w->seed, "proposers");
	for (int c = 0; c < DN_CHAINS; c++) {
		derive(w->seed, "genesis-block", (uint32_t)c, w->chain[c].last_inner);
		memcpy(w->chain[c].last_outer, w->chain[c].last_inner, 32);
		w->chain[c].last_time = w->cfg.start_time;
		sl_cb58_id(d->chain_ids[c], w->chain[c].id);
		w->props[c].by_node = calloc(w->nnodes, sizeof *w->props[c].by_node);
		if (!w->props[c].by_node) {
			snprintf(err, 256, "out of memory");
			goto fail;
		}
	}
	if (!dn_pheight_add(w, w->cfg.start_time, 0)) {
		snprintf(err, 256, "out of memory");
		goto fail;
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
	dn_l1view_free(w);
	dn_x_free(w);
	dn_c_free(w);
	for (int c = 0; c < DN_CHAINS; c++) {
		free(w->utxos[c].v);
		for (int s = 0; s < DN_CHAINS; s++)
			free(w->shared[c][s].v);
	}
	for (int c = 0; c < DN_CHAINS; c++) {
		free(w->props[c].by_node);
		free(w->props[c].list);
	}
	free(w->ph);
	free(w->keys);
	free(w->nodes);
	free(d);
}

const sl_devnet_config *sl_devnet_config_of(const sl_devnet *d) { return &d->w.cfg; }

const char *sl_devnet_chain_id(const sl_devnet *d, char chain)
{
	return d->chain_ids[chain == 'P' ? DN_P : chain == 'X' ? DN_X : DN_C];
}

void sl_devnet_account_of(const sl_devnet_config *cfg, uint32_t i, char chain, char out[96])
{
	uint8_t sk[32], addr[20];
	account_key(cfg->seed ? cfg->seed : "snowline", i, sk, addr);
	const char alias[2] = { chain, 0 };
	sl_buf a = { .p = (uint8_t *)out, .cap = 96, .max = 95 };
	sl_addr_write(&a, alias,
		      sl_addr_hrp(cfg->network_id ? cfg->network_id : sl_devnet_network_id(cfg->network)),
		      addr);
	out[a.len] = 0;
}

void sl_devnet_chain_id_of(const sl_devnet_config *cfg, char chain, char out[64])
{
	uint8_t id[32] = { 0 };
	const char *seed = cfg->seed ? cfg->seed : "snowline";
	bool local = cfg->network == SL_DEVNET_LOCAL || (unsigned)cfg->network >= SL_ARRAY_LEN(networks);
	const char *what = chain == 'X' ? "X-chain" : chain == 'C' ? "C-chain" : chain == 'A' ? "AVAX" : NULL;
	if (what && local)
		derive(seed, what, 0, id);
	else if (what)
		(void)fixed_id(chain == 'X'   ? networks[cfg->network].x
			       : chain == 'C' ? networks[cfg->network].c
					      : networks[cfg->network].avax,
			       id);
	sl_cb58_id(out, id);
}

/* One step of the timeline: each chain in a fixed order, with its share of txs. */
static sl_err step(dn_world *w, uint64_t until, uint32_t ntxs)
{
	/* Shares: P 20%, X 45%, C 35%, with the remainder placed by the world stream. */
	uint32_t np = ntxs / 5, nx = ntxs * 9 / 20, nc = ntxs - np - nx;
	sl_err e;
	w->now = until;
	dn_pheight_prune(w);
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
	if (d->history_done)
		return SL_ERR_CONFLICT;
	d->steps_total = nsteps;
	uint64_t done = 0;
	for (uint64_t i = 1; i <= nsteps; i++) {
		uint64_t until = w->cfg.start_time + SPAN_SECONDS * i / nsteps;
		uint64_t target = w->cfg.txs * i / nsteps;
		sl_err e = step(w, until, (uint32_t)(target - done));
		if (e)
			return e;
		d->txs_done += target - done;
		d->steps_done = i;
		done = target;
		if (d->progress) {
			sl_devnet_stats st;
			sl_devnet_stats_get(d, &st);
			d->progress(d->progress_ctx, &st);
		}
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
	sl_err e = step(w, w->now + (seconds ? seconds : 1), 10);
	d->txs_done += 10;
	d->live_steps++;
	return e;
}

void sl_devnet_on_rewards(sl_devnet *d, sl_devnet_rewards_fn fn, void *ctx)
{
	d->w.rewards = fn;
	d->w.rewards_ctx = ctx;
}

void sl_devnet_genesis_write(const sl_devnet *d, sl_buf *out)
{
	const dn_world *w = &d->w;
	sl_jw j;
	sl_jw_init(&j, out);
	sl_jw_obj(&j);
	sl_jw_key(&j, "timestamp");
	sl_jw_u64(&j, w->cfg.start_time);
	sl_jw_key(&j, "utxos");
	sl_jw_obj(&j);
	sl_jw_key(&j, "P");
	dn_p_genesis(w, &j, false);
	sl_jw_key(&j, "X");
	dn_x_genesis(w, &j);
	sl_jw_obj_end(&j);
	sl_jw_key(&j, "stakers");
	dn_p_genesis(w, &j, true);
	sl_jw_obj_end(&j);
	sl_buf_addc(out, '\n');
}

sl_err sl_devnet_c_genesis_write(const sl_devnet *d, sl_buf *out) { return dn_c_genesis(&d->w, out); }

void sl_devnet_on_progress(sl_devnet *d, sl_devnet_progress_fn fn, void *ctx)
{
	d->progress = fn;
	d->progress_ctx = ctx;
}

void sl_devnet_stats_get(const sl_devnet *d, sl_devnet_stats *out)
{
	const dn_world *w = &d->w;
	*out = (sl_devnet_stats){ .txs_target = w->cfg.txs,
				  .txs = d->txs_done,
				  .steps = d->steps_done,
				  .steps_total = d->steps_total,
				  .live_steps = d->live_steps,
				  .history_done = d->history_done,
				  .now = w->now };
	memcpy(out->emitted, w->emitted, sizeof out->emitted);
	for (int c = 0; c < DN_CHAINS; c++) {
		out->height[c] = w->chain[c].height;
		out->blocks[c] = w->chain[c].blocks;
		out->chain_txs[c] = w->chain[c].txs;
	}
}

static void jw_node_id(sl_jw *j, const uint8_t id[20])
{
	char mem[64];
	sl_buf b = { .p = (uint8_t *)mem, .cap = sizeof mem, .max = sizeof mem - 1 };
	sl_nodeid_write(&b, id);
	sl_jw_strn(j, mem, b.len);
}

/* Every node's identities: what a staking or proposer query must show. */
static void jw_nodes(sl_jw *j, const dn_world *w)
{
	sl_jw_arr(j);
	for (uint32_t i = 0; i < w->nnodes; i++) {
		const dn_node *nd = &w->nodes[i];
		sl_jw_obj(j);
		sl_jw_key(j, "index");
		sl_jw_u64(j, i);
		sl_jw_key(j, "nodeId");
		jw_node_id(j, nd->node_id);
		sl_jw_key(j, "certificate");
		sl_jw_hex(j, nd->cert, nd->cert_len);
		sl_jw_key(j, "blsPublicKey");
		sl_jw_hex(j, nd->bls_pk, sizeof nd->bls_pk);
		sl_jw_key(j, "blsProofOfPossession");
		sl_jw_hex(j, nd->pop, sizeof nd->pop);
		sl_jw_obj_end(j);
	}
	sl_jw_arr_end(j);
}

/*
 * {"signed", "unsigned", "options", "listed", "byNode": {"NodeID-…": {"blocks": n, "blockIds": [...]}}}:
 * blockIds (container ids in acceptance order) only while "listed", i.e. up to DN_PROPOSER_LIST_MAX
 * signed blocks on the chain.
 */
static void jw_proposers(sl_jw *j, const dn_world *w, const dn_proposers *pr)
{
	sl_jw_obj(j);
	sl_jw_key(j, "signed");
	sl_jw_u64(j, pr->nsigned);
	sl_jw_key(j, "unsigned");
	sl_jw_u64(j, pr->nunsigned);
	sl_jw_key(j, "options");
	sl_jw_u64(j, pr->noptions);
	sl_jw_key(j, "listed");
	sl_jw_bool(j, !pr->overflow);
	sl_jw_key(j, "byNode");
	sl_jw_obj(j);
	for (uint32_t i = 0; pr->by_node && i < w->nnodes; i++) {
		if (!pr->by_node[i])
			continue;
		char mem[64];
		sl_buf b = { .p = (uint8_t *)mem, .cap = sizeof mem, .max = sizeof mem - 1 };
		sl_nodeid_write(&b, w->nodes[i].node_id);
		sl_jw_keyn(j, mem, b.len);
		sl_jw_obj(j);
		sl_jw_key(j, "blocks");
		sl_jw_u64(j, pr->by_node[i]);
		if (!pr->overflow) {
			sl_jw_key(j, "blockIds");
			sl_jw_arr(j);
			for (size_t k = 0; k < pr->nlist; k++)
				if (pr->list[k].node == i)
					sl_jw_cb58(j, pr->list[k].id, 32);
			sl_jw_arr_end(j);
		}
		sl_jw_obj_end(j);
	}
	sl_jw_obj_end(j);
	sl_jw_obj_end(j);
}

void sl_devnet_current_validators_write(const sl_devnet *d, sl_buf *out)
{
	sl_jw j;
	sl_jw_init(&j, out);
	dn_p_current_validators(&d->w, &j);
}

void sl_devnet_peers_write(const sl_devnet *d, sl_buf *out)
{
	sl_jw j;
	sl_jw_init(&j, out);
	dn_peers(&d->w, &j);
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
	sl_jw_key(&j, "network");
	sl_jw_obj(&j);
	sl_jw_key(&j, "name");
	sl_jw_str(&j, networks[w->cfg.network].name);
	sl_jw_key(&j, "networkId");
	sl_jw_u64(&j, w->cfg.network_id);
	sl_jw_key(&j, "hrp");
	sl_jw_str(&j, sl_addr_hrp(w->cfg.network_id));
	sl_jw_key(&j, "pChainId");
	sl_jw_str(&j, d->chain_ids[DN_P]);
	sl_jw_key(&j, "xChainId");
	sl_jw_str(&j, d->chain_ids[DN_X]);
	sl_jw_key(&j, "cChainId");
	sl_jw_str(&j, d->chain_ids[DN_C]);
	sl_jw_key(&j, "avaxAssetId");
	sl_jw_cb58(&j, w->avax, 32);
	sl_jw_key(&j, "evmChainId");
	sl_jw_u64(&j, w->params.evm_chain_id);
	sl_jw_obj_end(&j);
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
		sl_jw_key(&j, "proposers");
		jw_proposers(&j, w, &w->props[c]);
		sl_jw_obj_end(&j);
	}
	sl_jw_obj_end(&j);
	sl_jw_key(&j, "nodes");
	jw_nodes(&j, w);
	sl_jw_key(&j, "peers"); /* what info.peers answers (peers.c) */
	dn_peers(w, &j);
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

/*
 * ---- snapshots ----
 *
 *   0   8   magic "SLDNSNAP"
 *   8   4   version (u32 big-endian): DN_SNAP_VERSION
 *   12  8   body length (u64)
 *   20  32  sha256 of the body
 *   52  ..  body: the configuration (seed, network, network id, start
 *           time, txs, accounts, validators), the generator's counters,
 *           the world (world.h), then the P, X and C modules' states, then
 *           an end mark. Numbers are u64 big-endian; structs are arrays
 *           (count, element size, bytes in host order).
 */
#define DN_SNAP_MAGIC "SLDNSNAP"
#define DN_SNAP_VERSION 1u
#define DN_SNAP_HEADER 52
#define DN_SNAP_END 0x454e44534e41500aull /* "ENDSNAP\n" */

static void snap_config(sl_buf *b, const sl_devnet_config *c)
{
	size_t n = strlen(c->seed);
	dn_snap_u64(b, n);
	dn_snap_raw(b, c->seed, n);
	dn_snap_u64(b, (uint64_t)c->network);
	dn_snap_u64(b, c->network_id);
	dn_snap_u64(b, c->start_time);
	dn_snap_u64(b, c->txs);
	dn_snap_u64(b, c->accounts);
	dn_snap_u64(b, c->validators);
}

sl_err sl_devnet_snapshot(const sl_devnet *d, sl_buf *out)
{
	const dn_world *w = &d->w;
	if (!d->history_done)
		return SL_ERR_CONFLICT;
	size_t at = out->len;
	uint8_t head[DN_SNAP_HEADER] = { 0 };
	sl_buf_add(out, head, sizeof head); /* filled in below */
	size_t body = out->len;
	snap_config(out, &w->cfg);
	dn_snap_u64(out, d->history_done);
	dn_snap_u64(out, d->steps_done);
	dn_snap_u64(out, d->steps_total);
	dn_snap_u64(out, d->live_steps);
	dn_snap_u64(out, d->txs_done);
	dn_snap_one(out, &w->params);
	dn_snap_one(out, &w->rng);
	dn_snap_raw(out, w->avax, 32);
	dn_snap_arr(out, w->chain, DN_CHAINS, sizeof w->chain[0]);
	for (int c = 0; c < DN_CHAINS; c++) {
		dn_snap_utxos(out, &w->utxos[c]);
		for (int s = 0; s < DN_CHAINS; s++)
			dn_snap_utxos(out, &w->shared[c][s]);
	}
	dn_snap_u64(out, w->now);
	dn_snap_u64(out, w->supply);
	dn_snap_arr(out, w->emitted, SL_IDX__COUNT, sizeof w->emitted[0]);
	dn_snap_arr(out, w->last_ts, SL_IDX__COUNT, sizeof w->last_ts[0]);
	dn_snap_one(out, &w->prop_rng);
	for (int c = 0; c < DN_CHAINS; c++) {
		const dn_proposers *pr = &w->props[c];
		dn_snap_arr(out, pr->by_node, w->nnodes, sizeof *pr->by_node);
		dn_snap_u64(out, pr->nsigned);
		dn_snap_u64(out, pr->nunsigned);
		dn_snap_u64(out, pr->noptions);
		dn_snap_u64(out, pr->overflow);
		dn_snap_arr(out, pr->list, pr->nlist, sizeof *pr->list);
	}
	dn_snap_arr(out, w->ph, w->nph, sizeof *w->ph);
	dn_p_save(w, out);
	dn_x_save(w, out);
	dn_c_save(w, out);
	dn_snap_u64(out, DN_SNAP_END);
	if (out->err)
		return out->err;
	uint8_t *h = out->p + at;
	memcpy(h, DN_SNAP_MAGIC, 8);
	sl_put_be32(h + 8, DN_SNAP_VERSION);
	sl_put_be64(h + 12, out->len - body);
	sl_sha256(out->p + body, out->len - body, h + 20);
	return SL_OK;
}

/* The configuration the snapshot was made with must be this devnet's: name the first difference. */
static bool same_config(dn_rd *r, const sl_devnet_config *c, char why[256])
{
	uint64_t n = dn_rd_u64(r);
	char seed[256] = "";
	if (n >= sizeof seed)
		r->bad = true;
	else
		dn_rd_raw(r, seed, n);
	if (r->bad) {
		snprintf(why, 256, "torn configuration");
		return false;
	}
	if (strcmp(seed, c->seed)) {
		snprintf(why, 256, "made with seed '%s', not '%s'", seed, c->seed);
		return false;
	}
	static const char *const names[] = { "network", "network id", "start time",
					     "txs",	"accounts",   "validators" };
	uint64_t want[] = { (uint64_t)c->network, c->network_id, c->start_time, c->txs,
			    c->accounts,	  c->validators };
	for (size_t i = 0; i < SL_ARRAY_LEN(want); i++) {
		uint64_t got = dn_rd_u64(r);
		if (!r->bad && got != want[i]) {
			snprintf(why, 256, "made with %s %llu, not %llu", names[i], (unsigned long long)got,
				 (unsigned long long)want[i]);
			return false;
		}
	}
	return !r->bad;
}

sl_err sl_devnet_restore(sl_devnet *d, const uint8_t *p, size_t len, char why[256])
{
	dn_world *w = &d->w;
	snprintf(why, 256, "ok");
	if (len < DN_SNAP_HEADER || memcmp(p, DN_SNAP_MAGIC, 8)) {
		snprintf(why, 256, "not a devnet snapshot");
		return SL_ERR_INVALID;
	}
	if (sl_be32(p + 8) != DN_SNAP_VERSION) {
		snprintf(why, 256, "version %u, this build reads %u", sl_be32(p + 8), DN_SNAP_VERSION);
		return SL_ERR_UNSUPPORTED;
	}
	uint64_t n = sl_be64(p + 12);
	uint8_t h[32];
	if (n != len - DN_SNAP_HEADER) {
		snprintf(why, 256, "%zu bytes, its header says %llu", len,
			 (unsigned long long)n + DN_SNAP_HEADER);
		return SL_ERR_INVALID;
	}
	sl_sha256(p + DN_SNAP_HEADER, n, h);
	if (memcmp(h, p + 20, 32)) {
		snprintf(why, 256, "checksum mismatch");
		return SL_ERR_INVALID;
	}
	dn_rd r = { .p = p + DN_SNAP_HEADER, .n = n };
	if (!same_config(&r, &w->cfg, why))
		return SL_ERR_INVALID;
	d->history_done = dn_rd_u64(&r) != 0;
	d->steps_done = dn_rd_u64(&r);
	d->steps_total = dn_rd_u64(&r);
	d->live_steps = dn_rd_u64(&r);
	d->txs_done = dn_rd_u64(&r);
	dn_rd_one(&r, &w->params, sizeof w->params);
	dn_rd_one(&r, &w->rng, sizeof w->rng);
	dn_rd_raw(&r, w->avax, 32);
	size_t cnt, cap;
	dn_chain *chains = dn_rd_arr(&r, sizeof w->chain[0], &cnt, &cap);
	if (chains && cnt == DN_CHAINS)
		memcpy(w->chain, chains, sizeof w->chain);
	else
		r.bad = true;
	free(chains);
	for (int c = 0; c < DN_CHAINS; c++) {
		dn_rd_utxos(&r, &w->utxos[c]);
		for (int s = 0; s < DN_CHAINS; s++)
			dn_rd_utxos(&r, &w->shared[c][s]);
	}
	w->now = dn_rd_u64(&r);
	w->supply = dn_rd_u64(&r);
	uint64_t *em = dn_rd_arr(&r, sizeof w->emitted[0], &cnt, &cap);
	if (em && cnt == SL_IDX__COUNT)
		memcpy(w->emitted, em, sizeof w->emitted);
	else
		r.bad = true;
	free(em);
	int64_t *lt = dn_rd_arr(&r, sizeof w->last_ts[0], &cnt, &cap);
	if (lt && cnt == SL_IDX__COUNT)
		memcpy(w->last_ts, lt, sizeof w->last_ts);
	else
		r.bad = true;
	free(lt);
	dn_rd_one(&r, &w->prop_rng, sizeof w->prop_rng);
	for (int c = 0; c < DN_CHAINS; c++) {
		dn_proposers *pr = &w->props[c];
		free(pr->by_node);
		free(pr->list);
		pr->by_node = dn_rd_arr(&r, sizeof *pr->by_node, &cnt, &cap);
		if (cnt != w->nnodes)
			r.bad = true;
		pr->nsigned = dn_rd_u64(&r);
		pr->nunsigned = dn_rd_u64(&r);
		pr->noptions = dn_rd_u64(&r);
		pr->overflow = dn_rd_u64(&r) != 0;
		pr->list = dn_rd_arr(&r, sizeof *pr->list, &pr->nlist, &pr->caplist);
	}
	free(w->ph);
	w->ph = dn_rd_arr(&r, sizeof *w->ph, &w->nph, &w->capph);
	sl_err e = SL_OK;
	if (!r.bad && ((e = dn_p_load(w, &r)) || (e = dn_x_load(w, &r)) || (e = dn_c_load(w, &r))))
		r.bad = true;
	if (!r.bad && dn_rd_u64(&r) != DN_SNAP_END)
		r.bad = true;
	if (r.bad || r.off != r.n || !d->history_done) {
		snprintf(why, 256, "%s",
			 e == SL_ERR_NOMEM ? "out of memory" : "made by another build (its records differ)");
		return e == SL_ERR_NOMEM ? e : SL_ERR_UNSUPPORTED;
	}
	return SL_OK;
}
