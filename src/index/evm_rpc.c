/*
 * evm_rpc.c — an EVM node's JSON-RPC answers into evm_block (evm_rpc.h).
 */
#include "index/evm_rpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hex.h"
#include "util/jsonv.h"
#include "util/limits.h"

#define ARENA_CAP (512u << 20) /* decoded bytes of one block (inputs and log data) */

void evm_block_init(evm_block *b)
{
	memset(b, 0, sizeof *b);
	sl_arena_init(&b->arena, ARENA_CAP);
}

void evm_block_free(evm_block *b)
{
	free(b->txs);
	free(b->logs);
	free(b->frames);
	sl_arena_release(&b->arena);
	memset(b, 0, sizeof *b);
}

/* ---- JSON helpers ---------------------------------------------------------------------- */

static sl_span member(sl_span obj, const char *name)
{
	sl_jiter it;
	sl_span k, v;
	if (sl_json_type(obj) != SL_JT_OBJECT)
		return (sl_span){ 0 };
	size_t n = strlen(name);
	sl_json_iter_init(&it, obj);
	while (sl_json_obj_next(&it, &k, &v))
		if (k.len == n + 2 && !memcmp(k.p + 1, name, n))
			return v;
	return (sl_span){ 0 };
}

static bool absent(sl_span v) { return !v.len || sl_json_type(v) == SL_JT_NULL; }

/* The hex digits of a "0x…" string (without quotes and prefix). */
static bool hex_digits(sl_span v, const char **p, size_t *n)
{
	if (sl_json_type(v) != SL_JT_STRING || v.len < 4 || v.p[1] != '0' || (v.p[2] != 'x' && v.p[2] != 'X'))
		return false;
	*p = (const char *)v.p + 3;
	*n = v.len - 4;
	for (size_t i = 0; i < *n; i++)
		if (sl_hex_digit((unsigned char)(*p)[i]) < 0)
			return false;
	return true;
}

bool evm_quantity(sl_span v, uint64_t *out)
{
	const char *p;
	size_t n;
	if (!hex_digits(v, &p, &n) || !n)
		return false;
	while (n > 1 && *p == '0')
		p++, n--;
	if (n > 16)
		return false;
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++)
		x = x << 4 | (uint64_t)sl_hex_digit((unsigned char)p[i]);
	*out = x;
	return true;
}

bool evm_quantity256(sl_span v, uint8_t out[32])
{
	const char *p;
	size_t n;
	if (!hex_digits(v, &p, &n) || !n)
		return false;
	while (n > 1 && *p == '0')
		p++, n--;
	if (n > 64)
		return false;
	memset(out, 0, 32);
	for (size_t i = 0; i < n; i++) {
		int d = sl_hex_digit((unsigned char)p[n - 1 - i]);
		out[31 - i / 2] |= (uint8_t)(i % 2 ? d << 4 : d);
	}
	return true;
}

bool evm_fixed(sl_span v, uint8_t *out, size_t n)
{
	const char *p;
	size_t len, got;
	return hex_digits(v, &p, &len) && len == 2 * n && !sl_hex_decode(p, len, out, n, &got) && got == n;
}

/* Variable-length "0x…" bytes into the arena (at most SL_EVM_MAX_BYTES). */
static bool bytes(sl_span v, sl_arena *a, const uint8_t **out, size_t *len)
{
	const char *p;
	size_t n;
	if (!hex_digits(v, &p, &n) || n % 2 || n / 2 > SL_EVM_MAX_BYTES)
		return false;
	uint8_t *buf = sl_arena_alloc(a, n / 2 + 1);
	if (!buf || (n && sl_hex_decode(p, n, buf, n / 2, len)))
		return false;
	*len = n / 2;
	*out = buf;
	return true;
}

static sl_err bad(char err[256], const char *what)
{
	snprintf(err, 256, "%s", what);
	return SL_ERR_INVALID;
}

sl_err evm_rpc_result(const uint8_t *body, size_t len, sl_span *result, int64_t *code, char err[256])
{
	size_t a, z;
	char msg[128];
	*code = 0;
	if (sl_json_scan((const char *)body, len, &a, &z, msg)) {
		snprintf(err, 256, "the answer is not JSON: %s", msg);
		return SL_ERR_INVALID;
	}
	sl_span root = { body + a, z - a };
	sl_span r = member(root, "result"), e = member(root, "error");
	if (r.len && absent(e)) {
		*result = r;
		return SL_OK;
	}
	if (sl_json_type(e) == SL_JT_OBJECT) {
		sl_span c = member(e, "code"), m = member(e, "message");
		if (sl_json_type(c) == SL_JT_NUMBER)
			*code = strtoll((const char *)c.p, NULL, 10);
		if (sl_json_type(m) == SL_JT_STRING && m.len - 2 < 200) {
			snprintf(err, 256, "the node answered %lld: ", (long long)*code);
			size_t at = strlen(err);
			for (size_t i = 1; i + 1 < m.len && at < 255; i++)
				err[at++] = m.p[i] >= 0x20 && m.p[i] < 0x7f ? (char)m.p[i] : '?';
			err[at] = 0;
		} else
			snprintf(err, 256, "the node answered error %lld", (long long)*code);
		return SL_ERR_UNSUPPORTED;
	}
	snprintf(err, 256, "the answer has neither a result nor an error");
	return SL_ERR_INVALID;
}

/* ---- blocks ----------------------------------------------------------------------------- */

static sl_err parse_tx(sl_span v, evm_block *b, uint32_t i, char err[256])
{
	evm_tx *t = &b->txs[i];
	uint64_t idx;
	sl_span to = member(v, "to"), type = member(v, "type"), gp = member(v, "gasPrice"),
		mf = member(v, "maxFeePerGas"), mp = member(v, "maxPriorityFeePerGas"),
		ix = member(v, "transactionIndex");
	if (!evm_fixed(member(v, "hash"), t->hash, 32) || !evm_fixed(member(v, "from"), t->from, 20) ||
	    !evm_quantity256(member(v, "value"), t->value) || !evm_quantity(member(v, "nonce"), &t->nonce) ||
	    !evm_quantity(member(v, "gas"), &t->gas) ||
	    !bytes(member(v, "input"), &b->arena, &t->input, &t->input_len))
		return bad(err, "a tx without hash, from, value, nonce, gas or input");
	if (!absent(ix) && (!evm_quantity(ix, &idx) || idx != i))
		return bad(err, "a tx whose transactionIndex is not its place in the block");
	if ((t->has_to = !absent(to)) && !evm_fixed(to, t->to, 20))
		return bad(err, "a tx whose to is not an address");
	if (!absent(type) && !evm_quantity(type, &t->type))
		return bad(err, "a tx whose type is not a quantity");
	if (((t->has_gas_price = !absent(gp)) && !evm_quantity256(gp, t->gas_price)) ||
	    ((t->has_max_fee = !absent(mf)) && !evm_quantity256(mf, t->max_fee)) ||
	    ((t->has_max_prio = !absent(mp)) && !evm_quantity256(mp, t->max_prio)))
		return bad(err, "a tx whose gas prices are not quantities");
	return SL_OK;
}

sl_err evm_parse_block(sl_span v, evm_block *b, char err[256])
{
	if (sl_json_type(v) == SL_JT_NULL) {
		snprintf(err, 256, "no such block");
		return SL_ERR_NOT_FOUND;
	}
	if (sl_json_type(v) != SL_JT_OBJECT)
		return bad(err, "the block is not an object");
	sl_span bf = member(v, "baseFeePerGas"), size = member(v, "size"), txs = member(v, "transactions");
	if (!evm_quantity(member(v, "number"), &b->number) || !evm_fixed(member(v, "hash"), b->hash, 32) ||
	    !evm_fixed(member(v, "parentHash"), b->parent, 32) ||
	    !evm_quantity(member(v, "timestamp"), &b->ts) || !evm_fixed(member(v, "miner"), b->miner, 20) ||
	    !evm_quantity(member(v, "gasLimit"), &b->gas_limit) ||
	    !evm_quantity(member(v, "gasUsed"), &b->gas_used))
		return bad(err,
			   "a block without number, hash, parentHash, timestamp, miner, gasLimit or gasUsed");
	if (b->ts > INT64_MAX || b->number > INT64_MAX || b->gas_limit > INT64_MAX || b->gas_used > INT64_MAX)
		return bad(err, "a block's number, time or gas beyond 2^63");
	if ((b->has_base_fee = !absent(bf)) && !evm_quantity256(bf, b->base_fee))
		return bad(err, "a block whose baseFeePerGas is not a quantity");
	if (!absent(size) && (!evm_quantity(size, &b->size) || b->size > INT64_MAX))
		return bad(err, "a block whose size is not a quantity");
	if (sl_json_type(txs) != SL_JT_ARRAY)
		return bad(err, "a block without its transactions");
	sl_jiter it;
	sl_span t;
	uint32_t n = 0;
	sl_json_iter_init(&it, txs);
	while (sl_json_arr_next(&it, &t))
		if (++n > SL_EVM_MAX_TXS)
			return bad(err, "a block with too many txs");
	free(b->txs);
	b->ntx = 0;
	b->txs = n ? calloc(n, sizeof *b->txs) : NULL;
	if (n && !b->txs)
		return SL_ERR_NOMEM;
	sl_json_iter_init(&it, txs);
	for (uint32_t i = 0; sl_json_arr_next(&it, &t); i++) {
		if (sl_json_type(t) != SL_JT_OBJECT)
			return bad(err, "a block's txs are hashes, not objects (ask with full txs)");
		sl_err e = parse_tx(t, b, i, err);
		if (e)
			return e;
		b->ntx = i + 1;
	}
	return SL_OK;
}

/* ---- receipts ----------------------------------------------------------------------------- */

static sl_err add_log(sl_span v, evm_block *b, uint32_t tx_idx, char err[256])
{
	if (b->nlogs == b->cap_logs) {
		if (b->cap_logs >= SL_EVM_MAX_LOGS)
			return bad(err, "a block with too many logs");
		uint32_t cap = b->cap_logs ? 2 * b->cap_logs : 64;
		evm_log *n = realloc(b->logs, cap * sizeof *n);
		if (!n)
			return SL_ERR_NOMEM;
		b->logs = n;
		b->cap_logs = cap;
	}
	evm_log *l = &b->logs[b->nlogs];
	memset(l, 0, sizeof *l);
	uint64_t idx;
	sl_span topics = member(v, "topics"), tx = member(v, "transactionIndex");
	if (!evm_quantity(member(v, "logIndex"), &idx) || idx > UINT32_MAX ||
	    !evm_fixed(member(v, "address"), l->address, 20) || sl_json_type(topics) != SL_JT_ARRAY ||
	    !bytes(member(v, "data"), &b->arena, &l->data, &l->len))
		return bad(err, "a log without logIndex, address, topics or data");
	uint64_t ti;
	if (!absent(tx) && (!evm_quantity(tx, &ti) || ti != tx_idx))
		return bad(err, "a log whose transactionIndex is not its receipt's");
	if (b->nlogs && idx <= b->logs[b->nlogs - 1].log_idx)
		return bad(err, "a block's logs out of order");
	l->log_idx = (uint32_t)idx;
	l->tx_idx = tx_idx;
	sl_jiter it;
	sl_span t;
	sl_json_iter_init(&it, topics);
	while (sl_json_arr_next(&it, &t)) {
		if (l->ntopics == SL_EVM_MAX_TOPICS || !evm_fixed(t, l->topics + 32 * l->ntopics, 32))
			return bad(err, "a log with more than 4 topics, or one not of 32 bytes");
		l->ntopics++;
	}
	b->nlogs++;
	return SL_OK;
}

sl_err evm_parse_receipt(sl_span v, evm_block *b, char err[256])
{
	if (sl_json_type(v) != SL_JT_OBJECT)
		return bad(err, "a receipt is not an object");
	uint64_t idx, status;
	uint8_t hash[32];
	if (!evm_quantity(member(v, "transactionIndex"), &idx) || idx >= b->ntx ||
	    !evm_fixed(member(v, "transactionHash"), hash, 32) || memcmp(hash, b->txs[idx].hash, 32))
		return bad(err, "a receipt of no tx of the block");
	evm_tx *t = &b->txs[idx];
	if (t->has_receipt)
		return bad(err, "two receipts of one tx");
	/* the logs of a block come receipt after receipt, in tx order */
	if (b->nlogs && b->logs[b->nlogs - 1].tx_idx > idx)
		return bad(err, "receipts out of order");
	sl_span st = member(v, "status"), ep = member(v, "effectiveGasPrice"),
		ca = member(v, "contractAddress"), logs = member(v, "logs");
	if (!evm_quantity(member(v, "gasUsed"), &t->gas_used) || t->gas_used > INT64_MAX ||
	    !evm_quantity(st, &status) || status > 1 || sl_json_type(logs) != SL_JT_ARRAY)
		return bad(err, "a receipt without gasUsed, status (0 or 1) or logs");
	t->status = (int)status;
	if (!absent(ep)) {
		if (!evm_quantity256(ep, t->effective_price))
			return bad(err, "a receipt whose effectiveGasPrice is not a quantity");
	} else if (t->has_gas_price)
		memcpy(t->effective_price, t->gas_price, 32);
	else
		return bad(err, "a receipt without effectiveGasPrice of a tx without gasPrice");
	if ((t->has_created = !absent(ca)) && !evm_fixed(ca, t->created, 20))
		return bad(err, "a receipt whose contractAddress is not an address");
	sl_jiter it;
	sl_span l;
	sl_json_iter_init(&it, logs);
	while (sl_json_arr_next(&it, &l)) {
		sl_err e = add_log(l, b, (uint32_t)idx, err);
		if (e)
			return e;
	}
	t->has_receipt = true;
	return SL_OK;
}

sl_err evm_parse_receipts(sl_span v, evm_block *b, char err[256])
{
	if (sl_json_type(v) != SL_JT_ARRAY)
		return bad(err, "the block's receipts are not an array");
	sl_jiter it;
	sl_span r;
	sl_json_iter_init(&it, v);
	while (sl_json_arr_next(&it, &r)) {
		sl_err e = evm_parse_receipt(r, b, err);
		if (e)
			return e;
	}
	return evm_check_receipts(b, err);
}

sl_err evm_check_receipts(const evm_block *b, char err[256])
{
	for (uint32_t i = 0; i < b->ntx; i++)
		if (!b->txs[i].has_receipt) {
			snprintf(err, 256, "no receipt for tx %u of block %llu", i,
				 (unsigned long long)b->number);
			return SL_ERR_INVALID;
		}
	return SL_OK;
}

/* ---- traces ------------------------------------------------------------------------------ */

typedef struct walk {
	evm_block *b;
	uint32_t tx_idx, n;
	char *err;
} walk;

static bool is_create(const char *k) { return !strcmp(k, "CREATE") || !strcmp(k, "CREATE2"); }

static sl_err frame(walk *w, sl_span v, uint32_t depth, bool reverted_above)
{
	if (sl_json_type(v) != SL_JT_OBJECT)
		return bad(w->err, "a call frame is not an object");
	if (depth > SL_EVM_MAX_TRACE_DEPTH)
		return bad(w->err, "call frames nested too deep");
	bool reverted = !absent(member(v, "error"));
	sl_span calls = member(v, "calls");
	if (depth > 0) {
		evm_block *b = w->b;
		if (b->nframes == b->cap_frames) {
			if (b->cap_frames >= SL_EVM_MAX_FRAMES)
				return bad(w->err, "a block with too many call frames");
			uint32_t cap = b->cap_frames ? 2 * b->cap_frames : 64;
			evm_frame *n = realloc(b->frames, cap * sizeof *n);
			if (!n)
				return SL_ERR_NOMEM;
			b->frames = n;
			b->cap_frames = cap;
		}
		evm_frame *f = &b->frames[b->nframes];
		memset(f, 0, sizeof *f);
		sl_span type = member(v, "type"), to = member(v, "to"), value = member(v, "value"),
			gas = member(v, "gas"), used = member(v, "gasUsed");
		if (sl_json_type(type) != SL_JT_STRING || type.len - 2 >= sizeof f->kind || type.len < 3)
			return bad(w->err, "a call frame without a type");
		for (size_t i = 1; i + 1 < type.len; i++) {
			char c = (char)type.p[i];
			if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
				return bad(w->err, "a call frame whose type is not a name");
			f->kind[i - 1] = c;
		}
		if (!evm_fixed(member(v, "from"), f->from, 20))
			return bad(w->err, "a call frame without from");
		if ((f->has_to = !absent(to)) && !evm_fixed(to, f->to, 20))
			return bad(w->err, "a call frame whose to is not an address");
		if ((!absent(gas) && (!evm_quantity(gas, &f->gas) || f->gas > INT64_MAX)) ||
		    (!absent(used) && (!evm_quantity(used, &f->gas_used) || f->gas_used > INT64_MAX)))
			return bad(w->err, "a call frame whose gas is not a quantity");
		/* DELEGATECALL carries the caller's value but moves nothing; STATICCALL has none */
		if (strcmp(f->kind, "DELEGATECALL") && !absent(value)) {
			if (!evm_quantity256(value, f->value))
				return bad(w->err, "a call frame whose value is not a quantity");
			f->has_value = true;
		}
		f->tx_idx = w->tx_idx;
		f->n = w->n++;
		f->depth = depth;
		f->reverted = reverted || reverted_above; /* a frame under a reverted one is undone with it */
		f->created = is_create(f->kind) && f->has_to && !reverted && !reverted_above;
		b->nframes++;
	}
	if (absent(calls))
		return SL_OK;
	if (sl_json_type(calls) != SL_JT_ARRAY)
		return bad(w->err, "a call frame whose calls are not an array");
	sl_jiter it;
	sl_span c;
	sl_json_iter_init(&it, calls);
	while (sl_json_arr_next(&it, &c)) {
		sl_err e = frame(w, c, depth + 1, reverted || reverted_above);
		if (e)
			return e;
	}
	return SL_OK;
}

sl_err evm_parse_traces(sl_span v, evm_block *b, char err[256])
{
	if (sl_json_type(v) != SL_JT_ARRAY)
		return bad(err, "the block's traces are not an array");
	b->nframes = 0;
	walk w = { .b = b, .err = err };
	sl_jiter it;
	sl_span t;
	sl_json_iter_init(&it, v);
	uint32_t i = 0;
	for (; sl_json_arr_next(&it, &t); i++) {
		uint8_t hash[32];
		sl_span h = member(t, "txHash"), r = member(t, "result");
		if (i >= b->ntx ||
		    (!absent(h) && (!evm_fixed(h, hash, 32) || memcmp(hash, b->txs[i].hash, 32))))
			return bad(err, "a trace of no tx of the block, or out of order");
		if (sl_json_type(r) != SL_JT_OBJECT)
			return bad(err, "a tx the node could not trace");
		w.tx_idx = i;
		w.n = 0;
		sl_err e = frame(&w, r, 0, false);
		if (e)
			return e;
	}
	if (i != b->ntx)
		return bad(err, "fewer traces than txs");
	b->traced = true;
	return SL_OK;
}
