/*
 * C-chain atomic txs. No upstream atomic vectors are available offline, so
 * the txs are assembled field by field here; the test checks the layout
 * from both directions (encode -> decode -> same fields and bytes), the
 * id rule, both extData layouts, and truncation / bit-flip behaviour.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "codec/atomic.h"
#include "codec/json.h"
#include "codec/writer.h"
#include "codec_vectors.h"
#include "crypto/hash.h"
#include "util/arena.h"

#define ARENA_CAP (16u << 20)

static uint8_t c_chain[32], x_chain[32], avax[32], utxo_tx[32], evm_addr[20], sig[65], sigidx[4];

static void fill(void)
{
	for (int i = 0; i < 32; i++) {
		c_chain[i] = (uint8_t)(0xc0 + i);
		x_chain[i] = (uint8_t)(0x10 + i);
		avax[i] = (uint8_t)(0xa0 ^ i);
		utxo_tx[i] = (uint8_t)(0x77 * i);
	}
	for (int i = 0; i < 20; i++)
		evm_addr[i] = (uint8_t)(0x8d + i);
	for (int i = 0; i < 65; i++)
		sig[i] = (uint8_t)(i * 3);
	sig[64] = 1;
	sl_put_be32(sigidx, 0);
}

static void make_import(sl_atomic_tx *tx, sl_avax_in *in, sl_evm_output *out, sl_credential *cred)
{
	*in = (sl_avax_in){
		.tx_id = utxo_tx,
		.output_index = 3,
		.asset_id = avax,
		.in = { .type_id = 5, .fx_type_id = 5, .amount = 1000000000, .sig = { 1, sigidx } }
	};
	*out = (sl_evm_output){ .address = evm_addr, .amount = 999000000, .asset_id = avax };
	*cred = (sl_credential){ .type_id = 9, .nsigs = 1, .sigs = sig };
	*tx = (sl_atomic_tx){ .utx = { .type_id = SL_ATOMIC_IMPORT_TX,
				       .network_id = 1,
				       .blockchain_id = c_chain,
				       .chain = x_chain,
				       .nimported = 1,
				       .imported = in,
				       .nevm_outs = 1,
				       .evm_outs = out },
			      .ncreds = 1,
			      .creds = cred };
}

static void make_export(sl_atomic_tx *tx, sl_evm_input *in, sl_avax_out *out, sl_credential *cred)
{
	static uint8_t owner[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
	*in = (sl_evm_input){ .address = evm_addr, .amount = 5000000, .asset_id = avax, .nonce = 7 };
	*out = (sl_avax_out){
		.asset_id = avax,
		.out = { .type_id = 7,
			 .fx_type_id = 7,
			 .amount = 4000000,
			 .owners = { .locktime = 0, .threshold = 1, .naddrs = 1, .addrs = owner } }
	};
	*cred = (sl_credential){ .type_id = 9, .nsigs = 1, .sigs = sig };
	*tx = (sl_atomic_tx){ .utx = { .type_id = SL_ATOMIC_EXPORT_TX,
				       .network_id = 1,
				       .blockchain_id = c_chain,
				       .chain = x_chain,
				       .nevm_ins = 1,
				       .evm_ins = in,
				       .nexported = 1,
				       .exported = out },
			      .ncreds = 1,
			      .creds = cred };
}

static bool single_roundtrips(const uint8_t *p, size_t n)
{
	sl_arena a;
	sl_arena_init(&a, ARENA_CAP);
	sl_atomic_txs txs;
	bool ok = true;
	for (int batched = 0; batched < 2; batched++) {
		if (sl_atomic_extdata_decode(&a, p, n, batched, &txs, NULL) == SL_OK) {
			sl_buf b;
			sl_buf_init(&b, 4u << 20);
			ok = ok && sl_atomic_extdata_encode(&b, &txs) == SL_OK && b.len == n &&
			     (n == 0 || memcmp(b.p, p, n) == 0);
			sl_buf j;
			sl_buf_init(&j, 16u << 20);
			sl_jw w;
			sl_jw_init(&w, &j);
			sl_codec_ctx ctx = sl_codec_ctx_for(1, "C");
			sl_atomic_txs_write_json(&w, &txs, &ctx);
			ok = ok && j.err == SL_OK;
			sl_buf_release(&j);
			sl_buf_release(&b);
		}
	}
	sl_arena_release(&a);
	return ok;
}

static void test_single(void **state)
{
	fill();
	sl_atomic_tx tx;
	sl_avax_in in;
	sl_evm_output out;
	sl_credential cred;
	make_import(&tx, &in, &out, &cred);
	sl_buf b;
	sl_buf_init(&b, 1u << 20);
	assert_int_equal(sl_atomic_tx_encode(&b, &tx), SL_OK);
	/* 2 version + 4 type + 4 net + 32 + 32 + (4 + 84 + 4) inputs + (4 + 60) outs + (4 + 4 + 4 + 65) creds */
	assert_int_equal(b.len,
			 2 + 4 + 4 + 32 + 32 + 4 + 32 + 4 + 32 + 4 + 8 + 4 + 4 + 4 + 60 + 4 + 4 + 4 + 65);

	sl_arena a;
	sl_arena_init(&a, ARENA_CAP);
	sl_atomic_tx got;
	sl_err_detail err;
	assert_int_equal(sl_atomic_tx_decode(&a, b.p, b.len, &got, &err), SL_OK);
	assert_int_equal(got.utx.type_id, SL_ATOMIC_IMPORT_TX);
	assert_memory_equal(got.utx.chain, x_chain, 32);
	assert_int_equal(got.utx.nimported, 1);
	assert_int_equal(got.utx.imported[0].output_index, 3);
	assert_int_equal(got.utx.imported[0].in.amount, 1000000000);
	assert_int_equal(got.utx.nevm_outs, 1);
	assert_memory_equal(got.utx.evm_outs[0].address, evm_addr, 20);
	assert_int_equal(got.utx.evm_outs[0].amount, 999000000);
	assert_int_equal(got.ncreds, 1);
	uint8_t id[32];
	sl_sha256(b.p, b.len, id);
	assert_memory_equal(got.id, id, 32);

	/* the pre-AP5 extData is the same bytes */
	sl_atomic_txs txs;
	assert_int_equal(sl_atomic_extdata_decode(&a, b.p, b.len, false, &txs, NULL), SL_OK);
	assert_int_equal(txs.ntxs, 1);
	assert_memory_equal(txs.txs[0].id, id, 32);
	/* ... and is not a valid batch */
	assert_int_not_equal(sl_atomic_extdata_decode(&a, b.p, b.len, true, &txs, NULL), SL_OK);
	assert_int_equal(vec_mutate(b.p, b.len, single_roundtrips), 0);
	sl_arena_release(&a);
	sl_buf_release(&b);
}

static void test_batch(void **state)
{
	fill();
	sl_atomic_tx txs_in[2];
	sl_avax_in in;
	sl_evm_output out;
	sl_evm_input ein;
	sl_avax_out aout;
	sl_credential c1, c2;
	make_import(&txs_in[0], &in, &out, &c1);
	make_export(&txs_in[1], &ein, &aout, &c2);
	sl_atomic_txs batch = { .batched = true, .ntxs = 2, .txs = txs_in };
	sl_buf b;
	sl_buf_init(&b, 1u << 20);
	assert_int_equal(sl_atomic_extdata_encode(&b, &batch), SL_OK);

	sl_arena a;
	sl_arena_init(&a, ARENA_CAP);
	sl_atomic_txs got;
	assert_int_equal(sl_atomic_extdata_decode(&a, b.p, b.len, true, &got, NULL), SL_OK);
	assert_int_equal(got.ntxs, 2);
	assert_int_equal(got.txs[1].utx.type_id, SL_ATOMIC_EXPORT_TX);
	assert_int_equal(got.txs[1].utx.evm_ins[0].nonce, 7);
	assert_int_equal(got.txs[1].utx.exported[0].out.amount, 4000000);
	/* each id is sha256(00 00 | the tx's own bytes) */
	for (int i = 0; i < 2; i++) {
		sl_buf one;
		sl_buf_init(&one, 1u << 20);
		assert_int_equal(sl_atomic_tx_encode(&one, &txs_in[i]), SL_OK);
		uint8_t id[32];
		sl_sha256(one.p, one.len, id);
		assert_memory_equal(got.txs[i].id, id, 32);
		sl_buf_release(&one);
	}
	/* an empty batch is invalid; empty extData is no txs */
	const uint8_t empty[] = { 0, 0, 0, 0, 0, 0 };
	sl_err_detail err;
	assert_int_equal(sl_atomic_extdata_decode(&a, empty, sizeof empty, true, &got, &err), SL_ERR_INVALID);
	assert_int_equal(err.offset, 2);
	assert_int_equal(sl_atomic_extdata_decode(&a, empty, 0, true, &got, NULL), SL_OK);
	assert_int_equal(got.ntxs, 0);

	/* JSON shape */
	sl_buf j;
	sl_buf_init(&j, 1u << 20);
	sl_jw w;
	sl_jw_init(&w, &j);
	sl_codec_ctx ctx = sl_codec_ctx_for(1, "C");
	assert_int_equal(sl_atomic_extdata_decode(&a, b.p, b.len, true, &got, NULL), SL_OK);
	sl_atomic_txs_write_json(&w, &got, &ctx);
	assert_int_equal(j.err, SL_OK);
	json_t *v = json_loads(sl_buf_str(&j), 0, NULL);
	assert_non_null(v);
	json_t *exp = json_object_get(json_array_get(v, 1), "unsignedTx");
	assert_non_null(json_object_get(exp, "destinationChain"));
	assert_int_equal(json_integer_value(
				 json_object_get(json_array_get(json_object_get(exp, "inputs"), 0), "nonce")),
			 7);
	json_t *o = json_object_get(json_array_get(json_object_get(exp, "exportedOutputs"), 0), "output");
	assert_string_equal(json_string_value(json_array_get(json_object_get(o, "addresses"), 0)),
			    "C-avax1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc52qphlp");
	json_decref(v);
	sl_buf_release(&j);

	assert_int_equal(vec_mutate(b.p, b.len, single_roundtrips), 0);
	sl_arena_release(&a);
	sl_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single),
		cmocka_unit_test(test_batch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
