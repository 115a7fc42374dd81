/*
 * proposervm.h — the Snowman++ wrapper around P-, C- and X-chain blocks.
 *
 * Since ApricotPhase4 every block the index API returns for P, C and the
 * linearized X chain is a proposervm block whose `innerBlock` field holds
 * the chain's own block. Older containers are stored bare. This module
 * decodes and re-encodes the wrapper and tells the two apart.
 *
 * Layout (big-endian, no padding; `bytes` = u32 length + raw bytes):
 *
 *   off  size  field                     kinds
 *   0    2     codec version, always 0   all
 *   2    4     type id: 0 block, 1 option, 2 Granite block
 *   6    32    parentID (parent's *proposervm* id)            all
 *   38   8     timestamp, i64 unix seconds                    0, 2
 *   46   8     pChainHeight, u64                              0, 2
 *   54   4+n   certificate (DER X.509 staking cert; empty when unsigned)  0, 2
 *   ..   4+n   innerBlock (the wrapped chain block)           all (option: at 38)
 *   ..   8     epoch.pChainHeight, u64                        2
 *   ..   8     epoch.number, u64                              2
 *   ..   8     epoch.startTime, i64 unix seconds              2
 *   ..   4+n   signature (empty when unsigned)                0, 2
 *
 * An option (type 1) is only `version | type | parentID | innerBlock`.
 *
 * Ids:
 *   - block and Granite block: sha256 of the bytes with the trailing
 *     signature field (its u32 length and its bytes) cut off. This holds
 *     for unsigned blocks too: their last four zero bytes are cut.
 *   - option: sha256 of all the bytes.
 *   - proposer NodeID: ripemd160(sha256(certificate)); all zero when the
 *     certificate is empty (an unsigned block, built during the proposer
 *     window's open period).
 *
 * The certificate and signature are carried, not checked: checking needs
 * X.509 and the chain id, and an indexer trusts the node it reads from.
 *
 * Lifetime: a decoded sl_proposervm_block holds views into the input
 * buffer; the input must outlive it.
 */
#ifndef SL_CODEC_PROPOSERVM_H
#define SL_CODEC_PROPOSERVM_H

#include "util/arena.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/err.h"

typedef enum sl_proposervm_kind {
	SL_PROPOSERVM_BLOCK = 0,   /* statelessBlock (signed or unsigned) */
	SL_PROPOSERVM_OPTION = 1,  /* option: commit/abort child of an oracle block */
	SL_PROPOSERVM_GRANITE = 2, /* statelessGraniteBlock: a block with an epoch */
} sl_proposervm_kind;

typedef struct sl_proposervm_epoch {
	uint64_t pchain_height;
	uint64_t number;
	int64_t start_time; /* unix seconds */
} sl_proposervm_epoch;

typedef struct sl_proposervm_block {
	sl_proposervm_kind kind;
	sl_span bytes;		   /* the whole encoding */
	uint8_t id[32];		   /* proposervm block id (see the rule above) */
	sl_span parent_id;	   /* 32 bytes */
	int64_t timestamp;	   /* 0 for options */
	uint64_t pchain_height;	   /* 0 for options */
	sl_span certificate;	   /* empty for unsigned blocks and options */
	sl_span inner;		   /* the wrapped block's bytes */
	sl_proposervm_epoch epoch; /* Granite blocks only; zero otherwise */
	sl_span signature;	   /* empty for unsigned blocks and options */
	bool has_proposer;	   /* certificate is non-empty */
	uint8_t proposer[20];	   /* NodeID of the certificate; zero without one */
} sl_proposervm_block;

/* The name avalanchego gives each kind: "statelessBlock", "option", "statelessGraniteBlock". */
const char *sl_proposervm_kind_name(sl_proposervm_kind k);

/*
 * Decode one proposervm block that fills p[0..len) exactly. Fails with
 * SL_ERR_UNSUPPORTED on a codec version other than 0 or an unknown type
 * id, SL_ERR_TRUNCATED / SL_ERR_TOO_LARGE on bad lengths, SL_ERR_TRAILING
 * when bytes remain. `detail` (may be NULL) gets the message and offset.
 */
SL_MUST_USE sl_err sl_proposervm_block_decode(const uint8_t *p, size_t len, sl_proposervm_block *out,
					      sl_err_detail *detail);

/*
 * Append the encoding of b's fields (kind, parent_id, timestamp,
 * pchain_height, certificate, inner, epoch, signature) to out. For a block
 * that came from sl_proposervm_block_decode() the output equals b->bytes.
 * The computed fields (id, proposer, bytes) are ignored.
 */
SL_MUST_USE sl_err sl_proposervm_block_encode(const sl_proposervm_block *b, sl_buf *out);

/* Recompute id and proposer from b->bytes and b's fields (used after encoding). */
void sl_proposervm_block_ids(sl_proposervm_block *b);

/*
 * The wrapper rule with its reason: SL_OK when p[0..len) is a proposervm
 * block that sl_proposervm_unwrap() would take for a wrapper, else the
 * error and (in `detail`, may be NULL) where it failed: the decode error,
 * or SL_ERR_INVALID "empty inner block" at the inner block's length field,
 * or "certificate without signature" / "signature without certificate" at
 * the signature's length field. `out` is filled as far as it decoded.
 */
SL_MUST_USE sl_err sl_proposervm_wrapper_decode(const uint8_t *p, size_t len, sl_proposervm_block *out,
						sl_err_detail *detail);

/*
 * Tell a wrapped container from a bare inner block: the container is a
 * proposervm block when it decodes as one, consuming every byte, with a
 * non-empty inner block, and (for kinds 0 and 2) with certificate and
 * signature both present or both absent. Then *inner is the inner block,
 * *outer an arena copy of the decoded wrapper, and the result is true.
 * Otherwise *inner is the whole input, *outer is NULL and the result is
 * false. C-chain inner blocks (RLP lists, first byte >= 0xc0) can never
 * pass; P/X inner blocks share the codec header, and full consumption is
 * what separates them (wire-formats.md §1).
 *
 * If the arena is exhausted the wrapper is still recognised and *inner is
 * set, but *outer is NULL. `outer` may be NULL when the caller needs only
 * the inner span.
 */
bool sl_proposervm_unwrap(const uint8_t *p, size_t len, sl_arena *arena, sl_span *inner,
			  const sl_proposervm_block **outer);

#endif
