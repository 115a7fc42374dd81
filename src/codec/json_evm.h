/*
 * json_evm.h — decoded proposervm blocks, C-chain blocks, EVM txs and warp
 * messages as JSON, for `snowline decode` and the APIs.
 *
 * Field names are the ones the real systems use:
 *   proposervm  avalanchego's names: type ("statelessBlock", "option",
 *               "statelessGraniteBlock"), id, parentID, timestamp (unix
 *               seconds, number), pChainHeight, certificate, proposer
 *               ("NodeID-…", null when unsigned), epoch {pChainHeight,
 *               number, startTime}, signature, innerBlock; ids cb58, bytes
 *               "0x…" hex.
 *   coreth      eth JSON-RPC (eth_getBlockByNumber with full txs): hashes
 *               and byte strings "0x…", every number a hex quantity
 *               ("0x0", no leading zeros), coreth's header additions
 *               (extDataHash, extDataGasUsed, blockGasCost,
 *               timestampMilliseconds, minDelayExcess…), blockExtraData
 *               for extData, and per tx blockHash, blockNumber, from,
 *               transactionIndex, gasPrice (the effective price for
 *               dynamic-fee txs in a block), yParity for typed txs.
 *   warp        avalanchego's json tags: networkID, sourceChainID,
 *               payload, signers, signature, sourceAddress, hash, subnetID,
 *               nodeID, blsPublicKey, expiry, remainingBalanceOwner,
 *               disableOwner {threshold, addresses}, weight, validationID,
 *               registered, nonce; plus "type" and, where the bytes decode
 *               further, "decodedPayload".
 *
 * The *_fields variants write keys into an object the caller has opened,
 * so it can add its own keys (the decoded inner block, say). Errors are the
 * output buffer's sticky error.
 */
#ifndef SL_CODEC_JSON_EVM_H
#define SL_CODEC_JSON_EVM_H

#include "codec/coreth.h"
#include "codec/proposervm.h"
#include "codec/warp.h"
#include "util/jw.h"

void sl_proposervm_block_write_json_fields(sl_jw *w, const sl_proposervm_block *b, bool with_inner_bytes);
void sl_proposervm_block_write_json(sl_jw *w, const sl_proposervm_block *b);

/* Header fields (and "hash") into an open object. */
void sl_coreth_header_write_json_fields(sl_jw *w, const sl_coreth_header *h);
void sl_coreth_block_write_json(sl_jw *w, const sl_coreth_block *b);
/* A tx alone (blk NULL) or the index-th tx of blk. The sender is recovered. */
void sl_evm_tx_write_json(sl_jw *w, const sl_evm_tx *tx, const sl_coreth_block *blk, uint32_t index);

/* `hrp` formats PChainOwner addresses ("P-<hrp>1…"); NULL means the network's (or "custom"). */
void sl_warp_message_write_json(sl_jw *w, const sl_warp_message *m);
void sl_warp_unsigned_write_json(sl_jw *w, const sl_warp_unsigned *m);
void sl_warp_payload_write_json(sl_jw *w, const sl_warp_payload *p, const char *hrp);
void sl_warp_l1_write_json(sl_jw *w, const sl_warp_l1_msg *m, const char *hrp);
void sl_warp_conversion_write_json(sl_jw *w, const sl_warp_conversion *c);

#endif
