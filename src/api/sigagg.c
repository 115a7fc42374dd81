/*
 * sigagg.c — the aggregation core (sigagg.h): the canonical warp validator
 * set, quorum arithmetic, collecting and checking answers, the signed
 * message and its verification.
 */
#include "api/sigagg.h"

#include <stdlib.h>

#include "codec/warp.h"
#include "crypto/cb58.h"
#include "util/u256.h"

/* ---- the canonical set ------------------------------------------------------------- */

typedef struct keyed {
	uint8_t raw[SL_BLS_PK_RAW_LEN];
	size_t member; /* index among the members with a key */
	uint64_t weight;
} keyed;

static int keyed_cmp(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	int c = memcmp(x->raw, y->raw, SL_BLS_PK_RAW_LEN);
	return c ? c : (x->member < y->member ? -1 : x->member > y->member);
}

void sl_sigagg_set_release(sl_sigagg_set *s)
{
	free(s->v);
	free(s->nodes);
	free(s->node_vdr);
	*s = (sl_sigagg_set){ 0 };
}

sl_err sl_sigagg_set_build(const sl_vset *vs, sl_sigagg_set *out, char why[160])
{
	*out = (sl_sigagg_set){ .height = vs->height };
	memcpy(out->subnet, vs->subnet, 32);
	why[0] = 0;
	uint64_t total = 0;
	size_t nk = 0;
	for (size_t i = 0; i < vs->n; i++) {
		if (vs->v[i].weight > UINT64_MAX - total) {
			snprintf(why, 160, "the validator set's weight overflows 64 bits");
			return SL_ERR_RANGE;
		}
		total += vs->v[i].weight;
		nk += vs->v[i].has_key;
	}
	out->total = total;
	if (!nk)
		return SL_OK;
	keyed *k = calloc(nk, sizeof *k);
	sl_bls_pk *pks = calloc(nk, sizeof *pks);
	out->v = calloc(nk, sizeof *out->v);
	out->nodes = calloc(nk, sizeof *out->nodes);
	out->node_vdr = calloc(nk, sizeof *out->node_vdr);
	sl_err e = SL_OK;
	if (!k || !pks || !out->v || !out->nodes || !out->node_vdr) {
		e = SL_ERR_NOMEM;
		goto done;
	}
	size_t j = 0;
	for (size_t i = 0; i < vs->n; i++) {
		if (!vs->v[i].has_key)
			continue;
		if (sl_bls_pk_decode(&pks[j], vs->v[i].key)) {
			snprintf(why, 160, "the BLS key of a validator at height %llu is not a valid key",
				 (unsigned long long)vs->height);
			e = SL_ERR_INVALID;
			goto done;
		}
		sl_bls_pk_encode_raw(&pks[j], k[j].raw);
		k[j].member = j;
		k[j].weight = vs->v[i].weight;
		memcpy(out->nodes[j], vs->v[i].node, 20);
		j++;
	}
	out->nnodes = nk;
	qsort(k, nk, sizeof *k, keyed_cmp);
	/* merge equal keys: their weights are summed (cannot overflow: bounded by total) */
	size_t n = 0;
	for (size_t i = 0; i < nk; i++) {
		size_t m = k[i].member;
		uint64_t w = k[i].weight;
		if (n && !memcmp(out->v[n - 1].raw, k[i].raw, SL_BLS_PK_RAW_LEN)) {
			out->v[n - 1].weight += w;
		} else {
			out->v[n].pk = pks[m];
			memcpy(out->v[n].raw, k[i].raw, SL_BLS_PK_RAW_LEN);
			out->v[n].weight = w;
			n++;
		}
		out->node_vdr[m] = (uint32_t)(n - 1);
	}
	out->n = n;
done:
	free(k);
	free(pks);
	if (e)
		sl_sigagg_set_release(out);
	return e;
}

long sl_sigagg_set_find(const sl_sigagg_set *s, const uint8_t node[20])
{
	size_t lo = 0, hi = s->nnodes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = memcmp(s->nodes[mid], node, 20);
		if (!c)
			return (long)s->node_vdr[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* ---- quorum ----------------------------------------------------------------------- */

bool sl_sigagg_reaches(uint64_t w, uint64_t total, unsigned pct)
{
	return (sl_u128)w * 100 >= (sl_u128)total * pct;
}

uint64_t sl_sigagg_needed(uint64_t total, unsigned pct)
{
	sl_u128 t = (sl_u128)total * pct;
	return (uint64_t)((t + 99) / 100);
}

/* ---- the bit set ------------------------------------------------------------------ */

/* The minimal big-endian bit set of the marked entries into out (at least one is marked). */
static size_t bits_write(const bool *mark, size_t n, uint8_t *out)
{
	size_t top = 0;
	for (size_t i = 0; i < n; i++)
		if (mark[i])
			top = i;
	size_t len = top / 8 + 1;
	memset(out, 0, len);
	for (size_t i = 0; i <= top; i++)
		if (mark[i])
			out[len - 1 - i / 8] |= (uint8_t)(1u << (i % 8));
	return len;
}

/* ---- a run ------------------------------------------------------------------------ */

typedef struct run {
	const sl_sigagg_set *set;
	const sl_sigagg_req *req;
	sl_logger *log;
	sl_sigagg_result *res;
	uint64_t target; /* quorum + buffer */
	sl_bls_sig *sig; /* per canonical entry: its signature, once it has one */
	uint8_t *state;	 /* per canonical entry: 0 none, 1 pending (decoded), 2 verified */
	size_t *pending; /* canonical indices awaiting the batch check */
	size_t npending;
	uint64_t pending_weight, weight; /* verified weight */
	size_t nverified;
	sl_err err;
} run;

enum { ST_NONE = 0, ST_PENDING = 1, ST_OK = 2 };

static void node_str(const uint8_t node[20], char out[48])
{
	for (int i = 0; i < 8; i++)
		snprintf(out + 2 * i, 3, "%02x", node[i]);
}

/* Do the answers of entries v[0..n) verify together (one pairing check of the aggregates)? */
static bool batch_ok(const run *r, const size_t *v, size_t n)
{
	if (n == 1)
		return sl_bls_verify(&r->set->v[v[0]].pk, &r->sig[v[0]], r->req->msg.p, r->req->msg.len);
	sl_bls_pk_sum ks;
	sl_bls_sig_sum ss;
	sl_bls_pk_sum_init(&ks);
	sl_bls_sig_sum_init(&ss);
	for (size_t i = 0; i < n; i++) {
		sl_bls_pk_sum_add(&ks, &r->set->v[v[i]].pk);
		sl_bls_sig_sum_add(&ss, &r->sig[v[i]]);
	}
	sl_bls_pk apk;
	sl_bls_sig asig;
	return !sl_bls_pk_sum_final(&ks, &apk) && !sl_bls_sig_sum_final(&ss, &asig) &&
	       sl_bls_verify(&apk, &asig, r->req->msg.p, r->req->msg.len);
}

/*
 * Sort out v[0..n): when they do not verify together, halve and check each half (a half known
 * to fail — the other one verified — is split without checking it again), down to single
 * answers. One liar among k costs about 2·log2(k) checks instead of k.
 */
static void sort_out(run *r, const size_t *v, size_t n, bool known_bad)
{
	if (!n)
		return;
	if (!known_bad && batch_ok(r, v, n)) {
		for (size_t i = 0; i < n; i++) {
			r->state[v[i]] = ST_OK;
			r->weight += r->set->v[v[i]].weight;
			r->nverified++;
		}
		return;
	}
	if (n == 1) {
		r->state[v[0]] = ST_NONE; /* another member with the same key may still answer */
		r->res->bad++;
		if (r->log)
			SL_LOG(r->log, SL_WARN,
			       "signature aggregation: validator #%zu's signature does not verify", v[0]);
		return;
	}
	size_t h = n / 2;
	uint64_t before = r->nverified;
	sort_out(r, v, h, false);
	/* the left half all verified, so the liars are on the right */
	sort_out(r, v + h, n - h, r->nverified - before == h);
}

/* Check the pending answers: their aggregate at once, bisecting only when that fails. */
static void check_pending(run *r)
{
	sort_out(r, r->pending, r->npending, false);
	r->npending = 0;
	r->pending_weight = 0;
}

static bool done(const run *r) { return r->nverified > 0 && r->weight >= r->target; }

static bool on_answer(void *actx, const uint8_t node[20], const uint8_t *sig, size_t len)
{
	run *r = actx;
	r->res->answers++;
	long v = sl_sigagg_set_find(r->set, node);
	char ns[48];
	if (v < 0) {
		node_str(node, ns);
		if (r->log)
			SL_LOG(r->log, SL_WARN, "signature aggregation: an answer from %s…, not a member",
			       ns);
		r->res->bad++;
		return true;
	}
	if (r->state[v] != ST_NONE) /* a member sharing this key already answered */
		return !done(r);
	if (len != SL_BLS_SIG_LEN || sl_bls_sig_decode(&r->sig[v], sig)) {
		node_str(node, ns);
		if (r->log)
			SL_LOG(r->log, SL_WARN,
			       "signature aggregation: %s… sent a malformed signature (%zu bytes)", ns, len);
		r->res->bad++;
		return true;
	}
	r->state[v] = ST_PENDING;
	r->pending[r->npending++] = (size_t)v;
	r->pending_weight += r->set->v[v].weight;
	if (r->weight + r->pending_weight >= r->target)
		check_pending(r);
	return !done(r);
}

sl_err sl_sigagg_run(const sl_sigagg_set *set, const sl_sigagg_req *req, const sl_sigagg_source *src,
		     sl_logger *log, sl_sigagg_result *res, sl_buf *out)
{
	*res = (sl_sigagg_result){ .total = set->total };
	sl_warp_unsigned um;
	if (sl_warp_unsigned_decode(req->msg.p, req->msg.len, &um, NULL)) {
		snprintf(res->why, sizeof res->why, "the message is not an unsigned warp message");
		return SL_ERR_INVALID;
	}
	if (req->quorum > 100 || req->buffer > 100 || req->quorum + req->buffer > 100) {
		snprintf(res->why, sizeof res->why,
			 "quorum and buffer must be 0-100 with a sum of at most 100");
		return SL_ERR_INVALID;
	}
	res->needed = sl_sigagg_needed(set->total, req->quorum);
	if (!set->n || !set->total) {
		snprintf(res->why, sizeof res->why,
			 "the signing subnet has no validator with a BLS key at P-chain height %llu",
			 (unsigned long long)set->height);
		return SL_ERR_INVALID;
	}
	run r = { .set = set, .req = req, .log = log, .res = res };
	r.target = sl_sigagg_needed(set->total, req->quorum + req->buffer);
	r.sig = calloc(set->n, sizeof *r.sig);
	r.state = calloc(set->n, 1);
	r.pending = calloc(set->n, sizeof *r.pending);
	bool *mark = calloc(set->n, sizeof *mark);
	uint8_t *bits = calloc(set->n / 8 + 1, 1);
	sl_err e = SL_OK;
	if (!r.sig || !r.state || !r.pending || !mark || !bits) {
		e = SL_ERR_NOMEM;
		goto out;
	}
	if (src && src->ask) {
		sl_sigagg_ask q = { .network_id = um.network_id,
				    .source_chain = um.source_chain_id.p,
				    .msg = req->msg,
				    .justification = req->justification,
				    .nodes = (const uint8_t(*)[20])set->nodes,
				    .n = set->nnodes,
				    .timeout_ms = req->timeout_ms ? req->timeout_ms : SL_SIGAGG_TIMEOUT_MS };
		src->ask(src->ctx, &q, on_answer, &r);
	}
	check_pending(&r);
	res->signed_weight = r.weight;
	if (!r.nverified || !sl_sigagg_reaches(r.weight, set->total, req->quorum)) {
		char mid[64];
		sl_cb58_id(mid, um.id);
		snprintf(
			res->why, sizeof res->why,
			"quorum not reached: validators of weight %llu of %llu signed (%zu of %zu asked answered, "
			"%zu refused); %u%% needs %llu (message %s)",
			(unsigned long long)r.weight, (unsigned long long)set->total, res->answers,
			set->nnodes, res->bad, req->quorum,
			(unsigned long long)(res->needed ? res->needed : 1), mid);
		e = SL_ERR_UNAVAILABLE;
		goto out;
	}
	/* the aggregate of every verified signature, and the bit set of their entries */
	sl_bls_sig_sum ss;
	sl_bls_sig_sum_init(&ss);
	for (size_t i = 0; i < set->n; i++)
		if (r.state[i] == ST_OK) {
			sl_bls_sig_sum_add(&ss, &r.sig[i]);
			mark[i] = true;
			res->signers++;
		}
	sl_bls_sig agg;
	uint8_t aggb[SL_BLS_SIG_LEN];
	if (sl_bls_sig_sum_final(&ss, &agg)) {
		e = SL_ERR_INTERNAL;
		goto out;
	}
	sl_bls_sig_encode(&agg, aggb);
	size_t blen = bits_write(mark, set->n, bits);
	size_t start = out->len;
	sl_warp_message sm = { .msg = um,
			       .sig_type = 0,
			       .signers = sl_span_of(bits, blen),
			       .signature = sl_span_of(aggb, sizeof aggb) };
	if ((e = sl_warp_message_encode(&sm, out)))
		goto out;
	char why[160];
	if ((e = sl_sigagg_verify(set, out->p + start, out->len - start, req->quorum, why))) {
		snprintf(res->why, sizeof res->why, "the aggregate does not verify: %s", why);
		out->len = start;
		e = SL_ERR_INTERNAL;
	}
out:
	free(r.sig);
	free(r.state);
	free(r.pending);
	free(mark);
	free(bits);
	return e;
}

sl_err sl_sigagg_verify(const sl_sigagg_set *set, const uint8_t *p, size_t n, unsigned pct, char why[160])
{
	sl_warp_message m;
	why[0] = 0;
	if (sl_warp_message_decode(p, n, &m, NULL)) {
		snprintf(why, 160, "not a signed warp message");
		return SL_ERR_INVALID;
	}
	if (!sl_warp_signers_minimal(m.signers)) {
		snprintf(why, 160, "the signers' bit set is not minimal");
		return SL_ERR_INVALID;
	}
	/* bits beyond the set name unknown validators */
	for (size_t i = 0; i < m.signers.len; i++) {
		uint8_t b = m.signers.p[m.signers.len - 1 - i];
		for (unsigned k = 0; k < 8; k++)
			if ((b >> k) & 1u && i * 8 + k >= set->n) {
				snprintf(why, 160, "signer %zu is not in the set of %zu", i * 8 + k, set->n);
				return SL_ERR_INVALID;
			}
	}
	sl_bls_pk_sum ks;
	sl_bls_pk_sum_init(&ks);
	uint64_t w = 0;
	for (size_t i = 0; i < set->n; i++)
		if (sl_warp_signers_has(m.signers, i)) {
			sl_bls_pk_sum_add(&ks, &set->v[i].pk);
			w += set->v[i].weight;
		}
	if (!sl_sigagg_reaches(w, set->total, pct)) {
		snprintf(why, 160, "weight %llu of %llu is under %u%%", (unsigned long long)w,
			 (unsigned long long)set->total, pct);
		return SL_ERR_CHECKSUM;
	}
	sl_bls_pk apk;
	sl_bls_sig sig;
	if (sl_bls_pk_sum_final(&ks, &apk)) {
		snprintf(why, 160, "no signers");
		return SL_ERR_CHECKSUM;
	}
	if (sl_bls_sig_decode(&sig, m.signature.p)) {
		snprintf(why, 160, "the signature is not a G2 point");
		return SL_ERR_CHECKSUM;
	}
	if (!sl_bls_verify(&apk, &sig, m.msg.bytes.p, m.msg.bytes.len)) {
		snprintf(why, 160, "the aggregate signature does not verify");
		return SL_ERR_CHECKSUM;
	}
	return SL_OK;
}
