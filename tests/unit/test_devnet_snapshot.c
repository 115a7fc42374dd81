/*
 * test_devnet_snapshot.c — a restarted devnet continues from its snapshot
 * exactly as the devnet that wrote it: history → snapshot → restore into a
 * fresh devnet → the same live steps on both → the same containers (ids,
 * times, bytes), the same manifest, and the same snapshot again. Also a
 * snapshot taken between live steps, and the refusals: a damaged or torn
 * snapshot, another version, another configuration, no history yet.
 *
 * And the proposers: every signed proposervm block (P, X and C) carries a
 * node's certificate, a signature OpenSSL verifies over avalanchego's header
 * (00 00 | chain id | parent id | block id), its pChainHeight is one the
 * P-chain had reached before the block's time, and blocks are unsigned only
 * where avalanchego leaves them so (the first post-fork block, or before
 * Durango more than 30 s after the parent).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "codec/proposervm.h"
#include "crypto/cb58.h"
#include "crypto/hash.h"
#include "crypto/staking.h"
#include "devnet/devnet.h"
#include "devnet/world.h"

typedef struct rec {
	sl_ikind kind;
	uint8_t id[32];
	int64_t ts;
	uint8_t *bytes;
	size_t len;
} rec;

typedef struct sink {
	rec *v;
	size_t n, cap;
} sink;

static sl_err collect(void *ctx, sl_ikind kind, const uint8_t id[32], int64_t ts_ns, const uint8_t *bytes,
		      size_t len)
{
	sink *s = ctx;
	rec *r = DN_PUSH(s->v, s->n, s->cap);
	assert_non_null(r);
	*r = (rec){ .kind = kind, .ts = ts_ns, .len = len, .bytes = malloc(len) };
	memcpy(r->id, id, 32);
	memcpy(r->bytes, bytes, len);
	return SL_OK;
}

static void sink_release(sink *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].bytes);
	free(s->v);
	*s = (sink){ 0 };
}

static void same(const sink *a, const sink *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		assert_int_equal(a->v[i].kind, b->v[i].kind);
		assert_memory_equal(a->v[i].id, b->v[i].id, 32);
		assert_int_equal(a->v[i].ts, b->v[i].ts);
		assert_int_equal(a->v[i].len, b->v[i].len);
		assert_memory_equal(a->v[i].bytes, b->v[i].bytes, a->v[i].len);
	}
}

static const sl_devnet_config cfg = { .seed = "snapshot-test", .txs = 1500, .accounts = 16, .validators = 5 };

static sl_devnet *make(const sl_devnet_config *c)
{
	char err[256];
	sl_devnet *d = sl_devnet_new(c, err);
	if (!d)
		fail_msg("devnet: %s", err);
	return d;
}

static void manifest(const sl_devnet *d, sl_buf *m)
{
	sl_buf_init(m, 256u << 20);
	sl_devnet_manifest_write(d, m);
	assert_int_equal(m->err, SL_OK);
}

/* The live steps both sides take: various periods, as restarts with another interval make. */
static const uint64_t secs[] = { 2, 2, 3, 1, 61, 2, 2, 7, 2, 2, 2, 30, 5, 2, 2, 2, 1, 1, 2, 3 };

static void steps(sl_devnet *d, size_t from, size_t to, sink *s)
{
	for (size_t i = from; i < to; i++)
		assert_int_equal(sl_devnet_step(d, secs[i % SL_ARRAY_LEN(secs)], collect, s), SL_OK);
}

static void test_restore_continues(void **state)
{
	(void)state;
	sl_devnet *a = make(&cfg);
	sink hist = { 0 };
	sl_buf snap;
	sl_buf_init(&snap, 1u << 30);
	assert_int_equal(sl_devnet_snapshot(a, &snap), SL_ERR_CONFLICT); /* no history yet */
	sl_buf_reset(&snap);
	assert_int_equal(sl_devnet_history(a, collect, &hist), SL_OK);
	assert_int_equal(sl_devnet_snapshot(a, &snap), SL_OK);

	sl_devnet *b = make(&cfg);
	char why[256];
	assert_int_equal(sl_devnet_restore(b, snap.p, snap.len, why), SL_OK);
	sl_devnet_stats sa, sb;
	sl_devnet_stats_get(a, &sa);
	sl_devnet_stats_get(b, &sb);
	assert_memory_equal(sa.emitted, sb.emitted, sizeof sa.emitted);
	assert_true(sb.history_done);

	/* the same bytes from both, live steps and all */
	sink la = { 0 }, lb = { 0 };
	steps(a, 0, 40, &la);
	steps(b, 0, 40, &lb);
	assert_true(la.n > 40);
	same(&la, &lb);
	sl_buf ma, mb;
	manifest(a, &ma);
	manifest(b, &mb);
	assert_int_equal(ma.len, mb.len);
	assert_memory_equal(ma.p, mb.p, ma.len);

	/* a snapshot between live steps, restored into a third devnet, continues the same */
	sl_buf snap2;
	sl_buf_init(&snap2, 1u << 30);
	assert_int_equal(sl_devnet_snapshot(b, &snap2), SL_OK);
	sl_devnet *c = make(&cfg);
	assert_int_equal(sl_devnet_restore(c, snap2.p, snap2.len, why), SL_OK);
	sink la2 = { 0 }, lc = { 0 };
	steps(a, 40, 70, &la2);
	steps(c, 40, 70, &lc);
	same(&la2, &lc);
	/* and its own snapshot then is the writer's, byte for byte */
	sl_buf s3a, s3c;
	sl_buf_init(&s3a, 1u << 30);
	sl_buf_init(&s3c, 1u << 30);
	assert_int_equal(sl_devnet_snapshot(a, &s3a), SL_OK);
	assert_int_equal(sl_devnet_snapshot(c, &s3c), SL_OK);
	assert_int_equal(s3a.len, s3c.len);
	/* (struct padding is not compared: only the decoded state matters; see the manifest) */
	sl_buf mc;
	sl_buf_release(&ma);
	manifest(a, &ma);
	manifest(c, &mc);
	assert_int_equal(ma.len, mc.len);
	assert_memory_equal(ma.p, mc.p, ma.len);
	print_message("snapshot after a %zu-container history: %zu bytes\n", hist.n, snap.len);

	sl_buf_release(&s3a);
	sl_buf_release(&s3c);
	sl_buf_release(&mc);
	sl_buf_release(&ma);
	sl_buf_release(&mb);
	sl_buf_release(&snap2);
	sink_release(&la2);
	sink_release(&lc);
	sink_release(&la);
	sink_release(&lb);
	sink_release(&hist);
	sl_devnet_free(c);
	sl_devnet_free(b);
	sl_devnet_free(a);
	sl_buf_release(&snap);
}

static void test_refusals(void **state)
{
	(void)state;
	sl_devnet *a = make(&cfg);
	sink hist = { 0 };
	assert_int_equal(sl_devnet_history(a, collect, &hist), SL_OK);
	sl_buf snap;
	sl_buf_init(&snap, 1u << 30);
	assert_int_equal(sl_devnet_snapshot(a, &snap), SL_OK);
	char why[256];
	struct {
		size_t at;
		uint8_t flip;
		size_t len;
		sl_err want;
		const char *why;
	} cases[] = {
		{ 0, 1, 0, SL_ERR_INVALID, "not a devnet snapshot" },
		{ 11, 1, 0, SL_ERR_UNSUPPORTED, "version" },
		{ snap.len / 2, 0x10, 0, SL_ERR_INVALID, "checksum" },
		{ 0, 0, snap.len - 1, SL_ERR_INVALID, "header says" },
		{ 0, 0, 10, SL_ERR_INVALID, "not a devnet snapshot" },
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
		uint8_t *p = malloc(snap.len);
		memcpy(p, snap.p, snap.len);
		p[cases[i].at] ^= cases[i].flip;
		sl_devnet *b = make(&cfg);
		assert_int_equal(sl_devnet_restore(b, p, cases[i].len ? cases[i].len : snap.len, why),
				 cases[i].want);
		assert_non_null(strstr(why, cases[i].why));
		sl_devnet_free(b);
		free(p);
	}
	/* another configuration: the reason names what differs */
	sl_devnet_config other = cfg;
	other.seed = "another seed";
	sl_devnet *b = make(&other);
	assert_int_equal(sl_devnet_restore(b, snap.p, snap.len, why), SL_ERR_INVALID);
	assert_non_null(strstr(why, "seed 'snapshot-test'"));
	sl_devnet_free(b);
	other = cfg;
	other.accounts = 17;
	b = make(&other);
	assert_int_equal(sl_devnet_restore(b, snap.p, snap.len, why), SL_ERR_INVALID);
	assert_non_null(strstr(why, "accounts 16"));
	sl_devnet_free(b);
	sink_release(&hist);
	sl_buf_release(&snap);
	sl_devnet_free(a);
}

/* ---- proposers ---- */

static void check_proposers(const sl_devnet_config *c, const sink *s, const dn_world *w)
{
	int chain_of[SL_IDX__COUNT] = {
		[SL_IDX_P_BLOCK] = DN_P, [SL_IDX_C_BLOCK] = DN_C, [SL_IDX_X_BLOCK] = DN_X
	};
	uint64_t last_pch[DN_CHAINS] = { 0 }, last_time[DN_CHAINS] = { 0 }, nsigned[DN_CHAINS] = { 0 };
	uint64_t nunsigned[DN_CHAINS] = { 0 };
	bool forked[DN_CHAINS] = { false };
	uint8_t parent[DN_CHAINS][32];
	/* P heights and their blocks' times (an option's is its proposal's), from the P blocks themselves */
	uint64_t *ptime = calloc(s->n + 1, sizeof *ptime), np = 0, plast = 0;
	for (size_t i = 0; i < s->n; i++) {
		const rec *r = &s->v[i];
		if (r->kind == SL_IDX_X_TX || r->kind == SL_IDX_X_VTX)
			continue;
		int ch = chain_of[r->kind];
		sl_proposervm_block b;
		assert_int_equal(sl_proposervm_block_decode(r->bytes, r->len, &b, NULL), SL_OK);
		assert_memory_equal(b.id, r->id, 32);
		if (forked[ch] || b.kind == SL_PROPOSERVM_OPTION)
			assert_memory_equal(b.parent_id.p, parent[ch], 32);
		memcpy(parent[ch], b.id, 32);
		if (ch == DN_P && b.kind != SL_PROPOSERVM_OPTION)
			plast = (uint64_t)b.timestamp;
		if (ch == DN_P)
			ptime[++np] = plast;
		if (b.kind == SL_PROPOSERVM_OPTION)
			continue;
		uint64_t t = (uint64_t)b.timestamp;
		/* pChainHeight never falls, and the P-chain had reached it before the block's time */
		assert_true(b.pchain_height >= last_pch[ch]);
		if (ch == DN_P)
			assert_int_equal(b.pchain_height, np - 1);
		else
			assert_true(b.pchain_height == 0 || ptime[b.pchain_height] < t);
		bool want_signed = forked[ch] &&
				   (last_time[ch] >= w->params.durango_time || t - last_time[ch] < 30);
		if (b.has_proposer) {
			assert_true(want_signed);
			/* avalanchego's header, verified by OpenSSL with the certificate's key */
			uint8_t header[98] = { 0 };
			memcpy(header + 2, w->chain[ch].id, 32);
			memcpy(header + 34, b.parent_id.p, 32);
			memcpy(header + 66, b.id, 32);
			assert_int_equal(sl_staking_verify(b.certificate.p, b.certificate.len, header,
							   sizeof header, b.signature.p, b.signature.len),
					 SL_OK);
			uint8_t nid[20];
			sl_hash160(b.certificate.p, b.certificate.len, nid);
			assert_memory_equal(nid, b.proposer, 20);
			bool known = false;
			for (uint32_t k = 0; k < w->nnodes && !known; k++)
				known = !memcmp(w->nodes[k].node_id, nid, 20);
			assert_true(known);
			nsigned[ch]++;
		} else {
			assert_int_equal(b.signature.len, 0);
			nunsigned[ch]++;
		}
		forked[ch] = true;
		last_pch[ch] = b.pchain_height;
		last_time[ch] = t;
	}
	for (int ch = 0; ch < DN_CHAINS; ch++) {
		print_message("%s %.1s: %llu signed, %llu unsigned\n", sl_devnet_network_name(c->network),
			      "PXC" + ch, (unsigned long long)nsigned[ch], (unsigned long long)nunsigned[ch]);
		assert_true(nsigned[ch] > 10 && nunsigned[ch] > 0);
		assert_int_equal(w->props[ch].nsigned, nsigned[ch]);
		assert_int_equal(w->props[ch].nunsigned, nunsigned[ch]);
	}
	free(ptime);
}

static void test_proposers(void **state)
{
	(void)state;
	for (int net = SL_DEVNET_LOCAL; net <= SL_DEVNET_MAINNET; net++) {
		sl_devnet_config c = cfg;
		c.network = (sl_devnet_network)net;
		sl_devnet *d = make(&c);
		/* the ids the node is told before the devnet exists are the devnet's */
		char want[64], got[64];
		for (const char *ch = "XC"; *ch; ch++) {
			sl_devnet_chain_id_of(&c, *ch, got);
			assert_string_equal(got, sl_devnet_chain_id(d, *ch));
		}
		sl_devnet_chain_id_of(&c, 'A', got);
		sl_cb58_id(want, dn_world_of(d)->avax);
		assert_string_equal(got, want);
		sink s = { 0 };
		assert_int_equal(sl_devnet_history(d, collect, &s), SL_OK);
		steps(d, 0, 20, &s);
		check_proposers(&c, &s, dn_world_of(d));
		sink_release(&s);
		sl_devnet_free(d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_restore_continues),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_proposers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
