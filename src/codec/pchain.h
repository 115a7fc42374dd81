/*
 * pchain.h — P-chain (platformvm) transactions and blocks.
 *
 * Signed tx   00 00 | iface<UnsignedTx> | list<iface<Credential 9>>
 * Block       00 00 | u32 type id | fields (below); txs inside a block are
 *             `iface<UnsignedTx> | list<iface<Credential>>` with NO version.
 *
 * Bodies after the type id (BaseTx = avax.BaseTx, see avax.h;
 * Validator = nodeID [20] | start u64 | end u64 | weight u64;
 * Owner = iface<OutputOwners 11>; Auth = iface<secp Input 10>;
 * Signer = iface<27 (empty) | 28 (publicKey [48] | pop [96])>;
 * PChainOwner = threshold u32 | list<ShortID>):
 *
 *   id  tx                               fields
 *   --  -------------------------------  -------------------------------------------
 *   12  AddValidatorTx                   BaseTx Validator list<TransferableOutput> stake
 *                                        Owner rewards | shares u32
 *   13  AddSubnetValidatorTx             BaseTx Validator subnetID | Auth
 *   14  AddDelegatorTx                   BaseTx Validator stake Owner rewards
 *   15  CreateChainTx                    BaseTx subnetID | chainName string | vmID
 *                                        | list<ID> fxIDs | genesis bytes | Auth
 *   16  CreateSubnetTx                   BaseTx Owner
 *   17  ImportTx                         BaseTx sourceChain | list<TransferableInput>
 *   18  ExportTx                         BaseTx destinationChain | list<TransferableOutput>
 *   19  AdvanceTimeTx                    time u64                      (no BaseTx)
 *   20  RewardValidatorTx                txID                          (no BaseTx)
 *   23  RemoveSubnetValidatorTx          BaseTx nodeID [20] | subnetID | Auth
 *   24  TransformSubnetTx                BaseTx subnetID assetID initialSupply u64
 *                                        maximumSupply u64 minConsumptionRate u64
 *                                        maxConsumptionRate u64 minValidatorStake u64
 *                                        maxValidatorStake u64 minStakeDuration u32
 *                                        maxStakeDuration u32 minDelegationFee u32
 *                                        minDelegatorStake u64 maxValidatorWeightFactor u8
 *                                        uptimeRequirement u32 | Auth
 *   25  AddPermissionlessValidatorTx     BaseTx Validator subnetID Signer stake
 *                                        Owner validation | Owner delegation | shares u32
 *   26  AddPermissionlessDelegatorTx     BaseTx Validator subnetID stake Owner rewards
 *   33  TransferSubnetOwnershipTx        BaseTx subnetID | Auth | Owner newOwner
 *   34  BaseTx                           BaseTx
 *   35  ConvertSubnetToL1Tx              BaseTx subnetID | chainID | address bytes
 *                                        | list<L1Validator> | Auth
 *   36  RegisterL1ValidatorTx            BaseTx balance u64 | pop [96] | message bytes
 *   37  SetL1ValidatorWeightTx           BaseTx message bytes
 *   38  IncreaseL1ValidatorBalanceTx     BaseTx validationID | balance u64
 *   39  DisableL1ValidatorTx             BaseTx validationID | Auth
 *   40  AddAutoRenewedValidatorTx        BaseTx nodeID bytes | Signer | stake | Owner
 *                                        validation | Owner delegation | Owner authority
 *                                        | delegationShares u32 | autoCompoundShares u32
 *                                        | period u64
 *   41  SetAutoRenewedValidatorConfigTx  BaseTx txID | Auth | autoCompoundShares u32 | period u64
 *   42  RewardAutoRenewedValidatorTx     txID | timestamp u64           (no BaseTx)
 *
 *   L1Validator = nodeID bytes | weight u64 | balance u64 | publicKey [48] | pop [96]
 *                 | PChainOwner remainingBalance | PChainOwner deactivation
 *
 *   id  block                  fields
 *   --  ---------------------  ---------------------------------------------
 *    0  ApricotProposalBlock   parentID | height u64 | tx
 *    1  ApricotAbortBlock      parentID | height u64
 *    2  ApricotCommitBlock     parentID | height u64
 *    3  ApricotStandardBlock   parentID | height u64 | list<tx>
 *    4  ApricotAtomicBlock     parentID | height u64 | tx
 *   29  BanffProposalBlock     time u64 | list<tx> | parentID | height u64 | tx
 *   30  BanffAbortBlock        time u64 | parentID | height u64
 *   31  BanffCommitBlock       time u64 | parentID | height u64
 *   32  BanffStandardBlock     time u64 | parentID | height u64 | list<tx>
 *
 * Ids: tx id = sha256(00 00 | tx bytes); block id = sha256(block bytes).
 *
 * Views and lifetime: decoded values point into the input (ids, addresses,
 * keys, messages are never copied) and their arrays live in the caller's
 * arena; both must outlive the value. One flat sl_pchain_utx holds every
 * tx type: the table above says which fields a type fills; the others are
 * zero / NULL.
 */
#ifndef SL_CODEC_PCHAIN_H
#define SL_CODEC_PCHAIN_H

#include "codec/avax.h"

typedef enum sl_pchain_type {
	SL_P_APRICOT_PROPOSAL_BLOCK = 0,
	SL_P_APRICOT_ABORT_BLOCK = 1,
	SL_P_APRICOT_COMMIT_BLOCK = 2,
	SL_P_APRICOT_STANDARD_BLOCK = 3,
	SL_P_APRICOT_ATOMIC_BLOCK = 4,
	SL_P_ADD_VALIDATOR_TX = 12,
	SL_P_ADD_SUBNET_VALIDATOR_TX = 13,
	SL_P_ADD_DELEGATOR_TX = 14,
	SL_P_CREATE_CHAIN_TX = 15,
	SL_P_CREATE_SUBNET_TX = 16,
	SL_P_IMPORT_TX = 17,
	SL_P_EXPORT_TX = 18,
	SL_P_ADVANCE_TIME_TX = 19,
	SL_P_REWARD_VALIDATOR_TX = 20,
	SL_P_REMOVE_SUBNET_VALIDATOR_TX = 23,
	SL_P_TRANSFORM_SUBNET_TX = 24,
	SL_P_ADD_PERMISSIONLESS_VALIDATOR_TX = 25,
	SL_P_ADD_PERMISSIONLESS_DELEGATOR_TX = 26,
	SL_P_SIGNER_EMPTY = 27,
	SL_P_SIGNER_POP = 28,
	SL_P_BANFF_PROPOSAL_BLOCK = 29,
	SL_P_BANFF_ABORT_BLOCK = 30,
	SL_P_BANFF_COMMIT_BLOCK = 31,
	SL_P_BANFF_STANDARD_BLOCK = 32,
	SL_P_TRANSFER_SUBNET_OWNERSHIP_TX = 33,
	SL_P_BASE_TX = 34,
	SL_P_CONVERT_SUBNET_TO_L1_TX = 35,
	SL_P_REGISTER_L1_VALIDATOR_TX = 36,
	SL_P_SET_L1_VALIDATOR_WEIGHT_TX = 37,
	SL_P_INCREASE_L1_VALIDATOR_BALANCE_TX = 38,
	SL_P_DISABLE_L1_VALIDATOR_TX = 39,
	SL_P_ADD_AUTO_RENEWED_VALIDATOR_TX = 40,
	SL_P_SET_AUTO_RENEWED_VALIDATOR_CONFIG_TX = 41,
	SL_P_REWARD_AUTO_RENEWED_VALIDATOR_TX = 42,
} sl_pchain_type;

/* The avalanchego Go type name of a P-chain tx or block type id; NULL if unknown. */
const char *sl_pchain_type_name(uint32_t type_id);
bool sl_pchain_is_tx_type(uint32_t type_id);
bool sl_pchain_is_block_type(uint32_t type_id);

typedef struct sl_pchain_owner { /* PChainOwner: no locktime, no type id */
	uint32_t threshold;
	uint32_t naddrs;
	const uint8_t *addrs; /* naddrs * 20 */
} sl_pchain_owner;

typedef struct sl_pchain_signer {
	uint32_t type_id;	   /* 27 empty, 28 proof of possession; 0 = absent */
	const uint8_t *public_key; /* [48] compressed G1, type 28 only */
	const uint8_t *pop;	   /* [96] G2 signature, type 28 only */
} sl_pchain_signer;

typedef struct sl_l1_validator {
	sl_span node_id; /* bytes (20 expected, not checked by the codec) */
	uint64_t weight, balance;
	const uint8_t *public_key; /* [48] */
	const uint8_t *pop;	   /* [96] */
	sl_pchain_owner remaining_balance_owner, deactivation_owner;
} sl_l1_validator;

typedef struct sl_transform_subnet {
	const uint8_t *asset_id;
	uint64_t initial_supply, maximum_supply, min_consumption_rate, max_consumption_rate;
	uint64_t min_validator_stake, max_validator_stake;
	uint32_t min_stake_duration, max_stake_duration, min_delegation_fee;
	uint64_t min_delegator_stake;
	uint8_t max_validator_weight_factor;
	uint32_t uptime_requirement;
} sl_transform_subnet;

typedef struct sl_pchain_utx {
	uint32_t type_id;
	bool has_base; /* all but 19, 20, 42 */
	sl_avax_base base;

	/* Validator (12, 13, 14, 25, 26); node_id also for 23 */
	const uint8_t *node_id; /* [20] */
	uint64_t start, end, weight;
	sl_span node_id_bytes; /* 40: nodeID as bytes */

	const uint8_t *subnet_id; /* 13, 15, 23, 24, 25, 26, 33, 35 */
	sl_pchain_signer signer;  /* 25, 40 */
	uint32_t nstake;	  /* 12, 14, 25, 26, 40 */
	sl_avax_out *stake;

	/* owners: 12/14/26 rewards, 25/40 validation rewards -> rewards_owner;
	 * 25/40 delegation rewards -> delegation_owner; 16 owner, 33 newOwner,
	 * 40 validatorAuthority -> owner. */
	sl_owners rewards_owner, delegation_owner, owner;
	uint32_t shares;	       /* 12, 25; 40 delegationShares */
	uint32_t auto_compound_shares; /* 40, 41 */
	uint64_t period;	       /* 40, 41 */

	bool has_auth;	/* 13, 15, 23, 24, 33, 35, 39, 41 */
	sl_sigidx auth; /* subnetAuth / disableAuth / auth (secp Input 10) */

	/* CreateChainTx */
	sl_span chain_name;
	const uint8_t *vm_id;
	uint32_t nfx_ids;
	const uint8_t *fx_ids; /* nfx_ids * 32 */
	sl_span genesis;

	/* ImportTx / ExportTx */
	const uint8_t *chain; /* 17 sourceChain, 18 destinationChain */
	uint32_t nimported;
	sl_avax_in *imported;
	uint32_t nexported;
	sl_avax_out *exported;

	uint64_t time;	      /* 19 time; 42 timestamp */
	const uint8_t *tx_id; /* 20, 41, 42 */

	sl_transform_subnet transform; /* 24 */

	/* L1 (35-39) */
	const uint8_t *manager_chain_id; /* 35 chainID */
	sl_span manager_address;	 /* 35 address */
	uint32_t nvalidators;
	sl_l1_validator *validators;  /* 35 */
	uint64_t balance;	      /* 36, 38 */
	const uint8_t *pop;	      /* 36 proofOfPossession [96] */
	sl_span message;	      /* 36, 37: a signed warp message */
	const uint8_t *validation_id; /* 38, 39 */
} sl_pchain_utx;

typedef struct sl_pchain_tx {
	sl_pchain_utx utx;
	uint32_t ncreds;
	sl_credential *creds;
	sl_span bytes;		/* the tx as it sits in the input: with 00 00 at the
				   top level, without it inside a block */
	sl_span unsigned_bytes; /* iface<UnsignedTx>, no version */
	uint8_t id[32];		/* sha256(00 00 | bytes without version) */
} sl_pchain_tx;

typedef struct sl_pchain_block {
	uint32_t type_id;
	uint64_t time; /* Banff blocks only */
	const uint8_t *parent_id;
	uint64_t height;
	uint32_t ntxs; /* 3, 32: the txs; 29: the standard txs before `tx` */
	sl_pchain_tx *txs;
	sl_pchain_tx *tx; /* 0, 4, 29: the decision / atomic tx; else NULL */
	sl_span bytes;
	uint8_t id[32];
} sl_pchain_block;

/* Decode a signed tx (with codec version); must consume all of p[0..n). */
SL_MUST_USE sl_err sl_pchain_tx_decode(sl_arena *a, const uint8_t *p, size_t n, sl_pchain_tx *tx,
				       sl_err_detail *err);
/* Decode an unsigned tx (00 00 | iface<UnsignedTx>); tx->ncreds = 0. */
SL_MUST_USE sl_err sl_pchain_utx_decode(sl_arena *a, const uint8_t *p, size_t n, sl_pchain_tx *tx,
					sl_err_detail *err);
SL_MUST_USE sl_err sl_pchain_block_decode(sl_arena *a, const uint8_t *p, size_t n, sl_pchain_block *b,
					  sl_err_detail *err);

/* Pieces, for blocks and other codecs: read at the cursor, no version. */
void sl_pchain_utx_read(sl_dec *d, sl_pchain_utx *u);
void sl_pchain_tx_read(sl_dec *d, sl_pchain_tx *tx); /* iface<UnsignedTx> + creds; computes id */

/* Encoders: the exact bytes the decoder read (with codec version). */
void sl_pchain_utx_write(sl_buf *out, const sl_pchain_utx *u);		     /* iface<UnsignedTx> */
void sl_pchain_tx_write(sl_buf *out, const sl_pchain_tx *tx);		     /* no version */
SL_MUST_USE sl_err sl_pchain_tx_encode(sl_buf *out, const sl_pchain_tx *tx); /* 00 00 + tx */
SL_MUST_USE sl_err sl_pchain_block_encode(sl_buf *out, const sl_pchain_block *b);

/* A block's txs in avalanchego's Txs() order (txs..., then tx); returns the count. */
uint32_t sl_pchain_block_tx_count(const sl_pchain_block *b);
const sl_pchain_tx *sl_pchain_block_tx_at(const sl_pchain_block *b, uint32_t i);
/* A proposal block (Apricot or Banff): its state is written with the option block after it. */
static inline bool sl_pchain_block_is_proposal(uint32_t type_id)
{
	return type_id == SL_P_APRICOT_PROPOSAL_BLOCK || type_id == SL_P_BANFF_PROPOSAL_BLOCK;
}

/* L1 validationID of validator `index` of a ConvertSubnetToL1Tx: sha256(subnetID | u32be(index)). */
void sl_pchain_l1_validation_id(const uint8_t subnet_id[32], uint32_t index, uint8_t out[32]);

#endif
