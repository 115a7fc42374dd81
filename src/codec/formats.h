/*
 * formats.h — what a byte string of the primary network is, through one table.
 *
 * Every top-level format snowline reads is a row of one table (formats.c):
 * its name, its decoder, the Go type name of a decoded value, its JSON
 * writer (codec/json.h, codec/json_evm.h) and its encoder. `snowline
 * decode` and the indexer both go through it:
 *
 *   - the indexer knows which index a container came from and decodes it
 *     with sl_container_decode() and that index's set (SL_CONTAINER_P_BLOCK,
 *     ...), or with sl_fmt_decode() when it knows the one format;
 *   - `snowline decode` knows less (a chain, or nothing) and passes a wider
 *     set (SL_CONTAINER_CHAIN_P, ..., SL_CONTAINER_ANY).
 *
 * Order. A set is tried in enum order and the first format that decodes
 * wins. P- and X-chain values and warp values all start with codec version
 * `00 00`; what separates them is that a decoder must consume every byte,
 * so a value rarely decodes as two formats. Where two layouts do coincide
 * the earlier row wins: a warp Hash payload and a SubnetToL1Conversion L1
 * message are the same bytes, and the L1 message comes first. Naming the
 * one format (sl_fmt_decode) is the way to choose.
 *
 * Containers. Since ApricotPhase4 the P-chain, C-chain and linearized
 * X-chain blocks of the index API are wrapped in a proposervm block; older
 * ones are bare (codec-proposervm.md). sl_container_decode() applies the
 * wrapper rule (sl_proposervm_wrapper_decode) first when the set allows
 * wrapped blocks, then decodes the inner block with the set's `wrapped`
 * formats; otherwise, or when the inner block fails and a bare format of
 * the set decodes the whole input, the container is bare.
 *
 * Errors. When nothing decodes, an sl_fmt_attempt says what failed, where,
 * and as what: the attempt that got furthest (the largest byte offset; the
 * earlier format on a tie), its code and static message, and its offset
 * counted from the start of the bytes passed in. If a proposervm wrapper
 * parsed (consuming every byte, so it is almost surely one) but its inner
 * block decodes as none of the set's formats, that inner failure is the
 * one reported, flagged `in_inner`, with the offset still counted in the
 * whole input. sl_fmt_attempt_describe() turns an attempt into one line.
 *
 * Network. `network_id` is the network the bytes come from, or 0 when the
 * caller does not know. It decides two things:
 *   - the extData layout of a C-chain block (codec-atomic.md): one atomic tx
 *     before ApricotPhase5, a batch from it on, by the block's time and
 *     sl_atomic_ap5_time(network_id). On mainnet (1) and Fuji (5) the
 *     switch time is fixed, so that layout is the only right one: extData
 *     that does not decode in it is an error to report, and reading it the
 *     other way could only hide that. Elsewhere (0, local, devnets) the
 *     switch is the network's own configuration, which we do not know, so
 *     the other layout is tried as well when the first fails;
 *   - the HRP of addresses in JSON: `network_id`, else the network id the
 *     value carries (a tx's networkID), else mainnet's.
 * Whether extData decoded does not decide whether the block did: a block
 * decodes with `atomic_err` set, and the JSON says why ("atomicTxsError").
 *
 * Lifetime. A decoded sl_value (and sl_decoded_container) holds views into the
 * input bytes plus arrays allocated from the caller's arena; both must
 * outlive it. Failed attempts may leave allocations behind in the arena
 * (an arena has no rewind): release the arena as a whole, per container.
 * Nothing here has global state; a value may be read from any thread.
 */
#ifndef SL_CODEC_FORMATS_H
#define SL_CODEC_FORMATS_H

#include "codec/atomic.h"
#include "codec/coreth.h"
#include "codec/pchain.h"
#include "codec/proposervm.h"
#include "codec/warp.h"
#include "codec/xchain.h"
#include "util/jw.h"

/* The formats, in the order a set is tried. Names are `snowline decode --kind`'s. */
typedef enum sl_fmt {
	SL_FMT_PCHAIN_BLOCK,	     /* "pchain.block": 00 00 | block type id | fields */
	SL_FMT_PCHAIN_TX,	     /* "pchain.tx": a signed tx */
	SL_FMT_PCHAIN_UNSIGNED_TX,   /* "pchain.unsigned_tx": 00 00 | iface<UnsignedTx> */
	SL_FMT_XCHAIN_TX,	     /* "xchain.tx": a signed tx */
	SL_FMT_XCHAIN_BLOCK,	     /* "xchain.block": a post-Cortina StandardBlock */
	SL_FMT_XCHAIN_VERTEX,	     /* "xchain.vertex": a DAG-era vertex */
	SL_FMT_CCHAIN_ATOMIC_TX,     /* "cchain.atomic_tx": one signed atomic tx (pre-AP5 extData) */
	SL_FMT_CCHAIN_ATOMIC_BATCH,  /* "cchain.atomic_batch": a batch of them (AP5 extData) */
	SL_FMT_CCHAIN_BLOCK,	     /* "cchain.block": a coreth block, extData decoded too */
	SL_FMT_WARP_MESSAGE,	     /* "warp.message": a signed warp message */
	SL_FMT_WARP_UNSIGNED,	     /* "warp.unsigned_message" */
	SL_FMT_WARP_L1_MESSAGE,	     /* "warp.l1_message": an L1 validator message */
	SL_FMT_WARP_PAYLOAD,	     /* "warp.payload": Hash or AddressedCall */
	SL_FMT_WARP_CONVERSION_DATA, /* "warp.conversion_data": SubnetToL1ConversionData */
	SL_FMT_PROPOSERVM_BLOCK,     /* "proposervm.block": the wrapper alone, inner block as bytes */
	SL_FMT__COUNT
} sl_fmt;

/* "pchain.block", ...; NULL for a value that is not a format. */
const char *sl_fmt_name(sl_fmt f);
/* The format of a name; false when no format has it. */
bool sl_fmt_parse(const char *name, sl_fmt *out);

/* A set of formats: bit (1 << fmt). */
typedef uint32_t sl_fmts;
#define SL_FMTS(f) ((sl_fmts)1 << (f))
#define SL_FMTS_P \
	(SL_FMTS(SL_FMT_PCHAIN_BLOCK) | SL_FMTS(SL_FMT_PCHAIN_TX) | SL_FMTS(SL_FMT_PCHAIN_UNSIGNED_TX))
#define SL_FMTS_X (SL_FMTS(SL_FMT_XCHAIN_TX) | SL_FMTS(SL_FMT_XCHAIN_BLOCK) | SL_FMTS(SL_FMT_XCHAIN_VERTEX))
#define SL_FMTS_C                                                                 \
	(SL_FMTS(SL_FMT_CCHAIN_ATOMIC_TX) | SL_FMTS(SL_FMT_CCHAIN_ATOMIC_BATCH) | \
	 SL_FMTS(SL_FMT_CCHAIN_BLOCK))
#define SL_FMTS_WARP                                                                                      \
	(SL_FMTS(SL_FMT_WARP_MESSAGE) | SL_FMTS(SL_FMT_WARP_UNSIGNED) | SL_FMTS(SL_FMT_WARP_L1_MESSAGE) | \
	 SL_FMTS(SL_FMT_WARP_PAYLOAD) | SL_FMTS(SL_FMT_WARP_CONVERSION_DATA))
/* The blocks a proposervm wrapper carries. */
#define SL_FMTS_BLOCKS \
	(SL_FMTS(SL_FMT_PCHAIN_BLOCK) | SL_FMTS(SL_FMT_XCHAIN_BLOCK) | SL_FMTS(SL_FMT_CCHAIN_BLOCK))

/*
 * What a container may be: `bare`, the formats of the bytes as they stand;
 * `wrapped`, the formats of the inner block when the bytes are a proposervm
 * wrapper (0: never wrapped).
 */
typedef struct sl_container_fmts {
	sl_fmts bare, wrapped;
} sl_container_fmts;

/*
 * Per index of the node (spec 001): what a container of each may be. These
 * and the chain sets below are compound literals: pass them to a function
 * or assign them; a static initializer needs the two masks written out.
 */
#define SL_CONTAINER_P_BLOCK /* P/block: a P-chain block, wrapped since ApricotPhase4 */ \
	((sl_container_fmts){ SL_FMTS(SL_FMT_PCHAIN_BLOCK), SL_FMTS(SL_FMT_PCHAIN_BLOCK) })
#define SL_CONTAINER_C_BLOCK /* C/block: a coreth block, wrapped since ApricotPhase4 */ \
	((sl_container_fmts){ SL_FMTS(SL_FMT_CCHAIN_BLOCK), SL_FMTS(SL_FMT_CCHAIN_BLOCK) })
#define SL_CONTAINER_X_TX /* X/tx: a signed X-chain tx, never wrapped */ \
	((sl_container_fmts){ SL_FMTS(SL_FMT_XCHAIN_TX), 0 })
#define SL_CONTAINER_X_BLOCK /* X/block: post-Cortina, always wrapped */ \
	((sl_container_fmts){ 0, SL_FMTS(SL_FMT_XCHAIN_BLOCK) })
#define SL_CONTAINER_X_VERTEX /* X/vtx: a vertex, never wrapped */ \
	((sl_container_fmts){ SL_FMTS(SL_FMT_XCHAIN_VERTEX), 0 })

/* Everything a chain's bytes may be, for a tool told only the chain. */
#define SL_CONTAINER_CHAIN_P ((sl_container_fmts){ SL_FMTS_P, SL_FMTS(SL_FMT_PCHAIN_BLOCK) })
#define SL_CONTAINER_CHAIN_X ((sl_container_fmts){ SL_FMTS_X, SL_FMTS(SL_FMT_XCHAIN_BLOCK) })
#define SL_CONTAINER_CHAIN_C ((sl_container_fmts){ SL_FMTS_C, SL_FMTS(SL_FMT_CCHAIN_BLOCK) })
#define SL_CONTAINER_CHAIN_WARP ((sl_container_fmts){ SL_FMTS_WARP, 0 })
/* Told nothing: every chain's formats and warp. (The bare wrapper is only ever asked for by name.) */
#define SL_CONTAINER_ANY \
	((sl_container_fmts){ SL_FMTS_P | SL_FMTS_X | SL_FMTS_C | SL_FMTS_WARP, SL_FMTS_BLOCKS })

/* One decoded value of any format; `fmt` says which member of `v` is live. */
typedef struct sl_value {
	sl_fmt fmt;
	uint32_t network_id; /* as passed to the decoder (0: unknown) */
	sl_span bytes;	     /* the bytes it was decoded from */
	union {
		sl_pchain_block pblock;		    /* PCHAIN_BLOCK */
		sl_pchain_tx ptx;		    /* PCHAIN_TX, PCHAIN_UNSIGNED_TX (no credentials) */
		sl_xchain_tx xtx;		    /* XCHAIN_TX */
		sl_xchain_block xblock;		    /* XCHAIN_BLOCK */
		sl_xchain_vertex vertex;	    /* XCHAIN_VERTEX */
		sl_atomic_txs atomic;		    /* CCHAIN_ATOMIC_TX (ntxs 1), CCHAIN_ATOMIC_BATCH */
		sl_coreth_block cblock;		    /* CCHAIN_BLOCK */
		sl_warp_message warp;		    /* WARP_MESSAGE */
		sl_warp_unsigned warp_unsigned;	    /* WARP_UNSIGNED */
		sl_warp_l1_msg warp_l1;		    /* WARP_L1_MESSAGE */
		sl_warp_payload warp_payload;	    /* WARP_PAYLOAD */
		sl_warp_conversion warp_conversion; /* WARP_CONVERSION_DATA */
		sl_proposervm_block proposervm;	    /* PROPOSERVM_BLOCK */
	} v;
	/*
	 * CCHAIN_BLOCK: the atomic txs of extData (none when it is empty), valid
	 * when atomic_err.code is SL_OK; else why extData did not decode in the
	 * layout the block's time and network call for (offset within extData).
	 */
	sl_atomic_txs atomic;
	sl_err_detail atomic_err;
} sl_value;

/* Why nothing decoded: the attempt that got furthest. */
typedef struct sl_fmt_attempt {
	sl_fmt fmt;	   /* its format; SL_FMT__COUNT when the set was empty */
	sl_err_detail err; /* code, static message, offset from the start of the bytes passed in */
	bool in_inner;	   /* a proposervm wrapper parsed and this is its inner block's failure */
	size_t inner_at;   /* then: where the inner block starts in the bytes passed in */
} sl_fmt_attempt;

/*
 * Decode p[0..n) as format `fmt`; it must consume every byte. On failure
 * `detail` (may be NULL) gets the code, message and offset.
 */
SL_MUST_USE sl_err sl_fmt_decode(sl_arena *a, sl_fmt fmt, const uint8_t *p, size_t n, uint32_t network_id,
				 sl_value *out, sl_err_detail *detail);

/*
 * Try each format of `set` in enum order; the first that decodes fills *out.
 * Otherwise the result is the furthest attempt's code and *attempt (may be
 * NULL) says which it was.
 */
SL_MUST_USE sl_err sl_fmt_detect(sl_arena *a, sl_fmts set, const uint8_t *p, size_t n, uint32_t network_id,
				 sl_value *out, sl_fmt_attempt *attempt);

/* A container: the wrapper when there is one, and the value (the inner block, or all the bytes). */
typedef struct sl_decoded_container {
	bool wrapped;
	sl_proposervm_block outer; /* when wrapped; outer.inner is value.bytes */
	sl_value value;
} sl_decoded_container;

/*
 * Decode a container whose formats are `set` (above): the proposervm wrapper
 * first when set.wrapped allows, its inner block with set.wrapped; else, or
 * if that inner block fails, the whole bytes with set.bare. On failure the
 * result is the reported attempt's code and *attempt (may be NULL) is that
 * attempt (see Errors above).
 */
SL_MUST_USE sl_err sl_container_decode(sl_arena *a, sl_container_fmts set, const uint8_t *p, size_t n,
				       uint32_t network_id, sl_decoded_container *out,
				       sl_fmt_attempt *attempt);

/*
 * One line saying what failed, in which format, and where, e.g.
 *   not a valid pchain.tx: unexpected end of input (truncated) at byte 70
 *   the inner block of a proposervm.block is not a valid xchain.block:
 *   unknown type id (unsupported) at byte 64 (byte 2 of the inner block)
 * Written into buf (always terminated); returns the length written.
 */
size_t sl_fmt_attempt_describe(const sl_fmt_attempt *at, char *buf, size_t cap);

/* The Go type name of a value ("AddValidatorTx", "ApricotStandardBlock", "Hash", ...); NULL if none. */
const char *sl_value_type(const sl_value *v);

/* The value's id (tx, block, vertex, message, conversion id; a coreth block's hash); NULL if it has none. */
const uint8_t *sl_value_id(const sl_value *v);

/*
 * The value as JSON (the shapes of codec/json.h and codec/json_evm.h; a
 * batch is an array of txs). `annotate` adds decode's reading aids (json.h).
 */
void sl_value_write_json(sl_jw *w, const sl_value *v, bool annotate);

/*
 * Into an open object: "kind" (the format's name), "type" (when the format
 * has one), "value", and for a C-chain block "atomicTxs" (the extData's
 * txs) or "atomicTxsError" (why extData did not decode).
 */
void sl_value_write_json_fields(sl_jw *w, const sl_value *v, bool annotate);

/*
 * Into an open object: a wrapped container's proposervm fields ("kind":
 * "proposervm.block", type, id, parentID, timestamp, pChainHeight,
 * certificate, proposer, epoch, signature) and "inner": {the value's
 * fields}; a bare one's value fields.
 */
void sl_container_write_json_fields(sl_jw *w, const sl_decoded_container *c, bool annotate);

/*
 * Append the value's encoding to out: for a value that was decoded, the
 * bytes it came from (every format here has one encoding per value).
 */
SL_MUST_USE sl_err sl_value_encode(sl_buf *out, const sl_value *v);
/* The same for a container: the wrapper around the re-encoded inner block. */
SL_MUST_USE sl_err sl_container_encode(sl_buf *out, const sl_decoded_container *c);

#endif
