/*
 * coreth.h — C-chain blocks and the EVM transactions inside them.
 *
 * A C-chain block (the index container after sl_proposervm_unwrap, or a
 * pre-ApricotPhase4 container as is) is one RLP list of five items:
 *
 *   [ header, [tx...], [uncle header...], version, extData ]
 *
 *   version   canonical uint (u32), always 0 on mainnet
 *   extData   byte string; the atomic txs (codec/atomic.h decodes it);
 *             empty (0x80) when the block carries none
 *
 * Header: an RLP list of 16 to 30 strings, in this order. Fields 16 and
 * later are optional: a field is present when it or any later field is,
 * and a present field that Go held as nil is written 0x80 (which decodes
 * as zero, so nfields is the whole truth about presence).
 *
 *   #   field             rlp contents                  since
 *   0   parentHash        32 bytes
 *   1   uncleHash         32 bytes (sha3Uncles)
 *   2   coinbase          20 bytes (miner)
 *   3   stateRoot         32 bytes
 *   4   txRoot            32 bytes (transactionsRoot)
 *   5   receiptRoot       32 bytes
 *   6   logsBloom         256 bytes
 *   7   difficulty        uint <= 256 bits
 *   8   number            uint64
 *   9   gasLimit          uint64
 *   10  gasUsed           uint64
 *   11  time              uint64, unix seconds
 *   12  extraData         bytes
 *   13  mixDigest         32 bytes (mixHash)
 *   14  nonce             8 bytes
 *   15  extDataHash       32 bytes                      Avalanche, always
 *   16  baseFee           uint <= 256 bits              ApricotPhase3
 *   17  extDataGasUsed    uint <= 256 bits              ApricotPhase4
 *   18  blockGasCost      uint <= 256 bits              ApricotPhase4
 *   19  blobGasUsed       uint64                        Cancun (Etna)
 *   20  excessBlobGas     uint64                        Cancun (Etna)
 *   21  parentBeaconRoot  32 bytes (or empty when nil)  Cancun (Etna)
 *   22  timeMilliseconds  uint64                        Granite
 *   23  minDelayExcess    uint64                        Granite
 *   24  targetExponent    uint64                        Helicon
 *   25  minPriceExponent  uint64                        Helicon
 *   26  settledHeight     uint64                        SAE (future)
 *   27  settledGasUnix    uint64                        SAE
 *   28  settledGasNumerator uint64                      SAE
 *   29  settledExcess     uint64                        SAE
 *
 * (coreth has no requestsHash or withdrawals: Avalanche has no beacon chain.)
 *
 * Block hash (= the Avalanche block id) = keccak256(header's RLP).
 * extDataHash = keccak256(rlp(extData)) when extData is non-empty, else
 * the empty-trie root 56e81f17…b421 (not checked here: some early mainnet
 * blocks carry whitelisted values).
 *
 * Transactions: an item of the tx list is an RLP list for a legacy tx and
 * an RLP string holding `type || rlp(fields)` for a typed (EIP-2718) tx.
 *
 *   type  fields
 *   0     nonce gasPrice gas to value data v r s
 *   1     chainId nonce gasPrice gas to value data accessList yParity r s
 *   2     chainId nonce tip feeCap gas to value data accessList yParity r s
 *   3     chainId nonce tip feeCap gas to value data accessList
 *         blobFeeCap blobHashes yParity r s          (to required)
 *   4     chainId nonce tip feeCap gas to value data accessList
 *         authorizationList yParity r s              (to required)
 *
 *   accessList        = [[address(20), [storageKey(32)...]]...]
 *   blobHashes        = [hash(32)...]
 *   authorizationList = [[chainId, address(20), nonce, yParity, r, s]...]
 *   to                = 20 bytes, or empty for contract creation (types 0-2)
 *
 * Tx hash = keccak256 of the canonical bytes (legacy: the list; typed: the
 * type byte and the list). Signing hash: typed = keccak256(type || rlp(all
 * fields but yParity, r, s)); legacy = keccak256(rlp(first six fields)),
 * plus `chainId, 0, 0` when EIP-155 protected (v = chainId*2 + 35 + y;
 * v = 27 + y is unprotected). The sender is the address whose key
 * recovers from (signing hash, r, s, y).
 *
 * Lifetime: decoded blocks and txs are views into the input and arrays in
 * the caller's arena; both must outlive them.
 */
#ifndef SL_CODEC_CORETH_H
#define SL_CODEC_CORETH_H

#include "codec/rlp.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/limits.h" /* SL_CORETH_MAX_TXS, SL_CORETH_MAX_UNCLES, SL_EVM_MAX_LIST */

enum sl_coreth_hfield {
	SL_CH_PARENT_HASH,
	SL_CH_UNCLE_HASH,
	SL_CH_COINBASE,
	SL_CH_STATE_ROOT,
	SL_CH_TX_ROOT,
	SL_CH_RECEIPT_ROOT,
	SL_CH_BLOOM,
	SL_CH_DIFFICULTY,
	SL_CH_NUMBER,
	SL_CH_GAS_LIMIT,
	SL_CH_GAS_USED,
	SL_CH_TIME,
	SL_CH_EXTRA,
	SL_CH_MIX_DIGEST,
	SL_CH_NONCE,
	SL_CH_EXT_DATA_HASH,
	SL_CH_BASE_FEE,
	SL_CH_EXT_DATA_GAS_USED,
	SL_CH_BLOCK_GAS_COST,
	SL_CH_BLOB_GAS_USED,
	SL_CH_EXCESS_BLOB_GAS,
	SL_CH_PARENT_BEACON_ROOT,
	SL_CH_TIME_MS,
	SL_CH_MIN_DELAY_EXCESS,
	SL_CH_TARGET_EXPONENT,
	SL_CH_MIN_PRICE_EXPONENT,
	SL_CH_SETTLED_HEIGHT,
	SL_CH_SETTLED_GAS_UNIX,
	SL_CH_SETTLED_GAS_NUMERATOR,
	SL_CH_SETTLED_EXCESS,
	SL_CORETH_HFIELDS /* 30 */
};
#define SL_CORETH_HFIELDS_MIN 16

/* How a header field is stored; the JSON writer and the encoder use it. */
typedef enum sl_coreth_fkind {
	SL_CF_HASH,	/* exactly 32 bytes */
	SL_CF_ADDRESS,	/* exactly 20 bytes */
	SL_CF_BLOOM,	/* exactly 256 bytes */
	SL_CF_NONCE,	/* exactly 8 bytes */
	SL_CF_BYTES,	/* any length */
	SL_CF_BIG,	/* canonical uint up to 32 bytes */
	SL_CF_U64,	/* canonical uint up to 8 bytes */
	SL_CF_OPT_HASH, /* 32 bytes, or empty when Go held nil */
} sl_coreth_fkind;

typedef struct sl_coreth_field_info {
	const char *json; /* eth JSON-RPC name */
	sl_coreth_fkind kind;
} sl_coreth_field_info;

extern const sl_coreth_field_info sl_coreth_header_fields[SL_CORETH_HFIELDS];

typedef struct sl_coreth_header {
	unsigned nfields;			    /* 16..30 */
	sl_span f[SL_CORETH_HFIELDS];		    /* each present field's string payload */
	uint64_t number, gas_limit, gas_used, time; /* copies of fields 8-11 */
	sl_span rlp;				    /* the header's whole encoding */
	uint8_t hash[32];			    /* keccak256(rlp) */
} sl_coreth_header;

/* The value of a present U64/BIG field that fits in 64 bits; false when absent or wider. */
bool sl_coreth_header_u64(const sl_coreth_header *h, unsigned field, uint64_t *v);

/* Semantic slots of an EVM tx; which ones a type has is in the table above. */
enum sl_evm_tx_field {
	SL_TX_CHAIN_ID,
	SL_TX_NONCE,
	SL_TX_GAS_PRICE,
	SL_TX_TIP_CAP,
	SL_TX_FEE_CAP,
	SL_TX_GAS,
	SL_TX_TO,
	SL_TX_VALUE,
	SL_TX_DATA,
	SL_TX_ACCESS_LIST,
	SL_TX_BLOB_FEE_CAP,
	SL_TX_BLOB_HASHES,
	SL_TX_AUTH_LIST,
	SL_TX_V,
	SL_TX_R,
	SL_TX_S,
	SL_TX_NFIELDS
};

typedef struct sl_evm_tx {
	uint8_t type;		  /* 0 legacy, 1 access list, 2 dynamic fee, 3 blob, 4 set-code */
	uint32_t present;	  /* bit i set: slot i belongs to this type */
	sl_span f[SL_TX_NFIELDS]; /* strings: payload; lists (access, blob hashes, auth): whole encoding */
	uint64_t nonce, gas;
	sl_span raw; /* canonical bytes (hash preimage) */
	uint8_t hash[32];
} sl_evm_tx;

typedef struct sl_coreth_block {
	sl_span bytes;
	sl_coreth_header header;
	uint32_t ntx;
	sl_evm_tx *txs;
	uint32_t nuncles;
	sl_coreth_header *uncles;
	uint32_t version;
	sl_span ext_data; /* atomic txs; empty when none */
} sl_coreth_block;

/* Decode one block that fills p[0..len) exactly. */
SL_MUST_USE sl_err sl_coreth_block_decode(const uint8_t *p, size_t len, sl_arena *a, sl_coreth_block *out,
					  sl_err_detail *detail);
/* Encode b's fields (header fields, txs, uncles, version, extData) onto out. */
SL_MUST_USE sl_err sl_coreth_block_encode(const sl_coreth_block *b, sl_buf *out);

/* Decode a header (one RLP list filling p[0..len)). */
SL_MUST_USE sl_err sl_coreth_header_decode(const uint8_t *p, size_t len, sl_coreth_header *out,
					   sl_err_detail *detail);
void sl_coreth_header_write(sl_buf *out, const sl_coreth_header *h);

/* keccak256(rlp(ext)) or the empty-trie root when ext is empty. */
void sl_coreth_ext_data_hash(sl_span ext, uint8_t out[32]);

/* Decode a tx from its canonical bytes (legacy list, or type byte + list). */
SL_MUST_USE sl_err sl_evm_tx_decode(const uint8_t *p, size_t len, sl_evm_tx *out, sl_err_detail *detail);
/* Canonical bytes of a tx from its fields (what sl_evm_tx_decode reads). */
void sl_evm_tx_write(sl_buf *out, const sl_evm_tx *tx);
/* Set tx->present from tx->type: the slots the type has. False for an unknown type. */
bool sl_evm_tx_layout(sl_evm_tx *tx);

/* The chain id: typed txs carry it; legacy EIP-155 ones encode it in v. False when absent. */
bool sl_evm_tx_chain_id(const sl_evm_tx *tx, uint64_t *chain_id);
/* The signature's y parity (recovery id) from v / yParity; false if v is malformed. */
bool sl_evm_tx_y_parity(const sl_evm_tx *tx, uint8_t *y);

/* The hash the sender signed. SL_ERR_INVALID if v is malformed. */
SL_MUST_USE sl_err sl_evm_tx_signing_hash(const sl_evm_tx *tx, uint8_t out[32]);
/*
 * Recover the sender's 20-byte address. SL_ERR_INVALID for a malformed
 * v or an r/s outside the curve order, SL_ERR_CHECKSUM when no key
 * recovers. High-s signatures (rejected by Ethereum since Homestead) are
 * recovered anyway: the chain already accepted the tx.
 */
SL_MUST_USE sl_err sl_evm_tx_sender(const sl_evm_tx *tx, uint8_t out[20]);

#endif
