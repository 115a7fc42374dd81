/*
 * avax.h — the building blocks the P-chain, X-chain and C-chain atomic
 * codecs share: transferable outputs and inputs, the secp256k1fx / nftfx /
 * propertyfx values inside them, stakeable locks, credentials, avax.BaseTx,
 * UTXOs and the id rules.
 *
 * Byte layouts (wire-formats.md §5; u32/u64 big-endian, ID = 32 bytes,
 * ShortID = 20 bytes, iface<T> = u32 type id + body, list<T> = u32 count +
 * elements, bytes = u32 length + raw):
 *
 *   OutputOwners            locktime u64 | threshold u32 | list<ShortID> addresses
 *   TransferableOutput      assetID ID | iface<Output>
 *   TransferableInput       txID ID | outputIndex u32 | assetID ID | iface<Input>
 *   avax.BaseTx             networkID u32 | blockchainID ID | list<TransferableOutput>
 *                           | list<TransferableInput> | memo bytes
 *   Credential (9, 14, 19)  list<[65]byte> signatures (r | s | recovery id)
 *   UTXO (shared memory)    00 00 | txID ID | outputIndex u32 | assetID ID | iface<Output>
 *
 *   output bodies by type id                input bodies by type id
 *   ------------------------------------    ------------------------------------
 *    6 secp MintOutput     OutputOwners       5 secp TransferInput  amount u64
 *    7 secp TransferOutput amount u64                               | list<u32> sigIndices
 *                          | OutputOwners    21 stakeable LockIn    locktime u64
 *   10 nft MintOutput      groupID u32                              | iface<Input 5>
 *                          | OutputOwners    10 secp Input (auth)   list<u32> sigIndices
 *   11 nft TransferOutput  groupID u32
 *                          | payload bytes
 *                          | OutputOwners
 *   15 property MintOutput OutputOwners
 *   16 property OwnedOutput OutputOwners
 *   22 stakeable LockOut   locktime u64 | iface<Output 7>
 *
 * Type ids mean different things on different chains (10 is nftfx
 * MintOutput on X but secp256k1fx.Input on P), so every decoder takes the
 * set of ids its interface slot accepts (`sl_typeset`); an id outside the
 * set is SL_ERR_UNSUPPORTED at the offset of the type id.
 *
 * Views and lifetime: every pointer and span in a decoded value points into
 * the input buffer, and every array is allocated from the caller's arena.
 * A decoded value is valid while both the input and the arena live.
 * Fixed-size arrays (ids, addresses, signatures, sigIndices) are not copied:
 * `addrs` is naddrs * 20 contiguous bytes, `sigs` is nsigs * 65, sigIndices
 * is n * 4 big-endian bytes (read them with sl_sigidx_at()).
 */
#ifndef SL_CODEC_AVAX_H
#define SL_CODEC_AVAX_H

#include "codec/reader.h"
#include "util/arena.h"
#include "util/buf.h"

#define SL_ID_LEN 32
#define SL_SHORT_ID_LEN 20
#define SL_SECP_SIG_LEN 65
#define SL_BLS_PUB_LEN 48
#define SL_BLS_SIG_LEN 96

/* A set of codec type ids (all ids used here are below 64). */
typedef uint64_t sl_typeset;
#define SL_TYPE(n) ((sl_typeset)1 << (n))

/* Type ids that mean the same on every chain that registers them. */
enum {
	SL_T_SECP_TRANSFER_INPUT = 5,
	SL_T_SECP_MINT_OUTPUT = 6,
	SL_T_SECP_TRANSFER_OUTPUT = 7,
	SL_T_SECP_MINT_OPERATION = 8,
	SL_T_SECP_CREDENTIAL = 9,
	SL_T_NFT_MINT_OUTPUT = 10,	  /* X only */
	SL_T_NFT_TRANSFER_OUTPUT = 11,	  /* X only */
	SL_T_NFT_MINT_OPERATION = 12,	  /* X only */
	SL_T_NFT_TRANSFER_OPERATION = 13, /* X only */
	SL_T_NFT_CREDENTIAL = 14,	  /* X only */
	SL_T_PROP_MINT_OUTPUT = 15,	  /* X only */
	SL_T_PROP_OWNED_OUTPUT = 16,	  /* X only */
	SL_T_PROP_MINT_OPERATION = 17,	  /* X only */
	SL_T_PROP_BURN_OPERATION = 18,	  /* X only */
	SL_T_PROP_CREDENTIAL = 19,	  /* X only */
	SL_T_SECP_INPUT = 10,		  /* P and C only */
	SL_T_SECP_OUTPUT_OWNERS = 11,	  /* P and C only */
	SL_T_STAKEABLE_LOCK_IN = 21,	  /* P only */
	SL_T_STAKEABLE_LOCK_OUT = 22,	  /* P only */
};

/* The fxs, in the X-chain's registration order (InitialState.fxIndex). */
typedef enum sl_fx { SL_FX_SECP256K1 = 0, SL_FX_NFT = 1, SL_FX_PROPERTY = 2, SL_FX__COUNT } sl_fx;
extern const uint8_t sl_fx_ids[SL_FX__COUNT][SL_ID_LEN]; /* "secp256k1fx", "nftfx", "propertyfx" padded */

/* A decoder: the sticky reader plus the arena arrays come from. */
typedef struct sl_dec {
	sl_reader r;
	sl_arena *a;
} sl_dec;

static inline void sl_dec_init(sl_dec *d, sl_arena *a, const uint8_t *p, size_t n)
{
	sl_rd_init(&d->r, p, n);
	d->a = a;
}
/* A top-level value: the u16 codec version, which must be 0. */
void sl_dec_version0(sl_dec *d);
/* The end of a top-level decode: trailing bytes are an error; *err (may be NULL) gets the detail. */
sl_err sl_dec_finish(sl_dec *d, sl_err_detail *err);
/* n elements of sz bytes from the arena (zeroed); NULL and SL_ERR_NOMEM on failure. */
void *sl_dec_array(sl_dec *d, size_t n, size_t sz);
/* Read a u32 type id and check it against `allowed`. */
uint32_t sl_dec_type(sl_dec *d, sl_typeset allowed);
/* A 32-byte id (view). */
static inline const uint8_t *sl_dec_id(sl_dec *d) { return sl_rd_take(&d->r, SL_ID_LEN); }
/* list<T> of fixed-size elements: count, then a view of count*size bytes. */
const uint8_t *sl_dec_fixed_list(sl_dec *d, uint32_t *n, size_t size);

typedef struct sl_owners {
	uint64_t locktime;
	uint32_t threshold;
	uint32_t naddrs;
	const uint8_t *addrs; /* naddrs * 20 bytes */
} sl_owners;

typedef struct sl_sigidx {
	uint32_t n;
	const uint8_t *p; /* n * 4 bytes, big-endian u32 */
} sl_sigidx;
static inline uint32_t sl_sigidx_at(const sl_sigidx *s, uint32_t i) { return sl_be32(s->p + 4 * (size_t)i); }

typedef struct sl_output {
	uint32_t type_id;	/* the id on the wire: 6, 7, 10, 11, 15, 16 or 22 */
	uint32_t fx_type_id;	/* the fx output's id: type_id, or 7 inside a LockOut */
	uint64_t lock_locktime; /* LockOut (22) only: locked until this unix time */
	uint64_t amount;	/* secp TransferOutput (7) */
	uint32_t group_id;	/* nft outputs (10, 11) */
	sl_span payload;	/* nft TransferOutput (11) */
	sl_owners owners;
} sl_output;

typedef struct sl_input {
	uint32_t type_id;	/* 5 or 21 */
	uint32_t fx_type_id;	/* 5 */
	uint64_t lock_locktime; /* LockIn (21) only */
	uint64_t amount;
	sl_sigidx sig;
} sl_input;

typedef struct sl_avax_out {
	const uint8_t *asset_id;
	sl_output out;
} sl_avax_out;

typedef struct sl_avax_in {
	const uint8_t *tx_id;
	uint32_t output_index;
	const uint8_t *asset_id;
	sl_input in;
} sl_avax_in;

typedef struct sl_avax_base {
	uint32_t network_id;
	const uint8_t *blockchain_id;
	uint32_t nouts;
	sl_avax_out *outs;
	uint32_t nins;
	sl_avax_in *ins;
	sl_span memo;
} sl_avax_base;

typedef struct sl_credential {
	uint32_t type_id; /* 9, or 14 / 19 on X */
	uint32_t nsigs;
	const uint8_t *sigs; /* nsigs * 65 bytes */
} sl_credential;

typedef struct sl_utxo {
	const uint8_t *tx_id;
	uint32_t output_index;
	const uint8_t *asset_id;
	sl_output out;
} sl_utxo;

/* Minimum encoded sizes, for checking counts against what remains. */
#define SL_MIN_OWNERS 16u
#define SL_MIN_OUTPUT 20u
#define SL_MIN_AVAX_OUT 52u
#define SL_MIN_INPUT 16u
#define SL_MIN_AVAX_IN 84u
#define SL_MIN_CREDENTIAL 8u

/* Interface slot sets per chain. */
#define SL_P_OUTPUTS (SL_TYPE(7) | SL_TYPE(22))
#define SL_P_INPUTS (SL_TYPE(5) | SL_TYPE(21))
#define SL_X_OUTPUTS SL_TYPE(7)
#define SL_X_STATES (SL_TYPE(6) | SL_TYPE(7) | SL_TYPE(10) | SL_TYPE(11) | SL_TYPE(15) | SL_TYPE(16))
#define SL_X_INPUTS SL_TYPE(5)
#define SL_X_CREDS (SL_TYPE(9) | SL_TYPE(14) | SL_TYPE(19))
#define SL_SECP_CREDS SL_TYPE(9)

/* Decoders: read one value at the reader's cursor; errors are sticky in d->r. */
void sl_avax_owners_decode(sl_dec *d, sl_owners *o);
void sl_avax_sigidx_decode(sl_dec *d, sl_sigidx *s);
void sl_avax_output_decode(sl_dec *d, sl_output *o, sl_typeset allowed);
void sl_avax_input_decode(sl_dec *d, sl_input *in, sl_typeset allowed);
void sl_avax_outs_decode(sl_dec *d, uint32_t *n, sl_avax_out **outs, sl_typeset allowed);
void sl_avax_ins_decode(sl_dec *d, uint32_t *n, sl_avax_in **ins, sl_typeset allowed);
void sl_avax_base_decode(sl_dec *d, sl_avax_base *b, sl_typeset outs, sl_typeset ins);
void sl_avax_creds_decode(sl_dec *d, uint32_t *n, sl_credential **creds, sl_typeset allowed);

/*
 * The tail shared by every signed tx (P, X, C atomic): after the unsigned tx
 * (which began at `start`) read the credentials of `allowed` types, then set
 * the unsigned and whole byte views and the id (sha256 of 00 00 | bytes).
 */
void sl_avax_signed_tail(sl_dec *d, size_t start, sl_typeset allowed, uint32_t *ncreds, sl_credential **creds,
			 sl_span *unsigned_bytes, sl_span *bytes, uint8_t id[32]);

/* Encoders: append the same bytes onto out (sticky out->err). */
void sl_avax_owners_write(sl_buf *out, const sl_owners *o);
void sl_avax_sigidx_write(sl_buf *out, const sl_sigidx *s);
void sl_avax_output_write(sl_buf *out, const sl_output *o);
void sl_avax_input_write(sl_buf *out, const sl_input *in);
void sl_avax_outs_write(sl_buf *out, uint32_t n, const sl_avax_out *outs);
void sl_avax_ins_write(sl_buf *out, uint32_t n, const sl_avax_in *ins);
void sl_avax_base_write(sl_buf *out, const sl_avax_base *b);
void sl_avax_creds_write(sl_buf *out, uint32_t n, const sl_credential *creds);

/* A UTXO as stored in state or shared memory (with its codec version). */
SL_MUST_USE sl_err sl_avax_utxo_decode(sl_arena *a, const uint8_t *p, size_t n, sl_typeset outputs,
				       sl_utxo *u, sl_err_detail *err);
void sl_avax_utxo_encode(sl_buf *out, const sl_utxo *u);

/* UTXO id = sha256(u64be(outputIndex) || txID) (ids.ID.Prefix). */
void sl_avax_utxo_id(const uint8_t tx_id[32], uint32_t output_index, uint8_t out[32]);

/*
 * sha256(00 00 || body): the id of a tx or block whose bytes were taken
 * from inside a block, where the codec version is not written.
 */
SL_MUST_USE sl_err sl_avax_hash_versioned(sl_arena *a, sl_span body, uint8_t out[32]);

/* The fx a type id belongs to on the X-chain (5-9 secp, 10-14 nft, 15-19 property). */
sl_fx sl_avax_x_fx_of(uint32_t type_id);

#endif
