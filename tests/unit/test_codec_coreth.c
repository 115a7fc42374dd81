/* Unit tests for codec/rlp and codec/coreth: the upstream block vectors decode,
 * hash and re-encode byte for byte; a synthetic block with every header field
 * and every tx type round-trips and its senders recover; bad bytes fail. */
#include "vec_evm.h"

#include "codec/coreth.h"
#include "codec/json_evm.h"
#include "codec/rlp.h"
#include "crypto/hash.h"
#include "crypto/secp.h"
#include "util/buf.h"

static int try_block(const uint8_t *p, size_t n, void *ctx)
{
	(void)ctx;
	sl_arena a;
	sl_arena_init(&a, 16u << 20);
	sl_coreth_block b;
	sl_err_detail d;
	sl_err e = sl_coreth_block_decode(p, n, &a, &b, &d);
	if (e == SL_OK) {
		sl_buf out;
		sl_buf_init(&out, 8u << 20);
		assert_int_equal(sl_coreth_block_encode(&b, &out), SL_OK);
		assert_int_equal(out.len, n);
		assert_memory_equal(out.p, p, n);
		sl_buf_release(&out);
		for (uint32_t i = 0; i < b.ntx; i++) {
			uint8_t who[20];
			sl_err se = sl_evm_tx_sender(&b.txs[i], who);
			assert_true(se == SL_OK || se == SL_ERR_INVALID || se == SL_ERR_CHECKSUM);
		}
	} else {
		assert_true(d.offset <= n);
		assert_non_null(d.msg);
	}
	sl_arena_release(&a);
	return e == SL_OK ? 0 : 1;
}

static int field_by_json(const char *name)
{
	for (int i = 0; i < SL_CORETH_HFIELDS; i++)
		if (strcmp(sl_coreth_header_fields[i].json, name) == 0)
			return i;
	return -1;
}

static void check_vector(json_t *v)
{
	size_t n;
	uint8_t *p = vec_unhex(vec_str(v, "hex"), &n);
	json_t *dec = json_object_get(v, "decoded");
	sl_arena a;
	sl_arena_init(&a, 1 << 20);
	sl_coreth_block b;
	sl_err_detail d;
	if (sl_coreth_block_decode(p, n, &a, &b, &d) != SL_OK)
		fail_msg("%s: %s at %zu", vec_str(v, "description"), d.msg, d.offset);

	vec_assert_hex(b.header.hash, 32, vec_str(dec, "hash"));
	uint8_t h[32];
	sl_keccak256(b.header.rlp.p, b.header.rlp.len, h);
	assert_memory_equal(h, b.header.hash, 32);

	/* every header field the reference decoder reported, by its JSON-RPC name */
	json_t *hdr = json_object_get(dec, "header");
	const char *key;
	json_t *val;
	json_object_foreach(hdr, key, val)
	{
		int f = field_by_json(key);
		if (f < 0)
			fail_msg("unknown header field %s", key);
		assert_true((unsigned)f < b.header.nfields);
		if (json_is_string(val)) {
			vec_assert_hex(b.header.f[f].p, b.header.f[f].len, json_string_value(val));
		} else {
			uint64_t x;
			assert_true(sl_coreth_header_u64(&b.header, (unsigned)f, &x));
			assert_int_equal(x, vec_u64(val));
		}
	}
	assert_int_equal(b.header.nfields, json_object_size(hdr));
	json_t *up = json_object_get(v, "expected_upstream_checks");
	assert_int_equal(b.header.number,
			 vec_u64(json_object_get(up, "BlockNumber") ?: json_object_get(hdr, "number")));

	json_t *txh = json_object_get(dec, "txHashes");
	assert_int_equal(b.ntx, json_array_size(txh));
	for (uint32_t i = 0; i < b.ntx; i++) {
		vec_assert_hex(b.txs[i].hash, 32, json_string_value(json_array_get(txh, i)));
		uint8_t who[20];
		assert_int_equal(sl_evm_tx_sender(&b.txs[i], who), SL_OK);
	}
	assert_int_equal(b.nuncles, json_integer_value(json_object_get(dec, "uncles")));
	assert_int_equal(b.version, json_integer_value(json_object_get(dec, "version")));
	vec_assert_hex(b.ext_data.p, b.ext_data.len, vec_str(dec, "extData"));
	sl_coreth_ext_data_hash(b.ext_data, h);
	vec_assert_hex(h, 32, vec_str(dec, "extDataHashComputed"));

	sl_buf out;
	sl_buf_init(&out, 1 << 20);
	assert_int_equal(sl_coreth_block_encode(&b, &out), SL_OK);
	assert_int_equal(out.len, n);
	assert_memory_equal(out.p, p, n);
	sl_buf_release(&out);

	/* JSON-RPC shape: hashes and byte strings as given, numbers as quantities */
	sl_buf jb;
	sl_buf_init(&jb, 1 << 20);
	sl_jw w;
	sl_jw_init(&w, &jb);
	sl_coreth_block_write_json(&w, &b);
	json_t *j = vec_json_of(&jb);
	assert_string_equal(json_string_value(json_object_get(j, "hash")), vec_str(dec, "hash"));
	json_object_foreach(hdr, key, val)
	{
		json_t *got = json_object_get(j, key);
		assert_non_null(got);
		if (json_is_string(val)) {
			assert_string_equal(json_string_value(got), json_string_value(val));
		} else {
			char q[32];
			snprintf(q, sizeof q, "0x%llx", (unsigned long long)vec_u64(val));
			assert_string_equal(json_string_value(got), q);
		}
	}
	json_t *jtx = json_object_get(j, "transactions");
	assert_int_equal(json_array_size(jtx), b.ntx);
	for (uint32_t i = 0; i < b.ntx; i++) {
		json_t *t = json_array_get(jtx, i);
		assert_string_equal(json_string_value(json_object_get(t, "hash")),
				    json_string_value(json_array_get(txh, i)));
		assert_true(json_is_string(json_object_get(t, "from")));
		assert_string_equal(json_string_value(json_object_get(t, "blockHash")), vec_str(dec, "hash"));
	}
	json_decref(j);
	sl_buf_release(&jb);
	sl_arena_release(&a);

	vec_mutate(p, n, try_block, NULL, true);
	free(p);
}

static void test_upstream_blocks(void **state)
{
	(void)state;
	json_t *root = vec_load("cchain-blocks.json");
	json_t *vs = json_object_get(root, "vectors");
	size_t i;
	json_t *v;
	assert_true(json_array_size(vs) >= 2);
	json_array_foreach(vs, i, v) check_vector(v);
	json_decref(root);
}

/*
 * geth's TestEIP1559BlockEncoding attaches fixed signatures (no key given):
 * both must recover (legacy unprotected, and dynamic-fee with chain id 1).
 */
static void test_upstream_senders(void **state)
{
	(void)state;
	json_t *root = vec_load("cchain-blocks.json");
	json_t *v = json_array_get(json_object_get(root, "vectors"), 1);
	size_t n;
	uint8_t *p = vec_unhex(vec_str(v, "hex"), &n);
	sl_arena a;
	sl_arena_init(&a, 1 << 20);
	sl_coreth_block b;
	assert_int_equal(sl_coreth_block_decode(p, n, &a, &b, NULL), SL_OK);
	assert_int_equal(b.ntx, 2);
	assert_int_equal(b.txs[0].type, 0);
	assert_int_equal(b.txs[1].type, 2);
	uint64_t cid;
	assert_false(sl_evm_tx_chain_id(&b.txs[0], &cid)); /* v = 27/28: not EIP-155 */
	assert_true(sl_evm_tx_chain_id(&b.txs[1], &cid));
	assert_int_equal(cid, 1);
	uint8_t who[2][20];
	for (int i = 0; i < 2; i++)
		assert_int_equal(sl_evm_tx_sender(&b.txs[i], who[i]), SL_OK);
	sl_arena_release(&a);
	free(p);
	json_decref(root);
}

/* The worked example of EIP-155 (chain id 1, key 0x4646…46). */
static void test_eip155_example(void **state)
{
	(void)state;
	static const char *raw =
		"f86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080"
		"25a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761a"
		"ecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83";
	size_t n;
	uint8_t *p = vec_unhex(raw, &n);
	sl_evm_tx tx;
	assert_int_equal(sl_evm_tx_decode(p, n, &tx, NULL), SL_OK);
	assert_int_equal(tx.type, 0);
	assert_int_equal(tx.nonce, 9);
	assert_int_equal(tx.gas, 21000);
	uint64_t cid;
	assert_true(sl_evm_tx_chain_id(&tx, &cid));
	assert_int_equal(cid, 1);
	uint8_t h[32], who[20];
	assert_int_equal(sl_evm_tx_signing_hash(&tx, h), SL_OK);
	vec_assert_hex(h, 32, "daf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53");
	assert_int_equal(sl_evm_tx_sender(&tx, who), SL_OK);
	vec_assert_hex(who, 20, "9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f");
	sl_buf out;
	sl_buf_init(&out, 1024);
	sl_evm_tx_write(&out, &tx);
	assert_int_equal(out.len, n);
	assert_memory_equal(out.p, p, n);
	sl_buf_release(&out);
	free(p);
}

/* geth's signedEip2718Tx: an access-list tx with a known signing hash. */
static void test_typed_signing_hash(void **state)
{
	(void)state;
	static const char *raw =
		"01f8630103018261a894b94f5374fce5edbc8e2a8697c15331677e6ebf0b0a825544c001a0c9519f4f2b3033"
		"5884581971573fadf60c6204f59a911df35ee8a540456b2660a032f1e8e2c5dd761f9e4f88f41c8310aeab"
		"a26a8bfcdacfedfa12ec3862d37521";
	size_t n;
	uint8_t *p = vec_unhex(raw, &n);
	sl_evm_tx tx;
	assert_int_equal(sl_evm_tx_decode(p, n, &tx, NULL), SL_OK);
	assert_int_equal(tx.type, 1);
	assert_int_equal(tx.nonce, 3);
	assert_int_equal(tx.gas, 25000);
	uint8_t h[32], who[20], y;
	assert_int_equal(sl_evm_tx_signing_hash(&tx, h), SL_OK);
	vec_assert_hex(h, 32, "49b486f0ec0a60dfbbca2d30cb07c9e8ffb2a2ff41f29a1ab6737475f6ff69f3");
	assert_true(sl_evm_tx_y_parity(&tx, &y));
	assert_int_equal(y, 1);
	assert_int_equal(sl_evm_tx_sender(&tx, who), SL_OK);
	sl_buf out;
	sl_buf_init(&out, 1024);
	sl_evm_tx_write(&out, &tx);
	assert_int_equal(out.len, n);
	assert_memory_equal(out.p, p, n);
	sl_buf_release(&out);
	free(p);
}

/* ---- a synthetic block: every header field, every tx type ------------- */

static uint8_t g_key[32];

static void put_u64be(uint8_t *store, uint64_t v, sl_span *s)
{
	sl_put_be64(store, v);
	size_t i = 0;
	while (i < 8 && store[i] == 0)
		i++;
	*s = sl_span_of(store + i, 8 - i);
}

/* Sign tx with g_key, storing v/r/s in `sig` (65 + 8 bytes of scratch). */
static void sign_tx(sl_evm_tx *tx, uint8_t *sig, uint64_t legacy_chain)
{
	sl_evm_tx_layout(tx);
	/* the signing hash ignores v, r, s, but needs a well-formed v to pick the scheme */
	uint8_t vbuf[8];
	if (tx->type == 0)
		put_u64be(vbuf, legacy_chain ? legacy_chain * 2 + 35 : 27, &tx->f[SL_TX_V]);
	else
		tx->f[SL_TX_V] = sl_span_of(NULL, 0);
	uint8_t h[32];
	assert_int_equal(sl_evm_tx_signing_hash(tx, h), SL_OK);
	assert_true(sl_secp_sign(g_key, h, sig));
	uint8_t y = sig[64];
	if (tx->type == 0)
		put_u64be(sig + 65, legacy_chain ? legacy_chain * 2 + 35 + y : 27u + y, &tx->f[SL_TX_V]);
	else
		put_u64be(sig + 65, y, &tx->f[SL_TX_V]);
	sl_span r = sl_span_of(sig, 32), s = sl_span_of(sig + 32, 32);
	while (r.len && r.p[0] == 0)
		r.p++, r.len--;
	while (s.len && s.p[0] == 0)
		s.p++, s.len--;
	tx->f[SL_TX_R] = r;
	tx->f[SL_TX_S] = s;
}

static void test_synthetic_block(void **state)
{
	(void)state;
	memset(g_key, 0x11, 32);
	uint8_t from[20];
	assert_true(sl_secp_address(g_key, from));

	static uint8_t z20[20], bloom[256], nonce8[8], addr[20], hashes[5][32];
	static uint8_t nums[40][8];
	memset(addr, 0xaa, 20);
	for (int i = 0; i < 5; i++)
		memset(hashes[i], 0x30 + i, 32);
	bloom[7] = 0x42;
	nonce8[7] = 1;

	sl_coreth_header hd = { .nfields = SL_CORETH_HFIELDS };
	for (int i = 0; i < SL_CORETH_HFIELDS; i++) {
		switch (sl_coreth_header_fields[i].kind) {
		case SL_CF_HASH:
		case SL_CF_OPT_HASH: hd.f[i] = sl_span_of(hashes[i % 5], 32); break;
		case SL_CF_ADDRESS: hd.f[i] = sl_span_of(z20, 20); break;
		case SL_CF_BLOOM: hd.f[i] = sl_span_of(bloom, 256); break;
		case SL_CF_NONCE: hd.f[i] = sl_span_of(nonce8, 8); break;
		case SL_CF_BYTES:
			hd.f[i] = sl_span_str(
				"snowline extra data that is longer than fifty-five bytes, so long form");
			break;
		case SL_CF_BIG:
		case SL_CF_U64:
			put_u64be(nums[i], i == SL_CH_TIME_MS ? 1763567700123ull : (uint64_t)i * 1000 + 7,
				  &hd.f[i]);
			break;
		}
	}
	hd.f[SL_CH_BLOB_GAS_USED] = sl_span_of(NULL, 0); /* zero */

	/* access list [[addr, [k0, k1]]], blob hashes [h0, h1], auth list [[1, addr, 5, 1, r, s]] */
	sl_buf al, bh, au;
	sl_buf_init(&al, 4096);
	sl_buf_init(&bh, 4096);
	sl_buf_init(&au, 4096);
	size_t s0 = sl_rlp_list_begin(&al), s1 = sl_rlp_list_begin(&al);
	sl_rlp_put_str(&al, addr, 20);
	size_t s2 = sl_rlp_list_begin(&al);
	sl_rlp_put_str(&al, hashes[0], 32);
	sl_rlp_put_str(&al, hashes[1], 32);
	sl_rlp_list_end(&al, s2);
	sl_rlp_list_end(&al, s1);
	sl_rlp_list_end(&al, s0);
	s0 = sl_rlp_list_begin(&bh);
	sl_rlp_put_str(&bh, hashes[2], 32);
	sl_rlp_put_str(&bh, hashes[3], 32);
	sl_rlp_list_end(&bh, s0);
	s0 = sl_rlp_list_begin(&au);
	s1 = sl_rlp_list_begin(&au);
	sl_rlp_put_u64(&au, 43114);
	sl_rlp_put_str(&au, addr, 20);
	sl_rlp_put_u64(&au, 5);
	sl_rlp_put_u64(&au, 1);
	sl_rlp_put_str(&au, hashes[4], 32);
	sl_rlp_put_str(&au, hashes[4], 31);
	sl_rlp_list_end(&au, s1);
	sl_rlp_list_end(&au, s0);

	enum { NTX = 6 };
	sl_evm_tx txs[NTX];
	static uint8_t sigs[NTX][80], vals[NTX][8][8];
	static const uint8_t types[NTX] = { 0, 0, 1, 2, 3, 4 };
	for (int i = 0; i < NTX; i++) {
		sl_evm_tx *t = &txs[i];
		*t = (sl_evm_tx){ .type = types[i] };
		put_u64be(vals[i][0], 43114, &t->f[SL_TX_CHAIN_ID]);
		put_u64be(vals[i][1], (uint64_t)i, &t->f[SL_TX_NONCE]);
		put_u64be(vals[i][2], 25000000000ull, &t->f[SL_TX_GAS_PRICE]);
		put_u64be(vals[i][3], 2000000000ull, &t->f[SL_TX_TIP_CAP]);
		put_u64be(vals[i][4], 30000000000ull, &t->f[SL_TX_FEE_CAP]);
		put_u64be(vals[i][5], 21000 + (uint64_t)i, &t->f[SL_TX_GAS]);
		put_u64be(vals[i][6], 1000000000000000000ull, &t->f[SL_TX_VALUE]);
		put_u64be(vals[i][7], 1, &t->f[SL_TX_BLOB_FEE_CAP]);
		t->f[SL_TX_TO] = i == 2 ? sl_span_of(NULL, 0)
					: sl_span_of(addr, 20); /* tx 2 creates a contract */
		t->f[SL_TX_DATA] = i % 2 ? sl_span_str("\x01\x02\x03") : sl_span_of(NULL, 0);
		t->f[SL_TX_ACCESS_LIST] = sl_span_of(al.p, al.len);
		t->f[SL_TX_BLOB_HASHES] = sl_span_of(bh.p, bh.len);
		t->f[SL_TX_AUTH_LIST] = sl_span_of(au.p, au.len);
		sign_tx(t, sigs[i], i == 0 ? 0 : 43114); /* tx 0: pre-EIP-155 */
	}
	static uint8_t ext[300];
	for (size_t i = 0; i < sizeof ext; i++)
		ext[i] = (uint8_t)i;
	sl_coreth_block blk = {
		.header = hd, .ntx = NTX, .txs = txs, .version = 0, .ext_data = sl_span_of(ext, sizeof ext)
	};

	sl_buf enc;
	sl_buf_init(&enc, 1 << 20);
	assert_int_equal(sl_coreth_block_encode(&blk, &enc), SL_OK);

	sl_arena a;
	sl_arena_init(&a, 1 << 20);
	sl_coreth_block b;
	sl_err_detail d;
	if (sl_coreth_block_decode(enc.p, enc.len, &a, &b, &d) != SL_OK)
		fail_msg("synthetic block: %s at %zu", d.msg, d.offset);
	assert_int_equal(b.header.nfields, SL_CORETH_HFIELDS);
	uint64_t ms;
	assert_true(sl_coreth_header_u64(&b.header, SL_CH_TIME_MS, &ms));
	assert_int_equal(ms, 1763567700123ull);
	assert_int_equal(b.ntx, NTX);
	assert_int_equal(b.ext_data.len, sizeof ext);
	for (int i = 0; i < NTX; i++) {
		assert_int_equal(b.txs[i].type, types[i]);
		assert_int_equal(b.txs[i].nonce, (uint64_t)i);
		uint8_t who[20];
		assert_int_equal(sl_evm_tx_sender(&b.txs[i], who), SL_OK);
		assert_memory_equal(who, from, 20);
		/* the hash is over the canonical bytes, which decode on their own */
		sl_evm_tx one;
		assert_int_equal(sl_evm_tx_decode(b.txs[i].raw.p, b.txs[i].raw.len, &one, NULL), SL_OK);
		assert_memory_equal(one.hash, b.txs[i].hash, 32);
		uint64_t cid;
		assert_int_equal(sl_evm_tx_chain_id(&one, &cid), i != 0);
		if (i)
			assert_int_equal(cid, 43114);
	}
	/* header alone decodes to the same hash */
	sl_coreth_header h2;
	assert_int_equal(sl_coreth_header_decode(b.header.rlp.p, b.header.rlp.len, &h2, NULL), SL_OK);
	assert_memory_equal(h2.hash, b.header.hash, 32);

	sl_buf re;
	sl_buf_init(&re, 1 << 20);
	assert_int_equal(sl_coreth_block_encode(&b, &re), SL_OK);
	assert_int_equal(re.len, enc.len);
	assert_memory_equal(re.p, enc.p, enc.len);
	sl_buf_release(&re);
	sl_arena_release(&a);

	vec_mutate(enc.p, enc.len, try_block, NULL, true);

	/* a tampered signature recovers someone else (or no one) */
	txs[3].f[SL_TX_S] = txs[3].f[SL_TX_R];
	uint8_t who[20];
	sl_err e = sl_evm_tx_sender(&txs[3], who);
	assert_true(e != SL_OK || memcmp(who, from, 20) != 0);

	sl_buf_release(&enc);
	sl_buf_release(&al);
	sl_buf_release(&bh);
	sl_buf_release(&au);
}

static void test_rlp_canonical(void **state)
{
	(void)state;
	static const struct {
		const char *hex;
		sl_err want;
	} cases[] = {
		{ "80", SL_OK },
		{ "7f", SL_OK },
		{ "8100", SL_ERR_INVALID }, /* single byte < 0x80 in long form */
		{ "817f", SL_ERR_INVALID },
		{ "8180", SL_OK },
		{ "b800", SL_ERR_INVALID }, /* leading zero in the length */
		{ "b837"
		  "00",
		  SL_ERR_INVALID }, /* long form for 55 bytes */
		{ "c0", SL_OK },
		{ "c180", SL_OK },
		{ "c2", SL_ERR_TRUNCATED },
		{ "f800", SL_ERR_INVALID },
		{ "c0c0", SL_ERR_TRAILING },
		{ "", SL_ERR_TRUNCATED },
		{ "bf0100000000000000", SL_ERR_TRUNCATED }, /* huge declared length */
		{ "ffffffffffffffffff", SL_ERR_TRUNCATED },
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
		size_t n;
		uint8_t *p = vec_unhex(cases[i].hex, &n);
		sl_rlp_item it;
		sl_err_detail d;
		sl_err e = sl_rlp_decode(p, n, &it, &d);
		if (e != cases[i].want)
			fail_msg("case %s: got %d want %d (%s)", cases[i].hex, e, cases[i].want,
				 d.msg ? d.msg : "");
		free(p);
	}
	/* integers: leading zeros are not canonical */
	uint8_t li[] = { 0x82, 0x00, 0x01 };
	sl_reader r;
	sl_rd_init(&r, li, sizeof li);
	(void)sl_rlp_uint(&r, 8);
	assert_int_equal(r.err.code, SL_ERR_INVALID);
	/* writer: lengths around the short/long boundary round-trip */
	for (size_t len = 0; len < 300; len += 1 + len / 8) {
		uint8_t data[300];
		memset(data, 0x99, sizeof data);
		sl_buf b;
		sl_buf_init(&b, 4096);
		size_t st = sl_rlp_list_begin(&b);
		sl_rlp_put_str(&b, data, len);
		sl_rlp_list_end(&b, st);
		sl_rlp_item it;
		assert_int_equal(sl_rlp_decode(b.p, b.len, &it, NULL), SL_OK);
		assert_true(it.is_list);
		sl_buf_release(&b);
	}
}

static void test_bad_blocks(void **state)
{
	(void)state;
	sl_arena a;
	sl_arena_init(&a, 1 << 20);
	sl_coreth_block b;
	sl_err_detail d;
	/* a list of five empty things: header too short */
	uint8_t five[] = { 0xc5, 0xc0, 0xc0, 0xc0, 0x80, 0x80 };
	assert_int_not_equal(sl_coreth_block_decode(five, sizeof five, &a, &b, &d), SL_OK);
	assert_int_equal(d.offset, 1);
	/* typed tx with an unknown type */
	uint8_t t9[] = { 0x09, 0xc0 };
	sl_evm_tx tx;
	assert_int_equal(sl_evm_tx_decode(t9, sizeof t9, &tx, &d), SL_ERR_UNSUPPORTED);
	/* type-2 tx with too few fields */
	uint8_t t2[] = { 0x02, 0xc1, 0x01 };
	assert_int_not_equal(sl_evm_tx_decode(t2, sizeof t2, &tx, &d), SL_OK);
	sl_arena_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rlp_canonical),	   cmocka_unit_test(test_upstream_blocks),
		cmocka_unit_test(test_upstream_senders),   cmocka_unit_test(test_eip155_example),
		cmocka_unit_test(test_typed_signing_hash), cmocka_unit_test(test_synthetic_block),
		cmocka_unit_test(test_bad_blocks),
	};
	return cmocka_run_group_tests_name("codec_coreth", tests, NULL, NULL);
}
