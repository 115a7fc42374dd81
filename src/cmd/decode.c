/*
 * snowline decode — print a container, block or tx as JSON.
 *
 *   snowline decode [--chain P|X|C] [--network-id N] HEX|@FILE
 *
 * Input is hex (with or without 0x, with or without the index API's 4-byte
 * checksum, which is verified when present) or @FILE holding hex or raw
 * bytes. Without --chain the bytes are tried, in order, as a proposervm
 * block (the inner block is decoded too), a P-chain block, a P-chain tx,
 * an X-chain tx, an X-chain block, a vertex and a C-chain atomic tx (single,
 * then batched extData). The output is {"kind":"…","value":{…}}.
 *
 * Exit 0 on success; 1 on a decode error (the message and the byte offset
 * of the attempt that got furthest go to stderr); 2 on a usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "codec/json.h"
#include "codec/proposervm.h"
#include "crypto/addr.h"
#include "crypto/hash.h"
#include "util/arena.h"
#include "util/limits.h"

#define DECODE_ARENA_CAP (256u << 20)
#define DECODE_MAX_INPUT (4u * SL_MAX_CONTAINER)

enum chain { CHAIN_ANY, CHAIN_P, CHAIN_X, CHAIN_C };

struct opts {
	enum chain chain;
	bool has_network;
	uint32_t network_id;
	const char *input;
};

static int usage(FILE *f)
{
	fprintf(f, "usage: snowline decode [--chain P|X|C] [--network-id N] HEX|@FILE\n"
		   "  HEX may carry a 0x prefix and the index API's 4-byte checksum.\n"
		   "  @FILE holds hex text or raw bytes.\n");
	return f == stdout ? 0 : 2;
}

static int nibble(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex text (whitespace around it ignored, optional 0x) into out; false if not hex. */
static bool parse_hex(const char *s, size_t n, sl_buf *out)
{
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (n && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++, n--;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2, n -= 2;
	if (n % 2)
		return false;
	for (size_t i = 0; i < n; i += 2) {
		int hi = nibble((unsigned char)s[i]), lo = nibble((unsigned char)s[i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		uint8_t byte = (uint8_t)(hi << 4 | lo);
		sl_buf_add(out, &byte, 1);
	}
	return out->err == SL_OK;
}

static bool read_input(const char *arg, sl_buf *out)
{
	if (arg[0] != '@')
		return parse_hex(arg, strlen(arg), out);
	FILE *f = fopen(arg + 1, "rb");
	if (!f) {
		fprintf(stderr, "decode: %s: %s\n", arg + 1, strerror(errno));
		return false;
	}
	sl_buf raw;
	sl_buf_init(&raw, 2 * DECODE_MAX_INPUT + 16);
	uint8_t chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		sl_buf_add(&raw, chunk, n);
	bool ok = !ferror(f) && raw.err == SL_OK;
	fclose(f);
	if (ok && !parse_hex((const char *)raw.p, raw.len, out)) {
		sl_buf_reset(out);
		sl_buf_add(out, raw.p, raw.len); /* not hex: raw bytes */
		ok = out->err == SL_OK;
	}
	sl_buf_release(&raw);
	if (!ok)
		fprintf(stderr, "decode: cannot read %s\n", arg + 1);
	return ok;
}

/* The index API appends last4(sha256(bytes)); drop it when it matches. */
static size_t strip_checksum(const uint8_t *p, size_t n)
{
	if (n <= 4)
		return n;
	uint8_t sum[4];
	sl_checksum4(p, n - 4, sum);
	return memcmp(sum, p + n - 4, 4) == 0 ? n - 4 : n;
}

struct attempt {
	sl_err_detail best;
	const char *best_kind;
};

static void note_failure(struct attempt *at, const char *kind, const sl_err_detail *e)
{
	if (!at->best_kind || e->offset > at->best.offset) {
		at->best = *e;
		at->best_kind = kind;
	}
}

/* Try each decoder this chain allows; on success write {"kind","value"} and return true. */
static bool decode_inner(sl_arena *a, const uint8_t *p, size_t n, const struct opts *o, enum chain chain,
			 sl_jw *w, struct attempt *at)
{
	sl_err_detail e;
	uint32_t net = o->has_network ? o->network_id : 1;
	if (chain == CHAIN_ANY || chain == CHAIN_P) {
		sl_pchain_block b;
		if (sl_pchain_block_decode(a, p, n, &b, &e) == SL_OK) {
			sl_codec_ctx ctx = sl_codec_ctx_for(net, "P");
			sl_jw_key(w, "kind");
			sl_jw_str(w, "pchain.block");
			sl_jw_key(w, "type");
			sl_jw_str(w, sl_pchain_type_name(b.type_id));
			sl_jw_key(w, "value");
			sl_pchain_block_write_json(w, &b, &ctx);
			return true;
		}
		note_failure(at, "pchain.block", &e);
		sl_pchain_tx tx;
		if (sl_pchain_tx_decode(a, p, n, &tx, &e) == SL_OK) {
			sl_codec_ctx ctx = sl_codec_ctx_for(
				o->has_network ? o->network_id : tx.utx.has_base ? tx.utx.base.network_id : 1, "P");
			sl_jw_key(w, "kind");
			sl_jw_str(w, "pchain.tx");
			sl_jw_key(w, "type");
			sl_jw_str(w, sl_pchain_type_name(tx.utx.type_id));
			sl_jw_key(w, "value");
			sl_pchain_tx_write_json(w, &tx, &ctx);
			return true;
		}
		note_failure(at, "pchain.tx", &e);
	}
	if (chain == CHAIN_ANY || chain == CHAIN_X) {
		sl_xchain_tx tx;
		if (sl_xchain_tx_decode(a, p, n, &tx, &e) == SL_OK) {
			sl_codec_ctx ctx = sl_codec_ctx_for(o->has_network ? o->network_id : tx.utx.base.network_id, "X");
			sl_jw_key(w, "kind");
			sl_jw_str(w, "xchain.tx");
			sl_jw_key(w, "type");
			sl_jw_str(w, sl_xchain_type_name(tx.utx.type_id));
			sl_jw_key(w, "value");
			sl_xchain_tx_write_json(w, &tx, &ctx);
			return true;
		}
		note_failure(at, "xchain.tx", &e);
		sl_xchain_block b;
		if (sl_xchain_block_decode(a, p, n, &b, &e) == SL_OK) {
			sl_codec_ctx ctx = sl_codec_ctx_for(
				o->has_network ? o->network_id : b.ntxs ? b.txs[0].utx.base.network_id : 1, "X");
			sl_jw_key(w, "kind");
			sl_jw_str(w, "xchain.block");
			sl_jw_key(w, "type");
			sl_jw_str(w, "StandardBlock");
			sl_jw_key(w, "value");
			sl_xchain_block_write_json(w, &b, &ctx);
			return true;
		}
		note_failure(at, "xchain.block", &e);
		sl_xchain_vertex v;
		if (sl_xchain_vertex_decode(a, p, n, &v, &e) == SL_OK) {
			sl_codec_ctx ctx = sl_codec_ctx_for(
				o->has_network ? o->network_id : v.ntxs ? v.txs[0].utx.base.network_id : 1, "X");
			sl_jw_key(w, "kind");
			sl_jw_str(w, "xchain.vertex");
			sl_jw_key(w, "value");
			sl_xchain_vertex_write_json(w, &v, &ctx);
			return true;
		}
		note_failure(at, "xchain.vertex", &e);
	}
	if (chain == CHAIN_ANY || chain == CHAIN_C) {
		for (int batched = 0; batched < 2; batched++) {
			sl_atomic_txs txs;
			if (n && sl_atomic_extdata_decode(a, p, n, batched, &txs, &e) == SL_OK) {
				sl_codec_ctx ctx = sl_codec_ctx_for(
					o->has_network ? o->network_id : txs.txs[0].utx.network_id, "C");
				sl_jw_key(w, "kind");
				sl_jw_str(w, batched ? "cchain.atomic_batch" : "cchain.atomic_tx");
				sl_jw_key(w, "value");
				if (batched)
					sl_atomic_txs_write_json(w, &txs, &ctx);
				else
					sl_atomic_tx_write_json(w, &txs.txs[0], &ctx);
				return true;
			}
			if (n)
				note_failure(at, batched ? "cchain.atomic_batch" : "cchain.atomic_tx", &e);
		}
	}
	return false;
}

static int run(const struct opts *o)
{
	int rc = 1;
	sl_buf in, out;
	sl_buf_init(&in, DECODE_MAX_INPUT);
	sl_buf_init(&out, SL_HTTP_MAX_RESPONSE);
	sl_arena a;
	sl_arena_init(&a, DECODE_ARENA_CAP);
	if (!read_input(o->input, &in)) {
		if (o->input[0] != '@')
			fprintf(stderr, "decode: input is not hex\n");
		goto done;
	}
	size_t n = strip_checksum(in.p, in.len);
	const uint8_t *p = in.p ? in.p : (const uint8_t *)"";
	struct attempt at = { 0 };
	sl_jw w;
	sl_jw_init(&w, &out);
	sl_jw_obj(&w);

	bool ok = false;
	/* A proposervm wrapper first: P, X and C containers after ApricotPhase4. */
	sl_span inner;
	const sl_proposervm_block *outer = NULL;
	if (sl_proposervm_unwrap(p, n, &a, &inner, &outer) && outer) {
		sl_jw_key(&w, "kind");
		sl_jw_str(&w, "proposervm.block");
		sl_jw_key(&w, "type");
		sl_jw_str(&w, sl_proposervm_kind_name(outer->kind));
		sl_jw_key(&w, "id");
		sl_jw_cb58(&w, outer->id, 32);
		sl_jw_key(&w, "parentID");
		sl_jw_cb58(&w, outer->parent_id.p, outer->parent_id.len);
		if (outer->kind != SL_PROPOSERVM_OPTION) {
			sl_jw_key(&w, "timestamp");
			sl_jw_i64(&w, outer->timestamp);
			sl_jw_key(&w, "pChainHeight");
			sl_jw_u64(&w, outer->pchain_height);
			sl_jw_key(&w, "proposer");
			if (outer->has_proposer) {
				sl_buf id;
				sl_buf_init(&id, 128);
				sl_nodeid_write(&id, outer->proposer);
				sl_jw_strn(&w, sl_buf_str(&id), id.len);
				sl_buf_release(&id);
			} else
				sl_jw_null(&w);
		}
		sl_jw_key(&w, "inner");
		sl_jw_obj(&w);
		struct attempt inner_at = { 0 };
		if (!decode_inner(&a, inner.p, inner.len, o, o->chain, &w, &inner_at)) {
			/* C-chain RLP or an unknown inner format: show the bytes */
			sl_jw_key(&w, "kind");
			sl_jw_str(&w, "raw");
			sl_jw_key(&w, "value");
			sl_jw_hex(&w, inner.p, inner.len);
		}
		sl_jw_obj_end(&w);
		ok = true;
	} else {
		ok = decode_inner(&a, p, n, o, o->chain, &w, &at);
	}
	sl_jw_obj_end(&w);
	if (!ok) {
		if (at.best_kind)
			fprintf(stderr, "decode: not a valid %s: %s (%s) at byte %zu\n", at.best_kind, at.best.msg,
				sl_err_name(at.best.code), at.best.offset);
		else
			fprintf(stderr, "decode: empty input\n");
		goto done;
	}
	if (out.err) {
		fprintf(stderr, "decode: output too large\n");
		goto done;
	}
	fwrite(out.p, 1, out.len, stdout);
	fputc('\n', stdout);
	rc = 0;
done:
	sl_arena_release(&a);
	sl_buf_release(&out);
	sl_buf_release(&in);
	return rc;
}

int cmd_decode(int argc, char **argv)
{
	struct opts o = { .chain = CHAIN_ANY };
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
			return usage(stdout);
		if (!strcmp(arg, "--chain") && i + 1 < argc) {
			const char *c = argv[++i];
			if (!strcmp(c, "P") || !strcmp(c, "p"))
				o.chain = CHAIN_P;
			else if (!strcmp(c, "X") || !strcmp(c, "x"))
				o.chain = CHAIN_X;
			else if (!strcmp(c, "C") || !strcmp(c, "c"))
				o.chain = CHAIN_C;
			else
				return usage(stderr);
		} else if (!strcmp(arg, "--network-id") && i + 1 < argc) {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(argv[++i], &end, 10);
			if (errno || *end || end == argv[i] || v > UINT32_MAX)
				return usage(stderr);
			o.has_network = true;
			o.network_id = (uint32_t)v;
		} else if (arg[0] == '-' && arg[1] == '-') {
			return usage(stderr);
		} else if (!o.input) {
			o.input = arg;
		} else {
			return usage(stderr);
		}
	}
	if (!o.input)
		return usage(stderr);
	return run(&o);
}
