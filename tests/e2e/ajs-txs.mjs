// ajs-txs.mjs — signed P-chain and X-chain txs of every type, built with
// @avalabs/avalanchejs (5.2.0) the way a wallet builds them: its pvm (etna)
// and avm builders where it has one, its codec classes where it does not.
// Everything is deterministic: fixed secp256k1 and BLS keys, fixed UTXOs,
// a fixed issuance time. Used by avalanchejs.test.mjs (cross-check with
// snowline decode) and bench/decode.sh (a large mixed set).
//
// buildAll() resolves to [{ chain: 'P'|'X', type, bytes, id, tx, want }]:
// `tx` is avalanchejs's unsigned tx object, `want` the values the builder
// was given, for the test to find again in snowline's JSON.
import { createHash } from 'node:crypto';
import { bls12_381 } from '@noble/curves/bls12-381';
import {
  avaxSerial, avmSerial, pvmSerial, avm, pvm, bls, secp256k1, utils, networkIDs,
  Id, Int, BigIntPr, Bytes, Byte, Stringpr, Utxo,
  OutputOwners, OutputOwnersList, TransferOutput, TransferInput, Input, Credential, Signature, MintOperation, MintOutput,
  TransferableOutput, TransferableInput, L1Validator, PChainOwner,
} from '@avalabs/avalanchejs';

export const sha256 = (b) => new Uint8Array(createHash('sha256').update(b).digest());
export const cb58 = (b) => new Id(b).toString();
export const hex = (b) => '0x' + Buffer.from(b).toString('hex');

// Fuji, so addresses carry the "fuji" HRP (snowline picks it from networkID).
export const HRP = 'fuji';
export const context = {
  networkID: 5,
  hrp: HRP,
  pBlockchainID: '11111111111111111111111111111111LpoYY',
  xBlockchainID: '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm',
  cBlockchainID: 'yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp',
  avaxAssetID: 'U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK',
  baseTxFee: 1_000_000n,
  createAssetTxFee: 10_000_000n,
  platformFeeConfig: {
    weights: [1, 1, 1, 1],
    maxCapacity: 1_000_000n,
    maxPerSecond: 1_000n,
    targetPerSecond: 500n,
    minPrice: 1n,
    excessConversionConstant: 5_000n,
  },
};
const feeState = { capacity: 999_999n, excess: 1n, price: 1n, timestamp: '2025-01-01T00:00:00Z' };
const minIssuanceTime = 1_735_689_600n; // 2025-01-01

export const secretKey = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
export const address = secp256k1.publicKeyBytesToAddress(secp256k1.getPublicKey(secretKey));
export const address2 = Uint8Array.from({ length: 20 }, (_, i) => 0x40 + i);
export const fmtAddr = (chain, a) => utils.format(chain, HRP, a);

const blsSecret = Uint8Array.from({ length: 32 }, (_, i) => 0x11 + i);
export const blsPublicKey = bls12_381.getPublicKey(blsSecret);
export const blsPop = bls.signProofOfPossession(blsPublicKey, bls.secretKeyFromBytes(blsSecret));

const fixedId = (seed) => cb58(sha256(Buffer.from(`snowline-ajs-${seed}`)));
export const ids = {
  subnet: fixedId('subnet'),
  vm: fixedId('vm'),
  chain: fixedId('chain'),
  validation: fixedId('validation'),
  validatorTx: fixedId('validator-tx'),
  asset: fixedId('asset'),
  nftAsset: fixedId('nft-asset'),
};
export const nodeId = 'NodeID-' + utils.base58check.encode(sha256(Buffer.from('snowline-node')).subarray(0, 20));

function utxo(i, amount, assetId = context.avaxAssetID, owners = [address]) {
  return new Utxo(
    new avaxSerial.UTXOID(Id.fromString(fixedId(`utxo-${i}`)), new Int(i % 7)),
    Id.fromString(assetId),
    new TransferOutput(new BigIntPr(amount), OutputOwners.fromNative(owners)),
  );
}
const avaxUtxos = () => [utxo(0, 50_000_000_000n), utxo(1, 3_000_000_000_000n), utxo(2, 7_000_000n)];

// Fill every credential slot with our key's signature over the unsigned bytes.
function signAll(utx) {
  const sig = secp256k1.sign(utx.toBytes(), secretKey);
  return sig.then((s) => {
    utx.getCredentials().forEach((cred, i) => cred.toJSON().forEach((_, j) => utx.addSignatureAt(s, i, j)));
    return utx;
  });
}

// A signed tx from an avalanchejs tx object and its credentials (for the
// types no builder makes), serialized with the chain's codec: avalanchejs's
// own SignedTx.toBytes() cannot, for CreateAssetTx and OperationTx carry no
// VM tag in 5.2.0.
async function signManual(chain, tx, sigsPerCred, credClass = Credential) {
  const codec = utils.getManagerForVM(chain === 'P' ? 'PVM' : 'AVM').getDefaultCodec();
  const unsigned = Buffer.concat([Buffer.alloc(2), codec.PackPrefix(tx)]);
  const s = await secp256k1.sign(unsigned, secretKey);
  const creds = sigsPerCred.map((n, i) => new (Array.isArray(credClass) ? credClass[i] : credClass)(
    Array.from({ length: n }, () => new Signature(s))));
  return { toBytes: () => new Uint8Array(Buffer.concat([unsigned, codec.PackPrefixList(creds)])) };
}

function finish(chain, type, signed, tx, want = {}) {
  const bytes = signed.toBytes();
  return { chain, type, bytes, id: cb58(sha256(bytes)), tx, want };
}

// The warp messages the L1 txs carry: the signed RegisterL1Validator and
// L1ValidatorWeight messages of the shared vectors (avalanchego test data).
function warpVectors(vectors) {
  const w = vectors.filter((v) => v.kind === 'warp.signed_message');
  const find = (t) => Buffer.from(w.find((v) => v.expected.innerType === t).hex, 'hex');
  return { register: find('RegisterL1Validator'), weight: find('L1ValidatorWeight') };
}

async function pchain(warp) {
  const out = [];
  const common = { feeState, fromAddressesBytes: [address], minIssuanceTime };
  const memo = new TextEncoder().encode('snowline');
  const add = async (type, utx, want) => {
    await signAll(utx);
    out.push(finish('P', type, utx.getSignedTx(), utx.getTx(), want));
  };
  const toX = TransferableOutput.fromNative(context.avaxAssetID, 1_234_567n, [address2]);

  await add('BaseTx', pvm.newBaseTx({ ...common, memo, utxos: avaxUtxos(), outputs: [toX] }, context), { memo });
  await add('ImportTx', pvm.newImportTx({ ...common, utxos: [utxo(10, 9_000_000n)], sourceChainId: context.xBlockchainID,
    toAddressesBytes: [address2] }, context), { sourceChain: context.xBlockchainID });
  await add('ExportTx', pvm.newExportTx({ ...common, utxos: avaxUtxos(), destinationChainId: context.xBlockchainID,
    outputs: [toX] }, context), { destinationChain: context.xBlockchainID, exported: 1_234_567n });
  await add('CreateSubnetTx', pvm.newCreateSubnetTx({ ...common, utxos: avaxUtxos(), subnetOwners: [address2] }, context),
    { owner: [address2] });
  await add('CreateChainTx', pvm.newCreateChainTx({ ...common, utxos: avaxUtxos(), chainName: 'snowline chain',
    fxIds: [], genesisData: { hello: 'snowline' }, subnetAuth: [0], subnetId: ids.subnet, vmId: ids.vm }, context),
  { subnetID: ids.subnet, chainName: 'snowline chain', vmID: ids.vm, genesis: JSON.stringify({ hello: 'snowline' }) });
  await add('AddSubnetValidatorTx', pvm.newAddSubnetValidatorTx({ ...common, utxos: avaxUtxos(), nodeId,
    start: 1_800_000_000n, end: 1_801_000_000n, weight: 77n, subnetAuth: [0], subnetId: ids.subnet }, context),
  { nodeID: nodeId, start: 1_800_000_000n, end: 1_801_000_000n, weight: 77n, subnetID: ids.subnet });
  await add('RemoveSubnetValidatorTx', pvm.newRemoveSubnetValidatorTx({ ...common, utxos: avaxUtxos(), nodeId,
    subnetAuth: [0], subnetId: ids.subnet }, context), { nodeID: nodeId, subnetID: ids.subnet });
  await add('AddPermissionlessValidatorTx', pvm.newAddPermissionlessValidatorTx({ ...common, utxos: avaxUtxos(),
    nodeId, start: 1_800_000_000n, end: 1_802_000_000n, weight: 2_000_000_000_000n,
    subnetId: networkIDs.PrimaryNetworkID.toString(), rewardAddresses: [address2], delegatorRewardsOwner: [address],
    shares: 20_000, publicKey: blsPublicKey, signature: blsPop }, context),
  { nodeID: nodeId, start: 1_800_000_000n, end: 1_802_000_000n, weight: 2_000_000_000_000n, shares: 20_000,
    subnetID: networkIDs.PrimaryNetworkID.toString() });
  await add('AddPermissionlessDelegatorTx', pvm.newAddPermissionlessDelegatorTx({ ...common, utxos: avaxUtxos(),
    nodeId, start: 1_800_000_000n, end: 1_801_500_000n, weight: 25_000_000_000n,
    subnetId: networkIDs.PrimaryNetworkID.toString(), rewardAddresses: [address2] }, context),
  { nodeID: nodeId, start: 1_800_000_000n, end: 1_801_500_000n, weight: 25_000_000_000n,
    subnetID: networkIDs.PrimaryNetworkID.toString() });
  await add('TransferSubnetOwnershipTx', pvm.newTransferSubnetOwnershipTx({ ...common, utxos: avaxUtxos(),
    subnetAuth: [0], subnetId: ids.subnet, subnetOwners: [address2], threshold: 1 }, context),
  { subnetID: ids.subnet, owner: [address2] });
  const pop = new pvmSerial.ProofOfPossession(blsPublicKey, blsPop);
  await add('ConvertSubnetToL1Tx', pvm.newConvertSubnetToL1Tx({ ...common, utxos: avaxUtxos(), subnetId: ids.subnet,
    chainId: ids.chain, address: address2, subnetAuth: [0],
    validators: [L1Validator.fromNative(nodeId, 100n, 5_000_000_000n, pop, PChainOwner.fromNative([address]),
      PChainOwner.fromNative([address2]))] }, context),
  { subnetID: ids.subnet, chainID: ids.chain, address: address2, weight: 100n, balance: 5_000_000_000n });
  await add('RegisterL1ValidatorTx', pvm.newRegisterL1ValidatorTx({ ...common, utxos: avaxUtxos(), balance: 3_000_000_000n,
    blsSignature: blsPop, message: warp.register }, context), { balance: 3_000_000_000n, message: warp.register });
  await add('SetL1ValidatorWeightTx', pvm.newSetL1ValidatorWeightTx({ ...common, utxos: avaxUtxos(),
    message: warp.weight }, context), { message: warp.weight });
  await add('IncreaseL1ValidatorBalanceTx', pvm.newIncreaseL1ValidatorBalanceTx({ ...common, utxos: avaxUtxos(),
    balance: 4_000_000_000n, validationId: ids.validation }, context),
  { validationID: ids.validation, balance: 4_000_000_000n });
  await add('DisableL1ValidatorTx', pvm.newDisableL1ValidatorTx({ ...common, utxos: avaxUtxos(), disableAuth: [0],
    validationId: ids.validation }, context), { validationID: ids.validation });
  await add('AddAutoRenewedValidatorTx', pvm.newAddAutoRenewedValidatorTx({ ...common, utxos: avaxUtxos(), nodeId,
    weight: 2_000_000_000_000n, publicKey: blsPublicKey, signature: blsPop, rewardAddresses: [address2],
    delegatorRewardsOwner: [address], ownerAddresses: [address2], shares: 30_000, autoCompoundRewardShares: 500_000,
    period: 1_209_600n }, context), { shares: 30_000, autoCompound: 500_000, period: 1_209_600n });
  await add('SetAutoRenewedValidatorConfigTx', pvm.newSetAutoRenewedValidatorConfigTx({ ...common, utxos: avaxUtxos(),
    validatorTxId: ids.validatorTx, auth: [0], autoCompoundRewardShares: 250_000, period: 2_419_200n }, context),
  { txID: ids.validatorTx, autoCompound: 250_000, period: 2_419_200n });

  // No builder in 5.2.0 for the pre-Durango staking txs, TransformSubnetTx and
  // the block-only txs: the codec classes, signed here.
  const base = () => new avaxSerial.BaseTx(new Int(context.networkID), Id.fromString(context.pBlockchainID),
    [TransferableOutput.fromNative(context.avaxAssetID, 48_000_000_000n, [address])],
    [TransferableInput.fromUtxoAndSigindicies(avaxUtxos()[0], [0])], new Bytes(memo));
  const stake = [TransferableOutput.fromNative(context.avaxAssetID, 2_000_000_000_000n, [address])];
  const validator = pvmSerial.Validator.fromNative(nodeId, 1_700_000_000n, 1_701_209_600n, 2_000_000_000_000n);
  let tx = new pvmSerial.AddValidatorTx(base(), validator, stake, OutputOwners.fromNative([address2]), new Int(20_000));
  out.push(finish('P', 'AddValidatorTx', await signManual('P', tx, [1]), tx,
    { nodeID: nodeId, start: 1_700_000_000n, end: 1_701_209_600n, weight: 2_000_000_000_000n, shares: 20_000 }));
  tx = new pvmSerial.AddDelegatorTx(base(), pvmSerial.Validator.fromNative(nodeId, 1_700_000_000n, 1_700_100_000n,
    25_000_000_000n), [TransferableOutput.fromNative(context.avaxAssetID, 25_000_000_000n, [address])],
  OutputOwners.fromNative([address2]));
  out.push(finish('P', 'AddDelegatorTx', await signManual('P', tx, [1]), tx,
    { nodeID: nodeId, start: 1_700_000_000n, end: 1_700_100_000n, weight: 25_000_000_000n }));
  tx = new pvmSerial.TransformSubnetTx(base(), Id.fromString(ids.subnet), Id.fromString(ids.asset),
    new BigIntPr(1_000_000n), new BigIntPr(10_000_000n), new BigIntPr(100_000n), new BigIntPr(120_000n),
    new BigIntPr(1n), new BigIntPr(1_000_000n), new Int(86_400), new Int(31_536_000), new Int(20_000),
    new BigIntPr(1n), new Byte(new Uint8Array([5])), new Int(800_000), Input.fromNative([0]));
  out.push(finish('P', 'TransformSubnetTx', await signManual('P', tx, [1, 1]), tx,
    { subnetID: ids.subnet, assetID: ids.asset, maximumSupply: 10_000_000n, uptimeRequirement: 800_000 }));
  tx = new pvmSerial.AdvanceTimeTx(new BigIntPr(1_700_000_123n));
  out.push(finish('P', 'AdvanceTimeTx', await signManual('P', tx, []), tx, { time: 1_700_000_123n }));
  // RewardValidatorTx is registered in the PVM codec (type 20) but not exported.
  const RewardValidatorTx = utils.getManagerForVM('PVM').getDefaultCodec().typeIdToType[20];
  tx = new RewardValidatorTx(Id.fromString(ids.validatorTx));
  out.push(finish('P', 'RewardValidatorTx', await signManual('P', tx, []), tx, { txID: ids.validatorTx }));
  tx = new pvmSerial.RewardAutoRenewedValidatorTx(Id.fromString(ids.validatorTx), new BigIntPr(1_700_000_456n));
  out.push(finish('P', 'RewardAutoRenewedValidatorTx', await signManual('P', tx, []), tx,
    { txID: ids.validatorTx, time: 1_700_000_456n }));
  return out;
}

async function xchain() {
  const out = [];
  const from = [address];
  const xctx = { ...context };
  const add = async (type, utx, want) => {
    await signAll(utx);
    out.push(finish('X', type, utx.getSignedTx(), utx.getTx(), want));
  };
  const utxos = () => [utxo(20, 40_000_000n), utxo(21, 500n, ids.asset), utxo(22, 9_000_000n)];
  const toOut = TransferableOutput.fromNative(ids.asset, 300n, [address2]);
  await add('BaseTx', avm.newBaseTx(xctx, from, utxos(), [toOut], { memo: new TextEncoder().encode('x memo'),
    minIssuanceTime }), { asset: ids.asset, amount: 300n });
  await add('ImportTx', avm.newImportTx(xctx, context.pBlockchainID, [utxo(23, 8_000_000n)], [address2], from,
    { minIssuanceTime }), { sourceChain: context.pBlockchainID });
  await add('ExportTx', avm.newExportTx(xctx, context.cBlockchainID, from, utxos(),
    [TransferableOutput.fromNative(context.avaxAssetID, 2_000_000n, [address2])], { minIssuanceTime }),
  { destinationChain: context.cBlockchainID, exported: 2_000_000n });

  // CreateAssetTx and OperationTx: no builder; the codec classes. avalanchejs
  // registers no propertyfx (its AVM codec leaves a TODO), so the property
  // outputs and operations (type ids 15-19) cannot be built or parsed by it.
  const avmCodec = avmSerial.getAVMManager().getDefaultCodec();
  const [NftMintOutput, NftTransferOutput, NftMintOperation, NftTransferOperation, NftCredential] =
    avmCodec.typeIdToType.slice(10, 15);
  const base = () => new avaxSerial.BaseTx(new Int(context.networkID), Id.fromString(context.xBlockchainID),
    [TransferableOutput.fromNative(context.avaxAssetID, 29_000_000n, [address])],
    [TransferableInput.fromUtxoAndSigindicies(utxos()[0], [0])], new Bytes(new Uint8Array()));
  let tx = new avmSerial.CreateAssetTx(base(), new Stringpr('Snowline Test'), new Stringpr('SNOW'),
    new Byte(new Uint8Array([9])), [
      new avmSerial.InitialState(new Int(0), [
        new TransferOutput(new BigIntPr(1_000_000n), OutputOwners.fromNative([address])),
        new MintOutput(OutputOwners.fromNative([address2])),
      ]),
      new avmSerial.InitialState(new Int(1), [
        new NftMintOutput(new Int(3), OutputOwners.fromNative([address])),
      ]),
    ]);
  out.push(finish('X', 'CreateAssetTx', await signManual('X', tx, [1]), tx,
    { name: 'Snowline Test', symbol: 'SNOW', denomination: 9, states: 2 }));

  const utxoId = (s, i) => new avaxSerial.UTXOID(Id.fromString(fixedId(s)), new Int(i));
  const TransferableOp = transferableOpClass(avmCodec);
  tx = new avmSerial.OperationTx(base(), [
    new TransferableOp(Id.fromString(ids.asset), [utxoId('mint-utxo', 1)],
      new MintOperation(Input.fromNative([0]), new MintOutput(OutputOwners.fromNative([address])),
        new TransferOutput(new BigIntPr(5_000n), OutputOwners.fromNative([address2])))),
    new TransferableOp(Id.fromString(ids.nftAsset), [utxoId('nft-mint-utxo', 0)],
      new NftMintOperation(Input.fromNative([0]), new Int(3), new Bytes(new TextEncoder().encode('nft payload')),
        new OutputOwnersList([OutputOwners.fromNative([address2])]))),
    new TransferableOp(Id.fromString(ids.nftAsset), [utxoId('nft-utxo', 2)],
      new NftTransferOperation(Input.fromNative([0]), new NftTransferOutput(new Int(3),
        new Bytes(new TextEncoder().encode('nft payload')), OutputOwners.fromNative([address2])))),
  ]);
  out.push(finish('X', 'OperationTx', await signManual('X', tx, [1, 1, 1, 1],
    [Credential, Credential, NftCredential, NftCredential]), tx, { ops: 3, mintAmount: 5_000n }));
  return out;
}

// avalanchejs 5.2.0 does not export TransferableOp; take the class from a
// minimal OperationTx parsed by its own codec (one secp MintOperation).
function transferableOpClass(codec) {
  const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
  const base = Buffer.concat([u32(5), Buffer.alloc(32), u32(0), u32(0), u32(0)]);
  const op = Buffer.concat([Buffer.alloc(32), u32(0), u32(8), u32(0), Buffer.alloc(16), Buffer.alloc(24)]);
  const [tx] = avmSerial.OperationTx.fromBytes(new Uint8Array(Buffer.concat([base, u32(1), op])), codec);
  return tx.ops[0].constructor;
}

export async function buildAll(vectors) {
  return [...await pchain(warpVectors(vectors)), ...await xchain()];
}

// The avalanchejs view of a signed tx's bytes: its codec parses them
// (SignedTx), and packs the parsed value again with the same codec.
export function ajsParse(chain, bytes) {
  const manager = utils.getManagerForVM(chain === 'P' ? 'PVM' : 'AVM');
  const signed = manager.unpack(bytes, avaxSerial.SignedTx);
  const codec = manager.getDefaultCodec();
  const repacked = new Uint8Array(Buffer.concat([Buffer.alloc(2), codec.PackPrefix(signed.unsignedTx),
    codec.PackPrefixList(signed.credentials)]));
  return { signed, bytes: repacked, id: cb58(sha256(repacked)) };
}

// avalanchejs decoding a signed tx, and nothing more (the bench baseline).
export function ajsUnpack(chain, bytes) {
  return utils.getManagerForVM(chain === 'P' ? 'PVM' : 'AVM').unpack(bytes, avaxSerial.SignedTx);
}
