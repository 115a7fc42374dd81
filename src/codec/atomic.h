/*
 * atomic.h — C-chain (coreth) atomic transactions: the Import/Export txs
 * that move funds between the C-chain and shared memory. They live only in
 * a block's extData (wire-formats.md §11).
 *
 *   id  tx                fields
 *   --  ----------------  -------------------------------------------------
 *    0  UnsignedImportTx  networkID u32 | blockchainID ID | sourceChain ID
 *                         | list<TransferableInput 5> importedInputs
 *                         | list<EVMOutput> outs
 *    1  UnsignedExportTx  networkID u32 | blockchainID ID | destinationChain ID
 *                         | list<EVMInput> ins
 *                         | list<TransferableOutput 7> exportedOutputs
 *
 *   EVMOutput = address [20] | amount u64 | assetID ID          (60 bytes)
 *   EVMInput  = address [20] | amount u64 | assetID ID | nonce u64 (68 bytes)
 *   Credential 9 = list<[65]byte>
 *
 * extData layouts, chosen by the block's time (not height):
 *   before ApricotPhase5  00 00 | iface<UnsignedAtomicTx> | list<iface<Credential>>   (one tx)
 *   from ApricotPhase5    00 00 | list<iface<UnsignedAtomicTx> | list<iface<Credential>>>
 *                         (a non-empty batch; no per-tx version)
 * Tx id = sha256(00 00 | that tx's bytes). Amounts are nAVAX (1e9 wei).
 *
 * Views and lifetime: as avax.h — EVM addresses, ids and signatures point
 * into the input, arrays live in the caller's arena.
 */
#ifndef SL_CODEC_ATOMIC_H
#define SL_CODEC_ATOMIC_H

#include "codec/avax.h"

typedef enum sl_atomic_type { SL_ATOMIC_IMPORT_TX = 0, SL_ATOMIC_EXPORT_TX = 1 } sl_atomic_type;

/* ApricotPhase5 activation (unix seconds) by network: mainnet and Fuji; 0 elsewhere (always batched). */
#define SL_AP5_MAINNET 1638468000u /* 2021-12-02 18:00 UTC */
#define SL_AP5_FUJI 1637766000u	   /* 2021-11-24 15:00 UTC */
uint64_t sl_atomic_ap5_time(uint32_t network_id);

const char *sl_atomic_type_name(uint32_t type_id); /* "UnsignedImportTx", "UnsignedExportTx" */

typedef struct sl_evm_output {
	const uint8_t *address; /* [20] */
	uint64_t amount;
	const uint8_t *asset_id;
} sl_evm_output;

typedef struct sl_evm_input {
	const uint8_t *address; /* [20] */
	uint64_t amount;
	const uint8_t *asset_id;
	uint64_t nonce;
} sl_evm_input;

typedef struct sl_atomic_utx {
	uint32_t type_id;
	uint32_t network_id;
	const uint8_t *blockchain_id;
	const uint8_t *chain; /* import: sourceChain, export: destinationChain */
	uint32_t nimported;   /* import */
	sl_avax_in *imported;
	uint32_t nevm_outs; /* import */
	sl_evm_output *evm_outs;
	uint32_t nevm_ins; /* export */
	sl_evm_input *evm_ins;
	uint32_t nexported; /* export */
	sl_avax_out *exported;
} sl_atomic_utx;

typedef struct sl_atomic_tx {
	sl_atomic_utx utx;
	uint32_t ncreds;
	sl_credential *creds;
	sl_span bytes;		/* without the codec version */
	sl_span unsigned_bytes; /* iface<UnsignedAtomicTx>, no version */
	uint8_t id[32];
} sl_atomic_tx;

typedef struct sl_atomic_txs {
	bool batched; /* post-ApricotPhase5 layout */
	uint32_t ntxs;
	sl_atomic_tx *txs;
} sl_atomic_txs;

/* One signed atomic tx with its codec version (the pre-AP5 extData). */
SL_MUST_USE sl_err sl_atomic_tx_decode(sl_arena *a, const uint8_t *p, size_t n, sl_atomic_tx *tx,
				       sl_err_detail *err);
/*
 * A block's extData in the given layout. Empty extData is zero txs; a
 * batch must hold at least one tx.
 */
SL_MUST_USE sl_err sl_atomic_extdata_decode(sl_arena *a, const uint8_t *p, size_t n, bool batched,
					    sl_atomic_txs *out, sl_err_detail *err);

void sl_atomic_tx_read(sl_dec *d, sl_atomic_tx *tx); /* no version; computes id */
void sl_atomic_utx_write(sl_buf *out, const sl_atomic_utx *u);
void sl_atomic_tx_write(sl_buf *out, const sl_atomic_tx *tx);		     /* no version */
SL_MUST_USE sl_err sl_atomic_tx_encode(sl_buf *out, const sl_atomic_tx *tx); /* 00 00 + tx */
SL_MUST_USE sl_err sl_atomic_extdata_encode(sl_buf *out, const sl_atomic_txs *txs);

#endif
