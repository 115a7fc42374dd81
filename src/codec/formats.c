#include "codec/formats.h"

#include <stdio.h>

#include "codec/json.h"
#include "codec/json_evm.h"

/* ---- per-format functions ----------------------------------------------------- */

typedef sl_err (*decode_fn)(sl_arena *a, const uint8_t *p, size_t n, sl_value *v, sl_err_detail *e);
typedef const char *(*type_fn)(const sl_value *v);
typedef void (*json_fn)(sl_jw *w, const sl_value *v, const sl_codec_ctx *ctx);
typedef sl_err (*encode_fn)(sl_buf *out, const sl_value *v);
typedef uint32_t (*network_fn)(const sl_value *v);
typedef const uint8_t *(*id_fn)(const sl_value *v);

static const uint8_t version0[2] = { 0, 0 };

/* P-chain */

static sl_err pblock_decode(sl_arena *a, const uint8_t *p, size_t n, sl_value *v, sl_err_detail *e)
{
	return sl_pchain_block_decode(a, p, n, &v->v.pblock, e);
}
static const char *pblock_type(const sl_value *v) { return sl_pchain_type_name(v->v.pblock.type_id); }
static uint32_t pblock_network(const sl_value *v)
{
	const sl_pchain_block *b = &v->v.pblock;
	for (uint32_t i = 0; i < sl_pchain_block_tx_count(b); i++) {
		const sl_pchain_tx *tx = sl_pchain_block_tx_at(b, i);
		if (tx->utx.has_base)
			return tx->utx.base.network_id;
	}
	return 0;
}
static void pblock_json(sl_jw *w, const sl_value *v, const sl_codec_ctx *ctx)
{
	sl_pchain_block_write_json(w, &v->v.pblock, ctx);
}
static sl_err pblock_encode(sl_buf *out, const sl_value *v)
{
	return sl_pchain_block_encode(out, &v->v.pblock);
}
static const uint8_t *pblock_id(const sl_value *v) { return v->v.pblock.id; }

static sl_err ptx_decode(sl_arena *a, const uint8_t *p, size_t n, sl_value *v, sl_err_detail *e)
{
	return sl_pchain_tx_decode(a, p, n, &v->v.ptx, e);
}
static sl_err putx_decode(sl_arena *a, const uint8_t *p, size_t n, sl_value *v, sl_err_detail *e)
{
	return sl_pchain_utx_decode(a, p, n, &v->v.ptx, e);
}
static const char *ptx_type(const sl_value *v) { return sl_pchain_type_name(v->v.ptx.utx.type_id); }
static uint32_t ptx_network(const sl_value *v)
{
	return v->v.ptx.utx.has_base ? v->v.ptx.utx.base.network_id : 0;
}
static void ptx_json(sl_jw *w, const sl_value *v, const sl_codec_ctx *ctx)
{
	sl_pchain_tx_write_json(w, &v->v.ptx, ctx);
}
static void putx_json(sl_jw *w, const sl_value *v, const sl_codec_ctx *ctx)
{
	sl_jw_obj(w);
	sl_jw_key(w, "unsignedTx");
	sl_pchain_utx_write_json(w, &v->v.ptx.utx, ctx);
	sl_jw_obj_end(w);
}
static sl_err ptx_encode(sl_buf *out, const sl_value *v) { return sl_pchain_tx_encode(out, &v->v.ptx); }
static sl_err putx_encode(sl_buf *out, const sl_value *v)
{
	sl_buf_add(out, version0, 2);
	sl_pchain_utx_write(out, &v->v.ptx.utx);
	return out->err;
}
static const uint8_t *ptx_id(const sl_value *v) { return v->v.ptx.id; }

/* X-chain */

static sl_err xtx_decode(sl_arena *a, const uint8_t *p, size_t n, sl_value *v, sl_err_detail *e)
{
	return sl_xchain_tx_decode(a, p, n, &v->v.xtx, e);
}
static const char *xtx_type(const sl_value *v) { return sl_xchain_type_name(v->v.xtx.utx.type_id); }
static uint32_t xtx_network(const sl_value *v) { return v->v.xtx.utx.base.network_id; }
static void xtx_json(sl_jw *w, const sl_value *v, const sl_codec_ctx *ctx)
{
	sl_xchain_tx_write_json(w, &v->v.xtx, ctx);
}
static sl_err xtx_encode(sl_buf *out, const sl_value *v) { return sl_xchain_tx_encode(out, &v->v.xtx); }
static const uint8_t *xtx_id(const sl_value *v) { return v->v.xtx.id; }

static sl_err xblock_decode(sl_arena *a, const uint8_t *p, size_t n, sl_value *v, sl_err_detail *e)
{
	return sl_xchain_block_decode(a, p, n, &v->v.xblock, e);
}
static const char *xblock_type(const sl_value *v) { return sl_xchain_type_name(v->v.xblock.type_id); }
static uint32_t xblock_network(const sl_value *v)
{
	return v->v.xblock.ntxs ? v->v.xblock.txs[0].utx.base.network_id : 0;
}
static void xblock_json(sl_jw *w, const sl_value *v, const sl_codec_ctx *ctx)
{
	sl_xchain_block_write_json(w, &v->v.xblock, ctx);
}
static sl_err xblock_encode(sl_buf *out, const sl_value *v)
{
	return sl_xchain_block_encode(out, &v->v.xblock);
}
static const uint8_t *xblock_id(const sl_value *v) { return v->v.xblock.id; }

static sl_err vertex_decode(sl_arena *a, const uint8_t *p, size_t n, sl_value *v, sl_err_detail *e)
{
	return sl_xchain_vertex_decode(a, p, n, &v->v.vertex, e);
}
static uint32_t vertex_network(const sl_value *v)
{
	return v->v.vertex.ntxs ? v->v.vertex.txs[0].utx.base.network_id : 0;
}
static void vertex_json(sl_jw *w, const sl_value *v, const sl_codec_ctx *ctx)
{
	sl_xchain_vertex_write_json(w, &v->v.vertex, ctx);
}
static sl_err vertex_encode(sl_buf *out, const sl_value *v)
{
	return sl_xchain_vertex_encode(out, &v->v.vertex);
}
static const uint8_t *vertex_id(const sl_value *v) { return v->v.vertex.id; }

/* C-chain */

static sl_err atomic_decode(sl_arena *a, const uint8_t *p, size_t n, bool batched, sl_value *v,
			    sl_err_detail *e)
{
	if (!n) { /* empty extData is zero txs: nothing to show as a tx */
		if (e)
			*e = (sl_err_detail){ SL_ERR_TRUNCATED, "empty input", 0 };
		return SL_ERR_TRUNCATED;
	}
	return sl_atomic_extdata_decode(a, p, n, batched, &v->v.atomic, e);
}
static sl_err atomic1_decode(sl_arena *a, const uint8_t *p, size_t n, sl_value *v, sl_err_detail *e)
{
	return atomic_decode(a, p, n, false, v, e);
}
static sl_err atomicn_decode(sl_arena *a, const uint8_t *p, size_t n, sl_value *v, sl_err_detail *e)
{
	return atomic_decode(a, p, n, true, v, e);
}
static const char *atomic1_type(const sl_value *v)
{
	return sl_atomic_type_name(v->v.atomic.txs[0].utx.type_id);
}
static uint32_t atomic_network(const sl_value *v)
{
	return v->v.atomic.ntxs ? v->v.atomic.txs[0].utx.network_id : 0;
}
static void atomic1_json(sl_jw *w, const sl_value *v, const sl_codec_ctx *ctx)
{
	sl_atomic_tx_write_json(w, &v->v.atomic.txs[0], ctx);
}
static void atomicn_json(sl_jw *w, const sl_value *v, const sl_codec_ctx *ctx)
{
	sl_atomic_txs_write_json(w, &v->v.atomic, ctx);
}
static sl_err atomic_encode(sl_buf *out, const sl_value *v)
{
	return sl_atomic_extdata_encode(out, &v->v.atomic);
}
static const uint8_t *atomic1_id(const sl_value *v) { return v->v.atomic.txs[0].id; }

/*
 * Networks whose ApricotPhase5 time is fixed and known: there the block's
 * time alone says the extData layout (see formats.h, Network).
 */
static bool ap5_known(uint32_t network_id) { return network_id == 1 || network_id == 5; }

static sl_err cblock_decode(sl_arena *a, const uint8_t *p, size_t n, sl_value *v, sl_err_detail *e)
{
	sl_err err = sl_coreth_block_decode(p, n, a, &v->v.cblock, e);
	if (err != SL_OK)
		return err;
	const sl_coreth_block *b = &v->v.cblock;
	v->atomic = (sl_atomic_txs){ 0 };
	v->atomic_err = (sl_err_detail){ 0 };
	if (!b->ext_data.len)
		return SL_OK;
	bool batched = b->header.time >= sl_atomic_ap5_time(v->network_id);
	if (sl_atomic_extdata_decode(a, b->ext_data.p, b->ext_data.len, batched, &v->atomic,
				     &v->atomic_err) == SL_OK)
		return SL_OK;
	v->atomic = (sl_atomic_txs){ 0 };
	sl_atomic_txs other;
	if (!ap5_known(v->network_id) &&
	    sl_atomic_extdata_decode(a, b->ext_data.p, b->ext_data.len, !batched, &other, NULL) == SL_OK) {
		v->atomic = other;
		v->atomic_err = (sl_err_detail){ 0 };
	}
	return SL_OK; /* the block decoded; atomic_err says whether its extData did */
}
static uint32_t cblock_network(const sl_value *v)
{
	return v->atomic_err.code == SL_OK && v->atomic.ntxs ? v->atomic.txs[0].utx.network_id : 0;
}
static void cblock_json(sl_jw *w, const sl_value *v, const sl_codec_ctx *ctx)
{
	(void)ctx;
	sl_coreth_block_write_json(w, &v->v.cblock);
}
static sl_err cblock_encode(sl_buf *out, const sl_value *v)
{
	return sl_coreth_block_encode(&v->v.cblock, out);
}
static const uint8_t *cblock_id(const sl_value *v) { return v->v.cblock.header.hash; }

/* warp */

static sl_err warp_decode(sl_arena *a, const uint8_t *p, size_t n, sl_value *v, sl_err_detail *e)
{
	(void)a;
	return sl_warp_message_decode(p, n, &v->v.warp, e);
}
static uint32_t warp_network(const sl_value *v) { return v->v.warp.msg.network_id; }
static void warp_json(sl_jw *w, const sl_value *v, const sl_codec_ctx *ctx)
{
	(void)ctx; /* the message carries its network */
	sl_warp_message_write_json(w, &v->v.warp);
}
static sl_err warp_encode(sl_buf *out, const sl_value *v) { return sl_warp_message_encode(&v->v.warp, out); }
static const uint8_t *warp_id(const sl_value *v) { return v->v.warp.msg.id; }

static sl_err wunsigned_decode(sl_arena *a, const uint8_t *p, size_t n, sl_value *v, sl_err_detail *e)
{
	(void)a;
	return sl_warp_unsigned_decode(p, n, &v->v.warp_unsigned, e);
}
static uint32_t wunsigned_network(const sl_value *v) { return v->v.warp_unsigned.network_id; }
static void wunsigned_json(sl_jw *w, const sl_value *v, const sl_codec_ctx *ctx)
{
	(void)ctx;
	sl_warp_unsigned_write_json(w, &v->v.warp_unsigned);
}
static sl_err wunsigned_encode(sl_buf *out, const sl_value *v)
{
	return sl_warp_unsigned_encode(&v->v.warp_unsigned, out);
}
static const uint8_t *wunsigned_id(const sl_value *v) { return v->v.warp_unsigned.id; }

static sl_err wl1_decode(sl_arena *a, const uint8_t *p, size_t n, sl_value *v, sl_err_detail *e)
{
	(void)a;
	return sl_warp_l1_decode(p, n, &v->v.warp_l1, e);
}
static const char *wl1_type(const sl_value *v) { return sl_warp_l1_type_name(v->v.warp_l1.type); }
static void wl1_json(sl_jw *w, const sl_value *v, const sl_codec_ctx *ctx)
{
	sl_warp_l1_write_json(w, &v->v.warp_l1, ctx->hrp);
}
static sl_err wl1_encode(sl_buf *out, const sl_value *v) { return sl_warp_l1_encode(&v->v.warp_l1, out); }
static const uint8_t *wl1_id(const sl_value *v) { return v->v.warp_l1.id; }

static sl_err wpayload_decode(sl_arena *a, const uint8_t *p, size_t n, sl_value *v, sl_err_detail *e)
{
	(void)a;
	return sl_warp_payload_decode(p, n, &v->v.warp_payload, e);
}
static const char *wpayload_type(const sl_value *v)
{
	return sl_warp_payload_type_name(v->v.warp_payload.type);
}
static void wpayload_json(sl_jw *w, const sl_value *v, const sl_codec_ctx *ctx)
{
	sl_warp_payload_write_json(w, &v->v.warp_payload, ctx->hrp);
}
static sl_err wpayload_encode(sl_buf *out, const sl_value *v)
{
	return sl_warp_payload_encode(&v->v.warp_payload, out);
}

static sl_err wconv_decode(sl_arena *a, const uint8_t *p, size_t n, sl_value *v, sl_err_detail *e)
{
	return sl_warp_conversion_decode(p, n, a, &v->v.warp_conversion, e);
}
static void wconv_json(sl_jw *w, const sl_value *v, const sl_codec_ctx *ctx)
{
	(void)ctx;
	sl_warp_conversion_write_json(w, &v->v.warp_conversion);
}
static sl_err wconv_encode(sl_buf *out, const sl_value *v)
{
	return sl_warp_conversion_encode(&v->v.warp_conversion, out);
}
static const uint8_t *wconv_id(const sl_value *v) { return v->v.warp_conversion.id; }

/* proposervm, the wrapper alone */

static sl_err pvm_decode(sl_arena *a, const uint8_t *p, size_t n, sl_value *v, sl_err_detail *e)
{
	(void)a;
	return sl_proposervm_block_decode(p, n, &v->v.proposervm, e);
}
static const char *pvm_type(const sl_value *v) { return sl_proposervm_kind_name(v->v.proposervm.kind); }
static void pvm_json(sl_jw *w, const sl_value *v, const sl_codec_ctx *ctx)
{
	(void)ctx;
	sl_proposervm_block_write_json(w, &v->v.proposervm);
}
static sl_err pvm_encode(sl_buf *out, const sl_value *v)
{
	return sl_proposervm_block_encode(&v->v.proposervm, out);
}
static const uint8_t *pvm_id(const sl_value *v) { return v->v.proposervm.id; }

/* ---- the table ------------------------------------------------------------------ */

struct fmt_def {
	const char *name;
	const char *alias; /* the chain alias addresses are written with */
	decode_fn decode;
	type_fn type;	    /* the Go type name, or NULL: none */
	json_fn json;	    /* the value */
	encode_fn encode;   /* the bytes again */
	network_fn network; /* the network id the value carries, 0 if none; NULL: never */
	id_fn id;	    /* NULL: no id */
};

static const struct fmt_def fmts[SL_FMT__COUNT] = {
	[SL_FMT_PCHAIN_BLOCK] = { "pchain.block", "P", pblock_decode, pblock_type, pblock_json, pblock_encode,
				  pblock_network, pblock_id },
	[SL_FMT_PCHAIN_TX] = { "pchain.tx", "P", ptx_decode, ptx_type, ptx_json, ptx_encode, ptx_network,
			       ptx_id },
	[SL_FMT_PCHAIN_UNSIGNED_TX] = { "pchain.unsigned_tx", "P", putx_decode, ptx_type, putx_json,
					putx_encode, ptx_network, NULL },
	[SL_FMT_XCHAIN_TX] = { "xchain.tx", "X", xtx_decode, xtx_type, xtx_json, xtx_encode, xtx_network,
			       xtx_id },
	[SL_FMT_XCHAIN_BLOCK] = { "xchain.block", "X", xblock_decode, xblock_type, xblock_json, xblock_encode,
				  xblock_network, xblock_id },
	[SL_FMT_XCHAIN_VERTEX] = { "xchain.vertex", "X", vertex_decode, NULL, vertex_json, vertex_encode,
				   vertex_network, vertex_id },
	[SL_FMT_CCHAIN_ATOMIC_TX] = { "cchain.atomic_tx", "C", atomic1_decode, atomic1_type, atomic1_json,
				      atomic_encode, atomic_network, atomic1_id },
	[SL_FMT_CCHAIN_ATOMIC_BATCH] = { "cchain.atomic_batch", "C", atomicn_decode, NULL, atomicn_json,
					 atomic_encode, atomic_network, NULL },
	[SL_FMT_CCHAIN_BLOCK] = { "cchain.block", "C", cblock_decode, NULL, cblock_json, cblock_encode,
				  cblock_network, cblock_id },
	[SL_FMT_WARP_MESSAGE] = { "warp.message", "P", warp_decode, NULL, warp_json, warp_encode,
				  warp_network, warp_id },
	[SL_FMT_WARP_UNSIGNED] = { "warp.unsigned_message", "P", wunsigned_decode, NULL, wunsigned_json,
				   wunsigned_encode, wunsigned_network, wunsigned_id },
	[SL_FMT_WARP_L1_MESSAGE] = { "warp.l1_message", "P", wl1_decode, wl1_type, wl1_json, wl1_encode, NULL,
				     wl1_id },
	[SL_FMT_WARP_PAYLOAD] = { "warp.payload", "P", wpayload_decode, wpayload_type, wpayload_json,
				  wpayload_encode, NULL, NULL },
	[SL_FMT_WARP_CONVERSION_DATA] = { "warp.conversion_data", "P", wconv_decode, NULL, wconv_json,
					  wconv_encode, NULL, wconv_id },
	[SL_FMT_PROPOSERVM_BLOCK] = { "proposervm.block", "P", pvm_decode, pvm_type, pvm_json, pvm_encode,
				      NULL, pvm_id },
};

static bool valid(sl_fmt f) { return (unsigned)f < SL_FMT__COUNT; }

const char *sl_fmt_name(sl_fmt f) { return valid(f) ? fmts[f].name : NULL; }

bool sl_fmt_parse(const char *name, sl_fmt *out)
{
	for (unsigned f = 0; f < SL_FMT__COUNT; f++) {
		if (!strcmp(fmts[f].name, name)) {
			*out = (sl_fmt)f;
			return true;
		}
	}
	return false;
}

/* ---- decoding ------------------------------------------------------------------- */

sl_err sl_fmt_decode(sl_arena *a, sl_fmt fmt, const uint8_t *p, size_t n, uint32_t network_id, sl_value *out,
		     sl_err_detail *detail)
{
	sl_err_detail e = { 0 };
	if (!valid(fmt)) {
		e = (sl_err_detail){ SL_ERR_INVALID, "unknown format", 0 };
	} else {
		*out = (sl_value){ .fmt = fmt, .network_id = network_id, .bytes = sl_span_of(p, n) };
		if (fmts[fmt].decode(a, p, n, out, &e) == SL_OK)
			e = (sl_err_detail){ 0 };
		else if (e.code == SL_OK) /* a decoder that failed without saying why */
			e = (sl_err_detail){ SL_ERR_INTERNAL, "decoder failed without detail", 0 };
	}
	if (detail)
		*detail = e;
	return e.code;
}

/* Keep the failure that got furthest; on a tie the one noted first. */
static void note(sl_fmt_attempt *best, const sl_fmt_attempt *at)
{
	if (best->fmt == SL_FMT__COUNT || at->err.offset > best->err.offset)
		*best = *at;
}

static const sl_fmt_attempt nothing_tried = {
	SL_FMT__COUNT, { SL_ERR_INVALID, "no format to try", 0 }, false, 0
};

sl_err sl_fmt_detect(sl_arena *a, sl_fmts set, const uint8_t *p, size_t n, uint32_t network_id, sl_value *out,
		     sl_fmt_attempt *attempt)
{
	sl_fmt_attempt best = { .fmt = SL_FMT__COUNT };
	for (unsigned f = 0; f < SL_FMT__COUNT; f++) {
		if (!(set & SL_FMTS(f)))
			continue;
		sl_fmt_attempt at = { .fmt = (sl_fmt)f };
		if (sl_fmt_decode(a, (sl_fmt)f, p, n, network_id, out, &at.err) == SL_OK) {
			if (attempt)
				*attempt = (sl_fmt_attempt){ .fmt = (sl_fmt)f };
			return SL_OK;
		}
		note(&best, &at);
	}
	if (best.fmt == SL_FMT__COUNT)
		best = nothing_tried;
	if (attempt)
		*attempt = best;
	return best.err.code;
}

sl_err sl_container_decode(sl_arena *a, sl_container_fmts set, const uint8_t *p, size_t n,
			   uint32_t network_id, sl_decoded_container *out, sl_fmt_attempt *attempt)
{
	*out = (sl_decoded_container){ 0 };
	sl_fmt_attempt best = { .fmt = SL_FMT__COUNT };
	bool wrapper_parsed = false, wrapper_tried = false;
	sl_fmt_attempt wrapper = { .fmt = SL_FMT_PROPOSERVM_BLOCK };

	if (set.wrapped) {
		wrapper_tried = true;
		if (sl_proposervm_wrapper_decode(p, n, &out->outer, &wrapper.err) == SL_OK) {
			wrapper_parsed = true;
			sl_span in = out->outer.inner;
			sl_fmt_attempt at;
			if (sl_fmt_detect(a, set.wrapped, in.p, in.len, network_id, &out->value, &at) ==
			    SL_OK) {
				out->wrapped = true;
				if (attempt)
					*attempt = at;
				return SL_OK;
			}
			/* the wrapper consumed every byte: its inner block's failure is the one to report */
			best = at;
			best.in_inner = true;
			best.inner_at = (size_t)(in.p - p);
			best.err.offset += best.inner_at;
		}
	}
	if (set.bare) {
		sl_fmt_attempt at;
		if (sl_fmt_detect(a, set.bare, p, n, network_id, &out->value, &at) == SL_OK) {
			out->wrapped = false;
			out->outer = (sl_proposervm_block){ 0 };
			if (attempt)
				*attempt = at;
			return SL_OK;
		}
		if (!wrapper_parsed)
			note(&best, &at);
	}
	/* the wrapper's own failure, after the bare formats so that they win a tie */
	if (wrapper_tried && !wrapper_parsed)
		note(&best, &wrapper);
	out->outer = (sl_proposervm_block){ 0 };
	if (best.fmt == SL_FMT__COUNT)
		best = nothing_tried;
	if (attempt)
		*attempt = best;
	return best.err.code;
}

size_t sl_fmt_attempt_describe(const sl_fmt_attempt *at, char *buf, size_t cap)
{
	if (!cap)
		return 0;
	const char *name = sl_fmt_name(at->fmt);
	const char *msg = at->err.msg ? at->err.msg : "failed";
	int m;
	if (!name)
		m = snprintf(buf, cap, "%s", msg);
	else if (at->in_inner)
		m = snprintf(
			buf, cap,
			"the inner block of a proposervm.block is not a valid %s: %s (%s) at byte %zu (byte %zu "
			"of the inner block)",
			name, msg, sl_err_name(at->err.code), at->err.offset, at->err.offset - at->inner_at);
	else
		m = snprintf(buf, cap, "not a valid %s: %s (%s) at byte %zu", name, msg,
			     sl_err_name(at->err.code), at->err.offset);
	if (m < 0) {
		buf[0] = 0;
		return 0;
	}
	return SL_MIN((size_t)m, cap - 1);
}

/* ---- reading a value -------------------------------------------------------------- */

const char *sl_value_type(const sl_value *v)
{
	return valid(v->fmt) && fmts[v->fmt].type ? fmts[v->fmt].type(v) : NULL;
}

const uint8_t *sl_value_id(const sl_value *v)
{
	return valid(v->fmt) && fmts[v->fmt].id ? fmts[v->fmt].id(v) : NULL;
}

/* Addresses: the network given, else the one the value carries, else mainnet. */
static sl_codec_ctx ctx_of(const sl_value *v, const char *alias, uint32_t carried, bool annotate)
{
	uint32_t net = v->network_id ? v->network_id : carried ? carried : 1;
	sl_codec_ctx ctx = sl_codec_ctx_for(net, alias);
	ctx.annotate = annotate;
	return ctx;
}

void sl_value_write_json(sl_jw *w, const sl_value *v, bool annotate)
{
	if (!valid(v->fmt)) {
		sl_jw_null(w);
		return;
	}
	const struct fmt_def *d = &fmts[v->fmt];
	sl_codec_ctx ctx = ctx_of(v, d->alias, d->network ? d->network(v) : 0, annotate);
	d->json(w, v, &ctx);
}

void sl_value_write_json_fields(sl_jw *w, const sl_value *v, bool annotate)
{
	sl_jw_key(w, "kind");
	sl_jw_str(w, valid(v->fmt) ? fmts[v->fmt].name : "unknown");
	const char *type = sl_value_type(v);
	if (type) {
		sl_jw_key(w, "type");
		sl_jw_str(w, type);
	}
	sl_jw_key(w, "value");
	sl_value_write_json(w, v, annotate);
	if (v->fmt != SL_FMT_CCHAIN_BLOCK)
		return;
	if (v->atomic_err.code == SL_OK) {
		sl_codec_ctx ctx = ctx_of(v, "C", cblock_network(v), annotate);
		sl_jw_key(w, "atomicTxs");
		sl_atomic_txs_write_json(w, &v->atomic, &ctx);
	} else {
		char msg[200];
		int m = snprintf(msg, sizeof msg, "%s (%s) at byte %zu of extData", v->atomic_err.msg,
				 sl_err_name(v->atomic_err.code), v->atomic_err.offset);
		sl_jw_key(w, "atomicTxsError");
		sl_jw_strn(w, msg, m > 0 ? SL_MIN((size_t)m, sizeof msg - 1) : 0);
	}
}

void sl_container_write_json_fields(sl_jw *w, const sl_decoded_container *c, bool annotate)
{
	if (!c->wrapped) {
		sl_value_write_json_fields(w, &c->value, annotate);
		return;
	}
	sl_jw_key(w, "kind");
	sl_jw_str(w, fmts[SL_FMT_PROPOSERVM_BLOCK].name);
	sl_proposervm_block_write_json_fields(w, &c->outer, false);
	sl_jw_key(w, "inner");
	sl_jw_obj(w);
	sl_value_write_json_fields(w, &c->value, annotate);
	sl_jw_obj_end(w);
}

sl_err sl_value_encode(sl_buf *out, const sl_value *v)
{
	if (!valid(v->fmt))
		return SL_ERR_INVALID;
	sl_err err = fmts[v->fmt].encode(out, v);
	return err != SL_OK ? err : out->err;
}

sl_err sl_container_encode(sl_buf *out, const sl_decoded_container *c)
{
	if (!c->wrapped)
		return sl_value_encode(out, &c->value);
	sl_buf inner;
	sl_buf_init(&inner, out->max);
	sl_err err = sl_value_encode(&inner, &c->value);
	if (err == SL_OK) {
		sl_proposervm_block b = c->outer;
		b.inner = sl_span_of(inner.p, inner.len);
		err = sl_proposervm_block_encode(&b, out);
	}
	sl_buf_release(&inner);
	return err;
}
