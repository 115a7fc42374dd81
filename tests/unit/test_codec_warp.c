/* Unit tests for codec/warp: upstream L1 messages, conversion data and signed
 * messages decode, reproduce their ids and fields, re-encode byte for byte;
 * truncations and bit flips fail cleanly. */
#include "vec_evm.h"

#include "codec/json_evm.h"
#include "codec/warp.h"
#include "crypto/hash.h"
#include "util/buf.h"

static void node_id_text(sl_span id, char *out, size_t n)
{
	sl_buf b;
	sl_buf_init(&b, 256);
	sl_buf_adds(&b, "NodeID-");
	sl_cb58_write(&b, id.p, id.len);
	snprintf(out, n, "%s", sl_buf_str(&b));
	sl_buf_release(&b);
}

/* ---- decoders run over arbitrary bytes: decode, re-encode, compare ---- */

static int try_l1(const uint8_t *p, size_t n, void *ctx)
{
	(void)ctx;
	sl_warp_l1_msg m;
	sl_err_detail d;
	if (sl_warp_l1_decode(p, n, &m, &d) != SL_OK) {
		assert_true(d.offset <= n);
		return 1;
	}
	sl_buf out;
	sl_buf_init(&out, 1 << 22);
	assert_int_equal(sl_warp_l1_encode(&m, &out), SL_OK);
	assert_int_equal(out.len, n);
	assert_memory_equal(out.p, p, n);
	sl_buf_release(&out);
	return 0;
}

static int try_conversion(const uint8_t *p, size_t n, void *ctx)
{
	(void)ctx;
	sl_arena a;
	sl_arena_init(&a, 1 << 20);
	sl_warp_conversion c;
	sl_err_detail d;
	int rc = 1;
	if (sl_warp_conversion_decode(p, n, &a, &c, &d) == SL_OK) {
		sl_buf out;
		sl_buf_init(&out, 1 << 22);
		assert_int_equal(sl_warp_conversion_encode(&c, &out), SL_OK);
		assert_int_equal(out.len, n);
		assert_memory_equal(out.p, p, n);
		sl_buf_release(&out);
		rc = 0;
	} else {
		assert_true(d.offset <= n);
	}
	sl_arena_release(&a);
	return rc;
}

static int try_message(const uint8_t *p, size_t n, void *ctx)
{
	(void)ctx;
	sl_warp_message m;
	sl_err_detail d;
	if (sl_warp_message_decode(p, n, &m, &d) != SL_OK) {
		assert_true(d.offset <= n);
		return 1;
	}
	sl_buf out;
	sl_buf_init(&out, 1 << 22);
	assert_int_equal(sl_warp_message_encode(&m, &out), SL_OK);
	assert_int_equal(out.len, n);
	assert_memory_equal(out.p, p, n);
	sl_buf_release(&out);
	/* the payload layers must not crash either */
	sl_warp_payload pl;
	if (sl_warp_payload_decode(m.msg.payload.p, m.msg.payload.len, &pl, NULL) == SL_OK &&
	    pl.type == SL_WARP_PAYLOAD_ADDRESSED_CALL)
		(void)try_l1(pl.payload.p, pl.payload.len, NULL);
	return 0;
}

static void check_l1_fields(const sl_warp_l1_msg *m, json_t *dec)
{
	char buf[128];
	assert_string_equal(sl_warp_l1_type_name(m->type), vec_str(dec, "type"));
	switch (m->type) {
	case SL_WARP_L1_SUBNET_CONVERSION: vec_assert_cb58(m->conversion_id.p, vec_str(dec, "id")); break;
	case SL_WARP_L1_REGISTER_VALIDATOR: {
		vec_assert_cb58(m->subnet_id.p, vec_str(dec, "subnetID"));
		node_id_text(m->node_id, buf, sizeof buf);
		assert_string_equal(buf, vec_str(dec, "nodeID"));
		vec_assert_hex(m->bls_public_key.p, m->bls_public_key.len, vec_str(dec, "blsPublicKey"));
		assert_int_equal(m->expiry, vec_u64(json_object_get(dec, "expiry")));
		assert_int_equal(m->weight, vec_u64(json_object_get(dec, "weight")));
		json_t *ro = json_object_get(dec, "remainingBalanceOwner"),
		       *dow = json_object_get(dec, "disableOwner");
		assert_int_equal(m->remaining_balance_owner.threshold,
				 vec_u64(json_object_get(ro, "threshold")));
		assert_int_equal(m->remaining_balance_owner.naddrs,
				 json_array_size(json_object_get(ro, "addresses")));
		assert_int_equal(m->disable_owner.threshold, vec_u64(json_object_get(dow, "threshold")));
		assert_int_equal(m->disable_owner.naddrs, json_array_size(json_object_get(dow, "addresses")));
		/* validationID = sha256(message bytes) */
		vec_assert_cb58(m->id, vec_str(dec, "validationID"));
		break;
	}
	case SL_WARP_L1_VALIDATOR_REGISTRATION:
		vec_assert_cb58(m->validation_id.p, vec_str(dec, "validationID"));
		assert_int_equal(m->registered, json_is_true(json_object_get(dec, "registered")));
		break;
	case SL_WARP_L1_VALIDATOR_WEIGHT:
		vec_assert_cb58(m->validation_id.p, vec_str(dec, "validationID"));
		assert_int_equal(m->nonce, vec_u64(json_object_get(dec, "nonce")));
		assert_int_equal(m->weight, vec_u64(json_object_get(dec, "weight")));
		break;
	}
}

static void check_l1(json_t *v)
{
	size_t n;
	uint8_t *p = vec_unhex(vec_str(v, "hex"), &n);
	sl_warp_l1_msg m;
	sl_err_detail d;
	if (sl_warp_l1_decode(p, n, &m, &d) != SL_OK)
		fail_msg("%s: %s at %zu", vec_str(v, "description"), d.msg, d.offset);
	check_l1_fields(&m, json_object_get(v, "decoded"));
	assert_string_equal(sl_warp_l1_type_name(m.type), vec_str(json_object_get(v, "expected"), "type"));
	/* JSON: the reference decoder's rendering, field for field (mainnet HRP) */
	sl_buf jb;
	sl_buf_init(&jb, 1 << 20);
	sl_jw w;
	sl_jw_init(&w, &jb);
	sl_warp_l1_write_json(&w, &m, "avax");
	json_t *j = vec_json_of(&jb);
	json_t *want = json_object_get(v, "decoded");
	const char *k;
	json_t *val;
	json_object_foreach(want, k, val)
	{
		json_t *got = json_object_get(j, k);
		if (!got || !json_equal(got, val))
			fail_msg("JSON field %s differs: %s", k, sl_buf_str(&jb));
	}
	json_decref(j);
	sl_buf_release(&jb);
	assert_int_equal(try_l1(p, n, NULL), 0);
	vec_mutate(p, n, try_l1, NULL, true);
	free(p);
}

static void check_conversion(json_t *v)
{
	size_t n;
	uint8_t *p = vec_unhex(vec_str(v, "hex"), &n);
	sl_arena a;
	sl_arena_init(&a, 1 << 20);
	sl_warp_conversion c;
	sl_err_detail d;
	if (sl_warp_conversion_decode(p, n, &a, &c, &d) != SL_OK)
		fail_msg("conversion: %s at %zu", d.msg, d.offset);
	json_t *exp = json_object_get(v, "expected");
	vec_assert_cb58(c.id, vec_str(exp, "conversionID"));
	vec_assert_hex(c.id, 32, vec_str(exp, "conversionID_hex"));
	assert_true(c.nvalidators > 0);
	sl_arena_release(&a);
	assert_int_equal(try_conversion(p, n, NULL), 0);
	vec_mutate(p, n, try_conversion, NULL, true);
	free(p);
}

static void check_signed(json_t *v)
{
	size_t n;
	uint8_t *p = vec_unhex(vec_str(v, "hex"), &n);
	json_t *exp = json_object_get(v, "expected"), *dec = json_object_get(v, "decoded");
	sl_warp_message m;
	sl_err_detail d;
	if (sl_warp_message_decode(p, n, &m, &d) != SL_OK)
		fail_msg("%s: %s at %zu", vec_str(v, "description"), d.msg, d.offset);
	assert_int_equal(m.msg.network_id, vec_u64(json_object_get(exp, "networkID")));
	vec_assert_cb58(m.msg.source_chain_id.p, vec_str(exp, "sourceChainID"));
	vec_assert_cb58(m.msg.id, vec_str(exp, "unsignedMessageID"));
	vec_assert_hex(m.signers.p, m.signers.len, vec_str(exp, "signers"));
	assert_true(sl_warp_signers_minimal(m.signers));
	json_t *sig = json_object_get(dec, "signature");
	vec_assert_hex(m.signature.p, m.signature.len, vec_str(sig, "signature"));
	json_t *idx = json_object_get(sig, "signerIndices");
	assert_int_equal(sl_warp_signers_count(m.signers), json_array_size(idx));
	for (size_t i = 0; i < json_array_size(idx); i++)
		assert_true(
			sl_warp_signers_has(m.signers, (size_t)json_integer_value(json_array_get(idx, i))));

	/* the unsigned part decodes alone with the same id */
	sl_warp_unsigned u;
	assert_int_equal(sl_warp_unsigned_decode(m.msg.bytes.p, m.msg.bytes.len, &u, NULL), SL_OK);
	assert_memory_equal(u.id, m.msg.id, 32);

	sl_warp_payload pl;
	assert_int_equal(sl_warp_payload_decode(m.msg.payload.p, m.msg.payload.len, &pl, NULL), SL_OK);
	assert_string_equal(sl_warp_payload_type_name(pl.type), vec_str(exp, "payloadType"));
	vec_assert_hex(pl.source_address.p, pl.source_address.len,
		       vec_str(json_object_get(dec, "payload_decoded"), "sourceAddress"));
	sl_buf out;
	sl_buf_init(&out, 1 << 20);
	assert_int_equal(sl_warp_payload_encode(&pl, &out), SL_OK);
	assert_int_equal(out.len, m.msg.payload.len);
	assert_memory_equal(out.p, m.msg.payload.p, out.len);
	sl_buf_release(&out);

	sl_warp_l1_msg l1;
	assert_int_equal(sl_warp_l1_decode(pl.payload.p, pl.payload.len, &l1, NULL), SL_OK);
	assert_string_equal(sl_warp_l1_type_name(l1.type), vec_str(exp, "innerType"));
	check_l1_fields(&l1, json_object_get(json_object_get(dec, "payload_decoded"), "payload_decoded"));
	vec_assert_cb58(l1.type == SL_WARP_L1_REGISTER_VALIDATOR ? l1.id : l1.validation_id.p,
			vec_str(exp, "validationID"));

	sl_buf jb;
	sl_buf_init(&jb, 1 << 20);
	sl_jw w;
	sl_jw_init(&w, &jb);
	sl_warp_message_write_json(&w, &m);
	json_t *j = vec_json_of(&jb);
	assert_int_equal(json_integer_value(json_object_get(j, "networkID")), 12345);
	assert_string_equal(json_string_value(json_object_get(j, "id")), vec_str(exp, "unsignedMessageID"));
	assert_true(json_equal(json_object_get(json_object_get(j, "signature"), "signerIndices"), idx));
	json_t *inner = json_object_get(
		json_object_get(json_object_get(j, "decodedPayload"), "decodedPayload"), "validationID");
	assert_string_equal(json_string_value(inner), vec_str(exp, "validationID"));
	json_decref(j);
	sl_buf_release(&jb);

	assert_int_equal(try_message(p, n, NULL), 0);
	vec_mutate(p, n, try_message, NULL, true);
	free(p);
}

static void test_vectors(void **state)
{
	(void)state;
	json_t *root = vec_load("warp.json");
	json_t *vs = json_object_get(root, "vectors");
	size_t i, seen[3] = { 0 };
	json_t *v;
	json_array_foreach(vs, i, v)
	{
		const char *kind = vec_str(v, "kind");
		if (strcmp(kind, "warp.l1_message") == 0) {
			check_l1(v);
			seen[0]++;
		} else if (strcmp(kind, "warp.conversion_data") == 0) {
			check_conversion(v);
			seen[1]++;
		} else if (strcmp(kind, "warp.signed_message") == 0) {
			check_signed(v);
			seen[2]++;
		} else {
			fail_msg("unknown vector kind %s", kind);
		}
	}
	assert_int_equal(seen[0], 4);
	assert_int_equal(seen[1], 1);
	assert_int_equal(seen[2], 2);
	json_decref(root);
}

static void test_hash_payload_and_helpers(void **state)
{
	(void)state;
	uint8_t h[32];
	memset(h, 0x5a, 32);
	sl_warp_payload pl = { .type = SL_WARP_PAYLOAD_HASH, .hash = sl_span_of(h, 32) };
	sl_buf b;
	sl_buf_init(&b, 1024);
	assert_int_equal(sl_warp_payload_encode(&pl, &b), SL_OK);
	assert_int_equal(b.len, 2 + 4 + 32);
	sl_warp_payload back;
	assert_int_equal(sl_warp_payload_decode(b.p, b.len, &back, NULL), SL_OK);
	assert_int_equal(back.type, SL_WARP_PAYLOAD_HASH);
	assert_memory_equal(back.hash.p, h, 32);
	/* type 2 does not exist */
	b.p[5] = 2;
	sl_err_detail d;
	assert_int_equal(sl_warp_payload_decode(b.p, b.len, &back, &d), SL_ERR_UNSUPPORTED);
	assert_int_equal(d.offset, 2);
	sl_buf_release(&b);

	/* validationID of a conversion's validator i: sha256(subnetID || u32be(i)) */
	uint8_t sid[32], want[32], got[32], pre[36];
	memset(sid, 7, 32);
	memcpy(pre, sid, 32);
	sl_put_be32(pre + 32, 3);
	sl_sha256(pre, 36, want);
	sl_warp_conversion_validation_id(sid, 3, got);
	assert_memory_equal(got, want, 32);

	/* bit sets: 0x0105 = bits 0, 2, 8 */
	uint8_t bits[] = { 0x01, 0x05 };
	sl_span s = sl_span_of(bits, 2);
	assert_true(sl_warp_signers_has(s, 0));
	assert_false(sl_warp_signers_has(s, 1));
	assert_true(sl_warp_signers_has(s, 2));
	assert_true(sl_warp_signers_has(s, 8));
	assert_false(sl_warp_signers_has(s, 16));
	assert_int_equal(sl_warp_signers_count(s), 3);
	assert_true(sl_warp_signers_minimal(s));
	uint8_t pad[] = { 0x00, 0x05 };
	assert_false(sl_warp_signers_minimal(sl_span_of(pad, 2)));

	/* a registration with a non-boolean byte fails */
	uint8_t reg[2 + 4 + 32 + 1] = { 0, 0, 0, 0, 0, 2 };
	reg[38] = 2;
	sl_warp_l1_msg m;
	assert_int_equal(sl_warp_l1_decode(reg, sizeof reg, &m, &d), SL_ERR_INVALID);
	assert_int_equal(d.offset, 38);
	reg[38] = 1;
	assert_int_equal(sl_warp_l1_decode(reg, sizeof reg, &m, &d), SL_OK);
	assert_true(m.registered);
	/* an owner that claims 2^31 addresses fails before allocating */
	uint8_t big[2 + 4 + 32 + 4 + 0 + 48 + 8 + 8] = { 0, 0, 0, 0, 0, 1 };
	memset(big + 2 + 4 + 32 + 4 + 48 + 8 + 4, 0x7f, 4);
	assert_int_not_equal(sl_warp_l1_decode(big, sizeof big, &m, &d), SL_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_hash_payload_and_helpers),
	};
	return cmocka_run_group_tests_name("codec_warp", tests, NULL, NULL);
}
