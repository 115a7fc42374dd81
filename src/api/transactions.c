/*
 * transactions.c — GET …/blockchains/{blockchainId}/transactions (P, X and
 * the C-chain's atomic txs) and GET …/assets/{assetId}/transactions (X),
 * spec 000 §4.3.
 *
 * Which txs: with addresses, the txs those addresses took part in
 * (addr_txs: owners of what a tx spends or makes, reward and subnet owners,
 * and on the C-chain the EVM addresses of atomic txs); with l1ValidationId
 * (P), the txs about that L1 validation (l1_txs); otherwise the chain's
 * latest txs — and then txTypes and timestamps are refused (rule 1). Pages
 * are ordered by seq (schema.c), latest first by default; the cursor is the
 * last seq shown.
 *
 * Each tx is rendered from its bytes (every field the tx itself determines)
 * and the UTXO rows it spends and makes. Rule 2: a page stops early when its
 * txs' UTXOs would pass API_TX_PAGE_MAX_UTXOS.
 */
#include "api/internal.h"

#include "codec/atomic.h"
#include "codec/l1.h"
#include "codec/pchain.h"
#include "codec/xchain.h"
#include "crypto/addr.h"
#include "crypto/cb58.h"
#include "crypto/hash.h"
#include "crypto/secp.h"

/* ---- tx type names and filters ---- */

/* The PrimaryNetworkTxType of a codec type id on a chain; "UNKNOWN" for the rest. */
static const char *type_name(int chain, uint32_t t)
{
	if (chain == API_X) {
		static const char *const x[] = { "BaseTx", "CreateAssetTx", "OperationTx", "ImportTx",
						 "ExportTx" };
		return t < 5 ? x[t] : "UNKNOWN";
	}
	if (chain == API_C)
		return t == 0 ? "ImportTx" : t == 1 ? "ExportTx" : "UNKNOWN";
	switch (t) {
	case 12: return "AddValidatorTx";
	case 13: return "AddSubnetValidatorTx";
	case 14: return "AddDelegatorTx";
	case 15: return "CreateChainTx";
	case 16: return "CreateSubnetTx";
	case 17: return "ImportTx";
	case 18: return "ExportTx";
	case 19: return "AdvanceTimeTx";
	case 20: return "RewardValidatorTx";
	case 23: return "RemoveSubnetValidatorTx";
	case 24: return "TransformSubnetTx";
	case 25: return "AddPermissionlessValidatorTx";
	case 26: return "AddPermissionlessDelegatorTx";
	case 33: return "TransferSubnetOwnershipTx";
	case 34: return "BaseTx";
	case 35: return "ConvertSubnetToL1Tx";
	case 36: return "RegisterL1ValidatorTx";
	case 37: return "SetL1ValidatorWeightTx";
	case 38: return "IncreaseL1ValidatorBalanceTx";
	case 39: return "DisableL1ValidatorTx";
	default: return "UNKNOWN";
	}
}

const char *api_tx_type_name(int chain, uint32_t type) { return type_name(chain, type); }

/* Does the txTypes filter (bits of api_tx_type_names) take this tx? */
static bool type_wanted(uint64_t mask, int chain, uint32_t t)
{
	if (!mask)
		return true;
	const char *name = type_name(chain, t);
	for (int i = 0; api_tx_type_names[i]; i++)
		if ((mask >> i & 1) && !strcmp(api_tx_type_names[i], name))
			return true;
	return false;
}

/* ---- UTXO rows by id ---- */

/*
 * A UTXO's row is keyed by (chain, pos, id): the chain and seq of the tx its id names (its txID),
 * pos 0 for a UTXO of the genesis, which names no tx of the store (schema.c v11). So a lookup
 * knows the txID too: it finds the tx's place in txs_id, then the row; a txID the store has no
 * tx for may be the genesis's, on the P- or the X-chain.
 */
#define BYID_COLS                                                                                            \
	"id, tx, idx, chain, dest, asset, amount, otype, locktime, stake_lock, threshold, addrs, group_id, " \
	"payload, staked, stake_start, stake_end, reward, height, ts, ctx, cheight, cts, cchain, unstaked"
#define BYID_COLS_U                                                                                               \
	"u.id, u.tx, u.idx, u.chain, u.dest, u.asset, u.amount, u.otype, u.locktime, u.stake_lock, u.threshold, " \
	"u.addrs, u.group_id, u.payload, u.staked, u.stake_start, u.stake_end, u.reward, u.height, u.ts, u.ctx, " \
	"u.cheight, u.cts, u.cchain, u.unstaked"
/* the reward UTXOs a RewardValidatorTx paid (at most 8 shown), keyed by their staking tx's place */
static const sl_sql q_rewards = { "SELECT " BYID_COLS_U
				  " FROM rewards w JOIN stakers s ON s.tx = w.staking_tx "
				  "JOIN utxos u ON u.chain = 0 AND u.pos = s.seq AND u.id = w.utxo "
				  "WHERE w.staking_tx = ? ORDER BY w.utxo LIMIT 8" };

/*
 * The UTXOs one tx shows, read UTXO_BATCH a query rather than one query each: on PostgreSQL every
 * query is a round trip, and a page of 100 X-chain txs shows about a thousand UTXOs. First the
 * places of their txs (UTXO_BATCH txIDs a query), then the rows (UTXO_BATCH keys a query, each
 * term a search of the primary key on both backends). Ids past PREFETCH_MAX (a tx with more
 * inputs and outputs) are looked up one at a time.
 */
#define UTXO_BATCH 16
#define PREFETCH_MAX 512
static const sl_sql q_tx_places = { "SELECT id, chain, seq FROM txs WHERE id IN "
				    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" };
#define KEY3 "(chain = ? AND pos = ? AND id = ?)"
#define KEY3x4 KEY3 " OR " KEY3 " OR " KEY3 " OR " KEY3
static const sl_sql q_utxo_batch = { "SELECT " BYID_COLS " FROM utxos WHERE " KEY3x4 " OR " KEY3x4
				     " OR " KEY3x4 " OR " KEY3x4 };
static const sl_sql q_tx_place = { "SELECT chain, seq FROM txs WHERE id = ?" };
static const sl_sql q_utxo = { "SELECT " BYID_COLS " FROM utxos WHERE chain = ? AND pos = ? AND id = ?" };

/* Where a txID's UTXOs are: its tx's chain and seq, or (genesis) pos 0 on P or X. */
typedef struct place {
	bool known; /* the store has the tx */
	uint8_t chain;
	uint64_t seq;
} place;

typedef struct prefetch {
	size_t n, cap;
	size_t next; /* where the next lookup starts: they come in the order the ids were added */
	uint8_t (*ids)[32], (*txids)[32];
	place *at;
	api_utxo *u;
	bool *have;
} prefetch;

static bool prefetch_init(prefetch *p, size_t want)
{
	*p = (prefetch){ .cap = SL_MIN(want, (size_t)PREFETCH_MAX) };
	if (!p->cap)
		return true;
	p->ids = malloc(p->cap * sizeof *p->ids);
	p->txids = malloc(p->cap * sizeof *p->txids);
	p->at = calloc(p->cap, sizeof *p->at);
	p->u = malloc(p->cap * sizeof *p->u);
	p->have = calloc(p->cap, sizeof *p->have);
	return p->ids && p->txids && p->at && p->u && p->have;
}

static void prefetch_free(prefetch *p)
{
	free(p->ids);
	free(p->txids);
	free(p->at);
	free(p->u);
	free(p->have);
}

/* The UTXO (txid, index), whose txID's place is known when at is not NULL (the tx's own outputs). */
static void prefetch_add(prefetch *p, const uint8_t txid[32], uint32_t index, const place *at)
{
	if (p->n == p->cap)
		return;
	sl_avax_utxo_id(txid, index, p->ids[p->n]);
	memcpy(p->txids[p->n], txid, 32);
	p->at[p->n] = at ? *at : (place){ 0 };
	p->n++;
}

/* The places of the prefetch's txIDs not known yet. */
static sl_err prefetch_places(api_req *r, prefetch *p)
{
	for (size_t b = 0; b < p->n;) {
		/* the next UTXO_BATCH entries whose place is not known */
		size_t pick[UTXO_BATCH], m = 0;
		for (; b < p->n && m < UTXO_BATCH; b++)
			if (!p->at[b].known)
				pick[m++] = b;
		if (!m)
			break;
		sl_stmt *s = sl_stmt_get(r->db, &q_tx_places);
		if (!s)
			return SL_ERR_STORE;
		for (size_t i = 0; i < UTXO_BATCH; i++) /* a short batch repeats its first txID */
			sl_bind_blob(s, (int)i, p->txids[pick[i < m ? i : 0]], 32);
		sl_err e = sl_stmt_query(s);
		while (!e && sl_stmt_next(s, &e)) {
			size_t len = 0;
			const uint8_t *id = sl_col_blob(s, 0, &len);
			if (len != 32)
				continue;
			place at = { true, (uint8_t)sl_col_i64(s, 1), (uint64_t)sl_col_i64(s, 2) };
			for (size_t i = 0; i < m; i++)
				if (!memcmp(p->txids[pick[i]], id, 32))
					p->at[pick[i]] = at;
		}
		if (e)
			return e;
	}
	return SL_OK;
}

/* The keys a UTXO of the prefetch may have: its tx's place, or the genesis's on P and X. */
static size_t keys_of(const prefetch *p, size_t i, place out[2])
{
	if (p->at[i].known) {
		out[0] = p->at[i];
		return 1;
	}
	out[0] = (place){ true, 0, 0 };
	out[1] = (place){ true, 1, 0 };
	return 2;
}

static sl_err prefetch_run(api_req *r, prefetch *p)
{
	sl_err e = prefetch_places(r, p);
	if (e)
		return e;
	size_t i = 0, k = 0; /* the next entry, and its next key */
	while (i < p->n) {
		sl_stmt *s = sl_stmt_get(r->db, &q_utxo_batch);
		if (!s)
			return SL_ERR_STORE;
		size_t from = i, m = 0;
		place first = { 0 };
		const uint8_t *first_id = NULL;
		for (; i < p->n && m < UTXO_BATCH; i++, k = 0) {
			place ks[2];
			size_t nk = keys_of(p, i, ks);
			for (; k < nk && m < UTXO_BATCH; k++, m++) {
				sl_bind_i64(s, 3 * (int)m, ks[k].chain);
				sl_bind_i64(s, 3 * (int)m + 1, (int64_t)ks[k].seq);
				sl_bind_blob(s, 3 * (int)m + 2, p->ids[i], 32);
				if (!first_id)
					first = ks[k], first_id = p->ids[i];
			}
			if (k < nk)
				break; /* the rest of this entry's keys go in the next query */
		}
		for (; m < UTXO_BATCH; m++) { /* a short batch repeats its first key */
			sl_bind_i64(s, 3 * (int)m, first.chain);
			sl_bind_i64(s, 3 * (int)m + 1, (int64_t)first.seq);
			sl_bind_blob(s, 3 * (int)m + 2, first_id, 32);
		}
		e = sl_stmt_query(s);
		while (!e && sl_stmt_next(s, &e)) {
			api_utxo u;
			api_utxo_read(s, 0, &u, r->arena);
			for (size_t j = from; j <= i && j < p->n; j++)
				if (!memcmp(p->ids[j], u.id, 32)) {
					p->u[j] = u;
					p->have[j] = true;
				}
		}
		if (e)
			return e;
	}
	return SL_OK;
}

/* The UTXO (txid, index) as the store knows its creation; false when it does not (yet). */
static bool utxo_by_id(api_req *r, prefetch *pf, const uint8_t txid[32], uint32_t index, api_utxo *u,
		       sl_err *e)
{
	*e = SL_OK;
	uint8_t id[32];
	sl_avax_utxo_id(txid, index, id);
	for (size_t k = 0; pf && k < pf->n; k++) {
		size_t i = (pf->next + k) % pf->n;
		if (!memcmp(pf->ids[i], id, 32)) {
			pf->next = i + 1;
			if (pf->have[i])
				*u = pf->u[i];
			return pf->have[i];
		}
	}
	/* not prefetched: the tx's place, then the row (or the genesis's) */
	place ks[2] = { { true, 0, 0 }, { true, 1, 0 } };
	size_t nk = 2;
	sl_stmt *s = sl_stmt_get(r->db, &q_tx_place);
	if (!s) {
		*e = SL_ERR_STORE;
		return false;
	}
	sl_bind_blob(s, 0, txid, 32);
	if ((*e = sl_stmt_query(s)))
		return false;
	if (sl_stmt_next(s, e)) {
		ks[0] = (place){ true, (uint8_t)sl_col_i64(s, 0), (uint64_t)sl_col_i64(s, 1) };
		nk = 1;
	}
	if (*e)
		return false;
	for (size_t k = 0; k < nk; k++) {
		if (!(s = sl_stmt_get(r->db, &q_utxo))) {
			*e = SL_ERR_STORE;
			return false;
		}
		sl_bind_i64(s, 0, ks[k].chain);
		sl_bind_i64(s, 1, (int64_t)ks[k].seq);
		sl_bind_blob(s, 2, id, 32);
		if ((*e = sl_stmt_query(s)))
			return false;
		if (sl_stmt_next(s, e)) {
			api_utxo_read(s, 0, u, r->arena);
			return true;
		}
		if (*e)
			return false;
	}
	return false;
}

/* A spent UTXO whose creation the store has not seen (an import whose export's chain lags): what the input says. */
static void utxo_from_input(api_utxo *u, const sl_avax_in *in, int created, int dest)
{
	*u = (api_utxo){ .idx = in->output_index,
			 .created = created,
			 .dest = dest,
			 .amount = in->in.amount,
			 .otype = SL_T_SECP_TRANSFER_OUTPUT,
			 .threshold = 1 };
	sl_avax_utxo_id(in->tx_id, in->output_index, u->id);
	memcpy(u->tx, in->tx_id, 32);
	memcpy(u->asset, in->asset_id, 32);
}

static void write_hex_str(api_req *r, const char *key, const uint8_t *p, size_t n)
{
	sl_jw_key(&r->w, key);
	sl_jw_hex(&r->w, p, n);
}

/*
 * The fields every l1ValidatorDetails entry has, into the open object: the validation, its node
 * (a NodeID, or hex when the bytes are not 20 long), subnet, weight, remaining balance and what the
 * tx moved into the balance (negative: refunded).
 */
static void write_l1_detail(api_req *r, const uint8_t vid[32], const uint8_t *node, size_t nlen,
			    const uint8_t subnet[32], uint64_t weight, uint64_t balance, int64_t change)
{
	sl_jw *w = &r->w;
	sl_jw_key(w, "validationId");
	api_write_id(r, vid);
	write_hex_str(r, "validationIdHex", vid, 32);
	sl_jw_key(w, "nodeId");
	if (nlen == 20)
		api_write_node_id(r, node);
	else
		sl_jw_hex(w, node, nlen);
	sl_jw_key(w, "subnetId");
	api_write_id(r, subnet);
	sl_jw_key(w, "weight");
	sl_jw_u64(w, weight);
	sl_jw_key(w, "remainingBalance");
	sl_jw_u64(w, balance);
	sl_jw_key(w, "balanceChange");
	sl_jw_i64(w, change);
}

/* A tx row of the page. */
typedef struct txrow {
	uint64_t seq;
	uint8_t id[32], block[32];
	int64_t ts;
	uint32_t type;
	bool in_block;
	uint64_t height;
	uint8_t *bytes;
	size_t len;
} txrow;

/* Outputs of one list of a tx: where they go, and whether they are stake. */
typedef struct out_list {
	const sl_avax_out *v;
	uint32_t n;
	int dest;
	bool stake;
} out_list;

/* Inputs and outputs of a tx, chain-neutral, to render and count its UTXOs. */
typedef struct flows {
	const sl_avax_in *ins[2];
	uint32_t nins[2];
	int in_src; /* the chain the second input list (imports) spends from; -1: this chain */
	out_list outs[3];
	uint32_t nout_lists;
	uint32_t extra; /* UTXOs made after the lists (X: initial states, operations), by index only */
	const uint8_t **
		op_in; /* X OperationTx: the UTXOs its operations spend (txID | u32be index), after the inputs */
	uint32_t nop_in;
} flows;

/* ---- per-asset sums ---- */

#define MAX_ASSETS 64
typedef struct sums {
	struct {
		uint8_t asset[32];
		uint64_t amount;
	} v[MAX_ASSETS];
	size_t n;
} sums;

static void sum_add(sums *s, const uint8_t *asset, uint64_t amount)
{
	for (size_t i = 0; i < s->n; i++)
		if (!memcmp(s->v[i].asset, asset, 32)) {
			s->v[i].amount = s->v[i].amount + amount < s->v[i].amount ? UINT64_MAX
										  : s->v[i].amount + amount;
			return;
		}
	if (s->n < MAX_ASSETS) {
		memcpy(s->v[s->n].asset, asset, 32);
		s->v[s->n++].amount = amount;
	}
}

static void write_sums(api_req *r, const char *key, const sums *s)
{
	sl_jw_key(&r->w, key);
	sl_jw_arr(&r->w);
	for (size_t i = 0; i < s->n; i++)
		api_asset_amount(r, s->v[i].asset, s->v[i].amount, NULL, 0);
	sl_jw_arr_end(&r->w);
}

/* The credential that unlocked an input: its signatures, and the key each recovers to. */
typedef struct cred_ctx {
	const sl_credential *cred;
	const uint8_t *sighash;
} cred_ctx;

static void write_credentials(api_req *r, void *ctx)
{
	const cred_ctx *c = ctx;
	sl_jw_key(&r->w, "credentials");
	sl_jw_arr(&r->w);
	for (uint32_t k = 0; k < c->cred->nsigs; k++) {
		const uint8_t *sig = c->cred->sigs + 65 * (size_t)k;
		uint8_t pub[33];
		sl_jw_obj(&r->w);
		write_hex_str(r, "signature", sig, 65);
		if (api_pubkey(r, c->sighash, sig, pub))
			write_hex_str(r, "publicKey", pub, 33);
		sl_jw_obj_end(&r->w);
	}
	sl_jw_arr_end(&r->w);
}

/*
 * consumedUtxos and emittedUtxos of a tx. creds/sighash: the X-chain's credentials, one per input
 * in order (NULL: none shown). reward_of: a RewardValidatorTx's staking tx, whose reward UTXOs it made.
 */
enum { CONSUMED = 1, EMITTED = 2 };

static void render_utxos_from(api_req *r, prefetch *pf, const txrow *t, const flows *f, bool pchain,
			      int chain, size_t *count, sl_err *e, const sl_credential *creds,
			      uint32_t ncreds, const uint8_t *sighash, const uint8_t *reward_of,
			      unsigned which, sums *consumed, sums *emitted);

static uint32_t outputs_of(const flows *f)
{
	uint32_t total = f->extra;
	for (uint32_t l = 0; l < f->nout_lists; l++)
		total += f->outs[l].n;
	return total;
}

static void render_utxos(api_req *r, const txrow *t, const flows *f, bool pchain, int chain, size_t *count,
			 sl_err *e, const sl_credential *creds, uint32_t ncreds, const uint8_t *sighash,
			 const uint8_t *reward_of, unsigned which, sums *consumed, sums *emitted)
{
	size_t want = 0;
	if (which & CONSUMED)
		want += (size_t)f->nins[0] + f->nins[1] + f->nop_in;
	if (which & EMITTED)
		want += outputs_of(f);
	prefetch pf;
	if (!prefetch_init(&pf, want)) {
		prefetch_free(&pf);
		*e = SL_ERR_NOMEM;
		return;
	}
	if (which & CONSUMED) {
		for (int l = 0; l < 2; l++)
			for (uint32_t i = 0; i < f->nins[l]; i++)
				prefetch_add(&pf, f->ins[l][i].tx_id, f->ins[l][i].output_index, NULL);
		for (uint32_t i = 0; i < f->nop_in; i++)
			prefetch_add(&pf, f->op_in[i], sl_be32(f->op_in[i] + 32), NULL);
	}
	if (which & EMITTED) {
		/* the tx's own outputs are keyed by its place */
		place own = { true, (uint8_t)chain, t->seq };
		for (uint32_t idx = 0, total = outputs_of(f); idx < total; idx++)
			prefetch_add(&pf, t->id, idx, &own);
	}
	if (!(*e = prefetch_run(r, &pf)))
		render_utxos_from(r, &pf, t, f, pchain, chain, count, e, creds, ncreds, sighash, reward_of,
				  which, consumed, emitted);
	prefetch_free(&pf);
}

static void render_utxos_from(api_req *r, prefetch *pf, const txrow *t, const flows *f, bool pchain,
			      int chain, size_t *count, sl_err *e, const sl_credential *creds,
			      uint32_t ncreds, const uint8_t *sighash, const uint8_t *reward_of,
			      unsigned which, sums *consumed, sums *emitted)
{
	if (which & CONSUMED) {
		sl_jw_key(&r->w, "consumedUtxos");
		sl_jw_arr(&r->w);
		uint32_t in_no = 0;
		for (int l = 0; l < 2; l++)
			for (uint32_t i = 0; i < f->nins[l]; i++, in_no++) {
				const sl_avax_in *in = &f->ins[l][i];
				api_utxo u;
				if (!utxo_by_id(r, pf, in->tx_id, in->output_index, &u, e)) {
					if (*e)
						return;
					utxo_from_input(&u, in, l == 1 && f->in_src >= 0 ? f->in_src : chain,
							chain);
					u.consumed = true;
					memcpy(u.ctx, t->id, 32);
					u.cheight = t->height;
					u.cts = t->ts;
				}
				(*count)++;
				if (consumed)
					sum_add(consumed, u.asset, u.amount);
				cred_ctx cc = { creds && in_no < ncreds ? &creds[in_no] : NULL, sighash };
				api_utxo_write(r, &u, pchain, cc.cred ? write_credentials : NULL, &cc);
			}
		for (uint32_t i = 0; i < f->nop_in; i++, in_no++) {
			api_utxo u;
			if (!utxo_by_id(r, pf, f->op_in[i], sl_be32(f->op_in[i] + 32), &u, e)) {
				if (*e)
					return;
				continue; /* spent by an operation, made where the store has not looked yet */
			}
			(*count)++;
			if (consumed)
				sum_add(consumed, u.asset, u.amount);
			cred_ctx cc = { creds && in_no < ncreds ? &creds[in_no] : NULL, sighash };
			api_utxo_write(r, &u, pchain, cc.cred ? write_credentials : NULL, &cc);
		}
		sl_jw_arr_end(&r->w);
	}
	if (!(which & EMITTED))
		return;
	sl_jw_key(&r->w, "emittedUtxos");
	sl_jw_arr(&r->w);
	for (uint32_t idx = 0, total = outputs_of(f); idx < total; idx++) {
		api_utxo u;
		if (!utxo_by_id(r, pf, t->id, idx, &u, e)) {
			if (*e)
				return;
			continue; /* not indexed: nothing trustworthy to show */
		}
		(*count)++;
		if (emitted)
			sum_add(emitted, u.asset, u.amount);
		api_utxo_write(r, &u, pchain, NULL, NULL);
	}
	if (reward_of) {
		sl_stmt *s = sl_stmt_get(r->db, &q_rewards);
		if (!s) {
			*e = SL_ERR_STORE;
			return;
		}
		sl_bind_blob(s, 0, reward_of, 32);
		if ((*e = sl_stmt_query(s)))
			return;
		while (sl_stmt_next(s, e)) {
			api_utxo u;
			api_utxo_read(s, 0, &u, r->arena);
			(*count)++;
			if (emitted)
				sum_add(emitted, u.asset, u.amount);
			api_utxo_write(r, &u, pchain, NULL, NULL);
		}
		if (*e)
			return;
	}
	sl_jw_arr_end(&r->w);
}

/* ---- P-chain ---- */

static void write_owner_info(api_req *r, const char *key, const sl_owners *o)
{
	sl_jw_key(&r->w, key);
	sl_jw_obj(&r->w);
	sl_jw_key(&r->w, "locktime");
	sl_jw_u64(&r->w, o->locktime);
	sl_jw_key(&r->w, "threshold");
	sl_jw_u64(&r->w, o->threshold);
	sl_jw_key(&r->w, "addresses");
	sl_jw_arr(&r->w);
	for (uint32_t i = 0; i < o->naddrs; i++)
		api_write_address(r, o->addrs + 20 * (size_t)i);
	sl_jw_arr_end(&r->w);
	sl_jw_obj_end(&r->w);
}

static const sl_sql q_staker_end = { "SELECT end_tx, potential, subnet FROM stakers WHERE tx = ?" };
/* what an L1 validator tx left of its validation (the indexer writes it as it applies the tx) */
static const sl_sql q_l1_effect = {
	"SELECT v.node, v.subnet, t.weight, t.balance, t.bal_change FROM l1_txs t JOIN l1_validators v "
	"ON v.vid = t.vid WHERE t.vid = ? AND t.seq = ? AND t.weight IS NOT NULL"
};

/*
 * l1ValidatorDetails of a SetL1ValidatorWeightTx, IncreaseL1ValidatorBalanceTx or
 * DisableL1ValidatorTx: the validation's weight and remaining balance after the tx, and what the tx
 * moved into the balance (negative: the balance refunded when it was removed or disabled), as the
 * OpenAPI document describes L1ValidatorDetailsTransaction. Nothing when the store has no effect
 * for it (the tx failed to name a known validation, which the chain does not accept).
 */
static int write_l1_effect(api_req *r, const txrow *t, const uint8_t vid[32])
{
	sl_stmt *s = sl_stmt_get(r->db, &q_l1_effect);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	sl_bind_blob(s, 0, vid, 32);
	sl_bind_i64(s, 1, (int64_t)t->seq);
	sl_err e = sl_stmt_query(s);
	if (e)
		return api_fail_store(r, e);
	if (!sl_stmt_next(s, &e))
		return e ? api_fail_store(r, e) : 0;
	size_t nn = 0, ns = 0;
	const uint8_t *node = sl_col_blob(s, 0, &nn), *subnet = sl_col_blob(s, 1, &ns);
	if (ns != 32)
		return 0;
	sl_jw *w = &r->w;
	sl_jw_key(w, "l1ValidatorDetails");
	sl_jw_arr(w);
	sl_jw_obj(w);
	write_l1_detail(r, vid, node, nn, subnet, sl_col_u64be(s, 2), sl_col_u64be(s, 3), sl_col_i64(s, 4));
	sl_jw_obj_end(w);
	sl_jw_arr_end(w);
	return 0;
}

static int render_p(api_req *r, const txrow *t, size_t *count)
{
	sl_pchain_tx tx;
	sl_err_detail d;
	if (sl_pchain_tx_decode(r->arena, t->bytes, t->len, &tx, &d))
		return api_fail(r, 500, "a stored P-chain tx does not decode: %s", d.msg);
	const sl_pchain_utx *u = &tx.utx;
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	sl_jw_key(w, "txHash");
	api_write_id(r, t->id);
	sl_jw_key(w, "txType");
	sl_jw_str(w, type_name(API_P, u->type_id));
	sl_jw_key(w, "blockTimestamp");
	sl_jw_i64(w, t->ts);
	sl_jw_key(w, "blockNumber");
	sl_jw_u64s(w, t->height);
	sl_jw_key(w, "blockHash");
	api_write_id(r, t->block);
	flows f = { .in_src = -1 };
	if (u->has_base) {
		f.ins[0] = u->base.ins, f.nins[0] = u->base.nins;
		f.outs[f.nout_lists++] = (out_list){ u->base.outs, u->base.nouts, API_P, false };
	}
	int src = -1;
	for (int c = 0; c < 3 && u->chain; c++)
		if (!memcmp(u->chain, r->api->net.chain[c], 32))
			src = c;
	if (u->type_id == SL_P_IMPORT_TX) {
		f.ins[1] = u->imported, f.nins[1] = u->nimported;
		f.in_src = src;
	}
	if (u->type_id == SL_P_EXPORT_TX)
		f.outs[f.nout_lists++] = (out_list){ u->exported, u->nexported, src, false };
	if (u->nstake)
		f.outs[f.nout_lists++] = (out_list){ u->stake, u->nstake, API_P, true };
	/* an L1 validator's removal refunds its remaining balance after the outputs (index.md) */
	bool refund = u->type_id == SL_P_DISABLE_L1_VALIDATOR_TX ||
		      u->type_id == SL_P_SET_L1_VALIDATOR_WEIGHT_TX;
	f.extra = refund;
	sl_err e = SL_OK;
	/* value: the nAVAX of the UTXOs it makes but stake (OpenAPI: "present in the newly created
	 * UTXOs"), so a RewardValidatorTx's is its reward UTXOs (it has no outputs of its own), and a
	 * refund counts (these txs stake nothing, so every UTXO they make is value) */
	sums value = { 0 }, burned = { 0 }, staked = { 0 }, l1 = { 0 };
	bool reward = u->type_id == SL_P_REWARD_VALIDATOR_TX;
	render_utxos(r, t, &f, true, API_P, count, &e, NULL, 0, NULL, reward ? u->tx_id : NULL,
		     CONSUMED | EMITTED, NULL, reward || refund ? &value : NULL);
	if (e)
		return api_fail_store(r, e);
	sums in = { 0 }, out = { 0 };
	for (int l = 0; l < 2; l++)
		for (uint32_t i = 0; i < f.nins[l]; i++)
			sum_add(&in, f.ins[l][i].asset_id, f.ins[l][i].in.amount);
	for (uint32_t l = 0; l < f.nout_lists; l++)
		for (uint32_t i = 0; i < f.outs[l].n; i++) {
			sum_add(&out, f.outs[l].v[i].asset_id, f.outs[l].v[i].out.amount);
			if (f.outs[l].stake)
				sum_add(&staked, f.outs[l].v[i].asset_id, f.outs[l].v[i].out.amount);
			else if (!refund) /* a refund tx's value came from rendering, above */
				sum_add(&value, f.outs[l].v[i].asset_id, f.outs[l].v[i].out.amount);
		}
	uint64_t l1_balance = 0;
	if (u->type_id == SL_P_CONVERT_SUBNET_TO_L1_TX)
		for (uint32_t i = 0; i < u->nvalidators; i++)
			l1_balance += u->validators[i].balance;
	else if (u->type_id == SL_P_REGISTER_L1_VALIDATOR_TX ||
		 u->type_id == SL_P_INCREASE_L1_VALIDATOR_BALANCE_TX)
		l1_balance = u->balance;
	if (l1_balance)
		sum_add(&l1, r->api->net.avax, l1_balance);
	for (size_t i = 0; i < in.n; i++) {
		uint64_t o = 0;
		for (size_t j = 0; j < out.n; j++)
			if (!memcmp(out.v[j].asset, in.v[i].asset, 32))
				o = out.v[j].amount;
		if (!memcmp(in.v[i].asset, r->api->net.avax, 32))
			o += l1_balance; /* what went to L1 validators' balances is not burned as a fee */
		if (in.v[i].amount > o)
			sum_add(&burned, in.v[i].asset, in.v[i].amount - o);
	}
	write_sums(r, "value", &value);
	write_sums(r, "amountBurned", &burned);
	write_sums(r, "amountStaked", &staked);
	write_sums(r, "amountL1ValidatorBalanceBurned", &l1);
	if (u->type_id == SL_P_IMPORT_TX && src >= 0) {
		sl_jw_key(w, "sourceChain");
		sl_jw_str(w, api_chain_id(r, src));
	}
	if (u->type_id == SL_P_EXPORT_TX && src >= 0) {
		sl_jw_key(w, "destinationChain");
		sl_jw_str(w, api_chain_id(r, src));
	}
	bool staking = u->type_id == 12 || u->type_id == 13 || u->type_id == 14 || u->type_id == 25 ||
		       u->type_id == 26;
	if (staking) {
		uint64_t start = u->start > (uint64_t)t->ts ? u->start : (uint64_t)t->ts;
		sl_jw_key(w, "startTimestamp");
		sl_jw_u64(w, start);
		sl_jw_key(w, "endTimestamp");
		sl_jw_u64(w, u->end);
	}
	if (u->type_id == 12 || u->type_id == 25) {
		sl_jw_key(w, "delegationFeePercent");
		api_write_fee_percent(r, u->shares);
	}
	if (u->node_id) {
		sl_jw_key(w, "nodeId");
		api_write_node_id(r, u->node_id);
	}
	static const uint8_t primary[32];
	if (staking || u->subnet_id || u->type_id == SL_P_CREATE_SUBNET_TX) {
		sl_jw_key(w, "subnetId");
		api_write_id(r, u->type_id == SL_P_CREATE_SUBNET_TX ? t->id
				: u->subnet_id			    ? u->subnet_id
								    : primary);
	}
	if (u->type_id == SL_P_CONVERT_SUBNET_TO_L1_TX) {
		sl_jw_key(w, "l1ValidatorManagerDetails");
		sl_jw_obj(w);
		sl_jw_key(w, "blockchainId");
		api_write_id(r, u->manager_chain_id);
		write_hex_str(r, "contractAddress", u->manager_address.p, u->manager_address.len);
		sl_jw_obj_end(w);
	}
	/* the L1 validators a tx determines by itself (the rest needs the L1 model of part 2) */
	if (u->type_id == SL_P_CONVERT_SUBNET_TO_L1_TX || u->type_id == SL_P_REGISTER_L1_VALIDATOR_TX) {
		uint8_t(*vids)[32] = sl_arena_array(r->arena, u->nvalidators + 1, 32);
		size_t nv = vids ? sl_l1_validation_ids(u, vids, u->nvalidators + 1) : 0;
		sl_warp_l1_msg m;
		bool reg = u->type_id == SL_P_REGISTER_L1_VALIDATOR_TX && nv == 1 && !sl_l1_tx_message(u, &m);
		if (nv && (reg || u->type_id == SL_P_CONVERT_SUBNET_TO_L1_TX)) {
			sl_jw_key(w, "l1ValidatorDetails");
			sl_jw_arr(w);
			for (size_t i = 0; i < nv; i++) {
				sl_jw_obj(w);
				/* the balance it pays in is both what remains and the change */
				uint64_t bal = reg ? u->balance : u->validators[i].balance;
				write_l1_detail(r, vids[i], reg ? m.node_id.p : u->validators[i].node_id.p,
						reg ? m.node_id.len : u->validators[i].node_id.len,
						reg && m.subnet_id.len == 32 ? m.subnet_id.p : u->subnet_id,
						reg ? m.weight : u->validators[i].weight, bal,
						bal > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)bal);
				sl_jw_key(w, "blsCredentials");
				sl_jw_obj(w);
				const uint8_t *pk = reg ? m.bls_public_key.p : u->validators[i].public_key;
				if (pk)
					write_hex_str(r, "publicKey", pk, 48);
				if (!reg)
					write_hex_str(r, "proofOfPossession", u->validators[i].pop, 96);
				else if (u->pop)
					write_hex_str(r, "proofOfPossession", u->pop, 96);
				sl_jw_obj_end(w);
				sl_jw_obj_end(w);
			}
			sl_jw_arr_end(w);
		}
	}
	if (u->type_id == SL_P_SET_L1_VALIDATOR_WEIGHT_TX ||
	    u->type_id == SL_P_INCREASE_L1_VALIDATOR_BALANCE_TX ||
	    u->type_id == SL_P_DISABLE_L1_VALIDATOR_TX) {
		sl_warp_l1_msg m;
		const uint8_t *vid = u->type_id != SL_P_SET_L1_VALIDATOR_WEIGHT_TX ? u->validation_id
				     : !sl_l1_tx_message(u, &m) && m.type == SL_WARP_L1_VALIDATOR_WEIGHT &&
						     m.validation_id.len == 32
					     ? m.validation_id.p
					     : NULL;
		int rc = vid ? write_l1_effect(r, t, vid) : 0;
		if (rc)
			return rc;
	}
	if (staking && u->type_id != 13) {
		/* the RewardValidatorTx that ended it, once indexed; the reward it earns if committed
		 * (a primary-network staker's potential reward, fixed when it started: index.md) */
		sl_stmt *s = sl_stmt_get(r->db, &q_staker_end);
		if (!s)
			return api_fail_store(r, SL_ERR_STORE);
		sl_bind_blob(s, 0, t->id, 32);
		if ((e = sl_stmt_query(s)))
			return api_fail_store(r, e);
		if (sl_stmt_next(s, &e)) {
			size_t n;
			const uint8_t *id = sl_col_blob(s, 0, &n);
			if (id && n == 32) {
				sl_jw_key(w, "rewardTxHash");
				api_write_id(r, id);
			}
			const uint8_t *subnet = sl_col_blob(s, 2, &n);
			if (sl_col_type(s, 1) != SL_COL_NULL && n == 32 && !memcmp(subnet, primary, 32)) {
				sl_jw_key(w, "estimatedReward");
				sl_jw_u64s(w, sl_col_u64be(s, 1));
			}
		}
		sl_jw_key(w, "rewardAddresses");
		sl_jw_arr(w);
		for (uint32_t i = 0; i < u->rewards_owner.naddrs; i++)
			api_write_address(r, u->rewards_owner.addrs + 20 * (size_t)i);
		sl_jw_arr_end(w);
	}
	if (u->has_base && u->base.memo.len)
		write_hex_str(r, "memo", u->base.memo.p, u->base.memo.len);
	if (u->type_id == SL_P_REWARD_VALIDATOR_TX) {
		sl_jw_key(w, "stakingTxHash");
		api_write_id(r, u->tx_id);
	}
	if (u->type_id == SL_P_CREATE_SUBNET_TX || u->type_id == SL_P_TRANSFER_SUBNET_OWNERSHIP_TX)
		write_owner_info(r, "subnetOwnershipInfo", &u->owner);
	if (u->type_id == SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX && u->signer.type_id == SL_P_SIGNER_POP) {
		sl_jw_key(w, "blsCredentials");
		sl_jw_obj(w);
		write_hex_str(r, "publicKey", u->signer.public_key, 48);
		write_hex_str(r, "proofOfPossession", u->signer.pop, 96);
		sl_jw_obj_end(w);
	}
	if (u->type_id == SL_P_CREATE_CHAIN_TX) {
		sl_jw_key(w, "blockchainInfo");
		sl_jw_obj(w);
		sl_jw_key(w, "chainName");
		sl_jw_strn(w, (const char *)u->chain_name.p, u->chain_name.len);
		sl_jw_key(w, "vmId");
		api_write_id(r, u->vm_id);
		/* its genesis as GET …/subnets shows it (api/genesis.c) */
		sl_buf scratch;
		sl_buf_init(&scratch, API_GENESIS_SCRATCH);
		api_genesis g;
		api_genesis_read(u->genesis.p, u->genesis.len, &g, &scratch);
		if (g.form != API_GENESIS_NONE) {
			sl_jw_key(w, "genesisData");
			api_genesis_write(w, u->genesis.p, u->genesis.len, &g, &scratch);
		}
		sl_buf_release(&scratch);
		sl_jw_obj_end(w);
	}
	sl_jw_obj_end(w);
	return 0;
}

/* ---- X-chain ---- */

static const sl_sql q_tx_vertices = {
	"SELECT v.hash, v.height, v.ts FROM vertex_txs t JOIN vertices v ON v.ipos = t.ipos "
	"WHERE t.tx = ? ORDER BY t.ipos"
};
static const sl_sql q_asset_row = {
	"SELECT name, symbol, denomination, type, cap, ts FROM assets WHERE id = ?"
};

static int render_x(api_req *r, const txrow *t, size_t *count)
{
	sl_xchain_tx tx;
	sl_err_detail d;
	if (sl_xchain_tx_decode(r->arena, t->bytes, t->len, &tx, &d))
		return api_fail(r, 500, "a stored X-chain tx does not decode: %s", d.msg);
	const sl_xchain_utx *u = &tx.utx;
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	sl_jw_key(w, "txHash");
	api_write_id(r, t->id);
	sl_jw_key(w, "chainFormat");
	sl_jw_str(w, t->in_block ? "linear" : "non-linear");
	sl_jw_key(w, "timestamp");
	sl_jw_i64(w, t->ts);
	sl_jw_key(w, "txType");
	sl_jw_str(w, type_name(API_X, u->type_id));
	write_hex_str(r, "memo", u->base.memo.p, u->base.memo.len);
	flows f = { .in_src = -1 };
	f.ins[0] = u->base.ins, f.nins[0] = u->base.nins;
	f.outs[f.nout_lists++] = (out_list){ u->base.outs, u->base.nouts, API_X, false };
	int other = -1;
	for (int c = 0; c < 3 && u->chain; c++)
		if (!memcmp(u->chain, r->api->net.chain[c], 32))
			other = c;
	if (u->type_id == SL_X_IMPORT_TX) {
		f.ins[1] = u->imported, f.nins[1] = u->nimported;
		f.in_src = other;
	}
	if (u->type_id == SL_X_EXPORT_TX)
		f.outs[f.nout_lists++] = (out_list){ u->exported, u->nexported, other, false };
	/* the sighash of the inputs' signatures: sha256 of the unsigned tx with its codec version */
	uint8_t sighash[32];
	sl_err e = sl_avax_hash_versioned(r->arena, tx.unsigned_bytes, sighash);
	/* initial-state and operation outputs are UTXOs too, numbered after the outputs */
	if (u->type_id == SL_X_CREATE_ASSET_TX)
		for (uint32_t k = 0; k < u->nstates; k++)
			f.extra += u->states[k].nouts;
	if (u->type_id == SL_X_OPERATION_TX)
		for (uint32_t k = 0; k < u->nops; k++) {
			const sl_xchain_fx_op *o = &u->ops[k].op;
			f.extra += o->type_id == SL_T_NFT_MINT_OPERATION ? o->nowners
				   : o->type_id == SL_T_SECP_MINT_OPERATION ||
						   o->type_id == SL_T_PROP_MINT_OPERATION
					   ? 2
				   : o->type_id == SL_T_NFT_TRANSFER_OPERATION ? 1
									       : 0;
		}
	if (u->type_id == SL_X_OPERATION_TX) {
		uint32_t n = 0;
		for (uint32_t k = 0; k < u->nops; k++)
			n += u->ops[k].nutxos;
		f.op_in = n ? sl_arena_array(r->arena, n, sizeof *f.op_in) : NULL;
		for (uint32_t k = 0; f.op_in && k < u->nops; k++)
			for (uint32_t j = 0; j < u->ops[k].nutxos; j++)
				f.op_in[f.nop_in++] = u->ops[k].utxos + 36 * (size_t)j;
	}
	sums unlocked = { 0 }, created = { 0 };
	if (!e)
		render_utxos(r, t, &f, false, API_X, count, &e, tx.creds, tx.ncreds, sighash, NULL,
			     CONSUMED | EMITTED, &unlocked, &created);
	if (e)
		return api_fail_store(r, e);
	write_sums(r, "amountUnlocked", &unlocked);
	write_sums(r, "amountCreated", &created);
	if (u->type_id == SL_X_IMPORT_TX && other >= 0) {
		sl_jw_key(w, "sourceChain");
		sl_jw_str(w, api_chain_id(r, other));
	}
	if (u->type_id == SL_X_EXPORT_TX && other >= 0) {
		sl_jw_key(w, "destinationChain");
		sl_jw_str(w, api_chain_id(r, other));
	}
	if (u->type_id == SL_X_CREATE_ASSET_TX) {
		api_asset a;
		api_asset_get(r, t->id, &a);
		sl_jw_key(w, "assetCreated");
		sl_jw_obj(w);
		sl_jw_key(w, "assetId");
		api_write_id(r, t->id);
		sl_jw_key(w, "name");
		sl_jw_strn(w, (const char *)u->name.p, u->name.len);
		sl_jw_key(w, "symbol");
		sl_jw_strn(w, (const char *)u->symbol.p, u->symbol.len);
		sl_jw_key(w, "denomination");
		sl_jw_u64(w, u->denomination);
		sl_jw_key(w, "type");
		sl_jw_str(w, a.nft ? "nft" : "secp256k1");
		sl_jw_key(w, "createdAtTimestamp");
		sl_jw_i64(w, t->ts);
		sl_jw_key(w, "cap");
		sl_jw_str(w, a.variable_cap ? "variable" : "fixed");
		sl_jw_obj_end(w);
	}
	if (t->in_block) {
		sl_jw_key(w, "blockHeight");
		sl_jw_u64(w, t->height);
		sl_jw_key(w, "blockHash");
		api_write_id(r, t->block);
	} else {
		sl_jw_key(w, "vertices");
		sl_jw_arr(w);
		sl_stmt *s = sl_stmt_get(r->db, &q_tx_vertices);
		if (!s)
			return api_fail_store(r, SL_ERR_STORE);
		sl_bind_blob(s, 0, t->id, 32);
		if ((e = sl_stmt_query(s)))
			return api_fail_store(r, e);
		while (sl_stmt_next(s, &e)) {
			size_t n;
			const uint8_t *h = sl_col_blob(s, 0, &n);
			sl_jw_obj(w);
			sl_jw_key(w, "hash");
			if (n == 32)
				api_write_id(r, h);
			else
				sl_jw_str(w, "");
			sl_jw_key(w, "height");
			sl_jw_i64(w, sl_col_i64(s, 1));
			sl_jw_key(w, "timestamp");
			sl_jw_i64(w, sl_col_i64(s, 2));
			sl_jw_obj_end(w);
		}
		if (e)
			return api_fail_store(r, e);
		sl_jw_arr_end(w);
	}
	sl_jw_obj_end(w);
	(void)q_asset_row;
	return 0;
}

/* ---- C-chain atomic txs ---- */

static int render_c(api_req *r, const txrow *t, size_t *count)
{
	sl_atomic_tx tx;
	sl_err_detail d;
	if (sl_atomic_tx_decode(r->arena, t->bytes, t->len, &tx, &d))
		return api_fail(r, 500, "a stored atomic tx does not decode: %s", d.msg);
	const sl_atomic_utx *u = &tx.utx;
	sl_jw *w = &r->w;
	int other = -1;
	for (int c = 0; c < 3; c++)
		if (!memcmp(u->chain, r->api->net.chain[c], 32))
			other = c;
	bool import = u->type_id == SL_ATOMIC_IMPORT_TX;
	sl_jw_obj(w);
	sl_jw_key(w, "txHash");
	api_write_id(r, t->id);
	sl_jw_key(w, "blockHeight");
	sl_jw_u64(w, t->height);
	sl_jw_key(w, "blockHash");
	sl_jw_hex(w, t->block, 32);
	sl_jw_key(w, "timestamp");
	sl_jw_i64(w, t->ts);
	sl_jw_key(w, "memo");
	sl_jw_str(w, "0x");
	sums unlocked = { 0 }, created = { 0 };
	if (import) {
		for (uint32_t i = 0; i < u->nimported; i++)
			sum_add(&unlocked, u->imported[i].asset_id, u->imported[i].in.amount);
		for (uint32_t i = 0; i < u->nevm_outs; i++)
			sum_add(&created, u->evm_outs[i].asset_id, u->evm_outs[i].amount);
	} else {
		for (uint32_t i = 0; i < u->nevm_ins; i++)
			sum_add(&unlocked, u->evm_ins[i].asset_id, u->evm_ins[i].amount);
		for (uint32_t i = 0; i < u->nexported; i++)
			sum_add(&created, u->exported[i].asset_id, u->exported[i].out.amount);
	}
	write_sums(r, "amountUnlocked", &unlocked);
	write_sums(r, "amountCreated", &created);
	sl_jw_key(w, "sourceChain");
	sl_jw_str(w, api_chain_id(r, import ? other : API_C));
	sl_jw_key(w, "destinationChain");
	sl_jw_str(w, api_chain_id(r, import ? API_C : other));
	sl_jw_key(w, "txType");
	sl_jw_str(w, import ? "ImportTx" : "ExportTx");
	uint8_t sighash[32];
	sl_err e = sl_avax_hash_versioned(r->arena, tx.unsigned_bytes, sighash);
	if (e)
		return api_fail(r, 500, "out of memory");
	if (import) {
		sl_jw_key(w, "evmOutputs");
		sl_jw_arr(w);
		for (uint32_t i = 0; i < u->nevm_outs; i++) {
			sl_jw_obj(w);
			write_hex_str(r, "toAddress", u->evm_outs[i].address, 20);
			sl_jw_key(w, "asset");
			api_asset_amount(r, u->evm_outs[i].asset_id, u->evm_outs[i].amount, NULL, 0);
			sl_jw_obj_end(w);
		}
		sl_jw_arr_end(w);
		flows f = { .in_src = other };
		f.ins[1] = u->imported, f.nins[1] = u->nimported;
		render_utxos(r, t, &f, false, API_C, count, &e, tx.creds, tx.ncreds, sighash, NULL, CONSUMED,
			     NULL, NULL);
		if (e)
			return api_fail_store(r, e);
	} else {
		sl_jw_key(w, "evmInputs");
		sl_jw_arr(w);
		for (uint32_t i = 0; i < u->nevm_ins; i++) {
			sl_jw_obj(w);
			write_hex_str(r, "fromAddress", u->evm_ins[i].address, 20);
			sl_jw_key(w, "asset");
			api_asset_amount(r, u->evm_ins[i].asset_id, u->evm_ins[i].amount, NULL, 0);
			if (i < tx.ncreds) {
				cred_ctx cc = { &tx.creds[i], sighash };
				write_credentials(r, &cc);
			} else {
				sl_jw_key(w, "credentials");
				sl_jw_arr(w);
				sl_jw_arr_end(w);
			}
			sl_jw_obj_end(w);
		}
		sl_jw_arr_end(w);
		flows f = { .in_src = -1 };
		f.outs[f.nout_lists++] = (out_list){ u->exported, u->nexported, other, false };
		render_utxos(r, t, &f, false, API_C, count, &e, NULL, 0, NULL, NULL, EMITTED, NULL, NULL);
		if (e)
			return api_fail_store(r, e);
	}
	sl_jw_obj_end(w);
	return 0;
}

/* ---- the lists ---- */

static const sl_sql q_addr_asc = {
	"SELECT seq, ts, type FROM addr_txs WHERE chain = ? AND addr = ? AND seq > ? "
	"ORDER BY seq LIMIT ?"
};
static const sl_sql q_addr_desc = {
	"SELECT seq, ts, type FROM addr_txs WHERE chain = ? AND addr = ? AND seq < ? "
	"ORDER BY seq DESC LIMIT ?"
};
static const sl_sql q_l1_asc = {
	"SELECT seq, ts, type FROM l1_txs WHERE vid = ? AND seq > ? ORDER BY seq LIMIT ?"
};
static const sl_sql q_l1_desc = { "SELECT seq, ts, type FROM l1_txs WHERE vid = ? AND seq < ? "
				  "ORDER BY seq DESC LIMIT ?" };
static const sl_sql q_asset_desc = { "SELECT seq, ts, type FROM asset_txs WHERE asset = ? AND seq < ? "
				     "ORDER BY seq DESC LIMIT ?" };
static const sl_sql q_latest_asc = {
	"SELECT seq, ts, type FROM txs WHERE chain = ? AND seq > ? ORDER BY seq LIMIT ?"
};
static const sl_sql q_latest_desc = { "SELECT seq, ts, type FROM txs WHERE chain = ? AND seq < ? "
				      "ORDER BY seq DESC LIMIT ?" };
static const sl_sql q_asset_known = { "SELECT 1 FROM assets WHERE id = ?" };

/* A source of seqs in the list's order: a statement of one of these shapes. */
enum { BY_SPACE_KEY, BY_KEY, BY_SPACE }; /* (space, key | key | space), then after seq, limit */

typedef struct source {
	int shape;
	const sl_sql *q;
	const uint8_t *key;
	size_t keylen;
	int64_t space;
	uint64_t *seq, n, at;
	bool done;
	uint64_t after;
	bool has_now; /* the query also takes the chain's time after its key (listStaking) */
	int64_t now;
} source;

typedef struct filter {
	int chain;
	uint64_t types;
	bool has_start, has_end;
	int64_t start, end;
} filter;

/* Up to `want` more seqs that pass the filter into s (in rounds of at least 64 rows). */
static sl_err fill(api_req *r, source *s, size_t want, const filter *f, bool desc)
{
	for (int round = 0; !s->done && s->n < want && round < 64; round++) {
		sl_stmt *st = sl_stmt_get(r->db, s->q);
		if (!st)
			return SL_ERR_STORE;
		size_t lim = want - s->n < 64 ? 64 : want - s->n;
		int i = 0;
		if (s->shape != BY_KEY)
			sl_bind_i64(st, i++, s->space);
		if (s->shape != BY_SPACE)
			sl_bind_blob(st, i++, s->key, s->keylen);
		if (s->has_now)
			sl_bind_i64(st, i++, s->now);
		sl_bind_i64(st, i++, (int64_t)s->after);
		sl_bind_i64(st, i, (int64_t)lim);
		sl_err e = sl_stmt_query(st);
		size_t rows = 0;
		while (!e && sl_stmt_next(st, &e)) {
			rows++;
			uint64_t seq = (uint64_t)sl_col_i64(st, 0);
			int64_t ts = sl_col_i64(st, 1);
			uint32_t type = (uint32_t)sl_col_i64(st, 2);
			s->after = seq;
			if ((f->has_start && ts < f->start) || (f->has_end && ts > f->end) ||
			    !type_wanted(f->types, f->chain, type))
				continue;
			if (s->n < want)
				s->seq[s->n++] = seq;
		}
		if (e)
			return e;
		if (rows < lim)
			s->done = true;
	}
	(void)desc;
	return SL_OK;
}

/*
 * The rows of a page's txs, TX_BATCH a query (on PostgreSQL each query is a round trip; a page
 * was one query per tx). A short batch repeats its first seq.
 */
#define TX_BATCH 16
static const sl_sql q_tx_batch = {
	"SELECT seq, id, ts, type, height, block, bytes FROM txs WHERE chain = ? AND seq IN "
	"(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
};

static sl_err read_txrows(api_req *r, int chain, const uint64_t *seq, size_t n, txrow *rows)
{
	bool oom = false;
	for (size_t i = 0; i < n; i++)
		rows[i] = (txrow){ .seq = seq[i] };
	for (size_t b = 0; b < n; b += TX_BATCH) {
		size_t m = SL_MIN((size_t)TX_BATCH, n - b);
		sl_stmt *s = sl_stmt_get(r->db, &q_tx_batch);
		if (!s)
			return SL_ERR_STORE;
		sl_bind_i64(s, 0, chain);
		for (size_t i = 0; i < TX_BATCH; i++)
			sl_bind_i64(s, (int)i + 1, (int64_t)seq[b + (i < m ? i : 0)]);
		sl_err e = sl_stmt_query(s);
		while (!e && sl_stmt_next(s, &e)) {
			uint64_t q = (uint64_t)sl_col_i64(s, 0);
			txrow *t = NULL;
			for (size_t i = b; i < b + m && !t; i++)
				if (rows[i].seq == q)
					t = &rows[i];
			if (!t)
				continue;
			size_t len;
			const uint8_t *p = sl_col_blob(s, 1, &len);
			if (len == 32)
				memcpy(t->id, p, 32);
			t->ts = sl_col_i64(s, 2);
			t->type = (uint32_t)sl_col_i64(s, 3);
			t->in_block = !sl_col_null(s, 4);
			t->height = (uint64_t)sl_col_i64(s, 4);
			p = sl_col_blob(s, 5, &len);
			if (p && len == 32)
				memcpy(t->block, p, 32);
			p = sl_col_blob(s, 6, &len);
			if (!(t->bytes = sl_arena_alloc(r->arena, len ? len : 1))) {
				oom = true; /* read on to the end: a query left mid-way holds its snapshot */
				continue;
			}
			memcpy(t->bytes, p, len);
			t->len = len;
		}
		if (e || oom)
			return e ? e : SL_ERR_NOMEM;
	}
	return SL_OK;
}

/* Render one tx of the page; returns its UTXO count through count. */
static int render_tx(api_req *r, int chain, const txrow *t, size_t *count)
{
	if (!t->bytes)
		return 0; /* gone? it cannot be: rows are never deleted */
	return chain == API_P	? render_p(r, t, count)
	       : chain == API_X ? render_x(r, t, count)
				: render_c(r, t, count);
}

/* Merge the sources into a page of txs of `chain`, rendered; "transactions" and the next token. */
static int page_of(api_req *r, int chain, source *src, size_t nsrc, const filter *f, bool desc, size_t page)
{
	for (size_t i = 0; i < nsrc; i++) {
		if (!(src[i].seq = sl_arena_array(r->arena, page + 1, sizeof *src[i].seq)))
			return api_fail(r, 500, "out of memory");
		sl_err e = fill(r, &src[i], page + 1, f, desc);
		if (e)
			return api_fail_store(r, e);
	}
	/* the page's order: the sources merged, up to one past the page */
	uint64_t *order = sl_arena_array(r->arena, page + 1, sizeof *order);
	if (!order)
		return api_fail(r, 500, "out of memory");
	size_t k = 0;
	while (k <= page) {
		uint64_t best = 0;
		bool found = false;
		for (size_t i = 0; i < nsrc; i++)
			if (src[i].at < src[i].n) {
				uint64_t v = src[i].seq[src[i].at];
				if (!found || (desc ? v > best : v < best))
					best = v, found = true;
			}
		if (!found)
			break;
		for (size_t i = 0; i < nsrc; i++)
			while (src[i].at < src[i].n && src[i].seq[src[i].at] == best)
				src[i].at++; /* the same tx from two addresses: once */
		order[k++] = best;
	}
	bool more = k > page;
	for (size_t i = 0; !more && i < nsrc; i++)
		more = src[i].n > page; /* a source had rows past what it read */
	size_t n = SL_MIN(k, page);
	txrow *rows = n ? sl_arena_array(r->arena, n, sizeof *rows) : NULL;
	if (n && !rows)
		return api_fail(r, 500, "out of memory");
	sl_err e = read_txrows(r, chain, order, n, rows);
	if (e)
		return api_fail_store(r, e);
	sl_jw_obj(&r->w);
	sl_jw_key(&r->w, "transactions");
	sl_jw_arr(&r->w);
	size_t utxos = 0;
	uint64_t last = 0;
	bool any = false;
	for (size_t j = 0; j < n; j++) {
		/* rule 2: a page stops before the tx whose UTXOs would pass the cap */
		size_t mark = r->w.out->len, count = 0;
		sl_jw saved = r->w;
		if (render_tx(r, chain, &rows[j], &count))
			return -1;
		if (any && utxos + count > API_TX_PAGE_MAX_UTXOS) {
			r->w.out->len = mark;
			r->w.out->p[mark] = 0;
			r->w = saved;
			more = true;
			break;
		}
		utxos += count;
		last = rows[j].seq;
		any = true;
	}
	sl_jw_arr_end(&r->w);
	if (more && any) {
		uint8_t c[8];
		sl_put_be64(c, last);
		api_page_next(r, c, sizeof c);
	}
	api_chain_info(r);
	sl_jw_obj_end(&r->w);
	return 0;
}

/* The page's cursor: a tx's seq (every seq is below INT64_MAX). */
static bool read_after(api_req *r, bool desc, uint64_t *after)
{
	int64_t v;
	if (!api_page_cursor_i64(r, desc ? INT64_MAX : 0, &v))
		return false;
	*after = (uint64_t)v;
	return true;
}

int api_list_transactions(api_req *r)
{
	const api_val *addrs = api_arg(r, "addresses"), *vid = api_arg(r, "l1ValidationId");
	const api_val *types = api_arg(r, "txTypes"), *start = api_arg(r, "startTimestamp"),
		      *end = api_arg(r, "endTimestamp");
	bool desc = api_arg(r, "sortOrder")->i == 1;
	size_t page = (size_t)api_arg(r, "pageSize")->i;
	filter f = { r->chain, types->tx_types, start->set, end->set, start->i, end->i };
	if (vid->set && r->chain != API_P)
		return api_fail(r, 400, "l1ValidationId applies to the P-chain only");
	if (!addrs->set && !vid->set && (types->set || start->set || end->set))
		return api_fail(r, 400,
				"txTypes, startTimestamp and endTimestamp need addresses: without them only "
				"the latest transactions are listed (spec 000 §4.3, rule 1)");
	if (start->set && end->set && start->i > end->i)
		return api_fail(r, 400, "startTimestamp (%lld) is after endTimestamp (%lld)",
				(long long)start->i, (long long)end->i);
	uint64_t after;
	if (!read_after(r, desc, &after))
		return -1;
	size_t nsrc = addrs->set ? addrs->naddrs : 1;
	source *src = sl_arena_zalloc(r->arena, nsrc * sizeof *src);
	if (!src)
		return api_fail(r, 500, "out of memory");
	if (addrs->set) {
		for (size_t i = 0; i < addrs->naddrs; i++) {
			if (addrs->addrs[i].evm && r->chain != API_C)
				return api_fail(r, 400,
						"addresses: 0x… (EVM) addresses apply to the C-chain only");
			src[i] = (source){
				BY_SPACE_KEY, desc ? &q_addr_desc : &q_addr_asc,  addrs->addrs[i].bytes,
				20,	      addrs->addrs[i].evm ? 3 : r->chain, .after = after
			};
		}
	} else if (vid->set) {
		src[0] = (source){ BY_KEY, desc ? &q_l1_desc : &q_l1_asc, vid->id, 32, 0, .after = after };
	} else {
		src[0] = (source){ BY_SPACE,	  desc ? &q_latest_desc : &q_latest_asc, NULL, 0, r->chain,
				   .after = after };
	}
	return page_of(r, r->chain, src, nsrc, &f, desc, page);
}

int api_list_asset_transactions(api_req *r)
{
	const api_val *asset = api_arg(r, "assetId"), *types = api_arg(r, "txTypes"),
		      *start = api_arg(r, "startTimestamp"), *end = api_arg(r, "endTimestamp");
	size_t page = (size_t)api_arg(r, "pageSize")->i;
	filter f = { API_X, types->tx_types, start->set, end->set, start->i, end->i };
	if (start->set && end->set && start->i > end->i)
		return api_fail(r, 400, "startTimestamp (%lld) is after endTimestamp (%lld)",
				(long long)start->i, (long long)end->i);
	sl_stmt *s = sl_stmt_get(r->db, &q_asset_known);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	sl_bind_blob(s, 0, asset->id, 32);
	sl_err e = sl_stmt_query(s);
	if (e || !sl_stmt_next(s, &e))
		return e ? api_fail_store(r, e)
			 : api_fail(r, 404, "assetId %s is not an asset of the X-chain of %s", r->assetId,
				    r->api->net.name);
	uint64_t after;
	if (!read_after(r, true, &after))
		return -1;
	source src = { BY_KEY, &q_asset_desc, asset->id, 32, 0, .after = after };
	return page_of(r, API_X, &src, 1, &f, true, page);
}

/*
 * GET …/blockchains/p-chain/transactions:listStaking (spec 000 §4.3): the active staking txs of the
 * addresses — those they took part in (addr_txs, as for …/transactions) that stake (a validator or
 * delegator of the primary network or of a permissionless subnet: AddValidatorTx, AddDelegatorTx
 * and their permissionless forms) and whose staker is current at the chain's time (its latest P
 * block's): started, and not ended by its RewardValidatorTx. Pending stakers (a later start, before
 * Durango) are not active yet; the genesis validators have no tx to list; a permissioned subnet
 * validator's AddSubnetValidatorTx stakes nothing. Each is rendered as …/transactions renders
 * P-chain txs, in seq order (newest first by default); txTypes and the timestamps filter as there
 * (the tx's block time).
 */
#define FROM_STAKING                                                                                     \
	"SELECT a.seq, a.ts, a.type FROM addr_txs a {sqlite:INDEXED BY addr_txs_staking} "               \
	"JOIN txs t ON t.chain = a.chain AND t.seq = a.seq "                                             \
	"JOIN stakers s ON s.tx = t.id WHERE a.chain = ? AND a.addr = ? AND a.type IN (12, 14, 25, 26) " \
	"AND s.end_tx IS NULL AND s.start_ts <= ? AND "
static const sl_sql q_staking_asc = { FROM_STAKING "a.seq > ? ORDER BY a.seq LIMIT ?" };
static const sl_sql q_staking_desc = { FROM_STAKING "a.seq < ? ORDER BY a.seq DESC LIMIT ?" };

int api_list_staking_transactions(api_req *r)
{
	const api_val *addrs = api_arg(r, "addresses"), *types = api_arg(r, "txTypes"),
		      *start = api_arg(r, "startTimestamp"), *end = api_arg(r, "endTimestamp");
	bool desc = api_arg(r, "sortOrder")->i == 1;
	size_t page = (size_t)api_arg(r, "pageSize")->i;
	filter f = { API_P, types->tx_types, start->set, end->set, start->i, end->i };
	if (start->set && end->set && start->i > end->i)
		return api_fail(r, 400, "startTimestamp (%lld) is after endTimestamp (%lld)",
				(long long)start->i, (long long)end->i);
	uint64_t after;
	api_pnow now;
	if (!read_after(r, desc, &after) || api_pchain_now(r, &now))
		return -1;
	source *src = sl_arena_zalloc(r->arena, addrs->naddrs * sizeof *src);
	if (!src)
		return api_fail(r, 500, "out of memory");
	for (size_t i = 0; i < addrs->naddrs; i++)
		src[i] = (source){ BY_SPACE_KEY,
				   desc ? &q_staking_desc : &q_staking_asc,
				   addrs->addrs[i].bytes,
				   20,
				   API_P,
				   .after = after,
				   .has_now = true,
				   .now = now.ts };
	return page_of(r, API_P, src, addrs->naddrs, &f, desc, page);
}
