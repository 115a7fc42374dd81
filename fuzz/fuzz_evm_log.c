/*
 * fuzz_evm_log.c — hostile logs and eth_call answers into the EVM indexer's ABI decoders
 * (codec/evm_abi.h). The input is a log: one byte whose value modulo 5 is its number of topics,
 * those topics (32 bytes each), then its data; the same bytes are also read as a token's
 * name()/symbol() and decimals() answer. Whatever the bytes, decoding reads only inside them,
 * transfers have a known standard, an ICM message's arrays and payload lie inside the data and
 * within SL_EVM_MAX_ICM_ITEMS, and a token's string is clean UTF-8 within its room.
 */
#include <stdlib.h>
#include <string.h>

#include "codec/evm_abi.h"
#include "fuzz.h"
#include "util/limits.h"

static sl_err check_transfer(void *ctx, uint32_t sub, const sl_evm_transfer *t)
{
	uint32_t *count = ctx;
	if (sub != (*count)++ || (t->std != 20 && t->std != 721 && t->std != 1155) ||
	    (t->std == 20) == t->has_id)
		abort();
	return SL_OK;
}

static bool inside(const uint8_t *p, size_t n, const uint8_t *data, size_t len)
{
	return !n || (p >= data && p <= data + len && n <= (size_t)(data + len - p));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	size_t ntopics = data[0] % 5;
	if (size < 1 + 32 * ntopics)
		return 0;
	/* copies, so that a read past either part is caught */
	uint8_t *topics = malloc(32 * ntopics + 1), *body = malloc(size - 1 - 32 * ntopics + 1);
	if (!topics || !body)
		abort();
	memcpy(topics, data + 1, 32 * ntopics);
	size_t len = size - 1 - 32 * ntopics;
	memcpy(body, data + 1 + 32 * ntopics, len);
	uint32_t count = 0;
	sl_err e = sl_evm_log_transfers(topics, ntopics, body, len, check_transfer, &count);
	if (e != SL_OK && e != SL_ERR_NOT_FOUND)
		abort();
	sl_icm_event ev;
	e = sl_icm_decode(topics, ntopics, body, len, &ev);
	if (e != SL_OK && e != SL_ERR_INVALID)
		abort();
	if (!e && ev.has_msg) {
		const sl_icm_message *m = &ev.msg;
		if (m->nrelayers > SL_EVM_MAX_ICM_ITEMS || m->nreceipts > SL_EVM_MAX_ICM_ITEMS ||
		    !inside(m->relayers, 32 * (size_t)m->nrelayers, body, len) ||
		    !inside(m->receipts, 64 * (size_t)m->nreceipts, body, len) ||
		    !inside(m->payload, m->payload_len, body, len))
			abort();
	}
	char s[SL_EVM_MAX_TOKEN_STRING + 1];
	if (sl_evm_abi_string(body, len, s, sizeof s)) {
		size_t n = strnlen(s, sizeof s);
		if (n == sizeof s)
			abort();
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
				abort();
	}
	unsigned d;
	if (sl_evm_abi_uint8(body, len, &d) && d > 255)
		abort();
	free(topics);
	free(body);
	return 0;
}
