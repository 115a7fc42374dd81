/* bech32 / address / NodeID text forms against encoding.json, plus BIP-173 rejects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "codec/avax.h"
#include "codec_vectors.h"
#include "crypto/addr.h"

static void test_vectors(void **state)
{
	json_t *root = vec_load("encoding.json");
	assert_non_null(root);
	json_t *v;
	size_t i;
	int seen = 0;
	json_array_foreach(json_object_get(root, "vectors"), i, v)
	{
		const char *kind = vec_str(v, "kind"), *want = vec_str(v, "expected");
		sl_buf b;
		sl_buf_init(&b, 1024);
		if (!strcmp(kind, "bech32_address")) {
			size_t n;
			uint8_t *p = vec_hex(vec_str(v, "hex"), &n);
			assert_int_equal(n, 20);
			char alias[8] = { want[0], 0 };
			sl_addr_write(&b, alias, vec_str(v, "hrp"), p);
			assert_string_equal(sl_buf_str(&b), want);
			char a2[16], hrp[SL_HRP_MAX_LEN + 1];
			uint8_t back[20];
			assert_int_equal(sl_addr_parse(want, strlen(want), a2, sizeof a2, hrp, back), SL_OK);
			assert_string_equal(hrp, vec_str(v, "hrp"));
			assert_memory_equal(back, p, 20);
			free(p);
			seen++;
		} else if (!strcmp(kind, "nodeid")) {
			size_t n;
			uint8_t *p = vec_hex(vec_str(v, "hex"), &n);
			sl_nodeid_write(&b, p);
			assert_string_equal(sl_buf_str(&b), want);
			uint8_t back[20];
			assert_int_equal(sl_nodeid_parse(want, strlen(want), back), SL_OK);
			assert_memory_equal(back, p, 20);
			free(p);
			seen++;
		} else if (!strcmp(kind, "utxo_id")) {
			uint8_t tx[32], id[32];
			const char *msg;
			char mb[128];
			assert_int_equal(sl_cb58_decode_id(vec_str(v, "txID"), strlen(vec_str(v, "txID")), tx,
							   &msg, mb),
					 SL_OK);
			sl_avax_utxo_id(tx, (uint32_t)json_number_value(json_object_get(v, "outputIndex")),
					id);
			char got[64];
			sl_cb58_id(got, id);
			assert_string_equal(got, want);
			seen++;
		}
		sl_buf_release(&b);
	}
	assert_int_equal(seen, 6);
	json_decref(root);
}

static void test_hrp_and_rejects(void **state)
{
	assert_string_equal(sl_addr_hrp(1), "avax");
	assert_string_equal(sl_addr_hrp(5), "fuji");
	assert_string_equal(sl_addr_hrp(12345), "local");
	assert_string_equal(sl_addr_hrp(10), "testing");
	assert_string_equal(sl_addr_hrp(99), "custom");

	char hrp[SL_HRP_MAX_LEN + 1];
	uint8_t out[64];
	size_t n;
	/* BIP-173 test vectors: valid */
	const char *ok[] = { "A12UEL5L", "a12uel5l", "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
			     "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w" };
	for (size_t i = 0; i < SL_ARRAY_LEN(ok); i++)
		assert_int_equal(sl_bech32_decode(ok[i], strlen(ok[i]), hrp, out, sizeof out, &n), SL_OK);
	/* invalid: mixed case, bad checksum, no separator, empty hrp, bad char, too long */
	const char *bad[] = {
		"A12uEL5L",
		"a12uel5m",
		"pzry9x0s0muk",
		"1pzry9x0s0muk",
		"x1b4n0q5v",
		"an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1569pvx"
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++)
		assert_int_not_equal(sl_bech32_decode(bad[i], strlen(bad[i]), hrp, out, sizeof out, &n),
				     SL_OK);
	char alias[8];
	uint8_t a[20];
	assert_int_not_equal(sl_addr_parse("X-avax1", 7, alias, sizeof alias, hrp, a), SL_OK);
	assert_int_not_equal(sl_nodeid_parse("NodeID-", 7, a), SL_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_hrp_and_rejects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
