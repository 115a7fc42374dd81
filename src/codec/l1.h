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

#endif
