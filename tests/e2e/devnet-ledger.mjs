// devnet-ledger.mjs — an independent replay of a devnet history, in JS: the
// P-chain and X-chain UTXO sets, shared atomic memory between P, X and C,
// stake locked and returned, potential rewards recomputed with the reward
// formula (wire-formats.md §12) from the replayed supply, reward and
// delegation-fee UTXOs, subnets, permissioned and L1 validators with their
// fee-paying balances — then compared with the manifest.
// Input: the txs of extractTxs() (devnet-lib.mjs), normalized; nothing from
// src/devnet/. Not a test file itself.
//
// The replay starts from the genesis the manifest lists (P.genesis.utxos,
// X.genesis.utxos, P.genesis.validators with their stake and owners), checks
// that it adds up to P.genesisSupply, and must then match the manifest
// exactly: balances, stakers, rewards, supply.
//
// trace (optional): an observer of every UTXO's life, for tests that need
// the history and not only its end (dataapi-lib.mjs builds its truth from it).
// Each hook is optional; n is the normalized tx (null for the genesis):
//   trace.create({ chain, dest, txId, idx, out, n, staked?: { start, end }, reward?, genesis? })
//       an output made on `chain`, spent on `dest` (an export's lands in dest's
//       shared memory); stake outputs come with their period, reward outputs with
//       'VALIDATOR' | 'DELEGATOR' | 'VALIDATOR_FEE' (txId is then the staking tx's)
//   trace.spend({ chain, txId, idx, n })     consumed on `chain` by n (imports too)
//   trace.unstake({ txId, idx, n })          stake returned by the RewardValidatorTx n
//   trace.tx({ chain, n, block? })           n applied (P: in its block b, decision txs too)
//   trace.block({ chain: 'P', index, supply, l1Active, l1Fees })  the state after P block
//       `index` (container): current supply, active L1 validators, and the L1 fees
//       accrued since the first active L1 validator (or Etna's time on mainnet and
//       Fuji, when that is earlier: docs/index.md), at l1FeeRate a second
//
// Durango (manifest.durangoTime) splits the P-chain's rules: before it a
// staker tx names a start after its block's time (at most two weeks ahead),
// its period counts from there, and it waits pending until the first block at
// that time (no block may pass a pending start), which promotes it — primary
// stakers get their potential reward then, from the supply of that moment, in
// avalanchego's pending order (start, validators before delegators before
// permissioned subnet validators, tx id); BaseTx, TransferSubnetOwnershipTx
// and the L1 txs do not exist yet, and proposal blocks carry only their
// RewardValidatorTx. From Durango a staker starts with its block and memos
// are empty.
import { normalize, recoverAddress, formatAddr, sha256 } from './devnet-lib.mjs';
import { utils } from '@avalabs/avalanchejs';
import { cb58 } from './lib.mjs';

const NAVAX = 1_000_000_000n;
const MAX_RATE = 120_000n, MIN_RATE = 100_000n, PCT = 1_000_000n;
const MINT = 365n * 24n * 3600n * NAVAX; // minting period, ns
const CAP = 720_000_000n * NAVAX;
const PRIMARY = '11111111111111111111111111111111LpoYY';

// wire-formats.md §12, with big integers (floor at each division, as avalanchego).
export function potentialReward(supply, stake, seconds) {
  const d = seconds * NAVAX;
  const num = (MAX_RATE - MIN_RATE) * d + MIN_RATE * MINT;
  let r = ((CAP - supply) * num * stake * d) / (MINT * PCT);
  r = r / supply / MINT;
  return r > CAP - supply ? CAP - supply : r;
}
// Split(total, shares): [delegator's remainder, delegatee's part].
export function split(total, shares) {
  const rem = PCT - BigInt(shares);
  const prod = rem * total;
  const r = prod > 0xffffffffffffffffn ? rem * (total / PCT) : prod / PCT;
  return [r, total - r];
}

const key = (txID, idx) => `${txID}:${idx}`;
const S = (x) => String(x);

export function replay({ txs, manifest, hrp = 'local', sigSample = 1, trace = {} }) {
  const problems = [];
  const bad = (m) => { if (problems.length < 200) problems.push(m); };
  const avax = manifest.avaxAssetId;
  const chainId = { P: manifest.chains.P.id, X: manifest.chains.X.id, C: manifest.chains.C.id };
  const chainOf = Object.fromEntries(Object.entries(chainId).map(([k, v]) => [v, k]));
  const stats = { sigsChecked: 0, fees: { P: {}, X: {}, C: {} }, ajsFallback: 0 };
  const fmt = (c, hex) => formatAddr(c, hrp, hex);

  // normalized txs, per chain
  const N = { P: [], X: [], C: [] };
  for (const c of ['P', 'X', 'C']) for (const t of txs[c]) {
    const n = normalize(t);
    n.src = t; if (n.raw) stats.ajsFallback++;
    N[c].push(n);
  }

  // A tx's acceptance time (ns, its container's) and block time (s; a vertex has none: its acceptance second).
  const tsOf = (n) => n.src.ts ?? n.src.block.ts;
  const timeOf = (n) => n.src.blockTime ?? n.src.block?.time ?? Number(tsOf(n) / 1_000_000_000n);

  // ---- pass 1: shared memory from every export --------------------------------------
  // shared[dst][src]: key → { out, ts, time, from, consumed }
  const shared = { P: { X: new Map(), C: new Map() }, X: { P: new Map(), C: new Map() }, C: { P: new Map(), X: new Map() } };
  for (const c of ['P', 'X', 'C']) for (const n of N[c]) {
    if (!n.exported.length) continue;
    const dst = chainOf[n.dstChain];
    if (!dst || dst === c) { bad(`${c} ${n.id}: export to unknown chain ${n.dstChain}`); continue; }
    const base = c === 'C' ? 0 : n.outs.length; // coreth numbers exported outputs from 0
    n.exported.forEach((o, i) => {
      shared[dst][c].set(key(n.id, base + i), { out: o, ts: tsOf(n), time: timeOf(n), from: n.id, consumed: null, container: n.src.container ?? n.src.block?.index, era: n.src.era });
      trace.create?.({ chain: c, dest: dst, txId: n.id, idx: base + i, out: o, n });
    });
  }

  // ---- signatures -------------------------------------------------------------------------
  let sigCounter = 0;
  const unsigned = (n) => n.src.bytes.subarray(0, n.unsignedLen);
  // credential ci of tx n signs with sigIdx for owners
  function checkCred(chain, n, ci, sigIdx, ownersOf, what) {
    const cred = n.creds[ci];
    if (!cred) { bad(`${chain} ${n.id}: no credential ${ci} for ${what}`); return []; }
    if (cred.length !== sigIdx.length) bad(`${chain} ${n.id}: credential ${ci} has ${cred.length} signatures, ${what} has ${sigIdx.length} indices`);
    for (let j = 1; j < sigIdx.length; j++) if (sigIdx[j] <= sigIdx[j - 1]) bad(`${chain} ${n.id}: ${what}: sigIndices not sorted/unique`);
    if (ownersOf && sigIdx.length < ownersOf.threshold) bad(`${chain} ${n.id}: ${what}: ${sigIdx.length} signatures for threshold ${ownersOf.threshold}`);
    if (sigCounter++ % sigSample !== 0 && ownersOf) return [];
    const msg = unsigned(n);
    const got = [];
    cred.forEach((sig, j) => {
      let a;
      try { a = recoverAddress(msg, sig); } catch (e) { bad(`${chain} ${n.id}: ${what}: signature ${j} does not recover: ${e.message}`); return; }
      stats.sigsChecked++;
      got.push(a);
      if (ownersOf) {
        const want = ownersOf.addrs[sigIdx[j]];
        if (a !== want) bad(`${chain} ${n.id}: ${what}: signature ${j} recovers to ${fmt(chain, a)}, owner at index ${sigIdx[j]} is ${want ? fmt(chain, want) : 'none'}`);
      }
    });
    return got;
  }

  // An import comes after its export: accepted later, and (the generator's rule, world.h) in a block of a
  // later second than the exporting container's, so no same-second acceptance race decides it.
  function importOrder(chain, n, k, e) {
    if (e.ts >= tsOf(n)) bad(`${chain} ${n.id} (ts ${tsOf(n)}): imports ${k} from ${e.era ?? ''} container ${e.container} before its export was accepted (ts ${e.ts})`);
    if (e.time >= timeOf(n)) bad(`${chain} ${n.id} (time ${timeOf(n)}): imports ${k}, exported at time ${e.time}: not a later second`);
  }

  // ---- the UTXO chains -----------------------------------------------------------------------
  // A ledger seeded with the chain's genesis outputs (from the manifest).
  function makeLedger(chain, genesisTxId, genesisUtxos) {
    const L = { chain, genesisTxId, utxos: new Map(), spent: new Set(), genesis: new Map() };
    for (const g of genesisUtxos) {
      if (g.txId !== genesisTxId) bad(`${chain} genesis output ${g.txId}:${g.outputIndex}: not of the genesis tx ${genesisTxId}`);
      if (g.typeId !== 7 && !(chain === 'P' && g.typeId === 22)) bad(`${chain} genesis output ${g.outputIndex}: type ${g.typeId}`);
      const k = key(g.txId, g.outputIndex);
      if (L.utxos.has(k)) bad(`${chain} genesis output ${k} twice`);
      const u = { asset: g.assetId, kind: 'secp', amount: BigInt(g.amount), owners: ownersFromManifest(g) };
      if (g.typeId === 22) u.lock = BigInt(g.stakeableLocktime);
      L.utxos.set(k, u);
      L.genesis.set(k, u);
      trace.create?.({ chain, dest: chain, txId: g.txId, idx: g.outputIndex, out: u, n: null, genesis: true });
    }
    return L;
  }
  // spend the inputs of n (base inputs then imported); returns AVAX in and per-asset in
  function spendInputs(L, n, time) {
    const inAmt = new Map();
    const add = (a, v) => inAmt.set(a, (inAmt.get(a) ?? 0n) + v);
    let ci = 0;
    const prevKeys = [];
    const one = (i, fromShared, what) => {
      const k = key(i.txID, i.idx);
      prevKeys.push(k);
      let u;
      if (fromShared) {
        const e = shared[L.chain][fromShared]?.get(k);
        if (!e) { bad(`${L.chain} ${n.id}: ${what} ${k}: not in shared memory from ${fromShared}`); ci++; return; }
        if (e.consumed) { bad(`${L.chain} ${n.id}: ${what} ${k}: already imported by ${e.consumed}`); ci++; return; }
        importOrder(L.chain, n, k, e);
        e.consumed = n.id;
        trace.spend?.({ chain: L.chain, txId: i.txID, idx: i.idx, n });
        u = e.out;
      } else if (L.spent.has(k)) { bad(`${L.chain} ${n.id}: ${what} ${k}: double spend`); ci++; return; } else {
        u = L.utxos.get(k);
        if (!u) { bad(`${L.chain} ${n.id}: ${what} ${k}: spends an output that does not exist`); ci++; return; }
        L.utxos.delete(k); L.spent.add(k);
        trace.spend?.({ chain: L.chain, txId: i.txID, idx: i.idx, n });
      }
      if (u.asset !== i.asset) bad(`${L.chain} ${n.id}: ${what} ${k}: asset ${i.asset}, the output's is ${u.asset}`);
      if (u.kind !== 'secp') bad(`${L.chain} ${n.id}: ${what} ${k}: spends a ${u.kind} output with a TransferInput`);
      if (u.amount !== i.amount) bad(`${L.chain} ${n.id}: ${what} ${k}: amount ${i.amount}, the output holds ${u.amount}`);
      if ((u.lock ?? 0n) !== (i.lock ?? 0n)) bad(`${L.chain} ${n.id}: ${what} ${k}: stakeable lock ${i.lock ?? 0n}, the output's ${u.lock ?? 0n}`);
      if (u.lock && u.lock > BigInt(time) && !n.stake.length) bad(`${L.chain} ${n.id}: ${what} ${k}: spends a stakeable-locked output (until ${u.lock}) outside staking`);
      if (u.owners && u.owners.locktime > BigInt(time)) bad(`${L.chain} ${n.id}: ${what} ${k}: owners' locktime ${u.owners.locktime} not reached at ${time}`);
      checkCred(L.chain, n, ci++, i.sigIdx, u.owners, `${what} ${k}`);
      add(i.asset, i.amount);
    };
    for (const list of [n.ins, n.imported]) for (let j = 1; j < list.length; j++) {
      const a = list[j - 1], b = list[j];
      const c = Buffer.compare(Buffer.from(cb58dec(a.txID)), Buffer.from(cb58dec(b.txID)));
      if (c > 0 || (c === 0 && a.idx >= b.idx)) bad(`${L.chain} ${n.id}: inputs not sorted by (txID, index) or not unique`);
    }
    n.ins.forEach((i) => one(i, null, 'input'));
    const src = n.imported.length ? chainOf[n.srcChain] : null;
    n.imported.forEach((i) => one(i, src, 'imported input'));
    return { inAmt, ci };
  }
  function addOuts(L, n, outs, first) {
    outs.forEach((o, i) => {
      L.utxos.set(key(n.id, first + i), o);
      trace.create?.({ chain: L.chain, dest: L.chain, txId: n.id, idx: first + i, out: o, n });
      if (o.owners) {
        const a = o.owners.addrs;
        for (let j = 1; j < a.length; j++) if (a[j] <= a[j - 1]) bad(`${L.chain} ${n.id}: output ${first + i}: addresses not sorted/unique`);
        if (o.owners.threshold > a.length || (o.owners.threshold === 0 && a.length)) bad(`${L.chain} ${n.id}: output ${first + i}: threshold ${o.owners.threshold} of ${a.length}`);
      }
    });
  }
  const sumAsset = (outs, asset) => outs.filter((o) => o.asset === asset && o.kind === 'secp').reduce((s, o) => s + o.amount, 0n);
  function feeOf(chain, n, inAmt, extraOut) {
    const out = sumAsset(n.outs, avax) + sumAsset(n.exported, avax) + sumAsset(n.stake, avax) + extraOut;
    const fee = (inAmt.get(avax) ?? 0n) - out;
    if (fee < 0n) bad(`${chain} ${n.id} (${n.type}): AVAX out ${out} exceeds in ${inAmt.get(avax) ?? 0n}`);
    const f = stats.fees[chain][n.type] ??= {};
    f[S(fee)] = (f[S(fee)] ?? 0) + 1;
    return fee;
  }

  // ---- P-chain ----------------------------------------------------------------------------------
  const P = makeLedger('P', manifest.P.genesisTxId, manifest.P.genesis.utxos);
  const X = makeLedger('X', manifest.X.genesisTxId, manifest.X.genesis.utxos);
  // genesisSupply = the P and X genesis outputs + the genesis validators' stake, exactly.
  const sumOf = (m) => [...m.values()].reduce((a, u) => a + u.amount, 0n);
  const genesisStake = manifest.P.genesis.validators.reduce((a, v) => a + v.stake.reduce((b, o) => b + BigInt(o.amount), 0n), 0n);
  const genesisTotal = sumOf(P.genesis) + sumOf(X.genesis) + genesisStake;
  stats.genesis = { P: P.genesis.size, X: X.genesis.size, validators: manifest.P.genesis.validators.length, total: S(genesisTotal) };
  if (S(genesisTotal) !== S(manifest.P.genesisSupply)) bad(`genesis: P outputs ${sumOf(P.genesis)} + X outputs ${sumOf(X.genesis)} + stake ${genesisStake} = ${genesisTotal}, genesisSupply ${manifest.P.genesisSupply}`);
  if (X.genesis.size !== manifest.X.genesisUtxos) bad(`X genesis: ${X.genesis.size} outputs listed, genesisUtxos ${manifest.X.genesisUtxos}`);
  // The supply starts at genesisSupply; each staker, the genesis validators first, adds its
  // potential reward, computed here from the supply of the moment.
  let supply = BigInt(manifest.P.genesisSupply);

  const stakers = new Map(); // txId → staker
  const subnets = new Map();
  const l1 = new Map(); // validationId → state
  const feeRate = BigInt(manifest.P.l1FeeRate);
  let pTime = 0;
  // when L1 fees start to accrue: Etna on mainnet and Fuji (avalanchego upgrade.go), else the first
  // active L1 validator (snowline's rule for networks whose Etna it does not know)
  const etna = { 1: 1734368400, 5: 1732550400 }[manifest.networkId] ?? null;
  let l1Start = null;
  const l1Started = (t, balance) => { if (balance > 0n && l1Start === null) l1Start = t; };
  const pState = (b) => {
    const from = [l1Start, etna !== null && etna < pTime ? etna : null].filter((x) => x !== null);
    const l1Fees = from.length ? feeRate * BigInt(pTime - Math.min(...from)) : 0n;
    trace.block?.({ chain: 'P', index: b.index, supply, l1Active: [...l1.values()].filter((v) => v.active).length, l1Fees });
  };
  const settle = (v, t) => {
    if (!v.active) { v.since = t; return; }
    const due = feeRate * BigInt(t - v.since);
    if (due >= v.balance) { v.balance = 0n; v.active = false; } else v.balance -= due;
    v.since = t;
  };
  const settleAll = (t) => { for (const v of l1.values()) settle(v, t); };
  const subnetAuth = (n, ci, subnetId, what) => {
    const s = subnets.get(subnetId);
    if (!s) { bad(`P ${n.id}: ${what} for unknown subnet ${subnetId}`); return; }
    if (s.isL1 && n.type !== 'ConvertSubnetToL1Tx') bad(`P ${n.id}: ${n.type} on L1 ${subnetId}`);
    checkCred('P', n, ci, n.auth, s.owner, `${what} of ${subnetId}`);
  };
  // an L1 validator tx's effect on its validation, for trace.l1: weight and remaining balance after
  // it, and what it moved into the balance (negative: refunded)
  const l1Effect = (n, v, change) => trace.l1?.({ n, validationId: v.validationId, nodeId: v.nodeId, subnetId: v.subnetId, weight: v.weight,
    balance: v.active ? v.balance : 0n, change });
  const balanceAt = (v, t) => { if (!v.active) return 0n; const due = feeRate * BigInt(t - v.since); return due >= v.balance ? 0n : v.balance - due; };
  const refund = (n, v) => {
    if (v.balance > 0n) addOuts(P, n, [{ asset: avax, kind: 'secp', amount: v.balance, owners: v.remainingBalanceOwner }], n.outs.length);
    v.balance = 0n;
  };

  // avalanchego's staking bounds for the network: mainnet/Fuji 14 days minimum, local networks 24 h
  const minDays = manifest.networkId === 1 || manifest.networkId === 5 ? 14 : 1;
  function stakeBounds(n, s, validator) {
    const days = (s.end - s.start) / 86400;
    if (s.isValidator) {
      if (s.weight < 2_000n * NAVAX || s.weight > 3_000_000n * NAVAX) bad(`P ${n.id}: validator weight ${s.weight} outside [2k, 3M] AVAX`);
      if (days < minDays || days > 365) bad(`P ${n.id}: validator period ${days.toFixed(2)} days outside [${minDays}, 365]`);
      if (s.shares < 20_000 || s.shares > 1_000_000) bad(`P ${n.id}: delegation fee ${s.shares} below 2%`);
    } else {
      if (s.weight < 25n * NAVAX) bad(`P ${n.id}: delegator weight ${s.weight} below 25 AVAX`);
      if (!validator) { bad(`P ${n.id}: delegates to ${s.nodeId}, which has no current validator`); return; }
      if (s.start < validator.start || s.end > validator.end) bad(`P ${n.id}: delegation [${s.start}, ${s.end}] outside its validator's [${validator.start}, ${validator.end}]`);
      if (days < minDays) bad(`P ${n.id}: delegation period ${days.toFixed(2)} days below ${minDays}`);
      // current and pending delegators together: a bound on the peak the network checks, so never more lenient
      const total = validator.weight + [...stakers.values()].filter((d) => d.validatorTxId === validator.txId && (d.status === 'active' || d.status === 'pending')).reduce((a, d) => a + d.weight, 0n) + s.weight;
      const cap = validator.weight * 5n < 3_000_000n * NAVAX ? validator.weight * 5n : 3_000_000n * NAVAX;
      if (total > cap) bad(`P ${n.id}: validator ${validator.nodeId} would weigh ${total}, above its cap ${cap}`);
    }
  }
  const currentValidator = (nodeId, subnetId) => [...stakers.values()].find((s) => s.isValidator && s.nodeId === nodeId && s.subnetId === subnetId && s.status === 'active');
  // current or pending (avalanchego's GetValidator): a node validates a subnet once, and stakers on it stay inside its period
  const validatorOf = (nodeId, subnetId) => [...stakers.values()].find((s) => s.isValidator && s.nodeId === nodeId && s.subnetId === subnetId && (s.status === 'active' || s.status === 'pending'));
  const durangoTime = manifest.durangoTime;
  if (!Number.isInteger(durangoTime)) bad(`manifest: durangoTime ${durangoTime}`);
  const MAX_FUTURE_START = 14 * 86400;
  const pending = []; // stakers waiting for their start
  // A staker tx at block time `time`: its start (pending: a later one) by the era's rule.
  function stakerStart(n, time) {
    const start = Number(n.start);
    if (time >= durangoTime) {
      if (start !== time) bad(`P ${n.id}: post-Durango staker with start ${start}, its block's time is ${time} (the generator sets it to the block time)`);
      return { start: time, isPending: false };
    }
    if (!(start > time)) bad(`P ${n.id}: pre-Durango start ${start} not after the chain time ${time}`);
    if (start > time + MAX_FUTURE_START) bad(`P ${n.id}: pre-Durango start ${start} more than two weeks after ${time}`);
    return { start, isPending: start > time };
  }
  const pendingPrio = (s) => (s.permissioned ? 6 : s.isValidator ? 2 : 3);
  // A block at time t: no pending start before it; those starting at t become current, in the pending order.
  function promote(t, bi) {
    const due = [];
    for (let i = pending.length - 1; i >= 0; i--) {
      const s = pending[i];
      if (s.start < t) bad(`P block ${bi} at ${t}: chain time passes the start ${s.start} of pending ${s.txId}`);
      if (s.start <= t) { due.push(s); pending.splice(i, 1); }
    }
    due.sort((a, b) => pendingPrio(a) - pendingPrio(b) || Buffer.compare(Buffer.from(cb58dec(a.txId)), Buffer.from(cb58dec(b.txId))));
    for (const s of due) {
      s.status = 'active';
      if (s.permissioned) continue;
      s.potentialReward = potentialReward(supply, s.weight, BigInt(s.end - s.start));
      supply += s.potentialReward;
    }
  }
  // the genesis validators: AddValidatorTx records (no base outputs), current from genesis on
  for (const v of manifest.P.genesis.validators) {
    const stake = v.stake.map((o) => ({ asset: avax, kind: 'secp', amount: BigInt(o.amount), owners: ownersFromManifest(o.owner), ...(BigInt(o.stakeableLocktime) ? { lock: BigInt(o.stakeableLocktime) } : {}) }));
    const weight = stake.reduce((a, o) => a + o.amount, 0n);
    if (weight !== BigInt(v.weight)) bad(`genesis validator ${v.txId}: stake ${weight}, weight ${v.weight}`);
    const s = { txId: v.txId, genesis: true, nodeId: v.nodeId, subnetId: PRIMARY, start: v.startTime, end: v.endTime, weight, stake,
      nOuts: v.stake.length ? v.stake[0].outputIndex : 0, rewardsOwner: ownersFromManifest(v.rewardOwner),
      delegationRewardsOwner: ownersFromManifest(v.delegationRewardOwner), shares: v.delegationFee, status: 'active',
      delegatorCount: 0, feesPaid: 0n, feesAccrued: 0n, isValidator: true };
    v.stake.forEach((o, i) => { if (o.outputIndex !== s.nOuts + i) bad(`genesis validator ${v.txId}: stake ${i} at index ${o.outputIndex}`); });
    stakeBounds({ id: v.txId }, s, null);
    s.potentialReward = potentialReward(supply, weight, BigInt(s.end - s.start));
    supply += s.potentialReward;
    stakers.set(v.txId, s);
    stake.forEach((o, i) => trace.create?.({ chain: 'P', dest: 'P', txId: v.txId, idx: s.nOuts + i, out: o, n: null, staked: { start: s.start, end: s.end }, genesis: true }));
  }

  const durangoTypes = new Set(['BaseTx', 'TransferSubnetOwnershipTx', 'ConvertSubnetToL1Tx', 'RegisterL1ValidatorTx', 'SetL1ValidatorWeightTx', 'IncreaseL1ValidatorBalanceTx', 'DisableL1ValidatorTx']);
  function applyP(n, blk, time) {
    if (time < durangoTime && durangoTypes.has(n.type)) bad(`P ${n.id}: ${n.type} at ${time}, before Durango (${durangoTime})`);
    if (n.memo && time >= durangoTime) bad(`P ${n.id}: memo ${n.memo} after Durango (must be empty)`);
    if (n.memo && n.memo.length > 512) bad(`P ${n.id}: memo of ${n.memo.length / 2} bytes`);
    const { inAmt, ci: ci0 } = spendInputs(P, n, time);
    let ci = ci0;
    let extraOut = 0n;
    addOuts(P, n, n.outs, 0);
    switch (n.type) {
      case 'AddPermissionlessValidatorTx': case 'AddPermissionlessDelegatorTx': {
        const isValidator = n.type === 'AddPermissionlessValidatorTx';
        const weight = n.stake.reduce((a, o) => a + o.amount, 0n);
        if (weight !== n.weight) bad(`P ${n.id}: stake ${weight} ≠ weight ${n.weight}`);
        if (n.subnetId !== PRIMARY) { bad(`P ${n.id}: permissionless staker on subnet ${n.subnetId}`); break; }
        const { start, isPending } = stakerStart(n, time);
        const s = { txId: n.id, nodeId: n.nodeId, subnetId: n.subnetId, start, end: Number(n.end), weight, stake: n.stake, nOuts: n.outs.length,
          rewardsOwner: n.rewardsOwner, delegationRewardsOwner: n.delegationRewardsOwner, shares: n.shares, status: isPending ? 'pending' : 'active', isValidator,
          feesPaid: 0n, feesAccrued: 0n, delegatorCount: 0, accepted: time, wasPending: isPending };
        let validator;
        if (isValidator) { if (validatorOf(n.nodeId, PRIMARY)) bad(`P ${n.id}: ${n.nodeId} already validates (or is pending)`); } else {
          validator = validatorOf(n.nodeId, PRIMARY);
          if (validator) { s.validatorTxId = validator.txId; validator.delegatorCount++; }
        }
        stakeBounds(n, s, validator);
        n.stake.forEach((o, i) => trace.create?.({ chain: 'P', dest: 'P', txId: n.id, idx: n.outs.length + i, out: o, n, staked: { start, end: s.end } }));
        if (isPending) pending.push(s);
        else {
          s.potentialReward = potentialReward(supply, weight, BigInt(s.end - start));
          supply += s.potentialReward;
        }
        stakers.set(n.id, s);
        break;
      }
      case 'AddSubnetValidatorTx': {
        const { start, isPending } = stakerStart(n, time);
        const end = Number(n.end), days = (end - start) / 86400;
        if (days < minDays || days > 365) bad(`P ${n.id}: subnet validator period ${days.toFixed(2)} days outside [${minDays}, 365]`);
        const primary = validatorOf(n.nodeId, PRIMARY);
        if (!primary) bad(`P ${n.id}: subnet validator ${n.nodeId} is not a primary validator`);
        else if (start < primary.start || end > primary.end) bad(`P ${n.id}: subnet validation [${start}, ${end}] outside the primary one [${primary.start}, ${primary.end}]`);
        if (validatorOf(n.nodeId, n.subnetId)) bad(`P ${n.id}: ${n.nodeId} already validates ${n.subnetId} (or is pending)`);
        subnetAuth(n, ci++, n.subnetId, 'subnetAuth');
        const s = { txId: n.id, nodeId: n.nodeId, subnetId: n.subnetId, start, end, weight: n.weight, status: isPending ? 'pending' : 'active', isValidator: true, permissioned: true, accepted: time, wasPending: isPending };
        if (isPending) pending.push(s);
        stakers.set(n.id, s);
        break;
      }
      case 'RemoveSubnetValidatorTx': {
        subnetAuth(n, ci++, n.subnetId, 'subnetAuth');
        const v = currentValidator(n.nodeId, n.subnetId);
        if (!v) bad(`P ${n.id}: removes ${n.nodeId} from ${n.subnetId}, not a current validator`); else v.status = 'removed';
        break;
      }
      case 'CreateSubnetTx': subnets.set(n.id, { subnetId: n.id, owner: n.owner, chains: [], isL1: false }); break;
      case 'CreateChainTx': {
        subnetAuth(n, ci++, n.subnetId, 'subnetAuth');
        const s = subnets.get(n.subnetId);
        if (s) s.chains.push({ chainId: n.id, name: n.chainName, vmId: n.vmId });
        try { JSON.parse(n.genesis); } catch { bad(`P ${n.id}: CreateChainTx genesis is not JSON`); }
        break;
      }
      case 'TransferSubnetOwnershipTx': { subnetAuth(n, ci++, n.subnetId, 'subnetAuth'); const s = subnets.get(n.subnetId); if (s) s.owner = n.owner; break; }
      case 'ConvertSubnetToL1Tx': {
        subnetAuth(n, ci++, n.subnetId, 'subnetAuth');
        const s = subnets.get(n.subnetId);
        if (s) {
          if (!s.chains.some((c) => c.chainId === n.chainId)) bad(`P ${n.id}: manager chain ${n.chainId} is not a chain of ${n.subnetId}`);
          Object.assign(s, { isL1: true, managerChainId: n.chainId, managerAddress: '0x' + n.address });
        }
        n.validators.forEach((v, i) => {
          const idb = Buffer.alloc(36); Buffer.from(cb58dec(n.subnetId)).copy(idb); idb.writeUInt32BE(i, 32);
          const validationId = cb58(sha256(idb));
          extraOut += v.balance;
          l1Started(time, v.balance);
          l1.set(validationId, { validationId, nodeId: nodeIdOf(v.nodeId), subnetId: n.subnetId, weight: v.weight, balance: v.balance, since: time,
            active: v.balance > 0n, removed: false, minNonce: 0n, remainingBalanceOwner: v.remainingBalanceOwner, deactivationOwner: v.deactivationOwner });
          l1Effect(n, l1.get(validationId), v.balance);
        });
        break;
      }
      case 'RegisterL1ValidatorTx': {
        const m = parseWarp(n.message);
        if (m.type !== 1) { bad(`P ${n.id}: warp payload type ${m.type}, want RegisterL1Validator`); break; }
        const s = subnets.get(m.subnetId);
        if (!s || !s.isL1) bad(`P ${n.id}: registers on ${m.subnetId}, not an L1`);
        else if (m.sourceChainId !== s.managerChainId || m.sourceAddress !== s.managerAddress.slice(2)) bad(`P ${n.id}: warp message from ${m.sourceChainId}/${m.sourceAddress}, not the L1's manager`);
        if (BigInt(m.expiry) < BigInt(time)) bad(`P ${n.id}: registration expired (${m.expiry} < ${time})`);
        const validationId = cb58(sha256(m.addressedPayload));
        if (l1.has(validationId)) bad(`P ${n.id}: validation ${validationId} registered twice`);
        extraOut += n.balance;
        l1Started(time, n.balance);
        l1.set(validationId, { validationId, nodeId: nodeIdOf(m.nodeId), subnetId: m.subnetId, weight: m.weight, balance: n.balance, since: time,
          active: n.balance > 0n, removed: false, minNonce: 0n, remainingBalanceOwner: m.remainingBalanceOwner, deactivationOwner: m.disableOwner });
        l1Effect(n, l1.get(validationId), n.balance);
        break;
      }
      case 'SetL1ValidatorWeightTx': {
        const m = parseWarp(n.message);
        if (m.type !== 3) { bad(`P ${n.id}: warp payload type ${m.type}, want L1ValidatorWeight`); break; }
        const v = l1.get(m.validationId);
        if (!v || v.removed) { bad(`P ${n.id}: weight of unknown validation ${m.validationId}`); break; }
        if (BigInt(m.nonce) < v.minNonce) bad(`P ${n.id}: nonce ${m.nonce} below minNonce ${v.minNonce}`);
        v.minNonce = BigInt(m.nonce) + 1n;
        v.weight = BigInt(m.weight);
        if (v.weight === 0n) {
          settle(v, time);
          const left = v.balance;
          refund(n, v); v.active = false; v.removed = true;
          l1Effect(n, v, -left);
        } else {
          trace.l1?.({ n, validationId: v.validationId, nodeId: v.nodeId, subnetId: v.subnetId, weight: v.weight, balance: balanceAt(v, time), change: 0n });
        }
        break;
      }
      case 'IncreaseL1ValidatorBalanceTx': {
        const v = l1.get(n.validationId);
        if (!v || v.removed) { bad(`P ${n.id}: balance of unknown validation ${n.validationId}`); break; }
        settle(v, time); v.balance += n.balance; v.active = true; v.since = time;
        extraOut += n.balance;
        l1Effect(n, v, n.balance);
        break;
      }
      case 'DisableL1ValidatorTx': {
        const v = l1.get(n.validationId);
        if (!v || v.removed) { bad(`P ${n.id}: disables unknown validation ${n.validationId}`); break; }
        checkCred('P', n, ci++, n.auth, { ...v.deactivationOwner }, 'disableAuth');
        settle(v, time);
        const left = v.active ? v.balance : 0n;
        refund(n, v); v.active = false;
        l1Effect(n, v, -left);
        break;
      }
      case 'BaseTx': case 'ImportTx': case 'ExportTx': break;
      default: bad(`P ${n.id}: unexpected tx type ${n.type}`);
    }
    if (ci !== n.creds.length) bad(`P ${n.id}: ${n.creds.length} credentials, ${ci} expected`);
    feeOf('P', n, inAmt, extraOut);
  }

  function rewardP(n, committed, time) {
    const s = stakers.get(n.stakerTxId);
    if (!s || s.status !== 'active' || !s.stake) { bad(`P ${n.id}: rewards ${n.stakerTxId}, not a current primary staker`); return; }
    if (s.end !== time) bad(`P ${n.id}: rewards ${s.txId} at ${time}, its end is ${s.end}`);
    const nStake = s.stake.length;
    s.stake.forEach((o, i) => { P.utxos.set(key(s.txId, s.nOuts + i), o); trace.unstake?.({ txId: s.txId, idx: s.nOuts + i, n }); });
    s.status = 'completed'; s.committed = committed; s.reward = 0n;
    let offset = 0;
    const pay = (amount, owners, reward) => {
      const out = { asset: avax, kind: 'secp', amount, owners };
      P.utxos.set(key(s.txId, s.nOuts + nStake + offset), out);
      trace.create?.({ chain: 'P', dest: 'P', txId: s.txId, idx: s.nOuts + nStake + offset, out, n, reward });
      offset++;
    };
    if (s.isValidator) {
      if (committed && s.potentialReward > 0n) { pay(s.potentialReward, s.rewardsOwner, 'VALIDATOR'); s.reward = s.potentialReward; }
      if (!committed) supply -= s.potentialReward;
      if (s.feesAccrued > 0n) { pay(s.feesAccrued, s.delegationRewardsOwner, 'VALIDATOR_FEE'); s.feesPaid += s.feesAccrued; s.feesAccrued = 0n; }
    } else {
      const v = stakers.get(s.validatorTxId);
      if (!committed) { supply -= s.potentialReward; return; }
      const [mine, theirs] = split(s.potentialReward, v.shares);
      if (mine > 0n) { pay(mine, s.rewardsOwner, 'DELEGATOR'); s.reward = mine; }
      if (theirs > 0n) {
        // avalanchego: a validator that started at or after Cortina accrues (!start.Before(cortinaTime))
        if (v.start < manifest.cortinaTime) { pay(theirs, v.delegationRewardsOwner, 'VALIDATOR_FEE'); v.feesPaid += theirs; } else v.feesAccrued += theirs;
      }
    }
  }

  // Chain time reaching a permissioned subnet validator's end takes it out of the set (before the block's txs).
  function expirePermissioned(t) {
    for (const s of stakers.values()) if (s.permissioned && s.status === 'active' && s.end <= t) s.status = 'completed';
  }
  const blocks = txs.pBlocks;
  for (let bi = 0; bi < blocks.length; bi++) {
    const b = blocks[bi];
    if (b.time < pTime) bad(`P block ${bi}: time ${b.time} before its parent's ${pTime}`);
    pTime = b.time;
    promote(pTime, bi);
    expirePermissioned(pTime);
    const norm = b.txs.map((t) => N.P.find((x) => x.src === t));
    if (b.type === 'BanffStandardBlock') norm.forEach((n) => { trace.tx?.({ chain: 'P', n, block: b }); applyP(n, b, b.time); });
    else if (b.type === 'BanffProposalBlock') {
      if (b.time < durangoTime && norm.length > 1) bad(`P block ${bi}: pre-Durango proposal block with ${norm.length - 1} other txs`);
      norm.slice(0, -1).forEach((n) => { trace.tx?.({ chain: 'P', n, block: b }); applyP(n, b, b.time); });
      const dec = norm[norm.length - 1];
      const child = blocks[bi + 1];
      if (!child || child.vm.vmType !== 'option' || !/Banff(Commit|Abort)Block/.test(child.type)) { bad(`P block ${bi}: proposal not followed by a proposervm option Commit/Abort`); continue; }
      pState(b); // the proposal block: before its decision
      trace.tx?.({ chain: 'P', n: dec, block: b, committed: child.type === 'BanffCommitBlock' });
      if (dec.type !== 'RewardValidatorTx') bad(`P block ${bi}: proposal tx ${dec.type}`);
      else rewardP(dec, child.type === 'BanffCommitBlock', b.time);
      bi++; pTime = child.time;
      settleAll(pTime);
      pState(child);
      continue;
    } else bad(`P block ${bi}: unexpected ${b.type} (${b.vm.vmType})`);
    settleAll(pTime);
    pState(b);
  }
  expirePermissioned(pTime);

  // ---- X-chain ---------------------------------------------------------------------------------
  const assets = new Map([[avax, { supply: null, type: 'secp256k1' }]]);
  const xCounts = {};
  let xTime = 0;
  for (const n of N.X) {
    xCounts[n.type] = (xCounts[n.type] ?? 0) + 1;
    trace.tx?.({ chain: 'X', n });
    const time = n.src.blockTime ?? Number(n.src.ts / 1_000_000_000n);
    xTime = Math.max(xTime, time);
    const { inAmt, ci: ci0 } = spendInputs(X, n, time);
    let ci = ci0;
    addOuts(X, n, n.outs, 0);
    const minted = new Map();
    if (n.type === 'CreateAssetTx') {
      const outs = n.states.flatMap((s) => s.outs);
      const kinds = new Set(outs.map((o) => o.kind));
      const type = kinds.has('nftMint') ? 'nft' : (kinds.has('prop') || kinds.has('propMint')) ? 'property' : 'secp256k1';
      assets.set(n.id, { name: n.name, symbol: n.symbol, denomination: n.denomination, type,
        supply: type === 'secp256k1' ? sumAsset(outs, n.id) : type === 'property' ? BigInt(outs.filter((o) => o.kind === 'prop').length) : 0n });
      addOuts(X, n, outs, n.outs.length);
    }
    if (n.type === 'OperationTx') {
      let next = n.outs.length;
      for (const op of n.ops) {
        const a = assets.get(op.asset);
        if (!a) bad(`X ${n.id}: operation on unknown asset ${op.asset}`);
        const want = { secpMint: 'secpMint', nftMint: 'nftMint', nftTransfer: 'nft', propMint: 'propMint', propBurn: 'prop' }[op.kind];
        let ownersOf = null;
        for (const u of op.utxos) {
          const k = key(u.txID, u.idx);
          const o = X.utxos.get(k);
          if (!o) { bad(`X ${n.id}: operation spends ${k}, which does not exist or is spent`); continue; }
          if (o.kind !== want || o.asset !== op.asset) bad(`X ${n.id}: ${op.kind} spends a ${o.kind} output of ${o.asset}`);
          if (op.kind === 'nftMint' && o.groupId !== op.groupId) bad(`X ${n.id}: nft mint of group ${op.groupId} with the mint output of group ${o.groupId}`);
          if (op.kind === 'nftTransfer' && (o.groupId !== op.outs[0].groupId || o.payload !== op.outs[0].payload)) bad(`X ${n.id}: nft transfer changes group or payload`);
          X.utxos.delete(k); X.spent.add(k);
          trace.spend?.({ chain: 'X', txId: u.txID, idx: u.idx, n });
          ownersOf = o.owners;
        }
        checkCred('X', n, ci++, op.sigIdx, ownersOf, `${op.kind} operation`);
        if (a) {
          if (op.kind === 'secpMint') { a.supply += op.outs[1].amount; minted.set(op.asset, (minted.get(op.asset) ?? 0n) + op.outs[1].amount); }
          if (op.kind === 'nftMint') a.supply += BigInt(op.outs.length);
          if (op.kind === 'propMint') a.supply += 1n;
          if (op.kind === 'propBurn') a.supply -= BigInt(op.utxos.length);
        }
        addOuts(X, n, op.outs, next);
        next += op.outs.length;
      }
    }
    if (ci !== n.creds.length) bad(`X ${n.id}: ${n.creds.length} credentials, ${ci} expected`);
    if (n.networkId !== manifest.networkId || n.blockchainId !== chainId.X) bad(`X ${n.id}: network ${n.networkId} chain ${n.blockchainId}`);
    // other assets balance exactly (mints aside)
    const outAssets = new Set([...n.outs, ...n.exported].filter((o) => o.kind === 'secp').map((o) => o.asset));
    for (const a of new Set([...inAmt.keys(), ...outAssets])) {
      if (a === avax) continue;
      const o = sumAsset(n.outs, a) + sumAsset(n.exported, a);
      if ((inAmt.get(a) ?? 0n) !== o) bad(`X ${n.id}: asset ${a}: in ${inAmt.get(a) ?? 0n}, out ${o}`);
    }
    feeOf('X', n, inAmt, 0n);
  }

  // ---- C-chain atomic txs ----------------------------------------------------------------------
  for (const n of N.C) {
    trace.tx?.({ chain: 'C', n });
    if (n.type === 'ImportTx') {
      const src = chainOf[n.srcChain];
      let inSum = 0n, ci = 0;
      for (const i of n.imported) {
        const k = key(i.txID, i.idx);
        const e = shared.C[src]?.get(k);
        if (!e) { bad(`C ${n.id}: imports ${k}, not in shared memory from ${src}`); ci++; continue; }
        if (e.consumed) { bad(`C ${n.id}: imports ${k} again (first by ${e.consumed})`); ci++; continue; }
        if (e.out.amount !== i.amount) bad(`C ${n.id}: imports ${k} for ${i.amount}, it holds ${e.out.amount}`);
        importOrder('C', n, k, e);
        e.consumed = n.id;
        trace.spend?.({ chain: 'C', txId: i.txID, idx: i.idx, n });
        checkCred('C', n, ci++, i.sigIdx, e.out.owners, `imported input ${k}`);
        inSum += i.amount;
      }
      const out = n.evmOuts.reduce((s, o) => s + o.amount, 0n);
      const f = stats.fees.C.ImportTx ??= {}; f[S(inSum - out)] = (f[S(inSum - out)] ?? 0) + 1;
      if (out > inSum) bad(`C ${n.id}: imports ${inSum}, credits ${out}`);
    } else {
      const inSum = n.evmIns.reduce((s, o) => s + o.amount, 0n);
      const out = sumAsset(n.exported, avax);
      const f = stats.fees.C.ExportTx ??= {}; f[S(inSum - out)] = (f[S(inSum - out)] ?? 0) + 1;
      if (out > inSum) bad(`C ${n.id}: exports ${out} from ${inSum}`);
    }
  }

  // ---- compare with the manifest -------------------------------------------------------------------
  const M = manifest;
  // P balances: unlocked / locked / staked per address (an output with several owners counts for each)
  const pBal = new Map();
  const acct = (a) => { if (!pBal.has(a)) pBal.set(a, { unlocked: 0n, locked: 0n, staked: 0n }); return pBal.get(a); };
  for (const [k, o] of P.utxos) {
    if (o.asset !== avax || o.kind !== 'secp') { bad(`P utxo ${k}: ${o.kind} of ${o.asset}`); continue; }
    const locked = (o.lock ?? 0n) > BigInt(pTime) || o.owners.locktime > BigInt(pTime);
    for (const a of o.owners.addrs) acct(fmt('P', a))[locked ? 'locked' : 'unlocked'] += o.amount;
  }
  // staked: the stake of current and pending stakers (it left the UTXO set with the tx)
  for (const s of stakers.values()) if ((s.status === 'active' || s.status === 'pending') && s.stake) for (const o of s.stake) for (const a of o.owners.addrs) acct(fmt('P', a)).staked += o.amount;
  for (const [a, b] of pBal) if (!M.P.balances[a]) bad(`P balance of ${a} (not in the manifest): ${S(b.unlocked)}/${S(b.locked)}/${S(b.staked)}`);
  for (const [a, want] of Object.entries(M.P.balances)) {
    const got = pBal.get(a) ?? { unlocked: 0n, locked: 0n, staked: 0n };
    for (const f of ['unlocked', 'locked', 'staked']) if (BigInt(want[f]) !== got[f]) bad(`P balance ${a} ${f}: manifest ${want[f]}, replay ${got[f]}`);
  }
  const spentOf = (L) => [...L.genesis.keys()].filter((k) => L.spent.has(k)).length;
  stats.genesis.spent = { P: spentOf(P), X: spentOf(X) };

  // P stakers
  const mStakers = new Map([...M.P.validators, ...M.P.delegators].map((v) => [v.txId, v]));
  for (const s of stakers.values()) {
    const m = mStakers.get(s.txId);
    if (!m) { bad(`P staker ${s.txId} (${s.nodeId}) not in the manifest`); continue; }
    mStakers.delete(s.txId);
    const cmp = (f, got) => { if (m[f] !== undefined && S(m[f]) !== S(got)) bad(`P staker ${s.txId} ${f}: manifest ${m[f]}, replay ${got}`); };
    cmp('nodeId', s.nodeId); cmp('subnetId', s.subnetId); cmp('startTime', s.start); cmp('endTime', s.end); cmp('weight', s.weight);
    cmp('validationStatus', s.status);
    if (s.validatorTxId) cmp('validatorTxId', s.validatorTxId);
    if (s.wasPending) { if (m.pendingFrom === undefined) bad(`P staker ${s.txId}: pending from ${s.accepted} to ${s.start}, no pendingFrom in the manifest`); else cmp('pendingFrom', s.accepted); }
    else if (m.pendingFrom !== undefined) bad(`P staker ${s.txId}: pendingFrom ${m.pendingFrom} in the manifest, never pending in the replay`);
    if (s.status === 'pending' && m.potentialReward !== undefined) bad(`P staker ${s.txId}: pending, yet a potentialReward ${m.potentialReward} in the manifest`);
    if ((s.stake || s.genesis) && s.status !== 'pending') {
      if (m.potentialReward === undefined) bad(`P staker ${s.txId}: no potentialReward in the manifest`);
      cmp('potentialReward', s.potentialReward);
    }
    if (s.status === 'completed' && s.stake) { cmp('committed', s.committed); cmp('reward', s.reward); }
    if (s.isValidator && !s.permissioned) { cmp('delegatorCount', s.delegatorCount); cmp('delegationFee', s.shares); cmp('delegationFeesPaid', s.feesPaid); cmp('delegationFeesAccrued', s.feesAccrued); }
  }
  for (const id of mStakers.keys()) bad(`P staker ${id} in the manifest, not in the history`);
  const everPending = [...stakers.values()].filter((s) => s.wasPending);
  const atDurango = everPending.filter((s) => s.accepted < durangoTime && s.start > durangoTime);
  stats.pending = { during: everPending.length, atDurango: atDurango.length, atEnd: pending.length };
  if (everPending.length !== M.P.pendingDuringHistory) bad(`P pendingDuringHistory: manifest ${M.P.pendingDuringHistory}, replay ${everPending.length}`);
  if (atDurango.length !== M.P.pendingAtDurango) bad(`P pendingAtDurango: manifest ${M.P.pendingAtDurango}, replay ${atDurango.length}`);
  // subnets
  const mSubnets = new Map(M.P.subnets.map((s) => [s.subnetId, s]));
  for (const s of subnets.values()) {
    const m = mSubnets.get(s.subnetId);
    if (!m) { bad(`subnet ${s.subnetId} not in the manifest`); continue; }
    mSubnets.delete(s.subnetId);
    const own = { locktime: Number(s.owner.locktime), threshold: s.owner.threshold, addresses: s.owner.addrs.map((a) => fmt('P', a)) };
    if (JSON.stringify(own) !== JSON.stringify(m.owner)) bad(`subnet ${s.subnetId} owner: manifest ${JSON.stringify(m.owner)}, replay ${JSON.stringify(own)}`);
    if (JSON.stringify(s.chains) !== JSON.stringify(m.chains)) bad(`subnet ${s.subnetId} chains: manifest ${JSON.stringify(m.chains)}, replay ${JSON.stringify(s.chains)}`);
    if (s.isL1 !== m.isL1 || (s.isL1 && (s.managerChainId !== m.managerChainId || s.managerAddress !== m.managerAddress))) bad(`subnet ${s.subnetId} L1: manifest ${m.isL1}/${m.managerChainId}/${m.managerAddress}, replay ${s.isL1}/${s.managerChainId}/${s.managerAddress}`);
  }
  for (const id of mSubnets.keys()) bad(`subnet ${id} in the manifest, not in the history`);
  // L1 validators
  const mL1 = new Map(M.P.l1Validators.map((v) => [v.validationId, v]));
  for (const v of l1.values()) {
    const m = mL1.get(v.validationId);
    if (!m) { bad(`L1 validator ${v.validationId} not in the manifest`); continue; }
    mL1.delete(v.validationId);
    for (const [f, got] of [['nodeId', v.nodeId], ['subnetId', v.subnetId], ['weight', v.weight], ['balance', v.balance], ['active', v.active], ['removed', v.removed], ['minNonce', v.minNonce]])
      if (S(m[f]) !== S(got)) bad(`L1 validator ${v.validationId} ${f}: manifest ${m[f]}, replay ${got}`);
  }
  for (const id of mL1.keys()) bad(`L1 validator ${id} in the manifest, not in the history`);
  // P tx counts
  const pCounts = {};
  for (const n of N.P) pCounts[n.type] = (pCounts[n.type] ?? 0) + 1;
  if (JSON.stringify(sortKeys(pCounts)) !== JSON.stringify(sortKeys(M.P.txCounts))) bad(`P txCounts: manifest ${JSON.stringify(sortKeys(M.P.txCounts))}, replay ${JSON.stringify(sortKeys(pCounts))}`);
  // supply
  stats.supply = { manifest: M.supply, replay: S(supply) };
  if (S(supply) !== S(M.supply)) bad(`supply: manifest ${M.supply}, replay ${supply}`);

  // X balances: single-owner secp outputs per address and asset
  const xBal = new Map();
  let multi = 0;
  const nfts = {};
  for (const o of X.utxos.values()) {
    if (o.kind === 'secp' && o.owners.addrs.length === 1) {
      const a = fmt('X', o.owners.addrs[0]);
      const m = xBal.get(a) ?? new Map(); xBal.set(a, m);
      m.set(o.asset, (m.get(o.asset) ?? 0n) + o.amount);
    } else if (o.owners.addrs.length > 1) multi++;
    if (o.kind === 'nft' && o.owners.addrs.length === 1) nfts[o.asset] = (nfts[o.asset] ?? 0) + 1;
  }
  for (const [a, want] of Object.entries(M.X.balances)) {
    const got = xBal.get(a) ?? new Map();
    for (const asset of new Set([...Object.keys(want), ...got.keys()])) {
      const w = BigInt(want[asset] ?? 0), g = got.get(asset) ?? 0n;
      if (w !== g) bad(`X balance ${a} ${asset}: manifest ${w}, replay ${g}`);
    }
  }
  for (const a of xBal.keys()) if (!M.X.balances[a]) bad(`X balance of ${a} (not in the manifest)`);
  if (multi !== M.X.sharedUtxos) bad(`X sharedUtxos: manifest ${M.X.sharedUtxos}, replay ${multi}`);
  for (const a of new Set([...Object.keys(M.X.nfts), ...Object.keys(nfts)])) if ((M.X.nfts[a] ?? 0) !== (nfts[a] ?? 0)) bad(`X nfts ${a}: manifest ${M.X.nfts[a]}, replay ${nfts[a] ?? 0}`);
  const mAssets = new Map(M.X.assets.map((a) => [a.assetId, a]));
  for (const [id, a] of assets) {
    const m = mAssets.get(id);
    if (!m) { bad(`X asset ${id} not in the manifest`); continue; }
    mAssets.delete(id);
    if (id === avax) { if (m.supply !== M.supply) bad(`X AVAX supply ${m.supply} ≠ network supply ${M.supply}`); continue; }
    for (const f of ['name', 'symbol', 'denomination', 'type', 'supply']) if (S(m[f]) !== S(a[f])) bad(`X asset ${id} ${f}: manifest ${m[f]}, replay ${a[f]}`);
  }
  for (const id of mAssets.keys()) bad(`X asset ${id} in the manifest, not in the history`);
  if (JSON.stringify(sortKeys(xCounts)) !== JSON.stringify(sortKeys(M.X.txCounts))) bad(`X txCounts: manifest ${JSON.stringify(sortKeys(M.X.txCounts))}, replay ${JSON.stringify(sortKeys(xCounts))}`);

  // shared memory in flight
  let inFlight = 0;
  for (const d of Object.values(shared)) for (const m of Object.values(d)) for (const e of m.values()) if (!e.consumed) inFlight++;
  stats.sharedInFlight = inFlight;
  stats.txs = { P: N.P.length, X: N.X.length, C: N.C.length };
  return { problems, stats };
}

function ownersFromManifest(o) {
  if (!o) return null;
  return { locktime: BigInt(o.locktime), threshold: o.threshold, addrs: o.addresses.map((a) => Buffer.from(bech32Bytes(a)).toString('hex')) };
}
const sortKeys = (o) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));

// cb58 → bytes (payload without the checksum)
function cb58dec(s) { return utils.base58check.decode(s); }
function bech32Bytes(a) { return utils.bech32ToBytes(a); }
const nodeIdOf = (b) => 'NodeID-' + utils.base58check.encode(new Uint8Array(b));

// A signed warp message carrying an AddressedCall with an L1 validator message (§10).
export function parseWarp(buf) {
  let o = 0;
  const u16 = () => { const v = buf.readUInt16BE(o); o += 2; return v; };
  const u32 = () => { const v = buf.readUInt32BE(o); o += 4; return v; };
  const u64 = () => { const v = buf.readBigUInt64BE(o); o += 8; return v; };
  const fixed = (n) => { const v = buf.subarray(o, o + n); o += n; return v; };
  const bytes = () => fixed(u32());
  u16(); u32();
  const sourceChainId = cb58(fixed(32));
  const payload = bytes();
  const outer = o; buf = payload; o = 0;
  u16(); if (u32() !== 1) throw new Error('warp: not an AddressedCall');
  const sourceAddress = bytes().toString('hex');
  const inner = bytes();
  buf = inner; o = 0;
  u16();
  const type = u32();
  const m = { sourceChainId, sourceAddress, type, addressedPayload: inner, outer };
  const pOwner = () => { const threshold = u32(); const addrs = []; for (let n = u32(); n > 0; n--) addrs.push(fixed(20).toString('hex')); return { locktime: 0n, threshold, addrs }; };
  if (type === 1) {
    m.subnetId = cb58(fixed(32)); m.nodeId = Buffer.from(bytes()); m.blsPublicKey = Buffer.from(fixed(48)); m.expiry = u64();
    m.remainingBalanceOwner = pOwner(); m.disableOwner = pOwner(); m.weight = u64();
  } else if (type === 3) { m.validationId = cb58(fixed(32)); m.nonce = u64(); m.weight = u64(); }
  return m;
}
