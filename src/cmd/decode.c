/*
 * snowline decode — print a container, block, tx or warp message as JSON.
 *
 *   snowline decode [--chain P|X|C] [--network-id N] [--kind KIND] [--reencode] HEX|@FILE
 *   snowline decode --bench FILE [--rounds N]
 *
 * Input is hex (with or without 0x, with or without the index API's 4-byte
 * checksum, which is verified when present) or @FILE holding hex or raw
 * bytes. A proposervm wrapper is recognised first and its inner block is
 * decoded too. Then the bytes are tried, in the order of `kinds[]` below,
 * as every format the chain (--chain, default any) can hold: P-chain block,
 * signed and unsigned tx; X-chain tx, block and vertex; C-chain atomic tx
 * (single, then batched extData) and coreth block (whose extData atomic
 * txs are decoded as well); then warp: signed and unsigned messages,
 * payloads, L1 validator messages and SubnetToL1ConversionData. --kind
 * names the one format to try (some warp layouts coincide: a Hash payload
 * and a SubnetToL1Conversion message are the same bytes).
 *
 * Output: {"kind":"…","type":"…","value":{…}}; a proposervm container is
 * {"kind":"proposervm.block",…,"inner":{kind, type, value}}. With
 * --reencode the decoded value is encoded again and the output is
 * {"kind":"…","hex":"0x…"} (for a proposervm container, the wrapper
 * around the re-encoded inner block).
 *
 * --bench (hidden; bench/decode.sh drives it) decodes a file of records
 * `kind u8 | length u32be | bytes` (kinds in `bench_kinds[]`) --rounds
 * times and prints the best round per kind as one JSON object. Each record
 * is decoded as the indexer would, knowing its chain: the chain's decoder
 * only, in a fresh arena, ids computed; proposervm records are unwrapped
 * and their inner block decoded.
 *
 * Exit 0 on success; 1 on a decode error (the message and the byte offset
 * of the attempt that got furthest go to stderr); 2 on a usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cmd/cmd.h"
#include "codec/json.h"
#include "codec/json_evm.h"
#include "codec/proposervm.h"
#include "crypto/addr.h"
#include "crypto/cb58.h"
#include "crypto/hash.h"
#include "util/arena.h"
#include "util/limits.h"

#define DECODE_ARENA_CAP (256u << 20)
#define DECODE_MAX_INPUT (4u * SL_MAX_CONTAINER)
#define BENCH_MAX_FILE (1u << 30)
#define BENCH_MAX_ROUNDS 1000

/* Which formats are tried: the chain's, and warp ones at the top level. */
enum chain { CHAIN_ANY = 0, CHAIN_P = 1, CHAIN_X = 2, CHAIN_C = 4, CHAIN_WARP = 8 };

struct opts {
	unsigned chain; /* CHAIN_ANY or one chain */
	bool has_network;
	uint32_t network_id;
	const char *kind; /* --kind, or NULL */
	bool reencode;
	const char *input;
	const char *bench;
	unsigned rounds;
};

/* One decoded value of any kind; which member is live is `kind`. */
typedef struct decoded {
	const struct kind_def *kind;
	union {
		sl_pchain_block pblock;
		sl_pchain_tx ptx;
		sl_xchain_tx xtx;
		sl_xchain_block xblock;
		sl_xchain_vertex vertex;
		sl_atomic_txs atomic;
		sl_coreth_block cblock;
		sl_warp_message warp;
		sl_warp_unsigned warp_unsigned;
		sl_warp_payload warp_payload;
		sl_warp_l1_msg warp_l1;
		sl_warp_conversion warp_conversion;
	} v;
	/* cchain.block: the extData's atomic txs (none when extData is empty) */
	bool ext_ok;
	sl_atomic_txs ext;
	sl_err_detail ext_err;
} decoded;

typedef sl_err (*decode_fn)(sl_arena *a, const uint8_t *p, size_t n, const struct opts *o, decoded *d,
			    sl_err_detail *e);
typedef void (*json_fn)(sl_jw *w, const decoded *d, const struct opts *o);
typedef const char *(*type_fn)(const decoded *d);
typedef sl_err (*encode_fn)(sl_buf *out, const decoded *d);

struct kind_def {
	const char *name;
	unsigned chains; /* the --chain values it is tried under */
	decode_fn decode;
	type_fn type;  /* the "type" field, or NULL */
	json_fn json;  /* the "value" */
	json_fn extra; /* keys beside "value", or NULL */
	encode_fn encode;
};

static uint32_t net_or(const struct opts *o, uint32_t fallback)
{
	return o->has_network ? o->network_id : fallback;
}

static const uint8_t version0[2] = { 0, 0 };

/* ---- P-chain ---------------------------------------------------------------- */

static sl_err pblock_decode(sl_arena *a, const uint8_t *p, size_t n, const struct opts *o, decoded *d,
			    sl_err_detail *e)
{
	(void)o;
	return sl_pchain_block_decode(a, p, n, &d->v.pblock, e);
}
static const char *pblock_type(const decoded *d) { return sl_pchain_type_name(d->v.pblock.type_id); }
static void pblock_json(sl_jw *w, const decoded *d, const struct opts *o)
{
	const sl_pchain_block *b = &d->v.pblock;
	uint32_t first = 1;
	if (sl_pchain_block_tx_count(b)) {
		const sl_pchain_tx *tx = sl_pchain_block_tx_at(b, 0);
		if (tx->utx.has_base)
			first = tx->utx.base.network_id;
	}
	sl_codec_ctx ctx = sl_codec_ctx_for(net_or(o, first), "P");
	sl_pchain_block_write_json(w, b, &ctx);
}
static sl_err pblock_encode(sl_buf *out, const decoded *d)
{
	return sl_pchain_block_encode(out, &d->v.pblock);
}

static sl_err ptx_decode(sl_arena *a, const uint8_t *p, size_t n, const struct opts *o, decoded *d,
			 sl_err_detail *e)
{
	(void)o;
	return sl_pchain_tx_decode(a, p, n, &d->v.ptx, e);
}
static sl_err putx_decode(sl_arena *a, const uint8_t *p, size_t n, const struct opts *o, decoded *d,
			  sl_err_detail *e)
{
	(void)o;
	return sl_pchain_utx_decode(a, p, n, &d->v.ptx, e);
}
static const char *ptx_type(const decoded *d) { return sl_pchain_type_name(d->v.ptx.utx.type_id); }
static void ptx_json(sl_jw *w, const decoded *d, const struct opts *o)
{
	const sl_pchain_tx *tx = &d->v.ptx;
	sl_codec_ctx ctx = sl_codec_ctx_for(net_or(o, tx->utx.has_base ? tx->utx.base.network_id : 1), "P");
	sl_pchain_tx_write_json(w, tx, &ctx);
}
static void putx_json(sl_jw *w, const decoded *d, const struct opts *o)
{
	const sl_pchain_tx *tx = &d->v.ptx;
	sl_codec_ctx ctx = sl_codec_ctx_for(net_or(o, tx->utx.has_base ? tx->utx.base.network_id : 1), "P");
	sl_jw_obj(w);
	sl_jw_key(w, "unsignedTx");
	sl_pchain_utx_write_json(w, &tx->utx, &ctx);
	sl_jw_obj_end(w);
}
static sl_err ptx_encode(sl_buf *out, const decoded *d) { return sl_pchain_tx_encode(out, &d->v.ptx); }
static sl_err putx_encode(sl_buf *out, const decoded *d)
{
	sl_buf_add(out, version0, 2);
	sl_pchain_utx_write(out, &d->v.ptx.utx);
	return out->err;
}

/* ---- X-chain ---------------------------------------------------------------- */

static sl_err xtx_decode(sl_arena *a, const uint8_t *p, size_t n, const struct opts *o, decoded *d,
			 sl_err_detail *e)
{
	(void)o;
	return sl_xchain_tx_decode(a, p, n, &d->v.xtx, e);
}
static const char *xtx_type(const decoded *d) { return sl_xchain_type_name(d->v.xtx.utx.type_id); }
static void xtx_json(sl_jw *w, const decoded *d, const struct opts *o)
{
	sl_codec_ctx ctx = sl_codec_ctx_for(net_or(o, d->v.xtx.utx.base.network_id), "X");
	sl_xchain_tx_write_json(w, &d->v.xtx, &ctx);
}
static sl_err xtx_encode(sl_buf *out, const decoded *d) { return sl_xchain_tx_encode(out, &d->v.xtx); }

static sl_err xblock_decode(sl_arena *a, const uint8_t *p, size_t n, const struct opts *o, decoded *d,
			    sl_err_detail *e)
{
	(void)o;
	return sl_xchain_block_decode(a, p, n, &d->v.xblock, e);
}
static const char *xblock_type(const decoded *d)
{
	(void)d;
	return "StandardBlock";
}
static void xblock_json(sl_jw *w, const decoded *d, const struct opts *o)
{
	const sl_xchain_block *b = &d->v.xblock;
	sl_codec_ctx ctx = sl_codec_ctx_for(net_or(o, b->ntxs ? b->txs[0].utx.base.network_id : 1), "X");
	sl_xchain_block_write_json(w, b, &ctx);
}
static sl_err xblock_encode(sl_buf *out, const decoded *d)
{
	return sl_xchain_block_encode(out, &d->v.xblock);
}

static sl_err vertex_decode(sl_arena *a, const uint8_t *p, size_t n, const struct opts *o, decoded *d,
			    sl_err_detail *e)
{
	(void)o;
	return sl_xchain_vertex_decode(a, p, n, &d->v.vertex, e);
}
static void vertex_json(sl_jw *w, const decoded *d, const struct opts *o)
{
	const sl_xchain_vertex *v = &d->v.vertex;
	sl_codec_ctx ctx = sl_codec_ctx_for(net_or(o, v->ntxs ? v->txs[0].utx.base.network_id : 1), "X");
	sl_xchain_vertex_write_json(w, v, &ctx);
}
static sl_err vertex_encode(sl_buf *out, const decoded *d)
{
	return sl_xchain_vertex_encode(out, &d->v.vertex);
}

/* ---- C-chain ---------------------------------------------------------------- */

static sl_err atomic_decode(sl_arena *a, const uint8_t *p, size_t n, bool batched, decoded *d,
			    sl_err_detail *e)
{
	if (!n) { /* empty extData is zero txs: not worth printing as a tx */
		*e = (sl_err_detail){ SL_ERR_TRUNCATED, "empty input", 0 };
		return SL_ERR_TRUNCATED;
	}
	return sl_atomic_extdata_decode(a, p, n, batched, &d->v.atomic, e);
}
static sl_err atomic1_decode(sl_arena *a, const uint8_t *p, size_t n, const struct opts *o, decoded *d,
			     sl_err_detail *e)
{
	(void)o;
	return atomic_decode(a, p, n, false, d, e);
}
static sl_err atomicn_decode(sl_arena *a, const uint8_t *p, size_t n, const struct opts *o, decoded *d,
			     sl_err_detail *e)
{
	(void)o;
	return atomic_decode(a, p, n, true, d, e);
}
static const char *atomic1_type(const decoded *d)
{
	return sl_atomic_type_name(d->v.atomic.txs[0].utx.type_id);
}
static void atomic1_json(sl_jw *w, const decoded *d, const struct opts *o)
{
	sl_codec_ctx ctx = sl_codec_ctx_for(net_or(o, d->v.atomic.txs[0].utx.network_id), "C");
	sl_atomic_tx_write_json(w, &d->v.atomic.txs[0], &ctx);
}
static void atomicn_json(sl_jw *w, const decoded *d, const struct opts *o)
{
	sl_codec_ctx ctx = sl_codec_ctx_for(net_or(o, d->v.atomic.txs[0].utx.network_id), "C");
	sl_atomic_txs_write_json(w, &d->v.atomic, &ctx);
}
static sl_err atomic_encode(sl_buf *out, const decoded *d)
{
	return sl_atomic_extdata_encode(out, &d->v.atomic);
}

/*
 * A coreth block; its extData is decoded in the layout the block's time
 * calls for on the network (mainnet unless --network-id), and in the other
 * layout when that fails (a devnet's or an unknown network's blocks).
 */
static sl_err cblock_decode(sl_arena *a, const uint8_t *p, size_t n, const struct opts *o, decoded *d,
			    sl_err_detail *e)
{
	sl_err err = sl_coreth_block_decode(p, n, a, &d->v.cblock, e);
	if (err != SL_OK)
		return err;
	const sl_coreth_block *b = &d->v.cblock;
	d->ext_ok = false;
	d->ext = (sl_atomic_txs){ 0 };
	if (b->ext_data.len) {
		bool batched = b->header.time >= sl_atomic_ap5_time(net_or(o, 1));
		if (sl_atomic_extdata_decode(a, b->ext_data.p, b->ext_data.len, batched, &d->ext,
					     &d->ext_err) == SL_OK)
			d->ext_ok = true;
		else if (sl_atomic_extdata_decode(a, b->ext_data.p, b->ext_data.len, !batched, &d->ext,
						  &(sl_err_detail){ 0 }) == SL_OK)
			d->ext_ok = true;
	} else {
		d->ext_ok = true;
	}
	return SL_OK;
}
static void cblock_json(sl_jw *w, const decoded *d, const struct opts *o)
{
	(void)o;
	sl_coreth_block_write_json(w, &d->v.cblock);
}
/* The extData's atomic txs, decoded (or why not). */
static void cblock_extra(sl_jw *w, const decoded *d, const struct opts *o)
{
	if (d->ext_ok) {
		sl_codec_ctx ctx =
			sl_codec_ctx_for(net_or(o, d->ext.ntxs ? d->ext.txs[0].utx.network_id : 1), "C");
		sl_jw_key(w, "atomicTxs");
		sl_atomic_txs_write_json(w, &d->ext, &ctx);
	} else {
		char msg[160];
		int m = snprintf(msg, sizeof msg, "%s (%s) at byte %zu of extData", d->ext_err.msg,
				 sl_err_name(d->ext_err.code), d->ext_err.offset);
		sl_jw_key(w, "atomicTxsError");
		sl_jw_strn(w, msg, m > 0 ? SL_MIN((size_t)m, sizeof msg - 1) : 0);
	}
}
static sl_err cblock_encode(sl_buf *out, const decoded *d)
{
	return sl_coreth_block_encode(&d->v.cblock, out);
}

/* ---- warp ------------------------------------------------------------------- */

static sl_err warp_decode(sl_arena *a, const uint8_t *p, size_t n, const struct opts *o, decoded *d,
			  sl_err_detail *e)
{
	(void)a, (void)o;
	return sl_warp_message_decode(p, n, &d->v.warp, e);
}
static void warp_json(sl_jw *w, const decoded *d, const struct opts *o)
{
	(void)o;
	sl_warp_message_write_json(w, &d->v.warp);
}
static sl_err warp_encode(sl_buf *out, const decoded *d) { return sl_warp_message_encode(&d->v.warp, out); }

static sl_err wunsigned_decode(sl_arena *a, const uint8_t *p, size_t n, const struct opts *o, decoded *d,
			       sl_err_detail *e)
{
	(void)a, (void)o;
	return sl_warp_unsigned_decode(p, n, &d->v.warp_unsigned, e);
}
static void wunsigned_json(sl_jw *w, const decoded *d, const struct opts *o)
{
	(void)o;
	sl_warp_unsigned_write_json(w, &d->v.warp_unsigned);
}
static sl_err wunsigned_encode(sl_buf *out, const decoded *d)
{
	return sl_warp_unsigned_encode(&d->v.warp_unsigned, out);
}

static sl_err wpayload_decode(sl_arena *a, const uint8_t *p, size_t n, const struct opts *o, decoded *d,
			      sl_err_detail *e)
{
	(void)a, (void)o;
	return sl_warp_payload_decode(p, n, &d->v.warp_payload, e);
}
static const char *wpayload_type(const decoded *d)
{
	return sl_warp_payload_type_name(d->v.warp_payload.type);
}
static void wpayload_json(sl_jw *w, const decoded *d, const struct opts *o)
{
	sl_warp_payload_write_json(w, &d->v.warp_payload, o->has_network ? sl_addr_hrp(o->network_id) : NULL);
}
static sl_err wpayload_encode(sl_buf *out, const decoded *d)
{
	return sl_warp_payload_encode(&d->v.warp_payload, out);
}

static sl_err wl1_decode(sl_arena *a, const uint8_t *p, size_t n, const struct opts *o, decoded *d,
			 sl_err_detail *e)
{
	(void)a, (void)o;
	return sl_warp_l1_decode(p, n, &d->v.warp_l1, e);
}
static const char *wl1_type(const decoded *d) { return sl_warp_l1_type_name(d->v.warp_l1.type); }
static void wl1_json(sl_jw *w, const decoded *d, const struct opts *o)
{
	sl_warp_l1_write_json(w, &d->v.warp_l1, o->has_network ? sl_addr_hrp(o->network_id) : NULL);
}
static sl_err wl1_encode(sl_buf *out, const decoded *d) { return sl_warp_l1_encode(&d->v.warp_l1, out); }

static sl_err wconv_decode(sl_arena *a, const uint8_t *p, size_t n, const struct opts *o, decoded *d,
			   sl_err_detail *e)
{
	(void)o;
	return sl_warp_conversion_decode(p, n, a, &d->v.warp_conversion, e);
}
static void wconv_json(sl_jw *w, const decoded *d, const struct opts *o)
{
	(void)o;
	sl_warp_conversion_write_json(w, &d->v.warp_conversion);
}
static sl_err wconv_encode(sl_buf *out, const decoded *d)
{
	return sl_warp_conversion_encode(&d->v.warp_conversion, out);
}

/*
 * Every format, in the order they are tried. P/X first (the codec
 * formats share the 00 00 header and are told apart by full consumption),
 * the atomic extData layouts, coreth (RLP, never starts with 00), then
 * warp. Where two layouts coincide the earlier one wins; --kind chooses.
 */
static const struct kind_def kinds[] = {
	{ "pchain.block", CHAIN_P, pblock_decode, pblock_type, pblock_json, NULL, pblock_encode },
	{ "pchain.tx", CHAIN_P, ptx_decode, ptx_type, ptx_json, NULL, ptx_encode },
	{ "pchain.unsigned_tx", CHAIN_P, putx_decode, ptx_type, putx_json, NULL, putx_encode },
	{ "xchain.tx", CHAIN_X, xtx_decode, xtx_type, xtx_json, NULL, xtx_encode },
	{ "xchain.block", CHAIN_X, xblock_decode, xblock_type, xblock_json, NULL, xblock_encode },
	{ "xchain.vertex", CHAIN_X, vertex_decode, NULL, vertex_json, NULL, vertex_encode },
	{ "cchain.atomic_tx", CHAIN_C, atomic1_decode, atomic1_type, atomic1_json, NULL, atomic_encode },
	{ "cchain.atomic_batch", CHAIN_C, atomicn_decode, NULL, atomicn_json, NULL, atomic_encode },
	{ "cchain.block", CHAIN_C, cblock_decode, NULL, cblock_json, cblock_extra, cblock_encode },
	{ "warp.message", CHAIN_WARP, warp_decode, NULL, warp_json, NULL, warp_encode },
	{ "warp.unsigned_message", CHAIN_WARP, wunsigned_decode, NULL, wunsigned_json, NULL,
	  wunsigned_encode },
	{ "warp.l1_message", CHAIN_WARP, wl1_decode, wl1_type, wl1_json, NULL, wl1_encode },
	{ "warp.payload", CHAIN_WARP, wpayload_decode, wpayload_type, wpayload_json, NULL, wpayload_encode },
	{ "warp.conversion_data", CHAIN_WARP, wconv_decode, NULL, wconv_json, NULL, wconv_encode },
};

static const struct kind_def *kind_lookup(const char *name)
{
	for (size_t i = 0; i < SL_ARRAY_LEN(kinds); i++)
		if (!strcmp(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

/* ---- input ------------------------------------------------------------------ */

static int usage(FILE *f)
{
	fprintf(f,
		"usage: snowline decode [--chain P|X|C] [--network-id N] [--kind KIND] [--reencode] HEX|@FILE\n"
		"  HEX may carry a 0x prefix and the index API's 4-byte checksum.\n"
		"  @FILE holds hex text or raw bytes.\n"
		"  --kind tries one format only:");
	for (size_t i = 0; i < SL_ARRAY_LEN(kinds); i++)
		fprintf(f, " %s", kinds[i].name);
	fprintf(f, "\n  --reencode prints {\"kind\",\"hex\"}: the decoded value encoded again.\n");
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

/* The whole of a file into out (capped by out's maximum). */
static bool read_file(const char *path, sl_buf *out)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "decode: %s: %s\n", path, strerror(errno));
		return false;
	}
	uint8_t chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		sl_buf_add(out, chunk, n);
	bool ok = !ferror(f) && out->err == SL_OK;
	fclose(f);
	if (!ok)
		fprintf(stderr, "decode: cannot read %s%s\n", path, out->err ? " (too large)" : "");
	return ok;
}

static bool read_input(const char *arg, sl_buf *out)
{
	if (arg[0] != '@')
		return parse_hex(arg, strlen(arg), out);
	sl_buf raw;
	sl_buf_init(&raw, 2 * DECODE_MAX_INPUT + 16);
	bool ok = read_file(arg + 1, &raw);
	if (ok && !parse_hex((const char *)raw.p, raw.len, out)) {
		sl_buf_reset(out);
		sl_buf_add(out, raw.p, raw.len); /* not hex: raw bytes */
		ok = out->err == SL_OK;
	}
	sl_buf_release(&raw);
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

/* ---- decode ----------------------------------------------------------------- */

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

/*
 * Try each format the options allow (warp ones only when `warp`); the
 * first that decodes fills *d. False when none does (*at says why).
 */
static bool decode_any(sl_arena *a, const uint8_t *p, size_t n, const struct opts *o, bool warp, decoded *d,
		       struct attempt *at)
{
	unsigned chains = (o->chain == CHAIN_ANY ? CHAIN_P | CHAIN_X | CHAIN_C : o->chain) |
			  (warp ? CHAIN_WARP : 0);
	for (size_t i = 0; i < SL_ARRAY_LEN(kinds); i++) {
		const struct kind_def *k = &kinds[i];
		if (o->kind ? strcmp(o->kind, k->name) != 0 : !(k->chains & chains))
			continue;
		sl_err_detail e = { 0 };
		*d = (decoded){ .kind = k };
		if (k->decode(a, p, n, o, d, &e) == SL_OK)
			return true;
		note_failure(at, k->name, &e);
	}
	return false;
}

/* "kind", "type", "value" (and the kind's extra keys) into the open object. */
static void write_decoded(sl_jw *w, const decoded *d, const struct opts *o)
{
	const struct kind_def *k = d->kind;
	sl_jw_key(w, "kind");
	sl_jw_str(w, k->name);
	const char *type = k->type ? k->type(d) : NULL;
	if (type) {
		sl_jw_key(w, "type");
		sl_jw_str(w, type);
	}
	sl_jw_key(w, "value");
	k->json(w, d, o);
	if (k->extra)
		k->extra(w, d, o);
}

static void write_proposervm_fields(sl_jw *w, const sl_proposervm_block *outer)
{
	sl_jw_key(w, "kind");
	sl_jw_str(w, "proposervm.block");
	sl_jw_key(w, "type");
	sl_jw_str(w, sl_proposervm_kind_name(outer->kind));
	sl_jw_key(w, "id");
	sl_jw_cb58(w, outer->id, 32);
	sl_jw_key(w, "parentID");
	sl_jw_cb58(w, outer->parent_id.p, outer->parent_id.len);
	if (outer->kind == SL_PROPOSERVM_OPTION)
		return;
	sl_jw_key(w, "timestamp");
	sl_jw_i64(w, outer->timestamp);
	sl_jw_key(w, "pChainHeight");
	sl_jw_u64(w, outer->pchain_height);
	if (outer->kind == SL_PROPOSERVM_GRANITE) {
		sl_jw_key(w, "epoch");
		sl_jw_obj(w);
		sl_jw_key(w, "pChainHeight");
		sl_jw_u64(w, outer->epoch.pchain_height);
		sl_jw_key(w, "number");
		sl_jw_u64(w, outer->epoch.number);
		sl_jw_key(w, "startTime");
		sl_jw_i64(w, outer->epoch.start_time);
		sl_jw_obj_end(w);
	}
	sl_jw_key(w, "proposer");
	if (outer->has_proposer) {
		sl_buf id;
		sl_buf_init(&id, 128);
		sl_nodeid_write(&id, outer->proposer);
		sl_jw_strn(w, sl_buf_str(&id), id.len);
		sl_buf_release(&id);
	} else {
		sl_jw_null(w);
	}
}

/* --reencode of a proposervm container: the wrapper around the re-encoded inner block. */
static sl_err reencode_wrapped(const sl_proposervm_block *outer, const decoded *inner, bool inner_ok,
			       sl_buf *out)
{
	sl_buf ib;
	sl_buf_init(&ib, DECODE_MAX_INPUT);
	sl_proposervm_block b = *outer;
	sl_err err = SL_OK;
	if (inner_ok) {
		err = inner->kind->encode(&ib, inner);
		b.inner = (sl_span){ ib.p, ib.len };
	}
	if (err == SL_OK)
		err = sl_proposervm_block_encode(&b, out);
	sl_buf_release(&ib);
	return err;
}

static int run(const struct opts *o)
{
	int rc = 1;
	sl_buf in, out, enc;
	sl_buf_init(&in, DECODE_MAX_INPUT);
	sl_buf_init(&out, SL_HTTP_MAX_RESPONSE);
	sl_buf_init(&enc, 2 * DECODE_MAX_INPUT);
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
	decoded d;
	sl_jw w;
	sl_jw_init(&w, &out);
	sl_jw_obj(&w);

	/* A proposervm wrapper first: P, X and C containers after ApricotPhase4. */
	sl_span inner;
	const sl_proposervm_block *outer = NULL;
	if (!o->kind && sl_proposervm_unwrap(p, n, &a, &inner, &outer) && outer) {
		struct attempt inner_at = { 0 };
		bool inner_ok = decode_any(&a, inner.p, inner.len, o, false, &d, &inner_at);
		if (o->reencode) {
			sl_err err = reencode_wrapped(outer, &d, inner_ok, &enc);
			if (err != SL_OK) {
				fprintf(stderr, "decode: re-encoding failed: %s\n", sl_err_name(err));
				goto done;
			}
			sl_jw_key(&w, "kind");
			sl_jw_str(&w, "proposervm.block");
			sl_jw_key(&w, "hex");
			sl_jw_hex(&w, enc.p, enc.len);
		} else {
			write_proposervm_fields(&w, outer);
			sl_jw_key(&w, "inner");
			sl_jw_obj(&w);
			if (inner_ok) {
				write_decoded(&w, &d, o);
			} else { /* an inner format we do not know: show the bytes */
				sl_jw_key(&w, "kind");
				sl_jw_str(&w, "raw");
				sl_jw_key(&w, "value");
				sl_jw_hex(&w, inner.p, inner.len);
			}
			sl_jw_obj_end(&w);
		}
	} else if (decode_any(&a, p, n, o, true, &d, &at)) {
		if (o->reencode) {
			sl_err err = d.kind->encode(&enc, &d);
			if (err != SL_OK) {
				fprintf(stderr, "decode: re-encoding failed: %s\n", sl_err_name(err));
				goto done;
			}
			sl_jw_key(&w, "kind");
			sl_jw_str(&w, d.kind->name);
			sl_jw_key(&w, "hex");
			sl_jw_hex(&w, enc.p, enc.len);
		} else {
			write_decoded(&w, &d, o);
		}
	} else {
		if (at.best_kind)
			fprintf(stderr, "decode: not a valid %s: %s (%s) at byte %zu\n", at.best_kind,
				at.best.msg, sl_err_name(at.best.code), at.best.offset);
		else
			fprintf(stderr, "decode: nothing to try\n");
		goto done;
	}
	sl_jw_obj_end(&w);
	if (out.err) {
		fprintf(stderr, "decode: output too large\n");
		goto done;
	}
	fwrite(out.p, 1, out.len, stdout);
	fputc('\n', stdout);
	rc = 0;
done:
	sl_arena_release(&a);
	sl_buf_release(&enc);
	sl_buf_release(&out);
	sl_buf_release(&in);
	return rc;
}

/* ---- bench ------------------------------------------------------------------ */

/*
 * A record's kind says what the indexer would know: which chain and index
 * the bytes came from. Wrapped kinds are unwrapped and their inner block
 * decoded with the chain's block decoder.
 */
enum {
	BK_PTX,
	BK_PTX_POP,
	BK_PBLOCK,
	BK_XTX,
	BK_XBLOCK,
	BK_CBLOCK,
	BK_WARP,
	BK_VM_P,
	BK_VM_X,
	BK_VM_C,
	BK__COUNT
};
static const struct {
	char tag;
	const char *name;
} bench_kinds[BK__COUNT] = {
	[BK_PTX] = { 'P', "pchain.tx" },
	[BK_PTX_POP] = { 'Q', "pchain.tx+pop" },
	[BK_PBLOCK] = { 'B', "pchain.block" },
	[BK_XTX] = { 'X', "xchain.tx" },
	[BK_XBLOCK] = { 'Y', "xchain.block" },
	[BK_CBLOCK] = { 'C', "cchain.block" },
	[BK_WARP] = { 'W', "warp.message" },
	[BK_VM_P] = { 'p', "proposervm+pchain.block" },
	[BK_VM_X] = { 'x', "proposervm+xchain.block" },
	[BK_VM_C] = { 'c', "proposervm+cchain.block" },
};

static sl_err bench_one(sl_arena *a, int kind, const uint8_t *p, size_t n, sl_err_detail *e)
{
	union {
		sl_pchain_tx ptx;
		sl_pchain_block pb;
		sl_xchain_tx xtx;
		sl_xchain_block xb;
		sl_coreth_block cb;
		sl_warp_message wm;
		sl_proposervm_block vm;
	} v;
	sl_err err;
	switch (kind) {
	case BK_PTX:
	case BK_PTX_POP: return sl_pchain_tx_decode(a, p, n, &v.ptx, e);
	case BK_PBLOCK: return sl_pchain_block_decode(a, p, n, &v.pb, e);
	case BK_XTX: return sl_xchain_tx_decode(a, p, n, &v.xtx, e);
	case BK_XBLOCK: return sl_xchain_block_decode(a, p, n, &v.xb, e);
	case BK_CBLOCK: return sl_coreth_block_decode(p, n, a, &v.cb, e);
	case BK_WARP: return sl_warp_message_decode(p, n, &v.wm, e);
	default:
		err = sl_proposervm_block_decode(p, n, &v.vm, e);
		if (err != SL_OK)
			return err;
		sl_span in = v.vm.inner;
		return bench_one(a,
				 kind == BK_VM_P   ? BK_PBLOCK
				 : kind == BK_VM_X ? BK_XBLOCK
						   : BK_CBLOCK,
				 in.p, in.len, e);
	}
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct bench_rec {
	int kind;
	const uint8_t *p;
	uint32_t n;
};

static int run_bench(const struct opts *o)
{
	int rc = 1;
	sl_buf file, out;
	sl_buf_init(&file, BENCH_MAX_FILE);
	sl_buf_init(&out, 1u << 16);
	struct bench_rec *recs = NULL;
	if (!read_file(o->bench, &file))
		goto done;
	size_t cap = file.len / 5 + 1, nrec = 0;
	recs = calloc(cap, sizeof *recs);
	if (!recs)
		goto done;
	for (size_t off = 0; off < file.len;) {
		int kind = -1;
		for (int k = 0; k < BK__COUNT; k++)
			if (file.p[off] == (uint8_t)bench_kinds[k].tag)
				kind = k;
		if (kind < 0 || file.len - off < 5 || sl_be32(file.p + off + 1) > file.len - off - 5) {
			fprintf(stderr, "decode: bench file: bad record at byte %zu\n", off);
			goto done;
		}
		recs[nrec++] = (struct bench_rec){ kind, file.p + off + 5, sl_be32(file.p + off + 1) };
		off += 5 + (size_t)recs[nrec - 1].n;
	}

	uint64_t count[BK__COUNT] = { 0 }, bytes[BK__COUNT] = { 0 };
	double best[BK__COUNT];
	for (int k = 0; k < BK__COUNT; k++)
		best[k] = 1e30;
	for (size_t i = 0; i < nrec; i++)
		count[recs[i].kind]++, bytes[recs[i].kind] += recs[i].n;

	/* each kind timed on its own, so the caller can compare any subset */
	for (unsigned round = 0; round < o->rounds; round++) {
		for (int k = 0; k < BK__COUNT; k++) {
			if (!count[k])
				continue;
			double t0 = now_seconds();
			for (size_t i = 0; i < nrec; i++) {
				if (recs[i].kind != k)
					continue;
				sl_arena a;
				sl_arena_init(&a, DECODE_ARENA_CAP);
				sl_err_detail e = { 0 };
				sl_err err = bench_one(&a, k, recs[i].p, recs[i].n, &e);
				sl_arena_release(&a);
				if (err != SL_OK) {
					fprintf(stderr,
						"decode: bench record %zu (%s): %s (%s) at byte %zu\n", i,
						bench_kinds[k].name, e.msg, sl_err_name(e.code), e.offset);
					goto done;
				}
			}
			double t = now_seconds() - t0;
			if (t < best[k])
				best[k] = t;
		}
	}

	sl_jw w;
	sl_jw_init(&w, &out);
	sl_jw_obj(&w);
	sl_jw_key(&w, "rounds");
	sl_jw_u64(&w, o->rounds);
	sl_jw_key(&w, "kinds");
	sl_jw_obj(&w);
	for (int k = 0; k < BK__COUNT; k++) {
		if (!count[k])
			continue;
		char secs[64];
		int m = snprintf(secs, sizeof secs, "%.9f", best[k]);
		sl_jw_key(&w, bench_kinds[k].name);
		sl_jw_obj(&w);
		sl_jw_key(&w, "containers");
		sl_jw_u64(&w, count[k]);
		sl_jw_key(&w, "bytes");
		sl_jw_u64(&w, bytes[k]);
		sl_jw_key(&w, "seconds");
		sl_jw_raw(&w, secs, (size_t)m);
		sl_jw_obj_end(&w);
	}
	sl_jw_obj_end(&w);
	sl_jw_obj_end(&w);
	if (out.err)
		goto done;
	fwrite(out.p, 1, out.len, stdout);
	fputc('\n', stdout);
	rc = 0;
done:
	free(recs);
	sl_buf_release(&out);
	sl_buf_release(&file);
	return rc;
}

/* ---- options ---------------------------------------------------------------- */

static bool parse_u32(const char *s, uint32_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end || end == s || s[0] == '-' || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

int cmd_decode(int argc, char **argv)
{
	struct opts o = { .chain = CHAIN_ANY, .rounds = 3 };
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		bool has_val = i + 1 < argc;
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
			return usage(stdout);
		if (!strcmp(arg, "--chain") && has_val) {
			const char *c = argv[++i];
			if (!strcmp(c, "P") || !strcmp(c, "p"))
				o.chain = CHAIN_P;
			else if (!strcmp(c, "X") || !strcmp(c, "x"))
				o.chain = CHAIN_X;
			else if (!strcmp(c, "C") || !strcmp(c, "c"))
				o.chain = CHAIN_C;
			else
				return usage(stderr);
		} else if (!strcmp(arg, "--network-id") && has_val) {
			if (!parse_u32(argv[++i], &o.network_id))
				return usage(stderr);
			o.has_network = true;
		} else if (!strcmp(arg, "--kind") && has_val) {
			o.kind = argv[++i];
			if (!kind_lookup(o.kind)) {
				fprintf(stderr, "decode: unknown kind '%s'\n", o.kind);
				return usage(stderr);
			}
		} else if (!strcmp(arg, "--reencode")) {
			o.reencode = true;
		} else if (!strcmp(arg, "--bench") && has_val) {
			o.bench = argv[++i];
		} else if (!strcmp(arg, "--rounds") && has_val) {
			uint32_t r;
			if (!parse_u32(argv[++i], &r) || r == 0 || r > BENCH_MAX_ROUNDS)
				return usage(stderr);
			o.rounds = r;
		} else if (arg[0] == '-' && arg[1] == '-') {
			return usage(stderr);
		} else if (!o.input) {
			o.input = arg;
		} else {
			return usage(stderr);
		}
	}
	if (o.bench)
		return o.input ? usage(stderr) : run_bench(&o);
	if (!o.input)
		return usage(stderr);
	return run(&o);
}
