/* world.c — the devnet's shared machinery: random streams, ledger, signing, emission. */
#include "devnet/world.h"

#include <stdio.h>

#include "codec/pchain.h"
#include "codec/proposervm.h"
#include "crypto/cb58.h"
#include "codec/xchain.h"
#include "crypto/addr.h"
#include "crypto/hash.h"
#include "crypto/secp.h"

/* ---- xoshiro256** (Blackman and Vigna), seeded from sha256(seed | name) ---- */

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void dn_rng_init(dn_rng *r, const char *seed, const char *name)
{
	uint8_t h[32];
	sl_buf b;
	sl_buf_init(&b, 4096);
	sl_buf_adds(&b, "snowline-devnet/");
	sl_buf_adds(&b, seed);
	sl_buf_addc(&b, '/');
	sl_buf_adds(&b, name);
	sl_sha256(b.p, b.len, h);
	sl_buf_release(&b);
	for (int i = 0; i < 4; i++)
		r->s[i] = sl_be64(h + 8 * i) | (i == 0); /* never all zero */
}

uint64_t dn_rng_u64(dn_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

uint64_t dn_rng_below(dn_rng *r, uint64_t n)
{
	/* Rejection keeps it uniform; n is small in practice. */
	uint64_t lim = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;
	do
		x = dn_rng_u64(r);
	while (x >= lim);
	return x % n;
}

uint64_t dn_rng_range(dn_rng *r, uint64_t lo, uint64_t hi)
{
	return hi <= lo ? lo : lo + (hi - lo == UINT64_MAX ? dn_rng_u64(r) : dn_rng_below(r, hi - lo + 1));
}

bool dn_rng_chance(dn_rng *r, unsigned percent) { return dn_rng_below(r, 100) < percent; }

void dn_rng_bytes(dn_rng *r, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i += 8) {
		uint8_t v[8];
		sl_put_be64(v, dn_rng_u64(r));
		memcpy(out + i, v, SL_MIN((size_t)8, n - i));
	}
}

/* ---- fees (static, documented in docs/devnet.md) ---- */

uint64_t dn_fee(const dn_world *w, int chain, uint32_t type_id)
{
	const dn_params *p = &w->params;
	if (chain == DN_P) {
		switch (type_id) {
		case SL_P_CREATE_SUBNET_TX: return p->create_subnet_fee;
		case SL_P_CREATE_CHAIN_TX: return p->create_chain_fee;
		case SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX:
		case SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX:
		case SL_P_ADD_VALIDATOR_TX:
		case SL_P_ADD_DELEGATOR_TX:
		case SL_P_REWARD_VALIDATOR_TX:
		case SL_P_ADVANCE_TIME_TX: return 0;
		default: return p->tx_fee;
		}
	}
	if (chain == DN_X)
		return type_id == SL_X_CREATE_ASSET_TX ? p->create_asset_fee : p->tx_fee;
	return p->tx_fee; /* C-chain atomic txs */
}

/* ---- ledger ---- */

bool dn_grow(void **v, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return true;
	size_t c = *cap ? *cap * 2 : 64;
	void *p = realloc(*v, c * sz);
	if (!p)
		return false;
	*v = p;
	*cap = c;
	return true;
}

dn_utxo *dn_utxo_add(dn_utxos *set, const dn_utxo *u)
{
	dn_utxo *slot = DN_PUSH(set->v, set->n, set->cap);
	if (slot) {
		*slot = *u;
		slot->spent = false;
	}
	return slot;
}

dn_utxo *dn_utxo_find(dn_utxos *set, const uint8_t tx_id[32], uint32_t index)
{
	/* Newest first: spends are mostly of recent outputs. */
	for (size_t i = set->n; i-- > 0;)
		if (set->v[i].index == index && !memcmp(set->v[i].tx_id, tx_id, 32))
			return &set->v[i];
	return NULL;
}

static bool spendable(const dn_world *w, const dn_utxo *u, uint32_t k, const uint8_t asset[32])
{
	return !u->spent && u->nowners == 1 && u->threshold == 1 && u->owners[0] == k &&
	       (u->type_id == 7 || (u->type_id == 22 && u->stake_until <= w->now)) && u->locktime <= w->now &&
	       !memcmp(u->asset_id, asset, 32);
}

size_t dn_utxo_select(const dn_world *w, dn_utxos *set, uint32_t k, const uint8_t asset[32], uint64_t amount,
		      dn_utxo **out, size_t max, uint64_t *total)
{
	size_t n = 0;
	uint64_t sum = 0;
	for (size_t i = 0; i < set->n && n < max && (sum < amount || n == 0); i++) {
		dn_utxo *u = &set->v[i];
		if (!spendable(w, u, k, asset))
			continue;
		out[n++] = u;
		sum += u->amount;
	}
	if (sum < amount || n == 0)
		return 0;
	*total = sum;
	return n;
}

uint64_t dn_balance(const dn_world *w, const dn_utxos *set, uint32_t k, const uint8_t asset[32])
{
	uint64_t sum = 0;
	for (size_t i = 0; i < set->n; i++)
		if (spendable(w, &set->v[i], k, asset))
			sum += set->v[i].amount;
	return sum;
}

void dn_jw_utxo(const dn_world *w, sl_jw *j, int chain, const dn_utxo *u)
{
	sl_jw_obj(j);
	sl_jw_key(j, "txId");
	sl_jw_cb58(j, u->tx_id, 32);
	sl_jw_key(j, "outputIndex");
	sl_jw_u64(j, u->index);
	sl_jw_key(j, "assetId");
	sl_jw_cb58(j, u->asset_id, 32);
	sl_jw_key(j, "typeId");
	sl_jw_u64(j, u->type_id);
	sl_jw_key(j, "amount");
	sl_jw_u64s(j, u->amount);
	sl_jw_key(j, "locktime");
	sl_jw_u64(j, u->locktime);
	sl_jw_key(j, "stakeableLocktime");
	sl_jw_u64(j, u->type_id == 22 ? u->stake_until : 0);
	sl_jw_key(j, "threshold");
	sl_jw_u64(j, u->threshold);
	sl_jw_key(j, "addresses");
	sl_jw_arr(j);
	const char *hrp = sl_addr_hrp(w->cfg.network_id);
	for (uint32_t i = 0; i < u->nowners && i < DN_MAX_OWNERS; i++) {
		char mem[128];
		sl_buf a = { .p = (uint8_t *)mem, .cap = sizeof mem, .max = sizeof mem - 1 };
		sl_addr_write(&a, chain == DN_P ? "P" : "X", hrp, w->keys[u->owners[i]].addr);
		sl_jw_strn(j, mem, a.len);
	}
	sl_jw_arr_end(j);
	sl_jw_obj_end(j);
}

bool dn_utxos_copy(dn_utxos *to, const dn_utxos *from)
{
	for (size_t i = 0; i < from->n; i++)
		if (!from->v[i].spent && !dn_utxo_add(to, &from->v[i]))
			return false;
	return true;
}

void dn_sign(const dn_world *w, uint32_t k, const uint8_t hash[32], uint8_t sig65[65])
{
	if (!sl_secp_sign(w->keys[k].sk, hash, sig65))
		memset(sig65, 0, 65); /* cannot happen for a valid key; the ledger check would catch it */
}

/* ---- emission ---- */

void dn_emit(dn_world *w, sl_ikind kind, const uint8_t id[32], uint64_t time, const uint8_t *bytes,
	     size_t len)
{
	if (w->sink_err)
		return;
	/* Accepted a little after the block time: 50 to 950 ms, from its own stream. */
	static const char *const names[SL_IDX__COUNT] = { "accept-P", "accept-C", "accept-Xtx",
							  "accept-Xblock", "accept-Xvtx" };
	dn_rng r;
	char nm[64];
	snprintf(nm, sizeof nm, "%s/%llu", names[kind], (unsigned long long)w->emitted[kind]);
	dn_rng_init(&r, w->seed, nm);
	int64_t ts = (int64_t)time * 1000000000 + (int64_t)dn_rng_range(&r, 50, 950) * 1000000;
	if (ts <= w->last_ts[kind])
		ts = w->last_ts[kind] + 1000000; /* 1 ms after the previous container of this index */
	w->last_ts[kind] = ts;
	w->sink_err = w->sink(w->sink_ctx, kind, id, ts, bytes, len);
	w->emitted[kind]++;
}

/* ---- P-chain heights by time ---- */

uint64_t dn_pheight_at(const dn_world *w, uint64_t t)
{
	/* Few entries (the P blocks of about one step), newest last. */
	for (size_t i = w->nph; i-- > 0;)
		if (w->ph[i].time < t)
			return w->ph[i].height;
	return w->nph ? w->ph[0].height : 0;
}

bool dn_pheight_add(dn_world *w, uint64_t time, uint64_t height)
{
	dn_pheight *e = DN_PUSH(w->ph, w->nph, w->capph);
	if (e)
		*e = (dn_pheight){ time, height };
	return e != NULL;
}

void dn_pheight_prune(dn_world *w)
{
	/* X and C blocks come at or after their chain's last time: keep the last entry before the earlier. */
	uint64_t lo = SL_MIN(w->chain[DN_X].last_time, w->chain[DN_C].last_time);
	size_t keep = 0;
	for (size_t i = 0; i < w->nph; i++)
		if (w->ph[i].time < lo)
			keep = i;
	if (keep) {
		memmove(w->ph, w->ph + keep, (w->nph - keep) * sizeof *w->ph);
		w->nph -= keep;
	}
}

/* ---- proposervm ---- */

#define DN_MAX_VERIFY_DELAY 30 /* proposer.MaxVerifyDelay: 6 windows of 5 s */

/* Whether the next proposervm block of ch, at `time`, is signed (see world.h). */
static bool signed_block(const dn_world *w, const dn_chain *ch, uint64_t time)
{
	if (!ch->forked)
		return false;
	if (ch->last_time >= w->params.durango_time)
		return true;
	return time - ch->last_time < DN_MAX_VERIFY_DELAY;
}

static void count_proposer(dn_world *w, int c, int32_t node, const uint8_t id[32], bool option)
{
	dn_proposers *pr = &w->props[c];
	if (option) {
		pr->noptions++;
		return;
	}
	if (node < 0) {
		pr->nunsigned++;
		return;
	}
	pr->nsigned++;
	if (pr->by_node)
		pr->by_node[node]++;
	if (pr->overflow)
		return;
	dn_proposed *e = pr->nsigned <= DN_PROPOSER_LIST_MAX ? DN_PUSH(pr->list, pr->nlist, pr->caplist)
							     : NULL;
	if (!e) { /* past the cap (or out of memory): counts only from here */
		free(pr->list);
		pr->list = NULL;
		pr->nlist = pr->caplist = 0;
		pr->overflow = true;
		return;
	}
	e->node = (uint32_t)node;
	memcpy(e->id, id, 32);
}

void dn_emit_wrapped(dn_world *w, int c, sl_ikind kind, const uint8_t *inner, size_t len, uint64_t time,
		     bool option)
{
	dn_chain *ch = &w->chain[c];
	uint64_t pch = option ? 0 : c == DN_P ? ch->height : dn_pheight_at(w, time);
	if (!option && pch < ch->last_pch)
		pch = ch->last_pch; /* never below the parent's (it cannot be, times only grow) */
	int32_t node = -1;
	if (!option && w->p && signed_block(w, ch, time))
		node = dn_p_proposer(w, ch->last_pch, pch);
	sl_proposervm_block b = {
		.kind = option ? SL_PROPOSERVM_OPTION : SL_PROPOSERVM_BLOCK,
		.parent_id = sl_span_of(ch->last_outer, 32),
		.timestamp = option ? 0 : (int64_t)time,
		.pchain_height = pch,
		.inner = sl_span_of(inner, len),
	};
	if (node >= 0)
		b.certificate = sl_span_of(w->nodes[node].cert, w->nodes[node].cert_len);
	sl_buf out;
	sl_buf_init(&out, len + 4096);
	sl_err e = sl_proposervm_block_encode(&b, &out);
	uint8_t sig[SL_STAKING_SIG_MAX];
	if (!e && !out.err && node >= 0) {
		/* The id covers the bytes without the (empty) signature's length; the proposer signs the header. */
		uint8_t header[98] = { 0 }, id[32];
		sl_sha256(out.p, out.len - 4, id);
		memcpy(header + 2, ch->id, 32);
		memcpy(header + 34, ch->last_outer, 32);
		memcpy(header + 66, id, 32);
		size_t n = 0;
		e = sl_staking_sign(&w->nodes[node].staking, header, sizeof header, sig, &n);
		b.signature = sl_span_of(sig, n);
		sl_buf_reset(&out);
		if (!e)
			e = sl_proposervm_block_encode(&b, &out);
	}
	sl_proposervm_block dec;
	if (e || out.err || sl_proposervm_block_decode(out.p, out.len, &dec, NULL) ||
	    dec.has_proposer != (node >= 0) ||
	    (node >= 0 && memcmp(dec.proposer, w->nodes[node].node_id, 20))) {
		w->sink_err = SL_ERR_INTERNAL;
		sl_buf_release(&out);
		return;
	}
	if (c == DN_P && !dn_pheight_add(w, time, ch->height + 1))
		w->sink_err = SL_ERR_NOMEM;
	if (!option) {
		ch->last_pch = pch;
		ch->forked = true;
	}
	count_proposer(w, c, node, dec.id, option);
	memcpy(ch->last_outer, dec.id, 32);
	dn_emit(w, kind, dec.id, time, out.p, out.len);
	sl_buf_release(&out);
}

/* ---- snapshots ---- */

void dn_snap_u64(sl_buf *b, uint64_t v)
{
	uint8_t x[8];
	sl_put_be64(x, v);
	sl_buf_add(b, x, 8);
}

void dn_snap_raw(sl_buf *b, const void *p, size_t n) { sl_buf_add(b, p, n); }

void dn_snap_arr(sl_buf *b, const void *v, size_t n, size_t sz)
{
	dn_snap_u64(b, n);
	dn_snap_u64(b, sz);
	if (n)
		sl_buf_add(b, v, n * sz);
}

uint64_t dn_rd_u64(dn_rd *r)
{
	if (r->bad || r->n - r->off < 8) {
		r->bad = true;
		return 0;
	}
	uint64_t v = sl_be64(r->p + r->off);
	r->off += 8;
	return v;
}

void dn_rd_raw(dn_rd *r, void *out, size_t n)
{
	if (r->bad || r->n - r->off < n) {
		r->bad = true;
		memset(out, 0, n);
		return;
	}
	memcpy(out, r->p + r->off, n);
	r->off += n;
}

void *dn_rd_arr(dn_rd *r, size_t sz, size_t *n, size_t *cap)
{
	uint64_t cnt = dn_rd_u64(r), esz = dn_rd_u64(r);
	*n = *cap = 0;
	/* The element size must be this build's; the count must fit in what is left. */
	if (r->bad || esz != sz || cnt > (r->n - r->off) / sz) {
		r->bad = true;
		return NULL;
	}
	if (!cnt)
		return NULL;
	void *v = malloc(cnt * sz);
	if (!v) {
		r->bad = true;
		return NULL;
	}
	dn_rd_raw(r, v, cnt * sz);
	*n = *cap = cnt;
	return v;
}

void dn_rd_one(dn_rd *r, void *out, size_t sz)
{
	if (dn_rd_u64(r) != 1 || dn_rd_u64(r) != sz)
		r->bad = true;
	dn_rd_raw(r, out, sz);
}

void dn_snap_utxos(sl_buf *b, const dn_utxos *u) { dn_snap_arr(b, u->v, u->n, sizeof *u->v); }

void dn_rd_utxos(dn_rd *r, dn_utxos *u)
{
	free(u->v);
	u->v = dn_rd_arr(r, sizeof *u->v, &u->n, &u->cap);
}

void dn_utxo_encode(const dn_world *w, const dn_utxo *u, sl_buf *out)
{
	uint8_t addrs[DN_MAX_OWNERS * 20];
	uint32_t n = u->nowners < DN_MAX_OWNERS ? u->nowners : DN_MAX_OWNERS;
	for (uint32_t i = 0; i < n; i++)
		memcpy(addrs + 20 * i, w->keys[u->owners[i]].addr, 20);
	bool lock = u->type_id == SL_T_STAKEABLE_LOCK_OUT;
	sl_utxo x = { .tx_id = u->tx_id,
		      .output_index = u->index,
		      .asset_id = u->asset_id,
		      .out = { .type_id = u->type_id,
			       .fx_type_id = lock ? SL_T_SECP_TRANSFER_OUTPUT : u->type_id,
			       .lock_locktime = lock ? u->stake_until : 0,
			       .amount = u->amount,
			       .group_id = u->group_id,
			       .payload = sl_span_of(u->payload, u->payload_len),
			       .owners = { u->locktime, u->threshold, n, addrs } } };
	sl_avax_utxo_encode(out, &x);
}
