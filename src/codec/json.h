/*
 * json.h — decoded P-chain, X-chain and C-chain atomic values as JSON, with
 * the field names and shapes avalanchego's JSON encoding gives them
 * (platform.getTx / avm.getTx with encoding "json", node-rpc.md §6):
 *
 *   tx      {"unsignedTx":{…},"credentials":[…],"id":"<cb58>"}
 *   ids     cb58 strings; addresses "<chainAlias>-<hrp>1…"; node ids "NodeID-…"
 *   numbers JSON numbers (never strings); byte slices "0x…" hex
 *   secp256k1fx outputs and owners come from Go maps, so their keys are
 *   sorted: {"addresses","amount","locktime","threshold"}
 *   every TransferableOutput/Input carries "fxID"; X-chain credentials are
 *   {"fxID":…,"credential":{"signatures":[…]}}, P-chain and atomic ones
 *   {"signatures":[…]}.
 *
 * The context says how to format addresses: the network's HRP and the
 * chain's primary alias ("P", "X", "C"). Output goes through the streaming
 * writer; check `w->out->err` once at the end.
 *
 * With `annotate` (what `snowline decode` prints) the same shapes carry a
 * few reading aids avalanchego's JSON does not have:
 *   - every tx nested in a block or vertex (and each atomic tx of a list)
 *     starts with "type": its Go type name ("AddValidatorTx", …);
 *   - each validator of a ConvertSubnetToL1Tx has the validation id the
 *     conversion gives it (sl_pchain_l1_validation_id), as "validationID"
 *     (cb58) and "validationIDHex" ("0x…");
 *   - PChainOwner addresses (remainingBalanceOwner, deactivationOwner) are
 *     written "P-<hrp>1…" like every other owner, where avalanchego writes
 *     bare cb58 ShortIDs: one address form in the whole output.
 * Without it the output is avalanchego's, byte for byte (avm.getTx).
 */
#ifndef SL_CODEC_JSON_H
#define SL_CODEC_JSON_H

#include "codec/atomic.h"
#include "codec/pchain.h"
#include "codec/xchain.h"
#include "util/jw.h"

typedef struct sl_codec_ctx {
	uint32_t network_id;
	const char *hrp;	 /* bech32 HRP of addresses */
	const char *chain_alias; /* "P", "X", "C" or a chain's own alias */
	bool annotate;		 /* add the reading aids above */
} sl_codec_ctx;

/* The context for a network id (HRP per addr.h) and a chain alias (static string); annotate off. */
sl_codec_ctx sl_codec_ctx_for(uint32_t network_id, const char *chain_alias);

void sl_pchain_utx_write_json(sl_jw *w, const sl_pchain_utx *u, const sl_codec_ctx *ctx);
void sl_pchain_tx_write_json(sl_jw *w, const sl_pchain_tx *tx, const sl_codec_ctx *ctx);
void sl_pchain_block_write_json(sl_jw *w, const sl_pchain_block *b, const sl_codec_ctx *ctx);

void sl_xchain_utx_write_json(sl_jw *w, const sl_xchain_utx *u, const sl_codec_ctx *ctx);
void sl_xchain_tx_write_json(sl_jw *w, const sl_xchain_tx *tx, const sl_codec_ctx *ctx);
void sl_xchain_block_write_json(sl_jw *w, const sl_xchain_block *b, const sl_codec_ctx *ctx);
void sl_xchain_vertex_write_json(sl_jw *w, const sl_xchain_vertex *v, const sl_codec_ctx *ctx);

void sl_atomic_tx_write_json(sl_jw *w, const sl_atomic_tx *tx, const sl_codec_ctx *ctx);
/* A block's extData: an array of atomic txs. */
void sl_atomic_txs_write_json(sl_jw *w, const sl_atomic_txs *txs, const sl_codec_ctx *ctx);

#endif
