/*
 * l1.h — which L1 validations a P-chain tx is about (ACP-77): the
 * validation ids a ConvertSubnetToL1Tx creates (sha256(subnetID | u32be(i))
 * for its validator i), the one a RegisterL1ValidatorTx registers (sha256 of
 * the RegisterL1ValidatorMessage inside its warp message), the one a
 * SetL1ValidatorWeightTx's message names, and the validationID field of
 * IncreaseL1ValidatorBalanceTx and DisableL1ValidatorTx.
 */
#ifndef SL_CODEC_L1_H
#define SL_CODEC_L1_H

#include "codec/pchain.h"
#include "codec/warp.h"

/*
 * The validation ids of u into out (at most max of them, 32 bytes each);
 * returns how many there are (0 for other txs, and for a register/weight tx
 * whose message does not decode).
 */
size_t sl_l1_validation_ids(const sl_pchain_utx *u, uint8_t (*out)[32], size_t max);

/* The L1 message inside the signed warp message of a RegisterL1ValidatorTx or SetL1ValidatorWeightTx. */
SL_MUST_USE sl_err sl_l1_tx_message(const sl_pchain_utx *u, sl_warp_l1_msg *msg);

/*
 * ACP-77's continuous fee for L1 validators, as avalanchego computes it
 * (vms/platformvm/validators/fee, vms/components/gas): every active L1
 * validator pays the same price per second, minPrice · e^(excess / K), where
 * the excess grows by (active - target) each second above the target and
 * shrinks below it (never under 0). The chain keeps the fees accrued since
 * Etna; a validator is active while its end fee (the accrued fees when it
 * was paid for, plus what it paid) is above them.
 */
typedef struct sl_l1_fee_config {
	uint64_t capacity, target, min_price, excess_k; /* excess_k: the excess conversion constant K */
} sl_l1_fee_config;

typedef struct sl_l1_fee_state {
	uint64_t current; /* active L1 validators */
	uint64_t excess;
} sl_l1_fee_state;

/* gas.CalculatePrice: MaxUint64 on overflow; 0 when k is 0 */
uint64_t sl_gas_price(uint64_t min_price, uint64_t excess, uint64_t k);
/* fee.State.AdvanceTime */
sl_l1_fee_state sl_l1_fee_advance(sl_l1_fee_state s, uint64_t target, uint64_t seconds);
/* fee.State.CostOf: the fee one validator pays for the next `seconds` (saturating) */
uint64_t sl_l1_fee_cost(sl_l1_fee_state s, const sl_l1_fee_config *c, uint64_t seconds);
/* The configuration of mainnet (1), Fuji (5) and avalanchego's local network (12345). */
bool sl_l1_fee_config_of(uint32_t network_id, sl_l1_fee_config *c);
/* When Etna activated on mainnet (1) and Fuji (5), unix seconds: fees accrue from then; 0 for
 * any other network. */
int64_t sl_l1_etna_time(uint32_t network_id);

#endif
