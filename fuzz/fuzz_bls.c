/*
 * fuzz_bls.c — hostile bytes into BLS key and signature decoding.
 *
 * Input: pk[48] | sig[96] | message... (shorter inputs exercise what fits).
 * Checks that decoding never misbehaves, that a decoded key re-encodes to
 * the same bytes (one encoding per key: keys are compared as bytes
 * elsewhere), and runs verification on whatever decodes.
 */
#include "crypto/bls.h"

#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_bls_pk pk;
	sl_bls_sig sig;
	uint8_t out[SL_BLS_SIG_LEN];
	bool pk_ok = false;

	if (size < SL_BLS_PK_LEN)
		return 0;
	if (sl_bls_pk_decode(&pk, data) == SL_OK) {
		pk_ok = true;
		sl_bls_pk_encode(&pk, out);
		if (memcmp(out, data, SL_BLS_PK_LEN) != 0)
			abort();
	}
	if (size < SL_BLS_PK_LEN + SL_BLS_SIG_LEN)
		return 0;
	if (sl_bls_sig_decode(&sig, data + SL_BLS_PK_LEN) != SL_OK)
		return 0;
	sl_bls_sig_encode(&sig, out);
	if (memcmp(out, data + SL_BLS_PK_LEN, SL_BLS_SIG_LEN) != 0)
		abort();
	if (pk_ok) {
		const uint8_t *msg = data + SL_BLS_PK_LEN + SL_BLS_SIG_LEN;
		size_t len = size - SL_BLS_PK_LEN - SL_BLS_SIG_LEN;
		/* no signature can be valid under both tags: that would be a DST mix-up */
		if (sl_bls_verify(&pk, &sig, msg, len) && sl_bls_pop_verify(&pk, &sig))
			abort();
	}
	return 0;
}
