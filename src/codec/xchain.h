/*
 * xchain.h — X-chain (AVM) transactions, blocks and DAG-era vertices.
 *
 * Signed tx  00 00 | iface<UnsignedTx 0-4> | list<iface<Credential 9|14|19>>
 *
 *   id  tx             fields after avax.BaseTx (see avax.h)
 *   --  -------------  ----------------------------------------------------
 *    0  BaseTx         (none)
 *    1  CreateAssetTx  name string | symbol string | denomination u8
 *                      | list<InitialState>
 *    2  OperationTx    list<Operation>
 *    3  ImportTx       sourceChain ID | list<TransferableInput>
 *    4  ExportTx       destinationChain ID | list<TransferableOutput>
 *
 *   InitialState = fxIndex u32 | list<iface<State 6|7|10|11|15|16>>
 *   Operation    = assetID ID | list<UTXOID (txID ID | outputIndex u32)>
 *                  | iface<FxOperation 8|12|13|17|18>
 *
 *   operation bodies (nested outputs are plain structs, no type ids):
 *    8 secp MintOperation     Input | OutputOwners mint | amount u64 + OutputOwners transfer
 *   12 nft MintOperation      Input | groupID u32 | payload bytes | list<OutputOwners>
 *   13 nft TransferOperation  Input | groupID u32 | payload bytes | OutputOwners
 *   17 property MintOperation Input | OutputOwners mint | OutputOwners owned
 *   18 property BurnOperation Input
 *   (Input = list<u32> sigIndices)
 *
 * Block (post-Cortina, inside proposervm):
 *   00 00 | 00000014 (20) | parentID | height u64 | time u64 | merkleRoot ID
 *   | list<tx without version>
 * Vertex (DAG era, no type id):
 *   version u16 (0, or 1 = stop vertex) | chainID | height u64
 *   | v0: epoch u32 | list<ID> parentIDs | v0: list<bytes> txs (each a full
 *   signed tx with its own 00 00)
 *
 * Ids: tx = sha256(00 00 | tx); block and vertex = sha256(all bytes).
 *
 * The id numbering assumes the primary network's fx list (secp256k1fx,
 * nftfx, propertyfx), as on mainnet and Fuji.
 *
 * Views and lifetime: as avax.h — pointers into the input, arrays in the
 * caller's arena; both must outlive the decoded value.
 */
#ifndef SL_CODEC_XCHAIN_H
#define SL_CODEC_XCHAIN_H

#include "codec/avax.h"

typedef enum sl_xchain_type {
	SL_X_BASE_TX = 0,
	SL_X_CREATE_ASSET_TX = 1,
	SL_X_OPERATION_TX = 2,
	SL_X_IMPORT_TX = 3,
	SL_X_EXPORT_TX = 4,
	SL_X_STANDARD_BLOCK = 20,
} sl_xchain_type;

const char *sl_xchain_type_name(uint32_t type_id); /* "BaseTx", ...; NULL if not a tx/block */
/* Go type name of an fx value ("secp256k1fx.TransferOutput", ...); NULL if unknown. */
const char *sl_xchain_fx_type_name(uint32_t type_id);

typedef struct sl_xchain_fx_op {
	uint32_t type_id;  /* 8, 12, 13, 17, 18 */
	sl_sigidx input;   /* every operation */
	uint32_t group_id; /* 12, 13 */
	sl_span payload;   /* 12, 13 */
	uint64_t amount;   /* 8: transferOutput amount */
	sl_owners owners1; /* 8 mintOutput, 13 output, 17 mintOutput */
	sl_owners owners2; /* 8 transferOutput, 17 ownedOutput */
	uint32_t nowners;  /* 12 outputs */
	sl_owners *owners;
} sl_xchain_fx_op;

typedef struct sl_xchain_op {
	const uint8_t *asset_id;
	uint32_t nutxos;
	const uint8_t *utxos; /* nutxos * 36: txID | u32be outputIndex */
	sl_xchain_fx_op op;
} sl_xchain_op;

typedef struct sl_initial_state {
	uint32_t fx_index;
	uint32_t nouts;
	sl_output *outs;
} sl_initial_state;

typedef struct sl_xchain_utx {
	uint32_t type_id;
	sl_avax_base base;
	sl_span name, symbol; /* 1 */
	uint8_t denomination; /* 1 */
	uint32_t nstates;     /* 1 */
	sl_initial_state *states;
	uint32_t nops; /* 2 */
	sl_xchain_op *ops;
	const uint8_t *chain; /* 3 sourceChain, 4 destinationChain */
	uint32_t nimported;   /* 3 */
	sl_avax_in *imported;
	uint32_t nexported; /* 4 */
	sl_avax_out *exported;
} sl_xchain_utx;

typedef struct sl_xchain_tx {
	sl_xchain_utx utx;
	uint32_t ncreds;
	sl_credential *creds;
	sl_span bytes;		/* with 00 00 at top level / in a vertex, without inside a block */
	sl_span unsigned_bytes; /* iface<UnsignedTx>, no version */
	uint8_t id[32];
} sl_xchain_tx;

typedef struct sl_xchain_block {
	uint32_t type_id; /* 20 */
	const uint8_t *parent_id;
	uint64_t height, time;
	const uint8_t *merkle_root;
	uint32_t ntxs;
	sl_xchain_tx *txs;
	sl_span bytes;
	uint8_t id[32];
} sl_xchain_block;

typedef struct sl_xchain_vertex {
	uint16_t version; /* 0, or 1 for a stop vertex */
	const uint8_t *chain_id;
	uint64_t height;
	uint32_t epoch; /* v0 only */
	uint32_t nparents;
	const uint8_t *parents; /* nparents * 32 */
	uint32_t ntxs;		/* v0 only */
	sl_xchain_tx *txs;
	sl_span bytes;
	uint8_t id[32];
} sl_xchain_vertex;

SL_MUST_USE sl_err sl_xchain_tx_decode(sl_arena *a, const uint8_t *p, size_t n, sl_xchain_tx *tx,
				       sl_err_detail *err);
SL_MUST_USE sl_err sl_xchain_block_decode(sl_arena *a, const uint8_t *p, size_t n, sl_xchain_block *b,
					  sl_err_detail *err);
SL_MUST_USE sl_err sl_xchain_vertex_decode(sl_arena *a, const uint8_t *p, size_t n, sl_xchain_vertex *v,
					   sl_err_detail *err);

void sl_xchain_utx_read(sl_dec *d, sl_xchain_utx *u);
void sl_xchain_tx_read(sl_dec *d, sl_xchain_tx *tx); /* no version; computes id */

void sl_xchain_utx_write(sl_buf *out, const sl_xchain_utx *u);
void sl_xchain_tx_write(sl_buf *out, const sl_xchain_tx *tx); /* no version */
SL_MUST_USE sl_err sl_xchain_tx_encode(sl_buf *out, const sl_xchain_tx *tx);
SL_MUST_USE sl_err sl_xchain_block_encode(sl_buf *out, const sl_xchain_block *b);
SL_MUST_USE sl_err sl_xchain_vertex_encode(sl_buf *out, const sl_xchain_vertex *v);

#endif
