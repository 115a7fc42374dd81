/*
 * fuzz_evm_rpc.c — hostile JSON-RPC answers of an EVM node into the EVM indexer's decoders
 * (index/evm_rpc.h). The input is up to three answers separated by NUL bytes (which JSON text
 * cannot hold): eth_getBlockByNumber, then the block's receipts (eth_getBlockReceipts' array or
 * one eth_getTransactionReceipt), then debug_traceBlockByNumber's callTracer frames. Whatever the
 * bytes, decoding ends within the bounds of util/limits.h, frees what it took, and what it
 * accepts is consistent: every log and frame belongs to a tx of the block, logs are in order,
 * frames are no deeper than SL_EVM_MAX_TRACE_DEPTH and named in capitals.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "index/evm_rpc.h"
#include "util/jsonv.h"
#include "util/limits.h"

static bool next_part(const uint8_t **p, size_t *n, const uint8_t **part, size_t *len)
{
	if (!*p)
		return false;
	const uint8_t *nul = memchr(*p, 0, *n);
	*part = *p;
	*len = nul ? (size_t)(nul - *p) : *n;
	if (nul) {
		*n -= *len + 1;
		*p = nul + 1;
	} else
		*p = NULL;
	return true;
}

static void check(const evm_block *b)
{
	if (b->ntx > SL_EVM_MAX_TXS || b->nlogs > SL_EVM_MAX_LOGS || b->nframes > SL_EVM_MAX_FRAMES)
		abort();
	for (uint32_t i = 0; i < b->nlogs; i++) {
		if (b->logs[i].tx_idx >= b->ntx || b->logs[i].ntopics > SL_EVM_MAX_TOPICS ||
		    b->logs[i].len > SL_EVM_MAX_BYTES)
			abort();
		if (i && b->logs[i].log_idx <= b->logs[i - 1].log_idx)
			abort();
	}
	for (uint32_t i = 0; i < b->nframes; i++) {
		const evm_frame *f = &b->frames[i];
		if (f->tx_idx >= b->ntx || !f->depth || f->depth > SL_EVM_MAX_TRACE_DEPTH ||
		    !memchr(f->kind, 0, sizeof f->kind) || !f->kind[0])
			abort();
		for (const char *k = f->kind; *k; k++)
			if (!((*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') || *k == '_'))
				abort();
		if (!strcmp(f->kind, "DELEGATECALL") && f->has_value)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *part;
	size_t n = size, len;
	char err[256];
	sl_span r;
	int64_t code;
	evm_block b;
	evm_block_init(&b);
	if (!next_part(&p, &n, &part, &len) || evm_rpc_result(part, len, &r, &code, err) ||
	    evm_parse_block(r, &b, err))
		goto out;
	check(&b);
	if (next_part(&p, &n, &part, &len) && !evm_rpc_result(part, len, &r, &code, err)) {
		sl_err e = sl_json_type(r) == SL_JT_ARRAY ? evm_parse_receipts(r, &b, err)
							  : evm_parse_receipt(r, &b, err);
		(void)e;
		check(&b);
	}
	if (next_part(&p, &n, &part, &len) && !evm_rpc_result(part, len, &r, &code, err)) {
		if (!evm_parse_traces(r, &b, err) && !b.traced)
			abort();
		check(&b);
	}
out:
	evm_block_free(&b);
	return 0;
}
